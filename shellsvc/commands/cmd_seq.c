/* SPDX-License-Identifier: Apache-2.0 */
/* seq [-w] [-f FORMAT] [-s STRING] [FIRST [INCREMENT]] LAST: GNU coreutils
 * 9.1 (its formats, its widths, its exact counting of big integers). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define SEQ_CHUNK (64u * 1024u) // output is written a chunk at a time
// One printed number (a wide -f, the digits of 1e-5000) plus a chunk.
#define SEQ_OUT_MAX (4u << 20)
#define SEQ_FMT_MAX 4096u      // the printf format made of -f's text
#define SEQ_FAST_STEP_MAX 200u // GNU counts in decimal digits up to this step
#define SEQ_PREC_ANY INT_MAX   // not fixed point: printed with %g

static const sh_gopt seq_opts[] = {
    {'f', "format", SH_GARG_REQ},
    {'s', "separator", SH_GARG_REQ},
    {'w', "equal-width", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec seq_spec = {
    .gs_cmd = "seq",
    .gs_opts = seq_opts,
    // GNU's "+f:s:w" and its look at each word: options end at the first
    // operand, and "-1" or "-.5" is an operand, not an option.
    .gs_flags = SH_GOPT_F_INORDER | SH_GOPT_F_NEGNUM,
    .gs_fail = 1,
    .gs_help =
        "Usage: seq [OPTION]... LAST\n"
        "  or:  seq [OPTION]... FIRST LAST\n"
        "  or:  seq [OPTION]... FIRST INCREMENT LAST\n"
        "Print numbers from FIRST to LAST, in steps of INCREMENT.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short "
        "options too.\n"
        "  -f, --format=FORMAT      use printf style floating-point FORMAT\n"
        "  -s, --separator=STRING   use STRING to separate numbers "
        "(default: \\n)\n"
        "  -w, --equal-width        equalize width by padding with leading "
        "zeroes\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "If FIRST or INCREMENT is omitted, it defaults to 1.  That is, an\n"
        "omitted INCREMENT defaults to 1 even when LAST is smaller than "
        "FIRST.\n"
        "The sequence of numbers ends when the sum of the current number "
        "and\n"
        "INCREMENT would become greater than LAST.\n"
        "FIRST, INCREMENT, and LAST are interpreted as floating point "
        "values.\n"
        "INCREMENT is usually positive if FIRST is smaller than LAST, and\n"
        "INCREMENT is usually negative if FIRST is greater than LAST.\n"
        "INCREMENT must not be 0; none of FIRST, INCREMENT and LAST may be "
        "NaN.\n"
        "FORMAT must be suitable for printing one argument of type "
        "'double';\n"
        "it defaults to %.PRECf if FIRST, INCREMENT, and LAST are all fixed "
        "point\n"
        "decimal numbers with maximum precision PREC, and to %g otherwise.\n",
};

/* One of FIRST, INCREMENT, LAST: its value and how it was written. */
typedef struct seq_num {
    long double sn_value;
    int sn_width; // characters printed in fixed point (GNU's estimate)
    int sn_prec;  // digits after the point, or SEQ_PREC_ANY
} seq_num;

/* The printf format numbers go through (its one conversion has 'L'), and
 * the bytes it prints before and after the number. */
typedef struct seq_fmt {
    char sf_text[SEQ_FMT_MAX];
    size_t sf_pre, sf_post;
} seq_fmt;

typedef struct seq_run {
    sh_cmd_run sq_run; // first: the shared helpers get &sq_run
    box_buf sq_out;    // output not yet written
    const char *sq_sep;
} seq_run;

/* ---- output ---- */

static bool
seq_nomem(seq_run *r)
{
    r->sq_run.cr_status =
        sh_cmd_err(r->sq_run.cr_cx, "seq", 1, "out of memory");
    return false;
}

/* Writes what waits, then looks whether the call goes on: seq 1 inf
 * ends with the reader, the budget or an abort. */
static bool
seq_flush(seq_run *r)
{
    bool ok = sh_cmd_emit(&r->sq_run, r->sq_out.b_data, r->sq_out.b_len);
    r->sq_out.b_len = 0; // keeps the storage for the next chunk
    return ok && sh_cmd_live(&r->sq_run);
}

static bool
seq_put(seq_run *r, const char *p, size_t n)
{
    if (box_buf_append(&r->sq_out, p, n) != BOX_OK)
        return seq_nomem(r);
    return r->sq_out.b_len < SEQ_CHUNK || seq_flush(r);
}

/* ---- operands ---- */

/* GNU's strtold check: the whole word is a number, and not one too big
 * (an underflow to 0 is fine). */
static bool
seq_strtold(const char *s, long double *v)
{
    char *end;
    errno = 0;
    *v = strtold(s, &end);
    return end != s && *end == '\0' && !(*v != 0 && errno == ERANGE);
}

static long
seq_clamp(long v, long lo, long hi)
{
    return v < lo ? lo : v > hi ? hi : v;
}

/*
 * How the operand was written, for the default format: sn_prec, its
 * digits after the point in fixed notation (0 for an integer, none for a
 * hex fraction), and sn_width, the characters it takes printed so, for
 * -w (none for hex or infinity). Both come from the text, not the
 * value: "1.50" has two digits after the point, "007" is 3 wide.
 */
static void
seq_measure(const char *arg, seq_num *n)
{
    while (isspace((unsigned char)*arg) || *arg == '+')
        arg++; // neither is printed
    const char *dot = strchr(arg, '.');
    n->sn_width = 0;
    n->sn_prec = dot == NULL && strchr(arg, 'p') == NULL ? 0 : SEQ_PREC_ANY;
    if (arg[strcspn(arg, "xX")] != '\0' || !isfinite(n->sn_value))
        return;
    long width = (long)strlen(arg), frac = 0, prec = 0;
    if (dot != NULL) {
        frac = (long)strcspn(dot + 1, "eE");
        prec = frac;
        if (frac == 0)
            width--; // "5." prints as 5
        else if (dot == arg || !isdigit((unsigned char)dot[-1]))
            width++; // ".5" and "-.5" print a 0 first
    }
    const char *e = strpbrk(arg, "eE");
    if (e != NULL) {
        // An exponent past any sensible size keeps its sign only.
        long x = seq_clamp(strtol(e + 1, NULL, 10), -INT_MAX, INT_MAX);
        width -= (long)strlen(e); // not printed
        if (x < 0) {
            prec -= x; // the point moves left
            if (dot == NULL || e == dot + 1)
                width++; // a point now printed
            width -= x;
        } else {
            long moved = prec < x ? prec : x; // fraction digits now whole
            prec -= moved;
            if (dot != NULL && prec == 0 && frac > 0)
                width--;        // the point is no longer printed
            width += x - moved; // zeros printed after the digits
        }
    }
    n->sn_prec = (int)seq_clamp(prec, 0, INT_MAX - 1);
    n->sn_width = (int)seq_clamp(width, 0, INT_MAX);
}

/* Reads one operand; a usage error (status in *st) when it is no number
 * or not a number. */
static bool
seq_operand(sh_gopt_iter *it, const char *arg, seq_num *n, int *st)
{
    char *q = NULL;
    if (!seq_strtold(arg, &n->sn_value)) {
        q = sh_gquote(arg);
        *st = sh_gopt_usage_error(it, "invalid floating point argument: %s",
                                  q ? q : "");
    } else if (isnan(n->sn_value)) {
        q = sh_gquote(arg);
        *st = sh_gopt_usage_error(
            it, "invalid \xe2\x80\x98not-a-number\xe2\x80\x99 argument: %s",
            q ? q : "");
    } else {
        seq_measure(arg, n);
        return true;
    }
    box_free(q);
    return false;
}

/* ---- formats ---- */

static int
seq_format_err(sh_ctx *cx, const char *fmt, const char *what, char conv)
{
    char *q = sh_gquote(fmt);
    if (conv != '\0')
        sh_cmd_err(cx, "seq", 1, "format %s has unknown %%%c directive",
                   q ? q : "", conv);
    else
        sh_cmd_err(cx, "seq", 1, "format %s %s", q ? q : "", what);
    box_free(q);
    return 1;
}

/* Skips text up to the next conversion ("%%" is text); *printed counts
 * the bytes the text prints. */
static size_t
seq_format_text(const char *s, size_t i, size_t *printed)
{
    while (s[i] != '\0' && !(s[i] == '%' && s[i + 1] != '%')) {
        i += s[i] == '%' ? 2 : 1;
        (*printed)++;
    }
    return i;
}

/*
 * -f FORMAT: exactly one floating-point conversion (%e %f %g %a, upper
 * case too) with flags, width and precision, and any text with %% around
 * it; GNU's message otherwise (no "Try" line). The conversion gets 'L'.
 */
static int
seq_format_user(sh_ctx *cx, const char *s, seq_fmt *f)
{
    size_t pre = 0, post = 0;
    size_t i = seq_format_text(s, 0, &pre);
    if (s[i] == '\0')
        return seq_format_err(cx, s, "has no % directive", '\0');
    i++; // the '%'
    i += strspn(s + i, "-+ #0'");
    i += strspn(s + i, "0123456789");
    if (s[i] == '.') {
        i++;
        i += strspn(s + i, "0123456789");
    }
    size_t spec_end = i; // flags, width, precision end here
    if (s[i] == 'L')
        i++;
    if (s[i] == '\0')
        return seq_format_err(cx, s, "ends in %", '\0');
    if (strchr("efgaEFGA", s[i]) == NULL)
        return seq_format_err(cx, s, NULL, s[i]);
    char conv = s[i++];
    size_t tail = i;
    i = seq_format_text(s, i, &post);
    if (s[i] != '\0')
        return seq_format_err(cx, s, "has too many % directives", '\0');
    int n = snprintf(f->sf_text, sizeof f->sf_text, "%.*sL%c%s", (int)spec_end,
                     s, conv, s + tail);
    if (n < 0 || (size_t)n >= sizeof f->sf_text)
        return sh_cmd_err(cx, "seq", 1, "format too long");
    f->sf_pre = pre;
    f->sf_post = post;
    return 0;
}

/*
 * The default format: fixed point with the precision of the most precise
 * of FIRST and INCREMENT when they and LAST are all fixed point (padded
 * with zeros to the widest with -w), else %g.
 */
static void
seq_format_default(const seq_num *first, const seq_num *step,
                   const seq_num *last, bool equal, seq_fmt *f)
{
    int prec = first->sn_prec > step->sn_prec ? first->sn_prec : step->sn_prec;
    f->sf_pre = f->sf_post = 0;
    if (prec == SEQ_PREC_ANY || last->sn_prec == SEQ_PREC_ANY) {
        snprintf(f->sf_text, sizeof f->sf_text, "%%Lg");
        return;
    }
    if (!equal) {
        snprintf(f->sf_text, sizeof f->sf_text, "%%.%dLf", prec);
        return;
    }
    long fw = (long)first->sn_width + prec - first->sn_prec;
    long lw = (long)last->sn_width + prec - last->sn_prec;
    if (last->sn_prec > 0 && prec == 0)
        lw--; // LAST's point is not printed
    if (last->sn_prec == 0 && prec > 0)
        lw++; // a point is printed that LAST had not
    if (first->sn_prec == 0 && prec > 0)
        fw++;
    snprintf(f->sf_text, sizeof f->sf_text, "%%0%ld.%dLf", fw > lw ? fw : lw,
             prec);
}

/* ---- counting ---- */

/* x as f prints it, into b (emptied first). */
static bool
seq_print(seq_run *r, box_buf *b, const seq_fmt *f, long double x)
{
    box_buf_truncate(b, 0);
    box_err e = box_buf_printf(b, f->sf_text, x);
    if (e == BOX_ETOOBIG)
        r->sq_run.cr_status = sh_cmd_err(r->sq_run.cr_cx, "seq", 1,
                                         "a number is too long to print");
    else if (e != BOX_OK)
        return seq_nomem(r);
    return e == BOX_OK;
}

/*
 * The number just past LAST is printed too when it prints as LAST and
 * not as the number before it: 0 0.1 0.9 counts 9 * 0.1 a little past
 * 0.9 in long double, and GNU still ends on 0.9.
 */
static bool
seq_rounds_to_last(const seq_fmt *f, box_buf *next, const box_buf *prev,
                   long double last)
{
    if (next->b_len < f->sf_pre + f->sf_post)
        return false;
    // The number alone: the text after it is cut off for a moment (the
    // buffer is NUL-terminated, so with no text after it too).
    char *end = next->b_data + next->b_len - f->sf_post, save = *end;
    *end = '\0';
    long double v;
    bool same = seq_strtold(next->b_data + f->sf_pre, &v) && v == last;
    *end = save;
    return same && (next->b_len != prev->b_len ||
                    memcmp(next->b_data, prev->b_data, next->b_len) != 0);
}

/* FIRST + i * INCREMENT in long double while not past LAST. */
static void
seq_floats(seq_run *r, const seq_fmt *f, long double first, long double step,
           long double last)
{
    if (step < 0 ? first < last : last < first)
        return; // nothing at all, not even the newline
    box_buf cur, next;
    box_buf_init(&cur, SEQ_OUT_MAX);
    box_buf_init(&next, SEQ_OUT_MAX);
    size_t sep = strlen(r->sq_sep);
    if (!seq_print(r, &cur, f, first) || !seq_put(r, cur.b_data, cur.b_len))
        goto out;
    for (long double i = 1;; i++) {
        long double x = first + i * step;
        bool past = step < 0 ? x < last : last < x;
        if (!seq_print(r, &next, f, x))
            goto out;
        if (past && !seq_rounds_to_last(f, &next, &cur, last))
            break;
        if (!seq_put(r, r->sq_sep, sep) || !seq_put(r, next.b_data, next.b_len))
            goto out;
        if (past)
            break;
        box_buf tmp = cur;
        cur = next;
        next = tmp;
    }
    (void)seq_put(r, "\n", 1);
out:
    box_buf_reset(&cur);
    box_buf_reset(&next);
}

static bool
seq_all_digits(const char *s)
{
    return *s != '\0' && s[strspn(s, "0123456789")] == '\0';
}

/* a < b, a == b, a > b as -1, 0, 1: decimal digit strings without
 * leading zeros. */
static int
seq_digits_cmp(const char *a, size_t al, const char *b, size_t bl)
{
    if (al != bl)
        return al < bl ? -1 : 1;
    int c = memcmp(a, b, al);
    return c < 0 ? -1 : c > 0;
}

/*
 * Integers of any size, exactly: FIRST counts up by STEP (1 to 200) in
 * decimal digits, as GNU does when the operands are plain integers and
 * nothing is formatted. last NULL has no end (seq 1 inf).
 */
static void
seq_digits(seq_run *r, const char *first, unsigned step, const char *last)
{
    first += strspn(first, "0");
    if (*first == '\0')
        first--; // keep one 0
    size_t bl = 0;
    if (last != NULL) {
        last += strspn(last, "0");
        if (*last == '\0')
            last--;
        bl = strlen(last);
    }
    // The number is kept right-aligned in buf[start, cap): room to grow
    // by a digit to the left as it carries.
    size_t fl = strlen(first), cap = (fl > bl ? fl : bl) + 32, start;
    char *buf = box_alloc(cap);
    if (buf == NULL) {
        seq_nomem(r);
        return;
    }
    start = cap - fl;
    memcpy(buf + start, first, fl);
    if (last != NULL && seq_digits_cmp(buf + start, fl, last, bl) > 0)
        goto out; // nothing at all
    size_t sep = strlen(r->sq_sep);
    for (;;) {
        if (!seq_put(r, buf + start, cap - start))
            goto out;
        unsigned carry = step;
        for (size_t i = cap; carry > 0; i--) {
            if (i == start) {
                if (start == 0) { // 10^(cap-32) numbers later
                    seq_nomem(r);
                    goto out;
                }
                buf[--start] = '0';
            }
            unsigned d = (unsigned)(buf[i - 1] - '0') + carry;
            buf[i - 1] = (char)('0' + d % 10);
            carry = d / 10;
        }
        if (last != NULL &&
            seq_digits_cmp(buf + start, cap - start, last, bl) > 0)
            break;
        if (!seq_put(r, r->sq_sep, sep))
            goto out;
    }
    (void)seq_put(r, "\n", 1);
out:
    box_free(buf);
}

/*
 * Counts once the operands are read. GNU counts exact decimal digits
 * when all three are integers, FIRST not negative and INCREMENT 1 to 200,
 * and nothing is formatted (no -f, no -w, a one-byte separator); that
 * is what `seq 18446744073709551615 18446744073709551617` shows.
 */
static void
seq_count(seq_run *r, const seq_num *first, const seq_num *step,
          const seq_num *last, const seq_fmt *f, bool plain)
{
    bool digits = plain && isfinite(first->sn_value) && first->sn_prec == 0 &&
                  step->sn_prec == 0 && last->sn_prec == 0 &&
                  first->sn_value >= 0 && !signbit(first->sn_value) &&
                  step->sn_value > 0 && step->sn_value <= SEQ_FAST_STEP_MAX;
    if (digits && last->sn_value < first->sn_value)
        return; // nothing at all (LAST may be -inf)
    if (!digits) {
        seq_floats(r, f, first->sn_value, step->sn_value, last->sn_value);
        return;
    }
    box_buf a, b;
    box_buf_init(&a, SEQ_OUT_MAX);
    box_buf_init(&b, SEQ_OUT_MAX);
    bool inf = isinf(last->sn_value);
    // fabsl: LAST -0 counts to 0 (FIRST is 0 then).
    if (box_buf_printf(&a, "%.0Lf", first->sn_value) != BOX_OK ||
        (!inf && box_buf_printf(&b, "%.0Lf", fabsl(last->sn_value)) != BOX_OK))
        seq_nomem(r);
    else
        seq_digits(r, a.b_data, (unsigned)step->sn_value,
                   inf ? NULL : b.b_data);
    box_buf_reset(&a);
    box_buf_reset(&b);
}

/* ---- the command ---- */

int
sh_cmd_seq(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &seq_spec, argc, argv);
    seq_run r = {.sq_run = {.cr_cx = cx, .cr_cmd = "seq"}, .sq_sep = "\n"};
    box_buf_init(&r.sq_out, SEQ_OUT_MAX);
    const char *format = NULL, *arg;
    bool equal = false;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'f')
            format = arg;
        else if (id == 's')
            r.sq_sep = arg;
        else if (id == 'w')
            equal = true;
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    char **ops = it.gi_ops;
    int nops = it.gi_nops;
    if (nops == 0) {
        st = sh_gopt_usage_error(&it, "missing operand");
        goto out;
    }
    if (nops > 3) {
        char *q = sh_gquote(ops[3]);
        st = sh_gopt_usage_error(&it, "extra operand %s", q ? q : "");
        box_free(q);
        goto out;
    }
    seq_fmt f;
    if (format != NULL && (st = seq_format_user(cx, format, &f)) != 0)
        goto out;
    if (format != NULL && equal) {
        st = sh_gopt_usage_error(&it, "format string may not be specified "
                                      "when printing equal width strings");
        goto out;
    }
    bool plain = format == NULL && !equal && strlen(r.sq_sep) == 1;
    // Plain integers count in digits before anything is read as a float.
    long double sv = 1; // read only when nops == 3 (step_ok)
    bool step_ok =
        nops < 3 || (seq_all_digits(ops[1]) && seq_strtold(ops[1], &sv) &&
                     sv > 0 && sv <= SEQ_FAST_STEP_MAX);
    if (plain && step_ok && seq_all_digits(ops[0]) &&
        seq_all_digits(ops[nops - 1])) {
        seq_digits(&r, nops == 1 ? "1" : ops[0], nops == 3 ? (unsigned)sv : 1u,
                   ops[nops - 1]);
        goto flush;
    }
    // GNU reads FIRST and INCREMENT, refuses a zero INCREMENT, then LAST.
    seq_num one = {1, 1, 0}, first = one, step = one, last;
    if (nops > 1 && !seq_operand(&it, ops[0], &first, &st))
        goto out;
    if (nops > 2 && !seq_operand(&it, ops[1], &step, &st))
        goto out;
    if (step.sn_value == 0) {
        char *q = sh_gquote(ops[1]);
        st = sh_gopt_usage_error(&it, "invalid Zero increment value: %s",
                                 q ? q : "");
        box_free(q);
        goto out;
    }
    if (!seq_operand(&it, ops[nops - 1], &last, &st))
        goto out;
    if (format == NULL)
        seq_format_default(&first, &step, &last, equal, &f);
    seq_count(&r, &first, &step, &last, &f, plain);
flush:
    if (r.sq_run.cr_status == 0 && r.sq_out.b_len > 0)
        (void)seq_flush(&r);
    st = r.sq_run.cr_status;
out:
    box_buf_reset(&r.sq_out);
    sh_gopt_free(&it);
    return st;
}
