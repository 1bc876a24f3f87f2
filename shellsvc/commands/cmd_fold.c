/* SPDX-License-Identifier: Apache-2.0 */
/* fold [-bs] [-w WIDTH] [FILE]...: GNU coreutils 9.1, lines broken to
 * WIDTH columns (GNU's fold counts a byte as a column, UTF-8 or not). */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define FOLD_CHUNK (64u * 1024u)   // read and written a chunk at a time
#define FOLD_LINE_MAX (256u << 20) // the part of a line held: 256 MiB
#define FOLD_TAB 8
#define FOLD_WIDTH_MAX (SIZE_MAX - FOLD_TAB - 1) // GNU's own bound

static const sh_gopt fold_opts[] = {
    {'b', "bytes", SH_GARG_NONE},
    {'s', "spaces", SH_GARG_NONE},
    {'w', "width", SH_GARG_REQ},
    // The obsolete -NUM: a digit takes the rest of its word, so -12 is
    // width 12 and -3s is the width "3s" (refused, as GNU's).
    SH_GOPT_DIGIT_ARG_ROWS,
    {0},
};

static const sh_gopt_spec fold_spec = {
    .gs_cmd = "fold",
    .gs_opts = fold_opts,
    .gs_fail = 1,
    .gs_help = "Usage: fold [OPTION]... [FILE]...\n"
               "Wrap input lines in each FILE, writing to standard output.\n"
               "\n"
               "With no FILE, or when FILE is -, read standard input.\n"
               "\n"
               "Mandatory arguments to long options are mandatory for short "
               "options too.\n"
               "  -b, --bytes         count bytes rather than columns\n"
               "  -s, --spaces        break at spaces\n"
               "  -w, --width=WIDTH   use WIDTH columns instead of 80\n"
               "      --help        display this help and exit\n"
               "      --version     output version information and exit\n",
};

typedef struct fold_run {
    sh_cmd_run fd_run; // first: the body gets &fd_run
    size_t fd_width;
    bool fd_bytes;   // -b: a tab, backspace or return is one column too
    bool fd_spaces;  // -s: break after the last blank
    box_buf fd_line; // the current line's text not yet written
    size_t fd_col;   // the column its end reaches
    box_buf fd_out;
} fold_run;

/* WIDTH as GNU's xdectoumax reads it: 1 to FOLD_WIDTH_MAX. 0, or 1
 * after GNU's message. */
static int
fold_width(sh_ctx *cx, const char *arg, size_t *out)
{
    const char *s = arg;
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    const char *why = NULL;
    char *end = NULL;
    uintmax_t v = 0;
    errno = 0;
    if (*s == '-' || (v = strtoumax(s, &end, 10), end == s || *end != '\0'))
        why = "";
    else if (errno == ERANGE || v > FOLD_WIDTH_MAX)
        why = ": Value too large for defined data type";
    else if (v == 0)
        why = ": Numerical result out of range";
    if (why == NULL) {
        *out = (size_t)v;
        return 0;
    }
    char *q = sh_gquote(arg);
    sh_cmd_err(cx, "fold", 1, "invalid number of columns: %s%s", q ? q : arg,
               why);
    box_free(q);
    return 1;
}

/* The column after c at col. */
static size_t
fold_advance(const fold_run *r, size_t col, unsigned char c)
{
    if (r->fd_bytes)
        return col + 1;
    if (c == '\b')
        return col > 0 ? col - 1 : 0;
    if (c == '\r')
        return 0;
    if (c == '\t')
        return col + FOLD_TAB - col % FOLD_TAB;
    return col + 1;
}

static bool
fold_fail(fold_run *r, box_err e)
{
    r->fd_run.cr_status = sh_cmd_err(r->fd_run.cr_cx, "fold", 1,
                                     e == BOX_ETOOBIG ? "line too long to hold"
                                                      : "out of memory");
    return false;
}

/* The held text's first n bytes go out, with a newline when nl; the
 * rest stays held and its column is counted again. */
static bool
fold_out(fold_run *r, size_t n, bool nl)
{
    box_buf *l = &r->fd_line;
    box_err e = n > 0 ? box_buf_append(&r->fd_out, l->b_data, n) : BOX_OK;
    if (e == BOX_OK && nl)
        e = box_buf_putc(&r->fd_out, '\n');
    if (e != BOX_OK)
        return fold_fail(r, e);
    if (n > 0) { // an empty line may have no buffer yet
        memmove(l->b_data, l->b_data + n, l->b_len - n);
        box_buf_truncate(l, l->b_len - n);
    }
    r->fd_col = 0;
    for (size_t i = 0; i < l->b_len; i++)
        r->fd_col = fold_advance(r, r->fd_col, (unsigned char)l->b_data[i]);
    if (r->fd_out.b_len < FOLD_CHUNK)
        return true;
    bool ok = sh_cmd_emit(&r->fd_run, r->fd_out.b_data, r->fd_out.b_len);
    box_buf_truncate(&r->fd_out, 0);
    return ok;
}

/* One byte: a newline ends the line; a byte that would pass the width
 * breaks it first (after its last blank with -s), then is looked at
 * again. A byte wider than the width alone still goes on the line. */
static bool
fold_byte(fold_run *r, unsigned char c)
{
    box_buf *l = &r->fd_line;
    if (c == '\n')
        return fold_out(r, l->b_len, true);
    while (l->b_len > 0 && fold_advance(r, r->fd_col, c) > r->fd_width) {
        size_t cut = l->b_len;
        if (r->fd_spaces) {
            size_t i = l->b_len;
            while (i > 0 && l->b_data[i - 1] != ' ' && l->b_data[i - 1] != '\t')
                i--;
            if (i > 0)
                cut = i;
        }
        if (!fold_out(r, cut, true))
            return false;
    }
    r->fd_col = fold_advance(r, r->fd_col, c);
    box_err e = box_buf_putc(l, (char)c);
    return e == BOX_OK || fold_fail(r, e);
}

static bool
fold_body(sh_cmd_run *cr, sh_input *in, const char *name)
{
    fold_run *r = (fold_run *)cr;
    (void)name;
    char *buf = box_alloc(FOLD_CHUNK);
    bool go = false;
    if (buf == NULL) {
        cr->cr_status = sh_cmd_err(cr->cr_cx, "fold", 1, "out of memory");
        return false;
    }
    for (;;) {
        if (!sh_cmd_live(cr))
            goto out;
        ssize_t n = sh_input_read(in, buf, FOLD_CHUNK);
        if (n < 0 && !sh_cmd_live(cr))
            goto out;
        if (n < 0)
            cr->cr_status = 1; // reported by the input
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++)
            if (!fold_byte(r, (unsigned char)buf[i]))
                goto out;
    }
    // The last line of the operand goes out as it is, without a newline.
    go = fold_out(r, r->fd_line.b_len, false) &&
         sh_cmd_emit(cr, r->fd_out.b_data, r->fd_out.b_len);
    box_buf_truncate(&r->fd_out, 0);
out:
    box_free(buf);
    return go;
}

int
sh_cmd_fold(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    fold_run r = {.fd_run = {.cr_cx = cx, .cr_cmd = "fold"}, .fd_width = 80};
    box_buf_init(&r.fd_line, FOLD_LINE_MAX);
    box_buf_init(&r.fd_out, FOLD_LINE_MAX + FOLD_CHUNK);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &fold_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'b') {
            r.fd_bytes = true;
        } else if (id == 's') {
            r.fd_spaces = true;
        } else if (id == 'w') {
            if ((st = fold_width(cx, arg, &r.fd_width)) != 0)
                goto out;
        } else if (id >= '0' && id <= '9') {
            char *w = box_asprintf("%c%s", id, arg != NULL ? arg : "");
            st = w != NULL ? fold_width(cx, w, &r.fd_width)
                           : sh_cmd_err(cx, "fold", 1, "out of memory");
            box_free(w);
            if (st != 0)
                goto out;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    sh_opts ops = {.o_ind = 0};
    st = sh_cmd_operands(&r.fd_run, it.gi_nops, it.gi_ops, &ops, fold_body);
out:
    box_buf_reset(&r.fd_line);
    box_buf_reset(&r.fd_out);
    sh_gopt_free(&it);
    return st;
}
