/* SPDX-License-Identifier: Apache-2.0 */
/* The gateway's job pool: decisions, DNS and connects on threads of their own. */
#include "gw_decide.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_effect.h"
#include "box_log.h"
#include "box_outcome.h"
#include "box_svc.h"
#include "gw_hosts.h"

/* The gateway's decisions are numbered from here: the PDP ties an outcome
 * to its decision by number (and action and input), and the shell's
 * broker numbers its own from 1. */
#define GW_REQUEST_ID_BASE (UINT64_C(1) << 62)

struct gw_decider {
    box_pdp_client *d_pdp;
    _Atomic uint64_t d_next_id;
    int d_connect_ms;
    const gw_hosts *d_hosts;
    // One queue for every loop, taken in order, and a decision waits for
    // the outcomes queued before it (d_rec_seq: those being recorded): an
    // outcome recorded as a loop answered is in history before any
    // decision asked after it, whichever loop asks (a client's next
    // request sees it). Ended jobs go back to their own loop's list.
    unsigned d_nsinks;
    uint64_t d_seq;
    uint64_t *d_rec_seq; // one slot a thread
    size_t d_nrec;
    pthread_cond_t d_rec_cv;
    int d_efd[GW_DECIDER_SINKS_MAX];
    gw_job *d_done[GW_DECIDER_SINKS_MAX];
    pthread_mutex_t d_lock;
    pthread_cond_t d_cv;
    gw_job *d_todo, **d_todo_tail;
    bool d_stop;
    pthread_t *d_threads;
    unsigned d_nthreads;
};

static void
job_fail(gw_job *j, gw_answer_kind kind, const char *fmt, const char *a,
         const char *b)
{
    j->j_ok = false;
    j->j_answer = kind;
    box_free(j->j_reason);
    j->j_reason = box_asprintf(fmt, a, b);
}

/* Appends e's outcome o to the PDP's history under the decision's id. */
static void
record(gw_decider *d, const box_effect *e, gw_ticket t, const box_outcome *o)
{
    if (!t.t_wanted)
        return;
    box_effect_req r;
    box_outcome_ev ev;
    const Box__DecisionRequest *req = box_effect_request(&r, e);
    const Box__Event *oe = req ? box_outcome_event(&ev, t.t_id, o) : NULL;
    if (oe == NULL)
        return;
    ev.oe_ev.action = req->action;
    ev.oe_ev.input = req->input;
    ev.oe_ev.time_unix_ns = (int64_t)box_svc_clock_ns(CLOCK_REALTIME);
    Box__Event *evp = &ev.oe_ev;
    Box__EventBatch batch = BOX__EVENT_BATCH__INIT;
    batch.n_events = 1;
    batch.events = &evp;
    box_err rv = box_pdp_record(d->d_pdp, &batch);
    if (rv != BOX_OK)
        box_log(BOX_LOG_WARN, "box-gateway",
                "policy outcome recording was not confirmed (%s %s: %s)",
                req->action, req->resource, box_strerror(rv));
    ev.oe_ev.action = NULL; // borrowed from r, not ev's to free
    ev.oe_ev.input = NULL;
    box_outcome_ev_clear(&ev);
}

/* One decision; true on a permit. A deny or a fault (the PDP did not
 * answer: refused, never permitted) sets the job's refusal: the decision's
 * text behind prefix. *t says how to record the permit's outcome. */
static bool
job_decide(gw_decider *d, gw_job *j, const box_effect *e, const char *prefix,
           gw_ticket *t)
{
    box_effect_req r;
    const Box__DecisionRequest *req = box_effect_request(&r, e);
    *t = (gw_ticket){0};
    if (req == NULL) {
        job_fail(j, GW_ANSWER_REFUSED, "%s%s", prefix,
                 "the request could not be described to policy");
        return false;
    }
    t->t_id = atomic_fetch_add(&d->d_next_id, 1);
    r.er_req.request_id = t->t_id;
    box_pdp_answer a;
    box_err rv = box_pdp_decide(d->d_pdp, req, &a);
    bool ok = rv == BOX_OK && a.pa_verdict == BOX_VERDICT_PERMIT;
    t->t_wanted = ok && a.pa_wants_outcomes;
    if (!ok)
        job_fail(j, GW_ANSWER_REFUSED, "%s%s", prefix,
                 a.pa_message != NULL ? a.pa_message
                                      : "not authorized (default-deny)");
    box_pdp_answer_clear(&a);
    return ok;
}

static void
net_effect(box_effect *e, const gw_job *j, const char *ip, char *res,
           size_t resn)
{
    snprintf(res, resn, "%s:%u", j->j_auth.a_host.h_text,
             (unsigned)j->j_auth.a_port);
    *e = (box_effect){.e_kind = BOX_EFFECT_NET_CONNECT,
                      .e_net = {.en_host = j->j_auth.a_host.h_text,
                                .en_port = j->j_auth.a_port,
                                .en_ip = ip,
                                .en_resource = res}};
}

/* A non-blocking connect waited for up to ms; the socket, or -1 with
 * errno. */
static int
connect_within(const struct sockaddr *sa, socklen_t salen, int ms)
{
    int fd = socket(sa->sa_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
                    0);
    if (fd < 0)
        return -1;
    if (connect(fd, sa, salen) == 0)
        return fd;
    if (errno != EINPROGRESS)
        goto fail;
    struct pollfd p = {.fd = fd, .events = POLLOUT};
    int n;
    do
        n = poll(&p, 1, ms);
    while (n < 0 && errno == EINTR);
    if (n == 0) {
        errno = ETIMEDOUT;
        goto fail;
    }
    int err = 0;
    socklen_t len = sizeof err;
    if (n < 0 || getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        goto fail;
    if (err != 0) {
        errno = err;
        goto fail;
    }
    return fd;
fail:;
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

/* A literal host's one address, port set: no resolver involved. */
static bool
pin_literal(const gw_authority *a, gw_pins *p)
{
    struct sockaddr_storage *ss = &p->p_addr[0];
    memset(ss, 0, sizeof *ss);
    if (a->a_host.h_kind == GW_HOST_IPV4) {
        struct sockaddr_in *in = (struct sockaddr_in *)ss;
        in->sin_family = AF_INET;
        in->sin_port = htons(a->a_port);
        if (inet_pton(AF_INET, a->a_host.h_text, &in->sin_addr) != 1)
            return false;
        p->p_len[0] = sizeof *in;
    } else {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(a->a_port);
        if (inet_pton(AF_INET6, a->a_host.h_text, &in6->sin6_addr) != 1)
            return false;
        p->p_len[0] = sizeof *in6;
    }
    p->p_n = 1;
    return true;
}

/* The addresses of a host that needs no DNS (a literal, or a name the
 * hosts file holds) into p; false when the resolver must be asked. */
static bool
pin_at_hand(const gw_decider *d, const gw_authority *a, gw_pins *p)
{
    p->p_at = 0;
    p->p_decided = false;
    if (a->a_host.h_kind != GW_HOST_NAME)
        return pin_literal(a, p);
    p->p_n = gw_hosts_find(d->d_hosts, a->a_host.h_text, a->a_port,
                           p->p_addr, p->p_len, GW_ADDRS_MAX);
    return p->p_n > 0;
}

/* The pinned addresses of the job's host: at hand, or what DNS says once.
 * False with the job's refusal set. */
static bool
job_resolve(const gw_decider *d, gw_job *j, gw_pins *p)
{
    const gw_host *h = &j->j_auth.a_host;
    if (pin_at_hand(d, &j->j_auth, p))
        return true;
    p->p_n = 0;
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV};
    char port[8];
    snprintf(port, sizeof port, "%u", (unsigned)j->j_auth.a_port);
    struct addrinfo *res = NULL;
    int rc = h->h_kind == GW_HOST_NAME
                 ? getaddrinfo(h->h_text, port, &hints, &res)
                 : EAI_NONAME; // a literal inet_pton refused: none
    if (rc != 0) {
        job_fail(j, GW_ANSWER_BAD_GATEWAY, "cannot resolve %s: %s", h->h_text,
                 rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
        return false;
    }
    size_t n = 0;
    for (struct addrinfo *ai = res; ai != NULL && n < GW_ADDRS_MAX;
         ai = ai->ai_next) {
        if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
            ai->ai_addrlen > sizeof p->p_addr[0])
            continue;
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++)
            dup = p->p_len[k] == ai->ai_addrlen &&
                  memcmp(&p->p_addr[k], ai->ai_addr, ai->ai_addrlen) == 0;
        if (dup)
            continue;
        memcpy(&p->p_addr[n], ai->ai_addr, ai->ai_addrlen);
        p->p_len[n++] = ai->ai_addrlen;
    }
    freeaddrinfo(res);
    if (n == 0) {
        job_fail(j, GW_ANSWER_BAD_GATEWAY, "cannot resolve %s: %s", h->h_text,
                 "no address");
        return false;
    }
    p->p_n = n;
    return true;
}

/* p_at's address as text in p_ip; false for one that has none (never a
 * family the resolve kept). */
static bool
pin_text(gw_pins *p)
{
    size_t n;
    return gw_addr_ip_sockaddr((const struct sockaddr *)&p->p_addr[p->p_at],
                               p->p_len[p->p_at], p->p_ip, &n) == BOX_OK;
}

/*
 * Each net:connect permit gets its outcome (box-spec §4): ::response when
 * the connection may have opened, ::error when it surely did not. The
 * decision before DNS ends as the connection does.
 */
static const box_outcome out_opened = {.bo_kind = BOX_OUTCOME_OPENED};
static const box_outcome out_error = {.bo_kind = BOX_OUTCOME_ERROR};

/* Records what waits in *t (and clears it). */
static void
record_net(gw_decider *d, const gw_job *j, const char *ip, gw_ticket *t,
           bool opened)
{
    char res[GW_ADDR_TEXT_MAX + 8];
    box_effect e;
    net_effect(&e, j, ip, res, sizeof res);
    record(d, &e, *t, opened ? &out_opened : &out_error);
    *t = (gw_ticket){0};
}

static void
job_connect(gw_decider *d, gw_job *j)
{
    gw_pins *p = j->j_pins;
    char res[GW_ADDR_TEXT_MAX + 8];
    box_effect e;
    if (p->p_n == 0) {
        net_effect(&e, j, NULL, res, sizeof res);
        if (!job_decide(d, j, &e, "", &p->p_host_ticket))
            return;
        if (!job_resolve(d, j, p)) {
            record_net(d, j, NULL, &p->p_host_ticket, false);
            return;
        }
        p->p_at = 0;
        p->p_decided = false;
    }
    int last = 0;
    for (; p->p_at < p->p_n; p->p_at++, p->p_decided = false) {
        if (!p->p_decided) {
            if (!pin_text(p))
                continue;
            net_effect(&e, j, p->p_ip, res, sizeof res);
            // A refused address refuses the connection: the next one is
            // not a way around a rule that names this one.
            if (!job_decide(d, j, &e, "", &p->p_ip_ticket)) {
                record_net(d, j, NULL, &p->p_host_ticket, false);
                return;
            }
            p->p_decided = true;
        }
        // Policy that reads how a connect went must know it before this
        // request's next decision: the connect is made here then.
        if (!j->j_connect && !p->p_ip_ticket.t_wanted &&
            !p->p_host_ticket.t_wanted) {
            j->j_ok = true; // libcurl connects; the loop tells how it went
            return;
        }
        int fd = connect_within((const struct sockaddr *)&p->p_addr[p->p_at],
                                p->p_len[p->p_at], d->d_connect_ms);
        if (fd < 0)
            last = errno;
        record_net(d, j, p->p_ip, &p->p_ip_ticket, fd >= 0);
        if (fd >= 0) {
            j->j_ok = true;
            j->j_fd = fd;
            record_net(d, j, NULL, &p->p_host_ticket, true);
            return;
        }
    }
    record_net(d, j, NULL, &p->p_host_ticket, false);
    net_effect(&e, j, NULL, res, sizeof res); // res: host:port
    job_fail(j, GW_ANSWER_BAD_GATEWAY, "cannot connect to %s: %s", res,
             strerror(last != 0 ? last : EHOSTUNREACH));
}

/* One decision from the PDP client's cache, logged as any; false on a
 * miss (nothing decided, nothing logged). */
static bool
decide_cached(gw_decider *d, const box_effect *e, gw_ticket *t)
{
    box_effect_req r;
    const Box__DecisionRequest *req = box_effect_request(&r, e);
    if (req == NULL)
        return false;
    uint64_t id = atomic_fetch_add(&d->d_next_id, 1);
    r.er_req.request_id = id;
    box_pdp_answer a;
    bool hit = box_pdp_decide_cached(d->d_pdp, req, &a);
    box_pdp_answer_clear(&a);
    // A cached permit: no rule reads its outcome.
    *t = (gw_ticket){.t_id = hit ? id : 0};
    return hit;
}

bool
gw_decider_connect_now(gw_decider *d, gw_job *j)
{
    gw_pins *p = j->j_pins;
    char res[GW_ADDR_TEXT_MAX + 8];
    box_effect e;
    if (j->j_connect)
        return false; // a connect blocks: the job makes it
    if (p->p_n == 0) {
        if (!pin_at_hand(d, &j->j_auth, p)) {
            p->p_n = 0;
            return false;
        }
        net_effect(&e, j, NULL, res, sizeof res);
        if (!decide_cached(d, &e, &p->p_host_ticket)) {
            p->p_n = 0; // the job decides it, then pins again
            return false;
        }
    }
    for (; p->p_at < p->p_n; p->p_at++, p->p_decided = false) {
        if (!p->p_decided) {
            if (!pin_text(p))
                continue;
            net_effect(&e, j, p->p_ip, res, sizeof res);
            if (!decide_cached(d, &e, &p->p_ip_ticket))
                return false; // the job decides this address
            p->p_decided = true;
        }
        j->j_ok = true;
        return true;
    }
    return false; // no address left: the job says so
}

/* The http:request effect of a job; res (owned by the caller) is its
 * host:port/path resource, NULL when memory ran out. */
static box_effect
http_effect(const gw_job *j, char **res)
{
    *res = box_asprintf("%s:%u%s", j->j_auth.a_host.h_text,
                        (unsigned)j->j_auth.a_port, j->j_path);
    return (box_effect){.e_kind = BOX_EFFECT_HTTP_REQUEST,
                        .e_net = {.en_host = j->j_auth.a_host.h_text,
                                  .en_port = j->j_auth.a_port,
                                  .en_resource = *res,
                                  .en_method = j->j_method,
                                  .en_path = j->j_path,
                                  .en_body_bytes = (long)j->j_body_bytes,
                                  .en_intercepted = j->j_intercepted}};
}

static void
job_http(gw_decider *d, gw_job *j)
{
    char *res;
    box_effect e = http_effect(j, &res);
    if (res == NULL) {
        job_fail(j, GW_ANSWER_UNAVAILABLE, "%s%s", "out of memory", "");
        return;
    }
    gw_ticket t;
    j->j_ok = job_decide(d, j, &e, "http:request gate: ", &t);
    j->j_request_id = t.t_id;
    j->j_wants_outcome = t.t_wanted;
    box_free(res);
}

bool
gw_decider_http_now(gw_decider *d, gw_job *j)
{
    char *res;
    box_effect e = http_effect(j, &res);
    gw_ticket t;
    bool hit = res != NULL && decide_cached(d, &e, &t);
    if (hit) {
        j->j_ok = true;
        j->j_request_id = t.t_id;
        j->j_wants_outcome = false;
    }
    box_free(res);
    return hit;
}

static void
job_record(gw_decider *d, gw_job *j)
{
    char *res;
    box_effect e = http_effect(j, &res);
    if (res != NULL)
        record(d, &e, (gw_ticket){j->j_request_id, true}, &j->j_outcome);
    box_free(res);
    box_free(j->j_own_method);
    box_free(j->j_own_path);
    box_free(j);
}

void
gw_decider_record_http(gw_decider *d, const gw_job *decided,
                       const box_outcome *o)
{
    gw_job *j = box_calloc(1, sizeof *j);
    if (j != NULL) {
        *j = *decided;
        j->j_kind = GW_JOB_RECORD;
        j->j_reason = NULL;
        j->j_owner = NULL;
        j->j_outcome = *o;
        j->j_own_method = box_strdup(decided->j_method);
        j->j_own_path = box_strdup(decided->j_path);
        j->j_method = j->j_own_method;
        j->j_path = j->j_own_path;
    }
    if (j == NULL || j->j_own_method == NULL || j->j_own_path == NULL) {
        box_log(BOX_LOG_WARN, "box-gateway",
                "policy outcome recording was not confirmed (out of memory)");
        if (j != NULL) {
            box_free(j->j_own_method);
            box_free(j->j_own_path);
            box_free(j);
        }
        return;
    }
    gw_decider_submit(d, j);
}

/* Whether an outcome queued before seq is still being recorded. */
static bool
records_before(const gw_decider *d, uint64_t seq)
{
    for (size_t i = 0; i < d->d_nrec; i++)
        if (d->d_rec_seq[i] < seq)
            return true;
    return false;
}

static void *
decider_thread(void *arg)
{
    gw_decider *d = arg;
    pthread_mutex_lock(&d->d_lock);
    for (;;) {
        while (d->d_todo == NULL && !d->d_stop)
            pthread_cond_wait(&d->d_cv, &d->d_lock);
        gw_job *j = d->d_todo;
        if (j == NULL)
            break; // stopping, nothing left
        d->d_todo = j->j_next;
        if (d->d_todo == NULL)
            d->d_todo_tail = &d->d_todo;
        // A record is known to be under way as it is taken, so a decision
        // taken after it waits for it.
        uint64_t seq = j->j_seq;
        bool rec = j->j_kind == GW_JOB_RECORD;
        if (rec)
            d->d_rec_seq[d->d_nrec++] = seq;
        else
            while (records_before(d, seq))
                pthread_cond_wait(&d->d_rec_cv, &d->d_lock);
        pthread_mutex_unlock(&d->d_lock);

        if (rec) {
            job_record(d, j); // frees it: no one waits for it
            pthread_mutex_lock(&d->d_lock);
            for (size_t i = 0; i < d->d_nrec; i++)
                if (d->d_rec_seq[i] == seq) {
                    d->d_rec_seq[i] = d->d_rec_seq[--d->d_nrec];
                    break;
                }
            pthread_cond_broadcast(&d->d_rec_cv);
            continue;
        }
        if (j->j_kind == GW_JOB_CONNECT)
            job_connect(d, j);
        else
            job_http(d, j);

        pthread_mutex_lock(&d->d_lock);
        unsigned s = j->j_sink < d->d_nsinks ? j->j_sink : 0;
        j->j_next = d->d_done[s];
        d->d_done[s] = j;
        uint64_t one = 1;
        ssize_t w = write(d->d_efd[s], &one, sizeof one);
        (void)w; // an eventfd write fails only past 2^64-2 pending
    }
    pthread_mutex_unlock(&d->d_lock);
    return NULL;
}

box_err
gw_decider_new(const gw_decider_opts *o, gw_decider **out)
{
    *out = NULL;
    gw_decider *d = box_calloc(1, sizeof *d);
    if (d == NULL)
        return BOX_ENOMEM;
    d->d_pdp = o->do_pdp;
    atomic_init(&d->d_next_id, GW_REQUEST_ID_BASE);
    d->d_connect_ms = o->do_connect_ms > 0 ? o->do_connect_ms : GW_CONNECT_MS;
    d->d_hosts = o->do_hosts;
    d->d_todo_tail = &d->d_todo;
    d->d_nsinks = o->do_sinks == 0                     ? 1
                  : o->do_sinks < GW_DECIDER_SINKS_MAX ? o->do_sinks
                                                       : GW_DECIDER_SINKS_MAX;
    bool efds = true;
    for (unsigned s = 0; s < GW_DECIDER_SINKS_MAX; s++)
        d->d_efd[s] = -1;
    for (unsigned s = 0; s < d->d_nsinks; s++)
        efds =
            efds && (d->d_efd[s] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) >= 0;
    unsigned n = o->do_threads > 0 ? o->do_threads : GW_DECIDER_THREADS;
    d->d_threads = box_calloc(n, sizeof *d->d_threads);
    d->d_rec_seq = box_calloc(n, sizeof *d->d_rec_seq);
    pthread_mutex_init(&d->d_lock, NULL);
    pthread_cond_init(&d->d_cv, NULL);
    pthread_cond_init(&d->d_rec_cv, NULL);
    if (!efds || d->d_threads == NULL || d->d_rec_seq == NULL) {
        box_err rv = !efds ? BOX_EIO : BOX_ENOMEM;
        gw_decider_free(d);
        return rv;
    }
    for (; d->d_nthreads < n; d->d_nthreads++)
        if (pthread_create(&d->d_threads[d->d_nthreads], NULL, decider_thread,
                           d) != 0) {
            gw_decider_free(d);
            return BOX_ENOMEM;
        }
    *out = d;
    return BOX_OK;
}

void
gw_decider_free(gw_decider *d)
{
    if (d == NULL)
        return;
    pthread_mutex_lock(&d->d_lock);
    d->d_stop = true;
    pthread_cond_broadcast(&d->d_cv);
    pthread_mutex_unlock(&d->d_lock);
    for (unsigned i = 0; i < d->d_nthreads; i++)
        pthread_join(d->d_threads[i], NULL);
    pthread_mutex_destroy(&d->d_lock);
    pthread_cond_destroy(&d->d_cv);
    pthread_cond_destroy(&d->d_rec_cv);
    box_free(d->d_rec_seq);
    for (unsigned s = 0; s < GW_DECIDER_SINKS_MAX; s++)
        if (d->d_efd[s] >= 0)
            close(d->d_efd[s]);
    box_free(d->d_threads);
    box_free(d);
}

int
gw_decider_fd(const gw_decider *d, unsigned sink)
{
    return sink < d->d_nsinks ? d->d_efd[sink] : -1;
}

void
gw_decider_submit(gw_decider *d, gw_job *j)
{
    j->j_ok = false;
    j->j_fd = -1;
    j->j_next = NULL;
    pthread_mutex_lock(&d->d_lock);
    j->j_seq = ++d->d_seq;
    *d->d_todo_tail = j;
    d->d_todo_tail = &j->j_next;
    pthread_cond_signal(&d->d_cv);
    pthread_mutex_unlock(&d->d_lock);
}

gw_job *
gw_decider_take(gw_decider *d, unsigned sink)
{
    if (sink >= d->d_nsinks)
        return NULL;
    uint64_t v;
    ssize_t r = read(d->d_efd[sink], &v, sizeof v);
    (void)r; // EAGAIN: nothing counted, the list says the same
    pthread_mutex_lock(&d->d_lock);
    gw_job *done = d->d_done[sink];
    d->d_done[sink] = NULL;
    pthread_mutex_unlock(&d->d_lock);
    return done;
}

void
gw_job_clear(gw_job *j)
{
    if (j->j_fd >= 0)
        close(j->j_fd);
    j->j_fd = -1;
    box_free(j->j_reason);
    j->j_reason = NULL;
    j->j_ok = false;
    j->j_request_id = 0;
    j->j_wants_outcome = false;
}
