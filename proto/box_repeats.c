/* SPDX-License-Identifier: Apache-2.0 */
/* Distinct packed reports and the order they came in (box_repeats.h). */
#include "box_repeats.h"

#include <string.h>

#include "box_alloc.h"
#include "box_hash.h"
#include "box_wire.h"

#define REPEATS_DISTINCT_MAX 4096
#define REPEATS_ORDER_MAX 65536

struct box_repeats {
    uint8_t *rp_bytes; // the distinct strings, back to back
    size_t rp_used, rp_max_bytes;
    uint32_t *rp_off, *rp_len, *rp_hash; // per distinct string
    size_t rp_n, rp_max_distinct;
    uint16_t *rp_order; // per entry: its string's index
    size_t rp_norder, rp_max_order;
    // Open addressing over the distinct strings: index + 1, 0 empty; at
    // most half full, so a probe ends.
    uint16_t *rp_slot;
    size_t rp_mask;
};

box_repeats *
box_repeats_new(size_t max_distinct, size_t max_bytes, size_t max_order)
{
    if (max_distinct == 0 || max_distinct > REPEATS_DISTINCT_MAX ||
        max_order == 0 || max_order > REPEATS_ORDER_MAX || max_bytes == 0 ||
        max_bytes > UINT32_MAX)
        return NULL;
    size_t slots = 1;
    while (slots < 2 * max_distinct)
        slots <<= 1;
    box_repeats *r = box_calloc(1, sizeof *r);
    if (r == NULL)
        return NULL;
    r->rp_max_bytes = max_bytes;
    r->rp_max_distinct = max_distinct;
    r->rp_max_order = max_order;
    r->rp_mask = slots - 1;
    if ((r->rp_bytes = box_alloc(max_bytes)) == NULL ||
        (r->rp_off = box_calloc(max_distinct, sizeof *r->rp_off)) == NULL ||
        (r->rp_len = box_calloc(max_distinct, sizeof *r->rp_len)) == NULL ||
        (r->rp_hash = box_calloc(max_distinct, sizeof *r->rp_hash)) == NULL ||
        (r->rp_order = box_calloc(max_order, sizeof *r->rp_order)) == NULL ||
        (r->rp_slot = box_calloc(slots, sizeof *r->rp_slot)) == NULL) {
        box_repeats_free(r);
        return NULL;
    }
    return r;
}

void
box_repeats_free(box_repeats *r)
{
    if (r == NULL)
        return;
    box_free(r->rp_bytes);
    box_free(r->rp_off);
    box_free(r->rp_len);
    box_free(r->rp_hash);
    box_free(r->rp_order);
    box_free(r->rp_slot);
    box_free(r);
}

/* Reports are a few hundred bytes, hashed once each on a path every
 * served permit takes. */
static uint32_t
repeats_hash(const uint8_t *p, size_t n)
{
    return (uint32_t)box_hash_words(p, n);
}

uint8_t *
box_repeats_room(box_repeats *r, size_t *room)
{
    // A full set of distinct strings still takes repeats: the string is
    // written here to be compared.
    if (r->rp_norder >= r->rp_max_order || r->rp_used >= r->rp_max_bytes)
        return NULL;
    *room = r->rp_max_bytes - r->rp_used;
    return r->rp_bytes + r->rp_used;
}

box_err
box_repeats_keep(box_repeats *r, size_t n)
{
    if (r->rp_norder >= r->rp_max_order || n > r->rp_max_bytes - r->rp_used)
        return BOX_ETOOBIG;
    const uint8_t *p = r->rp_bytes + r->rp_used;
    uint32_t h = repeats_hash(p, n);
    size_t s = h & r->rp_mask;
    for (; r->rp_slot[s] != 0; s = (s + 1) & r->rp_mask) {
        size_t i = r->rp_slot[s] - 1u;
        if (r->rp_hash[i] == h && r->rp_len[i] == n &&
            memcmp(r->rp_bytes + r->rp_off[i], p, n) == 0) {
            r->rp_order[r->rp_norder++] = (uint16_t)i;
            return BOX_OK;
        }
    }
    if (r->rp_n >= r->rp_max_distinct)
        return BOX_ETOOBIG;
    size_t i = r->rp_n++;
    r->rp_off[i] = (uint32_t)r->rp_used;
    r->rp_len[i] = (uint32_t)n;
    r->rp_hash[i] = h;
    r->rp_slot[s] = (uint16_t)(i + 1);
    r->rp_used += n;
    r->rp_order[r->rp_norder++] = (uint16_t)i;
    return BOX_OK;
}

size_t
box_repeats_last(const box_repeats *r)
{
    return r->rp_norder > 0 ? r->rp_order[r->rp_norder - 1] : 0;
}

box_err
box_repeats_again(box_repeats *r, size_t i)
{
    if (i >= r->rp_n)
        return BOX_EINVAL;
    if (r->rp_norder >= r->rp_max_order)
        return BOX_ETOOBIG;
    r->rp_order[r->rp_norder++] = (uint16_t)i;
    return BOX_OK;
}

box_err
box_repeats_add(box_repeats *r, const void *p, size_t n)
{
    size_t room;
    uint8_t *at = box_repeats_room(r, &room);
    if (at == NULL || n > room)
        return BOX_ETOOBIG;
    memcpy(at, p, n);
    return box_repeats_keep(r, n);
}

size_t
box_repeats_entries(const box_repeats *r)
{
    return r->rp_norder;
}

size_t
box_repeats_distinct(const box_repeats *r)
{
    return r->rp_n;
}

size_t
box_repeats_bytes(const box_repeats *r)
{
    return r->rp_used;
}

bool
box_repeats_any(const box_repeats *r)
{
    // Strings are kept in the order of their first entry: with none
    // repeated, the order is 0, 1, 2, … and goes unsaid.
    return r->rp_norder != r->rp_n;
}

static size_t
varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 128) {
        v >>= 7;
        n++;
    }
    return n;
}

/* The packed order's length: one varint per entry. */
static size_t
repeats_order_bytes(const box_repeats *r)
{
    size_t n = 0;
    for (size_t k = 0; k < r->rp_norder; k++)
        n += varint_size(r->rp_order[k]);
    return n;
}

size_t
box_repeats_put_size(const box_repeats *r)
{
    size_t n = 0;
    for (size_t i = 0; i < r->rp_n; i++)
        n += 1 + varint_size(r->rp_len[i]) + r->rp_len[i];
    if (box_repeats_any(r)) {
        size_t ob = repeats_order_bytes(r);
        n += 1 + varint_size(ob) + ob;
    }
    return n;
}

box_err
box_repeats_put_strings(const box_repeats *r, box_buf *b, uint8_t tag)
{
    box_err rv = BOX_OK;
    for (size_t i = 0; i < r->rp_n && rv == BOX_OK; i++) {
        rv = box_buf_putc(b, (char)tag);
        if (rv == BOX_OK)
            rv = box_wire_put_varint(b, r->rp_len[i]);
        if (rv == BOX_OK)
            rv = box_buf_append(b, r->rp_bytes + r->rp_off[i], r->rp_len[i]);
    }
    return rv;
}

box_err
box_repeats_put_order(const box_repeats *r, box_buf *b, uint8_t tag)
{
    if (!box_repeats_any(r))
        return BOX_OK;
    box_err rv = box_buf_putc(b, (char)tag);
    if (rv == BOX_OK)
        rv = box_wire_put_varint(b, repeats_order_bytes(r));
    for (size_t k = 0; k < r->rp_norder && rv == BOX_OK; k++)
        rv = box_wire_put_varint(b, r->rp_order[k]);
    return rv;
}

void
box_repeats_clear(box_repeats *r)
{
    memset(r->rp_slot, 0, (r->rp_mask + 1) * sizeof *r->rp_slot);
    r->rp_used = 0;
    r->rp_n = 0;
    r->rp_norder = 0;
}
