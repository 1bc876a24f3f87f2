/* SPDX-License-Identifier: Apache-2.0 */
/* xxd [options] [infile [outfile]]: vim's xxd 2022-01-14 (Debian 12's
 * xxd package): hex dumps, plain (-p), C include (-i), bits (-b), and
 * back again (-r). Its options are its own single-dash words, not GNU's. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_hex.h"
#include "sh_internal.h"

#define XXD_COLS_MAX 256
#define XXD_OUT_MAX (64u << 20) // -r into a file: the output held whole
#define XXD_FLUSH (64u * 1024u)

static const char xxd_usage[] =
    "Usage:\n"
    "       xxd [options] [infile [outfile]]\n"
    "    or\n"
    "       xxd -r [-s [-]offset] [-c cols] [-ps] [infile [outfile]]\n"
    "Options:\n"
    "    -a          toggle autoskip: A single '*' replaces nul-lines. Default "
    "off.\n"
    "    -b          binary digit dump (incompatible with -ps,-i,-r). Default "
    "hex.\n"
    "    -C          capitalize variable names in C include file style (-i).\n"
    "    -c cols     format <cols> octets per line. Default 16 (-i: 12, -ps: "
    "30).\n"
    "    -E          show characters in EBCDIC. Default ASCII.\n"
    "    -e          little-endian dump (incompatible with -ps,-i,-r).\n"
    "    -g bytes    number of octets per group in normal output. Default 2 "
    "(-e: 4).\n"
    "    -h          print this summary.\n"
    "    -i          output in C include file style.\n"
    "    -l len      stop after <len> octets.\n"
    "    -n name     set the variable name used in C include output (-i).\n"
    "    -o off      add <off> to the displayed file position.\n"
    "    -ps         output in postscript plain hexdump style.\n"
    "    -r          reverse operation: convert (or patch) hexdump into "
    "binary.\n"
    "    -r -s off   revert with <off> added to file positions found in "
    "hexdump.\n"
    "    -d          show offset in decimal instead of hex.\n"
    "    -s [+][-]seek  start at <seek> bytes abs. (or +: rel.) infile "
    "offset.\n"
    "    -u          use upper case hex letters.\n"
    "    -v          show version: \"xxd 2022-01-14 by Juergen Weigert et "
    "al.\".\n";

/* ORDER XXD_MODE */
typedef enum xxd_mode {
    XXD_HEX,     // the default dump
    XXD_BITS,    // -b
    XXD_PLAIN,   // -p
    XXD_INCLUDE, // -i
} xxd_mode;

typedef struct xxd_run {
    sh_cmd_run xr_run;
    xxd_mode xr_mode;
    bool xr_autoskip, xr_little, xr_upper, xr_capital, xr_decimal;
    bool xr_revert;
    long xr_cols, xr_group; // -c, -g
    bool xr_given_cols;
    long xr_len;         // -l; -1: all
    long xr_seek;        // -s
    long xr_offset;      // -o: added to the shown positions
    const char *xr_name; // -n
    box_buf xr_out;
} xxd_run;

static bool
xxd_flush(xxd_run *r)
{
    bool ok = sh_cmd_emit(&r->xr_run, r->xr_out.b_data, r->xr_out.b_len);
    box_buf_truncate(&r->xr_out, 0);
    return ok;
}

static bool
xxd_oom(xxd_run *r)
{
    r->xr_run.cr_status =
        sh_cmd_err(r->xr_run.cr_cx, "xxd", 1, "out of memory");
    return false;
}

/* Up to n bytes of in, reading until n are in or the input ends; -1 to
 * stop. */
static ssize_t
xxd_fill(xxd_run *r, sh_input *in, unsigned char *buf, size_t n)
{
    size_t got = 0;
    while (got < n) {
        if (!sh_cmd_live(&r->xr_run))
            return -1;
        ssize_t k = sh_input_read(in, buf + got, n - got);
        if (k < 0 && !sh_cmd_live(&r->xr_run))
            return -1;
        if (k < 0)
            r->xr_run.cr_status = 2; // reported by the input
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    return (ssize_t)got;
}

/* ---- the dumps -------------------------------------------------------- */

#define XXD_LINE (16 + 9 * XXD_COLS_MAX + XXD_COLS_MAX + 16)

/*
 * One line of the hex or bits dump into line (XXD_LINE): the address,
 * each byte at its own column (xxd's grid: a group of g bytes takes its
 * digits and a space; -e fills each group's bytes from the right), then
 * the text column. Returns its length.
 */
static size_t
xxd_render(const xxd_run *r, long addr, const unsigned char *p, size_t n,
           char *line)
{
    const char *digits = r->xr_upper ? "0123456789ABCDEF" : "0123456789abcdef";
    long cols = r->xr_cols, g = r->xr_group;
    long per = r->xr_mode == XXD_BITS ? 8 : 2; // characters per byte
    long grplen = g * per + 1;
    int alen = snprintf(line, 32, r->xr_decimal ? "%08ld:" : "%08lx:", addr);
    long text = alen + 3 + (grplen * cols - 1) / g;
    memset(line + alen, ' ', (size_t)(text - alen));
    for (size_t i = 0; i < n; i++) {
        long at = (long)i;
        if (r->xr_little)
            at ^= g - 1;
        long c = alen + 1 + (grplen * at) / g;
        if (r->xr_mode == XXD_BITS) {
            for (int b = 7; b >= 0; b--)
                line[c++] = (char)('0' + ((p[i] >> b) & 1));
        } else {
            line[c] = digits[p[i] >> 4];
            line[c + 1] = digits[p[i] & 15];
        }
    }
    long end = text;
    for (size_t i = 0; i < n; i++)
        line[end++] = p[i] >= 32 && p[i] < 127 ? (char)p[i] : '.';
    line[end++] = '\n';
    return (size_t)end;
}

static bool
xxd_put(xxd_run *r, const char *p, size_t n)
{
    if (box_buf_append(&r->xr_out, p, n) != BOX_OK)
        return xxd_oom(r);
    return r->xr_out.b_len < XXD_FLUSH || xxd_flush(r);
}

/*
 * -a as xxd does it. zs counts the all-zero lines in a row: the first
 * shows, the second is held; when a line with data (nz > 0) ends the
 * run, a run of two shows the held line, a longer one "*". nz < 0 is
 * the end of a dump whose last line was whole: it ends a run the same
 * way, then shows that last line. Without -a every line has nz 1.
 */
typedef struct xxd_skip {
    int sk_zs;
    char sk_held[XXD_LINE];
    size_t sk_hl;
} xxd_skip;

static bool
xxd_skip_line(xxd_run *r, xxd_skip *k, const char *line, size_t len, int nz)
{
    if (nz == 0 && k->sk_zs == 1) {
        memcpy(k->sk_held, line, len);
        k->sk_hl = len;
    }
    if (nz == 0 && k->sk_zs++ != 0)
        return true;
    if (nz < 0)
        k->sk_zs--;
    if (nz != 0 && k->sk_zs == 2 && !xxd_put(r, k->sk_held, k->sk_hl))
        return false;
    if (nz != 0 && k->sk_zs > 2 && !xxd_put(r, "*\n", 2))
        return false;
    if ((nz >= 0 || k->sk_zs > 0) && !xxd_put(r, line, len))
        return false;
    if (nz != 0)
        k->sk_zs = 0;
    return true;
}

static bool
xxd_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0)
            return false;
    return true;
}

/* The hex and bits dumps, line by line. */
static bool
xxd_dump(xxd_run *r, sh_input *in, long left)
{
    size_t cols = (size_t)r->xr_cols;
    unsigned char cur[XXD_COLS_MAX];
    char line[XXD_LINE];
    size_t len = 0;
    xxd_skip *k = box_alloc(sizeof *k);
    if (k == NULL)
        return xxd_oom(r);
    k->sk_zs = 0;
    bool whole = false; // the last line shown was a whole one
    long addr = r->xr_seek + r->xr_offset;
    bool ok = true;
    for (;;) {
        size_t want = left >= 0 && (size_t)left < cols ? (size_t)left : cols;
        ssize_t n = want > 0 ? xxd_fill(r, in, cur, want) : 0;
        if (n < 0) {
            ok = false;
            break;
        }
        if (n == 0)
            break;
        if (left >= 0)
            left -= n;
        len = xxd_render(r, addr, cur, (size_t)n, line);
        addr += n;
        whole = (size_t)n == cols;
        int nz = !whole || !r->xr_autoskip || !xxd_zero(cur, (size_t)n);
        if (!(ok = xxd_skip_line(r, k, line, len, nz)))
            break;
        if ((size_t)n < want)
            break;
    }
    if (ok && whole && r->xr_autoskip)
        ok = xxd_skip_line(r, k, line, len, -1);
    box_free(k);
    return ok && xxd_flush(r);
}

/* -p: the bytes as hex, xr_cols a line (0: one line). */
static bool
xxd_plain(xxd_run *r, sh_input *in, long left)
{
    const char *digits = r->xr_upper ? "0123456789ABCDEF" : "0123456789abcdef";
    unsigned char buf[4096];
    long col = 0;
    for (;;) {
        size_t want =
            left >= 0 && left < (long)sizeof buf ? (size_t)left : sizeof buf;
        ssize_t n = want > 0 ? xxd_fill(r, in, buf, want) : 0;
        if (n < 0)
            return false;
        for (ssize_t i = 0; i < n; i++) {
            char two[3] = {digits[buf[i] >> 4], digits[buf[i] & 15], '\n'};
            col++;
            bool nl = r->xr_cols > 0 && col == r->xr_cols;
            if (nl)
                col = 0;
            if (box_buf_append(&r->xr_out, two, nl ? 3 : 2) != BOX_OK)
                return xxd_oom(r);
        }
        if (left >= 0)
            left -= n;
        if (r->xr_out.b_len >= XXD_FLUSH && !xxd_flush(r))
            return false;
        if ((size_t)n < want || n == 0)
            break;
    }
    if (col > 0 && box_buf_putc(&r->xr_out, '\n') != BOX_OK)
        return xxd_oom(r);
    return xxd_flush(r);
}

/* -i's variable name: -n's, else the file's with each character that is
 * not a letter or digit as '_', "__" before a leading digit; -C makes it
 * upper case. */
static char *
xxd_varname(const xxd_run *r, const char *file)
{
    const char *src = r->xr_name != NULL ? r->xr_name : file;
    bool lead = r->xr_name == NULL && isdigit((unsigned char)src[0]);
    char *v = box_asprintf("%s%s", lead ? "__" : "", src);
    if (v == NULL)
        return NULL;
    for (char *p = v + (lead ? 2 : 0); *p; p++) {
        if (r->xr_name == NULL && !isalnum((unsigned char)*p))
            *p = '_';
        if (r->xr_capital)
            *p = (char)toupper((unsigned char)*p);
    }
    return v;
}

/* -i: "  0x61, 0x62," lines; a named file (not stdin) gets the C
 * array's head and tail around them. */
static bool
xxd_include(xxd_run *r, sh_input *in, const char *file, long left)
{
    char *var = NULL;
    if (file != NULL) {
        if ((var = xxd_varname(r, file)) == NULL)
            return xxd_oom(r);
        if (box_buf_printf(&r->xr_out, "unsigned char %s[] = {\n", var) !=
            BOX_OK)
            goto oom;
    }
    unsigned char buf[4096];
    long total = 0, col = 0;
    const char *fmt = r->xr_upper ? "0X%02X" : "0x%02x";
    for (;;) {
        size_t want =
            left >= 0 && left < (long)sizeof buf ? (size_t)left : sizeof buf;
        ssize_t n = want > 0 ? xxd_fill(r, in, buf, want) : 0;
        if (n < 0)
            goto stop;
        for (ssize_t i = 0; i < n; i++) {
            const char *sep = total == 0 ? "  " : col == 0 ? ",\n  " : ", ";
            if (box_buf_puts(&r->xr_out, sep) != BOX_OK ||
                box_buf_printf(&r->xr_out, fmt, buf[i]) != BOX_OK)
                goto oom;
            total++;
            if (++col == r->xr_cols)
                col = 0;
        }
        if (left >= 0)
            left -= n;
        if (r->xr_out.b_len >= XXD_FLUSH && !xxd_flush(r))
            goto stop;
        if ((size_t)n < want || n == 0)
            break;
    }
    if (total > 0 && box_buf_putc(&r->xr_out, '\n') != BOX_OK)
        goto oom;
    if (var != NULL &&
        box_buf_printf(&r->xr_out, "};\nunsigned int %s_%s = %ld;\n", var,
                       r->xr_capital ? "LEN" : "len", total) != BOX_OK)
        goto oom;
    box_free(var);
    return xxd_flush(r);
oom:
    xxd_oom(r);
stop:
    box_free(var);
    return false;
}

/* ---- -r --------------------------------------------------------------- */

/* Where -r's bytes go: held in xr_out at position rv_at. A file can be
 * written anywhere (xxd seeks); standard output only forward, the gap
 * as zeros. */
typedef struct xxd_rev {
    long rv_at;   // the next byte's place
    long rv_base; // the start of xr_out in the output
    bool rv_seekable;
} xxd_rev;

static int
xxd_rev_put(xxd_run *r, xxd_rev *v, long want, int byte)
{
    box_buf *b = &r->xr_out;
    if (want < v->rv_base ||
        (!v->rv_seekable && want < v->rv_base + (long)b->b_len)) {
        if (!xxd_flush(r))
            return -1;
        (void)sh_cmd_err(r->xr_run.cr_cx, "xxd", 5,
                         "Sorry, cannot seek backwards.");
        return 5;
    }
    size_t at = (size_t)(want - v->rv_base);
    while (b->b_len < at)
        if (box_buf_putc(b, '\0') != BOX_OK)
            return xxd_oom(r), 1;
    if (at == b->b_len) {
        if (box_buf_putc(b, (char)byte) != BOX_OK)
            return xxd_oom(r), 1;
    } else {
        b->b_data[at] = (char)byte;
    }
    v->rv_at = want + 1;
    if (!v->rv_seekable && b->b_len >= XXD_FLUSH) {
        v->rv_base += (long)b->b_len;
        if (!xxd_flush(r))
            return -1;
    }
    return 0;
}

/*
 * xxd's reading of a dump, character by character. The normal form: a
 * line starts in its address (hex digits, up to the first other
 * character), then pairs of adjacent hex digits are bytes; the rest of
 * the line is skipped after xr_cols bytes or three non-hex characters in
 * a row. -p: white space is dropped and every adjacent pair is a byte.
 * Returns the status.
 */
static int
xxd_revert(xxd_run *r, sh_input *in, bool seekable)
{
    bool plain = r->xr_mode == XXD_PLAIN;
    long cols = r->xr_cols;
    int n1 = -1, n2 = 0, n3;
    long p = cols, want = 0;
    bool ign = true, skip = false;
    xxd_rev v = {.rv_seekable = seekable};
    unsigned char buf[4096];
    for (;;) {
        ssize_t n = xxd_fill(r, in, buf, sizeof buf);
        if (n < 0)
            return r->xr_run.cr_status;
        for (ssize_t i = 0; i < n; i++) {
            int c = buf[i];
            if (skip) { // the rest of a line
                if (c != '\n')
                    continue;
                skip = false;
                goto eol;
            }
            if (c == '\r')
                continue;
            if (plain && (c == ' ' || c == '\n' || c == '\t'))
                continue;
            n3 = n2;
            n2 = n1;
            n1 = box_hexval(c);
            if (n1 == -1 && ign)
                continue;
            ign = false;
            if (!plain && p >= cols) {
                if (n1 < 0)
                    p = 0;
                else
                    want = (long)(((unsigned long)want << 4 | (unsigned)n1) &
                                  (unsigned long)(LONG_MAX >> 4));
                continue;
            }
            if (n2 >= 0 && n1 >= 0) {
                // a far address fails as too large to hold, not as an
                // overflow
                long at = want > LONG_MAX / 2 - r->xr_seek ? LONG_MAX / 2
                                                           : r->xr_seek + want;
                int rc = xxd_rev_put(r, &v, at, n2 << 4 | n1);
                if (rc != 0)
                    return rc < 0 ? r->xr_run.cr_status : rc;
                want++;
                n1 = -1;
                if (!plain && ++p >= cols) {
                    skip = c != '\n';
                    if (skip)
                        continue;
                }
            } else if (n1 < 0 && n2 < 0 && n3 < 0) {
                skip = c != '\n';
                if (skip)
                    continue;
            }
        eol:
            if (c == '\n') {
                if (!plain)
                    want = 0;
                p = cols;
                ign = true;
            }
        }
        if ((size_t)n < sizeof buf)
            break;
    }
    return xxd_flush(r) ? r->xr_run.cr_status : r->xr_run.cr_status;
}

/* ---- options ---------------------------------------------------------- */

static int
xxd_usage_exit(sh_ctx *cx)
{
    (void)sh_puts(cx, 2, xxd_usage);
    return 1;
}

/* A number as xxd's strtol(…, 0) takes it: leading junk is 0. */
static long
xxd_num(const char *s)
{
    return strtol(s, NULL, 0);
}

/*
 * An option with a value: "-c8" or "-c 8", and its long spelling
 * ("-cols 8"). *v is the value word; false when it is missing.
 */
static bool
xxd_value(int argc, char **argv, int *i, const char *rest, const char *lng,
          const char **v)
{
    const char *w = argv[*i];
    if (w[2] != '\0' && strncmp(w + 2, rest, strlen(rest)) != 0) {
        *v = w + 2;
        return true;
    }
    (void)lng;
    if (*i + 1 >= argc)
        return false;
    *v = argv[++*i];
    return true;
}

/* Reads xxd's options into r; the index of the first operand, or -1
 * with *st after the usage or a message. */
static int
xxd_options(xxd_run *r, int argc, char **argv, int *st)
{
    sh_ctx *cx = r->xr_run.cr_cx;
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        const char *w = argv[i], *v = NULL;
        bool ok = true;
        if (strcmp(w, "--") == 0) {
            i++;
            break;
        }
        switch (w[1]) {
        case 'a':
            r->xr_autoskip = !r->xr_autoskip;
            break;
        case 'b':
            r->xr_mode = XXD_BITS;
            break;
        case 'e':
            r->xr_little = true;
            break;
        case 'u':
            r->xr_upper = true;
            break;
        case 'p':
            r->xr_mode = XXD_PLAIN;
            break;
        case 'i':
            r->xr_mode = XXD_INCLUDE;
            break;
        case 'C':
            r->xr_capital = true;
            break;
        case 'd':
            r->xr_decimal = true;
            break;
        case 'r':
            r->xr_revert = true;
            break;
        case 'E':
            *st = sh_cmd_err(cx, "xxd", 1, "-E (EBCDIC) is not supported here");
            return -1;
        case 'v':
            (void)sh_puts(cx, 2,
                          "xxd 2022-01-14 by Juergen Weigert et al. "
                          "(strands-shell)\n");
            *st = 0;
            return -1;
        case 'c':
            if ((ok = xxd_value(argc, argv, &i, "ols", "-cols", &v))) {
                r->xr_cols = xxd_num(v);
                r->xr_given_cols = true;
                if (r->xr_cols < 0) {
                    *st = sh_cmd_err(cx, "xxd", 1,
                                     "invalid number of "
                                     "columns (max. 256).");
                    return -1;
                }
            }
            break;
        case 'g':
            if ((ok = xxd_value(argc, argv, &i, "roup", "-group", &v))) {
                r->xr_group = xxd_num(v);
                if (r->xr_group < 0)
                    r->xr_group = 0;
            }
            break;
        case 'l':
            if ((ok = xxd_value(argc, argv, &i, "en", "-len", &v)))
                r->xr_len = xxd_num(v);
            break;
        case 'o':
            if ((ok = xxd_value(argc, argv, &i, "ffset", "-offset", &v)))
                r->xr_offset = xxd_num(v);
            break;
        case 's':
            if ((ok = xxd_value(argc, argv, &i, "eek", "-seek", &v))) {
                if (v[0] == '-') {
                    *st = sh_cmd_err(cx, "xxd", 1,
                                     "-s with a negative "
                                     "offset is not supported "
                                     "here");
                    return -1;
                }
                r->xr_seek = xxd_num(v[0] == '+' ? v + 1 : v);
            }
            break;
        case 'n':
            if ((ok = xxd_value(argc, argv, &i, "ame", "-name", &v)))
                r->xr_name = v;
            break;
        default:
            ok = false;
            break;
        }
        if (!ok) {
            *st = xxd_usage_exit(cx);
            return -1;
        }
    }
    return i;
}

/* The defaults that hang on the mode, then xxd's checks. 0 or status. */
static int
xxd_settle(xxd_run *r)
{
    sh_ctx *cx = r->xr_run.cr_cx;
    static const long defcols[] = {16, 6, 30, 12}; // ORDER XXD_MODE
    // -p -c 0 is one endless line; elsewhere 0 (or no -c) is the default
    if (r->xr_cols < 0 || (r->xr_cols == 0 && r->xr_mode != XXD_PLAIN) ||
        (r->xr_cols == 0 && r->xr_given_cols == false))
        r->xr_cols = defcols[r->xr_mode];
    bool grid = r->xr_mode == XXD_HEX || r->xr_mode == XXD_BITS;
    if (r->xr_cols < 0 || (grid && r->xr_cols > XXD_COLS_MAX))
        return sh_cmd_err(cx, "xxd", 1,
                          "invalid number of columns (max. 256).");
    if (!grid)
        return 0;
    // -g: not given, the mode's; 0 or more than a line, one group a line
    if (r->xr_group < 0)
        r->xr_group = r->xr_mode == XXD_BITS ? 1 : r->xr_little ? 4 : 2;
    if (r->xr_group == 0 || r->xr_group > r->xr_cols)
        r->xr_group = r->xr_cols;
    if (r->xr_little && (r->xr_group & (r->xr_group - 1)) != 0)
        return sh_cmd_err(cx, "xxd", 1,
                          "number of octets per group must "
                          "be a power of 2 with -e.");
    return 0;
}

int
sh_cmd_xxd(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    xxd_run r = {
        .xr_run = {.cr_cx = cx, .cr_cmd = "xxd"}, .xr_len = -1, .xr_group = -1};
    box_buf_init(&r.xr_out, XXD_OUT_MAX);
    sh_input *in = NULL;
    sh_stream *saved = NULL;
    bool redirected = false;
    int st = 0;
    int first = xxd_options(&r, argc, argv, &st);
    if (first < 0)
        goto out;
    int nops = argc - first;
    if (nops > 2) {
        st = xxd_usage_exit(cx);
        goto out;
    }
    if ((st = xxd_settle(&r)) != 0)
        goto out;
    const char *file =
        nops > 0 && strcmp(argv[first], "-") != 0 ? argv[first] : NULL;
    in = sh_input_open(cx, "xxd", file, &st);
    if (in == NULL) {
        st = st == BOX_STATUS_FAULT ? st : 2;
        goto out;
    }
    if (nops == 2 && strcmp(argv[first + 1], "-") != 0) {
        // The output file, opened (and decided) as `> outfile` would be.
        if ((st = sh_cmd_output_begin(cx, "xxd", argv[first + 1], &saved)) !=
            0) {
            st = st == BOX_STATUS_FAULT ? st : 3;
            goto out;
        }
        redirected = true;
    }
    if (r.xr_revert) {
        st = xxd_revert(&r, in, redirected);
        goto out;
    }
    if (r.xr_seek > 0) {
        unsigned char junk[4096];
        long left = r.xr_seek;
        while (left > 0) {
            size_t want = left < (long)sizeof junk ? (size_t)left : sizeof junk;
            ssize_t n = xxd_fill(&r, in, junk, want);
            if (n < 0) {
                st = r.xr_run.cr_status;
                goto out;
            }
            left -= n;
            if ((size_t)n < want)
                break;
        }
        // A file seeks past its end quietly; a pipe cannot.
        if (left > 0 && !sh_input_is_file(in)) {
            st = sh_cmd_err(cx, "xxd", 4, "Sorry, cannot seek.");
            goto out;
        }
    }
    switch (r.xr_mode) {
    case XXD_PLAIN:
        (void)xxd_plain(&r, in, r.xr_len);
        break;
    case XXD_INCLUDE:
        (void)xxd_include(&r, in, file, r.xr_len);
        break;
    default:
        (void)xxd_dump(&r, in, r.xr_len);
        break;
    }
    st = r.xr_run.cr_status;
out:
    sh_input_close(in);
    if (redirected)
        sh_cmd_output_end(cx, saved);
    box_buf_reset(&r.xr_out);
    return st;
}
