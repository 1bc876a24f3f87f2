/* SPDX-License-Identifier: Apache-2.0 */
/* Array storage of shell variables: indexed (sparse) and associative. */
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_array.h"

/* bash 5.2's hash table size for associative arrays (assoc.h). */
#define ASSOC_BUCKETS 1024u

typedef struct el {
    long long e_idx; // indexed: the index; associative: the bucket
    char *e_key;     // associative only
    char *e_val;
} el;

/*
 * Indexed: ar_el sorted by index (appending, the common case, is O(1)).
 * Associative: ar_el in insertion order with an open-addressing index
 * (ar_slot: position + 1, 0 empty) for lookups, and the listing order
 * (ar_order) sorted only when listed after a change, so building a map
 * of n keys costs O(n), not O(n^2).
 */
struct sh_array {
    bool ar_assoc;
    el *ar_el;
    size_t ar_n, ar_cap;
    size_t ar_bytes;
    size_t *ar_slot; // associative: hash index, ar_nslot a power of 2
    size_t ar_nslot;
    size_t *ar_order; // associative: listing order (positions in ar_el)
    bool ar_dirty;    // ar_order is stale
};

static box_err reindex(sh_array *a);

sh_array *
sh_array_new(bool assoc)
{
    sh_array *a = box_calloc(1, sizeof *a);
    if (a != NULL)
        a->ar_assoc = assoc;
    return a;
}

void
sh_array_free(sh_array *a)
{
    if (a == NULL)
        return;
    for (size_t i = 0; i < a->ar_n; i++) {
        box_free(a->ar_el[i].e_key);
        box_free(a->ar_el[i].e_val);
    }
    box_free(a->ar_el);
    box_free(a->ar_slot);
    box_free(a->ar_order);
    box_free(a);
}

sh_array *
sh_array_dup(const sh_array *a)
{
    sh_array *d = sh_array_new(a->ar_assoc);
    if (d == NULL)
        return NULL;
    if (a->ar_n > 0 &&
        (d->ar_el = box_calloc(a->ar_n, sizeof *d->ar_el)) == NULL)
        goto fail;
    d->ar_cap = a->ar_n;
    for (size_t i = 0; i < a->ar_n; i++) {
        el *e = &d->ar_el[i];
        e->e_idx = a->ar_el[i].e_idx;
        d->ar_n = i + 1;
        if ((e->e_val = box_strdup(a->ar_el[i].e_val)) == NULL ||
            (a->ar_el[i].e_key != NULL &&
             (e->e_key = box_strdup(a->ar_el[i].e_key)) == NULL))
            goto fail;
    }
    d->ar_bytes = a->ar_bytes;
    d->ar_dirty = true;
    if (d->ar_assoc && d->ar_n > 0 && reindex(d) != BOX_OK)
        goto fail;
    return d;
fail:
    sh_array_free(d);
    return NULL;
}

bool
sh_array_assoc(const sh_array *a)
{
    return a->ar_assoc;
}

size_t
sh_array_count(const sh_array *a)
{
    return a->ar_n;
}

size_t
sh_array_bytes(const sh_array *a)
{
    return a->ar_bytes;
}

/* The first element whose e_idx is >= idx (binary search). */
static size_t
lower_bound(const sh_array *a, long long idx)
{
    size_t lo = 0, hi = a->ar_n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->ar_el[mid].e_idx < idx)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* Opens a slot at position pos; NULL at the cap or on ENOMEM. */
static el *
insert_at(sh_array *a, size_t pos, box_err *err)
{
    if (a->ar_n >= SH_ARRAY_MAX) {
        *err = BOX_ETOOBIG;
        return NULL;
    }
    if (a->ar_n == a->ar_cap) {
        size_t cap = a->ar_cap ? a->ar_cap * 2 : 8;
        el *ne = box_realloc(a->ar_el, cap * sizeof *ne);
        if (ne == NULL) {
            *err = BOX_ENOMEM;
            return NULL;
        }
        a->ar_el = ne;
        a->ar_cap = cap;
    }
    memmove(&a->ar_el[pos + 1], &a->ar_el[pos],
            (a->ar_n - pos) * sizeof *a->ar_el);
    a->ar_n++;
    memset(&a->ar_el[pos], 0, sizeof a->ar_el[pos]);
    return &a->ar_el[pos];
}

static void
remove_at(sh_array *a, size_t pos)
{
    el *e = &a->ar_el[pos];
    a->ar_bytes -= strlen(e->e_val) + (e->e_key ? strlen(e->e_key) : 0);
    box_free(e->e_key);
    box_free(e->e_val);
    memmove(e, e + 1, (a->ar_n - pos - 1) * sizeof *e);
    a->ar_n--;
}

static box_err
replace_val(sh_array *a, el *e, const char *v, size_t n)
{
    char *c = box_strndup(v, n);
    if (c == NULL)
        return BOX_ENOMEM;
    if (e->e_val != NULL)
        a->ar_bytes -= strlen(e->e_val);
    box_free(e->e_val);
    e->e_val = c;
    a->ar_bytes += strlen(c);
    return BOX_OK;
}

const char *
sh_array_get(const sh_array *a, long long i)
{
    size_t p = lower_bound(a, i);
    return p < a->ar_n && a->ar_el[p].e_idx == i ? a->ar_el[p].e_val : NULL;
}

long long
sh_array_max_index(const sh_array *a)
{
    return a->ar_n > 0 ? a->ar_el[a->ar_n - 1].e_idx : -1;
}

box_err
sh_array_set(sh_array *a, long long i, const char *v, size_t n)
{
    size_t p = lower_bound(a, i);
    if (p < a->ar_n && a->ar_el[p].e_idx == i)
        return replace_val(a, &a->ar_el[p], v, n);
    char *c = box_strndup(v, n);
    if (c == NULL)
        return BOX_ENOMEM;
    box_err err = BOX_OK;
    el *e = insert_at(a, p, &err);
    if (e == NULL) {
        box_free(c);
        return err;
    }
    e->e_idx = i;
    e->e_val = c;
    a->ar_bytes += strlen(c);
    return BOX_OK;
}

void
sh_array_unset(sh_array *a, long long i)
{
    size_t p = lower_bound(a, i);
    if (p < a->ar_n && a->ar_el[p].e_idx == i)
        remove_at(a, p);
}

/* bash's hash_string (hashlib.c): 32-bit FNV-1 over the key's bytes as
 * the platform's (signed) char. */
static unsigned int
fnv1(const char *key)
{
    unsigned int h = 2166136261u;
    for (const char *s = key; *s; s++) {
        h *= 16777619u;
        h ^= (unsigned int)(int)*s;
    }
    return h;
}

/* The slot of key in the index: where it is, or the empty slot where it
 * would go. */
static size_t
slot_of(const sh_array *a, const char *key)
{
    size_t mask = a->ar_nslot - 1;
    // Mix the high bits in: bash's bucket is only the low 10.
    size_t i = (size_t)fnv1(key) * 2654435761u & mask;
    while (a->ar_slot[i] != 0 &&
           strcmp(a->ar_el[a->ar_slot[i] - 1].e_key, key) != 0)
        i = (i + 1) & mask;
    return i;
}

/* Rebuilds the index for the current elements (growing it to keep the
 * load under a half). */
static box_err
reindex(sh_array *a)
{
    size_t want = 16;
    while (want < a->ar_n * 2 + 2)
        want *= 2;
    if (want != a->ar_nslot) {
        size_t *ns = box_calloc(want, sizeof *ns);
        if (ns == NULL)
            return BOX_ENOMEM;
        box_free(a->ar_slot);
        a->ar_slot = ns;
        a->ar_nslot = want;
    } else {
        memset(a->ar_slot, 0, want * sizeof *a->ar_slot);
    }
    for (size_t p = 0; p < a->ar_n; p++)
        a->ar_slot[slot_of(a, a->ar_el[p].e_key)] = p + 1;
    return BOX_OK;
}

/* The position of key, or a->ar_n. */
static size_t
find_key(const sh_array *a, const char *key)
{
    if (a->ar_nslot == 0)
        return a->ar_n;
    size_t s = a->ar_slot[slot_of(a, key)];
    return s != 0 ? s - 1 : a->ar_n;
}

const char *
sh_array_get_key(const sh_array *a, const char *key)
{
    size_t p = find_key(a, key);
    return p < a->ar_n ? a->ar_el[p].e_val : NULL;
}

box_err
sh_array_set_key(sh_array *a, const char *key, const char *v, size_t n)
{
    size_t p = find_key(a, key);
    if (p < a->ar_n)
        return replace_val(a, &a->ar_el[p], v, n);
    char *k = box_strdup(key), *c = box_strndup(v, n);
    box_err err = BOX_ENOMEM;
    el *e = NULL;
    // Grow the index first (sized for one more), then open the slot.
    if (k != NULL && c != NULL &&
        ((a->ar_n + 1) * 2 <= a->ar_nslot || (err = reindex(a)) == BOX_OK) &&
        (e = insert_at(a, a->ar_n, &err)) != NULL)
        err = BOX_OK;
    if (err != BOX_OK) {
        box_free(k);
        box_free(c);
        return err;
    }
    e->e_idx = (long long)(fnv1(key) & (ASSOC_BUCKETS - 1u));
    e->e_key = k;
    e->e_val = c;
    a->ar_bytes += strlen(k) + strlen(c);
    a->ar_slot[slot_of(a, k)] = a->ar_n;
    a->ar_dirty = true;
    return BOX_OK;
}

void
sh_array_unset_key(sh_array *a, const char *key)
{
    size_t p = find_key(a, key);
    if (p >= a->ar_n)
        return;
    remove_at(a, p);
    a->ar_dirty = true;
    (void)reindex(a); // same size or smaller: no allocation
}

/* Listing order: bucket ascending, and within a bucket the newest key
 * first (bash's hash_insert puts a new key at the front). */
static _Thread_local const sh_array *sort_base; // qsort has no argument
static int
cmp_listing(const void *x, const void *y)
{
    size_t p = *(const size_t *)x, q = *(const size_t *)y;
    long long bp = sort_base->ar_el[p].e_idx, bq = sort_base->ar_el[q].e_idx;
    if (bp != bq)
        return bp < bq ? -1 : 1;
    return p < q ? 1 : (p > q ? -1 : 0);
}

/* Sorts ar_order when stale; false on ENOMEM (then insertion order). */
static bool
listing(sh_array *a)
{
    if (!a->ar_dirty)
        return true;
    size_t *o = box_realloc(a->ar_order, (a->ar_n + 1) * sizeof *o);
    if (o == NULL)
        return false;
    a->ar_order = o;
    for (size_t i = 0; i < a->ar_n; i++)
        o[i] = i;
    sort_base = a;
    qsort(o, a->ar_n, sizeof *o, cmp_listing);
    a->ar_dirty = false;
    return true;
}

const char *
sh_array_at(const sh_array *a, size_t k, const char **key, long long *index)
{
    // The listing order is a cache: sorting it changes no element.
    sh_array *m = (sh_array *)a;
    if (m->ar_assoc && listing(m))
        k = m->ar_order[k];
    const el *e = &a->ar_el[k];
    *key = e->e_key;
    *index = e->e_idx;
    return e->e_val;
}
