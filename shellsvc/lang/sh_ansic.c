/* SPDX-License-Identifier: Apache-2.0 */
/* $'…' escapes and ${x@Q} quoting (bash 5.2's ansicstr and
 * sh_quote_reusable). */
#include "sh_ansic.h"

#include <stdint.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_hex.h"
#include "box_utf8.h"

/* Up to max hex digits at s[*i..n); -1 when there is none. */
static long
hexdigits(const char *s, size_t n, size_t *i, int max)
{
    long v = -1;
    for (int k = 0; k < max && *i < n; k++) {
        int h = box_hexval((unsigned char)s[*i]);
        if (h < 0)
            break;
        v = (v < 0 ? 0 : v) * 16 + h;
        ++*i;
    }
    return v;
}

/* One escape after the `\` at s[*i] (advanced past it) into out: the
 * bytes written. */
static size_t
decode_one(const char *s, size_t n, size_t *i, char *out)
{
    static const char simple_in[] = "abeEfnrtv\\'\"?";
    static const char simple_out[] = "\a\b\033\033\f\n\r\t\v\\'\"?";
    int c = (unsigned char)s[*i];
    const char *k = c != '\0' ? strchr(simple_in, c) : NULL;
    if (k != NULL) {
        ++*i;
        out[0] = simple_out[k - simple_in];
        return 1;
    }
    if (c >= '0' && c <= '7') {
        unsigned v = 0;
        for (int d = 0; d < 3 && *i < n && s[*i] >= '0' && s[*i] <= '7'; d++)
            v = v * 8 + (unsigned)(s[(*i)++] - '0');
        out[0] = (char)(v & 0xFF);
        return 1;
    }
    if (c == 'x' || c == 'u' || c == 'U') {
        size_t j = *i + 1;
        long v = hexdigits(s, n, &j, c == 'x' ? 2 : c == 'u' ? 4 : 8);
        if (v < 0) { // no digits: the text stays as written
            out[0] = '\\';
            return 1;
        }
        *i = j;
        if (c == 'x') {
            out[0] = (char)v;
            return 1;
        }
        return box_utf8_encode((uint32_t)(v > 0x10FFFF ? 0xFFFD : v), out);
    }
    if (c == 'c' && *i + 1 < n) {
        int x = (unsigned char)s[*i + 1];
        *i += 2;
        if (x == '\\' && *i < n && s[*i] == '\\')
            ++*i; // \c\\ is control-backslash
        if (x >= 'a' && x <= 'z')
            x -= 'a' - 'A';
        out[0] = (char)(x == '?' ? 0x7F : x & 0x1F);
        return 1;
    }
    out[0] = '\\'; // unknown: kept, the next byte follows as text
    return 1;
}

size_t
sh_ansic_decode(const char *s, size_t n, char *out)
{
    size_t o = 0;
    size_t i = 0;
    while (i < n) {
        if (s[i] != '\\' || i + 1 >= n) {
            out[o++] = s[i++];
        } else {
            ++i;
            o += decode_one(s, n, &i, out + o);
        }
        if (o > 0 && out[o - 1] == '\0') { // a NUL ends the string
            o--;
            break;
        }
    }
    out[o] = '\0';
    return o;
}

/* Whether v needs $'…' to read back: it holds a control character. */
static bool
needs_ansic(const char *v)
{
    for (const unsigned char *p = (const unsigned char *)v; *p; p++)
        if (*p < 0x20 || *p == 0x7F)
            return true;
    return false;
}

char *
sh_ansic_quote(const char *v)
{
    box_buf b;
    box_buf_init(&b, 4 * strlen(v) + 8); // \NNN is the most one byte grows
    bool ok = true;
    if (!needs_ansic(v)) {
        ok = box_buf_putc(&b, '\'') == BOX_OK;
        for (const char *p = v; ok && *p; p++)
            ok = (*p == '\'' ? box_buf_puts(&b, "'\\''")
                             : box_buf_putc(&b, *p)) == BOX_OK;
        ok = ok && box_buf_putc(&b, '\'') == BOX_OK;
    } else {
        static const char esc_in[] = "\a\b\033\f\n\r\t\v\\'";
        static const char esc_out[] = "abEfnrtv\\'";
        ok = box_buf_puts(&b, "$'") == BOX_OK;
        for (const unsigned char *p = (const unsigned char *)v; ok && *p; p++) {
            const char *k = strchr(esc_in, *p);
            if (k != NULL) {
                char e[2] = {'\\', esc_out[k - esc_in]};
                ok = box_buf_append(&b, e, 2) == BOX_OK;
            } else if (*p < 0x20 || *p == 0x7F) {
                char e[4] = {'\\', (char)('0' + (*p >> 6)),
                             (char)('0' + ((*p >> 3) & 7)),
                             (char)('0' + (*p & 7))};
                ok = box_buf_append(&b, e, 4) == BOX_OK;
            } else {
                ok = box_buf_putc(&b, (char)*p) == BOX_OK;
            }
        }
        ok = ok && box_buf_putc(&b, '\'') == BOX_OK;
    }
    char *r = ok ? box_buf_take(&b) : NULL;
    box_buf_reset(&b);
    return r;
}
