/* SPDX-License-Identifier: Apache-2.0 */
/* `box bench` subcommands that live in files of their own. */
#ifndef BOX_BENCH_H
#define BOX_BENCH_H

/* `box bench e2e` (box_bench_e2e.c): argv[0] is "e2e". Starts its own
 * box-pdp and box-shell in a temporary directory, prints figures, stops
 * them and removes the directory. Returns the exit status (0, 1 on any
 * failure, 2 on a usage error). */
int box_bench_e2e(int argc, char **argv);

#endif
