/* SPDX-License-Identifier: Apache-2.0 */
/* ls [-1al] [path...]: names (and -l details) through the kernel. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_internal.h"

#define LS_OUT_FLUSH (64u * 1024u)   // write out once this much is held
#define LS_OUT_MAX (1u << 20)        // one line never comes near it
#define LS_SIX_MONTHS (31556952 / 2) // GNU: half a Gregorian year, seconds
#define LS_STOP (-1)                 // lr_status holds the final status

/* One name to print: an operand or a directory entry. */
typedef struct ls_ent {
    char *le_name; // as printed
    char *le_path; // as probed (the operand, or dir/name)
    sh_kernel_stat le_st;
    bool le_have_st; // -l details are known
    char *le_link;   // -l: the symlink's target, or NULL
} ls_ent;

/* A directory operand; a denied stat lists it early (ld_listed). */
typedef struct ls_dir {
    const char *ld_name;
    char **ld_names;
    size_t ld_n;
    bool ld_listed;
} ls_dir;

typedef struct ls_run {
    sh_ctx *lr_cx;
    bool lr_long, lr_all;
    box_buf lr_out;
    int lr_status;   // the worst so far: 0, 1, 2 (or the stop status)
    bool lr_printed; // a block is out: the next one starts with "\n"
    int64_t lr_now;
} ls_run;

/* ---- output ---------------------------------------------------------- */

/* Writes what is held. A reader gone or the output spent ends quietly
 * (the write set the flow); a bad fd 1 is reported once. */
static int
ls_flush(ls_run *lr)
{
    sh_ctx *cx = lr->lr_cx;
    int rc = SH_IO_OK;
    if (lr->lr_out.b_len > 0)
        rc = sh_write(cx, 1, lr->lr_out.b_data, lr->lr_out.b_len);
    box_buf_reset(&lr->lr_out);
    if (rc == SH_IO_OK)
        return 0;
    if (cx->cx_flow == SH_FLOW_NONE)
        lr->lr_status =
            sh_cmd_err(cx, "ls", 1, "write error: Bad file descriptor");
    else
        lr->lr_status = cx->cx_status;
    return LS_STOP;
}

static int
ls_put(ls_run *lr, box_err e)
{
    if (e != BOX_OK) {
        box_buf_reset(&lr->lr_out);
        lr->lr_status = sh_cmd_err(lr->lr_cx, "ls", 1, "out of memory");
        return LS_STOP;
    }
    return lr->lr_out.b_len >= LS_OUT_FLUSH ? ls_flush(lr) : 0;
}

/* ---- -l fields ------------------------------------------------------- */

/* "drwxr-xr-x": type letter, then rwx triples with s/S and t/T. */
static void
mode_string(mode_t m, char out[11])
{
    out[0] = S_ISDIR(m)    ? 'd'
             : S_ISLNK(m)  ? 'l'
             : S_ISCHR(m)  ? 'c'
             : S_ISBLK(m)  ? 'b'
             : S_ISFIFO(m) ? 'p'
             : S_ISSOCK(m) ? 's'
                           : '-';
    static const char rwx[] = "rwxrwxrwx";
    for (int i = 0; i < 9; i++)
        out[1 + i] = (m & (0400u >> i)) ? rwx[i] : '-';
    if (m & S_ISUID)
        out[3] = (m & S_IXUSR) ? 's' : 'S';
    if (m & S_ISGID)
        out[6] = (m & S_IXGRP) ? 's' : 'S';
    if (m & S_ISVTX)
        out[9] = (m & S_IXOTH) ? 't' : 'T';
    out[10] = '\0';
}

/* GNU: "%b %e %H:%M" within the last six months, else "%b %e  %Y" (also
 * for a time in the future). Local time of the trusted process. */
static void
time_string(int64_t t, int64_t now, char *out, size_t n)
{
    time_t tt = (time_t)t;
    struct tm tm;
    bool recent = t <= now && now - t < LS_SIX_MONTHS;
    if (localtime_r(&tt, &tm) == NULL ||
        strftime(out, n, recent ? "%b %e %H:%M" : "%b %e  %Y", &tm) == 0)
        snprintf(out, n, "%" PRId64, t);
}

static int
digits(uint64_t v)
{
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/* ---- entries --------------------------------------------------------- */

static void
ents_free(ls_ent *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        box_free(v[i].le_name);
        box_free(v[i].le_path);
        box_free(v[i].le_link);
    }
    box_free(v);
}

static int
cmp_ent(const void *a, const void *b)
{
    return strcmp(((const ls_ent *)a)->le_name, ((const ls_ent *)b)->le_name);
}

static int
cmp_dir(const void *a, const void *b)
{
    return strcmp(((const ls_dir *)a)->ld_name, ((const ls_dir *)b)->ld_name);
}

/* "dir/name" without doubling a trailing slash. */
static char *
join(const char *dir, const char *name)
{
    size_t l = strlen(dir);
    return box_asprintf("%s%s%s", dir, l > 0 && dir[l - 1] == '/' ? "" : "/",
                        name);
}

/*
 * -l on a symlink: its target (fs:read read_link). A refusal is reported
 * (status 1, GNU) and the line printed without " -> target".
 */
static int
read_link(ls_run *lr, ls_ent *e)
{
    sh_ctx *cx = lr->lr_cx;
    sh_kernel_result r = {0};
    if (sh_kernel_readlink(sh_kern(cx), cx->cx_st->st_cwd, e->le_path,
                           &e->le_link, &r) == 0) {
        sh_kernel_result_clear(&r);
        return 0;
    }
    e->le_link = NULL;
    int st = sh_fs_fail(cx, "ls", e->le_path, &r);
    if (st == BOX_STATUS_FAULT) {
        lr->lr_status = BOX_STATUS_FAULT;
        return LS_STOP;
    }
    if (lr->lr_status < 1)
        lr->lr_status = 1;
    return 0;
}

/*
 * -l details of a directory entry: fs:read read_metadata with lstat.
 * Returns 0 with the entry filled, 1 to skip it, or LS_STOP. A denied
 * probe answers "absent", so a denied entry is skipped: ls shows what
 * policy lets it see and nothing about the rest. An entry that vanished
 * since the listing is reported (GNU) and skipped.
 */
static int
stat_entry(ls_run *lr, ls_ent *e)
{
    sh_ctx *cx = lr->lr_cx;
    sh_kernel_result r = {0};
    if (sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd, e->le_path, &e->le_st,
                        &r) != 0) {
        if (r.kr_outcome == SH_KR_DENIED) {
            sh_kernel_result_clear(&r);
            return 1;
        }
        int st = sh_fs_fail(cx, "ls", e->le_path, &r);
        if (st == BOX_STATUS_FAULT) {
            lr->lr_status = BOX_STATUS_FAULT;
            return LS_STOP;
        }
        if (lr->lr_status < 1)
            lr->lr_status = 1;
        return 1;
    }
    sh_kernel_result_clear(&r);
    e->le_have_st = true;
    if (S_ISLNK(e->le_st.ks_mode))
        return read_link(lr, e);
    return 0;
}

/* One -l line; width is the size column's. */
static int
put_long(ls_run *lr, const ls_ent *e, int width)
{
    char mode[11], when[64];
    mode_string(e->le_st.ks_mode, mode);
    time_string(e->le_st.ks_mtime, lr->lr_now, when, sizeof when);
    box_err b = box_buf_printf(&lr->lr_out, "%s 1 lash lash %*" PRIu64 " %s %s",
                               mode, width, e->le_st.ks_size, when, e->le_name);
    if (b == BOX_OK && e->le_link != NULL)
        b = box_buf_printf(&lr->lr_out, " -> %s", e->le_link);
    if (b == BOX_OK)
        b = box_buf_putc(&lr->lr_out, '\n');
    return ls_put(lr, b);
}

/*
 * Prints a block of entries (sorted here). -l: "total N" first for a
 * directory (N: each size in 1 KiB blocks, rounded up, summed), the size
 * column as wide as its widest; an entry without details (its stat was
 * denied) prints its name alone.
 */
static int
put_block(ls_run *lr, ls_ent *v, size_t n, bool total)
{
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_ent);
    int width = 1;
    uint64_t blocks = 0;
    for (size_t i = 0; i < n; i++) {
        if (!v[i].le_have_st)
            continue;
        int d = digits(v[i].le_st.ks_size);
        width = d > width ? d : width;
        blocks += (v[i].le_st.ks_size + 1023) / 1024;
    }
    if (lr->lr_long && total &&
        ls_put(lr,
               box_buf_printf(&lr->lr_out, "total %" PRIu64 "\n", blocks)) != 0)
        return LS_STOP;
    for (size_t i = 0; i < n; i++) {
        int rc =
            lr->lr_long && v[i].le_have_st
                ? put_long(lr, &v[i], width)
                : ls_put(lr, box_buf_printf(&lr->lr_out, "%s\n", v[i].le_name));
        if (rc != 0)
            return LS_STOP;
    }
    lr->lr_printed = true;
    return ls_flush(lr);
}

/* ---- directories ----------------------------------------------------- */

/* fs:read enumerate. A failure (denied, missing) is reported with
 * status 2; a fault stops. Returns 0, 1 (reported) or LS_STOP. */
static int
list_dir(ls_run *lr, ls_dir *d)
{
    sh_ctx *cx = lr->lr_cx;
    sh_kernel_result r = {0};
    if (sh_kernel_list(sh_kern(cx), cx->cx_st->st_cwd, d->ld_name, &d->ld_names,
                       &d->ld_n, &r) == 0) {
        sh_kernel_result_clear(&r);
        d->ld_listed = true;
        return 0;
    }
    int st = sh_fs_fail(cx, "ls", d->ld_name, &r);
    lr->lr_status =
        st == BOX_STATUS_FAULT ? BOX_STATUS_FAULT : BOX_STATUS_USAGE;
    return st == BOX_STATUS_FAULT ? LS_STOP : 1;
}

/* Drops v[i] (a skipped entry), keeping the order of the rest. */
static void
ent_drop(ls_ent *v, size_t *n, size_t i)
{
    box_free(v[i].le_name);
    box_free(v[i].le_path);
    box_free(v[i].le_link);
    memmove(&v[i], &v[i + 1], (*n - i - 1) * sizeof *v);
    (*n)--;
}

/*
 * The entries of a listed directory that -a allows ("." and ".." added
 * under -a), sorted; -l then probes each in that order (so decisions
 * come in a stable order) and drops the ones it may not see.
 */
static int
dir_entries(ls_run *lr, const ls_dir *d, ls_ent **out, size_t *nout)
{
    static const char *const dots[] = {".", ".."};
    size_t n = 0;
    ls_ent *v = box_calloc(d->ld_n + 2, sizeof *v);
    if (v == NULL)
        goto oom;
    for (size_t i = 0; i < d->ld_n + 2; i++) {
        const char *name = i < 2 ? dots[i] : d->ld_names[i - 2];
        if (name[0] == '.' && !lr->lr_all)
            continue;
        ls_ent *e = &v[n++];
        if ((e->le_name = box_strdup(name)) == NULL ||
            (e->le_path = join(d->ld_name, name)) == NULL)
            goto oom;
    }
    if (n > 1)
        qsort(v, n, sizeof *v, cmp_ent);
    for (size_t i = 0; lr->lr_long && i < n;) {
        int rc = stat_entry(lr, &v[i]);
        if (rc == 0 && sh_check_stop(lr->lr_cx)) {
            lr->lr_status = lr->lr_cx->cx_status;
            rc = LS_STOP;
        }
        if (rc == LS_STOP) {
            ents_free(v, n);
            return LS_STOP;
        }
        if (rc == 1)
            ent_drop(v, &n, i);
        else
            i++;
    }
    *out = v;
    *nout = n;
    return 0;
oom:
    ents_free(v, n);
    lr->lr_status = sh_cmd_err(lr->lr_cx, "ls", 1, "out of memory");
    return LS_STOP;
}

/* One directory operand: listed (unless already), then its block, with
 * a "name:" header when ls was given several operands. */
static int
show_dir(ls_run *lr, ls_dir *d, bool header)
{
    if (!d->ld_listed) {
        int rc = list_dir(lr, d);
        if (rc != 0)
            return rc == LS_STOP ? LS_STOP : 0;
    }
    ls_ent *v = NULL;
    size_t n = 0;
    if (dir_entries(lr, d, &v, &n) != 0)
        return LS_STOP;
    box_err b = BOX_OK;
    if (lr->lr_printed)
        b = box_buf_putc(&lr->lr_out, '\n');
    if (b == BOX_OK && header)
        b = box_buf_printf(&lr->lr_out, "%s:\n", d->ld_name);
    int rc = ls_put(lr, b);
    if (rc == 0)
        rc = put_block(lr, v, n, true);
    ents_free(v, n);
    return rc;
}

/* ---- operands -------------------------------------------------------- */

typedef struct ls_ops {
    ls_ent *lo_files;
    size_t lo_nfiles;
    ls_dir *lo_dirs;
    size_t lo_ndirs;
} ls_ops;

static void
ops_free(ls_ops *lo)
{
    ents_free(lo->lo_files, lo->lo_nfiles);
    for (size_t i = 0; i < lo->lo_ndirs; i++)
        sh_kernel_names_free(lo->lo_dirs[i].ld_names, lo->lo_dirs[i].ld_n);
    box_free(lo->lo_dirs);
}

/* A file operand: printed as given; -l details from the probe made. */
static int
add_file(ls_run *lr, ls_ops *lo, const char *name, const sh_kernel_stat *st)
{
    ls_ent *e = &lo->lo_files[lo->lo_nfiles];
    memset(e, 0, sizeof *e);
    if ((e->le_name = box_strdup(name)) == NULL ||
        (e->le_path = box_strdup(name)) == NULL) {
        box_free(e->le_name);
        lr->lr_status = sh_cmd_err(lr->lr_cx, "ls", 1, "out of memory");
        return LS_STOP;
    }
    lo->lo_nfiles++;
    if (st != NULL) {
        e->le_st = *st;
        e->le_have_st = true;
        if (lr->lr_long && S_ISLNK(st->ks_mode))
            return read_link(lr, e);
    }
    return 0;
}

/*
 * Sorts one operand into files or directories by its fs:read
 * read_metadata probe: lstat under -l (GNU shows a link operand as a
 * link), else stat (a link to a directory lists the directory). A
 * denied probe answers "absent"; rather than call the operand missing
 * we ask to list it: a denial then prints itself, "Not a directory"
 * makes it a file shown by name only. Missing: status 2 (GNU).
 */
static int
classify(ls_run *lr, ls_ops *lo, const char *name)
{
    sh_ctx *cx = lr->lr_cx;
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    if (name[0] == '\0') { // the kernel would read "" as the cwd
        sh_cmd_err(cx, "ls", 2, ": %s", strerror(ENOENT));
        lr->lr_status = 2;
        return 0;
    }
    int err = lr->lr_long ? sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd,
                                            name, &st, &r)
                          : sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd,
                                                name, &st, &r);
    if (err == 0) {
        sh_kernel_result_clear(&r);
        if (!S_ISDIR(st.ks_mode))
            return add_file(lr, lo, name, &st);
        lo->lo_dirs[lo->lo_ndirs++] = (ls_dir){.ld_name = name};
        return 0;
    }
    if (r.kr_outcome != SH_KR_DENIED) {
        int s = sh_fs_fail(cx, "ls", name, &r);
        lr->lr_status =
            s == BOX_STATUS_FAULT ? BOX_STATUS_FAULT : BOX_STATUS_USAGE;
        return s == BOX_STATUS_FAULT ? LS_STOP : 0;
    }
    sh_kernel_result_clear(&r);
    ls_dir d = {.ld_name = name};
    if (sh_kernel_list(sh_kern(cx), cx->cx_st->st_cwd, name, &d.ld_names,
                       &d.ld_n, &r) == 0) {
        sh_kernel_result_clear(&r);
        d.ld_listed = true;
        lo->lo_dirs[lo->lo_ndirs++] = d;
        return 0;
    }
    if (r.kr_outcome == SH_KR_OS_ERROR && r.kr_errno == ENOTDIR) {
        sh_kernel_result_clear(&r);
        return add_file(lr, lo, name, NULL);
    }
    int s = sh_fs_fail(cx, "ls", name, &r);
    lr->lr_status = s == BOX_STATUS_FAULT ? BOX_STATUS_FAULT : BOX_STATUS_USAGE;
    return s == BOX_STATUS_FAULT ? LS_STOP : 0;
}

/*
 * ls [-1al] [path...]: box-spec §3.3/§3.6. Output is never a terminal,
 * so one name per line always (-1 is the default). Each operand is
 * probed (read_metadata), each directory listed (enumerate); -l probes
 * every entry shown (read_metadata, lstat) and reads each link
 * (read_link). Names sort bytewise. Operands: files first, then each
 * directory, blocks separated by a blank line (GNU).
 */
int
sh_cmd_ls(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    static char *const dot[] = {(char *)".", NULL};
    ls_run lr = {
        .lr_cx = cx,
        .lr_long = sh_opt(o, 'l'),
        .lr_all = sh_opt(o, 'a'),
        .lr_now = (int64_t)time(NULL),
    };
    box_buf_init(&lr.lr_out, LS_OUT_MAX);
    char *const *ops = o->o_ind < argc ? argv + o->o_ind : dot;
    size_t nops = o->o_ind < argc ? (size_t)(argc - o->o_ind) : 1;
    ls_ops lo = {0};
    lo.lo_files = box_calloc(nops, sizeof *lo.lo_files);
    lo.lo_dirs = box_calloc(nops, sizeof *lo.lo_dirs);
    if (lo.lo_files == NULL || lo.lo_dirs == NULL) {
        lr.lr_status = sh_cmd_err(cx, "ls", 1, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nops; i++) {
        if (sh_check_stop(cx)) {
            lr.lr_status = cx->cx_status;
            goto out;
        }
        if (classify(&lr, &lo, ops[i]) != 0)
            goto out;
    }
    if (lo.lo_nfiles > 0 &&
        put_block(&lr, lo.lo_files, lo.lo_nfiles, false) != 0)
        goto out;
    if (lo.lo_ndirs > 1)
        qsort(lo.lo_dirs, lo.lo_ndirs, sizeof *lo.lo_dirs, cmp_dir);
    for (size_t i = 0; i < lo.lo_ndirs; i++) {
        if (sh_check_stop(cx)) {
            lr.lr_status = cx->cx_status;
            goto out;
        }
        if (show_dir(&lr, &lo.lo_dirs[i], nops > 1) != 0)
            goto out;
    }
out:
    box_buf_reset(&lr.lr_out);
    ops_free(&lo);
    return lr.lr_status;
}
