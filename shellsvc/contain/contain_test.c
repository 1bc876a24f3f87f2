/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain end to end: real processes in real sandboxes, checked from
 * outside. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <seccomp.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_test_require.h"
#include "contain.h"
#include "contain_int.h"

#define OUT_MAX (1u << 20)
#define MAX_ARGS 64

/* Shared, read-only after the group setup: where things are, what --probe said.
 */
static char contain_bin[4096];
static char probe_bin[4096];
static char preload_so[4096]; // contain_preload.so: marks when it is run
static char probe_id[64];
static char probe_out[4096];
static int probe_status = -1;
static char sh_bin[4096]; // what #!/bin/sh runs, canonical (--exec takes it)

typedef struct run_out {
    int ro_status; // exit code, or 128 + signal
    char *ro_out;
    char *ro_err;
} run_out;

static void
run_free(run_out *r)
{
    box_free(r->ro_out);
    box_free(r->ro_err);
    r->ro_out = r->ro_err = NULL;
}

// "DEV:INO" of path (symlinks followed), as a caller would decide it.
static void
id_of(const char *path, char *buf, size_t n)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    snprintf(buf, n, "%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
}

static void
drain(int fd, box_buf *b, bool *open_)
{
    char chunk[4096];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n > 0)
        assert_int_equal(box_buf_append(b, chunk, (size_t)n), BOX_OK);
    else if (n == 0 || errno != EINTR)
        *open_ = false;
}

/*
 * Runs argv (argv[0] is the file to execute) with stdout and stderr
 * captured; keep_fd (or -1) stays open across the exec; uid (or -1)
 * drops to that uid/gid first.
 */
typedef void (*pre_exec_fn)(void);

static void
run_pre(run_out *r, char *const argv[], int keep_fd, int uid, pre_exec_fn pre)
{
    int po[2], pe[2], ws;
    pid_t pid;
    box_buf bo, be;
    bool oo = true, eo = true;

    box_buf_init(&bo, OUT_MAX);
    box_buf_init(&be, OUT_MAX);
    assert_int_equal(pipe2(po, O_CLOEXEC), 0);
    assert_int_equal(pipe2(pe, O_CLOEXEC), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_RDONLY);
        dup2(devnull, 0);
        dup2(po[1], 1);
        dup2(pe[1], 2);
        if (keep_fd >= 0)
            fcntl(keep_fd, F_SETFD, 0);
        if (uid >= 0 && (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 ||
                         setuid((uid_t)uid) != 0))
            _exit(90);
        if (pre != NULL)
            pre();
        execv(argv[0], argv);
        _exit(91);
    }
    close(po[1]);
    close(pe[1]);
    while (oo || eo) {
        struct pollfd p[2] = {{po[0], POLLIN, 0}, {pe[0], POLLIN, 0}};
        p[0].fd = oo ? po[0] : -1;
        p[1].fd = eo ? pe[0] : -1;
        if (poll(p, 2, -1) < 0)
            continue;
        if (p[0].revents)
            drain(po[0], &bo, &oo);
        if (p[1].revents)
            drain(pe[0], &be, &eo);
    }
    close(po[0]);
    close(pe[0]);
    while (waitpid(pid, &ws, 0) < 0)
        assert_int_equal(errno, EINTR);
    r->ro_status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    r->ro_out = box_buf_take(&bo);
    r->ro_err = box_buf_take(&be);
    assert_non_null(r->ro_out);
    assert_non_null(r->ro_err);
    if (r->ro_err[0] != '\0')
        print_message("  [stderr] %s", r->ro_err);
}

static void
run_as(run_out *r, char *const argv[], int keep_fd, int uid)
{
    run_pre(r, argv, keep_fd, uid, NULL);
}

static void
run(run_out *r, char *const argv[])
{
    run_as(r, argv, -1, -1);
}

/* argv builder: box-contain OPTIONS... -- PROGRAM ARGS... */
typedef struct av {
    char *a_v[MAX_ARGS + 1];
    char a_store[MAX_ARGS][512];
    int a_n;
} av;

static void av_add(av *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
av_add(av *a, const char *fmt, ...)
{
    va_list ap;
    assert_true(a->a_n < MAX_ARGS);
    va_start(ap, fmt);
    vsnprintf(a->a_store[a->a_n], sizeof a->a_store[0], fmt, ap);
    va_end(ap);
    a->a_v[a->a_n] = a->a_store[a->a_n];
    a->a_n++;
    a->a_v[a->a_n] = NULL;
}

static void
av_start(av *a)
{
    memset(a, 0, sizeof *a);
    av_add(a, "%s", contain_bin);
}

// --exec-path PATH --exec-id ID -- NAME
static void
av_program(av *a, const char *path)
{
    char id[64];
    const char *base = strrchr(path, '/');
    id_of(path, id, sizeof id);
    av_add(a, "--exec-path");
    av_add(a, "%s", path);
    av_add(a, "--exec-id");
    av_add(a, "%s", id);
    av_add(a, "--");
    av_add(a, "%s", base != NULL ? base + 1 : path);
}

/* A scratch tree per test: T/in/a.txt, T/in/c.txt, T/out/b.txt, T/w/. */
typedef struct tree {
    char t_root[256];
} tree;

static void
write_file(const char *path, const char *text, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    assert_int_equal(chmod(path, mode), 0);
}

static void
tree_make(tree *t)
{
    char p[512];
    snprintf(t->t_root, sizeof t->t_root, "/tmp/contain_test.XXXXXX");
    assert_non_null(mkdtemp(t->t_root));
    const char *dirs[] = {"in", "out", "w"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", t->t_root, dirs[i]);
        assert_int_equal(mkdir(p, 0755), 0);
    }
    snprintf(p, sizeof p, "%s/in/a.txt", t->t_root);
    write_file(p, "hello\n", 0644);
    snprintf(p, sizeof p, "%s/in/c.txt", t->t_root);
    write_file(p, "sibling\n", 0644);
    snprintf(p, sizeof p, "%s/out/b.txt", t->t_root);
    write_file(p, "secret\n", 0644);
}

static int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    return remove(path);
}

static void
tree_rm(tree *t)
{
    assert_int_equal(nftw(t->t_root, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
}

/* The names of the features the probe reports missing ("landlock,
 * seccomp"), into out. */
static void
probe_missing(char *out, size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (const char *l = probe_out; *l != '\0';) {
        const char *eol = strchr(l, '\n');
        size_t len = eol ? (size_t)(eol - l) : strlen(l);
        const char *m = memmem(l, len, ": missing", 9);
        if (m != NULL && used < n)
            used += (size_t)snprintf(out + used, n - used, "%s%.*s",
                                     used ? ", " : "", (int)(m - l), l);
        l += len + (eol != NULL);
    }
}

/* Every sandboxed test needs every feature: without one it skips, or in
 * CI fails, naming what is missing (box_test_require.h). */
static void
need_sandbox(void)
{
    if (probe_status != 0) {
        char names[512];
        probe_missing(names, sizeof names);
        box_test_missing("kernel feature for the sandbox (%s); box-contain "
                         "--probe says:\n%s",
                         names[0] ? names : "see the probe", probe_out);
    }
}

static int
group_setup(void **state)
{
    const char *dir = getenv("BOX_BUILD_DIR");
    run_out r;
    char *argv[3];

    if (dir == NULL) {
        fprintf(stderr, "BOX_BUILD_DIR is not set (run through ctest)\n");
        return -1;
    }
    snprintf(contain_bin, sizeof contain_bin, "%s/bin/box-contain", dir);
    snprintf(probe_bin, sizeof probe_bin, "%s/bin/contain_probe", dir);
    snprintf(preload_so, sizeof preload_so, "%s/bin/contain_preload.so", dir);
    if (access(contain_bin, X_OK) != 0 || access(probe_bin, X_OK) != 0 ||
        access(preload_so, R_OK) != 0) {
        fprintf(stderr, "missing %s, %s or %s\n", contain_bin, probe_bin,
                preload_so);
        return -1;
    }
    argv[0] = contain_bin;
    argv[1] = "--probe";
    argv[2] = NULL;
    run(&r, argv);
    probe_status = r.ro_status;
    snprintf(probe_out, sizeof probe_out, "%s", r.ro_out);
    run_free(&r);
    struct stat st;
    if (stat(probe_bin, &st) != 0)
        return -1;
    snprintf(probe_id, sizeof probe_id, "%ju:%ju", (uintmax_t)st.st_dev,
             (uintmax_t)st.st_ino);
    if (realpath("/bin/sh", sh_bin) == NULL)
        return -1;
    return 0;
}

static void
test_probe(void **state)
{
    static const char *const names[] = {
        "user-namespace", "mount-namespace", "pid-namespace",
        "ipc-namespace",  "uts-namespace",   "net-namespace",
        "no-new-privs",   "landlock",        "seccomp"};
    char want[64];

    print_message("%s", probe_out);
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        snprintf(want, sizeof want, "%s: ", names[i]);
        const char *line = strstr(probe_out, want);
        assert_non_null(line);
        line += strlen(want);
        assert_true(strncmp(line, "ok", 2) == 0 ||
                    strncmp(line, "missing (", 9) == 0 ||
                    strncmp(line, "unused (", 8) == 0);
    }
    if (probe_status != 0) {
        assert_int_equal(probe_status, BOX_STATUS_FAULT);
        assert_non_null(strstr(probe_out, ": missing ("));
        need_sandbox(); // the sandbox tests skip, or in CI fail
    }
    assert_null(strstr(probe_out, ": missing"));
}

static void
test_usage_errors(void **state)
{
    static const char *const cases[][6] = {
        {"--bogus", NULL},
        {"--exec-path", "/bin/true", "--", "true", NULL},
        {"--exec-fd", "1", "--", "x", NULL},
        {"--read", "relative", "--exec-path", "/bin/true", NULL},
        {"--exec-path", "/bin/true", "--exec-id", "12", "--", NULL},
        {"--net", "wifi", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        av a;
        run_out r;
        av_start(&a);
        for (size_t k = 0; cases[i][k] != NULL; k++)
            av_add(&a, "%s", cases[i][k]);
        run(&r, a.a_v);
        assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
        assert_true(strncmp(r.ro_err, "box-contain: ", 13) == 0);
        run_free(&r);
    }
}

static void
test_help(void **state)
{
    av a;
    run_out r;
    av_start(&a);
    av_add(&a, "--help");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    assert_non_null(strstr(r.ro_out, "--exec-id DEV:INO"));
    assert_non_null(strstr(r.ro_out, "--probe"));
    run_free(&r);
}

static void
test_read_inside_outside(void **state)
{
    tree t;
    av a;
    run_out r;

    need_sandbox();
    tree_make(&t);
    av_start(&a);
    av_add(&a, "--read");
    av_add(&a, "%s/in", t.t_root);
    av_program(&a, "/bin/cat");
    av_add(&a, "%s/in/a.txt", t.t_root);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    assert_string_equal(r.ro_out, "hello\n");
    run_free(&r);

    av_start(&a);
    av_add(&a, "--read");
    av_add(&a, "%s/in", t.t_root);
    av_program(&a, "/bin/cat");
    av_add(&a, "%s/out/b.txt", t.t_root);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 1);
    assert_string_equal(r.ro_out, "");
    assert_non_null(strstr(r.ro_err, "Permission denied"));
    run_free(&r);
    tree_rm(&t);
}

static void
test_read_file_only(void **state)
{
    tree t;
    av a;
    run_out r;

    need_sandbox();
    tree_make(&t);
    av_start(&a);
    av_add(&a, "--read-file");
    av_add(&a, "%s/in/a.txt", t.t_root);
    av_program(&a, probe_bin);
    av_add(&a, "read");
    av_add(&a, "%s/in/a.txt", t.t_root);
    av_add(&a, "read");
    av_add(&a, "%s/in/c.txt", t.t_root);
    av_add(&a, "read");
    av_add(&a, "/etc/passwd");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    char want[600];
    snprintf(want, sizeof want,
             "read %s/in/a.txt: ok\nread %s/in/c.txt: EACCES\n"
             "read /etc/passwd: EACCES\n",
             t.t_root, t.t_root);
    assert_string_equal(r.ro_out, want);
    run_free(&r);
    tree_rm(&t);
}

/* --hide covers a directory in the sandbox's mount namespace: its files
 * and its Unix sockets are gone, where Landlock alone would still let a
 * connect(2) through. */
static void
test_hide(void **state)
{
    tree t;
    av a;
    run_out r;

    need_sandbox();
    tree_make(&t);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    char *sock = sa.sun_path;
    assert_true((size_t)snprintf(sock, sizeof sa.sun_path, "%s/out/s.sock",
                                 t.t_root) < sizeof sa.sun_path);
    int l = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(l >= 0);
    assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(l, 4), 0);

    for (int hide = 0; hide < 2; hide++) {
        av_start(&a);
        av_add(&a, "--read");
        av_add(&a, "%s/in", t.t_root);
        if (hide) {
            av_add(&a, "--hide");
            av_add(&a, "%s/out", t.t_root);
        }
        av_program(&a, probe_bin);
        av_add(&a, "unix");
        av_add(&a, "%s", sock);
        av_add(&a, "read");
        av_add(&a, "%s/in/a.txt", t.t_root);
        run(&r, a.a_v);
        assert_int_equal(r.ro_status, 0);
        char want[1400];
        snprintf(want, sizeof want, "unix %s: %s\nread %s/in/a.txt: ok\n", sock,
                 hide ? "ENOENT" : "ok", t.t_root);
        assert_string_equal(r.ro_out, want);
        run_free(&r);
    }
    close(l);

    av_start(&a);
    av_add(&a, "--hide");
    av_add(&a, "relative");
    av_program(&a, "/bin/true");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 125);
    assert_non_null(strstr(r.ro_err, "--hide relative: expected an absolute "
                                     "directory other than /"));
    run_free(&r);
    tree_rm(&t);
}

static void
test_write_inside_outside(void **state)
{
    tree t;
    av a;
    run_out r;
    char want[1200], p[512];
    struct stat st;

    need_sandbox();
    tree_make(&t);
    av_start(&a);
    av_add(&a, "--read");
    av_add(&a, "%s/in", t.t_root);
    av_add(&a, "--write");
    av_add(&a, "%s/w", t.t_root);
    av_program(&a, probe_bin);
    av_add(&a, "write");
    av_add(&a, "%s/w/new.txt", t.t_root);
    av_add(&a, "write");
    av_add(&a, "%s/out/new.txt", t.t_root);
    av_add(&a, "write");
    av_add(&a, "%s/in/a.txt", t.t_root);
    av_add(&a, "write");
    av_add(&a, "/tmp/contain_test_escape.txt");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    snprintf(want, sizeof want,
             "write %s/w/new.txt: ok\nwrite %s/out/new.txt: EACCES\n"
             "write %s/in/a.txt: EACCES\n"
             "write /tmp/contain_test_escape.txt: EACCES\n",
             t.t_root, t.t_root, t.t_root);
    assert_string_equal(r.ro_out, want);
    run_free(&r);
    snprintf(p, sizeof p, "%s/w/new.txt", t.t_root);
    assert_int_equal(stat(p, &st), 0);
    snprintf(p, sizeof p, "%s/out/new.txt", t.t_root);
    assert_int_not_equal(stat(p, &st), 0);
    assert_int_not_equal(stat("/tmp/contain_test_escape.txt", &st), 0);
    tree_rm(&t);
}

static void
test_network_only_lo(void **state)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t len = sizeof sa;
    int l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    av a;
    run_out r;
    char want[256];

    need_sandbox();
    assert_true(l >= 0);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(l, 4), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&sa, &len), 0);

    av_start(&a);
    av_add(&a, "--net");
    av_add(&a, "none");
    av_program(&a, probe_bin);
    av_add(&a, "ifaces");
    av_add(&a, "loopback");
    av_add(&a, "connect");
    av_add(&a, "127.0.0.1");
    av_add(&a, "%d", ntohs(sa.sin_port));
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    snprintf(want, sizeof want,
             "ifaces: lo\nloopback: ok\nconnect 127.0.0.1 %d: ECONNREFUSED\n",
             ntohs(sa.sin_port));
    assert_string_equal(r.ro_out, want);
    run_free(&r);
    // Nothing reached the listener outside.
    assert_int_equal(accept(l, NULL, NULL), -1);
    assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
    close(l);
}

static void
test_syscalls_refused(void **state)
{
    av a;
    run_out r;

    need_sandbox();
    av_start(&a);
    av_program(&a, probe_bin);
    av_add(&a, "syscalls");
    av_add(&a, "caps");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    assert_string_equal(r.ro_out, "ptrace: EPERM\n"
                                  "mount: EPERM\n"
                                  "umount2: EPERM\n"
                                  "unshare_user: EPERM\n"
                                  "clone_newuser: EPERM\n"
                                  "clone3: ENOSYS\n"
                                  "io_uring_setup: EPERM\n"
                                  "bpf: EPERM\n"
                                  "keyctl: EPERM\n"
                                  "setns: EPERM\n"
                                  "userfaultfd: EPERM\n"
                                  "fork: ok\n"
                                  "CapEff:\t0000000000000000\n"
                                  "CapBnd:\t0000000000000000\n"
                                  "NoNewPrivs:\t1\n"
                                  "Seccomp:\t2\n");
    run_free(&r);
}

static void
status_case(const char *script, int want)
{
    av a;
    run_out r;
    av_start(&a);
    av_program(&a, "/bin/sh");
    av_add(&a, "-c");
    av_add(&a, "%s", script);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, want);
    run_free(&r);
}

static void
test_exit_status(void **state)
{
    need_sandbox();
    status_case("exit 0", 0);
    status_case("exit 7", 7);
    status_case("exit 200", 200);
    status_case("kill -KILL $$", 128 + SIGKILL);
    status_case("kill -TERM $$", 128 + SIGTERM);
}

static void
test_env_exact(void **state)
{
    av a;
    run_out r;

    need_sandbox();
    setenv("CONTAIN_TEST_LEAK", "1", 1);
    av_start(&a);
    av_add(&a, "--env");
    av_add(&a, "A=1");
    av_add(&a, "--env");
    av_add(&a, "B=two words");
    av_add(&a, "--env");
    av_add(&a, "EMPTY=");
    av_program(&a, probe_bin);
    av_add(&a, "env");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    assert_string_equal(r.ro_out, "A=1\nB=two words\nEMPTY=\n");
    run_free(&r);

    av_start(&a);
    av_program(&a, probe_bin);
    av_add(&a, "env");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    assert_string_equal(r.ro_out, "");
    run_free(&r);
    unsetenv("CONTAIN_TEST_LEAK");
}

static void
test_identity_swapped(void **state)
{
    tree t;
    av a;
    run_out r;
    char prog[512], other[512], id[64];

    need_sandbox();
    tree_make(&t);
    snprintf(prog, sizeof prog, "%s/w/prog", t.t_root);
    snprintf(other, sizeof other, "%s/w/other", t.t_root);
    write_file(prog, "#!/bin/sh\necho first\n", 0755);
    write_file(other, "#!/bin/sh\necho second\n", 0755);
    id_of(prog, id, sizeof id); // the caller's decision
    assert_int_equal(rename(other, prog), 0);

    av_start(&a);
    av_add(&a, "--exec");
    av_add(&a, "%s", sh_bin);
    av_add(&a, "--exec-path");
    av_add(&a, "%s", prog);
    av_add(&a, "--exec-id");
    av_add(&a, "%s", id);
    av_add(&a, "--");
    av_add(&a, "prog");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, BOX_STATUS_CANNOT_RUN);
    assert_string_equal(r.ro_out, "");
    assert_non_null(strstr(r.ro_err, "box-contain: refusing to run"));
    assert_non_null(strstr(r.ro_err, "changed after it was decided"));
    run_free(&r);

    // The file now at the path runs when its own identity is given (and a
    // #! script runs by fd, its interpreter listed).
    av_start(&a);
    av_add(&a, "--exec");
    av_add(&a, "%s", sh_bin);
    av_program(&a, prog);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    assert_string_equal(r.ro_out, "second\n");
    run_free(&r);
    tree_rm(&t);
}

static void
test_exec_fd_is_what_runs(void **state)
{
    tree t;
    av a;
    run_out r;
    char prog[512], other[512];
    int fd, stray;

    need_sandbox();
    tree_make(&t);
    snprintf(prog, sizeof prog, "%s/w/prog", t.t_root);
    snprintf(other, sizeof other, "%s/w/other", t.t_root);
    write_file(prog, "#!/bin/sh\necho decided\n", 0755);
    write_file(other, "#!/bin/sh\necho planted\n", 0755);
    fd = open(prog, O_PATH | O_CLOEXEC);
    assert_true(fd >= 3);
    assert_int_equal(rename(other, prog), 0);

    av_start(&a);
    av_add(&a, "--exec");
    av_add(&a, "%s", sh_bin);
    av_add(&a, "--exec-fd");
    av_add(&a, "%d", fd);
    av_add(&a, "--");
    av_add(&a, "prog");
    run_as(&r, a.a_v, fd, -1);
    assert_int_equal(r.ro_status, 0);
    assert_string_equal(r.ro_out, "decided\n");
    run_free(&r);
    close(fd);

    // Every other inherited fd is closed before the program starts.
    fd = open(probe_bin, O_PATH | O_CLOEXEC);
    stray = open("/dev/null", O_RDONLY); // inheritable on purpose
    assert_true(fd >= 3 && stray >= 3);
    av_start(&a);
    av_add(&a, "--exec-fd");
    av_add(&a, "%d", fd);
    av_add(&a, "--exec-id");
    av_add(&a, "%s", probe_id);
    av_add(&a, "--");
    av_add(&a, "contain_probe");
    av_add(&a, "fds");
    av_add(&a, "pid");
    av_add(&a, "hostname");
    run_as(&r, a.a_v, fd, -1);
    assert_int_equal(r.ro_status, 0);
    assert_string_equal(r.ro_out, "fds: none\npid=2 ppid=1\nhostname=box\n");
    run_free(&r);
    close(stray);
    close(fd);
    tree_rm(&t);
}

static void
test_missing_program(void **state)
{
    av a;
    run_out r;

    need_sandbox();
    av_start(&a);
    av_add(&a, "--exec-path");
    av_add(&a, "/nonexistent/contain/prog");
    av_add(&a, "--exec-id");
    av_add(&a, "1:1");
    av_add(&a, "--");
    av_add(&a, "prog");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, BOX_STATUS_NOT_FOUND);
    assert_non_null(strstr(r.ro_err, "box-contain: /nonexistent/contain/prog"));
    assert_non_null(strstr(r.ro_err, "No such file"));
    run_free(&r);
}

static void
test_deny_shapes(void **state)
{
    tree t;
    av a;
    run_out r;

    need_sandbox();
    tree_make(&t);
    // A deny inside a grant is masked: an empty file stands in for it.
    av_start(&a);
    av_add(&a, "--read");
    av_add(&a, "%s/in", t.t_root);
    av_add(&a, "--deny");
    av_add(&a, "%s/in/a.txt", t.t_root);
    av_program(&a, "/bin/cat");
    av_add(&a, "%s/in/a.txt", t.t_root);
    av_add(&a, "%s/in/c.txt", t.t_root);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    assert_string_equal(r.ro_out, "sibling\n");
    run_free(&r);

    // Not yet existing, still inside the write grant: no mask can cover
    // what the program could create, so refused.
    av_start(&a);
    av_add(&a, "--write");
    av_add(&a, "%s/w", t.t_root);
    av_add(&a, "--deny");
    av_add(&a, "%s/w/.env", t.t_root);
    av_program(&a, "/bin/cat");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
    assert_non_null(strstr(r.ro_err, "does not exist and lies inside the "
                                     "grant"));
    assert_non_null(strstr(r.ro_err, "cannot carve a hole"));
    run_free(&r);

    // Not yet existing inside a system grant: refused the same way.
    av_start(&a);
    av_add(&a, "--deny");
    av_add(&a, "/usr/contain-test-absent");
    av_program(&a, "/bin/cat");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
    assert_non_null(strstr(r.ro_err, "which every sandbox grants"));
    run_free(&r);

    // An existing directory inside a system grant: masked, listed empty.
    av_start(&a);
    av_add(&a, "--deny");
    av_add(&a, "/usr/share");
    av_program(&a, probe_bin);
    av_add(&a, "list");
    av_add(&a, "/usr/share");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    assert_string_equal(r.ro_out, "list /usr/share:\n");
    run_free(&r);

    // A grant inside a deny, or equal to it: refused.
    for (int equal = 0; equal < 2; equal++) {
        av_start(&a);
        av_add(&a, "--read");
        av_add(&a, "%s/in", t.t_root);
        av_add(&a, "--deny");
        av_add(&a, "%s%s", t.t_root, equal ? "/in" : "");
        av_program(&a, "/bin/cat");
        run(&r, a.a_v);
        assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
        assert_non_null(strstr(r.ro_err, "lies inside --deny"));
        run_free(&r);
    }

    // Outside every grant: fine, and unreachable.
    av_start(&a);
    av_add(&a, "--read");
    av_add(&a, "%s/in", t.t_root);
    av_add(&a, "--deny");
    av_add(&a, "%s/out", t.t_root);
    av_program(&a, "/bin/cat");
    av_add(&a, "%s/in/a.txt", t.t_root);
    av_add(&a, "%s/out/b.txt", t.t_root);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 1);
    assert_string_equal(r.ro_out, "hello\n");
    run_free(&r);

    // A symlink as a grant is refused (name the target).
    char link[512], target[512];
    snprintf(link, sizeof link, "%s/link", t.t_root);
    snprintf(target, sizeof target, "%s/out", t.t_root);
    assert_int_equal(symlink(target, link), 0);
    av_start(&a);
    av_add(&a, "--read");
    av_add(&a, "%s", link);
    av_program(&a, "/bin/cat");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
    assert_non_null(strstr(r.ro_err, "symbolic link"));
    run_free(&r);
    tree_rm(&t);
}

/* A file's bytes, for checking the host side after a run. */
static void
expect_file(const char *path, const char *want)
{
    char buf[256];
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    assert_true(n >= 0);
    buf[n] = '\0';
    assert_string_equal(buf, want);
}

/*
 * Denies inside a write grant: the masks read empty, refuse writes and
 * removal, and the host's files are untouched; a denied directory lists
 * empty and takes nothing new. The siblings stay granted.
 */
static void
test_deny_mask(void **state)
{
    tree t;
    av a;
    run_out r;
    char p[600], want[4096];

    need_sandbox();
    tree_make(&t);
    snprintf(p, sizeof p, "%s/w/.env", t.t_root);
    write_file(p, "TOKEN=secret\n", 0644);
    snprintf(p, sizeof p, "%s/w/keep.txt", t.t_root);
    write_file(p, "kept\n", 0644);
    snprintf(p, sizeof p, "%s/w/private", t.t_root);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/w/private/key", t.t_root);
    write_file(p, "KEY\n", 0644);

    av_start(&a);
    av_add(&a, "--write");
    av_add(&a, "%s/w", t.t_root);
    av_add(&a, "--deny");
    av_add(&a, "%s/w/.env", t.t_root);
    av_add(&a, "--deny");
    av_add(&a, "%s/w/private", t.t_root);
    av_program(&a, "/bin/cat");
    av_add(&a, "%s/w/.env", t.t_root);
    av_add(&a, "%s/w/keep.txt", t.t_root);
    av_add(&a, "%s/w/private/key", t.t_root);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 1);
    assert_string_equal(r.ro_out, "kept\n");
    assert_non_null(strstr(r.ro_err, "private/key: No such file"));
    run_free(&r);

    av_start(&a);
    av_add(&a, "--write");
    av_add(&a, "%s/w", t.t_root);
    av_add(&a, "--deny");
    av_add(&a, "%s/w/.env", t.t_root);
    av_add(&a, "--deny");
    av_add(&a, "%s/w/private", t.t_root);
    av_program(&a, probe_bin);
    const char *cmds[][2] = {
        {"write", "w/.env"},    {"unlink", "w/.env"},
        {"list", "w/private"},  {"write", "w/private/new"},
        {"write", "w/new.txt"}, {"unlink", "w/keep.txt"},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        av_add(&a, "%s", cmds[i][0]);
        av_add(&a, "%s/%s", t.t_root, cmds[i][1]);
    }
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    snprintf(want, sizeof want,
             "write %s/w/.env: EROFS\n"
             "unlink %s/w/.env: EBUSY\n"
             "list %s/w/private:\n"
             "write %s/w/private/new: EROFS\n"
             "write %s/w/new.txt: ok\n"
             "unlink %s/w/keep.txt: ok\n",
             t.t_root, t.t_root, t.t_root, t.t_root, t.t_root, t.t_root);
    assert_string_equal(r.ro_out, want);
    run_free(&r);

    snprintf(p, sizeof p, "%s/w/.env", t.t_root);
    expect_file(p, "TOKEN=secret\n");
    snprintf(p, sizeof p, "%s/w/private/key", t.t_root);
    expect_file(p, "KEY\n");
    snprintf(p, sizeof p, "%s/w/private/new", t.t_root);
    assert_int_equal(access(p, F_OK), -1);
    tree_rm(&t);
}

/*
 * A sandbox executes only its program (and the loader it names) and what
 * --exec lists: /usr/bin is readable, not executable. A listed directory
 * covers what lies beneath; a #! script's interpreter must be listed.
 */
static void
test_exec_rule(void **state)
{
    tree t;
    av a;
    run_out r;
    char script[600], want[4096];

    need_sandbox();
    tree_make(&t);
    snprintf(script, sizeof script, "%s/w/tool.sh", t.t_root);
    write_file(script, "#!/bin/sh\nexit 0\n", 0755);
    static const char *const lists[][2] = {
        {NULL, NULL},           {"--exec", "/usr/bin/true"},
        {"--exec", "/usr/bin"}, {"--exec", "W"},
        {"--exec", "SH"},
    };
    // The outcome of: exec /usr/bin/true, exec /usr/bin/env, exec script.
    static const char *const outcome[][3] = {
        {"EACCES", "EACCES", "EACCES"}, {"ok", "EACCES", "EACCES"},
        {"ok", "ok", "EACCES"},         {"EACCES", "EACCES", "EACCES"},
        {"EACCES", "EACCES", "EACCES"},
    };
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) {
        av_start(&a);
        if (lists[i][0] != NULL) {
            av_add(&a, "%s", lists[i][0]);
            if (strcmp(lists[i][1], "W") == 0)
                av_add(&a, "%s/w", t.t_root);
            else if (strcmp(lists[i][1], "SH") == 0)
                av_add(&a, "%s", sh_bin);
            else
                av_add(&a, "%s", lists[i][1]);
        }
        av_program(&a, probe_bin);
        av_add(&a, "exec");
        av_add(&a, "/usr/bin/true");
        av_add(&a, "exec");
        av_add(&a, "/usr/bin/env");
        av_add(&a, "exec");
        av_add(&a, "%s", script);
        run(&r, a.a_v);
        assert_int_equal(r.ro_status, 0);
        snprintf(want, sizeof want,
                 "exec /usr/bin/true: %s\nexec /usr/bin/env: %s\n"
                 "exec %s: %s\n",
                 outcome[i][0], outcome[i][1], script, outcome[i][2]);
        if (strcmp(r.ro_out, want) != 0)
            print_message("case %zu\n", i);
        assert_string_equal(r.ro_out, want);
        run_free(&r);
    }

    // The script with both itself and its interpreter listed runs.
    av_start(&a);
    av_add(&a, "--exec");
    av_add(&a, "%s/w", t.t_root);
    av_add(&a, "--exec");
    av_add(&a, "%s", sh_bin);
    av_program(&a, probe_bin);
    av_add(&a, "exec");
    av_add(&a, "%s", script);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    snprintf(want, sizeof want, "exec %s: ok\n", script);
    assert_string_equal(r.ro_out, want);
    run_free(&r);

    // A shell as the program may not start what it is not given either.
    av_start(&a);
    av_program(&a, sh_bin);
    av_add(&a, "-c");
    av_add(&a, "/usr/bin/true");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 126);
    assert_non_null(strstr(r.ro_err, "Permission denied"));
    run_free(&r);
    tree_rm(&t);
}

/*
 * --hide covers a directory, --show keeps what lies beneath it at its
 * own path (a socket, a directory, whose own grant still holds), and
 * everything else there is gone: the cover is empty, read-only, granted
 * nothing. A --show with no --hide above it, or inside another, is
 * refused.
 */
static void
test_hide_show(void **state)
{
    tree t;
    av a;
    run_out r;
    char want[4096], p[600];
    int l[2];

    need_sandbox();
    tree_make(&t);
    snprintf(p, sizeof p, "%s/out/keep", t.t_root);
    assert_int_equal(mkdir(p, 0755), 0);
    snprintf(p, sizeof p, "%s/out/keep/k.txt", t.t_root);
    write_file(p, "k\n", 0644);
    for (int i = 0; i < 2; i++) {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        assert_true((size_t)snprintf(sa.sun_path, sizeof sa.sun_path,
                                     "%s/out/%s.sock", t.t_root,
                                     i == 0 ? "shown" : "other") <
                    sizeof sa.sun_path);
        l[i] = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        assert_true(l[i] >= 0);
        assert_int_equal(bind(l[i], (struct sockaddr *)&sa, sizeof sa), 0);
        assert_int_equal(listen(l[i], 4), 0);
    }

    av_start(&a);
    av_add(&a, "--read");
    av_add(&a, "%s/out/keep", t.t_root);
    av_add(&a, "--hide");
    av_add(&a, "%s/out", t.t_root);
    av_add(&a, "--show");
    av_add(&a, "%s/out/shown.sock", t.t_root);
    av_add(&a, "--show");
    av_add(&a, "%s/out/keep", t.t_root);
    av_program(&a, probe_bin);
    av_add(&a, "unix");
    av_add(&a, "%s/out/shown.sock", t.t_root);
    av_add(&a, "unix");
    av_add(&a, "%s/out/other.sock", t.t_root);
    av_add(&a, "read");
    av_add(&a, "%s/out/keep/k.txt", t.t_root);
    av_add(&a, "read");
    av_add(&a, "%s/out/b.txt", t.t_root);
    av_add(&a, "list");
    av_add(&a, "%s/out", t.t_root);
    av_add(&a, "write");
    av_add(&a, "%s/out/new", t.t_root);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    snprintf(want, sizeof want,
             "unix %s/out/shown.sock: ok\n"
             "unix %s/out/other.sock: ENOENT\n"
             "read %s/out/keep/k.txt: ok\n"
             "read %s/out/b.txt: ENOENT\n"
             "list %s/out: EACCES\n"
             "write %s/out/new: EROFS\n",
             t.t_root, t.t_root, t.t_root, t.t_root, t.t_root, t.t_root);
    assert_string_equal(r.ro_out, want);
    run_free(&r);
    close(l[0]);
    close(l[1]);

    static const char *const bad[][4] = {
        {"--show", "/OUT/keep", NULL, "lies beneath no --hide directory"},
        {"--hide", "/OUT", "/OUT/keep/k.txt", "lies inside --show"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        av_start(&a);
        for (int k = 0; k < 3 && bad[i][k] != NULL; k++) {
            const char *v = bad[i][k];
            if (k == 2)
                av_add(&a, "--show");
            if (strncmp(v, "/OUT", 4) == 0)
                av_add(&a, "%s/out%s", t.t_root, v + 4);
            else
                av_add(&a, "%s", v);
        }
        if (i == 1) {
            av_add(&a, "--show");
            av_add(&a, "%s/out/keep", t.t_root);
        }
        av_program(&a, "/bin/true");
        run(&r, a.a_v);
        assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
        assert_non_null(strstr(r.ro_err, bad[i][3]));
        run_free(&r);
    }
    tree_rm(&t);
}

/* ct_elf_interp on one file written with len bytes of text. */
static ct_interp
interp_of(const tree *t, const void *text, size_t len, char *buf, size_t n)
{
    char p[600];
    snprintf(p, sizeof p, "%s/w/elf", t->t_root);
    int fd = open(p, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, len), (ssize_t)len);
    ct_interp k = ct_elf_interp(fd, buf, n);
    close(fd);
    return k;
}

/*
 * The loader a file names, from untrusted bytes: a real program's
 * PT_INTERP, a script's #! path, nothing for text, and BAD (never a
 * path) for a truncated or hostile header.
 */
static void
test_elf_interp(void **state)
{
    tree t;
    char buf[PATH_MAX], head[4096];
    tree_make(&t);

    int fd = open("/usr/bin/true", O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(ct_elf_interp(fd, buf, sizeof buf), CT_INTERP_FOUND);
    assert_int_equal(access(buf, X_OK), 0);
    assert_non_null(strstr(buf, "ld-linux"));
    ssize_t got = read(fd, head, sizeof head);
    close(fd);
    assert_true(got == (ssize_t)sizeof head);

    assert_int_equal(interp_of(&t, "#!/bin/sh -e\n", 13, buf, sizeof buf),
                     CT_INTERP_SCRIPT);
    assert_string_equal(buf, "/bin/sh");
    assert_int_equal(
        interp_of(&t, "#! /usr/bin/env python3\n", 24, buf, sizeof buf),
        CT_INTERP_SCRIPT);
    assert_string_equal(buf, "/usr/bin/env");
    assert_int_equal(interp_of(&t, "#!\n", 3, buf, sizeof buf), CT_INTERP_BAD);
    assert_int_equal(interp_of(&t, "hello\n", 6, buf, sizeof buf),
                     CT_INTERP_NONE);
    assert_int_equal(interp_of(&t, "", 0, buf, sizeof buf), CT_INTERP_NONE);
    // The header alone: its program headers lie past the end.
    assert_int_equal(interp_of(&t, head, 64, buf, sizeof buf), CT_INTERP_BAD);
    // A header claiming 65535 program headers.
    char hostile[4096];
    memcpy(hostile, head, sizeof hostile);
    hostile[56] = (char)0xff; // e_phnum of an Elf64_Ehdr
    hostile[57] = (char)0xff;
    assert_int_equal(interp_of(&t, hostile, sizeof hostile, buf, sizeof buf),
                     CT_INTERP_BAD);
    // A PT_INTERP longer than the caller's buffer is refused, not cut.
    assert_int_equal(interp_of(&t, head, sizeof head, buf, 8), CT_INTERP_BAD);
    tree_rm(&t);
}

/* A grant whose directory above was swapped for a symbolic link since it
 * was checked names what the link points to now: refused, not followed. */
static void
test_grant_through_link_refused(void **state)
{
    tree t;
    av a;
    run_out r;
    char link[512], p[512];
    need_sandbox();
    tree_make(&t);
    snprintf(link, sizeof link, "%s/w/x", t.t_root);
    snprintf(p, sizeof p, "%s/out", t.t_root);
    assert_int_equal(symlink(p, link), 0);

    av_start(&a);
    av_add(&a, "--read");
    av_add(&a, "%s/w/x/b.txt", t.t_root);
    av_program(&a, "/usr/bin/cat");
    av_add(&a, "%s/w/x/b.txt", t.t_root);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
    assert_null(strstr(r.ro_out, "secret"));
    assert_non_null(strstr(r.ro_err, "Too many levels of symbolic links"));
    run_free(&r);
    tree_rm(&t);
}

/* Copies src to dst (mode 0755) with every copy of from (same length as
 * to) replaced by to. */
static void
copy_patched(const char *src, const char *dst, const char *from,
             const char *to)
{
    int fd = open(src, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    char *img = box_alloc((size_t)st.st_size);
    assert_non_null(img);
    assert_int_equal(read(fd, img, (size_t)st.st_size), st.st_size);
    close(fd);
    size_t n = strlen(from);
    assert_int_equal(strlen(to), n);
    int hits = 0;
    for (char *q = img; (q = memmem(q, (size_t)(img + st.st_size - q), from,
                                    n)) != NULL;
         q += n, hits++)
        memcpy(q, to, n);
    assert_true(hits > 0);
    fd = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, img, (size_t)st.st_size), st.st_size);
    close(fd);
    box_free(img);
}

/* The loader a header names is the agent's to write (PT_INTERP is any
 * path): naming a secret there must not hand the sandbox read or execute
 * on it. Only a root-owned loader in a library tree gets the right. */
static void
test_loader_must_be_the_systems(void **state)
{
    tree t;
    av a;
    run_out r;
    char interp[PATH_MAX], fake[PATH_MAX], tool[512], secret[512];
    need_sandbox();
    tree_make(&t);
    int fd = open("/usr/bin/true", O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(ct_elf_interp(fd, interp, sizeof interp),
                     CT_INTERP_FOUND);
    close(fd);
    // A path as long as the real loader's, a link to the secret.
    snprintf(secret, sizeof secret, "%s/out/b.txt", t.t_root);
    size_t n = strlen(interp);
    assert_true(n >= 16 && n < sizeof fake);
    snprintf(fake, sizeof fake, "/tmp/ctl%0*d", (int)(n - 8), (int)getpid());
    assert_int_equal(strlen(fake), n);
    (void)unlink(fake);
    assert_int_equal(symlink(secret, fake), 0);
    snprintf(tool, sizeof tool, "%s/w/tool", t.t_root);
    copy_patched("/usr/bin/true", tool, interp, fake);

    av_start(&a);
    av_add(&a, "--exec");
    av_add(&a, "%s", tool);
    av_program(&a, sh_bin);
    av_add(&a, "-c");
    av_add(&a, "read l < %s && echo \"got $l\"", fake);
    run(&r, a.a_v);
    assert_null(strstr(r.ro_out, "got secret"));
    assert_int_not_equal(r.ro_status, 0);
    run_free(&r);
    assert_int_equal(unlink(fake), 0);
    tree_rm(&t);
}

/* Reading a program directory does not make its programs mappable by the
 * loader again: only the exec list does. */
static void
test_read_program_dir_stays_noexec(void **state)
{
    av a;
    run_out r;
    char interp[PATH_MAX];
    need_sandbox();
    int fd = open("/usr/bin/id", O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(ct_elf_interp(fd, interp, sizeof interp),
                     CT_INTERP_FOUND);
    close(fd);
    const char *lists[] = {"--read", "--list"};
    for (size_t i = 0; i < 2; i++) {
        av_start(&a);
        av_add(&a, "%s", lists[i]);
        av_add(&a, "/usr/bin");
        av_program(&a, interp);
        av_add(&a, "/usr/bin/id");
        run(&r, a.a_v);
        assert_null(strstr(r.ro_out, "uid="));
        assert_int_not_equal(r.ro_status, 0);
        run_free(&r);
    }
}

/* A #! line naming a FIFO is never opened for reading: box-contain does
 * not hang on it (the test's alarm would end it). */
static void
test_script_interp_fifo(void **state)
{
    tree t;
    av a;
    run_out r;
    char fifo[512], script[512], text[600];
    need_sandbox();
    tree_make(&t);
    snprintf(fifo, sizeof fifo, "%s/w/fifo", t.t_root);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    snprintf(script, sizeof script, "%s/w/s", t.t_root);
    snprintf(text, sizeof text, "#!%s\n", fifo);
    write_file(script, text, 0755);
    alarm(20);
    av_start(&a);
    av_add(&a, "--exec");
    av_add(&a, "%s", script);
    av_program(&a, "/usr/bin/true");
    run(&r, a.a_v);
    alarm(0);
    assert_int_equal(r.ro_status, 0);
    run_free(&r);
    tree_rm(&t);
}

/* src's bytes then extra (n bytes) as dst, mode 0755. */
static void
copy_plus(const char *src, const char *dst, const void *extra, size_t n)
{
    char buf[65536];
    int in = open(src, O_RDONLY | O_CLOEXEC);
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    ssize_t got;
    assert_true(in >= 0 && out >= 0);
    while ((got = read(in, buf, sizeof buf)) > 0)
        assert_int_equal(write(out, buf, (size_t)got), got);
    assert_int_equal(got, 0);
    if (n > 0)
        assert_int_equal(write(out, extra, n), (ssize_t)n);
    close(in);
    close(out);
}

/*
 * A tree for --shells: T/bin/sh (echo, which shows the argv the shim
 * passed on) and T/bin/bash (true, which shows nothing), and T/shim, the
 * shim with its trailer naming T/bin (box_shells.h).
 */
static void
shells_tree(tree *t, char *shim, size_t n)
{
    char bin[512], p[600], trailer[600];
    const char *dir = getenv("BOX_BUILD_DIR");
    size_t len;
    tree_make(t);
    snprintf(bin, sizeof bin, "%s/bin", t->t_root);
    assert_int_equal(mkdir(bin, 0755), 0);
    snprintf(p, sizeof p, "%s/sh", bin);
    copy_plus("/usr/bin/echo", p, NULL, 0);
    snprintf(p, sizeof p, "%s/bash", bin);
    copy_plus("/usr/bin/true", p, NULL, 0);
    len = strlen(bin);
    memcpy(trailer, bin, len);
    for (int i = 0; i < 4; i++)
        trailer[len + (size_t)i] = (char)((len >> (8 * i)) & 0xff);
    memcpy(trailer + len + 4, "box-shim", 8);
    snprintf(shim, n, "%s/shim", t->t_root);
    snprintf(p, sizeof p, "%s/bin/box-shell-shim", dir);
    copy_plus(p, shim, trailer, len + 12);
}

static void
shells_args(av *a, const tree *t, const char *shim)
{
    av_add(a, "--exec");
    av_add(a, "%s/bin/sh", t->t_root);
    av_add(a, "--exec");
    av_add(a, "%s/bin/bash", t->t_root);
    av_add(a, "--shells");
    av_add(a, "%s", shim);
}

/*
 * --shells: each shell path runs the alias of its name from the shim's
 * directory (dash is sh), with the argv it was given; the program itself
 * (here the host's sh) is the real one, opened before the covers; a
 * shell a --deny masks stays masked.
 */
static void
test_shells_cover(void **state)
{
    tree t;
    av a;
    run_out r;
    char shim[600];
    const char *script = "/bin/sh -c one; /bin/bash -c two; /bin/dash -c "
                         "three; /usr/bin/sh -c four; ulimit -n >/dev/null "
                         "&& echo real";
    need_sandbox();
    shells_tree(&t, shim, sizeof shim);
    av_start(&a);
    shells_args(&a, &t, shim);
    av_program(&a, sh_bin);
    av_add(&a, "-c");
    av_add(&a, "%s", script);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    assert_string_equal(r.ro_out, "-c one\n-c three\n-c four\nreal\n");
    run_free(&r);

    // Without --shells the same names are the host's own (and the sandbox
    // may run only the program's own file: the host's sh is that file).
    av_start(&a);
    av_program(&a, sh_bin);
    av_add(&a, "-c");
    av_add(&a, "/bin/sh -c 'echo host'");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    assert_string_equal(r.ro_out, "host\n");
    run_free(&r);

    char bash[PATH_MAX];
    if (realpath("/bin/bash", bash) != NULL) {
        av_start(&a);
        shells_args(&a, &t, shim);
        av_add(&a, "--deny");
        av_add(&a, "%s", bash);
        av_program(&a, sh_bin);
        av_add(&a, "-c");
        av_add(&a, "/bin/bash -c two; echo \"bash $?\"; /bin/sh -c one");
        run(&r, a.a_v);
        assert_int_equal(r.ro_status, 0);
        assert_string_equal(r.ro_out, "bash 126\n-c one\n");
        run_free(&r);
    }
    tree_rm(&t);
}

/*
 * A #! program whose interpreter --shells covers starts under the real
 * interpreter (it was opened before the covers), with the argv the kernel
 * gives one; what it runs by /bin/sh is the alias.
 */
static void
test_shells_script_interp(void **state)
{
    tree t;
    av a;
    run_out r;
    char shim[600], script[512];
    need_sandbox();
    shells_tree(&t, shim, sizeof shim);
    snprintf(script, sizeof script, "%s/w/s", t.t_root);
    write_file(script,
               "#!/bin/sh -e\n"
               "ulimit -n >/dev/null && echo \"real $# $1 $2\"\n"
               "case $- in *e*) echo errexit ;; esac\n"
               "/bin/sh -c covered\n",
               0755);
    av_start(&a);
    shells_args(&a, &t, shim);
    av_add(&a, "--exec");
    av_add(&a, "%s", sh_bin); // the interpreter must be listed, as ever
    av_program(&a, script);
    av_add(&a, "a1");
    av_add(&a, "a2");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    assert_string_equal(r.ro_out, "real 2 a1 a2\nerrexit\n-c covered\n");
    run_free(&r);
    tree_rm(&t);
}

/* --shells takes one absolute path. */
static void
test_shells_args_refused(void **state)
{
    static const char *const bad[][3] = {
        {"--shells", "rel/shim", "--shells rel/shim: expected an absolute"},
        {"--shells", "/a/../shim",
         "--shells /a/../shim: expected an absolute path without '..'"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        av a;
        run_out r;
        av_start(&a);
        av_add(&a, "%s", bad[i][0]);
        av_add(&a, "%s", bad[i][1]);
        av_program(&a, "/usr/bin/true");
        run(&r, a.a_v);
        assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
        assert_non_null(strstr(r.ro_err, bad[i][2]));
        run_free(&r);
    }
    av a;
    run_out r;
    av_start(&a);
    av_add(&a, "--shells");
    av_add(&a, "/x");
    av_add(&a, "--shells");
    av_add(&a, "/y");
    av_program(&a, "/usr/bin/true");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
    assert_non_null(strstr(r.ro_err, "--shells given twice"));
    run_free(&r);
}

/* A denied file with a second name is refused: the mask would cover one
 * name, and the other would still read the content. */
static void
test_deny_hard_link_refused(void **state)
{
    tree t;
    av a;
    run_out r;
    char deny[512], second[512];
    need_sandbox();
    tree_make(&t);
    snprintf(deny, sizeof deny, "%s/out/b.txt", t.t_root);
    snprintf(second, sizeof second, "%s/out/b2.txt", t.t_root);
    assert_int_equal(link(deny, second), 0);
    av_start(&a);
    av_add(&a, "--read");
    av_add(&a, "%s/out", t.t_root);
    av_add(&a, "--deny");
    av_add(&a, "%s", deny);
    av_program(&a, "/usr/bin/cat");
    av_add(&a, "%s", second);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
    assert_null(strstr(r.ro_out, "secret"));
    assert_non_null(strstr(r.ro_err, "has 2 names (hard links)"));
    run_free(&r);
    tree_rm(&t);
}

/* A signal sent to box-contain reaches the program; its status comes back. */
static void
test_signal_forwarded(void **state)
{
    av a;
    int po[2], ws;
    char buf[64];
    ssize_t n;
    pid_t pid;

    need_sandbox();
    av_start(&a);
    av_program(&a, probe_bin);
    av_add(&a, "sleep");
    assert_int_equal(pipe2(po, O_CLOEXEC), 0);
    pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(po[1], 1);
        execv(a.a_v[0], a.a_v);
        _exit(91);
    }
    close(po[1]);
    n = read(po[0], buf, sizeof buf - 1);
    assert_true(n > 0);
    buf[n] = '\0';
    assert_string_equal(buf, "ready\n");
    assert_int_equal(kill(pid, SIGTERM), 0);
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    assert_int_equal(WEXITSTATUS(ws), 128 + SIGTERM);
    close(po[0]);
}

/* Copies an executable to dst (mode 0755): the build tree may sit under a
 * directory another uid cannot enter (a clone in /root). */
static void
copy_exec(const char *src, const char *dst)
{
    int in = open(src, O_RDONLY | O_CLOEXEC);
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
    assert_true(in >= 0 && out >= 0);
    char buf[65536];
    ssize_t n;
    while ((n = read(in, buf, sizeof buf)) > 0)
        assert_int_equal(write(out, buf, (size_t)n), n);
    assert_int_equal(n, 0);
    close(in);
    assert_int_equal(fchmod(out, 0755), 0);
    close(out);
}

/* Not root: box-contain makes its own user namespace first. */
static void
test_unprivileged_caller(void **state)
{
    tree t;
    av a;
    run_out r;
    const int nobody = 65534;

    need_sandbox();
    if (geteuid() != 0) {
        print_message("already unprivileged; the other tests cover this\n");
        skip();
    }
    tree_make(&t);
    assert_int_equal(chmod(t.t_root, 0755), 0);
    char my_contain[300], my_probe[300];
    snprintf(my_contain, sizeof my_contain, "%s/box-contain", t.t_root);
    snprintf(my_probe, sizeof my_probe, "%s/contain_probe", t.t_root);
    copy_exec(contain_bin, my_contain);
    copy_exec(probe_bin, my_probe);
    av_start(&a);
    snprintf(a.a_store[0], sizeof a.a_store[0], "%.300s", my_contain);
    av_add(&a, "--read");
    av_add(&a, "%s/in", t.t_root);
    av_program(&a, my_probe);
    av_add(&a, "read");
    av_add(&a, "%s/in/a.txt", t.t_root);
    av_add(&a, "read");
    av_add(&a, "%s/out/b.txt", t.t_root);
    av_add(&a, "mmap");
    av_add(&a, "/usr/bin/env");
    av_add(&a, "syscalls");
    av_add(&a, "caps");
    av_add(&a, "pid");
    run_as(&r, a.a_v, -1, nobody);
    if (r.ro_status == BOX_STATUS_FAULT &&
        strstr(r.ro_err, "user namespaces") != NULL) {
        char err[1024];
        snprintf(err, sizeof err, "%s", r.ro_err);
        run_free(&r);
        tree_rm(&t);
        // Not a feature this machine's box lacks: run as root (as here),
        // box-contain makes no user namespace, and every other case runs
        // that way. Some hosts (a container's root, a sysctl) refuse user
        // namespaces to other users; the case is for the machines where
        // box runs unprivileged, so it is skipped, even in CI.
        print_message("skipped: this host refuses user namespaces to uid %d "
                      "(box runs as root here and needs none):\n%s",
                      nobody, err);
        skip();
    }
    assert_int_equal(r.ro_status, 0);
    assert_non_null(strstr(r.ro_out, "/in/a.txt: ok\n"));
    assert_non_null(strstr(r.ro_out, "/out/b.txt: EACCES\n"));
    // The program directories are noexec binds in its namespace too.
    assert_non_null(strstr(r.ro_out, "mmap /usr/bin/env: EPERM\n"));
    assert_non_null(strstr(r.ro_out, "ptrace: EPERM\n"));
    assert_non_null(strstr(r.ro_out, "unshare_user: EPERM\n"));
    assert_non_null(strstr(r.ro_out, "CapEff:\t0000000000000000\n"));
    assert_non_null(strstr(r.ro_out, "pid=2 ppid=1\n"));
    run_free(&r);

    // Masks, covers and shown paths are made inside its user namespace.
    char sub[600];
    snprintf(sub, sizeof sub, "%s/in/sub", t.t_root);
    assert_int_equal(mkdir(sub, 0755), 0);
    snprintf(sub, sizeof sub, "%s/in/sub/f", t.t_root);
    write_file(sub, "f\n", 0644);
    av_start(&a);
    snprintf(a.a_store[0], sizeof a.a_store[0], "%.300s", my_contain);
    av_add(&a, "--read");
    av_add(&a, "%s/in", t.t_root);
    av_add(&a, "--deny");
    av_add(&a, "%s/in/sub", t.t_root);
    av_add(&a, "--hide");
    av_add(&a, "%s/out", t.t_root);
    av_add(&a, "--show");
    av_add(&a, "%s/out/b.txt", t.t_root);
    av_program(&a, my_probe);
    av_add(&a, "read");
    av_add(&a, "%s/in/sub/f", t.t_root);
    av_add(&a, "list");
    av_add(&a, "%s/in", t.t_root);
    av_add(&a, "unix");
    av_add(&a, "%s/out/b.txt", t.t_root);
    run_as(&r, a.a_v, -1, nobody);
    assert_int_equal(r.ro_status, 0);
    char want[2048];
    snprintf(want, sizeof want,
             "read %s/in/sub/f: ENOENT\nlist %s/in: a.txt c.txt sub\n"
             "unix %s/out/b.txt: EACCES\n", // there: not ENOENT
             t.t_root, t.t_root, t.t_root);
    assert_string_equal(r.ro_out, want);
    run_free(&r);

    // And --probe as that user names user namespaces as needed.
    char *argv[] = {contain_bin, "--probe", NULL};
    run_as(&r, argv, -1, nobody);
    assert_non_null(strstr(r.ro_out, "user-namespace: "));
    assert_null(strstr(r.ro_out, "user-namespace: unused"));
    run_free(&r);
    tree_rm(&t);
}

/* The dynamic loader /bin/sh names (every dynamic program's). */
static void
loader_of_sh(char *buf, size_t n)
{
    int fd = open(sh_bin, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    assert_int_equal(ct_elf_interp(fd, buf, n), CT_INTERP_FOUND);
    close(fd);
}

/*
 * Every dynamic program may execute its loader, and the loader runs any
 * ELF it can read, by mapping it executable: Landlock does not govern
 * that mmap. In the sandbox the system's program directories and every
 * grant are noexec binds, so the loader cannot run a program outside
 * what may run (/usr/bin/touch), an ELF copied into a write grant, or
 * preload a shared object from there; the program itself and the --exec
 * files still run through it. Before the binds, each of F1, F2 and the
 * preload mark was made.
 */
static void
test_loader_runs_only_exec_set(void **state)
{
    tree t;
    av a;
    run_out r;
    char ld[PATH_MAX], p[600], lib[PATH_MAX + 16];
    static char script[8 * PATH_MAX], want[4 * PATH_MAX];

    need_sandbox();
    tree_make(&t);
    loader_of_sh(ld, sizeof ld);
    snprintf(p, sizeof p, "%s/w/touch", t.t_root);
    copy_exec("/usr/bin/touch", p);
    snprintf(p, sizeof p, "%s/w/evil.so", t.t_root);
    copy_exec(preload_so, p);
    snprintf(script, sizeof script,
             "%s /usr/bin/touch %s/w/F1; echo \"system $?\"; "
             "%s %s/w/touch %s/w/F2; echo \"copied $?\"; "
             "%s --preload %s/w/evil.so %s -c 'exit 5'; echo \"preload $?\"; "
             "%s /usr/bin/true; echo \"exec-list $?\"; "
             "%s %s -c 'exit 3'; echo \"program $?\"",
             ld, t.t_root, ld, t.t_root, t.t_root, ld, t.t_root, sh_bin, ld, ld,
             sh_bin);
    av_start(&a);
    av_add(&a, "--write");
    av_add(&a, "%s/w", t.t_root);
    av_add(&a, "--exec");
    av_add(&a, "/usr/bin/true");
    av_add(&a, "--env");
    av_add(&a, "CONTAIN_PRELOAD_MARK=%s/w/mark", t.t_root);
    av_program(&a, sh_bin);
    av_add(&a, "-c");
    av_add(&a, "%s", script);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    assert_string_equal(r.ro_out, "system 127\ncopied 127\npreload 5\n"
                                  "exec-list 0\nprogram 3\n");
    assert_non_null(strstr(r.ro_err, "/usr/bin/touch: failed to map segment "
                                     "from shared object"));
    assert_non_null(strstr(r.ro_err, "/w/touch: failed to map segment"));
    assert_non_null(strstr(r.ro_err, "evil.so' from --preload cannot be "
                                     "preloaded"));
    run_free(&r);
    static const char *const made[] = {"F1", "F2", "mark"};
    for (size_t i = 0; i < sizeof made / sizeof *made; i++) {
        snprintf(p, sizeof p, "%s/w/%s", t.t_root, made[i]);
        if (access(p, F_OK) == 0)
            print_message("%s was made\n", p);
        assert_int_equal(access(p, F_OK), -1);
    }

    // What the loader does, one mapping each: a program directory and a
    // grant refuse it (EPERM); the program, an --exec file, an --exec
    // directory inside the write grant and the library directories allow
    // it; a grant inside that --exec directory refuses it again (the
    // deepest entry wins).
    char *slash = realpath(ld, p) != NULL ? strrchr(p, '/') : NULL;
    assert_non_null(slash);
    *slash = '\0';
    snprintf(lib, sizeof lib, "%s/libc.so.6", p);
    static const char *const dirs[] = {"w/bin", "w/bin/out"};
    for (size_t i = 0; i < 2; i++) {
        snprintf(p, sizeof p, "%s/%s", t.t_root, dirs[i]);
        assert_int_equal(mkdir(p, 0755), 0);
        snprintf(p, sizeof p, "%s/%s/true", t.t_root, dirs[i]);
        copy_exec("/usr/bin/true", p);
    }
    av_start(&a);
    av_add(&a, "--write");
    av_add(&a, "%s/w", t.t_root);
    av_add(&a, "--exec");
    av_add(&a, "/usr/bin/true");
    av_add(&a, "--exec");
    av_add(&a, "%s/w/bin", t.t_root);
    av_add(&a, "--write");
    av_add(&a, "%s/w/bin/out", t.t_root);
    av_program(&a, probe_bin);
    const char *maps[] = {
        "/usr/bin/env", "/usr/bin/true", probe_bin,       lib, ld,
        "W/touch",      "W/bin/true",    "W/bin/out/true"};
    for (size_t i = 0; i < sizeof maps / sizeof *maps; i++) {
        av_add(&a, "mmap");
        if (maps[i][0] == 'W')
            av_add(&a, "%s/w%s", t.t_root, maps[i] + 1);
        else
            av_add(&a, "%s", maps[i]);
    }
    av_add(&a, "exec");
    av_add(&a, "%s/w/bin/true", t.t_root);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    snprintf(want, sizeof want,
             "mmap /usr/bin/env: EPERM\nmmap /usr/bin/true: ok\n"
             "mmap %s: ok\nmmap %s: ok\nmmap %s: ok\n"
             "mmap %s/w/touch: EPERM\nmmap %s/w/bin/true: ok\n"
             "mmap %s/w/bin/out/true: EPERM\nexec %s/w/bin/true: ok\n",
             probe_bin, lib, ld, t.t_root, t.t_root, t.t_root, t.t_root);
    assert_string_equal(r.ro_out, want);
    run_free(&r);

    // A grant of / itself (set in place: a mount over / is not what paths
    // resolve through) or of a library tree: the libraries stay mappable
    // and the program starts; the program directories and every other
    // file stay noexec.
    snprintf(p, sizeof p, "%s/out/touch", t.t_root);
    copy_exec("/usr/bin/touch", p);
    for (int i = 0; i < 2; i++) {
        av_start(&a);
        av_add(&a, "--read");
        av_add(&a, "%s", i == 0 ? "/" : "/usr");
        av_program(&a, probe_bin);
        av_add(&a, "mmap");
        av_add(&a, "%s", lib);
        av_add(&a, "mmap");
        av_add(&a, "/usr/bin/env");
        av_add(&a, "mmap");
        av_add(&a, "%s/out/touch", t.t_root);
        run(&r, a.a_v);
        assert_int_equal(r.ro_status, 0);
        snprintf(want, sizeof want,
                 "mmap %s: ok\nmmap /usr/bin/env: EPERM\n"
                 "mmap %s/out/touch: %s\n",
                 lib, t.t_root, i == 0 ? "EPERM" : "EACCES");
        assert_string_equal(r.ro_out, want);
        run_free(&r);
    }
    tree_rm(&t);
}

/*
 * A read-type entry (--read, --read-file, --list) inside a write grant is
 * read-only there: a write in it fails (EROFS), a rename onto it or a
 * removal of it fails (EBUSY: it is a mount point, which is how git's
 * rename of config.lock onto .git/config is refused), and a write grant
 * deeper inside it is writable again. The host's files are untouched.
 * The same path in --read and --write stays writable. Before the carve,
 * the write grant around them made every one of these writes succeed.
 */
static void
test_read_carve(void **state)
{
    tree t;
    av a;
    run_out r;
    char p[600], want[4096];

    need_sandbox();
    tree_make(&t);
    static const char *const dirs[] = {"w/ro", "w/ro/deep", "w/ls"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(p, sizeof p, "%s/%s", t.t_root, dirs[i]);
        assert_int_equal(mkdir(p, 0755), 0);
    }
    snprintf(p, sizeof p, "%s/w/cfg", t.t_root);
    write_file(p, "cfg\n", 0644);
    snprintf(p, sizeof p, "%s/w/cfg.lock", t.t_root);
    write_file(p, "planted\n", 0644);

    av_start(&a);
    av_add(&a, "--write");
    av_add(&a, "%s/w", t.t_root);
    av_add(&a, "--read");
    av_add(&a, "%s/w/ro", t.t_root);
    av_add(&a, "--read-file");
    av_add(&a, "%s/w/cfg", t.t_root);
    av_add(&a, "--list");
    av_add(&a, "%s/w/ls", t.t_root);
    av_add(&a, "--write");
    av_add(&a, "%s/w/ro/deep", t.t_root);
    av_program(&a, probe_bin);
    static const char *const cmds[][3] = {
        {"read", "w/cfg", NULL},           {"write", "w/cfg", NULL},
        {"rename", "w/cfg.lock", "w/cfg"}, {"unlink", "w/cfg", NULL},
        {"write", "w/ro/new", NULL},       {"rename", "w/ro", "w/moved"},
        {"write", "w/ls/new", NULL},       {"write", "w/ro/deep/new", NULL},
        {"write", "w/new", NULL},
    };
    for (size_t i = 0; i < sizeof cmds / sizeof *cmds; i++) {
        av_add(&a, "%s", cmds[i][0]);
        av_add(&a, "%s/%s", t.t_root, cmds[i][1]);
        if (cmds[i][2] != NULL)
            av_add(&a, "%s/%s", t.t_root, cmds[i][2]);
    }
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    const char *R = t.t_root;
    snprintf(want, sizeof want,
             "read %s/w/cfg: ok\n"
             "write %s/w/cfg: EROFS\n"
             "rename %s/w/cfg.lock %s/w/cfg: EBUSY\n"
             "unlink %s/w/cfg: EBUSY\n"
             "write %s/w/ro/new: EROFS\n"
             "rename %s/w/ro %s/w/moved: EBUSY\n"
             "write %s/w/ls/new: EROFS\n"
             "write %s/w/ro/deep/new: ok\n"
             "write %s/w/new: ok\n",
             R, R, R, R, R, R, R, R, R, R, R);
    assert_string_equal(r.ro_out, want);
    run_free(&r);
    snprintf(p, sizeof p, "%s/w/cfg", t.t_root);
    expect_file(p, "cfg\n");
    snprintf(p, sizeof p, "%s/w/cfg.lock", t.t_root);
    expect_file(p, "planted\n");
    snprintf(p, sizeof p, "%s/w/ro/new", t.t_root);
    assert_int_equal(access(p, F_OK), -1);

    // One path in both lists: the write grant holds.
    av_start(&a);
    av_add(&a, "--read");
    av_add(&a, "%s/w", t.t_root);
    av_add(&a, "--write");
    av_add(&a, "%s/w", t.t_root);
    av_program(&a, probe_bin);
    av_add(&a, "write");
    av_add(&a, "%s/w/both", t.t_root);
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, 0);
    snprintf(want, sizeof want, "write %s/w/both: ok\n", t.t_root);
    assert_string_equal(r.ro_out, want);
    run_free(&r);
    tree_rm(&t);
}

/*
 * A kernel without a feature is imitated by a seccomp filter on the
 * caller: box-contain must refuse (125) and name the feature, and --probe
 * must report it missing.
 */
static void
hide_landlock(void)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    if (ctx == NULL ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS),
                         SYS_landlock_create_ruleset, 0) != 0 ||
        seccomp_load(ctx) != 0)
        _exit(92);
    seccomp_release(ctx);
}

static void
hide_netns(void)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    struct scmp_arg_cmp net =
        SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWNET, CLONE_NEWNET);
    if (ctx == NULL ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SYS_clone, 1, net) != 0 ||
        seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EINVAL), SYS_unshare, 1, net) !=
            0 ||
        seccomp_load(ctx) != 0)
        _exit(92);
    seccomp_release(ctx);
}

static void
test_missing_feature_refused(void **state)
{
    av a;
    run_out r;
    char *probe[] = {contain_bin, "--probe", NULL};

    av_start(&a);
    av_program(&a, "/bin/true");
    run_pre(&r, a.a_v, -1, -1, hide_landlock);
    assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
    assert_string_equal(r.ro_err,
                        "box-contain: refusing to run: the kernel has no "
                        "Landlock support (landlock_create_ruleset: Function "
                        "not implemented)\n");
    run_free(&r);

    run_pre(&r, probe, -1, -1, hide_landlock);
    assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
    assert_non_null(strstr(r.ro_out, "\nlandlock: missing (the kernel has "
                                     "no Landlock support"));
    assert_non_null(strstr(r.ro_out, "\nseccomp: ok"));
    run_free(&r);

    need_sandbox(); // the rest imitates a missing namespace on a full kernel
    run_pre(&r, a.a_v, -1, -1, hide_netns);
    assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
    assert_non_null(strstr(r.ro_err, "box-contain: refusing to run: the "
                                     "kernel cannot give this process a new "
                                     "network namespace"));
    run_free(&r);

    run_pre(&r, probe, -1, -1, hide_netns);
    assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
    assert_non_null(strstr(r.ro_out, "\nnet-namespace: missing ("));
    assert_non_null(strstr(r.ro_out, "\nlandlock: ok"));
    run_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_probe),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_read_inside_outside),
        cmocka_unit_test(test_read_file_only),
        cmocka_unit_test(test_write_inside_outside),
        cmocka_unit_test(test_hide),
        cmocka_unit_test(test_network_only_lo),
        cmocka_unit_test(test_syscalls_refused),
        cmocka_unit_test(test_exit_status),
        cmocka_unit_test(test_env_exact),
        cmocka_unit_test(test_identity_swapped),
        cmocka_unit_test(test_exec_fd_is_what_runs),
        cmocka_unit_test(test_missing_program),
        cmocka_unit_test(test_deny_shapes),
        cmocka_unit_test(test_deny_mask),
        cmocka_unit_test(test_exec_rule),
        cmocka_unit_test(test_hide_show),
        cmocka_unit_test(test_elf_interp),
        cmocka_unit_test(test_signal_forwarded),
        cmocka_unit_test(test_grant_through_link_refused),
        cmocka_unit_test(test_loader_must_be_the_systems),
        cmocka_unit_test(test_read_program_dir_stays_noexec),
        cmocka_unit_test(test_script_interp_fifo),
        cmocka_unit_test(test_deny_hard_link_refused),
        cmocka_unit_test(test_unprivileged_caller),
        cmocka_unit_test(test_loader_runs_only_exec_set),
        cmocka_unit_test(test_read_carve),
        cmocka_unit_test(test_missing_feature_refused),
        cmocka_unit_test(test_shells_cover),
        cmocka_unit_test(test_shells_script_interp),
        cmocka_unit_test(test_shells_args_refused),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
