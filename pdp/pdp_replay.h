/* SPDX-License-Identifier: Apache-2.0 */
/* Replaying a history against a policy set: `box policy replay`
 * (dogwood-spec §7.3). */
#ifndef PDP_REPLAY_H
#define PDP_REPLAY_H

#include <stdbool.h>

#include "box_buf.h"
#include "box_err.h"
#include "pdp_hist.h"
#include "pdp_policy.h"

/* Which event kinds run authorization (the event schema's `decision`
 * kinds); NULL means the default schema's: `request` only. */
typedef bool (*pdp_replay_decides)(void *arg, const char *kind);

typedef struct pdp_replay_opts {
    pdp_replay_decides ro_decides;
    void *ro_arg;
    bool ro_verdicts; // `true`/`false` lines, as the corpus's expected files
} pdp_replay_opts;

/*
 * Decides each decision event of h in order, as it would have been
 * decided when it arrived (observe, then decide: its own event and the
 * ones before it are the history it sees), and appends one line per
 * decision to out: `@<ts> (time point <k>): ALLOW|DENY`, with
 * `  [rules: i, j]` (0-based rule indices) when rules determined it; or
 * with ro_verdicts `@<ts> (time point <k>): true|false`. A decision
 * event without both principal and resource is a deny with no rules.
 * BOX_ENOMEM only when out cannot grow.
 */
box_err pdp_replay(const pdp_policy_set *set, const pdp_hist *h,
                   const pdp_replay_opts *o, box_buf *out) BOX_WARN_UNUSED;

#endif
