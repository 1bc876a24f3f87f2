/* SPDX-License-Identifier: Apache-2.0 */
/* Chunked bump allocator with a byte cap. */
#include "box_arena.h"

#include <stdalign.h>
#include <stdint.h>
#include <string.h>

#include "box_alloc.h"

#define BOX_ARENA_CHUNK 8192u

typedef struct box_chunk box_chunk;
struct box_chunk {
    box_chunk *ch_next;
    size_t ch_size; // usable bytes after the header
    size_t ch_used;
    alignas(max_align_t) unsigned char ch_data[];
};

struct box_arena {
    box_chunk *ar_head;  // current chunk (newest first)
    size_t ar_total;     // bytes of all chunks held
    size_t ar_max;       // cap on ar_total
    size_t ar_handed;    // bytes handed out since the last reset
};

box_arena *
box_arena_new(size_t max_bytes)
{
    box_arena *a = box_calloc(1, sizeof(*a));
    if (a == NULL)
        return NULL;
    a->ar_max = max_bytes;
    return a;
}

void
box_arena_free(box_arena *a)
{
    if (a == NULL)
        return;
    box_chunk *c = a->ar_head;
    while (c != NULL) {
        box_chunk *n = c->ch_next;
        box_free(c);
        c = n;
    }
    box_free(a);
}

void
box_arena_reset(box_arena *a)
{
    /* Keep only the oldest chunk: it is the one sized for the usual case. */
    box_chunk *c = a->ar_head, *keep = NULL;
    while (c != NULL) {
        box_chunk *n = c->ch_next;
        if (n == NULL)
            keep = c;
        else
            box_free(c);
        c = n;
    }
    a->ar_head = keep;
    a->ar_total = keep ? keep->ch_size : 0;
    if (keep)
        keep->ch_used = 0;
    a->ar_handed = 0;
}

void *
box_arena_alloc(box_arena *a, size_t n)
{
    const size_t al = alignof(max_align_t);
    if (n > SIZE_MAX / 2)
        return NULL;
    n = (n + al - 1) & ~(al - 1);
    if (n == 0)
        n = al;
    box_chunk *c = a->ar_head;
    if (c == NULL || c->ch_size - c->ch_used < n) {
        size_t sz = n > BOX_ARENA_CHUNK ? n : BOX_ARENA_CHUNK;
        if (sz > a->ar_max || a->ar_total > a->ar_max - sz)
            return NULL;
        box_chunk *nc = box_alloc(sizeof(*nc) + sz);
        if (nc == NULL)
            return NULL;
        nc->ch_size = sz;
        nc->ch_used = 0;
        /* A big one-off allocation goes behind the current chunk so the
         * current chunk's free tail stays usable. */
        if (c != NULL && n > BOX_ARENA_CHUNK) {
            nc->ch_next = c->ch_next;
            c->ch_next = nc;
        } else {
            nc->ch_next = c;
            a->ar_head = nc;
        }
        a->ar_total += sz;
        c = nc;
    }
    void *p = c->ch_data + c->ch_used;
    c->ch_used += n;
    a->ar_handed += n;
    return p;
}

void *
box_arena_zalloc(box_arena *a, size_t n)
{
    void *p = box_arena_alloc(a, n);
    if (p != NULL)
        memset(p, 0, n);
    return p;
}

char *
box_arena_strndup(box_arena *a, const char *s, size_t n)
{
    if (n == SIZE_MAX)
        return NULL;
    char *d = box_arena_alloc(a, n + 1);
    if (d == NULL)
        return NULL;
    if (n > 0)
        memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

size_t
box_arena_used(const box_arena *a)
{
    return a->ar_handed;
}
