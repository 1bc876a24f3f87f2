/* SPDX-License-Identifier: Apache-2.0 */
/* The alias broker: accept, read Open and Call, relay one worker's frames. */
#include "broker.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_shopts.h"
#include "box_utf8.h"
#include "box_fdpass.h"
#include "box_frame.h"
#include "box_log.h"
#include "box_outcome.h"
#include "box_status.h"
#include "box_svc.h"
#include "box_wire.h"
#include "broker_dial.h"
#include "broker_launch.h"
#include "broker_stdin.h"
#include "permit_memo.h"

#define BROKER_SVC "box-shell"
// The Open, from the accept, and then the Call, from the Open, must each
// arrive whole within this: an alias sends them at once, and a peer that
// is silent or sends a byte now and then must not hold one of the
// BOX_MAX_CONNECTIONS slots (the calls' backstop is far longer).
#define BROKER_OPENING_MS 5000
#define BROKER_FRAME_MS 5000  // a frame during a call, whole, once begun
#define BROKER_WRITE_MS 35000 // one frame to the alias
#define BROKER_REFUSE_MS 200  // the flow-control refusal to a new peer
#define BROKER_STATUS_MS 5000 // a dead worker's wait status
#define BROKER_FINISH_MS 5000 // after the grace, for threads to end
#define BROKER_BACKLOG 128
// A connection thread that ended its connection waits this long for the
// next one, up to BROKER_IDLE_MAX of them: a thread made for each call
// cost it a clone, a stack and a malloc arena (about 0.3 ms of a 5 ms
// sh -c true).
#define BROKER_IDLE_MS 10000
#define BROKER_IDLE_MAX 4
#define BROKER_INTERRUPTED 130 // Signal{interrupt}: 128 + SIGINT
#define BROKER_CALL_ARGS_MAX 4096 // $1... of one call (its frame bounds the bytes)
// A worker's frames carry one output chunk or one decision request (a
// command text of up to 256 KiB with its arguments).
#define BROKER_WORKER_FRAME_MAX BOX_FRAME_MAX

struct broker {
    broker_config br_cfg;
    char *br_path; // <box_dir>/run/box.sock
    int br_listen;
    dev_t br_dev; // the socket file we made, to unlink only it
    ino_t br_ino;
    int br_stop;  // eventfd, readable once draining
    int br_abort; // eventfd, readable once the grace is over
    pthread_t br_listener;
    pthread_mutex_t br_mu;
    pthread_cond_t br_cv;          // br_threads dropped
    unsigned br_active;            // connections being served (at most 64)
    unsigned br_threads;           // connection threads alive
    unsigned br_idle;              // of them, waiting for a connection
    pthread_cond_t br_idle_cv;     // a connection handed over, or draining
    struct broker_conn *br_handed; // connections handed to idle threads
    bool br_draining;
    // The request_id of the next decision relayed: unique in the box's
    // history (started from the clock, so a new broker does not reuse
    // the ids an earlier one gave).
    _Atomic uint64_t br_next_id;
};

/* One alias connection; owned by its thread. */
typedef struct broker_conn {
    broker *cn_b;
    int cn_fd;                  // the alias
    uint32_t cn_program;        // echoed on every frame we send
    int cn_chan;                // the worker's channel, -1 when none
    int cn_fds;                 // the worker's descriptor socket, -1 when none
    int cn_status;              // the worker's status pipe, -1 when none
    broker_permits *cn_permits; // shell:spawn permits not launched yet
    // The permits the worker was let keep for its call (permit_memo.h):
    // a report of a cached permit is taken only for one of these.
    permit_memo *cn_memo;
    // The permits relayed whose outcome the policy reads, until the
    // worker reports it (box_outcome.h): an outcome is recorded only for
    // one of these, with the action and input the PDP decided.
    box_outcome_book *cn_book;
    uint64_t cn_out;     // output bytes relayed
    uint32_t cn_version; // the alias's protocol (its Open)
    // During the call: the alias's next frame as far as it came (a frame
    // half sent never holds the loop), and its stdin (broker_stdin.h).
    box_frame_rd cn_rd;
    uint64_t cn_rd_since; // when cn_rd's frame began
    broker_stdin cn_in;
    struct broker_conn *cn_next; // in br_handed
    bool cn_idle_early;          // counted in br_idle before its tail
} broker_conn;

/* ------------------------------------------------------------------ */
/* Frames to the alias                                                 */
/* ------------------------------------------------------------------ */

static box_err
conn_send(broker_conn *c, Box__AliasFrame *f)
{
    f->program = c->cn_program;
    return box_frame_write(c->cn_fd, f, BOX_FRAME_MAX, BROKER_WRITE_MS);
}

static void __attribute__((format(printf, 3, 4)))
conn_deny(broker_conn *c, Box__DeniedKind kind, const char *fmt, ...)
{
    char reason[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Denied d = BOX__DENIED__INIT;
    d.kind = kind;
    d.reason = reason;
    f.body_case = BOX__ALIAS_FRAME__BODY_DENIED;
    f.denied = &d;
    (void)conn_send(c, &f); // the alias may be gone; nothing to add
}

static box_err
conn_exit(broker_conn *c, int status)
{
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Exit e = BOX__EXIT__INIT;
    e.status = status;
    f.body_case = BOX__ALIAS_FRAME__BODY_EXIT;
    f.exit = &e;
    return conn_send(c, &f);
}

static box_err
conn_stderr(broker_conn *c, const char *text)
{
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Output o = BOX__OUTPUT__INIT;
    o.stream = BOX__STREAM__STREAM_STDERR;
    o.data.data = (uint8_t *)text;
    o.data.len = strlen(text);
    f.body_case = BOX__ALIAS_FRAME__BODY_OUTPUT;
    f.output = &o;
    return conn_send(c, &f);
}

#define BROKER_OUTCOME_WARNING                                                 \
    "strands-box: warning: policy outcome recording was not confirmed\n"

/* Has the PDP append n outcome events (box-spec §7: a failure is a
 * warning to the agent, the call goes on). */
static void
conn_record(broker_conn *c, Box__Event **evs, size_t n)
{
    Box__EventBatch eb = BOX__EVENT_BATCH__INIT;
    eb.n_events = n;
    eb.events = evs;
    box_err rv = box_pdp_record(c->cn_b->br_cfg.bc_pdp, &eb);
    if (rv == BOX_OK)
        return;
    box_log(BOX_LOG_WARN, BROKER_SVC,
            "%zu outcome events were not recorded by the PDP: %s", n,
            box_strerror(rv));
    (void)conn_stderr(c, BROKER_OUTCOME_WARNING);
}

/* The permits whose outcome never came (the worker is gone or ended
 * without it): each recorded as what it may have been, an fs:* effect
 * "indeterminate", a command with no status (-1), dogwood-spec §5.6. */
static void
conn_record_unreported(broker_conn *c)
{
    box_outcome_ev evs[BOX_OUTCOMES_BATCH_MAX];
    Box__Event *ptrs[BOX_OUTCOMES_BATCH_MAX];
    while (c->cn_book != NULL && box_outcome_book_len(c->cn_book) > 0) {
        size_t n = 0;
        while (n < BOX_OUTCOMES_BATCH_MAX &&
               box_outcome_book_take_unreported(c->cn_book, &evs[n]) ==
                   BOX_OK) {
            ptrs[n] = &evs[n].oe_ev;
            n++;
        }
        if (n == 0)
            break; // out of memory: they are lost
        conn_record(c, ptrs, n);
        for (size_t i = 0; i < n; i++)
            box_outcome_ev_clear(&evs[i]);
    }
}

/* Ends the worker, if any: closing its status pipe tells the zygote to
 * kill it (a finished worker is merely reaped). What it still owed of
 * outcomes is recorded first. */
static void
conn_drop_worker(broker_conn *c)
{
    conn_record_unreported(c);
    box_outcome_book_free(c->cn_book);
    c->cn_book = NULL;
    if (c->cn_status >= 0)
        close(c->cn_status);
    if (c->cn_chan >= 0)
        close(c->cn_chan);
    if (c->cn_fds >= 0)
        close(c->cn_fds);
    c->cn_status = c->cn_chan = c->cn_fds = -1;
    broker_permits_free(c->cn_permits);
    c->cn_permits = NULL;
    permit_memo_free(c->cn_memo);
    c->cn_memo = NULL;
    broker_stdin_close(&c->cn_in);
}

/* ------------------------------------------------------------------ */
/* Frames from the alias                                               */
/* ------------------------------------------------------------------ */

/* How reading a frame from the alias ended, besides a box_err. */
typedef enum conn_read_end {
    CONN_READ_FRAME,  // *out holds a frame
    CONN_READ_IDLE,   // no frame began within the deadline
    CONN_READ_WOKEN,  // wake_fd fired (the broker is stopping)
    CONN_READ_FAILED, // see the box_err and the fault
} conn_read_end;

/* Waits up to within_ms for a frame to begin (or wake_fd), then reads it
 * whole by the same deadline. */
static conn_read_end
conn_read(broker_conn *c, int wake_fd, int within_ms, Box__AliasFrame **out,
          box_err *err, box_frame_fault *fault)
{
    uint64_t deadline = box_svc_now_ms() + (uint64_t)within_ms;
    struct pollfd p[2] = {{.fd = c->cn_fd, .events = POLLIN},
                          {.fd = wake_fd, .events = POLLIN}};
    int n;
    do {
        uint64_t now = box_svc_now_ms();
        n = poll(p, 2, now < deadline ? (int)(deadline - now) : 0);
    } while (n < 0 && errno == EINTR);
    if (n == 0)
        return CONN_READ_IDLE;
    if (n < 0) {
        *err = BOX_EIO;
        return CONN_READ_FAILED;
    }
    if (p[1].revents & POLLIN)
        return CONN_READ_WOKEN;
    uint64_t now = box_svc_now_ms();
    int left = now < deadline ? (int)(deadline - now) : 0;
    *err = box_frame_read(c->cn_fd, BOX_FRAME_MAX, left, BOX_FRAMES_FROM_ALIAS,
                          out, fault);
    return *err == BOX_OK ? CONN_READ_FRAME : CONN_READ_FAILED;
}

/* Answers a read that did not give a frame within within_ms; `what`
 * names the frame that did not come (for CONN_READ_IDLE). A peer that is
 * simply gone gets nothing. */
static void
conn_read_failed(broker_conn *c, conn_read_end end, box_err err,
                 const box_frame_fault *fault, const char *what, int within_ms)
{
    if (end == CONN_READ_IDLE) {
        conn_deny(c, BOX__DENIED_KIND__DENIED_TIMEOUT,
                  "the alias sent no %s frame within %d s", what,
                  within_ms / 1000);
        return;
    }
    if (end == CONN_READ_WOKEN) {
        conn_deny(c, BOX__DENIED_KIND__DENIED_FLOW_CONTROL,
                  "the box broker is stopping");
        return;
    }
    switch (err) {
    case BOX_ETOOBIG:
        conn_deny(c, BOX__DENIED_KIND__DENIED_TRANSPORT_ERROR,
                  "Shell frame is %u bytes; maximum is %u", fault->ff_size,
                  BOX_FRAME_MAX);
        break;
    case BOX_EPROTO:
        if (!fault->ff_cut && fault->ff_scan.sr_fault == BOX_WIRE_SCAN_REFUSED)
            conn_deny(c, BOX__DENIED_KIND__DENIED_TRANSPORT_ERROR,
                      "the alias may not send a %s frame",
                      box_frame_name(
                          (Box__AliasFrame__BodyCase)fault->ff_scan.sr_field));
        else if (!fault->ff_cut &&
                 fault->ff_scan.sr_fault == BOX_WIRE_SCAN_TOO_DEEP)
            conn_deny(c, BOX__DENIED_KIND__DENIED_TRANSPORT_ERROR,
                      "read a transport frame: the frame nests messages "
                      "deeper than %d",
                      BOX_WIRE_DEPTH_MAX);
        else
            conn_deny(c, BOX__DENIED_KIND__DENIED_TRANSPORT_ERROR,
                      "read a transport frame: the frame is truncated or "
                      "does not decode");
        break;
    case BOX_ETIMEDOUT:
        conn_deny(c, BOX__DENIED_KIND__DENIED_TIMEOUT,
                  "the alias did not finish a frame within %d s",
                  within_ms / 1000);
        break;
    case BOX_ENOMEM:
        conn_deny(c, BOX__DENIED_KIND__DENIED_INTERNAL,
                  "the box broker is out of memory");
        break;
    default:
        break; // closed or broken: no one to tell
    }
}

/* ------------------------------------------------------------------ */
/* One call                                                            */
/* ------------------------------------------------------------------ */

/* Fail closed, and say what the operator can do. */
#define BROKER_COVER_LOST                                                      \
    "box.toml or the policy file was replaced by a new file while the box "    \
    "ran (editors that save by renaming do this), which took it out from "     \
    "under the shell's cover: the shell runs no more calls; save it in "       \
    "place, and start the box again"

/* The worker's channel closed before Exit: say why, from its status. */
static void
conn_worker_gone(broker_conn *c)
{
    int ws = 0;
    box_err rv = worker_pool_wait(c->cn_status, BROKER_STATUS_MS, &ws);
    char msg[128];
    conn_drop_worker(c);
    if (rv == BOX_OK && ws == WORKER_COVER_LOST) {
        box_log(BOX_LOG_ERROR, BROKER_SVC, "%s", BROKER_COVER_LOST);
        conn_deny(c, BOX__DENIED_KIND__DENIED_INTERNAL, "%s",
                  BROKER_COVER_LOST);
        return;
    }
    if (rv != BOX_OK || WORKER_NOT_STARTED(ws)) {
        box_log(BOX_LOG_ERROR, BROKER_SVC, "a shell worker %s",
                rv == BOX_OK ? "could not start" : "was lost");
        conn_deny(c, BOX__DENIED_KIND__DENIED_INTERNAL, "the shell worker %s",
                  rv == BOX_OK ? "could not start" : "was lost");
        return;
    }
    if (WIFSIGNALED(ws)) {
        box_log(BOX_LOG_WARN, BROKER_SVC, "a shell worker crashed (signal %d)",
                WTERMSIG(ws));
        snprintf(msg, sizeof msg,
                 "strands-box: the shell worker crashed (signal %d)\n",
                 WTERMSIG(ws));
    } else {
        box_log(BOX_LOG_WARN, BROKER_SVC,
                "a shell worker exited (status %d) before its call ended",
                WEXITSTATUS(ws));
        snprintf(msg, sizeof msg,
                 "strands-box: the shell worker exited with status %d "
                 "before the call ended\n",
                 WEXITSTATUS(ws));
    }
    if (conn_stderr(c, msg) == BOX_OK)
        (void)conn_exit(c, BOX_STATUS_FAULT);
}

/* True when the worker may keep this permit for its call: the PDP
 * allowed caching it (a hit of the client's cache was allowed when it was
 * made), the fields it depends on are known, and this connection's memo
 * took it too (the two memos stay the same). Sets wa's cache fields, which
 * own *fields (freed by the caller). */
static bool
conn_let_keep(broker_conn *c, const Box__DecisionRequest *req,
              const box_pdp_answer *a, Box__WorkerAnswer *wa, char ***fields)
{
    box_pdp_client *pdp = c->cn_b->br_cfg.bc_pdp;
    size_t n = 0;
    *fields = NULL;
    if (c->cn_memo == NULL || !(a->pa_cacheable || a->pa_from_cache) ||
        !permit_memo_keeps(req))
        return false;
    if (a->pa_cache_fields_known) {
        char *const *src = a->pa_cache_fields;
        n = a->pa_ncache_fields;
        if ((*fields = box_calloc(n + 1, sizeof **fields)) == NULL)
            return false;
        for (size_t i = 0; i < n; i++)
            if (((*fields)[i] = box_strdup(src[i])) == NULL)
                return false;
    } else if (box_pdp_client_cache_fields(pdp, req->action, a->pa_epoch,
                                           fields, &n) != BOX_OK) {
        return false;
    }
    if (permit_memo_add(c->cn_memo, req, *fields, n, a->pa_epoch, 0,
                        box_svc_now_ms()) != BOX_OK)
        return false;
    wa->cacheable = true;
    wa->epoch = a->pa_epoch;
    wa->cache_fields_known = true;
    wa->cache_fields = *fields;
    wa->n_cache_fields = n;
    return true;
}

static void
conn_fields_free(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        box_free(v[i]);
    box_free(v);
}

/* Answers a worker's decide frame from the box's PDP client, passing its
 * verdict on as it is: a client that cannot decide answers FAULT with a
 * message naming the PDP (the command ends 125); a channel that fails
 * ends the call. Each request goes under a request_id of the broker's; a
 * permit whose outcome the policy reads is kept in the call's book. */
static bool
conn_decide(broker_conn *c, const Box__DecisionRequest *wreq)
{
    box_pdp_answer a = {0};
    char **fields = NULL;
    Box__DecisionRequest copy = *wreq;
    const Box__DecisionRequest *req = &copy;
    copy.request_id = atomic_fetch_add(&c->cn_b->br_next_id, 1);
    // The verdict says it all: a client that could not decide answered
    // FAULT, so the transport's error needs no reading of its own.
    box_err rv = box_pdp_decide(c->cn_b->br_cfg.bc_pdp, req, &a);
    (void)rv;
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__WorkerAnswer wa = BOX__WORKER_ANSWER__INIT;
    f.program = c->cn_program;
    f.body_case = BOX__ALIAS_FRAME__BODY_ANSWER;
    f.answer = &wa;
    wa.verdict = box_verdict_to_wire(a.pa_verdict);
    wa.message = a.pa_message ? a.pa_message : (char *)"";
    if (a.pa_verdict == BOX_VERDICT_PERMIT) {
        broker_permits_note(c->cn_permits, req);
        (void)conn_let_keep(c, req, &a, &wa, &fields);
    }
    if (a.pa_verdict == BOX_VERDICT_PERMIT && a.pa_wants_outcomes) {
        box_err kept =
            c->cn_book != NULL
                ? box_outcome_book_expect(c->cn_book, copy.request_id, req)
                : BOX_ENOMEM;
        if (kept == BOX_OK) {
            wa.wants_outcomes = true;
            wa.request_id = copy.request_id;
        } else {
            // The permit stands; history will not hear how it ended.
            box_log(BOX_LOG_WARN, BROKER_SVC,
                    "the outcome of a permitted %s will not be recorded: %s",
                    req->action ? req->action : "effect", box_strerror(kept));
        }
    }
    box_err wr =
        box_frame_write(c->cn_chan, &f, BOX_FRAME_MAX, BROKER_FRAME_MS);
    box_pdp_answer_clear(&a);
    conn_fields_free(fields);
    return wr == BOX_OK;
}

/* Permits the worker served from its call's cache: logged like the
 * client's own hits, but only when this connection let the worker keep
 * each. Each distinct permit comes once, with the order they were served
 * in when one repeats (ServedBatch.order): checked once, logged once per
 * serving. False when the worker broke the protocol (none of the batch
 * is logged as served then, and the call ends). */
static bool
conn_served(broker_conn *c, const Box__ServedBatch *sb)
{
    if (c->cn_memo == NULL)
        return false;
    for (size_t i = 0; i < sb->n_requests; i++) {
        permit_memo_hit hit;
        // Kept here, from the generation it names, and marked a report.
        if (sb->requests[i] == NULL || !sb->requests[i]->cached ||
            !permit_memo_has(c->cn_memo, sb->requests[i], PERMIT_MEMO_ANY_GEN,
                             0, 0, &hit) ||
            hit.ph_epoch != sb->requests[i]->cached_epoch)
            return false;
    }
    for (size_t k = 0; k < sb->n_order; k++)
        if (sb->order[k] >= sb->n_requests)
            return false;
    if (box_pdp_client_report_many(
            c->cn_b->br_cfg.bc_pdp,
            (const Box__DecisionRequest *const *)sb->requests, sb->n_requests,
            sb->order, sb->n_order) != BOX_OK)
        box_log(BOX_LOG_WARN, BROKER_SVC,
                "decisions served from a worker's cache were not all "
                "reported to the PDP");
    // Sent on now, not with the next question: a call that runs long (or
    // is killed) after its last hits still has them in the log. By the
    // client's reporter: the call goes on meanwhile.
    box_pdp_client_flush_soon(c->cn_b->br_cfg.bc_pdp);
    return true;
}

/* A worker's outcomes frame: each event must be the outcome of a permit
 * relayed to this call and still owed, in the shape of its action; the
 * PDP then appends the events as the book has them (the decided action
 * and input), before the worker's next frame is read, so the call's next
 * decision sees them. False when the worker broke the protocol (none of
 * the frame is recorded then, and the call ends). */
static bool
conn_outcomes(broker_conn *c, const Box__EventBatch *eb)
{
    box_outcome_ev evs[BOX_OUTCOMES_BATCH_MAX];
    Box__Event *ptrs[BOX_OUTCOMES_BATCH_MAX];
    size_t n = 0;
    bool ok = c->cn_book != NULL && eb->n_events > 0 &&
              eb->n_events <= BOX_OUTCOMES_BATCH_MAX;
    for (size_t i = 0; ok && i < eb->n_events; i++) {
        box_outcome o;
        box_err rv;
        if (eb->events[i] == NULL || !box_outcome_read(eb->events[i], &o)) {
            ok = false;
        } else if ((rv = box_outcome_book_take(c->cn_book,
                                               eb->events[i]->request_id, &o,
                                               &evs[n])) == BOX_OK) {
            ptrs[n] = &evs[n].oe_ev;
            n++;
        } else if (rv != BOX_ENOMEM) {
            ok = false; // not owed, or not of its action's shape
        }
    }
    if (ok && n > 0)
        conn_record(c, ptrs, n);
    for (size_t i = 0; i < n; i++)
        box_outcome_ev_clear(&evs[i]);
    return ok;
}

/* Answers a worker's launch frame. Returns false when the worker broke
 * the protocol (the caller ends the call) or the channel failed. */
static bool
conn_launch(broker_conn *c, const Box__Launch *l, bool *broke)
{
    broker *b = c->cn_b;
    broker_launch_cfg cfg = {.bl_settings = b->br_cfg.bc_settings,
                             .bl_launcher = b->br_cfg.bc_launcher,
                             .bl_pdp = b->br_cfg.bc_pdp};
    bool started = false;
    char *refusal = NULL;
    *broke = false;
    if (cfg.bl_settings == NULL || cfg.bl_launcher == NULL)
        refusal = box_strdup("host-binary execution requires a contained "
                             "spawner; none is installed");
    else if (broker_launch(&cfg, c->cn_permits, c->cn_fds, l, &started,
                           &refusal) != BOX_OK) {
        *broke = true;
        return false;
    }
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__LaunchAnswer ans = BOX__LAUNCH_ANSWER__INIT;
    f.program = c->cn_program;
    f.body_case = BOX__ALIAS_FRAME__BODY_LAUNCHED;
    f.launched = &ans;
    ans.started = started;
    ans.status = started ? BOX_STATUS_OK : BOX_STATUS_CANNOT_RUN;
    ans.message = refusal != NULL ? refusal : (char *)"out of memory";
    if (started)
        ans.message = (char *)"";
    box_err wr =
        box_frame_write(c->cn_chan, &f, BOX_FRAME_MAX, BROKER_FRAME_MS);
    box_free(refusal);
    return wr == BOX_OK;
}

/* Answers a worker's dial frame (broker_dial.c). Returns false when the
 * descriptor socket or the channel failed. */
static bool
conn_dial(broker_conn *c, const Box__EgressDial *d)
{
    char *refusal = NULL;
    (void)d; // one kind of dial: to the gateway
    box_err rv = broker_dial(c->cn_b->br_cfg.bc_settings, c->cn_fds, &refusal);
    if (rv != BOX_OK && rv != BOX_EDENIED)
        return false;
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__EgressDialed ans = BOX__EGRESS_DIALED__INIT;
    f.program = c->cn_program;
    f.body_case = BOX__ALIAS_FRAME__BODY_DIALED;
    f.dialed = &ans;
    ans.connected = rv == BOX_OK;
    ans.message = rv == BOX_OK      ? (char *)""
                  : refusal != NULL ? refusal
                                    : (char *)"out of memory";
    box_err wr =
        box_frame_write(c->cn_chan, &f, BOX_FRAME_MAX, BROKER_FRAME_MS);
    box_free(refusal);
    return wr == BOX_OK;
}

/* The worker sent a frame it may not send: it is killed and the call
 * ends. */
static void
conn_worker_broke(broker_conn *c, const char *what)
{
    box_log(BOX_LOG_ERROR, BROKER_SVC, "a shell worker sent %s; killed", what);
    conn_drop_worker(c);
    conn_deny(c, BOX__DENIED_KIND__DENIED_INTERNAL,
              "the shell worker broke the frame protocol");
}

/* The call's Exit went out: the alias may call again the instant it reads
 * it, sooner than this thread's tail (freeing the call's state) takes. So
 * the thread counts itself idle now, and the listener hands that call to
 * it instead of making a thread; it serves it once the tail is done, which
 * waits on nothing outside the broker. Counted before the write, a slow
 * alias could hold the next call up to BROKER_WRITE_MS. */
static void
conn_idle_early(broker_conn *c)
{
    broker *b = c->cn_b;
    pthread_mutex_lock(&b->br_mu);
    if (!b->br_draining && b->br_idle < BROKER_IDLE_MAX) {
        b->br_idle++;
        c->cn_idle_early = true;
    }
    pthread_mutex_unlock(&b->br_mu);
}

/* Relays one frame from the worker. Returns true when the call is over
 * (Exit relayed, or the call was refused/ended). */
static bool
conn_from_worker(broker_conn *c)
{
    Box__AliasFrame *w = NULL;
    box_frame_fault fault;
    char what[64];
    box_err rv =
        box_frame_read(c->cn_chan, BROKER_WORKER_FRAME_MAX, BROKER_FRAME_MS,
                       BOX_FRAMES_FROM_WORKER, &w, &fault);
    if (rv == BOX_EPROTO && !fault.ff_cut) {
        // Whole bytes refused: the worker lives on and must be ended.
        if (fault.ff_scan.sr_fault == BOX_WIRE_SCAN_REFUSED)
            snprintf(what, sizeof what, "a %s frame",
                     box_frame_name(
                         (Box__AliasFrame__BodyCase)fault.ff_scan.sr_field));
        else
            snprintf(what, sizeof what, "a frame that %s",
                     fault.ff_scan.sr_fault == BOX_WIRE_SCAN_TOO_DEEP
                         ? "nests too deep"
                         : "does not decode");
        conn_worker_broke(c, what);
        return true;
    }
    if (rv != BOX_OK) {
        conn_worker_gone(c);
        return true;
    }
    bool done = true;
    if (w->body_case == BOX__ALIAS_FRAME__BODY_DECIDE && w->decide != NULL &&
        c->cn_b->br_cfg.bc_pdp != NULL) {
        done = !conn_decide(c, w->decide);
        if (done)
            conn_worker_gone(c);
    } else if (w->body_case == BOX__ALIAS_FRAME__BODY_SERVED &&
               w->served != NULL && c->cn_b->br_cfg.bc_pdp != NULL) {
        done = !conn_served(c, w->served);
        if (done)
            conn_worker_broke(c, "a served frame for a permit it was not let "
                                 "keep");
    } else if (w->body_case == BOX__ALIAS_FRAME__BODY_OUTCOMES &&
               w->outcomes != NULL) {
        done = !conn_outcomes(c, w->outcomes);
        if (done)
            conn_worker_broke(c, "an outcomes frame for effects it was not "
                                 "permitted");
    } else if (w->body_case == BOX__ALIAS_FRAME__BODY_LAUNCH &&
               w->launch != NULL) {
        bool broke = false;
        done = !conn_launch(c, w->launch, &broke);
        if (broke)
            conn_worker_broke(c, "a launch frame without its descriptors");
        else if (done)
            conn_worker_gone(c);
    } else if (w->body_case == BOX__ALIAS_FRAME__BODY_DIAL && w->dial != NULL) {
        done = !conn_dial(c, w->dial);
        if (done)
            conn_worker_gone(c);
    } else if (w->body_case == BOX__ALIAS_FRAME__BODY_INPUT_WANTED &&
               w->input_wanted != NULL) {
        // Passed on to an alias that waits to be asked (protocol 8 streams
        // unasked); one whose stdin ended has nothing more to give.
        done = false;
        if (c->cn_in.bs_on && !c->cn_in.bs_eof &&
            c->cn_version >= BOX_ALIAS_PROTOCOL_INPUT_WANTED)
            done = conn_send(c, w) != BOX_OK;
    } else if (w->body_case == BOX__ALIAS_FRAME__BODY_EXIT) {
        // What the call still owes goes before the alias sees it end.
        conn_record_unreported(c);
        (void)conn_send(c, w);
        conn_idle_early(c);
    } else if (w->body_case == BOX__ALIAS_FRAME__BODY_OUTPUT &&
               (w->output->stream == BOX__STREAM__STREAM_STDOUT ||
                w->output->stream == BOX__STREAM__STREAM_STDERR) &&
               w->output->data.len <= BOX_OUTPUT_CHUNK_MAX) {
        if (c->cn_out + w->output->data.len > BOX_CALL_OUTPUT_MAX) {
            conn_drop_worker(c);
            conn_deny(c, BOX__DENIED_KIND__DENIED_OVER_BUDGET,
                      "the program exceeded its output budget");
        } else {
            c->cn_out += w->output->data.len;
            // An alias that stopped reading or left ends the call.
            done = conn_send(c, w) != BOX_OK;
        }
    } else {
        snprintf(what, sizeof what, "a bad %s frame",
                 box_frame_name(w->body_case));
        conn_worker_broke(c, what);
    }
    box__alias_frame__free_unpacked(w, NULL);
    return done;
}

/* How long a frame from the alias may take during the call, once begun.
 * An alias that streams stdin may stop in the middle of an input frame
 * while its own stdout, which it writes our output to, is full: as long
 * as it allows us to be silent (box-spec §2's 35 s). */
static int
conn_frame_ms(const broker_conn *c)
{
    return c->cn_in.bs_on ? BOX_ALIAS_READ_TIMEOUT_MS : BROKER_FRAME_MS;
}

/* An input or input_eof frame during the call (broker_stdin.h): on
 * BOX_OK an input frame is the stream's (*a is then NULL). Returns true
 * when the call is over. */
static bool
conn_input(broker_conn *c, Box__AliasFrame **a)
{
    box_err rv;
    if ((*a)->body_case == BOX__ALIAS_FRAME__BODY_INPUT_EOF) {
        rv = broker_stdin_eof(&c->cn_in);
    } else if ((rv = broker_stdin_take(&c->cn_in, *a)) == BOX_OK) {
        *a = NULL;
    }
    if (rv == BOX_OK)
        return false;
    conn_drop_worker(c);
    if (rv == BOX_ETOOBIG)
        conn_deny(c, BOX__DENIED_KIND__DENIED_OVER_BUDGET,
                  "the program exceeded its input budget (%llu bytes of "
                  "standard input)",
                  (unsigned long long)c->cn_in.bs_max);
    else
        conn_deny(c, BOX__DENIED_KIND__DENIED_TRANSPORT_ERROR,
                  "the alias sent %s after input_eof",
                  (*a)->body_case == BOX__ALIAS_FRAME__BODY_INPUT
                      ? "an input frame"
                      : "a second input_eof frame");
    return true;
}

/* Handles what the alias sent during a call: a frame, once it is whole
 * (the rest of one half sent waits for the next poll). Returns true when
 * the call is over. Stdin reaches the command only when the call streams
 * it (protocol 8); else input is dropped. */
static bool
conn_from_alias(broker_conn *c)
{
    Box__AliasFrame *a = NULL;
    box_frame_fault fault;
    bool begun = c->cn_rd.fr_got > 0;
    box_err rv = box_frame_pull(c->cn_fd, &c->cn_rd, BOX_FRAME_MAX,
                                BOX_FRAMES_FROM_ALIAS, &a, &fault);
    if (rv == BOX_OK && a == NULL) {
        if (!begun && c->cn_rd.fr_got > 0)
            c->cn_rd_since = box_svc_now_ms();
        return false; // not whole yet
    }
    if (rv != BOX_OK) {
        conn_drop_worker(c);
        conn_read_failed(c, CONN_READ_FAILED, rv, &fault, NULL,
                         conn_frame_ms(c));
        return true;
    }
    bool done = true;
    switch (a->body_case) {
    case BOX__ALIAS_FRAME__BODY_INPUT:
    case BOX__ALIAS_FRAME__BODY_INPUT_EOF:
        done = conn_input(c, &a);
        break;
    case BOX__ALIAS_FRAME__BODY_SIGNAL:
        conn_drop_worker(c);
        (void)conn_exit(c, BROKER_INTERRUPTED);
        break;
    case BOX__ALIAS_FRAME__BODY_CLOSE:
        conn_drop_worker(c);
        break;
    default:
        conn_drop_worker(c);
        conn_deny(c, BOX__DENIED_KIND__DENIED_TRANSPORT_ERROR,
                  "the alias sent a %s frame during a call",
                  box_frame_name(a->body_case));
        break;
    }
    if (a != NULL)
        box__alias_frame__free_unpacked(a, NULL);
    return done;
}

/* A call that streams stdin (protocol 8) gets its pipe, whose read end
 * goes to the worker on its descriptor socket ahead of the Call frame;
 * any other reads end of file, whatever its Call says. False when the
 * pipe could not be made or handed over (the call is refused). */
static bool
conn_stdin_open(broker_conn *c, Box__Call *call)
{
    if (c->cn_version < BOX_ALIAS_PROTOCOL_STDIN || !call->stdin_stream) {
        call->stdin_stream = false;
        return true;
    }
    int rd = -1;
    box_err rv = broker_stdin_open(&c->cn_in, &rd);
    if (rv == BOX_OK) {
        rv = box_fdpass_send(c->cn_fds, WORKER_OP_STDIN, &rd, 1, 0);
        close(rd);
    }
    if (rv == BOX_OK)
        return true;
    box_log(BOX_LOG_ERROR, BROKER_SVC, "cannot hand a call its stdin: %s",
            box_strerror(rv));
    return false;
}

static void
conn_run(broker_conn *c, Box__AliasFrame *call)
{
    broker *b = c->cn_b;
    worker_ends we;
    box_err rv = worker_pool_spawn(b->br_cfg.bc_pool, &we);
    if (rv == BOX_OK) {
        c->cn_chan = we.we_chan;
        c->cn_fds = we.we_fds;
        c->cn_status = we.we_status;
        if ((c->cn_permits = broker_permits_new()) == NULL ||
            (c->cn_memo = permit_memo_new()) == NULL ||
            (c->cn_book = box_outcome_book_new()) == NULL)
            rv = BOX_ENOMEM;
    }
    if (rv != BOX_OK) {
        conn_drop_worker(c);
        box_log(BOX_LOG_ERROR, BROKER_SVC, "cannot start a shell worker: %s",
                box_strerror(rv));
        conn_deny(c, BOX__DENIED_KIND__DENIED_INTERNAL,
                  "the shell worker could not start");
        return;
    }
    if (!conn_stdin_open(c, call->call)) {
        conn_drop_worker(c);
        conn_deny(c, BOX__DENIED_KIND__DENIED_INTERNAL,
                  "the box broker could not connect the call's stdin");
        return;
    }
    if (box_frame_write(c->cn_chan, call, BOX_FRAME_MAX, BROKER_FRAME_MS) !=
        BOX_OK) {
        conn_worker_gone(c);
        return;
    }
    uint64_t deadline = box_svc_now_ms() + (uint64_t)b->br_cfg.bc_backstop_ms;
    for (;;) {
        uint64_t now = box_svc_now_ms();
        if (now >= deadline) {
            conn_drop_worker(c);
            int ms = b->br_cfg.bc_backstop_ms;
            if (ms % 1000 == 0)
                conn_deny(c, BOX__DENIED_KIND__DENIED_TIMEOUT,
                          "the call ran past the box broker's %d s backstop",
                          ms / 1000);
            else
                conn_deny(c, BOX__DENIED_KIND__DENIED_TIMEOUT,
                          "the call ran past the box broker's %d ms backstop",
                          ms);
            return;
        }
        // A frame begun must end in time, as at the opening: a peer that
        // sends a byte now and then must not hold the loop's slot.
        uint64_t wake = deadline;
        if (c->cn_rd.fr_got > 0) {
            uint64_t end = c->cn_rd_since + conn_frame_ms(c);
            if (now >= end) {
                conn_drop_worker(c);
                conn_deny(c, BOX__DENIED_KIND__DENIED_TIMEOUT,
                          "the alias did not finish a frame within %d s",
                          conn_frame_ms(c) / 1000);
                return;
            }
            wake = end < wake ? end : wake;
        }
        // While stdin waits for room in the pipe, nothing more is read
        // from the alias: its own socket holds it back. Its hangup still
        // shows.
        bool held = broker_stdin_waiting(&c->cn_in);
        struct pollfd p[4] = {
            {.fd = c->cn_chan, .events = POLLIN},
            {.fd = b->br_abort, .events = POLLIN},
            {.fd = c->cn_fd, .events = held ? 0 : POLLIN},
            {.fd = held ? c->cn_in.bs_fd : -1, .events = POLLOUT}};
        int n = poll(p, 4, (int)(wake - now));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            conn_drop_worker(c);
            conn_deny(c, BOX__DENIED_KIND__DENIED_INTERNAL,
                      "the box broker failed to wait for the call");
            return;
        }
        if (p[1].revents & POLLIN) {
            conn_drop_worker(c);
            conn_deny(c, BOX__DENIED_KIND__DENIED_INTERNAL,
                      "the box broker stopped before the call finished");
            return;
        }
        // Worker output first: an Exit already sent wins over a hangup.
        if (p[0].revents != 0 && conn_from_worker(c))
            return;
        if (p[3].revents != 0)
            broker_stdin_pump(&c->cn_in);
        if (held && (p[2].revents & (POLLHUP | POLLERR))) {
            conn_drop_worker(c); // the alias is gone: no one to tell
            return;
        }
        if (!held && p[2].revents != 0 && conn_from_alias(c))
            return;
    }
}

/* What is wrong with a call's $0, arguments or options (a protocol 7
 * alias's), or NULL. */
static const char *
conn_call_args_bad(const Box__Call *call)
{
    if (call->n_args > BROKER_CALL_ARGS_MAX)
        return "Shell call has too many arguments";
    for (size_t i = 0; i <= call->n_args; i++) {
        const char *a = i == call->n_args ? call->arg0 : call->args[i];
        if (a != NULL && !box_utf8_valid(a, strlen(a)))
            return "Shell argument is not valid UTF-8";
    }
    if (!box_shopt_args_ok(call->set_options, call->n_set_options))
        return "Shell call carries an option the box's shell does not take";
    return NULL;
}

/* Open, then Call, then the call itself. */
static void
conn_serve(broker_conn *c)
{
    broker *b = c->cn_b;
    Box__AliasFrame *f = NULL;
    box_err err = BOX_OK;
    box_frame_fault fault = {0};

    conn_read_end end =
        conn_read(c, b->br_stop, BROKER_OPENING_MS, &f, &err, &fault);
    if (end != CONN_READ_FRAME) {
        conn_read_failed(c, end, err, &fault, "open", BROKER_OPENING_MS);
        return;
    }
    c->cn_program = f->program;
    if (f->body_case != BOX__ALIAS_FRAME__BODY_OPEN) {
        conn_deny(c, BOX__DENIED_KIND__DENIED_TRANSPORT_ERROR,
                  "the first frame must be open, not %s",
                  box_frame_name(f->body_case));
        goto out;
    }
    c->cn_version = f->open->version;
    if (f->open->version < BOX_ALIAS_PROTOCOL_OLDEST ||
        f->open->version > BOX_ALIAS_PROTOCOL_VERSION) {
        conn_deny(c, BOX__DENIED_KIND__DENIED_VERSION_MISMATCH,
                  "the alias speaks protocol version %u; this box speaks %u",
                  f->open->version, BOX_ALIAS_PROTOCOL_VERSION);
        goto out;
    }
    switch (f->open->mode_case) {
    case BOX__OPEN__MODE_SHELL:
        break;
    case BOX__OPEN__MODE_PYTHON:
        conn_deny(c, BOX__DENIED_KIND__DENIED_INTERNAL,
                  "the Python route is not supported yet");
        goto out;
    case BOX__OPEN__MODE_MCP:
        conn_deny(c, BOX__DENIED_KIND__DENIED_INTERNAL,
                  "the MCP route is not supported yet");
        goto out;
    default:
        conn_deny(c, BOX__DENIED_KIND__DENIED_TRANSPORT_ERROR,
                  "the open frame names no mode");
        goto out;
    }
    box__alias_frame__free_unpacked(f, NULL);
    f = NULL;

    end = conn_read(c, b->br_stop, BROKER_OPENING_MS, &f, &err, &fault);
    if (end != CONN_READ_FRAME) {
        conn_read_failed(c, end, err, &fault, "call", BROKER_OPENING_MS);
        return;
    }
    if (f->body_case == BOX__ALIAS_FRAME__BODY_CLOSE)
        goto out;
    c->cn_program = f->program;
    if (f->body_case != BOX__ALIAS_FRAME__BODY_CALL) {
        conn_deny(c, BOX__DENIED_KIND__DENIED_TRANSPORT_ERROR,
                  "expected a call frame, not %s",
                  box_frame_name(f->body_case));
        goto out;
    }
    const char *src = f->call->source != NULL ? f->call->source : "";
    if (!box_utf8_valid(src, strlen(src))) {
        conn_deny(c, BOX__DENIED_KIND__DENIED_TRANSPORT_ERROR,
                  "Shell command is not valid UTF-8");
        goto out;
    }
    const char *why = conn_call_args_bad(f->call);
    if (why != NULL) {
        conn_deny(c, BOX__DENIED_KIND__DENIED_TRANSPORT_ERROR, "%s", why);
        goto out;
    }
    conn_run(c, f);
out:
    if (f != NULL)
        box__alias_frame__free_unpacked(f, NULL);
}

/* The next connection for a thread that ended one, handed over by the
 * listener, or NULL: the thread is to end (draining, enough idle ones, or
 * none came in BROKER_IDLE_MS). counted: conn_idle_early already counted
 * the thread in br_idle. Called with br_mu held. */
static broker_conn *
conn_await(broker *b, bool counted)
{
    if (!counted) {
        if (b->br_draining || b->br_idle >= BROKER_IDLE_MAX)
            return NULL;
        b->br_idle++;
    }
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    until.tv_sec += BROKER_IDLE_MS / 1000;
    int rv = 0;
    while (b->br_handed == NULL && !b->br_draining && rv != ETIMEDOUT)
        rv = pthread_cond_timedwait(&b->br_idle_cv, &b->br_mu, &until);
    broker_conn *c = b->br_handed;
    if (c != NULL) {
        b->br_handed = c->cn_next; // the listener counted us out
        c->cn_next = NULL;
    } else {
        b->br_idle--;
    }
    return c;
}

static void *
conn_thread(void *arg)
{
    broker_conn *c = arg;
    broker *b = c->cn_b;
    while (c != NULL) {
        conn_serve(c);
        conn_drop_worker(c);
        box_frame_rd_reset(&c->cn_rd);
        // Decisions answered from the cache still belong in the log.
        if (b->br_cfg.bc_pdp != NULL)
            box_pdp_client_flush_soon(b->br_cfg.bc_pdp);
        close(c->cn_fd);
        bool counted = c->cn_idle_early;
        box_free(c);
        pthread_mutex_lock(&b->br_mu);
        b->br_active--;
        if ((c = conn_await(b, counted)) == NULL) {
            b->br_threads--;
            pthread_cond_broadcast(&b->br_cv);
        }
        pthread_mutex_unlock(&b->br_mu);
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Accepting                                                           */
/* ------------------------------------------------------------------ */

/* Refuses a connection before reading anything from it. */
static void
broker_refuse(int fd, Box__DeniedKind kind, const char *reason)
{
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Denied d = BOX__DENIED__INIT;
    d.kind = kind;
    d.reason = (char *)reason;
    f.program = 1; // what every alias uses; nothing was read yet
    f.body_case = BOX__ALIAS_FRAME__BODY_DENIED;
    f.denied = &d;
    if (box_frame_write(fd, &f, BOX_FRAME_MAX, BROKER_REFUSE_MS) != BOX_OK)
        box_log(BOX_LOG_WARN, BROKER_SVC, "could not refuse a connection: %s",
                reason);
    close(fd);
}

static void
broker_accept_one(broker *b, int fd)
{
    broker_conn *c = box_calloc(1, sizeof *c);
    if (c != NULL) {
        c->cn_b = b;
        c->cn_fd = fd;
        c->cn_chan = c->cn_status = c->cn_fds = -1;
        box_frame_rd_init(&c->cn_rd);
        broker_stdin_init(&c->cn_in, b->br_cfg.bc_input_max);
    }
    pthread_mutex_lock(&b->br_mu);
    bool full = b->br_active >= BOX_MAX_CONNECTIONS;
    bool handed = false;
    if (!full && c != NULL) {
        b->br_active++;
        // An idle thread takes it, else a new one.
        if ((handed = b->br_idle > 0)) {
            b->br_idle--;
            c->cn_next = b->br_handed;
            b->br_handed = c;
            pthread_cond_signal(&b->br_idle_cv);
        } else {
            b->br_threads++;
        }
    }
    pthread_mutex_unlock(&b->br_mu);
    if (full) {
        box_free(c);
        broker_refuse(fd, BOX__DENIED_KIND__DENIED_FLOW_CONTROL,
                      "the box broker is already serving 64 connections; "
                      "retry shortly");
        return;
    }
    if (handed)
        return;
    pthread_attr_t attr;
    pthread_t t;
    int rv = -1;
    if (c != NULL) {
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        rv = pthread_create(&t, &attr, conn_thread, c);
        pthread_attr_destroy(&attr);
    }
    if (rv != 0) {
        pthread_mutex_lock(&b->br_mu);
        if (c != NULL) {
            b->br_active--;
            b->br_threads--;
        }
        pthread_cond_broadcast(&b->br_cv);
        pthread_mutex_unlock(&b->br_mu);
        box_free(c);
        box_log(BOX_LOG_ERROR, BROKER_SVC, "cannot start a connection thread");
        broker_refuse(fd, BOX__DENIED_KIND__DENIED_INTERNAL,
                      "the box broker cannot take the connection");
    }
}

static void *
broker_listen_thread(void *arg)
{
    broker *b = arg;
    for (;;) {
        struct pollfd p[2] = {{.fd = b->br_listen, .events = POLLIN},
                              {.fd = b->br_stop, .events = POLLIN}};
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            box_log(BOX_LOG_ERROR, BROKER_SVC, "poll: %s", strerror(errno));
            break;
        }
        if (p[1].revents & POLLIN)
            break;
        if (!(p[0].revents & POLLIN))
            continue;
        int fd = accept4(b->br_listen, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
                errno == ENOMEM) {
                box_log(BOX_LOG_WARN, BROKER_SVC, "accept: %s",
                        strerror(errno));
                struct timespec ts = {0, 50 * 1000 * 1000};
                nanosleep(&ts, NULL);
            }
            continue;
        }
        broker_accept_one(b, fd);
    }
    return NULL;
}

/* ------------------------------------------------------------------ */
/* Start and drain                                                     */
/* ------------------------------------------------------------------ */

/* Replaces a leftover socket only when nobody answers on it. */
static box_err
broker_clear_stale(const char *path, char *err, size_t errlen)
{
    struct stat st;
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return BOX_OK;
        snprintf(err, errlen, "%s: %s", path, strerror(errno));
        return BOX_EIO;
    }
    if (!S_ISSOCK(st.st_mode)) {
        snprintf(err, errlen, "%s exists and is not a socket", path);
        return BOX_EBUSY;
    }
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return BOX_EIO;
    }
    int rv = connect(fd, (struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    close(fd);
    if (rv == 0 || e == EAGAIN) {
        snprintf(err, errlen, "another broker is serving %s", path);
        return BOX_EBUSY;
    }
    if (e != ECONNREFUSED) {
        snprintf(err, errlen, "%s: %s", path, strerror(e));
        return BOX_EIO;
    }
    if (unlink(path) != 0 && errno != ENOENT) {
        snprintf(err, errlen, "remove stale %s: %s", path, strerror(errno));
        return BOX_EIO;
    }
    return BOX_OK;
}

static box_err
broker_bind(broker *b, char *err, size_t errlen)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(b->br_path) >= sizeof sa.sun_path) {
        snprintf(err, errlen, "%s: the path is too long for a socket",
                 b->br_path);
        return BOX_EINVAL;
    }
    memcpy(sa.sun_path, b->br_path, strlen(b->br_path) + 1);
    box_err rv = broker_clear_stale(b->br_path, err, errlen);
    if (rv != BOX_OK)
        return rv;
    b->br_listen = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (b->br_listen < 0) {
        snprintf(err, errlen, "socket: %s", strerror(errno));
        return BOX_EIO;
    }
    // Born 0600: the agent reaches it only through its aliases.
    mode_t old = umask(0177);
    int brv = bind(b->br_listen, (struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    umask(old);
    struct stat st;
    if (brv != 0 || chmod(b->br_path, 0600) != 0 ||
        listen(b->br_listen, BROKER_BACKLOG) != 0 ||
        stat(b->br_path, &st) != 0) {
        snprintf(err, errlen, "%s: %s", b->br_path,
                 strerror(brv != 0 ? e : errno));
        return BOX_EIO;
    }
    b->br_dev = st.st_dev;
    b->br_ino = st.st_ino;
    return BOX_OK;
}

static void
broker_free(broker *b)
{
    if (b->br_listen >= 0)
        close(b->br_listen);
    if (b->br_stop >= 0)
        close(b->br_stop);
    if (b->br_abort >= 0)
        close(b->br_abort);
    pthread_cond_destroy(&b->br_cv);
    pthread_cond_destroy(&b->br_idle_cv);
    pthread_mutex_destroy(&b->br_mu);
    box_free(b->br_path);
    box_free(b);
}

box_err
broker_start(const broker_config *cfg, broker **out, char *err, size_t errlen)
{
    broker *b = box_calloc(1, sizeof *b);
    if (b == NULL) {
        snprintf(err, errlen, "%s", box_strerror(BOX_ENOMEM));
        return BOX_ENOMEM;
    }
    b->br_cfg = *cfg;
    if (b->br_cfg.bc_input_max == 0)
        b->br_cfg.bc_input_max = BOX_CALL_INPUT_MAX;
    b->br_listen = b->br_stop = b->br_abort = -1;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    atomic_init(&b->br_next_id,
                (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec);
    pthread_mutex_init(&b->br_mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&b->br_cv, &ca);
    pthread_cond_init(&b->br_idle_cv, &ca);
    pthread_condattr_destroy(&ca);

    box_err rv = BOX_ENOMEM;
    char *run = box_asprintf("%s/run", cfg->bc_box_dir);
    b->br_path = box_asprintf("%s/run/box.sock", cfg->bc_box_dir);
    if (run == NULL || b->br_path == NULL) {
        snprintf(err, errlen, "%s", box_strerror(rv));
        goto fail;
    }
    if (mkdir(run, 0700) != 0 && errno != EEXIST) {
        snprintf(err, errlen, "%s: %s", run, strerror(errno));
        rv = BOX_EIO;
        goto fail;
    }
    if ((rv = broker_bind(b, err, errlen)) != BOX_OK)
        goto fail;
    b->br_stop = eventfd(0, EFD_CLOEXEC);
    b->br_abort = eventfd(0, EFD_CLOEXEC);
    if (b->br_stop < 0 || b->br_abort < 0 ||
        pthread_create(&b->br_listener, NULL, broker_listen_thread, b) != 0) {
        snprintf(err, errlen, "cannot start the broker: %s", strerror(errno));
        rv = BOX_EIO;
        (void)unlink(b->br_path);
        goto fail;
    }
    box_free(run);
    box_log(BOX_LOG_INFO, BROKER_SVC, "serving aliases on %s", b->br_path);
    *out = b;
    return BOX_OK;
fail:
    box_free(run);
    broker_free(b);
    return rv;
}

/* Waits until no connection thread is left or deadline_ms passes; true
 * when none is left. Called with br_mu held. */
static bool
broker_wait_idle(broker *b, uint64_t deadline_ms)
{
    while (b->br_threads > 0) {
        uint64_t now = box_svc_now_ms();
        if (now >= deadline_ms)
            return false;
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        uint64_t left = deadline_ms - now;
        ts.tv_sec += (time_t)(left / 1000);
        ts.tv_nsec += (long)(left % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&b->br_cv, &b->br_mu, &ts);
    }
    return true;
}

void
broker_drain(broker *b)
{
    if (b == NULL)
        return;
    (void)eventfd_write(b->br_stop, 1);
    pthread_join(b->br_listener, NULL);
    close(b->br_listen);
    b->br_listen = -1;
    struct stat st;
    if (lstat(b->br_path, &st) == 0 && st.st_dev == b->br_dev &&
        st.st_ino == b->br_ino)
        (void)unlink(b->br_path);

    pthread_mutex_lock(&b->br_mu);
    unsigned active = b->br_active;
    // Idle threads end now; a connection handed to one is still served.
    b->br_draining = true;
    pthread_cond_broadcast(&b->br_idle_cv);
    bool idle =
        broker_wait_idle(b, box_svc_now_ms() + (uint64_t)b->br_cfg.bc_grace_ms);
    if (!idle) {
        box_log(BOX_LOG_WARN, BROKER_SVC,
                "grace over with %u call(s) in flight; ending them",
                b->br_active);
        (void)eventfd_write(b->br_abort, 1);
        idle = broker_wait_idle(b, box_svc_now_ms() + BROKER_FINISH_MS);
    }
    pthread_mutex_unlock(&b->br_mu);
    if (!idle) {
        // A thread is stuck; it still points at b, so b stays.
        box_log(BOX_LOG_ERROR, BROKER_SVC,
                "connection threads did not end; leaving them");
        return;
    }
    if (active > 0)
        box_log(BOX_LOG_INFO, BROKER_SVC, "drained %u connection(s)", active);
    broker_free(b);
}
