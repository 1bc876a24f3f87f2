/* SPDX-License-Identifier: Apache-2.0 */
/* The zygote: a small single-threaded process that forks one worker per call.
 */
#ifndef WORKER_POOL_H
#define WORKER_POOL_H

#include <errno.h>

#include "box_err.h"
#include "worker.h"

/*
 * The zygote: a forker (forker.h) whose children are workers. Each worker
 * leads a process group, which the zygote kills as a whole when the call
 * ends (killed, or exited). A worker never starts a host program itself:
 * it asks the broker, which has the launcher start box-contain.
 */
typedef struct worker_pool worker_pool;

/* A status pipe's int below zero: the worker could not be started. */
#define WORKER_NOT_STARTED(ws) ((ws) < 0)

/* The one reason said apart: box.toml or the policy left the workers'
 * view of it (worker_covers_intact), so no worker starts. */
#define WORKER_COVER_LOST (-ESTALE)

/* Forks the zygote; every worker gets limits l. Call it before any thread
 * exists. On BOX_OK the caller owns *out (worker_pool_stop frees it). */
box_err worker_pool_start(const worker_limits *l,
                          worker_pool **out) BOX_WARN_UNUSED;

/* The broker's ends of one worker. */
typedef struct worker_ends {
    int we_chan;   // the worker's AliasFrame channel (Unix stream)
    int we_fds;    // SOCK_SEQPACKET: descriptors the worker hands over
    int we_status; // the status pipe's read end (worker_pool_wait)
} worker_ends;

/*
 * Starts one worker. On BOX_OK the caller owns the three descriptors of
 * *out. Closing we_status while the worker lives kills it. BOX_ECLOSED when
 * the zygote is gone. Safe to call from any thread.
 */
box_err worker_pool_spawn(worker_pool *p, worker_ends *out) BOX_WARN_UNUSED;

/* Waits up to timeout_ms for the wait status on a status pipe: BOX_OK with
 * *wstatus (a waitpid status, or below zero: WORKER_NOT_STARTED),
 * BOX_ETIMEDOUT, or BOX_ECLOSED when the zygote went away without saying. */
box_err worker_pool_wait(int status, int timeout_ms,
                         int *wstatus) BOX_WARN_UNUSED;

/* The zygote's request socket (forker_fd). */
int worker_pool_fd(const worker_pool *p);

/* Ends the zygote, which kills and reaps every live worker first, and
 * reaps it (SIGKILL after a bound). Frees p. */
void worker_pool_stop(worker_pool *p);

#endif
