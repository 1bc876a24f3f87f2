/* SPDX-License-Identifier: Apache-2.0 */
/* `box bench` subcommands that live in files of their own. */
#ifndef BOX_BENCH_H
#define BOX_BENCH_H

#include <stdbool.h>
#include <stddef.h>

/* `box bench e2e` (box_bench_e2e.c): argv[0] is "e2e". Starts its own
 * box-pdp and box-shell in a temporary directory, prints figures, stops
 * them and removes the directory. Returns the exit status (0, 1 on any
 * failure, 2 on a usage error). */
int box_bench_e2e(int argc, char **argv);

/* `box bench shell` (box_bench_shell.c): argv[0] is "shell". Scripts
 * through a real box next to bash, dash, busybox sh and just-bash. Same
 * statuses as box_bench_e2e. */
int box_bench_shell(int argc, char **argv);

/* `box bench commands` (box_bench_commands.c): argv[0] is "commands".
 * The box's text and data commands on 10 MB files next to the GNU tools
 * and jq. Same statuses as box_bench_e2e. */
int box_bench_commands(int argc, char **argv);

/* `box bench temporal` (box_bench_temporal.c): argv[0] is "temporal".
 * Decisions under temporal rules over growing histories, and durable
 * decisions next to the disk's fdatasync rate. 0, or 1 when a phase
 * failed; 2 on a usage error. */
int box_bench_temporal(int argc, char **argv);

/* `box bench gateway` (box_bench_gateway.c): argv[0] is "gateway".
 * Requests per second and latency through box-gateway (decisions on, the
 * permit cache warm) next to squid, tinyproxy and direct access, plain
 * HTTP and CONNECT + TLS, on loopback. 0 when the direct and gateway
 * columns ran without a failed request, else 1; 2 on a usage error. */
int box_bench_gateway(int argc, char **argv);

/* The directory bench/<sub> holding probe_file: given (--dir), else
 * ./bench/<sub>, else beside the program (source tree or installed
 * share/box). Its real path lands in out (n bytes). */
bool box_bench_find_dir(const char *sub, const char *probe_file,
                        const char *given, char *out, size_t n);

#endif
