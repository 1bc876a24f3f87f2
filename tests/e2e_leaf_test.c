/* SPDX-License-Identifier: Apache-2.0 */
/* Leaf sandboxes under `box run`: what a host program the shell starts can
 * reach (none of the box directory) and run (its program and its `exec`
 * list, also through the dynamic loader), and the quickstart's [tool.git]
 * keeping .env, its helpers, its config and its hooks in. */
#include <fcntl.h>
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
#include "box_buf.h"
#include "box_testutil.h"
#include "box_world.h"
#include "contain_int.h"

static const char permit_all[] = "permit (principal, action, resource);\n";

/*
 * The shipped quickstart's file (deploy/quickstart/NAME) from its first
 * line holding `from` (NULL: the whole file) to the end, with its project
 * moved to the world's, which lies in the operator home. Caller frees.
 */
static char *
quickstart(const char *name, const char *from)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/deploy/quickstart/%s", BOX_SOURCE_DIR,
             name);
    char *text = box_test_slurp(path);
    assert_non_null(text);
    const char *start = from != NULL ? strstr(text, from) : text;
    assert_non_null(start);
    char *moved = box_test_replace_all(start, "/tmp/box-quickstart/project",
                                       "~/src/project");
    box_free(text);
    return moved;
}

/* The world configured with the quickstart's tool table and policy. */
static void
quickstart_world(box_world *w)
{
    char *tools = quickstart("box.toml", "[tool.git]");
    char *policy = quickstart("policy.dw", NULL);
    box_world_config(w, tools);
    box_world_policy(w, policy);
    box_free(tools);
    box_free(policy);
}

/* ---- item 2: the box directory, from a leaf ----------------------------- */

/*
 * A [tool.probe] (contain_probe, a leaf like any tool) whose own read
 * grant covers the world, box directory included: every socket of the
 * box is gone for connect(2) (which Landlock does not govern), every file
 * there for open, and the directory lists empty. Before leaves hid the
 * box directory, each socket answered and each file read.
 */
static void
test_leaf_reaches_no_box_socket(void **state)
{
    box_world *w = *state;
    char bin[PATH_MAX], probe[PATH_MAX];
    box_proc_bin(bin, sizeof bin, "contain_probe");
    assert_non_null(realpath(bin, probe));
    char tool[PATH_MAX * 3];
    snprintf(tool, sizeof tool,
             "[tool.probe]\ncommand = [\"%s\"]\n"
             "[tool.probe.filesystem]\nread = [\"%s\"]\n",
             probe, w->bw_root);
    box_world_config(w, tool);
    box_world_policy(w, permit_all);
    static const char *const socks[] = {
        "run/box.sock", "run/egress.sock", "private/pdp.sock",
        "private/pdp-epoch.sock", "private/shell-ctl.sock",
        "private/gateway-ctl.sock"};
    static const char *const files[] = {"private/telemetry/records.jsonl",
                                        "bin/sh"};
    box_buf cmd, want;
    box_buf_init(&cmd, 1u << 16);
    box_buf_init(&want, 1u << 16);
    assert_int_equal(box_buf_printf(&cmd, "sh -c '%s", probe), BOX_OK);
    for (size_t i = 0; i < sizeof socks / sizeof *socks; i++) {
        assert_int_equal(
            box_buf_printf(&cmd, " unix %s/%s", w->bw_state, socks[i]), BOX_OK);
        assert_int_equal(box_buf_printf(&want, "unix %s/%s: ENOENT\n",
                                        w->bw_state, socks[i]),
                         BOX_OK);
    }
    for (size_t i = 0; i < sizeof files / sizeof *files; i++) {
        assert_int_equal(
            box_buf_printf(&cmd, " read %s/%s", w->bw_state, files[i]), BOX_OK);
        assert_int_equal(box_buf_printf(&want, "read %s/%s: ENOENT\n",
                                        w->bw_state, files[i]),
                         BOX_OK);
    }
    // The grant still reads outside the box directory; inside it, only the
    // run's CA certificate shows (the trust names point at it).
    assert_int_equal(box_buf_printf(&cmd, " list %s list %s/src/project/src'",
                                    w->bw_state, w->bw_home),
                     BOX_OK);
    assert_int_equal(box_buf_printf(&want,
                                    "list %s: trust\nlist %s/src/project/src: "
                                    "main.rs\n",
                                    w->bw_state, w->bw_home),
                     BOX_OK);
    box_proc_result r;
    box_world_run(w, cmd.b_data, &r);
    if (r.pr_status != 0)
        box_test_show_result("probe", &r);
    assert_int_equal(r.pr_status, 0);
    box_test_expect_out(&r, want.b_data);
    box_proc_result_free(&r);
    box_buf_reset(&cmd);
    box_buf_reset(&want);
}

/* ---- item 9: git starts its helpers and nothing else -------------------- */

/*
 * Under the quickstart's [tool.git], what an alias, core.fsmonitor,
 * core.sshCommand, an ext:: transport (no shell at all) or a hook names
 * never starts: each would write a marker into .git, which git's leaf
 * may write. git's own work (status, add, commit) still runs, and box run
 * says at start where git may start helpers from.
 */
static void
test_git_helpers_do_not_start(void **state)
{
    box_world *w = *state;
    quickstart_world(w);
    char script[PATH_MAX * 8];
    const char *g = w->bw_project;
    snprintf(script, sizeof script,
             "zsh -c \"git -c alias.x='!touch %s/.git/M1' x\"; "
             "echo \"alias $?\"\n"
             "zsh -c \"git -c core.fsmonitor='touch %s/.git/M2' status "
             "--short\"; echo \"fsmonitor $?\"\n"
             "zsh -c \"git -c core.sshCommand='touch %s/.git/M3' fetch "
             "ssh://example.invalid/r\"; echo \"ssh $?\"\n"
             "zsh -c \"git -c protocol.ext.allow=always fetch "
             "'ext::/usr/bin/touch %s/.git/M4'\"; echo \"ext $?\"\n"
             "zsh -c 'grep -n TODO src/main.rs > todo.txt && git add "
             "todo.txt && git status --short'\n"
             "zsh -c 'git -c user.name=a -c user.email=a@b commit -q -m "
             "todo'; echo \"commit $?\"\n",
             g, g, g, g);
    box_proc_result r;
    box_world_run(w, script, &r);
    assert_int_equal(r.pr_status, 0);
    // git's own work goes on around the refused helpers: status lists the
    // untracked .env (twice), then the staged file.
    box_test_expect_out(&r, "alias 128\n"
                            "?? .env\n"
                            "fsmonitor 0\n"
                            "ssh 128\n"
                            "ext 128\n"
                            "A  todo.txt\n"
                            "?? .env\n"
                            "commit 0\n");
    box_test_expect_err_has(&r,
                            "strands-box: [tool.git] may run programs beneath "
                            "/usr/lib/git-core with no policy decision\n");
    // Each was tried, and the kernel refused to start it.
    char why[PATH_MAX * 2];
    snprintf(why, sizeof why,
             "fatal: cannot exec 'touch %s/.git/M1': "
             "Permission denied\n",
             g);
    box_test_expect_err_has(&r, why);
    box_test_expect_err_has(&r,
                            "fatal: cannot exec '/usr/bin/touch': Permission "
                            "denied\n");
    box_proc_result_free(&r);
    for (int i = 1; i <= 4; i++) {
        char m[PATH_MAX + 16];
        snprintf(m, sizeof m, "%s/.git/M%d", w->bw_project, i);
        if (access(m, F_OK) == 0)
            fprintf(stderr, "%s was created\n", m);
        assert_int_equal(access(m, F_OK), -1);
    }
    char *log = box_world_git_out(w, (char *[]){"log", "--format=%s", NULL});
    assert_string_equal(log, "todo\ninitial\n");
    box_free(log);

    // A hook planted in .git: the commit that would run it does not run
    // it. .git is a noexec mount in git's leaf, so git sees no executable
    // hook, says so, and commits without it.
    char hook[PATH_MAX + 32], text[PATH_MAX + 64];
    snprintf(hook, sizeof hook, "%s/.git/hooks/pre-commit", w->bw_project);
    snprintf(text, sizeof text, "#!/bin/sh\ntouch %s/.git/M5\n", w->bw_project);
    box_world_put(hook, text);
    assert_int_equal(chmod(hook, 0755), 0);
    box_world_run(w,
                  "zsh -c 'echo more >> todo.txt && git add todo.txt && git "
                  "-c user.name=a -c user.email=a@b commit -q -m more'; "
                  "echo \"hooked $?\"",
                  &r);
    assert_int_equal(r.pr_status, 0);
    box_test_expect_out(&r, "hooked 0\n");
    box_test_expect_err_has(
        &r, "hint: The '.git/hooks/pre-commit' hook was ignored "
            "because it's not set as executable.\n");
    box_proc_result_free(&r);
    snprintf(hook, sizeof hook, "%s/.git/M5", w->bw_project);
    assert_int_equal(access(hook, F_OK), -1);
}

/* ---- item 10: .env stays out of git's reach ----------------------------- */

/*
 * `cat .env` is refused by policy; under the quickstart's [tool.git] its
 * deny keeps git from reading it too: what git stages is the empty mask,
 * so `git show :.env` prints nothing of the secret, and .env itself is
 * untouched.
 */
static void
test_git_show_env(void **state)
{
    box_world *w = *state;
    quickstart_world(w);
    char env[PATH_MAX + 8];
    snprintf(env, sizeof env, "%s/.env", w->bw_project);
    char *before = box_test_slurp(env);
    assert_non_null(before);
    box_proc_result r;
    box_world_run(w,
                  "zsh -c 'git add .env && git show :.env'; echo \"show $?\"\n"
                  "zsh -c 'cat .env'; echo \"cat $?\"",
                  &r);
    assert_int_equal(r.pr_status, 0);
    box_test_expect_out(&r, "show 0\ncat 1\n");
    assert_null(strstr(r.pr_out, "not-for-agents"));
    assert_null(strstr(r.pr_err, "not-for-agents"));
    box_test_expect_err_has(
        &r, "strands-shell: cat: policy denied this operation on "
            "'~/src/project/.env' [policy: no_env]");
    box_proc_result_free(&r);
    char *after = box_test_slurp(env);
    assert_string_equal(after, before);
    box_free(after);
    box_free(before);
    char *shown = box_world_git_out(w, (char *[]){"show", ":.env", NULL});
    assert_string_equal(shown, "");
    box_free(shown);
}

/* ---- the loader runs only what may run --------------------------------- */

/* The dynamic loader a program names (PT_INTERP), as an alias would
 * spell it. */
static void
loader_of(const char *program, char *buf, size_t n)
{
    int fd = open(program, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(ct_elf_interp(fd, buf, n), CT_INTERP_FOUND);
    close(fd);
}

/*
 * git's leaf may execute the loader (git needs it), and the loader runs
 * whatever ELF it can map. Under the quickstart's [tool.git], an alias
 * naming the loader runs neither a system program (/usr/bin/touch: a
 * noexec program directory in the leaf) nor an ELF in the workspace (a
 * noexec grant); through the shell it does not start at all. git's own
 * work goes on. Before the binds, L1 and L3 were made.
 */
static void
test_git_loader_runs_nothing(void **state)
{
    box_world *w = *state;
    quickstart_world(w);
    char ld[PATH_MAX], mine[PATH_MAX + 16];
    loader_of(w->bw_git, ld, sizeof ld);
    snprintf(mine, sizeof mine, "%s/mytouch", w->bw_project);
    box_test_copy("/usr/bin/touch", mine, 0755);
    const char *g = w->bw_project;
    static char script[PATH_MAX * 12];
    snprintf(script, sizeof script,
             "zsh -c \"git -c alias.x='!%s' x /usr/bin/touch %s/.git/L1\"; "
             "echo \"system $?\"\n"
             "zsh -c \"git -c alias.y='!%s /usr/bin/touch %s/.git/L2' y\"; "
             "echo \"shell $?\"\n"
             "zsh -c \"git -c alias.z='!%s' z ./mytouch %s/.git/L3\"; "
             "echo \"workspace $?\"\n"
             "zsh -c 'grep -n TODO src/main.rs > todo.txt && git add "
             "todo.txt && git status --short'\n"
             "zsh -c 'git -c user.name=a -c user.email=a@b commit -q -m "
             "todo'; echo \"commit $?\"\n",
             ld, g, ld, g, ld, g);
    box_proc_result r;
    box_world_run(w, script, &r);
    assert_int_equal(r.pr_status, 0);
    box_test_expect_out(&r, "system 127\n"
                            "shell 128\n"
                            "workspace 127\n"
                            "A  todo.txt\n"
                            "?? .env\n"
                            "?? mytouch\n"
                            "commit 0\n");
    box_test_expect_err_has(&r,
                            "/usr/bin/touch: error while loading shared "
                            "libraries: /usr/bin/touch: failed to map segment "
                            "from shared object\n");
    box_test_expect_err_has(&r, "./mytouch: failed to map segment from shared "
                                "object\n");
    char why[PATH_MAX * 3];
    snprintf(why, sizeof why,
             "fatal: cannot exec '%s /usr/bin/touch %s/.git/L2': Permission "
             "denied\n",
             ld, g);
    box_test_expect_err_has(&r, why);
    box_proc_result_free(&r);
    for (int i = 1; i <= 3; i++) {
        char m[PATH_MAX + 16];
        snprintf(m, sizeof m, "%s/.git/L%d", w->bw_project, i);
        if (access(m, F_OK) == 0)
            fprintf(stderr, "%s was created\n", m);
        assert_int_equal(access(m, F_OK), -1);
    }
    char *log = box_world_git_out(w, (char *[]){"log", "--format=%s", NULL});
    assert_string_equal(log, "todo\ninitial\n");
    box_free(log);
}

/*
 * The agent's own sandbox is built the same way: the loader its shell
 * runs on maps neither a system program nor an ELF in the agent's write
 * grant, while its aliases (bin/, an exec entry shown beneath the hidden
 * box directory) still run. Before the binds, A1 and A2 were made.
 */
static void
test_agent_loader_runs_nothing(void **state)
{
    box_world *w = *state;
    char scratch[PATH_MAX], ld[PATH_MAX], fs[PATH_MAX + 32], p[PATH_MAX + 16];
    snprintf(scratch, sizeof scratch, "%s/scratch", w->bw_root);
    assert_int_equal(mkdir(scratch, 0755), 0);
    snprintf(p, sizeof p, "%s/touch", scratch);
    box_test_copy("/usr/bin/touch", p, 0755);
    snprintf(fs, sizeof fs, "write = [\"%s\"]\n", scratch);
    box_world_config_agent(w, fs, "");
    box_world_policy(w, permit_all);
    assert_non_null(realpath("/bin/sh", p));
    loader_of(p, ld, sizeof ld);
    static char script[PATH_MAX * 8];
    snprintf(script, sizeof script,
             "%s /usr/bin/touch %s/A1; echo \"system $?\"\n"
             "%s %s/touch %s/A2; echo \"written $?\"\n"
             "zsh -c 'echo alias $?'\n",
             ld, scratch, ld, scratch, scratch);
    box_proc_result r;
    box_world_run(w, script, &r);
    assert_int_equal(r.pr_status, 0);
    box_test_expect_out(&r, "system 127\nwritten 127\nalias 0\n");
    box_test_expect_err_has(&r, "failed to map segment from shared object\n");
    box_proc_result_free(&r);
    for (int i = 1; i <= 2; i++) {
        snprintf(p, sizeof p, "%s/A%d", scratch, i);
        if (access(p, F_OK) == 0)
            fprintf(stderr, "%s was created\n", p);
        assert_int_equal(access(p, F_OK), -1);
    }
}

/* ---- git's leaf cannot write its own config or hooks -------------------- */

/*
 * The quickstart's [tool.git] writes .git but reads .git/config and
 * .git/hooks (read entries inside the write grant: read-only mounts in
 * the leaf). `git config core.fsmonitor`, `git config core.hooksPath`
 * and a hook copied in by `git init --template` (from a directory the
 * agent can write) all fail, .git/config is byte for byte what it was,
 * and add, status and commit still work. Before, each of them planted
 * code the operator's own git would run on the host.
 */
static void
test_git_config_read_only(void **state)
{
    box_world *w = *state;
    quickstart_world(w);
    char cfg[PATH_MAX + 16], p[PATH_MAX + 64], why[PATH_MAX * 3];
    snprintf(cfg, sizeof cfg, "%s/.git/config", w->bw_project);
    char *before = box_test_slurp(cfg);
    assert_non_null(before);
    snprintf(p, sizeof p, "%s/tpl", w->bw_project);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/tpl/hooks", w->bw_project);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/tpl/hooks/pre-commit", w->bw_project);
    box_world_put(p, "#!/bin/sh\necho hooked\n");
    assert_int_equal(chmod(p, 0755), 0);
    const char *g = w->bw_project;
    static char script[PATH_MAX * 8];
    snprintf(script, sizeof script,
             "zsh -c \"git config core.fsmonitor 'touch %s/.git/F'\"; "
             "echo \"fsmonitor $?\"\n"
             "zsh -c 'git config core.hooksPath tpl/hooks'; "
             "echo \"hooksPath $?\"\n"
             "zsh -c 'git init -q --template=%s/tpl'; echo \"template $?\"\n"
             "zsh -c 'grep -n TODO src/main.rs > todo.txt && git add "
             "todo.txt && git status --short'\n"
             "zsh -c 'git -c user.name=a -c user.email=a@b commit -q -m "
             "todo'; echo \"commit $?\"\n",
             g, g);
    box_proc_result r;
    box_world_run(w, script, &r);
    assert_int_equal(r.pr_status, 0);
    box_test_expect_out(&r, "fsmonitor 4\n"
                            "hooksPath 4\n"
                            "template 128\n"
                            "A  todo.txt\n"
                            "?? .env\n"
                            "?? tpl/\n"
                            "commit 0\n");
    box_test_expect_err_has(&r,
                            "error: could not write config file .git/config: "
                            "Device or resource busy\n");
    snprintf(why, sizeof why,
             "fatal: cannot copy '%s/tpl/hooks/pre-commit' to "
             "'%s/.git/hooks/pre-commit': Read-only file system\n",
             g, g);
    box_test_expect_err_has(&r, why);
    box_proc_result_free(&r);
    char *after = box_test_slurp(cfg);
    assert_string_equal(after, before);
    box_free(after);
    box_free(before);
    snprintf(p, sizeof p, "%s/.git/hooks/pre-commit", w->bw_project);
    assert_int_equal(access(p, F_OK), -1);
    char *log = box_world_git_out(w, (char *[]){"log", "--format=%s", NULL});
    assert_string_equal(log, "todo\ninitial\n");
    box_free(log);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f)                                                                   \
    cmocka_unit_test_setup_teardown(f, box_world_setup, box_world_teardown)
        T(test_leaf_reaches_no_box_socket),
        T(test_git_helpers_do_not_start),
        T(test_git_show_env),
        T(test_git_loader_runs_nothing),
        T(test_agent_loader_runs_nothing),
        T(test_git_config_read_only),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
