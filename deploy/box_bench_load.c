/* SPDX-License-Identifier: Apache-2.0 */
/* The load generator of `box bench gateway` (box_bench_load.h): blocking
 * client threads, one request at a time each, and their latencies. */
#include "box_bench_load.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "box_alloc.h"
#include "box_bench_box.h"

#define BL_BUF 16384          // an answer's head, and body bytes read ahead
#define BL_REQ_MAX 512        // one request as sent
#define BL_IO_TIMEOUT_S 10    // a peer silent this long fails the request
#define BL_LAT_MAX (1u << 22) // latencies kept per client
#define BL_FAIL_PAUSE_US 1000 // after a failure, so a dead peer is no spin
#define BL_STACK (256u << 10)

/* ORDER BL_PHASE: warm-up, counted, done. */
enum { BL_WARM, BL_MEASURE, BL_STOP };

/* What every client shares: the target, the phase, the requests. */
typedef struct bl_shared {
    const bl_target *sh_t;
    atomic_int sh_phase;
    char sh_get[BL_REQ_MAX];
    size_t sh_get_len;
    char sh_connect[BL_REQ_MAX]; // a TLS column through a proxy
    size_t sh_connect_len;
} bl_shared;

/* One client thread: its connection, read-ahead and figures. */
typedef struct bl_client {
    bl_shared *c_sh;
    pthread_t c_thread;
    bool c_started;
    int c_fd; // -1 when none is open
    SSL *c_ssl;
    size_t c_len; // bytes in c_buf not yet consumed
    uint64_t *c_lat;
    size_t c_n, c_cap;
    uint64_t c_ok, c_failed, c_connects;
    char c_err[BL_WHY_MAX]; // why the current request failed
    char c_why[BL_WHY_MAX]; // the first failure counted
    char c_buf[BL_BUF];
} bl_client;

/* The answer read: whole, or the connection closed before its first
 * byte (a kept-alive connection the server had closed), or failed. */
typedef enum { BL_A_OK, BL_A_EOF0, BL_A_FAIL } bl_answer_rc;

static bool
bl_err(bl_client *c, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->c_err, sizeof c->c_err, fmt, ap);
    va_end(ap);
    return false;
}

static void
bl_close(bl_client *c)
{
    SSL_free(c->c_ssl);
    c->c_ssl = NULL;
    if (c->c_fd >= 0)
        close(c->c_fd);
    c->c_fd = -1;
    c->c_len = 0;
    ERR_clear_error();
}

static bool
bl_connect(bl_client *c, unsigned port)
{
    struct sockaddr_in in = {.sin_family = AF_INET,
                             .sin_port = htons((uint16_t)port),
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    struct timeval tv = {.tv_sec = BL_IO_TIMEOUT_S};
    int one = 1;
    c->c_len = 0;
    c->c_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c->c_fd < 0)
        return bl_err(c, "socket: %s", strerror(errno));
    setsockopt(c->c_fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    setsockopt(c->c_fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(c->c_fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    if (connect(c->c_fd, (struct sockaddr *)&in, sizeof in) != 0) {
        bl_err(c, "connect to 127.0.0.1:%u: %s", port, strerror(errno));
        bl_close(c);
        return false;
    }
    return true;
}

static bool
bl_send(bl_client *c, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = c->c_ssl != NULL ? SSL_write(c->c_ssl, p, (int)n)
                                     : send(c->c_fd, p, n, MSG_NOSIGNAL);
        if (w <= 0)
            return bl_err(c, "send: %s",
                          c->c_ssl != NULL ? "TLS write failed"
                                           : strerror(errno));
        p += w;
        n -= (size_t)w;
    }
    return true;
}

/* Reads more into c_buf: bytes read, 0 at the end, -1 on error (c_err). */
static ssize_t
bl_fill(bl_client *c)
{
    if (c->c_len == sizeof c->c_buf) {
        bl_err(c, "an answer line or head over %d bytes", BL_BUF);
        return -1;
    }
    char *p = c->c_buf + c->c_len;
    size_t room = sizeof c->c_buf - c->c_len;
    ssize_t r;
    if (c->c_ssl != NULL) {
        int k = SSL_read(c->c_ssl, p, (int)room);
        int e = k > 0 ? SSL_ERROR_NONE : SSL_get_error(c->c_ssl, k);
        if (e == SSL_ERROR_ZERO_RETURN ||
            (e == SSL_ERROR_SSL && ERR_GET_REASON(ERR_peek_last_error()) ==
                                       SSL_R_UNEXPECTED_EOF_WHILE_READING))
            return 0; // an end without close_notify is an end here too
        if (e != SSL_ERROR_NONE) {
            bl_err(c, "TLS read failed (%d)", e);
            return -1;
        }
        r = k;
    } else {
        r = recv(c->c_fd, p, room, 0);
        if (r < 0) {
            bl_err(c, "recv: %s",
                   errno == EAGAIN ? "timed out" : strerror(errno));
            return -1;
        }
    }
    c->c_len += (size_t)r;
    return r;
}

static void
bl_drop(bl_client *c, size_t n)
{
    memmove(c->c_buf, c->c_buf + n, c->c_len - n);
    c->c_len -= n;
}

/* Reads until c_buf starts with a whole line; *len is its length before
 * the CRLF. */
static bool
bl_line(bl_client *c, size_t *len)
{
    for (;;) {
        const char *e = memmem(c->c_buf, c->c_len, "\r\n", 2);
        if (e != NULL) {
            *len = (size_t)(e - c->c_buf);
            return true;
        }
        ssize_t r = bl_fill(c);
        if (r <= 0)
            return r < 0 ? false : bl_err(c, "the answer ended in a line");
    }
}

/* Reads and drops n bytes of body. */
static bool
bl_skip(bl_client *c, size_t n)
{
    while (n > 0) {
        if (c->c_len == 0) {
            ssize_t r = bl_fill(c);
            if (r <= 0)
                return r < 0 ? false
                             : bl_err(c, "the answer ended inside its body");
        }
        size_t k = n < c->c_len ? n : c->c_len;
        bl_drop(c, k);
        n -= k;
    }
    return true;
}

/* A chunked body, its trailer too; *total is its length decoded. */
static bool
bl_chunked(bl_client *c, size_t *total)
{
    for (;;) {
        size_t ll = 0; // set by bl_line (gcc -O2 cannot see it)
        if (!bl_line(c, &ll))
            return false;
        char hex[17];
        size_t hl = ll < 16 ? ll : 16;
        memcpy(hex, c->c_buf, hl);
        hex[hl] = '\0';
        char *end;
        unsigned long size = strtoul(hex, &end, 16);
        if (end == hex)
            return bl_err(c, "a chunk size that is not hex");
        bl_drop(c, ll + 2);
        if (size == 0)
            break;
        *total += size;
        if (!bl_skip(c, size + 2))
            return false;
    }
    for (;;) { // the trailer, to its empty line
        size_t ll = 0;
        if (!bl_line(c, &ll))
            return false;
        bl_drop(c, ll + 2);
        if (ll == 0)
            return true;
    }
}

/* A field of the head [h, h + n) (after its status line) named name: its
 * value's start and length, or false. */
static bool
bl_field(const char *h, size_t n, const char *name, const char **v, size_t *vn)
{
    size_t nl = strlen(name);
    const char *end = h + n;
    for (const char *p = memmem(h, n, "\r\n", 2); p != NULL && p + 2 < end;) {
        const char *line = p + 2;
        const char *eol = memmem(line, (size_t)(end - line), "\r\n", 2);
        if (eol == NULL)
            eol = end;
        if ((size_t)(eol - line) > nl && line[nl] == ':' &&
            strncasecmp(line, name, nl) == 0) {
            *v = line + nl + 1;
            while (*v < eol && (**v == ' ' || **v == '\t'))
                (*v)++;
            *vn = (size_t)(eol - *v);
            return true;
        }
        p = eol < end ? eol : NULL;
    }
    return false;
}

static bool
bl_has(const char *v, size_t vn, const char *word)
{
    size_t wl = strlen(word);
    for (size_t i = 0; i + wl <= vn; i++)
        if (strncasecmp(v + i, word, wl) == 0)
            return true;
    return false;
}

/* A refusal (head of hl bytes in c_buf) into c_err: its status line and
 * its body's first line, the reason a proxy gives (as much as has come,
 * or one more read when a body is announced and none has). */
static void
bl_refused(bl_client *c, size_t hl)
{
    const char *v;
    size_t vn;
    if (c->c_len == hl &&
        bl_field(c->c_buf, hl - 2, "content-length", &v, &vn) &&
        strtoul(v, NULL, 10) > 0)
        (void)bl_fill(c);
    const char *sl_end = memchr(c->c_buf, '\r', hl);
    const char *body = c->c_buf + hl;
    size_t bn = c->c_len - hl;
    const char *nl = memchr(body, '\n', bn);
    if (nl != NULL)
        bn = (size_t)(nl - body);
    bl_err(c, "answered \"%.*s\": %.*s", (int)(sl_end - c->c_buf), c->c_buf,
           (int)(bn < 100 ? bn : 100), body);
}

/* The head at c_buf's start; *hl its length with the blank line. */
static bl_answer_rc
bl_head(bl_client *c, size_t *hl)
{
    const char *e;
    while ((e = memmem(c->c_buf, c->c_len, "\r\n\r\n", 4)) == NULL) {
        bool none = c->c_len == 0;
        ssize_t r = bl_fill(c);
        if (r == 0) {
            bl_err(c, none ? "the connection closed before an answer"
                           : "the answer ended in its head");
            return none ? BL_A_EOF0 : BL_A_FAIL;
        }
        if (r < 0)
            return BL_A_FAIL;
    }
    *hl = (size_t)(e - c->c_buf) + 4;
    if (strncmp(c->c_buf, "HTTP/1.", 7) != 0 ||
        strncmp(c->c_buf + 8, " 200 ", 5) != 0) {
        bl_refused(c, *hl);
        return BL_A_FAIL;
    }
    return BL_A_OK;
}

/* One answer: a 200 whose body has bt_body bytes, consumed whole (what
 * follows stays in c_buf). *keep: the connection may carry another. */
static bl_answer_rc
bl_answer(bl_client *c, bool *keep)
{
    size_t hl, body = 0, vn;
    const char *v;
    bl_answer_rc rc = bl_head(c, &hl);
    if (rc != BL_A_OK)
        return rc;
    bool http10 = c->c_buf[7] == '0';
    bool has_conn = bl_field(c->c_buf, hl - 2, "connection", &v, &vn);
    *keep = http10 ? has_conn && bl_has(v, vn, "keep-alive")
                   : !(has_conn && bl_has(v, vn, "close"));
    if (bl_field(c->c_buf, hl - 2, "transfer-encoding", &v, &vn) &&
        bl_has(v, vn, "chunked")) {
        bl_drop(c, hl);
        if (!bl_chunked(c, &body))
            return BL_A_FAIL;
    } else if (bl_field(c->c_buf, hl - 2, "content-length", &v, &vn)) {
        body = strtoul(v, NULL, 10);
        bl_drop(c, hl);
        if (!bl_skip(c, body))
            return BL_A_FAIL;
    } else { // to the end of the connection
        bl_drop(c, hl);
        *keep = false;
        ssize_t r;
        body = c->c_len;
        while ((r = bl_fill(c)) > 0)
            body += (size_t)r;
        c->c_len = 0;
        if (r < 0)
            return BL_A_FAIL;
    }
    if (body != c->c_sh->sh_t->bt_body) {
        bl_err(c, "a body of %zu bytes, not %zu", body, c->c_sh->sh_t->bt_body);
        return BL_A_FAIL;
    }
    return BL_A_OK;
}

/* A plain request on the kept-alive connection (opened when there is
 * none, and once more when the server had closed it). */
static bool
bl_plain_once(bl_client *c, uint64_t *connects)
{
    const bl_shared *sh = c->c_sh;
    for (int attempt = 0; attempt < 2; attempt++) {
        bool reused = c->c_fd >= 0;
        if (!reused) {
            if (!bl_connect(c, sh->sh_t->bt_port))
                return false;
            (*connects)++;
        }
        bool keep = false;
        bl_answer_rc rc = bl_send(c, sh->sh_get, sh->sh_get_len)
                              ? bl_answer(c, &keep)
                              : BL_A_EOF0;
        if (rc == BL_A_OK) {
            if (!keep)
                bl_close(c);
            return true;
        }
        bl_close(c);
        if (rc == BL_A_FAIL || !reused)
            return false;
    }
    return false;
}

/* CONNECT through the proxy: its 200, and nothing after it. */
static bool
bl_tunnel(bl_client *c)
{
    const bl_shared *sh = c->c_sh;
    size_t hl;
    if (!bl_send(c, sh->sh_connect, sh->sh_connect_len))
        return false;
    if (bl_head(c, &hl) != BL_A_OK)
        return false;
    if (c->c_len != hl)
        return bl_err(c, "bytes after the CONNECT answer");
    c->c_len = 0;
    return true;
}

/* A TLS request on a new connection: connect, CONNECT when through a
 * proxy, a full handshake verified for 127.0.0.1, GET, answer. */
static bool
bl_tls_once(bl_client *c, uint64_t *connects)
{
    const bl_target *t = c->c_sh->sh_t;
    bool ok = false;
    bool keep;
    if (!bl_connect(c, t->bt_port))
        return false;
    (*connects)++;
    if (t->bt_proxy && !bl_tunnel(c))
        goto out;
    if ((c->c_ssl = SSL_new(t->bt_tls)) == NULL ||
        SSL_set_fd(c->c_ssl, c->c_fd) != 1 ||
        X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(c->c_ssl), "127.0.0.1") !=
            1) {
        bl_err(c, "a TLS client: out of memory");
        goto out;
    }
    if (SSL_connect(c->c_ssl) != 1) {
        char e[120];
        ERR_error_string_n(ERR_peek_last_error(), e, sizeof e);
        bl_err(c, "TLS handshake: %s (verify: %s)", e,
               X509_verify_cert_error_string(SSL_get_verify_result(c->c_ssl)));
        goto out;
    }
    ok = bl_send(c, c->c_sh->sh_get, c->c_sh->sh_get_len) &&
         bl_answer(c, &keep) == BL_A_OK;
    if (ok)
        SSL_shutdown(c->c_ssl); // our close_notify; no wait for theirs
out:
    bl_close(c);
    return ok;
}

static void
bl_keep(bl_client *c, uint64_t ns)
{
    if (c->c_n == c->c_cap) {
        size_t cap = c->c_cap ? c->c_cap * 2 : 4096;
        uint64_t *p =
            cap <= BL_LAT_MAX ? box_realloc(c->c_lat, cap * sizeof *p) : NULL;
        if (p == NULL)
            return; // counted, not kept
        c->c_lat = p;
        c->c_cap = cap;
    }
    c->c_lat[c->c_n++] = ns;
}

static void *
bl_client_main(void *arg)
{
    bl_client *c = arg;
    bl_shared *sh = c->c_sh;
    bool tls = sh->sh_t->bt_tls != NULL;
    while (atomic_load(&sh->sh_phase) != BL_STOP) {
        uint64_t connects = 0;
        c->c_err[0] = '\0';
        uint64_t t0 = bb_now_ns();
        bool ok = tls ? bl_tls_once(c, &connects) : bl_plain_once(c, &connects);
        uint64_t ns = bb_now_ns() - t0;
        // Counted when it ends inside the window (a rate over it).
        bool counted = atomic_load(&sh->sh_phase) == BL_MEASURE;
        if (counted) {
            c->c_connects += connects;
            if (ok) {
                c->c_ok++;
                bl_keep(c, ns);
            } else {
                c->c_failed++;
                if (c->c_why[0] == '\0')
                    memcpy(c->c_why, c->c_err, sizeof c->c_why);
            }
        }
        if (!ok)
            usleep(BL_FAIL_PAUSE_US);
    }
    bl_close(c);
    return NULL;
}

static void
bl_sleep(double s)
{
    struct timespec ts = {.tv_sec = (time_t)s,
                          .tv_nsec = (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* The requests every client sends, built once. */
static void
bl_requests(bl_shared *sh)
{
    const bl_target *t = sh->sh_t;
    char auth[BL_REQ_MAX / 2] = "";
    if (t->bt_auth != NULL)
        snprintf(auth, sizeof auth, "Proxy-Authorization: %s\r\n", t->bt_auth);
    int n;
    if (t->bt_tls != NULL)
        n = snprintf(sh->sh_get, sizeof sh->sh_get,
                     "GET /x HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                     "Connection: close\r\n\r\n",
                     t->bt_origin);
    else if (t->bt_proxy)
        n = snprintf(sh->sh_get, sizeof sh->sh_get,
                     "GET http://127.0.0.1:%u/x HTTP/1.1\r\n"
                     "Host: 127.0.0.1:%u\r\n%s\r\n",
                     t->bt_origin, t->bt_origin, auth);
    else
        n = snprintf(sh->sh_get, sizeof sh->sh_get,
                     "GET /x HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n\r\n",
                     t->bt_origin);
    sh->sh_get_len = (size_t)n;
    n = snprintf(sh->sh_connect, sizeof sh->sh_connect,
                 "CONNECT 127.0.0.1:%u HTTP/1.1\r\nHost: 127.0.0.1:%u\r\n"
                 "%s\r\n",
                 t->bt_origin, t->bt_origin, auth);
    sh->sh_connect_len = (size_t)n;
}

/* Every latency kept, sorted, into r's percentiles. */
static bool
bl_figures(bl_client *cs, unsigned n, bl_result *r)
{
    size_t total = 0, k = 0;
    for (unsigned i = 0; i < n; i++)
        total += cs[i].c_n;
    if (total == 0)
        return true;
    uint64_t *all = box_alloc(total * sizeof *all);
    if (all == NULL) {
        snprintf(r->lr_why, sizeof r->lr_why, "out of memory");
        return false;
    }
    for (unsigned i = 0; i < n; i++) {
        if (cs[i].c_n == 0)
            continue; // c_lat may be NULL
        memcpy(all + k, cs[i].c_lat, cs[i].c_n * sizeof *all);
        k += cs[i].c_n;
    }
    bb_sort_ns(all, total);
    r->lr_p50_us = (double)all[total * 50 / 100] / 1e3;
    r->lr_p90_us = (double)all[total * 90 / 100] / 1e3;
    r->lr_p99_us = (double)all[total * 99 / 100] / 1e3;
    box_free(all);
    return true;
}

bool
bl_run(const bl_target *t, const bl_opts *o, bl_result *r)
{
    memset(r, 0, sizeof *r);
    bl_shared sh = {.sh_t = t};
    atomic_init(&sh.sh_phase, BL_WARM);
    bl_requests(&sh);
    bool ok = false;
    unsigned n = o->lo_clients;
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, BL_STACK);
    bl_client *cs =
        n >= 1 && n <= BL_CLIENTS_MAX ? box_calloc(n, sizeof *cs) : NULL;
    if (cs == NULL) {
        snprintf(r->lr_why, sizeof r->lr_why, "out of memory");
        goto out;
    }
    for (unsigned i = 0; i < n; i++) {
        cs[i].c_sh = &sh;
        cs[i].c_fd = -1;
        int rv = pthread_create(&cs[i].c_thread, &attr, bl_client_main, &cs[i]);
        if (rv != 0) {
            snprintf(r->lr_why, sizeof r->lr_why, "a client thread: %s",
                     strerror(rv));
            atomic_store(&sh.sh_phase, BL_STOP);
            goto out;
        }
        cs[i].c_started = true;
    }
    bl_sleep(o->lo_warmup);
    uint64_t t0 = bb_now_ns();
    atomic_store(&sh.sh_phase, BL_MEASURE);
    bl_sleep(o->lo_seconds);
    atomic_store(&sh.sh_phase, BL_STOP);
    r->lr_seconds = (double)(bb_now_ns() - t0) / 1e9;
    for (unsigned i = 0; i < n; i++) {
        pthread_join(cs[i].c_thread, NULL);
        cs[i].c_started = false;
        r->lr_ok += cs[i].c_ok;
        r->lr_failed += cs[i].c_failed;
        r->lr_connects += cs[i].c_connects;
        if (r->lr_why[0] == '\0')
            memcpy(r->lr_why, cs[i].c_why, sizeof r->lr_why);
    }
    r->lr_rps = (double)r->lr_ok / r->lr_seconds;
    if (!bl_figures(cs, n, r))
        goto out;
    ok = r->lr_ok > 0;
    if (!ok && r->lr_why[0] == '\0')
        snprintf(r->lr_why, sizeof r->lr_why, "no answer while measuring");
out:
    for (unsigned i = 0; cs != NULL && i < n; i++) {
        if (cs[i].c_started)
            pthread_join(cs[i].c_thread, NULL);
        box_free(cs[i].c_lat);
    }
    box_free(cs);
    pthread_attr_destroy(&attr);
    return ok;
}
