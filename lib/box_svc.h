/* SPDX-License-Identifier: Apache-2.0 */
/* What every service's main shares: signals, --help/--version, uptime. */
#ifndef BOX_SVC_H
#define BOX_SVC_H

#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "box_err.h"

/* Blocks SIGTERM, SIGINT, SIGHUP and SIGPIPE in the calling thread (call it
 * first in main, before any thread exists, so every thread inherits the
 * mask) and fills *set with the three that box_svc_wait_signal returns. */
void box_svc_block_signals(sigset_t *set);

/* Waits for one of the signals in set; returns its number. */
int box_svc_wait_signal(const sigset_t *set);

/* Prints `NAME VERSION` to out. */
void box_svc_print_version(FILE *out, const char *name);

/* box_svc_spawn flags. */
#define BOX_SPAWN_SEARCH 1u    // path is a bare name looked up on PATH
#define BOX_SPAWN_NEW_GROUP 2u // the child leads a process group of its own
#define BOX_SPAWN_TIED 4u      // the child dies with us (box_svc_tie_to_parent)

/* The variable BOX_SPAWN_TIED adds to the child's environment: the
 * spawner's pid, which the child checks against its parent (systemd's
 * LISTEN_PID does the same). posix_spawn cannot set a parent-death signal,
 * so the child sets it itself after exec, and only the environment reaches
 * every program alike (box-contain's argv is a public contract). */
#define BOX_SVC_PARENT_ENV "BOX_PARENT_PID"

/*
 * posix_spawn (posix_spawnp with BOX_SPAWN_SEARCH) with a clean signal
 * state: nothing blocked, every handler default. Services and `box run`
 * block their signals to wait for them (box_svc_block_signals), and a
 * child must not inherit that. fa may be NULL. With BOX_SPAWN_TIED the
 * child gets envp plus BOX_SVC_PARENT_ENV=<our pid> (any copy of it in
 * envp is dropped); a child that calls box_svc_tie_to_parent then dies
 * with the calling THREAD (the kernel's parent is the thread that forked),
 * so spawn tied children only from a thread that outlives them. Returns
 * posix_spawn's result: 0 or an errno value.
 */
int box_svc_spawn(pid_t *pid, const char *path,
                  const posix_spawn_file_actions_t *fa, char *const argv[],
                  char *const envp[], unsigned flags);

/*
 * The child's half of BOX_SPAWN_TIED, called first in main: when
 * BOX_SVC_PARENT_ENV is set, removes it from the environment (so nothing
 * we start inherits it), asks for SIGKILL when the parent dies
 * (PR_SET_PDEATHSIG) and then checks that the parent is still the pid
 * named, which closes the race of a parent that died before the request.
 * BOX_OK: tied, or nothing to tie to (the variable is unset: a process a
 * person or a test started stays free). Otherwise the caller exits at
 * once: BOX_ECLOSED, the parent is gone already (said to no one: nobody
 * is listening); BOX_EINVAL, the value is not a pid, or BOX_EIO, the
 * kernel refused PR_SET_PDEATHSIG (both logged as svc).
 */
box_err box_svc_tie_to_parent(const char *svc) BOX_WARN_UNUSED;

/* Keeps freed heap memory in the process instead of handing it back to
 * the kernel after each burst: a service that builds and frees buffers
 * per request otherwise pays a madvise, page faults and a TLB flush on
 * every CPU each time (seen as a third of box-pdp's time under a stream
 * of decisions). Called once, first thing in a service's main. */
void box_svc_tune_heap(void);

/* Milliseconds on the monotonic clock. */
uint64_t box_svc_now_ms(void);

/* Nanoseconds on clock (CLOCK_MONOTONIC, its _COARSE form where a tick's
 * lag is fine and 6 ns beat 29, CLOCK_REALTIME for timestamps). */
uint64_t box_svc_clock_ns(clockid_t clock);

#endif
