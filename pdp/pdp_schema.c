/* SPDX-License-Identifier: Apache-2.0 */
/* Cedar human-readable schema parser, name resolution, and lookups. */
#include "pdp_schema.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "pdp_int.h"
#include "pdp_lex.h"

/*
 * Two passes. The parser (one function per rule, the rule in a comment)
 * reads declarations into raw forms whose type references are still
 * names; the resolver then qualifies every name against the namespaces,
 * inlines common types and checks references. Both stop at the first
 * error, formatted by the .dw lexer ("file:line:col: …"), whose tokens
 * and string escapes the schema format shares.
 */

/* The embedded copy of pdp/schema/actions.cedarschema (generated). */
extern const char pdp_schema_actions_text[];
extern const size_t pdp_schema_actions_text_len;

#define RT_NAME 100 // raw type kind: an unresolved name in rt_name

typedef struct raw_type raw_type;

typedef struct raw_attr {
    pdp_str ra_name;
    raw_type *ra_type;
    bool ra_required;
    pdp_pos ra_pos;
} raw_attr;

struct raw_type {
    int rt_kind; // pdp_type_kind or RT_NAME
    raw_type *rt_elem;
    raw_attr *rt_attrs;
    uint32_t rt_nattrs, rt_cap;
    pdp_str rt_name;
    pdp_pos rt_pos;
};

typedef struct raw_name {
    pdp_str rn_path; // as written ("" for a bare action id)
    pdp_str rn_id;   // action refs: the id
    pdp_pos rn_pos;
} raw_name;

typedef struct raw_common {
    pdp_str rc_full;
    pdp_str rc_ns;
    raw_type *rc_type;
    pdp_pos rc_pos;
    const pdp_type *rc_done;
    bool rc_busy;
} raw_common;

typedef struct raw_entity {
    pdp_str re_ns;
    raw_name *re_parents;
    uint32_t re_nparents;
    raw_type *re_attrs; // record or NULL
    raw_type *re_tags;
} raw_entity;

typedef struct raw_action {
    pdp_str ra_ns;
    raw_name *ra_parents;
    uint32_t ra_nparents;
    raw_name *ra_principals;
    uint32_t ra_nprincipals;
    raw_name *ra_resources;
    uint32_t ra_nresources;
    raw_type *ra_context;
} raw_action;

struct pdp_schema {
    box_arena *sc_arena;
    pdp_schema_entity *sc_ents;
    uint32_t sc_nents, sc_entcap;
    pdp_schema_action *sc_acts;
    uint32_t sc_nacts, sc_actcap;
    pdp_str *sc_actypes; // "Ns::Action" of every namespace seen
    uint32_t sc_nactypes, sc_actypecap;
};

typedef struct sparser {
    pdp_lex sp_lx;
    box_arena *sp_a;
    pdp_schema *sp_s;
    pdp_str sp_ns; // current namespace ("" at top level)
    raw_common *sp_commons;
    uint32_t sp_ncommons, sp_comcap;
    raw_entity *sp_rents; // parallel to sp_s->sc_ents
    uint32_t sp_nrents, sp_rentcap;
    raw_action *sp_racts; // parallel to sp_s->sc_acts
    uint32_t sp_nracts, sp_ractcap;
} sparser;

#define TOK(p) (&(p)->sp_lx.lx_tok)

/* ---- small helpers ---- */

static box_err
vec_push(box_arena *a, void **arr, uint32_t *n, uint32_t *cap, size_t elsize,
         const void *elem)
{
    if (*n == *cap) {
        if (*cap >= (1u << 20))
            return BOX_ETOOBIG;
        uint32_t nc = *cap ? *cap * 2 : 8;
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

#define PUSH(p, arr, n, cap, elem)                                             \
    vec_push((p)->sp_a, (void **)&(arr), &(n), &(cap), sizeof(*(arr)), (elem))

static bool
str_eq(pdp_str a, pdp_str b)
{
    return a.len == b.len && memcmp(a.s, b.s, a.len) == 0;
}

static bool
str_is(pdp_str a, const char *s)
{
    return a.len == strlen(s) && memcmp(a.s, s, a.len) == 0;
}

static pdp_pos
tpos(const pdp_token *t)
{
    pdp_pos pos = {t->t_line, t->t_col};
    return pos;
}

static box_err __attribute__((format(printf, 3, 4)))
serr(sparser *p, pdp_pos pos, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return pdp_lex_error(&p->sp_lx, BOX_EPARSE, pos.line, pos.col, "%s", msg);
}

static box_err
expected(sparser *p, const char *what)
{
    const pdp_token *t = TOK(p);
    if (t->t_kind == PDP_TK_EOF)
        return serr(p, tpos(t), "expected %s, found end of file", what);
    return serr(p, tpos(t), "expected %s, found `%.*s`", what,
                (int)(t->t_len > 60 ? 60 : t->t_len), t->t_text);
}

static box_err
next(sparser *p)
{
    return pdp_lex_next(&p->sp_lx);
}

static bool
at_kw(sparser *p, const char *kw)
{
    const pdp_token *t = TOK(p);
    return t->t_kind == PDP_TK_IDENT && t->t_len == strlen(kw) &&
           memcmp(t->t_text, kw, t->t_len) == 0;
}

static box_err
expect(sparser *p, pdp_tk k)
{
    if (TOK(p)->t_kind != k)
        return expected(p, pdp_tk_name(k));
    return next(p);
}

/* A fresh arena copy "a::b" of two parts (either may be empty). */
static box_err
join(sparser *p, pdp_str a, pdp_str b, pdp_str *out)
{
    size_t n = a.len + (a.len && b.len ? 2 : 0) + b.len;
    char *s = box_arena_alloc(p->sp_a, n + 1);
    if (s == NULL)
        return BOX_ENOMEM;
    size_t o = 0;
    memcpy(s, a.s, a.len);
    o += a.len;
    if (a.len && b.len) {
        memcpy(s + o, "::", 2);
        o += 2;
    }
    memcpy(s + o, b.s, b.len);
    o += b.len;
    s[o] = '\0';
    out->s = s;
    out->len = o;
    return BOX_OK;
}

static box_err
tok_str(sparser *p, const pdp_token *t, pdp_str *out)
{
    char *s = box_arena_strndup(p->sp_a, t->t_text, t->t_len);
    if (s == NULL)
        return BOX_ENOMEM;
    out->s = s;
    out->len = t->t_len;
    return BOX_OK;
}

/* A decoded string literal. */
static box_err
str_lit(sparser *p, pdp_str *out)
{
    char *s;
    size_t n;
    pdp_token t = *TOK(p);
    BOX_TRY(pdp_lex_string(&p->sp_lx, &t, p->sp_a, false, &s, &n, NULL));
    out->s = s;
    out->len = n;
    return next(p);
}

/* annotations -> { '@' IDENT [ '(' STR ')' ] }   (read and ignored) */
static box_err
skip_annotations(sparser *p)
{
    while (TOK(p)->t_kind == PDP_TK_AT) {
        BOX_TRY(next(p));
        if (TOK(p)->t_kind != PDP_TK_IDENT)
            return expected(p, "an annotation name");
        BOX_TRY(next(p));
        if (TOK(p)->t_kind == PDP_TK_LPAREN) {
            BOX_TRY(next(p));
            if (TOK(p)->t_kind != PDP_TK_STR)
                return expected(p, "a string literal");
            pdp_str ignored;
            BOX_TRY(str_lit(p, &ignored));
            BOX_TRY(expect(p, PDP_TK_RPAREN));
        }
    }
    return BOX_OK;
}

/* path -> IDENT { '::' IDENT } */
static box_err
parse_path(sparser *p, pdp_str *out, pdp_pos *pos)
{
    if (TOK(p)->t_kind != PDP_TK_IDENT && TOK(p)->t_kind != PDP_TK_CEDAR)
        return expected(p, "a name");
    *pos = tpos(TOK(p));
    const char *start = TOK(p)->t_text;
    const char *end = start + TOK(p)->t_len;
    BOX_TRY(next(p));
    for (;;) {
        const pdp_token *ahead;
        if (TOK(p)->t_kind != PDP_TK_DCOLON)
            break;
        BOX_TRY(pdp_lex_peek(&p->sp_lx, &ahead));
        if (ahead->t_kind != PDP_TK_IDENT)
            break; // `::"id"` belongs to the caller
        BOX_TRY(next(p));
        end = TOK(p)->t_text + TOK(p)->t_len;
        BOX_TRY(next(p));
    }
    char *s = box_arena_strndup(p->sp_a, start, (size_t)(end - start));
    if (s == NULL)
        return BOX_ENOMEM;
    /* The source may hold spaces or comments around `::`; squeeze them. */
    size_t o = 0;
    bool in_comment = false;
    for (size_t i = 0; s[i] != '\0'; i++) {
        if (in_comment) {
            in_comment = s[i] != '\n';
            continue;
        }
        if (s[i] == '/' && s[i + 1] == '/') {
            in_comment = true;
            continue;
        }
        if (s[i] != ' ' && s[i] != '\t' && s[i] != '\n' && s[i] != '\r')
            s[o++] = s[i];
    }
    s[o] = '\0';
    out->s = s;
    out->len = o;
    return BOX_OK;
}

/* ---- types ---- */

static box_err parse_type(sparser *p, unsigned depth, raw_type **out);

static box_err
new_raw(sparser *p, int kind, pdp_pos pos, raw_type **out)
{
    raw_type *t = box_arena_zalloc(p->sp_a, sizeof(*t));
    if (t == NULL)
        return BOX_ENOMEM;
    t->rt_kind = kind;
    t->rt_pos = pos;
    *out = t;
    return BOX_OK;
}

/* record -> '{' [ attr { ',' attr } [ ',' ] ] '}'
 * attr   -> annotations ( IDENT | STR ) [ '?' ] ':' type */
static box_err
parse_record(sparser *p, unsigned depth, raw_type **out)
{
    raw_type *t;
    pdp_pos open = tpos(TOK(p));
    BOX_TRY(new_raw(p, PDP_TY_RECORD, open, &t));
    BOX_TRY(next(p)); // '{'
    while (TOK(p)->t_kind != PDP_TK_RBRACE) {
        raw_attr at;
        memset(&at, 0, sizeof(at));
        BOX_TRY(skip_annotations(p));
        at.ra_pos = tpos(TOK(p));
        pdp_tk k = TOK(p)->t_kind;
        if (k == PDP_TK_STR) {
            BOX_TRY(str_lit(p, &at.ra_name));
        } else if (k == PDP_TK_IDENT ||
                   (k >= PDP_TK_TRUE && k <= PDP_TK_CEDAR)) {
            BOX_TRY(tok_str(p, TOK(p), &at.ra_name));
            BOX_TRY(next(p));
        } else {
            return expected(p, "an attribute name or `}`");
        }
        at.ra_required = true;
        if (TOK(p)->t_kind == PDP_TK_QUESTION) {
            at.ra_required = false;
            BOX_TRY(next(p));
        }
        BOX_TRY(expect(p, PDP_TK_COLON));
        BOX_TRY(parse_type(p, depth + 1, &at.ra_type));
        for (uint32_t i = 0; i < t->rt_nattrs; i++) {
            if (str_eq(t->rt_attrs[i].ra_name, at.ra_name))
                return serr(p, at.ra_pos,
                            "duplicate attribute `%s` in a "
                            "record type",
                            at.ra_name.s);
        }
        BOX_TRY(PUSH(p, t->rt_attrs, t->rt_nattrs, t->rt_cap, &at));
        if (TOK(p)->t_kind == PDP_TK_COMMA) {
            BOX_TRY(next(p));
        } else if (TOK(p)->t_kind != PDP_TK_RBRACE) {
            return serr(p, tpos(TOK(p)),
                        "expected `,` or `}` (to close `{` "
                        "at line %u), found `%.*s`",
                        open.line, (int)TOK(p)->t_len, TOK(p)->t_text);
        }
    }
    BOX_TRY(next(p));
    *out = t;
    return BOX_OK;
}

/* type -> 'Set' '<' type '>' | record | path */
static box_err
parse_type(sparser *p, unsigned depth, raw_type **out)
{
    if (depth > PDP_SCHEMA_MAX_DEPTH)
        return serr(p, tpos(TOK(p)),
                    "type nests too deeply (the limit is "
                    "%d levels)",
                    PDP_SCHEMA_MAX_DEPTH);
    if (TOK(p)->t_kind == PDP_TK_LBRACE)
        return parse_record(p, depth, out);
    if (TOK(p)->t_kind != PDP_TK_IDENT && TOK(p)->t_kind != PDP_TK_CEDAR)
        return expected(p, "a type");
    const pdp_token *ahead;
    BOX_TRY(pdp_lex_peek(&p->sp_lx, &ahead));
    if (at_kw(p, "Set") && ahead->t_kind == PDP_TK_LT) {
        raw_type *t;
        BOX_TRY(new_raw(p, PDP_TY_SET, tpos(TOK(p)), &t));
        BOX_TRY(next(p));
        BOX_TRY(next(p));
        BOX_TRY(parse_type(p, depth + 1, &t->rt_elem));
        BOX_TRY(expect(p, PDP_TK_GT));
        *out = t;
        return BOX_OK;
    }
    raw_type *t;
    BOX_TRY(new_raw(p, RT_NAME, tpos(TOK(p)), &t));
    pdp_pos pos;
    BOX_TRY(parse_path(p, &t->rt_name, &pos));
    *out = t;
    return BOX_OK;
}

/* ents -> path | '[' [ path { ',' path } [','] ] ']' */
static box_err
parse_ent_list(sparser *p, raw_name **arr, uint32_t *n)
{
    uint32_t cap = 0;
    bool list = TOK(p)->t_kind == PDP_TK_LBRACKET;
    if (list)
        BOX_TRY(next(p));
    while (!list || TOK(p)->t_kind != PDP_TK_RBRACKET) {
        raw_name rn;
        memset(&rn, 0, sizeof(rn));
        BOX_TRY(parse_path(p, &rn.rn_path, &rn.rn_pos));
        BOX_TRY(vec_push(p->sp_a, (void **)arr, n, &cap, sizeof(**arr), &rn));
        if (!list)
            return BOX_OK;
        if (TOK(p)->t_kind == PDP_TK_COMMA)
            BOX_TRY(next(p));
        else if (TOK(p)->t_kind != PDP_TK_RBRACKET)
            return expected(p, "`,` or `]`");
    }
    return next(p);
}

/* aref -> STR | IDENT | path '::' STR */
static box_err
parse_action_ref(sparser *p, raw_name *rn)
{
    memset(rn, 0, sizeof(*rn));
    rn->rn_pos = tpos(TOK(p));
    rn->rn_path.s = "";
    if (TOK(p)->t_kind == PDP_TK_STR)
        return str_lit(p, &rn->rn_id);
    pdp_pos pos;
    BOX_TRY(parse_path(p, &rn->rn_path, &pos));
    if (TOK(p)->t_kind != PDP_TK_DCOLON) {
        rn->rn_id = rn->rn_path; // a bare identifier names an action
        rn->rn_path.s = "";
        rn->rn_path.len = 0;
        return BOX_OK;
    }
    BOX_TRY(next(p));
    if (TOK(p)->t_kind != PDP_TK_STR)
        return expected(p, "an action id string");
    return str_lit(p, &rn->rn_id);
}

/* arefs -> aref | '[' [ aref { ',' aref } [','] ] ']' */
static box_err
parse_action_refs(sparser *p, raw_name **arr, uint32_t *n)
{
    uint32_t cap = 0;
    bool list = TOK(p)->t_kind == PDP_TK_LBRACKET;
    if (list)
        BOX_TRY(next(p));
    while (!list || TOK(p)->t_kind != PDP_TK_RBRACKET) {
        raw_name rn;
        BOX_TRY(parse_action_ref(p, &rn));
        BOX_TRY(vec_push(p->sp_a, (void **)arr, n, &cap, sizeof(**arr), &rn));
        if (!list)
            return BOX_OK;
        if (TOK(p)->t_kind == PDP_TK_COMMA)
            BOX_TRY(next(p));
        else if (TOK(p)->t_kind != PDP_TK_RBRACKET)
            return expected(p, "`,` or `]`");
    }
    return next(p);
}

/* ---- declarations ---- */

/* A name being declared: IDENT for entities and types, IDENT or STR for
 * actions. */
static box_err
decl_name(sparser *p, bool action, pdp_str *out, pdp_pos *pos)
{
    *pos = tpos(TOK(p));
    if (action && TOK(p)->t_kind == PDP_TK_STR)
        return str_lit(p, out);
    if (TOK(p)->t_kind != PDP_TK_IDENT)
        return expected(p, action ? "an action name" : "a name");
    BOX_TRY(tok_str(p, TOK(p), out));
    return next(p);
}

/* entity -> 'entity' IDENT { ',' IDENT } [ 'in' ents ]
 *           ( 'enum' '[' STR { ',' STR } [','] ']' | [ [ '=' ] record ]
 *             [ 'tags' type ] ) ';' */
static box_err
parse_entity(sparser *p)
{
    BOX_TRY(next(p)); // 'entity'
    pdp_str names[64];
    pdp_pos poss[64];
    uint32_t nn = 0;
    for (;;) {
        if (nn == 64)
            return serr(p, tpos(TOK(p)), "too many names in one declaration");
        BOX_TRY(decl_name(p, false, &names[nn], &poss[nn]));
        nn++;
        if (TOK(p)->t_kind != PDP_TK_COMMA)
            break;
        BOX_TRY(next(p));
    }
    raw_entity re;
    memset(&re, 0, sizeof(re));
    re.re_ns = p->sp_ns;
    pdp_str *ids = NULL;
    uint32_t nids = 0, idcap = 0;
    bool is_enum = false;
    if (TOK(p)->t_kind == PDP_TK_IN) {
        BOX_TRY(next(p));
        BOX_TRY(parse_ent_list(p, &re.re_parents, &re.re_nparents));
    }
    if (at_kw(p, "enum")) {
        is_enum = true;
        if (re.re_nparents > 0)
            return serr(p, tpos(TOK(p)),
                        "an enumerated entity type cannot "
                        "have parents");
        BOX_TRY(next(p));
        BOX_TRY(expect(p, PDP_TK_LBRACKET));
        while (TOK(p)->t_kind != PDP_TK_RBRACKET) {
            if (TOK(p)->t_kind != PDP_TK_STR)
                return expected(p, "an entity id string");
            pdp_pos ipos = tpos(TOK(p));
            pdp_str id;
            BOX_TRY(str_lit(p, &id));
            for (uint32_t i = 0; i < nids; i++) {
                if (str_eq(ids[i], id))
                    return serr(p, ipos, "duplicate enum id \"%s\"", id.s);
            }
            BOX_TRY(PUSH(p, ids, nids, idcap, &id));
            if (TOK(p)->t_kind == PDP_TK_COMMA)
                BOX_TRY(next(p));
            else if (TOK(p)->t_kind != PDP_TK_RBRACKET)
                return expected(p, "`,` or `]`");
        }
        if (nids == 0)
            return serr(p, tpos(TOK(p)),
                        "an enumerated entity type needs at "
                        "least one id");
        BOX_TRY(next(p));
    } else {
        if (TOK(p)->t_kind == PDP_TK_ASSIGN) {
            BOX_TRY(next(p));
            if (TOK(p)->t_kind != PDP_TK_LBRACE)
                return expected(p, "`{`");
        }
        if (TOK(p)->t_kind == PDP_TK_LBRACE)
            BOX_TRY(parse_record(p, 1, &re.re_attrs));
        if (at_kw(p, "tags")) {
            BOX_TRY(next(p));
            BOX_TRY(parse_type(p, 1, &re.re_tags));
        }
    }
    BOX_TRY(expect(p, PDP_TK_SEMI));
    for (uint32_t i = 0; i < nn; i++) {
        pdp_schema_entity en;
        memset(&en, 0, sizeof(en));
        BOX_TRY(join(p, p->sp_ns, names[i], &en.en_name));
        en.en_pos = poss[i];
        en.en_is_enum = is_enum;
        en.en_enum = ids;
        en.en_nenum = nids;
        pdp_schema *s = p->sp_s;
        for (uint32_t k = 0; k < s->sc_nents; k++) {
            if (str_eq(s->sc_ents[k].en_name, en.en_name))
                return serr(p, poss[i],
                            "duplicate declaration of entity type "
                            "`%s`",
                            en.en_name.s);
        }
        BOX_TRY(PUSH(p, s->sc_ents, s->sc_nents, s->sc_entcap, &en));
        BOX_TRY(PUSH(p, p->sp_rents, p->sp_nrents, p->sp_rentcap, &re));
    }
    return BOX_OK;
}

/* applies -> '{' [ item { ',' item } [','] ] '}'
 * item    -> 'principal' ':' ents | 'resource' ':' ents
 *          | 'context' ':' type */
static box_err
parse_applies(sparser *p, raw_action *ra, bool *has_p, bool *has_r)
{
    pdp_pos open = tpos(TOK(p));
    BOX_TRY(expect(p, PDP_TK_LBRACE));
    bool has_c = false;
    while (TOK(p)->t_kind != PDP_TK_RBRACE) {
        pdp_pos pos = tpos(TOK(p));
        if (at_kw(p, "principal") || at_kw(p, "resource")) {
            bool princ = at_kw(p, "principal");
            bool *seen = princ ? has_p : has_r;
            if (*seen)
                return serr(p, pos, "duplicate `%s` declaration",
                            princ ? "principal" : "resource");
            *seen = true;
            BOX_TRY(next(p));
            BOX_TRY(expect(p, PDP_TK_COLON));
            if (princ)
                BOX_TRY(
                    parse_ent_list(p, &ra->ra_principals, &ra->ra_nprincipals));
            else
                BOX_TRY(
                    parse_ent_list(p, &ra->ra_resources, &ra->ra_nresources));
        } else if (at_kw(p, "context")) {
            if (has_c)
                return serr(p, pos, "duplicate `context` declaration");
            has_c = true;
            BOX_TRY(next(p));
            BOX_TRY(expect(p, PDP_TK_COLON));
            BOX_TRY(parse_type(p, 1, &ra->ra_context));
        } else {
            return expected(p, "`principal`, `resource` or `context`");
        }
        if (TOK(p)->t_kind == PDP_TK_COMMA)
            BOX_TRY(next(p));
        else if (TOK(p)->t_kind != PDP_TK_RBRACE)
            return serr(p, tpos(TOK(p)),
                        "expected `,` or `}` (to close `{` "
                        "at line %u), found `%.*s`",
                        open.line, (int)TOK(p)->t_len, TOK(p)->t_text);
    }
    BOX_TRY(next(p));
    if (!*has_p)
        return serr(p, open, "`appliesTo` needs a `principal` declaration");
    if (!*has_r)
        return serr(p, open, "`appliesTo` needs a `resource` declaration");
    return BOX_OK;
}

/* action -> 'action' name { ',' name } [ 'in' arefs ]
 *           [ 'appliesTo' applies ] ';' */
static box_err
parse_action(sparser *p)
{
    BOX_TRY(next(p)); // 'action'
    pdp_str names[64];
    pdp_pos poss[64];
    uint32_t nn = 0;
    for (;;) {
        if (nn == 64)
            return serr(p, tpos(TOK(p)), "too many names in one declaration");
        BOX_TRY(decl_name(p, true, &names[nn], &poss[nn]));
        nn++;
        if (TOK(p)->t_kind != PDP_TK_COMMA)
            break;
        BOX_TRY(next(p));
    }
    raw_action ra;
    memset(&ra, 0, sizeof(ra));
    ra.ra_ns = p->sp_ns;
    if (TOK(p)->t_kind == PDP_TK_IN) {
        BOX_TRY(next(p));
        BOX_TRY(parse_action_refs(p, &ra.ra_parents, &ra.ra_nparents));
    }
    bool applies = false, has_p = false, has_r = false;
    if (at_kw(p, "appliesTo")) {
        applies = true;
        BOX_TRY(next(p));
        BOX_TRY(parse_applies(p, &ra, &has_p, &has_r));
    }
    BOX_TRY(expect(p, PDP_TK_SEMI));
    pdp_str atype;
    pdp_str action = {"Action", 6};
    BOX_TRY(join(p, p->sp_ns, action, &atype));
    pdp_schema *s = p->sp_s;
    bool known = false;
    for (uint32_t i = 0; i < s->sc_nactypes; i++)
        known = known || str_eq(s->sc_actypes[i], atype);
    if (!known)
        BOX_TRY(
            PUSH(p, s->sc_actypes, s->sc_nactypes, s->sc_actypecap, &atype));
    for (uint32_t i = 0; i < nn; i++) {
        pdp_schema_action ac;
        memset(&ac, 0, sizeof(ac));
        pdp_value *uid;
        box_err rv = pdp_value_entity(p->sp_a, atype.s, atype.len, names[i].s,
                                      names[i].len, &uid);
        if (rv == BOX_EINVAL)
            return serr(p, poss[i], "invalid action name");
        BOX_TRY(rv);
        ac.ac_uid = uid;
        ac.ac_type.s = uid->u.ent.type;
        ac.ac_type.len = uid->u.ent.tlen;
        ac.ac_id.s = uid->u.ent.id;
        ac.ac_id.len = uid->u.ent.idlen;
        ac.ac_applies = applies;
        ac.ac_pos = poss[i];
        for (uint32_t k = 0; k < s->sc_nacts; k++) {
            if (pdp_entity_eq(s->sc_acts[k].ac_uid, uid))
                return serr(p, poss[i],
                            "duplicate declaration of action "
                            "`%s::\"%s\"`",
                            atype.s, names[i].s);
        }
        BOX_TRY(PUSH(p, s->sc_acts, s->sc_nacts, s->sc_actcap, &ac));
        BOX_TRY(PUSH(p, p->sp_racts, p->sp_nracts, p->sp_ractcap, &ra));
    }
    return BOX_OK;
}

/* typedecl -> 'type' IDENT '=' type ';' */
static box_err
parse_typedecl(sparser *p)
{
    BOX_TRY(next(p)); // 'type'
    raw_common rc;
    memset(&rc, 0, sizeof(rc));
    pdp_str name;
    BOX_TRY(decl_name(p, false, &name, &rc.rc_pos));
    static const char *const builtin[] = {"Bool",   "Long",   "String",   "Set",
                                          "Record", "Entity", "Extension"};
    for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++) {
        if (str_is(name, builtin[i]))
            return serr(p, rc.rc_pos,
                        "`%s` is a built-in type name and "
                        "cannot be declared",
                        name.s);
    }
    BOX_TRY(expect(p, PDP_TK_ASSIGN));
    BOX_TRY(parse_type(p, 1, &rc.rc_type));
    BOX_TRY(expect(p, PDP_TK_SEMI));
    rc.rc_ns = p->sp_ns;
    BOX_TRY(join(p, p->sp_ns, name, &rc.rc_full));
    for (uint32_t i = 0; i < p->sp_ncommons; i++) {
        if (str_eq(p->sp_commons[i].rc_full, rc.rc_full))
            return serr(p, rc.rc_pos, "duplicate declaration of type `%s`",
                        rc.rc_full.s);
    }
    return PUSH(p, p->sp_commons, p->sp_ncommons, p->sp_comcap, &rc);
}

/* decl -> annotations ( entity | action | typedecl ) */
static box_err
parse_decl(sparser *p)
{
    BOX_TRY(skip_annotations(p));
    if (at_kw(p, "entity"))
        return parse_entity(p);
    if (at_kw(p, "action"))
        return parse_action(p);
    if (at_kw(p, "type"))
        return parse_typedecl(p);
    return expected(p, "`entity`, `action` or `type`");
}

/* schema    -> { namespace | decl }
 * namespace -> annotations 'namespace' path '{' { decl } '}' */
static box_err
parse_schema(sparser *p)
{
    while (TOK(p)->t_kind != PDP_TK_EOF) {
        BOX_TRY(skip_annotations(p));
        if (!at_kw(p, "namespace")) {
            p->sp_ns.s = "";
            p->sp_ns.len = 0;
            BOX_TRY(parse_decl(p));
            continue;
        }
        BOX_TRY(next(p));
        pdp_pos pos;
        BOX_TRY(parse_path(p, &p->sp_ns, &pos));
        pdp_pos open = tpos(TOK(p));
        BOX_TRY(expect(p, PDP_TK_LBRACE));
        while (TOK(p)->t_kind != PDP_TK_RBRACE) {
            if (TOK(p)->t_kind == PDP_TK_EOF)
                return serr(p, tpos(TOK(p)),
                            "expected `}` (to close `{` at "
                            "line %u), found end of file",
                            open.line);
            BOX_TRY(parse_decl(p));
        }
        BOX_TRY(next(p));
        p->sp_ns.s = "";
        p->sp_ns.len = 0;
    }
    return BOX_OK;
}

/* ---- resolution ---- */

static const pdp_type pdp_ty_bool = {PDP_TY_BOOL, NULL, NULL, 0, {"Bool", 4}};
static const pdp_type pdp_ty_long = {PDP_TY_LONG, NULL, NULL, 0, {"Long", 4}};
static const pdp_type pdp_ty_string = {
    PDP_TY_STRING, NULL, NULL, 0, {"String", 6}};
static const pdp_type pdp_ty_empty = {PDP_TY_RECORD, NULL, NULL, 0, {"", 0}};
static const char *const pdp_ext_types[] = {"decimal", "datetime", "duration",
                                            "ipaddr"};

static raw_common *
find_common(sparser *p, pdp_str full)
{
    for (uint32_t i = 0; i < p->sp_ncommons; i++) {
        if (str_eq(p->sp_commons[i].rc_full, full))
            return &p->sp_commons[i];
    }
    return NULL;
}

static const pdp_schema_entity *
find_entity(const pdp_schema *s, pdp_str full)
{
    return pdp_schema_entity_find(s, full.s, full.len);
}

static box_err resolve_type(sparser *p, const raw_type *rt, pdp_str ns,
                            const pdp_type **out);

static box_err
resolve_common(sparser *p, raw_common *rc, pdp_pos use, const pdp_type **out)
{
    if (rc->rc_done == NULL) {
        if (rc->rc_busy)
            return serr(p, use, "type `%s` refers to itself", rc->rc_full.s);
        rc->rc_busy = true;
        BOX_TRY(resolve_type(p, rc->rc_type, rc->rc_ns, &rc->rc_done));
        rc->rc_busy = false;
    }
    *out = rc->rc_done;
    return BOX_OK;
}

static box_err
entity_type(sparser *p, pdp_str name, const pdp_type **out)
{
    pdp_type *t = box_arena_zalloc(p->sp_a, sizeof(*t));
    if (t == NULL)
        return BOX_ENOMEM;
    t->ty_kind = PDP_TY_ENTITY;
    t->ty_name = name;
    *out = t;
    return BOX_OK;
}

/* Qualifies an entity type reference: ns::N, then N as written. */
static box_err
resolve_entity_ref(sparser *p, pdp_str ns, const raw_name *rn, pdp_str *out)
{
    pdp_str full;
    if (ns.len > 0) {
        BOX_TRY(join(p, ns, rn->rn_path, &full));
        const pdp_schema_entity *en = find_entity(p->sp_s, full);
        if (en != NULL) {
            *out = en->en_name;
            return BOX_OK;
        }
    }
    const pdp_schema_entity *en = find_entity(p->sp_s, rn->rn_path);
    if (en != NULL) {
        *out = en->en_name;
        return BOX_OK;
    }
    return serr(p, rn->rn_pos, "undeclared entity type `%s`", rn->rn_path.s);
}

static box_err
resolve_name(sparser *p, const raw_type *rt, pdp_str ns, const pdp_type **out)
{
    pdp_str name = rt->rt_name;
    pdp_str cands[2];
    size_t nc = 0;
    if (ns.len > 0 && memchr(name.s, ':', name.len) == NULL)
        BOX_TRY(join(p, ns, name, &cands[nc++]));
    cands[nc++] = name;
    for (size_t i = 0; i < nc; i++) {
        raw_common *rc = find_common(p, cands[i]);
        if (rc != NULL)
            return resolve_common(p, rc, rt->rt_pos, out);
        const pdp_schema_entity *en = find_entity(p->sp_s, cands[i]);
        if (en != NULL)
            return entity_type(p, en->en_name, out);
    }
    const char *base = name.s;
    if (name.len > 10 && memcmp(name.s, "__cedar::", 9) == 0)
        base = name.s + 9;
    if (strcmp(base, "Bool") == 0) {
        *out = &pdp_ty_bool;
        return BOX_OK;
    }
    if (strcmp(base, "Long") == 0) {
        *out = &pdp_ty_long;
        return BOX_OK;
    }
    if (strcmp(base, "String") == 0) {
        *out = &pdp_ty_string;
        return BOX_OK;
    }
    for (size_t i = 0; i < sizeof(pdp_ext_types) / sizeof(pdp_ext_types[0]);
         i++) {
        if (strcmp(base, pdp_ext_types[i]) == 0) {
            pdp_type *t = box_arena_zalloc(p->sp_a, sizeof(*t));
            if (t == NULL)
                return BOX_ENOMEM;
            t->ty_kind = PDP_TY_EXT;
            t->ty_name.s = pdp_ext_types[i];
            t->ty_name.len = strlen(pdp_ext_types[i]);
            *out = t;
            return BOX_OK;
        }
    }
    return serr(p, rt->rt_pos, "failed to resolve type: %s", name.s);
}

static int
attr_cmp(const void *x, const void *y)
{
    const pdp_attr *a = x, *b = y;
    size_t n =
        a->at_name.len < b->at_name.len ? a->at_name.len : b->at_name.len;
    int c = memcmp(a->at_name.s, b->at_name.s, n);
    if (c != 0)
        return c;
    return a->at_name.len < b->at_name.len ? -1
                                           : a->at_name.len > b->at_name.len;
}

static box_err
resolve_type(sparser *p, const raw_type *rt, pdp_str ns, const pdp_type **out)
{
    if (rt->rt_kind == RT_NAME)
        return resolve_name(p, rt, ns, out);
    pdp_type *t = box_arena_zalloc(p->sp_a, sizeof(*t));
    if (t == NULL)
        return BOX_ENOMEM;
    t->ty_kind = (pdp_type_kind)rt->rt_kind;
    if (rt->rt_kind == PDP_TY_SET) {
        BOX_TRY(resolve_type(p, rt->rt_elem, ns, &t->ty_elem));
    } else if (rt->rt_kind == PDP_TY_RECORD) {
        pdp_attr *attrs =
            box_arena_alloc(p->sp_a, (rt->rt_nattrs + 1) * sizeof(*attrs));
        if (attrs == NULL)
            return BOX_ENOMEM;
        for (uint32_t i = 0; i < rt->rt_nattrs; i++) {
            attrs[i].at_name = rt->rt_attrs[i].ra_name;
            attrs[i].at_required = rt->rt_attrs[i].ra_required;
            BOX_TRY(resolve_type(p, rt->rt_attrs[i].ra_type, ns,
                                 &attrs[i].at_type));
        }
        qsort(attrs, rt->rt_nattrs, sizeof(*attrs), attr_cmp);
        t->ty_attrs = attrs;
        t->ty_nattrs = rt->rt_nattrs;
    }
    *out = t;
    return BOX_OK;
}

static box_err
resolve_action_ref(sparser *p, pdp_str ns, const raw_name *rn,
                   const pdp_value **out)
{
    pdp_str type;
    pdp_str action = {"Action", 6};
    if (rn->rn_path.len == 0)
        BOX_TRY(join(p, ns, action, &type));
    else if (str_is(rn->rn_path, "Action"))
        BOX_TRY(join(p, ns, rn->rn_path, &type));
    else
        type = rn->rn_path;
    pdp_value *v;
    box_err rv = pdp_value_entity(p->sp_a, type.s, type.len, rn->rn_id.s,
                                  rn->rn_id.len, &v);
    if (rv == BOX_EINVAL)
        return serr(p, rn->rn_pos, "invalid action reference");
    BOX_TRY(rv);
    const pdp_schema_action *ac = pdp_schema_action_find(p->sp_s, v);
    if (ac == NULL)
        return serr(p, rn->rn_pos, "undeclared action `%s::\"%s\"`", type.s,
                    rn->rn_id.s);
    *out = ac->ac_uid;
    return BOX_OK;
}

static box_err
resolve_names(sparser *p, pdp_str ns, const raw_name *rn, uint32_t n,
              const pdp_str **out)
{
    pdp_str *arr = box_arena_alloc(p->sp_a, (n + 1) * sizeof(*arr));
    if (arr == NULL)
        return BOX_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        BOX_TRY(resolve_entity_ref(p, ns, &rn[i], &arr[i]));
    *out = arr;
    return BOX_OK;
}

static box_err
resolve_all(sparser *p)
{
    pdp_schema *s = p->sp_s;
    for (uint32_t i = 0; i < p->sp_ncommons; i++) {
        const pdp_type *t;
        BOX_TRY(
            resolve_common(p, &p->sp_commons[i], p->sp_commons[i].rc_pos, &t));
    }
    for (uint32_t i = 0; i < s->sc_nents; i++) {
        pdp_schema_entity *en = &s->sc_ents[i];
        const raw_entity *re = &p->sp_rents[i];
        BOX_TRY(resolve_names(p, re->re_ns, re->re_parents, re->re_nparents,
                              &en->en_parents));
        en->en_nparents = re->re_nparents;
        en->en_attrs = &pdp_ty_empty;
        if (re->re_attrs != NULL)
            BOX_TRY(resolve_type(p, re->re_attrs, re->re_ns, &en->en_attrs));
        if (re->re_tags != NULL)
            BOX_TRY(resolve_type(p, re->re_tags, re->re_ns, &en->en_tags));
    }
    for (uint32_t i = 0; i < s->sc_nacts; i++) {
        pdp_schema_action *ac = &s->sc_acts[i];
        const raw_action *ra = &p->sp_racts[i];
        const pdp_value **parents =
            box_arena_alloc(p->sp_a, (ra->ra_nparents + 1) * sizeof(*parents));
        if (parents == NULL)
            return BOX_ENOMEM;
        for (uint32_t k = 0; k < ra->ra_nparents; k++)
            BOX_TRY(resolve_action_ref(p, ra->ra_ns, &ra->ra_parents[k],
                                       &parents[k]));
        ac->ac_parents = parents;
        ac->ac_nparents = ra->ra_nparents;
        BOX_TRY(resolve_names(p, ra->ra_ns, ra->ra_principals,
                              ra->ra_nprincipals, &ac->ac_principals));
        ac->ac_nprincipals = ra->ra_nprincipals;
        BOX_TRY(resolve_names(p, ra->ra_ns, ra->ra_resources, ra->ra_nresources,
                              &ac->ac_resources));
        ac->ac_nresources = ra->ra_nresources;
        ac->ac_context = &pdp_ty_empty;
        if (ra->ra_context != NULL) {
            BOX_TRY(
                resolve_type(p, ra->ra_context, ra->ra_ns, &ac->ac_context));
            if (ac->ac_context->ty_kind != PDP_TY_RECORD)
                return serr(p, ra->ra_context->rt_pos,
                            "the context of an "
                            "action must be a record type");
        }
    }
    /* An action may not be its own ancestor. */
    for (uint32_t i = 0; i < s->sc_nacts; i++) {
        for (uint32_t k = 0; k < s->sc_acts[i].ac_nparents; k++) {
            const pdp_schema_action *par =
                pdp_schema_action_find(s, s->sc_acts[i].ac_parents[k]);
            if (par != NULL &&
                pdp_schema_action_in(s, par, s->sc_acts[i].ac_uid))
                return serr(p, s->sc_acts[i].ac_pos,
                            "action `%s::\"%s\"` is "
                            "in a cycle of action groups",
                            s->sc_acts[i].ac_type.s, s->sc_acts[i].ac_id.s);
        }
    }
    return BOX_OK;
}

/* ---- load ---- */

box_err
pdp_schema_load(const char *text, size_t len, const char *file,
                pdp_schema **out, char **err)
{
    box_buf msg;
    box_buf_init(&msg, 1u << 16);
    sparser p;
    memset(&p, 0, sizeof(p));
    pdp_schema *s = NULL;
    box_err rv;
    *out = NULL;
    *err = NULL;
    if (file == NULL)
        file = "<schema>";
    if (len > PDP_SCHEMA_MAX_BYTES) {
        rv = BOX_ETOOBIG;
        box_err mrv = box_buf_printf(&msg,
                                     "%s: schema text is larger than "
                                     "the limit of %u bytes",
                                     file, PDP_SCHEMA_MAX_BYTES);
        (void)mrv;
        goto out;
    }
    rv = BOX_ENOMEM;
    if ((s = box_calloc(1, sizeof(*s))) == NULL ||
        (s->sc_arena = box_arena_new(PDP_SCHEMA_MAX_MEMORY)) == NULL)
        goto out;
    p.sp_a = s->sc_arena;
    p.sp_s = s;
    p.sp_ns.s = "";
    if ((rv = pdp_lex_init(&p.sp_lx, text, len, file, &msg)) != BOX_OK)
        goto out;
    if ((rv = parse_schema(&p)) != BOX_OK)
        goto out;
    rv = resolve_all(&p);
out:
    if (rv != BOX_OK) {
        if (msg.b_len == 0) {
            box_err mrv =
                box_buf_printf(&msg, "%s: %s", file, box_strerror(rv));
            (void)mrv;
        }
        *err = box_buf_take(&msg);
        pdp_schema_free(s);
    } else {
        *out = s;
    }
    box_buf_reset(&msg);
    return rv;
}

const char *
pdp_schema_builtin_text(size_t *len)
{
    if (len != NULL)
        *len = pdp_schema_actions_text_len;
    return pdp_schema_actions_text;
}

box_err
pdp_schema_load_builtin(pdp_schema **out, char **err)
{
    return pdp_schema_load(pdp_schema_actions_text, pdp_schema_actions_text_len,
                           "actions.cedarschema", out, err);
}

void
pdp_schema_free(pdp_schema *s)
{
    if (s == NULL)
        return;
    box_arena_free(s->sc_arena);
    box_free(s);
}

/* ---- lookups ---- */

size_t
pdp_schema_action_count(const pdp_schema *s)
{
    return s->sc_nacts;
}

const pdp_schema_action *
pdp_schema_action_at(const pdp_schema *s, size_t i)
{
    return i < s->sc_nacts ? &s->sc_acts[i] : NULL;
}

const pdp_schema_action *
pdp_schema_action_find(const pdp_schema *s, const pdp_value *uid)
{
    if (uid == NULL || uid->v_kind != PDP_VAL_ENTITY)
        return NULL;
    for (uint32_t i = 0; i < s->sc_nacts; i++) {
        if (pdp_entity_eq(s->sc_acts[i].ac_uid, uid))
            return &s->sc_acts[i];
    }
    return NULL;
}

bool
pdp_schema_is_action_type(const pdp_schema *s, const char *type, size_t tlen)
{
    for (uint32_t i = 0; i < s->sc_nactypes; i++) {
        if (s->sc_actypes[i].len == tlen &&
            memcmp(s->sc_actypes[i].s, type, tlen) == 0)
            return true;
    }
    return false;
}

size_t
pdp_schema_entity_count(const pdp_schema *s)
{
    return s->sc_nents;
}

const pdp_schema_entity *
pdp_schema_entity_at(const pdp_schema *s, size_t i)
{
    return i < s->sc_nents ? &s->sc_ents[i] : NULL;
}

const pdp_schema_entity *
pdp_schema_entity_find(const pdp_schema *s, const char *name, size_t len)
{
    for (uint32_t i = 0; i < s->sc_nents; i++) {
        if (s->sc_ents[i].en_name.len == len &&
            memcmp(s->sc_ents[i].en_name.s, name, len) == 0)
            return &s->sc_ents[i];
    }
    return NULL;
}

static bool
action_in(const pdp_schema *s, const pdp_schema_action *a, const pdp_value *g,
          unsigned budget)
{
    if (pdp_entity_eq(a->ac_uid, g))
        return true;
    if (budget == 0)
        return false;
    for (uint32_t i = 0; i < a->ac_nparents; i++) {
        const pdp_schema_action *par =
            pdp_schema_action_find(s, a->ac_parents[i]);
        if (par != NULL && action_in(s, par, g, budget - 1))
            return true;
    }
    return false;
}

bool
pdp_schema_action_in(const pdp_schema *s, const pdp_schema_action *a,
                     const pdp_value *g)
{
    if (g == NULL || g->v_kind != PDP_VAL_ENTITY)
        return false;
    return action_in(s, a, g, 64);
}

static bool
entity_in(const pdp_schema *s, pdp_str t, pdp_str anc, unsigned budget)
{
    if (str_eq(t, anc))
        return true;
    const pdp_schema_entity *en = pdp_schema_entity_find(s, t.s, t.len);
    if (en == NULL || budget == 0)
        return false;
    for (uint32_t i = 0; i < en->en_nparents; i++) {
        if (entity_in(s, en->en_parents[i], anc, budget - 1))
            return true;
    }
    return false;
}

bool
pdp_schema_entity_may_be_in(const pdp_schema *s, pdp_str t, pdp_str anc)
{
    return entity_in(s, t, anc, 64);
}

const pdp_attr *
pdp_schema_record_attr(const pdp_type *rec, const char *name, size_t len)
{
    if (rec == NULL || rec->ty_kind != PDP_TY_RECORD)
        return NULL;
    size_t lo = 0, hi = rec->ty_nattrs;
    pdp_attr key;
    key.at_name.s = name;
    key.at_name.len = len;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = attr_cmp(&key, &rec->ty_attrs[mid]);
        if (c == 0)
            return &rec->ty_attrs[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

box_err
pdp_schema_type_format(const pdp_type *t, box_buf *out)
{
    box_err rv;
    switch (t->ty_kind) {
    case PDP_TY_BOOL:
        return box_buf_puts(out, "Bool");
    case PDP_TY_LONG:
        return box_buf_puts(out, "Long");
    case PDP_TY_STRING:
        return box_buf_puts(out, "String");
    case PDP_TY_TRUE:
        return box_buf_puts(out, "__cedar::internal::True");
    case PDP_TY_FALSE:
        return box_buf_puts(out, "__cedar::internal::False");
    case PDP_TY_NEVER:
        return box_buf_puts(out, "__cedar::internal::Never");
    case PDP_TY_SET:
        if (t->ty_elem == NULL)
            return box_buf_puts(out, "Set<__cedar::internal::Any>");
        if ((rv = box_buf_puts(out, "Set<")) != BOX_OK ||
            (rv = pdp_schema_type_format(t->ty_elem, out)) != BOX_OK)
            return rv;
        return box_buf_puts(out, ">");
    case PDP_TY_RECORD:
        if ((rv = box_buf_puts(out, "{")) != BOX_OK)
            return rv;
        for (uint32_t i = 0; i < t->ty_nattrs; i++) {
            const pdp_attr *a = &t->ty_attrs[i];
            if ((rv = box_buf_append(out, a->at_name.s, a->at_name.len)) !=
                    BOX_OK ||
                (rv = box_buf_puts(out, a->at_required ? ": " : "?: ")) !=
                    BOX_OK ||
                (rv = pdp_schema_type_format(a->at_type, out)) != BOX_OK ||
                (rv = box_buf_puts(out, ",")) != BOX_OK)
                return rv;
        }
        return box_buf_puts(out, "}");
    case PDP_TY_ENTITY:
    case PDP_TY_EXT:
        return box_buf_append(out, t->ty_name.s, t->ty_name.len);
    }
    return BOX_EINVAL;
}
