/* SPDX-License-Identifier: Apache-2.0 */
/* The parsed form of a .dw policy set: rules, scopes, conditions, expressions. */
#ifndef PDP_AST_H
#define PDP_AST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "box_err.h"
#include "pdp_value.h"

/*
 * This header is a data contract: the evaluator, the schema validator and
 * the load-time judgements all read the same tree. Nodes are plain structs
 * so a reader can walk them with a switch on the kind; they are read-only
 * after parsing and owned by the arena of the policy set that holds them
 * (they live exactly as long as the pdp_policy_set). Every string is a
 * decoded view (escapes applied) that is also NUL-terminated.
 *
 * Stability: new constructs add new enum values at the end of each enum
 * and new union members; existing fields keep their meaning.
 */

/* A 1-based source position; columns count Unicode scalar values. */
typedef struct pdp_pos {
    uint32_t line;
    uint32_t col;
} pdp_pos;

/* A length-delimited string (s[len] == '\0' as well). */
typedef struct pdp_str {
    const char *s;
    size_t len;
} pdp_str;

/* ORDER PDP_VAR: pdp_var_name() follows this order. */
typedef enum pdp_var {
    PDP_VAR_PRINCIPAL,
    PDP_VAR_ACTION,
    PDP_VAR_RESOURCE,
    PDP_VAR_CONTEXT,
} pdp_var;

/* ORDER PDP_M: Cedar's built-in methods and extension functions; the
 * table in pdp_ext.c (name, arity, operand kinds) follows this order. */
typedef enum pdp_method {
    PDP_M_CONTAINS,     // set.contains(v)
    PDP_M_CONTAINS_ALL, // set.containsAll(set)
    PDP_M_CONTAINS_ANY, // set.containsAny(set)
    PDP_M_IS_EMPTY,     // set.isEmpty()
    PDP_M_HAS_TAG,      // entity.hasTag(string)
    PDP_M_GET_TAG,      // entity.getTag(string)
    /* extension constructors, written f(x) (PDP_X_CALL) */
    PDP_M_DECIMAL,
    PDP_M_IP,
    PDP_M_DATETIME,
    PDP_M_DURATION,
    /* decimal */
    PDP_M_LESS_THAN,
    PDP_M_LESS_THAN_OR_EQUAL,
    PDP_M_GREATER_THAN,
    PDP_M_GREATER_THAN_OR_EQUAL,
    /* ipaddr */
    PDP_M_IS_IPV4,
    PDP_M_IS_IPV6,
    PDP_M_IS_LOOPBACK,
    PDP_M_IS_MULTICAST,
    PDP_M_IS_IN_RANGE,
    /* datetime */
    PDP_M_OFFSET,
    PDP_M_DURATION_SINCE,
    PDP_M_TO_DATE,
    PDP_M_TO_TIME,
    /* duration */
    PDP_M_TO_MILLISECONDS,
    PDP_M_TO_SECONDS,
    PDP_M_TO_MINUTES,
    PDP_M_TO_HOURS,
    PDP_M_TO_DAYS,
    PDP_M_COUNT
} pdp_method;

/*
 * A `like` pattern: the decoded bytes, and per byte whether it is a
 * wildcard (an unescaped `*`) or a literal byte (everything else,
 * including an escaped `\*`). `source` is the literal as written,
 * quotes included.
 */
typedef struct pdp_pattern {
    const char *bytes;
    const bool *wild;
    size_t len;
    pdp_str source;
} pdp_pattern;

/* ORDER PDP_X: pdp_expr_kind_name() follows this order. */
typedef enum pdp_expr_kind {
    PDP_X_LIT,    // literal: x_const (Bool, Long, String or entity)
    PDP_X_VAR,    // u.var
    PDP_X_NOT,    // !a: u.un.arg
    PDP_X_NEG,    // -a (runtime, checked): u.un.arg
    PDP_X_AND,    // a && b && …: u.list (n >= 2), left to right, lazy
    PDP_X_OR,     // a || b || …: u.list (n >= 2), left to right, lazy
    PDP_X_EQ,     // ==: u.bin
    PDP_X_NE,     // !=: u.bin (≡ !(l == r))
    PDP_X_LT,     // <: u.bin
    PDP_X_LE,     // <=: u.bin
    PDP_X_GT,     // >: u.bin (≡ !(l <= r))
    PDP_X_GE,     // >=: u.bin (≡ !(l < r))
    PDP_X_IN,     // entity in entity-or-set: u.bin
    PDP_X_ADD,    // +: u.bin
    PDP_X_SUB,    // -: u.bin
    PDP_X_MUL,    // *: u.bin
    PDP_X_HAS,    // obj has a.b.c: u.has (n >= 1)
    PDP_X_LIKE,   // obj like "pattern": u.like
    PDP_X_ATTR,   // obj.name or obj["name"]: u.attr
    PDP_X_IF,     // if c then t else e: u.cond
    PDP_X_SET,    // [a, b, …]: u.list (n >= 0)
    PDP_X_RECORD, // { k: v, … }: u.rec (keys unique)
    PDP_X_METHOD, // recv.m(args): u.call
    PDP_X_TEMPORAL, // temporal { φ } (a Bool leaf): u.tl; x_oppos is the
                    // `temporal` word
    PDP_X_CALL,   // f(args), an extension constructor: u.call (recv NULL);
                  // x_const is the value when the argument is a valid
                  // string literal
    PDP_X_IS,     // obj is T [in e]: u.is
    PDP_X_COUNT
} pdp_expr_kind;

typedef struct pdp_expr pdp_expr;
struct pdp_tl; // pdp_tl.h: a temporal condition
struct pdp_expr {
    pdp_expr_kind x_kind;
    pdp_pos x_pos;   // first token of the expression
    pdp_pos x_oppos; // the operator / `.` / `[` / keyword (= x_pos for leaves)
    /* The value when the node is a constant (always for PDP_X_LIT; also
     * for sets and records built only from constants), else NULL. */
    const pdp_value *x_const;
    uint32_t x_depth; // 1 for leaves; 1 + deepest child
    union {
        pdp_var var;
        struct {
            const pdp_expr *arg;
        } un;
        struct {
            const pdp_expr *l, *r;
        } bin;
        struct {
            const pdp_expr *const *items;
            uint32_t n;
        } list;
        struct {
            const pdp_expr *obj;
            const pdp_str *path; // a.b.c -> {"a","b","c"}
            uint32_t n;
        } has;
        struct {
            const pdp_expr *obj;
            pdp_pattern pat;
        } like;
        struct {
            const pdp_expr *obj;
            pdp_str name;
            bool bracket; // written obj["name"]
        } attr;
        struct {
            const pdp_expr *c, *t, *e;
        } cond;
        struct {
            const pdp_str *keys;
            const pdp_expr *const *vals;
            uint32_t n;
        } rec;
        struct {
            pdp_method m;
            const pdp_expr *recv;
            const pdp_expr *const *args;
            uint32_t n;
        } call;
        const struct pdp_tl *tl;
        struct {
            const pdp_expr *obj;
            pdp_str type;      // the entity type path, e.g. "Drupe::User"
            const pdp_expr *in; // the `in` operand, or NULL
        } is;
    } u;
};

typedef enum pdp_effect {
    PDP_PERMIT,
    PDP_FORBID,
} pdp_effect;

/* ORDER PDP_SCOPE */
typedef enum pdp_scope_op {
    PDP_SCOPE_ANY,    // variable omitted or bare
    PDP_SCOPE_EQ,     // == E            (sc_n == 1)
    PDP_SCOPE_IN,     // in E            (sc_n == 1)
    PDP_SCOPE_IN_SET, // action in [A…]  (sc_n >= 0)
    PDP_SCOPE_IS,     // is T            (sc_type; sc_n == 0)
    PDP_SCOPE_IS_IN,  // is T in E       (sc_type; sc_n == 1)
} pdp_scope_op;

typedef struct pdp_scope {
    pdp_scope_op sc_op;
    pdp_pos sc_pos;                 // the variable (rule's `(` when omitted)
    const pdp_value *const *sc_ents; // entity values, source order
    uint32_t sc_n;
    pdp_str sc_type;                // IS, IS_IN: the entity type path
} pdp_scope;

typedef enum pdp_cond_kind {
    PDP_COND_WHEN,
    PDP_COND_UNLESS,
} pdp_cond_kind;

typedef struct pdp_cond {
    pdp_cond_kind cd_kind;
    pdp_pos cd_pos;        // the `when` / `unless` keyword
    const pdp_expr *cd_body;
} pdp_cond;

/* @key or @key("value"); has_value false for the bare form (value ""). */
typedef struct pdp_annot {
    pdp_str an_key;
    pdp_str an_value;
    bool an_has_value;
    pdp_pos an_pos;
} pdp_annot;

typedef struct pdp_rule {
    uint32_t r_index;   // 0-based position among the rules of the set
    pdp_str r_pid;      // positional id "policy_<r_index>"
    pdp_effect r_effect;
    pdp_pos r_pos;      // first token of the rule (annotation or effect)
    pdp_pos r_effect_pos;
    const pdp_annot *r_annots; // source order, keys unique
    uint32_t r_nannots;
    pdp_scope r_principal;
    pdp_scope r_action;
    pdp_scope r_resource;
    const pdp_cond *r_conds; // source order
    uint32_t r_nconds;
} pdp_rule;

/* A parsed file. */
typedef struct pdp_ast {
    const pdp_rule *const *as_rules;
    uint32_t as_nrules;
    // Whether the text defines or calls a macro (the first such place):
    // the rules hold the expansions, not what was written.
    bool as_macros;
    pdp_pos as_macro_pos;
} pdp_ast;

/* Static names: "principal"…; "contains", "decimal"… (pdp_ext.c's
 * table); "LIT", "AND"… */
const char *pdp_var_name(pdp_var v);
const char *pdp_method_name(pdp_method m);
const char *pdp_expr_kind_name(pdp_expr_kind k);

/* The annotation with this key, or NULL. */
const pdp_annot *pdp_rule_annot(const pdp_rule *r, const char *key);
/* Appends `rule @id("<id>")`, the id escaped like Rust's Debug for str:
 * how warnings name a rule that has an @id. */
box_err pdp_rule_put_id(box_buf *b, const pdp_annot *id) BOX_WARN_UNUSED;
/* `rule @id("x") (rule N)` when the rule has an @id (even blank), else
 * `the permit rule with no @id (rule N)`; N 1-based (§6.2's naming). */
box_err pdp_rule_put_name(box_buf *b, const pdp_rule *r) BOX_WARN_UNUSED;
/* True iff s is empty or only Unicode whitespace (blank @id/@description). */
bool pdp_str_blank(pdp_str s);

/* Appends a one-line S-expression of e (for tests and debugging), e.g.
 * (&& (== (. context "input") 1) (like (. x "a") "a*")). */
box_err pdp_expr_dump(const pdp_expr *e, box_buf *out) BOX_WARN_UNUSED;
/* Calls fn on each node of e, depth-first in source order, until fn
 * returns true; returns that node, or NULL when fn never did. */
typedef bool (*pdp_expr_visitor)(void *arg, const pdp_expr *e);
const pdp_expr *pdp_expr_visit(const pdp_expr *e, pdp_expr_visitor fn,
                               void *arg);
/* The first node of kind k in e, depth-first in source order, or NULL. */
const pdp_expr *pdp_expr_find(const pdp_expr *e, pdp_expr_kind k);
/* Appends a one-line dump of a rule: effect, scope, annotations, conds. */
box_err pdp_rule_dump(const pdp_rule *r, box_buf *out) BOX_WARN_UNUSED;

#endif
