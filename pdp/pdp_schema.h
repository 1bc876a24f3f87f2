/* SPDX-License-Identifier: Apache-2.0 */
/* The action schema (Cedar human-readable format): types, entities, actions. */
#ifndef PDP_SCHEMA_H
#define PDP_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "box_err.h"
#include "pdp_ast.h"
#include "pdp_value.h"

/*
 * A loaded schema is immutable and owns every type, name and value it
 * hands out (one arena, freed by pdp_schema_free); it may be shared
 * between threads. Like the AST, the structs below are a data contract:
 * the validator and the request check read them directly.
 *
 * Names are resolved at load: every entity type is fully qualified
 * ("Box::FsWriteOperation"), common types (`type T = …`) are inlined,
 * and the context of every action is a closed record.
 */

/* Largest schema text accepted, and the memory one schema may use. */
#define PDP_SCHEMA_MAX_BYTES (8u << 20)
#define PDP_SCHEMA_MAX_MEMORY (64u << 20)
/* Nesting cap for types (records, sets) in a schema. */
#define PDP_SCHEMA_MAX_DEPTH 32

/* ORDER PDP_TY: pdp_schema_type_format() follows this order. */
typedef enum pdp_type_kind {
    PDP_TY_BOOL,
    PDP_TY_LONG,
    PDP_TY_STRING,
    PDP_TY_SET,    // ty_elem
    PDP_TY_RECORD, // ty_attrs[0..ty_nattrs), sorted by name (bytewise)
    PDP_TY_ENTITY, // ty_name: the entity type
    PDP_TY_EXT,    // ty_name: decimal, datetime, duration or ipaddr
    /* Only the validator builds these; a schema never holds them. */
    PDP_TY_TRUE,  // a Bool known to be true
    PDP_TY_FALSE, // a Bool known to be false
    PDP_TY_NEVER, // the type of an expression that already failed
} pdp_type_kind;

typedef struct pdp_type pdp_type;

/* One attribute of a record type; `name?: T` has at_required false. */
typedef struct pdp_attr {
    pdp_str at_name;
    const pdp_type *at_type;
    bool at_required;
} pdp_attr;

struct pdp_type {
    pdp_type_kind ty_kind;
    const pdp_type *ty_elem;
    const pdp_attr *ty_attrs;
    uint32_t ty_nattrs;
    pdp_str ty_name;
};

/* `entity X in [P…] = { … } tags T;` or `entity X enum ["a", …];` */
typedef struct pdp_schema_entity {
    pdp_str en_name;           // fully qualified
    const pdp_str *en_parents; // memberOf entity types, fully qualified
    uint32_t en_nparents;
    const pdp_type *en_attrs; // a record (empty when none declared)
    const pdp_type *en_tags;  // NULL when no tags
    bool en_is_enum;
    const pdp_str *en_enum; // the declared ids, source order
    uint32_t en_nenum;
    pdp_pos en_pos;
} pdp_schema_entity;

/* `action "a" in [Action::"g"] appliesTo { principal: …, resource: …,
 * context: … };` An action without appliesTo applies to no request (an
 * action group). */
typedef struct pdp_schema_action {
    const pdp_value *ac_uid;            // entity Ns::Action::"a"
    pdp_str ac_type;                    // "Ns::Action" (view into ac_uid)
    pdp_str ac_id;                      // "a" (view into ac_uid)
    const pdp_value *const *ac_parents; // declared `in` groups
    uint32_t ac_nparents;
    bool ac_applies;
    const pdp_str *ac_principals; // entity types, fully qualified
    uint32_t ac_nprincipals;
    const pdp_str *ac_resources;
    uint32_t ac_nresources;
    const pdp_type *ac_context; // a closed record ({} when not declared)
    pdp_pos ac_pos;
} pdp_schema_action;

typedef struct pdp_schema pdp_schema;

/*
 * Parses a schema in Cedar's human-readable format: namespace blocks,
 * `entity` (with `in`, attributes, `tags`, `enum`), `type`, `action`
 * (several names, `in`, `appliesTo`), `//` comments, annotations, and a
 * leading UTF-8 BOM. file names the text in messages. On BOX_OK the
 * caller owns *out (pdp_schema_free). On failure *out is NULL and *err
 * (freed with box_free) is "file:line:col: …" (BOX_EPARSE) or a size /
 * memory refusal.
 */
box_err pdp_schema_load(const char *text, size_t len, const char *file,
                        pdp_schema **out, char **err) BOX_WARN_UNUSED;
/* Loads Box's own action schema (pdp/schema/actions.cedarschema, built
 * into the library); it needs no file at run time. */
box_err pdp_schema_load_builtin(pdp_schema **out, char **err) BOX_WARN_UNUSED;
/* The built-in schema text (static, NUL-terminated). */
const char *pdp_schema_builtin_text(size_t *len);
void pdp_schema_free(pdp_schema *s);

/* Actions in declaration order, and lookup by uid (NULL when unknown). */
size_t pdp_schema_action_count(const pdp_schema *s);
const pdp_schema_action *pdp_schema_action_at(const pdp_schema *s, size_t i);
const pdp_schema_action *pdp_schema_action_find(const pdp_schema *s,
                                                const pdp_value *uid);
/* True iff `type` is the action entity type of some namespace in s. */
bool pdp_schema_is_action_type(const pdp_schema *s, const char *type,
                               size_t tlen);
/* Entity types in declaration order, and lookup by qualified name. */
size_t pdp_schema_entity_count(const pdp_schema *s);
const pdp_schema_entity *pdp_schema_entity_at(const pdp_schema *s, size_t i);
const pdp_schema_entity *pdp_schema_entity_find(const pdp_schema *s,
                                                const char *name, size_t len);
/* True iff action a is g or a (transitive) member of group g. */
bool pdp_schema_action_in(const pdp_schema *s, const pdp_schema_action *a,
                          const pdp_value *g);
/* True iff entity type t is `anc` or may have an ancestor of type anc. */
bool pdp_schema_entity_may_be_in(const pdp_schema *s, pdp_str t, pdp_str anc);

/* The attribute `name` of a record type, or NULL. */
const pdp_attr *pdp_schema_record_attr(const pdp_type *rec, const char *name,
                                       size_t len);

/* Appends Cedar's display of t: Bool, Long, String, Set<T>, the entity
 * type, the extension name, records as {a: T,b?: U,}, and
 * __cedar::internal::True / False / Never. A set whose element type is
 * unknown (ty_elem NULL) is Set<__cedar::internal::Any>. */
box_err pdp_schema_type_format(const pdp_type *t, box_buf *out) BOX_WARN_UNUSED;

#endif
