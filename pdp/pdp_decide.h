/* SPDX-License-Identifier: Apache-2.0 */
/* One Box decision: Cedar authorization, then Box's fail-closed rule. */
#ifndef PDP_DECIDE_H
#define PDP_DECIDE_H

#include <stdbool.h>
#include <stddef.h>

#include "box_err.h"
#include "pdp_eval.h"
#include "pdp_message.h"
#include "pdp_policy.h"

/*
 * An answer is reusable scratch for decisions: make one per thread, pass
 * it to pdp_decide as often as needed, free it once. Each pdp_decide
 * overwrites it. Rules it points at are borrowed from the policy set,
 * so read the answer before the set is freed.
 */
typedef struct pdp_answer pdp_answer;

pdp_answer *pdp_answer_new(void);
void pdp_answer_free(pdp_answer *ans);

/*
 * Decides rq against set (dogwood-spec §1.3 step 4, then §1.5):
 *  - only the rules the action index yields are evaluated, in rule order;
 *  - Cedar: Allow iff some permit is satisfied and no forbid is; an
 *    erroring rule is skipped and recorded with its id and message;
 *  - Box: any error ⇒ Deny / InternalFault (Cedar's attribution is kept);
 *    Allow only on Cedar Allow with no errors; a satisfied forbid ⇒
 *    Forbidden; otherwise NoMatch.
 * A malformed request (non-entity principal/action/resource, non-record
 * context) is an InternalFault deny with one error that names no rule.
 * So is, for a set loaded with pdp_policy_load_checked, a request that
 * does not conform to the schema (pdp_validate_request_full: unknown
 * action, wrong principal/resource type, a missing, extra or mistyped
 * context field); no rule is evaluated then.
 * The message (§6.6) is built from rq_resource_text.
 * Returns BOX_OK when ans holds a decision. On any other return (BOX_ENOMEM)
 * ans reads Deny / InternalFault — never Allow — with no determining rule
 * and the message "policy denied this operation because the request could
 * not be evaluated." (no resource). pdp_answer_set_pending likewise.
 */
box_err pdp_decide(const pdp_policy_set *set, const pdp_request *rq,
                   pdp_answer *ans) BOX_WARN_UNUSED;

/* Fills ans with Box's PolicyPending deny (bundle not installed yet). */
box_err pdp_answer_set_pending(pdp_answer *ans, const char *resource,
                               size_t rlen) BOX_WARN_UNUSED;

/* Fills ans with an InternalFault deny whose one error (naming no rule)
 * is why: a decision that could not be made safely (the history could
 * not be stored). */
box_err pdp_answer_set_fault(pdp_answer *ans, const char *why,
                             const char *resource, size_t rlen) BOX_WARN_UNUSED;

pdp_verdict pdp_answer_verdict(const pdp_answer *ans);
pdp_reason pdp_answer_reason(const pdp_answer *ans);
/* Plain Cedar's verdict (before Box's error rule), for logs and tests. */
pdp_verdict pdp_answer_cedar_verdict(const pdp_answer *ans);

/* Determining policies: the satisfied permits on Allow, the satisfied
 * forbids on a forbid deny, empty otherwise; in rule order. Use
 * pdp_rule_display_id / pdp_rule_description / r_pid to name them. */
size_t pdp_answer_determining_count(const pdp_answer *ans);
const pdp_rule *pdp_answer_determining(const pdp_answer *ans, size_t i);

/* Errors, in rule order. The rule is NULL for a request-level error. */
size_t pdp_answer_error_count(const pdp_answer *ans);
const pdp_rule *pdp_answer_error_rule(const pdp_answer *ans, size_t i);
const char *pdp_answer_error_message(const pdp_answer *ans, size_t i);

/* The §6.6 message (NUL-terminated, <= PDP_MESSAGE_MAX bytes), made on
 * the first call. Making it can fail for lack of memory: the answer then
 * reads as the fault deny with the fixed fault text, whatever it said
 * before, so a caller that acts on the verdict asks for the message
 * first. */
const char *pdp_answer_message(const pdp_answer *ans, size_t *len);

#endif
