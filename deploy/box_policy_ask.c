/* SPDX-License-Identifier: Apache-2.0 */
/* One request decided against a policy (box_policy_ask.h). */
#include "box_policy_ask.h"

#include <inttypes.h>
#include <string.h>

#include "box_alloc.h"
#include "box_escape.h"
#include "box_json.h"
#include "pdp_eval.h"
#include "pdp_message.h"
#include "pdp_policy_file.h"

box_err
box_ask_load_schema(const char *path, pdp_schema **out, char **err)
{
    char *text = NULL;
    size_t len = 0;
    *err = NULL;
    box_err rv = pdp_read_text_file(path, "schema file", PDP_SCHEMA_MAX_BYTES,
                                    &text, &len, err);
    if (rv == BOX_OK)
        rv = pdp_schema_load(text, len, path, out, err);
    box_free(text);
    return rv;
}

box_err
box_ask_load_text(const char *name, const char *text, size_t len,
                  box_ask_load how, const pdp_schema *schema,
                  const char *home, pdp_policy_set **out,
                  pdp_validate_warnings *warnings, char **err)
{
    char *inner = NULL;
    box_err rv;
    *err = NULL;
    if (how == BOX_ASK_LOAD_DOGWOOD)
        return pdp_policy_load(text, len, name, out, err);
    rv = pdp_policy_load_checked(text, len, name, schema, home, out, warnings,
                                 &inner);
    *err = pdp_policy_load_message(rv, inner); // as box-pdp words it
    return rv;
}

box_err
box_ask_decide(const pdp_policy_set *set, pdp_hist *h, const pdp_reqjson *rq,
               pdp_answer *ans, box_ask *out, char **err)
{
    size_t n = pdp_hist_len(h);
    int64_t last = n > 0 ? pdp_hist_at(h, n - 1)->ev_ts : 0;
    int64_t ts = rq->rj_has_ts ? rq->rj_ts : last;
    *err = NULL;
    if (n > 0 && ts < last) {
        *err = box_asprintf("the request's ts %" PRId64 " is before the "
                            "history's last event (@%" PRId64 ")",
                            ts, last);
        return BOX_EINVAL;
    }
    box_arena *a = pdp_hist_arena(h);
    if (a == NULL)
        return BOX_ENOMEM;
    pdp_event e = {.ev_kind = "request", .ev_ts = ts};
    const pdp_value *input = pdp_value_get(rq->rj_context, "input", 5);
    pdp_value *fields = pdp_value_record_new(a);
    if (fields == NULL)
        return BOX_ENOMEM;
    BOX_TRY(pdp_value_copy(a, rq->rj_action, &e.ev_action));
    BOX_TRY(pdp_value_copy(a, rq->rj_principal, &e.ev_principal));
    BOX_TRY(pdp_value_copy(a, rq->rj_resource, &e.ev_resource));
    BOX_TRY(pdp_value_copy(a, rq->rj_context, &e.ev_context));
    if (input != NULL) {
        const pdp_value *in;
        BOX_TRY(pdp_value_copy(a, input, &in));
        BOX_TRY(pdp_value_record_put(a, fields, "input", 5, in));
    }
    // Mirrored from the scope, as the trace reader and box-pdp do.
    BOX_TRY(
        pdp_value_record_put(a, fields, "callerPrincipal", 15, e.ev_principal));
    BOX_TRY(
        pdp_value_record_put(a, fields, "callerResource", 14, e.ev_resource));
    e.ev_fields = fields;
    BOX_TRY(pdp_hist_append(h, &e));

    memset(out, 0, sizeof *out);
    out->ak_at = pdp_hist_len(h) - 1;
    out->ak_ts = ts;
    out->ak_history = n;
    pdp_request *q = &out->ak_rq;
    q->rq_principal = rq->rj_principal;
    q->rq_action = rq->rj_action;
    q->rq_resource = rq->rj_resource;
    q->rq_context = rq->rj_context;
    q->rq_resource_text = rq->rj_resource_text;
    q->rq_resource_len = rq->rj_resource_len;
    q->rq_hist = h;
    q->rq_at = out->ak_at;
    q->rq_entities = rq->rj_entities.es_n > 0 ? &rq->rj_entities : NULL;
    return pdp_decide(set, q, ans);
}

/* ---- printing ---- */

static const char *
verdict_word(pdp_verdict v)
{
    return v == PDP_ALLOW ? "allow" : "deny";
}

/* A rule's name for people: its display id (@id or policy_<i>). */
static box_err
put_id(box_buf *b, const pdp_rule *r, bool json)
{
    pdp_str id = pdp_rule_display_id(r);
    return json ? box_json_str(b, id.s, id.len)
                : box_escape_ids(b, id.s, id.len);
}

/* One rule of the explanation: matched, or errored with msg. */
typedef struct why {
    const pdp_rule *w_rule;
    bool w_error;
    char w_msg[PDP_EVAL_MSG_MAX];
} why;

/* Every rule that matched or errored, evaluated again one by one. NULL
 * *list when the request-level check stopped the decision before any
 * rule. The caller frees *list. */
static box_err
explain(const pdp_policy_set *set, const box_ask *ak, const pdp_answer *ans,
        box_arena *scratch, why **list, size_t *n)
{
    *list = NULL;
    *n = 0;
    for (size_t i = 0; i < pdp_answer_error_count(ans); i++)
        if (pdp_answer_error_rule(ans, i) == NULL)
            return BOX_OK; // no rule was evaluated
    size_t nr = pdp_policy_rule_count(set), cap = 0;
    why *w = NULL;
    char msg[PDP_EVAL_MSG_MAX];
    for (size_t i = 0; i < nr; i++) {
        const pdp_rule *r = pdp_policy_rule(set, i);
        box_arena_reset(scratch);
        msg[0] = '\0';
        pdp_match m = pdp_eval_rule(r, &ak->ak_rq, scratch, msg, sizeof msg);
        if (m == PDP_MATCH_NO)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 16;
            why *g = box_realloc(w, cap * sizeof *w);
            if (g == NULL) {
                box_free(w);
                return BOX_ENOMEM;
            }
            w = g;
        }
        w[*n].w_rule = r;
        w[*n].w_error = m == PDP_MATCH_ERROR;
        memcpy(w[*n].w_msg, msg, sizeof msg);
        (*n)++;
    }
    if (w == NULL && (w = box_calloc(1, sizeof *w)) == NULL)
        return BOX_ENOMEM; // an empty list, not "not evaluated"
    *list = w;
    return BOX_OK;
}

static box_err
print_text(const pdp_policy_set *set, const box_ask *ak,
           const pdp_answer *ans, const box_ask_print *o, const why *w,
           size_t nw, box_buf *b)
{
    pdp_verdict v = pdp_answer_verdict(ans);
    BOX_TRY(box_buf_printf(b, "decision: %s\nreason: %s\n", verdict_word(v),
                           pdp_reason_name(pdp_answer_reason(ans))));
    if (pdp_answer_cedar_verdict(ans) != v)
        BOX_TRY(box_buf_printf(b, "cedar: %s (Box denies on any error)\n",
                               verdict_word(pdp_answer_cedar_verdict(ans))));
    BOX_TRY(box_buf_puts(b, "rules:"));
    size_t nd = pdp_answer_determining_count(ans);
    for (size_t i = 0; i < nd; i++) {
        BOX_TRY(box_buf_puts(b, i == 0 ? " " : ", "));
        BOX_TRY(put_id(b, pdp_answer_determining(ans, i), false));
    }
    BOX_TRY(box_buf_puts(b, nd == 0 ? " (none)\nmessage: " : "\nmessage: "));
    size_t ml;
    const char *msg = pdp_answer_message(ans, &ml);
    BOX_TRY(box_buf_append(b, msg, ml));
    BOX_TRY(box_buf_putc(b, '\n'));
    if (o->ap_history)
        BOX_TRY(box_buf_printf(b,
                               "history: %zu events before it; decided at time "
                               "point %zu (@%" PRId64 ")\n",
                               ak->ak_history, ak->ak_at, ak->ak_ts));
    size_t ne = pdp_answer_error_count(ans);
    BOX_TRY(box_buf_puts(b, ne == 0 ? "errors: (none)\n" : "errors:\n"));
    for (size_t i = 0; i < ne; i++) {
        const pdp_rule *r = pdp_answer_error_rule(ans, i);
        const char *em = pdp_answer_error_message(ans, i);
        BOX_TRY(box_buf_puts(b, "  "));
        BOX_TRY(r != NULL ? put_id(b, r, false) : box_buf_puts(b, "request"));
        BOX_TRY(box_buf_puts(b, ": "));
        BOX_TRY(box_escape_ids(b, em, strlen(em)));
        BOX_TRY(box_buf_putc(b, '\n'));
    }
    if (!o->ap_explain)
        return BOX_OK;
    if (w == NULL)
        return box_buf_puts(b, "why: no rule was evaluated (the request "
                               "itself was refused; see errors)\n");
    if (nw == 0)
        return box_buf_printf(b, "why: none of the %zu rules matched\n",
                              pdp_policy_rule_count(set));
    BOX_TRY(box_buf_puts(b, "why:\n"));
    for (size_t i = 0; i < nw; i++) {
        const pdp_rule *r = w[i].w_rule;
        pdp_str id = pdp_rule_display_id(r);
        BOX_TRY(box_buf_puts(b, "  "));
        BOX_TRY(put_id(b, r, false));
        if (id.s != r->r_pid.s)
            BOX_TRY(box_buf_printf(b, " (%s)", r->r_pid.s));
        BOX_TRY(box_buf_printf(b, ", %s at line %u: ",
                               r->r_effect == PDP_PERMIT ? "permit" : "forbid",
                               r->r_pos.line));
        if (!w[i].w_error) {
            BOX_TRY(box_buf_puts(b, "matched\n"));
            continue;
        }
        BOX_TRY(box_buf_puts(b, "error: "));
        BOX_TRY(box_escape_ids(b, w[i].w_msg, strlen(w[i].w_msg)));
        BOX_TRY(box_buf_putc(b, '\n'));
    }
    return BOX_OK;
}

static box_err
print_json(const box_ask *ak, const pdp_answer *ans, const box_ask_print *o,
           const why *w, size_t nw, box_buf *b)
{
    pdp_verdict v = pdp_answer_verdict(ans);
    BOX_TRY(box_buf_printf(b,
                           "{\"decision\":\"%s\",\"reason\":\"%s\","
                           "\"cedar\":\"%s\",\"rules\":[",
                           verdict_word(v),
                           pdp_reason_name(pdp_answer_reason(ans)),
                           verdict_word(pdp_answer_cedar_verdict(ans))));
    for (size_t i = 0; i < pdp_answer_determining_count(ans); i++) {
        if (i > 0)
            BOX_TRY(box_buf_putc(b, ','));
        BOX_TRY(put_id(b, pdp_answer_determining(ans, i), true));
    }
    size_t ml;
    const char *msg = pdp_answer_message(ans, &ml);
    BOX_TRY(box_buf_puts(b, "],\"message\":"));
    BOX_TRY(box_json_str(b, msg, ml));
    BOX_TRY(box_buf_puts(b, ",\"errors\":["));
    for (size_t i = 0; i < pdp_answer_error_count(ans); i++) {
        const pdp_rule *r = pdp_answer_error_rule(ans, i);
        BOX_TRY(box_buf_puts(b, i > 0 ? ",{\"rule\":" : "{\"rule\":"));
        BOX_TRY(r != NULL ? put_id(b, r, true) : box_buf_puts(b, "null"));
        BOX_TRY(box_buf_puts(b, ",\"message\":"));
        BOX_TRY(box_json_cstr(b, pdp_answer_error_message(ans, i)));
        BOX_TRY(box_buf_putc(b, '}'));
    }
    BOX_TRY(box_buf_putc(b, ']'));
    if (o->ap_history)
        BOX_TRY(box_buf_printf(b,
                               ",\"history\":%zu,\"time_point\":%zu,"
                               "\"ts\":%" PRId64,
                               ak->ak_history, ak->ak_at, ak->ak_ts));
    if (o->ap_explain) {
        BOX_TRY(box_buf_puts(b, ",\"why\":"));
        if (w == NULL)
            BOX_TRY(box_buf_puts(b, "null"));
        else
            BOX_TRY(box_buf_putc(b, '['));
        for (size_t i = 0; w != NULL && i < nw; i++) {
            const pdp_rule *r = w[i].w_rule;
            BOX_TRY(box_buf_puts(b, i > 0 ? ",{\"rule\":" : "{\"rule\":"));
            BOX_TRY(put_id(b, r, true));
            BOX_TRY(box_buf_printf(
                b,
                ",\"policy\":\"%s\",\"effect\":\"%s\","
                "\"line\":%u,\"result\":\"%s\"",
                r->r_pid.s, r->r_effect == PDP_PERMIT ? "permit" : "forbid",
                r->r_pos.line, w[i].w_error ? "error" : "matched"));
            if (w[i].w_error) {
                BOX_TRY(box_buf_puts(b, ",\"message\":"));
                BOX_TRY(box_json_cstr(b, w[i].w_msg));
            }
            BOX_TRY(box_buf_putc(b, '}'));
        }
        if (w != NULL)
            BOX_TRY(box_buf_putc(b, ']'));
    }
    return box_buf_puts(b, "}\n");
}

box_err
box_ask_print_answer(const pdp_policy_set *set, const box_ask *ak,
                     const pdp_answer *ans, const box_ask_print *o,
                     box_arena *scratch, box_buf *out)
{
    why *w = NULL;
    size_t nw = 0;
    box_err rv = o->ap_explain ? explain(set, ak, ans, scratch, &w, &nw)
                               : BOX_OK;
    if (rv == BOX_OK)
        rv = o->ap_json ? print_json(ak, ans, o, w, nw, out)
                        : print_text(set, ak, ans, o, w, nw, out);
    box_free(w);
    return rv;
}
