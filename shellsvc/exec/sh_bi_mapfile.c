/* SPDX-License-Identifier: Apache-2.0 */
/* mapfile / readarray: lines of standard input into an indexed array. */
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_array.h"
#include "sh_internal.h"

/* A count operand of -n / -s: digits only (bash: "invalid line count"). */
static bool
line_count(const char *s, long long *out)
{
    char *end;
    if (s[0] < '0' || s[0] > '9')
        return false;
    long long v = strtoll(s, &end, 10);
    if (*end != '\0' || v < 0)
        return false;
    *out = v;
    return true;
}

/*
 * mapfile [-t] [-n COUNT] [-s SKIP] [-d DELIM] [-u FD] [ARRAY]: each
 * line (up to DELIM, newline by default) becomes the next element of
 * ARRAY (MAPFILE when none), which is replaced. Reads a byte at a time,
 * like read, so nothing past the last line taken is consumed.
 */
int
sh_bi_mapfile(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    const char *who = argv[0];
    long long count = 0, skip = 0;
    int fd = 0;
    char delim = '\n';
    if (sh_opt(o, 'n') && !line_count(o->o_arg['n'], &count))
        return sh_cmd_err(cx, who, 1, "%s: invalid line count", o->o_arg['n']);
    if (sh_opt(o, 's') && !line_count(o->o_arg['s'], &skip))
        return sh_cmd_err(cx, who, 1, "%s: invalid line count", o->o_arg['s']);
    if (sh_opt(o, 'd'))
        delim = o->o_arg['d'][0];
    if (sh_opt(o, 'u')) {
        long long f;
        if (!line_count(o->o_arg['u'], &f) || f >= SH_MAX_FD)
            return sh_cmd_err(cx, who, 1, "%s: invalid file descriptor "
                              "specification", o->o_arg['u']);
        fd = (int)f;
    }
    if (argc - o->o_ind > 1)
        return sh_cmd_err(cx, who, 2, "too many arguments");
    const char *name = o->o_ind < argc ? argv[o->o_ind] : "MAPFILE";
    if (!sh_name_valid(name, strlen(name)))
        return sh_cmd_err(cx, who, 1, "`%s': not a valid identifier", name);
    sh_var *v = sh_var_find(cx->cx_st, name);
    if (v != NULL && (v->v_flags & SH_VAR_ASSOC))
        return sh_cmd_err(cx, who, 1, "%s: not an indexed array", name);
    sh_array *a = sh_array_new(false);
    box_buf line;
    box_buf_init(&line, SH_CAPTURE_MAX);
    box_err e = a != NULL ? BOX_OK : BOX_ENOMEM;
    long long seen = 0, k = 0;
    bool more = true;
    while (more && e == BOX_OK && (count == 0 || k < count)) {
        char c;
        line.b_len = 0;
        bool got = false;
        for (;;) {
            // Asks for a line at a time where input comes on demand.
            int r =
                sh_read_byte_ask(cx, fd, &c, SH_ASK_MAX, (unsigned char)delim);
            if (r <= 0) {
                more = false;
                break;
            }
            got = true;
            if (c == delim)
                break;
            if ((e = box_buf_putc(&line, c)) != BOX_OK)
                break;
        }
        if (!got || e != BOX_OK)
            break;
        if (c == delim && more && !sh_opt(o, 't') &&
            (e = box_buf_putc(&line, c)) != BOX_OK)
            break;
        if (seen++ < skip)
            continue;
        e = sh_array_set(a, k++, line.b_data ? line.b_data : "", line.b_len);
    }
    box_buf_reset(&line);
    int rc = 0;
    if (e == BOX_ETOOBIG && a != NULL && sh_array_count(a) >= SH_ARRAY_MAX) {
        sh_errf(cx, "%s: %s: array too large (at most %u elements)", who, name,
                SH_ARRAY_MAX);
        rc = 1;
    } else if (e != BOX_OK) {
        rc = sh_cmd_err(cx, who, 1, "line too long or out of memory");
    }
    if (rc != 0) {
        sh_array_free(a);
        return rc;
    }
    if ((v = sh_var_add(cx->cx_st, name)) == NULL) {
        sh_array_free(a);
        return sh_var_fail(cx, who, name, BOX_ENOMEM);
    }
    e = sh_var_set_array(cx->cx_st, v, a);
    return e == BOX_OK ? 0 : sh_var_fail(cx, NULL, name, e);
}
