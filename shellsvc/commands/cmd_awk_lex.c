/* SPDX-License-Identifier: Apache-2.0 */
/* awk's lexer: tokens of the program text, with awk's rule that `/` after
 * an operand divides and elsewhere starts a regex, string escapes as gawk
 * reads them (with its warning for an unknown one), and gawk's messages
 * with the source line and a caret. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_awk_lex.h"

static const struct {
    const char *k_name;
    int k_tok;
} keywords[] = {
    {"BEGIN", T_BEGIN},     {"END", T_END},
    {"break", T_BREAK},     {"continue", T_CONTINUE},
    {"delete", T_DELETE},   {"do", T_DO},
    {"else", T_ELSE},       {"exit", T_EXIT},
    {"for", T_FOR},         {"func", T_FUNCTION},
    {"function", T_FUNCTION}, {"getline", T_GETLINE},
    {"if", T_IF},           {"in", T_IN},
    {"next", T_NEXT},       {"nextfile", T_NEXTFILE},
    {"print", T_PRINT},     {"printf", T_PRINTF},
    {"return", T_RETURN},   {"while", T_WHILE},
};

void
awk_lex_where(const awk_lex *lx, char *buf, size_t len)
{
    const awk_src *s = &lx->lx_srcs[lx->lx_si < lx->lx_nsrcs ? lx->lx_si
                                                             : lx->lx_nsrcs - 1];
    snprintf(buf, len, "awk: %s:%d: ", s->s_name ? s->s_name : "cmd. line",
             lx->lx_tline);
}

void
awk_lex_error(awk_lex *lx, const char *msg)
{
    if (lx->lx_failed)
        return;
    lx->lx_failed = true;
    char where[256];
    awk_lex_where(lx, where, sizeof where);
    // The source line holding the token, and a caret under its start.
    size_t at = lx->lx_start;
    if (at > lx->lx_n)
        at = lx->lx_n;
    size_t ls = at;
    while (ls > 0 && lx->lx_p[ls - 1] != '\n')
        ls--;
    size_t le = ls;
    while (le < lx->lx_n && lx->lx_p[le] != '\n')
        le++;
    box_buf b;
    box_buf_init(&b, 1u << 20);
    bool ok = box_buf_printf(&b, "%s%.*s\n%s", where, (int)(le - ls),
                             lx->lx_p + ls, where) == BOX_OK;
    for (size_t i = ls; ok && i < at; i++)
        ok = box_buf_putc(&b, lx->lx_p[i] == '\t' ? '\t' : ' ') == BOX_OK;
    ok = ok && box_buf_printf(&b, "^ %s\n", msg) == BOX_OK;
    if (ok) {
        (void)sh_puts(lx->lx_cx, 2, SH_PREFIX);
        (void)sh_write(lx->lx_cx, 2, b.b_data, b.b_len);
    }
    box_buf_reset(&b);
}

static void
warn(awk_lex *lx, const char *fmt, char c)
{
    char where[256], msg[128];
    awk_lex_where(lx, where, sizeof where);
    snprintf(msg, sizeof msg, fmt, c, c);
    sh_errf(lx->lx_cx, "%swarning: %s", where, msg);
}

/* One escape after a backslash at s[*i] (the letter): appends its byte(s)
 * to b. In a regex (re) the escapes regcomp reads are kept. */
static bool
lex_escape(awk_lex *lx, const char *s, size_t n, size_t *i, box_buf *b)
{
    char c = s[*i];
    const char *from = "abfnrtv\\\"", *to = "\a\b\f\n\r\t\v\\\"";
    const char *f = strchr(from, c);
    if (c != '\0' && f != NULL) {
        (*i)++;
        return box_buf_putc(b, to[f - from]) == BOX_OK;
    }
    if (c >= '0' && c <= '7') {
        unsigned v = 0;
        for (int k = 0; k < 3 && *i < n && s[*i] >= '0' && s[*i] <= '7'; k++)
            v = v * 8 + (unsigned)(s[(*i)++] - '0');
        return box_buf_putc(b, (char)v) == BOX_OK;
    }
    if (c == 'x' && *i + 1 < n && isxdigit((unsigned char)s[*i + 1])) {
        unsigned v = 0;
        (*i)++;
        for (int k = 0; k < 2 && *i < n && isxdigit((unsigned char)s[*i]);
             k++) {
            int d = (unsigned char)s[(*i)++];
            v = v * 16 + (unsigned)(isdigit(d) ? d - '0' : tolower(d) - 'a' + 10);
        }
        return box_buf_putc(b, (char)v) == BOX_OK;
    }
    if (c == '\n') { // a continued line
        (*i)++;
        lx->lx_line++;
        return true;
    }
    warn(lx, "escape sequence `\\%c' treated as plain `%c'", c);
    (*i)++;
    return box_buf_putc(b, c) == BOX_OK;
}

/* Whether a `/` now divides: the token before ends an operand. */
static bool
divides(int prev)
{
    switch (prev) {
    case T_NAME: case T_NUMBER: case T_STRING: case T_ERE: case T_RPAREN:
    case T_RBRACKET: case T_BUILTIN: case T_INCR: case T_DECR: case T_DOLLAR:
        return true;
    default:
        return false;
    }
}

static int
lex_number(awk_lex *lx)
{
    const char *s = lx->lx_p + lx->lx_i;
    size_t n = lx->lx_n - lx->lx_i, k = 0;
    if (n > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
        isxdigit((unsigned char)s[2])) {
        double v = 0;
        for (k = 2; k < n && isxdigit((unsigned char)s[k]); k++) {
            int d = (unsigned char)s[k];
            v = v * 16 + (isdigit(d) ? d - '0' : tolower(d) - 'a' + 10);
        }
        lx->lx_num = v;
        lx->lx_i += k;
        return T_NUMBER;
    }
    while (k < n && isdigit((unsigned char)s[k]))
        k++;
    bool octal = k > 1 && s[0] == '0';
    for (size_t j = 0; j < k && octal; j++)
        octal = s[j] <= '7';
    if (k < n && s[k] == '.') {
        octal = false;
        for (k++; k < n && isdigit((unsigned char)s[k]);)
            k++;
    }
    if (k < n && (s[k] == 'e' || s[k] == 'E')) {
        size_t e = k + 1;
        if (e < n && (s[e] == '+' || s[e] == '-'))
            e++;
        if (e < n && isdigit((unsigned char)s[e])) {
            octal = false;
            for (k = e; k < n && isdigit((unsigned char)s[k]);)
                k++;
        }
    }
    if (octal) {
        double v = 0;
        for (size_t j = 0; j < k; j++)
            v = v * 8 + (s[j] - '0');
        lx->lx_num = v;
    } else {
        lx->lx_num = awk_strtod(s, k);
    }
    lx->lx_i += k;
    return T_NUMBER;
}

/* A string or regex body up to its closing quote: T_STRING / T_ERE, or
 * T_BAD after the message. */
static int
lex_quoted(awk_lex *lx, bool re)
{
    box_buf b;
    box_buf_init(&b, AWK_STR_MAX);
    const char *s = lx->lx_p;
    size_t i = lx->lx_i;
    char q = re ? '/' : '"';
    bool in_br = false;
    for (;;) {
        if (i >= lx->lx_n || s[i] == '\n') {
            lx->lx_end = lx->lx_start + 1;
            awk_lex_error(lx, re ? "unterminated regexp" : "unterminated string");
            box_buf_reset(&b);
            return T_BAD;
        }
        char c = s[i];
        if (re) {
            // A regex keeps its escapes for cmd_awk_re.c, but `\/` is '/'
            // and a '/' in a bracket expression does not end it.
            if (c == '\\' && i + 1 < lx->lx_n) {
                if (s[i + 1] == '/') {
                    if (box_buf_putc(&b, '/') != BOX_OK)
                        goto big;
                } else if (s[i + 1] == '\n') {
                    lx->lx_line++;
                } else if (box_buf_append(&b, s + i, 2) != BOX_OK) {
                    goto big;
                }
                i += 2;
                continue;
            }
            if (c == '[' && !in_br) {
                in_br = true;
                if (box_buf_putc(&b, c) != BOX_OK)
                    goto big;
                i++;
                if (i < lx->lx_n && s[i] == '^' &&
                    box_buf_putc(&b, s[i++]) != BOX_OK)
                    goto big;
                if (i < lx->lx_n && s[i] == ']' &&
                    box_buf_putc(&b, s[i++]) != BOX_OK)
                    goto big;
                continue;
            }
            if (c == ']' && in_br)
                in_br = false;
            if (c == q && !in_br)
                break;
            if (box_buf_putc(&b, c) != BOX_OK)
                goto big;
            i++;
            continue;
        }
        if (c == q)
            break;
        if (c == '\\' && i + 1 < lx->lx_n) {
            i++;
            if (!lex_escape(lx, s, lx->lx_n, &i, &b))
                goto big;
            continue;
        }
        if (box_buf_putc(&b, c) != BOX_OK)
            goto big;
        i++;
    }
    lx->lx_i = i + 1;
    lx->lx_len = b.b_len;
    lx->lx_str = box_arena_strndup(lx->lx_arena, b.b_data ? b.b_data : "",
                                   b.b_len);
    box_buf_reset(&b);
    return lx->lx_str != NULL ? (re ? T_ERE : T_STRING) : T_BAD;
big:
    box_buf_reset(&b);
    awk_lex_error(lx, "string too long");
    return T_BAD;
}

static int
lex_op(awk_lex *lx, char c)
{
    const char *s = lx->lx_p + lx->lx_i;
    size_t n = lx->lx_n - lx->lx_i;
    char d = n > 0 ? s[0] : '\0';
    char e = n > 1 ? s[1] : '\0';
#define TAKE(k, t) (lx->lx_i += (k), (t))
    switch (c) {
    case '{': return T_LBRACE;
    case '}': return T_RBRACE;
    case '(': return T_LPAREN;
    case ')': return T_RPAREN;
    case '[': return T_LBRACKET;
    case ']': return T_RBRACKET;
    case ';': return T_SEMI;
    case ',': return T_COMMA;
    case '?': return T_QUESTION;
    case ':': return T_COLON;
    case '~': return T_MATCH;
    case '$': return T_DOLLAR;
    case '+': return d == '+' ? TAKE(1, T_INCR) : d == '=' ? TAKE(1, T_ADD_ASSIGN) : T_PLUS;
    case '-': return d == '-' ? TAKE(1, T_DECR) : d == '=' ? TAKE(1, T_SUB_ASSIGN) : T_MINUS;
    case '*':
        if (d == '*')
            return e == '=' ? TAKE(2, T_POW_ASSIGN) : TAKE(1, T_CARET);
        return d == '=' ? TAKE(1, T_MUL_ASSIGN) : T_STAR;
    case '%': return d == '=' ? TAKE(1, T_MOD_ASSIGN) : T_PERCENT;
    case '^': return d == '=' ? TAKE(1, T_POW_ASSIGN) : T_CARET;
    case '=': return d == '=' ? TAKE(1, T_EQ) : T_ASSIGN;
    case '!':
        return d == '=' ? TAKE(1, T_NE) : d == '~' ? TAKE(1, T_NOMATCH) : T_NOT;
    case '<': return d == '=' ? TAKE(1, T_LE) : T_LT;
    case '>':
        return d == '=' ? TAKE(1, T_GE) : d == '>' ? TAKE(1, T_APPEND) : T_GT;
    case '|': return d == '|' ? TAKE(1, T_OR) : T_PIPE;
    case '&':
        if (d == '&')
            return TAKE(1, T_AND);
        return T_BAD;
    default:
        return T_BAD;
    }
#undef TAKE
}

static int
lex_token(awk_lex *lx)
{
    for (;;) {
        if (lx->lx_i >= lx->lx_n) {
            if (lx->lx_si + 1 < lx->lx_nsrcs) {
                // the next source: a newline ends the last one's item
                lx->lx_si++;
                lx->lx_p = lx->lx_srcs[lx->lx_si].s_text;
                lx->lx_n = lx->lx_srcs[lx->lx_si].s_len;
                lx->lx_i = 0;
                lx->lx_start = lx->lx_end = 0;
                lx->lx_tline = lx->lx_line;
                lx->lx_line = 1;
                return T_NEWLINE;
            }
            lx->lx_start = lx->lx_end = lx->lx_n;
            lx->lx_tline = lx->lx_line;
            return T_EOF;
        }
        char c = lx->lx_p[lx->lx_i];
        if (c == ' ' || c == '\t' || c == '\r') {
            lx->lx_i++;
        } else if (c == '\\' && lx->lx_i + 1 < lx->lx_n &&
                   lx->lx_p[lx->lx_i + 1] == '\n') {
            lx->lx_i += 2;
            lx->lx_line++;
        } else if (c == '\\' && lx->lx_i + 2 < lx->lx_n &&
                   lx->lx_p[lx->lx_i + 1] == '\r' &&
                   lx->lx_p[lx->lx_i + 2] == '\n') {
            lx->lx_i += 3;
            lx->lx_line++;
        } else if (c == '#') {
            while (lx->lx_i < lx->lx_n && lx->lx_p[lx->lx_i] != '\n')
                lx->lx_i++;
        } else {
            break;
        }
    }
    const char *s = lx->lx_p;
    lx->lx_start = lx->lx_i;
    lx->lx_tline = lx->lx_line;
    char c = s[lx->lx_i];
    if (c == '\n') {
        lx->lx_i++;
        lx->lx_line++;
        lx->lx_tline = lx->lx_line; // gawk numbers it with the next line
        return T_NEWLINE;
    }
    if (isdigit((unsigned char)c) ||
        (c == '.' && lx->lx_i + 1 < lx->lx_n &&
         isdigit((unsigned char)s[lx->lx_i + 1])))
        return lex_number(lx);
    if (isalpha((unsigned char)c) || c == '_') {
        size_t k = lx->lx_i;
        while (k < lx->lx_n && (isalnum((unsigned char)s[k]) || s[k] == '_'))
            k++;
        size_t len = k - lx->lx_i;
        const char *w = s + lx->lx_i;
        lx->lx_i = k;
        for (size_t j = 0; j < sizeof keywords / sizeof keywords[0]; j++)
            if (strlen(keywords[j].k_name) == len &&
                memcmp(keywords[j].k_name, w, len) == 0)
                return keywords[j].k_tok;
        lx->lx_str = box_arena_strndup(lx->lx_arena, w, len);
        lx->lx_len = len;
        if (lx->lx_str == NULL)
            return T_BAD;
        int bi = awk_bi_lookup(w, len);
        if (bi >= 0) {
            lx->lx_bi = bi;
            return T_BUILTIN;
        }
        return k < lx->lx_n && s[k] == '(' ? T_FUNC_NAME : T_NAME;
    }
    lx->lx_i++;
    if (c == '"')
        return lex_quoted(lx, false);
    if (c == '/' && !divides(lx->lx_prev))
        return lex_quoted(lx, true);
    if (c == '/')
        return lx->lx_i < lx->lx_n && s[lx->lx_i] == '=' ? (lx->lx_i++, T_DIV_ASSIGN)
                                                         : T_SLASH;
    return lex_op(lx, c);
}

void
awk_lex_next(awk_lex *lx)
{
    if (lx->lx_failed) {
        lx->lx_tok = T_BAD;
        return;
    }
    int t = lex_token(lx);
    lx->lx_end = lx->lx_i;
    if (t == T_BAD && !lx->lx_failed) {
        lx->lx_end = lx->lx_start + 1;
        awk_lex_error(lx, "syntax error");
    }
    lx->lx_tok = t;
    lx->lx_prev = t;
}
