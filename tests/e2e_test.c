/* SPDX-License-Identifier: Apache-2.0 */
/* The worked example end to end: box run, the agent in its sandbox, the
 * alias, the shell, the PDP, git in its own sandbox, the decision log. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_testutil.h"
#include "box_world.h"

/* The policy of the worked example (the spec's guide style). */
static const char example_policy[] =
    "@id(\"shell_commands\")\n"
    "permit (principal, action == Box::Action::\"shell:exec\", resource);\n"
    "\n"
    "@id(\"project_read\")\n"
    "permit (principal, action == Box::Action::\"fs:read\", resource)\n"
    "when { context.input.path == \"~/src/project\" ||\n"
    "       context.input.path like \"~/src/project/*\" };\n"
    "\n"
    "@id(\"project_write\")\n"
    "permit (principal, action == Box::Action::\"fs:write\", resource)\n"
    "when { context.input.path like \"~/src/project/*\" };\n"
    "\n"
    "@id(\"git\")\n"
    "permit (principal, action == Box::Action::\"shell:spawn\", resource)\n"
    "when { context.input.program == \"git\" };\n";

static const char example_command[] =
    "zsh -c 'grep -n TODO src/main.rs > todo.txt && git add todo.txt'";

static void
test_worked_example(void **state)
{
    box_world *w = *state;
    box_world_config(w, box_world_git_tool);
    box_world_policy(w, example_policy);
    box_proc_result r;
    box_world_run(w, example_command, &r);
    if (r.pr_status != 0)
        box_test_show_result("worked example", &r);
    assert_int_equal(r.pr_status, 0);
    box_proc_result_free(&r);

    char *s = box_world_git_out(
        w, (char *[]){"diff", "--cached", "--name-only", NULL});
    assert_string_equal(s, "todo.txt\n");
    box_free(s);

    char want[PATH_MAX * 2];
    snprintf(want, sizeof want,
             "permit shell:exec grep\n"
             "permit fs:write ~/src/project/todo.txt\n"
             "permit fs:read ~/src/project/src/main.rs\n"
             "permit shell:spawn %s\n",
             w->bw_git);
    char *d = box_world_decisions(w);
    assert_string_equal(d, want);
    box_free(d);
}

/*
 * Stdin reaches the box's shell (issue 23): the agent pipes into `sh -c`,
 * and a Shell command (sort), a builtin (read) and a host program in its
 * own sandbox (git, reading the pipe the broker fed) each see the bytes.
 * The blob id is what git prints for the same bytes outside any box.
 */
static void
test_stdin_reaches_commands(void **state)
{
    box_world *w = *state;
    box_world_config(w, box_world_git_tool);
    box_world_policy(w, example_policy);
    box_proc_result r;
    box_world_run(w,
                  "printf 'b\\na\\n' | sh -c 'git hash-object --stdin'\n"
                  "printf 'z\\ny\\n' | sh -c 'sort'\n"
                  "printf 'one two\\n' | bash -c 'read a b; echo \"$b $a\"'\n",
                  &r);
    if (r.pr_status != 0 ||
        strcmp(r.pr_out, "0e1677a9785e5a17fe523efc5bf9e0b9a37b1100\n"
                         "y\nz\ntwo one\n") != 0)
        box_test_show_result("stdin", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "0e1677a9785e5a17fe523efc5bf9e0b9a37b1100\n"
                                  "y\nz\ntwo one\n");
    box_proc_result_free(&r);
}

/* The decision log describes the request that was decided, also when the
 * permit came from the cache: `echo a b "c d" e` and `echo a b c "d e"`
 * have one policy input (`command` joins the argv with spaces), so the
 * second is a cache hit, and must still be logged with its own argv. */
static void
test_cache_hit_logs_its_own_args(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, "permit (principal, action == "
                        "Box::Action::\"shell:exec\", resource);\n");
    box_proc_result r;
    box_world_run(w, "sh -c 'echo a b \"c d\" e' && sh -c 'echo a b c \"d e\"'",
                  &r);
    if (r.pr_status != 0)
        box_test_show_result("two echoes", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "a b c d e\na b c d e\n");
    box_proc_result_free(&r);

    char log[PATH_MAX + 64];
    snprintf(log, sizeof log, "%s/private/telemetry/records.jsonl",
             w->bw_state);
    char *argv[] = {"/bin/cat", log, NULL};
    box_proc_run(argv, 30000, &r);
    assert_int_equal(r.pr_status, 0);
#define ARG(s) "{\"stringValue\":\"" s "\"}"
    const char *first = "\"process.command_args\",\"value\":{\"arrayValue\":"
                        "{\"values\":[" ARG("echo") "," ARG("a") "," ARG(
                            "b") "," ARG("c d") "," ARG("e") "]}}";
    const char *second = "\"process.command_args\",\"value\":{\"arrayValue\":"
                         "{\"values\":[" ARG("echo") "," ARG("a") "," ARG(
                             "b") "," ARG("c") "," ARG("d e") "]}}";
#undef ARG
    const char *p1 = strstr(r.pr_out, first);
    const char *p2 = strstr(r.pr_out, second);
    if (p1 == NULL || p2 == NULL)
        print_message("decision log:\n%s", r.pr_out);
    assert_non_null(p1);
    assert_non_null(p2);
    // The second was served from the cache (so this tests the hit path).
    const char *eol = strchr(p2, '\n');
    const char *bol = p2;
    while (bol > r.pr_out && bol[-1] != '\n')
        bol--;
    size_t n = eol != NULL ? (size_t)(eol - bol) : strlen(bol);
    char *line = box_strndup(bol, n);
    assert_non_null(line);
    assert_non_null(strstr(line, "\"strands.box.policy.cached\""));
    box_free(line);
    box_proc_result_free(&r);
}

static void
test_write_denied(void **state)
{
    box_world *w = *state;
    box_world_config(w, box_world_git_tool);
    // The example without its write permit.
    char policy[sizeof example_policy];
    snprintf(policy, sizeof policy, "%s", example_policy);
    char *cut = strstr(policy, "@id(\"project_write\")");
    char *end = strstr(policy, "@id(\"git\")");
    memmove(cut, end, strlen(end) + 1);
    box_world_policy(w, policy);
    box_proc_result r;
    box_world_run(w, example_command, &r);
    assert_int_equal(r.pr_status, 1);
    assert_string_equal(r.pr_out, "");
    assert_non_null(strstr(r.pr_err,
                           "\nstrands-shell: todo.txt: policy denied this "
                           "operation on '~/src/project/todo.txt' "
                           "[default-deny]: No permit policy matched this "
                           "request.\n"));
    box_proc_result_free(&r);
    char *s = box_world_git_out(
        w, (char *[]){"diff", "--cached", "--name-only", NULL});
    assert_string_equal(s, "");
    box_free(s);
    char *d = box_world_decisions(w);
    assert_string_equal(d, "permit shell:exec grep\n"
                           "deny fs:write ~/src/project/todo.txt\n");
    box_free(d);
}

static void
test_no_env(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    char policy[sizeof example_policy + 512];
    snprintf(policy, sizeof policy,
             "%s\n@id(\"no_env\")\n"
             "@description(\"Secrets in .env stay unread.\")\n"
             "forbid (principal, action == Box::Action::\"fs:read\", "
             "resource)\nwhen { context.input.path like \"*/.env\" };\n",
             example_policy);
    box_world_policy(w, policy);
    box_proc_result r;
    box_world_run(w, "sh -c 'cat .env'; echo \"status $?\"", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "status 1\n");
    assert_non_null(strstr(r.pr_err,
                           "\nstrands-shell: cat: policy denied this operation "
                           "on '~/src/project/.env' [policy: no_env]: Secrets "
                           "in .env stay unread.\n"));
    box_proc_result_free(&r);
}

/* Globbing through the confined worker: the workspace is listed through
 * the shell's kernel, one decision per directory (a denied one, ~/src,
 * gives no match), and character classes past ASCII follow C.UTF-8
 * there too (the zygote loaded the locale before confining itself). */
static void
test_glob(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, example_policy);
    box_proc_result r;
    box_world_run(w,
                  "sh -c ': > \xc3\xa9.txt; echo * .*; echo "
                  "[[:alpha:]]*.txt; echo */*.rs; echo ../*/'",
                  &r);
    if (r.pr_status != 0)
        box_test_show_result("glob", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "README.md src \xc3\xa9.txt .env .git\n"
                                  "\xc3\xa9.txt\nsrc/main.rs\n../*/\n");
    box_proc_result_free(&r);
    // `echo * .*`: each word lists the workspace; `*/*.rs`: the
    // workspace, then in name order a probe per visible name, and src
    // listed once the probe found a directory.
    char *d = box_world_decisions(w);
    assert_string_equal(d, "permit shell:exec :\n"
                           "permit fs:write ~/src/project/\xc3\xa9.txt\n"
                           "permit fs:read ~/src/project\n"
                           "permit fs:read ~/src/project\n"
                           "permit shell:exec echo\n"
                           "permit fs:read ~/src/project\n"
                           "permit shell:exec echo\n"
                           "permit fs:read ~/src/project\n"
                           "permit fs:read ~/src/project/README.md\n"
                           "permit fs:read ~/src/project/src\n"
                           "permit fs:read ~/src/project/src\n"
                           "permit fs:read ~/src/project/\xc3\xa9.txt\n"
                           "permit shell:exec echo\n"
                           "deny fs:read ~/src\n"
                           "permit shell:exec echo\n");
    box_free(d);
}

static void
test_no_tool(void **state)
{
    box_world *w = *state;
    box_world_config(w, ""); // no [tool.git]
    box_world_policy(w, example_policy);
    box_proc_result r;
    box_world_run(w, "bash -c 'git status'; echo \"status $?\"", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "status 126\n");
    char want[PATH_MAX * 2];
    snprintf(want, sizeof want,
             "\nstrands-shell: git: no tool runs %s: no `[tool.<name>] "
             "command` matches this program and its leading arguments\n",
             w->bw_git);
    if (strstr(r.pr_err, want) == NULL)
        box_test_show_result("no tool", &r);
    assert_non_null(strstr(r.pr_err, want));
    box_proc_result_free(&r);
}

static void
test_agent_status_and_disclosure(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, example_policy);
    box_proc_result r;
    box_world_run(w, "exit 3", &r);
    assert_int_equal(r.pr_status, 3);
    char want[PATH_MAX * 3];
    snprintf(want, sizeof want,
             "strands-box: [agent] runs /usr/bin/dash with no policy decision "
             "over these paths:\n"
             "  read_file   %s\n"
             "  exec        /usr/bin/dash (command, implicit)\n"
             "strands-box: [agent] runs the box's shell (every command "
             "decided by policy) for zsh, bash, sh on PATH, /bin/sh",
             w->bw_agent);
    if (strstr(r.pr_err, want) == NULL)
        box_test_show_result("disclosure", &r);
    assert_non_null(strstr(r.pr_err, want));
    // The shells line names the covered paths there are (issue 23).
    assert_non_null(strstr(strstr(r.pr_err, want),
                           " and $SHELL\nstrands-box: starting workload\n"));
    assert_non_null(strstr(r.pr_err, " created \xc2\xb7 config "));
    assert_null(strstr(r.pr_err, "alias image refreshed"));
    box_proc_result_free(&r);

    // An alias that no longer holds this build's image is replaced, and
    // the run says so.
    char sh[PATH_MAX + 16];
    snprintf(sh, sizeof sh, "%s/bin/sh", w->bw_state);
    box_world_put(sh, "#!/bin/sh\necho planted\n");
    box_world_run(w, "sh -c 'echo via alias'", &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "via alias\n");
    assert_non_null(strstr(r.pr_err, " alias image refreshed\n"));
    box_proc_result_free(&r);
}

/* The pid of parent's child whose comm is name, or -1. */
static pid_t
child_named(pid_t parent, const char *name)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    pid_t found = -1;
    struct dirent *de;
    while (found < 0 && (de = readdir(d)) != NULL) {
        // Only the numeric entries are processes (not self, thread-self).
        char *end;
        long pid = strtol(de->d_name, &end, 10);
        if (end == de->d_name || *end != '\0' || pid <= 0)
            continue;
        char p[300], buf[512];
        snprintf(p, sizeof p, "/proc/%s/stat", de->d_name);
        FILE *f = fopen(p, "r");
        if (f == NULL)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        // pid (comm) state ppid ...
        char *open = strchr(buf, '('), *close = strrchr(buf, ')');
        if (open == NULL || close == NULL)
            continue;
        *close = '\0';
        int ppid = 0;
        char state;
        if (sscanf(close + 2, "%c %d", &state, &ppid) == 2 && ppid == parent &&
            strcmp(open + 1, name) == 0 && state != 'Z')
            found = (pid_t)pid;
    }
    closedir(d);
    return found;
}

/* A service that dies ends the run at once: the agent is stopped with it
 * and never keeps a shell nobody mediates, or a network nobody decides.
 * Each row kills one service of a run of its own. */
static const char *const death_svcs[] = {"box-shell", "box-pdp",
                                         "box-gateway"};

static void
test_service_death_ends_run(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof death_svcs / sizeof *death_svcs; i++) {
        const char *svc = death_svcs[i];
        box_world w;
        box_world_make(&w);
        // The agent runs sleep itself: its sandbox executes only what it
        // lists.
        box_world_config_agent(&w, "exec = [\"/usr/bin/sleep\"]\n", "");
        box_world_policy(&w, example_policy);
        box_proc bp;
        box_world_start(&w, "echo started; sleep 60; echo never", &bp);
        char buf[64];
        ssize_t n = read(bp.bp_out_fd, buf, sizeof buf);
        assert_int_equal(n, 8);
        assert_memory_equal(buf, "started\n", 8);
        pid_t pid = child_named(bp.bp_pid, svc);
        if (pid <= 0)
            fail_msg("no %s under box run (pid %d)", svc, (int)bp.bp_pid);
        assert_int_equal(kill(pid, SIGKILL), 0);
        box_proc_result r;
        box_proc_finish(&bp, 30000, &r);
        box_world_drop(&w);
        char want[128];
        snprintf(want, sizeof want,
                 "strands-box: %s stopped during the run; the agent was "
                 "stopped with it\n",
                 svc);
        if (r.pr_timeout || r.pr_status != 125 ||
            strstr(r.pr_err, want) == NULL) {
            box_test_show_result(svc, &r);
            fail_msg("%s killed: expected status 125 and\n%s", svc, want);
        }
        assert_string_equal(r.pr_out, "");
        box_proc_result_free(&r);
    }
}

/* Refusals before anything starts: a config without [agent]. */
static void
test_no_agent_table(void **state)
{
    box_world *w = *state;
    char text[PATH_MAX * 2];
    snprintf(text, sizeof text,
             "name = \"world\"\nbox_dir = \"%s\"\npolicy = \"policy.dw\"\n",
             w->bw_state);
    box_world_put(w->bw_config, text);
    box_world_policy(w, example_policy);
    box_proc_result r;
    box_world_run(w, "exit 0", &r);
    assert_int_equal(r.pr_status, 1);
    assert_string_equal(r.pr_err, "strands-box: error: the configuration has "
                                  "no `[agent]` table, so there is nothing "
                                  "to run\n");
    box_proc_result_free(&r);
}

/* A kernel without Landlock: box run refuses before anything starts and
 * names the missing feature. */
static void
test_missing_kernel_feature(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, example_policy);
    char wrap[PATH_MAX];
    box_proc_bin(wrap, sizeof wrap, "no_landlock");
    w->bw_wrap = wrap;
    box_proc_result r;
    box_world_run(w, "echo agent ran", &r);
    w->bw_wrap = NULL;
    assert_int_equal(r.pr_status, 1);
    assert_string_equal(r.pr_out, "");
    if (strstr(r.pr_err, "landlock: missing") == NULL)
        box_test_show_result("no landlock", &r);
    assert_non_null(strstr(r.pr_err,
                           "strands-box: error: this kernel cannot build the "
                           "sandbox every program of the box runs in: "
                           "landlock: missing"));
    // Nothing started: no service was spawned, no box directory made.
    assert_null(strstr(r.pr_err, "up \xc2\xb7 pid"));
    box_proc_result_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_glob, box_world_setup,
                                        box_world_teardown),
        cmocka_unit_test_setup_teardown(test_worked_example, box_world_setup,
                                        box_world_teardown),
        cmocka_unit_test_setup_teardown(test_stdin_reaches_commands,
                                        box_world_setup, box_world_teardown),
        cmocka_unit_test_setup_teardown(test_cache_hit_logs_its_own_args,
                                        box_world_setup, box_world_teardown),
        cmocka_unit_test_setup_teardown(test_write_denied, box_world_setup,
                                        box_world_teardown),
        cmocka_unit_test_setup_teardown(test_no_env, box_world_setup,
                                        box_world_teardown),
        cmocka_unit_test_setup_teardown(test_no_tool, box_world_setup,
                                        box_world_teardown),
        cmocka_unit_test_setup_teardown(test_agent_status_and_disclosure,
                                        box_world_setup, box_world_teardown),
        cmocka_unit_test(test_service_death_ends_run),
        cmocka_unit_test_setup_teardown(test_no_agent_table, box_world_setup,
                                        box_world_teardown),
        cmocka_unit_test_setup_teardown(test_missing_kernel_feature,
                                        box_world_setup, box_world_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
