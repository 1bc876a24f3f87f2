/* SPDX-License-Identifier: Apache-2.0 */
/* Differential test: every case under tests/shell/cases in bash 5.2 and
 * in the box's shell, compared (issue 19). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bash_case.h"
#include "bash_load.h"
#include "bash_norm.h"
#include "bash_run.h"
#include "box_test_require.h"
#include "sh_test_harness.h"

/*
 * bash is the oracle, run here in the same test run: no expected output
 * is stored. A case agrees when stdout (bytes), status, stderr (with the
 * shells' own prefixes normalized, bash_norm.h) and, for %compare-files,
 * the directory left behind are the same. tests/shell/known-gaps lists
 * the cases that do not agree yet, each with its reason; the test fails
 * when an unlisted case differs and when a listed one agrees (so the
 * list only shrinks and stays true). A `spec §…` gap is a deviation the
 * spec makes on purpose: the case then says what the box must print
 * (%box-stdout, %box-stderr, %box-status), and the box must print that.
 */

#define BD_SLOW_MS 1000

typedef struct outcome {
    box_buf oc_err; // normalized stderr
} outcome;

/* ---- comparing ---- */

static void
show(const char *label, const char *p, size_t n)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    for (size_t i = 0; i < n && i < 4000; i++) {
        unsigned char c = (unsigned char)p[i];
        box_err rv;
        if (c == '\n')
            rv = box_buf_puts(&b, "\\n");
        else if (c == '\\')
            rv = box_buf_puts(&b, "\\\\");
        else if (c < 0x20 || c == 0x7f)
            rv = box_buf_printf(&b, "\\x%02x", c);
        else
            rv = box_buf_putc(&b, (char)c);
        assert_int_equal(rv, BOX_OK);
    }
    print_error("    %-11s [%s]%s\n", label, th_s(&b), n > 4000 ? "…" : "");
    box_buf_reset(&b);
}

static bool
same(const box_buf *a, const char *p, size_t n)
{
    return a->b_len == n && (n == 0 || memcmp(a->b_data, p, n) == 0);
}

/* What one side did, normalized for comparing. */
typedef struct side {
    const char *sd_out;
    size_t sd_out_len;
    box_buf sd_err;
    int sd_status;
    const box_buf *sd_tree;
} side;

static bool
sides_agree(const side *a, const side *b, bool tree)
{
    return a->sd_status == b->sd_status && a->sd_out_len == b->sd_out_len &&
           memcmp(a->sd_out, b->sd_out, a->sd_out_len) == 0 &&
           same(&a->sd_err, th_s(&b->sd_err), b->sd_err.b_len) &&
           (!tree || same(a->sd_tree, th_s(b->sd_tree), b->sd_tree->b_len));
}

static void
show_diff(const bd_case *c, const char *want_label, const side *w,
          const side *got, bool tree)
{
    print_error("  script: %s\n", c->bc_script.t_data);
    if (w->sd_out_len != got->sd_out_len ||
        memcmp(w->sd_out, got->sd_out, w->sd_out_len) != 0) {
        char l[32];
        snprintf(l, sizeof l, "%s stdout", want_label);
        show(l, w->sd_out, w->sd_out_len);
        show("box stdout", got->sd_out, got->sd_out_len);
    }
    if (!same(&w->sd_err, th_s(&got->sd_err), got->sd_err.b_len)) {
        char l[32];
        snprintf(l, sizeof l, "%s stderr", want_label);
        show(l, th_s(&w->sd_err), w->sd_err.b_len);
        show("box stderr", th_s(&got->sd_err), got->sd_err.b_len);
    }
    if (w->sd_status != got->sd_status)
        print_error("    status      %s %d, box %d\n", want_label, w->sd_status,
                    got->sd_status);
    if (tree && !same(w->sd_tree, th_s(got->sd_tree), got->sd_tree->b_len)) {
        char l[32];
        snprintf(l, sizeof l, "%s files", want_label);
        show(l, th_s(w->sd_tree), w->sd_tree->b_len);
        show("box files", th_s(got->sd_tree), got->sd_tree->b_len);
    }
}

typedef struct tally {
    size_t t_agree, t_gaps, t_bad;
    // per category of known gap: name and count
    const char *t_cat[64];
    size_t t_ncat[64];
    size_t t_ncats;
} tally;

static void
count_category(tally *t, const char *cat)
{
    for (size_t i = 0; i < t->t_ncats; i++)
        if (strcmp(t->t_cat[i], cat) == 0) {
            t->t_ncat[i]++;
            return;
        }
    if (t->t_ncats < NELEM(t->t_cat)) {
        t->t_cat[t->t_ncats] = cat;
        t->t_ncat[t->t_ncats++] = 1;
    }
}

/* Runs one case in both shells in the fresh directory dir; judges it. */
static void
run_case(const bd_case *c, const bd_gap *g, const char *dir,
         const char *scratch, tally *t)
{
    bd_result bash, box;
    bd_result_init(&bash);
    bd_result_init(&box);
    char *err = NULL;
    bd_dir_remove(dir);
    if (bd_dir_make(dir, c, &err) != BOX_OK)
        fail_msg("%s: %s", c->bc_origin, err);
    box_err rv = bd_run_bash(dir, scratch, c, &bash, &err);
    if (rv == BOX_ETIMEDOUT)
        fail_msg("%s: case '%s': bash ran past %u ms", c->bc_origin, c->bc_name,
                 BD_CASE_TIMEOUT_MS);
    if (rv != BOX_OK)
        fail_msg("%s: case '%s': %s", c->bc_origin, c->bc_name, err);
    bd_dir_remove(dir);
    if (bd_dir_make(dir, c, &err) != BOX_OK)
        fail_msg("%s: %s", c->bc_origin, err);
    if (bd_run_box(dir, c, &box, &err) != BOX_OK)
        fail_msg("%s: case '%s': %s", c->bc_origin, c->bc_name, err);
    bd_dir_remove(dir);

    side b = {.sd_out = th_s(&bash.br_out),
              .sd_out_len = bash.br_out.b_len,
              .sd_status = bash.br_status,
              .sd_tree = &bash.br_tree};
    side x = {.sd_out = th_s(&box.br_out),
              .sd_out_len = box.br_out.b_len,
              .sd_status = box.br_status,
              .sd_tree = &box.br_tree};
    box_buf_init(&b.sd_err, 1u << 22);
    box_buf_init(&x.sd_err, 1u << 22);
    assert_int_equal(
        bd_norm_bash_err(th_s(&bash.br_err), bash.br_err.b_len, &b.sd_err),
        BOX_OK);
    assert_int_equal(
        bd_norm_box_err(th_s(&box.br_err), box.br_err.b_len, &x.sd_err),
        BOX_OK);
    bool tree = c->bc_compare_files;
    bool agree = sides_agree(&b, &x, tree);
    if (agree)
        t->t_agree++;
    if (g == NULL && !agree) {
        print_error("DIFFERS %s: case '%s' (not in tests/shell/known-gaps)\n",
                    c->bc_origin, c->bc_name);
        show_diff(c, "bash", &b, &x, tree);
        t->t_bad++;
    } else if (g != NULL && agree) {
        print_error("AGREES %s: case '%s' now agrees with bash: remove it "
                    "from tests/shell/known-gaps (line %u)\n",
                    c->bc_origin, c->bc_name, g->bg_line);
        t->t_bad++;
    } else if (g != NULL && g->bg_spec) {
        // The spec's deviation: the box must print what the case says.
        side s = b;
        box_buf_init(&s.sd_err, 1u << 22);
        if (c->bc_has_box_out) {
            s.sd_out = c->bc_box_out.t_data;
            s.sd_out_len = c->bc_box_out.t_len;
        }
        if (c->bc_has_box_status)
            s.sd_status = c->bc_box_status;
        assert_int_equal(box_buf_append(&s.sd_err,
                                        c->bc_has_box_err ? c->bc_box_err.t_data
                                                          : th_s(&b.sd_err),
                                        c->bc_has_box_err ? c->bc_box_err.t_len
                                                          : b.sd_err.b_len),
                         BOX_OK);
        if (!sides_agree(&s, &x, tree)) {
            print_error("SPEC %s: case '%s' (%s): the box does not print "
                        "what the spec says\n",
                        c->bc_origin, c->bc_name, g->bg_reason);
            show_diff(c, "spec", &s, &x, tree);
            t->t_bad++;
        }
        box_buf_reset(&s.sd_err);
    }
    if (g != NULL) {
        t->t_gaps++;
        count_category(t, g->bg_category);
    }
    box_buf_reset(&b.sd_err);
    box_buf_reset(&x.sd_err);
    bd_result_reset(&bash);
    bd_result_reset(&box);
}

static void
test_against_bash(void **state)
{
    (void)state;
    if (access(BD_BASH, X_OK) != 0)
        fail_msg("missing: %s, the reference this test compares the box's "
                 "shell with (Debian: apt-get install bash)",
                 BD_BASH);
    bd_cases cs = {0};
    bd_gaps gs = {0};
    bd_load_cases(&cs);
    bd_load_gaps(&gs, &cs);

    char tmpl[] = "/tmp/box-bashdiff-XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    char scratch[PATH_MAX];
    assert_non_null(realpath(tmpl, scratch)); // the kernel binds canonically
    char *err = NULL;
    char *ver = bd_bash_version(scratch, &err);
    if (ver == NULL)
        fail_msg("cannot ask %s its version: %s", BD_BASH, err);
    if (strncmp(ver, "5.2.", 4) != 0)
        fail_msg("%s is bash %s; this test's reference is bash 5.2", BD_BASH,
                 ver);
    char *dir = box_asprintf("%s/w", scratch);
    assert_non_null(dir);

    // BOX_TEST_SHARD=K/N: this run's share, every N-th case from the K-th
    // (ctest runs the shares side by side; one share alone is the whole).
    unsigned shard = 0, shards = 1;
    const char *sh = getenv("BOX_TEST_SHARD");
    if (sh != NULL && (sscanf(sh, "%u/%u", &shard, &shards) != 2 ||
                       shards == 0 || shard >= shards))
        fail_msg("BOX_TEST_SHARD=%s: want K/N with K < N", sh);
    tally t = {0};
    size_t ran = 0;
    for (size_t i = 0; i < cs.cs_n; i++) {
        if (i % shards != shard)
            continue;
        ran++;
        const bd_case *c = &cs.cs_v[i];
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        run_case(c, bd_gaps_find(&gs, c->bc_name), dir, scratch, &t);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        long ms = (t1.tv_sec - t0.tv_sec) * 1000 +
                  (t1.tv_nsec - t0.tv_nsec) / 1000000;
        if (ms >= BD_SLOW_MS) // the whole run must stay well under a minute
            print_message("slow: %s: case '%s' took %ld ms\n", c->bc_origin,
                          c->bc_name, ms);
    }
    if (shards > 1)
        print_message("share %u of %u: ", shard + 1, shards);
    print_message("bash differential: %zu of %zu cases agree with bash 5.2 "
                  "(%zu known gaps)\n",
                  t.t_agree, ran, t.t_gaps);
    for (size_t i = 0; i < t.t_ncats; i++)
        print_message("  %-40s %zu\n", t.t_cat[i], t.t_ncat[i]);
    if (t.t_bad > 0)
        print_error("%zu case(s) above disagree with tests/shell/known-gaps "
                    "(bash %s)\n",
                    t.t_bad, ver);
    bd_dir_remove(scratch);
    box_free(dir);
    box_free(ver);
    size_t bad = t.t_bad;
    bd_gaps_free(&gs);
    bd_cases_free(&cs);
    assert_int_equal(bad, 0);
}

/* ---- the case format's own errors ---- */

static void
expect_case_error(const char *text, const char *want)
{
    bd_cases cs = {0};
    char *err = NULL;
    assert_int_equal(bd_cases_parse(&cs, "t.cases", text, strlen(text), &err),
                     BOX_EPARSE);
    assert_non_null(err);
    if (strstr(err, want) == NULL)
        fail_msg("error [%s] does not say [%s]", err, want);
    box_free(err);
    bd_cases_free(&cs);
}

static void
test_case_format(void **state)
{
    (void)state;
    const char *good = "%# a comment\n"
                       "%case one\n"
                       "%file -n d/a.txt\n"
                       "x\n"
                       "\n"
                       "%file e\n"
                       "%stdin\n"
                       "in\n"
                       "%script\n"
                       "echo a\n"
                       "%%x\n"
                       "%# ignored\n"
                       "\n\n"
                       "%case two\n"
                       "%script echo two\n"
                       "%compare-files\n";
    bd_cases cs = {0};
    char *err = NULL;
    assert_int_equal(bd_cases_parse(&cs, "t", good, strlen(good), &err),
                     BOX_OK);
    assert_int_equal(cs.cs_n, 2);
    const bd_case *c = &cs.cs_v[0];
    assert_string_equal(c->bc_name, "one");
    assert_string_equal(c->bc_origin, "t:2");
    assert_int_equal(c->bc_nfiles, 2);
    assert_string_equal(c->bc_files[0].bf_path, "d/a.txt");
    assert_string_equal(c->bc_files[0].bf_body.t_data, "x");
    assert_int_equal(c->bc_files[1].bf_body.t_len, 0);
    assert_true(c->bc_has_stdin);
    assert_string_equal(c->bc_stdin.t_data, "in\n");
    assert_string_equal(c->bc_script.t_data, "echo a\n%x");
    assert_false(c->bc_compare_files);
    assert_string_equal(cs.cs_v[1].bc_script.t_data, "echo two");
    assert_true(cs.cs_v[1].bc_compare_files);
    bd_cases_free(&cs);

    expect_case_error("%script x\n", "t.cases:1: %script before the first "
                                     "%case");
    expect_case_error("echo\n", "t.cases:1: text before the first %case");
    expect_case_error("%case a b\n", "t.cases:1: %case needs a name");
    expect_case_error("%case a\n%script x\n%case a\n%script y\n",
                      "t.cases:3: case 'a' is already defined at t.cases:1");
    expect_case_error("%case a\n%file x\n", "case 'a' (t.cases:1) has no "
                                            "%script");
    expect_case_error("%case a\n%script x\n%case b\n",
                      "case 'b' (t.cases:3) has no %script");
    expect_case_error("%case a\n%script x\n%script y\n",
                      "t.cases:3: case 'a' has a second %script");
    expect_case_error("%case a\n%file ../x\n", "t.cases:2: %file needs a "
                                               "relative path");
    expect_case_error("%case a\n%file /etc/x\n", "%file needs a relative");
    expect_case_error("%case a\n%file a//b\n", "%file needs a relative");
    expect_case_error("%case a\n%file x\n%file x\n", "has %file x twice");
    expect_case_error("%case a\n%stdin junk\n", "%stdin takes only -n");
    expect_case_error("%case a\n%box-status 256\n", "status 0..255");
    expect_case_error("%case a\n%box-status x\n", "status 0..255");
    expect_case_error("%case a\n%compare-files x\n", "takes no argument");
    expect_case_error("%case a\n%scrip\n", "t.cases:2: unknown directive "
                                           "'%scrip'");
    expect_case_error("%case a\n%script x\ny\n",
                      "t.cases:3: a one-line %script takes no lines");
    expect_case_error("%case a\n%compare-files\ny\n", "text outside a body");
}

static void
expect_gap_error(const char *text, const char *want)
{
    bd_gaps gs = {0};
    char *err = NULL;
    assert_int_equal(bd_gaps_parse(&gs, "g", text, strlen(text), &err),
                     BOX_EPARSE);
    if (strstr(err, want) == NULL)
        fail_msg("error [%s] does not say [%s]", err, want);
    box_free(err);
    bd_gaps_free(&gs);
}

static void
test_gaps_format(void **state)
{
    (void)state;
    const char *good = "# comment\n\n"
                       "a issue-19 arrays: refused\n"
                       "b  spec \xc2\xa7"
                       "2: stdin is not forwarded\n";
    bd_gaps gs = {0};
    char *err = NULL;
    assert_int_equal(bd_gaps_parse(&gs, "g", good, strlen(good), &err), BOX_OK);
    assert_int_equal(gs.gs_n, 2);
    assert_string_equal(gs.gs_v[0].bg_category, "issue-19 arrays");
    assert_false(gs.gs_v[0].bg_spec);
    assert_string_equal(gs.gs_v[1].bg_reason, "spec \xc2\xa7"
                                              "2: stdin is not forwarded");
    assert_true(gs.gs_v[1].bg_spec);
    bd_gaps_free(&gs);
    expect_gap_error("a\n", "g:1: expected 'NAME issue-N ITEM: why'");
    expect_gap_error("a issue- x: y\n", "g:1: expected");
    expect_gap_error("a issue-2x x: y\n", "g:1: expected");
    expect_gap_error("a arrays: x\n", "g:1: expected");
    expect_gap_error("a issue-19 arrays\n", "g:1: expected");
    expect_gap_error("a issue-19 arrays:\n", "g:1: expected");
    expect_gap_error("a issue-19 x: y\na issue-19 x: y\n",
                     "g:2: 'a' is already listed at line 1");
}

static void
test_norm(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 4096);
    const char *e = "bash: line 1: x: command not found\n"
                    "bash: -c: line 2: syntax error\n"
                    "environment: line 1: f: x\n"
                    "cat: y: No such file or directory\n";
    assert_int_equal(bd_norm_bash_err(e, strlen(e), &b), BOX_OK);
    assert_string_equal(th_s(&b), "x: command not found\nsyntax error\n"
                                  "f: x\ncat: y: No such file or directory\n");
    box_buf_reset(&b);
    const char *x = "strands-shell: line 3: x: command not found\n"
                    "strands-shell: cat: y: No such file or directory";
    assert_int_equal(bd_norm_box_err(x, strlen(x), &b), BOX_OK);
    assert_string_equal(th_s(&b), "x: command not found\n"
                                  "cat: y: No such file or directory");
    box_buf_reset(&b);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_case_format),
        cmocka_unit_test(test_gaps_format),
        cmocka_unit_test(test_norm),
        cmocka_unit_test(test_against_bash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
