/* SPDX-License-Identifier: Apache-2.0 */
/* FNV-1a over bytes: the one simple hash for tables and digests. */
#ifndef BOX_HASH_H
#define BOX_HASH_H

#include <stddef.h>
#include <stdint.h>

/* The 64-bit offset basis: the hash of no bytes. */
#define BOX_FNV1A_INIT 0xcbf29ce484222325ULL

/*
 * h extended by the n bytes at p: box_fnv1a(BOX_FNV1A_INIT, p, n) hashes
 * one buffer, and feeding the result back in hashes several as if joined.
 * A byte at a time: for keys of a few dozen bytes in tables where a
 * collision costs a comparison, never for keys an attacker picks to make
 * a table slow (use a keyed hash there) nor on a hot path over long keys.
 */
static inline uint64_t
box_fnv1a(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 0x100000001b3ULL;
    return h;
}

#endif
