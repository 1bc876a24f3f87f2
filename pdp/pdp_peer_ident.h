/* SPDX-License-Identifier: Apache-2.0 */
/* box-pdp's peer identifier: a small helper process that says whether a
 * pid is a sibling running this box's shell or gateway. */
#ifndef PDP_PEER_IDENT_H
#define PDP_PEER_IDENT_H

#include <sys/types.h>

#include "box_err.h"

/*
 * Why a helper. Which program a peer runs is read from /proc/<pid>/exe,
 * and the kernel gives that only to a process that may ptrace the peer
 * (in read mode). A Landlock domain takes that away for every process
 * outside the domain, so a confined box-pdp cannot identify its shell or
 * gateway. The helper is forked before box-pdp confines itself, keeps no
 * Landlock domain for that one reason, and gives up everything else: its
 * environment, every descriptor but its socket to box-pdp, and every
 * syscall but the few its loop makes (a seccomp allowlist). It reads a
 * pid and answers one byte; it dies with box-pdp.
 */

/* ORDER PDP_PEER_KIND: the helper's one-byte answers. */
typedef enum pdp_peer_kind {
    PDP_PEER_UNANSWERED = 0, // never sent: no answer is a refusal
    PDP_PEER_OURS,           // a sibling running our box-shell/box-gateway
    PDP_PEER_NOT_OF_RUN,     // its parent is not box-pdp's parent
    PDP_PEER_NO_PROGRAM,     // its program cannot be identified
    PDP_PEER_NOT_OURS,       // a sibling running another program
} pdp_peer_kind;

typedef struct pdp_peer_ident {
    pid_t pi_pid; // the helper, -1 when none
    int pi_fd;    // box-pdp's end of the socket pair, -1 when none
} pdp_peer_ident;

/*
 * Forks the helper; call while the process has one thread, before it
 * confines itself. parent is box-pdp's parent, whose other children are
 * the siblings served. On BOX_OK *pi is the caller's (pdp_peer_ident_stop);
 * pi_fd must be kept open across box_proc_confine.
 */
box_err pdp_peer_ident_start(pid_t parent, pdp_peer_ident *pi) BOX_WARN_UNUSED;

/* Asks about pid (one question at a time: the caller serialises).
 * PDP_PEER_UNANSWERED when the helper is gone or silent. */
pdp_peer_kind pdp_peer_ident_ask(const pdp_peer_ident *pi, pid_t pid);

/* Ends the helper and reaps it. */
void pdp_peer_ident_stop(pdp_peer_ident *pi);

#endif
