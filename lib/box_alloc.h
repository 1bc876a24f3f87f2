/* SPDX-License-Identifier: Apache-2.0 */
/* The only allocation entry points; everything else calls these. */
#ifndef BOX_ALLOC_H
#define BOX_ALLOC_H

#include <stdarg.h>
#include <stddef.h>

/* Each returns NULL on failure (and for a zero-size request, a valid
 * unique pointer). The caller owns the result and frees it with box_free.
 * The memory is the C heap's: box_free is free(3), so memory a library
 * hands back for free(3) may come from these (protobuf-c's unpack does). */
void *box_alloc(size_t n);
void *box_calloc(size_t count, size_t n);
void *box_realloc(void *p, size_t n);
void box_free(void *p);
char *box_strdup(const char *s);
char *box_strndup(const char *s, size_t n);
/* Formatted string owned by the caller; NULL on failure. */
char *box_asprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *box_vasprintf(const char *fmt, va_list ap)
    __attribute__((format(printf, 1, 0)));

/*
 * Allocation-failure injection, for tests only (curl's "torture"): every
 * error path that a lack of memory takes can be walked by failing the 1st,
 * 2nd, 3rd, ... allocation of an operation until it completes with none
 * failed. A call is one call of any function above but box_free (box_strdup
 * and box_asprintf count once). Off, it costs one predictable branch.
 *
 * box_alloc_fail_after(n) starts counting calls at zero and makes the nth
 * call from now (n >= 1) return NULL; only that one, the calls after it
 * succeed again, as they would once memory is freed. n == 0 only counts.
 * box_alloc_fail_off() stops counting and failing. box_alloc_calls() is
 * the number of calls counted since the last box_alloc_fail_after, the
 * failed one included. The counter is process-wide: arm it only while one
 * thread allocates, or the walk is not repeatable.
 */
void box_alloc_fail_after(unsigned long n);
void box_alloc_fail_off(void);
unsigned long box_alloc_calls(void);

#endif
