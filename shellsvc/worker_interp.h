/* SPDX-License-Identifier: Apache-2.0 */
/* The one entry point a worker needs from the shell interpreter. */
#ifndef WORKER_INTERP_H
#define WORKER_INTERP_H

#include <stddef.h>

#include "box.pb-c.h"
#include "box_verdict.h"
#include "sh_exec.h"
#include "sh_kernel.h"
#include "worker.h"

/* Writes n bytes of a command's stdout or stderr, in order. Returns 0, or
 * -1 when the interpreter must stop writing and end the command (the call's
 * output budget is spent or the broker is gone). */
typedef int (*worker_write_fn)(void *ctx, const char *p, size_t n);

/* What the worker gives the interpreter; ctx is passed back untouched.
 * wi_decide asks the box's PDP through the broker; it is safe to call
 * from several threads (they take turns), and the executor and the kernel
 * call it as it is; so is wi_record, which keeps how a permitted effect
 * ended for the broker (NULL: nothing is recorded), and wi_again, which
 * serves again a permit wi_decide served (NULL: never). wi_launch asks the
 * broker to start a host program whose shell:spawn was just permitted (a
 * worker cannot exec). */
typedef struct worker_io {
    worker_write_fn wi_out, wi_err;
    box_decide_fn wi_decide;
    box_again_fn wi_again;
    box_record_fn wi_record;
    sh_launch_fn wi_launch;
    sh_dial_fn wi_dial;       // curl's connection to the egress gateway
    sh_want_fn wi_stdin_want; // asks for the streamed stdin (sh_want_fn)
    void *wi_ctx;
} worker_io;

/*
 * Runs one call's command text (NUL-terminated, valid UTF-8), with its $0,
 * arguments and options (the broker checked them), as a fresh Program and
 * returns its exit status, 0..255. Output and decisions go
 * through io, which the interpreter may use any number of times. Runs in a
 * worker process of its own, which ends after this returns, so the
 * interpreter needs no teardown discipline beyond its own limits. ws says
 * which box (worker_interp.c). stdin_fd (borrowed; -1: none, stdin at its
 * end) is the pipe the broker feeds the alias's stdin into: the command's
 * top-level stdin.
 */
int worker_interp_run(const worker_settings *ws, const Box__Call *call,
                      int stdin_fd, const worker_io *io, sh_kernel *k);

/* The shell's kernel for a call of ws (its binds opened, the authority
 * sources identified), built ahead of the call by a waiting worker; passed
 * to worker_interp_run, which owns it from then on (NULL there: it builds
 * one). NULL when it cannot be built: the call builds it and says why. */
sh_kernel *worker_interp_kernel(const worker_settings *ws);

#endif
