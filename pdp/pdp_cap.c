/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The permit-cap judgement (dogwood-spec §6.3): a temporal `permit` that
 * stands beside another permit of the same requests cannot cap them (a
 * permit never narrows another permit), so a budget written that way is
 * refused, or said to be inert where it can only be partly so.
 */
#include "pdp_cap.h"

#include <string.h>

#include "pdp_ast.h"
#include "pdp_value.h"

/* ORDER CAP_KIND */
typedef enum cap_kind {
    CAP_NONE,     // no condition that can exclude a request
    CAP_PLAIN,    // a condition, none of it temporal
    CAP_TEMPORAL, // a temporal block somewhere in its conditions
} cap_kind;

/* `when { true }` and `unless { false }` exclude nothing (a bare rule
 * lowers to the first). */
static bool
vacuous(const pdp_cond *c)
{
    const pdp_expr *b = c->cd_body;
    return b->x_kind == PDP_X_LIT &&
           pdp_value_kind_of(b->x_const) == PDP_VAL_BOOL &&
           pdp_value_as_bool(b->x_const) == (c->cd_kind == PDP_COND_WHEN);
}

static cap_kind
kind_of(const pdp_rule *r)
{
    bool plain = false;
    for (uint32_t i = 0; i < r->r_nconds; i++) {
        if (pdp_expr_find(r->r_conds[i].cd_body, PDP_X_TEMPORAL) != NULL)
            return CAP_TEMPORAL;
        plain |= !vacuous(&r->r_conds[i]);
    }
    return plain ? CAP_PLAIN : CAP_NONE;
}

/* The same constraint, written alike. */
static bool
same_scope(const pdp_scope *a, const pdp_scope *b)
{
    if (a->sc_op != b->sc_op || a->sc_n != b->sc_n ||
        a->sc_type.len != b->sc_type.len ||
        (a->sc_type.len > 0 &&
         memcmp(a->sc_type.s, b->sc_type.s, a->sc_type.len) != 0))
        return false;
    for (uint32_t i = 0; i < a->sc_n; i++)
        if (!pdp_value_equal(a->sc_ents[i], b->sc_ents[i]))
            return false;
    return true;
}

static bool
principal_covered(const pdp_rule *b, const pdp_rule *o)
{
    return o->r_principal.sc_op == PDP_SCOPE_ANY ||
           same_scope(&o->r_principal, &b->r_principal);
}

/* O's actions hold all of B's (an unconstrained B is every action). */
static bool
action_covered(const pdp_rule *b, const pdp_rule *o)
{
    const pdp_scope *bs = &b->r_action, *os = &o->r_action;
    if (os->sc_op == PDP_SCOPE_ANY)
        return true;
    if (bs->sc_op == PDP_SCOPE_ANY)
        return false;
    for (uint32_t i = 0; i < bs->sc_n; i++) {
        bool found = false;
        for (uint32_t j = 0; j < os->sc_n && !found; j++)
            found = pdp_value_equal(bs->sc_ents[i], os->sc_ents[j]);
        if (!found)
            return false;
    }
    return true;
}

/* ORDER COVER */
typedef enum cover {
    COVER_YES,
    COVER_DISJOINT,
    COVER_UNDECIDED,
} cover;

static cover
resource_cover(const pdp_rule *b, const pdp_rule *o)
{
    const pdp_scope *bs = &b->r_resource, *os = &o->r_resource;
    if (os->sc_op == PDP_SCOPE_ANY)
        return COVER_YES;
    if (bs->sc_op == PDP_SCOPE_EQ && os->sc_op == PDP_SCOPE_EQ)
        return pdp_value_equal(bs->sc_ents[0], os->sc_ents[0])
                   ? COVER_YES
                   : COVER_DISJOINT;
    return same_scope(bs, os) ? COVER_YES : COVER_UNDECIDED;
}

/* "{B} carries a temporal clause beside {O}, which …" */
static box_err
put_pair(box_buf *out, const pdp_rule *b, const pdp_rule *o, const char *tail)
{
    box_err rv = pdp_rule_put_name(out, b);
    if (rv == BOX_OK)
        rv = box_buf_puts(out, " carries a temporal clause beside ");
    if (rv == BOX_OK)
        rv = pdp_rule_put_name(out, o);
    return rv == BOX_OK ? box_buf_puts(out, tail) : rv;
}

box_err
pdp_cap_judge(const pdp_ast *ast, pdp_validate_warnings *warn, box_buf *msg)
{
    static const char refused[] =
        ", which permits the same action with no condition; a permit cannot "
        "narrow another permit, so write the cap as a forbid";
    static const char inert[] =
        ", which also permits that action; the budget is inert for every "
        "request the other rule admits, so write a cap as a forbid";
    box_buf w;
    box_buf_init(&w, 1u << 16);
    box_err rv = BOX_OK;
    bool any = false;
    for (uint32_t i = 0; i < ast->as_nrules && rv == BOX_OK; i++) {
        const pdp_rule *b = ast->as_rules[i];
        if (b->r_effect != PDP_PERMIT || kind_of(b) != CAP_TEMPORAL)
            continue;
        for (uint32_t j = 0; j < ast->as_nrules && rv == BOX_OK; j++) {
            const pdp_rule *o = ast->as_rules[j];
            if (j == i || o->r_effect != PDP_PERMIT)
                continue;
            cap_kind ok = kind_of(o);
            cover rc = resource_cover(b, o);
            if (ok == CAP_TEMPORAL || !principal_covered(b, o) ||
                !action_covered(b, o) || rc == COVER_DISJOINT)
                continue;
            if (ok == CAP_NONE && rc == COVER_YES) {
                rv = box_buf_puts(msg, any ? "; " : "policy writes a cap as "
                                                    "a permit: ");
                if (rv == BOX_OK)
                    rv = put_pair(msg, b, o, refused);
                any = true;
            } else if (warn != NULL) {
                box_buf_truncate(&w, 0);
                rv = put_pair(&w, b, o, inert);
                if (rv == BOX_OK)
                    rv = pdp_validate_warnings_add(warn, w.b_data, w.b_len);
            }
        }
    }
    box_buf_reset(&w);
    if (rv == BOX_OK && any)
        return BOX_ECONFIG;
    return rv;
}
