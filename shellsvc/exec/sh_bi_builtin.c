/* SPDX-License-Identifier: Apache-2.0 */
/* builtin, hash and caller: questions about how a name runs. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_array.h"
#include "sh_internal.h"

/* A row that bash has as a builtin: the box's own commands (cat, ls, …)
 * are programs to bash. */
static const sh_cmd *
shell_builtin(sh_ctx *cx, const char *name)
{
    const sh_cmd *c = sh_cmd_find(cx->cx_st, name); // enable -n: not one
    return c != NULL && !(c->c_mode & SH_CMD_PROGRAM) ? c : NULL;
}

/* builtin NAME [ARGS…]: the builtin, never a function of that name; it
 * is admitted as NAME like any command (spec §3.5). */
int
sh_bi_builtin(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    if (o->o_ind >= argc)
        return 0;
    if (shell_builtin(cx, argv[o->o_ind]) == NULL)
        return sh_cmd_err(cx, "builtin", 1, "%s: not a shell builtin",
                          argv[o->o_ind]);
    return sh_exec_argv(cx, argc - o->o_ind, argv + o->o_ind, NULL, true);
}

/*
 * hash: bash remembers where it found programs. This shell looks a name
 * up each time it runs it (spec §3.4), so the table stays empty: -r and
 * -d succeed, a name that would run succeeds, -t finds nothing.
 */
int
sh_bi_hash(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    if (sh_opt(o, 'r') || sh_opt(o, 'd'))
        return 0;
    if (o->o_ind >= argc) {
        if (sh_opt(o, 'l'))
            return 0;
        return sh_puts(cx, 1, "hash: hash table empty\n") == SH_IO_OK ? 0 : 1;
    }
    int st = 0;
    for (int i = o->o_ind; i < argc; i++) {
        if (!sh_opt(o, 't') && sh_cmd_lookup(argv[i]) != NULL)
            continue;
        if (!sh_opt(o, 't') && strchr(argv[i], '/') == NULL) {
            sh_host_bind b = {0};
            int rc = sh_host_locate(cx, argv[i], true, &b);
            bool found = rc == 0 && b.hb_host;
            sh_host_bind_clear(&b);
            if (found)
                continue;
        }
        st = sh_cmd_err(cx, "hash", 1, "%s: not found", argv[i]);
    }
    return st;
}

/*
 * caller [N]: the frame N up, as bash answers from its call stack: the
 * line it came from (BASH_LINENO[N]), the frame it came from
 * (FUNCNAME[N+1]) and that frame's file (BASH_SOURCE[N+1]: "environment"
 * for the call's own text). Without N, the line and the file, "NULL"
 * with no frame above. Status 1 (and nothing) when there is no such
 * frame.
 */
int
sh_bi_caller(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    long long n = -1;
    if (o->o_ind < argc) {
        char *end;
        const char *a = argv[o->o_ind];
        n = strtoll(a, &end, 10);
        if (a[0] == '\0' || *end != '\0' || n < 0) {
            sh_cmd_err(cx, "caller", 2, "%s: invalid number", a);
            (void)sh_puts(cx, 2, "caller: usage: caller [expr]\n");
            return 2;
        }
    }
    size_t at = n < 0 ? 0 : (size_t)n;
    const sh_call *here = sh_calls_at(cx->cx_st, at);
    const sh_call *up = sh_calls_at(cx->cx_st, at + 1);
    if (here == NULL || (n >= 0 && up == NULL))
        return 1;
    const char *file = up == NULL              ? "NULL"
                       : up->sc_source != NULL ? up->sc_source
                                               : "environment";
    char *out = n < 0 ? box_asprintf("%u %s\n", (unsigned)here->sc_line, file)
                      : box_asprintf("%u %s %s\n", (unsigned)here->sc_line,
                                     up->sc_name, file);
    if (out == NULL)
        return sh_cmd_err(cx, "caller", 1, "out of memory");
    int rc = sh_puts(cx, 1, out) == SH_IO_OK ? 0 : 1;
    box_free(out);
    return rc;
}
