/* SPDX-License-Identifier: Apache-2.0 */
/* The egress proxy: event loops holding every client connection. */
#ifndef GW_PROXY_H
#define GW_PROXY_H

#include <stddef.h>

#include "box_err.h"
#include "box_pdp_client.h"

typedef struct gw_ca gw_ca;
typedef struct gw_creds gw_creds;

/*
 * Limits, each a named default (gw_proxy_opts overrides some for tests).
 * A connection past GW_CONNS_MAX is answered 503 and closed. A client has
 * GW_HEAD_MS to send a whole head (a slow-loris client holds nothing
 * longer), GW_IDLE_MS between requests on a kept-alive connection, and
 * GW_STALL_MS without progress while it sends a body or reads an answer.
 * A request body is held whole before it is decided (its size is
 * http:request's body_bytes) and forwarded: at most GW_PROXY_BODY_MAX bytes
 * (413 past it).
 */
#define GW_CONNS_MAX 1024
#define GW_HEAD_MS 30000
#define GW_IDLE_MS 60000
#define GW_STALL_MS 60000
#define GW_PROXY_BODY_MAX (16u << 20)
#define GW_LOOPS_MAX 16

typedef struct gw_proxy_opts {
    int po_tcp_fd;          // a listening TCP socket, or -1
    int po_unix_fd;         // a listening Unix stream socket, or -1
    box_pdp_client *po_pdp; // borrowed, outlives the proxy
    gw_ca *po_ca;           // borrowed; NULL: CONNECT is answered 503
    /* Upstream TLS is verified against this file's CAs instead of the
     * system's (a corporate CA, a test's); borrowed; NULL: the system's. */
    const char *po_upstream_ca;
    unsigned po_conns_max;  // 0: GW_CONNS_MAX
    size_t po_body_max;     // 0: GW_PROXY_BODY_MAX
    int po_head_ms;         // 0: GW_HEAD_MS
    int po_idle_ms;         // 0: GW_IDLE_MS
    int po_stall_ms;        // 0: GW_STALL_MS
    /* A request on the TCP listener must carry Proxy-Authorization with
     * exactly this value (407 otherwise); NULL: none needed. The Unix
     * socket needs none: only the box's relays, its shell and the
     * operator reach it. Borrowed. */
    const char *po_proxy_auth;
    /* The box's credential routes (gw_cred.h); borrowed; NULL: none. */
    const gw_creds *po_creds;
    /* Names resolved before DNS (gw_hosts.h, tests); borrowed; NULL. */
    const struct gw_hosts *po_hosts;
    /* Event loops, each on a thread of its own with its own libcurl (one
     * job pool serves them all); 0: gw_proxy_default_loops(). At most
     * GW_LOOPS_MAX. */
    unsigned po_loops;
} gw_proxy_opts;

typedef struct gw_proxy gw_proxy;

/* Starts the loops, each on a thread of its own; it takes the listening
 * sockets (closed by gw_proxy_stop, or on failure). *err (owned) says why
 * on failure. */
box_err gw_proxy_start(const gw_proxy_opts *o, gw_proxy **out,
                       char **err) BOX_WARN_UNUSED;
/* One a processor, at most GW_LOOPS_MAX: asked before confinement (it
 * reads /sys). */
unsigned gw_proxy_default_loops(void);
/* How many loops p runs. */
unsigned gw_proxy_loops(const gw_proxy *p);
/* Stops accepting, ends every connection, joins the loops, frees. */
void gw_proxy_stop(gw_proxy *p);

#endif
