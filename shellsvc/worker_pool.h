/* SPDX-License-Identifier: Apache-2.0 */
/* The zygote: a small single-threaded process that forks one worker per call.
 */
#ifndef WORKER_POOL_H
#define WORKER_POOL_H

#include "box_err.h"
#include "worker.h"

/*
 * box-shell becomes multi-threaded (nng, the broker's connection threads),
 * and forking a threaded process is unsafe (locks held by other threads
 * are copied locked). So before any thread exists, box-shell forks one
 * small process, the zygote, which stays single-threaded for its whole
 * life and does every fork: the broker asks it for a worker by sending the
 * worker's channel over a SOCK_SEQPACKET socket with SCM_RIGHTS. The
 * zygote reaps its workers and reports each one's wait status on a
 * per-worker status pipe; the broker kills a worker by closing that pipe.
 * The zygote dies with box-shell (PDEATHSIG) and its workers die with it;
 * each worker leads a process group, which the zygote kills as a whole
 * when the call ends (killed, or exited), and the worker's host programs
 * die with the worker (see box_svc_tie_to_parent).
 */
typedef struct worker_pool worker_pool;

/* What the zygote writes on a status pipe instead of a wait status when
 * it could not fork the worker. */
#define WORKER_NOT_STARTED (-1)

/* Forks the zygote; every worker gets limits l. Call it before any thread
 * exists. On BOX_OK the caller owns *out (worker_pool_stop frees it). */
box_err worker_pool_start(const worker_limits *l,
                          worker_pool **out) BOX_WARN_UNUSED;

/*
 * Starts one worker. On BOX_OK the caller owns two descriptors: *chan, the
 * broker's end of the worker's AliasFrame channel, and *status, the read
 * end of its status pipe (see worker_pool_wait). Closing *status while the
 * worker lives kills it. BOX_ECLOSED when the zygote is gone. Safe to call
 * from any thread.
 */
box_err worker_pool_spawn(worker_pool *p, int *chan,
                          int *status) BOX_WARN_UNUSED;

/* Waits up to timeout_ms for the wait status on a status pipe: BOX_OK with
 * *wstatus (a waitpid status, or WORKER_NOT_STARTED), BOX_ETIMEDOUT, or
 * BOX_ECLOSED when the zygote went away without saying. */
box_err worker_pool_wait(int status, int timeout_ms,
                         int *wstatus) BOX_WARN_UNUSED;

/* Ends the zygote, which kills and reaps every live worker first, and
 * reaps it (SIGKILL after a bound). Frees p. */
void worker_pool_stop(worker_pool *p);

#endif
