/* SPDX-License-Identifier: Apache-2.0 */
/* column [-tx] [-c WIDTH] [-s SEP] [-o SEP] [-N NAMES] [-R COLS] [-d] [-L]
 * [FILE]...: util-linux 2.38 (Debian's bsdextrautils) in C.UTF-8: lists
 * in columns filled down (or across with -x), or tables (-t). The tree,
 * JSON and per-column wrapping options are refused clearly. */
#include <locale.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_glob.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define COL_CHUNK (64u * 1024u)
#define COL_INPUT_MAX (256u << 20) // all input is held: 256 MiB
#define COL_TAB 8

static const sh_gopt column_opts[] = {
    {'t', "table", SH_GARG_NONE},
    {'n', "table-name", SH_GARG_REQ},
    {'O', "table-order", SH_GARG_REQ},
    {'N', "table-columns", SH_GARG_REQ},
    {'l', "table-columns-limit", SH_GARG_REQ},
    {'E', "table-noextreme", SH_GARG_REQ},
    {'d', "table-noheadings", SH_GARG_NONE},
    {'e', "table-header-repeat", SH_GARG_NONE},
    {'H', "table-hide", SH_GARG_REQ},
    {'R', "table-right", SH_GARG_REQ},
    {'T', "table-truncate", SH_GARG_REQ},
    {'W', "table-wrap", SH_GARG_REQ},
    {'L', "keep-empty-lines", SH_GARG_NONE},
    {'J', "json", SH_GARG_NONE},
    {'r', "tree", SH_GARG_REQ},
    {'i', "tree-id", SH_GARG_REQ},
    {'p', "tree-parent", SH_GARG_REQ},
    {'c', "output-width", SH_GARG_REQ},
    {'o', "output-separator", SH_GARG_REQ},
    {'s', "separator", SH_GARG_REQ},
    {'x', "fillrows", SH_GARG_NONE},
    {'h', NULL, SH_GARG_NONE}, // --help and --version: sh_gopt's
    {'V', NULL, SH_GARG_NONE},
    {0},
};

static const char column_help[] =
    "\n"
    "Usage:\n"
    " column [options] [<file>...]\n"
    "\n"
    "Columnate lists.\n"
    "\n"
    "Options:\n"
    " -t, --table                      create a table\n"
    " -n, --table-name <name>          table name for JSON output\n"
    " -O, --table-order <columns>      specify order of output columns\n"
    " -N, --table-columns <names>      comma separated columns names\n"
    " -l, --table-columns-limit <num>  maximal number of input columns\n"
    " -E, --table-noextreme <columns>  don't count long text from the "
    "columns to column width\n"
    " -d, --table-noheadings           don't print header\n"
    " -e, --table-header-repeat        repeat header for each page\n"
    " -H, --table-hide <columns>       don't print the columns\n"
    " -R, --table-right <columns>      right align text in these columns\n"
    " -T, --table-truncate <columns>   truncate text in the columns when "
    "necessary\n"
    " -W, --table-wrap <columns>       wrap text in the columns when "
    "necessary\n"
    " -L, --keep-empty-lines           don't ignore empty lines\n"
    " -J, --json                       use JSON output format for table\n"
    "\n"
    " -r, --tree <column>              column to use tree-like output for "
    "the table\n"
    " -i, --tree-id <column>           line ID to specify child-parent "
    "relation\n"
    " -p, --tree-parent <column>       parent to specify child-parent "
    "relation\n"
    "\n"
    " -c, --output-width <width>       width of output in number of "
    "characters\n"
    " -o, --output-separator <string>  columns separator for table output "
    "(default is two spaces)\n"
    " -s, --separator <string>         possible table delimiters\n"
    " -x, --fillrows                   fill rows before columns\n"
    "\n"
    " -h, --help                       display this help\n"
    " -V, --version                    display version\n"
    "\n"
    "For more details see column(1).\n";

static const sh_gopt_spec column_spec = {
    .gs_cmd = "column",
    .gs_opts = column_opts,
    .gs_fail = 1,
    .gs_help = column_help,
};

/* One input line kept: its text and its display width. */
typedef struct col_ent {
    size_t ce_off, ce_len; // in cr_text
    size_t ce_width;
} col_ent;

typedef struct col_run {
    sh_cmd_run cr_run;
    box_buf cr_text; // all lines, back to back
    col_ent *cr_ents;
    size_t cr_n, cr_cap;
    size_t cr_maxw;
    bool cr_table, cr_rows, cr_keep_empty, cr_noheadings;
    const char *cr_sep;  // -s, or NULL: runs of blanks
    const char *cr_osep; // -o
    const char *cr_names, *cr_right;
    box_buf cr_out;
} col_run;

/* ---- widths (C.UTF-8; a bad byte counts one column) ---- */

static size_t
col_width(const char *p, size_t n)
{
    size_t w = 0;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    for (size_t i = 0; i < n;) {
        wchar_t wc;
        size_t k = mbrtowc(&wc, p + i, n - i, &st);
        if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
            memset(&st, 0, sizeof st);
            w++;
            i++;
            continue;
        }
        int cw = wcwidth(wc);
        if (cw > 0)
            w += (size_t)cw;
        i += k;
    }
    return w;
}

static bool
col_oom(col_run *r)
{
    r->cr_run.cr_status =
        sh_cmd_err(r->cr_run.cr_cx, "column", 1, "out of memory");
    return false;
}

static bool
col_put(col_run *r, const char *p, size_t n)
{
    if (n > 0 && box_buf_append(&r->cr_out, p, n) != BOX_OK)
        return col_oom(r);
    if (r->cr_out.b_len < COL_CHUNK)
        return true;
    bool ok = sh_cmd_emit(&r->cr_run, r->cr_out.b_data, r->cr_out.b_len);
    box_buf_truncate(&r->cr_out, 0);
    return ok;
}

static bool
col_spaces(col_run *r, size_t n)
{
    for (; n > 0; n--)
        if (!col_put(r, " ", 1))
            return false;
    return true;
}

/* ---- input ---- */

/* Keeps one line (empty or blank lines only in a table with -L, as
 * empty rows; ce_len 0). */
static bool
col_keep(col_run *r, const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t'))
        i++;
    bool empty = i == len;
    if (empty && !(r->cr_table && r->cr_keep_empty))
        return true;
    if (r->cr_n == r->cr_cap) {
        size_t cap = r->cr_cap ? r->cr_cap * 2 : 64;
        col_ent *e = box_realloc(r->cr_ents, cap * sizeof *e);
        if (e == NULL)
            return col_oom(r);
        r->cr_ents = e;
        r->cr_cap = cap;
    }
    col_ent *e = &r->cr_ents[r->cr_n++];
    e->ce_off = r->cr_text.b_len;
    e->ce_len = empty ? 0 : len;
    e->ce_width = empty ? 0 : col_width(line, len);
    if (e->ce_width > r->cr_maxw)
        r->cr_maxw = e->ce_width;
    if (e->ce_len > 0 && box_buf_append(&r->cr_text, line, len) != BOX_OK) {
        r->cr_run.cr_status = sh_cmd_err(r->cr_run.cr_cx, "column", 1,
                                         "input too large to hold (limit "
                                         "%u MiB)",
                                         COL_INPUT_MAX >> 20);
        return false;
    }
    return true;
}

static bool
col_body(sh_cmd_run *cr, sh_input *in, const char *name)
{
    (void)name;
    col_run *r = (col_run *)cr;
    const char *line;
    size_t len;
    int rc;
    while ((rc = sh_cmd_line(cr, in, &line, &len)) > 0) {
        if (len > 0 && line[len - 1] == '\n')
            len--;
        if (!col_keep(r, line, len))
            return false;
    }
    return rc == 0;
}

/* Reads the operands (none: stdin). util-linux's column takes "-" as a
 * file name, and goes on after a file it cannot open (status 1). False
 * when the run must stop (*st set). */
static bool
col_inputs(col_run *r, char **ops, int nops, int *st)
{
    sh_ctx *cx = r->cr_run.cr_cx;
    for (int i = 0; i < (nops > 0 ? nops : 1); i++) {
        const char *op = nops > 0 ? ops[i] : NULL;
        const char *path = op != NULL && strcmp(op, "-") == 0 ? "./-" : op;
        int ost = 0;
        sh_input *in = sh_input_open_as(cx, "column", path, op, &ost);
        if (in == NULL) {
            r->cr_run.cr_status = ost;
            if (ost == BOX_STATUS_FAULT) {
                *st = ost;
                return false;
            }
            continue;
        }
        bool go = col_body(&r->cr_run, in, op != NULL ? op : "-");
        sh_input_close(in);
        if (!go) {
            *st = r->cr_run.cr_status;
            return false;
        }
    }
    return true;
}

/* ---- lists ---- */

static const char *
col_text(const col_run *r, size_t i)
{
    return r->cr_text.b_data + r->cr_ents[i].ce_off;
}

/* Tabs from column *at up to the next multiple of 8 past end. */
static bool
col_tabs(col_run *r, size_t *at, size_t end)
{
    for (;;) {
        size_t next = (*at + COL_TAB) & ~(size_t)(COL_TAB - 1);
        if (next > end)
            return true;
        if (!col_put(r, "\t", 1))
            return false;
        *at = next;
    }
}

/* The lists: column width the longest entry rounded up to a tab stop;
 * entries down the columns (or across with -x), tabs between. An entry
 * as wide as the output: one a line. */
static bool
col_list(col_run *r, size_t width)
{
    size_t n = r->cr_n;
    if (n == 0)
        return true;
    if (r->cr_maxw >= width) {
        for (size_t i = 0; i < n; i++)
            if (!col_put(r, col_text(r, i), r->cr_ents[i].ce_len) ||
                !col_put(r, "\n", 1))
                return false;
        return true;
    }
    size_t colw = (r->cr_maxw + COL_TAB) & ~(size_t)(COL_TAB - 1);
    size_t ncols = width / colw;
    if (ncols == 0)
        ncols = 1;
    if (r->cr_rows) {
        size_t at = 0, end = colw, col = 0;
        for (size_t i = 0; i < n; i++) {
            if (!col_put(r, col_text(r, i), r->cr_ents[i].ce_len))
                return false;
            at += r->cr_ents[i].ce_width;
            if (i + 1 == n)
                break;
            if (++col == ncols) {
                at = col = 0;
                end = colw;
                if (!col_put(r, "\n", 1))
                    return false;
            } else {
                if (!col_tabs(r, &at, end))
                    return false;
                end += colw;
            }
        }
        return at == 0 || col_put(r, "\n", 1);
    }
    size_t nrows = n / ncols + (n % ncols != 0);
    for (size_t row = 0; row < nrows; row++) {
        size_t at = 0, end = colw;
        for (size_t base = row, col = 0; col < ncols; col++) {
            if (!col_put(r, col_text(r, base), r->cr_ents[base].ce_len))
                return false;
            at += r->cr_ents[base].ce_width;
            if ((base += nrows) >= n)
                break;
            if (!col_tabs(r, &at, end))
                return false;
            end += colw;
        }
        if (!col_put(r, "\n", 1))
            return false;
    }
    return true;
}

/* ---- tables ---- */

/* One cell: a piece of a line. */
typedef struct col_cell {
    const char *cc_p;
    size_t cc_len, cc_width;
} col_cell;

/* The cells of one line: with -s, every separator character splits
 * (empty cells kept); else runs of blanks, leading and trailing ones
 * dropped. */
static size_t
col_split(const col_run *r, const char *p, size_t len, col_cell *out,
          size_t max)
{
    size_t n = 0;
    if (len == 0)
        return 0;
    if (r->cr_sep != NULL) {
        size_t s = 0;
        for (size_t i = 0; i <= len; i++) {
            if (i < len && strchr(r->cr_sep, p[i]) == NULL)
                continue;
            if (i < len && p[i] == '\0')
                continue;
            if (n < max)
                out[n] = (col_cell){p + s, i - s, 0};
            n++;
            s = i + 1;
        }
        return n;
    }
    size_t i = 0;
    for (;;) {
        while (i < len && (p[i] == ' ' || p[i] == '\t'))
            i++;
        if (i == len)
            return n;
        size_t s = i;
        while (i < len && p[i] != ' ' && p[i] != '\t')
            i++;
        if (n < max)
            out[n] = (col_cell){p + s, i - s, 0};
        n++;
    }
}

/* Splits a comma list into at most max pieces (pointers into a copy the
 * caller frees). */
static char *
col_names(const char *list, char **names, size_t max, size_t *n)
{
    char *copy = box_strdup(list);
    *n = 0;
    if (copy == NULL)
        return NULL;
    char *p = copy;
    for (;;) {
        char *c = strchr(p, ',');
        if (*n < max)
            names[(*n)++] = p;
        if (c == NULL)
            break;
        *c = '\0';
        p = c + 1;
    }
    return copy;
}

/* -R's columns (names of -N or numbers from 1) into right[]; false after
 * util-linux's message for a name it does not know. */
static bool
col_right(col_run *r, char **names, size_t nnames, bool *right, size_t ncols)
{
    char *list[1024];
    size_t n;
    char *copy = col_names(r->cr_right, list, 1024, &n);
    if (copy == NULL)
        return col_oom(r);
    bool ok = true;
    for (size_t i = 0; i < n && ok; i++) {
        char *end;
        unsigned long v = strtoul(list[i], &end, 10);
        if (*list[i] != '\0' && *end == '\0') {
            if (v >= 1 && v <= ncols)
                right[v - 1] = true;
            continue;
        }
        size_t k = 0;
        while (k < nnames && strcmp(names[k], list[i]) != 0)
            k++;
        if (k < nnames) {
            right[k] = true;
            continue;
        }
        r->cr_run.cr_status = sh_cmd_err(r->cr_run.cr_cx, "column", 1,
                                         "undefined column name '%s'", list[i]);
        ok = false;
    }
    box_free(copy);
    return ok;
}

/* One row: each cell padded to its column's width but the last (unless
 * right-aligned), the output separator between. */
static bool
col_row(col_run *r, const col_cell *cells, size_t n, const size_t *width,
        const bool *right, size_t ncols)
{
    size_t osl = strlen(r->cr_osep);
    for (size_t c = 0; c < ncols; c++) {
        const col_cell *x = c < n ? &cells[c] : NULL;
        size_t w = x != NULL ? x->cc_width : 0;
        size_t pad = width[c] > w ? width[c] - w : 0;
        bool last = c + 1 == ncols;
        if (right[c] && !col_spaces(r, pad))
            return false;
        if (x != NULL && !col_put(r, x->cc_p, x->cc_len))
            return false;
        if (!right[c] && !last && !col_spaces(r, pad))
            return false;
        if (!last && !col_put(r, r->cr_osep, osl))
            return false;
    }
    return col_put(r, "\n", 1);
}

static bool
col_table(col_run *r)
{
    char *names[1024];
    size_t nnames = 0;
    char *namebuf = NULL;
    size_t ncols = 0, maxcells = 0;
    size_t *width = NULL;
    bool *right = NULL, ok = false;
    col_cell *cells = NULL, hdr[1024];
    if (r->cr_names != NULL &&
        (namebuf = col_names(r->cr_names, names, 1024, &nnames)) == NULL)
        return col_oom(r);
    ncols = nnames;
    for (size_t i = 0; i < r->cr_n; i++) {
        size_t k = col_split(r, col_text(r, i), r->cr_ents[i].ce_len, NULL, 0);
        if (k > maxcells)
            maxcells = k;
    }
    if (maxcells > ncols)
        ncols = maxcells;
    if (ncols == 0) {
        ok = true;
        goto out;
    }
    width = box_calloc(ncols, sizeof *width);
    right = box_calloc(ncols, sizeof *right);
    cells = box_calloc(maxcells + 1, sizeof *cells);
    if (width == NULL || right == NULL || cells == NULL) {
        col_oom(r);
        goto out;
    }
    bool heading = nnames > 0 && !r->cr_noheadings;
    for (size_t c = 0; heading && c < nnames; c++) {
        hdr[c] = (col_cell){names[c], strlen(names[c]), 0};
        hdr[c].cc_width = col_width(names[c], hdr[c].cc_len);
        if (hdr[c].cc_width > width[c])
            width[c] = hdr[c].cc_width;
    }
    for (size_t i = 0; i < r->cr_n; i++) {
        size_t k =
            col_split(r, col_text(r, i), r->cr_ents[i].ce_len, cells, maxcells);
        for (size_t c = 0; c < k; c++) {
            size_t w = col_width(cells[c].cc_p, cells[c].cc_len);
            if (w > width[c])
                width[c] = w;
        }
    }
    if (r->cr_right != NULL && !col_right(r, names, nnames, right, ncols))
        goto out;
    if (heading && !col_row(r, hdr, nnames, width, right, ncols))
        goto out;
    for (size_t i = 0; i < r->cr_n; i++) {
        size_t k =
            col_split(r, col_text(r, i), r->cr_ents[i].ce_len, cells, maxcells);
        for (size_t c = 0; c < k; c++)
            cells[c].cc_width = col_width(cells[c].cc_p, cells[c].cc_len);
        if (!col_row(r, cells, k, width, right, ncols))
            goto out;
    }
    ok = true;
out:
    box_free(namebuf);
    box_free(width);
    box_free(right);
    box_free(cells);
    return ok;
}

/* ---- the command ---- */

/* -c: util-linux's strtou32 check. */
static int
col_output_width(sh_ctx *cx, const char *arg, size_t *width)
{
    char *end;
    const char *p = arg;
    while (*p == ' ' || *p == '\t')
        p++;
    unsigned long long v = *p == '-' ? 0 : strtoull(p, &end, 10);
    if (*p == '-' || *arg == '\0' || *end != '\0' || end == p || v > UINT32_MAX)
        return sh_cmd_err(cx, "column", 1, "invalid columns argument: '%s'",
                          arg);
    *width = (size_t)v;
    return 0;
}

int
sh_cmd_column(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    col_run *r = box_calloc(1, sizeof *r);
    if (r == NULL)
        return sh_cmd_err(cx, "column", 1, "out of memory");
    r->cr_run = (sh_cmd_run){.cr_cx = cx, .cr_cmd = "column"};
    r->cr_osep = "  ";
    box_buf_init(&r->cr_text, COL_INPUT_MAX);
    box_buf_init(&r->cr_out, COL_CHUNK * 2);
    size_t width = 80;
    const char *cols = sh_var_get(cx->cx_st, "COLUMNS");
    if (cols != NULL && *cols != '\0') {
        char *end;
        long w = strtol(cols, &end, 10);
        if (*end == '\0' && w > 0)
            width = (size_t)w;
    }
    locale_t u8 = sh_glob_locale(), old = (locale_t)0;
    if (u8 != (locale_t)0)
        old = uselocale(u8);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &column_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 't':
            r->cr_table = true;
            break;
        case 'x':
            r->cr_rows = true;
            break;
        case 'd':
            r->cr_noheadings = true;
            break;
        case 'L':
            r->cr_keep_empty = true;
            break;
        case 'N':
            r->cr_names = arg;
            break;
        case 'R':
            r->cr_right = arg;
            break;
        case 's':
            r->cr_sep = arg;
            break;
        case 'o':
            r->cr_osep = arg;
            break;
        case 'c':
            if ((st = col_output_width(cx, arg, &width)) != 0)
                goto out;
            break;
        case 'h':
            st =
                sh_write(cx, 1, column_help, sizeof column_help - 1) == SH_IO_OK
                    ? 0
                    : 1;
            goto out;
        case 'V':
            st = sh_puts(cx, 1, "column from util-linux 2.38.1\n") == SH_IO_OK
                     ? 0
                     : 1;
            goto out;
        default:
            st = sh_cmd_err(cx, "column", 1,
                            "option -%c is not supported by the box's "
                            "column (tables: -t -s -o -N -R -d -L)",
                            id);
            goto out;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (r->cr_table && r->cr_rows) {
        st = sh_cmd_err(cx, "column", 1,
                        "mutually exclusive arguments: --table --fillrows");
        goto out;
    }
    if (r->cr_sep != NULL && *r->cr_sep == '\0')
        r->cr_sep = NULL;
    if (!col_inputs(r, it.gi_ops, it.gi_nops, &st))
        goto out;
    bool ok = r->cr_table ? col_table(r) : col_list(r, width);
    if (ok)
        ok = sh_cmd_emit(&r->cr_run, r->cr_out.b_data, r->cr_out.b_len);
    // util-linux: a table that got a line ends well whatever failed
    // before; lists keep the failure.
    if (ok && r->cr_table && r->cr_n > 0)
        r->cr_run.cr_status = 0;
    st = r->cr_run.cr_status;
out:
    if (old != (locale_t)0)
        uselocale(old);
    box_buf_reset(&r->cr_text);
    box_buf_reset(&r->cr_out);
    box_free(r->cr_ents);
    box_free(r);
    sh_gopt_free(&it);
    return st;
}
