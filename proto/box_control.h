/* SPDX-License-Identifier: Apache-2.0 */
/* The control socket every service offers (health/status), and its client. */
#ifndef BOX_CONTROL_H
#define BOX_CONTROL_H

#include <stdbool.h>
#include <signal.h>
#include <stdint.h>

#include "box.pb-c.h"
#include "box_err.h"

typedef struct box_control box_control;

/* Serves ControlRequest{health} on url, answering with service, version,
 * pid and uptime. The caller owns *out; box_control_stop frees it. */
box_err box_control_start(const char *url, const char *service,
                          box_control **out) BOX_WARN_UNUSED;
/* The same, and health also says where the service listens (address:
 * the gateway's proxy, "127.0.0.1:PORT"). */
box_err box_control_start_at(const char *url, const char *service,
                             const char *address,
                             box_control **out) BOX_WARN_UNUSED;
void box_control_stop(box_control *c);

/* The whole life of a service that only answers health for now: serve the
 * control socket at url (if non-NULL), log readiness, wait for SIGTERM or
 * SIGINT (SIGHUP is ignored), stop. Returns the process exit status. */
int box_control_serve_until_term(const char *service, const char *url,
                                 const sigset_t *sigs);

/* Asks a control socket for health within timeout_ms. On BOX_OK the caller
 * owns *out (free with box__health_response__free_unpacked). */
box_err box_control_health(const char *url, int timeout_ms,
                           Box__HealthResponse **out) BOX_WARN_UNUSED;

/* Asks a PDP socket for health (PdpRequest{health}); same contract. */
box_err box_pdp_health(const char *url, int timeout_ms,
                       Box__HealthResponse **out) BOX_WARN_UNUSED;

/*
 * Asking again and again until a service is up: one socket kept across
 * tries (nng reconnects by itself), so no try leaves a socket whose close
 * could hang (nng 1.5.2 can block closing a REQ socket whose request
 * timed out, upstream #1543) and stall the asker's later connections.
 */
typedef struct box_health_probe box_health_probe;

/* pdp: ask with PdpRequest{health}, else ControlRequest{health}. Each ask
 * waits at most timeout_ms. The caller owns *out (box_health_probe_close). */
box_err box_health_probe_open(const char *url, bool pdp, int timeout_ms,
                              box_health_probe **out) BOX_WARN_UNUSED;
/* Same contract as box_control_health. */
box_err box_health_probe_ask(box_health_probe *p,
                             Box__HealthResponse **out) BOX_WARN_UNUSED;
void box_health_probe_close(box_health_probe *p);

#endif
