/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The temporal sub-language's parser (dogwood-spec §2.4). The grammar is
 * a PEG; its ordered choices are decided here by looking at most a few
 * tokens ahead, which picks the same alternative the PEG would:
 * a conjunct is a comparison unless it starts as one of the other forms
 * (`(` not followed by an aggregate, `formerly`, `previous`, `exists`,
 * `tp(`, a call `f(`, or an entity path followed by `::kind`).
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pdp_tl.h"

typedef struct tl_parser {
    pdp_lex *lx;
    box_arena *a;
    unsigned depth;
} tl_parser;

#define TL_MAX_DEPTH 200 // nesting, as the Cedar parser bounds it

#define TRY(x)                                                                \
    do {                                                                      \
        box_err try_rv_ = (x);                                                \
        if (try_rv_ != BOX_OK)                                                \
            return try_rv_;                                                   \
    } while (0)

#define TOK(p) (&(p)->lx->lx_tok)

static box_err tl_condition(tl_parser *p, const pdp_tl **out);
static box_err tl_term(tl_parser *p, const pdp_tterm **out);

/* ---- tokens ---- */

static pdp_pos
tpos(const pdp_token *t)
{
    return (pdp_pos){t->t_line, t->t_col};
}

static box_err __attribute__((format(printf, 3, 4)))
perr(tl_parser *p, pdp_pos pos, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pdp_lex_error(p->lx, BOX_EPARSE, pos.line, pos.col, "%s", msg);
}

static box_err __attribute__((format(printf, 3, 4)))
unsup(tl_parser *p, pdp_pos pos, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    return pdp_lex_error(p->lx, BOX_ENOTSUP, pos.line, pos.col,
                         "%s is not supported yet", what);
}

static box_err
expected(tl_parser *p, const char *what)
{
    const pdp_token *t = TOK(p);
    if (t->t_kind == PDP_TK_EOF)
        return perr(p, tpos(t), "expected %s, found end of file", what);
    return perr(p, tpos(t), "expected %s, found `%.*s`", what,
                (int)(t->t_len > 50 ? 50 : t->t_len), t->t_text);
}

static box_err
next(tl_parser *p)
{
    return pdp_lex_next(p->lx);
}

static const pdp_token *
peek(tl_parser *p)
{
    const pdp_token *t = NULL;
    if (pdp_lex_peek(p->lx, &t) != BOX_OK)
        return NULL;
    return t;
}

static bool
is_word(const pdp_token *t, const char *s)
{
    return t != NULL && t->t_kind == PDP_TK_IDENT && strlen(s) == t->t_len &&
           memcmp(t->t_text, s, t->t_len) == 0;
}

static box_err
expect(tl_parser *p, pdp_tk kind, const char *what)
{
    if (TOK(p)->t_kind != kind)
        return expected(p, what);
    return next(p);
}

static box_err
expect_word(tl_parser *p, const char *word)
{
    if (!is_word(TOK(p), word)) {
        char what[64];
        snprintf(what, sizeof what, "`%s`", word);
        return expected(p, what);
    }
    return next(p);
}

/* The words of the sub-language that are no variable. */
static bool
is_keyword(const pdp_token *t)
{
    static const char *const words[] = {
        "since", "within", "formerly", "previous", "exists", "tp", "count",
        "sum", "for", "where", "decimal", "context", "principal", "resource",
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (is_word(t, words[i]))
            return true;
    return false;
}

static pdp_str
tok_str(tl_parser *p, const pdp_token *t)
{
    char *s = box_arena_strndup(p->a, t->t_text, t->t_len);
    return (pdp_str){s, s != NULL ? t->t_len : 0};
}

static void *
node(tl_parser *p, size_t size)
{
    return box_arena_zalloc(p->a, size);
}

/* A growing array in the arena (the old copy is left there). */
static box_err
push(tl_parser *p, void **v, uint32_t *n, uint32_t *cap, size_t size,
     const void *item)
{
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 4;
        void *nv = box_arena_alloc(p->a, nc * size);
        if (nv == NULL)
            return BOX_ENOMEM;
        if (*n > 0)
            memcpy(nv, *v, *n * size);
        *v = nv;
        *cap = nc;
    }
    memcpy((char *)*v + *n * size, item, size);
    (*n)++;
    return BOX_OK;
}

/* Sigils are macro syntax: legal only inside `def temporal` bodies (the
 * Cedar parser's words for the same mistake). */
static box_err
stray_sigil(tl_parser *p)
{
    const pdp_token *t = TOK(p);
    const pdp_token *n = peek(p);
    int nl = n != NULL && n->t_kind == PDP_TK_IDENT ? (int)n->t_len : 0;
    const char *nt = n != NULL ? n->t_text : "";
    if (t->t_kind == PDP_TK_QUESTION)
        return perr(p, tpos(t), "stray macro parameter reference `?%.*s` "
                    "outside a macro body", nl, nt);
    return perr(p, tpos(t), "stray macro binder reference `$%.*s`", nl, nt);
}

static box_err
deeper(tl_parser *p)
{
    if (++p->depth > TL_MAX_DEPTH)
        return perr(p, tpos(TOK(p)), "temporal condition nested too deeply "
                    "(more than %d levels)", TL_MAX_DEPTH);
    return BOX_OK;
}

/* ---- pieces ---- */

/* A decimal integer with an optional leading `-`, as a Long. */
static box_err
tl_integer(tl_parser *p, int64_t *out)
{
    bool neg = false;
    pdp_pos pos = tpos(TOK(p));
    if (TOK(p)->t_kind == PDP_TK_MINUS) {
        neg = true;
        TRY(next(p));
    }
    if (TOK(p)->t_kind != PDP_TK_INT)
        return expected(p, "an integer");
    // Accumulate negatively so INT64_MIN fits.
    int64_t v = 0;
    const pdp_token *t = TOK(p);
    for (size_t i = 0; i < t->t_len; i++) {
        int d = t->t_text[i] - '0';
        if (v < (INT64_MIN + d) / 10)
            return perr(p, pos, "integer literal `%s%.*s` is out of range",
                        neg ? "-" : "", (int)t->t_len, t->t_text);
        v = v * 10 - d;
    }
    if (!neg) {
        if (v == INT64_MIN)
            return perr(p, pos, "integer literal `%.*s` is out of range",
                        (int)t->t_len, t->t_text);
        v = -v;
    }
    *out = v;
    return next(p);
}

/* within ::= "within" integer time_unit, in seconds. */
static box_err
tl_within(tl_parser *p, int64_t *secs)
{
    TRY(expect_word(p, "within"));
    if (TOK(p)->t_kind == PDP_TK_QUESTION)
        return stray_sigil(p);
    pdp_pos pos = tpos(TOK(p));
    int64_t n = 0;
    TRY(tl_integer(p, &n));
    static const struct {
        const char *unit;
        int64_t secs;
    } units[] = {{"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}};
    for (size_t i = 0; i < 4; i++)
        if (is_word(TOK(p), units[i].unit)) {
            if (n <= 0)
                return perr(p, pos, "a `within` window must be positive, "
                            "found %lld%s", (long long)n, units[i].unit);
            if (n > INT64_MAX / units[i].secs)
                return perr(p, pos, "the `within` window %lld%s is out of "
                            "range", (long long)n, units[i].unit);
            *secs = n * units[i].secs;
            return next(p);
        }
    return expected(p, "a time unit (`s`, `m`, `h` or `d`) after the "
                    "`within` amount");
}

/* IDENT { "::" IDENT } into a "A::B" string; stops before a `::` that is
 * not followed by an identifier. */
static box_err
tl_path(tl_parser *p, pdp_str *out)
{
    if (TOK(p)->t_kind != PDP_TK_IDENT)
        return expected(p, "a name");
    const char *start = TOK(p)->t_text;
    const char *end = start + TOK(p)->t_len;
    TRY(next(p));
    for (;;) {
        const pdp_token *n = peek(p);
        if (TOK(p)->t_kind != PDP_TK_DCOLON || n == NULL ||
            n->t_kind != PDP_TK_IDENT)
            break;
        TRY(next(p));
        end = TOK(p)->t_text + TOK(p)->t_len;
        TRY(next(p));
    }
    char *s = box_arena_strndup(p->a, start, (size_t)(end - start));
    if (s == NULL)
        return BOX_ENOMEM;
    *out = (pdp_str){s, (size_t)(end - start)};
    return BOX_OK;
}

/* Whether the tokens from here spell IDENT { "::" IDENT } "::" STR: an
 * entity uid (or a predicate's qualified action). */
static bool
at_entity(tl_parser *p)
{
    if (TOK(p)->t_kind != PDP_TK_IDENT)
        return false;
    pdp_lex save = *p->lx;
    bool yes = false;
    while (TOK(p)->t_kind == PDP_TK_IDENT) {
        if (next(p) != BOX_OK || TOK(p)->t_kind != PDP_TK_DCOLON ||
            next(p) != BOX_OK)
            break;
        if (TOK(p)->t_kind == PDP_TK_STR) {
            yes = true;
            break;
        }
    }
    *p->lx = save;
    return yes;
}

/* entity ::= ident { "::" ident } "::" string */
static box_err
tl_entity(tl_parser *p, const pdp_value **out)
{
    pdp_str type;
    TRY(tl_path(p, &type));
    TRY(expect(p, PDP_TK_DCOLON, "`::`"));
    if (TOK(p)->t_kind != PDP_TK_STR)
        return expected(p, "a quoted entity id");
    char *id = NULL;
    size_t idlen = 0;
    TRY(pdp_lex_string(p->lx, TOK(p), p->a, false, &id, &idlen, NULL));
    pdp_value *v = NULL;
    if (pdp_value_entity(p->a, type.s, type.len, id, idlen, &v) != BOX_OK)
        return perr(p, tpos(TOK(p)), "bad entity uid");
    *out = v;
    return next(p);
}

/* typed_binder ::= "(" binder_slot ":" type_expr ")" */
static box_err
tl_binder(tl_parser *p, pdp_tbinder *b)
{
    TRY(expect(p, PDP_TK_LPAREN, "`(` to open a typed binder"));
    if (TOK(p)->t_kind == PDP_TK_QUESTION || TOK(p)->t_kind == PDP_TK_DOLLAR)
        return stray_sigil(p);
    if (TOK(p)->t_kind != PDP_TK_IDENT || is_keyword(TOK(p)))
        return expected(p, "a variable name");
    b->tb_pos = tpos(TOK(p));
    b->tb_name = tok_str(p, TOK(p));
    TRY(next(p));
    TRY(expect(p, PDP_TK_COLON, "`:` after the variable"));
    TRY(tl_path(p, &b->tb_type));
    return expect(p, PDP_TK_RPAREN, "`)` to close the typed binder");
}

/* for_binders "where" condition, after `count` / `sum v` */
static box_err
tl_agg_rest(tl_parser *p, pdp_tagg *g)
{
    TRY(expect_word(p, "for"));
    pdp_tbinder *v = NULL;
    uint32_t cap = 0;
    for (;;) {
        pdp_tbinder b = {0};
        TRY(tl_binder(p, &b));
        TRY(push(p, (void **)&v, &g->ta_nfor, &cap, sizeof b, &b));
        if (TOK(p)->t_kind != PDP_TK_COMMA)
            break;
        TRY(next(p));
    }
    g->ta_for = v;
    TRY(expect(p, PDP_TK_DOT, "`.` after the `for` binders"));
    TRY(expect_word(p, "where"));
    return tl_condition(p, &g->ta_where);
}

/* agg_expr ::= sum_expr | count_expr (a macro call is refused) */
static box_err
tl_agg(tl_parser *p, pdp_tterm *t)
{
    pdp_tagg *g = node(p, sizeof *g);
    if (g == NULL)
        return BOX_ENOMEM;
    bool sum = is_word(TOK(p), "sum");
    TRY(next(p));
    if (sum) {
        if (TOK(p)->t_kind == PDP_TK_QUESTION ||
            TOK(p)->t_kind == PDP_TK_DOLLAR)
            return stray_sigil(p);
        if (TOK(p)->t_kind != PDP_TK_IDENT || is_keyword(TOK(p)))
            return expected(p, "the variable `sum` adds up");
        g->ta_sum = tok_str(p, TOK(p));
        TRY(next(p));
    }
    t->tt_kind = sum ? PDP_TT_SUM : PDP_TT_COUNT;
    t->tt_agg = g;
    TRY(deeper(p));
    TRY(tl_agg_rest(p, g));
    p->depth--;
    return BOX_OK;
}

/* ("." ident)* into segments. */
static box_err
tl_segs(tl_parser *p, pdp_tterm *t, bool need_one)
{
    pdp_str *v = NULL;
    uint32_t cap = 0;
    while (TOK(p)->t_kind == PDP_TK_DOT) {
        TRY(next(p));
        if (TOK(p)->t_kind != PDP_TK_IDENT)
            return expected(p, "a field name after `.`");
        pdp_str s = tok_str(p, TOK(p));
        TRY(push(p, (void **)&v, &t->tt_nsegs, &cap, sizeof s, &s));
        TRY(next(p));
    }
    if (need_one && t->tt_nsegs == 0)
        return expected(p, "`.` and a field name after `context`");
    t->tt_segs = v;
    return BOX_OK;
}

/* A call `f(` where a condition or term may stand: a macro call. */
static bool
at_call(tl_parser *p)
{
    const pdp_token *n = peek(p);
    return TOK(p)->t_kind == PDP_TK_IDENT && n != NULL &&
           n->t_kind == PDP_TK_LPAREN && !is_word(TOK(p), "decimal") &&
           !is_word(TOK(p), "tp");
}

/* term (§2.4), in the PEG's order */
static box_err
tl_term(tl_parser *p, const pdp_tterm **out)
{
    pdp_tterm *t = node(p, sizeof *t);
    if (t == NULL)
        return BOX_ENOMEM;
    t->tt_pos = tpos(TOK(p));
    *out = t;
    const pdp_token *tok = TOK(p);
    const pdp_token *n = peek(p);
    if (at_entity(p)) {
        t->tt_kind = PDP_TT_LIT;
        return tl_entity(p, &t->tt_lit);
    }
    if (is_word(tok, "decimal") && n != NULL && n->t_kind == PDP_TK_LPAREN) {
        TRY(next(p));
        TRY(next(p));
        if (TOK(p)->t_kind != PDP_TK_STR)
            return expected(p, "a quoted decimal");
        char *s = NULL;
        size_t len = 0;
        TRY(pdp_lex_string(p->lx, TOK(p), p->a, false, &s, &len, NULL));
        t->tt_kind = PDP_TT_DECIMAL;
        t->tt_text = (pdp_str){s, len};
        TRY(next(p));
        return expect(p, PDP_TK_RPAREN, "`)` to close `decimal(`");
    }
    if (tok->t_kind == PDP_TK_LPAREN && n != NULL &&
        (is_word(n, "count") || is_word(n, "sum"))) {
        TRY(next(p));
        TRY(tl_agg(p, t));
        return expect(p, PDP_TK_RPAREN, "`)` to close the aggregate");
    }
    if (is_word(tok, "count") || is_word(tok, "sum"))
        return tl_agg(p, t);
    if (at_call(p))
        return unsup(p, t->tt_pos, "macro call `%.*s(…)`", (int)tok->t_len,
                     tok->t_text);
    if (tok->t_kind == PDP_TK_INT ||
        (tok->t_kind == PDP_TK_MINUS && n != NULL &&
         n->t_kind == PDP_TK_INT)) {
        int64_t v = 0;
        TRY(tl_integer(p, &v));
        t->tt_kind = PDP_TT_LIT;
        t->tt_lit = pdp_value_long(p->a, v);
        return t->tt_lit != NULL ? BOX_OK : BOX_ENOMEM;
    }
    if (tok->t_kind == PDP_TK_STR) {
        char *s = NULL;
        size_t len = 0;
        TRY(pdp_lex_string(p->lx, tok, p->a, false, &s, &len, NULL));
        pdp_value *v = NULL;
        if (pdp_value_string(p->a, s, len, &v) != BOX_OK)
            return perr(p, t->tt_pos, "string literal is not valid UTF-8");
        t->tt_kind = PDP_TT_LIT;
        t->tt_lit = v;
        return next(p);
    }
    if (tok->t_kind == PDP_TK_TRUE || tok->t_kind == PDP_TK_FALSE) {
        t->tt_kind = PDP_TT_LIT;
        t->tt_lit = pdp_value_bool(p->a, tok->t_kind == PDP_TK_TRUE);
        if (t->tt_lit == NULL)
            return BOX_ENOMEM;
        return next(p);
    }
    if (tok->t_kind == PDP_TK_LBRACKET) {
        t->tt_kind = PDP_TT_ARRAY;
        TRY(next(p));
        pdp_tterm **v = NULL;
        uint32_t cap = 0;
        while (TOK(p)->t_kind != PDP_TK_RBRACKET) {
            const pdp_tterm *item = NULL;
            TRY(tl_term(p, &item));
            TRY(push(p, (void **)&v, &t->tt_nitems, &cap, sizeof item, &item));
            if (TOK(p)->t_kind != PDP_TK_COMMA)
                break;
            TRY(next(p));
        }
        t->tt_items = (const pdp_tterm *const *)v;
        return expect(p, PDP_TK_RBRACKET, "`]` to close the array");
    }
    if (is_word(tok, "context")) {
        t->tt_kind = PDP_TT_CONTEXT;
        TRY(next(p));
        return tl_segs(p, t, true);
    }
    if (is_word(tok, "principal") || is_word(tok, "resource")) {
        t->tt_kind = PDP_TT_SCOPE;
        t->tt_var = is_word(tok, "principal") ? PDP_VAR_PRINCIPAL
                                               : PDP_VAR_RESOURCE;
        TRY(next(p));
        return tl_segs(p, t, false);
    }
    if (tok->t_kind == PDP_TK_STAR || is_word(tok, "_")) {
        t->tt_kind = PDP_TT_WILD;
        return next(p);
    }
    if (tok->t_kind == PDP_TK_QUESTION || tok->t_kind == PDP_TK_DOLLAR)
        return stray_sigil(p);
    if (tok->t_kind == PDP_TK_IDENT && !is_keyword(tok)) {
        t->tt_kind = PDP_TT_VAR;
        t->tt_name = tok_str(p, tok);
        return next(p);
    }
    return expected(p, "a term");
}

/* named_arg_list ::= named_arg { "," named_arg }, inside `{ }` */
static box_err
tl_args(tl_parser *p, pdp_tl *pred, uint32_t *cap)
{
    TRY(expect(p, PDP_TK_LBRACE, "`{` to open the predicate's fields"));
    pdp_targ *v = (pdp_targ *)pred->tl_args;
    while (TOK(p)->t_kind != PDP_TK_RBRACE) {
        pdp_targ a = {.ta_pos = tpos(TOK(p))};
        if (TOK(p)->t_kind != PDP_TK_IDENT)
            return expected(p, "a field name");
        const char *start = TOK(p)->t_text;
        const char *end = start + TOK(p)->t_len;
        TRY(next(p));
        while (TOK(p)->t_kind == PDP_TK_DOT) {
            TRY(next(p));
            if (TOK(p)->t_kind != PDP_TK_IDENT)
                return expected(p, "a field name after `.`");
            end = TOK(p)->t_text + TOK(p)->t_len;
            TRY(next(p));
        }
        char *path = box_arena_strndup(p->a, start, (size_t)(end - start));
        if (path == NULL)
            return BOX_ENOMEM;
        a.ta_path = (pdp_str){path, (size_t)(end - start)};
        TRY(expect(p, PDP_TK_COLON, "`:` after the field name"));
        TRY(tl_term(p, &a.ta_term));
        TRY(push(p, (void **)&v, &pred->tl_nargs, cap, sizeof a, &a));
        if (TOK(p)->t_kind != PDP_TK_COMMA)
            break;
        TRY(next(p));
        if (TOK(p)->t_kind == PDP_TK_RBRACE)
            return expected(p, "a field name (no trailing comma)");
    }
    pred->tl_args = v;
    return expect(p, PDP_TK_RBRACE, "`}` to close the predicate's fields");
}

/* predicate ::= qualified_action "::" event_kind "{" args "}", then any
 * further `{ … }` blocks (refinements add their fields). */
static box_err
tl_predicate(tl_parser *p, const pdp_tl **out)
{
    pdp_tl *t = node(p, sizeof *t);
    if (t == NULL)
        return BOX_ENOMEM;
    t->tl_kind = PDP_TL_PRED;
    t->tl_pos = tpos(TOK(p));
    TRY(tl_entity(p, &t->tl_action));
    if (TOK(p)->t_kind != PDP_TK_DCOLON)
        return expected(p, "`::` and the event kind after the action");
    TRY(next(p));
    if (TOK(p)->t_kind != PDP_TK_IDENT)
        return expected(p, "an event kind (`request`, `response`, …)");
    t->tl_event_kind = tok_str(p, TOK(p));
    TRY(next(p));
    uint32_t cap = 0;
    TRY(tl_args(p, t, &cap));
    while (TOK(p)->t_kind == PDP_TK_LBRACE)
        TRY(tl_args(p, t, &cap));
    *out = t;
    return BOX_OK;
}

static const struct {
    pdp_tk tk;
    pdp_top op;
} tl_cmp_ops[] = {
    {PDP_TK_EQ, PDP_TOP_EQ}, {PDP_TK_LT, PDP_TOP_LT}, {PDP_TK_LE, PDP_TOP_LE},
    {PDP_TK_GT, PDP_TOP_GT}, {PDP_TK_GE, PDP_TOP_GE},
};

/* comparison ::= term cmp_op term */
static box_err
tl_comparison(tl_parser *p, const pdp_tl **out)
{
    pdp_tl *t = node(p, sizeof *t);
    if (t == NULL)
        return BOX_ENOMEM;
    t->tl_kind = PDP_TL_CMP;
    t->tl_pos = tpos(TOK(p));
    *out = t;
    TRY(tl_term(p, &t->tl_a));
    if (TOK(p)->t_kind == PDP_TK_NE)
        return perr(p, tpos(TOK(p)), "`!=` is not allowed in a temporal "
                    "condition; write `!(a == b)`");
    size_t i = 0;
    while (i < sizeof tl_cmp_ops / sizeof tl_cmp_ops[0] &&
           tl_cmp_ops[i].tk != TOK(p)->t_kind)
        i++;
    if (i == sizeof tl_cmp_ops / sizeof tl_cmp_ops[0]) {
        if (t->tl_a->tt_kind == PDP_TT_VAR)
            return expected(p, "a comparison operator after the variable "
                            "(a bare name is no condition)");
        return expected(p, "a comparison operator (`==`, `<`, `<=`, `>`, "
                        "`>=`)");
    }
    t->tl_op = tl_cmp_ops[i].op;
    TRY(next(p));
    return tl_term(p, &t->tl_b);
}

/* tp_op ::= "tp" "(" binder_slot ")" */
static box_err
tl_tp(tl_parser *p, const pdp_tl **out)
{
    pdp_tl *t = node(p, sizeof *t);
    if (t == NULL)
        return BOX_ENOMEM;
    t->tl_kind = PDP_TL_TP;
    t->tl_pos = tpos(TOK(p));
    TRY(next(p));
    TRY(expect(p, PDP_TK_LPAREN, "`(` after `tp`"));
    if (TOK(p)->t_kind == PDP_TK_QUESTION || TOK(p)->t_kind == PDP_TK_DOLLAR)
        return stray_sigil(p);
    if (TOK(p)->t_kind != PDP_TK_IDENT || is_keyword(TOK(p)))
        return expected(p, "a variable name in `tp( )`");
    t->tl_binder.tb_pos = tpos(TOK(p));
    t->tl_binder.tb_name = tok_str(p, TOK(p));
    TRY(next(p));
    *out = t;
    return expect(p, PDP_TK_RPAREN, "`)` to close `tp(`");
}

/*
 * conjunct (or, with atom, the operand of formerly/previous/since):
 * every form but `!`, `since` and `&&`. An atom takes no `formerly`,
 * `previous` or `exists`: those need parentheses there.
 */
static box_err
tl_conjunct(tl_parser *p, bool atom, const pdp_tl **out)
{
    const pdp_token *tok = TOK(p);
    const pdp_token *n = peek(p);
    pdp_pos pos = tpos(tok);
    if (tok->t_kind == PDP_TK_LPAREN &&
        !(n != NULL && (is_word(n, "count") || is_word(n, "sum")))) {
        TRY(next(p));
        TRY(deeper(p));
        TRY(tl_condition(p, out));
        p->depth--;
        return expect(p, PDP_TK_RPAREN, "`)` to close `(`");
    }
    if (is_word(tok, "formerly") || is_word(tok, "previous")) {
        if (atom)
            return perr(p, pos, "`%.*s` here needs parentheses: write "
                        "`(%.*s within …)`", (int)tok->t_len, tok->t_text,
                        (int)tok->t_len, tok->t_text);
        pdp_tl *t = node(p, sizeof *t);
        if (t == NULL)
            return BOX_ENOMEM;
        t->tl_kind = is_word(tok, "formerly") ? PDP_TL_FORMERLY
                                               : PDP_TL_PREVIOUS;
        t->tl_pos = pos;
        TRY(next(p));
        TRY(tl_within(p, &t->tl_window));
        TRY(deeper(p));
        TRY(tl_conjunct(p, true, &t->tl_l));
        p->depth--;
        *out = t;
        return BOX_OK;
    }
    if (is_word(tok, "exists")) {
        if (atom)
            return perr(p, pos, "`exists` here needs parentheses: write "
                        "`(exists (x: T). …)`");
        pdp_tl *t = node(p, sizeof *t);
        if (t == NULL)
            return BOX_ENOMEM;
        t->tl_kind = PDP_TL_EXISTS;
        t->tl_pos = pos;
        TRY(next(p));
        TRY(tl_binder(p, &t->tl_binder));
        TRY(expect(p, PDP_TK_DOT, "`.` after the `exists` binder"));
        TRY(deeper(p));
        TRY(tl_condition(p, &t->tl_l)); // the body extends maximally right
        p->depth--;
        *out = t;
        return BOX_OK;
    }
    if (is_word(tok, "tp") && n != NULL && n->t_kind == PDP_TK_LPAREN)
        return tl_tp(p, out);
    if (at_call(p))
        return unsup(p, pos, "macro call `%.*s(…)`", (int)tok->t_len,
                     tok->t_text);
    if (tok->t_kind == PDP_TK_QUESTION)
        return stray_sigil(p);
    if (at_entity(p)) {
        // An entity path followed by `::kind` is a predicate; otherwise it
        // is the left operand of a comparison.
        pdp_lex save = *p->lx;
        const pdp_value *ignored = NULL;
        TRY(tl_entity(p, &ignored));
        bool pred = TOK(p)->t_kind == PDP_TK_DCOLON;
        *p->lx = save;
        if (pred)
            return tl_predicate(p, out);
    }
    return tl_comparison(p, out);
}

/* neg_conjunct [ "since" within atom ] */
static box_err
tl_conjunct_or_since(tl_parser *p, const pdp_tl **out)
{
    pdp_pos pos = tpos(TOK(p));
    unsigned nots = 0;
    while (TOK(p)->t_kind == PDP_TK_NOT) {
        nots++;
        TRY(next(p));
        TRY(deeper(p));
    }
    const pdp_tl *c = NULL;
    TRY(tl_conjunct(p, false, &c));
    p->depth -= nots;
    // Each `!` wraps; the innermost wraps first.
    while (nots-- > 0) {
        pdp_tl *t = node(p, sizeof *t);
        if (t == NULL)
            return BOX_ENOMEM;
        t->tl_kind = PDP_TL_NOT;
        t->tl_pos = pos;
        t->tl_l = c;
        c = t;
    }
    if (is_word(TOK(p), "since")) {
        pdp_tl *t = node(p, sizeof *t);
        if (t == NULL)
            return BOX_ENOMEM;
        t->tl_kind = PDP_TL_SINCE;
        t->tl_pos = pos;
        t->tl_l = c;
        TRY(next(p));
        TRY(tl_within(p, &t->tl_window));
        TRY(deeper(p));
        TRY(tl_conjunct(p, true, &t->tl_r));
        p->depth--;
        c = t;
    }
    *out = c;
    return BOX_OK;
}

/* condition ::= conjunct_or_since { "&&" conjunct_or_since } */
static box_err
tl_condition(tl_parser *p, const pdp_tl **out)
{
    const pdp_tl *l = NULL;
    TRY(tl_conjunct_or_since(p, &l));
    while (TOK(p)->t_kind == PDP_TK_AND) {
        pdp_tl *t = node(p, sizeof *t);
        if (t == NULL)
            return BOX_ENOMEM;
        t->tl_kind = PDP_TL_AND;
        t->tl_pos = l->tl_pos;
        t->tl_l = l;
        TRY(next(p));
        TRY(tl_conjunct_or_since(p, &t->tl_r));
        l = t;
    }
    if (TOK(p)->t_kind == PDP_TK_OR)
        return perr(p, tpos(TOK(p)), "`||` is not part of the temporal "
                    "language; write two rules, or `!(!A && !B)`");
    *out = l;
    return BOX_OK;
}

box_err
pdp_tl_parse(pdp_lex *lx, box_arena *a, const pdp_tl **out)
{
    tl_parser p = {.lx = lx, .a = a};
    // BOX_EPARSE, or BOX_ENOTSUP for a construct not supported yet: the
    // code the lexer's message was recorded with.
    return tl_condition(&p, out);
}
