/* SPDX-License-Identifier: Apache-2.0 */
/* nl [OPTION]... [FILE]...: GNU coreutils 9.1, lines numbered by section
 * (header, body, footer) styles; the operands read as one stream. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <regex.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define NL_CHUNK (64u * 1024u)   // output gathered per write
#define NL_LINE_MAX (256u << 20) // one line held whole: 256 MiB
#define NL_OUT_MAX (NL_LINE_MAX + NL_CHUNK)

static const sh_gopt nl_opts[] = {
    {'b', "body-numbering", SH_GARG_REQ},
    {'d', "section-delimiter", SH_GARG_REQ},
    {'f', "footer-numbering", SH_GARG_REQ},
    {'h', "header-numbering", SH_GARG_REQ},
    {'i', "line-increment", SH_GARG_REQ},
    {'l', "join-blank-lines", SH_GARG_REQ},
    {'n', "number-format", SH_GARG_REQ},
    {'p', "no-renumber", SH_GARG_NONE},
    {'s', "number-separator", SH_GARG_REQ},
    {'v', "starting-line-number", SH_GARG_REQ},
    {'w', "number-width", SH_GARG_REQ},
    {0},
};

static const sh_gopt_spec nl_spec = {
    .gs_cmd = "nl",
    .gs_opts = nl_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: nl [OPTION]... [FILE]...\n"
        "Write each FILE to standard output, with line numbers added.\n"
        "\n"
        "With no FILE, or when FILE is -, read standard input.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short "
        "options too.\n"
        "  -b, --body-numbering=STYLE      use STYLE for numbering body "
        "lines\n"
        "  -d, --section-delimiter=CC      use CC for logical page "
        "delimiters\n"
        "  -f, --footer-numbering=STYLE    use STYLE for numbering footer "
        "lines\n"
        "  -h, --header-numbering=STYLE    use STYLE for numbering header "
        "lines\n"
        "  -i, --line-increment=NUMBER     line number increment at each "
        "line\n"
        "  -l, --join-blank-lines=NUMBER   group of NUMBER empty lines "
        "counted as one\n"
        "  -n, --number-format=FORMAT      insert line numbers according to "
        "FORMAT\n"
        "  -p, --no-renumber               do not reset line numbers for "
        "each section\n"
        "  -s, --number-separator=STRING   add STRING after (possible) line "
        "number\n"
        "  -v, --starting-line-number=NUMBER  first line number for each "
        "section\n"
        "  -w, --number-width=NUMBER       use NUMBER columns for line "
        "numbers\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "Default options are: -bt -d'\\:' -fn -hn -i1 -l1 -n'rn' -s<TAB> "
        "-v1 -w6\n"
        "\n"
        "CC are two delimiter characters used to construct logical page "
        "delimiters;\n"
        "a missing second character implies ':'.  As a GNU extension one "
        "can specify\n"
        "more than two characters, and also specifying the empty string "
        "(-d '')\n"
        "disables section matching.\n"
        "\n"
        "STYLE is one of:\n"
        "\n"
        "  a      number all lines\n"
        "  t      number only nonempty lines\n"
        "  n      number no lines\n"
        "  pBRE   number only lines that contain a match for the basic "
        "regular\n"
        "         expression, BRE\n"
        "\n"
        "FORMAT is one of:\n"
        "\n"
        "  ln     left justified, no leading zeros\n"
        "  rn     right justified, no leading zeros\n"
        "  rz     right justified, leading zeros\n",
};

// ORDER NL_SECTION: -h -b -f, and the delimiter repeated 3, 2, 1 times.
enum { NL_HEADER, NL_BODY, NL_FOOTER, NL_NSECTIONS };
static const char *const nl_section_names[] = {"header", "body", "footer"};

typedef struct nl_style {
    char ns_kind;   // 'a', 't', 'n' or 'p'
    bool ns_re_set; // ns_re is compiled (freed at the end)
    regex_t ns_re;  // 'p': lines it matches are numbered
} nl_style;

typedef struct nl_run {
    sh_cmd_run nr_run;
    nl_style nr_style[NL_NSECTIONS];
    const char *nr_delim; // "" : no sections
    size_t nr_dlen;
    char nr_delim2[3]; // a one-character -d with its ':'
    intmax_t nr_start, nr_incr, nr_join;
    int nr_width;
    const char *nr_fmt; // printf format of the number: %*jd %-*jd %0*jd
    const char *nr_sep;
    bool nr_renumber;
    // The walk over the lines, across operands:
    int nr_section;
    intmax_t nr_no;
    bool nr_overflow; // the next number does not fit
    intmax_t nr_blanks;
    box_buf nr_line, nr_out;
} nl_run;

/* ---- options ---- */

/* A STYLE for section s; false after GNU's message (the Try line waits
 * for the end of the options, as GNU gathers these errors). */
static bool
nl_style_set(nl_run *r, int s, const char *arg)
{
    nl_style *st = &r->nr_style[s];
    char kind = arg[0];
    if (kind != 'a' && kind != 't' && kind != 'n' && kind != 'p') {
        char *q = sh_gquote(arg);
        sh_cmd_err(r->nr_run.cr_cx, "nl", 1, "invalid %s numbering style: %s",
                   nl_section_names[s], q ? q : arg);
        box_free(q);
        return false;
    }
    if (st->ns_re_set)
        regfree(&st->ns_re);
    st->ns_re_set = false;
    st->ns_kind = kind;
    if (kind != 'p')
        return true;
    int rc = regcomp(&st->ns_re, arg + 1, REG_NOSUB);
    if (rc != 0) {
        char msg[256];
        regerror(rc, &st->ns_re, msg, sizeof msg);
        sh_cmd_err(r->nr_run.cr_cx, "nl", 1, "%s", msg);
        return false;
    }
    st->ns_re_set = true;
    return true;
}

/* NUMBER of -i -l -v -w as GNU's xdectoimax reads it: decimal, spaces
 * and a sign may lead. Out of [lo, hi] is "Numerical result out of
 * range", or "Value too large …" past an int; GNU exits at once. */
static bool
nl_number(nl_run *r, const char *arg, intmax_t lo, intmax_t hi,
          const char *what, intmax_t *out)
{
    char *end;
    errno = 0;
    intmax_t v = strtoimax(arg, &end, 10);
    const char *why = NULL;
    if (end == arg || *end != '\0')
        why = "";
    else if (errno == ERANGE ||
             ((v < lo || v > hi) && (v < INT_MIN || v > INT_MAX)))
        why = ": Value too large for defined data type";
    else if (v < lo || v > hi)
        why = ": Numerical result out of range";
    if (why == NULL) {
        *out = v;
        return true;
    }
    char *q = sh_gquote(arg);
    sh_cmd_err(r->nr_run.cr_cx, "nl", 1, "invalid %s: %s%s", what, q ? q : arg,
               why);
    box_free(q);
    return false;
}

/* ---- output ---- */

static bool
nl_nomem(nl_run *r)
{
    r->nr_run.cr_status = sh_cmd_err(r->nr_run.cr_cx, "nl", 1, "out of memory");
    return false;
}

static bool
nl_flush(nl_run *r)
{
    bool ok = sh_cmd_emit(&r->nr_run, r->nr_out.b_data, r->nr_out.b_len);
    box_buf_truncate(&r->nr_out, 0);
    return ok;
}

/* Whether the line is numbered in the current section's style (-l N: of
 * a run of empty lines only each Nth, under 'a'). */
static bool
nl_wanted(nl_run *r, const char *p, size_t n)
{
    const nl_style *st = &r->nr_style[r->nr_section];
    switch (st->ns_kind) {
    case 'a':
        if (n > 0) {
            r->nr_blanks = 0;
            return true;
        }
        if (++r->nr_blanks < r->nr_join)
            return false;
        r->nr_blanks = 0;
        return true;
    case 't':
        return n > 0;
    case 'p':
        return regexec(&st->ns_re, p, 0, NULL, 0) == 0;
    default:
        return false;
    }
}

/* One body line: its number and -s, or as many spaces; then the line. */
static bool
nl_line(nl_run *r, const char *p, size_t n)
{
    box_buf *o = &r->nr_out;
    box_err e = BOX_OK;
    if (nl_wanted(r, p, n)) {
        if (r->nr_overflow) {
            if (!nl_flush(r)) // the lines before it go out
                return false;
            r->nr_run.cr_status =
                sh_cmd_err(r->nr_run.cr_cx, "nl", 1, "line number overflow");
            return false;
        }
        e = box_buf_printf(o, r->nr_fmt, r->nr_width, r->nr_no);
        if (e == BOX_OK)
            e = box_buf_puts(o, r->nr_sep);
        r->nr_overflow =
            __builtin_add_overflow(r->nr_no, r->nr_incr, &r->nr_no);
    } else {
        size_t pad = (size_t)r->nr_width + strlen(r->nr_sep);
        for (size_t i = 0; i < pad && e == BOX_OK; i++)
            e = box_buf_putc(o, ' ');
    }
    if (e == BOX_OK)
        e = box_buf_append(o, p, n);
    if (e == BOX_OK)
        e = box_buf_putc(o, '\n');
    if (e != BOX_OK)
        return nl_nomem(r);
    return o->b_len < NL_CHUNK || nl_flush(r);
}

/* A line that is the delimiter 3, 2 or 1 times starts a section: it is
 * printed empty, and the numbers start again unless -p. */
static bool
nl_section(nl_run *r, const char *p, size_t n)
{
    size_t d = r->nr_dlen;
    if (d == 0 || n % d != 0 || n / d < 1 || n / d > 3)
        return false;
    for (size_t i = 0; i < n; i += d)
        if (memcmp(p + i, r->nr_delim, d) != 0)
            return false;
    r->nr_section = (int)(3 - n / d); // ORDER NL_SECTION
    if (r->nr_renumber) {
        r->nr_no = r->nr_start;
        r->nr_overflow = false;
    }
    return true;
}

static bool
nl_body(sh_cmd_run *cr, sh_input *in, const char *name)
{
    nl_run *r = (nl_run *)cr;
    (void)name;
    for (;;) {
        int rc = sh_check_stop(cr->cr_cx)
                     ? -1
                     : sh_input_record(in, '\n', &r->nr_line);
        if (rc == 0)
            break;
        if (rc == -2) {
            cr->cr_status = sh_cmd_err(cr->cr_cx, "nl", 1, "line too long");
            return false;
        }
        if (rc < 0) {
            if (!sh_cmd_live(cr))
                return false;
            cr->cr_status = 1; // reported by the input
            break;
        }
        const char *p = r->nr_line.b_len > 0 ? r->nr_line.b_data : "";
        size_t n = r->nr_line.b_len;
        bool ok = nl_section(r, p, n)
                      ? box_buf_putc(&r->nr_out, '\n') == BOX_OK || nl_nomem(r)
                      : nl_line(r, p, n);
        if (!ok)
            return false;
    }
    return nl_flush(r);
}

/* ---- the command ---- */

/* Reads the options into r; 0, or the status after the messages. */
static int
nl_options(nl_run *r, sh_gopt_iter *it)
{
    static const char *const fmts[][2] = {
        {"ln", "%-*jd"}, {"rn", "%*jd"}, {"rz", "%0*jd"}};
    bool ok = true;
    const char *arg;
    int id, st = 0;
    intmax_t w;
    while ((id = sh_gopt_next(it, &arg, &st)) >= 0) {
        switch (id) {
        case 'h':
        case 'b':
        case 'f':
            ok &= nl_style_set(r,
                               id == 'h'   ? NL_HEADER
                               : id == 'b' ? NL_BODY
                                           : NL_FOOTER,
                               arg);
            break;
        case 'd':
            r->nr_delim = arg;
            r->nr_dlen = strlen(arg);
            if (r->nr_dlen == 1) {
                r->nr_delim2[0] = arg[0];
                r->nr_delim2[1] = ':';
                r->nr_delim = r->nr_delim2;
                r->nr_dlen = 2;
            }
            break;
        case 'n': {
            size_t i = 0;
            while (i < 3 && strcmp(arg, fmts[i][0]) != 0)
                i++;
            if (i < 3) {
                r->nr_fmt = fmts[i][1];
                break;
            }
            char *q = sh_gquote(arg);
            sh_cmd_err(r->nr_run.cr_cx, "nl", 1,
                       "invalid line numbering format: %s", q ? q : arg);
            box_free(q);
            ok = false;
            break;
        }
        case 'p':
            r->nr_renumber = false;
            break;
        case 's':
            r->nr_sep = arg;
            break;
        case 'i':
        case 'l':
        case 'v':
        case 'w':
            if (id == 'i' && !nl_number(r, arg, INTMAX_MIN, INTMAX_MAX,
                                        "line number increment", &r->nr_incr))
                return 1;
            if (id == 'l' &&
                !nl_number(r, arg, 1, INTMAX_MAX, "line number of blank lines",
                           &r->nr_join))
                return 1;
            if (id == 'v' && !nl_number(r, arg, INTMAX_MIN, INTMAX_MAX,
                                        "starting line number", &r->nr_start))
                return 1;
            if (id == 'w' &&
                !nl_number(r, arg, 1, INT_MAX, "line number field width", &w))
                return 1;
            if (id == 'w')
                r->nr_width = (int)w;
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        return st == 0 ? -1 : st;
    return ok ? 0 : sh_gopt_try(it);
}

int
sh_cmd_nl(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    nl_run r = {
        .nr_run = {.cr_cx = cx, .cr_cmd = "nl"},
        .nr_style = {{.ns_kind = 'n'}, {.ns_kind = 't'}, {.ns_kind = 'n'}},
        .nr_delim = "\\:",
        .nr_dlen = 2,
        .nr_start = 1,
        .nr_incr = 1,
        .nr_join = 1,
        .nr_width = 6,
        .nr_fmt = "%*jd",
        .nr_sep = "\t",
        .nr_renumber = true,
        .nr_section = NL_BODY};
    box_buf_init(&r.nr_line, NL_LINE_MAX);
    box_buf_init(&r.nr_out, NL_OUT_MAX);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &nl_spec, argc, argv);
    int st = nl_options(&r, &it);
    if (st != 0) {
        st = st < 0 ? 0 : st; // -1: --help or --version, printed
        goto out;
    }
    r.nr_no = r.nr_start;
    sh_opts ops = {.o_ind = 0};
    st = sh_cmd_operands(&r.nr_run, it.gi_nops, it.gi_ops, &ops, nl_body);
out:
    for (int s = 0; s < NL_NSECTIONS; s++)
        if (r.nr_style[s].ns_re_set)
            regfree(&r.nr_style[s].ns_re);
    box_buf_reset(&r.nr_line);
    box_buf_reset(&r.nr_out);
    sh_gopt_free(&it);
    return st;
}
