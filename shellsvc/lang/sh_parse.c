/* SPDX-License-Identifier: Apache-2.0 */
/* Recursive-descent shell parser, one function per grammar rule. */
#include "sh_parse.h"

#include <stdio.h>
#include <string.h>

#include "box_alloc.h"

struct sh_parser {
    box_arena *ps_arena;
    sh_lex *ps_lx;   // the lexer being read (top, or a nested one)
    sh_lex ps_top;   // over ps_buf
    sh_token ps_tok; // the one lookahead token
    sh_diag ps_diag;
    unsigned ps_depth;
    char *ps_buf; // all text fed so far
    size_t ps_len, ps_cap;
    bool ps_final;
    bool ps_failed;
};

/* ---- helpers ---- */

static box_err
advance(sh_parser *p)
{
    return sh_lex_next(p->ps_lx, &p->ps_tok);
}

static box_err
oom(sh_parser *p)
{
    return sh_diag_set(&p->ps_diag, BOX_ENOMEM, p->ps_tok.t_line,
                       "out of memory");
}

/* A syntax error at the lookahead token. */
static box_err
unexpected(sh_parser *p)
{
    const sh_token *t = &p->ps_tok;
    if (t->t_kind == SH_TK_EOF)
        return sh_diag_set(&p->ps_diag, BOX_EPARSE, t->t_line,
                           "syntax error: unexpected end of file");
    if (t->t_kind == SH_TK_NEWLINE)
        return sh_diag_set(&p->ps_diag, BOX_EPARSE, t->t_line,
                           "syntax error near unexpected token `newline'");
    size_t n = t->t_end - t->t_start;
    return sh_diag_set(&p->ps_diag, BOX_EPARSE, t->t_line,
                       "syntax error near unexpected token `%.*s'",
                       (int)(n > 100 ? 100 : n), p->ps_lx->lx_src + t->t_start);
}

/* Where a command may start, a WORD spelling a reserved word becomes it. */
static sh_tk
cmd_pos(sh_parser *p)
{
    p->ps_tok.t_kind = sh_lex_keyword(&p->ps_tok);
    return p->ps_tok.t_kind;
}

/* Consumes the reserved word or operator k (in command position). */
static box_err
expect(sh_parser *p, sh_tk k)
{
    if (cmd_pos(p) != k)
        return unexpected(p);
    return advance(p);
}

/* linebreak -> { NEWLINE } */
static box_err
linebreak(sh_parser *p)
{
    box_err rv = BOX_OK;
    while (rv == BOX_OK && p->ps_tok.t_kind == SH_TK_NEWLINE)
        rv = advance(p);
    return rv;
}

static box_err
enter(sh_parser *p)
{
    if (++p->ps_depth > SH_MAX_DEPTH)
        return sh_diag_set(&p->ps_diag, BOX_ETOOBIG, p->ps_tok.t_line,
                           "maximum recursion depth exceeded");
    return BOX_OK;
}

static sh_node *
new_node(sh_parser *p, sh_node_kind k, uint32_t line)
{
    sh_node *n = box_arena_zalloc(p->ps_arena, sizeof(*n));
    if (n != NULL) {
        n->n_kind = k;
        n->n_line = line;
    }
    return n;
}

static bool
is_name(const char *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') ||
                    (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') ||
              (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
            return false;
    return true;
}

/* A word that is one unquoted literal with nothing else (a name). */
static bool
plain_word(const sh_word *w)
{
    const sh_wpart *wp = w->w_parts;
    return wp != NULL && wp->wp_next == NULL && wp->wp_kind == SH_WP_LIT;
}

/* The lookahead is the unquoted word kw (a bash word reserved only
 * where the parser looks for it: `time`, `select`, `-p`). */
static bool
tok_is(const sh_parser *p, const char *kw)
{
    const sh_word *w = p->ps_tok.t_word;
    size_t n = strlen(kw);
    return p->ps_tok.t_kind == SH_TK_WORD && w != NULL && plain_word(w) &&
           w->w_parts->u.text.len == n &&
           memcmp(w->w_parts->u.text.s, kw, n) == 0;
}

static bool
is_redir_tok(sh_tk k)
{
    return k == SH_TK_IO_NUMBER || (k >= SH_TK_LESS && k <= SH_TK_TLESS);
}

/* Tokens that end a compound_list (after promotion). */
static bool
is_list_end(sh_tk k)
{
    switch (k) {
    case SH_TK_EOF:
    case SH_TK_RPAREN:
    case SH_TK_DSEMI:
    case SH_TK_SEMIAND:
    case SH_TK_DSEMIAND:
    case SH_TK_THEN:
    case SH_TK_ELSE:
    case SH_TK_ELIF:
    case SH_TK_FI:
    case SH_TK_DO:
    case SH_TK_DONE:
    case SH_TK_ESAC:
    case SH_TK_RBRACE:
        return true;
    default:
        return false;
    }
}

static box_err parse_and_or(sh_parser *p, sh_node **out);
static box_err parse_compound_list(sh_parser *p, bool allow_empty,
                                   sh_node **out);
static box_err parse_command(sh_parser *p, sh_node **out);

/* ---- redirections and simple commands ---- */

/* redirect -> [IO_NUMBER] redir_op WORD */
static box_err
parse_redirect(sh_parser *p, sh_redir **out)
{
    box_err rv;
    sh_redir *r = box_arena_zalloc(p->ps_arena, sizeof(*r));
    if (r == NULL)
        return oom(p);
    r->r_fd = -1;
    r->r_line = p->ps_tok.t_line;
    if (p->ps_tok.t_kind == SH_TK_IO_NUMBER) {
        r->r_fd = p->ps_tok.t_fd;
        if ((rv = advance(p)) != BOX_OK)
            return rv;
    }
    switch (p->ps_tok.t_kind) {
    case SH_TK_LESS:
        r->r_kind = SH_R_IN;
        break;
    case SH_TK_GREAT:
        r->r_kind = SH_R_OUT;
        break;
    case SH_TK_DGREAT:
        r->r_kind = SH_R_APPEND;
        break;
    case SH_TK_CLOBBER:
        r->r_kind = SH_R_CLOBBER;
        break;
    case SH_TK_LESSGREAT:
        r->r_kind = SH_R_RDWR;
        break;
    case SH_TK_LESSAND:
        r->r_kind = SH_R_DUPIN;
        break;
    case SH_TK_GREATAND:
        r->r_kind = SH_R_DUPOUT;
        break;
    case SH_TK_DLESS:
        r->r_kind = SH_R_HEREDOC;
        break;
    case SH_TK_DLESSDASH:
        r->r_kind = SH_R_HEREDOC_STRIP;
        break;
    case SH_TK_ANDGREAT:
        r->r_kind = SH_R_BOTH;
        break;
    case SH_TK_ANDDGREAT:
        r->r_kind = SH_R_BOTH_APPEND;
        break;
    case SH_TK_TLESS:
        r->r_kind = SH_R_HERESTR;
        break;
    default:
        return unexpected(p);
    }
    if ((rv = advance(p)) != BOX_OK)
        return rv;
    if (p->ps_tok.t_kind != SH_TK_WORD) {
        if (p->ps_tok.t_kind == SH_TK_EOF && !p->ps_lx->lx_hit_end)
            p->ps_tok.t_kind = SH_TK_NEWLINE; // bash: `newline' at the end
        return unexpected(p);
    }
    r->r_target = p->ps_tok.t_word;
    if (r->r_kind == SH_R_HEREDOC || r->r_kind == SH_R_HEREDOC_STRIP) {
        // Queued before the next token: its newline reads the body.
        if ((rv = sh_lex_push_heredoc(p->ps_lx, r)) != BOX_OK)
            return rv;
    }
    *out = r;
    return advance(p);
}

static bool is_fd_var(const sh_word *w);

/* fdvar_redirect -> '{' NAME '}' redirect (bash; no space before the
 * operator): the lookahead is the operator, w the `{name}` word before
 * it. An IO_NUMBER there is no operator: `{fd}2>x` stays words. */
static box_err
parse_fdvar_redirect(sh_parser *p, const sh_word *w, sh_redir **out)
{
    const char *t = w->w_parts->u.text.s;
    size_t n = w->w_parts->u.text.len;
    char *name = box_arena_strndup(p->ps_arena, t + 1, n - 2);
    if (name == NULL)
        return oom(p);
    box_err rv = parse_redirect(p, out);
    if (rv == BOX_OK)
        (*out)->r_fdvar = name;
    return rv;
}

/* Whether the lookahead is a `{name}` word right before a redirection
 * operator (peeked in the text: the parser has one token of lookahead). */
static bool
at_fdvar(const sh_parser *p)
{
    const sh_token *t = &p->ps_tok;
    const sh_lex *lx = p->ps_lx;
    if (t->t_kind != SH_TK_WORD || t->t_word == NULL || !is_fd_var(t->t_word) ||
        t->t_end >= lx->lx_len)
        return false;
    char c = lx->lx_src[t->t_end];
    return c == '<' || c == '>';
}

/* redirect_list -> { redirect | fdvar_redirect } (after a compound) */
static box_err
parse_redirect_list(sh_parser *p, sh_redir **head)
{
    sh_redir **tail = head;
    for (;;) {
        box_err rv;
        if (at_fdvar(p)) {
            const sh_word *w = p->ps_tok.t_word;
            if ((rv = advance(p)) != BOX_OK ||
                (rv = parse_fdvar_redirect(p, w, tail)) != BOX_OK)
                return rv;
        } else if (is_redir_tok(p->ps_tok.t_kind)) {
            if ((rv = parse_redirect(p, tail)) != BOX_OK)
                return rv;
        } else {
            break;
        }
        tail = &(*tail)->r_next;
    }
    return BOX_OK;
}

/* An assignment to name[0..nl) (its value still to set); NULL on ENOMEM. */
static sh_assign *
new_assign(sh_parser *p, const char *name, size_t nl, bool append,
           uint32_t line)
{
    sh_assign *a = box_arena_zalloc(p->ps_arena, sizeof(*a));
    if (a == NULL ||
        (a->a_name = box_arena_strndup(p->ps_arena, name, nl)) == NULL)
        return NULL;
    a->a_namelen = nl;
    a->a_append = append;
    a->a_line = line;
    return a;
}

/*
 * NAME=value or NAME+=value as the first part of w; NULL (no error) when
 * w is not an assignment. A `~` right after `=` is a tilde prefix.
 */
static box_err try_subscript_assignment(sh_parser *p, const sh_word *w,
                                        sh_assign **out);

static box_err
try_assignment(sh_parser *p, const sh_word *w, sh_assign **out)
{
    *out = NULL;
    const sh_wpart *first = w->w_parts;
    if (first == NULL || first->wp_kind != SH_WP_LIT)
        return BOX_OK;
    {
        size_t k = 0;
        while (k < first->u.text.len && first->u.text.s[k] != '=' &&
               first->u.text.s[k] != '[')
            k++;
        if (k < first->u.text.len && first->u.text.s[k] == '[')
            return try_subscript_assignment(p, w, out);
    }
    const char *s = first->u.text.s;
    size_t n = first->u.text.len, i = 0;
    while (i < n && s[i] != '=')
        i++;
    if (i == n)
        return BOX_OK;
    bool append = i > 0 && s[i - 1] == '+';
    size_t nl = append ? i - 1 : i;
    if (!is_name(s, nl))
        return BOX_OK;
    sh_assign *a = new_assign(p, s, nl, append, w->w_line);
    sh_word *v = box_arena_zalloc(p->ps_arena, sizeof(*v));
    if (a == NULL || v == NULL)
        return oom(p);
    a->a_value = v;
    v->w_line = w->w_line;
    v->w_raw = w->w_raw + i + 1; // the spelling after `=`
    v->w_rawlen = w->w_rawlen - (i + 1);
    /* The value: the rest of the first part, then the other parts. */
    const char *rest = s + i + 1;
    size_t rlen = n - (i + 1);
    sh_wpart **tail = &v->w_parts;
    if (rlen > 0 && rest[0] == '~') {
        size_t j = 1;
        while (j < rlen && rest[j] != '/' && rest[j] != ':')
            j++;
        if (j < rlen || first->wp_next == NULL) {
            sh_wpart *t = box_arena_zalloc(p->ps_arena, sizeof(*t));
            if (t == NULL)
                return oom(p);
            t->wp_kind = SH_WP_TILDE;
            t->wp_line = first->wp_line;
            t->u.text.s = box_arena_strndup(p->ps_arena, rest + 1, j - 1);
            t->u.text.len = j - 1;
            if (t->u.text.s == NULL)
                return oom(p);
            *tail = t;
            tail = &t->wp_next;
            rest += j;
            rlen -= j;
        }
    }
    if (rlen > 0) {
        sh_wpart *l = box_arena_zalloc(p->ps_arena, sizeof(*l));
        if (l == NULL)
            return oom(p);
        *l = *first;
        l->wp_next = NULL;
        l->u.text.s = rest;
        l->u.text.len = rlen;
        *tail = l;
        tail = &l->wp_next;
    }
    *tail = first->wp_next;
    *out = a;
    return BOX_OK;
}

/*
 * The spelling `[sub]=value` or `[sub]+=value` at raw (a NAME[sub]=
 * assignment after its name, or an element of NAME=( … )): *sub and
 * *value lexed, or *value NULL (no error) when raw is not of that form.
 */
static box_err
split_subscript(sh_parser *p, const char *raw, size_t n, uint32_t line,
                sh_word **sub, sh_word **value, bool *append)
{
    *value = NULL;
    if (n == 0 || raw[0] != '[')
        return BOX_OK;
    size_t e = sh_lex_bracket_end(raw, n);
    if (e == n)
        return BOX_OK;
    size_t v = e + 1;
    *append = v < n && raw[v] == '+';
    if (*append)
        v++;
    if (v >= n || raw[v] != '=')
        return BOX_OK;
    box_err rv = sh_lex_subword(p->ps_lx, raw + 1, e - 1, line, false, sub);
    if (rv == BOX_OK)
        rv =
            sh_lex_subword(p->ps_lx, raw + v + 1, n - v - 1, line, true, value);
    return rv;
}

/* NAME[sub]=value, NAME[sub]+=value (bash arrays). */
static box_err
try_subscript_assignment(sh_parser *p, const sh_word *w, sh_assign **out)
{
    const char *raw = w->w_raw;
    size_t n = w->w_rawlen, nl = 0;
    while (nl < n && raw[nl] != '[')
        nl++;
    if (!is_name(raw, nl))
        return BOX_OK;
    sh_word *sub = NULL, *value = NULL;
    bool append = false;
    box_err rv =
        split_subscript(p, raw + nl, n - nl, w->w_line, &sub, &value, &append);
    if (rv != BOX_OK || value == NULL)
        return rv;
    sh_assign *a = new_assign(p, raw, nl, append, w->w_line);
    if (a == NULL)
        return oom(p);
    a->a_sub = sub;
    a->a_value = value;
    *out = a;
    return BOX_OK;
}

/* compound_assignment -> '(' { linebreak element } linebreak ')'
 * (at the `(` right after NAME= or NAME+=; a->a_elems gets the list) */
static box_err
parse_compound_assignment(sh_parser *p, sh_assign *a)
{
    box_err rv;
    sh_aelem **tail = &a->a_elems;
    a->a_compound = true;
    if ((rv = advance(p)) != BOX_OK)
        return rv;
    for (;;) {
        sh_tk k = p->ps_tok.t_kind;
        if (k == SH_TK_NEWLINE) {
            if ((rv = advance(p)) != BOX_OK)
                return rv;
            continue;
        }
        if (k == SH_TK_RPAREN)
            return advance(p);
        if (k != SH_TK_WORD &&
            !(k > SH_TK_TLESS && k < SH_TK_COUNT && p->ps_tok.t_word != NULL))
            return unexpected(p);
        sh_word *w = p->ps_tok.t_word;
        sh_aelem *el = box_arena_zalloc(p->ps_arena, sizeof(*el));
        if (el == NULL)
            return oom(p);
        if ((rv = split_subscript(p, w->w_raw, w->w_rawlen, w->w_line,
                                  &el->ae_sub, &el->ae_value,
                                  &el->ae_append)) != BOX_OK)
            return rv;
        if (el->ae_value == NULL) {
            el->ae_sub = NULL;
            el->ae_value = w;
        }
        *tail = el;
        tail = &el->ae_next;
        if ((rv = advance(p)) != BOX_OK)
            return rv;
    }
}

/* Builtins whose NAME=( … ) arguments are compound assignments (bash's
 * declaration builtins). */
static bool
is_decl_builtin(const sh_word *w)
{
    static const char *const names[] = {"declare", "typeset", "local",
                                        "readonly", "export"};
    if (w == NULL || !plain_word(w))
        return false;
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strlen(names[i]) == w->w_parts->u.text.len &&
            memcmp(names[i], w->w_parts->u.text.s, w->w_parts->u.text.len) == 0)
            return true;
    return false;
}

static bool
starts_compound(sh_tk k)
{
    return k == SH_TK_LBRACE || k == SH_TK_LPAREN || k == SH_TK_IF ||
           k == SH_TK_WHILE || k == SH_TK_UNTIL || k == SH_TK_FOR ||
           k == SH_TK_CASE || k == SH_TK_DLBRACK;
}

static box_err parse_compound(sh_parser *p, sh_node **out);

/* The rest of a function definition after its name (and `()`, when
 * `paren` says it is next): linebreak compound_command. */
static box_err
function_rest(sh_parser *p, sh_word *name, bool paren, sh_node **out)
{
    box_err rv;
    if (!plain_word(name))
        return unexpected(p);
    sh_node *n = new_node(p, SH_N_FUNC, name->w_line);
    if (n == NULL)
        return oom(p);
    n->u.func.name = name->w_parts->u.text.s;
    n->u.func.namelen = name->w_parts->u.text.len;
    if (paren) {
        if ((rv = advance(p)) != BOX_OK)
            return rv;
        if (p->ps_tok.t_kind != SH_TK_RPAREN)
            return unexpected(p);
        if ((rv = advance(p)) != BOX_OK)
            return rv;
    }
    if ((rv = linebreak(p)) != BOX_OK)
        return rv;
    if (!starts_compound(cmd_pos(p)))
        return unexpected(p);
    if ((rv = parse_compound(p, &n->u.func.body)) != BOX_OK)
        return rv;
    *out = n;
    return BOX_OK;
}

/* function_def -> NAME '(' ')' linebreak compound_command redirect_list
 * (called at the `(` after the name) */
static box_err
parse_function(sh_parser *p, sh_word *name, sh_node **out)
{
    return function_rest(p, name, true, out);
}

/* bash: `function NAME [()] compound_command` (at the word `function`). */
static box_err
parse_function_keyword(sh_parser *p, sh_node **out)
{
    box_err rv;
    if ((rv = advance(p)) != BOX_OK)
        return rv;
    if (p->ps_tok.t_kind != SH_TK_WORD || p->ps_tok.t_word == NULL)
        return unexpected(p);
    sh_word *name = p->ps_tok.t_word;
    if ((rv = advance(p)) != BOX_OK)
        return rv;
    // `function f ( cmd )` is a subshell body; only `( )` is the pair.
    bool paren = false;
    if (p->ps_tok.t_kind == SH_TK_LPAREN) {
        const sh_lex *lx = p->ps_lx;
        size_t i = p->ps_tok.t_end;
        while (i < lx->lx_len &&
               (lx->lx_src[i] == ' ' || lx->lx_src[i] == '\t'))
            i++;
        paren = i >= lx->lx_len || lx->lx_src[i] == ')';
    }
    return function_rest(p, name, paren, out);
}

/* The word `function`, unquoted, where a command starts. */
static bool
is_function_keyword(const sh_parser *p)
{
    const sh_word *w = p->ps_tok.t_word;
    return p->ps_tok.t_kind == SH_TK_WORD && w != NULL && plain_word(w) &&
           w->w_parts->u.text.len == 8 &&
           memcmp(w->w_parts->u.text.s, "function", 8) == 0;
}

/* bash's `{name}` right before a redirection operator (`{fd}>file`): the
 * shell picks a free fd and stores it in name. */
static bool
is_fd_var(const sh_word *w)
{
    if (!plain_word(w))
        return false;
    const char *t = w->w_parts->u.text.s;
    size_t n = w->w_parts->u.text.len;
    return n >= 3 && t[0] == '{' && t[n - 1] == '}' && is_name(t + 1, n - 2);
}

/* simple_command -> { assignment | redirect } [ WORD { WORD | redirect } ]
 * (or a function_def when the first WORD is followed by `(`) */
static box_err
parse_simple(sh_parser *p, sh_node **out)
{
    box_err rv;
    sh_node *n = new_node(p, SH_N_SIMPLE, p->ps_tok.t_line);
    if (n == NULL)
        return oom(p);
    sh_assign **atail = &n->u.simple.assigns;
    sh_word **wtail = &n->u.simple.words;
    sh_redir **rtail = &n->n_redirs;
    bool any = false;
    for (;;) {
        sh_tk k = p->ps_tok.t_kind;
        if (is_redir_tok(k)) {
            if ((rv = parse_redirect(p, rtail)) != BOX_OK)
                return rv;
            rtail = &(*rtail)->r_next;
        } else if (k == SH_TK_WORD || (k > SH_TK_TLESS && k < SH_TK_COUNT &&
                                       p->ps_tok.t_word != NULL)) {
            // In assignment position `a[x y]=v` is one word, as in bash.
            bool changed;
            if (n->u.simple.words == NULL &&
                (rv = sh_lex_reread_assign(p->ps_lx, &p->ps_tok, &changed)) !=
                    BOX_OK)
                return rv;
            sh_word *w = p->ps_tok.t_word;
            sh_assign *a = NULL;
            bool decl =
                n->u.simple.words != NULL && is_decl_builtin(n->u.simple.words);
            if ((n->u.simple.words == NULL || decl) &&
                (rv = try_assignment(p, w, &a)) != BOX_OK)
                return rv;
            size_t end = p->ps_tok.t_end;
            if ((rv = advance(p)) != BOX_OK)
                return rv;
            if (a == NULL && is_fd_var(w) && p->ps_tok.t_start == end &&
                is_redir_tok(p->ps_tok.t_kind) &&
                p->ps_tok.t_kind != SH_TK_IO_NUMBER) {
                if ((rv = parse_fdvar_redirect(p, w, rtail)) != BOX_OK)
                    return rv;
                rtail = &(*rtail)->r_next;
                any = true;
                continue;
            }
            bool compound = a != NULL && a->a_sub == NULL &&
                            p->ps_tok.t_kind == SH_TK_LPAREN &&
                            p->ps_tok.t_start == end &&
                            a->a_value->w_parts == NULL;
            if (compound && (rv = parse_compound_assignment(p, a)) != BOX_OK)
                return rv;
            if (decl) {
                // declare NAME=( … ): the word carries the assignment.
                if (compound)
                    w->w_assign = a;
                *wtail = w;
                wtail = &w->w_next;
            } else if (a != NULL) {
                *atail = a;
                atail = &a->a_next;
            } else {
                bool first = n->u.simple.words == NULL &&
                             n->u.simple.assigns == NULL && n->n_redirs == NULL;
                *wtail = w;
                wtail = &w->w_next;
                if (first && p->ps_tok.t_kind == SH_TK_LPAREN)
                    return parse_function(p, w, out);
            }
        } else {
            break;
        }
        any = true;
    }
    if (!any)
        return unexpected(p);
    *out = n;
    return BOX_OK;
}

/* ---- compound commands ---- */

/* brace_group -> '{' compound_list '}'
 * subshell    -> '(' compound_list ')' */
static box_err
parse_group(sh_parser *p, sh_node *n, sh_tk close)
{
    box_err rv;
    if ((rv = advance(p)) != BOX_OK ||
        (rv = parse_compound_list(p, false, &n->u.body)) != BOX_OK)
        return rv;
    return expect(p, close);
}

/* if_clause -> 'if' compound_list 'then' compound_list
 *              { 'elif' compound_list 'then' compound_list }
 *              [ 'else' compound_list ] 'fi' */
static box_err
parse_if(sh_parser *p, sh_node *n)
{
    box_err rv;
    sh_node *cur = n;
    for (;;) {
        if ((rv = advance(p)) != BOX_OK ||
            (rv = parse_compound_list(p, false, &cur->u.if_.cond)) != BOX_OK ||
            (rv = expect(p, SH_TK_THEN)) != BOX_OK ||
            (rv = parse_compound_list(p, false, &cur->u.if_.then)) != BOX_OK)
            return rv;
        if (cmd_pos(p) != SH_TK_ELIF)
            break;
        sh_node *e = new_node(p, SH_N_IF, p->ps_tok.t_line);
        if (e == NULL)
            return oom(p);
        cur->u.if_.else_ = e;
        cur = e;
    }
    if (cmd_pos(p) == SH_TK_ELSE) {
        if ((rv = advance(p)) != BOX_OK ||
            (rv = parse_compound_list(p, false, &cur->u.if_.else_)) != BOX_OK)
            return rv;
    }
    return expect(p, SH_TK_FI);
}

/* do_group -> 'do' compound_list 'done' */
static box_err
parse_do_group(sh_parser *p, sh_node **body)
{
    box_err rv;
    if ((rv = expect(p, SH_TK_DO)) != BOX_OK ||
        (rv = parse_compound_list(p, false, body)) != BOX_OK)
        return rv;
    return expect(p, SH_TK_DONE);
}

/* while_clause -> 'while' compound_list do_group
 * until_clause -> 'until' compound_list do_group */
static box_err
parse_loop(sh_parser *p, sh_node *n)
{
    box_err rv;
    if ((rv = advance(p)) != BOX_OK ||
        (rv = parse_compound_list(p, false, &n->u.loop.cond)) != BOX_OK)
        return rv;
    return parse_do_group(p, &n->u.loop.body);
}

/* for_clause -> 'for' NAME ( ';' linebreak
 *                          | linebreak [ 'in' { WORD } (';' | NEWLINE)
 *                                        linebreak ] ) for_body
 *             | for_arith */
/* for_body -> do_group | '{' compound_list '}'   (bash takes { … } after
 * a for header, both kinds; redirections after it are the for's) */
static box_err
parse_for_body(sh_parser *p, sh_node **body)
{
    if (cmd_pos(p) != SH_TK_LBRACE)
        return parse_do_group(p, body);
    sh_node *g = new_node(p, SH_N_GROUP, p->ps_tok.t_line);
    if (g == NULL)
        return oom(p);
    *body = g;
    return parse_group(p, g, SH_TK_RBRACE);
}

/* One part of a for (( ; ; )) header as a word of one arithmetic part
 * (NULL when it is only blanks). */
static box_err
for_arith_part(sh_parser *p, const sh_word *hdr, const char *s, size_t n,
               sh_word **out)
{
    *out = NULL;
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n'))
        i++;
    if (i == n)
        return BOX_OK;
    sh_word *w = box_arena_zalloc(p->ps_arena, sizeof(*w));
    sh_wpart *wp = box_arena_zalloc(p->ps_arena, sizeof(*wp));
    char *t = box_arena_strndup(p->ps_arena, s, n);
    if (w == NULL || wp == NULL || t == NULL)
        return oom(p);
    wp->wp_kind = SH_WP_ARITH;
    wp->wp_line = hdr->w_line;
    wp->u.text.s = t;
    wp->u.text.len = n;
    w->w_parts = wp;
    w->w_raw = t;
    w->w_rawlen = n;
    w->w_line = hdr->w_line;
    *out = w;
    return BOX_OK;
}

/*
 * for_arith -> 'for' '((' [expr] ';' [expr] ';' [expr] '))' [';']
 *              linebreak for_body                        (bash)
 * (called at the `(` after `for`; the header is split at the `;` outside
 * parentheses; hdr is the whole `(( … ))`)
 */
static box_err
parse_for_arith(sh_parser *p, sh_node *n, const sh_word *hdr)
{
    box_err rv;
    const char *s = hdr->w_parts->u.text.s;
    size_t len = hdr->w_parts->u.text.len, at[2], nsemi = 0;
    unsigned depth = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '(')
            depth++;
        else if (s[i] == ')' && depth > 0)
            depth--;
        else if (s[i] == ';' && depth == 0) {
            if (nsemi == 2)
                return sh_diag_set(&p->ps_diag, BOX_EPARSE, hdr->w_line,
                                   "syntax error: `;' unexpected");
            at[nsemi++] = i;
        }
    }
    if (nsemi != 2)
        return sh_diag_set(&p->ps_diag, BOX_EPARSE, hdr->w_line,
                           "syntax error: arithmetic expression required");
    n->n_kind = SH_N_FOR_ARITH;
    if ((rv = for_arith_part(p, hdr, s, at[0], &n->u.for_arith.init)) !=
            BOX_OK ||
        (rv = for_arith_part(p, hdr, s + at[0] + 1, at[1] - at[0] - 1,
                             &n->u.for_arith.cond)) != BOX_OK ||
        (rv = for_arith_part(p, hdr, s + at[1] + 1, len - at[1] - 1,
                             &n->u.for_arith.step)) != BOX_OK)
        return rv;
    if ((rv = advance(p)) != BOX_OK)
        return rv;
    if (p->ps_tok.t_kind == SH_TK_SEMI && (rv = advance(p)) != BOX_OK)
        return rv;
    if ((rv = linebreak(p)) != BOX_OK)
        return rv;
    return parse_for_body(p, &n->u.for_arith.body);
}

static box_err
parse_for(sh_parser *p, sh_node *n)
{
    box_err rv;
    if ((rv = advance(p)) != BOX_OK)
        return rv;
    if (p->ps_tok.t_kind == SH_TK_LPAREN) {
        sh_word *hdr = NULL;
        if ((rv = sh_lex_dparen(p->ps_lx, &hdr)) != BOX_OK)
            return rv;
        if (hdr != NULL)
            return parse_for_arith(p, n, hdr);
    }
    if (p->ps_tok.t_kind != SH_TK_WORD)
        return unexpected(p);
    sh_word *v = p->ps_tok.t_word;
    if (!plain_word(v) ||
        !is_name(v->w_parts->u.text.s, v->w_parts->u.text.len))
        return sh_diag_set(&p->ps_diag, BOX_EPARSE, p->ps_tok.t_line,
                           "`%.*s': not a valid identifier",
                           (int)(v->w_rawlen > 100 ? 100 : v->w_rawlen),
                           v->w_raw);
    n->u.for_.var = v->w_parts->u.text.s;
    n->u.for_.varlen = v->w_parts->u.text.len;
    if ((rv = advance(p)) != BOX_OK)
        return rv;
    if (p->ps_tok.t_kind == SH_TK_SEMI) {
        if ((rv = advance(p)) != BOX_OK || (rv = linebreak(p)) != BOX_OK)
            return rv;
    } else {
        if ((rv = linebreak(p)) != BOX_OK)
            return rv;
        if (sh_lex_keyword(&p->ps_tok) == SH_TK_IN) {
            n->u.for_.has_in = true;
            if ((rv = advance(p)) != BOX_OK)
                return rv;
            sh_word **tail = &n->u.for_.words;
            while (p->ps_tok.t_kind == SH_TK_WORD) {
                *tail = p->ps_tok.t_word;
                tail = &(*tail)->w_next;
                if ((rv = advance(p)) != BOX_OK)
                    return rv;
            }
            if (p->ps_tok.t_kind != SH_TK_SEMI &&
                p->ps_tok.t_kind != SH_TK_NEWLINE)
                return unexpected(p);
            if ((rv = advance(p)) != BOX_OK || (rv = linebreak(p)) != BOX_OK)
                return rv;
        }
    }
    return parse_for_body(p, &n->u.for_.body);
}

/* case_clause -> 'case' WORD linebreak 'in' linebreak { case_item } 'esac'
 * case_item   -> ['('] WORD { '|' WORD } ')' compound_list
 *                [(';;' | ';&' | ';;&') linebreak]
 */
static box_err
parse_case(sh_parser *p, sh_node *n)
{
    box_err rv;
    if ((rv = advance(p)) != BOX_OK)
        return rv;
    if (p->ps_tok.t_kind != SH_TK_WORD)
        return unexpected(p);
    n->u.case_.word = p->ps_tok.t_word;
    if ((rv = advance(p)) != BOX_OK || (rv = linebreak(p)) != BOX_OK)
        return rv;
    if (sh_lex_keyword(&p->ps_tok) != SH_TK_IN)
        return unexpected(p);
    if ((rv = advance(p)) != BOX_OK || (rv = linebreak(p)) != BOX_OK)
        return rv;
    sh_case_item **tail = &n->u.case_.items;
    for (;;) {
        if (sh_lex_keyword(&p->ps_tok) == SH_TK_ESAC)
            return advance(p);
        sh_case_item *ci = box_arena_zalloc(p->ps_arena, sizeof(*ci));
        if (ci == NULL)
            return oom(p);
        ci->ci_line = p->ps_tok.t_line;
        if (p->ps_tok.t_kind == SH_TK_LPAREN && (rv = advance(p)) != BOX_OK)
            return rv;
        sh_word **ptail = &ci->ci_pats;
        for (;;) {
            if (p->ps_tok.t_kind != SH_TK_WORD)
                return unexpected(p);
            *ptail = p->ps_tok.t_word;
            ptail = &(*ptail)->w_next;
            if ((rv = advance(p)) != BOX_OK)
                return rv;
            if (p->ps_tok.t_kind != SH_TK_PIPE)
                break;
            if ((rv = advance(p)) != BOX_OK)
                return rv;
        }
        if (p->ps_tok.t_kind != SH_TK_RPAREN)
            return unexpected(p);
        if ((rv = advance(p)) != BOX_OK ||
            (rv = parse_compound_list(p, true, &ci->ci_body)) != BOX_OK)
            return rv;
        *tail = ci;
        tail = &ci->ci_next;
        sh_tk t = p->ps_tok.t_kind;
        if (t == SH_TK_DSEMI || t == SH_TK_SEMIAND || t == SH_TK_DSEMIAND) {
            ci->ci_term = t == SH_TK_SEMIAND    ? SH_CT_FALL
                          : t == SH_TK_DSEMIAND ? SH_CT_TEST
                                                : SH_CT_BREAK;
            if ((rv = advance(p)) != BOX_OK || (rv = linebreak(p)) != BOX_OK)
                return rv;
            continue;
        }
        if (cmd_pos(p) != SH_TK_ESAC)
            return unexpected(p);
    }
}

/* ---- [[ … ]] (bash's cond_expr, parse.y) ---- */

/*
 * Inside [[ … ]] operands are single words (never split or globbed),
 * `&&` `||` `!` `( )` build the expression, `<` `>` compare strings and
 * newlines may come before and after each term. Messages are bash's
 * (with one message per error, and "syntax error in conditional
 * expression" where bash stays silent); an end of text is "unexpected
 * EOF while looking for `]]'" at the line of the `[[`.
 */

typedef struct cond_ps {
    sh_parser *cp_p;
    uint32_t cp_line; // of the [[
} cond_ps;

/* The token as typed, for a message ("newline" for a newline). */
static void
tok_text(const sh_parser *p, const char **s, int *n)
{
    const sh_token *t = &p->ps_tok;
    if (t->t_kind == SH_TK_NEWLINE) {
        *s = "newline";
        *n = 7;
        return;
    }
    size_t len = t->t_end - t->t_start;
    *s = p->ps_lx->lx_src + t->t_start;
    *n = (int)(len > 100 ? 100 : len);
}

/* A message naming the lookahead token: fmt has one %.*s for it. The
 * end of text is always the missing `]]'. */
static box_err
cond_err(cond_ps *c, const char *fmt)
{
    sh_parser *p = c->cp_p;
    if (p->ps_tok.t_kind == SH_TK_EOF)
        return sh_diag_set(&p->ps_diag, BOX_EPARSE, c->cp_line,
                           "unexpected EOF while looking for `]]'");
    const char *s;
    int n;
    tok_text(p, &s, &n);
    return sh_diag_set(&p->ps_diag, BOX_EPARSE, p->ps_tok.t_line, fmt, n, s);
}

static box_err
cond_err_plain(cond_ps *c, const char *msg)
{
    sh_parser *p = c->cp_p;
    if (p->ps_tok.t_kind == SH_TK_EOF)
        return cond_err(c, NULL);
    return sh_diag_set(&p->ps_diag, BOX_EPARSE, p->ps_tok.t_line, "%s", msg);
}

/* The lookahead as a [[ token: `]]` and `!` as typed unquoted. */
static sh_tk
cond_tok(sh_parser *p)
{
    return sh_lex_keyword(&p->ps_tok);
}

/* The operator an unquoted one-literal word spells, from first to end
 * of the SH_CO table; SH_CO_COUNT when none. */
static sh_cond_op
cond_op(const sh_token *t, sh_cond_op first, sh_cond_op end)
{
    if (t->t_kind == SH_TK_LESS)
        return first <= SH_CO_SLT && SH_CO_SLT < end ? SH_CO_SLT : SH_CO_COUNT;
    if (t->t_kind == SH_TK_GREAT)
        return first <= SH_CO_SGT && SH_CO_SGT < end ? SH_CO_SGT : SH_CO_COUNT;
    if (t->t_kind != SH_TK_WORD || !plain_word(t->t_word))
        return SH_CO_COUNT;
    const sh_wpart *wp = t->t_word->w_parts;
    for (sh_cond_op op = first; op < end; op++) {
        const char *name = sh_cond_op_name(op);
        if (strlen(name) == wp->u.text.len &&
            memcmp(name, wp->u.text.s, wp->u.text.len) == 0 &&
            op != SH_CO_SLT && op != SH_CO_SGT)
            return op;
    }
    return SH_CO_COUNT;
}

static sh_cond *
new_cond(sh_parser *p, sh_cond_kind k, uint32_t line)
{
    sh_cond *c = box_arena_zalloc(p->ps_arena, sizeof(*c));
    if (c != NULL) {
        c->c_kind = k;
        c->c_line = line;
    }
    return c;
}

/* An operand: a WORD that is not the closing `]]'. */
static bool
cond_operand(sh_parser *p)
{
    return p->ps_tok.t_kind == SH_TK_WORD && cond_tok(p) != SH_TK_DRBRACK;
}

static box_err cond_or(cond_ps *c, sh_cond **out);

/* cond_term -> '(' cond_or ')' | '!' cond_term | UNOP WORD
 *            | WORD BINOP WORD | WORD
 * (newlines before the term and after it are skipped) */
static box_err
cond_term(cond_ps *c, sh_cond **out)
{
    sh_parser *p = c->cp_p;
    box_err rv;
    if ((rv = linebreak(p)) != BOX_OK)
        return rv;
    uint32_t line = p->ps_tok.t_line;
    sh_tk k = cond_tok(p);
    sh_cond *t = NULL;
    if (k == SH_TK_LPAREN || k == SH_TK_BANG) {
        if ((rv = enter(p)) != BOX_OK)
            return rv;
        t = new_cond(p, k == SH_TK_BANG ? SH_C_NOT : SH_C_GROUP, line);
        if (t == NULL) {
            rv = oom(p);
        } else if ((rv = advance(p)) == BOX_OK) {
            rv = k == SH_TK_BANG ? cond_term(c, &t->c_l) : cond_or(c, &t->c_l);
        }
        p->ps_depth--;
        if (rv != BOX_OK)
            return rv;
        if (k == SH_TK_LPAREN) {
            if (p->ps_tok.t_kind != SH_TK_RPAREN)
                return cond_err(c, "unexpected token `%.*s', expected `)'");
            if ((rv = advance(p)) != BOX_OK || (rv = linebreak(p)) != BOX_OK)
                return rv;
        }
        *out = t;
        return BOX_OK;
    }
    if (!cond_operand(p)) {
        if (k == SH_TK_DRBRACK)
            return cond_err_plain(c, "syntax error in conditional "
                                     "expression");
        return cond_err(c, "unexpected token `%.*s' in conditional command");
    }
    sh_word *w1 = p->ps_tok.t_word;
    sh_cond_op op = cond_op(&p->ps_tok, SH_CO_A, SH_CO_FIRST_BINARY);
    if ((rv = advance(p)) != BOX_OK)
        return rv;
    if (op != SH_CO_COUNT) {
        // UNOP WORD: bash takes the next word whatever it spells.
        if (!cond_operand(p))
            return cond_err(c, "unexpected argument `%.*s' to conditional "
                               "unary operator");
        if ((t = new_cond(p, SH_C_UNARY, line)) == NULL)
            return oom(p);
        t->c_op = op;
        t->c_w1 = p->ps_tok.t_word;
    } else {
        sh_tk n = cond_tok(p);
        if (n == SH_TK_DRBRACK || n == SH_TK_AND || n == SH_TK_OR ||
            n == SH_TK_RPAREN) {
            // A lone word: -n WORD (like test with one argument).
            if ((t = new_cond(p, SH_C_UNARY, line)) == NULL)
                return oom(p);
            t->c_op = SH_CO_N;
            t->c_w1 = w1;
            *out = t;
            return linebreak(p);
        }
        op = cond_op(&p->ps_tok, SH_CO_FIRST_BINARY, SH_CO_COUNT);
        if (op == SH_CO_COUNT) {
            if (p->ps_tok.t_kind == SH_TK_WORD)
                return cond_err_plain(c, "conditional binary operator "
                                         "expected");
            return cond_err(c, "unexpected token `%.*s', conditional "
                               "binary operator expected");
        }
        if ((t = new_cond(p, SH_C_BINARY, line)) == NULL)
            return oom(p);
        t->c_op = op;
        t->c_w1 = w1;
        // The right side of a match keeps bash's extra word characters.
        if (op == SH_CO_MATCH)
            p->ps_lx->lx_cond = SH_LEX_COND_RE;
        else if (op == SH_CO_SEQ || op == SH_CO_SEQ1 || op == SH_CO_SNE)
            p->ps_lx->lx_cond = SH_LEX_COND_PAT;
        rv = advance(p);
        p->ps_lx->lx_cond = SH_LEX_PLAIN;
        if (rv != BOX_OK)
            return rv;
        if (!cond_operand(p))
            return cond_err(c, "unexpected argument `%.*s' to conditional "
                               "binary operator");
        t->c_w2 = p->ps_tok.t_word;
    }
    if ((rv = advance(p)) != BOX_OK)
        return rv;
    *out = t;
    return linebreak(p);
}

/* cond_and -> cond_term [ '&&' cond_and ]
 * (built right-leaning like bash's, in a loop: a chain of any length
 * costs no parser stack, and the evaluator walks it in a loop too) */
static box_err
cond_and(cond_ps *c, sh_cond **out)
{
    sh_parser *p = c->cp_p;
    box_err rv;
    sh_cond **slot = out;
    if ((rv = cond_term(c, slot)) != BOX_OK)
        return rv;
    while (p->ps_tok.t_kind == SH_TK_AND) {
        sh_cond *n = new_cond(p, SH_C_AND, (*slot)->c_line);
        if (n == NULL)
            return oom(p);
        n->c_l = *slot;
        *slot = n;
        slot = &n->c_r;
        if ((rv = advance(p)) != BOX_OK || (rv = cond_term(c, slot)) != BOX_OK)
            return rv;
    }
    return BOX_OK;
}

/* cond_or -> cond_and [ '||' cond_or ] (right-leaning, as cond_and) */
static box_err
cond_or(cond_ps *c, sh_cond **out)
{
    sh_parser *p = c->cp_p;
    box_err rv;
    sh_cond **slot = out;
    if ((rv = cond_and(c, slot)) != BOX_OK)
        return rv;
    while (p->ps_tok.t_kind == SH_TK_OR) {
        sh_cond *n = new_cond(p, SH_C_OR, (*slot)->c_line);
        if (n == NULL)
            return oom(p);
        n->c_l = *slot;
        *slot = n;
        slot = &n->c_r;
        if ((rv = advance(p)) != BOX_OK || (rv = cond_and(c, slot)) != BOX_OK)
            return rv;
    }
    return BOX_OK;
}

/* cond_command -> '[[' cond_or ']]' */
static box_err
parse_cond(sh_parser *p, sh_node *n)
{
    cond_ps c = {p, n->n_line};
    box_err rv;
    if ((rv = advance(p)) != BOX_OK || (rv = cond_or(&c, &n->u.cond)) != BOX_OK)
        return rv;
    if (cond_tok(p) != SH_TK_DRBRACK) {
        if (p->ps_tok.t_kind == SH_TK_WORD)
            return cond_err_plain(&c, "syntax error in conditional "
                                      "expression");
        return cond_err(&c, "syntax error in conditional expression: "
                            "unexpected token `%.*s'");
    }
    return advance(p);
}

/* compound_command -> brace_group | subshell | if_clause | while_clause
 *                   | until_clause | for_clause | case_clause | cond_command
 *                   | '((' arithmetic '))'     (bash; `((` that closes as
 *                     `) … )` is a subshell in a subshell, as in bash)
 * (followed by its redirect_list; the token is already promoted) */
static box_err
parse_compound(sh_parser *p, sh_node **out)
{
    box_err rv;
    uint32_t line = p->ps_tok.t_line;
    if ((rv = enter(p)) != BOX_OK)
        return rv;
    sh_node *n = NULL;
    sh_tk k = p->ps_tok.t_kind;
    if (k == SH_TK_LPAREN) {
        sh_word *expr = NULL;
        if ((rv = sh_lex_dparen(p->ps_lx, &expr)) != BOX_OK)
            goto out;
        if (expr != NULL) {
            if ((n = new_node(p, SH_N_ARITH, line)) == NULL) {
                rv = oom(p);
                goto out;
            }
            n->u.arith = expr;
            rv = advance(p);
            goto redirs;
        }
    }
    static const sh_node_kind kinds[] = {
        [SH_TK_LBRACE] = SH_N_GROUP, [SH_TK_LPAREN] = SH_N_SUBSHELL,
        [SH_TK_IF] = SH_N_IF,        [SH_TK_WHILE] = SH_N_WHILE,
        [SH_TK_UNTIL] = SH_N_UNTIL,  [SH_TK_FOR] = SH_N_FOR,
        [SH_TK_CASE] = SH_N_CASE,    [SH_TK_DLBRACK] = SH_N_COND,
    };
    if ((n = new_node(p, kinds[k], line)) == NULL) {
        rv = oom(p);
        goto out;
    }
    switch (k) {
    case SH_TK_LBRACE:
        rv = parse_group(p, n, SH_TK_RBRACE);
        break;
    case SH_TK_LPAREN:
        rv = parse_group(p, n, SH_TK_RPAREN);
        break;
    case SH_TK_IF:
        rv = parse_if(p, n);
        break;
    case SH_TK_WHILE:
    case SH_TK_UNTIL:
        rv = parse_loop(p, n);
        break;
    case SH_TK_FOR:
        rv = parse_for(p, n);
        break;
    case SH_TK_CASE:
        rv = parse_case(p, n);
        break;
    case SH_TK_DLBRACK:
        rv = parse_cond(p, n);
        break;
    default:
        rv = unexpected(p);
        break;
    }
redirs:
    if (rv == BOX_OK)
        rv = parse_redirect_list(p, &n->n_redirs);
    if (rv == BOX_OK)
        *out = n;
out:
    p->ps_depth--;
    return rv;
}

/* command -> compound_command redirect_list | function_def
 *          | simple_command */
static box_err
parse_command(sh_parser *p, sh_node **out)
{
    sh_tk k = cmd_pos(p);
    if (starts_compound(k))
        return parse_compound(p, out);
    if (k == SH_TK_WORD && is_function_keyword(p))
        return parse_function_keyword(p, out);
    if (k == SH_TK_WORD && tok_is(p, "select"))
        return sh_diag_set(&p->ps_diag, BOX_EPARSE, p->ps_tok.t_line,
                           "select: not supported: it reads a choice from a "
                           "terminal and the box has none (use for)");
    if (k == SH_TK_WORD && tok_is(p, "coproc"))
        return sh_diag_set(&p->ps_diag, BOX_EPARSE, p->ps_tok.t_line,
                           "coproc: not supported in this shell (use a "
                           "pipeline, or a job with & and wait)");
    if (k == SH_TK_WORD || is_redir_tok(k))
        return parse_simple(p, out);
    return unexpected(p);
}

/* ---- lists ---- */

static box_err parse_pipeline(sh_parser *p, sh_node **out);

/* Tokens after which `time` times nothing (bash: `time` alone). */
static bool
ends_pipeline(sh_tk k)
{
    return is_list_end(k) || k == SH_TK_NEWLINE || k == SH_TK_SEMI ||
           k == SH_TK_AMP || k == SH_TK_AND || k == SH_TK_OR;
}

/* timed -> 'time' ['-p'] [pipeline]   (bash; at the word `time`) */
static box_err
parse_time(sh_parser *p, sh_node **out)
{
    box_err rv;
    sh_node *n = new_node(p, SH_N_TIME, p->ps_tok.t_line);
    if (n == NULL)
        return oom(p);
    if ((rv = enter(p)) != BOX_OK)
        return rv;
    if ((rv = advance(p)) != BOX_OK)
        goto out;
    if (tok_is(p, "-p")) {
        n->u.time.posix = true;
        if ((rv = advance(p)) != BOX_OK)
            goto out;
    }
    if (!ends_pipeline(cmd_pos(p)))
        rv = parse_pipeline(p, &n->u.time.cmd);
    if (rv == BOX_OK)
        *out = n;
out:
    p->ps_depth--;
    return rv;
}

static bool
is_pipe_tok(sh_tk k)
{
    return k == SH_TK_PIPE || k == SH_TK_PIPEAND;
}

/* `a |& b` is `a 2>&1 | b` (bash): 2>&1 goes after a's own
 * redirections. */
static box_err
stderr_to_pipe(sh_parser *p, sh_node *stage)
{
    sh_redir *r = box_arena_zalloc(p->ps_arena, sizeof(*r));
    sh_word *w = box_arena_zalloc(p->ps_arena, sizeof(*w));
    sh_wpart *wp = box_arena_zalloc(p->ps_arena, sizeof(*wp));
    if (r == NULL || w == NULL || wp == NULL)
        return oom(p);
    wp->wp_kind = SH_WP_LIT;
    wp->wp_line = p->ps_tok.t_line;
    wp->u.text.s = "1";
    wp->u.text.len = 1;
    w->w_parts = wp;
    w->w_raw = "1";
    w->w_rawlen = 1;
    w->w_line = p->ps_tok.t_line;
    r->r_kind = SH_R_DUPOUT;
    r->r_fd = 2;
    r->r_line = p->ps_tok.t_line;
    r->r_target = w;
    sh_redir **tail = &stage->n_redirs;
    while (*tail != NULL)
        tail = &(*tail)->r_next;
    *tail = r;
    return BOX_OK;
}

/* pipeline -> { '!' } ( timed | command { ('|' | '|&') linebreak command } ) */
static box_err
parse_pipeline(sh_parser *p, sh_node **out)
{
    box_err rv;
    uint32_t line = p->ps_tok.t_line;
    bool bang = false;
    while (cmd_pos(p) == SH_TK_BANG) {
        bang = !bang;
        if ((rv = advance(p)) != BOX_OK)
            return rv;
    }
    sh_node *first = NULL;
    if (tok_is(p, "time"))
        rv = parse_time(p, &first);
    else
        rv = parse_command(p, &first);
    if (rv != BOX_OK)
        return rv;
    if (!is_pipe_tok(p->ps_tok.t_kind) && !bang) {
        *out = first;
        return BOX_OK;
    }
    sh_node *n = new_node(p, SH_N_PIPE, line);
    if (n == NULL)
        return oom(p);
    n->u.pipe.stages = first;
    n->u.pipe.n = 1;
    n->u.pipe.bang = bang;
    sh_node *last = first;
    while (is_pipe_tok(p->ps_tok.t_kind)) {
        if (n->u.pipe.n == SH_MAX_PIPELINE)
            return sh_diag_set(&p->ps_diag, BOX_ETOOBIG, p->ps_tok.t_line,
                               "pipeline too long");
        if (p->ps_tok.t_kind == SH_TK_PIPEAND &&
            (rv = stderr_to_pipe(p, last)) != BOX_OK)
            return rv;
        if ((rv = advance(p)) != BOX_OK || (rv = linebreak(p)) != BOX_OK ||
            (rv = parse_command(p, &last->n_next)) != BOX_OK)
            return rv;
        last = last->n_next;
        n->u.pipe.n++;
    }
    *out = n;
    return BOX_OK;
}

/* and_or -> pipeline { ('&&' | '||') linebreak pipeline } */
static box_err
parse_and_or(sh_parser *p, sh_node **out)
{
    box_err rv;
    sh_node *left = NULL;
    if ((rv = parse_pipeline(p, &left)) != BOX_OK)
        return rv;
    while (p->ps_tok.t_kind == SH_TK_AND || p->ps_tok.t_kind == SH_TK_OR) {
        sh_node *n =
            new_node(p, p->ps_tok.t_kind == SH_TK_AND ? SH_N_AND : SH_N_OR,
                     left->n_line);
        if (n == NULL)
            return oom(p);
        n->u.bin.l = left;
        if ((rv = advance(p)) != BOX_OK || (rv = linebreak(p)) != BOX_OK ||
            (rv = parse_pipeline(p, &n->u.bin.r)) != BOX_OK)
            return rv;
        left = n;
    }
    *out = left;
    return BOX_OK;
}

/* compound_list -> linebreak and_or { separator and_or } [separator]
 * separator     -> (';' | '&') linebreak | NEWLINE linebreak
 * (ends before a reserved word, `)`, `;;` or the end; empty only where
 * allowed: `$( )` and case arms) */
static box_err
parse_compound_list(sh_parser *p, bool allow_empty, sh_node **out)
{
    box_err rv;
    if ((rv = linebreak(p)) != BOX_OK)
        return rv;
    sh_node *list = new_node(p, SH_N_LIST, p->ps_tok.t_line);
    if (list == NULL)
        return oom(p);
    sh_node **tail = &list->u.list.items;
    for (;;) {
        if (is_list_end(cmd_pos(p)))
            break;
        sh_node *item = NULL;
        if ((rv = parse_and_or(p, &item)) != BOX_OK)
            return rv;
        *tail = item;
        tail = &item->n_next;
        sh_tk k = p->ps_tok.t_kind;
        if (k == SH_TK_SEMI || k == SH_TK_AMP) {
            item->n_bg = k == SH_TK_AMP;
            if ((rv = advance(p)) != BOX_OK)
                return rv;
        } else if (k != SH_TK_NEWLINE) {
            break;
        }
        if ((rv = linebreak(p)) != BOX_OK)
            return rv;
    }
    if (list->u.list.items == NULL && !allow_empty)
        return unexpected(p);
    *out = list;
    return BOX_OK;
}

/* complete_command -> and_or { (';' | '&') and_or } [';' | '&']
 *                     (NEWLINE | end)
 * (the NEWLINE is consumed but nothing after it is read) */
static box_err
parse_complete_command(sh_parser *p, sh_node **out)
{
    box_err rv;
    sh_node *list = new_node(p, SH_N_LIST, p->ps_tok.t_line);
    if (list == NULL)
        return oom(p);
    sh_node **tail = &list->u.list.items;
    for (;;) {
        sh_node *item = NULL;
        if ((rv = parse_and_or(p, &item)) != BOX_OK)
            return rv;
        *tail = item;
        tail = &item->n_next;
        sh_tk k = p->ps_tok.t_kind;
        if (k != SH_TK_SEMI && k != SH_TK_AMP)
            break;
        item->n_bg = k == SH_TK_AMP;
        if ((rv = advance(p)) != BOX_OK)
            return rv;
        if (p->ps_tok.t_kind == SH_TK_NEWLINE || p->ps_tok.t_kind == SH_TK_EOF)
            break;
    }
    if (p->ps_tok.t_kind != SH_TK_NEWLINE && p->ps_tok.t_kind != SH_TK_EOF)
        return unexpected(p);
    *out = list;
    return BOX_OK;
}

/* The nested list of $( … ) or `…` (the lexer's callback). */
static box_err
parse_sub(void *ctx, sh_lex *lx, sh_sub_kind kind, sh_node **out)
{
    sh_parser *p = ctx;
    sh_lex *save_lx = p->ps_lx;
    sh_token save_tok = p->ps_tok;
    uint32_t line = lx->lx_line; // the line of `$(`
    box_err rv;
    p->ps_lx = lx;
    if ((rv = advance(p)) != BOX_OK ||
        (rv = parse_compound_list(p, true, out)) != BOX_OK)
        goto out;
    if (kind == SH_SUB_PAREN && p->ps_tok.t_kind != SH_TK_RPAREN) {
        if (p->ps_tok.t_kind == SH_TK_EOF)
            rv = sh_diag_set(&p->ps_diag, BOX_EPARSE, line,
                             "unexpected EOF while looking for matching `)'");
        else
            rv = unexpected(p);
    } else if (kind == SH_SUB_TEXT && p->ps_tok.t_kind != SH_TK_EOF) {
        rv = unexpected(p);
    }
out:
    p->ps_lx = save_lx;
    p->ps_tok = save_tok;
    return rv;
}

/* ---- the incremental driver ---- */

sh_parser *
sh_parser_new(box_arena *a)
{
    sh_parser *p = box_calloc(1, sizeof(*p));
    if (p == NULL)
        return NULL;
    p->ps_arena = a;
    sh_lex_init(&p->ps_top, "", 0, 1, false, a, &p->ps_diag, &p->ps_depth,
                parse_sub, p);
    p->ps_lx = &p->ps_top;
    return p;
}

void
sh_parser_set_extglob(sh_parser *p, bool on)
{
    p->ps_top.lx_extglob = on;
}

void
sh_parser_free(sh_parser *p)
{
    if (p == NULL)
        return;
    box_free(p->ps_buf);
    box_free(p);
}

box_err
sh_parser_feed(sh_parser *p, const char *text, size_t len)
{
    if (p->ps_failed)
        return p->ps_diag.d_code;
    if (len > SH_MAX_INPUT - p->ps_len) {
        p->ps_failed = true;
        return sh_diag_set(&p->ps_diag, BOX_ETOOBIG, 1, "input too large");
    }
    if (p->ps_len + len + 1 > p->ps_cap) {
        size_t cap = p->ps_cap ? p->ps_cap : 256;
        while (cap < p->ps_len + len + 1)
            cap *= 2;
        char *nb = box_realloc(p->ps_buf, cap);
        if (nb == NULL) {
            p->ps_failed = true;
            return sh_diag_set(&p->ps_diag, BOX_ENOMEM, 1, "out of memory");
        }
        p->ps_buf = nb;
        p->ps_cap = cap;
    }
    if (len > 0)
        memcpy(p->ps_buf + p->ps_len, text, len);
    p->ps_len += len;
    p->ps_buf[p->ps_len] = '\0';
    return BOX_OK;
}

void
sh_parser_finish(sh_parser *p)
{
    p->ps_final = true;
}

const sh_diag *
sh_parser_diag(const sh_parser *p)
{
    return &p->ps_diag;
}

void
sh_parser_warnings_clear(sh_parser *p)
{
    p->ps_diag.d_nwarn = 0;
}

sh_parse_status
sh_parse_next(sh_parser *p, sh_node **out)
{
    *out = NULL;
    if (p->ps_failed)
        return SH_PARSE_ERROR;
    sh_lex *lx = &p->ps_top;
    /* A top-level command starts with no pending here-document, so the
     * position and line are the whole state to roll back to. */
    size_t save_pos = lx->lx_pos;
    uint32_t save_line = lx->lx_line;
    lx->lx_src = p->ps_buf ? p->ps_buf : "";
    lx->lx_len = p->ps_len;
    lx->lx_final = p->ps_final;
    lx->lx_hit_end = false;
    lx->lx_level = 0;
    p->ps_lx = lx;
    p->ps_depth = 0;
    box_err rv = advance(p);
    if (rv == BOX_OK)
        rv = linebreak(p);
    sh_node *n = NULL;
    if (rv == BOX_OK && p->ps_tok.t_kind == SH_TK_EOF && !lx->lx_hit_end)
        return SH_PARSE_END;
    if (rv == BOX_OK && p->ps_tok.t_kind != SH_TK_EOF)
        rv = parse_complete_command(p, &n);
    if (lx->lx_hit_end && !p->ps_final && p->ps_diag.d_code != BOX_ENOMEM) {
        /* The command may go on in text not fed yet. A limit is no
         * exception: the token it was hit on can still change (a last
         * `|` after 16 stages is an `||` once the next byte comes), and
         * once finished the same text hits it again for good. */
        lx->lx_pos = save_pos;
        lx->lx_line = save_line;
        lx->lx_hd_head = lx->lx_hd_tail = NULL;
        memset(&p->ps_diag, 0, sizeof(p->ps_diag));
        return SH_PARSE_MORE;
    }
    if (rv != BOX_OK || n == NULL) {
        if (p->ps_diag.d_code == BOX_OK)
            sh_diag_set(&p->ps_diag, rv == BOX_OK ? BOX_EPARSE : rv,
                        p->ps_tok.t_line, "syntax error");
        p->ps_failed = true;
        return SH_PARSE_ERROR;
    }
    *out = n;
    return SH_PARSE_CMD;
}

/* ---- one-shot ---- */

box_err
sh_parse(const char *text, size_t len, box_arena *a, sh_node **out, sh_diag *d)
{
    box_err rv = BOX_OK;
    memset(d, 0, sizeof(*d));
    *out = NULL;
    sh_parser *p = sh_parser_new(a);
    if (p == NULL)
        return sh_diag_set(d, BOX_ENOMEM, 1, "out of memory");
    sh_node *all = box_arena_zalloc(a, sizeof(*all));
    if (all == NULL) {
        rv = sh_diag_set(d, BOX_ENOMEM, 1, "out of memory");
        goto out;
    }
    all->n_kind = SH_N_LIST;
    all->n_line = 1;
    if ((rv = sh_parser_feed(p, text, len)) != BOX_OK) {
        *d = p->ps_diag;
        goto out;
    }
    sh_parser_finish(p);
    sh_node **tail = &all->u.list.items;
    for (;;) {
        sh_node *n = NULL;
        sh_parse_status st = sh_parse_next(p, &n);
        if (st == SH_PARSE_END)
            break;
        if (st != SH_PARSE_CMD) {
            *d = p->ps_diag;
            rv = d->d_code != BOX_OK ? d->d_code : BOX_EPARSE;
            goto out;
        }
        *tail = n->u.list.items;
        while (*tail != NULL)
            tail = &(*tail)->n_next;
    }
    *out = all;
    *d = p->ps_diag; // its warnings
out:
    sh_parser_free(p);
    return rv;
}

char *
sh_diag_format(const sh_diag *d, bool multiline, char *out, size_t outlen)
{
    if (multiline)
        snprintf(out, outlen, "strands-shell: line %u: %s", (unsigned)d->d_line,
                 d->d_msg);
    else
        snprintf(out, outlen, "strands-shell: %s", d->d_msg);
    return out;
}
