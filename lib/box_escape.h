/* SPDX-License-Identifier: Apache-2.0 */
/* Escaping untrusted text for people: Rust's escape_debug shapes. */
#ifndef BOX_ESCAPE_H
#define BOX_ESCAPE_H

#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "box_err.h"

/*
 * Text an agent controls (paths, program names, annotation values) must
 * never reach a terminal raw: a control byte rewrites the screen, a
 * newline forges a line, a bidi override reorders what is read. Each
 * function appends the escaped form of s[0..n) to out and never fails
 * on content: a malformed UTF-8 byte is written as U+FFFD (one per
 * byte), so no invalid sequence passes through either. Escapes are
 * Rust's: `\0 \t \r \n \\`, the rest as `\u{hex}`.
 */

/* Rust's char::escape_debug for each character: quotes and apostrophes
 * escaped, every character Rust's is_printable rejects (controls, format
 * and bidi characters, separators other than space, private use,
 * noncharacters) and every grapheme extender as \u{…}. The form of the
 * resource in a denial message (box-spec §3.11) and of `box log`. */
box_err box_escape_debug(box_buf *out, const char *s, size_t n) BOX_WARN_UNUSED;
/* One scalar c in the box_escape_debug form (for callers that cap the
 * escaped length character by character). */
box_err box_escape_debug_char(box_buf *out, uint32_t c) BOX_WARN_UNUSED;
/* Rust's Debug for str, without the surrounding quotes: `"` escaped,
 * `'` kept, grapheme extenders escaped only at the start. */
box_err box_escape_debug_str(box_buf *out, const char *s,
                             size_t n) BOX_WARN_UNUSED;
/* Only control characters (C0, DEL, C1), `\`, U+061C, U+200E, U+200F,
 * U+2028–U+202E and U+2066–U+2069 escaped (char::escape_default for
 * those); everything else kept. Annotation text in messages. */
box_err box_escape_ids(box_buf *out, const char *s, size_t n) BOX_WARN_UNUSED;

#endif
