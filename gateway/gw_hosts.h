/* SPDX-License-Identifier: Apache-2.0 */
/* A hosts file the gateway reads before DNS (`--hosts-file`, for tests). */
#ifndef GW_HOSTS_H
#define GW_HOSTS_H

#include <stddef.h>
#include <sys/socket.h>

#include "box_err.h"

/*
 * Tests name their origins (`origin.test`) as agents name real hosts, so
 * the shell's SSRF floor, which judges a URL's spelling, stays whole while
 * the gateway still reaches a server on loopback. The file is /etc/hosts'
 * shape: an address, then one or more names; `#` starts a comment. A name
 * found here is never asked of DNS. Names are matched as net:connect sees
 * them (lowercase, no trailing dot).
 */
typedef struct gw_hosts gw_hosts;

/* Reads path. On failure *err is the caller's message (the line and why):
 * BOX_EIO (cannot read), BOX_EINVAL (a bad line), BOX_ENOMEM. */
box_err gw_hosts_load(const char *path, gw_hosts **out,
                      char **err) BOX_WARN_UNUSED;
/* The same for text in memory (tests); name is what messages call it. */
box_err gw_hosts_parse(const char *text, size_t len, const char *name,
                       gw_hosts **out, char **err) BOX_WARN_UNUSED;
void gw_hosts_free(gw_hosts *h);

/* The addresses of name (in file order, at most max) with port set, in
 * out[i] / lens[i]; 0 when the file does not name it. */
size_t gw_hosts_find(const gw_hosts *h, const char *name, unsigned port,
                     struct sockaddr_storage *out, socklen_t *lens,
                     size_t max);

#endif
