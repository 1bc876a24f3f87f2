/* SPDX-License-Identifier: Apache-2.0 */
/* What od and hexdump share: their operands read as one stream of bytes
 * (each opened through the kernel in turn), and GNU's number syntax for
 * their -j/-N/-s/-n arguments. */
#ifndef CMD_DUMP_H
#define CMD_DUMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "sh_internal.h"

/*
 * The operands, one after the other, as one input (none: stdin; "-":
 * stdin). An operand that does not open is reported (policy, missing
 * file) and skipped: cr_status becomes 1 and the rest goes on, as GNU od
 * and util-linux hexdump do. Borrows run and ops.
 */
typedef struct dump_src {
    sh_cmd_run *ds_run;
    char **ds_ops;
    int ds_nops;
    int ds_next;     // the next operand to open
    sh_input *ds_in; // the open one, owned; NULL between operands
    bool ds_done;    // every operand is used up
    bool ds_stop;    // the run must end (cr_status set)
    int ds_failed;   // operands that did not open
} dump_src;

void dump_src_init(dump_src *s, sh_cmd_run *run, int nops, char **ops);
/* Up to n bytes into buf, reading across operands until n are in or the
 * input ends: the count (short only at the end); -1 when the run must
 * stop. */
ssize_t dump_src_fill(dump_src *s, void *buf, size_t n);
/* Drops n bytes; *left gets how many were missing at the end. False
 * when the run must stop. */
bool dump_src_skip(dump_src *s, uintmax_t n, uintmax_t *left);
void dump_src_close(dump_src *s);

/*
 * A count as GNU's xstrtoumax reads it for od -j/-N (and util-linux's
 * for hexdump -s/-n, which takes the same spellings): decimal, 0x hex or
 * 0 octal, then an optional suffix (b 512, k/K … Y powers of 1024, KB …
 * of 1000, KiB … of 1024). 0 with *out; 1 for a bad suffix; 2 for no
 * number; 3 when too large.
 */
int dump_count(const char *s, uintmax_t *out);

#endif
