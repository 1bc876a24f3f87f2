/* SPDX-License-Identifier: Apache-2.0 */
/* From inside a worker, confined exactly as box-shell's are (the real
 * zygote, the real profile; only the body is the test's): what the OS
 * refuses, not what our own checks refuse. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_testutil.h"
#include "worker_pool.h"

/* T: home/ (operator home), home/ws (workspace), home/cfg/box.toml and
 * policy.dw (authority), home/box (the box dir, with private/x and a
 * listening socket private/pdp.sock), out/secret (outside every bind). */
typedef struct fx {
    char fx_root[PATH_MAX];
    char fx_home[PATH_MAX + 16], fx_ws[PATH_MAX + 16], fx_box[PATH_MAX + 16];
    char fx_toml[PATH_MAX + 32], fx_policy[PATH_MAX + 32];
    char fx_secret[PATH_MAX + 32], fx_sock[PATH_MAX + 32];
    const char *fx_auth[2];
    worker_settings fx_set;
    int fx_listen;
} fx;

static fx *probe_fx; // the probe body reads its paths (fork copies it)

static int
setup(void **state)
{
    char tmpl[] = "/tmp/worker_confine.XXXXXX", p[PATH_MAX * 2];
    fx *f = box_calloc(1, sizeof *f);
    if (f == NULL || mkdtemp(tmpl) == NULL ||
        realpath(tmpl, f->fx_root) == NULL)
        return -1;
    static const char *const dirs[] = {
        "home", "home/ws", "home/cfg", "home/box", "home/box/private", "out"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", f->fx_root, dirs[i]);
        if (mkdir(p, 0700) != 0)
            return -1;
    }
    snprintf(f->fx_home, sizeof f->fx_home, "%s/home", f->fx_root);
    snprintf(f->fx_ws, sizeof f->fx_ws, "%s/home/ws", f->fx_root);
    snprintf(f->fx_box, sizeof f->fx_box, "%s/home/box", f->fx_root);
    snprintf(f->fx_toml, sizeof f->fx_toml, "%s/home/cfg/box.toml", f->fx_root);
    snprintf(f->fx_policy, sizeof f->fx_policy, "%s/home/cfg/policy.dw",
             f->fx_root);
    snprintf(f->fx_secret, sizeof f->fx_secret, "%s/out/secret", f->fx_root);
    snprintf(f->fx_sock, sizeof f->fx_sock, "%s/home/box/private/pdp.sock",
             f->fx_root);
    box_test_put(f->fx_toml, "name = \"t\"\n");
    box_test_put(f->fx_policy, "permit (principal, action, resource);\n");
    box_test_put(f->fx_secret, "secret\n");
    snprintf(p, sizeof p, "%s/x", f->fx_box);
    box_test_put(p, "box state\n");
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(f->fx_sock) >= sizeof sa.sun_path)
        return -1;
    memcpy(sa.sun_path, f->fx_sock, strlen(f->fx_sock) + 1);
    f->fx_listen = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (f->fx_listen < 0 ||
        bind(f->fx_listen, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(f->fx_listen, 4) != 0)
        return -1;
    f->fx_auth[0] = f->fx_toml;
    f->fx_auth[1] = f->fx_policy;
    f->fx_set = (worker_settings){.ws_box_dir = f->fx_box,
                                  .ws_operator_home = f->fx_home,
                                  .ws_agent_home = f->fx_home,
                                  .ws_workspace = f->fx_ws,
                                  .ws_trusted_path = "/usr/bin:/bin",
                                  .ws_authority = f->fx_auth,
                                  .ws_nauthority = 2};
    probe_fx = f;
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    fx *f = *state;
    close(f->fx_listen);
    box_test_rmtree(f->fx_root);
    box_free(f);
    return 0;
}

/* One probe's result: "name=ok" when it worked, "name=<errno name>" when
 * refused, "name=read:<text>" for what a read got. */
static void
say(int chan, const char *name, int rc)
{
    char line[256];
    int n = snprintf(line, sizeof line, "%s=%s\n", name,
                     rc == 0 ? "ok" : strerrorname_np(rc));
    (void)!write(chan, line, (size_t)n);
}

static void
say_read(int chan, const char *name, const char *path)
{
    char buf[64] = "", line[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        say(chan, name, errno);
        return;
    }
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    for (char *c = buf; *c; c++)
        if (*c == '\n')
            *c = ' ';
    int k = snprintf(line, sizeof line, "%s=read:%s\n", name, buf);
    (void)!write(chan, line, (size_t)k);
}

/* The test's worker body: each probe in turn, one line each. */
static int
probe_body(int chan, int fds, const worker_settings *ws)
{
    (void)fds;
    (void)ws;
    fx *f = probe_fx;
    char p[PATH_MAX * 2];
    say_read(chan, "policy", f->fx_policy);
    say_read(chan, "toml", f->fx_toml);
    snprintf(p, sizeof p, "%s/x", f->fx_box);
    say_read(chan, "boxdir", p);
    say_read(chan, "secret", f->fx_secret);
    snprintf(p, sizeof p, "%s/ok.txt", f->fx_ws);
    int fd = open(p, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    say(chan, "ws_write", fd >= 0 ? 0 : errno);
    if (fd >= 0)
        close(fd);
    char *argv[] = {"/bin/true", NULL}, *envp[] = {NULL};
    execve(argv[0], argv, envp);
    say(chan, "execve", errno);
    int s = socket(AF_INET, SOCK_STREAM, 0);
    say(chan, "inet", s >= 0 ? 0 : errno);
    if (s >= 0)
        close(s);
    s = socket(AF_UNIX, SOCK_STREAM, 0);
    int rc = s < 0 ? errno : 0;
    if (s >= 0) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        memcpy(sa.sun_path, f->fx_sock,
               strlen(f->fx_sock) + 1); // setup checked
        rc = connect(s, (struct sockaddr *)&sa, sizeof sa) == 0 ? 0 : errno;
        close(s);
    }
    say(chan, "pdp_connect", rc);
    say(chan, "ptrace",
        ptrace(PTRACE_ATTACH, getppid(), NULL, NULL) == 0 ? 0 : errno);
    say(chan, "env", environ != NULL && environ[0] != NULL ? EEXIST : 0);
    say(chan, "unshare", unshare(CLONE_NEWUSER) == 0 ? 0 : errno);
    say(chan, "mount",
        mount("none", f->fx_ws, "tmpfs", 0, NULL) == 0 ? 0 : errno);
    say(chan, "kill_parent", kill(getppid(), 0) == 0 ? 0 : errno);
    say(chan, "kill_self", kill(getpid(), 0) == 0 ? 0 : errno);
    pid_t child = fork();
    if (child == 0)
        _exit(0);
    say(chan, "fork", child > 0 ? 0 : errno);
    say(chan, "setpgid", setpgid(0, 0) == 0 ? 0 : errno);
    int sv[2];
    say(chan, "socketpair",
        socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 ? 0 : errno);
    char cwd[PATH_MAX] = "";
    say(chan, "cwd_root",
        getcwd(cwd, sizeof cwd) != NULL && strcmp(cwd, "/") == 0 ? 0 : EXDEV);
    return 0;
}

/* Runs the probes in one worker; returns what it said (caller frees). */
static char *
probe_worker(fx *f)
{
    worker_limits lim = {.wl_settings = &f->fx_set, .wl_body = probe_body};
    worker_pool *pool = NULL;
    assert_int_equal(worker_pool_start(&lim, &pool), BOX_OK);
    worker_ends we;
    assert_int_equal(worker_pool_spawn(pool, &we), BOX_OK);
    char *out = box_calloc(1, 4096);
    size_t got = 0;
    ssize_t n;
    while ((n = read(we.we_chan, out + got, 4095 - got)) > 0)
        got += (size_t)n;
    int ws = 0;
    assert_int_equal(worker_pool_wait(we.we_status, 10000, &ws), BOX_OK);
    close(we.we_chan);
    close(we.we_fds);
    close(we.we_status);
    worker_pool_stop(pool);
    print_message("%s", out);
    return out;
}

static void
expect(const char *out, const char *line)
{
    if (strstr(out, line) == NULL)
        fail_msg("the worker did not say `%s`", line);
}

static void
test_worker_refused_by_the_os(void **state)
{
    fx *f = *state;
    char *out = probe_worker(f);
    // box.toml and the policy are empty stand-ins, the box dir an empty
    // cover; the rest is Landlock and seccomp, not our checks.
    static const char *const want[] = {
        "policy=read:\n",      "toml=read:\n",
        "boxdir=ENOENT\n",     "secret=EACCES\n",
        "ws_write=ok\n",       "execve=EPERM\n",
        "inet=EPERM\n",        "pdp_connect=EPERM\n",
        "ptrace=EPERM\n",      "env=ok\n",
        "unshare=EPERM\n",     "mount=EPERM\n",
        "kill_parent=EPERM\n", "kill_self=ok\n",
        "fork=EPERM\n",        "setpgid=EPERM\n",
        "socketpair=EPERM\n",  "cwd_root=ok\n",
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        expect(out, want[i]);
    box_free(out);
}

/* One call's wait status from pool (its output read and dropped). */
static int
one_call(worker_pool *pool)
{
    worker_ends we;
    assert_int_equal(worker_pool_spawn(pool, &we), BOX_OK);
    char buf[4096];
    while (read(we.we_chan, buf, sizeof buf) > 0)
        ;
    int ws = 0;
    assert_int_equal(worker_pool_wait(we.we_status, 10000, &ws), BOX_OK);
    close(we.we_chan);
    close(we.we_fds);
    close(we.we_status);
    return ws;
}

/* A policy saved in place keeps its cover; one renamed over it takes the
 * cover off, and the zygote then starts no worker, saying why. */
static void
test_cover_lost(void **state)
{
    fx *f = *state;
    worker_limits lim = {.wl_settings = &f->fx_set, .wl_body = probe_body};
    worker_pool *pool = NULL;
    char tmp[PATH_MAX + 48];

    assert_int_equal(worker_pool_start(&lim, &pool), BOX_OK);
    int ws = one_call(pool);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    box_test_put(f->fx_policy, "permit (principal, action, resource);\n"
                               "// saved in place\n");
    ws = one_call(pool);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    snprintf(tmp, sizeof tmp, "%s.new", f->fx_policy);
    box_test_put(tmp, "forbid (principal, action, resource);\n");
    assert_int_equal(rename(tmp, f->fx_policy), 0);
    for (int i = 0; i < 2; i++)
        assert_int_equal(one_call(pool), WORKER_COVER_LOST);
    worker_pool_stop(pool);
    box_test_put(f->fx_policy, "permit (principal, action, resource);\n");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worker_refused_by_the_os),
        cmocka_unit_test(test_cover_lost),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
