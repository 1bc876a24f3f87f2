/* SPDX-License-Identifier: Apache-2.0 */
/* A capped bump allocator: many small allocations, freed in one call. */
#ifndef BOX_ARENA_H
#define BOX_ARENA_H

#include <stddef.h>

#include "box_err.h"

/*
 * An arena hands out memory from chunks it gets through box_alloc and
 * never frees single allocations: everything goes at once with
 * box_arena_reset (keeps the first chunk for reuse) or box_arena_free.
 * It refuses to hold more than its cap (counted in chunk bytes), so a
 * hostile policy, request or script cannot grow it without bound. One arena
 * belongs to one thread at a time.
 */
typedef struct box_arena box_arena;

/* A new empty arena that will hold at most max_bytes; NULL on ENOMEM. */
box_arena *box_arena_new(size_t max_bytes);
/* Frees the arena and everything allocated from it; NULL is a no-op. */
void box_arena_free(box_arena *a);
/* Forgets every allocation (pointers handed out become invalid). */
void box_arena_reset(box_arena *a);
/* n bytes aligned for any scalar type; NULL when over the cap or ENOMEM. */
void *box_arena_alloc(box_arena *a, size_t n);
/* Like box_arena_alloc, zero-filled. */
void *box_arena_zalloc(box_arena *a, size_t n);
/* A NUL-terminated copy of s[0..n) (s may hold NULs); NULL on failure. */
char *box_arena_strndup(box_arena *a, const char *s, size_t n);
/* Bytes currently handed out (for tests and metrics). */
size_t box_arena_used(const box_arena *a);

#endif
