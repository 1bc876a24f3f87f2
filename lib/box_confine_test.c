/* SPDX-License-Identifier: Apache-2.0 */
/* box_proc_confine and the service profiles, each applied in a forked
 * child that then tries what the profile must refuse: the kernel, not our
 * code, says no (EACCES from Landlock, EPERM from seccomp). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_confine_profile.h"

extern char **environ;

/*
 * A scratch tree T: home/ (the operator home, with a secret and, for one
 * case, the policy), cfg/ (the policy's own directory), run/ and private/
 * (socket directories, a box directory's), log/ (the decision log).
 */
typedef struct fx {
    char fx_root[PATH_MAX];
    char fx_home[PATH_MAX + 16];
    char fx_secret[PATH_MAX + 32];
} fx;

static const char *const fx_dirs[] = {"home",    "cfg", "run",
                                      "private", "log", "trust"};
static const char *const fx_files[] = {"home/secret", "home/policy.dw",
                                       "cfg/policy.dw", "cfg/other",
                                       "trust/cert.pem"};

static void
fx_path(const fx *f, const char *rel, char *out, size_t n)
{
    int k = snprintf(out, n, "%s/%s", f->fx_root, rel);
    assert_true(k > 0 && (size_t)k < n);
}

static int
setup(void **state)
{
    fx *f = box_calloc(1, sizeof *f);
    char tmpl[] = "/tmp/box-confine-XXXXXX";
    char p[PATH_MAX + 64];

    assert_non_null(f);
    assert_non_null(mkdtemp(tmpl));
    assert_non_null(realpath(tmpl, f->fx_root));
    for (size_t i = 0; i < sizeof fx_dirs / sizeof *fx_dirs; i++) {
        fx_path(f, fx_dirs[i], p, sizeof p);
        assert_int_equal(mkdir(p, 0700), 0);
    }
    for (size_t i = 0; i < sizeof fx_files / sizeof *fx_files; i++) {
        fx_path(f, fx_files[i], p, sizeof p);
        int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, "x\n", 2), 2);
        close(fd);
    }
    fx_path(f, "home", f->fx_home, sizeof f->fx_home);
    fx_path(f, "home/secret", f->fx_secret, sizeof f->fx_secret);
    *state = f;
    return 0;
}

/* Removes what a child may have made (sockets, the log, and what a
 * refusal should have kept from being made). */
static void
fx_clean(const fx *f)
{
    static const char *const made[] = {"run/a.sock",        "private/b.sock",
                                       "log/records.jsonl", "cfg/new",
                                       "cfg/c.sock",        "home/x.sock"};
    char p[PATH_MAX + 64];

    for (size_t i = 0; i < sizeof made / sizeof *made; i++) {
        fx_path(f, made[i], p, sizeof p);
        (void)unlink(p);
    }
}

static int
teardown(void **state)
{
    fx *f = *state;
    char p[PATH_MAX + 64];

    fx_clean(f);
    for (size_t i = sizeof fx_files / sizeof *fx_files; i-- > 0;) {
        fx_path(f, fx_files[i], p, sizeof p);
        (void)unlink(p);
    }
    for (size_t i = sizeof fx_dirs / sizeof *fx_dirs; i-- > 0;) {
        fx_path(f, fx_dirs[i], p, sizeof p);
        assert_int_equal(rmdir(p), 0);
    }
    assert_int_equal(rmdir(f->fx_root), 0);
    box_free(f);
    return 0;
}

/* ------------------------------------------------------------------ */
/* The child's checks: each failure is one line on the report pipe.     */
/* ------------------------------------------------------------------ */

typedef struct probe {
    int pr_fd; // the report pipe's write end
    const fx *pr_fx;
} probe;

/* rc is a syscall's result: want_errno 0 wants success, else that error. */
static void
expect(const probe *p, const char *what, long rc, int want_errno)
{
    int e = errno;
    if (want_errno == 0 && rc >= 0)
        return;
    if (want_errno != 0 && rc < 0 && e == want_errno)
        return;
    dprintf(p->pr_fd, "%s: got %ld (%s), want %s\n", what, rc,
            rc < 0 ? strerror(e) : "success",
            want_errno ? strerror(want_errno) : "success");
}

static long
try_open(const probe *p, const char *rel, int flags)
{
    char path[PATH_MAX + 64];
    fx_path(p->pr_fx, rel, path, sizeof path);
    int fd = open(path, flags | O_CLOEXEC, 0600);
    int e = errno;
    if (fd >= 0)
        close(fd);
    errno = e;
    return fd;
}

/* Binds a Unix socket at T/rel. */
static long
try_bind(const probe *p, const char *rel)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    fx_path(p->pr_fx, rel, sa.sun_path, sizeof sa.sun_path);
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (s < 0)
        return -1;
    int rc = bind(s, (struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    close(s);
    errno = e;
    return rc;
}

static long
try_exec(void)
{
    char *argv[] = {"/bin/true", NULL};
    return execve("/bin/true", argv, environ);
}

static long
try_socket(int family)
{
    int s = socket(family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int e = errno;
    if (s >= 0)
        close(s);
    errno = e;
    return s;
}

/* What no profile lets through: the home, the real $HOME, running a
 * program, ptrace of another process. */
static void
expect_common_refusals(const probe *p, const char *real_home)
{
    expect(p, "open home/secret", try_open(p, "home/secret", O_RDONLY), EACCES);
    if (real_home != NULL)
        expect(p, "open $HOME", open(real_home, O_RDONLY | O_DIRECTORY),
               EACCES);
    expect(p, "execve /bin/true", try_exec(), EACCES);
    expect(p, "ptrace attach to the parent",
           ptrace(PTRACE_ATTACH, getppid(), NULL, NULL), EPERM);
    expect(p, "bind in home/", try_bind(p, "home/x.sock"), EACCES);
}

typedef void (*child_fn)(const probe *p, const char *real_home);

/* Runs fn in a child; fails the test with the child's report unless it
 * found nothing wrong and exited 0. */
static void
in_child(const fx *f, child_fn fn)
{
    int pfd[2];
    char report[8192];
    size_t got = 0;
    int ws;
    const char *home = getenv("HOME");
    char real_home[PATH_MAX] = "";

    if (home != NULL && realpath(home, real_home) == NULL)
        real_home[0] = '\0';
    assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        probe p = {.pr_fd = pfd[1], .pr_fx = f};
        close(pfd[0]);
        fn(&p, real_home[0] ? real_home : NULL);
        // No exit handlers and no sanitizer exit work: a confined child
        // may not be allowed what they do.
        for (;;)
            syscall(SYS_exit_group, 0);
    }
    close(pfd[1]);
    for (;;) {
        ssize_t n = read(pfd[0], report + got, sizeof report - 1 - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    report[got] = '\0';
    close(pfd[0]);
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    fx_clean(f);
    if (got > 0 || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
        fail_msg("child (wait status %d):\n%s", ws, report);
}

/* Applies spec (keeping the report pipe) or reports why it could not. */
static bool
confine(const probe *p, box_confine_spec *spec, box_err built, char *err)
{
    if (built == BOX_OK && box_confine_keep_fd(spec, p->pr_fd) == BOX_OK &&
        box_proc_confine(spec, &err) == BOX_OK)
        return true;
    dprintf(p->pr_fd, "confine: %s\n", err ? err : "failed");
    return false;
}

/* ------------------------------------------------------------------ */
/* box-pdp                                                              */
/* ------------------------------------------------------------------ */

static void
pdp_args(const fx *f, box_confine_pdp_args *a, const char *policy_rel,
         char bufs[4][PATH_MAX + 64])
{
    fx_path(f, policy_rel, bufs[0], sizeof bufs[0]);
    snprintf(bufs[1], sizeof bufs[1], "ipc://%s/run/a.sock", f->fx_root);
    snprintf(bufs[2], sizeof bufs[2], "ipc://%s/private/b.sock", f->fx_root);
    fx_path(f, "log/records.jsonl", bufs[3], sizeof bufs[3]);
    memset(a, 0, sizeof *a);
    a->pa_policy = bufs[0];
    a->pa_listen = bufs[1];
    a->pa_epoch_pub = bufs[2];
    a->pa_log = bufs[3];
    a->pa_homes[0] = f->fx_home;
    a->pa_peers_fd = -1;
}

static void
pdp_child(const probe *p, const char *real_home)
{
    char bufs[4][PATH_MAX + 64];
    box_confine_pdp_args a;
    box_confine_spec spec;
    bool file_only = true;
    char *err = NULL;

    pdp_args(p->pr_fx, &a, "cfg/policy.dw", bufs);
    box_err rv = box_confine_pdp(&a, &spec, &file_only, &err);
    if (!confine(p, &spec, rv, err))
        return;
    if (file_only)
        dprintf(p->pr_fd, "policy in cfg/: confined to the file alone\n");
    expect_common_refusals(p, real_home);
    // The policy's directory: read, so a file replaced by rename reloads.
    expect(p, "read cfg/policy.dw", try_open(p, "cfg/policy.dw", O_RDONLY), 0);
    expect(p, "read cfg/other", try_open(p, "cfg/other", O_RDONLY), 0);
    expect(p, "write cfg/policy.dw", try_open(p, "cfg/policy.dw", O_WRONLY),
           EACCES);
    expect(p, "create cfg/new",
           try_open(p, "cfg/new", O_WRONLY | O_CREAT | O_EXCL), EACCES);
    // Sockets in their directories; the log appended and created.
    expect(p, "bind run/a.sock", try_bind(p, "run/a.sock"), 0);
    expect(p, "bind private/b.sock", try_bind(p, "private/b.sock"), 0);
    expect(p, "bind cfg/c.sock", try_bind(p, "cfg/c.sock"), EACCES);
    expect(p, "create the log",
           try_open(p, "log/records.jsonl", O_WRONLY | O_APPEND | O_CREAT), 0);
    expect(p, "read the log", try_open(p, "log/records.jsonl", O_RDONLY),
           EACCES);
    expect(p, "read /etc/passwd", open("/etc/passwd", O_RDONLY), EACCES);
    // Every address is ipc://: no other socket family.
    expect(p, "socket(AF_INET)", try_socket(AF_INET), EPERM);
    expect(p, "socket(AF_INET6)", try_socket(AF_INET6), EPERM);
    expect(p, "socket(AF_UNIX)", try_socket(AF_UNIX), 0);
}

/* Issue 18: box-pdp, confined by the profile its main builds, cannot open
 * a file in the operator's home, run a program, open a network socket or
 * ptrace; it reads its policy's directory and writes only its own. */
static void
test_pdp_profile(void **state)
{
    in_child(*state, pdp_child);
}

static void
pdp_home_child(const probe *p, const char *real_home)
{
    char bufs[4][PATH_MAX + 64];
    box_confine_pdp_args a;
    box_confine_spec spec;
    bool file_only = false;
    char *err = NULL;

    pdp_args(p->pr_fx, &a, "home/policy.dw", bufs);
    box_err rv = box_confine_pdp(&a, &spec, &file_only, &err);
    if (!confine(p, &spec, rv, err))
        return;
    if (!file_only)
        dprintf(p->pr_fd, "policy in the home: its directory granted\n");
    expect(p, "read home/policy.dw", try_open(p, "home/policy.dw", O_RDONLY),
           0);
    expect(p, "read home/secret", try_open(p, "home/secret", O_RDONLY), EACCES);
}

/* A policy kept directly in the home: only that file is readable. */
static void
test_pdp_policy_in_home_is_file_only(void **state)
{
    in_child(*state, pdp_home_child);
}

/* A socket or log directory that is the home, or above it, is refused by
 * the builder, naming the option. */
static void
test_pdp_write_dir_in_home_refused(void **state)
{
    fx *f = *state;
    char bufs[4][PATH_MAX + 64], sock[PATH_MAX + 64], log[PATH_MAX + 64];
    box_confine_pdp_args a;
    box_confine_spec spec;
    bool file_only;
    char *err = NULL;

    pdp_args(f, &a, "cfg/policy.dw", bufs);
    snprintf(sock, sizeof sock, "ipc://%s/pdp.sock", f->fx_home);
    a.pa_listen = sock;
    assert_int_equal(box_confine_pdp(&a, &spec, &file_only, &err), BOX_ECONFIG);
    assert_non_null(strstr(err, "--listen"));
    assert_non_null(strstr(err, "is the operator home or above it"));
    box_free(err);

    pdp_args(f, &a, "cfg/policy.dw", bufs);
    snprintf(log, sizeof log, "%s/records.jsonl", f->fx_root);
    a.pa_log = log; // T is above the home
    err = NULL;
    assert_int_equal(box_confine_pdp(&a, &spec, &file_only, &err), BOX_ECONFIG);
    assert_non_null(strstr(err, "--log"));
    box_free(err);

    pdp_args(f, &a, "cfg/missing.dw", bufs);
    err = NULL;
    assert_int_equal(box_confine_pdp(&a, &spec, &file_only, &err), BOX_ECONFIG);
    assert_non_null(strstr(err, "--policy"));
    box_free(err);
}

/* ------------------------------------------------------------------ */
/* box-gateway and box-shell's broker                                   */
/* ------------------------------------------------------------------ */

static void
gateway_child(const probe *p, const char *real_home)
{
    char control[PATH_MAX + 64], trust[PATH_MAX + 64];
    box_confine_spec spec;
    char *err = NULL;

    snprintf(control, sizeof control, "ipc://%s/private/b.sock",
             p->pr_fx->fx_root);
    fx_path(p->pr_fx, "trust", trust, sizeof trust);
    box_confine_gateway_args a = {.ga_control = control,
                                  .ga_trust_dir = trust,
                                  .ga_homes = {p->pr_fx->fx_home, NULL}};
    box_err rv = box_confine_gateway(&a, &spec, &err);
    if (!confine(p, &spec, rv, err))
        return;
    expect_common_refusals(p, real_home);
    expect(p, "bind private/b.sock", try_bind(p, "private/b.sock"), 0);
    expect(p, "read trust/cert.pem", try_open(p, "trust/cert.pem", O_RDONLY),
           0);
    expect(p, "read cfg/policy.dw", try_open(p, "cfg/policy.dw", O_RDONLY),
           EACCES);
    struct stat sb;
    if (stat("/etc/ssl/certs", &sb) == 0)
        expect(p, "list /etc/ssl/certs",
               open("/etc/ssl/certs", O_RDONLY | O_DIRECTORY), 0);
    // The proxy connects out.
    expect(p, "socket(AF_INET)", try_socket(AF_INET), 0);
}

static void
test_gateway_profile(void **state)
{
    in_child(*state, gateway_child);
}

static void
broker_child(const probe *p, const char *real_home)
{
    char pdp[PATH_MAX + 64];
    box_confine_spec spec;
    char *err = NULL;

    snprintf(pdp, sizeof pdp, "ipc://%s/private/pdp.sock", p->pr_fx->fx_root);
    box_confine_broker_args a = {.ba_box_dir = p->pr_fx->fx_root,
                                 .ba_pdp = pdp,
                                 .ba_homes = {p->pr_fx->fx_home, NULL}};
    box_err rv = box_confine_broker(&a, &spec, &err);
    if (!confine(p, &spec, rv, err))
        return;
    expect_common_refusals(p, real_home);
    expect(p, "bind run/a.sock", try_bind(p, "run/a.sock"), 0);
    expect(p, "bind private/b.sock", try_bind(p, "private/b.sock"), 0);
    expect(p, "read cfg/policy.dw", try_open(p, "cfg/policy.dw", O_RDONLY),
           EACCES);
    expect(p, "socket(AF_INET)", try_socket(AF_INET), EPERM);
}

/* The broker's profile (box-shell applies it once the launcher lands). */
static void
test_broker_profile(void **state)
{
    in_child(*state, broker_child);
}

/* ------------------------------------------------------------------ */
/* box_proc_confine's own steps                                         */
/* ------------------------------------------------------------------ */

static void
steps_child(const probe *p, const char *real_home)
{
    box_confine_spec spec;
    char *err = NULL;
    int extra = open("/dev/null", O_RDONLY); // not named: closed

    setenv("BOX_LOG_LEVEL", "warn", 1);
    setenv("SECRET_TOKEN", "hunter2", 1);
    box_confine_spec_init(&spec, BOX_PROFILE_PDP);
    if (box_confine_keep_env(&spec, "BOX_LOG_LEVEL") != BOX_OK ||
        !confine(p, &spec, BOX_OK, err))
        return;
    box_confine_spec_free(&spec);
    expect(p, "the unnamed descriptor", fcntl(extra, F_GETFD), EBADF);
    const char *lvl = getenv("BOX_LOG_LEVEL");
    if (lvl == NULL || strcmp(lvl, "warn") != 0)
        dprintf(p->pr_fd, "BOX_LOG_LEVEL lost\n");
    for (char **e = environ; *e != NULL; e++)
        if (strncmp(*e, "BOX_LOG_LEVEL=", 14) != 0)
            dprintf(p->pr_fd, "kept %s\n", *e);
    // An empty ruleset: nothing at all of the filesystem.
    expect(p, "read /etc/passwd", open("/etc/passwd", O_RDONLY), EACCES);
    expect(p, "unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER), EPERM);
    expect(p, "getpid under the denylist", syscall(SYS_getpid), 0);
}

/* The fixed order's first steps: the environment keeps only the names
 * given, descriptors not named are closed; then the denylist holds. */
static void
test_confine_steps(void **state)
{
    in_child(*state, steps_child);
}

static const box_sc_rule test_allowed[] = {
    {BOX_SC_SYS(write)},
    {BOX_SC_SYS(exit_group)},
    {BOX_SC_SYS(close)},
    {BOX_SC_SYS(brk)},
    {BOX_SC_SYS(munmap)},
    {BOX_SC_SYS(madvise)},
    {BOX_SC_SYS(rt_sigreturn)},
#ifdef BOX_SANITIZE
    // What the sanitizer runtime calls on its own (locks, report memory).
    {BOX_SC_SYS(futex)},
    {BOX_SC_SYS(mmap)},
    {BOX_SC_SYS(gettid)},
    {BOX_SC_SYS(getpid)},
    {BOX_SC_SYS(sigaltstack)},
    {BOX_SC_SYS(rt_sigprocmask)},
#endif
};

static void
allowlist_child(const probe *p, const char *real_home)
{
    box_confine_spec spec;
    char *err = NULL;

    box_confine_spec_init(&spec, BOX_PROFILE_PDP_PEERS);
    spec.cs_no_landlock = true;
    spec.cs_sc_mode = BOX_SC_ALLOWLIST;
    spec.cs_sc_rules = test_allowed;
    spec.cs_nsc_rules = sizeof test_allowed / sizeof *test_allowed;
    if (!confine(p, &spec, BOX_OK, err))
        return;
    expect(p, "getppid (not allowed)", syscall(SYS_getppid), EPERM);
    expect(p, "openat (not allowed)",
           syscall(SYS_openat, AT_FDCWD, "/", O_RDONLY | O_CLOEXEC), EPERM);
}

/* Allowlist mode: only what the spec names runs. */
static void
test_allowlist(void **state)
{
    in_child(*state, allowlist_child);
}

/* ------------------------------------------------------------------ */
/* A compiled filter with a slot                                        */
/* ------------------------------------------------------------------ */

static const box_sc_rule slot_rules[] = {
    {BOX_SC_SYS(kill), .sr_cmp = BOX_SC_NE, .sr_arg = 0,
     .sr_value = BOX_SC_SLOT},
};
static const box_sc_filter slot_filter = {.sf_mode = BOX_SC_DENYLIST,
                                          .sf_rules = slot_rules,
                                          .sf_nrules = sizeof slot_rules /
                                                       sizeof *slot_rules};

/* The compiled program, installed with this process's pid: kill reaches
 * only itself; junk above the pid's 32 bits does not pass as it; the
 * shared denylist is in the program too. */
static void
slot_child(const probe *p, const char *real_home)
{
    (void)real_home;
    box_sc_prog *prog = NULL;
    char *err = NULL;
    long self = getpid();

    if (box_sc_compile(&slot_filter, &prog, &err) != BOX_OK) {
        dprintf(p->pr_fd, "compile: %s\n", err ? err : "failed");
        return;
    }
    if (box_sc_prog_slots(prog) == 0)
        dprintf(p->pr_fd, "the slot was compiled away\n");
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
        box_sc_install(prog, (uint32_t)self, &err) != BOX_OK) {
        dprintf(p->pr_fd, "install: %s\n", err ? err : "failed");
        return;
    }
    expect(p, "kill self", syscall(SYS_kill, self, 0), 0);
    expect(p, "kill parent", syscall(SYS_kill, (long)getppid(), 0), EPERM);
    expect(p, "kill slot value", syscall(SYS_kill, (long)BOX_SC_SLOT, 0),
           EPERM);
    expect(p, "kill self + 2^32", syscall(SYS_kill, self | (1L << 32), 0),
           EPERM);
    expect(p, "ptrace (denylist)",
           syscall(SYS_ptrace, PTRACE_PEEKDATA, getppid(), 0, 0), EPERM);
    box_sc_prog_free(prog);
}

static void
test_compiled_slot(void **state)
{
    in_child(*state, slot_child);
}

/* The same program serves many installers, each with its own value: the
 * compiled copy is not patched. */
static void
test_compiled_twice(void **state)
{
    (void)state;
    box_sc_prog *prog = NULL;
    char *err = NULL;

    assert_int_equal(box_sc_compile(&slot_filter, &prog, &err), BOX_OK);
    for (int i = 0; i < 3; i++) {
        pid_t pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
            long self = getpid();
            int ok = prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0 &&
                     box_sc_install(prog, (uint32_t)self, &err) == BOX_OK &&
                     syscall(SYS_kill, self, 0) == 0 &&
                     syscall(SYS_kill, (long)getppid(), 0) != 0;
            for (;;)
                syscall(SYS_exit_group, ok ? 0 : 1);
        }
        int ws;
        assert_int_equal(waitpid(pid, &ws, 0), pid);
        assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    }
    box_sc_prog_free(prog);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pdp_profile),
        cmocka_unit_test(test_pdp_policy_in_home_is_file_only),
        cmocka_unit_test(test_pdp_write_dir_in_home_refused),
        cmocka_unit_test(test_gateway_profile),
        cmocka_unit_test(test_broker_profile),
        cmocka_unit_test(test_confine_steps),
        cmocka_unit_test(test_allowlist),
        cmocka_unit_test(test_compiled_slot),
        cmocka_unit_test(test_compiled_twice),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
