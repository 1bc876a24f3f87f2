/* SPDX-License-Identifier: Apache-2.0 */
/* pdp_reads: the context.input fields an action's rules name. */
#include "pdp_reads.h"

#include <string.h>

static bool
reads_is(pdp_str s, const char *lit)
{
    size_t n = strlen(lit);
    return s.len == n && memcmp(s.s, lit, n) == 0;
}

static bool
reads_is_context(const pdp_expr *x)
{
    return x->x_kind == PDP_X_VAR && x->u.var == PDP_VAR_CONTEXT;
}

/* context.input (or context["input"]) */
static bool
reads_is_input(const pdp_expr *x)
{
    return x->x_kind == PDP_X_ATTR && reads_is_context(x->u.attr.obj) &&
           reads_is(x->u.attr.name, "input");
}

static void
reads_add(pdp_reads *r, pdp_str name)
{
    for (size_t i = 0; i < r->rd_n; i++)
        if (r->rd_fields[i].len == name.len &&
            memcmp(r->rd_fields[i].s, name.s, name.len) == 0)
            return;
    if (r->rd_n == PDP_READS_MAX) {
        r->rd_all = true;
        return;
    }
    r->rd_fields[r->rd_n++] = name;
}

static void reads_walk(pdp_reads *r, const pdp_expr *x);

static void
reads_walk_list(pdp_reads *r, const pdp_expr *const *xs, uint32_t n)
{
    for (uint32_t i = 0; i < n && !r->rd_all; i++)
        reads_walk(r, xs[i]);
}

/* Only `context.input.F`, `context.input has F…` and `context has
 * input.F…` narrow; any other use of context is every field. */
static void
reads_walk(pdp_reads *r, const pdp_expr *x)
{
    if (x == NULL || r->rd_all)
        return;
    switch (x->x_kind) {
    case PDP_X_LIT:
        return;
    case PDP_X_VAR:
        if (x->u.var == PDP_VAR_CONTEXT)
            r->rd_all = true;
        return;
    case PDP_X_NOT:
    case PDP_X_NEG:
        reads_walk(r, x->u.un.arg);
        return;
    case PDP_X_AND:
    case PDP_X_OR:
    case PDP_X_SET:
        reads_walk_list(r, x->u.list.items, x->u.list.n);
        return;
    case PDP_X_EQ:
    case PDP_X_NE:
    case PDP_X_LT:
    case PDP_X_LE:
    case PDP_X_GT:
    case PDP_X_GE:
    case PDP_X_IN:
    case PDP_X_ADD:
    case PDP_X_SUB:
    case PDP_X_MUL:
        reads_walk(r, x->u.bin.l);
        reads_walk(r, x->u.bin.r);
        return;
    case PDP_X_HAS:
        if (reads_is_input(x->u.has.obj) && x->u.has.n >= 1) {
            reads_add(r, x->u.has.path[0]);
        } else if (reads_is_context(x->u.has.obj) && x->u.has.n >= 2 &&
                   reads_is(x->u.has.path[0], "input")) {
            reads_add(r, x->u.has.path[1]);
        } else {
            reads_walk(r, x->u.has.obj);
        }
        return;
    case PDP_X_LIKE:
        reads_walk(r, x->u.like.obj);
        return;
    case PDP_X_ATTR:
        if (reads_is_input(x->u.attr.obj))
            reads_add(r, x->u.attr.name);
        else
            reads_walk(r, x->u.attr.obj);
        return;
    case PDP_X_IF:
        reads_walk(r, x->u.cond.c);
        reads_walk(r, x->u.cond.t);
        reads_walk(r, x->u.cond.e);
        return;
    case PDP_X_RECORD:
        reads_walk_list(r, x->u.rec.vals, x->u.rec.n);
        return;
    case PDP_X_METHOD:
    case PDP_X_CALL: // recv is NULL for a function
        reads_walk(r, x->u.call.recv);
        reads_walk_list(r, x->u.call.args, x->u.call.n);
        return;
    case PDP_X_IS:
        reads_walk(r, x->u.is.obj);
        reads_walk(r, x->u.is.in);
        return;
    case PDP_X_TEMPORAL: // context.* terms and the history: everything
    case PDP_X_COUNT:
        break;
    }
    r->rd_all = true; // a kind this walker does not know: assume the worst
}

static void
reads_rules(pdp_reads *r, const pdp_rule *const *rules, size_t n)
{
    for (size_t i = 0; i < n && !r->rd_all; i++)
        for (uint32_t c = 0; c < rules[i]->r_nconds && !r->rd_all; c++)
            reads_walk(r, rules[i]->r_conds[c].cd_body);
}

void
pdp_reads_rules(pdp_reads *out, const pdp_rule *const *a, size_t na,
                const pdp_rule *const *b, size_t nb)
{
    memset(out, 0, sizeof *out);
    reads_rules(out, a, na);
    reads_rules(out, b, nb);
}

const pdp_reads *
pdp_reads_for_action(const pdp_policy_set *set, const pdp_value *action)
{
    return pdp_policy_reads(set, action);
}
