/* SPDX-License-Identifier: Apache-2.0 */
/* Starts, watches and stops the services of one box (from the process
 * table, lib/box_proctab.h). */
#ifndef BOX_SVCS_H
#define BOX_SVCS_H

#include <stdio.h>

#include "box_err.h"
#include "box_proctab.h"

typedef struct box_svcs box_svcs;

/* Starts every row of the process table that box run starts, in table
 * order (PDP, gateway, shell), each with the row's command line for box b
 * and the row's names of our environment, and only after the one before
 * answers its health check. On failure everything started is stopped
 * again and *err (caller frees) says what went wrong. */
box_err box_svcs_start(const box_proctab_box *b, box_svcs **out,
                       char **err) BOX_WARN_UNUSED;

/* One line per service: `strands-box: <name> up · pid <n> · <url>`. */
void box_svcs_report(const box_svcs *s, FILE *out);

/* The gateway's proxy address as its health gave it ("127.0.0.1:PORT"),
 * or NULL; borrowed from s. */
const char *box_svcs_gateway_address(const box_svcs *s);

/* The name of a service that has exited on its own, or NULL. */
const char *box_svcs_find_dead(box_svcs *s);

/* Stops in reverse order (SIGTERM, then SIGKILL after a grace period),
 * reaps, frees. Returns 0 when every service exited 0 on its own terms. */
int box_svcs_stop(box_svcs *s);

#endif
