/* SPDX-License-Identifier: Apache-2.0 */
/* [[ … ]]: evaluates a conditional expression as bash does. */
#include "sh_cond.h"

#include <fnmatch.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_ftest.h"
#include "sh_glob.h"

/*
 * Bash 5.2's execute_cond_node, over the tree the parser built. Each
 * operand is one word expanded without splitting or globbing; the right
 * side of == != = is a pattern (quoted parts literal, extglob on) and of
 * =~ a POSIX ERE (quoted parts literal). && and || short-circuit: the
 * right term is not even expanded when the left decides. Each term is
 * traced under set -x as `+ [[ a == b ]]` once its words are expanded.
 *
 * Results inside this file: 0 true, 1 false, anything else an error
 * status that ends the whole expression (bash longjmps out of it too).
 */

#define COND_FALSE 1
#define COND_BADRE 2 // bash: an invalid regex makes [[ return 2
/* An error that ends the expression with status 1 (an arithmetic error:
 * bash returns 1, so it must not read as "false" to a `||`). */
#define COND_ERR1 257

/* An expanded operand (box_alloc'd). */
typedef struct operand {
    char *o_s;
    size_t o_len;
} operand;

static void
operand_free(operand *o)
{
    box_free(o->o_s);
    o->o_s = NULL;
}

static void
trace(sh_ctx *cx, bool neg, const char *a, sh_cond_op op, const char *b)
{
    if (!cx->cx_st->st_opt_x)
        return;
    box_buf t;
    box_buf_init(&t, 65536);
    box_err e = sh_put_ps4(cx, &t);
    // bash shows the operands as they are, an empty one as ''.
    a = a[0] != '\0' ? a : "''";
    if (b != NULL && b[0] == '\0')
        b = "''";
    if (e == BOX_OK && b != NULL)
        e = box_buf_printf(&t, "[[ %s%s %s %s ]]\n", neg ? "! " : "", a,
                           sh_cond_op_name(op), b);
    else if (e == BOX_OK)
        e = box_buf_printf(&t, "[[ %s%s %s ]]\n", neg ? "! " : "",
                           sh_cond_op_name(op), a);
    if (e == BOX_OK)
        (void)sh_write(cx, 2, t.b_data, t.b_len);
    box_buf_reset(&t);
}

/* ---- the =~ right side ---- */

static bool
ere_special(char c)
{
    return strchr("\\.[]()*+?{}|^$", c) != NULL;
}

/*
 * The regex text of w: unquoted parts as they expand, quoted parts with
 * every ERE special character backslash-escaped so they match literally
 * (bash's quote_string_for_globbing with QGLOB_REGEXP). Inside a bracket
 * expression opened by unquoted text a backslash is no escape, so quoted
 * text there is copied as it is.
 */
static int
regex_text(sh_ctx *cx, const sh_word *w, box_buf *re)
{
    bool bracket = false;
    for (const sh_wpart *p = w->w_parts; p != NULL; p = p->wp_next) {
        sh_wpart one = *p;
        one.wp_next = NULL;
        sh_word ow = {.w_parts = &one, .w_line = w->w_line};
        char *s = NULL;
        size_t n = 0;
        int st = sh_expand_str(cx, &ow, &s, &n);
        if (st != 0)
            return st;
        bool quoted = p->wp_kind == SH_WP_SQUOTE ||
                      p->wp_kind == SH_WP_DQUOTE || p->wp_kind == SH_WP_ESCAPED;
        box_err e = BOX_OK;
        for (size_t i = 0; i < n && e == BOX_OK; i++) {
            if (quoted && !bracket && ere_special(s[i]))
                e = box_buf_putc(re, '\\');
            if (e == BOX_OK)
                e = box_buf_putc(re, s[i]);
            if (quoted)
                continue;
            if (!bracket && s[i] == '[') {
                bracket = true;
                // A leading ] or ^] is a member, not the end.
                if (i + 1 < n && s[i + 1] == '^' && e == BOX_OK)
                    e = box_buf_putc(re, s[++i]);
                if (i + 1 < n && s[i + 1] == ']' && e == BOX_OK)
                    e = box_buf_putc(re, s[++i]);
            } else if (bracket && s[i] == ']') {
                bracket = false;
            }
        }
        box_free(s);
        if (e != BOX_OK) {
            sh_errf(cx, "[[: out of memory");
            return 1;
        }
    }
    return 0;
}

/*
 * BASH_REMATCH after a match: the variable is the whole match ($BASH_REMATCH
 * reads it as bash's element 0) and the state keeps every group for
 * ${BASH_REMATCH[n]}. A failed match unsets both, as bash empties its
 * array.
 */
static int
set_rematch(sh_ctx *cx, const char *s, const regmatch_t *m, size_t ngroups)
{
    sh_state *st = cx->cx_st;
    if (ngroups == 0) {
        return sh_rematch_set(st, 0, NULL) == BOX_OK ? 0 : 1;
    }
    char **v = box_calloc(ngroups, sizeof *v);
    box_err e = v != NULL ? BOX_OK : BOX_ENOMEM;
    for (size_t i = 0; i < ngroups && e == BOX_OK; i++) {
        regoff_t so = m[i].rm_so, eo = m[i].rm_eo;
        v[i] = so < 0 ? box_strdup("") : box_strndup(s + so, (size_t)(eo - so));
        if (v[i] == NULL)
            e = BOX_ENOMEM;
    }
    if (e == BOX_OK)
        e = sh_rematch_set(st, (int)ngroups, v);
    for (size_t i = 0; v != NULL && i < ngroups; i++)
        box_free(v[i]);
    box_free(v);
    if (e != BOX_OK) {
        sh_errf(cx, "[[: out of memory");
        return 1;
    }
    return 0;
}

#define COND_MAX_GROUPS 64u

static int
match_regex(sh_ctx *cx, const char *s, const char *re)
{
    regex_t rx;
    bool nocase = (cx->cx_st->st_shopt & SH_SHOPT_NOCASEMATCH) != 0;
    if (regcomp(&rx, re, REG_EXTENDED | (nocase ? REG_ICASE : 0)) != 0)
        return COND_BADRE; // bash says nothing and keeps BASH_REMATCH
    size_t ng =
        rx.re_nsub + 1 > COND_MAX_GROUPS ? COND_MAX_GROUPS : rx.re_nsub + 1;
    regmatch_t m[COND_MAX_GROUPS];
    bool hit = regexec(&rx, s, ng, m, 0) == 0;
    regfree(&rx);
    int st = set_rematch(cx, s, m, hit ? ng : 0);
    if (st != 0)
        return st;
    return hit ? 0 : COND_FALSE;
}

/* ---- terms ---- */

static int
arith_operand(sh_ctx *cx, const operand *o, long long *v)
{
    int st = sh_arith_in(cx, "[[", o->o_s, o->o_len, v);
    return st == 0 ? 0 : COND_ERR1;
}

/* -o NAME: a set -o row that is on (unknown names are off). */
static bool
option_on(const sh_state *st, const char *name)
{
    const sh_option *o = sh_option_find(name, 0);
    return o != NULL && sh_option_get(st, o);
}

/* -v NAME: a set variable (or element), or a positional parameter that
 * exists. */
static bool
var_set(sh_ctx *cx, const char *name)
{
    const sh_state *st = cx->cx_st;
    size_t n = strlen(name);
    if (n > 0 && strspn(name, "0123456789") == n) {
        if (n > 9)
            return false;
        long i = strtol(name, NULL, 10);
        return i == 0 || i <= st->st_npos;
    }
    return sh_elem_isset(cx, name);
}

static int
from_ftest(sh_ftest f)
{
    if (f == SH_FT_FAULT)
        return 125;
    return f == SH_FT_TRUE ? 0 : COND_FALSE;
}

static int
truth(bool v)
{
    return v ? 0 : COND_FALSE;
}

static int
unary(sh_ctx *cx, const sh_cond *c, bool neg)
{
    operand a = {0};
    int st = sh_expand_str(cx, c->c_w1, &a.o_s, &a.o_len);
    if (st != 0)
        return st;
    trace(cx, neg, a.o_s, c->c_op, NULL);
    const char *op = sh_cond_op_name(c->c_op);
    switch (c->c_op) {
    case SH_CO_Z:
        st = truth(a.o_len == 0);
        break;
    case SH_CO_N:
        st = truth(a.o_len != 0);
        break;
    case SH_CO_V:
        st = truth(var_set(cx, a.o_s));
        break;
    case SH_CO_O:
        st = truth(option_on(cx->cx_st, a.o_s));
        break;
    case SH_CO_T:
        st = COND_FALSE;
        break; // a command never has a terminal
    case SH_CO_UR:
        st = COND_FALSE;
        break; // no namerefs in this shell
    case SH_CO_UN:
        // Needs the access time, which the kernel does not report.
        sh_errf(cx, "[[: -N: not supported in this box");
        st = 2;
        break;
    default:
        if (!sh_ftest_is_unary(op[1])) {
            st = 2; // unreachable: every other unary op is a file test
            break;
        }
        st = from_ftest(sh_ftest_unary(cx, "[[", op[1], a.o_s));
        break;
    }
    operand_free(&a);
    return st;
}

static int
binary(sh_ctx *cx, const sh_cond *c, bool neg)
{
    operand a = {0}, b = {0};
    box_buf re;
    box_buf_init(&re, SH_MAX_INPUT * 4u);
    sh_cond_op op = c->c_op;
    bool pattern = op == SH_CO_SEQ || op == SH_CO_SEQ1 || op == SH_CO_SNE;
    int st = sh_expand_str(cx, c->c_w1, &a.o_s, &a.o_len);
    if (st != 0)
        goto out;
    if (pattern) {
        st = sh_expand_pattern(cx, c->c_w2, &b.o_s);
    } else if (op == SH_CO_MATCH) {
        if ((st = regex_text(cx, c->c_w2, &re)) == 0 &&
            box_buf_putc(&re, '\0') != BOX_OK) {
            sh_errf(cx, "[[: out of memory");
            st = 1;
        }
    } else {
        st = sh_expand_str(cx, c->c_w2, &b.o_s, &b.o_len);
    }
    if (st != 0)
        goto out;
    trace(cx, neg, a.o_s, op, op == SH_CO_MATCH ? re.b_data : b.o_s);
    long long x = 0, y = 0;
    int fnm = FNM_EXTMATCH |
              ((cx->cx_st->st_shopt & SH_SHOPT_NOCASEMATCH) ? FNM_CASEFOLD : 0);
    switch (op) {
    case SH_CO_SEQ:
    case SH_CO_SEQ1:
        st = truth(fnmatch(b.o_s, a.o_s, fnm) == 0);
        break;
    case SH_CO_SNE:
        st = truth(fnmatch(b.o_s, a.o_s, fnm) != 0);
        break;
    case SH_CO_MATCH:
        st = match_regex(cx, a.o_s, re.b_data);
        break;
    case SH_CO_SLT:
        st = truth(strcmp(a.o_s, b.o_s) < 0);
        break;
    case SH_CO_SGT:
        st = truth(strcmp(a.o_s, b.o_s) > 0);
        break;
    case SH_CO_NT:
    case SH_CO_OT:
    case SH_CO_EF:
        st = from_ftest(
            sh_ftest_binary(cx, "[[", a.o_s, sh_cond_op_name(op), b.o_s));
        break;
    default:
        // -eq … -ge: both sides are arithmetic expressions, as in bash.
        if ((st = arith_operand(cx, &a, &x)) != 0 ||
            (st = arith_operand(cx, &b, &y)) != 0)
            break;
        switch (op) {
        case SH_CO_EQ:
            st = truth(x == y);
            break;
        case SH_CO_NE:
            st = truth(x != y);
            break;
        case SH_CO_LT:
            st = truth(x < y);
            break;
        case SH_CO_LE:
            st = truth(x <= y);
            break;
        case SH_CO_GT:
            st = truth(x > y);
            break;
        default:
            st = truth(x >= y);
            break;
        }
        break;
    }
out:
    operand_free(&a);
    operand_free(&b);
    box_buf_reset(&re);
    return st;
}

/*
 * neg: the term is under an odd number of `!` (traced as bash does).
 * && and || chains lean right (the parser's shape), so they are walked
 * in a loop; recursion goes only into ( ) and ! (capped by the parser).
 */
static int
eval(sh_ctx *cx, const sh_cond *c, bool neg)
{
    int st;
    for (;;) {
        if (sh_check_stop(cx))
            return cx->cx_status;
        switch (c->c_kind) {
        case SH_C_AND:
        case SH_C_OR:
            st = eval(cx, c->c_l, false);
            if (st > COND_FALSE || (st == 0) != (c->c_kind == SH_C_AND))
                return st;
            c = c->c_r;
            neg = false;
            continue;
        case SH_C_NOT:
            st = eval(cx, c->c_l, !neg);
            if (st > COND_FALSE)
                return st;
            return st == 0 ? COND_FALSE : 0;
        case SH_C_GROUP:
            c = c->c_l;
            neg = false;
            continue;
        case SH_C_UNARY:
            return unary(cx, c, neg);
        case SH_C_BINARY:
            return binary(cx, c, neg);
        default:
            return 2;
        }
    }
}

int
sh_cond_run(sh_ctx *cx, const sh_node *n)
{
    int st = eval(cx, n->u.cond, false);
    if (cx->cx_flow == SH_FLOW_EXIT)
        return cx->cx_status;
    return st == COND_ERR1 ? 1 : st;
}
