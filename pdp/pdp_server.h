/* SPDX-License-Identifier: Apache-2.0 */
/* The box-pdp server: decisions over nng, policy generations, epochs. */
#ifndef PDP_SERVER_H
#define PDP_SERVER_H

#include <stddef.h>
#include <stdint.h>

#include "box_err.h"
#include "pdp_peer.h"

typedef struct pdp_server pdp_server;

/* Everything borrowed for the call. */
typedef struct pdp_server_opts {
    const char *so_listen;    // REP address for decisions (required)
    const char *so_epoch_pub; // PUB address for epoch notices, or NULL
    const char *so_policy;    // policy file, or NULL: deny everything
    const char *so_log;       // decision log file, or NULL
    const char *so_history;   // the durable history file, or NULL
    const char *so_home;      // operator home (spelling checks), or NULL
    const char *so_box_id;    // for the log's resource attributes
    const char *so_run_id;
    int so_contexts;          // concurrent nng contexts (0 = default)
    size_t so_log_queue;      // decision log queue bound (0 = default)
    pdp_peers *so_peers;      // who may connect (required; made before
                              // box-pdp confines itself: pdp_peer.h)
} pdp_server_opts;

/* Loads the policy (a policy that does not load refuses the start: *err,
 * caller frees), opens the log, listens. The caller owns *out. */
box_err pdp_server_start(const pdp_server_opts *o, pdp_server **out,
                         char **err) BOX_WARN_UNUSED;

/* SIGHUP: parse and validate the whole file again; on success swap it in
 * atomically, bump the epoch and publish it; on failure keep the old
 * generation, log `policy_refused` and return the reason in *err. A file
 * that loads but does not install (out of memory), or installs but whose
 * epoch notice is not sent, returns that error too: it is logged and the
 * health answer's generation_error names it until a generation installs
 * and publishes cleanly. */
box_err pdp_server_reload(pdp_server *s, char **err) BOX_WARN_UNUSED;

/* The epoch (policy generation) in force. */
uint64_t pdp_server_epoch(pdp_server *s);

/* Drains in-flight requests, flushes the log, frees. */
void pdp_server_stop(pdp_server *s);

#endif
