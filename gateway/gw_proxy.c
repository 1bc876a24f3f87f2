/* SPDX-License-Identifier: Apache-2.0 */
/* The proxy's event loops: listeners, connections, the job pool, libcurl. */
#include "gw_proxy_int.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_log.h"
#include "box_svc.h"

#define GW_SVC "box-gateway"
#define GW_EVENTS 64
#define GW_SWEEP_MS 1000 // how often deadlines are looked at
#define GW_ACCEPT_BATCH 4

// Each loop takes back its jobs as a sink of the one decider.
_Static_assert(GW_LOOPS_MAX <= GW_DECIDER_SINKS_MAX,
               "a loop without a decider sink of its own");

/* The proxy: its loops and what they share. */
struct gw_proxy {
    gw_loop *p_loops[GW_LOOPS_MAX];
    unsigned p_nloops;
    gw_decider *p_decider;     // one job pool for every loop
    int p_listen[2];           // the listening sockets, or -1
    _Atomic unsigned p_nconns; // connections on every loop
};

uint64_t
gw_now_ms(void)
{
    return box_svc_now_ms();
}

static void
px_add(gw_loop *px, gw_tag *t, uint32_t events)
{
    struct epoll_event ev = {.events = events, .data.ptr = t};
    if (epoll_ctl(px->px_epfd, EPOLL_CTL_ADD, t->t_fd, &ev) != 0)
        box_log(BOX_LOG_ERROR, GW_SVC, "epoll add: %s", strerror(errno));
}

void
gw_px_watch(gw_loop *px, gw_conn *c, uint32_t events)
{
    if (events == c->c_events)
        return;
    struct epoll_event ev = {.events = events, .data.ptr = &c->c_tag};
    int op = c->c_events == 0 ? EPOLL_CTL_ADD
             : events == 0    ? EPOLL_CTL_DEL
                              : EPOLL_CTL_MOD;
    if (epoll_ctl(px->px_epfd, op, c->c_tag.t_fd, &ev) == 0)
        c->c_events = events;
}

void
gw_px_unlink(gw_loop *px, gw_conn *c)
{
    if (c->c_prev != NULL)
        c->c_prev->c_next = c->c_next;
    else if (px->px_conns == c)
        px->px_conns = c->c_next;
    if (c->c_next != NULL)
        c->c_next->c_prev = c->c_prev;
    c->c_prev = c->c_next = NULL;
    atomic_fetch_sub(px->px_nconns, 1);
}

/* Past the limit a connection is told so at once (a best-effort write: a
 * new socket's buffer takes it) and closed. */
static void
px_refuse_full(int fd)
{
    static const char full[] =
        "HTTP/1.1 503 Service Unavailable\r\ncontent-type: text/plain; "
        "charset=utf-8\r\ncontent-length: 32\r\nconnection: close\r\n\r\n"
        "the gateway has no room: retry\n";
    ssize_t w = send(fd, full, sizeof full - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    (void)w;
    close(fd);
}

/* A few connections per wakeup: the listening socket stays readable
 * while more wait, and the next wakeup may be another loop's, so a burst
 * is spread over the loops rather than taken whole by the first awake. */
static void
px_accept(gw_loop *px, gw_tag *l)
{
    for (int i = 0; i < GW_ACCEPT_BATCH; i++) {
        int fd = accept4(l->t_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
                box_log(BOX_LOG_WARN, GW_SVC, "accept: %s", strerror(errno));
            return;
        }
        if (atomic_fetch_add(px->px_nconns, 1) >= px->px_conns_max) {
            atomic_fetch_sub(px->px_nconns, 1);
            px_refuse_full(fd);
            continue;
        }
        // An answer goes out in pieces (a head, body chunks, TLS records):
        // Nagle would hold each small one until the last was acknowledged.
        // (On the Unix socket it fails, harmlessly.)
        int one = 1;
        (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        gw_conn *c = gw_conn_new(px, fd, l == &px->px_listen[0] &&
                                             px->px_proxy_auth != NULL);
        if (c == NULL) {
            atomic_fetch_sub(px->px_nconns, 1);
            px_refuse_full(fd);
            continue;
        }
        c->c_next = px->px_conns;
        if (px->px_conns != NULL)
            px->px_conns->c_prev = c;
        px->px_conns = c;
        gw_conn_on_io(c, 0); // sets its events
    }
}

/* A libcurl socket's place in the epoll set. */
typedef struct gw_curl_tag {
    gw_tag ct_tag; // GW_TAG_CURL, GW_TAG_DEAD once libcurl drops it
    struct gw_curl_tag *ct_next; // on px_dead_tags
} gw_curl_tag;

void
gw_px_bury(gw_loop *px, gw_conn *c)
{
    c->c_next = px->px_dead_conns;
    px->px_dead_conns = c;
}

/* Frees what the batch closed. */
static void
px_bury_all(gw_loop *px)
{
    while (px->px_dead_conns != NULL) {
        gw_conn *c = px->px_dead_conns;
        px->px_dead_conns = c->c_next;
        box_free(c);
    }
    while (px->px_dead_tags != NULL) {
        gw_curl_tag *t = px->px_dead_tags;
        px->px_dead_tags = t->ct_next;
        box_free(t);
    }
}

/* libcurl's sockets join the loop's epoll set (CURLMOPT_SOCKETFUNCTION).
 * libcurl may drop one socket while it acts on another (a connection
 * ends, its easy handle goes): the tag lives on, dead, to the batch's
 * end, as an event for it may still be waiting in the batch. */
static int
px_curl_socket(CURL *e, curl_socket_t s, int what, void *userp, void *sockp)
{
    (void)e;
    gw_loop *px = userp;
    gw_curl_tag *ct = sockp;
    if (what == CURL_POLL_REMOVE) {
        if (ct != NULL) {
            epoll_ctl(px->px_epfd, EPOLL_CTL_DEL, s, NULL);
            ct->ct_tag.t_kind = GW_TAG_DEAD;
            ct->ct_next = px->px_dead_tags;
            px->px_dead_tags = ct;
            curl_multi_assign(px->px_multi, s, NULL);
        }
        return 0;
    }
    gw_tag *t = ct != NULL ? &ct->ct_tag : NULL;
    uint32_t ev = (what & CURL_POLL_IN ? EPOLLIN : 0) |
                  (what & CURL_POLL_OUT ? EPOLLOUT : 0);
    struct epoll_event e2 = {.events = ev};
    if (t == NULL) {
        if ((ct = box_calloc(1, sizeof *ct)) == NULL)
            return -1;
        t = &ct->ct_tag;
        t->t_kind = GW_TAG_CURL;
        t->t_fd = s;
        curl_multi_assign(px->px_multi, s, ct);
        e2.data.ptr = t;
        return epoll_ctl(px->px_epfd, EPOLL_CTL_ADD, s, &e2) == 0 ? 0 : -1;
    }
    e2.data.ptr = t;
    return epoll_ctl(px->px_epfd, EPOLL_CTL_MOD, s, &e2) == 0 ? 0 : -1;
}

static int
px_curl_timer(CURLM *m, long ms, void *userp)
{
    (void)m;
    gw_loop *px = userp;
    px->px_curl_deadline = ms < 0 ? 0 : gw_now_ms() + (uint64_t)ms;
    return 0;
}

/* Every exchange libcurl finished goes back to its connection. */
static void
px_curl_finished(gw_loop *px)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(px->px_multi, &left)) != NULL) {
        if (m->msg != CURLMSG_DONE)
            continue;
        gw_conn *c = NULL;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&c);
        CURLcode rc = m->data.result;
        if (c != NULL)
            gw_conn_on_curl_done(c, rc);
    }
}

static void
px_curl_action(gw_loop *px, curl_socket_t s, int mask)
{
    int running;
    curl_multi_socket_action(px->px_multi, s, mask, &running);
    px_curl_finished(px);
}

static void
px_jobs_done(gw_loop *px)
{
    gw_job *j = gw_decider_take(px->px_decider, px->px_sink);
    while (j != NULL) {
        gw_job *next = j->j_next;
        gw_conn_on_job(j->j_owner, j);
        j = next;
    }
}

static void
px_sweep(gw_loop *px, uint64_t now)
{
    gw_conn *c = px->px_conns;
    while (c != NULL) {
        gw_conn *next = c->c_next; // the call may free c
        if (c->c_deadline != 0 && now >= c->c_deadline)
            gw_conn_on_timeout(c);
        c = next;
    }
}

static void *
px_loop(void *arg)
{
    gw_loop *px = arg;
    struct epoll_event evs[GW_EVENTS];
    uint64_t next_sweep = gw_now_ms() + GW_SWEEP_MS;
    for (;;) {
        uint64_t now = gw_now_ms();
        uint64_t until = next_sweep;
        if (px->px_curl_deadline != 0 && px->px_curl_deadline < until)
            until = px->px_curl_deadline;
        int wait = until > now ? (int)(until - now) : 0;
        int n = epoll_wait(px->px_epfd, evs, GW_EVENTS, wait);
        if (n < 0 && errno != EINTR) {
            box_log(BOX_LOG_ERROR, GW_SVC, "epoll_wait: %s", strerror(errno));
            break;
        }
        bool stop = false;
        for (int i = 0; i < n; i++) {
            gw_tag *t = evs[i].data.ptr;
            uint32_t e = evs[i].events;
            switch (t->t_kind) {
            case GW_TAG_LISTEN:
                px_accept(px, t);
                break;
            case GW_TAG_DECIDER:
                px_jobs_done(px);
                break;
            case GW_TAG_CONN:
                gw_conn_on_io((gw_conn *)t, e);
                break;
            case GW_TAG_CURL:
                px_curl_action(
                    px, t->t_fd,
                    (e & EPOLLIN ? CURL_CSELECT_IN : 0) |
                        (e & EPOLLOUT ? CURL_CSELECT_OUT : 0) |
                        (e & (EPOLLERR | EPOLLHUP) ? CURL_CSELECT_ERR : 0));
                break;
            case GW_TAG_WAKE:
                stop = true;
                break;
            case GW_TAG_DEAD: // closed earlier in this batch
                break;
            }
        }
        if (stop)
            break;
        now = gw_now_ms();
        if (px->px_curl_deadline != 0 && now >= px->px_curl_deadline) {
            px->px_curl_deadline = 0;
            px_curl_action(px, CURL_SOCKET_TIMEOUT, 0);
        }
        if (now >= next_sweep) {
            px_sweep(px, now);
            next_sweep = now + GW_SWEEP_MS;
        }
        px_bury_all(px);
    }
    px_bury_all(px);
    return NULL;
}

static void loop_join(gw_loop *px);
static void loop_free(gw_loop *px);

/* One loop on the proxy's listening sockets (each loop's epoll set holds
 * them exclusively: a new connection wakes one loop, not all). */
static box_err
loop_start(const gw_proxy_opts *o, gw_proxy *p, unsigned sink, gw_loop **out,
           char **err)
{
    *out = NULL;
    gw_loop *px = box_calloc(1, sizeof *px);
    if (px == NULL)
        return BOX_ENOMEM;
    px->px_epfd = -1;
    px->px_wake.t_fd = -1;
    px->px_listen[0].t_fd = p->p_listen[0];
    px->px_listen[1].t_fd = p->p_listen[1];
    px->px_nconns = &p->p_nconns;
    px->px_pdp = o->po_pdp;
    px->px_ca = o->po_ca;
    px->px_upstream_ca = o->po_upstream_ca;
    px->px_proxy_auth = o->po_proxy_auth;
    px->px_creds = o->po_creds;
    px->px_conns_max = o->po_conns_max ? o->po_conns_max : GW_CONNS_MAX;
    px->px_body_max = o->po_body_max ? o->po_body_max : GW_PROXY_BODY_MAX;
    px->px_head_ms = o->po_head_ms ? o->po_head_ms : GW_HEAD_MS;
    px->px_idle_ms = o->po_idle_ms ? o->po_idle_ms : GW_IDLE_MS;
    px->px_stall_ms = o->po_stall_ms ? o->po_stall_ms : GW_STALL_MS;

    px->px_decider = p->p_decider;
    px->px_sink = sink;
    box_err rv = BOX_OK;
    px->px_epfd = epoll_create1(EPOLL_CLOEXEC);
    px->px_wake.t_kind = GW_TAG_WAKE;
    px->px_wake.t_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    px->px_multi = curl_multi_init();
    if (px->px_epfd < 0 || px->px_wake.t_fd < 0 || px->px_multi == NULL) {
        *err = box_asprintf("cannot set up the event loop: %s",
                            strerror(errno));
        rv = BOX_EIO;
        goto fail;
    }
    curl_multi_setopt(px->px_multi, CURLMOPT_SOCKETFUNCTION, px_curl_socket);
    curl_multi_setopt(px->px_multi, CURLMOPT_SOCKETDATA, px);
    curl_multi_setopt(px->px_multi, CURLMOPT_TIMERFUNCTION, px_curl_timer);
    curl_multi_setopt(px->px_multi, CURLMOPT_TIMERDATA, px);
    for (int i = 0; i < 2; i++) {
        px->px_listen[i].t_kind = GW_TAG_LISTEN;
        if (px->px_listen[i].t_fd >= 0)
            px_add(px, &px->px_listen[i], EPOLLIN | EPOLLEXCLUSIVE);
    }
    px->px_decider_tag.t_kind = GW_TAG_DECIDER;
    px->px_decider_tag.t_fd = gw_decider_fd(px->px_decider, px->px_sink);
    px_add(px, &px->px_decider_tag, EPOLLIN);
    px_add(px, &px->px_wake, EPOLLIN);
    if (pthread_create(&px->px_thread, NULL, px_loop, px) != 0) {
        *err = box_asprintf("cannot start the event loop's thread");
        rv = BOX_ENOMEM;
        goto fail;
    }
    px->px_thread_started = true;
    *out = px;
    return BOX_OK;
fail:
    loop_join(px);
    loop_free(px);
    return rv;
}

/* Stops the loop's thread: nothing of the loop runs after, but the jobs
 * its connections wait for. */
static void
loop_join(gw_loop *px)
{
    if (px == NULL || !px->px_thread_started)
        return;
    uint64_t one = 1;
    ssize_t w = write(px->px_wake.t_fd, &one, sizeof one);
    (void)w;
    pthread_join(px->px_thread, NULL);
    px->px_thread_started = false;
}

/* Ends every connection of a joined loop and frees it, once no job runs
 * (the decider is freed first: running jobs own their connections' job
 * slots); the listening sockets stay open (the proxy's). */
static void
loop_free(gw_loop *px)
{
    if (px == NULL)
        return;
    while (px->px_conns != NULL) {
        gw_conn *c = px->px_conns;
        c->c_job_running = false;
        gw_conn_free(c);
    }
    if (px->px_multi != NULL)
        curl_multi_cleanup(px->px_multi);
    px_bury_all(px);
    if (px->px_wake.t_fd >= 0)
        close(px->px_wake.t_fd);
    if (px->px_epfd >= 0)
        close(px->px_epfd);
    box_free(px);
}

/* One loop a processor (a TLS handshake takes most of a millisecond of
 * one: a single loop made the gateway's throughput one core's, and left
 * the other idle while clients queued). */
unsigned
gw_proxy_default_loops(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return cpus < 1 ? 1 : cpus < GW_LOOPS_MAX ? (unsigned)cpus : GW_LOOPS_MAX;
}

unsigned
gw_proxy_loops(const gw_proxy *p)
{
    return p->p_nloops;
}

box_err
gw_proxy_start(const gw_proxy_opts *o, gw_proxy **out, char **err)
{
    *out = NULL;
    *err = NULL;
    gw_proxy *p = box_calloc(1, sizeof *p);
    if (p == NULL) { // the sockets are taken, as on every other failure
        if (o->po_tcp_fd >= 0)
            close(o->po_tcp_fd);
        if (o->po_unix_fd >= 0)
            close(o->po_unix_fd);
        return BOX_ENOMEM;
    }
    p->p_listen[0] = o->po_tcp_fd;
    p->p_listen[1] = o->po_unix_fd;
    unsigned n = o->po_loops == 0             ? gw_proxy_default_loops()
                 : o->po_loops < GW_LOOPS_MAX ? o->po_loops
                                              : GW_LOOPS_MAX;
    gw_decider_opts dop = {
        .do_pdp = o->po_pdp, .do_hosts = o->po_hosts, .do_sinks = n};
    box_err rv = gw_decider_new(&dop, &p->p_decider);
    if (rv != BOX_OK) {
        *err = box_asprintf("cannot start the decision threads: %s",
                            box_strerror(rv));
        goto fail;
    }
    for (; p->p_nloops < n; p->p_nloops++)
        if ((rv = loop_start(o, p, p->p_nloops, &p->p_loops[p->p_nloops],
                             err)) != BOX_OK)
            goto fail;
    *out = p;
    return BOX_OK;
fail:
    gw_proxy_stop(p);
    return rv;
}

void
gw_proxy_stop(gw_proxy *p)
{
    if (p == NULL)
        return;
    for (unsigned i = 0; i < p->p_nloops; i++)
        loop_join(p->p_loops[i]);
    gw_decider_free(p->p_decider);
    for (unsigned i = 0; i < p->p_nloops; i++)
        loop_free(p->p_loops[i]);
    for (int i = 0; i < 2; i++)
        if (p->p_listen[i] >= 0)
            close(p->p_listen[i]);
    box_free(p);
}
