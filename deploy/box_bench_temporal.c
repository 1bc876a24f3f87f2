/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `box bench temporal`: what temporal rules cost (issue 21's benchmark).
 * 1. One decision under five temporal rules with 1k, 100k and 1M events
 *    of history behind it (all inside the rules' 24 h reach), in process,
 *    the figures side by side with their ratio to the 1k one.
 * 2. Durable decisions: 8 threads deciding a temporal action, each verdict
 *    waiting for its event's fdatasync (shared), events per second next to
 *    the disk's own rate of write + fdatasync of one record at a time.
 * A benchmark prints figures and ratios; it asserts nothing.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_bench.h"
#include "box_cmd.h"
#include "box_svc.h"
#include "pdp_decide.h"
#include "pdp_live.h"
#include "pdp_policy.h"

static const char bt_usage[] =
    "usage: box bench temporal [--max-events N] [--dir DIR]\n"
    "\n"
    "Times decisions under five temporal rules with 1,000, 100,000 and\n"
    "N (default 1,000,000) events of history, and durable decisions (8\n"
    "threads, each verdict after its event's fdatasync) next to the disk's\n"
    "write+fdatasync rate in DIR (default: the current directory).\n";

/* Five rules of the kinds users write: a cap, a read-before-write, a
 * since, a correlation and a previous. */
static const char bt_policy[] =
    "permit (principal, action, resource);\n"
    "@id(\"rm-cap\") forbid (principal, action == "
    "Box::Action::\"shell:exec\", resource)\n"
    "when { context.input.program == \"rm\" }\n"
    "when temporal { (count for (t: Timepoint). where formerly within 1m "
    "(Box::Action::\"shell:exec\"::request{ input.program: \"rm\" } && "
    "tp(t))) > 20 };\n"
    "@id(\"write-needs-read\") forbid (principal, action == "
    "Box::Action::\"fs:write\", resource)\n"
    "unless temporal { formerly within 10m Box::Action::\"fs:read\"::"
    "request{ input.path: context.input.path } };\n"
    "@id(\"no-delete-since-secret\") forbid (principal, action == "
    "Box::Action::\"fs:delete\", resource)\n"
    "when temporal { !Box::Action::\"fs:write\"::request{ input.path: "
    "\"~/.ssh/config\" } since within 24h Box::Action::\"fs:read\"::"
    "request{ input.path: \"~/.ssh/id_rsa\" } };\n"
    "@id(\"exec-after-fetch\") forbid (principal, action == "
    "Box::Action::\"shell:exec\", resource)\n"
    "when temporal { exists (p: String). (formerly within 1h "
    "Box::Action::\"fs:write\"::request{ input.path: p } && formerly within "
    "1h Box::Action::\"fs:read\"::request{ input.path: p }) && "
    "context.input.program == \"sh\" };\n"
    "@id(\"twice\") forbid (principal, action == Box::Action::\"fs:move\", "
    "resource)\n"
    "when temporal { previous within 1s Box::Action::\"fs:move\"::"
    "request{} };\n";

typedef struct bt_clock {
    int64_t now;
} bt_clock;

static int64_t
bt_read_clock(void *arg)
{
    return ((bt_clock *)arg)->now;
}

static uint64_t
bt_ns(void)
{
    return box_svc_clock_ns(CLOCK_MONOTONIC);
}

/* One request of action id with input {path or program}: values in a. */
static bool
bt_request(box_arena *a, const char *id, const char *key, const char *val,
           pdp_request *rq)
{
    pdp_value *p = NULL, *act = NULL, *res = NULL, *s = NULL;
    pdp_value *in = pdp_value_record_new(a), *ctx = pdp_value_record_new(a);
    if (in == NULL || ctx == NULL ||
        pdp_value_entity(a, "Box::Agent", 10, "self", 4, &p) != BOX_OK ||
        pdp_value_entity(a, "Box::Action", 11, id, strlen(id), &act) !=
            BOX_OK ||
        pdp_value_entity(a, "Box::Resource", 13, "unused", 6, &res) !=
            BOX_OK ||
        pdp_value_string(a, val, strlen(val), &s) != BOX_OK ||
        pdp_value_record_put(a, in, key, strlen(key), s) != BOX_OK ||
        pdp_value_record_put(a, ctx, "input", 5, in) != BOX_OK)
        return false;
    *rq = (pdp_request){.rq_principal = p,
                        .rq_action = act,
                        .rq_resource = res,
                        .rq_context = ctx,
                        .rq_resource_text = val,
                        .rq_resource_len = strlen(val)};
    return true;
}

/* The i-th request of the mix: reads, writes, commands, deletes, moves. */
static bool
bt_mix(box_arena *a, uint64_t i, pdp_request *rq)
{
    char v[64];
    snprintf(v, sizeof v, "~/src/f%llu", (unsigned long long)(i % 5000));
    switch (i % 5) {
    case 0:
        return bt_request(a, "fs:read", "path", v, rq);
    case 1:
        return bt_request(a, "fs:write", "path", v, rq);
    case 2:
        return bt_request(a, "shell:exec", "program",
                          i % 10 == 2 ? "rm" : "grep", rq);
    case 3:
        return bt_request(a, "fs:delete", "path", v, rq);
    default:
        return bt_request(a, "fs:move", "path", v, rq);
    }
}

/* Mean microseconds per decision with n events behind, spread evenly over
 * the last 23 hours (and the measured decisions at the same density): of
 * the mix, and (*sh_us) of `sh` commands, for which the correlation rule
 * applies (its window holds thousands of writes at 1M). */
static double
bt_decide_with(const pdp_policy_set *set, uint64_t n, double *sh_us)
{
    bt_clock clk = {.now = 1700000000};
    pdp_live *l = pdp_live_new(bt_read_clock, &clk);
    pdp_answer *ans = pdp_answer_new();
    box_arena *a = box_arena_new((size_t)1 << 24);
    double us = -1;
    if (l == NULL || ans == NULL || a == NULL)
        goto out;
    int64_t span = 23 * 3600;
    for (uint64_t i = 0; i < n; i++) {
        clk.now = 1700000000 + (int64_t)(i * (uint64_t)span / n);
        box_arena_reset(a);
        pdp_request rq;
        if (!bt_mix(a, i, &rq) || pdp_live_decide(l, set, 1, &rq, i, ans) !=
                                      BOX_OK)
            goto out;
    }
    // The probes go on at the same density, so the history the rules see
    // stays what the size says.
    const uint64_t probes = 2000;
    uint64_t t0 = bt_ns();
    for (uint64_t i = 0; i < probes; i++) {
        clk.now = 1700000000 + (int64_t)((n + i) * (uint64_t)span / n);
        box_arena_reset(a);
        pdp_request rq;
        if (!bt_mix(a, n + i, &rq) ||
            pdp_live_decide(l, set, 1, &rq, n + i, ans) != BOX_OK)
            goto out;
    }
    us = (double)(bt_ns() - t0) / 1e3 / (double)probes;
    const uint64_t shells = 50;
    t0 = bt_ns();
    for (uint64_t i = 0; i < shells; i++) {
        clk.now = 1700000000 +
                  (int64_t)((n + probes + i) * (uint64_t)span / n);
        box_arena_reset(a);
        pdp_request rq;
        if (!bt_request(a, "shell:exec", "program", "sh", &rq) ||
            pdp_live_decide(l, set, 1, &rq, n + probes + i, ans) != BOX_OK) {
            us = -1;
            goto out;
        }
    }
    *sh_us = (double)(bt_ns() - t0) / 1e3 / (double)shells;
out:
    box_arena_free(a);
    pdp_answer_free(ans);
    pdp_live_free(l);
    return us;
}

typedef struct bt_racer {
    pdp_live *br_live;
    const pdp_policy_set *br_set;
    unsigned br_n;
    bool br_ok;
} bt_racer;

static void *
bt_race(void *arg)
{
    bt_racer *r = arg;
    box_arena *a = box_arena_new((size_t)1 << 20);
    pdp_answer *ans = pdp_answer_new();
    r->br_ok = a != NULL && ans != NULL;
    for (unsigned i = 0; i < r->br_n && r->br_ok; i++) {
        box_arena_reset(a);
        pdp_request rq;
        r->br_ok = bt_request(a, "fs:read", "path", "~/src/x", &rq) &&
                   pdp_live_decide(r->br_live, r->br_set, 1, &rq, i, ans) ==
                       BOX_OK;
    }
    pdp_answer_free(ans);
    box_arena_free(a);
    return NULL;
}

/* Durable decisions per second with 8 threads. */
static double
bt_durable(const pdp_policy_set *set, const char *path)
{
    pdp_live *l = pdp_live_new(NULL, NULL);
    char *warn = NULL, *err = NULL;
    double rate = -1;
    if (l == NULL || pdp_live_open(l, path, &warn, &err) != BOX_OK) {
        box_cmd_error("history %s: %s", path, err ? err : "out of memory");
        goto out;
    }
    enum { THREADS = 8, EACH = 250 };
    bt_racer rs[THREADS];
    pthread_t th[THREADS];
    uint64_t t0 = bt_ns();
    int started = 0;
    for (int i = 0; i < THREADS; i++) {
        rs[i] = (bt_racer){l, set, EACH, false};
        if (pthread_create(&th[i], NULL, bt_race, &rs[i]) != 0)
            break;
        started++;
    }
    bool ok = started == THREADS;
    for (int i = 0; i < started; i++) {
        pthread_join(th[i], NULL);
        ok &= rs[i].br_ok;
    }
    if (ok)
        rate = THREADS * EACH / ((double)(bt_ns() - t0) / 1e9);
out:
    box_free(warn);
    box_free(err);
    pdp_live_free(l);
    unlink(path);
    return rate;
}

/* The disk's own rate: 100-byte records, write + fdatasync each. */
static double
bt_fsync_rate(const char *path)
{
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    char rec[100] = {0};
    const int n = 500;
    uint64_t t0 = bt_ns();
    for (int i = 0; i < n; i++)
        if (pwrite(fd, rec, sizeof rec, (off_t)i * 100) != sizeof rec ||
            fdatasync(fd) != 0) {
            close(fd);
            unlink(path);
            return -1;
        }
    double rate = n / ((double)(bt_ns() - t0) / 1e9);
    close(fd);
    unlink(path);
    return rate;
}

int
box_bench_temporal(int argc, char **argv)
{
    uint64_t max = 1000000;
    const char *dir = ".";
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--max-events") == 0 && i + 1 < argc) {
            char *end;
            unsigned long long v = strtoull(argv[++i], &end, 10);
            if (*end != '\0' || v < 1000 || v > 100000000)
                return box_cmd_error("--max-events takes 1000 to 100000000");
            max = v;
        } else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--help") == 0) {
            fputs(bt_usage, stdout);
            return 0;
        } else {
            fputs(bt_usage, stderr);
            return 2;
        }
    }
    pdp_policy_set *set = NULL;
    char *err = NULL;
    // Without the action schema: the bench's requests carry only the
    // fields the rules read.
    if (pdp_policy_load(bt_policy, strlen(bt_policy), "bench.dw", &set,
                        &err) != BOX_OK) {
        box_cmd_error("the bench policy does not load: %s", err ? err : "");
        box_free(err);
        return 1;
    }
    printf("box bench temporal · 5 temporal rules · a mix of fs:read, "
           "fs:write, shell:exec, fs:delete, fs:move\n\n");
    printf("%-24s %14s %10s %16s %10s\n", "history behind", "µs / decision",
           "× 1k", "µs / `sh` exec", "× 1k");
    const uint64_t sizes[] = {1000, max < 100000 ? max : 100000, max};
    double base = 0, sh_base = 0;
    for (size_t i = 0; i < 3; i++) {
        if (i > 0 && sizes[i] <= sizes[i - 1])
            continue;
        double sh = 0;
        double us = bt_decide_with(set, sizes[i], &sh);
        if (us < 0) {
            box_cmd_error("the decisions over %llu events failed",
                          (unsigned long long)sizes[i]);
            pdp_policy_free(set);
            return 1;
        }
        if (i == 0) {
            base = us;
            sh_base = sh;
        }
        printf("%-24llu %14.2f %9.2f× %16.2f %9.2f×\n",
               (unsigned long long)sizes[i], us, us / base, sh, sh / sh_base);
        fflush(stdout);
    }
    char hist[4096], raw[4096];
    snprintf(hist, sizeof hist, "%s/box-bench-history.%d", dir, (int)getpid());
    snprintf(raw, sizeof raw, "%s/box-bench-fsync.%d", dir, (int)getpid());
    double durable = bt_durable(set, hist), disk = bt_fsync_rate(raw);
    printf("\n%-40s %12s\n", "durable decisions (8 threads)", "per second");
    printf("%-40s %12.0f\n", "box-pdp history, group commit", durable);
    printf("%-40s %12.0f\n", "disk: write + fdatasync, one at a time", disk);
    if (durable > 0 && disk > 0)
        printf("%-40s %11.2f×\n", "ratio", durable / disk);
    printf("\ngoal: decision time within 2× across history sizes; durable "
           "decisions above the disk's one-at-a-time rate\n"
           "(an `sh` exec is where exec-after-fetch applies: its exists "
           "over the hour's writes and reads is decided by an incremental "
           "monitor)\n");
    pdp_policy_free(set);
    return durable > 0 && disk > 0 ? 0 : 1;
}
