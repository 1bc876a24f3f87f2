/* SPDX-License-Identifier: Apache-2.0 */
/* Shell lexer: operators, words split into parts, here-document bodies. */
#include "sh_lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_ansic.h"

/* ORDER SH_TK */
static const char *const sh_tk_names[SH_TK_COUNT] = {
    "end of file", "newline", "word", "number", ";",     ";;",    ";&",   ";;&",
    "&",           "&&",      "|",    "||",     "|&",    "(",     ")",    "<",
    ">",           ">>",      ">|",   "<>",     "<&",    ">&",    "<<",   "<<-",
    "&>",          "&>>",     "<<<",  "if",     "then",  "else",  "elif", "fi",
    "do",          "done",    "case", "esac",   "while", "until", "for",  "in",
    "{",           "}",       "!",    "[[",     "]]",
};

const char *
sh_tk_name(sh_tk k)
{
    if ((unsigned)k >= SH_TK_COUNT)
        return "?";
    return sh_tk_names[k];
}

box_err
sh_diag_set(sh_diag *d, box_err code, uint32_t line, const char *fmt, ...)
{
    if (d->d_code != BOX_OK)
        return code;
    d->d_code = code;
    d->d_line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->d_msg, sizeof(d->d_msg), fmt, ap);
    va_end(ap);
    return code;
}

void
sh_diag_warn(sh_diag *d, uint32_t line, const char *fmt, ...)
{
    if (d->d_nwarn >= SH_DIAG_WARN_MAX)
        return;
    d->d_warn[d->d_nwarn].w_line = line;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(d->d_warn[d->d_nwarn].w_msg, sizeof(d->d_warn[0].w_msg), fmt, ap);
    va_end(ap);
    d->d_nwarn++;
}

void
sh_lex_init(sh_lex *lx, const char *src, size_t len, uint32_t line, bool final,
            box_arena *a, sh_diag *diag, unsigned *depth, sh_sub_fn sub,
            void *subctx)
{
    memset(lx, 0, sizeof(*lx));
    lx->lx_src = src;
    lx->lx_len = len;
    lx->lx_line = line;
    lx->lx_final = final;
    lx->lx_arena = a;
    lx->lx_diag = diag;
    lx->lx_depth = depth;
    lx->lx_sub = sub;
    lx->lx_subctx = subctx;
}

/* ---- character access ---- */

/* The byte off positions ahead, or -1 at the end (noting that more input
 * may be needed when the text is not final). */
static int
peekc(sh_lex *lx, size_t off)
{
    if (lx->lx_pos + off >= lx->lx_len) {
        if (!lx->lx_final)
            lx->lx_hit_end = true;
        return -1;
    }
    return (unsigned char)lx->lx_src[lx->lx_pos + off];
}

static void
advc(sh_lex *lx)
{
    if (lx->lx_pos < lx->lx_len) {
        if (lx->lx_src[lx->lx_pos] == '\n')
            lx->lx_line++;
        lx->lx_pos++;
    }
}

static bool
is_meta(int c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == ';' || c == '&' ||
           c == '|' || c == '<' || c == '>' || c == '(' || c == ')';
}

static bool
is_name_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool
is_name_char(int c)
{
    return is_name_start(c) || (c >= '0' && c <= '9');
}

static bool
is_digit(int c)
{
    return c >= '0' && c <= '9';
}

static bool
is_special_param(int c)
{
    return c == '@' || c == '*' || c == '#' || c == '?' || c == '-' ||
           c == '$' || c == '!';
}

static box_err
oom(sh_lex *lx)
{
    return sh_diag_set(lx->lx_diag, BOX_ENOMEM, lx->lx_line, "out of memory");
}

static box_err
enter(sh_lex *lx)
{
    if (++*lx->lx_depth > SH_MAX_DEPTH)
        return sh_diag_set(lx->lx_diag, BOX_ETOOBIG, lx->lx_line,
                           "maximum recursion depth exceeded");
    return BOX_OK;
}

static void
leave(sh_lex *lx)
{
    --*lx->lx_depth;
}

/* ---- part lists ---- */

typedef struct plist {
    sh_wpart *head, *tail;
} plist;

/* Lexing modes of lex_parts: what ends the text and which quotes count. */
typedef enum lmode {
    LM_WORD,    // unquoted word: ends at a metacharacter
    LM_DQ,      // inside "…": ends at `"`
    LM_ARG,     // ${x op …} outside quotes: ends at `}`
    LM_ARG_DQ,  // ${x op …} inside "…": ends at `}`, `'` is literal
    LM_PAT_DQ,  // the pattern (or replacement) of ${x#p} ${x/p/r} inside
                // "…": LM_ARG_DQ, but `'…'` quotes (bash does so there)
    LM_HEREDOC, // unquoted here-document body: ends at the end of text
    LM_CPAT,    // a [[ pattern (SH_LEX_COND_PAT): LM_WORD plus extglob
    LM_CRE,     // a [[ regex (SH_LEX_COND_RE): LM_WORD plus ( ) |
    LM_SUB,     // an array subscript: quotes and $ count, ends at the end
} lmode;

/* Modes of the argument of ${x op …} inside "…". */
static bool
arg_dq(lmode mode)
{
    return mode == LM_ARG_DQ || mode == LM_PAT_DQ;
}

/* Modes that lex a word outside any quotes. */
static bool
unquoted_word(lmode mode)
{
    return mode == LM_WORD || mode == LM_CPAT || mode == LM_CRE;
}

/*
 * Whether the metacharacter c at the current position stays in a [[
 * word (bash's parse.y: PST_EXTPAT and PST_REGEXP). *parens counts the
 * open parentheses: inside them every byte stays, and they must close.
 */
static bool
cond_keeps(sh_lex *lx, lmode mode, size_t wstart, int c, unsigned *parens)
{
    if (*parens > 0) {
        if (c == '(')
            ++*parens;
        else if (c == ')')
            --*parens;
        return true;
    }
    if (mode == LM_CRE && c == '|')
        return true;
    if (c != '(')
        return false;
    if (mode == LM_CPAT) {
        if (lx->lx_pos == wstart ||
            strchr("@*+?!", lx->lx_src[lx->lx_pos - 1]) == NULL)
            return false;
    }
    *parens = 1;
    return true;
}

static sh_wpart *
new_part(sh_lex *lx, plist *pl, sh_wpart_kind k, uint32_t line)
{
    sh_wpart *p = box_arena_zalloc(lx->lx_arena, sizeof(*p));
    if (p == NULL)
        return NULL;
    p->wp_kind = k;
    p->wp_line = line;
    if (pl->tail != NULL)
        pl->tail->wp_next = p;
    else
        pl->head = p;
    pl->tail = p;
    return p;
}

static box_err
add_text(sh_lex *lx, plist *pl, sh_wpart_kind k, uint32_t line, const char *s,
         size_t n)
{
    char *d = box_arena_strndup(lx->lx_arena, s, n);
    sh_wpart *p = d ? new_part(lx, pl, k, line) : NULL;
    if (p == NULL)
        return oom(lx);
    p->u.text.s = d;
    p->u.text.len = n;
    return BOX_OK;
}

/* Literal bytes collect in lit and become one LIT part when flushed. */
static box_err
flush_lit(sh_lex *lx, plist *pl, box_buf *lit, uint32_t line)
{
    if (lit->b_len == 0)
        return BOX_OK;
    box_err rv = add_text(lx, pl, SH_WP_LIT, line, lit->b_data, lit->b_len);
    lit->b_len = 0;
    return rv;
}

static box_err
lit_putc(sh_lex *lx, box_buf *lit, char c)
{
    box_err rv = box_buf_putc(lit, c);
    if (rv == BOX_ETOOBIG)
        return sh_diag_set(lx->lx_diag, BOX_ETOOBIG, lx->lx_line,
                           "input too large");
    if (rv != BOX_OK)
        return oom(lx);
    return BOX_OK;
}

static box_err lex_parts(sh_lex *lx, lmode mode, plist *pl, size_t wstart,
                         int stop);

/* `…`: the text up to the closing backquote with \$ \` \\ (and \" inside
 * double quotes) unescaped, parsed as a command list of its own. */
static box_err
lex_backquote(sh_lex *lx, plist *pl, bool in_dq)
{
    uint32_t line = lx->lx_line;
    box_buf txt;
    box_buf_init(&txt, SH_MAX_INPUT);
    box_err rv = BOX_OK;
    advc(lx); // `
    for (;;) {
        int c = peekc(lx, 0);
        if (c < 0) {
            rv = sh_diag_set(lx->lx_diag, BOX_EPARSE, line,
                             "unexpected EOF while looking for matching ``'");
            goto out;
        }
        if (c == '`') {
            advc(lx);
            break;
        }
        if (c == '\\') {
            int n = peekc(lx, 1);
            if (n == '$' || n == '`' || n == '\\' || (in_dq && n == '"')) {
                advc(lx);
                c = n;
            }
        }
        advc(lx);
        if ((rv = lit_putc(lx, &txt, (char)c)) != BOX_OK)
            goto out;
    }
    if ((rv = enter(lx)) != BOX_OK)
        goto out;
    sh_lex sub;
    sh_lex_init(&sub, txt.b_data ? txt.b_data : "", txt.b_len, line, true,
                lx->lx_arena, lx->lx_diag, lx->lx_depth, lx->lx_sub,
                lx->lx_subctx);
    sub.lx_extglob = lx->lx_extglob;
    sh_node *body = NULL;
    rv = lx->lx_sub(lx->lx_subctx, &sub, SH_SUB_TEXT, &body);
    leave(lx);
    if (rv != BOX_OK)
        goto out;
    sh_wpart *p = new_part(lx, pl, SH_WP_CMDSUB, line);
    if (p == NULL) {
        rv = oom(lx);
        goto out;
    }
    p->u.cmdsub.body = body;
    p->u.cmdsub.backquote = true;
out:
    box_buf_reset(&txt);
    return rv;
}

/* Whether the text at the current position opens bash's process
 * substitution, `<(` or `>(`, which an unquoted word takes as a part
 * (even in its middle: `a<(x)` is one word). */
static bool
at_procsub(sh_lex *lx, lmode mode)
{
    int c = peekc(lx, 0);
    return mode == LM_WORD && (c == '<' || c == '>') && peekc(lx, 1) == '(';
}

/* The command list of $( … ), <( … ) or >( … ) after its `(`, up to
 * and past the `)`, parsed by the parser (lx_sub). */
static box_err
lex_paren_body(sh_lex *lx, sh_node **body)
{
    box_err rv = enter(lx);
    if (rv != BOX_OK)
        return rv;
    lx->lx_level++;
    rv = lx->lx_sub(lx->lx_subctx, lx, SH_SUB_PAREN, body);
    lx->lx_level--;
    leave(lx);
    // Bodies still pending from inside now wait for our newline.
    for (sh_pending_hd *ph = lx->lx_hd_head; ph; ph = ph->ph_next)
        if (ph->ph_level > lx->lx_level)
            ph->ph_level = lx->lx_level;
    return rv;
}

/* At `<(` or `>(`: the list up to the matching `)`, as for `$(`. */
static box_err
lex_procsub(sh_lex *lx, plist *pl)
{
    uint32_t line = lx->lx_line;
    bool out = peekc(lx, 0) == '>';
    advc(lx); // < or >
    advc(lx); // (
    sh_node *body = NULL;
    box_err rv = lex_paren_body(lx, &body);
    if (rv != BOX_OK)
        return rv;
    sh_wpart *p = new_part(lx, pl, SH_WP_PROCSUB, line);
    if (p == NULL)
        return oom(lx);
    p->u.procsub.body = body;
    p->u.procsub.out = out;
    return BOX_OK;
}

/* After `$((`: arithmetic up to the matching `))`. Returns BOX_OK with
 * *is_arith false (position restored) when the parentheses close as
 * `) …)`, i.e. the text is a command substitution of a subshell. */
static box_err
lex_arith(sh_lex *lx, plist *pl, uint32_t line, bool *is_arith)
{
    size_t save_pos = lx->lx_pos;
    uint32_t save_line = lx->lx_line;
    unsigned depth = 0;
    *is_arith = false;
    for (;;) {
        int c = peekc(lx, 0);
        if (c < 0)
            return sh_diag_set(lx->lx_diag, BOX_EPARSE, line,
                               "unexpected EOF while looking for matching "
                               "`)'");
        if (c == '(') {
            depth++;
        } else if (c == ')') {
            if (depth == 0) {
                if (peekc(lx, 1) != ')') {
                    lx->lx_pos = save_pos;
                    lx->lx_line = save_line;
                    return BOX_OK;
                }
                size_t end = lx->lx_pos;
                advc(lx);
                advc(lx);
                *is_arith = true;
                return add_text(lx, pl, SH_WP_ARITH, line,
                                lx->lx_src + save_pos, end - save_pos);
            }
            depth--;
        }
        advc(lx);
    }
}

box_err
sh_lex_dparen(sh_lex *lx, sh_word **out)
{
    *out = NULL;
    if (peekc(lx, 0) != '(')
        return BOX_OK;
    uint32_t line = lx->lx_line;
    size_t start = lx->lx_pos;
    advc(lx);
    plist pl = {NULL, NULL};
    bool is_arith;
    box_err rv = lex_arith(lx, &pl, line, &is_arith);
    if (rv != BOX_OK || !is_arith) {
        lx->lx_pos = start;
        lx->lx_line = line;
        return rv;
    }
    sh_word *w = box_arena_zalloc(lx->lx_arena, sizeof(*w));
    if (w == NULL ||
        (w->w_raw = box_arena_strndup(lx->lx_arena, lx->lx_src + start - 1,
                                      lx->lx_pos - start + 1)) == NULL)
        return oom(lx);
    w->w_rawlen = lx->lx_pos - start + 1;
    w->w_parts = pl.head;
    w->w_line = line;
    *out = w;
    return BOX_OK;
}

static box_err
bad_subst(sh_lex *lx, size_t start, uint32_t line)
{
    size_t e = lx->lx_pos;
    while (e < lx->lx_len && lx->lx_src[e] != '}' && lx->lx_src[e] != '\n')
        e++;
    if (e == lx->lx_len && !lx->lx_final)
        lx->lx_hit_end = true; // the quoted text may still grow
    if (e < lx->lx_len && lx->lx_src[e] == '}')
        e++;
    int n = (int)(e - start > 100 ? 100 : e - start);
    return sh_diag_set(lx->lx_diag, BOX_EPARSE, line, "%.*s: bad substitution",
                       n, lx->lx_src + start);
}

/* A parameter name at the current position: name, digits (braced) or one
 * digit (unbraced), or a special character. *n is 0 when there is none. */
static void
scan_name(sh_lex *lx, bool braced, size_t *n)
{
    int c = peekc(lx, 0);
    size_t i = 0;
    if (c >= 0 && is_name_start(c)) {
        while ((c = peekc(lx, i)) >= 0 && is_name_char(c))
            i++;
    } else if (c >= 0 && is_digit(c)) {
        i = 1;
        if (braced)
            while ((c = peekc(lx, i)) >= 0 && is_digit(c))
                i++;
    } else if (c >= 0 && is_special_param(c)) {
        i = 1;
    }
    *n = i;
}

/* ---- array subscripts ---- */

size_t
sh_lex_bracket_end(const char *s, size_t n)
{
    unsigned depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '\\' && i + 1 < n) {
            i++;
        } else if (c == '\'' || c == '"') {
            // A quoted `]` does not close; `\"` inside "…" does not end it.
            for (i++; i < n && s[i] != c; i++)
                if (c == '"' && s[i] == '\\' && i + 1 < n)
                    i++;
            if (i >= n)
                return n;
        } else if (c == '[') {
            depth++;
        } else if (c == ']') {
            if (depth <= 1)
                return depth == 1 ? i : n;
            depth--;
        }
    }
    return n;
}

box_err
sh_lex_subword(sh_lex *lx, const char *text, size_t len, uint32_t line,
               bool value, sh_word **out)
{
    sh_word *w = box_arena_zalloc(lx->lx_arena, sizeof(*w));
    if (w == NULL)
        return oom(lx);
    w->w_line = line;
    w->w_raw = box_arena_strndup(lx->lx_arena, text, len);
    w->w_rawlen = len;
    if (w->w_raw == NULL)
        return oom(lx);
    sh_lex sub;
    sh_lex_init(&sub, w->w_raw, len, line, true, lx->lx_arena, lx->lx_diag,
                lx->lx_depth, lx->lx_sub, lx->lx_subctx);
    sub.lx_extglob = lx->lx_extglob;
    plist pl = {NULL, NULL};
    box_err rv = enter(lx);
    if (rv != BOX_OK)
        return rv;
    rv = lex_parts(&sub, value ? LM_WORD : LM_SUB, &pl, 0, '}');
    leave(lx);
    if (rv != BOX_OK)
        return rv;
    if (sub.lx_pos < len) // a value is one word: a blank in it is quoted
        return sh_diag_set(lx->lx_diag, BOX_EPARSE, line,
                           "syntax error near unexpected token `%.*s'",
                           (int)(len - sub.lx_pos > 20 ? 20 : len - sub.lx_pos),
                           text + sub.lx_pos);
    w->w_parts = pl.head;
    *out = w;
    return BOX_OK;
}

static box_err bad_subst(sh_lex *lx, size_t start, uint32_t line);

/* After a name inside ${…} (begun at start), at `[`: the subscript up
 * to its `]`, which must come before the `}` (bash: bad substitution). */
static box_err
lex_subscript(sh_lex *lx, size_t start, uint32_t line, sh_word **out)
{
    const char *s = lx->lx_src + lx->lx_pos;
    size_t n = lx->lx_len - lx->lx_pos;
    size_t e = sh_lex_bracket_end(s, n);
    const char *brace = memchr(s, '}', n);
    if (e == n && !lx->lx_final)
        lx->lx_hit_end = true; // the `]` may come with more text
    if (e == n || (brace != NULL && (size_t)(brace - s) < e &&
                   memchr(s, '$', (size_t)(brace - s)) == NULL))
        return bad_subst(lx, start, line);
    box_err rv = sh_lex_subword(lx, s + 1, e - 1, line, false, out);
    if (rv != BOX_OK)
        return rv;
    for (size_t i = 0; i <= e; i++)
        advc(lx);
    return BOX_OK;
}

/* A subscript that is `@` or `*` alone. */
static bool
sub_is_all(const sh_word *w)
{
    const sh_wpart *p = w != NULL ? w->w_parts : NULL;
    return p != NULL && p->wp_next == NULL && p->wp_kind == SH_WP_LIT &&
           p->u.text.len == 1 &&
           (p->u.text.s[0] == '@' || p->u.text.s[0] == '*');
}

/* The argument word of a ${x op …} up to `}` or stop (not consumed);
 * pat: a pattern or replacement, where `'` quotes even inside "…". */
static box_err
lex_arg(sh_lex *lx, bool in_dq, bool pat, int stop, sh_word **out)
{
    sh_word *arg = box_arena_zalloc(lx->lx_arena, sizeof(*arg));
    if (arg == NULL)
        return oom(lx);
    size_t astart = lx->lx_pos;
    arg->w_line = lx->lx_line;
    plist apl = {NULL, NULL};
    box_err rv;
    if ((rv = enter(lx)) != BOX_OK)
        return rv;
    rv = lex_parts(lx,
                   !in_dq ? LM_ARG
                   : pat  ? LM_PAT_DQ
                          : LM_ARG_DQ,
                   &apl, astart, stop);
    leave(lx);
    if (rv != BOX_OK)
        return rv;
    arg->w_parts = apl.head;
    arg->w_rawlen = lx->lx_pos - astart;
    arg->w_raw =
        box_arena_strndup(lx->lx_arena, lx->lx_src + astart, arg->w_rawlen);
    if (arg->w_raw == NULL)
        return oom(lx);
    *out = arg;
    return BOX_OK;
}

/* A word of no parts whose text is src[start, start + n). */
static box_err
raw_word(sh_lex *lx, size_t start, size_t n, sh_word **out)
{
    sh_word *w = box_arena_zalloc(lx->lx_arena, sizeof(*w));
    if (w == NULL)
        return oom(lx);
    w->w_line = lx->lx_line;
    w->w_rawlen = n;
    w->w_raw = box_arena_strndup(lx->lx_arena, lx->lx_src + start, n);
    if (w->w_raw == NULL)
        return oom(lx);
    *out = w;
    return BOX_OK;
}

/* The operators of ${name op …} spelled by fixed text, longest first
 * where one is a prefix of another. */
static const struct {
    const char *po_text;
    sh_param_op po_op;
} param_ops[] = {
    {":-", SH_PO_CDEFAULT}, {":=", SH_PO_CASSIGN},  {":?", SH_PO_CERROR},
    {":+", SH_PO_CALT},     {"//", SH_PO_REPL_ALL}, {"/#", SH_PO_REPL_PRE},
    {"/%", SH_PO_REPL_SUF}, {"/", SH_PO_REPL},      {"-", SH_PO_DEFAULT},
    {"=", SH_PO_ASSIGN},    {"?", SH_PO_ERROR},     {"+", SH_PO_ALT},
    {"%%", SH_PO_RLSUFFIX}, {"%", SH_PO_RSUFFIX},   {"##", SH_PO_RLPREFIX},
    {"#", SH_PO_RPREFIX},   {"^^", SH_PO_UPPER},    {"^", SH_PO_UPPER1},
    {",,", SH_PO_LOWER},    {",", SH_PO_LOWER1},
};

/* The operator after `${name`: *op, and how many bytes it takes (0 when
 * the text starts no operator: a bad substitution). */
static size_t
scan_op(sh_lex *lx, sh_param_op *op, char *xform)
{
    int c = peekc(lx, 0), c1 = peekc(lx, 1);
    for (size_t i = 0; i < sizeof param_ops / sizeof param_ops[0]; i++) {
        const char *t = param_ops[i].po_text;
        if (c == t[0] && (t[1] == '\0' || c1 == t[1])) {
            *op = param_ops[i].po_op;
            return strlen(t);
        }
    }
    if (c == ':') { // ${x:off…}; ${x:} is bad, as in bash
        *op = SH_PO_SUBSTR;
        return c1 == '}' ? 0 : 1;
    }
    // ${x@C}: bash 5.2's transformations; each ends the expansion. Any
    // other text up to `}` is a bad substitution only when it is
    // expanded with x set (bash), so it is xform 0 here, not an error.
    if (c != '@')
        return 0;
    size_t k = 1;
    int ck;
    while ((ck = peekc(lx, k)) >= 0 && ck != '}' && ck != '\n')
        k++;
    if (ck == '\n')
        return 0;
    // At the end of the text: the caller reports the missing `}`.
    *op = SH_PO_XFORM;
    *xform = k == 2 && strchr("QEPAKaUuLk", c1) != NULL ? (char)c1 : '\0';
    return k;
}

/* ${…} after the `${`: `#` or `!`, name, optional operator and its
 * argument words. */
static box_err
lex_braced(sh_lex *lx, plist *pl, size_t start, uint32_t line, bool in_dq)
{
    sh_param_op op = SH_PO_NONE;
    bool indirect = false;
    char xform = 0;
    sh_word *arg = NULL, *arg2 = NULL;
    box_err rv;
    int c = peekc(lx, 0);
    if (c == '#' || c == '!') {
        int c1 = peekc(lx, 1);
        // After `!`, bash's VALID_INDIR_PARAM: ${!-x} is $! with a default.
        if (c1 >= 0 && c1 != '}' &&
            (is_name_char(c1) ||
             (c == '#' ? is_special_param(c1) : strchr("#?@*", c1) != NULL))) {
            if (c == '#')
                op = SH_PO_LENGTH;
            else
                indirect = true;
            advc(lx);
        }
    }
    size_t n;
    scan_name(lx, true, &n);
    if (n == 0) {
        if (peekc(lx, 0) < 0)
            goto eof;
        return bad_subst(lx, start, line);
    }
    const char *name = lx->lx_src + lx->lx_pos;
    for (size_t i = 0; i < n; i++)
        advc(lx);
    c = peekc(lx, 0);
    if (c < 0)
        goto eof;
    sh_word *sub = NULL;
    if (c == '[' && is_name_start((unsigned char)name[0])) {
        if ((rv = lex_subscript(lx, start, line, &sub)) != BOX_OK)
            return rv;
        if ((c = peekc(lx, 0)) < 0)
            goto eof;
    }
    if (indirect && sub == NULL && is_name_start((unsigned char)name[0]) &&
        (c == '*' || c == '@') && peekc(lx, 1) == '}') {
        // ${!prefix*} ${!prefix@}: names, not an indirection.
        indirect = false;
        op = SH_PO_NAMES;
        xform = (char)c;
        advc(lx);
    } else if (indirect && sub_is_all(sub) && c == '}') {
        // ${!a[@]} ${!a[*]}: the keys, not an indirection.
        indirect = false;
        op = SH_PO_KEYS;
    } else if (op == SH_PO_LENGTH) {
        if (c != '}')
            return bad_subst(lx, start, line);
    } else if (c != '}') {
        size_t k = scan_op(lx, &op, &xform);
        if (k == 0)
            return bad_subst(lx, start, line);
        for (size_t i = 0; i < k; i++)
            advc(lx);
    }
    switch (op) {
    case SH_PO_XFORM:
        // A bad transformation keeps its text, ${x@…}, for the message.
        if (peekc(lx, 0) != '}')
            goto eof;
        if (xform == '\0' &&
            (rv = raw_word(lx, start, lx->lx_pos + 1 - start, &arg)) != BOX_OK)
            return rv;
        break;
    case SH_PO_NONE:
    case SH_PO_LENGTH:
    case SH_PO_NAMES:
    case SH_PO_KEYS:
        break;
    case SH_PO_SUBSTR:
    case SH_PO_REPL:
    case SH_PO_REPL_ALL:
    case SH_PO_REPL_PRE:
    case SH_PO_REPL_SUF: {
        int sep = op == SH_PO_SUBSTR ? ':' : '/';
        bool pat = op != SH_PO_SUBSTR;
        if ((rv = lex_arg(lx, in_dq, pat, sep, &arg)) != BOX_OK)
            return rv;
        if (peekc(lx, 0) == sep) {
            advc(lx);
            if ((rv = lex_arg(lx, in_dq, pat, '}', &arg2)) != BOX_OK)
                return rv;
        }
        break;
    }
    default:
        if ((rv =
                 lex_arg(lx, in_dq, op >= SH_PO_RSUFFIX && op <= SH_PO_RLPREFIX,
                         '}', &arg)) != BOX_OK)
            return rv;
        break;
    }
    if (peekc(lx, 0) != '}')
        goto eof;
    advc(lx); // }
    char *nm = box_arena_strndup(lx->lx_arena, name, n);
    sh_wpart *p = nm ? new_part(lx, pl, SH_WP_PARAM, line) : NULL;
    if (p == NULL)
        return oom(lx);
    p->u.param.name = nm;
    p->u.param.len = n;
    p->u.param.op = op;
    p->u.param.braced = true;
    p->u.param.arg = arg;
    p->u.param.arg2 = arg2;
    p->u.param.xform = xform;
    p->u.param.indirect = indirect;
    p->u.param.sub = sub;
    return BOX_OK;
eof:
    return sh_diag_set(lx->lx_diag, BOX_EPARSE, line,
                       "unexpected EOF while looking for matching `}'");
}

/* After `$`, at `'`: an ANSI-C quoted string, one SQUOTE part holding
 * the decoded text. */
static box_err
lex_ansic(sh_lex *lx, plist *pl, uint32_t line)
{
    advc(lx); // '
    size_t s = lx->lx_pos;
    for (;;) {
        int q = peekc(lx, 0);
        if (q < 0)
            return sh_diag_set(lx->lx_diag, BOX_EPARSE, line,
                               "unterminated quoted string");
        if (q == '\'')
            break;
        if (q == '\\' && peekc(lx, 1) >= 0)
            advc(lx);
        advc(lx);
    }
    size_t n = lx->lx_pos - s;
    advc(lx); // '
    char *d = box_arena_alloc(lx->lx_arena, n + 1);
    sh_wpart *p = d ? new_part(lx, pl, SH_WP_SQUOTE, line) : NULL;
    if (p == NULL)
        return oom(lx);
    p->u.text.s = d;
    p->u.text.len = sh_ansic_decode(lx->lx_src + s, n, d);
    return BOX_OK;
}

/* After `$`, at `[`: bash's obsolete $[ expr ], arithmetic up to the
 * matching `]`. */
static box_err
lex_brackets(sh_lex *lx, plist *pl, uint32_t line)
{
    advc(lx); // [
    size_t s = lx->lx_pos;
    unsigned depth = 0;
    for (;;) {
        int c = peekc(lx, 0);
        if (c < 0)
            return sh_diag_set(lx->lx_diag, BOX_EPARSE, line,
                               "unexpected EOF while looking for matching "
                               "`]'");
        if (c == '[')
            depth++;
        else if (c == ']' && depth-- == 0)
            break;
        advc(lx);
    }
    size_t e = lx->lx_pos;
    advc(lx); // ]
    return add_text(lx, pl, SH_WP_ARITH, line, lx->lx_src + s, e - s);
}

/* At `$`: a parameter, command substitution or arithmetic, else a plain
 * `$` (appended to lit). quotes: $'…' and $"…" count here (outside
 * "…", and in the word of a ${x op …} inside it, as in bash 5.2). */
static box_err
lex_dollar(sh_lex *lx, plist *pl, box_buf *lit, uint32_t *litline, bool in_dq,
           bool quotes)
{
    uint32_t line = lx->lx_line;
    size_t start = lx->lx_pos;
    int c = peekc(lx, 1);
    box_err rv;
    bool quote = quotes && (c == '\'' || c == '"');
    if (c == '(' || c == '{' || c == '[' || quote ||
        (c >= 0 && (is_name_start(c) || is_digit(c) || is_special_param(c)))) {
        if ((rv = flush_lit(lx, pl, lit, *litline)) != BOX_OK)
            return rv;
    } else {
        advc(lx);
        if (lit->b_len == 0)
            *litline = line;
        return lit_putc(lx, lit, '$');
    }
    advc(lx); // $
    if (c == '"')
        return BOX_OK; // $"…" is "…" (no translations here)
    if (c == '\'')
        return lex_ansic(lx, pl, line);
    if (c == '[')
        return lex_brackets(lx, pl, line);
    if (c == '(') {
        advc(lx); // (
        if (peekc(lx, 0) == '(') {
            bool is_arith;
            advc(lx);
            if ((rv = lex_arith(lx, pl, line, &is_arith)) != BOX_OK || is_arith)
                return rv;
            // `$( (…) …)`: back to just after `$(`.
            lx->lx_pos = start + 2;
        }
        sh_node *body = NULL;
        if ((rv = lex_paren_body(lx, &body)) != BOX_OK)
            return rv;
        sh_wpart *p = new_part(lx, pl, SH_WP_CMDSUB, line);
        if (p == NULL)
            return oom(lx);
        p->u.cmdsub.body = body;
        return BOX_OK;
    }
    if (c == '{') {
        advc(lx);
        if ((rv = enter(lx)) != BOX_OK)
            return rv;
        rv = lex_braced(lx, pl, start, line, in_dq);
        leave(lx);
        return rv;
    }
    size_t n;
    scan_name(lx, false, &n);
    char *nm = box_arena_strndup(lx->lx_arena, lx->lx_src + lx->lx_pos, n);
    sh_wpart *p = nm ? new_part(lx, pl, SH_WP_PARAM, line) : NULL;
    if (p == NULL)
        return oom(lx);
    for (size_t i = 0; i < n; i++)
        advc(lx);
    p->u.param.name = nm;
    p->u.param.len = n;
    return BOX_OK;
}

/* `~prefix` at the start of a word (the prefix is plain characters up to
 * `/` or the end of the word); false when it is not a tilde prefix. */
static bool
scan_tilde(sh_lex *lx, lmode mode, size_t *n)
{
    size_t i = 1;
    for (;;) {
        int c = peekc(lx, i);
        if (c < 0 || c == '/' || (unquoted_word(mode) && is_meta(c)) ||
            (mode == LM_ARG && c == '}'))
            break;
        if (c == '\'' || c == '"' || c == '\\' || c == '$' || c == '`' ||
            c == '}' || c == '{')
            return false;
        i++;
    }
    *n = i - 1;
    return true;
}

/*
 * The parts of a word-like text, up to what ends the mode (not consumed).
 * wstart is where the word began (for the tilde rule). stop is a second
 * byte that ends an LM_ARG/LM_ARG_DQ text besides `}` (`:` after the
 * offset of ${x:off:len}, `/` after the pattern of ${x/p/r}); `\stop`
 * keeps it in the text.
 */
static box_err
lex_parts(sh_lex *lx, lmode mode, plist *pl, size_t wstart, int stop)
{
    box_buf lit;
    box_buf_init(&lit, SH_MAX_INPUT);
    uint32_t litline = lx->lx_line;
    box_err rv = BOX_OK;
    bool dq_like = mode == LM_DQ || mode == LM_HEREDOC;
    unsigned parens = 0; // LM_CPAT, LM_CRE: open ( in the word
    for (;;) {
        int c = peekc(lx, 0);
        if (c < 0) {
            if (parens > 0)
                rv = sh_diag_set(lx->lx_diag, BOX_EPARSE, lx->lx_line,
                                 "unexpected EOF while looking for "
                                 "matching `)'");
            if (rv != BOX_OK)
                goto out;
            break;
        }
        if (at_procsub(lx, mode)) {
            if ((rv = flush_lit(lx, pl, &lit, litline)) != BOX_OK ||
                (rv = lex_procsub(lx, pl)) != BOX_OK)
                goto out;
            continue;
        }
        if (unquoted_word(mode) && is_meta(c)) {
            bool keep = mode == LM_WORD && lx->lx_pos < lx->lx_keep_to &&
                        lx->lx_level == lx->lx_keep_level;
            // With extglob a plain word keeps the groups a [[ pattern does.
            lmode km = mode == LM_WORD && lx->lx_extglob ? LM_CPAT : mode;
            if (!keep &&
                (km == LM_WORD || !cond_keeps(lx, km, wstart, c, &parens)))
                break;
            if (lit.b_len == 0)
                litline = lx->lx_line;
            advc(lx);
            if ((rv = lit_putc(lx, &lit, (char)c)) != BOX_OK)
                goto out;
            continue;
        }
        if ((mode == LM_ARG || arg_dq(mode)) && (c == '}' || c == stop))
            break;
        if (mode == LM_DQ && c == '"')
            break;
        if (c == '\\') {
            int n = peekc(lx, 1);
            if (n == '\n') { // line continuation
                advc(lx);
                advc(lx);
                continue;
            }
            if (n < 0) {
                if (!lx->lx_final)
                    break;
                advc(lx);
                if (lit.b_len == 0)
                    litline = lx->lx_line;
                if ((rv = lit_putc(lx, &lit, '\\')) != BOX_OK)
                    goto out;
                continue;
            }
            if (dq_like || arg_dq(mode)) {
                bool esc =
                    n == '$' || n == '`' || n == '\\' ||
                    (mode == LM_DQ && n == '"') ||
                    (arg_dq(mode) && (n == '"' || n == '}' || n == stop));
                if (esc && arg_dq(mode)) {
                    // Quoted, as in bash: `\&` is a literal `&` in a
                    // replacement, `\\` a literal `\` in a pattern.
                    if ((rv = flush_lit(lx, pl, &lit, litline)) != BOX_OK)
                        goto out;
                    uint32_t eline = lx->lx_line;
                    advc(lx);
                    size_t at = lx->lx_pos;
                    advc(lx);
                    if ((rv = add_text(lx, pl, SH_WP_ESCAPED, eline,
                                       lx->lx_src + at, 1)) != BOX_OK)
                        goto out;
                    continue;
                }
                if (lit.b_len == 0)
                    litline = lx->lx_line;
                advc(lx);
                if (esc) {
                    advc(lx);
                    rv = lit_putc(lx, &lit, (char)n);
                } else {
                    rv = lit_putc(lx, &lit, '\\');
                }
                if (rv != BOX_OK)
                    goto out;
                continue;
            }
            if ((rv = flush_lit(lx, pl, &lit, litline)) != BOX_OK)
                goto out;
            uint32_t line = lx->lx_line;
            advc(lx);
            size_t at = lx->lx_pos;
            advc(lx);
            if ((rv = add_text(lx, pl, SH_WP_ESCAPED, line, lx->lx_src + at,
                               1)) != BOX_OK)
                goto out;
            continue;
        }
        if (c == '\'' && (unquoted_word(mode) || mode == LM_ARG ||
                          mode == LM_PAT_DQ || mode == LM_SUB)) {
            if ((rv = flush_lit(lx, pl, &lit, litline)) != BOX_OK)
                goto out;
            uint32_t line = lx->lx_line;
            advc(lx);
            size_t s = lx->lx_pos;
            for (;;) {
                int q = peekc(lx, 0);
                if (q < 0) {
                    rv = sh_diag_set(lx->lx_diag, BOX_EPARSE, line,
                                     "unterminated quoted string");
                    goto out;
                }
                if (q == '\'')
                    break;
                advc(lx);
            }
            size_t e = lx->lx_pos;
            advc(lx);
            if ((rv = add_text(lx, pl, SH_WP_SQUOTE, line, lx->lx_src + s,
                               e - s)) != BOX_OK)
                goto out;
            continue;
        }
        if (c == '"' && mode != LM_DQ && mode != LM_HEREDOC) {
            if ((rv = flush_lit(lx, pl, &lit, litline)) != BOX_OK)
                goto out;
            uint32_t line = lx->lx_line;
            advc(lx);
            plist dpl = {NULL, NULL};
            if ((rv = enter(lx)) != BOX_OK)
                goto out;
            rv = lex_parts(lx, LM_DQ, &dpl, lx->lx_pos, '}');
            leave(lx);
            if (rv != BOX_OK)
                goto out;
            if (peekc(lx, 0) != '"') {
                rv = sh_diag_set(lx->lx_diag, BOX_EPARSE, line,
                                 "unterminated quoted string");
                goto out;
            }
            advc(lx);
            sh_wpart *p = new_part(lx, pl, SH_WP_DQUOTE, line);
            if (p == NULL) {
                rv = oom(lx);
                goto out;
            }
            p->u.dq = dpl.head;
            continue;
        }
        if (c == '$') {
            rv = lex_dollar(lx, pl, &lit, &litline,
                            mode == LM_DQ || arg_dq(mode) || dq_like,
                            !dq_like && mode != LM_DQ);
            if (rv != BOX_OK)
                goto out;
            continue;
        }
        if (c == '`') {
            if ((rv = flush_lit(lx, pl, &lit, litline)) != BOX_OK)
                goto out;
            if ((rv = lex_backquote(lx, pl, mode == LM_DQ || arg_dq(mode))) !=
                BOX_OK)
                goto out;
            continue;
        }
        if (c == '~' && (unquoted_word(mode) || mode == LM_ARG) &&
            lx->lx_pos == wstart) {
            size_t n;
            if (scan_tilde(lx, mode, &n)) {
                uint32_t line = lx->lx_line;
                if ((rv = add_text(lx, pl, SH_WP_TILDE, line,
                                   lx->lx_src + lx->lx_pos + 1, n)) != BOX_OK)
                    goto out;
                for (size_t i = 0; i <= n; i++)
                    advc(lx);
                continue;
            }
        }
        if (lit.b_len == 0)
            litline = lx->lx_line;
        advc(lx);
        if ((rv = lit_putc(lx, &lit, (char)c)) != BOX_OK)
            goto out;
    }
    rv = flush_lit(lx, pl, &lit, litline);
out:
    box_buf_reset(&lit);
    return rv;
}

/* ---- here-documents ---- */

/* The delimiter after quote removal, and whether any of it was quoted. */
static box_err
heredoc_delim(sh_lex *lx, sh_redir *r)
{
    const sh_word *w = r->r_target;
    char *d = box_arena_alloc(lx->lx_arena, w->w_rawlen + 1);
    if (d == NULL)
        return oom(lx);
    size_t n = 0;
    bool quoted = false;
    char q = 0;
    for (size_t i = 0; i < w->w_rawlen; i++) {
        char c = w->w_raw[i];
        if (q == '\'') {
            if (c == '\'')
                q = 0;
            else
                d[n++] = c;
        } else if (c == '\\' && i + 1 < w->w_rawlen &&
                   (q == 0 || strchr("$`\"\\", w->w_raw[i + 1]) != NULL)) {
            quoted = true;
            d[n++] = w->w_raw[++i];
        } else if (q == '"') {
            if (c == '"')
                q = 0;
            else
                d[n++] = c;
        } else if (c == '\'' || c == '"') {
            quoted = true;
            q = c;
        } else {
            d[n++] = c;
        }
    }
    d[n] = '\0';
    r->r_delim = d;
    r->r_quoted = quoted;
    return BOX_OK;
}

box_err
sh_lex_push_heredoc(sh_lex *lx, sh_redir *r)
{
    box_err rv = heredoc_delim(lx, r);
    if (rv != BOX_OK)
        return rv;
    sh_pending_hd *ph = box_arena_zalloc(lx->lx_arena, sizeof(*ph));
    if (ph == NULL)
        return oom(lx);
    ph->ph_redir = r;
    ph->ph_level = lx->lx_level;
    if (lx->lx_hd_tail != NULL)
        lx->lx_hd_tail->ph_next = ph;
    else
        lx->lx_hd_head = ph;
    lx->lx_hd_tail = ph;
    return BOX_OK;
}

/* The text ended before r's delimiter. Text still to come may hold it:
 * ask for more (an error only to unwind). Else, as bash, the body is what
 * there was, with a warning (BOX_OK): the caller takes it. */
static box_err
heredoc_eof(sh_lex *lx, const sh_redir *r, uint32_t line0, size_t pos0)
{
    if (!lx->lx_final) {
        lx->lx_hit_end = true;
        return sh_diag_set(lx->lx_diag, BOX_EPARSE, r->r_line,
                           "here-document delimited by end-of-file "
                           "(wanted `%s')",
                           r->r_delim);
    }
    // bash names the line the body's first line follows (the line of the
    // `<<` for the first body) and, as "line N" of a script, the last line
    // there is.
    bool ends_nl = lx->lx_len > 0 && lx->lx_src[lx->lx_len - 1] == '\n';
    uint32_t last = ends_nl && lx->lx_line > 1 ? lx->lx_line - 1 : lx->lx_line;
    uint32_t at = line0;
    if (at > 1 && pos0 > 0 && lx->lx_src[pos0 - 1] == '\n')
        at--;
    sh_diag_warn(lx->lx_diag, last,
                 "here-document at line %u delimited by end-of-file "
                 "(wanted `%s')",
                 (unsigned)at, r->r_delim);
    return BOX_OK;
}

/* Reads the body of r from the current position (a line start). */
static box_err
read_heredoc(sh_lex *lx, sh_redir *r)
{
    bool strip = r->r_kind == SH_R_HEREDOC_STRIP;
    size_t dlen = strlen(r->r_delim);
    uint32_t line0 = lx->lx_line;
    size_t pos0 = lx->lx_pos;
    box_buf body;
    box_buf_init(&body, SH_MAX_INPUT);
    box_err rv = BOX_OK;
    for (;;) {
        if (lx->lx_pos >= lx->lx_len) {
            if ((rv = heredoc_eof(lx, r, line0, pos0)) != BOX_OK)
                goto out;
            break;
        }
        while (strip && lx->lx_pos < lx->lx_len &&
               lx->lx_src[lx->lx_pos] == '\t')
            lx->lx_pos++;
        const char *s = lx->lx_src + lx->lx_pos;
        const char *nl = memchr(s, '\n', lx->lx_len - lx->lx_pos);
        size_t n = nl ? (size_t)(nl - s) : lx->lx_len - lx->lx_pos;
        if (n == dlen && memcmp(s, r->r_delim, n) == 0) {
            if (nl == NULL && !lx->lx_final) {
                rv = heredoc_eof(lx, r, line0, pos0);
                goto out;
            }
            lx->lx_pos += n;
            advc(lx); // the newline, if any
            break;
        }
        if ((rv = box_buf_append(&body, s, nl ? n + 1 : n)) != BOX_OK) {
            rv = rv == BOX_ETOOBIG ? sh_diag_set(lx->lx_diag, BOX_ETOOBIG,
                                                 lx->lx_line, "input too large")
                                   : oom(lx);
            goto out;
        }
        lx->lx_pos += n;
        if (nl == NULL) {
            if ((rv = heredoc_eof(lx, r, line0, pos0)) != BOX_OK)
                goto out;
            // As bash reads it: a line, so it ends with a newline.
            if ((rv = box_buf_putc(&body, '\n')) != BOX_OK) {
                rv = rv == BOX_ETOOBIG
                         ? sh_diag_set(lx->lx_diag, BOX_ETOOBIG, lx->lx_line,
                                       "input too large")
                         : oom(lx);
                goto out;
            }
            break;
        }
        advc(lx);
    }
    sh_word *w = box_arena_zalloc(lx->lx_arena, sizeof(*w));
    const char *txt = body.b_data ? body.b_data : "";
    if (w == NULL ||
        (w->w_raw = box_arena_strndup(lx->lx_arena, txt, body.b_len)) == NULL) {
        rv = oom(lx);
        goto out;
    }
    w->w_rawlen = body.b_len;
    w->w_line = line0;
    plist pl = {NULL, NULL};
    if (r->r_quoted) {
        if (body.b_len > 0)
            rv = add_text(lx, &pl, SH_WP_LIT, line0, txt, body.b_len);
    } else {
        sh_lex sub;
        sh_lex_init(&sub, w->w_raw, w->w_rawlen, line0, true, lx->lx_arena,
                    lx->lx_diag, lx->lx_depth, lx->lx_sub, lx->lx_subctx);
        sub.lx_extglob = lx->lx_extglob;
        rv = lex_parts(&sub, LM_HEREDOC, &pl, 0, '}');
    }
    w->w_parts = pl.head;
    r->r_body = w;
out:
    box_buf_reset(&body);
    return rv;
}

/* At a newline: the bodies queued at this level or deeper, in order. */
static box_err
read_heredocs(sh_lex *lx)
{
    sh_pending_hd **pp = &lx->lx_hd_head, *last = NULL;
    while (*pp != NULL) {
        sh_pending_hd *ph = *pp;
        if (ph->ph_level < lx->lx_level) {
            last = ph;
            pp = &ph->ph_next;
            continue;
        }
        box_err rv = read_heredoc(lx, ph->ph_redir);
        if (rv != BOX_OK)
            return rv;
        *pp = ph->ph_next;
    }
    lx->lx_hd_tail = last;
    return BOX_OK;
}

/* ---- tokens ---- */

static const struct {
    const char *kw;
    sh_tk tk;
} sh_keywords[] = {
    {"if", SH_TK_IF},       {"then", SH_TK_THEN},   {"else", SH_TK_ELSE},
    {"elif", SH_TK_ELIF},   {"fi", SH_TK_FI},       {"do", SH_TK_DO},
    {"done", SH_TK_DONE},   {"case", SH_TK_CASE},   {"esac", SH_TK_ESAC},
    {"while", SH_TK_WHILE}, {"until", SH_TK_UNTIL}, {"for", SH_TK_FOR},
    {"in", SH_TK_IN},       {"{", SH_TK_LBRACE},    {"}", SH_TK_RBRACE},
    {"!", SH_TK_BANG},      {"[[", SH_TK_DLBRACK},  {"]]", SH_TK_DRBRACK},
};

sh_tk
sh_lex_keyword(const sh_token *tok)
{
    if (tok->t_kind != SH_TK_WORD)
        return tok->t_kind;
    const sh_wpart *p = tok->t_word->w_parts;
    if (p == NULL || p->wp_next != NULL || p->wp_kind != SH_WP_LIT)
        return SH_TK_WORD;
    for (size_t i = 0; i < sizeof(sh_keywords) / sizeof(sh_keywords[0]); i++)
        if (strlen(sh_keywords[i].kw) == p->u.text.len &&
            memcmp(sh_keywords[i].kw, p->u.text.s, p->u.text.len) == 0)
            return sh_keywords[i].tk;
    return SH_TK_WORD;
}

/* An operator starting at the current character; SH_TK_WORD if none. */
static sh_tk
lex_operator(sh_lex *lx)
{
    int c = peekc(lx, 0), c1, c2;
    sh_tk k = SH_TK_WORD;
    size_t n = 1;
    switch (c) {
    case ';':
        c1 = peekc(lx, 1);
        if (c1 == ';' && peekc(lx, 2) == '&') {
            k = SH_TK_DSEMIAND;
            n = 3;
        } else if (c1 == ';') {
            k = SH_TK_DSEMI;
            n = 2;
        } else if (c1 == '&') {
            k = SH_TK_SEMIAND;
            n = 2;
        } else {
            k = SH_TK_SEMI;
        }
        break;
    case '&':
        c1 = peekc(lx, 1);
        if (c1 == '&') {
            k = SH_TK_AND;
            n = 2;
        } else if (c1 == '>') {
            if (peekc(lx, 2) == '>') {
                k = SH_TK_ANDDGREAT;
                n = 3;
            } else {
                k = SH_TK_ANDGREAT;
                n = 2;
            }
        } else {
            k = SH_TK_AMP;
        }
        break;
    case '|':
        c1 = peekc(lx, 1);
        if (c1 == '|') {
            k = SH_TK_OR;
            n = 2;
        } else if (c1 == '&') {
            k = SH_TK_PIPEAND;
            n = 2;
        } else {
            k = SH_TK_PIPE;
        }
        break;
    case '(':
        k = SH_TK_LPAREN;
        break;
    case ')':
        k = SH_TK_RPAREN;
        break;
    case '<':
        c1 = peekc(lx, 1);
        if (c1 == '<') {
            c2 = peekc(lx, 2);
            if (c2 == '<') {
                k = SH_TK_TLESS;
                n = 3;
            } else if (c2 == '-') {
                k = SH_TK_DLESSDASH;
                n = 3;
            } else {
                k = SH_TK_DLESS;
                n = 2;
            }
        } else if (c1 == '&') {
            k = SH_TK_LESSAND;
            n = 2;
        } else if (c1 == '>') {
            k = SH_TK_LESSGREAT;
            n = 2;
        } else {
            k = SH_TK_LESS;
        }
        break;
    case '>':
        c1 = peekc(lx, 1);
        if (c1 == '>') {
            k = SH_TK_DGREAT;
            n = 2;
        } else if (c1 == '&') {
            k = SH_TK_GREATAND;
            n = 2;
        } else if (c1 == '|') {
            k = SH_TK_CLOBBER;
            n = 2;
        } else {
            k = SH_TK_GREAT;
        }
        break;
    default:
        return SH_TK_WORD;
    }
    for (size_t i = 0; i < n; i++)
        advc(lx);
    return k;
}

box_err
sh_lex_next(sh_lex *lx, sh_token *tok)
{
    box_err rv;
    memset(tok, 0, sizeof(*tok));
    for (;;) {
        int c = peekc(lx, 0);
        if (c == ' ' || c == '\t') {
            advc(lx);
        } else if (c == '\\' && peekc(lx, 1) == '\n') {
            advc(lx);
            advc(lx);
        } else if (c == '#') {
            while ((c = peekc(lx, 0)) >= 0 && c != '\n')
                advc(lx);
        } else {
            break;
        }
    }
    tok->t_line = lx->lx_line;
    tok->t_start = lx->lx_pos;
    int c = peekc(lx, 0);
    if (c < 0) {
        tok->t_kind = SH_TK_EOF;
        tok->t_end = lx->lx_pos;
        // Bodies never started: empty, each with its warning (final).
        if (lx->lx_hd_head != NULL)
            return read_heredocs(lx);
        return BOX_OK;
    }
    if (c == '\n') {
        advc(lx);
        tok->t_kind = SH_TK_NEWLINE;
        tok->t_end = lx->lx_pos;
        return read_heredocs(lx);
    }
    sh_lex_cond cond = lx->lx_cond;
    lx->lx_cond = SH_LEX_PLAIN;
    lmode mode = cond == SH_LEX_COND_RE    ? LM_CRE
                 : cond == SH_LEX_COND_PAT ? LM_CPAT
                                           : LM_WORD;
    // A regex may start with `(` or `|`: bash reads it as the word.
    sh_tk k = (mode == LM_CRE && (c == '(' || c == '|')) || at_procsub(lx, mode)
                  ? SH_TK_WORD
                  : lex_operator(lx);
    if (k != SH_TK_WORD) {
        tok->t_kind = k;
        tok->t_end = lx->lx_pos;
        return BOX_OK;
    }
    plist pl = {NULL, NULL};
    size_t start = lx->lx_pos;
    if ((rv = lex_parts(lx, mode, &pl, start, '}')) != BOX_OK)
        return rv;
    tok->t_end = lx->lx_pos;
    if (lx->lx_pos == start) {
        // Only a `\` at the end of text that is not final: wait for more.
        tok->t_kind = SH_TK_EOF;
        lx->lx_hit_end = true;
        return BOX_OK;
    }
    size_t rawlen = lx->lx_pos - start;
    const char *raw = lx->lx_src + start;
    c = peekc(lx, 0);
    if ((c == '<' || c == '>') && rawlen > 0 && rawlen <= 9) {
        size_t i = 0;
        int fd = 0;
        while (i < rawlen && is_digit((unsigned char)raw[i]))
            fd = fd * 10 + (raw[i++] - '0');
        if (i == rawlen) {
            tok->t_kind = SH_TK_IO_NUMBER;
            tok->t_fd = fd;
            return BOX_OK;
        }
    }
    sh_word *w = box_arena_zalloc(lx->lx_arena, sizeof(*w));
    if (w == NULL ||
        (w->w_raw = box_arena_strndup(lx->lx_arena, raw, rawlen)) == NULL)
        return oom(lx);
    w->w_rawlen = rawlen;
    w->w_parts = pl.head;
    w->w_line = tok->t_line;
    tok->t_kind = SH_TK_WORD;
    tok->t_word = w;
    return BOX_OK;
}

box_err
sh_lex_reread_assign(sh_lex *lx, sh_token *tok, bool *changed)
{
    *changed = false;
    const sh_word *w = tok->t_word;
    if (tok->t_kind != SH_TK_WORD || w == NULL || tok->t_end != lx->lx_pos)
        return BOX_OK;
    size_t nl = 0;
    while (nl < w->w_rawlen && w->w_raw[nl] != '[')
        nl++;
    if (nl == 0 || nl == w->w_rawlen || !is_name_start(w->w_raw[0]))
        return BOX_OK;
    for (size_t i = 1; i < nl; i++)
        if (!is_name_char(w->w_raw[i]))
            return BOX_OK;
    // Closed inside the word already: nothing to do.
    size_t open = w->w_rawlen - nl;
    if (sh_lex_bracket_end(w->w_raw + nl, open) != open)
        return BOX_OK;
    // Text not fed yet may close the bracket or bring the `=`: the parse
    // of a partial input must wait for it (as the whole text would read).
    size_t at = tok->t_start + nl, left = lx->lx_len - at;
    size_t e = sh_lex_bracket_end(lx->lx_src + at, left);
    size_t v = at + e + 1;
    if (e < left && v < lx->lx_len && lx->lx_src[v] == '+')
        v++;
    if (e >= left || v >= lx->lx_len) {
        if (!lx->lx_final)
            lx->lx_hit_end = true;
        return BOX_OK;
    }
    if (lx->lx_src[v] != '=')
        return BOX_OK;
    lx->lx_pos = tok->t_start;
    lx->lx_line = tok->t_line;
    lx->lx_keep_to = at + e;
    lx->lx_keep_level = lx->lx_level;
    box_err rv = sh_lex_next(lx, tok);
    lx->lx_keep_to = 0;
    *changed = rv == BOX_OK;
    return rv;
}
