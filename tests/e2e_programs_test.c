/* SPDX-License-Identifier: Apache-2.0 */
/* Real programs nobody here wrote, run unchanged inside a real `box run`
 * (issue 23): make, Python, Node and git start their shells by absolute
 * path, and each of those shells is the box's (decided), except a hook
 * git runs inside its own [tool.git] leaf. */
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

static const char progs_policy[] = BOX_WORLD_PROJECT_POLICY
    "@id(\"git\")\n"
    "permit (principal, action == Box::Action::\"shell:spawn\", resource)\n"
    "when { context.input.program == \"git\" };\n";

/*
 * The canonical file of the program at path, in real (PATH_MAX). A
 * machine without it fails the test, naming it (deploy/setup.sh installs
 * each): a skipped case would pass with nothing tested.
 */
static void
progs_need(const char *path, char *real)
{
    struct stat st;
    if (realpath(path, real) == NULL || stat(real, &st) != 0 ||
        !S_ISREG(st.st_mode))
        fail_msg("this test needs %s on the host (deploy/setup.sh installs "
                 "it)",
                 path);
}

/*
 * box.toml with the world's agent (as box_world_config writes it), its
 * sandbox granted exec of the canonical program real (the operator's
 * grant of the agent's own program: its libraries are under /usr, which
 * every sandbox reads) and read of the file named by read (its script or
 * Makefile; may be NULL), agent_fs more [agent.filesystem] lines, extra
 * tables after it; and the policy.
 */
static void
progs_config(box_world *w, const char *real, const char *read,
             const char *agent_fs, const char *extra)
{
    char *text = box_asprintf("name = \"world\"\n"
                              "box_dir = \"%s\"\n"
                              "policy = \"policy.dw\"\n"
                              "\n"
                              "[agent]\n"
                              "command = [\"/bin/sh\", \"%s\"]\n"
                              "workspace = \"%s\"\n"
                              "\n"
                              "[agent.filesystem]\n"
                              "read_file = [\"%s\"%s%s%s]\n"
                              "exec = [\"%s\"]\n"
                              "%s\n%s",
                              w->bw_state, w->bw_agent, w->bw_project,
                              w->bw_agent, read ? ", \"" : "", read ? read : "",
                              read ? "\"" : "", real, agent_fs, extra);
    assert_non_null(text);
    box_world_put(w->bw_config, text);
    box_free(text);
    box_world_policy(w, progs_policy);
}

/*
 * The run's command decisions (`shell:exec`, `shell:spawn`), in order,
 * must be want; file decisions are left out, as a pipeline's stages read
 * their files while the next stages are being admitted.
 */
static void
progs_expect_commands(const box_world *w, const char *want)
{
    char *all = box_world_decisions(w);
    char *got = box_alloc(strlen(all) + 1);
    assert_non_null(got);
    size_t n = 0;
    for (const char *s = all; *s != '\0';) {
        const char *e = strchr(s, '\n');
        size_t len = e ? (size_t)(e - s) + 1 : strlen(s);
        const char *sp = memchr(s, ' ', len);
        if (sp != NULL && strncmp(sp + 1, "shell:", 6) == 0) {
            memcpy(got + n, s, len);
            n += len;
        }
        s += len;
    }
    got[n] = '\0';
    if (strcmp(got, want) != 0)
        print_message("decision log:\n%s", all);
    assert_string_equal(got, want);
    box_free(got);
    box_free(all);
}

/* A run's status must be 0; else the run is shown. */
static void
progs_expect_ok(const char *what, const box_proc_result *r)
{
    if (r->pr_status != 0)
        box_test_show_result(what, r);
    assert_int_equal(r->pr_status, 0);
}

/* The stdout of a run must be want; else the run is shown. */
static void
progs_expect_out(const char *what, const box_proc_result *r, const char *want)
{
    if (r->pr_status != 0 || strcmp(r->pr_out, want) != 0)
        box_test_show_result(what, r);
    assert_int_equal(r->pr_status, 0);
    assert_string_equal(r->pr_out, want);
}

/*
 * The Makefile: `$(shell …)` with a pipe, recipes with pipes, `@echo`
 * (silent) and echoed lines. Every line holds a shell metacharacter: GNU
 * make runs a plain line (`@echo done`, `$(shell grep -c TODO f)`) with
 * no shell at all (its "fast path" execs the program itself), and in the
 * box such a line fails (`make: grep: Permission denied`) unless the
 * agent's own sandbox is granted that program.
 */
static const char progs_makefile[] =
    "SOURCES := $(shell ls src | sort)\n"
    "TODOS := $(shell grep -c \"TODO\" src/main.rs)\n"
    "\n"
    "all: count words\n"
    "\t@echo \"built: $(SOURCES) with $(TODOS) todos\"\n"
    "\n"
    "count:\n"
    "\t@echo \"counting\"\n"
    "\tgrep TODO src/main.rs | wc -l\n"
    "\n"
    "words:\n"
    "\tcat src/main.rs | tr -s ' ' '\\n' | grep -c . ; true\n"
    "\t@printf '%s\\n' \"$$(head -1 README.md)\" | tr a-z A-Z\n";

/*
 * make runs in the agent's sandbox; each `$(shell …)` and each recipe
 * line is `/bin/sh -c LINE`, the alias: decided command by command, and
 * the build prints exactly what the same make prints on the host.
 */
static void
test_make(void **state)
{
    box_world *w = *state;
    char make[PATH_MAX];
    progs_need("/usr/bin/make", make);
    char mk[PATH_MAX + 32];
    snprintf(mk, sizeof mk, "%s/Makefile", w->bw_project);
    char fs[PATH_MAX + 32];
    snprintf(fs, sizeof fs, "list = [\"%s\"]", w->bw_project);
    progs_config(w, make, mk, fs, "");
    box_world_put(mk, progs_makefile);

    // The same make on the host, on a copy of the project's files.
    char copy[PATH_MAX];
    snprintf(copy, sizeof copy, "%s/host-copy", w->bw_root);
    assert_int_equal(mkdir(copy, 0755), 0);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/src", copy);
    assert_int_equal(mkdir(p, 0755), 0);
    static const char *const files[] = {"Makefile", "README.md", "src/main.rs"};
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        char from[PATH_MAX + 32], to[PATH_MAX + 32];
        snprintf(from, sizeof from, "%s/%s", w->bw_project, files[i]);
        snprintf(to, sizeof to, "%s/%s", copy, files[i]);
        box_test_copy(from, to, 0644);
    }
    // Only PATH, as box run gives the agent little more: a MAKEFLAGS
    // from whatever runs this test must not change the host's output.
    char path[4096];
    snprintf(path, sizeof path, "PATH=%s",
             getenv("PATH") ? getenv("PATH") : "/usr/bin:/bin");
    char *envp[] = {path, NULL};
    char *argv[] = {make, "--no-print-directory", "-C", copy, NULL};
    box_proc bp;
    assert_true(box_proc_start(&bp, argv, envp));
    box_proc_result host;
    box_proc_finish(&bp, 30000, &host);
    progs_expect_ok("make on the host", &host);

    box_proc_result r;
    box_world_run(w, "exec /usr/bin/make\n", &r);
    progs_expect_out("make in the box", &r, host.pr_out);
    assert_string_equal(host.pr_out,
                        "counting\n"
                        "grep TODO src/main.rs | wc -l\n"
                        "2\n"
                        "cat src/main.rs | tr -s ' ' '\\n' | grep -c . ; "
                        "true\n"
                        "17\n"
                        "# PROJECT\n"
                        "built: main.rs with 2 todos\n");
    box_proc_result_free(&host);
    progs_expect_commands(w, "permit shell:exec ls\n"
                             "permit shell:exec sort\n"
                             "permit shell:exec grep\n"
                             "permit shell:exec echo\n"
                             "permit shell:exec grep\n"
                             "permit shell:exec wc\n"
                             "permit shell:exec cat\n"
                             "permit shell:exec tr\n"
                             "permit shell:exec grep\n"
                             "permit shell:exec true\n"
                             "permit shell:exec head\n"
                             "permit shell:exec printf\n"
                             "permit shell:exec tr\n"
                             "permit shell:exec echo\n");
    box_proc_result_free(&r);
}

/*
 * Python's subprocess and os.system start /bin/sh -c by absolute path:
 * a pipeline's output, stdin from `input=`, a refused command raising
 * CalledProcessError with the box's 126, and os.system's wait status.
 */
static void
test_python(void **state)
{
    box_world *w = *state;
    char py[PATH_MAX];
    progs_need("/usr/bin/python3", py);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/agent.py", w->bw_root);
    progs_config(w, py, p, "", "");
    box_world_put(
        p, "import os, subprocess\n"
           "r = subprocess.run('ls | wc -l', shell=True)\n"
           "print('ls', r.returncode, flush=True)\n"
           "r = subprocess.run('wc -c', shell=True, input=b'hello box\\n',\n"
           "                   capture_output=True)\n"
           "print('wc', r.stdout, r.returncode, flush=True)\n"
           "try:\n"
           "    subprocess.run('rm README.md', shell=True, check=True,\n"
           "                   stderr=subprocess.PIPE)\n"
           "except subprocess.CalledProcessError as e:\n"
           "    print('refused', e.returncode, b'no_rm' in e.stderr,\n"
           "          flush=True)\n"
           "s = os.system('echo system | tr a-z A-Z')\n"
           "print('system', os.waitstatus_to_exitcode(s), flush=True)\n"
           "s = os.system('rm README.md 2>/dev/null')\n"
           "print('system', os.waitstatus_to_exitcode(s), flush=True)\n");
    char script[PATH_MAX + 32];
    snprintf(script, sizeof script, "exec /usr/bin/python3 %s/agent.py\n",
             w->bw_root);
    box_proc_result r;
    box_world_run(w, script, &r);
    progs_expect_out("python", &r,
                     "2\n"
                     "ls 0\n"
                     "wc b'10\\n' 0\n"
                     "refused 126 True\n"
                     "SYSTEM\n"
                     "system 0\n"
                     "system 126\n");
    progs_expect_commands(w, "permit shell:exec ls\n"
                             "permit shell:exec wc\n"
                             "permit shell:exec wc\n"
                             "deny shell:exec rm\n"
                             "permit shell:exec echo\n"
                             "permit shell:exec tr\n"
                             "deny shell:exec rm\n");
    box_proc_result_free(&r);
    assert_true(access(w->bw_project, F_OK) == 0);
}

/*
 * Node's child_process: execSync with `input` (stdin and a file, for
 * grep), and exec with a callback that gets stdout, stderr and the
 * status.
 */
static void
test_node(void **state)
{
    box_world *w = *state;
    char node[PATH_MAX];
    progs_need("/usr/bin/node", node);
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/agent.js", w->bw_root);
    // Node reads OpenSSL's configuration at start and stops without it.
    progs_config(w, node, p, "read = [\"/etc/ssl/openssl.cnf\"]", "");
    box_world_put(
        p,
        "const cp = require('child_process');\n"
        "process.stdout.write(cp.execSync('grep -c x f', {input: 'x\\n'}));\n"
        "process.stdout.write(cp.execSync('grep -c x - f',\n"
        "                                 {input: 'x\\nx\\nx\\ny\\n'}));\n"
        "cp.exec('echo out; echo err >&2; exit 3', (e, out, err) => {\n"
        "  console.log('exec', e.code, JSON.stringify(out),\n"
        "              JSON.stringify(err));\n"
        "});\n");
    snprintf(p, sizeof p, "%s/f", w->bw_project);
    box_world_put(p, "x\nyx\nz\n");
    char script[PATH_MAX + 32];
    snprintf(script, sizeof script, "exec /usr/bin/node %s/agent.js\n",
             w->bw_root);
    box_proc_result r;
    box_world_run(w, script, &r);
    progs_expect_out("node", &r,
                     "2\n"
                     "(standard input):3\n"
                     "f:2\n"
                     "exec 3 \"out\\n\" \"err\\n\"\n");
    progs_expect_commands(w, "permit shell:exec grep\n"
                             "permit shell:exec grep\n"
                             "permit shell:exec echo\n"
                             "permit shell:exec echo\n"
                             "permit shell:exec exit\n");
    box_proc_result_free(&r);
}

/*
 * The operator grants git to the agent: its alias `!sh -c '…'` starts
 * /bin/sh, the alias, so the alias's commands are decided.
 */
static void
test_git_alias(void **state)
{
    box_world *w = *state;
    char git[PATH_MAX];
    progs_need("/usr/bin/git", git);
    char fs[PATH_MAX + 64];
    snprintf(fs, sizeof fs, "read = [\"%s/.git\"]", w->bw_project);
    progs_config(w, git, NULL, fs, "");
    char *out = box_world_git_out(
        w, (char *[]){"config", "alias.shout",
                      "!sh -c 'echo \"$1\" | tr a-z A-Z' alias", NULL});
    box_free(out);
    box_proc_result r;
    box_world_run(w,
                  "GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null "
                  "exec /usr/bin/git shout hello\n",
                  &r);
    progs_expect_out("git alias", &r, "HELLO\n");
    progs_expect_commands(w, "permit shell:exec sh\n"
                             "permit shell:exec echo\n"
                             "permit shell:exec tr\n");
    box_proc_result_free(&r);
}

/*
 * A hook runs inside git's own [tool.git] leaf, by the host's shell
 * there (the leaf keeps the real shells): it is not the box's, so its
 * commands are not decided; only git is.
 */
static void
test_git_hook_in_leaf(void **state)
{
    box_world *w = *state;
    char sh[PATH_MAX];
    progs_need("/bin/sh", sh);
    char tool[PATH_MAX + 512];
    snprintf(tool, sizeof tool,
             "%sexec = [\"/usr/lib/git-core\", \"%s\", "
             "\"~/src/project/.git/hooks\"]\n",
             box_world_git_tool, sh);
    box_world_config(w, tool);
    box_world_policy(w, progs_policy);
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/.git/hooks/post-commit", w->bw_project);
    static const char hook[] =
        "#!/bin/sh\n"
        "printf 'hook %s\\n' \"$(git log -1 --format=%s)\" > .git/hook-ran\n";
    box_test_write(p, hook, sizeof hook - 1, 0755);
    box_proc_result r;
    box_world_run(w,
                  "sh -c 'git -c user.name=box -c user.email=box@localhost "
                  "commit -q --allow-empty -m second && echo committed'\n",
                  &r);
    progs_expect_out("git hook", &r, "committed\n");
    snprintf(p, sizeof p, "%s/.git/hook-ran", w->bw_project);
    char *ran = box_test_slurp(p);
    assert_non_null(ran);
    assert_string_equal(ran, "hook second\n");
    box_free(ran);
    progs_expect_commands(w, "permit shell:spawn /usr/bin/git\n"
                             "permit shell:exec echo\n");
    box_proc_result_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f)                                                                   \
    cmocka_unit_test_setup_teardown(f, box_world_setup, box_world_teardown)
        T(test_make),      T(test_python),           T(test_node),
        T(test_git_alias), T(test_git_hook_in_leaf),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
