/* SPDX-License-Identifier: Apache-2.0 */
/* The origin `box bench gateway` measures against (box_bench_origin.h):
 * epoll loops over non-blocking connections, plain or TLS. */
#include "box_bench_origin.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "box_alloc.h"

#define BO_EVENTS 64
#define BO_OUT_MAX 4096 // answers queued on one connection (pipelined heads)
#define BO_BACKLOG 1024

/*
 * One client connection, owned by the loop that accepted it. Input is
 * consumed head by head; answers queue in bc_out, and nothing more is
 * read while some of it is unwritten, so a TLS write that would block is
 * retried with the same arguments, as OpenSSL wants.
 */
typedef struct bo_conn {
    int bc_fd;
    SSL *bc_ssl;     // NULL for plain HTTP
    bool bc_ready;   // the TLS handshake is done (plain: always)
    bool bc_close;   // close once bc_out is written
    bool bc_wantout; // the last call would block until writable
    bool bc_armed;   // EPOLLOUT is in the interest set
    size_t bc_in_len;
    size_t bc_out_len, bc_out_off;
    struct bo_conn *bc_prev, *bc_next; // the loop's connections
    char bc_in[BO_HEAD_MAX];
    char bc_out[BO_OUT_MAX];
} bo_conn;

typedef struct bo_loop {
    bo_origin *bl_o;
    int bl_ep;
    bool bl_started;
    pthread_t bl_thread;
    bo_conn *bl_conns; // every open connection, freed by bo_stop
} bo_loop;

struct bo_origin {
    SSL_CTX *bo_tls;
    int bo_fd;     // the listening socket
    int bo_stopfd; // an eventfd, readable once bo_stop runs
    unsigned bo_port;
    unsigned bo_n;
    atomic_uint_fast64_t bo_requests;
    // The answer, with `Connection: close` ([1]) or without ([0]).
    char bo_answer[2][192];
    size_t bo_answer_len[2];
    bo_loop bo_loops[BO_THREADS_MAX];
};

static void
bo_close(bo_loop *l, bo_conn *c)
{
    if (c->bc_prev != NULL)
        c->bc_prev->bc_next = c->bc_next;
    else
        l->bl_conns = c->bc_next;
    if (c->bc_next != NULL)
        c->bc_next->bc_prev = c->bc_prev;
    if (c->bc_ready && c->bc_ssl != NULL)
        SSL_shutdown(c->bc_ssl); // our close_notify, not waiting for theirs
    SSL_free(c->bc_ssl);
    ERR_clear_error();
    close(c->bc_fd); // leaves the epoll set with it
    box_free(c);
}

/* Bytes read (> 0), 0 when it would block, -1 at the end or on error. */
static ssize_t
bo_read(bo_conn *c, char *p, size_t n)
{
    if (c->bc_ssl == NULL) {
        ssize_t r = recv(c->bc_fd, p, n, 0);
        if (r > 0)
            return r;
        return r < 0 && (errno == EAGAIN || errno == EINTR) ? 0 : -1;
    }
    int r = SSL_read(c->bc_ssl, p, (int)n);
    if (r > 0)
        return r;
    switch (SSL_get_error(c->bc_ssl, r)) {
    case SSL_ERROR_WANT_WRITE:
        c->bc_wantout = true;
        return 0;
    case SSL_ERROR_WANT_READ:
        return 0;
    default:
        ERR_clear_error();
        return -1;
    }
}

/* 1 when bc_out is all written, 0 when it would block, -1 on error. */
static int
bo_flush(bo_conn *c)
{
    while (c->bc_out_off < c->bc_out_len) {
        const char *p = c->bc_out + c->bc_out_off;
        size_t n = c->bc_out_len - c->bc_out_off;
        if (c->bc_ssl == NULL) {
            ssize_t w = send(c->bc_fd, p, n, MSG_NOSIGNAL);
            if (w < 0 && (errno == EAGAIN || errno == EINTR)) {
                c->bc_wantout = errno == EAGAIN;
                return 0;
            }
            if (w <= 0)
                return -1;
            c->bc_out_off += (size_t)w;
            continue;
        }
        int w = SSL_write(c->bc_ssl, p, (int)n);
        if (w > 0) {
            c->bc_out_off += (size_t)w;
            continue;
        }
        switch (SSL_get_error(c->bc_ssl, w)) {
        case SSL_ERROR_WANT_WRITE:
            c->bc_wantout = true;
            return 0;
        case SSL_ERROR_WANT_READ:
            return 0;
        default:
            ERR_clear_error();
            return -1;
        }
    }
    c->bc_out_off = c->bc_out_len = 0;
    return 1;
}

/* Whether the head [p, p + n) has a Connection field naming close. */
static bool
bo_head_closes(const char *p, size_t n)
{
    static const char field[] = "\r\nconnection:";
    const size_t fl = sizeof field - 1;
    for (size_t i = 0; i + fl <= n; i++) {
        if (strncasecmp(p + i, field, fl) != 0)
            continue;
        for (size_t j = i + fl; j + 5 <= n && p[j] != '\r'; j++)
            if (strncasecmp(p + j, "close", 5) == 0)
                return true;
    }
    return false;
}

/* Answers every whole head in bc_in while bc_out has room; drops them. */
static void
bo_answer(bo_origin *o, bo_conn *c)
{
    size_t used = 0;
    while (!c->bc_close) {
        const char *p = c->bc_in + used;
        const char *end = memmem(p, c->bc_in_len - used, "\r\n\r\n", 4);
        if (end == NULL)
            break;
        size_t hl = (size_t)(end - p) + 4;
        bool closes = bo_head_closes(p, hl);
        size_t n = o->bo_answer_len[closes];
        if (c->bc_out_len + n > sizeof c->bc_out)
            break; // the rest once this is written
        memcpy(c->bc_out + c->bc_out_len, o->bo_answer[closes], n);
        c->bc_out_len += n;
        c->bc_close = closes;
        used += hl;
        atomic_fetch_add_explicit(&o->bo_requests, 1, memory_order_relaxed);
    }
    memmove(c->bc_in, c->bc_in + used, c->bc_in_len - used);
    c->bc_in_len -= used;
}

/* Moves one connection as far as it goes without blocking: the
 * handshake, then write what is queued, read, answer, until something
 * would block. False when the connection is done (and closed). */
static bool
bo_serve(bo_loop *l, bo_conn *c)
{
    c->bc_wantout = false;
    if (!c->bc_ready) {
        int r = SSL_accept(c->bc_ssl);
        if (r != 1) {
            int e = SSL_get_error(c->bc_ssl, r);
            c->bc_wantout = e == SSL_ERROR_WANT_WRITE;
            if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE)
                return true;
            ERR_clear_error();
            goto done;
        }
        c->bc_ready = true;
    }
    for (;;) {
        int f = bo_flush(c);
        if (f < 0)
            goto done;
        if (f == 0)
            return true;
        if (c->bc_close)
            goto done;
        bo_answer(l->bl_o, c); // heads already read (pipelined) first
        if (c->bc_out_len > 0)
            continue;
        if (c->bc_in_len == sizeof c->bc_in)
            goto done; // a head past BO_HEAD_MAX
        ssize_t r =
            bo_read(c, c->bc_in + c->bc_in_len, sizeof c->bc_in - c->bc_in_len);
        if (r < 0)
            goto done;
        if (r == 0)
            return true;
        c->bc_in_len += (size_t)r;
    }
done:
    bo_close(l, c);
    return false;
}

static void
bo_accept(bo_loop *l)
{
    bo_origin *o = l->bl_o;
    for (;;) {
        int fd = accept4(o->bo_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0)
            return; // EAGAIN: another loop took it, or none left
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        bo_conn *c = box_calloc(1, sizeof *c);
        if (c == NULL) {
            close(fd);
            continue;
        }
        c->bc_fd = fd;
        c->bc_ready = o->bo_tls == NULL;
        if (o->bo_tls != NULL && ((c->bc_ssl = SSL_new(o->bo_tls)) == NULL ||
                                  SSL_set_fd(c->bc_ssl, fd) != 1)) {
            ERR_clear_error();
            SSL_free(c->bc_ssl);
            close(fd);
            box_free(c);
            continue;
        }
        struct epoll_event ev = {.events = EPOLLIN, .data.ptr = c};
        if (epoll_ctl(l->bl_ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
            SSL_free(c->bc_ssl);
            close(fd);
            box_free(c);
            continue;
        }
        c->bc_next = l->bl_conns;
        if (l->bl_conns != NULL)
            l->bl_conns->bc_prev = c;
        l->bl_conns = c;
    }
}

static void *
bo_loop_main(void *arg)
{
    bo_loop *l = arg;
    bo_origin *o = l->bl_o;
    struct epoll_event ev[BO_EVENTS];
    for (;;) {
        int n = epoll_wait(l->bl_ep, ev, BO_EVENTS, -1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return NULL;
        for (int i = 0; i < n; i++) {
            if (ev[i].data.ptr == &o->bo_stopfd)
                return NULL;
            if (ev[i].data.ptr == &o->bo_fd) {
                bo_accept(l);
                continue;
            }
            bo_conn *c = ev[i].data.ptr;
            if (!bo_serve(l, c) || c->bc_wantout == c->bc_armed)
                continue;
            struct epoll_event mod = {.events = EPOLLIN |
                                                (c->bc_wantout ? EPOLLOUT : 0u),
                                      .data.ptr = c};
            if (epoll_ctl(l->bl_ep, EPOLL_CTL_MOD, c->bc_fd, &mod) == 0)
                c->bc_armed = c->bc_wantout;
        }
    }
}

/* The listening socket on 127.0.0.1, a free port; false with err. */
static bool
bo_listen(bo_origin *o, char *err, size_t n)
{
    struct sockaddr_in in = {.sin_family = AF_INET,
                             .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof in;
    o->bo_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (o->bo_fd < 0 || bind(o->bo_fd, (struct sockaddr *)&in, sizeof in) ||
        listen(o->bo_fd, BO_BACKLOG) ||
        getsockname(o->bo_fd, (struct sockaddr *)&in, &len)) {
        snprintf(err, n, "origin: cannot listen on 127.0.0.1: %s",
                 strerror(errno));
        return false;
    }
    o->bo_port = ntohs(in.sin_port);
    return true;
}

bool
bo_start(SSL_CTX *tls, unsigned nthreads, bo_origin **out, char *err, size_t n)
{
    *out = NULL;
    if (nthreads < 1 || nthreads > BO_THREADS_MAX) {
        snprintf(err, n, "origin: 1 to %d threads", BO_THREADS_MAX);
        return false;
    }
    bo_origin *o = box_calloc(1, sizeof *o);
    if (o == NULL) {
        snprintf(err, n, "out of memory");
        return false;
    }
    o->bo_fd = o->bo_stopfd = -1;
    for (unsigned i = 0; i < BO_THREADS_MAX; i++)
        o->bo_loops[i].bl_ep = -1;
    char body[BO_BODY_LEN + 1];
    memset(body, 'o', BO_BODY_LEN - 1);
    body[BO_BODY_LEN - 1] = '\n';
    body[BO_BODY_LEN] = '\0';
    for (int cl = 0; cl < 2; cl++)
        o->bo_answer_len[cl] = (size_t)snprintf(
            o->bo_answer[cl], sizeof o->bo_answer[cl],
            "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
            "Content-Length: %d\r\n%s\r\n%s",
            BO_BODY_LEN, cl ? "Connection: close\r\n" : "", body);
    if (tls != NULL && SSL_CTX_up_ref(tls) == 1)
        o->bo_tls = tls;
    if ((tls != NULL && o->bo_tls == NULL) || !bo_listen(o, err, n))
        goto fail;
    if ((o->bo_stopfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) < 0) {
        snprintf(err, n, "origin: eventfd: %s", strerror(errno));
        goto fail;
    }
    for (unsigned i = 0; i < nthreads; i++) {
        bo_loop *l = &o->bo_loops[i];
        l->bl_o = o;
        struct epoll_event lev = {.events = EPOLLIN | EPOLLEXCLUSIVE,
                                  .data.ptr = &o->bo_fd};
        struct epoll_event sev = {.events = EPOLLIN, .data.ptr = &o->bo_stopfd};
        if ((l->bl_ep = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
            epoll_ctl(l->bl_ep, EPOLL_CTL_ADD, o->bo_fd, &lev) != 0 ||
            epoll_ctl(l->bl_ep, EPOLL_CTL_ADD, o->bo_stopfd, &sev) != 0) {
            snprintf(err, n, "origin: epoll: %s", strerror(errno));
            goto fail;
        }
        int rv = pthread_create(&l->bl_thread, NULL, bo_loop_main, l);
        if (rv != 0) {
            snprintf(err, n, "origin: a thread: %s", strerror(rv));
            goto fail;
        }
        l->bl_started = true;
        o->bo_n++;
    }
    *out = o;
    return true;
fail:
    bo_stop(o);
    return false;
}

unsigned
bo_port(const bo_origin *o)
{
    return o->bo_port;
}

uint64_t
bo_requests(const bo_origin *o)
{
    return atomic_load_explicit(&o->bo_requests, memory_order_relaxed);
}

void
bo_stop(bo_origin *o)
{
    if (o == NULL)
        return;
    uint64_t one = 1;
    if (o->bo_stopfd >= 0 && write(o->bo_stopfd, &one, sizeof one) < 0)
        perror("box bench: origin stop");
    for (unsigned i = 0; i < BO_THREADS_MAX; i++) {
        bo_loop *l = &o->bo_loops[i];
        if (l->bl_started)
            pthread_join(l->bl_thread, NULL);
        while (l->bl_conns != NULL)
            bo_close(l, l->bl_conns);
        if (l->bl_ep >= 0)
            close(l->bl_ep);
    }
    if (o->bo_fd >= 0)
        close(o->bo_fd);
    if (o->bo_stopfd >= 0)
        close(o->bo_stopfd);
    SSL_CTX_free(o->bo_tls);
    box_free(o);
}
