/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Macros (dogwood-spec §2.6): the definitions of a policy set and its
 * library, collected before the rules are parsed (a call may come before
 * its `def`), and what a body's sigils stand for while one is parsed.
 * Expansion happens in the parsers themselves: a call re-reads its
 * macro's body from the saved lexer with the call's arguments bound, so
 * nothing of a macro survives into the tree. Internal to libboxpolicy.
 */
#ifndef PDP_MACRO_H
#define PDP_MACRO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_arena.h"
#include "box_buf.h"
#include "box_err.h"
#include "pdp_ast.h"
#include "pdp_lex.h"

struct pdp_tl;
struct pdp_tterm;

/* ORDER PDP_MACRO */
typedef enum pdp_macro_kind {
    PDP_MACRO_CEDAR, // def cedar: a Cedar expression
    PDP_MACRO_COND,  // def temporal whose body is a condition
    PDP_MACRO_AGG,   // def temporal whose body is count/sum
} pdp_macro_kind;

/* How a body uses a parameter (a bit set): what the call's argument
 * must be. */
enum {
    PDP_MUSE_TERM = 1u,   // a value (Cedar: any expression)
    PDP_MUSE_WINDOW = 2u, // `within ?w`: an interval such as `1h`
    PDP_MUSE_COND = 4u,   // a whole condition, maybe refined `?s{ … }`
    PDP_MUSE_BINDER = 8u, // a variable's name: a bare identifier
};

typedef struct pdp_macro {
    pdp_str m_name;
    pdp_macro_kind m_kind;
    const pdp_str *m_params; // without the `?`
    unsigned *m_uses;        // per parameter, PDP_MUSE_*
    uint32_t m_nparams;
    bool m_library;  // from the library, not the policy set
    pdp_lex m_body;  // at the body's first token
} pdp_macro;

/* The definitions in scope (arena memory), and the calls expanded. */
typedef struct pdp_macros {
    pdp_macro *mt_v;
    uint32_t mt_n, mt_cap;
    uint32_t mt_calls; // expansions so far
    pdp_pos mt_first;  // the first call expanded
} pdp_macros;

/* Counts an expansion at pos. */
static inline void
pdp_macros_called(pdp_macros *t, pdp_pos pos)
{
    if (t->mt_calls++ == 0)
        t->mt_first = pos;
}

/* ORDER PDP_MARG: what a call's argument was read as. */
typedef enum pdp_marg_kind {
    PDP_MARG_EXPR,     // a Cedar expression (def cedar)
    PDP_MARG_INTERVAL, // `1h`
    PDP_MARG_COND,     // a temporal condition
    PDP_MARG_TERM,     // a temporal term
} pdp_marg_kind;

typedef struct pdp_marg {
    pdp_marg_kind ma_kind;
    const pdp_expr *ma_expr;
    int64_t ma_secs;
    const struct pdp_tl *ma_cond;
    const struct pdp_tterm *ma_term;
    pdp_pos ma_pos;
} pdp_marg;

/*
 * A body being read. ms_args NULL: its definition is being checked, each
 * sigil stands for a placeholder and its use is recorded in the
 * definition's m_uses; else a call is being expanded and parameter i
 * stands for ms_args[i]. `$t` becomes `t$<ms_site>` (the call site's
 * byte offset), one name per expansion.
 */
typedef struct pdp_mscope {
    pdp_macro *ms_def;
    const pdp_marg *ms_args;
    size_t ms_site;
} pdp_mscope;

/*
 * Collects the definitions of text (a policy set, or with library true a
 * macro library) into t, checking each body: its parameters, its sigils,
 * no call inside it. A policy's definition replaces a library one of the
 * same name; two in one file are an error. Rules are skipped (the parser
 * proper reports their errors). The definitions keep lexers that point
 * into text: it must outlive t. BOX_EPARSE with "file:line:col: …" in err.
 */
box_err pdp_macros_collect(const char *text, size_t len, const char *file,
                           bool library, box_arena *a, pdp_macros *t,
                           box_buf *err) BOX_WARN_UNUSED;

/* The built-in library (used when no library is supplied). */
box_err pdp_macros_default(box_arena *a, pdp_macros *t,
                           box_buf *err) BOX_WARN_UNUSED;

const pdp_macro *pdp_macros_find(const pdp_macros *t, const char *name,
                                 size_t len);

/* The index of parameter name in m, or -1. */
int pdp_macro_param(const pdp_macro *m, const char *name, size_t len);

/* Moves lx past the item it is at: through the `;` that ends it outside
 * any bracket. BOX_EPARSE at the end of the text or on a lexical error. */
box_err pdp_macro_skip_item(pdp_lex *lx) BOX_WARN_UNUSED;

/* Whether the tokens at lx start a definition: `def cedar|temporal`. */
bool pdp_macro_at_def(pdp_lex *lx);

/* The sub-parsers' body entries, for checking a definition (sc->ms_args
 * NULL). The lexer is at the body's first token and stops at its `}`. */
box_err pdp_parse_macro_body(pdp_lex *lx, box_arena *a, pdp_mscope *sc)
    BOX_WARN_UNUSED;
box_err pdp_tl_parse_macro_body(pdp_lex *lx, box_arena *a, pdp_mscope *sc,
                                bool *agg) BOX_WARN_UNUSED;

#endif
