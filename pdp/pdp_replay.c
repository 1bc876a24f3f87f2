/* SPDX-License-Identifier: Apache-2.0 */
/* Replay: every decision event of a history through pdp_decide. */
#include "pdp_replay.h"

#include <inttypes.h>
#include <string.h>

#include "box_arena.h"
#include "pdp_decide.h"

#define REPLAY_SCRATCH_MAX ((size_t)1 << 30) // one decision's values

static bool
default_decides(void *arg, const char *kind)
{
    (void)arg;
    return strcmp(kind, "request") == 0;
}

/* One decision: the verdict and the rules that determined it. */
static box_err
replay_one(const pdp_policy_set *set, const pdp_hist *h, size_t k,
           pdp_answer *ans, box_arena *scratch, bool verdicts, box_buf *out)
{
    const pdp_event *e = pdp_hist_at(h, k);
    bool allow = false;
    size_t nrules = 0;
    if (e->ev_principal != NULL && e->ev_resource != NULL) {
        const pdp_value *ctx = e->ev_context;
        if (ctx == NULL && (ctx = pdp_value_record_new(scratch)) == NULL)
            return BOX_ENOMEM;
        pdp_request rq = {
            .rq_principal = e->ev_principal,
            .rq_action = e->ev_action,
            .rq_resource = e->ev_resource,
            .rq_context = ctx,
            .rq_resource_text = "",
            .rq_hist = h,
            .rq_at = k,
        };
        // A failed decision reads Deny (pdp_decide's contract).
        box_err rv = pdp_decide(set, &rq, ans);
        (void)rv;
        allow = pdp_answer_verdict(ans) == PDP_ALLOW;
        nrules = pdp_answer_determining_count(ans);
    }
    box_err rv = box_buf_printf(out, "@%" PRId64 " (time point %zu): %s",
                                e->ev_ts, k,
                                verdicts ? (allow ? "true" : "false")
                                         : (allow ? "ALLOW" : "DENY"));
    for (size_t i = 0; i < nrules && !verdicts && rv == BOX_OK; i++)
        rv = box_buf_printf(out, "%s%u", i == 0 ? "  [rules: " : ", ",
                            pdp_answer_determining(ans, i)->r_index);
    if (rv == BOX_OK && nrules > 0 && !verdicts)
        rv = box_buf_putc(out, ']');
    return rv == BOX_OK ? box_buf_putc(out, '\n') : rv;
}

box_err
pdp_replay(const pdp_policy_set *set, const pdp_hist *h,
           const pdp_replay_opts *o, box_buf *out)
{
    pdp_replay_decides decides =
        o->ro_decides != NULL ? o->ro_decides : default_decides;
    pdp_answer *ans = pdp_answer_new();
    box_arena *scratch = box_arena_new(REPLAY_SCRATCH_MAX);
    box_err rv = ans != NULL && scratch != NULL ? BOX_OK : BOX_ENOMEM;
    for (size_t k = 0; k < pdp_hist_len(h) && rv == BOX_OK; k++) {
        if (!decides(o->ro_arg, pdp_hist_at(h, k)->ev_kind))
            continue;
        box_arena_reset(scratch);
        rv = replay_one(set, h, k, ans, scratch, o->ro_verdicts, out);
    }
    box_arena_free(scratch);
    pdp_answer_free(ans);
    return rv;
}
