/* SPDX-License-Identifier: Apache-2.0 */
/* $(( )) arithmetic: integers, C operators, variables (non-numeric = 0). */
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_internal.h"

/*
 * Precedence climbing over a {left, right} table (STYLE §9), with a
 * nesting cap. Operands: decimal, 0octal, 0xhex, NAME, $NAME, ${NAME},
 * $N and $# $? (a value that is not a number reads as 0, spec §3.2).
 * Operators: ( ) ! ~ unary + - * / % + - << >> < <= > >= == != & ^ | &&
 * || ?: . Errors print "strands-shell: arithmetic: <what>" and give 2.
 * No assignment operators; no $( ) inside (refused with a message).
 */

#define ARITH_MAX_DEPTH 64

typedef struct ar {
    sh_ctx *a_cx;
    const char *a_s;
    size_t a_len, a_pos;
    const char *a_err;
    int a_depth;
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
    OP_MOD
} aop;

/* ORDER aop: binding power of each binary operator. */
static const int op_prec[] = {
    0, 1, 2, 3, 4, 5, 6, 6, 7, 7, 7, 7, 8, 8, 9, 9, 10, 10, 10,
};

static void
skip_ws(ar *a)
{
    while (a->a_pos < a->a_len && strchr(" \t\n", a->a_s[a->a_pos]) != NULL)
        a->a_pos++;
}

static bool
peek2(ar *a, const char *t)
{
    size_t n = strlen(t);
    return a->a_pos + n <= a->a_len && memcmp(a->a_s + a->a_pos, t, n) == 0;
}

/* A string as a number: leading/trailing blanks allowed, else 0. */
static long long
str_num(const char *v)
{
    if (v == NULL)
        return 0;
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

static bool
is_name_char(char c, bool first)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
           (!first && c >= '0' && c <= '9');
}

static long long
var_num(ar *a, const char *name, size_t n)
{
    char nm[256];
    if (n >= sizeof nm)
        return 0;
    memcpy(nm, name, n);
    nm[n] = '\0';
    sh_state *st = a->a_cx->cx_st;
    if (n == 1 && nm[0] == '#')
        return st->st_npos;
    if (n == 1 && nm[0] == '?')
        return a->a_cx->cx_status;
    if (nm[0] >= '0' && nm[0] <= '9') {
        long i = strtol(nm, NULL, 10);
        if (i == 0)
            return 0;
        return i <= st->st_npos ? str_num(st->st_pos[i - 1]) : 0;
    }
    const char *v = sh_var_get(st, nm);
    if (v == NULL && st->st_opt_u)
        a->a_err = "parameter not set";
    return str_num(v);
}

static long long parse_expr(ar *a, int minprec);

static long long
parse_unary(ar *a)
{
    skip_ws(a);
    if (a->a_err != NULL)
        return 0;
    if (++a->a_depth > ARITH_MAX_DEPTH) {
        a->a_err = "expression too deeply nested";
        return 0;
    }
    long long v = 0;
    char c = a->a_pos < a->a_len ? a->a_s[a->a_pos] : '\0';
    if (c == '!' && !peek2(a, "!=")) {
        a->a_pos++;
        v = !parse_unary(a);
    } else if (c == '~') {
        a->a_pos++;
        v = ~parse_unary(a);
    } else if (c == '-') {
        a->a_pos++;
        v = -(unsigned long long)parse_unary(a);
    } else if (c == '+') {
        a->a_pos++;
        v = parse_unary(a);
    } else if (c == '(') {
        a->a_pos++;
        v = parse_expr(a, 0);
        skip_ws(a);
        if (a->a_pos < a->a_len && a->a_s[a->a_pos] == ')')
            a->a_pos++;
        else if (a->a_err == NULL)
            a->a_err = "missing `)'";
    } else if (c >= '0' && c <= '9') {
        char buf[64];
        size_t n = 0;
        while (a->a_pos < a->a_len && n + 1 < sizeof buf &&
               is_name_char(a->a_s[a->a_pos], false))
            buf[n++] = a->a_s[a->a_pos++];
        buf[n] = '\0';
        char *end;
        v = strtoll(buf, &end, 0);
        if (*end != '\0')
            a->a_err = "invalid number";
    } else if (c == '$') {
        a->a_pos++;
        bool brace = a->a_pos < a->a_len && a->a_s[a->a_pos] == '{';
        if (brace)
            a->a_pos++;
        size_t st = a->a_pos;
        if (a->a_pos < a->a_len && a->a_s[a->a_pos] == '(') {
            a->a_err = "command substitution not supported here";
            return 0;
        }
        if (a->a_pos < a->a_len && strchr("#?", a->a_s[a->a_pos])) {
            a->a_pos++;
        } else {
            while (a->a_pos < a->a_len &&
                   is_name_char(a->a_s[a->a_pos], a->a_pos == st))
                a->a_pos++;
            if (a->a_pos == st) {
                while (a->a_pos < a->a_len && a->a_s[a->a_pos] >= '0' &&
                       a->a_s[a->a_pos] <= '9')
                    a->a_pos++;
            }
        }
        if (a->a_pos == st) {
            a->a_err = "syntax error";
            return 0;
        }
        v = var_num(a, a->a_s + st, a->a_pos - st);
        if (brace) {
            if (a->a_pos < a->a_len && a->a_s[a->a_pos] == '}')
                a->a_pos++;
            else
                a->a_err = "bad substitution";
        }
    } else if (is_name_char(c, true)) {
        size_t st = a->a_pos;
        while (a->a_pos < a->a_len && is_name_char(a->a_s[a->a_pos], false))
            a->a_pos++;
        v = var_num(a, a->a_s + st, a->a_pos - st);
    } else {
        a->a_err = "syntax error";
    }
    a->a_depth--;
    return v;
}

static aop
peek_op(ar *a, size_t *oplen)
{
    static const struct {
        const char *t;
        aop op;
    } ops[] = {
        {"||", OP_OROR}, {"&&", OP_ANDAND}, {"==", OP_EQ},  {"!=", OP_NE},
        {"<=", OP_LE},   {">=", OP_GE},     {"<<", OP_SHL}, {">>", OP_SHR},
        {"<", OP_LT},    {">", OP_GT},      {"|", OP_OR},   {"^", OP_XOR},
        {"&", OP_AND},   {"+", OP_ADD},     {"-", OP_SUB},  {"*", OP_MUL},
        {"/", OP_DIV},   {"%", OP_MOD},
    };
    skip_ws(a);
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (peek2(a, ops[i].t)) {
            *oplen = strlen(ops[i].t);
            return ops[i].op;
        }
    return OP_NONE;
}

static long long
apply(ar *a, aop op, long long l, long long r)
{
    unsigned long long ul = (unsigned long long)l, ur = (unsigned long long)r;
    switch (op) {
    case OP_OROR:
        return l || r;
    case OP_ANDAND:
        return l && r;
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
    case OP_DIV:
    case OP_MOD:
        if (r == 0) {
            a->a_err = "division by zero";
            return 0;
        }
        if (r == -1)
            return op == OP_DIV ? (long long)(0 - ul) : 0;
        return op == OP_DIV ? l / r : l % r;
    default:
        return 0;
    }
}

/* expr -> unary { binop expr } [ '?' expr ':' expr ] */
static long long
parse_expr(ar *a, int minprec)
{
    long long l = parse_unary(a);
    for (;;) {
        if (a->a_err != NULL)
            return 0;
        size_t n = 0;
        aop op = peek_op(a, &n);
        if (op == OP_NONE || op_prec[op] <= minprec)
            break;
        a->a_pos += n;
        long long r = parse_expr(a, op_prec[op]);
        l = apply(a, op, l, r);
    }
    skip_ws(a);
    if (minprec == 0 && a->a_pos < a->a_len && a->a_s[a->a_pos] == '?') {
        a->a_pos++;
        long long t = parse_expr(a, 0);
        skip_ws(a);
        if (a->a_pos >= a->a_len || a->a_s[a->a_pos] != ':') {
            if (a->a_err == NULL)
                a->a_err = "expecting `:'";
            return 0;
        }
        a->a_pos++;
        long long f = parse_expr(a, 0);
        l = l ? t : f;
    }
    return l;
}

int
sh_arith(sh_ctx *cx, const char *text, size_t len, long long *val)
{
    ar a = {.a_cx = cx, .a_s = text, .a_len = len};
    *val = 0;
    skip_ws(&a);
    if (a.a_pos == a.a_len)
        return 0; // $(( )) is 0
    long long v = parse_expr(&a, 0);
    skip_ws(&a);
    if (a.a_err == NULL && a.a_pos < a.a_len)
        a.a_err = "syntax error";
    if (a.a_err != NULL) {
        sh_errf(cx, "arithmetic: %s", a.a_err);
        return 2;
    }
    *val = v;
    return 0;
}
