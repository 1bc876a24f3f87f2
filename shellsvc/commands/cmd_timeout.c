/* SPDX-License-Identifier: Apache-2.0 */
/* timeout [OPTION] DURATION COMMAND [ARG]...: GNU coreutils 9.1 for a
 * command of this shell, whose deadline is cooperative as the call's own
 * wall clock is. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "box_alloc.h"
#include "box_status.h"
#include "cmd_sys.h"
#include "sh_gopt.h"

enum {
    TO_PRESERVE = SH_GOPT_LONG_ONLY,
    TO_FOREGROUND,
};

static const sh_gopt timeout_opts[] = {
    {TO_PRESERVE, "preserve-status", SH_GARG_NONE},
    {TO_FOREGROUND, "foreground", SH_GARG_NONE},
    {'k', "kill-after", SH_GARG_REQ},
    {'s', "signal", SH_GARG_REQ},
    {'v', "verbose", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec timeout_spec = {
    .gs_cmd = "timeout",
    .gs_opts = timeout_opts,
    .gs_flags = SH_GOPT_F_INORDER,
    .gs_fail = 125,
    .gs_help =
        "Usage: timeout [OPTION] DURATION COMMAND [ARG]...\n"
        "  or:  timeout [OPTION]\n"
        "Start COMMAND, and kill it if still running after DURATION.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short "
        "options too.\n"
        "      --preserve-status\n"
        "                 exit with the same status as COMMAND, even when "
        "the\n"
        "                   command times out\n"
        "      --foreground\n"
        "                 when not running timeout directly from a shell "
        "prompt,\n"
        "                   allow COMMAND to read from the TTY and get TTY "
        "signals;\n"
        "                   in this mode, children of COMMAND will not be "
        "timed out\n"
        "  -k, --kill-after=DURATION\n"
        "                 also send a KILL signal if COMMAND is still "
        "running\n"
        "                   this long after the initial signal was sent\n"
        "  -s, --signal=SIGNAL\n"
        "                 specify the signal to be sent on timeout;\n"
        "                   SIGNAL may be a name like 'HUP' or a number;\n"
        "                   see 'kill -l' for a list of signals\n"
        "  -v, --verbose  diagnose to stderr any signal sent upon timeout\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "DURATION is a floating point number with an optional suffix:\n"
        "'s' for seconds (the default), 'm' for minutes, 'h' for hours or "
        "'d' for days.\n"
        "A duration of 0 disables the associated timeout.\n"
        "\n"
        "Upon timeout, send the TERM signal to COMMAND, if no other SIGNAL "
        "specified.\n"
        "The TERM signal kills any process that does not block or catch "
        "that signal.\n"
        "It may be necessary to use the KILL signal, since this signal "
        "can't be caught.\n"
        "\n"
        "EXIT status:\n"
        "  124  if COMMAND times out, and --preserve-status is not "
        "specified\n"
        "  125  if the timeout command itself fails\n"
        "  126  if COMMAND is found but cannot be invoked\n"
        "  127  if COMMAND cannot be found\n"
        "  137  if COMMAND (or timeout itself) is sent the KILL (9) signal "
        "(128+9)\n"
        "  -    the exit status of COMMAND otherwise\n",
};

#define TO_SLICE_MS 20 // how soon a `kill` of the enclosing job passes on
#define TO_SIGTERM 15

/* GNU's DURATION: a floating point number (strtod's forms: " 1", "1e0",
 * "0x1", "inf") and one optional suffix s m h d. -1 when malformed. */
static double
to_duration(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v >= 0) || isnan(v))
        return -1;
    double mul = 1;
    if (*end != '\0') {
        const char *suf = strchr("smhd", *end);
        if (suf == NULL || end[1] != '\0')
            return -1;
        static const double muls[] = {1, 60, 3600, 86400};
        mul = muls[suf - "smhd"];
    }
    return v * mul;
}

/*
 * The watch over one command: a thread that, at the deadline, sets the
 * signal the command's context stops on (cx_kill, checked at every
 * loop, read and write, as a job's `kill` is); and passes on a signal
 * sent to the enclosing job. The command's own thread runs the command.
 */
typedef struct to_watch {
    pthread_mutex_t tw_lock;
    pthread_cond_t tw_cond;
    bool tw_done;                // the command is over (tw_lock)
    atomic_int tw_signal;        // what the command's context sees
    atomic_bool tw_fired;        // the deadline passed
    const atomic_int *tw_outer;  // the enclosing job's (or NULL)
    struct timespec tw_deadline; // CLOCK_MONOTONIC
    int tw_sig;                  // what the deadline sends
} to_watch;

static bool
ts_before(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec < b->tv_sec ||
           (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

static void
ts_add_ms(struct timespec *t, long ms)
{
    t->tv_sec += ms / 1000;
    t->tv_nsec += (ms % 1000) * 1000000L;
    if (t->tv_nsec >= 1000000000L) {
        t->tv_sec++;
        t->tv_nsec -= 1000000000L;
    }
}

static void *
to_watch_main(void *arg)
{
    to_watch *w = arg;
    pthread_mutex_lock(&w->tw_lock);
    while (!w->tw_done) {
        struct timespec now, until;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (w->tw_outer != NULL && atomic_load(w->tw_outer) != 0)
            atomic_store(&w->tw_signal, atomic_load(w->tw_outer));
        if (!atomic_load(&w->tw_fired) && !ts_before(&now, &w->tw_deadline)) {
            atomic_store(&w->tw_fired, true);
            if (w->tw_sig != 0)
                atomic_store(&w->tw_signal, w->tw_sig);
        }
        until = now;
        ts_add_ms(&until, TO_SLICE_MS);
        if (!atomic_load(&w->tw_fired) && ts_before(&w->tw_deadline, &until))
            until = w->tw_deadline;
        (void)pthread_cond_timedwait(&w->tw_cond, &w->tw_lock, &until);
    }
    pthread_mutex_unlock(&w->tw_lock);
    return NULL;
}

/* Runs argv in a fork of cx under the watch; the command's status, and
 * *fired when the deadline ended it. */
static int
to_run(sh_ctx *cx, double secs, int sig, bool verbose, int argc, char **argv,
       bool *fired)
{
    *fired = false;
    sh_ctx *sub = sh_ctx_fork(cx);
    if (sub == NULL) {
        sh_errf(cx, "timeout: memory exhausted");
        return 125;
    }
    sh_sys_program_state(sub);
    if (secs <= 0) { // 0 disables the deadline
        int st = sh_sys_run(sub, SH_SYS_TIMEOUT, argc, argv);
        sh_ctx_free(sub);
        return st;
    }
    to_watch w = {.tw_outer = cx->cx_kill, .tw_sig = sig};
    atomic_init(&w.tw_signal, 0);
    atomic_init(&w.tw_fired, false);
    pthread_mutex_init(&w.tw_lock, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&w.tw_cond, &ca);
    pthread_condattr_destroy(&ca);
    clock_gettime(CLOCK_MONOTONIC, &w.tw_deadline);
    // Past the call's life (30 s) nothing is left to time out.
    double ms = secs * 1000.0;
    ts_add_ms(&w.tw_deadline, ms > 1e9 ? 1000000000L : (long)ceil(ms));
    sub->cx_kill = &w.tw_signal;
    pthread_t th;
    int st;
    if (pthread_create(&th, NULL, to_watch_main, &w) != 0) {
        sh_errf(cx, "timeout: cannot start the watch: Resource temporarily "
                    "unavailable");
        st = 125;
        goto out;
    }
    st = sh_sys_run(sub, SH_SYS_TIMEOUT, argc, argv);
    pthread_mutex_lock(&w.tw_lock);
    w.tw_done = true;
    pthread_cond_signal(&w.tw_cond);
    pthread_mutex_unlock(&w.tw_lock);
    pthread_join(th, NULL);
    *fired = atomic_load(&w.tw_fired) && w.tw_sig != 0 &&
             atomic_load(&w.tw_signal) == w.tw_sig;
    if (*fired && verbose) { // said once the command is over (one thread)
        char buf[32];
        const char *nm = sh_trap_slot_name(sig, buf, sizeof buf);
        char *q = sh_gquote(argv[0]);
        sh_errf(cx, "timeout: sending signal %s to command %s",
                strncmp(nm, "SIG", 3) == 0 ? nm + 3 : nm, q ? q : argv[0]);
        box_free(q);
    }
out:
    pthread_cond_destroy(&w.tw_cond);
    pthread_mutex_destroy(&w.tw_lock);
    sh_ctx_free(sub);
    return st;
}

int
sh_cmd_timeout(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &timeout_spec, argc, argv);
    const char *arg;
    bool preserve = false, verbose = false;
    int sig = TO_SIGTERM;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case TO_PRESERVE:
            preserve = true;
            break;
        case 'v':
            verbose = true;
            break;
        case 'k':
            // The command stops at its first check after the deadline; a
            // second signal has nothing more to end. Still checked.
            if (to_duration(arg) < 0) {
                char *q = sh_gquote(arg);
                st = sh_gopt_usage_error(&it, "invalid time interval %s",
                                         q ? q : arg);
                box_free(q);
                goto out;
            }
            break;
        case 's':
            sig = sh_trap_slot_of(arg);
            if (sig < 0 || sig >= 65) {
                char *q = sh_gquote(arg);
                st =
                    sh_gopt_usage_error(&it, "%s: invalid signal", q ? q : arg);
                box_free(q);
                goto out;
            }
            break;
        default: // --foreground: there is no terminal to hand over
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops < 2) {
        st = sh_gopt_try(&it);
        goto out;
    }
    double secs = to_duration(it.gi_ops[0]);
    if (secs < 0) {
        char *q = sh_gquote(it.gi_ops[0]);
        st = sh_gopt_usage_error(&it, "invalid time interval %s",
                                 q ? q : it.gi_ops[0]);
        box_free(q);
        goto out;
    }
    bool fired;
    st = to_run(cx, secs, sig, verbose, it.gi_nops - 1, it.gi_ops + 1, &fired);
    if (sh_check_stop(cx)) {
        st = cx->cx_status ? cx->cx_status : st;
        goto out;
    }
    if (fired)
        st = preserve ? 128 + sig : 124;
out:
    sh_gopt_free(&it);
    return st;
}
