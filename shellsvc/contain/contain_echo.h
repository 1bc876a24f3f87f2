/* SPDX-License-Identifier: Apache-2.0 */
/* Test support: a Unix stream echo server on a thread (the gateway's stand-in).
 */
#ifndef CONTAIN_ECHO_H
#define CONTAIN_ECHO_H

#include <stddef.h>

typedef struct echo_srv echo_srv;

/*
 * Binds the Unix stream socket path (which must not exist) and serves it
 * on a thread until echo_stop: each connection gets a thread that writes
 * back what it reads, and at EOF shuts its write side and closes. With
 * answer (borrowed until echo_stop), each connection instead reads once,
 * writes answer and closes with whatever else the client sent unread, as
 * a gateway that refuses early does. NULL on failure. Start it after any
 * fork whose child allocates (a child of a threaded process must not
 * take the allocator's locks).
 */
echo_srv *echo_start(const char *path, const char *answer);
/* Connections accepted so far. */
unsigned echo_accepted(echo_srv *s);
/* Connections whose echo thread has not ended yet. */
unsigned echo_open(echo_srv *s);
/* Stops accepting, removes the socket, waits for the open connections
 * to end and frees s. NULL is accepted. */
void echo_stop(echo_srv *s);

#endif
