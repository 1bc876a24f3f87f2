/* SPDX-License-Identifier: Apache-2.0 */
/* [[ … ]]: evaluates a conditional expression as bash does. */
#ifndef SH_COND_H
#define SH_COND_H

#include "sh_internal.h"

/*
 * Runs an SH_N_COND node: 0 when the expression is true, 1 when false,
 * 2 for an invalid regular expression or an operator this shell cannot
 * decide (-N), or the status of an expansion or arithmetic error (after
 * its message). No command is admitted: [[ is syntax, like case; its
 * file tests ask fs:* through the kernel like test's.
 */
int sh_cond_run(sh_ctx *cx, const sh_node *n);

#endif
