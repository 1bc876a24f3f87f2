/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jobs and kill: the call's own `&` jobs. kill signals them, nothing
 * else. A job is a thread
 * of this worker, not a process, so "sending" a signal sets the job's
 * flag; the job, and whatever it runs (stages, $( ), a host program, a
 * sleep), stops at its next check with status 128 + the signal, as a
 * killed process would report to `wait`. Any other pid is answered as
 * bash answers a pid that is not there: the box never signals a process
 * it did not start for this call (and its host programs are reached
 * only through their job).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_buf.h"
#include "sh_internal.h"

static int
kill_usage(sh_ctx *cx)
{
    (void)sh_puts(cx, 2,
                  "kill: usage: kill [-s sigspec | -n signum | -sigspec] pid "
                  "| jobspec ... or kill -l [sigspec]\n");
    return 2;
}

/* A signal spec kill accepts (1..64, by number or name), or -1. */
static int
kill_signal(const char *spec)
{
    int s = sh_trap_slot_of(spec);
    return s >= 1 && s <= 64 ? s : -1;
}

/* kill -l [SPEC…]: the list, or each spec's name (a number) or number. */
static int
kill_list(sh_ctx *cx, int argc, char **argv, int i)
{
    if (i >= argc)
        return sh_trap_list_signals(cx);
    int st = 0;
    for (; i < argc; i++) {
        char *end;
        long n = strtol(argv[i], &end, 10);
        char out[48], buf[32];
        if (argv[i][0] != '\0' && *end == '\0') {
            // bash: an exit status above 128 names its signal.
            int s = (int)(n > 128 ? n - 128 : n);
            if (s < 1 || s > 64 || s == 32 || s == 33) {
                sh_errf(cx, "kill: %s: invalid signal specification", argv[i]);
                st = 1;
                continue;
            }
            const char *nm = sh_trap_slot_name(s, buf, sizeof buf);
            snprintf(out, sizeof out, "%s\n", nm + 3);
        } else {
            int s = kill_signal(argv[i]);
            if (s < 0) {
                sh_errf(cx, "kill: %s: invalid signal specification", argv[i]);
                st = 1;
                continue;
            }
            snprintf(out, sizeof out, "%d\n", s);
        }
        if (sh_puts(cx, 1, out) != SH_IO_OK)
            return 1;
    }
    return st;
}

/* One operand: a $! of this call's jobs, or a job spec %N %% %+. */
static int
kill_one(sh_ctx *cx, const char *arg, int sig)
{
    long id;
    char *end;
    if (arg[0] == '%') {
        const char *n = arg + 1;
        if (n[0] == '\0' || strcmp(n, "%") == 0 || strcmp(n, "+") == 0) {
            id = 0;
        } else {
            long k = strtol(n, &end, 10);
            if (*end != '\0' || k <= 0) {
                sh_errf(cx, "kill: %s: no such job", arg);
                return 1;
            }
            id = -k;
        }
        if (cx->cx_njobs == 0 || sh_ctx_kill_job(cx, id, sig) != 0) {
            sh_errf(cx, "kill: %s: no such job", arg);
            return 1;
        }
        return 0;
    }
    id = strtol(arg, &end, 10);
    if (arg[0] == '\0' || *end != '\0') {
        sh_errf(cx, "kill: %s: arguments must be process or job IDs", arg);
        return 1;
    }
    if (id <= 0 || sh_ctx_kill_job(cx, id, sig) != 0) {
        sh_errf(cx, "kill: (%s) - No such process", arg);
        return 1;
    }
    return 0;
}

int
sh_bi_kill(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    int sig = 15; // SIGTERM
    int i = 1;
    if (i < argc && argv[i][0] == '-' && argv[i][1] != '\0') {
        const char *a = argv[i];
        if (strcmp(a, "-l") == 0 || strcmp(a, "-L") == 0)
            return kill_list(cx, argc, argv, i + 1);
        if (strcmp(a, "--") == 0) {
            i++;
        } else if (strcmp(a, "-s") == 0 || strcmp(a, "-n") == 0) {
            if (i + 1 >= argc) {
                sh_errf(cx, "kill: %s: option requires an argument", a);
                return 1;
            }
            if ((sig = kill_signal(argv[i + 1])) < 0) {
                sh_errf(cx, "kill: %s: invalid signal specification",
                        argv[i + 1]);
                return 1;
            }
            i += 2;
        } else {
            if ((sig = kill_signal(a + 1)) < 0) {
                sh_errf(cx, "kill: %s: invalid signal specification", a + 1);
                return 1;
            }
            i++;
        }
    }
    if (i >= argc)
        return kill_usage(cx);
    int st = 0;
    for (; i < argc; i++)
        if (kill_one(cx, argv[i], sig) != 0)
            st = 1;
    return st;
}

/* One line of `jobs` as bash prints it: "[N]+  Running   CMD &". */
static box_err
jobs_line(box_buf *b, unsigned k, unsigned n, long id, const sh_node *cmd,
          char mode)
{
    if (mode == 'p')
        return box_buf_printf(b, "%ld\n", id);
    char mark = k + 1 == n ? '+' : k + 2 == n ? '-' : ' ';
    box_err e =
        mode == 'l'
            ? box_buf_printf(b, "[%u]%c %ld %-24s", k + 1, mark, id, "Running")
            : box_buf_printf(b, "[%u]%c  %-24s", k + 1, mark, "Running");
    if (e == BOX_OK)
        e = sh_print_node(b, cmd);
    if (e == BOX_OK)
        e = box_buf_puts(b, " &\n");
    return e;
}

int
sh_bi_jobs(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    char mode = 0;
    if (sh_opt(o, 'p'))
        mode = 'p';
    else if (sh_opt(o, 'l'))
        mode = 'l';
    unsigned n = 0;
    long id;
    const sh_node *cmd;
    while (sh_ctx_job_at(cx, n, &id, &cmd))
        n++;
    box_buf b;
    box_buf_init(&b, SH_MAX_INPUT);
    box_err e = BOX_OK;
    int st = 0;
    char **ops = argv + (o->o_ind < argc ? o->o_ind : argc);
    if (ops[0] == NULL && !sh_opt(o, 's')) { // -s: none is stopped
        for (unsigned k = 0; k < n && e == BOX_OK; k++)
            if (sh_ctx_job_at(cx, k, &id, &cmd))
                e = jobs_line(&b, k, n, id, cmd, mode);
    }
    for (; *ops != NULL && e == BOX_OK; ops++) {
        const char *a = *ops;
        char *end = NULL;
        long k = a[0] == '%' ? strtol(a + 1, &end, 10) : 0;
        if (a[0] == '%' && (a[1] == '%' || a[1] == '+' || a[1] == '\0'))
            k = (long)n, end = (char *)"";
        if (end == NULL || *end != '\0' || k < 1 || (unsigned long)k > n ||
            !sh_ctx_job_at(cx, (unsigned)k - 1, &id, &cmd)) {
            sh_errf(cx, "jobs: %s: no such job", a);
            st = 1;
            continue;
        }
        e = jobs_line(&b, (unsigned)k - 1, n, id, cmd, mode);
    }
    if (e == BOX_OK && b.b_len > 0 &&
        sh_write(cx, 1, b.b_data, b.b_len) != SH_IO_OK)
        st = 1;
    if (e != BOX_OK) {
        sh_errf(cx, "jobs: out of memory");
        st = 1;
    }
    box_buf_reset(&b);
    return st;
}
