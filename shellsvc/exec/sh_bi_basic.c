/* SPDX-License-Identifier: Apache-2.0 */
/* Builtins that steer control: : true false exit return break continue wait. */
#include <stdlib.h>
#include <string.h>

#include "sh_internal.h"

/* A decimal status argument; -1 when not a number. */
static long
num_arg(const char *s)
{
    char *end;
    if (s[0] == '\0')
        return -1;
    long n = strtol(s, &end, 10);
    if (*end != '\0' || n < 0)
        return -1;
    return n;
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
    if (argc > 1) {
        long n = num_arg(argv[1]);
        if (n < 0) {
            sh_cmd_err(cx, "exit", 2, "%s: numeric argument required", argv[1]);
            st = 2;
        } else {
            st = (int)(n & 255);
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
    if (argc > 1) {
        long n = num_arg(argv[1]);
        if (n < 0)
            return sh_cmd_err(cx, "return", 2,
                              "%s: numeric argument "
                              "required",
                              argv[1]);
        st = (int)(n & 255);
    }
    if (cx->cx_funcs == 0 && cx->cx_sourced == 0)
        return sh_cmd_err(cx, "return", 2,
                          "can only `return' from a function or sourced "
                          "script");
    cx->cx_flow = SH_FLOW_RETURN;
    cx->cx_status = st;
    return st;
}

/* break [n] / continue [n]: outside a loop they do nothing (status 0). */
int
sh_bi_break(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    long n = 1;
    if (argc > 1 && (n = num_arg(argv[1])) < 1)
        return sh_cmd_err(cx, argv[0], 1, "%s: loop count out of range",
                          argv[1]);
    if (cx->cx_loops == 0)
        return 0;
    if ((unsigned long)n > cx->cx_loops)
        n = (long)cx->cx_loops;
    cx->cx_flow =
        strcmp(argv[0], "break") == 0 ? SH_FLOW_BREAK : SH_FLOW_CONTINUE;
    cx->cx_flow_n = (unsigned)n;
    return 0;
}

/* wait: waits for every `&` job started by this (sub)shell; job
 * operands are accepted and ignored (no job table yet). */
int
sh_bi_wait(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    if (argc < 2) {
        sh_ctx_wait_jobs(cx);
        return 0;
    }
    // As bash: each id in turn; the status is the last one's.
    int st = 0;
    for (int i = 1; i < argc; i++) {
        char *end = NULL;
        long id = strtol(argv[i], &end, 10);
        if (argv[i][0] == '\0' || *end != '\0' || id <= 0) {
            sh_errf(cx, "wait: `%s': not a pid or valid job spec", argv[i]);
            st = 1;
            continue;
        }
        if (sh_ctx_wait_job(cx, id, &st) != 0) {
            sh_errf(cx, "wait: pid %ld is not a child of this shell", id);
            st = 127;
        }
    }
    return st;
}
