/* SPDX-License-Identifier: Apache-2.0 */
/* JSON string escaping for the logs box writes. */
#include "box_json.h"

#include <string.h>

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0. */
static size_t
json_utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t len;
    unsigned min;
    unsigned cp;
    if (c < 0x80)
        return 1;
    if ((c & 0xe0) == 0xc0) {
        len = 2;
        min = 0x80;
        cp = c & 0x1f;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3;
        min = 0x800;
        cp = c & 0x0f;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4;
        min = 0x10000;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (len > n)
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return len;
}

/* Bytes that go out as they are (1): printable ASCII but the quote and
 * the backslash; one load a byte, not four tests. */
static const unsigned char json_plain[256] = {
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x0
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x10
    1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, // 0x20
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, // 0x30
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, // 0x40
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, // 0x50
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, // 0x60
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, // 0x70
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x80
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0x90
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0xa0
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0xb0
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0xc0
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0xd0
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0xe0
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, // 0xf0
};

box_err
box_json_str(box_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    box_err rv = box_buf_putc(b, '"');
    size_t i = 0;
    while (rv == BOX_OK && i < n) {
        // A run of bytes that go out as they are, appended at once: the
        // decision log writes a few hundred strings per line.
        size_t run = i;
        while (run < n) {
            unsigned char c = p[run];
            if (json_plain[c]) {
                run++;
                continue;
            }
            size_t l = c >= 0x80 ? json_utf8_len(p + run, n - run) : 0;
            if (l == 0)
                break;
            run += l;
        }
        if (run > i) {
            rv = box_buf_append(b, p + i, run - i);
            i = run;
            continue;
        }
        unsigned char c = p[i++];
        if (c == '"' || c == '\\') {
            char e[2] = {'\\', (char)c};
            rv = box_buf_append(b, e, 2);
        } else if (c < 0x20 || c == 0x7f) {
            char e[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            rv = box_buf_append(b, e, 6);
        } else {
            rv = box_buf_puts(b, "\\ufffd"); // not UTF-8
        }
    }
    if (rv == BOX_OK)
        rv = box_buf_putc(b, '"');
    return rv;
}

box_err
box_json_cstr(box_buf *b, const char *s)
{
    return box_json_str(b, s ? s : "", s ? strlen(s) : 0);
}
