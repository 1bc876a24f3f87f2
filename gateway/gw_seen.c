/* SPDX-License-Identifier: Apache-2.0 */
/* Upstreams that answered lately (see gw_seen.h). */
#include "gw_seen.h"

#include <stddef.h>

/* FNV-1a over the three parts, a NUL between them so "ab"+"c" and "a"+"bc"
 * differ; never 0, the empty slot's key. */
static uint64_t
seen_key(const char *host, unsigned port, const char *ip)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    const char *parts[2] = {host, ip};
    for (size_t i = 0; i < 2; i++) {
        for (const char *p = parts[i]; *p != '\0'; p++)
            h = (h ^ (unsigned char)*p) * UINT64_C(0x100000001b3);
        h = (h ^ 0xffu) * UINT64_C(0x100000001b3);
    }
    for (int i = 0; i < 2; i++, port >>= 8)
        h = (h ^ (port & 0xffu)) * UINT64_C(0x100000001b3);
    return h != 0 ? h : 1;
}

void
gw_seen_mark(gw_seen *s, const char *host, unsigned port, const char *ip,
             uint64_t now_ms)
{
    uint64_t k = seen_key(host, port, ip);
    size_t slot = (size_t)(k % GW_SEEN_SLOTS);
    s->s_key[slot] = k;
    s->s_until[slot] = now_ms + GW_SEEN_MS;
}

bool
gw_seen_recent(const gw_seen *s, const char *host, unsigned port,
               const char *ip, uint64_t now_ms)
{
    uint64_t k = seen_key(host, port, ip);
    size_t slot = (size_t)(k % GW_SEEN_SLOTS);
    return s->s_key[slot] == k && s->s_until[slot] > now_ms;
}
