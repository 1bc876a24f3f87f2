/* SPDX-License-Identifier: Apache-2.0 */
/* `[egress.NAME]` destinations (box-spec §5): parse once, match a request. */
#ifndef BOX_DEST_H
#define BOX_DEST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_err.h"

/*
 * A destination names where a credential may go:
 *   host             ports 443 and 80, any path
 *   host:port        that port only
 *   host/prefix      paths equal to /prefix or under /prefix/ (whole
 *                    segments: /repos matches /repos and /repos/x, never
 *                    /reposx)
 *   host/ * /suffix  (no spaces) one segment of anything, then the suffix
 *   *.domain         every name under domain, never domain itself
 * Hosts are compared lowercased without a trailing dot. A port and a path
 * may both be given (`host:8443/v1`). Refused: `*` alone or anywhere but a
 * leading `*.` or a whole `*` path segment, port 0 or past 65535, an empty
 * host, a query or fragment, a control character or space.
 */
typedef struct box_dest {
    char *d_host;      // lowercased; for *.domain, "domain"
    bool d_wildcard;   // *.domain
    uint16_t d_port;   // 0: 443 and 80
    char *d_path;      // "" (any path) or "/seg/..." as written, no trailing '/'
} box_dest;

/* Parses text into *out (free with box_dest_free). BOX_EINVAL with *why
 * (static text, one clause, e.g. "port 0 is not a port") for a refused
 * spelling; BOX_ENOMEM. */
box_err box_dest_parse(const char *text, box_dest *out,
                       const char **why) BOX_WARN_UNUSED;
void box_dest_free(box_dest *d);

/* True when a request to host (lowercase, no trailing dot), port and
 * canonical path (starts with '/', no query) falls under d. */
bool box_dest_match(const box_dest *d, const char *host, unsigned port,
                    const char *path);

/* True when some request could fall under both a and b (the loader
 * refuses such a pair: a request must name one credential at most). */
bool box_dest_overlap(const box_dest *a, const box_dest *b);

#endif
