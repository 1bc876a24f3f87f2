/* SPDX-License-Identifier: Apache-2.0 */
/*
 * jobs, kill and wait: the call's own `&` jobs. kill signals them and
 * the call's own shell ($$), nothing else. A job is a thread
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

#include "box_alloc.h"
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

/* A signal spec kill accepts (0..64, by number or name; 0 only asks
 * whether the process is there), or -1. */
static int
kill_signal(const char *spec)
{
    int s = sh_trap_slot_of(spec);
    return s >= 0 && s <= 64 ? s : -1;
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

/* One operand: a $! of this call's jobs, or a job spec %N %% %+ %-. */
static int
kill_one(sh_ctx *cx, const char *arg, int sig)
{
    long id;
    char *end;
    if (arg[0] == '%') {
        id = sh_ctx_job_spec(cx, arg);
        if (id < 0 || sh_ctx_kill_job(cx, id, sig) != 0) {
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
    if (id == cx->cx_ss->ss_pid) { // the call's own shell, $$
        sh_session_signal(cx->cx_ss, sig);
        return 0;
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
jobs_line(box_buf *b, unsigned k, unsigned n, long id, unsigned num,
          const sh_node *cmd, char mode)
{
    if (mode == 'p')
        return box_buf_printf(b, "%ld\n", id);
    char mark = k + 1 == n ? '+' : k + 2 == n ? '-' : ' ';
    box_err e =
        mode == 'l'
            ? box_buf_printf(b, "[%u]%c %ld %-24s", num, mark, id, "Running")
            : box_buf_printf(b, "[%u]%c  %-24s", num, mark, "Running");
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
    unsigned n = 0, num;
    long id;
    const sh_node *cmd;
    while (sh_ctx_job_at(cx, n, &id, &num, &cmd))
        n++;
    box_buf b;
    box_buf_init(&b, SH_MAX_INPUT);
    box_err e = BOX_OK;
    int st = 0;
    char **ops = argv + (o->o_ind < argc ? o->o_ind : argc);
    if (ops[0] == NULL && !sh_opt(o, 's')) { // -s: none is stopped
        for (unsigned k = 0; k < n && e == BOX_OK; k++)
            if (sh_ctx_job_at(cx, k, &id, &num, &cmd))
                e = jobs_line(&b, k, n, id, num, cmd, mode);
    }
    for (; *ops != NULL && e == BOX_OK; ops++) {
        const char *a = *ops;
        long want = a[0] == '%' ? sh_ctx_job_spec(cx, a) : -1;
        unsigned k = 0;
        while (want >= 0 && sh_ctx_job_at(cx, k, &id, &num, &cmd) && id != want)
            k++;
        if (want < 0 || k >= n) {
            sh_errf(cx, "jobs: %s: no such job", a);
            st = 1;
            continue;
        }
        e = jobs_line(&b, k, n, id, num, cmd, mode);
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

/* wait's operand: a $! or a job spec; -1 (after bash's message) when it
 * is neither, 0 when it is a spec that names no job. */
static long
wait_operand(sh_ctx *cx, const char *a)
{
    if (a[0] == '%') {
        long id = sh_ctx_job_spec(cx, a);
        if (id < 0)
            sh_errf(cx, "wait: %s: no such job", a);
        return id < 0 ? 0 : id;
    }
    char *end = NULL;
    long id = strtol(a, &end, 10);
    if (a[0] == '\0' || *end != '\0' || id <= 0) {
        sh_errf(cx, "wait: `%s': not a pid or valid job spec", a);
        return -1;
    }
    return id;
}

/* -p VAR: the $! of the job waited for; 0, or 1 after the message. */
static int
wait_set_pvar(sh_ctx *cx, const char *pvar, long id)
{
    if (pvar == NULL)
        return 0;
    char num[24];
    snprintf(num, sizeof num, "%ld", id);
    return sh_assign_target(cx, "wait", pvar, num, strlen(num));
}

/* wait -n [ID...]: the next of the jobs still running (of the IDs) to
 * end; 127 when there is none. */
static int
wait_next(sh_ctx *cx, char **ops, int nops, const char *pvar)
{
    long *ids = nops > 0 ? box_calloc((size_t)nops, sizeof *ids) : NULL;
    size_t n = 0;
    if (nops > 0 && ids == NULL) {
        sh_errf(cx, "wait: out of memory");
        return 1;
    }
    for (int i = 0; i < nops; i++) {
        long id = wait_operand(cx, ops[i]);
        if (id > 0)
            ids[n++] = id;
    }
    long id = 0;
    int st = 127,
        rc = nops > 0 && n == 0 ? -1 : sh_ctx_wait_next(cx, ids, n, &id, &st);
    if (rc < 0) {
        // bash names each operand that is no running job of this shell.
        for (size_t i = 0; i < n; i++)
            sh_errf(cx, "wait: %ld: no such job", ids[i]);
        st = 127;
    } else if (rc > 0) {
        st = cx->cx_status;
    } else if (wait_set_pvar(cx, pvar, id) != 0) {
        st = 1;
    }
    box_free(ids);
    return st;
}

/* wait [-fn] [-p VAR] [ID...]: the call's own `&` jobs (threads of this
 * worker; -f changes nothing, as there is no job control). */
int
sh_bi_wait(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    const char *pvar = sh_opt(o, 'p') ? o->o_arg['p'] : NULL;
    if (pvar != NULL && !sh_target_valid(pvar))
        return sh_cmd_err(cx, "wait", 1, "`%s': not a valid identifier", pvar);
    int i = o->o_ind < argc ? o->o_ind : argc;
    if (sh_opt(o, 'n'))
        return wait_next(cx, argv + i, argc - i, pvar);
    if (i >= argc) {
        sh_ctx_wait_jobs(cx);
        return 0;
    }
    // As bash: each id in turn; the status is the last one's.
    int st = 0;
    for (; i < argc; i++) {
        long id = wait_operand(cx, argv[i]);
        if (id <= 0) {
            st = id < 0 ? 1 : 127;
            continue;
        }
        if (sh_ctx_wait_job(cx, id, &st) != 0) {
            sh_errf(cx, "wait: pid %ld is not a child of this shell", id);
            st = 127;
            continue;
        }
        if (wait_set_pvar(cx, pvar, id) != 0)
            st = 1;
    }
    return st;
}
