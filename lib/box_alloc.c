/* SPDX-License-Identifier: Apache-2.0 */
/* Thin wrappers over the C allocator, so allocation has one place (and one
 * place where a test can make it fail). */
#include "box_alloc.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Failure injection (box_alloc.h). Atomics only so that a test's arming
 * is not a data race with a service thread's allocation; relaxed loads
 * are plain loads, so an unarmed allocation pays one branch. */
static atomic_bool fail_armed;
static atomic_ulong fail_calls; // calls counted since arming
static atomic_ulong fail_nth;   // the call that fails; 0: none

/* True when this allocation is the one a test asked to fail. */
static inline bool
fail_now(void)
{
    if (__builtin_expect(
            !atomic_load_explicit(&fail_armed, memory_order_relaxed), 1))
        return false;
    unsigned long call = atomic_fetch_add(&fail_calls, 1) + 1;
    return call == atomic_load(&fail_nth);
}

void
box_alloc_fail_after(unsigned long n)
{
    atomic_store(&fail_armed, false);
    atomic_store(&fail_calls, 0);
    atomic_store(&fail_nth, n);
    atomic_store(&fail_armed, true);
}

void
box_alloc_fail_off(void)
{
    atomic_store(&fail_armed, false);
    atomic_store(&fail_nth, 0);
}

unsigned long
box_alloc_calls(void)
{
    return atomic_load(&fail_calls);
}

void *
box_alloc(size_t n)
{
    if (fail_now())
        return NULL;
    return malloc(n ? n : 1);
}

void *
box_calloc(size_t count, size_t n)
{
    if (fail_now())
        return NULL;
    if (count == 0 || n == 0)
        return calloc(1, 1);
    return calloc(count, n);
}

void *
box_realloc(void *p, size_t n)
{
    if (fail_now())
        return NULL; // p stays valid and owned by the caller, as in realloc
    return realloc(p, n ? n : 1);
}

void
box_free(void *p)
{
    free(p);
}

char *
box_strndup(const char *s, size_t n)
{
    if (fail_now())
        return NULL;
    char *d = malloc(n + 1);
    if (d == NULL)
        return NULL;
    memcpy(d, s, n);
    d[n] = '\0';
    return d;
}

char *
box_strdup(const char *s)
{
    return box_strndup(s, strlen(s));
}

char *
box_vasprintf(const char *fmt, va_list ap)
{
    if (fail_now())
        return NULL;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    char *s = n < 0 ? NULL : malloc((size_t)n + 1);
    if (s != NULL)
        vsnprintf(s, (size_t)n + 1, fmt, again);
    va_end(again);
    return s;
}

char *
box_asprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = box_vasprintf(fmt, ap);
    va_end(ap);
    return s;
}
