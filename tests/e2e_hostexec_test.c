/* SPDX-License-Identifier: Apache-2.0 */
/* The shipped quickstart policy under the real box: the agent cannot plant
 * files a host runs code from later (issue 17 item 10), the quickstart's
 * own agent still works, and `box policy check` warns about permits that
 * would let it. */
#include <setjmp.h>
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
#include "box_testutil.h"
#include "box_world.h"

#define QS_PROJECT "/tmp/box-quickstart/project"

/* The forbid's message after "policy denied this operation on '<path>'". */
static const char qs_forbid[] =
    " [policy: host_exec_files]: Files a host runs code from later (anything "
    "inside .git, shell start-up files, direnv, editor tasks) stay "
    "unwritten; git itself writes .git from its own sandbox.";

/* A file of the source tree, whole; NULL when absent. */
static char *
source_file(const char *rel)
{
    char p[PATH_MAX];
    const char *root = getenv("BOX_SOURCE_DIR");
    snprintf(p, sizeof p, "%s/%s", root ? root : "..", rel);
    return box_test_slurp(p);
}

/* The shipped deploy/quickstart/policy.dw, its project moved to the
 * world's (`~/src/project`), as the world's policy. */
static void
world_quickstart_policy(box_world *w)
{
    char *shipped = source_file("deploy/quickstart/policy.dw");
    assert_non_null(shipped);
    assert_non_null(strstr(shipped, QS_PROJECT));
    char *text = box_test_replace_all(shipped, QS_PROJECT, "~/src/project");
    box_world_policy(w, text);
    box_free(text);
    box_free(shipped);
}

/* who: the path for a redirection, the command's name otherwise. */
static void
expect_refused(const box_proc_result *r, const char *who, const char *rel)
{
    char want[PATH_MAX * 2];
    snprintf(want, sizeof want,
             "strands-shell: %s: policy denied this operation on "
             "'~/src/project/%s'%s\n",
             who, rel, qs_forbid);
    if (strstr(r->pr_err, want) == NULL) {
        fprintf(stderr, "missing:\n%s", want);
        box_test_show_result("planting", r);
    }
    assert_non_null(strstr(r->pr_err, want));
}

static bool
exists(const box_world *w, const char *rel)
{
    char p[PATH_MAX * 2];
    struct stat st;
    snprintf(p, sizeof p, "%s/%s", w->bw_project, rel);
    return lstat(p, &st) == 0;
}

/*
 * The agent tries every way the shell has to plant a host-exec file in
 * the project; each is refused with the policy's own message, the
 * decision log shows the denials, and .git/config is byte for byte what
 * it was.
 */
static void
test_quickstart_refuses_planting(void **state)
{
    box_world *w = *state;
    box_world_config(w, box_world_git_tool);
    world_quickstart_policy(w);
    char cfgp[PATH_MAX * 2];
    snprintf(cfgp, sizeof cfgp, "%s/.git/config", w->bw_project);
    char *before = box_test_slurp(cfgp);
    assert_non_null(before);

    box_proc_result r;
    box_world_run(w,
                  "sh -c 'echo \"[core] fsmonitor = touch /tmp/pwned\" >> "
                  ".git/config'; echo \"config $?\"\n"
                  "sh -c 'echo x > .git/hooks/pre-commit'; echo \"hook $?\"\n"
                  "sh -c 'mkdir -p .git/hooks && echo x > "
                  ".git/hooks/post-checkout'; echo \"mkdir $?\"\n"
                  "sh -c 'echo x >> .bashrc'; echo \"bashrc $?\"\n"
                  "sh -c 'echo x > .envrc'; echo \"envrc $?\"\n"
                  "sh -c 'mkdir .vscode'; echo \"vscode $?\"\n"
                  "sh -c 'touch .gitmodules'; echo \"gitmodules $?\"\n"
                  "sh -c 'rm .git/config'; echo \"rm $?\"\n"
                  "sh -c 'echo ../evil > .git/commondir'; "
                  "echo \"commondir $?\"\n"
                  "sh -c 'echo fine > notes.txt'; echo \"notes $?\"\n",
                  &r);
    static const char want_out[] = "config 1\nhook 1\nmkdir 1\nbashrc 1\n"
                                   "envrc 1\nvscode 1\ngitmodules 1\nrm 1\n"
                                   "commondir 1\nnotes 0\n";
    if (r.pr_status != 0 || strcmp(r.pr_out, want_out) != 0)
        box_test_show_result("planting", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, want_out);
    expect_refused(&r, ".git/config", ".git/config");
    expect_refused(&r, ".git/hooks/pre-commit", ".git/hooks/pre-commit");
    expect_refused(&r, ".git/hooks/post-checkout", ".git/hooks/post-checkout");
    expect_refused(&r, ".bashrc", ".bashrc");
    expect_refused(&r, ".envrc", ".envrc");
    expect_refused(&r, "mkdir", ".vscode");
    expect_refused(&r, "touch", ".gitmodules");
    expect_refused(&r, "rm", ".git/config");
    expect_refused(&r, ".git/commondir", ".git/commondir");
    box_proc_result_free(&r);

    char *after = box_test_slurp(cfgp);
    assert_string_equal(after, before);
    box_free(after);
    box_free(before);
    assert_false(exists(w, ".git/hooks/pre-commit"));
    assert_false(exists(w, ".git/hooks/post-checkout"));
    assert_false(exists(w, ".bashrc"));
    assert_false(exists(w, ".envrc"));
    assert_false(exists(w, ".vscode"));
    assert_false(exists(w, ".gitmodules"));
    assert_false(exists(w, ".git/commondir"));
    assert_true(exists(w, "notes.txt"));

    char *d = box_world_decisions(w);
    assert_non_null(strstr(d, "deny fs:write ~/src/project/.git/config\n"));
    assert_non_null(
        strstr(d, "deny fs:write ~/src/project/.git/hooks/pre-commit\n"));
    assert_non_null(strstr(d, "deny fs:delete ~/src/project/.git/config\n"));
    assert_non_null(strstr(d, "permit fs:write ~/src/project/notes.txt\n"));
    box_free(d);
}

/* The quickstart's own agent script, unchanged, under the shipped policy:
 * it lists, greps the TODOs, stages todo.txt with git and is refused
 * .env. */
static void
test_quickstart_agent_still_works(void **state)
{
    box_world *w = *state;
    box_world_config(w, box_world_git_tool);
    world_quickstart_policy(w);
    char *agent = source_file("deploy/quickstart/agent.sh");
    assert_non_null(agent);
    const char *body = strchr(agent, '\n'); // after its own #! line
    assert_non_null(body);
    box_proc_result r;
    box_world_run(w, body + 1, &r);
    if (r.pr_status != 0 || strstr(r.pr_out, "A  todo.txt\n") == NULL)
        box_test_show_result("quickstart agent", &r);
    assert_int_equal(r.pr_status, 0);
    assert_non_null(strstr(r.pr_out, "A  todo.txt\n"));
    assert_non_null(strstr(r.pr_out, "agent: reading .env was refused "
                                     "(status 1)\n"));
    assert_non_null(strstr(r.pr_err, "[policy: no_env]"));
    box_proc_result_free(&r);
    box_free(agent);
}

/*
 * `box policy check`: the shipped policy and the world's copy (with the
 * config's workspace and homes) draw no warning; a permit with no path
 * literal is judged under the operator home, and with --config under the
 * workspace too; exit status 0 either way.
 */
static void
test_policy_check_warns(void **state)
{
    box_world *w = *state;
    box_world_config(w, box_world_git_tool);
    char shipped[PATH_MAX];
    snprintf(shipped, sizeof shipped, "%s/deploy/quickstart/policy.dw",
             getenv("BOX_SOURCE_DIR") ? getenv("BOX_SOURCE_DIR") : "..");
    box_proc_result r;
    box_test_cli((char *[]){"policy", "check", shipped, NULL}, 30000, &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_err, "");
    box_proc_result_free(&r);

    world_quickstart_policy(w);
    box_test_cli((char *[]){"policy", "check", "--home", w->bw_home, "--config",
                            w->bw_config, NULL},
                 30000, &r);
    if (r.pr_status != 0 || r.pr_err[0] != '\0')
        box_test_show_result("policy check --config", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_err, "");
    box_proc_result_free(&r);

    box_world_policy(w, "@id(\"writes\")\n"
                        "permit (principal, action == "
                        "Box::Action::\"fs:write\", resource)\n"
                        "unless { context.input.path like \"*/.env\" };\n");
    box_test_cli(
        (char *[]){"policy", "check", "--home", w->bw_home, w->bw_policy, NULL},
        30000, &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(
        r.pr_err,
        "strands-box: warning: rule @id(\"writes\") lets the agent write or "
        "rename 34 files a host runs code from later: ~/.git, ~/.git/config, "
        "~/.git/hooks, ~/.git/hooks/pre-commit and 30 more; add a forbid on "
        "fs:write, fs:delete and fs:move for them (see README, \"Files that "
        "run code later\")\n");
    box_proc_result_free(&r);
    box_test_cli((char *[]){"policy", "check", "--home", w->bw_home, "--config",
                            w->bw_config, NULL},
                 30000, &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(
        r.pr_err,
        "strands-box: warning: rule @id(\"writes\") lets the agent write or "
        "rename 68 files a host runs code from later: ~/.git, ~/.git/config, "
        "~/.git/hooks, ~/.git/hooks/pre-commit and 64 more; add a forbid on "
        "fs:write, fs:delete and fs:move for them (see README, \"Files that "
        "run code later\")\n");
    assert_non_null(strstr(r.pr_out, "loads (1 rules)"));
    box_proc_result_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f)                                                                   \
    cmocka_unit_test_setup_teardown(f, box_world_setup, box_world_teardown)
        T(test_quickstart_refuses_planting),
        T(test_quickstart_agent_still_works),
        T(test_policy_check_warns),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
