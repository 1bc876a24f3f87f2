/* SPDX-License-Identifier: Apache-2.0 */
/* `box policy fmt`: the Dogwood printer and the file layout with its
 * comments (the contract is in pdp_fmt.h). */
#include "pdp_fmt.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "box_escape.h"
#include "pdp_lex.h"
#include "pdp_parse.h"
#include "pdp_tl.h"

#define FMT_NONE SIZE_MAX
#define FMT_INDENT 4
#define FMT_ARENA_MAX ((size_t)256 << 20) // one file's tree

/* ---- the expression printer ---- */

/* Binding levels, loosest first (dogwood-spec §2.3's table). An operand
 * printed where level L is needed gets parentheses when its own level is
 * looser than L. */
enum {
    LV_IF = 1, // if … then … else …, and any whole expression
    LV_OR,
    LV_AND,
    LV_REL, // == != < <= > >= in has like is: one per level
    LV_ADD,
    LV_MUL,
    LV_UNARY, // ! - and a negative literal
    LV_MEMBER,
    LV_PRIMARY,
};

static int
level_of(const pdp_expr *e)
{
    switch (e->x_kind) {
    case PDP_X_IF:
        return LV_IF;
    case PDP_X_OR:
        return LV_OR;
    case PDP_X_AND:
        return LV_AND;
    case PDP_X_EQ: case PDP_X_NE: case PDP_X_LT: case PDP_X_LE:
    case PDP_X_GT: case PDP_X_GE: case PDP_X_IN: case PDP_X_HAS:
    case PDP_X_LIKE: case PDP_X_IS:
        return LV_REL;
    case PDP_X_ADD:
    case PDP_X_SUB:
        return LV_ADD;
    case PDP_X_MUL:
        return LV_MUL;
    case PDP_X_NOT:
    case PDP_X_NEG:
        return LV_UNARY;
    case PDP_X_LIT:
        return pdp_value_kind_of(e->x_const) == PDP_VAL_LONG &&
                       pdp_value_as_long(e->x_const) < 0
                   ? LV_UNARY
                   : LV_PRIMARY;
    case PDP_X_ATTR:
    case PDP_X_METHOD:
        return LV_MEMBER;
    default:
        return LV_PRIMARY;
    }
}

/* Whether s can be written as a bare name: IDENT and not one of Cedar's
 * reserved words; `if` too where the grammar admits it (a record key,
 * the first step of a `has` path). */
static bool
bare_name(pdp_str s, bool if_ok)
{
    static const char *const reserved[] = {"true", "false", "if",   "then",
                                           "else", "in",    "like", "has",
                                           "is",   "__cedar"};
    if (s.len == 0 ||
        !((s.s[0] >= 'A' && s.s[0] <= 'Z') || (s.s[0] >= 'a' && s.s[0] <= 'z') ||
          s.s[0] == '_'))
        return false;
    for (size_t i = 1; i < s.len; i++) {
        char c = s.s[i];
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
              (c >= '0' && c <= '9') || c == '_'))
            return false;
    }
    for (size_t i = 0; i < sizeof reserved / sizeof reserved[0]; i++) {
        if (strlen(reserved[i]) == s.len &&
            memcmp(reserved[i], s.s, s.len) == 0)
            return if_ok && s.len == 2 && memcmp(s.s, "if", 2) == 0;
    }
    return true;
}

static box_err
put_quoted(box_buf *b, pdp_str s)
{
    BOX_TRY(box_buf_putc(b, '"'));
    BOX_TRY(box_escape_debug_str(b, s.s, s.len));
    return box_buf_putc(b, '"');
}

static box_err put_expr(box_buf *b, const pdp_expr *e, int need);

static box_err
put_list(box_buf *b, const pdp_expr *const *items, uint32_t n,
         const char *sep, int need)
{
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0)
            BOX_TRY(box_buf_puts(b, sep));
        BOX_TRY(put_expr(b, items[i], need));
    }
    return BOX_OK;
}

/* A run of one unary symbol (at most four, §2.3) and its operand. */
static box_err
put_unary(box_buf *b, const pdp_expr *e)
{
    const char *sym = e->x_kind == PDP_X_NOT ? "!" : "-";
    const pdp_expr *a = e->u.un.arg;
    BOX_TRY(box_buf_puts(b, sym));
    for (int k = 1; k < 4 && a->x_kind == e->x_kind; k++) {
        BOX_TRY(box_buf_puts(b, sym));
        a = a->u.un.arg;
    }
    // `-` right before an integer literal would fold into the literal.
    if (e->x_kind == PDP_X_NEG && a->x_kind == PDP_X_LIT &&
        pdp_value_kind_of(a->x_const) == PDP_VAL_LONG) {
        BOX_TRY(box_buf_putc(b, '('));
        BOX_TRY(pdp_value_format(a->x_const, b));
        return box_buf_putc(b, ')');
    }
    return put_expr(b, a, LV_MEMBER);
}

static box_err
put_binary(box_buf *b, const pdp_expr *e, const char *op, int lneed,
           int rneed)
{
    BOX_TRY(put_expr(b, e->u.bin.l, lneed));
    BOX_TRY(box_buf_puts(b, op));
    return put_expr(b, e->u.bin.r, rneed);
}

static box_err
put_has(box_buf *b, const pdp_expr *e)
{
    BOX_TRY(put_expr(b, e->u.has.obj, LV_ADD));
    BOX_TRY(box_buf_puts(b, " has "));
    if (e->u.has.n == 1 && !bare_name(e->u.has.path[0], true))
        return put_quoted(b, e->u.has.path[0]);
    for (uint32_t i = 0; i < e->u.has.n; i++) {
        if (!bare_name(e->u.has.path[i], i == 0))
            return BOX_EINVAL;
        if (i > 0)
            BOX_TRY(box_buf_putc(b, '.'));
        BOX_TRY(box_buf_append(b, e->u.has.path[i].s, e->u.has.path[i].len));
    }
    return BOX_OK;
}

static box_err
put_record(box_buf *b, const pdp_expr *e)
{
    if (e->u.rec.n == 0)
        return box_buf_puts(b, "{}");
    BOX_TRY(box_buf_puts(b, "{ "));
    for (uint32_t i = 0; i < e->u.rec.n; i++) {
        pdp_str k = e->u.rec.keys[i];
        if (i > 0)
            BOX_TRY(box_buf_puts(b, ", "));
        BOX_TRY(bare_name(k, true) ? box_buf_append(b, k.s, k.len)
                                   : put_quoted(b, k));
        BOX_TRY(box_buf_puts(b, ": "));
        BOX_TRY(put_expr(b, e->u.rec.vals[i], LV_IF));
    }
    return box_buf_puts(b, " }");
}

static box_err
put_temporal(box_buf *b, const pdp_expr *e)
{
    BOX_TRY(box_buf_puts(b, "temporal { "));
    BOX_TRY(pdp_tl_dump(e->u.tl, b));
    return box_buf_puts(b, " }");
}

/* e without parentheses of its own. */
static box_err
put_bare(box_buf *b, const pdp_expr *e)
{
    static const char *const binops[PDP_X_COUNT] = {
        [PDP_X_EQ] = " == ", [PDP_X_NE] = " != ", [PDP_X_LT] = " < ",
        [PDP_X_LE] = " <= ", [PDP_X_GT] = " > ",  [PDP_X_GE] = " >= ",
        [PDP_X_IN] = " in ", [PDP_X_ADD] = " + ", [PDP_X_SUB] = " - ",
        [PDP_X_MUL] = " * ",
    };
    switch (e->x_kind) {
    case PDP_X_LIT:
        return pdp_value_format(e->x_const, b);
    case PDP_X_VAR:
        return box_buf_puts(b, pdp_var_name(e->u.var));
    case PDP_X_NOT:
    case PDP_X_NEG:
        return put_unary(b, e);
    case PDP_X_AND:
        return put_list(b, e->u.list.items, e->u.list.n, " && ", LV_REL);
    case PDP_X_OR:
        return put_list(b, e->u.list.items, e->u.list.n, " || ", LV_AND);
    case PDP_X_EQ: case PDP_X_NE: case PDP_X_LT: case PDP_X_LE:
    case PDP_X_GT: case PDP_X_GE: case PDP_X_IN:
        return put_binary(b, e, binops[e->x_kind], LV_ADD, LV_ADD);
    case PDP_X_ADD:
    case PDP_X_SUB:
        return put_binary(b, e, binops[e->x_kind], LV_ADD, LV_MUL);
    case PDP_X_MUL:
        return put_binary(b, e, binops[e->x_kind], LV_MUL, LV_UNARY);
    case PDP_X_HAS:
        return put_has(b, e);
    case PDP_X_LIKE:
        BOX_TRY(put_expr(b, e->u.like.obj, LV_ADD));
        BOX_TRY(box_buf_puts(b, " like "));
        // As written: the dump names a pattern by its source text.
        return box_buf_append(b, e->u.like.pat.source.s,
                              e->u.like.pat.source.len);
    case PDP_X_IS:
        BOX_TRY(put_expr(b, e->u.is.obj, LV_ADD));
        BOX_TRY(box_buf_puts(b, " is "));
        BOX_TRY(box_buf_append(b, e->u.is.type.s, e->u.is.type.len));
        if (e->u.is.in == NULL)
            return BOX_OK;
        BOX_TRY(box_buf_puts(b, " in "));
        return put_expr(b, e->u.is.in, LV_ADD);
    case PDP_X_ATTR:
        BOX_TRY(put_expr(b, e->u.attr.obj, LV_MEMBER));
        if (!e->u.attr.bracket) {
            BOX_TRY(box_buf_putc(b, '.'));
            return box_buf_append(b, e->u.attr.name.s, e->u.attr.name.len);
        }
        BOX_TRY(box_buf_putc(b, '['));
        BOX_TRY(put_quoted(b, e->u.attr.name));
        return box_buf_putc(b, ']');
    case PDP_X_IF:
        BOX_TRY(box_buf_puts(b, "if "));
        BOX_TRY(put_expr(b, e->u.cond.c, LV_IF));
        BOX_TRY(box_buf_puts(b, " then "));
        BOX_TRY(put_expr(b, e->u.cond.t, LV_IF));
        BOX_TRY(box_buf_puts(b, " else "));
        return put_expr(b, e->u.cond.e, LV_IF);
    case PDP_X_SET:
        BOX_TRY(box_buf_putc(b, '['));
        BOX_TRY(put_list(b, e->u.list.items, e->u.list.n, ", ", LV_IF));
        return box_buf_putc(b, ']');
    case PDP_X_RECORD:
        return put_record(b, e);
    case PDP_X_METHOD:
        BOX_TRY(put_expr(b, e->u.call.recv, LV_MEMBER));
        BOX_TRY(box_buf_printf(b, ".%s(", pdp_method_name(e->u.call.m)));
        BOX_TRY(put_list(b, e->u.call.args, e->u.call.n, ", ", LV_IF));
        return box_buf_putc(b, ')');
    case PDP_X_CALL:
        BOX_TRY(box_buf_printf(b, "%s(", pdp_method_name(e->u.call.m)));
        BOX_TRY(put_list(b, e->u.call.args, e->u.call.n, ", ", LV_IF));
        return box_buf_putc(b, ')');
    case PDP_X_TEMPORAL:
        return put_temporal(b, e);
    case PDP_X_COUNT:
        break;
    }
    return BOX_EINVAL;
}

/* e where binding level `need` is expected. */
static box_err
put_expr(box_buf *b, const pdp_expr *e, int need)
{
    if (level_of(e) >= need)
        return put_bare(b, e);
    BOX_TRY(box_buf_putc(b, '('));
    BOX_TRY(put_bare(b, e));
    return box_buf_putc(b, ')');
}

box_err
pdp_fmt_expr(const pdp_expr *e, box_buf *out)
{
    return put_expr(out, e, LV_IF);
}

/* ---- the file: tokens, comments, lines ---- */

typedef struct fmt_tok {
    size_t ft_off; // first byte in the source
    size_t ft_end; // just past the last
    uint32_t ft_line, ft_col;
    pdp_tk ft_kind;
} fmt_tok;

typedef struct fmt_comment {
    size_t fc_off, fc_len; // from `//`, trailing blanks cut
    size_t fc_next;        // the token after it (f_ntok: none)
    bool fc_after_code;    // a token ends before it on its line
    bool fc_blank_after;   // a blank line follows it in the source
    size_t fc_line;        // the output line it goes with; FMT_NONE: the end
    bool fc_at_end;        // written at the end of that line
} fmt_comment;

typedef struct fmt_line {
    size_t fl_off, fl_len; // its text in f_text
    size_t fl_tok;         // the source token it starts with, or FMT_NONE
    unsigned fl_indent;    // of the comments above it
    bool fl_rule_first;    // the first line of a rule
} fmt_line;

typedef struct fmt {
    const char *f_src;
    size_t f_len;
    fmt_tok *f_toks;
    size_t f_ntok, f_tokcap;
    fmt_comment *f_cms;
    size_t f_ncm, f_cmcap;
    fmt_line *f_lines;
    size_t f_nline, f_linecap;
    box_buf f_text; // every line's text, one after another
    size_t f_open;  // the line being written
} fmt;

static box_err
grow(void **arr, size_t *cap, size_t n, size_t elsize)
{
    if (n < *cap)
        return BOX_OK;
    size_t nc = *cap ? *cap * 2 : 64;
    if (nc > SIZE_MAX / elsize)
        return BOX_ENOMEM;
    void *p = box_realloc(*arr, nc * elsize);
    if (p == NULL)
        return BOX_ENOMEM;
    *arr = p;
    *cap = nc;
    return BOX_OK;
}

/* Every token of the file, as the parser read them. */
static box_err
fmt_lex(fmt *f, const char *file, box_buf *err)
{
    pdp_lex lx;
    BOX_TRY(pdp_lex_init(&lx, f->f_src, f->f_len, file, err));
    while (lx.lx_tok.t_kind != PDP_TK_EOF) {
        BOX_TRY(grow((void **)&f->f_toks, &f->f_tokcap, f->f_ntok,
                     sizeof(fmt_tok)));
        const pdp_token *t = &lx.lx_tok;
        size_t off = (size_t)(t->t_text - f->f_src);
        f->f_toks[f->f_ntok++] = (fmt_tok){
            .ft_off = off,
            .ft_end = off + t->t_len,
            .ft_line = t->t_line,
            .ft_col = t->t_col,
            .ft_kind = t->t_kind,
        };
        BOX_TRY(pdp_lex_next(&lx));
    }
    return BOX_OK;
}

/* The comments in the text between tokens (only blanks and comments are
 * there: the lexer skipped nothing else). */
static box_err
fmt_comments(fmt *f)
{
    size_t start = f->f_len >= 3 && memcmp(f->f_src, "\xEF\xBB\xBF", 3) == 0
                       ? 3
                       : 0;
    for (size_t i = 0; i <= f->f_ntok; i++) {
        size_t p = i == 0 ? start : f->f_toks[i - 1].ft_end;
        size_t to = i < f->f_ntok ? f->f_toks[i].ft_off : f->f_len;
        bool newline = i == 0;
        while (p < to) {
            if (f->f_src[p] == '\n')
                newline = true;
            if (f->f_src[p] != '/' || p + 1 >= to || f->f_src[p + 1] != '/') {
                p++;
                continue;
            }
            size_t e = p;
            while (e < to && f->f_src[e] != '\n')
                e++;
            size_t cut = e;
            while (cut > p && (f->f_src[cut - 1] == ' ' ||
                               f->f_src[cut - 1] == '\t' ||
                               f->f_src[cut - 1] == '\r'))
                cut--;
            unsigned nls = 0;
            for (size_t q = e; q < to && (f->f_src[q] == ' ' ||
                                          f->f_src[q] == '\t' ||
                                          f->f_src[q] == '\r' ||
                                          f->f_src[q] == '\n');
                 q++)
                nls += f->f_src[q] == '\n';
            BOX_TRY(grow((void **)&f->f_cms, &f->f_cmcap, f->f_ncm,
                         sizeof(fmt_comment)));
            f->f_cms[f->f_ncm++] = (fmt_comment){
                .fc_off = p,
                .fc_len = cut - p,
                .fc_next = i,
                .fc_after_code = !newline,
                .fc_blank_after = nls >= 2,
                .fc_line = FMT_NONE,
            };
            p = e;
        }
    }
    return BOX_OK;
}

/* The index of the token at pos (FMT_NONE when none starts there). */
static size_t
tok_at(const fmt *f, pdp_pos pos)
{
    size_t lo = 0, hi = f->f_ntok;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const fmt_tok *t = &f->f_toks[mid];
        if (t->ft_line < pos.line ||
            (t->ft_line == pos.line && t->ft_col < pos.col))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < f->f_ntok && f->f_toks[lo].ft_line == pos.line &&
        f->f_toks[lo].ft_col == pos.col)
        return lo;
    return FMT_NONE;
}

static box_err
line_open(fmt *f, size_t tok, unsigned indent, bool rule_first)
{
    BOX_TRY(grow((void **)&f->f_lines, &f->f_linecap, f->f_nline,
                 sizeof(fmt_line)));
    f->f_open = f->f_nline++;
    f->f_lines[f->f_open] = (fmt_line){
        .fl_off = f->f_text.b_len,
        .fl_tok = tok,
        .fl_indent = indent,
        .fl_rule_first = rule_first,
    };
    for (unsigned i = 0; i < indent; i++)
        BOX_TRY(box_buf_putc(&f->f_text, ' '));
    return BOX_OK;
}

static void
line_close(fmt *f)
{
    fmt_line *l = &f->f_lines[f->f_open];
    l->fl_len = f->f_text.b_len - l->fl_off;
}

/* Columns of s[0..n): Unicode scalar values (continuation bytes do not
 * count). */
static size_t
columns(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

static box_err
put_scope(box_buf *b, const char *var, const pdp_scope *s)
{
    BOX_TRY(box_buf_puts(b, var));
    if (s->sc_op == PDP_SCOPE_IS || s->sc_op == PDP_SCOPE_IS_IN) {
        BOX_TRY(box_buf_puts(b, " is "));
        BOX_TRY(box_buf_append(b, s->sc_type.s, s->sc_type.len));
    }
    switch (s->sc_op) {
    case PDP_SCOPE_ANY:
    case PDP_SCOPE_IS:
        return BOX_OK;
    case PDP_SCOPE_EQ:
        BOX_TRY(box_buf_puts(b, " == "));
        return pdp_value_format(s->sc_ents[0], b);
    case PDP_SCOPE_IN:
    case PDP_SCOPE_IS_IN:
        BOX_TRY(box_buf_puts(b, " in "));
        return pdp_value_format(s->sc_ents[0], b);
    case PDP_SCOPE_IN_SET:
        BOX_TRY(box_buf_puts(b, " in ["));
        for (uint32_t i = 0; i < s->sc_n; i++) {
            if (i > 0)
                BOX_TRY(box_buf_puts(b, ", "));
            BOX_TRY(pdp_value_format(s->sc_ents[i], b));
        }
        return box_buf_putc(b, ']');
    }
    return BOX_EINVAL;
}

static box_err
put_annot(box_buf *b, const pdp_annot *an)
{
    BOX_TRY(box_buf_putc(b, '@'));
    BOX_TRY(box_buf_append(b, an->an_key.s, an->an_key.len));
    if (!an->an_has_value)
        return BOX_OK;
    BOX_TRY(box_buf_putc(b, '('));
    BOX_TRY(put_quoted(b, an->an_value));
    return box_buf_putc(b, ')');
}

/* The token that closes the block opened at token `open` (braces are
 * balanced in any text that parsed). */
static size_t
block_close(const fmt *f, size_t open)
{
    unsigned depth = 0;
    for (size_t i = open; i < f->f_ntok; i++) {
        if (f->f_toks[i].ft_kind == PDP_TK_LBRACE)
            depth++;
        else if (f->f_toks[i].ft_kind == PDP_TK_RBRACE && --depth == 0)
            return i;
    }
    return FMT_NONE;
}

/* Where the operands of a top-level chain start in the source: the
 * token after each separator at depth 0 of the block (open, close).
 * False when they cannot be told (the chain is in parentheses). */
static bool
chain_starts(const fmt *f, size_t open, size_t close, pdp_tk sep,
             uint32_t n, size_t *starts)
{
    unsigned depth = 0;
    uint32_t k = 1;
    starts[0] = open + 1;
    for (size_t i = open + 1; i < close; i++) {
        pdp_tk t = f->f_toks[i].ft_kind;
        if (t == PDP_TK_LPAREN || t == PDP_TK_LBRACKET || t == PDP_TK_LBRACE)
            depth++;
        else if (t == PDP_TK_RPAREN || t == PDP_TK_RBRACKET ||
                 t == PDP_TK_RBRACE)
            depth--;
        else if (t == sep && depth == 0) {
            if (k >= n)
                return false;
            starts[k++] = i + 1;
        }
    }
    return k == n;
}

/* Whether a comment lies between token `first` and token `last`
 * (comments are in source order: their next tokens do not decrease). */
static bool
comment_within(const fmt *f, size_t first, size_t last)
{
    size_t lo = 0, hi = f->f_ncm;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (f->f_cms[mid].fc_next <= first)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < f->f_ncm && f->f_cms[lo].fc_next <= last;
}

/* One condition: on one line, or broken over several. */
static box_err
fmt_cond(fmt *f, const pdp_cond *c, bool last, box_buf *tmp)
{
    const char *kw = c->cd_kind == PDP_COND_WHEN ? "when" : "unless";
    const pdp_expr *body = c->cd_body;
    bool temporal = body->x_kind == PDP_X_TEMPORAL;
    size_t kt = tok_at(f, c->cd_pos), open = kt, close = FMT_NONE;
    while (open != FMT_NONE && open < f->f_ntok &&
           f->f_toks[open].ft_kind != PDP_TK_LBRACE)
        open++;
    if (open != FMT_NONE && open < f->f_ntok)
        close = block_close(f, open);
    if (kt == FMT_NONE || close == FMT_NONE)
        return BOX_EINVAL; // the tree does not come from this text

    box_buf_truncate(tmp, 0);
    BOX_TRY(box_buf_printf(tmp, "%s ", kw));
    if (temporal) {
        BOX_TRY(put_temporal(tmp, body));
    } else {
        BOX_TRY(box_buf_puts(tmp, "{ "));
        BOX_TRY(put_expr(tmp, body, LV_IF));
        BOX_TRY(box_buf_puts(tmp, " }"));
    }
    if (last)
        BOX_TRY(box_buf_putc(tmp, ';'));
    if (columns(tmp->b_data, tmp->b_len) <= PDP_FMT_WIDTH &&
        !comment_within(f, kt, close)) {
        BOX_TRY(line_open(f, kt, 0, false));
        BOX_TRY(box_buf_append(&f->f_text, tmp->b_data, tmp->b_len));
        line_close(f);
        return BOX_OK;
    }

    BOX_TRY(line_open(f, kt, 0, false));
    BOX_TRY(
        box_buf_printf(&f->f_text, "%s %s{", kw, temporal ? "temporal " : ""));
    line_close(f);
    if (temporal) {
        BOX_TRY(line_open(f, open + 1, FMT_INDENT, false));
        BOX_TRY(pdp_tl_dump(body->u.tl, &f->f_text));
        line_close(f);
    } else if (body->x_kind == PDP_X_AND || body->x_kind == PDP_X_OR) {
        bool and = body->x_kind == PDP_X_AND;
        uint32_t n = body->u.list.n;
        size_t *starts = box_calloc(n, sizeof *starts);
        if (starts == NULL)
            return BOX_ENOMEM;
        if (!chain_starts(f, open, close, and ? PDP_TK_AND : PDP_TK_OR, n,
                          starts)) {
            // Only the first operand's start is known.
            for (uint32_t i = 1; i < n; i++)
                starts[i] = FMT_NONE;
        }
        box_err rv = BOX_OK;
        for (uint32_t i = 0; i < n && rv == BOX_OK; i++) {
            if ((rv = line_open(f, starts[i], FMT_INDENT, false)) != BOX_OK ||
                (rv = put_expr(&f->f_text, body->u.list.items[i],
                               and ? LV_REL : LV_AND)) != BOX_OK)
                break;
            if (i + 1 < n)
                rv = box_buf_puts(&f->f_text, and ? " &&" : " ||");
            line_close(f);
        }
        box_free(starts);
        BOX_TRY(rv);
    } else {
        BOX_TRY(line_open(f, open + 1, FMT_INDENT, false));
        BOX_TRY(put_expr(&f->f_text, body, LV_IF));
        line_close(f);
    }
    BOX_TRY(line_open(f, close, 0, false));
    f->f_lines[f->f_open].fl_indent = FMT_INDENT; // comments stay inside
    BOX_TRY(box_buf_puts(&f->f_text, last ? "};" : "}"));
    line_close(f);
    return BOX_OK;
}

static box_err
fmt_rule(fmt *f, const pdp_rule *r, box_buf *tmp)
{
    for (uint32_t i = 0; i < r->r_nannots; i++) {
        BOX_TRY(line_open(f, tok_at(f, r->r_annots[i].an_pos), 0, i == 0));
        BOX_TRY(put_annot(&f->f_text, &r->r_annots[i]));
        line_close(f);
    }
    BOX_TRY(line_open(f, tok_at(f, r->r_effect_pos), 0, r->r_nannots == 0));
    box_buf *b = &f->f_text;
    BOX_TRY(
        box_buf_puts(b, r->r_effect == PDP_PERMIT ? "permit (" : "forbid ("));
    BOX_TRY(put_scope(b, "principal", &r->r_principal));
    BOX_TRY(box_buf_puts(b, ", "));
    BOX_TRY(put_scope(b, "action", &r->r_action));
    BOX_TRY(box_buf_puts(b, ", "));
    BOX_TRY(put_scope(b, "resource", &r->r_resource));
    BOX_TRY(box_buf_puts(b, r->r_nconds == 0 ? ");" : ")"));
    line_close(f);
    for (uint32_t i = 0; i < r->r_nconds; i++)
        BOX_TRY(fmt_cond(f, &r->r_conds[i], i + 1 == r->r_nconds, tmp));
    return BOX_OK;
}

/*
 * Gives each comment its line: a comment after code goes with the line
 * that holds that code, one on its own line with the line that holds the
 * next token (the last line starting at or before the token). Both the
 * comments' tokens and the lines' first tokens grow in source order, so
 * one walk does it.
 */
static void
fmt_attach(fmt *f)
{
    size_t li = 0;
    for (size_t i = 0; i < f->f_ncm; i++) {
        fmt_comment *c = &f->f_cms[i];
        if (f->f_nline == 0 || (c->fc_next >= f->f_ntok && !c->fc_after_code))
            continue; // after the last rule
        size_t t = c->fc_after_code ? c->fc_next - 1 : c->fc_next;
        for (size_t j = li + 1; j < f->f_nline; j++) {
            size_t lt = f->f_lines[j].fl_tok;
            if (lt == FMT_NONE)
                continue;
            if (lt > t)
                break;
            li = j;
        }
        c->fc_line = li;
        c->fc_at_end = c->fc_after_code;
    }
    // A line ends with at most one comment; two or more all move up.
    for (size_t i = 0; i < f->f_ncm;) {
        size_t j = i, n = 0;
        for (; j < f->f_ncm && f->f_cms[j].fc_line == f->f_cms[i].fc_line; j++)
            n += f->f_cms[j].fc_at_end;
        for (size_t k = i; n > 1 && k < j; k++)
            f->f_cms[k].fc_at_end = false;
        i = j;
    }
}

static box_err
put_comment(box_buf *out, const fmt *f, const fmt_comment *c, unsigned indent)
{
    for (unsigned i = 0; i < indent; i++)
        BOX_TRY(box_buf_putc(out, ' '));
    BOX_TRY(box_buf_append(out, f->f_src + c->fc_off, c->fc_len));
    return box_buf_putc(out, '\n');
}

static box_err
fmt_emit(const fmt *f, box_buf *out)
{
    size_t ci = 0; // comments come in line order (fmt_attach)
    for (size_t li = 0; li < f->f_nline; li++) {
        const fmt_line *l = &f->f_lines[li];
        if (l->fl_rule_first && li > 0)
            BOX_TRY(box_buf_putc(out, '\n'));
        const fmt_comment *prev = NULL, *end = NULL;
        for (; ci < f->f_ncm && f->f_cms[ci].fc_line == li; ci++) {
            const fmt_comment *c = &f->f_cms[ci];
            if (c->fc_at_end) {
                end = c;
                continue;
            }
            // Blank lines only among the comments above a rule.
            if (l->fl_rule_first && prev != NULL && prev->fc_blank_after &&
                prev->fc_next == c->fc_next)
                BOX_TRY(box_buf_putc(out, '\n'));
            BOX_TRY(put_comment(out, f, c, l->fl_indent));
            prev = c;
        }
        if (l->fl_rule_first && prev != NULL && prev->fc_blank_after &&
            prev->fc_next == l->fl_tok)
            BOX_TRY(box_buf_putc(out, '\n'));
        BOX_TRY(box_buf_append(out, f->f_text.b_data + l->fl_off, l->fl_len));
        if (end != NULL) {
            BOX_TRY(box_buf_putc(out, ' '));
            BOX_TRY(box_buf_append(out, f->f_src + end->fc_off, end->fc_len));
        }
        BOX_TRY(box_buf_putc(out, '\n'));
    }
    // After the last rule.
    for (const fmt_comment *prev = NULL; ci < f->f_ncm; ci++) {
        const fmt_comment *c = &f->f_cms[ci];
        if ((prev == NULL && f->f_nline > 0) ||
            (prev != NULL && prev->fc_blank_after))
            BOX_TRY(box_buf_putc(out, '\n'));
        BOX_TRY(put_comment(out, f, c, 0));
        prev = c;
    }
    return BOX_OK;
}

box_err
pdp_fmt(const char *text, size_t len, const char *file, box_buf *out,
        box_buf *err)
{
    fmt f = {.f_src = text, .f_len = len};
    box_buf tmp, res;
    box_buf_init(&f.f_text, SIZE_MAX);
    box_buf_init(&tmp, SIZE_MAX);
    box_buf_init(&res, out->b_max);
    box_arena *a = box_arena_new(FMT_ARENA_MAX);
    const pdp_ast *ast = NULL;
    box_err rv = a != NULL ? BOX_OK : BOX_ENOMEM;
    if (rv == BOX_OK)
        rv = pdp_parse(text, len, file, a, &ast, err);
    if (rv == BOX_OK && ast->as_macros) {
        // The rules hold the expansions: printing them would drop the
        // definitions and inline every call.
        box_err mrv = box_buf_printf(err, "%s:%u:%u: formatting macro "
                                     "definitions and calls is not supported "
                                     "yet (the output would expand them)",
                                     file, ast->as_macro_pos.line,
                                     ast->as_macro_pos.col);
        (void)mrv;
        rv = BOX_ENOTSUP;
    }
    if (rv == BOX_OK)
        rv = fmt_lex(&f, file, err);
    if (rv == BOX_OK)
        rv = fmt_comments(&f);
    for (uint32_t i = 0; rv == BOX_OK && i < ast->as_nrules; i++)
        rv = fmt_rule(&f, ast->as_rules[i], &tmp);
    if (rv == BOX_OK) {
        fmt_attach(&f);
        rv = fmt_emit(&f, &res);
    }
    if (rv == BOX_OK)
        rv = box_buf_append(out, res.b_data, res.b_len);
    box_buf_reset(&res);
    box_buf_reset(&tmp);
    box_buf_reset(&f.f_text);
    box_free(f.f_toks);
    box_free(f.f_cms);
    box_free(f.f_lines);
    box_arena_free(a);
    return rv;
}
