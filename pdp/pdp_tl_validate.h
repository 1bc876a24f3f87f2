/* SPDX-License-Identifier: Apache-2.0 */
/* Temporal leaves against the schemas (dogwood-spec §4.7, §5.2, §5.3):
 * the schema-stage validation, and the event schema's pins. */
#ifndef PDP_TL_VALIDATE_H
#define PDP_TL_VALIDATE_H

#include "box_arena.h"
#include "box_err.h"
#include "pdp_ast.h"
#include "pdp_evschema.h"
#include "pdp_schema.h"
#include "pdp_tl_check.h"
#include "pdp_validate.h"

/*
 * Validates every temporal leaf of ast, rules and leaves in source order,
 * as Dogwood's temporal dialect does after Cedar's validation, and
 * appends each finding to out as an error located in src (Box joins them
 * after Cedar's into its load refusal, §6.2 step 8). Per leaf, in the
 * reference's order:
 *
 *   EVENT-Predicate, EVENT-Field-Group, EVENT-Field-Absent: each
 *     predicate names an event of events, each field it mentions is a
 *     declared leaf (the first finding of the leaf only);
 *   TEMP-MaxWindow: every `within` at most es's max_window;
 *   TEMP-EntityType: every entity literal (not an action uid) names a
 *     declared type, an enum entity one of its ids;
 *   TEMP-ContextPath: every `context.…` path resolves in the context of
 *     each action the rule's scope reaches (`==`, `in` a list or a group,
 *     or every action when unconstrained), every `principal.…` /
 *     `resource.…` tail in the attributes of each type the scope admits;
 *   WF-TpDep: every monitoring scope varies with the timepoint;
 *   TEMP-Type: predicate arguments against their fields' declared types,
 *     uses of variables against their binders' types, ordering on Long
 *     only, `==` on compatible types, `tp(x)` on a Timepoint, per action
 *     the scope reaches; and a `sum` only of a Long.
 *
 * Texts are Dogwood's. events is es derived against as
 * (pdp_evset_derive); all are borrowed. BOX_OK whether or not there are
 * findings; BOX_ENOMEM.
 */
box_err pdp_tl_validate(const pdp_ast *ast, const pdp_schema *as,
                        const pdp_evschema *es, const pdp_evset *events,
                        const pdp_tl_src *src,
                        pdp_validate_result *out) BOX_WARN_UNUSED;

/*
 * The pins of es (§5.2): on every predicate naming a pinned event kind,
 * the argument `f: <ref>` of each pin is appended, after what the policy
 * wrote. Each leaf that has such a predicate is replaced in ast by a copy
 * built in a (the policy set's arena): this runs while the set is being
 * built, before validation and before anything else holds the leaf.
 * BOX_OK (also when es has no pins) or BOX_ENOMEM.
 */
box_err pdp_tl_apply_pins(const pdp_ast *ast, const pdp_evschema *es,
                          box_arena *a) BOX_WARN_UNUSED;

#endif
