/* SPDX-License-Identifier: Apache-2.0 */
/* Every shell path is the alias in the agent's sandbox (issue 23 item 1):
 * /bin/sh and /bin/bash by absolute path reach the box's shell, through a
 * real `box run`; `shells = "path-only"` keeps the old view; a tool's
 * leaf keeps the host's bash. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_testutil.h"
#include "box_world.h"

#define SHELLS_BASH_TOOL                                                       \
    "@id(\"bash_tool\")\n"                                                     \
    "permit (principal, action == Box::Action::\"shell:spawn\", resource)\n"   \
    "when { context.input.program_path == \"/usr/bin/bash\" };\n"

static const char shells_policy[] = BOX_WORLD_PROJECT_POLICY SHELLS_BASH_TOOL;

/*
 * box.toml as box_world_config writes it, with agent_keys (more lines of
 * the [agent] table itself, e.g. `shells = "path-only"`), agent_fs (more
 * [agent.filesystem] lines) and extra tables after it.
 */
static void
shells_config(box_world *w, const char *agent_keys, const char *agent_fs,
              const char *extra)
{
    char *text = box_asprintf("name = \"world\"\n"
                              "box_dir = \"%s\"\n"
                              "policy = \"policy.dw\"\n"
                              "\n"
                              "[agent]\n"
                              "command = [\"/bin/sh\", \"%s\"]\n"
                              "workspace = \"%s\"\n"
                              "%s\n"
                              "[agent.filesystem]\n"
                              "read_file = [\"%s\"]\n"
                              "%s\n%s",
                              w->bw_state, w->bw_agent, w->bw_project,
                              agent_keys, w->bw_agent, agent_fs, extra);
    assert_non_null(text);
    box_world_put(w->bw_config, text);
    box_free(text);
}

/* The text of err between the lines "@from" and "@to" (the agent writes
 * them to stderr around each call). Caller frees. */
static char *
shells_between(const char *err, const char *from, const char *to)
{
    char a[32], b[32];
    snprintf(a, sizeof a, "@%s\n", from);
    snprintf(b, sizeof b, "@%s\n", to);
    const char *s = strstr(err, a);
    assert_non_null(s);
    s += strlen(a);
    const char *e = strstr(s, b);
    assert_non_null(e);
    char *out = box_alloc((size_t)(e - s) + 1);
    assert_non_null(out);
    memcpy(out, s, (size_t)(e - s));
    out[e - s] = '\0';
    return out;
}

static bool
shells_exists(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/*
 * `/bin/bash -c 'cat .env'` by absolute path under a policy that forbids
 * reading .env: refused with exactly the words and status of `bash -c`
 * on PATH; so is a forbidden command (126), by each absolute spelling.
 */
static void
test_absolute_bash_is_the_alias(void **state)
{
    box_world *w = *state;
    shells_config(w, "", "", "");
    box_world_policy(w, shells_policy);
    box_proc_result r;
    box_world_run(w,
                  "echo @1 >&2\n"
                  "bash -c 'cat .env'; echo \"path $?\"\n"
                  "echo @2 >&2\n"
                  "/bin/bash -c 'cat .env'; echo \"abs $?\"\n"
                  "echo @3 >&2\n"
                  "sh -c 'rm README.md'; echo \"path $?\"\n"
                  "echo @4 >&2\n"
                  "/bin/sh -c 'rm README.md'; echo \"abs $?\"\n"
                  "echo @5 >&2\n"
                  "/usr/bin/bash -c 'rm README.md'; echo \"abs $?\"\n"
                  "echo @6 >&2\n",
                  &r);
    if (r.pr_status != 0)
        box_test_show_result("absolute bash", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "path 1\nabs 1\npath 126\nabs 126\n"
                                  "abs 126\n");
    char *p = shells_between(r.pr_err, "1", "2");
    char *a = shells_between(r.pr_err, "2", "3");
    assert_string_equal(p, "strands-shell: cat: policy denied this operation "
                           "on '~/src/project/.env' [policy: no_env]: Secrets "
                           "in .env stay unread.\n");
    assert_string_equal(a, p);
    box_free(p);
    box_free(a);
    p = shells_between(r.pr_err, "3", "4");
    a = shells_between(r.pr_err, "4", "5");
    assert_non_null(strstr(p, "[policy: no_rm]: Nothing is removed."));
    assert_string_equal(a, p);
    box_free(a);
    a = shells_between(r.pr_err, "5", "6");
    assert_string_equal(a, p);
    box_free(a);
    box_free(p);
    box_proc_result_free(&r);
    assert_true(access(w->bw_project, F_OK) == 0);
}

/*
 * `/bin/sh -c 'echo hi'` and every other covered spelling is decided (the
 * decision log has it), the run says which paths are the alias, and
 * SHELL names the alias.
 */
static void
test_absolute_sh_is_decided(void **state)
{
    box_world *w = *state;
    shells_config(w, "", "", "");
    box_world_policy(w, shells_policy);
    static const char *const paths[] = {
        "/bin/sh",   "/usr/bin/sh",   "/bin/bash", "/usr/bin/bash",
        "/bin/dash", "/usr/bin/dash", "/bin/zsh",  "/usr/bin/zsh"};
    char script[4096], want_out[2048], want_log[2048], line[256];
    size_t n = 0, o = 0, l = 0;
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        if (!shells_exists(paths[i]))
            continue;
        n += (size_t)snprintf(script + n, sizeof script - n,
                              "%s -c 'echo hi %zu'\n", paths[i], i);
        o += (size_t)snprintf(want_out + o, sizeof want_out - o, "hi %zu\n", i);
        l += (size_t)snprintf(want_log + l, sizeof want_log - l,
                              "permit shell:exec echo\n");
    }
    // $0 is the name it was started by; $SHELL is the alias on PATH.
    snprintf(script + n, sizeof script - n,
             "/bin/sh -c 'echo \"$0\"'\n"
             "echo \"SHELL=$SHELL\"\n"
             "\"$SHELL\" -c 'echo via shell'\n");
    l += (size_t)snprintf(want_log + l, sizeof want_log - l,
                          "permit shell:exec echo\npermit shell:exec echo\n");
    snprintf(want_out + o, sizeof want_out - o,
             "/bin/sh\nSHELL=%s/bin/bash\nvia shell\n", w->bw_state);
    box_proc_result r;
    box_world_run(w, script, &r);
    if (r.pr_status != 0)
        box_test_show_result("absolute sh", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, want_out);
    box_world_expect_decisions(w, want_log);
    // The disclosure: one line naming each covered path that exists.
    snprintf(line, sizeof line,
             "strands-box: [agent] runs the box's shell (every command "
             "decided by policy) for zsh, bash, sh on PATH");
    const char *d = strstr(r.pr_err, line);
    assert_non_null(d);
    const char *end = strchr(d, '\n');
    assert_non_null(end);
    for (size_t i = 0; i < sizeof paths / sizeof *paths; i++) {
        char item[64];
        snprintf(item, sizeof item, ", %s", paths[i]);
        char *hit = memmem(d, (size_t)(end - d), item, strlen(item));
        assert_true((hit != NULL) == shells_exists(paths[i]));
    }
    box_proc_result_free(&r);
}

/*
 * `shells = "path-only"`: today's view. /bin/sh is the host's own shell
 * (here the agent's own program, so its sandbox may run it; with no such
 * grant it cannot run at all), and nothing is decided for its command;
 * SHELL is not set; zsh, bash, sh on PATH are the alias still. `ulimit`
 * is a builtin of the host's sh and no command of the box's shell.
 */
static void
test_path_only(void **state)
{
    box_world *w = *state;
    shells_config(w, "shells = \"path-only\"", "", "");
    box_world_policy(w, shells_policy);
    box_proc_result r;
    box_world_run(w,
                  "/bin/sh -c 'ulimit -n >/dev/null && echo real'; "
                  "echo \"abs $?\"\n"
                  "echo \"SHELL=${SHELL-unset}\"\n"
                  "sh -c 'echo path'\n",
                  &r);
    if (r.pr_status != 0)
        box_test_show_result("path-only", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "real\nabs 0\nSHELL=unset\npath\n");
    assert_null(strstr(r.pr_err, "runs the box's shell"));
    box_world_expect_decisions(w, "permit shell:exec echo\n");
    box_proc_result_free(&r);
}

/*
 * A [tool.*] leaf keeps the host's shells: the box's shell spawns the
 * real bash in the tool's sandbox ($BASH is the host's /usr/bin/bash;
 * the box's shell says its own file, /bin/bash), while the agent's own
 * /usr/bin/bash is the alias.
 */
static void
test_tool_leaf_keeps_real_bash(void **state)
{
    box_world *w = *state;
    if (!shells_exists("/usr/bin/bash"))
        fail_msg("this test needs /usr/bin/bash on the host");
    shells_config(w, "", "", "[tool.bash]\ncommand = [\"/usr/bin/bash\"]\n");
    box_world_policy(w, shells_policy);
    box_proc_result r;
    box_world_run(w,
                  "sh -c '/usr/bin/bash -c \"echo leaf \\$BASH\"'\n"
                  "/usr/bin/bash -c 'echo agent $BASH'\n",
                  &r);
    if (r.pr_status != 0)
        box_test_show_result("tool leaf bash", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "leaf /usr/bin/bash\nagent /bin/bash\n");
    char *d = box_world_decisions(w);
    assert_non_null(strstr(d, "permit shell:spawn "));
    box_free(d);
    box_proc_result_free(&r);
}

/*
 * A host program writes, in place, the file a `while read` loop of the
 * box's shell reads: the loop's next lines are the program's, as bash
 * reads them, not bytes the box read ahead before the program ran.
 */
static void
test_reader_sees_host_program_write(void **state)
{
    box_world *w = *state;
    if (!shells_exists("/usr/bin/bash"))
        fail_msg("this test needs /usr/bin/bash on the host");
    shells_config(w, "", "",
                  "[tool.bash]\ncommand = [\"/usr/bin/bash\"]\n"
                  "[tool.bash.filesystem]\nwrite = [\"~/src/project\"]\n");
    box_world_policy(w, BOX_WORLD_PROJECT_POLICY SHELLS_BASH_TOOL
                     "@id(\"project_write\")\n"
                     "permit (principal, action == Box::Action::\"fs:write\", "
                     "resource)\n"
                     "when { context.input.path like \"~/src/project/*\" };\n");
    box_proc_result r;
    box_world_run(w,
                  "sh -c 'printf \"1\\n2\\n3\\n4\\n\" > f; while read -r l; "
                  "do printf %s \"$l\"; [ $l = 1 ] && /usr/bin/bash -c "
                  "\"printf \\\"X\\\\nY\\\\nZ\\\\n\\\" 1<>f\"; done < f; "
                  "echo'\n",
                  &r);
    if (r.pr_status != 0 || strcmp(r.pr_out, "1YZ4\n") != 0)
        box_test_show_result("reader and host writer", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "1YZ4\n");
    box_proc_result_free(&r);
}

/*
 * An agent started as `/bin/sh agent.sh` is the host's sh (it was opened
 * before the covers): its own builtins and `$0` are dash's, and what it
 * starts by /bin/sh goes to the box.
 */
static void
test_agent_itself_is_real_sh(void **state)
{
    box_world *w = *state;
    shells_config(w, "", "", "");
    box_world_policy(w, shells_policy);
    box_proc_result r;
    // `ulimit` is a builtin of the host's sh and no command of the box's
    // shell: the agent has it, what it starts by /bin/sh does not.
    box_world_run(w,
                  "ulimit -n >/dev/null && echo real\n"
                  "/bin/sh -c 'echo boxed'\n"
                  "/bin/sh -c 'ulimit -n >/dev/null 2>&1 && echo real' || "
                  "echo \"not real\"\n",
                  &r);
    if (r.pr_status != 0)
        box_test_show_result("agent is real sh", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "real\nboxed\nnot real\n");
    box_proc_result_free(&r);
}

/*
 * Python's subprocess with shell=True runs /bin/sh -c by absolute path:
 * it goes through the box (decided, and its pipeline's output returned).
 * Python runs in the agent's sandbox by the operator's exec grant on its
 * canonical file (its library is under /usr, which every sandbox reads).
 */
static void
test_python_subprocess(void **state)
{
    box_world *w = *state;
    char real[PATH_MAX], fs[PATH_MAX + 32];
    if (realpath("/usr/bin/python3", real) == NULL)
        fail_msg("this test needs /usr/bin/python3 on the host");
    snprintf(fs, sizeof fs, "exec = [\"%s\"]", real);
    shells_config(w, "", fs, "");
    box_world_policy(w, shells_policy);
    box_proc_result r;
    box_world_run(w,
                  "/usr/bin/python3 -c 'import subprocess; "
                  "print(subprocess.run(\"echo hi | wc -c\", shell=True, "
                  "capture_output=True).stdout)'\n",
                  &r);
    if (r.pr_status != 0)
        box_test_show_result("python subprocess", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "b'3\\n'\n");
    box_world_expect_decisions(w, "permit shell:exec echo\n"
                                  "permit shell:exec wc\n");
    box_proc_result_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f)                                                                   \
    cmocka_unit_test_setup_teardown(f, box_world_setup, box_world_teardown)
        T(test_absolute_bash_is_the_alias),
        T(test_absolute_sh_is_decided),
        T(test_path_only),
        T(test_tool_leaf_keeps_real_bash),
        T(test_reader_sees_host_program_write),
        T(test_agent_itself_is_real_sh),
        T(test_python_subprocess),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
