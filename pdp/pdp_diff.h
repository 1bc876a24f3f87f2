/* SPDX-License-Identifier: Apache-2.0 */
/* The impact of a policy edit: a box's recorded decisions replayed
 * against the old and the new policy (`box policy diff`, issue 21 #9). */
#ifndef PDP_DIFF_H
#define PDP_DIFF_H

#include <stdbool.h>
#include <stddef.h>

#include "box_arena.h"
#include "box_err.h"
#include "pdp_decide.h"
#include "pdp_dlread.h"
#include "pdp_hist.h"
#include "pdp_hstore.h"
#include "pdp_policy.h"

/* What replaying one record found. */
typedef enum pdp_diff_class {
    PDP_DIFF_UNCHANGED, // same verdict, same determining rules
    PDP_DIFF_CHANGED,   // the verdict or the determining rules differ
    PDP_DIFF_UNKNOWN,   // cannot tell: di_why says why
    PDP_DIFF_SKIPPED,   // not replayed: di_skip says why
} pdp_diff_class;

/* ORDER PDP_DIFF_SKIP: pdp_diff_skip_name follows it. */
typedef enum pdp_diff_skip {
    PDP_DIFF_SKIP_NONE,
    PDP_DIFF_SKIP_CONTROL,     // a control record (policy_installed, …)
    PDP_DIFF_SKIP_ENFORCEMENT, // rule enforcement:<gate>: no policy decided
    PDP_DIFF_SKIP_CACHED,      // answered from a client's cache
    PDP_DIFF_SKIP_PENDING,     // no policy was installed yet
    PDP_DIFF_SKIP_OTHER,       // not a decision (containment, telemetry)
    PDP_DIFF_SKIP_COUNT
} pdp_diff_skip;

/* "control", "enforcement", "cached", "pending", "other". */
const char *pdp_diff_skip_name(pdp_diff_skip s);

/* One policy's answer to a replayed record. */
typedef struct pdp_diff_side {
    pdp_verdict ds_verdict;
    // The rule the log would name (pdp_wire's strands.box.policy.rule):
    // the first determining rule, NULL for <default-deny> (no rule, or
    // an evaluation error). Borrowed from the policy set.
    const pdp_rule *ds_rule;
} pdp_diff_side;

/* One record of the log, replayed. */
typedef struct pdp_diff_item {
    const pdp_dlrec *di_rec; // borrowed from the log
    pdp_diff_class di_class;
    pdp_diff_skip di_skip;
    pdp_diff_side di_old, di_new; // UNCHANGED, CHANGED (UNKNOWN: as far
                                  // as they went)
    bool di_from_history;         // the request was the history's own event
    const char *di_why;           // UNKNOWN: e.g. "depends on
                                  // context.input.operation, which the log does
                                  // not record"; else NULL
    const char *di_detail;        // UNKNOWN: this record's part, e.g. "logged:
                                  // deny by x; old policy: permit by y", or "";
                                  // else NULL
} pdp_diff_item;

/* What to replay against. */
typedef struct pdp_diff_in {
    const pdp_policy_set *dn_old; // the policy the log was written under
    const pdp_policy_set *dn_new; // the candidate
    const pdp_dlread *dn_log;
    const pdp_hist *dn_hist; // the box's history, or NULL
    // Per rule of dn_old (by r_index): the first event its temporal
    // conditions saw in the box (a rule starts with an empty history:
    // pdp_live), or NULL for all. The new policy's see all, as if it had
    // been in force all along.
    const uint64_t *dn_old_since;
} pdp_diff_in;

/* What a replay found: one item per record of the log, in order; the
 * strings live in rs_arena. Free with pdp_diff_result_free. */
typedef struct pdp_diff_result {
    pdp_diff_item *rs_items;
    size_t rs_n;
    box_arena *rs_arena;
} pdp_diff_result;

void pdp_diff_result_free(pdp_diff_result *r); // NULL-safe

/*
 * Replays every record of the log, in order, into *out. For a
 * decision:
 *  - the request is the history's own ::request event when dn_hist holds
 *    one of the same action whose input agrees with every field the log
 *    records (the next such, in order); temporal rules are then decided
 *    at that event. Otherwise it is rebuilt from the log's attributes as
 *    far as they go (the table in pdp_diff.c) and decided without a
 *    history; an unknown field of few values (an fs operation) is tried
 *    with each, and only the values under which the old policy gives the
 *    logged answer are kept (what the box can have seen);
 *  - it is UNKNOWN when either policy's answer could depend on what the
 *    rebuilt request lacks (an error on an absent field, a `has` on one,
 *    a temporal condition without a history, a new answer that differs
 *    between the kept values), or when the old policy does not give the
 *    logged verdict and rule; else CHANGED or UNCHANGED (rules compared
 *    with pdp_diff_same_rule).
 * Sets must be loaded without request validation (pdp_policy_load_events
 * with no action schema): a rebuilt request lacks fields on purpose.
 * BOX_ENOMEM only.
 */
box_err pdp_diff_run(const pdp_diff_in *in,
                     pdp_diff_result *out) BOX_WARN_UNUSED;

/* Whether two rules (either may be NULL, <default-deny>) are the same
 * rule of two versions of a policy: the same @id; for rules without one,
 * the same place and effect (edited in place) or the same text (moved). */
bool pdp_diff_same_rule(const pdp_rule *a, const pdp_rule *b);

/*
 * The first event each rule of old saw in the box, from the history
 * file's last rules record (pdp_hstore_read): the rule of the same text
 * (pdp_rule_dump, as pdp_live matches them), or 0 (all) for a rule the
 * record does not hold. *since (caller frees with box_free) has one entry
 * per rule. BOX_ENOMEM.
 */
box_err pdp_diff_since(const pdp_policy_set *old, const pdp_hstore_rules *rules,
                       uint64_t **since) BOX_WARN_UNUSED;

/*
 * The Box actions whose events the new policy's temporal rules read but
 * the old policy's did not (pdp_policy_history_reads): a history written
 * under the old policy holds no event of theirs, so what the new policy
 * decides over it may be short of them. At most max, into actions
 * (static strings); how many.
 */
size_t pdp_diff_unrecorded(const pdp_policy_set *old,
                           const pdp_policy_set *new_, const char **actions,
                           size_t max);

#endif
