/* SPDX-License-Identifier: Apache-2.0 */
/* The literal-spelling judgement (§6.4): path and program literals that
 * can never match what Box puts in a request. */
#include "pdp_validate.h"

#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_escape.h"
#include "pdp_int.h"

/*
 * Box decides on canonical paths, with the operator's home spelled ~/…,
 * and on the program as the agent's first word. A literal that spells a
 * path under the home absolutely, or a directory with a trailing slash,
 * can never match (refusal); a program literal with a slash, or a
 * pattern naming the home after a wildcard, probably does not (warning).
 * Only comparisons of context.input.<attr> with string literals are
 * judged: `==`/`!=` (either side), `like`, and `[…].contains(…)`.
 */

#define SPELL_MSG_MAX (1u << 20)

typedef enum family {
    FAM_SKIP,
    FAM_FS,
    FAM_SHELL,
    FAM_UNSCOPED,
} family;

/* ORDER ATTR */
enum { AT_PATH = 1, AT_PROGRAM = 2, AT_PROGRAM_PATH = 4 };

typedef struct spell {
    const pdp_rule *sp_rule;
    family sp_fam;
    unsigned sp_attrs; // judged attributes (AT_* bits)
    const char *sp_home;
    size_t sp_homelen;
    pdp_validate_warnings *sp_warn;
    box_buf *sp_refuse; // refusals, joined with "; "
    box_err sp_rv;
} spell;

static family
rule_family(const pdp_rule *r)
{
    const pdp_scope *sc = &r->r_action;
    if (sc->sc_op == PDP_SCOPE_ANY)
        return FAM_UNSCOPED;
    if (sc->sc_n == 0)
        return FAM_SKIP;
    unsigned seen = 0; // 1 fs, 2 shell, 4 other
    for (uint32_t i = 0; i < sc->sc_n; i++) {
        const pdp_value *a = sc->sc_ents[i];
        if (a->u.ent.tlen != 11 ||
            memcmp(a->u.ent.type, "Box::Action", 11) != 0)
            return FAM_SKIP;
        if (a->u.ent.idlen >= 3 && memcmp(a->u.ent.id, "fs:", 3) == 0)
            seen |= 1;
        else if (a->u.ent.idlen >= 6 && memcmp(a->u.ent.id, "shell:", 6) == 0)
            seen |= 2;
        else
            seen |= 4;
    }
    if (seen == 1)
        return FAM_FS;
    if (seen == 2)
        return FAM_SHELL;
    if (seen == 4)
        return FAM_SKIP;
    return FAM_UNSCOPED;
}

/* The judged attribute e reads (context.input.<attr>), or 0. */
static unsigned
input_attr(const spell *sp, const pdp_expr *e, const char **name)
{
    if (e->x_kind != PDP_X_ATTR)
        return 0;
    const pdp_expr *in = e->u.attr.obj;
    if (in->x_kind != PDP_X_ATTR || strcmp(in->u.attr.name.s, "input") != 0 ||
        in->u.attr.obj->x_kind != PDP_X_VAR ||
        in->u.attr.obj->u.var != PDP_VAR_CONTEXT)
        return 0;
    static const struct {
        const char *n;
        unsigned bit;
    } attrs[] = {
        {"path", AT_PATH},
        {"program", AT_PROGRAM},
        {"program_path", AT_PROGRAM_PATH},
    };
    for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
        if (e->u.attr.name.len == strlen(attrs[i].n) &&
            memcmp(e->u.attr.name.s, attrs[i].n, e->u.attr.name.len) == 0 &&
            (sp->sp_attrs & attrs[i].bit) != 0) {
            *name = attrs[i].n;
            return attrs[i].bit;
        }
    }
    return 0;
}

/* `rule @id("x")` or `the permit rule with no @id`. */
static box_err
put_rule(box_buf *b, const pdp_rule *r)
{
    const pdp_annot *an = pdp_rule_annot(r, "id");
    if (an == NULL)
        return box_buf_printf(b, "the %s rule with no @id",
                              r->r_effect == PDP_PERMIT ? "permit" : "forbid");
    return pdp_rule_put_id(b, an);
}

/* A literal in quotes, escaped like Rust's Debug for str. */
static box_err
put_quoted(box_buf *b, const char *s, size_t n)
{
    box_err rv = box_buf_putc(b, '"');
    if (rv == BOX_OK)
        rv = box_escape_debug_str(b, s, n);
    if (rv == BOX_OK)
        rv = box_buf_putc(b, '"');
    return rv;
}

/* A pattern as text: wildcards as `*`, literal stars as `\*`, from byte
 * from on, optionally ending before byte to. */
static box_err
put_pattern(box_buf *b, const pdp_pattern *p, size_t from, size_t to)
{
    box_err rv = BOX_OK;
    size_t start = from;
    for (size_t i = from; i < to && rv == BOX_OK; i++) {
        if (p->bytes[i] != '*')
            continue;
        rv = box_escape_debug_str(b, p->bytes + start, i - start);
        if (rv == BOX_OK)
            rv = box_buf_puts(b, p->wild[i] ? "*" : "\\*");
        start = i + 1;
    }
    if (rv == BOX_OK)
        rv = box_escape_debug_str(b, p->bytes + start, to - start);
    return rv;
}

static void
emit(spell *sp, box_buf *msg, bool refusal)
{
    if (sp->sp_rv != BOX_OK)
        return;
    if (refusal) {
        box_err rv = box_buf_puts(sp->sp_refuse,
                                  sp->sp_refuse->b_len == 0
                                      ? "policy compares an inert literal: "
                                      : "; ");
        if (rv == BOX_OK)
            rv = box_buf_append(sp->sp_refuse, msg->b_data, msg->b_len);
        sp->sp_rv = rv == BOX_ETOOBIG ? BOX_OK : rv;
    } else {
        sp->sp_rv =
            pdp_validate_warnings_add(sp->sp_warn, msg->b_data, msg->b_len);
    }
}

/* The position after the home in s[0..n) when s is the home or starts
 * with home + "/"; (size_t)-1 otherwise. */
static size_t
under_home(const spell *sp, const char *s, size_t n)
{
    size_t h = sp->sp_homelen;
    if (sp->sp_home == NULL || h == 0 || n < h ||
        memcmp(s, sp->sp_home, h) != 0)
        return (size_t)-1;
    if (n == h || s[h] == '/')
        return h;
    return (size_t)-1;
}

/* attr == "lit" (or an element of a contains set). */
static void
judge_literal(spell *sp, unsigned bit, const char *attr, const pdp_value *lit)
{
    size_t n;
    const char *s = pdp_value_str(lit, &n);
    box_buf m;
    box_buf_init(&m, SPELL_MSG_MAX);
    box_err rv = BOX_OK;
    size_t h;
    if (bit == AT_PROGRAM && memchr(s, '/', n) != NULL) {
        if ((rv = put_rule(&m, sp->sp_rule)) == BOX_OK &&
            (rv = box_buf_puts(&m, " compares context.input.program with ")) ==
                BOX_OK &&
            (rv = put_quoted(&m, s, n)) == BOX_OK &&
            (rv = box_buf_puts(&m, ", which matches only a first word spelled "
                                   "that way; compare context.input."
                                   "program_path to match the resolved "
                                   "binary")) == BOX_OK)
            emit(sp, &m, false);
        m.b_len = 0;
    }
    if (rv == BOX_OK && (h = under_home(sp, s, n)) != (size_t)-1) {
        if ((rv = put_rule(&m, sp->sp_rule)) == BOX_OK &&
            (rv = box_buf_printf(&m, " compares context.input.%s with ",
                                 attr)) == BOX_OK &&
            (rv = put_quoted(&m, s, n)) == BOX_OK &&
            (rv = box_buf_puts(&m, ", and a path under the operator home is "
                                   "spelled ~/…; write \"~")) == BOX_OK &&
            (rv = box_escape_debug_str(&m, s + h, n - h)) == BOX_OK &&
            (rv = box_buf_putc(&m, '"')) == BOX_OK)
            emit(sp, &m, true);
    } else if (rv == BOX_OK && sp->sp_fam != FAM_UNSCOPED && n > 1 &&
               s[n - 1] == '/') {
        size_t t = n;
        while (t > 1 && s[t - 1] == '/')
            t--;
        if ((rv = put_rule(&m, sp->sp_rule)) == BOX_OK &&
            (rv = box_buf_printf(&m, " compares context.input.%s with ",
                                 attr)) == BOX_OK &&
            (rv = put_quoted(&m, s, n)) == BOX_OK &&
            (rv = box_buf_puts(&m, ", and a directory is spelled without a "
                                   "trailing slash; write ")) == BOX_OK &&
            (rv = put_quoted(&m, s, t)) == BOX_OK)
            emit(sp, &m, true);
    }
    if (rv != BOX_OK && sp->sp_rv == BOX_OK)
        sp->sp_rv = rv;
    box_buf_reset(&m);
}

/* attr like "pattern". Pieces are the literal runs between wildcards. */
static void
judge_pattern(spell *sp, unsigned bit, const char *attr, const pdp_pattern *p)
{
    box_buf m;
    box_buf_init(&m, SPELL_MSG_MAX);
    box_err rv = BOX_OK;
    size_t first_end = p->len, last_start = 0;
    bool any_wild = false, slash_piece = false;
    for (size_t i = 0; i < p->len; i++) {
        if (p->wild[i]) {
            if (!any_wild)
                first_end = i;
            any_wild = true;
            last_start = i + 1;
        } else if (p->bytes[i] == '/') {
            slash_piece = true;
        }
    }
    if (bit == AT_PROGRAM && slash_piece) {
        if ((rv = put_rule(&m, sp->sp_rule)) == BOX_OK &&
            (rv = box_buf_puts(&m, " compares context.input.program with the "
                                   "pattern ")) == BOX_OK &&
            (rv = box_buf_append(&m, p->source.s, p->source.len)) == BOX_OK &&
            (rv = box_buf_puts(&m, ", which matches only a first word spelled "
                                   "that way; compare context.input."
                                   "program_path to match the resolved "
                                   "binary")) == BOX_OK)
            emit(sp, &m, false);
        m.b_len = 0;
    }
    size_t h = under_home(sp, p->bytes, first_end);
    if (rv == BOX_OK && h != (size_t)-1) {
        if ((rv = put_rule(&m, sp->sp_rule)) == BOX_OK &&
            (rv = box_buf_printf(&m,
                                 " compares context.input.%s with the "
                                 "pattern ",
                                 attr)) == BOX_OK &&
            (rv = box_buf_append(&m, p->source.s, p->source.len)) == BOX_OK &&
            (rv = box_buf_puts(&m, ", and a path under the operator home is "
                                   "spelled ~/…; write \"~")) == BOX_OK &&
            (rv = put_pattern(&m, p, h, p->len)) == BOX_OK &&
            (rv = box_buf_putc(&m, '"')) == BOX_OK)
            emit(sp, &m, true);
    } else if (rv == BOX_OK && sp->sp_fam != FAM_UNSCOPED && p->len > 0 &&
               !p->wild[p->len - 1] && p->bytes[p->len - 1] == '/' &&
               !(p->len == 1) && last_start < p->len) {
        size_t t = p->len;
        while (t > 1 && !p->wild[t - 1] && p->bytes[t - 1] == '/' &&
               t - 1 > last_start)
            t--;
        if ((rv = put_rule(&m, sp->sp_rule)) == BOX_OK &&
            (rv = box_buf_printf(&m,
                                 " compares context.input.%s with the "
                                 "pattern ",
                                 attr)) == BOX_OK &&
            (rv = box_buf_append(&m, p->source.s, p->source.len)) == BOX_OK &&
            (rv = box_buf_puts(&m, ", and a directory is spelled without a "
                                   "trailing slash; write \"")) == BOX_OK &&
            (rv = put_pattern(&m, p, 0, t)) == BOX_OK &&
            (rv = box_buf_putc(&m, '"')) == BOX_OK)
            emit(sp, &m, true);
    }
    m.b_len = 0;
    /* The home as a whole path component in a piece after the first. */
    bool late_home = false;
    if (rv == BOX_OK && any_wild && sp->sp_home != NULL && sp->sp_homelen > 0) {
        size_t hl = sp->sp_homelen;
        size_t piece = first_end + 1;
        while (piece <= p->len && !late_home) {
            size_t end = piece;
            while (end < p->len && !p->wild[end])
                end++;
            for (size_t i = piece; i + hl <= end && !late_home; i++) {
                if (memcmp(p->bytes + i, sp->sp_home, hl) == 0 &&
                    (i + hl == end || p->bytes[i + hl] == '/') &&
                    (sp->sp_home[0] == '/' || i == piece ||
                     p->bytes[i - 1] == '/'))
                    late_home = true;
            }
            piece = end + 1;
        }
    }
    if (late_home) {
        if ((rv = put_rule(&m, sp->sp_rule)) == BOX_OK &&
            (rv = box_buf_printf(&m,
                                 " compares context.input.%s with the "
                                 "pattern ",
                                 attr)) == BOX_OK &&
            (rv = box_buf_append(&m, p->source.s, p->source.len)) == BOX_OK &&
            (rv = box_buf_puts(&m, ", which names the operator home after a "
                                   "wildcard; a path under the operator home "
                                   "is spelled ~/…, so the pattern may match "
                                   "nothing")) == BOX_OK)
            emit(sp, &m, false);
    }
    if (rv != BOX_OK && sp->sp_rv == BOX_OK)
        sp->sp_rv = rv;
    box_buf_reset(&m);
}

static bool
is_string_lit(const pdp_expr *e)
{
    return e->x_kind == PDP_X_LIT && e->x_const->v_kind == PDP_VAL_STRING;
}

static void
walk(spell *sp, const pdp_expr *e)
{
    const char *attr = NULL;
    unsigned bit;
    switch (e->x_kind) {
    case PDP_X_EQ:
    case PDP_X_NE:
        if ((bit = input_attr(sp, e->u.bin.l, &attr)) != 0 &&
            is_string_lit(e->u.bin.r))
            judge_literal(sp, bit, attr, e->u.bin.r->x_const);
        else if ((bit = input_attr(sp, e->u.bin.r, &attr)) != 0 &&
                 is_string_lit(e->u.bin.l))
            judge_literal(sp, bit, attr, e->u.bin.l->x_const);
        walk(sp, e->u.bin.l);
        walk(sp, e->u.bin.r);
        return;
    case PDP_X_LIKE:
        if ((bit = input_attr(sp, e->u.like.obj, &attr)) != 0)
            judge_pattern(sp, bit, attr, &e->u.like.pat);
        walk(sp, e->u.like.obj);
        return;
    case PDP_X_METHOD:
        if (e->u.call.m == PDP_M_CONTAINS && e->u.call.n == 1 &&
            e->u.call.recv->x_kind == PDP_X_SET &&
            (bit = input_attr(sp, e->u.call.args[0], &attr)) != 0) {
            const pdp_expr *set = e->u.call.recv;
            for (uint32_t i = 0; i < set->u.list.n; i++) {
                if (is_string_lit(set->u.list.items[i]))
                    judge_literal(sp, bit, attr, set->u.list.items[i]->x_const);
            }
        }
        walk(sp, e->u.call.recv);
        for (uint32_t i = 0; i < e->u.call.n; i++)
            walk(sp, e->u.call.args[i]);
        return;
    case PDP_X_LIT:
    case PDP_X_VAR:
    case PDP_X_TEMPORAL: // reads no input path the way these judge
    case PDP_X_COUNT:
        return;
    case PDP_X_NOT:
    case PDP_X_NEG:
        walk(sp, e->u.un.arg);
        return;
    case PDP_X_AND:
    case PDP_X_OR:
    case PDP_X_SET:
        for (uint32_t i = 0; i < e->u.list.n; i++)
            walk(sp, e->u.list.items[i]);
        return;
    case PDP_X_HAS:
        walk(sp, e->u.has.obj);
        return;
    case PDP_X_ATTR:
        walk(sp, e->u.attr.obj);
        return;
    case PDP_X_IF:
        walk(sp, e->u.cond.c);
        walk(sp, e->u.cond.t);
        walk(sp, e->u.cond.e);
        return;
    case PDP_X_RECORD:
        for (uint32_t i = 0; i < e->u.rec.n; i++)
            walk(sp, e->u.rec.vals[i]);
        return;
    case PDP_X_CALL:
        for (uint32_t i = 0; i < e->u.call.n; i++)
            walk(sp, e->u.call.args[i]);
        return;
    case PDP_X_IS:
        walk(sp, e->u.is.obj);
        if (e->u.is.in != NULL)
            walk(sp, e->u.is.in);
        return;
    default:
        walk(sp, e->u.bin.l);
        walk(sp, e->u.bin.r);
        return;
    }
}

box_err
pdp_validate_spelling(const pdp_ast *ast, const char *home,
                      pdp_validate_warnings *warn, char **refusal)
{
    box_buf refuse;
    box_buf_init(&refuse, SPELL_MSG_MAX);
    *refusal = NULL;
    spell sp;
    memset(&sp, 0, sizeof(sp));
    sp.sp_warn = warn;
    sp.sp_refuse = &refuse;
    if (home != NULL) {
        sp.sp_home = home;
        sp.sp_homelen = strlen(home);
        while (sp.sp_homelen > 1 && home[sp.sp_homelen - 1] == '/')
            sp.sp_homelen--;
    }
    for (uint32_t i = 0; i < ast->as_nrules && sp.sp_rv == BOX_OK; i++) {
        const pdp_rule *r = ast->as_rules[i];
        sp.sp_rule = r;
        sp.sp_fam = rule_family(r);
        switch (sp.sp_fam) {
        case FAM_SKIP:
            continue;
        case FAM_FS:
            sp.sp_attrs = AT_PATH;
            break;
        case FAM_SHELL:
            sp.sp_attrs = AT_PROGRAM | AT_PROGRAM_PATH;
            break;
        case FAM_UNSCOPED:
            sp.sp_attrs = AT_PATH | AT_PROGRAM | AT_PROGRAM_PATH;
            break;
        }
        for (uint32_t k = 0; k < r->r_nconds; k++)
            walk(&sp, r->r_conds[k].cd_body);
    }
    box_err rv = sp.sp_rv;
    if (rv == BOX_OK && refuse.b_len > 0) {
        *refusal = box_buf_take(&refuse);
        rv = *refusal != NULL ? BOX_ECONFIG : BOX_ENOMEM;
    }
    box_buf_reset(&refuse);
    return rv;
}

box_err
pdp_validate_warnings_add(pdp_validate_warnings *w, const char *s, size_t n)
{
    if (w->vw_n == w->vw_cap) {
        size_t nc = w->vw_cap ? w->vw_cap * 2 : 8;
        char **items = box_realloc(w->vw_items, nc * sizeof(*items));
        if (items == NULL)
            return BOX_ENOMEM;
        w->vw_items = items;
        w->vw_cap = nc;
    }
    char *c = box_strndup(s, n);
    if (c == NULL)
        return BOX_ENOMEM;
    w->vw_items[w->vw_n++] = c;
    return BOX_OK;
}

void
pdp_validate_warnings_free(pdp_validate_warnings *w)
{
    for (size_t i = 0; i < w->vw_n; i++)
        box_free(w->vw_items[i]);
    box_free(w->vw_items);
    w->vw_items = NULL;
    w->vw_n = w->vw_cap = 0;
}
