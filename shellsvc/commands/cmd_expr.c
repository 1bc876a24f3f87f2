/* SPDX-License-Identifier: Apache-2.0 */
/* expr EXPRESSION: GNU coreutils 9.1 in C.UTF-8, integers of any size (as
 * Debian's GMP build), BRE matches anchored at the start. */
#include <locale.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>

#include "box_alloc.h"
#include "sh_glob.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define EXPR_INVALID 2 // a syntax error, a non-integer, a division by zero
#define EXPR_FAILURE 3 // out of memory, the matcher failed
#define EXPR_POOL_MAX (1u << 20) // strings one expression may make

static const sh_gopt expr_opts[] = {{0}};

static const sh_gopt_spec expr_spec = {
    .gs_cmd = "expr",
    .gs_opts = expr_opts,
    .gs_fail = EXPR_INVALID,
    .gs_help =
        "Usage: expr EXPRESSION\n"
        "  or:  expr OPTION\n"
        "\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "Print the value of EXPRESSION to standard output.  A blank line "
        "below\n"
        "separates increasing precedence groups.  EXPRESSION may be:\n"
        "\n"
        "  ARG1 | ARG2       ARG1 if it is neither null nor 0, otherwise "
        "ARG2\n"
        "\n"
        "  ARG1 & ARG2       ARG1 if neither argument is null or 0, "
        "otherwise 0\n"
        "\n"
        "  ARG1 < ARG2       ARG1 is less than ARG2\n"
        "  ARG1 <= ARG2      ARG1 is less than or equal to ARG2\n"
        "  ARG1 = ARG2       ARG1 is equal to ARG2\n"
        "  ARG1 != ARG2      ARG1 is unequal to ARG2\n"
        "  ARG1 >= ARG2      ARG1 is greater than or equal to ARG2\n"
        "  ARG1 > ARG2       ARG1 is greater than ARG2\n"
        "\n"
        "  ARG1 + ARG2       arithmetic sum of ARG1 and ARG2\n"
        "  ARG1 - ARG2       arithmetic difference of ARG1 and ARG2\n"
        "\n"
        "  ARG1 * ARG2       arithmetic product of ARG1 and ARG2\n"
        "  ARG1 / ARG2       arithmetic quotient of ARG1 divided by ARG2\n"
        "  ARG1 % ARG2       arithmetic remainder of ARG1 divided by ARG2\n"
        "\n"
        "  STRING : REGEXP   anchored pattern match of REGEXP in STRING\n"
        "\n"
        "  match STRING REGEXP        same as STRING : REGEXP\n"
        "  substr STRING POS LENGTH   substring of STRING, POS counted from "
        "1\n"
        "  index STRING CHARS         index in STRING where any CHARS is "
        "found, or 0\n"
        "  length STRING              length of STRING\n"
        "  + TOKEN                    interpret TOKEN as a string, even if "
        "it is a\n"
        "                               keyword like 'match' or an "
        "operator like '/'\n"
        "\n"
        "  ( EXPRESSION )             value of EXPRESSION\n"
        "\n"
        "Beware that many operators need to be escaped or quoted for "
        "shells.\n"
        "Comparisons are arithmetic if both ARGs are numbers, else "
        "lexicographical.\n"
        "Pattern matches return the string matched between \\( and \\) or "
        "null; if\n"
        "\\( and \\) are not used, they return the number of characters "
        "matched or 0.\n"
        "\n"
        "Exit status is 0 if EXPRESSION is neither null nor 0, 1 if "
        "EXPRESSION is null\n"
        "or 0, 2 if EXPRESSION is syntactically invalid, and 3 if an error "
        "occurred.\n",
};

/* A value: an integer (a normalized decimal string: no leading zeros, "0"
 * never negative) or a string. The text lives in the run's pool. */
typedef struct ex_val {
    bool ev_int;
    const char *ev_s;
} ex_val;

/* One evaluation: the words left, the strings made (freed together), and
 * the status once an error was reported (0 until then). */
typedef struct ex_run {
    sh_ctx *ex_cx;
    char **ex_args; // NULL-ended
    char **ex_pool;
    size_t ex_npool, ex_cap;
    int ex_status;
} ex_run;

/* ---- the pool and errors ---- */

static bool
ex_fail(ex_run *r, int status, const char *fmt, const char *arg)
{
    if (r->ex_status == 0)
        r->ex_status = sh_cmd_err(r->ex_cx, "expr", status, fmt, arg);
    return false;
}

/* The same, arg quoted as GNU's quote() does. */
static bool
ex_failq(ex_run *r, const char *fmt, const char *arg)
{
    char *q = sh_gquote(arg);
    ex_fail(r, q != NULL ? EXPR_INVALID : EXPR_FAILURE, q != NULL ? fmt : "%s",
            q != NULL ? q : "memory exhausted");
    box_free(q);
    return false;
}

/* Keeps s (NULL: out of memory) for the end of the run; s or NULL. */
static char *
ex_keep(ex_run *r, char *s)
{
    if (s != NULL && r->ex_npool == r->ex_cap && r->ex_cap < EXPR_POOL_MAX) {
        size_t cap = r->ex_cap ? r->ex_cap * 2 : 32;
        char **p = box_realloc(r->ex_pool, cap * sizeof *p);
        if (p != NULL) {
            r->ex_pool = p;
            r->ex_cap = cap;
        }
    }
    if (s == NULL || r->ex_npool == r->ex_cap) {
        box_free(s);
        ex_fail(r, EXPR_FAILURE, "%s", "memory exhausted");
        return NULL;
    }
    r->ex_pool[r->ex_npool++] = s;
    return s;
}

/* ---- integers of any size, as decimal digit strings ---- */

/* Whether s is an integer as GNU's expr reads one: '-'? digit+. */
static bool
ex_looks_int(const char *s)
{
    s += *s == '-';
    if (*s == '\0')
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

/* The magnitude of an integer string: its digits without sign or
 * leading zeros ("" for zero), and its sign. */
static const char *
ex_mag(const char *s, bool *neg)
{
    *neg = *s == '-';
    s += *neg;
    while (*s == '0')
        s++;
    if (*s == '\0')
        *neg = false;
    return s;
}

static int
ex_magcmp(const char *a, size_t na, const char *b, size_t nb)
{
    if (na != nb)
        return na < nb ? -1 : 1;
    int c = memcmp(a, b, na);
    return c < 0 ? -1 : c > 0;
}

/* A result: digits d[0..n) (most significant first, maybe leading
 * zeros) with a sign, normalized into the pool. */
static const char *
ex_make(ex_run *r, bool neg, const char *d, size_t n)
{
    while (n > 0 && *d == '0') {
        d++;
        n--;
    }
    if (n == 0)
        return ex_keep(r, box_strdup("0"));
    char *s = box_alloc(n + 2);
    if (s != NULL) {
        size_t k = 0;
        if (neg)
            s[k++] = '-';
        memcpy(s + k, d, n);
        s[k + n] = '\0';
    }
    return ex_keep(r, s);
}

/* a + b or a - b (a >= b) on magnitudes, into out (size max(na,nb)+1):
 * the digits, right-aligned. */
static void
ex_addsub(const char *a, size_t na, const char *b, size_t nb, bool sub,
          char *out, size_t nout)
{
    int carry = 0;
    for (size_t i = 0; i < nout; i++) {
        int x = i < na ? a[na - 1 - i] - '0' : 0;
        int y = i < nb ? b[nb - 1 - i] - '0' : 0;
        int v = sub ? x - y - carry : x + y + carry;
        carry = sub ? v < 0 : v > 9;
        v = sub ? (v + 10) % 10 : v % 10;
        out[nout - 1 - i] = (char)('0' + v);
    }
}

static const char *
ex_sum(ex_run *r, const char *x, const char *y, bool minus)
{
    bool na, nb;
    const char *a = ex_mag(x, &na), *b = ex_mag(y, &nb);
    nb = minus ? (*b != '\0' && !nb) : nb;
    size_t la = strlen(a), lb = strlen(b), n = (la > lb ? la : lb) + 1;
    char *t = box_alloc(n);
    if (t == NULL)
        return ex_keep(r, NULL);
    bool neg;
    if (na == nb) {
        ex_addsub(a, la, b, lb, false, t, n);
        neg = na;
    } else if (ex_magcmp(a, la, b, lb) >= 0) {
        ex_addsub(a, la, b, lb, true, t, n);
        neg = na;
    } else {
        ex_addsub(b, lb, a, la, true, t, n);
        neg = nb;
    }
    const char *s = ex_make(r, neg, t, n);
    box_free(t);
    return s;
}

static const char *
ex_product(ex_run *r, const char *x, const char *y)
{
    bool na, nb;
    const char *a = ex_mag(x, &na), *b = ex_mag(y, &nb);
    size_t la = strlen(a), lb = strlen(b), n = la + lb + 1;
    unsigned *acc = box_calloc(n, sizeof *acc);
    char *t = box_alloc(n);
    const char *s = NULL;
    if (acc == NULL || t == NULL) {
        s = ex_keep(r, NULL);
        goto out;
    }
    for (size_t i = 0; i < la; i++) {
        unsigned carry = 0, da = (unsigned)(a[la - 1 - i] - '0');
        size_t j = 0;
        for (; j < lb; j++) {
            unsigned v =
                acc[i + j] + da * (unsigned)(b[lb - 1 - j] - '0') + carry;
            acc[i + j] = v % 10;
            carry = v / 10;
        }
        for (; carry != 0; j++) {
            unsigned v = acc[i + j] + carry;
            acc[i + j] = v % 10;
            carry = v / 10;
        }
    }
    for (size_t i = 0; i < n; i++)
        t[n - 1 - i] = (char)('0' + acc[i]);
    s = ex_make(r, na != nb, t, n);
out:
    box_free(acc);
    box_free(t);
    return s;
}

/* x / y or x % y, truncating as C does (the remainder takes x's sign).
 * Long division a digit at a time: the remainder stays below 10 * b. */
static const char *
ex_divide(ex_run *r, const char *x, const char *y, bool mod)
{
    bool na, nb;
    const char *a = ex_mag(x, &na), *b = ex_mag(y, &nb);
    size_t la = strlen(a), lb = strlen(b);
    char *q = box_alloc(la + 1), *rem = box_alloc(lb + 2);
    const char *s = NULL;
    if (q == NULL || rem == NULL) {
        s = ex_keep(r, NULL);
        goto out;
    }
    size_t nr = 0; // rem holds nr digits, no leading zeros
    for (size_t i = 0; i < la; i++) {
        if (nr > 0 || a[i] != '0')
            rem[nr++] = a[i];
        int d = 0;
        while (ex_magcmp(rem, nr, b, lb) >= 0) {
            ex_addsub(rem, nr, b, lb, true, rem, nr);
            size_t z = 0;
            while (z < nr && rem[z] == '0')
                z++;
            memmove(rem, rem + z, nr - z);
            nr -= z;
            d++;
        }
        q[i] = (char)('0' + d);
    }
    s = mod ? ex_make(r, na, rem, nr) : ex_make(r, na != nb, q, la);
out:
    box_free(q);
    box_free(rem);
    return s;
}

/* ---- values ---- */

/* GNU's null(): the integer 0, "", or a string of zeros after an
 * optional '-'. */
static bool
ex_null(ex_val v)
{
    if (v.ev_int)
        return strcmp(v.ev_s, "0") == 0;
    const char *p = v.ev_s;
    if (*p == '\0')
        return true;
    p += *p == '-';
    do {
        if (*p != '0')
            return false;
    } while (*++p);
    return true;
}

/* v as an integer: false when it is a string that does not look like one. */
static bool
ex_toint(ex_run *r, ex_val *v)
{
    if (v->ev_int)
        return true;
    if (!ex_looks_int(v->ev_s))
        return false;
    bool neg;
    const char *m = ex_mag(v->ev_s, &neg);
    const char *s = ex_make(r, neg, m, strlen(m));
    if (s == NULL)
        return false;
    v->ev_int = true;
    v->ev_s = s;
    return true;
}

static ex_val
ex_str(const char *s)
{
    return (ex_val){.ev_int = false, .ev_s = s};
}

static bool
ex_num(ex_run *r, uintmax_t n, ex_val *out)
{
    const char *s = ex_keep(r, box_asprintf("%ju", n));
    *out = (ex_val){.ev_int = true, .ev_s = s};
    return s != NULL;
}

/* ---- characters (C.UTF-8: a bad byte is a character of its own) ---- */

static size_t
ex_charlen(const char *p, size_t n)
{
    if ((unsigned char)*p < 0x80)
        return 1;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    size_t k = mbrtowc(NULL, p, n, &st);
    return k == (size_t)-1 || k == (size_t)-2 || k == 0 ? 1 : k;
}

static uintmax_t
ex_nchars(const char *p, size_t n)
{
    uintmax_t c = 0;
    for (size_t i = 0; i < n; c++)
        i += ex_charlen(p + i, n - i);
    return c;
}

/* The byte offset of character k (0-based) of s, or its length. */
static size_t
ex_charoff(const char *s, size_t n, uintmax_t k)
{
    size_t i = 0;
    for (; i < n && k > 0; k--)
        i += ex_charlen(s + i, n - i);
    return i;
}

/* A size argument of substr: its value, 0 when negative, SIZE_MAX when
 * larger than any string. */
static uintmax_t
ex_size(const char *s)
{
    if (*s == '-')
        return 0;
    if (strlen(s) > 19)
        return SIZE_MAX;
    uintmax_t v = 0;
    for (; *s; s++)
        v = v * 10 + (uintmax_t)(*s - '0');
    return v;
}

/* ---- the operations ---- */

/* STRING : REGEXP, anchored at the start: \1 when the pattern has a
 * group (or ""), else the count of characters matched (or 0). */
/* glibc's regcomp says "Unmatched ( or \\(" for a \\) too many, where
 * GNU's re_compile_pattern (expr's) names the ')': which one is it? */
static bool
ex_extra_close(const char *p)
{
    int depth = 0;
    for (; *p; p++) {
        if (p[0] == '\\' && p[1] == '(') {
            depth++;
            p++;
        } else if (p[0] == '\\' && p[1] == ')') {
            if (--depth < 0)
                return true;
            p++;
        } else if (p[0] == '\\' && p[1] != '\0') {
            p++;
        }
    }
    return false;
}

static bool
ex_match(ex_run *r, ex_val s, ex_val p, ex_val *out)
{
    regex_t re;
    regmatch_t m[2];
    bool ok = false;
    int rc = regcomp(&re, p.ev_s, 0);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &re, msg, sizeof msg);
        if (rc == REG_EPAREN && ex_extra_close(p.ev_s))
            snprintf(msg, sizeof msg, "Unmatched ) or \\)");
        return ex_fail(r, EXPR_INVALID, "%s", msg);
    }
    // The leftmost match starts at 0 whenever an anchored one exists.
    rc = regexec(&re, s.ev_s, 2, m, 0);
    bool hit = rc == 0 && m[0].rm_so == 0;
    if (re.re_nsub > 0) {
        const char *g = "";
        if (hit && m[1].rm_so >= 0)
            g = ex_keep(r, box_strndup(s.ev_s + m[1].rm_so,
                                       (size_t)(m[1].rm_eo - m[1].rm_so)));
        *out = ex_str(g);
        ok = g != NULL;
    } else {
        ok = ex_num(r, hit ? ex_nchars(s.ev_s, (size_t)m[0].rm_eo) : 0, out);
    }
    regfree(&re);
    return ok;
}

static bool
ex_substr(ex_run *r, ex_val s, ex_val pos, ex_val len, ex_val *out)
{
    *out = ex_str("");
    if (!ex_toint(r, &pos) || !ex_toint(r, &len))
        return r->ex_status == 0;
    size_t n = strlen(s.ev_s);
    uintmax_t p = ex_size(pos.ev_s), l = ex_size(len.ev_s);
    uintmax_t have = ex_nchars(s.ev_s, n);
    if (p == 0 || l == 0 || p > have)
        return true;
    if (l > have - p + 1)
        l = have - p + 1;
    size_t from = ex_charoff(s.ev_s, n, p - 1);
    size_t to = from + ex_charoff(s.ev_s + from, n - from, l);
    const char *t = ex_keep(r, box_strndup(s.ev_s + from, to - from));
    *out = ex_str(t);
    return t != NULL;
}

/* index STRING CHARS: the place of STRING's first character in CHARS. */
static bool
ex_index(ex_run *r, ex_val s, ex_val chars, ex_val *out)
{
    size_t n = strlen(s.ev_s), nc = strlen(chars.ev_s);
    uintmax_t at = 0, k = 1;
    for (size_t i = 0; i < n && at == 0; k++) {
        size_t cl = ex_charlen(s.ev_s + i, n - i);
        for (size_t j = 0; j < nc && at == 0;) {
            size_t dl = ex_charlen(chars.ev_s + j, nc - j);
            if (dl == cl && memcmp(s.ev_s + i, chars.ev_s + j, cl) == 0)
                at = k;
            j += dl;
        }
        i += cl;
    }
    return ex_num(r, at, out);
}

/* ---- the grammar (GNU's, one function per precedence level) ---- */

static bool ex_or(ex_run *r, bool eval, ex_val *out);

static bool
ex_next_is(ex_run *r, const char *word)
{
    if (*r->ex_args == NULL || strcmp(*r->ex_args, word) != 0)
        return false;
    r->ex_args++;
    return true;
}

/* primary -> '(' or ')' TOKEN | TOKEN */
static bool
ex_primary(ex_run *r, bool eval, ex_val *out)
{
    if (*r->ex_args == NULL)
        return ex_failq(r, "syntax error: missing argument after %s",
                        r->ex_args[-1]);
    if (ex_next_is(r, "(")) {
        if (!ex_or(r, eval, out))
            return false;
        if (*r->ex_args == NULL)
            return ex_failq(r, "syntax error: expecting ')' after %s",
                            r->ex_args[-1]);
        if (!ex_next_is(r, ")"))
            return ex_failq(r, "syntax error: expecting ')' instead of %s",
                            *r->ex_args);
        return true;
    }
    if (ex_next_is(r, ")"))
        return ex_fail(r, EXPR_INVALID, "%s", "syntax error: unexpected ')'");
    *out = ex_str(*r->ex_args++);
    return true;
}

/* unary -> '+' TOKEN | length unary | match unary unary
 *        | index unary unary | substr unary unary unary | primary */
static bool
ex_unary(ex_run *r, bool eval, ex_val *out)
{
    ex_val a, b, c;
    if (ex_next_is(r, "+")) {
        if (*r->ex_args == NULL)
            return ex_failq(r, "syntax error: missing argument after %s", "+");
        *out = ex_str(*r->ex_args++);
        return true;
    }
    if (ex_next_is(r, "length")) {
        if (!ex_unary(r, eval, &a))
            return false;
        return ex_num(r, ex_nchars(a.ev_s, strlen(a.ev_s)), out);
    }
    if (ex_next_is(r, "match")) {
        if (!ex_unary(r, eval, &a) || !ex_unary(r, eval, &b))
            return false;
        if (!eval)
            return ex_num(r, 0, out);
        return ex_match(r, a, b, out);
    }
    if (ex_next_is(r, "index")) {
        if (!ex_unary(r, eval, &a) || !ex_unary(r, eval, &b))
            return false;
        return ex_index(r, a, b, out);
    }
    if (ex_next_is(r, "substr")) {
        if (!ex_unary(r, eval, &a) || !ex_unary(r, eval, &b) ||
            !ex_unary(r, eval, &c))
            return false;
        return ex_substr(r, a, b, c, out);
    }
    return ex_primary(r, eval, out);
}

/* colon -> unary { ':' unary } */
static bool
ex_colon(ex_run *r, bool eval, ex_val *out)
{
    if (!ex_unary(r, eval, out))
        return false;
    while (ex_next_is(r, ":")) {
        ex_val p;
        if (!ex_unary(r, eval, &p))
            return false;
        if (eval && !ex_match(r, *out, p, out))
            return false;
    }
    return true;
}

/* The arithmetic of one operator on two evaluated operands. */
static bool
ex_arith(ex_run *r, char op, ex_val a, ex_val b, ex_val *out)
{
    if (!ex_toint(r, &a) || !ex_toint(r, &b))
        return r->ex_status != 0
                   ? false
                   : ex_fail(r, EXPR_INVALID, "%s", "non-integer argument");
    if ((op == '/' || op == '%') && strcmp(b.ev_s, "0") == 0)
        return ex_fail(r, EXPR_INVALID, "%s", "division by zero");
    const char *s = op == '+'   ? ex_sum(r, a.ev_s, b.ev_s, false)
                    : op == '-' ? ex_sum(r, a.ev_s, b.ev_s, true)
                    : op == '*' ? ex_product(r, a.ev_s, b.ev_s)
                                : ex_divide(r, a.ev_s, b.ev_s, op == '%');
    *out = (ex_val){.ev_int = true, .ev_s = s};
    return s != NULL;
}

/* product -> colon { ('*' | '/' | '%') colon } */
static bool
ex_product_rule(ex_run *r, bool eval, ex_val *out)
{
    if (!ex_colon(r, eval, out))
        return false;
    for (;;) {
        char op = ex_next_is(r, "*")   ? '*'
                  : ex_next_is(r, "/") ? '/'
                  : ex_next_is(r, "%") ? '%'
                                       : 0;
        ex_val b;
        if (op == 0)
            return true;
        if (!ex_colon(r, eval, &b))
            return false;
        if (eval && !ex_arith(r, op, *out, b, out))
            return false;
    }
}

/* sum -> product { ('+' | '-') product } */
static bool
ex_sum_rule(ex_run *r, bool eval, ex_val *out)
{
    if (!ex_product_rule(r, eval, out))
        return false;
    for (;;) {
        char op = ex_next_is(r, "+") ? '+' : ex_next_is(r, "-") ? '-' : 0;
        ex_val b;
        if (op == 0)
            return true;
        if (!ex_product_rule(r, eval, &b))
            return false;
        if (eval && !ex_arith(r, op, *out, b, out))
            return false;
    }
}

/* Both integers: by value; else as strings (C.UTF-8 collates by code
 * point, the order of the bytes). */
static int
ex_compare(ex_val a, ex_val b)
{
    if (!ex_looks_int(a.ev_s) || !ex_looks_int(b.ev_s))
        return strcmp(a.ev_s, b.ev_s);
    bool na, nb;
    const char *x = ex_mag(a.ev_s, &na), *y = ex_mag(b.ev_s, &nb);
    if (na != nb)
        return na ? -1 : 1;
    int c = ex_magcmp(x, strlen(x), y, strlen(y));
    return na ? -c : c;
}

/* relation -> sum { ('<' | '<=' | '=' | '==' | '!=' | '>=' | '>') sum } */
static bool
ex_relation(ex_run *r, bool eval, ex_val *out)
{
    static const char *const ops[] = {
        "<", "<=", "=", "==", "!=", ">=", ">", NULL};
    if (!ex_sum_rule(r, eval, out))
        return false;
    for (;;) {
        int k = 0;
        while (ops[k] != NULL && !ex_next_is(r, ops[k]))
            k++;
        if (ops[k] == NULL)
            return true;
        ex_val b;
        if (!ex_sum_rule(r, eval, &b))
            return false;
        int c = eval ? ex_compare(*out, b) : 0;
        bool v = k == 0   ? c < 0
                 : k == 1 ? c <= 0
                 : k <= 3 ? c == 0
                 : k == 4 ? c != 0
                 : k == 5 ? c >= 0
                          : c > 0;
        if (!ex_num(r, v, out))
            return false;
    }
}

/* and -> relation { '&' relation }: the right side is only evaluated
 * (its errors only reported) when the left is neither null nor 0. */
static bool
ex_and(ex_run *r, bool eval, ex_val *out)
{
    if (!ex_relation(r, eval, out))
        return false;
    while (ex_next_is(r, "&")) {
        ex_val b;
        if (!ex_relation(r, eval && !ex_null(*out), &b))
            return false;
        if ((ex_null(*out) || ex_null(b)) && !ex_num(r, 0, out))
            return false;
    }
    return true;
}

/* or -> and { '|' and }: the right side only when the left is null. */
static bool
ex_or(ex_run *r, bool eval, ex_val *out)
{
    if (!ex_and(r, eval, out))
        return false;
    while (ex_next_is(r, "|")) {
        ex_val b;
        if (!ex_and(r, eval && ex_null(*out), &b))
            return false;
        if (!ex_null(*out))
            continue;
        if (ex_null(b)) {
            if (!ex_num(r, 0, out))
                return false;
        } else {
            *out = b;
        }
    }
    return true;
}

/* ---- the command ---- */

/* GNU's expr looks for --help and --version (any unambiguous prefix) only
 * when it is the one argument; "--" first is skipped. */
static int
expr_options(sh_ctx *cx, int argc, char **argv, bool *done)
{
    *done = false;
    if (argc != 2 || strncmp(argv[1], "--", 2) != 0 || argv[1][2] == '\0')
        return 0;
    size_t n = strlen(argv[1]);
    if (strncmp(argv[1], "--help", n) != 0 &&
        strncmp(argv[1], "--version", n) != 0)
        return 0;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &expr_spec, argc, argv);
    const char *arg;
    int st = 0;
    *done = sh_gopt_next(&it, &arg, &st) == SH_GOPT_EXIT;
    sh_gopt_free(&it);
    return st;
}

int
sh_cmd_expr(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    bool done;
    int st = expr_options(cx, argc, argv, &done);
    if (done)
        return st;
    char **args = argv + 1;
    if (*args != NULL && strcmp(*args, "--") == 0)
        args++;
    if (*args == NULL) {
        sh_gopt_iter it;
        sh_gopt_init(&it, cx, &expr_spec, 1, argv);
        st = sh_gopt_usage_error(&it, "missing operand");
        sh_gopt_free(&it);
        return st;
    }
    // C.UTF-8 for the whole evaluation: characters for length, substr
    // and index, and the matcher's '.'.
    locale_t u8 = sh_glob_locale(), old = (locale_t)0;
    if (u8 != (locale_t)0)
        old = uselocale(u8);
    ex_run r = {.ex_cx = cx, .ex_args = args};
    ex_val v;
    if (ex_or(&r, true, &v) && *r.ex_args != NULL)
        ex_failq(&r, "syntax error: unexpected argument %s", *r.ex_args);
    if (r.ex_status == 0) {
        bool ok = sh_puts(cx, 1, v.ev_s) == SH_IO_OK &&
                  sh_write(cx, 1, "\n", 1) == SH_IO_OK;
        if (ok)
            st = ex_null(v) ? 1 : 0;
        else if (cx->cx_flow != SH_FLOW_NONE)
            st = cx->cx_status; // the reader left, or the call is over
        else
            st = sh_cmd_err(cx, "expr", EXPR_FAILURE,
                            "write error: Bad file descriptor");
    } else {
        st = r.ex_status;
    }
    for (size_t i = 0; i < r.ex_npool; i++)
        box_free(r.ex_pool[i]);
    box_free(r.ex_pool);
    if (old != (locale_t)0)
        uselocale(old);
    return st;
}
