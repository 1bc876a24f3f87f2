/* SPDX-License-Identifier: Apache-2.0 */
/* expand [-i] [-t LIST] and unexpand [-a] [--first-only] [-t LIST]
 * [FILE]...: GNU coreutils 9.1. Columns are bytes (GNU's are); the
 * operands are one stream, as GNU reads them: a line may go on into the
 * next file. */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define EXP_CHUNK (64u * 1024u)    // read and written a chunk at a time
#define EXP_STOPS_MAX 4096         // tab stops in one list
#define EXP_PENDING_MAX (1u << 20) // unexpand's held blanks

enum { EXP_OPT_FIRST = SH_GOPT_LONG_ONLY };

/* Both commands take the obsolete -N[,N]...: a digit takes the rest of
 * its word as more of the list. */
#define EXP_DIGIT_ROWS                                                         \
    {'0', NULL, SH_GARG_OPT}, {'1', NULL, SH_GARG_OPT},                        \
        {'2', NULL, SH_GARG_OPT}, {'3', NULL, SH_GARG_OPT},                    \
        {'4', NULL, SH_GARG_OPT}, {'5', NULL, SH_GARG_OPT},                    \
        {'6', NULL, SH_GARG_OPT}, {'7', NULL, SH_GARG_OPT},                    \
        {'8', NULL, SH_GARG_OPT},                                              \
    {                                                                          \
        '9', NULL, SH_GARG_OPT                                                 \
    }

static const sh_gopt expand_opts[] = {
    {'i', "initial", SH_GARG_NONE},
    {'t', "tabs", SH_GARG_REQ},
    EXP_DIGIT_ROWS,
    {0},
};

static const sh_gopt unexpand_opts[] = {
    {'a', "all", SH_GARG_NONE},
    {EXP_OPT_FIRST, "first-only", SH_GARG_NONE},
    {'t', "tabs", SH_GARG_REQ},
    EXP_DIGIT_ROWS,
    {0},
};

#define EXP_HELP_LIST                                                          \
    "  -t, --tabs=LIST  use comma separated list of tab positions.\n"          \
    "                     The last specified position can be prefixed "        \
    "with '/'\n"                                                               \
    "                     to specify a tab size to use after the last\n"       \
    "                     explicitly specified tab stop.  Also a prefix of "   \
    "'+'\n"                                                                    \
    "                     can be used to align remaining tab stops "           \
    "relative to\n"                                                            \
    "                     the last specified tab stop instead of the first "   \
    "column\n"                                                                 \
    "      --help        display this help and exit\n"                         \
    "      --version     output version information and exit\n"

static const sh_gopt_spec expand_spec = {
    .gs_cmd = "expand",
    .gs_opts = expand_opts,
    .gs_fail = 1,
    .gs_help = "Usage: expand [OPTION]... [FILE]...\n"
               "Convert tabs in each FILE to spaces, writing to standard "
               "output.\n"
               "\n"
               "With no FILE, or when FILE is -, read standard input.\n"
               "\n"
               "Mandatory arguments to long options are mandatory for "
               "short options too.\n"
               "  -i, --initial    do not convert tabs after non blanks\n"
               "  -t, --tabs=N     have tabs N characters apart, not "
               "8\n" EXP_HELP_LIST,
};

static const sh_gopt_spec unexpand_spec = {
    .gs_cmd = "unexpand",
    .gs_opts = unexpand_opts,
    .gs_fail = 1,
    .gs_help = "Usage: unexpand [OPTION]... [FILE]...\n"
               "Convert blanks in each FILE to tabs, writing to standard "
               "output.\n"
               "\n"
               "With no FILE, or when FILE is -, read standard input.\n"
               "\n"
               "Mandatory arguments to long options are mandatory for "
               "short options too.\n"
               "  -a, --all        convert all blanks, instead of just "
               "initial blanks\n"
               "      --first-only  convert only leading sequences of "
               "blanks (overrides -a)\n"
               "  -t, --tabs=N     have tabs N characters apart instead of "
               "8 (enables -a)\n" EXP_HELP_LIST,
};

/* The tab stops: one size (ts_size), or a list then maybe a repeating
 * size after its last stop, from column 0 (/N) or from that stop (+N). */
typedef struct exp_tabs {
    uintmax_t ts_size; // every ts_size columns; 0 when ts_list rules
    uintmax_t ts_list[EXP_STOPS_MAX];
    size_t ts_n;
    uintmax_t ts_extend;    // '/N'
    uintmax_t ts_increment; // '+N'
} exp_tabs;

typedef struct exp_run {
    sh_cmd_run xr_run;
    bool xr_un;      // unexpand
    bool xr_initial; // expand -i; unexpand without -a
    exp_tabs xr_tabs;
    box_buf xr_out;
    // The line in progress, kept across operands.
    uintmax_t xr_col;
    size_t xr_entry;
    bool xr_convert;
    // unexpand's blanks not yet written
    box_buf xr_pending;
    bool xr_prev_blank;
    bool xr_one_before_stop;
    bool xr_stopped; // an operand's body stopped the run
} exp_run;

/* ---- the tab list ---- */

/* The stop after column col: *last when the list has none left (no
 * repeating size). */
static uintmax_t
exp_next_stop(const exp_tabs *t, uintmax_t col, size_t *entry, bool *last)
{
    *last = false;
    if (t->ts_size != 0)
        return col + (t->ts_size - col % t->ts_size);
    for (; *entry < t->ts_n; (*entry)++)
        if (col < t->ts_list[*entry])
            return t->ts_list[*entry];
    if (t->ts_extend != 0)
        return col + (t->ts_extend - col % t->ts_extend);
    if (t->ts_increment != 0) {
        uintmax_t end = t->ts_list[t->ts_n - 1];
        return col + (t->ts_increment - (col - end) % t->ts_increment);
    }
    *last = true;
    return 0;
}

/* One value of the list, as its prefix says. False after a message. */
static bool
exp_add(sh_ctx *cx, const char *cmd, exp_tabs *t, uintmax_t v, char prefix)
{
    if (prefix == '/' || prefix == '+') {
        uintmax_t *slot = prefix == '/' ? &t->ts_extend : &t->ts_increment;
        bool ok = *slot == 0;
        if (!ok)
            sh_cmd_err(cx, cmd, 1,
                       "'%c' specifier only allowed with the last value",
                       prefix);
        *slot = v;
        return ok;
    }
    if (t->ts_extend != 0 || t->ts_increment != 0) {
        sh_cmd_err(cx, cmd, 1,
                   "'%c' specifier only allowed with the last value",
                   t->ts_extend != 0 ? '/' : '+');
        return false;
    }
    if (t->ts_n == EXP_STOPS_MAX) {
        sh_cmd_err(cx, cmd, 1, "too many tab stops");
        return false;
    }
    t->ts_list[t->ts_n++] = v;
    return true;
}

static void
exp_badq(sh_ctx *cx, const char *cmd, const char *fmt, const char *s)
{
    char *q = sh_gquote(s);
    sh_cmd_err(cx, cmd, 1, fmt, q != NULL ? q : s);
    box_free(q);
}

/* Adds the stops of spec (GNU's parse_tab_stops): numbers apart by
 * commas or blanks, the last one maybe after '/' or '+'. 0, or 1 after
 * the message(s). */
static int
exp_parse(sh_ctx *cx, const char *cmd, exp_tabs *t, const char *spec)
{
    bool have = false, ok = true;
    char prefix = 0;
    uintmax_t v = 0;
    const char *start = spec;
    for (const char *p = spec; *p; p++) {
        if (*p == ',' || *p == ' ' || *p == '\t') {
            if (have && !exp_add(cx, cmd, t, v, prefix))
                return 1;
            have = false;
        } else if (*p == '/' || *p == '+') {
            if (have) {
                exp_badq(cx, cmd,
                         *p == '/' ? "'/' specifier not at start of number: %s"
                                   : "'+' specifier not at start of number: "
                                     "%s",
                         p);
                ok = false;
            }
            prefix = *p;
        } else if (*p >= '0' && *p <= '9') {
            if (!have) {
                v = 0;
                have = true;
                start = p;
            }
            unsigned d = (unsigned)(*p - '0');
            if (v > (UINTMAX_MAX - d) / 10) {
                size_t len = strspn(start, "0123456789");
                char *num = box_strndup(start, len);
                exp_badq(cx, cmd, "tab stop is too large %s",
                         num != NULL ? num : start);
                box_free(num);
                return 1;
            }
            v = v * 10 + d;
        } else {
            exp_badq(cx, cmd, "tab size contains invalid character(s): %s", p);
            return 1;
        }
    }
    if (!ok)
        return 1;
    if (have && !exp_add(cx, cmd, t, v, prefix))
        return 1;
    return 0;
}

/* The list once all -t are read: checked, and a lone stop made the size
 * (no list: every 8). */
static int
exp_finish(sh_ctx *cx, const char *cmd, exp_tabs *t)
{
    if (t->ts_extend != 0 && t->ts_increment != 0)
        return sh_cmd_err(cx, cmd, 1,
                          "'/' specifier is mutually exclusive with '+'");
    for (size_t i = 0; i < t->ts_n; i++) {
        if (t->ts_list[i] == 0)
            return sh_cmd_err(cx, cmd, 1, "tab size cannot be 0");
        if (i > 0 && t->ts_list[i] <= t->ts_list[i - 1])
            return sh_cmd_err(cx, cmd, 1, "tab sizes must be ascending");
    }
    if (t->ts_n == 0 && t->ts_extend == 0 && t->ts_increment == 0)
        t->ts_size = 8;
    else if (t->ts_n == 1 && t->ts_extend == 0 && t->ts_increment == 0)
        t->ts_size = t->ts_list[0];
    else if (t->ts_n == 0 && t->ts_increment == 0)
        t->ts_size = t->ts_extend; // '/N' alone: every N
    else if (t->ts_n == 0)
        t->ts_size = t->ts_increment; // '+N' alone: from column 0
    return 0;
}

/* ---- the conversion ---- */

static bool
exp_put(exp_run *r, const char *p, size_t n)
{
    if (box_buf_append(&r->xr_out, p, n) != BOX_OK) {
        r->xr_run.cr_status =
            sh_cmd_err(r->xr_run.cr_cx, r->xr_run.cr_cmd, 1, "out of memory");
        return false;
    }
    if (r->xr_out.b_len < EXP_CHUNK)
        return true;
    bool ok = sh_cmd_emit(&r->xr_run, r->xr_out.b_data, r->xr_out.b_len);
    box_buf_truncate(&r->xr_out, 0);
    return ok;
}

static void
exp_line_start(exp_run *r)
{
    r->xr_col = 0;
    r->xr_entry = 0;
    r->xr_convert = true;
    r->xr_prev_blank = true;
    r->xr_one_before_stop = false;
    box_buf_truncate(&r->xr_pending, 0);
}

/* expand: a tab becomes spaces to the next stop (one space past the
 * last stop of a list); a backspace steps back a column. */
static bool
exp_expand_byte(exp_run *r, char c)
{
    if (r->xr_convert) {
        if (c == '\t') {
            bool last;
            uintmax_t next =
                exp_next_stop(&r->xr_tabs, r->xr_col, &r->xr_entry, &last);
            if (last)
                next = r->xr_col + 1;
            if (next < r->xr_col) {
                r->xr_run.cr_status = sh_cmd_err(r->xr_run.cr_cx, "expand", 1,
                                                 "input line is too long");
                return false;
            }
            while (++r->xr_col < next)
                if (!exp_put(r, " ", 1))
                    return false;
            c = ' ';
        } else if (c == '\b') {
            r->xr_col -= r->xr_col != 0;
            r->xr_entry -= r->xr_entry != 0;
        } else {
            r->xr_col++;
        }
        r->xr_convert &= !r->xr_initial || c == ' ' || c == '\t';
    }
    if (!exp_put(r, &c, 1))
        return false;
    if (c == '\n')
        exp_line_start(r);
    return true;
}

/* unexpand's held blanks out; a run that reached a stop as more than
 * one blank starts with a tab. */
static bool
exp_unexpand_pending(exp_run *r)
{
    box_buf *p = &r->xr_pending;
    if (p->b_len == 0)
        return true;
    if (p->b_len > 1 && r->xr_one_before_stop)
        p->b_data[0] = '\t';
    bool ok = exp_put(r, p->b_data, p->b_len);
    box_buf_truncate(p, 0);
    r->xr_one_before_stop = false;
    return ok;
}

/* unexpand: blanks are held until the column reaches a stop, then
 * replaced by one tab (a lone space before a stop stays a space). */
static bool
exp_unexpand_byte(exp_run *r, char c)
{
    if (r->xr_convert) {
        bool blank = c == ' ' || c == '\t';
        if (blank) {
            bool last;
            uintmax_t next =
                exp_next_stop(&r->xr_tabs, r->xr_col, &r->xr_entry, &last);
            if (last)
                r->xr_convert = false;
            if (r->xr_convert) {
                if (next < r->xr_col) {
                    r->xr_run.cr_status =
                        sh_cmd_err(r->xr_run.cr_cx, "unexpand", 1,
                                   "input line is too long");
                    return false;
                }
                if (c == '\t') {
                    r->xr_col = next;
                    if (r->xr_pending.b_len > 0)
                        r->xr_pending.b_data[0] = '\t';
                } else {
                    r->xr_col++;
                    if (!(r->xr_prev_blank && r->xr_col == next)) {
                        if (r->xr_col == next)
                            r->xr_one_before_stop = true;
                        if (box_buf_putc(&r->xr_pending, c) != BOX_OK) {
                            r->xr_run.cr_status =
                                sh_cmd_err(r->xr_run.cr_cx, "unexpand", 1,
                                           "out of memory");
                            return false;
                        }
                        r->xr_prev_blank = true;
                        return true;
                    }
                    c = '\t';
                    if (r->xr_pending.b_len > 0)
                        r->xr_pending.b_data[0] = '\t';
                }
                // The held blanks go, but a lone one before the last
                // stop stays.
                box_buf_truncate(
                    &r->xr_pending,
                    r->xr_one_before_stop && r->xr_pending.b_len > 0 ? 1 : 0);
            }
        } else if (c == '\b') {
            r->xr_col -= r->xr_col != 0;
            r->xr_entry -= r->xr_entry != 0;
        } else {
            r->xr_col++;
        }
        if (!exp_unexpand_pending(r))
            return false;
        r->xr_prev_blank = blank;
        r->xr_convert &= !r->xr_initial || blank;
    }
    if (!exp_put(r, &c, 1))
        return false;
    if (c == '\n')
        exp_line_start(r);
    return true;
}

static bool
exp_body(sh_cmd_run *cr, sh_input *in, const char *name)
{
    (void)name;
    exp_run *r = (exp_run *)cr;
    char chunk[EXP_CHUNK];
    for (;;) {
        if (!sh_cmd_live(cr))
            return false;
        ssize_t n = sh_input_read(in, chunk, sizeof chunk);
        if (n < 0 && !sh_cmd_live(cr))
            return false;
        if (n < 0)
            cr->cr_status = 1;
        if (n < 0)
            return true;
        if (n == 0) { // what this operand made goes out before the next
            r->xr_stopped = !sh_cmd_emit(cr, r->xr_out.b_data, r->xr_out.b_len);
            box_buf_truncate(&r->xr_out, 0);
            return !r->xr_stopped;
        }
        for (ssize_t i = 0; i < n; i++)
            if (!(r->xr_un ? exp_unexpand_byte(r, chunk[i])
                           : exp_expand_byte(r, chunk[i]))) {
                r->xr_stopped = true;
                return false;
            }
    }
}

/* What both commands share: options, then the operands as one stream. */
static int
exp_main(sh_ctx *cx, int argc, char **argv, bool un)
{
    const char *cmd = un ? "unexpand" : "expand";
    exp_run *r = box_calloc(1, sizeof *r);
    if (r == NULL)
        return sh_cmd_err(cx, cmd, 1, "out of memory");
    r->xr_run = (sh_cmd_run){.cr_cx = cx, .cr_cmd = cmd};
    r->xr_un = un;
    r->xr_initial = un; // unexpand: initial blanks unless -a
    box_buf_init(&r->xr_out, EXP_CHUNK * 2);
    box_buf_init(&r->xr_pending, EXP_PENDING_MAX);
    exp_line_start(r);
    bool first_only = false;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, un ? &unexpand_spec : &expand_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'i') {
            r->xr_initial = true;
        } else if (id == 'a') {
            r->xr_initial = false;
        } else if (id == EXP_OPT_FIRST) {
            first_only = true;
        } else if (id == 't') {
            r->xr_initial = !un && r->xr_initial;
            if ((st = exp_parse(cx, cmd, &r->xr_tabs, arg)) != 0)
                goto out;
        } else if (id >= '0' && id <= '9') {
            // The obsolete -N[,N]...: the digit and the rest of its word.
            char *spec = box_asprintf("%c%s", id, arg != NULL ? arg : "");
            st = spec != NULL ? exp_parse(cx, cmd, &r->xr_tabs, spec)
                              : sh_cmd_err(cx, cmd, 1, "out of memory");
            box_free(spec);
            if (st != 0)
                goto out;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (first_only)
        r->xr_initial = true;
    if ((st = exp_finish(cx, cmd, &r->xr_tabs)) != 0)
        goto out;
    sh_opts ops = {.o_ind = 0};
    st = sh_cmd_operands(&r->xr_run, it.gi_nops, it.gi_ops, &ops, exp_body);
    bool ok = (st == 0 || st == 1) && !r->xr_stopped;
    if (ok && un)
        ok = exp_unexpand_pending(r);
    if (ok && !sh_cmd_emit(&r->xr_run, r->xr_out.b_data, r->xr_out.b_len))
        ok = false;
    st = r->xr_run.cr_status;
out:
    box_buf_reset(&r->xr_out);
    box_buf_reset(&r->xr_pending);
    box_free(r);
    sh_gopt_free(&it);
    return st;
}

int
sh_cmd_expand(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    return exp_main(cx, argc, argv, false);
}

int
sh_cmd_unexpand(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    return exp_main(cx, argc, argv, true);
}
