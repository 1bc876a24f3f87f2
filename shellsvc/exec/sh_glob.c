/* SPDX-License-Identifier: Apache-2.0 */
/* The pattern matcher and the directory walk of pathname expansion. */
#include <fnmatch.h>
#include <locale.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <wctype.h>

#include "box_alloc.h"
#include "sh_glob.h"
#include "sh_internal.h"

/* ---- the matcher ---- */

/*
 * One UTF-8 character at s (s non-empty): its code point and length. A
 * byte that does not start a valid sequence is a character of its own
 * (bash falls back to bytes there), given a code point no valid
 * character has so it only ever equals itself.
 */
static size_t
u8_char(const char *s, uint32_t *cp)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = u[0] < 0x80u              ? 1
               : (u[0] & 0xE0u) == 0xC0u ? 2
               : (u[0] & 0xF0u) == 0xE0u ? 3
               : (u[0] & 0xF8u) == 0xF0u ? 4
                                         : 0;
    uint32_t c = n == 1   ? u[0]
                 : n == 2 ? u[0] & 0x1Fu
                 : n == 3 ? u[0] & 0x0Fu
                          : u[0] & 0x07u;
    for (size_t i = 1; i < n; i++) {
        if ((u[i] & 0xC0u) != 0x80u) {
            n = 0;
            break;
        }
        c = (c << 6) | (u[i] & 0x3Fu);
    }
    if (n == 0 || (n == 2 && c < 0x80u) || (n == 3 && c < 0x800u) ||
        (n == 4 && (c < 0x10000u || c > 0x10FFFFu))) {
        *cp = 0x80000000u | u[0];
        return 1;
    }
    *cp = c;
    return n;
}

/*
 * C.UTF-8's classes and case for characters past ASCII (bash in C.UTF-8
 * uses them: `[[:alpha:]]` matches 'é'). Made once and read-only after;
 * NULL when the locale is not installed: such characters then belong
 * to no class and have no other case.
 */
static locale_t u8_loc;
static pthread_once_t u8_once = PTHREAD_ONCE_INIT;

static void
u8_loc_init(void)
{
    u8_loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", (locale_t)0);
}

void
sh_glob_init(void)
{
    pthread_once(&u8_once, u8_loc_init);
}

static locale_t
u8_locale(void)
{
    sh_glob_init();
    return u8_loc;
}

locale_t
sh_glob_locale(void)
{
    return u8_locale();
}

static bool
u8_wide(uint32_t c)
{
    return c > 0x7Fu && c <= 0x10FFFFu; // not an invalid byte's stand-in
}

size_t
sh_glob_char(const char *s, uint32_t *cp)
{
    return u8_char(s, cp);
}

uint32_t
sh_glob_case(uint32_t c, bool upper)
{
    if (c <= 0x7Fu) {
        if (upper && c >= 'a' && c <= 'z')
            return c - 32;
        if (!upper && c >= 'A' && c <= 'Z')
            return c + 32;
        return c;
    }
    locale_t l = u8_wide(c) ? u8_locale() : (locale_t)0;
    if (l == (locale_t)0)
        return c;
    return (uint32_t)(upper ? towupper_l((wint_t)c, l)
                            : towlower_l((wint_t)c, l));
}

static uint32_t
fold(uint32_t c, unsigned fl)
{
    if (!(fl & SH_GM_NOCASE))
        return c;
    if (c >= 'A' && c <= 'Z')
        return c + 32;
    locale_t l = u8_wide(c) ? u8_locale() : (locale_t)0;
    return l != (locale_t)0 ? (uint32_t)towlower_l((wint_t)c, l) : c;
}

/* The [:class:] names bash knows. ORDER CLASS: in_class switches on it. */
enum {
    CL_ALNUM,
    CL_ALPHA,
    CL_BLANK,
    CL_CNTRL,
    CL_DIGIT,
    CL_GRAPH,
    CL_LOWER,
    CL_PRINT,
    CL_PUNCT,
    CL_SPACE,
    CL_UPPER,
    CL_WORD,
    CL_XDIGIT,
    CL_N
};
static const char *const class_names[CL_N] = {
    "alnum", "alpha", "blank", "cntrl", "digit", "graph",  "lower",
    "print", "punct", "space", "upper", "word",  "xdigit",
};

/* Is c in the class named name[0..n)? *valid: the name is a class. */
static bool
in_class(const char *name, size_t n, uint32_t c, bool *valid)
{
    int k = 0;
    while (k < CL_N && !(strlen(class_names[k]) == n &&
                         memcmp(class_names[k], name, n) == 0))
        k++;
    *valid = k < CL_N;
    if (!*valid)
        return false;
    if (c > 0x7Fu) {
        locale_t l = u8_wide(c) ? u8_locale() : (locale_t)0;
        if (l == (locale_t)0)
            return false;
        if (k == CL_WORD)
            return iswalnum_l((wint_t)c, l) != 0;
        return iswctype_l((wint_t)c, wctype_l(class_names[k], l), l) != 0;
    }
    bool up = c >= 'A' && c <= 'Z', lo = c >= 'a' && c <= 'z';
    bool dig = c >= '0' && c <= '9';
    bool graph = c > 0x20u && c < 0x7Fu;
    switch (k) {
    case CL_ALNUM:
        return up || lo || dig;
    case CL_ALPHA:
        return up || lo;
    case CL_BLANK:
        return c == ' ' || c == '\t';
    case CL_CNTRL:
        return c < 0x20u || c == 0x7Fu;
    case CL_DIGIT:
        return dig;
    case CL_GRAPH:
        return graph;
    case CL_LOWER:
        return lo;
    case CL_PRINT:
        return graph || c == ' ';
    case CL_PUNCT:
        return graph && !up && !lo && !dig;
    case CL_SPACE:
        return c == ' ' || (c >= '\t' && c <= '\r');
    case CL_UPPER:
        return up;
    case CL_WORD:
        return up || lo || dig || c == '_';
    default: // CL_XDIGIT
        return dig || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
    }
}

/* One bracket member's character at q (a backslash quotes the next). */
static size_t
bracket_char(const char *q, uint32_t *c)
{
    if (q[0] == '\\' && q[1] != '\0')
        return 1 + u8_char(q + 1, c);
    return u8_char(q, c);
}

/*
 * A bracket expression at p ('['): 1 when it matches c, 0 when not, -1
 * when it is not one (no closing ']': the '[' is then literal). *len is
 * the expression's length.
 */
static int
bracket(const char *p, uint32_t c, unsigned fl, size_t *len)
{
    const char *q = p + 1;
    bool neg = *q == '!' || *q == '^', hit = false, bad = false;
    if (neg)
        q++;
    uint32_t fc = fold(c, fl);
    for (bool first = true;; first = false) {
        if (*q == '\0')
            return -1;
        if (*q == ']' && !first)
            break;
        if (q[0] == '[' && (q[1] == ':' || q[1] == '=' || q[1] == '.')) {
            char kind = q[1];
            const char *e = q + 2;
            while (*e != '\0' && !(e[0] == kind && e[1] == ']'))
                e++;
            if (*e != '\0') {
                const char *nm = q + 2;
                size_t nl = (size_t)(e - nm);
                if (kind == ':') {
                    bool valid;
                    hit |=
                        in_class(nm, nl, c, &valid) ||
                        ((fl & SH_GM_NOCASE) && in_class(nm, nl, fc, &valid));
                    bad |= !valid;
                } else { // [=c=] and [.c.]: the character itself
                    uint32_t m;
                    if (nl > 0 && u8_char(nm, &m) == nl)
                        hit |= fold(m, fl) == fc;
                }
                q = e + 2;
                continue;
            }
        }
        uint32_t lo, hi;
        q += bracket_char(q, &lo);
        hi = lo;
        if (q[0] == '-' && q[1] != ']' && q[1] != '\0')
            q += 1 + bracket_char(q + 1, &hi);
        hit |=
            (c >= lo && c <= hi) || (fc >= fold(lo, fl) && fc <= fold(hi, fl));
    }
    *len = (size_t)(q + 1 - p);
    if (bad) // bash: an unknown class matches nothing
        return 0;
    return hit != neg;
}

/*
 * Does the pattern element at p match the character at s? *pl and *sl
 * are their lengths. lead: s is where a leading '.' needs an explicit
 * '.' (SH_GM_PERIOD).
 */
static bool
one(const char *p, size_t *pl, const char *s, size_t *sl, unsigned fl,
    bool lead)
{
    uint32_t c, m;
    *sl = u8_char(s, &c);
    bool dot = lead && c == '.';
    switch (*p) {
    case '?':
        *pl = 1;
        return !dot;
    case '[': {
        int r = bracket(p, c, fl, pl);
        if (r >= 0)
            return r == 1 && !dot;
        *pl = 1;
        return c == '[';
    }
    case '\\':
        if (p[1] != '\0') {
            *pl = 1 + u8_char(p + 1, &m);
            return fold(m, fl) == fold(c, fl);
        }
        *pl = 1;
        return c == '\\';
    default:
        *pl = u8_char(p, &m);
        return fold(m, fl) == fold(c, fl);
    }
}

/*
 * Iterative with one backtrack point, the last `*` seen: a later star
 * only ever needs the earlier one to have taken less, so this is linear
 * in practice and never recurses on hostile patterns.
 */
/* Whether p holds an unquoted extglob group: one of `?*+@!` right
 * before `(`. */
static bool
has_ext_group(const char *p)
{
    for (; *p != '\0'; p++) {
        if (*p == '\\') {
            if (p[1] == '\0')
                break;
            p++;
        } else if (p[1] == '(' && strchr("?*+@!", *p) != NULL) {
            return true;
        }
    }
    return false;
}

unsigned
sh_glob_ext_flag(unsigned shopt)
{
    return (shopt & SH_SHOPT_EXTGLOB) ? SH_GM_EXTGLOB : 0;
}

unsigned
sh_glob_case_flags(unsigned shopt)
{
    return sh_glob_ext_flag(shopt) |
           ((shopt & SH_SHOPT_NOCASEMATCH) ? SH_GM_NOCASE : 0);
}

bool
sh_glob_match(const char *p, const char *s, unsigned fl)
{
    if ((fl & SH_GM_EXTGLOB) && has_ext_group(p)) {
        // glibc lets a leading `!(…)` match a leading '.'; bash does not.
        if ((fl & SH_GM_PERIOD) && s[0] == '.' && p[0] == '!' && p[1] == '(')
            return false;
        return fnmatch(p, s,
                       FNM_EXTMATCH | ((fl & SH_GM_PERIOD) ? FNM_PERIOD : 0) |
                           ((fl & SH_GM_NOCASE) ? FNM_CASEFOLD : 0)) == 0;
    }
    const char *s0 = s, *star = NULL, *from = NULL;
    bool period = (fl & SH_GM_PERIOD) != 0;
    while (*s != '\0') {
        if (*p == '*') {
            if (period && s == s0 && *s == '.')
                return false;
            while (*p == '*')
                p++;
            star = p;
            from = s;
            continue;
        }
        size_t pl, sl;
        if (*p != '\0' && one(p, &pl, s, &sl, fl, period && s == s0)) {
            p += pl;
            s += sl;
            continue;
        }
        if (star == NULL)
            return false;
        uint32_t c;
        from += u8_char(from, &c);
        p = star;
        s = from;
    }
    while (*p == '*')
        p++;
    return *p == '\0';
}

bool
sh_glob_has_magic(const char *p, unsigned flags)
{
    if ((flags & SH_GM_EXTGLOB) && has_ext_group(p))
        return true;
    for (; *p != '\0'; p++) {
        if (*p == '\\') {
            if (p[1] == '\0')
                break;
            p++;
        } else if (*p == '*' || *p == '?') {
            return true;
        } else if (*p == '[') {
            size_t len;
            if (bracket(p, 0, 0, &len) >= 0)
                return true;
        }
    }
    return false;
}

/* ---- the walk ---- */

#define GLOB_MAX_MATCHES 100000u // one word's matches (a named cap)
#define GLOB_MAX_DEPTH 64u       // ** descends at most this deep

/* A directory the walk listed, kept for the rest of the word so that `**`
 * (which reaches a directory both as a place to match the next component
 * and as one to descend) asks for each directory once. */
typedef struct gw_listing {
    char *gl_dir;    // its spelling
    char **gl_names; // NULL (gl_ok false) when it could not be listed
    size_t gl_n;
    bool gl_ok;
} gw_listing;

typedef struct gw {
    sh_ctx *gw_cx;
    unsigned gw_shopt;
    char **gw_comp; // pattern components (escaped text)
    size_t gw_ncomp;
    bool gw_slash; // the pattern ended with '/': directories only
    char **gw_res; // matches, box_alloc'd
    size_t gw_nres, gw_capres;
    gw_listing *gw_lists; // directories listed so far
    size_t gw_nlists, gw_caplists;
    int gw_status; // 0, 125 after a fault, 1 when out of memory
} gw;

static bool
gw_failed(gw *g, int status)
{
    if (g->gw_status == 0)
        g->gw_status = status;
    return false;
}

static bool
gw_nomem(gw *g)
{
    if (g->gw_status == 0)
        sh_errf(g->gw_cx, "glob: out of memory or too many matches");
    return gw_failed(g, 1);
}

static bool
gw_add(gw *g, const char *a, const char *b, bool slash)
{
    if (g->gw_nres >= GLOB_MAX_MATCHES)
        return gw_nomem(g);
    if (g->gw_nres == g->gw_capres) {
        size_t cap = g->gw_capres ? g->gw_capres * 2 : 16;
        char **v = box_realloc(g->gw_res, cap * sizeof *v);
        if (v == NULL)
            return gw_nomem(g);
        g->gw_res = v;
        g->gw_capres = cap;
    }
    // Joined by hand: a glob over a big directory adds every name, and
    // the format parser was a tenth of such a walk.
    size_t na = strlen(a), nb = strlen(b);
    char *m = box_alloc(na + nb + 2);
    if (m == NULL)
        return gw_nomem(g);
    memcpy(m, a, na);
    memcpy(m + na, b, nb);
    size_t k = na + nb;
    if (slash)
        m[k++] = '/';
    m[k] = '\0';
    g->gw_res[g->gw_nres++] = m;
    return true;
}

/* A directory's spelling for the kernel: the prefix as written, "." for
 * the cwd, "/" for the root. */
static const char *
gw_dir(const char *prefix)
{
    return prefix[0] == '\0' ? "." : prefix;
}

static int
cmp_bytes(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A name with its first 8 bytes as a number (big-endian, zeros after the
 * end): two keys compare as strcmp compares those bytes. */
typedef struct sort_key {
    uint64_t sk_key;
    char *sk_name;
} sort_key;

/* Whether x sorts before y or with it. */
static bool
key_le(const sort_key *x, const sort_key *y)
{
    if (x->sk_key != y->sk_key)
        return x->sk_key < y->sk_key;
    // Both end within the 8 bytes (the same name), or compare on.
    return (x->sk_key & 0xffu) == 0 ||
           strcmp(x->sk_name + 8, y->sk_name + 8) <= 0;
}

/* Sorts a[0..n) by merging runs of twice the width each pass (tmp holds
 * n keys): the compare inlined, where qsort called through a pointer
 * and copied entries byte-wise. */
static void
merge_keys(sort_key *a, sort_key *tmp, size_t n)
{
    sort_key *from = a, *to = tmp;
    for (size_t w = 1; w < n; w *= 2) {
        for (size_t lo = 0; lo < n; lo += 2 * w) {
            size_t mid = lo + w < n ? lo + w : n;
            size_t hi = lo + 2 * w < n ? lo + 2 * w : n;
            size_t i = lo, j = mid, k = lo;
            while (i < mid && j < hi)
                to[k++] = key_le(&from[i], &from[j]) ? from[i++] : from[j++];
            while (i < mid)
                to[k++] = from[i++];
            while (j < hi)
                to[k++] = from[j++];
        }
        sort_key *t = from;
        from = to;
        to = t;
    }
    if (from != a)
        memcpy(a, from, n * sizeof *a);
}

/*
 * Sorts names in byte order (C.UTF-8's, strcmp's). A listing of 10,000
 * files was sorted twice per glob (the listing, then the results), and
 * qsort calling strcmp was a sixth of a loop over the names: input in
 * order (the results of one directory) is only checked, and the rest is
 * merged on each name's first 8 bytes as a number, most names parting
 * there.
 */
static void
sort_names(char **v, size_t n)
{
    size_t k = 1;
    while (k < n && strcmp(v[k - 1], v[k]) <= 0)
        k++;
    if (k >= n)
        return;
    sort_key *keys = n < SIZE_MAX / (2 * sizeof *keys)
                         ? box_alloc(2 * n * sizeof *keys)
                         : NULL;
    if (keys == NULL) { // the plain way needs no memory
        qsort(v, n, sizeof *v, cmp_bytes);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        uint64_t key = 0;
        size_t b = 0;
        for (; b < 8 && v[i][b] != '\0'; b++)
            key = key << 8 | (unsigned char)v[i][b];
        keys[i].sk_key = b < 8 ? key << (8 * (8 - b)) : key;
        keys[i].sk_name = v[i];
    }
    merge_keys(keys, keys + n, n);
    for (size_t i = 0; i < n; i++)
        v[i] = keys[i].sk_name;
    box_free(keys);
}

/* Lists dir once per word: false when there is nothing to walk (a denial
 * or an error drops the matches under it; a fault stops the whole
 * expansion). *names is borrowed from the walk. */
static bool
gw_list(gw *g, const char *dir, char *const **names, size_t *n)
{
    for (size_t i = 0; i < g->gw_nlists; i++) {
        if (strcmp(g->gw_lists[i].gl_dir, dir) == 0) {
            *names = g->gw_lists[i].gl_names;
            *n = g->gw_lists[i].gl_n;
            return g->gw_lists[i].gl_ok;
        }
    }
    if (g->gw_nlists == g->gw_caplists) {
        size_t cap = g->gw_caplists ? g->gw_caplists * 2 : 8;
        gw_listing *v = box_realloc(g->gw_lists, cap * sizeof *v);
        if (v == NULL)
            return gw_nomem(g);
        g->gw_lists = v;
        g->gw_caplists = cap;
    }
    gw_listing *l = &g->gw_lists[g->gw_nlists];
    memset(l, 0, sizeof *l);
    if ((l->gl_dir = box_strdup(dir)) == NULL)
        return gw_nomem(g);
    g->gw_nlists++;
    sh_kernel_result r = {0};
    sh_ctx *cx = g->gw_cx;
    int e = sh_kernel_list(sh_kern(cx), cx->cx_st->st_cwd, gw_dir(dir),
                           &l->gl_names, &l->gl_n, &r);
    if (e != 0) {
        l->gl_names = NULL;
        l->gl_n = 0;
        if (r.kr_outcome == SH_KR_FAULT)
            return gw_failed(g, sh_fs_fail(cx, NULL, gw_dir(dir), &r));
        sh_kernel_result_clear(&r);
        return false;
    }
    sh_kernel_result_clear(&r);
    // In byte order, so the walk (and its decisions) run in the order of
    // the results, the same on every file system.
    if (l->gl_n > 1)
        sort_names(l->gl_names, l->gl_n);
    l->gl_ok = true;
    *names = l->gl_names;
    *n = l->gl_n;
    return true;
}

enum { GW_ABSENT, GW_OTHER, GW_DIR, GW_LINK };

/* The type of path (a `read_metadata` probe; follow: stat, else lstat).
 * A denied probe is absent. */
static int
gw_type(gw *g, const char *path, bool follow)
{
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    sh_ctx *cx = g->gw_cx;
    int e =
        follow
            ? sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, path, &st, &r)
            : sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd, path, &st, &r);
    if (e != 0 && r.kr_outcome == SH_KR_FAULT)
        gw_failed(g, sh_fs_fail(cx, NULL, path, &r));
    sh_kernel_result_clear(&r);
    if (e != 0)
        return GW_ABSENT;
    return S_ISDIR(st.ks_mode)   ? GW_DIR
           : S_ISLNK(st.ks_mode) ? GW_LINK
                                 : GW_OTHER;
}

/* A name a walk may show: hidden names only for an explicit leading '.'
 * in comp, or dotglob. An extglob group may hold that '.' in one of its
 * patterns (`@(.c|a.c)`): the match (SH_GM_PERIOD) says. */
static bool
gw_visible(const gw *g, const char *comp, const char *name)
{
    if (name[0] != '.' || (g->gw_shopt & SH_SHOPT_DOTGLOB))
        return true;
    if ((g->gw_shopt & SH_SHOPT_EXTGLOB) && has_ext_group(comp))
        return true;
    return comp[0] == '.' || (comp[0] == '\\' && comp[1] == '.');
}

static void gw_walk(gw *g, const char *prefix, size_t i);

/* Removes the backslashes of a component with no magic. */
static char *
unescape(const char *s)
{
    char *d = box_strdup(s);
    if (d == NULL)
        return NULL;
    char *w = d;
    for (const char *p = s; *p; p++) {
        if (*p == '\\' && p[1] != '\0')
            p++;
        *w++ = *p;
    }
    *w = '\0';
    return d;
}

/* prefix + name + "/" (box_alloc'd; NULL after reporting). */
static char *
gw_join(gw *g, const char *prefix, const char *name)
{
    char *p = box_asprintf("%s%s/", prefix, name);
    if (p == NULL)
        gw_nomem(g);
    return p;
}

/*
 * `**` under globstar, component i. Last: every name under prefix at any
 * depth (and prefix itself); with a trailing '/' only directories. Else:
 * the rest of the pattern under prefix and under every directory below
 * it. Links to directories are not walked through (bash).
 */
static void
gw_starstar(gw *g, const char *prefix, size_t i, unsigned depth)
{
    bool last = i + 1 == g->gw_ncomp;
    if (depth == 0) {
        if (last && prefix[0] != '\0' && !gw_add(g, prefix, "", false))
            return;
        if (!last)
            gw_walk(g, prefix, i + 1);
    }
    if (g->gw_status != 0 || depth >= GLOB_MAX_DEPTH)
        return;
    char *const *names = NULL;
    size_t n = 0;
    if (!gw_list(g, prefix, &names, &n))
        return;
    for (size_t k = 0; k < n && g->gw_status == 0; k++) {
        if (!gw_visible(g, "*", names[k]))
            continue;
        char *sub = gw_join(g, prefix, names[k]);
        if (sub == NULL)
            break;
        int t = gw_type(g, sub, false);
        bool dir = t == GW_DIR;
        if (last && g->gw_slash && t == GW_LINK)
            dir = gw_type(g, sub, true) == GW_DIR;
        if (last && (!g->gw_slash || dir))
            gw_add(g, prefix, names[k], g->gw_slash);
        if (!last && t == GW_DIR)
            gw_walk(g, sub, i + 1);
        if (t == GW_DIR && g->gw_status == 0)
            gw_starstar(g, sub, i, depth + 1);
        box_free(sub);
    }
}

/* Component i of the pattern under prefix (a directory spelling ending
 * in '/', or "" for the cwd). */
static void
gw_walk(gw *g, const char *prefix, size_t i)
{
    const char *comp = g->gw_comp[i];
    bool last = i + 1 == g->gw_ncomp;
    if (g->gw_status != 0)
        return;
    if ((g->gw_shopt & SH_SHOPT_GLOBSTAR) && strcmp(comp, "**") == 0) {
        gw_starstar(g, prefix, i, 0);
        return;
    }
    if (!sh_glob_has_magic(comp, sh_glob_ext_flag(g->gw_shopt))) {
        char *lit = unescape(comp);
        char *sub = lit != NULL ? gw_join(g, prefix, lit) : NULL;
        if (lit == NULL)
            gw_nomem(g);
        if (sub != NULL && !last) {
            gw_walk(g, sub, i + 1);
        } else if (sub != NULL) {
            sub[strlen(sub) - 1] = '\0'; // the probe without the '/'
            int t = gw_type(g, sub, true);
            if (t != GW_ABSENT && (!g->gw_slash || t == GW_DIR))
                gw_add(g, sub, "", g->gw_slash);
        }
        box_free(sub);
        box_free(lit);
        return;
    }
    char *const *names = NULL;
    size_t n = 0;
    if (!gw_list(g, prefix, &names, &n))
        return;
    unsigned fl = (g->gw_shopt & SH_SHOPT_DOTGLOB) ? 0 : SH_GM_PERIOD;
    if (g->gw_shopt & SH_SHOPT_NOCASEGLOB)
        fl |= SH_GM_NOCASE;
    fl |= sh_glob_ext_flag(g->gw_shopt);
    for (size_t k = 0; k < n && g->gw_status == 0; k++) {
        if (!gw_visible(g, comp, names[k]) ||
            !sh_glob_match(comp, names[k], fl))
            continue;
        if (last && !g->gw_slash) {
            gw_add(g, prefix, names[k], false);
            continue;
        }
        char *sub = gw_join(g, prefix, names[k]);
        if (sub == NULL)
            break;
        if (gw_type(g, sub, true) == GW_DIR) {
            if (last)
                gw_add(g, prefix, names[k], true);
            else
                gw_walk(g, sub, i + 1);
        }
        box_free(sub);
    }
}

/*
 * Splits pat at each '/' into components. A leading '/' makes the first
 * prefix the root; a trailing one sets gw_slash; empty components from
 * "a//b" are dropped (the spelling of the walked prefix keeps them).
 */
static bool
gw_split(gw *g, char *pat, char **root)
{
    *root = pat[0] == '/' ? "/" : "";
    size_t len = strlen(pat);
    g->gw_slash = len > 1 && pat[len - 1] == '/';
    g->gw_comp = box_calloc(len / 2 + 2, sizeof *g->gw_comp);
    if (g->gw_comp == NULL)
        return gw_nomem(g);
    for (char *p = pat; *p != '\0';) {
        while (*p == '/')
            *p++ = '\0';
        if (*p == '\0')
            break;
        g->gw_comp[g->gw_ncomp++] = p;
        while (*p != '\0' && *p != '/')
            p += p[0] == '\\' && p[1] != '\0' && p[1] != '/' ? 2 : 1;
    }
    return true;
}

int
sh_glob_expand(sh_ctx *cx, const char *pat, unsigned shopt, bool exp,
               sh_argv *out, size_t *nmatch)
{
    gw g = {.gw_cx = cx, .gw_shopt = shopt};
    char *copy = box_strdup(pat), *root = NULL;
    *nmatch = 0;
    if (copy == NULL) {
        gw_nomem(&g);
        goto out;
    }
    if (!gw_split(&g, copy, &root) || g.gw_ncomp == 0)
        goto out;
    gw_walk(&g, root, 0);
    if (g.gw_status != 0)
        goto out;
    if (g.gw_nres > 1) // qsort must not see a NULL array
        sort_names(g.gw_res, g.gw_nres);
    for (size_t k = 0; k < g.gw_nres; k++) {
        if (sh_argv_push(out, g.gw_res[k], strlen(g.gw_res[k]), exp) !=
            BOX_OK) {
            gw_nomem(&g);
            goto out;
        }
    }
    *nmatch = g.gw_nres;
out:
    for (size_t k = 0; k < g.gw_nres; k++)
        box_free(g.gw_res[k]);
    box_free(g.gw_res);
    for (size_t k = 0; k < g.gw_nlists; k++) {
        sh_kernel_names_free(g.gw_lists[k].gl_names, g.gw_lists[k].gl_n);
        box_free(g.gw_lists[k].gl_dir);
    }
    box_free(g.gw_lists);
    box_free(g.gw_comp);
    box_free(copy);
    return g.gw_status;
}
