/* SPDX-License-Identifier: Apache-2.0 */
/* box-gateway as a real process beside a real box-pdp: every connection and
 * request decided, permitted ones forwarded to a test upstream, refusals
 * and failures answered as box-spec §6 says. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_control.h"
#include "box_proc.h"
#include "box_req.h"
#include "box_testutil.h"
#include "gw_ca.h"

#include <openssl/err.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#define GT_START_MS 60000
#define GT_IO_MS 20000
#define GT_BIG (3u << 20) // past the gateway's pause mark, many times

/* 127.0.0.1 may connect; GET anywhere but /secret*, and POST with at most
 * 10 bytes of body. */
static const char gt_policy[] =
    "@id(\"local\") permit (principal, action == Box::Action::\"net:connect\", "
    "resource) when { context.input.host == \"127.0.0.1\" };\n"
    "@id(\"reads\") permit (principal, action == Box::Action::\"http:request\", "
    "resource) when { context.input.method == \"GET\" || "
    "(context.input.method == \"POST\" && context.input.body_bytes <= 10) };\n"
    "@id(\"nosecret\") @description(\"No secrets.\") forbid (principal, action "
    "== Box::Action::\"http:request\", resource) when { context.input.path "
    "like \"/secret*\" };\n";

/* ---- the test upstream: one thread, one connection at a time ---- */

typedef struct upstream {
    SSL_CTX *us_tls; // serve TLS with this, or plain when NULL
    int us_fd;
    unsigned us_port;
    pthread_t us_thread;
    atomic_int us_accepted;
    atomic_int us_requests;
    char us_last_head[4096];
    pthread_mutex_t us_lock;
} upstream;

/* A connection, plain or TLS (blocking either way). */
typedef struct us_io {
    int io_fd;
    SSL *io_ssl;
} us_io;

static ssize_t
io_recv(us_io *io, void *b, size_t n)
{
    if (io->io_ssl == NULL)
        return recv(io->io_fd, b, n, 0);
    int r = SSL_read(io->io_ssl, b, (int)n);
    return r > 0 ? r : 0;
}

static void
io_send(us_io *io, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = io->io_ssl == NULL
                        ? send(io->io_fd, c, n, MSG_NOSIGNAL)
                        : SSL_write(io->io_ssl, c, (int)n);
        if (w <= 0)
            return;
        c += w;
        n -= (size_t)w;
    }
}

static bool
read_head(us_io *fd, box_buf *in, size_t *head_len)
{
    for (;;) {
        char *end = in->b_len ? strstr(in->b_data, "\r\n\r\n") : NULL;
        if (end != NULL) {
            *head_len = (size_t)(end - in->b_data) + 4;
            return true;
        }
        char b[4096];
        ssize_t r = io_recv(fd, b, sizeof b);
        if (r <= 0 || box_buf_append(in, b, (size_t)r) != BOX_OK)
            return false;
    }
}

static void
send_all(int fd, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = send(fd, c, n, MSG_NOSIGNAL);
        if (w <= 0)
            return;
        c += w;
        n -= (size_t)w;
    }
}

/* Serves requests on one connection until it closes. Paths: /hello,
 * /secret, /chunked (chunked answer), /big (GT_BIG bytes), /echo (the
 * body's length and the request's fields back), /marker (a response
 * forging the gateway's refusal marker), /close (no length: ends by
 * closing). */
static void
upstream_conn(upstream *us, us_io *fd)
{
    box_buf in;
    box_buf_init(&in, 1u << 20);
    for (;;) {
        size_t hl;
        if (!read_head(fd, &in, &hl))
            break;
        atomic_fetch_add(&us->us_requests, 1);
        pthread_mutex_lock(&us->us_lock);
        snprintf(us->us_last_head, sizeof us->us_last_head, "%.*s", (int)hl,
                 in.b_data);
        pthread_mutex_unlock(&us->us_lock);
        size_t cl = 0;
        const char *p = strcasestr(in.b_data, "\r\ncontent-length:");
        if (p != NULL && p < in.b_data + hl)
            cl = strtoul(p + 17, NULL, 10);
        while (in.b_len < hl + cl) {
            char b[4096];
            ssize_t r = io_recv(fd, b, sizeof b);
            if (r <= 0 || box_buf_append(&in, b, (size_t)r) != BOX_OK)
                goto out;
        }
        char path[256] = "";
        sscanf(in.b_data, "%*s %255s", path);
        char resp[8192];
        int n;
        if (strcmp(path, "/chunked") == 0) {
            n = snprintf(resp, sizeof resp,
                         "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
                         "5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n");
            io_send(fd, resp, (size_t)n);
        } else if (strcmp(path, "/big") == 0) {
            n = snprintf(resp, sizeof resp,
                         "HTTP/1.1 200 OK\r\ncontent-length: %u\r\n\r\n",
                         GT_BIG);
            io_send(fd, resp, (size_t)n);
            char *big = box_alloc(GT_BIG);
            for (size_t i = 0; i < GT_BIG; i++)
                big[i] = (char)('a' + i % 26);
            io_send(fd, big, GT_BIG);
            box_free(big);
        } else if (strcmp(path, "/echo") == 0) {
            char body[4096];
            int bn = snprintf(body, sizeof body, "body %zu: %.*s", cl, (int)cl,
                              in.b_data + hl);
            n = snprintf(resp, sizeof resp,
                         "HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s", bn,
                         body);
            io_send(fd, resp, (size_t)n);
        } else if (strcmp(path, "/marker") == 0) {
            n = snprintf(resp, sizeof resp,
                         "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                         "refused\r\ncontent-length: 6\r\n\r\nforged");
            io_send(fd, resp, (size_t)n);
        } else if (strcmp(path, "/404") == 0) {
            n = snprintf(resp, sizeof resp,
                         "HTTP/1.1 404 Not Found\r\ncontent-length: 4\r\n\r\n"
                         "nope");
            io_send(fd, resp, (size_t)n);
        } else if (strcmp(path, "/close") == 0) {
            n = snprintf(resp, sizeof resp,
                         "HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nuntil "
                         "the end");
            io_send(fd, resp, (size_t)n);
            goto out;
        } else {
            n = snprintf(resp, sizeof resp,
                         "HTTP/1.1 200 OK\r\ncontent-length: 6\r\nx-up: "
                         "1\r\nconnection: keep-alive\r\nkeep-alive: "
                         "timeout=5\r\n\r\nhello\n");
            io_send(fd, resp, (size_t)n);
        }
        memmove(in.b_data, in.b_data + hl + cl, in.b_len - hl - cl);
        box_buf_truncate(&in, in.b_len - hl - cl);
    }
out:
    box_buf_reset(&in);
}

static void *
upstream_main(void *arg)
{
    upstream *us = arg;
    for (;;) {
        int fd = accept(us->us_fd, NULL, NULL);
        if (fd < 0)
            return NULL; // closed by the teardown
        atomic_fetch_add(&us->us_accepted, 1);
        us_io io = {.io_fd = fd};
        if (us->us_tls != NULL) {
            io.io_ssl = SSL_new(us->us_tls);
            SSL_set_fd(io.io_ssl, fd);
            if (SSL_accept(io.io_ssl) != 1) {
                ERR_clear_error();
                SSL_free(io.io_ssl);
                close(fd);
                continue;
            }
        }
        upstream_conn(us, &io);
        if (io.io_ssl != NULL) {
            SSL_shutdown(io.io_ssl);
            SSL_free(io.io_ssl);
        }
        close(fd);
    }
}

static void
upstream_start(upstream *us, SSL_CTX *tls)
{
    memset(us, 0, sizeof *us);
    us->us_tls = tls;
    pthread_mutex_init(&us->us_lock, NULL);
    us->us_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in in = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t sl = sizeof in;
    assert_int_equal(bind(us->us_fd, (struct sockaddr *)&in, sizeof in), 0);
    assert_int_equal(listen(us->us_fd, 16), 0);
    assert_int_equal(getsockname(us->us_fd, (struct sockaddr *)&in, &sl), 0);
    us->us_port = ntohs(in.sin_port);
    assert_int_equal(pthread_create(&us->us_thread, NULL, upstream_main, us),
                     0);
}

static void
upstream_stop(upstream *us)
{
    shutdown(us->us_fd, SHUT_RDWR);
    close(us->us_fd);
    pthread_join(us->us_thread, NULL);
    pthread_mutex_destroy(&us->us_lock);
    SSL_CTX_free(us->us_tls);
}

/* ---- the services ---- */

typedef struct fx {
    char dir[64];
    char policy[128], log[128], pdp_url[128], ctl_url[128], sock[128];
    char ca[128];    // the gateway's per-run CA certificate
    char token[128]; // its TCP listener's token
    char up_ca[128]; // the CA the TLS upstream's certificate chains to
    box_proc pdp, gw;
    unsigned gw_port;
    upstream us;  // plain HTTP
    upstream tus; // HTTPS, for tunnels
} fx;

static void
start_gateway(fx *f, const char *extra_flag, const char *extra_value)
{
    char bin[4096];
    box_proc_bin(bin, sizeof bin, "box-gateway");
    char *argv[] = {bin,        "--pdp",     f->pdp_url,   "--control",
                    f->ctl_url, "--socket",  f->sock,      "--ca-cert",
                    f->ca,      "--token-file", f->token, (char *)extra_flag,
                    (char *)extra_value, NULL};
    assert_true(box_proc_start(&f->gw, argv, NULL));
    uint64_t deadline = (uint64_t)box_test_now_ms() + GT_START_MS;
    box_health_probe *p = NULL;
    Box__HealthResponse *h = NULL;
    assert_int_equal(box_health_probe_open(f->ctl_url, false, 1000, &p),
                     BOX_OK);
    while ((uint64_t)box_test_now_ms() < deadline &&
           box_health_probe_ask(p, &h) != BOX_OK)
        box_test_sleep_ms(20);
    box_health_probe_close(p);
    assert_non_null(h);
    assert_string_equal(h->service, "box-gateway");
    assert_true(strncmp(h->listen_address, "127.0.0.1:", 10) == 0);
    f->gw_port = (unsigned)strtoul(h->listen_address + 10, NULL, 10);
    assert_true(f->gw_port > 0);
    box__health_response__free_unpacked(h, NULL);
}

/* SIGTERM: a service drains and exits 0 (a sanitizer's report at exit
 * would make it otherwise, and show here). */
static void
stop_proc(box_proc *p)
{
    kill(p->bp_pid, SIGTERM);
    box_proc_result r;
    box_proc_finish(p, 15000, &r);
    if (r.pr_status != 0)
        box_test_show_result("service", &r);
    assert_int_equal(r.pr_status, 0);
    box_proc_result_free(&r);
}

static int
setup_policy(void **state, const char *policy)
{
    fx *f = box_calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/box-gw-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->policy, sizeof f->policy, "%s/policy.dw", f->dir);
    snprintf(f->log, sizeof f->log, "%s/records.jsonl", f->dir);
    snprintf(f->pdp_url, sizeof f->pdp_url, "ipc://%s/pdp.sock", f->dir);
    snprintf(f->ctl_url, sizeof f->ctl_url, "ipc://%s/gw-ctl.sock", f->dir);
    snprintf(f->sock, sizeof f->sock, "%s/egress.sock", f->dir);
    snprintf(f->ca, sizeof f->ca, "%s/ca.pem", f->dir);
    snprintf(f->token, sizeof f->token, "%s/gateway.token", f->dir);
    snprintf(f->up_ca, sizeof f->up_ca, "%s/upstream-ca.pem", f->dir);
    box_test_put(f->policy, policy);
    char bin[4096];
    box_proc_bin(bin, sizeof bin, "box-pdp");
    char *argv[] = {bin,       "--listen", f->pdp_url, "--policy",
                    f->policy, "--log",    f->log,     NULL};
    assert_true(box_proc_start(&f->pdp, argv, NULL));
    Box__HealthResponse *h = box_wait_pdp(f->pdp_url, GT_START_MS);
    assert_non_null(h);
    box__health_response__free_unpacked(h, NULL);
    upstream_start(&f->us, NULL);
    // The TLS upstream: a CA of its own (standing for the public roots),
    // and a leaf for 127.0.0.1 signed by it.
    gw_ca *up = NULL;
    char *err = NULL;
    SSL_CTX *tls = NULL;
    assert_int_equal(gw_ca_new(&up, &err), BOX_OK);
    assert_int_equal(gw_ca_write_cert(up, f->up_ca, &err), BOX_OK);
    assert_int_equal(gw_ca_server_ctx(up, "127.0.0.1", &tls, &err), BOX_OK);
    gw_ca_free(up);
    upstream_start(&f->tus, tls);
    *state = f;
    return 0;
}

static int
setup(void **state)
{
    return setup_policy(state, gt_policy);
}

/* gt_policy, and no request once one was answered 404: a rule on the
 * ::response events the gateway records. */
static int
setup_after_404(void **state)
{
    char policy[sizeof gt_policy + 512];
    snprintf(policy, sizeof policy,
             "%s@id(\"after404\") forbid (principal, action == "
             "Box::Action::\"http:request\", resource) when temporal { "
             "formerly within 1h (Box::Action::\"http:request\"::response{ "
             "output.status: 404 }) };\n",
             gt_policy);
    return setup_policy(state, policy);
}

static int
teardown(void **state)
{
    fx *f = *state;
    if (f->gw.bp_pid > 0)
        stop_proc(&f->gw);
    if (f->pdp.bp_pid > 0)
        stop_proc(&f->pdp);
    upstream_stop(&f->us);
    upstream_stop(&f->tus);
    box_test_rmtree(f->dir);
    box_free(f);
    return 0;
}

/* ---- a client ---- */

/* The TCP listener wants the token (test_tcp_token); the Unix socket,
 * which the sandboxes' relays reach, does not. */
static int
gw_connect_tcp(const fx *f)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in in = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)f->gw_port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(connect(fd, (struct sockaddr *)&in, sizeof in), 0);
    struct timeval tv = {.tv_sec = GT_IO_MS / 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

static int
gw_connect(const fx *f)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    memcpy(sun.sun_path, f->sock, strlen(f->sock) + 1);
    assert_int_equal(connect(fd, (struct sockaddr *)&sun, sizeof sun), 0);
    struct timeval tv = {.tv_sec = GT_IO_MS / 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    return fd;
}

/* Reads one whole response (content-length, chunked, or to the close);
 * returns it (caller frees), or what came before the connection closed. */
static char *
read_response(int fd)
{
    box_buf b;
    box_buf_init(&b, 64u << 20);
    for (;;) {
        char *end = b.b_len ? strstr(b.b_data, "\r\n\r\n") : NULL;
        if (end != NULL) {
            size_t hl = (size_t)(end - b.b_data) + 4;
            const char *cl = strcasestr(b.b_data, "\r\ncontent-length:");
            bool chunked = strcasestr(b.b_data, "transfer-encoding: chunked");
            if (cl != NULL && cl < end &&
                b.b_len >= hl + strtoul(cl + 17, NULL, 10))
                break;
            if (chunked && b.b_len >= 5 &&
                memcmp(b.b_data + b.b_len - 5, "0\r\n\r\n", 5) == 0)
                break;
        }
        char buf[65536];
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r <= 0)
            break;
        assert_int_equal(box_buf_append(&b, buf, (size_t)r), BOX_OK);
    }
    return box_buf_take(&b);
}

static char *
exchange(const fx *f, const char *req)
{
    int fd = gw_connect(f);
    send_all(fd, req, strlen(req));
    char *r = read_response(fd);
    close(fd);
    return r;
}

static char *
get(const fx *f, const char *host, const char *path)
{
    char req[1024];
    snprintf(req, sizeof req,
             "GET http://%s:%u%s HTTP/1.1\r\nHost: %s:%u\r\nConnection: "
             "close\r\n\r\n",
             host, f->us.us_port, path, host, f->us.us_port);
    return exchange(f, req);
}

static void
expect_prefix(const char *text, const char *prefix)
{
    if (strncmp(text, prefix, strlen(prefix)) != 0)
        fail_msg("expected a response starting\n%s\ngot\n%s", prefix, text);
}

static void
expect_has(const char *text, const char *needle)
{
    if (strstr(text, needle) == NULL)
        fail_msg("expected\n%s\nin\n%s", needle, text);
}

/* ---- tests ---- */

static void
test_permitted_get(void **state)
{
    fx *f = *state;
    start_gateway(f, NULL, NULL);
    char *r = get(f, "127.0.0.1", "/hello");
    expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    expect_has(r, "\r\nx-up: 1\r\n");
    expect_has(r, "\r\n\r\nhello\n");
    // Hop-by-hop fields are the gateway's, not upstream's.
    assert_null(strcasestr(r, "keep-alive: timeout"));
    box_free(r);
    // What upstream saw: the request without the proxy's own fields.
    pthread_mutex_lock(&f->us.us_lock);
    expect_prefix(f->us.us_last_head, "GET /hello HTTP/1.1\r\n");
    assert_null(strcasestr(f->us.us_last_head, "accept:"));
    pthread_mutex_unlock(&f->us.us_lock);
}

static void
test_refusals_marked(void **state)
{
    fx *f = *state;
    start_gateway(f, NULL, NULL);
    // http:request forbidden: the gate's prefix and the policy's text.
    char *r = get(f, "127.0.0.1", "/secret/key");
    expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    char want[256];
    snprintf(want, sizeof want,
             "\r\n\r\nhttp:request gate: policy denied this operation on "
             "'127.0.0.1:%u/secret/key' [policy: nosecret]: No secrets.\n",
             f->us.us_port);
    expect_has(r, want);
    box_free(r);
    // net:connect default-deny: no DNS, no socket, the bare decision.
    int before = atomic_load(&f->us.us_accepted);
    r = get(f, "localhost", "/hello");
    expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    snprintf(want, sizeof want,
             "\r\n\r\npolicy denied this operation on 'localhost:%u' "
             "[default-deny]: No permit policy matched this request.\n",
             f->us.us_port);
    expect_has(r, want);
    box_free(r);
    assert_int_equal(atomic_load(&f->us.us_accepted), before);
    // An upstream cannot forge the marker: its refusal arrives unmarked.
    r = get(f, "127.0.0.1", "/marker");
    expect_prefix(r, "HTTP/1.1 403 Forbidden\r\n");
    assert_null(strcasestr(r, "x-strands-box-egress"));
    expect_has(r, "\r\n\r\nforged");
    box_free(r);
}

static void
test_body_bytes_decided(void **state)
{
    fx *f = *state;
    start_gateway(f, NULL, NULL);
    char req[1024];
    snprintf(req, sizeof req,
             "POST http://127.0.0.1:%u/echo HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nContent-Length: 10\r\nConnection: "
             "close\r\n\r\n0123456789",
             f->us.us_port, f->us.us_port);
    char *r = exchange(f, req);
    expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    expect_has(r, "\r\n\r\nbody 10: 0123456789");
    box_free(r);
    snprintf(req, sizeof req,
             "POST http://127.0.0.1:%u/echo HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nContent-Length: 11\r\nConnection: "
             "close\r\n\r\n0123456789X",
             f->us.us_port, f->us.us_port);
    int before = atomic_load(&f->us.us_requests);
    r = exchange(f, req);
    expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    expect_has(r, "http:request gate: policy denied this operation on "
                  "'127.0.0.1:");
    box_free(r);
    assert_int_equal(atomic_load(&f->us.us_requests), before);

    // A GET with a body stays a GET (what was decided is what is sent).
    snprintf(req, sizeof req,
             "GET http://127.0.0.1:%u/echo HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nContent-Length: 3\r\nConnection: "
             "close\r\n\r\nabc",
             f->us.us_port, f->us.us_port);
    r = exchange(f, req);
    expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    expect_has(r, "\r\n\r\nbody 3: abc");
    box_free(r);
    pthread_mutex_lock(&f->us.us_lock);
    expect_prefix(f->us.us_last_head, "GET /echo HTTP/1.1\r\n");
    pthread_mutex_unlock(&f->us.us_lock);
    before++;

    // A chunked body is decided on its decoded size and sent on with a
    // length.
    snprintf(req, sizeof req,
             "POST http://127.0.0.1:%u/echo HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nTransfer-Encoding: chunked\r\nConnection: "
             "close\r\n\r\n4;x=y\r\n0123\r\n6\r\n456789\r\n0\r\n\r\n",
             f->us.us_port, f->us.us_port);
    r = exchange(f, req);
    expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    expect_has(r, "\r\n\r\nbody 10: 0123456789");
    box_free(r);
    snprintf(req, sizeof req,
             "POST http://127.0.0.1:%u/echo HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nTransfer-Encoding: chunked\r\n\r\n"
             "b\r\n0123456789X\r\n0\r\n\r\n",
             f->us.us_port, f->us.us_port);
    r = exchange(f, req);
    expect_prefix(r, "HTTP/1.1 403 Forbidden\r\n");
    box_free(r);
    // Framing that is not one reading: refused, never forwarded.
    snprintf(req, sizeof req,
             "POST http://127.0.0.1:%u/echo HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nTransfer-Encoding: chunked\r\n\r\n"
             "4\n0123\r\n0\r\n\r\n",
             f->us.us_port, f->us.us_port);
    r = exchange(f, req);
    expect_prefix(r, "HTTP/1.1 400 Bad Request\r\n");
    box_free(r);
    // A declared length past the gateway's limit: 413 before any of it.
    snprintf(req, sizeof req,
             "POST http://127.0.0.1:%u/echo HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\nContent-Length: 999999999999\r\n\r\n",
             f->us.us_port, f->us.us_port);
    r = exchange(f, req);
    expect_prefix(r, "HTTP/1.1 413 Content Too Large\r\n");
    box_free(r);
    assert_int_equal(atomic_load(&f->us.us_requests), before + 1);
}

static void
test_keep_alive_and_framing(void **state)
{
    fx *f = *state;
    start_gateway(f, NULL, NULL);
    int fd = gw_connect(f);
    char req[512];
    snprintf(req, sizeof req,
             "GET http://127.0.0.1:%u/hello HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\n\r\n",
             f->us.us_port, f->us.us_port);
    for (int i = 0; i < 3; i++) {
        send_all(fd, req, strlen(req));
        char *r = read_response(fd);
        expect_prefix(r, "HTTP/1.1 200 OK\r\n");
        expect_has(r, "\r\n\r\nhello\n");
        assert_null(strcasestr(r, "connection: close"));
        box_free(r);
    }
    // Chunked from upstream, chunked again to an HTTP/1.1 client.
    snprintf(req, sizeof req,
             "GET http://127.0.0.1:%u/chunked HTTP/1.1\r\nHost: "
             "127.0.0.1:%u\r\n\r\n",
             f->us.us_port, f->us.us_port);
    send_all(fd, req, strlen(req));
    char *r = read_response(fd);
    expect_has(r, "transfer-encoding: chunked\r\n");
    expect_has(r, "\r\n\r\n5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n");
    box_free(r);
    close(fd);
    // ... and ended by closing for an HTTP/1.0 client.
    snprintf(req, sizeof req,
             "GET http://127.0.0.1:%u/chunked HTTP/1.0\r\n\r\n",
             f->us.us_port);
    r = exchange(f, req);
    expect_has(r, "connection: close\r\n");
    expect_has(r, "\r\n\r\nhello, world");
    assert_null(strcasestr(r, "transfer-encoding"));
    box_free(r);
}

static void
test_big_answer_intact(void **state)
{
    fx *f = *state;
    start_gateway(f, NULL, NULL);
    char *r = get(f, "127.0.0.1", "/big");
    expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    const char *body = strstr(r, "\r\n\r\n") + 4;
    assert_int_equal(strlen(body), GT_BIG);
    for (size_t i = 0; i < GT_BIG; i += 4099)
        assert_int_equal(body[i], 'a' + i % 26);
    box_free(r);
}

static void
test_failures_unmarked(void **state)
{
    fx *f = *state;
    start_gateway(f, NULL, NULL);
    // Nothing listens there: 502, not a policy refusal.
    char req[512];
    snprintf(req, sizeof req,
             "GET http://127.0.0.1:1/ HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n");
    char *r = exchange(f, req);
    expect_prefix(r, "HTTP/1.1 502 Bad Gateway\r\n");
    assert_null(strcasestr(r, "x-strands-box-egress"));
    expect_has(r, "\r\n\r\ncannot connect to 127.0.0.1:1: Connection refused\n");
    box_free(r);
    // Malformed heads: the parser's status and reason, then closed.
    r = exchange(f, "GET /relative HTTP/1.1\r\nHost: x\r\n\r\n");
    expect_prefix(r, "HTTP/1.1 400 Bad Request\r\n");
    expect_has(r, "connection: close\r\n");
    box_free(r);
    r = exchange(f, "BREW http://127.0.0.1/ HTTP/1.1\r\nHost: x\r\n\r\n");
    expect_prefix(r, "HTTP/1.1 501 Not Implemented\r\n");
    box_free(r);
}

static void
test_pdp_gone_refuses(void **state)
{
    fx *f = *state;
    start_gateway(f, NULL, NULL);
    stop_proc(&f->pdp);
    f->pdp.bp_pid = 0;
    int before = atomic_load(&f->us.us_accepted);
    char *r = get(f, "127.0.0.1", "/hello");
    expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    expect_has(r, "did not answer");
    box_free(r);
    assert_int_equal(atomic_load(&f->us.us_accepted), before);
}

static void
test_slow_and_full(void **state)
{
    fx *f = *state;
    start_gateway(f, "--client-timeout", "1500");
    // A head that never ends is answered 408 once its time is up.
    int fd = gw_connect(f);
    send_all(fd, "GET http://127.0.0.1/ HTTP/1.1\r\n", 32);
    long long t0 = box_test_now_ms();
    char *r = read_response(fd);
    close(fd);
    expect_prefix(r, "HTTP/1.1 408 Request Timeout\r\n");
    assert_true(box_test_now_ms() - t0 < 10000);
    box_free(r);
    // A connection that sends nothing is closed.
    fd = gw_connect(f);
    char b;
    assert_int_equal(recv(fd, &b, 1, 0), 0);
    close(fd);
}

static void
test_connection_limit(void **state)
{
    fx *f = *state;
    start_gateway(f, "--max-connections", "2");
    int a = gw_connect(f), b = gw_connect(f);
    box_test_sleep_ms(200); // both accepted and held
    int c = gw_connect(f);
    char *r = read_response(c);
    expect_prefix(r, "HTTP/1.1 503 Service Unavailable\r\n");
    box_free(r);
    close(c);
    close(a);
    close(b);
    box_test_sleep_ms(200);
    r = get(f, "127.0.0.1", "/hello");
    expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    box_free(r);
}

/* The decision log: two net:connect decisions (before DNS and with the
 * address) and the http:request, with the resources §7 names. */
static void
test_decisions_logged(void **state)
{
    fx *f = *state;
    start_gateway(f, NULL, NULL);
    char *r = get(f, "127.0.0.1", "/hello");
    box_free(r);
    stop_proc(&f->gw);
    f->gw.bp_pid = 0;
    stop_proc(&f->pdp);
    f->pdp.bp_pid = 0;
    char *log = box_test_slurp(f->log);
    char want[128];
    snprintf(want, sizeof want, "\"127.0.0.1:%u\"", f->us.us_port);
    assert_true(box_test_count(log, want) >= 2); // net:connect twice
    snprintf(want, sizeof want, "\"127.0.0.1:%u/hello\"", f->us.us_port);
    assert_true(box_test_count(log, want) >= 1);
    // Each decision is a record and its span: the two net:connect ones
    // against the one http:request, in the same proportion.
    size_t nc = box_test_count(log, "\"stringValue\":\"net:connect\"");
    size_t hr = box_test_count(log, "\"stringValue\":\"http:request\"");
    assert_true(hr > 0);
    assert_int_equal(nc, 2 * hr);
    expect_has(log, "\"key\":\"server.address\",\"value\":{\"stringValue\":"
                    "\"127.0.0.1\"}");
    expect_has(log, "\"key\":\"http.request.method\",\"value\":{"
                    "\"stringValue\":\"GET\"}");
    box_free(log);
}

/* The TCP listener serves only a holder of the token file: 407 (marked)
 * without it or with a wrong one, the request forwarded with it. */
static void
test_tcp_token(void **state)
{
    fx *f = *state;
    start_gateway(f, NULL, NULL);
    char *tok = box_test_slurp(f->token);
    assert_int_equal(strlen(tok), 65);
    assert_int_equal(tok[64], '\n');
    tok[64] = '\0';
    struct stat st;
    assert_int_equal(stat(f->token, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);
    char cred[128];
    snprintf(cred, sizeof cred, "strands-box:%s", tok);
    unsigned char b64[200];
    EVP_EncodeBlock(b64, (const unsigned char *)cred, (int)strlen(cred));
    const char *auths[] = {NULL, "Basic c3RyYW5kcy1ib3g6d3Jvbmc=", (char *)b64};
    for (int i = 0; i < 3; i++) {
        char req[512];
        if (auths[i] == NULL)
            snprintf(req, sizeof req,
                     "GET http://127.0.0.1:%u/hello HTTP/1.1\r\nHost: "
                     "127.0.0.1:%u\r\nConnection: close\r\n\r\n",
                     f->us.us_port, f->us.us_port);
        else
            snprintf(req, sizeof req,
                     "GET http://127.0.0.1:%u/hello HTTP/1.1\r\nHost: "
                     "127.0.0.1:%u\r\nProxy-Authorization: %s%s\r\n"
                     "Connection: close\r\n\r\n",
                     f->us.us_port, f->us.us_port, i == 2 ? "Basic " : "",
                     auths[i]);
        int fd = gw_connect_tcp(f);
        send_all(fd, req, strlen(req));
        char *r = read_response(fd);
        close(fd);
        if (i < 2) {
            expect_prefix(r, "HTTP/1.1 407 Proxy Authentication Required\r\n"
                             "x-strands-box-egress: refused\r\n");
            expect_has(r, "proxy-authenticate: Basic realm=\"strands-box\"");
            expect_has(r, i == 0 ? "\r\n\r\nproxy token required\n"
                                 : "\r\n\r\ninvalid proxy token\n");
        } else {
            expect_prefix(r, "HTTP/1.1 200 OK\r\n");
            expect_has(r, "\r\n\r\nhello\n");
        }
        box_free(r);
    }
    // The token is the proxy's, never upstream's.
    pthread_mutex_lock(&f->us.us_lock);
    assert_null(strcasestr(f->us.us_last_head, "proxy-authorization"));
    pthread_mutex_unlock(&f->us.us_lock);
    box_free(tok);
}

/* CONNECT to the TLS upstream; the client side of the tunnel after the
 * gateway's 200, verifying the gateway's leaf for 127.0.0.1 against its
 * CA. NULL when the gateway answered other than 200 (*head says what). */
static SSL *
tunnel_open(const fx *f, int *fdp, char **head)
{
    char req[256];
    snprintf(req, sizeof req,
             "CONNECT 127.0.0.1:%u HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
             f->tus.us_port, f->tus.us_port);
    int fd = gw_connect(f);
    send_all(fd, req, strlen(req));
    // Byte by byte: nothing of the TLS that follows may be read here.
    box_buf b;
    box_buf_init(&b, 65536);
    while (b.b_len < 4 || strcmp(b.b_data + b.b_len - 4, "\r\n\r\n") != 0) {
        char ch;
        if (recv(fd, &ch, 1, 0) != 1)
            break;
        assert_int_equal(box_buf_putc(&b, ch), BOX_OK);
    }
    if (strncmp(b.b_data ? b.b_data : "", "HTTP/1.1 200 ", 13) != 0) {
        // The rest of a refusal: its body.
        char *rest = read_response(fd);
        assert_int_equal(box_buf_puts(&b, rest), BOX_OK);
        box_free(rest);
        *head = box_buf_take(&b);
        close(fd);
        return NULL;
    }
    *head = box_buf_take(&b);
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    assert_int_equal(SSL_CTX_load_verify_locations(ctx, f->ca, NULL), 1);
    SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
    SSL *ssl = SSL_new(ctx);
    SSL_CTX_free(ctx);
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), "127.0.0.1");
    SSL_set_fd(ssl, fd);
    if (SSL_connect(ssl) != 1)
        fail_msg("TLS with the gateway failed: verify result %ld",
                 SSL_get_verify_result(ssl));
    *fdp = fd;
    return ssl;
}

static char *
tunnel_exchange(SSL *ssl, const char *req)
{
    assert_int_equal(SSL_write(ssl, req, (int)strlen(req)), (int)strlen(req));
    box_buf b;
    box_buf_init(&b, 1u << 20);
    char buf[16384];
    int r;
    while ((r = SSL_read(ssl, buf, sizeof buf)) > 0)
        assert_int_equal(box_buf_append(&b, buf, (size_t)r), BOX_OK);
    ERR_clear_error();
    return box_buf_take(&b);
}

static void
tunnel_close(SSL *ssl, int fd)
{
    SSL_free(ssl);
    close(fd);
}

static void
test_tunnel_intercepted(void **state)
{
    fx *f = *state;
    start_gateway(f, "--upstream-ca", f->up_ca);
    int fd;
    char *head = NULL;
    SSL *ssl = tunnel_open(f, &fd, &head);
    assert_non_null(ssl);
    assert_string_equal(head, "HTTP/1.1 200 Connection established\r\n\r\n");
    box_free(head);
    char req[256];
    snprintf(req, sizeof req,
             "GET /hello HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
             f->tus.us_port);
    char *r = tunnel_exchange(ssl, req);
    tunnel_close(ssl, fd);
    expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    expect_has(r, "connection: close\r\n"); // one request per tunnel
    expect_has(r, "\r\n\r\nhello\n");
    box_free(r);
    pthread_mutex_lock(&f->tus.us_lock);
    expect_prefix(f->tus.us_last_head, "GET /hello HTTP/1.1\r\n");
    pthread_mutex_unlock(&f->tus.us_lock);

    // Inside the tunnel, policy still decides the request.
    ssl = tunnel_open(f, &fd, &head);
    box_free(head);
    snprintf(req, sizeof req,
             "GET /secret HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
             f->tus.us_port);
    r = tunnel_exchange(ssl, req);
    tunnel_close(ssl, fd);
    expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    expect_has(r, "\r\n\r\nhttp:request gate: policy denied this operation");
    box_free(r);

    // The inner request must name the CONNECT host.
    ssl = tunnel_open(f, &fd, &head);
    box_free(head);
    r = tunnel_exchange(ssl, "GET / HTTP/1.1\r\nHost: other.example\r\n\r\n");
    tunnel_close(ssl, fd);
    expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    expect_has(r, "\r\n\r\nrequest authority rejected\n");
    box_free(r);
}

static void
test_tunnel_refusals(void **state)
{
    fx *f = *state;
    start_gateway(f, NULL, NULL); // upstream TLS against the system roots
    // A denied CONNECT is refused before the 200, in plaintext.
    char *r = exchange(f, "CONNECT localhost:443 HTTP/1.1\r\nHost: "
                          "localhost:443\r\n\r\n");
    expect_prefix(r, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                     "refused\r\n");
    expect_has(r, "\r\n\r\npolicy denied this operation on "
                  "'localhost:443' [default-deny]");
    box_free(r);
    // An upstream whose certificate the system roots do not vouch for:
    // 502, the verification failure named, nothing forwarded.
    int before = atomic_load(&f->tus.us_requests);
    int fd;
    char *head = NULL;
    SSL *ssl = tunnel_open(f, &fd, &head);
    assert_non_null(ssl);
    box_free(head);
    char req[256];
    snprintf(req, sizeof req,
             "GET /hello HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
             f->tus.us_port);
    r = tunnel_exchange(ssl, req);
    tunnel_close(ssl, fd);
    expect_prefix(r, "HTTP/1.1 502 Bad Gateway\r\n");
    assert_null(strcasestr(r, "x-strands-box-egress"));
    expect_has(r, "certificate");
    box_free(r);
    assert_int_equal(atomic_load(&f->tus.us_requests), before);
}

/* The gateway records each exchange's outcome: a rule reading
 * ::response{output.status} sees it. */
static void
test_outcomes_recorded(void **state)
{
    fx *f = *state;
    start_gateway(f, NULL, NULL);
    char *r = get(f, "127.0.0.1", "/hello");
    expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    box_free(r);
    r = get(f, "127.0.0.1", "/404");
    expect_prefix(r, "HTTP/1.1 404 Not Found\r\n");
    box_free(r);
    // The outcome goes to the PDP off the loop: it lands in a moment.
    bool refused = false;
    for (int i = 0; i < 50 && !refused; i++) {
        r = get(f, "127.0.0.1", "/hello");
        refused = strstr(r, "[policy: after404]") != NULL;
        if (!refused)
            expect_prefix(r, "HTTP/1.1 200 OK\r\n");
        box_free(r);
        if (!refused)
            box_test_sleep_ms(100);
    }
    assert_true(refused);
}

int
main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_permitted_get, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals_marked, setup, teardown),
        cmocka_unit_test_setup_teardown(test_body_bytes_decided, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_keep_alive_and_framing, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_big_answer_intact, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_failures_unmarked, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_pdp_gone_refuses, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_slow_and_full, setup, teardown),
        cmocka_unit_test_setup_teardown(test_connection_limit, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_decisions_logged, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_tunnel_intercepted, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_tunnel_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tcp_token, setup, teardown),
        cmocka_unit_test_setup_teardown(test_outcomes_recorded,
                                        setup_after_404, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
