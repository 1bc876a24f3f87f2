/* SPDX-License-Identifier: Apache-2.0 */
/* ls's output formats as GNU coreutils 9.1 writes them when standard
 * output is not a terminal: one per line, -l, -C, -x, -m; -i, -s, -h,
 * the indicators, the quoting styles and the time styles. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "box_alloc.h"
#include "cmd_ls.h"
#include "cmd_mode.h"
#include "cmd_size.h"
#include "sh_gopt.h"
#include "sh_ids.h"

#define LS_OUT_FLUSH (64u * 1024u)
#define LS_SIX_MONTHS (31556952 / 2) // GNU: half a Gregorian year, seconds
#define LS_MIN_COL 3                 // GNU's narrowest column (name + 2)
#define LS_TAB 8                     // GNU's default tab stops (-T 8)
#define LS_FIELD 64                  // one -l field, formatted

bool
ls_out_flush(ls_out *out)
{
    sh_ctx *cx = out->lw_cx;
    int rc = SH_IO_OK;
    if (out->lw_buf.b_len > 0)
        rc = sh_write(cx, 1, out->lw_buf.b_data, out->lw_buf.b_len);
    box_buf_truncate(&out->lw_buf, 0);
    if (rc == SH_IO_OK)
        return true;
    // A reader gone or the output spent ends quietly (the write set the
    // flow); a bad fd 1 is reported once.
    out->lw_status = cx->cx_flow == SH_FLOW_NONE
                         ? sh_cmd_err(cx, "ls", 1,
                                      "write error: Bad file descriptor")
                         : cx->cx_status;
    return false;
}

bool
ls_out_put(ls_out *out, box_err e)
{
    if (e != BOX_OK) {
        out->lw_status = sh_cmd_err(out->lw_cx, "ls", 1, "out of memory");
        return false;
    }
    return out->lw_buf.b_len < LS_OUT_FLUSH || ls_out_flush(out);
}

/* ---- names ----------------------------------------------------------- */

/* C's escape for c, or 0 when it has none. */
static char
ls_c_escape(unsigned char c)
{
    switch (c) {
    case '\a': return 'a';
    case '\b': return 'b';
    case '\f': return 'f';
    case '\n': return 'n';
    case '\r': return 'r';
    case '\t': return 't';
    case '\v': return 'v';
    case '\\': return '\\';
    default: return 0;
    }
}

/* -b (escape) and -Q (c): C escapes, octal for other controls; -b also
 * escapes a space, -Q a double quote and wraps the name in them. */
static box_err
ls_quote_c(box_buf *b, const char *s, bool c_style)
{
    box_err e = c_style ? box_buf_putc(b, '"') : BOX_OK;
    for (const unsigned char *p = (const unsigned char *)s; *p && e == BOX_OK;
         p++) {
        char esc = ls_c_escape(*p);
        if (esc != 0)
            e = box_buf_printf(b, "\\%c", esc);
        else if (*p < 32 || *p == 127)
            e = box_buf_printf(b, "\\%03o", *p);
        else if ((*p == ' ' && !c_style) || (*p == '"' && c_style))
            e = box_buf_printf(b, "\\%c", *p);
        else
            e = box_buf_putc(b, (char)*p);
    }
    return e == BOX_OK && c_style ? box_buf_putc(b, '"') : e;
}

/* The name as the quoting style shows it. */
static box_err
ls_put_name(box_buf *b, const ls_opts *o, const char *name)
{
    if (o->lo_quote == LS_Q_ESCAPE || o->lo_quote == LS_Q_C)
        return ls_quote_c(b, name, o->lo_quote == LS_Q_C);
    if (o->lo_quote == LS_Q_LITERAL)
        return box_buf_puts(b, name);
    char *q = o->lo_quote == LS_Q_SHELL_ALWAYS ? sh_gquoteaf(name)
                                                : sh_gquotef(name);
    if (q == NULL)
        return BOX_ENOMEM;
    box_err e = box_buf_puts(b, q);
    box_free(q);
    return e;
}

/* Columns a shown name takes: its UTF-8 characters (continuation bytes
 * take none). */
static size_t
ls_width_of(const char *p, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        w += ((unsigned char)p[i] & 0xC0) != 0x80;
    return w;
}

size_t
ls_name_width(const char *s)
{
    return ls_width_of(s, strlen(s));
}

/* The mode the indicator is chosen by: a link's own under -l and -F
 * (GNU marks the link), its target's when ls followed it. */
static char
ls_indicator(const ls_opts *o, const ls_ent *e)
{
    if (o->lo_ind == LS_IND_NONE || !e->le_have_st)
        return 0;
    mode_t m = e->le_st.ks_mode;
    if (S_ISDIR(m))
        return '/';
    if (o->lo_ind == LS_IND_SLASH)
        return 0;
    if (S_ISLNK(m))
        return o->lo_format == LS_FMT_LONG ? 0 : '@';
    if (S_ISFIFO(m))
        return '|';
    if (S_ISSOCK(m))
        return '=';
    if (o->lo_ind == LS_IND_CLASSIFY && S_ISREG(m) && (m & 0111))
        return '*';
    return 0;
}

/* ---- fields ---------------------------------------------------------- */

/* -s and the total: 512-byte blocks shown in KiB (rounded up), or as
 * -h shows bytes. */
static void
ls_blocks(const ls_opts *o, uint64_t blocks, char *out, size_t n)
{
    if (o->lo_human || o->lo_si)
        cmd_size_human(blocks * 512, o->lo_si, out, n);
    else
        snprintf(out, n, "%" PRIu64, (blocks + 1) / 2);
}

int64_t
ls_when(const ls_opts *o, const sh_kernel_stat *st, long *ns)
{
    switch (o->lo_time) {
    case LS_TIME_ATIME: *ns = st->ks_atime_ns; return st->ks_atime;
    case LS_TIME_CTIME: *ns = st->ks_ctime_ns; return st->ks_ctime;
    default: *ns = st->ks_mtime_ns; return st->ks_mtime;
    }
}

/* strftime with GNU's %N (nanoseconds) added. */
static void
ls_strftime(const char *fmt, const struct tm *tm, long ns, char *out,
            size_t n)
{
    char f[256];
    size_t k = 0;
    for (const char *p = fmt; *p && k + 10 < sizeof f; p++) {
        if (p[0] == '%' && p[1] == 'N') {
            k += (size_t)snprintf(f + k, sizeof f - k, "%09ld", ns);
            p++;
        } else if (p[0] == '%' && p[1] == '%') {
            f[k++] = *p++;
            f[k++] = *p;
        } else {
            f[k++] = *p;
        }
    }
    f[k] = '\0';
    if (strftime(out, n, f, tm) == 0)
        out[0] = '\0';
}

/* The date column in the --time-style chosen (the locale's: "%b %e %H:%M"
 * within the last six months, else "%b %e  %Y"). */
static void
ls_date(const ls_opts *o, const ls_out *out, const sh_kernel_stat *st,
        char *buf, size_t n)
{
    long ns;
    int64_t t = ls_when(o, st, &ns);
    time_t tt = (time_t)t;
    struct tm tm;
    if (localtime_r(&tt, &tm) == NULL) {
        snprintf(buf, n, "%" PRId64, t);
        return;
    }
    // A file that seems to be from the future may have been made since
    // ls read the clock: GNU reads it again then (CI saw `touch f; ls -l`
    // within one second show the year).
    int64_t now = out->lw_now;
    if (t > now) {
        struct timespec ts;
        if (clock_gettime(CLOCK_REALTIME, &ts) == 0)
            now = (int64_t)ts.tv_sec;
    }
    bool recent = t <= now && now - t < LS_SIX_MONTHS;
    const char *style = o->lo_time_style;
    if (style != NULL && strncmp(style, "posix-", 6) == 0)
        style = NULL; // the C locale's own format
    if (style == NULL || strcmp(style, "locale") == 0) {
        ls_strftime(recent ? "%b %e %H:%M" : "%b %e  %Y", &tm, ns, buf, n);
    } else if (strcmp(style, "full-iso") == 0) {
        ls_strftime("%Y-%m-%d %H:%M:%S.%N %z", &tm, ns, buf, n);
    } else if (strcmp(style, "long-iso") == 0) {
        ls_strftime("%Y-%m-%d %H:%M", &tm, ns, buf, n);
    } else if (strcmp(style, "iso") == 0) {
        ls_strftime(recent ? "%m-%d %H:%M" : "%Y-%m-%d ", &tm, ns, buf, n);
    } else { // "+FORMAT" or "+OLD\nRECENT" (checked when parsed)
        char fmt[256];
        snprintf(fmt, sizeof fmt, "%s", style + 1);
        char *nl = strchr(fmt, '\n');
        if (nl != NULL) {
            *nl = '\0';
            ls_strftime(recent ? nl + 1 : fmt, &tm, ns, buf, n);
        } else {
            ls_strftime(fmt, &tm, ns, buf, n);
        }
    }
}

/* The text of each -l field of one entry. */
typedef struct ls_long {
    char ll_inode[LS_FIELD], ll_blocks[LS_FIELD];
    char ll_mode[11];
    char ll_nlink[LS_FIELD];
    char ll_owner[LS_FIELD], ll_group[LS_FIELD];
    char ll_size[LS_FIELD]; // or a device's "MAJ, MIN" (ll_dev)
    bool ll_dev;
    char ll_major[LS_FIELD], ll_minor[LS_FIELD];
    char ll_date[LS_FIELD * 2];
} ls_long;

static void
ls_id(char *out, size_t n, uint32_t id, const char *name, bool numeric)
{
    if (name != NULL && !numeric)
        snprintf(out, n, "%s", name);
    else
        snprintf(out, n, "%" PRIu32, id);
}

static void
ls_fields(const ls_opts *o, const ls_out *out, const ls_ent *e, ls_long *l)
{
    const sh_kernel_stat *st = &e->le_st;
    memset(l, 0, sizeof *l);
    if (!e->le_have_st) {
        snprintf(l->ll_inode, sizeof l->ll_inode, "?");
        snprintf(l->ll_blocks, sizeof l->ll_blocks, "?");
        return;
    }
    snprintf(l->ll_inode, sizeof l->ll_inode, "%" PRIu64, st->ks_ino);
    ls_blocks(o, st->ks_blocks, l->ll_blocks, sizeof l->ll_blocks);
    if (o->lo_format != LS_FMT_LONG)
        return;
    cmd_mode_ls(st->ks_mode, l->ll_mode);
    snprintf(l->ll_nlink, sizeof l->ll_nlink, "%" PRIu64, st->ks_nlink);
    ls_id(l->ll_owner, sizeof l->ll_owner, st->ks_uid,
          sh_ids_user(st->ks_uid), o->lo_numeric);
    ls_id(l->ll_group, sizeof l->ll_group, st->ks_gid,
          sh_ids_group(st->ks_gid), o->lo_numeric);
    if (S_ISCHR(st->ks_mode) || S_ISBLK(st->ks_mode)) {
        l->ll_dev = true;
        snprintf(l->ll_major, sizeof l->ll_major, "%u",
                 major((dev_t)st->ks_rdev));
        snprintf(l->ll_minor, sizeof l->ll_minor, "%u",
                 minor((dev_t)st->ks_rdev));
    } else if (o->lo_human || o->lo_si) {
        cmd_size_human(st->ks_size, o->lo_si, l->ll_size, sizeof l->ll_size);
    } else {
        snprintf(l->ll_size, sizeof l->ll_size, "%" PRIu64, st->ks_size);
    }
    ls_date(o, out, st, l->ll_date, sizeof l->ll_date);
}

/* The widest of each column over a block. */
typedef struct ls_widths {
    int lx_inode, lx_blocks, lx_nlink, lx_owner, lx_group, lx_size;
    int lx_major, lx_minor;
} ls_widths;

static void
ls_widen(int *w, const char *s)
{
    int n = (int)strlen(s);
    if (n > *w)
        *w = n;
}

static void
ls_measure(const ls_long *l, size_t n, ls_widths *w)
{
    memset(w, 0, sizeof *w);
    for (size_t i = 0; i < n; i++) {
        ls_widen(&w->lx_inode, l[i].ll_inode);
        ls_widen(&w->lx_blocks, l[i].ll_blocks);
        ls_widen(&w->lx_nlink, l[i].ll_nlink);
        ls_widen(&w->lx_owner, l[i].ll_owner);
        ls_widen(&w->lx_group, l[i].ll_group);
        if (l[i].ll_dev) {
            ls_widen(&w->lx_major, l[i].ll_major);
            ls_widen(&w->lx_minor, l[i].ll_minor);
        } else {
            ls_widen(&w->lx_size, l[i].ll_size);
        }
    }
    // A device's "MAJ, MIN" shares the size column.
    if (w->lx_major > 0 && w->lx_major + 2 + w->lx_minor > w->lx_size)
        w->lx_size = w->lx_major + 2 + w->lx_minor;
    else if (w->lx_major > 0)
        w->lx_major = w->lx_size - 2 - w->lx_minor;
}

/* ---- one entry --------------------------------------------------------- */

/* The inode and block prefixes, the name and its indicator; *cols is
 * how many columns they took. */
static box_err
ls_put_frills(box_buf *b, const ls_opts *o, const ls_ent *e,
              const ls_long *l, const ls_widths *w, size_t *cols)
{
    size_t start = b->b_len;
    bool pad = o->lo_format != LS_FMT_COMMAS;
    box_err r = BOX_OK;
    if (o->lo_inode)
        r = box_buf_printf(b, "%*s ", pad ? w->lx_inode : 0, l->ll_inode);
    if (r == BOX_OK && o->lo_blocks)
        r = box_buf_printf(b, "%*s ", pad ? w->lx_blocks : 0, l->ll_blocks);
    if (r == BOX_OK)
        r = ls_put_name(b, o, e->le_name);
    char ind = ls_indicator(o, e);
    if (r == BOX_OK && ind != 0)
        r = box_buf_putc(b, ind);
    if (r == BOX_OK)
        *cols = ls_width_of(b->b_data + start, b->b_len - start);
    return r;
}

static box_err
ls_put_long(box_buf *b, const ls_opts *o, const ls_ent *e, const ls_long *l,
            const ls_widths *w)
{
    size_t cols;
    if (!e->le_have_st) // a detail GNU could not get: the name alone
        return ls_put_frills(b, o, e, l, w, &cols);
    box_err r = BOX_OK;
    if (o->lo_inode)
        r = box_buf_printf(b, "%*s ", w->lx_inode, l->ll_inode);
    if (r == BOX_OK && o->lo_blocks)
        r = box_buf_printf(b, "%*s ", w->lx_blocks, l->ll_blocks);
    if (r == BOX_OK)
        r = box_buf_printf(b, "%s %*s ", l->ll_mode, w->lx_nlink, l->ll_nlink);
    if (r == BOX_OK && o->lo_owner)
        r = box_buf_printf(b, "%-*s ", w->lx_owner, l->ll_owner);
    if (r == BOX_OK && o->lo_group)
        r = box_buf_printf(b, "%-*s ", w->lx_group, l->ll_group);
    if (r == BOX_OK && l->ll_dev)
        r = box_buf_printf(b, "%*s, %*s ", w->lx_major, l->ll_major,
                           w->lx_minor, l->ll_minor);
    else if (r == BOX_OK)
        r = box_buf_printf(b, "%*s ", w->lx_size, l->ll_size);
    if (r == BOX_OK)
        r = box_buf_printf(b, "%s ", l->ll_date);
    if (r == BOX_OK)
        r = ls_put_name(b, o, e->le_name);
    if (r == BOX_OK && e->le_link != NULL) {
        r = box_buf_puts(b, " -> ");
        if (r == BOX_OK)
            r = ls_put_name(b, o, e->le_link);
        // -F marks the target by its own type (known when it was stat'd).
        if (r == BOX_OK && o->lo_ind != LS_IND_NONE && e->le_link_mode != 0) {
            ls_ent t = {.le_have_st = true, .le_st = {.ks_mode = e->le_link_mode}};
            char ind = ls_indicator(o, &t);
            if (ind != 0)
                r = box_buf_putc(b, ind);
        }
    } else if (r == BOX_OK) {
        char ind = ls_indicator(o, e);
        if (ind != 0)
            r = box_buf_putc(b, ind);
    }
    return r;
}

/* GNU's indent: tabs where a tab stop is passed, then spaces. */
static box_err
ls_indent(box_buf *b, const ls_opts *o, size_t from, size_t to)
{
    box_err r = BOX_OK;
    while (from < to && r == BOX_OK) {
        if (!o->lo_no_tabs && to / LS_TAB > (from + 1) / LS_TAB) {
            r = box_buf_putc(b, '\t');
            from += LS_TAB - from % LS_TAB;
        } else {
            r = box_buf_putc(b, ' ');
            from++;
        }
    }
    return r;
}

/* ---- a block ----------------------------------------------------------- */

/* The widest layout of -C (by columns) or -x (across) that fits the line
 * width, as GNU finds it; *cols gets its column count, colw[] the width
 * of each column (name + 2, the last without). */
static size_t
ls_layout(const ls_opts *o, const size_t *len, size_t n, size_t *colw)
{
    size_t line = o->lo_width, max_cols = line / LS_MIN_COL;
    if (max_cols == 0)
        max_cols = 1;
    if (max_cols > n)
        max_cols = n;
    bool by_cols = o->lo_format == LS_FMT_COLS;
    size_t best = 1;
    for (size_t c = max_cols; c > 1; c--) {
        size_t rows = (n + c - 1) / c, total = 0;
        bool fits = true;
        for (size_t k = 0; k < c; k++)
            colw[k] = LS_MIN_COL;
        for (size_t i = 0; i < n; i++) {
            size_t k = by_cols ? i / rows : i % c;
            size_t real = len[i] + (k == c - 1 ? 0 : 2);
            if (colw[k] < real)
                colw[k] = real;
        }
        for (size_t k = 0; k < c; k++)
            total += colw[k];
        fits = total < line;
        if (fits) {
            best = c;
            break;
        }
    }
    if (best == 1) {
        colw[0] = 0;
        for (size_t i = 0; i < n; i++)
            colw[0] = len[i] > colw[0] ? len[i] : colw[0];
    }
    return best;
}

/* -C, -x: each name's frills formatted once, then laid out. */
static bool
ls_put_grid(ls_out *out, const ls_opts *o, const ls_ent *v, size_t n,
            const ls_long *l, const ls_widths *w)
{
    box_buf *b = &out->lw_buf;
    box_buf names;
    box_buf_init(&names, (size_t)1 << 30);
    size_t *len = box_calloc(n, sizeof *len), *off = box_calloc(n + 1, sizeof *off);
    size_t *colw = box_calloc(n, sizeof *colw);
    box_err r = len && off && colw ? BOX_OK : BOX_ENOMEM;
    for (size_t i = 0; i < n && r == BOX_OK; i++) {
        off[i] = names.b_len;
        r = ls_put_frills(&names, o, &v[i], &l[i], w, &len[i]);
    }
    off[n] = names.b_len;
    size_t cols = r == BOX_OK ? ls_layout(o, len, n, colw) : 1;
    size_t rows = (n + cols - 1) / cols;
    bool by_cols = o->lo_format == LS_FMT_COLS;
    bool ok = true;
    for (size_t row = 0; row < rows && r == BOX_OK && ok; row++) {
        size_t pos = 0;
        for (size_t k = 0; k < cols; k++) {
            size_t i = by_cols ? row + k * rows : row * cols + k;
            if (i >= n)
                break;
            if (k > 0)
                r = ls_indent(b, o, pos + len[i - (by_cols ? rows : 1)],
                              pos + colw[k - 1]);
            if (k > 0)
                pos += colw[k - 1];
            if (r == BOX_OK)
                r = box_buf_append(b, names.b_data + off[i], off[i + 1] - off[i]);
        }
        if (r == BOX_OK)
            r = box_buf_putc(b, '\n');
        ok = r != BOX_OK || ls_out_put(out, BOX_OK);
    }
    box_buf_reset(&names);
    box_free(len);
    box_free(off);
    box_free(colw);
    return ok && ls_out_put(out, r);
}

/* -m: "a, b, c", a new line before a name that would reach the width. */
static bool
ls_put_commas(ls_out *out, const ls_opts *o, const ls_ent *v, size_t n,
              const ls_long *l, const ls_widths *w)
{
    box_buf *b = &out->lw_buf, one;
    box_buf_init(&one, (size_t)1 << 20);
    size_t pos = 0;
    box_err r = BOX_OK;
    for (size_t i = 0; i < n && r == BOX_OK; i++) {
        size_t len;
        box_buf_truncate(&one, 0);
        r = ls_put_frills(&one, o, &v[i], &l[i], w, &len);
        if (r == BOX_OK && i > 0) {
            bool fits = pos + len + 2 < o->lo_width;
            r = box_buf_puts(b, fits ? ", " : ",\n");
            pos = fits ? pos + 2 : 0;
        }
        if (r == BOX_OK)
            r = box_buf_append(b, one.b_data, one.b_len);
        pos += len;
        if (r == BOX_OK && !ls_out_put(out, BOX_OK)) {
            box_buf_reset(&one);
            return false;
        }
    }
    box_buf_reset(&one);
    if (r == BOX_OK && n > 0)
        r = box_buf_putc(b, '\n');
    return ls_out_put(out, r);
}

bool
ls_fmt_block(ls_out *out, const ls_opts *o, const ls_ent *v, size_t n,
             bool total)
{
    ls_long *l = n > 0 ? box_calloc(n, sizeof *l) : NULL;
    if (n > 0 && l == NULL)
        return ls_out_put(out, BOX_ENOMEM);
    uint64_t blocks = 0;
    for (size_t i = 0; i < n; i++) {
        ls_fields(o, out, &v[i], &l[i]);
        if (v[i].le_have_st)
            blocks += v[i].le_st.ks_blocks;
    }
    ls_widths w;
    ls_measure(l, n, &w);
    bool ok = true;
    if (total && (o->lo_format == LS_FMT_LONG || o->lo_blocks)) {
        char t[LS_FIELD];
        ls_blocks(o, blocks, t, sizeof t);
        ok = ls_out_put(out, box_buf_printf(&out->lw_buf, "total %s\n", t));
    }
    if (ok && (o->lo_format == LS_FMT_COLS || o->lo_format == LS_FMT_ACROSS)) {
        ok = n == 0 || ls_put_grid(out, o, v, n, l, &w);
    } else if (ok && o->lo_format == LS_FMT_COMMAS) {
        ok = ls_put_commas(out, o, v, n, l, &w);
    } else {
        for (size_t i = 0; i < n && ok; i++) {
            size_t cols;
            box_err r = o->lo_format == LS_FMT_LONG
                            ? ls_put_long(&out->lw_buf, o, &v[i], &l[i], &w)
                            : ls_put_frills(&out->lw_buf, o, &v[i], &l[i], &w,
                                            &cols);
            if (r == BOX_OK)
                r = box_buf_putc(&out->lw_buf, '\n');
            ok = ls_out_put(out, r);
        }
    }
    box_free(l);
    return ok;
}
