/* SPDX-License-Identifier: Apache-2.0 */
/* Box decision types and the denial message text (dogwood-spec §6.6). */
#ifndef PDP_MESSAGE_H
#define PDP_MESSAGE_H

#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "box_err.h"
#include "pdp_ast.h"

/* The verdict. Zero is deny, so a zeroed or unfilled answer never reads
 * as allow. */
typedef enum pdp_verdict {
    PDP_DENY = 0,
    PDP_ALLOW = 1,
} pdp_verdict;

/* ORDER PDP_REASON: pdp_reason_words() follows this order. */
typedef enum pdp_reason {
    PDP_REASON_PERMITTED,      // Allow (no reason class in Box)
    PDP_REASON_FORBIDDEN,      // a forbid matched
    PDP_REASON_NOMATCH,        // default deny: no permit matched
    PDP_REASON_INTERNAL_FAULT, // an error anywhere: fail closed
    PDP_REASON_POLICY_PENDING, // the complete bundle is not installed
} pdp_reason;

/* Limits of §6.6. */
#define PDP_MESSAGE_MAX 4096
#define PDP_MESSAGE_RESOURCE_MAX 1024

/* One determining policy as the message sees it. Strings are borrowed;
 * an absent @id or @description has s == NULL. */
typedef struct pdp_msg_rule {
    uint64_t mr_token;       // durable install order (the rule position)
    pdp_str mr_rule_id;      // positional id, policy_<i>
    pdp_str mr_id;           // @id value as written
    pdp_str mr_description;  // @description value as written
} pdp_msg_rule;

/*
 * Appends the operator-facing message for a decision to out (which should
 * be empty; it may grow to PDP_MESSAGE_MAX bytes):
 *   Allow:  policy permitted this operation[ on 'R'].
 *   Deny:   policy denied this operation[ on 'R']<cause>
 * R is the resource escaped like Rust's char::escape_debug and capped at
 * PDP_MESSAGE_RESOURCE_MAX bytes + "..."; omitted when blank. For
 * Forbidden, rules[0..n) are the determining forbids (any order: they are
 * sorted by token, rule id, @id, @description); ids and descriptions are
 * escaped like char::escape_default for control and bidi characters.
 * The whole text is capped at PDP_MESSAGE_MAX bytes (cut at a character
 * boundary, then "...").
 */
box_err pdp_message_format(pdp_verdict v, pdp_reason r, const char *resource,
                           size_t rlen, const pdp_msg_rule *rules, size_t n,
                           box_buf *out) BOX_WARN_UNUSED;

/* Operator-facing reason words for the decision log ("a forbid rule
 * matched", …); "policy permitted" for PDP_REASON_PERMITTED. */
const char *pdp_reason_words(pdp_reason r);
/* Short class name: "Permitted", "Forbidden", "NoMatch", … */
const char *pdp_reason_name(pdp_reason r);

#endif
