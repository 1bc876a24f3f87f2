/* SPDX-License-Identifier: Apache-2.0 */
/* cut -b|-c|-f LIST [-d DELIM] [-s] [--complement] [FILE]...: GNU coreutils
 * 9.1 in the C.UTF-8 locale (bytes; -c is -b, as in 9.1). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define CUT_CHUNK (64u * 1024u)
// A first field held back until its record shows a delimiter (-s, or
// field 1 not selected): GNU holds any length; past this, cut stops.
#define CUT_FIELD1_MAX (256u * 1024u * 1024u)
#define CUT_EOF (-1)

enum {
    CUT_OPT_COMPLEMENT = SH_GOPT_LONG_ONLY,
    CUT_OPT_OUTDELIM,
};

// GNU's order: it decides how `--c` and `--o` are reported as ambiguous.
static const sh_gopt cut_opts[] = {
    {'b', "bytes", SH_GARG_REQ},
    {'c', "characters", SH_GARG_REQ},
    {'f', "fields", SH_GARG_REQ},
    {'d', "delimiter", SH_GARG_REQ},
    {'s', "only-delimited", SH_GARG_NONE},
    {CUT_OPT_OUTDELIM, "output-delimiter", SH_GARG_REQ},
    {CUT_OPT_COMPLEMENT, "complement", SH_GARG_NONE},
    {'z', "zero-terminated", SH_GARG_NONE},
    {'n', NULL, SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec cut_spec = {
    .gs_cmd = "cut",
    .gs_opts = cut_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: cut OPTION... [FILE]...\n"
        "Print the selected parts of each line of each FILE (standard input "
        "when\nthere is none, or for -).\n"
        "\n"
        "  -b, --bytes=LIST        select only these bytes\n"
        "  -c, --characters=LIST   select only these characters (bytes)\n"
        "  -d, --delimiter=DELIM   split fields at DELIM, not TAB\n"
        "  -f, --fields=LIST       select only these fields; a line without "
        "the\n"
        "                            delimiter is printed whole, unless -s\n"
        "  -n                      (ignored)\n"
        "      --complement        select everything LIST does not\n"
        "  -s, --only-delimited    leave out lines without the delimiter\n"
        "      --output-delimiter=STRING  join the selected parts with "
        "STRING\n"
        "                            (by default the input delimiter)\n"
        "  -z, --zero-terminated   lines end with NUL, not newline\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "Use exactly one of -b, -c or -f. LIST is ranges separated by "
        "commas:\n"
        "N (the Nth, counted from 1), N- (from the Nth to the end), N-M, "
        "-M.\n",
};

typedef struct cut_range {
    uintmax_t lo, hi; // hi UINTMAX_MAX: to the end of the line
    size_t ord;       // the place in the list, for the sort
} cut_range;

typedef enum cut_mode { CUT_NONE, CUT_BYTES, CUT_FIELDS } cut_mode;

typedef struct cut_run {
    sh_cmd_run ct_run;    // first: the body gets &ct_run
    cut_range *ct_ranges; // GNU's order, then {MAX, MAX}; owned
    cut_mode ct_mode;
    int ct_delim;        // -d: a byte (TAB by default)
    int ct_eol;          // '\n', NUL with -z
    bool ct_only_delim;  // -s
    const char *ct_outd; // --output-delimiter (borrowed), else ct_delim
    size_t ct_outd_len;
    bool ct_outd_set;
    char ct_delim_str[1];
    // Input: a getc over the operand, so the field walk can look ahead.
    sh_input *ct_src;
    char *ct_in; // CUT_CHUNK bytes, owned
    size_t ct_in_pos, ct_in_len;
    bool ct_stop; // the run ends: output gone, call torn down
    // Output, written in CUT_CHUNK pieces.
    char *ct_out; // owned
    size_t ct_out_len;
    box_buf ct_field1;
} cut_run;

/* ---- LIST ---- */

// ORDER CUTERR: the faults of a LIST, worded per mode below.
typedef enum cut_list_err {
    CUT_LIST_OK,
    CUT_LIST_TWO_DASHES,
    CUT_LIST_FROM_ONE,
    CUT_LIST_NO_END,
    CUT_LIST_DECREASING,
    CUT_LIST_TOO_BIG, // names the number
    CUT_LIST_BAD,     // names the rest of the list
} cut_list_err;

// ORDER CUTERR; [0] for -b/-c, [1] for -f. The two that quote a part of
// the list are worded in cut_list_fault.
static const char *const cut_list_msg[][2] = {
    {"", ""},
    {"invalid byte or character range", "invalid field range"},
    {"byte/character positions are numbered from 1",
     "fields are numbered from 1"},
    {"invalid range with no endpoint: -", "invalid range with no endpoint: -"},
    {"invalid decreasing range", "invalid decreasing range"},
    {"", ""},
    {"", ""},
};

/*
 * list -> item { (',' | ' ' | '\t') item }
 * item -> N | N '-' | '-' M | N '-' M        (N, M decimal, from 1)
 * An empty item is "numbered from 1", as GNU has it. Appends each item to
 * out (room for strlen(list) + 1); on a fault *bad and *badlen name the
 * text its message quotes.
 */
static cut_list_err
cut_list_items(const char *list, cut_range *out, size_t *n, const char **bad,
               size_t *badlen)
{
    uintmax_t lo = 1, v = 0;
    bool have_lo = false, have_hi = false, dash = false;
    const char *num = NULL; // where the number being read began
    *n = 0;
    for (const char *p = list;; p++) {
        char ch = *p;
        if (ch >= '0' && ch <= '9') {
            unsigned d = (unsigned)(ch - '0');
            num = num != NULL ? num : p;
            *(dash ? &have_hi : &have_lo) = true;
            // UINTMAX_MAX itself stands for "to the end": too large too.
            if (v > (UINTMAX_MAX - d) / 10 || v * 10 + d == UINTMAX_MAX) {
                *bad = num;
                *badlen = strspn(num, "0123456789");
                return CUT_LIST_TOO_BIG;
            }
            v = v * 10 + d;
            continue;
        }
        num = NULL;
        if (ch == '-') {
            if (dash)
                return CUT_LIST_TWO_DASHES;
            if (have_lo && v == 0)
                return CUT_LIST_FROM_ONE;
            dash = true;
            lo = have_lo ? v : 1;
            v = 0;
            continue;
        }
        if (ch != ',' && ch != ' ' && ch != '\t' && ch != '\0') {
            *bad = p;
            *badlen = strlen(p);
            return CUT_LIST_BAD;
        }
        if (dash && !have_lo && !have_hi)
            return CUT_LIST_NO_END;
        if (dash && have_hi && v < lo)
            return CUT_LIST_DECREASING;
        if (!dash && v == 0)
            return CUT_LIST_FROM_ONE;
        out[*n].lo = dash ? lo : v;
        out[*n].hi = !dash ? v : have_hi ? v : UINTMAX_MAX;
        (*n)++;
        if (ch == '\0')
            return CUT_LIST_OK;
        have_lo = have_hi = dash = false;
        v = 0;
    }
}

/*
 * GNU 9.1 sorts the ranges by their first position cut to an int (its
 * comparison converts), so 4294967297 sorts as 1 and 18446744073709551614
 * as -2; what follows (merge, complement, the walk) takes the order as it
 * comes. Kept, with equal keys in list order (glibc's qsort is a merge
 * sort there).
 */
static int
cut_range_cmp(const void *a, const void *b)
{
    const cut_range *x = a, *y = b;
    int32_t kx = (int32_t)(uint32_t)x->lo, ky = (int32_t)(uint32_t)y->lo;
    if (kx != ky)
        return kx < ky ? -1 : 1;
    return x->ord < y->ord ? -1 : x->ord > y->ord;
}

/* Sorts, then folds into each range the ones after it that start before
 * it ends. Touching ones (1,2) stay apart, as in GNU:
 * --output-delimiter goes between them. */
static size_t
cut_ranges_merge(cut_range *v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        v[i].ord = i;
    qsort(v, n, sizeof *v, cut_range_cmp);
    size_t k = 0;
    for (size_t i = 1; i < n; i++) {
        if (v[i].lo <= v[k].hi) {
            if (v[i].hi > v[k].hi)
                v[k].hi = v[i].hi;
        } else {
            v[++k] = v[i];
        }
    }
    return n > 0 ? k + 1 : 0;
}

/* The gaps before, between and after the n (>= 1) ranges of v, written
 * to out (room for n + 1), with GNU's arithmetic (it wraps where the
 * order above is not sorted). */
static size_t
cut_ranges_complement(const cut_range *v, size_t n, cut_range *out)
{
    size_t k = 0;
    if (v[0].lo > 1)
        out[k++] = (cut_range){1, v[0].lo - 1, 0};
    for (size_t i = 1; i < n; i++)
        if (v[i - 1].hi + 1 != v[i].lo)
            out[k++] = (cut_range){v[i - 1].hi + 1, v[i].lo - 1, 0};
    if (v[n - 1].hi < UINTMAX_MAX)
        out[k++] = (cut_range){v[n - 1].hi + 1, UINTMAX_MAX, 0};
    return k;
}

/* The usage error for a fault of the list; bad[0..badlen) is the text
 * the message quotes. Returns its status. */
static int
cut_list_fault(sh_gopt_iter *it, cut_list_err e, bool fields, const char *bad,
               size_t badlen)
{
    if (e != CUT_LIST_TOO_BIG && e != CUT_LIST_BAD)
        return sh_gopt_usage_error(it, "%s", cut_list_msg[e][fields]);
    char *text = box_alloc(badlen + 1);
    char *q = NULL;
    if (text != NULL) {
        memcpy(text, bad, badlen);
        text[badlen] = '\0';
        q = sh_gquote(text);
    }
    int st;
    if (q == NULL)
        st = sh_cmd_err(it->gi_cx, "cut", 1, "out of memory");
    else if (e == CUT_LIST_TOO_BIG)
        st = fields ? sh_gopt_usage_error(it, "field number %s is too large", q)
                    : sh_gopt_usage_error(it,
                                          "byte/character offset %s is "
                                          "too large",
                                          q);
    else
        st = fields ? sh_gopt_usage_error(it, "invalid field value %s", q)
                    : sh_gopt_usage_error(it,
                                          "invalid byte/character "
                                          "position %s",
                                          q);
    box_free(q);
    box_free(text);
    return st;
}

/* Parses LIST into r->ct_ranges; 0, or the usage error's status after its
 * message. */
static int
cut_list(sh_gopt_iter *it, cut_run *r, const char *list, bool complement)
{
    size_t cap = strlen(list) + 2;
    r->ct_ranges = box_calloc(cap, sizeof *r->ct_ranges);
    if (r->ct_ranges == NULL)
        return sh_cmd_err(it->gi_cx, "cut", 1, "out of memory");
    const char *bad = "";
    size_t badlen = 0, n = 0;
    cut_list_err e = cut_list_items(list, r->ct_ranges, &n, &bad, &badlen);
    if (e != CUT_LIST_OK)
        return cut_list_fault(it, e, r->ct_mode == CUT_FIELDS, bad, badlen);
    n = cut_ranges_merge(r->ct_ranges, n);
    if (complement) {
        cut_range *gaps = box_calloc(n + 2, sizeof *gaps);
        if (gaps == NULL)
            return sh_cmd_err(it->gi_cx, "cut", 1, "out of memory");
        size_t k = cut_ranges_complement(r->ct_ranges, n, gaps);
        box_free(r->ct_ranges);
        r->ct_ranges = gaps;
        n = k;
    }
    // The walk stops at this one: no end to check.
    r->ct_ranges[n] = (cut_range){UINTMAX_MAX, UINTMAX_MAX, 0};
    return 0;
}

/* Where a line's walk over the ranges stands, GNU's way: the Nth item
 * is selected when the current range starts at or before it; past the
 * current range's end the walk moves on by one range. */
typedef struct cut_cursor {
    const cut_range *cc_r;
} cut_cursor;

static void
cut_cursor_start(const cut_run *r, cut_cursor *c)
{
    c->cc_r = r->ct_ranges;
}

static bool
cut_selected(const cut_cursor *c, uintmax_t k)
{
    return c->cc_r->lo <= k;
}

/* Item *k is done: on to the next. */
static void
cut_next(cut_cursor *c, uintmax_t *k)
{
    (*k)++;
    if (*k > c->cc_r->hi)
        c->cc_r++;
}

/* ---- input and output ---- */

static void
cut_flush(cut_run *r)
{
    if (r->ct_out_len > 0 && !r->ct_stop &&
        !sh_cmd_emit(&r->ct_run, r->ct_out, r->ct_out_len)) {
        r->ct_stop = true;
        r->ct_in_pos = r->ct_in_len; // read no more of what is buffered
    }
    r->ct_out_len = 0;
}

static void
cut_put(cut_run *r, const char *p, size_t n)
{
    while (n > 0 && !r->ct_stop) {
        if (r->ct_out_len == CUT_CHUNK)
            cut_flush(r);
        size_t k = CUT_CHUNK - r->ct_out_len;
        k = k < n ? k : n;
        memcpy(r->ct_out + r->ct_out_len, p, k);
        r->ct_out_len += k;
        p += k;
        n -= k;
    }
}

static void
cut_putc(cut_run *r, int c)
{
    char ch = (char)c;
    cut_put(r, &ch, 1);
}

/* True when input is buffered; false at its end, after a read error
 * (status 1, reported) or when the run must stop. */
static bool
cut_more(cut_run *r)
{
    if (r->ct_in_pos < r->ct_in_len)
        return true;
    if (r->ct_stop)
        return false;
    sh_ctx *cx = r->ct_run.cr_cx;
    ssize_t n =
        sh_check_stop(cx) ? -1 : sh_input_read(r->ct_src, r->ct_in, CUT_CHUNK);
    if (n < 0 && sh_check_stop(cx)) {
        r->ct_stop = true; // the call is over (timeout, abort)
        r->ct_run.cr_status = cx->cx_status;
        return false;
    }
    if (n < 0)
        r->ct_run.cr_status = 1; // reported by the input; next operand
    r->ct_in_pos = 0;
    r->ct_in_len = n > 0 ? (size_t)n : 0;
    return n > 0;
}

static int
cut_getc(cut_run *r)
{
    if (!cut_more(r))
        return CUT_EOF;
    return (unsigned char)r->ct_in[r->ct_in_pos++];
}

static int
cut_peek(cut_run *r)
{
    if (!cut_more(r))
        return CUT_EOF;
    return (unsigned char)r->ct_in[r->ct_in_pos];
}

/*
 * Reads up to the next delimiter or end of line (returned, consumed) or
 * the end of input (CUT_EOF), copying the bytes before it to the output
 * when keep. *last becomes the last of those bytes, when there are any.
 */
static int
cut_span(cut_run *r, bool keep, int *last)
{
    while (cut_more(r)) {
        const char *s = r->ct_in + r->ct_in_pos;
        size_t avail = r->ct_in_len - r->ct_in_pos, k = 0;
        while (k < avail && (unsigned char)s[k] != r->ct_delim &&
               (unsigned char)s[k] != r->ct_eol)
            k++;
        if (keep)
            cut_put(r, s, k);
        if (k > 0)
            *last = (unsigned char)s[k - 1];
        r->ct_in_pos += k;
        if (k < avail) {
            r->ct_in_pos++;
            return (unsigned char)s[k];
        }
    }
    return CUT_EOF;
}

/* ---- the two modes ---- */

/* -b / -c: each selected byte; with --output-delimiter, the delimiter
 * before each range but a line's first. A last line without its end gets
 * one. */
static void
cut_bytes(cut_run *r)
{
    uintmax_t pos = 0;
    bool printed = false;
    cut_cursor cur;
    cut_cursor_start(r, &cur);
    for (;;) {
        int c = cut_getc(r);
        if (c == CUT_EOF) {
            if (pos > 0)
                cut_putc(r, r->ct_eol);
            return;
        }
        if (c == r->ct_eol) {
            cut_putc(r, c);
            pos = 0;
            printed = false;
            cut_cursor_start(r, &cur);
            continue;
        }
        cut_next(&cur, &pos);
        if (!cut_selected(&cur, pos))
            continue;
        if (r->ct_outd_set && printed && cur.cc_r->lo == pos)
            cut_put(r, r->ct_outd, r->ct_outd_len);
        printed = true;
        cut_putc(r, c);
    }
}

/* Reads the first field of a record with its delimiter or line end into
 * ct_field1. False when cut must stop (the field is too long, after the
 * message). */
static bool
cut_field1(cut_run *r)
{
    box_buf *b = &r->ct_field1;
    box_buf_truncate(b, 0);
    while (cut_more(r)) {
        const char *s = r->ct_in + r->ct_in_pos;
        size_t avail = r->ct_in_len - r->ct_in_pos, k = 0;
        while (k < avail && (unsigned char)s[k] != r->ct_delim &&
               (unsigned char)s[k] != r->ct_eol)
            k++;
        bool end = k < avail;
        k += end;
        if (box_buf_append(b, s, k) != BOX_OK) {
            r->ct_run.cr_status =
                sh_cmd_err(r->ct_run.cr_cx, "cut", 1, "memory exhausted");
            r->ct_stop = true;
            return false;
        }
        r->ct_in_pos += k;
        if (end)
            break;
    }
    return true;
}

/*
 * -f: the selected fields of each record joined by the output delimiter.
 * A record without a delimiter is printed whole (none with -s), so the
 * first field is held back when that decides what is printed. With the
 * delimiter equal to the line end (-d $'\n') the input is one record, and
 * a last line end is no delimiter where GNU 9.1 says so: its two paths
 * (first field held or not) differ there, and both are kept.
 */
static void
cut_fields(cut_run *r)
{
    if (cut_peek(r) == CUT_EOF)
        return;
    const int delim = r->ct_delim, eol = r->ct_eol;
    const bool sel1 = r->ct_ranges[0].lo <= 1;
    const bool hold1 = r->ct_only_delim != !sel1;
    cut_cursor cur;
    cut_cursor_start(r, &cur);
    uintmax_t fld = 1;
    bool any = false; // a selected field of this record is out
    int c = 0;        // what ended the last field: delimiter, eol, 0
    for (;;) {
        if (fld == 1 && hold1) {
            if (!cut_field1(r) || r->ct_field1.b_len == 0)
                return;
            const char *f = r->ct_field1.b_data;
            size_t n = r->ct_field1.b_len;
            int end = (unsigned char)f[n - 1];
            if (end != delim) { // no delimiter in this record
                if (!r->ct_only_delim) {
                    cut_put(r, f, n);
                    if (end != eol)
                        cut_putc(r, eol);
                }
                continue;
            }
            if (sel1) {
                cut_put(r, f, n - 1);
                any = delim != eol || cut_peek(r) != CUT_EOF;
            }
            cut_next(&cur, &fld);
            c = 0;
        }
        int prev = c; // the last byte read before the end of the record
        bool sel = cut_selected(&cur, fld);
        if (sel && any)
            cut_put(r, r->ct_outd, r->ct_outd_len);
        any = any || sel;
        c = cut_span(r, sel, &prev);
        if (delim == eol && c == delim && cut_peek(r) == CUT_EOF)
            c = CUT_EOF;
        if (c == delim) {
            cut_next(&cur, &fld);
            continue;
        }
        // The record ends. An end of line goes out unless nothing was
        // (-s, no delimiter) or the input ended just after one.
        if ((any || !(r->ct_only_delim && fld == 1)) &&
            (c == eol || prev != eol || delim == eol))
            cut_putc(r, eol);
        if (c == CUT_EOF || r->ct_stop)
            return;
        fld = 1;
        any = false;
        cut_cursor_start(r, &cur);
    }
}

static bool
cut_operand(sh_cmd_run *cr, sh_input *in, const char *name)
{
    (void)name;
    cut_run *r = (cut_run *)cr;
    r->ct_src = in;
    r->ct_in_pos = r->ct_in_len = 0;
    if (r->ct_mode == CUT_FIELDS)
        cut_fields(r);
    else
        cut_bytes(r);
    cut_flush(r);
    r->ct_src = NULL;
    return !r->ct_stop;
}

/* The checks GNU makes once the options are read, in its order; 0 or
 * the usage error's status. */
static int
cut_check(sh_gopt_iter *it, const cut_run *r, bool delim_set)
{
    if (r->ct_mode == CUT_NONE)
        return sh_gopt_usage_error(it, "you must specify a list of bytes, "
                                       "characters, or fields");
    if (delim_set && r->ct_mode != CUT_FIELDS)
        return sh_gopt_usage_error(it, "an input delimiter may be specified "
                                       "only when operating on fields");
    if (r->ct_only_delim && r->ct_mode != CUT_FIELDS)
        return sh_gopt_usage_error(it, "suppressing non-delimited lines "
                                       "makes sense\n\tonly when operating "
                                       "on fields");
    return 0;
}

int
sh_cmd_cut(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    cut_run r = {.ct_run = {.cr_cx = cx, .cr_cmd = "cut"},
                 .ct_delim = '\t',
                 .ct_eol = '\n'};
    box_buf_init(&r.ct_field1, CUT_FIELD1_MAX);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &cut_spec, argc, argv);
    const char *list = NULL, *arg;
    bool delim_set = false, complement = false;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'b' || id == 'c' || id == 'f') {
            if (list != NULL) {
                st = sh_gopt_usage_error(&it, "only one list may be "
                                              "specified");
                goto out;
            }
            list = arg;
            r.ct_mode = id == 'f' ? CUT_FIELDS : CUT_BYTES;
        } else if (id == 'd') {
            if (arg[0] != '\0' && arg[1] != '\0') {
                st = sh_gopt_usage_error(&it, "the delimiter must be a "
                                              "single character");
                goto out;
            }
            r.ct_delim = (unsigned char)arg[0]; // "": NUL
            delim_set = true;
        } else if (id == 's') {
            r.ct_only_delim = true;
        } else if (id == 'z') {
            r.ct_eol = '\0';
        } else if (id == CUT_OPT_COMPLEMENT) {
            complement = true;
        } else if (id == CUT_OPT_OUTDELIM) {
            r.ct_outd = arg; // "": one NUL, as GNU has it
            r.ct_outd_len = arg[0] != '\0' ? strlen(arg) : 1;
            r.ct_outd_set = true;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if ((st = cut_check(&it, &r, delim_set)) != 0 ||
        (st = cut_list(&it, &r, list, complement)) != 0)
        goto out;
    if (!r.ct_outd_set) {
        r.ct_delim_str[0] = (char)r.ct_delim;
        r.ct_outd = r.ct_delim_str;
        r.ct_outd_len = 1;
    }
    r.ct_in = box_alloc(CUT_CHUNK);
    r.ct_out = box_alloc(CUT_CHUNK);
    if (r.ct_in == NULL || r.ct_out == NULL) {
        st = sh_cmd_err(cx, "cut", 1, "out of memory");
        goto out;
    }
    sh_opts ops = {.o_ind = 0};
    st = sh_cmd_operands(&r.ct_run, it.gi_nops, it.gi_ops, &ops, cut_operand);
out:
    box_buf_reset(&r.ct_field1);
    box_free(r.ct_in);
    box_free(r.ct_out);
    box_free(r.ct_ranges);
    sh_gopt_free(&it);
    return st;
}
