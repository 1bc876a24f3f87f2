/* SPDX-License-Identifier: Apache-2.0 */
/* Simple hashes for tables and digests: FNV-1a over bytes, and a word at
 * a time for hot paths over longer keys. */
#ifndef BOX_HASH_H
#define BOX_HASH_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

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

/* The 128-bit product of a and b folded to 64 bits. */
static inline uint64_t
box_hash_mum(uint64_t a, uint64_t b)
{
    unsigned __int128 r = (unsigned __int128)a * b;
    return (uint64_t)r ^ (uint64_t)(r >> 64);
}

/*
 * A multiply-mix hash, 16 bytes per multiply, for keys of a hundred bytes
 * or more hashed on a hot path (the permit caches' keys, a batch's
 * reports), where FNV-1a's byte loop or a chain of 64-bit multiplies (each
 * word waiting for the last) was most of a hit. Chunks are mixed
 * independently with their position, so the multiplies overlap. Not a
 * defence against chosen collisions: a collision costs a comparison.
 */
static inline uint64_t
box_hash_words(const void *data, size_t n)
{
    static const uint64_t k0 = 0xa0761d6478bd642fULL,
                          k1 = 0xe7037ed1a0b428dbULL,
                          k2 = 0x8ebc6af09c88c6e3ULL;
    const unsigned char *p = data;
    uint64_t h = box_hash_mum(n ^ k0, k1);
    uint64_t a, b;
    size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        memcpy(&a, p + i, 8);
        memcpy(&b, p + i + 8, 8);
        h ^= box_hash_mum(a ^ k0 ^ (i * k2), b ^ k1);
    }
    if (i < n) {
        // The last 16 bytes, overlapping the chunk before; or the few
        // there are (n itself is in h).
        a = b = 0;
        if (n >= 16) {
            memcpy(&a, p + n - 16, 8);
            memcpy(&b, p + n - 8, 8);
        } else {
            for (size_t j = 0; j < n; j++) {
                if (j < 8)
                    a |= (uint64_t)p[j] << (8 * j);
                else
                    b |= (uint64_t)p[j] << (8 * (j - 8));
            }
        }
        h ^= box_hash_mum(a ^ k2, b ^ k0 ^ (n * k1));
    }
    return box_hash_mum(h ^ k0, h ^ k2);
}

#endif
