/* SPDX-License-Identifier: Apache-2.0 */
/* PDP client: deadlines, fail-closed answers, the per-epoch permit cache. */
#include "box_pdp_client.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>

#include <nng/nng.h>
#include <nng/protocol/pubsub0/sub.h>

#include "box_alloc.h"
#include "box_hash.h"
#include "box_buf.h"
#include "box_log.h"
#include "box_repeats.h"
#include "box_reqpack.h"
#include "box_rpc.h"
#include "box_svc.h"
#include "box_wire.h"
#include "box_wire_scan.h"

#define CACHE_PROBE 8
#define CACHE_KEY_MAX 2048        // longer keys are never cached
#define REPORT_MAX 256            // distinct cached decisions waiting
#define REPORT_ORDER_MAX 8192     // all of them, repeats and all
#define REPORT_ONE_MAX 4096       // one's packed request, at most
#define REPORT_BYTES (128u << 10) // all of them, back to back
#define CANON_RECORD_MAX 32       // records with more fields are not keyed
#define CLIENT_MAX_RETRIES 3      // answers from an older generation

typedef struct cache_entry {
    uint64_t ce_hash;
    uint64_t ce_epoch; // 0 = empty
    uint32_t ce_len;
    uint8_t *ce_key;
    char *ce_rules;
    uint64_t ce_subgen;  // the notice connection the entry was made under
    uint64_t ce_born_ms; // when it was made (cache_now_ms)
    // An exact key (a request's packed report form, see report_form) is
    // also the report of each hit on it: while the report queue's batch
    // ce_rep_batch holds it, at index ce_rep_idx, a hit appends the index.
    uint32_t ce_rep_idx;
    uint64_t ce_rep_batch; // 0: in no batch
} cache_entry;

/*
 * The context.input fields the PDP said an action's permits depend on
 * (DecisionResponse.cache_fields), for the epoch that said it: entries of
 * that action are keyed on those fields' values and the other fields'
 * kinds, so `[ $i -lt 10 ]` in a loop hits the entry `[ 0 -lt 10 ]` made
 * when no rule reads the arguments.
 */
#define NARROW_MAX 32 // actions per epoch; more are keyed on everything
typedef struct narrow_entry {
    uint64_t ne_epoch; // 0 = empty
    char *ne_action;
    char **ne_fields;
    size_t ne_n;
} narrow_entry;

struct box_pdp_client {
    box_rpc_client *pc_rpc;
    char *pc_url;
    char *pc_box_id;
    int pc_timeout_ms;
    _Atomic uint64_t pc_epoch;

    // Epoch notices.
    nng_socket pc_sub;
    bool pc_sub_open;
    nng_aio *pc_sub_aio;
    // Bumped on every connect and disconnect of the notice socket; odd
    // while connected. A notice may be lost while disconnected, so an
    // entry is served only under the same unbroken connection it was
    // made under.
    _Atomic uint64_t pc_subgen;
    // co_valid, or NULL: changed with every epoch raise and every notice
    // connection change, odd while cached permits may be served.
    _Atomic uint64_t *pc_valid;

    // Cache and the reports of its hits, under one lock.
    pthread_mutex_t pc_lock;
    cache_entry *pc_cache;
    size_t pc_cache_mask;    // slots - 1, or 0 with no cache
    uint64_t pc_cache_epoch; // the epoch the entries belong to
    // A cached permit is served this long at most.
    uint64_t pc_cache_max_age_ms;
    narrow_entry pc_narrow[NARROW_MAX];
    // The packed requests of hits not yet reported: each distinct one
    // once, with the order of all (a loop's permit served a thousand
    // times is one request to decide and render), written in place (a
    // hit writes the next bytes of one buffer, not a slot of its own).
    box_repeats *pc_reports;
    uint64_t pc_rep_batch; // counts the queue's clears, from 1
    box_pdp_client_stats pc_stats;

    // The reporter thread (with the cache only): sends the reports when
    // asked (box_pdp_client_flush_soon), under pc_lock.
    pthread_t pc_reporter;
    bool pc_reporter_on;
    bool pc_report_wanted;
    bool pc_reporter_stop;
    pthread_cond_t pc_report_cv;
    // Round trips under way that carry reports. A decision waits for them
    // before it takes the next reports and goes out, so the log keeps a
    // call's order: its cached permits before the question that followed.
    unsigned pc_reports_inflight;
    pthread_cond_t pc_reports_landed;
};

static void narrow_clear(narrow_entry *n);
static void *client_reporter(void *arg);

/* Frees a NULL-ended list of owned strings. */
static void
fields_free(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        box_free(v[i]);
    box_free(v);
}

/* ------------------------------------------------------------------ */
/* Canonical key                                                       */
/* ------------------------------------------------------------------ */

typedef struct canon {
    uint8_t *c_buf;
    size_t c_len;
    size_t c_max;
    bool c_full;
} canon;

static void
canon_put(canon *c, const void *p, size_t n)
{
    if (c->c_full || n > c->c_max - c->c_len) {
        c->c_full = true;
        return;
    }
    if (n > 0) // p may be NULL then (a NULL string's no bytes)
        memcpy(c->c_buf + c->c_len, p, n);
    c->c_len += n;
}

static void
canon_u64(canon *c, uint64_t v)
{
    uint8_t b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (uint8_t)(v >> (56 - 8 * i));
    canon_put(c, b, 8);
}

static void
canon_bytes(canon *c, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    canon_u64(c, n);
    canon_put(c, s, n);
}

static void canon_value(canon *c, const Box__Value *v, int depth);

/* The indexes of r's fields (at most CANON_RECORD_MAX) in name order:
 * insertion sort, as records are small. */
static void
canon_order(const Box__ValueRecord *r, size_t idx[CANON_RECORD_MAX])
{
    size_t n = r ? r->n_fields : 0;
    for (size_t i = 0; i < n; i++) {
        size_t j = i;
        while (j > 0 &&
               strcmp(r->fields[idx[j - 1]]->name, r->fields[i]->name) > 0) {
            idx[j] = idx[j - 1];
            j--;
        }
        idx[j] = i;
    }
}

static void
canon_record(canon *c, const Box__ValueRecord *r, int depth)
{
    size_t n = r ? r->n_fields : 0;
    size_t idx[CANON_RECORD_MAX];
    if (n > CANON_RECORD_MAX) {
        c->c_full = true;
        return;
    }
    canon_order(r, idx);
    canon_u64(c, n);
    for (size_t i = 0; i < n; i++) {
        canon_bytes(c, r->fields[idx[i]]->name);
        canon_value(c, r->fields[idx[i]]->value, depth + 1);
    }
}

/* Sets keep their given order: two orderings of one set key differently,
 * which costs a cache miss, never a wrong answer. */
static void
canon_value(canon *c, const Box__Value *v, int depth)
{
    uint8_t tag = v ? (uint8_t)v->kind_case : 0;
    if (depth > 32) {
        c->c_full = true;
        return;
    }
    canon_put(c, &tag, 1);
    if (v == NULL)
        return;
    switch (v->kind_case) {
    case BOX__VALUE__KIND_STR:
        canon_bytes(c, v->str);
        break;
    case BOX__VALUE__KIND_LONG:
        canon_u64(c, (uint64_t)v->long_);
        break;
    case BOX__VALUE__KIND_BOOLEAN:
        canon_u64(c, v->boolean ? 1 : 0);
        break;
    case BOX__VALUE__KIND_SET:
        canon_u64(c, v->set ? v->set->n_elements : 0);
        for (size_t i = 0; v->set && i < v->set->n_elements; i++)
            canon_value(c, v->set->elements[i], depth + 1);
        break;
    case BOX__VALUE__KIND_RECORD:
        canon_record(c, v->record, depth);
        break;
    case BOX__VALUE__KIND_ENTITY:
        canon_bytes(c, v->entity ? v->entity->type : NULL);
        canon_bytes(c, v->entity ? v->entity->id : NULL);
        break;
    default:
        break;
    }
}

size_t
box_pdp_canon_key(const char *action, const Box__Value *input, uint8_t *buf,
                  size_t n)
{
    canon c = {.c_buf = buf, .c_max = n};
    canon_bytes(&c, action);
    canon_value(&c, input, 0);
    return c.c_full ? 0 : c.c_len;
}

/* The cache's keys are about a hundred bytes, hashed on every hit. */
static uint64_t
key_hash(const uint8_t *p, size_t n)
{
    return box_hash_words(p, n);
}

/* ------------------------------------------------------------------ */
/* Epochs                                                              */
/* ------------------------------------------------------------------ */

/* Raises the client's epoch to e (never lowers it). */
static void
client_see_epoch(box_pdp_client *c, uint64_t e)
{
    uint64_t cur = atomic_load(&c->pc_epoch);
    while (e > cur) {
        if (atomic_compare_exchange_weak(&c->pc_epoch, &cur, e)) {
            // Parity kept: it says whether notices are connected.
            if (c->pc_valid != NULL)
                atomic_fetch_add(c->pc_valid, 2);
            return;
        }
    }
}

static void
client_sub_cb(void *arg)
{
    box_pdp_client *c = arg;
    if (nng_aio_result(c->pc_sub_aio) != 0)
        return; // closed
    nng_msg *m = nng_aio_get_msg(c->pc_sub_aio);
    Box__EpochNotice *n = (Box__EpochNotice *)box_wire_scan_unpack(
        &box__epoch_notice__descriptor, BOX_WIRE_SCAN_ANY, nng_msg_body(m),
        nng_msg_len(m), NULL);
    if (n != NULL) {
        client_see_epoch(c, n->epoch);
        box__epoch_notice__free_unpacked(n, NULL);
    }
    nng_msg_free(m);
    nng_recv_aio(c->pc_sub, c->pc_sub_aio);
}

static void
client_sub_pipe_cb(nng_pipe p, nng_pipe_ev ev, void *arg)
{
    box_pdp_client *c = arg;
    (void)p;
    (void)ev;
    atomic_fetch_add(&c->pc_subgen, 1);
    if (c->pc_valid != NULL)
        atomic_fetch_add(c->pc_valid, 1);
}

/* True when cached answers may be served: notices are arriving. */
static bool
client_sub_live(box_pdp_client *c, uint64_t *gen)
{
    *gen = atomic_load(&c->pc_subgen);
    return (*gen & 1) != 0;
}

bool
box_pdp_client_cache_live(box_pdp_client *c)
{
    uint64_t g;
    return c->pc_cache != NULL && client_sub_live(c, &g);
}

/* ------------------------------------------------------------------ */
/* Open / close                                                        */
/* ------------------------------------------------------------------ */

box_err
box_pdp_client_open(const box_pdp_client_opts *o, box_pdp_client **out)
{
    box_err ret = BOX_ENOMEM;
    box_pdp_client *c = box_calloc(1, sizeof *c);
    if (c == NULL)
        return BOX_ENOMEM;
    pthread_mutex_init(&c->pc_lock, NULL);
    pthread_cond_init(&c->pc_report_cv, NULL);
    pthread_cond_init(&c->pc_reports_landed, NULL);
    atomic_init(&c->pc_epoch, 0);
    atomic_init(&c->pc_subgen, 0);
    // Even (nothing may be served) until the notice connection is up;
    // cleared in case the word held a value from an earlier client.
    if ((c->pc_valid = o->co_valid) != NULL)
        atomic_store(c->pc_valid, 0);
    c->pc_timeout_ms =
        o->co_timeout_ms > 0 ? o->co_timeout_ms : BOX_PDP_TIMEOUT_MS_DEFAULT;
    c->pc_cache_max_age_ms = (uint64_t)(o->co_cache_max_age_ms > 0
                                            ? o->co_cache_max_age_ms
                                            : BOX_PDP_CACHE_MAX_AGE_MS_DEFAULT);
    if ((c->pc_url = box_strdup(o->co_url)) == NULL)
        goto fail;
    if (o->co_box_id != NULL &&
        (c->pc_box_id = box_strdup(o->co_box_id)) == NULL)
        goto fail;
    // Without epoch notices a reload would go unseen by cached entries,
    // so there is no cache without them.
    if (o->co_cache_slots > 0 && o->co_epoch_url != NULL) {
        size_t slots = 1;
        while (slots < o->co_cache_slots)
            slots <<= 1;
        c->pc_rep_batch = 1;
        if ((c->pc_cache = box_calloc(slots, sizeof(cache_entry))) == NULL ||
            (c->pc_reports = box_repeats_new(REPORT_MAX, REPORT_BYTES,
                                             REPORT_ORDER_MAX)) == NULL)
            goto fail;
        c->pc_cache_mask = slots - 1;
    }
    if ((ret = box_rpc_client_open(o->co_url, c->pc_timeout_ms, &c->pc_rpc)) !=
        BOX_OK)
        goto fail;
    if (o->co_epoch_url != NULL) {
        ret = BOX_ECLOSED;
        if (nng_sub0_open(&c->pc_sub) != 0)
            goto fail;
        c->pc_sub_open = true;
        (void)nng_socket_set_ms(c->pc_sub, NNG_OPT_RECONNMINT, 10);
        (void)nng_socket_set_ms(c->pc_sub, NNG_OPT_RECONNMAXT, 200);
        if (nng_pipe_notify(c->pc_sub, NNG_PIPE_EV_ADD_POST, client_sub_pipe_cb,
                            c) != 0 ||
            nng_pipe_notify(c->pc_sub, NNG_PIPE_EV_REM_POST, client_sub_pipe_cb,
                            c) != 0 ||
            nng_socket_set(c->pc_sub, NNG_OPT_SUB_SUBSCRIBE, "", 0) != 0 ||
            nng_aio_alloc(&c->pc_sub_aio, client_sub_cb, c) != 0 ||
            nng_dial(c->pc_sub, o->co_epoch_url, NULL, NNG_FLAG_NONBLOCK) != 0)
            goto fail;
        nng_recv_aio(c->pc_sub, c->pc_sub_aio);
    }
    if (c->pc_reports != NULL) {
        if (pthread_create(&c->pc_reporter, NULL, client_reporter, c) != 0) {
            ret = BOX_ENOMEM;
            goto fail;
        }
        c->pc_reporter_on = true;
    }
    *out = c;
    return BOX_OK;
fail:
    box_pdp_client_close(c);
    return ret;
}

void
box_pdp_client_close(box_pdp_client *c)
{
    if (c == NULL)
        return;
    if (c->pc_reporter_on) {
        pthread_mutex_lock(&c->pc_lock);
        c->pc_reporter_stop = true;
        pthread_cond_signal(&c->pc_report_cv);
        pthread_mutex_unlock(&c->pc_lock);
        pthread_join(c->pc_reporter, NULL);
    }
    // Close first: the pending receive then ends with NNG_ECLOSED and the
    // callback does not re-arm; freeing the aio waits for that callback.
    if (c->pc_sub_open)
        box_rpc_close_socket(c->pc_sub);
    if (c->pc_sub_aio != NULL)
        nng_aio_free(c->pc_sub_aio);
    box_rpc_client_close(c->pc_rpc);
    for (size_t i = 0; c->pc_cache != NULL && i <= c->pc_cache_mask; i++) {
        box_free(c->pc_cache[i].ce_key);
        box_free(c->pc_cache[i].ce_rules);
    }
    for (size_t i = 0; i < NARROW_MAX; i++)
        narrow_clear(&c->pc_narrow[i]);
    box_free(c->pc_cache);
    box_repeats_free(c->pc_reports);
    box_free(c->pc_url);
    box_free(c->pc_box_id);
    pthread_cond_destroy(&c->pc_report_cv);
    pthread_cond_destroy(&c->pc_reports_landed);
    pthread_mutex_destroy(&c->pc_lock);
    box_free(c);
}

uint64_t
box_pdp_client_epoch(const box_pdp_client *c)
{
    return atomic_load(&((box_pdp_client *)c)->pc_epoch);
}

void
box_pdp_client_stats_get(const box_pdp_client *c, box_pdp_client_stats *s)
{
    box_pdp_client *m = (box_pdp_client *)c;
    pthread_mutex_lock(&m->pc_lock);
    *s = m->pc_stats;
    pthread_mutex_unlock(&m->pc_lock);
}

void
box_pdp_answer_clear(box_pdp_answer *a)
{
    box_free(a->pa_message);
    box_free(a->pa_rules);
    fields_free(a->pa_cache_fields);
    memset(a, 0, sizeof *a);
}

/* ------------------------------------------------------------------ */
/* Narrowed keys (callers hold pc_lock)                                */
/* ------------------------------------------------------------------ */

/* A copy of n strings (NULL-ended, all owned), or NULL. */
static char **
fields_dup(char *const *src, size_t n)
{
    char **v = box_calloc(n + 1, sizeof *v);
    for (size_t i = 0; v != NULL && i < n; i++) {
        if ((v[i] = box_strdup(src[i] ? src[i] : "")) == NULL) {
            fields_free(v);
            return NULL;
        }
    }
    return v;
}

static void
narrow_clear(narrow_entry *n)
{
    box_free(n->ne_action);
    fields_free(n->ne_fields);
    memset(n, 0, sizeof *n);
}

/* The fields action's permits depend on in epoch, or NULL: not known. */
static const narrow_entry *
narrow_find(const box_pdp_client *c, const char *action, uint64_t epoch)
{
    for (size_t i = 0; i < NARROW_MAX; i++) {
        const narrow_entry *n = &c->pc_narrow[i];
        if (n->ne_epoch == epoch && strcmp(n->ne_action, action) == 0)
            return n;
    }
    return NULL;
}

/* Records what a permit of epoch said of action (a's cache fields).
 * Every permit of one generation says the same; the first is kept. */
static void
narrow_note(box_pdp_client *c, const char *action, uint64_t epoch,
            const box_pdp_answer *a)
{
    narrow_entry *free_slot = NULL;
    if (!a->pa_cache_fields_known || narrow_find(c, action, epoch) != NULL)
        return;
    for (size_t i = 0; i < NARROW_MAX && free_slot == NULL; i++)
        if (c->pc_narrow[i].ne_epoch != epoch)
            free_slot = &c->pc_narrow[i];
    if (free_slot == NULL)
        return; // keyed on everything: always safe
    narrow_clear(free_slot);
    free_slot->ne_action = box_strdup(action);
    free_slot->ne_fields = fields_dup(a->pa_cache_fields, a->pa_ncache_fields);
    if (free_slot->ne_action == NULL || free_slot->ne_fields == NULL) {
        narrow_clear(free_slot);
        return;
    }
    free_slot->ne_n = a->pa_ncache_fields;
    free_slot->ne_epoch = epoch;
}

static bool
fields_has(char *const *fields, size_t n, const char *field)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(fields[i], field) == 0)
            return true;
    return false;
}

/*
 * The key of a request whose action's permits depend only on these
 * fields: a mark no full key starts with, the action, then every input
 * field by name with its kind, and its value only when fields names it.
 * The shape is kept whole (the PDP refuses a request whose fields are
 * missing, extra or mistyped), so only values a rule never reads are left
 * out.
 */
size_t
box_pdp_narrow_key(const char *action, const Box__Value *input,
                   char *const *fields, size_t nfields, uint8_t *buf,
                   size_t max)
{
    static const uint8_t mark = 0xff;
    canon c = {.c_buf = buf, .c_max = max};
    if (input == NULL || input->kind_case != BOX__VALUE__KIND_RECORD ||
        input->record == NULL || input->record->n_fields > CANON_RECORD_MAX)
        return 0;
    const Box__ValueRecord *r = input->record;
    size_t idx[CANON_RECORD_MAX];
    canon_order(r, idx);
    canon_put(&c, &mark, 1);
    canon_bytes(&c, action ? action : "");
    canon_u64(&c, r->n_fields);
    for (size_t i = 0; i < r->n_fields; i++) {
        const Box__RecordField *f = r->fields[idx[i]];
        canon_bytes(&c, f->name);
        if (fields_has(fields, nfields, f->name)) {
            canon_value(&c, f->value, 1);
        } else {
            uint8_t tag = f->value ? (uint8_t)f->value->kind_case : 0;
            canon_put(&c, &tag, 1);
        }
    }
    return c.c_full ? 0 : c.c_len;
}

/* The request's cache key in buf: narrowed when the PDP said which
 * fields matter to this action in epoch, else the whole input. */
static size_t
cache_key(const box_pdp_client *c, const Box__DecisionRequest *req,
          uint64_t epoch, uint8_t *buf, size_t max)
{
    const narrow_entry *n =
        epoch != 0 && req->action ? narrow_find(c, req->action, epoch) : NULL;
    if (n != NULL)
        return box_pdp_narrow_key(req->action, req->input, n->ne_fields,
                                  n->ne_n, buf, max);
    return box_pdp_canon_key(req->action, req->input, buf, max);
}

/* ------------------------------------------------------------------ */
/* Cache (callers hold pc_lock)                                        */
/* ------------------------------------------------------------------ */

/* The clock of entries' ages: the coarse clock costs a fifth of the
 * precise one (6 against 29 ns measured), and a maximum age is seconds
 * long, so a tick's lag does not matter. */
static uint64_t
cache_now_ms(void)
{
    return box_svc_clock_ns(CLOCK_MONOTONIC_COARSE) / 1000000u;
}

/* Entries of an older epoch are dead; this makes the drop explicit. */
static void
cache_sync_epoch(box_pdp_client *c, uint64_t epoch)
{
    if (c->pc_cache_epoch != epoch) {
        if (c->pc_cache_epoch != 0)
            c->pc_stats.cs_drops++;
        c->pc_cache_epoch = epoch;
    }
}

/* The live entry for key, or NULL. An entry past its maximum age is
 * dead even in the right epoch, as a notice may have been lost (one made
 * by another thread after now_ms was read also misses: a miss is always
 * safe). */
static cache_entry *
cache_find(box_pdp_client *c, uint64_t h, const uint8_t *key, size_t n,
           uint64_t epoch, uint64_t subgen, uint64_t now_ms)
{
    for (size_t i = 0; i < CACHE_PROBE; i++) {
        cache_entry *e = &c->pc_cache[(h + i) & c->pc_cache_mask];
        if (e->ce_epoch == epoch && e->ce_subgen == subgen && e->ce_hash == h &&
            e->ce_len == n && memcmp(e->ce_key, key, n) == 0)
            return now_ms - e->ce_born_ms < c->pc_cache_max_age_ms ? e : NULL;
    }
    return NULL;
}

static void
cache_insert(box_pdp_client *c, uint64_t h, const uint8_t *key, size_t n,
             uint64_t epoch, uint64_t subgen, const char *rules)
{
    // The key's own entry first (expired, or made under an older notice
    // connection): cache_find serves the first match, so a fresh copy in
    // a later slot would never be seen. Else an entry of an older epoch.
    cache_entry *victim = NULL, *same = NULL;
    for (size_t i = 0; i < CACHE_PROBE && same == NULL; i++) {
        cache_entry *e = &c->pc_cache[(h + i) & c->pc_cache_mask];
        if (e->ce_epoch == epoch && e->ce_hash == h && e->ce_len == n &&
            memcmp(e->ce_key, key, n) == 0)
            same = e;
        else if (victim == NULL && e->ce_epoch != epoch)
            victim = e;
    }
    if (same != NULL)
        victim = same;
    if (victim == NULL)
        victim = &c->pc_cache[h & c->pc_cache_mask];
    uint8_t *k = box_alloc(n);
    char *r = rules ? box_strdup(rules) : NULL;
    if (k == NULL || (rules != NULL && r == NULL)) {
        box_free(k);
        box_free(r);
        return; // not caching is always safe
    }
    memcpy(k, key, n);
    box_free(victim->ce_key);
    box_free(victim->ce_rules);
    *victim = (cache_entry){.ce_hash = h,
                            .ce_epoch = epoch,
                            .ce_len = (uint32_t)n,
                            .ce_key = k,
                            .ce_rules = r,
                            .ce_subgen = subgen,
                            .ce_born_ms = cache_now_ms()};
}

/*
 * The request as a hit report carries it: marked cached, with the epoch of
 * the permit served, and no request id (the log has none, and the answer
 * to a report goes unread), so a permit served again and again is one
 * report and its indices, from every caller. Packed (box_reqpack), these
 * bytes are also the request's exact key: an entry under it serves only
 * this very request, so a hit costs one packing, which the report needed
 * anyway, and no canonical walk. Exact keys never collide with the others:
 * a packed request starts with a field tag, a full key with a zero byte,
 * a narrowed key with 0xff.
 */
static Box__DecisionRequest
report_form(const Box__DecisionRequest *req, uint64_t epoch)
{
    Box__DecisionRequest form = *req;
    form.request_id = 0;
    form.cached = 1;
    form.cached_epoch = epoch;
    return form;
}

/* Room for one more report of up to n bytes: where it goes, or NULL. */
static uint8_t *
report_room(box_pdp_client *c, size_t n, size_t *room)
{
    uint8_t *p = box_repeats_room(c->pc_reports, room);
    if (p == NULL || n > REPORT_ONE_MAX || n > *room)
        return NULL;
    if (*room > REPORT_ONE_MAX)
        *room = REPORT_ONE_MAX;
    return p;
}

/* Keeps the n bytes just written at report_room's place as a report. */
static bool
report_keep(box_pdp_client *c, size_t n)
{
    return box_repeats_keep(c->pc_reports, n) == BOX_OK;
}

/* Queues a packed report form. False if there is no room; the caller
 * then asks the PDP, which logs it as a normal decision. */
static bool
report_push_form(box_pdp_client *c, const uint8_t *form, size_t n)
{
    size_t room;
    uint8_t *p = report_room(c, n, &room);
    if (p == NULL)
        return false;
    memcpy(p, form, n);
    return report_keep(c, n);
}

/* Queues the report of a hit on the entry found by a request's exact key
 * (keys of the other kinds never equal one): that key is the report,
 * appended as an index when this batch holds it already. */
static bool
report_push_exact(box_pdp_client *c, cache_entry *e)
{
    if (e->ce_rep_batch == c->pc_rep_batch)
        return box_repeats_again(c->pc_reports, e->ce_rep_idx) == BOX_OK;
    if (!report_push_form(c, e->ce_key, e->ce_len))
        return false;
    e->ce_rep_batch = c->pc_rep_batch;
    e->ce_rep_idx = (uint32_t)box_repeats_last(c->pc_reports);
    return true;
}

/* Keeps a hit's request so the PDP can log it: the request that was
 * served, packed whole as report_form makes it (its input and subject are
 * its own: a narrowed key serves requests whose other fields differ).
 * False if there is no room. */
static bool
report_push(box_pdp_client *c, const Box__DecisionRequest *req, uint64_t epoch)
{
    Box__DecisionRequest copy = report_form(req, epoch);
    size_t room, len;
    uint8_t *at = report_room(c, 0, &room);
    if (at == NULL)
        return false;
    uint8_t *p = box_reqpack_any(&copy, at, room, &len);
    if (p == NULL)
        return false;
    memmove(at, p, len);
    return report_keep(c, len);
}

/* ------------------------------------------------------------------ */
/* Deciding                                                            */
/* ------------------------------------------------------------------ */

static void
answer_fail(box_pdp_client *c, box_pdp_answer *a, box_err why)
{
    memset(a, 0, sizeof *a);
    a->pa_verdict = BOX_VERDICT_FAULT;
    a->pa_reason = BOX__REASON_CLASS__REASON_INTERNAL_FAULT;
    if (why == BOX_ETIMEDOUT)
        a->pa_message = box_asprintf(
            "the policy decision point (box-pdp at %s) did not answer within "
            "%d ms, so the operation is refused",
            c->pc_url, c->pc_timeout_ms);
    else
        a->pa_message = box_asprintf(
            "the policy decision point (box-pdp at %s) could not be asked "
            "(%s), so the operation is refused",
            c->pc_url, box_strerror(why));
}

static void
answer_from(box_pdp_answer *a, const Box__DecisionResponse *r)
{
    memset(a, 0, sizeof *a);
    // Only an explicit permit with no error is a permit.
    a->pa_verdict = r->verdict == BOX__VERDICT__VERDICT_PERMIT &&
                            r->reason == BOX__REASON_CLASS__REASON_PERMITTED
                        ? BOX_VERDICT_PERMIT
                        : BOX_VERDICT_DENY;
    a->pa_reason = r->reason;
    a->pa_epoch = r->epoch;
    a->pa_cacheable = r->cacheable;
    a->pa_wants_outcomes = r->wants_outcomes;
    a->pa_message = box_strdup(r->message ? r->message : "");
    if (r->n_determining > 0) {
        box_buf b;
        box_buf_init(&b, 64 * 1024);
        for (size_t i = 0; i < r->n_determining; i++) {
            if ((i > 0 && box_buf_putc(&b, ',') != BOX_OK) ||
                box_buf_puts(&b, r->determining[i]->id ? r->determining[i]->id
                                                       : "") != BOX_OK)
                break;
        }
        a->pa_rules = box_buf_take(&b);
    }
    // Unknown unless the list came whole (a permit without it is keyed
    // on the whole input).
    if (r->cache_fields_known &&
        (a->pa_cache_fields = fields_dup(r->cache_fields, r->n_cache_fields)) !=
            NULL) {
        a->pa_ncache_fields = r->n_cache_fields;
        a->pa_cache_fields_known = true;
    }
}

/* Appends one length-delimited field (tag byte, length, bytes). */
static box_err
put_field(box_buf *b, uint8_t tag, const void *p, size_t n)
{
    box_err rv = box_buf_putc(b, (char)tag);
    if (rv == BOX_OK)
        rv = box_wire_put_varint(b, n);
    if (rv == BOX_OK)
        rv = box_buf_append(b, p, n);
    return rv;
}

/* Field tags of box.proto used to frame a batch by hand: hit reports are
 * already packed, so they are copied into the batch, never unpacked. */
#define TAG_BATCH_REQUESTS 0x0a   // DecisionBatch.requests = 1
#define TAG_BATCH_ORDER 0x12      // DecisionBatch.order = 2
#define TAG_PDP_DECIDE_BATCH 0x12 // PdpRequest.decide_batch = 2

/* One round trip: pending hit reports first, then the n requests. Answers
 * land in a[]; returns the transport result. */
static box_err
client_round_trip(box_pdp_client *c, const Box__DecisionRequest *const *reqs,
                  size_t n, box_pdp_answer *a)
{
    box_err ret = BOX_ENOMEM;
    box_buf batch, msg, order;
    size_t nrep = 0;
    ProtobufCMessage *m = NULL;
    box_buf_init(&batch, BOX_PDP_MSG_MAX);
    box_buf_init(&msg, BOX_PDP_MSG_MAX);
    box_buf_init(&order, BOX_PDP_MSG_MAX);

    pthread_mutex_lock(&c->pc_lock);
    while (n > 0 && c->pc_reports_inflight > 0)
        pthread_cond_wait(&c->pc_reports_landed, &c->pc_lock);
    if (c->pc_reports != NULL && box_repeats_entries(c->pc_reports) > 0) {
        // Lost for the log only, never for a verdict, if they do not fit.
        if (box_repeats_put_strings(c->pc_reports, &batch,
                                    TAG_BATCH_REQUESTS) == BOX_OK &&
            box_repeats_put_order(c->pc_reports, &order, TAG_BATCH_ORDER) ==
                BOX_OK)
            nrep = box_repeats_distinct(c->pc_reports);
        else
            box_buf_truncate(&batch, 0);
        box_repeats_clear(c->pc_reports);
        c->pc_rep_batch++; // entries' report indices name the old batch
    }
    if (nrep > 0)
        c->pc_reports_inflight++;
    pthread_mutex_unlock(&c->pc_lock);
    if (nrep + n == 0) {
        ret = BOX_OK;
        goto out;
    }

    bool single = nrep == 0 && n == 1;
    for (size_t i = 0; i < n; i++) {
        Box__DecisionRequest one = *reqs[i];
        if (c->pc_box_id != NULL && (one.box_id == NULL || !*one.box_id))
            one.box_id = c->pc_box_id;
        size_t len = box__decision_request__get_packed_size(&one);
        uint8_t stackbuf[1024];
        uint8_t *p = len <= sizeof stackbuf ? stackbuf : box_alloc(len);
        if (p == NULL)
            goto out;
        box__decision_request__pack(&one, p);
        // A single request goes as PdpRequest.decide (field 1).
        ret = put_field(single ? &msg : &batch,
                        single ? 0x0a : TAG_BATCH_REQUESTS, p, len);
        if (p != stackbuf)
            box_free(p);
        if (ret != BOX_OK)
            goto out;
    }
    // The order, if any, after every request: its indices name reports.
    if (!single &&
        ((ret = box_buf_append(&batch, order.b_data, order.b_len)) != BOX_OK ||
         (ret = put_field(&msg, TAG_PDP_DECIDE_BATCH, batch.b_data,
                          batch.b_len)) != BOX_OK))
        goto out;
    ret = box_rpc_call_raw(c->pc_rpc, msg.b_data, msg.b_len,
                           &box__pdp_response__descriptor, &m);
    if (ret != BOX_OK)
        goto out;
    Box__PdpResponse *resp = (Box__PdpResponse *)m;
    ret = BOX_EPROTO;
    if (single && resp->body_case == BOX__PDP_RESPONSE__BODY_DECIDE) {
        answer_from(&a[0], resp->decide);
        ret = BOX_OK;
    } else if (!single &&
               resp->body_case == BOX__PDP_RESPONSE__BODY_DECIDE_BATCH &&
               resp->decide_batch->n_responses == nrep + n) {
        for (size_t i = 0; i < n; i++)
            answer_from(&a[i], resp->decide_batch->responses[nrep + i]);
        ret = BOX_OK;
    }
out:
    if (nrep > 0) {
        pthread_mutex_lock(&c->pc_lock);
        c->pc_reports_inflight--;
        pthread_cond_broadcast(&c->pc_reports_landed);
        pthread_mutex_unlock(&c->pc_lock);
    }
    if (m != NULL)
        protobuf_c_message_free_unpacked(m, NULL);
    box_buf_reset(&batch);
    box_buf_reset(&msg);
    box_buf_reset(&order);
    return ret;
}

box_err
box_pdp_client_flush(box_pdp_client *c)
{
    pthread_mutex_lock(&c->pc_lock);
    size_t pending =
        c->pc_reports != NULL ? box_repeats_entries(c->pc_reports) : 0;
    pthread_mutex_unlock(&c->pc_lock);
    if (pending == 0)
        return BOX_OK;
    return client_round_trip(c, NULL, 0, NULL);
}

void
box_pdp_client_flush_soon(box_pdp_client *c)
{
    // Reports exist only beside the cache, and the reporter with them
    // (open fails without it).
    pthread_mutex_lock(&c->pc_lock);
    if (c->pc_reports != NULL && box_repeats_entries(c->pc_reports) > 0 &&
        c->pc_reporter_on) {
        c->pc_report_wanted = true;
        pthread_cond_signal(&c->pc_report_cv);
    }
    pthread_mutex_unlock(&c->pc_lock);
}

/* Sends the reports each time it is asked to; on stop, once more for
 * what still waits. */
static void *
client_reporter(void *arg)
{
    box_pdp_client *c = arg;
    pthread_mutex_lock(&c->pc_lock);
    for (;;) {
        while (!c->pc_report_wanted && !c->pc_reporter_stop)
            pthread_cond_wait(&c->pc_report_cv, &c->pc_lock);
        bool last = c->pc_reporter_stop;
        c->pc_report_wanted = false;
        pthread_mutex_unlock(&c->pc_lock);
        box_err rv = box_pdp_client_flush(c);
        if (rv != BOX_OK)
            box_log(BOX_LOG_WARN, "box-pdp-client",
                    "decisions answered from a cache were not reported to "
                    "the PDP: %s",
                    box_strerror(rv));
        pthread_mutex_lock(&c->pc_lock);
        if (rv != BOX_OK)
            c->pc_stats.cs_report_faults++;
        if (last)
            break;
    }
    pthread_mutex_unlock(&c->pc_lock);
    return NULL;
}

box_err
box_pdp_decide_batch(box_pdp_client *c, const Box__DecisionRequest *const *reqs,
                     size_t n, box_pdp_answer *answers)
{
    box_err rv = BOX_OK;
    for (int attempt = 0;; attempt++) {
        uint64_t seen = atomic_load(&c->pc_epoch);
        rv = client_round_trip(c, reqs, n, answers);
        if (rv != BOX_OK) {
            for (size_t i = 0; i < n; i++)
                answer_fail(c, &answers[i], rv);
            return rv;
        }
        uint64_t oldest = UINT64_MAX, newest = 0;
        for (size_t i = 0; i < n; i++) {
            if (answers[i].pa_epoch < oldest)
                oldest = answers[i].pa_epoch;
            if (answers[i].pa_epoch > newest)
                newest = answers[i].pa_epoch;
        }
        client_see_epoch(c, newest);
        // An answer decided by a generation older than one this client
        // has already seen must not be used: ask again.
        if (oldest >= seen && oldest == newest)
            return BOX_OK;
        for (size_t i = 0; i < n; i++)
            box_pdp_answer_clear(&answers[i]);
        pthread_mutex_lock(&c->pc_lock);
        c->pc_stats.cs_retries++;
        pthread_mutex_unlock(&c->pc_lock);
        if (attempt + 1 >= CLIENT_MAX_RETRIES) {
            for (size_t i = 0; i < n; i++)
                answer_fail(c, &answers[i], BOX_EPROTO);
            return BOX_EPROTO;
        }
    }
}

/* The answer of a permit served from the cache. */
static void
answer_hit(box_pdp_answer *a, uint64_t epoch)
{
    *a = (box_pdp_answer){.pa_verdict = BOX_VERDICT_PERMIT,
                          .pa_reason = BOX__REASON_CLASS__REASON_PERMITTED,
                          .pa_epoch = epoch,
                          .pa_from_cache = true};
}

/*
 * The cache's answer to req, if it has one: true with *a a permit (its
 * report kept for the log). Never a system call or a round trip; false
 * for a miss, a request the cache does not take, or a full report queue
 * (a round trip then carries the reports). *subgen is the notice
 * generation read, and *cacheable whether req may go into the cache.
 */
static bool
client_cache_answer(box_pdp_client *c, const Box__DecisionRequest *req,
                    box_pdp_answer *a, uint64_t *subgen, bool *cacheable)
{
    uint8_t key[CACHE_KEY_MAX], exact[CACHE_KEY_MAX];
    const uint8_t *x = NULL; // the exact key, packed into exact's end
    size_t klen = 0, xlen = 0;
    *subgen = 0;
    // A request the client will refuse anyway is logged as enforced by the
    // PDP; it never comes from (or goes into) the cache.
    *cacheable = c->pc_cache != NULL && req->enforcement == NULL &&
                 client_sub_live(c, subgen);
    if (!*cacheable)
        return false;
    uint64_t now_ms = cache_now_ms();
    uint64_t epoch = atomic_load(&c->pc_epoch);
    // The report form, packed outside the lock: the exact key, and the
    // report of any hit.
    Box__DecisionRequest form = report_form(req, epoch);
    if (epoch != 0)
        x = box_reqpack(&form, exact, sizeof exact, &xlen);
    uint64_t xh = x != NULL ? key_hash(x, xlen) : 0;
    pthread_mutex_lock(&c->pc_lock);
    cache_sync_epoch(c, epoch);
    cache_entry *e =
        x != NULL ? cache_find(c, xh, x, xlen, epoch, *subgen, now_ms) : NULL;
    bool hit = e != NULL;
    if (!hit && epoch != 0 &&
        (klen = cache_key(c, req, epoch, key, sizeof key)) > 0)
        hit = cache_find(c, key_hash(key, klen), key, klen, epoch, *subgen,
                         now_ms) != NULL;
    if (hit && (e != NULL   ? report_push_exact(c, e)
                : x != NULL ? report_push_form(c, x, xlen)
                            : report_push(c, req, epoch))) {
        c->pc_stats.cs_hits++;
        pthread_mutex_unlock(&c->pc_lock);
        answer_hit(a, epoch);
        return true;
    }
    c->pc_stats.cs_misses++;
    pthread_mutex_unlock(&c->pc_lock);
    return false;
}

bool
box_pdp_decide_cached(box_pdp_client *c, const Box__DecisionRequest *req,
                      box_pdp_answer *a)
{
    uint64_t subgen;
    bool cacheable;
    memset(a, 0, sizeof *a);
    return client_cache_answer(c, req, a, &subgen, &cacheable);
}

box_err
box_pdp_decide(box_pdp_client *c, const Box__DecisionRequest *req,
               box_pdp_answer *a)
{
    uint8_t key[CACHE_KEY_MAX], exact[CACHE_KEY_MAX];
    const uint8_t *x = NULL;
    size_t klen = 0, xlen = 0;
    uint64_t subgen = 0;
    bool cacheable_rq = false;
    if (client_cache_answer(c, req, a, &subgen, &cacheable_rq))
        return BOX_OK;

    const Box__DecisionRequest *one[1] = {req};
    box_err rv = box_pdp_decide_batch(c, one, 1, a);
    if (rv != BOX_OK || !cacheable_rq || a->pa_verdict != BOX_VERDICT_PERMIT)
        return rv;
    // Cache only what the PDP marked cacheable (never an answer a temporal
    // rule could depend on), and only for the generation now in force.
    if (a->pa_cacheable) {
        Box__DecisionRequest form = report_form(req, a->pa_epoch);
        x = box_reqpack(&form, exact, sizeof exact, &xlen);
        pthread_mutex_lock(&c->pc_lock);
        uint64_t epoch = atomic_load(&c->pc_epoch);
        cache_sync_epoch(c, epoch);
        uint64_t now_gen;
        // Insert only if the notice connection did not break meanwhile.
        if (a->pa_epoch == epoch && client_sub_live(c, &now_gen) &&
            now_gen == subgen) {
            // The answer may say which fields matter: key on those from
            // now on (the lookup above may have used the whole input).
            narrow_note(c, req->action ? req->action : "", epoch, a);
            klen = cache_key(c, req, epoch, key, sizeof key);
            if (klen > 0)
                cache_insert(c, key_hash(key, klen), key, klen, epoch, subgen,
                             a->pa_rules);
            if (x != NULL)
                cache_insert(c, key_hash(x, xlen), x, xlen, epoch, subgen,
                             a->pa_rules);
        }
        pthread_mutex_unlock(&c->pc_lock);
    }
    return rv;
}

/* One `record` round trip of n events; BOX_OK when the PDP took all. */
static box_err
record_round_trip(box_pdp_client *c, Box__Event **evs, size_t n)
{
    Box__EventBatch eb = BOX__EVENT_BATCH__INIT;
    eb.n_events = n;
    eb.events = evs;
    Box__PdpRequest req = BOX__PDP_REQUEST__INIT;
    req.body_case = BOX__PDP_REQUEST__BODY_RECORD;
    req.record = &eb;
    ProtobufCMessage *m = NULL;
    box_err rv =
        box_rpc_call(c->pc_rpc, &req.base, &box__pdp_response__descriptor, &m);
    if (rv != BOX_OK)
        return rv;
    const Box__PdpResponse *resp = (const Box__PdpResponse *)m;
    rv = resp->body_case == BOX__PDP_RESPONSE__BODY_RECORD &&
                 resp->record->accepted == n
             ? BOX_OK
             : BOX_EPROTO;
    protobuf_c_message_free_unpacked(m, NULL);
    return rv;
}

box_err
box_pdp_record(box_pdp_client *c, const Box__EventBatch *batch)
{
    size_t n = batch->n_events;
    if (n == 0)
        return BOX_OK;
    if (n > BOX_PDP_BATCH_MAX)
        return BOX_ETOOBIG;
    // The client's box id on events that name none, in copies: the batch
    // is only borrowed.
    Box__Event *cells = box_calloc(n, sizeof *cells);
    Box__Event **evs = box_calloc(n, sizeof *evs);
    box_err rv = BOX_ENOMEM;
    if (cells == NULL || evs == NULL)
        goto out;
    for (size_t i = 0; i < n; i++) {
        cells[i] = *batch->events[i];
        if (c->pc_box_id != NULL &&
            (cells[i].box_id == NULL || !*cells[i].box_id))
            cells[i].box_id = c->pc_box_id;
        evs[i] = &cells[i];
    }
    // As many round trips as the PDP's message limit needs, in order (an
    // event is as big as the decided request's input at most).
    rv = BOX_OK;
    size_t first = 0, bytes = 0;
    for (size_t i = 0; rv == BOX_OK && i <= n; i++) {
        size_t sz = i < n ? box__event__get_packed_size(evs[i]) + 16 : 0;
        if (i < n && sz > BOX_PDP_MSG_MAX - 64) {
            rv = BOX_ETOOBIG;
            break;
        }
        if (i == n || bytes + sz > BOX_PDP_MSG_MAX - 64) {
            if (i > first)
                rv = record_round_trip(c, evs + first, i - first);
            first = i;
            bytes = 0;
        }
        bytes += sz;
    }
out:
    box_free(cells);
    box_free(evs);
    return rv;
}

box_err
box_pdp_client_cache_fields(box_pdp_client *c, const char *action,
                            uint64_t epoch, char ***fields, size_t *n)
{
    *fields = NULL;
    *n = 0;
    box_err rv = BOX_ENOENT;
    pthread_mutex_lock(&c->pc_lock);
    const narrow_entry *ne =
        epoch != 0 && action != NULL ? narrow_find(c, action, epoch) : NULL;
    if (ne != NULL) {
        rv = (*fields = fields_dup(ne->ne_fields, ne->ne_n)) != NULL
                 ? BOX_OK
                 : BOX_ENOMEM;
        *n = rv == BOX_OK ? ne->ne_n : 0;
    }
    pthread_mutex_unlock(&c->pc_lock);
    return rv;
}

/* A report too big to keep (or with no cache): a normal decision, so the
 * PDP logs it; its verdict was already acted on, so it is not read. */
static box_err
report_as_decision(box_pdp_client *c, const Box__DecisionRequest *req)
{
    box_pdp_answer a;
    Box__DecisionRequest copy = *req;
    copy.cached = 0;
    box_err rv = box_pdp_decide_batch(
        c, (const Box__DecisionRequest *const[]){&copy}, 1, &a);
    box_pdp_answer_clear(&a);
    return rv;
}

/* Keeps the served permits k to end (packed[order[k]], or packed[k]
 * without an order); how many it kept before the buffer filled or one
 * that must be asked came. Caller holds pc_lock. */
static size_t
report_push_run(box_pdp_client *c, const uint8_t *const *packed,
                const size_t *len, const uint32_t *order, size_t end, size_t k)
{
    size_t kept = 0;
    for (; k < end; k++, kept++) {
        size_t i = order != NULL ? order[k] : k, room;
        if (packed[i] == NULL)
            break; // asked as a decision by the caller
        uint8_t *at = report_room(c, len[i], &room);
        if (at == NULL)
            break;
        memcpy(at, packed[i], len[i]);
        if (!report_keep(c, len[i]))
            break;
        c->pc_stats.cs_hits++;
    }
    return kept;
}

box_err
box_pdp_client_report_many(box_pdp_client *c,
                           const Box__DecisionRequest *const *reqs, size_t n,
                           const uint32_t *order, size_t norder)
{
    box_err ret = BOX_ENOMEM;
    size_t total = norder > 0 ? norder : n;
    const uint32_t *ord = norder > 0 ? order : NULL;
    for (size_t k = 0; k < norder; k++)
        if (order[k] >= n)
            return BOX_EINVAL; // names no request: nothing reported
    if (total == 0)
        return BOX_OK;
    uint8_t **packed = box_calloc(n, sizeof *packed);
    size_t *len = box_calloc(n, sizeof *len);
    if (packed == NULL || len == NULL)
        goto out;
    // Each distinct request packed once; a request that does not fit a
    // report stays NULL and is asked as a decision each time it came.
    for (size_t i = 0; c->pc_reports != NULL && i < n; i++) {
        uint8_t buf[REPORT_ONE_MAX];
        Box__DecisionRequest copy = *reqs[i];
        copy.cached = 1;
        uint8_t *p = box_reqpack_any(&copy, buf, sizeof buf, &len[i]);
        if (p != NULL && (packed[i] = box_alloc(len[i])) == NULL)
            goto out;
        if (p != NULL)
            memcpy(packed[i], p, len[i]);
    }
    ret = BOX_OK;
    for (size_t k = 0; k < total && ret == BOX_OK;) {
        pthread_mutex_lock(&c->pc_lock);
        size_t kept = c->pc_reports != NULL
                          ? report_push_run(c, (const uint8_t *const *)packed,
                                            len, ord, total, k)
                          : 0;
        pthread_mutex_unlock(&c->pc_lock);
        k += kept;
        if (k == total)
            break;
        size_t i = ord != NULL ? ord[k] : k;
        if (packed[i] == NULL) {
            ret = report_as_decision(c, reqs[i]);
            k++;
            continue;
        }
        // Full: send what waits, then keep the rest.
        if ((ret = box_pdp_client_flush(c)) != BOX_OK)
            break;
        pthread_mutex_lock(&c->pc_lock);
        kept = report_push_run(c, (const uint8_t *const *)packed, len, ord,
                               k + 1, k);
        pthread_mutex_unlock(&c->pc_lock);
        if (kept == 0)
            ret = report_as_decision(c, reqs[i]); // too big for an empty one
        k++;
    }
out:
    for (size_t i = 0; packed != NULL && i < n; i++)
        box_free(packed[i]);
    box_free(packed);
    box_free(len);
    return ret;
}

box_err
box_pdp_client_report(box_pdp_client *c, const Box__DecisionRequest *req)
{
    return box_pdp_client_report_many(
        c, (const Box__DecisionRequest *const[]){req}, 1, NULL, 0);
}
