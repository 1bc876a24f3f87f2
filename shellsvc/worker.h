/* SPDX-License-Identifier: Apache-2.0 */
/* One worker process: one call from the broker, run, streamed back, exit. */
#ifndef WORKER_H
#define WORKER_H

#include "box_err.h"

/* Per-call resource limits, applied to each worker before it reads its
 * call. A zero field leaves that limit as inherited. */
typedef struct worker_limits {
    unsigned long long wl_as_bytes; // RLIMIT_AS (skipped under ASan)
    unsigned wl_cpu_s;              // RLIMIT_CPU soft; hard is 5 s more
    unsigned wl_nofile;             // RLIMIT_NOFILE
} worker_limits;

/* Applies l to the calling process and turns core dumps off. */
box_err worker_apply_limits(const worker_limits *l) BOX_WARN_UNUSED;

/*
 * The worker's whole job, on chan (its end of the broker channel, a Unix
 * stream socket carrying AliasFrames): read the one Call frame the broker
 * forwards, run its source through worker_interp_run, send each piece of
 * output as Output frames of at most BOX_OUTPUT_CHUNK_MAX bytes as it is
 * produced, then one Exit frame. The broker validates and relays every
 * frame and owns the budget, the backstop and the alias connection; the
 * worker stops writing once it has sent more than the budget. Returns the
 * process exit status: 0 when Exit was sent, 1 otherwise.
 */
int worker_main(int chan);

#endif
