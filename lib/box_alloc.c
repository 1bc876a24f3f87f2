/* SPDX-License-Identifier: Apache-2.0 */
/* Thin wrappers over the C allocator, so allocation has one place. */
#include "box_alloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void *
box_alloc(size_t n)
{
    return malloc(n ? n : 1);
}

void *
box_calloc(size_t count, size_t n)
{
    if (count == 0 || n == 0)
        return calloc(1, 1);
    return calloc(count, n);
}

void *
box_realloc(void *p, size_t n)
{
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
