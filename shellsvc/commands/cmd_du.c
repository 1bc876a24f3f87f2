/* SPDX-License-Identifier: Apache-2.0 */
/* du [OPTION]... [FILE]...: GNU coreutils 9.1's disk usage, the tree
 * walked through the kernel (fs:read enumerate on each directory,
 * read_metadata on each entry). */
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_files.h"
#include "cmd_size.h"
#include "sh_gopt.h"

enum {
    DU_APPARENT = SH_GOPT_LONG_ONLY,
    DU_SI,
    DU_INODES,
    DU_EXCLUDE,
    DU_TIME,
};

static const sh_gopt du_opts[] = {
    {'0', "null", SH_GARG_NONE},
    {'a', "all", SH_GARG_NONE},
    {DU_APPARENT, "apparent-size", SH_GARG_NONE},
    {'B', "block-size", SH_GARG_REQ},
    {'b', "bytes", SH_GARG_NONE},
    {'c', "total", SH_GARG_NONE},
    {'D', "dereference-args", SH_GARG_NONE},
    {'d', "max-depth", SH_GARG_REQ},
    {'H', NULL, SH_GARG_NONE},
    {'h', "human-readable", SH_GARG_NONE},
    {DU_INODES, "inodes", SH_GARG_NONE},
    {'k', NULL, SH_GARG_NONE},
    {'L', "dereference", SH_GARG_NONE},
    {'l', "count-links", SH_GARG_NONE},
    {'m', NULL, SH_GARG_NONE},
    {'P', "no-dereference", SH_GARG_NONE},
    {'S', "separate-dirs", SH_GARG_NONE},
    {DU_SI, "si", SH_GARG_NONE},
    {'s', "summarize", SH_GARG_NONE},
    {'t', "threshold", SH_GARG_REQ},
    {DU_TIME, "time", SH_GARG_OPT},
    {'X', "exclude-from", SH_GARG_REQ},
    {DU_EXCLUDE, "exclude", SH_GARG_REQ},
    {'x', "one-file-system", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec du_spec = {
    .gs_cmd = "du",
    .gs_opts = du_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: du [OPTION]... [FILE]...\n"
        "  or:  du [OPTION]... --files0-from=F\n"
        "Summarize device usage of the set of FILEs, recursively for direct"
        "ories.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short option"
        "s too.\n"
        "  -0, --null            end each output line with NUL, not newline"
        "\n"
        "  -a, --all             write counts for all files, not just direc"
        "tories\n"
        "      --apparent-size   print apparent sizes rather than device us"
        "age; although\n"
        "                          the apparent size is usually smaller, it"
        " may be\n"
        "                          larger due to holes in ('sparse') files,"
        " internal\n"
        "                          fragmentation, indirect blocks, and the "
        "like\n"
        "  -B, --block-size=SIZE  scale sizes by SIZE before printing them;"
        " e.g.,\n"
        "                           '-BM' prints sizes in units of 1,048,57"
        "6 bytes;\n"
        "                           see SIZE format below\n"
        "  -b, --bytes           equivalent to '--apparent-size --block-siz"
        "e=1'\n"
        "  -c, --total           produce a grand total\n"
        "  -D, --dereference-args  dereference only symlinks that are liste"
        "d on the\n"
        "                          command line\n"
        "  -d, --max-depth=N     print the total for a directory (or file, "
        "with --all)\n"
        "                          only if it is N or fewer levels below th"
        "e command\n"
        "                          line argument;  --max-depth=0 is the sam"
        "e as\n"
        "                          --summarize\n"
        "  -H                    equivalent to --dereference-args (-D)\n"
        "  -h, --human-readable  print sizes in human readable format (e.g."
        ", 1K 234M 2G)\n"
        "      --inodes          list inode usage information instead of bl"
        "ock usage\n"
        "  -k                    like --block-size=1K\n"
        "  -L, --dereference     dereference all symbolic links\n"
        "  -l, --count-links     count sizes many times if hard linked\n"
        "  -m                    like --block-size=1M\n"
        "  -P, --no-dereference  don't follow any symbolic links (this is t"
        "he default)\n"
        "  -S, --separate-dirs   for directories do not include size of sub"
        "directories\n"
        "      --si              like -h, but use powers of 1000 not 1024\n"
        "  -s, --summarize       display only a total for each argument\n"
        "  -t, --threshold=SIZE  exclude entries smaller than SIZE if posit"
        "ive,\n"
        "                          or entries greater than SIZE if negative"
        "\n"
        "  -X, --exclude-from=FILE  exclude files that match any pattern in"
        " FILE\n"
        "      --exclude=PATTERN    exclude files that match PATTERN\n"
        "  -x, --one-file-system    skip directories on different file syst"
        "ems\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

/* (dev, ino) pairs already counted: directories and files with more
 * than one link, so a tree reached twice counts once (GNU's rule). */
typedef struct du_seen {
    uint64_t (*ds_keys)[2];
    size_t ds_cap, ds_n; // open addressing, ds_cap a power of two
} du_seen;

typedef struct du_run {
    sh_ctx *dr_cx;
    bool dr_all, dr_apparent, dr_human, dr_si, dr_inodes, dr_summarize;
    bool dr_total, dr_deref, dr_deref_args, dr_count_links, dr_separate;
    bool dr_one_fs, dr_nul;
    bool dr_hash_all; // -L or several operands: every file counts once
    long dr_max_depth;       // -1: no limit
    uint64_t dr_block;       // bytes per unit printed
    int64_t dr_threshold;    // 0: none; < 0: at most -t; > 0: at least t
    const char **dr_exclude; // patterns (borrowed)
    size_t dr_nexclude;
    du_seen dr_seen;
    uint64_t dr_dev; // the operand's device under -x
    int dr_status;
} du_run;

/* Whether (dev, ino) was seen before; records it when not. -1: out of
 * memory. */
static int
du_seen_add(du_seen *s, uint64_t dev, uint64_t ino)
{
    if ((s->ds_n + 1) * 2 > s->ds_cap) {
        size_t cap = s->ds_cap ? s->ds_cap * 2 : 64;
        uint64_t(*k)[2] = box_calloc(cap, sizeof *k);
        if (k == NULL)
            return -1;
        for (size_t i = 0; i < s->ds_cap; i++) {
            if (s->ds_keys[i][0] == 0 && s->ds_keys[i][1] == 0)
                continue;
            size_t h = (size_t)((s->ds_keys[i][1] * 0x9e3779b97f4a7c15u) ^
                                s->ds_keys[i][0]) &
                       (cap - 1);
            while (k[h][0] != 0 || k[h][1] != 0)
                h = (h + 1) & (cap - 1);
            k[h][0] = s->ds_keys[i][0];
            k[h][1] = s->ds_keys[i][1];
        }
        box_free(s->ds_keys);
        s->ds_keys = k;
        s->ds_cap = cap;
    }
    // Key (0, 0) marks an empty slot: shift dev so none is stored so.
    uint64_t kd = dev + 1;
    size_t h = (size_t)((ino * 0x9e3779b97f4a7c15u) ^ kd) & (s->ds_cap - 1);
    while (s->ds_keys[h][0] != 0 || s->ds_keys[h][1] != 0) {
        if (s->ds_keys[h][0] == kd && s->ds_keys[h][1] == ino)
            return 1;
        h = (h + 1) & (s->ds_cap - 1);
    }
    s->ds_keys[h][0] = kd;
    s->ds_keys[h][1] = ino;
    s->ds_n++;
    return 0;
}

/* What one file counts for. */
static uint64_t
du_size(const du_run *dr, const sh_kernel_stat *st)
{
    if (dr->dr_inodes)
        return 1;
    return dr->dr_apparent ? st->ks_size : st->ks_blocks * 512;
}

/* One line: the size as the options print it, a tab, the name. */
static bool
du_print(du_run *dr, uint64_t v, const char *name)
{
    if (dr->dr_threshold > 0 && v < (uint64_t)dr->dr_threshold)
        return true;
    if (dr->dr_threshold < 0 && v > (uint64_t)-dr->dr_threshold)
        return true;
    char num[64];
    if (dr->dr_inodes)
        snprintf(num, sizeof num, "%" PRIu64, v);
    else if (dr->dr_human || dr->dr_si)
        cmd_size_human(v, dr->dr_si, num, sizeof num);
    else
        snprintf(num, sizeof num, "%" PRIu64,
                 v / dr->dr_block + (v % dr->dr_block != 0));
    sh_ctx *cx = dr->dr_cx;
    char end = dr->dr_nul ? '\0' : '\n';
    return sh_write(cx, 1, num, strlen(num)) == SH_IO_OK &&
           sh_write(cx, 1, "\t", 1) == SH_IO_OK &&
           sh_write(cx, 1, name, strlen(name)) == SH_IO_OK &&
           sh_write(cx, 1, &end, 1) == SH_IO_OK;
}

/* Whether --exclude names this entry (its last component or its path). */
static bool
du_excluded(const du_run *dr, const char *path)
{
    const char *base = strrchr(path, '/');
    base = base != NULL && base[1] != '\0' ? base + 1 : path;
    for (size_t i = 0; i < dr->dr_nexclude; i++)
        if (fnmatch(dr->dr_exclude[i], base, 0) == 0 ||
            fnmatch(dr->dr_exclude[i], path, 0) == 0)
            return true;
    return false;
}

/* A failed step: GNU's message, status 1 (125 for a fault). */
static void
du_fail(du_run *dr, sh_kernel_result *r, const char *what, const char *path)
{
    dr->dr_status =
        cmd_worse(dr->dr_status, cmd_failq(dr->dr_cx, "du", r, what, CMD_QAF,
                                           path));
}

/* What one name adds to its directory: all its usage, and the part that
 * is not a directory's (-S shows a directory with only its files). */
typedef struct du_sum {
    uint64_t ds_total, ds_files;
} du_sum;

static bool du_walk(du_run *dr, const char *path, long depth, du_sum *sum);

/* A directory's entries added into sum. False to stop. */
static bool
du_entries(du_run *dr, const char *path, long depth, du_sum *sum)
{
    sh_ctx *cx = dr->dr_cx;
    sh_kernel_result r = {0};
    char **names = NULL;
    size_t n = 0;
    if (cmd_list(cx, path, CMD_LIST_READDIR, &names, &n, &r) != 0) {
        du_fail(dr, &r, "cannot read directory", path);
        return dr->dr_status != BOX_STATUS_FAULT;
    }
    bool go = true;
    for (size_t i = 0; i < n && go; i++) {
        char *c = cmd_join(path, names[i]);
        if (c == NULL) {
            dr->dr_status = sh_cmd_err(cx, "du", 1, "out of memory");
            go = false;
        } else {
            go = du_walk(dr, c, depth + 1, sum);
        }
        box_free(c);
    }
    sh_kernel_names_free(names, n);
    return go;
}

/*
 * path's usage added into *up, its line printed after its entries'
 * (post-order). depth 0 is an operand. False to stop (output gone, call
 * over, a fault).
 */
static bool
du_walk(du_run *dr, const char *path, long depth, du_sum *up)
{
    sh_ctx *cx = dr->dr_cx;
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    if (sh_check_stop(cx)) {
        dr->dr_status = cx->cx_status;
        return false;
    }
    if (depth > 0 && du_excluded(dr, path))
        return true;
    bool follow = dr->dr_deref || (depth == 0 && dr->dr_deref_args);
    int err = follow ? sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd,
                                           path, &st, &r)
                     : sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd, path,
                                       &st, &r);
    if (err != 0 || path[0] == '\0') {
        if (r.kr_outcome == SH_KR_DENIED || r.kr_outcome == SH_KR_OK) {
            r.kr_outcome = SH_KR_OS_ERROR; // a denied probe is absent
            r.kr_errno = ENOENT;
        }
        du_fail(dr, &r, "cannot access", path);
        return dr->dr_status != BOX_STATUS_FAULT;
    }
    if (depth == 0)
        dr->dr_dev = st.ks_dev;
    else if (dr->dr_one_fs && st.ks_dev != dr->dr_dev)
        return true;
    bool dir = S_ISDIR(st.ks_mode);
    if (dir || (!dr->dr_count_links && (st.ks_nlink > 1 || dr->dr_hash_all))) {
        int seen = du_seen_add(&dr->dr_seen, st.ks_dev, st.ks_ino);
        if (seen < 0) {
            dr->dr_status = sh_cmd_err(cx, "du", 1, "out of memory");
            return false;
        }
        if (seen > 0)
            return true; // counted already, and not shown again
    }
    uint64_t own = du_size(dr, &st);
    du_sum below = {0};
    if (dir && depth >= CMD_MAX_DEPTH)
        dr->dr_status = cmd_worse(
            dr->dr_status,
            cmd_errq(cx, "du", 1, "directory tree too deep:", CMD_QAF, path));
    else if (dir && !du_entries(dr, path, depth, &below))
        return false;
    uint64_t total = own + below.ds_total;
    uint64_t shown = dr->dr_separate ? own + below.ds_files : total;
    bool print = dir ? (!dr->dr_summarize || depth == 0)
                     : (dr->dr_all || depth == 0);
    if (dr->dr_max_depth >= 0 && depth > dr->dr_max_depth)
        print = false;
    if (print && !du_print(dr, shown, path))
        return false;
    up->ds_total += total;
    if (!dir)
        up->ds_files += total;
    return true;
}

/* -X FILE: one pattern a line, read through the kernel. */
static int
du_exclude_from(du_run *dr, const char *file, box_buf *hold)
{
    int st = 0;
    sh_input *in = sh_input_open(dr->dr_cx, "du", file, &st);
    if (in == NULL)
        return st;
    char chunk[4096];
    ssize_t n;
    while ((n = sh_input_read(in, chunk, sizeof chunk)) > 0)
        if (box_buf_append(hold, chunk, (size_t)n) != BOX_OK) {
            sh_input_close(in);
            return sh_cmd_err(dr->dr_cx, "du", 1, "%s: too many patterns",
                              file);
        }
    sh_input_close(in);
    if (n < 0)
        return sh_cmd_err(dr->dr_cx, "du", 1, "%s: read error", file);
    return 0;
}

/* GNU's threshold: a size with units, negative for "at most"; -0 is
 * refused. */
static int
du_threshold(sh_gopt_iter *it, const char *arg, int64_t *out)
{
    uint64_t v = 0;
    bool neg = arg[0] == '-';
    const char *p = neg ? arg + 1 : arg;
    if (*p == '\0' || !(*p >= '0' && *p <= '9') ||
        (strcmp(p, "0") != 0 && !cmd_size_parse_block(p, &v)) ||
        v > INT64_MAX)
        return sh_gopt_bad_arg(it, "-t", "--threshold", arg);
    if (neg && v == 0) {
        char *q = cmd_quote(CMD_QAF, arg);
        sh_errf(it->gi_cx, "du: invalid --threshold argument %s", q ? q : arg);
        box_free(q);
        return 1;
    }
    *out = neg ? -(int64_t)v : (int64_t)v;
    return 0;
}

int
sh_cmd_du(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    du_run dr = {.dr_cx = cx, .dr_max_depth = -1, .dr_block = 1024};
    const char *arg;
    const char **pats = NULL;
    box_buf xfile;
    int status = 0, id;
    sh_gopt_iter it;
    box_buf_init(&xfile, 1u << 20);
    sh_gopt_init(&it, cx, &du_spec, argc, argv);
    size_t npats = 0;
    while ((id = sh_gopt_next(&it, &arg, &status)) >= 0) {
        switch (id) {
        case '0': dr.dr_nul = true; break;
        case 'a': dr.dr_all = true; break;
        case DU_APPARENT: dr.dr_apparent = true; break;
        case 'b': dr.dr_apparent = true; dr.dr_block = 1;
                  dr.dr_human = dr.dr_si = false; break;
        case 'B':
            if (!cmd_size_parse_block(arg, &dr.dr_block)) {
                status = sh_gopt_bad_arg(&it, "-B", "--block-size", arg);
                goto out;
            }
            dr.dr_human = dr.dr_si = false;
            break;
        case 'c': dr.dr_total = true; break;
        case 'D': case 'H': dr.dr_deref_args = true; break;
        case 'd': {
            char *end;
            errno = 0;
            long v = strtol(arg, &end, 10);
            if (*arg == '\0' || *end != '\0' || v < 0 || errno != 0) {
                char *q = cmd_quote(CMD_QL, arg);
                sh_errf(cx, "du: invalid maximum depth %s", q ? q : arg);
                box_free(q);
                status = sh_gopt_try(&it);
                goto out;
            }
            dr.dr_max_depth = v;
            break;
        }
        case 'h': dr.dr_human = true; dr.dr_si = false; break;
        case DU_SI: dr.dr_si = true; dr.dr_human = false; break;
        case DU_INODES: dr.dr_inodes = true; break;
        case 'k': dr.dr_block = 1024; dr.dr_human = dr.dr_si = false; break;
        case 'm': dr.dr_block = 1024 * 1024; dr.dr_human = dr.dr_si = false;
                  break;
        case 'L': dr.dr_deref = true; break;
        case 'P': dr.dr_deref = dr.dr_deref_args = false; break;
        case 'l': dr.dr_count_links = true; break;
        case 'S': dr.dr_separate = true; break;
        case 's': dr.dr_summarize = true; break;
        case 't':
            if ((status = du_threshold(&it, arg, &dr.dr_threshold)) != 0)
                goto out;
            break;
        case 'X':
            if ((status = du_exclude_from(&dr, arg, &xfile)) != 0)
                goto out;
            break;
        case DU_EXCLUDE: {
            const char **np = box_realloc(pats, (npats + 1) * sizeof *np);
            if (np == NULL) {
                status = sh_cmd_err(cx, "du", 1, "out of memory");
                goto out;
            }
            pats = np;
            pats[npats++] = arg;
            break;
        }
        case DU_TIME:
            status = sh_cmd_err(cx, "du", 1,
                                "--time is not supported in this box");
            goto out;
        case 'x': dr.dr_one_fs = true; break;
        default: break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (dr.dr_summarize && dr.dr_max_depth > 0) {
        sh_errf(cx, "du: cannot both summarize and show all entries");
        status = sh_gopt_try(&it);
        goto out;
    }
    if (dr.dr_summarize && dr.dr_all) {
        sh_errf(cx, "du: cannot both summarize and show all entries");
        status = sh_gopt_try(&it);
        goto out;
    }
    // -X's patterns, one a line (an empty one names nothing).
    if (xfile.b_len > 0 && xfile.b_data[xfile.b_len - 1] != '\n' &&
        box_buf_putc(&xfile, '\n') != BOX_OK) {
        status = sh_cmd_err(cx, "du", 1, "out of memory");
        goto out;
    }
    for (size_t off = 0; off < xfile.b_len;) {
        char *line = xfile.b_data + off;
        char *nl = memchr(line, '\n', xfile.b_len - off);
        *nl = '\0';
        off = (size_t)(nl - xfile.b_data) + 1;
        if (*line == '\0')
            continue;
        const char **np = box_realloc(pats, (npats + 1) * sizeof *np);
        if (np == NULL) {
            status = sh_cmd_err(cx, "du", 1, "out of memory");
            goto out;
        }
        pats = np;
        pats[npats++] = line;
    }
    dr.dr_exclude = pats;
    dr.dr_nexclude = npats;
    du_sum all = {0};
    char *dot[] = {"."};
    char **ops = it.gi_nops > 0 ? it.gi_ops : dot;
    int nops = it.gi_nops > 0 ? it.gi_nops : 1;
    bool go = true;
    dr.dr_hash_all = dr.dr_deref || nops > 1;
    for (int i = 0; i < nops && go; i++)
        go = du_walk(&dr, ops[i], 0, &all);
    if (go && dr.dr_total)
        (void)du_print(&dr, all.ds_total, "total");
    status = dr.dr_status;
out:
    box_free(pats);
    box_free(dr.dr_seen.ds_keys);
    box_buf_reset(&xfile);
    sh_gopt_free(&it);
    return status;
}
