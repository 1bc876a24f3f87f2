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

#include "pdp_macro.h"
#include "pdp_tl.h"

typedef struct tl_parser {
    pdp_lex *lx;
    box_arena *a;
    unsigned depth;
    pdp_macros *mt;       // the definitions calls expand from
    pdp_mscope *sc;       // inside a `def temporal` body, else NULL
} tl_parser;

#define TOK(p) (&(p)->lx->lx_tok)

static box_err tl_condition(tl_parser *p, const pdp_tl **out);
static box_err tl_term(tl_parser *p, const pdp_tterm **out);
static box_err tl_agg(tl_parser *p, pdp_tterm *t);
static box_err tl_args(tl_parser *p, pdp_tl *pred, uint32_t *cap);
static box_err tl_call(tl_parser *p, pdp_tterm *agg, const pdp_tl **cond);

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
    if (++p->depth > PDP_TL_MAX_DEPTH)
        return perr(p, tpos(TOK(p)), "temporal condition nested too deeply "
                    "(more than %d levels)", PDP_TL_MAX_DEPTH);
    return BOX_OK;
}

/* ---- macro sigils (dogwood-spec §2.6) ---- */

/*
 * The sigil at the current token (`?p` or `$t`, inside a `def temporal`
 * body) used as `use`, consumed. For `?p`: *arg is the call's argument
 * (NULL while the definition is checked, the use then recorded). For
 * `$t`: *fresh is its name in this expansion, `t$<call site>`.
 */
static box_err
tl_sigil(tl_parser *p, unsigned use, const pdp_marg **arg, pdp_str *fresh,
         pdp_str *param)
{
    if (p->sc == NULL)
        return stray_sigil(p);
    bool dollar = TOK(p)->t_kind == PDP_TK_DOLLAR;
    pdp_pos pos = tpos(TOK(p));
    BOX_TRY(next(p));
    const pdp_token id = *TOK(p);
    if (id.t_kind != PDP_TK_IDENT)
        return expected(p, dollar ? "a binder name after `$`"
                                  : "a parameter name after `?`");
    BOX_TRY(next(p));
    *arg = NULL;
    *fresh = (pdp_str){0};
    *param = tok_str(p, &id);
    if (param->s == NULL)
        return BOX_ENOMEM;
    if (dollar) {
        char buf[160];
        int n = p->sc->ms_args == NULL
                    ? snprintf(buf, sizeof buf, "$%.*s",
                               (int)(id.t_len > 100 ? 100 : id.t_len),
                               id.t_text)
                    : snprintf(buf, sizeof buf, "%.*s$%zu",
                               (int)(id.t_len > 100 ? 100 : id.t_len),
                               id.t_text, p->sc->ms_site);
        char *s = box_arena_strndup(p->a, buf, (size_t)n);
        if (s == NULL)
            return BOX_ENOMEM;
        *fresh = (pdp_str){s, (size_t)n};
        return BOX_OK;
    }
    int i = pdp_macro_param(p->sc->ms_def, id.t_text, id.t_len);
    if (i < 0)
        return perr(p, pos, "in `def temporal` body: `?%.*s` does not name a "
                    "declared parameter", (int)id.t_len, id.t_text);
    if (p->sc->ms_args != NULL)
        *arg = &p->sc->ms_args[i];
    else
        p->sc->ms_def->m_uses[i] |= use;
    return BOX_OK;
}

/* A binder's name: an identifier, or in a macro body `?p` (the call's
 * identifier) or `$t` (fresh). */
static box_err
tl_binder_name(tl_parser *p, const char *what, pdp_str *name, pdp_pos *pos)
{
    *pos = tpos(TOK(p));
    if (TOK(p)->t_kind == PDP_TK_QUESTION || TOK(p)->t_kind == PDP_TK_DOLLAR) {
        const pdp_marg *arg = NULL;
        pdp_str fresh, param;
        BOX_TRY(tl_sigil(p, PDP_MUSE_BINDER, &arg, &fresh, &param));
        if (fresh.s != NULL)
            *name = fresh;
        else if (arg != NULL) // checked at the call: a bare identifier
            *name = arg->ma_term->tt_name;
        else
            *name = param;
        return BOX_OK;
    }
    if (TOK(p)->t_kind != PDP_TK_IDENT || is_keyword(TOK(p)))
        return expected(p, what);
    *name = tok_str(p, TOK(p));
    return next(p);
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
        BOX_TRY(next(p));
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

/* A time unit after an amount. */
static const struct {
    const char *unit;
    int64_t secs;
} tl_units[] = {{"s", 1}, {"m", 60}, {"h", 3600}, {"d", 86400}};

/* interval ::= integer time_unit, in seconds (positive). */
static box_err
tl_interval(tl_parser *p, int64_t *secs)
{
    pdp_pos pos = tpos(TOK(p));
    int64_t n = 0;
    BOX_TRY(tl_integer(p, &n));
    for (size_t i = 0; i < sizeof tl_units / sizeof tl_units[0]; i++)
        if (is_word(TOK(p), tl_units[i].unit)) {
            if (n <= 0)
                return perr(p, pos, "a `within` window must be positive, "
                            "found %lld%s", (long long)n, tl_units[i].unit);
            if (n > INT64_MAX / tl_units[i].secs)
                return perr(p, pos, "the `within` window %lld%s is out of "
                            "range", (long long)n, tl_units[i].unit);
            *secs = n * tl_units[i].secs;
            return next(p);
        }
    return expected(p, "a time unit (`s`, `m`, `h` or `d`) after the "
                    "`within` amount");
}

/* within ::= "within" ( interval | param_ref ), in seconds. */
static box_err
tl_within(tl_parser *p, int64_t *secs)
{
    BOX_TRY(expect_word(p, "within"));
    if (TOK(p)->t_kind == PDP_TK_QUESTION) {
        const pdp_marg *arg = NULL;
        pdp_str fresh, param;
        BOX_TRY(tl_sigil(p, PDP_MUSE_WINDOW, &arg, &fresh, &param));
        *secs = arg != NULL ? arg->ma_secs : 1; // checked at the call
        return BOX_OK;
    }
    if (TOK(p)->t_kind == PDP_TK_DOLLAR)
        return stray_sigil(p);
    return tl_interval(p, secs);
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
    BOX_TRY(next(p));
    for (;;) {
        const pdp_token *n = peek(p);
        if (TOK(p)->t_kind != PDP_TK_DCOLON || n == NULL ||
            n->t_kind != PDP_TK_IDENT)
            break;
        BOX_TRY(next(p));
        end = TOK(p)->t_text + TOK(p)->t_len;
        BOX_TRY(next(p));
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
    BOX_TRY(tl_path(p, &type));
    BOX_TRY(expect(p, PDP_TK_DCOLON, "`::`"));
    if (TOK(p)->t_kind != PDP_TK_STR)
        return expected(p, "a quoted entity id");
    char *id = NULL;
    size_t idlen = 0;
    BOX_TRY(pdp_lex_string(p->lx, TOK(p), p->a, false, &id, &idlen, NULL));
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
    BOX_TRY(expect(p, PDP_TK_LPAREN, "`(` to open a typed binder"));
    BOX_TRY(tl_binder_name(p, "a variable name", &b->tb_name, &b->tb_pos));
    BOX_TRY(expect(p, PDP_TK_COLON, "`:` after the variable"));
    BOX_TRY(tl_path(p, &b->tb_type));
    return expect(p, PDP_TK_RPAREN, "`)` to close the typed binder");
}

/* for_binders "where" condition, after `count` / `sum v` */
static box_err
tl_agg_rest(tl_parser *p, pdp_tagg *g)
{
    BOX_TRY(expect_word(p, "for"));
    pdp_tbinder *v = NULL;
    uint32_t cap = 0;
    for (;;) {
        pdp_tbinder b = {0};
        BOX_TRY(tl_binder(p, &b));
        BOX_TRY(push(p, (void **)&v, &g->ta_nfor, &cap, sizeof b, &b));
        if (TOK(p)->t_kind != PDP_TK_COMMA)
            break;
        BOX_TRY(next(p));
    }
    g->ta_for = v;
    BOX_TRY(expect(p, PDP_TK_DOT, "`.` after the `for` binders"));
    BOX_TRY(expect_word(p, "where"));
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
    BOX_TRY(next(p));
    if (sum) {
        pdp_pos ignored;
        BOX_TRY(tl_binder_name(p, "the variable `sum` adds up", &g->ta_sum,
                               &ignored));
    }
    t->tt_kind = sum ? PDP_TT_SUM : PDP_TT_COUNT;
    t->tt_agg = g;
    BOX_TRY(deeper(p));
    BOX_TRY(tl_agg_rest(p, g));
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
        BOX_TRY(next(p));
        if (TOK(p)->t_kind != PDP_TK_IDENT)
            return expected(p, "a field name after `.`");
        pdp_str s = tok_str(p, TOK(p));
        BOX_TRY(push(p, (void **)&v, &t->tt_nsegs, &cap, sizeof s, &s));
        BOX_TRY(next(p));
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

/* The kind of the token after the call `f(…)` here (PDP_TK_EOF when
 * there is none); the lexer is left where it was. */
static pdp_tk
after_call(tl_parser *p)
{
    pdp_lex save = *p->lx;
    pdp_tk after = PDP_TK_EOF;
    size_t depth = 0;
    if (next(p) != BOX_OK)
        goto out;
    do {
        pdp_tk k = TOK(p)->t_kind;
        if (k == PDP_TK_EOF)
            goto out;
        depth += k == PDP_TK_LPAREN;
        depth -= k == PDP_TK_RPAREN && depth > 0;
        if (next(p) != BOX_OK)
            goto out;
    } while (depth > 0);
    after = TOK(p)->t_kind;
out:
    *p->lx = save;
    return after;
}

/* Whether `(` here opens a paren_agg: `(count`, `(sum`, or `(f(…))` with
 * f an aggregation macro (the PEG's `"(" agg_expr ")"`). */
static bool
at_paren_agg(tl_parser *p)
{
    const pdp_token *n = peek(p);
    if (TOK(p)->t_kind != PDP_TK_LPAREN || n == NULL)
        return false;
    if (is_word(n, "count") || is_word(n, "sum"))
        return true;
    const pdp_macro *m = n->t_kind == PDP_TK_IDENT
                             ? pdp_macros_find(p->mt, n->t_text, n->t_len)
                             : NULL;
    if (m == NULL || m->m_kind != PDP_MACRO_AGG)
        return false;
    pdp_lex save = *p->lx;
    bool yes = next(p) == BOX_OK && at_call(p) &&
               after_call(p) == PDP_TK_RPAREN;
    *p->lx = save;
    return yes;
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
        BOX_TRY(next(p));
        BOX_TRY(next(p));
        if (TOK(p)->t_kind != PDP_TK_STR)
            return expected(p, "a quoted decimal");
        char *s = NULL;
        size_t len = 0;
        BOX_TRY(pdp_lex_string(p->lx, TOK(p), p->a, false, &s, &len, NULL));
        t->tt_kind = PDP_TT_DECIMAL;
        t->tt_text = (pdp_str){s, len};
        BOX_TRY(next(p));
        return expect(p, PDP_TK_RPAREN, "`)` to close `decimal(`");
    }
    if (at_paren_agg(p)) {
        BOX_TRY(next(p));
        if (at_call(p))
            BOX_TRY(tl_call(p, t, NULL));
        else
            BOX_TRY(tl_agg(p, t));
        return expect(p, PDP_TK_RPAREN, "`)` to close the aggregate");
    }
    if (is_word(tok, "count") || is_word(tok, "sum"))
        return tl_agg(p, t);
    if (at_call(p))
        return tl_call(p, t, NULL);
    if (tok->t_kind == PDP_TK_INT ||
        (tok->t_kind == PDP_TK_MINUS && n != NULL &&
         n->t_kind == PDP_TK_INT)) {
        int64_t v = 0;
        BOX_TRY(tl_integer(p, &v));
        t->tt_kind = PDP_TT_LIT;
        t->tt_lit = pdp_value_long(p->a, v);
        return t->tt_lit != NULL ? BOX_OK : BOX_ENOMEM;
    }
    if (tok->t_kind == PDP_TK_STR) {
        char *s = NULL;
        size_t len = 0;
        BOX_TRY(pdp_lex_string(p->lx, tok, p->a, false, &s, &len, NULL));
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
        BOX_TRY(next(p));
        pdp_tterm **v = NULL;
        uint32_t cap = 0;
        while (TOK(p)->t_kind != PDP_TK_RBRACKET) {
            const pdp_tterm *item = NULL;
            BOX_TRY(tl_term(p, &item));
            BOX_TRY(
                push(p, (void **)&v, &t->tt_nitems, &cap, sizeof item, &item));
            if (TOK(p)->t_kind != PDP_TK_COMMA)
                break;
            BOX_TRY(next(p));
        }
        t->tt_items = (const pdp_tterm *const *)v;
        return expect(p, PDP_TK_RBRACKET, "`]` to close the array");
    }
    if (is_word(tok, "context")) {
        t->tt_kind = PDP_TT_CONTEXT;
        BOX_TRY(next(p));
        return tl_segs(p, t, true);
    }
    if (is_word(tok, "principal") || is_word(tok, "resource")) {
        t->tt_kind = PDP_TT_SCOPE;
        t->tt_var = is_word(tok, "principal") ? PDP_VAR_PRINCIPAL
                                               : PDP_VAR_RESOURCE;
        BOX_TRY(next(p));
        return tl_segs(p, t, false);
    }
    if (tok->t_kind == PDP_TK_STAR || is_word(tok, "_")) {
        t->tt_kind = PDP_TT_WILD;
        return next(p);
    }
    if (tok->t_kind == PDP_TK_QUESTION || tok->t_kind == PDP_TK_DOLLAR) {
        const pdp_marg *arg = NULL;
        pdp_str fresh, param;
        BOX_TRY(tl_sigil(p, PDP_MUSE_TERM, &arg, &fresh, &param));
        if (arg != NULL) { // checked at the call: a term
            *out = arg->ma_term;
            return BOX_OK;
        }
        t->tt_kind = PDP_TT_VAR;
        t->tt_name = fresh.s != NULL ? fresh : param;
        return BOX_OK;
    }
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
    BOX_TRY(expect(p, PDP_TK_LBRACE, "`{` to open the predicate's fields"));
    pdp_targ *v = (pdp_targ *)pred->tl_args;
    while (TOK(p)->t_kind != PDP_TK_RBRACE) {
        pdp_targ a = {.ta_pos = tpos(TOK(p))};
        if (TOK(p)->t_kind != PDP_TK_IDENT)
            return expected(p, "a field name");
        const char *start = TOK(p)->t_text;
        const char *end = start + TOK(p)->t_len;
        BOX_TRY(next(p));
        while (TOK(p)->t_kind == PDP_TK_DOT) {
            BOX_TRY(next(p));
            if (TOK(p)->t_kind != PDP_TK_IDENT)
                return expected(p, "a field name after `.`");
            end = TOK(p)->t_text + TOK(p)->t_len;
            BOX_TRY(next(p));
        }
        char *path = box_arena_strndup(p->a, start, (size_t)(end - start));
        if (path == NULL)
            return BOX_ENOMEM;
        a.ta_path = (pdp_str){path, (size_t)(end - start)};
        BOX_TRY(expect(p, PDP_TK_COLON, "`:` after the field name"));
        BOX_TRY(tl_term(p, &a.ta_term));
        BOX_TRY(push(p, (void **)&v, &pred->tl_nargs, cap, sizeof a, &a));
        if (TOK(p)->t_kind != PDP_TK_COMMA)
            break;
        BOX_TRY(next(p));
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
    BOX_TRY(tl_entity(p, &t->tl_action));
    if (TOK(p)->t_kind != PDP_TK_DCOLON)
        return expected(p, "`::` and the event kind after the action");
    BOX_TRY(next(p));
    if (TOK(p)->t_kind != PDP_TK_IDENT)
        return expected(p, "an event kind (`request`, `response`, …)");
    t->tl_event_kind = tok_str(p, TOK(p));
    BOX_TRY(next(p));
    uint32_t cap = 0;
    BOX_TRY(tl_args(p, t, &cap));
    while (TOK(p)->t_kind == PDP_TK_LBRACE)
        BOX_TRY(tl_args(p, t, &cap));
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
    BOX_TRY(tl_term(p, &t->tl_a));
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
    BOX_TRY(next(p));
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
    BOX_TRY(next(p));
    BOX_TRY(expect(p, PDP_TK_LPAREN, "`(` after `tp`"));
    BOX_TRY(tl_binder_name(p, "a variable name in `tp( )`",
                           &t->tl_binder.tb_name, &t->tl_binder.tb_pos));
    *out = t;
    return expect(p, PDP_TK_RPAREN, "`)` to close `tp(`");
}

/* ---- macro calls (dogwood-spec §2.6) ---- */

/* A comparison operator (`!=` too: the comparison refuses it). */
static bool
is_cmp(pdp_tk k)
{
    if (k == PDP_TK_NE)
        return true;
    for (size_t i = 0; i < sizeof tl_cmp_ops / sizeof tl_cmp_ops[0]; i++)
        if (tl_cmp_ops[i].tk == k)
            return true;
    return false;
}

/* Whether `?p` / `$t` here is a comparison's left operand (`?A == ?n`),
 * which the PEG tries before a whole-condition parameter. */
static bool
at_sigil_comparison(tl_parser *p)
{
    pdp_lex save = *p->lx;
    bool cmp = false;
    if (next(p) == BOX_OK && next(p) == BOX_OK)
        cmp = is_cmp(TOK(p)->t_kind);
    *p->lx = save;
    return cmp;
}

/* refinable ::= param_ref { field_block }: the call's condition; blocks
 * after it add fields to it, which must then be a single predicate. */
static box_err
tl_param_condition(tl_parser *p, const pdp_tl **out)
{
    pdp_pos pos = tpos(TOK(p));
    if (p->sc != NULL && TOK(p)->t_kind == PDP_TK_DOLLAR) {
        const pdp_token *n = peek(p);
        int nl = n != NULL && n->t_kind == PDP_TK_IDENT ? (int)n->t_len : 0;
        return perr(p, pos, "macro binder `$%.*s` used as a whole condition "
                    "has no meaning", nl, n != NULL ? n->t_text : "");
    }
    const pdp_marg *arg = NULL;
    pdp_str fresh, param;
    BOX_TRY(tl_sigil(p, PDP_MUSE_COND, &arg, &fresh, &param));
    const pdp_tl *base = arg != NULL ? arg->ma_cond : NULL;
    if (TOK(p)->t_kind != PDP_TK_LBRACE && base != NULL) {
        *out = base;
        return BOX_OK;
    }
    if (base != NULL && base->tl_kind != PDP_TL_PRED)
        return perr(p, pos, "`?%s{ … }` refines a predicate, but the "
                    "argument for `?%s` is not a single predicate", param.s,
                    param.s);
    pdp_tl *t = node(p, sizeof *t);
    if (t == NULL)
        return BOX_ENOMEM;
    if (base != NULL)
        *t = *base; // a copy: the argument may be used elsewhere as it was
    else            // checking the definition: a placeholder
        *t = (pdp_tl){.tl_kind = PDP_TL_PRED, .tl_pos = pos};
    uint32_t cap = t->tl_nargs; // the first field added copies the array
    while (TOK(p)->t_kind == PDP_TK_LBRACE)
        BOX_TRY(tl_args(p, t, &cap));
    *out = t;
    return BOX_OK;
}

/* Whether the tokens here are an interval argument: `1h` then `,`/`)`. */
static bool
at_interval(tl_parser *p)
{
    pdp_lex save = *p->lx;
    bool yes = false;
    if (TOK(p)->t_kind == PDP_TK_MINUS && next(p) != BOX_OK)
        goto out;
    if (TOK(p)->t_kind != PDP_TK_INT || next(p) != BOX_OK)
        goto out;
    for (size_t i = 0; i < sizeof tl_units / sizeof tl_units[0]; i++)
        if (is_word(TOK(p), tl_units[i].unit)) {
            yes = next(p) == BOX_OK && (TOK(p)->t_kind == PDP_TK_COMMA ||
                                        TOK(p)->t_kind == PDP_TK_RPAREN);
            break;
        }
out:
    *p->lx = save;
    return yes;
}

/* call_arg ::= interval_lit | condition | term, in the PEG's order: a
 * condition that does not end the argument gives way to a term. */
static box_err
tl_call_arg(tl_parser *p, pdp_marg *a)
{
    a->ma_pos = tpos(TOK(p));
    if (at_interval(p)) {
        a->ma_kind = PDP_MARG_INTERVAL;
        return tl_interval(p, &a->ma_secs);
    }
    pdp_lex save = *p->lx;
    unsigned depth = p->depth;
    box_err rv = tl_condition(p, &a->ma_cond);
    if (rv == BOX_OK && (TOK(p)->t_kind == PDP_TK_COMMA ||
                         TOK(p)->t_kind == PDP_TK_RPAREN)) {
        a->ma_kind = PDP_MARG_COND;
        return BOX_OK;
    }
    if (rv != BOX_OK && rv != BOX_EPARSE && rv != BOX_ENOTSUP)
        return rv;
    *p->lx = save; // forgets the attempt's error too
    if (rv != BOX_OK)
        box_buf_truncate(p->lx->lx_err, 0);
    p->depth = depth;
    a->ma_kind = PDP_MARG_TERM;
    return tl_term(p, &a->ma_term);
}

/* Argument i of a call of m is what the body's uses of it need. */
static box_err
check_arg(tl_parser *p, const pdp_macro *m, uint32_t i, const pdp_marg *a)
{
    unsigned use = m->m_uses[i];
    const char *name = m->m_params[i].s;
    pdp_pos pos = a->ma_pos;
    if ((use & PDP_MUSE_BINDER) &&
        !(a->ma_kind == PDP_MARG_TERM && a->ma_term->tt_kind == PDP_TT_VAR))
        return perr(p, pos, "parameter `?%s` is used in a binder position, "
                    "so the call-site argument must be a single identifier",
                    name);
    if ((use & PDP_MUSE_WINDOW) && a->ma_kind != PDP_MARG_INTERVAL)
        return perr(p, pos, "parameter `?%s` is a `within` window, so the "
                    "call-site argument must be an interval such as `1h`",
                    name);
    if ((use & PDP_MUSE_COND) && a->ma_kind != PDP_MARG_COND)
        return perr(p, pos, "parameter `?%s` stands for a whole condition, "
                    "so the call-site argument must be a temporal condition",
                    name);
    if ((use & PDP_MUSE_TERM) && a->ma_kind != PDP_MARG_TERM)
        return perr(p, pos, "parameter `?%s` is used as a term, so the "
                    "call-site argument must be a term", name);
    return BOX_OK;
}

/*
 * call ::= ident "(" [ call_arg { "," call_arg } ] ")": a `def temporal`
 * macro expanded where it stands — a condition into *cond, or with agg
 * non-NULL an aggregation into agg. The arguments are read (their own
 * calls expanded) and checked against the body's uses, then the body is
 * read again from its definition with them bound.
 */
static box_err
tl_call(tl_parser *p, pdp_tterm *agg, const pdp_tl **cond)
{
    const pdp_token name = *TOK(p);
    pdp_pos pos = tpos(&name);
    if (p->sc != NULL)
        return perr(p, pos, "in `def temporal` body: macro-in-macro is not "
                    "supported");
    const pdp_macro *m = pdp_macros_find(p->mt, name.t_text, name.t_len);
    if (m == NULL)
        return perr(p, pos, "unknown macro `%.*s` (no declared `def "
                    "temporal`)", (int)name.t_len, name.t_text);
    if (m->m_kind == PDP_MACRO_CEDAR)
        return perr(p, pos, "macro `%s` is a cedar macro and cannot be "
                    "called in a temporal condition position", m->m_name.s);
    if (agg != NULL && m->m_kind != PDP_MACRO_AGG)
        return perr(p, pos, "macro `%s` is a condition macro and cannot be "
                    "used as an aggregate value", m->m_name.s);
    if (agg == NULL && m->m_kind != PDP_MACRO_COND)
        return perr(p, pos, "macro `%s` is an aggregation macro (`count`/"
                    "`sum`) and cannot stand as a condition; compare it, "
                    "e.g. `%s(…) > 0`", m->m_name.s, m->m_name.s);
    size_t site = (size_t)(name.t_text - p->lx->lx_src);
    BOX_TRY(next(p));
    BOX_TRY(expect(p, PDP_TK_LPAREN, "`(` after the macro's name"));
    pdp_marg *args = node(p, (m->m_nparams + 1) * sizeof *args);
    if (args == NULL)
        return BOX_ENOMEM;
    uint32_t n = 0;
    BOX_TRY(deeper(p));
    while (TOK(p)->t_kind != PDP_TK_RPAREN) {
        pdp_marg a = {0};
        BOX_TRY(tl_call_arg(p, &a));
        if (n < m->m_nparams)
            args[n] = a;
        n++;
        if (TOK(p)->t_kind != PDP_TK_COMMA)
            break;
        BOX_TRY(next(p));
    }
    BOX_TRY(expect(p, PDP_TK_RPAREN, "`,` or `)` after a macro argument"));
    if (n != m->m_nparams)
        return perr(p, pos, "macro `%s` expects %u argument(s), got %u",
                    m->m_name.s, (unsigned)m->m_nparams, (unsigned)n);
    for (uint32_t i = 0; i < n; i++)
        BOX_TRY(check_arg(p, m, i, &args[i]));
    pdp_macros_called(p->mt, pos);
    pdp_lex body = m->m_body;
    body.lx_err = p->lx->lx_err;
    body.lx_failed = false;
    pdp_mscope sc = {.ms_def = (pdp_macro *)m, .ms_args = args,
                     .ms_site = site};
    tl_parser sub = {.lx = &body, .a = p->a, .depth = p->depth,
                     .mt = p->mt, .sc = &sc};
    box_err rv = agg != NULL ? tl_agg(&sub, agg) : tl_condition(&sub, cond);
    p->lx->lx_failed = body.lx_failed; // its message stands
    if (agg != NULL)
        agg->tt_pos = pos;
    p->depth--;
    return rv;
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
    if (tok->t_kind == PDP_TK_LPAREN && !at_paren_agg(p)) {
        BOX_TRY(next(p));
        BOX_TRY(deeper(p));
        BOX_TRY(tl_condition(p, out));
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
        BOX_TRY(next(p));
        BOX_TRY(tl_within(p, &t->tl_window));
        BOX_TRY(deeper(p));
        BOX_TRY(tl_conjunct(p, true, &t->tl_l));
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
        BOX_TRY(next(p));
        BOX_TRY(tl_binder(p, &t->tl_binder));
        BOX_TRY(expect(p, PDP_TK_DOT, "`.` after the `exists` binder"));
        BOX_TRY(deeper(p));
        BOX_TRY(tl_condition(p, &t->tl_l)); // the body extends maximally right
        p->depth--;
        *out = t;
        return BOX_OK;
    }
    if (is_word(tok, "tp") && n != NULL && n->t_kind == PDP_TK_LPAREN)
        return tl_tp(p, out);
    if (at_call(p)) {
        const pdp_macro *m = pdp_macros_find(p->mt, tok->t_text, tok->t_len);
        // An aggregation macro is a comparison's operand (the PEG tries
        // `comparison` first).
        if (p->sc != NULL || m == NULL || m->m_kind != PDP_MACRO_AGG ||
            !is_cmp(after_call(p)))
            return tl_call(p, NULL, out);
    } else if (tok->t_kind == PDP_TK_QUESTION ||
               tok->t_kind == PDP_TK_DOLLAR) {
        if (!at_sigil_comparison(p))
            return tl_param_condition(p, out);
    } else if (at_entity(p)) {
        // An entity path followed by `::kind` is a predicate; otherwise it
        // is the left operand of a comparison.
        pdp_lex save = *p->lx;
        const pdp_value *ignored = NULL;
        BOX_TRY(tl_entity(p, &ignored));
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
        BOX_TRY(next(p));
        BOX_TRY(deeper(p));
    }
    const pdp_tl *c = NULL;
    BOX_TRY(tl_conjunct(p, false, &c));
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
        BOX_TRY(next(p));
        BOX_TRY(tl_within(p, &t->tl_window));
        BOX_TRY(deeper(p));
        BOX_TRY(tl_conjunct(p, true, &t->tl_r));
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
    BOX_TRY(tl_conjunct_or_since(p, &l));
    while (TOK(p)->t_kind == PDP_TK_AND) {
        pdp_tl *t = node(p, sizeof *t);
        if (t == NULL)
            return BOX_ENOMEM;
        t->tl_kind = PDP_TL_AND;
        t->tl_pos = l->tl_pos;
        t->tl_l = l;
        BOX_TRY(next(p));
        BOX_TRY(tl_conjunct_or_since(p, &t->tl_r));
        l = t;
    }
    if (TOK(p)->t_kind == PDP_TK_OR)
        return perr(p, tpos(TOK(p)), "`||` is not part of the temporal "
                    "language; write two rules, or `!(!A && !B)`");
    *out = l;
    return BOX_OK;
}

box_err
pdp_tl_parse(pdp_lex *lx, box_arena *a, pdp_macros *mt,
             const pdp_tl **out)
{
    tl_parser p = {.lx = lx, .a = a, .mt = mt};
    return tl_condition(&p, out);
}

/* temporal_macro_body_entry ::= ( agg_expr | condition ): a body that
 * starts with `count`/`sum` is an aggregation macro. */
box_err
pdp_tl_parse_macro_body(pdp_lex *lx, box_arena *a, pdp_mscope *sc, bool *agg)
{
    tl_parser p = {.lx = lx, .a = a, .sc = sc};
    *agg = is_word(TOK(&p), "count") || is_word(TOK(&p), "sum");
    if (*agg) {
        pdp_tterm *t = node(&p, sizeof *t);
        return t != NULL ? tl_agg(&p, t) : BOX_ENOMEM;
    }
    const pdp_tl *c = NULL;
    return tl_condition(&p, &c);
}
