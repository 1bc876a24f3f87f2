/* SPDX-License-Identifier: Apache-2.0 */
/* The PDP client every enforcement point links: decisions with a deadline,
 * fail-closed answers, and a permit cache per decision epoch. */
#ifndef BOX_PDP_CLIENT_H
#define BOX_PDP_CLIENT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box.pb-c.h"
#include "box_err.h"
#include "box_verdict.h"

/* One answer. Filled by box_pdp_decide; cleared with box_pdp_answer_clear. */
typedef struct box_pdp_answer {
    box_verdict pa_verdict;
    Box__ReasonClass pa_reason;
    uint64_t pa_epoch;
    bool pa_from_cache;
    bool pa_cacheable; // the PDP allowed caching this answer
    /* The policy's history reads this action: the effect's outcome is to
     * be recorded (box_pdp_record). Never on a cache hit (a cacheable
     * answer means no temporal rule reads the action). */
    bool pa_wants_outcomes;
    /* The spec's message text (box-spec §3.11), owned by the answer. NULL
     * on a cache hit: only permits are cached and a permit's text is never
     * shown. For a PDP that did not answer, a refusal naming the PDP. */
    char *pa_message;
    /* Determining policy ids, comma-joined (for logs); owned; may be NULL. */
    char *pa_rules;
    /* What the PDP said a permit of this action depends on
     * (DecisionResponse.cache_fields), owned, NULL-ended. */
    char **pa_cache_fields;
    size_t pa_ncache_fields;
    bool pa_cache_fields_known;
} box_pdp_answer;

typedef struct box_pdp_client box_pdp_client;

/* The longest a cached permit is served. Epoch notices drop the cache on
 * every policy change, and a broken notice connection stops it from being
 * served; this bounds what a notice lost anyway (dropped while the
 * connection still looked up) can cost: a revoked permit for at most this
 * long, never for as long as the box runs. */
#define BOX_PDP_CACHE_MAX_AGE_MS_DEFAULT 30000

typedef struct box_pdp_client_opts {
    const char *co_url;       // decision address (REQ/REP)
    const char *co_epoch_url; // PUB address of epoch notices, or NULL
    int co_timeout_ms;        // per decision; 0 = BOX_PDP_TIMEOUT_MS_DEFAULT
    size_t co_cache_slots;    // 0 = no cache
    int co_cache_max_age_ms;  // 0 = BOX_PDP_CACHE_MAX_AGE_MS_DEFAULT
    const char *co_box_id;    // sent with every request, may be NULL
    /* A word the client keeps current for a permit cache outside it (the
     * shell's workers keep one per call), or NULL: it changes whenever
     * the client's own cached permits would stop being served (a new
     * epoch; the notice connection going down or up) and is odd while
     * they may be served. Such a cache reads it before asking, keeps an
     * answer under the value it read, and serves it only while the word
     * still holds that odd value. The client sets it to 0 at open. */
    _Atomic uint64_t *co_valid;
} box_pdp_client_opts;

/* The caller owns *out; box_pdp_client_close frees it. */
box_err box_pdp_client_open(const box_pdp_client_opts *o,
                            box_pdp_client **out) BOX_WARN_UNUSED;
void box_pdp_client_close(box_pdp_client *c);

/*
 * Decides one request. Always fills *a (clear it afterwards). Returns
 * BOX_OK when the PDP (or the cache) answered: the verdict is PERMIT or
 * DENY. On BOX_ETIMEDOUT / BOX_ECLOSED / BOX_EPROTO the verdict is FAULT,
 * with REASON_INTERNAL_FAULT and a message naming the PDP: the caller
 * refuses the operation (BOX_STATUS_FAULT, 125, in the shell).
 *
 * A cache hit allocates nothing and makes no system call (its age is read
 * from the monotonic clock through the vDSO). The request is only
 * borrowed.
 */
box_err box_pdp_decide(box_pdp_client *c, const Box__DecisionRequest *req,
                       box_pdp_answer *a) BOX_WARN_UNUSED;

/* The cache alone: true with *a a cached permit (counted and reported for
 * the log as box_pdp_decide's hits are); false for anything else, with
 * no round trip and no system call. For a caller that must not block (an
 * event loop), which then asks box_pdp_decide elsewhere. */
bool box_pdp_decide_cached(box_pdp_client *c, const Box__DecisionRequest *req,
                           box_pdp_answer *a);

/* Decides n requests against one policy generation (a rename is four).
 * Same contract, per answer; all answers are faults on a transport error. */
box_err box_pdp_decide_batch(box_pdp_client *c,
                             const Box__DecisionRequest *const *reqs, size_t n,
                             box_pdp_answer *answers) BOX_WARN_UNUSED;

void box_pdp_answer_clear(box_pdp_answer *a);

/*
 * Records outcomes (`::response` / `::error` events, dogwood-spec §5.6) in
 * the PDP's history: one `record` round trip, within the client's
 * deadline, so a decision asked after it returns sees them. The batch is
 * borrowed; each event's box_id is the client's when unset. BOX_OK when
 * the PDP took every event; BOX_EPROTO when it took fewer (it logs why),
 * or the transport's error (BOX_ETIMEDOUT, BOX_ECLOSED, ...). At most
 * BOX_PDP_BATCH_MAX events (else BOX_ETOOBIG, nothing sent).
 */
box_err box_pdp_record(box_pdp_client *c,
                       const Box__EventBatch *batch) BOX_WARN_UNUSED;

/* Sends the decisions answered from the cache since the last round trip
 * to the PDP for its log (they also ride along with the next miss). */
box_err box_pdp_client_flush(box_pdp_client *c) BOX_WARN_UNUSED;

/* The same, by the client's reporter thread, without waiting for the
 * PDP: a caller with an alias waiting (the broker) hands the log its
 * reports and goes on. A report the PDP did not take is counted in
 * cs_report_faults; close sends what still waits. */
void box_pdp_client_flush_soon(box_pdp_client *c);

/* The fields of context.input the permits of action depend on in epoch
 * (what the PDP said with a permit): a NULL-ended copy the caller frees
 * with each string, BOX_ENOENT when not known. */
box_err box_pdp_client_cache_fields(box_pdp_client *c, const char *action,
                                    uint64_t epoch, char ***fields,
                                    size_t *n) BOX_WARN_UNUSED;

/* Reports, for the PDP's log, a permit a cache outside the client served
 * (req is sent marked cached, with req->cached_epoch, the epoch the permit
 * came from): kept with the client's own hits and sent
 * with the next round trip or flush; when too many wait, they are sent
 * now. A request too big to keep is sent as a decision of its own. */
box_err box_pdp_client_report(box_pdp_client *c,
                              const Box__DecisionRequest *req) BOX_WARN_UNUSED;
/* Reports permits served in a batch (ServedBatch): reqs[order[k]] for
 * each k, in order, or with norder 0 each of reqs once. Each distinct
 * request is packed once, however often it was served. BOX_EINVAL, and
 * nothing reported, when an index names no request. */
box_err box_pdp_client_report_many(box_pdp_client *c,
                                   const Box__DecisionRequest *const *reqs,
                                   size_t n, const uint32_t *order,
                                   size_t norder) BOX_WARN_UNUSED;

/* The narrowed cache key of (action, input) when the action's permits
 * depend only on fields: every field's name and kind, and the value of
 * the fields named. Returns the length written, or 0 if it does not fit
 * in max bytes or the input is not a record of keyable size. */
size_t box_pdp_narrow_key(const char *action, const Box__Value *input,
                          char *const *fields, size_t nfields, uint8_t *buf,
                          size_t max);

/* The newest epoch this client has seen (answers or notices). */
uint64_t box_pdp_client_epoch(const box_pdp_client *c);

/* True when the cache may serve answers: the client has a cache and its
 * epoch-notice connection is up (a notice missed while it was down could
 * leave a stale permit, so entries made under an older connection are
 * never served). */
bool box_pdp_client_cache_live(box_pdp_client *c);

/* Counters, for tests and benchmarks. */
typedef struct box_pdp_client_stats {
    uint64_t cs_hits;
    uint64_t cs_misses;
    uint64_t cs_drops;   // cache generations dropped (epoch changes)
    uint64_t cs_retries; // answers from an older generation asked again
    uint64_t cs_report_faults; // reporter round trips that failed
} box_pdp_client_stats;
void box_pdp_client_stats_get(const box_pdp_client *c, box_pdp_client_stats *s);

/* Canonical bytes of (action, input) for the cache key: records sorted by
 * name, every length explicit, so distinct values never share a key.
 * Returns the length written, or 0 if it does not fit in n bytes. */
size_t box_pdp_canon_key(const char *action, const Box__Value *input,
                         uint8_t *buf, size_t n);

#endif
