/* SPDX-License-Identifier: Apache-2.0 */
/* One worker process: one call from the broker, run, streamed back, exit. */
#ifndef WORKER_H
#define WORKER_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "box_err.h"

struct box_config;

/*
 * The box every call runs in, fixed before the zygote forks (workers see
 * it through fork, read-only). Paths are canonical.
 */
typedef struct worker_settings {
    const char *ws_box_dir; // reserved: nothing inside is reachable
    const char *ws_operator_home;
    const char *ws_agent_home;
    const char *ws_workspace;        // the start cwd of every command
    const char *ws_trusted_path;     // PATH for host programs (§3.4)
    const char *const *ws_authority; // box.toml, the policy file
    size_t ws_nauthority;
    const struct box_config *ws_config; // tools and [agent]; may be NULL
    const char *ws_contain_bin;         // box-contain
    /* The gateway host programs reach the network through; NULL: none. */
    const struct box_procspec_egress *ws_egress;
    /* Its CA certificate (PEM), read before confinement; NULL: unreadable. */
    const char *ws_egress_ca;
    size_t ws_egress_ca_len;
    /* "NAME=PHANTOM" for each credential route (box-spec §6): first in
     * every call's environment, as in every sandbox's. */
    const char *const *ws_phantom_env;
    size_t ws_nphantom_env;
    unsigned ws_call_budget_ms;         // 0: the shell's 30 s (§3.1)
    /* The broker's validity word, a read-only view (valid_word.h), or
     * NULL: then the worker asks the broker for every decision. */
    _Atomic uint64_t *ws_valid;
} worker_settings;

/* What a worker waiting for its call builds first (the shell's kernel: the
 * binds opened, the authority sources identified), so the call does not
 * wait for it; worker_main owns and frees it. NULL if it cannot be built:
 * the call then builds its own, and says why it cannot. */
typedef struct worker_prep worker_prep;
worker_prep *worker_prepare(const worker_settings *ws);

/* Per-call resource limits, applied to each worker before it reads its
 * call (a zero field leaves that limit as inherited), and the settings
 * every worker runs its call with. */
typedef struct worker_limits {
    unsigned long long wl_as_bytes;     // RLIMIT_AS (skipped under ASan)
    unsigned wl_cpu_s;                  // RLIMIT_CPU soft; hard is 5 s more
    unsigned wl_nofile;                 // RLIMIT_NOFILE
    const worker_settings *wl_settings; // borrowed for the pool's life
    /* The validity word's views, or NULL: the zygote unmaps its copy of
     * the writable one before it forks a worker. */
    struct valid_word *wl_valid;
    /* What a worker runs; NULL: worker_main. Only a test sets it, to run
     * its own probes in a worker confined exactly as box-shell's are. */
    int (*wl_body)(int chan, int fds, const worker_settings *ws);
} worker_limits;

/* Applies l to the calling process and turns core dumps off. */
box_err worker_apply_limits(const worker_limits *l) BOX_WARN_UNUSED;

/*
 * The worker's whole job, on chan (its end of the broker channel, a Unix
 * stream socket carrying AliasFrames; fds, a SOCK_SEQPACKET socket, carries
 * the descriptors of each host program it asks the broker to launch, and
 * from the broker a streamed stdin's pipe, WORKER_OP_STDIN): read the
 * one Call frame the broker forwards, run its source through worker_interp_run,
 * send each piece of output as Output frames of at most BOX_OUTPUT_CHUNK_MAX
 * bytes as it is produced, then one Exit frame. The broker validates and relays
 * every frame and owns the budget, the backstop and the alias connection; the
 * worker stops writing once it has sent more than the budget. Returns the
 * process exit status: 0 when Exit was sent, 1 otherwise. prep (owned;
 * NULL: built here) is what worker_prepare built before the call came.
 */
int worker_main(int chan, int fds, const worker_settings *ws,
                worker_prep *prep);

/* The op byte of the descriptor message that carries a call's stdin pipe
 * (its read end), broker to worker, before the Call frame. */
#define WORKER_OP_STDIN 'I'

#endif
