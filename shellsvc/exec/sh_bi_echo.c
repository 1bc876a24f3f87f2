/* SPDX-License-Identifier: Apache-2.0 */
/* echo (printf is sh_bi_printf.c). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_buf.h"
#include "sh_internal.h"

#define SH_PRINT_MAX (16u << 20)

/*
 * One backslash escape at s (after the backslash) into b; returns the
 * bytes consumed. *stop is set by \c. bsmode: %b / echo -e rules (\0nnn
 * octal) rather than printf format rules (\nnn).
 */
static size_t
escape(const char *s, box_buf *b, bool bsmode, bool *stop, box_err *e)
{
    char c = s[0];
    size_t used = 1;
    int v;
    switch (c) {
    case 'a':
        v = '\a';
        break;
    case 'b':
        v = '\b';
        break;
    case 'e':
        v = 27;
        break;
    case 'f':
        v = '\f';
        break;
    case 'n':
        v = '\n';
        break;
    case 'r':
        v = '\r';
        break;
    case 't':
        v = '\t';
        break;
    case 'v':
        v = '\v';
        break;
    case '\\':
        v = '\\';
        break;
    case 'c':
        *stop = true;
        return 1;
    case 'x': {
        v = 0;
        int k = 0;
        while (k < 2 && strchr("0123456789abcdefABCDEF", s[1 + k]) &&
               s[1 + k] != '\0') {
            char h = s[1 + k];
            v = v * 16 + (h <= '9' ? h - '0' : (h | 32) - 'a' + 10);
            k++;
        }
        if (k == 0) {
            *e = box_buf_puts(b, "\\x");
            return 1;
        }
        used += (size_t)k;
        break;
    }
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7': {
        if (bsmode && c != '0') {
            *e = box_buf_putc(b, '\\');
            if (*e == BOX_OK)
                *e = box_buf_putc(b, c);
            return 1;
        }
        const char *p = s + (bsmode ? 1 : 0);
        v = 0;
        int k = 0;
        while (k < 3 && p[k] >= '0' && p[k] <= '7') {
            v = v * 8 + (p[k] - '0');
            k++;
        }
        used = (size_t)k + (bsmode ? 1 : 0);
        break;
    }
    case '\0':
        *e = box_buf_putc(b, '\\');
        return 0;
    default:
        if (!bsmode && c == '"') {
            v = '"';
            break;
        }
        *e = box_buf_putc(b, '\\');
        if (*e == BOX_OK)
            *e = box_buf_putc(b, c);
        return 1;
    }
    *e = box_buf_putc(b, (char)v);
    return used;
}

static box_err
put_escaped(box_buf *b, const char *s, bool *stop)
{
    box_err e = BOX_OK;
    while (*s && !*stop && e == BOX_OK) {
        if (*s == '\\') {
            s++;
            s += escape(s, b, true, stop, &e);
        } else {
            e = box_buf_putc(b, *s++);
        }
    }
    return e;
}

static int
flush(sh_ctx *cx, box_buf *b, const char *who, box_err e)
{
    int st = 0;
    if (e != BOX_OK) {
        st = sh_cmd_err(cx, who, 1, "output too large");
    } else if (b->b_len > 0 &&
               sh_write(cx, 1, b->b_data, b->b_len) != SH_IO_OK) {
        if (cx->cx_flow == SH_FLOW_NONE)
            st = sh_cmd_err(cx, who, 1, "write error: Bad file descriptor");
        else
            st = cx->cx_status;
    }
    box_buf_reset(b);
    return st;
}

/* echo [-neE] args: bash rules (escapes only with -e). */
int
sh_bi_echo(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    bool esc = sh_opt(o, 'e') && !sh_opt(o, 'E');
    bool stop = false;
    box_buf b;
    box_buf_init(&b, SH_PRINT_MAX);
    box_err e = BOX_OK;
    for (int i = o->o_ind; i < argc && !stop && e == BOX_OK; i++) {
        if (i > o->o_ind)
            e = box_buf_putc(&b, ' ');
        if (e == BOX_OK)
            e = esc ? put_escaped(&b, argv[i], &stop)
                    : box_buf_puts(&b, argv[i]);
    }
    if (e == BOX_OK && !sh_opt(o, 'n') && !stop)
        e = box_buf_putc(&b, '\n');
    return flush(cx, &b, "echo", e);
}
