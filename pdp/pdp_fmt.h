/* SPDX-License-Identifier: Apache-2.0 */
/* Canonical Dogwood text for a policy file (`box policy fmt`). */
#ifndef PDP_FMT_H
#define PDP_FMT_H

#include <stddef.h>

#include "box_buf.h"
#include "box_err.h"
#include "pdp_ast.h"

/* The width the layout keeps to (a scope, or one operand of a broken
 * condition, is never split and may pass it). */
#define PDP_FMT_WIDTH 80

/*
 * Appends e as Dogwood text on one line, with parentheses exactly where
 * the grammar needs them (dogwood-spec §2.3: a looser operator inside a
 * tighter one, a nested relation, the right operand of a left-associative
 * operator, an `&&` inside an `&&` or an `||` inside an `||` that the
 * parser would otherwise flatten, a negative literal or a `-` before a
 * literal that would fold). Strings are escaped as pdp_value_format
 * writes them; a `like` pattern is kept as written. The text parses back
 * to a tree with the same pdp_expr_dump. A temporal block is written
 * with pdp_tl_dump. BOX_EINVAL for a tree no source could give (a `has`
 * path step that is not an identifier).
 */
box_err pdp_fmt_expr(const pdp_expr *e, box_buf *out) BOX_WARN_UNUSED;

/*
 * Appends the canonical text of the policy file text[0..len) to out
 * (file names it in messages). The layout:
 *  - one blank line between rules, none inside one; the text ends with
 *    one newline (an empty file stays empty); a leading BOM is dropped;
 *  - each annotation on its own line, `@key` or `@key("value")`;
 *  - `permit (principal…, action…, resource…)` on one line, the three
 *    variables always written, in that order;
 *  - each condition on one line, `when { E }`, when it fits in
 *    PDP_FMT_WIDTH columns and holds no comment; otherwise `when {`, the
 *    body indented by four spaces (one operand of a top-level `&&` or
 *    `||` chain a line, the operator at the end of the line) and `}`;
 *  - a temporal condition as `when temporal { φ }`, φ as pdp_tl_dump
 *    writes it (`when { temporal { φ } }` becomes this form);
 *    `guardrails` is dropped (§2.5: the parser discards it);
 *  - `;` at the end of the rule's last line.
 * Comments are all kept, in their order. A comment on a line of its own
 * stays on a line of its own, before the output line that holds the
 * token after it (a comment inside a scope or an operand, which are
 * never split, moves up before that line). A comment after code stays
 * at the end of the output line that holds that code; when more than one
 * would end the same line, they all move up before it. A comment inside
 * a condition makes it break. Blank lines are kept (as one) only among
 * the comments above a rule and between them and the rule; comments
 * after the last rule follow it after one blank line.
 * The output parses back to the same rules (pdp_rule_dump) and is its
 * own canonical text. A text that defines or calls a macro is refused
 * (BOX_ENOTSUP: the rules hold the expansions). On a parse error,
 * BOX_EPARSE or BOX_ENOTSUP with the parser's message in err, and out
 * unchanged; BOX_ENOMEM, BOX_ETOOBIG (out's cap).
 */
box_err pdp_fmt(const char *text, size_t len, const char *file, box_buf *out,
                box_buf *err) BOX_WARN_UNUSED;

#endif
