/* SPDX-License-Identifier: Apache-2.0 */
/* The parsed form of a .dwschema, shared by its parser and its deriver. */
#ifndef PDP_EVSCHEMA_INT_H
#define PDP_EVSCHEMA_INT_H

#include "box_arena.h"
#include "pdp_evschema.h"

/* ORDER ES_SEL: es_sel_names in pdp_evschema.c follows this order. */
typedef enum es_sel {
    ES_SEL_INPUTS,
    ES_SEL_OUTPUTS,
    ES_SEL_PRINCIPAL, // principalType
    ES_SEL_RESOURCE,  // resourceType
} es_sel;

typedef enum es_fkind {
    ES_F_SPREAD,   // ...inputs(A) / ...outputs(A): the group input / output
    ES_F_SELECTOR, // name: principalType(A) / resourceType(A)
    ES_F_RECORD,   // name: { … }: a group
    ES_F_CONCRETE, // name: String, Ns::Entity, …
} es_fkind;

/* One field spec; checked by the parser (binders, pins, unique names at
 * each level, selectors used the way they can be), so deriving cannot
 * fail on it. */
typedef struct es_field {
    es_fkind f_kind;
    es_sel f_sel;                     // SPREAD, SELECTOR
    pdp_str f_name;                   // all but SPREAD
    const pdp_type *f_type;           // CONCRETE
    const struct es_field *f_members; // RECORD
    uint32_t f_nmembers;
} es_field;

typedef struct es_decl {
    pdp_str d_kind;
    bool d_decision;
    const es_field *d_fields;
    uint32_t d_nfields;
    const pdp_evpin *d_pins;
    uint32_t d_npins;
} es_decl;

struct pdp_evschema {
    box_arena *es_arena;
    const es_decl *es_decls;
    uint32_t es_ndecls;
    int64_t es_max_window; // seconds
    int64_t es_window_amount; // max_window as written: 24 and 'h' for 24h
    char es_window_unit;
};

/* The group a spread selector mints ("input" / "output"). */
static inline const char *
es_spread_group(es_sel s)
{
    return s == ES_SEL_INPUTS ? "input" : "output";
}

#endif
