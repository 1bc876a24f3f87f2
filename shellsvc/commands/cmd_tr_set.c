/* SPDX-License-Identifier: Apache-2.0 */
/* tr's STRINGs: escapes, then ranges and bracket constructs, as GNU
 * coreutils 9.1 reads them byte by byte. */
#include "cmd_tr_set.h"

#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

// ORDER TRCLASS
static const char *const tr_class_name[TR_NCLASSES] = {
    "alnum", "alpha", "blank", "cntrl", "digit", "graph",
    "lower", "print", "punct", "space", "upper", "xdigit",
};

bool
tr_class_has(tr_class k, unsigned c)
{
    bool upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
    bool digit = c >= '0' && c <= '9';
    bool graph = c > ' ' && c < 0x7f;
    switch (k) {
    case TR_ALNUM:
        return upper || lower || digit;
    case TR_ALPHA:
        return upper || lower;
    case TR_BLANK:
        return c == ' ' || c == '\t';
    case TR_CNTRL:
        return c < ' ' || c == 0x7f;
    case TR_DIGIT:
        return digit;
    case TR_GRAPH:
        return graph;
    case TR_LOWER:
        return lower;
    case TR_PRINT:
        return graph || c == ' ';
    case TR_PUNCT:
        return graph && !upper && !lower && !digit;
    case TR_SPACE:
        return c == ' ' || (c >= '\t' && c <= '\r');
    case TR_UPPER:
        return upper;
    case TR_XDIGIT:
        return digit || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    case TR_NCLASSES:
        break;
    }
    return false;
}

uintmax_t
tr_elem_len(const tr_elem *e)
{
    switch (e->te_kind) {
    case TR_RANGE:
        return (uintmax_t)(e->te_hi - e->te_lo) + 1;
    case TR_CLASS: {
        uintmax_t n = 0;
        for (unsigned c = 0; c < 256; c++)
            n += tr_class_has(e->te_class, c);
        return n;
    }
    case TR_REPEAT:
        return e->te_count;
    case TR_CHAR:
    case TR_EQUIV:
        break;
    }
    return 1;
}

bool
tr_elem_has(const tr_elem *e, unsigned c)
{
    switch (e->te_kind) {
    case TR_RANGE:
        return c >= e->te_lo && c <= e->te_hi;
    case TR_CLASS:
        return tr_class_has(e->te_class, c);
    case TR_REPEAT:
        return e->te_count > 0 && c == e->te_lo;
    case TR_CHAR:
    case TR_EQUIV:
        break;
    }
    return c == e->te_lo;
}

void
tr_set_free(tr_set *set)
{
    box_free(set->ts_v);
    set->ts_v = NULL;
    set->ts_n = 0;
}

/* ---- escapes ---- */

/* One byte of a STRING after its escapes; an escaped '[', '-', '*', ']'
 * is an ordinary character. */
typedef struct tr_byte {
    unsigned char tb_c;
    bool tb_esc;
} tr_byte;

static bool
tr_octal(char c)
{
    return c >= '0' && c <= '7';
}

/*
 * \a \b \f \n \r \t \v, \\, \NNN (one to three octal digits, at most
 * \377: "\400" is \040 then '0', with GNU's warning), \X for any other X
 * is X. A backslash ending the string is itself, with a warning. Writes
 * u (room for strlen(s)); returns the count.
 */
static size_t
tr_unescape(sh_ctx *cx, const char *s, tr_byte *u)
{
    static const char from[] = "abfnrtv";
    static const char to[] = "\a\b\f\n\r\t\v";
    size_t n = 0;
    for (size_t i = 0; s[i] != '\0'; i++) {
        if (s[i] != '\\') {
            u[n++] = (tr_byte){(unsigned char)s[i], false};
            continue;
        }
        char e = s[i + 1];
        const char *letter = e != '\0' ? strchr(from, e) : NULL;
        unsigned v;
        if (e == '\0') {
            sh_errf(cx, "tr: warning: an unescaped backslash at end of "
                        "string is not portable");
            v = '\\';
        } else if (letter != NULL) {
            v = (unsigned char)to[letter - from];
            i++;
        } else if (tr_octal(e)) {
            v = (unsigned)(e - '0');
            i++;
            for (int k = 0; k < 2 && tr_octal(s[i + 1]); k++) {
                unsigned w = v * 8 + (unsigned)(s[i + 1] - '0');
                if (w > 0xff) {
                    sh_errf(cx,
                            "tr: warning: the ambiguous octal escape "
                            "\\%c%c%c is being\n\tinterpreted as the 2-byte "
                            "sequence \\0%c%c, %c",
                            s[i - 1], s[i], s[i + 1], s[i - 1], s[i], s[i + 1]);
                    break;
                }
                v = w;
                i++;
            }
        } else {
            v = (unsigned char)e;
            i++;
        }
        u[n++] = (tr_byte){(unsigned char)v, true};
    }
    return n;
}

/* ---- constructs ---- */

typedef struct tr_parse {
    sh_ctx *tp_cx;
    const tr_byte *tp_u;
    size_t tp_n;
    tr_set *tp_set;
} tr_parse;

/* Whether byte i is an unescaped c. */
static bool
tr_is(const tr_parse *p, size_t i, char c)
{
    return i < p->tp_n && p->tp_u[i].tb_c == (unsigned char)c &&
           !p->tp_u[i].tb_esc;
}

static void
tr_push(tr_parse *p, tr_elem e)
{
    p->tp_set->ts_v[p->tp_set->ts_n++] = e;
}

/* GNU's printable form of bytes in messages: C escapes, \\, and \NNN
 * for the rest of what is not printable ASCII. NULL when out of memory. */
static char *
tr_printable(const tr_byte *u, size_t n)
{
    static const char esc[] = "\a\b\f\n\r\t\v";
    static const char letter[] = "abfnrtv";
    box_buf b;
    box_buf_init(&b, 64u * 1024u);
    box_err rv = box_buf_puts(&b, "");
    for (size_t i = 0; i < n && rv == BOX_OK; i++) {
        unsigned char c = u[i].tb_c;
        const char *e = c != '\0' ? strchr(esc, c) : NULL;
        if (e != NULL)
            rv = box_buf_printf(&b, "\\%c", letter[e - esc]);
        else if (c == '\\')
            rv = box_buf_puts(&b, "\\\\");
        else if (c >= ' ' && c < 0x7f)
            rv = box_buf_putc(&b, (char)c);
        else
            rv = box_buf_printf(&b, "\\%03o", c);
    }
    if (rv != BOX_OK) {
        box_buf_reset(&b);
        return NULL;
    }
    return box_buf_take(&b);
}

/* A message quoting bytes u[0..n): "tr: " pre TEXT post, TEXT in ‘’
 * when quoted. Returns false, for the callers' convenience. */
static bool
tr_fault(tr_parse *p, const char *pre, size_t at, size_t n, bool quoted,
         const char *post)
{
    char *text = tr_printable(p->tp_u + at, n);
    char *q = text != NULL && quoted ? sh_gquote(text) : NULL;
    if (text == NULL || (quoted && q == NULL))
        sh_errf(p->tp_cx, "tr: out of memory");
    else
        sh_errf(p->tp_cx, "tr: %s%s%s", pre, quoted ? q : text, post);
    box_free(q);
    box_free(text);
    return false;
}

/* Whether "*DIGITS]" starts at byte i: an invalid [:name:] or [=name=]
 * that reads as a repeat ("[=*3]") is one. */
static bool
tr_star_digits_bracket(const tr_parse *p, size_t i)
{
    if (!tr_is(p, i, '*'))
        return false;
    size_t k = i + 1;
    while (k < p->tp_n && !p->tp_u[k].tb_esc && p->tp_u[k].tb_c >= '0' &&
           p->tp_u[k].tb_c <= '9')
        k++;
    return tr_is(p, k, ']');
}

/*
 * The count of [c*n]: as GNU reads it with strtoumax, octal when it
 * starts with 0: blanks, an optional '+', digits of the base and nothing
 * more, below UINTMAX_MAX. False when it is not a count.
 */
static bool
tr_count(const tr_byte *u, size_t n, uintmax_t *out)
{
    unsigned base = n > 0 && u[0].tb_c == '0' ? 8 : 10;
    size_t i = 0;
    while (i < n &&
           (u[i].tb_c == ' ' || (u[i].tb_c >= '\t' && u[i].tb_c <= '\r')))
        i++;
    if (i < n && u[i].tb_c == '+')
        i++;
    if (i == n)
        return false;
    uintmax_t v = 0;
    for (; i < n; i++) {
        unsigned d = (unsigned)u[i].tb_c - '0';
        if (u[i].tb_c < '0' || d >= base || v > (UINTMAX_MAX - d) / base)
            return false;
        v = v * base + d;
    }
    if (v == UINTMAX_MAX)
        return false;
    *out = v;
    return true;
}

/*
 * [c*n] or [c*] at '[' i: 1 when read (*i past it), 0 when the bytes are
 * no repeat, -1 after the message for a bad count. c is any byte, the
 * '*' and ']' unescaped, and the count has no escaped byte.
 */
static int
tr_repeat(tr_parse *p, size_t *i)
{
    size_t at = *i;
    if (!tr_is(p, at + 2, '*'))
        return 0;
    size_t k = at + 3;
    while (k < p->tp_n && !p->tp_u[k].tb_esc && p->tp_u[k].tb_c != ']')
        k++;
    if (!tr_is(p, k, ']'))
        return 0;
    uintmax_t count = 0;
    if (k > at + 3 && !tr_count(p->tp_u + at + 3, k - at - 3, &count)) {
        tr_fault(p, "invalid repeat count ", at + 3, k - at - 3, true,
                 " in [c*n] construct");
        return -1;
    }
    tr_push(p, (tr_elem){.te_kind = TR_REPEAT,
                         .te_lo = p->tp_u[at + 1].tb_c,
                         .te_fill = count == 0,
                         .te_count = count});
    *i = k + 1;
    return 1;
}

/*
 * [:name:] or [=c=] at '[' i, closed by the first ":]" (or "=]") after
 * it: 1 when read (*i past it), 0 when there is no such construct here,
 * -1 after the message for a bad one.
 */
static int
tr_class_or_equiv(tr_parse *p, size_t *i)
{
    size_t at = *i;
    char d = (char)p->tp_u[at + 1].tb_c;
    if (!tr_is(p, at + 1, ':') && !tr_is(p, at + 1, '='))
        return 0;
    size_t j = at + 2;
    while (j + 1 < p->tp_n && !(tr_is(p, j, d) && tr_is(p, j + 1, ']')))
        j++;
    if (j + 1 >= p->tp_n)
        return 0;
    size_t len = j - (at + 2);
    const tr_byte *name = p->tp_u + at + 2;
    if (len == 0) {
        sh_errf(p->tp_cx, d == ':' ? "tr: missing character class name "
                                     "'[::]'"
                                   : "tr: missing equivalence class "
                                     "character '[==]'");
        return -1;
    }
    tr_elem e = {.te_kind = d == ':' ? TR_CLASS : TR_EQUIV};
    bool found = false;
    if (d == '=') {
        found = len == 1;
        e.te_lo = name[0].tb_c;
    }
    for (int k = 0; d == ':' && k < TR_NCLASSES && !found; k++) {
        const char *cn = tr_class_name[k];
        found = strlen(cn) == len;
        for (size_t m = 0; found && m < len; m++)
            found = name[m].tb_c == (unsigned char)cn[m];
        e.te_class = (tr_class)k;
    }
    if (found) {
        tr_push(p, e);
        *i = j + 2;
        return 1;
    }
    if (tr_star_digits_bracket(p, at + 2))
        return 0; // "[=*3]": a repeat of '='
    if (d == ':')
        tr_fault(p, "invalid character class ", at + 2, len, true, "");
    else
        tr_fault(p, "", at + 2, len, false,
                 ": equivalence class operand must be a single character");
    return -1;
}

/* GNU's form of a range end in its message: the byte, or \NNN. */
static void
tr_endpoint(char *buf, size_t size, unsigned char c)
{
    if (c >= ' ' && c < 0x7f)
        snprintf(buf, size, "%c", c);
    else
        snprintf(buf, size, "\\%03o", c);
}

/*
 * string -> { '[' construct | c '-' c | c }
 * A construct or range needs three bytes left; the last two bytes are
 * always plain. A '[' that opens no construct is a plain byte, and may
 * start a range.
 */
static bool
tr_elements(tr_parse *p)
{
    size_t i = 0;
    while (i + 2 < p->tp_n) {
        if (tr_is(p, i, '[')) {
            int r = tr_class_or_equiv(p, &i);
            if (r == 0)
                r = tr_repeat(p, &i);
            if (r < 0)
                return false;
            if (r > 0)
                continue;
        }
        unsigned char c = p->tp_u[i].tb_c;
        if (tr_is(p, i + 1, '-')) {
            unsigned char hi = p->tp_u[i + 2].tb_c;
            if (hi < c) {
                char a[8], b[8];
                tr_endpoint(a, sizeof a, c);
                tr_endpoint(b, sizeof b, hi);
                sh_errf(p->tp_cx,
                        "tr: range-endpoints of '%s-%s' are in reverse "
                        "collating sequence order",
                        a, b);
                return false;
            }
            tr_push(p, (tr_elem){.te_kind = TR_RANGE, .te_lo = c, .te_hi = hi});
            i += 3;
            continue;
        }
        tr_push(p, (tr_elem){.te_kind = TR_CHAR, .te_lo = c});
        i++;
    }
    for (; i < p->tp_n; i++)
        tr_push(p, (tr_elem){.te_kind = TR_CHAR, .te_lo = p->tp_u[i].tb_c});
    return true;
}

bool
tr_set_parse(sh_ctx *cx, const char *s, tr_set *set)
{
    size_t len = strlen(s);
    bool ok = false;
    set->ts_n = 0;
    // Each element takes at least one byte of the string.
    set->ts_v = box_calloc(len + 1, sizeof *set->ts_v);
    tr_byte *u = box_calloc(len + 1, sizeof *u);
    if (set->ts_v == NULL || u == NULL) {
        sh_errf(cx, "tr: out of memory");
        goto out;
    }
    tr_parse p = {.tp_cx = cx, .tp_u = u, .tp_set = set};
    p.tp_n = tr_unescape(cx, s, u);
    ok = tr_elements(&p);
out:
    box_free(u);
    if (!ok)
        tr_set_free(set);
    return ok;
}

/* ---- walks ---- */

void
tr_walk_start(tr_walk *w, const tr_set *s, uintmax_t pad, unsigned char padc)
{
    memset(w, 0, sizeof *w);
    w->tw_e = s->ts_v;
    w->tw_end = s->ts_v + s->ts_n;
    w->tw_pad = pad;
    w->tw_padc = padc;
}

void
tr_walk_skip(tr_walk *w)
{
    if (w->tw_e < w->tw_end)
        w->tw_e++;
    w->tw_in = false;
    w->tw_n = 0;
}

bool
tr_walk_next(tr_walk *w)
{
    for (; w->tw_e < w->tw_end; w->tw_e++, w->tw_in = false) {
        const tr_elem *e = w->tw_e;
        unsigned from = w->tw_in ? w->tw_next : e->te_lo;
        if (e->te_kind == TR_CLASS)
            from = w->tw_in ? w->tw_next : 0;
        uintmax_t n = 1;
        if (e->te_kind == TR_CHAR || e->te_kind == TR_EQUIV ||
            e->te_kind == TR_REPEAT) {
            n = e->te_kind == TR_REPEAT ? e->te_count : 1;
            if (w->tw_in || n == 0)
                continue;
        }
        unsigned last = e->te_kind == TR_RANGE   ? e->te_hi
                        : e->te_kind == TR_CLASS ? 255
                                                 : from;
        while (from <= last && !tr_elem_has(e, from))
            from++;
        if (from > last)
            continue;
        w->tw_class_start = e->te_kind == TR_CLASS && !w->tw_in;
        w->tw_in = true;
        w->tw_next = from + 1;
        w->tw_c = (unsigned char)from;
        w->tw_n = n;
        return true;
    }
    if (w->tw_pad == 0)
        return false;
    w->tw_c = w->tw_padc;
    w->tw_n = w->tw_pad;
    w->tw_pad = 0;
    w->tw_class_start = false;
    return true;
}
