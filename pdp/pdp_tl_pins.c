/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The event schema's pins (dogwood-spec §5.2): `pin f: T = <ref>` on an
 * event kind appends the argument `f: <ref>` to every predicate naming
 * that kind, after macro expansion and before validation, whatever the
 * policy wrote (a hand-written `f` can only narrow). It rewrites leaves
 * while the policy set is being built and allocates only in its arena.
 */
#include "pdp_tl_validate.h"

#include <string.h>

#include "pdp_tl.h"

typedef struct pin_ctx {
    const pdp_evschema *es;
    box_arena *a;
    box_err rv;
} pin_ctx;

static char *
copy(pin_ctx *c, const char *s, size_t n)
{
    char *t = box_arena_strndup(c->a, s, n);
    if (t == NULL)
        c->rv = BOX_ENOMEM;
    return t;
}

/* The dotted path p as segments ("" gives none). */
static bool
segments(pin_ctx *c, pdp_str p, const pdp_str **out, uint32_t *n)
{
    *out = NULL;
    *n = 0;
    if (p.len == 0)
        return true;
    uint32_t k = 1;
    for (size_t i = 0; i < p.len; i++)
        k += p.s[i] == '.';
    pdp_str *segs = box_arena_alloc(c->a, k * sizeof(*segs));
    if (segs == NULL) {
        c->rv = BOX_ENOMEM;
        return false;
    }
    size_t start = 0;
    for (size_t i = 0; i <= p.len; i++) {
        if (i < p.len && p.s[i] != '.')
            continue;
        char *seg = copy(c, p.s + start, i - start);
        if (seg == NULL)
            return false;
        segs[(*n)++] = (pdp_str){seg, i - start};
        start = i + 1;
    }
    *out = segs;
    return true;
}

/* The argument a pin appends: its field, and a term for its value
 * (`principal…` / `resource…` or `context.…`), placed at the predicate. */
static bool
pin_arg(pin_ctx *c, const pdp_evpin *pin, pdp_pos at, pdp_targ *arg)
{
    pdp_tterm *t = box_arena_zalloc(c->a, sizeof(*t));
    char *field = copy(c, pin->pn_field.s, pin->pn_field.len);
    if (t == NULL || field == NULL) {
        c->rv = BOX_ENOMEM;
        return false;
    }
    t->tt_pos = at;
    if (pin->pn_root == PDP_EVPIN_CONTEXT) {
        t->tt_kind = PDP_TT_CONTEXT;
    } else {
        t->tt_kind = PDP_TT_SCOPE;
        t->tt_var = pin->pn_root == PDP_EVPIN_PRINCIPAL ? PDP_VAR_PRINCIPAL
                                                        : PDP_VAR_RESOURCE;
    }
    if (!segments(c, pin->pn_path, &t->tt_segs, &t->tt_nsegs))
        return false;
    arg->ta_path = (pdp_str){field, pin->pn_field.len};
    arg->ta_term = t;
    arg->ta_pos = at;
    return true;
}

static const pdp_tl *pin_tl(pin_ctx *c, const pdp_tl *t);

/* An aggregate operand with its body pinned, or t itself. */
static const pdp_tterm *
pin_term(pin_ctx *c, const pdp_tterm *t)
{
    if (t->tt_kind != PDP_TT_COUNT && t->tt_kind != PDP_TT_SUM)
        return t;
    const pdp_tl *w = pin_tl(c, t->tt_agg->ta_where);
    if (w == NULL || w == t->tt_agg->ta_where)
        return w == NULL ? NULL : t;
    pdp_tterm *nt = box_arena_alloc(c->a, sizeof(*nt));
    pdp_tagg *ng = box_arena_alloc(c->a, sizeof(*ng));
    if (nt == NULL || ng == NULL) {
        c->rv = BOX_ENOMEM;
        return NULL;
    }
    *ng = *t->tt_agg;
    ng->ta_where = w;
    *nt = *t;
    nt->tt_agg = ng;
    return nt;
}

/* t with its predicates pinned: t itself when nothing changed, a copy
 * of the nodes above a change otherwise; NULL when out of memory. */
static const pdp_tl *
pin_tl(pin_ctx *c, const pdp_tl *t)
{
    const pdp_tl *l = t->tl_l, *r = t->tl_r;
    const pdp_tterm *a = t->tl_a, *b = t->tl_b;
    const pdp_targ *args = t->tl_args;
    uint32_t nargs = t->tl_nargs;
    switch (t->tl_kind) {
    case PDP_TL_AND:
    case PDP_TL_SINCE:
        if ((l = pin_tl(c, t->tl_l)) == NULL ||
            (r = pin_tl(c, t->tl_r)) == NULL)
            return NULL;
        break;
    case PDP_TL_NOT:
    case PDP_TL_FORMERLY:
    case PDP_TL_PREVIOUS:
    case PDP_TL_EXISTS:
        if ((l = pin_tl(c, t->tl_l)) == NULL)
            return NULL;
        break;
    case PDP_TL_CMP:
        if ((a = pin_term(c, t->tl_a)) == NULL ||
            (b = pin_term(c, t->tl_b)) == NULL)
            return NULL;
        break;
    case PDP_TL_PRED: {
        size_t np = 0;
        const pdp_evpin *pins = pdp_evschema_pins(c->es, t->tl_event_kind.s,
                                                  t->tl_event_kind.len, &np);
        if (np == 0)
            break;
        pdp_targ *na = box_arena_alloc(c->a, (nargs + np) * sizeof(*na));
        if (na == NULL) {
            c->rv = BOX_ENOMEM;
            return NULL;
        }
        if (nargs > 0)
            memcpy(na, t->tl_args, nargs * sizeof(*na));
        for (size_t i = 0; i < np; i++)
            if (!pin_arg(c, &pins[i], t->tl_pos, &na[nargs + i]))
                return NULL;
        args = na;
        nargs += (uint32_t)np;
        break;
    }
    case PDP_TL_TP:
        break;
    }
    if (l == t->tl_l && r == t->tl_r && a == t->tl_a && b == t->tl_b &&
        args == t->tl_args)
        return t;
    pdp_tl *n = box_arena_alloc(c->a, sizeof(*n));
    if (n == NULL) {
        c->rv = BOX_ENOMEM;
        return NULL;
    }
    *n = *t;
    n->tl_l = l;
    n->tl_r = r;
    n->tl_a = a;
    n->tl_b = b;
    n->tl_args = args;
    n->tl_nargs = nargs;
    return n;
}

static bool
visit(void *arg, const pdp_expr *e)
{
    pin_ctx *c = arg;
    if (e->x_kind != PDP_X_TEMPORAL)
        return false;
    const pdp_tl *tl = pin_tl(c, e->u.tl);
    if (tl == NULL)
        return true;
    // The set is still being built: its nodes are ours to change (they
    // were allocated writable in the same arena; const is the readers').
    ((pdp_expr *)e)->u.tl = tl;
    return false;
}

box_err
pdp_tl_apply_pins(const pdp_ast *ast, const pdp_evschema *es, box_arena *a)
{
    pin_ctx c = {es, a, BOX_OK};
    bool any = false;
    for (size_t i = 0; i < pdp_evschema_kind_count(es) && !any; i++) {
        size_t len = 0, n = 0;
        const char *k = pdp_evschema_kind_at(es, i, &len);
        any = pdp_evschema_pins(es, k, len, &n) != NULL && n > 0;
    }
    for (uint32_t i = 0; any && i < ast->as_nrules && c.rv == BOX_OK; i++) {
        const pdp_rule *r = ast->as_rules[i];
        for (uint32_t j = 0; j < r->r_nconds && c.rv == BOX_OK; j++)
            (void)pdp_expr_visit(r->r_conds[j].cd_body, visit, &c);
    }
    return c.rv;
}
