/* SPDX-License-Identifier: Apache-2.0 */
/* ls [OPTION]... [FILE]...: GNU coreutils 9.1, its output not a terminal.
 * Every operand is probed (fs:read read_metadata), every directory listed
 * (enumerate), every entry shown with details probed (lstat) and every
 * link shown under -l read (read_link), each through the kernel. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "box_alloc.h"
#include "cmd_ls.h"
#include "cmd_sort.h"
#include "sh_glob.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define LS_OUT_MAX (1u << 20) // one line never comes near it
#define LS_STOP (-1)          // lr_status holds the final status
#define LS_DEPTH_MAX 256      // -R deeper than this is refused

enum {
    LS_O_BLOCK = SH_GOPT_LONG_ONLY,
    LS_O_COLOR,
    LS_O_FILE_TYPE,
    LS_O_FORMAT,
    LS_O_FULL_TIME,
    LS_O_DIRS_FIRST,
    LS_O_SI,
    LS_O_DEREF_DIRS,
    LS_O_HIDE,
    LS_O_INDICATOR,
    LS_O_QUOTING,
    LS_O_SHOW_CTRL,
    LS_O_SORT,
    LS_O_TIME,
    LS_O_TIME_STYLE,
    LS_O_AUTHOR,
    LS_O_ZERO,
    LS_O_HYPERLINK,
};

static const sh_gopt ls_gopts[] = {
    {'a', "all", SH_GARG_NONE},
    {'A', "almost-all", SH_GARG_NONE},
    {LS_O_AUTHOR, "author", SH_GARG_NONE},
    {'b', "escape", SH_GARG_NONE},
    {LS_O_BLOCK, "block-size", SH_GARG_REQ},
    {'B', "ignore-backups", SH_GARG_NONE},
    {'c', NULL, SH_GARG_NONE},
    {'C', NULL, SH_GARG_NONE},
    {LS_O_COLOR, "color", SH_GARG_OPT},
    {'d', "directory", SH_GARG_NONE},
    {'D', "dired", SH_GARG_NONE},
    {'f', NULL, SH_GARG_NONE},
    {'F', "classify", SH_GARG_OPT},
    {LS_O_FILE_TYPE, "file-type", SH_GARG_NONE},
    {LS_O_FORMAT, "format", SH_GARG_REQ},
    {LS_O_FULL_TIME, "full-time", SH_GARG_NONE},
    {'g', NULL, SH_GARG_NONE},
    {LS_O_DIRS_FIRST, "group-directories-first", SH_GARG_NONE},
    {'G', "no-group", SH_GARG_NONE},
    {'h', "human-readable", SH_GARG_NONE},
    {LS_O_SI, "si", SH_GARG_NONE},
    {'H', "dereference-command-line", SH_GARG_NONE},
    {LS_O_DEREF_DIRS, "dereference-command-line-symlink-to-dir",
     SH_GARG_NONE},
    {LS_O_HIDE, "hide", SH_GARG_REQ},
    {LS_O_HYPERLINK, "hyperlink", SH_GARG_OPT},
    {LS_O_INDICATOR, "indicator-style", SH_GARG_REQ},
    {'i', "inode", SH_GARG_NONE},
    {'I', "ignore", SH_GARG_REQ},
    {'k', "kibibytes", SH_GARG_NONE},
    {'l', NULL, SH_GARG_NONE},
    {'L', "dereference", SH_GARG_NONE},
    {'m', NULL, SH_GARG_NONE},
    {'n', "numeric-uid-gid", SH_GARG_NONE},
    {'N', "literal", SH_GARG_NONE},
    {'o', NULL, SH_GARG_NONE},
    {'p', NULL, SH_GARG_NONE},
    {'q', "hide-control-chars", SH_GARG_NONE},
    {LS_O_SHOW_CTRL, "show-control-chars", SH_GARG_NONE},
    {'Q', "quote-name", SH_GARG_NONE},
    {LS_O_QUOTING, "quoting-style", SH_GARG_REQ},
    {'r', "reverse", SH_GARG_NONE},
    {'R', "recursive", SH_GARG_NONE},
    {'s', "size", SH_GARG_NONE},
    {'S', NULL, SH_GARG_NONE},
    {LS_O_SORT, "sort", SH_GARG_REQ},
    {LS_O_TIME, "time", SH_GARG_REQ},
    {LS_O_TIME_STYLE, "time-style", SH_GARG_REQ},
    {'t', NULL, SH_GARG_NONE},
    {'T', "tabsize", SH_GARG_REQ},
    {'u', NULL, SH_GARG_NONE},
    {'U', NULL, SH_GARG_NONE},
    {'v', NULL, SH_GARG_NONE},
    {'w', "width", SH_GARG_REQ},
    {'x', NULL, SH_GARG_NONE},
    {'X', NULL, SH_GARG_NONE},
    {'Z', "context", SH_GARG_NONE},
    {LS_O_ZERO, "zero", SH_GARG_NONE},
    {'1', NULL, SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec ls_spec = {
    .gs_cmd = "ls",
    .gs_opts = ls_gopts,
    .gs_fail = 2,
    .gs_help =
        "Usage: ls [OPTION]... [FILE]...\n"
        "List information about the FILEs (the current directory by "
        "default).\n"
        "Sort entries alphabetically if none of -cftuvSUX nor --sort is "
        "specified.\n"
        "\n"
        "  -a, --all                  do not ignore entries starting with .\n"
        "  -A, --almost-all           do not list implied . and ..\n"
        "  -b, --escape               print C-style escapes for nongraphic "
        "characters\n"
        "  -B, --ignore-backups       do not list implied entries ending "
        "with ~\n"
        "  -c                         sort by, and with -l show, ctime\n"
        "  -C                         list entries by columns\n"
        "      --color[=WHEN]         never or auto (this output is no "
        "terminal)\n"
        "  -d, --directory            list directories themselves, not their "
        "contents\n"
        "  -f                         list all entries in directory order\n"
        "  -F, --classify[=WHEN]      append indicator (one of */=@|) to "
        "entries\n"
        "      --file-type            likewise, except do not append '*'\n"
        "      --format=WORD          across -x, commas -m, horizontal -x, "
        "long -l,\n"
        "                             single-column -1, verbose -l, vertical "
        "-C\n"
        "      --full-time            like -l --time-style=full-iso\n"
        "  -g                         like -l, but do not list owner\n"
        "      --group-directories-first\n"
        "                             group directories before files\n"
        "  -G, --no-group             in a long listing, don't print group "
        "names\n"
        "  -h, --human-readable       with -l and -s, print sizes like 1K "
        "234M 2G etc.\n"
        "      --si                   likewise, but use powers of 1000 not "
        "1024\n"
        "  -H, --dereference-command-line\n"
        "                             follow symbolic links listed on the "
        "command line\n"
        "      --hide=PATTERN         do not list implied entries matching "
        "shell PATTERN\n"
        "      --indicator-style=WORD none, slash (-p), file-type, classify "
        "(-F)\n"
        "  -i, --inode                print the index number of each file\n"
        "  -I, --ignore=PATTERN       do not list implied entries matching "
        "shell PATTERN\n"
        "  -k, --kibibytes            1024-byte blocks (the default)\n"
        "  -l                         use a long listing format\n"
        "  -L, --dereference          show the file a symbolic link "
        "references\n"
        "  -m                         fill width with a comma separated list "
        "of entries\n"
        "  -n, --numeric-uid-gid      like -l, but list numeric user and "
        "group IDs\n"
        "  -N, --literal              print entry names without quoting\n"
        "  -o                         like -l, but do not list group "
        "information\n"
        "  -p, --indicator-style=slash\n"
        "                             append / indicator to directories\n"
        "  -Q, --quote-name           enclose entry names in double quotes\n"
        "      --quoting-style=WORD   literal, shell, shell-always, "
        "shell-escape,\n"
        "                             shell-escape-always, c, escape\n"
        "  -r, --reverse              reverse order while sorting\n"
        "  -R, --recursive            list subdirectories recursively\n"
        "  -s, --size                 print the allocated size of each file, "
        "in blocks\n"
        "  -S                         sort by file size, largest first\n"
        "      --sort=WORD            none (-U), size (-S), time (-t), "
        "version (-v),\n"
        "                             extension (-X)\n"
        "      --time=WORD            atime (-u), ctime (-c) or mtime\n"
        "      --time-style=TIME_STYLE\n"
        "                             full-iso, long-iso, iso, locale, or "
        "+FORMAT\n"
        "  -t                         sort by time, newest first; see --time\n"
        "  -u                         sort by, and with -l show, access "
        "time\n"
        "  -U                         do not sort; list entries in directory "
        "order\n"
        "  -v                         natural sort of (version) numbers "
        "within text\n"
        "  -w, --width=COLS           set output width to COLS.  0 means no "
        "limit\n"
        "  -x                         list entries by lines instead of by "
        "columns\n"
        "  -X                         sort alphabetically by entry extension\n"
        "  -1                         list one file per line\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

typedef struct ls_run {
    sh_ctx *lr_cx;
    ls_opts lr_o;
    ls_out lr_out;
    int lr_status;   // the worst so far: 0, 1, 2 (or the stop status)
    bool lr_printed; // a block is out: the next one starts with "\n"
    bool lr_headers; // "name:" before each directory's block
} ls_run;

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

static bool
ls_is_dir(const ls_ent *e)
{
    return e->le_have_st && S_ISDIR(e->le_st.ks_mode);
}

static const char *
ls_ext(const char *name)
{
    const char *dot = strrchr(name, '.');
    return dot != NULL ? dot : "";
}

/* One comparison under opts; ties go by name as in GNU. */
static int
ls_cmp(const ls_opts *o, const ls_ent *a, const ls_ent *b)
{
    if (o->lo_dirs_first) {
        bool da = ls_is_dir(a) || (a->le_link_dir && o->lo_format != LS_FMT_LONG);
        bool db = ls_is_dir(b) || (b->le_link_dir && o->lo_format != LS_FMT_LONG);
        if (da != db)
            return da ? -1 : 1;
    }
    int c = 0;
    switch (o->lo_sort) {
    case LS_SORT_TIME: {
        long na, nb;
        int64_t ta = ls_when(o, &a->le_st, &na);
        int64_t tb = ls_when(o, &b->le_st, &nb);
        c = ta != tb ? (ta < tb ? 1 : -1) : na != nb ? (na < nb ? 1 : -1) : 0;
        break;
    }
    case LS_SORT_SIZE:
        c = a->le_st.ks_size != b->le_st.ks_size
                ? (a->le_st.ks_size < b->le_st.ks_size ? 1 : -1)
                : 0;
        break;
    case LS_SORT_EXT:
        c = strcmp(ls_ext(a->le_name), ls_ext(b->le_name));
        break;
    case LS_SORT_VERSION:
        c = sort_cmp_version(a->le_name, strlen(a->le_name), b->le_name,
                             strlen(b->le_name));
        break;
    case LS_SORT_WIDTH: {
        size_t wa = ls_name_width(a->le_name), wb = ls_name_width(b->le_name);
        c = wa != wb ? (wa < wb ? -1 : 1) : 0;
        break;
    }
    default:
        break;
    }
    if (c == 0)
        c = strcmp(a->le_name, b->le_name);
    return o->lo_reverse ? -c : c;
}

/* A merge sort (stable, and it takes the options without a global). */
static bool
ls_sort(const ls_opts *o, ls_ent *v, size_t n)
{
    if (o->lo_sort == LS_SORT_NONE && !o->lo_dirs_first) {
        if (o->lo_reverse)
            for (size_t i = 0; i < n / 2; i++) {
                ls_ent t = v[i];
                v[i] = v[n - 1 - i];
                v[n - 1 - i] = t;
            }
        return true;
    }
    if (n < 2)
        return true;
    ls_ent *tmp = box_calloc(n, sizeof *tmp);
    if (tmp == NULL)
        return false;
    for (size_t width = 1; width < n; width *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * width) {
            size_t mid = lo + width < n ? lo + width : n;
            size_t hi = lo + 2 * width < n ? lo + 2 * width : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                tmp[k++] = ls_cmp(o, &v[j], &v[i]) < 0 ? v[j++] : v[i++];
            while (i < mid)
                tmp[k++] = v[i++];
            while (j < hi)
                tmp[k++] = v[j++];
        }
        memcpy(v, tmp, n * sizeof *v);
    }
    box_free(tmp);
    return true;
}

/* "dir/name" without doubling a trailing slash. */
static char *
ls_join(const char *dir, const char *name)
{
    size_t l = strlen(dir);
    return box_asprintf("%s%s%s", dir, l > 0 && dir[l - 1] == '/' ? "" : "/",
                        name);
}

/* Records a failure's status: a fault stops the run. */
static int
ls_failed(ls_run *lr, int st, int status)
{
    if (st == BOX_STATUS_FAULT) {
        lr->lr_status = BOX_STATUS_FAULT;
        return LS_STOP;
    }
    if (lr->lr_status < status)
        lr->lr_status = status;
    return 0;
}

/* The message GNU words as "cannot access 'x'" (and the like): the
 * kernel's own text when it names its path (a policy denial). */
static int
ls_report(ls_run *lr, const char *what, const char *name,
          sh_kernel_result *r, int status)
{
    char *q = sh_gquoteaf(name);
    char *shown = q != NULL ? box_asprintf("%s %s", what, q) : NULL;
    int st = sh_fs_fail(lr->lr_cx, "ls", shown != NULL ? shown : name, r);
    box_free(shown);
    box_free(q);
    return ls_failed(lr, st, status);
}

/*
 * A symlink shown under -l: its target (fs:read read_link), and under -F
 * the target's type (a probe; denied: no indicator). A refusal is
 * reported (status 1, GNU) and the line printed without " -> target".
 */
static int
ls_read_link(ls_run *lr, ls_ent *e)
{
    sh_ctx *cx = lr->lr_cx;
    sh_kernel_result r = {0};
    if (sh_kernel_readlink(sh_kern(cx), cx->cx_st->st_cwd, e->le_path,
                           &e->le_link, &r) != 0) {
        e->le_link = NULL;
        return ls_report(lr, "cannot read symbolic link", e->le_path, &r, 1);
    }
    sh_kernel_result_clear(&r);
    if (lr->lr_o.lo_ind == LS_IND_NONE && !lr->lr_o.lo_dirs_first)
        return 0;
    sh_kernel_stat st;
    if (sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, e->le_path, &st,
                            &r) == 0) {
        e->le_link_mode = st.ks_mode;
        e->le_link_dir = S_ISDIR(st.ks_mode);
    } else if (r.kr_outcome == SH_KR_FAULT) {
        return ls_report(lr, "cannot access", e->le_path, &r, 1);
    }
    sh_kernel_result_clear(&r);
    return 0;
}

/* What an entry needs probed: details for -l and the options that show
 * or sort by them (GNU reads the type from the directory; this kernel
 * lists names only, so -F, -p and -R probe too). */
static bool
ls_needs_stat(const ls_opts *o)
{
    return o->lo_format == LS_FMT_LONG || o->lo_inode || o->lo_blocks ||
           o->lo_sort == LS_SORT_TIME || o->lo_sort == LS_SORT_SIZE ||
           o->lo_ind != LS_IND_NONE || o->lo_recursive || o->lo_dirs_first;
}

/*
 * The details of a directory entry: fs:read read_metadata (lstat, or
 * stat under -L). Returns 0 with the entry filled, 1 to skip it, or
 * LS_STOP. A denied probe answers "absent", so a denied entry is skipped:
 * ls shows what policy lets it see and nothing about the rest. An entry
 * that vanished since the listing is reported (GNU) and skipped.
 */
static int
ls_stat_entry(ls_run *lr, ls_ent *e)
{
    sh_ctx *cx = lr->lr_cx;
    sh_kernel_result r = {0};
    bool follow = lr->lr_o.lo_deref == LS_DEREF_ALWAYS;
    int err = follow ? sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd,
                                           e->le_path, &e->le_st, &r)
                     : sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd,
                                       e->le_path, &e->le_st, &r);
    if (err != 0 && follow && r.kr_outcome == SH_KR_OS_ERROR &&
        err == ENOENT) {
        // A dangling link under -L: GNU shows the link itself.
        sh_kernel_result_clear(&r);
        err = sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd, e->le_path,
                              &e->le_st, &r);
    }
    if (err != 0) {
        if (r.kr_outcome == SH_KR_DENIED) {
            sh_kernel_result_clear(&r);
            return 1;
        }
        int rc = ls_report(lr, "cannot access", e->le_path, &r, 1);
        return rc == LS_STOP ? LS_STOP : 1;
    }
    sh_kernel_result_clear(&r);
    e->le_have_st = true;
    if (S_ISLNK(e->le_st.ks_mode) && lr->lr_o.lo_format == LS_FMT_LONG)
        return ls_read_link(lr, e);
    return 0;
}

/* -I, --hide, -B: implied entries left out (GNU: by shell pattern). */
static bool
ls_ignored(const ls_opts *o, const char *name)
{
    size_t len = strlen(name);
    if (o->lo_no_backups && len > 0 && name[len - 1] == '~')
        return true;
    for (size_t i = 0; i < o->lo_nignore; i++) {
        if (i < o->lo_nhide && o->lo_all != LS_ALL_NONE)
            continue; // -a and -A show what --hide hid
        if (sh_glob_match(o->lo_ignore[i], name, SH_GM_PERIOD))
            return true;
    }
    return false;
}

/* ---- directories ----------------------------------------------------- */

/*
 * The entries of a directory that the options allow ("." and ".." added
 * under -a), sorted by name first so the probes come in a stable order,
 * then probed (dropping those it may not see) and sorted as asked.
 */
static int
ls_dir_entries(ls_run *lr, const char *dir, char **names, size_t nnames,
               ls_ent **out, size_t *nout)
{
    static const char *const dots[] = {".", ".."};
    const ls_opts *o = &lr->lr_o;
    size_t n = 0;
    ls_ent *v = box_calloc(nnames + 2, sizeof *v);
    if (v == NULL)
        goto oom;
    for (size_t i = 0; i < nnames + 2; i++) {
        const char *name = i < 2 ? dots[i] : names[i - 2];
        if (i < 2 && o->lo_all != LS_ALL_ALL)
            continue;
        if (i >= 2 && name[0] == '.' && o->lo_all == LS_ALL_NONE)
            continue;
        if (i >= 2 && ls_ignored(o, name))
            continue;
        ls_ent *e = &v[n++];
        if ((e->le_name = box_strdup(name)) == NULL ||
            (e->le_path = ls_join(dir, name)) == NULL)
            goto oom;
    }
    if (o->lo_sort != LS_SORT_NONE) {
        ls_opts by_name = {.lo_sort = LS_SORT_NAME};
        if (!ls_sort(&by_name, v, n))
            goto oom;
    }
    for (size_t i = 0; ls_needs_stat(o) && i < n;) {
        int rc = ls_stat_entry(lr, &v[i]);
        if (rc == 0 && sh_check_stop(lr->lr_cx)) {
            lr->lr_status = lr->lr_cx->cx_status;
            rc = LS_STOP;
        }
        if (rc == LS_STOP) {
            ents_free(v, n);
            return LS_STOP;
        }
        if (rc == 1) { // dropped, keeping the order of the rest
            box_free(v[i].le_name);
            box_free(v[i].le_path);
            box_free(v[i].le_link);
            memmove(&v[i], &v[i + 1], (n - i - 1) * sizeof *v);
            n--;
        } else {
            i++;
        }
    }
    if (!ls_sort(o, v, n))
        goto oom;
    *out = v;
    *nout = n;
    return 0;
oom:
    ents_free(v, n);
    lr->lr_status = sh_cmd_err(lr->lr_cx, "ls", 1, "out of memory");
    return LS_STOP;
}

/* The ancestors -R under -L walked through, to stop at a cycle. */
typedef struct ls_chain {
    const struct ls_chain *lc_up;
    uint64_t lc_dev, lc_ino;
} ls_chain;

static int ls_show_dir(ls_run *lr, const char *name, char **names,
                       size_t nnames, const ls_chain *up, unsigned depth);

/* Lists name (fs:read enumerate), then shows it. status: what a failure
 * to list counts (2 for an operand, 1 below it, GNU). */
static int
ls_list_dir(ls_run *lr, const char *name, int status, const ls_chain *up,
            unsigned depth)
{
    sh_ctx *cx = lr->lr_cx;
    sh_kernel_result r = {0};
    char **names = NULL;
    size_t n = 0;
    if (sh_kernel_list(sh_kern(cx), cx->cx_st->st_cwd, name, &names, &n,
                       &r) != 0)
        return ls_report(lr, "cannot open directory", name, &r, status);
    sh_kernel_result_clear(&r);
    int rc = ls_show_dir(lr, name, names, n, up, depth);
    sh_kernel_names_free(names, n);
    return rc;
}

/* One directory's block ("name:" first under several operands or -R),
 * then, under -R, each subdirectory the same way. */
static int
ls_show_dir(ls_run *lr, const char *name, char **names, size_t nnames,
            const ls_chain *up, unsigned depth)
{
    ls_ent *v = NULL;
    size_t n = 0;
    if (ls_dir_entries(lr, name, names, nnames, &v, &n) != 0)
        return LS_STOP;
    box_err b = BOX_OK;
    if (lr->lr_printed)
        b = box_buf_putc(&lr->lr_out.lw_buf, '\n');
    if (b == BOX_OK && lr->lr_headers)
        b = box_buf_printf(&lr->lr_out.lw_buf, "%s:\n", name);
    lr->lr_printed = true;
    int rc = ls_out_put(&lr->lr_out, b) &&
                     ls_fmt_block(&lr->lr_out, &lr->lr_o, v, n, true) &&
                     ls_out_flush(&lr->lr_out)
                 ? 0
                 : LS_STOP;
    for (size_t i = 0; rc == 0 && lr->lr_o.lo_recursive && i < n; i++) {
        ls_ent *e = &v[i];
        if (!ls_is_dir(e) || strcmp(e->le_name, ".") == 0 ||
            strcmp(e->le_name, "..") == 0)
            continue;
        if (sh_check_stop(lr->lr_cx)) {
            lr->lr_status = lr->lr_cx->cx_status;
            rc = LS_STOP;
            break;
        }
        bool cycle = false;
        for (const ls_chain *c = up; c != NULL && !cycle; c = c->lc_up)
            cycle = c->lc_dev == e->le_st.ks_dev && c->lc_ino == e->le_st.ks_ino;
        if (cycle) {
            char *q = sh_gquoteaf(e->le_path);
            sh_cmd_err(lr->lr_cx, "ls", 1,
                       "%s: not listing already-listed directory",
                       q != NULL ? q : e->le_path);
            box_free(q);
            rc = ls_failed(lr, 1, 2);
            continue;
        }
        if (depth >= LS_DEPTH_MAX) {
            sh_cmd_err(lr->lr_cx, "ls", 1, "%s: too deep to list",
                       e->le_path);
            rc = ls_failed(lr, 1, 2);
            continue;
        }
        ls_chain here = {up, e->le_st.ks_dev, e->le_st.ks_ino};
        rc = ls_list_dir(lr, e->le_path, 1, &here, depth + 1);
    }
    ents_free(v, n);
    return rc;
}

/* ---- operands -------------------------------------------------------- */

typedef struct ls_dirop {
    const char *ld_name;
    char **ld_names; // listed early (its probe was denied), or NULL
    size_t ld_n;
    uint64_t ld_dev, ld_ino;
    sh_kernel_stat ld_st; // what -t, -S … sort by (zero when denied)
} ls_dirop;

typedef struct ls_ops {
    ls_ent *lo_files;
    size_t lo_nfiles;
    ls_dirop *lo_dirs;
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

/* A file operand: printed as given, with the details of the probe. */
static int
ls_add_file(ls_run *lr, ls_ops *lo, const char *name, const sh_kernel_stat *st)
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
        if (lr->lr_o.lo_format == LS_FMT_LONG && S_ISLNK(st->ks_mode))
            return ls_read_link(lr, e);
    }
    return 0;
}

/*
 * Sorts one operand into files or directories by its fs:read
 * read_metadata probe: lstat when links on the command line are shown as
 * links (-l, -d, -F), else stat, falling back to lstat for a dangling
 * link. A denied probe answers "absent"; rather than call the operand
 * missing we ask to list it: a denial then prints itself, "Not a
 * directory" makes it a file shown by name only. Missing: status 2.
 */
static int
ls_classify(ls_run *lr, ls_ops *lo, const char *name)
{
    sh_ctx *cx = lr->lr_cx;
    const ls_opts *o = &lr->lr_o;
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    if (name[0] == '\0') { // the kernel would read "" as the cwd
        sh_cmd_err(cx, "ls", 2, "cannot access '': %s", strerror(ENOENT));
        return ls_failed(lr, 2, 2);
    }
    bool follow = o->lo_deref != LS_DEREF_NEVER;
    int err = follow ? sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd,
                                           name, &st, &r)
                     : sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd, name,
                                       &st, &r);
    if (err == ENOENT && follow && r.kr_outcome == SH_KR_OS_ERROR) {
        sh_kernel_result_clear(&r); // a dangling link is shown as a link
        err = sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd, name, &st, &r);
    }
    if (err == 0 && follow && o->lo_deref == LS_DEREF_ARGS_DIRS &&
        !S_ISDIR(st.ks_mode) && ls_needs_stat(o)) {
        // Only a link to a directory is followed: a link shown with its
        // details is shown as one (a name alone needs no second probe).
        sh_kernel_result_clear(&r);
        err = sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd, name, &st, &r);
    }
    if (err == 0) {
        sh_kernel_result_clear(&r);
        if (!S_ISDIR(st.ks_mode) || o->lo_dirs_as_files)
            return ls_add_file(lr, lo, name, &st);
        lo->lo_dirs[lo->lo_ndirs++] = (ls_dirop){
            .ld_name = name, .ld_dev = st.ks_dev, .ld_ino = st.ks_ino,
            .ld_st = st};
        return 0;
    }
    if (r.kr_outcome != SH_KR_DENIED)
        return ls_report(lr, "cannot access", name, &r, 2);
    sh_kernel_result_clear(&r);
    ls_dirop d = {.ld_name = name};
    if (!o->lo_dirs_as_files &&
        sh_kernel_list(sh_kern(cx), cx->cx_st->st_cwd, name, &d.ld_names,
                       &d.ld_n, &r) == 0) {
        sh_kernel_result_clear(&r);
        lo->lo_dirs[lo->lo_ndirs++] = d;
        return 0;
    }
    if (o->lo_dirs_as_files ||
        (r.kr_outcome == SH_KR_OS_ERROR && r.kr_errno == ENOTDIR)) {
        sh_kernel_result_clear(&r);
        return ls_add_file(lr, lo, name, NULL);
    }
    return ls_report(lr, "cannot open directory", name, &r, 2);
}

/* ---- options --------------------------------------------------------- */

/* An argmatch over words: the index in vals, or -1 after the message. */
static int
ls_word(sh_gopt_iter *it, const char *opt, const char *arg,
        const char *const *names, const int *vals, int *st)
{
    int k = sh_gopt_argmatch(it, opt, arg, names, vals, st);
    return k < 0 ? -1 : vals[k];
}

/* Applies one option; 0, or the status to end with after its message. */
static int
ls_option(ls_run *lr, sh_gopt_iter *it, int id, const char *arg, bool *sorted,
          bool *timed)
{
    ls_opts *o = &lr->lr_o;
    int st = 0, k;
    switch (id) {
    case 'a': o->lo_all = LS_ALL_ALL; break;
    case 'A': o->lo_all = LS_ALL_ALMOST; break;
    case 'b': o->lo_quote = LS_Q_ESCAPE; break;
    case 'B': o->lo_no_backups = true; break;
    case 'c': o->lo_time = LS_TIME_CTIME; *timed = true; break;
    case 'C': o->lo_format = LS_FMT_COLS; break;
    case 'd': o->lo_dirs_as_files = true; break;
    case 'f':
        o->lo_all = LS_ALL_ALL;
        o->lo_sort = LS_SORT_NONE;
        *sorted = true;
        if (o->lo_format == LS_FMT_LONG)
            o->lo_format = LS_FMT_ONE;
        break;
    case 'F':
    case LS_O_FILE_TYPE:
    case 'p':
        o->lo_ind = id == 'F' ? LS_IND_CLASSIFY
                    : id == 'p' ? LS_IND_SLASH
                                : LS_IND_FILE_TYPE;
        if (id == 'F' && arg != NULL) {
            static const char *const w[] = {"always", "yes", "force", "never",
                                            "no", "none", "auto", "tty",
                                            "if-tty", NULL};
            static const int v[] = {1, 1, 1, 0, 0, 0, 0, 0, 0};
            if ((k = ls_word(it, "--classify", arg, w, v, &st)) < 0)
                return st;
            if (k == 0) // this output is no terminal
                o->lo_ind = LS_IND_NONE;
        }
        break;
    case 'g': o->lo_format = LS_FMT_LONG; o->lo_owner = false; break;
    case 'G': o->lo_group = false; break;
    case 'h': o->lo_human = true; break;
    case LS_O_SI: o->lo_si = true; break;
    case 'H': o->lo_deref = LS_DEREF_ARGS; break;
    case LS_O_DEREF_DIRS: o->lo_deref = LS_DEREF_ARGS_DIRS; break;
    case 'i': o->lo_inode = true; break;
    case 'I':
    case LS_O_HIDE:
        // --hide patterns first: -a and -A show those again.
        if (id == LS_O_HIDE) {
            memmove(o->lo_ignore + 1, o->lo_ignore,
                    o->lo_nignore * sizeof *o->lo_ignore);
            o->lo_ignore[0] = (char *)arg;
            o->lo_nhide++;
        } else {
            o->lo_ignore[o->lo_nignore] = (char *)arg;
        }
        o->lo_nignore++;
        break;
    case 'k': break; // 1 KiB blocks are the default
    case 'l': o->lo_format = LS_FMT_LONG; break;
    case 'L': o->lo_deref = LS_DEREF_ALWAYS; break;
    case 'm': o->lo_format = LS_FMT_COMMAS; break;
    case 'n': o->lo_format = LS_FMT_LONG; o->lo_numeric = true; break;
    case 'N':
    case LS_O_SHOW_CTRL:
    case 'q':
        if (id == 'N')
            o->lo_quote = LS_Q_LITERAL;
        break; // names are shown as they are: the output is no terminal
    case 'o': o->lo_format = LS_FMT_LONG; o->lo_group = false; break;
    case 'Q': o->lo_quote = LS_Q_C; break;
    case 'r': o->lo_reverse = true; break;
    case 'R': o->lo_recursive = true; break;
    case 's': o->lo_blocks = true; break;
    case 'S': o->lo_sort = LS_SORT_SIZE; *sorted = true; break;
    case 't': o->lo_sort = LS_SORT_TIME; *sorted = true; break;
    case 'u': o->lo_time = LS_TIME_ATIME; *timed = true; break;
    case 'U': o->lo_sort = LS_SORT_NONE; *sorted = true; break;
    case 'v': o->lo_sort = LS_SORT_VERSION; *sorted = true; break;
    case 'x': o->lo_format = LS_FMT_ACROSS; break;
    case 'X': o->lo_sort = LS_SORT_EXT; *sorted = true; break;
    case '1': o->lo_format = LS_FMT_ONE; break;
    case LS_O_AUTHOR: break; // the author is the owner on Linux
    case LS_O_DIRS_FIRST: o->lo_dirs_first = true; break;
    case LS_O_FULL_TIME:
        o->lo_format = LS_FMT_LONG;
        o->lo_time_style = "full-iso";
        break;
    case LS_O_FORMAT: {
        static const char *const w[] = {"verbose", "long", "commas",
                                        "horizontal", "across", "vertical",
                                        "single-column", NULL};
        static const int v[] = {LS_FMT_LONG, LS_FMT_LONG, LS_FMT_COMMAS,
                                LS_FMT_ACROSS, LS_FMT_ACROSS, LS_FMT_COLS,
                                LS_FMT_ONE};
        if ((k = ls_word(it, "--format", arg, w, v, &st)) < 0)
            return st;
        o->lo_format = (enum ls_format)k;
        break;
    }
    case LS_O_INDICATOR: {
        static const char *const w[] = {"none", "slash", "file-type",
                                        "classify", NULL};
        static const int v[] = {LS_IND_NONE, LS_IND_SLASH, LS_IND_FILE_TYPE,
                                LS_IND_CLASSIFY};
        if ((k = ls_word(it, "--indicator-style", arg, w, v, &st)) < 0)
            return st;
        o->lo_ind = (enum ls_ind)k;
        break;
    }
    case LS_O_QUOTING: {
        static const char *const w[] = {"literal", "shell", "shell-always",
                                        "shell-escape", "shell-escape-always",
                                        "c", "escape", "locale", "clocale",
                                        NULL};
        static const int v[] = {LS_Q_LITERAL, LS_Q_SHELL, LS_Q_SHELL_ALWAYS,
                                LS_Q_SHELL, LS_Q_SHELL_ALWAYS, LS_Q_C,
                                LS_Q_ESCAPE, LS_Q_C, LS_Q_C};
        if ((k = ls_word(it, "--quoting-style", arg, w, v, &st)) < 0)
            return st;
        o->lo_quote = (enum ls_quote)k;
        break;
    }
    case LS_O_SORT: {
        static const char *const w[] = {"none", "time", "size", "extension",
                                        "version", "width", NULL};
        static const int v[] = {LS_SORT_NONE, LS_SORT_TIME, LS_SORT_SIZE,
                                LS_SORT_EXT, LS_SORT_VERSION, LS_SORT_WIDTH};
        if ((k = ls_word(it, "--sort", arg, w, v, &st)) < 0)
            return st;
        o->lo_sort = (enum ls_sort)k;
        *sorted = true;
        break;
    }
    case LS_O_TIME: {
        static const char *const w[] = {"atime", "access", "use", "ctime",
                                        "status", "mtime", "modification",
                                        NULL};
        static const int v[] = {LS_TIME_ATIME, LS_TIME_ATIME, LS_TIME_ATIME,
                                LS_TIME_CTIME, LS_TIME_CTIME, LS_TIME_MTIME,
                                LS_TIME_MTIME};
        if ((k = ls_word(it, "--time", arg, w, v, &st)) < 0)
            return st;
        o->lo_time = (enum ls_time)k;
        *timed = k != LS_TIME_MTIME;
        break;
    }
    case LS_O_TIME_STYLE:
        o->lo_time_style = arg;
        break;
    case LS_O_COLOR: {
        static const char *const w[] = {"always", "yes", "force", "never",
                                        "no", "none", "auto", "tty",
                                        "if-tty", NULL};
        static const int v[] = {1, 1, 1, 0, 0, 0, 0, 0, 0};
        if (arg == NULL)
            arg = "always";
        if ((k = ls_word(it, "--color", arg, w, v, &st)) < 0)
            return st;
        if (k == 1)
            return sh_cmd_err(lr->lr_cx, "ls", 2,
                              "--color=always: colored output is not "
                              "supported in this box");
        break;
    }
    case LS_O_HYPERLINK:
    case 'D':
    case 'Z':
    case LS_O_ZERO:
        return sh_cmd_err(lr->lr_cx, "ls", 2,
                          "%s is not supported in this box",
                          id == 'D'   ? "--dired"
                          : id == 'Z' ? "--context"
                          : id == LS_O_ZERO ? "--zero"
                                            : "--hyperlink");
    case LS_O_BLOCK:
        if (strcmp(arg, "K") != 0 && strcmp(arg, "1K") != 0 &&
            strcmp(arg, "1024") != 0 && strcmp(arg, "KiB") != 0)
            return sh_cmd_err(lr->lr_cx, "ls", 2,
                              "--block-size=%s is not supported in this box "
                              "(1K blocks, -h, --si are)",
                              arg);
        break;
    case 'T': break; // tab stops at 8 (GNU's default) are what it writes
    case 'w': {
        char *end;
        errno = 0;
        unsigned long w = strtoul(arg, &end, 10);
        if (*arg == '\0' || *end != '\0' || errno != 0 || w > 1000000) {
            char *q = sh_gquote(arg);
            sh_cmd_err(lr->lr_cx, "ls", 2, "invalid line width: %s",
                       q != NULL ? q : arg);
            box_free(q);
            return 2;
        }
        o->lo_width = w == 0 ? 1000000 : (unsigned)w;
        o->lo_no_tabs = w == 0;
        break;
    }
    default:
        break;
    }
    return 0;
}

/* TIME_STYLE's values as GNU checks them (only when a date is shown): a
 * word, posix-word, or +FORMAT. */
static int
ls_check_style(ls_run *lr)
{
    const char *s = lr->lr_o.lo_time_style;
    if (s == NULL || s[0] == '+' || lr->lr_o.lo_format != LS_FMT_LONG)
        return 0;
    const char *w = strncmp(s, "posix-", 6) == 0 ? s + 6 : s;
    if (strcmp(w, "full-iso") == 0 || strcmp(w, "long-iso") == 0 ||
        strcmp(w, "iso") == 0 || strcmp(w, "locale") == 0)
        return 0;
    char *q = sh_gquote(w);
    sh_cmd_err(lr->lr_cx, "ls", 2, "invalid argument %s for \xe2\x80\x98time style\xe2\x80\x99",
               q != NULL ? q : w);
    box_free(q);
    (void)sh_puts(lr->lr_cx, 2,
                  "Valid arguments are:\n"
                  "  - [posix-]full-iso\n"
                  "  - [posix-]long-iso\n"
                  "  - [posix-]iso\n"
                  "  - [posix-]locale\n"
                  "  - +FORMAT (e.g., +%H:%M) for a 'date'-style format\n"
                  "Try 'ls --help' for more information.\n");
    return 2;
}

/*
 * ls: box-spec §3.3/§3.6 and GNU coreutils 9.1. The output is never a
 * terminal: one name per line unless -C, -x or -m, names as they are.
 * Operands: files first, then each directory, blocks separated by a
 * blank line (GNU).
 */
int
sh_cmd_ls(sh_ctx *cx, int argc, char **argv, const sh_opts *unused)
{
    (void)unused;
    static char *const dot[] = {(char *)".", NULL};
    ls_run lr = {
        .lr_cx = cx,
        .lr_o = {.lo_owner = true, .lo_group = true, .lo_width = 80,
                 .lo_deref = LS_DEREF_ARGS_DIRS},
        .lr_out = {.lw_cx = cx, .lw_now = (int64_t)time(NULL)},
    };
    box_buf_init(&lr.lr_out.lw_buf, LS_OUT_MAX);
    ls_ops lo = {0};
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &ls_spec, argc, argv);
    bool sorted = false, timed = false, deref_set = false;
    lr.lr_o.lo_ignore = box_calloc((size_t)argc + 1, sizeof *lr.lr_o.lo_ignore);
    const char *arg;
    int id, st = 0;
    if (lr.lr_o.lo_ignore == NULL) {
        lr.lr_status = sh_cmd_err(cx, "ls", 2, "out of memory");
        goto out;
    }
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        deref_set |= id == 'H' || id == 'L' || id == LS_O_DEREF_DIRS;
        if ((st = ls_option(&lr, &it, id, arg, &sorted, &timed)) != 0)
            break;
    }
    if (id == SH_GOPT_EXIT || st != 0) {
        lr.lr_status = st;
        goto out;
    }
    const char *env_style = sh_var_get(cx->cx_st, "TIME_STYLE");
    if (lr.lr_o.lo_time_style == NULL && env_style != NULL && *env_style)
        lr.lr_o.lo_time_style = env_style;
    if ((lr.lr_status = ls_check_style(&lr)) != 0)
        goto out;
    const char *cols = sh_var_get(cx->cx_st, "COLUMNS");
    if (cols != NULL && *cols != '\0') {
        char *end;
        unsigned long w = strtoul(cols, &end, 10);
        if (*end == '\0' && w > 0 && w <= 1000000)
            lr.lr_o.lo_width = (unsigned)w;
    }
    ls_opts *o = &lr.lr_o;
    // -c and -u alone sort by that time; with -l they only show it.
    if (timed && !sorted && o->lo_format != LS_FMT_LONG)
        o->lo_sort = LS_SORT_TIME;
    // GNU shows links on the command line as links under -l, -d and -F.
    if (!deref_set && (o->lo_format == LS_FMT_LONG || o->lo_dirs_as_files ||
                       o->lo_ind == LS_IND_CLASSIFY))
        o->lo_deref = LS_DEREF_NEVER;
    char *const *ops = it.gi_nops > 0 ? it.gi_ops : dot;
    size_t nops = it.gi_nops > 0 ? (size_t)it.gi_nops : 1;
    lo.lo_files = box_calloc(nops, sizeof *lo.lo_files);
    lo.lo_dirs = box_calloc(nops, sizeof *lo.lo_dirs);
    if (lo.lo_files == NULL || lo.lo_dirs == NULL) {
        lr.lr_status = sh_cmd_err(cx, "ls", 2, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nops; i++) {
        if (sh_check_stop(cx)) {
            lr.lr_status = cx->cx_status;
            goto out;
        }
        if (ls_classify(&lr, &lo, ops[i]) != 0)
            goto out;
    }
    if (!ls_sort(o, lo.lo_files, lo.lo_nfiles)) {
        lr.lr_status = sh_cmd_err(cx, "ls", 2, "out of memory");
        goto out;
    }
    if (lo.lo_nfiles > 0) {
        if (!ls_fmt_block(&lr.lr_out, o, lo.lo_files, lo.lo_nfiles, false) ||
            !ls_out_flush(&lr.lr_out)) {
            lr.lr_status = lr.lr_out.lw_status;
            goto out;
        }
        lr.lr_printed = true;
    }
    // Directory operands in the order the files' sort gives them (-t by
    // their times, -S by size …), as GNU sorts them; stable.
    if (o->lo_sort != LS_SORT_NONE && lo.lo_ndirs > 1) {
        for (size_t i = 1; i < lo.lo_ndirs; i++)
            for (size_t j = i; j > 0; j--) {
                ls_dirop *x = &lo.lo_dirs[j - 1], *y = &lo.lo_dirs[j];
                ls_ent a = {.le_name = (char *)x->ld_name,
                            .le_st = x->ld_st,
                            .le_have_st = true};
                ls_ent b = {.le_name = (char *)y->ld_name,
                            .le_st = y->ld_st,
                            .le_have_st = true};
                if (ls_cmp(o, &a, &b) <= 0)
                    break;
                ls_dirop t = lo.lo_dirs[j];
                lo.lo_dirs[j] = lo.lo_dirs[j - 1];
                lo.lo_dirs[j - 1] = t;
            }
    }
    lr.lr_headers = nops > 1 || o->lo_recursive;
    for (size_t i = 0; i < lo.lo_ndirs; i++) {
        if (sh_check_stop(cx)) {
            lr.lr_status = cx->cx_status;
            goto out;
        }
        ls_dirop *d = &lo.lo_dirs[i];
        ls_chain top = {NULL, d->ld_dev, d->ld_ino};
        int rc = d->ld_names != NULL
                     ? ls_show_dir(&lr, d->ld_name, d->ld_names, d->ld_n, &top, 0)
                     : ls_list_dir(&lr, d->ld_name, 2, &top, 0);
        if (rc == LS_STOP) {
            if (lr.lr_out.lw_status != 0)
                lr.lr_status = lr.lr_out.lw_status;
            goto out;
        }
    }
out:
    sh_gopt_free(&it);
    box_free(lr.lr_o.lo_ignore);
    box_buf_reset(&lr.lr_out.lw_buf);
    ops_free(&lo);
    return lr.lr_status;
}
