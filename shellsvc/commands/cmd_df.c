/* SPDX-License-Identifier: Apache-2.0 */
/* df [OPTION]... [FILE]...: the box's file systems in GNU coreutils 9.1's
 * layout. A box has two kinds: its host binds (statfs's figures, named
 * "box:bind") and its in-memory tree (mounted on "/", named "box:memory";
 * only what it holds is known). Each name is asked as a stat is
 * (fs:read read_metadata). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_files.h"
#include "cmd_size.h"
#include "sh_gopt.h"

enum {
    DF_SI = SH_GOPT_LONG_ONLY,
    DF_TOTAL,
    DF_OUTPUT,
    DF_SYNC,
    DF_NO_SYNC,
};

static const sh_gopt df_opts[] = {
    {'a', "all", SH_GARG_NONE},
    {'B', "block-size", SH_GARG_REQ},
    {'h', "human-readable", SH_GARG_NONE},
    {'H', NULL, SH_GARG_NONE},
    {DF_SI, "si", SH_GARG_NONE},
    {'i', "inodes", SH_GARG_NONE},
    {'k', NULL, SH_GARG_NONE},
    {'l', "local", SH_GARG_NONE},
    {DF_NO_SYNC, "no-sync", SH_GARG_NONE},
    {DF_OUTPUT, "output", SH_GARG_OPT},
    {'P', "portability", SH_GARG_NONE},
    {DF_SYNC, "sync", SH_GARG_NONE},
    {DF_TOTAL, "total", SH_GARG_NONE},
    {'t', "type", SH_GARG_REQ},
    {'T', "print-type", SH_GARG_NONE},
    {'x', "exclude-type", SH_GARG_REQ},
    {'v', NULL, SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec df_spec = {
    .gs_cmd = "df",
    .gs_opts = df_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: df [OPTION]... [FILE]...\n"
        "Show information about the file system on which each FILE resides"
        ",\n"
        "or all file systems by default.\n"
        "\n"
        "In this box the file systems are its host binds (box:bind) and its"
        "\n"
        "in-memory tree (box:memory, mounted on /).\n"
        "\n"
        "  -a, --all             include pseudo, duplicate, inaccessible fi"
        "le systems\n"
        "  -B, --block-size=SIZE  scale sizes by SIZE before printing them\n"
        "  -h, --human-readable  print sizes in powers of 1024 (e.g., 1023M"
        ")\n"
        "  -H, --si              print sizes in powers of 1000 (e.g., 1.1G)"
        "\n"
        "  -i, --inodes          list inode information instead of block us"
        "age\n"
        "  -k                    like --block-size=1K\n"
        "      --output[=FIELD_LIST]  use the output format defined by FIEL"
        "D_LIST,\n"
        "                               or print all fields if FIELD_LIST i"
        "s omitted.\n"
        "  -P, --portability     use the POSIX output format\n"
        "      --total           elide all entries insignificant to availab"
        "le space,\n"
        "                          and produce a grand total\n"
        "  -T, --print-type      print file system type\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

/* ORDER DF_FIELD: df_fields follows it; --output's names are GNU's. */
enum df_field {
    F_SOURCE,
    F_FSTYPE,
    F_ITOTAL,
    F_IUSED,
    F_IAVAIL,
    F_IPCENT,
    F_SIZE,
    F_USED,
    F_AVAIL,
    F_PCENT,
    F_FILE,
    F_TARGET,
    F_COUNT
};

static const struct {
    const char *name;
    const char *header;
    bool left; // left-aligned (text), else right (numbers)
} df_fields[F_COUNT] = {
    [F_SOURCE] = {"source", "Filesystem", true},
    [F_FSTYPE] = {"fstype", "Type", true},
    [F_ITOTAL] = {"itotal", "Inodes", false},
    [F_IUSED] = {"iused", "IUsed", false},
    [F_IAVAIL] = {"iavail", "IFree", false},
    [F_IPCENT] = {"ipcent", "IUse%", false},
    [F_SIZE] = {"size", "1K-blocks", false},
    [F_USED] = {"used", "Used", false},
    [F_AVAIL] = {"avail", "Available", false},
    [F_PCENT] = {"pcent", "Use%", false},
    [F_FILE] = {"file", "File", true},
    [F_TARGET] = {"target", "Mounted on", true},
};

#define DF_MAX_ROWS 256

typedef struct df_run {
    sh_ctx *dr_cx;
    enum df_field dr_cols[F_COUNT];
    size_t dr_ncols;
    bool dr_human, dr_si, dr_posix;
    uint64_t dr_block;
    char *dr_cells[DF_MAX_ROWS + 2][F_COUNT]; // header, rows, total
    size_t dr_nrows;
    char dr_size_header[32];
} df_run;

/* A count of blocks in the run's unit (or human), "-" when unknown. */
static char *
df_amount(const df_run *dr, uint64_t bytes, bool known)
{
    char buf[64];
    if (!known)
        return box_strdup("-");
    if (dr->dr_human || dr->dr_si)
        cmd_size_human(bytes, dr->dr_si, buf, sizeof buf);
    else
        snprintf(buf, sizeof buf, "%" PRIu64,
                 bytes / dr->dr_block + (bytes % dr->dr_block != 0));
    return box_strdup(buf);
}

/* GNU's percentage: used / (used + available), rounded up. */
static char *
df_percent(uint64_t used, uint64_t avail, bool known)
{
    char buf[16];
    if (!known || used + avail == 0)
        return box_strdup("-");
    unsigned __int128 num = (unsigned __int128)used * 100;
    uint64_t pct = (uint64_t)((num + used + avail - 1) / (used + avail));
    snprintf(buf, sizeof buf, "%" PRIu64 "%%", pct);
    return box_strdup(buf);
}

static char *
df_count(uint64_t v)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%" PRIu64, v);
    return box_strdup(buf);
}

/* One row of cells for fs (file: the operand, or "-"). False when out
 * of memory or the table is full. */
static bool
df_row(df_run *dr, const sh_kernel_fs *fs, const char *file)
{
    if (dr->dr_nrows >= DF_MAX_ROWS + 1)
        return false;
    char **c = dr->dr_cells[++dr->dr_nrows];
    bool h = fs->kfs_host;
    uint64_t total = fs->kfs_blocks * fs->kfs_bsize;
    uint64_t avail = fs->kfs_bavail * fs->kfs_bsize;
    uint64_t iused = fs->kfs_files - fs->kfs_ffree;
    for (size_t i = 0; i < dr->dr_ncols; i++) {
        enum df_field f = dr->dr_cols[i];
        char *v = NULL;
        switch (f) {
        case F_SOURCE: v = box_strdup(h ? "box:bind" : "box:memory"); break;
        case F_FSTYPE: v = box_strdup(h ? "bind" : "memory"); break;
        case F_ITOTAL: v = df_count(fs->kfs_files); break;
        case F_IUSED: v = df_count(iused); break;
        case F_IAVAIL: v = df_count(fs->kfs_ffree); break;
        case F_IPCENT: v = df_percent(iused, fs->kfs_ffree, true); break;
        case F_SIZE: v = df_amount(dr, total, h); break;
        case F_USED: v = df_amount(dr, fs->kfs_used_bytes, true); break;
        case F_AVAIL: v = df_amount(dr, avail, h); break;
        case F_PCENT:
            v = df_percent(fs->kfs_used_bytes, avail, h);
            break;
        case F_FILE: v = box_strdup(file); break;
        case F_TARGET: v = box_strdup(fs->kfs_mount); break;
        default: v = box_strdup("-"); break;
        }
        if (v == NULL)
            return false;
        c[f] = v;
    }
    return true;
}

/* The table, each column as wide as its widest cell (GNU's least
 * widths: 14 for the file system, 5 for a count), joined by one space;
 * the last not padded. */
static bool
df_print(df_run *dr, size_t rows)
{
    size_t w[F_COUNT] = {0};
    for (size_t i = 0; i < dr->dr_ncols; i++) {
        enum df_field f = dr->dr_cols[i];
        w[f] = f == F_SOURCE ? 14
               : df_fields[f].left || f == F_PCENT || f == F_IPCENT ? 0
                                                                  : 5;
        for (size_t r = 0; r < rows; r++)
            if (dr->dr_cells[r][f] != NULL && strlen(dr->dr_cells[r][f]) > w[f])
                w[f] = strlen(dr->dr_cells[r][f]);
    }
    box_buf b;
    box_buf_init(&b, SIZE_MAX);
    bool ok = true;
    for (size_t r = 0; r < rows && ok; r++) {
        for (size_t i = 0; i < dr->dr_ncols && ok; i++) {
            enum df_field f = dr->dr_cols[i];
            const char *v = dr->dr_cells[r][f] ? dr->dr_cells[r][f] : "";
            bool last = i + 1 == dr->dr_ncols;
            int width = last && df_fields[f].left ? 0 : (int)w[f];
            ok = box_buf_printf(&b, df_fields[f].left ? "%s%-*s" : "%s%*s",
                                i ? " " : "", width, v) == BOX_OK;
        }
        ok = ok && box_buf_putc(&b, '\n') == BOX_OK;
    }
    ok = ok && sh_write(dr->dr_cx, 1, b.b_data, b.b_len) == SH_IO_OK;
    box_buf_reset(&b);
    return ok;
}

/* --output=LIST: GNU's field names, each once. 0 or the status. */
static int
df_output(df_run *dr, sh_gopt_iter *it, const char *list)
{
    dr->dr_ncols = 0;
    if (list == NULL) {
        for (int f = 0; f < F_COUNT; f++)
            dr->dr_cols[dr->dr_ncols++] = (enum df_field)f;
        return 0;
    }
    for (const char *p = list; *p != '\0';) {
        size_t l = strcspn(p, ",");
        int found = -1;
        for (int f = 0; f < F_COUNT; f++)
            if (strlen(df_fields[f].name) == l &&
                strncmp(df_fields[f].name, p, l) == 0)
                found = f;
        char *name = box_strndup(p, l);
        if (found < 0 || name == NULL) {
            char *q = name ? cmd_quote(CMD_QL, name) : NULL;
            sh_errf(dr->dr_cx, "df: %s: not a valid field for --output",
                    q ? q : "?");
            box_free(q);
            box_free(name);
            return sh_gopt_try(it);
        }
        for (size_t i = 0; i < dr->dr_ncols; i++)
            if (dr->dr_cols[i] == (enum df_field)found) {
                char *q = cmd_quote(CMD_QL, name);
                sh_errf(dr->dr_cx, "df: option --output: field %s used more "
                        "than once", q ? q : name);
                box_free(q);
                box_free(name);
                return sh_gopt_try(it);
            }
        box_free(name);
        dr->dr_cols[dr->dr_ncols++] = (enum df_field)found;
        p += l + (p[l] == ',');
    }
    return 0;
}

/* The columns GNU shows for the options given (no --output). */
static void
df_default_cols(df_run *dr, bool inodes, bool type)
{
    static const enum df_field blocks[] = {F_SIZE, F_USED, F_AVAIL, F_PCENT};
    static const enum df_field inos[] = {F_ITOTAL, F_IUSED, F_IAVAIL,
                                         F_IPCENT};
    dr->dr_ncols = 0;
    dr->dr_cols[dr->dr_ncols++] = F_SOURCE;
    if (type)
        dr->dr_cols[dr->dr_ncols++] = F_FSTYPE;
    for (size_t i = 0; i < 4; i++)
        dr->dr_cols[dr->dr_ncols++] = inodes ? inos[i] : blocks[i];
    dr->dr_cols[dr->dr_ncols++] = F_TARGET;
}

/* The header row: the size column names its unit. */
static bool
df_header(df_run *dr)
{
    uint64_t b = dr->dr_block;
    if (dr->dr_human || dr->dr_si)
        snprintf(dr->dr_size_header, sizeof dr->dr_size_header, "Size");
    else if (dr->dr_posix && b == 1024)
        snprintf(dr->dr_size_header, sizeof dr->dr_size_header,
                 "1024-blocks");
    else if (b % (1024 * 1024) == 0 && b / (1024 * 1024) < 1024)
        snprintf(dr->dr_size_header, sizeof dr->dr_size_header,
                 "%" PRIu64 "M-blocks", b / (1024 * 1024));
    else if (b % 1024 == 0)
        snprintf(dr->dr_size_header, sizeof dr->dr_size_header,
                 "%" PRIu64 "K-blocks", b / 1024);
    else
        snprintf(dr->dr_size_header, sizeof dr->dr_size_header,
                 "%" PRIu64 "B-blocks", b);
    for (size_t i = 0; i < dr->dr_ncols; i++) {
        enum df_field f = dr->dr_cols[i];
        const char *h = df_fields[f].header;
        if (f == F_SIZE)
            h = dr->dr_size_header;
        else if (f == F_AVAIL && (dr->dr_human || dr->dr_si))
            h = "Avail";
        else if (f == F_PCENT && dr->dr_posix)
            h = "Capacity";
        if ((dr->dr_cells[0][f] = box_strdup(h)) == NULL)
            return false;
    }
    return true;
}

int
sh_cmd_df(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    df_run *dr = box_calloc(1, sizeof *dr);
    const char *arg, *output = NULL;
    bool inodes = false, type = false, total = false, has_output = false;
    int status = 0, id;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &df_spec, argc, argv);
    if (dr == NULL) {
        status = sh_cmd_err(cx, "df", 1, "out of memory");
        goto out;
    }
    dr->dr_cx = cx;
    dr->dr_block = 1024;
    while ((id = sh_gopt_next(&it, &arg, &status)) >= 0) {
        switch (id) {
        case 'B':
            if (!cmd_size_parse_block(arg, &dr->dr_block)) {
                status = sh_gopt_bad_arg(&it, "-B", "--block-size", arg);
                goto out;
            }
            dr->dr_human = dr->dr_si = false;
            break;
        case 'h': dr->dr_human = true; dr->dr_si = false; break;
        case 'H': case DF_SI: dr->dr_si = true; dr->dr_human = false; break;
        case 'i': inodes = true; break;
        case 'k': dr->dr_block = 1024; dr->dr_human = dr->dr_si = false;
                  break;
        case 'P': dr->dr_posix = true; break;
        case 'T': type = true; break;
        case DF_TOTAL: total = true; break;
        case DF_OUTPUT: has_output = true; output = arg; break;
        default: break; // -a -l -t -x --sync: one kind of each here
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (has_output && (inodes || type || dr->dr_posix)) {
        sh_errf(cx, "df: options %s and --output are mutually exclusive",
                inodes ? "-i" : type ? "-T" : "-P");
        status = sh_gopt_try(&it);
        goto out;
    }
    if (has_output) {
        if ((status = df_output(dr, &it, output)) != 0)
            goto out;
    } else {
        df_default_cols(dr, inodes, type);
    }
    if (!df_header(dr)) {
        status = sh_cmd_err(cx, "df", 1, "out of memory");
        goto out;
    }
    sh_kernel_fs sum = {.kfs_host = true, .kfs_mount = "-", .kfs_bsize = 1};
    for (int i = 0;; i++) {
        const char *name = it.gi_nops > 0 ? (i < it.gi_nops ? it.gi_ops[i]
                                                            : NULL)
                                          : sh_kernel_fs_mount(sh_kern(cx),
                                                               (size_t)i);
        if (name == NULL)
            break;
        sh_kernel_fs fs;
        sh_kernel_result r = {0};
        if (sh_kernel_fs_of(sh_kern(cx), cx->cx_st->st_cwd, name, &fs, &r) !=
            0) {
            if (it.gi_nops == 0 && r.kr_outcome != SH_KR_FAULT) {
                sh_kernel_result_clear(&r); // a hidden mount is not listed
                continue;
            }
            if (r.kr_outcome == SH_KR_DENIED) {
                r.kr_outcome = SH_KR_OS_ERROR; // a denied probe is absent
                r.kr_errno = ENOENT;
            }
            status = cmd_worse(status,
                               cmd_failq(cx, "df", &r, NULL, CMD_QF, name));
            if (status == BOX_STATUS_FAULT)
                goto out;
            continue;
        }
        if (!df_row(dr, &fs, it.gi_nops > 0 ? name : "-")) {
            status = sh_cmd_err(cx, "df", 1, "out of memory");
            goto out;
        }
        sum.kfs_host = sum.kfs_host && fs.kfs_host;
        sum.kfs_blocks += fs.kfs_blocks * fs.kfs_bsize;
        sum.kfs_bfree += fs.kfs_bfree * fs.kfs_bsize;
        sum.kfs_bavail += fs.kfs_bavail * fs.kfs_bsize;
        sum.kfs_used_bytes += fs.kfs_used_bytes;
        sum.kfs_files += fs.kfs_files;
        sum.kfs_ffree += fs.kfs_ffree;
    }
    if (dr->dr_nrows == 0 && status == 0) {
        status = sh_cmd_err(cx, "df", 1, "no file systems processed");
        goto out;
    }
    if (total) {
        if (!df_row(dr, &sum, "-")) {
            status = sh_cmd_err(cx, "df", 1, "out of memory");
            goto out;
        }
        char **last = dr->dr_cells[dr->dr_nrows];
        for (int f = 0; f < F_COUNT; f++)
            if (last[f] != NULL && (f == F_SOURCE || f == F_FSTYPE)) {
                box_free(last[f]);
                last[f] = box_strdup(f == F_SOURCE ? "total" : "-");
            }
    }
    if (dr->dr_nrows > 0 && !df_print(dr, dr->dr_nrows + 1))
        status = 1;
out:
    if (dr != NULL)
        for (size_t r = 0; r < DF_MAX_ROWS + 2; r++)
            for (int f = 0; f < F_COUNT; f++)
                box_free(dr->dr_cells[r][f]);
    box_free(dr);
    sh_gopt_free(&it);
    return status;
}
