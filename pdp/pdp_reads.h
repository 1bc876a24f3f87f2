/* SPDX-License-Identifier: Apache-2.0 */
/* Which fields of context.input a decision can depend on: the permit
 * cache keys on those values alone (and on the shape of the rest). */
#ifndef PDP_READS_H
#define PDP_READS_H

#include <stdbool.h>
#include <stddef.h>

#include "pdp_ast.h"
#include "pdp_policy.h"
#include "pdp_value.h"

/* More distinct fields than this reads as "any field". */
#define PDP_READS_MAX 32

/*
 * What the candidate rules of one action read of the request's context.
 * rd_all: some rule uses context (or context.input) otherwise than by
 * naming a field of input, so any field may matter. Else rd_fields (names
 * borrowed from the set's AST, not NUL-terminated) are every input field
 * a rule names, deduplicated.
 */
typedef struct pdp_reads {
    bool rd_all;
    pdp_str rd_fields[PDP_READS_MAX];
    size_t rd_n;
} pdp_reads;

/* What the rules pdp_policy_candidates yields for action read (their
 * conditions only: the scopes name entities a request of one action
 * cannot vary): the set's own, worked out at load (pdp_policy_reads);
 * borrowed from the set. */
const pdp_reads *pdp_reads_for_action(const pdp_policy_set *set,
                                      const pdp_value *action);

/* Walks two lists of rules into out (zeroed first). */
void pdp_reads_rules(pdp_reads *out, const pdp_rule *const *a, size_t na,
                     const pdp_rule *const *b, size_t nb);

#endif
