/* SPDX-License-Identifier: Apache-2.0 */
/* Random Cedar cases (a policy set and a request) for the differential. */
#ifndef CD_GEN_H
#define CD_GEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_arena.h"
#include "box_buf.h"
#include "box_err.h"

/*
 * A case is a whole function of (seed, index): the generator seeds its
 * PRNG from both, so `cedar_diff --seed S --case I` rebuilds case I of a
 * run exactly, alone. Everything a case holds lives in the arena given to
 * cd_case_gen, except the policy text (a box_buf the case owns).
 *
 * Values are plain data, written twice: as Cedar's JSON for the peer
 * (cd_case_json) and as pdp_values for box (cd_main.c). Longs in a
 * request stay within +-2^53 (a JS number is a double); the policies
 * carry the large ones, as literals.
 */

/* ORDER CD_KIND: cd_kind_name() follows this order. */
typedef enum cd_kind {
    CD_BOOL,
    CD_LONG,
    CD_STR,
    CD_SET,
    CD_REC,
    CD_ENT,
    CD_DEC, // decimal, from its literal text
    CD_IP,  // ipaddr, likewise
    CD_DT,  // datetime
    CD_DUR, // duration
    CD_NKINDS
} cd_kind;

typedef struct cd_val {
    cd_kind k;
    bool b;
    int64_t l;
    // CD_STR: the bytes (UTF-8, may hold NUL); CD_ENT: the id; the
    // extension kinds: the constructor's argument (always a valid one).
    const char *s;
    size_t n;
    const char *type;            // CD_ENT: "Box::Agent", …
    const struct cd_val **items; // CD_SET elements, CD_REC values
    const char **keys;           // CD_REC keys (no NUL inside)
    size_t nitems;
} cd_val;

/* An entity of the store: attributes, tags (records or NULL), parents. */
typedef struct cd_entity {
    const cd_val *uid;
    const cd_val *attrs;
    const cd_val *tags;
    const cd_val **parents;
    size_t nparents;
} cd_entity;

typedef struct cd_case {
    uint64_t c_seed;
    uint64_t c_index;
    box_buf c_policies; // the policy set's text (owned; cd_case_free)
    unsigned c_npolicies;
    const cd_val *c_principal, *c_action, *c_resource;
    const cd_val *c_context; // a record
    const cd_entity *c_entities;
    size_t c_nentities;
} cd_case;

/* Most policies in one set: the comparer keeps them in a bit mask. */
#define CD_MAX_POLICIES 6

/* Builds case (seed, index) into c, its values in a (reset by the
 * caller between cases). BOX_ENOMEM when the arena or a buffer is full. */
box_err cd_case_gen(cd_case *c, box_arena *a, uint64_t seed,
                    uint64_t index) BOX_WARN_UNUSED;
/* Frees the case's policy text (the values go with the arena). */
void cd_case_free(cd_case *c);

/* Appends one line of JSON (no newline): {"i", "policies", "principal",
 * "action", "resource", "context", "entities"}, what decide.mjs reads. */
box_err cd_case_json(const cd_case *c, box_buf *out) BOX_WARN_UNUSED;
/* Appends v in Cedar's JSON value form. */
box_err cd_val_json(const cd_val *v, box_buf *out) BOX_WARN_UNUSED;

/* "bool", "long", … (for messages). */
const char *cd_kind_name(cd_kind k);
/* The constructor an extension kind's literal goes to: "decimal", "ip",
 * "datetime", "duration"; NULL for other kinds. */
const char *cd_kind_ctor(cd_kind k);

#endif
