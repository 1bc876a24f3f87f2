/* SPDX-License-Identifier: Apache-2.0 */
/* factor's numbers past 2^128-1 (cmd_factor_big.c), for cmd_factor.c. */
#ifndef CMD_FACTOR_H
#define CMD_FACTOR_H

#include "box_buf.h"
#include "box_err.h"
#include "sh_internal.h"

/* Appends factor's line for the decimal number digits (digits only, at
 * least one) to out: "N: P P ...\n", the primes in ascending order, as
 * GNU factor's GMP path prints it. BOX_ECANCELED when the call stopped
 * meanwhile (sh_check_stop; out is then left short), BOX_ENOMEM. */
box_err cmd_factor_big(sh_ctx *cx, const char *digits, box_buf *out);

#endif
