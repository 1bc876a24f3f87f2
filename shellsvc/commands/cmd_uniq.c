/* SPDX-License-Identifier: Apache-2.0 */
/* uniq [OPTION]... [INPUT [OUTPUT]]: GNU coreutils 9.1 (C.UTF-8). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define UNIQ_LINE_MAX (256u << 20)   // one line held whole: 256 MiB
#define UNIQ_OUT_CHUNK (64u * 1024u) // output gathered per write

enum {
    UNIQ_OPT_ALL_REPEATED = SH_GOPT_LONG_ONLY,
    UNIQ_OPT_GROUP,
};

static const sh_gopt uniq_opts[] = {
    {'c', "count", SH_GARG_NONE},
    {'d', "repeated", SH_GARG_NONE},
    {'D', NULL, SH_GARG_NONE},
    {'f', "skip-fields", SH_GARG_REQ},
    {'i', "ignore-case", SH_GARG_NONE},
    {'s', "skip-chars", SH_GARG_REQ},
    {'u', "unique", SH_GARG_NONE},
    {'w', "check-chars", SH_GARG_REQ},
    {'z', "zero-terminated", SH_GARG_NONE},
    {UNIQ_OPT_ALL_REPEATED, "all-repeated", SH_GARG_OPT},
    {UNIQ_OPT_GROUP, "group", SH_GARG_OPT},
    // -N (skip N fields) as digits in a bundle: -c2, -1c3
    SH_GOPT_DIGIT_ROWS,
    {0},
};

static const sh_gopt_spec uniq_spec = {
    .gs_cmd = "uniq",
    .gs_opts = uniq_opts,
    .gs_flags = SH_GOPT_F_NUMBER,
    .gs_fail = 1,
    .gs_help =
        "Usage: uniq [OPTION]... [INPUT [OUTPUT]]\n"
        "Filter adjacent matching lines from INPUT (or standard input),\n"
        "writing to OUTPUT (or standard output).\n"
        "\n"
        "With no options, matching lines are merged to the first "
        "occurrence.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short "
        "options too.\n"
        "  -c, --count           prefix lines by the number of occurrences\n"
        "  -d, --repeated        only print duplicate lines, one for each "
        "group\n"
        "  -D                    print all duplicate lines\n"
        "      --all-repeated[=METHOD]  like -D, but allow separating "
        "groups\n"
        "                                 with an empty line;\n"
        "                                 "
        "METHOD={none(default),prepend,separate}\n"
        "  -f, --skip-fields=N   avoid comparing the first N fields\n"
        "      --group[=METHOD]  show all items, separating groups with an "
        "empty line;\n"
        "                          "
        "METHOD={separate(default),prepend,append,both}\n"
        "  -i, --ignore-case     ignore differences in case when comparing\n"
        "  -s, --skip-chars=N    avoid comparing the first N characters\n"
        "  -u, --unique          only print unique lines\n"
        "  -z, --zero-terminated     line delimiter is NUL, not newline\n"
        "  -w, --check-chars=N   compare no more than N characters in "
        "lines\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "A field is a run of blanks (usually spaces and/or TABs), then "
        "non-blank\n"
        "characters.  Fields are skipped before chars.\n"
        "\n"
        "Note: 'uniq' does not detect repeated lines unless they are "
        "adjacent.\n"
        "You may want to sort the input first, or use 'sort -u' without "
        "'uniq'.\n",
};

// ORDER UNIQ_DELIM: the --all-repeated and --group words map onto this.
typedef enum uniq_delim {
    UNIQ_NONE,
    UNIQ_PREPEND,
    UNIQ_SEPARATE,
    UNIQ_APPEND,
    UNIQ_BOTH,
} uniq_delim;

typedef struct uniq_conf {
    size_t uc_fields, uc_chars, uc_width; // -f, -s, -w (SIZE_MAX: all)
    bool uc_fields_new;  // -f set uc_fields: a digit option starts anew
    bool uc_unique;      // print groups of one line
    bool uc_first;       // print (the last line of) a repeated group
    bool uc_later;       // -D: print every line of a repeated group
    bool uc_count;       // -c
    bool uc_fold;        // -i
    bool uc_used;        // -c -d -D -u: no --group with them
    uniq_delim uc_all;   // --all-repeated=METHOD
    uniq_delim uc_group; // --group=METHOD (UNIQ_NONE: no --group)
    char uc_eol;
    const char *uc_files[2]; // INPUT, OUTPUT (NULL: stdin, stdout)
    int uc_nfiles;
} uniq_conf;

/* N of -f, -s, -w: digits (spaces or '+' may lead); past SIZE_MAX is
 * SIZE_MAX. Else "uniq: N: WHY", status 1. */
static bool
uniq_size(sh_ctx *cx, const char *arg, const char *why, size_t *out)
{
    const char *s = arg;
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    if (*s == '+')
        s++;
    if (*s < '0' || *s > '9') {
        sh_cmd_err(cx, "uniq", 1, "%s: %s", arg, why);
        return false;
    }
    size_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        size_t d = (size_t)(*s - '0');
        v = v > (SIZE_MAX - d) / 10 ? SIZE_MAX : v * 10 + d;
    }
    if (*s != '\0') {
        sh_cmd_err(cx, "uniq", 1, "%s: %s", arg, why);
        return false;
    }
    *out = v;
    return true;
}

/* One digit of the obsolete -N: digits build one number until -f. */
static void
uniq_digit(uniq_conf *c, char d)
{
    if (c->uc_fields_new)
        c->uc_fields = 0;
    c->uc_fields_new = false;
    size_t v = (size_t)(d - '0');
    c->uc_fields =
        c->uc_fields > (SIZE_MAX - v) / 10 ? SIZE_MAX : c->uc_fields * 10 + v;
}

/*
 * Operands new since *seen: "+N" before "--" is the obsolete -s N (GNU),
 * the rest are INPUT and OUTPUT; a third is an extra operand. Returns 0
 * or the usage status (*st).
 */
static int
uniq_operands(sh_gopt_iter *it, uniq_conf *c, int *seen)
{
    for (int i = *seen; i < it->gi_nops; i++) {
        const char *w = it->gi_ops[i];
        size_t v;
        if (i < it->gi_nplain && w[0] == '+' && w[1] >= '0' && w[1] <= '9' &&
            strspn(w + 1, "0123456789") == strlen(w + 1)) {
            (void)uniq_size(it->gi_cx, w, "", &v);
            c->uc_chars = v;
            continue;
        }
        if (c->uc_nfiles == 2) {
            char *q = sh_gquote(w);
            int st = sh_gopt_usage_error(it, "extra operand %s", q ? q : w);
            box_free(q);
            *seen = it->gi_nops;
            return st;
        }
        c->uc_files[c->uc_nfiles++] = strcmp(w, "-") == 0 ? NULL : w;
    }
    *seen = it->gi_nops;
    return 0;
}

/* One option into c: 0, or the status to end with. */
static int
uniq_option(sh_gopt_iter *it, uniq_conf *c, int id, const char *arg)
{
    static const char *const all_words[] = {"none", "prepend", "separate",
                                            NULL};
    static const int all_vals[] = {UNIQ_NONE, UNIQ_PREPEND, UNIQ_SEPARATE};
    static const char *const group_words[] = {"prepend", "append", "separate",
                                              "both", NULL};
    static const int group_vals[] = {UNIQ_PREPEND, UNIQ_APPEND, UNIQ_SEPARATE,
                                     UNIQ_BOTH};
    sh_ctx *cx = it->gi_cx;
    int st = 0, i;
    switch (id) {
    case 'c':
        c->uc_count = c->uc_used = true;
        break;
    case 'd':
        c->uc_unique = false;
        c->uc_used = true;
        break;
    case 'u':
        c->uc_first = false;
        c->uc_used = true;
        break;
    case 'D':
    case UNIQ_OPT_ALL_REPEATED:
        i = arg == NULL ? 0
                        : sh_gopt_argmatch(it, "--all-repeated", arg, all_words,
                                           all_vals, &st);
        if (i < 0)
            return st;
        c->uc_all = (uniq_delim)all_vals[i];
        c->uc_unique = false;
        c->uc_later = c->uc_used = true;
        break;
    case UNIQ_OPT_GROUP:
        i = arg == NULL ? 2
                        : sh_gopt_argmatch(it, "--group", arg, group_words,
                                           group_vals, &st);
        if (i < 0)
            return st;
        c->uc_group = (uniq_delim)group_vals[i];
        break;
    case 'f':
        if (!uniq_size(cx, arg, "invalid number of fields to skip",
                       &c->uc_fields))
            return 1;
        c->uc_fields_new = true;
        break;
    case 's':
        if (!uniq_size(cx, arg, "invalid number of bytes to skip",
                       &c->uc_chars))
            return 1;
        break;
    case 'w':
        if (!uniq_size(cx, arg, "invalid number of bytes to compare",
                       &c->uc_width))
            return 1;
        break;
    case 'i':
        c->uc_fold = true;
        break;
    case 'z':
        c->uc_eol = '\0';
        break;
    case SH_GOPT_NUMBER:
        for (; *arg; arg++)
            uniq_digit(c, *arg);
        break;
    default:
        uniq_digit(c, (char)id);
        break;
    }
    return 0;
}

/* ---- the run ---- */

typedef struct uniq_run {
    sh_cmd_run ur_run; // first
    const uniq_conf *ur_conf;
    sh_input *ur_in;
    const char *ur_name;
    bool ur_read_failed; // the output so far still goes out
    box_buf ur_line[2];  // the line before and the line read now
    char ur_out[UNIQ_OUT_CHUNK];
    size_t ur_outlen;
} uniq_run;

/* The next line into b (without its delimiter): 1, 0 at the end, -1 to
 * stop (status set). */
static int
uniq_read(uniq_run *r, box_buf *b)
{
    sh_ctx *cx = r->ur_run.cr_cx;
    int rc = sh_check_stop(cx)
                 ? -1
                 : sh_input_record(r->ur_in, r->ur_conf->uc_eol, b);
    if (rc >= 0)
        return rc;
    if (sh_check_stop(cx)) {
        r->ur_run.cr_status = cx->cx_status;
        return -1;
    }
    r->ur_read_failed = true;
    if (rc == -2) {
        r->ur_run.cr_status = sh_cmd_err(cx, "uniq", 1, "memory exhausted");
    } else {
        char q[512];
        sh_cmd_quote_name(q, sizeof q, r->ur_name);
        r->ur_run.cr_status = sh_cmd_err(cx, "uniq", 1, "error reading %s", q);
    }
    return -1;
}

static bool
uniq_flush(uniq_run *r)
{
    bool ok = sh_cmd_emit(&r->ur_run, r->ur_out, r->ur_outlen);
    r->ur_outlen = 0;
    return ok;
}

static bool
uniq_put(uniq_run *r, const char *p, size_t n)
{
    if (r->ur_outlen + n > sizeof r->ur_out) {
        if (!uniq_flush(r))
            return false;
        if (n > sizeof r->ur_out)
            return sh_cmd_emit(&r->ur_run, p, n);
    }
    memcpy(r->ur_out + r->ur_outlen, p, n);
    r->ur_outlen += n;
    return true;
}

static bool
uniq_delimiter(uniq_run *r)
{
    return uniq_put(r, &r->ur_conf->uc_eol, 1);
}

/* The part of a line that is compared: past -f fields and -s bytes, at
 * most -w bytes. Fields are blanks then non-blanks (newline a blank). */
static void
uniq_key(const uniq_conf *c, const box_buf *b, const char **k, size_t *n)
{
    const char *p = b->b_len > 0 ? b->b_data : "";
    size_t len = b->b_len, i = 0;
    for (size_t f = 0; f < c->uc_fields && i < len; f++) {
        while (i < len && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n'))
            i++;
        while (i < len && !(p[i] == ' ' || p[i] == '\t' || p[i] == '\n'))
            i++;
    }
    i += len - i < c->uc_chars ? len - i : c->uc_chars;
    *k = p + i;
    *n = len - i < c->uc_width ? len - i : c->uc_width;
}

static bool
uniq_same(const uniq_conf *c, const box_buf *a, const box_buf *b)
{
    const char *x, *y;
    size_t xn, yn;
    uniq_key(c, a, &x, &xn);
    uniq_key(c, b, &y, &yn);
    if (xn != yn)
        return false;
    if (!c->uc_fold)
        return memcmp(x, y, xn) == 0;
    for (size_t i = 0; i < xn; i++) {
        unsigned char p = (unsigned char)x[i], q = (unsigned char)y[i];
        if (p != q && !((p | 0x20) == (q | 0x20) && (p | 0x20) >= 'a' &&
                        (p | 0x20) <= 'z'))
            return false;
    }
    return true;
}

/*
 * Prints line b when its place in its group is asked for: a group of one
 * (uc_unique), the line that ends a repeated group's printing
 * (uc_first), or a line followed by an equal one (uc_later). repeats is
 * how many equal lines came before the line that follows it.
 */
static bool
uniq_write(uniq_run *r, const box_buf *b, bool match, uintmax_t repeats)
{
    const uniq_conf *c = r->ur_conf;
    bool want = repeats == 0 ? c->uc_unique
                : !match     ? c->uc_first
                             : c->uc_later;
    if (!want)
        return true;
    if (c->uc_count) {
        char n[32];
        int k = snprintf(n, sizeof n, "%7ju ", repeats + 1);
        if (!uniq_put(r, n, (size_t)k))
            return false;
    }
    return uniq_put(r, b->b_len > 0 ? b->b_data : "", b->b_len) &&
           uniq_delimiter(r);
}

/* --group: every line, a delimiter where groups meet (and before the
 * first or after the last, as the METHOD says). */
static bool
uniq_grouped(uniq_run *r)
{
    const uniq_conf *c = r->ur_conf;
    box_buf *prev = &r->ur_line[0], *cur = &r->ur_line[1];
    int rc;
    bool first = true;
    while ((rc = uniq_read(r, cur)) > 0) {
        bool start = first || !uniq_same(c, prev, cur);
        bool lead = c->uc_group == UNIQ_PREPEND || c->uc_group == UNIQ_BOTH;
        if (start && (!first || lead) && !uniq_delimiter(r))
            return false;
        if (!uniq_put(r, cur->b_len > 0 ? cur->b_data : "", cur->b_len) ||
            !uniq_delimiter(r))
            return false;
        box_buf *t = prev;
        prev = cur;
        cur = t;
        first = false;
    }
    if (rc == 0 && !first &&
        (c->uc_group == UNIQ_APPEND || c->uc_group == UNIQ_BOTH))
        return uniq_delimiter(r);
    return rc == 0;
}

/*
 * The filter. prev is the line a group is compared with and printed
 * from: the group's first line, or with -D each line in turn (so that
 * every line of a repeated group is printed). -D's METHOD puts a
 * delimiter before a repeated group (prepend) or between two (separate).
 */
static bool
uniq_filter(uniq_run *r)
{
    const uniq_conf *c = r->ur_conf;
    box_buf *prev = &r->ur_line[0], *cur = &r->ur_line[1];
    int rc = uniq_read(r, prev);
    if (rc <= 0)
        return rc == 0;
    uintmax_t repeats = 0;
    bool first_group = true;
    while ((rc = uniq_read(r, cur)) > 0) {
        bool match = uniq_same(c, prev, cur);
        repeats += match;
        if (!match && repeats > 0)
            first_group = false;
        if (match && repeats == 1 &&
            (c->uc_all == UNIQ_PREPEND ||
             (c->uc_all == UNIQ_SEPARATE && !first_group)))
            if (!uniq_delimiter(r))
                return false;
        if (!match || c->uc_later) {
            if (!uniq_write(r, prev, match, repeats))
                return false;
            box_buf *t = prev;
            prev = cur;
            cur = t;
            if (!match)
                repeats = 0;
        }
    }
    return rc == 0 && uniq_write(r, prev, false, repeats);
}

/* Opens INPUT and OUTPUT (in that order, as GNU), then filters. */
static int
uniq_main(sh_ctx *cx, const uniq_conf *c)
{
    int st;
    sh_stream *saved = NULL;
    bool redirected = false;
    uniq_run *r = box_calloc(1, sizeof *r);
    if (r == NULL)
        return sh_cmd_err(cx, "uniq", 1, "memory exhausted");
    r->ur_run.cr_cx = cx;
    r->ur_run.cr_cmd = "uniq";
    r->ur_conf = c;
    r->ur_name = c->uc_files[0] != NULL ? c->uc_files[0] : "-";
    box_buf_init(&r->ur_line[0], UNIQ_LINE_MAX);
    box_buf_init(&r->ur_line[1], UNIQ_LINE_MAX);
    r->ur_in = sh_input_open(cx, "uniq", c->uc_files[0], &st);
    if (r->ur_in == NULL)
        goto out;
    sh_input_quiet(r->ur_in);
    if (c->uc_files[1] != NULL) {
        if ((st = sh_cmd_output_begin(cx, "uniq", c->uc_files[1], &saved)) != 0)
            goto out;
        redirected = true;
    }
    bool ok = c->uc_group != UNIQ_NONE ? uniq_grouped(r) : uniq_filter(r);
    // What was read before a read error is still written, as GNU does.
    // A call being torn down (its writer upstream stopped, so this saw the
    // end) writes nothing more.
    int failed = r->ur_run.cr_status;
    if ((ok || r->ur_read_failed) && sh_cmd_live(&r->ur_run) &&
        uniq_flush(r))
        r->ur_run.cr_status = failed;
    st = r->ur_run.cr_status;
out:
    if (redirected)
        sh_cmd_output_end(cx, saved);
    sh_input_close(r->ur_in);
    box_buf_reset(&r->ur_line[0]);
    box_buf_reset(&r->ur_line[1]);
    box_free(r);
    return st;
}

int
sh_cmd_uniq(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &uniq_spec, argc, argv);
    uniq_conf c = {
        .uc_width = SIZE_MAX,
        .uc_unique = true,
        .uc_first = true,
        .uc_eol = '\n',
    };
    const char *arg;
    int id, st = 0, seen = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) != SH_GOPT_EXIT) {
        if ((st = uniq_operands(&it, &c, &seen)) != 0 || id == SH_GOPT_END)
            break;
        if ((st = uniq_option(&it, &c, id, arg)) != 0)
            break;
    }
    if (id == SH_GOPT_EXIT || st != 0)
        goto out;
    if (c.uc_group != UNIQ_NONE && c.uc_used) {
        st = sh_gopt_usage_error(
            &it, "--group is mutually exclusive with -c/-d/-D/-u");
        goto out;
    }
    if (c.uc_count && c.uc_later) {
        st = sh_gopt_usage_error(&it, "printing all duplicated lines and "
                                      "repeat counts is meaningless");
        goto out;
    }
    st = uniq_main(cx, &c);
out:
    sh_gopt_free(&it);
    return st;
}
