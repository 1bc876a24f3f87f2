/* SPDX-License-Identifier: Apache-2.0 */
/* The temporal sub-language: `temporal { φ }` parsed (dogwood-spec §2.4)
 * and decided over a history (§4). */
#ifndef PDP_TL_H
#define PDP_TL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_arena.h"
#include "box_err.h"
#include "pdp_ast.h"
#include "pdp_hist.h"
#include "pdp_lex.h"
#include "pdp_value.h"

/*
 * Like pdp_ast.h, a data contract: plain read-only nodes in the policy
 * set's arena, walked with a switch on the kind by the evaluator and the
 * load-time checks. Variables are kept by name (a condition binds few).
 */

typedef struct pdp_tl pdp_tl;
typedef struct pdp_tterm pdp_tterm;

/* Nesting of a temporal condition, as written and once its macros are
 * expanded (the evaluators recurse this deep). */
#define PDP_TL_MAX_DEPTH 200

/* ORDER PDP_TT */
typedef enum pdp_tterm_kind {
    PDP_TT_LIT,     // tt_lit: entity, Long, String or Bool
    PDP_TT_DECIMAL, // tt_text: decimal("…"), kept as its text (§4.2)
    PDP_TT_CONTEXT, // tt_segs: context.a.b.c
    PDP_TT_SCOPE,   // tt_var (principal or resource) and tt_segs
    PDP_TT_VAR,     // tt_name: a variable
    PDP_TT_WILD,    // `*` or `_`
    PDP_TT_ARRAY,   // tt_items
    PDP_TT_COUNT,   // tt_agg: count for (…). where φ
    PDP_TT_SUM,     // tt_agg: sum v for (…). where φ
} pdp_tterm_kind;

/* `(x: T)` of exists, count and sum. */
typedef struct pdp_tbinder {
    pdp_str tb_name;
    pdp_str tb_type; // "Timepoint", "Long", "Ns::Entity", …
    pdp_pos tb_pos;
} pdp_tbinder;

typedef struct pdp_tagg {
    pdp_str ta_sum;            // the summed variable (sum only)
    const pdp_tbinder *ta_for; // the `for` list
    uint32_t ta_nfor;
    const pdp_tl *ta_where;
} pdp_tagg;

struct pdp_tterm {
    pdp_tterm_kind tt_kind;
    pdp_pos tt_pos;
    const pdp_value *tt_lit;
    pdp_str tt_text;
    pdp_var tt_var;
    const pdp_str *tt_segs;
    uint32_t tt_nsegs;
    pdp_str tt_name;
    const pdp_tterm *const *tt_items;
    uint32_t tt_nitems;
    const pdp_tagg *tt_agg;
};

/* `field.path: term` of a predicate. */
typedef struct pdp_targ {
    pdp_str ta_path; // dotted, as written
    const pdp_tterm *ta_term;
    pdp_pos ta_pos;
} pdp_targ;

/* ORDER PDP_TL */
typedef enum pdp_tl_kind {
    PDP_TL_AND,      // tl_l && tl_r
    PDP_TL_NOT,      // !tl_l
    PDP_TL_FORMERLY, // formerly within tl_window tl_l
    PDP_TL_PREVIOUS, // previous within tl_window tl_l
    PDP_TL_SINCE,    // tl_l since within tl_window tl_r
    PDP_TL_PRED,     // Ns::Action::"id"::kind{ args }
    PDP_TL_CMP,      // tl_a tl_op tl_b
    PDP_TL_EXISTS,   // exists (tl_binder). tl_l
    PDP_TL_TP,       // tp(tl_binder.tb_name)
} pdp_tl_kind;

/* ORDER PDP_TOP */
typedef enum pdp_top {
    PDP_TOP_EQ,
    PDP_TOP_LT,
    PDP_TOP_LE,
    PDP_TOP_GT,
    PDP_TOP_GE,
} pdp_top;

struct pdp_tl {
    pdp_tl_kind tl_kind;
    pdp_pos tl_pos;
    const pdp_tl *tl_l, *tl_r;
    int64_t tl_window; // seconds
    // PDP_TL_PRED
    const pdp_value *tl_action; // entity uid Ns::Action::"id"
    pdp_str tl_event_kind;
    const pdp_targ *tl_args;
    uint32_t tl_nargs;
    // PDP_TL_CMP
    pdp_top tl_op;
    const pdp_tterm *tl_a, *tl_b;
    // PDP_TL_EXISTS, PDP_TL_TP
    pdp_tbinder tl_binder;
};

/*
 * Parses a temporal condition from lx, whose current token is the first
 * of the condition, up to (not including) the `}` that closes its block.
 * Macro calls expand from mt (pdp_macro.h; NULL: none). Nodes go into a. On a
 * syntax error the lexer holds the message
 * ("FILE:LINE:COL: …") and the result is BOX_EPARSE.
 */
struct pdp_macros;
box_err pdp_tl_parse(pdp_lex *lx, box_arena *a, struct pdp_macros *mt,
                     const pdp_tl **out) BOX_WARN_UNUSED;

/* ORDER PDP_PENDING: what a pending outcome (pdp_hist.h) is taken for
 * in one evaluation: a permitted effect whose outcome is not known yet
 * has either not happened, or happened (a response whose output fields
 * are unknown: any constant matches them), or failed. */
typedef enum pdp_tl_pending {
    PDP_PENDING_NONE,
    PDP_PENDING_RESPONSE,
    PDP_PENDING_ERROR,
} pdp_tl_pending;

/* The facts a temporal block is decided on: the history, the decision
 * timepoint (its own event is in it), and the request. */
typedef struct pdp_tl_now {
    const pdp_hist *tn_hist;
    size_t tn_at;
    size_t tn_from; // the first event this rule may see (<= tn_at)
    bool tn_scan;   // scan every event, chains unused (the reference the
                    // chained walk is checked against)
    pdp_tl_pending tn_pending;
    // An incremental monitor (pdp_tlmon.h) asked first for a whole leaf:
    // 1 and *holds when it decides, 0 to leave it to the reference.
    int (*tn_monitor)(void *arg, const struct pdp_tl *leaf,
                      const struct pdp_tl_now *now, box_arena *scratch,
                      bool *holds);
    void *tn_monitor_arg;
    const pdp_value *tn_principal, *tn_resource, *tn_context;
} pdp_tl_now;

/*
 * Decides the leaf at tn_at: true iff the condition has a satisfying
 * binding (§4.4). The reference semantics, evaluated by scanning the
 * history. Scratch space in `scratch`. BOX_ENOMEM / BOX_ETOOBIG when
 * the relation outgrows the scratch arena (the caller fails closed).
 */
box_err pdp_tl_holds(const pdp_tl *tl, const pdp_tl_now *now,
                     box_arena *scratch, bool *out) BOX_WARN_UNUSED;

/* tl as canonical Dogwood text (pdp_tl_dump.c): one spelling per tree,
 * which reads back to the same tree. */
box_err pdp_tl_dump(const pdp_tl *tl, box_buf *out) BOX_WARN_UNUSED;

/* The actions whose events tl can read: fn for each predicate's action
 * (an entity uid; repeats possible). *every is set when any event at all
 * matters (`previous` reads the one just before, `since` every one after
 * its anchor). */
typedef void (*pdp_tl_reads_fn)(void *arg, const pdp_value *action);
void pdp_tl_reads(const pdp_tl *tl, pdp_tl_reads_fn fn, void *arg, bool *every);

/* fn for each predicate of tl, aggregate bodies included. */
typedef void (*pdp_tl_pred_fn)(void *arg, const pdp_tl *pred);
void pdp_tl_each_pred(const pdp_tl *tl, pdp_tl_pred_fn fn, void *arg);

/* The nodes of tl (conditions and terms) counted as a tree, and its
 * depth, each stopped just past its cap: macro arguments are shared, so
 * an expansion can be a small graph standing for a huge tree, which every
 * walk of it would pay for. */
void pdp_tl_size(const pdp_tl *tl, size_t cap, size_t *nodes,
                 unsigned depth_cap, unsigned *depth);

/* True when term t's value needs nothing but the request: literals,
 * context and scope terms, arrays of those, and variables `bound` says
 * have a value (NULL: none has). Wildcards and aggregates never. */
typedef bool (*pdp_tl_bound_fn)(const void *arg, pdp_str name);
bool pdp_tterm_ground(const pdp_tterm *t, pdp_tl_bound_fn bound,
                      const void *arg);

/* How far back (seconds) pdp_tl_holds can read from its decision
 * timepoint: nested windows add up. What a history must keep. */
int64_t pdp_tl_max_window(const pdp_tl *tl);

#endif
