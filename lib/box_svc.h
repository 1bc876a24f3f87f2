/* SPDX-License-Identifier: Apache-2.0 */
/* What every service's main shares: signals, --help/--version, uptime. */
#ifndef BOX_SVC_H
#define BOX_SVC_H

#include <signal.h>
#include <spawn.h>
#include <stdint.h>
#include <stdio.h>

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

/*
 * posix_spawn (posix_spawnp with BOX_SPAWN_SEARCH) with a clean signal
 * state: nothing blocked, every handler default. Services and `box run`
 * block their signals to wait for them (box_svc_block_signals), and a
 * child must not inherit that. fa may be NULL. Returns posix_spawn's
 * result: 0 or an errno value.
 */
int box_svc_spawn(pid_t *pid, const char *path,
                  const posix_spawn_file_actions_t *fa, char *const argv[],
                  char *const envp[], unsigned flags);

/* Milliseconds on the monotonic clock. */
uint64_t box_svc_now_ms(void);

#endif
