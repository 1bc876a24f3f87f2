/* SPDX-License-Identifier: Apache-2.0 */
/* sleep NUMBER[SUFFIX]...: GNU coreutils 9.1; waits in slices, so the
 * call's wall clock can end it. */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "box_alloc.h"
#include "sh_gopt.h"
#include "sh_internal.h"

static const sh_gopt sleep_opts[] = {{0}};

static const sh_gopt_spec sleep_spec = {
    .gs_cmd = "sleep",
    .gs_opts = sleep_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: sleep NUMBER[SUFFIX]...\n"
        "  or:  sleep OPTION\n"
        "Pause for NUMBER seconds.  SUFFIX may be 's' for seconds (the "
        "default),\n"
        "'m' for minutes, 'h' for hours or 'd' for days.  NUMBER need not be "
        "an\n"
        "integer.  Given two or more arguments, pause for the amount of time\n"
        "specified by the sum of their values.\n"
        "\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

#define SLEEP_SLICE_MS 20
#define SLEEP_FOREVER_S 1e9 // no call lives this long

/* "1", "0.5", "2m": seconds as a double; -1 when malformed. */
static double
sleep_seconds(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v >= 0))
        return -1;
    double mul = 1;
    switch (*end) {
    case '\0':
    case 's':
        break;
    case 'm':
        mul = 60;
        break;
    case 'h':
        mul = 3600;
        break;
    case 'd':
        mul = 86400;
        break;
    default:
        return -1;
    }
    if (*end != '\0' && end[1] != '\0')
        return -1;
    return v * mul;
}

/* Waits total seconds, or until the call ends. */
static int
sleep_wait(sh_ctx *cx, double total)
{
    // The session's wall clock (30 s) is checked between slices: a long
    // sleep ends with "execution timeout exceeded" like any other command.
    // `sleep inf` (and any wait past the call's life) ends with the call.
    if (total > SLEEP_FOREVER_S)
        total = SLEEP_FOREVER_S;
    struct timespec now, end;
    clock_gettime(CLOCK_MONOTONIC, &now);
    double until = (double)now.tv_sec + (double)now.tv_nsec / 1e9 + total;
    end.tv_sec = (time_t)until;
    end.tv_nsec = (long)((until - (double)end.tv_sec) * 1e9);
    for (;;) {
        if (sh_check_stop(cx))
            return cx->cx_status;
        clock_gettime(CLOCK_MONOTONIC, &now);
        if (now.tv_sec > end.tv_sec ||
            (now.tv_sec == end.tv_sec && now.tv_nsec >= end.tv_nsec))
            return 0;
        long left_ms = (long)(end.tv_sec - now.tv_sec) * 1000 +
                       (end.tv_nsec - now.tv_nsec) / 1000000;
        long ms = left_ms < SLEEP_SLICE_MS ? left_ms + 1 : SLEEP_SLICE_MS;
        struct timespec ts = {0, ms * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* Every operand is checked (each bad one named), as GNU does, before
 * any waiting. */
int
sh_cmd_sleep(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &sleep_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0)
        ;
    double total = 0;
    bool bad = false;
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops == 0) {
        st = sh_gopt_usage_error(&it, "missing operand");
        goto out;
    }
    for (int i = 0; i < it.gi_nops; i++) {
        double v = sleep_seconds(it.gi_ops[i]);
        if (v < 0) {
            char *q = sh_gquote(it.gi_ops[i]);
            sh_cmd_err(cx, "sleep", 1, "invalid time interval %s",
                       q != NULL ? q : it.gi_ops[i]);
            box_free(q);
            bad = true;
        }
        total += v;
    }
    if (bad) {
        st = sh_gopt_try(&it);
        goto out;
    }
    st = sleep_wait(cx, total);
out:
    sh_gopt_free(&it);
    return st;
}
