/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The running PDP's history: observe, then decide, one step under a lock
 * (dogwood-spec §4.1). Each rule of the installed generation carries the
 * sequence number of the first event it may see: a rule that is new or
 * changed (its canonical text differs) starts empty (box-spec §4), a rule
 * kept across a reload keeps what it saw.
 */
#include "pdp_live.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "pdp_hist.h"
#include "pdp_hstore.h"
#include "pdp_tl.h"
#include "pdp_tlmon.h"
#include "pdp_validate.h"

#define LIVE_RULE_TEXT_MAX ((size_t)1 << 24)

/* A temporal leaf with an incremental monitor (pdp_tlmon.h). */
typedef struct live_mon {
    const pdp_tl *lm_leaf;
    pdp_tlmon *lm_mon;
} live_mon;

/* A permitted request whose outcome is not known yet: its pending
 * outcome event, by the request id its outcome will name. */
typedef struct live_pending {
    uint64_t lp_request_id;
    uint64_t lp_seq;
} live_pending;

struct pdp_live {
    pthread_mutex_t lv_lock;
    pdp_hist *lv_hist;
    pdp_live_clock lv_clock;
    void *lv_clock_arg;
    int64_t lv_last_ts;
    bool lv_have_gen;
    uint64_t lv_epoch;   // the generation lv_rules describe
    pdp_hstore_rule *lv_rules; // by rule index
    uint64_t *lv_since;  // the same, as pdp_request.rq_since reads it
    size_t lv_nrules;
    pdp_hstore *lv_store; // where events go before a verdict, or NULL
    uint64_t lv_ticket;   // what the store must sync for the last put
    uint64_t lv_dropped;  // events aged out since the last compaction
    live_pending *lv_pending; // oldest first
    size_t lv_npending, lv_cappending;
    live_mon *lv_mons; // of the generation lv_rules describe
    size_t lv_nmons, lv_capmons;
};

static int64_t
wall_clock(void *arg)
{
    (void)arg;
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (int64_t)ts.tv_sec;
}

pdp_live *
pdp_live_new(pdp_live_clock clock, void *clock_arg)
{
    pdp_live *l = box_calloc(1, sizeof *l);
    if (l == NULL)
        return NULL;
    if ((l->lv_hist = pdp_hist_new()) == NULL) {
        box_free(l);
        return NULL;
    }
    pthread_mutex_init(&l->lv_lock, NULL);
    l->lv_clock = clock != NULL ? clock : wall_clock;
    l->lv_clock_arg = clock_arg;
    return l;
}

/* NULL-safe: adopt frees a table whose allocation failed. */
static void
mons_free(pdp_live *l)
{
    for (size_t i = 0; i < l->lv_nmons; i++)
        pdp_tlmon_free(l->lv_mons[i].lm_mon);
    box_free(l->lv_mons);
    l->lv_mons = NULL;
    l->lv_nmons = l->lv_capmons = 0;
}

/* What rule index's monitors need to build theirs: the live history, and
 * the first event the rule sees. */
typedef struct mon_build {
    pdp_live *mb_live;
    uint64_t mb_since;
} mon_build;

/* A monitor for the leaf e if its shape has one, fed every event the
 * rule may see (a failure leaves the leaf to the reference). */
static bool
mon_leaf(void *arg, const pdp_expr *e)
{
    mon_build *b = arg;
    pdp_live *l = b->mb_live;
    if (e->x_kind != PDP_X_TEMPORAL)
        return false;
    pdp_tlmon *m = pdp_tlmon_new(e->u.tl);
    if (m == NULL)
        return false;
    if (l->lv_nmons == l->lv_capmons) {
        size_t nc = l->lv_capmons ? l->lv_capmons * 2 : 8;
        live_mon *nv = box_realloc(l->lv_mons, nc * sizeof *nv);
        if (nv == NULL) {
            pdp_tlmon_free(m);
            return false;
        }
        l->lv_mons = nv;
        l->lv_capmons = nc;
    }
    uint64_t base = pdp_hist_base(l->lv_hist);
    size_t from = b->mb_since > base ? (size_t)(b->mb_since - base) : 0;
    for (size_t k = from; k < pdp_hist_len(l->lv_hist); k++)
        pdp_tlmon_observe(m, pdp_hist_at(l->lv_hist, k));
    l->lv_mons[l->lv_nmons++] = (live_mon){e->u.tl, m};
    return false; // every leaf
}

/* The monitor of leaf, asked before the reference (pdp_tl.h). */
static int
mon_ask(void *arg, const pdp_tl *leaf, const pdp_tl_now *now,
        box_arena *scratch, bool *holds)
{
    pdp_live *l = arg;
    for (size_t i = 0; i < l->lv_nmons; i++)
        if (l->lv_mons[i].lm_leaf == leaf)
            return pdp_tlmon_holds(l->lv_mons[i].lm_mon, now, scratch, holds);
    return 0;
}

static void
rules_free(pdp_hstore_rule *r, size_t n)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < n; i++)
        box_free(r[i].hr_text);
    box_free(r);
}

void
pdp_live_free(pdp_live *l)
{
    if (l == NULL)
        return;
    rules_free(l->lv_rules, l->lv_nrules);
    box_free(l->lv_since);
    box_free(l->lv_pending);
    mons_free(l);
    pdp_hstore_close(l->lv_store);
    pdp_hist_free(l->lv_hist);
    pthread_mutex_destroy(&l->lv_lock);
    box_free(l);
}

/* The sequence number the next appended event gets. */
static uint64_t
next_seq(const pdp_live *l)
{
    return pdp_hist_base(l->lv_hist) + pdp_hist_len(l->lv_hist);
}

/* A value index for each field a predicate fixes (not a wildcard): the
 * events that can match are then found directly. */
static void
index_pred(void *arg, const pdp_tl *pred)
{
    pdp_hist *h = arg;
    for (uint32_t i = 0; i < pred->tl_nargs; i++) {
        const pdp_targ *a = &pred->tl_args[i];
        if (a->ta_term->tt_kind == PDP_TT_WILD)
            continue;
        // Out of memory: that field is not indexed and its predicate walks
        // its action's chain instead, which is as right, only slower.
        box_err rv = pdp_hist_index(h, pred->tl_action, pred->tl_event_kind.s,
                                    pred->tl_event_kind.len, a->ta_path.s,
                                    a->ta_path.len);
        (void)rv;
    }
}

static bool
index_leaf(void *arg, const pdp_expr *e)
{
    if (e->x_kind == PDP_X_TEMPORAL)
        pdp_tl_each_pred(e->u.tl, index_pred, arg);
    return false; // every node
}

/* lv_rules for generation epoch of set: each rule's text, and the first
 * event it sees (kept from a rule of the same text, else from now on). */
static box_err
adopt(pdp_live *l, const pdp_policy_set *set, uint64_t epoch)
{
    if (l->lv_have_gen && l->lv_epoch == epoch)
        return BOX_OK;
    size_t n = pdp_policy_rule_count(set);
    pdp_hstore_rule *rules = box_calloc(n + 1, sizeof *rules);
    uint64_t *since = box_calloc(n + 1, sizeof *since);
    box_buf b;
    box_buf_init(&b, LIVE_RULE_TEXT_MAX);
    box_err rv = rules != NULL && since != NULL ? BOX_OK : BOX_ENOMEM;
    for (size_t i = 0; i < n && rv == BOX_OK; i++) {
        b.b_len = 0;
        if ((rv = pdp_rule_dump(pdp_policy_rule(set, i), &b)) != BOX_OK)
            break;
        if ((rules[i].hr_text = box_strndup(b.b_data, b.b_len)) == NULL) {
            rv = BOX_ENOMEM;
            break;
        }
        rules[i].hr_since = next_seq(l);
        for (size_t j = 0; j < l->lv_nrules; j++)
            if (strcmp(l->lv_rules[j].hr_text, rules[i].hr_text) == 0) {
                rules[i].hr_since = l->lv_rules[j].hr_since;
                break;
            }
        since[i] = rules[i].hr_since;
    }
    box_buf_reset(&b);
    if (rv != BOX_OK) {
        rules_free(rules, n);
        box_free(since);
        return rv;
    }
    // What each rule has seen survives a restart with it.
    if (l->lv_store != NULL &&
        (rv = pdp_hstore_put_rules(l->lv_store, rules, n, &l->lv_ticket)) !=
            BOX_OK) {
        rules_free(rules, n);
        box_free(since);
        return rv;
    }
    rules_free(l->lv_rules, l->lv_nrules);
    box_free(l->lv_since);
    l->lv_rules = rules;
    l->lv_since = since;
    l->lv_nrules = n;
    l->lv_epoch = epoch;
    l->lv_have_gen = true;
    mons_free(l);
    for (size_t i = 0; i < n; i++) {
        const pdp_rule *r = pdp_policy_rule(set, i);
        mon_build mb = {l, since[i]};
        for (uint32_t j = 0; j < r->r_nconds; j++) {
            (void)pdp_expr_visit(r->r_conds[j].cd_body, index_leaf,
                                 l->lv_hist);
            (void)pdp_expr_visit(r->r_conds[j].cd_body, mon_leaf, &mb);
        }
    }
    return BOX_OK;
}

/* Rewrites the file once as many events have aged out as are kept (at
 * least a segment's worth): the file stays within about twice what the
 * rules can reach, at a cost spread over the events appended. A failed
 * compaction leaves the old file, which is still right. */
static void
compact(pdp_live *l)
{
    size_t kept = pdp_hist_len(l->lv_hist);
    if (l->lv_store == NULL || l->lv_dropped < 4096 || l->lv_dropped < kept)
        return;
    if (pdp_hstore_compact(l->lv_store, l->lv_hist, l->lv_rules,
                           l->lv_nrules) == BOX_OK)
        l->lv_dropped = 0;
}

/* Appends one event, stamped with the engine's time, built in the
 * history's own arena; then forgets what no rule of set can reach. */
static box_err
append(pdp_live *l, const pdp_policy_set *set, const pdp_value *principal,
       const pdp_value *resource, const pdp_value *action, const char *kind,
       const pdp_value *input, const pdp_value *output,
       const pdp_value *context, uint64_t request_id, pdp_ev_state state)
{
    int64_t now = l->lv_clock(l->lv_clock_arg);
    // Engine time never goes back, whatever the wall clock does.
    if (now < l->lv_last_ts)
        now = l->lv_last_ts;
    box_arena *a = pdp_hist_arena(l->lv_hist);
    if (a == NULL)
        return BOX_ENOMEM;
    pdp_event e = {.ev_kind = kind, .ev_ts = now, .ev_state = (uint8_t)state};
    const pdp_value *p = NULL, *r = NULL, *in = NULL, *out = NULL;
    pdp_value *fields = pdp_value_record_new(a), *rid = NULL;
    char idtext[24];
    snprintf(idtext, sizeof idtext, "%" PRIu64, request_id);
    box_err rv = fields != NULL ? BOX_OK : BOX_ENOMEM;
    if (rv == BOX_OK)
        rv = pdp_value_copy(a, action, &e.ev_action);
    if (rv == BOX_OK)
        rv = pdp_value_copy(a, principal, &p);
    if (rv == BOX_OK)
        rv = pdp_value_copy(a, resource, &r);
    if (rv == BOX_OK && input != NULL)
        rv = pdp_value_copy(a, input, &in);
    if (rv == BOX_OK && output != NULL)
        rv = pdp_value_copy(a, output, &out);
    if (rv == BOX_OK && context != NULL)
        rv = pdp_value_copy(a, context, &e.ev_context);
    if (rv == BOX_OK)
        rv = pdp_value_string(a, idtext, strlen(idtext), &rid);
    // Box's events: input, output on a response, the caller's scope and
    // the request id (dogwood-spec §5.5).
    if (rv == BOX_OK && in != NULL)
        rv = pdp_value_record_put(a, fields, "input", 5, in);
    if (rv == BOX_OK && out != NULL)
        rv = pdp_value_record_put(a, fields, "output", 6, out);
    if (rv == BOX_OK)
        rv = pdp_value_record_put(a, fields, "callerPrincipal", 15, p);
    if (rv == BOX_OK)
        rv = pdp_value_record_put(a, fields, "callerResource", 14, r);
    if (rv == BOX_OK)
        rv = pdp_value_record_put(a, fields, "requestId", 9, rid);
    if (rv != BOX_OK)
        return rv;
    e.ev_principal = p;
    e.ev_resource = r;
    e.ev_fields = fields;
    // On the disk first: an event the file lacks is never decided on.
    uint64_t before = l->lv_store != NULL ? pdp_hstore_size(l->lv_store) : 0;
    if (l->lv_store != NULL &&
        (rv = pdp_hstore_put_event(l->lv_store, next_seq(l), &e,
                                   &l->lv_ticket)) != BOX_OK)
        return rv;
    if ((rv = pdp_hist_append(l->lv_hist, &e)) != BOX_OK) {
        // Not kept, so not stored: the next event takes its number.
        if (l->lv_store != NULL) {
            box_err crv = pdp_hstore_cut(l->lv_store, before);
            (void)crv; // a failed cut stops the store: every later put fails
        }
        return rv;
    }
    l->lv_last_ts = now;
    // The monitors see every event, in order, as it is kept.
    const pdp_event *kept = pdp_hist_at(l->lv_hist, pdp_hist_len(l->lv_hist) - 1);
    for (size_t i = 0; i < l->lv_nmons; i++)
        pdp_tlmon_observe(l->lv_mons[i].lm_mon, kept);
    int64_t window = 0;
    (void)pdp_policy_temporal(set, &window);
    if (window < now)
        l->lv_dropped += pdp_hist_drop_before(l->lv_hist, now - window);
    // Pending outcomes aged out with their events need no resolving.
    size_t gone = 0;
    while (gone < l->lv_npending &&
           l->lv_pending[gone].lp_seq < pdp_hist_base(l->lv_hist))
        gone++;
    if (gone > 0) {
        memmove(l->lv_pending, l->lv_pending + gone,
                (l->lv_npending - gone) * sizeof *l->lv_pending);
        l->lv_npending -= gone;
    }
    compact(l);
    return BOX_OK;
}

/* Remembers that event seq is the pending outcome of request_id. */
static box_err
pending_add(pdp_live *l, uint64_t request_id, uint64_t seq)
{
    if (l->lv_npending == l->lv_cappending) {
        size_t nc = l->lv_cappending ? l->lv_cappending * 2 : 16;
        live_pending *nv = box_realloc(l->lv_pending, nc * sizeof *nv);
        if (nv == NULL)
            return BOX_ENOMEM;
        l->lv_pending = nv;
        l->lv_cappending = nc;
    }
    l->lv_pending[l->lv_npending++] = (live_pending){request_id, seq};
    return BOX_OK;
}

/* The pending outcome of request_id (of action with input: ids start
 * again with each run of the shell), if any, is void from now on: its
 * real outcome replaces it. Written to the file as well. */
static box_err
pending_resolve(pdp_live *l, uint64_t request_id, const pdp_value *action,
                const pdp_value *input)
{
    uint64_t base = pdp_hist_base(l->lv_hist);
    for (size_t i = l->lv_npending; i-- > 0;) {
        uint64_t seq = l->lv_pending[i].lp_seq;
        if (l->lv_pending[i].lp_request_id != request_id || seq < base)
            continue;
        const pdp_event *e = pdp_hist_at(l->lv_hist, (size_t)(seq - base));
        const pdp_value *in = pdp_hist_field(e->ev_fields, "input", 5);
        if (!pdp_value_equal(e->ev_action, action) ||
            (in == NULL) != (input == NULL) ||
            (in != NULL && !pdp_value_equal(in, input)))
            continue;
        memmove(l->lv_pending + i, l->lv_pending + i + 1,
                (l->lv_npending - i - 1) * sizeof *l->lv_pending);
        l->lv_npending--;
        pdp_hist_set_state(l->lv_hist, (size_t)(seq - base), PDP_EV_VOID);
        return l->lv_store != NULL
                   ? pdp_hstore_put_void(l->lv_store, seq, &l->lv_ticket)
                   : BOX_OK;
    }
    return BOX_OK;
}

/*
 * Decides rq at its event with the history as it stands. While outcomes
 * are pending, a permit must hold whichever way each of them turns out:
 * it is decided with them taken for responses, then for errors, and only
 * then as not happened (the answer kept is the first deny, else the
 * last). A cap on responses then holds however many calls race for it.
 */
static box_err
decide_worlds(pdp_live *l, const pdp_policy_set *set, pdp_request *rq,
              pdp_answer *ans)
{
    static const pdp_tl_pending worlds[] = {
        PDP_PENDING_RESPONSE, PDP_PENDING_ERROR, PDP_PENDING_NONE};
    size_t first = l->lv_npending > 0 ? 0 : 2;
    box_err rv = BOX_OK;
    for (size_t i = first; i < 3; i++) {
        rq->rq_pending = (int)worlds[i];
        rv = pdp_decide(set, rq, ans);
        if (rv != BOX_OK || pdp_answer_verdict(ans) != PDP_ALLOW)
            break;
    }
    rq->rq_pending = PDP_PENDING_NONE;
    return rv;
}

/* A request the history may hold: well-formed and, for a set with a
 * schema, conforming (a malformed one is denied and recorded nowhere:
 * dogwood-spec §5.6). */
static bool
recordable(const pdp_policy_set *set, const pdp_request *rq,
           const pdp_value **input)
{
    if (rq->rq_principal == NULL || rq->rq_action == NULL ||
        rq->rq_resource == NULL || rq->rq_context == NULL ||
        pdp_value_kind_of(rq->rq_principal) != PDP_VAL_ENTITY ||
        pdp_value_kind_of(rq->rq_action) != PDP_VAL_ENTITY ||
        pdp_value_kind_of(rq->rq_resource) != PDP_VAL_ENTITY ||
        pdp_value_kind_of(rq->rq_context) != PDP_VAL_RECORD)
        return false;
    const pdp_schema *schema = pdp_policy_schema(set);
    char *bad = NULL;
    if (schema != NULL && pdp_validate_request_full(schema, rq, &bad) !=
                              BOX_OK) {
        box_free(bad);
        return false;
    }
    *input = pdp_value_get(rq->rq_context, "input", 5);
    return true;
}

box_err
pdp_live_decide(pdp_live *l, const pdp_policy_set *set, uint64_t epoch,
                pdp_request *rq, uint64_t request_id, pdp_answer *ans)
{
    const pdp_value *input = NULL;
    // Cheapest first: most decisions of most policies touch no history.
    if (!pdp_policy_temporal(set, NULL) || rq->rq_action == NULL ||
        pdp_value_kind_of(rq->rq_action) != PDP_VAL_ENTITY ||
        !pdp_policy_history_reads(set, rq->rq_action) ||
        !recordable(set, rq, &input))
        return pdp_decide(set, rq, ans);
    pthread_mutex_lock(&l->lv_lock);
    box_err rv = adopt(l, set, epoch);
    if (rv == BOX_OK)
        rv = append(l, set, rq->rq_principal, rq->rq_resource,
                    rq->rq_action, "request", input, NULL, rq->rq_context,
                    request_id, PDP_EV_REAL);
    if (rv == BOX_OK) {
        rq->rq_hist = l->lv_hist;
        rq->rq_at = pdp_hist_len(l->lv_hist) - 1;
        rq->rq_since = l->lv_since;
        rq->rq_monitor = l->lv_nmons > 0 ? mon_ask : NULL;
        rq->rq_monitor_arg = l;
        rv = decide_worlds(l, set, rq, ans);
        rq->rq_hist = NULL;
        rq->rq_since = NULL;
        rq->rq_monitor = NULL;
    }
    // A permit whose outcome a rule reads is pending from now on: the
    // next decision counts it before its outcome arrives.
    if (rv == BOX_OK && pdp_answer_verdict(ans) == PDP_ALLOW &&
        pdp_policy_outcome_reads(set, rq->rq_action)) {
        uint64_t seq = next_seq(l);
        rv = append(l, set, rq->rq_principal, rq->rq_resource, rq->rq_action,
                    "response", input, NULL, NULL, request_id,
                    PDP_EV_PENDING);
        if (rv == BOX_OK)
            rv = pending_add(l, request_id, seq);
    }
    uint64_t ticket = l->lv_ticket;
    const char *why = rv != BOX_OK && l->lv_store != NULL
                          ? pdp_hstore_error(l->lv_store)
                          : NULL;
    char reason[320];
    if (why != NULL)
        snprintf(reason, sizeof reason, "%s", why);
    pthread_mutex_unlock(&l->lv_lock);
    // The verdict waits until its own event is on the disk; the callers
    // that wait together share one fdatasync.
    if (rv == BOX_OK && l->lv_store != NULL &&
        pdp_hstore_sync(l->lv_store, ticket) != BOX_OK) {
        rv = BOX_EIO;
        snprintf(reason, sizeof reason, "%s", pdp_hstore_error(l->lv_store));
        why = reason;
    }
    if (rv != BOX_OK) {
        // Not observed (or not kept), so not decided: a deny, fail closed.
        char msg[400];
        snprintf(msg, sizeof msg, "the policy history could not be %s: %s",
                 rv == BOX_EIO ? "stored" : "kept",
                 why != NULL ? reason : box_strerror(rv));
        box_err frv = pdp_answer_set_fault(ans, msg, rq->rq_resource_text,
                                           rq->rq_resource_len);
        (void)frv;
    }
    return rv;
}

box_err
pdp_live_record(pdp_live *l, const pdp_policy_set *set, uint64_t epoch,
                const pdp_value *principal, const pdp_value *resource,
                const pdp_value *action, const char *kind,
                const pdp_value *input, const pdp_value *output,
                uint64_t request_id)
{
    if (!pdp_policy_history_reads(set, action))
        return BOX_OK;
    pthread_mutex_lock(&l->lv_lock);
    box_err rv = adopt(l, set, epoch);
    if (rv == BOX_OK)
        rv = pending_resolve(l, request_id, action, input);
    if (rv == BOX_OK)
        rv = append(l, set, principal, resource, action, kind, input, output,
                    NULL, request_id, PDP_EV_REAL);
    pthread_mutex_unlock(&l->lv_lock);
    return rv;
}

box_err
pdp_live_open(pdp_live *l, const char *path, char **warn, char **err)
{
    *warn = *err = NULL;
    pthread_mutex_lock(&l->lv_lock);
    box_err rv = BOX_EINVAL;
    if (l->lv_store != NULL || pdp_hist_len(l->lv_hist) != 0) {
        *err = box_strdup("the history is already open");
        goto out;
    }
    pdp_hstore_rules rules = {0};
    if ((rv = pdp_hstore_open(path, l->lv_hist, &rules, &l->lv_store, warn,
                              err)) != BOX_OK)
        goto out;
    // Rules as the file last knew them: a rule of the same text in the
    // first generation installed keeps what it saw.
    l->lv_rules = rules.hs_rules;
    l->lv_nrules = rules.hs_n;
    size_t n = pdp_hist_len(l->lv_hist);
    if (n > 0)
        l->lv_last_ts = pdp_hist_at(l->lv_hist, n - 1)->ev_ts;
    // Outcomes still pending when the file was last written stay pending
    // (the call may still report them), known by their request ids.
    for (size_t i = 0; i < n && rv == BOX_OK; i++) {
        const pdp_event *e = pdp_hist_at(l->lv_hist, i);
        const pdp_value *rid =
            e->ev_state == PDP_EV_PENDING
                ? pdp_hist_field(e->ev_fields, "requestId", 9)
                : NULL;
        size_t len = 0;
        const char *txt = rid != NULL && pdp_value_kind_of(rid) ==
                                             PDP_VAL_STRING
                              ? pdp_value_str(rid, &len)
                              : NULL;
        if (txt != NULL) // written by append: the id's digits, NUL-ended
            rv = pending_add(l, strtoull(txt, NULL, 10),
                             pdp_hist_base(l->lv_hist) + i);
    }
out:
    pthread_mutex_unlock(&l->lv_lock);
    return rv;
}

size_t
pdp_live_events(pdp_live *l)
{
    pthread_mutex_lock(&l->lv_lock);
    size_t n = pdp_hist_len(l->lv_hist);
    pthread_mutex_unlock(&l->lv_lock);
    return n;
}
