/* SPDX-License-Identifier: Apache-2.0 */
/* Event schemas (.dwschema, dogwood-spec §5): event kinds, fields, pins. */
#ifndef PDP_EVSCHEMA_H
#define PDP_EVSCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "box_err.h"
#include "pdp_ast.h"
#include "pdp_schema.h"
#include "pdp_value.h"

/*
 * Two objects, both immutable once made (readers may share them):
 *
 * - a pdp_evschema is a parsed .dwschema: for a symbolic action <A>, the
 *   declared event kinds (`[decision] event <A>::kind { … }`), their
 *   field specs and pins, and the max_window cap. It never looks at an
 *   action schema.
 * - a pdp_evset binds one to an action schema (pdp_schema): for every
 *   action and every declared kind one derived event, a pdp_evsig, whose
 *   fields are leaves and groups named by dotted path (§5.2): a spread
 *   `...inputs(A)` gives the group `input` and a leaf per field of the
 *   action's context.input (input.path, …), a record field `meta: { … }`
 *   the group `meta`, a typed field (`requestId: String`) a leaf.
 *
 * Message texts are the spec's where §5.1/§5.2 give one (the reference
 * implementation's full sentence, which contains the spec's).
 */

/* Largest .dwschema text, the memory one schema or one evset may use. */
#define PDP_EVSCHEMA_MAX_BYTES (1u << 20)
#define PDP_EVSCHEMA_MAX_MEMORY (16u << 20)
#define PDP_EVSET_MAX_MEMORY (64u << 20)
/* max_window when a schema declares none: 24h, in seconds. */
#define PDP_EVSCHEMA_DEFAULT_MAX_WINDOW 86400
/* Fields (leaves and groups) one derived event may have. */
#define PDP_EVSET_MAX_FIELDS 10000

typedef struct pdp_evschema pdp_evschema;

/* ---- parsing ---- */

/*
 * Parses text[0..len) (grammar §5.1; a leading UTF-8 BOM is skipped).
 * On BOX_OK the caller owns *out (pdp_evschema_free). Otherwise *out is
 * NULL and *err holds "file:line:col: message" (BOX_EPARSE) or a size /
 * memory refusal. A schema that declares no event (empty, blanks or
 * comments only) is refused: omitting the schema is how the default one
 * is chosen.
 */
box_err pdp_evschema_parse(const char *text, size_t len, const char *file,
                           pdp_evschema **out, box_buf *err) BOX_WARN_UNUSED;

/* ORDER PDP_EVSCHEMA_BUILTIN: the built-in texts, compiled in from
 * pdp/schema/. */
typedef enum pdp_evschema_builtin {
    PDP_EVSCHEMA_DEFAULT, // §5.4 DEFAULT_EVENT_SCHEMA (default_events.dwschema)
    PDP_EVSCHEMA_BOX,     // Box's events.dwschema (Appendix B, §5.5)
} pdp_evschema_builtin;

box_err pdp_evschema_load_builtin(pdp_evschema_builtin which,
                                  pdp_evschema **out,
                                  box_buf *err) BOX_WARN_UNUSED;
/* The built-in text (static, NUL-terminated). */
const char *pdp_evschema_builtin_text(pdp_evschema_builtin which, size_t *len);
void pdp_evschema_free(pdp_evschema *es); // NULL-safe

/* ---- what a schema declares ---- */

/* True iff `kind` is declared by some `event <A>::kind`. */
bool pdp_evschema_has_kind(const pdp_evschema *es, const char *kind,
                           size_t len);
/* True iff `kind` is declared with `decision` (ingesting it decides). */
bool pdp_evschema_is_decision_kind(const pdp_evschema *es, const char *kind,
                                   size_t len);
/* The declared kinds in source order (for messages and listings). */
size_t pdp_evschema_kind_count(const pdp_evschema *es);
const char *pdp_evschema_kind_at(const pdp_evschema *es, size_t i, size_t *len);
/* The cap on every `within` (inclusive), in seconds: the schema's
 * max_window, else PDP_EVSCHEMA_DEFAULT_MAX_WINDOW. */
int64_t pdp_evschema_max_window(const pdp_evschema *es);
/* The same cap as written, for messages: 24 and 'h' (the default), 30 and
 * 'd' for `max_window = 30d`. */
void pdp_evschema_max_window_written(const pdp_evschema *es, int64_t *amount,
                                     char *unit);

/* ---- pins (§5.2) ---- */

/* ORDER PDP_EVPIN: what the right-hand side of a pin is anchored to. */
typedef enum pdp_evpin_root {
    PDP_EVPIN_PRINCIPAL, // `= principal` or `= principal.attr…`
    PDP_EVPIN_RESOURCE,  // `= resource` or `= resource.attr…`
    PDP_EVPIN_CONTEXT,   // `= context.a.b`
} pdp_evpin_root;

/* `pin f: T = <rhs>`: on every predicate naming the event, the argument
 * `f: <rhs>` is appended. Strings are NUL-terminated, owned by the
 * schema. */
typedef struct pdp_evpin {
    pdp_str pn_field; // the pinned leaf's dotted path: "callerPrincipal",
                      // "__drupe.session_id"
    pdp_evpin_root pn_root;
    pdp_str pn_path; // dotted path after the root: "" for a bare
                     // `principal`, "dept", "input.user"
    pdp_str pn_text; // the rhs, normalised: "context.input.user"
    pdp_pos pn_pos;  // of the pinned field in the .dwschema
} pdp_evpin;

/* The pins of event kind `kind` (every action's event of that kind has
 * them), *n of them in source order; NULL when none or no such kind. */
const pdp_evpin *pdp_evschema_pins(const pdp_evschema *es, const char *kind,
                                   size_t len, size_t *n);

/* ---- derived events ---- */

typedef struct pdp_evset pdp_evset;
typedef struct pdp_evsig pdp_evsig;

/*
 * Derives one event per (action of as, declared kind of es) (§5.2). es and
 * as are borrowed and must outlive *out (types and names point into
 * them). On BOX_OK the caller owns *out (pdp_evset_free); otherwise *out
 * is NULL and *err says why (BOX_ETOOBIG: an event over
 * PDP_EVSET_MAX_FIELDS fields; BOX_ENOMEM).
 */
box_err pdp_evset_derive(const pdp_evschema *es, const pdp_schema *as,
                         pdp_evset **out, box_buf *err) BOX_WARN_UNUSED;
void pdp_evset_free(pdp_evset *set); // NULL-safe

/* The derived event for action uid `action` (an entity Ns::Action::"id")
 * and `kind`; NULL when the action schema has no such action or the kind
 * is not declared (EVENT-Predicate, §4.7). */
const pdp_evsig *pdp_evset_find(const pdp_evset *set, const pdp_value *action,
                                const char *kind, size_t len);
/* Every derived event: actions in schema order, kinds in source order. */
size_t pdp_evset_count(const pdp_evset *set);
const pdp_evsig *pdp_evset_at(const pdp_evset *set, size_t i);

const pdp_schema_action *pdp_evsig_action(const pdp_evsig *e);
const char *pdp_evsig_kind(const pdp_evsig *e);
bool pdp_evsig_is_decision(const pdp_evsig *e);

/* A leaf field of a derived event. */
typedef struct pdp_evleaf {
    pdp_str lf_path; // dotted: "input.path", "callerPrincipal"
    /* The Cedar type: a spliced field's type from the action schema, or
     * the named type (`String`, `Long`, `Bool`, an extension type such as
     * `decimal`, else an entity type taken as written). NULL for
     * principalType(A) / resourceType(A), whose leaf holds the action's
     * appliesTo entity types instead (all of them, source order). */
    const pdp_type *lf_type;
    const pdp_str *lf_etypes;
    uint32_t lf_netypes;
    /* The field or a record around it inside a spread is declared
     * optional (`arg1?: String`), so an event may lack it. */
    bool lf_optional;
} pdp_evleaf;

/* ORDER PDP_EVF: what a dotted path names in a derived event. */
typedef enum pdp_evfield {
    PDP_EVF_ABSENT, // nothing (EVENT-Field-Absent)
    PDP_EVF_LEAF,   // a field: a predicate may name it
    PDP_EVF_GROUP,  // a group (`input`, `meta.session`; EVENT-Field-Group)
} pdp_evfield;

/* What path[0..len) names; *leaf (may be NULL) gets the leaf for
 * PDP_EVF_LEAF, NULL otherwise. */
pdp_evfield pdp_evsig_field(const pdp_evsig *e, const char *path, size_t len,
                            const pdp_evleaf **leaf);
/* The leaves in declaration order (a spread's in the action schema's
 * record order), e.g. for a "declared fields: …" message. */
size_t pdp_evsig_leaf_count(const pdp_evsig *e);
const pdp_evleaf *pdp_evsig_leaf_at(const pdp_evsig *e, size_t i);
/* The event's pins in source order (*n of them; none in the default and
 * Box schemas). */
const pdp_evpin *pdp_evsig_pins(const pdp_evsig *e, size_t *n);

#endif
