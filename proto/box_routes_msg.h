/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the credential routes box run hands a service (box.proto
 * EgressRoutes) from an inherited descriptor. */
#ifndef BOX_ROUTES_MSG_H
#define BOX_ROUTES_MSG_H

#include "box.pb-c.h"
#include "box_err.h"

#define BOX_ROUTES_MSG_MAX (1024 * 1024)

/* Reads fd to its end (at most BOX_ROUTES_MSG_MAX bytes) and unpacks it;
 * the bytes read are wiped (they may hold secrets). On failure *err is
 * the caller's message. Free *out with box_routes_msg_free. */
box_err box_routes_msg_read(int fd, Box__EgressRoutes **out,
                            char **err) BOX_WARN_UNUSED;

/* Wipes every secret in m, then frees it; NULL is a no-op. */
void box_routes_msg_free(Box__EgressRoutes *m);

#endif
