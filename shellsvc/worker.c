/* SPDX-License-Identifier: Apache-2.0 */
/* The worker process body: read one Call, run it, stream Output, send Exit. */
#include "worker.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <errno.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_status.h"
#include "box_fdpass.h"
#include "box_frame.h"
#include "box_outcome.h"
#include "box_wire.h"
#include "box_pdp_client.h"
#include "box_reqpack.h"
#include "box_svc.h"
#include "box_repeats.h"
#include "permit_memo.h"
#include "served_again.h"
#include "sh_kernel.h"
#include "worker_interp.h"

#define WORKER_CALL_READ_MS 10000 // the broker sends the call right away
#define WORKER_WRITE_MS BOX_CALL_BACKSTOP_MS // the broker's backstop ends us
// The broker answers within the PDP client's own deadline; this only
// bounds a broker that stopped answering altogether.
#define WORKER_ANSWER_MS (4 * BOX_PDP_TIMEOUT_MS_DEFAULT)
// Served permits are reported in batches of at most this many, this many
// bytes, or this old (a thread sends a batch that waited this long, so a
// command that runs long after a hit does not hold its report): a worker
// killed mid-call (its budget spent) loses at most the reports of its last
// few milliseconds.
// Outcomes (dogwood-spec §5.6) wait the same way, in their own batch,
// also sent before every decide and launch frame, so the call's next
// decision sees them.
// Served permits: each distinct one is sent once with the order of all
// (box_repeats), so a loop's 2,000 `[` cost the broker one check.
#define WORKER_SERVED_MAX 2048
#define WORKER_SERVED_DISTINCT 64
#define WORKER_SERVED_BYTES (32u * 1024u)
#define WORKER_SERVED_MS 5
#define WORKER_SERVED_REQ_MAX 4096 // a longer request is asked, not served
#define WORKER_OUTCOME_MAX 64      // an outcome event, packed (about 40)

#if defined(__SANITIZE_ADDRESS__)
#define WORKER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WORKER_ASAN 1
#endif
#endif

/* Packed messages waiting to go as one frame's body: the requests of a
 * ServedBatch (in wb_rep: each distinct one once, and their order) or the
 * events of an EventBatch (in wb_body). Under wk_chan_lock. */
typedef struct worker_batch {
    uint32_t wb_tag; // the AliasFrame field the body goes in (its key)
    size_t wb_max;   // entries, then it is sent at once
    box_buf wb_body;
    box_repeats *wb_rep;
    size_t wb_n;
    uint64_t wb_first_ms; // when the oldest was added
    uint64_t wb_sent;     // batches sent (wb_rep's indices start again)
} worker_batch;

typedef struct worker_ctx {
    int wk_chan;
    int wk_fds; // descriptors for the broker (SOCK_SEQPACKET)
    uint32_t wk_program;
    uint64_t wk_total; // output bytes sent
    bool wk_broken;    // the channel failed or the budget is spent
    // Output (under the session's lock) and decisions (from any stage
    // thread) share the channel: one frame, or one decide/answer pair,
    // at a time.
    pthread_mutex_t wk_chan_lock;
    // The call's own permit cache (under wk_chan_lock), served while the
    // broker's validity word holds the value read when it was filled;
    // NULL: every decision is asked.
    permit_memo *wk_memo;
    _Atomic uint64_t *wk_valid;
    // Where the served batch holds the report of a permit served again
    // (under wk_chan_lock); NULL: each is keyed and packed.
    served_again *wk_again;
    // Served permits not yet reported, sent before any other frame and
    // when the batch is full or old; outcomes not yet sent, before any
    // decide, launch or exit frame and when full or old.
    worker_batch wk_served, wk_outcomes;
    // The thread that sends a batch once it is WORKER_SERVED_MS old,
    // started at the first entry of either; waits on wk_served_cv.
    pthread_cond_t wk_served_cv;
    pthread_t wk_flusher;
    bool wk_flusher_on;
    // The flusher waits with no deadline (no batch was open): a first
    // entry must wake it. Otherwise it wakes by itself at a deadline no
    // later than a new batch's, and a wake-up per batch (a futex call and
    // two switches) would be wasted.
    bool wk_flusher_idle;
    bool wk_stop;
} worker_ctx;

static box_err
worker_setrlimit(int res, rlim_t soft, rlim_t hard)
{
    struct rlimit rl = {.rlim_cur = soft, .rlim_max = hard};
    return setrlimit(res, &rl) == 0 ? BOX_OK : BOX_EIO;
}

box_err
worker_apply_limits(const worker_limits *l)
{
    box_err rv = worker_setrlimit(RLIMIT_CORE, 0, 0);
    if (rv == BOX_OK && l->wl_cpu_s != 0)
        rv = worker_setrlimit(RLIMIT_CPU, l->wl_cpu_s, l->wl_cpu_s + 5);
    if (rv == BOX_OK && l->wl_nofile != 0)
        rv = worker_setrlimit(RLIMIT_NOFILE, l->wl_nofile, l->wl_nofile);
#ifndef WORKER_ASAN
    // ASan reserves terabytes of shadow address space; a sanitizer build
    // keeps the inherited address-space limit.
    if (rv == BOX_OK && l->wl_as_bytes != 0)
        rv = worker_setrlimit(RLIMIT_AS, l->wl_as_bytes, l->wl_as_bytes);
#endif
    return rv;
}

/* Field tags of box.proto for the batches framed by hand: their entries
 * are packed once, into the batch, never copied as structs. */
#define TAG_FRAME_PROGRAM 0x08           // AliasFrame.program = 1, varint
#define TAG_FRAME_SERVED (15 << 3 | 2)   // AliasFrame.served, bytes
#define TAG_FRAME_OUTCOMES (16 << 3 | 2) // AliasFrame.outcomes, bytes
#define TAG_BATCH_ENTRY 0x0a // ServedBatch.requests, EventBatch.events
#define TAG_BATCH_ORDER 0x12 // ServedBatch.order

/* A batch of max entries; with distinct, of served permits (wb_rep).
 * False when out of memory. */
static bool
worker_batch_init(worker_batch *b, uint32_t tag, size_t max, size_t distinct,
                  size_t bytes)
{
    *b = (worker_batch){.wb_tag = tag, .wb_max = max};
    box_buf_init(&b->wb_body, bytes);
    return distinct == 0 ||
           (b->wb_rep = box_repeats_new(distinct, bytes, max)) != NULL;
}

static void
worker_batch_free(worker_batch *b)
{
    box_buf_reset(&b->wb_body);
    box_repeats_free(b->wb_rep);
    b->wb_rep = NULL;
}

/* Sends the entries of b waiting, as one frame. Caller holds
 * wk_chan_lock. */
static box_err
worker_batch_flush(worker_ctx *w, worker_batch *b)
{
    if (b->wb_n == 0)
        return BOX_OK;
    uint8_t head[24];
    size_t n = 0;
    head[n++] = TAG_FRAME_PROGRAM;
    n += box_wire_varint(head + n, w->wk_program);
    n += box_wire_varint(head + n, b->wb_tag); // a key past 127 takes two
    n += box_wire_varint(head + n, b->wb_rep != NULL
                                       ? box_repeats_put_size(b->wb_rep)
                                       : b->wb_body.b_len);
    box_buf frame;
    box_buf_init(&frame, BOX_FRAME_MAX);
    box_err rv = box_buf_append(&frame, head, n);
    if (rv == BOX_OK && b->wb_rep != NULL) {
        rv = box_repeats_put_strings(b->wb_rep, &frame, TAG_BATCH_ENTRY);
        if (rv == BOX_OK)
            rv = box_repeats_put_order(b->wb_rep, &frame, TAG_BATCH_ORDER);
        box_repeats_clear(b->wb_rep);
        b->wb_sent++;
    } else if (rv == BOX_OK) {
        rv = box_buf_append(&frame, b->wb_body.b_data, b->wb_body.b_len);
    }
    if (rv == BOX_OK)
        rv = box_frame_write_bytes(w->wk_chan, frame.b_data, frame.b_len,
                                   WORKER_WRITE_MS);
    box_buf_reset(&frame);
    box_buf_reset(&b->wb_body);
    b->wb_n = 0;
    return rv;
}

/* Sends each batch once it is WORKER_SERVED_MS old, until wk_stop. Holds
 * wk_chan_lock except while it waits. */
static void *
worker_flusher(void *arg)
{
    worker_ctx *w = arg;
    worker_batch *bs[2] = {&w->wk_served, &w->wk_outcomes};
    pthread_mutex_lock(&w->wk_chan_lock);
    while (!w->wk_stop) {
        uint64_t due = UINT64_MAX, now = box_svc_now_ms();
        for (size_t i = 0; i < 2; i++) {
            if (bs[i]->wb_n == 0)
                continue;
            if (now >= bs[i]->wb_first_ms + WORKER_SERVED_MS) {
                if (worker_batch_flush(w, bs[i]) != BOX_OK)
                    w->wk_broken = true;
            } else if (bs[i]->wb_first_ms + WORKER_SERVED_MS < due) {
                due = bs[i]->wb_first_ms + WORKER_SERVED_MS;
            }
        }
        if (due == UINT64_MAX) {
            w->wk_flusher_idle = true;
            pthread_cond_wait(&w->wk_served_cv, &w->wk_chan_lock);
            w->wk_flusher_idle = false;
            continue;
        }
        struct timespec ts = {.tv_sec = (time_t)(due / 1000),
                              .tv_nsec = (long)(due % 1000) * 1000000L};
        (void)pthread_cond_clockwait(&w->wk_served_cv, &w->wk_chan_lock,
                                     CLOCK_MONOTONIC, &ts);
    }
    pthread_mutex_unlock(&w->wk_chan_lock);
    return NULL;
}

/* Starts the thread that sends old batches. Caller holds wk_chan_lock. */
static void
worker_flusher_start(worker_ctx *w)
{
    w->wk_flusher_on =
        pthread_create(&w->wk_flusher, NULL, worker_flusher, w) == 0;
}

/* Counts an entry just added to b; sends b now when it is full or old.
 * Caller holds wk_chan_lock. */
static box_err
worker_batch_added(worker_ctx *w, worker_batch *b, size_t bytes,
                   uint64_t now_ms)
{
    if (b->wb_n++ == 0) {
        b->wb_first_ms = now_ms;
        if (!w->wk_flusher_on)
            worker_flusher_start(w);
        else if (w->wk_flusher_idle)
            pthread_cond_signal(&w->wk_served_cv);
    }
    // Without the thread no batch may wait: each goes at once.
    if (!w->wk_flusher_on || b->wb_n >= b->wb_max ||
        bytes >= WORKER_SERVED_BYTES ||
        now_ms - b->wb_first_ms >= WORKER_SERVED_MS)
        return worker_batch_flush(w, b);
    return BOX_OK;
}

/* Adds one packed entry to b (sent now when b is full or old). Caller
 * holds wk_chan_lock. */
static box_err
worker_batch_add(worker_ctx *w, worker_batch *b, const uint8_t *packed,
                 size_t n, uint64_t now_ms)
{
    uint8_t head[1 + BOX_WIRE_VARINT_MAX];
    head[0] = TAG_BATCH_ENTRY;
    size_t hn = 1 + box_wire_varint(head + 1, n);
    box_err rv = box_buf_append(&b->wb_body, head, hn);
    if (rv == BOX_OK)
        rv = box_buf_append(&b->wb_body, packed, n);
    if (rv != BOX_OK)
        return rv;
    return worker_batch_added(w, b, b->wb_body.b_len, now_ms);
}

/* Packs req, marked served, at the served batch's room and keeps it.
 * BOX_ETOOBIG when it does not fit in what is left. */
static box_err
worker_served_pack(worker_ctx *w, const Box__DecisionRequest *req)
{
    size_t room, n;
    uint8_t *at = box_repeats_room(w->wk_served.wb_rep, &room);
    if (at == NULL)
        return BOX_ETOOBIG;
    if (room > WORKER_SERVED_REQ_MAX)
        room = WORKER_SERVED_REQ_MAX;
    // One pass (box_reqpack): protobuf-c's two cost most of a served hit.
    const uint8_t *p = box_reqpack_any(req, at, room, &n);
    if (p == NULL)
        return BOX_ETOOBIG;
    memmove(at, p, n);
    return box_repeats_keep(w->wk_served.wb_rep, n);
}

/* Keeps a served permit's request for the next batch, and where it went
 * in *index (of batch number *batch). Caller holds wk_chan_lock. */
static box_err
worker_served_add(worker_ctx *w, const Box__DecisionRequest *req,
                  uint64_t epoch, uint64_t now_ms, size_t *index,
                  uint64_t *batch)
{
    permit_memo_blank blank;
    Box__DecisionRequest copy = *req;
    copy.cached = 1;
    copy.cached_epoch = epoch;
    copy.input = permit_memo_report_input(w->wk_memo, req, &blank);
    box_err rv = worker_served_pack(w, &copy);
    // Full: send what waits and try once more, in an empty batch.
    if (rv == BOX_ETOOBIG && w->wk_served.wb_n > 0 &&
        (rv = worker_batch_flush(w, &w->wk_served)) == BOX_OK)
        rv = worker_served_pack(w, &copy);
    if (rv != BOX_OK)
        return rv;
    // Read before the batch may go (then the batch number moves on).
    *index = box_repeats_last(w->wk_served.wb_rep);
    *batch = w->wk_served.wb_sent;
    return worker_batch_added(
        w, &w->wk_served, box_repeats_bytes(w->wk_served.wb_rep), now_ms);
}

/* The broker's validity word (odd: the memo's permits may be served; a
 * change makes every entry kept before it stale), or 0 without one. */
static uint64_t
worker_valid_gen(const worker_ctx *w)
{
    return w->wk_valid != NULL
               ? atomic_load_explicit(w->wk_valid, memory_order_acquire)
               : 0;
}

/* The served report at index of the batch, once more: false when the
 * batch cannot repeat it (the caller serves it the longer way), else the
 * batch's *rv. Caller holds wk_chan_lock. */
static bool
worker_served_again(worker_ctx *w, size_t index, uint64_t now, box_err *rv)
{
    if (box_repeats_again(w->wk_served.wb_rep, index) != BOX_OK)
        return false;
    *rv = worker_batch_added(w, &w->wk_served,
                             box_repeats_bytes(w->wk_served.wb_rep), now);
    return true;
}

/* Serves req from the memo when it holds req's permit: reports it (the
 * same report again, by index, when served_again knows where the batch
 * holds it), and names the served entry in *again (0: none). BOX_OK
 * served; BOX_ENOENT not held (ask); BOX_ETOOBIG not kept (ask); another
 * error ends the call. Caller holds wk_chan_lock. */
static box_err
worker_serve(worker_ctx *w, const Box__DecisionRequest *req, uint64_t gen,
             uint64_t now, uint64_t *again)
{
    const uint64_t max_age = BOX_PDP_CACHE_MAX_AGE_MS_DEFAULT;
    served_again_id id;
    permit_memo_hit hit;
    size_t index;
    uint64_t batch;
    box_err rv;
    bool known = w->wk_again != NULL &&
                 served_again_id_of(w->wk_memo, req, &id);
    if (known &&
        served_again_find(w->wk_again, &id, gen, w->wk_served.wb_sent, now,
                          max_age, &index, &hit.ph_epoch, again) &&
        worker_served_again(w, index, now, &rv))
        return rv;
    *again = 0;
    if (!permit_memo_has(w->wk_memo, req, gen, now, max_age, &hit))
        return BOX_ENOENT;
    rv = worker_served_add(w, req, hit.ph_epoch, now, &index, &batch);
    if (rv == BOX_OK && known)
        *again = served_again_put(w->wk_again, &id, gen, batch, &hit, index);
    return rv;
}

/* A box_again_fn: the entry a served permit's ticket named, served and
 * reported again as worker_serve would, without the request. */
static box_err
worker_again(void *ctx, uint64_t again)
{
    worker_ctx *w = ctx;
    size_t index;
    box_err rv = BOX_ENOENT;
    pthread_mutex_lock(&w->wk_chan_lock);
    uint64_t gen = worker_valid_gen(w);
    uint64_t now = box_svc_now_ms();
    if (w->wk_again != NULL && (gen & 1) != 0 &&
        served_again_find_token(w->wk_again, again, gen, w->wk_served.wb_sent,
                                now, BOX_PDP_CACHE_MAX_AGE_MS_DEFAULT,
                                &index) &&
        !worker_served_again(w, index, now, &rv))
        rv = BOX_ENOENT;
    pthread_mutex_unlock(&w->wk_chan_lock);
    return rv;
}

/* Writes one frame after the served permits waiting. Caller holds
 * wk_chan_lock. */
static box_err
worker_write(worker_ctx *w, const Box__AliasFrame *f)
{
    box_err rv = worker_batch_flush(w, &w->wk_served);
    if (rv == BOX_OK)
        rv = box_frame_write(w->wk_chan, f, BOX_FRAME_MAX, WORKER_WRITE_MS);
    return rv;
}

/* Writes a decide or launch frame: the outcomes waiting go first, so the
 * broker has the PDP append them before it asks what comes next. Caller
 * holds wk_chan_lock. */
static box_err
worker_write_question(worker_ctx *w, const Box__AliasFrame *f)
{
    box_err rv = worker_batch_flush(w, &w->wk_outcomes);
    return rv == BOX_OK ? worker_write(w, f) : rv;
}

/* A box_record_fn: keeps how a permitted effect ended for the broker
 * (request id, kind, output; the broker adds the action and input of the
 * request it relayed). A channel that fails ends the call, as a decision
 * would. */
static void
worker_record(void *ctx, box_ticket t, const box_outcome *o)
{
    worker_ctx *w = ctx;
    box_outcome_ev ev;
    uint8_t packed[WORKER_OUTCOME_MAX];
    const Box__Event *e = box_outcome_event(&ev, t.bt_id, o);
    if (!t.bt_wanted || e == NULL ||
        box__event__get_packed_size(e) > sizeof packed)
        return;
    size_t n = box__event__pack(e, packed);
    pthread_mutex_lock(&w->wk_chan_lock);
    if (!w->wk_broken && worker_batch_add(w, &w->wk_outcomes, packed, n,
                                          box_svc_now_ms()) != BOX_OK)
        w->wk_broken = true;
    pthread_mutex_unlock(&w->wk_chan_lock);
}

static int
worker_emit(worker_ctx *w, Box__Stream stream, const char *p, size_t n)
{
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Output o = BOX__OUTPUT__INIT;
    f.program = w->wk_program;
    f.body_case = BOX__ALIAS_FRAME__BODY_OUTPUT;
    f.output = &o;
    o.stream = stream;
    while (n > 0 && !w->wk_broken) {
        size_t k = n < BOX_OUTPUT_CHUNK_MAX ? n : BOX_OUTPUT_CHUNK_MAX;
        o.data.data = (uint8_t *)p;
        o.data.len = k;
        pthread_mutex_lock(&w->wk_chan_lock);
        box_err rv = worker_write(w, &f);
        pthread_mutex_unlock(&w->wk_chan_lock);
        if (rv != BOX_OK) {
            w->wk_broken = true;
            break;
        }
        w->wk_total += k;
        p += k;
        n -= k;
        // The broker refuses the call past the budget; writing more
        // would only be thrown away.
        if (w->wk_total > BOX_CALL_OUTPUT_MAX)
            w->wk_broken = true;
    }
    return w->wk_broken ? -1 : 0;
}

/* An sh_want_fn: the command is about to read its streamed stdin, so the
 * alias is asked for it (through the broker, which passes it on to an
 * alias that waits to be asked). */
static int
worker_want_input(void *ctx, size_t max, int delim)
{
    worker_ctx *w = ctx;
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__InputWanted iw = BOX__INPUT_WANTED__INIT;
    f.program = w->wk_program;
    f.body_case = BOX__ALIAS_FRAME__BODY_INPUT_WANTED;
    f.input_wanted = &iw;
    iw.max = max > BOX_INPUT_CHUNK_MAX ? BOX_INPUT_CHUNK_MAX : (uint32_t)max;
    iw.has_delim = delim >= 0;
    iw.delim = delim >= 0 ? (uint32_t)delim : 0;
    pthread_mutex_lock(&w->wk_chan_lock);
    box_err rv = w->wk_broken ? BOX_ECLOSED : worker_write(w, &f);
    if (rv != BOX_OK)
        w->wk_broken = true;
    pthread_mutex_unlock(&w->wk_chan_lock);
    return rv == BOX_OK ? 0 : -1;
}

static int
worker_out(void *ctx, const char *p, size_t n)
{
    return worker_emit(ctx, BOX__STREAM__STREAM_STDOUT, p, n);
}

static int
worker_err(void *ctx, const char *p, size_t n)
{
    return worker_emit(ctx, BOX__STREAM__STREAM_STDERR, p, n);
}

/* One decision (a box_decide_fn): from the call's cache when it holds a
 * permit the broker let it keep and the validity word has not moved since,
 * else a decide frame to the broker and its answer. A channel that fails
 * is a fault (125), never a permit; an answer's verdict is read by the one
 * wire decoder (unset or unknown: a deny). */
static box_verdict
worker_decide(void *ctx, const Box__DecisionRequest *req, char **message,
              box_ticket *ticket)
{
    worker_ctx *w = ctx;
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    f.program = w->wk_program;
    f.body_case = BOX__ALIAS_FRAME__BODY_DECIDE;
    f.decide = (Box__DecisionRequest *)req;
    Box__AliasFrame *a = NULL;
    box_err rv;
    pthread_mutex_lock(&w->wk_chan_lock);
    // Read before asking: an answer is kept under this value, so a change
    // while the question is out leaves it never served.
    uint64_t gen = worker_valid_gen(w);
    uint64_t now = box_svc_now_ms();
    uint64_t again = 0;
    if (w->wk_memo != NULL && (gen & 1) != 0 &&
        (rv = worker_serve(w, req, gen, now, &again)) != BOX_ENOENT &&
        rv != BOX_ETOOBIG) {
        pthread_mutex_unlock(&w->wk_chan_lock);
        if (rv == BOX_OK) {
            ticket->bt_again = again;
            return BOX_VERDICT_PERMIT;
        }
        *message = box_strdup("the box broker did not take a decision report");
        return BOX_VERDICT_FAULT;
    }
    rv = worker_write_question(w, &f);
    if (rv == BOX_OK)
        rv = box_frame_read(w->wk_chan, BOX_FRAME_MAX, WORKER_ANSWER_MS,
                            BOX_FRAMES_TO_WORKER, &a, NULL);
    box_verdict v = BOX_VERDICT_FAULT;
    if (rv != BOX_OK || a->body_case != BOX__ALIAS_FRAME__BODY_ANSWER) {
        *message = box_strdup("the box broker did not answer a decision");
    } else if ((v = box_verdict_from_wire(a->answer->verdict)) !=
               BOX_VERDICT_PERMIT) {
        *message = box_strdup(a->answer->message ? a->answer->message : "");
    } else if (a->answer->wants_outcomes) {
        // The policy reads history (never cacheable): its outcome is owed.
        *ticket =
            (box_ticket){.bt_id = a->answer->request_id, .bt_wanted = true};
    } else if (w->wk_memo != NULL && a->answer->cacheable &&
               a->answer->cache_fields_known) {
        box_err kept = permit_memo_add(w->wk_memo, req, a->answer->cache_fields,
                                       a->answer->n_cache_fields,
                                       a->answer->epoch, gen, box_svc_now_ms());
        (void)kept; // not kept (full, out of memory): asked next time too
    }
    pthread_mutex_unlock(&w->wk_chan_lock);
    if (a != NULL)
        box__alias_frame__free_unpacked(a, NULL);
    return v;
}

/* The status pipe's read end the broker sends with a started answer
 * (before the answer, so it is there already), or -1. */
static int
worker_recv_status(int sock)
{
    char op;
    int fd = -1;
    return box_fdpass_recv(sock, &op, &fd, 1, MSG_DONTWAIT) == 1 ? fd : -1;
}

/* The read end of the call's stdin pipe, which the broker sends (op
 * WORKER_OP_STDIN) before the Call frame that says it streams stdin, so it
 * is there already; -1 when it is not. */
static int
worker_recv_stdin(int sock)
{
    char op = 0;
    int fd = -1;
    int n = box_fdpass_recv(sock, &op, &fd, 1, MSG_DONTWAIT);
    if (n == 1 && op == WORKER_OP_STDIN)
        return fd;
    if (n == 1)
        close(fd);
    return -1;
}

/* One launch frame to the broker and its answer. A worker cannot execute
 * anything itself; the broker starts the program whose shell:spawn it
 * relayed as permitted, or says why not. */
static box_err
worker_launch(void *ctx, int argc, char *const *argv, const char *cwd,
              const int io[3], int *status_fd, int *status, char **err)
{
    worker_ctx *w = ctx;
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Launch l = BOX__LAUNCH__INIT;
    f.program = w->wk_program;
    f.body_case = BOX__ALIAS_FRAME__BODY_LAUNCH;
    f.launch = &l;
    l.n_argv = (size_t)argc;
    l.argv = (char **)argv;
    l.cwd = (char *)cwd;
    l.has_stdin = io[0] >= 0;
    int fds[3];
    size_t n = 0;
    if (io[0] >= 0)
        fds[n++] = io[0];
    for (int i = 1; i < 3; i++)
        fds[n++] = io[i];

    Box__AliasFrame *a = NULL;
    pthread_mutex_lock(&w->wk_chan_lock);
    // The descriptors go first, in one message, so they are there when
    // the broker reads the frame that names them (and before them what
    // waits, which has no descriptors).
    box_err rv = worker_batch_flush(w, &w->wk_served);
    if (rv == BOX_OK)
        rv = worker_batch_flush(w, &w->wk_outcomes);
    if (rv == BOX_OK)
        rv = box_fdpass_send(w->wk_fds, 'L', fds, n, 0);
    if (rv == BOX_OK)
        rv = box_frame_write(w->wk_chan, &f, BOX_FRAME_MAX, WORKER_WRITE_MS);
    if (rv == BOX_OK)
        rv = box_frame_read(w->wk_chan, BOX_FRAME_MAX, WORKER_ANSWER_MS,
                            BOX_FRAMES_TO_WORKER, &a, NULL);
    bool started = rv == BOX_OK &&
                   a->body_case == BOX__ALIAS_FRAME__BODY_LAUNCHED &&
                   a->launched->started;
    *status_fd = started ? worker_recv_status(w->wk_fds) : -1;
    pthread_mutex_unlock(&w->wk_chan_lock);
    if (started && *status_fd < 0) {
        *err = box_strdup("the box broker started a run without its status");
        rv = BOX_EIO;
    } else if (rv != BOX_OK ||
               a->body_case != BOX__ALIAS_FRAME__BODY_LAUNCHED) {
        *err = box_strdup("the box broker did not answer a launch");
        rv = BOX_EIO;
    } else if (!a->launched->started) {
        // A refusal never reads as success, whatever the status says.
        int st = a->launched->status;
        *status = st > 0 && st < 256 ? st : BOX_STATUS_CANNOT_RUN;
        *err = box_strdup(a->launched->message ? a->launched->message : "");
        rv = BOX_EDENIED;
    } else {
        rv = BOX_OK;
    }
    if (a != NULL)
        box__alias_frame__free_unpacked(a, NULL);
    return rv;
}

/* One dial frame to the broker and its answer: a socket connected to the
 * egress gateway, which the broker sends before the answer. A worker
 * cannot make sockets (worker_confine.c); the broker connects only to the
 * gateway's own socket. */
static box_err
worker_dial(void *ctx, int *sock, char **err)
{
    worker_ctx *w = ctx;
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__EgressDial d = BOX__EGRESS_DIAL__INIT;
    f.program = w->wk_program;
    f.body_case = BOX__ALIAS_FRAME__BODY_DIAL;
    f.dial = &d;
    *sock = -1;
    Box__AliasFrame *a = NULL;
    int fd = -1, n = -1;
    char op;
    pthread_mutex_lock(&w->wk_chan_lock);
    box_err rv = worker_batch_flush(w, &w->wk_served);
    if (rv == BOX_OK)
        rv = worker_batch_flush(w, &w->wk_outcomes);
    if (rv == BOX_OK)
        rv = box_frame_write(w->wk_chan, &f, BOX_FRAME_MAX, WORKER_WRITE_MS);
    if (rv == BOX_OK)
        rv = box_frame_read(w->wk_chan, BOX_FRAME_MAX, WORKER_ANSWER_MS,
                            BOX_FRAMES_TO_WORKER, &a, NULL);
    bool connected = rv == BOX_OK &&
                     a->body_case == BOX__ALIAS_FRAME__BODY_DIALED &&
                     a->dialed->connected;
    if (connected)
        n = box_fdpass_recv(w->wk_fds, &op, &fd, 1, MSG_DONTWAIT);
    pthread_mutex_unlock(&w->wk_chan_lock);
    if (connected && n == 1) {
        *sock = fd;
        rv = BOX_OK;
    } else if (connected) {
        *err = box_strdup("the box broker connected without the socket");
        rv = BOX_EIO;
    } else if (rv != BOX_OK || a->body_case != BOX__ALIAS_FRAME__BODY_DIALED) {
        *err = box_strdup("the box broker did not answer a dial");
        rv = BOX_EIO;
    } else {
        *err = box_strdup(a->dialed->message ? a->dialed->message : "");
        rv = BOX_ECLOSED;
    }
    if (a != NULL)
        box__alias_frame__free_unpacked(a, NULL);
    return rv;
}

struct worker_prep {
    sh_kernel *wp_kernel;
    worker_ctx *wp_ctx; // its flusher already started, or NULL
};

/* A call's context, its batches not yet made; with flusher, the thread
 * that sends old batches is started now, idle until a batch opens. NULL
 * when out of memory. */
static worker_ctx *
worker_ctx_new(bool flusher)
{
    worker_ctx *w = box_calloc(1, sizeof *w);
    if (w == NULL)
        return NULL;
    w->wk_chan = w->wk_fds = -1;
    pthread_mutex_init(&w->wk_chan_lock, NULL);
    pthread_cond_init(&w->wk_served_cv, NULL);
    if (flusher) {
        pthread_mutex_lock(&w->wk_chan_lock);
        worker_flusher_start(w);
        pthread_mutex_unlock(&w->wk_chan_lock);
    }
    return w;
}

/* Stops and joins the flusher, if it runs and was not stopped yet. It
 * stays "on": an entry added after (an outcome) then waits for the last
 * flush, as one added before it went, and starts no thread again. */
static void
worker_flusher_stop(worker_ctx *w)
{
    if (!w->wk_flusher_on || w->wk_stop)
        return;
    pthread_mutex_lock(&w->wk_chan_lock);
    w->wk_stop = true;
    pthread_cond_signal(&w->wk_served_cv);
    pthread_mutex_unlock(&w->wk_chan_lock);
    pthread_join(w->wk_flusher, NULL);
}

static void
worker_ctx_free(worker_ctx *w)
{
    if (w == NULL)
        return;
    worker_flusher_stop(w);
    permit_memo_free(w->wk_memo);
    served_again_free(w->wk_again);
    worker_batch_free(&w->wk_served);
    worker_batch_free(&w->wk_outcomes);
    pthread_cond_destroy(&w->wk_served_cv);
    pthread_mutex_destroy(&w->wk_chan_lock);
    box_free(w);
}

worker_prep *
worker_prepare(const worker_settings *ws)
{
    worker_prep *p = ws != NULL ? box_calloc(1, sizeof *p) : NULL;
    if (p != NULL && (p->wp_kernel = worker_interp_kernel(ws)) == NULL) {
        box_free(p);
        p = NULL;
    }
    // The flusher too: a call that serves a permit would otherwise start
    // it on its way (its stack mapped, its clone: a millisecond here).
    if (p != NULL)
        p->wp_ctx = worker_ctx_new(true);
    return p;
}

/* The prepared kernel and context, taken out of prep (freed); NULL for
 * what it does not hold. */
static sh_kernel *
worker_prep_take(worker_prep *prep, worker_ctx **ctx)
{
    sh_kernel *k = prep != NULL ? prep->wp_kernel : NULL;
    *ctx = prep != NULL ? prep->wp_ctx : NULL;
    box_free(prep);
    return k;
}

int
worker_main(int chan, int fds, const worker_settings *ws, worker_prep *prep)
{
    worker_ctx *w = NULL;
    // kernel: ours until worker_interp_run
    sh_kernel *kernel = worker_prep_take(prep, &w);
    Box__AliasFrame *call = NULL;
    int stdin_fd = -1, ret = 1;
    if (w == NULL && (w = worker_ctx_new(false)) == NULL)
        goto out;
    // Under the lock: a flusher started before the call may look.
    pthread_mutex_lock(&w->wk_chan_lock);
    w->wk_chan = chan;
    w->wk_fds = fds;
    w->wk_valid = ws != NULL ? ws->ws_valid : NULL;
    bool made =
        worker_batch_init(&w->wk_served, TAG_FRAME_SERVED, WORKER_SERVED_MAX,
                          WORKER_SERVED_DISTINCT,
                          WORKER_SERVED_BYTES + WORKER_SERVED_REQ_MAX + 16) &&
        worker_batch_init(&w->wk_outcomes, TAG_FRAME_OUTCOMES,
                          BOX_OUTCOMES_BATCH_MAX, 0,
                          WORKER_SERVED_BYTES + WORKER_OUTCOME_MAX + 16);
    pthread_mutex_unlock(&w->wk_chan_lock);
    if (!made)
        goto out;
    if (box_frame_read(chan, BOX_FRAME_MAX, WORKER_CALL_READ_MS,
                       BOX_FRAMES_TO_WORKER, &call, NULL) != BOX_OK ||
        call->body_case != BOX__ALIAS_FRAME__BODY_CALL ||
        call->call->source == NULL)
        goto out;
    w->wk_program = call->program;
    // Built while the worker waited, maybe long ago: a bind moved or made
    // anew since then means building it again, as the call would have.
    if (kernel != NULL && !sh_kernel_binds_current(kernel)) {
        sh_kernel_free(kernel);
        kernel = NULL;
    }
    // A streamed stdin's pipe came first, on the descriptor socket.
    if (call->call->stdin_stream && (stdin_fd = worker_recv_stdin(fds)) < 0)
        goto out;
    // Without its memo the call still runs, asking every time.
    if (w->wk_valid != NULL) {
        w->wk_memo = permit_memo_new();
        w->wk_again = served_again_new();
    }
    worker_io io = {.wi_out = worker_out,
                    .wi_err = worker_err,
                    .wi_decide = worker_decide,
                    .wi_again = worker_again,
                    .wi_record = worker_record,
                    .wi_launch = worker_launch,
                    .wi_dial = worker_dial,
                    .wi_stdin_want = worker_want_input,
                    .wi_ctx = w};
    int status = worker_interp_run(ws, call->call, stdin_fd, &io, kernel);
    kernel = NULL; // worker_interp_run's
    worker_flusher_stop(w);
    // The last reports and outcomes go before Exit: the call's log and
    // history are whole when the alias sees it end.
    if (w->wk_broken || worker_batch_flush(w, &w->wk_served) != BOX_OK ||
        worker_batch_flush(w, &w->wk_outcomes) != BOX_OK)
        goto out;
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Exit e = BOX__EXIT__INIT;
    f.program = w->wk_program;
    f.body_case = BOX__ALIAS_FRAME__BODY_EXIT;
    f.exit = &e;
    e.status = status;
    if (box_frame_write(chan, &f, BOX_FRAME_MAX, WORKER_WRITE_MS) == BOX_OK)
        ret = 0;
out:
    // The broker sees the pipe's reader go: stdin not read is dropped.
    if (stdin_fd >= 0)
        close(stdin_fd);
    if (call != NULL)
        box__alias_frame__free_unpacked(call, NULL);
    worker_ctx_free(w);
    sh_kernel_free(kernel);
    return ret;
}
