/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: what of two shells' stderr the bash differential compares. */
#ifndef BASH_NORM_H
#define BASH_NORM_H

#include <stdbool.h>
#include <stddef.h>

#include "box_buf.h"

/*
 * The shells name themselves differently: bash 5.2 starts its own
 * messages "bash: " and, under -c, always adds "line N: " (a syntax error
 * "bash: -c: line N: ", one in a function "environment: line N: ");
 * the box's shell starts them "strands-shell: " and
 * adds "line N: " to parse errors in multi-line text only (box-spec
 * §3.2), never to an error while running. So each line loses its
 * shell's name and the "line N: " after it: the message is compared,
 * not where the shell says it happened. A message from a command bash ran
 * (GNU cat's "cat: x: …") has no prefix and is kept as it is; the box
 * prints its commands' messages with its own prefix, which goes.
 */
box_err bd_norm_bash_err(const char *p, size_t n, box_buf *out) BOX_WARN_UNUSED;
box_err bd_norm_box_err(const char *p, size_t n, box_buf *out) BOX_WARN_UNUSED;

#endif
