/* SPDX-License-Identifier: Apache-2.0 */
/* The history a running PDP decides temporal rules over (dogwood-spec
 * §4.1, box-spec §4 "Temporal (history) rules"). */
#ifndef PDP_LIVE_H
#define PDP_LIVE_H

#include <stdint.h>

#include "box_err.h"
#include "pdp_decide.h"
#include "pdp_policy.h"
#include "pdp_value.h"

/*
 * One box's events, in memory and, once opened, in a file. Thread-safe: a decision's observe-then-decide is one step under
 * a lock, so concurrent decisions see each other in arrival order. Kept
 * only while the policy has temporal rules, and only as far back as they
 * read.
 */
typedef struct pdp_live pdp_live;

/* The engine's clock in seconds (tests pass their own). */
typedef int64_t (*pdp_live_clock)(void *arg);

/* NULL when out of memory; clock NULL is the wall clock. */
pdp_live *pdp_live_new(pdp_live_clock clock, void *clock_arg);
void pdp_live_free(pdp_live *l); // NULL-safe

/*
 * Makes l durable at path (pdp_hstore.h): replays the file into the
 * empty history (a torn tail cut off, said in *warn; caller frees),
 * restores what each rule had seen, and from then on writes every event
 * there, a decision's own event synced before its verdict. A failure to
 * store is a deny naming why, never a permit.
 */
box_err pdp_live_open(pdp_live *l, const char *path, char **warn,
                      char **err) BOX_WARN_UNUSED;

/*
 * Decides rq (whose context holds `input`) against set, generation
 * epoch. With temporal rules in set: appends the ::request event first,
 * stamped with the engine's time (never before the last event's), and
 * decides with it as the history; a rule that is new or changed since
 * the generation before sees only events from its first decision on.
 * Without: pdp_decide alone. pdp_decide's contract on failure (a deny).
 */
box_err pdp_live_decide(pdp_live *l, const pdp_policy_set *set,
                        uint64_t epoch, pdp_request *rq, uint64_t request_id,
                        pdp_answer *ans) BOX_WARN_UNUSED;

/* An outcome: kind "response" or "error" of the action (an entity uid)
 * by principal on resource,
 * with the decided input and, for a response, its output (NULL: none).
 * Ignored (BOX_OK) when set has no temporal rules. */
box_err pdp_live_record(pdp_live *l, const pdp_policy_set *set,
                        uint64_t epoch, const pdp_value *principal,
                        const pdp_value *resource, const pdp_value *action,
                        const char *kind, const pdp_value *input,
                        const pdp_value *output,
                        uint64_t request_id) BOX_WARN_UNUSED;

/* How many events are kept now (tests, health). */
size_t pdp_live_events(pdp_live *l);

#endif
