/* SPDX-License-Identifier: Apache-2.0 */
/* The box.toml loader's private parts, shared by its table decoders. */
#ifndef BOX_CONFIG_INT_H
#define BOX_CONFIG_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "box_err.h"
#include "config.h"
#include "toml.h"

/*
 * Only the loader's own files include this: config.c (the passes, the
 * messages, the top level and the process tables) and config_egress.c
 * (the `[egress.NAME]` tables). Nothing here is an interface for callers.
 */

/* ORDER CFG_TOP: config.c's top_fields follows this order, which is also
 * the order serde lists them in "expected one of". */
enum cfg_top {
    TOP_NAME,
    TOP_BOX_DIR,
    TOP_POLICY,
    TOP_AGENT,
    TOP_TOOL,
    TOP_EGRESS,
    TOP_MCP,
    TOP_TELEMETRY,
    TOP_COUNT
};

/* Quoted strings one message may use at once. */
#define CFG_MAX_QUOTES 4

/* The reason a table label is refused, after `invalid `<table>` table: `. */
#define CFG_LABEL_RULE                                                         \
    "the label must be one component of letters, digits, '.', '_', or '-'"

/* The state of one load: where messages point and the first message. */
typedef struct cfg_ctx {
    const char *cx_path; // the config file, as messages name it
    char *cx_msg;        // owned; the first failure only
    bool cx_nomem;       // a quote could not be built
    char *cx_quotes[CFG_MAX_QUOTES];
    size_t cx_nquotes;
    bool cx_section[TOP_COUNT]; // which top-level keys were written
} cfg_ctx;

/* ---- messages (config.c) ---- */

/* Records the first failure; the message is the formatted text, and the
 * quotes made for it are released. Returns rv (BOX_ENOMEM if the message
 * cannot be built). */
box_err cx_fail(cfg_ctx *cx, box_err rv, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* A decode error: `cannot parse config file <p>: line L, column C: ...`;
 * returns BOX_EPARSE. */
box_err cx_parse_fail(cfg_ctx *cx, toml_pos at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* s as Rust's `{:?}` shows a str; owned by cx until the next message. */
const char *cx_quote(cfg_ctx *cx, const char *s, size_t len);
/* s with control characters escaped and no quotes (keys, labels). */
const char *cx_plain(cfg_ctx *cx, const char *s, size_t len);
void cx_drop_quotes(cfg_ctx *cx);

/* ---- decode helpers (config.c), serde's messages ---- */

/* The index of key[0..len) in the NULL-ended fields, or -1. */
int cfg_field_index(const char *const *fields, const char *key, size_t len);
box_err cfg_unknown_field(cfg_ctx *cx, const toml_value *t, size_t i,
                          const char *const *fields);
box_err cfg_missing_field(cfg_ctx *cx, const toml_value *t, const char *field);
box_err cfg_invalid_type(cfg_ctx *cx, const toml_value *v,
                         const char *expected);
/* A string without NUL, copied into *out (the caller's). */
box_err cfg_decode_string(cfg_ctx *cx, const toml_value *v, char **out);
/* An array of such strings; on failure *out holds the items so far. */
box_err cfg_decode_strv(cfg_ctx *cx, const toml_value *v, box_config_strv *out);
/* A string naming one of the NULL-ended names (a serde unit enum): *out is
 * its index; otherwise serde's "unknown variant". */
box_err cfg_decode_variant(cfg_ctx *cx, const toml_value *v,
                           const char *const *names, int *out);
void cfg_strv_free(box_config_strv *sv);

/* ---- shared rules (config.c) ---- */

/* [A-Za-z_][A-Za-z0-9_]* */
bool cfg_valid_env_name(const char *s, size_t len);
/* A name the box sets, or a loader hook (box-spec §5's `env` rules). */
bool cfg_env_reserved(const char *name);
/* One component of [A-Za-z0-9._-], not "." or "..". */
bool cfg_valid_label(const char *label);

/* ---- `[egress.NAME]` tables (config_egress.c) ---- */

typedef struct cfg_egress_set cfg_egress_set;

/* egress -> table of NAME = egress-table. On any return *out, when not
 * NULL, is the caller's (cfg_egress_free), partly filled on failure. */
box_err cfg_egress_decode(cfg_ctx *cx, const toml_value *v,
                          cfg_egress_set **out);
/* The contract's rules on every table in source order (each destination
 * against those before it, in its table and in earlier ones), then the
 * defaults filled in. */
box_err cfg_egress_validate(cfg_ctx *cx, cfg_egress_set *s);
size_t cfg_egress_count(const cfg_egress_set *s);
const box_config_egress *cfg_egress_get(const cfg_egress_set *s, size_t i);
void cfg_egress_free(cfg_egress_set *s);

#endif
