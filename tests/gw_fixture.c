/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper: a real box-pdp and box-gateway beside test origin servers,
 * and a plain client of the gateway. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_control.h"
#include "box_req.h"
#include "box_testutil.h"
#include "gw_ca.h"
#include "gw_fixture.h"

/* ---- the origin ---- */

/* A connection, plain or TLS (blocking either way). */
typedef struct gwt_io {
    int io_fd;
    SSL *io_ssl;
} gwt_io;

static ssize_t
io_recv(gwt_io *io, void *b, size_t n)
{
    if (io->io_ssl == NULL)
        return recv(io->io_fd, b, n, 0);
    int r = SSL_read(io->io_ssl, b, (int)n);
    return r > 0 ? r : 0;
}

static bool
io_send(gwt_io *io, const void *p, size_t n)
{
    const char *c = p;
    while (n > 0) {
        ssize_t w = io->io_ssl == NULL ? send(io->io_fd, c, n, MSG_NOSIGNAL)
                                       : SSL_write(io->io_ssl, c, (int)n);
        if (w <= 0)
            return false;
        c += w;
        n -= (size_t)w;
    }
    return true;
}

static bool io_printf(gwt_io *io, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static bool
io_printf(gwt_io *io, const char *fmt, ...)
{
    char b[8192];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b, sizeof b, fmt, ap);
    va_end(ap);
    return n > 0 && (size_t)n < sizeof b && io_send(io, b, (size_t)n);
}

static bool
read_head(gwt_io *io, box_buf *in, size_t *head_len)
{
    for (;;) {
        char *end = in->b_len ? strstr(in->b_data, "\r\n\r\n") : NULL;
        if (end != NULL) {
            *head_len = (size_t)(end - in->b_data) + 4;
            return true;
        }
        char b[4096];
        ssize_t r = io_recv(io, b, sizeof b);
        if (r <= 0 || box_buf_append(in, b, (size_t)r) != BOX_OK)
            return false;
    }
}

/* One request on an origin connection: its head is in[0..hl); the body
 * (cl bytes) follows, already read in whole unless the route reads it. */
typedef struct gwt_exch {
    box_buf *x_in;
    size_t x_hl, x_cl;
    const char *x_rest; // the path after the route's prefix
} gwt_exch;

/* A route answers; false ends the connection. */
typedef bool (*gwt_route_fn)(gwt_io *io, gwt_exch *x);

static bool
route_hello(gwt_io *io, gwt_exch *x)
{
    (void)x;
    return io_printf(io, "HTTP/1.1 200 OK\r\ncontent-length: 6\r\nx-up: "
                         "1\r\nconnection: keep-alive\r\nkeep-alive: "
                         "timeout=5\r\n\r\nhello\n");
}

static bool
route_id(gwt_io *io, gwt_exch *x)
{
    size_t n = strlen(x->x_rest) + 4;
    return io_printf(io,
                     "HTTP/1.1 200 OK\r\ncontent-length: %zu\r\n\r\nid %s\n", n,
                     x->x_rest);
}

static bool
route_chunked(gwt_io *io, gwt_exch *x)
{
    (void)x;
    return io_printf(io, "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n"
                         "5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n");
}

static bool
route_big(gwt_io *io, gwt_exch *x)
{
    (void)x;
    if (!io_printf(io, "HTTP/1.1 200 OK\r\ncontent-length: %u\r\n\r\n",
                   GWT_BIG))
        return false;
    char *big = box_alloc(GWT_BIG);
    assert_non_null(big);
    for (size_t i = 0; i < GWT_BIG; i++)
        big[i] = (char)('a' + i % 26);
    bool ok = io_send(io, big, GWT_BIG);
    box_free(big);
    return ok;
}

/* Made block by block as it is sent: the origin never holds it either. */
static bool
route_huge(gwt_io *io, gwt_exch *x)
{
    (void)x;
    if (!io_printf(io, "HTTP/1.1 200 OK\r\ncontent-length: %u\r\n\r\n",
                   GWT_HUGE))
        return false;
    char b[65536];
    for (uint64_t off = 0; off < GWT_HUGE; off += sizeof b) {
        gwt_pattern_fill(b, off, sizeof b);
        if (!io_send(io, b, sizeof b))
            return false;
    }
    return true;
}

static bool
route_echo(gwt_io *io, gwt_exch *x)
{
    char body[4096];
    int bn = snprintf(body, sizeof body, "body %zu: %.*s", x->x_cl,
                      (int)x->x_cl, x->x_in->b_data + x->x_hl);
    return io_printf(io, "HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s", bn,
                     body);
}

/* The request head as the origin got it, as the body (a credential the
 * gateway put in shows here, and must come back scrubbed). */
static bool
route_headers(gwt_io *io, gwt_exch *x)
{
    return io_printf(io,
                     "HTTP/1.1 200 OK\r\ncontent-length: %zu\r\n"
                     "x-seen: %.*s\r\n\r\n%.*s",
                     x->x_hl, (int)strcspn(x->x_in->b_data, "\r"),
                     x->x_in->b_data, (int)x->x_hl, x->x_in->b_data);
}

/* A compressed answer (the bytes are not really gzip: no one inflates). */
static bool
route_gzip(gwt_io *io, gwt_exch *x)
{
    (void)x;
    return io_printf(io, "HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\n"
                         "content-length: 4\r\n\r\nzzzz");
}

/* Hashes the body as it arrives: what was buffered after the head, then
 * the socket, never reading past the body. */
static bool
route_sink(gwt_io *io, gwt_exch *x)
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    assert_non_null(md);
    assert_int_equal(EVP_DigestInit_ex(md, EVP_sha256(), NULL), 1);
    size_t have = x->x_in->b_len - x->x_hl, left = x->x_cl;
    if (have > left)
        have = left;
    EVP_DigestUpdate(md, x->x_in->b_data + x->x_hl, have);
    left -= have;
    box_buf_truncate(x->x_in, x->x_hl + have);
    bool ok = true;
    while (ok && left > 0) {
        char b[65536];
        ssize_t r = io_recv(io, b, left < sizeof b ? left : sizeof b);
        ok = r > 0;
        if (ok) {
            EVP_DigestUpdate(md, b, (size_t)r);
            left -= (size_t)r;
        }
    }
    unsigned char d[32];
    EVP_DigestFinal_ex(md, d, NULL);
    EVP_MD_CTX_free(md);
    if (!ok)
        return false;
    char hex[65];
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
    char body[128];
    int bn = snprintf(body, sizeof body, "sha256 %s bytes %zu\n", hex, x->x_cl);
    return io_printf(io, "HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s", bn,
                     body);
}

static bool
route_marker(gwt_io *io, gwt_exch *x)
{
    (void)x;
    return io_printf(io, "HTTP/1.1 403 Forbidden\r\nx-strands-box-egress: "
                         "refused\r\ncontent-length: 6\r\n\r\nforged");
}

static bool
route_404(gwt_io *io, gwt_exch *x)
{
    (void)x;
    return io_printf(io, "HTTP/1.1 404 Not Found\r\ncontent-length: 4\r\n\r\n"
                         "nope");
}

static bool
route_close(gwt_io *io, gwt_exch *x)
{
    (void)x;
    (void)io_printf(io, "HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nuntil "
                        "the end");
    return false;
}

/* Matched in order; a path no row names gets the last (/hello). */
static const struct {
    const char *rt_path;
    bool rt_prefix;  // rt_path is a prefix; the rest goes to the route
    bool rt_streams; // the route reads the body itself
    gwt_route_fn rt_fn;
} route_tab[] = {
    {"/id/", true, false, route_id},
    {"/chunked", false, false, route_chunked},
    {"/big", false, false, route_big},
    {"/huge", false, false, route_huge},
    {"/echo", false, false, route_echo},
    {"/headers", false, false, route_headers},
    {"/gzip", false, false, route_gzip},
    {"/sink", false, true, route_sink},
    {"/marker", false, false, route_marker},
    {"/404", false, false, route_404},
    {"/close", false, false, route_close},
    {"", true, false, route_hello},
};

static size_t
route_find(const char *path)
{
    size_t i = 0;
    for (; i + 1 < sizeof route_tab / sizeof *route_tab; i++) {
        const char *p = route_tab[i].rt_path;
        if (route_tab[i].rt_prefix ? strncmp(path, p, strlen(p)) == 0
                                   : strcmp(path, p) == 0)
            break;
    }
    return i;
}

/* Serves requests on one connection until it closes. */
static void
upstream_conn(gwt_upstream *us, gwt_io *io)
{
    box_buf in;
    box_buf_init(&in, 1u << 20);
    for (;;) {
        size_t hl;
        if (!read_head(io, &in, &hl))
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
        char path[256] = "";
        sscanf(in.b_data, "%*s %255s", path);
        size_t rt = route_find(path);
        if (!route_tab[rt].rt_streams) {
            while (in.b_len < hl + cl) {
                char b[4096];
                ssize_t r = io_recv(io, b, sizeof b);
                if (r <= 0 || box_buf_append(&in, b, (size_t)r) != BOX_OK)
                    goto out;
            }
        }
        gwt_exch x = {.x_in = &in,
                      .x_hl = hl,
                      .x_cl = cl,
                      .x_rest = path + strlen(route_tab[rt].rt_path)};
        if (!route_tab[rt].rt_fn(io, &x))
            goto out;
        // A streaming route leaves exactly the head and what it used.
        size_t used = route_tab[rt].rt_streams ? in.b_len : hl + cl;
        memmove(in.b_data, in.b_data + used, in.b_len - used);
        box_buf_truncate(&in, in.b_len - used);
    }
out:
    box_buf_reset(&in);
}

typedef struct gwt_conn_arg {
    gwt_upstream *ca_us;
    int ca_fd;
} gwt_conn_arg;

static void *
upstream_conn_main(void *arg)
{
    gwt_conn_arg *ca = arg;
    gwt_upstream *us = ca->ca_us;
    int fd = ca->ca_fd;
    box_free(ca);
    gwt_io io = {.io_fd = fd};
    if (us->us_tls != NULL) {
        io.io_ssl = SSL_new(us->us_tls);
        SSL_set_fd(io.io_ssl, fd);
        if (SSL_accept(io.io_ssl) != 1) {
            ERR_clear_error();
            SSL_free(io.io_ssl);
            io.io_ssl = NULL;
            goto out;
        }
    }
    upstream_conn(us, &io);
    if (io.io_ssl != NULL) {
        SSL_shutdown(io.io_ssl);
        SSL_free(io.io_ssl);
    }
out:
    pthread_mutex_lock(&us->us_lock);
    for (unsigned i = 0; i < us->us_nlive; i++)
        if (us->us_live[i] == fd) {
            us->us_live[i] = us->us_live[--us->us_nlive];
            break;
        }
    close(fd);
    pthread_cond_broadcast(&us->us_gone);
    pthread_mutex_unlock(&us->us_lock);
    return NULL;
}

static void *
upstream_main(void *arg)
{
    gwt_upstream *us = arg;
    for (;;) {
        int fd = accept4(us->us_fd, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0)
            return NULL; // shut by the teardown
        atomic_fetch_add(&us->us_accepted, 1);
        gwt_conn_arg *ca = box_calloc(1, sizeof *ca);
        pthread_attr_t at;
        pthread_attr_init(&at);
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
        pthread_t t;
        pthread_mutex_lock(&us->us_lock);
        bool ok = ca != NULL && !us->us_stopping &&
                  us->us_nlive < GWT_ORIGIN_LIVE_MAX;
        if (ok) {
            *ca = (gwt_conn_arg){us, fd};
            us->us_live[us->us_nlive++] = fd;
            ok = pthread_create(&t, &at, upstream_conn_main, ca) == 0;
            if (!ok)
                us->us_nlive--;
        }
        pthread_mutex_unlock(&us->us_lock);
        pthread_attr_destroy(&at);
        if (!ok) {
            box_free(ca);
            close(fd);
        }
    }
}

void
gwt_origin_start(gwt_upstream *us, const char *addr, SSL_CTX *tls,
                 unsigned nthreads)
{
    memset(us, 0, sizeof *us);
    assert_true(nthreads >= 1 && nthreads <= GWT_ORIGIN_THREADS_MAX);
    us->us_tls = tls;
    us->us_nthreads = nthreads;
    pthread_mutex_init(&us->us_lock, NULL);
    pthread_cond_init(&us->us_gone, NULL);
    us->us_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in in = {.sin_family = AF_INET};
    assert_int_equal(inet_pton(AF_INET, addr, &in.sin_addr), 1);
    socklen_t sl = sizeof in;
    assert_int_equal(bind(us->us_fd, (struct sockaddr *)&in, sizeof in), 0);
    // Room for every connection a load test's gateway opens at once.
    assert_int_equal(listen(us->us_fd, 1024), 0);
    assert_int_equal(getsockname(us->us_fd, (struct sockaddr *)&in, &sl), 0);
    us->us_port = ntohs(in.sin_port);
    for (unsigned i = 0; i < nthreads; i++)
        assert_int_equal(
            pthread_create(&us->us_threads[i], NULL, upstream_main, us), 0);
}

void
gwt_origin_stop(gwt_upstream *us)
{
    shutdown(us->us_fd, SHUT_RDWR);
    for (unsigned i = 0; i < us->us_nthreads; i++)
        pthread_join(us->us_threads[i], NULL);
    close(us->us_fd);
    // Connections a gateway still keeps end now; their threads go.
    pthread_mutex_lock(&us->us_lock);
    us->us_stopping = true;
    for (unsigned i = 0; i < us->us_nlive; i++)
        shutdown(us->us_live[i], SHUT_RDWR);
    while (us->us_nlive > 0)
        pthread_cond_wait(&us->us_gone, &us->us_lock);
    pthread_mutex_unlock(&us->us_lock);
    pthread_cond_destroy(&us->us_gone);
    pthread_mutex_destroy(&us->us_lock);
    SSL_CTX_free(us->us_tls);
}

SSL_CTX *
gwt_origin_tls(const char *host, const char *ca_file)
{
    gw_ca *up = NULL;
    char *err = NULL;
    SSL_CTX *tls = NULL;
    assert_int_equal(gw_ca_new(&up, &err), BOX_OK);
    assert_int_equal(gw_ca_write_cert(up, ca_file, &err), BOX_OK);
    assert_int_equal(gw_ca_server_ctx(up, host, &tls, &err), BOX_OK);
    gw_ca_free(up);
    return tls;
}

/* ---- the services ---- */

void
gwt_start_gateway_argv(gwt_fx *f, const char *const *extra,
                       char *const envp[])
{
    char bin[4096];
    box_proc_bin(bin, sizeof bin, "box-gateway");
    char *argv[11 + GWT_EXTRA_MAX + 1] = {
        bin,       "--pdp",      f->pdp_url, "--control", f->ctl_url, "--socket",
        f->sock,   "--ca-cert",  f->ca,      "--token-file", f->token};
    size_t n = 11;
    for (size_t i = 0; extra != NULL && extra[i] != NULL; i++) {
        assert_true(i < GWT_EXTRA_MAX);
        argv[n++] = (char *)extra[i];
    }
    argv[n] = NULL;
    assert_true(box_proc_start(&f->gw, argv, envp));
    uint64_t deadline = (uint64_t)box_test_now_ms() + GWT_START_MS;
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

void
gwt_start_gateway_env(gwt_fx *f, const char *extra_flag,
                      const char *extra_value, char *const envp[])
{
    const char *extra[] = {extra_flag, extra_value, NULL};
    gwt_start_gateway_argv(f, extra, envp);
}

void
gwt_start_gateway(gwt_fx *f, const char *extra_flag, const char *extra_value)
{
    gwt_start_gateway_env(f, extra_flag, extra_value, NULL);
}

void
gwt_stop_proc(box_proc *p)
{
    kill(p->bp_pid, SIGTERM);
    box_proc_result r;
    box_proc_finish(p, 15000, &r);
    if (r.pr_status != 0)
        box_test_show_result("service", &r);
    assert_int_equal(r.pr_status, 0);
    box_proc_result_free(&r);
}

int
gwt_setup(void **state, const char *policy, unsigned origin_threads)
{
    gwt_fx *f = box_calloc(1, sizeof *f);
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
    Box__HealthResponse *h = box_wait_pdp(f->pdp_url, GWT_START_MS);
    assert_non_null(h);
    box__health_response__free_unpacked(h, NULL);
    gwt_origin_start(&f->us, "127.0.0.1", NULL, origin_threads);
    // The TLS upstream: a CA of its own (standing for the public roots),
    // and a leaf for 127.0.0.1 signed by it.
    gwt_origin_start(&f->tus, "127.0.0.1", gwt_origin_tls("127.0.0.1", f->up_ca),
                     1);
    *state = f;
    return 0;
}

int
gwt_teardown(void **state)
{
    gwt_fx *f = *state;
    if (f->gw.bp_pid > 0)
        gwt_stop_proc(&f->gw);
    if (f->pdp.bp_pid > 0)
        gwt_stop_proc(&f->pdp);
    gwt_origin_stop(&f->us);
    gwt_origin_stop(&f->tus);
    box_test_rmtree(f->dir);
    box_free(f);
    return 0;
}

/* ---- a client ---- */

static void
set_timeout(int fd)
{
    struct timeval tv = {.tv_sec = GWT_IO_MS / 1000};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
}

int
gwt_connect_tcp(const gwt_fx *f)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in in = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)f->gw_port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    assert_int_equal(connect(fd, (struct sockaddr *)&in, sizeof in), 0);
    set_timeout(fd);
    return fd;
}

int
gwt_connect(const gwt_fx *f)
{
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    memcpy(sun.sun_path, f->sock, strlen(f->sock) + 1);
    assert_int_equal(connect(fd, (struct sockaddr *)&sun, sizeof sun), 0);
    set_timeout(fd);
    return fd;
}

void
gwt_send_all(int fd, const void *p, size_t n)
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

size_t
gwt_response_len(const char *b, size_t n)
{
    const char *end = n ? strstr(b, "\r\n\r\n") : NULL;
    if (end == NULL)
        return 0;
    size_t hl = (size_t)(end - b) + 4;
    const char *cl = strcasestr(b, "\r\ncontent-length:");
    if (cl != NULL && cl < end) {
        size_t want = hl + strtoul(cl + 17, NULL, 10);
        return n >= want ? want : 0;
    }
    const char *te = strcasestr(b, "\r\ntransfer-encoding: chunked");
    if (te != NULL && te < end)
        return n >= hl + 5 && memcmp(b + n - 5, "0\r\n\r\n", 5) == 0 ? n : 0;
    return 0; // to the close
}

char *
gwt_read_response(int fd)
{
    box_buf b;
    box_buf_init(&b, 128u << 20);
    while (b.b_len == 0 || gwt_response_len(b.b_data, b.b_len) == 0) {
        char buf[65536];
        ssize_t r = recv(fd, buf, sizeof buf, 0);
        if (r <= 0)
            break;
        assert_int_equal(box_buf_append(&b, buf, (size_t)r), BOX_OK);
    }
    return box_buf_take(&b);
}

char *
gwt_exchange(const gwt_fx *f, const char *req)
{
    int fd = gwt_connect(f);
    gwt_send_all(fd, req, strlen(req));
    char *r = gwt_read_response(fd);
    close(fd);
    return r;
}

char *
gwt_get(const gwt_fx *f, const char *host, const char *path)
{
    char req[1024];
    snprintf(req, sizeof req,
             "GET http://%s:%u%s HTTP/1.1\r\nHost: %s:%u\r\nConnection: "
             "close\r\n\r\n",
             host, f->us.us_port, path, host, f->us.us_port);
    return gwt_exchange(f, req);
}

void
gwt_expect_prefix(const char *text, const char *prefix)
{
    if (strncmp(text, prefix, strlen(prefix)) != 0)
        fail_msg("expected a response starting\n%s\ngot\n%.2000s", prefix,
                 text);
}

void
gwt_expect_has(const char *text, const char *needle)
{
    if (strstr(text, needle) == NULL)
        fail_msg("expected\n%s\nin\n%.2000s", needle, text);
}

/* ---- a checkable stream ---- */

unsigned char
gwt_pattern(uint64_t i)
{
    // Each byte mixes its offset's every byte: no period under 2^32.
    uint32_t x = (uint32_t)i * 2654435761u;
    return (unsigned char)(x >> 24 ^ (uint32_t)i);
}

void
gwt_pattern_fill(char *b, uint64_t off, size_t n)
{
    for (size_t k = 0; k < n; k++)
        b[k] = (char)gwt_pattern(off + k);
}
