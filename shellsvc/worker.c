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
#include <unistd.h>

#include "box_alloc.h"
#include "box_status.h"
#include "box_fdpass.h"
#include "box_frame.h"
#include "box_wire.h"
#include "worker_interp.h"

#define WORKER_CALL_READ_MS 10000 // the broker sends the call right away
#define WORKER_WRITE_MS BOX_CALL_BACKSTOP_MS // the broker's backstop ends us
// The broker answers within the PDP client's own deadline; this only
// bounds a broker that stopped answering altogether.
#define WORKER_ANSWER_MS (4 * BOX_PDP_TIMEOUT_MS_DEFAULT)

#if defined(__SANITIZE_ADDRESS__)
#define WORKER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define WORKER_ASAN 1
#endif
#endif

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
        box_err rv =
            box_frame_write(w->wk_chan, &f, BOX_FRAME_MAX, WORKER_WRITE_MS);
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

/* One decide frame to the broker and its answer (a box_decide_fn). A
 * channel that fails is a fault (125), never a permit; an answer's
 * verdict is read by the one wire decoder (unset or unknown: a deny). */
static box_verdict
worker_decide(void *ctx, const Box__DecisionRequest *req, char **message)
{
    worker_ctx *w = ctx;
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    f.program = w->wk_program;
    f.body_case = BOX__ALIAS_FRAME__BODY_DECIDE;
    f.decide = (Box__DecisionRequest *)req;
    Box__AliasFrame *a = NULL;
    pthread_mutex_lock(&w->wk_chan_lock);
    box_err rv =
        box_frame_write(w->wk_chan, &f, BOX_FRAME_MAX, WORKER_WRITE_MS);
    if (rv == BOX_OK)
        rv = box_frame_read(w->wk_chan, BOX_FRAME_MAX, WORKER_ANSWER_MS,
                            BOX_FRAMES_TO_WORKER, &a, NULL);
    pthread_mutex_unlock(&w->wk_chan_lock);
    box_verdict v = BOX_VERDICT_FAULT;
    if (rv != BOX_OK || a->body_case != BOX__ALIAS_FRAME__BODY_ANSWER) {
        *message = box_strdup("the box broker did not answer a decision");
    } else if ((v = box_verdict_from_wire(a->answer->verdict)) !=
               BOX_VERDICT_PERMIT) {
        *message = box_strdup(a->answer->message ? a->answer->message : "");
    }
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
    // the broker reads the frame that names them.
    box_err rv = box_fdpass_send(w->wk_fds, 'L', fds, n, 0);
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

int
worker_main(int chan, int fds, const worker_settings *ws)
{
    Box__AliasFrame *call = NULL;
    worker_ctx w = {.wk_chan = chan, .wk_fds = fds};
    pthread_mutex_init(&w.wk_chan_lock, NULL);
    if (box_frame_read(chan, BOX_FRAME_MAX, WORKER_CALL_READ_MS,
                       BOX_FRAMES_TO_WORKER, &call, NULL) != BOX_OK)
        return 1;
    if (call->body_case != BOX__ALIAS_FRAME__BODY_CALL ||
        call->call->source == NULL) {
        box__alias_frame__free_unpacked(call, NULL);
        return 1;
    }
    w.wk_program = call->program;
    const char *src = call->call->source;
    worker_io io = {.wi_out = worker_out,
                    .wi_err = worker_err,
                    .wi_decide = worker_decide,
                    .wi_launch = worker_launch,
                    .wi_ctx = &w};
    int status = worker_interp_run(ws, src, strlen(src), &io);
    box__alias_frame__free_unpacked(call, NULL);
    if (w.wk_broken)
        return 1;

    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Exit e = BOX__EXIT__INIT;
    f.program = w.wk_program;
    f.body_case = BOX__ALIAS_FRAME__BODY_EXIT;
    f.exit = &e;
    e.status = status;
    return box_frame_write(chan, &f, BOX_FRAME_MAX, WORKER_WRITE_MS) == BOX_OK
               ? 0
               : 1;
}
