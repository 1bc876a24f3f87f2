/* SPDX-License-Identifier: Apache-2.0 */
/* cmp [-b] [-i SKIP[:SKIP2]] [-l] [-n LIMIT] [-s] FILE1 [FILE2 [SKIP1
 * [SKIP2]]]: GNU diffutils 3.8, two inputs compared byte by byte as they
 * stream in (nothing held whole). Status 0 same, 1 different, 2 trouble. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define CMP_CHUNK (64u * 1024u)

enum { CMP_OPT_VERSION = 'v' };

static const sh_gopt cmp_opts[] = {
    {'b', "print-bytes", SH_GARG_NONE},
    {'i', "ignore-initial", SH_GARG_REQ},
    {'l', "verbose", SH_GARG_NONE},
    {'n', "bytes", SH_GARG_REQ},
    {'s', "quiet", SH_GARG_NONE},
    {'s', "silent", SH_GARG_NONE},
    {CMP_OPT_VERSION, NULL, SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec cmp_spec = {
    .gs_cmd = "cmp",
    .gs_opts = cmp_opts,
    .gs_flags = SH_GOPT_F_NOTRY, // GNU's Try line carries "cmp: "
    .gs_fail = 2,
    .gs_help =
        "Usage: cmp [OPTION]... FILE1 [FILE2 [SKIP1 [SKIP2]]]\n"
        "Compare two files byte by byte.\n"
        "\n"
        "The optional SKIP1 and SKIP2 specify the number of bytes to skip\n"
        "at the beginning of each file (zero by default).\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short "
        "options too.\n"
        "  -b, --print-bytes          print differing bytes\n"
        "  -i, --ignore-initial=SKIP         skip first SKIP bytes of both "
        "inputs\n"
        "  -i, --ignore-initial=SKIP1:SKIP2  skip first SKIP1 bytes of "
        "FILE1 and\n"
        "                                      first SKIP2 bytes of FILE2\n"
        "  -l, --verbose              output byte numbers and differing "
        "byte values\n"
        "  -n, --bytes=LIMIT          compare at most LIMIT bytes\n"
        "  -s, --quiet, --silent      suppress all normal output\n"
        "      --help                 display this help and exit\n"
        "  -v, --version              output version information and "
        "exit\n"
        "\n"
        "SKIP values may be followed by the following multiplicative "
        "suffixes:\n"
        "kB 1000, K 1024, MB 1,000,000, M 1,048,576,\n"
        "GB 1,000,000,000, G 1,073,741,824, and so on for T, P, E, Z, Y.\n"
        "\n"
        "If a FILE is '-' or missing, read standard input.\n"
        "Exit status is 0 if inputs are the same, 1 if different, 2 if "
        "trouble.\n"
        "\n"
        "Report bugs to: bug-diffutils@gnu.org\n"
        "GNU diffutils home page: "
        "<https://www.gnu.org/software/diffutils/>\n"
        "General help using GNU software: "
        "<https://www.gnu.org/gethelp/>\n",
};

/* One input: its bytes as they arrive. */
typedef struct cmp_src {
    const char *cs_name;
    sh_input *cs_in;
    char *cs_buf;
    size_t cs_len, cs_pos;
    bool cs_eof;
    uintmax_t cs_skip;
} cmp_src;

typedef struct cmp_run {
    sh_cmd_run cp_run;
    cmp_src cp_src[2];
    bool cp_bytes, cp_list, cp_quiet;
    uintmax_t cp_limit; // UINTMAX_MAX: no -n
    int cp_width;       // -l: columns of the byte numbers
    box_buf cp_out;
} cmp_run;

/* SKIP and LIMIT as GNU reads them: digits, then an optional k K M G
 * … Y (1024^n), followed by B for powers of 1000 or iB for 1024. */
static bool
cmp_number(const char *s, uintmax_t *out)
{
    static const char pow[] = "KMGTPEZY";
    uintmax_t v = 0;
    const char *p = s;
    if (*p < '0' || *p > '9')
        return false;
    for (; *p >= '0' && *p <= '9'; p++)
        v = v > (UINTMAX_MAX - 9) / 10 ? UINTMAX_MAX : v * 10 + (uintmax_t)(*p - '0');
    if (*p == '\0') {
        *out = v;
        return true;
    }
    char c = *p == 'k' ? 'K' : *p;
    const char *at = c != '\0' ? strchr(pow, c) : NULL;
    if (at == NULL)
        return false;
    unsigned base = 1024;
    if (strcmp(p + 1, "B") == 0)
        base = 1000;
    else if (p[1] != '\0' && strcmp(p + 1, "iB") != 0)
        return false;
    for (long i = 0; i <= at - pow; i++)
        v = v > UINTMAX_MAX / base ? UINTMAX_MAX : v * base;
    *out = v;
    return true;
}

/* GNU's Try line after "cmp: MSG" (msg's %s: arg quoted); 2. */
static int
cmp_usage(sh_ctx *cx, const char *msg, const char *arg)
{
    if (msg != NULL) {
        char *q = arg != NULL ? sh_gquoteaf(arg) : NULL;
        sh_cmd_err(cx, "cmp", 2, msg, q != NULL ? q : "");
        box_free(q);
    }
    return sh_cmd_err(cx, "cmp", 2, "Try 'cmp --help' for more information.");
}

/* -i SKIP or SKIP1:SKIP2: NULL, or the part that is no number (GNU
 * names SKIP2 alone when only it is bad). */
static const char *
cmp_skips(cmp_run *c, const char *arg)
{
    const char *colon = strchr(arg, ':');
    if (colon == NULL)
        return cmp_number(arg, &c->cp_src[0].cs_skip) &&
                       cmp_number(arg, &c->cp_src[1].cs_skip)
                   ? NULL
                   : arg;
    char *first = box_asprintf("%.*s", (int)(colon - arg), arg);
    bool ok = first != NULL && cmp_number(first, &c->cp_src[0].cs_skip);
    box_free(first);
    if (!ok)
        return arg;
    return cmp_number(colon + 1, &c->cp_src[1].cs_skip) ? NULL : colon + 1;
}

/* More bytes of s when its buffer is spent: false to stop (the call is
 * over, or a read failed: said, status 2). */
static bool
cmp_fill(cmp_run *c, cmp_src *s)
{
    if (s->cs_pos < s->cs_len || s->cs_eof)
        return true;
    if (!sh_cmd_live(&c->cp_run))
        return false;
    ssize_t n = sh_input_read(s->cs_in, s->cs_buf, CMP_CHUNK);
    if (n < 0) {
        if (sh_cmd_live(&c->cp_run))
            c->cp_run.cr_status = 2; // reported by the input
        return false;
    }
    s->cs_pos = 0;
    s->cs_len = (size_t)n;
    s->cs_eof = n == 0;
    return true;
}

/* Reads and drops the first cs_skip bytes. */
static bool
cmp_skip(cmp_run *c, cmp_src *s)
{
    while (s->cs_skip > 0) {
        if (!cmp_fill(c, s))
            return false;
        if (s->cs_eof)
            return true;
        size_t n = s->cs_len - s->cs_pos;
        if ((uintmax_t)n > s->cs_skip)
            n = (size_t)s->cs_skip;
        s->cs_pos += n;
        s->cs_skip -= n;
    }
    return true;
}

/* GNU's sprintc: a byte as cat -v shows it. */
static void
cmp_char(unsigned char ch, char *out)
{
    char *p = out;
    if (!isprint(ch)) {
        if (ch >= 128) {
            *p++ = 'M';
            *p++ = '-';
            ch -= 128;
        }
        if (ch < 32) {
            *p++ = '^';
            ch += 64;
        } else if (ch == 127) {
            *p++ = '^';
            ch = '?';
        }
    }
    *p++ = (char)ch;
    *p = '\0';
}

static bool
cmp_flush(cmp_run *c)
{
    bool ok = sh_cmd_emit(&c->cp_run, c->cp_out.b_data, c->cp_out.b_len);
    box_buf_truncate(&c->cp_out, 0);
    return ok;
}

/* -l: one differing byte, as "OFFSET OCT1 OCT2" (-b: with the bytes). */
static bool
cmp_list_line(cmp_run *c, uintmax_t at, unsigned char a, unsigned char b)
{
    box_err e;
    if (c->cp_bytes) {
        char ca[8], cb[8];
        cmp_char(a, ca);
        cmp_char(b, cb);
        e = box_buf_printf(&c->cp_out, "%*ju %3o %-4s %3o %s\n", c->cp_width,
                           at, a, ca, b, cb);
    } else {
        e = box_buf_printf(&c->cp_out, "%*ju %3o %3o\n", c->cp_width, at, a,
                           b);
    }
    if (e != BOX_OK) {
        c->cp_run.cr_status = sh_cmd_err(c->cp_run.cr_cx, "cmp", 2,
                                         "memory exhausted");
        return false;
    }
    return c->cp_out.b_len < CMP_CHUNK || cmp_flush(c);
}

/* The first difference, GNU's default report. */
static void
cmp_first(cmp_run *c, uintmax_t at, uintmax_t line, unsigned char a,
          unsigned char b)
{
    box_err e = box_buf_printf(&c->cp_out, "%s %s differ: byte %ju, line %ju",
                               c->cp_src[0].cs_name, c->cp_src[1].cs_name,
                               at, line);
    if (e == BOX_OK && c->cp_bytes) {
        char ca[8], cb[8];
        cmp_char(a, ca);
        cmp_char(b, cb);
        e = box_buf_printf(&c->cp_out, " is %3o %s %3o %s", a, ca, b, cb);
    }
    if (e == BOX_OK)
        e = box_buf_putc(&c->cp_out, '\n');
    if (e != BOX_OK)
        c->cp_run.cr_status = sh_cmd_err(c->cp_run.cr_cx, "cmp", 2,
                                         "memory exhausted");
}

/* "EOF on NAME …": which file ended, after how much. */
static void
cmp_eof(cmp_run *c, const cmp_src *s, uintmax_t n, uintmax_t lines,
        bool at_eol)
{
    sh_ctx *cx = c->cp_run.cr_cx;
    if (n == 0)
        sh_cmd_err(cx, "cmp", 1, "EOF on %s which is empty", s->cs_name);
    else if (c->cp_list)
        sh_cmd_err(cx, "cmp", 1, "EOF on %s after byte %ju", s->cs_name, n);
    else if (at_eol)
        sh_cmd_err(cx, "cmp", 1, "EOF on %s after byte %ju, line %ju",
                   s->cs_name, n, lines);
    else
        sh_cmd_err(cx, "cmp", 1, "EOF on %s after byte %ju, in line %ju",
                   s->cs_name, n, lines + 1);
}

/* The comparison proper: 0, 1, or 2 / the stop status. */
static int
cmp_compare(cmp_run *c)
{
    cmp_src *a = &c->cp_src[0], *b = &c->cp_src[1];
    if (!cmp_skip(c, a) || !cmp_skip(c, b))
        return c->cp_run.cr_status ? c->cp_run.cr_status : 2;
    uintmax_t done = 0, lines = 0;
    bool differ = false, eol = false;
    while (done < c->cp_limit) {
        if (!cmp_fill(c, a) || !cmp_fill(c, b))
            return c->cp_run.cr_status ? c->cp_run.cr_status : 2;
        if (a->cs_eof || b->cs_eof)
            break;
        size_t n = a->cs_len - a->cs_pos;
        if (b->cs_len - b->cs_pos < n)
            n = b->cs_len - b->cs_pos;
        if ((uintmax_t)n > c->cp_limit - done)
            n = (size_t)(c->cp_limit - done);
        const unsigned char *pa = (const unsigned char *)a->cs_buf + a->cs_pos;
        const unsigned char *pb = (const unsigned char *)b->cs_buf + b->cs_pos;
        for (size_t i = 0; i < n; i++) {
            if (pa[i] != pb[i]) {
                differ = true;
                if (c->cp_quiet)
                    return 1;
                if (!c->cp_list) {
                    cmp_first(c, done + i + 1, lines + 1, pa[i], pb[i]);
                    return c->cp_run.cr_status ? 2 : 1;
                }
                if (!cmp_list_line(c, done + i + 1, pa[i], pb[i]))
                    return c->cp_run.cr_status ? c->cp_run.cr_status : 2;
            }
            lines += pa[i] == '\n';
        }
        if (n > 0)
            eol = pa[n - 1] == '\n';
        a->cs_pos += n;
        b->cs_pos += n;
        done += n;
    }
    if (done < c->cp_limit && a->cs_eof != b->cs_eof) {
        if (!cmp_flush(c))
            return c->cp_run.cr_status;
        if (!c->cp_quiet)
            cmp_eof(c, a->cs_eof ? a : b, done, lines, eol);
        return 1;
    }
    return differ ? 1 : 0;
}

/* -l's column width: the digits of the most bytes that can be
 * compared (the shorter regular file after its skip, or -n). */
static void
cmp_width(cmp_run *c)
{
    sh_ctx *cx = c->cp_run.cr_cx;
    intmax_t most = c->cp_limit <= INTMAX_MAX ? (intmax_t)c->cp_limit
                                               : INTMAX_MAX;
    for (int k = 0; k < 2; k++) {
        const cmp_src *s = &c->cp_src[k];
        if (strcmp(s->cs_name, "-") == 0)
            continue;
        sh_kernel_stat st;
        sh_kernel_result r = {0};
        int rc = sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd,
                                     s->cs_name, &st, &r);
        sh_kernel_result_clear(&r);
        if (rc != 0 || !S_ISREG(st.ks_mode))
            continue;
        intmax_t left = (intmax_t)st.ks_size -
                        (s->cs_skip > (uintmax_t)INTMAX_MAX
                             ? INTMAX_MAX
                             : (intmax_t)s->cs_skip);
        if (left < most)
            most = left;
    }
    c->cp_width = 1;
    while ((most /= 10) != 0)
        c->cp_width++;
}

/* Whether both operands name the same file at the same offset (GNU
 * answers "same" without reading: `cmp d d` on a directory too). */
static bool
cmp_same_file(cmp_run *c)
{
    sh_ctx *cx = c->cp_run.cr_cx;
    const cmp_src *a = &c->cp_src[0], *b = &c->cp_src[1];
    if (a->cs_skip != b->cs_skip)
        return false;
    if (strcmp(a->cs_name, "-") == 0 || strcmp(b->cs_name, "-") == 0)
        return strcmp(a->cs_name, b->cs_name) == 0;
    sh_kernel_stat s0, s1;
    sh_kernel_result r = {0};
    int r0 = sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, a->cs_name,
                                 &s0, &r);
    sh_kernel_result_clear(&r);
    int r1 = sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, b->cs_name,
                                 &s1, &r);
    sh_kernel_result_clear(&r);
    return r0 == 0 && r1 == 0 && s0.ks_dev == s1.ks_dev &&
           s0.ks_ino == s1.ks_ino;
}

/* Opens FILE1 then FILE2 (a second "-" shares stdin): 0 or the status. */
static int
cmp_open(cmp_run *c)
{
    sh_ctx *cx = c->cp_run.cr_cx;
    for (int k = 0; k < 2; k++) {
        cmp_src *s = &c->cp_src[k];
        int st = 0;
        char *q = sh_gquotef(s->cs_name);
        s->cs_in = sh_input_open_as(cx, "cmp", s->cs_name,
                                    q != NULL ? q : s->cs_name, &st);
        box_free(q);
        if (s->cs_in == NULL)
            return st == 1 ? 2 : st;
        s->cs_buf = box_alloc(CMP_CHUNK);
        if (s->cs_buf == NULL)
            return sh_cmd_err(cx, "cmp", 2, "memory exhausted");
    }
    return 0;
}

/* The operands after the options: FILE1 [FILE2 [SKIP1 [SKIP2]]]. */
static int
cmp_operands(cmp_run *c, sh_gopt_iter *it)
{
    sh_ctx *cx = c->cp_run.cr_cx;
    if (it->gi_nops == 0)
        return cmp_usage(cx, "missing operand after %s", "cmp");
    c->cp_src[0].cs_name = it->gi_ops[0];
    c->cp_src[1].cs_name = it->gi_nops > 1 ? it->gi_ops[1] : "-";
    for (int k = 2; k < it->gi_nops && k < 4; k++)
        if (!cmp_number(it->gi_ops[k], &c->cp_src[k - 2].cs_skip))
            return cmp_usage(cx, "invalid --ignore-initial value %s",
                             it->gi_ops[k]);
    if (it->gi_nops > 4)
        return cmp_usage(cx, "extra operand %s", it->gi_ops[4]);
    return 0;
}

int
sh_cmd_cmp(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    cmp_run c = {.cp_run = {.cr_cx = cx, .cr_cmd = "cmp"},
                 .cp_limit = UINTMAX_MAX};
    box_buf_init(&c.cp_out, SIZE_MAX);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &cmp_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'b') {
            c.cp_bytes = true;
        } else if (id == 'l') {
            c.cp_list = true;
        } else if (id == 's') {
            c.cp_quiet = true;
        } else if (id == 'i') {
            const char *bad = cmp_skips(&c, arg);
            if (bad != NULL) {
                st = cmp_usage(cx, "invalid --ignore-initial value %s", bad);
                goto out;
            }
        } else if (id == 'n') {
            if (!cmp_number(arg, &c.cp_limit)) {
                st = cmp_usage(cx, "invalid --bytes value %s", arg);
                goto out;
            }
        } else if (id == CMP_OPT_VERSION) {
            st = sh_cmd_emit(&c.cp_run, "cmp (strands-shell)\n", 20) ? 0 : 1;
            goto out;
        }
    }
    if (id == SH_GOPT_EXIT) {
        if (st == 2)
            cmp_usage(cx, NULL, NULL);
        goto out;
    }
    if (c.cp_quiet && c.cp_list) {
        st = cmp_usage(cx, "options -l and -s are incompatible", NULL);
        goto out;
    }
    if ((st = cmp_operands(&c, &it)) != 0)
        goto out;
    if (cmp_same_file(&c))
        goto out; // st 0
    if ((st = cmp_open(&c)) != 0)
        goto out;
    if (c.cp_list)
        cmp_width(&c);
    st = cmp_compare(&c);
    if (c.cp_out.b_len > 0 && !cmp_flush(&c))
        st = c.cp_run.cr_status;
out:
    for (int k = 0; k < 2; k++) {
        sh_input_close(c.cp_src[k].cs_in);
        box_free(c.cp_src[k].cs_buf);
    }
    box_buf_reset(&c.cp_out);
    sh_gopt_free(&it);
    return st;
}
