/* SPDX-License-Identifier: Apache-2.0 */
/* The only allocation entry points; everything else calls these. */
#ifndef BOX_ALLOC_H
#define BOX_ALLOC_H

#include <stdarg.h>
#include <stddef.h>

/* Each returns NULL on failure (and for a zero-size request, a valid
 * unique pointer). The caller owns the result and frees it with box_free. */
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

#endif
