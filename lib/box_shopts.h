/* SPDX-License-Identifier: Apache-2.0 */
/* The options a shell call may be started with (`sh -e -c`, `bash -o
 * pipefail -c`): what the alias sends and the broker lets through. */
#ifndef BOX_SHOPTS_H
#define BOX_SHOPTS_H

#include <stdbool.h>
#include <stddef.h>

/* A `-o NAME` the call may carry: errexit, nounset, xtrace, pipefail,
 * noglob. */
bool box_shopt_long_ok(const char *name);

/* Whether opts[0..n) are `set` arguments made only of "-e", "-u", "-x"
 * and "-o" followed by a name box_shopt_long_ok takes. */
bool box_shopt_args_ok(char *const *opts, size_t n);

#endif
