/* SPDX-License-Identifier: Apache-2.0 */
/* box-gateway under load and abuse (issue 22): many keep-alive clients at
 * once, bodies far larger than its buffers in both directions with its peak
 * memory measured, and malformed requests refused while it keeps serving. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <openssl/evp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_testutil.h"
#include "gw_fixture.h"

#define LT_CLIENTS 500
#define LT_ROUNDS 3         // requests per client, on one connection
#define LT_LOAD_MS 50000    // all of them, under ASan on 2 cores
#define LT_BODY (12u << 20) // a request body under the 16 MiB cap
#define LT_MIB (1024 * 1024)
/* Peak RSS growth allowed while one big body passes: a request body is
 * held whole by design (up to the 16 MiB cap), so 16 MiB for that and 16
 * for everything else; a response is streamed, so the 64 MiB one gets the
 * same 32 and would need 64 if it were held. */
#define LT_GROWTH_MAX (32 * LT_MIB)

/* 127.0.0.1 may connect; any request there but to /secret*. */
static const char lt_policy[] =
    "@id(\"local\") permit (principal, action == Box::Action::\"net:connect\", "
    "resource) when { context.input.host == \"127.0.0.1\" };\n"
    "@id(\"any\") permit (principal, action == Box::Action::\"http:request\", "
    "resource);\n"
    "@id(\"nosecret\") forbid (principal, action == "
    "Box::Action::\"http:request\", resource) when { context.input.path "
    "like \"/secret*\" };\n";

static int
setup(void **state)
{
    // Origin threads enough that the gateway's hundreds of upstream
    // connections are served as fast as it makes them.
    return gwt_setup(state, lt_policy, 16);
}

static int
teardown(void **state)
{
    return gwt_teardown(state);
}

/* A GET of path on a keep-alive connection. */
static int
get_req(char *buf, size_t n, const gwt_fx *f, const char *path)
{
    return snprintf(buf, n,
                    "GET http://127.0.0.1:%u%s HTTP/1.1\r\nHost: "
                    "127.0.0.1:%u\r\n\r\n",
                    f->us.us_port, path, f->us.us_port);
}

static void
expect_hello(const gwt_fx *f)
{
    char *r = gwt_get(f, "127.0.0.1", "/hello");
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    gwt_expect_has(r, "\r\n\r\nhello\n");
    box_free(r);
}

/* ---- 1. many clients at once ---- */

typedef struct lt_client {
    int lc_fd;
    int lc_done; // answers read
    box_buf lc_in;
} lt_client;

static void
client_send(const gwt_fx *f, lt_client *c, int id)
{
    char path[64], req[256];
    snprintf(path, sizeof path, "/id/%d-%d", id, c->lc_done);
    int n = get_req(req, sizeof req, f, path);
    // A few hundred bytes into an empty socket buffer: never short.
    assert_int_equal(send(c->lc_fd, req, (size_t)n, MSG_NOSIGNAL), n);
}

/* Reads what c's socket has; each whole answer is checked (200, this
 * client's own body, the connection kept) and the next request sent. */
static void
client_read(const gwt_fx *f, lt_client *c, int id)
{
    char b[8192];
    ssize_t r = recv(c->lc_fd, b, sizeof b, MSG_DONTWAIT);
    if (r < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (r <= 0)
        fail_msg("client %d: connection ended after %d answers (%s)", id,
                 c->lc_done, r < 0 ? strerror(errno) : "closed");
    assert_int_equal(box_buf_append(&c->lc_in, b, (size_t)r), BOX_OK);
    size_t len;
    while (c->lc_in.b_len > 0 &&
           (len = gwt_response_len(c->lc_in.b_data, c->lc_in.b_len)) > 0) {
        char want[64];
        size_t wn = (size_t)snprintf(want, sizeof want, "\r\n\r\nid %d-%d\n",
                                     id, c->lc_done);
        const char *resp = c->lc_in.b_data;
        gwt_expect_prefix(resp, "HTTP/1.1 200 OK\r\n");
        if (len < wn || memcmp(resp + len - wn, want, wn) != 0)
            fail_msg("client %d answer %d: expected the body %s in\n%.*s", id,
                     c->lc_done, want + 4, (int)len, resp);
        // Kept alive: no answer says it closes.
        assert_null(strcasestr(resp, "\r\nconnection: close"));
        c->lc_done++;
        memmove(c->lc_in.b_data, c->lc_in.b_data + len, c->lc_in.b_len - len);
        box_buf_truncate(&c->lc_in, c->lc_in.b_len - len);
        if (c->lc_done < LT_ROUNDS)
            client_send(f, c, id);
    }
}

/* The test holds every client socket and the origin every upstream one:
 * the soft limit (often 1024) goes up to what both need, and the gateway
 * started after inherits it. */
static void
raise_nofile(rlim_t want)
{
    struct rlimit rl;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_cur >= want)
        return;
    if (rl.rlim_max < want)
        fail_msg("RLIMIT_NOFILE's hard limit %llu is under the %llu this "
                 "test needs",
                 (unsigned long long)rl.rlim_max, (unsigned long long)want);
    rl.rlim_cur = want;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

/* Under ASan this found a heap-use-after-free in px_loop: libcurl acting
 * on one socket dropped another whose event was later in the same epoll
 * batch (now closed things are freed when the batch ends). */
static void
test_many_keep_alive_clients(void **state)
{
    gwt_fx *f = *state;
    raise_nofile(4 * LT_CLIENTS + 256);
    gwt_start_gateway(f, NULL, NULL);
    int before = atomic_load(&f->us.us_requests);
    lt_client *cl = box_calloc(LT_CLIENTS, sizeof *cl);
    struct pollfd *pf = box_calloc(LT_CLIENTS, sizeof *pf);
    assert_non_null(cl);
    assert_non_null(pf);
    long long t0 = box_test_now_ms();
    // All connected before any request: the gateway holds 500 at once.
    for (int i = 0; i < LT_CLIENTS; i++) {
        cl[i].lc_fd = gwt_connect(f);
        box_buf_init(&cl[i].lc_in, 1u << 16);
    }
    for (int i = 0; i < LT_CLIENTS; i++)
        client_send(f, &cl[i], i);
    long long deadline = t0 + LT_LOAD_MS;
    int left = LT_CLIENTS;
    while (left > 0) {
        int n = 0;
        for (int i = 0; i < LT_CLIENTS; i++)
            if (cl[i].lc_done < LT_ROUNDS)
                pf[n++] = (struct pollfd){.fd = cl[i].lc_fd, .events = POLLIN};
        if (box_test_now_ms() > deadline) {
            int answered = 0;
            for (int i = 0; i < LT_CLIENTS; i++)
                answered += cl[i].lc_done;
            fail_msg("%d of %d answers in %d ms; %d clients unfinished",
                     answered, LT_CLIENTS * LT_ROUNDS, LT_LOAD_MS, left);
        }
        int k = poll(pf, (nfds_t)n, 1000);
        assert_true(k >= 0 || errno == EINTR);
        for (int j = 0, i = 0; j < n && k > 0; j++) {
            if (pf[j].revents == 0)
                continue;
            k--;
            while (cl[i].lc_fd != pf[j].fd)
                i++;
            client_read(f, &cl[i], i);
            if (cl[i].lc_done == LT_ROUNDS)
                left--;
        }
    }
    long long took = box_test_now_ms() - t0;
    print_message("%d clients x %d requests: %lld ms\n", LT_CLIENTS, LT_ROUNDS,
                  took);
    for (int i = 0; i < LT_CLIENTS; i++) {
        close(cl[i].lc_fd);
        box_buf_reset(&cl[i].lc_in);
    }
    box_free(cl);
    box_free(pf);
    assert_int_equal(atomic_load(&f->us.us_requests) - before,
                     LT_CLIENTS * LT_ROUNDS);
    expect_hello(f); // and it goes on serving
}

/* ---- 2. big bodies, streamed ---- */

/* A field of /proc/PID/status in KiB (VmRSS, VmHWM). */
static long
proc_kib(pid_t pid, const char *field)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    char *s = box_test_slurp(path);
    assert_non_null(s);
    const char *p = strstr(s, field);
    assert_non_null(p);
    long v = strtol(p + strlen(field) + 1, NULL, 10);
    box_free(s);
    return v;
}

/* The hex SHA-256 of n pattern bytes (what /sink should report). */
static void
pattern_sha256(uint64_t n, char hex[65])
{
    EVP_MD_CTX *md = EVP_MD_CTX_new();
    assert_non_null(md);
    assert_int_equal(EVP_DigestInit_ex(md, EVP_sha256(), NULL), 1);
    char b[65536];
    for (uint64_t off = 0; off < n; off += sizeof b) {
        size_t k = n - off < sizeof b ? (size_t)(n - off) : sizeof b;
        gwt_pattern_fill(b, off, k);
        EVP_DigestUpdate(md, b, k);
    }
    unsigned char d[32];
    EVP_DigestFinal_ex(md, d, NULL);
    EVP_MD_CTX_free(md);
    for (int i = 0; i < 32; i++)
        snprintf(hex + 2 * i, 3, "%02x", d[i]);
}

/* /huge read by a client slower than the origin: nothing for a while
 * (every buffer on the way fills and the gateway must pause upstream),
 * then small reads with pauses; every byte checked as it comes, none
 * kept. */
static void
huge_to_slow_reader(const gwt_fx *f)
{
    int fd = gwt_connect(f);
    char req[256];
    int n = get_req(req, sizeof req, f, "/huge");
    gwt_send_all(fd, req, (size_t)n);
    box_test_sleep_ms(1000);
    box_buf head;
    box_buf_init(&head, 1u << 16);
    uint64_t got = 0;
    bool in_body = false;
    char b[32768];
    int reads = 0;
    while (got < GWT_HUGE) {
        ssize_t r = recv(fd, b, sizeof b, 0);
        if (r <= 0)
            fail_msg("/huge cut after %llu body bytes",
                     (unsigned long long)got);
        const char *p = b;
        size_t k = (size_t)r;
        if (!in_body) {
            assert_int_equal(box_buf_append(&head, b, k), BOX_OK);
            char *end = strstr(head.b_data, "\r\n\r\n");
            if (end == NULL)
                continue;
            size_t hl = (size_t)(end - head.b_data) + 4;
            gwt_expect_prefix(head.b_data, "HTTP/1.1 200 OK\r\n");
            char want[64];
            snprintf(want, sizeof want, "content-length: %u\r\n", GWT_HUGE);
            gwt_expect_has(head.b_data, want);
            in_body = true;
            p = head.b_data + hl;
            k = head.b_len - hl;
        }
        for (size_t i = 0; i < k; i++)
            if ((unsigned char)p[i] != gwt_pattern(got + i))
                fail_msg("/huge differs at byte %llu",
                         (unsigned long long)(got + i));
        got += k;
        if (++reads % 8 == 0)
            box_test_sleep_ms(1); // about 256 KiB a millisecond at most
    }
    box_buf_reset(&head);
    close(fd);
}

/* How body_to_sink frames its body. */
#define LT_LENGTH 0          // Content-Length
#define LT_VARY ((size_t)-1) // chunks of 1 byte to 64 KiB, each different

/* POST /sink with n bytes of the pattern, framed as chunk says (LT_LENGTH,
 * LT_VARY, or chunks of that many bytes), sent in 64 KiB writes; the
 * origin's hash of what reached it must be the body's. */
static void
body_to_sink(const gwt_fx *f, uint64_t n, size_t chunk)
{
    int fd = gwt_connect(f);
    char framing[64], head[512];
    if (chunk != LT_LENGTH)
        snprintf(framing, sizeof framing, "Transfer-Encoding: chunked");
    else
        snprintf(framing, sizeof framing, "Content-Length: %llu",
                 (unsigned long long)n);
    int hn = snprintf(head, sizeof head,
                      "POST http://127.0.0.1:%u/sink HTTP/1.1\r\nHost: "
                      "127.0.0.1:%u\r\n%s\r\nConnection: close\r\n\r\n",
                      f->us.us_port, f->us.us_port, framing);
    gwt_send_all(fd, head, (size_t)hn);
    box_buf out;
    box_buf_init(&out, 1u << 20);
    char *b = box_alloc(65536);
    assert_non_null(b);
    uint32_t seed = 1;
    for (uint64_t off = 0; off < n;) {
        size_t k = chunk == LT_LENGTH ? 65536 : chunk;
        if (chunk == LT_VARY) {
            seed = seed * 1103515245u + 12345u;
            k = 1 + (seed >> 8) % 65536;
        }
        if (k > n - off)
            k = (size_t)(n - off);
        gwt_pattern_fill(b, off, k);
        if (chunk != LT_LENGTH)
            assert_int_equal(box_buf_printf(&out, "%zx\r\n", k), BOX_OK);
        assert_int_equal(box_buf_append(&out, b, k), BOX_OK);
        if (chunk != LT_LENGTH)
            assert_int_equal(box_buf_puts(&out, "\r\n"), BOX_OK);
        off += k;
        if (out.b_len >= 65536 || off == n) {
            gwt_send_all(fd, out.b_data, out.b_len);
            box_buf_truncate(&out, 0);
        }
    }
    if (chunk != LT_LENGTH)
        gwt_send_all(fd, "0\r\n\r\n", 5);
    box_free(b);
    box_buf_reset(&out);
    char *r = gwt_read_response(fd);
    close(fd);
    char hex[65], want[128];
    pattern_sha256(n, hex);
    snprintf(want, sizeof want, "\r\n\r\nsha256 %s bytes %llu\n", hex,
             (unsigned long long)n);
    gwt_expect_prefix(r, "HTTP/1.1 200 OK\r\n");
    gwt_expect_has(r, want);
    box_free(r);
}

/* Each transfer on a gateway of its own: VmHWM only grows, so its growth
 * over the RSS before the transfer is the transfer's alone. A row without
 * a body is the 64 MiB response. */
static const struct {
    const char *what;
    uint64_t body;
    size_t chunk;
} big_tab[] = {
    {"64 MiB response to a slow reader", 0, 0},
    {"12 MiB request body, Content-Length", LT_BODY, LT_LENGTH},
    {"12 MiB request body, chunked", LT_BODY, LT_VARY},
    /* The payload is under the cap, its framing (13 bytes a chunk) is
     * not: the gateway must still take it (its framing limits count
     * extensions and leading zeros, not the size digits and CRLFs). This
     * found the raw body kept in the input buffer until its end, which
     * the framing filled: a spin, then 408. */
    {"12 MiB request body in 8-byte chunks", LT_BODY, 8},
};

/*
 * The test's environment for the gateway, with ASan's quarantine off: under
 * a sanitizer, blocks the gateway freed (a growing buffer's old storage)
 * would stay resident in it and count as the gateway's, though they are
 * the sanitizer's. Without a sanitizer the option is read by nobody.
 * Caller frees with env_free.
 */
static char **
env_no_quarantine(void)
{
    extern char **environ;
    size_t n = 0;
    while (environ[n] != NULL)
        n++;
    char **env = box_calloc(n + 2, sizeof *env);
    assert_non_null(env);
    const char *asan = getenv("ASAN_OPTIONS");
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (strncmp(environ[i], "ASAN_OPTIONS=", 13) != 0)
            env[k++] = box_strdup(environ[i]);
    env[k++] = box_asprintf("ASAN_OPTIONS=%s%squarantine_size_mb=0",
                            asan ? asan : "", asan && *asan ? ":" : "");
    for (size_t i = 0; i < k; i++)
        assert_non_null(env[i]);
    return env;
}

static void
env_free(char **env)
{
    for (size_t i = 0; env[i] != NULL; i++)
        box_free(env[i]);
    box_free(env);
}

static void
test_big_bodies_streamed(void **state)
{
    gwt_fx *f = *state;
    char **env = env_no_quarantine();
    for (size_t i = 0; i < sizeof big_tab / sizeof *big_tab; i++) {
        // A transfer that stalls fails in seconds, not the default minute.
        gwt_start_gateway_env(f, "--client-timeout", "10000", env);
        expect_hello(f); // its first request's allocations are not counted
        long rss = proc_kib(f->gw.bp_pid, "VmRSS:");
        print_message("%s\n", big_tab[i].what); // named if it fails
        long long t0 = box_test_now_ms();
        if (big_tab[i].body == 0)
            huge_to_slow_reader(f);
        else
            body_to_sink(f, big_tab[i].body, big_tab[i].chunk);
        long hwm = proc_kib(f->gw.bp_pid, "VmHWM:");
        print_message("  %lld ms; gateway VmRSS before %ld KiB, VmHWM after "
                      "%ld KiB (+%ld KiB)\n",
                      box_test_now_ms() - t0, rss, hwm, hwm - rss);
        if ((hwm - rss) * 1024 >= LT_GROWTH_MAX)
            fail_msg("%s: the gateway's peak RSS grew %ld KiB (limit %d)",
                     big_tab[i].what, hwm - rss, LT_GROWTH_MAX / 1024);
        expect_hello(f);
        gwt_stop_proc(&f->gw);
        f->gw.bp_pid = 0;
    }
    env_free(env);
}

/* ---- 3. malformed requests ---- */

/*
 * Each row is sent on a connection of its own and must be answered with
 * exactly the gateway's refusal (gw_answer: status, reason, closed), reach
 * no origin, and leave the gateway serving. In the text, PORT is the
 * origin's port, PATH_PAD pad bytes of path and FIELD_PAD nfields header
 * fields of pad bytes each.
 */
static const struct {
    const char *what;
    const char *text;
    size_t pad;
    int nfields;
    int code;
    const char *reason;
} bad_tab[] = {
    {"two spaces in the request line",
     "GET  http://127.0.0.1:PORT/ HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\n", 0,
     0, 400,
     "malformed request line (method SP request-target SP HTTP-version)"},
    {"no version", "GET http://127.0.0.1:PORT/\r\nHost: 127.0.0.1:PORT\r\n\r\n",
     0, 0, 400,
     "malformed request line (method SP request-target SP HTTP-version)"},
    {"HTTP/2.0",
     "GET http://127.0.0.1:PORT/ HTTP/2.0\r\nHost: 127.0.0.1:PORT\r\n\r\n", 0,
     0, 505, "HTTP version not supported (HTTP/1.0 and HTTP/1.1 only)"},
    {"TLS bytes", "\x16\x03\x01\x02", 0, 0, 400,
     "not an HTTP request (no method token)"},
    {"a request line over 8192 bytes",
     "GET http://127.0.0.1:PORT/PATH_PAD HTTP/1.1\r\nHost: "
     "127.0.0.1:PORT\r\n\r\n",
     9000, 0, 414, "request line over 8192 bytes"},
    {"a field line over 8192 bytes",
     "GET http://127.0.0.1:PORT/ HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"
     "FIELD_PAD\r\n",
     9000, 1, 431, "a header field line over 8192 bytes"},
    {"a head over 65536 bytes",
     "GET http://127.0.0.1:PORT/ HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"
     "FIELD_PAD\r\n",
     8000, 9, 431, "request head over 65536 bytes"},
    {"101 fields",
     "GET http://127.0.0.1:PORT/ HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"
     "FIELD_PAD\r\n",
     1, 101, 431, "more than 100 header fields"},
    {"a chunk size that is not hex",
     "POST http://127.0.0.1:PORT/sink HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"
     "Transfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n",
     0, 0, 400, "chunked body: a chunk size that is not hex digits"},
    {"chunk data longer than its size",
     "POST http://127.0.0.1:PORT/sink HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"
     "Transfer-Encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n",
     0, 0, 400,
     "chunked body: chunk data longer than its chunk size (no CRLF after "
     "it)"},
    {"a bare LF in a chunked body",
     "POST http://127.0.0.1:PORT/sink HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"
     "Transfer-Encoding: chunked\r\n\r\n5\nhello\r\n0\r\n\r\n",
     0, 0, 400, "chunked body: a line ending in a bare LF (CRLF required)"},
    {"a transfer coding other than chunked",
     "POST http://127.0.0.1:PORT/sink HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"
     "Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
     0, 0, 501, "a transfer coding other than chunked"},
    {"Content-Length and Transfer-Encoding",
     "POST http://127.0.0.1:PORT/sink HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"
     "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
     0, 0, 400,
     "both Transfer-Encoding and Content-Length (request smuggling)"},
    {"two Content-Lengths",
     "POST http://127.0.0.1:PORT/sink HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n"
     "Content-Length: 5\r\nContent-Length: 6\r\n\r\nhello!",
     0, 0, 400, "Content-Length fields that disagree"},
    {"absolute-form naming another Host",
     "GET http://127.0.0.1:PORT/ HTTP/1.1\r\nHost: example.com\r\n\r\n", 0, 0,
     400, "Host names another authority than the request target"},
    {"CONNECT without a port",
     "CONNECT 127.0.0.1 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", 0, 0, 400,
     "request target: no port (host:port is required)"},
    {"CONNECT to a URL",
     "CONNECT http://127.0.0.1:PORT/ HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\n\r\n",
     0, 0, 400, "CONNECT needs an authority-form target (host:port)"},
    {"CONNECT to an unclosed IPv6 literal",
     "CONNECT [::1:443 HTTP/1.1\r\nHost: [::1:443\r\n\r\n", 0, 0, 400,
     "request target: an IPv6 literal without its closing ']'"},
    {"a bare LF after a field",
     "GET http://127.0.0.1:PORT/ HTTP/1.1\r\nHost: 127.0.0.1:PORT\nX-A: "
     "b\r\n\r\n",
     0, 0, 400, "a line ending in a bare LF (CRLF required)"},
    {"a bare LF after the request line",
     "GET http://127.0.0.1:PORT/ HTTP/1.1\nHost: 127.0.0.1:PORT\r\n\r\n", 0, 0,
     400, "a line ending in a bare LF (CRLF required)"},
    {"obsolete line folding",
     "GET http://127.0.0.1:PORT/ HTTP/1.1\r\nHost: 127.0.0.1:PORT\r\nX-A: "
     "b\r\n c\r\n\r\n",
     0, 0, 400,
     "obsolete line folding (a field line starting with whitespace)"},
};

/* The reason phrases of the statuses bad_tab expects (RFC 9110 §15). */
static const char *
phrase(int code)
{
    static const struct {
        int code;
        const char *text;
    } tab[] = {
        {400, "Bad Request"},
        {414, "URI Too Long"},
        {431, "Request Header Fields Too Large"},
        {501, "Not Implemented"},
        {505, "HTTP Version Not Supported"},
    };
    for (size_t i = 0; i < sizeof tab / sizeof *tab; i++)
        if (tab[i].code == code)
            return tab[i].text;
    fail_msg("no phrase for %d", code);
    return "";
}

/* The row's text with PORT, PATH_PAD and FIELD_PAD made. */
static char *
bad_text(const gwt_fx *f, size_t row)
{
    char port[16];
    snprintf(port, sizeof port, "%u", f->us.us_port);
    char *t = box_test_replace_all(bad_tab[row].text, "PORT", port);
    size_t pad = bad_tab[row].pad;
    char *pads = box_alloc(pad + 1);
    assert_non_null(pads);
    memset(pads, 'a', pad);
    pads[pad] = '\0';
    box_buf fields;
    box_buf_init(&fields, 1u << 20);
    for (int i = 0; i < bad_tab[row].nfields; i++)
        assert_int_equal(
            box_buf_printf(&fields, "%sx-pad-%d: %s", i ? "\r\n" : "", i, pads),
            BOX_OK);
    char *u = box_test_replace_all(t, "PATH_PAD", pads);
    char *fl = box_buf_take(&fields);
    char *v = box_test_replace_all(u, "FIELD_PAD", fl);
    box_free(fl);
    box_free(u);
    box_free(pads);
    box_free(t);
    return v;
}

static void
test_malformed_refused(void **state)
{
    gwt_fx *f = *state;
    gwt_start_gateway(f, NULL, NULL);
    for (size_t i = 0; i < sizeof bad_tab / sizeof *bad_tab; i++) {
        int before = atomic_load(&f->us.us_requests);
        char *req = bad_text(f, i);
        int fd = gwt_connect(f);
        gwt_send_all(fd, req, strlen(req));
        box_free(req);
        char *r = gwt_read_response(fd);
        // Answered, then closed: nothing more comes.
        char more;
        assert_int_equal(recv(fd, &more, 1, 0), 0);
        close(fd);
        char want[512];
        snprintf(want, sizeof want,
                 "HTTP/1.1 %d %s\r\ncontent-type: text/plain; "
                 "charset=utf-8\r\ncontent-length: %zu\r\nconnection: "
                 "close\r\n\r\n%s\n",
                 bad_tab[i].code, phrase(bad_tab[i].code),
                 strlen(bad_tab[i].reason) + 1, bad_tab[i].reason);
        if (strcmp(r, want) != 0)
            fail_msg("%s: expected\n%s\ngot\n%s", bad_tab[i].what, want, r);
        box_free(r);
        assert_int_equal(atomic_load(&f->us.us_requests), before);
        // A good request on a fresh connection still goes through.
        expect_hello(f);
    }
}

int
main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_many_keep_alive_clients, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_big_bodies_streamed, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_malformed_refused, setup,
                                        teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
