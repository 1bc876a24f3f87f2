/* SPDX-License-Identifier: Apache-2.0 */
/* grep: print the lines of files (or stdin) that match any of the patterns. */
#include <ctype.h>
#include <regex.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_internal.h"

#define GREP_OUT_CAP (64u * 1024u) // output gathered before one write
#define GREP_STDIN_NAME "(standard input)"

/*
 * One run of grep. It owns the pattern copy, the compiled expressions,
 * a scratch line (-F -i folding, or a NUL-terminated copy where regexec
 * lacks REG_STARTEND) and the pending output; grep_free releases them
 * all, whatever state setup reached. It never touches a file except
 * through sh_input, so every open asks policy (fs:read read_content).
 */
typedef struct grep_fixed {
    const char *gf_s; // a view into g_pats
    size_t gf_len;
} grep_fixed;

typedef struct grep {
    sh_ctx *g_cx;
    bool g_fixed, g_icase, g_invert, g_count, g_list, g_num, g_quiet;
    bool g_names;      // prefix lines with the file name
    char *g_pats;      // every pattern, '\n' turned to NUL
    size_t g_npat;     // patterns in g_pats
    grep_fixed *g_fix; // -F: one view per pattern
    regex_t *g_re;     // otherwise: one expression per pattern
    size_t g_nre;      // expressions compiled (for regfree)
    char *g_scratch;   // a working copy of the line, grown as needed
    size_t g_scap;
    char *g_out; // pending stdout bytes
    size_t g_olen;
    bool g_done; // stop everything and return g_final
    int g_final;
} grep;

/* ---- output ---- */

/*
 * Ends the run after a failed write: a reader that went away (or spent
 * output) already set the context's flow and status, so the run returns
 * that quietly; a bad fd is reported like GNU grep (status 2).
 */
static void
out_failed(grep *g)
{
    g->g_done = true;
    if (g->g_cx->cx_flow != SH_FLOW_NONE) {
        g->g_final = g->g_cx->cx_status;
        return;
    }
    g->g_final =
        sh_cmd_err(g->g_cx, "grep", 2, "write error: Bad file descriptor");
}

static bool
out_flush(grep *g)
{
    if (g->g_olen == 0)
        return true;
    int rc = sh_write(g->g_cx, 1, g->g_out, g->g_olen);
    g->g_olen = 0;
    if (rc != SH_IO_OK) {
        out_failed(g);
        return false;
    }
    return true;
}

/* Queues n bytes; a piece larger than the buffer goes out directly. */
static bool
out_put(grep *g, const char *p, size_t n)
{
    if (g->g_olen + n > GREP_OUT_CAP && !out_flush(g))
        return false;
    if (n >= GREP_OUT_CAP) {
        if (sh_write(g->g_cx, 1, p, n) != SH_IO_OK) {
            out_failed(g);
            return false;
        }
        return true;
    }
    memcpy(g->g_out + g->g_olen, p, n);
    g->g_olen += n;
    return true;
}

/* "<name><sep>" when file names are shown. */
static bool
out_name(grep *g, const char *name, char sep)
{
    if (!g->g_names)
        return true;
    return out_put(g, name, strlen(name)) && out_put(g, &sep, 1);
}

static bool
out_num(grep *g, unsigned long long v, const char *tail)
{
    char num[32];
    int k = snprintf(num, sizeof num, "%llu%s", v, tail);
    return out_put(g, num, (size_t)k);
}

/* A selected line: [name:][num:]text, always ending in a newline. */
static bool
out_line(grep *g, const char *name, unsigned long long lineno, const char *line,
         size_t len)
{
    return out_name(g, name, ':') && (!g->g_num || out_num(g, lineno, ":")) &&
           out_put(g, line, len) && out_put(g, "\n", 1);
}

/* ---- patterns ---- */

/*
 * Every -e argument in order. The registry's parser already validated
 * argv[1..o_ind) but keeps only the last argument of a repeated option,
 * so this walks the same words again (no error can occur here) and also
 * notes which of -H / -h came last, since the last one wins as in GNU.
 * Returns the count; args (argc entries) receives the patterns.
 */
static size_t
scan_opts(int argc, char **argv, const sh_opts *o, const char **args,
          char *last_h)
{
    size_t n = 0;
    for (int i = 1; i < o->o_ind && i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        for (const char *p = argv[i] + 1; *p; p++) {
            if (*p == 'H' || *p == 'h')
                *last_h = *p;
            if (*p != 'e')
                continue;
            if (p[1] != '\0')
                args[n++] = p + 1;
            else if (i + 1 < argc)
                args[n++] = argv[++i];
            break;
        }
    }
    return n;
}

/*
 * Joins the pattern arguments with newlines and splits the result into
 * NUL-terminated patterns: a newline inside an argument separates
 * patterns too (GNU grep), so "a\n" is "a" and the empty pattern.
 */
static box_err
patterns_take(grep *g, const char *const *args, size_t nargs)
{
    size_t total = 0;
    for (size_t i = 0; i < nargs; i++)
        total += strlen(args[i]) + 1;
    if ((g->g_pats = box_alloc(total)) == NULL)
        return BOX_ENOMEM;
    char *w = g->g_pats;
    for (size_t i = 0; i < nargs; i++) {
        size_t l = strlen(args[i]);
        memcpy(w, args[i], l);
        w[l] = '\n';
        w += l + 1;
    }
    g->g_npat = 0;
    for (size_t i = 0; i < total; i++) {
        if (g->g_pats[i] == '\n') {
            g->g_pats[i] = '\0';
            g->g_npat++;
        }
    }
    return BOX_OK;
}

/* -F: views over the patterns, folded to lower case for -i. */
static int
patterns_fixed(grep *g)
{
    if ((g->g_fix = box_calloc(g->g_npat, sizeof *g->g_fix)) == NULL)
        return sh_cmd_err(g->g_cx, "grep", 2, "out of memory");
    char *p = g->g_pats;
    for (size_t i = 0; i < g->g_npat; i++) {
        size_t l = strlen(p);
        if (g->g_icase)
            for (size_t k = 0; k < l; k++)
                p[k] = (char)tolower((unsigned char)p[k]);
        g->g_fix[i] = (grep_fixed){p, l};
        p += l + 1;
    }
    return 0;
}

/*
 * Compiles each pattern (basic, or extended with -E). REG_NOSUB always
 * fits: grep only asks whether a line matches, never where, and glibc
 * still honours back-references under it. A bad pattern is reported
 * with regerror's text.
 */
static int
patterns_regex(grep *g, bool extended)
{
    int flags = REG_NOSUB | (extended ? REG_EXTENDED : 0) |
                (g->g_icase ? REG_ICASE : 0);
    if ((g->g_re = box_calloc(g->g_npat, sizeof *g->g_re)) == NULL)
        return sh_cmd_err(g->g_cx, "grep", 2, "out of memory");
    const char *p = g->g_pats;
    for (size_t i = 0; i < g->g_npat; i++) {
        int rc = regcomp(&g->g_re[i], p, flags);
        if (rc != 0) {
            char msg[256];
            regerror(rc, &g->g_re[i], msg, sizeof msg);
            return sh_cmd_err(g->g_cx, "grep", 2, "%s", msg);
        }
        g->g_nre++;
        p += strlen(p) + 1;
    }
    return 0;
}

/* ---- matching ---- */

/* Makes g_scratch hold at least n bytes; false after the message. */
static bool
scratch_reserve(grep *g, size_t n)
{
    if (n <= g->g_scap)
        return true;
    size_t cap = g->g_scap ? g->g_scap : 256;
    while (cap < n)
        cap *= 2;
    char *s = box_realloc(g->g_scratch, cap);
    if (s == NULL) {
        g->g_done = true;
        g->g_final = sh_cmd_err(g->g_cx, "grep", 2, "out of memory");
        return false;
    }
    g->g_scratch = s;
    g->g_scap = cap;
    return true;
}

/* -F: 1 when some pattern occurs in the line, 0 when none, -1 on error. */
static int
match_fixed(grep *g, const char *line, size_t len)
{
    if (g->g_icase) {
        if (!scratch_reserve(g, len + 1))
            return -1;
        for (size_t k = 0; k < len; k++)
            g->g_scratch[k] = (char)tolower((unsigned char)line[k]);
        line = g->g_scratch;
    }
    for (size_t i = 0; i < g->g_npat; i++) {
        const grep_fixed *f = &g->g_fix[i];
        if (f->gf_len == 0 || memmem(line, len, f->gf_s, f->gf_len) != NULL)
            return 1;
    }
    return 0;
}

/*
 * REG_STARTEND bounds the subject, so a line needs neither a copy nor a
 * NUL, and NUL bytes inside it are ordinary characters. Two cases copy
 * the line into g_scratch with a NUL after it all the same: a libc
 * without REG_STARTEND (the line then ends at its first NUL), and
 * AddressSanitizer builds, whose regexec interceptor runs strlen over
 * the subject even under REG_STARTEND and would read past the line.
 */
#if !defined(REG_STARTEND) || defined(__SANITIZE_ADDRESS__)
#define GREP_COPY_SUBJECT 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GREP_COPY_SUBJECT 1
#endif
#endif

/* The string regexec reads for this line; NULL after an error. */
static const char *
regex_subject(grep *g, const char *line, size_t len)
{
#ifdef GREP_COPY_SUBJECT
    if (!scratch_reserve(g, len + 1))
        return NULL;
    memcpy(g->g_scratch, line, len);
    g->g_scratch[len] = '\0';
    return g->g_scratch;
#else
    return line;
#endif
}

static int
regex_exec(const regex_t *re, const char *subject, size_t len)
{
#ifdef REG_STARTEND
    regmatch_t m = {.rm_so = 0, .rm_eo = (regoff_t)len};
    return regexec(re, subject, 1, &m, REG_STARTEND);
#else
    return regexec(re, subject, 0, NULL, 0);
#endif
}

/* 1 when some expression matches the line, 0 when none, -1 on error. */
static int
match_regex(grep *g, const char *line, size_t len)
{
    const char *subject = regex_subject(g, line, len);
    if (subject == NULL)
        return -1;
    for (size_t i = 0; i < g->g_nre; i++) {
        int rc = regex_exec(&g->g_re[i], subject, len);
        if (rc == 0)
            return 1;
        if (rc != REG_NOMATCH) {
            char msg[256];
            regerror(rc, &g->g_re[i], msg, sizeof msg);
            g->g_done = true;
            g->g_final = sh_cmd_err(g->g_cx, "grep", 2, "%s", msg);
            return -1;
        }
    }
    return 0;
}

/* Whether the line (terminator excluded) is selected; -1 on error. */
static int
selected(grep *g, const char *line, size_t len)
{
    int m = g->g_fixed ? match_fixed(g, line, len) : match_regex(g, line, len);
    if (m < 0)
        return -1;
    return (m == 1) != g->g_invert;
}

/* ---- files ---- */

/* True when the call must stop now (deadline, abort, unwinding). */
static bool
grep_stopped(grep *g)
{
    if (!sh_check_stop(g->g_cx))
        return false;
    g->g_done = true;
    g->g_final = g->g_cx->cx_status;
    return true;
}

/* What -l and -c print once a file is read; -l wins over -c (GNU). */
static bool
grep_summary(grep *g, const char *name, unsigned long long count)
{
    if (g->g_quiet)
        return true; // a selected line already ended the run
    if (g->g_list)
        return count == 0 ||
               (out_put(g, name, strlen(name)) && out_put(g, "\n", 1));
    if (g->g_count)
        return out_name(g, name, ':') && out_num(g, count, "\n");
    return true;
}

/*
 * Reads one open input to its end (or to the first selected line for
 * -l and -q) and prints what the flags ask for. Returns 0 when a line
 * was selected, 1 when none, 2 on a read error; g_done is set when the
 * whole run must stop (-q matched, a write failed, the call stops).
 */
static int
grep_input(grep *g, sh_input *in, const char *name)
{
    unsigned long long lineno = 0, count = 0;
    bool at_start = true; // the piece read next begins a line
    const char *line;
    size_t len;
    int rc;
    while ((rc = sh_input_line(in, &line, &len)) == 1) {
        if (grep_stopped(g))
            return 2;
        bool whole = len > 0 && line[len - 1] == '\n';
        size_t body = whole ? len - 1 : len;
        // A line past SH_LINE_MAX arrives in pieces: one number for all.
        lineno += at_start;
        at_start = whole;
        int s = selected(g, line, body);
        if (s < 0)
            return 2;
        if (s == 0)
            continue;
        count++;
        if (g->g_quiet) {
            g->g_done = true;
            g->g_final = 0;
            return 0;
        }
        if (g->g_list)
            break;
        if (!g->g_count && !out_line(g, name, lineno, line, body))
            return 2;
    }
    // An input can end because the call is stopping (its writer did, or
    // the wait for it ended with the call's budget).
    if (grep_stopped(g) || rc < 0)
        return 2;
    if (!grep_summary(g, name, count))
        return 2;
    return count > 0 ? 0 : 1;
}

/* One operand ("-" or NULL: stdin); same results as grep_input. */
static int
grep_file(grep *g, const char *operand)
{
    int st;
    sh_input *in = sh_input_open(g->g_cx, "grep", operand, &st);
    if (in == NULL) {
        if (st == BOX_STATUS_FAULT) {
            g->g_done = true;
            g->g_final = BOX_STATUS_FAULT;
        }
        return 2;
    }
    bool std = operand == NULL || strcmp(operand, "-") == 0;
    st = grep_input(g, in, std ? GREP_STDIN_NAME : operand);
    sh_input_close(in);
    // Output goes out per file so it stays in order with later messages.
    if (!g->g_done && !out_flush(g))
        return 2;
    return st;
}

/* Runs every operand: 0 a line selected, 1 none, 2 an error anywhere. */
static int
grep_files(grep *g, int nfiles, char **files)
{
    bool any = false, err = false;
    for (int i = 0; i < (nfiles > 0 ? nfiles : 1) && !g->g_done; i++) {
        int st = grep_file(g, nfiles > 0 ? files[i] : NULL);
        any |= st == 0;
        err |= st == 2;
    }
    if (g->g_done)
        return g->g_final;
    return err ? 2 : (any ? 0 : 1);
}

static void
grep_free(grep *g)
{
    for (size_t i = 0; i < g->g_nre; i++)
        regfree(&g->g_re[i]);
    box_free(g->g_re);
    box_free(g->g_fix);
    box_free(g->g_pats);
    box_free(g->g_scratch);
    box_free(g->g_out);
}

/*
 * Turns the parsed options into g: patterns from -e (or the first
 * operand), compiled or fixed, and the output buffer. *first is set to
 * the first file operand. Returns 0 or the status after the message.
 */
static int
grep_setup(grep *g, int argc, char **argv, const sh_opts *o, int *first)
{
    if (sh_opt(o, 'E') && sh_opt(o, 'F'))
        return sh_cmd_err(g->g_cx, "grep", 2, "conflicting matchers specified");
    g->g_fixed = sh_opt(o, 'F');
    g->g_icase = sh_opt(o, 'i');
    g->g_invert = sh_opt(o, 'v');
    g->g_count = sh_opt(o, 'c');
    g->g_list = sh_opt(o, 'l');
    g->g_num = sh_opt(o, 'n');
    g->g_quiet = sh_opt(o, 'q');
    const char **args = box_calloc((size_t)argc + 1, sizeof *args);
    if (args == NULL)
        return sh_cmd_err(g->g_cx, "grep", 2, "out of memory");
    char last_h = 0;
    size_t nargs = scan_opts(argc, argv, o, args, &last_h);
    *first = o->o_ind;
    if (nargs == 0 && o->o_ind < argc)
        args[nargs++] = argv[(*first)++];
    int st = 0;
    if (nargs == 0)
        st = sh_cmd_err(g->g_cx, "grep", 2,
                        "usage: grep [OPTION]... PATTERNS [FILE]...");
    else if (patterns_take(g, args, nargs) != BOX_OK)
        st = sh_cmd_err(g->g_cx, "grep", 2, "out of memory");
    box_free(args);
    if (st != 0)
        return st;
    g->g_names = last_h ? last_h == 'H' : argc - *first > 1;
    if (!g->g_quiet && (g->g_out = box_alloc(GREP_OUT_CAP)) == NULL)
        return sh_cmd_err(g->g_cx, "grep", 2, "out of memory");
    return g->g_fixed ? patterns_fixed(g) : patterns_regex(g, sh_opt(o, 'E'));
}

/*
 * grep [-EFHchilnqv] [-e PAT]... [PAT] [FILE]...: GNU grep's behaviour
 * for those flags. Status 0 when a line was selected, 1 when none, 2 on
 * any error (a missing file, a bad pattern) unless -q already matched;
 * 125 when the policy decision point failed (the call stops there).
 */
int
sh_cmd_grep(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    grep g = {.g_cx = cx};
    int first = argc;
    int st = grep_setup(&g, argc, argv, o, &first);
    if (st == 0)
        st = grep_files(&g, argc - first, argv + first);
    grep_free(&g);
    return st;
}
