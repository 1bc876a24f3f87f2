/* SPDX-License-Identifier: Apache-2.0 */
/* diff of two files: probe, load, compare, report (the outcome 0 same,
 * 1 different, 2 trouble), and the walk over two directories. */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "box_alloc.h"
#include "cmd_diff.h"
#include "sh_gopt.h"

char *
diff_cquote(const char *s)
{
    bool need = false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        need |= *p == ' ' || *p == '"' || *p == '\\' || *p < 0x20 ||
                *p == 0x7f;
    if (!need)
        return box_strdup(s);
    box_buf b;
    box_buf_init(&b, SIZE_MAX);
    box_err e = box_buf_putc(&b, '"');
    for (const unsigned char *p = (const unsigned char *)s; *p && e == BOX_OK;
         p++) {
        static const char from[] = "\a\b\t\n\v\f\r\"\\";
        static const char to[] = "abtnvfr\"\\";
        const char *esc = *p != 0 ? strchr(from, *p) : NULL;
        if (esc != NULL)
            e = box_buf_printf(&b, "\\%c", to[esc - from]);
        else if (*p < 0x20 || *p == 0x7f)
            e = box_buf_printf(&b, "\\%03o", *p);
        else
            e = box_buf_putc(&b, (char)*p);
    }
    if (e == BOX_OK)
        e = box_buf_putc(&b, '"');
    if (e != BOX_OK) {
        box_buf_reset(&b);
        return NULL;
    }
    return box_buf_take(&b);
}

/* GNU's names for the kinds of file in "File A is a … while …". */
static const char *
file_kind(const sh_kernel_stat *st)
{
    mode_t m = st->ks_mode;
    return S_ISREG(m)    ? (st->ks_size == 0 ? "regular empty file"
                                             : "regular file")
           : S_ISDIR(m)  ? "directory"
           : S_ISLNK(m)  ? "symbolic link"
           : S_ISFIFO(m) ? "fifo"
           : S_ISSOCK(m) ? "socket"
           : S_ISCHR(m)  ? "character special file"
           : S_ISBLK(m)  ? "block special file"
                         : "weird file";
}

/* Stats path (following links): 0, else the errno (a denial reads as
 * ENOENT, with *denied set); -1 after a policy fault (status set). */
static int
probe(diff_run *d, const char *path, sh_kernel_stat *st, bool *denied)
{
    sh_ctx *cx = d->dr_run.cr_cx;
    sh_kernel_result r = {0};
    int rc = sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, path, st, &r);
    *denied = r.kr_outcome == SH_KR_DENIED;
    if (r.kr_outcome == SH_KR_FAULT) {
        d->dr_run.cr_status = sh_fs_fail(cx, "diff", path, &r);
        d->dr_stop = true;
        return -1;
    }
    sh_kernel_result_clear(&r);
    return rc;
}

/* The changes as a list of groups from the two change flag arrays. */
static box_err
build_changes(const char *c0, size_t n0, const char *c1, size_t n1,
              diff_change **out, size_t *nout)
{
    size_t cap = 0, n = 0;
    diff_change *v = NULL;
    size_t i0 = 0, i1 = 0;
    while (i0 < n0 || i1 < n1) {
        if ((i0 < n0 && c0[i0]) || (i1 < n1 && c1[i1])) {
            size_t l0 = i0, l1 = i1;
            while (i0 < n0 && c0[i0])
                i0++;
            while (i1 < n1 && c1[i1])
                i1++;
            if (n == cap) {
                cap = cap ? cap * 2 : 16;
                diff_change *nv = box_realloc(v, cap * sizeof *v);
                if (nv == NULL) {
                    box_free(v);
                    return BOX_ENOMEM;
                }
                v = nv;
            }
            v[n++] = (diff_change){l0, i0 - l0, l1, i1 - l1, false};
        }
        i0++;
        i1++;
    }
    *out = v;
    *nout = n;
    return BOX_OK;
}

/* "Binary files A and B differ", or -q's line: the outcome 1. */
static int
say_differ(diff_run *d, const diff_file *f, bool binary)
{
    if (!diff_putf(d, "%s %s and %s differ\n",
                   binary && !d->dr_brief ? "Binary files" : "Files",
                   f[0].df_shown, f[1].df_shown))
        return 2;
    return 1;
}

/* The lines of two loaded text files compared and printed: 0 or 1
 * (2 when out of memory, or the call is over). */
static int
compare_text(diff_run *d, diff_file *f)
{
    sh_ctx *cx = d->dr_run.cr_cx;
    int *eq[2] = {NULL, NULL};
    char *chg = NULL;
    diff_change *c = NULL;
    size_t nc = 0;
    int st = 2;
    box_err e = diff_classes(d, f, eq);
    if (e == BOX_OK) {
        chg = box_alloc(f[0].df_nlines + f[1].df_nlines + 1);
        e = chg == NULL ? BOX_ENOMEM : BOX_OK;
    }
    size_t horizon = d->dr_style == DIFF_NORMAL ? 0 : (size_t)d->dr_context;
    if (e == BOX_OK)
        e = diff_compare(eq[0], f[0].df_nlines, eq[1], f[1].df_nlines,
                         horizon, d->dr_minimal, chg, chg + f[0].df_nlines,
                         cx);
    if (e == BOX_OK)
        e = build_changes(chg, f[0].df_nlines, chg + f[0].df_nlines,
                          f[1].df_nlines, &c, &nc);
    if (e == BOX_ECANCELED) {
        d->dr_run.cr_status = cx->cx_status;
        d->dr_stop = true;
        goto out;
    }
    if (e != BOX_OK) {
        sh_cmd_err(cx, "diff", 2, "memory exhausted");
        goto out;
    }
    diff_mark_blank(d, f, c, nc);
    bool any = false;
    for (size_t k = 0; k < nc; k++)
        any |= !c[k].dc_ignore;
    st = any ? 1 : 0;
    if (!any && d->dr_style == DIFF_SIDE && !d->dr_brief &&
        !diff_print_side(d, f, c, nc))
        st = 2; // -y shows the common lines of files that agree too
    if (!any)
        goto out;
    if (d->dr_brief) {
        st = say_differ(d, f, false);
        goto out;
    }
    if (d->dr_indir) {
        char *q0 = diff_cquote(f[0].df_shown),
             *q1 = diff_cquote(f[1].df_shown);
        bool ok = q0 != NULL && q1 != NULL &&
                  diff_putf(d, "diff%s %s %s\n", d->dr_switches, q0, q1);
        box_free(q0);
        box_free(q1);
        if (!ok) {
            st = 2;
            goto out;
        }
    }
    if (!diff_print(d, f, c, nc))
        st = 2;
out:
    box_free(eq[0]);
    box_free(eq[1]);
    box_free(chg);
    box_free(c);
    return st;
}

static bool
same_bytes(const diff_file *f)
{
    return f[0].df_data.b_len == f[1].df_data.b_len &&
           (f[0].df_data.b_len == 0 ||
            memcmp(f[0].df_data.b_data, f[1].df_data.b_data,
                   f[0].df_data.b_len) == 0);
}

/* Two regular files (or stdin) whose names are settled. */
static int
compare_loaded(diff_run *d, const char *p0, const char *p1, diff_file *f)
{
    int st = diff_load(d, &f[0], p0);
    if (st == 0 && !d->dr_stop)
        st = diff_load(d, &f[1], p1);
    if (st != 0 || d->dr_stop)
        return st != 0 ? st : 2;
    bool binary = f[0].df_binary || f[1].df_binary;
    // An ed script has no way to say a last line lacks its newline: GNU
    // warns per file, and the outcome is trouble.
    int ed_trouble = 0;
    for (int k = 0; k < 2 && d->dr_style == DIFF_ED && !binary; k++)
        if (f[k].df_noeol)
            ed_trouble = sh_cmd_err(d->dr_run.cr_cx, "diff", 2,
                                    "%s: No newline at end of file\n",
                                    f[k].df_name);
    if (same_bytes(f)) {
        st = 0;
        if (d->dr_style == DIFF_SIDE && !d->dr_brief &&
            !diff_print_side(d, f, NULL, 0))
            st = 2; // -y shows the common lines of files that agree too
    } else if (binary) {
        st = say_differ(d, f, true);
    } else {
        st = compare_text(d, f);
    }
    if (st == 0 && d->dr_same &&
        !diff_putf(d, "Files %s and %s are identical\n", f[0].df_shown,
                   f[1].df_shown))
        st = 2;
    return ed_trouble > st ? ed_trouble : st;
}

/* dir joined to the last component of file, as GNU names the file
 * compared against a directory operand. */
static char *
join_base(const char *dir, const char *file)
{
    size_t s, n;
    sh_path_last(file, &s, &n);
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    return box_asprintf("%.*s%s%.*s", (int)dl, dir,
                        dl > 0 && dir[dl - 1] == '/' ? "" : "/", (int)n,
                        file + s);
}

/* Reports why path cannot be read (opening it says: gone, denied):
 * the status 2, or the fault's. */
static int
say_unreadable(diff_run *d, const char *path)
{
    diff_file tmp;
    memset(&tmp, 0, sizeof tmp);
    tmp.df_name = path;
    int st = diff_load(d, &tmp, path);
    diff_file_free(&tmp);
    return st != 0 ? st : 2;
}

/* The header time of file k: its mtime, now for stdin, the epoch for an
 * absent file (as GNU shows them). */
static void
file_time(diff_file *f, const sh_kernel_stat *st)
{
    if (f->df_stdin) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        f->df_mtime = ts.tv_sec;
        f->df_mtime_ns = ts.tv_nsec;
    } else if (!f->df_absent) {
        f->df_mtime = st->ks_mtime;
        f->df_mtime_ns = st->ks_mtime_ns;
    }
}

int
diff_files(diff_run *d, const char *p0, const char *p1, bool top)
{
    sh_ctx *cx = d->dr_run.cr_cx;
    const char *p[2] = {p0, p1};
    sh_kernel_stat st[2];
    memset(st, 0, sizeof st);
    bool isdir[2] = {false, false}, gone[2] = {false, false};
    bool in[2] = {false, false}, hidden[2] = {false, false};
    for (int k = 0; k < 2; k++) {
        in[k] = top && strcmp(p[k], "-") == 0;
        if (in[k])
            continue;
        int rc = probe(d, p[k], &st[k], &hidden[k]);
        if (rc < 0)
            return 2;
        isdir[k] = rc == 0 && S_ISDIR(st[k].ks_mode);
        gone[k] = rc != 0;
    }
    if (in[0] && in[1]) // one input read as both: the same
        return d->dr_same && !diff_putf(d, "Files - and - are identical\n")
                   ? 2
                   : 0;
    // -N (--unidirectional-new-file: the first only): a file on one side
    // only is compared with an empty one; never one policy hides.
    bool absent[2];
    for (int k = 0; k < 2; k++)
        absent[k] = gone[k] && !hidden[k] && (!gone[1 - k] || hidden[1 - k]) &&
                    (d->dr_new || (k == 0 && d->dr_new_first));
    int bad = 0;
    for (int k = 0; k < 2; k++)
        if (gone[k] && !absent[k]) {
            int rs = say_unreadable(d, p[k]);
            bad = rs > bad ? rs : bad;
        }
    if (bad != 0)
        return bad;
    if (isdir[0] || isdir[1]) {
        if (in[0] || in[1])
            return sh_cmd_err(cx, "diff", 2,
                              "cannot compare '-' to a directory");
        if ((isdir[0] || absent[0]) && (isdir[1] || absent[1]))
            return diff_dirs(d, p0, p1, absent[0] ? 0 : absent[1] ? 1 : -1);
        if (!top)
            return diff_putf(d, "File %s is a %s while file %s is a %s\n",
                             d->dr_label[0] ? d->dr_label[0] : p0,
                             file_kind(&st[0]),
                             d->dr_label[1] ? d->dr_label[1] : p1,
                             file_kind(&st[1]))
                       ? 1
                       : 2;
        int k = isdir[0] ? 0 : 1;
        char *j = join_base(p[k], p[1 - k]);
        if (j == NULL)
            return sh_cmd_err(cx, "diff", 2, "memory exhausted");
        int rs = k == 0 ? diff_files(d, j, p1, false)
                        : diff_files(d, p0, j, false);
        box_free(j);
        return rs;
    }
    diff_file f[2];
    memset(f, 0, sizeof f);
    for (int k = 0; k < 2; k++) {
        f[k].df_name = p[k];
        f[k].df_shown = d->dr_label[k] != NULL ? d->dr_label[k] : p[k];
        f[k].df_stdin = in[k];
        f[k].df_absent = absent[k];
        file_time(&f[k], &st[k]);
    }
    int rs = compare_loaded(d, p0, p1, f);
    diff_file_free(&f[0]);
    diff_file_free(&f[1]);
    return rs;
}

/* ---- directories ---- */

static int
name_cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool
excluded(const diff_run *d, const char *name)
{
    for (size_t i = 0; i < d->dr_nexclude; i++)
        if (fnmatch(d->dr_exclude[i], name, 0) == 0)
            return true;
    return false;
}

/* The sorted names of directory path, -x ones left out: 0, or 2 after
 * the message. */
static int
list_dir(diff_run *d, const char *path, char ***names, size_t *n)
{
    sh_ctx *cx = d->dr_run.cr_cx;
    sh_kernel_result r = {0};
    if (sh_kernel_list(sh_kern(cx), cx->cx_st->st_cwd, path, names, n, &r) !=
        0) {
        int st = sh_fs_fail(cx, "diff", path, &r);
        if (st != 1)
            d->dr_stop = true;
        return st == 1 ? 2 : st;
    }
    sh_kernel_result_clear(&r);
    size_t w = 0;
    for (size_t i = 0; i < *n; i++) {
        if (excluded(d, (*names)[i]))
            box_free((*names)[i]);
        else
            (*names)[w++] = (*names)[i];
    }
    *n = w;
    qsort(*names, *n, sizeof **names, name_cmp);
    return 0;
}

static char *
join(const char *dir, const char *name)
{
    size_t dl = strlen(dir);
    while (dl > 1 && dir[dl - 1] == '/')
        dl--;
    return box_asprintf("%.*s%s%s", (int)dl, dir,
                        dl > 0 && dir[dl - 1] == '/' ? "" : "/", name);
}

/* One name of the merged listing: in both (k = -1) or only in side k. */
static int
dir_entry(diff_run *d, const char *p0, const char *p1, const char *name,
          int only)
{
    sh_ctx *cx = d->dr_run.cr_cx;
    char *j0 = join(p0, name), *j1 = join(p1, name);
    int st = 0;
    if (j0 == NULL || j1 == NULL) {
        st = sh_cmd_err(cx, "diff", 2, "memory exhausted");
        goto out;
    }
    if (only >= 0) {
        bool may = d->dr_new || (only == 1 && d->dr_new_first);
        if (!may) {
            st = diff_putf(d, "Only in %s: %s\n", only == 0 ? p0 : p1, name)
                     ? 1
                     : 2;
            goto out;
        }
        st = diff_files(d, j0, j1, false);
        goto out;
    }
    sh_kernel_stat s0, s1;
    bool dn;
    int r0 = probe(d, j0, &s0, &dn), r1 = r0 < 0 ? -1 : probe(d, j1, &s1, &dn);
    if (r0 < 0 || r1 < 0) {
        st = 2;
        goto out;
    }
    if (r0 == 0 && r1 == 0 && S_ISDIR(s0.ks_mode) && S_ISDIR(s1.ks_mode) &&
        !d->dr_recursive) {
        st = diff_putf(d, "Common subdirectories: %s and %s\n", j0, j1) ? 0
                                                                        : 2;
        goto out;
    }
    st = diff_files(d, j0, j1, false);
out:
    box_free(j0);
    box_free(j1);
    return st;
}

int
diff_dirs(diff_run *d, const char *p0, const char *p1, int absent)
{
    char **n0 = NULL, **n1 = NULL;
    size_t c0 = 0, c1 = 0;
    int st = absent == 0 ? 0 : list_dir(d, p0, &n0, &c0);
    if (st == 0 && absent != 1)
        st = list_dir(d, p1, &n1, &c1);
    if (st != 0)
        goto out;
    bool was = d->dr_indir;
    d->dr_indir = true;
    size_t i = 0, j = 0;
    while ((i < c0 || j < c1) && !d->dr_stop) {
        int cmp = i >= c0 ? 1 : j >= c1 ? -1 : strcmp(n0[i], n1[j]);
        int rs = dir_entry(d, p0, p1, cmp <= 0 ? n0[i] : n1[j],
                           cmp == 0 ? -1 : cmp < 0 ? 0 : 1);
        st = rs > st ? rs : st;
        i += cmp <= 0;
        j += cmp >= 0;
        if (!sh_cmd_live(&d->dr_run))
            d->dr_stop = true;
    }
    d->dr_indir = was;
out:
    sh_kernel_names_free(n0, c0);
    sh_kernel_names_free(n1, c1);
    return st;
}
