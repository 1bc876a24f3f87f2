/* SPDX-License-Identifier: Apache-2.0 */
/* A capped bump allocator: many small allocations, freed in one call. */
#ifndef PDP_ARENA_H
#define PDP_ARENA_H

#include <stddef.h>

#include "box_err.h"

/*
 * An arena hands out memory from chunks it gets through box_alloc and
 * never frees single allocations: everything goes at once with
 * pdp_arena_reset (keeps the first chunk for reuse) or pdp_arena_free.
 * It refuses to hold more than its cap (counted in chunk bytes), so a
 * hostile policy or request cannot grow it without bound. One arena
 * belongs to one thread at a time.
 */
typedef struct pdp_arena pdp_arena;

/* A new empty arena that will hold at most max_bytes; NULL on ENOMEM. */
pdp_arena *pdp_arena_new(size_t max_bytes);
/* Frees the arena and everything allocated from it; NULL is a no-op. */
void pdp_arena_free(pdp_arena *a);
/* Forgets every allocation (pointers handed out become invalid). */
void pdp_arena_reset(pdp_arena *a);
/* n bytes aligned for any scalar type; NULL when over the cap or ENOMEM. */
void *pdp_arena_alloc(pdp_arena *a, size_t n);
/* Like pdp_arena_alloc, zero-filled. */
void *pdp_arena_zalloc(pdp_arena *a, size_t n);
/* A NUL-terminated copy of s[0..n) (s may hold NULs); NULL on failure. */
char *pdp_arena_strndup(pdp_arena *a, const char *s, size_t n);
/* Bytes currently handed out (for tests and metrics). */
size_t pdp_arena_used(const pdp_arena *a);

#endif
