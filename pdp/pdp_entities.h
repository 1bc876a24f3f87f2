/* SPDX-License-Identifier: Apache-2.0 */
/* An entity store: the attributes, tags and parents of entities (§3.1). */
#ifndef PDP_ENTITIES_H
#define PDP_ENTITIES_H

#include <stdbool.h>
#include <stddef.h>

#include "box_arena.h"
#include "box_err.h"
#include "pdp_value.h"

/*
 * What the hierarchy (`in`), attribute (`e.a`, `has`) and tag
 * (`hasTag`, `getTag`) operators read of an entity. A store is the
 * caller's array; everything in it is borrowed for the evaluation. Box
 * has none: its principal and resource have no attributes, tags or
 * parents, and an entity absent from a store is still a valid uid that
 * has none either (in the store or not, `e in e` holds).
 */
typedef struct pdp_entity {
    const pdp_value *et_uid;     // an entity
    const pdp_value *et_attrs;   // a record, or NULL for none
    const pdp_value *et_tags;    // a record, or NULL for none
    const pdp_value *et_parents; // a set of entities, or NULL for none
} pdp_entity;

/* Lookups are linear (a store is small); the first entry with a uid
 * wins. */
typedef struct pdp_entities {
    const pdp_entity *es_items;
    size_t es_n;
} pdp_entities;

/* The entry of uid (an entity value), or NULL (also for st NULL). */
const pdp_entity *pdp_entities_find(const pdp_entities *st,
                                    const pdp_value *uid);

/*
 * *out = e is anc or anc is an ancestor of e through the parents in st
 * (transitively; a cycle in the store ends the walk, it does not loop).
 * scratch holds the walk's marks. BOX_OK, or BOX_ENOMEM.
 */
box_err pdp_entities_in(const pdp_entities *st, const pdp_value *e,
                        const pdp_value *anc, box_arena *scratch,
                        bool *out) BOX_WARN_UNUSED;

#endif
