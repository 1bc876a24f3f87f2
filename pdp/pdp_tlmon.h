/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Incremental monitors (issue 21 item 3): for a temporal condition of a
 * shape whose truth can be kept up to date as events arrive, the state
 * that decides it in constant time however long the history, next to the
 * reference evaluator (pdp_tl_holds) that scans.
 *
 * The shape monitored: a correlation,
 *   exists (x: T). ( formerly within W1 P1{ f1: x, … }
 *                 && formerly within W2 P2{ f2: x, … } && … && F )
 * where every other field of each Pi is a literal or a wildcard, and F
 * (none or more) compares only the request and literals. It holds at a
 * decision at time now iff F holds and some x has, for every i, a Pi
 * event at most Wi before now: max over x of min over i of
 * (last Pi time of x + Wi) >= now, a maximum that only grows as events
 * come. A monitor sees only real events (pdp_hist.h's states), from its
 * rule's first event on; one whose key is not a plain value (a set, a
 * record) gives up and leaves the leaf to the reference.
 */
#ifndef PDP_TLMON_H
#define PDP_TLMON_H

#include <stdbool.h>

#include "box_arena.h"
#include "box_err.h"
#include "pdp_hist.h"
#include "pdp_tl.h"

typedef struct pdp_tlmon pdp_tlmon;

/* A monitor for leaf, or NULL when its shape has none (or no memory). */
pdp_tlmon *pdp_tlmon_new(const pdp_tl *leaf);
void pdp_tlmon_free(pdp_tlmon *m); // NULL-safe

/* Feeds one event, in history order (real events only matter). */
void pdp_tlmon_observe(pdp_tlmon *m, const pdp_event *e);

/*
 * Decides the leaf at now's timepoint (the last event observed): 1 with
 * *holds set, or 0 when the monitor cannot (it gave up, or pending
 * outcomes are taken for outcomes its predicates read): the caller uses
 * the reference then. Scratch space for the comparisons in scratch.
 */
int pdp_tlmon_holds(pdp_tlmon *m, const pdp_tl_now *now, box_arena *scratch,
                    bool *holds);

#endif
