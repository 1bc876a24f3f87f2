/* SPDX-License-Identifier: Apache-2.0 */
/* The strict validator's shared state and helpers (pdp_validate*.c only). */
#ifndef PDP_VALIDATE_INT_H
#define PDP_VALIDATE_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "box_arena.h"
#include "box_buf.h"
#include "pdp_ast.h"
#include "pdp_schema.h"
#include "pdp_validate.h"

/*
 * The type checker is split by job: pdp_validate.c walks rules,
 * environments and the operators; pdp_validate_call.c types calls (the
 * set, tag and extension methods and the extension constructors) from
 * pdp_ext.c's table. Both work on one vctx per validation and report
 * through pv_verr; nothing here outlives pdp_validate_policies.
 */

#define PDP_VALIDATE_MSG_MAX 2048

#define ANY_ENTITY "__cedar::internal::AnyEntity"
#define ANY_RECORD "__cedar::internal::OpenRecord{}"
#define ANY_SET "Set<__cedar::internal::Any>"

/* A capability: the access key of an attribute (or a tag) known to be
 * present. */
typedef struct capn {
    pdp_str cp_key;
    const struct capn *cp_next;
} capn;

/* A typed attribute-access node (for Cedar's access-chain messages). */
typedef struct seen_type {
    const pdp_expr *st_expr;
    const pdp_type *st_type;
} seen_type;

typedef struct vctx {
    const pdp_schema *v_schema;
    const pdp_rule *v_rule;
    const char *v_file;
    pdp_validate_result *v_res;
    box_arena *v_a;
    size_t v_rule_first; // index of the rule's first finding
    bool v_rule_errors;
    /* the environment being checked */
    const pdp_schema_action *v_act;
    pdp_str v_principal, v_resource;
    seen_type *v_seen;
    size_t v_nseen, v_seencap;
    box_err v_rv; // first memory error
} vctx;

/* Bool, the constants true / false, an expression that already failed
 * (raises nothing further), Long, String. */
extern const pdp_type pv_ty_bool, pv_ty_true, pv_ty_false, pv_ty_never,
    pv_ty_long, pv_ty_string;

/* Records "for policy `policy_N`, <fmt>" as an error at pos. */
void pv_verr(vctx *v, pdp_pos pos, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "unexpected type: expected <want> but saw <saw>". */
void pv_unexpected(vctx *v, pdp_pos pos, const char *want,
                   const pdp_type *saw);
/* "the types A and B are not compatible: <where> must have …". */
void pv_incompatible(vctx *v, pdp_pos pos, const pdp_type *a,
                     const pdp_type *b, const char *where);
/* Cedar's display of t in buf (cut when absurdly long). */
const char *pv_tyname(vctx *v, const pdp_type *t, char *buf, size_t n);

bool pv_is_boolish(const pdp_type *t);
/* Strict compatibility (Cedar's least upper bound in strict mode). */
bool pv_compatible(const pdp_type *a, const pdp_type *b);
/* t is Bool-like / of kind k; otherwise an unexpected-type error (name
 * is the expected type's display). Never passes silently (false). */
bool pv_want_bool(vctx *v, const pdp_expr *e, const pdp_type *t);
bool pv_want_kind(vctx *v, const pdp_expr *e, const pdp_type *t,
                  pdp_type_kind k, const char *name);

/* Appends the access key of e (a variable followed by attribute reads);
 * BOX_EINVAL when e is not such a chain. */
box_err pv_access_key(const pdp_expr *e, box_buf *b);
bool pv_cap_has(const capn *c, pdp_str key);
const capn *pv_cap_add(vctx *v, const capn *c, pdp_str key);

/* The type of e under capabilities in; *out = the capabilities that hold
 * when e is true. */
const pdp_type *pv_tc(vctx *v, const pdp_expr *e, const capn *in,
                      const capn **out);

/* ---- pdp_validate_call.c ---- */

/* recv.m(args): set, tag and extension methods. */
const pdp_type *pv_tc_method(vctx *v, const pdp_expr *e, const capn *in,
                             const capn **out);
/* f(arg): an extension constructor (string literal arguments only). */
const pdp_type *pv_tc_call(vctx *v, const pdp_expr *e, const capn *in);
/* The type of a value of an extension kind (decimal, ipaddr, datetime,
 * duration), or NULL for another kind. */
const pdp_type *pv_ext_type(pdp_value_kind k);

#endif
