/* SPDX-License-Identifier: Apache-2.0 */
/* ${v@P}: a value read as bash 5.2 reads a prompt string. */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_ids.h"
#include "sh_internal.h"

/* A value an escape stands for, quoted so the expansion that follows
 * leaves it as it is (a directory named `$x` stays `$x`). */
static box_err
put_literal(box_buf *b, const char *s)
{
    box_err e = BOX_OK;
    for (; *s != '\0' && e == BOX_OK; s++) {
        if (strchr("$`\"\\", *s) != NULL)
            e = box_buf_putc(b, '\\');
        if (e == BOX_OK)
            e = box_buf_putc(b, *s);
    }
    return e;
}

/* The current time through strftime format f. */
static box_err
put_time(box_buf *b, const char *f)
{
    char out[256];
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm) == NULL)
        return BOX_OK;
    size_t n = strftime(out, sizeof out, f, &tm);
    out[n] = '\0';
    return put_literal(b, out);
}

/* \w (the working directory, $HOME as ~) or \W (its last name). */
static box_err
put_cwd(sh_ctx *cx, box_buf *b, bool last)
{
    const char *cwd = cx->cx_st->st_cwd;
    const char *home = sh_var_get(cx->cx_st, "HOME");
    size_t hl = home != NULL ? strlen(home) : 0;
    if (hl > 1 && strncmp(cwd, home, hl) == 0 &&
        (cwd[hl] == '\0' || cwd[hl] == '/')) {
        if (cwd[hl] == '\0')
            return put_literal(b, "~");
        if (!last) {
            box_err e = box_buf_putc(b, '~');
            return e == BOX_OK ? put_literal(b, cwd + hl) : e;
        }
    }
    if (!last || strcmp(cwd, "/") == 0)
        return put_literal(b, cwd);
    const char *slash = strrchr(cwd, '/');
    return put_literal(b, slash != NULL ? slash + 1 : cwd);
}

/* The host's name, whole or up to its first dot. */
static box_err
put_host(box_buf *b, bool whole)
{
    char h[256] = "";
    if (gethostname(h, sizeof h - 1) != 0)
        h[0] = '\0';
    if (!whole)
        h[strcspn(h, ".")] = '\0';
    return put_literal(b, h);
}

/* One escape at *pp (past the backslash); advances *pp. */
static box_err
decode_one(sh_ctx *cx, box_buf *b, const char **pp)
{
    const char *p = *pp;
    char c = *p++;
    char num[32];
    box_err e = BOX_OK;
    switch (c) {
    case 'a': e = box_buf_putc(b, '\a'); break;
    case 'e': e = box_buf_putc(b, '\033'); break;
    case 'n': e = box_buf_putc(b, '\n'); break;
    case 'r': e = box_buf_putc(b, '\r'); break;
    case '\\': e = box_buf_puts(b, "\\\\"); break;
    case 'd': e = put_time(b, "%a %b %d"); break;
    case 't': e = put_time(b, "%H:%M:%S"); break;
    case 'T': e = put_time(b, "%I:%M:%S"); break;
    case '@': e = put_time(b, "%I:%M %p"); break;
    case 'A': e = put_time(b, "%H:%M"); break;
    case 'D': {
        const char *end = *p == '{' ? strchr(p, '}') : NULL;
        if (end == NULL) { // not \D{…}: the two characters as they are
            e = box_buf_puts(b, "\\D");
            break;
        }
        char f[128];
        snprintf(f, sizeof f, "%.*s", (int)(end - p - 1), p + 1);
        e = put_time(b, f[0] != '\0' ? f : "%X");
        p = end + 1;
        break;
    }
    case 'h': e = put_host(b, false); break;
    case 'H': e = put_host(b, true); break;
    case 'u': {
        const char *u = sh_ids_user((uint32_t)geteuid());
        snprintf(num, sizeof num, "%u", (unsigned)geteuid());
        e = put_literal(b, u != NULL ? u : num);
        break;
    }
    case 'w': e = put_cwd(cx, b, false); break;
    case 'W': e = put_cwd(cx, b, true); break;
    case '$': e = box_buf_putc(b, geteuid() == 0 ? '#' : '$'); break;
    case 's': {
        const char *z = sh_var_get(cx->cx_st, "0");
        const char *slash = z != NULL ? strrchr(z, '/') : NULL;
        e = put_literal(b, slash != NULL ? slash + 1 : z != NULL ? z : "");
        break;
    }
    // What bash -c answers: no terminal, no history, no line editing
    // (so \[ and \] mark nothing), its version.
    case 'v': e = box_buf_puts(b, "5.2"); break;
    case 'V': e = box_buf_puts(b, "5.2.15"); break;
    case 'j': e = box_buf_putc(b, '0'); break;
    case 'l': e = box_buf_puts(b, "tty"); break;
    case '!': e = box_buf_putc(b, '1'); break;
    case '#': e = box_buf_putc(b, '0'); break;
    case '[':
    case ']': break;
    default:
        if (c >= '0' && c <= '7') {
            int v = c - '0';
            for (int i = 0; i < 2 && *p >= '0' && *p <= '7'; i++)
                v = v * 8 + (*p++ - '0');
            char ch = (char)v;
            e = ch == '\0' ? BOX_OK : put_literal(b, (char[]){ch, '\0'});
        } else {
            e = box_buf_putc(b, '\\');
            if (e == BOX_OK && c != '\0')
                e = box_buf_putc(b, c);
            if (c == '\0')
                p--;
        }
        break;
    }
    *pp = p;
    return e;
}

int
sh_prompt_expand(sh_ctx *cx, const char *v, char **out)
{
    box_buf b;
    box_buf_init(&b, SIZE_MAX);
    box_err e = BOX_OK;
    for (const char *p = v; *p != '\0' && e == BOX_OK;) {
        if (*p != '\\') {
            e = box_buf_putc(&b, *p++);
            continue;
        }
        p++;
        e = decode_one(cx, &b, &p);
    }
    int rc = 1;
    if (e != BOX_OK) {
        sh_errf(cx, "${@P}: out of memory");
    } else {
        size_t len;
        rc = sh_expand_dq_text(cx, "prompt", 0, b.b_data ? b.b_data : "",
                               b.b_len, out, &len);
    }
    box_buf_reset(&b);
    return rc;
}
