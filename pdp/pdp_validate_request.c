/* SPDX-License-Identifier: Apache-2.0 */
/* Request validation at decision time (§1.5): the request must conform to
 * the action's declared types, or the decision fails closed. */
#include "pdp_validate.h"

#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_escape.h"
#include "pdp_int.h"

/*
 * Records in the schema are closed: a value conforms to a record type
 * when it has every required attribute, no undeclared one, and each
 * value conforms to its attribute's type. Entity values must name the
 * declared entity type (and, for an enumerated type, a declared id).
 * The walk is bounded by the value's depth (capped when it was built).
 * The first mismatch is reported; its text names the attribute path.
 */

#define REQ_MSG_MAX 4096

static box_err
put_path(box_buf *b, const pdp_str *path, size_t n)
{
    box_err rv = box_buf_putc(b, '`');
    for (size_t i = 0; i < n && rv == BOX_OK; i++) {
        if (i > 0)
            rv = box_buf_putc(b, '.');
        if (rv == BOX_OK)
            rv = box_escape_debug_str(b, path[i].s, path[i].len);
    }
    if (rv == BOX_OK)
        rv = box_buf_putc(b, '`');
    return rv;
}

/* "<what> must be T, not <kind>" */
static box_err
mismatch(box_buf *why, const pdp_str *path, size_t n, const pdp_type *t,
         const pdp_value *v)
{
    box_err rv = put_path(why, path, n);
    if (rv == BOX_OK)
        rv = box_buf_puts(why, " must be ");
    if (rv == BOX_OK)
        rv = pdp_schema_type_format(t, why);
    if (rv != BOX_OK)
        return rv;
    if (v->v_kind == PDP_VAL_ENTITY)
        return box_buf_printf(why, ", not an entity of type %.*s",
                              (int)v->u.ent.tlen, v->u.ent.type);
    return box_buf_printf(why, ", not a %s",
                          pdp_value_kind_name((pdp_value_kind)v->v_kind));
}

/* BOX_OK when v conforms to t; BOX_EINVAL with why filled when not. */
static box_err
conform(const pdp_schema *s, const pdp_type *t, const pdp_value *v,
        pdp_str *path, size_t n, box_buf *why)
{
    box_err rv;
    switch (t->ty_kind) {
    case PDP_TY_BOOL:
        if (v->v_kind == PDP_VAL_BOOL)
            return BOX_OK;
        break;
    case PDP_TY_LONG:
        if (v->v_kind == PDP_VAL_LONG)
            return BOX_OK;
        break;
    case PDP_TY_STRING:
        if (v->v_kind == PDP_VAL_STRING)
            return BOX_OK;
        break;
    case PDP_TY_SET:
        if (v->v_kind != PDP_VAL_SET)
            break;
        for (uint32_t i = 0; i < v->v_n; i++) {
            pdp_str el = {"[element]", 9};
            path[n] = el;
            rv = conform(s, t->ty_elem, v->u.set.items[i], path, n + 1, why);
            if (rv != BOX_OK)
                return rv;
        }
        return BOX_OK;
    case PDP_TY_RECORD:
        if (v->v_kind != PDP_VAL_RECORD)
            break;
        for (uint32_t i = 0; i < t->ty_nattrs; i++) {
            const pdp_attr *at = &t->ty_attrs[i];
            const pdp_value *f =
                pdp_value_get(v, at->at_name.s, at->at_name.len);
            path[n] = at->at_name;
            if (f == NULL) {
                if (!at->at_required)
                    continue;
                if ((rv = put_path(why, path, n + 1)) != BOX_OK ||
                    (rv = box_buf_puts(why, " is required but missing")) !=
                        BOX_OK)
                    return rv;
                return BOX_EINVAL;
            }
            rv = conform(s, at->at_type, f, path, n + 1, why);
            if (rv != BOX_OK)
                return rv;
        }
        for (uint32_t i = 0; i < v->v_n; i++) {
            const char *k = v->u.rec.keys[i];
            size_t kl = v->u.rec.klens[i];
            if (pdp_schema_record_attr(t, k, kl) != NULL)
                continue;
            path[n].s = k;
            path[n].len = kl;
            if ((rv = put_path(why, path, n + 1)) != BOX_OK ||
                (rv = box_buf_puts(why, " is not declared in the schema")) !=
                    BOX_OK)
                return rv;
            return BOX_EINVAL;
        }
        return BOX_OK;
    case PDP_TY_ENTITY:
        if (v->v_kind != PDP_VAL_ENTITY || v->u.ent.tlen != t->ty_name.len ||
            !pdp_bytes_eq(v->u.ent.type, t->ty_name.s, t->ty_name.len))
            break;
        {
            const pdp_schema_entity *en =
                pdp_schema_entity_find(s, t->ty_name.s, t->ty_name.len);
            if (en == NULL || !en->en_is_enum)
                return BOX_OK;
            for (uint32_t i = 0; i < en->en_nenum; i++) {
                if (en->en_enum[i].len == v->u.ent.idlen &&
                    pdp_bytes_eq(en->en_enum[i].s, v->u.ent.id, v->u.ent.idlen))
                    return BOX_OK;
            }
            if ((rv = put_path(why, path, n)) != BOX_OK ||
                (rv = box_buf_printf(why, " is %.*s::\"", (int)v->u.ent.tlen,
                                     v->u.ent.type)) != BOX_OK ||
                (rv = box_escape_debug_str(why, v->u.ent.id, v->u.ent.idlen)) !=
                    BOX_OK ||
                (rv = box_buf_puts(why, "\", which is not a declared id of "
                                        "that enumerated type")) != BOX_OK)
                return rv;
            return BOX_EINVAL;
        }
    case PDP_TY_EXT: { // Cedar's type names are the kinds' names
        const char *k = pdp_value_kind_name((pdp_value_kind)v->v_kind);
        if (strlen(k) == t->ty_name.len &&
            pdp_bytes_eq(k, t->ty_name.s, t->ty_name.len))
            return BOX_OK;
        break;
    }
    case PDP_TY_TRUE:
    case PDP_TY_FALSE:
    case PDP_TY_NEVER:
        break;
    }
    if ((rv = mismatch(why, path, n, t, v)) != BOX_OK)
        return rv;
    return BOX_EINVAL;
}

static box_err
finish(box_err rv, box_buf *why, char **errmsg)
{
    if (rv == BOX_ETOOBIG)
        rv = BOX_EINVAL; // the text is cut; the mismatch stands
    if (rv == BOX_EINVAL) {
        *errmsg = box_buf_take(why);
        if (*errmsg == NULL)
            rv = BOX_ENOMEM;
    }
    box_buf_reset(why);
    return rv;
}

/* "request for A does not match the schema: " */
static box_err
prefix(box_buf *why, const pdp_value *action)
{
    box_err rv = box_buf_puts(why, "request for ");
    if (rv == BOX_OK)
        rv = pdp_value_format(action, why);
    if (rv == BOX_OK)
        rv = box_buf_puts(why, " does not match the schema: ");
    return rv;
}

static box_err
lookup(const pdp_schema *s, const pdp_value *action, box_buf *why,
       const pdp_schema_action **out)
{
    box_err rv;
    *out = NULL;
    if (action == NULL || action->v_kind != PDP_VAL_ENTITY) {
        if ((rv = box_buf_puts(why, "request action is not an entity")) !=
            BOX_OK)
            return rv;
        return BOX_EINVAL;
    }
    *out = pdp_schema_action_find(s, action);
    if (*out == NULL || !(*out)->ac_applies) {
        if ((rv = box_buf_puts(why, *out == NULL ? "unrecognized action `"
                                                 : "action `")) != BOX_OK ||
            (rv = pdp_value_format(action, why)) != BOX_OK ||
            (rv = box_buf_puts(
                 why, *out == NULL ? "`" : "` applies to no request")) !=
                BOX_OK)
            return rv;
        return BOX_EINVAL;
    }
    return BOX_OK;
}

/* finish, for a mismatch found once the action is known: the text gets
 * its "request for A does not match the schema: " in front. Made only
 * then: most requests conform, and formatting the action is not free. */
static box_err
finish_prefixed(box_err rv, box_buf *why, const pdp_value *action,
                char **errmsg)
{
    if (rv != BOX_EINVAL && rv != BOX_ETOOBIG)
        return finish(rv, why, errmsg);
    box_buf full;
    box_buf_init(&full, REQ_MSG_MAX);
    box_err prv = prefix(&full, action);
    if (prv == BOX_OK && why->b_len > 0)
        prv = box_buf_append(&full, why->b_data, why->b_len);
    box_buf_reset(why);
    if (prv == BOX_ENOMEM) {
        box_buf_reset(&full);
        return BOX_ENOMEM;
    }
    return finish(BOX_EINVAL, &full, errmsg); // a cut text still refuses
}

box_err
pdp_validate_request(const pdp_schema *s, const pdp_value *action,
                     const pdp_value *input, char **errmsg)
{
    box_buf why;
    box_buf_init(&why, REQ_MSG_MAX);
    *errmsg = NULL;
    const pdp_schema_action *a;
    pdp_str path[PDP_VALUE_MAX_DEPTH + 2];
    box_err rv = lookup(s, action, &why, &a);
    if (rv != BOX_OK)
        return finish(rv, &why, errmsg);
    const pdp_attr *at = pdp_schema_record_attr(a->ac_context, "input", 5);
    path[0].s = "input";
    path[0].len = 5;
    if (at == NULL) {
        rv = box_buf_puts(&why, "the action declares no `input`");
        return finish_prefixed(rv == BOX_OK ? BOX_EINVAL : rv, &why, action,
                               errmsg);
    }
    if (input == NULL) {
        rv = box_buf_puts(&why, "`input` is required but missing");
        return finish_prefixed(rv == BOX_OK ? BOX_EINVAL : rv, &why, action,
                               errmsg);
    }
    rv = conform(s, at->at_type, input, path, 1, &why);
    return finish_prefixed(rv, &why, action, errmsg);
}

static bool
type_listed(const pdp_value *e, const pdp_str *types, uint32_t n)
{
    if (e == NULL || e->v_kind != PDP_VAL_ENTITY)
        return false;
    for (uint32_t i = 0; i < n; i++) {
        if (types[i].len == e->u.ent.tlen &&
            pdp_bytes_eq(types[i].s, e->u.ent.type, e->u.ent.tlen))
            return true;
    }
    return false;
}

box_err
pdp_validate_request_full(const pdp_schema *s, const pdp_request *rq,
                          char **errmsg)
{
    box_buf why;
    box_buf_init(&why, REQ_MSG_MAX);
    *errmsg = NULL;
    const pdp_schema_action *a;
    pdp_str path[PDP_VALUE_MAX_DEPTH + 2];
    box_err rv = lookup(s, rq->rq_action, &why, &a);
    if (rv != BOX_OK)
        return finish(rv, &why, errmsg);
    const char *bad = NULL;
    if (!type_listed(rq->rq_principal, a->ac_principals, a->ac_nprincipals))
        bad = "principal";
    else if (!type_listed(rq->rq_resource, a->ac_resources, a->ac_nresources))
        bad = "resource";
    if (bad != NULL) {
        rv = box_buf_printf(&why,
                            "the %s is not of a type the action "
                            "applies to",
                            bad);
        return finish_prefixed(rv == BOX_OK ? BOX_EINVAL : rv, &why,
                               rq->rq_action, errmsg);
    }
    if (rq->rq_context == NULL) {
        rv = box_buf_puts(&why, "the context is missing");
        return finish_prefixed(rv == BOX_OK ? BOX_EINVAL : rv, &why,
                               rq->rq_action, errmsg);
    }
    rv = conform(s, a->ac_context, rq->rq_context, path, 0, &why);
    return finish_prefixed(rv, &why, rq->rq_action, errmsg);
}
