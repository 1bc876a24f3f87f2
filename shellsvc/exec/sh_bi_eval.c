/* SPDX-License-Identifier: Apache-2.0 */
/* eval and command: routes back into the executor and admission. */
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_internal.h"

/* eval args…: the arguments joined by spaces run as shell text; every
 * command in it is admitted like any other (spec §3.5). */
int
sh_bi_eval(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    box_buf b;
    box_buf_init(&b, SH_MAX_INPUT);
    for (int i = 1; i < argc; i++) {
        if ((i > 1 && box_buf_putc(&b, ' ') != BOX_OK) ||
            box_buf_puts(&b, argv[i]) != BOX_OK) {
            box_buf_reset(&b);
            return sh_cmd_err(cx, "eval", 1, "input too large");
        }
    }
    int st = 0;
    if (b.b_len > 0) {
        cx->cx_xlevel++; // set -x shows eval's commands a level deeper
        st = sh_exec_text(cx, b.b_data, b.b_len, "eval");
        cx->cx_xlevel--;
    }
    box_buf_reset(&b);
    return st;
}

/*
 * command [-v|-V] name [args…]: -v prints what each name runs as (a
 * builtin's, keyword's or function's name, a file's path, an alias's
 * definition), -V describes it as `type` does; otherwise the command
 * runs bypassing functions, after its own admission as program `name`
 * (so `command rm` is judged as rm). Its arguments are reported to the
 * log as literal.
 */
int
sh_bi_command(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    if (o->o_ind >= argc)
        return 0;
    if (sh_opt(o, 'v') || sh_opt(o, 'V')) {
        int st = 1; // bash: 0 when any name is found
        for (int i = o->o_ind; i < argc; i++) {
            if (sh_type_command(cx, argv[i], sh_opt(o, 'V')))
                st = 0;
            else if (sh_opt(o, 'V'))
                sh_cmd_err(cx, "command", 1, "%s: not found", argv[i]);
        }
        return st;
    }
    return sh_exec_argv(cx, argc - o->o_ind, argv + o->o_ind, NULL, true);
}
