/* SPDX-License-Identifier: Apache-2.0 */
/* The one verdict type, from the PDP client's answer to the shell's kernel. */
#ifndef BOX_VERDICT_H
#define BOX_VERDICT_H

#include <stdbool.h>
#include <stdint.h>

#include "box.pb-c.h"
#include "box_err.h"

/*
 * What an enforcement point may do about one request. The PDP client
 * answers it (box_pdp_answer), the broker sends it to the worker
 * (WorkerAnswer.verdict), and the executor and the kernel act on it: the
 * same type all the way, never re-encoded as bools or numbers. The zero
 * value is a deny, so a forgotten or zeroed answer never reads as a permit.
 */
typedef enum box_verdict {
    BOX_VERDICT_DENY = 0,
    BOX_VERDICT_PERMIT = 1,
    /* No decision could be made (the PDP did not answer in time, the
     * broker's channel broke): the shell's call ends, status
     * BOX_STATUS_FAULT (125). Never a PDP's own answer: a policy that
     * fails to evaluate is a deny the PDP decided and logged. */
    BOX_VERDICT_FAULT = 2,
} box_verdict;

/*
 * A permit's claim on its outcome (dogwood-spec §5.6): when bt_wanted,
 * the policy's history reads this action, and the enforcement point
 * reports how the effect ended, exactly once, with this ticket
 * (box_record_fn). The zero value asks for nothing: a deny, a fault, a
 * permit of an action no temporal rule reads, a permit served from a
 * cache.
 *
 * bt_again, on a permit served from a cache (bt_wanted false), names it
 * for box_again_fn: the same request may then be served again without
 * being built (0: it may not).
 */
typedef struct box_ticket {
    uint64_t bt_id; // the request_id the permit was decided under
    bool bt_wanted;
    uint64_t bt_again;
} box_ticket;

/*
 * Asks policy about req (borrowed) and returns the verdict. On DENY and
 * FAULT it may set *reason to the text to show (the box-spec §3.11 denial,
 * or why no decision could be made), allocated with box_alloc; the caller
 * frees it. On PERMIT it may fill *ticket (which the caller zeroes first)
 * when the effect's outcome is to be recorded. Every layer that decides
 * (the worker's channel to the broker, the executor, the kernel) takes
 * this one type; whether it may be called from several threads at once
 * is the implementer's to say. A value outside the enum breaks the
 * contract: the executor and the kernel read it as FAULT (only bytes from
 * the wire are read as DENY, below).
 */
typedef box_verdict (*box_decide_fn)(void *arg, const Box__DecisionRequest *req,
                                     char **reason, box_ticket *ticket);

/*
 * Serves once more the permit a ticket's bt_again named, for a request
 * identical to the one it was served for (the caller keeps that promise:
 * its key holds everything the request is made of), and reports it as
 * the decider reports a served permit: BOX_OK. BOX_ENOENT when it can no
 * longer be served that way (a new policy, a report batch sent, its age):
 * the caller asks the decider in full. Any other error is a fault, as the
 * decider's would be. Called under the same rules as its decider.
 */
typedef box_err (*box_again_fn)(void *arg, uint64_t again);

/* How an admitted effect ended (dogwood-spec §5.6, box-spec §3.6). ORDER
 * BOX_OUTCOME: box_outcome_event's table follows it. */
typedef enum box_outcome_kind {
    BOX_OUTCOME_ERROR,         // fs: it did not happen (an ::error event)
    BOX_OUTCOME_COMPLETED,     // fs: it happened (output.result completed)
    BOX_OUTCOME_DESCRIPTOR,    // fs: an open gave a descriptor
    BOX_OUTCOME_INDETERMINATE, // fs: it may have happened
    BOX_OUTCOME_STATUS,        // shell:exec / spawn, http:request: bo_status
    BOX_OUTCOME_OPENED,        // net:connect: may have opened (no output)
    BOX_OUTCOME_KIND_COUNT
} box_outcome_kind;

/* The status of a command admitted but never run, or whose end was never
 * reported (a signal is 128 + n, a binary that cannot start 126, as the
 * shell's own statuses say). */
#define BOX_OUTCOME_NO_STATUS (-1)

typedef struct box_outcome {
    box_outcome_kind bo_kind;
    int64_t bo_status; // BOX_OUTCOME_STATUS only
} box_outcome;

/*
 * Records how the effect a ticket was given for ended (t.bt_wanted set;
 * callers skip the call otherwise). Never fails as far as the caller can
 * see: an outcome that cannot be recorded is lost, and the one who could
 * not record it says so. Safe from several threads when the decider is.
 */
typedef void (*box_record_fn)(void *arg, box_ticket t, const box_outcome *o);

/* The verdict as WorkerAnswer.verdict spells it on the wire. */
Box__Verdict box_verdict_to_wire(box_verdict v);

/* The verdict a WorkerAnswer carries: only VERDICT_PERMIT and
 * VERDICT_FAULT read as themselves; zero (a field never set) and every
 * value this build does not know read as DENY. */
box_verdict box_verdict_from_wire(Box__Verdict w);

#endif
