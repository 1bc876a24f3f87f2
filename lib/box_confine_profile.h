/* SPDX-License-Identifier: Apache-2.0 */
/* The confinement profiles of the trusted services, each built from the
 * service's own command line: what box-pdp, box-gateway and box-shell's
 * broker may read, write and make. */
#ifndef BOX_CONFINE_PROFILE_H
#define BOX_CONFINE_PROFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "box_confine.h"

/*
 * The operator's home, spelled as $HOME and (for box-pdp) --home; either
 * may be NULL. No profile grants anything beneath a home or a directory
 * above one: a service must keep no way into the operator's files.
 */
#define BOX_CONFINE_HOMES 2

typedef struct box_confine_pdp_args {
    const char *pa_listen;    // --listen URL (required)
    const char *pa_epoch_pub; // --epoch-pub URL, or NULL
    const char *pa_policy;    // --policy FILE, or NULL
    const char *pa_log;       // --log FILE, or NULL
    const char *pa_history;   // --history FILE, or NULL
    const char *pa_homes[BOX_CONFINE_HOMES];
    int pa_peers_fd; // the peer identifier's socket (pdp_peer.c), or -1
} box_confine_pdp_args;

/*
 * box-pdp: reads the policy, makes and removes its ipc sockets, appends
 * to (and creates) the decision log; nothing else.
 *
 *  - policy: read of files beneath the policy's (canonical) directory, so
 *    a reload finds a file an editor replaced by rename (a new inode). If
 *    that directory is a home or above one, only the file itself:
 *    *policy_file_only is then true, and a reload of a replaced file is
 *    refused (the caller says why).
 *  - --listen / --epoch-pub ipc:// paths: make sockets and remove files in
 *    each socket's directory. Only Unix sockets may be opened when every
 *    address is ipc:// (socket() of another family: EPERM).
 *  - --log: write files and make regular files in the log's directory.
 *  - descriptors 0-2 and pa_peers_fd; BOX_LOG_LEVEL.
 * A socket or log directory that is a home or above one is refused
 * (BOX_ECONFIG, *err says which): write there would reach every file of
 * the home. On failure the spec is freed.
 */
box_err box_confine_pdp(const box_confine_pdp_args *a, box_confine_spec *spec,
                        bool *policy_file_only, char **err) BOX_WARN_UNUSED;

typedef struct box_confine_gateway_args {
    const char *ga_control;   // --control URL, or NULL
    const char *ga_trust_dir; // the box's trust directory, or NULL
    const char *ga_homes[BOX_CONFINE_HOMES];
    const int *ga_fds; // descriptors kept besides 0-2 (the listeners)
    size_t ga_nfds;
    const char *ga_upstream_ca; // a CA file read for upstream TLS, or NULL
} box_confine_gateway_args;

/*
 * box-gateway: makes and removes its control socket in that socket's
 * directory; reads the system certificates (/etc/ssl/certs,
 * /usr/share/ca-certificates, when there) and the trust directory.
 * Network sockets stay allowed (it is the proxy). Descriptors 0-2 and
 * ga_fds; BOX_LOG_LEVEL.
 */
box_err box_confine_gateway(const box_confine_gateway_args *a,
                            box_confine_spec *spec, char **err) BOX_WARN_UNUSED;

typedef struct box_confine_broker_args {
    const char *ba_box_dir;   // --box-dir (its run/ and private/ exist)
    const char *ba_control;   // --control URL, or NULL
    const char *ba_pdp;       // --pdp URL (decides whether TCP is needed)
    const char *ba_epoch_pub; // --epoch-pub URL, or NULL
    const char *ba_homes[BOX_CONFINE_HOMES];
    const int *ba_fds; // descriptors kept besides 0-2 (zygote channel, ...)
    size_t ba_nfds;
} box_confine_broker_args;

/*
 * box-shell's broker: makes and removes sockets in the box directory's
 * run/ (the alias socket) and private/ (its control socket), and in the
 * control socket's directory if it lies elsewhere; nothing else of the
 * filesystem. Only Unix sockets when the PDP and epoch addresses are
 * ipc://. Descriptors 0-2 and ba_fds; BOX_LOG_LEVEL.
 */
box_err box_confine_broker(const box_confine_broker_args *a,
                           box_confine_spec *spec, char **err) BOX_WARN_UNUSED;

#endif
