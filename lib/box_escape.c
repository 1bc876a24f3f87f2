/* SPDX-License-Identifier: Apache-2.0 */
/* Escaping untrusted text the way Rust's escape_debug writes it. */
#include "box_escape.h"

#include <stdbool.h>

#include "box_utf8.h"

/* Characters Rust's is_printable rejects, approximated: controls, format
 * characters (Cf), separators other than space (Zs, Zl, Zp), private use,
 * noncharacters. Unassigned code points are not tracked. */
static bool
not_printable(uint32_t c)
{
    static const uint32_t ranges[][2] = {
        {0x0000, 0x001F},   {0x007F, 0x00A0},    {0x00AD, 0x00AD},
        {0x0600, 0x0605},   {0x061C, 0x061C},    {0x06DD, 0x06DD},
        {0x070F, 0x070F},   {0x0890, 0x0891},    {0x08E2, 0x08E2},
        {0x1680, 0x1680},   {0x180E, 0x180E},    {0x2000, 0x200F},
        {0x2028, 0x202F},   {0x205F, 0x2064},    {0x2066, 0x206F},
        {0x3000, 0x3000},   {0xD800, 0xF8FF},    {0xFDD0, 0xFDEF},
        {0xFEFF, 0xFEFF},   {0xFFF9, 0xFFFB},    {0xFFFE, 0xFFFF},
        {0x110BD, 0x110BD}, {0x110CD, 0x110CD},  {0x13430, 0x1343F},
        {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A},  {0xE0001, 0xE0001},
        {0xE0020, 0xE007F}, {0xF0000, 0x10FFFF},
    };
    for (size_t i = 0; i < sizeof(ranges) / sizeof(ranges[0]); i++) {
        if (c >= ranges[i][0] && c <= ranges[i][1])
            return true;
    }
    return (c & 0xFFFE) == 0xFFFE; // noncharacters in every plane
}

/* Grapheme_Extend, approximated by the main combining-mark blocks. */
static bool
grapheme_extend(uint32_t c)
{
    return (c >= 0x0300 && c <= 0x036F) || (c >= 0x0483 && c <= 0x0489) ||
           (c >= 0x0591 && c <= 0x05BD) || (c >= 0x1AB0 && c <= 0x1AFF) ||
           (c >= 0x1DC0 && c <= 0x1DFF) || (c >= 0x20D0 && c <= 0x20FF) ||
           (c >= 0xFE00 && c <= 0xFE0F) || (c >= 0xFE20 && c <= 0xFE2F) ||
           (c >= 0xE0100 && c <= 0xE01EF);
}

static box_err
put_unicode(box_buf *out, uint32_t c)
{
    return box_buf_printf(out, "\\u{%x}", c);
}

/* The short escapes every form shares, or NULL. */
static const char *
short_escape(uint32_t c)
{
    switch (c) {
    case 0:
        return "\\0";
    case '\t':
        return "\\t";
    case '\r':
        return "\\r";
    case '\n':
        return "\\n";
    case '\\':
        return "\\\\";
    default:
        return NULL;
    }
}

/* One character the way char::escape_debug writes it, with the quote
 * and grapheme choices of the caller's form. */
static box_err
debug_char(box_buf *out, uint32_t c, bool esc_single, bool esc_double,
           bool esc_grapheme)
{
    const char *sh = short_escape(c);
    if (sh != NULL)
        return box_buf_puts(out, sh);
    if ((c == '\'' && esc_single) || (c == '"' && esc_double)) {
        char q[2] = {'\\', (char)c};
        return box_buf_append(out, q, 2);
    }
    if ((esc_grapheme && grapheme_extend(c)) || not_printable(c))
        return put_unicode(out, c);
    char b[4];
    size_t k = box_utf8_encode(c, b);
    return box_buf_append(out, b, k);
}

/* The next scalar of s[i..n) in *c and its length; a malformed byte is
 * one U+FFFD. */
static size_t
next_char(const char *s, size_t i, size_t n, uint32_t *c)
{
    size_t k = box_utf8_decode(s + i, n - i, c);
    if (k == 0) {
        *c = 0xFFFD;
        k = 1;
    }
    return k;
}

box_err
box_escape_debug_char(box_buf *out, uint32_t c)
{
    return debug_char(out, c, true, true, true);
}

box_err
box_escape_debug(box_buf *out, const char *s, size_t n)
{
    box_err rv = BOX_OK;
    uint32_t c;
    for (size_t i = 0; i < n && rv == BOX_OK;) {
        i += next_char(s, i, n, &c);
        rv = debug_char(out, c, true, true, true);
    }
    return rv;
}

box_err
box_escape_debug_str(box_buf *out, const char *s, size_t n)
{
    box_err rv = BOX_OK;
    uint32_t c;
    for (size_t i = 0; i < n && rv == BOX_OK;) {
        bool first = i == 0;
        i += next_char(s, i, n, &c);
        rv = debug_char(out, c, false, true, first);
    }
    return rv;
}

static bool
id_escaped(uint32_t c)
{
    return c < 0x20 || (c >= 0x7F && c <= 0x9F) || c == '\\' || c == 0x061C ||
           c == 0x200E || c == 0x200F || (c >= 0x2028 && c <= 0x202E) ||
           (c >= 0x2066 && c <= 0x2069);
}

box_err
box_escape_ids(box_buf *out, const char *s, size_t n)
{
    box_err rv = BOX_OK;
    uint32_t c;
    for (size_t i = 0; i < n && rv == BOX_OK;) {
        i += next_char(s, i, n, &c);
        const char *sh = c != 0 ? short_escape(c) : NULL;
        if (sh != NULL) {
            rv = box_buf_puts(out, sh);
        } else if (id_escaped(c)) {
            rv = put_unicode(out, c);
        } else {
            char b[4];
            rv = box_buf_append(out, b, box_utf8_encode(c, b));
        }
    }
    return rv;
}
