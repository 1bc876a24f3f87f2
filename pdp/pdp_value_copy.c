/* SPDX-License-Identifier: Apache-2.0 */
/* Deep copies of values into another arena: a decision's request lives
 * in per-call scratch, its history event must outlive it. */
#include <string.h>

#include "pdp_int.h"
#include "pdp_value.h"

box_err
pdp_value_copy(box_arena *a, const pdp_value *v, const pdp_value **out)
{
    *out = NULL;
    pdp_value *c = box_arena_alloc(a, sizeof *c);
    if (c == NULL)
        return BOX_ENOMEM;
    memcpy(c, v, sizeof *c); // scalars (and extension values) are inline
    switch ((pdp_value_kind)v->v_kind) {
    case PDP_VAL_STRING:
        if ((c->u.str.s = box_arena_strndup(a, v->u.str.s, v->u.str.len)) ==
            NULL)
            return BOX_ENOMEM;
        break;
    case PDP_VAL_ENTITY:
        if ((c->u.ent.type = box_arena_strndup(a, v->u.ent.type,
                                               v->u.ent.tlen)) == NULL ||
            (c->u.ent.id = box_arena_strndup(a, v->u.ent.id,
                                             v->u.ent.idlen)) == NULL)
            return BOX_ENOMEM;
        break;
    case PDP_VAL_SET: {
        const pdp_value **items =
            box_arena_alloc(a, (v->v_n + 1) * sizeof *items);
        if (items == NULL)
            return BOX_ENOMEM;
        for (uint32_t i = 0; i < v->v_n; i++)
            if (pdp_value_copy(a, v->u.set.items[i], &items[i]) != BOX_OK)
                return BOX_ENOMEM;
        c->u.set.items = items;
        c->v_cap = v->v_n;
        break;
    }
    case PDP_VAL_RECORD: {
        const char **keys = box_arena_alloc(a, (v->v_n + 1) * sizeof *keys);
        size_t *klens = box_arena_alloc(a, (v->v_n + 1) * sizeof *klens);
        const pdp_value **vals =
            box_arena_alloc(a, (v->v_n + 1) * sizeof *vals);
        if (keys == NULL || klens == NULL || vals == NULL)
            return BOX_ENOMEM;
        for (uint32_t i = 0; i < v->v_n; i++) {
            klens[i] = v->u.rec.klens[i];
            if ((keys[i] = box_arena_strndup(a, v->u.rec.keys[i],
                                             klens[i])) == NULL ||
                pdp_value_copy(a, v->u.rec.vals[i], &vals[i]) != BOX_OK)
                return BOX_ENOMEM;
        }
        c->u.rec.keys = keys;
        c->u.rec.klens = klens;
        c->u.rec.vals = vals;
        c->v_cap = v->v_n;
        break;
    }
    default:
        break;
    }
    *out = c;
    return BOX_OK;
}
