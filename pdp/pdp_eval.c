/* SPDX-License-Identifier: Apache-2.0 */
/* Tree-walking evaluator: scalars on the stack, aggregates borrowed. */
#include "pdp_eval.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pdp_ext.h"
#include "pdp_int.h"
#include "pdp_tl.h"

/*
 * An evaluation result (pdp_xv, shared with the extension table). Bool,
 * Long, decimal, datetime and duration are held by value so that most
 * nodes never allocate; strings, sets, records, entities and ipaddrs are
 * pointers into the request, the policy's constants or the scratch
 * arena.
 */
typedef pdp_xv ev;

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

static int
out_of_memory(ectx *c)
{
    return fail(c, "evaluation ran out of scratch memory");
}

static ev
ev_of(const pdp_value *v)
{
    ev x = {0};
    x.k = v->v_kind;
    if (v->v_kind == PDP_VAL_BOOL)
        x.u.b = v->u.b;
    else if (pdp_kind_is_i64(v->v_kind))
        x.u.l = v->u.l;
    else
        x.u.v = v;
    return x;
}

/* A pdp_value for x (scalars are built in the scratch arena). */
static int
materialize(ectx *c, const ev *x, const pdp_value **out)
{
    box_arena *a = c->ec_arena;
    switch (x->k) {
    case PDP_VAL_BOOL:
        *out = pdp_value_bool(a, x->u.b);
        break;
    case PDP_VAL_LONG:
        *out = pdp_value_long(a, x->u.l);
        break;
    case PDP_VAL_DECIMAL:
        *out = pdp_value_decimal(a, x->u.l);
        break;
    case PDP_VAL_DATETIME:
        *out = pdp_value_datetime(a, x->u.l);
        break;
    case PDP_VAL_DURATION:
        *out = pdp_value_duration(a, x->u.l);
        break;
    default:
        *out = x->u.v;
        break;
    }
    return *out == NULL ? out_of_memory(c) : 0;
}

static bool
ev_eq(const ev *a, const ev *b)
{
    if (a->k != b->k)
        return false;
    if (a->k == PDP_VAL_BOOL)
        return a->u.b == b->u.b;
    if (pdp_kind_is_i64(a->k))
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
    if (pdp_kind_is_i64(a->k))
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

/* "`E` does not have the attribute `a`" (what = "attribute" or "tag"). */
static int
entity_lacks(ectx *c, const pdp_value *ent, const char *what, const char *s,
             size_t n)
{
    return fail(c, "`%.*s::\"%.*s\"` does not have the %s `%.*s`",
                (int)ent->u.ent.tlen, ent->u.ent.type, (int)ent->u.ent.idlen,
                ent->u.ent.id, what, (int)n, s);
}

/* The attribute record of an entity in the store, or NULL. */
static const pdp_value *
entity_attrs(ectx *c, const pdp_value *ent, const pdp_entity **found)
{
    const pdp_entity *en = pdp_entities_find(c->ec_rq->rq_entities, ent);
    if (found != NULL)
        *found = en;
    return en != NULL && en->et_attrs != NULL &&
                   en->et_attrs->v_kind == PDP_VAL_RECORD
               ? en->et_attrs
               : NULL;
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
    if (obj->k == PDP_VAL_ENTITY) {
        const pdp_entity *en;
        const pdp_value *attrs = entity_attrs(c, obj->u.v, &en);
        if (en == NULL)
            return entity_missing(c, obj->u.v);
        const pdp_value *v =
            attrs != NULL ? pdp_value_get(attrs, name.s, name.len) : NULL;
        if (v == NULL)
            return entity_lacks(c, obj->u.v, "attribute", name.s, name.len);
        *out = ev_of(v);
        return 0;
    }
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
        const pdp_value *rec;
        if (x.k == PDP_VAL_ENTITY)
            rec = entity_attrs(c, x.u.v, NULL); // not in the store: none
        else if (x.k == PDP_VAL_RECORD)
            rec = x.u.v;
        else
            return type_err(c, "record or entity", &x);
        pdp_str nm = e->u.has.path[i];
        const pdp_value *v =
            rec != NULL ? pdp_value_get(rec, nm.s, nm.len) : NULL;
        if (v == NULL) {
            out->u.b = false;
            return 0;
        }
        x = ev_of(v);
    }
    out->u.b = true;
    return 0;
}

/*
 * Cedar evaluates both operands of a binary operator (but && and ||)
 * before it checks either's type, so in `decimal("1.0") < context.absent`
 * the missing attribute is the error, not the decimal: the operators
 * below do the same, so an error has Cedar's category (§3.2).
 */
static int
eval_arith(ectx *c, const pdp_expr *e, ev *out)
{
    int64_t a = 0, b = 0, r = 0;
    ev x = {0}, y = {0};
    if (eval(c, e->u.bin.l, &x) != 0 || eval(c, e->u.bin.r, &y) != 0)
        return EV_ERR;
    if (x.k != PDP_VAL_LONG)
        return type_err(c, "long", &x);
    if (y.k != PDP_VAL_LONG)
        return type_err(c, "long", &y);
    a = x.u.l;
    b = y.u.l;
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

/* l in r, l an entity: r an entity (l is r or below it), or a set whose
 * every element is an entity (checked even after a match). */
static int
in_rhs(ectx *c, const pdp_value *l, const ev *r, ev *out)
{
    out->k = PDP_VAL_BOOL;
    if (r->k == PDP_VAL_ENTITY) {
        if (pdp_entities_in(c->ec_rq->rq_entities, l, r->u.v, c->ec_arena,
                            &out->u.b) != BOX_OK)
            return out_of_memory(c);
        return 0;
    }
    if (r->k != PDP_VAL_SET)
        return type_err(c, "entity or set", r);
    bool found = false;
    for (uint32_t i = 0; i < r->u.v->v_n; i++) {
        const pdp_value *x = r->u.v->u.set.items[i];
        if (x->v_kind != PDP_VAL_ENTITY) {
            ev xe = ev_of(x);
            return type_err(c, "entity", &xe);
        }
        if (!found && pdp_entities_in(c->ec_rq->rq_entities, l, x,
                                      c->ec_arena, &found) != BOX_OK)
            return out_of_memory(c);
    }
    out->u.b = found;
    return 0;
}

static int
eval_in(ectx *c, const pdp_expr *e, ev *out)
{
    ev l = {0}, r = {0};
    if (eval(c, e->u.bin.l, &l) != 0 || eval(c, e->u.bin.r, &r) != 0)
        return EV_ERR;
    if (l.k != PDP_VAL_ENTITY)
        return type_err(c, "entity", &l);
    return in_rhs(c, l.u.v, &r, out);
}

/* e is T [in x] ≡ e is T && e in x: x is evaluated only on a type match. */
static int
eval_is(ectx *c, const pdp_expr *e, ev *out)
{
    ev x = {0}, r = {0};
    if (eval(c, e->u.is.obj, &x) != 0)
        return EV_ERR;
    if (x.k != PDP_VAL_ENTITY)
        return type_err(c, "entity", &x);
    pdp_str t = e->u.is.type;
    out->k = PDP_VAL_BOOL;
    out->u.b = x.u.v->u.ent.tlen == t.len &&
               pdp_bytes_eq(x.u.v->u.ent.type, t.s, t.len);
    if (!out->u.b || e->u.is.in == NULL)
        return 0;
    if (eval(c, e->u.is.in, &r) != 0)
        return EV_ERR;
    return in_rhs(c, x.u.v, &r, out);
}

/* The set methods: contains, containsAll, containsAny, isEmpty. */
static int
eval_set_method(ectx *c, const pdp_expr *e, ev *out)
{
    ev recv = {0}, arg = {0};
    /* Cedar evaluates both operands before it checks either. */
    if (eval(c, e->u.call.recv, &recv) != 0 ||
        (e->u.call.n > 0 && eval(c, e->u.call.args[0], &arg) != 0))
        return EV_ERR;
    if (recv.k != PDP_VAL_SET)
        return type_err(c, "set", &recv);
    const pdp_value *s = recv.u.v;
    out->k = PDP_VAL_BOOL;
    if (e->u.call.m == PDP_M_IS_EMPTY) {
        out->u.b = s->v_n == 0;
        return 0;
    }
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

/* e.hasTag(k) / e.getTag(k): the tags of e in the entity store (none
 * when e is not in it: hasTag is false, getTag an error). */
static int
eval_tag(ectx *c, const pdp_expr *e, ev *out)
{
    ev recv = {0}, key = {0};
    if (eval(c, e->u.call.recv, &recv) != 0 ||
        eval(c, e->u.call.args[0], &key) != 0)
        return EV_ERR;
    if (recv.k != PDP_VAL_ENTITY)
        return type_err(c, "entity", &recv);
    if (key.k != PDP_VAL_STRING)
        return type_err(c, "string", &key);
    const pdp_value *k = key.u.v;
    const pdp_entity *en =
        pdp_entities_find(c->ec_rq->rq_entities, recv.u.v);
    const pdp_value *tags = en != NULL && en->et_tags != NULL &&
                                    en->et_tags->v_kind == PDP_VAL_RECORD
                                ? en->et_tags
                                : NULL;
    const pdp_value *v =
        tags != NULL ? pdp_value_get(tags, k->u.str.s, k->u.str.len) : NULL;
    if (e->u.call.m == PDP_M_HAS_TAG) {
        out->k = PDP_VAL_BOOL;
        out->u.b = v != NULL;
        return 0;
    }
    if (en == NULL)
        return entity_missing(c, recv.u.v);
    if (v == NULL)
        return entity_lacks(c, recv.u.v, "tag", k->u.str.s, k->u.str.len);
    *out = ev_of(v);
    return 0;
}

/* An extension function or method (a row of pdp_ext.c's table with an
 * implementation): operands evaluated left to right, then their kinds
 * checked, then the operation. */
static int
eval_ext(ectx *c, const pdp_expr *e, ev *out)
{
    const pdp_ext_fn *f = pdp_ext_fn_of(e->u.call.m);
    const pdp_expr *recv_x = e->u.call.recv;
    const pdp_expr *const *args = e->u.call.args;
    uint32_t n = e->u.call.n;
    if (recv_x == NULL) { // a function: its argument is the operand
        recv_x = args[0];
        args++;
        n--;
    }
    ev r = {0}, x = {0};
    if (eval(c, recv_x, &r) != 0 || (n > 0 && eval(c, args[0], &x) != 0))
        return EV_ERR;
    if (r.k != f->xf_recv)
        return type_err(c, pdp_value_kind_name((pdp_value_kind)f->xf_recv), &r);
    if (n > 0 && f->xf_arg != PDP_XK_ANY && x.k != f->xf_arg)
        return type_err(c, pdp_value_kind_name((pdp_value_kind)f->xf_arg), &x);
    char why[PDP_EXT_MSG_MAX];
    box_err rv = f->xf_impl(&r, n > 0 ? &x : NULL, c->ec_arena, out, why,
                            sizeof(why));
    if (rv == BOX_EINVAL)
        return fail(c, "error while evaluating `%s` extension function: %s",
                    f->xf_ext, why);
    return rv == BOX_OK ? 0 : out_of_memory(c);
}

static int
eval_method(ectx *c, const pdp_expr *e, ev *out)
{
    switch (e->u.call.m) {
    case PDP_M_CONTAINS:
    case PDP_M_CONTAINS_ALL:
    case PDP_M_CONTAINS_ANY:
    case PDP_M_IS_EMPTY:
        return eval_set_method(c, e, out);
    case PDP_M_HAS_TAG:
    case PDP_M_GET_TAG:
        return eval_tag(c, e, out);
    default:
        if (pdp_ext_fn_of(e->u.call.m) == NULL ||
            pdp_ext_fn_of(e->u.call.m)->xf_impl == NULL)
            return fail(c, "internal error: no implementation of `%s`",
                        pdp_method_name(e->u.call.m));
        return eval_ext(c, e, out);
    }
}

/* <, <=, >, >=: both Long, both datetime or both duration. */
static int
eval_order(ectx *c, const pdp_expr *e, ev *out)
{
    ev a = {0}, b = {0};
    if (eval(c, e->u.bin.l, &a) != 0 || eval(c, e->u.bin.r, &b) != 0)
        return EV_ERR;
    if (a.k != PDP_VAL_LONG && a.k != PDP_VAL_DATETIME &&
        a.k != PDP_VAL_DURATION)
        return type_err(c, "long", &a);
    if (b.k != a.k)
        return type_err(c, pdp_value_kind_name((pdp_value_kind)a.k), &b);
    int64_t x = a.u.l, y = b.u.l;
    out->k = PDP_VAL_BOOL;
    out->u.b = e->x_kind == PDP_X_LT   ? x < y
               : e->x_kind == PDP_X_LE ? x <= y
               : e->x_kind == PDP_X_GT ? x > y
                                       : x >= y;
    return 0;
}

static int
eval_set(ectx *c, const pdp_expr *e, ev *out)
{
    pdp_value *s = pdp_value_set_new(c->ec_arena);
    if (s == NULL)
        return out_of_memory(c);
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

/* Byte order of two record keys, as Rust orders Strings. */
static int
key_cmp(pdp_str a, pdp_str b)
{
    int d = memcmp(a.s, b.s, a.len < b.len ? a.len : b.len);
    return d != 0 ? d : a.len < b.len ? -1 : a.len > b.len;
}

/*
 * A record literal's values are evaluated in the byte order of their keys,
 * not in source order: Cedar keeps a literal's fields sorted, so in
 * `{b: context.x, a: 1 + true}` the error is a's type error, as there
 * (found by tests/cedar_diff). The record keeps the source order.
 */
static int
eval_record(ectx *c, const pdp_expr *e, ev *out)
{
    uint32_t n = e->u.rec.n;
    const pdp_str *keys = e->u.rec.keys;
    pdp_value *r = pdp_value_record_new(c->ec_arena);
    uint32_t *order = box_arena_alloc(c->ec_arena, (n + 1) * sizeof(*order));
    const pdp_value **vals =
        box_arena_alloc(c->ec_arena, (n + 1) * sizeof(*vals));
    if (r == NULL || order == NULL || vals == NULL)
        return out_of_memory(c);
    for (uint32_t i = 0; i < n; i++) { // insertion sort: records are small
        uint32_t j = i;
        for (; j > 0 && key_cmp(keys[order[j - 1]], keys[i]) > 0; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (uint32_t k = 0; k < n; k++) {
        ev x = {0};
        uint32_t i = order[k];
        if (eval(c, e->u.rec.vals[i], &x) != 0 ||
            materialize(c, &x, &vals[i]) != 0)
            return EV_ERR;
    }
    for (uint32_t i = 0; i < n; i++) {
        if (pdp_value_record_put(c->ec_arena, r, keys[i].s, keys[i].len,
                                 vals[i]) != BOX_OK)
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
        .tn_pending = (pdp_tl_pending)rq->rq_pending,
        .tn_monitor = rq->rq_monitor,
        .tn_monitor_arg = rq->rq_monitor_arg,
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
    case PDP_X_GE:
        return eval_order(c, e, out);
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
    case PDP_X_CALL: // not folded: a computed or a bad argument
        return eval_ext(c, e, out);
    case PDP_X_IS:
        return eval_is(c, e, out);
    case PDP_X_COUNT:
        break;
    }
    return fail(c, "internal error: unknown expression kind %d", (int)e->x_kind);
}

/* v in one of sc's entities. */
static int
scope_in(ectx *c, const pdp_scope *sc, const pdp_value *v, bool *match)
{
    for (uint32_t i = 0; i < sc->sc_n && !*match; i++) {
        if (pdp_entities_in(c->ec_rq->rq_entities, v, sc->sc_ents[i],
                            c->ec_arena, match) != BOX_OK)
            return out_of_memory(c);
    }
    return 0;
}

/* The entity v against one scope constraint: *match. */
static int
scope_match(ectx *c, const pdp_scope *sc, const pdp_value *v, bool *match)
{
    *match = false;
    switch (sc->sc_op) {
    case PDP_SCOPE_ANY:
        *match = true;
        return 0;
    case PDP_SCOPE_EQ:
        *match = pdp_entity_eq(v, sc->sc_ents[0]);
        return 0;
    case PDP_SCOPE_IN:
    case PDP_SCOPE_IN_SET:
        return scope_in(c, sc, v, match);
    case PDP_SCOPE_IS:
    case PDP_SCOPE_IS_IN:
        if (v->u.ent.tlen != sc->sc_type.len ||
            !pdp_bytes_eq(v->u.ent.type, sc->sc_type.s, sc->sc_type.len))
            return 0;
        if (sc->sc_op == PDP_SCOPE_IS_IN)
            return scope_in(c, sc, v, match);
        *match = true;
        return 0;
    }
    return 0;
}

pdp_match
pdp_eval_rule(const pdp_rule *r, const pdp_request *rq, box_arena *scratch,
              char *msg, size_t msglen)
{
    ectx c = {rq, scratch, msg, msglen, r};
    bool p = false, a = false, res = false;
    if (scope_match(&c, &r->r_principal, rq->rq_principal, &p) != 0 ||
        (p && scope_match(&c, &r->r_action, rq->rq_action, &a) != 0) ||
        (p && a && scope_match(&c, &r->r_resource, rq->rq_resource, &res) != 0))
        return PDP_MATCH_ERROR;
    if (!p || !a || !res)
        return PDP_MATCH_NO;
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
