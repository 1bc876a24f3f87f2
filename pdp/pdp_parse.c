/* SPDX-License-Identifier: Apache-2.0 */
/* Parser: one function per grammar rule (rule in the comment above it). */
#include "pdp_parse.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pdp_ext.h"
#include "pdp_int.h"
#include "pdp_lex.h"
#include "pdp_macro.h"
#include "pdp_tl.h"
#include "pdp_tl_check.h"

/*
 * The parser owns nothing but its arena allocations; it stops at the
 * first error (recorded by the lexer's error function so that lexical and
 * syntax errors share one format). It never recurses more than
 * PDP_PARSE_MAX_DEPTH nested expressions deep.
 */
typedef struct pdp_parser {
    pdp_lex ps_lx;
    box_arena *ps_arena;
    unsigned ps_level;
    pdp_macros *ps_macros;       // the definitions calls expand from
    pdp_mscope *ps_scope;        // inside a `def cedar` body, else NULL
} pdp_parser;

#define TOK(p) (&(p)->ps_lx.lx_tok)

static box_err parse_expr(pdp_parser *p, const pdp_expr **out);
static box_err subexpr(pdp_parser *p, unsigned limit, const pdp_expr **out);
static box_err parse_args(pdp_parser *p, pdp_expr *e,
                          const pdp_expr *const **args, uint32_t *n);

/* ---- errors ---- */

static pdp_pos
tpos(const pdp_token *t)
{
    pdp_pos pos = {t->t_line, t->t_col};
    return pos;
}

static box_err
verr(pdp_parser *p, box_err code, pdp_pos pos, const char *fmt, va_list ap)
{
    char msg[512];
    vsnprintf(msg, sizeof(msg), fmt, ap);
    return pdp_lex_error(&p->ps_lx, code, pos.line, pos.col, "%s", msg);
}

static box_err __attribute__((format(printf, 3, 4)))
perr(pdp_parser *p, pdp_pos pos, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    box_err rv = verr(p, BOX_EPARSE, pos, fmt, ap);
    va_end(ap);
    return rv;
}

/* A construct this build does not enable, refusing to load
 * (BOX_ENOTSUP). */
static box_err __attribute__((format(printf, 3, 4)))
unsup(pdp_parser *p, pdp_pos pos, const char *fmt, ...)
{
    char what[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);
    return pdp_lex_error(&p->ps_lx, BOX_ENOTSUP, pos.line, pos.col, "%s",
                         what);
}

/* A short display of a token for "found …". */
static const char *
show(const pdp_token *t, char buf[80])
{
    if (t->t_kind == PDP_TK_EOF)
        return "end of file";
    if (t->t_len > 60)
        snprintf(buf, 80, "`%.50s…`", t->t_text);
    else
        snprintf(buf, 80, "`%.*s`", (int)t->t_len, t->t_text);
    return buf;
}

static box_err
expected(pdp_parser *p, const char *what)
{
    char b[80];
    return perr(p, tpos(TOK(p)), "expected %s, found %s", what,
                show(TOK(p), b));
}

static box_err
next(pdp_parser *p)
{
    return pdp_lex_next(&p->ps_lx);
}

static bool
is_ident(const pdp_token *t, const char *s)
{
    return t->t_kind == PDP_TK_IDENT && strlen(s) == t->t_len &&
           memcmp(t->t_text, s, t->t_len) == 0;
}

/* Consumes a `kind` token; with open != NULL the message says which
 * bracket it closes (Lua: "expected X (to close Y at line N)"). */
static box_err
expect_close(pdp_parser *p, pdp_tk kind, const char *open, uint32_t line)
{
    if (TOK(p)->t_kind == kind)
        return next(p);
    char b[80];
    if (open != NULL)
        return perr(p, tpos(TOK(p)), "expected %s (to close %s at line %u), "
                    "found %s", pdp_tk_name(kind), open, line,
                    show(TOK(p), b));
    return perr(p, tpos(TOK(p)), "expected %s, found %s", pdp_tk_name(kind),
                show(TOK(p), b));
}

static bool
is_reserved(pdp_tk k)
{
    return k >= PDP_TK_TRUE && k <= PDP_TK_CEDAR;
}

static box_err
reserved_err(pdp_parser *p, const pdp_token *t)
{
    return perr(p, tpos(t), "this identifier is reserved and cannot be used: "
                "%.*s", (int)t->t_len, t->t_text);
}

/* ---- arena helpers ---- */

/* Appends elem (elsize bytes) to an arena array, doubling as needed. */
static box_err
vec_push(box_arena *a, void **arr, uint32_t *n, uint32_t *cap, size_t elsize,
         const void *elem)
{
    if (*n == *cap) {
        if (*cap >= (1u << 24))
            return BOX_ETOOBIG;
        uint32_t nc = *cap ? *cap * 2 : 4;
        void *na = box_arena_alloc(a, (size_t)nc * elsize);
        if (na == NULL)
            return BOX_ENOMEM;
        if (*n)
            memcpy(na, *arr, (size_t)*n * elsize);
        *arr = na;
        *cap = nc;
    }
    memcpy((char *)*arr + (size_t)*n * elsize, elem, elsize);
    (*n)++;
    return BOX_OK;
}

static box_err
new_node(pdp_parser *p, pdp_expr_kind k, pdp_pos pos, pdp_expr **out)
{
    pdp_expr *e = box_arena_zalloc(p->ps_arena, sizeof(*e));
    if (e == NULL)
        return BOX_ENOMEM;
    e->x_kind = k;
    e->x_pos = pos;
    e->x_oppos = pos;
    e->x_depth = 1;
    *out = e;
    return BOX_OK;
}

/* Records a child's depth in its parent and enforces the depth cap. */
static box_err
add_depth(pdp_parser *p, pdp_expr *parent, const pdp_expr *child)
{
    if (child->x_depth + 1 > parent->x_depth)
        parent->x_depth = child->x_depth + 1;
    if (parent->x_depth > PDP_PARSE_MAX_DEPTH)
        return perr(p, parent->x_pos, "expression nests too deeply (the "
                    "limit is %d levels)", PDP_PARSE_MAX_DEPTH);
    return BOX_OK;
}

static box_err
lit_node(pdp_parser *p, pdp_pos pos, const pdp_value *v, const pdp_expr **out)
{
    pdp_expr *e = NULL;
    BOX_TRY(new_node(p, PDP_X_LIT, pos, &e));
    e->x_const = v;
    *out = e;
    return BOX_OK;
}

static box_err
decode_str(pdp_parser *p, const pdp_token *t, pdp_str *out)
{
    char *s;
    size_t n;
    BOX_TRY(pdp_lex_string(&p->ps_lx, t, p->ps_arena, false, &s, &n, NULL));
    out->s = s;
    out->len = n;
    return BOX_OK;
}

/* Parses digits as a magnitude; *big set when it is above INT64_MAX.
 * Anything above 2^63 is out of range whatever the sign. */
static box_err
int_magnitude(pdp_parser *p, const pdp_token *t, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < t->t_len; i++) {
        uint64_t d = (uint64_t)(t->t_text[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            goto range;
        v = v * 10 + d;
    }
    if (v > (uint64_t)INT64_MAX + 1)
        goto range;
    *out = v;
    return BOX_OK;
range:
    return perr(p, tpos(t), "integer literal `%.*s` is out of range",
                (int)t->t_len, t->t_text);
}

/* ---- primary expressions ---- */

/* call -> NAME '(' [ expr { ',' expr } ] ')', NAME an extension
 * constructor. A constructor of a string literal is folded here when the
 * literal is valid; a bad literal stays a call, for the validator to
 * refuse (§6.1) and the evaluator to fail on. */
static box_err
parse_call(pdp_parser *p, pdp_method m, pdp_pos pos, const pdp_expr **out)
{
    pdp_expr *e = NULL;
    BOX_TRY(new_node(p, PDP_X_CALL, pos, &e));
    const pdp_expr *const *args = NULL;
    uint32_t n = 0;
    BOX_TRY(parse_args(p, e, &args, &n));
    const pdp_ext_fn *f = pdp_ext_fn_of(m);
    if (n != f->xf_arity)
        return perr(p, pos, "wrong number of arguments provided to extension "
                    "function `%s`: expected %u, got %u", f->xf_name,
                    (unsigned)f->xf_arity, n);
    e->u.call.m = m;
    e->u.call.args = args;
    e->u.call.n = n;
    const pdp_value *arg = args[0]->x_const;
    if (args[0]->x_kind == PDP_X_LIT && arg->v_kind == PDP_VAL_STRING) {
        char msg[PDP_EXT_MSG_MAX + 128];
        const pdp_value *v = NULL;
        box_err rv = pdp_ext_construct(m, arg->u.str.s, arg->u.str.len,
                                       p->ps_arena, &v, msg, sizeof(msg));
        if (rv == BOX_OK)
            e->x_const = v;
        else if (rv != BOX_EINVAL)
            return rv;
    }
    *out = e;
    return BOX_OK;
}

/* A `def cedar` call (its name is the current token's predecessor, the
 * current token its `(`): the arguments, then the body read again from
 * the definition with them bound (dogwood-spec §2.6). */
static box_err
expand_cedar(pdp_parser *p, const pdp_token *name, pdp_pos pos,
             const pdp_expr **out)
{
    const pdp_macro *m = pdp_macros_find(p->ps_macros, name->t_text,
                                         name->t_len);
    if (m == NULL)
        return perr(p, pos, "unknown function or macro `%.*s` (not a Cedar "
                    "built-in and not a declared macro)", (int)name->t_len,
                    name->t_text);
    if (m->m_kind != PDP_MACRO_CEDAR)
        return perr(p, pos, "macro `%s` is a temporal macro and cannot be "
                    "called in a cedar expression position", m->m_name.s);
    pdp_expr *holder = NULL; // counts the arguments' depth
    BOX_TRY(new_node(p, PDP_X_CALL, pos, &holder));
    const pdp_expr *const *args = NULL;
    uint32_t n = 0;
    BOX_TRY(parse_args(p, holder, &args, &n));
    if (n != m->m_nparams)
        return perr(p, pos, "macro `%s` expects %u argument(s), got %u",
                    m->m_name.s, (unsigned)m->m_nparams, (unsigned)n);
    pdp_marg *bound = box_arena_zalloc(p->ps_arena, (n + 1) * sizeof *bound);
    if (bound == NULL)
        return BOX_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        bound[i] = (pdp_marg){.ma_kind = PDP_MARG_EXPR, .ma_expr = args[i],
                              .ma_pos = args[i]->x_pos};
    pdp_macros_called(p->ps_macros, pos);
    pdp_mscope sc = {.ms_def = (pdp_macro *)m, .ms_args = bound};
    pdp_parser sub = *p;
    sub.ps_lx = m->m_body;
    sub.ps_lx.lx_err = p->ps_lx.lx_err;
    sub.ps_lx.lx_failed = false;
    sub.ps_scope = &sc;
    box_err rv = parse_expr(&sub, out);
    p->ps_lx.lx_failed = sub.ps_lx.lx_failed; // its message stands
    return rv;
}

/* entity -> path '::' STR ; call -> path '(' … ; var -> IDENT */
static box_err
parse_name(pdp_parser *p, const pdp_expr **out)
{
    pdp_token first = *TOK(p);
    pdp_pos pos = tpos(&first);
    box_buf path;
    box_buf_init(&path, 4096);
    box_err rv = box_buf_append(&path, first.t_text, first.t_len);
    if (rv != BOX_OK)
        goto out;
    unsigned nseg = 1;
    if ((rv = next(p)) != BOX_OK)
        goto out;
    while (TOK(p)->t_kind == PDP_TK_DCOLON) {
        if ((rv = next(p)) != BOX_OK)
            goto out;
        const pdp_token *t = TOK(p);
        if (t->t_kind == PDP_TK_STR) {
            pdp_str id;
            pdp_value *v;
            pdp_token st = *t;
            if ((rv = decode_str(p, &st, &id)) != BOX_OK)
                goto out;
            rv = pdp_value_entity(p->ps_arena, path.b_data, path.b_len, id.s,
                                  id.len, &v);
            if (rv == BOX_EINVAL)
                rv = perr(p, tpos(&st), "invalid entity reference");
            if (rv != BOX_OK || (rv = next(p)) != BOX_OK)
                goto out;
            rv = lit_node(p, pos, v, out);
            goto out;
        }
        if (t->t_kind == PDP_TK_LBRACE) {
            rv = perr(p, tpos(t), "entity initializer syntax `Type::{ … }` is "
                      "not supported");
            goto out;
        }
        if (is_reserved(t->t_kind)) {
            rv = reserved_err(p, t);
            goto out;
        }
        if (t->t_kind != PDP_TK_IDENT) {
            rv = expected(p, "an identifier or an entity id string after `::`");
            goto out;
        }
        if ((rv = box_buf_puts(&path, "::")) != BOX_OK ||
            (rv = box_buf_append(&path, t->t_text, t->t_len)) != BOX_OK ||
            (rv = next(p)) != BOX_OK)
            goto out;
        nseg++;
    }
    if (TOK(p)->t_kind == PDP_TK_LPAREN) {
        pdp_method m;
        if (p->ps_scope != NULL &&
            (nseg > 1 || !pdp_ext_lookup(path.b_data, path.b_len,
                                         PDP_XS_FUNCTION, &m)))
            rv = perr(p, pos, "in `def cedar` body: macro-in-macro is not "
                      "supported");
        else if (nseg > 1)
            rv = unsup(p, pos, PDP_PARSE_NO_PROVIDERS " (`%s(…)`)",
                       path.b_data);
        else if (pdp_ext_lookup(path.b_data, path.b_len, PDP_XS_FUNCTION, &m))
            rv = parse_call(p, m, pos, out);
        else
            rv = expand_cedar(p, &first, pos, out);
        goto out;
    }
    if (nseg > 1) {
        rv = perr(p, pos, "`%s` is not a valid expression; an entity is "
                  "written `%s::\"id\"`", path.b_data, path.b_data);
        goto out;
    }
    for (int v = PDP_VAR_PRINCIPAL; v <= PDP_VAR_CONTEXT; v++) {
        if (strcmp(path.b_data, pdp_var_name((pdp_var)v)) == 0) {
            pdp_expr *e = NULL;
            if ((rv = new_node(p, PDP_X_VAR, pos, &e)) != BOX_OK)
                goto out;
            e->u.var = (pdp_var)v;
            *out = e;
            goto out;
        }
    }
    rv = perr(p, pos, "`%s` is not a valid variable; the valid variables are "
              "`principal`, `action`, `resource`, and `context`", path.b_data);
out:
    box_buf_reset(&path);
    return rv;
}

/* set -> '[' [ expr { ',' expr } [ ',' ] ] ']' */
static box_err
parse_set(pdp_parser *p, const pdp_expr **out)
{
    pdp_token open = *TOK(p);
    pdp_expr *e = NULL;
    BOX_TRY(new_node(p, PDP_X_SET, tpos(&open), &e));
    BOX_TRY(next(p));
    const pdp_expr **items = NULL;
    uint32_t n = 0, cap = 0;
    bool all_const = true;
    while (TOK(p)->t_kind != PDP_TK_RBRACKET) {
        const pdp_expr *x = NULL;
        BOX_TRY(parse_expr(p, &x));
        BOX_TRY(add_depth(p, e, x));
        BOX_TRY(
            vec_push(p->ps_arena, (void **)&items, &n, &cap, sizeof(x), &x));
        all_const = all_const && x->x_const != NULL;
        if (TOK(p)->t_kind != PDP_TK_COMMA)
            break;
        BOX_TRY(next(p));
    }
    BOX_TRY(expect_close(p, PDP_TK_RBRACKET, "`[`", open.t_line));
    e->u.list.items = items;
    e->u.list.n = n;
    if (all_const) {
        pdp_value *s = pdp_value_set_new(p->ps_arena);
        if (s == NULL)
            return BOX_ENOMEM;
        for (uint32_t i = 0; i < n; i++)
            BOX_TRY(pdp_value_set_add(p->ps_arena, s, items[i]->x_const));
        e->x_const = s;
    }
    *out = e;
    return BOX_OK;
}

/* record -> '{' [ rec_init { ',' rec_init } [ ',' ] ] '}'
 * rec_init -> ( IDENT | STR | 'if' ) ':' expr */
static box_err
parse_record(pdp_parser *p, const pdp_expr **out)
{
    pdp_token open = *TOK(p);
    pdp_expr *e = NULL;
    BOX_TRY(new_node(p, PDP_X_RECORD, tpos(&open), &e));
    BOX_TRY(next(p));
    pdp_str *keys = NULL;
    const pdp_expr **vals = NULL;
    uint32_t n = 0, kcap = 0, vcap = 0, n2 = 0;
    bool all_const = true;
    while (TOK(p)->t_kind != PDP_TK_RBRACE) {
        pdp_token kt = *TOK(p);
        pdp_str key;
        if (kt.t_kind == PDP_TK_IDENT || kt.t_kind == PDP_TK_IF) {
            char *k = box_arena_strndup(p->ps_arena, kt.t_text, kt.t_len);
            if (k == NULL)
                return BOX_ENOMEM;
            key.s = k;
            key.len = kt.t_len;
        } else if (kt.t_kind == PDP_TK_STR) {
            BOX_TRY(decode_str(p, &kt, &key));
        } else if (is_reserved(kt.t_kind)) {
            return reserved_err(p, &kt);
        } else {
            return expected(p, "a record key (identifier or string)");
        }
        for (uint32_t i = 0; i < n; i++) {
            if (keys[i].len == key.len && memcmp(keys[i].s, key.s, key.len) == 0)
                return perr(p, tpos(&kt), "duplicate key `%s` in record "
                            "literal", key.s);
        }
        BOX_TRY(next(p));
        if (TOK(p)->t_kind != PDP_TK_COLON)
            return expected(p, "`:` after a record key");
        BOX_TRY(next(p));
        const pdp_expr *x = NULL;
        BOX_TRY(parse_expr(p, &x));
        BOX_TRY(add_depth(p, e, x));
        BOX_TRY(vec_push(p->ps_arena, (void **)&keys, &n, &kcap, sizeof(key),
                         &key));
        BOX_TRY(
            vec_push(p->ps_arena, (void **)&vals, &n2, &vcap, sizeof(x), &x));
        all_const = all_const && x->x_const != NULL;
        if (TOK(p)->t_kind != PDP_TK_COMMA)
            break;
        BOX_TRY(next(p));
    }
    BOX_TRY(expect_close(p, PDP_TK_RBRACE, "`{`", open.t_line));
    e->u.rec.keys = keys;
    e->u.rec.vals = vals;
    e->u.rec.n = n;
    if (all_const) {
        pdp_value *r = pdp_value_record_new(p->ps_arena);
        if (r == NULL)
            return BOX_ENOMEM;
        for (uint32_t i = 0; i < n; i++)
            BOX_TRY(pdp_value_record_put(p->ps_arena, r, keys[i].s, keys[i].len,
                                         vals[i]->x_const));
        e->x_const = r;
    }
    *out = e;
    return BOX_OK;
}

/* temporal_block -> 'temporal' '{' temporal_condition '}': a Bool leaf
 * (dogwood-spec §2.5); the condition's own grammar is pdp_tl_parse's. */
static box_err
parse_temporal(pdp_parser *p, const pdp_expr **out)
{
    pdp_token word = *TOK(p);
    BOX_TRY(next(p));
    pdp_token open = *TOK(p);
    if (open.t_kind != PDP_TK_LBRACE)
        return expected(p, "`{` to open the temporal condition");
    BOX_TRY(next(p));
    pdp_expr *e = NULL;
    BOX_TRY(new_node(p, PDP_X_TEMPORAL, tpos(&word), &e));
    e->x_oppos = tpos(&word);
    const pdp_tl *tl = NULL;
    BOX_TRY(pdp_tl_parse(&p->ps_lx, p->ps_arena, p->ps_macros, &tl));
    size_t nodes = 0;
    unsigned depth = 0;
    pdp_tl_size(tl, PDP_PARSE_MAX_NODES, &nodes, PDP_TL_MAX_DEPTH, &depth);
    if (nodes > PDP_PARSE_MAX_NODES)
        return perr(p, tpos(&word), "this temporal condition is too large "
                    "once its macros are expanded (more than %d nodes)",
                    PDP_PARSE_MAX_NODES);
    if (depth > PDP_TL_MAX_DEPTH)
        return perr(p, tpos(&word), "this temporal condition nests too "
                    "deeply once its macros are expanded (more than %d "
                    "levels)", PDP_TL_MAX_DEPTH);
    box_err rv = pdp_tl_check(tl, p->ps_lx.lx_file, p->ps_lx.lx_err);
    p->ps_lx.lx_failed = rv == BOX_EPARSE; // its message stands
    BOX_TRY(rv);
    e->u.tl = tl;
    *out = e;
    return expect_close(p, PDP_TK_RBRACE, "`{`", open.t_line);
}

/* `?name` in a `def cedar` body: the call's argument, or while the
 * definition is checked a placeholder that is no constant. */
static box_err
macro_param(pdp_parser *p, const pdp_expr **out)
{
    pdp_pos pos = tpos(TOK(p));
    BOX_TRY(next(p));
    const pdp_token *id = TOK(p);
    int i = pdp_macro_param(p->ps_scope->ms_def, id->t_text, id->t_len);
    if (i < 0)
        return perr(p, pos, "in `def cedar` body: `?%.*s` does not name a "
                    "declared parameter", (int)id->t_len, id->t_text);
    BOX_TRY(next(p));
    if (p->ps_scope->ms_args != NULL) {
        *out = p->ps_scope->ms_args[i].ma_expr;
        return BOX_OK;
    }
    p->ps_scope->ms_def->m_uses[i] |= PDP_MUSE_TERM;
    pdp_expr *e = NULL;
    BOX_TRY(new_node(p, PDP_X_VAR, pos, &e));
    e->u.var = PDP_VAR_CONTEXT;
    *out = e;
    return BOX_OK;
}

/* primary -> 'true' | 'false' | INT | STR | entity | var | '(' expr ')'
 *          | set | record | call
 *          | temporal_block
 *          (refused: macro and provider calls path '(' … ')', '?' IDENT) */
static box_err
parse_primary(pdp_parser *p, const pdp_expr **out)
{
    pdp_token t = *TOK(p);
    pdp_pos pos = tpos(&t);
    const pdp_token *ahead;
    switch (t.t_kind) {
    case PDP_TK_TRUE:
    case PDP_TK_FALSE: {
        pdp_value *v = pdp_value_bool(p->ps_arena, t.t_kind == PDP_TK_TRUE);
        if (v == NULL)
            return BOX_ENOMEM;
        BOX_TRY(next(p));
        return lit_node(p, pos, v, out);
    }
    case PDP_TK_INT: {
        uint64_t m = 0;
        BOX_TRY(int_magnitude(p, &t, &m));
        if (m > (uint64_t)INT64_MAX)
            return perr(p, pos, "integer literal `%.*s` is out of range",
                        (int)t.t_len, t.t_text);
        pdp_value *v = pdp_value_long(p->ps_arena, (int64_t)m);
        if (v == NULL)
            return BOX_ENOMEM;
        BOX_TRY(next(p));
        return lit_node(p, pos, v, out);
    }
    case PDP_TK_STR: {
        pdp_str s;
        pdp_value *v;
        BOX_TRY(decode_str(p, &t, &s));
        BOX_TRY(pdp_value_string(p->ps_arena, s.s, s.len, &v));
        BOX_TRY(next(p));
        return lit_node(p, pos, v, out);
    }
    case PDP_TK_LPAREN: {
        BOX_TRY(next(p));
        BOX_TRY(parse_expr(p, out));
        return expect_close(p, PDP_TK_RPAREN, "`(`", t.t_line);
    }
    case PDP_TK_LBRACKET:
        return parse_set(p, out);
    case PDP_TK_LBRACE:
        return parse_record(p, out);
    case PDP_TK_QUESTION:
        BOX_TRY(pdp_lex_peek(&p->ps_lx, &ahead));
        if (p->ps_scope != NULL && ahead->t_kind == PDP_TK_IDENT)
            return macro_param(p, out);
        if (is_ident(ahead, "principal") || is_ident(ahead, "resource"))
            return perr(p, pos, "policy is not static: the template slot "
                        "`?%.*s` is not filled", (int)ahead->t_len,
                        ahead->t_text);
        if (ahead->t_kind == PDP_TK_IDENT)
            return perr(p, pos, "stray macro parameter reference `?%.*s` "
                        "outside a macro body", (int)ahead->t_len,
                        ahead->t_text);
        return expected(p, "an expression");
    case PDP_TK_DOLLAR:
        BOX_TRY(pdp_lex_peek(&p->ps_lx, &ahead));
        if (ahead->t_kind == PDP_TK_IDENT)
            return perr(p, pos, "stray macro binder reference `$%.*s`",
                        (int)ahead->t_len, ahead->t_text);
        return expected(p, "an expression");
    case PDP_TK_IDENT:
        if (is_ident(&t, "temporal")) {
            BOX_TRY(pdp_lex_peek(&p->ps_lx, &ahead));
            if (ahead->t_kind == PDP_TK_LBRACE && p->ps_scope != NULL)
                return perr(p, pos, "in `def cedar` body: a `temporal { … }` "
                            "block cannot be part of a macro; lift the block "
                            "to the call site instead");
            if (ahead->t_kind == PDP_TK_LBRACE)
                return parse_temporal(p, out);
        }
        return parse_name(p, out);
    case PDP_TK_IF:
        return perr(p, pos, "an `if … then … else …` used as an operand must "
                    "be parenthesized");
    default:
        if (is_reserved(t.t_kind))
            return reserved_err(p, &t);
        return expected(p, "an expression");
    }
}

/* ---- member access ---- */

/* args -> '(' [ expr { ',' expr } ] ')' : the arguments of call node e
 * (their depth counts in e's). */
static box_err
parse_args(pdp_parser *p, pdp_expr *e, const pdp_expr *const **args,
           uint32_t *n)
{
    pdp_token open = *TOK(p);
    BOX_TRY(next(p)); // '('
    const pdp_expr **items = NULL;
    uint32_t cnt = 0, cap = 0;
    while (TOK(p)->t_kind != PDP_TK_RPAREN) {
        const pdp_expr *x = NULL;
        BOX_TRY(parse_expr(p, &x));
        BOX_TRY(add_depth(p, e, x));
        BOX_TRY(
            vec_push(p->ps_arena, (void **)&items, &cnt, &cap, sizeof(x), &x));
        if (TOK(p)->t_kind != PDP_TK_COMMA)
            break;
        BOX_TRY(next(p));
    }
    BOX_TRY(expect_close(p, PDP_TK_RPAREN, "`(`", open.t_line));
    *args = items;
    *n = cnt;
    return BOX_OK;
}

/* method_call -> '.' IDENT '(' [ expr { ',' expr } ] ')' */
static box_err
parse_method(pdp_parser *p, const pdp_expr *recv, const pdp_token *name,
             pdp_pos dotpos, const pdp_expr **out)
{
    pdp_method m;
    if (!pdp_ext_lookup(name->t_text, name->t_len, PDP_XS_METHOD, &m))
        return perr(p, tpos(name), "unknown method `%.*s`", (int)name->t_len,
                    name->t_text);
    const pdp_ext_fn *f = pdp_ext_fn_of(m);
    pdp_expr *e = NULL;
    BOX_TRY(new_node(p, PDP_X_METHOD, recv->x_pos, &e));
    e->x_oppos = dotpos;
    BOX_TRY(add_depth(p, e, recv));
    const pdp_expr *const *args = NULL;
    uint32_t n = 0;
    BOX_TRY(parse_args(p, e, &args, &n));
    if (n != f->xf_arity) {
        if (f->xf_arity == 0)
            return perr(p, tpos(name), "`%s` takes no arguments, got %u",
                        f->xf_name, n);
        return perr(p, tpos(name), "`%s` takes exactly one argument, got %u",
                    f->xf_name, n);
    }
    e->u.call.m = m;
    e->u.call.recv = recv;
    e->u.call.args = args;
    e->u.call.n = n;
    *out = e;
    return BOX_OK;
}

/* member -> primary { access }
 * access -> '.' IDENT | '.' IDENT '(' args ')' | '[' STR ']' */
static box_err
parse_member(pdp_parser *p, const pdp_expr **out)
{
    const pdp_expr *e = NULL;
    BOX_TRY(parse_primary(p, &e));
    for (;;) {
        pdp_token t = *TOK(p);
        if (t.t_kind == PDP_TK_DOT) {
            BOX_TRY(next(p));
            pdp_token name = *TOK(p);
            if (is_reserved(name.t_kind))
                return reserved_err(p, &name);
            if (name.t_kind != PDP_TK_IDENT)
                return expected(p, "an attribute or method name after `.`");
            BOX_TRY(next(p));
            if (TOK(p)->t_kind == PDP_TK_LPAREN) {
                BOX_TRY(parse_method(p, e, &name, tpos(&t), &e));
                continue;
            }
            pdp_expr *a = NULL;
            BOX_TRY(new_node(p, PDP_X_ATTR, e->x_pos, &a));
            a->x_oppos = tpos(&t);
            char *s = box_arena_strndup(p->ps_arena, name.t_text, name.t_len);
            if (s == NULL)
                return BOX_ENOMEM;
            a->u.attr.obj = e;
            a->u.attr.name.s = s;
            a->u.attr.name.len = name.t_len;
            BOX_TRY(add_depth(p, a, e));
            e = a;
        } else if (t.t_kind == PDP_TK_LBRACKET) {
            BOX_TRY(next(p));
            pdp_token key = *TOK(p);
            const pdp_token *ahead;
            BOX_TRY(pdp_lex_peek(&p->ps_lx, &ahead));
            if (key.t_kind != PDP_TK_STR || ahead->t_kind != PDP_TK_RBRACKET)
                return perr(p, tpos(&key), "index access requires a "
                            "string-literal key, e.g. `record[\"field\"]`");
            pdp_expr *a = NULL;
            BOX_TRY(new_node(p, PDP_X_ATTR, e->x_pos, &a));
            a->x_oppos = tpos(&t);
            BOX_TRY(decode_str(p, &key, &a->u.attr.name));
            a->u.attr.obj = e;
            a->u.attr.bracket = true;
            BOX_TRY(add_depth(p, a, e));
            BOX_TRY(next(p));
            BOX_TRY(expect_close(p, PDP_TK_RBRACKET, "`[`", t.t_line));
            e = a;
        } else if (t.t_kind == PDP_TK_LPAREN) {
            return perr(p, tpos(&t), "unexpected call: only extension "
                        "functions and methods can be called");
        } else {
            break;
        }
    }
    *out = e;
    return BOX_OK;
}

/* ---- unary ---- */

static box_err
wrap_unary(pdp_parser *p, pdp_expr_kind k, pdp_pos pos, const pdp_expr *arg,
           const pdp_expr **out)
{
    pdp_expr *e = NULL;
    BOX_TRY(new_node(p, k, pos, &e));
    e->u.un.arg = arg;
    BOX_TRY(add_depth(p, e, arg));
    *out = e;
    return BOX_OK;
}

/* unary -> [ '!'{1..4} | '-'{1..4} ] member */
static box_err
parse_unary(pdp_parser *p, const pdp_expr **out)
{
    pdp_tk op = TOK(p)->t_kind;
    if (op != PDP_TK_NOT && op != PDP_TK_MINUS)
        return parse_member(p, out);
    pdp_pos ops[4];
    unsigned n = 0;
    while (TOK(p)->t_kind == op) {
        if (n == 4)
            return perr(p, tpos(TOK(p)), "too many occurrences of `%s`",
                        op == PDP_TK_NOT ? "!" : "-");
        ops[n++] = tpos(TOK(p));
        BOX_TRY(next(p));
    }
    pdp_tk other = op == PDP_TK_NOT ? PDP_TK_MINUS : PDP_TK_NOT;
    if (TOK(p)->t_kind == other)
        return perr(p, tpos(TOK(p)), "unexpected %s after %s: a run of unary "
                    "operators uses one symbol; use parentheses",
                    pdp_tk_name(other), pdp_tk_name(op));
    const pdp_expr *e = NULL;
    if (op == PDP_TK_MINUS && TOK(p)->t_kind == PDP_TK_INT) {
        /* `-` right before a literal folds into a negative literal, so
         * -9223372036854775808 is i64::MIN (unless an access follows). */
        const pdp_token *ahead;
        BOX_TRY(pdp_lex_peek(&p->ps_lx, &ahead));
        if (ahead->t_kind != PDP_TK_DOT && ahead->t_kind != PDP_TK_LBRACKET) {
            pdp_token t = *TOK(p);
            uint64_t m = 0;
            BOX_TRY(int_magnitude(p, &t, &m));
            pdp_value *v = pdp_value_long(p->ps_arena,
                                          m == (uint64_t)INT64_MAX + 1
                                              ? INT64_MIN
                                              : -(int64_t)m);
            if (v == NULL)
                return BOX_ENOMEM;
            BOX_TRY(next(p));
            BOX_TRY(lit_node(p, ops[n - 1], v, &e));
            n--;
        }
    }
    if (e == NULL)
        BOX_TRY(parse_member(p, &e));
    while (n > 0) {
        n--;
        BOX_TRY(wrap_unary(p, op == PDP_TK_NOT ? PDP_X_NOT : PDP_X_NEG, ops[n],
                           e, &e));
    }
    *out = e;
    return BOX_OK;
}

/* ---- binary operators: Lua's {left, right} priority table ---- */

/* ORDER PDP_BIN */
typedef enum pdp_bin {
    PDP_BIN_OR,
    PDP_BIN_AND,
    PDP_BIN_EQ,
    PDP_BIN_NE,
    PDP_BIN_LT,
    PDP_BIN_LE,
    PDP_BIN_GT,
    PDP_BIN_GE,
    PDP_BIN_IN,
    PDP_BIN_HAS,
    PDP_BIN_LIKE,
    PDP_BIN_IS,
    PDP_BIN_ADD,
    PDP_BIN_SUB,
    PDP_BIN_MUL,
    PDP_BIN_NONE
} pdp_bin;

/* ORDER PDP_BIN: priority when the operator is on the left / right of an
 * operand; equal values make an operator left-associative. Level 3 (the
 * relations) is non-associative: subexpr refuses a second one. */
static const struct {
    uint8_t left;
    uint8_t right;
    pdp_expr_kind kind;
} pdp_priority[] = {
    {1, 1, PDP_X_OR},   {2, 2, PDP_X_AND},   {3, 3, PDP_X_EQ},
    {3, 3, PDP_X_NE},   {3, 3, PDP_X_LT},    {3, 3, PDP_X_LE},
    {3, 3, PDP_X_GT},   {3, 3, PDP_X_GE},    {3, 3, PDP_X_IN},
    {3, 3, PDP_X_HAS},  {3, 3, PDP_X_LIKE},  {3, 3, PDP_X_IS},
    {4, 4, PDP_X_ADD},  {4, 4, PDP_X_SUB},   {5, 5, PDP_X_MUL},
};
#define PDP_REL_PRIORITY 3

static pdp_bin
binop(pdp_tk k)
{
    switch (k) {
    case PDP_TK_OR: return PDP_BIN_OR;
    case PDP_TK_AND: return PDP_BIN_AND;
    case PDP_TK_EQ: return PDP_BIN_EQ;
    case PDP_TK_NE: return PDP_BIN_NE;
    case PDP_TK_LT: return PDP_BIN_LT;
    case PDP_TK_LE: return PDP_BIN_LE;
    case PDP_TK_GT: return PDP_BIN_GT;
    case PDP_TK_GE: return PDP_BIN_GE;
    case PDP_TK_IN: return PDP_BIN_IN;
    case PDP_TK_HAS: return PDP_BIN_HAS;
    case PDP_TK_LIKE: return PDP_BIN_LIKE;
    case PDP_TK_IS: return PDP_BIN_IS;
    case PDP_TK_PLUS: return PDP_BIN_ADD;
    case PDP_TK_MINUS: return PDP_BIN_SUB;
    case PDP_TK_STAR: return PDP_BIN_MUL;
    default: return PDP_BIN_NONE;
    }
}

/* has_rhs -> IDENT { '.' IDENT } | STR | 'if' { '.' IDENT } */
static box_err
parse_has(pdp_parser *p, const pdp_expr *obj, pdp_pos oppos,
          const pdp_expr **out)
{
    pdp_expr *e = NULL;
    BOX_TRY(new_node(p, PDP_X_HAS, obj->x_pos, &e));
    e->x_oppos = oppos;
    BOX_TRY(add_depth(p, e, obj));
    pdp_str *path = NULL;
    uint32_t n = 0, cap = 0;
    pdp_token t = *TOK(p);
    pdp_str s;
    if (t.t_kind == PDP_TK_STR) {
        BOX_TRY(decode_str(p, &t, &s));
        BOX_TRY(vec_push(p->ps_arena, (void **)&path, &n, &cap, sizeof(s), &s));
        BOX_TRY(next(p));
    } else if (t.t_kind == PDP_TK_IDENT || t.t_kind == PDP_TK_IF) {
        for (;;) {
            char *d = box_arena_strndup(p->ps_arena, t.t_text, t.t_len);
            if (d == NULL)
                return BOX_ENOMEM;
            s.s = d;
            s.len = t.t_len;
            BOX_TRY(
                vec_push(p->ps_arena, (void **)&path, &n, &cap, sizeof(s), &s));
            BOX_TRY(next(p));
            if (TOK(p)->t_kind != PDP_TK_DOT)
                break;
            const pdp_token *ahead;
            BOX_TRY(pdp_lex_peek(&p->ps_lx, &ahead));
            if (is_reserved(ahead->t_kind)) {
                pdp_token r = *ahead;
                return reserved_err(p, &r);
            }
            if (ahead->t_kind != PDP_TK_IDENT)
                break;
            BOX_TRY(next(p));
            t = *TOK(p);
        }
    } else if (is_reserved(t.t_kind)) {
        return reserved_err(p, &t);
    } else {
        return expected(p, "an attribute name after `has`");
    }
    e->u.has.obj = obj;
    e->u.has.path = path;
    e->u.has.n = n;
    *out = e;
    return BOX_OK;
}

/* like_rhs -> PATSTR */
static box_err
parse_like(pdp_parser *p, const pdp_expr *obj, pdp_pos oppos,
           const pdp_expr **out)
{
    pdp_token t = *TOK(p);
    if (t.t_kind != PDP_TK_STR) {
        /* Parse the operand only to quote it in the message. */
        size_t start = (size_t)(t.t_text - p->ps_lx.lx_src);
        const pdp_expr *junk = NULL;
        BOX_TRY(subexpr(p, PDP_REL_PRIORITY, &junk));
        size_t end = p->ps_lx.lx_prev_end;
        int n = end > start ? (int)(end - start) : 0;
        return perr(p, tpos(&t), "right hand side of a `like` expression must "
                    "be a pattern literal, but got `%.*s`", n > 200 ? 200 : n,
                    p->ps_lx.lx_src + start);
    }
    pdp_expr *e = NULL;
    BOX_TRY(new_node(p, PDP_X_LIKE, obj->x_pos, &e));
    e->x_oppos = oppos;
    BOX_TRY(add_depth(p, e, obj));
    char *bytes;
    size_t len;
    bool *wild;
    BOX_TRY(
        pdp_lex_string(&p->ps_lx, &t, p->ps_arena, true, &bytes, &len, &wild));
    e->u.like.obj = obj;
    e->u.like.pat.bytes = bytes;
    e->u.like.pat.wild = wild;
    e->u.like.pat.len = len;
    e->u.like.pat.source.s = box_arena_strndup(p->ps_arena, t.t_text, t.t_len);
    e->u.like.pat.source.len = t.t_len;
    if (e->u.like.pat.source.s == NULL)
        return BOX_ENOMEM;
    BOX_TRY(next(p));
    *out = e;
    return BOX_OK;
}

/* type_path -> IDENT { '::' IDENT }, copied into the arena. */
static box_err
parse_type_path(pdp_parser *p, pdp_str *out)
{
    box_buf path;
    box_buf_init(&path, 4096);
    box_err rv = BOX_OK;
    for (;;) {
        const pdp_token *t = TOK(p);
        if (is_reserved(t->t_kind)) {
            rv = reserved_err(p, t);
            goto out;
        }
        if (t->t_kind != PDP_TK_IDENT) {
            rv = expected(p, "an entity type after `is`");
            goto out;
        }
        if ((path.b_len > 0 && (rv = box_buf_puts(&path, "::")) != BOX_OK) ||
            (rv = box_buf_append(&path, t->t_text, t->t_len)) != BOX_OK ||
            (rv = next(p)) != BOX_OK)
            goto out;
        if (TOK(p)->t_kind != PDP_TK_DCOLON)
            break;
        if ((rv = next(p)) != BOX_OK)
            goto out;
    }
    char *d = box_arena_strndup(p->ps_arena, path.b_data, path.b_len);
    if (d == NULL) {
        rv = BOX_ENOMEM;
        goto out;
    }
    out->s = d;
    out->len = path.b_len;
out:
    box_buf_reset(&path);
    return rv;
}

/* is_rhs -> type_path [ 'in' add ] */
static box_err
parse_is(pdp_parser *p, const pdp_expr *obj, pdp_pos oppos,
         const pdp_expr **out)
{
    pdp_expr *e = NULL;
    BOX_TRY(new_node(p, PDP_X_IS, obj->x_pos, &e));
    e->x_oppos = oppos;
    BOX_TRY(add_depth(p, e, obj));
    e->u.is.obj = obj;
    BOX_TRY(parse_type_path(p, &e->u.is.type));
    if (TOK(p)->t_kind == PDP_TK_IN) {
        const pdp_expr *in = NULL;
        BOX_TRY(next(p));
        BOX_TRY(subexpr(p, PDP_REL_PRIORITY, &in));
        BOX_TRY(add_depth(p, e, in));
        e->u.is.in = in;
    }
    *out = e;
    return BOX_OK;
}

/* A flattened chain a && b && … (or ||) at one priority level. */
static box_err
parse_chain(pdp_parser *p, pdp_bin op, const pdp_expr *first,
            const pdp_expr **out)
{
    pdp_expr *e = NULL;
    BOX_TRY(new_node(p, pdp_priority[op].kind, first->x_pos, &e));
    e->x_oppos = tpos(TOK(p));
    const pdp_expr **items = NULL;
    uint32_t n = 0, cap = 0;
    BOX_TRY(vec_push(p->ps_arena, (void **)&items, &n, &cap, sizeof(first),
                     &first));
    BOX_TRY(add_depth(p, e, first));
    while (binop(TOK(p)->t_kind) == op) {
        BOX_TRY(next(p));
        const pdp_expr *x = NULL;
        BOX_TRY(subexpr(p, pdp_priority[op].right, &x));
        BOX_TRY(add_depth(p, e, x));
        BOX_TRY(
            vec_push(p->ps_arena, (void **)&items, &n, &cap, sizeof(x), &x));
    }
    e->u.list.items = items;
    e->u.list.n = n;
    *out = e;
    return BOX_OK;
}

/*
 * Cedar reads the right side of `has`, `like` and `is` as a whole
 * additive expression, then checks that it is an attribute path, a
 * pattern literal or an entity type: `x like "a" + "b"` is refused, never
 * read as `(x like "a") + "b"`. Called on the `+`, `-` or `*` that follows
 * such a right side (which began at byte start, position pos): parses the
 * rest of the additive expression only to quote it, and refuses.
 */
static box_err
rel_rhs_err(pdp_parser *p, pdp_bin op, pdp_pos pos, size_t start)
{
    pdp_bin k;
    while ((k = binop(TOK(p)->t_kind)) == PDP_BIN_ADD || k == PDP_BIN_SUB ||
           k == PDP_BIN_MUL) {
        const pdp_expr *junk = NULL;
        BOX_TRY(next(p));
        BOX_TRY(subexpr(p, PDP_REL_PRIORITY, &junk));
    }
    size_t end = p->ps_lx.lx_prev_end;
    int n = end > start ? (int)(end - start) : 0;
    if (n > 200)
        n = 200;
    const char *src = p->ps_lx.lx_src + start;
    if (op == PDP_BIN_LIKE)
        return perr(p, pos, "right hand side of a `like` expression must be "
                    "a pattern literal, but got `%.*s`", n, src);
    if (op == PDP_BIN_HAS)
        return perr(p, pos, "invalid RHS of a `has` operation: %.*s", n, src);
    return perr(p, pos, "right hand side of an `is` expression must be an "
                "entity type, but got `%.*s`", n, src);
}

/*
 * or   -> and { '||' and }       and -> rel { '&&' rel }
 * rel  -> add [ rel_op add ] | add 'has' has_rhs | add 'like' PATSTR
 *       | add 'is' is_rhs
 * add  -> mult { ('+'|'-') mult }  mult -> unary { '*' unary }
 * subexpr parses operators whose left priority is above limit.
 */
static box_err
subexpr(pdp_parser *p, unsigned limit, const pdp_expr **out)
{
    const pdp_expr *e = NULL;
    BOX_TRY(parse_unary(p, &e));
    bool prev_rel = false;
    for (;;) {
        pdp_token t = *TOK(p);
        if (t.t_kind == PDP_TK_ASSIGN)
            return perr(p, tpos(&t), "`=` is not a valid operator in this "
                        "scope; did you mean `==`?");
        if (t.t_kind == PDP_TK_SLASH || t.t_kind == PDP_TK_PERCENT)
            return perr(p, tpos(&t), "`%.*s` is not a supported operator",
                        (int)t.t_len, t.t_text);
        pdp_bin op = binop(t.t_kind);
        if (op == PDP_BIN_NONE || pdp_priority[op].left <= limit)
            break;
        bool rel = pdp_priority[op].left == PDP_REL_PRIORITY;
        if (rel && prev_rel)
            return perr(p, tpos(&t), "multiple relational operators (>, ==, "
                        "in, etc.) must be used with parentheses to make "
                        "ordering explicit");
        if (op == PDP_BIN_AND || op == PDP_BIN_OR) {
            BOX_TRY(parse_chain(p, op, e, &e));
        } else if (op == PDP_BIN_IS || op == PDP_BIN_HAS ||
                   op == PDP_BIN_LIKE) {
            BOX_TRY(next(p));
            pdp_pos rpos = tpos(TOK(p));
            size_t rstart = (size_t)(TOK(p)->t_text - p->ps_lx.lx_src);
            if (op == PDP_BIN_IS)
                BOX_TRY(parse_is(p, e, tpos(&t), &e));
            else if (op == PDP_BIN_HAS)
                BOX_TRY(parse_has(p, e, tpos(&t), &e));
            else
                BOX_TRY(parse_like(p, e, tpos(&t), &e));
            pdp_bin k = binop(TOK(p)->t_kind);
            if (k == PDP_BIN_ADD || k == PDP_BIN_SUB || k == PDP_BIN_MUL)
                return rel_rhs_err(p, op, rpos, rstart);
        } else {
            BOX_TRY(next(p));
            const pdp_expr *r = NULL;
            BOX_TRY(subexpr(p, pdp_priority[op].right, &r));
            pdp_expr *b = NULL;
            BOX_TRY(new_node(p, pdp_priority[op].kind, e->x_pos, &b));
            b->x_oppos = tpos(&t);
            b->u.bin.l = e;
            b->u.bin.r = r;
            BOX_TRY(add_depth(p, b, e));
            BOX_TRY(add_depth(p, b, r));
            e = b;
        }
        prev_rel = rel;
    }
    *out = e;
    return BOX_OK;
}

/* expr -> 'if' expr 'then' expr 'else' expr | or */
static box_err
parse_expr(pdp_parser *p, const pdp_expr **out)
{
    if (++p->ps_level > PDP_PARSE_MAX_DEPTH)
        return perr(p, tpos(TOK(p)), "expression nests too deeply (the limit "
                    "is %d levels)", PDP_PARSE_MAX_DEPTH);
    box_err rv;
    if (TOK(p)->t_kind != PDP_TK_IF) {
        rv = subexpr(p, 0, out);
        p->ps_level--;
        return rv;
    }
    pdp_token ift = *TOK(p);
    pdp_expr *e = NULL;
    const pdp_expr *c = NULL, *th = NULL, *el = NULL;
    BOX_TRY(new_node(p, PDP_X_IF, tpos(&ift), &e));
    BOX_TRY(next(p));
    BOX_TRY(parse_expr(p, &c));
    if (TOK(p)->t_kind != PDP_TK_THEN) {
        char b[80];
        return perr(p, tpos(TOK(p)), "expected `then` (for `if` at line %u), "
                    "found %s", ift.t_line, show(TOK(p), b));
    }
    BOX_TRY(next(p));
    BOX_TRY(parse_expr(p, &th));
    if (TOK(p)->t_kind != PDP_TK_ELSE) {
        char b[80];
        return perr(p, tpos(TOK(p)), "expected `else` (for `if` at line %u), "
                    "found %s", ift.t_line, show(TOK(p), b));
    }
    BOX_TRY(next(p));
    BOX_TRY(parse_expr(p, &el));
    e->u.cond.c = c;
    e->u.cond.t = th;
    e->u.cond.e = el;
    BOX_TRY(add_depth(p, e, c));
    BOX_TRY(add_depth(p, e, th));
    BOX_TRY(add_depth(p, e, el));
    p->ps_level--;
    *out = e;
    return BOX_OK;
}

/* ---- policies ---- */

static bool
is_action_entity(const pdp_expr *x)
{
    if (x->x_kind != PDP_X_LIT || x->x_const->v_kind != PDP_VAL_ENTITY)
        return false;
    size_t n = x->x_const->u.ent.tlen;
    const char *t = x->x_const->u.ent.type;
    return (n == 6 && memcmp(t, "Action", 6) == 0) ||
           (n > 8 && memcmp(t + n - 8, "::Action", 8) == 0);
}

/* Turns the operand of a scope constraint into entity values. */
static box_err
scope_operand(pdp_parser *p, pdp_var var, pdp_tk op, pdp_scope *sc,
              const pdp_expr *x)
{
    const pdp_value **ents = NULL;
    if (var != PDP_VAR_ACTION) {
        if (x->x_kind != PDP_X_LIT || x->x_const->v_kind != PDP_VAL_ENTITY)
            return perr(p, x->x_pos, "expected an entity reference "
                        "(`Ns::Type::\"id\"`) or a template slot (`?%s`)",
                        pdp_var_name(var));
    } else if (op == PDP_TK_IN && x->x_kind == PDP_X_SET) {
        ents = box_arena_alloc(p->ps_arena, (x->u.list.n + 1) * sizeof(*ents));
        if (ents == NULL)
            return BOX_ENOMEM;
        for (uint32_t i = 0; i < x->u.list.n; i++) {
            if (!is_action_entity(x->u.list.items[i]))
                return perr(p, x->u.list.items[i]->x_pos, "action scope "
                            "expects an action reference "
                            "(`Ns::Action::\"id\"`)");
            ents[i] = x->u.list.items[i]->x_const;
        }
        sc->sc_op = PDP_SCOPE_IN_SET;
        sc->sc_ents = ents;
        sc->sc_n = x->u.list.n;
        return BOX_OK;
    } else if (!is_action_entity(x)) {
        return perr(p, x->x_pos, "action scope expects an action reference "
                    "(`Ns::Action::\"id\"`)");
    }
    ents = box_arena_alloc(p->ps_arena, sizeof(*ents));
    if (ents == NULL)
        return BOX_ENOMEM;
    ents[0] = x->x_const;
    sc->sc_op = op == PDP_TK_EQ ? PDP_SCOPE_EQ : PDP_SCOPE_IN;
    sc->sc_ents = ents;
    sc->sc_n = 1;
    return BOX_OK;
}

/* variable_def -> IDENT [ ':' name ] [ 'is' type_path ] [ ('==' | 'in') expr ]
 *   (after `is`, only `in`) */
static box_err
parse_variable_def(pdp_parser *p, pdp_rule *r, bool seen[3], unsigned count)
{
    pdp_token name = *TOK(p);
    if (name.t_kind != PDP_TK_IDENT && !is_reserved(name.t_kind))
        return expected(p, "`principal`, `action` or `resource`");
    if (count >= 3)
        return perr(p, tpos(&name), "this policy has an extra element in the "
                    "scope: `%.*s`", (int)name.t_len, name.t_text);
    int var = -1;
    for (int v = PDP_VAR_PRINCIPAL; v <= PDP_VAR_RESOURCE; v++) {
        if (is_ident(&name, pdp_var_name((pdp_var)v)))
            var = v;
    }
    if (var < 0)
        return perr(p, tpos(&name), "unexpected scope variable `%.*s`; "
                    "expected `principal`, `action`, or `resource`",
                    (int)name.t_len, name.t_text);
    if (seen[var])
        return perr(p, tpos(&name), "duplicate `%s` in scope",
                    pdp_var_name((pdp_var)var));
    seen[var] = true;
    pdp_scope *sc = var == PDP_VAR_PRINCIPAL ? &r->r_principal
                    : var == PDP_VAR_ACTION  ? &r->r_action
                                             : &r->r_resource;
    sc->sc_op = PDP_SCOPE_ANY;
    sc->sc_pos = tpos(&name);
    BOX_TRY(next(p));
    pdp_token t = *TOK(p);
    if (t.t_kind == PDP_TK_COLON)
        return perr(p, tpos(&t), "the `%s : Type` scope form is not "
                    "supported; use `%s is Type`", pdp_var_name((pdp_var)var),
                    pdp_var_name((pdp_var)var));
    bool is = t.t_kind == PDP_TK_IS;
    if (is) {
        if (var == PDP_VAR_ACTION)
            return perr(p, tpos(&t), "`action is Type` is not valid in the "
                        "action scope");
        BOX_TRY(next(p));
        BOX_TRY(parse_type_path(p, &sc->sc_type));
        sc->sc_op = PDP_SCOPE_IS;
        t = *TOK(p);
    }
    if (t.t_kind == PDP_TK_ASSIGN)
        return perr(p, tpos(&t), "`=` is not a valid operator in this scope; "
                    "did you mean `==`?");
    if (t.t_kind == PDP_TK_EQ || t.t_kind == PDP_TK_NE ||
        t.t_kind == PDP_TK_LT || t.t_kind == PDP_TK_LE ||
        t.t_kind == PDP_TK_GT || t.t_kind == PDP_TK_GE) {
        if (is)
            return perr(p, tpos(&t), "`is Type %.*s …` is not valid; only `is "
                        "Type in …` is allowed", (int)t.t_len, t.t_text);
        if (t.t_kind != PDP_TK_EQ)
            return perr(p, tpos(&t), "scope only allows `==` or `in`, found "
                        "`%.*s`", (int)t.t_len, t.t_text);
    }
    if (t.t_kind != PDP_TK_EQ && t.t_kind != PDP_TK_IN)
        return BOX_OK;
    BOX_TRY(next(p));
    if (TOK(p)->t_kind == PDP_TK_QUESTION) {
        const pdp_token *ahead;
        BOX_TRY(pdp_lex_peek(&p->ps_lx, &ahead));
        if (var != PDP_VAR_ACTION && ahead->t_kind == PDP_TK_IDENT)
            return perr(p, tpos(TOK(p)), "policy is not static: the template "
                        "slot `?%.*s` is not filled", (int)ahead->t_len,
                        ahead->t_text);
    }
    const pdp_expr *x = NULL;
    BOX_TRY(parse_expr(p, &x));
    BOX_TRY(scope_operand(p, (pdp_var)var, t.t_kind, sc, x));
    if (is)
        sc->sc_op = PDP_SCOPE_IS_IN;
    return BOX_OK;
}

/* scope -> '(' [ variable_def { ',' variable_def } [ ',' ] ] ')' */
static box_err
parse_scope(pdp_parser *p, pdp_rule *r)
{
    pdp_token open = *TOK(p);
    if (open.t_kind != PDP_TK_LPAREN)
        return expected(p, "`(` to open the policy scope");
    BOX_TRY(next(p));
    r->r_principal.sc_pos = r->r_action.sc_pos = r->r_resource.sc_pos =
        tpos(&open);
    bool seen[3] = {false, false, false};
    unsigned count = 0;
    while (TOK(p)->t_kind != PDP_TK_RPAREN) {
        BOX_TRY(parse_variable_def(p, r, seen, count));
        count++;
        if (TOK(p)->t_kind != PDP_TK_COMMA)
            break;
        BOX_TRY(next(p));
    }
    return expect_close(p, PDP_TK_RPAREN, "`(`", open.t_line);
}

/* cond -> ('when' | 'unless') [ 'guardrails' ] '{' expr '}'
 *       | ('when' | 'unless') temporal_block
 * (`guardrails` is a tag the parser drops, dogwood-spec §2.5). */
static box_err
parse_cond(pdp_parser *p, pdp_cond *c)
{
    pdp_token kw = *TOK(p);
    if (is_ident(&kw, "when"))
        c->cd_kind = PDP_COND_WHEN;
    else if (is_ident(&kw, "unless"))
        c->cd_kind = PDP_COND_UNLESS;
    else
        return perr(p, tpos(&kw), "condition keyword must be `when` or "
                    "`unless`, found `%.*s`", (int)kw.t_len, kw.t_text);
    c->cd_pos = tpos(&kw);
    BOX_TRY(next(p));
    if (is_ident(TOK(p), "temporal"))
        return parse_temporal(p, &c->cd_body);
    if (is_ident(TOK(p), "guardrails"))
        BOX_TRY(next(p));
    pdp_token open = *TOK(p);
    if (open.t_kind != PDP_TK_LBRACE)
        return expected(p, "`{` to open the condition");
    BOX_TRY(next(p));
    BOX_TRY(parse_expr(p, &c->cd_body));
    return expect_close(p, PDP_TK_RBRACE, "`{`", open.t_line);
}

/* annotation -> '@' IDENT [ '(' STR ')' ] */
static box_err
parse_annotation(pdp_parser *p, pdp_annot *an)
{
    an->an_pos = tpos(TOK(p));
    BOX_TRY(next(p));
    pdp_token key = *TOK(p);
    if (key.t_kind != PDP_TK_IDENT && !is_reserved(key.t_kind))
        return expected(p, "an annotation name after `@`");
    char *k = box_arena_strndup(p->ps_arena, key.t_text, key.t_len);
    if (k == NULL)
        return BOX_ENOMEM;
    an->an_key.s = k;
    an->an_key.len = key.t_len;
    an->an_value.s = "";
    an->an_value.len = 0;
    an->an_has_value = false;
    BOX_TRY(next(p));
    if (TOK(p)->t_kind != PDP_TK_LPAREN)
        return BOX_OK;
    pdp_token open = *TOK(p);
    BOX_TRY(next(p));
    pdp_token v = *TOK(p);
    if (v.t_kind != PDP_TK_STR)
        return expected(p, "a string literal as the annotation value");
    BOX_TRY(decode_str(p, &v, &an->an_value));
    an->an_has_value = true;
    BOX_TRY(next(p));
    return expect_close(p, PDP_TK_RPAREN, "`(`", open.t_line);
}

static bool
count_node(void *arg, const pdp_expr *e)
{
    (void)e;
    size_t *n = arg;
    return ++*n > PDP_PARSE_MAX_NODES;
}

/* A condition's tree stays within PDP_PARSE_MAX_NODES once expanded. */
static box_err
check_size(pdp_parser *p, const pdp_cond *c)
{
    size_t n = 0;
    if (pdp_expr_visit(c->cd_body, count_node, &n) == NULL)
        return BOX_OK;
    return perr(p, c->cd_pos, "this condition is too large once its "
                "macros are expanded (more than %d nodes)",
                PDP_PARSE_MAX_NODES);
}

/* policy -> { annotation } effect '(' scope ')' { cond } ';' */
static box_err
parse_policy(pdp_parser *p, uint32_t index, pdp_rule **out)
{
    pdp_rule *r = box_arena_zalloc(p->ps_arena, sizeof(*r));
    if (r == NULL)
        return BOX_ENOMEM;
    r->r_index = index;
    r->r_pos = tpos(TOK(p));
    pdp_annot *annots = NULL;
    uint32_t na = 0, acap = 0;
    while (TOK(p)->t_kind == PDP_TK_AT) {
        pdp_annot an;
        BOX_TRY(parse_annotation(p, &an));
        for (uint32_t i = 0; i < na; i++) {
            if (annots[i].an_key.len == an.an_key.len &&
                memcmp(annots[i].an_key.s, an.an_key.s, an.an_key.len) == 0)
                return perr(p, an.an_pos, "duplicate annotation: @%s",
                            an.an_key.s);
        }
        BOX_TRY(vec_push(p->ps_arena, (void **)&annots, &na, &acap, sizeof(an),
                         &an));
    }
    r->r_annots = annots;
    r->r_nannots = na;
    pdp_token eff = *TOK(p);
    r->r_effect_pos = tpos(&eff);
    if (is_ident(&eff, "permit"))
        r->r_effect = PDP_PERMIT;
    else if (is_ident(&eff, "forbid"))
        r->r_effect = PDP_FORBID;
    else if (eff.t_kind == PDP_TK_IDENT || is_reserved(eff.t_kind))
        return perr(p, tpos(&eff), "policy effect must be `permit` or "
                    "`forbid`, found `%.*s`", (int)eff.t_len, eff.t_text);
    else
        return expected(p, "`permit` or `forbid`");
    BOX_TRY(next(p));
    BOX_TRY(parse_scope(p, r));
    pdp_cond *conds = NULL;
    uint32_t nc = 0, ccap = 0;
    while (TOK(p)->t_kind != PDP_TK_SEMI) {
        if (TOK(p)->t_kind != PDP_TK_IDENT)
            return expected(p, "`when`, `unless` or `;`");
        pdp_cond c;
        BOX_TRY(parse_cond(p, &c));
        BOX_TRY(check_size(p, &c));
        BOX_TRY(
            vec_push(p->ps_arena, (void **)&conds, &nc, &ccap, sizeof(c), &c));
    }
    BOX_TRY(next(p)); // ';'
    r->r_conds = conds;
    r->r_nconds = nc;
    char id[32];
    int n = snprintf(id, sizeof(id), "policy_%u", index);
    r->r_pid.s = box_arena_strndup(p->ps_arena, id, (size_t)n);
    r->r_pid.len = (size_t)n;
    if (r->r_pid.s == NULL)
        return BOX_ENOMEM;
    *out = r;
    return BOX_OK;
}

/* policy_set -> { def_decl | policy }   (the definitions were collected
 * before: pdp_macros_collect) */
static box_err
parse_policy_set(pdp_parser *p, pdp_ast *ast)
{
    const pdp_rule **rules = NULL;
    uint32_t n = 0, cap = 0;
    while (TOK(p)->t_kind != PDP_TK_EOF) {
        if (pdp_macro_at_def(&p->ps_lx)) {
            if (!ast->as_macros)
                ast->as_macro_pos = tpos(TOK(p));
            ast->as_macros = true;
            BOX_TRY(pdp_macro_skip_item(&p->ps_lx));
            continue;
        }
        if (n >= PDP_PARSE_MAX_RULES)
            return perr(p, tpos(TOK(p)), "too many rules (the limit is %d)",
                        PDP_PARSE_MAX_RULES);
        pdp_rule *r = NULL;
        BOX_TRY(parse_policy(p, n, &r));
        const pdp_rule *cr = r;
        BOX_TRY(
            vec_push(p->ps_arena, (void **)&rules, &n, &cap, sizeof(cr), &cr));
    }
    ast->as_rules = rules;
    ast->as_nrules = n;
    return BOX_OK;
}

box_err
pdp_parse_macro_body(pdp_lex *lx, box_arena *a, pdp_mscope *sc)
{
    pdp_parser p = {.ps_lx = *lx, .ps_arena = a, .ps_scope = sc};
    const pdp_expr *e = NULL;
    box_err rv = parse_expr(&p, &e);
    *lx = p.ps_lx;
    return rv;
}

box_err
pdp_parse_lib(const char *text, size_t len, const char *file,
              const pdp_parse_lib_text *lib, box_arena *a,
              const pdp_ast **out, box_buf *err)
{
    *out = NULL;
    pdp_parser p;
    memset(&p, 0, sizeof(p));
    p.ps_arena = a;
    pdp_macros macros = {0};
    pdp_ast *ast = NULL;
    // The definitions first: a call may come before its `def`.
    box_err rv = lib != NULL
                     ? pdp_macros_collect(lib->pl_text, lib->pl_len,
                                          lib->pl_file, true, a, &macros, err)
                     : pdp_macros_default(a, &macros, err);
    if (rv == BOX_OK)
        rv = pdp_macros_collect(text, len, file, false, a, &macros, err);
    if (rv != BOX_OK) {
        if (err->b_len == 0) {
            box_err mrv = box_buf_printf(err, "%s: %s", file,
                                         box_strerror(rv));
            (void)mrv; // the code alone still refuses
        }
        return rv;
    }
    box_buf_reset(err); // a rule's error met while skipping it: reported below
    p.ps_macros = &macros;
    rv = pdp_lex_init(&p.ps_lx, text, len, file, err);
    if (rv != BOX_OK)
        goto out;
    ast = box_arena_zalloc(a, sizeof(*ast));
    if (ast == NULL) {
        rv = BOX_ENOMEM;
        goto out;
    }
    rv = parse_policy_set(&p, ast);
out:
    if (rv == BOX_OK) {
        if (macros.mt_calls > 0 &&
            (!ast->as_macros || macros.mt_first.line < ast->as_macro_pos.line ||
             (macros.mt_first.line == ast->as_macro_pos.line &&
              macros.mt_first.col < ast->as_macro_pos.col)))
            ast->as_macro_pos = macros.mt_first;
        ast->as_macros |= macros.mt_calls > 0;
        *out = ast;
    } else if (!p.ps_lx.lx_failed) {
        /* Resource failures carry no position of their own. */
        (void)pdp_lex_error(&p.ps_lx, rv, TOK(&p)->t_line, TOK(&p)->t_col,
                            "%s", box_strerror(rv));
    }
    return rv;
}

box_err
pdp_parse(const char *text, size_t len, const char *file, box_arena *a,
          const pdp_ast **out, box_buf *err)
{
    return pdp_parse_lib(text, len, file, NULL, a, out, err);
}
