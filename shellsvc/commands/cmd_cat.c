/* SPDX-License-Identifier: Apache-2.0 */
/* cat [-AbeEnstTuv] [FILE]...: GNU coreutils 9.1. Each operand (stdin for
 * "-" or none) to fd 1, plain or shown (numbers, ends, tabs, ^ and M-). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define CAT_CHUNK (64u * 1024u) // one read, one write
// Shown output reads this much at a time; each input byte becomes at most
// CAT_SHOW_GROW output bytes (a newline that starts a numbered line:
// twenty digits, a tab, '$', '\n'), so one read's output always fits.
#define CAT_SHOW_STEP (16u * 1024u)
#define CAT_SHOW_GROW 24u
#define CAT_OUT_MAX (CAT_SHOW_STEP * CAT_SHOW_GROW)

static const sh_gopt cat_opts[] = {
    {'A', "show-all", SH_GARG_NONE},
    {'b', "number-nonblank", SH_GARG_NONE},
    {'e', NULL, SH_GARG_NONE},
    {'E', "show-ends", SH_GARG_NONE},
    {'n', "number", SH_GARG_NONE},
    {'s', "squeeze-blank", SH_GARG_NONE},
    {'t', NULL, SH_GARG_NONE},
    {'T', "show-tabs", SH_GARG_NONE},
    {'u', NULL, SH_GARG_NONE},
    {'v', "show-nonprinting", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec cat_spec = {
    .gs_cmd = "cat",
    .gs_opts = cat_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: cat [OPTION]... [FILE]...\n"
        "Concatenate FILE(s) to standard output.\n"
        "\n"
        "With no FILE, or when FILE is -, read standard input.\n"
        "\n"
        "  -A, --show-all           equivalent to -vET\n"
        "  -b, --number-nonblank    number nonempty output lines, overrides "
        "-n\n"
        "  -e                       equivalent to -vE\n"
        "  -E, --show-ends          display $ at end of each line\n"
        "  -n, --number             number all output lines\n"
        "  -s, --squeeze-blank      suppress repeated empty output lines\n"
        "  -t                       equivalent to -vT\n"
        "  -T, --show-tabs          display TAB characters as ^I\n"
        "  -u                       (ignored)\n"
        "  -v, --show-nonprinting   use ^ and M- notation, except for LFD and "
        "TAB\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "Examples:\n"
        "  cat f - g  Output f's contents, then standard input, then g's "
        "contents.\n"
        "  cat        Copy standard input to standard output.\n",
};

/*
 * One run of cat. The line number, the "at the start of a line" flag and
 * the count of empty lines just written live here, not per operand: like
 * GNU cat, numbering and squeezing continue across operands, and a file
 * without a final newline runs on into the next operand's first line.
 */
typedef struct cat_run {
    sh_cmd_run ct_run; // first: the bodies get &ct_run
    bool ct_number;    // -n
    bool ct_nonblank;  // -b: number only lines with something on them
    bool ct_squeeze;   // -s
    bool ct_ends;      // -E
    bool ct_tabs;      // -T
    bool ct_nonprint;  // -v
    uintmax_t ct_lineno;
    bool ct_bol;         // the next byte starts a line
    bool ct_cr;          // -E: a '\r' waits to see whether '\n' follows
                         // (GNU shows "^M$" for a CRLF, even across files)
    unsigned ct_empties; // -s: empty lines written in a row (0, 1)
    box_buf ct_out;      // shown output not yet written
    char *ct_chunk;
} cat_run;

static bool
cat_flush(cat_run *r)
{
    bool ok = sh_cmd_emit(&r->ct_run, r->ct_out.b_data, r->ct_out.b_len);
    r->ct_out.b_len = 0; // keeps the storage for the next chunk
    return ok;
}

static bool
cat_nomem(cat_run *r)
{
    r->ct_run.cr_status =
        sh_cmd_err(r->ct_run.cr_cx, "cat", 1, "out of memory");
    return false;
}

/* Copies the operand unchanged, a chunk at a time. */
static bool
cat_plain(sh_cmd_run *cr, sh_input *in, const char *name)
{
    (void)name;
    return sh_cmd_copy(cr, in, ((cat_run *)cr)->ct_chunk, CAT_CHUNK);
}

/* c as -v shows it: ^X for controls, ^? for DEL, M- before a high byte. */
static size_t
cat_visible(unsigned char c, char *out)
{
    size_t n = 0;
    if (c >= 128) {
        out[n++] = 'M';
        out[n++] = '-';
        c -= 128;
    }
    if (c < 32) {
        out[n++] = '^';
        out[n++] = (char)(c + 64);
    } else if (c == 127) {
        out[n++] = '^';
        out[n++] = '?';
    } else {
        out[n++] = (char)c;
    }
    return n;
}

/* Shows one chunk into ct_out, byte by byte. */
static void
cat_show_chunk(cat_run *r, const unsigned char *p, size_t n)
{
    char *o = r->ct_out.b_data + r->ct_out.b_len;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = p[i];
        if (r->ct_bol) {
            if (c == '\n' && r->ct_squeeze && r->ct_empties > 0)
                continue; // a second empty line in a row
            bool numbered = r->ct_nonblank ? c != '\n' : r->ct_number;
            if (numbered) {
                int k = snprintf(o, 32, "%6ju\t", ++r->ct_lineno);
                o += k > 0 ? k : 0;
            }
            r->ct_empties = c == '\n' ? r->ct_empties + 1 : 0;
            r->ct_bol = false;
        }
        if (r->ct_cr) {
            r->ct_cr = false;
            if (c == '\n') {
                *o++ = '^';
                *o++ = 'M';
            } else {
                *o++ = '\r';
            }
        }
        if (c == '\r' && r->ct_ends && !r->ct_nonprint) {
            r->ct_cr = true;
            continue;
        }
        if (c == '\n') {
            if (r->ct_ends)
                *o++ = '$';
            *o++ = '\n';
            r->ct_bol = true;
        } else if (c == '\t') {
            if (r->ct_tabs) {
                *o++ = '^';
                *o++ = 'I';
            } else {
                *o++ = '\t';
            }
        } else if (r->ct_nonprint) {
            o += cat_visible(c, o);
        } else {
            *o++ = (char)c;
        }
    }
    r->ct_out.b_len = (size_t)(o - r->ct_out.b_data);
}

/* Any of -bEnsTv: a chunk is read, shown and written at a time; the
 * output is flushed at the end of each operand so it lands before any
 * message about the next one. */
static bool
cat_shown(sh_cmd_run *cr, sh_input *in, const char *name)
{
    (void)name;
    cat_run *r = (cat_run *)cr;
    if (box_buf_reserve(&r->ct_out, CAT_OUT_MAX) != BOX_OK)
        return cat_nomem(r);
    for (;;) {
        if (!sh_cmd_live(cr))
            return false;
        ssize_t n = sh_input_read(in, r->ct_chunk, CAT_SHOW_STEP);
        if (n < 0 && !sh_cmd_live(cr))
            return false;
        if (n < 0)
            cr->cr_status = 1; // reported by the input
        if (n <= 0)
            return cat_flush(r);
        cat_show_chunk(r, (const unsigned char *)r->ct_chunk, (size_t)n);
        if (!cat_flush(r))
            return false;
    }
}

/* Continues past a failed operand (status 1 at the end), like GNU. */
int
sh_cmd_cat(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    cat_run r = {.ct_run = {.cr_cx = cx, .cr_cmd = "cat"}, .ct_bol = true};
    box_buf_init(&r.ct_out, CAT_OUT_MAX);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &cat_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 'A':
            r.ct_nonprint = r.ct_ends = r.ct_tabs = true;
            break;
        case 'b':
            r.ct_number = r.ct_nonblank = true;
            break;
        case 'e':
            r.ct_nonprint = r.ct_ends = true;
            break;
        case 'E':
            r.ct_ends = true;
            break;
        case 'n':
            r.ct_number = true;
            break;
        case 's':
            r.ct_squeeze = true;
            break;
        case 't':
            r.ct_nonprint = r.ct_tabs = true;
            break;
        case 'T':
            r.ct_tabs = true;
            break;
        case 'v':
            r.ct_nonprint = true;
            break;
        default: // -u: output is unbuffered here anyway
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    bool shown = r.ct_number || r.ct_squeeze || r.ct_ends || r.ct_tabs ||
                 r.ct_nonprint;
    if ((r.ct_chunk = box_alloc(CAT_CHUNK)) == NULL) {
        cat_nomem(&r);
        st = r.ct_run.cr_status;
        goto out;
    }
    sh_opts ops = {.o_ind = 0};
    st = sh_cmd_operands(&r.ct_run, it.gi_nops, it.gi_ops, &ops,
                         shown ? cat_shown : cat_plain);
    if (r.ct_cr && sh_cmd_live(&r.ct_run) && st != BOX_STATUS_FAULT &&
        !sh_cmd_emit(&r.ct_run, "\r", 1))
        st = r.ct_run.cr_status;
out:
    sh_gopt_free(&it);
    box_buf_reset(&r.ct_out);
    box_free(r.ct_chunk);
    return st;
}
