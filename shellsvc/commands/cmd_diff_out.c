/* SPDX-License-Identifier: Apache-2.0 */
/* diff's printers: normal, unified (-u) and context (-c) output as GNU
 * diff 3.8 writes them, hunks grouped by the context they share. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "box_alloc.h"
#include "cmd_diff.h"

/* ---- the output buffer ---- */

bool
diff_flush(diff_run *d)
{
    bool ok = sh_cmd_emit(&d->dr_run, d->dr_out.b_data, d->dr_out.b_len);
    box_buf_truncate(&d->dr_out, 0);
    if (!ok) {
        d->dr_stop = true;
        if (d->dr_run.cr_cx->cx_flow == SH_FLOW_NONE)
            d->dr_run.cr_status = 2; // GNU's trouble status for a bad fd
    }
    return ok;
}

static bool
out_full(diff_run *d, box_err e)
{
    if (e != BOX_OK) {
        d->dr_run.cr_status =
            sh_cmd_err(d->dr_run.cr_cx, "diff", 2, "memory exhausted");
        d->dr_stop = true;
        return false;
    }
    return d->dr_out.b_len < DIFF_OUT_CAP || diff_flush(d);
}

bool
diff_put(diff_run *d, const char *p, size_t n)
{
    return out_full(d, n == 0 ? BOX_OK : box_buf_append(&d->dr_out, p, n));
}

bool
diff_putf(diff_run *d, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    box_err e = box_buf_vprintf(&d->dr_out, fmt, ap);
    va_end(ap);
    return out_full(d, e);
}

/* prefix, line i of f, its newline, and GNU's note when it has none. */
static bool
put_line(diff_run *d, const char *prefix, const diff_file *f, size_t i)
{
    size_t len;
    const char *p = diff_line(f, i, &len);
    if (!diff_put(d, prefix, strlen(prefix)) || !diff_put(d, p, len) ||
        !diff_put(d, "\n", 1))
        return false;
    if (f->df_noeol && i + 1 == f->df_nlines)
        return diff_put(d, "\\ No newline at end of file\n", 28);
    return true;
}

/* ---- ranges ---- */

/* Lines a..b (1-based; b = a - 1 when empty) as normal and context
 * output write them: "a,b", or "b" alone. */
static bool
put_range(diff_run *d, size_t a, size_t b)
{
    if (a < b)
        return diff_putf(d, "%zu,%zu", a, b);
    return diff_putf(d, "%zu", b);
}

/* The same as unified output writes it: "a,count", "a" for one line,
 * "b,0" (the line before) for none. */
static bool
put_urange(diff_run *d, size_t a, size_t b)
{
    if (a < b)
        return diff_putf(d, "%zu,%zu", a, b - a + 1);
    if (a == b)
        return diff_putf(d, "%zu", b);
    return diff_putf(d, "%zu,0", b);
}

/* ---- -B: changes of blank lines only ---- */

/* A blank line as -B sees it: empty, or (with -Z, -b or -w) white
 * space only. */
static bool
blank_line(const diff_run *d, const diff_file *f, size_t i)
{
    size_t len;
    const char *p = diff_line(f, i, &len);
    if (!(d->dr_ws & (DIFF_WS_TRAIL | DIFF_WS_CHANGE | DIFF_WS_ALL)))
        return len == 0;
    for (size_t k = 0; k < len; k++)
        if (p[k] != ' ' && p[k] != '\t' && p[k] != '\r' && p[k] != '\v' &&
            p[k] != '\f')
            return false;
    return true;
}

static bool
blank_change(const diff_run *d, const diff_file *f, const diff_change *c)
{
    for (size_t i = 0; i < c->dc_n0; i++)
        if (!blank_line(d, &f[0], c->dc_l0 + i))
            return false;
    for (size_t i = 0; i < c->dc_n1; i++)
        if (!blank_line(d, &f[1], c->dc_l1 + i))
            return false;
    return true;
}

/* ---- normal output ---- */

static bool
print_normal(diff_run *d, const diff_file *f, const diff_change *c)
{
    char op = c->dc_n0 == 0 ? 'a' : c->dc_n1 == 0 ? 'd' : 'c';
    if (!put_range(d, c->dc_l0 + 1, c->dc_l0 + c->dc_n0) ||
        !diff_put(d, &op, 1) ||
        !put_range(d, c->dc_l1 + 1, c->dc_l1 + c->dc_n1) ||
        !diff_put(d, "\n", 1))
        return false;
    for (size_t i = 0; i < c->dc_n0; i++)
        if (!put_line(d, "< ", &f[0], c->dc_l0 + i))
            return false;
    if (op == 'c' && !diff_put(d, "---\n", 4))
        return false;
    for (size_t i = 0; i < c->dc_n1; i++)
        if (!put_line(d, "> ", &f[1], c->dc_l1 + i))
            return false;
    return true;
}

/* ---- ed scripts (-e) ---- */

/* One change as an ed command, the new lines after it; a line that is a
 * lone "." would end ed's input, so GNU writes ".." and fixes it up. */
static bool
print_ed(diff_run *d, const diff_file *f, const diff_change *c)
{
    char op = c->dc_n0 == 0 ? 'a' : c->dc_n1 == 0 ? 'd' : 'c';
    if (!put_range(d, c->dc_l0 + 1, c->dc_l0 + c->dc_n0) ||
        !diff_put(d, &op, 1) || !diff_put(d, "\n", 1))
        return false;
    if (op == 'd')
        return true;
    bool inserting = true;
    for (size_t i = 0; i < c->dc_n1; i++) {
        size_t len;
        const char *p = diff_line(&f[1], c->dc_l1 + i, &len);
        if (!inserting && !diff_put(d, "a\n", 2))
            return false;
        inserting = true;
        if (len == 1 && p[0] == '.') {
            if (!diff_put(d, "..\n.\ns/.//\n", 11))
                return false;
            inserting = false;
        } else if (!diff_put(d, p, len) || !diff_put(d, "\n", 1)) {
            return false;
        }
    }
    return !inserting || diff_put(d, ".\n", 2);
}

/* ---- unified and context hunks ---- */

/* The end (one past) of the hunk that starts at change k: the changes
 * after it join while fewer than 2 * context + 1 unchanged lines (or
 * context, before a -B change) lie between. */
static size_t
hunk_end(const diff_run *d, const diff_change *c, size_t n, size_t k)
{
    size_t ctx = (size_t)d->dr_context;
    for (k++; k < n; k++) {
        size_t top = c[k - 1].dc_l0 + c[k - 1].dc_n0;
        size_t thresh = c[k].dc_ignore ? ctx : 2 * ctx + 1;
        if (c[k].dc_l0 - top >= thresh)
            break;
    }
    return k;
}

/* The lines a hunk shows, context included: [a0, b0) and [a1, b1). */
typedef struct hunk {
    size_t a0, b0, a1, b1;
    bool old, new; // lines deleted, inserted (not only -B ones)
} hunk;

static void
hunk_span(const diff_run *d, const diff_file *f, const diff_change *c,
          size_t first, size_t end, hunk *h)
{
    size_t ctx = (size_t)d->dr_context;
    const diff_change *l = &c[end - 1];
    h->a0 = c[first].dc_l0 > ctx ? c[first].dc_l0 - ctx : 0;
    h->a1 = c[first].dc_l1 > ctx ? c[first].dc_l1 - ctx : 0;
    size_t e0 = l->dc_l0 + l->dc_n0 + ctx, e1 = l->dc_l1 + l->dc_n1 + ctx;
    h->b0 = e0 < f[0].df_nlines ? e0 : f[0].df_nlines;
    h->b1 = e1 < f[1].df_nlines ? e1 : f[1].df_nlines;
    h->old = h->new = false;
    for (size_t k = first; k < end; k++) {
        h->old |= c[k].dc_n0 > 0;
        h->new |= c[k].dc_n1 > 0;
    }
}

static bool
print_unified(diff_run *d, const diff_file *f, const diff_change *c,
              size_t first, size_t end)
{
    hunk h;
    hunk_span(d, f, c, first, end, &h);
    if (!diff_put(d, "@@ -", 4) || !put_urange(d, h.a0 + 1, h.b0) ||
        !diff_put(d, " +", 2) || !put_urange(d, h.a1 + 1, h.b1) ||
        !diff_put(d, " @@\n", 4))
        return false;
    size_t i = h.a0, k = first;
    while (i < h.b0 || (k < end)) {
        if (k >= end || i < c[k].dc_l0) {
            if (i >= h.b0)
                break;
            if (!put_line(d, " ", &f[0], i++))
                return false;
            continue;
        }
        for (size_t m = 0; m < c[k].dc_n0; m++)
            if (!put_line(d, "-", &f[0], c[k].dc_l0 + m))
                return false;
        for (size_t m = 0; m < c[k].dc_n1; m++)
            if (!put_line(d, "+", &f[1], c[k].dc_l1 + m))
                return false;
        i = c[k].dc_l0 + c[k].dc_n0;
        k++;
    }
    return true;
}

/* One side of a context hunk: its range line, then (when it has
 * changes) its lines marked "  ", "- "/"+ " or "! ". */
static bool
context_side(diff_run *d, const diff_file *f, const diff_change *c,
             size_t first, size_t end, int side, size_t a, size_t b,
             bool any)
{
    const char *mark = side == 0 ? "*** " : "--- ";
    const char *tail = side == 0 ? " ****\n" : " ----\n";
    if (!diff_put(d, mark, 4) || !put_range(d, a + 1, b) ||
        !diff_put(d, tail, strlen(tail)))
        return false;
    if (!any)
        return true;
    size_t k = first;
    for (size_t i = a; i < b; i++) {
        const char *pre = "  ";
        while (k < end && (side == 0 ? c[k].dc_l0 + c[k].dc_n0
                                     : c[k].dc_l1 + c[k].dc_n1) <= i)
            k++;
        if (k < end) {
            size_t l = side == 0 ? c[k].dc_l0 : c[k].dc_l1;
            size_t other = side == 0 ? c[k].dc_n1 : c[k].dc_n0;
            if (i >= l)
                pre = other > 0 ? "! " : side == 0 ? "- " : "+ ";
        }
        if (!put_line(d, pre, &f[side], i))
            return false;
    }
    return true;
}

static bool
print_context(diff_run *d, const diff_file *f, const diff_change *c,
              size_t first, size_t end)
{
    hunk h;
    hunk_span(d, f, c, first, end, &h);
    return diff_put(d, "***************\n", 16) &&
           context_side(d, f, c, first, end, 0, h.a0, h.b0, h.old) &&
           context_side(d, f, c, first, end, 1, h.a1, h.b1, h.new);
}

/* ---- headers ---- */

/* "NAME\tTIME" as GNU writes a header, or the --label. */
static bool
put_header(diff_run *d, const char *mark, const diff_file *f, int k)
{
    if (d->dr_label[k] != NULL)
        return diff_putf(d, "%s %s\n", mark, d->dr_label[k]);
    (void)k;
    time_t t = (time_t)f->df_mtime;
    struct tm tm;
    char a[64] = "", z[16] = "";
    if (localtime_r(&t, &tm) != NULL) {
        strftime(a, sizeof a, "%Y-%m-%d %H:%M:%S", &tm);
        strftime(z, sizeof z, "%z", &tm);
    }
    char *q = diff_cquote(f->df_shown);
    bool ok = q != NULL && diff_putf(d, "%s %s\t%s.%09ld %s\n", mark, q, a,
                                     f->df_mtime_ns, z);
    box_free(q);
    return ok;
}

bool
diff_print(diff_run *d, diff_file *f, const diff_change *c, size_t n)
{
    if (d->dr_style == DIFF_SIDE)
        return diff_print_side(d, f, c, n);
    if (d->dr_style == DIFF_ED) { // last change first: line numbers hold
        for (size_t k = n; k > 0; k--)
            if (!c[k - 1].dc_ignore && !print_ed(d, f, &c[k - 1]))
                return false;
        return true;
    }
    if (d->dr_style == DIFF_NORMAL) {
        for (size_t k = 0; k < n; k++)
            if (!c[k].dc_ignore && !print_normal(d, f, &c[k]))
                return false;
        return true;
    }
    bool headed = false;
    for (size_t k = 0; k < n;) {
        size_t end = hunk_end(d, c, n, k);
        bool all_ignored = true;
        for (size_t m = k; m < end; m++)
            all_ignored &= c[m].dc_ignore;
        if (!all_ignored) {
            if (!headed) {
                headed = true;
                bool u = d->dr_style == DIFF_UNIFIED;
                if (!put_header(d, u ? "---" : "***", &f[0], 0) ||
                    !put_header(d, u ? "+++" : "---", &f[1], 1))
                    return false;
            }
            if (d->dr_style == DIFF_UNIFIED ? !print_unified(d, f, c, k, end)
                                            : !print_context(d, f, c, k, end))
                return false;
        }
        k = end;
    }
    return true;
}

void
diff_mark_blank(const diff_run *d, const diff_file *f, diff_change *c,
                size_t n)
{
    for (size_t k = 0; k < n; k++)
        c[k].dc_ignore = d->dr_blank && blank_change(d, f, &c[k]);
}
