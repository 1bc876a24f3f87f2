/* SPDX-License-Identifier: Apache-2.0 */
/* fmt [-WIDTH] [-cstu] [-p PREFIX] [-w WIDTH] [-g GOAL] [FILE]...: GNU
 * coreutils 9.1. Each paragraph's line breaks are chosen as GNU's are: the
 * least total cost over all breaks (short lines against the goal width,
 * ragged neighbours, sentence ends, widows and orphans). */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define FMT_CHUNK (64u * 1024u)
#define FMT_INPUT_MAX (256u << 20) // one file is held whole
#define FMT_WIDTH_MAX 2500         // GNU's MAXCHARS / 2
#define FMT_TAB 8
#define FMT_LEEWAY 7

/* GNU's costs: squares, so a line twice as far off costs four times. */
typedef long long fmt_cost;
#define FMT_EQUIV(n) ((fmt_cost)(n) * (fmt_cost)(n))
#define FMT_SHORT(n) FMT_EQUIV((n)*10)
#define FMT_RAGGED(n) (FMT_SHORT(n) / 2)
#define FMT_LINE FMT_EQUIV(70)
#define FMT_WIDOW(n) (FMT_EQUIV(200) / ((n) + 2))
#define FMT_ORPHAN(n) (FMT_EQUIV(150) / ((n) + 2))
#define FMT_SENTENCE FMT_EQUIV(50)
#define FMT_NOBREAK FMT_EQUIV(600)
#define FMT_PAREN FMT_EQUIV(40)
#define FMT_PUNCT FMT_EQUIV(40)
#define FMT_MAXCOST INT64_MAX

static const sh_gopt fmt_opts[] = {
    {'c', "crown-margin", SH_GARG_NONE},
    {'p', "prefix", SH_GARG_REQ},
    {'s', "split-only", SH_GARG_NONE},
    {'t', "tagged-paragraph", SH_GARG_NONE},
    {'u', "uniform-spacing", SH_GARG_NONE},
    {'w', "width", SH_GARG_REQ},
    {'g', "goal", SH_GARG_REQ},
    // The obsolete -WIDTH: a digit takes the rest of its word.
    SH_GOPT_DIGIT_ARG_ROWS,
    {0},
};

static const sh_gopt_spec fmt_spec = {
    .gs_cmd = "fmt",
    .gs_opts = fmt_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: fmt [-WIDTH] [OPTION]... [FILE]...\n"
        "Reformat each paragraph in the FILE(s), writing to standard "
        "output.\n"
        "The option -WIDTH is an abbreviated form of --width=DIGITS.\n"
        "\n"
        "With no FILE, or when FILE is -, read standard input.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short "
        "options too.\n"
        "  -c, --crown-margin        preserve indentation of first two "
        "lines\n"
        "  -p, --prefix=STRING       reformat only lines beginning with "
        "STRING,\n"
        "                              reattaching the prefix to "
        "reformatted lines\n"
        "  -s, --split-only          split long lines, but do not refill\n"
        "  -t, --tagged-paragraph    indentation of first line different "
        "from second\n"
        "  -u, --uniform-spacing     one space between words, two after "
        "sentences\n"
        "  -w, --width=WIDTH         maximum line width (default of 75 "
        "columns)\n"
        "  -g, --goal=WIDTH          goal width (default of 93% of width)\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

/* One word of a paragraph and what the line breaking knows of it. */
typedef struct fmt_word {
    size_t fw_off; // in fr_words' text
    int fw_len;
    int fw_space; // blanks after it
    bool fw_paren, fw_period, fw_punct, fw_final;
    int fw_line_len;  // of the line starting here
    fmt_cost fw_cost; // the least cost from here to the end
    size_t fw_next;   // index of the word after this line's break
} fmt_word;

typedef struct fmt_run {
    sh_cmd_run fr_run;
    // options
    int fr_width, fr_goal;
    bool fr_crown, fr_tagged, fr_split, fr_uniform;
    const char *fr_prefix; // without its lead and trailing blanks
    int fr_prefix_len, fr_prefix_lead, fr_prefix_full;
    // the file being read
    const unsigned char *fr_in;
    size_t fr_in_len, fr_pos;
    bool fr_tabs; // blanks came as tabs: the output uses them too
    int fr_in_col, fr_next_prefix_indent;
    // the paragraph
    fmt_word *fr_w;
    size_t fr_nw, fr_cap;
    box_buf fr_text;
    int fr_prefix_indent, fr_first_indent, fr_other_indent;
    int fr_out_col, fr_last_line_len;
    box_buf fr_out;
} fmt_run;

/* ---- reading, as stdio's getc ---- */

static int
fmt_getc(fmt_run *r)
{
    return r->fr_pos < r->fr_in_len ? r->fr_in[r->fr_pos++] : EOF;
}

static int
fmt_space(fmt_run *r, int c)
{
    for (;; c = fmt_getc(r)) {
        if (c == ' ') {
            r->fr_in_col++;
        } else if (c == '\t') {
            r->fr_tabs = true;
            r->fr_in_col = (r->fr_in_col / FMT_TAB + 1) * FMT_TAB;
        } else {
            return c;
        }
    }
}

/* The indent and the prefix of the next line: its first other byte. */
static int
fmt_prefix(fmt_run *r)
{
    r->fr_in_col = 0;
    int c = fmt_space(r, fmt_getc(r));
    if (r->fr_prefix_len == 0) {
        r->fr_next_prefix_indent =
            r->fr_prefix_lead < r->fr_in_col ? r->fr_prefix_lead : r->fr_in_col;
        return c;
    }
    r->fr_next_prefix_indent = r->fr_in_col;
    for (const char *p = r->fr_prefix; *p; p++) {
        if (c != (unsigned char)*p)
            return c;
        r->fr_in_col++;
        c = fmt_getc(r);
    }
    return fmt_space(r, c);
}

static bool
fmt_same_para(const fmt_run *r, int c)
{
    return r->fr_next_prefix_indent == r->fr_prefix_indent &&
           r->fr_in_col >= r->fr_next_prefix_indent + r->fr_prefix_full &&
           c != '\n' && c != EOF;
}

/* ---- writing ---- */

static bool
fmt_put(fmt_run *r, const void *p, size_t n)
{
    if (n == 0)
        return true;
    if (box_buf_append(&r->fr_out, p, n) != BOX_OK) {
        r->fr_run.cr_status =
            sh_cmd_err(r->fr_run.cr_cx, "fmt", 1, "out of memory");
        return false;
    }
    if (r->fr_out.b_len < FMT_CHUNK)
        return true;
    bool ok = sh_cmd_emit(&r->fr_run, r->fr_out.b_data, r->fr_out.b_len);
    box_buf_truncate(&r->fr_out, 0);
    return ok;
}

static bool
fmt_putc(fmt_run *r, char c)
{
    return fmt_put(r, &c, 1);
}

/* Blanks to reach out_col + space: tabs where the input had tabs. */
static bool
fmt_put_space(fmt_run *r, int space)
{
    int target = r->fr_out_col + space;
    if (r->fr_tabs) {
        int tab_target = target / FMT_TAB * FMT_TAB;
        if (r->fr_out_col + 1 < tab_target)
            while (r->fr_out_col < tab_target) {
                if (!fmt_putc(r, '\t'))
                    return false;
                r->fr_out_col = (r->fr_out_col / FMT_TAB + 1) * FMT_TAB;
            }
    }
    for (; r->fr_out_col < target; r->fr_out_col++)
        if (!fmt_putc(r, ' '))
            return false;
    return true;
}

/* A line not part of any paragraph (no prefix), as it was. */
static int
fmt_copy_rest(fmt_run *r, int c, bool *ok)
{
    r->fr_out_col = 0;
    *ok = true;
    if (r->fr_in_col > r->fr_next_prefix_indent || (c != '\n' && c != EOF)) {
        *ok = fmt_put_space(r, r->fr_next_prefix_indent);
        for (const char *s = r->fr_prefix;
             *ok && r->fr_out_col != r->fr_in_col && *s; r->fr_out_col++)
            *ok = fmt_putc(r, *s++);
        if (*ok && c != EOF && c != '\n')
            *ok = fmt_put_space(r, r->fr_in_col - r->fr_out_col);
        if (*ok && c == EOF &&
            r->fr_in_col >= r->fr_next_prefix_indent + r->fr_prefix_len)
            *ok = fmt_putc(r, '\n');
    }
    while (*ok && c != '\n' && c != EOF) {
        *ok = fmt_putc(r, (char)c);
        c = fmt_getc(r);
    }
    return c;
}

/* ---- words ---- */

static void
fmt_punct(fmt_run *r, fmt_word *w)
{
    const char *t = r->fr_text.b_data + w->fw_off;
    const char *end = t + w->fw_len - 1;
    w->fw_paren = strchr("(['`\"", *t) != NULL && *t != '\0';
    w->fw_punct = ispunct((unsigned char)*end) != 0;
    while (end > t && strchr(")]'\"", *end) != NULL && *end != '\0')
        end--;
    w->fw_period = strchr(".?!", *end) != NULL && *end != '\0';
}

/* The words of one line into the paragraph; the next line's first byte
 * after its prefix. -2 on failure (status set). */
static int
fmt_line(fmt_run *r, int c)
{
    do {
        if (r->fr_nw + 2 >= r->fr_cap) {
            size_t cap = r->fr_cap ? r->fr_cap * 2 : 256;
            fmt_word *w = box_realloc(r->fr_w, cap * sizeof *w);
            if (w == NULL)
                goto oom;
            r->fr_w = w;
            r->fr_cap = cap;
        }
        fmt_word *w = &r->fr_w[r->fr_nw];
        memset(w, 0, sizeof *w);
        w->fw_off = r->fr_text.b_len;
        do {
            if (box_buf_putc(&r->fr_text, (char)c) != BOX_OK)
                goto oom;
            c = fmt_getc(r);
        } while (c != EOF && !isspace(c));
        w->fw_len = (int)(r->fr_text.b_len - w->fw_off);
        r->fr_in_col += w->fw_len;
        fmt_punct(r, w);
        int start = r->fr_in_col;
        c = fmt_space(r, c);
        w->fw_space = r->fr_in_col - start;
        w->fw_final =
            c == EOF || (w->fw_period && (c == '\n' || w->fw_space > 1));
        if (c == '\n' || c == EOF || r->fr_uniform)
            w->fw_space = w->fw_final ? 2 : 1;
        r->fr_nw++;
    } while (c != '\n' && c != EOF);
    return fmt_prefix(r);
oom:
    r->fr_run.cr_status =
        sh_cmd_err(r->fr_run.cr_cx, "fmt", 1, "out of memory");
    return -2;
}

static void
fmt_other_indent(fmt_run *r, bool same)
{
    if (r->fr_split)
        r->fr_other_indent = r->fr_first_indent;
    else if (r->fr_crown)
        r->fr_other_indent = same ? r->fr_in_col : r->fr_first_indent;
    else if (r->fr_tagged) {
        if (same && r->fr_in_col != r->fr_first_indent)
            r->fr_other_indent = r->fr_in_col;
        else if (r->fr_first_indent == r->fr_prefix_indent)
            r->fr_other_indent = r->fr_first_indent + 3;
        else
            r->fr_other_indent = r->fr_prefix_indent;
    } else
        r->fr_other_indent = r->fr_first_indent;
}

/* ---- breaking ---- */

/* The part of breaking before word i that depends on the line's length
 * len: distance from the goal, and from the next line's length. */
static fmt_cost
fmt_line_cost(const fmt_run *r, size_t i, int len)
{
    if (i == r->fr_nw)
        return 0;
    fmt_cost c = FMT_SHORT(r->fr_goal - len);
    if (r->fr_w[i].fw_next != r->fr_nw)
        c += FMT_RAGGED(len - r->fr_w[i].fw_line_len);
    return c;
}

/* The fixed part of breaking before word i. */
static fmt_cost
fmt_base_cost(const fmt_run *r, size_t i)
{
    const fmt_word *w = r->fr_w;
    fmt_cost c = FMT_LINE;
    if (i > 0) {
        if (w[i - 1].fw_period) {
            c += w[i - 1].fw_final ? -FMT_SENTENCE : FMT_NOBREAK;
        } else if (w[i - 1].fw_punct) {
            c -= FMT_PUNCT;
        } else if (i > 1 && w[i - 2].fw_final) {
            c += FMT_WIDOW(w[i - 1].fw_len);
        }
    }
    if (w[i].fw_paren)
        c -= FMT_PAREN;
    else if (w[i].fw_final)
        c += FMT_ORPHAN(w[i].fw_len);
    return c;
}

/* For each word from the last back: the best break after it, given the
 * best breaks of the lines that follow. */
static void
fmt_breaks(fmt_run *r)
{
    fmt_word *w = r->fr_w;
    size_t n = r->fr_nw;
    w[n].fw_cost = 0;
    int saved = w[n].fw_len;
    w[n].fw_len = r->fr_width; // a sentinel: no line reaches past it
    for (size_t s = n; s-- > 0;) {
        fmt_cost best = FMT_MAXCOST;
        int len = s == 0 ? r->fr_first_indent : r->fr_other_indent;
        size_t i = s;
        len += w[i].fw_len;
        do {
            i++;
            fmt_cost c = fmt_line_cost(r, i, len) + w[i].fw_cost;
            if (s == 0 && r->fr_last_line_len > 0)
                c += FMT_RAGGED(len - r->fr_last_line_len);
            if (c < best) {
                best = c;
                w[s].fw_next = i;
                w[s].fw_line_len = len;
            }
            if (i == n)
                break;
            len += w[i - 1].fw_space + w[i].fw_len;
        } while (len < r->fr_width);
        w[s].fw_cost = best + fmt_base_cost(r, s);
    }
    w[n].fw_len = saved;
}

static bool
fmt_put_line(fmt_run *r, size_t i, int indent)
{
    r->fr_out_col = 0;
    if (!fmt_put_space(r, r->fr_prefix_indent) ||
        !fmt_put(r, r->fr_prefix, (size_t)r->fr_prefix_len))
        return false;
    r->fr_out_col += r->fr_prefix_len;
    if (!fmt_put_space(r, indent - r->fr_out_col))
        return false;
    size_t end = r->fr_w[i].fw_next - 1;
    for (;; i++) {
        const fmt_word *w = &r->fr_w[i];
        if (!fmt_put(r, r->fr_text.b_data + w->fw_off, (size_t)w->fw_len))
            return false;
        r->fr_out_col += w->fw_len;
        if (i == end)
            break;
        if (!fmt_put_space(r, w->fw_space))
            return false;
    }
    r->fr_last_line_len = r->fr_out_col;
    return fmt_putc(r, '\n');
}

static bool
fmt_paragraph_out(fmt_run *r)
{
    fmt_breaks(r);
    if (!fmt_put_line(r, 0, r->fr_first_indent))
        return false;
    for (size_t i = r->fr_w[0].fw_next; i != r->fr_nw; i = r->fr_w[i].fw_next)
        if (!fmt_put_line(r, i, r->fr_other_indent))
            return false;
    return true;
}

/* ---- paragraphs ---- */

/* Copies blank and prefix-less lines through, then reads one paragraph.
 * 1 with a paragraph, 0 at the end, -1 to stop. *c is the next byte. */
static int
fmt_get_paragraph(fmt_run *r, int *cp)
{
    int c = *cp;
    r->fr_last_line_len = 0;
    while (c == '\n' || c == EOF ||
           r->fr_next_prefix_indent < r->fr_prefix_lead ||
           r->fr_in_col < r->fr_next_prefix_indent + r->fr_prefix_full) {
        if (c == EOF)
            return 0;
        // A blank line, or one without the prefix: as it was (a prefix
        // alone stays).
        bool ok;
        c = fmt_copy_rest(r, c, &ok);
        if (!ok)
            return -1;
        if (c == EOF)
            return 0;
        if (!fmt_putc(r, '\n'))
            return -1;
        c = fmt_prefix(r);
    }
    r->fr_prefix_indent = r->fr_next_prefix_indent;
    r->fr_first_indent = r->fr_in_col;
    r->fr_nw = 0;
    box_buf_truncate(&r->fr_text, 0);
    if ((c = fmt_line(r, c)) == -2)
        return -1;
    fmt_other_indent(r, fmt_same_para(r, c));
    if (r->fr_split) {
        // each line its own paragraph
    } else if (r->fr_crown) {
        if (fmt_same_para(r, c)) {
            do {
                if ((c = fmt_line(r, c)) == -2)
                    return -1;
            } while (fmt_same_para(r, c) && r->fr_in_col == r->fr_other_indent);
        }
    } else if (r->fr_tagged) {
        if (fmt_same_para(r, c) && r->fr_in_col != r->fr_first_indent) {
            do {
                if ((c = fmt_line(r, c)) == -2)
                    return -1;
            } while (fmt_same_para(r, c) && r->fr_in_col == r->fr_other_indent);
        }
    } else {
        while (fmt_same_para(r, c) && r->fr_in_col == r->fr_other_indent)
            if ((c = fmt_line(r, c)) == -2)
                return -1;
    }
    r->fr_w[r->fr_nw - 1].fw_period = r->fr_w[r->fr_nw - 1].fw_final = true;
    *cp = c;
    return 1;
}

static bool
fmt_body(sh_cmd_run *cr, sh_input *in, const char *name)
{
    fmt_run *r = (fmt_run *)cr;
    box_buf all;
    box_buf_init(&all, FMT_INPUT_MAX);
    char chunk[FMT_CHUNK];
    bool go = sh_cmd_hold(cr, in, name, chunk, sizeof chunk, &all, UINTMAX_MAX);
    if (go) {
        r->fr_in = (const unsigned char *)all.b_data;
        r->fr_in_len = all.b_len;
        r->fr_pos = 0;
        int c = fmt_prefix(r), got;
        while ((got = fmt_get_paragraph(r, &c)) == 1 && sh_cmd_live(cr))
            if (!fmt_paragraph_out(r)) {
                got = -1;
                break;
            }
        go = got == 0 && sh_cmd_live(cr);
        if (go) {
            go = sh_cmd_emit(cr, r->fr_out.b_data, r->fr_out.b_len);
            box_buf_truncate(&r->fr_out, 0);
        }
    }
    box_buf_reset(&all);
    return go;
}

/* ---- options ---- */

static int
fmt_width_arg(sh_ctx *cx, const char *s, int max, int *out)
{
    const char *p = s;
    while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
        p++;
    p += *p == '+';
    long long v = 0;
    bool any = false;
    for (; *p >= '0' && *p <= '9'; p++, any = true)
        if (v <= max)
            v = v * 10 + (*p - '0');
    char *q = sh_gquote(s);
    int st = 0;
    if (!any || *p != '\0')
        st = sh_cmd_err(cx, "fmt", 1, "invalid width: %s", q ? q : s);
    else if (v > max)
        st = sh_cmd_err(cx, "fmt", 1,
                        "invalid width: %s: Numerical result out of range",
                        q ? q : s);
    else
        *out = (int)v;
    box_free(q);
    return st;
}

static void
fmt_set_prefix(fmt_run *r, const char *p)
{
    r->fr_prefix_lead = 0;
    while (*p == ' ') {
        r->fr_prefix_lead++;
        p++;
    }
    r->fr_prefix = p;
    r->fr_prefix_full = (int)strlen(p);
    int n = r->fr_prefix_full;
    while (n > 0 && p[n - 1] == ' ')
        n--;
    r->fr_prefix_len = n;
}

int
sh_cmd_fmt(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    fmt_run *r = box_calloc(1, sizeof *r);
    if (r == NULL)
        return sh_cmd_err(cx, "fmt", 1, "out of memory");
    r->fr_run = (sh_cmd_run){.cr_cx = cx,
                             .cr_cmd = "fmt",
                             .cr_open_fmt = "cannot open %s for reading"};
    r->fr_width = 75;
    r->fr_prefix = "";
    box_buf_init(&r->fr_text, FMT_INPUT_MAX);
    box_buf_init(&r->fr_out, FMT_CHUNK * 2);
    const char *width = NULL, *goal = NULL;
    char *digits = NULL;
    char *prefix = NULL;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &fmt_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 'c':
            r->fr_crown = true;
            break;
        case 's':
            r->fr_split = true;
            break;
        case 't':
            r->fr_tagged = true;
            break;
        case 'u':
            r->fr_uniform = true;
            break;
        case 'w':
            width = arg;
            break;
        case 'g':
            goal = arg;
            break;
        case 'p':
            box_free(prefix);
            if ((prefix = box_strdup(arg)) == NULL) {
                st = sh_cmd_err(cx, "fmt", 1, "out of memory");
                goto out;
            }
            fmt_set_prefix(r, prefix);
            break;
        default: // -WIDTH
            box_free(digits);
            digits = box_asprintf("%c%s", id, arg != NULL ? arg : "");
            if (digits == NULL) {
                st = sh_cmd_err(cx, "fmt", 1, "out of memory");
                goto out;
            }
            width = digits;
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (width != NULL &&
        (st = fmt_width_arg(cx, width, FMT_WIDTH_MAX, &r->fr_width)) != 0)
        goto out;
    if (goal != NULL) {
        if ((st = fmt_width_arg(cx, goal, r->fr_width, &r->fr_goal)) != 0)
            goto out;
        if (width == NULL)
            r->fr_width = r->fr_goal + 10;
    } else {
        r->fr_goal = r->fr_width * (2 * (100 - FMT_LEEWAY) + 1) / 200;
    }
    sh_opts ops = {.o_ind = 0};
    st = sh_cmd_operands(&r->fr_run, it.gi_nops, it.gi_ops, &ops, fmt_body);
out:
    box_free(digits);
    box_free(prefix);
    box_free(r->fr_w);
    box_buf_reset(&r->fr_text);
    box_buf_reset(&r->fr_out);
    box_free(r);
    sh_gopt_free(&it);
    return st;
}
