/* SPDX-License-Identifier: Apache-2.0 */
/* Lexer for .dw text: identifiers, integers, strings, punctuation, `//`. */
#include "pdp_lex.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "box_hex.h"
#include "box_utf8.h"

/* ORDER PDP_TK */
static const char *const pdp_tk_names[PDP_TK_COUNT] = {
    "end of file", "identifier", "integer literal", "string literal",
    "`true`", "`false`", "`if`", "`then`", "`else`", "`in`", "`like`",
    "`has`", "`is`", "`__cedar`",
    "`(`", "`)`", "`[`", "`]`", "`{`", "`}`", "`,`", "`;`", "`:`", "`::`",
    "`.`", "`@`", "`?`", "`$`", "`==`", "`!=`", "`<`", "`<=`", "`>`",
    "`>=`", "`=`", "`&&`", "`||`", "`!`", "`+`", "`-`", "`*`", "`/`",
    "`%`",
};

static const struct {
    const char *rw_text;
    pdp_tk rw_kind;
} pdp_reserved[] = {
    {"true", PDP_TK_TRUE}, {"false", PDP_TK_FALSE}, {"if", PDP_TK_IF},
    {"then", PDP_TK_THEN}, {"else", PDP_TK_ELSE},   {"in", PDP_TK_IN},
    {"like", PDP_TK_LIKE}, {"has", PDP_TK_HAS},     {"is", PDP_TK_IS},
    {"__cedar", PDP_TK_CEDAR},
};

const char *
pdp_tk_name(pdp_tk k)
{
    return (unsigned)k < PDP_TK_COUNT ? pdp_tk_names[k] : "?";
}

box_err
pdp_lex_error(pdp_lex *lx, box_err code, uint32_t line, uint32_t col,
              const char *fmt, ...)
{
    if (lx->lx_failed)
        return code;
    lx->lx_failed = true;
    box_buf_reset(lx->lx_err);
    if (box_buf_printf(lx->lx_err, "%s:%u:%u: ", lx->lx_file, line, col) !=
        BOX_OK)
        return code;
    va_list ap;
    va_start(ap, fmt);
    box_err rv = box_buf_vprintf(lx->lx_err, fmt, ap);
    va_end(ap);
    (void)rv; // a message cut by the buffer cap is still an error
    return code;
}

/* Advances one byte, keeping line/col (col counts scalars, not bytes). */
static void
adv(pdp_lex *lx)
{
    unsigned char c = (unsigned char)lx->lx_src[lx->lx_pos++];
    if (c == '\n') {
        lx->lx_line++;
        lx->lx_col = 1;
    } else if ((c & 0xC0) != 0x80) {
        lx->lx_col++;
    }
}

static int
cur(const pdp_lex *lx)
{
    return lx->lx_pos < lx->lx_len ? (unsigned char)lx->lx_src[lx->lx_pos]
                                   : -1;
}

static int
at(const pdp_lex *lx, size_t k)
{
    return lx->lx_pos + k < lx->lx_len
               ? (unsigned char)lx->lx_src[lx->lx_pos + k]
               : -1;
}

static bool
ident_start(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool
ident_char(int c)
{
    return ident_start(c) || (c >= '0' && c <= '9');
}

/*
 * The bytes of the whitespace character at the cursor, or 0. Whitespace
 * is Cedar's: every character with Unicode's White_Space property (Rust's
 * char::is_whitespace, which Cedar's lexer skips), so a policy with a
 * no-break space, a form feed or a line separator between its tokens
 * loads as it does in Cedar: ASCII 09-0D and 20, U+0085, U+00A0,
 * U+1680, U+2000-U+200A, U+2028, U+2029, U+202F, U+205F, U+3000.
 */
static size_t
space_len(const pdp_lex *lx)
{
    int c = cur(lx), c1 = at(lx, 1), c2 = at(lx, 2);
    if (c == ' ' || (c >= '\t' && c <= '\r'))
        return 1;
    if (c == 0xc2 && (c1 == 0x85 || c1 == 0xa0))
        return 2;
    if (c == 0xe1 && c1 == 0x9a && c2 == 0x80)
        return 3;
    if (c == 0xe2 && c1 == 0x80 &&
        ((c2 >= 0x80 && c2 <= 0x8a) || c2 == 0xa8 || c2 == 0xa9 || c2 == 0xaf))
        return 3;
    if ((c == 0xe2 && c1 == 0x81 && c2 == 0x9f) ||
        (c == 0xe3 && c1 == 0x80 && c2 == 0x80))
        return 3;
    return 0;
}

static void
skip_space(pdp_lex *lx)
{
    for (;;) {
        int c = cur(lx);
        size_t n = space_len(lx);
        if (n > 0) {
            while (n-- > 0)
                adv(lx);
        } else if (c == '/' && at(lx, 1) == '/') {
            while (cur(lx) != -1 && cur(lx) != '\n')
                adv(lx);
        } else {
            return;
        }
    }
}

/* Scans one token into *t. */
static box_err
scan(pdp_lex *lx, pdp_token *t)
{
    skip_space(lx);
    t->t_text = lx->lx_src + lx->lx_pos;
    t->t_line = lx->lx_line;
    t->t_col = lx->lx_col;
    size_t start = lx->lx_pos;
    int c = cur(lx);
    if (c == -1) {
        t->t_kind = PDP_TK_EOF;
        t->t_len = 0;
        return BOX_OK;
    }
    if (ident_start(c)) {
        while (ident_char(cur(lx)))
            adv(lx);
        t->t_len = lx->lx_pos - start;
        t->t_kind = PDP_TK_IDENT;
        for (size_t i = 0; i < sizeof(pdp_reserved) / sizeof(pdp_reserved[0]);
             i++) {
            if (strlen(pdp_reserved[i].rw_text) == t->t_len &&
                memcmp(pdp_reserved[i].rw_text, t->t_text, t->t_len) == 0)
                t->t_kind = pdp_reserved[i].rw_kind;
        }
        return BOX_OK;
    }
    if (c >= '0' && c <= '9') {
        while (cur(lx) >= '0' && cur(lx) <= '9')
            adv(lx);
        t->t_kind = PDP_TK_INT;
        t->t_len = lx->lx_pos - start;
        return BOX_OK;
    }
    if (c == '"') {
        adv(lx);
        for (;;) {
            int d = cur(lx);
            if (d == -1)
                return pdp_lex_error(lx, BOX_EPARSE, t->t_line, t->t_col,
                                     "unterminated string literal");
            adv(lx);
            if (d == '"')
                break;
            if (d == '\\' && cur(lx) != -1)
                adv(lx);
        }
        t->t_kind = PDP_TK_STR;
        t->t_len = lx->lx_pos - start;
        return BOX_OK;
    }
    /* Punctuation: two-character forms first. */
    static const struct {
        char p_a, p_b;
        pdp_tk p_kind;
    } two[] = {
        {':', ':', PDP_TK_DCOLON}, {'=', '=', PDP_TK_EQ}, {'!', '=', PDP_TK_NE},
        {'<', '=', PDP_TK_LE},     {'>', '=', PDP_TK_GE}, {'&', '&', PDP_TK_AND},
        {'|', '|', PDP_TK_OR},
    };
    for (size_t i = 0; i < sizeof(two) / sizeof(two[0]); i++) {
        if (c == two[i].p_a && at(lx, 1) == two[i].p_b) {
            adv(lx);
            adv(lx);
            t->t_kind = two[i].p_kind;
            t->t_len = 2;
            return BOX_OK;
        }
    }
    static const char one_chars[] = "()[]{},;:.@?$<>=!+-*/%";
    static const pdp_tk one_kinds[] = {
        PDP_TK_LPAREN, PDP_TK_RPAREN,   PDP_TK_LBRACKET, PDP_TK_RBRACKET,
        PDP_TK_LBRACE, PDP_TK_RBRACE,   PDP_TK_COMMA,    PDP_TK_SEMI,
        PDP_TK_COLON,  PDP_TK_DOT,      PDP_TK_AT,       PDP_TK_QUESTION,
        PDP_TK_DOLLAR, PDP_TK_LT,       PDP_TK_GT,       PDP_TK_ASSIGN,
        PDP_TK_NOT,    PDP_TK_PLUS,     PDP_TK_MINUS,    PDP_TK_STAR,
        PDP_TK_SLASH,  PDP_TK_PERCENT,
    };
    const char *p = c < 128 ? strchr(one_chars, c) : NULL;
    if (p != NULL && c != 0) {
        adv(lx);
        t->t_kind = one_kinds[p - one_chars];
        t->t_len = 1;
        return BOX_OK;
    }
    uint32_t cp;
    size_t k = box_utf8_decode(lx->lx_src + lx->lx_pos,
                               lx->lx_len - lx->lx_pos, &cp);
    if (k <= 1)
        return pdp_lex_error(lx, BOX_EPARSE, t->t_line, t->t_col,
                             "unexpected character `%c`", c);
    return pdp_lex_error(lx, BOX_EPARSE, t->t_line, t->t_col,
                         "unexpected character `%.*s`", (int)k,
                         lx->lx_src + lx->lx_pos);
}

box_err
pdp_lex_init(pdp_lex *lx, const char *src, size_t len, const char *file,
             box_buf *err)
{
    memset(lx, 0, sizeof(*lx));
    lx->lx_src = src;
    lx->lx_len = len;
    lx->lx_line = 1;
    lx->lx_col = 1;
    lx->lx_file = file != NULL ? file : "<policy>";
    lx->lx_err = err;
    if (len >= 3 && memcmp(src, "\xEF\xBB\xBF", 3) == 0)
        lx->lx_pos = 3;
    /* The whole text must be UTF-8; report where it stops being so. */
    size_t i = lx->lx_pos;
    uint32_t line = 1, col = 1;
    while (i < len) {
        unsigned char c = (unsigned char)src[i];
        size_t k = 1;
        if (c >= 0x80) {
            uint32_t cp;
            k = box_utf8_decode(src + i, len - i, &cp);
            if (k == 0)
                return pdp_lex_error(lx, BOX_EPARSE, line, col,
                                     "policy text is not valid UTF-8");
        }
        if (c == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
        i += k;
    }
    lx->lx_prev_end = lx->lx_pos;
    return scan(lx, &lx->lx_tok);
}

box_err
pdp_lex_next(pdp_lex *lx)
{
    if (lx->lx_failed)
        return BOX_EPARSE;
    lx->lx_prev_end = (size_t)(lx->lx_tok.t_text - lx->lx_src) + lx->lx_tok.t_len;
    if (lx->lx_have_ahead) {
        lx->lx_tok = lx->lx_ahead;
        lx->lx_have_ahead = false;
        return BOX_OK;
    }
    return scan(lx, &lx->lx_tok);
}

box_err
pdp_lex_peek(pdp_lex *lx, const pdp_token **out)
{
    if (lx->lx_failed)
        return BOX_EPARSE;
    if (!lx->lx_have_ahead) {
        box_err rv = scan(lx, &lx->lx_ahead);
        if (rv != BOX_OK)
            return rv;
        lx->lx_have_ahead = true;
    }
    *out = &lx->lx_ahead;
    return BOX_OK;
}

/* ---- string literals ---- */

/* Line/col of byte offset off inside tok (tokens never span... except
 * strings, which may hold newlines). */
static void
tok_pos(const pdp_token *tok, size_t off, uint32_t *line, uint32_t *col)
{
    *line = tok->t_line;
    *col = tok->t_col;
    for (size_t i = 0; i < off; i++) {
        unsigned char c = (unsigned char)tok->t_text[i];
        if (c == '\n') {
            (*line)++;
            *col = 1;
        } else if ((c & 0xC0) != 0x80) {
            (*col)++;
        }
    }
}

static box_err
bad_escape(pdp_lex *lx, const pdp_token *tok, size_t off, size_t n)
{
    uint32_t line, col;
    tok_pos(tok, off, &line, &col);
    return pdp_lex_error(lx, BOX_EPARSE, line, col,
                         "the input `%.*s` is not a valid escape", (int)n,
                         tok->t_text + off);
}

box_err
pdp_lex_string(pdp_lex *lx, const pdp_token *tok, box_arena *a, bool pattern,
               char **out, size_t *outlen, bool **wild)
{
    /* The decoded text is never longer than the raw body. */
    const char *s = tok->t_text + 1;
    size_t n = tok->t_len - 2, o = 0;
    char *d = box_arena_alloc(a, n + 1);
    bool *w = pattern ? box_arena_zalloc(a, n + 1) : NULL;
    if (d == NULL || (pattern && w == NULL))
        return BOX_ENOMEM;
    for (size_t i = 0; i < n;) {
        char c = s[i];
        if (c != '\\') {
            if (pattern && c == '*')
                w[o] = true;
            d[o++] = c;
            i++;
            continue;
        }
        size_t off = i + 1; // offset of the backslash within the token
        if (i + 1 >= n)
            return bad_escape(lx, tok, off, 1);
        char e = s[i + 1];
        switch (e) {
        case 'n': d[o++] = '\n'; i += 2; continue;
        case 'r': d[o++] = '\r'; i += 2; continue;
        case 't': d[o++] = '\t'; i += 2; continue;
        case '0': d[o++] = '\0'; i += 2; continue;
        case '\\': d[o++] = '\\'; i += 2; continue;
        case '"': d[o++] = '"'; i += 2; continue;
        case '\'': d[o++] = '\''; i += 2; continue;
        case '*':
            if (!pattern)
                return bad_escape(lx, tok, off, 2);
            d[o++] = '*'; // literal star: w[o] stays false
            i += 2;
            continue;
        case '\n':
            /* Line continuation: skip the newline and following blanks. */
            i += 2;
            while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
                             s[i] == '\r'))
                i++;
            continue;
        case 'x': {
            int h1 = i + 2 < n ? box_hexval((unsigned char)s[i + 2]) : -1;
            int h2 = i + 3 < n ? box_hexval((unsigned char)s[i + 3]) : -1;
            if (h1 < 0 || h2 < 0) {
                size_t m = 2;
                while (m < 4 && i + m < n &&
                       box_hexval((unsigned char)s[i + m]) >= 0)
                    m++;
                return bad_escape(lx, tok, off, m);
            }
            int v = h1 * 16 + h2;
            if (v > 0x7F)
                return bad_escape(lx, tok, off, 4);
            /* In a pattern only `\*` is a literal star: a star written
             * \x2a or \u{2a} is a wildcard, as in Cedar (which unescapes
             * the text first and takes any `*` but `\*` as a wildcard). */
            if (pattern && v == '*')
                w[o] = true;
            d[o++] = (char)v;
            i += 4;
            continue;
        }
        case 'u': {
            size_t j = i + 2;
            if (j >= n || s[j] != '{')
                return bad_escape(lx, tok, off, 2);
            j++;
            uint32_t v = 0;
            size_t digits = 0;
            /* Rust allows `_` separators after the first digit
             * (`\u{0_1_2_3}`); they do not count as digits. */
            while (j < n && (box_hexval((unsigned char)s[j]) >= 0 ||
                             (s[j] == '_' && digits > 0))) {
                if (s[j] != '_') {
                    if (digits < 7)
                        v = v * 16 + (uint32_t)box_hexval((unsigned char)s[j]);
                    digits++;
                }
                j++;
            }
            if (j >= n || s[j] != '}')
                return bad_escape(lx, tok, off, j - i);
            j++;
            if (digits == 0 || digits > 6 || v > 0x10FFFF ||
                (v >= 0xD800 && v <= 0xDFFF))
                return bad_escape(lx, tok, off, j - i);
            char buf[4];
            size_t k = box_utf8_encode(v, buf);
            if (pattern && v == '*') // a wildcard, as \x2a above
                w[o] = true;
            /* \u{…} is at least 5 bytes, its encoding at most 4. */
            memcpy(d + o, buf, k);
            o += k;
            i = j;
            continue;
        }
        default: {
            uint32_t cp;
            size_t k = box_utf8_decode(s + i + 1, n - i - 1, &cp);
            return bad_escape(lx, tok, off, 1 + (k ? k : 1));
        }
        }
    }
    d[o] = '\0';
    *out = d;
    *outlen = o;
    if (wild != NULL)
        *wild = w;
    return BOX_OK;
}
