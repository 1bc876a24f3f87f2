/* SPDX-License-Identifier: Apache-2.0 */
/* UTF-8 helpers shared by every parser and protocol reader (no allocation). */
#ifndef BOX_UTF8_H
#define BOX_UTF8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* True iff s[0..n) is well-formed UTF-8 (no overlongs, no surrogates,
 * nothing above U+10FFFF). */
bool box_utf8_valid(const char *s, size_t n);
/* Decodes one scalar at s[0..n); returns its byte length (>= 1) and sets
 * *cp, or returns 0 for a malformed sequence (then *cp = 0xFFFD). */
size_t box_utf8_decode(const char *s, size_t n, uint32_t *cp);
/* Encodes cp (a scalar value) into out[0..4); returns the length. */
size_t box_utf8_encode(uint32_t cp, char out[4]);

#endif
