/* SPDX-License-Identifier: Apache-2.0 */
/* sort's value orderings: -n, -h, -g, -M and -V over one key each. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cmd_sort.h"

/* sort's blanks in C.UTF-8: isblank, and the newline (a byte of a -z
 * record like any other). */
static bool
num_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

static bool
num_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool
num_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* A -n number as its parts: '-', the integer digits without leading
 * zeros, the fraction digits without trailing zeros. No thousands
 * separator (C.UTF-8 has none); anything else ends the number. */
typedef struct num_parts {
    bool np_neg;
    const char *np_int;
    size_t np_nint;
    const char *np_frac;
    size_t np_nfrac;
} num_parts;

static void
num_scan(const char *p, const char *lim, num_parts *n)
{
    while (p < lim && num_blank((unsigned char)*p))
        p++;
    n->np_neg = p < lim && *p == '-';
    p += n->np_neg;
    while (p < lim && *p == '0')
        p++;
    n->np_int = p;
    while (p < lim && num_digit((unsigned char)*p))
        p++;
    n->np_nint = (size_t)(p - n->np_int);
    n->np_frac = p;
    n->np_nfrac = 0;
    if (p < lim && *p == '.') {
        n->np_frac = ++p;
        while (p < lim && num_digit((unsigned char)*p))
            p++;
        n->np_nfrac = (size_t)(p - n->np_frac);
        while (n->np_nfrac > 0 && n->np_frac[n->np_nfrac - 1] == '0')
            n->np_nfrac--;
    }
    if (n->np_nint == 0 && n->np_nfrac == 0)
        n->np_neg = false; // -0 is 0
}

/* Compares two digit strings as fractions: "5" > "49". */
static int
num_frac_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    int d = memcmp(a, b, an < bn ? an : bn);
    if (d != 0)
        return d;
    return an < bn ? -1 : an > bn;
}

int
sort_cmp_numeric(const char *a, size_t an, const char *b, size_t bn)
{
    num_parts x, y;
    num_scan(a, a + an, &x);
    num_scan(b, b + bn, &y);
    if (x.np_neg != y.np_neg)
        return x.np_neg ? -1 : 1;
    int d;
    if (x.np_nint != y.np_nint)
        d = x.np_nint < y.np_nint ? -1 : 1;
    else if ((d = memcmp(x.np_int, y.np_int, x.np_nint)) == 0)
        d = num_frac_cmp(x.np_frac, x.np_nfrac, y.np_frac, y.np_nfrac);
    return x.np_neg ? -d : d;
}

/*
 * -h: the power of the unit after the number (K 1 … Y 8; k is K), its
 * sign the number's; 0 without a unit or for a zero. The number is
 * digits with at most one '.' among them, as GNU scans it.
 */
static int
num_unit(const char *p, const char *lim)
{
    static const char units[] = "KMGTPEZY";
    while (p < lim && num_blank((unsigned char)*p))
        p++;
    bool neg = p < lim && *p == '-';
    p += neg;
    bool nonzero = false;
    for (bool dot = false;; dot = true) {
        while (p < lim && num_digit((unsigned char)*p))
            nonzero |= *p++ != '0';
        if (dot || p >= lim || *p != '.')
            break;
        p++;
    }
    if (!nonzero || p >= lim || *p == '\0')
        return 0;
    const char *u = strchr(units, *p == 'k' ? 'K' : *p);
    int order = u != NULL ? (int)(u - units) + 1 : 0;
    return neg ? -order : order;
}

int
sort_cmp_human(const char *a, size_t an, const char *b, size_t bn)
{
    int d = num_unit(a, a + an) - num_unit(b, b + bn);
    return d != 0 ? d : sort_cmp_numeric(a, an, b, bn);
}

/*
 * -g: strtold's value. Text that is no number comes first, then NaNs
 * (by their bytes, as GNU has no better order for them), then numbers;
 * -0 equals 0.
 */
int
sort_cmp_general(const char *a, const char *b)
{
    char *ea, *eb;
    long double x = strtold(a, &ea);
    long double y = strtold(b, &eb);
    if (ea == a || eb == b)
        return (eb == b) - (ea == a);
    if (x < y)
        return -1;
    if (x > y)
        return 1;
    if (x == y)
        return 0;
    if (x == x)
        return 1; // y is a NaN
    if (y == y)
        return -1;
    unsigned char bx[sizeof x], by[sizeof y];
    memset(bx, 0, sizeof bx);
    memset(by, 0, sizeof by);
    memcpy(bx, &x, 10 < sizeof x ? 10 : sizeof x); // x87: 10 value bytes
    memcpy(by, &y, 10 < sizeof y ? 10 : sizeof y);
    return memcmp(bx, by, sizeof bx);
}

/* -M: 1 … 12 for a key starting (after blanks) with a month's English
 * abbreviation in any case, else 0. */
static int
num_month(const char *p, const char *lim)
{
    static const char names[] = "JANFEBMARAPRMAYJUNJULAUGSEPOCTNOVDEC";
    while (p < lim && num_blank((unsigned char)*p))
        p++;
    if (lim - p < 3)
        return 0;
    char up[3];
    for (int i = 0; i < 3; i++)
        up[i] = (char)(p[i] >= 'a' && p[i] <= 'z' ? p[i] - 'a' + 'A' : p[i]);
    for (int m = 0; m < 12; m++)
        if (memcmp(names + 3 * m, up, 3) == 0)
            return m + 1;
    return 0;
}

int
sort_cmp_month(const char *a, size_t an, const char *b, size_t bn)
{
    return num_month(a, a + an) - num_month(b, b + bn);
}

/* ---- -V ---- */

/*
 * The length of s without its file suffix: the longest tail of the form
 * (\.[A-Za-z~][A-Za-z0-9~]*)* that does not take the first byte.
 */
static size_t
vers_stem(const char *s, size_t n)
{
    size_t stem = 0;
    for (size_t i = 0; i < n;) {
        stem = ++i;
        while (i + 1 < n && s[i] == '.' &&
               (num_alpha((unsigned char)s[i + 1]) || s[i + 1] == '~')) {
            for (i += 2;
                 i < n && (num_alpha((unsigned char)s[i]) ||
                           num_digit((unsigned char)s[i]) || s[i] == '~');
                 i++)
                ;
        }
    }
    return stem;
}

/* A byte's weight outside digit runs: '~' below the end of the text,
 * the end below letters, letters below every other byte. */
static int
vers_weight(const char *s, size_t i, size_t n)
{
    if (i == n)
        return -1;
    unsigned char c = (unsigned char)s[i];
    if (num_digit(c))
        return 0;
    if (num_alpha(c))
        return c;
    if (c == '~')
        return -2;
    return c + 256;
}

/* Debian's version comparison: alternating non-digit runs (by weight)
 * and digit runs (by value). */
static int
vers_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    size_t i = 0, j = 0;
    while (i < an || j < bn) {
        while ((i < an && !num_digit((unsigned char)a[i])) ||
               (j < bn && !num_digit((unsigned char)b[j]))) {
            int wa = vers_weight(a, i, an), wb = vers_weight(b, j, bn);
            if (wa != wb)
                return wa - wb;
            i++;
            j++;
        }
        while (i < an && a[i] == '0')
            i++;
        while (j < bn && b[j] == '0')
            j++;
        int first = 0; // the first differing digit, if the runs are as long
        while (i < an && j < bn && num_digit((unsigned char)a[i]) &&
               num_digit((unsigned char)b[j])) {
            if (first == 0)
                first = a[i] - b[j];
            i++;
            j++;
        }
        if (i < an && num_digit((unsigned char)a[i]))
            return 1;
        if (j < bn && num_digit((unsigned char)b[j]))
            return -1;
        if (first != 0)
            return first;
    }
    return 0;
}

/* "." 0, ".." 1, any other name 2. */
static int
vers_dots(const char *s, size_t n)
{
    if (n == 1)
        return 0;
    return n == 2 && s[1] == '.' ? 1 : 2;
}

int
sort_cmp_version(const char *a, size_t an, const char *b, size_t bn)
{
    if (an == 0 || bn == 0)
        return (an != 0) - (bn != 0);
    if (a[0] == '.' || b[0] == '.') {
        if (a[0] != b[0])
            return a[0] == '.' ? -1 : 1; // hidden names first
        int da = vers_dots(a, an), db = vers_dots(b, bn);
        if (da != db || da < 2)
            return da - db;
    }
    size_t sa = vers_stem(a, an), sb = vers_stem(b, bn);
    int d = vers_cmp(a, sa, b, sb);
    if (d != 0 || (sa == an && sb == bn))
        return d;
    return vers_cmp(a, an, b, bn);
}
