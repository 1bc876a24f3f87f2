/* SPDX-License-Identifier: Apache-2.0 */
/* Writing JSON text into a box_buf (strings escaped per RFC 8259). */
#ifndef BOX_JSON_H
#define BOX_JSON_H

#include <stddef.h>

#include "box_buf.h"

/* Appends s (n bytes, any content) as a JSON string with its quotes.
 * Invalid UTF-8 bytes become U+FFFD so the output is always valid JSON. */
box_err box_json_str(box_buf *b, const char *s, size_t n) BOX_WARN_UNUSED;

/* The same for a NUL-terminated string; NULL writes "". */
box_err box_json_cstr(box_buf *b, const char *s) BOX_WARN_UNUSED;

#endif
