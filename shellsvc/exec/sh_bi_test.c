/* SPDX-License-Identifier: Apache-2.0 */
/* test and [: strings, integers and file tests through the kernel. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sh_ftest.h"
#include "sh_internal.h"

/*
 * Grammar (recursive descent, POSIX counts for 1–4 operands first):
 *   expr    -> and { -o and }
 *   and     -> not { -a not }
 *   not     -> '!' not | primary
 *   primary -> '(' expr ')' | UNOP arg | arg BINOP arg | arg
 * File tests are sh_ftest.c's (shared with [[ ]]): a denied probe reads
 * as "absent" (false), never an error; a decision fault ends the call.
 * -t is false (a command never has a terminal). Errors give status 2.
 */

typedef struct tp {
    sh_ctx *t_cx;
    const char *t_who;
    char **t_v;
    int t_n, t_i;
    bool t_err;
} tp;

static const char *const unops[] = {
    "-z", "-n", "-e", "-f", "-d", "-L", "-h", "-r", "-w", "-x", "-s",
    "-b", "-c", "-p", "-S", "-t", "-u", "-g", "-k", "-G", "-O", NULL};
typedef enum tb_op {
    TB_NONE,
    TB_STR_EQ,
    TB_STR_NE,
    TB_STR_LT,
    TB_STR_GT,
    TB_FILE, // -nt -ot -ef, by sh_ftest_binary
    TB_EQ,
    TB_NE,
    TB_LT,
    TB_LE,
    TB_GT,
    TB_GE,
} tb_op;

static const struct {
    const char *b_text;
    tb_op b_op;
} binops[] = {
    {"=", TB_STR_EQ}, {"==", TB_STR_EQ}, {"!=", TB_STR_NE}, {"-eq", TB_EQ},
    {"-ne", TB_NE},   {"-lt", TB_LT},    {"-le", TB_LE},    {"-gt", TB_GT},
    {"-ge", TB_GE},   {"-nt", TB_FILE},  {"-ot", TB_FILE},  {"-ef", TB_FILE},
    {"<", TB_STR_LT}, {">", TB_STR_GT},
};

/* s's binary operator, or TB_NONE: one lookup, so a loop's `[ $i -lt 9 ]`
 * does not compare its operator again to pick what it does. */
static tb_op
binop(const char *s)
{
    for (size_t i = 0; i < sizeof binops / sizeof binops[0]; i++)
        if (s[0] == binops[i].b_text[0] && strcmp(s, binops[i].b_text) == 0)
            return binops[i].b_op;
    return TB_NONE;
}

static bool
in(const char *const *set, const char *s)
{
    for (; *set; set++)
        if (strcmp(*set, s) == 0)
            return true;
    return false;
}

static long long
tnum(tp *t, const char *s)
{
    char *end;
    const char *p = s;
    long long quick;
    if (sh_parse_dec(s, &quick))
        return quick;
    while (*p == ' ' || *p == '\t')
        p++;
    errno = 0;
    long long v = strtoll(p, &end, 10);
    bool range = errno == ERANGE; // bash: not an integer either
    while (*end == ' ' || *end == '\t')
        end++;
    if (*p == '\0' || *end != '\0' || range) {
        if (!t->t_err)
            sh_cmd_err(t->t_cx, t->t_who, 2, "%s: integer expression expected",
                       s);
        t->t_err = true;
        return 0;
    }
    return v;
}

/* A shared file test; a fault ends the test with status 2 (the call
 * stops). */
static bool
file_test(tp *t, char op, const char *a)
{
    sh_ftest f = sh_ftest_unary(t->t_cx, t->t_who, op, a);
    if (f == SH_FT_FAULT)
        t->t_err = true;
    return f == SH_FT_TRUE;
}

static bool
unary(tp *t, const char *op, const char *a)
{
    if (strcmp(op, "-z") == 0)
        return a[0] == '\0';
    if (strcmp(op, "-n") == 0)
        return a[0] != '\0';
    if (strcmp(op, "-t") == 0)
        return false; // a command's fds are never a terminal
    return file_test(t, op[1], a);
}

/* -nt, -ot, -ef: both operands stat'd; a missing one is older. */
static bool
file_compare(tp *t, const char *l, const char *op, const char *r)
{
    sh_ftest f = sh_ftest_binary(t->t_cx, t->t_who, l, op, r);
    if (f == SH_FT_FAULT)
        t->t_err = true;
    return f == SH_FT_TRUE;
}

/* l op r, where op (spelled opname) is a binary operator. */
static bool
binary(tp *t, const char *l, const char *opname, tb_op op, const char *r)
{
    switch (op) {
    case TB_STR_EQ:
        return strcmp(l, r) == 0;
    case TB_STR_NE:
        return strcmp(l, r) != 0;
    case TB_STR_LT:
        return strcmp(l, r) < 0;
    case TB_STR_GT:
        return strcmp(l, r) > 0;
    case TB_FILE:
        return file_compare(t, l, opname, r);
    default:
        break;
    }
    long long a = tnum(t, l), b = tnum(t, r);
    switch (op) {
    case TB_EQ:
        return a == b;
    case TB_NE:
        return a != b;
    case TB_LT:
        return a < b;
    case TB_LE:
        return a <= b;
    case TB_GT:
        return a > b;
    default:
        return a >= b;
    }
}

static const char *
peek(tp *t, int k)
{
    return t->t_i + k < t->t_n ? t->t_v[t->t_i + k] : NULL;
}

static bool expr(tp *t, int depth);

static bool
primary(tp *t, int depth)
{
    const char *a = peek(t, 0);
    if (a == NULL) {
        if (!t->t_err)
            sh_cmd_err(t->t_cx, t->t_who, 2, "argument expected");
        t->t_err = true;
        return false;
    }
    const char *b = peek(t, 1), *c = peek(t, 2);
    tb_op op = b != NULL && c != NULL ? binop(b) : TB_NONE;
    if (op != TB_NONE) {
        t->t_i += 3;
        return binary(t, a, b, op, c);
    }
    if (strcmp(a, "(") == 0 && depth < 64) {
        t->t_i++;
        bool v = expr(t, depth + 1);
        const char *cl = peek(t, 0);
        if (cl == NULL || strcmp(cl, ")") != 0) {
            if (!t->t_err && cl != NULL)
                sh_cmd_err(t->t_cx, t->t_who, 2, "`)' expected, found %s", cl);
            else if (!t->t_err)
                sh_cmd_err(t->t_cx, t->t_who, 2, "`)' expected");
            t->t_err = true;
            return false;
        }
        t->t_i++;
        return v;
    }
    if (in(unops, a) && b != NULL) {
        t->t_i += 2;
        return unary(t, a, b);
    }
    t->t_i++;
    return a[0] != '\0';
}

static bool
not_(tp *t, int depth)
{
    const char *a = peek(t, 0);
    if (a != NULL && strcmp(a, "!") == 0 && depth < 64 && peek(t, 1)) {
        t->t_i++;
        return !not_(t, depth + 1);
    }
    return primary(t, depth);
}

static bool
and_(tp *t, int depth)
{
    bool v = not_(t, depth);
    while (!t->t_err && peek(t, 0) && strcmp(peek(t, 0), "-a") == 0) {
        t->t_i++;
        bool r = not_(t, depth);
        v = v && r;
    }
    return v;
}

static bool
expr(tp *t, int depth)
{
    bool v = and_(t, depth);
    while (!t->t_err && peek(t, 0) && strcmp(peek(t, 0), "-o") == 0) {
        t->t_i++;
        bool r = and_(t, depth);
        v = v || r;
    }
    return v;
}

/*
 * bash's posixtest for up to four arguments, by count: the shapes that
 * decide without the full grammar (`!` and `( … )` around a shorter
 * test, a binary operator in the middle). 3 = fall through to expr.
 */
static int
by_count(tp *t, char **v, int n)
{
    switch (n) {
    case 0:
        return 1;
    case 1:
        return v[0][0] != '\0' ? 0 : 1;
    case 2:
        if (strcmp(v[0], "!") == 0)
            return v[1][0] != '\0' ? 1 : 0;
        if (in(unops, v[0]))
            return unary(t, v[0], v[1]) ? 0 : 1;
        return sh_cmd_err(t->t_cx, t->t_who, 2, "%s: unary operator expected",
                          v[0]);
    case 3: {
        tb_op op = binop(v[1]);
        if (op != TB_NONE) {
            bool b = binary(t, v[0], v[1], op, v[2]);
            return t->t_err ? 2 : (b ? 0 : 1);
        }
        if (strcmp(v[1], "-a") == 0 || strcmp(v[1], "-o") == 0)
            return 3;
        break;
    }
    case 4:
        if (strcmp(v[0], "(") != 0 || strcmp(v[3], ")") != 0)
            break;
        return by_count(t, v + 1, 2);
    default:
        return 3;
    }
    if (strcmp(v[0], "!") == 0) {
        int r = by_count(t, v + 1, n - 1);
        return r == 0 ? 1 : r == 1 ? 0 : r;
    }
    if (n == 3 && strcmp(v[0], "(") == 0 && strcmp(v[2], ")") == 0)
        return by_count(t, v + 1, 1);
    if (n == 3)
        return sh_cmd_err(t->t_cx, t->t_who, 2, "%s: binary operator expected",
                          v[1]);
    return 3;
}

int
sh_bi_test(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    tp t = {.t_cx = cx, .t_who = argv[0], .t_v = argv + 1, .t_n = argc - 1};
    if (strcmp(argv[0], "[") == 0) {
        if (argc < 2 || strcmp(argv[argc - 1], "]") != 0)
            return sh_cmd_err(cx, "[", 2, "missing `]'");
        t.t_n--;
    }
    int r = by_count(&t, t.t_v, t.t_n);
    if (r != 3)
        return r;
    bool v = expr(&t, 0);
    if (!t.t_err && t.t_i < t.t_n) {
        // bash: an option-like word left over is "unexpected".
        if (t.t_v[t.t_i][0] == '-')
            return sh_cmd_err(cx, t.t_who, 2, "syntax error: `%s' unexpected",
                              t.t_v[t.t_i]);
        return sh_cmd_err(cx, t.t_who, 2, "too many arguments");
    }
    return t.t_err ? 2 : (v ? 0 : 1);
}
