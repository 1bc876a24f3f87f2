/* SPDX-License-Identifier: Apache-2.0 */
/* diff -y: side-by-side output as GNU diff 3.8 lays it out (two halves
 * of -W columns, tabs kept as tabs, a gutter mark between). */
#include <string.h>

#include "cmd_diff.h"

#define SIDE_TAB 8
#define SIDE_GUTTER 3 // the gutter's least width

/* Moves the output column from `from` to `to` with tabs, then spaces
 * (GNU's tab_from_to without -t). Returns the new column. */
static bool
side_pad(diff_run *d, size_t from, size_t to, size_t *col)
{
    size_t tab;
    while ((tab = from + SIDE_TAB - from % SIDE_TAB) <= to) {
        if (!diff_put(d, "\t", 1))
            return false;
        from = tab;
    }
    for (; from < to; from++)
        if (!diff_put(d, " ", 1))
            return false;
    *col = to;
    return true;
}

/* One half: the line's characters that fit before column bound, tabs
 * written as tabs while they fit; *col is where the output ended. */
static bool
side_half(diff_run *d, const char *p, size_t n, size_t indent, size_t bound,
          size_t *col)
{
    size_t in = 0, out = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c == '\t') {
            size_t spaces = SIDE_TAB - in % SIDE_TAB;
            if (in == out) {
                size_t stop = out + spaces;
                if (stop < bound) {
                    out = stop;
                    if (!diff_put(d, "\t", 1))
                        return false;
                }
            }
            in += spaces;
        } else if (c == '\r') {
            size_t ignored;
            if (!diff_put(d, "\r", 1) || !side_pad(d, 0, indent, &ignored))
                return false;
            in = out = 0;
        } else if (c == '\b') {
            if (in != 0 && --in < bound) {
                if (out <= in) {
                    for (; out < in; out++)
                        if (!diff_put(d, " ", 1))
                            return false;
                } else {
                    out = in;
                    if (!diff_put(d, "\b", 1))
                        return false;
                }
            }
        } else if (c < 0x20 || c == 0x7f || (c & 0xc0) == 0x80) {
            // No column of its own: control bytes, UTF-8 continuations.
            if ((c & 0xc0) == 0x80 ? in <= bound && out == in : in < bound)
                if (!diff_put(d, p + i, 1))
                    return false;
        } else if (in++ < bound) {
            out = in;
            if (!diff_put(d, p + i, 1))
                return false;
        }
    }
    *col = out;
    return true;
}

/* A row: the left line (or none), the gutter mark, the right line. */
static bool
side_row(diff_run *d, const diff_file *f, long l, char sep, long r)
{
    size_t w = d->dr_width;
    size_t off = (w + SIDE_TAB + SIDE_GUTTER) / (2 * SIDE_TAB) * SIDE_TAB;
    size_t hw = off > SIDE_GUTTER ? off - SIDE_GUTTER : 0;
    if (w > off && w - off < hw)
        hw = w - off;
    if (w <= off)
        hw = 0;
    size_t c2o = hw > 0 ? off : w;
    size_t col = 0, len;
    bool nl = false;
    if (l >= 0) {
        const char *p = diff_line(&f[0], (size_t)l, &len);
        nl |= !(f[0].df_noeol && (size_t)l + 1 == f[0].df_nlines);
        if (!side_half(d, p, len, 0, hw, &col))
            return false;
    }
    bool rnl = r >= 0 && !(f[1].df_noeol && (size_t)r + 1 == f[1].df_nlines);
    if (sep != ' ') {
        if (!side_pad(d, col, (hw + c2o - 1) / 2, &col))
            return false;
        col++;
        if (sep == '|' && nl != rnl)
            sep = nl ? '/' : '\\';
        if (!diff_put(d, &sep, 1))
            return false;
    }
    if (r >= 0) {
        nl |= rnl;
        const char *p = diff_line(&f[1], (size_t)r, &len);
        if (len > 0 && (!side_pad(d, col, c2o, &col) ||
                        !side_half(d, p, len, col, hw, &col)))
            return false;
    }
    return !nl || diff_put(d, "\n", 1);
}

bool
diff_print_side(diff_run *d, diff_file *f, const diff_change *c, size_t n)
{
    size_t i0 = 0, i1 = 0;
    for (size_t k = 0; k <= n; k++) {
        size_t to0 = k < n ? c[k].dc_l0 : f[0].df_nlines;
        for (; i0 < to0; i0++, i1++)
            if (!d->dr_no_common && !side_row(d, f, (long)i0, ' ', (long)i1))
                return false;
        if (k == n)
            break;
        size_t n0 = c[k].dc_n0, n1 = c[k].dc_n1;
        for (size_t m = 0; m < n0 || m < n1; m++) {
            char sep = m < n0 && m < n1 ? '|' : m < n0 ? '<' : '>';
            if (!side_row(d, f, m < n0 ? (long)(i0 + m) : -1, sep,
                          m < n1 ? (long)(i1 + m) : -1))
                return false;
        }
        i0 += n0;
        i1 += n1;
    }
    return true;
}
