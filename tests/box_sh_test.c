/* SPDX-License-Identifier: Apache-2.0 */
/* `box sh` as a policy author runs it: one call of the box's shell in the
 * foreground, decided by a policy file, confined as a worker is. */
#include <setjmp.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_proc.h"
#include "box_testutil.h"

#define SH_RUN_MS 60000

/* T/policy.dw, T/work (the workspace), T/script.sh. */
typedef struct fx {
    char fx_dir[64];
    char fx_policy[128], fx_work[128], fx_script[128];
} fx;

static const char fx_rules[] =
    "@id(\"all\") permit (principal, action, resource);\n"
    "@id(\"no_rm\") @description(\"The author keeps rm out.\")\n"
    "forbid (principal, action == Box::Action::\"shell:exec\", resource)\n"
    "  when { context.input.program == \"rm\" };\n";

static int
setup(void **state)
{
    fx *f = box_calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->fx_dir, sizeof f->fx_dir, "/tmp/box-sh-XXXXXX");
    assert_non_null(mkdtemp(f->fx_dir));
    snprintf(f->fx_policy, sizeof f->fx_policy, "%s/policy.dw", f->fx_dir);
    snprintf(f->fx_work, sizeof f->fx_work, "%s/work", f->fx_dir);
    snprintf(f->fx_script, sizeof f->fx_script, "%s/script.sh", f->fx_dir);
    assert_int_equal(mkdir(f->fx_work, 0755), 0);
    box_test_put(f->fx_policy, fx_rules);
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    fx *f = *state;
    box_test_rmtree(f->fx_dir);
    box_free(f);
    return 0;
}

/* box sh --policy P --workspace W [extra...] */
static void
run_sh(const fx *f, char *const *extra, box_proc_result *r)
{
    char *args[14] = {"sh", "--policy", (char *)f->fx_policy, "--workspace",
                      (char *)f->fx_work};
    size_t n = 5;
    for (size_t i = 0; extra[i] != NULL && n < 13; i++)
        args[n++] = extra[i];
    args[n] = NULL;
    box_test_cli(args, SH_RUN_MS, r);
}

static void
expect_run(const box_proc_result *r, int status, const char *out)
{
    if (r->pr_status != status || strcmp(r->pr_out, out) != 0)
        box_test_show_result("box sh", r);
    assert_int_equal(r->pr_status, status);
    assert_string_equal(r->pr_out, out);
}

/* Commands and files decided by the policy, with the shell's own
 * messages and statuses; the script's status is box sh's. */
static void
test_runs_under_the_policy(void **state)
{
    fx *f = *state;
    box_proc_result r;
    run_sh(f,
           (char *[]){"-c",
                      "echo hi > f.txt; cat f.txt; rm f.txt; echo \"rm $?\"; "
                      "ls",
                      NULL},
           &r);
    expect_run(&r, 0, "hi\nrm 126\nf.txt\n");
    assert_non_null(strstr(r.pr_err, "strands-shell: effect denied: policy "
                                     "denied this operation on 'rm' [policy: "
                                     "no_rm]: The author keeps rm out.\n"));
    box_proc_result_free(&r);

    run_sh(f, (char *[]){"-c", "exit 7", NULL}, &r);
    expect_run(&r, 7, "");
    box_proc_result_free(&r);
}

/* A script with a NUL byte is refused whole, never run up to the NUL. */
static void
test_script_with_nul_refused(void **state)
{
    fx *f = *state;
    static const char text[] = "echo before\n\0echo after\n";
    box_test_write(f->fx_script, text, sizeof text - 1, 0600);
    box_proc_result r;
    run_sh(f, (char *[]){(char *)f->fx_script, NULL}, &r);
    expect_run(&r, 1, "");
    char want[256];
    snprintf(want, sizeof want,
             "strands-box: error: %s: the script contains a NUL byte\n",
             f->fx_script);
    assert_string_equal(r.pr_err, want);
    box_proc_result_free(&r);
}

/* Outcomes reach the call's own history (dogwood-spec §5.6): a read
 * that failed does not unlock the write of that file, one that happened
 * does; two rm that succeeded use up a cap of two, a failed one does
 * not count. */
static void
test_outcomes_in_history(void **state)
{
    fx *f = *state;
    box_test_put(f->fx_policy,
                 "permit (principal, action, resource);\n"
                 "@id(\"read-first\")\n"
                 "forbid (principal, action == Box::Action::\"fs:write\", "
                 "resource)\n"
                 "unless temporal { formerly within 10m "
                 "Box::Action::\"fs:read\"::response{ input.path: "
                 "context.input.path } };\n"
                 "@id(\"rm-cap\")\n"
                 "forbid (principal, action == Box::Action::\"shell:exec\", "
                 "resource) when { context.input.program == \"rm\" }\n"
                 "when temporal { (count for (t: Timepoint). where formerly "
                 "within 1m (Box::Action::\"shell:exec\"::response{ "
                 "input.program: \"rm\", output.status: 0 } && tp(t))) >= "
                 "2 };\n");
    char path[256];
    snprintf(path, sizeof path, "%s/old.txt", f->fx_work);
    box_test_put(path, "old\n");
    box_proc_result r;
    run_sh(f,
           (char *[]){"-c",
                      "cat new.txt; echo x > new.txt; echo \"new $?\"; "
                      "cat old.txt; echo x >> old.txt; echo \"old $?\"; "
                      "rm nope; rm -f a; rm -f b; rm -f c; echo \"rm $?\"",
                      NULL},
           &r);
    expect_run(&r, 0, "new 1\nold\nold 0\nrm 126\n");
    assert_non_null(strstr(r.pr_err, "[policy: read-first]"));
    assert_non_null(strstr(r.pr_err, "[policy: rm-cap]"));
    assert_null(strstr(r.pr_err, "could not record"));
    box_proc_result_free(&r);
}

/* --explain prints each decision on stderr as it is made. */
static void
test_explain(void **state)
{
    fx *f = *state;
    box_proc_result r;
    run_sh(f, (char *[]){"--explain", "-c", "echo x > e.txt; rm e.txt", NULL},
           &r);
    expect_run(&r, 126, "");
    char want[512];
    snprintf(want, sizeof want,
             "box sh: permit shell:exec echo (permitted, rule all)\n"
             "box sh: permit fs:write %s/e.txt (permitted, rule all)\n"
             "box sh: deny shell:exec rm (forbidden, rule no_rm)\n",
             f->fx_work);
    if (strstr(r.pr_err, want) == NULL)
        box_test_show_result("box sh --explain", &r);
    assert_non_null(strstr(r.pr_err, want));
    box_proc_result_free(&r);
}

/* The policy and box.toml are out of the shell's reach, as in a box,
 * even when they lie inside a bind. */
static void
test_policy_out_of_reach(void **state)
{
    fx *f = *state;
    char inside[160], script[400];
    snprintf(inside, sizeof inside, "%s/inside.dw", f->fx_work);
    box_test_put(inside, fx_rules);
    snprintf(script, sizeof script,
             "cat %s; echo \"cat $?\"; echo x >> %s; echo \"append $?\"",
             inside, inside);
    char *args[] = {"sh",       "--policy", inside, "--workspace",
                    f->fx_work, "-c",       script, NULL};
    box_proc_result r;
    box_test_cli(args, SH_RUN_MS, &r);
    expect_run(&r, 0, "cat 1\nappend 1\n");
    assert_non_null(strstr(r.pr_err, "authority source"));
    box_proc_result_free(&r);
    char *text = box_test_slurp(inside);
    assert_string_equal(text, fx_rules);
    box_free(text);
    assert_int_equal(unlink(inside), 0);
}

/* A script file; one over the shell's input limit, or missing, is refused
 * with a message; so is every usage error. */
static void
test_script_file_and_errors(void **state)
{
    fx *f = *state;
    box_proc_result r;
    box_test_put(f->fx_script, "a=1\nif [ $a = 1 ]; then\n  echo one\nfi\n");
    run_sh(f, (char *[]){f->fx_script, NULL}, &r);
    expect_run(&r, 0, "one\n");
    box_proc_result_free(&r);

    size_t big = 256 * 1024 + 1;
    char *text = box_alloc(big + 1);
    assert_non_null(text);
    memset(text, ':', big);
    text[big] = '\0';
    box_test_put(f->fx_script, text);
    run_sh(f, (char *[]){f->fx_script, NULL}, &r);
    expect_run(&r, 1, "");
    assert_non_null(strstr(r.pr_err, "input too large"));
    box_proc_result_free(&r);
    box_free(text);

    run_sh(f, (char *[]){"/nonexistent/script.sh", NULL}, &r);
    expect_run(&r, 1, "");
    assert_string_equal(r.pr_err, "strands-box: error: /nonexistent/script.sh: "
                                  "No such file or directory\n");
    box_proc_result_free(&r);

    // As bash: -c TEXT NAME ARG... gives $0 and $1...; FILE ARG... runs
    // FILE as a script file, its errors placed "FILE: line N:".
    run_sh(f, (char *[]){"-c", "echo \"$0 $2 $#\"", "name", "a", "b", NULL},
           &r);
    expect_run(&r, 0, "name b 2\n");
    box_proc_result_free(&r);
    box_test_put(f->fx_script, "echo \"$1 $#\"\nreadonly R=1\nR=2\n"
                               "echo goes on $?; echo \"$-\"\n");
    run_sh(f, (char *[]){f->fx_script, "x", "y", NULL}, &r);
    expect_run(&r, 0, "x 2\ngoes on 1\nhB\n");
    char *want = box_asprintf("strands-shell: %s: line 3: R: readonly "
                              "variable\n",
                              f->fx_script);
    assert_non_null(want);
    assert_string_equal(r.pr_err, want);
    box_free(want);
    box_proc_result_free(&r);

    // usage: no text, no --policy
    run_sh(f, (char *[]){NULL}, &r);
    assert_int_equal(r.pr_status, 2);
    assert_non_null(strstr(r.pr_err, "usage: box sh --policy FILE"));
    box_proc_result_free(&r);
    box_test_cli((char *[]){"sh", "-c", "true", NULL}, SH_RUN_MS, &r);
    assert_int_equal(r.pr_status, 2);
    box_proc_result_free(&r);
    box_test_cli((char *[]){"sh", "--help", NULL}, SH_RUN_MS, &r);
    assert_int_equal(r.pr_status, 0);
    assert_non_null(strstr(r.pr_out, "usage: box sh --policy FILE"));
    box_proc_result_free(&r);
}

/* box sh's own stdin is the user's: the call reads none (box-spec §2),
 * and nothing else reads it either (it once took fd 0 for the credential
 * routes a box hands its shell, and refused whatever came). */
static void
test_stdin_left_alone(void **state)
{
    fx *f = *state;
    char bin[PATH_MAX];
    box_proc_bin(bin, sizeof bin, "box");
    char *argv[] = {"/bin/sh",
                    "-c",
                    "printf 'junk\\n' | \"$0\" sh --policy \"$1\" "
                    "--workspace \"$2\" -c 'echo hi; cat; echo \"st $?\"'",
                    bin,
                    (char *)f->fx_policy,
                    (char *)f->fx_work,
                    NULL};
    box_proc_result r;
    box_proc_run(argv, SH_RUN_MS, &r);
    expect_run(&r, 0, "hi\nst 0\n");
    assert_string_equal(r.pr_err, "");
    box_proc_result_free(&r);
}

/* A policy that does not load is refused with the loader's message. */
static void
test_policy_refused(void **state)
{
    fx *f = *state;
    box_test_put(f->fx_policy, "permit (principal, action, resource) when { "
                               "context.input.x = 1 };\n");
    box_proc_result r;
    run_sh(f, (char *[]){"-c", "echo never", NULL}, &r);
    expect_run(&r, 1, "");
    char want[512];
    snprintf(want, sizeof want,
             "strands-box: error: policy file %s will not load: failed to "
             "parse policy source: dogwood parse: %s:1:61: `=` is not a valid "
             "operator in this scope; did you mean `==`?\n",
             f->fx_policy, f->fx_policy);
    assert_string_equal(r.pr_err, want);
    box_proc_result_free(&r);
    box_test_put(f->fx_policy, fx_rules);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_runs_under_the_policy),
        cmocka_unit_test(test_explain),
        cmocka_unit_test(test_outcomes_in_history),
        cmocka_unit_test(test_policy_out_of_reach),
        cmocka_unit_test(test_script_file_and_errors),
        cmocka_unit_test(test_script_with_nul_refused),
        cmocka_unit_test(test_stdin_left_alone),
        cmocka_unit_test(test_policy_refused),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
