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
/* At most this many nodes in one condition (Cedar) or temporal block,
 * counted as a tree once macros are expanded: an argument a body uses
 * twice is shared, not copied, and every walk pays for each use. */
#define PDP_PARSE_MAX_NODES 100000
/* At most this many rules in one policy set. */
#define PDP_PARSE_MAX_RULES 100000

/*
 * Parses text[0..len) (file names it in messages) into *out, its macro
 * calls expanded from its own definitions and the built-in library.
 * Every node, string and literal value is allocated from a; they live as
 * long as a.
 * On failure *out is NULL and err holds exactly one message
 * "file:line:col: …" (the first error). Returns BOX_EPARSE for syntax
 * and semantic errors, BOX_ENOTSUP for a construct this build does not
 * support yet ("… is not supported yet"), BOX_ENOMEM / BOX_ETOOBIG.
 */
box_err pdp_parse(const char *text, size_t len, const char *file,
                  box_arena *a, const pdp_ast **out,
                  box_buf *err) BOX_WARN_UNUSED;

/* What a provider call (`Ns::Fn(…)`, dogwood-spec §2.7) is refused with:
 * this build enables none (Box enables none either: §6.2 step 3). */
#define PDP_PARSE_NO_PROVIDERS \
    "information providers are not enabled in this build"

/* A macro library (dogwood-spec §2.6) in place of the built-in one. */
typedef struct pdp_parse_lib_text {
    const char *pl_text;
    size_t pl_len;
    const char *pl_file;
} pdp_parse_lib_text;

/* pdp_parse with the library lib (NULL: the built-in library), whose
 * definitions a policy's own `def` of the same name replaces. */
box_err pdp_parse_lib(const char *text, size_t len, const char *file,
                      const pdp_parse_lib_text *lib, box_arena *a,
                      const pdp_ast **out, box_buf *err) BOX_WARN_UNUSED;

#endif
