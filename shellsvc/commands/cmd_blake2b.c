/* SPDX-License-Identifier: Apache-2.0 */
/* BLAKE2b as RFC 7693 describes it: 12 rounds of G over a 16-word state,
 * the last block flagged, the digest length in the parameter block. */
#include <string.h>

#include "cmd_blake2b.h"

static const uint64_t b2_iv[8] = {
    0x6a09e667f3bcc908ULL, 0xbb67ae8584caa73bULL, 0x3c6ef372fe94f82bULL,
    0xa54ff53a5f1d36f1ULL, 0x510e527fade682d1ULL, 0x9b05688c2b3e6c1fULL,
    0x1f83d9abfb41bd6bULL, 0x5be0cd19137e2179ULL,
};

// The message word order of each round (rounds 10 and 11 repeat 0, 1).
static const unsigned char b2_sigma[12][16] = {
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
    {11, 8, 12, 0, 5, 2, 15, 13, 10, 14, 3, 6, 7, 1, 9, 4},
    {7, 9, 3, 1, 13, 12, 11, 14, 2, 6, 5, 10, 4, 0, 15, 8},
    {9, 0, 5, 7, 2, 4, 10, 15, 14, 1, 11, 12, 6, 8, 3, 13},
    {2, 12, 6, 10, 0, 11, 8, 3, 4, 13, 7, 5, 15, 14, 1, 9},
    {12, 5, 1, 15, 14, 13, 4, 10, 0, 7, 6, 3, 9, 2, 8, 11},
    {13, 11, 7, 14, 12, 1, 3, 9, 5, 0, 15, 4, 8, 6, 2, 10},
    {6, 15, 14, 9, 11, 3, 0, 8, 12, 2, 13, 7, 1, 4, 10, 5},
    {10, 2, 8, 4, 7, 6, 1, 5, 15, 11, 9, 14, 3, 12, 13, 0},
    {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15},
    {14, 10, 4, 8, 9, 15, 13, 6, 1, 12, 0, 2, 11, 7, 5, 3},
};

static uint64_t
b2_rotr(uint64_t x, unsigned n)
{
    return x >> n | x << (64 - n);
}

static uint64_t
b2_load(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = v << 8 | p[i];
    return v;
}

#define B2_G(a, b, c, d, x, y)                                                 \
    do {                                                                       \
        v[a] = v[a] + v[b] + (x);                                              \
        v[d] = b2_rotr(v[d] ^ v[a], 32);                                       \
        v[c] = v[c] + v[d];                                                    \
        v[b] = b2_rotr(v[b] ^ v[c], 24);                                       \
        v[a] = v[a] + v[b] + (y);                                              \
        v[d] = b2_rotr(v[d] ^ v[a], 16);                                       \
        v[c] = v[c] + v[d];                                                    \
        v[b] = b2_rotr(v[b] ^ v[c], 63);                                       \
    } while (0)

static void
b2_compress(sh_blake2b *s, int last)
{
    uint64_t m[16], v[16];
    for (int i = 0; i < 16; i++)
        m[i] = b2_load(s->b2_buf + 8 * i);
    for (int i = 0; i < 8; i++) {
        v[i] = s->b2_h[i];
        v[i + 8] = b2_iv[i];
    }
    v[12] ^= s->b2_t[0];
    v[13] ^= s->b2_t[1];
    if (last)
        v[14] = ~v[14];
    for (int r = 0; r < 12; r++) {
        const unsigned char *z = b2_sigma[r];
        B2_G(0, 4, 8, 12, m[z[0]], m[z[1]]);
        B2_G(1, 5, 9, 13, m[z[2]], m[z[3]]);
        B2_G(2, 6, 10, 14, m[z[4]], m[z[5]]);
        B2_G(3, 7, 11, 15, m[z[6]], m[z[7]]);
        B2_G(0, 5, 10, 15, m[z[8]], m[z[9]]);
        B2_G(1, 6, 11, 12, m[z[10]], m[z[11]]);
        B2_G(2, 7, 8, 13, m[z[12]], m[z[13]]);
        B2_G(3, 4, 9, 14, m[z[14]], m[z[15]]);
    }
    for (int i = 0; i < 8; i++)
        s->b2_h[i] ^= v[i] ^ v[i + 8];
}

void
sh_blake2b_init(sh_blake2b *s, size_t outlen)
{
    memset(s, 0, sizeof *s);
    s->b2_outlen = outlen;
    memcpy(s->b2_h, b2_iv, sizeof s->b2_h);
    s->b2_h[0] ^= 0x01010000ULL ^ (uint64_t)outlen; // no key, fanout 1
}

static void
b2_count(sh_blake2b *s, size_t n)
{
    s->b2_t[0] += n;
    if (s->b2_t[0] < n)
        s->b2_t[1]++;
}

void
sh_blake2b_update(sh_blake2b *s, const void *p, size_t n)
{
    const unsigned char *in = p;
    while (n > 0) {
        // A full buffer is compressed only once more input follows: the
        // last block must be flagged.
        if (s->b2_fill == sizeof s->b2_buf) {
            b2_count(s, s->b2_fill);
            b2_compress(s, 0);
            s->b2_fill = 0;
        }
        size_t k = sizeof s->b2_buf - s->b2_fill;
        if (k > n)
            k = n;
        memcpy(s->b2_buf + s->b2_fill, in, k);
        s->b2_fill += k;
        in += k;
        n -= k;
    }
}

void
sh_blake2b_final(sh_blake2b *s, unsigned char *out)
{
    b2_count(s, s->b2_fill);
    memset(s->b2_buf + s->b2_fill, 0, sizeof s->b2_buf - s->b2_fill);
    b2_compress(s, 1);
    for (size_t i = 0; i < s->b2_outlen; i++)
        out[i] = (unsigned char)(s->b2_h[i / 8] >> (8 * (i % 8)));
}
