/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A temporal condition written back as Dogwood text, canonically: one
 * spelling per tree, parentheses only where the grammar needs them
 * (dogwood-spec §2.4), windows in their largest whole unit. It names a
 * rule's temporal part (a changed rule starts with an empty history) and
 * reads back to the same tree.
 */
#include <inttypes.h>

#include "box_escape.h"
#include "pdp_tl.h"

static box_err dump_tl(const pdp_tl *t, box_buf *b);

static box_err
dump_str(pdp_str s, box_buf *b)
{
    return box_buf_append(b, s.s, s.len);
}

static box_err
dump_window(int64_t secs, box_buf *b)
{
    static const struct {
        int64_t secs;
        char unit;
    } units[] = {{86400, 'd'}, {3600, 'h'}, {60, 'm'}, {1, 's'}};
    for (size_t i = 0; i < 4; i++)
        if (secs % units[i].secs == 0)
            return box_buf_printf(b, "within %" PRId64 "%c ",
                                  secs / units[i].secs, units[i].unit);
    return BOX_EINVAL;
}

static box_err
dump_binder(const pdp_tbinder *x, box_buf *b)
{
    BOX_TRY(box_buf_putc(b, '('));
    BOX_TRY(dump_str(x->tb_name, b));
    BOX_TRY(box_buf_puts(b, ": "));
    BOX_TRY(dump_str(x->tb_type, b));
    return box_buf_putc(b, ')');
}

static box_err
dump_term(const pdp_tterm *t, box_buf *b)
{
    switch (t->tt_kind) {
    case PDP_TT_LIT:
        return pdp_value_format(t->tt_lit, b);
    case PDP_TT_DECIMAL:
        BOX_TRY(box_buf_puts(b, "decimal(\""));
        BOX_TRY(box_escape_debug_str(b, t->tt_text.s, t->tt_text.len));
        return box_buf_puts(b, "\")");
    case PDP_TT_CONTEXT:
    case PDP_TT_SCOPE:
        BOX_TRY(box_buf_puts(b, t->tt_kind == PDP_TT_CONTEXT     ? "context"
                                : t->tt_var == PDP_VAR_PRINCIPAL ? "principal"
                                                                 : "resource"));
        for (uint32_t i = 0; i < t->tt_nsegs; i++) {
            BOX_TRY(box_buf_putc(b, '.'));
            BOX_TRY(dump_str(t->tt_segs[i], b));
        }
        return BOX_OK;
    case PDP_TT_VAR:
        return dump_str(t->tt_name, b);
    case PDP_TT_WILD:
        return box_buf_putc(b, '*');
    case PDP_TT_ARRAY:
        BOX_TRY(box_buf_putc(b, '['));
        for (uint32_t i = 0; i < t->tt_nitems; i++) {
            if (i > 0)
                BOX_TRY(box_buf_puts(b, ", "));
            BOX_TRY(dump_term(t->tt_items[i], b));
        }
        return box_buf_putc(b, ']');
    case PDP_TT_COUNT:
    case PDP_TT_SUM: {
        const pdp_tagg *g = t->tt_agg;
        if (t->tt_kind == PDP_TT_COUNT) {
            BOX_TRY(box_buf_puts(b, "count for "));
        } else {
            BOX_TRY(box_buf_puts(b, "sum "));
            BOX_TRY(dump_str(g->ta_sum, b));
            BOX_TRY(box_buf_puts(b, " for "));
        }
        for (uint32_t i = 0; i < g->ta_nfor; i++) {
            if (i > 0)
                BOX_TRY(box_buf_puts(b, ", "));
            BOX_TRY(dump_binder(&g->ta_for[i], b));
        }
        BOX_TRY(box_buf_puts(b, ". where "));
        return dump_tl(g->ta_where, b);
    }
    }
    return BOX_EINVAL;
}

/* A comparison operand. */
static box_err
dump_operand(const pdp_tterm *t, box_buf *b)
{
    bool agg = t->tt_kind == PDP_TT_COUNT || t->tt_kind == PDP_TT_SUM;
    if (agg)
        BOX_TRY(box_buf_putc(b, '('));
    BOX_TRY(dump_term(t, b));
    return agg ? box_buf_putc(b, ')') : BOX_OK;
}

/* An operand that must be an atom (formerly/previous/since right). */
static box_err
dump_atom(const pdp_tl *t, box_buf *b)
{
    bool paren = t->tl_kind == PDP_TL_AND || t->tl_kind == PDP_TL_NOT ||
                 t->tl_kind == PDP_TL_SINCE || t->tl_kind == PDP_TL_EXISTS ||
                 t->tl_kind == PDP_TL_FORMERLY ||
                 t->tl_kind == PDP_TL_PREVIOUS;
    if (paren)
        BOX_TRY(box_buf_putc(b, '('));
    BOX_TRY(dump_tl(t, b));
    return paren ? box_buf_putc(b, ')') : BOX_OK;
}

/* A conjunct of && or the operand of `!` / a since-left: an exists
 * would swallow what follows, an && or since would split. */
static box_err
dump_conjunct(const pdp_tl *t, bool since_ok, box_buf *b)
{
    bool paren = t->tl_kind == PDP_TL_EXISTS || t->tl_kind == PDP_TL_AND ||
                 (!since_ok && t->tl_kind == PDP_TL_SINCE);
    if (paren)
        BOX_TRY(box_buf_putc(b, '('));
    BOX_TRY(dump_tl(t, b));
    return paren ? box_buf_putc(b, ')') : BOX_OK;
}

static box_err
dump_tl(const pdp_tl *t, box_buf *b)
{
    static const char *const ops[] = {"==", "<", "<=", ">", ">="}; // PDP_TOP
    switch (t->tl_kind) {
    case PDP_TL_AND:
        // Left-assoc: the left may be a chain itself.
        if (t->tl_l->tl_kind == PDP_TL_AND)
            BOX_TRY(dump_tl(t->tl_l, b));
        else
            BOX_TRY(dump_conjunct(t->tl_l, true, b));
        BOX_TRY(box_buf_puts(b, " && "));
        // An exists on the right end extends to the end: no parentheses
        // needed there, but they are harmless and keep one spelling.
        return dump_conjunct(t->tl_r, true, b);
    case PDP_TL_NOT:
        BOX_TRY(box_buf_putc(b, '!'));
        return dump_conjunct(t->tl_l, false, b);
    case PDP_TL_FORMERLY:
    case PDP_TL_PREVIOUS:
        BOX_TRY(box_buf_puts(b, t->tl_kind == PDP_TL_FORMERLY ? "formerly "
                                                              : "previous "));
        BOX_TRY(dump_window(t->tl_window, b));
        return dump_atom(t->tl_l, b);
    case PDP_TL_SINCE:
        BOX_TRY(dump_conjunct(t->tl_l, false, b));
        BOX_TRY(box_buf_puts(b, " since "));
        BOX_TRY(dump_window(t->tl_window, b));
        return dump_atom(t->tl_r, b);
    case PDP_TL_PRED: {
        BOX_TRY(pdp_value_format(t->tl_action, b));
        BOX_TRY(box_buf_puts(b, "::"));
        BOX_TRY(dump_str(t->tl_event_kind, b));
        BOX_TRY(box_buf_putc(b, '{'));
        for (uint32_t i = 0; i < t->tl_nargs; i++) {
            BOX_TRY(box_buf_puts(b, i > 0 ? ", " : " "));
            BOX_TRY(dump_str(t->tl_args[i].ta_path, b));
            BOX_TRY(box_buf_puts(b, ": "));
            BOX_TRY(dump_term(t->tl_args[i].ta_term, b));
        }
        return box_buf_puts(b, t->tl_nargs > 0 ? " }" : "}");
    }
    case PDP_TL_CMP:
        // An aggregate's where-body is greedy: bare on the right it would
        // take a following `&& …` in, so both sides get parentheses.
        BOX_TRY(dump_operand(t->tl_a, b));
        BOX_TRY(box_buf_printf(b, " %s ", ops[t->tl_op]));
        return dump_operand(t->tl_b, b);
    case PDP_TL_EXISTS:
        BOX_TRY(box_buf_puts(b, "exists "));
        BOX_TRY(dump_binder(&t->tl_binder, b));
        BOX_TRY(box_buf_puts(b, ". "));
        return dump_tl(t->tl_l, b);
    case PDP_TL_TP:
        BOX_TRY(box_buf_puts(b, "tp("));
        BOX_TRY(dump_str(t->tl_binder.tb_name, b));
        return box_buf_putc(b, ')');
    }
    return BOX_EINVAL;
}

box_err
pdp_tl_dump(const pdp_tl *tl, box_buf *out)
{
    return dump_tl(tl, out);
}
