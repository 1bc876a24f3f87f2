/* SPDX-License-Identifier: Apache-2.0 */
/* sleep: waits, in slices, so the call's wall clock can end it. */
#include <math.h>
#include <stdlib.h>
#include <time.h>

#include "sh_internal.h"

#define SLEEP_SLICE_MS 20

/* "1", "0.5", "2m": seconds as a double; -1 when malformed. */
static double
sleep_seconds(const char *s)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || !(v >= 0) || isinf(v))
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

int
sh_cmd_sleep(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    double total = 0;
    if (o->o_ind >= argc)
        return sh_cmd_err(cx, "sleep", 1, "missing operand");
    for (int i = o->o_ind; i < argc; i++) {
        double v = sleep_seconds(argv[i]);
        if (v < 0)
            return sh_cmd_err(cx, "sleep", 1, "invalid time interval '%s'",
                              argv[i]);
        total += v;
    }
    // The session's wall clock (30 s) is checked between slices: a long
    // sleep ends with "execution timeout exceeded" like any other command.
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
