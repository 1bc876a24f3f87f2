/* SPDX-License-Identifier: Apache-2.0 */
/* A loaded policy set: parsed rules, Box load checks, and the action index. */
#ifndef PDP_POLICY_H
#define PDP_POLICY_H

#include <stddef.h>

#include "box_err.h"
#include "pdp_ast.h"
#include "pdp_entities.h"
#include "pdp_evschema.h"
#include "pdp_schema.h"
#include "pdp_validate.h"
#include "pdp_value.h"

/* Largest policy text accepted, and the memory one set may use. */
#define PDP_POLICY_MAX_BYTES (8u << 20)
#define PDP_POLICY_MAX_MEMORY (256u << 20)

typedef struct pdp_policy_set pdp_policy_set;

/*
 * Parses text[0..len) (filename is used in messages) and applies the Box
 * load checks that need no schema, in spec order: duplicate non-blank @id
 * (§6.2 step 5), then rules naming only the reserved action fs:other
 * (step 6). On BOX_OK the caller owns *out (pdp_policy_free). On failure
 * *out is NULL and *err is a message the caller frees with box_free:
 * "file:line:col: …" for parse errors (BOX_EPARSE) and unsupported
 * constructs (BOX_ENOTSUP, "… is not supported yet"), the exact §6.2 text
 * for Box refusals (BOX_ECONFIG), BOX_ETOOBIG past PDP_POLICY_MAX_BYTES.
 * The set is immutable after load and may be shared between threads.
 */
box_err pdp_policy_load(const char *text, size_t len, const char *filename,
                        pdp_policy_set **out, char **err) BOX_WARN_UNUSED;
/*
 * The whole Box load of §6.2 against an action schema, in spec order:
 * parse, duplicate @id (step 5), reserved action (step 6), strict schema
 * validation (step 8: "policy references unknown action: …" or "policy
 * fails schema validation: …", Cedar's findings joined with "; ", then
 * the temporal leaves' against the schema and Box's event schema, see
 * pdp_tl_validate.h), then
 * the literal-spelling judgement (step 9: "policy compares an inert
 * literal: …") with the operator's home (NULL skips the home checks).
 * schema is borrowed and must outlive the set; NULL means Box's built-in
 * schema, which the set then loads and owns. A set loaded this way
 * validates every request against its schema in pdp_decide (§1.5).
 * warnings, when not NULL, receives the spelling warnings, then the
 * validator's warnings (e.g. an impossible policy); the caller frees them
 * with pdp_validate_warnings_free whatever the result. Refusals are
 * BOX_ECONFIG; other errors as pdp_policy_load.
 */
box_err pdp_policy_load_checked(const char *text, size_t len,
                                const char *filename, const pdp_schema *schema,
                                const char *home, pdp_policy_set **out,
                                pdp_validate_warnings *warnings,
                                char **err) BOX_WARN_UNUSED;
/*
 * The load Dogwood's `replay` and `validate` do, for `box policy replay`:
 * as pdp_policy_load_checked against action schema `schema`, but with
 * event schema `events` (NULL: Dogwood's default, §5.4) in place of
 * Box's, whose pins (§5.2) are appended to every predicate naming a
 * pinned event before the temporal leaves are validated against both.
 * With schema NULL nothing is validated (the pins still apply), as
 * pdp_policy_load. schema is borrowed and must outlive the set (requests
 * are validated against it); events only for the call.
 */
box_err pdp_policy_load_events(const char *text, size_t len,
                               const char *filename, const pdp_schema *schema,
                               const pdp_evschema *events, pdp_policy_set **out,
                               pdp_validate_warnings *warnings,
                               char **err) BOX_WARN_UNUSED;
/* The schema requests are validated against, or NULL for a set loaded
 * with pdp_policy_load (no request validation). */
const pdp_schema *pdp_policy_schema(const pdp_policy_set *set);
/* The schema's actions that are members of action groups, as an entity
 * store (uid and parents), for `action in Group`; NULL when the schema
 * declares no group (Box's), so `in` on an action is `==`. */
const pdp_entities *pdp_policy_action_entities(const pdp_policy_set *set);
/* Whether some rule has a temporal condition; *window (when not NULL)
 * is then how far back (seconds) any of them reads: what the history
 * must keep. */
bool pdp_policy_temporal(const pdp_policy_set *set, int64_t *window);
/* Whether a decision on action touches the history: a temporal rule may
 * decide it, or its event may be read (a predicate names the action, or
 * a `previous`/`since` reads whatever happened). Such a decision is
 * observed (its event recorded) and never cacheable; any other is
 * decided without the history. */
bool pdp_policy_history_reads(const pdp_policy_set *set,
                              const pdp_value *action);
/* Whether a predicate reads action's outcomes (`::response`/`::error`):
 * a permit of it is then a pending outcome until the outcome is known
 * (pdp_live). */
bool pdp_policy_outcome_reads(const pdp_policy_set *set,
                              const pdp_value *action);
/* Frees the set and every rule, node and value it holds; NULL is a no-op. */
void pdp_policy_free(pdp_policy_set *set);

/* The rules in source order (index = position, 0-based). Borrowed: valid
 * while the set lives. */
size_t pdp_policy_rule_count(const pdp_policy_set *set);
const pdp_rule *pdp_policy_rule(const pdp_policy_set *set, size_t i);
/* The whole parsed file. */
const pdp_ast *pdp_policy_ast(const pdp_policy_set *set);

/*
 * The action index. For an action entity, *specific is the rules whose
 * action scope names it (== A, in A, in [… A …]) and *any the rules with an
 * unconstrained action scope; both in rule order. A decision needs only
 * the merge of the two lists. Borrowed from the set.
 */
void pdp_policy_candidates(const pdp_policy_set *set, const pdp_value *action,
                           const pdp_rule *const **specific, size_t *nspecific,
                           const pdp_rule *const **any, size_t *nany);

/* What the candidate rules of action read of context.input (pdp_reads.h),
 * worked out once per action when the set was loaded. Borrowed from the
 * set. */
struct pdp_reads;
const struct pdp_reads *pdp_policy_reads(const pdp_policy_set *set,
                                         const pdp_value *action);

/* How Box names a rule to people: @id when present and non-blank, else
 * the positional id policy_<i>. */
pdp_str pdp_rule_display_id(const pdp_rule *r);
/* The @description when present and non-blank, else {NULL, 0}. */
pdp_str pdp_rule_description(const pdp_rule *r);

#endif
