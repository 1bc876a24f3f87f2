/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The temporal sub-language's reference semantics (dogwood-spec §4.4):
 * R(φ, j, β), the bindings under which φ holds at timepoint j, computed
 * by scanning the history. It is the definition the incremental monitors
 * are checked against, so it follows the table of §4.4 line by line and
 * optimizes nothing but the arena it allocates from.
 */
#include <string.h>

#include "pdp_ext.h"
#include "pdp_tl.h"
#include "box_hash.h"

/* One binding; a row is an immutable array of them in the scratch arena
 * (extending a row copies it: rows are short). A timepoint is bound as
 * the Long of its index. */
typedef struct tl_bind {
    pdp_str name;
    const pdp_value *val;
} tl_bind;

typedef struct tl_row {
    const tl_bind *b;
    uint32_t n;
} tl_row;

typedef struct tl_rows {
    tl_row *v;
    size_t n, cap;
} tl_rows;

typedef struct tl_ctx {
    const pdp_tl_now *now;
    box_arena *a;
} tl_ctx;

static box_err tl_rel(tl_ctx *c, const pdp_tl *t, size_t j, tl_row row,
                      tl_rows *out);

/* ---- rows ---- */

static bool
str_eq(pdp_str a, pdp_str b)
{
    return a.len == b.len && memcmp(a.s, b.s, a.len) == 0;
}

static const pdp_value *
row_get(tl_row r, pdp_str name)
{
    for (uint32_t i = 0; i < r.n; i++)
        if (str_eq(r.b[i].name, name))
            return r.b[i].val;
    return NULL;
}

/* r with name bound to val (replacing an old binding), or without it
 * when val is NULL. */
static box_err
row_set(tl_ctx *c, tl_row r, pdp_str name, const pdp_value *val, tl_row *out)
{
    tl_bind *b = box_arena_alloc(c->a, (r.n + 1) * sizeof *b);
    if (b == NULL)
        return BOX_ENOMEM;
    uint32_t n = 0;
    for (uint32_t i = 0; i < r.n; i++)
        if (!str_eq(r.b[i].name, name))
            b[n++] = r.b[i];
    if (val != NULL)
        b[n++] = (tl_bind){name, val};
    *out = (tl_row){b, n};
    return BOX_OK;
}

static box_err
rows_add(tl_ctx *c, tl_rows *rs, tl_row r)
{
    if (rs->n == rs->cap) {
        size_t nc = rs->cap ? rs->cap * 2 : 8;
        tl_row *nv = box_arena_alloc(c->a, nc * sizeof *nv);
        if (nv == NULL)
            return BOX_ENOMEM;
        if (rs->n > 0)
            memcpy(nv, rs->v, rs->n * sizeof *nv);
        rs->v = nv;
        rs->cap = nc;
    }
    rs->v[rs->n++] = r;
    return BOX_OK;
}

/* ---- terms (§4.2) ---- */

static box_err tl_agg(tl_ctx *c, const pdp_tterm *t, size_t j, tl_row row,
                      const pdp_value **out);

/* A record value at a path of segments; NULL when absent. */
static const pdp_value *
at_segs(const pdp_value *v, const pdp_str *segs, uint32_t n)
{
    for (uint32_t i = 0; i < n && v != NULL; i++) {
        if (pdp_value_kind_of(v) != PDP_VAL_RECORD)
            return NULL;
        v = pdp_value_get(v, segs[i].s, segs[i].len);
    }
    return v;
}

/* The value of t under row at timepoint j, or NULL when it does not
 * resolve (an absent context path, an unbound variable, a wildcard). */
static box_err
tl_resolve(tl_ctx *c, const pdp_tterm *t, size_t j, tl_row row,
           const pdp_value **out)
{
    const pdp_tl_now *now = c->now;
    *out = NULL;
    switch (t->tt_kind) {
    case PDP_TT_LIT:
        *out = t->tt_lit;
        return BOX_OK;
    case PDP_TT_DECIMAL: {
        // Cedar's decimal, equal by value (the reference's domain
        // equality); a spelling Cedar refuses stays text, equal only to
        // itself (as a trace's, pdp_trace.h).
        int64_t scaled = 0;
        char why[128];
        pdp_value *v = NULL;
        if (pdp_ext_parse_decimal(t->tt_text.s, t->tt_text.len, &scaled, why,
                                  sizeof why) == BOX_OK)
            v = pdp_value_decimal(c->a, scaled);
        else if (pdp_value_string(c->a, t->tt_text.s, t->tt_text.len, &v) !=
                 BOX_OK)
            v = NULL;
        if (v == NULL)
            return BOX_ENOMEM;
        *out = v;
        return BOX_OK;
    }
    case PDP_TT_CONTEXT:
        *out = now->tn_context != NULL
                   ? at_segs(now->tn_context, t->tt_segs, t->tt_nsegs)
                   : NULL;
        return BOX_OK;
    case PDP_TT_SCOPE: {
        const pdp_value *e = t->tt_var == PDP_VAR_PRINCIPAL ? now->tn_principal
                                                            : now->tn_resource;
        if (e == NULL || t->tt_nsegs == 0) {
            *out = e;
            return BOX_OK;
        }
        // .id and .type project the uid; other attributes would need an
        // entity store, which Box's requests do not carry.
        if (t->tt_nsegs != 1 || pdp_value_kind_of(e) != PDP_VAL_ENTITY)
            return BOX_OK;
        size_t len = 0;
        const char *s = NULL;
        if (str_eq(t->tt_segs[0], (pdp_str){"id", 2}))
            s = pdp_value_entity_id(e, &len);
        else if (str_eq(t->tt_segs[0], (pdp_str){"type", 4}))
            s = pdp_value_entity_type(e, &len);
        if (s == NULL)
            return BOX_OK;
        pdp_value *v = NULL;
        if (pdp_value_string(c->a, s, len, &v) != BOX_OK)
            return BOX_ENOMEM;
        *out = v;
        return BOX_OK;
    }
    case PDP_TT_VAR:
        *out = row_get(row, t->tt_name);
        return BOX_OK;
    case PDP_TT_WILD:
        return BOX_OK;
    case PDP_TT_ARRAY: {
        pdp_value *set = pdp_value_set_new(c->a);
        if (set == NULL)
            return BOX_ENOMEM;
        for (uint32_t i = 0; i < t->tt_nitems; i++) {
            const pdp_value *v = NULL;
            BOX_TRY(tl_resolve(c, t->tt_items[i], j, row, &v));
            if (v == NULL)
                return BOX_OK; // one unresolved item: the array is too
            BOX_TRY(pdp_value_set_add(c->a, set, v));
        }
        *out = set;
        return BOX_OK;
    }
    case PDP_TT_COUNT:
    case PDP_TT_SUM:
        return tl_agg(c, t, j, row, out);
    }
    return BOX_OK;
}

static bool
is_unbound(const pdp_tterm *t, tl_row row)
{
    return t->tt_kind == PDP_TT_VAR && row_get(row, t->tt_name) == NULL;
}

/* ---- aggregates (§4.5) ---- */

static bool
proj_equal(const pdp_value *const *a, const pdp_value *const *b, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++) {
        if (a[i] == NULL || b[i] == NULL) {
            if (a[i] != b[i])
                return false;
        } else if (!pdp_value_equal(a[i], b[i])) {
            return false;
        }
    }
    return true;
}

/* A hash agreeing with pdp_value_equal for the values a binding holds
 * (equal values, equal hashes; other kinds share one bucket). */
static uint64_t
value_hash(const pdp_value *v)
{
    size_t n = 0;
    const char *s = NULL;
    if (v == NULL)
        return 0;
    switch (pdp_value_kind_of(v)) {
    case PDP_VAL_LONG: {
        uint64_t x = (uint64_t)pdp_value_as_long(v);
        return (x ^ (x >> 29)) * 0xbf58476d1ce4e5b9ULL;
    }
    case PDP_VAL_STRING:
        s = pdp_value_str(v, &n);
        break;
    case PDP_VAL_ENTITY:
        s = pdp_value_entity_id(v, &n);
        break;
    default:
        return (uint64_t)pdp_value_kind_of(v);
    }
    return box_fnv1a(BOX_FNV1A_INIT, s, n);
}

static box_err
tl_agg(tl_ctx *c, const pdp_tterm *t, size_t j, tl_row row,
       const pdp_value **out)
{
    const pdp_tagg *g = t->tt_agg;
    // The `for` variables are the aggregate's own: not read from outside.
    tl_row inner = row;
    for (uint32_t i = 0; i < g->ta_nfor; i++)
        BOX_TRY(row_set(c, inner, g->ta_for[i].tb_name, NULL, &inner));
    tl_rows rs = {0};
    BOX_TRY(tl_rel(c, g->ta_where, j, inner, &rs));
    // Project onto the `for` list and keep the distinct rows.
    uint32_t w = g->ta_nfor;
    const pdp_value **proj =
        box_arena_alloc(c->a, (rs.n + 1) * w * sizeof *proj);
    if (proj == NULL)
        return BOX_ENOMEM;
    size_t distinct = 0;
    int64_t sum = 0;
    uint32_t sumcol = UINT32_MAX;
    for (uint32_t i = 0; i < w; i++)
        if (t->tt_kind == PDP_TT_SUM && str_eq(g->ta_for[i].tb_name, g->ta_sum))
            sumcol = i;
    // Distinct by a hash set of the projections (indices + 1; 0 empty):
    // a window of n matches costs n, not n².
    size_t nslots = 16;
    while (nslots < 2 * rs.n + 2)
        nslots *= 2;
    size_t *slots = box_arena_zalloc(c->a, nslots * sizeof *slots);
    if (slots == NULL)
        return BOX_ENOMEM;
    for (size_t r = 0; r < rs.n; r++) {
        const pdp_value **p = proj + distinct * w;
        uint64_t h = BOX_FNV1A_INIT;
        for (uint32_t i = 0; i < w; i++) {
            p[i] = row_get(rs.v[r], g->ta_for[i].tb_name);
            uint64_t vh = value_hash(p[i]);
            h = box_fnv1a(h, &vh, sizeof vh);
        }
        size_t k = (size_t)h & (nslots - 1);
        bool seen = false;
        for (; slots[k] != 0 && !seen; k = (k + 1) & (nslots - 1))
            seen = proj_equal(proj + (slots[k] - 1) * w, p, w);
        if (seen)
            continue;
        slots[k] = distinct + 1;
        distinct++;
        const pdp_value *v = sumcol != UINT32_MAX ? p[sumcol] : NULL;
        if (v != NULL && pdp_value_kind_of(v) == PDP_VAL_LONG) {
            int64_t x = pdp_value_as_long(v);
            // Past the Long range the total clamps, as the reference does.
            if (__builtin_add_overflow(sum, x, &sum))
                sum = x > 0 ? INT64_MAX : INT64_MIN;
        }
    }
    int64_t result = t->tt_kind == PDP_TT_COUNT ? (int64_t)distinct : sum;
    *out = pdp_value_long(c->a, result);
    return *out != NULL ? BOX_OK : BOX_ENOMEM;
}

/* ---- formulas (§4.3, §4.4) ---- */

/* A path into a response's `output` group. */
static bool
is_output(pdp_str path)
{
    return path.len >= 6 && memcmp(path.s, "output", 6) == 0 &&
           (path.len == 6 || path.s[6] == '.');
}

static box_err
tl_pred(tl_ctx *c, const pdp_tl *t, size_t j, tl_row row, tl_rows *out)
{
    const pdp_event *e = pdp_hist_at(c->now->tn_hist, j);
    const char *kind = e->ev_kind;
    bool pending = e->ev_state == PDP_EV_PENDING;
    if (e->ev_state == PDP_EV_VOID ||
        (pending && c->now->tn_pending == PDP_PENDING_NONE))
        return BOX_OK;
    if (pending)
        kind =
            c->now->tn_pending == PDP_PENDING_RESPONSE ? "response" : "error";
    if (!pdp_value_equal(e->ev_action, t->tl_action) ||
        strlen(kind) != t->tl_event_kind.len ||
        memcmp(kind, t->tl_event_kind.s, t->tl_event_kind.len) != 0)
        return BOX_OK;
    for (uint32_t i = 0; i < t->tl_nargs; i++) {
        const pdp_targ *a = &t->tl_args[i];
        const pdp_value *f =
            pdp_hist_field(e->ev_fields, a->ta_path.s, a->ta_path.len);
        if (a->ta_term->tt_kind == PDP_TT_WILD)
            continue;
        // A pending response's output is not known: any value may come,
        // but none can be bound.
        bool unknown = f == NULL && pending && is_output(a->ta_path);
        if (is_unbound(a->ta_term, row)) {
            if (f == NULL)
                return BOX_OK;
            BOX_TRY(row_set(c, row, a->ta_term->tt_name, f, &row));
            continue;
        }
        if (unknown)
            continue;
        const pdp_value *v = NULL;
        BOX_TRY(tl_resolve(c, a->ta_term, j, row, &v));
        if (v == NULL || f == NULL || !pdp_value_equal(v, f))
            return BOX_OK;
    }
    return rows_add(c, out, row);
}

static box_err
tl_cmp(tl_ctx *c, const pdp_tl *t, size_t j, tl_row row, tl_rows *out)
{
    if (t->tl_op == PDP_TOP_EQ) {
        // Binding equality: exactly one side an unbound variable.
        bool ua = is_unbound(t->tl_a, row), ub = is_unbound(t->tl_b, row);
        if (ua != ub) {
            const pdp_tterm *var = ua ? t->tl_a : t->tl_b;
            const pdp_value *v = NULL;
            BOX_TRY(tl_resolve(c, ua ? t->tl_b : t->tl_a, j, row, &v));
            if (v == NULL)
                return BOX_OK;
            BOX_TRY(row_set(c, row, var->tt_name, v, &row));
            return rows_add(c, out, row);
        }
    }
    const pdp_value *a = NULL, *b = NULL;
    BOX_TRY(tl_resolve(c, t->tl_a, j, row, &a));
    BOX_TRY(tl_resolve(c, t->tl_b, j, row, &b));
    if (a == NULL || b == NULL)
        return BOX_OK;
    bool holds;
    if (t->tl_op == PDP_TOP_EQ) {
        holds = pdp_value_equal(a, b);
    } else {
        // Ordering is over Longs only; anything else is false, no error.
        if (pdp_value_kind_of(a) != PDP_VAL_LONG ||
            pdp_value_kind_of(b) != PDP_VAL_LONG)
            return BOX_OK;
        int64_t x = pdp_value_as_long(a), y = pdp_value_as_long(b);
        holds = t->tl_op == PDP_TOP_LT   ? x < y
                : t->tl_op == PDP_TOP_LE ? x <= y
                : t->tl_op == PDP_TOP_GT ? x > y
                                         : x >= y;
    }
    return holds ? rows_add(c, out, row) : BOX_OK;
}

/* Whether R(t, j, row) is non-empty. */
static box_err
tl_any(tl_ctx *c, const pdp_tl *t, size_t j, tl_row row, bool *any)
{
    tl_rows rs = {0};
    BOX_TRY(tl_rel(c, t, j, row, &rs));
    *any = rs.n > 0;
    return BOX_OK;
}

/* The timepoints k <= j inside a closed window of w seconds before j,
 * newest first: k from j down while ts(j) − ts(k) ≤ w. */
static bool
in_window(const tl_ctx *c, size_t j, size_t k, int64_t w)
{
    const pdp_hist *h = c->now->tn_hist;
    if (k < c->now->tn_from)
        return false; // before this rule's history began
    int64_t d = pdp_hist_at(h, j)->ev_ts - pdp_hist_at(h, k)->ev_ts;
    return d >= 0 && d <= w;
}

/* The predicate every row of t must start from: t itself, or the left
 * end of its && chain. NULL when t may hold at an event of any action. */
static const pdp_tl *
leading_pred(const pdp_tl *t)
{
    while (t->tl_kind == PDP_TL_AND)
        t = t->tl_l;
    return t->tl_kind == PDP_TL_PRED ? t : NULL;
}

/* The candidate events for a predicate at or before j, newest first: by
 * the value index of one of its fields the row fixes, else by its
 * action's chain, else every event. Each mode visits a superset of the
 * events where the predicate can hold, in the same order. */
typedef struct tl_walk {
    enum { TW_SCAN, TW_CHAIN, TW_VALUE } tw_mode;
    size_t tw_k;
    bool tw_more;
    pdp_hist_cursor tw_cur;
} tl_walk;

static box_err
walk_start(tl_ctx *c, const pdp_tl *p, tl_row row, size_t j, tl_walk *w)
{
    const pdp_hist *h = c->now->tn_hist;
    *w = (tl_walk){.tw_mode = TW_SCAN, .tw_k = j, .tw_more = true};
    if (p == NULL || c->now->tn_scan)
        return BOX_OK;
    // Pending outcomes are chained as responses and lack their output:
    // taken for errors, or matched on output, they are found by scanning.
    pdp_tl_pending pend = c->now->tn_pending;
    if (pend == PDP_PENDING_ERROR && p->tl_event_kind.len == 5 &&
        memcmp(p->tl_event_kind.s, "error", 5) == 0)
        return BOX_OK;
    for (uint32_t i = 0; i < p->tl_nargs; i++) {
        const pdp_targ *a = &p->tl_args[i];
        if (a->ta_term->tt_kind == PDP_TT_WILD || is_unbound(a->ta_term, row) ||
            (pend == PDP_PENDING_RESPONSE && is_output(a->ta_path)))
            continue;
        const pdp_value *v = NULL;
        BOX_TRY(tl_resolve(c, a->ta_term, j, row, &v));
        if (v == NULL) {
            w->tw_more = false; // it never matches: no event
            return BOX_OK;
        }
        int r = pdp_hist_newest_value(h, p->tl_action, p->tl_event_kind.s,
                                      p->tl_event_kind.len, a->ta_path.s,
                                      a->ta_path.len, v, j, &w->tw_cur);
        if (r >= 0) {
            w->tw_mode = TW_VALUE;
            w->tw_more = r == 1;
            if (w->tw_more)
                w->tw_k = pdp_hist_cursor_at(h, &w->tw_cur);
            return BOX_OK;
        }
    }
    int r = pdp_hist_newest(h, p->tl_action, p->tl_event_kind.s,
                            p->tl_event_kind.len, j, &w->tw_k);
    if (r >= 0) {
        w->tw_mode = TW_CHAIN;
        w->tw_more = r == 1;
    }
    return BOX_OK;
}

static void
walk_next(const tl_ctx *c, tl_walk *w)
{
    const pdp_hist *h = c->now->tn_hist;
    switch (w->tw_mode) {
    case TW_SCAN:
        w->tw_more = w->tw_k > 0;
        w->tw_k--;
        break;
    case TW_CHAIN:
        w->tw_more = pdp_hist_prev_same(h, w->tw_k, &w->tw_k);
        break;
    case TW_VALUE:
        w->tw_more = pdp_hist_cursor_prev(h, &w->tw_cur);
        if (w->tw_more)
            w->tw_k = pdp_hist_cursor_at(h, &w->tw_cur);
        break;
    }
}

/* formerly within W φ: the union over the window, walked over the
 * candidates of φ's leading predicate. */
static box_err
tl_formerly(tl_ctx *c, const pdp_tl *t, size_t j, tl_row row, tl_rows *out)
{
    tl_walk w;
    BOX_TRY(walk_start(c, leading_pred(t->tl_l), row, j, &w));
    for (; w.tw_more && in_window(c, j, w.tw_k, t->tl_window); walk_next(c, &w))
        BOX_TRY(tl_rel(c, t->tl_l, w.tw_k, row, out));
    return BOX_OK;
}

static box_err
tl_since(tl_ctx *c, const pdp_tl *t, size_t j, tl_row row, tl_rows *out)
{
    tl_walk w;
    BOX_TRY(walk_start(c, leading_pred(t->tl_r), row, j, &w));
    for (; w.tw_more && in_window(c, j, w.tw_k, t->tl_window);
         walk_next(c, &w)) {
        size_t a = w.tw_k;
        tl_rows anchors = {0};
        BOX_TRY(tl_rel(c, t->tl_r, a, row, &anchors));
        for (size_t r = 0; r < anchors.n; r++) {
            bool all = true;
            for (size_t k = a + 1; k <= j && all; k++)
                BOX_TRY(tl_any(c, t->tl_l, k, anchors.v[r], &all));
            if (all)
                BOX_TRY(rows_add(c, out, anchors.v[r]));
        }
    }
    return BOX_OK;
}

bool
pdp_tterm_ground(const pdp_tterm *t, pdp_tl_bound_fn bound, const void *arg)
{
    switch (t->tt_kind) {
    case PDP_TT_LIT:
    case PDP_TT_DECIMAL:
    case PDP_TT_CONTEXT:
    case PDP_TT_SCOPE:
        return true;
    case PDP_TT_VAR:
        return bound != NULL && bound(arg, t->tt_name);
    case PDP_TT_ARRAY:
        for (uint32_t i = 0; i < t->tt_nitems; i++)
            if (!pdp_tterm_ground(t->tt_items[i], bound, arg))
                return false;
        return true;
    default:
        return false; // wildcards, aggregates
    }
}

/* pdp_tl_bound_fn over a row. */
static bool
row_binds(const void *row, pdp_str name)
{
    return row_get(*(const tl_row *)row, name) != NULL;
}

/* Comparisons (and conjunctions of them) of ground terms: true or false
 * for the row as it is, whatever else a conjunction binds. */
static bool
ground_filter(const pdp_tl *t, tl_row row)
{
    if (t->tl_kind == PDP_TL_AND)
        return ground_filter(t->tl_l, row) && ground_filter(t->tl_r, row);
    return t->tl_kind == PDP_TL_CMP &&
           pdp_tterm_ground(t->tl_a, row_binds, &row) &&
           pdp_tterm_ground(t->tl_b, row_binds, &row);
}

static box_err
tl_rel(tl_ctx *c, const pdp_tl *t, size_t j, tl_row row, tl_rows *out)
{
    switch (t->tl_kind) {
    case PDP_TL_AND: {
        // A conjunction is a join, so its order is free: a right side
        // that only compares what is already known is decided first
        // (`exists p. (… && …) && context.input.program == "sh"` then
        // enumerates nothing for other programs).
        if (ground_filter(t->tl_r, row)) {
            bool any = false;
            BOX_TRY(tl_any(c, t->tl_r, j, row, &any));
            return any ? tl_rel(c, t->tl_l, j, row, out) : BOX_OK;
        }
        tl_rows left = {0};
        BOX_TRY(tl_rel(c, t->tl_l, j, row, &left));
        for (size_t i = 0; i < left.n; i++)
            BOX_TRY(tl_rel(c, t->tl_r, j, left.v[i], out));
        return BOX_OK;
    }
    case PDP_TL_NOT: {
        bool any = false;
        BOX_TRY(tl_any(c, t->tl_l, j, row, &any));
        return any ? BOX_OK : rows_add(c, out, row);
    }
    case PDP_TL_FORMERLY:
        return tl_formerly(c, t, j, row, out);
    case PDP_TL_PREVIOUS:
        if (j == 0 || !in_window(c, j, j - 1, t->tl_window))
            return BOX_OK;
        return tl_rel(c, t->tl_l, j - 1, row, out);
    case PDP_TL_SINCE:
        return tl_since(c, t, j, row, out);
    case PDP_TL_PRED:
        return tl_pred(c, t, j, row, out);
    case PDP_TL_CMP:
        return tl_cmp(c, t, j, row, out);
    case PDP_TL_EXISTS: {
        pdp_str x = t->tl_binder.tb_name;
        const pdp_value *outer = row_get(row, x);
        tl_row inner;
        BOX_TRY(row_set(c, row, x, NULL, &inner));
        tl_rows rs = {0};
        BOX_TRY(tl_rel(c, t->tl_l, j, inner, &rs));
        for (size_t i = 0; i < rs.n; i++) {
            tl_row r;
            BOX_TRY(row_set(c, rs.v[i], x, outer, &r));
            BOX_TRY(rows_add(c, out, r));
        }
        return BOX_OK;
    }
    case PDP_TL_TP: {
        const pdp_value *v = row_get(row, t->tl_binder.tb_name);
        if (v != NULL)
            return pdp_value_kind_of(v) == PDP_VAL_LONG &&
                           pdp_value_as_long(v) == (int64_t)j
                       ? rows_add(c, out, row)
                       : BOX_OK;
        const pdp_value *tp = pdp_value_long(c->a, (int64_t)j);
        if (tp == NULL)
            return BOX_ENOMEM;
        BOX_TRY(row_set(c, row, t->tl_binder.tb_name, tp, &row));
        return rows_add(c, out, row);
    }
    }
    return BOX_OK;
}

box_err
pdp_tl_holds(const pdp_tl *tl, const pdp_tl_now *now, box_arena *scratch,
             bool *out)
{
    *out = false;
    if (now->tn_hist == NULL || now->tn_at >= pdp_hist_len(now->tn_hist))
        return BOX_EINVAL;
    if (now->tn_monitor != NULL &&
        now->tn_monitor(now->tn_monitor_arg, tl, now, scratch, out) == 1)
        return BOX_OK;
    tl_ctx c = {.now = now, .a = scratch};
    tl_rows rs = {0};
    box_err rv = tl_rel(&c, tl, now->tn_at, (tl_row){NULL, 0}, &rs);
    if (rv == BOX_OK)
        *out = rs.n > 0;
    return rv;
}

/* The term's aggregate bodies' windows. */
static int64_t
term_window(const pdp_tterm *t)
{
    if (t == NULL)
        return 0;
    if (t->tt_kind == PDP_TT_COUNT || t->tt_kind == PDP_TT_SUM)
        return pdp_tl_max_window(t->tt_agg->ta_where);
    int64_t w = 0;
    for (uint32_t i = 0; i < t->tt_nitems; i++) {
        int64_t x = term_window(t->tt_items[i]);
        w = x > w ? x : w;
    }
    return w;
}

int64_t
pdp_tl_max_window(const pdp_tl *tl)
{
    if (tl == NULL)
        return 0;
    int64_t w = 0;
    switch (tl->tl_kind) {
    case PDP_TL_FORMERLY:
    case PDP_TL_PREVIOUS:
    case PDP_TL_SINCE:
        w = tl->tl_window;
        break;
    case PDP_TL_CMP: {
        int64_t a = term_window(tl->tl_a), b = term_window(tl->tl_b);
        w = a > b ? a : b;
        break;
    }
    case PDP_TL_PRED:
        for (uint32_t i = 0; i < tl->tl_nargs; i++) {
            int64_t x = term_window(tl->tl_args[i].ta_term);
            w = x > w ? x : w;
        }
        break;
    default:
        break;
    }
    // Nested windows add up: `formerly within 1h (previous within 1h P)`
    // reads up to 2h back.
    int64_t l = pdp_tl_max_window(tl->tl_l), r = pdp_tl_max_window(tl->tl_r);
    int64_t inner = l > r ? l : r;
    if (tl->tl_kind == PDP_TL_FORMERLY || tl->tl_kind == PDP_TL_PREVIOUS ||
        tl->tl_kind == PDP_TL_SINCE)
        return w > INT64_MAX - inner ? INT64_MAX : w + inner;
    return w > inner ? w : inner;
}

static void term_reads(const pdp_tterm *t, pdp_tl_reads_fn fn, void *arg,
                       bool *every);

void
pdp_tl_reads(const pdp_tl *tl, pdp_tl_reads_fn fn, void *arg, bool *every)
{
    if (tl == NULL)
        return;
    switch (tl->tl_kind) {
    case PDP_TL_PREVIOUS:
    case PDP_TL_SINCE:
        // The event just before, or every event since the anchor, is
        // whatever happened: each action's events count.
        *every = true;
        break;
    case PDP_TL_PRED:
        fn(arg, tl->tl_action);
        for (uint32_t i = 0; i < tl->tl_nargs; i++)
            term_reads(tl->tl_args[i].ta_term, fn, arg, every);
        break;
    case PDP_TL_CMP:
        term_reads(tl->tl_a, fn, arg, every);
        term_reads(tl->tl_b, fn, arg, every);
        break;
    default:
        break;
    }
    pdp_tl_reads(tl->tl_l, fn, arg, every);
    pdp_tl_reads(tl->tl_r, fn, arg, every);
}

static void
term_reads(const pdp_tterm *t, pdp_tl_reads_fn fn, void *arg, bool *every)
{
    if (t == NULL)
        return;
    if (t->tt_kind == PDP_TT_COUNT || t->tt_kind == PDP_TT_SUM)
        pdp_tl_reads(t->tt_agg->ta_where, fn, arg, every);
    for (uint32_t i = 0; i < t->tt_nitems; i++)
        term_reads(t->tt_items[i], fn, arg, every);
}

static void term_preds(const pdp_tterm *t, pdp_tl_pred_fn fn, void *arg);

void
pdp_tl_each_pred(const pdp_tl *tl, pdp_tl_pred_fn fn, void *arg)
{
    if (tl == NULL)
        return;
    if (tl->tl_kind == PDP_TL_PRED)
        fn(arg, tl);
    if (tl->tl_kind == PDP_TL_CMP) {
        term_preds(tl->tl_a, fn, arg);
        term_preds(tl->tl_b, fn, arg);
    }
    pdp_tl_each_pred(tl->tl_l, fn, arg);
    pdp_tl_each_pred(tl->tl_r, fn, arg);
}

static void
term_preds(const pdp_tterm *t, pdp_tl_pred_fn fn, void *arg)
{
    if (t != NULL && (t->tt_kind == PDP_TT_COUNT || t->tt_kind == PDP_TT_SUM))
        pdp_tl_each_pred(t->tt_agg->ta_where, fn, arg);
}

typedef struct size_walk {
    size_t n, cap;
    unsigned depth, depth_cap;
} size_walk;

static void tl_size_walk(const pdp_tl *tl, size_walk *w, unsigned d);

static void
term_size_walk(const pdp_tterm *t, size_walk *w, unsigned d)
{
    if (t == NULL || w->n > w->cap || w->depth > w->depth_cap)
        return;
    w->n++;
    if (d > w->depth)
        w->depth = d;
    for (uint32_t i = 0; i < t->tt_nitems; i++)
        term_size_walk(t->tt_items[i], w, d + 1);
    if (t->tt_agg != NULL)
        tl_size_walk(t->tt_agg->ta_where, w, d + 1);
}

static void
tl_size_walk(const pdp_tl *tl, size_walk *w, unsigned d)
{
    if (tl == NULL || w->n > w->cap || w->depth > w->depth_cap)
        return;
    w->n++;
    if (d > w->depth)
        w->depth = d;
    for (uint32_t i = 0; i < tl->tl_nargs; i++)
        term_size_walk(tl->tl_args[i].ta_term, w, d + 1);
    term_size_walk(tl->tl_a, w, d + 1);
    term_size_walk(tl->tl_b, w, d + 1);
    tl_size_walk(tl->tl_l, w, d + 1);
    tl_size_walk(tl->tl_r, w, d + 1);
}

void
pdp_tl_size(const pdp_tl *tl, size_t cap, size_t *nodes, unsigned depth_cap,
            unsigned *depth)
{
    size_walk w = {.cap = cap, .depth_cap = depth_cap};
    tl_size_walk(tl, &w, 1);
    *nodes = w.n;
    *depth = w.depth;
}
