/* SPDX-License-Identifier: Apache-2.0 */
/* The broker's side of a worker's dial: one socket to the egress gateway. */
#ifndef BROKER_DIAL_H
#define BROKER_DIAL_H

#include "box_err.h"
#include "worker.h"

/*
 * Answers one dial frame: connects a new stream socket to the gateway's
 * own Unix socket (ws->ws_egress->eg_socket, never a path the worker
 * names), which goes to the worker on fds_sock. Returns BOX_OK when it
 * went; BOX_EDENIED when the worker is to be told why not (*refusal,
 * the caller's; NULL only when out of memory); another error when the
 * descriptor socket failed (the call ends).
 */
box_err broker_dial(const worker_settings *ws, int fds_sock,
                    char **refusal) BOX_WARN_UNUSED;

#endif
