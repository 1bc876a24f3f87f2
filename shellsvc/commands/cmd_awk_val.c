/* SPDX-License-Identifier: Apache-2.0 */
/* awk's values and arrays: numbers and strings as POSIX converts them
 * (CONVFMT, integers printed whole), strnums from input, comparisons, and
 * associative arrays as hash tables that remember insertion order. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_awk.h"

void
awk_val_free(awk_val *v)
{
    box_free(v->v_str);
    v->v_str = NULL;
    v->v_type = AV_UNINIT;
    v->v_hasnum = false;
}

awk_val
awk_num(double d)
{
    awk_val v = {.v_type = AV_NUM, .v_hasnum = true, .v_num = d};
    return v;
}

awk_val
awk_str_take(char *s, size_t n)
{
    awk_val v = {.v_type = AV_STR, .v_str = s, .v_len = n};
    return v;
}

awk_val
awk_str(awk *a, const char *s, size_t n)
{
    char *c = box_alloc(n + 1);
    if (c == NULL) {
        awk_fatal(a, "out of memory");
        return awk_str_take(NULL, 0);
    }
    if (n > 0)
        memcpy(c, s, n);
    c[n] = '\0';
    return awk_str_take(c, n);
}

awk_val
awk_input(awk *a, const char *s, size_t n)
{
    awk_val v = awk_str(a, s, n);
    v.v_type = AV_INPUT;
    return v;
}

awk_val
awk_val_dup(awk *a, const awk_val *v)
{
    awk_val r = *v;
    if (v->v_str != NULL) {
        awk_val s = awk_str(a, v->v_str, v->v_len);
        r.v_str = s.v_str;
    }
    return r;
}

/* The numeric prefix of s as awk reads a string: blanks, a sign, decimal
 * digits with a point and an exponent (no hex, no "inf" words unless
 * signed, as gawk). */
static size_t
num_prefix(const char *s, size_t n, size_t *start)
{
    size_t i = 0;
    while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' ||
                     s[i] == '\r' || s[i] == '\f' || s[i] == '\v'))
        i++;
    *start = i;
    if (i < n && (s[i] == '+' || s[i] == '-')) {
        if (n - i >= 4 && (strncasecmp(s + i + 1, "inf", 3) == 0 ||
                           strncasecmp(s + i + 1, "nan", 3) == 0))
            return i + 4;
        i++;
    }
    size_t d0 = i;
    while (i < n && isdigit((unsigned char)s[i]))
        i++;
    size_t digits = i - d0;
    if (i < n && s[i] == '.') {
        i++;
        size_t f0 = i;
        while (i < n && isdigit((unsigned char)s[i]))
            i++;
        digits += i - f0;
    }
    if (digits == 0)
        return *start;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t e = i + 1;
        if (e < n && (s[e] == '+' || s[e] == '-'))
            e++;
        if (e < n && isdigit((unsigned char)s[e])) {
            while (e < n && isdigit((unsigned char)s[e]))
                e++;
            i = e;
        }
    }
    return i;
}

static double
parse_prefix(const char *s, size_t start, size_t end)
{
    if (end <= start)
        return 0;
    char tmp[128];
    size_t len = end - start;
    if (len < sizeof tmp) {
        memcpy(tmp, s + start, len);
        tmp[len] = '\0';
        return strtod(tmp, NULL);
    }
    char *c = box_strndup(s + start, len);
    double d = c != NULL ? strtod(c, NULL) : 0;
    box_free(c);
    return d;
}

double
awk_strtod(const char *s, size_t n)
{
    size_t start;
    size_t end = num_prefix(s, n, &start);
    return parse_prefix(s, start, end);
}

bool
awk_looks_numeric(const char *s, size_t n, double *d)
{
    size_t start;
    size_t end = num_prefix(s, n, &start);
    if (end == start)
        return false;
    for (size_t i = end; i < n; i++)
        if (!isspace((unsigned char)s[i]))
            return false;
    *d = parse_prefix(s, start, end);
    return true;
}

/* AV_INPUT: looks at the string once. */
static void
resolve(awk_val *v)
{
    if (v->v_type != AV_INPUT)
        return;
    double d;
    if (awk_looks_numeric(v->v_str, v->v_len, &d)) {
        v->v_type = AV_STRNUM;
        v->v_num = d;
        v->v_hasnum = true;
    } else {
        v->v_type = AV_STR;
    }
}

double
awk_tonum(awk_val *v)
{
    if (v->v_hasnum)
        return v->v_num;
    if (v->v_type == AV_UNINIT || v->v_str == NULL)
        return 0;
    v->v_num = awk_strtod(v->v_str, v->v_len);
    v->v_hasnum = true;
    return v->v_num;
}

size_t
awk_numstr(double d, const char *fmt, char *buf, size_t len)
{
    int k;
    if (isnan(d))
        k = snprintf(buf, len, "%s", signbit(d) ? "-nan" : "+nan");
    else if (isinf(d))
        k = snprintf(buf, len, "%s", d < 0 ? "-inf" : "+inf");
    else if (d == (double)(long long)d && fabs(d) < 1e18)
        k = snprintf(buf, len, "%lld", (long long)d);
    else if (d == floor(d))
        k = snprintf(buf, len, "%.0f", d);
    else
        k = snprintf(buf, len, fmt, d);
    return k < 0 ? 0 : (size_t)k >= len ? len - 1 : (size_t)k;
}

const char *
awk_tostr(awk *a, awk_val *v, size_t *len)
{
    if (v->v_str != NULL) {
        *len = v->v_len;
        return v->v_str;
    }
    if (v->v_type == AV_UNINIT) {
        *len = 0;
        return "";
    }
    char buf[512];
    size_t fl;
    const char *fmt = awk_var_str(a, V_CONVFMT, &fl);
    size_t n = awk_numstr(v->v_num, fmt, buf, sizeof buf);
    awk_val s = awk_str(a, buf, n);
    if (s.v_str == NULL) {
        *len = 0;
        return "";
    }
    // kept in v (most values are temporaries of one expression)
    v->v_str = s.v_str;
    v->v_len = n;
    *len = n;
    return v->v_str;
}

const char *
awk_outstr(awk *a, awk_val *v, char *tmp, size_t tmplen, size_t *len)
{
    if (v->v_type == AV_NUM) {
        size_t fl;
        const char *fmt = awk_var_str(a, V_OFMT, &fl);
        *len = awk_numstr(v->v_num, fmt, tmp, tmplen);
        return tmp;
    }
    return awk_tostr(a, v, len);
}

bool
awk_val_true(awk_val *v)
{
    resolve(v);
    switch (v->v_type) {
    case AV_NUM:
        return v->v_num != 0;
    case AV_STRNUM:
        return v->v_num != 0;
    case AV_STR:
        return v->v_len > 0;
    default:
        return false;
    }
}

int
awk_compare(awk *a, awk_val *x, awk_val *y)
{
    resolve(x);
    resolve(y);
    bool xn = x->v_type == AV_NUM || x->v_type == AV_STRNUM ||
              x->v_type == AV_UNINIT;
    bool yn = y->v_type == AV_NUM || y->v_type == AV_STRNUM ||
              y->v_type == AV_UNINIT;
    if (xn && yn) {
        double p = awk_tonum(x), q = awk_tonum(y);
        if (isnan(p) || isnan(q))
            return 1; // NaN equals nothing, itself included
        return p < q ? -1 : p > q ? 1 : 0;
    }
    size_t lx, ly;
    const char *sx = awk_tostr(a, x, &lx);
    const char *sy = awk_tostr(a, y, &ly);
    int c = memcmp(sx, sy, lx < ly ? lx : ly);
    if (c != 0)
        return c;
    return lx < ly ? -1 : lx > ly ? 1 : 0;
}

/* ---- arrays ---- */

typedef struct awk_elem {
    char *e_key;
    size_t e_klen;
    uint64_t e_hash;
    awk_val e_val;
    int64_t e_next;   // the next in the bucket, -1 at the end
    bool e_dead;
} awk_elem;

struct awk_arr {
    awk_elem *r_elems; // in insertion order, dead ones kept until a rehash
    size_t r_n, r_cap, r_live;
    int64_t *r_buckets;
    size_t r_nbuckets; // a power of 2
};

static uint64_t
hash(const char *k, size_t n)
{
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)k[i];
        h *= 1099511628211ull;
    }
    // mixed so the low bits (the bucket) depend on every byte
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return h;
}

awk_arr *
awk_arr_new(void)
{
    return box_calloc(1, sizeof(awk_arr));
}

void
awk_arr_clear(awk *a, awk_arr *r)
{
    for (size_t i = 0; i < r->r_n; i++) {
        if (!r->r_elems[i].e_dead) {
            box_free(r->r_elems[i].e_key);
            awk_val_free(&r->r_elems[i].e_val);
        }
    }
    if (a != NULL)
        a->a_elems -= r->r_live;
    box_free(r->r_elems);
    box_free(r->r_buckets);
    memset(r, 0, sizeof *r);
}

void
awk_arr_free(awk *a, awk_arr *r)
{
    if (r == NULL)
        return;
    awk_arr_clear(a, r);
    box_free(r);
}

size_t
awk_arr_count(const awk_arr *r)
{
    return r->r_live;
}

/* Rebuilds the table for at least want live elements: dead ones go. */
static bool
rehash(awk_arr *r, size_t want)
{
    size_t nb = 16;
    while (nb < want * 2)
        nb *= 2;
    int64_t *b = box_alloc(nb * sizeof *b);
    if (b == NULL)
        return false;
    for (size_t i = 0; i < nb; i++)
        b[i] = -1;
    size_t k = 0;
    for (size_t i = 0; i < r->r_n; i++) {
        if (r->r_elems[i].e_dead)
            continue;
        r->r_elems[k] = r->r_elems[i];
        size_t h = (size_t)(r->r_elems[k].e_hash & (nb - 1));
        r->r_elems[k].e_next = b[h];
        b[h] = (int64_t)k;
        k++;
    }
    r->r_n = k;
    box_free(r->r_buckets);
    r->r_buckets = b;
    r->r_nbuckets = nb;
    return true;
}

static int64_t
find(const awk_arr *r, const char *k, size_t n, uint64_t h)
{
    if (r->r_nbuckets == 0)
        return -1;
    for (int64_t i = r->r_buckets[h & (r->r_nbuckets - 1)]; i >= 0;
         i = r->r_elems[i].e_next) {
        const awk_elem *e = &r->r_elems[i];
        if (!e->e_dead && e->e_hash == h && e->e_klen == n &&
            memcmp(e->e_key, k, n) == 0)
            return i;
    }
    return -1;
}

awk_val *
awk_arr_get(awk *a, awk_arr *r, const char *k, size_t n, bool create)
{
    uint64_t h = hash(k, n);
    int64_t i = find(r, k, n, h);
    if (i >= 0)
        return &r->r_elems[i].e_val;
    if (!create)
        return NULL;
    if (a->a_elems >= AWK_ELEMS_MAX) {
        awk_fatal(a, "too many array elements (limit %u)", AWK_ELEMS_MAX);
        return NULL;
    }
    if (r->r_n == r->r_cap) {
        if (r->r_live < r->r_n / 2 && r->r_n > 0) {
            if (!rehash(r, r->r_live + 1))
                goto oom;
        }
        if (r->r_n == r->r_cap) {
            size_t cap = r->r_cap ? r->r_cap * 2 : 8;
            awk_elem *v = box_realloc(r->r_elems, cap * sizeof *v);
            if (v == NULL)
                goto oom;
            r->r_elems = v;
            r->r_cap = cap;
        }
    }
    if (r->r_n + 1 > r->r_nbuckets && !rehash(r, r->r_n + 1))
        goto oom;
    awk_elem *e = &r->r_elems[r->r_n];
    memset(e, 0, sizeof *e);
    e->e_key = box_alloc(n + 1);
    if (e->e_key == NULL)
        goto oom;
    memcpy(e->e_key, k, n);
    e->e_key[n] = '\0';
    e->e_klen = n;
    e->e_hash = h;
    size_t b = (size_t)(h & (r->r_nbuckets - 1));
    e->e_next = r->r_buckets[b];
    r->r_buckets[b] = (int64_t)r->r_n;
    r->r_n++;
    r->r_live++;
    a->a_elems++;
    return &e->e_val;
oom:
    awk_fatal(a, "out of memory");
    return NULL;
}

bool
awk_arr_del(awk *a, awk_arr *r, const char *k, size_t n)
{
    int64_t i = find(r, k, n, hash(k, n));
    if (i < 0)
        return false;
    awk_elem *e = &r->r_elems[i];
    box_free(e->e_key);
    e->e_key = NULL;
    awk_val_free(&e->e_val);
    e->e_dead = true;
    r->r_live--;
    a->a_elems--;
    // unlink is lazy: find skips dead entries; the next rehash drops them
    return true;
}

/* A key gawk keeps as an integer (a canonical decimal of one >= 0): its
 * `for (k in a)` gives those in ascending order, after the others. */
static bool
int_key(const char *k, size_t n, unsigned long long *v)
{
    if (n == 0 || n > 18 || (n > 1 && k[0] == '0'))
        return false;
    unsigned long long x = 0;
    for (size_t i = 0; i < n; i++) {
        if (k[i] < '0' || k[i] > '9')
            return false;
        x = x * 10 + (unsigned long long)(k[i] - '0');
    }
    *v = x;
    return true;
}

typedef struct key_ord {
    unsigned long long ko_v;
    size_t ko_i;
} key_ord;

static int
key_cmp(const void *x, const void *y)
{
    const key_ord *a = x, *b = y;
    return a->ko_v < b->ko_v ? -1 : a->ko_v > b->ko_v;
}

char **
awk_arr_keys(awk_arr *r, size_t **lens, size_t *n)
{
    *n = 0;
    *lens = NULL;
    char **keys = box_calloc(r->r_live + 1, sizeof *keys);
    size_t *ls = box_calloc(r->r_live + 1, sizeof *ls);
    key_ord *ints = box_calloc(r->r_live + 1, sizeof *ints);
    if (keys == NULL || ls == NULL || ints == NULL)
        goto fail;
    size_t k = 0, ni = 0;
    // the other keys first, in the order they came
    for (size_t i = 0; i < r->r_n; i++) {
        const awk_elem *e = &r->r_elems[i];
        unsigned long long v;
        if (e->e_dead)
            continue;
        if (int_key(e->e_key, e->e_klen, &v)) {
            ints[ni].ko_v = v;
            ints[ni++].ko_i = i;
            continue;
        }
        if ((keys[k] = box_strndup(e->e_key, e->e_klen)) == NULL)
            goto fail;
        ls[k++] = e->e_klen;
    }
    qsort(ints, ni, sizeof *ints, key_cmp);
    for (size_t j = 0; j < ni; j++) {
        const awk_elem *e = &r->r_elems[ints[j].ko_i];
        if ((keys[k] = box_strndup(e->e_key, e->e_klen)) == NULL)
            goto fail;
        ls[k++] = e->e_klen;
    }
    box_free(ints);
    *n = k;
    *lens = ls;
    return keys;
fail:
    for (size_t j = 0; keys != NULL && j < r->r_live; j++)
        box_free(keys[j]);
    box_free(keys);
    box_free(ls);
    box_free(ints);
    return NULL;
}
