/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The legality check of a temporal leaf (dogwood-spec §4.7): what Dogwood
 * refuses when it parses a leaf (its binding checks) and the schema-free
 * part of what its validator refuses (timepoint dependence, the window
 * cap). It reads the tree and allocates only from its own scratch arena;
 * it decides nothing about a request.
 *
 * Sets of variable names (free variables, range-restricted ones, what a
 * chain has restricted so far, the binders in scope) are stacks: a scope
 * pushes entries and cuts the stack back when it ends, and a binder that
 * shadows a name pushes an entry that removes it. The topmost entry for
 * a name decides. Where Dogwood names "the" variable of a set, it names
 * the least in byte order (its sets are ordered), and so does this file.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pdp_tl_check.h"

// printf arguments for a pdp_str printed with "%.*s"
#define STR(x) (int)(x).len, (x).s

/* One name of a set: where it was first seen, and whether the entry
 * removes the name (a shadowing binder) instead of adding it. */
typedef struct tc_var {
    pdp_str v_name;
    pdp_pos v_pos;
    bool v_gone;
} tc_var;

typedef struct tc_set {
    tc_var *s_v;
    size_t s_n, s_cap;
} tc_set;

typedef struct tc_ctx {
    box_arena *a; // scratch
    const char *file;
    box_buf *err;
    pdp_tl_sink sink; // when set, every finding goes to it instead
    void *sink_arg;
} tc_ctx;

/* ---- messages ---- */

/* The first finding as the refusal in err (BOX_EPARSE); or, with a sink,
 * each finding to the sink, the walk going on while it returns BOX_OK. */
static box_err __attribute__((format(printf, 3, 4)))
refuse(tc_ctx *c, pdp_pos pos, const char *fmt, ...)
{
    if (c->sink != NULL) {
        box_buf m;
        box_buf_init(&m, 1u << 16);
        va_list ap;
        va_start(ap, fmt);
        box_err rv = box_buf_vprintf(&m, fmt, ap);
        va_end(ap);
        if (rv == BOX_OK || rv == BOX_ETOOBIG) // a cut text still counts
            rv = m.b_data != NULL ? c->sink(c->sink_arg, pos, m.b_data)
                                  : BOX_ENOMEM;
        box_buf_reset(&m);
        return rv;
    }
    box_buf_reset(c->err);
    if (box_buf_printf(c->err, "%s:%u:%u: ", c->file, pos.line, pos.col) !=
        BOX_OK)
        return BOX_EPARSE;
    va_list ap;
    va_start(ap, fmt);
    box_err rv = box_buf_vprintf(c->err, fmt, ap);
    va_end(ap);
    (void)rv; // a message cut by the buffer cap is still a refusal
    return BOX_EPARSE;
}

/* ---- name sets ---- */

static bool
name_eq(pdp_str x, pdp_str y)
{
    return x.len == y.len && memcmp(x.s, y.s, x.len) == 0;
}

/* Byte order, a prefix first: how Dogwood's ordered sets sort names. */
static int
name_cmp(pdp_str x, pdp_str y)
{
    int r = memcmp(x.s, y.s, x.len < y.len ? x.len : y.len);
    if (r != 0)
        return r;
    return x.len < y.len ? -1 : x.len > y.len;
}

static box_err
set_push(tc_ctx *c, tc_set *s, pdp_str name, pdp_pos pos, bool gone)
{
    if (s->s_n == s->s_cap) {
        size_t nc = s->s_cap ? s->s_cap * 2 : 16;
        tc_var *nv = box_arena_alloc(c->a, nc * sizeof *nv);
        if (nv == NULL)
            return BOX_ENOMEM;
        if (s->s_n > 0)
            memcpy(nv, s->s_v, s->s_n * sizeof *nv);
        s->s_v = nv;
        s->s_cap = nc;
    }
    s->s_v[s->s_n++] = (tc_var){name, pos, gone};
    return BOX_OK;
}

static bool
set_has(const tc_set *s, pdp_str name)
{
    for (size_t i = s->s_n; i-- > 0;)
        if (name_eq(s->s_v[i].v_name, name))
            return !s->s_v[i].v_gone;
    return false;
}

/* Removes name from the entries pushed since mark (a binder closing over
 * what its body collected); older entries stay. */
static void
set_drop_since(tc_set *s, size_t mark, pdp_str name)
{
    size_t k = mark;
    for (size_t i = mark; i < s->s_n; i++)
        if (!name_eq(s->s_v[i].v_name, name))
            s->s_v[k++] = s->s_v[i];
    s->s_n = k;
}

/* The least name of need that neither have nor also (when not NULL)
 * holds, at its first place; NULL when there is none. */
static const tc_var *
first_missing(const tc_set *need, const tc_set *have, const tc_set *also)
{
    const tc_var *best = NULL;
    for (size_t i = 0; i < need->s_n; i++) {
        const tc_var *v = &need->s_v[i];
        if (v->v_gone || set_has(have, v->v_name) ||
            (also != NULL && set_has(also, v->v_name)))
            continue;
        if (best == NULL || name_cmp(v->v_name, best->v_name) < 0)
            best = v;
    }
    return best;
}

/* ---- what a condition binds and reads ---- */

static bool
is_agg(const pdp_tterm *t)
{
    return t->tt_kind == PDP_TT_COUNT || t->tt_kind == PDP_TT_SUM;
}

static box_err free_vars(tc_ctx *c, const pdp_tl *t, tc_set *out);

/* The variables a term reads; an aggregate reads those free in its body
 * that its `for` list does not bind (its summand is no read). */
static box_err
term_vars(tc_ctx *c, const pdp_tterm *t, tc_set *out)
{
    switch (t->tt_kind) {
    case PDP_TT_VAR:
        return set_push(c, out, t->tt_name, t->tt_pos, false);
    case PDP_TT_ARRAY:
        for (uint32_t i = 0; i < t->tt_nitems; i++)
            BOX_TRY(term_vars(c, t->tt_items[i], out));
        return BOX_OK;
    case PDP_TT_COUNT:
    case PDP_TT_SUM: {
        size_t mark = out->s_n;
        BOX_TRY(free_vars(c, t->tt_agg->ta_where, out));
        for (uint32_t i = 0; i < t->tt_agg->ta_nfor; i++)
            set_drop_since(out, mark, t->tt_agg->ta_for[i].tb_name);
        return BOX_OK;
    }
    default:
        return BOX_OK;
    }
}

/* fv(φ): every variable read by a predicate field, a comparison or a
 * `tp`, less what an enclosed binder binds. */
static box_err
free_vars(tc_ctx *c, const pdp_tl *t, tc_set *out)
{
    switch (t->tl_kind) {
    case PDP_TL_AND:
    case PDP_TL_SINCE:
        BOX_TRY(free_vars(c, t->tl_l, out));
        return free_vars(c, t->tl_r, out);
    case PDP_TL_NOT:
    case PDP_TL_FORMERLY:
    case PDP_TL_PREVIOUS:
        return free_vars(c, t->tl_l, out);
    case PDP_TL_PRED:
        for (uint32_t i = 0; i < t->tl_nargs; i++)
            BOX_TRY(term_vars(c, t->tl_args[i].ta_term, out));
        return BOX_OK;
    case PDP_TL_CMP:
        BOX_TRY(term_vars(c, t->tl_a, out));
        return term_vars(c, t->tl_b, out);
    case PDP_TL_TP:
        return set_push(c, out, t->tl_binder.tb_name, t->tl_binder.tb_pos,
                        false);
    case PDP_TL_EXISTS: {
        size_t mark = out->s_n;
        BOX_TRY(free_vars(c, t->tl_l, out));
        set_drop_since(out, mark, t->tl_binder.tb_name);
        return BOX_OK;
    }
    }
    return BOX_OK;
}

/* The variable a binding equality binds: `x == v` or `v == x` with
 * exactly one side a variable and the other no wildcard. */
static const pdp_tterm *
eq_binds(const pdp_tl *t)
{
    if (t->tl_kind != PDP_TL_CMP || t->tl_op != PDP_TOP_EQ)
        return NULL;
    bool av = t->tl_a->tt_kind == PDP_TT_VAR;
    bool bv = t->tl_b->tt_kind == PDP_TT_VAR;
    if (av && !bv && t->tl_b->tt_kind != PDP_TT_WILD)
        return t->tl_a;
    if (bv && !av && t->tl_a->tt_kind != PDP_TT_WILD)
        return t->tl_b;
    return NULL;
}

/*
 * RR(φ): the variables a positive atom restricts — a predicate field
 * `P{f: x}`, `tp(x)`, a binding equality — through `&&`, the bodies of
 * formerly/previous, the right of since and nested exists (less its
 * binder). Nothing under a negation, at any depth.
 */
static box_err
restricted(tc_ctx *c, const pdp_tl *t, tc_set *out)
{
    switch (t->tl_kind) {
    case PDP_TL_AND:
        BOX_TRY(restricted(c, t->tl_l, out));
        return restricted(c, t->tl_r, out);
    case PDP_TL_NOT:
        return BOX_OK;
    case PDP_TL_PRED:
        for (uint32_t i = 0; i < t->tl_nargs; i++) {
            const pdp_tterm *v = t->tl_args[i].ta_term;
            if (v->tt_kind == PDP_TT_VAR)
                BOX_TRY(set_push(c, out, v->tt_name, v->tt_pos, false));
        }
        return BOX_OK;
    case PDP_TL_TP:
        return set_push(c, out, t->tl_binder.tb_name, t->tl_binder.tb_pos,
                        false);
    case PDP_TL_CMP: {
        const pdp_tterm *x = eq_binds(t);
        return x != NULL ? set_push(c, out, x->tt_name, x->tt_pos, false)
                         : BOX_OK;
    }
    case PDP_TL_FORMERLY:
    case PDP_TL_PREVIOUS:
        return restricted(c, t->tl_l, out);
    case PDP_TL_SINCE:
        return restricted(c, t->tl_r, out);
    case PDP_TL_EXISTS: {
        size_t mark = out->s_n;
        BOX_TRY(restricted(c, t->tl_l, out));
        set_drop_since(out, mark, t->tl_binder.tb_name);
        return BOX_OK;
    }
    }
    return BOX_OK;
}

/* ---- binders, aggregates, exists (Dogwood's one walk) ---- */

static box_err
reserved(tc_ctx *c, const pdp_tbinder *b)
{
    static const char *const names[] = {"principal", "action", "resource",
                                        "context"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (b->tb_name.len == strlen(names[i]) &&
            memcmp(b->tb_name.s, names[i], b->tb_name.len) == 0)
            return refuse(c, b->tb_pos,
                          "`%.*s` is a reserved word and cannot be used as a "
                          "binder name; `principal`, `action`, `resource`, "
                          "and `context` are the Cedar request variables — "
                          "rename the `exists` / `for` / `tp` variable",
                          STR(b->tb_name));
    return BOX_OK;
}

/* WF-Agg-Operand: no aggregate in a term that is not itself the
 * operand of a comparison (a predicate field, an array item). */
static box_err
no_agg(tc_ctx *c, const pdp_tterm *t)
{
    if (is_agg(t))
        return refuse(c, t->tt_pos,
                      "an aggregate (`sum`/`count`) may appear only as the "
                      "immediate operand of a comparison, not as a "
                      "predicate-argument value or nested in another term");
    if (t->tt_kind == PDP_TT_ARRAY)
        for (uint32_t i = 0; i < t->tt_nitems; i++)
            BOX_TRY(no_agg(c, t->tt_items[i]));
    return BOX_OK;
}

/* "a, b, c": the names of a `for` list, for messages. */
static const char *
for_list(tc_ctx *c, const pdp_tagg *g)
{
    size_t n = 1;
    for (uint32_t i = 0; i < g->ta_nfor; i++)
        n += g->ta_for[i].tb_name.len + 2;
    char *s = box_arena_alloc(c->a, n);
    if (s == NULL)
        return NULL;
    size_t k = 0;
    for (uint32_t i = 0; i < g->ta_nfor; i++) {
        if (i > 0) {
            memcpy(s + k, ", ", 2);
            k += 2;
        }
        memcpy(s + k, g->ta_for[i].tb_name.s, g->ta_for[i].tb_name.len);
        k += g->ta_for[i].tb_name.len;
    }
    s[k] = '\0';
    return s;
}

static box_err binders(tc_ctx *c, const pdp_tl *t, tc_set *bound);

/*
 * One aggregate, bound holding the enclosing binders: reserved `for`
 * names, the summand among the `for` binders (InDomain), every body
 * variable bound (Binds-FreeVars), every `for` variable read (Occurs)
 * and range-restricted (RR) by the body; then the body itself.
 */
static box_err
aggregate(tc_ctx *c, const pdp_tterm *t, tc_set *bound)
{
    const pdp_tagg *g = t->tt_agg;
    for (uint32_t i = 0; i < g->ta_nfor; i++)
        BOX_TRY(reserved(c, &g->ta_for[i]));
    const char *list = for_list(c, g);
    if (list == NULL)
        return BOX_ENOMEM;
    if (t->tt_kind == PDP_TT_SUM) {
        bool in = false;
        for (uint32_t i = 0; i < g->ta_nfor; i++)
            in = in || name_eq(g->ta_for[i].tb_name, g->ta_sum);
        if (!in)
            return refuse(c, t->tt_pos,
                          "aggregation sums `%.*s`, which is not one of its "
                          "`for` binders (%s); the summed variable must "
                          "appear in the `for` list (the sum is computed "
                          "over the `for` columns)",
                          STR(g->ta_sum), list);
    }
    size_t mark = bound->s_n;
    for (uint32_t i = 0; i < g->ta_nfor; i++)
        BOX_TRY(set_push(c, bound, g->ta_for[i].tb_name, g->ta_for[i].tb_pos,
                         false));
    tc_set fv = {0};
    BOX_TRY(free_vars(c, g->ta_where, &fv));
    const tc_var *u = first_missing(&fv, bound, NULL);
    if (u != NULL)
        return refuse(c, u->v_pos,
                      "variable `%.*s` is used in the aggregation body but "
                      "is bound by neither the `for` list (%s) nor an "
                      "enclosing binder; add it to the `for` list",
                      STR(u->v_name), list);
    for (uint32_t i = 0; i < g->ta_nfor; i++)
        if (!set_has(&fv, g->ta_for[i].tb_name))
            return refuse(c, g->ta_for[i].tb_pos,
                          "`for`-variable `%.*s` does not occur in the "
                          "aggregation body (%s); a group-by variable must "
                          "be used in the `where` body, otherwise the "
                          "grouping ranges over an unbounded domain",
                          STR(g->ta_for[i].tb_name), list);
    tc_set rr = {0};
    BOX_TRY(restricted(c, g->ta_where, &rr));
    for (uint32_t i = 0; i < g->ta_nfor; i++) {
        pdp_str x = g->ta_for[i].tb_name;
        if (!set_has(&rr, x))
            return refuse(c, g->ta_for[i].tb_pos,
                          "aggregation `for`-variable `%.*s` is not "
                          "range-restricted by any positive atom in the "
                          "`where` body; bind it with a predicate field "
                          "(`P{ f: %.*s }`), a `tp(%.*s)`, or an equality "
                          "(`(count …) == %.*s`) — an occurrence under a "
                          "negation or in the left operand of a `since` does "
                          "not restrict",
                          STR(x), STR(x), STR(x), STR(x));
    }
    BOX_TRY(binders(c, g->ta_where, bound));
    bound->s_n = mark;
    return BOX_OK;
}

static box_err
operand(tc_ctx *c, const pdp_tterm *t, tc_set *bound)
{
    return is_agg(t) ? aggregate(c, t, bound) : no_agg(c, t);
}

/* WF-Exists: the binder is range-restricted by its body. */
static box_err
exists_safe(tc_ctx *c, const pdp_tl *t)
{
    tc_set rr = {0};
    BOX_TRY(restricted(c, t->tl_l, &rr));
    pdp_str x = t->tl_binder.tb_name;
    if (set_has(&rr, x))
        return BOX_OK;
    return refuse(c, t->tl_binder.tb_pos,
                  "existential variable `%.*s` is not range-restricted by "
                  "any positive atom in the `exists` body; bind it with a "
                  "predicate field (`P{ f: %.*s }`), a `tp(%.*s)`, or an "
                  "equality (`(count …) == %.*s`)",
                  STR(x), STR(x), STR(x), STR(x));
}

/* The walk that checks binders and aggregates where they stand, in tree
 * order (so the first offending construct is the one reported). */
static box_err
binders(tc_ctx *c, const pdp_tl *t, tc_set *bound)
{
    switch (t->tl_kind) {
    case PDP_TL_AND:
    case PDP_TL_SINCE:
        BOX_TRY(binders(c, t->tl_l, bound));
        return binders(c, t->tl_r, bound);
    case PDP_TL_NOT:
    case PDP_TL_FORMERLY:
    case PDP_TL_PREVIOUS:
        return binders(c, t->tl_l, bound);
    case PDP_TL_EXISTS: {
        BOX_TRY(reserved(c, &t->tl_binder));
        BOX_TRY(exists_safe(c, t));
        size_t mark = bound->s_n;
        BOX_TRY(set_push(c, bound, t->tl_binder.tb_name, t->tl_binder.tb_pos,
                         false));
        BOX_TRY(binders(c, t->tl_l, bound));
        bound->s_n = mark;
        return BOX_OK;
    }
    case PDP_TL_CMP:
        BOX_TRY(operand(c, t->tl_a, bound));
        return operand(c, t->tl_b, bound);
    case PDP_TL_PRED:
        for (uint32_t i = 0; i < t->tl_nargs; i++)
            BOX_TRY(no_agg(c, t->tl_args[i].ta_term));
        return BOX_OK;
    case PDP_TL_TP:
        return reserved(c, &t->tl_binder);
    }
    return BOX_OK;
}

/* WF-Closed: nothing free in the leaf. */
static box_err
closed(tc_ctx *c, const pdp_tl *t)
{
    tc_set fv = {0}, none = {0};
    BOX_TRY(free_vars(c, t, &fv));
    const tc_var *x = first_missing(&fv, &none, NULL);
    if (x == NULL)
        return BOX_OK;
    return refuse(c, x->v_pos,
                  "variable `%.*s` is free in this temporal condition (bound "
                  "by no `exists` binder or aggregation `for` list); a "
                  "temporal condition must be closed — wrap it as `exists "
                  "(%.*s: <type>). (…)`, or use `*` to match any value",
                  STR(x->v_name), STR(x->v_name));
}

/* ---- WF-Demands ---- */

static box_err chain(tc_ctx *c, const pdp_tl *t, tc_set *rho);

static box_err
unmet_filter(tc_ctx *c, const pdp_tl *t, const tc_set *fv, const tc_set *rho)
{
    const tc_var *x = first_missing(fv, rho, NULL);
    if (x == NULL)
        return BOX_OK;
    return refuse(c, t->tl_pos,
                  "variable `%.*s` is used in a filter (a comparison or "
                  "negation) that is not range-restricted by a preceding "
                  "conjunct; place a conjunct that binds `%.*s` (a "
                  "predicate, `tp`, or a binding equality) before it",
                  STR(x->v_name), STR(x->v_name));
}

/*
 * What one conjunct needs restricted before it: a binding equality the
 * variables its value side reads, a filter (other comparison, negation)
 * all it reads, a since what its left reads and its anchor does not
 * restrict. Through formerly/previous/exists when their body is no
 * chain (a chain is checked on its own by descend).
 */
static box_err
demands(tc_ctx *c, const pdp_tl *t, tc_set *rho)
{
    switch (t->tl_kind) {
    case PDP_TL_CMP: {
        tc_set need = {0};
        const pdp_tterm *x = eq_binds(t);
        if (x == NULL) {
            BOX_TRY(term_vars(c, t->tl_a, &need));
            BOX_TRY(term_vars(c, t->tl_b, &need));
            return unmet_filter(c, t, &need, rho);
        }
        BOX_TRY(term_vars(c, x == t->tl_a ? t->tl_b : t->tl_a, &need));
        const tc_var *u = first_missing(&need, rho, NULL);
        if (u == NULL)
            return BOX_OK;
        return refuse(c, t->tl_pos,
                      "the equality binding `%.*s` reads `%.*s` inside its "
                      "aggregate operand (`%.*s` is used in the aggregation "
                      "body but not bound by its `for` list), and `%.*s` is "
                      "not range-restricted by a preceding conjunct; place "
                      "the conjunct that binds `%.*s` before the equality, "
                      "widening the `exists` scope if needed",
                      STR(x->tt_name), STR(u->v_name), STR(u->v_name),
                      STR(u->v_name), STR(u->v_name));
    }
    case PDP_TL_NOT: {
        tc_set need = {0};
        BOX_TRY(free_vars(c, t->tl_l, &need));
        return unmet_filter(c, t, &need, rho);
    }
    case PDP_TL_SINCE: {
        tc_set need = {0}, anchor = {0};
        BOX_TRY(free_vars(c, t->tl_l, &need));
        BOX_TRY(restricted(c, t->tl_r, &anchor));
        const tc_var *u = first_missing(&need, &anchor, rho);
        if (u == NULL)
            return BOX_OK;
        return refuse(c, t->tl_pos,
                      "variable `%.*s` is used in the left operand of a "
                      "`since` but is restricted neither by the `since` "
                      "anchor (its right operand) nor by a preceding "
                      "conjunct; the left of a `since` is a per-step "
                      "condition and cannot bind `%.*s` — restrict it in "
                      "the anchor or in a conjunct before the `since`",
                      STR(u->v_name), STR(u->v_name));
    }
    case PDP_TL_FORMERLY:
    case PDP_TL_PREVIOUS:
        if (t->tl_l->tl_kind == PDP_TL_AND)
            return BOX_OK;
        return demands(c, t->tl_l, rho);
    case PDP_TL_EXISTS: {
        if (t->tl_l->tl_kind == PDP_TL_AND)
            return BOX_OK;
        size_t mark = rho->s_n;
        BOX_TRY(
            set_push(c, rho, t->tl_binder.tb_name, t->tl_binder.tb_pos, true));
        BOX_TRY(demands(c, t->tl_l, rho));
        rho->s_n = mark;
        return BOX_OK;
    }
    default:
        return BOX_OK;
    }
}

/* The chains a conjunct holds, each seeded with what is restricted at
 * the conjunct's place; a binder (exists, a `for` list) shadows its
 * names in the seed, and a since's left also sees its anchor's. */
static box_err
descend(tc_ctx *c, const pdp_tl *t, tc_set *rho)
{
    size_t mark = rho->s_n;
    switch (t->tl_kind) {
    case PDP_TL_AND:
        return chain(c, t, rho);
    case PDP_TL_NOT:
        return descend(c, t->tl_l, rho);
    case PDP_TL_FORMERLY:
    case PDP_TL_PREVIOUS:
        return chain(c, t->tl_l, rho);
    case PDP_TL_SINCE:
        BOX_TRY(restricted(c, t->tl_r, rho));
        BOX_TRY(chain(c, t->tl_l, rho));
        rho->s_n = mark;
        return chain(c, t->tl_r, rho);
    case PDP_TL_EXISTS:
        BOX_TRY(
            set_push(c, rho, t->tl_binder.tb_name, t->tl_binder.tb_pos, true));
        BOX_TRY(chain(c, t->tl_l, rho));
        rho->s_n = mark;
        return BOX_OK;
    case PDP_TL_CMP: {
        const pdp_tterm *ops[2] = {t->tl_a, t->tl_b};
        for (int k = 0; k < 2; k++) {
            if (!is_agg(ops[k]))
                continue;
            const pdp_tagg *g = ops[k]->tt_agg;
            for (uint32_t i = 0; i < g->ta_nfor; i++)
                BOX_TRY(set_push(c, rho, g->ta_for[i].tb_name,
                                 g->ta_for[i].tb_pos, true));
            BOX_TRY(chain(c, g->ta_where, rho));
            rho->s_n = mark;
        }
        return BOX_OK;
    }
    default:
        return BOX_OK;
    }
}

/* The conjuncts of an `&&` chain (both sides flattened) left to right:
 * each one's demands against rho, then its nested chains, then what it
 * restricts joins rho. */
static box_err
chain_step(tc_ctx *c, const pdp_tl *t, tc_set *rho)
{
    if (t->tl_kind == PDP_TL_AND) {
        BOX_TRY(chain_step(c, t->tl_l, rho));
        return chain_step(c, t->tl_r, rho);
    }
    BOX_TRY(demands(c, t, rho));
    BOX_TRY(descend(c, t, rho));
    return restricted(c, t, rho);
}

static box_err
chain(tc_ctx *c, const pdp_tl *t, tc_set *rho)
{
    size_t mark = rho->s_n;
    BOX_TRY(chain_step(c, t, rho));
    rho->s_n = mark;
    return BOX_OK;
}

/* ---- WF-TpDep ---- */

/* The variables bound rule-wide to values that vary per timepoint: the
 * predicate fields reached without crossing a negation or entering an
 * aggregate. */
static box_err
tp_binders(tc_ctx *c, const pdp_tl *t, tc_set *env)
{
    switch (t->tl_kind) {
    case PDP_TL_AND:
    case PDP_TL_SINCE:
        BOX_TRY(tp_binders(c, t->tl_l, env));
        return tp_binders(c, t->tl_r, env);
    case PDP_TL_FORMERLY:
    case PDP_TL_PREVIOUS:
    case PDP_TL_EXISTS:
        return tp_binders(c, t->tl_l, env);
    case PDP_TL_PRED:
        for (uint32_t i = 0; i < t->tl_nargs; i++) {
            const pdp_tterm *v = t->tl_args[i].ta_term;
            if (v->tt_kind == PDP_TT_VAR)
                BOX_TRY(set_push(c, env, v->tt_name, v->tt_pos, false));
        }
        return BOX_OK;
    default:
        return BOX_OK;
    }
}

static bool
term_dep(const pdp_tterm *t, const tc_set *env)
{
    switch (t->tt_kind) {
    case PDP_TT_VAR:
        return set_has(env, t->tt_name);
    case PDP_TT_ARRAY:
        for (uint32_t i = 0; i < t->tt_nitems; i++)
            if (term_dep(t->tt_items[i], env))
                return true;
        return false;
    case PDP_TT_COUNT:
    case PDP_TT_SUM:
        return true;
    default:
        return false;
    }
}

static box_err
degenerate(tc_ctx *c, pdp_pos pos, const char *what)
{
    return refuse(c, pos,
                  "%s does not vary with the current timepoint; it monitors "
                  "nothing",
                  what);
}

static box_err tp_dep(tc_ctx *c, const pdp_tl *t, tc_set *env, bool *out);

static box_err
agg_tp_dep(tc_ctx *c, const pdp_tterm *t, tc_set *env)
{
    const pdp_tagg *g = t->tt_agg;
    size_t mark = env->s_n;
    bool dep = false;
    if (t->tt_kind == PDP_TT_SUM)
        BOX_TRY(set_push(c, env, g->ta_sum, t->tt_pos, false));
    BOX_TRY(tp_dep(c, g->ta_where, env, &dep));
    env->s_n = mark;
    if (!dep)
        return degenerate(c, g->ta_where->tl_pos,
                          "the `where` body of the aggregation");
    return BOX_OK;
}

/*
 * Whether t varies with the timepoint: a predicate, a `tp`, an aggregate
 * or a variable bound in scope does; literals, context and scope fields
 * and wildcards do not. Each monitoring scope inside (a formerly/previous
 * body, each side of since, an exists body, an aggregate's body) must
 * vary itself, and is refused where it does not.
 */
static box_err
tp_dep(tc_ctx *c, const pdp_tl *t, tc_set *env, bool *out)
{
    bool l = false, r = false;
    *out = true;
    switch (t->tl_kind) {
    case PDP_TL_PRED:
    case PDP_TL_TP:
        return BOX_OK;
    case PDP_TL_CMP:
        if (is_agg(t->tl_a))
            BOX_TRY(agg_tp_dep(c, t->tl_a, env));
        if (is_agg(t->tl_b))
            BOX_TRY(agg_tp_dep(c, t->tl_b, env));
        *out = term_dep(t->tl_a, env) || term_dep(t->tl_b, env);
        return BOX_OK;
    case PDP_TL_NOT:
        return tp_dep(c, t->tl_l, env, out);
    case PDP_TL_AND:
        BOX_TRY(tp_dep(c, t->tl_l, env, &l));
        BOX_TRY(tp_dep(c, t->tl_r, env, &r));
        *out = l || r;
        return BOX_OK;
    case PDP_TL_FORMERLY:
    case PDP_TL_PREVIOUS:
        BOX_TRY(tp_dep(c, t->tl_l, env, &l));
        if (!l)
            return degenerate(c, t->tl_l->tl_pos,
                              "this temporal operator's body");
        return BOX_OK;
    case PDP_TL_SINCE:
        BOX_TRY(tp_dep(c, t->tl_l, env, &l));
        if (!l)
            BOX_TRY(degenerate(c, t->tl_l->tl_pos, "the left side of `since`"));
        BOX_TRY(tp_dep(c, t->tl_r, env, &r));
        if (!r)
            BOX_TRY(
                degenerate(c, t->tl_r->tl_pos, "the right side of `since`"));
        return BOX_OK;
    case PDP_TL_EXISTS: {
        size_t mark = env->s_n;
        BOX_TRY(
            set_push(c, env, t->tl_binder.tb_name, t->tl_binder.tb_pos, false));
        BOX_TRY(tp_dep(c, t->tl_l, env, &l));
        env->s_n = mark;
        if (!l)
            return degenerate(c, t->tl_l->tl_pos, "the body of the `exists`");
        return BOX_OK;
    }
    }
    return BOX_OK;
}

/* Each top-level conjunct (the leaf's `&&` chain, flattened). */
static box_err
tp_conjuncts(tc_ctx *c, const pdp_tl *t, tc_set *env)
{
    if (t->tl_kind == PDP_TL_AND) {
        BOX_TRY(tp_conjuncts(c, t->tl_l, env));
        return tp_conjuncts(c, t->tl_r, env);
    }
    bool dep = false;
    BOX_TRY(tp_dep(c, t, env, &dep));
    if (!dep)
        return degenerate(c, t->tl_pos, "this `when`/`unless` conjunct");
    return BOX_OK;
}

/* ---- TEMP-MaxWindow ---- */

static int64_t
unit_secs(char unit)
{
    switch (unit) {
    case 's':
        return 1;
    case 'm':
        return 60;
    case 'h':
        return 3600;
    case 'd':
        return 86400;
    default:
        return 0;
    }
}

static bool
is_word(const pdp_token *t, const char *s)
{
    return t->t_kind == PDP_TK_IDENT && t->t_len == strlen(s) &&
           memcmp(t->t_text, s, t->t_len) == 0;
}

/* The byte offset of pos in the text (columns count scalars; a leading
 * BOM is not counted, as the lexer skips it). */
static bool
pos_offset(const pdp_tl_src *src, pdp_pos pos, size_t *off)
{
    size_t i = src->ts_len >= 3 && memcmp(src->ts_text, "\xEF\xBB\xBF", 3) == 0
                   ? 3
                   : 0;
    for (uint32_t line = 1; line < pos.line; i++) {
        if (i >= src->ts_len)
            return false;
        if (src->ts_text[i] == '\n')
            line++;
    }
    for (uint32_t col = 1; col < pos.col;) {
        if (i >= src->ts_len || src->ts_text[i] == '\n')
            return false;
        i++;
        while (i < src->ts_len && (src->ts_text[i] & 0xC0) == 0x80)
            i++;
        col++;
    }
    *off = i;
    return true;
}

static bool
before(pdp_pos a, pdp_pos b)
{
    return a.line < b.line || (a.line == b.line && a.col < b.col);
}

/*
 * The window of node t as written, and where its `within` stands: the
 * tree keeps only seconds, so the text is lexed again from the node to
 * its operand after the window (the body of formerly/previous, the right
 * of since), and the last `within INT UNIT` there is the node's: nothing
 * else in a leaf that parsed is `within` followed by an integer. False
 * when the text does not agree with the tree.
 */
static bool
written_window(const pdp_tl *t, const pdp_tl_src *src, pdp_tl_window *win,
               pdp_pos *at)
{
    pdp_pos stop = (t->tl_kind == PDP_TL_SINCE ? t->tl_r : t->tl_l)->tl_pos;
    size_t off = 0;
    if (!pos_offset(src, t->tl_pos, &off))
        return false;
    box_buf quiet; // a text that parsed once lexes again without error
    box_buf_init(&quiet, 512);
    pdp_lex lx;
    bool found = false;
    if (pdp_lex_init(&lx, src->ts_text, src->ts_len, src->ts_file, &quiet) !=
        BOX_OK)
        goto out;
    lx.lx_pos = off;
    lx.lx_line = t->tl_pos.line;
    lx.lx_col = t->tl_pos.col;
    lx.lx_have_ahead = false;
    if (pdp_lex_next(&lx) != BOX_OK)
        goto out;
    while (lx.lx_tok.t_kind != PDP_TK_EOF &&
           before((pdp_pos){lx.lx_tok.t_line, lx.lx_tok.t_col}, stop)) {
        const pdp_token *n = NULL;
        if (is_word(&lx.lx_tok, "within") && pdp_lex_peek(&lx, &n) == BOX_OK &&
            n->t_kind == PDP_TK_INT) {
            pdp_pos w = {lx.lx_tok.t_line, lx.lx_tok.t_col};
            int64_t amount = 0;
            for (size_t i = 0; i < n->t_len; i++) {
                int d = n->t_text[i] - '0';
                amount =
                    amount > (INT64_MAX - d) / 10 ? INT64_MAX : amount * 10 + d;
            }
            if (pdp_lex_next(&lx) != BOX_OK || pdp_lex_next(&lx) != BOX_OK)
                goto out;
            if (lx.lx_tok.t_kind == PDP_TK_IDENT && lx.lx_tok.t_len == 1) {
                *win = (pdp_tl_window){amount, lx.lx_tok.t_text[0]};
                *at = w;
                found = true;
            }
        }
        if (pdp_lex_next(&lx) != BOX_OK)
            goto out;
    }
out:
    box_buf_reset(&quiet);
    if (!found)
        return false;
    int64_t u = unit_secs(win->tw_unit);
    return u > 0 && win->tw_amount <= INT64_MAX / u &&
           win->tw_amount * u == t->tl_window;
}

/* Every window, the node before what it holds (Dogwood's walk, which
 * enters an aggregate only as a comparison operand), at most the cap. */
static box_err
windows(tc_ctx *c, const pdp_tl *t, const pdp_tl_src *src, pdp_tl_window cap,
        int64_t cap_secs)
{
    switch (t->tl_kind) {
    case PDP_TL_FORMERLY:
    case PDP_TL_PREVIOUS:
    case PDP_TL_SINCE:
        if (t->tl_window > cap_secs) {
            pdp_tl_window win;
            pdp_pos at;
            if (!written_window(t, src, &win, &at)) {
                // named in seconds where the text does not agree
                win = (pdp_tl_window){t->tl_window, 's'};
                at = t->tl_pos;
            }
            BOX_TRY(refuse(c, at,
                           "temporal window `%lld%c` exceeds the maximum "
                           "allowed window `%lld%c` set by the event schema's "
                           "`max_window`; shorten this window to at most "
                           "`%lld%c`, or raise `max_window` in the event "
                           "schema",
                           (long long)win.tw_amount, win.tw_unit,
                           (long long)cap.tw_amount, cap.tw_unit,
                           (long long)cap.tw_amount, cap.tw_unit));
        }
        break;
    default:
        break;
    }
    switch (t->tl_kind) {
    case PDP_TL_AND:
    case PDP_TL_SINCE:
        BOX_TRY(windows(c, t->tl_l, src, cap, cap_secs));
        return windows(c, t->tl_r, src, cap, cap_secs);
    case PDP_TL_NOT:
    case PDP_TL_FORMERLY:
    case PDP_TL_PREVIOUS:
    case PDP_TL_EXISTS:
        return windows(c, t->tl_l, src, cap, cap_secs);
    case PDP_TL_CMP:
        if (is_agg(t->tl_a))
            BOX_TRY(windows(c, t->tl_a->tt_agg->ta_where, src, cap, cap_secs));
        if (is_agg(t->tl_b))
            BOX_TRY(windows(c, t->tl_b->tt_agg->ta_where, src, cap, cap_secs));
        return BOX_OK;
    default:
        return BOX_OK;
    }
}

/* ---- the checks ---- */

static box_err
binding_stage(tc_ctx *c, const pdp_tl *tl)
{
    tc_set bound = {0}, rho = {0};
    BOX_TRY(binders(c, tl, &bound));
    BOX_TRY(closed(c, tl));
    return chain(c, tl, &rho);
}

static box_err
tpdep_stage(tc_ctx *c, const pdp_tl *tl)
{
    tc_set env = {0};
    BOX_TRY(tp_binders(c, tl, &env));
    return tp_conjuncts(c, tl, &env);
}

static box_err
window_stage(tc_ctx *c, const pdp_tl *tl, const pdp_tl_src *src,
             pdp_tl_window cap)
{
    // A cap with no known unit admits no window (fails closed).
    int64_t u = unit_secs(cap.tw_unit);
    int64_t cap_secs = 0;
    if (u > 0 && cap.tw_amount > 0)
        cap_secs =
            cap.tw_amount <= INT64_MAX / u ? cap.tw_amount * u : INT64_MAX;
    return windows(c, tl, src, cap, cap_secs);
}

box_err
pdp_tl_check(const pdp_tl *tl, const char *file, box_buf *err)
{
    tc_ctx c = {.file = file != NULL ? file : "<policy>", .err = err};
    c.a = box_arena_new(PDP_TL_CHECK_SCRATCH_MAX);
    if (c.a == NULL)
        return BOX_ENOMEM;
    box_err rv = binding_stage(&c, tl);
    box_arena_free(c.a);
    return rv;
}

/* One stage run with a sink (every finding) or err (the first). */
static box_err
run_stage(const pdp_tl *tl, const pdp_tl_src *src, const pdp_tl_window *cap,
          pdp_tl_sink sink, void *arg, box_buf *err)
{
    tc_ctx c = {.file = src != NULL && src->ts_file != NULL ? src->ts_file
                                                            : "<policy>",
                .err = err,
                .sink = sink,
                .sink_arg = arg};
    c.a = box_arena_new(PDP_TL_CHECK_SCRATCH_MAX);
    if (c.a == NULL)
        return BOX_ENOMEM;
    box_err rv =
        cap != NULL ? window_stage(&c, tl, src, *cap) : tpdep_stage(&c, tl);
    box_arena_free(c.a);
    return rv;
}

box_err
pdp_tl_check_tpdep(const pdp_tl *tl, pdp_tl_sink sink, void *arg)
{
    return run_stage(tl, NULL, NULL, sink, arg, NULL);
}

box_err
pdp_tl_check_windows(const pdp_tl *tl, const pdp_tl_src *src,
                     pdp_tl_window max_window, pdp_tl_sink sink, void *arg)
{
    return run_stage(tl, src, &max_window, sink, arg, NULL);
}

box_err
pdp_tl_check_schema(const pdp_tl *tl, const pdp_tl_src *src,
                    pdp_tl_window max_window, box_buf *err)
{
    box_err rv = run_stage(tl, src, NULL, NULL, NULL, err);
    return rv != BOX_OK ? rv : run_stage(tl, src, &max_window, NULL, NULL, err);
}
