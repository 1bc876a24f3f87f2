/* SPDX-License-Identifier: Apache-2.0 */
/* The `box` CLI's verbs: one table in box_main.c, one file per verb. */
#ifndef BOX_CMD_H
#define BOX_CMD_H

/* Each verb gets the arguments after its own name (argv[0] is the verb)
 * and returns the process exit status. */
int box_cmd_run(int argc, char **argv);
/* `box bench SUBCOMMAND` (box_bench.c dispatches; box_bench.h). */
int box_cmd_bench(int argc, char **argv);
int box_cmd_policy(int argc, char **argv);
int box_cmd_log(int argc, char **argv);
/* `box sh`: one shell call in the foreground against a policy. */
int box_cmd_sh(int argc, char **argv);

/* The directory holding this program, where the services live. Returns a
 * static-length string in buf, or NULL if it cannot be found. */
const char *box_cmd_self_dir(char *buf, unsigned long n);

/* Prints `strands-box: error: <msg>` on stderr; returns 1. */
int box_cmd_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
