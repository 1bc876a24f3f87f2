/* SPDX-License-Identifier: Apache-2.0 */
/* sort's keys: KEYDEF parsing, where a key lies in a line, and the
 * comparison of two lines key by key (GNU coreutils 9.1, C.UTF-8). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_sort.h"
#include "sh_gopt.h"

/* ---- KEYDEF ---- */

/*
 * A field or character count as GNU reads it (xstrtoumax): spaces and a
 * '+' may lead, then at least one digit; a value too large for size_t is
 * SIZE_MAX. Returns the end of the digits, or NULL when there are none.
 */
static const char *
key_count(const char *s, size_t *out)
{
    while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
        s++;
    if (*s == '+')
        s++;
    if (*s < '0' || *s > '9')
        return NULL;
    size_t v = 0;
    for (; *s >= '0' && *s <= '9'; s++) {
        size_t d = (size_t)(*s - '0');
        v = v > (SIZE_MAX - d) / 10 ? SIZE_MAX : v * 10 + d;
    }
    *out = v;
    return s;
}

/* The ordering letters after a position: their flags into k; b means
 * blank skipping at the start (POS1) or at the end (POS2). Returns the
 * first byte that is no letter. */
static const char *
key_letters(const char *s, sort_key *k, bool end)
{
    static const char letters[] = "dfghiMnRrV";
    static const unsigned flags[] = {
        SK_DICT,  SK_FOLD,    SK_GENERAL, SK_HUMAN,   SK_NONPRINT,
        SK_MONTH, SK_NUMERIC, SK_RANDOM,  SK_REVERSE, SK_VERSION};
    for (;; s++) {
        const char *l = *s != '\0' ? strchr(letters, *s) : NULL;
        if (*s == 'b')
            k->sk_flags |= end ? SK_BLANK_END : SK_BLANK_START;
        else if (l != NULL)
            k->sk_flags |= flags[l - letters];
        else
            return s;
    }
}

/* "WHY: invalid field specification ‘SPEC’" into err. */
static bool
key_bad(const char *spec, const char *why, char *err, size_t errsz)
{
    char *q = sh_gquote(spec);
    snprintf(err, errsz, "%s: invalid field specification %s", why,
             q != NULL ? q : spec);
    box_free(q);
    return false;
}

/* "WHY: invalid count at start of ‘REST’" into err. */
static bool
key_bad_count(const char *rest, const char *why, char *err, size_t errsz)
{
    char *q = sh_gquote(rest);
    snprintf(err, errsz, "%s: invalid count at start of %s", why,
             q != NULL ? q : rest);
    box_free(q);
    return false;
}

/* KEYDEF: F[.C][OPTS][,F[.C][OPTS]], fields and characters from 1; an
 * end character of 0 means the end of its field. */
bool
sort_key_parse(const char *spec, sort_key *k, char *err, size_t errsz)
{
    memset(k, 0, sizeof *k);
    const char *s = key_count(spec, &k->sk_sword), *n;
    if (s == NULL)
        return key_bad_count(spec, "invalid number at field start", err, errsz);
    if (k->sk_sword-- == 0)
        return key_bad(spec, "field number is zero", err, errsz);
    if (*s == '.') {
        if ((n = key_count(s + 1, &k->sk_schar)) == NULL)
            return key_bad_count(s + 1, "invalid number after '.'", err, errsz);
        if (k->sk_schar-- == 0)
            return key_bad(spec, "character offset is zero", err, errsz);
        s = n;
    }
    if (k->sk_sword == 0 && k->sk_schar == 0)
        k->sk_sword = SORT_LINE_EDGE; // the line's very start
    s = key_letters(s, k, false);
    k->sk_eword = SORT_LINE_EDGE;
    if (*s == ',') {
        if ((n = key_count(s + 1, &k->sk_eword)) == NULL)
            return key_bad_count(s + 1, "invalid number after ','", err, errsz);
        if (k->sk_eword-- == 0)
            return key_bad(spec, "field number is zero", err, errsz);
        s = n;
        if (*s == '.') {
            if ((n = key_count(s + 1, &k->sk_echar)) == NULL)
                return key_bad_count(s + 1, "invalid number after '.'", err,
                                     errsz);
            s = n;
        }
        s = key_letters(s, k, true);
    }
    if (*s != '\0')
        return key_bad(spec, "stray character in field spec", err, errsz);
    return true;
}

/* +POS1: fields and characters from 0. */
bool
sort_key_parse_obsolete(const char *pos1, sort_key *k)
{
    memset(k, 0, sizeof *k);
    const char *s = key_count(pos1 + 1, &k->sk_sword);
    if (s != NULL && *s == '.')
        s = key_count(s + 1, &k->sk_schar);
    if (s == NULL)
        return false;
    if (k->sk_sword == 0 && k->sk_schar == 0)
        k->sk_sword = SORT_LINE_EDGE;
    s = key_letters(s, k, false);
    k->sk_eword = SORT_LINE_EDGE;
    return *s == '\0';
}

/* -POS2 names the field the key ends after or, with .C, C bytes into the
 * field after it. */
bool
sort_key_parse_end(const char *pos2, sort_key *k, char *err, size_t errsz)
{
    const char *s = key_count(pos2 + 1, &k->sk_eword), *n;
    if (s == NULL)
        return key_bad_count(pos2 + 1, "invalid number after '-'", err, errsz);
    if (*s == '.') {
        if ((n = key_count(s + 1, &k->sk_echar)) == NULL)
            return key_bad_count(s + 1, "invalid number after '.'", err, errsz);
        s = n;
    }
    if (k->sk_echar == 0 && k->sk_eword > 0)
        k->sk_eword--;
    s = key_letters(s, k, true);
    if (*s != '\0')
        return key_bad(pos2, "stray character in field spec", err, errsz);
    return true;
}

void
sort_key_letters(unsigned flags, char *buf)
{
    static const struct {
        unsigned f;
        char c;
    } order[] = {
        {SK_DICT, 'd'},    {SK_FOLD, 'f'},     {SK_GENERAL, 'g'},
        {SK_HUMAN, 'h'},   {SK_NONPRINT, 'i'}, {SK_MONTH, 'M'},
        {SK_NUMERIC, 'n'}, {SK_RANDOM, 'R'},   {SK_VERSION, 'V'},
    };
    if (flags & SK_DICT)
        flags &= ~(unsigned)SK_NONPRINT; // d wins over i
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++)
        if (flags & order[i].f)
            *buf++ = order[i].c;
    *buf = '\0';
}

bool
sort_key_conflict(unsigned flags)
{
    int n = !!(flags & SK_NUMERIC) + !!(flags & SK_GENERAL) +
            !!(flags & SK_HUMAN) + !!(flags & SK_MONTH) +
            !!(flags & (SK_VERSION | SK_RANDOM | SK_DICT | SK_NONPRINT));
    return n > 1;
}

/* ---- where a key lies ---- */

static bool
key_blank(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* Past count fields from p: with -t, past count separators; else past
 * count runs of blanks and the non-blanks after them. */
static const char *
key_skip_fields(const sort_order *o, const char *p, const char *lim,
                size_t count)
{
    for (; count > 0 && p < lim; count--) {
        if (o->so_tab >= 0) {
            while (p < lim && (unsigned char)*p != o->so_tab)
                p++;
            if (p < lim)
                p++;
        } else {
            while (p < lim && key_blank((unsigned char)*p))
                p++;
            while (p < lim && !key_blank((unsigned char)*p))
                p++;
        }
    }
    return p;
}

static const char *
key_start(const sort_order *o, const sort_key *k, const char *p,
          const char *lim)
{
    p = key_skip_fields(o, p, lim, k->sk_sword);
    if (k->sk_flags & SK_BLANK_START)
        while (p < lim && key_blank((unsigned char)*p))
            p++;
    return (size_t)(lim - p) < k->sk_schar ? lim : p + k->sk_schar;
}

/*
 * The end of the key: the end of field sk_eword, or sk_echar bytes into
 * it. With -t the separator that ends the last whole field is not
 * passed, so the key stops before it.
 */
static const char *
key_end(const sort_order *o, const sort_key *k, const char *p, const char *lim)
{
    size_t fields = k->sk_eword + (k->sk_echar == 0);
    if (o->so_tab >= 0) {
        for (; fields > 0 && p < lim; fields--) {
            while (p < lim && (unsigned char)*p != o->so_tab)
                p++;
            if (p < lim && (fields > 1 || k->sk_echar != 0))
                p++;
        }
    } else {
        p = key_skip_fields(o, p, lim, fields);
    }
    if (k->sk_echar != 0) {
        if (k->sk_flags & SK_BLANK_END)
            while (p < lim && key_blank((unsigned char)*p))
                p++;
        p = (size_t)(lim - p) < k->sk_echar ? lim : p + k->sk_echar;
    }
    return p;
}

/* The key k of line l: [*beg, *beg + *len). */
static void
key_find(const sort_order *o, const sort_key *k, const sort_line *l,
         const char **beg, size_t *len)
{
    const char *line = l->sl_text, *end = l->sl_text + l->sl_len;
    const char *lim =
        k->sk_eword == SORT_LINE_EDGE ? end : key_end(o, k, line, end);
    const char *b;
    if (k->sk_sword != SORT_LINE_EDGE) {
        b = key_start(o, k, line, end);
    } else {
        b = line;
        if (k->sk_flags & SK_BLANK_START)
            while (b < lim && key_blank((unsigned char)*b))
                b++;
    }
    *beg = b;
    *len = lim > b ? (size_t)(lim - b) : 0;
}

/* ---- comparing ---- */

static int
key_bytes(const char *a, size_t an, const char *b, size_t bn)
{
    int d = memcmp(a, b, an < bn ? an : bn);
    if (d != 0)
        return d;
    return an < bn ? -1 : an > bn;
}

static unsigned char
key_upper(unsigned char c)
{
    return c >= 'a' && c <= 'z' ? (unsigned char)(c - 'a' + 'A') : c;
}

/* Whether -d or -i drops byte c (C.UTF-8: no byte past 0x7f is a
 * letter, a digit or printable). */
static bool
key_ignored(unsigned flags, unsigned char c)
{
    if (flags & SK_DICT)
        return !key_blank(c) &&
               !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
                 (c >= 'A' && c <= 'Z'));
    if (flags & SK_NONPRINT)
        return c < 0x20 || c >= 0x7f;
    return false;
}

/* Text order with -d, -i or -f: byte by byte over what is kept. */
static int
key_text_filtered(unsigned flags, const char *a, size_t an, const char *b,
                  size_t bn)
{
    bool fold = flags & SK_FOLD;
    size_t i = 0, j = 0;
    for (;;) {
        while (i < an && key_ignored(flags, (unsigned char)a[i]))
            i++;
        while (j < bn && key_ignored(flags, (unsigned char)b[j]))
            j++;
        if (i >= an || j >= bn)
            return (i < an) - (j < bn);
        unsigned char x = (unsigned char)a[i++], y = (unsigned char)b[j++];
        if (fold) {
            x = key_upper(x);
            y = key_upper(y);
        }
        if (x != y)
            return x - y;
    }
}

/* The key as -d/-i/-f leave it, NUL-terminated, in buf (room for n+1). */
static size_t
key_copy(unsigned flags, const char *p, size_t n, char *buf)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (key_ignored(flags, c))
            continue;
        buf[m++] = (char)(flags & SK_FOLD ? key_upper(c) : c);
    }
    buf[m] = '\0';
    return m;
}

/* -R: a keyed 64-bit hash (FNV-1a, then a finalizer to spread it). */
static uint64_t
key_hash(uint64_t seed, const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u ^ seed;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 0x100000001b3u;
    }
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdu;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53u;
    h ^= h >> 33;
    return h;
}

/* One key of a and b, before its reverse. */
static int
key_compare_one(const sort_order *o, const sort_key *k, const char *a,
                size_t an, const char *b, size_t bn)
{
    unsigned f = k->sk_flags;
    unsigned value =
        SK_NUMERIC | SK_GENERAL | SK_HUMAN | SK_MONTH | SK_RANDOM | SK_VERSION;
    if (!(f & value)) {
        if (f & (SK_DICT | SK_NONPRINT | SK_FOLD))
            return key_text_filtered(f, a, an, b, bn);
        return key_bytes(a, an, b, bn);
    }
    if ((f & (SK_DICT | SK_NONPRINT | SK_FOLD | SK_GENERAL))) {
        // A filtered or NUL-terminated copy: the scratch buffers are
        // longer than any line.
        an = key_copy(f, a, an, o->so_scratch[0]);
        bn = key_copy(f, b, bn, o->so_scratch[1]);
        a = o->so_scratch[0];
        b = o->so_scratch[1];
    }
    if (f & SK_NUMERIC)
        return sort_cmp_numeric(a, an, b, bn);
    if (f & SK_GENERAL)
        return sort_cmp_general(a, b);
    if (f & SK_HUMAN)
        return sort_cmp_human(a, an, b, bn);
    if (f & SK_MONTH)
        return sort_cmp_month(a, an, b, bn);
    if (f & SK_RANDOM) {
        uint64_t x = key_hash(o->so_seed, a, an);
        uint64_t y = key_hash(o->so_seed, b, bn);
        if (x != y)
            return x < y ? -1 : 1;
        return key_bytes(a, an, b, bn);
    }
    return sort_cmp_version(a, an, b, bn);
}

void
sort_key_locate(const sort_order *o, sort_line *l)
{
    if (o->so_nkeys > 0)
        key_find(o, &o->so_keys[0], l, &l->sl_key, &l->sl_keylen);
}

int
sort_compare(const sort_order *o, const sort_line *a, const sort_line *b)
{
    for (size_t i = 0; i < o->so_nkeys; i++) {
        const sort_key *k = &o->so_keys[i];
        const char *ka = a->sl_key, *kb = b->sl_key;
        size_t an = a->sl_keylen, bn = b->sl_keylen;
        if (i > 0) {
            key_find(o, k, a, &ka, &an);
            key_find(o, k, b, &kb, &bn);
        }
        int d = key_compare_one(o, k, ka, an, kb, bn);
        if (d != 0)
            return (k->sk_flags & SK_REVERSE) ? (d < 0) - (d > 0) : d;
    }
    if (o->so_nkeys > 0 && o->so_keys_only)
        return 0;
    int d = key_bytes(a->sl_text, a->sl_len, b->sl_text, b->sl_len);
    return o->so_reverse ? (d < 0) - (d > 0) : d;
}
