/* SPDX-License-Identifier: Apache-2.0 */
/* Dynamic variables: $RANDOM, $LINENO, $SECONDS, computed when read. */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "box_svc.h"
#include "sh_bistate.h"
#include "sh_internal.h"

/*
 * bash computes these on every read. Here they are read-only views of
 * the call: a value assigned to one is not seen (bash would seed RANDOM
 * or offset SECONDS with it). $BASH_VERSION is left unset on purpose:
 * this shell is not bash, and a script that branches on it would take
 * paths written for all of bash.
 */

/* The next $RANDOM, 0..32767: a 32-bit LCG (glibc's constants) per
 * call, shared by the call's threads without a lock. */
static unsigned
next_random(sh_session *ss)
{
    unsigned old = atomic_load(&ss->ss_random), next;
    do
        next = old * 1103515245u + 12345u;
    while (!atomic_compare_exchange_weak(&ss->ss_random, &old, next));
    return (next >> 16) & 0x7fffu;
}

const char *
sh_special_value(sh_ctx *cx, const char *name, size_t len, char *tmp,
                 size_t tmplen)
{
    if (len == 6 && memcmp(name, "RANDOM", 6) == 0) {
        snprintf(tmp, tmplen, "%u", next_random(cx->cx_ss));
        return tmp;
    }
    if (len == 6 && memcmp(name, "LINENO", 6) == 0) {
        const sh_bistate *bs = cx->cx_bi;
        uint32_t line = bs != NULL && bs->bs_running_trap && bs->bs_trap_line
                            ? bs->bs_trap_line
                            : cx->cx_line;
        snprintf(tmp, tmplen, "%u", (unsigned)line);
        return tmp;
    }
    if (len == 7 && memcmp(name, "SECONDS", 7) == 0) {
        uint64_t now = box_svc_clock_ns(CLOCK_MONOTONIC);
        uint64_t start = cx->cx_ss->ss_start_ns;
        snprintf(tmp, tmplen, "%llu",
                 (unsigned long long)((now > start ? now - start : 0) /
                                      1000000000u));
        return tmp;
    }
    return NULL;
}
