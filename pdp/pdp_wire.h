/* SPDX-License-Identifier: Apache-2.0 */
/* Between the wire (box.proto) and the policy library: requests in,
 * responses and decision-log records out. */
#ifndef PDP_WIRE_H
#define PDP_WIRE_H

#include <stdint.h>

#include "box.pb-c.h"
#include "box_arena.h"
#include "pdp_decide.h"
#include "pdp_dlog.h"
#include "pdp_live.h"
#include "pdp_policy.h"
#include "pdp_value.h"

/* Converts a wire value into a's memory. BOX_EINVAL for a value that is not
 * one (unset kind, invalid UTF-8, duplicate record field, too deep). */
box_err pdp_wire_value(box_arena *a, const Box__Value *in, int depth,
                       const pdp_value **out) BOX_WARN_UNUSED;

/* What a decision produced for the log; strings live in the arena or in
 * the answer, so use it before either is reset. */
typedef struct pdp_wire_decided {
    pdp_dlog_decision wd_log;
} pdp_wire_decided;

/*
 * Decides req against set with principal Box::Agent::"self" and resource
 * Box::Resource::"unused" (box-spec §4) and fills out (strings borrowed
 * from ans and a) and d. A request that does not convert is decided as an
 * InternalFault deny: it never errors out of here. With live, temporal
 * rules are decided over its history (the request observed first); NULL
 * means no history (a temporal rule then errs: a deny). A decision that a
 * temporal rule could depend on is never marked cacheable.
 */
void pdp_wire_decide(const pdp_policy_set *set, pdp_live *live,
                     box_arena *a, pdp_answer *ans,
                     const Box__DecisionRequest *req, uint64_t epoch,
                     Box__DecisionResponse *out, pdp_wire_decided *d);

/*
 * A request carrying an Enforcement gate (the client refuses even a
 * permit): a permit is logged as the effective decision, deny with cause
 * `enforcement` and rule `enforcement:<gate>`, and the answer is never
 * cacheable. A deny stays as policy made it. Strings go into a.
 */
void pdp_wire_enforce(box_arena *a, const Box__DecisionRequest *req,
                      Box__DecisionResponse *out, pdp_wire_decided *d);

/*
 * A report of a permit a client served from its cache (req->cached): it
 * was enforced as a permit, so it is logged as one even when the
 * generation now in force (epoch) decides otherwise or is not the one
 * that made it (req->cached_epoch) — a report can arrive after a reload.
 * Such a record has cause `cached` and rule `<cached-permit>`, and the
 * epoch the permit came from. A report the current generation permits
 * too is logged as decided now. Strings go into a.
 */
void pdp_wire_served(box_arena *a, const Box__DecisionRequest *req,
                     uint64_t epoch, pdp_wire_decided *d);

/* Hands one outcome event (::response / ::error) to live's history.
 * BOX_EINVAL for an event that does not convert (no action, an unknown
 * kind, a bad value). */
box_err pdp_wire_record(const pdp_policy_set *set, pdp_live *live,
                        uint64_t epoch, box_arena *a,
                        const Box__Event *ev) BOX_WARN_UNUSED;

/* Copies out's borrowed strings into a, so ans can be reused. */
/*
 * A log-only entry (box-spec §4 "Not actions but decision-log entries"):
 * `egress:native` with the enforcement gate `native-egress`, sent before
 * a tool with native egress runs. True when req is one; then out is a
 * permit (nothing is evaluated: no policy decides it, it only says what
 * happened) and d its record: rule enforcement:native-egress, the
 * resource the tool's label, the gate's reason as message.
 */
bool pdp_wire_notice(const Box__DecisionRequest *req, uint64_t epoch,
                     Box__DecisionResponse *out, pdp_wire_decided *d);

void pdp_wire_response_own(box_arena *a, Box__DecisionResponse *out);

#endif
