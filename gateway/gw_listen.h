/* SPDX-License-Identifier: Apache-2.0 */
/* The proxy's listening sockets, opened before the gateway confines itself. */
#ifndef GW_LISTEN_H
#define GW_LISTEN_H

#include <stddef.h>

#include "box_err.h"

/* A TCP listener on HOST:PORT (an IPv4 or [IPv6] literal; port 0 picks
 * one). *fd, and the address it got as "host:port" in addr (addrn
 * bytes). *err (owned) says why on failure. */
box_err gw_listen_tcp(const char *hostport, int *fd, char *addr, size_t addrn,
                      char **err) BOX_WARN_UNUSED;

/* A Unix stream listener at path (a stale socket there is replaced; any
 * other file is not), mode 0666 so a sandbox running as another user can
 * connect: what decides is policy, not who may reach the door. */
box_err gw_listen_unix(const char *path, int *fd, char **err) BOX_WARN_UNUSED;

#endif
