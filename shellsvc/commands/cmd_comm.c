/* SPDX-License-Identifier: Apache-2.0 */
/* comm [-123z] [--check-order|--nocheck-order] [--output-delimiter=STR]
 * [--total] FILE1 FILE2: GNU coreutils 9.1 in C.UTF-8, the lines of two
 * sorted files in three columns. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define COMM_CHUNK (64u * 1024u)   // output gathered per write
#define COMM_LINE_MAX (256u << 20) // one line held whole

enum {
    COMM_OPT_CHECK = SH_GOPT_LONG_ONLY,
    COMM_OPT_NOCHECK,
    COMM_OPT_DELIM,
    COMM_OPT_TOTAL,
};

static const sh_gopt comm_opts[] = {
    {'1', NULL, SH_GARG_NONE},
    {'2', NULL, SH_GARG_NONE},
    {'3', NULL, SH_GARG_NONE},
    {'z', "zero-terminated", SH_GARG_NONE},
    {COMM_OPT_CHECK, "check-order", SH_GARG_NONE},
    {COMM_OPT_NOCHECK, "nocheck-order", SH_GARG_NONE},
    {COMM_OPT_DELIM, "output-delimiter", SH_GARG_REQ},
    {COMM_OPT_TOTAL, "total", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec comm_spec = {
    .gs_cmd = "comm",
    .gs_opts = comm_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: comm [OPTION]... FILE1 FILE2\n"
        "Compare sorted files FILE1 and FILE2 line by line.\n"
        "\n"
        "When FILE1 or FILE2 (not both) is -, read standard input.\n"
        "\n"
        "With no options, produce three-column output.  Column one "
        "contains\n"
        "lines unique to FILE1, column two contains lines unique to FILE2,\n"
        "and column three contains lines common to both files.\n"
        "\n"
        "  -1                      suppress column 1 (lines unique to "
        "FILE1)\n"
        "  -2                      suppress column 2 (lines unique to "
        "FILE2)\n"
        "  -3                      suppress column 3 (lines that appear in "
        "both files)\n"
        "\n"
        "      --check-order       check that the input is correctly "
        "sorted, even\n"
        "                            if all input lines are pairable\n"
        "      --nocheck-order     do not check that the input is "
        "correctly sorted\n"
        "      --output-delimiter=STR  separate columns with STR\n"
        "      --total             output a summary\n"
        "  -z, --zero-terminated   line delimiter is NUL, not newline\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "Note, comparisons honor the rules specified by 'LC_COLLATE'.\n"
        "\n"
        "Examples:\n"
        "  comm -12 file1 file2  Print only lines present in both file1 "
        "and file2.\n"
        "  comm -3 file1 file2  Print lines in file1 not in file2, and "
        "vice versa.\n",
};

typedef enum comm_check {
    COMM_CHECK_DEFAULT, // once a line was unpairable: warn, status 1
    COMM_CHECK_ON,      // --check-order: the first disorder is fatal
    COMM_CHECK_OFF,     // --nocheck-order
} comm_check;

/* One input: the line now compared and the one before it. */
typedef struct comm_file {
    sh_input *cf_in;
    box_buf cf_line[2];
    int cf_cur;  // index of the current line in cf_line
    bool cf_has; // cf_line[cf_cur] holds a line (not at the end)
    bool cf_warned;
} comm_file;

typedef struct comm_run {
    sh_cmd_run cm_run;
    comm_file cm_f[2];
    bool cm_show[3]; // columns not suppressed by -1 -2 -3
    comm_check cm_check;
    bool cm_unpaired; // a line so far was in one file only
    bool cm_total;    // --total
    const char *cm_delim;
    size_t cm_dlen; // 1 for "" (GNU: a NUL byte then)
    char cm_eol;
    uintmax_t cm_count[3];
    box_buf cm_out;
} comm_run;

/* ---- reading ---- */

/* C.UTF-8 collates by code point: for UTF-8 text the order of bytes. */
static int
comm_cmp(const box_buf *a, const box_buf *b)
{
    size_t n = a->b_len < b->b_len ? a->b_len : b->b_len;
    int c = n > 0 ? memcmp(a->b_data, b->b_data, n) : 0;
    if (c != 0)
        return c;
    return a->b_len < b->b_len ? -1 : a->b_len > b->b_len;
}

static bool
comm_flush(comm_run *r)
{
    bool ok = sh_cmd_emit(&r->cm_run, r->cm_out.b_data, r->cm_out.b_len);
    box_buf_truncate(&r->cm_out, 0);
    return ok;
}

/* The next line of file i (0 or 1) into its current slot, the line
 * before kept for the order check. False to stop. */
static bool
comm_step(comm_run *r, int i)
{
    comm_file *f = &r->cm_f[i];
    sh_cmd_run *cr = &r->cm_run;
    f->cf_cur ^= 1;
    int rc = sh_check_stop(cr->cr_cx)
                 ? -1
                 : sh_input_record(f->cf_in, r->cm_eol, &f->cf_line[f->cf_cur]);
    if (rc == -1 && !sh_cmd_live(cr))
        return false;
    if (rc == -2) {
        cr->cr_status = sh_cmd_err(cr->cr_cx, "comm", 1, "line too long");
        return false;
    }
    if (rc == -1)
        cr->cr_status = 1; // reported by the input: its end
    bool was = f->cf_has;
    f->cf_has = rc == 1;
    // GNU looks at the order only where it matters by default: once
    // some line could not be paired.
    bool look = r->cm_check == COMM_CHECK_ON ||
                (r->cm_check == COMM_CHECK_DEFAULT && r->cm_unpaired);
    if (!f->cf_has || !was || !look || f->cf_warned ||
        comm_cmp(&f->cf_line[f->cf_cur ^ 1], &f->cf_line[f->cf_cur]) <= 0)
        return true;
    f->cf_warned = true;
    if (r->cm_check == COMM_CHECK_ON && !comm_flush(r))
        return false;
    sh_cmd_err(cr->cr_cx, "comm", 1, "file %d is not in sorted order", i + 1);
    if (r->cm_check != COMM_CHECK_ON)
        return true;
    cr->cr_status = 1;
    return false;
}

/* ---- writing ---- */

/* A line in column c (0 to 2), after one delimiter per shown column to
 * its left. */
static bool
comm_put(comm_run *r, int c, const box_buf *line)
{
    r->cm_count[c]++;
    if (!r->cm_show[c])
        return true;
    box_err e = BOX_OK;
    for (int k = 0; k < c && e == BOX_OK; k++)
        if (r->cm_show[k])
            e = box_buf_append(&r->cm_out, r->cm_delim, r->cm_dlen);
    if (e == BOX_OK && line->b_len > 0)
        e = box_buf_append(&r->cm_out, line->b_data, line->b_len);
    if (e == BOX_OK)
        e = box_buf_putc(&r->cm_out, r->cm_eol);
    if (e != BOX_OK) {
        r->cm_run.cr_status =
            sh_cmd_err(r->cm_run.cr_cx, "comm", 1, "out of memory");
        return false;
    }
    return r->cm_out.b_len < COMM_CHUNK || comm_flush(r);
}

/* --total: the three counts and "total", the delimiter between. */
static bool
comm_total(comm_run *r)
{
    box_err e = BOX_OK;
    for (int c = 0; c < 3 && e == BOX_OK; c++) {
        e = box_buf_printf(&r->cm_out, "%ju", r->cm_count[c]);
        if (e == BOX_OK)
            e = box_buf_append(&r->cm_out, r->cm_delim, r->cm_dlen);
    }
    if (e == BOX_OK)
        e = box_buf_puts(&r->cm_out, "total");
    if (e == BOX_OK)
        e = box_buf_putc(&r->cm_out, r->cm_eol);
    if (e != BOX_OK) {
        r->cm_run.cr_status =
            sh_cmd_err(r->cm_run.cr_cx, "comm", 1, "out of memory");
        return false;
    }
    return true;
}

/* The merge of the two files: the smaller line goes out in its column
 * and its file steps on; equal lines go to column 3, both step on. */
static void
comm_merge(comm_run *r)
{
    comm_file *a = &r->cm_f[0], *b = &r->cm_f[1];
    if (!comm_step(r, 0) || !comm_step(r, 1))
        return;
    while (a->cf_has || b->cf_has) {
        const box_buf *la = &a->cf_line[a->cf_cur];
        const box_buf *lb = &b->cf_line[b->cf_cur];
        int order = !a->cf_has ? 1 : !b->cf_has ? -1 : comm_cmp(la, lb);
        if (order != 0)
            r->cm_unpaired = true;
        if (!comm_put(r,
                      order == 0  ? 2
                      : order < 0 ? 0
                                  : 1,
                      order <= 0 ? la : lb))
            return;
        if (order <= 0 && !comm_step(r, 0))
            return;
        if (order >= 0 && !comm_step(r, 1))
            return;
    }
    if (r->cm_total && !comm_total(r))
        return;
    if (!comm_flush(r))
        return;
    if (a->cf_warned || b->cf_warned)
        r->cm_run.cr_status = sh_cmd_err(r->cm_run.cr_cx, "comm", 1,
                                         "input is not in sorted order");
}

/* ---- the command ---- */

/* Opens FILE1 and FILE2 in turn (the first failure ends the command, as
 * GNU's); a second "-" reads the same stdin. 0, or the status. */
static int
comm_open(comm_run *r, char **ops)
{
    sh_ctx *cx = r->cm_run.cr_cx;
    for (int i = 0; i < 2; i++) {
        int st = 0;
        if (i == 1 && strcmp(ops[0], "-") == 0 && strcmp(ops[1], "-") == 0) {
            r->cm_f[1].cf_in = r->cm_f[0].cf_in;
            continue;
        }
        char *q = sh_gquotef(ops[i]);
        if (q == NULL)
            return sh_cmd_err(cx, "comm", 1, "out of memory");
        r->cm_f[i].cf_in = sh_input_open_as(cx, "comm", ops[i], q, &st);
        box_free(q);
        if (r->cm_f[i].cf_in == NULL)
            return st;
    }
    return 0;
}

/* The operands: exactly two, with GNU's messages otherwise. */
static int
comm_operands(sh_gopt_iter *it)
{
    if (it->gi_nops == 2)
        return 0;
    if (it->gi_nops == 0)
        return sh_gopt_usage_error(it, "missing operand");
    int at = it->gi_nops == 1 ? 0 : 2;
    char *q = sh_gquote(it->gi_ops[at]);
    int st =
        it->gi_nops == 1
            ? sh_gopt_usage_error(it, "missing operand after %s", q ? q : "")
            : sh_gopt_usage_error(it, "extra operand %s", q ? q : "");
    box_free(q);
    return st;
}

int
sh_cmd_comm(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    comm_run r = {.cm_run = {.cr_cx = cx, .cr_cmd = "comm"},
                  .cm_show = {true, true, true},
                  .cm_delim = "\t",
                  .cm_dlen = 1,
                  .cm_eol = '\n'};
    box_buf_init(&r.cm_out, COMM_LINE_MAX + COMM_CHUNK);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++)
            box_buf_init(&r.cm_f[i].cf_line[k], COMM_LINE_MAX);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &comm_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id >= '1' && id <= '3') {
            r.cm_show[id - '1'] = false;
        } else if (id == 'z') {
            r.cm_eol = '\0';
        } else if (id == COMM_OPT_CHECK) {
            r.cm_check = COMM_CHECK_ON;
        } else if (id == COMM_OPT_NOCHECK) {
            r.cm_check = COMM_CHECK_OFF;
        } else if (id == COMM_OPT_TOTAL) {
            r.cm_total = true;
        } else if (id == COMM_OPT_DELIM) {
            r.cm_delim = arg; // "" is its NUL terminator, one byte
            r.cm_dlen = *arg == '\0' ? 1 : strlen(arg);
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if ((st = comm_operands(&it)) != 0 || (st = comm_open(&r, it.gi_ops)) != 0)
        goto out;
    comm_merge(&r);
    st = r.cm_run.cr_status;
out:
    sh_input_close(r.cm_f[0].cf_in);
    if (r.cm_f[1].cf_in != r.cm_f[0].cf_in)
        sh_input_close(r.cm_f[1].cf_in);
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < 2; k++)
            box_buf_reset(&r.cm_f[i].cf_line[k]);
    box_buf_reset(&r.cm_out);
    sh_gopt_free(&it);
    return st;
}
