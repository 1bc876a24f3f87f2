/* SPDX-License-Identifier: Apache-2.0 */
/* Strict typing of calls: set, tag and extension methods, and the
 * extension constructors (dogwood-spec §6.1, Cedar's strict mode). */
#include <stdio.h>
#include <string.h>

#include "pdp_ext.h"
#include "pdp_int.h"
#include "pdp_validate_int.h"

/*
 * The operand and result kinds come from pdp_ext.c's table, so a new
 * extension method is typed without code here. Cedar's rules kept:
 * a constructor takes a string literal only and the literal must parse
 * (the two refusal texts of §6.1); `hasTag` on an entity type that
 * declares no tags is constant false; `getTag` needs declared tags and a
 * `hasTag` of the same key on the same entity earlier on the path (a
 * capability, as `has` gives for optional attributes).
 */

static const pdp_type ty_decimal = {PDP_TY_EXT, NULL, NULL, 0, {"decimal", 7}};
static const pdp_type ty_ipaddr = {PDP_TY_EXT, NULL, NULL, 0, {"ipaddr", 6}};
static const pdp_type ty_datetime = {PDP_TY_EXT, NULL, NULL, 0,
                                     {"datetime", 8}};
static const pdp_type ty_duration = {PDP_TY_EXT, NULL, NULL, 0,
                                     {"duration", 8}};

const pdp_type *
pv_ext_type(pdp_value_kind k)
{
    switch (k) {
    case PDP_VAL_DECIMAL:
        return &ty_decimal;
    case PDP_VAL_IPADDR:
        return &ty_ipaddr;
    case PDP_VAL_DATETIME:
        return &ty_datetime;
    case PDP_VAL_DURATION:
        return &ty_duration;
    default:
        return NULL;
    }
}

/* The type of a table kind (Bool, Long, String or an extension). */
static const pdp_type *
kind_type(uint8_t k)
{
    switch (k) {
    case PDP_VAL_BOOL:
        return &pv_ty_bool;
    case PDP_VAL_LONG:
        return &pv_ty_long;
    case PDP_VAL_STRING:
        return &pv_ty_string;
    default:
        return pv_ext_type((pdp_value_kind)k);
    }
}

/* t is exactly want (a scalar or an extension type; NULL: any type);
 * otherwise an unexpected-type error. Never passes silently (false). */
static bool
want_type(vctx *v, const pdp_expr *e, const pdp_type *t, const pdp_type *want)
{
    if (t->ty_kind == PDP_TY_NEVER)
        return false;
    if (want == NULL)
        return true;
    if (t->ty_kind == want->ty_kind &&
        (want->ty_kind != PDP_TY_EXT ||
         (t->ty_name.len == want->ty_name.len &&
          memcmp(t->ty_name.s, want->ty_name.s, want->ty_name.len) == 0)))
        return true;
    if (want->ty_kind == PDP_TY_BOOL && pv_is_boolish(t))
        return true;
    pv_unexpected(v, e->x_pos, want->ty_name.s, t);
    return false;
}

/* contains, containsAll, containsAny, isEmpty */
static const pdp_type *
tc_set_method(vctx *v, const pdp_expr *e, const capn *in)
{
    const capn *ign;
    const pdp_type *recv = pv_tc(v, e->u.call.recv, in, &ign);
    const pdp_type *arg =
        e->u.call.n > 0 ? pv_tc(v, e->u.call.args[0], in, &ign) : NULL;
    bool ok = pv_want_kind(v, e->u.call.recv, recv, PDP_TY_SET, ANY_SET);
    switch (e->u.call.m) {
    case PDP_M_CONTAINS:
        if (!ok || arg == NULL || arg->ty_kind == PDP_TY_NEVER)
            return &pv_ty_never;
        if (recv->ty_elem != NULL && !pv_compatible(recv->ty_elem, arg)) {
            pv_incompatible(v, e->x_oppos, recv->ty_elem, arg,
                            "elements of the first operand and the second "
                            "operand to a `contains` expression");
            return &pv_ty_never;
        }
        return &pv_ty_bool;
    case PDP_M_CONTAINS_ALL:
    case PDP_M_CONTAINS_ANY:
        if (arg == NULL)
            return &pv_ty_never;
        ok = pv_want_kind(v, e->u.call.args[0], arg, PDP_TY_SET, ANY_SET) &&
             ok;
        if (!ok)
            return &pv_ty_never;
        if (recv->ty_elem != NULL && arg->ty_elem != NULL &&
            !pv_compatible(recv->ty_elem, arg->ty_elem)) {
            pv_incompatible(v, e->x_oppos, recv, arg,
                            "elements of both set operands to a "
                            "`containsAll` or `containsAny` expression");
            return &pv_ty_never;
        }
        return &pv_ty_bool;
    default: // isEmpty
        return ok ? &pv_ty_bool : &pv_ty_never;
    }
}

/* The capability key of obj.hasTag(key): obj's access key, a separator
 * no attribute key uses, and the key expression's dump. False when obj
 * is not a variable followed by attribute reads. */
static bool
tag_key(vctx *v, const pdp_expr *obj, const pdp_expr *key, pdp_str *out)
{
    box_buf b;
    box_buf_init(&b, 1u << 16);
    box_err rv = pv_access_key(obj, &b);
    if (rv == BOX_OK)
        rv = box_buf_putc(&b, '\x03');
    if (rv == BOX_OK)
        rv = pdp_expr_dump(key, &b);
    bool ok = false;
    if (rv == BOX_OK) {
        char *s = box_arena_strndup(v->v_a, b.b_data, b.b_len);
        if (s != NULL) {
            out->s = s;
            out->len = b.b_len;
            ok = true;
        } else {
            v->v_rv = BOX_ENOMEM;
        }
    } else if (rv == BOX_ENOMEM) {
        v->v_rv = rv;
    }
    box_buf_reset(&b);
    return ok;
}

/* hasTag / getTag */
static const pdp_type *
tc_tag(vctx *v, const pdp_expr *e, const capn *in, const capn **out)
{
    const capn *ign;
    const pdp_expr *obj = e->u.call.recv, *key = e->u.call.args[0];
    const pdp_type *recv = pv_tc(v, obj, in, &ign);
    const pdp_type *kt = pv_tc(v, key, in, &ign);
    bool ok = pv_want_kind(v, obj, recv, PDP_TY_ENTITY, ANY_ENTITY);
    ok = pv_want_kind(v, key, kt, PDP_TY_STRING, "String") && ok;
    if (!ok)
        return &pv_ty_never;
    const pdp_schema_entity *en = pdp_schema_entity_find(
        v->v_schema, recv->ty_name.s, recv->ty_name.len);
    const pdp_type *tags = en != NULL ? en->en_tags : NULL;
    pdp_str ck = {NULL, 0};
    bool tracked = tag_key(v, obj, key, &ck);
    if (e->u.call.m == PDP_M_HAS_TAG) {
        if (tags == NULL)
            return &pv_ty_false; // no entity of this type has tags
        if (!tracked)
            return &pv_ty_bool;
        if (pv_cap_has(in, ck))
            return &pv_ty_true;
        *out = pv_cap_add(v, in, ck);
        return &pv_ty_bool;
    }
    if (tags == NULL) {
        pv_verr(v, e->x_oppos, "`.getTag()` is not allowed on entities of "
                "type `%.*s` because no `tags` were declared on the entity "
                "type in the schema", (int)recv->ty_name.len,
                recv->ty_name.s);
        return &pv_ty_never;
    }
    if (!tracked || !pv_cap_has(in, ck)) {
        box_buf b;
        box_buf_init(&b, 512);
        box_err rv = pdp_expr_dump(key, &b);
        if (rv == BOX_ENOMEM)
            v->v_rv = rv;
        pv_verr(v, e->x_oppos, "unable to guarantee safety of access to tag "
                "`%s` on entity type `%.*s`",
                b.b_data != NULL ? b.b_data : "…", (int)recv->ty_name.len,
                recv->ty_name.s);
        box_buf_reset(&b);
        return &pv_ty_never;
    }
    return tags;
}

/* An extension method: the receiver and argument of the row's types. */
static const pdp_type *
tc_ext_method(vctx *v, const pdp_expr *e, const capn *in)
{
    const pdp_ext_fn *f = pdp_ext_fn_of(e->u.call.m);
    const capn *ign;
    const pdp_type *recv = pv_tc(v, e->u.call.recv, in, &ign);
    const pdp_type *arg =
        e->u.call.n > 0 ? pv_tc(v, e->u.call.args[0], in, &ign) : NULL;
    bool ok = want_type(v, e->u.call.recv, recv, kind_type(f->xf_recv));
    if (arg != NULL && !want_type(v, e->u.call.args[0], arg,
                                  kind_type(f->xf_arg)))
        ok = false;
    const pdp_type *res = kind_type(f->xf_result);
    return ok && res != NULL ? res : &pv_ty_never;
}

const pdp_type *
pv_tc_method(vctx *v, const pdp_expr *e, const capn *in, const capn **out)
{
    *out = in;
    switch (e->u.call.m) {
    case PDP_M_CONTAINS:
    case PDP_M_CONTAINS_ALL:
    case PDP_M_CONTAINS_ANY:
    case PDP_M_IS_EMPTY:
        return tc_set_method(v, e, in);
    case PDP_M_HAS_TAG:
    case PDP_M_GET_TAG:
        return tc_tag(v, e, in, out);
    default:
        return tc_ext_method(v, e, in);
    }
}

const pdp_type *
pv_tc_call(vctx *v, const pdp_expr *e, const capn *in)
{
    const pdp_ext_fn *f = pdp_ext_fn_of(e->u.call.m);
    const pdp_expr *arg = e->u.call.args[0];
    const capn *ign;
    const pdp_type *t = pv_tc(v, arg, in, &ign);
    if (!pv_want_kind(v, arg, t, PDP_TY_STRING, "String"))
        return &pv_ty_never;
    if (arg->x_kind != PDP_X_LIT) {
        pv_verr(v, e->x_pos, "extension constructors may not be called with "
                "non-literal expressions");
        return &pv_ty_never;
    }
    if (e->x_const == NULL) { // the parser folds every valid literal
        char msg[PDP_EXT_MSG_MAX + 128];
        const pdp_value *val = NULL;
        box_err rv = pdp_ext_construct(e->u.call.m, arg->x_const->u.str.s,
                                       arg->x_const->u.str.len, v->v_a, &val,
                                       msg, sizeof(msg));
        if (rv == BOX_EINVAL)
            pv_verr(v, e->x_pos, "error during extension function argument "
                    "validation: %s", msg);
        else if (rv != BOX_OK)
            v->v_rv = rv;
        if (rv != BOX_OK)
            return &pv_ty_never;
    }
    return kind_type(f->xf_result);
}
