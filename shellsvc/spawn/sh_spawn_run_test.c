/* SPDX-License-Identifier: Apache-2.0 */
/* sh_spawn_run end to end: real box-contain runs, checked from outside. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_test_require.h"
#include "sh_launcher.h"
#include "sh_spawn.h"

#define OPERATOR_PATH "/usr/bin:/bin"

/*
 * T (canonical): home/ (the operator home), ws/ (the agent workspace),
 * ws/sub/, tws/ (a tool's own workspace), in/a.txt, out/secret.txt,
 * box/state.txt (a box directory), and home/abin/hello, a script the
 * agent's exec list admits (with its interpreter and the cat it runs).
 */
typedef struct fx {
    char fx_root[PATH_MAX];
    char fx_home[PATH_MAX + 8];
    char fx_ws[PATH_MAX + 8];
    char fx_contain[PATH_MAX];
    box_config *fx_cfg;
    int fx_probe; // box-contain --probe status: 0 when every feature is there
    sh_launcher *fx_launcher; // what the broker uses: every run goes through it
} fx;

/* @ is replaced by T. */
static const char fx_toml[] =
    "name = \"t\"\n"
    "box_dir = \"/tmp/sh-spawn-run-none\"\n"
    "[tool.echo]\n"
    "command = [\"echo\"]\n"
    "[tool.sh]\n"
    "command = [\"sh\"]\n"
    "[tool.sh.filesystem]\n"
    "exec = [\"/usr/bin/sleep\"]\n"
    "[tool.cat]\n"
    "command = [\"cat\"]\n"
    "[tool.cat.filesystem]\n"
    "read = [\"@/in\"]\n"
    "[tool.env]\n"
    "command = [\"env\"]\n"
    "env = { FOO = \"bar\", PATH = \"/opt/x:/usr/bin\" }\n"
    "[tool.envhome]\n"
    "command = [\"env\", \"-u\", \"FOO\"]\n"
    "env = { LANG = \"C\", HOME = \"@/ws\" }\n"
    "[tool.pwd]\n"
    "command = [\"pwd\"]\n"
    "[tool.pwd.filesystem]\n"
    "list = [\"@/in\"]\n"
    "[tool.pwdws]\n"
    "command = [\"pwd\", \"-P\"]\n"
    "workspace = \"@/tws\"\n"
    "[tool.head]\n"
    "command = [\"head\"]\n"
    "[tool.head.filesystem]\n"
    "read = [\"@\"]\n"
    "[tool.sleep]\n"
    "command = [\"sleep\"]\n"
    "[agent]\n"
    "command = [\"/bin/true\"]\n"
    "[agent.filesystem]\n"
    "exec = [\"~/abin\", \"/usr/bin/dash\", \"/usr/bin/cat\"]\n"
    "read_file = [\"@/in/a.txt\"]\n";

static char *
subst(const char *tmpl, const char *root)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    for (const char *c = tmpl; *c != '\0'; c++) {
        box_err rv = *c == '@' ? box_buf_puts(&b, root) : box_buf_putc(&b, *c);
        assert_int_equal(rv, BOX_OK);
    }
    return box_buf_take(&b);
}

static void
write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* box-contain --probe, quietly: its status says whether sandboxes work. */
static int
probe(const char *contain)
{
    posix_spawn_file_actions_t fa;
    char *argv[] = {(char *)contain, "--probe", NULL};
    extern char **environ;
    pid_t pid;
    int ws;

    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (posix_spawn(&pid, contain, &fa, NULL, argv, environ) != 0)
        return -1;
    posix_spawn_file_actions_destroy(&fa);
    if (waitpid(pid, &ws, 0) != pid || !WIFEXITED(ws))
        return -1;
    return WEXITSTATUS(ws);
}

static int
setup(void **state)
{
    const char *dir = getenv("BOX_BUILD_DIR");
    fx *f = box_calloc(1, sizeof *f);
    char tmpl[] = "/tmp/sh_spawn_run.XXXXXX", p[PATH_MAX * 2];
    static const char *const dirs[] = {"home", "home/abin", "ws",  "ws/sub",
                                       "tws",  "in",        "out", "box"};

    if (dir == NULL) {
        fprintf(stderr, "BOX_BUILD_DIR is not set (run through ctest)\n");
        return -1;
    }
    if (f == NULL || mkdtemp(tmpl) == NULL ||
        realpath(tmpl, f->fx_root) == NULL)
        return -1;
    snprintf(f->fx_contain, sizeof f->fx_contain, "%s/bin/box-contain", dir);
    snprintf(f->fx_home, sizeof f->fx_home, "%s/home", f->fx_root);
    snprintf(f->fx_ws, sizeof f->fx_ws, "%s/ws", f->fx_root);
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(p, sizeof p, "%s/%s", f->fx_root, dirs[i]);
        if (mkdir(p, 0755) != 0)
            return -1;
    }
    snprintf(p, sizeof p, "%s/in/a.txt", f->fx_root);
    write_file(p, "hello\n");
    snprintf(p, sizeof p, "%s/out/secret.txt", f->fx_root);
    write_file(p, "secret\n");
    snprintf(p, sizeof p, "%s/box/state.txt", f->fx_root);
    write_file(p, "box state\n");
    char script[PATH_MAX * 3];
    snprintf(p, sizeof p, "%s/home/abin/hello", f->fx_root);
    snprintf(script, sizeof script,
             "#!/bin/sh\necho agent\ncat %s/in/a.txt %s/out/secret.txt\n",
             f->fx_root, f->fx_root);
    write_file(p, script);
    if (chmod(p, 0755) != 0)
        return -1;

    char *text = subst(fx_toml, f->fx_root), *err = NULL;
    snprintf(p, sizeof p, "%s/box.toml", f->fx_root);
    box_err rv = box_config_parse(text, strlen(text), p, &f->fx_cfg, &err);
    box_free(text);
    if (rv != BOX_OK) {
        fprintf(stderr, "config: %s\n", err != NULL ? err : "?");
        box_free(err);
        return -1;
    }
    f->fx_probe = probe(f->fx_contain);
    if (sh_launcher_start(&f->fx_launcher) != BOX_OK) {
        fprintf(stderr, "cannot start the launcher\n");
        return -1;
    }
    *state = f;
    return 0;
}

static int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int
teardown(void **state)
{
    fx *f = *state;
    int rv = nftw(f->fx_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    sh_launcher_stop(f->fx_launcher);
    box_config_free(f->fx_cfg);
    box_free(f);
    return rv;
}

static void
need_sandbox(const fx *f)
{
    if (f->fx_probe != 0)
        box_test_missing("a kernel feature box-contain --probe reports "
                         "(status %d)",
                         f->fx_probe);
}

/* What a run handed back. */
typedef struct got {
    box_buf g_out;
    box_buf g_err;
    int g_status;
    box_err g_rv;
    char *g_msg;
    int g_stops; // times ro_stop was asked
} got;

static void
collect(void *ctx, int fd, const char *data, size_t len)
{
    got *g = ctx;
    assert_true(fd == 1 || fd == 2);
    assert_int_equal(box_buf_append(fd == 1 ? &g->g_out : &g->g_err, data, len),
                     BOX_OK);
}

static void
got_free(got *g)
{
    box_buf_reset(&g->g_out);
    box_buf_reset(&g->g_err);
    box_free(g->g_msg);
}

static const char *
text(box_buf *b)
{
    return b->b_len > 0 ? b->b_data : "";
}

/* Locates argv[0] on OPERATOR_PATH, selects, runs with o (cwd, workspace,
 * contain and the collector filled in when unset). */
static void
run_with(fx *f, char *const *argv, sh_spawn_run_opts *o, got *g)
{
    sh_spawn_found prog;
    sh_spawn_plan *plan = NULL;
    char *msg = NULL;
    int argc = 0;

    memset(g, 0, sizeof *g);
    box_buf_init(&g->g_out, 16u << 20);
    box_buf_init(&g->g_err, 16u << 20);
    while (argv[argc] != NULL)
        argc++;
    assert_int_equal(sh_spawn_locate(OPERATOR_PATH, f->fx_ws, argv[0], &prog),
                     0);
    box_err rv = sh_spawn_select(f->fx_cfg, OPERATOR_PATH, f->fx_home, &prog,
                                 argc, argv, &plan, &msg);
    if (rv != BOX_OK)
        print_message("select: %s\n", msg != NULL ? msg : "?");
    assert_int_equal(rv, BOX_OK);
    if (o->ro_contain == NULL)
        o->ro_contain = f->fx_contain;
    if (o->ro_cwd == NULL)
        o->ro_cwd = f->fx_ws;
    if (o->ro_workspace == NULL)
        o->ro_workspace = f->fx_ws;
    o->ro_launcher = f->fx_launcher;
    o->ro_write = collect;
    o->ro_ctx = g;
    g->g_rv = sh_spawn_run(plan, o, &g->g_status, &g->g_msg);
    if (g->g_err.b_len > 0)
        print_message("  [stderr] %s", text(&g->g_err));
    sh_spawn_plan_free(plan);
    sh_spawn_found_free(&prog);
}

static void
run(fx *f, char *const *argv, got *g)
{
    sh_spawn_run_opts o = {.ro_stdin = -1};
    run_with(f, argv, &o, g);
}

#define ARGV(...) ((char *const[]){__VA_ARGS__, NULL})

static void
test_echo(void **state)
{
    fx *f = *state;
    got g;

    need_sandbox(f);
    run(f, ARGV("echo", "hi"), &g);
    assert_int_equal(g.g_rv, BOX_OK);
    assert_int_equal(g.g_status, 0);
    assert_string_equal(text(&g.g_out), "hi\n");
    assert_string_equal(text(&g.g_err), "");
    got_free(&g);
    // argv[0] is the caller's spelling made absolute.
    run(f, ARGV("sh", "-c", "echo \"$0\""), &g);
    assert_int_equal(g.g_status, 0);
    assert_string_equal(text(&g.g_out), "/usr/bin/sh\n");
    got_free(&g);
}

static void
test_statuses(void **state)
{
    fx *f = *state;
    got g;

    need_sandbox(f);
    run(f, ARGV("sh", "-c", "exit 7"), &g);
    assert_int_equal(g.g_rv, BOX_OK);
    assert_int_equal(g.g_status, 7);
    got_free(&g);
    run(f, ARGV("sh", "-c", "kill -TERM $$"), &g);
    assert_int_equal(g.g_rv, BOX_OK);
    assert_int_equal(g.g_status, 128 + 15);
    got_free(&g);
    run(f, ARGV("sh", "-c", "kill -KILL $$"), &g);
    assert_int_equal(g.g_status, 128 + 9);
    got_free(&g);
}

static void
test_streams_separate(void **state)
{
    fx *f = *state;
    got g;

    need_sandbox(f);
    run(f, ARGV("sh", "-c", "echo out; echo err >&2; echo out2"), &g);
    assert_int_equal(g.g_status, 0);
    assert_string_equal(text(&g.g_out), "out\nout2\n");
    assert_string_equal(text(&g.g_err), "err\n");
    got_free(&g);
}

static void
test_fs_lists(void **state)
{
    fx *f = *state;
    char in[PATH_MAX * 2], out[PATH_MAX * 2];
    got g;

    need_sandbox(f);
    snprintf(in, sizeof in, "%s/in/a.txt", f->fx_root);
    snprintf(out, sizeof out, "%s/out/secret.txt", f->fx_root);
    run(f, ARGV("cat", in), &g);
    assert_int_equal(g.g_status, 0);
    assert_string_equal(text(&g.g_out), "hello\n");
    got_free(&g);
    run(f, ARGV("cat", out), &g);
    assert_int_equal(g.g_rv, BOX_OK);
    assert_int_equal(g.g_status, 1);
    assert_string_equal(text(&g.g_out), "");
    assert_non_null(strstr(text(&g.g_err), "Permission denied"));
    got_free(&g);
    // The same file is unreadable to a tool with no lists at all.
    run(f, ARGV("sh", "-c", "read line < \"$1\"", "sh", in), &g);
    assert_int_not_equal(g.g_status, 0);
    got_free(&g);
}

static void
test_stdin(void **state)
{
    fx *f = *state;
    char in[PATH_MAX * 2];
    sh_spawn_run_opts o = {.ro_stdin = -1};
    got g;

    need_sandbox(f);
    run(f, ARGV("cat"), &g); // /dev/null
    assert_int_equal(g.g_status, 0);
    assert_string_equal(text(&g.g_out), "");
    got_free(&g);
    // An open descriptor is handed over as is; the sandbox is about names.
    snprintf(in, sizeof in, "%s/out/secret.txt", f->fx_root);
    o.ro_stdin = open(in, O_RDONLY | O_CLOEXEC);
    assert_true(o.ro_stdin >= 0);
    run_with(f, ARGV("cat"), &o, &g);
    assert_int_equal(g.g_status, 0);
    assert_string_equal(text(&g.g_out), "secret\n");
    close(o.ro_stdin);
    got_free(&g);
}

static void
test_env(void **state)
{
    fx *f = *state;
    char want[PATH_MAX * 4];
    got g;

    need_sandbox(f);
    run(f, ARGV("env"), &g);
    assert_int_equal(g.g_status, 0);
    snprintf(want, sizeof want,
             "HOME=%s\nFOO=bar\nPWD=%s\nUSER=strands-box\n"
             "PATH=/opt/x:/usr/bin\n",
             f->fx_home, f->fx_ws);
    assert_string_equal(text(&g.g_out), want);
    got_free(&g);
    // The spec's HOME replaces the default in its place, first, wherever
    // the table wrote it (§5); PATH is the operator's.
    run(f, ARGV("env", "-u", "FOO"), &g);
    assert_int_equal(g.g_status, 0);
    snprintf(want, sizeof want,
             "HOME=%s\nLANG=C\nPWD=%s\nUSER=strands-box\nPATH=%s\n", f->fx_ws,
             f->fx_ws, OPERATOR_PATH);
    assert_string_equal(text(&g.g_out), want);
    got_free(&g);
}

static void
test_cwd(void **state)
{
    fx *f = *state;
    char dir[PATH_MAX * 2], want[PATH_MAX * 3];
    sh_spawn_run_opts o = {.ro_stdin = -1};
    got g;

    need_sandbox(f);
    // Inside the agent workspace: kept.
    snprintf(dir, sizeof dir, "%s/ws/sub", f->fx_root);
    o.ro_cwd = dir;
    run_with(f, ARGV("pwd"), &o, &g);
    snprintf(want, sizeof want, "%s\n", dir);
    assert_string_equal(text(&g.g_out), want);
    got_free(&g);
    // Inside a tree the tool's lists name: kept.
    snprintf(dir, sizeof dir, "%s/in", f->fx_root);
    o = (sh_spawn_run_opts){.ro_stdin = -1, .ro_cwd = dir};
    run_with(f, ARGV("pwd"), &o, &g);
    snprintf(want, sizeof want, "%s\n", dir);
    assert_string_equal(text(&g.g_out), want);
    got_free(&g);
    // Elsewhere: the agent workspace.
    snprintf(dir, sizeof dir, "%s/out", f->fx_root);
    o = (sh_spawn_run_opts){.ro_stdin = -1, .ro_cwd = dir};
    run_with(f, ARGV("pwd"), &o, &g);
    snprintf(want, sizeof want, "%s\n", f->fx_ws);
    assert_string_equal(text(&g.g_out), want);
    got_free(&g);
    // Elsewhere, for a tool with its own workspace: that one.
    o = (sh_spawn_run_opts){.ro_stdin = -1, .ro_cwd = dir};
    run_with(f, ARGV("pwd", "-P"), &o, &g);
    snprintf(want, sizeof want, "%s/tws\n", f->fx_root);
    assert_string_equal(text(&g.g_out), want);
    got_free(&g);
}

/* Interface names from /proc/net/dev (the sandbox's own procfs). */
static void
test_network_only_lo(void **state)
{
    fx *f = *state;
    got g;

    need_sandbox(f);
    run(f, ARGV("cat", "/proc/net/dev"), &g);
    assert_int_equal(g.g_status, 0);
    size_t ifaces = 0;
    const char *line = text(&g.g_out);
    for (int n = 0; *line != '\0'; n++) {
        const char *nl = strchr(line, '\n');
        const char *colon = strchr(line, ':');
        if (n >= 2 && colon != NULL && (nl == NULL || colon < nl)) {
            while (*line == ' ')
                line++;
            assert_int_equal(colon - line, 2);
            assert_memory_equal(line, "lo", 2);
            ifaces++;
        }
        if (nl == NULL)
            break;
        line = nl + 1;
    }
    assert_int_equal(ifaces, 1);
    got_free(&g);
}

static void
test_output_cap(void **state)
{
    fx *f = *state;
    sh_spawn_run_opts o = {.ro_stdin = -1, .ro_max_output = 4096};
    got g;

    need_sandbox(f);
    run_with(f, ARGV("head", "-c", "1000000", "/dev/zero"), &o, &g);
    assert_int_equal(g.g_rv, BOX_ETOOBIG);
    assert_int_equal(g.g_status, 1);
    assert_int_equal(g.g_out.b_len, 4096);
    assert_string_equal(g.g_msg, "the program's standard output passed the "
                                 "capture limit of 4096 bytes, so the "
                                 "program was stopped");
    got_free(&g);
    // Exactly at the cap is fine.
    o = (sh_spawn_run_opts){.ro_stdin = -1, .ro_max_output = 4096};
    run_with(f, ARGV("head", "-c", "4096", "/dev/zero"), &o, &g);
    assert_int_equal(g.g_rv, BOX_OK);
    assert_int_equal(g.g_status, 0);
    assert_int_equal(g.g_out.b_len, 4096);
    got_free(&g);
}

static long
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

static void
test_timeout(void **state)
{
    fx *f = *state;
    // The deadline leaves a sandbox start room on a loaded sanitizer build
    // (300 ms did not always: "started" never came).
    sh_spawn_run_opts o = {.ro_stdin = -1, .ro_timeout_ms = 1500};
    got g;

    need_sandbox(f);
    long t0 = now_ms();
    run_with(f, ARGV("sh", "-c", "echo started; exec sleep 20"), &o, &g);
    long took = now_ms() - t0;
    assert_int_equal(g.g_rv, BOX_ETIMEDOUT);
    assert_int_equal(g.g_status, 1);
    assert_string_equal(g.g_msg, SH_SPAWN_TIMEOUT_MSG);
    assert_string_equal(text(&g.g_out), "started\n");
    assert_true(took >= 1500 && took < 6500);
    got_free(&g);
    // A background child does not outlive the run or hold its pipes.
    o = (sh_spawn_run_opts){.ro_stdin = -1, .ro_timeout_ms = 10000};
    t0 = now_ms();
    run_with(f, ARGV("sh", "-c", "sleep 20 & echo bg"), &o, &g);
    assert_int_equal(g.g_rv, BOX_OK);
    assert_int_equal(g.g_status, 0);
    assert_string_equal(text(&g.g_out), "bg\n");
    assert_true(now_ms() - t0 < 5000);
    got_free(&g);
}

/* Says stop on the fifth question (about half a second in). */
static bool
stop_soon(void *ctx)
{
    got *g = ctx;
    return ++g->g_stops >= 5;
}

/* The caller's call ends (its deadline, or the call returned while this
 * was a background job): the run is killed at once, long before its own
 * deadline, what it printed is still relayed, and no message is made. */
static void
test_stop(void **state)
{
    fx *f = *state;
    sh_spawn_run_opts o = {
        .ro_stdin = -1, .ro_timeout_ms = 20000, .ro_stop = stop_soon};
    got g;

    need_sandbox(f);
    long t0 = now_ms();
    run_with(f, ARGV("sh", "-c", "echo started; exec sleep 20"), &o, &g);
    long took = now_ms() - t0;
    assert_int_equal(g.g_rv, BOX_ECANCELED);
    assert_int_equal(g.g_status, 1);
    assert_null(g.g_msg);
    assert_string_equal(text(&g.g_out), "started\n");
    assert_true(g.g_stops >= 5);
    assert_true(took < 5000);
    got_free(&g);
}

/* The agent's own spec: its exec list (`~` is the operator home) runs the
 * script, its read_file grant is all it reads. */
static void
test_agent_spec(void **state)
{
    fx *f = *state;
    char prog[PATH_MAX * 2];
    got g;

    need_sandbox(f);
    snprintf(prog, sizeof prog, "%s/abin/hello", f->fx_home);
    run(f, ARGV(prog), &g);
    assert_int_equal(g.g_rv, BOX_OK);
    assert_int_equal(g.g_status, 1);
    assert_string_equal(text(&g.g_out), "agent\nhello\n");
    assert_non_null(strstr(text(&g.g_err), "secret.txt: Permission denied"));
    got_free(&g);
}

/*
 * A tool executes its own program and its `exec` list, nothing else on
 * the host: [tool.sh] lists sleep, so env is refused by the kernel.
 */
static void
test_tool_exec_list(void **state)
{
    fx *f = *state;
    got g;

    need_sandbox(f);
    run(f, ARGV("sh", "-c", "sleep 0 && echo slept; /usr/bin/env; echo $?"),
        &g);
    assert_int_equal(g.g_rv, BOX_OK);
    assert_int_equal(g.g_status, 0);
    assert_string_equal(text(&g.g_out), "slept\n126\n");
    assert_non_null(strstr(text(&g.g_err), "/usr/bin/env: Permission denied"));
    got_free(&g);
}

/* The box directory is hidden whole, even under a tool's own grant. */
static void
test_box_dir_hidden(void **state)
{
    fx *f = *state;
    char box[PATH_MAX * 2], file[PATH_MAX * 3];
    got g;

    need_sandbox(f);
    snprintf(box, sizeof box, "%s/box", f->fx_root);
    snprintf(file, sizeof file, "%s/state.txt", box);
    run(f, ARGV("head", file), &g);
    assert_int_equal(g.g_status, 0);
    assert_string_equal(text(&g.g_out), "box state\n");
    got_free(&g);
    sh_spawn_run_opts o = {.ro_stdin = -1, .ro_box_dir = box};
    run_with(f, ARGV("head", file), &o, &g);
    assert_int_equal(g.g_rv, BOX_OK);
    assert_int_equal(g.g_status, 1);
    assert_string_equal(text(&g.g_out), "");
    assert_non_null(strstr(text(&g.g_err), "No such file or directory"));
    got_free(&g);
}

static void
test_no_spawner(void **state)
{
    fx *f = *state;
    sh_spawn_run_opts o = {.ro_stdin = -1,
                           .ro_contain = "/nonexistent/box-contain"};
    got g;

    run_with(f, ARGV("echo", "hi"), &o, &g);
    assert_int_equal(g.g_rv, BOX_EIO);
    assert_int_equal(g.g_status, 126);
    assert_string_equal(g.g_msg, "host-binary execution requires a contained "
                                 "spawner; none is installed");
    assert_int_equal(g.g_out.b_len, 0);
    got_free(&g);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_echo),
        cmocka_unit_test(test_statuses),
        cmocka_unit_test(test_streams_separate),
        cmocka_unit_test(test_fs_lists),
        cmocka_unit_test(test_stdin),
        cmocka_unit_test(test_env),
        cmocka_unit_test(test_cwd),
        cmocka_unit_test(test_network_only_lo),
        cmocka_unit_test(test_output_cap),
        cmocka_unit_test(test_timeout),
        cmocka_unit_test(test_stop),
        cmocka_unit_test(test_agent_spec),
        cmocka_unit_test(test_tool_exec_list),
        cmocka_unit_test(test_box_dir_hidden),
        cmocka_unit_test(test_no_spawner),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
