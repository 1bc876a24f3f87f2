/* SPDX-License-Identifier: Apache-2.0 */
/* The worker profile: what a worker may do, set once in the zygote. */
#ifndef WORKER_CONFINE_H
#define WORKER_CONFINE_H

#include "worker.h"

/*
 * Confines the calling process (the zygote, single-threaded, before it
 * forks any worker: every worker inherits all of it, so a call costs a
 * fork and nothing more). In this order: the box directory, the run's
 * box.toml and policy leave its view (a user and mount namespace, as
 * box-contain --hide/--deny make; capabilities dropped), the environment
 * is emptied, no_new_privs, then Landlock and seccomp (worker_confine.c
 * says what each allows). Returns 0, or -1 having logged why: the zygote
 * then exits and box-shell does not start.
 */
int worker_confine(const worker_settings *ws);

/* In each worker after the fork: signals may go to itself only. Returns 0
 * or -1 (the worker then exits). */
int worker_confine_signals(void);

#endif
