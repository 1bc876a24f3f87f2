/* SPDX-License-Identifier: Apache-2.0 */
/* AST helpers: names, annotation lookup, and the S-expression dump. */
#include "pdp_ast.h"

#include <string.h>

#include "box_escape.h"
#include "pdp_ext.h"
#include "pdp_int.h"
#include "pdp_tl.h"
#include "box_utf8.h"

const char *
pdp_var_name(pdp_var v)
{
    static const char *const names[] = {"principal", "action", "resource",
                                        "context"}; // ORDER PDP_VAR
    return (unsigned)v < 4 ? names[v] : "?";
}

const char *
pdp_method_name(pdp_method m)
{
    const pdp_ext_fn *f = pdp_ext_fn_of(m);
    return f != NULL ? f->xf_name : "?";
}

/* ORDER PDP_X */
static const char *const pdp_x_names[PDP_X_COUNT] = {
    "LIT", "VAR", "!", "neg", "&&", "||", "==", "!=", "<", "<=", ">", ">=",
    "in", "+", "-", "*", "has", "like", ".", "if", "set", "record", "call",
    "temporal", "fn", "is",
};

const char *
pdp_expr_kind_name(pdp_expr_kind k)
{
    return (unsigned)k < PDP_X_COUNT ? pdp_x_names[k] : "?";
}

const pdp_annot *
pdp_rule_annot(const pdp_rule *r, const char *key)
{
    size_t kl = strlen(key);
    for (uint32_t i = 0; i < r->r_nannots; i++) {
        if (r->r_annots[i].an_key.len == kl &&
            memcmp(r->r_annots[i].an_key.s, key, kl) == 0)
            return &r->r_annots[i];
    }
    return NULL;
}

box_err
pdp_rule_put_id(box_buf *b, const pdp_annot *id)
{
    box_err rv;
    if ((rv = box_buf_puts(b, "rule @id(\"")) != BOX_OK ||
        (rv = box_escape_debug_str(b, id->an_value.s, id->an_value.len)) !=
            BOX_OK)
        return rv;
    return box_buf_puts(b, "\")");
}

box_err
pdp_rule_put_name(box_buf *b, const pdp_rule *r)
{
    const pdp_annot *an = pdp_rule_annot(r, "id");
    box_err rv = an != NULL
                     ? pdp_rule_put_id(b, an)
                     : box_buf_printf(b, "the %s rule with no @id",
                                      r->r_effect == PDP_PERMIT ? "permit"
                                                                : "forbid");
    return rv == BOX_OK ? box_buf_printf(b, " (rule %u)", r->r_index + 1)
                        : rv;
}

static bool
is_white(uint32_t c)
{
    return (c >= 0x09 && c <= 0x0D) || c == 0x20 || c == 0x85 || c == 0xA0 ||
           c == 0x1680 || (c >= 0x2000 && c <= 0x200A) || c == 0x2028 ||
           c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

bool
pdp_str_blank(pdp_str s)
{
    size_t i = 0;
    while (i < s.len) {
        uint32_t cp;
        size_t k = box_utf8_decode(s.s + i, s.len - i, &cp);
        if (k == 0 || !is_white(cp))
            return false;
        i += k;
    }
    return true;
}

static box_err
dump_str(box_buf *out, pdp_str s)
{
    box_err rv;
    if ((rv = box_buf_putc(out, '"')) != BOX_OK ||
        (rv = box_escape_debug_str(out, s.s, s.len)) != BOX_OK)
        return rv;
    return box_buf_putc(out, '"');
}

static box_err
dump_list(box_buf *out, const char *head, const pdp_expr *const *items,
          uint32_t n)
{
    box_err rv = box_buf_printf(out, "(%s", head);
    for (uint32_t i = 0; i < n && rv == BOX_OK; i++) {
        if ((rv = box_buf_putc(out, ' ')) == BOX_OK)
            rv = pdp_expr_dump(items[i], out);
    }
    return rv != BOX_OK ? rv : box_buf_putc(out, ')');
}

box_err
pdp_expr_dump(const pdp_expr *e, box_buf *out)
{
    box_err rv = BOX_OK;
    const char *name = pdp_expr_kind_name(e->x_kind);
    switch (e->x_kind) {
    case PDP_X_LIT:
        return pdp_value_format(e->x_const, out);
    case PDP_X_VAR:
        return box_buf_puts(out, pdp_var_name(e->u.var));
    case PDP_X_NOT:
    case PDP_X_NEG:
        return dump_list(out, name, &e->u.un.arg, 1);
    case PDP_X_AND:
    case PDP_X_OR:
        return dump_list(out, name, e->u.list.items, e->u.list.n);
    case PDP_X_SET:
        return dump_list(out, "set", e->u.list.items, e->u.list.n);
    case PDP_X_EQ: case PDP_X_NE: case PDP_X_LT: case PDP_X_LE:
    case PDP_X_GT: case PDP_X_GE: case PDP_X_IN: case PDP_X_ADD:
    case PDP_X_SUB: case PDP_X_MUL: {
        const pdp_expr *kids[2] = {e->u.bin.l, e->u.bin.r};
        return dump_list(out, name, kids, 2);
    }
    case PDP_X_HAS:
        if ((rv = box_buf_puts(out, "(has ")) != BOX_OK ||
            (rv = pdp_expr_dump(e->u.has.obj, out)) != BOX_OK)
            return rv;
        for (uint32_t i = 0; i < e->u.has.n && rv == BOX_OK; i++) {
            if ((rv = box_buf_putc(out, ' ')) == BOX_OK)
                rv = dump_str(out, e->u.has.path[i]);
        }
        return rv != BOX_OK ? rv : box_buf_putc(out, ')');
    case PDP_X_LIKE:
        if ((rv = box_buf_puts(out, "(like ")) != BOX_OK ||
            (rv = pdp_expr_dump(e->u.like.obj, out)) != BOX_OK ||
            (rv = box_buf_putc(out, ' ')) != BOX_OK ||
            (rv = box_buf_append(out, e->u.like.pat.source.s,
                                 e->u.like.pat.source.len)) != BOX_OK)
            return rv;
        return box_buf_putc(out, ')');
    case PDP_X_ATTR:
        if ((rv = box_buf_puts(out, e->u.attr.bracket ? "([] " : "(. ")) !=
                BOX_OK ||
            (rv = pdp_expr_dump(e->u.attr.obj, out)) != BOX_OK ||
            (rv = box_buf_putc(out, ' ')) != BOX_OK ||
            (rv = dump_str(out, e->u.attr.name)) != BOX_OK)
            return rv;
        return box_buf_putc(out, ')');
    case PDP_X_IF: {
        const pdp_expr *kids[3] = {e->u.cond.c, e->u.cond.t, e->u.cond.e};
        return dump_list(out, "if", kids, 3);
    }
    case PDP_X_RECORD:
        if ((rv = box_buf_puts(out, "(record")) != BOX_OK)
            return rv;
        for (uint32_t i = 0; i < e->u.rec.n && rv == BOX_OK; i++) {
            if ((rv = box_buf_putc(out, ' ')) != BOX_OK ||
                (rv = dump_str(out, e->u.rec.keys[i])) != BOX_OK ||
                (rv = box_buf_putc(out, ' ')) != BOX_OK)
                return rv;
            rv = pdp_expr_dump(e->u.rec.vals[i], out);
        }
        return rv != BOX_OK ? rv : box_buf_putc(out, ')');
    case PDP_X_METHOD:
        if ((rv = box_buf_printf(out, "(.%s ", pdp_method_name(e->u.call.m))) !=
                BOX_OK ||
            (rv = pdp_expr_dump(e->u.call.recv, out)) != BOX_OK)
            return rv;
        for (uint32_t i = 0; i < e->u.call.n && rv == BOX_OK; i++) {
            if ((rv = box_buf_putc(out, ' ')) == BOX_OK)
                rv = pdp_expr_dump(e->u.call.args[i], out);
        }
        return rv != BOX_OK ? rv : box_buf_putc(out, ')');
    case PDP_X_TEMPORAL:
        if ((rv = box_buf_puts(out, "temporal { ")) != BOX_OK ||
            (rv = pdp_tl_dump(e->u.tl, out)) != BOX_OK)
            return rv;
        return box_buf_puts(out, " }");
    case PDP_X_CALL:
        return dump_list(out, pdp_method_name(e->u.call.m), e->u.call.args,
                         e->u.call.n);
    case PDP_X_IS:
        if ((rv = box_buf_puts(out, "(is ")) != BOX_OK ||
            (rv = pdp_expr_dump(e->u.is.obj, out)) != BOX_OK ||
            (rv = box_buf_putc(out, ' ')) != BOX_OK ||
            (rv = box_buf_append(out, e->u.is.type.s, e->u.is.type.len)) !=
                BOX_OK)
            return rv;
        if (e->u.is.in != NULL &&
            ((rv = box_buf_puts(out, " in ")) != BOX_OK ||
             (rv = pdp_expr_dump(e->u.is.in, out)) != BOX_OK))
            return rv;
        return box_buf_putc(out, ')');
    case PDP_X_COUNT:
        break;
    }
    return BOX_EINVAL;
}

static box_err
dump_scope(box_buf *out, const char *var, const pdp_scope *s)
{
    static const char *const ops[] = {"", " ==", " in", " in", "",
                                      " in"}; // ORDER PDP_SCOPE
    box_err rv = box_buf_puts(out, var);
    if (rv == BOX_OK &&
        (s->sc_op == PDP_SCOPE_IS || s->sc_op == PDP_SCOPE_IS_IN))
        rv = box_buf_printf(out, " is %.*s", (int)s->sc_type.len,
                            s->sc_type.s);
    if (rv == BOX_OK)
        rv = box_buf_puts(out, ops[s->sc_op]);
    if (rv != BOX_OK || s->sc_op == PDP_SCOPE_ANY)
        return rv;
    if (s->sc_op == PDP_SCOPE_IN_SET && (rv = box_buf_puts(out, " [")) != BOX_OK)
        return rv;
    for (uint32_t i = 0; i < s->sc_n && rv == BOX_OK; i++) {
        if ((rv = box_buf_puts(out, i ? ", " : s->sc_op == PDP_SCOPE_IN_SET
                                                   ? ""
                                                   : " ")) == BOX_OK)
            rv = pdp_value_format(s->sc_ents[i], out);
    }
    if (rv == BOX_OK && s->sc_op == PDP_SCOPE_IN_SET)
        rv = box_buf_putc(out, ']');
    return rv;
}

box_err
pdp_rule_dump(const pdp_rule *r, box_buf *out)
{
    box_err rv = BOX_OK;
    for (uint32_t i = 0; i < r->r_nannots && rv == BOX_OK; i++) {
        const pdp_annot *an = &r->r_annots[i];
        rv = box_buf_printf(out, "@%s", an->an_key.s);
        if (rv == BOX_OK && an->an_has_value) {
            if ((rv = box_buf_putc(out, '(')) == BOX_OK &&
                (rv = dump_str(out, an->an_value)) == BOX_OK)
                rv = box_buf_putc(out, ')');
        }
        if (rv == BOX_OK)
            rv = box_buf_putc(out, ' ');
    }
    if (rv != BOX_OK ||
        (rv = box_buf_puts(out, r->r_effect == PDP_PERMIT ? "permit ("
                                                          : "forbid (")) !=
            BOX_OK ||
        (rv = dump_scope(out, "principal", &r->r_principal)) != BOX_OK ||
        (rv = box_buf_puts(out, ", ")) != BOX_OK ||
        (rv = dump_scope(out, "action", &r->r_action)) != BOX_OK ||
        (rv = box_buf_puts(out, ", ")) != BOX_OK ||
        (rv = dump_scope(out, "resource", &r->r_resource)) != BOX_OK ||
        (rv = box_buf_putc(out, ')')) != BOX_OK)
        return rv;
    for (uint32_t i = 0; i < r->r_nconds && rv == BOX_OK; i++) {
        rv = box_buf_puts(out, r->r_conds[i].cd_kind == PDP_COND_WHEN
                                   ? " when "
                                   : " unless ");
        if (rv == BOX_OK)
            rv = pdp_expr_dump(r->r_conds[i].cd_body, out);
    }
    return rv != BOX_OK ? rv : box_buf_putc(out, ';');
}

const pdp_expr *
pdp_expr_visit(const pdp_expr *e, pdp_expr_visitor fn, void *arg)
{
    if (e == NULL)
        return NULL;
    if (fn(arg, e))
        return e;
    const pdp_expr *hit = NULL;
    switch (e->x_kind) {
    case PDP_X_LIT:
    case PDP_X_VAR:
    case PDP_X_TEMPORAL:
    case PDP_X_COUNT:
        return NULL;
    case PDP_X_NOT:
    case PDP_X_NEG:
        return pdp_expr_visit(e->u.un.arg, fn, arg);
    case PDP_X_AND:
    case PDP_X_OR:
    case PDP_X_SET:
        for (uint32_t i = 0; i < e->u.list.n && hit == NULL; i++)
            hit = pdp_expr_visit(e->u.list.items[i], fn, arg);
        return hit;
    case PDP_X_HAS:
        return pdp_expr_visit(e->u.has.obj, fn, arg);
    case PDP_X_LIKE:
        return pdp_expr_visit(e->u.like.obj, fn, arg);
    case PDP_X_ATTR:
        return pdp_expr_visit(e->u.attr.obj, fn, arg);
    case PDP_X_IF:
        if ((hit = pdp_expr_visit(e->u.cond.c, fn, arg)) == NULL &&
            (hit = pdp_expr_visit(e->u.cond.t, fn, arg)) == NULL)
            hit = pdp_expr_visit(e->u.cond.e, fn, arg);
        return hit;
    case PDP_X_RECORD:
        for (uint32_t i = 0; i < e->u.rec.n && hit == NULL; i++)
            hit = pdp_expr_visit(e->u.rec.vals[i], fn, arg);
        return hit;
    case PDP_X_METHOD:
    case PDP_X_CALL: // recv is NULL for a function
        if (e->u.call.recv != NULL)
            hit = pdp_expr_visit(e->u.call.recv, fn, arg);
        for (uint32_t i = 0; i < e->u.call.n && hit == NULL; i++)
            hit = pdp_expr_visit(e->u.call.args[i], fn, arg);
        return hit;
    case PDP_X_IS:
        hit = pdp_expr_visit(e->u.is.obj, fn, arg);
        if (hit == NULL && e->u.is.in != NULL)
            hit = pdp_expr_visit(e->u.is.in, fn, arg);
        return hit;
    case PDP_X_EQ: case PDP_X_NE: case PDP_X_LT: case PDP_X_LE:
    case PDP_X_GT: case PDP_X_GE: case PDP_X_IN: case PDP_X_ADD:
    case PDP_X_SUB: case PDP_X_MUL:
        if ((hit = pdp_expr_visit(e->u.bin.l, fn, arg)) == NULL)
            hit = pdp_expr_visit(e->u.bin.r, fn, arg);
        return hit;
    }
    return NULL;
}

static bool
find_kind(void *arg, const pdp_expr *e)
{
    return e->x_kind == *(const pdp_expr_kind *)arg;
}

const pdp_expr *
pdp_expr_find(const pdp_expr *e, pdp_expr_kind k)
{
    return pdp_expr_visit(e, find_kind, &k);
}
