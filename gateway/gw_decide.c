/* SPDX-License-Identifier: Apache-2.0 */
/* The gateway's job pool: decisions, DNS and connects on threads of their own. */
#include "gw_decide.h"

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

/* Addresses tried per name: a name with more is cut (and says so). */
#define GW_ADDRS_MAX 16
/* The gateway's decisions are numbered from here: the PDP ties an outcome
 * to its decision by number (and action and input), and the shell's
 * broker numbers its own from 1. */
#define GW_REQUEST_ID_BASE (UINT64_C(1) << 62)

struct gw_decider {
    box_pdp_client *d_pdp;
    _Atomic uint64_t d_next_id;
    int d_connect_ms;
    const gw_hosts *d_hosts;
    int d_efd;
    pthread_mutex_t d_lock;
    pthread_cond_t d_cv;
    gw_job *d_todo, **d_todo_tail;
    gw_job *d_done;
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

/* What one permit needs for its outcome to be recorded. */
typedef struct job_ticket {
    uint64_t t_id;
    bool t_wanted;
} job_ticket;

/* Appends e's outcome o to the PDP's history under the decision's id. */
static void
record(gw_decider *d, const box_effect *e, job_ticket t, const box_outcome *o)
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
           job_ticket *t)
{
    box_effect_req r;
    const Box__DecisionRequest *req = box_effect_request(&r, e);
    *t = (job_ticket){0};
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

/* The pinned addresses of the job's host: the literal itself, or what DNS
 * says once. n_out addresses in out; false with the job's refusal set. */
static bool
job_resolve(const gw_decider *d, gw_job *j, struct sockaddr_storage *out,
            socklen_t *lens, size_t *n_out)
{
    const gw_host *h = &j->j_auth.a_host;
    if (h->h_kind == GW_HOST_NAME &&
        (*n_out = gw_hosts_find(d->d_hosts, h->h_text, j->j_auth.a_port, out,
                                lens, GW_ADDRS_MAX)) > 0)
        return true;
    struct addrinfo hints = {.ai_socktype = SOCK_STREAM,
                             .ai_flags = AI_NUMERICSERV};
    if (h->h_kind != GW_HOST_NAME)
        hints.ai_flags |= AI_NUMERICHOST;
    char port[8];
    snprintf(port, sizeof port, "%u", (unsigned)j->j_auth.a_port);
    struct addrinfo *res = NULL;
    int rc = getaddrinfo(h->h_text, port, &hints, &res);
    if (rc != 0) {
        job_fail(j, GW_ANSWER_BAD_GATEWAY, "cannot resolve %s: %s", h->h_text,
                 rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
        return false;
    }
    size_t n = 0;
    for (struct addrinfo *ai = res; ai != NULL && n < GW_ADDRS_MAX;
         ai = ai->ai_next) {
        if ((ai->ai_family != AF_INET && ai->ai_family != AF_INET6) ||
            ai->ai_addrlen > sizeof *out)
            continue;
        bool dup = false;
        for (size_t k = 0; k < n && !dup; k++)
            dup = lens[k] == ai->ai_addrlen &&
                  memcmp(&out[k], ai->ai_addr, ai->ai_addrlen) == 0;
        if (dup)
            continue;
        memcpy(&out[n], ai->ai_addr, ai->ai_addrlen);
        lens[n++] = ai->ai_addrlen;
    }
    freeaddrinfo(res);
    if (n == 0) {
        job_fail(j, GW_ANSWER_BAD_GATEWAY, "cannot resolve %s: %s", h->h_text,
                 "no address");
        return false;
    }
    *n_out = n;
    return true;
}

/*
 * Each net:connect permit gets its outcome (box-spec §4): ::response when
 * the connection may have opened, ::error when it surely did not. The
 * decision before DNS ends as the connection does.
 */
static const box_outcome out_opened = {.bo_kind = BOX_OUTCOME_OPENED};
static const box_outcome out_error = {.bo_kind = BOX_OUTCOME_ERROR};

static void
job_connect(gw_decider *d, gw_job *j)
{
    char res[GW_ADDR_TEXT_MAX + 8];
    box_effect e;
    job_ticket first, t;
    net_effect(&e, j, NULL, res, sizeof res);
    if (!job_decide(d, j, &e, "", &first))
        return;
    struct sockaddr_storage addrs[GW_ADDRS_MAX];
    socklen_t lens[GW_ADDRS_MAX];
    size_t n = 0;
    if (!job_resolve(d, j, addrs, lens, &n)) {
        record(d, &e, first, &out_error);
        return;
    }
    int last = 0;
    for (size_t i = 0; i < n; i++) {
        char ip[GW_ADDR_TEXT_MAX];
        size_t iplen;
        if (gw_addr_ip_sockaddr((const struct sockaddr *)&addrs[i], lens[i],
                                ip, &iplen) != BOX_OK)
            continue;
        net_effect(&e, j, ip, res, sizeof res);
        // A refused address refuses the connection: the next one is not a
        // way around a rule that names this one.
        if (!job_decide(d, j, &e, "", &t)) {
            net_effect(&e, j, NULL, res, sizeof res);
            record(d, &e, first, &out_error);
            return;
        }
        int fd = connect_within((const struct sockaddr *)&addrs[i], lens[i],
                                d->d_connect_ms);
        if (fd < 0)
            last = errno;
        record(d, &e, t, fd >= 0 ? &out_opened : &out_error);
        if (fd >= 0) {
            j->j_ok = true;
            j->j_fd = fd;
            memcpy(j->j_ip, ip, iplen + 1);
            net_effect(&e, j, NULL, res, sizeof res);
            record(d, &e, first, &out_opened);
            return;
        }
    }
    net_effect(&e, j, NULL, res, sizeof res); // res: host:port
    record(d, &e, first, &out_error);
    job_fail(j, GW_ANSWER_BAD_GATEWAY, "cannot connect to %s: %s", res,
             strerror(last != 0 ? last : EHOSTUNREACH));
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
    job_ticket t;
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
    box_effect_req r;
    const Box__DecisionRequest *req =
        res != NULL ? box_effect_request(&r, &e) : NULL;
    bool hit = false;
    if (req != NULL) {
        uint64_t id = atomic_fetch_add(&d->d_next_id, 1);
        r.er_req.request_id = id;
        box_pdp_answer a;
        hit = box_pdp_decide_cached(d->d_pdp, req, &a);
        box_pdp_answer_clear(&a);
        if (hit) {
            j->j_ok = true;
            j->j_request_id = id;
            j->j_wants_outcome = false; // a cached permit: no rule reads it
        }
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
        record(d, &e, (job_ticket){j->j_request_id, true}, &j->j_outcome);
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
        pthread_mutex_unlock(&d->d_lock);

        if (j->j_kind == GW_JOB_RECORD) {
            job_record(d, j); // frees it: no one waits for it
            pthread_mutex_lock(&d->d_lock);
            continue;
        }
        if (j->j_kind == GW_JOB_CONNECT)
            job_connect(d, j);
        else
            job_http(d, j);

        pthread_mutex_lock(&d->d_lock);
        j->j_next = d->d_done;
        d->d_done = j;
        uint64_t one = 1;
        ssize_t w = write(d->d_efd, &one, sizeof one);
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
    d->d_efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    unsigned n = o->do_threads > 0 ? o->do_threads : GW_DECIDER_THREADS;
    d->d_threads = box_calloc(n, sizeof *d->d_threads);
    pthread_mutex_init(&d->d_lock, NULL);
    pthread_cond_init(&d->d_cv, NULL);
    if (d->d_efd < 0 || d->d_threads == NULL) {
        box_err rv = d->d_efd < 0 ? BOX_EIO : BOX_ENOMEM;
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
    if (d->d_efd >= 0)
        close(d->d_efd);
    box_free(d->d_threads);
    box_free(d);
}

int
gw_decider_fd(const gw_decider *d)
{
    return d->d_efd;
}

void
gw_decider_submit(gw_decider *d, gw_job *j)
{
    j->j_ok = false;
    j->j_fd = -1;
    j->j_ip[0] = '\0';
    j->j_next = NULL;
    pthread_mutex_lock(&d->d_lock);
    *d->d_todo_tail = j;
    d->d_todo_tail = &j->j_next;
    pthread_cond_signal(&d->d_cv);
    pthread_mutex_unlock(&d->d_lock);
}

gw_job *
gw_decider_take(gw_decider *d)
{
    uint64_t v;
    ssize_t r = read(d->d_efd, &v, sizeof v);
    (void)r; // EAGAIN: nothing counted, the list says the same
    pthread_mutex_lock(&d->d_lock);
    gw_job *done = d->d_done;
    d->d_done = NULL;
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
