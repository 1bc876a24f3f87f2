/* SPDX-License-Identifier: Apache-2.0 */
/* Builtins that steer control: : true false exit return break continue wait. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sh_internal.h"

/* A decimal argument with an optional sign, as bash reads exit's and
 * break's; false when not a number. */
static bool
signed_arg(const char *s, long *n)
{
    char *end;
    if (s[0] == '\0')
        return false;
    *n = strtol(s, &end, 10);
    return *end == '\0';
}

int
sh_bi_colon(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    return 0;
}

int
sh_bi_false(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    return 1;
}

/* exit [n]: ends the current (sub)shell with n, default $?. */
int
sh_bi_exit(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    int st = cx->cx_status;
    long n;
    if (argc > 1) {
        if (!signed_arg(argv[1], &n)) {
            sh_cmd_err(cx, "exit", 2, "%s: numeric argument required", argv[1]);
            st = 2;
        } else {
            st = (int)((unsigned long)n & 255); // exit -1 is 255, as bash
        }
    }
    sh_fatal(cx, st);
    return st;
}

/* return [n]: leaves the current function or sourced file with n,
 * default $?. */
int
sh_bi_return(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    int st = cx->cx_status;
    long n;
    if (argc > 1) {
        if (!signed_arg(argv[1], &n))
            return sh_cmd_err(cx, "return", 2,
                              "%s: numeric argument "
                              "required",
                              argv[1]);
        st = (int)((unsigned long)n & 255);
    }
    if (cx->cx_funcs == 0 && cx->cx_sourced == 0)
        return sh_cmd_err(cx, "return", 2,
                          "can only `return' from a function or sourced "
                          "script");
    cx->cx_flow = SH_FLOW_RETURN;
    cx->cx_status = st;
    return st;
}

/* break [n] / continue [n], as bash 5.2: outside a loop (a function or a
 * subshell counts as outside) they say so and do nothing (status 0); a
 * count below 1 is refused and leaves every enclosing loop (status 1); a
 * word that is no number ends the shell with 128. */
int
sh_bi_break(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    long n = 1;
    if (argc > 1 && !signed_arg(argv[1], &n)) {
        sh_cmd_err(cx, argv[0], 128, "%s: numeric argument required", argv[1]);
        sh_fatal(cx, 128);
        return 128;
    }
    if (cx->cx_loops == 0)
        return sh_cmd_err(cx, argv[0], 0,
                          "only meaningful in a `for', `while', or "
                          "`until' loop");
    int st = 0;
    if (n < 1) {
        st = sh_cmd_err(cx, argv[0], 1, "%s: loop count out of range", argv[1]);
        cx->cx_flow = SH_FLOW_BREAK;
        cx->cx_flow_n = cx->cx_loops;
        return st;
    }
    if ((unsigned long)n > cx->cx_loops)
        n = (long)cx->cx_loops;
    cx->cx_flow =
        strcmp(argv[0], "break") == 0 ? SH_FLOW_BREAK : SH_FLOW_CONTINUE;
    cx->cx_flow_n = (unsigned)n;
    return st;
}
