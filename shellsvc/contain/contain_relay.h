/* SPDX-License-Identifier: Apache-2.0 */
/* The egress relay: TCP connections spliced to a Unix stream socket. */
#ifndef CONTAIN_RELAY_H
#define CONTAIN_RELAY_H

#include <stddef.h>

#include "contain_int.h"

// What --egress runs with (contain_egress.c); tests pass smaller ones.
#define CT_RELAY_MAX_CONNS 256
#define CT_RELAY_BUF (64u * 1024u)

typedef struct ct_relay_limits {
    size_t rl_max_conns; // spliced at once; past it, accepted and reset
    size_t rl_buf;       // bytes held per direction of one connection
} ct_relay_limits;

/*
 * Serves until poll itself fails: every connection accepted on lfd (a
 * listening stream socket; made non-blocking here) gets a fresh
 * connection to the Unix stream socket `name` in the directory open on
 * dir (any fd of it, O_PATH will do; the process's working directory
 * moves there, so name is resolved without the mount view of its path),
 * and bytes pass both ways, each direction through at most rl_buf bytes,
 * an end of one side passed on as shutdown(SHUT_WR) to the other. A
 * connection the socket does not accept (missing, not listening, its
 * backlog full) and one past rl_max_conns are reset at once: fail
 * closed, never wait. A client's reset, or a failed write to it, ends
 * both sides. When the gateway closes before reading all the client
 * sent, what it wrote still reaches the client, then an end; the rest
 * of the client's bytes are read and dropped. One process, one poll
 * over every fd; nothing blocks on one slow side. Returns
 * BOX_STATUS_FAULT with e filled (bad arguments, no table, poll
 * failing); the caller still owns lfd and dir.
 */
box_status ct_relay_serve(int lfd, int dir, const char *name,
                          const ct_relay_limits *lim, ct_err *e);

#endif
