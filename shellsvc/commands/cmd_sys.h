/* SPDX-License-Identifier: Apache-2.0 */
/* What env, printenv, timeout, date and the small system commands share:
 * the call's environment as a program would see it, and running a
 * command of this shell as GNU's env and timeout run a program. */
#ifndef CMD_SYS_H
#define CMD_SYS_H

#include <stdbool.h>

#include "sh_internal.h"

/* name's value when it is exported in cx's state (what a program's
 * environment holds), else NULL. Borrowed from the state. */
const char *sh_sys_getenv(const sh_ctx *cx, const char *name);

/* Whether v is in the environment a program gets: exported, set, and
 * not an array (bash exports no arrays). */
bool sh_sys_exported(const sh_var *v);

/* Keeps the first failure of a run of appends to a buffer: acc stays
 * BOX_OK until a call fails, and no call is made after that. */
#define SH_SYS_ACC(acc, call) ((acc) = (acc) == BOX_OK ? (call) : (acc))

/* How a command that could not start is reported. */
typedef enum sh_sys_who {
    SH_SYS_ENV,     // env: ‘NAME’: No such file or directory
    SH_SYS_TIMEOUT, // timeout: failed to run command ‘NAME’: …
} sh_sys_who;

/*
 * Runs argv as GNU's env or timeout would exec it, as a command of this
 * shell in sub (a fork the caller owns and frees): never a function,
 * never a builtin that no program stands for (`env cd` is "No such file
 * or directory", 127), every other word through admission
 * (sh_exec_argv: a refused command is the spec's refusal, 126). Returns
 * the command's status.
 */
int sh_sys_run(sh_ctx *sub, sh_sys_who who, int argc, char **argv);

/* Makes sub's state what an exec'd program starts with: only the
 * exported variables, none readonly, no functions. */
void sh_sys_program_state(sh_ctx *sub);

#endif
