/* SPDX-License-Identifier: Apache-2.0 */
/* Tree-walking evaluator: scalars on the stack, aggregates borrowed. */
#include "pdp_eval.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pdp_int.h"
#include "pdp_tl.h"

/*
 * An evaluation result. Bool and Long are held by value so that most
 * nodes never allocate; strings, sets, records and entities are pointers
 * into the request, the policy's constants or the scratch arena.
 */
typedef struct ev {
    uint8_t k; // pdp_value_kind
    union {
        bool b;
        int64_t l;
        const pdp_value *v;
    } u;
} ev;

typedef struct ectx {
    const pdp_request *ec_rq;
    box_arena *ec_arena;
    char *ec_msg;
    size_t ec_msglen;
    const pdp_rule *ec_rule; // the rule being evaluated, or NULL
} ectx;

#define EV_ERR (-1)

static int eval(ectx *c, const pdp_expr *e, ev *out);

static int __attribute__((format(printf, 2, 3)))
fail(ectx *c, const char *fmt, ...)
{
    if (c->ec_msglen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(c->ec_msg, c->ec_msglen, fmt, ap);
        va_end(ap);
    }
    return EV_ERR;
}

/* Cedar's type names for messages; entities name their type. */
static const char *
type_name(const ev *x, char buf[160])
{
    if (x->k == PDP_VAL_ENTITY) {
        snprintf(buf, 160, "(entity of type `%.*s`)", (int)x->u.v->u.ent.tlen,
                 x->u.v->u.ent.type);
        return buf;
    }
    return pdp_value_kind_name((pdp_value_kind)x->k);
}

static int
type_err(ectx *c, const char *expected, const ev *got)
{
    char b[160];
    return fail(c, "type error: expected %s, got %s", expected,
                type_name(got, b));
}

static ev
ev_of(const pdp_value *v)
{
    ev x = {0};
    x.k = v->v_kind;
    if (v->v_kind == PDP_VAL_BOOL)
        x.u.b = v->u.b;
    else if (v->v_kind == PDP_VAL_LONG)
        x.u.l = v->u.l;
    else
        x.u.v = v;
    return x;
}

/* A pdp_value for x (scalars are built in the scratch arena). */
static int
materialize(ectx *c, const ev *x, const pdp_value **out)
{
    if (x->k == PDP_VAL_BOOL)
        *out = pdp_value_bool(c->ec_arena, x->u.b);
    else if (x->k == PDP_VAL_LONG)
        *out = pdp_value_long(c->ec_arena, x->u.l);
    else
        *out = x->u.v;
    if (*out == NULL)
        return fail(c, "evaluation ran out of scratch memory");
    return 0;
}

static bool
ev_eq(const ev *a, const ev *b)
{
    if (a->k != b->k)
        return false;
    if (a->k == PDP_VAL_BOOL)
        return a->u.b == b->u.b;
    if (a->k == PDP_VAL_LONG)
        return a->u.l == b->u.l;
    return pdp_value_equal(a->u.v, b->u.v);
}

static bool
ev_eq_value(const ev *a, const pdp_value *v)
{
    if (a->k != v->v_kind)
        return false;
    if (a->k == PDP_VAL_BOOL)
        return a->u.b == v->u.b;
    if (a->k == PDP_VAL_LONG)
        return a->u.l == v->u.l;
    return pdp_value_equal(a->u.v, v);
}

static bool
set_contains(const pdp_value *set, const pdp_value *x)
{
    for (uint32_t i = 0; i < set->v_n; i++) {
        if (pdp_value_equal(set->u.set.items[i], x))
            return true;
    }
    return false;
}

static int
eval_bool(ectx *c, const pdp_expr *e, bool *out)
{
    ev x = {0};
    if (eval(c, e, &x) != 0)
        return EV_ERR;
    if (x.k != PDP_VAL_BOOL)
        return type_err(c, "bool", &x);
    *out = x.u.b;
    return 0;
}

static int
eval_long(ectx *c, const pdp_expr *e, int64_t *out)
{
    ev x = {0};
    if (eval(c, e, &x) != 0)
        return EV_ERR;
    if (x.k != PDP_VAL_LONG)
        return type_err(c, "long", &x);
    *out = x.u.l;
    return 0;
}

/* Glob match over bytes; equivalent to matching per Unicode scalar since
 * both sides are well-formed UTF-8 and literals are whole characters. */
static bool
like_match(const char *s, size_t n, const pdp_pattern *p)
{
    size_t si = 0, pi = 0, star_pi = SIZE_MAX, star_si = 0;
    while (si < n) {
        if (pi < p->len && p->wild[pi]) {
            star_pi = pi++;
            star_si = si;
        } else if (pi < p->len && p->bytes[pi] == s[si]) {
            si++;
            pi++;
        } else if (star_pi != SIZE_MAX) {
            pi = star_pi + 1;
            si = ++star_si;
        } else {
            return false;
        }
    }
    while (pi < p->len && p->wild[pi])
        pi++;
    return pi == p->len;
}

static int
entity_missing(ectx *c, const pdp_value *ent)
{
    return fail(c, "entity `%.*s::\"%.*s\"` does not exist",
                (int)ent->u.ent.tlen, ent->u.ent.type, (int)ent->u.ent.idlen,
                ent->u.ent.id);
}

static int
get_attr(ectx *c, const ev *obj, pdp_str name, ev *out)
{
    if (obj->k == PDP_VAL_RECORD) {
        const pdp_value *v = pdp_value_get(obj->u.v, name.s, name.len);
        if (v == NULL)
            return fail(c, "record does not have the attribute `%.*s`",
                        (int)name.len, name.s);
        *out = ev_of(v);
        return 0;
    }
    if (obj->k == PDP_VAL_ENTITY) // Box has no entity store
        return entity_missing(c, obj->u.v);
    return type_err(c, "record or entity", obj);
}

static int
eval_has(ectx *c, const pdp_expr *e, ev *out)
{
    ev x = {0};
    if (eval(c, e->u.has.obj, &x) != 0)
        return EV_ERR;
    out->k = PDP_VAL_BOOL;
    for (uint32_t i = 0; i < e->u.has.n; i++) {
        if (x.k == PDP_VAL_ENTITY) {
            out->u.b = false;
            return 0;
        }
        if (x.k != PDP_VAL_RECORD)
            return type_err(c, "record or entity", &x);
        pdp_str nm = e->u.has.path[i];
        const pdp_value *v = pdp_value_get(x.u.v, nm.s, nm.len);
        if (v == NULL) {
            out->u.b = false;
            return 0;
        }
        x = ev_of(v);
    }
    out->u.b = true;
    return 0;
}

static int
eval_arith(ectx *c, const pdp_expr *e, ev *out)
{
    int64_t a = 0, b = 0, r = 0;
    if (eval_long(c, e->u.bin.l, &a) != 0 || eval_long(c, e->u.bin.r, &b) != 0)
        return EV_ERR;
    bool ovf;
    const char *verb;
    switch (e->x_kind) {
    case PDP_X_ADD:
        ovf = __builtin_add_overflow(a, b, &r), verb = "add";
        break;
    case PDP_X_SUB:
        ovf = __builtin_sub_overflow(a, b, &r), verb = "subtract";
        break;
    default:
        ovf = __builtin_mul_overflow(a, b, &r), verb = "multiply";
        break;
    }
    if (ovf)
        return fail(c, "integer overflow while attempting to %s the values "
                    "`%lld` and `%lld`", verb, (long long)a, (long long)b);
    out->k = PDP_VAL_LONG;
    out->u.l = r;
    return 0;
}

static int
eval_in(ectx *c, const pdp_expr *e, ev *out)
{
    ev l = {0}, r = {0};
    if (eval(c, e->u.bin.l, &l) != 0)
        return EV_ERR;
    if (l.k != PDP_VAL_ENTITY)
        return type_err(c, "entity", &l);
    if (eval(c, e->u.bin.r, &r) != 0)
        return EV_ERR;
    out->k = PDP_VAL_BOOL;
    if (r.k == PDP_VAL_ENTITY) {
        /* No hierarchy in Box: `in` is equality. */
        out->u.b = pdp_entity_eq(l.u.v, r.u.v);
        return 0;
    }
    if (r.k != PDP_VAL_SET)
        return type_err(c, "entity or set", &r);
    bool found = false;
    for (uint32_t i = 0; i < r.u.v->v_n; i++) {
        const pdp_value *x = r.u.v->u.set.items[i];
        if (x->v_kind != PDP_VAL_ENTITY) {
            ev xe = ev_of(x);
            return type_err(c, "entity", &xe);
        }
        found = found || pdp_entity_eq(l.u.v, x);
    }
    out->u.b = found;
    return 0;
}

static int
eval_method(ectx *c, const pdp_expr *e, ev *out)
{
    ev recv = {0};
    if (eval(c, e->u.call.recv, &recv) != 0)
        return EV_ERR;
    if (recv.k != PDP_VAL_SET)
        return type_err(c, "set", &recv);
    const pdp_value *s = recv.u.v;
    out->k = PDP_VAL_BOOL;
    if (e->u.call.m == PDP_M_IS_EMPTY) {
        out->u.b = s->v_n == 0;
        return 0;
    }
    ev arg = {0};
    if (eval(c, e->u.call.args[0], &arg) != 0)
        return EV_ERR;
    if (e->u.call.m == PDP_M_CONTAINS) {
        bool found = false;
        for (uint32_t i = 0; i < s->v_n && !found; i++)
            found = ev_eq_value(&arg, s->u.set.items[i]);
        out->u.b = found;
        return 0;
    }
    if (arg.k != PDP_VAL_SET)
        return type_err(c, "set", &arg);
    const pdp_value *t = arg.u.v;
    if (e->u.call.m == PDP_M_CONTAINS_ALL) {
        bool all = true;
        for (uint32_t i = 0; i < t->v_n && all; i++)
            all = set_contains(s, t->u.set.items[i]);
        out->u.b = all;
    } else {
        bool any = false;
        for (uint32_t i = 0; i < t->v_n && !any; i++)
            any = set_contains(s, t->u.set.items[i]);
        out->u.b = any;
    }
    return 0;
}

static int
eval_set(ectx *c, const pdp_expr *e, ev *out)
{
    pdp_value *s = pdp_value_set_new(c->ec_arena);
    if (s == NULL)
        return fail(c, "evaluation ran out of scratch memory");
    for (uint32_t i = 0; i < e->u.list.n; i++) {
        ev x = {0};
        const pdp_value *v;
        if (eval(c, e->u.list.items[i], &x) != 0 || materialize(c, &x, &v) != 0)
            return EV_ERR;
        if (pdp_value_set_add(c->ec_arena, s, v) != BOX_OK)
            return fail(c, "set literal is too large or too deep");
    }
    out->k = PDP_VAL_SET;
    out->u.v = s;
    return 0;
}

static int
eval_record(ectx *c, const pdp_expr *e, ev *out)
{
    pdp_value *r = pdp_value_record_new(c->ec_arena);
    if (r == NULL)
        return fail(c, "evaluation ran out of scratch memory");
    for (uint32_t i = 0; i < e->u.rec.n; i++) {
        ev x = {0};
        const pdp_value *v;
        if (eval(c, e->u.rec.vals[i], &x) != 0 || materialize(c, &x, &v) != 0)
            return EV_ERR;
        if (pdp_value_record_put(c->ec_arena, r, e->u.rec.keys[i].s,
                                 e->u.rec.keys[i].len, v) != BOX_OK)
            return fail(c, "record literal is too large or too deep");
    }
    out->k = PDP_VAL_RECORD;
    out->u.v = r;
    return 0;
}


/* A temporal block: decided over the request's history at its decision
 * timepoint (dogwood-spec §4.4). Without a history it cannot be decided,
 * which is an error (the rule is skipped, and Box denies: §1.5). */
static int
eval_temporal(ectx *c, const pdp_expr *e, ev *out)
{
    const pdp_request *rq = c->ec_rq;
    if (rq->rq_hist == NULL)
        return fail(c, "a temporal condition needs the history, and this "
                       "decision has none");
    uint64_t since = rq->rq_since != NULL && c->ec_rule != NULL
                         ? rq->rq_since[c->ec_rule->r_index]
                         : 0;
    uint64_t base = pdp_hist_base(rq->rq_hist);
    pdp_tl_now now = {
        .tn_hist = rq->rq_hist,
        .tn_at = rq->rq_at,
        .tn_from = since > base ? (size_t)(since - base) : 0,
        .tn_principal = rq->rq_principal,
        .tn_resource = rq->rq_resource,
        .tn_context = rq->rq_context,
    };
    bool holds = false;
    if (pdp_tl_holds(e->u.tl, &now, c->ec_arena, &holds) != BOX_OK)
        return fail(c, "the temporal condition outgrew its evaluation "
                       "memory");
    out->k = PDP_VAL_BOOL;
    out->u.b = holds;
    return 0;
}

static int
eval(ectx *c, const pdp_expr *e, ev *out)
{
    if (e->x_const != NULL) {
        *out = ev_of(e->x_const);
        return 0;
    }
    const pdp_request *rq = c->ec_rq;
    ev a = {0}, b = {0};
    switch (e->x_kind) {
    case PDP_X_LIT: // always constant; kept for completeness
        return fail(c, "internal error: literal without a value");
    case PDP_X_VAR: {
        const pdp_value *v = e->u.var == PDP_VAR_PRINCIPAL ? rq->rq_principal
                             : e->u.var == PDP_VAR_ACTION  ? rq->rq_action
                             : e->u.var == PDP_VAR_RESOURCE ? rq->rq_resource
                                                            : rq->rq_context;
        *out = ev_of(v);
        return 0;
    }
    case PDP_X_NOT: {
        bool x = false;
        if (eval_bool(c, e->u.un.arg, &x) != 0)
            return EV_ERR;
        out->k = PDP_VAL_BOOL;
        out->u.b = !x;
        return 0;
    }
    case PDP_X_NEG: {
        int64_t x = 0;
        if (eval_long(c, e->u.un.arg, &x) != 0)
            return EV_ERR;
        if (x == INT64_MIN)
            return fail(c, "integer overflow while attempting to negate the "
                        "value `%lld`", (long long)x);
        out->k = PDP_VAL_LONG;
        out->u.l = -x;
        return 0;
    }
    case PDP_X_AND:
    case PDP_X_OR: {
        bool want = e->x_kind == PDP_X_OR; // the value that short-circuits
        out->k = PDP_VAL_BOOL;
        for (uint32_t i = 0; i < e->u.list.n; i++) {
            bool x = false;
            if (eval_bool(c, e->u.list.items[i], &x) != 0)
                return EV_ERR;
            if (x == want) {
                out->u.b = want;
                return 0;
            }
        }
        out->u.b = !want;
        return 0;
    }
    case PDP_X_EQ:
    case PDP_X_NE:
        if (eval(c, e->u.bin.l, &a) != 0 || eval(c, e->u.bin.r, &b) != 0)
            return EV_ERR;
        out->k = PDP_VAL_BOOL;
        out->u.b = ev_eq(&a, &b) == (e->x_kind == PDP_X_EQ);
        return 0;
    case PDP_X_LT:
    case PDP_X_LE:
    case PDP_X_GT:
    case PDP_X_GE: {
        int64_t x = 0, y = 0;
        if (eval_long(c, e->u.bin.l, &x) != 0 ||
            eval_long(c, e->u.bin.r, &y) != 0)
            return EV_ERR;
        out->k = PDP_VAL_BOOL;
        out->u.b = e->x_kind == PDP_X_LT   ? x < y
                   : e->x_kind == PDP_X_LE ? x <= y
                   : e->x_kind == PDP_X_GT ? x > y
                                           : x >= y;
        return 0;
    }
    case PDP_X_IN:
        return eval_in(c, e, out);
    case PDP_X_ADD:
    case PDP_X_SUB:
    case PDP_X_MUL:
        return eval_arith(c, e, out);
    case PDP_X_HAS:
        return eval_has(c, e, out);
    case PDP_X_LIKE:
        if (eval(c, e->u.like.obj, &a) != 0)
            return EV_ERR;
        if (a.k != PDP_VAL_STRING)
            return type_err(c, "string", &a);
        out->k = PDP_VAL_BOOL;
        out->u.b = like_match(a.u.v->u.str.s, a.u.v->u.str.len, &e->u.like.pat);
        return 0;
    case PDP_X_ATTR:
        if (eval(c, e->u.attr.obj, &a) != 0)
            return EV_ERR;
        return get_attr(c, &a, e->u.attr.name, out);
    case PDP_X_IF: {
        bool x = false;
        if (eval_bool(c, e->u.cond.c, &x) != 0)
            return EV_ERR;
        return eval(c, x ? e->u.cond.t : e->u.cond.e, out);
    }
    case PDP_X_SET:
        return eval_set(c, e, out);
    case PDP_X_RECORD:
        return eval_record(c, e, out);
    case PDP_X_METHOD:
        return eval_method(c, e, out);
    case PDP_X_TEMPORAL:
        return eval_temporal(c, e, out);
    case PDP_X_COUNT:
        break;
    }
    return fail(c, "internal error: unknown expression kind %d", (int)e->x_kind);
}

static bool
scope_match(const pdp_scope *sc, const pdp_value *v)
{
    switch (sc->sc_op) {
    case PDP_SCOPE_ANY:
        return true;
    case PDP_SCOPE_EQ:
    case PDP_SCOPE_IN: // no hierarchy in Box: `in E` is `== E`
        return pdp_entity_eq(v, sc->sc_ents[0]);
    case PDP_SCOPE_IN_SET:
        for (uint32_t i = 0; i < sc->sc_n; i++) {
            if (pdp_entity_eq(v, sc->sc_ents[i]))
                return true;
        }
        return false;
    }
    return false;
}

pdp_match
pdp_eval_rule(const pdp_rule *r, const pdp_request *rq, box_arena *scratch,
              char *msg, size_t msglen)
{
    if (!scope_match(&r->r_principal, rq->rq_principal) ||
        !scope_match(&r->r_action, rq->rq_action) ||
        !scope_match(&r->r_resource, rq->rq_resource))
        return PDP_MATCH_NO;
    ectx c = {rq, scratch, msg, msglen, r};
    for (uint32_t i = 0; i < r->r_nconds; i++) {
        bool x = false;
        if (eval_bool(&c, r->r_conds[i].cd_body, &x) != 0)
            return PDP_MATCH_ERROR;
        if (x != (r->r_conds[i].cd_kind == PDP_COND_WHEN))
            return PDP_MATCH_NO;
    }
    return PDP_MATCH_YES;
}

box_err
pdp_eval_expr(const pdp_expr *e, const pdp_request *rq, box_arena *scratch,
              const pdp_value **out, char *msg, size_t msglen)
{
    ectx c = {rq, scratch, msg, msglen, NULL};
    ev x = {0};
    *out = NULL;
    if (eval(&c, e, &x) != 0 || materialize(&c, &x, out) != 0)
        return BOX_EINVAL;
    return BOX_OK;
}
