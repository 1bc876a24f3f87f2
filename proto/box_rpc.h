/* SPDX-License-Identifier: Apache-2.0 */
/* Request/reply of protobuf messages over nng, with a deadline on every call. */
#ifndef BOX_RPC_H
#define BOX_RPC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <protobuf-c/protobuf-c.h>
#include <nng/nng.h>

#include "box_err.h"

/*
 * Client. One REQ socket, one nng context per call, so any number of
 * threads may call at once. nng's REQ resends a request after 60 s by
 * default; we turn resending off and put an explicit deadline on every
 * call instead: a call that gets no answer in time returns BOX_ETIMEDOUT,
 * which the caller must turn into a refusal (never a permit).
 */
typedef struct box_rpc_client box_rpc_client;

/* Dials url in the background (the server may come up later). The caller
 * owns *out and closes it with box_rpc_client_close. */
box_err box_rpc_client_open(const char *url, int timeout_ms,
                            box_rpc_client **out) BOX_WARN_UNUSED;
void box_rpc_client_close(box_rpc_client *c);
const char *box_rpc_client_url(const box_rpc_client *c);

/* Closes a client-side socket without ever hanging: nng 1.5.2 can block
 * forever in nng_close (upstream issues #1543, #1813), so the close runs on
 * a helper thread and is abandoned (the socket leaks) after one second. */
void box_rpc_close_socket(nng_socket sock);

/* Sends req and waits for one reply of type resp_desc, at most the
 * client's timeout. On BOX_OK the caller owns *resp and frees it with
 * protobuf_c_message_free_unpacked(*resp, NULL). Errors: BOX_ETIMEDOUT,
 * BOX_ECLOSED (no transport), BOX_EPROTO (reply did not decode, or
 * nests deeper than BOX_WIRE_DEPTH_MAX: see box_wire_scan.h), BOX_ENOMEM. */
box_err box_rpc_call(box_rpc_client *c, const ProtobufCMessage *req,
                     const ProtobufCMessageDescriptor *resp_desc,
                     ProtobufCMessage **resp) BOX_WARN_UNUSED;

/* Same, with raw request bytes (tests use it to send garbage). */
box_err box_rpc_call_raw(box_rpc_client *c, const void *req, size_t len,
                         const ProtobufCMessageDescriptor *resp_desc,
                         ProtobufCMessage **resp) BOX_WARN_UNUSED;

/*
 * Server. nng's concurrent server shape: one REP socket, N contexts, each
 * driven by an aio callback. The handler runs on an nng worker thread, so
 * it must be thread-safe and must not block for long.
 */
typedef struct box_rpc_server box_rpc_server;

/* Builds the reply for one request: append the reply bytes to `reply`
 * (box_rpc_msg_pack does it for a protobuf message). The request bytes
 * are only borrowed for the call. A handler that leaves `reply` empty
 * sends an empty reply. */
typedef void (*box_rpc_handler)(void *arg, const void *req, size_t len,
                                nng_msg *reply);

/* Listens on url with ncontexts concurrent contexts. Messages over
 * transport_max bytes drop the connection (nng's own limit); smaller
 * limits are the handler's job. The caller owns *out and stops it with
 * box_rpc_server_stop. */
box_err box_rpc_server_start(const char *url, int ncontexts,
                             size_t transport_max, box_rpc_handler handler,
                             void *arg, box_rpc_server **out) BOX_WARN_UNUSED;

/* What the kernel says about a connecting peer (SO_PEERCRED, through
 * nng's ipc transport). */
typedef struct box_rpc_peer {
    bool rp_known; // false: the transport cannot say (not ipc://)
    pid_t rp_pid;  // at connect time
    uid_t rp_uid;
} box_rpc_peer;

/* True when the peer may send requests. It runs on an nng thread once a
 * connection is made and before it is added to the socket, so a refused
 * connection is closed before it carries a single message. It must be
 * thread-safe and quick. */
typedef bool (*box_rpc_peer_fn)(void *arg, const box_rpc_peer *peer);

/* box_rpc_server_start with every new connection put to peer (with
 * peer_arg, which must outlive the server). */
box_err box_rpc_server_start_checked(const char *url, int ncontexts,
                                     size_t transport_max,
                                     box_rpc_handler handler, void *arg,
                                     box_rpc_peer_fn peer, void *peer_arg,
                                     box_rpc_server **out) BOX_WARN_UNUSED;
/* Stops receiving, waits for every handler in flight, closes, frees. */
void box_rpc_server_stop(box_rpc_server *s);

/* Appends the packed form of m to msg. */
box_err box_rpc_msg_pack(nng_msg *msg, const ProtobufCMessage *m) BOX_WARN_UNUSED;

/* Removes a leftover socket file of an ipc:// url (after a crash). */
void box_rpc_unlink_ipc(const char *url);

#endif
