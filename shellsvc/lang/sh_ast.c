/* SPDX-License-Identifier: Apache-2.0 */
/* Names of AST kinds and the S-expression dump used by tests. */
#include "sh_ast.h"

#include <stdio.h>
#include <string.h>

/* ORDER SH_N */
static const char *const sh_node_names[SH_N_COUNT] = {
    "list", "and",   "or",    "pipe", "cmd",  "group", "subshell",
    "if",   "while", "until", "for",  "case", "func",  "cond",
    "arith", "for-arith", "time",
};

/* ORDER SH_C */
static const char *const sh_cond_kind_names[SH_C_COUNT] = {
    "&&", "||", "!", "paren", "unary", "binary",
};

/* ORDER SH_CO */
static const char *const sh_cond_op_names[SH_CO_COUNT] = {
    "-a",  "-b",  "-c",  "-d",  "-e",  "-f",  "-g",  "-h",  "-k", "-n", "-o",
    "-p",  "-r",  "-s",  "-t",  "-u",  "-v",  "-w",  "-x",  "-z", "-G", "-L",
    "-N",  "-O",  "-R",  "-S",  "=",   "==",  "!=",  "=~",  "<",  ">",  "-eq",
    "-ne", "-lt", "-le", "-gt", "-ge", "-nt", "-ot", "-ef",
};

/* ORDER SH_WP */
static const char *const sh_wpart_names[SH_WP_COUNT] = {
    "lit", "sq", "esc", "dq", "param", "cmdsub", "arith", "tilde", "procsub",
};

/* ORDER SH_PO */
static const char *const sh_param_op_names[SH_PO_COUNT] = {
    "",   "#", "-",  "=", "?",  "+", ":-", ":=", ":?", ":+", "%", "%%", "#",
    "##", "^", "^^", ",", ",,", ":", "/",  "//", "/#", "/%", "@", "!*", "!",
};

/* ORDER SH_R */
static const char *const sh_redir_names[SH_R_COUNT] = {
    "<", ">", ">>", ">|", "<>", "<&", ">&", "<<", "<<-", "&>", "&>>", "<<<",
};

const char *
sh_node_kind_name(sh_node_kind k)
{
    return (unsigned)k < SH_N_COUNT ? sh_node_names[k] : "?";
}

const char *
sh_wpart_kind_name(sh_wpart_kind k)
{
    return (unsigned)k < SH_WP_COUNT ? sh_wpart_names[k] : "?";
}

const char *
sh_param_op_name(sh_param_op op)
{
    return (unsigned)op < SH_PO_COUNT ? sh_param_op_names[op] : "?";
}

const char *
sh_redir_kind_name(sh_redir_kind k)
{
    return (unsigned)k < SH_R_COUNT ? sh_redir_names[k] : "?";
}

const char *
sh_cond_kind_name(sh_cond_kind k)
{
    return (unsigned)k < SH_C_COUNT ? sh_cond_kind_names[k] : "?";
}

const char *
sh_cond_op_name(sh_cond_op op)
{
    return (unsigned)op < SH_CO_COUNT ? sh_cond_op_names[op] : "?";
}

/* ---- dump ---- */

typedef struct dumper {
    box_buf *out;
    unsigned flags;
    box_err rv;
} dumper;

static void
put(dumper *d, const char *s)
{
    if (d->rv == BOX_OK)
        d->rv = box_buf_puts(d->out, s);
}

static void
putline(dumper *d, uint32_t line)
{
    if ((d->flags & SH_DUMP_LINES) && d->rv == BOX_OK)
        d->rv = box_buf_printf(d->out, "@%u", (unsigned)line);
}

static void
putstr(dumper *d, const char *s, size_t n)
{
    put(d, "\"");
    for (size_t i = 0; i < n && d->rv == BOX_OK; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\')
            d->rv = box_buf_printf(d->out, "\\%c", c);
        else if (c == '\n')
            d->rv = box_buf_puts(d->out, "\\n");
        else if (c == '\t')
            d->rv = box_buf_puts(d->out, "\\t");
        else if (c < 0x20 || c == 0x7f)
            d->rv = box_buf_printf(d->out, "\\x%02x", c);
        else
            d->rv = box_buf_putc(d->out, (char)c);
    }
    put(d, "\"");
}

static void dump_node(dumper *d, const sh_node *n);
static void dump_word(dumper *d, const sh_word *w);

static void
dump_parts(dumper *d, const sh_wpart *p)
{
    for (; p != NULL; p = p->wp_next) {
        put(d, " ");
        switch (p->wp_kind) {
        case SH_WP_LIT:
            putstr(d, p->u.text.s, p->u.text.len);
            break;
        case SH_WP_SQUOTE:
        case SH_WP_ESCAPED:
        case SH_WP_ARITH:
        case SH_WP_TILDE:
            put(d, "(");
            put(d, sh_wpart_kind_name(p->wp_kind));
            put(d, " ");
            putstr(d, p->u.text.s, p->u.text.len);
            put(d, ")");
            break;
        case SH_WP_DQUOTE:
            put(d, "(dq");
            dump_parts(d, p->u.dq);
            put(d, ")");
            break;
        case SH_WP_PARAM:
            put(d, p->u.param.op == SH_PO_LENGTH ? "(len "
                   : p->u.param.op == SH_PO_KEYS ? "(keys "
                                                 : "(param ");
            if (p->u.param.indirect)
                put(d, "!");
            put(d, p->u.param.name);
            if (p->u.param.sub != NULL) {
                put(d, " [");
                dump_word(d, p->u.param.sub);
                put(d, "]");
            }
            if (p->u.param.op == SH_PO_XFORM || p->u.param.op == SH_PO_NAMES) {
                // ${x@Q}: "x Q"; ${!p*}: "p !*".
                put(d, p->u.param.op == SH_PO_NAMES ? " !" : " ");
                char x[2] = {p->u.param.xform, '\0'};
                put(d, x);
            } else if (p->u.param.op != SH_PO_NONE &&
                       p->u.param.op != SH_PO_LENGTH &&
                       p->u.param.op != SH_PO_KEYS) {
                put(d, " ");
                put(d, sh_param_op_name(p->u.param.op));
                put(d, " ");
                dump_word(d, p->u.param.arg);
                if (p->u.param.arg2 != NULL) {
                    put(d, " ");
                    dump_word(d, p->u.param.arg2);
                }
            }
            put(d, ")");
            break;
        case SH_WP_CMDSUB:
            put(d, p->u.cmdsub.backquote ? "(backq " : "(cmdsub ");
            dump_node(d, p->u.cmdsub.body);
            put(d, ")");
            break;
        case SH_WP_PROCSUB:
            put(d, p->u.procsub.out ? "(procsub> " : "(procsub< ");
            dump_node(d, p->u.procsub.body);
            put(d, ")");
            break;
        default:
            put(d, "(?)");
        }
    }
}

static void
dump_word(dumper *d, const sh_word *w)
{
    if (w == NULL) {
        put(d, "nil");
        return;
    }
    const sh_wpart *p = w->w_parts;
    if (p != NULL && p->wp_next == NULL && p->wp_kind == SH_WP_LIT) {
        putstr(d, p->u.text.s, p->u.text.len);
        return;
    }
    put(d, "(word");
    dump_parts(d, p);
    put(d, ")");
}

static void
dump_cond(dumper *d, const sh_cond *c)
{
    if (c == NULL) {
        put(d, "nil");
        return;
    }
    put(d, "(");
    switch (c->c_kind) {
    case SH_C_AND:
    case SH_C_OR:
        put(d, sh_cond_kind_name(c->c_kind));
        putline(d, c->c_line);
        put(d, " ");
        dump_cond(d, c->c_l);
        put(d, " ");
        dump_cond(d, c->c_r);
        break;
    case SH_C_NOT:
    case SH_C_GROUP:
        put(d, sh_cond_kind_name(c->c_kind));
        putline(d, c->c_line);
        put(d, " ");
        dump_cond(d, c->c_l);
        break;
    case SH_C_UNARY:
        put(d, sh_cond_op_name(c->c_op));
        putline(d, c->c_line);
        put(d, " ");
        dump_word(d, c->c_w1);
        break;
    case SH_C_BINARY:
        dump_word(d, c->c_w1);
        put(d, " ");
        put(d, sh_cond_op_name(c->c_op));
        putline(d, c->c_line);
        put(d, " ");
        dump_word(d, c->c_w2);
        break;
    default:
        put(d, "?");
    }
    put(d, ")");
}

static void
dump_redirs(dumper *d, const sh_redir *r)
{
    for (; r != NULL; r = r->r_next) {
        put(d, " (");
        if (r->r_fd >= 0 && d->rv == BOX_OK)
            d->rv = box_buf_printf(d->out, "%d", r->r_fd);
        if (r->r_fdvar != NULL && d->rv == BOX_OK)
            d->rv = box_buf_printf(d->out, "{%s}", r->r_fdvar);
        put(d, sh_redir_kind_name(r->r_kind));
        bool hd = r->r_kind == SH_R_HEREDOC || r->r_kind == SH_R_HEREDOC_STRIP;
        if (hd && r->r_quoted)
            put(d, "q");
        putline(d, r->r_line);
        put(d, " ");
        if (hd) {
            putstr(d, r->r_delim, strlen(r->r_delim));
            put(d, " ");
            dump_word(d, r->r_body);
        } else {
            dump_word(d, r->r_target);
        }
        put(d, ")");
    }
}

/* The text of a word made of one arithmetic part, as "raw" ("" for an
 * empty part of a for (( ; ; )) header). */
static void
dump_arith_text(dumper *d, const sh_word *w)
{
    if (w == NULL || w->w_parts == NULL) {
        putstr(d, "", 0);
        return;
    }
    putstr(d, w->w_parts->u.text.s, w->w_parts->u.text.len);
}

static void
dump_list(dumper *d, const sh_node *items)
{
    for (const sh_node *c = items; c != NULL; c = c->n_next) {
        put(d, " ");
        dump_node(d, c);
    }
}

static void
dump_node(dumper *d, const sh_node *n)
{
    if (n == NULL) {
        put(d, "nil");
        return;
    }
    if (n->n_bg)
        put(d, "(bg ");
    bool bang = n->n_kind == SH_N_PIPE && n->u.pipe.bang;
    if (bang) {
        put(d, "(not");
        putline(d, n->n_line);
        put(d, " ");
    }
    if (bang && n->u.pipe.n == 1) {
        dump_node(d, n->u.pipe.stages);
        goto close;
    }
    put(d, "(");
    put(d, sh_node_kind_name(n->n_kind));
    if (n->n_kind == SH_N_FOR || n->n_kind == SH_N_FUNC) {
        put(d, " ");
        put(d, n->n_kind == SH_N_FOR ? n->u.for_.var : n->u.func.name);
    }
    putline(d, n->n_line);
    switch (n->n_kind) {
    case SH_N_LIST:
        dump_list(d, n->u.list.items);
        break;
    case SH_N_AND:
    case SH_N_OR:
        put(d, " ");
        dump_node(d, n->u.bin.l);
        put(d, " ");
        dump_node(d, n->u.bin.r);
        break;
    case SH_N_PIPE:
        dump_list(d, n->u.pipe.stages);
        break;
    case SH_N_SIMPLE:
        for (const sh_assign *a = n->u.simple.assigns; a; a = a->a_next) {
            put(d, a->a_append ? " (+= " : " (= ");
            put(d, a->a_name);
            if (a->a_sub != NULL) {
                put(d, "[");
                dump_word(d, a->a_sub);
                put(d, "]");
            }
            put(d, " ");
            if (a->a_compound) {
                put(d, "(array");
                for (const sh_aelem *e = a->a_elems; e; e = e->ae_next) {
                    put(d, " ");
                    if (e->ae_sub != NULL) {
                        put(d, "[");
                        dump_word(d, e->ae_sub);
                        put(d, e->ae_append ? "]+=" : "]=");
                    }
                    dump_word(d, e->ae_value);
                }
                put(d, ")");
            } else {
                dump_word(d, a->a_value);
            }
            put(d, ")");
        }
        for (const sh_word *w = n->u.simple.words; w; w = w->w_next) {
            put(d, " ");
            dump_word(d, w);
        }
        break;
    case SH_N_GROUP:
    case SH_N_SUBSHELL:
        put(d, " ");
        dump_node(d, n->u.body);
        break;
    case SH_N_IF:
        put(d, " ");
        dump_node(d, n->u.if_.cond);
        put(d, " ");
        dump_node(d, n->u.if_.then);
        if (n->u.if_.else_ != NULL) {
            put(d, " ");
            dump_node(d, n->u.if_.else_);
        }
        break;
    case SH_N_WHILE:
    case SH_N_UNTIL:
        put(d, " ");
        dump_node(d, n->u.loop.cond);
        put(d, " ");
        dump_node(d, n->u.loop.body);
        break;
    case SH_N_FOR:
        if (n->u.for_.has_in) {
            put(d, " (in");
            for (const sh_word *w = n->u.for_.words; w; w = w->w_next) {
                put(d, " ");
                dump_word(d, w);
            }
            put(d, ")");
        }
        put(d, " ");
        dump_node(d, n->u.for_.body);
        break;
    case SH_N_CASE:
        put(d, " ");
        dump_word(d, n->u.case_.word);
        for (const sh_case_item *ci = n->u.case_.items; ci; ci = ci->ci_next) {
            put(d, " (item");
            putline(d, ci->ci_line);
            put(d, " (pats");
            for (const sh_word *w = ci->ci_pats; w; w = w->w_next) {
                put(d, " ");
                dump_word(d, w);
            }
            put(d, ") ");
            dump_node(d, ci->ci_body);
            if (ci->ci_term == SH_CT_FALL)
                put(d, " (fall)");
            else if (ci->ci_term == SH_CT_TEST)
                put(d, " (test)");
            put(d, ")");
        }
        break;
    case SH_N_FUNC:
        put(d, " ");
        dump_node(d, n->u.func.body);
        break;
    case SH_N_COND:
        put(d, " ");
        dump_cond(d, n->u.cond);
        break;
    case SH_N_ARITH:
        put(d, " ");
        dump_arith_text(d, n->u.arith);
        break;
    case SH_N_FOR_ARITH:
        put(d, " ");
        dump_arith_text(d, n->u.for_arith.init);
        put(d, " ");
        dump_arith_text(d, n->u.for_arith.cond);
        put(d, " ");
        dump_arith_text(d, n->u.for_arith.step);
        put(d, " ");
        dump_node(d, n->u.for_arith.body);
        break;
    case SH_N_TIME:
        if (n->u.time.posix)
            put(d, " -p");
        put(d, " ");
        dump_node(d, n->u.time.cmd);
        break;
    default:
        break;
    }
    dump_redirs(d, n->n_redirs);
    put(d, ")");
close:
    if (bang)
        put(d, ")");
    if (n->n_bg)
        put(d, ")");
}

box_err
sh_ast_dump(const sh_node *n, box_buf *out, unsigned flags)
{
    dumper d = {out, flags, BOX_OK};
    dump_node(&d, n);
    return d.rv;
}

box_err
sh_ast_dump_word(const sh_word *w, box_buf *out, unsigned flags)
{
    dumper d = {out, flags, BOX_OK};
    dump_word(&d, w);
    return d.rv;
}
