/* SPDX-License-Identifier: Apache-2.0 */
/* Recursive-descent parser for the supported subset of .dw (dogwood-spec §2). */
#ifndef PDP_PARSE_H
#define PDP_PARSE_H

#include <stddef.h>

#include "box_buf.h"
#include "box_err.h"
#include "box_arena.h"
#include "pdp_ast.h"

/* Nesting cap for expressions (parentheses, brackets, if, calls) and for
 * the depth of any expression tree, so neither the parser nor the
 * evaluator can run out of stack. */
#define PDP_PARSE_MAX_DEPTH 64
/* At most this many rules in one policy set. */
#define PDP_PARSE_MAX_RULES 100000

/*
 * Parses text[0..len) (file names it in messages) into *out. Every node,
 * string and literal value is allocated from a; they live as long as a.
 * On failure *out is NULL and err holds exactly one message
 * "file:line:col: …" (the first error). Returns BOX_EPARSE for syntax
 * and semantic errors, BOX_ENOTSUP for a construct this build does not
 * support yet ("… is not supported yet"), BOX_ENOMEM / BOX_ETOOBIG.
 */
box_err pdp_parse(const char *text, size_t len, const char *file,
                  box_arena *a, const pdp_ast **out,
                  box_buf *err) BOX_WARN_UNUSED;

#endif
