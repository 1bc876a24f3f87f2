/* SPDX-License-Identifier: Apache-2.0 */
/* Macro definitions: collected and checked before the rules are parsed
 * (pdp_macro.h). */
#include "pdp_macro.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/*
 * The built-in library (dogwood-spec §2.6, "Default macro library"), and
 * the two correlation macros of Dogwood's standard library that its
 * corpus (macros/stdlib_0007) uses without defining them.
 */
static const char default_library[] =
    "def temporal count_within(?w, ?s) {\n"
    "    count for ($t: Timepoint). where (formerly within ?w (?s && tp($t)))\n"
    "};\n"
    "def temporal sum_within(?a, ?w, ?body) {\n"
    "    sum ?a for (?a: Long), ($t: Timepoint).\n"
    "        where (formerly within ?w (?body && tp($t)))\n"
    "};\n"
    "def temporal count_distinct_within(?k, ?w, ?s) {\n"
    "    count for (?k: String). where (formerly within ?w ?s)\n"
    "};\n"
    "def temporal bind(?n, ?A, ?B) {\n"
    "    exists (?n: Long). (?A == ?n && ?B)\n"
    "};\n"
    "def temporal count_unresolved_within(?w, ?req, ?res) {\n"
    "    count for ($q: String). where (\n"
    "        formerly within ?w ?req{ requestId: $q }\n"
    "        && !exists ($r: Timepoint).\n"
    "            formerly within ?w (?res{ requestId: $q } && tp($r)))\n"
    "};\n"
    "def temporal sum_unresolved_within(?a, ?w, ?req, ?res) {\n"
    "    sum ?a for (?a: Long), ($q: String). where (\n"
    "        formerly within ?w ?req{ requestId: $q }\n"
    "        && !exists ($r: Timepoint).\n"
    "            formerly within ?w (?res{ requestId: $q } && tp($r)))\n"
    "};\n";

static bool
is_word(const pdp_token *t, const char *s)
{
    return t->t_kind == PDP_TK_IDENT && strlen(s) == t->t_len &&
           memcmp(t->t_text, s, t->t_len) == 0;
}

static box_err __attribute__((format(printf, 3, 4)))
at_err(pdp_lex *lx, const pdp_token *t, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return pdp_lex_error(lx, BOX_EPARSE, t->t_line, t->t_col, "%s", msg);
}

static box_err
expect(pdp_lex *lx, pdp_tk k, const char *what)
{
    const pdp_token *t = &lx->lx_tok;
    if (t->t_kind == k)
        return pdp_lex_next(lx);
    if (t->t_kind == PDP_TK_EOF)
        return at_err(lx, t, "expected %s, found end of file", what);
    return at_err(lx, t, "expected %s, found `%.*s`", what,
                  (int)(t->t_len > 50 ? 50 : t->t_len), t->t_text);
}

/* Built-in functions and keywords a macro may not be named. */
static bool
reserved_name(const pdp_token *t)
{
    static const char *const words[] = {
        "decimal", "datetime", "duration", "ip",       "let",
        "in",      "where",    "for",      "sum",      "count",
        "tp",      "formerly", "previous", "since",    "true",
        "false",
    };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i]) == t->t_len &&
            memcmp(words[i], t->t_text, t->t_len) == 0)
            return true;
    return false;
}

const pdp_macro *
pdp_macros_find(const pdp_macros *t, const char *name, size_t len)
{
    for (uint32_t i = 0; t != NULL && i < t->mt_n; i++)
        if (t->mt_v[i].m_name.len == len &&
            memcmp(t->mt_v[i].m_name.s, name, len) == 0)
            return &t->mt_v[i];
    return NULL;
}

int
pdp_macro_param(const pdp_macro *m, const char *name, size_t len)
{
    for (uint32_t i = 0; i < m->m_nparams; i++)
        if (m->m_params[i].len == len &&
            memcmp(m->m_params[i].s, name, len) == 0)
            return (int)i;
    return -1;
}

bool
pdp_macro_at_def(pdp_lex *lx)
{
    const pdp_token *ahead = NULL;
    return is_word(&lx->lx_tok, "def") &&
           pdp_lex_peek(lx, &ahead) == BOX_OK &&
           (is_word(ahead, "cedar") || is_word(ahead, "temporal"));
}

box_err
pdp_macro_skip_item(pdp_lex *lx)
{
    size_t depth = 0;
    for (;;) {
        const pdp_token *t = &lx->lx_tok;
        switch (t->t_kind) {
        case PDP_TK_EOF:
            return at_err(lx, t, "expected `;`, found end of file");
        case PDP_TK_LPAREN:
        case PDP_TK_LBRACKET:
        case PDP_TK_LBRACE:
            depth++;
            break;
        case PDP_TK_RPAREN:
        case PDP_TK_RBRACKET:
        case PDP_TK_RBRACE:
            depth -= depth > 0;
            break;
        case PDP_TK_SEMI:
            if (depth == 0)
                return pdp_lex_next(lx);
            break;
        default:
            break;
        }
        BOX_TRY(pdp_lex_next(lx));
    }
}

/* "(" [ "?" IDENT { "," "?" IDENT } ] ")" into m. */
static box_err
def_params(pdp_lex *lx, box_arena *a, pdp_macro *m)
{
    BOX_TRY(expect(lx, PDP_TK_LPAREN, "`(` to open the macro's parameters"));
    pdp_str *v = NULL;
    uint32_t cap = 0;
    while (lx->lx_tok.t_kind != PDP_TK_RPAREN) {
        pdp_token q = lx->lx_tok;
        if (q.t_kind != PDP_TK_QUESTION)
            return expect(lx, PDP_TK_QUESTION, "a parameter `?name`");
        BOX_TRY(pdp_lex_next(lx));
        pdp_token id = lx->lx_tok;
        if (id.t_kind != PDP_TK_IDENT)
            return expect(lx, PDP_TK_IDENT, "a parameter name after `?`");
        if (pdp_macro_param(m, id.t_text, id.t_len) >= 0)
            return at_err(lx, &q, "duplicate parameter `?%.*s` in macro `%s`",
                          (int)id.t_len, id.t_text, m->m_name.s);
        if (m->m_nparams == cap) {
            uint32_t nc = cap ? cap * 2 : 4;
            pdp_str *nv = box_arena_alloc(a, nc * sizeof *nv);
            if (nv == NULL)
                return BOX_ENOMEM;
            if (m->m_nparams > 0)
                memcpy(nv, v, m->m_nparams * sizeof *nv);
            v = nv;
            cap = nc;
        }
        char *s = box_arena_strndup(a, id.t_text, id.t_len);
        if (s == NULL)
            return BOX_ENOMEM;
        v[m->m_nparams++] = (pdp_str){s, id.t_len};
        m->m_params = v;
        BOX_TRY(pdp_lex_next(lx));
        if (lx->lx_tok.t_kind != PDP_TK_COMMA)
            break;
        BOX_TRY(pdp_lex_next(lx));
    }
    BOX_TRY(expect(lx, PDP_TK_RPAREN, "`,` or `)` after a parameter"));
    m->m_uses = box_arena_zalloc(a, (m->m_nparams + 1) * sizeof *m->m_uses);
    return m->m_uses != NULL ? BOX_OK : BOX_ENOMEM;
}

/* Adds m, or replaces a library definition of its name. */
static box_err
add_def(pdp_lex *lx, const pdp_token *name, box_arena *a, pdp_macros *t,
        const pdp_macro *m)
{
    pdp_macro *old = (pdp_macro *)pdp_macros_find(t, m->m_name.s,
                                                  m->m_name.len);
    if (old != NULL && old->m_library == m->m_library)
        return at_err(lx, name, "duplicate macro definition `%s`",
                      m->m_name.s);
    if (old != NULL) { // the policy's own wins, silently
        *old = *m;
        return BOX_OK;
    }
    if (t->mt_n == t->mt_cap) {
        uint32_t nc = t->mt_cap ? t->mt_cap * 2 : 8;
        pdp_macro *nv = box_arena_alloc(a, nc * sizeof *nv);
        if (nv == NULL)
            return BOX_ENOMEM;
        if (t->mt_n > 0)
            memcpy(nv, t->mt_v, t->mt_n * sizeof *nv);
        t->mt_v = nv;
        t->mt_cap = nc;
    }
    t->mt_v[t->mt_n++] = *m;
    return BOX_OK;
}

/* def ("cedar" | "temporal") IDENT "(" params ")" "{" BODY "}" ";" */
static box_err
collect_def(pdp_lex *lx, bool library, box_arena *a, pdp_macros *t)
{
    pdp_macro m = {.m_library = library};
    BOX_TRY(pdp_lex_next(lx)); // def
    bool cedar = is_word(&lx->lx_tok, "cedar");
    BOX_TRY(pdp_lex_next(lx));
    pdp_token name = lx->lx_tok;
    if (name.t_kind != PDP_TK_EOF && reserved_name(&name))
        return at_err(lx, &name, "macro name `%.*s` is reserved (built-in or "
                      "keyword); pick a different name", (int)name.t_len,
                      name.t_text);
    if (name.t_kind != PDP_TK_IDENT)
        return expect(lx, PDP_TK_IDENT, "the macro's name");
    char *s = box_arena_strndup(a, name.t_text, name.t_len);
    if (s == NULL)
        return BOX_ENOMEM;
    m.m_name = (pdp_str){s, name.t_len};
    BOX_TRY(pdp_lex_next(lx));
    BOX_TRY(def_params(lx, a, &m));
    pdp_token open = lx->lx_tok;
    BOX_TRY(expect(lx, PDP_TK_LBRACE, "`{` to open the macro's body"));
    if (lx->lx_tok.t_kind == PDP_TK_RBRACE)
        return at_err(lx, &lx->lx_tok, "the body of macro `%s` is empty", s);
    m.m_body = *lx;
    pdp_mscope sc = {.ms_def = &m};
    if (cedar) {
        m.m_kind = PDP_MACRO_CEDAR;
        BOX_TRY(pdp_parse_macro_body(lx, a, &sc));
    } else {
        bool agg = false;
        BOX_TRY(pdp_tl_parse_macro_body(lx, a, &sc, &agg));
        m.m_kind = agg ? PDP_MACRO_AGG : PDP_MACRO_COND;
    }
    if (lx->lx_tok.t_kind != PDP_TK_RBRACE)
        return at_err(lx, &lx->lx_tok, "expected `}` to close the body of "
                      "macro `%s` (opened at line %u), found `%.*s`", s,
                      open.t_line,
                      (int)(lx->lx_tok.t_len > 50 ? 50 : lx->lx_tok.t_len),
                      lx->lx_tok.t_text);
    BOX_TRY(pdp_lex_next(lx));
    BOX_TRY(expect(lx, PDP_TK_SEMI, "`;` after the macro definition"));
    return add_def(lx, &name, a, t, &m);
}

box_err
pdp_macros_collect(const char *text, size_t len, const char *file,
                   bool library, box_arena *a, pdp_macros *t, box_buf *err)
{
    pdp_lex lx;
    BOX_TRY(pdp_lex_init(&lx, text, len, file, err));
    while (lx.lx_tok.t_kind != PDP_TK_EOF) {
        if (pdp_macro_at_def(&lx)) {
            BOX_TRY(collect_def(&lx, library, a, t));
            continue;
        }
        if (library)
            return at_err(&lx, &lx.lx_tok, "a macro library holds only "
                          "`def cedar` and `def temporal` definitions");
        // A rule: its errors are the parser proper's to report, in order.
        if (pdp_macro_skip_item(&lx) != BOX_OK)
            break;
    }
    return BOX_OK;
}

box_err
pdp_macros_default(box_arena *a, pdp_macros *t, box_buf *err)
{
    return pdp_macros_collect(default_library, sizeof default_library - 1,
                              "<default macros>", true, a, t, err);
}
