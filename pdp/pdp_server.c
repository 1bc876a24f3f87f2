/* SPDX-License-Identifier: Apache-2.0 */
/* box-pdp's server: dispatch, generations (atomic swap + epochs), logging. */
#include "pdp_server.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/pubsub0/pub.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_buf.h"
#include "box_log.h"
#include "box_rpc.h"
#include "box_svc.h"
#include "box_wire.h"
#include "box_wire_scan.h"
#include "pdp_decide.h"
#include "pdp_dlog.h"
#include "pdp_epoch_pub.h"
#include "pdp_peer.h"
#include "pdp_policy.h"
#include "pdp_policy_file.h"
#include "pdp_wire.h"

#define PDP_SVC "box-pdp"
#define PDP_CONTEXTS_DEFAULT 8
#define PDP_SCRATCH_ARENA (4u << 20)
// An unpacked request takes a few times its wire size; this bounds one
// whose bytes are mostly empty messages, each a struct unpacked.
#define PDP_MSG_ARENA (64u * BOX_PDP_MSG_MAX)

/* One policy generation: immutable once installed, freed by its last
 * user. */
typedef struct pdp_gen {
    pdp_policy_set *g_set;
    uint64_t g_epoch;
    atomic_uint g_refs;
} pdp_gen;

/* Per-request scratch, reused through a free list so a decision does not
 * allocate its answer or arena again. */
typedef struct pdp_scratch {
    struct pdp_scratch *sc_next;
    pdp_answer *sc_ans;
    box_arena *sc_arena;
    // The request as unpacked: its many small parts (a batch of reports
    // holds thousands) cost a few chunks, not an allocation each.
    box_arena *sc_msg;
} pdp_scratch;

struct pdp_server {
    box_rpc_server *sv_rpc;
    pdp_peers *sv_peers; // who may connect (pdp_peer.h); borrowed
    pdp_dlog *sv_log;
    pdp_live *sv_live; // the history temporal rules read
    char *sv_policy;   // owned copy of the path, or NULL
    char *sv_home;     // operator home for the spelling checks, or NULL
    uint64_t sv_started_ms;

    pthread_mutex_t sv_gen_lock; // guards sv_gen (the pointer, not the set)
    pdp_gen *sv_gen;
    pthread_mutex_t sv_reload_lock; // one reload at a time

    nng_socket sv_pub;
    bool sv_pub_open;

    pthread_mutex_t sv_scratch_lock;
    pdp_scratch *sv_scratch;

    char *sv_last_refusal; // under sv_gen_lock; for health
    // Under sv_gen_lock, for health: why the last generation did not
    // install or publish, NULL once one did both.
    char *sv_gen_error;
};

/* ------------------------------------------------------------------ */
/* Generations                                                         */
/* ------------------------------------------------------------------ */

static pdp_gen *
gen_acquire(pdp_server *s)
{
    pthread_mutex_lock(&s->sv_gen_lock);
    pdp_gen *g = s->sv_gen;
    atomic_fetch_add(&g->g_refs, 1);
    pthread_mutex_unlock(&s->sv_gen_lock);
    return g;
}

static void
gen_release(pdp_gen *g)
{
    if (g != NULL && atomic_fetch_sub(&g->g_refs, 1) == 1) {
        pdp_policy_free(g->g_set);
        box_free(g);
    }
}

/* Epochs grow across restarts too: microseconds of wall time at install,
 * and always past the previous one. */
static uint64_t
gen_next_epoch(uint64_t prev)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t e = (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
    return e > prev ? e : prev + 1;
}

/* Loads the policy file into a set (NULL path: the empty set, which
 * denies everything). *err is the refusal text on failure. */
static box_err
gen_load(pdp_server *s, pdp_policy_set **out, char **err)
{
    pdp_validate_warnings w = {0};
    box_err rv = pdp_policy_load_file(s->sv_policy, s->sv_home, out, &w, err);
    for (size_t i = 0; i < w.vw_n; i++)
        box_log(BOX_LOG_WARN, PDP_SVC, "policy warning: %s", w.vw_items[i]);
    pdp_validate_warnings_free(&w);
    return rv;
}

/* Sends the epoch notice of a new generation to every subscriber (the
 * shell's and the gateway's permit caches). BOX_OK, or an error with *why
 * (caller frees): a client that missed it keeps serving the permits it
 * cached under the old generation until an answer tells it the new epoch. */
static box_err
gen_publish(pdp_server *s, uint64_t epoch, char **why)
{
    *why = NULL;
    if (!s->sv_pub_open)
        return BOX_OK;
    Box__EpochNotice n = BOX__EPOCH_NOTICE__INIT;
    n.epoch = epoch;
    n.policy = s->sv_policy ? s->sv_policy : "";
    nng_msg *m = NULL;
    int rc;
    box_err rv = BOX_ENOMEM;
    if ((rc = nng_msg_alloc(&m, 0)) != 0) {
        *why = box_asprintf("no message: %s", nng_strerror(rc));
        goto out;
    }
    if ((rv = box_rpc_msg_pack(m, &n.base)) != BOX_OK) {
        *why = box_asprintf("the notice did not pack: %s", box_strerror(rv));
        goto out;
    }
    if ((rc = pdp_epoch_pub_send(s->sv_pub, m)) != 0) {
        *why = box_asprintf("%s", nng_strerror(rc));
        rv = BOX_EIO;
        goto out;
    }
    m = NULL; // sent: nng owns it
    rv = BOX_OK;
out:
    if (m != NULL)
        nng_msg_free(m);
    return rv;
}

/* Keeps why (taken; NULL: the generation in force installed and published
 * cleanly) for the health answer's generation_error. */
static void
gen_note_error(pdp_server *s, char *why)
{
    pthread_mutex_lock(&s->sv_gen_lock);
    box_free(s->sv_gen_error);
    s->sv_gen_error = why;
    pthread_mutex_unlock(&s->sv_gen_lock);
}

/*
 * Installs set as the new generation (takes it) and publishes its epoch.
 * Neither step fails silently: a failure is logged, written to the
 * decision log, kept for the health answer (generation_error, until a
 * generation installs and publishes cleanly) and returned with *err
 * (caller frees; NULL only when even that text could not be made).
 * BOX_ENOMEM before the swap: not installed, the old generation stays in
 * force (set is freed). Any error after it (BOX_EIO, BOX_ENOMEM): the
 * generation is in force, but its epoch notice was not sent.
 */
static box_err
gen_install(pdp_server *s, pdp_policy_set *set, char **err)
{
    static const char oom[] = "policy not installed: out of memory; the old "
                              "generation stays in force";
    const char *subject = s->sv_policy ? s->sv_policy : "<no authored policy>";
    char *why = NULL;
    box_err rv;

    *err = NULL;
    pdp_gen *g = box_calloc(1, sizeof *g);
    if (g == NULL) {
        pdp_policy_free(set);
        box_log(BOX_LOG_ERROR, PDP_SVC, "%s", oom);
        if (s->sv_log != NULL &&
            pdp_dlog_control_add(s->sv_log, "policy_refused", "refused",
                                 subject, "out of memory") != BOX_OK)
            box_log(BOX_LOG_WARN, PDP_SVC, "policy_refused record not logged");
        *err = box_strdup(oom);
        gen_note_error(s, box_strdup(oom));
        return BOX_ENOMEM;
    }
    g->g_set = set;
    atomic_init(&g->g_refs, 1);
    pthread_mutex_lock(&s->sv_gen_lock);
    pdp_gen *old = s->sv_gen;
    g->g_epoch = gen_next_epoch(old ? old->g_epoch : 0);
    s->sv_gen = g;
    pthread_mutex_unlock(&s->sv_gen_lock);
    gen_release(old);
    if ((rv = gen_publish(s, g->g_epoch, &why)) != BOX_OK) {
        *err = box_asprintf("epoch %llu installed but not published (%s): "
                            "clients keep the permits they cached until an "
                            "answer brings them the new epoch",
                            (unsigned long long)g->g_epoch,
                            why ? why : box_strerror(rv));
        box_log(BOX_LOG_ERROR, PDP_SVC, "%s",
                *err ? *err : "epoch installed but not published");
    }
    // The record says installed (it is in force) and, in its reason, that
    // the notice did not go out.
    if (s->sv_log != NULL &&
        pdp_dlog_control_add(s->sv_log, "policy_installed", "ok", subject,
                             rv != BOX_OK ? *err : NULL) != BOX_OK)
        box_log(BOX_LOG_WARN, PDP_SVC, "policy_installed record not logged");
    box_log(BOX_LOG_INFO, PDP_SVC, "policy installed, epoch %llu",
            (unsigned long long)g->g_epoch);
    box_free(why);
    why = NULL; // a clean generation clears the note
    if (rv != BOX_OK)
        why = box_strdup(*err ? *err : "epoch installed but not published");
    gen_note_error(s, why);
    return rv;
}

uint64_t
pdp_server_epoch(pdp_server *s)
{
    pdp_gen *g = gen_acquire(s);
    uint64_t e = g->g_epoch;
    gen_release(g);
    return e;
}

box_err
pdp_server_reload(pdp_server *s, char **err)
{
    pdp_policy_set *set = NULL;
    pthread_mutex_lock(&s->sv_reload_lock);
    box_err rv = gen_load(s, &set, err);
    if (rv == BOX_OK) {
        rv = gen_install(s, set, err); // logged there
    } else {
        const char *why = *err ? *err : box_strerror(rv);
        box_log(BOX_LOG_WARN, PDP_SVC,
                "policy refused, the old generation stays in force: %s", why);
        if (s->sv_log != NULL &&
            pdp_dlog_control_add(s->sv_log, "policy_refused", "refused",
                                 s->sv_policy ? s->sv_policy
                                              : "<no authored policy>",
                                 why) != BOX_OK)
            box_log(BOX_LOG_WARN, PDP_SVC, "policy_refused record not logged");
        pthread_mutex_lock(&s->sv_gen_lock);
        box_free(s->sv_last_refusal);
        s->sv_last_refusal = box_strdup(why);
        pthread_mutex_unlock(&s->sv_gen_lock);
    }
    pthread_mutex_unlock(&s->sv_reload_lock);
    return rv;
}

/* ------------------------------------------------------------------ */
/* Scratch                                                             */
/* ------------------------------------------------------------------ */

static void
scratch_free(pdp_scratch *sc)
{
    pdp_answer_free(sc->sc_ans);
    box_arena_free(sc->sc_arena);
    box_arena_free(sc->sc_msg);
    box_free(sc);
}

static pdp_scratch *
scratch_get(pdp_server *s)
{
    pthread_mutex_lock(&s->sv_scratch_lock);
    pdp_scratch *sc = s->sv_scratch;
    if (sc != NULL)
        s->sv_scratch = sc->sc_next;
    pthread_mutex_unlock(&s->sv_scratch_lock);
    if (sc != NULL)
        return sc;
    if ((sc = box_calloc(1, sizeof *sc)) == NULL)
        return NULL;
    sc->sc_ans = pdp_answer_new();
    sc->sc_arena = box_arena_new(PDP_SCRATCH_ARENA);
    sc->sc_msg = box_arena_new(PDP_MSG_ARENA);
    if (sc->sc_ans == NULL || sc->sc_arena == NULL || sc->sc_msg == NULL) {
        scratch_free(sc);
        return NULL;
    }
    return sc;
}

static void
scratch_put(pdp_server *s, pdp_scratch *sc)
{
    box_arena_reset(sc->sc_arena);
    box_arena_reset(sc->sc_msg);
    pthread_mutex_lock(&s->sv_scratch_lock);
    sc->sc_next = s->sv_scratch;
    s->sv_scratch = sc;
    pthread_mutex_unlock(&s->sv_scratch_lock);
}

/* ------------------------------------------------------------------ */
/* Dispatch                                                            */
/* ------------------------------------------------------------------ */

/* Decides one request into out and d (strings borrowed from sc until
 * packed). */
static void
server_decide(pdp_server *s, pdp_gen *g, pdp_scratch *sc,
              const Box__DecisionRequest *req, Box__DecisionResponse *out,
              pdp_wire_decided *d)
{
    if (!pdp_wire_notice(req, g->g_epoch, out, d)) {
        pdp_wire_decide(g->g_set, s->sv_live, sc->sc_arena, sc->sc_ans, req,
                        g->g_epoch, out, d);
        pdp_wire_enforce(sc->sc_arena, req, out, d);
        pdp_wire_served(sc->sc_arena, req, g->g_epoch, d);
    }
}

/* The answer to a report of a permit the client already served: it reads
 * none, so none is packed, sent and unpacked (a flush carries many). */
static void
server_report_answer(const Box__DecisionRequest *req,
                     const pdp_wire_decided *d, Box__DecisionResponse *out)
{
    uint64_t epoch = out->epoch;
    box__decision_response__init(out);
    out->request_id = req->request_id;
    out->epoch = epoch;
    out->verdict = d->wd_log.dd_permit ? BOX__VERDICT__VERDICT_PERMIT
                                       : BOX__VERDICT__VERDICT_DENY;
}

/* Decides one request into out (strings borrowed from sc until packed)
 * and logs it. */
static void
server_decide_one(pdp_server *s, pdp_gen *g, pdp_scratch *sc,
                  const Box__DecisionRequest *req, Box__DecisionResponse *out)
{
    pdp_wire_decided d;
    server_decide(s, g, sc, req, out, &d);
    if (s->sv_log != NULL &&
        pdp_dlog_decision_add(s->sv_log, &d.wd_log) != BOX_OK)
        box_log(BOX_LOG_ERROR, PDP_SVC, "a decision could not be logged");
    if (req->cached)
        server_report_answer(req, &d, out);
}

/* NULL when every index of b's order names one of its reports, else why
 * not. */
static const char *
server_order_fault(const Box__DecisionBatch *b)
{
    if (b->n_order > BOX_PDP_ORDER_MAX)
        return "a batch's order lists at most " BOX_PDP_ORDER_MAX_TEXT
               " reports";
    for (size_t k = 0; k < b->n_order; k++)
        if (b->order[k] >= b->n_requests || !b->requests[b->order[k]]->cached)
            return "a batch's order names a request that is not a report "
                   "in it";
    return NULL;
}

/*
 * A batch whose reports come once each, with the order they were served
 * in (DecisionBatch.order): each report is decided and its record rendered
 * once, then logged once per index, in order; then the other requests
 * are decided and logged in turn. Answers land in cells, one a request.
 */
static void
server_decide_ordered(pdp_server *s, pdp_gen *g, pdp_scratch *sc,
                      const Box__DecisionBatch *b, Box__DecisionResponse *cells)
{
    size_t lost = 0;
    pdp_dlog_tmpl **t = box_calloc(b->n_requests, sizeof *t);
    for (size_t i = 0; i < b->n_requests; i++) {
        const Box__DecisionRequest *req = b->requests[i];
        if (!req->cached)
            continue;
        pdp_wire_decided d;
        server_decide(s, g, sc, req, &cells[i], &d);
        // One that cannot be rendered stays NULL: its records are counted
        // lost below.
        if (t != NULL && s->sv_log != NULL &&
            pdp_dlog_tmpl_make(s->sv_log, &d.wd_log, &t[i]) != BOX_OK)
            t[i] = NULL;
        server_report_answer(req, &d, &cells[i]);
    }
    for (size_t k = 0; s->sv_log != NULL && k < b->n_order; k++) {
        const pdp_dlog_tmpl *one = t != NULL ? t[b->order[k]] : NULL;
        if (one == NULL || pdp_dlog_tmpl_add(s->sv_log, one) != BOX_OK)
            lost++;
    }
    if (lost > 0)
        box_log(BOX_LOG_ERROR, PDP_SVC,
                "%zu reported decision%s could not be logged", lost,
                lost == 1 ? "" : "s");
    for (size_t i = 0; t != NULL && i < b->n_requests; i++)
        pdp_dlog_tmpl_free(t[i]);
    box_free(t);
    for (size_t i = 0; i < b->n_requests; i++)
        if (!b->requests[i]->cached) {
            server_decide_one(s, g, sc, b->requests[i], &cells[i]);
            pdp_wire_response_own(sc->sc_arena, &cells[i]);
        }
}

static void
server_error(Box__PdpResponse *resp, Box__ErrorReply *e, Box__ErrorCode code,
             const char *msg)
{
    e->code = code;
    e->message = (char *)msg;
    resp->body_case = BOX__PDP_RESPONSE__BODY_ERROR;
    resp->error = e;
}

static void
server_handle(void *arg, const void *req, size_t len, nng_msg *reply)
{
    pdp_server *s = arg;
    Box__PdpResponse resp = BOX__PDP_RESPONSE__INIT;
    Box__ErrorReply e = BOX__ERROR_REPLY__INIT;
    Box__HealthResponse h = BOX__HEALTH_RESPONSE__INIT;
    Box__DecisionResponse one = BOX__DECISION_RESPONSE__INIT;
    Box__DecisionBatchResponse batch = BOX__DECISION_BATCH_RESPONSE__INIT;
    Box__EventAck ack = BOX__EVENT_ACK__INIT;
    Box__PdpRequest *r = NULL;
    box_wire_scan_result why;
    pdp_gen *g = NULL;
    pdp_scratch *sc = NULL;
    char *detail = NULL, *gen_error = NULL;

    if (len > BOX_PDP_MSG_MAX) {
        server_error(&resp, &e, BOX__ERROR_CODE__ERROR_TOO_LARGE,
                     "request over the PDP's message limit");
        goto send;
    }
    if ((sc = scratch_get(s)) == NULL) {
        server_error(&resp, &e, BOX__ERROR_CODE__ERROR_UNAVAILABLE,
                     "out of memory");
        goto send;
    }
    // Nesting is bounded before protobuf-c recurses into the bytes.
    if ((r = (Box__PdpRequest *)box_wire_scan_unpack_in(
             sc->sc_msg, &box__pdp_request__descriptor, BOX_WIRE_SCAN_ANY, req,
             len, &why)) == NULL) {
        bool nomem = why.sr_fault == BOX_WIRE_SCAN_NOMEM;
        const char *msg =
            nomem ? "out of memory"
            : why.sr_fault == BOX_WIRE_SCAN_TOO_DEEP
                ? "request nests messages deeper than " BOX_WIRE_DEPTH_MAX_TEXT
                : "request did not decode";
        server_error(&resp, &e,
                     nomem ? BOX__ERROR_CODE__ERROR_UNAVAILABLE
                           : BOX__ERROR_CODE__ERROR_MALFORMED,
                     msg);
        goto send;
    }
    g = gen_acquire(s);
    switch (r->body_case) {
    case BOX__PDP_REQUEST__BODY_HEALTH:
        h.service = PDP_SVC;
        h.version = BOX_VERSION;
        h.ready = 1;
        h.pid = (uint32_t)getpid();
        h.epoch = g->g_epoch;
        h.uptime_ms = box_svc_now_ms() - s->sv_started_ms;
        pthread_mutex_lock(&s->sv_gen_lock);
        detail = s->sv_last_refusal ? box_strdup(s->sv_last_refusal) : NULL;
        gen_error = s->sv_gen_error ? box_strdup(s->sv_gen_error) : NULL;
        pthread_mutex_unlock(&s->sv_gen_lock);
        h.detail = detail ? detail : "";
        h.generation_error = gen_error ? gen_error : "";
        resp.body_case = BOX__PDP_RESPONSE__BODY_HEALTH;
        resp.health = &h;
        break;
    case BOX__PDP_REQUEST__BODY_DECIDE:
        server_decide_one(s, g, sc, r->decide, &one);
        resp.body_case = BOX__PDP_RESPONSE__BODY_DECIDE;
        resp.decide = &one;
        break;
    case BOX__PDP_REQUEST__BODY_DECIDE_BATCH: {
        size_t n = r->decide_batch->n_requests;
        if (n == 0 || n > BOX_PDP_BATCH_MAX) {
            server_error(&resp, &e, BOX__ERROR_CODE__ERROR_INVALID,
                         "a batch holds 1 to 512 decisions");
            break;
        }
        Box__DecisionResponse **outs =
            box_arena_zalloc(sc->sc_arena, n * sizeof *outs);
        Box__DecisionResponse *cells =
            box_arena_zalloc(sc->sc_arena, n * sizeof *cells);
        if (outs == NULL || cells == NULL) {
            server_error(&resp, &e, BOX__ERROR_CODE__ERROR_UNAVAILABLE,
                         "out of memory");
            break;
        }
        const char *fault = server_order_fault(r->decide_batch);
        if (fault != NULL) {
            server_error(&resp, &e, BOX__ERROR_CODE__ERROR_INVALID, fault);
            break;
        }
        for (size_t i = 0; i < n; i++) {
            box__decision_response__init(&cells[i]);
            outs[i] = &cells[i];
        }
        // One generation for the whole batch; the answer scratch is reused
        // per decision, so each response is copied into the arena.
        if (r->decide_batch->n_order > 0) {
            server_decide_ordered(s, g, sc, r->decide_batch, cells);
        } else {
            for (size_t i = 0; i < n; i++) {
                server_decide_one(s, g, sc, r->decide_batch->requests[i],
                                  &cells[i]);
                if (!r->decide_batch->requests[i]->cached) // else borrows none
                    pdp_wire_response_own(sc->sc_arena, &cells[i]);
            }
        }
        batch.n_responses = n;
        batch.responses = outs;
        resp.body_case = BOX__PDP_RESPONSE__BODY_DECIDE_BATCH;
        resp.decide_batch = &batch;
        break;
    }
    case BOX__PDP_REQUEST__BODY_RECORD:
        // Outcome events for the history temporal rules read; the ack
        // counts those taken (a malformed one is dropped, logged).
        for (size_t i = 0; i < r->record->n_events; i++) {
            box_err rrv = pdp_wire_record(g->g_set, s->sv_live, g->g_epoch,
                                          sc->sc_arena, r->record->events[i]);
            if (rrv == BOX_OK)
                ack.accepted++;
            else
                box_log(BOX_LOG_WARN, PDP_SVC,
                        "an outcome event was not "
                        "recorded: %s",
                        box_strerror(rrv));
            box_arena_reset(sc->sc_arena);
        }
        resp.body_case = BOX__PDP_RESPONSE__BODY_RECORD;
        resp.record = &ack;
        break;
    default:
        server_error(&resp, &e, BOX__ERROR_CODE__ERROR_INVALID,
                     "unknown request kind");
        break;
    }
send:
    if (box_rpc_msg_pack(reply, &resp.base) != BOX_OK)
        nng_msg_clear(reply); // decodes to no body: the client refuses
    if (sc != NULL)
        scratch_put(s, sc);
    gen_release(g);
    box_free(detail);
    box_free(gen_error);
}

/* A connection from anything but this box's shell, gateway or our parent
 * is closed before it carries a request: nothing decided, nothing logged
 * (issue 17: a leaf that reached the socket asked anything and forged
 * decision-log lines). */
static bool
server_peer(void *arg, const box_rpc_peer *p)
{
    return pdp_peers_allow(arg, p->rp_known, p->rp_pid, p->rp_uid);
}

/* ------------------------------------------------------------------ */
/* Start / stop                                                        */
/* ------------------------------------------------------------------ */

box_err
pdp_server_start(const pdp_server_opts *o, pdp_server **out, char **err)
{
    box_err rv = BOX_ENOMEM;
    pdp_policy_set *set = NULL;
    *err = NULL;
    if (o->so_peers == NULL)
        return BOX_EINVAL;
    pdp_server *s = box_calloc(1, sizeof *s);
    if (s == NULL)
        return BOX_ENOMEM;
    s->sv_peers = o->so_peers;
    pthread_mutex_init(&s->sv_gen_lock, NULL);
    pthread_mutex_init(&s->sv_reload_lock, NULL);
    pthread_mutex_init(&s->sv_scratch_lock, NULL);
    s->sv_started_ms = box_svc_now_ms();
    if ((s->sv_live = pdp_live_new(NULL, NULL)) == NULL)
        goto fail;
    if (o->so_history != NULL) {
        char *warn = NULL;
        if ((rv = pdp_live_open(s->sv_live, o->so_history, &warn, err)) !=
            BOX_OK)
            goto fail;
        if (warn != NULL) {
            box_log(BOX_LOG_WARN, PDP_SVC, "%s", warn);
            box_free(warn);
        }
        box_log(BOX_LOG_INFO, PDP_SVC, "history %s: %zu events replayed",
                o->so_history, pdp_live_events(s->sv_live));
    }
    if (o->so_policy != NULL &&
        (s->sv_policy = box_strdup(o->so_policy)) == NULL)
        goto fail;
    if (o->so_home != NULL && (s->sv_home = box_strdup(o->so_home)) == NULL)
        goto fail;
    if (o->so_log != NULL) {
        pdp_dlog_ident id = {.di_box_id = o->so_box_id,
                             .di_run_id = o->so_run_id};
        if ((rv = pdp_dlog_open(o->so_log, &id, o->so_log_queue, &s->sv_log)) !=
            BOX_OK) {
            *err = box_asprintf("cannot open the decision log %s: %s",
                                o->so_log, strerror(errno));
            goto fail;
        }
    }
    if (o->so_epoch_pub != NULL) {
        rv = BOX_EIO;
        if (nng_pub0_open(&s->sv_pub) != 0)
            goto fail;
        s->sv_pub_open = true;
        if (nng_listen(s->sv_pub, o->so_epoch_pub, NULL, 0) != 0) {
            *err = box_asprintf("cannot listen on %s", o->so_epoch_pub);
            goto fail;
        }
    }
    if ((rv = gen_load(s, &set, err)) != BOX_OK) {
        if (s->sv_log != NULL &&
            pdp_dlog_control_add(s->sv_log, "policy_refused", "refused",
                                 s->sv_policy, *err) != BOX_OK)
            box_log(BOX_LOG_WARN, PDP_SVC, "policy_refused record not logged");
        goto fail;
    }
    // A generation that is in force but whose notice did not go out does
    // not stop the start (no client subscribes before we listen); health
    // shows it. One that did not install does.
    char *gerr = NULL;
    rv = gen_install(s, set, &gerr);
    if (s->sv_gen == NULL) {
        *err = gerr;
        goto fail;
    }
    box_free(gerr);
    rv = box_rpc_server_start_checked(o->so_listen,
                                      o->so_contexts > 0 ? o->so_contexts
                                                         : PDP_CONTEXTS_DEFAULT,
                                      BOX_PDP_TRANSPORT_MAX, server_handle, s,
                                      server_peer, s->sv_peers, &s->sv_rpc);
    if (rv != BOX_OK) {
        *err = box_asprintf("cannot listen on %s: %s", o->so_listen,
                            box_strerror(rv));
        goto fail;
    }
    *out = s;
    return BOX_OK;
fail:
    pdp_server_stop(s);
    return rv;
}

void
pdp_server_stop(pdp_server *s)
{
    if (s == NULL)
        return;
    box_rpc_server_stop(s->sv_rpc); // waits for handlers in flight
    if (s->sv_pub_open)
        box_rpc_close_socket(s->sv_pub);
    pdp_dlog_close(s->sv_log);
    gen_release(s->sv_gen);
    pdp_live_free(s->sv_live);
    while (s->sv_scratch != NULL) {
        pdp_scratch *sc = s->sv_scratch;
        s->sv_scratch = sc->sc_next;
        scratch_free(sc);
    }
    box_free(s->sv_policy);
    box_free(s->sv_home);
    box_free(s->sv_last_refusal);
    box_free(s->sv_gen_error);
    pthread_mutex_destroy(&s->sv_gen_lock);
    pthread_mutex_destroy(&s->sv_reload_lock);
    pthread_mutex_destroy(&s->sv_scratch_lock);
    box_free(s);
}
