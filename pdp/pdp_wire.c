/* SPDX-License-Identifier: Apache-2.0 */
/* Wire <-> policy library: value conversion, responses, log records. */
#include "pdp_wire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "pdp_reads.h"

#define WIRE_MAX_DEPTH 32
#define WIRE_ACTION_MAX 256

box_err
pdp_wire_value(box_arena *a, const Box__Value *in, int depth,
               const pdp_value **out)
{
    box_err rv;
    pdp_value *v = NULL;
    if (in == NULL || depth > WIRE_MAX_DEPTH)
        return BOX_EINVAL;
    switch (in->kind_case) {
    case BOX__VALUE__KIND_STR:
        rv = pdp_value_string(a, in->str, strlen(in->str), &v);
        break;
    case BOX__VALUE__KIND_LONG:
        v = pdp_value_long(a, in->long_);
        rv = v ? BOX_OK : BOX_ENOMEM;
        break;
    case BOX__VALUE__KIND_BOOLEAN:
        v = pdp_value_bool(a, in->boolean);
        rv = v ? BOX_OK : BOX_ENOMEM;
        break;
    case BOX__VALUE__KIND_SET:
        if ((v = pdp_value_set_new(a)) == NULL)
            return BOX_ENOMEM;
        rv = BOX_OK;
        for (size_t i = 0; rv == BOX_OK && i < in->set->n_elements; i++) {
            const pdp_value *e;
            if ((rv = pdp_wire_value(a, in->set->elements[i], depth + 1, &e)) ==
                BOX_OK)
                rv = pdp_value_set_add(a, v, e);
        }
        break;
    case BOX__VALUE__KIND_RECORD:
        if ((v = pdp_value_record_new(a)) == NULL)
            return BOX_ENOMEM;
        rv = BOX_OK;
        for (size_t i = 0; rv == BOX_OK && i < in->record->n_fields; i++) {
            const Box__RecordField *f = in->record->fields[i];
            const pdp_value *fv;
            if ((rv = pdp_wire_value(a, f->value, depth + 1, &fv)) == BOX_OK)
                rv = pdp_value_record_put(a, v, f->name, strlen(f->name), fv);
        }
        break;
    case BOX__VALUE__KIND_ENTITY:
        rv = pdp_value_entity(a, in->entity->type, strlen(in->entity->type),
                              in->entity->id, strlen(in->entity->id), &v);
        break;
    default:
        return BOX_EINVAL;
    }
    if (rv != BOX_OK)
        return rv == BOX_ENOMEM ? BOX_ENOMEM : BOX_EINVAL;
    *out = v;
    return BOX_OK;
}

static const char *
wire_cause(pdp_reason r)
{
    switch (r) {
    case PDP_REASON_PERMITTED:
        return "permitted";
    case PDP_REASON_FORBIDDEN:
        return "forbidden";
    case PDP_REASON_NOMATCH:
        return "no_match";
    case PDP_REASON_POLICY_PENDING:
        return "policy_pending";
    default:
        return "internal_fault";
    }
}

static Box__ReasonClass
wire_reason(pdp_reason r)
{
    switch (r) {
    case PDP_REASON_PERMITTED:
        return BOX__REASON_CLASS__REASON_PERMITTED;
    case PDP_REASON_FORBIDDEN:
        return BOX__REASON_CLASS__REASON_FORBIDDEN;
    case PDP_REASON_NOMATCH:
        return BOX__REASON_CLASS__REASON_NO_MATCH;
    case PDP_REASON_POLICY_PENDING:
        return BOX__REASON_CLASS__REASON_POLICY_PENDING;
    default:
        return BOX__REASON_CLASS__REASON_INTERNAL_FAULT;
    }
}

/* Builds the request's values; false if anything does not convert. */
static bool
wire_request(box_arena *a, const Box__DecisionRequest *req, pdp_request *rq)
{
    pdp_value *p = NULL, *act = NULL, *res = NULL;
    const pdp_value *input = NULL;
    pdp_value *ctx = pdp_value_record_new(a);
    size_t alen = req->action ? strlen(req->action) : 0;
    if (ctx == NULL || alen == 0 || alen > WIRE_ACTION_MAX)
        return false;
    if (pdp_value_entity(a, "Box::Agent", 10, "self", 4, &p) != BOX_OK ||
        pdp_value_entity(a, "Box::Action", 11, req->action, alen, &act) !=
            BOX_OK ||
        pdp_value_entity(a, "Box::Resource", 13, "unused", 6, &res) != BOX_OK)
        return false;
    if (req->input == NULL ||
        req->input->kind_case != BOX__VALUE__KIND_RECORD ||
        pdp_wire_value(a, req->input, 0, &input) != BOX_OK)
        return false;
    if (pdp_value_record_put(a, ctx, "input", 5, input) != BOX_OK)
        return false;
    rq->rq_principal = p;
    rq->rq_action = act;
    rq->rq_resource = res;
    rq->rq_context = ctx;
    return true;
}

static char *
wire_str(box_arena *a, pdp_str s)
{
    return box_arena_strndup(a, s.s ? s.s : "", s.s ? s.len : 0);
}

/* A permit's cache fields (pdp_reads): what the action's rules read of
 * context.input; left unknown when that is "anything" or memory runs
 * out (the client then keys on the whole input). */
static void
wire_cache_fields(const pdp_policy_set *set, box_arena *a,
                  const pdp_value *action, Box__DecisionResponse *out)
{
    const pdp_reads *r = pdp_reads_for_action(set, action);
    if (r->rd_all)
        return;
    char **names = box_arena_zalloc(a, (r->rd_n + 1) * sizeof *names);
    if (names == NULL)
        return;
    for (size_t i = 0; i < r->rd_n; i++)
        if ((names[i] = wire_str(a, r->rd_fields[i])) == NULL)
            return;
    out->n_cache_fields = r->rd_n;
    out->cache_fields = r->rd_n ? names : NULL;
    out->cache_fields_known = 1;
}

void
pdp_wire_decide(const pdp_policy_set *set, pdp_live *live, box_arena *a,
                pdp_answer *ans, const Box__DecisionRequest *req,
                uint64_t epoch, Box__DecisionResponse *out,
                pdp_wire_decided *d)
{
    pdp_request rq = {0};
    const char *resource = req->resource ? req->resource : "";
    rq.rq_resource_text = resource;
    rq.rq_resource_len = strlen(resource);
    if (!wire_request(a, req, &rq)) {
        // Decided as malformed: the library answers InternalFault for a
        // context that is not a record.
        const pdp_value *bad = pdp_value_bool(a, false);
        rq.rq_principal = rq.rq_action = rq.rq_resource = bad;
        rq.rq_context = bad;
    }
    // On failure the answer still reads Deny / InternalFault.
    box_err drv = live != NULL ? pdp_live_decide(live, set, epoch, &rq,
                                                 req->request_id, ans)
                               : pdp_decide(set, &rq, ans);
    if (drv != BOX_OK && pdp_answer_verdict(ans) == PDP_ALLOW)
        abort(); // the library's contract says this cannot happen

    // The message first: made on demand, and an answer whose message
    // cannot be made reads as the fault deny from then on.
    size_t mlen;
    const char *msg = pdp_answer_message(ans, &mlen);
    pdp_verdict v = pdp_answer_verdict(ans);
    pdp_reason r = pdp_answer_reason(ans);
    size_t nd = pdp_answer_determining_count(ans);
    size_t ne = pdp_answer_error_count(ans);

    out->verdict = v == PDP_ALLOW ? BOX__VERDICT__VERDICT_PERMIT
                                  : BOX__VERDICT__VERDICT_DENY;
    out->reason = wire_reason(r);
    out->message = (char *)msg;
    out->epoch = epoch;
    // An answer that reads history, or whose event history reads, must
    // reach the PDP every time: never from a cache. Its outcome is history
    // too, so the client records it (pdp_live_record keeps only these).
    out->wants_outcomes = rq.rq_action != NULL &&
                          pdp_value_kind_of(rq.rq_action) == PDP_VAL_ENTITY &&
                          pdp_policy_history_reads(set, rq.rq_action);
    out->cacheable = !out->wants_outcomes;
    out->request_id = req->request_id;
    if (v == PDP_ALLOW && rq.rq_action != NULL &&
        pdp_value_kind_of(rq.rq_action) == PDP_VAL_ENTITY)
        wire_cache_fields(set, a, rq.rq_action, out);

    Box__DeterminingPolicy *cells =
        box_arena_zalloc(a, (nd + 1) * sizeof *cells);
    Box__DeterminingPolicy **dets =
        box_arena_zalloc(a, (nd + 1) * sizeof *dets);
    const char **ids = box_arena_zalloc(a, (nd + 1) * sizeof *ids);
    char **errs = box_arena_zalloc(a, (ne + 1) * sizeof *errs);
    if (cells == NULL || dets == NULL || ids == NULL || errs == NULL)
        nd = ne = 0;
    for (size_t i = 0; i < nd; i++) {
        const pdp_rule *rule = pdp_answer_determining(ans, i);
        box__determining_policy__init(&cells[i]);
        cells[i].id = wire_str(a, pdp_rule_display_id(rule));
        cells[i].description = wire_str(a, pdp_rule_description(rule));
        if (cells[i].id == NULL || cells[i].description == NULL) {
            nd = i;
            break;
        }
        dets[i] = &cells[i];
        ids[i] = cells[i].id;
    }
    out->n_determining = nd;
    out->determining = nd ? dets : NULL;
    box_buf eb;
    box_buf_init(&eb, 64 * 1024);
    for (size_t i = 0; i < ne; i++) {
        const pdp_rule *er = pdp_answer_error_rule(ans, i);
        const char *em = pdp_answer_error_message(ans, i);
        char *line = NULL;
        if (er != NULL)
            line = box_arena_strndup(a, er->r_pid.s, er->r_pid.len);
        box_buf line_b;
        box_buf_init(&line_b, 8192);
        if (box_buf_printf(&line_b, "%s: %s", line ? line : "request",
                           em ? em : "") == BOX_OK)
            errs[i] = box_arena_strndup(a, line_b.b_data, line_b.b_len);
        box_buf_reset(&line_b);
        if (errs[i] == NULL) {
            ne = i;
            break;
        }
        if ((i > 0 && box_buf_puts(&eb, "; ") != BOX_OK) ||
            box_buf_puts(&eb, errs[i]) != BOX_OK)
            break;
    }
    out->n_errors = ne;
    out->errors = ne ? errs : NULL;

    // The decision-log record.
    pdp_dlog_decision *l = &d->wd_log;
    memset(l, 0, sizeof *l);
    l->dd_action = req->action;
    l->dd_resource = resource;
    l->dd_permit = v == PDP_ALLOW;
    l->dd_cause = wire_cause(r);
    l->dd_reason = pdp_reason_words(r);
    l->dd_rule =
        nd > 0 && r != PDP_REASON_INTERNAL_FAULT ? ids[0] : "<default-deny>";
    if (r == PDP_REASON_FORBIDDEN && nd > 0 && cells[0].description[0])
        l->dd_description = cells[0].description;
    l->dd_determining = ids;
    l->dd_ndetermining = nd;
    l->dd_message = msg;
    l->dd_error = eb.b_len ? box_arena_strndup(a, eb.b_data, eb.b_len) : NULL;
    box_buf_reset(&eb);
    l->dd_epoch = epoch;
    l->dd_cached = req->cached;
    const Box__Subject *sub = req->subject;
    if (sub != NULL) {
        l->dd_file_path = sub->file_path;
        l->dd_process_command = sub->process_command;
        l->dd_command_args = (const char *const *)sub->command_args;
        l->dd_ncommand_args = sub->n_command_args;
        l->dd_working_directory = sub->working_directory;
        l->dd_server_address = sub->server_address;
        l->dd_server_port = sub->server_port;
        l->dd_http_method = sub->http_method;
    }
}

void
pdp_wire_enforce(box_arena *a, const Box__DecisionRequest *req,
                 Box__DecisionResponse *out, pdp_wire_decided *d)
{
    const Box__Enforcement *en = req->enforcement;
    if (en == NULL)
        return;
    out->cacheable = 0;
    pdp_dlog_decision *l = &d->wd_log;
    if (!l->dd_permit)
        return;
    const char *gate = en->gate && en->gate[0] ? en->gate : "unnamed";
    size_t n = strlen(gate) + sizeof "enforcement:";
    char *rule = box_arena_alloc(a, n);
    if (rule != NULL)
        snprintf(rule, n, "enforcement:%s", gate);
    l->dd_permit = 0;
    l->dd_cause = "enforcement";
    l->dd_rule = rule ? rule : "enforcement";
    l->dd_reason = en->reason;
    l->dd_message = en->reason;
    l->dd_description = NULL;
    l->dd_determining = NULL;
    l->dd_ndetermining = 0;
}

void
pdp_wire_response_own(box_arena *a, Box__DecisionResponse *out)
{
    if (out->message != NULL)
        out->message = box_arena_strndup(a, out->message, strlen(out->message));
    if (out->message == NULL) {
        // No memory for the text: keep the verdict honest.
        out->verdict = BOX__VERDICT__VERDICT_DENY;
        out->reason = BOX__REASON_CLASS__REASON_INTERNAL_FAULT;
        out->message = "policy denied this operation because the request "
                       "could not be evaluated.";
    }
}

bool
pdp_wire_notice(const Box__DecisionRequest *req, uint64_t epoch,
                Box__DecisionResponse *out, pdp_wire_decided *d)
{
    const Box__Enforcement *en = req->enforcement;
    if (req->action == NULL || strcmp(req->action, "egress:native") != 0 ||
        en == NULL || en->gate == NULL ||
        strcmp(en->gate, "native-egress") != 0 || req->cached)
        return false;
    static const char why[] = "runs with native egress: no gateway decides "
                              "its connections";
    const char *reason = en->reason && en->reason[0] ? en->reason : why;
    memset(d, 0, sizeof *d);
    pdp_dlog_decision *l = &d->wd_log;
    l->dd_action = "egress:native";
    l->dd_resource = req->resource ? req->resource : "";
    l->dd_permit = 1;
    l->dd_cause = "enforcement";
    l->dd_rule = "enforcement:native-egress";
    l->dd_message = reason;
    l->dd_epoch = epoch;
    out->verdict = BOX__VERDICT__VERDICT_PERMIT;
    out->reason = BOX__REASON_CLASS__REASON_PERMITTED; // the client's "logged"
    out->message = (char *)reason;
    out->epoch = epoch;
    out->request_id = req->request_id;
    out->cacheable = 0;
    return true;
}

void
pdp_wire_served(box_arena *a, const Box__DecisionRequest *req, uint64_t epoch,
                pdp_wire_decided *d)
{
    pdp_dlog_decision *l = &d->wd_log;
    (void)a;
    if (!req->cached || (l->dd_permit && req->cached_epoch == epoch))
        return;
    l->dd_permit = 1;
    l->dd_cause = "cached";
    l->dd_reason = "a permit served from a client's cache, made under an "
                   "earlier policy generation";
    l->dd_rule = "<cached-permit>";
    l->dd_description = NULL;
    l->dd_determining = NULL;
    l->dd_ndetermining = 0;
    l->dd_message = NULL;
    l->dd_error = NULL;
    l->dd_epoch = req->cached_epoch;
}

box_err
pdp_wire_record(const pdp_policy_set *set, pdp_live *live, uint64_t epoch,
                box_arena *a, const Box__Event *ev)
{
    static const char *const kinds[] = {
        [BOX__EVENT_KIND__EVENT_RESPONSE] = "response",
        [BOX__EVENT_KIND__EVENT_ERROR] = "error",
    };
    if (ev->kind != BOX__EVENT_KIND__EVENT_RESPONSE &&
        ev->kind != BOX__EVENT_KIND__EVENT_ERROR)
        return BOX_EINVAL; // ::request events are the PDP's own
    size_t alen = ev->action ? strlen(ev->action) : 0;
    if (alen == 0 || alen > WIRE_ACTION_MAX)
        return BOX_EINVAL;
    pdp_value *p = NULL, *act = NULL, *res = NULL;
    const pdp_value *input = NULL, *output = NULL;
    if (pdp_value_entity(a, "Box::Agent", 10, "self", 4, &p) != BOX_OK ||
        pdp_value_entity(a, "Box::Action", 11, ev->action, alen, &act) !=
            BOX_OK ||
        pdp_value_entity(a, "Box::Resource", 13, "unused", 6, &res) != BOX_OK)
        return BOX_EINVAL;
    if (ev->input == NULL || ev->input->kind_case != BOX__VALUE__KIND_RECORD ||
        pdp_wire_value(a, ev->input, 0, &input) != BOX_OK)
        return BOX_EINVAL;
    if (ev->output != NULL &&
        (ev->output->kind_case != BOX__VALUE__KIND_RECORD ||
         pdp_wire_value(a, ev->output, 0, &output) != BOX_OK))
        return BOX_EINVAL;
    return pdp_live_record(live, set, epoch, p, res, act, kinds[ev->kind],
                           input, output, ev->request_id);
}
