/* SPDX-License-Identifier: Apache-2.0 */
/* $(( )) arithmetic as bash evaluates it: 64-bit integers that wrap, C's
 * operators plus **, assignments, ++/--, the comma, BASE#N constants. */
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_array.h"
#include "sh_internal.h"

/*
 * Recursive descent, one function per level of bash's table (lowest
 * first): comma, assignment, ?:, the binary operators by precedence
 * climbing over one table (STYLE §9), unary, postfix. Every level takes
 * `ev`: false on the side a short circuit skips, which is parsed but
 * neither evaluated nor assigned (bash: `0 && x++` leaves x, `0 && 1/0`
 * is no error). A variable whose value is not a number reads as 0
 * (spec §3.2). An error prints bash's message, "EXPR: WHAT (error token
 * is "REST")", REST from the start of the last token read, and gives 1.
 */

#define ARITH_MAX_DEPTH 64 // nested operands: (, !, -, ++ …
// Every recursive level (a=b=…, a?b:c?…, a**b**…) counts too, so hostile
// text ends in an error, not on the end of the stack (bash's own cap).
#define ARITH_MAX_LEVEL 1024
#define ARITH_NAME_MAX 256

typedef struct ar {
    sh_ctx *a_cx;
    const char *a_s;
    size_t a_len, a_pos;
    size_t a_lasttp; // where the last token read started
    // A constant that does not read (bad base or digit): bash's message
    // shows the expression only up to its end (bash cuts the text there
    // while it converts) and the constant as the error token.
    size_t a_num_at, a_num_len;
    const char *a_err;
    bool a_unset; // set -u met an unset name: the spec's own message
    int a_depth;
    int a_level; // recursive calls of assign, conditional and binary
    // Last: written only with a_unset (an evaluation starts by clearing
    // what comes before it).
    char a_unset_name[ARITH_NAME_MAX];
} ar;

typedef enum {
    OP_NONE,
    OP_OROR,
    OP_ANDAND,
    OP_OR,
    OP_XOR,
    OP_AND,
    OP_EQ,
    OP_NE,
    OP_LT,
    OP_LE,
    OP_GT,
    OP_GE,
    OP_SHL,
    OP_SHR,
    OP_ADD,
    OP_SUB,
    OP_MUL,
    OP_DIV,
    OP_MOD,
    OP_POW,
} aop;

/* Each binary operator's binding power and the length of its spelling
 * (peek_op reads the spellings; ** binds to the right). */
static const struct {
    int o_prec;
    size_t o_len;
} ops[] = {
    [OP_OROR] = {1, 2}, [OP_ANDAND] = {2, 2}, [OP_OR] = {3, 1},
    [OP_XOR] = {4, 1},  [OP_AND] = {5, 1},    [OP_EQ] = {6, 2},
    [OP_NE] = {6, 2},   [OP_LT] = {7, 1},     [OP_LE] = {7, 2},
    [OP_GT] = {7, 1},   [OP_GE] = {7, 2},     [OP_SHL] = {8, 2},
    [OP_SHR] = {8, 2},  [OP_ADD] = {9, 1},    [OP_SUB] = {9, 1},
    [OP_MUL] = {10, 1}, [OP_DIV] = {10, 1},   [OP_MOD] = {10, 1},
    [OP_POW] = {11, 2},
};

// clang-format off
/* Assignment operators: the binary operator each applies (OP_NONE: =). */
static const struct {
    const char *as_text;
    aop as_op;
} assigns[] = {
    {"<<=", OP_SHL}, {">>=", OP_SHR}, {"*=", OP_MUL}, {"/=", OP_DIV},
    {"%=", OP_MOD},  {"+=", OP_ADD},  {"-=", OP_SUB}, {"&=", OP_AND},
    {"^=", OP_XOR},  {"|=", OP_OR},   {"=", OP_NONE},
};
// clang-format on

static bool
at_end(const ar *a)
{
    return a->a_pos >= a->a_len;
}

static char
cur(const ar *a)
{
    return at_end(a) ? '\0' : a->a_s[a->a_pos];
}

/* The byte k after the cursor, or NUL past the end. */
static char
ahead(const ar *a, size_t k)
{
    return a->a_pos + k < a->a_len ? a->a_s[a->a_pos + k] : '\0';
}

static void
skip_ws(ar *a)
{
    while (!at_end(a) && (a->a_s[a->a_pos] == ' ' ||
                          a->a_s[a->a_pos] == '\t' ||
                          a->a_s[a->a_pos] == '\n'))
        a->a_pos++;
}

/* Skips blanks and marks where the next token starts (at the end there
 * is no token, and the mark stays on the last one, as bash's does). */
static void
next_tok(ar *a)
{
    skip_ws(a);
    if (!at_end(a))
        a->a_lasttp = a->a_pos;
}

static bool
looking_at(const ar *a, const char *t)
{
    // Nearly every try (each operator at each level of the climb) fails
    // on the first byte: it costs no strlen.
    if (at_end(a) || a->a_s[a->a_pos] != t[0])
        return false;
    size_t n = strlen(t);
    return a->a_pos + n <= a->a_len && memcmp(a->a_s + a->a_pos, t, n) == 0;
}

static void
fail(ar *a, const char *what)
{
    if (a->a_err == NULL)
        a->a_err = what;
}

static void
fail_number(ar *a, size_t at, size_t len, const char *what)
{
    if (a->a_err != NULL)
        return;
    a->a_err = what;
    a->a_num_at = at;
    a->a_num_len = len;
}

static bool
is_name_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

/* A variable's value as a number: blanks around a number allowed, any
 * other text 0 (spec §3.2). */
static long long
str_num(const char *v)
{
    long long quick;
    if (v == NULL)
        return 0;
    if (sh_parse_dec(v, &quick))
        return quick;
    while (*v == ' ' || *v == '\t' || *v == '\n')
        v++;
    char *end;
    long long n = strtoll(v, &end, 0);
    if (end == v)
        return 0;
    while (*end == ' ' || *end == '\t' || *end == '\n')
        end++;
    return *end == '\0' ? n : 0;
}

/* name[0..n) as a C string in out; false when too long. */
static bool
name_copy(const char *name, size_t n, char out[ARITH_NAME_MAX])
{
    if (n >= ARITH_NAME_MAX)
        return false;
    memcpy(out, name, n);
    out[n] = '\0';
    return true;
}

/*
 * NAME[sub] operands (bash arrays): the subscript is part of the name
 * span the scanners return. Evaluating it may evaluate arithmetic again
 * (an index); arith_nest bounds that nesting per thread so a[a[a[…]]]
 * ends in an error, not on the end of the stack.
 */
#define ARITH_MAX_SUB_NEST 32
static _Thread_local unsigned arith_nest;
static const char arith_printed[] = ""; // a_err: the message is out

/* After a name at the cursor: a `[…]` joins the span. */
static void
scan_subscript(ar *a)
{
    if (at_end(a) || cur(a) != '[')
        return;
    size_t rest = a->a_len - a->a_pos;
    size_t e = sh_lex_bracket_end(a->a_s + a->a_pos, rest);
    if (e == rest) {
        fail(a, "bad array subscript");
        return;
    }
    a->a_pos += e + 1;
}

/* name[0..n) as NAME[sub]: the element's index or key in *idx / *key
 * (*sub box_alloc'd, holding the key), false after failing. */
static bool
elem_of(ar *a, const char *name, size_t n, char nm[ARITH_NAME_MAX],
        long long *idx, const char **key, char **sub)
{
    const char *br = memchr(name, '[', n);
    *sub = NULL;
    if (!name_copy(name, (size_t)(br - name), nm)) {
        fail(a, "name too long");
        return false;
    }
    if (arith_nest >= ARITH_MAX_SUB_NEST) {
        fail(a, "expression recursion level exceeded");
        return false;
    }
    if ((*sub = box_strndup(br + 1, n - (size_t)(br - name) - 2)) == NULL) {
        fail(a, "out of memory");
        return false;
    }
    arith_nest++;
    int rc = sh_subscript(a->a_cx, nm, nm, *sub,
                          idx, key);
    arith_nest--;
    if (rc != 0) {
        fail(a, arith_printed);
        return false;
    }
    return true;
}

static long long
elem_num(ar *a, const char *name, size_t n)
{
    char nm[ARITH_NAME_MAX];
    long long idx;
    const char *key;
    char *sub;
    if (!elem_of(a, name, n, nm, &idx, &key, &sub)) {
        box_free(sub);
        return 0;
    }
    const sh_var *v = sh_var_find(a->a_cx->cx_st, nm);
    const char *val = NULL;
    if (v != NULL && v->v_arr != NULL)
        val = key ? sh_array_get_key(v->v_arr, key) : sh_array_get(v->v_arr, idx);
    else if (v != NULL && idx == 0 && (key == NULL || strcmp(key, "0") == 0))
        val = v->v_value;
    box_free(sub);
    return str_num(val);
}

static void
elem_store(ar *a, const char *name, size_t n, const char *num)
{
    char nm[ARITH_NAME_MAX];
    long long idx;
    const char *key;
    char *sub;
    if (elem_of(a, name, n, nm, &idx, &key, &sub)) {
        char *shown = box_asprintf("%lld", idx);
        if (shown == NULL)
            fail(a, "out of memory");
        else if (sh_assign_str(a->a_cx, NULL, nm, key ? key : shown, num,
                               strlen(num), false) != 0)
            fail(a, arith_printed);
        box_free(shown);
    }
    box_free(sub);
}

static long long
var_num(ar *a, const char *name, size_t n)
{
    if (memchr(name, '[', n) != NULL)
        return elem_num(a, name, n);
    char nm[ARITH_NAME_MAX];
    if (!name_copy(name, n, nm))
        return 0;
    sh_state *st = a->a_cx->cx_st;
    if (n == 1 && nm[0] == '#')
        return st->st_npos;
    if (n == 1 && nm[0] == '?')
        return a->a_cx->cx_status;
    if (n == 1 && nm[0] == '$')
        return a->a_cx->cx_ss->ss_pid;
    if (n == 1 && nm[0] == '!') // none yet: $! is empty, which counts 0
        return st->st_bgpid > 0 ? st->st_bgpid : 0;
    if (nm[0] >= '0' && nm[0] <= '9') {
        long i = strtol(nm, NULL, 10);
        if (i == 0)
            return 0;
        return i <= st->st_npos ? str_num(st->st_pos[i - 1]) : 0;
    }
    char tmp[SH_DEC_MAX + 32];
    const char *v = sh_special_value(a->a_cx, nm, n, tmp, sizeof tmp);
    if (v == NULL)
        v = sh_var_get(st, nm);
    if (v == NULL && st->st_opt_u && !a->a_unset) {
        a->a_unset = true;
        memcpy(a->a_unset_name, nm, n + 1);
        fail(a, "parameter not set");
    }
    return str_num(v);
}

static void
var_store(ar *a, const char *name, size_t n, long long v)
{
    char nm[ARITH_NAME_MAX], num[SH_DEC_MAX];
    const char *br = memchr(name, '[', n);
    if (!name_copy(name, br ? (size_t)(br - name) : n, nm)) {
        fail(a, "name too long");
        return;
    }
    size_t nl = sh_fmt_dec(num, v);
    if (br != NULL)
        elem_store(a, name, n, num);
    else if (sh_assign_str(a->a_cx, NULL, nm, NULL, num, nl, false))
        fail(a, arith_printed);
}

/* The digit d in base b (bash: 0-9, then a-z, A-Z, @, _; letters of
 * either case are 10-35 up to base 36), or -1. */
static int
digit_value(char d, int b)
{
    int v = -1;
    if (d >= '0' && d <= '9')
        v = d - '0';
    else if (d >= 'a' && d <= 'z')
        v = d - 'a' + 10;
    else if (d >= 'A' && d <= 'Z')
        v = d - 'A' + (b <= 36 ? 10 : 36);
    else if (d == '@')
        v = 62;
    else if (d == '_')
        v = 63;
    return v < b ? v : -1;
}

/* A constant: [BASE#]DIGITS, 0xHEX, 0OCTAL or decimal; wraps as bash. */
static long long
number(ar *a)
{
    size_t st = a->a_pos;
    while (!at_end(a) &&
           (is_name_char(cur(a), false) || cur(a) == '#' || cur(a) == '@'))
        a->a_pos++;
    const char *s = a->a_s + st;
    size_t n = a->a_pos - st, i = 0;
    int base = 10;
    const char *hash = memchr(s, '#', n);
    if (hash != NULL) {
        base = 0;
        for (; s + i < hash; i++) {
            if (s[i] < '0' || s[i] > '9' || base > 64) {
                fail_number(a, st, n, "invalid arithmetic base");
                return 0;
            }
            base = base * 10 + (s[i] - '0');
        }
        if (base < 2 || base > 64) {
            fail_number(a, st, n, "invalid arithmetic base");
            return 0;
        }
        i++;
    } else if (n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        i = 2;
    } else if (n > 1 && s[0] == '0') {
        base = 8;
        i = 1;
    }
    if (i >= n && hash != NULL) {
        fail_number(a, st, n, "invalid integer constant");
        return 0;
    }
    unsigned long long v = 0;
    for (; i < n; i++) {
        int d = digit_value(s[i], base);
        if (d < 0) {
            fail_number(a, st, n, "value too great for base");
            return 0;
        }
        v = v * (unsigned long long)base + (unsigned long long)d;
    }
    return (long long)v;
}

static long long comma(ar *a, bool ev);
static long long assign(ar *a, bool ev);
static long long conditional(ar *a, bool ev);
static long long binary(ar *a, int minprec, bool ev);

/* Enters one more recursive level; false (having failed) past the cap.
 * Each true is paired with a_level-- on the way out. */
static bool
deeper(ar *a)
{
    if (++a->a_level > ARITH_MAX_LEVEL) {
        a->a_level--;
        fail(a, "expression recursion level exceeded");
        return false;
    }
    return true;
}

/* ++NAME / --NAME / NAME++ / NAME-- on name[0..n): the value it gives. */
static long long
step(ar *a, const char *name, size_t n, int delta, bool post, bool ev)
{
    if (!ev)
        return 0;
    long long old = var_num(a, name, n);
    long long now =
        (long long)((unsigned long long)old + (unsigned long long)delta);
    var_store(a, name, n, now);
    return post ? old : now;
}

/* NAME, $NAME, ${NAME}, $N, $#, $?, $$, $! and a following ++/--. */
static long long
operand_var(ar *a, bool ev)
{
    bool dollar = cur(a) == '$', brace = false;
    if (dollar) {
        a->a_pos++;
        brace = cur(a) == '{';
        if (brace)
            a->a_pos++;
    }
    size_t st = a->a_pos;
    if (dollar &&
        (cur(a) == '#' || cur(a) == '?' || cur(a) == '$' || cur(a) == '!')) {
        a->a_pos++;
    } else if (dollar && cur(a) >= '0' && cur(a) <= '9') {
        while (cur(a) >= '0' && cur(a) <= '9')
            a->a_pos++;
    } else {
        while (!at_end(a) && is_name_char(cur(a), a->a_pos == st))
            a->a_pos++;
        if (a->a_pos > st && (!dollar || brace))
            scan_subscript(a);
    }
    if (a->a_pos == st) {
        fail(a, dollar && cur(a) == '(' ? "command substitution not supported "
                                          "here"
                                        : "syntax error: operand expected");
        return 0;
    }
    size_t n = a->a_pos - st;
    if (brace) {
        if (cur(a) != '}') {
            fail(a, "bad substitution");
            return 0;
        }
        a->a_pos++;
    }
    if (!dollar) {
        size_t save = a->a_pos;
        skip_ws(a);
        char c = cur(a);
        if ((c == '+' || c == '-') && ahead(a, 1) == c) { // ++ or --
            int delta = cur(a) == '+' ? 1 : -1;
            a->a_lasttp = a->a_pos;
            a->a_pos += 2;
            return step(a, a->a_s + st, n, delta, true, ev);
        }
        a->a_pos = save;
    }
    return ev ? var_num(a, a->a_s + st, n) : 0;
}

static long long
unary(ar *a, bool ev)
{
    next_tok(a);
    if (a->a_err != NULL)
        return 0;
    if (++a->a_depth > ARITH_MAX_DEPTH) {
        fail(a, "expression recursion level exceeded");
        return 0;
    }
    long long v = 0;
    char c = cur(a);
    if ((c == '+' || c == '-') && ahead(a, 1) == c) { // ++ or --
        int delta = c == '+' ? 1 : -1;
        a->a_pos += 2;
        next_tok(a);
        size_t st = a->a_pos;
        while (!at_end(a) && is_name_char(cur(a), a->a_pos == st))
            a->a_pos++;
        if (a->a_pos > st)
            scan_subscript(a);
        if (a->a_pos > st)
            v = step(a, a->a_s + st, a->a_pos - st, delta, false, ev);
        else // `--5`, `++(x)`: two signs, as bash reads them
            // delta is ±1; wraps as bash does (--LLONG_MIN is itself)
            v = (long long)((unsigned long long)delta *
                            (unsigned long long)unary(a, ev));
    } else if (c == '!') {
        a->a_pos++;
        v = !unary(a, ev);
    } else if (c == '~') {
        a->a_pos++;
        v = ~unary(a, ev);
    } else if (c == '-') {
        a->a_pos++;
        v = (long long)(0 - (unsigned long long)unary(a, ev));
    } else if (c == '+') {
        a->a_pos++;
        v = unary(a, ev);
    } else if (c == '(') {
        a->a_pos++;
        v = comma(a, ev);
        skip_ws(a);
        if (cur(a) == ')')
            a->a_pos++;
        else
            fail(a, "missing `)'");
    } else if (c >= '0' && c <= '9') {
        v = number(a);
    } else if (c == '$' || is_name_char(c, true)) {
        v = operand_var(a, ev);
    } else {
        fail(a, "syntax error: operand expected");
    }
    a->a_depth--;
    return v;
}

/* The binary operator at the cursor (not the start of an assignment
 * operator such as `+=` or `<<=`), or OP_NONE. Read off the next bytes
 * with a switch: each operand ends in this look, at every level of the
 * climb, and walking a table of spellings was a tenth of `$((i+1))`.
 * Agrees with assigns[]. */
static aop
peek_op(ar *a, size_t *len, int *prec)
{
    skip_ws(a);
    char c1 = ahead(a, 1), c2 = ahead(a, 2);
    aop op = OP_NONE;
    *len = 1;
    switch (ahead(a, 0)) {
    case '|':
        op = c1 == '|' ? OP_OROR : c1 == '=' ? OP_NONE : OP_OR;
        break;
    case '&':
        op = c1 == '&' ? OP_ANDAND : c1 == '=' ? OP_NONE : OP_AND;
        break;
    case '=':
        op = c1 == '=' ? OP_EQ : OP_NONE;
        break;
    case '!':
        op = c1 == '=' ? OP_NE : OP_NONE;
        break;
    case '<':
        op = c1 == '<' ? (c2 == '=' ? OP_NONE : OP_SHL)
             : c1 == '=' ? OP_LE
                         : OP_LT;
        break;
    case '>':
        op = c1 == '>' ? (c2 == '=' ? OP_NONE : OP_SHR)
             : c1 == '=' ? OP_GE
                         : OP_GT;
        break;
    case '*':
        op = c1 == '*' ? OP_POW : c1 == '=' ? OP_NONE : OP_MUL;
        break;
    case '^':
        op = c1 == '=' ? OP_NONE : OP_XOR;
        break;
    case '+':
        op = c1 == '=' ? OP_NONE : OP_ADD;
        break;
    case '-':
        op = c1 == '=' ? OP_NONE : OP_SUB;
        break;
    case '/':
        op = c1 == '=' ? OP_NONE : OP_DIV;
        break;
    case '%':
        op = c1 == '=' ? OP_NONE : OP_MOD;
        break;
    default:
        break;
    }
    if (op != OP_NONE) {
        *len = ops[op].o_len;
        *prec = ops[op].o_prec;
    }
    return op;
}

static long long
power(ar *a, long long b, long long e)
{
    if (e < 0) {
        fail(a, "exponent less than 0");
        return 0;
    }
    unsigned long long r = 1, x = (unsigned long long)b;
    for (unsigned long long k = (unsigned long long)e; k != 0; k >>= 1) {
        if (k & 1)
            r *= x;
        x *= x;
    }
    return (long long)r;
}

static long long
apply(ar *a, aop op, long long l, long long r)
{
    unsigned long long ul = (unsigned long long)l, ur = (unsigned long long)r;
    switch (op) {
    case OP_OR:
        return l | r;
    case OP_XOR:
        return l ^ r;
    case OP_AND:
        return l & r;
    case OP_EQ:
        return l == r;
    case OP_NE:
        return l != r;
    case OP_LT:
        return l < r;
    case OP_LE:
        return l <= r;
    case OP_GT:
        return l > r;
    case OP_GE:
        return l >= r;
    case OP_SHL:
        return (long long)(ul << (ur & 63u));
    case OP_SHR:
        return l >> (ur & 63u);
    case OP_ADD:
        return (long long)(ul + ur);
    case OP_SUB:
        return (long long)(ul - ur);
    case OP_MUL:
        return (long long)(ul * ur);
    case OP_POW:
        return power(a, l, r);
    case OP_DIV:
    case OP_MOD:
        if (r == 0) {
            fail(a, "division by 0");
            return 0;
        }
        if (r == -1) // LLONG_MIN / -1 wraps, as bash's does
            return op == OP_DIV ? (long long)(0 - ul) : 0;
        return op == OP_DIV ? l / r : l % r;
    default:
        return 0;
    }
}

/* Precedence climbing; && and || evaluate their right side only when it
 * decides. */
static long long
binary_in(ar *a, int minprec, bool ev)
{
    long long l = unary(a, ev);
    for (;;) {
        size_t n = 0;
        int prec = 0;
        if (a->a_err != NULL)
            return 0;
        aop op = peek_op(a, &n, &prec);
        if (op == OP_NONE || prec <= minprec)
            break;
        a->a_lasttp = a->a_pos;
        a->a_pos += n;
        // ** binds to the right: the right side may hold another **.
        int next = op == OP_POW ? prec - 1 : prec;
        if (op == OP_ANDAND) {
            long long r = binary(a, next, ev && l != 0);
            l = l != 0 && r != 0;
        } else if (op == OP_OROR) {
            long long r = binary(a, next, ev && l == 0);
            l = l != 0 || r != 0;
        } else {
            long long r = binary(a, next, ev);
            if (a->a_err == NULL)
                l = ev ? apply(a, op, l, r) : 0;
        }
    }
    return l;
}

static long long
binary(ar *a, int minprec, bool ev)
{
    if (!deeper(a))
        return 0;
    long long v = binary_in(a, minprec, ev);
    a->a_level--;
    return v;
}

/* cond ? comma : cond */
static long long
conditional_in(ar *a, bool ev)
{
    long long c = binary(a, 0, ev);
    skip_ws(a);
    if (a->a_err != NULL || cur(a) != '?')
        return c;
    a->a_lasttp = a->a_pos;
    a->a_pos++;
    long long t = comma(a, ev && c != 0);
    skip_ws(a);
    if (cur(a) != ':') {
        fail(a, "`:' expected for conditional expression");
        return 0;
    }
    a->a_lasttp = a->a_pos;
    a->a_pos++;
    long long f = conditional(a, ev && c == 0);
    return c != 0 ? t : f;
}

static long long
conditional(ar *a, bool ev)
{
    if (!deeper(a))
        return 0;
    long long v = conditional_in(a, ev);
    a->a_level--;
    return v;
}

/* The assignment operator at the cursor: its index in assigns, or -1.
 * Looks at the next bytes first: nearly every look finds none. */
static int
peek_assign(ar *a)
{
    skip_ws(a);
    char c0 = ahead(a, 0), c1 = ahead(a, 1);
    if (c0 == '=' ? c1 == '=' : c1 != '=' && c1 != c0)
        return -1; // `==`, or no `=` where an operator would end
    for (size_t i = 0; i < sizeof assigns / sizeof assigns[0]; i++)
        if (looking_at(a, assigns[i].as_text))
            return (int)i;
    return -1;
}

/* NAME op= assign, right to left; anything else is a conditional, and an
 * assignment operator after one that is not a bare name is an error. */
static long long
assign_in(ar *a, bool ev)
{
    skip_ws(a);
    size_t st = a->a_pos;
    while (!at_end(a) && is_name_char(cur(a), a->a_pos == st))
        a->a_pos++;
    if (a->a_pos > st)
        scan_subscript(a);
    size_t n = a->a_pos - st;
    int k = n > 0 && a->a_err == NULL ? peek_assign(a) : -1;
    if (k < 0) {
        a->a_pos = st;
        long long v = conditional(a, ev);
        if (a->a_err == NULL && peek_assign(a) >= 0) {
            a->a_lasttp = a->a_pos;
            fail(a, "attempted assignment to non-variable");
        }
        return v;
    }
    a->a_lasttp = a->a_pos;
    a->a_pos += strlen(assigns[k].as_text);
    long long r = assign(a, ev);
    if (a->a_err != NULL || !ev)
        return 0;
    long long v = r;
    if (assigns[k].as_op != OP_NONE)
        v = apply(a, assigns[k].as_op, var_num(a, a->a_s + st, n), r);
    if (a->a_err == NULL)
        var_store(a, a->a_s + st, n, v);
    return v;
}

static long long
assign(ar *a, bool ev)
{
    if (!deeper(a))
        return 0;
    long long v = assign_in(a, ev);
    a->a_level--;
    return v;
}

static long long
comma(ar *a, bool ev)
{
    long long v = assign(a, ev);
    for (;;) {
        skip_ws(a);
        if (a->a_err != NULL || cur(a) != ',')
            return v;
        a->a_lasttp = a->a_pos;
        a->a_pos++;
        v = assign(a, ev);
    }
}

/* let EXPR...: each argument an arithmetic expression; 0 when the last
 * is non-zero, 1 when it is zero or an expression fails (bash). */
int
sh_bi_let(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    long long v = 0;
    if (argc < 2) {
        sh_errf(cx, "let: expression expected");
        return 1;
    }
    for (int i = 1; i < argc; i++) {
        int st = sh_arith_in(cx, "let", argv[i], strlen(argv[i]), &v);
        if (st != 0)
            return st;
    }
    return v != 0 ? 0 : 1;
}

int
sh_arith(sh_ctx *cx, const char *text, size_t len, long long *val)
{
    return sh_arith_in(cx, NULL, text, len, val);
}

/* How much of the expression an error echoes: bash echoes it all, but a
 * 200 KB one (100,000 nested parentheses) would push the reason itself
 * past the end of the message. */
#define ARITH_ECHO_MAX 256

static int
echo_len(size_t n)
{
    return n > ARITH_ECHO_MAX ? ARITH_ECHO_MAX : (int)n;
}

static bool
is_blank(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/*
 * The commonest expression, a loop's `NAME+N` or `NAME-N`, read without
 * the parser: true with *val when s[0..len) is exactly that (blanks
 * around each part), N a decimal constant (no leading 0: octal, no base)
 * and NAME a plain variable (no subscript) that is set, or unset with no
 * set -u. Anything else, and every error, is the parser's. The value is
 * the parser's own: str_num of the variable, the same wrapping sum.
 */
static bool
quick_sum(sh_ctx *cx, const char *s, size_t len, long long *val)
{
    size_t i = 0, name_at, name_len;
    while (i < len && is_blank(s[i]))
        i++;
    if (i == len || !is_name_char(s[i], true))
        return false;
    for (name_at = i; i < len && is_name_char(s[i], false); i++)
        ;
    name_len = i - name_at;
    while (i < len && is_blank(s[i]))
        i++;
    if (i == len || (s[i] != '+' && s[i] != '-') || name_len >= ARITH_NAME_MAX)
        return false;
    char op = s[i++];
    while (i < len && is_blank(s[i]))
        i++;
    // A digit next: `+=`, `++`, `+-3`, `+(…)` are the parser's.
    if (i == len || s[i] < '0' || s[i] > '9' ||
        (s[i] == '0' && i + 1 < len && !is_blank(s[i + 1])))
        return false;
    unsigned long long n = 0;
    size_t digits = 0;
    for (; i < len && s[i] >= '0' && s[i] <= '9'; i++, digits++)
        n = n * 10u + (unsigned)(s[i] - '0');
    if (digits > 18) // past what surely fits: the parser's overflow rules
        return false;
    while (i < len && is_blank(s[i]))
        i++;
    if (i != len)
        return false;
    char nm[ARITH_NAME_MAX];
    memcpy(nm, s + name_at, name_len);
    nm[name_len] = '\0';
    sh_state *st = cx->cx_st;
    const char *v = sh_var_get(st, nm);
    if (v == NULL && st->st_opt_u)
        return false;
    unsigned long long l = (unsigned long long)str_num(v);
    *val = (long long)(op == '+' ? l + n : l - n);
    return true;
}

int
sh_arith_in(sh_ctx *cx, const char *who, const char *text, size_t len,
            long long *val)
{
    if (quick_sum(cx, text, len, val))
        return 0;
    ar a;
    memset(&a, 0, offsetof(ar, a_unset_name));
    a.a_cx = cx;
    a.a_s = text;
    a.a_len = len;
    *val = 0;
    skip_ws(&a);
    if (at_end(&a))
        return 0; // $(( )) is 0
    size_t start = a.a_pos;
    long long v = comma(&a, true);
    skip_ws(&a);
    if (a.a_err == NULL && !at_end(&a)) {
        a.a_lasttp = a.a_pos;
        fail(&a, cur(&a) == ')' ? "syntax error: invalid arithmetic operator"
                                : "syntax error in expression");
    }
    if (a.a_unset) {
        sh_errf(cx, "%s: parameter not set", a.a_unset_name);
        return 2; // set -u is fatal with status 2 (spec §3.2)
    }
    if (a.a_err == arith_printed)
        return 1;
    if (a.a_err != NULL && a.a_num_len > 0) {
        sh_errf(cx, "%s%s%.*s: %s (error token is \"%.*s\")",
                who != NULL ? who : "", who != NULL ? ": " : "",
                echo_len(a.a_num_at + a.a_num_len - start), text + start,
                a.a_err, echo_len(a.a_num_len), text + a.a_num_at);
        return 1;
    }
    if (a.a_err != NULL) {
        size_t tok = a.a_lasttp > start ? a.a_lasttp : start;
        sh_errf(cx, "%s%s%.*s: %s (error token is \"%.*s\")",
                who != NULL ? who : "", who != NULL ? ": " : "",
                echo_len(len - start), text + start, a.a_err,
                echo_len(len - tok), text + tok);
        return 1;
    }
    *val = v;
    return 0;
}
