/* SPDX-License-Identifier: Apache-2.0 */
/* The entry point of every fuzz target, for libFuzzer and the replay. */
#ifndef BOX_FUZZ_H
#define BOX_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/*
 * Runs one input (data[0..size), not NUL-terminated, so a parser that
 * reads past its end is caught by ASan) through the code under test and
 * returns 0. A broken invariant calls box_fuzz_fail.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken invariant: says which and aborts, which libFuzzer reports as a
 * crash and keeps the input of. */
__attribute__((noreturn)) static inline void
box_fuzz_fail(const char *what)
{
    fprintf(stderr, "fuzz: invariant broken: %s\n", what);
    abort();
}

#endif
