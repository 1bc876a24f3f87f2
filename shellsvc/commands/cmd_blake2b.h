/* SPDX-License-Identifier: Apache-2.0 */
/* BLAKE2b (RFC 7693) with any digest length from 1 to 64 bytes: what
 * cksum -a blake2b -l N (and b2sum -l) print, which OpenSSL 3.0's fixed
 * 512-bit BLAKE2b cannot give (the length is part of the parameters). */
#ifndef CMD_BLAKE2B_H
#define CMD_BLAKE2B_H

#include <stddef.h>
#include <stdint.h>

typedef struct sh_blake2b {
    uint64_t b2_h[8];
    uint64_t b2_t[2]; // bytes hashed so far
    unsigned char b2_buf[128];
    size_t b2_fill;   // bytes in b2_buf
    size_t b2_outlen; // digest bytes, 1 to 64
} sh_blake2b;

/* An unkeyed hash of outlen bytes (1 to 64). */
void sh_blake2b_init(sh_blake2b *s, size_t outlen);
void sh_blake2b_update(sh_blake2b *s, const void *p, size_t n);
/* Writes b2_outlen bytes to out. */
void sh_blake2b_final(sh_blake2b *s, unsigned char *out);

#endif
