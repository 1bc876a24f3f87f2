/* SPDX-License-Identifier: Apache-2.0 */
/* The one entry point a worker needs from the shell interpreter. */
#ifndef WORKER_INTERP_H
#define WORKER_INTERP_H

#include <stddef.h>

#include "box.pb-c.h"
#include "worker.h"

/* Writes n bytes of a command's stdout or stderr, in order. Returns 0, or
 * -1 when the interpreter must stop writing and end the command (the call's
 * output budget is spent or the broker is gone). */
typedef int (*worker_write_fn)(void *ctx, const char *p, size_t n);

/* The PDP's answer as the worker gets it from the broker. */
typedef enum worker_verdict {
    WORKER_DENY = 0, // the zero value refuses
    WORKER_PERMIT,
    WORKER_FAULT, // no decision could be made: the command ends 125
} worker_verdict;

/* Asks the box's PDP about req (borrowed), through the broker. On DENY and
 * FAULT *message is the text to print (box_alloc'd, the caller frees).
 * Safe to call from several threads; they take turns. */
typedef worker_verdict (*worker_decide_fn)(void *ctx,
                                           const Box__DecisionRequest *req,
                                           char **message);

/* Asks the broker to start a host program (sh_launch_fn in sh_exec.h). */
typedef box_err (*worker_launch_fn)(void *ctx, int argc, char *const *argv,
                                    const char *cwd, const int io[4],
                                    int *status, char **err);

/* What the worker gives the interpreter; ctx is passed back untouched. */
typedef struct worker_io {
    worker_write_fn wi_out, wi_err;
    worker_decide_fn wi_decide;
    worker_launch_fn wi_launch;
    void *wi_ctx;
} worker_io;

/*
 * Runs one command text (len bytes, NUL-terminated, valid UTF-8) as a fresh
 * Program and returns its exit status, 0..255. Output and decisions go
 * through io, which the interpreter may use any number of times. Runs in a
 * worker process of its own, which ends after this returns, so the
 * interpreter needs no teardown discipline beyond its own limits. ws says
 * which box (worker_interp.c).
 */
int worker_interp_run(const worker_settings *ws, const char *source, size_t len,
                      const worker_io *io);

#endif
