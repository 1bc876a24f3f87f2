/* SPDX-License-Identifier: Apache-2.0 */
/* wc [-clw] [file...]: newline, word and byte counts of each operand. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_internal.h"

#define WC_CHUNK (64u * 1024u)
#define WC_OUT_MAX (1u << 20) // one report line: three numbers and a name

// ORDER WC: the counts in output order (lines, words, bytes).
enum { WC_LINES, WC_WORDS, WC_BYTES, WC_NCOUNTS };
static const char wc_flag[WC_NCOUNTS] = {'l', 'w', 'c'};

typedef struct wc_counts {
    uintmax_t wn_v[WC_NCOUNTS];
    bool wn_ok; // counted (even partly): printed
} wc_counts;

/* C-locale whitespace, as GNU wc in the C locale. */
static bool
wc_space(unsigned char c)
{
    return c == ' ' || (c >= '\t' && c <= '\r');
}

/* Counts one chunk; *in_word carries a word across chunk boundaries. */
static void
wc_chunk(wc_counts *c, const char *p, size_t n, bool *in_word)
{
    c->wn_v[WC_BYTES] += n;
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)p[i];
        c->wn_v[WC_LINES] += ch == '\n';
        bool sp = wc_space(ch);
        c->wn_v[WC_WORDS] += !sp && !*in_word;
        *in_word = !sp;
    }
}

/*
 * Counts one operand (NULL: stdin) into c. Returns 0, 1 after a failure
 * (a read failure still leaves the counts so far to print, as GNU does),
 * or 125 / a stop status when wc must end now (*stop set).
 */
static int
wc_operand(sh_ctx *cx, const char *operand, char *buf, wc_counts *c, bool *stop)
{
    int st;
    sh_input *in = sh_input_open(cx, "wc", operand, &st);
    if (in == NULL) {
        *stop = st == BOX_STATUS_FAULT; // the PDP failed, nothing more may run
        return st;
    }
    c->wn_ok = true;
    bool in_word = false;
    for (;;) {
        if (sh_check_stop(cx)) {
            *stop = true;
            st = cx->cx_status;
            break;
        }
        ssize_t n = sh_input_read(in, buf, WC_CHUNK);
        if (n < 0 && cx->cx_flow != SH_FLOW_NONE)
            continue; // the wait for input ended with the call: stop above
        if (n < 0)
            st = 1; // reported by the input
        if (n <= 0)
            break;
        wc_chunk(c, buf, (size_t)n, &in_word);
    }
    sh_input_close(in);
    return st;
}

static int
wc_digits(uintmax_t v)
{
    int d = 1;
    while (v >= 10) {
        v /= 10;
        d++;
    }
    return d;
}

/*
 * One report line: the selected counts right-aligned in width, separated
 * by single spaces, then the name if there is one. Returns 0 or the
 * status to end with (the reader is gone: quietly; a bad fd: message).
 */
static int
wc_print(sh_ctx *cx, const wc_counts *c, const bool *sel, int width,
         const char *name)
{
    box_buf b;
    box_buf_init(&b, WC_OUT_MAX);
    box_err e = BOX_OK;
    const char *sep = "";
    for (int k = 0; k < WC_NCOUNTS && e == BOX_OK; k++) {
        if (!sel[k])
            continue;
        e = box_buf_printf(&b, "%s%*ju", sep, width, c->wn_v[k]);
        sep = " ";
    }
    if (e == BOX_OK && name != NULL)
        e = box_buf_printf(&b, " %s", name);
    if (e == BOX_OK)
        e = box_buf_putc(&b, '\n');
    int st = 0;
    if (e != BOX_OK)
        st = sh_cmd_err(cx, "wc", 1, "out of memory");
    else if (sh_write(cx, 1, b.b_data, b.b_len) != SH_IO_OK)
        st = cx->cx_flow != SH_FLOW_NONE
                 ? cx->cx_status
                 : sh_cmd_err(cx, "wc", 1, "write error: Bad file descriptor");
    box_buf_reset(&b);
    return st;
}

/*
 * Prints every counted operand, then "total" when there were several
 * operands (GNU prints it even when some failed). The column width is
 * the number of digits of the largest selected total, so a lone count
 * has no padding. This differs from GNU, which sizes columns from file
 * sizes before reading and pads stdin to 7; the report is written only
 * after every operand was read so the width is known.
 */
static int
wc_report(sh_ctx *cx, const wc_counts *c, char *const *names, int n,
          const bool *sel, bool total)
{
    wc_counts sum = {{0}, true};
    for (int i = 0; i < n; i++)
        for (int k = 0; k < WC_NCOUNTS; k++)
            sum.wn_v[k] += c[i].wn_v[k];
    int width = 1;
    for (int k = 0; k < WC_NCOUNTS; k++)
        if (sel[k] && wc_digits(sum.wn_v[k]) > width)
            width = wc_digits(sum.wn_v[k]);
    for (int i = 0; i < n; i++) {
        int st = c[i].wn_ok ? wc_print(cx, &c[i], sel, width, names[i]) : 0;
        if (st != 0)
            return st;
    }
    return total ? wc_print(cx, &sum, sel, width, "total") : 0;
}

/* Counts every operand, then reports; status 1 if any operand failed. */
int
sh_cmd_wc(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    bool sel[WC_NCOUNTS], any = false;
    for (int k = 0; k < WC_NCOUNTS; k++) {
        sel[k] = sh_opt(o, wc_flag[k]);
        any = any || sel[k];
    }
    for (int k = 0; k < WC_NCOUNTS && !any; k++)
        sel[k] = true; // no flag: all three
    int nops = argc - o->o_ind;
    int n = nops > 0 ? nops : 1;
    char *no_name[1] = {NULL}; // stdin without an operand has no name
    char *const *names = nops > 0 ? argv + o->o_ind : no_name;
    int status = 0, st;
    char *buf = box_alloc(WC_CHUNK);
    wc_counts *c = box_calloc((size_t)n, sizeof *c);
    if (buf == NULL || c == NULL) {
        status = sh_cmd_err(cx, "wc", 1, "out of memory");
        goto out;
    }
    for (int i = 0; i < n; i++) {
        bool stop = false;
        st = wc_operand(cx, names[i], buf, &c[i], &stop);
        if (stop) {
            status = st;
            goto out;
        }
        if (st != 0)
            status = st;
    }
    st = wc_report(cx, c, names, n, sel, nops > 1);
    if (st != 0)
        status = st;
out:
    box_free(c);
    box_free(buf);
    return status;
}
