/* SPDX-License-Identifier: Apache-2.0 */
/* `box bench e2e`: shell calls through alias, broker and worker, each
 * figure next to /bin/bash running the same text in the same run. */
#include "box_bench.h"
#include "box_bench_box.h"

#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <time.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_cmd.h"
#include "box_svc.h"

static const char e2e_usage[] =
    "usage: box bench e2e [--runs N] [--warmup N]\n"
    "\n"
    "Times shell calls through a real box (bin/sh, a copy of box-alias,\n"
    "to box-shell's broker, a fresh worker per call, box-pdp) next to\n"
    "/bin/bash running the same text with the real tools, interleaved in\n"
    "one run, on a permit-everything policy in a temporary directory:\n"
    "  sh -c true                       vs  /bin/bash -c true\n"
    "  sh -c 'cat f | grep x | wc -l'   vs  /bin/bash -c 'cat f | ...'\n"
    "  sh -c 'sort | uniq -c' < words   vs  /bin/bash -c 'sort | uniq -c'\n"
    "    (stdin streamed to the box's shell: 2,000 lines of 10 words)\n"
    "A call is posix_spawn, its output drained from a pipe, waitpid;\n"
    "each starts 25 ms after the last one ended, as an agent's calls come\n"
    "apart, so what one leaves running is not timed in the next.\n"
    "\n"
    "  --runs N     measured calls per figure (default 200)\n"
    "  --warmup N   calls per figure before measuring (default 20)\n";

#define E2E_RUNS_DEFAULT 200
#define E2E_WARMUP_DEFAULT 20
#define E2E_RUNS_MAX 100000
#define E2E_FILE_LINES 1000
#define E2E_FILE_EVERY 5 // every fifth line of f holds an x
#define E2E_PIPELINE "cat f | grep x | wc -l"
#define E2E_STDIN_TEXT "sort | uniq -c"
#define E2E_WORDS_LINES 2000
#define E2E_BASH "/bin/bash"
// The rest before each call: what a call leaves to do after it answered
// (bash's exit, the box's next waiting worker, the decision log) is done
// before the next is timed, for box and bash alike.
#define E2E_PAUSE_MS 25

/* ORDER E2E_CASE: the figures, in the order they print. */
enum e2e_case {
    E2E_BOX_TRUE,
    E2E_BASH_TRUE,
    E2E_BOX_PIPE,
    E2E_BASH_PIPE,
    E2E_BOX_STDIN,
    E2E_BASH_STDIN,
    E2E_NCASES
};

static const struct {
    const char *ek_label;
    bool ek_box;
    const char *ek_text;
    bool ek_stdin; // reads the words file on its stdin
} e2e_cases[E2E_NCASES] = {
    [E2E_BOX_TRUE] = {"box   sh -c true", true, "true", false},
    [E2E_BASH_TRUE] = {"bash  /bin/bash -c true", false, "true", false},
    [E2E_BOX_PIPE] = {"box   sh -c '" E2E_PIPELINE "'", true, E2E_PIPELINE,
                      false},
    [E2E_BASH_PIPE] = {"bash  /bin/bash -c '" E2E_PIPELINE "'", false,
                       E2E_PIPELINE, false},
    [E2E_BOX_STDIN] = {"box   sh -c '" E2E_STDIN_TEXT "' < words", true,
                       E2E_STDIN_TEXT, true},
    [E2E_BASH_STDIN] = {"bash  /bin/bash -c '" E2E_STDIN_TEXT "' < words",
                        false, E2E_STDIN_TEXT, true},
};

typedef struct e2e_stats {
    double es_med, es_p90, es_mean; // ms per call
} e2e_stats;

/* The workspace file f: E2E_FILE_LINES lines, every E2E_FILE_EVERY-th
 * holding an x. Returns the number of such lines, or -1. */
static int
e2e_write_input(const bb_box *c)
{
    char path[96];
    size_t cap = E2E_FILE_LINES * 48, n = 0;
    char *text = box_alloc(cap);
    int xs = 0;
    if (text == NULL) {
        bb_fail("out of memory");
        return -1;
    }
    for (int i = 1; i <= E2E_FILE_LINES; i++) {
        bool x = i % E2E_FILE_EVERY == 0;
        n +=
            (size_t)snprintf(text + n, cap - n, "line %d of the bench file%s\n",
                             i, x ? " x" : "");
        xs += x;
    }
    snprintf(path, sizeof path, "%s/f", c->bb_ws);
    bool ok = bb_write_file(path, text, n, 0644);
    box_free(text);
    // The words the stdin case sorts: E2E_WORDS_LINES lines of ten words
    // from a vocabulary of 50, so uniq -c has counts to make.
    cap = E2E_WORDS_LINES * 48;
    n = 0;
    if (!ok)
        return -1;
    if ((text = box_alloc(cap)) == NULL) {
        bb_fail("out of memory");
        return -1;
    }
    for (int i = 0; i < E2E_WORDS_LINES; i++)
        for (int w = 0; w < 10; w++)
            n += (size_t)snprintf(text + n, cap - n, "w%02d%c",
                                  (i * 7 + w * 13) % 50, w < 9 ? ' ' : '\n');
    snprintf(path, sizeof path, "%s/words", c->bb_ws);
    ok = bb_write_file(path, text, n, 0644);
    box_free(text);
    return ok ? xs : -1;
}

/* One call of case k: the alias or bash with -c TEXT in the workspace. */
static bool
e2e_call_ok(const bb_box *c, enum e2e_case k, uint64_t *ns, char *out,
            size_t outn)
{
    char *argv[] = {e2e_cases[k].ek_box ? "sh" : "bash", "-c",
                    (char *)e2e_cases[k].ek_text, NULL};
    char words[96];
    snprintf(words, sizeof words, "%s/words", c->bb_ws);
    bb_call_spec cs = {.bc_path = e2e_cases[k].ek_box ? c->bb_sh : E2E_BASH,
                       .bc_argv = argv,
                       .bc_cwd = c->bb_ws,
                       .bc_stdin_path = e2e_cases[k].ek_stdin ? words : NULL};
    struct timespec pause = {.tv_nsec = E2E_PAUSE_MS * 1000000L};
    while (nanosleep(&pause, &pause) != 0 && errno == EINTR)
        ;
    return bb_call_ok(e2e_cases[k].ek_box ? c : NULL, &cs, ns, out, outn);
}

/* One call of case k (a box case), counted in the decision log. */
static bool
e2e_decisions(const bb_box *c, enum e2e_case k, bb_tally *t)
{
    off_t before = 0, after = 0; // set by bb_log_settle when it succeeds
    uint64_t ns;
    return bb_log_settle(c, &before) && e2e_call_ok(c, k, &ns, NULL, 0) &&
           bb_log_settle(c, &after) && bb_log_tally(c, before, after, t);
}

/* ------------------------------------------------------------------ */
/* Figures                                                             */
/* ------------------------------------------------------------------ */

static e2e_stats
e2e_stats_of(uint64_t *s, size_t n)
{
    double sum = 0;
    bb_sort_ns(s, n);
    for (size_t i = 0; i < n; i++)
        sum += (double)s[i];
    return (e2e_stats){.es_med = (double)s[n / 2] / 1e6,
                       .es_p90 = (double)s[(n * 90) / 100] / 1e6,
                       .es_mean = sum / (double)n / 1e6};
}

/* "shell:exec 3, fs:read 1" */
static void
bb_tally_text(const bb_tally *t, char *buf, size_t n)
{
    size_t off = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < t->bt_nact && off < n; i++)
        off +=
            (size_t)snprintf(buf + off, n - off, "%s%s %zu", i > 0 ? ", " : "",
                             t->bt_act[i].ba_name, t->bt_act[i].ba_n);
}

static void
e2e_print_decisions(const char *what, const bb_tally *t)
{
    char acts[256];
    bb_tally_text(t, acts, sizeof acts);
    printf("  %-12s %zu (%s), %zu of them from the permit cache%s\n", what,
           t->bt_total, acts, t->bt_cached,
           t->bt_denied > 0 ? "; SOME WERE DENIED" : "");
}

static void
e2e_print_ratio(const char *what, const e2e_stats *box, const e2e_stats *bash)
{
    double med = box->es_med / bash->es_med;
    printf("%-44s %8.2f× %8.2f× %8.2f×\n", what, med,
           box->es_p90 / bash->es_p90, box->es_mean / bash->es_mean);
    printf("  %.2f times bash at the median: %s\n", med,
           med < 1 ? "faster" : "not faster");
}

static void
e2e_print(const e2e_stats *st, const bb_tally *t_true, const bb_tally *t_pipe,
          const char *count, int runs, int warmup, int xs)
{
    printf("\nbox bench e2e · %d calls per figure after %d warm-up, "
           "interleaved · f: %d lines, %d with x\n\n",
           runs, warmup, E2E_FILE_LINES, xs);
    printf("%-44s %9s %9s %9s\n", "per call, ms", "median", "p90", "mean");
    for (int k = 0; k < E2E_NCASES; k++)
        printf("%-44s %9.3f %9.3f %9.3f\n", e2e_cases[k].ek_label, st[k].es_med,
               st[k].es_p90, st[k].es_mean);
    printf("\n%-44s %9s %9s %9s\n", "box / bash", "median", "p90", "mean");
    e2e_print_ratio("sh -c true", &st[E2E_BOX_TRUE], &st[E2E_BASH_TRUE]);
    e2e_print_ratio("sh -c '" E2E_PIPELINE "'", &st[E2E_BOX_PIPE],
                    &st[E2E_BASH_PIPE]);
    e2e_print_ratio("sh -c '" E2E_STDIN_TEXT "' < words", &st[E2E_BOX_STDIN],
                    &st[E2E_BASH_STDIN]);
    printf("goal: faster than bash · sh -c true %s · pipeline %s · stdin "
           "%s\n",
           st[E2E_BOX_TRUE].es_med < st[E2E_BASH_TRUE].es_med ? "meets"
                                                              : "misses",
           st[E2E_BOX_PIPE].es_med < st[E2E_BASH_PIPE].es_med ? "meets"
                                                              : "misses",
           st[E2E_BOX_STDIN].es_med < st[E2E_BASH_STDIN].es_med ? "meets"
                                                                : "misses");

    printf("\na box call: b/bin/sh (box-alias) → box-shell's broker → a "
           "fresh worker\nprocess per call → box-pdp, on a "
           "permit-everything policy; bash runs the\nreal cat, grep and wc."
           " Decisions per box call (one call each after the\nwarm-up, "
           "counted in the decision log):\n");
    e2e_print_decisions("sh -c true:", t_true);
    e2e_print_decisions("pipeline:", t_pipe);
    if (t_true->bt_cached + t_pipe->bt_cached == 0)
        printf("  none came from a cache: the permit cache does not outlive "
               "a call (each\n  worker has its own PDP client)\n");
    else
        printf("  cached answers in a fresh worker: the permit cache "
               "outlives the call\n  (the box-shell broker keeps it); the "
               "PDP still logs each decision\n");
    printf("output: box and bash both print %s for the pipeline\n", count);
}

/* ------------------------------------------------------------------ */
/* The verb                                                            */
/* ------------------------------------------------------------------ */

static int
e2e_run(int runs, int warmup)
{
    bb_box c = {0};
    char bindir[4096];
    uint64_t *samples[E2E_NCASES] = {0};
    e2e_stats st[E2E_NCASES];
    bb_tally t_true, t_pipe;
    char out_box[BB_OUT_MAX], out_bash[BB_OUT_MAX], count[64];
    uint64_t ns;
    bool ok = false;
    int xs;

    if (box_cmd_self_dir(bindir, sizeof bindir) == NULL) {
        bb_fail("cannot find this program's directory (box-pdp, "
                "box-shell and box-alias live beside it)");
        goto out;
    }
    if (access(E2E_BASH, X_OK) != 0) {
        bb_fail("%s is needed as the peer: %s", E2E_BASH, strerror(errno));
        goto out;
    }
    for (int k = 0; k < E2E_NCASES; k++)
        if ((samples[k] = box_calloc((size_t)runs, sizeof *samples[k])) ==
            NULL) {
            bb_fail("out of memory");
            goto out;
        }
    if (!bb_open(&c, bindir) || (xs = e2e_write_input(&c)) < 0)
        goto out;
    printf("box bench e2e: box %s, workspace %s\n", c.bb_dir, c.bb_ws);
    fflush(stdout);

    // Same answer from both, once, before any figure counts.
    for (int k = E2E_BOX_TRUE; k <= E2E_BOX_STDIN; k += 2) {
        if (!e2e_call_ok(&c, (enum e2e_case)k, &ns, out_box, sizeof out_box) ||
            !e2e_call_ok(&c, (enum e2e_case)(k + 1), &ns, out_bash,
                         sizeof out_bash))
            goto out;
        if (strcmp(out_box, out_bash) != 0) {
            bb_fail("the box and bash differ on '%s': box printed \"%s\", "
                    "bash \"%s\"; no figures for different work",
                    e2e_cases[k].ek_text, out_box, out_bash);
            goto out;
        }
    }
    snprintf(count, sizeof count, "\"%.*s\"", (int)strcspn(out_box, "\n"),
             out_box);

    // Warm-up, then the measured runs, interleaved, starting each run at
    // the next case so no figure always follows the same one.
    for (int i = 0; i < warmup; i++)
        for (int k = 0; k < E2E_NCASES; k++)
            if (!e2e_call_ok(&c, (enum e2e_case)k, &ns, NULL, 0))
                goto out;
    if (!e2e_decisions(&c, E2E_BOX_TRUE, &t_true) ||
        !e2e_decisions(&c, E2E_BOX_PIPE, &t_pipe))
        goto out;
    printf("  warm: %d calls per figure; measuring %d\n", warmup, runs);
    fflush(stdout);
    for (int i = 0; i < runs; i++)
        for (int j = 0; j < E2E_NCASES; j++) {
            int k = (i + j) % E2E_NCASES;
            if (!e2e_call_ok(&c, (enum e2e_case)k, &samples[k][i], NULL, 0))
                goto out;
        }
    for (int k = 0; k < E2E_NCASES; k++)
        st[k] = e2e_stats_of(samples[k], (size_t)runs);
    e2e_print(st, &t_true, &t_pipe, count, runs, warmup, xs);
    ok = true;
out:
    if (!bb_close(&c))
        ok = false;
    for (int k = 0; k < E2E_NCASES; k++)
        box_free(samples[k]);
    return ok ? 0 : 1;
}

int
box_bench_e2e(int argc, char **argv)
{
    bb_opts o = {.bo_runs = E2E_RUNS_DEFAULT, .bo_warmup = E2E_WARMUP_DEFAULT};
    int st = bb_parse_opts(argc, argv, e2e_usage, BB_OPT_WARMUP, E2E_RUNS_MAX,
                           &o);
    return st >= 0 ? st : e2e_run(o.bo_runs, o.bo_warmup);
}
