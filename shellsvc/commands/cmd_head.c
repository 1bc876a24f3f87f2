/* SPDX-License-Identifier: Apache-2.0 */
/* head: the first lines or bytes of each operand, GNU coreutils 9.1. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define HEAD_DEFAULT_LINES 10
#define HEAD_CHUNK (64u * 1024u)
// -n -N / -c -N hold the input until its end: at most this much of it.
#define HEAD_HOLD_MAX (256u << 20)

enum { HEAD_OPT_QUIET = SH_GOPT_LONG_ONLY };

static const sh_gopt head_opts[] = {
    {'c', "bytes", SH_GARG_REQ},
    {'n', "lines", SH_GARG_REQ},
    {'q', "quiet", SH_GARG_NONE},
    {'q', "silent", SH_GARG_NONE},
    {'v', "verbose", SH_GARG_NONE},
    {'z', "zero-terminated", SH_GARG_NONE},
    // Digits after the first word: GNU's "invalid trailing option".
    SH_GOPT_DIGIT_ROWS,
    {0},
};

static const sh_gopt_spec head_spec = {
    .gs_cmd = "head",
    .gs_opts = head_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: head [OPTION]... [FILE]...\n"
        "Print the first 10 lines of each FILE to standard output.\n"
        "With more than one FILE, precede each with a header giving the "
        "file name.\n"
        "\n"
        "With no FILE, or when FILE is -, read standard input.\n"
        "\n"
        "  -c, --bytes=[-]NUM       print the first NUM bytes of each file;\n"
        "                             with the leading '-', print all but "
        "the last\n"
        "                             NUM bytes of each file\n"
        "  -n, --lines=[-]NUM       print the first NUM lines instead of the "
        "first 10;\n"
        "                             with the leading '-', print all but "
        "the last\n"
        "                             NUM lines of each file\n"
        "  -q, --quiet, --silent    never print headers giving file names\n"
        "  -v, --verbose            always print headers giving file names\n"
        "  -z, --zero-terminated    line delimiter is NUL, not newline\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

typedef struct head_run {
    sh_cmd_run hd_run; // first: the body gets &hd_run
    uintmax_t hd_n;    // lines or bytes
    bool hd_bytes;     // -c
    bool hd_all_but;   // a leading '-': all but the last hd_n
    char hd_eol;       // '\n', or NUL with -z
} head_run;

/* NUM of -n/-c ([-+]digits[suffix]); a leading '-' means all but the
 * last NUM. 0 on success, else 1 after GNU's message. */
static int
head_count(sh_gopt_iter *it, const char *s, bool bytes, head_run *r)
{
    r->hd_all_but = *s == '-';
    // GNU names the number without the '-' it took as "all but".
    const char *num = r->hd_all_but ? s + 1 : s;
    uintmax_t v;
    int st = sh_cmd_gnu_count(it->gi_cx, "head", bytes,
                              *num == '+' ? num + 1 : num, num, &v);
    if (st == 0) {
        r->hd_n = v;
        r->hd_bytes = bytes;
    }
    return st;
}

/* The first hd_n lines or bytes, then stops reading (an endless writer
 * upstream sees its reader leave). */
static bool
head_first(head_run *r, sh_input *in, char *buf)
{
    sh_cmd_run *cr = &r->hd_run;
    uintmax_t left = r->hd_n;
    while (left > 0) {
        if (!sh_cmd_live(cr))
            return false;
        ssize_t n = sh_input_read(in, buf, HEAD_CHUNK);
        if (n < 0 && !sh_cmd_live(cr))
            return false;
        if (n < 0)
            cr->cr_status = 1; // reported by the input
        if (n <= 0)
            return true;
        size_t take = (size_t)n;
        if (r->hd_bytes) {
            if ((uintmax_t)take > left)
                take = (size_t)left;
            left -= take;
        } else {
            for (size_t i = 0; i < (size_t)n; i++)
                if (buf[i] == r->hd_eol && --left == 0) {
                    take = i + 1;
                    break;
                }
        }
        // Stopped inside what was read: the rest goes back to a file,
        // for what reads it next ({ head -n 1; read x; } < f).
        sh_input_give_back(in, (size_t)n - take);
        if (!sh_cmd_emit(cr, buf, take))
            return false;
    }
    return true;
}

/* All but the last hd_n lines or bytes: the input is held to its end. */
static bool
head_all_but(head_run *r, sh_input *in, char *buf, const char *name)
{
    sh_cmd_run *cr = &r->hd_run;
    box_buf all;
    box_buf_init(&all, HEAD_HOLD_MAX);
    bool go = sh_cmd_hold(cr, in, name, buf, HEAD_CHUNK, &all, UINTMAX_MAX);
    if (!go)
        goto out;
    size_t keep = all.b_len;
    if (r->hd_bytes) {
        keep = (uintmax_t)keep > r->hd_n ? keep - (size_t)r->hd_n : 0;
    } else {
        // The last hd_n lines; a last line without its delimiter counts.
        uintmax_t drop = r->hd_n;
        size_t i = keep;
        if (i > 0 && all.b_data[i - 1] != r->hd_eol && drop > 0) {
            while (i > 0 && all.b_data[i - 1] != r->hd_eol)
                i--;
            drop--;
        }
        while (drop > 0 && i > 0) {
            i--; // this line's delimiter
            while (i > 0 && all.b_data[i - 1] != r->hd_eol)
                i--;
            drop--;
        }
        keep = i;
    }
    go = sh_cmd_emit(cr, all.b_data, keep);
out:
    box_buf_reset(&all);
    return go;
}

static bool
head_body(sh_cmd_run *cr, sh_input *in, const char *name)
{
    head_run *r = (head_run *)cr;
    char *buf = box_alloc(HEAD_CHUNK);
    if (buf == NULL) {
        cr->cr_status = sh_cmd_err(cr->cr_cx, "head", 1, "out of memory");
        return false;
    }
    bool go = r->hd_all_but ? head_all_but(r, in, buf, name)
                            : head_first(r, in, buf);
    box_free(buf);
    return go;
}

/* GNU's obsolete first word -NUM[bkm][cqvz]: NUM lines (c: bytes). 0
 * when it is one (r set), 1 after its message, -1 when it is not one. */
static int
head_obsolete(sh_gopt_iter *it, const char *w, head_run *r, bool *quiet,
              bool *verbose)
{
    if (w[0] != '-' || w[1] < '0' || w[1] > '9')
        return -1;
    const char *p = w + 1;
    while (*p >= '0' && *p <= '9')
        p++;
    char num[64];
    size_t n = (size_t)(p - (w + 1));
    bool bytes = false;
    char unit = 0;
    if (*p == 'b' || *p == 'k' || *p == 'm')
        unit = *p++;
    for (; *p; p++) {
        if (*p == 'c')
            bytes = true;
        else if (*p == 'l')
            bytes = false;
        else if (*p == 'q')
            *quiet = true;
        else if (*p == 'v')
            *verbose = true;
        else if (*p == 'z')
            r->hd_eol = '\0';
        else
            return sh_gopt_usage_error(it, "invalid trailing option -- %c",
                                       *p);
    }
    snprintf(num, sizeof num, "%.*s%s", (int)(n < 40 ? n : 40), w + 1,
             unit == 'b' ? "b" : unit == 'k' ? "K" : unit == 'm' ? "M" : "");
    return head_count(it, num, bytes, r);
}

int
sh_cmd_head(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    head_run r = {.hd_run = {.cr_cx = cx,
                             .cr_cmd = "head",
                             .cr_open_fmt = "cannot open %s for reading"},
                  .hd_n = HEAD_DEFAULT_LINES,
                  .hd_eol = '\n'};
    sh_gopt_iter it;
    bool quiet = false, verbose = false;
    int st = 0, id;
    const char *arg;
    sh_gopt_init(&it, cx, &head_spec, argc, argv);
    // The obsolete form counts only as the first word.
    int first =
        argc > 1 ? head_obsolete(&it, argv[1], &r, &quiet, &verbose) : -1;
    if (first > 0) {
        st = first;
        goto out;
    }
    if (first == 0)
        it.gi_i = 2;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'c' || id == 'n') {
            if ((st = head_count(&it, arg, id == 'c', &r)) != 0)
                goto out;
        } else if (id == 'q') {
            quiet = true;
            verbose = false;
        } else if (id == 'v') {
            verbose = true;
            quiet = false;
        } else if (id == 'z') {
            r.hd_eol = '\0';
        } else if (id >= '0' && id <= '9') {
            st = sh_gopt_usage_error(&it, "invalid trailing option -- %c", id);
            goto out;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    r.hd_run.cr_headers = verbose || (!quiet && it.gi_nops > 1);
    sh_opts ops = {.o_ind = 0};
    st = sh_cmd_operands(&r.hd_run, it.gi_nops, it.gi_ops, &ops, head_body);
out:
    sh_gopt_free(&it);
    return st;
}
