/* SPDX-License-Identifier: Apache-2.0 */
/* grep's matchers: fixed strings (memmem over the whole buffer), POSIX
 * basic and extended expressions (glibc regex in C.UTF-8), with GNU's -w
 * and -x rules on top; -P is cmd_grep_pcre.c. */
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <wctype.h>

#include "box_alloc.h"
#include "cmd_grep.h"
#include "cmd_regex.h"

/*
 * The compiled patterns of one run. Literal patterns (-F, or -G/-E text
 * without special characters: the common `grep word`) are searched over
 * the whole buffer with memmem; expressions over the whole buffer too
 * when lines end in '\n' (REG_NEWLINE keeps a match inside a line), else
 * line by line. Each pattern remembers where its next match in the
 * current buffer is, so a pattern that lost to another is not searched
 * again from scratch. All regex calls run in C.UTF-8, as GNU grep does
 * under the box's locale.
 */
struct grep_match {
    locale_t gm_loc; // C.UTF-8, or (locale_t)0 when not installed
    // literal
    bool gm_literal;
    size_t gm_n;         // literals or expressions
    const char **gm_lit; // views into g_pats (folded for -i)
    size_t *gm_llen;
    const char **gm_next; // cached next occurrence (NULL: none)
    const char **gm_nend; // its end (expressions)
    bool *gm_known;       // gm_next is valid for this buffer
    char *gm_fold;        // -i: the buffer lower-cased
    size_t gm_fcap;
    const char *gm_fbase; // what gm_fold is a copy of
    size_t gm_flen;
    // expressions
    char *gm_must;  // a string every match of the one expression holds
    size_t gm_mlen; // (folded for -i); 0: none, search with regexec
    regex_t *gm_re;
    size_t gm_nre; // compiled, for regfree
    bool gm_newline;
    grep_pcre *gm_pc; // -P
};

/* ---- compile ---- */

/* The end of the patterns; `-f /dev/null` gives none (and no buffer, so
 * no offset may be applied to it). */
static char *
grep_pats_end(grep *g)
{
    return g->g_pats.b_len > 0 ? g->g_pats.b_data + g->g_pats.b_len
                               : g->g_pats.b_data;
}


static bool
is_literal(const char *p, size_t n, grep_mode mode, bool icase)
{
    const char *special = mode == GREP_ERE ? "\\.[*^$+?{}()|" : "\\.[*^$";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (strchr(special, c) != NULL && c != '\0')
            return false;
        if (icase && c >= 0x80)
            return false; // case of non-ASCII letters: the expression's
    }
    return true;
}

/* Whether every pattern (each ended by '\n' in pats) is literal; for ERE
 * a top-level '|' splits too (the pattern has no other special). */
static bool
all_literal(grep *g)
{
    const char *p = g->g_pats.b_data, *end = grep_pats_end(g);
    for (; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)(nl - p);
        for (size_t i = 0, s = 0; i <= n; i++) {
            if (i < n && !(g->g_mode == GREP_ERE && p[i] == '|'))
                continue;
            if (!is_literal(p + s, i - s,
                            g->g_mode == GREP_FIXED ? GREP_FIXED : g->g_mode,
                            g->g_icase) &&
                g->g_mode != GREP_FIXED)
                return false;
            if (g->g_mode == GREP_FIXED && g->g_icase &&
                !is_literal(p + s, i - s, GREP_FIXED, true))
                return false;
            s = i + 1;
        }
        p = nl + 1;
    }
    return true;
}

static int
oom(grep *g)
{
    return sh_cmd_err(g->g_cx, "grep", 2, "out of memory");
}

/* The literals: views into g_pats ('\n' and, for ERE, '|' cut to NUL). */
static int
compile_literal(grep *g, grep_match *m)
{
    char *p = g->g_pats.b_data, *end = grep_pats_end(g);
    size_t n = 0;
    for (char *q = p; q < end; q++)
        n += *q == '\n' || (g->g_mode == GREP_ERE && *q == '|');
    m->gm_lit = box_calloc(n, sizeof *m->gm_lit);
    m->gm_llen = box_calloc(n, sizeof *m->gm_llen);
    m->gm_next = box_calloc(n, sizeof *m->gm_next);
    m->gm_nend = box_calloc(n, sizeof *m->gm_nend);
    m->gm_known = box_calloc(n, sizeof *m->gm_known);
    if (!m->gm_lit || !m->gm_llen || !m->gm_next || !m->gm_known || !m->gm_nend)
        return oom(g);
    char *s = p;
    for (char *q = p; q < end; q++) {
        if (!(*q == '\n' || (g->g_mode == GREP_ERE && *q == '|')))
            continue;
        *q = '\0';
        if (g->g_icase)
            for (char *c = s; c < q; c++)
                if (*c >= 'A' && *c <= 'Z')
                    *c = (char)(*c + 32);
        m->gm_lit[m->gm_n] = s;
        m->gm_llen[m->gm_n++] = (size_t)(q - s);
        s = q + 1;
    }
    m->gm_literal = true;
    return 0;
}

/* GNU's own check before the expression is compiled: `[:space:]`. */
static int
class_syntax(grep *g, const char *p, size_t n)
{
    for (size_t i = 0; i + 1 < n; i++) {
        if (p[i] == '\\') {
            i++;
            continue;
        }
        if (p[i] != '[')
            continue;
        size_t j = i + 1;
        if (j < n && p[j] == '^')
            j++;
        if (j < n && p[j] == ']')
            j++;
        size_t k = j;
        while (k < n && p[k] != ']') {
            if (p[k] == '[' && k + 1 < n &&
                (p[k + 1] == ':' || p[k + 1] == '.' || p[k + 1] == '=')) {
                const char *c = memchr(p + k + 2, p[k + 1], n - k - 2);
                if (c == NULL || (size_t)(c - p) + 1 >= n || c[1] != ']')
                    break;
                k = (size_t)(c - p) + 2;
                continue;
            }
            k++;
        }
        if (k < n && p[i + 1] == ':' && k > i + 2 && p[k - 1] == ':')
            return sh_cmd_err(g->g_cx, "grep", 2,
                              "character class syntax is [[:space:]], not "
                              "[:space:]");
        i = k;
    }
    return 0;
}

/* -F patterns the literal path cannot take (-i past ASCII): as BRE. */
static char *
escape_fixed(const char *p, size_t n)
{
    char *o = box_alloc(2 * n + 1), *w = o;
    if (o == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        if (strchr("\\.[*^$", p[i]) != NULL)
            *w++ = '\\';
        *w++ = p[i];
    }
    *w = '\0';
    return o;
}

/*
 * The longest run of plain characters at the top level of an expression
 * without alternation: every match holds it, so memmem finds the lines
 * worth running regexec on (GNU's "must" strings, simply). A character
 * a quantifier applies to is left out; brackets, groups and escapes end
 * a run. False when the pattern has no such run.
 */
static bool
find_must(const char *p, size_t n, bool ere, bool icase, size_t *ms, size_t *ml)
{
    size_t best = 0, bs = 0, run = 0, rs = 0;
    int depth = 0;
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        bool plain = false;
        if (c == '\\') {
            if (i + 1 < n && (p[i + 1] == '|' || (!ere && p[i + 1] == '(')))
                return false; // alternation, or a BRE group: keep it simple
            if (!ere && i + 1 < n && p[i + 1] == '{') {
                const char *e = memmem(p + i, n - i, "\\}", 2);
                i = e ? (size_t)(e - p) : n; // the counts are no text
            }
            i++;
        } else if (ere && c == '{') {
            const char *e = memchr(p + i, '}', n - i);
            i = e ? (size_t)(e - p) : n;
        } else if (c == '[') {
            size_t j = i + 1;
            if (j < n && p[j] == '^')
                j++;
            if (j < n && p[j] == ']')
                j++;
            while (j < n && p[j] != ']') {
                if (p[j] == '[' && j + 1 < n && strchr(":.=", p[j + 1])) {
                    const char *e = memchr(p + j + 2, p[j + 1], n - j - 2);
                    j = e ? (size_t)(e - p) + 1 : n;
                }
                j++;
            }
            i = j;
        } else if (ere && (c == '|')) {
            return false;
        } else if (ere && c == '(') {
            depth++;
        } else if (ere && c == ')') {
            depth--;
        } else if (c != '.' && c != '^' && c != '$' && c != '*' &&
                   !(ere && strchr("+?}", c)) &&
                   !(icase && (unsigned char)c >= 0x80)) {
            plain = depth == 0;
        }
        // A quantifier next applies to this character alone.
        if (plain && i + 1 < n) {
            char q = p[i + 1];
            if (q == '*' || (ere && (q == '+' || q == '?' || q == '{')) ||
                (!ere && q == '\\' && i + 2 < n && strchr("+?{", p[i + 2])))
                plain = false;
        }
        if (plain) {
            if (run == 0)
                rs = i;
            run++;
            if (run > best) {
                best = run;
                bs = rs;
            }
        } else {
            run = 0;
        }
    }
    *ms = bs;
    *ml = best;
    return best >= 2;
}

static int
compile_regex(grep *g, grep_match *m)
{
    char *p = g->g_pats.b_data, *end = grep_pats_end(g);
    size_t n = 0;
    for (char *q = p; q < end; q++)
        n += *q == '\n';
    m->gm_re = box_calloc(n, sizeof *m->gm_re);
    m->gm_next = box_calloc(n, sizeof *m->gm_next);
    m->gm_nend = box_calloc(n, sizeof *m->gm_nend);
    m->gm_known = box_calloc(n, sizeof *m->gm_known);
    if (!m->gm_re || !m->gm_next || !m->gm_nend || !m->gm_known)
        return oom(g);
    m->gm_newline = g->g_eol == '\n';
    int flags = (g->g_mode == GREP_ERE ? REG_EXTENDED : 0) |
                (g->g_icase ? REG_ICASE : 0) |
                (m->gm_newline ? REG_NEWLINE : 0);
    locale_t old = m->gm_loc ? uselocale(m->gm_loc) : (locale_t)0;
    int st = 0;
    for (char *s = p; s < end && st == 0;) {
        char *nl = memchr(s, '\n', (size_t)(end - s));
        *nl = '\0';
        char *text = s;
        if (g->g_mode == GREP_FIXED &&
            (text = escape_fixed(s, (size_t)(nl - s))) == NULL) {
            st = oom(g);
            break;
        }
        if (g->g_mode != GREP_FIXED)
            st = class_syntax(g, s, (size_t)(nl - s));
        int rc = st == 0 ? cmd_regcomp(&m->gm_re[m->gm_nre], text, flags) : 0;
        if (text != s)
            box_free(text);
        if (st == 0 && rc != 0) {
            char msg[256];
            regerror(rc, &m->gm_re[m->gm_nre], msg, sizeof msg);
            regfree(&m->gm_re[m->gm_nre]);
            st = sh_cmd_err(g->g_cx, "grep", 2, "%s", msg);
        } else if (st == 0) {
            m->gm_nre++;
        }
        s = nl + 1;
    }
    if (m->gm_loc)
        uselocale(old);
    m->gm_n = m->gm_nre;
    size_t ms, ml;
    if (st == 0 && n == 1 && g->g_mode != GREP_FIXED &&
        find_must(p, strlen(p), g->g_mode == GREP_ERE, g->g_icase, &ms, &ml)) {
        if ((m->gm_must = box_alloc(ml + 1)) == NULL)
            return oom(g);
        for (size_t i = 0; i < ml; i++) {
            char c = p[ms + i];
            m->gm_must[i] =
                g->g_icase && c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
        }
        m->gm_must[ml] = '\0';
        m->gm_mlen = ml;
    }
    return st;
}

int
grep_match_compile(grep *g)
{
    grep_match *m = box_calloc(1, sizeof *m);
    if (m == NULL)
        return oom(g);
    g->g_m = m;
    m->gm_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
    if (g->g_mode == GREP_PCRE) {
        int st = 0;
        m->gm_pc = grep_pcre_compile(g, &st);
        return st;
    }
    if (all_literal(g))
        return compile_literal(g, m);
    return compile_regex(g, m);
}

void
grep_match_free(grep_match *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->gm_nre; i++)
        regfree(&m->gm_re[i]);
    box_free(m->gm_re);
    box_free(m->gm_must);
    box_free(m->gm_lit);
    box_free(m->gm_llen);
    box_free(m->gm_next);
    box_free(m->gm_nend);
    box_free(m->gm_known);
    box_free(m->gm_fold);
    grep_pcre_free(m->gm_pc);
    if (m->gm_loc)
        freelocale(m->gm_loc);
    box_free(m);
}

/* ---- words ---- */

/* The UTF-8 character at s (n bytes left): its value, or -1 when the
 * bytes are no character. */
static long
u8_at(const unsigned char *s, size_t n, size_t *len)
{
    unsigned c = s[0];
    size_t k = c < 0x80                ? 1
               : c >= 0xF0 && c < 0xF5 ? 4
               : c >= 0xE0             ? 3
               : c >= 0xC2             ? 2
                                       : 0;
    *len = 1;
    if (k == 0 || k > n)
        return -1;
    long v = k == 1 ? c : k == 2 ? c & 0x1F : k == 3 ? c & 0x0F : c & 0x07;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return -1;
        v = (v << 6) | (s[i] & 0x3F);
    }
    *len = k;
    return v;
}

static bool
word_wc(const grep_match *m, long c)
{
    if (c < 0)
        return false;
    if (c < 0x80)
        return c == '_' || (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
               (c >= 'A' && c <= 'Z');
    return m->gm_loc && iswalnum_l((wint_t)c, m->gm_loc);
}

/* Whether a word character ends right before line[at]. */
static bool
word_before(const grep_match *m, const char *line, size_t at)
{
    if (at == 0)
        return false;
    size_t s = at - 1, len;
    while (s > 0 && at - s < 4 && ((unsigned char)line[s] & 0xC0) == 0x80)
        s--;
    long c = u8_at((const unsigned char *)line + s, at - s, &len);
    if (s + len != at)
        c = (unsigned char)line[at - 1] < 0x80 ? line[at - 1] : -1;
    return word_wc(m, c);
}

static bool
word_after(const grep_match *m, const char *line, size_t len, size_t at)
{
    if (at >= len)
        return false;
    size_t k;
    return word_wc(m, u8_at((const unsigned char *)line + at, len - at, &k));
}

static bool
word_ok(const grep_match *m, const char *line, size_t len, size_t s, size_t e)
{
    return !word_before(m, line, s) && !word_after(m, line, len, e);
}

/* ---- one line ---- */

static const char *
fold_line(grep_match *m, const char *line, size_t len)
{
    if (m->gm_fbase != NULL && line >= m->gm_fbase &&
        line + len <= m->gm_fbase + m->gm_flen)
        return m->gm_fold + (line - m->gm_fbase);
    return NULL;
}

/* Lower-cases buf into gm_fold (the -i literal search reads that). */
static bool
fold_buffer(grep_match *m, const char *buf, size_t len)
{
    if (len + 1 > m->gm_fcap) {
        char *f = box_realloc(m->gm_fold, len + 1);
        if (f == NULL)
            return false;
        m->gm_fold = f;
        m->gm_fcap = len + 1;
    }
    for (size_t i = 0; i < len; i++) {
        char c = buf[i];
        m->gm_fold[i] = c >= 'A' && c <= 'Z' ? (char)(c + 32) : c;
    }
    m->gm_fbase = buf;
    m->gm_flen = len;
    return true;
}

static bool
lit_line(grep *g, const char *line, size_t len, size_t from, size_t *ms,
         size_t *me)
{
    grep_match *m = g->g_m;
    const char *hay = line;
    if (g->g_icase) {
        if ((hay = fold_line(m, line, len)) == NULL) {
            if (!fold_buffer(m, line, len))
                return false;
            hay = m->gm_fold;
        }
    }
    bool found = false;
    for (size_t i = 0; i < m->gm_n; i++) {
        const char *pat = m->gm_lit[i];
        size_t pl = m->gm_llen[i];
        if (g->g_line) {
            if (from == 0 && pl == len && memcmp(hay, pat, pl) == 0) {
                *ms = 0;
                *me = len;
                return true;
            }
            continue;
        }
        for (size_t at = from; at + pl <= len;) {
            const char *o = memmem(hay + at, len - at, pat, pl);
            if (o == NULL)
                break;
            size_t s = (size_t)(o - hay);
            if (found && (s > *ms || (s == *ms && s + pl <= *me)))
                break;
            if (!g->g_word || word_ok(m, line, len, s, s + pl)) {
                *ms = s;
                *me = s + pl;
                found = true;
                break;
            }
            at = s + 1;
        }
    }
    return found;
}

/* Runs re over line[from, to): the match, or false. */
static bool
re_exec(const regex_t *re, const char *line, size_t from, size_t to, size_t *ms,
        size_t *me)
{
    regmatch_t rm = {.rm_so = (regoff_t)from, .rm_eo = (regoff_t)to};
    if (regexec(re, line, 1, &rm, REG_STARTEND) != 0)
        return false;
    *ms = (size_t)rm.rm_so;
    *me = (size_t)rm.rm_eo;
    return true;
}

/* GNU's -w: a match with a word character next to it is retried shorter
 * at the same start, then from the next start. */
static bool
re_word(grep_match *m, const regex_t *re, const char *line, size_t len,
        size_t from, size_t *ms, size_t *me)
{
    size_t s, e;
    while (from <= len && re_exec(re, line, from, len, &s, &e)) {
        if (word_ok(m, line, len, s, e)) {
            *ms = s;
            *me = e;
            return true;
        }
        // Shorter matches at s: the longest one ending before e.
        size_t lim = e;
        while (lim > s) {
            size_t s2, e2;
            if (!re_exec(re, line, s, lim - 1, &s2, &e2) || s2 != s)
                break;
            if (word_ok(m, line, len, s2, e2)) {
                *ms = s2;
                *me = e2;
                return true;
            }
            lim = e2;
        }
        from = s + 1;
    }
    return false;
}

static bool
re_line(grep *g, const char *line, size_t len, size_t from, size_t *ms,
        size_t *me)
{
    grep_match *m = g->g_m;
    bool found = false;
    for (size_t i = 0; i < m->gm_nre; i++) {
        size_t s, e;
        bool ok;
        if (g->g_line)
            ok = from == 0 && re_exec(&m->gm_re[i], line, 0, len, &s, &e) &&
                 s == 0 && e == len;
        else if (g->g_word)
            ok = re_word(m, &m->gm_re[i], line, len, from, &s, &e);
        else
            ok = re_exec(&m->gm_re[i], line, from, len, &s, &e);
        if (ok && (!found || s < *ms || (s == *ms && e > *me))) {
            *ms = s;
            *me = e;
            found = true;
        }
    }
    return found;
}

bool
grep_match_line(grep *g, const char *line, size_t len, size_t from, size_t *ms,
                size_t *me)
{
    grep_match *m = g->g_m;
    if (m->gm_pc != NULL)
        return grep_pcre_line(m->gm_pc, line, len, from, ms, me);
    if (m->gm_literal)
        return lit_line(g, line, len, from, ms, me);
    locale_t old = m->gm_loc ? uselocale(m->gm_loc) : (locale_t)0;
    bool r = re_line(g, line, len, from, ms, me);
    if (m->gm_loc)
        uselocale(old);
    return r;
}

/* ---- a buffer of lines ---- */

void
grep_match_reset(grep *g)
{
    grep_match *m = g->g_m;
    for (size_t i = 0; i < m->gm_n; i++)
        m->gm_known[i] = false;
    m->gm_fbase = NULL;
}

static bool
is_eol(const grep *g, char c, bool nul_eol)
{
    return c == g->g_eol || (nul_eol && c == '\0');
}

/* The bounds of the line holding buf[at]. */
static void
line_of(const grep *g, const char *buf, size_t len, size_t at, bool nul_eol,
        size_t *ls, size_t *le)
{
    size_t s = at;
    if (nul_eol) {
        while (s > 0 && !is_eol(g, buf[s - 1], true))
            s--;
    } else {
        const char *p = s > 0 ? memrchr(buf, g->g_eol, s) : NULL;
        s = p ? (size_t)(p - buf) + 1 : 0;
    }
    size_t e = at;
    if (nul_eol) {
        while (e < len && !is_eol(g, buf[e], true))
            e++;
    } else {
        const char *p = memchr(buf + at, g->g_eol, len - at);
        e = p ? (size_t)(p - buf) : len;
    }
    *ls = s;
    *le = e;
}

/* The earliest candidate match in buf[0,len) over all patterns (cached
 * per pattern), or false. */
static bool
first_candidate(grep *g, const char *buf, size_t len, size_t *at)
{
    grep_match *m = g->g_m;
    const char *hay = buf;
    if ((m->gm_literal || m->gm_mlen > 0) && g->g_icase) {
        if ((hay = fold_line(m, buf, len)) == NULL) {
            if (!fold_buffer(m, buf, len))
                return false;
            hay = m->gm_fold;
        }
    }
    const char *best = NULL;
    for (size_t i = 0; i < m->gm_n; i++) {
        const char *o = m->gm_next[i];
        if (!m->gm_known[i] || (o != NULL && o < buf)) {
            if (m->gm_literal || m->gm_mlen > 0) {
                const char *h =
                    m->gm_literal
                        ? memmem(hay, len, m->gm_lit[i], m->gm_llen[i])
                        : memmem(hay, len, m->gm_must, m->gm_mlen);
                o = h ? buf + (h - hay) : NULL;
            } else {
                size_t s, e;
                o = re_exec(&m->gm_re[i], buf, 0, len, &s, &e) ? buf + s : NULL;
            }
            m->gm_next[i] = o;
            m->gm_known[i] = true;
        }
        if (o != NULL && (best == NULL || o < best))
            best = o;
    }
    if (best == NULL)
        return false;
    *at = (size_t)(best - buf);
    return true;
}

bool
grep_match_next(grep *g, const char *buf, size_t len, bool nul_eol, size_t *ls,
                size_t *le)
{
    grep_match *m = g->g_m;
    bool whole =
        m->gm_pc == NULL &&
        ((!nul_eol && (m->gm_literal || m->gm_newline)) || m->gm_mlen > 0);
    locale_t old = m->gm_loc ? uselocale(m->gm_loc) : (locale_t)0;
    bool found = false;
    size_t p = 0, s = 0, e = 0, a, b;
    while (p < len) {
        if (whole) {
            size_t at;
            if (!first_candidate(g, buf + p, len - p, &at))
                break;
            at += p;
            // A match just past the buffer's last terminator is no line.
            if (at == len && buf[len - 1] == g->g_eol)
                break;
            line_of(g, buf, len, at, nul_eol, &s, &e);
            bool plain = !g->g_word && !g->g_line && m->gm_literal;
            if (plain || grep_match_line(g, buf + s, e - s, 0, &a, &b)) {
                found = true;
                break;
            }
        } else {
            line_of(g, buf, len, p, nul_eol, &s, &e);
            if (grep_match_line(g, buf + s, e - s, 0, &a, &b)) {
                found = true;
                break;
            }
        }
        p = e + 1;
    }
    if (m->gm_loc)
        uselocale(old);
    *ls = s;
    *le = e;
    return found;
}
