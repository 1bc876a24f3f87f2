/* SPDX-License-Identifier: Apache-2.0 */
/* Leaf sandboxes under `box run`: what a host program the shell starts can
 * reach (none of the box directory) and run (its program and its `exec`
 * list), and the quickstart's [tool.git] keeping .env and its helpers in. */
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
#include "box_world.h"

static const char permit_all[] = "permit (principal, action, resource);\n";

/* stderr, not print_message: a box run's stderr is longer than cmocka's
 * message buffer. */
static void
show(const char *what, const box_proc_result *r)
{
    fprintf(stderr, "%s: status %d\n--- stdout\n%s--- stderr\n%s---\n", what,
            r->pr_status, r->pr_out, r->pr_err);
}

static void
expect_out(const box_proc_result *r, const char *out)
{
    if (strcmp(r->pr_out, out) != 0)
        show("run", r);
    assert_string_equal(r->pr_out, out);
}

static void
expect_err_has(const box_proc_result *r, const char *text)
{
    if (strstr(r->pr_err, text) == NULL) {
        fprintf(stderr, "missing in stderr: %s\n", text);
        show("run", r);
    }
    assert_non_null(strstr(r->pr_err, text));
}

/* A file's text (NULL if absent). Caller frees. */
static char *
slurp(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    box_buf b;
    box_buf_init(&b, 1u << 20);
    char buf[4096];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        assert_int_equal(box_buf_append(&b, buf, (size_t)n), BOX_OK);
    close(fd);
    if (b.b_len == 0)
        return box_strdup("");
    return box_buf_take(&b);
}

/* text with every `from` replaced by `to`. Caller frees. */
static char *
replace_all(const char *text, const char *from, const char *to)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    size_t n = strlen(from);
    for (const char *p = text; *p != '\0';) {
        if (strncmp(p, from, n) == 0) {
            assert_int_equal(box_buf_puts(&b, to), BOX_OK);
            p += n;
        } else {
            assert_int_equal(box_buf_putc(&b, *p++), BOX_OK);
        }
    }
    return box_buf_take(&b);
}

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
    char *text = slurp(path);
    assert_non_null(text);
    const char *start = from != NULL ? strstr(text, from) : text;
    assert_non_null(start);
    char *moved =
        replace_all(start, "/tmp/box-quickstart/project", "~/src/project");
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

/* `git ARGS` in the project on the host, its stdout (caller frees). */
static char *
host_git(const box_world *w, const char *a1, const char *a2)
{
    char *argv[] = {"/usr/bin/git", "-C",       (char *)w->bw_project,
                    (char *)a1,     (char *)a2, NULL};
    box_proc_result r;
    box_proc_run(argv, 30000, &r);
    assert_int_equal(r.pr_status, 0);
    char *out = r.pr_out;
    r.pr_out = NULL;
    box_proc_result_free(&r);
    return out;
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
        "run/box.sock", "private/pdp.sock", "private/pdp-epoch.sock",
        "private/shell-ctl.sock", "private/gateway-ctl.sock"};
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
    // The grant still reads outside the box directory.
    assert_int_equal(box_buf_printf(&cmd, " list %s list %s/src/project/src'",
                                    w->bw_state, w->bw_home),
                     BOX_OK);
    assert_int_equal(box_buf_printf(&want,
                                    "list %s:\nlist %s/src/project/src: "
                                    "main.rs\n",
                                    w->bw_state, w->bw_home),
                     BOX_OK);
    box_proc_result r;
    box_world_run(w, cmd.b_data, &r);
    if (r.pr_status != 0)
        show("probe", &r);
    assert_int_equal(r.pr_status, 0);
    expect_out(&r, want.b_data);
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
    expect_out(&r, "alias 128\n"
                   "?? .env\n"
                   "fsmonitor 0\n"
                   "ssh 128\n"
                   "ext 128\n"
                   "A  todo.txt\n"
                   "?? .env\n"
                   "commit 0\n");
    expect_err_has(&r, "strands-box: [tool.git] may run programs beneath "
                       "/usr/lib/git-core with no policy decision\n");
    // Each was tried, and the kernel refused to start it.
    char why[PATH_MAX * 2];
    snprintf(why, sizeof why,
             "fatal: cannot exec 'touch %s/.git/M1': "
             "Permission denied\n",
             g);
    expect_err_has(&r, why);
    expect_err_has(&r, "fatal: cannot exec '/usr/bin/touch': Permission "
                       "denied\n");
    box_proc_result_free(&r);
    for (int i = 1; i <= 4; i++) {
        char m[PATH_MAX + 16];
        snprintf(m, sizeof m, "%s/.git/M%d", w->bw_project, i);
        if (access(m, F_OK) == 0)
            fprintf(stderr, "%s was created\n", m);
        assert_int_equal(access(m, F_OK), -1);
    }
    char *log = host_git(w, "log", "--format=%s");
    assert_string_equal(log, "todo\ninitial\n");
    box_free(log);

    // A hook planted in .git: the commit that would run it does not run
    // it (git cannot start it, so the commit stops there).
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
    expect_out(&r, "hooked 1\n");
    expect_err_has(&r, "fatal: cannot exec '.git/hooks/pre-commit': "
                       "Permission denied\n");
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
    char *before = slurp(env);
    assert_non_null(before);
    box_proc_result r;
    box_world_run(w,
                  "zsh -c 'git add .env && git show :.env'; echo \"show $?\"\n"
                  "zsh -c 'cat .env'; echo \"cat $?\"",
                  &r);
    assert_int_equal(r.pr_status, 0);
    expect_out(&r, "show 0\ncat 1\n");
    assert_null(strstr(r.pr_out, "not-for-agents"));
    assert_null(strstr(r.pr_err, "not-for-agents"));
    expect_err_has(&r, "strands-shell: cat: policy denied this operation on "
                       "'~/src/project/.env' [policy: no_env]");
    box_proc_result_free(&r);
    char *after = slurp(env);
    assert_string_equal(after, before);
    box_free(after);
    box_free(before);
    char *shown = host_git(w, "show", ":.env");
    assert_string_equal(shown, "");
    box_free(shown);
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
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
