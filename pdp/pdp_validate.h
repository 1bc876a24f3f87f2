/* SPDX-License-Identifier: Apache-2.0 */
/* Checks against the action schema: strict policy validation (§6.1),
 * the literal-spelling judgement (§6.4), and request validation (§1.5). */
#ifndef PDP_VALIDATE_H
#define PDP_VALIDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "box_err.h"
#include "pdp_ast.h"
#include "pdp_eval.h"
#include "pdp_schema.h"
#include "pdp_value.h"

/* ---- strict validation (dogwood-spec §6.1, Box §6.2 step 8) ---- */

typedef enum pdp_finding_kind {
    PDP_FINDING_ERROR,
    PDP_FINDING_WARNING,
} pdp_finding_kind;

/* One finding. fd_msg is Cedar's Display text, e.g.
 * "for policy `policy_0`, unrecognized action `Box::Action::\"fs:raed\"`";
 * fd_located is the same text after "file:line:col: ". */
typedef struct pdp_finding {
    pdp_finding_kind fd_kind;
    const pdp_rule *fd_rule;
    pdp_pos fd_pos;
    const char *fd_msg;
    const char *fd_located;
} pdp_finding;

typedef struct pdp_validate_result pdp_validate_result;

/*
 * Validates every rule of ast against s the way Cedar's strict mode does:
 * for each rule, the actions its scope applies to (unconstrained = all),
 * and for each of them the conditions type-checked against that action's
 * context (flow-sensitive `has` guards). Findings never stop the walk.
 * On BOX_OK the caller owns *out (pdp_validate_result_free); the rules
 * it points at are borrowed from ast. file names the policy in
 * fd_located. Errors only for memory.
 */
box_err pdp_validate_policies(const pdp_schema *s, const pdp_ast *ast,
                              const char *file,
                              pdp_validate_result **out) BOX_WARN_UNUSED;
void pdp_validate_result_free(pdp_validate_result *r);
/* Findings: per rule in rule order; errors before the rule's warnings. */
size_t pdp_validate_result_count(const pdp_validate_result *r);
const pdp_finding *pdp_validate_result_at(const pdp_validate_result *r,
                                          size_t i);
size_t pdp_validate_result_errors(const pdp_validate_result *r);
/* Appends an error finding of a later check (the temporal validator's,
 * which Dogwood reports after Cedar's), located "file:line:col: msg". */
box_err pdp_validate_result_add(pdp_validate_result *r, const pdp_rule *rule,
                                pdp_pos pos, const char *file,
                                const char *msg) BOX_WARN_UNUSED;

/*
 * Box's load text for step 8: every error finding's fd_msg joined with
 * "; ", prefixed "policy references unknown action: " when any of them
 * is an unrecognized action, else "policy fails schema validation: ".
 * Returns BOX_OK with *msg NULL when there is no error; BOX_ECONFIG with
 * *msg (box_free) otherwise; BOX_ENOMEM.
 */
box_err pdp_validate_load_message(const pdp_validate_result *r,
                                  char **msg) BOX_WARN_UNUSED;

/* ---- literal-spelling judgement (§6.4, Box §6.2 step 9) ---- */

/* A list of owned strings (box_alloc'd); free with
 * pdp_validate_warnings_free. */
typedef struct pdp_validate_warnings {
    char **vw_items;
    size_t vw_n;
    size_t vw_cap;
} pdp_validate_warnings;

/* Appends a copy of s[0..n). */
box_err pdp_validate_warnings_add(pdp_validate_warnings *w, const char *s,
                                  size_t n) BOX_WARN_UNUSED;
/* Frees the items and empties w (w itself is the caller's). */
void pdp_validate_warnings_free(pdp_validate_warnings *w);

/*
 * Judges the string literals compared with context.input.path /
 * .program / .program_path (§6.4). home is the operator's home directory
 * as stated and canonicalized (a trailing `/` is ignored); with home NULL
 * the two home checks are skipped. On a refusal returns BOX_ECONFIG and
 * *refusal (box_free) is "policy compares an inert literal: …" (several
 * joined with "; "); otherwise BOX_OK, *refusal NULL. Warnings (exact
 * §6.4 texts) are appended to warn in rule order either way.
 */
box_err pdp_validate_spelling(const pdp_ast *ast, const char *home,
                              pdp_validate_warnings *warn,
                              char **refusal) BOX_WARN_UNUSED;

/* ---- request validation (§1.5) ---- */

/*
 * Checks a decision request's context.input against the record type the
 * schema declares for action (closed: every required field present, no
 * undeclared field, each value of its declared type, enum entity ids
 * declared). BOX_OK when it conforms; otherwise BOX_EINVAL with *errmsg
 * (box_free) saying what does not, e.g. "request input for
 * Box::Action::\"fs:read\" lacks the required attribute `operation`";
 * an unknown action is also BOX_EINVAL. BOX_ENOMEM.
 */
box_err pdp_validate_request(const pdp_schema *s, const pdp_value *action,
                             const pdp_value *input,
                             char **errmsg) BOX_WARN_UNUSED;

/*
 * The whole request: the action is declared and applies to requests,
 * principal and resource are of a type its appliesTo lists, and the
 * context conforms to its context record (so `input` as above, `output`
 * only when declared, nothing else). Same results as
 * pdp_validate_request.
 */
box_err pdp_validate_request_full(const pdp_schema *s, const pdp_request *rq,
                                  char **errmsg) BOX_WARN_UNUSED;

#endif
