/* SPDX-License-Identifier: Apache-2.0 */
/* awk's parser: the program text to rules, functions and a syntax tree
 * (in one arena), by recursive descent with one token of lookahead (and
 * a saved lexer for the two places awk needs more: `for (k in a)` and
 * `cmd | getline`). Precedence, lowest first: ?: and assignment, ||, &&,
 * in, ~ !~, relational, concatenation, + -, * / %, unary ! - +, ^, ++ --,
 * $, grouping. */
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_awk_lex.h"

#define AWK_NEST_MAX 200   // nesting of expressions and statements
#define AWK_CHAIN_MAX 2000 // operands of one chain (a+b+c…): the tree's
                           // depth, which the interpreter recurses on

typedef struct parser {
    awk_lex p_lx;
    awk_prog *p_g;
    sh_ctx *p_cx;
    int p_nogt;        // in a print's list: `>` redirects
    awk_func *p_func;  // the function being defined, or NULL
    int p_loops;
    unsigned p_nest;
    bool p_fatal;      // a fatal (status 2) rather than a syntax error
    bool p_block_end;  // the last token read was a block's '}'
    size_t p_rparen;   // where the last call's ')' was (argument errors)
    int p_rule;        // the rule being read: RULE_* (BEGIN/END: no next)
    unsigned p_chain;  // operands chained in the statement being read
} parser;

static const char *const global_names[V_NSPECIAL] = {
    "NF", "NR", "FNR", "FS", "OFS", "ORS", "RS", "SUBSEP", "CONVFMT",
    "OFMT", "RSTART", "RLENGTH", "FILENAME", "ENVIRON", "ARGC", "ARGV",
    "RT", "IGNORECASE",
};

int
awk_global_slot(awk_prog *g, const char *name)
{
    for (size_t i = 0; i < g->p_nglobals; i++)
        if (strcmp(g->p_globals[i], name) == 0)
            return (int)i;
    if (g->p_nglobals == g->p_capglobals) {
        size_t cap = g->p_capglobals ? g->p_capglobals * 2 : 64;
        char **v = box_realloc(g->p_globals, cap * sizeof *v);
        if (v == NULL)
            return -1;
        g->p_globals = v;
        g->p_capglobals = cap;
    }
    char *s = box_arena_strndup(g->p_arena, name, strlen(name));
    if (s == NULL)
        return -1;
    g->p_globals[g->p_nglobals] = s;
    return (int)g->p_nglobals++;
}

void
awk_prog_free(awk_prog *g)
{
    for (size_t i = 0; i < g->p_nfuncs; i++)
        box_free(g->p_funcs[i].f_params);
    box_free(g->p_funcs);
    box_free(g->p_rules);
    box_free(g->p_globals);
    box_arena_free(g->p_arena);
    memset(g, 0, sizeof *g);
}

/* ---- helpers ---- */

static int
tok(parser *p)
{
    return p->p_lx.lx_tok;
}

static void
adv(parser *p)
{
    p->p_block_end = false;
    awk_lex_next(&p->p_lx);
}

static bool
failed(parser *p)
{
    return p->p_lx.lx_failed;
}

static void *
syntax(parser *p)
{
    int t = tok(p);
    awk_lex_error(&p->p_lx, (t == T_NEWLINE || t == T_EOF)
                                ? "unexpected newline or end of string"
                                : "syntax error");
    return NULL;
}

static bool
expect(parser *p, int t)
{
    if (tok(p) != t) {
        syntax(p);
        return false;
    }
    adv(p);
    return true;
}

static void
opt_newlines(parser *p)
{
    while (tok(p) == T_NEWLINE)
        adv(p);
}

static awk_node *
node(parser *p, int op)
{
    awk_node *n = box_arena_zalloc(p->p_g->p_arena, sizeof *n);
    if (n == NULL) {
        awk_lex_error(&p->p_lx, "out of memory");
        return NULL;
    }
    n->n_op = op;
    n->n_line = p->p_lx.lx_tline;
    return n;
}

static awk_node *
node2(parser *p, int op, int idx, awk_node *a, awk_node *b)
{
    awk_node *n = node(p, op);
    if (n != NULL) {
        n->n_idx = idx;
        n->n_a = a;
        n->n_b = b;
    }
    return n;
}

static bool
is_lvalue(const awk_node *n)
{
    return n != NULL && (n->n_op == AN_VAR || n->n_op == AN_LVAR ||
                         n->n_op == AN_FIELD || n->n_op == AN_INDEX);
}

static awk_func *
func_get(parser *p, const char *name)
{
    awk_prog *g = p->p_g;
    for (size_t i = 0; i < g->p_nfuncs; i++)
        if (strcmp(g->p_funcs[i].f_name, name) == 0)
            return &g->p_funcs[i];
    if (g->p_nfuncs == g->p_capfuncs) {
        size_t cap = g->p_capfuncs ? g->p_capfuncs * 2 : 16;
        awk_func *v = box_realloc(g->p_funcs, cap * sizeof *v);
        if (v == NULL)
            return NULL;
        g->p_funcs = v;
        g->p_capfuncs = cap;
    }
    awk_func *f = &g->p_funcs[g->p_nfuncs++];
    memset(f, 0, sizeof *f);
    f->f_name = box_arena_strndup(g->p_arena, name, strlen(name));
    f->f_line = p->p_lx.lx_tline;
    return f;
}

/* A variable named name: a parameter of the function being defined, or a
 * global. */
static awk_node *
var_node(parser *p, const char *name)
{
    if (p->p_func != NULL)
        for (int i = 0; i < p->p_func->f_nparams; i++)
            if (strcmp(p->p_func->f_params[i], name) == 0) {
                awk_node *n = node(p, AN_LVAR);
                if (n != NULL)
                    n->n_idx = i;
                return n;
            }
    int slot = awk_global_slot(p->p_g, name);
    awk_node *n = slot >= 0 ? node(p, AN_VAR) : NULL;
    if (n != NULL) {
        n->n_idx = slot;
        n->n_str = p->p_g->p_globals[slot];
    }
    return n;
}

static awk_node *expr(parser *p);

static awk_node *
chain_error(parser *p)
{
    awk_lex_error(&p->p_lx, "expression too long");
    return NULL;
}
static awk_node *ternary(parser *p);
static awk_node *unary(parser *p);
static awk_node *concat(parser *p);
static awk_node *statement(parser *p);
static awk_node *primary(parser *p);

static bool
enter(parser *p)
{
    if (++p->p_nest > AWK_NEST_MAX) {
        awk_lex_error(&p->p_lx, "program nested too deeply");
        return false;
    }
    return true;
}

/* expr_list -> expr { ',' newlines expr }; *count elements */
static awk_node *
expr_list(parser *p, int *count)
{
    awk_node *head = NULL, **tail = &head;
    int n = 0;
    for (;;) {
        awk_node *e = expr(p);
        if (e == NULL)
            return NULL;
        *tail = e;
        tail = &e->n_next;
        n++;
        if (tok(p) != T_COMMA)
            break;
        adv(p);
        opt_newlines(p);
    }
    if (count != NULL)
        *count = n;
    return head;
}

/* Parses with `>` as an operator again (inside parentheses, brackets,
 * call arguments). */
static awk_node *
list_nested(parser *p, int *count)
{
    int save = p->p_nogt;
    p->p_nogt = 0;
    awk_node *e = expr_list(p, count);
    p->p_nogt = save;
    return e;
}

/* NAME [ '[' expr_list ']' ] */
static awk_node *
name_ref(parser *p)
{
    awk_node *v = var_node(p, p->p_lx.lx_str);
    adv(p);
    if (v == NULL || tok(p) != T_LBRACKET)
        return v;
    adv(p);
    awk_node *subs = list_nested(p, NULL);
    if (subs == NULL || !expect(p, T_RBRACKET))
        return NULL;
    return node2(p, AN_INDEX, 0, v, subs);
}

/* '$' operand: a primary, or ++/-- of one, or a negated one ($-1) */
static awk_node *
field_ref(parser *p)
{
    adv(p); // '$'
    awk_node *e;
    if (tok(p) == T_INCR || tok(p) == T_DECR || tok(p) == T_MINUS ||
        tok(p) == T_PLUS || tok(p) == T_NOT)
        e = unary(p);
    else if (tok(p) == T_DOLLAR)
        e = field_ref(p);
    else {
        int t = tok(p);
        if (t == T_NUMBER || t == T_STRING || t == T_LPAREN || t == T_NAME ||
            t == T_FUNC_NAME || t == T_BUILTIN || t == T_ERE) {
            // a primary without its postfix ++: `$i++` is ($i)++
            e = primary(p);
        } else {
            return syntax(p);
        }
    }
    return e != NULL ? node2(p, AN_FIELD, 0, e, NULL) : NULL;
}

/* simple_get -> getline [lvalue] [ '<' primary ] */
static awk_node *
getline_simple(parser *p)
{
    adv(p); // getline
    awk_node *g = node(p, AN_GETLINE);
    if (g == NULL)
        return NULL;
    g->n_idx = GL_PLAIN;
    if (tok(p) == T_DOLLAR)
        g->n_a = field_ref(p);
    else if (tok(p) == T_NAME)
        g->n_a = name_ref(p);
    if (failed(p))
        return NULL;
    if (tok(p) == T_LT) {
        adv(p);
        awk_node *f;
        if (tok(p) == T_DOLLAR)
            f = field_ref(p);
        else
            f = primary(p);
        if (f == NULL)
            return NULL;
        g->n_idx = GL_FILE;
        g->n_b = f;
    }
    return g;
}

/* call arguments: '(' [expr_list] ')' */
static awk_node *
call_args(parser *p, int *count)
{
    *count = 0;
    if (!expect(p, T_LPAREN))
        return NULL;
    if (tok(p) == T_RPAREN) {
        p->p_rparen = p->p_lx.lx_start;
        adv(p);
        return NULL;
    }
    awk_node *a = list_nested(p, count);
    if (a == NULL || tok(p) != T_RPAREN)
        return syntax(p);
    p->p_rparen = p->p_lx.lx_start;
    adv(p);
    return a;
}

/* primary -> NUMBER | STRING | ERE | '(' expr ')' | '(' list ')' in NAME
 *          | '$' ... | NAME ['[' list ']'] | FUNC_NAME '(' args ')'
 *          | BUILTIN ['(' args ')'] | ('++'|'--') lvalue | getline ... */
static awk_node *
primary(parser *p)
{
    awk_node *n = NULL;
    switch (tok(p)) {
    case T_NUMBER:
        n = node(p, AN_NUM);
        if (n != NULL)
            n->n_num = p->p_lx.lx_num;
        adv(p);
        return n;
    case T_STRING:
    case T_ERE:
        n = node(p, tok(p) == T_STRING ? AN_STR : AN_REGEX);
        if (n != NULL) {
            n->n_str = p->p_lx.lx_str;
            n->n_len = p->p_lx.lx_len;
        }
        adv(p);
        return n;
    case T_LPAREN: {
        adv(p);
        int count = 0;
        awk_node *l = list_nested(p, &count);
        if (l == NULL || !expect(p, T_RPAREN))
            return NULL;
        if (count > 1) {
            if (tok(p) == T_IN) {
                adv(p);
                if (tok(p) != T_NAME)
                    return syntax(p);
                awk_node *arr = var_node(p, p->p_lx.lx_str);
                adv(p);
                return node2(p, AN_IN, 0, l, arr);
            }
            return node2(p, AN_GROUP, count, l, NULL);
        }
        return node2(p, AN_GROUP, 1, l, NULL);
    }
    case T_DOLLAR:
        return field_ref(p);
    case T_NAME:
        return name_ref(p);
    case T_FUNC_NAME: {
        awk_func *f = func_get(p, p->p_lx.lx_str);
        if (f == NULL)
            return syntax(p);
        n = node(p, AN_CALL);
        if (n == NULL)
            return NULL;
        n->n_idx = (int)(f - p->p_g->p_funcs);
        n->n_str = f->f_name;
        adv(p);
        int count;
        n->n_a = call_args(p, &count);
        n->n_b = NULL;
        n->n_num = count;
        return failed(p) ? NULL : n;
    }
    case T_BUILTIN: {
        n = node(p, AN_BUILTIN);
        if (n == NULL)
            return NULL;
        n->n_idx = p->p_lx.lx_bi;
        adv(p);
        int count = 0;
        if (tok(p) == T_LPAREN) {
            n->n_a = call_args(p, &count);
            if (failed(p))
                return NULL;
        } else if (n->n_idx != BI_LENGTH) {
            return syntax(p);
        }
        n->n_num = count;
        if (!awk_bi_args_ok(n->n_idx, count)) {
            char msg[128];
            snprintf(msg, sizeof msg,
                     "%d is invalid as number of arguments for %s", count,
                     awk_bi_names[n->n_idx]);
            p->p_lx.lx_start = p->p_rparen;
            awk_lex_error(&p->p_lx, msg);
            return NULL;
        }
        return n;
    }
    case T_INCR:
    case T_DECR: {
        int inc = tok(p) == T_INCR;
        adv(p);
        awk_node *lv = tok(p) == T_DOLLAR ? field_ref(p)
                       : tok(p) == T_NAME ? name_ref(p)
                                          : syntax(p);
        if (lv == NULL)
            return NULL;
        return node2(p, AN_INCDEC, inc | 2, lv, NULL);
    }
    case T_GETLINE:
        return getline_simple(p);
    default:
        return syntax(p);
    }
}

/* postfix -> primary [ '++' | '--' ] */
static awk_node *
postfix(parser *p)
{
    awk_node *e = primary(p);
    if (e != NULL && is_lvalue(e) && (tok(p) == T_INCR || tok(p) == T_DECR)) {
        int inc = tok(p) == T_INCR;
        adv(p);
        return node2(p, AN_INCDEC, inc, e, NULL);
    }
    return e;
}

/* power -> postfix [ '^' unary ]   (right associative, -x^2 is -(x^2)) */
static awk_node *
power(parser *p)
{
    awk_node *e = postfix(p);
    if (e != NULL && tok(p) == T_CARET) {
        adv(p);
        if (!enter(p))
            return NULL;
        awk_node *r = unary(p);
        p->p_nest--;
        return r != NULL ? node2(p, AN_ARITH, '^', e, r) : NULL;
    }
    return e;
}

/* unary -> ('!' | '-' | '+') unary | power */
static awk_node *
unary(parser *p)
{
    int t = tok(p);
    if (t == T_NOT || t == T_MINUS || t == T_PLUS) {
        adv(p);
        if (!enter(p))
            return NULL;
        awk_node *e = unary(p);
        p->p_nest--;
        if (e == NULL)
            return NULL;
        if (t == T_MINUS && e->n_op == AN_NUM) {
            e->n_num = -e->n_num;
            return e;
        }
        return node2(p, t == T_NOT ? AN_NOT : t == T_MINUS ? AN_NEG : AN_PLUS,
                     0, e, NULL);
    }
    return power(p);
}

/* mul -> unary { ('*' | '/' | '%') unary } */
static awk_node *
mul(parser *p)
{
    awk_node *e = unary(p);
    while (e != NULL &&
           (tok(p) == T_STAR || tok(p) == T_SLASH || tok(p) == T_PERCENT)) {
        if (++p->p_chain > AWK_CHAIN_MAX)
            return chain_error(p);
        int op = tok(p) == T_STAR ? '*' : tok(p) == T_SLASH ? '/' : '%';
        adv(p);
        awk_node *r = unary(p);
        e = r != NULL ? node2(p, AN_ARITH, op, e, r) : NULL;
    }
    return e;
}

/* additive -> mul { ('+' | '-') mul } */
static awk_node *
additive(parser *p)
{
    awk_node *e = mul(p);
    while (e != NULL && (tok(p) == T_PLUS || tok(p) == T_MINUS)) {
        if (++p->p_chain > AWK_CHAIN_MAX)
            return chain_error(p);
        int op = tok(p) == T_PLUS ? '+' : '-';
        adv(p);
        awk_node *r = mul(p);
        e = r != NULL ? node2(p, AN_ARITH, op, e, r) : NULL;
    }
    return e;
}

/* Whether the token can start an operand of an implicit concatenation. */
static bool
starts_concat(parser *p)
{
    switch (tok(p)) {
    case T_NUMBER: case T_STRING: case T_ERE: case T_NAME: case T_FUNC_NAME:
    case T_BUILTIN: case T_DOLLAR: case T_NOT: case T_LPAREN: case T_MINUS:
    case T_PLUS: case T_INCR: case T_DECR:
        return true;
    case T_IN: // `for (k in a)` is read before, so `in` here is the operator
    default:
        return false;
    }
}

/* Whether a '|' here is followed by getline (the lexer is put back). */
static bool
pipe_getline(parser *p)
{
    if (tok(p) != T_PIPE)
        return false;
    awk_lex save = p->p_lx;
    adv(p);
    bool yes = tok(p) == T_GETLINE;
    p->p_lx = save;
    return yes;
}

/* concat -> additive { additive } { '|' simple_get } */
static awk_node *
concat(parser *p)
{
    awk_node *e = additive(p);
    for (;;) {
        if (e == NULL)
            return NULL;
        if (pipe_getline(p)) {
            adv(p); // '|'
            awk_node *g = getline_simple(p);
            if (g == NULL)
                return NULL;
            if (g->n_idx == GL_FILE)
                return syntax(p);
            g->n_idx = GL_CMD;
            g->n_b = e;
            e = g;
            continue;
        }
        if (!starts_concat(p) || tok(p) == T_MINUS || tok(p) == T_PLUS)
            return e;
        if (tok(p) == T_NOT) {
            // `a !~ b` is one token; a lone '!' starts no operand here
            return e;
        }
        if (!enter(p))
            return NULL;
        if (++p->p_chain > AWK_CHAIN_MAX)
            return chain_error(p);
        awk_node *r = additive(p);
        p->p_nest--;
        e = r != NULL ? node2(p, AN_CONCAT, 0, e, r) : NULL;
    }
}

/* rel -> concat [ relop concat ]   ('>' only outside a print's list) */
static awk_node *
relational(parser *p)
{
    awk_node *e = concat(p);
    if (e == NULL)
        return NULL;
    int op;
    switch (tok(p)) {
    case T_LT: op = '<'; break;
    case T_LE: op = 'l'; break;
    case T_GT: op = p->p_nogt ? 0 : '>'; break;
    case T_GE: op = 'g'; break;
    case T_EQ: op = '='; break;
    case T_NE: op = '!'; break;
    default: op = 0; break;
    }
    if (op == 0)
        return e;
    adv(p);
    awk_node *r = concat(p);
    return r != NULL ? node2(p, AN_CMP, op, e, r) : NULL;
}

/* match -> rel { ('~' | '!~') rel } */
static awk_node *
matching(parser *p)
{
    awk_node *e = relational(p);
    while (e != NULL && (tok(p) == T_MATCH || tok(p) == T_NOMATCH)) {
        if (++p->p_chain > AWK_CHAIN_MAX)
            return chain_error(p);
        int neg = tok(p) == T_NOMATCH;
        adv(p);
        awk_node *r = relational(p);
        e = r != NULL ? node2(p, AN_MATCH, neg, e, r) : NULL;
    }
    return e;
}

/* in -> match { 'in' NAME } */
static awk_node *
in_expr(parser *p)
{
    awk_node *e = matching(p);
    while (e != NULL && tok(p) == T_IN) {
        adv(p);
        if (tok(p) != T_NAME)
            return syntax(p);
        awk_node *arr = var_node(p, p->p_lx.lx_str);
        adv(p);
        e = arr != NULL ? node2(p, AN_IN, 0, e, arr) : NULL;
    }
    return e;
}

/* and -> in { '&&' newlines in } */
static awk_node *
and_expr(parser *p)
{
    awk_node *e = in_expr(p);
    while (e != NULL && tok(p) == T_AND) {
        if (++p->p_chain > AWK_CHAIN_MAX)
            return chain_error(p);
        adv(p);
        opt_newlines(p);
        awk_node *r = in_expr(p);
        e = r != NULL ? node2(p, AN_AND, 0, e, r) : NULL;
    }
    return e;
}

/* or -> and { '||' newlines and } */
static awk_node *
or_expr(parser *p)
{
    awk_node *e = and_expr(p);
    while (e != NULL && tok(p) == T_OR) {
        if (++p->p_chain > AWK_CHAIN_MAX)
            return chain_error(p);
        adv(p);
        opt_newlines(p);
        awk_node *r = and_expr(p);
        e = r != NULL ? node2(p, AN_OR, 0, e, r) : NULL;
    }
    return e;
}

/* ternary -> or [ '?' newlines expr newlines ':' newlines expr ] */
static awk_node *
ternary(parser *p)
{
    awk_node *c = or_expr(p);
    if (c == NULL || tok(p) != T_QUESTION)
        return c;
    adv(p);
    opt_newlines(p);
    awk_node *a = expr(p);
    opt_newlines(p);
    if (a == NULL || !expect(p, T_COLON))
        return NULL;
    opt_newlines(p);
    awk_node *b = expr(p);
    if (b == NULL)
        return NULL;
    awk_node *n = node2(p, AN_COND, 0, c, a);
    if (n != NULL)
        n->n_c = b;
    return n;
}

static int
assign_op(int t)
{
    switch (t) {
    case T_ASSIGN: return '=';
    case T_ADD_ASSIGN: return '+';
    case T_SUB_ASSIGN: return '-';
    case T_MUL_ASSIGN: return '*';
    case T_DIV_ASSIGN: return '/';
    case T_MOD_ASSIGN: return '%';
    case T_POW_ASSIGN: return '^';
    default: return 0;
    }
}

/* expr -> lvalue assign_op newlines expr | ternary */
static awk_node *
expr(parser *p)
{
    if (!enter(p))
        return NULL;
    awk_node *e = ternary(p);
    int op = e != NULL ? assign_op(tok(p)) : 0;
    if (op != 0 && is_lvalue(e)) {
        adv(p);
        opt_newlines(p);
        awk_node *r = expr(p);
        e = r != NULL ? node2(p, AN_ASSIGN, op, e, r) : NULL;
    } else if (e != NULL && e->n_op == AN_REGEX && tok(p) == T_DIV_ASSIGN) {
        e = syntax(p);
    }
    p->p_nest--;
    return e;
}

/* ---- statements ---- */

static bool
end_simple(parser *p)
{
    // a simple statement ends at ';', a newline, or before '}'
    if (tok(p) == T_SEMI || tok(p) == T_NEWLINE) {
        adv(p);
        return true;
    }
    if (tok(p) == T_RBRACE || tok(p) == T_EOF)
        return true;
    syntax(p);
    return false;
}

/* print/printf [list] [ ('>' | '>>' | '|') concat ] */
static awk_node *
print_stmt(parser *p)
{
    awk_node *n = node(p, tok(p) == T_PRINT ? AN_PRINT : AN_PRINTF);
    if (n == NULL)
        return NULL;
    adv(p);
    int t = tok(p);
    if (t != T_SEMI && t != T_NEWLINE && t != T_RBRACE && t != T_EOF &&
        t != T_GT && t != T_APPEND && t != T_PIPE) {
        p->p_nogt++;
        int count = 0;
        awk_node *l = expr_list(p, &count);
        p->p_nogt--;
        if (l == NULL)
            return NULL;
        if (count == 1 && l->n_op == AN_GROUP && l->n_next == NULL &&
            l->n_idx > 1)
            l = l->n_a; // print (a, b)
        n->n_a = l;
    }
    if (n->n_op == AN_PRINTF && n->n_a == NULL)
        return syntax(p);
    t = tok(p);
    if (t == T_GT || t == T_APPEND || t == T_PIPE) {
        n->n_idx = t == T_GT ? RD_FILE : t == T_APPEND ? RD_APPEND : RD_PIPE;
        adv(p);
        p->p_nogt++;
        n->n_b = concat(p);
        p->p_nogt--;
        if (n->n_b == NULL)
            return NULL;
    }
    return n;
}

/* simple -> print | printf | expr | delete NAME [ '[' list ']' ] | ... */
static awk_node *
simple_stmt(parser *p)
{
    awk_node *n;
    switch (tok(p)) {
    case T_PRINT:
    case T_PRINTF:
        return print_stmt(p);
    case T_DELETE: {
        adv(p);
        bool paren = tok(p) == T_LPAREN;
        if (paren)
            adv(p);
        if (tok(p) != T_NAME)
            return syntax(p);
        awk_node *arr = var_node(p, p->p_lx.lx_str);
        adv(p);
        awk_node *subs = NULL;
        if (tok(p) == T_LBRACKET) {
            adv(p);
            subs = list_nested(p, NULL);
            if (subs == NULL || !expect(p, T_RBRACKET))
                return NULL;
        }
        if (paren && !expect(p, T_RPAREN))
            return NULL;
        return node2(p, AN_DELETE, 0, arr, subs);
    }
    default:
        n = expr(p);
        return n != NULL ? node2(p, AN_EXPR, 0, n, NULL) : NULL;
    }
}

static awk_node *
simple_or_semi(parser *p)
{
    awk_node *n = simple_stmt(p);
    if (n == NULL || !end_simple(p))
        return NULL;
    return n;
}

/* Skips newlines and semicolons (statement separators). */
static void
opt_terms(parser *p)
{
    while (tok(p) == T_NEWLINE || tok(p) == T_SEMI)
        adv(p);
}

/* block -> '{' { statement } '}' */
static awk_node *
block(parser *p)
{
    if (!expect(p, T_LBRACE))
        return NULL;
    awk_node *b = node(p, AN_BLOCK);
    if (b == NULL)
        return NULL;
    awk_node **tail = &b->n_a;
    opt_terms(p);
    while (tok(p) != T_RBRACE) {
        if (tok(p) == T_EOF || failed(p))
            return syntax(p);
        awk_node *s = statement(p);
        if (s == NULL)
            return NULL;
        *tail = s;
        tail = &s->n_next;
        opt_terms(p);
    }
    adv(p);
    p->p_block_end = true;
    return b;
}

static awk_node *
body(parser *p, bool loop)
{
    opt_newlines(p);
    if (tok(p) == T_SEMI) {
        adv(p);
        return node(p, AN_BLOCK);
    }
    p->p_loops += loop;
    awk_node *s = statement(p);
    p->p_loops -= loop;
    return s;
}

static awk_node *
for_stmt(parser *p)
{
    adv(p); // for
    if (!expect(p, T_LPAREN))
        return NULL;
    if (tok(p) == T_NAME) {
        awk_lex save = p->p_lx;
        awk_node *v = name_ref(p);
        if (v != NULL && v->n_op != AN_INDEX && tok(p) == T_IN) {
            adv(p);
            if (tok(p) == T_NAME) {
                awk_node *arr = var_node(p, p->p_lx.lx_str);
                adv(p);
                if (tok(p) == T_RPAREN) {
                    adv(p);
                    awk_node *n = node2(p, AN_FORIN, 0, v, arr);
                    if (n == NULL || (n->n_c = body(p, true)) == NULL)
                        return NULL;
                    return n;
                }
            }
        }
        if (failed(p))
            return NULL;
        p->p_lx = save;
    }
    awk_node *n = node(p, AN_FOR);
    if (n == NULL)
        return NULL;
    if (tok(p) != T_SEMI && (n->n_a = simple_stmt(p)) == NULL)
        return NULL;
    if (!expect(p, T_SEMI))
        return NULL;
    opt_newlines(p);
    if (tok(p) != T_SEMI && (n->n_b = expr(p)) == NULL)
        return NULL;
    if (!expect(p, T_SEMI))
        return NULL;
    opt_newlines(p);
    if (tok(p) != T_RPAREN && (n->n_c = simple_stmt(p)) == NULL)
        return NULL;
    if (!expect(p, T_RPAREN))
        return NULL;
    if ((n->n_d = body(p, true)) == NULL)
        return NULL;
    return n;
}

/* gawk's "error: ..." (no source line): the parse fails, status 1. */
static void
parse_error(parser *p, const char *msg, int times)
{
    if (failed(p))
        return;
    char where[256];
    awk_lex_where(&p->p_lx, where, sizeof where);
    for (int i = 0; i < times; i++)
        sh_errf(p->p_cx, "%serror: %s", where, msg);
    p->p_lx.lx_failed = true;
}

/* Whether next, nextfile, break or continue may stand here. */
static bool
placed(parser *p, int t)
{
    if ((t == T_BREAK || t == T_CONTINUE) && p->p_loops == 0) {
        // gawk says it twice
        parse_error(p, t == T_BREAK
                           ? "`break' is not allowed outside a loop or switch"
                           : "`continue' is not allowed outside a loop",
                    2);
        return false;
    }
    if ((t == T_NEXT || t == T_NEXTFILE) && p->p_func == NULL &&
        p->p_rule != RULE_MAIN) {
        char msg[64];
        snprintf(msg, sizeof msg, "`%s' used in %s action",
                 t == T_NEXT ? "next" : "nextfile",
                 p->p_rule == RULE_BEGIN ? "BEGIN" : "END");
        parse_error(p, msg, 1);
        return false;
    }
    return true;
}

/* statement -> block | if | while | do | for | ';' | simple terminator */
static awk_node *
statement(parser *p)
{
    if (!enter(p))
        return NULL;
    p->p_chain = 0;
    awk_node *n = NULL;
    int t = tok(p);
    switch (t) {
    case T_LBRACE:
        n = block(p);
        break;
    case T_SEMI:
        adv(p);
        n = node(p, AN_BLOCK);
        break;
    case T_IF: {
        adv(p);
        if (!expect(p, T_LPAREN))
            break;
        awk_node *c = list_nested(p, NULL);
        if (c == NULL || !expect(p, T_RPAREN))
            break;
        awk_node *th = body(p, false);
        if (th == NULL)
            break;
        n = node2(p, AN_IF, 0, c, th);
        if (n == NULL)
            break;
        // `else` may follow the then-part's terminator and newlines
        awk_lex save = p->p_lx;
        opt_terms(p);
        if (tok(p) == T_ELSE) {
            adv(p);
            if ((n->n_c = body(p, false)) == NULL)
                n = NULL;
        } else {
            p->p_lx = save;
        }
        break;
    }
    case T_WHILE: {
        adv(p);
        if (!expect(p, T_LPAREN))
            break;
        awk_node *c = list_nested(p, NULL);
        if (c == NULL || !expect(p, T_RPAREN))
            break;
        if (tok(p) == T_SEMI) { // while (c);
            adv(p);
            n = node2(p, AN_WHILE, 0, c, node(p, AN_BLOCK));
            break;
        }
        awk_node *b = body(p, true);
        n = b != NULL ? node2(p, AN_WHILE, 0, c, b) : NULL;
        break;
    }
    case T_DO: {
        adv(p);
        awk_node *b = body(p, true);
        if (b == NULL)
            break;
        opt_terms(p);
        if (!expect(p, T_WHILE) || !expect(p, T_LPAREN))
            break;
        awk_node *c = list_nested(p, NULL);
        if (c == NULL || !expect(p, T_RPAREN))
            break;
        n = node2(p, AN_DO, 0, c, b);
        if (n != NULL && !end_simple(p))
            n = NULL;
        break;
    }
    case T_FOR:
        n = for_stmt(p);
        break;
    case T_NEXT:
    case T_NEXTFILE:
    case T_BREAK:
    case T_CONTINUE:
        if (!placed(p, t))
            break;
        n = node(p, t == T_NEXT       ? AN_NEXT
                    : t == T_NEXTFILE ? AN_NEXTFILE
                    : t == T_BREAK    ? AN_BREAK
                                      : AN_CONTINUE);
        adv(p);
        if (n != NULL && !end_simple(p))
            n = NULL;
        break;
    case T_EXIT:
    case T_RETURN:
        if (t == T_RETURN && p->p_func == NULL) {
            awk_lex_error(&p->p_lx, "`return' used outside function context");
            break;
        }
        n = node(p, t == T_EXIT ? AN_EXIT : AN_RETURN);
        adv(p);
        if (n == NULL)
            break;
        if (tok(p) != T_SEMI && tok(p) != T_NEWLINE && tok(p) != T_RBRACE &&
            tok(p) != T_EOF && (n->n_a = expr(p)) == NULL) {
            n = NULL;
            break;
        }
        if (!end_simple(p))
            n = NULL;
        break;
    default:
        n = simple_or_semi(p);
        break;
    }
    p->p_nest--;
    return n;
}

/* ---- items ---- */

static awk_rule *
rule_add(parser *p, int kind)
{
    awk_prog *g = p->p_g;
    if (g->p_nrules == g->p_caprules) {
        size_t cap = g->p_caprules ? g->p_caprules * 2 : 16;
        awk_rule *v = box_realloc(g->p_rules, cap * sizeof *v);
        if (v == NULL)
            return NULL;
        g->p_rules = v;
        g->p_caprules = cap;
    }
    awk_rule *r = &g->p_rules[g->p_nrules++];
    memset(r, 0, sizeof *r);
    r->r_kind = kind;
    if (kind != RULE_BEGIN)
        g->p_has_main = true;
    return r;
}

/* function NAME '(' [params] ')' newlines block */
static bool
function_def(parser *p)
{
    adv(p);
    if (tok(p) != T_NAME && tok(p) != T_FUNC_NAME) {
        syntax(p);
        return false;
    }
    awk_func *f = func_get(p, p->p_lx.lx_str);
    if (f == NULL) {
        syntax(p);
        return false;
    }
    if (f->f_defined) {
        char msg[300];
        snprintf(msg, sizeof msg, "function name `%s' previously defined",
                 f->f_name);
        awk_lex_error(&p->p_lx, msg);
        return false;
    }
    size_t fi = (size_t)(f - p->p_g->p_funcs);
    adv(p);
    if (!expect(p, T_LPAREN))
        return false;
    char **params = NULL;
    int np = 0;
    opt_newlines(p);
    while (tok(p) == T_NAME) {
        char **v = box_realloc(params, (size_t)(np + 1) * sizeof *v);
        if (v == NULL) {
            box_free(params);
            return false;
        }
        params = v;
        params[np++] = p->p_lx.lx_str;
        adv(p);
        opt_newlines(p);
        if (tok(p) != T_COMMA)
            break;
        adv(p);
        opt_newlines(p);
    }
    f = &p->p_g->p_funcs[fi];
    f->f_params = params;
    f->f_nparams = np;
    f->f_defined = true;
    if (!expect(p, T_RPAREN))
        return false;
    opt_newlines(p);
    p->p_func = f;
    awk_node *b = block(p);
    p->p_func = NULL;
    p->p_g->p_funcs[fi].f_body = b;
    return b != NULL;
}

/* item -> BEGIN block | END block | function | pattern [',' pattern]
 *         [block] | block */
static bool
item(parser *p)
{
    int t = tok(p);
    if (t == T_FUNCTION)
        return function_def(p);
    if (t == T_BEGIN || t == T_END) {
        adv(p);
        if (tok(p) != T_LBRACE) {
            awk_lex_error(&p->p_lx, t == T_BEGIN
                                        ? "each rule must have a pattern or an action part"
                                        : "each rule must have a pattern or an action part");
            return false;
        }
        p->p_rule = t == T_BEGIN ? RULE_BEGIN : RULE_END;
        awk_node *b = block(p);
        p->p_rule = RULE_MAIN;
        awk_rule *r = b != NULL ? rule_add(p, t == T_BEGIN ? RULE_BEGIN : RULE_END)
                                : NULL;
        if (r != NULL)
            r->r_body = b;
        return r != NULL;
    }
    awk_node *pat = NULL, *pat2 = NULL;
    p->p_chain = 0;
    if (t != T_LBRACE) {
        if ((pat = expr(p)) == NULL)
            return false;
        if (tok(p) == T_COMMA) {
            adv(p);
            opt_newlines(p);
            if ((pat2 = expr(p)) == NULL)
                return false;
        }
    }
    awk_node *b = NULL;
    if (tok(p) == T_LBRACE && (b = block(p)) == NULL)
        return false;
    awk_rule *r = rule_add(p, RULE_MAIN);
    if (r == NULL)
        return false;
    r->r_pat = pat;
    r->r_pat2 = pat2;
    r->r_body = b;
    return true;
}

/* Checks what only the whole program shows: calls of undefined
 * functions. */
static bool
check_calls(parser *p)
{
    awk_prog *g = p->p_g;
    for (size_t i = 0; i < g->p_nfuncs; i++) {
        if (!g->p_funcs[i].f_defined) {
            char where[256];
            p->p_lx.lx_tline = g->p_funcs[i].f_line;
            awk_lex_where(&p->p_lx, where, sizeof where);
            sh_errf(p->p_cx, "%sfatal: function `%s' not defined", where,
                    g->p_funcs[i].f_name);
            p->p_fatal = true;
            return false;
        }
    }
    return true;
}

int
awk_parse(sh_ctx *cx, const awk_src *srcs, size_t nsrcs, awk_prog *g)
{
    parser p;
    memset(&p, 0, sizeof p);
    p.p_g = g;
    p.p_cx = cx;
    p.p_rule = RULE_MAIN;
    g->p_arena = box_arena_new(256u << 20);
    if (g->p_arena == NULL)
        return sh_cmd_err(cx, "awk", 2, "out of memory");
    for (int i = 0; i < V_NSPECIAL; i++)
        if (awk_global_slot(g, global_names[i]) != i)
            return sh_cmd_err(cx, "awk", 2, "out of memory");
    awk_lex *lx = &p.p_lx;
    lx->lx_cx = cx;
    lx->lx_arena = g->p_arena;
    lx->lx_srcs = srcs;
    lx->lx_nsrcs = nsrcs;
    lx->lx_p = srcs[0].s_text;
    lx->lx_n = srcs[0].s_len;
    lx->lx_line = 1;
    lx->lx_prev = T_NEWLINE;
    adv(&p);
    opt_terms(&p);
    while (tok(&p) != T_EOF && !failed(&p)) {
        if (!item(&p))
            break;
        if (tok(&p) == T_EOF)
            break;
        // an item that ended with its block needs no separator
        if (tok(&p) != T_NEWLINE && tok(&p) != T_SEMI && !p.p_block_end) {
            syntax(&p);
            break;
        }
        opt_terms(&p);
    }
    if (failed(&p) || tok(&p) == T_BAD)
        return 1;
    if (!check_calls(&p))
        return 2;
    return 0;
}
