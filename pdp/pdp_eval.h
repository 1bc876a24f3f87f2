/* SPDX-License-Identifier: Apache-2.0 */
/* Cedar evaluation (dogwood-spec §3) of one rule against one request. */
#ifndef PDP_EVAL_H
#define PDP_EVAL_H

#include <stddef.h>

#include "box_err.h"
#include "box_arena.h"
#include "pdp_ast.h"
#include "pdp_entities.h"
#include "pdp_value.h"

/*
 * A decision request. Everything is borrowed: the caller keeps the values
 * alive for the call. principal, action and resource must be entities and
 * context a record (conventionally { input: …, output?: … }); pdp_decide
 * checks this and fails closed otherwise. resource_text is the operator-
 * facing name of the resource for the denial message (may be empty).
 * rq_entities is the entity store, NULL for none (Box).
 */
struct pdp_tl_now; // pdp_tl.h

typedef struct pdp_request {
    const pdp_value *rq_principal;
    const pdp_value *rq_action;
    const pdp_value *rq_resource;
    const pdp_value *rq_context;
    const char *rq_resource_text;
    size_t rq_resource_len;
    // What temporal conditions read: the history holding this decision's
    // own event at index rq_at (dogwood-spec §4.1), or NULL (no history:
    // a temporal condition is then an error).
    const struct pdp_hist *rq_hist;
    size_t rq_at;
    // Per rule (by r_index), the sequence number of the first event its
    // temporal conditions may see (a new or changed rule starts empty:
    // pdp_live), or NULL: all of them.
    const uint64_t *rq_since;
    // What the history's pending outcomes are taken for (pdp_tl.h's
    // pdp_tl_pending; 0: not happened).
    int rq_pending;
    // The incremental monitors temporal leaves are asked first (pdp_tl.h's
    // tn_monitor), or NULL.
    int (*rq_monitor)(void *arg, const struct pdp_tl *leaf,
                      const struct pdp_tl_now *now, box_arena *scratch,
                      bool *holds);
    void *rq_monitor_arg;
    // The entity store, or NULL for none (Box).
    const pdp_entities *rq_entities;
} pdp_request;

/* Result of evaluating one rule. */
typedef enum pdp_match {
    PDP_MATCH_ERROR = -1, // the condition errored: the rule is skipped
    PDP_MATCH_NO = 0,     // scope or condition did not match
    PDP_MATCH_YES = 1,    // scope matched and the condition is true
} pdp_match;

/* Longest error text kept by the evaluator (longer texts are cut). */
#define PDP_EVAL_MSG_MAX 512

/*
 * Evaluates rule r: scope (principal, action, resource), then each
 * `when` / negated `unless` clause in source order, lazily. scratch
 * receives the few values the evaluator must build (sets and records of
 * non-constant elements); the caller resets it between decisions. On
 * PDP_MATCH_ERROR, msg[0..msglen) holds a Cedar-shaped message such as
 * "integer overflow while attempting to add the values `…` and `…`" or
 * "type error: expected bool, got long". Request shape must be valid
 * (see pdp_request); the evaluator does not re-check it.
 */
pdp_match pdp_eval_rule(const pdp_rule *r, const pdp_request *rq,
                        box_arena *scratch, char *msg, size_t msglen);

/*
 * Evaluates a single expression (for tests and tools). On BOX_OK *out is
 * the value (possibly borrowed from the request or the AST, or built in
 * scratch). On an evaluation error returns BOX_EINVAL with msg filled.
 */
box_err pdp_eval_expr(const pdp_expr *e, const pdp_request *rq,
                      box_arena *scratch, const pdp_value **out, char *msg,
                      size_t msglen) BOX_WARN_UNUSED;

#endif
