/* SPDX-License-Identifier: Apache-2.0 */
/* A whole box on disk, run through the real `box run`. */
#include "box_world.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
#include "box_procspec.h"
#include "box_testutil.h"

#define WORLD_RUN_MS 120000

const char box_world_git_tool[] =
    "[tool.git]\n"
    "command = [\"git\"]\n"
    "env = { GIT_CONFIG_NOSYSTEM = \"1\", GIT_CONFIG_GLOBAL = \"/dev/null\" }\n"
    "\n"
    "[tool.git.filesystem]\n"
    "read = [\"~/src/project\"]\n"
    "write = [\"~/src/project/.git\"]\n";

void
box_world_put(const char *path, const char *text)
{
    box_test_put(path, text);
}

static void
world_mkdir(const char *fmt, const char *a, const char *b)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, fmt, a, b);
    assert_int_equal(mkdir(p, 0755), 0);
}

static void
world_git(const box_world *w, char *const *args)
{
    char *argv[16] = {"/usr/bin/git",  "-C", (char *)w->bw_project,     "-c",
                      "user.name=box", "-c", "user.email=box@localhost"};
    size_t n = 7;
    for (size_t i = 0; args[i] != NULL && n < 15; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    box_proc_result r;
    box_proc_run(argv, 30000, &r);
    if (r.pr_status != 0)
        print_error("git: %s\n", r.pr_err);
    assert_int_equal(r.pr_status, 0);
    box_proc_result_free(&r);
}

void
box_world_make(box_world *w)
{
    memset(w, 0, sizeof *w);
    snprintf(w->bw_root, sizeof w->bw_root, "/tmp/box-w-XXXXXX");
    assert_non_null(mkdtemp(w->bw_root));
    assert_int_equal(chmod(w->bw_root, 0755), 0);
    snprintf(w->bw_home, sizeof w->bw_home, "%s/home", w->bw_root);
    snprintf(w->bw_project, sizeof w->bw_project, "%s/src/project", w->bw_home);
    snprintf(w->bw_config, sizeof w->bw_config, "%s/cfg/box.toml", w->bw_home);
    snprintf(w->bw_policy, sizeof w->bw_policy, "%s/cfg/policy.dw", w->bw_home);
    snprintf(w->bw_agent, sizeof w->bw_agent, "%s/agent.sh", w->bw_root);
    snprintf(w->bw_state, sizeof w->bw_state, "%s/state", w->bw_root);
    world_mkdir("%s%s", w->bw_home, "");
    world_mkdir("%s%s", w->bw_home, "/cfg");
    world_mkdir("%s%s", w->bw_home, "/src");
    world_mkdir("%s%s", w->bw_project, "");
    world_mkdir("%s%s", w->bw_project, "/src");
    char p[PATH_MAX + 32];
    snprintf(p, sizeof p, "%s/src/main.rs", w->bw_project);
    box_world_put(p, "fn main() {\n    // TODO: greet the user by name\n"
                     "    println!(\"hello\");\n    // TODO: read the config\n"
                     "}\n");
    snprintf(p, sizeof p, "%s/README.md", w->bw_project);
    box_world_put(p, "# project\n");
    snprintf(p, sizeof p, "%s/.env", w->bw_project);
    box_world_put(p, "API_TOKEN=not-for-agents\n");
    world_git(w, (char *[]){"init", "-q", NULL});
    // As the quickstart's prepare.sh: its [tool.git] reads .git/hooks,
    // which must exist (git's template usually makes it).
    snprintf(p, sizeof p, "%s/.git/hooks", w->bw_project);
    assert_true(mkdir(p, 0755) == 0 || errno == EEXIST);
    world_git(w, (char *[]){"add", "README.md", "src/main.rs", NULL});
    world_git(w, (char *[]){"commit", "-q", "-m", "initial", NULL});
    char *git = NULL;
    dev_t dev;
    ino_t ino;
    assert_int_equal(box_which("git", getenv("PATH"), &git, &dev, &ino), 0);
    snprintf(w->bw_git, sizeof w->bw_git, "%s", git);
    box_free(git);
}

int
box_world_setup(void **state)
{
    box_world *w = box_alloc(sizeof *w);
    assert_non_null(w);
    box_world_make(w);
    *state = w;
    return 0;
}

int
box_world_teardown(void **state)
{
    box_world_drop(*state);
    box_free(*state);
    return 0;
}

void
box_world_drop(box_world *w)
{
    if (strncmp(w->bw_root, "/tmp/box-w-", 11) != 0)
        return;
    char *argv[] = {"/bin/rm", "-rf", w->bw_root, NULL};
    box_proc_result r;
    box_proc_run(argv, 30000, &r);
    box_proc_result_free(&r);
}

void
box_world_config(box_world *w, const char *extra)
{
    box_world_config_agent(w, "", extra);
}

void
box_world_config_agent(box_world *w, const char *agent_fs, const char *extra)
{
    box_world_config_policy(w, "policy.dw", agent_fs, extra);
}

void
box_world_config_policy(box_world *w, const char *policy_key,
                        const char *agent_fs, const char *extra)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    assert_int_equal(box_buf_printf(&b,
                                    "name = \"world\"\n"
                                    "box_dir = \"%s\"\n"
                                    "policy = \"%s\"\n"
                                    "\n"
                                    "[agent]\n"
                                    "command = [\"/bin/sh\", \"%s\"]\n"
                                    "workspace = \"%s\"\n"
                                    "%s\n"
                                    "[agent.filesystem]\n"
                                    "read_file = [\"%s\"]\n"
                                    "%s\n%s",
                                    w->bw_state, policy_key, w->bw_agent,
                                    w->bw_project,
                                    w->bw_agent_keys ? w->bw_agent_keys : "",
                                    w->bw_agent, agent_fs, extra),
                     BOX_OK);
    box_world_put(w->bw_config, b.b_data);
    box_buf_reset(&b);
}

void
box_world_policy(box_world *w, const char *text)
{
    box_world_put(w->bw_policy, text);
}

void
box_world_start(box_world *w, const char *script, box_proc *bp)
{
    char body[65536];
    snprintf(body, sizeof body, "#!/bin/sh\n%s\n", script);
    box_world_put(w->bw_agent, body);
    char log[PATH_MAX + 64];
    snprintf(log, sizeof log, "%s/private/telemetry/records.jsonl",
             w->bw_state);
    (void)unlink(log);
    char bin[PATH_MAX];
    box_proc_bin(bin, sizeof bin, "box");
    char home[PATH_MAX + 8], path[8192];
    snprintf(home, sizeof home, "HOME=%s", w->bw_home);
    const char *p = getenv("PATH");
    snprintf(path, sizeof path, "PATH=%s", p ? p : "/usr/bin:/bin");
    // Sanitizer builds: the services take the suite's options with them.
    static const char *const keep[] = {"ASAN_OPTIONS", "LSAN_OPTIONS",
                                       "UBSAN_OPTIONS"};
    char kept[3][4096];
    char *envp[2 + 3 + 8 + 1] = {home, path};
    size_t ne = 2;
    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(keep[i]);
        if (v == NULL)
            continue;
        snprintf(kept[ne - 2], sizeof kept[0], "%s=%s", keep[i], v);
        envp[ne] = kept[ne - 2];
        ne++;
    }
    for (size_t i = 0; w->bw_env != NULL && w->bw_env[i] != NULL; i++) {
        assert_true(i < 8);
        envp[ne++] = (char *)w->bw_env[i];
    }
    envp[ne] = NULL;
    char *argv[] = {(char *)w->bw_wrap, bin,          "run",
                    "--config",         w->bw_config, NULL};
    assert_true(box_proc_start(bp, w->bw_wrap ? argv : argv + 1, envp));
}

void
box_world_run(box_world *w, const char *script, box_proc_result *r)
{
    box_proc p2;
    box_world_start(w, script, &p2);
    box_proc_finish(&p2, WORLD_RUN_MS, r);
    assert_false(r->pr_timeout);
}

void
box_world_live_start(box_world *w, const char *script, box_world_live *lv)
{
    memset(lv, 0, sizeof *lv);
    box_buf_init(&lv->lv_out, 64u << 20);
    box_buf_init(&lv->lv_err, 64u << 20);
    box_world_start(w, script, &lv->lv_proc);
}

const char *
box_world_live_text(const box_world_live *lv, int stream)
{
    const box_buf *b = stream == 1 ? &lv->lv_out : &lv->lv_err;
    return b->b_len ? b->b_data : "";
}

void
box_world_live_pump(box_world_live *lv, int ms)
{
    struct pollfd fds[2] = {
        {.fd = lv->lv_out_eof ? -1 : lv->lv_proc.bp_out_fd, .events = POLLIN},
        {.fd = lv->lv_err_eof ? -1 : lv->lv_proc.bp_err_fd, .events = POLLIN},
    };
    if (lv->lv_out_eof && lv->lv_err_eof) {
        box_test_sleep_ms(ms);
        return;
    }
    if (poll(fds, 2, ms) < 0 && errno != EINTR)
        fail();
    for (int i = 0; i < 2; i++) {
        if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP)))
            continue;
        char buf[4096];
        ssize_t got = read(fds[i].fd, buf, sizeof buf);
        if (got <= 0) {
            *(i == 0 ? &lv->lv_out_eof : &lv->lv_err_eof) = true;
            continue;
        }
        assert_int_equal(box_buf_append(i == 0 ? &lv->lv_out : &lv->lv_err, buf,
                                        (size_t)got),
                         BOX_OK);
    }
}

void
box_world_live_wait(box_world_live *lv, int stream, const char *needle, int nth,
                    int ms)
{
    long long deadline = box_test_now_ms() + ms;
    for (;;) {
        int seen = 0;
        for (const char *p = box_world_live_text(lv, stream);
             (p = strstr(p, needle)) != NULL; p++)
            seen++;
        if (seen >= nth)
            return;
        long long left = deadline - box_test_now_ms();
        if (left <= 0 || (lv->lv_out_eof && lv->lv_err_eof)) {
            fprintf(stderr,
                    "waited for \"%s\" (#%d) in vain\n--- stdout\n%s--- "
                    "stderr\n%s---\n",
                    needle, nth, box_world_live_text(lv, 1),
                    box_world_live_text(lv, 2));
            fail();
        }
        box_world_live_pump(lv, (int)(left < 200 ? left : 200));
    }
}

void
box_world_live_finish(box_world_live *lv, int ms, box_proc_result *r)
{
    box_proc_result rest;
    box_proc_finish(&lv->lv_proc, ms, &rest);
    assert_false(rest.pr_timeout);
    assert_int_equal(box_buf_puts(&lv->lv_out, rest.pr_out), BOX_OK);
    assert_int_equal(box_buf_puts(&lv->lv_err, rest.pr_err), BOX_OK);
    r->pr_status = rest.pr_status;
    r->pr_timeout = false;
    box_proc_result_free(&rest);
    r->pr_out = box_strdup(box_world_live_text(lv, 1));
    r->pr_err = box_strdup(box_world_live_text(lv, 2));
    box_buf_reset(&lv->lv_out);
    box_buf_reset(&lv->lv_err);
}

char *
box_world_decisions(const box_world *w)
{
    char bin[PATH_MAX];
    box_proc_bin(bin, sizeof bin, "box");
    char *argv[] = {bin, "log", "--box-dir", (char *)w->bw_state, NULL};
    box_proc_result r;
    box_proc_run(argv, 30000, &r);
    assert_int_equal(r.pr_status, 0);
    // Squeeze the table's padding so tests compare plain words.
    char *out = box_alloc(strlen(r.pr_out) + 1);
    assert_non_null(out);
    size_t n = 0;
    for (const char *s = r.pr_out; *s; s++) {
        if (*s == ' ' && n > 0 && (out[n - 1] == ' ' || out[n - 1] == '\n'))
            continue;
        out[n++] = *s;
    }
    out[n] = '\0';
    box_proc_result_free(&r);
    return out;
}

void
box_world_expect_decisions(const box_world *w, const char *want)
{
    char *d = box_world_decisions(w);
    assert_string_equal(d, want);
    box_free(d);
}

char *
box_world_git_out(const box_world *w, char *const *args)
{
    char *argv[12] = {"/usr/bin/git", "-C", (char *)w->bw_project};
    for (size_t i = 0; args[i] != NULL && i < 8; i++)
        argv[i + 3] = args[i];
    box_proc_result r;
    box_proc_run(argv, 30000, &r);
    assert_int_equal(r.pr_status, 0);
    char *out = r.pr_out;
    r.pr_out = NULL;
    box_proc_result_free(&r);
    return out;
}
