/* SPDX-License-Identifier: Apache-2.0 */
/* builtin, hash and caller: questions about how a name runs. */
#include <stdio.h>
#include <string.h>

#include "sh_internal.h"

/* A row that bash has as a builtin: the box's own commands (cat, ls, …)
 * carry a usage text and are programs to bash. */
static const sh_cmd *
shell_builtin(const char *name)
{
    const sh_cmd *c = sh_cmd_lookup(name);
    return c != NULL && c->c_usage == NULL ? c : NULL;
}

/* builtin NAME [ARGS…]: the builtin, never a function of that name; it
 * is admitted as NAME like any command (spec §3.5). */
int
sh_bi_builtin(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    if (o->o_ind >= argc)
        return 0;
    if (shell_builtin(argv[o->o_ind]) == NULL)
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

/* caller: outside every function there is no caller (status 1); inside
 * one, bash's `bash -c` answer: the line and "NULL" for the file. */
int
sh_bi_caller(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    if (cx->cx_funcs == 0 || o->o_ind < argc)
        return 1;
    char line[32];
    snprintf(line, sizeof line, "%u NULL\n", (unsigned)cx->cx_line);
    return sh_puts(cx, 1, line) == SH_IO_OK ? 0 : 1;
}
