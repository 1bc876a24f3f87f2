/* SPDX-License-Identifier: Apache-2.0 */
/* Authorization over the indexed rules, Box's error rule, and the message. */
#include "pdp_decide.h"

#include <string.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "pdp_int.h"
#include "pdp_validate.h"

/* Scratch per answer: values built while evaluating, error texts. */
#define PDP_ANSWER_SCRATCH (16u << 20)
#define PDP_ANSWER_MAX_ERRORS 1024

typedef struct pdp_error {
    const pdp_rule *er_rule;
    const char *er_msg; // in an_arena
} pdp_error;

struct pdp_answer {
    pdp_verdict an_verdict;
    pdp_verdict an_cedar;
    pdp_reason an_reason;
    box_arena *an_arena;
    const pdp_rule **an_permits; // satisfied permits
    const pdp_rule **an_forbids; // satisfied forbids
    size_t an_npermits, an_nforbids, an_cap;
    const pdp_rule **an_det; // = an_permits or an_forbids
    size_t an_ndet;
    pdp_error *an_errors;
    size_t an_nerrors, an_errcap;
    pdp_msg_rule *an_msgrules;
    size_t an_msgcap;
    box_buf an_message;
    const char *an_failed_message; // static; set when the answer failed
    // The message is formatted when first asked for (most answers are
    // never shown): the resource it names, kept until then.
    const char *an_res;
    size_t an_rlen;
    bool an_msg_built;
};

/* §3.11's engine-fault text without the resource: the message of an
 * answer that could not be completed, since formatting it is one of the
 * things that can fail for lack of memory. */
#define PDP_FAILED_MESSAGE                                                     \
    "policy denied this operation because the request could not be "           \
    "evaluated."

pdp_answer *
pdp_answer_new(void)
{
    pdp_answer *ans = box_calloc(1, sizeof(*ans));
    if (ans == NULL)
        return NULL;
    ans->an_arena = box_arena_new(PDP_ANSWER_SCRATCH);
    if (ans->an_arena == NULL) {
        box_free(ans);
        return NULL;
    }
    box_buf_init(&ans->an_message, PDP_MESSAGE_MAX);
    return ans;
}

void
pdp_answer_free(pdp_answer *ans)
{
    if (ans == NULL)
        return;
    box_arena_free(ans->an_arena);
    box_free(ans->an_permits);
    box_free(ans->an_forbids);
    box_free(ans->an_errors);
    box_free(ans->an_msgrules);
    box_buf_reset(&ans->an_message);
    box_free(ans);
}

/* Fail-closed state: what the answer says until a decision is complete. */
static void
answer_reset(pdp_answer *ans)
{
    ans->an_verdict = PDP_DENY;
    ans->an_cedar = PDP_DENY;
    ans->an_reason = PDP_REASON_INTERNAL_FAULT;
    ans->an_npermits = ans->an_nforbids = ans->an_ndet = 0;
    ans->an_det = NULL;
    ans->an_nerrors = 0;
    box_arena_reset(ans->an_arena);
    ans->an_failed_message = NULL;
    ans->an_message.b_len = 0;
    if (ans->an_message.b_data != NULL)
        ans->an_message.b_data[0] = '\0';
    ans->an_res = NULL;
    ans->an_rlen = 0;
    ans->an_msg_built = true; // nothing to say yet
}

static box_err
reserve_rules(pdp_answer *ans, size_t n)
{
    if (n <= ans->an_cap)
        return BOX_OK;
    const pdp_rule **p = box_realloc(ans->an_permits, n * sizeof(*p));
    if (p == NULL)
        return BOX_ENOMEM;
    ans->an_permits = p;
    const pdp_rule **f = box_realloc(ans->an_forbids, n * sizeof(*f));
    if (f == NULL)
        return BOX_ENOMEM;
    ans->an_forbids = f;
    ans->an_cap = n;
    return BOX_OK;
}

static box_err
add_error(pdp_answer *ans, const pdp_rule *r, const char *msg)
{
    if (ans->an_nerrors >= PDP_ANSWER_MAX_ERRORS)
        return BOX_OK; // the verdict is already a fault; keep the first ones
    if (ans->an_nerrors == ans->an_errcap) {
        size_t nc = ans->an_errcap ? ans->an_errcap * 2 : 8;
        pdp_error *e = box_realloc(ans->an_errors, nc * sizeof(*e));
        if (e == NULL)
            return BOX_ENOMEM;
        ans->an_errors = e;
        ans->an_errcap = nc;
    }
    char *m = box_arena_strndup(ans->an_arena, msg, strlen(msg));
    ans->an_errors[ans->an_nerrors].er_rule = r;
    ans->an_errors[ans->an_nerrors].er_msg = m != NULL ? m : "out of memory";
    ans->an_nerrors++;
    return BOX_OK;
}

/* The §3.11 text of the answer as it stands, into an_message. */
static box_err
format_message(pdp_answer *ans, const char *res, size_t rlen)
{
    size_t n = ans->an_reason == PDP_REASON_FORBIDDEN ? ans->an_ndet : 0;
    if (n > ans->an_msgcap) {
        pdp_msg_rule *m = box_realloc(ans->an_msgrules, n * sizeof(*m));
        if (m == NULL)
            return BOX_ENOMEM;
        ans->an_msgrules = m;
        ans->an_msgcap = n;
    }
    for (size_t i = 0; i < n; i++) {
        const pdp_rule *r = ans->an_det[i];
        const pdp_annot *id = pdp_rule_annot(r, "id");
        const pdp_annot *desc = pdp_rule_annot(r, "description");
        pdp_msg_rule *m = &ans->an_msgrules[i];
        pdp_str none = {NULL, 0};
        m->mr_token = r->r_index;
        m->mr_rule_id = r->r_pid;
        m->mr_id = id != NULL ? id->an_value : none;
        m->mr_description = desc != NULL ? desc->an_value : none;
    }
    ans->an_message.b_len = 0;
    /* The verdict itself is set only after the message exists (see
     * pdp_decide), so the text follows the reason. */
    pdp_verdict v =
        ans->an_reason == PDP_REASON_PERMITTED ? PDP_ALLOW : PDP_DENY;
    return pdp_message_format(v, ans->an_reason, res, rlen, ans->an_msgrules,
                              n, &ans->an_message);
}

/* The message the answer will give: its resource kept (in the answer's
 * own arena), the text made on the first pdp_answer_message. */
static box_err
build_message(pdp_answer *ans, const char *res, size_t rlen)
{
    char *copy = box_arena_strndup(ans->an_arena, res != NULL ? res : "",
                                   res != NULL ? rlen : 0);
    if (copy == NULL)
        return BOX_ENOMEM;
    ans->an_res = copy;
    ans->an_rlen = res != NULL ? rlen : 0;
    ans->an_message.b_len = 0;
    ans->an_msg_built = false;
    return BOX_OK;
}

static bool
request_ok(const pdp_request *rq, const char **why)
{
    if (rq->rq_principal == NULL || rq->rq_principal->v_kind != PDP_VAL_ENTITY)
        *why = "request principal is not an entity";
    else if (rq->rq_action == NULL || rq->rq_action->v_kind != PDP_VAL_ENTITY)
        *why = "request action is not an entity";
    else if (rq->rq_resource == NULL ||
             rq->rq_resource->v_kind != PDP_VAL_ENTITY)
        *why = "request resource is not an entity";
    else if (rq->rq_context == NULL || rq->rq_context->v_kind != PDP_VAL_RECORD)
        *why = "request context is not a record";
    else
        return true;
    return false;
}

/*
 * An answer that stopped half-way (out of memory) reads as a fault deny
 * that names no determining rule (satisfied permits may already be
 * listed) and carries the fixed fault text, so a caller that reports it
 * tells no half-truth. Returns rv.
 */
static box_err
answer_failed(pdp_answer *ans, box_err rv)
{
    ans->an_verdict = PDP_DENY;
    ans->an_reason = PDP_REASON_INTERNAL_FAULT;
    ans->an_det = NULL;
    ans->an_ndet = 0;
    ans->an_message.b_len = 0;
    ans->an_failed_message = PDP_FAILED_MESSAGE;
    return rv;
}

static box_err decide(const pdp_policy_set *set, const pdp_request *rq,
                      pdp_answer *ans);

box_err
pdp_decide(const pdp_policy_set *set, const pdp_request *rq, pdp_answer *ans)
{
    box_err rv = decide(set, rq, ans);
    return rv == BOX_OK ? BOX_OK : answer_failed(ans, rv);
}

static box_err
decide(const pdp_policy_set *set, const pdp_request *rq, pdp_answer *ans)
{
    answer_reset(ans);
    /* The schema's action groups, for `action in Group`, when the caller
     * brings no entity store of its own. */
    pdp_request with_actions;
    const pdp_entities *acts = pdp_policy_action_entities(set);
    if (rq->rq_entities == NULL && acts != NULL) {
        with_actions = *rq;
        with_actions.rq_entities = acts;
        rq = &with_actions;
    }
    const char *why;
    box_err rv;
    if (!request_ok(rq, &why)) {
        if ((rv = add_error(ans, NULL, why)) != BOX_OK)
            return rv;
        return build_message(ans, rq->rq_resource_text, rq->rq_resource_len);
    }
    /* §1.5: a request that does not conform to the schema is a fault. */
    const pdp_schema *schema = pdp_policy_schema(set);
    if (schema != NULL) {
        char *bad = NULL;
        rv = pdp_validate_request_full(schema, rq, &bad);
        if (rv == BOX_EINVAL) {
            rv = add_error(ans, NULL, bad);
            box_free(bad);
            if (rv != BOX_OK)
                return rv;
            return build_message(ans, rq->rq_resource_text,
                                 rq->rq_resource_len);
        }
        if (rv != BOX_OK)
            return rv;
    }
    if ((rv = reserve_rules(ans, pdp_policy_rule_count(set))) != BOX_OK)
        return rv;
    const pdp_rule *const *spec, *const *any;
    size_t nspec, nany, i = 0, j = 0;
    pdp_policy_candidates(set, rq->rq_action, &spec, &nspec, &any, &nany);
    char msg[PDP_EVAL_MSG_MAX];
    while (i < nspec || j < nany) {
        /* Merge the two index lists so rules run in source order. */
        const pdp_rule *r;
        if (j >= nany || (i < nspec && spec[i]->r_index < any[j]->r_index))
            r = spec[i++];
        else
            r = any[j++];
        msg[0] = '\0';
        pdp_match m = pdp_eval_rule(r, rq, ans->an_arena, msg, sizeof(msg));
        if (m == PDP_MATCH_ERROR) {
            if ((rv = add_error(ans, r, msg)) != BOX_OK)
                return rv;
        } else if (m == PDP_MATCH_YES) {
            if (r->r_effect == PDP_PERMIT)
                ans->an_permits[ans->an_npermits++] = r;
            else
                ans->an_forbids[ans->an_nforbids++] = r;
        }
    }
    /* Cedar. */
    if (ans->an_npermits > 0 && ans->an_nforbids == 0) {
        ans->an_cedar = PDP_ALLOW;
        ans->an_det = ans->an_permits;
        ans->an_ndet = ans->an_npermits;
    } else {
        ans->an_det = ans->an_forbids;
        ans->an_ndet = ans->an_nforbids;
    }
    /* Box: errors fail closed; only a clean Cedar Allow grants. */
    if (ans->an_nerrors > 0) {
        ans->an_reason = PDP_REASON_INTERNAL_FAULT;
    } else if (ans->an_cedar == PDP_ALLOW) {
        ans->an_reason = PDP_REASON_PERMITTED;
    } else if (ans->an_nforbids > 0) {
        ans->an_reason = PDP_REASON_FORBIDDEN;
    } else {
        ans->an_reason = PDP_REASON_NOMATCH;
    }
    if ((rv = build_message(ans, rq->rq_resource_text, rq->rq_resource_len)) !=
        BOX_OK)
        return rv;
    /* Last: nothing after this point can fail, so an early return above
     * always leaves a deny. */
    if (ans->an_reason == PDP_REASON_PERMITTED)
        ans->an_verdict = PDP_ALLOW;
    return BOX_OK;
}

box_err
pdp_answer_set_pending(pdp_answer *ans, const char *resource, size_t rlen)
{
    answer_reset(ans);
    ans->an_reason = PDP_REASON_POLICY_PENDING;
    box_err rv = build_message(ans, resource, rlen);
    return rv == BOX_OK ? BOX_OK : answer_failed(ans, rv);
}

box_err
pdp_answer_set_fault(pdp_answer *ans, const char *why, const char *resource,
                     size_t rlen)
{
    answer_reset(ans);
    box_err rv = add_error(ans, NULL, why);
    if (rv == BOX_OK)
        rv = build_message(ans, resource, rlen);
    return rv == BOX_OK ? BOX_OK : answer_failed(ans, rv);
}

pdp_verdict
pdp_answer_verdict(const pdp_answer *ans)
{
    return ans->an_verdict == PDP_ALLOW ? PDP_ALLOW : PDP_DENY;
}

pdp_reason
pdp_answer_reason(const pdp_answer *ans)
{
    return ans->an_reason;
}

pdp_verdict
pdp_answer_cedar_verdict(const pdp_answer *ans)
{
    return ans->an_cedar;
}

size_t
pdp_answer_determining_count(const pdp_answer *ans)
{
    return ans->an_ndet;
}

const pdp_rule *
pdp_answer_determining(const pdp_answer *ans, size_t i)
{
    return i < ans->an_ndet ? ans->an_det[i] : NULL;
}

size_t
pdp_answer_error_count(const pdp_answer *ans)
{
    return ans->an_nerrors;
}

const pdp_rule *
pdp_answer_error_rule(const pdp_answer *ans, size_t i)
{
    return i < ans->an_nerrors ? ans->an_errors[i].er_rule : NULL;
}

const char *
pdp_answer_error_message(const pdp_answer *ans, size_t i)
{
    return i < ans->an_nerrors ? ans->an_errors[i].er_msg : NULL;
}

const char *
pdp_answer_message(const pdp_answer *ans, size_t *len)
{
    if (ans->an_failed_message != NULL) {
        if (len != NULL)
            *len = strlen(ans->an_failed_message);
        return ans->an_failed_message;
    }
    if (!ans->an_msg_built) {
        // Made on demand; the answer is the caller's alone, so "const"
        // here means its verdict and rules, which this never changes.
        pdp_answer *m = (pdp_answer *)ans;
        m->an_msg_built = true;
        if (format_message(m, m->an_res, m->an_rlen) != BOX_OK) {
            box_err frv = answer_failed(m, BOX_ENOMEM); // fails closed
            (void)frv;
            if (len != NULL)
                *len = strlen(PDP_FAILED_MESSAGE);
            return PDP_FAILED_MESSAGE;
        }
    }
    if (len != NULL)
        *len = ans->an_message.b_len;
    return ans->an_message.b_data != NULL ? ans->an_message.b_data : "";
}
