/* SPDX-License-Identifier: Apache-2.0 */
/* grep: GNU grep 3.8's options and exit statuses; the patterns (-e, -f,
 * the first operand) and the walk over the operands. */
#include <errno.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_grep.h"
#include "sh_gopt.h"

extern const char grep_help_text[];

enum {
    OPT_NO_ICASE = SH_GOPT_LONG_ONLY,
    OPT_LINE_BUF,
    OPT_LABEL,
    OPT_BINFILES,
    OPT_INCLUDE,
    OPT_EXCLUDE,
    OPT_EXCLUDE_FROM,
    OPT_EXCLUDE_DIR,
    OPT_COLOR,
    OPT_GROUP_SEP,
    OPT_NO_GROUP_SEP,
};

// GNU grep's order: an ambiguous long name lists the candidates so.
static const sh_gopt grep_opts[] = {
    {'G', "basic-regexp", SH_GARG_NONE},
    {'E', "extended-regexp", SH_GARG_NONE},
    {'F', "fixed-regexp", SH_GARG_NONE},
    {'F', "fixed-strings", SH_GARG_NONE},
    {'P', "perl-regexp", SH_GARG_NONE},
    {'A', "after-context", SH_GARG_REQ},
    {'B', "before-context", SH_GARG_REQ},
    {OPT_BINFILES, "binary-files", SH_GARG_REQ},
    {'b', "byte-offset", SH_GARG_NONE},
    {'C', "context", SH_GARG_REQ},
    {OPT_COLOR, "color", SH_GARG_OPT},
    {OPT_COLOR, "colour", SH_GARG_OPT},
    {'c', "count", SH_GARG_NONE},
    {'D', "devices", SH_GARG_REQ},
    {'d', "directories", SH_GARG_REQ},
    {'R', "dereference-recursive", SH_GARG_NONE},
    {OPT_EXCLUDE, "exclude", SH_GARG_REQ},
    {OPT_EXCLUDE_FROM, "exclude-from", SH_GARG_REQ},
    {OPT_EXCLUDE_DIR, "exclude-dir", SH_GARG_REQ},
    {'f', "file", SH_GARG_REQ},
    {'l', "files-with-matches", SH_GARG_NONE},
    {'L', "files-without-match", SH_GARG_NONE},
    {OPT_GROUP_SEP, "group-separator", SH_GARG_REQ},
    {OPT_INCLUDE, "include", SH_GARG_REQ},
    {'i', "ignore-case", SH_GARG_NONE},
    {OPT_NO_ICASE, "no-ignore-case", SH_GARG_NONE},
    {'T', "initial-tab", SH_GARG_NONE},
    {OPT_LABEL, "label", SH_GARG_REQ},
    {OPT_LINE_BUF, "line-buffered", SH_GARG_NONE},
    {'n', "line-number", SH_GARG_NONE},
    {'x', "line-regexp", SH_GARG_NONE},
    {'m', "max-count", SH_GARG_REQ},
    {'h', "no-filename", SH_GARG_NONE},
    {OPT_NO_GROUP_SEP, "no-group-separator", SH_GARG_NONE},
    {'s', "no-messages", SH_GARG_NONE},
    {'Z', "null", SH_GARG_NONE},
    {'z', "null-data", SH_GARG_NONE},
    {'o', "only-matching", SH_GARG_NONE},
    {'q', "quiet", SH_GARG_NONE},
    {'r', "recursive", SH_GARG_NONE},
    {'e', "regexp", SH_GARG_REQ},
    {'v', "invert-match", SH_GARG_NONE},
    {'q', "silent", SH_GARG_NONE},
    {'a', "text", SH_GARG_NONE},
    {'U', "binary", SH_GARG_NONE},
    {'H', "with-filename", SH_GARG_NONE},
    {'w', "word-regexp", SH_GARG_NONE},
    {'y', NULL, SH_GARG_NONE},
    {'V', NULL, SH_GARG_NONE},
    {'I', NULL, SH_GARG_NONE},
    {'X', NULL, SH_GARG_REQ}, // GNU's undocumented -X MATCHER
    SH_GOPT_DIGIT_ROWS,
    {0},
};

static const sh_gopt_spec grep_spec = {
    .gs_cmd = "grep",
    .gs_opts = grep_opts,
    .gs_flags = SH_GOPT_F_NUMBER,
    .gs_fail = 2,
    .gs_usage = "Usage: grep [OPTION]... PATTERNS [FILE]...",
    .gs_help = grep_help_text,
};

/* Option parsing state that does not outlive the parse. */
typedef struct grep_args {
    char a_matcher;        // 'G' 'E' 'F' 'P' once one was given
    bool a_context_set[2]; // -A / -B given on their own (beat -C / -NUM)
    uintmax_t a_context;   // -C / -NUM
    bool a_has_context;
    char a_digits[32]; // -NUM being read
    int a_digit_word;  // the argv word the digits are in
    bool a_any_pat;    // -e or -f given
} grep_args;

/* NUM of -A -B -C -NUM: digits (a huge value is "all"); else GNU's
 * "invalid context length argument". */
static int
context_num(grep *g, const char *s, uintmax_t *out)
{
    char sign;
    if (!sh_cmd_count(s, out, &sign) || sign != 0)
        return sh_cmd_err(g->g_cx, "grep", 2,
                          "%s: invalid context length argument", s);
    return 0;
}

/* NUM of -m: a negative count is no limit (GNU 3.8). */
static int
max_num(grep *g, const char *s)
{
    const char *p = s;
    bool neg = *p == '-';
    if (*p == '-' || *p == '+')
        p++;
    uintmax_t v;
    char sign;
    if (*p == '\0' || !sh_cmd_count(p, &v, &sign) || sign != 0)
        return sh_cmd_err(g->g_cx, "grep", 2, "invalid max count");
    g->g_has_max = !neg;
    g->g_max = v;
    return 0;
}

static int
add_pattern(grep *g, const char *p, size_t n, bool from_file)
{
    box_err rv = box_buf_append(&g->g_pats, p, n);
    // A file's last line needs no newline; -e's argument always ends one.
    if (rv == BOX_OK && (!from_file || (n > 0 && p[n - 1] != '\n')))
        rv = box_buf_putc(&g->g_pats, '\n');
    if (rv != BOX_OK)
        return sh_cmd_err(g->g_cx, "grep", 2, "%s",
                          rv == BOX_ETOOBIG ? "patterns too large"
                                            : "out of memory");
    return 0;
}

/* All of FILE (-f, --exclude-from) through the kernel ("-": stdin) into
 * all: 0, or the status after the message. */
static int
read_whole(grep *g, const char *file, box_buf *all)
{
    int st;
    sh_input *in = sh_input_open(g->g_cx, "grep", file, &st);
    if (in == NULL)
        return st == BOX_STATUS_FAULT ? st : 2;
    char *chunk = box_alloc(GREP_CHUNK);
    st = chunk == NULL ? sh_cmd_err(g->g_cx, "grep", 2, "out of memory") : 0;
    while (st == 0) {
        if (sh_check_stop(g->g_cx)) {
            st = g->g_cx->cx_status;
            break;
        }
        ssize_t n = sh_input_read(in, chunk, GREP_CHUNK);
        if (n < 0) {
            st = sh_check_stop(g->g_cx) ? g->g_cx->cx_status : 2;
            break;
        }
        if (n == 0)
            break;
        if (box_buf_append(all, chunk, (size_t)n) != BOX_OK)
            st = sh_cmd_err(g->g_cx, "grep", 2, "%s: too large", file);
    }
    box_free(chunk);
    sh_input_close(in);
    return st;
}

/* -f FILE: its lines are patterns. */
static int
pattern_file(grep *g, const char *file)
{
    box_buf all;
    box_buf_init(&all, GREP_PAT_MAX);
    int st = read_whole(g, file, &all);
    if (st == 0 && all.b_len > 0)
        st = add_pattern(g, all.b_data, all.b_len, true);
    box_buf_reset(&all);
    return st;
}

static int add_glob(grep *g, const char *pat, bool include, bool dir);

/* --exclude-from=FILE: each non-empty line an --exclude glob. The text
 * is kept (g_owned) for as long as the globs point into it. */
static int
exclude_from(grep *g, const char *file)
{
    box_buf all;
    box_buf_init(&all, GREP_PAT_MAX);
    int st = read_whole(g, file, &all);
    char **owned =
        st == 0 ? box_realloc(g->g_owned, (g->g_nowned + 1) * sizeof *owned)
                : NULL;
    if (st == 0 && owned == NULL)
        st = sh_cmd_err(g->g_cx, "grep", 2, "out of memory");
    if (st != 0) {
        box_buf_reset(&all);
        return st;
    }
    g->g_owned = owned;
    size_t len = all.b_len;
    char *text = box_buf_take(&all);
    if (text == NULL)
        return sh_cmd_err(g->g_cx, "grep", 2, "out of memory");
    g->g_owned[g->g_nowned++] = text;
    for (char *p = text, *end = text + len; p < end && st == 0;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        if (nl == NULL)
            nl = end;
        *nl = '\0';
        if (nl > p)
            st = add_glob(g, p, false, false);
        p = nl + 1;
    }
    return st;
}

static int
add_glob(grep *g, const char *pat, bool include, bool dir)
{
    grep_glob *n = box_realloc(g->g_globs, (g->g_nglobs + 1) * sizeof *n);
    if (n == NULL)
        return sh_cmd_err(g->g_cx, "grep", 2, "out of memory");
    g->g_globs = n;
    if (!dir) {
        bool first = true;
        for (size_t i = 0; i < g->g_nglobs; i++)
            first &= n[i].gg_dir;
        if (first)
            g->g_has_include = include;
    }
    n[g->g_nglobs++] = (grep_glob){pat, include, dir};
    return 0;
}

static int
set_matcher(grep *g, grep_args *a, char m)
{
    if (a->a_matcher != 0 && a->a_matcher != m)
        return sh_cmd_err(g->g_cx, "grep", 2, "conflicting matchers specified");
    a->a_matcher = m;
    g->g_mode = m == 'E'   ? GREP_ERE
                : m == 'F' ? GREP_FIXED
                : m == 'P' ? GREP_PCRE
                           : GREP_BRE;
    return 0;
}

/* --color[=WHEN]: always (yes, force), never (no, none), auto (tty,
 * if-tty); the box's stdout is never a terminal, so auto is never. */
static int
set_color(grep *g, const char *arg)
{
    static const char *const on[] = {"always", "yes", "force", NULL};
    static const char *const off[] = {"never", "no",     "none", "auto",
                                      "tty",   "if-tty", NULL};
    if (arg == NULL) {
        g->g_color = false;
        return 0;
    }
    for (size_t i = 0; on[i]; i++)
        if (strcasecmp(arg, on[i]) == 0) {
            g->g_color = true;
            return 0;
        }
    for (size_t i = 0; off[i]; i++)
        if (strcasecmp(arg, off[i]) == 0) {
            g->g_color = false;
            return 0;
        }
    (void)sh_puts(g->g_cx, 2, grep_help_text);
    return 2;
}

static int
version(grep *g)
{
    char line[256];
    snprintf(line, sizeof line,
             "grep (strands-shell) %s\nThe box's own grep: every file it "
             "touches is decided by policy.\n",
             BOX_VERSION);
    (void)sh_puts(g->g_cx, 1, line);
    return -1;
}

/* The options that only turn a flag on or off: a row each. */
typedef struct grep_flag {
    int gf_id;
    size_t gf_off; // offsetof(grep, the bool)
    bool gf_val;
} grep_flag;

#define GF(id, field, val)                                                     \
    {                                                                          \
        id, offsetof(grep, field), val                                         \
    }
static const grep_flag grep_flags[] = {
    GF('i', g_icase, true),
    GF('y', g_icase, true),
    GF(OPT_NO_ICASE, g_icase, false),
    GF('w', g_word, true),
    GF('x', g_line, true),
    GF('s', g_nomsg, true),
    GF('v', g_invert, true),
    GF('b', g_byte, true),
    GF('n', g_num, true),
    GF('o', g_only, true),
    GF('q', g_quiet, true),
    GF('c', g_count, true),
    GF('T', g_tab, true),
    GF('Z', g_null, true),
};

/* One option; 0 to go on, -1 to end with status 0, else the status. */
static int
grep_option(grep *g, grep_args *a, sh_gopt_iter *it, int id, const char *arg)
{
    static const char *const dirs[] = {"read", "recurse", "skip", NULL};
    static const int dir_vals[] = {0, 1, 2};
    int st = 0;
    if (id < '0' || id > '9')
        a->a_digit_word = -1;
    for (size_t i = 0; i < sizeof grep_flags / sizeof *grep_flags; i++) {
        if (grep_flags[i].gf_id == id) {
            *(bool *)((char *)g + grep_flags[i].gf_off) = grep_flags[i].gf_val;
            return 0;
        }
    }
    switch (id) {
    case 'E':
    case 'F':
    case 'G':
    case 'P':
        return set_matcher(g, a, (char)id);
    case 'X': {
        static const char *const names[] = {"grep", "egrep", "fgrep", "perl"};
        for (size_t i = 0; i < 4; i++)
            if (strcmp(arg, names[i]) == 0)
                return set_matcher(g, a, "GEFP"[i]);
        return sh_cmd_err(g->g_cx, "grep", 2, "invalid matcher %s", arg);
    }
    case 'e':
        a->a_any_pat = true;
        return add_pattern(g, arg, strlen(arg), false);
    case 'f':
        a->a_any_pat = true;
        return pattern_file(g, arg);
    case 'i':
    case 'z':
        g->g_eol = '\0';
        return 0;
    case 'V':
        return version(g);
    case 'm':
        return max_num(g, arg);
    case 'H':
        g->g_names = 1;
        return 0;
    case 'h':
        g->g_names = 0;
        return 0;
    case OPT_LABEL:
        g->g_label = arg;
        return 0;
    case OPT_BINFILES:
        if (strcmp(arg, "binary") == 0)
            g->g_bin = GREP_BIN_BINARY;
        else if (strcmp(arg, "text") == 0)
            g->g_bin = GREP_BIN_TEXT;
        else if (strcmp(arg, "without-match") == 0)
            g->g_bin = GREP_BIN_WITHOUT;
        else
            return sh_cmd_err(g->g_cx, "grep", 2, "unknown binary-files type");
        return 0;
    case 'a':
        g->g_bin = GREP_BIN_TEXT;
        return 0;
    case 'I':
        g->g_bin = GREP_BIN_WITHOUT;
        return 0;
    case 'd': {
        int k = sh_gopt_argmatch(it, "--directories", arg, dirs, dir_vals, &st);
        if (k < 0)
            return st;
        g->g_dirs = k == 0   ? GREP_DIR_READ
                    : k == 1 ? GREP_DIR_RECURSE
                             : GREP_DIR_SKIP;
        return 0;
    }
    case 'D':
        if (strcmp(arg, "read") == 0)
            g->g_dev_skip = false;
        else if (strcmp(arg, "skip") == 0)
            g->g_dev_skip = true;
        else
            return sh_cmd_err(g->g_cx, "grep", 2, "unknown devices method");
        return 0;
    case 'r':
        g->g_dirs = GREP_DIR_RECURSE;
        g->g_deref = false;
        return 0;
    case 'R':
        g->g_dirs = GREP_DIR_RECURSE;
        g->g_deref = true;
        return 0;
    case OPT_INCLUDE:
        return add_glob(g, arg, true, false);
    case OPT_EXCLUDE:
        return add_glob(g, arg, false, false);
    case OPT_EXCLUDE_DIR:
        return add_glob(g, arg, false, true);
    case OPT_EXCLUDE_FROM:
        return exclude_from(g, arg);
    case 'L':
        g->g_list_not = true;
        g->g_list = false;
        return 0;
    case 'l':
        g->g_list = true;
        g->g_list_not = false;
        return 0;
    case 'A':
    case 'B': {
        uintmax_t v;
        if ((st = context_num(g, arg, &v)) != 0)
            return st;
        *(id == 'A' ? &g->g_after : &g->g_before) = v;
        a->a_context_set[id == 'B'] = true;
        g->g_context = true;
        return 0;
    }
    case 'C':
        a->a_has_context = true;
        return context_num(g, arg, &a->a_context);
    case SH_GOPT_NUMBER:
        a->a_has_context = true;
        return context_num(g, arg, &a->a_context);
    case OPT_COLOR:
        return set_color(g, arg);
    case OPT_GROUP_SEP:
        g->g_sep = arg;
        return 0;
    case OPT_NO_GROUP_SEP:
        g->g_sep = NULL;
        return 0;
    case OPT_LINE_BUF:
    case 'U':
        return 0;
    default:
        break;
    }
    if (id >= '0' && id <= '9') {
        // Digits of one word make one number (-12); a new word restarts.
        size_t l = a->a_digit_word == it->gi_i ? strlen(a->a_digits) : 0;
        if (l + 1 < sizeof a->a_digits) {
            a->a_digits[l] = (char)id;
            a->a_digits[l + 1] = '\0';
        }
        a->a_digit_word = it->gi_i;
        a->a_has_context = true;
        return context_num(g, a->a_digits, &a->a_context);
    }
    return 0;
}

static void
grep_free(grep *g)
{
    grep_match_free(g->g_m);
    box_buf_reset(&g->g_pats);
    box_free(g->g_globs);
    for (size_t i = 0; i < g->g_nowned; i++)
        box_free(g->g_owned[i]);
    box_free(g->g_owned);
    box_free(g->g_out);
    box_free(g->g_buf);
}

/* Runs every operand: 0 a line selected, 1 none, 2 an error anywhere. */
static int
grep_operands(grep *g, int nops, char **ops)
{
    bool any = false;
    bool implicit = nops == 0 && g->g_dirs == GREP_DIR_RECURSE;
    g->g_implicit = implicit;
    int n = nops > 0 ? nops : 1;
    for (int i = 0; i < n && !g->g_done; i++) {
        const char *op = nops > 0 ? ops[i] : implicit ? "." : NULL;
        int st = grep_walk_operand(g, op, implicit);
        any |= st == 0;
        g->g_err |= st == 2;
    }
    if (g->g_done)
        return g->g_final;
    if (g->g_err && !(g->g_quiet && any))
        return 2;
    return any ? 0 : 1;
}

int
sh_cmd_grep(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    grep g = {.g_cx = cx, .g_names = -1, .g_eol = '\n', .g_sep = "--"};
    grep_args a = {.a_digit_word = -1};
    box_buf_init(&g.g_pats, GREP_PAT_MAX);
    sh_gopt_iter it;
    int st = 0, id;
    const char *arg;
    sh_gopt_init(&it, cx, &grep_spec, argc, argv);
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if ((st = grep_option(&g, &a, &it, id, arg)) != 0)
            break;
    }
    if (id == SH_GOPT_EXIT || st != 0) {
        st = st < 0 ? 0 : st;
        goto out;
    }
    int first = 0;
    if (!a.a_any_pat) {
        if (it.gi_nops == 0) {
            st = sh_gopt_try(&it);
            goto out;
        }
        if ((st = add_pattern(&g, it.gi_ops[0], strlen(it.gi_ops[0]), false)) !=
            0)
            goto out;
        first = 1;
    }
    if (a.a_has_context) {
        if (!a.a_context_set[0])
            g.g_after = a.a_context;
        if (!a.a_context_set[1])
            g.g_before = a.a_context;
    }
    g.g_context |= a.a_has_context; // even 0: GNU then separates groups
    int nops = it.gi_nops - first;
    if (g.g_names < 0)
        g.g_names = nops > 1 ? 1 : g.g_dirs == GREP_DIR_RECURSE ? 2 : 0;
    if (g.g_has_max && g.g_max == 0) {
        st = 1; // GNU stops before reading anything
        goto out;
    }
    // No pattern at all (-f /dev/null) matches nothing: GNU stops before
    // reading too, unless -v makes every line match or -L lists files.
    if (g.g_pats.b_len == 0 && !g.g_invert && !g.g_list_not) {
        st = 1;
        goto out;
    }
    if ((st = grep_match_compile(&g)) != 0)
        goto out;
    if ((g.g_out = box_alloc(GREP_OUT_CAP)) == NULL) {
        st = sh_cmd_err(cx, "grep", 2, "out of memory");
        goto out;
    }
    // No operand at all leaves gi_ops NULL: no offset may be applied.
    st = grep_operands(&g, nops, nops > 0 ? it.gi_ops + first : NULL);
    if (!g.g_done)
        (void)grep_out_flush(&g);
    if (g.g_done && st == 0 && g.g_olen > 0)
        (void)grep_out_flush(&g);
out:
    sh_gopt_free(&it);
    grep_free(&g);
    return st;
}
