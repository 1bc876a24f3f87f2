/* SPDX-License-Identifier: Apache-2.0 */
/* trace.log reader: one event a line, over the tokens of the .dw lexer. */
#include "pdp_trace.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_utf8.h"
#include "pdp_ext.h"
#include "pdp_lex.h"

/*
 * The .dw lexer supplies the tokens over the whole text (names, integers,
 * strings with their escapes, punctuation, `//` comments, positions);
 * this file adds the line discipline. An event starts with `@`, and every
 * token of it sits on the line of its `@`: a token on a later line reads
 * as the end of the line, so an unfinished event is reported where its
 * line ends. Events are collected first and appended to the history only
 * when the whole text has been read (all or nothing).
 */

#define TRACE_MAX_NAME 4096 // bytes of an entity type path, joined
/* Containers inside one field value: the fields record and the innermost
 * scalar take the other two levels of PDP_VALUE_MAX_DEPTH. */
#define TRACE_MAX_NEST (PDP_VALUE_MAX_DEPTH - 2)
#define TRACE_MAX_EVENTS ((size_t)1 << 26)

typedef struct tparser {
    pdp_lex tp_lx;
    box_arena *tp_a;      // the history's arena: every value goes there
    box_buf tp_name;      // scratch: an entity type path being joined
    uint32_t tp_line;     // line of the event being read
    uint32_t tp_end_line; // just past the last token read
    uint32_t tp_end_col;
    const char *tp_end; // byte just past the last token read
    uint32_t tp_nest;   // records and arrays open in the current value
} tparser;

#define TOK(p) (&(p)->tp_lx.lx_tok)

/* ---- tokens, on one line ---- */

static box_err __attribute__((format(printf, 4, 5)))
terr(tparser *p, uint32_t line, uint32_t col, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    return pdp_lex_error(&p->tp_lx, BOX_EPARSE, line, col, "%s", msg);
}

static box_err
nomem(tparser *p)
{
    return pdp_lex_error(&p->tp_lx, BOX_ENOMEM, TOK(p)->t_line, TOK(p)->t_col,
                         "out of memory");
}

/* True when the current token is not part of the current event's line. */
static bool
at_eol(const tparser *p)
{
    const pdp_token *t = &p->tp_lx.lx_tok;
    return t->t_kind == PDP_TK_EOF || t->t_line != p->tp_line;
}

/* The current token's kind, PDP_TK_EOF standing for the end of the line. */
static pdp_tk
kind(const tparser *p)
{
    return at_eol(p) ? PDP_TK_EOF : p->tp_lx.lx_tok.t_kind;
}

/* True when the current token directly follows the last one read. */
static bool
adjacent(const tparser *p)
{
    return !at_eol(p) && TOK(p)->t_text == p->tp_end;
}

static box_err
expected(tparser *p, const char *what)
{
    const pdp_token *t = TOK(p);
    if (at_eol(p))
        return terr(p, p->tp_end_line, p->tp_end_col,
                    "expected %s, found end of line", what);
    return terr(p, t->t_line, t->t_col, "expected %s, found `%.*s`", what,
                (int)(t->t_len > 60 ? 60 : t->t_len), t->t_text);
}

static box_err
advance(tparser *p)
{
    const pdp_token *t = TOK(p);
    uint32_t col = t->t_col;
    for (size_t i = 0; i < t->t_len; i++) {
        if (((unsigned char)t->t_text[i] & 0xC0) != 0x80)
            col++;
    }
    p->tp_end_line = t->t_line;
    p->tp_end_col = col;
    p->tp_end = t->t_text + t->t_len;
    return pdp_lex_next(&p->tp_lx);
}

static box_err
expect(tparser *p, pdp_tk k)
{
    if (kind(p) != k)
        return expected(p, pdp_tk_name(k));
    return advance(p);
}

static bool
is_word(const tparser *p, const char *w)
{
    const pdp_token *t = TOK(p);
    return kind(p) == PDP_TK_IDENT && t->t_len == strlen(w) &&
           memcmp(t->t_text, w, t->t_len) == 0;
}

static box_err
expect_word(tparser *p, const char *w)
{
    if (!is_word(p, w)) {
        char what[64];
        snprintf(what, sizeof(what), "`%s`", w);
        return expected(p, what);
    }
    return advance(p);
}

/* A name: an identifier or a reserved word (`in`, `if`, … are fine as
 * field names in a trace). */
static bool
at_name(const tparser *p)
{
    pdp_tk k = kind(p);
    return k == PDP_TK_IDENT || (k >= PDP_TK_TRUE && k <= PDP_TK_CEDAR);
}

/* The current STR token decoded into the arena. A string may not hold a
 * raw line break: one event a line. */
static box_err
read_string(tparser *p, char **s, size_t *n)
{
    const pdp_token *t = TOK(p);
    if (memchr(t->t_text, '\n', t->t_len) != NULL)
        return terr(p, t->t_line, t->t_col,
                    "a string in a trace may not span lines");
    BOX_TRY(pdp_lex_string(&p->tp_lx, t, p->tp_a, false, s, n, NULL));
    return advance(p);
}

/* ---- values ---- */

static box_err read_value(tparser *p, const pdp_value **out);

/* entity -> IDENT { "::" IDENT } "::" STR */
static box_err
read_entity(tparser *p, const pdp_value **out)
{
    if (kind(p) != PDP_TK_IDENT)
        return expected(p, "an entity (`Ns::Type::\"id\"`)");
    box_buf_truncate(&p->tp_name, 0);
    for (;;) {
        const pdp_token *t = TOK(p);
        if (box_buf_append(&p->tp_name, t->t_text, t->t_len) != BOX_OK)
            return terr(p, t->t_line, t->t_col,
                        "entity type name is longer than %d bytes",
                        TRACE_MAX_NAME);
        BOX_TRY(advance(p));
        BOX_TRY(expect(p, PDP_TK_DCOLON));
        if (kind(p) == PDP_TK_STR)
            break;
        if (kind(p) != PDP_TK_IDENT)
            return expected(p, "a name or the entity id string");
        if (box_buf_append(&p->tp_name, "::", 2) != BOX_OK)
            return nomem(p);
    }
    char *id;
    size_t idlen;
    BOX_TRY(read_string(p, &id, &idlen));
    pdp_value *v;
    box_err rv = pdp_value_entity(p->tp_a, p->tp_name.b_data, p->tp_name.b_len,
                                  id, idlen, &v);
    if (rv != BOX_OK)
        return nomem(p); // the parts are well-formed by construction
    *out = v;
    return BOX_OK;
}

/* The INT token t as an int64, negated when neg; the literal text from
 * start to t's end names it in a message. */
static box_err
int_value(tparser *p, const pdp_token *t, bool neg, const pdp_token *start,
          int64_t *out)
{
    uint64_t limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    uint64_t v = 0;
    for (size_t i = 0; i < t->t_len; i++) {
        uint64_t d = (uint64_t)(t->t_text[i] - '0');
        if (v > (limit - d) / 10)
            return terr(p, start->t_line, start->t_col,
                        "integer literal `%.*s` is out of range",
                        (int)(t->t_text + t->t_len - start->t_text),
                        start->t_text);
        v = v * 10 + d;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return BOX_OK;
}

/*
 * A decimal number (§7.1 decimal_num): Cedar's decimal when Cedar takes
 * the spelling (at most four digits after the point, in range), so that
 * 2.5, 02.5 and 2.50 are one value and -0.0 is 0.0; otherwise its text as
 * a String, equal only to itself (the reference's rule). pdp_trace.h says
 * why; this is the only place that decides it.
 */
static box_err
trace_decimal(tparser *p, const char *text, size_t n, const pdp_value **out)
{
    int64_t scaled = 0;
    char why[128];
    pdp_value *v = NULL;
    if (pdp_ext_parse_decimal(text, n, &scaled, why, sizeof why) == BOX_OK) {
        if ((v = pdp_value_decimal(p->tp_a, scaled)) == NULL)
            return nomem(p);
    } else if (pdp_value_string(p->tp_a, text, n, &v) != BOX_OK) {
        return nomem(p);
    }
    *out = v;
    return BOX_OK;
}

/* number -> [ "-" ] INT [ "." INT ]   (no blanks inside) */
static box_err
read_number(tparser *p, const pdp_value **out)
{
    pdp_token start = *TOK(p);
    bool neg = start.t_kind == PDP_TK_MINUS;
    if (neg) {
        BOX_TRY(advance(p));
        if (kind(p) != PDP_TK_INT || !adjacent(p))
            return terr(p, start.t_line, start.t_col,
                        "expected a number directly after `-`");
    }
    pdp_token digits = *TOK(p);
    BOX_TRY(advance(p));
    if (kind(p) == PDP_TK_DOT && adjacent(p)) {
        BOX_TRY(advance(p));
        if (kind(p) != PDP_TK_INT || !adjacent(p))
            return terr(p, start.t_line, start.t_col,
                        "expected digits after `.` in the decimal number "
                        "`%.*s`",
                        (int)(p->tp_end - start.t_text), start.t_text);
        BOX_TRY(advance(p));
        return trace_decimal(p, start.t_text,
                             (size_t)(p->tp_end - start.t_text), out);
    }
    int64_t l = 0;
    BOX_TRY(int_value(p, &digits, neg, &start, &l));
    pdp_value *v = pdp_value_long(p->tp_a, l);
    if (v == NULL)
        return nomem(p);
    *out = v;
    return BOX_OK;
}

/* field -> name ":" value, put into rec; name -> IDENT | STR */
static box_err
read_field(tparser *p, pdp_value *rec)
{
    const pdp_token key = *TOK(p);
    const char *k = key.t_text;
    size_t klen = key.t_len;
    if (kind(p) == PDP_TK_STR) {
        char *s;
        BOX_TRY(read_string(p, &s, &klen));
        k = s;
    } else if (at_name(p)) {
        BOX_TRY(advance(p));
    } else {
        return expected(p, "a field name");
    }
    BOX_TRY(expect(p, PDP_TK_COLON));
    const pdp_value *v;
    BOX_TRY(read_value(p, &v));
    box_err rv = pdp_value_record_put(p->tp_a, rec, k, klen, v);
    if (rv == BOX_EINVAL)
        return terr(p, key.t_line, key.t_col, "duplicate field `%.*s`",
                    (int)klen, k);
    if (rv == BOX_ETOOBIG)
        return terr(p, key.t_line, key.t_col,
                    "a record holds at most %d fields", PDP_VALUE_MAX_FIELDS);
    if (rv != BOX_OK)
        return nomem(p);
    return BOX_OK;
}

/* fields -> [ field { "," field } ] close   (the opener already read) */
static box_err
read_fields(tparser *p, pdp_tk close, pdp_value **out)
{
    pdp_value *rec = pdp_value_record_new(p->tp_a);
    if (rec == NULL)
        return nomem(p);
    if (kind(p) != close) {
        for (;;) {
            BOX_TRY(read_field(p, rec));
            if (kind(p) != PDP_TK_COMMA)
                break;
            BOX_TRY(advance(p));
        }
    }
    if (kind(p) != close) {
        char what[64];
        snprintf(what, sizeof(what), "`,` or %s", pdp_tk_name(close));
        return expected(p, what);
    }
    *out = rec;
    return advance(p);
}

/* array -> "[" [ value { "," value } ] "]"   (built as a set) */
static box_err
read_array(tparser *p, const pdp_value **out)
{
    pdp_value *set = pdp_value_set_new(p->tp_a);
    if (set == NULL)
        return nomem(p);
    BOX_TRY(advance(p)); // [
    if (kind(p) != PDP_TK_RBRACKET) {
        for (;;) {
            const pdp_token at = *TOK(p);
            const pdp_value *v;
            BOX_TRY(read_value(p, &v));
            box_err rv = pdp_value_set_add(p->tp_a, set, v);
            if (rv == BOX_ETOOBIG)
                return terr(p, at.t_line, at.t_col,
                            "an array holds at most %d values",
                            PDP_VALUE_MAX_ITEMS);
            if (rv != BOX_OK)
                return nomem(p);
            if (kind(p) != PDP_TK_COMMA)
                break;
            BOX_TRY(advance(p));
        }
    }
    if (kind(p) != PDP_TK_RBRACKET)
        return expected(p, "`,` or `]`");
    *out = set;
    return advance(p);
}

/* value -> STR | number | "true" | "false" | entity | record | array */
static box_err
read_value(tparser *p, const pdp_value **out)
{
    const pdp_token *t = TOK(p);
    switch (kind(p)) {
    case PDP_TK_STR: {
        char *s;
        size_t n;
        BOX_TRY(read_string(p, &s, &n));
        pdp_value *v;
        if (pdp_value_string(p->tp_a, s, n, &v) != BOX_OK)
            return nomem(p);
        *out = v;
        return BOX_OK;
    }
    case PDP_TK_MINUS:
    case PDP_TK_INT:
        return read_number(p, out);
    case PDP_TK_TRUE:
    case PDP_TK_FALSE: {
        pdp_value *v = pdp_value_bool(p->tp_a, t->t_kind == PDP_TK_TRUE);
        if (v == NULL)
            return nomem(p);
        *out = v;
        return advance(p);
    }
    case PDP_TK_IDENT:
        return read_entity(p, out);
    case PDP_TK_LBRACE:
    case PDP_TK_LBRACKET: {
        if (p->tp_nest >= TRACE_MAX_NEST)
            return terr(p, t->t_line, t->t_col,
                        "value nests too deeply (more than %d records or "
                        "arrays)",
                        TRACE_MAX_NEST);
        p->tp_nest++;
        box_err rv;
        if (t->t_kind == PDP_TK_LBRACKET) {
            rv = read_array(p, out);
        } else {
            pdp_value *rec = NULL;
            rv = advance(p);
            if (rv == BOX_OK)
                rv = read_fields(p, PDP_TK_RBRACE, &rec);
            *out = rec;
        }
        p->tp_nest--;
        return rv;
    }
    default:
        return expected(p, "a value (string, number, `true`, `false`, "
                           "entity, record or array)");
    }
}

/* ---- events ---- */

/* timestamp -> [ "-" ] INT, directly after the `@` */
static box_err
read_ts(tparser *p, int64_t *ts)
{
    pdp_token start = *TOK(p);
    bool neg = kind(p) == PDP_TK_MINUS && adjacent(p);
    if (neg)
        BOX_TRY(advance(p));
    if (kind(p) != PDP_TK_INT || !adjacent(p))
        return terr(p, p->tp_end_line, p->tp_end_col,
                    "expected the timestamp (integer seconds) directly "
                    "after `@`");
    BOX_TRY(int_value(p, TOK(p), neg, &start, ts));
    BOX_TRY(advance(p));
    if (kind(p) == PDP_TK_DOT && adjacent(p))
        return terr(p, start.t_line, start.t_col,
                    "a timestamp is a whole number of seconds");
    return BOX_OK;
}

/* scope -> "scope" "(" "principal" ":" entity "," "resource" ":" entity ")" */
static box_err
read_scope(tparser *p, pdp_event *e)
{
    BOX_TRY(advance(p)); // scope
    BOX_TRY(expect(p, PDP_TK_LPAREN));
    BOX_TRY(expect_word(p, "principal"));
    BOX_TRY(expect(p, PDP_TK_COLON));
    BOX_TRY(read_entity(p, &e->ev_principal));
    BOX_TRY(expect(p, PDP_TK_COMMA));
    BOX_TRY(expect_word(p, "resource"));
    BOX_TRY(expect(p, PDP_TK_COLON));
    BOX_TRY(read_entity(p, &e->ev_resource));
    return expect(p, PDP_TK_RPAREN);
}

/* True when the current token is the contextual keyword w opening a `(`
 * group (a namespace called `scope` is followed by `::` instead). */
static box_err
at_group(tparser *p, const char *w, bool *yes)
{
    *yes = false;
    if (!is_word(p, w))
        return BOX_OK;
    const pdp_token *ahead;
    BOX_TRY(pdp_lex_peek(&p->tp_lx, &ahead));
    *yes = ahead->t_kind == PDP_TK_LPAREN && ahead->t_line == p->tp_line;
    return BOX_OK;
}

/* Adds key -> v to the fields record unless it has the key already. */
static box_err
mirror(tparser *p, pdp_value *fields, const char *key, const pdp_value *v)
{
    if (pdp_value_get(fields, key, strlen(key)) != NULL)
        return BOX_OK;
    if (pdp_value_record_put(p->tp_a, fields, key, strlen(key), v) != BOX_OK)
        return terr(p, p->tp_line, 1, "cannot add `%s` to the event's fields",
                    key);
    return BOX_OK;
}

/*
 * event -> "@" timestamp [ scope ] [ request_context ]
 *          entity "::" kind "(" [ field { "," field } ] ")"   (one line)
 */
static box_err
read_event(tparser *p, pdp_event *e)
{
    memset(e, 0, sizeof(*e));
    const pdp_token *t = TOK(p);
    p->tp_line = t->t_line;
    if (t->t_kind != PDP_TK_AT)
        return expected(p, "`@` and a timestamp (one event a line)");
    BOX_TRY(advance(p));
    BOX_TRY(read_ts(p, &e->ev_ts));
    bool yes;
    BOX_TRY(at_group(p, "scope", &yes));
    if (yes)
        BOX_TRY(read_scope(p, e));
    BOX_TRY(at_group(p, "request_context", &yes));
    if (yes) {
        BOX_TRY(advance(p));
        BOX_TRY(advance(p)); // (
        pdp_value *ctx;
        BOX_TRY(read_fields(p, PDP_TK_RPAREN, &ctx));
        e->ev_context = ctx;
    }
    BOX_TRY(read_entity(p, &e->ev_action));
    BOX_TRY(expect(p, PDP_TK_DCOLON));
    if (kind(p) != PDP_TK_IDENT)
        return expected(p, "the event kind (`request`, `response`, …)");
    t = TOK(p);
    char *k = box_arena_strndup(p->tp_a, t->t_text, t->t_len);
    if (k == NULL)
        return nomem(p);
    e->ev_kind = k;
    BOX_TRY(advance(p));
    BOX_TRY(expect(p, PDP_TK_LPAREN));
    pdp_value *fields;
    BOX_TRY(read_fields(p, PDP_TK_RPAREN, &fields));
    if (!at_eol(p))
        return expected(p, "the end of the line after the event");
    /* §7.1: with a scope, the reserved caller fields mirror it. */
    if (e->ev_principal != NULL) {
        BOX_TRY(mirror(p, fields, "callerPrincipal", e->ev_principal));
        BOX_TRY(mirror(p, fields, "callerResource", e->ev_resource));
    }
    e->ev_fields = fields;
    return BOX_OK;
}

/* Where the text stops being UTF-8, as a message. */
static box_err
bad_utf8(tparser *p, const char *text, size_t len)
{
    uint32_t line = 1, col = 1;
    for (size_t i = 0; i < len;) {
        uint32_t cp;
        size_t k = box_utf8_decode(text + i, len - i, &cp);
        if (k == 0)
            break;
        if (text[i] == '\n') {
            line++;
            col = 1;
        } else {
            col++;
        }
        i += k;
    }
    return terr(p, line, col, "trace text is not valid UTF-8");
}

box_err
pdp_trace_load(const char *text, size_t len, const char *file, pdp_hist *h,
               const uint32_t **lines, box_buf *err)
{
    tparser p;
    memset(&p, 0, sizeof(p));
    p.tp_a = pdp_hist_arena(h);
    p.tp_lx.lx_file = file != NULL ? file : "<trace>";
    p.tp_lx.lx_err = err;
    box_buf_init(&p.tp_name, TRACE_MAX_NAME);
    pdp_event *evs = NULL;
    uint32_t *evlines = NULL;
    size_t n = 0, cap = 0;
    box_err rv;

    if (len > PDP_TRACE_MAX_BYTES) {
        rv = pdp_lex_error(&p.tp_lx, BOX_ETOOBIG, 1, 1,
                           "trace is larger than %zu bytes",
                           (size_t)PDP_TRACE_MAX_BYTES);
        goto out;
    }
    if (!box_utf8_valid(text, len)) {
        rv = bad_utf8(&p, text, len);
        goto out;
    }
    if ((rv = pdp_lex_init(&p.tp_lx, text, len, p.tp_lx.lx_file, err)) !=
        BOX_OK)
        goto out;
    size_t first = pdp_hist_len(h);
    bool have_last = first > 0;
    int64_t last = have_last ? pdp_hist_at(h, first - 1)->ev_ts : 0;
    while (TOK(&p)->t_kind != PDP_TK_EOF) {
        const pdp_token at = *TOK(&p);
        pdp_event e;
        if ((rv = read_event(&p, &e)) != BOX_OK)
            goto out;
        if (have_last && e.ev_ts < last) {
            rv = terr(&p, at.t_line, at.t_col + 1,
                      "timestamp %lld is before the previous event's (%lld); "
                      "timestamps must be non-decreasing",
                      (long long)e.ev_ts, (long long)last);
            goto out;
        }
        last = e.ev_ts;
        have_last = true;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            pdp_event *ne = nc <= TRACE_MAX_EVENTS
                                ? box_realloc(evs, nc * sizeof(*ne))
                                : NULL;
            if (ne == NULL) {
                rv = nomem(&p);
                goto out;
            }
            evs = ne;
            uint32_t *nl = box_realloc(evlines, nc * sizeof(*nl));
            if (nl == NULL) {
                rv = nomem(&p);
                goto out;
            }
            evlines = nl;
            cap = nc;
        }
        evs[n] = e;
        evlines[n] = at.t_line;
        n++;
    }
    uint32_t *kept = NULL;
    if (lines != NULL && n > 0) {
        kept = box_arena_alloc(p.tp_a, n * sizeof(*kept));
        if (kept == NULL) {
            rv = nomem(&p);
            goto out;
        }
        memcpy(kept, evlines, n * sizeof(*kept));
    }
    for (size_t i = 0; i < n; i++) {
        /* Only memory can fail here: every check was made above. */
        if ((rv = pdp_hist_append(h, &evs[i])) != BOX_OK) {
            rv = pdp_lex_error(&p.tp_lx, rv, evlines[i], 1,
                               "cannot append the event to the history: %s",
                               box_strerror(rv));
            goto out;
        }
    }
    if (lines != NULL)
        *lines = kept;
    rv = BOX_OK;
out:
    box_free(evlines);
    box_free(evs);
    box_buf_reset(&p.tp_name);
    return rv;
}
