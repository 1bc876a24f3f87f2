/* SPDX-License-Identifier: Apache-2.0 */
/* exec: redirections that stay, or a command that ends the shell. */
#include <string.h>

#include "box_alloc.h"
#include "sh_bistate.h"
#include "sh_internal.h"

/*
 * `exec` alone: the command's redirections (`exec 3>f`, `exec >f`,
 * `exec 3<&-`) stay in force for the rest of the (sub)shell; exec_simple
 * applied them and keeps them when cx_keep_redirs is set. `exec cmd
 * args`: cmd runs, admitted as itself (never as a function, as bash),
 * and the (sub)shell ends with its status; the shell is replaced, so
 * its EXIT trap does not run. -c, -l and -a NAME change what a new
 * process would see; there is none here, so they are refused.
 */
int
sh_bi_exec(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    int i = 1;
    if (i < argc && strcmp(argv[i], "--") == 0)
        i++;
    else if (i < argc && argv[i][0] == '-' && argv[i][1] != '\0') {
        sh_cmd_err(cx, "exec", 2, "-%c: invalid option", argv[i][1]);
        (void)sh_puts(cx, 2,
                      "exec: usage: exec [-cl] [-a name] [command [argument "
                      "...]] [redirection ...]\n");
        return 2;
    }
    if (i >= argc) {
        cx->cx_keep_redirs = true;
        return 0;
    }
    if (sh_cmd_lookup(argv[i]) == NULL) {
        sh_host_bind b = {0};
        int rc = sh_host_locate(cx, argv[i], true, &b);
        bool found = rc == 0 && b.hb_host;
        sh_host_bind_clear(&b);
        if (rc != 0)
            return sh_cmd_err(cx, "exec", 1, "out of memory");
        if (!found) {
            sh_cmd_err(cx, "exec", BOX_STATUS_NOT_FOUND, "%s: not found",
                       argv[i]);
            sh_fatal(cx, BOX_STATUS_NOT_FOUND);
            return BOX_STATUS_NOT_FOUND;
        }
    }
    if (cx->cx_bi != NULL) {
        box_free(cx->cx_bi->bs_trap[SH_TRAP_EXIT]);
        cx->cx_bi->bs_trap[SH_TRAP_EXIT] = NULL;
    }
    int st = sh_exec_argv(cx, argc - i, argv + i, NULL, true);
    if (cx->cx_flow == SH_FLOW_EXIT)
        st = cx->cx_status;
    sh_fatal(cx, st);
    return st;
}
