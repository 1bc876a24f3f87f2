/* SPDX-License-Identifier: Apache-2.0 */
/* One request decided against a policy, as `box policy eval` and `box
 * policy test` both do it: load, history, decision, explanation. */
#ifndef BOX_POLICY_ASK_H
#define BOX_POLICY_ASK_H

#include <stdbool.h>
#include <stddef.h>

#include "box_buf.h"
#include "box_err.h"
#include "pdp_decide.h"
#include "pdp_hist.h"
#include "pdp_policy.h"
#include "pdp_reqjson.h"

/* How a policy is loaded. */
typedef enum box_ask_load {
    // As box-pdp loads it (§6.2: an action schema, Box's own unless one
    // is given, strict validation, the spelling judgement; requests
    // validated too).
    BOX_ASK_LOAD_BOX,
    // As Dogwood and `box policy replay` load it: parsed and judged, no
    // action schema (any actions, requests not validated).
    BOX_ASK_LOAD_DOGWOOD,
} box_ask_load;

/*
 * Loads the policy text[0..len) named name. For BOX_ASK_LOAD_BOX, schema
 * is the action schema (borrowed: it must outlive the set), NULL for
 * Box's own, and home the operator home for the spelling judgement (NULL
 * skips it). warnings (when not NULL) gets the load's warnings; the
 * caller frees them. On failure *err (box_free) says why, in the words
 * `box policy check` uses.
 */
box_err box_ask_load_text(const char *name, const char *text, size_t len,
                          box_ask_load how, const pdp_schema *schema,
                          const char *home, pdp_policy_set **out,
                          pdp_validate_warnings *warnings,
                          char **err) BOX_WARN_UNUSED;
/* Reads and parses the action schema file path; on failure *err
 * (box_free) says why. */
box_err box_ask_load_schema(const char *path, pdp_schema **out,
                            char **err) BOX_WARN_UNUSED;

/* One decision and what it was decided on. */
typedef struct box_ask {
    pdp_request ak_rq;   // as decided (borrows from the request and history)
    size_t ak_at;        // the request's time point in the history
    int64_t ak_ts;       // and its time
    size_t ak_history;   // events before it
} box_ask;

/*
 * Appends rq to h as a `request` event (fields: input = the context's
 * input when it has one, callerPrincipal, callerResource; the context as
 * the decision's), stamped rq's ts or else the time of h's last event
 * (0 for an empty history), and decides it there with pdp_decide: the
 * request is decided as if it arrived after h's events (dogwood-spec
 * §1.3: observe, then decide). BOX_EINVAL with *err (box_free) when ts
 * is before h's last event; pdp_decide's contract otherwise.
 */
box_err box_ask_decide(const pdp_policy_set *set, pdp_hist *h,
                       const pdp_reqjson *rq, pdp_answer *ans, box_ask *out,
                       char **err) BOX_WARN_UNUSED;

/* Output forms. */
typedef struct box_ask_print {
    bool ap_explain; // each rule that matched or errored, and why
    bool ap_json;    // one JSON object instead of text lines
    bool ap_history; // say where in the history it was decided
} box_ask_print;

/*
 * Appends the decision: verdict, Box reason, Cedar's verdict when it
 * differs, the determining rules (pdp_rule_display_id), the message
 * (pdp_answer_message) and the errors; with ap_explain every rule that
 * matched or errored, evaluated again one by one against the same
 * request (scratch is reset first). Text is one `name: value` a line;
 * JSON one object and a newline (the keys are in box_policy_eval.c's
 * usage).
 */
box_err box_ask_print_answer(const pdp_policy_set *set, const box_ask *ak,
                             const pdp_answer *ans, const box_ask_print *o,
                             box_arena *scratch, box_buf *out) BOX_WARN_UNUSED;

#endif
