/* SPDX-License-Identifier: Apache-2.0 */
/* Who may ask box-pdp for decisions: its own box's shell and gateway. */
#ifndef PDP_PEER_H
#define PDP_PEER_H

#include <stdbool.h>
#include <sys/types.h>

#include "box_err.h"

/*
 * A decision request is trusted to come from an enforcement point: its
 * answer is obeyed and it is written to the decision log. So box-pdp
 * serves only the processes that started it and that it started with:
 * its parent (box run, or a test harness) and the parent's other children
 * whose executable is, by identity, the box-shell or box-gateway installed
 * beside box-pdp. A leaf, the agent, another box's services or anything a
 * program spawned is none of these, whatever socket it reaches.
 *
 * Peer credentials, not a per-run token: the kernel reports the pid and
 * uid of the connecting process (SO_PEERCRED), which no peer can forge,
 * while a token is a secret that lives in argv, the environment or a file
 * and leaks with them; nothing has to be handed out or kept. What a pid
 * names is read from /proc at connect time, by a helper process (box-pdp,
 * confined, may not read another process's program: pdp_peer_ident.h): a process that connects and
 * exits could only have its pid taken over by a child of our own parent,
 * which starts nothing once the box runs but the agent's box-contain.
 * A peer the transport cannot name (not ipc://) is refused: a central PDP
 * will identify boxes by their TLS certificates.
 */
typedef struct pdp_peers pdp_peers;

/*
 * Notes the parent (now) and forks the peer identifier, which knows the
 * identities of box-shell and box-gateway beside this executable (one may
 * be missing: none of its kind is then served). Call early in main, while
 * the process has one thread and before box_proc_confine, and keep
 * pdp_peers_fd open across it. The caller owns *out (pdp_peers_free,
 * which also ends the identifier).
 */
box_err pdp_peers_new(pdp_peers **out) BOX_WARN_UNUSED;
/* The descriptor box_proc_confine must keep. */
int pdp_peers_fd(const pdp_peers *pp);
void pdp_peers_free(pdp_peers *pp);

/*
 * True when the peer (known: the transport named it) may send requests.
 * A refusal is logged, at most one line per PDP_PEER_LOG_MS with the
 * count of refusals since the last line. Thread-safe.
 */
bool pdp_peers_allow(pdp_peers *pp, bool known, pid_t pid, uid_t uid);

#define PDP_PEER_LOG_MS 1000

#endif
