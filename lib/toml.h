/* SPDX-License-Identifier: Apache-2.0 */
/* A TOML 1.0 parser for box.toml: the subset box needs, with exact errors. */
#ifndef BOX_TOML_H
#define BOX_TOML_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_err.h"

/*
 * What is accepted: comments; bare, quoted and dotted keys; `[a.b.c]`
 * headers; inline tables; arrays (multi-line, trailing comma, nested,
 * mixed); basic, literal and multi-line strings with every TOML 1.0
 * escape; integers (decimal with sign and underscores, 0x / 0o / 0b);
 * booleans. What is refused with a message: floats, dates and times,
 * arrays of tables (`[[x]]`), and everything TOML 1.0 itself forbids
 * (duplicate keys, a table defined twice, extending an inline table, a key
 * that is both a value and a table, invalid UTF-8, ...).
 *
 * Every error reads `line L, column C: <message>`. Lines and columns are
 * 1-based; a column counts Unicode characters, not bytes. A UTF-8
 * byte-order mark at the very start is skipped (editors add one), and a
 * CRLF inside a multi-line string reads as LF.
 */

/* Limits. Each one is refused with a message naming it. */
#define TOML_MAX_INPUT (1024u * 1024u) // bytes of text
#define TOML_MAX_DEPTH 64              // nested tables and arrays
#define TOML_MAX_TABLE_KEYS 4096       // keys in one table
#define TOML_MAX_ARRAY_LEN 4096        // elements in one array

/* A parsed document. It owns every value reachable from its root. */
typedef struct toml_doc toml_doc;
/* One node of a document; borrowed from the document, never freed alone. */
typedef struct toml_value toml_value;

/* ORDER TOML_KIND: keep toml_kind_name's table in toml.c in this order. */
typedef enum toml_kind {
    TOML_TABLE,
    TOML_ARRAY,
    TOML_STRING,
    TOML_INTEGER,
    TOML_BOOL,
} toml_kind;

/* Where something starts in the text (1-based line and column). */
typedef struct toml_pos {
    uint32_t line;
    uint32_t column;
} toml_pos;

/*
 * Parses len bytes of text (no NUL terminator needed). On BOX_OK *out is a
 * document the caller frees with toml_free and *err is NULL. On failure
 * *out is NULL and *err is a message `line L, column C: ...` that the
 * caller frees with box_free (NULL if even that could not be allocated).
 * Returns BOX_EPARSE for a text that is not accepted, BOX_ETOOBIG for a
 * text over TOML_MAX_INPUT, BOX_ENOMEM, or BOX_EINVAL for NULL arguments.
 */
box_err toml_parse(const char *text, size_t len, toml_doc **out,
                   char **err) BOX_WARN_UNUSED;
/* Frees the document and every value in it; NULL is a no-op. */
void toml_free(toml_doc *doc);

/* The top-level table; never NULL. */
const toml_value *toml_root(const toml_doc *doc);

toml_kind toml_value_kind(const toml_value *v);
/* Static text for a kind: "table", "array", "string", "integer",
 * "boolean". */
const char *toml_kind_name(toml_kind k);
/* Where the value was written: the opening quote, bracket or brace, the
 * first character of a number or boolean, the `[` of the header that
 * defined a table, or the key that first created a table implicitly (a
 * dotted key, or a header part such as `a` in `[a.b]`). The root is 1:1. */
toml_pos toml_value_pos(const toml_value *v);

/*
 * Tables. Keys come back in source order. A key is a byte string that may
 * hold any UTF-8 including NUL (from `"\u0000"`), so it has a length; it is
 * also NUL-terminated for convenience. Each accessor expects a table.
 */
size_t toml_table_len(const toml_value *t);
const char *toml_table_key(const toml_value *t, size_t i, size_t *len);
toml_pos toml_table_key_pos(const toml_value *t, size_t i);
const toml_value *toml_table_at(const toml_value *t, size_t i);
/* Lookup by a NUL-terminated key; NULL when absent (or t is no table). */
const toml_value *toml_table_get(const toml_value *t, const char *key);

/* Arrays. Each accessor expects an array. */
size_t toml_array_len(const toml_value *a);
const toml_value *toml_array_at(const toml_value *a, size_t i);

/*
 * Scalars. toml_string returns the bytes (NUL-terminated, but a string may
 * also hold NUL itself, so *len is the true length; len may be NULL);
 * NULL for a value that is not a string. toml_integer and toml_bool
 * return 0 / false for a value of another kind: check the kind first.
 */
const char *toml_string(const toml_value *v, size_t *len);
int64_t toml_integer(const toml_value *v);
bool toml_bool(const toml_value *v);

#endif
