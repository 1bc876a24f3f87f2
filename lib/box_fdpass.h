/* SPDX-License-Identifier: Apache-2.0 */
/* Descriptors between processes: one op byte with SCM_RIGHTS. */
#ifndef BOX_FDPASS_H
#define BOX_FDPASS_H

#include <stddef.h>

#include "box_err.h"

/* The most descriptors one message carries. */
#define BOX_FDPASS_MAX 8

/*
 * Sends op with fds[0..n) (n <= BOX_FDPASS_MAX; every descriptor stays the
 * caller's) as one message on a Unix socket, retrying EINTR; flags are
 * sendmsg's (MSG_NOSIGNAL is always added). BOX_OK, BOX_EINVAL, or
 * BOX_ECLOSED when the message did not go.
 */
box_err box_fdpass_send(int sock, char op, const int *fds, size_t n,
                        int flags) BOX_WARN_UNUSED;

/*
 * Receives one message: its op byte and up to max descriptors
 * (close-on-exec) into fds, the caller's. Every descriptor that arrived is
 * taken before the message is judged, so none is left installed. Returns
 * the number received (0..max); BOX_FDPASS_NONE when no message came (the
 * peer is gone, an error, or flags such as MSG_DONTWAIT found none);
 * BOX_FDPASS_REFUSED for a message that is empty, cut (MSG_CTRUNC) or
 * carries more than max (everything it brought is closed).
 */
#define BOX_FDPASS_NONE (-1)
#define BOX_FDPASS_REFUSED (-2)
int box_fdpass_recv(int sock, char *op, int *fds, size_t max, int flags);

#endif
