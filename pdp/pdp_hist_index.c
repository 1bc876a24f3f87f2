/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Value indexes over a history: for the events of one (action, kind),
 * the sequence numbers of those whose field at one path holds each value,
 * ascending. A predicate that fixes that field (`input.path:
 * context.input.path`, a literal, a bound variable) then finds its events
 * directly instead of walking every event of its action.
 */
#include <string.h>

#include "box_alloc.h"
#include "pdp_hist_int.h"
#include "box_hash.h"

#define HIX_VALUE_MAX 1024 // a longer value is not indexed (scanned)

static uint64_t
hix_hash(const char *p, size_t n)
{
    return box_fnv1a(BOX_FNV1A_INIT, p, n);
}

/* The encoded value v into buf; its length, or 0 when over the cap. */
static size_t
hix_encode(const pdp_value *v, char *buf)
{
    box_buf b;
    box_buf_init(&b, HIX_VALUE_MAX);
    size_t n = 0;
    if (pdp_value_encode(v, &b) == BOX_OK && b.b_len <= HIX_VALUE_MAX) {
        memcpy(buf, b.b_data, b.b_len);
        n = b.b_len;
    }
    box_buf_reset(&b);
    return n;
}

/* The slot of key in ix: its vector, or the empty slot it would take. */
static hix_vec *
hix_slot(const hix *ix, const char *key, size_t klen)
{
    size_t mask = ix->ix_nslots - 1;
    for (size_t i = hix_hash(key, klen) & mask;; i = (i + 1) & mask) {
        hix_vec *v = &ix->ix_slots[i];
        if (v->hv_key == NULL ||
            (v->hv_klen == klen && memcmp(v->hv_key, key, klen) == 0))
            return v;
    }
}

static bool
hix_grow(hix *ix)
{
    size_t n = ix->ix_nslots ? ix->ix_nslots * 2 : 64;
    hix old = *ix;
    ix->ix_slots = box_calloc(n, sizeof *ix->ix_slots);
    if (ix->ix_slots == NULL) {
        *ix = old;
        return false;
    }
    ix->ix_nslots = n;
    ix->ix_used = 0;
    for (size_t i = 0; i < old.ix_nslots; i++)
        if (old.ix_slots[i].hv_key != NULL) {
            *hix_slot(ix, old.ix_slots[i].hv_key, old.ix_slots[i].hv_klen) =
                old.ix_slots[i];
            ix->ix_used++;
        }
    box_free(old.ix_slots);
    return true;
}

/* Event seq (of ix's action and kind) into ix by its field's value. */
static box_err
hix_add(hix *ix, const pdp_event *e, uint64_t seq)
{
    const pdp_value *f = pdp_hist_field(e->ev_fields, ix->ix_path, ix->ix_plen);
    char key[HIX_VALUE_MAX];
    size_t klen = f != NULL ? hix_encode(f, key) : 0;
    if (klen == 0)
        return BOX_OK; // absent or too long: found by the action's chain
    if ((ix->ix_used + 1) * 2 > ix->ix_nslots && !hix_grow(ix))
        return BOX_ENOMEM;
    hix_vec *v = hix_slot(ix, key, klen);
    if (v->hv_key == NULL) {
        if ((v->hv_key = box_alloc(klen)) == NULL)
            return BOX_ENOMEM;
        memcpy(v->hv_key, key, klen);
        v->hv_klen = klen;
        ix->ix_used++;
    }
    if (v->hv_n == v->hv_cap) {
        size_t nc = v->hv_cap ? v->hv_cap * 2 : 4;
        uint64_t *ns = box_realloc(v->hv_seq, nc * sizeof *ns);
        if (ns == NULL)
            return BOX_ENOMEM;
        v->hv_seq = ns;
        v->hv_cap = nc;
    }
    v->hv_seq[v->hv_n++] = seq;
    return BOX_OK;
}

box_err
pdp_hist_index_event(pdp_hist *h, const pdp_event *e, const char *akey,
                     size_t aklen, uint64_t seq)
{
    box_err rv = BOX_OK;
    size_t i = 0;
    for (; i < h->h_nix && rv == BOX_OK; i++) {
        hix *ix = &h->h_ix[i];
        if (ix->ix_aklen == aklen && memcmp(ix->ix_akey, akey, aklen) == 0)
            rv = hix_add(ix, e, seq);
    }
    // Out of memory part-way: take seq out of the indexes it reached, so
    // none names an event the history does not keep.
    for (size_t j = 0; rv != BOX_OK && j < i; j++) {
        hix *ix = &h->h_ix[j];
        for (size_t s = 0; s < ix->ix_nslots; s++) {
            hix_vec *v = &ix->ix_slots[s];
            if (v->hv_n > 0 && v->hv_seq[v->hv_n - 1] == seq)
                v->hv_n--;
        }
    }
    return rv;
}

static hix *
hix_find(const pdp_hist *h, const char *akey, size_t aklen, const char *path,
         size_t plen)
{
    for (size_t i = 0; i < h->h_nix; i++) {
        hix *ix = &h->h_ix[i];
        if (ix->ix_aklen == aklen && ix->ix_plen == plen &&
            memcmp(ix->ix_akey, akey, aklen) == 0 &&
            memcmp(ix->ix_path, path, plen) == 0)
            return ix;
    }
    return NULL;
}

box_err
pdp_hist_index(pdp_hist *h, const pdp_value *action, const char *kind,
               size_t klen, const char *path, size_t plen)
{
    char akey[HIST_KEY_MAX];
    size_t aklen = pdp_hist_chain_key(action, kind, klen, akey, sizeof akey);
    if (aklen == 0 || hix_find(h, akey, aklen, path, plen) != NULL)
        return BOX_OK;
    if (h->h_nix == h->h_capix) {
        size_t nc = h->h_capix ? h->h_capix * 2 : 8;
        hix *nv = box_realloc(h->h_ix, nc * sizeof *nv);
        if (nv == NULL)
            return BOX_ENOMEM;
        h->h_ix = nv;
        h->h_capix = nc;
    }
    hix ix = {0};
    if ((ix.ix_akey = box_alloc(aklen)) == NULL ||
        (ix.ix_path = box_strndup(path, plen)) == NULL) {
        box_free(ix.ix_akey);
        return BOX_ENOMEM;
    }
    memcpy(ix.ix_akey, akey, aklen);
    ix.ix_aklen = aklen;
    ix.ix_plen = plen;
    // The events kept so far, oldest first, so each vector is ascending.
    box_err rv = BOX_OK;
    for (size_t i = 0; i < pdp_hist_len(h) && rv == BOX_OK; i++) {
        const pdp_event *e = pdp_hist_at(h, i);
        char ek[HIST_KEY_MAX];
        size_t eklen = pdp_hist_chain_key(e->ev_action, e->ev_kind,
                                          strlen(e->ev_kind), ek, sizeof ek);
        if (eklen == aklen && memcmp(ek, akey, aklen) == 0)
            rv = hix_add(&ix, e, pdp_hist_base(h) + i);
    }
    if (rv != BOX_OK) {
        pdp_hist_index_free(&ix);
        return rv;
    }
    h->h_ix[h->h_nix++] = ix;
    return BOX_OK;
}

/* The last position in v whose sequence number is at most seq, or -1. */
static long
hix_last_at(const hix_vec *v, uint64_t seq)
{
    size_t lo = 0, hi = v->hv_n; // answer in [lo, hi)
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (v->hv_seq[mid] <= seq)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (long)lo - 1;
}

int
pdp_hist_newest_value(const pdp_hist *h, const pdp_value *action,
                      const char *kind, size_t klen, const char *path,
                      size_t plen, const pdp_value *value, size_t at,
                      pdp_hist_cursor *cur)
{
    char akey[HIST_KEY_MAX], vkey[HIX_VALUE_MAX];
    size_t aklen = pdp_hist_chain_key(action, kind, klen, akey, sizeof akey);
    const hix *ix = aklen > 0 ? hix_find(h, akey, aklen, path, plen) : NULL;
    size_t vklen = ix != NULL ? hix_encode(value, vkey) : 0;
    if (ix == NULL || vklen == 0)
        return -1; // not indexed: the caller walks the action's chain
    cur->hc_vec = ix->ix_nslots > 0 ? hix_slot(ix, vkey, vklen) : NULL;
    if (cur->hc_vec == NULL || cur->hc_vec->hv_key == NULL)
        return 0;
    cur->hc_pos = hix_last_at(cur->hc_vec, pdp_hist_base(h) + at);
    return cur->hc_pos >= 0 &&
                   cur->hc_vec->hv_seq[cur->hc_pos] >= pdp_hist_base(h)
               ? 1
               : 0;
}

size_t
pdp_hist_cursor_at(const pdp_hist *h, const pdp_hist_cursor *cur)
{
    return (size_t)(cur->hc_vec->hv_seq[cur->hc_pos] - pdp_hist_base(h));
}

bool
pdp_hist_cursor_prev(const pdp_hist *h, pdp_hist_cursor *cur)
{
    if (cur->hc_pos <= 0)
        return false;
    cur->hc_pos--;
    return cur->hc_vec->hv_seq[cur->hc_pos] >= pdp_hist_base(h);
}

void
pdp_hist_index_trim(pdp_hist *h)
{
    uint64_t base = pdp_hist_base(h);
    for (size_t i = 0; i < h->h_nix; i++) {
        hix *ix = &h->h_ix[i];
        size_t emptied = 0;
        for (size_t s = 0; s < ix->ix_nslots; s++) {
            hix_vec *v = &ix->ix_slots[s];
            size_t k = 0;
            while (k < v->hv_n && v->hv_seq[k] < base)
                k++;
            if (k > 0) {
                memmove(v->hv_seq, v->hv_seq + k,
                        (v->hv_n - k) * sizeof *v->hv_seq);
                v->hv_n -= k;
            }
            emptied += v->hv_key != NULL && v->hv_n == 0;
        }
        if (emptied == 0)
            continue;
        // Values no kept event holds any more leave the table: it is
        // built again from the others (open addressing has no deletion).
        hix old = *ix;
        ix->ix_slots = box_calloc(old.ix_nslots, sizeof *ix->ix_slots);
        if (ix->ix_slots == NULL) {
            *ix = old; // kept as it is: still right, only larger
            continue;
        }
        ix->ix_used = 0;
        for (size_t s = 0; s < old.ix_nslots; s++) {
            hix_vec *v = &old.ix_slots[s];
            if (v->hv_key == NULL)
                continue;
            if (v->hv_n == 0) {
                box_free(v->hv_key);
                box_free(v->hv_seq);
                continue;
            }
            *hix_slot(ix, v->hv_key, v->hv_klen) = *v;
            ix->ix_used++;
        }
        box_free(old.ix_slots);
    }
}

void
pdp_hist_index_free(hix *ix)
{
    for (size_t s = 0; s < ix->ix_nslots; s++) {
        box_free(ix->ix_slots[s].hv_key);
        box_free(ix->ix_slots[s].hv_seq);
    }
    box_free(ix->ix_slots);
    box_free(ix->ix_akey);
    box_free(ix->ix_path);
}
