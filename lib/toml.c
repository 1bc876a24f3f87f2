/* SPDX-License-Identifier: Apache-2.0 */
/* A recursive-descent TOML 1.0 parser with line:column errors, for box.toml. */
#include "toml.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_hex.h"

/*
 * Shape. TOML's lexical grammar depends on where the parser stands (`1.5`
 * is a float as a value but two keys before `=`; `true` is a boolean or a
 * bare key), so there is no separate token stream: a cursor over the text
 * and one function per grammar rule, each with its rule in a comment. Every
 * byte goes through ps_adv, which keeps the line and column current.
 *
 * Tables carry the flags TOML's "define once" rules need (after tomli):
 *   TV_EXPLICIT  defined by its own `[header]`: no second header, and no
 *                dotted key from another section may add to it;
 *   TV_DOTTED    defined by dotted keys in section tv_section: only that
 *                same section may add to it, and no header may reopen it;
 *   TV_FROZEN    an inline table: complete when its `}` is read.
 * A table with no flag was created implicitly by a header (`a` in `[a.b]`)
 * and may still be defined once, by a header or by dotted keys.
 */

enum {
    TV_EXPLICIT = 1u << 0,
    TV_DOTTED = 1u << 1,
    TV_FROZEN = 1u << 2,
};

typedef struct toml_entry {
    char *te_key; // owned, NUL-terminated, may hold NUL
    size_t te_keylen;
    toml_pos te_pos;
    toml_value *te_val; // owned
} toml_entry;

struct toml_value {
    toml_kind tv_kind;
    toml_pos tv_pos;
    unsigned tv_flags;   // TV_* for tables
    uint32_t tv_section; // for TV_DOTTED: the section that defined it
    uint32_t tv_depth;   // 0 for the root
    union {
        struct {
            char *s; // owned, NUL-terminated
            size_t len;
        } str;
        int64_t i;
        bool b;
        struct {
            toml_entry *e;
            size_t len, cap;
        } tab;
        struct {
            toml_value **e;
            size_t len, cap;
        } arr;
    } tv_u;
};

struct toml_doc {
    toml_value *td_root;
};

/* The parse state: the text, the cursor, and the first error. */
typedef struct toml_parser {
    const char *ps_src;
    size_t ps_len;
    size_t ps_pos;
    toml_pos ps_at;       // line and column of ps_pos
    toml_value *ps_root;  // owned until handed to the document
    toml_value *ps_table; // the current section's table
    uint32_t ps_section;  // bumped by every header
    char *ps_msg;         // owned; the first error only
} toml_parser;

/* One dotted key, split into parts; each part's bytes are owned until an
 * entry takes them. */
typedef struct toml_key {
    size_t k_n;
    struct {
        char *s;
        size_t len;
        toml_pos pos;
    } k_part[TOML_MAX_DEPTH];
} toml_key;

/* ORDER TOML_KIND */
static const char *const toml_kind_text[] = {
    [TOML_TABLE] = "table",   [TOML_ARRAY] = "array",
    [TOML_STRING] = "string", [TOML_INTEGER] = "integer",
    [TOML_BOOL] = "boolean",
};

/* ---- values ---- */

/* Frees v and everything in it; recursion is bounded by TOML_MAX_DEPTH. */
static void
value_free(toml_value *v)
{
    if (v == NULL)
        return;
    switch (v->tv_kind) {
    case TOML_STRING:
        box_free(v->tv_u.str.s);
        break;
    case TOML_TABLE:
        for (size_t i = 0; i < v->tv_u.tab.len; i++) {
            box_free(v->tv_u.tab.e[i].te_key);
            value_free(v->tv_u.tab.e[i].te_val);
        }
        box_free(v->tv_u.tab.e);
        break;
    case TOML_ARRAY:
        for (size_t i = 0; i < v->tv_u.arr.len; i++)
            value_free(v->tv_u.arr.e[i]);
        box_free(v->tv_u.arr.e);
        break;
    case TOML_INTEGER:
    case TOML_BOOL:
        break;
    }
    box_free(v);
}

static toml_value *
value_new(toml_kind kind, toml_pos pos, uint32_t depth)
{
    toml_value *v = box_calloc(1, sizeof(*v));
    if (v == NULL)
        return NULL;
    v->tv_kind = kind;
    v->tv_pos = pos;
    v->tv_depth = depth;
    return v;
}

static toml_entry *
table_find(const toml_value *t, const char *key, size_t len)
{
    for (size_t i = 0; i < t->tv_u.tab.len; i++) {
        toml_entry *e = &t->tv_u.tab.e[i];
        if (e->te_keylen == len && memcmp(e->te_key, key, len) == 0)
            return e;
    }
    return NULL;
}

/* ---- cursor ---- */

static int
ps_peek(const toml_parser *ps)
{
    if (ps->ps_pos >= ps->ps_len)
        return EOF;
    return (unsigned char)ps->ps_src[ps->ps_pos];
}

static int
ps_peek_at(const toml_parser *ps, size_t k)
{
    if (ps->ps_pos >= ps->ps_len || k >= ps->ps_len - ps->ps_pos)
        return EOF;
    return (unsigned char)ps->ps_src[ps->ps_pos + k];
}

/* Consumes one byte; a column counts characters, so UTF-8 continuation
 * bytes do not advance it. */
static void
ps_adv(toml_parser *ps)
{
    unsigned char c = (unsigned char)ps->ps_src[ps->ps_pos++];
    if (c == '\n') {
        ps->ps_at.line++;
        ps->ps_at.column = 1;
    } else if ((c & 0xC0) != 0x80) {
        ps->ps_at.column++;
    }
}

static bool
is_control(int c)
{
    return (c >= 0 && c < 0x20) || c == 0x7F;
}

/* The length of the UTF-8 sequence a lead byte starts (the text is
 * validated before parsing, so the bytes after it are there). */
static size_t
utf8_len(unsigned char c)
{
    if (c < 0x80)
        return 1;
    if (c < 0xE0)
        return 2;
    if (c < 0xF0)
        return 3;
    return 4;
}

/* Names what sits at the cursor, for "found X" in messages. */
static const char *
ps_describe(const toml_parser *ps, char *buf, size_t size)
{
    int c = ps_peek(ps);
    if (c == EOF)
        return "end of input";
    if (c == '\n' || (c == '\r' && ps_peek_at(ps, 1) == '\n'))
        return "a newline";
    if (is_control(c)) {
        snprintf(buf, size, "U+%04X", (unsigned)c);
        return buf;
    }
    if (c == '`')
        return "a backtick";
    size_t n = utf8_len((unsigned char)c);
    snprintf(buf, size, "`%.*s`", (int)n, ps->ps_src + ps->ps_pos);
    return buf;
}

/* ---- errors ---- */

/* Records the first error as `line L, column C: msg` and returns
 * BOX_EPARSE (or BOX_ENOMEM if the message cannot be built). */
static box_err ps_error(toml_parser *ps, toml_pos at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static box_err
ps_error(toml_parser *ps, toml_pos at, const char *fmt, ...)
{
    if (ps->ps_msg != NULL)
        return BOX_EPARSE;
    box_buf b;
    box_buf_init(&b, 32768); // holds any key_text plus the sentence
    box_err rv = box_buf_printf(&b, "line %u, column %u: ", (unsigned)at.line,
                                (unsigned)at.column);
    if (rv == BOX_OK) {
        va_list ap;
        va_start(ap, fmt);
        rv = box_buf_vprintf(&b, fmt, ap);
        va_end(ap);
    }
    if (rv == BOX_OK)
        ps->ps_msg = box_buf_take(&b);
    box_buf_reset(&b);
    if (ps->ps_msg == NULL)
        return BOX_ENOMEM;
    return BOX_EPARSE;
}

static box_err
ps_nomem(toml_parser *ps)
{
    if (ps->ps_msg == NULL)
        ps->ps_msg = box_strdup("out of memory");
    return BOX_ENOMEM;
}

/* Appends a key the way a TOML author would write it: bare when it can
 * be, otherwise as a basic string with escapes; a key past 64 bytes is cut
 * (on a character boundary) and marked with "...". */
static box_err
put_key(box_buf *b, const char *s, size_t len)
{
    const char *more = "";
    if (len > 64) {
        len = 64;
        while (len > 0 && ((unsigned char)s[len] & 0xC0) == 0x80)
            len--;
        more = "...";
    }
    bool bare = len > 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_' || c == '-'))
            bare = false;
    }
    if (bare) {
        box_err rv = box_buf_append(b, s, len);
        return rv == BOX_OK ? box_buf_puts(b, more) : rv;
    }
    box_err rv = box_buf_putc(b, '"');
    for (size_t i = 0; i < len && rv == BOX_OK; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            rv = box_buf_printf(b, "\\%c", c);
        else if (is_control(c))
            rv = box_buf_printf(b, "\\u%04X", c);
        else
            rv = box_buf_putc(b, (char)c);
    }
    if (rv == BOX_OK)
        rv = box_buf_puts(b, more);
    if (rv == BOX_OK)
        rv = box_buf_putc(b, '"');
    return rv;
}

/* The first n parts of a key, joined with dots, for messages; the caller
 * frees it. NULL on allocation failure. */
static char *
key_text(const toml_key *key, size_t n)
{
    box_buf b;
    box_buf_init(&b, 16384); // 64 parts of at most 64 bytes, escaped
    box_err rv = BOX_OK;
    for (size_t i = 0; i < n && rv == BOX_OK; i++) {
        if (i > 0)
            rv = box_buf_putc(&b, '.');
        if (rv == BOX_OK)
            rv = put_key(&b, key->k_part[i].s, key->k_part[i].len);
    }
    if (rv != BOX_OK && rv != BOX_ETOOBIG) {
        box_buf_reset(&b);
        return NULL;
    }
    return box_buf_take(&b);
}

static const char *
kind_article(toml_kind k)
{
    return k == TOML_ARRAY || k == TOML_INTEGER ? "an" : "a";
}

/* ---- UTF-8 ---- */

/* Finds the first byte that is not part of well-formed UTF-8 (no overlong
 * forms, no surrogates, nothing past U+10FFFF); returns len if none. */
static size_t
utf8_invalid_at(const unsigned char *s, size_t len)
{
    size_t i = 0;
    while (i < len) {
        unsigned char c = s[i];
        size_t n;
        unsigned char lo = 0x80, hi = 0xBF;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xC2 && c <= 0xDF) {
            n = 2;
        } else if (c >= 0xE0 && c <= 0xEF) {
            n = 3;
            if (c == 0xE0)
                lo = 0xA0; // overlong
            if (c == 0xED)
                hi = 0x9F; // surrogates
        } else if (c >= 0xF0 && c <= 0xF4) {
            n = 4;
            if (c == 0xF0)
                lo = 0x90; // overlong
            if (c == 0xF4)
                hi = 0x8F; // past U+10FFFF
        } else {
            return i;
        }
        if (len - i < n)
            return i;
        if (s[i + 1] < lo || s[i + 1] > hi)
            return i;
        for (size_t k = 2; k < n; k++)
            if (s[i + k] < 0x80 || s[i + k] > 0xBF)
                return i;
        i += n;
    }
    return len;
}

static box_err
utf8_put(box_buf *b, uint32_t cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80) {
        u[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        u[0] = (char)(0xC0 | (cp >> 6));
        u[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        u[0] = (char)(0xE0 | (cp >> 12));
        u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        u[0] = (char)(0xF0 | (cp >> 18));
        u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        u[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return box_buf_append(b, u, n);
}

/* ---- whitespace, comments, newlines ---- */

/* ws -> { ' ' | '\t' } */
static void
skip_ws(toml_parser *ps)
{
    int c;
    while ((c = ps_peek(ps)) == ' ' || c == '\t')
        ps_adv(ps);
}

static bool
at_newline(const toml_parser *ps)
{
    int c = ps_peek(ps);
    return c == '\n' || (c == '\r' && ps_peek_at(ps, 1) == '\n');
}

/* newline -> '\n' | '\r\n'   (a lone '\r' is refused) */
static box_err
parse_newline(toml_parser *ps)
{
    if (ps_peek(ps) == '\r') {
        if (ps_peek_at(ps, 1) != '\n')
            return ps_error(ps, ps->ps_at,
                            "a carriage return must be followed by a line "
                            "feed");
        ps_adv(ps);
    }
    ps_adv(ps);
    return BOX_OK;
}

/* comment -> '#' { any character but a control character other than tab }
 * (stops before the newline) */
static box_err
parse_comment(toml_parser *ps)
{
    ps_adv(ps); // '#'
    for (;;) {
        int c = ps_peek(ps);
        if (c == EOF || at_newline(ps))
            return BOX_OK;
        if (c != '\t' && is_control(c))
            return ps_error(ps, ps->ps_at,
                            "control character U+%04X is not allowed in a "
                            "comment",
                            (unsigned)c);
        ps_adv(ps);
    }
}

/* line-end -> ws [ comment ] ( newline | end of input ) */
static box_err
parse_line_end(toml_parser *ps, const char *after)
{
    skip_ws(ps);
    box_err rv;
    if (ps_peek(ps) == '#' && (rv = parse_comment(ps)) != BOX_OK)
        return rv;
    int c = ps_peek(ps);
    if (c == EOF)
        return BOX_OK;
    if (c == '\n' || c == '\r')
        return parse_newline(ps);
    char buf[32];
    return ps_error(ps, ps->ps_at,
                    "expected the end of the line after %s, found %s", after,
                    ps_describe(ps, buf, sizeof(buf)));
}

/* ws-comment-newline -> { ws | comment | newline }   (inside arrays) */
static box_err
skip_ws_comment_newline(toml_parser *ps)
{
    for (;;) {
        int c = ps_peek(ps);
        box_err rv = BOX_OK;
        if (c == ' ' || c == '\t')
            ps_adv(ps);
        else if (c == '#')
            rv = parse_comment(ps);
        else if (c == '\n' || c == '\r')
            rv = parse_newline(ps);
        else
            return BOX_OK;
        if (rv != BOX_OK)
            return rv;
    }
}

/* ---- strings ---- */

/* escaped -> '\' ( 'b' | 't' | 'n' | 'f' | 'r' | '"' | '\' |
 *                  'u' 4HEXDIG | 'U' 8HEXDIG )
 * and, in a multi-line string only, a line-ending backslash:
 *   '\' ws newline { ws | newline }   (all of it dropped) */
static box_err
parse_escape(toml_parser *ps, box_buf *out, bool multiline)
{
    toml_pos at = ps->ps_at;
    ps_adv(ps); // '\'
    int c = ps_peek(ps);
    char simple = 0;
    switch (c) {
    case 'b':
        simple = '\b';
        break;
    case 't':
        simple = '\t';
        break;
    case 'n':
        simple = '\n';
        break;
    case 'f':
        simple = '\f';
        break;
    case 'r':
        simple = '\r';
        break;
    case '"':
        simple = '"';
        break;
    case '\\':
        simple = '\\';
        break;
    default:
        break;
    }
    if (simple != 0) {
        ps_adv(ps);
        return box_buf_putc(out, simple) == BOX_OK ? BOX_OK : ps_nomem(ps);
    }
    if (c == 'u' || c == 'U') {
        size_t want = c == 'u' ? 4 : 8;
        uint32_t cp = 0;
        size_t got = 0;
        while (got < want && box_hexval(ps_peek_at(ps, 1 + got)) >= 0) {
            cp = cp * 16 + (uint32_t)box_hexval(ps_peek_at(ps, 1 + got));
            got++;
        }
        if (got < want)
            return ps_error(ps, at,
                            "invalid escape `\\%c`: it needs exactly %zu "
                            "hexadecimal digits",
                            c, want);
        const char *digits = ps->ps_src + ps->ps_pos + 1;
        if (cp >= 0xD800 && cp <= 0xDFFF)
            return ps_error(ps, at,
                            "escape `\\%c%.*s` names a surrogate, which is "
                            "not a Unicode scalar value",
                            c, (int)want, digits);
        if (cp > 0x10FFFF)
            return ps_error(ps, at,
                            "escape `\\%c%.*s` is beyond U+10FFFF, the last "
                            "Unicode code point",
                            c, (int)want, digits);
        for (size_t k = 0; k <= want; k++)
            ps_adv(ps);
        return utf8_put(out, cp) == BOX_OK ? BOX_OK : ps_nomem(ps);
    }
    if (multiline && (c == ' ' || c == '\t' || c == '\n' || c == '\r')) {
        skip_ws(ps);
        if (!at_newline(ps))
            return ps_error(ps, at,
                            "invalid escape: a backslash followed by spaces "
                            "must end the line");
        for (;;) {
            int d = ps_peek(ps);
            if (d == ' ' || d == '\t' || d == '\n')
                ps_adv(ps);
            else if (d == '\r' && ps_peek_at(ps, 1) == '\n')
                ps_adv(ps);
            else
                return BOX_OK;
        }
    }
    if (c == EOF)
        return ps_error(ps, ps->ps_at,
                        "expected an escape character, found end of input");
    char buf[32];
    if (c == '\n' || c == '\r' || is_control(c))
        return ps_error(ps, at,
                        "invalid escape: a backslash followed by %s "
                        "(write `\\\\` for a backslash)",
                        ps_describe(ps, buf, sizeof(buf)));
    size_t n = utf8_len((unsigned char)c);
    return ps_error(ps, at,
                    "invalid escape `\\%.*s` (write `\\\\` for a backslash)",
                    (int)n, ps->ps_src + ps->ps_pos);
}

/* Counts the run of q at the cursor, without consuming it. */
static size_t
quote_run(const toml_parser *ps, int q)
{
    size_t n = 0;
    while (ps_peek_at(ps, n) == q)
        n++;
    return n;
}

/*
 * basic-string    -> '"' { basic-char | escaped } '"'
 * literal-string  -> "'" { literal-char } "'"
 * ml-basic-string -> '"""' [ newline ] ml-basic-body '"""'
 * ml-literal-string -> "'''" [ newline ] ml-literal-body "'''"
 *
 * Control characters other than tab are refused in all four (they must be
 * escaped), and so is a newline in the single-line forms. A multi-line
 * body may hold one or two quote characters in a row, including right
 * before the closing delimiter. The cursor is on the opening quote.
 */
static box_err
parse_string(toml_parser *ps, box_buf *out, bool allow_multiline)
{
    toml_pos open = ps->ps_at;
    int q = ps_peek(ps);
    bool basic = q == '"';
    bool multiline = quote_run(ps, q) >= 3;
    box_err rv;
    const char *what =
        basic ? (multiline ? "multi-line string" : "string")
              : (multiline ? "multi-line literal string" : "literal string");

    if (multiline && !allow_multiline)
        return ps_error(ps, open, "a multi-line string cannot be a key");
    for (int k = 0; k < (multiline ? 3 : 1); k++)
        ps_adv(ps);
    if (multiline && at_newline(ps)) {
        // A newline right after the opening delimiter is trimmed.
        if ((rv = parse_newline(ps)) != BOX_OK)
            return rv;
    }
    for (;;) {
        int c = ps_peek(ps);
        if (c == EOF || (!multiline && (c == '\n' || c == '\r')))
            return ps_error(ps, ps->ps_at,
                            "unterminated %s (it opens at line %u, column %u)",
                            what, (unsigned)open.line, (unsigned)open.column);
        if (c == q) {
            if (!multiline) {
                ps_adv(ps);
                return BOX_OK;
            }
            size_t n = quote_run(ps, q);
            if (n < 3) {
                for (size_t k = 0; k < n; k++) {
                    if (box_buf_putc(out, (char)q) != BOX_OK)
                        return ps_nomem(ps);
                    ps_adv(ps);
                }
                continue;
            }
            if (n > 5)
                n = 5; // the rest follows the string, and is refused there
            for (size_t k = 0; k < n - 3; k++)
                if (box_buf_putc(out, (char)q) != BOX_OK)
                    return ps_nomem(ps);
            for (size_t k = 0; k < n; k++)
                ps_adv(ps);
            return BOX_OK;
        }
        if (c == '\\' && basic) {
            if ((rv = parse_escape(ps, out, multiline)) != BOX_OK)
                return rv;
            continue;
        }
        if (c == '\r' || c == '\n') { // multi-line only, see above
            if ((rv = parse_newline(ps)) != BOX_OK)
                return rv;
            if (box_buf_putc(out, '\n') != BOX_OK)
                return ps_nomem(ps);
            continue;
        }
        if (c != '\t' && is_control(c))
            return ps_error(ps, ps->ps_at,
                            "control character U+%04X must be escaped in a "
                            "string",
                            (unsigned)c);
        if (box_buf_putc(out, (char)c) != BOX_OK)
            return ps_nomem(ps);
        ps_adv(ps);
    }
}

/* ---- keys ---- */

static bool
is_bare_key_char(int c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static void
key_release(toml_key *key)
{
    for (size_t i = 0; i < key->k_n; i++)
        box_free(key->k_part[i].s);
    key->k_n = 0;
}

/* simple-key -> quoted-key | unquoted-key
 * quoted-key -> basic-string | literal-string
 * unquoted-key -> 1*( ALPHA | DIGIT | '-' | '_' ) */
static box_err
parse_simple_key(toml_parser *ps, toml_key *key)
{
    if (key->k_n == TOML_MAX_DEPTH)
        return ps_error(ps, ps->ps_at,
                        "a key has more than %d parts, so it nests deeper "
                        "than %d levels",
                        TOML_MAX_DEPTH, TOML_MAX_DEPTH);
    toml_pos at = ps->ps_at;
    box_buf b;
    box_buf_init(&b, TOML_MAX_INPUT);
    box_err rv = BOX_OK;
    int c = ps_peek(ps);
    if (c == '"' || c == '\'') {
        rv = parse_string(ps, &b, false);
    } else if (is_bare_key_char(c)) {
        size_t start = ps->ps_pos;
        while (is_bare_key_char(ps_peek(ps)))
            ps_adv(ps);
        if (box_buf_append(&b, ps->ps_src + start, ps->ps_pos - start) !=
            BOX_OK)
            rv = ps_nomem(ps);
    } else {
        char buf[32];
        rv = ps_error(ps, at, "expected a key, found %s",
                      ps_describe(ps, buf, sizeof(buf)));
    }
    if (rv != BOX_OK) {
        box_buf_reset(&b);
        return rv;
    }
    size_t len = b.b_len;
    char *s = box_buf_take(&b);
    if (s == NULL)
        return ps_nomem(ps);
    key->k_part[key->k_n].s = s;
    key->k_part[key->k_n].len = len;
    key->k_part[key->k_n].pos = at;
    key->k_n++;
    return BOX_OK;
}

/* key -> simple-key { ws '.' ws simple-key } */
static box_err
parse_key(toml_parser *ps, toml_key *key)
{
    box_err rv = parse_simple_key(ps, key);
    while (rv == BOX_OK) {
        skip_ws(ps);
        if (ps_peek(ps) != '.')
            return BOX_OK;
        ps_adv(ps);
        skip_ws(ps);
        rv = parse_simple_key(ps, key);
    }
    return rv;
}

/* ---- tables ---- */

/* Adds key -> val to t, taking both (on failure too: val is freed, and the
 * key part's bytes stay with the caller's toml_key). */
static box_err
table_add(toml_parser *ps, toml_value *t, toml_key *key, size_t part,
          toml_value *val)
{
    if (t->tv_u.tab.len == TOML_MAX_TABLE_KEYS) {
        value_free(val);
        return ps_error(ps, key->k_part[part].pos,
                        "a table may hold at most %d keys",
                        TOML_MAX_TABLE_KEYS);
    }
    if (t->tv_u.tab.len == t->tv_u.tab.cap) {
        size_t cap = t->tv_u.tab.cap ? t->tv_u.tab.cap * 2 : 8;
        toml_entry *e = box_realloc(t->tv_u.tab.e, cap * sizeof(*e));
        if (e == NULL) {
            value_free(val);
            return ps_nomem(ps);
        }
        t->tv_u.tab.e = e;
        t->tv_u.tab.cap = cap;
    }
    toml_entry *e = &t->tv_u.tab.e[t->tv_u.tab.len++];
    e->te_key = key->k_part[part].s;
    e->te_keylen = key->k_part[part].len;
    e->te_pos = key->k_part[part].pos;
    e->te_val = val;
    key->k_part[part].s = NULL; // the entry owns it now
    return BOX_OK;
}

static box_err
depth_error(toml_parser *ps, toml_pos at)
{
    return ps_error(ps, at, "nesting is deeper than %d levels", TOML_MAX_DEPTH);
}

/* Creates the table named by key part `part` inside t. */
static box_err
table_add_table(toml_parser *ps, toml_value *t, toml_key *key, size_t part,
                toml_pos pos, toml_value **out)
{
    if (t->tv_depth + 1 > TOML_MAX_DEPTH)
        return depth_error(ps, key->k_part[part].pos);
    toml_value *child = value_new(TOML_TABLE, pos, t->tv_depth + 1);
    if (child == NULL)
        return ps_nomem(ps);
    box_err rv = table_add(ps, t, key, part, child);
    if (rv != BOX_OK)
        return rv;
    *out = child;
    return BOX_OK;
}

/* The refusal for a key that names a value where a table is needed. */
static box_err
not_a_table(toml_parser *ps, const toml_key *key, size_t part,
            const toml_entry *e)
{
    char *name = key_text(key, part + 1);
    if (name == NULL)
        return ps_nomem(ps);
    const toml_value *v = e->te_val;
    box_err rv;
    if (v->tv_kind == TOML_TABLE) // only inline tables get here
        rv = ps_error(ps, key->k_part[part].pos,
                      "`%s` is an inline table (line %u, column %u), which "
                      "cannot be extended after the fact",
                      name, (unsigned)v->tv_pos.line,
                      (unsigned)v->tv_pos.column);
    else
        rv =
            ps_error(ps, key->k_part[part].pos,
                     "`%s` is already %s %s (line %u, column %u), so it "
                     "cannot also be a table",
                     name, kind_article(v->tv_kind), toml_kind_name(v->tv_kind),
                     (unsigned)v->tv_pos.line, (unsigned)v->tv_pos.column);
    box_free(name);
    return rv;
}

/* Walks one dotted-key part down from t, creating the table if absent.
 * A dotted key may pass through a table only if that table is not
 * complete: not inline, not defined by a header, and not defined by
 * dotted keys in an earlier section. */
static box_err
descend_dotted(toml_parser *ps, toml_value *t, toml_key *key, size_t part,
               toml_value **out)
{
    toml_entry *e = table_find(t, key->k_part[part].s, key->k_part[part].len);
    if (e == NULL) {
        box_err rv =
            table_add_table(ps, t, key, part, key->k_part[part].pos, out);
        if (rv == BOX_OK) {
            (*out)->tv_flags = TV_DOTTED;
            (*out)->tv_section = ps->ps_section;
        }
        return rv;
    }
    toml_value *v = e->te_val;
    if (v->tv_kind != TOML_TABLE || (v->tv_flags & TV_FROZEN))
        return not_a_table(ps, key, part, e);
    if ((v->tv_flags & TV_EXPLICIT) ||
        ((v->tv_flags & TV_DOTTED) && v->tv_section != ps->ps_section)) {
        char *name = key_text(key, part + 1);
        if (name == NULL)
            return ps_nomem(ps);
        box_err rv = ps_error(
            ps, key->k_part[part].pos,
            "table `%s` was already defined %s at line %u, column %u, so "
            "dotted keys here cannot add to it",
            name,
            (v->tv_flags & TV_EXPLICIT) ? "by a header" : "with dotted keys",
            (unsigned)v->tv_pos.line, (unsigned)v->tv_pos.column);
        box_free(name);
        return rv;
    }
    // An implicit table (from a header such as `[a.b.c]`) becomes defined
    // here; later sections may not add to it.
    if (!(v->tv_flags & TV_DOTTED)) {
        v->tv_flags |= TV_DOTTED;
        v->tv_section = ps->ps_section;
        v->tv_pos = key->k_part[part].pos;
    }
    *out = v;
    return BOX_OK;
}

static box_err parse_value(toml_parser *ps, uint32_t depth, toml_value **out);

/* keyval -> key ws '=' ws val
 * Adds the pair to base (the current section's table, or the inline table
 * being read). */
static box_err
parse_keyval(toml_parser *ps, toml_value *base)
{
    toml_key key;
    key.k_n = 0;
    toml_value *t = base;
    toml_value *val = NULL;
    char buf[32];
    box_err rv = parse_key(ps, &key);
    if (rv != BOX_OK)
        goto out;
    skip_ws(ps);
    if (ps_peek(ps) != '=') {
        rv = ps_error(ps, ps->ps_at, "expected `=` after the key, found %s",
                      ps_describe(ps, buf, sizeof(buf)));
        goto out;
    }
    ps_adv(ps);
    skip_ws(ps);
    for (size_t i = 0; i + 1 < key.k_n; i++)
        if ((rv = descend_dotted(ps, t, &key, i, &t)) != BOX_OK)
            goto out;
    size_t last = key.k_n - 1;
    toml_entry *dup = table_find(t, key.k_part[last].s, key.k_part[last].len);
    if (dup != NULL) {
        char *name = key_text(&key, key.k_n);
        if (name == NULL) {
            rv = ps_nomem(ps);
            goto out;
        }
        rv = ps_error(ps, key.k_part[last].pos,
                      "duplicate key `%s` (first defined at line %u, column "
                      "%u)",
                      name, (unsigned)dup->te_pos.line,
                      (unsigned)dup->te_pos.column);
        box_free(name);
        goto out;
    }
    if ((rv = parse_value(ps, t->tv_depth + 1, &val)) != BOX_OK)
        goto out;
    rv = table_add(ps, t, &key, last, val);
out:
    key_release(&key);
    return rv;
}

/* std-table -> '[' ws key ws ']'
 * array-table -> '[[' ws key ws ']]'   (refused: box.toml has none)
 * Opens a new section: the named table must not be defined already. */
static box_err
parse_table_header(toml_parser *ps)
{
    toml_pos open = ps->ps_at;
    toml_key key;
    key.k_n = 0;
    char buf[32];
    box_err rv;

    if (ps_peek_at(ps, 1) == '[')
        return ps_error(ps, open,
                        "arrays of tables (`[[...]]`) are not supported by "
                        "box.toml");
    ps_adv(ps);
    ps->ps_section++;
    skip_ws(ps);
    if ((rv = parse_key(ps, &key)) != BOX_OK)
        goto out;
    skip_ws(ps);
    if (ps_peek(ps) != ']') {
        rv = ps_error(ps, ps->ps_at,
                      "expected `]` to close the table header opened at line "
                      "%u, column %u, found %s",
                      (unsigned)open.line, (unsigned)open.column,
                      ps_describe(ps, buf, sizeof(buf)));
        goto out;
    }
    ps_adv(ps);

    toml_value *t = ps->ps_root;
    for (size_t i = 0; i < key.k_n; i++) {
        bool last = i + 1 == key.k_n;
        toml_entry *e = table_find(t, key.k_part[i].s, key.k_part[i].len);
        if (e == NULL) {
            toml_pos pos = last ? open : key.k_part[i].pos;
            if ((rv = table_add_table(ps, t, &key, i, pos, &t)) != BOX_OK)
                goto out;
            if (last)
                t->tv_flags = TV_EXPLICIT;
            continue;
        }
        toml_value *v = e->te_val;
        if (v->tv_kind != TOML_TABLE || (v->tv_flags & TV_FROZEN)) {
            rv = not_a_table(ps, &key, i, e);
            goto out;
        }
        if (last && (v->tv_flags & (TV_EXPLICIT | TV_DOTTED))) {
            char *name = key_text(&key, key.k_n);
            if (name == NULL) {
                rv = ps_nomem(ps);
                goto out;
            }
            if (v->tv_flags & TV_EXPLICIT)
                rv = ps_error(ps, open,
                              "table `%s` is defined twice (first at line %u, "
                              "column %u)",
                              name, (unsigned)v->tv_pos.line,
                              (unsigned)v->tv_pos.column);
            else
                rv = ps_error(ps, open,
                              "table `%s` was already defined with dotted "
                              "keys at line %u, column %u, so a header "
                              "cannot define it again",
                              name, (unsigned)v->tv_pos.line,
                              (unsigned)v->tv_pos.column);
            box_free(name);
            goto out;
        }
        if (last) {
            v->tv_flags |= TV_EXPLICIT;
            v->tv_pos = open; // defined here, whatever created it first
        }
        t = v;
    }
    ps->ps_table = t;
    rv = BOX_OK;
out:
    key_release(&key);
    return rv;
}

/* ---- values ---- */

/* array -> '[' ws-comment-newline
 *          [ val ws-comment-newline { ',' ws-comment-newline val
 *            ws-comment-newline } [ ',' ws-comment-newline ] ] ']' */
static box_err
parse_array(toml_parser *ps, uint32_t depth, toml_value **out)
{
    toml_pos open = ps->ps_at;
    char buf[32];
    box_err rv;
    if (depth > TOML_MAX_DEPTH)
        return depth_error(ps, open);
    toml_value *a = value_new(TOML_ARRAY, open, depth);
    if (a == NULL)
        return ps_nomem(ps);
    ps_adv(ps); // '['
    for (;;) {
        if ((rv = skip_ws_comment_newline(ps)) != BOX_OK)
            goto fail;
        if (ps_peek(ps) == ']')
            break;
        if (a->tv_u.arr.len == TOML_MAX_ARRAY_LEN) {
            rv = ps_error(ps, ps->ps_at, "an array may hold at most %d values",
                          TOML_MAX_ARRAY_LEN);
            goto fail;
        }
        if (a->tv_u.arr.len == a->tv_u.arr.cap) {
            size_t cap = a->tv_u.arr.cap ? a->tv_u.arr.cap * 2 : 8;
            toml_value **e = box_realloc(a->tv_u.arr.e, cap * sizeof(*e));
            if (e == NULL) {
                rv = ps_nomem(ps);
                goto fail;
            }
            a->tv_u.arr.e = e;
            a->tv_u.arr.cap = cap;
        }
        toml_value *v = NULL;
        if ((rv = parse_value(ps, depth + 1, &v)) != BOX_OK)
            goto fail;
        a->tv_u.arr.e[a->tv_u.arr.len++] = v;
        if ((rv = skip_ws_comment_newline(ps)) != BOX_OK)
            goto fail;
        int c = ps_peek(ps);
        if (c == ',') {
            ps_adv(ps);
            continue;
        }
        if (c == ']')
            break;
        rv = ps_error(ps, ps->ps_at,
                      "expected `,` or `]` in the array opened at line %u, "
                      "column %u, found %s",
                      (unsigned)open.line, (unsigned)open.column,
                      ps_describe(ps, buf, sizeof(buf)));
        goto fail;
    }
    ps_adv(ps); // ']'
    *out = a;
    return BOX_OK;
fail:
    value_free(a);
    return rv;
}

/* inline-table -> '{' ws [ keyval ws { ',' ws keyval ws } ] '}'
 * All on one line (values such as arrays may still span lines), and no
 * trailing comma: TOML 1.0. */
static box_err
parse_inline_table(toml_parser *ps, uint32_t depth, toml_value **out)
{
    toml_pos open = ps->ps_at;
    char buf[32];
    box_err rv;
    if (depth > TOML_MAX_DEPTH)
        return depth_error(ps, open);
    toml_value *t = value_new(TOML_TABLE, open, depth);
    if (t == NULL)
        return ps_nomem(ps);
    ps_adv(ps); // '{'
    skip_ws(ps);
    if (ps_peek(ps) == '}')
        goto done;
    for (;;) {
        skip_ws(ps);
        if (at_newline(ps)) {
            rv = ps_error(ps, ps->ps_at,
                          "a newline is not allowed inside an inline table "
                          "(opened at line %u, column %u)",
                          (unsigned)open.line, (unsigned)open.column);
            goto fail;
        }
        if (ps_peek(ps) == '}') {
            rv = ps_error(ps, ps->ps_at,
                          "a trailing comma is not allowed in an inline "
                          "table");
            goto fail;
        }
        if ((rv = parse_keyval(ps, t)) != BOX_OK)
            goto fail;
        skip_ws(ps);
        int c = ps_peek(ps);
        if (c == ',') {
            ps_adv(ps);
            continue;
        }
        if (c == '}')
            break;
        if (at_newline(ps))
            rv = ps_error(ps, ps->ps_at,
                          "a newline is not allowed inside an inline table "
                          "(opened at line %u, column %u)",
                          (unsigned)open.line, (unsigned)open.column);
        else
            rv = ps_error(ps, ps->ps_at,
                          "expected `,` or `}` in the inline table opened at "
                          "line %u, column %u, found %s",
                          (unsigned)open.line, (unsigned)open.column,
                          ps_describe(ps, buf, sizeof(buf)));
        goto fail;
    }
done:
    ps_adv(ps); // '}'
    t->tv_flags = TV_FROZEN;
    *out = t;
    return BOX_OK;
fail:
    value_free(t);
    return rv;
}

static bool
is_value_end(int c)
{
    return c == EOF || is_control(c) || c == ' ' || c == ',' || c == ']' ||
           c == '}' || c == '#' || c == '[' || c == '{' || c == '"' ||
           c == '\'' || c == '=';
}

static bool
is_digit(int c)
{
    return c >= '0' && c <= '9';
}

/* digits -> DIGIT { [ '_' ] DIGIT }, in base `base`; the span is [s, e).
 * Returns false when an underscore is not between two digits or a
 * character is no digit; *bad_underscore says which. */
static bool
scan_digits(const char *s, const char *e, int base, bool *bad_underscore)
{
    *bad_underscore = false;
    if (s == e)
        return false;
    bool prev_digit = false;
    for (const char *p = s; p < e; p++) {
        if (*p == '_') {
            if (!prev_digit || p + 1 == e) {
                *bad_underscore = true;
                return false;
            }
            prev_digit = false;
            continue;
        }
        int d = box_hexval((unsigned char)*p);
        if (d < 0 || d >= base)
            return false;
        prev_digit = true;
    }
    return true;
}

/* float -> [ '+' | '-' ] dec-int ( frac [ exp ] | exp )
 * frac -> '.' digits;  exp -> ( 'e' | 'E' ) [ '+' | '-' ] digits
 * Used only to say "floats are not supported" rather than "invalid". */
static bool
is_float(const char *s, const char *e)
{
    bool bad;
    if (s < e && (*s == '+' || *s == '-'))
        s++;
    const char *p = s;
    while (p < e && (is_digit((unsigned char)*p) || *p == '_'))
        p++;
    if (!scan_digits(s, p, 10, &bad) || (p - s > 1 && *s == '0'))
        return false;
    bool frac = false, exp = false;
    if (p < e && *p == '.') {
        const char *q = ++p;
        while (p < e && (is_digit((unsigned char)*p) || *p == '_'))
            p++;
        if (!scan_digits(q, p, 10, &bad))
            return false;
        frac = true;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        p++;
        if (p < e && (*p == '+' || *p == '-'))
            p++;
        const char *q = p;
        while (p < e && (is_digit((unsigned char)*p) || *p == '_'))
            p++;
        if (!scan_digits(q, p, 10, &bad))
            return false;
        exp = true;
    }
    return p == e && (frac || exp);
}

/* integer -> dec-int | hex-int | oct-int | bin-int
 * dec-int -> [ '+' | '-' ] ( '0' | DIGIT1-9 { [ '_' ] DIGIT } )
 * hex-int -> '0x' HEXDIG { [ '_' ] HEXDIG }   (likewise 0o, 0b; no sign)
 * The value must fit in a signed 64-bit integer. */
static box_err
parse_integer(toml_parser *ps, toml_pos at, const char *s, size_t n,
              int64_t *out)
{
    const char *e = s + n;
    const char *p = s;
    bool neg = false, signed_ = false, bad_underscore;
    int base = 10;
    if (*p == '+' || *p == '-') {
        neg = *p == '-';
        signed_ = true;
        p++;
    }
    if (e - p >= 2 && p[0] == '0' &&
        (p[1] == 'x' || p[1] == 'o' || p[1] == 'b')) {
        base = p[1] == 'x' ? 16 : p[1] == 'o' ? 8 : 2;
        if (signed_)
            return ps_error(ps, at,
                            "invalid integer `%.*s`: a hexadecimal, octal or "
                            "binary integer takes no sign",
                            (int)n, s);
        p += 2;
        if (p == e)
            return ps_error(ps, at,
                            "invalid integer `%.*s`: no digits after the "
                            "prefix",
                            (int)n, s);
    }
    if (!scan_digits(p, e, base, &bad_underscore)) {
        if (bad_underscore)
            return ps_error(ps, at,
                            "invalid integer `%.*s`: an underscore must sit "
                            "between two digits",
                            (int)n, s);
        return ps_error(ps, at, "invalid integer `%.*s`", (int)n, s);
    }
    if (base == 10 && e - p > 1 && *p == '0')
        return ps_error(ps, at,
                        "invalid integer `%.*s`: leading zeros are not "
                        "allowed",
                        (int)n, s);
    // Accumulate as a magnitude; INT64_MIN's magnitude is one past MAX.
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    for (; p < e; p++) {
        if (*p == '_')
            continue;
        uint64_t d = (uint64_t)box_hexval((unsigned char)*p);
        if (v > (limit - d) / (uint64_t)base)
            return ps_error(ps, at,
                            "integer `%.*s` is out of range for a 64-bit "
                            "signed integer",
                            (int)n, s);
        v = v * (uint64_t)base + d;
    }
    if (neg)
        *out = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
    else
        *out = (int64_t)v;
    return BOX_OK;
}

/* Shows a bare word in a message, cut at 40 bytes (on a character
 * boundary) so a long line does not flood the terminal. */
static int
word_shown(const char *s, size_t n)
{
    if (n <= 40)
        return (int)n;
    size_t k = 40;
    while (k > 0 && ((unsigned char)s[k] & 0xC0) == 0x80)
        k--;
    return (int)k;
}

/* A value that starts with neither quote nor bracket nor brace:
 *   boolean -> 'true' | 'false'
 *   integer (see parse_integer)
 * and the forms box.toml refuses by name: floats (including inf and nan),
 * dates and times. */
static box_err
parse_scalar(toml_parser *ps, uint32_t depth, toml_value **out)
{
    toml_pos at = ps->ps_at;
    const char *s = ps->ps_src + ps->ps_pos;
    size_t n = 0;
    char buf[32];
    while (!is_value_end(ps_peek_at(ps, n)))
        n++;
    if (n == 0)
        return ps_error(ps, at, "expected a value, found %s",
                        ps_describe(ps, buf, sizeof(buf)));

    const char *u = s; // s without a sign
    if (*u == '+' || *u == '-')
        u++;
    size_t un = n - (size_t)(u - s);
    toml_value *v = NULL;
    if ((n == 4 && memcmp(s, "true", 4) == 0) ||
        (n == 5 && memcmp(s, "false", 5) == 0)) {
        if ((v = value_new(TOML_BOOL, at, depth)) == NULL)
            return ps_nomem(ps);
        v->tv_u.b = n == 4;
    } else if (un == 3 &&
               (memcmp(u, "inf", 3) == 0 || memcmp(u, "nan", 3) == 0)) {
        return ps_error(ps, at, "floats are not supported by box.toml");
    } else if (un == 0 || !is_digit((unsigned char)*u)) {
        int w = word_shown(s, n);
        return ps_error(ps, at,
                        "expected a value, found `%.*s%s` (a string must be "
                        "quoted)",
                        w, s, (size_t)w < n ? "..." : "");
    } else if ((n >= 5 && u == s && is_digit((unsigned char)s[1]) &&
                is_digit((unsigned char)s[2]) &&
                is_digit((unsigned char)s[3]) && s[4] == '-') ||
               (n >= 3 && u == s && is_digit((unsigned char)s[1]) &&
                s[2] == ':')) {
        return ps_error(ps, at,
                        "dates and times are not supported by box.toml");
    } else if (is_float(s, s + n)) {
        return ps_error(ps, at, "floats are not supported by box.toml");
    } else {
        int64_t i = 0;
        box_err rv = parse_integer(ps, at, s, n, &i);
        if (rv != BOX_OK)
            return rv;
        if ((v = value_new(TOML_INTEGER, at, depth)) == NULL)
            return ps_nomem(ps);
        v->tv_u.i = i;
    }
    for (size_t k = 0; k < n; k++)
        ps_adv(ps);
    *out = v;
    return BOX_OK;
}

/* val -> string | boolean | array | inline-table | integer
 * (float and date-time are recognised only to be refused) */
static box_err
parse_value(toml_parser *ps, uint32_t depth, toml_value **out)
{
    int c = ps_peek(ps);
    if (c == '[')
        return parse_array(ps, depth, out);
    if (c == '{')
        return parse_inline_table(ps, depth, out);
    if (c != '"' && c != '\'')
        return parse_scalar(ps, depth, out);

    toml_pos at = ps->ps_at;
    box_buf b;
    box_buf_init(&b, TOML_MAX_INPUT);
    box_err rv = parse_string(ps, &b, true);
    if (rv != BOX_OK) {
        box_buf_reset(&b);
        return rv;
    }
    toml_value *v = value_new(TOML_STRING, at, depth);
    size_t len = b.b_len;
    char *s = box_buf_take(&b);
    if (v == NULL || s == NULL) {
        box_free(v);
        box_free(s);
        return ps_nomem(ps);
    }
    v->tv_u.str.s = s;
    v->tv_u.str.len = len;
    *out = v;
    return BOX_OK;
}

/* ---- document ---- */

/* toml -> expression { newline expression }
 * expression -> ws [ comment ] | ws keyval line-end | ws table line-end */
static box_err
parse_document(toml_parser *ps)
{
    for (;;) {
        skip_ws(ps);
        int c = ps_peek(ps);
        box_err rv;
        if (c == EOF)
            return BOX_OK;
        if (c == '#' || c == '\n' || c == '\r') {
            rv = parse_line_end(ps, "a comment");
        } else if (c == '[') {
            rv = parse_table_header(ps);
            if (rv == BOX_OK)
                rv = parse_line_end(ps, "a table header");
        } else {
            rv = parse_keyval(ps, ps->ps_table);
            if (rv == BOX_OK)
                rv = parse_line_end(ps, "a value");
        }
        if (rv != BOX_OK)
            return rv;
    }
}

box_err
toml_parse(const char *text, size_t len, toml_doc **out, char **err)
{
    toml_parser ps;
    toml_doc *doc = NULL;
    box_err rv;

    if (out != NULL)
        *out = NULL;
    if (err != NULL)
        *err = NULL;
    if (text == NULL || out == NULL || err == NULL)
        return BOX_EINVAL;
    memset(&ps, 0, sizeof(ps));
    ps.ps_src = text;
    ps.ps_len = len;
    ps.ps_at.line = 1;
    ps.ps_at.column = 1;
    if (len > TOML_MAX_INPUT) {
        rv = ps_error(&ps, ps.ps_at,
                      "the text is %zu bytes; at most %u are "
                      "accepted",
                      len, TOML_MAX_INPUT);
        if (rv == BOX_EPARSE)
            rv = BOX_ETOOBIG;
        goto out;
    }
    size_t bad = utf8_invalid_at((const unsigned char *)text, len);
    if (bad < len) {
        while (ps.ps_pos < bad)
            ps_adv(&ps);
        rv = ps_error(&ps, ps.ps_at, "invalid UTF-8 (byte 0x%02X)",
                      (unsigned char)text[bad]);
        goto out;
    }
    if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
        ps.ps_pos = 3; // a byte-order mark is not part of the document
    toml_pos root_pos = {1, 1};
    if ((ps.ps_root = value_new(TOML_TABLE, root_pos, 0)) == NULL) {
        rv = ps_nomem(&ps);
        goto out;
    }
    ps.ps_table = ps.ps_root;
    if ((rv = parse_document(&ps)) != BOX_OK)
        goto out;
    if ((doc = box_alloc(sizeof(*doc))) == NULL) {
        rv = ps_nomem(&ps);
        goto out;
    }
    doc->td_root = ps.ps_root;
    ps.ps_root = NULL;
    *out = doc;
    rv = BOX_OK;
out:
    value_free(ps.ps_root);
    if (rv != BOX_OK)
        *err = ps.ps_msg;
    else
        box_free(ps.ps_msg);
    return rv;
}

void
toml_free(toml_doc *doc)
{
    if (doc == NULL)
        return;
    value_free(doc->td_root);
    box_free(doc);
}

/* ---- accessors ---- */

const toml_value *
toml_root(const toml_doc *doc)
{
    return doc->td_root;
}

toml_kind
toml_value_kind(const toml_value *v)
{
    return v->tv_kind;
}

const char *
toml_kind_name(toml_kind k)
{
    if ((int)k < 0 || k > TOML_BOOL)
        return "unknown";
    return toml_kind_text[k];
}

toml_pos
toml_value_pos(const toml_value *v)
{
    return v->tv_pos;
}

size_t
toml_table_len(const toml_value *t)
{
    return t->tv_kind == TOML_TABLE ? t->tv_u.tab.len : 0;
}

const char *
toml_table_key(const toml_value *t, size_t i, size_t *len)
{
    if (t->tv_kind != TOML_TABLE || i >= t->tv_u.tab.len)
        return NULL;
    if (len != NULL)
        *len = t->tv_u.tab.e[i].te_keylen;
    return t->tv_u.tab.e[i].te_key;
}

toml_pos
toml_table_key_pos(const toml_value *t, size_t i)
{
    toml_pos none = {0, 0};
    if (t->tv_kind != TOML_TABLE || i >= t->tv_u.tab.len)
        return none;
    return t->tv_u.tab.e[i].te_pos;
}

const toml_value *
toml_table_at(const toml_value *t, size_t i)
{
    if (t->tv_kind != TOML_TABLE || i >= t->tv_u.tab.len)
        return NULL;
    return t->tv_u.tab.e[i].te_val;
}

const toml_value *
toml_table_get(const toml_value *t, const char *key)
{
    if (t->tv_kind != TOML_TABLE)
        return NULL;
    toml_entry *e = table_find(t, key, strlen(key));
    return e ? e->te_val : NULL;
}

size_t
toml_array_len(const toml_value *a)
{
    return a->tv_kind == TOML_ARRAY ? a->tv_u.arr.len : 0;
}

const toml_value *
toml_array_at(const toml_value *a, size_t i)
{
    if (a->tv_kind != TOML_ARRAY || i >= a->tv_u.arr.len)
        return NULL;
    return a->tv_u.arr.e[i];
}

const char *
toml_string(const toml_value *v, size_t *len)
{
    if (v->tv_kind != TOML_STRING) {
        if (len != NULL)
            *len = 0;
        return NULL;
    }
    if (len != NULL)
        *len = v->tv_u.str.len;
    return v->tv_u.str.s;
}

int64_t
toml_integer(const toml_value *v)
{
    return v->tv_kind == TOML_INTEGER ? v->tv_u.i : 0;
}

bool
toml_bool(const toml_value *v)
{
    return v->tv_kind == TOML_BOOL && v->tv_u.b;
}
