/* SPDX-License-Identifier: Apache-2.0 */
/* Dynamic variables: $RANDOM, $LINENO, $SECONDS, computed when read. */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "box_svc.h"
#include "sh_array.h"
#include "sh_bistate.h"
#include "sh_internal.h"

/*
 * bash computes these on every read. Here they are read-only views of
 * the call: a value assigned to one is not seen (bash would seed RANDOM
 * or offset SECONDS with it).
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
    if (len == 12 && memcmp(name, "EPOCHSECONDS", 12) == 0) {
        snprintf(tmp, tmplen, "%lld", (long long)time(NULL));
        return tmp;
    }
    if (len == 13 && memcmp(name, "EPOCHREALTIME", 13) == 0) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        snprintf(tmp, tmplen, "%lld.%06ld", (long long)ts.tv_sec,
                 ts.tv_nsec / 1000);
        return tmp;
    }
    if (len == 7 && memcmp(name, "SRANDOM", 7) == 0) {
        // bash: 32 bits from the system's generator, never seeded.
        uint32_t r = 0;
        if (getrandom(&r, sizeof r, 0) != (ssize_t)sizeof r)
            r = (uint32_t)next_random(cx->cx_ss) << 16 | next_random(cx->cx_ss);
        snprintf(tmp, tmplen, "%u", (unsigned)r);
        return tmp;
    }
    if (len == 7 && memcmp(name, "BASHPID", 7) == 0) {
        // A subshell here is a thread of the same process: its $$.
        snprintf(tmp, tmplen, "%ld", cx->cx_ss->ss_pid);
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

/* bash 5.2.15 as Debian 12 builds it: the shell whose behaviour this one
 * is measured against (tests/shell), so a script that checks the version
 * before it uses arrays or ${x@Q} runs here as it runs there. */
#define SH_BASH_VERSINFO_0 "5"
#define SH_BASH_VERSINFO_1 "2"
#define SH_BASH_VERSINFO_2 "15"
#define SH_BASH_VERSINFO_3 "1"
#define SH_BASH_VERSINFO_4 "release"
#define SH_BASH_VERSION "5.2.15(1)-release"

/* name=value, unless the environment gave name one (bash's set_if_not). */
static box_err
set_if_not(sh_state *st, const char *name, const char *value)
{
    if (sh_var_get(st, name) != NULL)
        return BOX_OK;
    return sh_var_set(st, name, value, strlen(value));
}

/* name=value whatever the environment said, with flags added. */
static box_err
set_own(sh_state *st, const char *name, const char *value, unsigned flags)
{
    BOX_TRY(sh_var_set(st, name, value, strlen(value)));
    sh_var *v = sh_var_find(st, name);
    if (v != NULL)
        v->v_flags = (v->v_flags & ~SH_VAR_EXPORT) | flags;
    return BOX_OK;
}

box_err
sh_special_init(sh_state *st)
{
    struct utsname u;
    if (uname(&u) != 0) {
        snprintf(u.machine, sizeof u.machine, "unknown");
        snprintf(u.nodename, sizeof u.nodename, "localhost");
    }
    // bash's MACHTYPE names the vendor "pc" on x86, "unknown" elsewhere.
    bool pc = strcmp(u.machine, "x86_64") == 0 ||
              (u.machine[0] == 'i' && strcmp(u.machine + 2, "86") == 0);
    char machtype[sizeof u.machine + 32];
    snprintf(machtype, sizeof machtype, "%s-%s-linux-gnu", u.machine,
             pc ? "pc" : "unknown");
    char num[24];
    BOX_TRY(set_own(st, "BASH", "/bin/bash", 0));
    BOX_TRY(set_own(st, "BASH_VERSION", SH_BASH_VERSION, 0));
    sh_array *vi = sh_array_new(false);
    const char *parts[] = {SH_BASH_VERSINFO_0, SH_BASH_VERSINFO_1,
                           SH_BASH_VERSINFO_2, SH_BASH_VERSINFO_3,
                           SH_BASH_VERSINFO_4, machtype};
    box_err e = vi != NULL ? BOX_OK : BOX_ENOMEM;
    for (long long i = 0; e == BOX_OK && i < 6; i++)
        e = sh_array_set(vi, i, parts[i], strlen(parts[i]));
    sh_var *vv = e == BOX_OK ? sh_var_add(st, "BASH_VERSINFO") : NULL;
    if (vv == NULL) {
        sh_array_free(vi);
        return e != BOX_OK ? e : BOX_ENOMEM;
    }
    BOX_TRY(sh_var_set_array(st, vv, vi));
    if ((vv = sh_var_find(st, "BASH_VERSINFO")) != NULL)
        vv->v_flags = (vv->v_flags & ~SH_VAR_EXPORT) | SH_VAR_READONLY;
    BOX_TRY(set_if_not(st, "HOSTTYPE", u.machine));
    BOX_TRY(set_if_not(st, "MACHTYPE", machtype));
    BOX_TRY(set_if_not(st, "OSTYPE", "linux-gnu"));
    BOX_TRY(set_if_not(st, "HOSTNAME", u.nodename));
    snprintf(num, sizeof num, "%u", (unsigned)getuid());
    BOX_TRY(set_own(st, "UID", num, SH_VAR_READONLY | SH_VAR_INTEGER));
    snprintf(num, sizeof num, "%u", (unsigned)geteuid());
    BOX_TRY(set_own(st, "EUID", num, SH_VAR_READONLY | SH_VAR_INTEGER));
    // The call is a shell started by the agent's: one level down.
    const char *lvl = sh_var_get(st, "SHLVL");
    char *end = NULL;
    long n = lvl != NULL ? strtol(lvl, &end, 10) : 0;
    snprintf(num, sizeof num, "%ld",
             lvl != NULL && *lvl != '\0' && *end == '\0' && n >= 0 ? n + 1 : 1);
    BOX_TRY(sh_var_set(st, "SHLVL", num, strlen(num)));
    BOX_TRY(sh_var_export(st, "SHLVL"));
    BOX_TRY(set_if_not(st, "OPTIND", "1"));
    BOX_TRY(set_if_not(st, "OPTERR", "1"));
    BOX_TRY(set_if_not(st, "PS2", "> "));
    BOX_TRY(set_if_not(st, "PS4", "+ "));
    return BOX_OK;
}
