/* SPDX-License-Identifier: Apache-2.0 */
/* Upstreams that answered lately: where a tunnel may skip its own connect. */
#ifndef GW_SEEN_H
#define GW_SEEN_H

#include <stdbool.h>
#include <stdint.h>

/*
 * A CONNECT is answered 200 once upstream answers (box-spec §6). When an
 * exchange with the same host at the same decided address and port was
 * answered moments ago, libcurl most likely keeps that connection, and a
 * connect made only to say so would be opened and dropped unused (a
 * wasted connection at the origin for every tunnel). Such a tunnel gets
 * its 200 at once; should the kept connection be gone and a new one fail,
 * its request is answered 502 inside the tunnel.
 *
 * A fixed table of GW_SEEN_SLOTS, direct-mapped by a hash of the triple:
 * a slot's old entry is overwritten, and a lookup compares the whole
 * 64-bit hash. The loop's alone: no lock.
 */
#define GW_SEEN_SLOTS 1024
#define GW_SEEN_MS 60000 // within libcurl's idle limit for a kept connection

typedef struct gw_seen {
    uint64_t s_key[GW_SEEN_SLOTS];
    uint64_t s_until[GW_SEEN_SLOTS]; // ms on the monotonic clock; 0: empty
} gw_seen;

/* host:port at ip answered at now_ms. */
void gw_seen_mark(gw_seen *s, const char *host, unsigned port, const char *ip,
                  uint64_t now_ms);
/* Whether it answered within GW_SEEN_MS before now_ms. */
bool gw_seen_recent(const gw_seen *s, const char *host, unsigned port,
                    const char *ip, uint64_t now_ms);

#endif
