/* SPDX-License-Identifier: Apache-2.0 */
/* wc [-clmwL] [FILE]... | --files0-from=F: GNU coreutils 9.1 in C.UTF-8:
 * newline, word, character, byte counts and the widest line. */
#include <errno.h>
#include <inttypes.h>
#include <locale.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_glob.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define WC_CHUNK (64u * 1024u)
#define WC_CARRY 4u               // a UTF-8 character cut by a read
#define WC_OUT_MAX (1u << 20)     // one report line: five numbers, a name
#define WC_NAMES_MAX (16u << 20)  // --files0-from's list of names
#define WC_FILES0 SH_GOPT_LONG_ONLY

// ORDER WC: the counts in GNU's output order.
enum { WC_LINES, WC_WORDS, WC_CHARS, WC_BYTES, WC_MAXLEN, WC_NCOUNTS };

static const sh_gopt wc_opts[] = {
    {'c', "bytes", SH_GARG_NONE},
    {'m', "chars", SH_GARG_NONE},
    {'l', "lines", SH_GARG_NONE},
    {WC_FILES0, "files0-from", SH_GARG_REQ},
    {'L', "max-line-length", SH_GARG_NONE},
    {'w', "words", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec wc_spec = {
    .gs_cmd = "wc",
    .gs_opts = wc_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: wc [OPTION]... [FILE]...\n"
        "  or:  wc [OPTION]... --files0-from=F\n"
        "Print newline, word, and byte counts for each FILE, and a total "
        "line if\n"
        "more than one FILE is specified.  A word is a non-zero-length "
        "sequence of\n"
        "printable characters delimited by white space.\n"
        "\n"
        "With no FILE, or when FILE is -, read standard input.\n"
        "\n"
        "The options below may be used to select which counts are printed, "
        "always in\n"
        "the following order: newline, word, character, byte, maximum line "
        "length.\n"
        "  -c, --bytes            print the byte counts\n"
        "  -m, --chars            print the character counts\n"
        "  -l, --lines            print the newline counts\n"
        "      --files0-from=F    read input from the files specified by\n"
        "                           NUL-terminated names in file F;\n"
        "                           If F is - then read names from standard "
        "input\n"
        "  -L, --max-line-length  print the maximum display width\n"
        "  -w, --words            print the word counts\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

typedef struct wc_counts {
    uintmax_t wn_v[WC_NCOUNTS];
    const char *wn_name; // borrowed; NULL: stdin without an operand
    bool wn_file;        // read from a file: its size sets the width
} wc_counts;

/* The scan of one operand: what a chunk boundary must not lose. */
typedef struct wc_scan {
    bool ws_in_word;
    uintmax_t ws_linepos;
    size_t ws_ncarry; // bytes of a cut character before the next chunk
} wc_scan;

typedef struct wc_run {
    sh_cmd_run wr_run; // first: the body gets &wr_run
    bool wr_sel[WC_NCOUNTS];
    bool wr_simple;  // only lines and bytes: no character decoding
    bool wr_unnamed; // `wc` alone: its stdin's line has no name
    bool wr_streamed; // --files0-from a pipe: GNU reads the names as it
                      // goes, so it knows no sizes (width 1)
    char *wr_buf;   // WC_CARRY bytes of carry, then a chunk
    wc_counts *wr_c; // one per operand that opened
    size_t wr_n, wr_cap;
} wc_run;

/* GNU wc's extra word separators besides iswspace: the no-break spaces. */
static bool
wc_nbspace(wint_t c)
{
    return c == 0x00A0 || c == 0x2007 || c == 0x202F || c == 0x2060;
}

/*
 * One UTF-8 character at p (n > 0 bytes): its length with *cp, 0 when p
 * holds only the start of one (the rest is in the next read), or -1 for a
 * byte that starts no valid character (glibc's mbrtowc: EILSEQ; GNU wc
 * then skips that byte, counting it as no character).
 */
static int
wc_decode(const unsigned char *p, size_t n, wint_t *cp)
{
    unsigned char c = p[0];
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    int len;
    unsigned char lo = 0x80, hi = 0xBF; // the second byte's range
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3;
        lo = c == 0xE0 ? 0xA0 : 0x80; // no overlong forms
        hi = c == 0xED ? 0x9F : 0xBF; // no surrogates
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4;
        lo = c == 0xF0 ? 0x90 : 0x80;
        hi = c == 0xF4 ? 0x8F : 0xBF; // nothing past U+10FFFF
    } else {
        return -1;
    }
    wint_t v = c & (0x7F >> len);
    for (int i = 1; i < len; i++) {
        if ((size_t)i >= n)
            return 0;
        unsigned char b = p[i];
        if (i == 1 ? b < lo || b > hi : (b & 0xC0) != 0x80)
            return -1;
        v = (v << 6) | (b & 0x3F);
    }
    *cp = v;
    return len;
}

static void
wc_end_line(wc_counts *c, wc_scan *s)
{
    if (s->ws_linepos > c->wn_v[WC_MAXLEN])
        c->wn_v[WC_MAXLEN] = s->ws_linepos;
    s->ws_linepos = 0;
}

/* One character as GNU wc's multibyte loop sees it. */
static void
wc_char(wc_counts *c, wc_scan *s, wint_t ch)
{
    c->wn_v[WC_CHARS]++;
    switch (ch) {
    case '\n':
        c->wn_v[WC_LINES]++;
        /* fall through */
    case '\r':
    case '\f':
        wc_end_line(c, s);
        s->ws_in_word = false;
        return;
    case '\t':
        s->ws_linepos += 8 - s->ws_linepos % 8;
        s->ws_in_word = false;
        return;
    case ' ':
        s->ws_linepos++;
        /* fall through */
    case '\v':
        s->ws_in_word = false;
        return;
    default:
        break;
    }
    if (ch < 0x80) { // ASCII: printable is '!'..'~'; controls count nothing
        if (ch > ' ' && ch < 0x7F) {
            s->ws_linepos++;
            c->wn_v[WC_WORDS] += !s->ws_in_word;
            s->ws_in_word = true;
        }
        return;
    }
    if (!iswprint(ch))
        return;
    int w = wcwidth((wchar_t)ch);
    if (w > 0)
        s->ws_linepos += (uintmax_t)w;
    if (iswspace(ch) || wc_nbspace(ch)) {
        s->ws_in_word = false;
        return;
    }
    c->wn_v[WC_WORDS] += !s->ws_in_word;
    s->ws_in_word = true;
}

/* Decodes p[0..n) into c; a character cut at the end is left for the
 * next read (its bytes are returned). At the end of input (last) such
 * bytes are no character, as in GNU wc. */
static size_t
wc_chunk(wc_counts *c, wc_scan *s, const unsigned char *p, size_t n)
{
    size_t i = 0;
    while (i < n) {
        wint_t ch;
        int k = wc_decode(p + i, n - i, &ch);
        if (k == 0)
            return n - i;
        if (k < 0) {
            i++;
            continue;
        }
        wc_char(c, s, ch);
        i += (size_t)k;
    }
    return 0;
}

static void
wc_lines(wc_counts *c, const char *p, size_t n)
{
    const char *end = p + n;
    while ((p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        c->wn_v[WC_LINES]++;
        p++;
    }
}

static bool
wc_nomem(wc_run *r)
{
    r->wr_run.cr_status = sh_cmd_err(r->wr_run.cr_cx, "wc", 1, "out of memory");
    return false;
}

/* Counts one opened operand into a new entry (printed even after a read
 * error, with what was read, as GNU does). */
static bool
wc_body(sh_cmd_run *cr, sh_input *in, const char *name)
{
    wc_run *r = (wc_run *)cr;
    if (r->wr_n == r->wr_cap) {
        size_t cap = r->wr_cap ? r->wr_cap * 2 : 4;
        wc_counts *nc = box_realloc(r->wr_c, cap * sizeof *nc);
        if (nc == NULL)
            return wc_nomem(r);
        r->wr_c = nc;
        r->wr_cap = cap;
    }
    wc_counts *c = &r->wr_c[r->wr_n++];
    *c = (wc_counts){.wn_name = r->wr_unnamed ? NULL : name};
    wc_scan s = {0};
    char *chunk = r->wr_buf + WC_CARRY;
    for (;;) {
        if (!sh_cmd_live(cr))
            return false;
        ssize_t n = sh_input_read(in, chunk, WC_CHUNK);
        if (n < 0 && !sh_cmd_live(cr))
            return false;
        if (n < 0)
            cr->cr_status = 1; // reported by the input
        if (n <= 0)
            break;
        c->wn_v[WC_BYTES] += (uintmax_t)n;
        if (r->wr_simple) {
            wc_lines(c, chunk, (size_t)n);
            continue;
        }
        // A cut character's bytes wait just before the next chunk.
        char *p = chunk - s.ws_ncarry;
        size_t len = s.ws_ncarry + (size_t)n;
        s.ws_ncarry = wc_chunk(c, &s, (const unsigned char *)p, len);
        memmove(chunk - s.ws_ncarry, p + len - s.ws_ncarry, s.ws_ncarry);
    }
    wc_end_line(c, &s);
    c->wn_file = sh_input_is_file(in);
    return true;
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

/* One report line: the selected counts right-aligned in width, single
 * spaces between, then the name if there is one. */
static int
wc_print(sh_ctx *cx, const wc_counts *c, const bool *sel, int width)
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
    if (e == BOX_OK && c->wn_name != NULL)
        e = box_buf_printf(&b, " %s", c->wn_name);
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
 * GNU's column width: 1 for a lone count of a lone input (and for names
 * streamed to --files0-from); else the digits of the inputs' total file
 * size, at least 7 when any input is not a file (a pipe, /dev/null). GNU
 * takes the sizes from fstat before reading; the bytes read are the same
 * for a file, and the report comes after all reading here, so messages
 * about later operands come before the counts of earlier ones.
 */
static int
wc_width(const wc_run *r, int ninputs)
{
    int nsel = 0;
    for (int k = 0; k < WC_NCOUNTS; k++)
        nsel += r->wr_sel[k];
    if (r->wr_streamed || (ninputs == 1 && nsel == 1))
        return 1;
    int min = 1;
    uintmax_t size = 0;
    for (size_t i = 0; i < r->wr_n; i++) {
        if (r->wr_c[i].wn_file)
            size += r->wr_c[i].wn_v[WC_BYTES];
        else
            min = 7;
    }
    int w = wc_digits(size);
    return w > min ? w : min;
}

/* Prints every counted operand, then "total" when there were several
 * inputs (GNU prints it even when some failed). */
static int
wc_report(wc_run *r, int width, bool total)
{
    sh_ctx *cx = r->wr_run.cr_cx;
    wc_counts sum = {.wn_name = "total"};
    for (size_t i = 0; i < r->wr_n; i++) {
        for (int k = 0; k < WC_NCOUNTS; k++) {
            if (k == WC_MAXLEN) {
                if (r->wr_c[i].wn_v[k] > sum.wn_v[k])
                    sum.wn_v[k] = r->wr_c[i].wn_v[k];
            } else {
                sum.wn_v[k] += r->wr_c[i].wn_v[k];
            }
        }
    }
    for (size_t i = 0; i < r->wr_n; i++) {
        int st = wc_print(cx, &r->wr_c[i], r->wr_sel, width);
        if (st != 0)
            return st;
    }
    return total ? wc_print(cx, &sum, r->wr_sel, width) : 0;
}

/*
 * --files0-from=F: reads the NUL-ended names in F (the last may lack its
 * NUL: it is given one) whole into names. 0, or the status after the
 * message (GNU's "cannot open 'F' for reading").
 */
static int
wc_files0_read(wc_run *r, const char *from, box_buf *names)
{
    bool dash = strcmp(from, "-") == 0;
    char *q = dash ? NULL : sh_gquoteaf(from);
    char *shown = q != NULL ? box_asprintf("cannot open %s for reading", q)
                            : NULL;
    box_free(q);
    int st;
    sh_input *in =
        sh_input_open_as(r->wr_run.cr_cx, "wc", dash ? NULL : from, shown, &st);
    box_free(shown);
    if (in == NULL)
        return r->wr_run.cr_status = st;
    r->wr_streamed = !sh_input_is_file(in);
    bool go = sh_cmd_hold(&r->wr_run, in, from, r->wr_buf, WC_CHUNK, names,
                          UINTMAX_MAX);
    sh_input_close(in);
    if (!go || r->wr_run.cr_status != 0)
        return r->wr_run.cr_status; // a stop, or after the message
    if (names->b_len > 0 && names->b_data[names->b_len - 1] != '\0' &&
        box_buf_putc(names, '\0') != BOX_OK) {
        wc_nomem(r);
        return r->wr_run.cr_status;
    }
    return 0;
}

/* Counts each name of the list: an empty name, and "-" when the list
 * came from stdin, are errors GNU reports with the list's place. False
 * when the run must stop. */
static bool
wc_files0(wc_run *r, const char *from, const box_buf *names, int *ninputs)
{
    sh_ctx *cx = r->wr_run.cr_cx;
    sh_opts ops = {.o_ind = 0};
    uintmax_t item = 0;
    for (size_t at = 0; at < names->b_len;) {
        char *name = names->b_data + at;
        size_t len = strlen(name);
        at += len + 1;
        item++;
        (*ninputs)++;
        if (len == 0 || (strcmp(from, "-") == 0 && strcmp(name, "-") == 0)) {
            char *q = sh_gquotef(from);
            if (len == 0)
                sh_cmd_err(cx, "wc", 1, "%s:%ju: invalid zero-length file name",
                           q != NULL ? q : from, item);
            else
                sh_cmd_err(cx, "wc", 1, "when reading file names from stdin, "
                                        "no file name of '-' allowed");
            box_free(q);
            r->wr_run.cr_status = 1;
            continue;
        }
        char *one[1] = {name};
        int st = sh_cmd_operands(&r->wr_run, 1, one, &ops, wc_body);
        if (st == BOX_STATUS_FAULT || !sh_cmd_live(&r->wr_run))
            return false;
    }
    return true;
}

/* Counts every operand, then reports; status 1 if any operand failed. */
int
sh_cmd_wc(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    wc_run r = {.wr_run = {.cr_cx = cx, .cr_cmd = "wc"}};
    box_buf names;
    box_buf_init(&names, WC_NAMES_MAX);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &wc_spec, argc, argv);
    const char *arg, *files0 = NULL;
    int id, st = 0;
    bool any = false;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        int k = id == 'l'   ? WC_LINES
                : id == 'w' ? WC_WORDS
                : id == 'm' ? WC_CHARS
                : id == 'c' ? WC_BYTES
                : id == 'L' ? WC_MAXLEN
                            : -1;
        if (k >= 0) {
            r.wr_sel[k] = any = true;
        } else if (id == WC_FILES0) {
            files0 = arg;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (files0 != NULL && it.gi_nops > 0) {
        char *q = sh_gquoteaf(it.gi_ops[0]);
        sh_cmd_err(cx, "wc", 1, "extra operand %s", q != NULL ? q : "");
        box_free(q);
        (void)sh_puts(cx, 2, "file operands cannot be combined with "
                             "--files0-from\n");
        st = sh_gopt_try(&it);
        goto out;
    }
    if (!any)
        r.wr_sel[WC_LINES] = r.wr_sel[WC_WORDS] = r.wr_sel[WC_BYTES] = true;
    r.wr_simple = !r.wr_sel[WC_WORDS] && !r.wr_sel[WC_CHARS] &&
                  !r.wr_sel[WC_MAXLEN];
    if ((r.wr_buf = box_alloc(WC_CARRY + WC_CHUNK)) == NULL) {
        wc_nomem(&r);
        st = r.wr_run.cr_status;
        goto out;
    }
    // Character classes and widths are C.UTF-8's, as in the tests' GNU wc.
    locale_t u8 = sh_glob_locale();
    locale_t was = u8 != (locale_t)0 ? uselocale(u8) : (locale_t)0;
    int ninputs = 0;
    bool report = true;
    if (files0 != NULL) {
        report = wc_files0_read(&r, files0, &names) == 0 &&
                 wc_files0(&r, files0, &names, &ninputs);
    } else {
        sh_opts ops = {.o_ind = 0};
        ninputs = it.gi_nops > 0 ? it.gi_nops : 1;
        r.wr_unnamed = it.gi_nops == 0;
        int ost = sh_cmd_operands(&r.wr_run, it.gi_nops, it.gi_ops, &ops,
                                  wc_body);
        report = ost != BOX_STATUS_FAULT && sh_cmd_live(&r.wr_run);
    }
    if (was != (locale_t)0)
        uselocale(was);
    st = r.wr_run.cr_status;
    if (report) {
        int rst = wc_report(&r, wc_width(&r, ninputs),
                            ninputs > 1);
        if (rst != 0)
            st = rst;
    }
out:
    sh_gopt_free(&it);
    box_buf_reset(&names);
    box_free(r.wr_c);
    box_free(r.wr_buf);
    return st;
}
