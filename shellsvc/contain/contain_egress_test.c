/* SPDX-License-Identifier: Apache-2.0 */
/* --egress: the relay on its own (in this process's network), then the
 * whole path from inside a real sandbox to a Unix echo server. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_test_require.h"
#include "contain.h"
#include "contain_echo.h"
#include "contain_relay.h"

#define OUT_MAX (64u * 1024u)
#define MAX_ARGS 32
#define MIB (1024u * 1024u)

/* Shared, read-only after the group setup. */
static char contain_bin[4096];
static char helper_bin[4096];
static char probe_out[4096];
static int probe_status = -1;

typedef struct run_out {
    int ro_status; // exit code, or 128 + signal
    char *ro_out;
    char *ro_err;
    double ro_secs; // wall time
} run_out;

static void
run_free(run_out *r)
{
    box_free(r->ro_out);
    box_free(r->ro_err);
    r->ro_out = r->ro_err = NULL;
}

static double
now_secs(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
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

/* Runs argv (argv[0] the file) with stdout and stderr captured, as uid
 * (and the same gid) unless it is -1. */
static void
run_as(run_out *r, char *const argv[], int uid)
{
    int po[2], pe[2], ws;
    pid_t pid;
    box_buf bo, be;
    bool oo = true, eo = true;
    double t0 = now_secs();

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
        if (uid >= 0 && (setgroups(0, NULL) != 0 || setgid((gid_t)uid) != 0 ||
                         setuid((uid_t)uid) != 0))
            _exit(90);
        execv(argv[0], argv);
        _exit(91);
    }
    close(po[1]);
    close(pe[1]);
    while (oo || eo) {
        struct pollfd p[2] = {{oo ? po[0] : -1, POLLIN, 0},
                              {eo ? pe[0] : -1, POLLIN, 0}};
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
    r->ro_secs = now_secs() - t0;
    r->ro_status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
    r->ro_out = box_buf_take(&bo);
    r->ro_err = box_buf_take(&be);
    assert_non_null(r->ro_out);
    assert_non_null(r->ro_err);
    if (r->ro_err[0] != '\0')
        print_message("  [stderr] %s", r->ro_err);
}

static void
run(run_out *r, char *const argv[])
{
    run_as(r, argv, -1);
}

/* argv builder */
typedef struct av {
    char *a_v[MAX_ARGS + 1];
    char a_store[MAX_ARGS][256];
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

/* The helper with its mode and arguments, run directly (the relay tests). */
static void
av_helper(av *a)
{
    memset(a, 0, sizeof *a);
    av_add(a, "%s", helper_bin);
}

/* box-contain, optionally --egress E, running the helper. Mode and its
 * arguments follow with av_add. */
static void
av_contain(av *a, const char *egress)
{
    struct stat st;

    memset(a, 0, sizeof *a);
    av_add(a, "%s", contain_bin);
    if (egress != NULL) {
        av_add(a, "--egress");
        av_add(a, "%s", egress);
    }
    assert_int_equal(stat(helper_bin, &st), 0);
    av_add(a, "--exec-path");
    av_add(a, "%s", helper_bin);
    av_add(a, "--exec-id");
    av_add(a, "%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
    av_add(a, "--");
    av_add(a, "contain_egress_helper");
}

/* A scratch directory for the gateway's socket. */
typedef struct scratch {
    char s_dir[64];
    char s_sock[100]; // s_dir/gw.sock (fits sun_path)
} scratch;

static void
scratch_make(scratch *s)
{
    snprintf(s->s_dir, sizeof s->s_dir, "/tmp/contain_egress.XXXXXX");
    assert_non_null(mkdtemp(s->s_dir));
    snprintf(s->s_sock, sizeof s->s_sock, "%s/gw.sock", s->s_dir);
}

static void
scratch_rm(scratch *s)
{
    unlink(s->s_sock);
    assert_int_equal(rmdir(s->s_dir), 0);
}

/* ---- the relay on its own ---------------------------------------- */

/* A relay serving 127.0.0.1:rf_port (host network) towards gw.sock in
 * rf_s's directory, in a child process. */
typedef struct relay_fx {
    scratch rf_s;
    int rf_port;
    pid_t rf_pid;
} relay_fx;

static void
relay_up(relay_fx *f, size_t max_conns, size_t buf)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t len = sizeof sa;
    int lfd, dir;

    scratch_make(&f->rf_s);
    lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(lfd >= 0);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(lfd, 512), 0);
    assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &len), 0);
    f->rf_port = ntohs(sa.sin_port);
    dir = open(f->rf_s.s_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    assert_true(dir >= 0);
    f->rf_pid = fork();
    assert_true(f->rf_pid >= 0);
    if (f->rf_pid == 0) {
        ct_relay_limits lim = {.rl_max_conns = max_conns, .rl_buf = buf};
        ct_err e;
        box_status st = ct_relay_serve(lfd, dir, "gw.sock", &lim, &e);
        ct_report(&e);
        _exit(st);
    }
    close(lfd);
    close(dir);
}

static void
relay_down(relay_fx *f)
{
    int ws;

    // Still serving: it never returns on its own.
    assert_int_equal(waitpid(f->rf_pid, &ws, WNOHANG), 0);
    kill(f->rf_pid, SIGKILL);
    assert_int_equal(waitpid(f->rf_pid, &ws, 0), f->rf_pid);
    scratch_rm(&f->rf_s);
}

static int
tcp_connect(int port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    assert_true(fd >= 0);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof sa), 0);
    return fd;
}

/* How fd ends within 5 s: "eof", "reset", "data" or "timeout". */
static const char *
tcp_fate(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    char b;
    ssize_t n;

    if (poll(&p, 1, 5000) == 0)
        return "timeout";
    n = recv(fd, &b, 1, 0);
    return n == 0                ? "eof"
           : n > 0               ? "data"
           : errno == ECONNRESET ? "reset"
                                 : "error";
}

/* One round trip on fd: what was sent comes back. */
static void
tcp_roundtrip(int fd, const char *msg)
{
    char buf[64];
    size_t n = strlen(msg), got = 0;

    assert_int_equal(send(fd, msg, n, MSG_NOSIGNAL), (ssize_t)n);
    while (got < n) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        assert_int_equal(poll(&p, 1, 5000), 1);
        ssize_t r = recv(fd, buf + got, n - got, 0);
        assert_true(r > 0);
        got += (size_t)r;
    }
    assert_memory_equal(buf, msg, n);
}

/* Runs the helper's echo mode against the relay; it must say ok. */
static void
helper_echo(int port, unsigned conns, unsigned bytes)
{
    av a;
    run_out r;
    char want[64];

    av_helper(&a);
    av_add(&a, "echo");
    av_add(&a, "%d", port);
    av_add(&a, "%u", conns);
    av_add(&a, "%u", bytes);
    run(&r, a.a_v);
    snprintf(want, sizeof want, "echo %u x %u: ok\n", conns, bytes);
    assert_string_equal(r.ro_out, want);
    assert_int_equal(r.ro_status, 0);
    run_free(&r);
}

static void
test_relay_echo(void **state)
{
    relay_fx f;
    echo_srv *es;

    relay_up(&f, CT_RELAY_MAX_CONNS, CT_RELAY_BUF);
    assert_non_null(es = echo_start(f.rf_s.s_sock, NULL));
    helper_echo(f.rf_port, 1, 5);
    helper_echo(f.rf_port, 1, 0); // an empty exchange: both ends pass on
    helper_echo(f.rf_port, 16, 65536);
    helper_echo(f.rf_port, 1, MIB);
    assert_int_equal(echo_accepted(es), 1 + 1 + 16 + 1);
    echo_stop(es);
    relay_down(&f);
}

/* A one-byte buffer per direction still carries every byte, in order. */
static void
test_relay_tiny_buffer(void **state)
{
    relay_fx f;
    echo_srv *es;

    relay_up(&f, 4, 1);
    assert_non_null(es = echo_start(f.rf_s.s_sock, NULL));
    helper_echo(f.rf_port, 4, 20000);
    echo_stop(es);
    relay_down(&f);
}

/* After its half-close the client still gets the reply, then EOF. */
static void
test_relay_half_close(void **state)
{
    relay_fx f;
    echo_srv *es;
    char buf[8];
    int fd;

    relay_up(&f, 4, 64);
    assert_non_null(es = echo_start(f.rf_s.s_sock, NULL));
    fd = tcp_connect(f.rf_port);
    assert_int_equal(send(fd, "abc", 3, MSG_NOSIGNAL), 3);
    assert_int_equal(shutdown(fd, SHUT_WR), 0);
    size_t got = 0;
    for (;;) {
        struct pollfd p = {.fd = fd, .events = POLLIN};
        assert_int_equal(poll(&p, 1, 5000), 1);
        ssize_t n = recv(fd, buf + got, sizeof buf - got, 0);
        assert_true(n >= 0);
        if (n == 0)
            break;
        got += (size_t)n;
    }
    assert_int_equal(got, 3);
    assert_memory_equal(buf, "abc", 3);
    close(fd);
    echo_stop(es);
    relay_down(&f);
}

/* At the bound every connection is spliced; one past it is reset at
 * once and never reaches the gateway; a freed slot is taken again. */
static void
test_relay_conn_bound(void **state)
{
    relay_fx f;
    echo_srv *es;
    int fd[3];

    relay_up(&f, 2, 1024);
    assert_non_null(es = echo_start(f.rf_s.s_sock, NULL));
    fd[0] = tcp_connect(f.rf_port);
    tcp_roundtrip(fd[0], "one");
    fd[1] = tcp_connect(f.rf_port);
    tcp_roundtrip(fd[1], "two");
    fd[2] = tcp_connect(f.rf_port);
    assert_string_equal(tcp_fate(fd[2]), "reset");
    assert_int_equal(echo_accepted(es), 2);
    close(fd[2]);
    close(fd[0]);
    // The relay frees the slot once it sees the end through the gateway.
    for (int i = 0; i < 500 && echo_open(es) > 1; i++)
        usleep(10000);
    assert_int_equal(echo_open(es), 1);
    usleep(50000); // and the relay has dropped its side
    fd[0] = tcp_connect(f.rf_port);
    tcp_roundtrip(fd[0], "three");
    tcp_roundtrip(fd[1], "still");
    assert_int_equal(echo_accepted(es), 3);
    close(fd[0]);
    close(fd[1]);
    echo_stop(es);
    relay_down(&f);
}

/* No socket, or none listening: each client is reset at once. When the
 * gateway comes (back), the next connection reaches it: every client
 * gets a fresh connection, by name. */
static void
test_relay_gateway_down(void **state)
{
    relay_fx f;
    echo_srv *es;
    double t0;
    int fd;

    relay_up(&f, 4, 1024);
    t0 = now_secs();
    fd = tcp_connect(f.rf_port);
    assert_string_equal(tcp_fate(fd), "reset");
    close(fd);
    assert_true(now_secs() - t0 < 2.0);
    assert_non_null(es = echo_start(f.rf_s.s_sock, NULL));
    helper_echo(f.rf_port, 1, 100);
    echo_stop(es); // removes the socket
    fd = tcp_connect(f.rf_port);
    assert_string_equal(tcp_fate(fd), "reset");
    close(fd);
    // A socket bound but not listening refuses too.
    {
        struct sockaddr_un sa = {.sun_family = AF_UNIX};
        int u = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        snprintf(sa.sun_path, sizeof sa.sun_path, "%s", f.rf_s.s_sock);
        assert_int_equal(bind(u, (struct sockaddr *)&sa, sizeof sa), 0);
        fd = tcp_connect(f.rf_port);
        assert_string_equal(tcp_fate(fd), "reset");
        close(fd);
        close(u);
        unlink(f.rf_s.s_sock);
    }
    assert_non_null(es = echo_start(f.rf_s.s_sock, NULL));
    helper_echo(f.rf_port, 2, 100);
    echo_stop(es);
    relay_down(&f);
}

/* A client that never reads stalls only its own connection. */
static void
test_relay_slow_side(void **state)
{
    relay_fx f;
    echo_srv *es;
    char chunk[4096];
    size_t sent = 0;
    int fd;

    relay_up(&f, 4, 4096);
    assert_non_null(es = echo_start(f.rf_s.s_sock, NULL));
    fd = tcp_connect(f.rf_port);
    memset(chunk, 'z', sizeof chunk);
    // Fill every buffer on the way until the client's own send blocks.
    for (;;) {
        ssize_t n = send(fd, chunk, sizeof chunk, MSG_DONTWAIT | MSG_NOSIGNAL);
        if (n < 0) {
            assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
            struct pollfd p = {.fd = fd, .events = POLLOUT};
            if (poll(&p, 1, 500) == 0)
                break;
            continue;
        }
        sent += (size_t)n;
        assert_true(sent < 64 * MIB);
    }
    helper_echo(f.rf_port, 2, 200000);
    close(fd);
    echo_stop(es);
    relay_down(&f);
}

/*
 * The gateway answers and closes while the client is still sending (a
 * refusal before the body is read): the client gets the whole answer,
 * then an end, not a reset.
 */
static void
test_relay_early_answer(void **state)
{
    relay_fx f;
    echo_srv *es;
    char chunk[65536], got[64];
    size_t ngot = 0;
    bool sending = true;
    int fd;

    relay_up(&f, 4, 4096);
    assert_non_null(es = echo_start(f.rf_s.s_sock, "NO\n"));
    fd = tcp_connect(f.rf_port);
    memset(chunk, 'b', sizeof chunk);
    for (;;) {
        struct pollfd p = {.fd = fd,
                           .events = POLLIN | (sending ? POLLOUT : 0)};
        assert_int_equal(poll(&p, 1, 5000), 1);
        if (p.revents & POLLOUT) {
            ssize_t w =
                send(fd, chunk, sizeof chunk, MSG_DONTWAIT | MSG_NOSIGNAL);
            if (w < 0 && errno != EAGAIN)
                sending = false;
        }
        if (p.revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = recv(fd, got + ngot, sizeof got - ngot, MSG_DONTWAIT);
            if (n == 0)
                break;
            if (n < 0 && errno == EAGAIN)
                continue;
            assert_true(n > 0); // a reset here would lose the answer
            ngot += (size_t)n;
        }
    }
    assert_int_equal(ngot, 3);
    assert_memory_equal(got, "NO\n", 3);
    close(fd);
    echo_stop(es);
    relay_down(&f);
}

/* A client's reset ends its gateway connection too: nothing is left open. */
static void
test_relay_client_reset(void **state)
{
    relay_fx f;
    echo_srv *es;
    struct linger lg = {.l_onoff = 1, .l_linger = 0};
    int fd;

    relay_up(&f, 4, 1024);
    assert_non_null(es = echo_start(f.rf_s.s_sock, NULL));
    fd = tcp_connect(f.rf_port);
    tcp_roundtrip(fd, "hi");
    assert_int_equal(echo_open(es), 1);
    assert_int_equal(setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg), 0);
    close(fd);
    for (int i = 0; i < 500 && echo_open(es) > 0; i++)
        usleep(10000);
    assert_int_equal(echo_open(es), 0);
    echo_stop(es);
    relay_down(&f);
}

/* Bad arguments: refused with a message before anything is touched. */
static void
test_relay_bad_args(void **state)
{
    static const struct {
        const char *name;
        size_t conns, buf;
        int dir; // -1: a bad fd; else the scratch directory
        const char *msg;
    } cases[] = {
        {"a/b", 4, 16, 0, "egress relay: a/b: not a socket name"},
        {"", 4, 16, 0, "egress relay: : not a socket name"},
        {"x", 0, 16, 0, "egress relay: zero connections or buffer"},
        {"x", 4, 0, 0, "egress relay: zero connections or buffer"},
        {"x", 4, 16, -1, "egress relay: cannot enter the socket's directory"},
    };
    char cwd[4096], again[4096], longname[200];
    scratch s;
    int dir;

    scratch_make(&s);
    dir = open(s.s_dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    assert_true(dir >= 0);
    assert_non_null(getcwd(cwd, sizeof cwd));
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        ct_relay_limits lim = {cases[i].conns, cases[i].buf};
        ct_err e;
        memset(&e, 0, sizeof e);
        assert_int_equal(ct_relay_serve(-1, cases[i].dir < 0 ? -1 : dir,
                                        cases[i].name, &lim, &e),
                         BOX_STATUS_FAULT);
        assert_non_null(strstr(e.ce_msg, cases[i].msg));
    }
    // A name as long as sun_path holds with its NUL, and one past it.
    memset(longname, 'n', sizeof longname);
    longname[sizeof((struct sockaddr_un *)0)->sun_path] = '\0';
    {
        ct_relay_limits lim = {4, 16};
        ct_err e;
        memset(&e, 0, sizeof e);
        assert_int_equal(ct_relay_serve(-1, dir, longname, &lim, &e),
                         BOX_STATUS_FAULT);
        assert_non_null(strstr(e.ce_msg, "not a socket name"));
        // At the bound the name passes and the bad listener is what fails.
        longname[CONTAIN_EGRESS_PATH_MAX] = '\0';
        memset(&e, 0, sizeof e);
        assert_int_equal(ct_relay_serve(-1, dir, longname, &lim, &e),
                         BOX_STATUS_FAULT);
        assert_non_null(strstr(e.ce_msg, "egress relay: listening socket"));
    }
    assert_int_equal(chdir(cwd), 0); // the last case entered the directory
    assert_non_null(getcwd(again, sizeof again));
    assert_string_equal(again, cwd);
    close(dir);
    scratch_rm(&s);
}

/* ---- the sandbox -------------------------------------------------- */

static void
need_sandbox(void)
{
    if (probe_status != 0)
        box_test_missing("kernel feature for the sandbox; box-contain "
                         "--probe says:\n%s",
                         probe_out);
}

/* box-contain --egress E -- helper MODE ARGS...; E NULL: no --egress. */
static void
contain(run_out *r, const char *egress, const char *mode, const char *arg1,
        const char *arg2, const char *arg3)
{
    av a;
    const char *rest[] = {mode, arg1, arg2, arg3};

    av_contain(&a, egress);
    for (size_t i = 0; i < 4 && rest[i] != NULL; i++)
        av_add(&a, "%s", rest[i]);
    run(r, a.a_v);
}

static void
test_egress_echo(void **state)
{
    scratch s;
    echo_srv *es;
    char eg[200];
    run_out r;

    need_sandbox();
    scratch_make(&s);
    assert_non_null(es = echo_start(s.s_sock, NULL));
    snprintf(eg, sizeof eg, "%s:8080", s.s_sock);
    contain(&r, eg, "echo", "8080", "1", "5");
    assert_string_equal(r.ro_out, "echo 1 x 5: ok\n");
    assert_int_equal(r.ro_status, 0);
    run_free(&r);
    contain(&r, eg, "echo", "8080", "16", "65536"); // several at once
    assert_string_equal(r.ro_out, "echo 16 x 65536: ok\n");
    assert_int_equal(r.ro_status, 0);
    run_free(&r);
    contain(&r, eg, "echo", "8080", "1", "1048576"); // 1 MiB, byte-exact
    assert_string_equal(r.ro_out, "echo 1 x 1048576: ok\n");
    assert_int_equal(r.ro_status, 0);
    run_free(&r);
    // Ports at both ends of the range; 1 is bound while init still has
    // its capabilities in the sandbox's user namespace.
    snprintf(eg, sizeof eg, "%s:1", s.s_sock);
    contain(&r, eg, "echo", "1", "2", "1000");
    assert_string_equal(r.ro_out, "echo 2 x 1000: ok\n");
    run_free(&r);
    snprintf(eg, sizeof eg, "%s:65535", s.s_sock);
    contain(&r, eg, "echo", "65535", "2", "1000");
    assert_string_equal(r.ro_out, "echo 2 x 1000: ok\n");
    run_free(&r);
    assert_int_equal(echo_accepted(es), 1 + 16 + 1 + 2 + 2);
    echo_stop(es);
    scratch_rm(&s);
}

/* bash's /dev/tcp, as any program that ignores no variable would do. */
static void
test_egress_bash(void **state)
{
    scratch s;
    echo_srv *es;
    char eg[200], id[64];
    struct stat st;
    av a;
    run_out r;

    need_sandbox();
    scratch_make(&s);
    assert_non_null(es = echo_start(s.s_sock, NULL));
    snprintf(eg, sizeof eg, "%s:8080", s.s_sock);
    assert_int_equal(stat("/bin/bash", &st), 0);
    snprintf(id, sizeof id, "%ju:%ju", (uintmax_t)st.st_dev,
             (uintmax_t)st.st_ino);
    memset(&a, 0, sizeof a);
    av_add(&a, "%s", contain_bin);
    av_add(&a, "--egress");
    av_add(&a, "%s", eg);
    av_add(&a, "--exec-path");
    av_add(&a, "/bin/bash");
    av_add(&a, "--exec-id");
    av_add(&a, "%s", id);
    av_add(&a, "--");
    av_add(&a, "bash");
    av_add(&a, "-c");
    av_add(&a, "exec 3<>/dev/tcp/127.0.0.1/8080 4<>/dev/tcp/127.0.0.1/8080; "
               "printf one >&3; printf two >&4; read -t 5 -N 3 a <&3; "
               "read -t 5 -N 3 b <&4; echo \"$a $b\"");
    run(&r, a.a_v);
    assert_string_equal(r.ro_out, "one two\n");
    assert_int_equal(r.ro_status, 0);
    run_free(&r);
    echo_stop(es);
    scratch_rm(&s);
}

static void
copy_exec(const char *src, const char *dst)
{
    char buf[65536];
    ssize_t n;
    int in = open(src, O_RDONLY | O_CLOEXEC);
    int out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);

    assert_true(in >= 0 && out >= 0);
    while ((n = read(in, buf, sizeof buf)) > 0)
        assert_int_equal(write(out, buf, (size_t)n), n);
    assert_int_equal(n, 0);
    assert_int_equal(fchmod(out, 0755), 0);
    close(in);
    close(out);
}

/*
 * Not root: box-contain makes its own user namespace first, and the port
 * (1, below 1024) is still bound while init holds that namespace's
 * capabilities. The binaries are copied where that uid can run them.
 */
static void
test_egress_unprivileged(void **state)
{
    const int nobody = 65534;
    scratch s;
    echo_srv *es;
    char eg[200], my_contain[200], my_helper[200];
    struct stat st;
    av a;
    run_out r;

    need_sandbox();
    if (geteuid() != 0) {
        print_message("already unprivileged; the other tests cover this\n");
        skip();
    }
    scratch_make(&s);
    assert_int_equal(chmod(s.s_dir, 0777), 0);
    assert_non_null(es = echo_start(s.s_sock, NULL));
    assert_int_equal(chmod(s.s_sock, 0777), 0);
    snprintf(my_contain, sizeof my_contain, "%s/box-contain", s.s_dir);
    snprintf(my_helper, sizeof my_helper, "%s/helper", s.s_dir);
    copy_exec(contain_bin, my_contain);
    copy_exec(helper_bin, my_helper);
    snprintf(eg, sizeof eg, "%s:1", s.s_sock);
    assert_int_equal(stat(my_helper, &st), 0);
    memset(&a, 0, sizeof a);
    av_add(&a, "%s", my_contain);
    av_add(&a, "--egress");
    av_add(&a, "%s", eg);
    av_add(&a, "--exec-path");
    av_add(&a, "%s", my_helper);
    av_add(&a, "--exec-id");
    av_add(&a, "%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino);
    av_add(&a, "--");
    av_add(&a, "helper");
    av_add(&a, "echo");
    av_add(&a, "1");
    av_add(&a, "4");
    av_add(&a, "100000");
    run_as(&r, a.a_v, nobody);
    assert_string_equal(r.ro_out, "echo 4 x 100000: ok\n");
    assert_int_equal(r.ro_status, 0);
    run_free(&r);
    a.a_n -= 4;
    a.a_v[a.a_n] = NULL;
    av_add(&a, "fds");
    av_add(&a, "/proc/2/fd");
    run_as(&r, a.a_v, nobody);
    assert_string_equal(r.ro_out, "fds: EACCES\n");
    run_free(&r);
    echo_stop(es);
    unlink(my_contain);
    unlink(my_helper);
    scratch_rm(&s);
}

/* The gateway down: the program's connection is reset at once, and the
 * program's own status comes back. */
static void
test_egress_gateway_down(void **state)
{
    scratch s;
    char eg[200];
    run_out r;

    need_sandbox();
    scratch_make(&s);
    snprintf(eg, sizeof eg, "%s:8080", s.s_sock);
    contain(&r, eg, "cut", "8080", "7", NULL);
    // "reset", not "timeout": the helper gives up waiting after 5 s, so
    // the answer came before that. The whole run is only bounded loosely
    // (a loaded CI machine builds sandboxes slowly).
    assert_string_equal(r.ro_out, "cut: reset\n");
    assert_int_equal(r.ro_status, 7);
    assert_true(r.ro_secs < 60.0);
    run_free(&r);
    scratch_rm(&s);
}

/* Without --egress nothing listens inside: the connect is refused. */
static void
test_egress_absent(void **state)
{
    scratch s;
    echo_srv *es;
    run_out r;

    need_sandbox();
    scratch_make(&s);
    assert_non_null(es = echo_start(s.s_sock, NULL));
    contain(&r, NULL, "cut", "8080", "7", NULL);
    assert_string_equal(r.ro_out, "connect: ECONNREFUSED\n");
    assert_int_equal(r.ro_status, 7);
    run_free(&r);
    assert_int_equal(echo_accepted(es), 0);
    echo_stop(es);
    scratch_rm(&s);
}

/*
 * With --egress the network is still only lo: a listener on the host's
 * loopback is not reached, and the relay's port is the only one open.
 */
static void
test_egress_only_its_port(void **state)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    socklen_t len = sizeof sa;
    scratch s;
    echo_srv *es;
    char eg[200], port[16], want[64];
    run_out r;
    int l;

    need_sandbox();
    l = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    assert_true(l >= 0);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(l, (struct sockaddr *)&sa, sizeof sa), 0);
    assert_int_equal(listen(l, 4), 0);
    assert_int_equal(getsockname(l, (struct sockaddr *)&sa, &len), 0);
    snprintf(port, sizeof port, "%d", ntohs(sa.sin_port));
    scratch_make(&s);
    assert_non_null(es = echo_start(s.s_sock, NULL));
    // The relay on the same port number as the host's listener: inside,
    // that number is the relay's, and it leads to the gateway.
    snprintf(eg, sizeof eg, "%s:%s", s.s_sock, port);
    contain(&r, eg, "echo", port, "1", "10");
    assert_string_equal(r.ro_out, "echo 1 x 10: ok\n");
    run_free(&r);
    snprintf(eg, sizeof eg, "%s:8080", s.s_sock);
    contain(&r, eg, "cut", port, "0", NULL);
    snprintf(want, sizeof want, "connect: ECONNREFUSED\n");
    assert_string_equal(r.ro_out, want);
    run_free(&r);
    contain(&r, eg, "cut", "8081", "0", NULL);
    assert_string_equal(r.ro_out, want);
    run_free(&r);
    assert_int_equal(accept(l, NULL, NULL), -1); // nothing reached the host
    assert_true(errno == EAGAIN || errno == EWOULDBLOCK);
    assert_int_equal(echo_accepted(es), 1);
    close(l);
    echo_stop(es);
    scratch_rm(&s);
}

/*
 * The socket's directory under --hide: the relay still reaches the
 * gateway (it opened the directory before the cover), the program cannot
 * (the cover is over the path), and the relay's /proc entries do not
 * lend the program its directory (it is not dumpable; it is pid 2).
 */
static void
test_egress_hidden_dir(void **state)
{
    scratch s;
    echo_srv *es;
    char eg[200];
    av a;
    run_out r;
    const char *peeks[] = {"/proc/2/cwd", "/proc/2/root"};

    need_sandbox();
    scratch_make(&s);
    assert_non_null(es = echo_start(s.s_sock, NULL));
    snprintf(eg, sizeof eg, "%s:8080", s.s_sock);
    // --hide, then what av_contain gives but its first word (box-contain).
    memset(&a, 0, sizeof a);
    av_add(&a, "%s", contain_bin);
    av_add(&a, "--hide");
    av_add(&a, "%s", s.s_dir);
    {
        av b;
        av_contain(&b, eg);
        for (int i = 1; i < b.a_n; i++)
            av_add(&a, "%s", b.a_v[i]);
    }
    av_add(&a, "echo");
    av_add(&a, "8080");
    av_add(&a, "3");
    av_add(&a, "3000");
    run(&r, a.a_v);
    assert_string_equal(r.ro_out, "echo 3 x 3000: ok\n");
    run_free(&r);
    a.a_n -= 4;
    a.a_v[a.a_n] = NULL;
    av_add(&a, "unix");
    av_add(&a, "%s", s.s_sock);
    run(&r, a.a_v);
    assert_string_equal(r.ro_out, "unix: ENOENT\n");
    run_free(&r);
    for (size_t i = 0; i < sizeof peeks / sizeof *peeks; i++) {
        a.a_n -= 2;
        a.a_v[a.a_n] = NULL;
        av_add(&a, "open");
        av_add(&a, "%s", peeks[i]);
        run(&r, a.a_v);
        assert_string_equal(r.ro_out, "open: EACCES\n");
        run_free(&r);
    }
    // Its fds: the list is refused (a mapped uid), or it is readable (as
    // root, owner of the entries) and each fd refused.
    a.a_n -= 2;
    a.a_v[a.a_n] = NULL;
    av_add(&a, "fds");
    av_add(&a, "/proc/2/fd");
    run(&r, a.a_v);
    print_message("  %s", r.ro_out);
    assert_null(strstr(r.ro_out, ": ok"));
    if (strcmp(r.ro_out, "fds: EACCES\n") != 0) {
        size_t lines = 0;
        for (const char *l = r.ro_out; *l != '\0'; lines++) {
            const char *eol = strchr(l, '\n');
            assert_non_null(eol);
            assert_true(strncmp(l, "fd ", 3) == 0);
            assert_true(eol - l > 8 && strncmp(eol - 8, ": EACCES", 8) == 0);
            l = eol + 1;
        }
        assert_int_equal(lines, 2); // the directory and the listener
    }
    run_free(&r);
    assert_int_equal(echo_accepted(es), 3);
    echo_stop(es);
    scratch_rm(&s);
}

static void
test_egress_bad_values(void **state)
{
    char p107[CONTAIN_EGRESS_PATH_MAX + 1], v[300];
    static const struct {
        const char *value;
        const char *msg;
    } cases[] = {
        {"/tmp/gw.sock", "--egress /tmp/gw.sock: expected UNIX_PATH:PORT"},
        {":80", "--egress :80: expected UNIX_PATH:PORT"},
        {"gw.sock:80", "--egress gw.sock:80: the socket path must be "
                       "absolute"},
        {"/tmp/gw.sock:0", "--egress /tmp/gw.sock:0: expected a port "
                           "1..65535 after the last ':'"},
        {"/tmp/gw.sock:65536", "expected a port 1..65535"},
        {"/tmp/gw.sock:", "expected a port 1..65535"},
        {"/tmp/gw.sock:8x", "expected a port 1..65535"},
        {"/tmp/gw.sock:-1", "expected a port 1..65535"},
        {"/tmp/gw.sock:+80", "expected a port 1..65535"},
        {"/tmp/gw.sock: 80", "expected a port 1..65535"},
        {"/tmp/gw.sock:99999999999999999999999", "expected a port 1..65535"},
        {"/tmp/dir/:80", "--egress /tmp/dir/:80: the socket path ends in "
                         "'/'; it must name the socket"},
        {"/:80", "the socket path ends in '/'"},
        {"/tmp/../gw.sock:80", "must not contain '.' or '..' components"},
        {"/tmp/./gw.sock:80", "must not contain '.' or '..' components"},
        {"/tmp/..:80", "must not contain '.' or '..' components"},
        {"/tmp/.:80", "must not contain '.' or '..' components"},
    };
    av a;
    run_out r;

    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        av_contain(&a, cases[i].value);
        av_add(&a, "open");
        av_add(&a, "/");
        run(&r, a.a_v);
        assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
        assert_true(strncmp(r.ro_err, "box-contain: ", 13) == 0);
        assert_non_null(strstr(r.ro_err, cases[i].msg));
        assert_string_equal(r.ro_out, "");
        run_free(&r);
    }
    // A path of 108 bytes: one past what sun_path holds.
    memset(p107, 'p', sizeof p107);
    memcpy(p107, "/nonexistent-dir/", 17);
    p107[CONTAIN_EGRESS_PATH_MAX] = '\0';
    snprintf(v, sizeof v, "%sq:80", p107);
    av_contain(&a, v);
    av_add(&a, "open");
    av_add(&a, "/");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
    assert_non_null(strstr(r.ro_err, "the socket path is 108 bytes; a Unix "
                                     "socket address holds at most 107"));
    run_free(&r);
    // Given twice.
    av_contain(&a, "/tmp/a.sock:80");
    memmove(&a.a_v[3], &a.a_v[1], (size_t)(a.a_n - 1) * sizeof a.a_v[0]);
    a.a_v[1] = "--egress";
    a.a_v[2] = "/tmp/b.sock:81";
    a.a_n += 2;
    a.a_v[a.a_n] = NULL;
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
    assert_string_equal(r.ro_err, "box-contain: --egress given twice (see "
                                  "box-contain --help)\n");
    run_free(&r);
    // With --net host: a program on the host's network needs no relay.
    av_contain(&a, "/tmp/a.sock:80");
    memmove(&a.a_v[3], &a.a_v[1], (size_t)(a.a_n - 1) * sizeof a.a_v[0]);
    a.a_v[1] = "--net";
    a.a_v[2] = "host";
    a.a_n += 2;
    a.a_v[a.a_n] = NULL;
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
    assert_string_equal(r.ro_err,
                        "box-contain: --net host and --egress do not go "
                        "together: a program on the host's network needs no "
                        "relay (see box-contain --help)\n");
    run_free(&r);
    // With --probe.
    {
        char *pv[] = {contain_bin, "--probe", "--egress", "/tmp/a.sock:80",
                      NULL};
        run(&r, pv);
        assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
        assert_non_null(strstr(r.ro_err, "--probe and --help take no other"));
        run_free(&r);
    }
    // At the bound (107 bytes) the value is taken; the missing directory
    // is what refuses, when the sandbox is built.
    need_sandbox();
    snprintf(v, sizeof v, "%s:80", p107);
    av_contain(&a, v);
    av_add(&a, "open");
    av_add(&a, "/");
    run(&r, a.a_v);
    assert_int_equal(r.ro_status, BOX_STATUS_FAULT);
    assert_non_null(strstr(r.ro_err, "cannot open its directory "
                                     "/nonexistent-dir: No such file"));
    assert_string_equal(r.ro_out, "");
    run_free(&r);
}

static void
test_egress_help(void **state)
{
    char *hv[] = {contain_bin, "--help", NULL};
    run_out r;

    run(&r, hv);
    assert_int_equal(r.ro_status, 0);
    assert_non_null(strstr(r.ro_out, "--egress UNIX_PATH:PORT"));
    run_free(&r);
}

static int
group_setup(void **state)
{
    const char *dir = getenv("BOX_BUILD_DIR");
    char *argv[3];
    run_out r;

    if (dir == NULL) {
        fprintf(stderr, "BOX_BUILD_DIR is not set (run through ctest)\n");
        return -1;
    }
    snprintf(contain_bin, sizeof contain_bin, "%s/bin/box-contain", dir);
    snprintf(helper_bin, sizeof helper_bin, "%s/bin/contain_egress_helper",
             dir);
    if (access(contain_bin, X_OK) != 0 || access(helper_bin, X_OK) != 0) {
        fprintf(stderr, "missing %s or %s\n", contain_bin, helper_bin);
        return -1;
    }
    signal(SIGPIPE, SIG_IGN);
    argv[0] = contain_bin;
    argv[1] = "--probe";
    argv[2] = NULL;
    run(&r, argv);
    probe_status = r.ro_status;
    snprintf(probe_out, sizeof probe_out, "%s", r.ro_out);
    run_free(&r);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_relay_echo),
        cmocka_unit_test(test_relay_tiny_buffer),
        cmocka_unit_test(test_relay_half_close),
        cmocka_unit_test(test_relay_conn_bound),
        cmocka_unit_test(test_relay_gateway_down),
        cmocka_unit_test(test_relay_slow_side),
        cmocka_unit_test(test_relay_early_answer),
        cmocka_unit_test(test_relay_client_reset),
        cmocka_unit_test(test_relay_bad_args),
        cmocka_unit_test(test_egress_help),
        cmocka_unit_test(test_egress_bad_values),
        cmocka_unit_test(test_egress_echo),
        cmocka_unit_test(test_egress_bash),
        cmocka_unit_test(test_egress_gateway_down),
        cmocka_unit_test(test_egress_absent),
        cmocka_unit_test(test_egress_only_its_port),
        cmocka_unit_test(test_egress_hidden_dir),
        cmocka_unit_test(test_egress_unprivileged),
    };
    return cmocka_run_group_tests(tests, group_setup, NULL);
}
