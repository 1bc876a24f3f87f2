/* SPDX-License-Identifier: Apache-2.0 */
/* Entity store lookups and the hierarchy walk behind `in`. */
#include "pdp_entities.h"

#include "pdp_int.h"

static bool
is_uid(const pdp_value *v, const pdp_value *uid)
{
    return v != NULL && v->v_kind == PDP_VAL_ENTITY && pdp_entity_eq(v, uid);
}

static size_t
find_index(const pdp_entities *st, const pdp_value *uid)
{
    for (size_t i = 0; i < st->es_n; i++) {
        if (is_uid(st->es_items[i].et_uid, uid))
            return i;
    }
    return SIZE_MAX;
}

const pdp_entity *
pdp_entities_find(const pdp_entities *st, const pdp_value *uid)
{
    if (st == NULL)
        return NULL;
    size_t i = find_index(st, uid);
    return i == SIZE_MAX ? NULL : &st->es_items[i];
}

/* A depth-first walk up the parents, each store entry visited once (so
 * at most es_n pushes: the stack never outgrows the store). */
box_err
pdp_entities_in(const pdp_entities *st, const pdp_value *e,
                const pdp_value *anc, box_arena *scratch, bool *out)
{
    *out = pdp_entity_eq(e, anc);
    if (*out || st == NULL || st->es_n == 0)
        return BOX_OK;
    size_t start = find_index(st, e);
    if (start == SIZE_MAX)
        return BOX_OK;
    bool *seen = box_arena_zalloc(scratch, st->es_n);
    size_t *stack = box_arena_alloc(scratch, st->es_n * sizeof(*stack));
    if (seen == NULL || stack == NULL)
        return BOX_ENOMEM;
    size_t top = 0;
    stack[top++] = start;
    seen[start] = true;
    while (top > 0) {
        const pdp_value *ps = st->es_items[stack[--top]].et_parents;
        if (ps == NULL || ps->v_kind != PDP_VAL_SET)
            continue;
        for (uint32_t i = 0; i < ps->v_n; i++) {
            const pdp_value *p = ps->u.set.items[i];
            if (p->v_kind != PDP_VAL_ENTITY)
                continue;
            if (pdp_entity_eq(p, anc)) {
                *out = true;
                return BOX_OK;
            }
            size_t j = find_index(st, p);
            if (j != SIZE_MAX && !seen[j]) {
                seen[j] = true;
                stack[top++] = j;
            }
        }
    }
    return BOX_OK;
}
