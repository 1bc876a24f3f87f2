/* SPDX-License-Identifier: Apache-2.0 */
/* Growable byte buffer with a hard cap. */
#include "box_buf.h"

#include <stdio.h>
#include <string.h>

#include "box_alloc.h"

void
box_buf_init(box_buf *b, size_t max)
{
    b->b_data = NULL;
    b->b_len = 0;
    b->b_cap = 0;
    b->b_max = max;
}

void
box_buf_reset(box_buf *b)
{
    box_free(b->b_data);
    b->b_data = NULL;
    b->b_len = 0;
    b->b_cap = 0;
}

void
box_buf_truncate(box_buf *b, size_t len)
{
    if (len >= b->b_len)
        return;
    b->b_len = len;
    b->b_data[len] = '\0';
}

static box_err
buf_reserve(box_buf *b, size_t extra)
{
    if (extra > b->b_max || b->b_len > b->b_max - extra)
        return BOX_ETOOBIG;
    size_t need = b->b_len + extra + 1;
    if (need <= b->b_cap)
        return BOX_OK;
    size_t cap = b->b_cap ? b->b_cap : 64;
    while (cap < need)
        cap *= 2;
    char *p = box_realloc(b->b_data, cap);
    if (p == NULL)
        return BOX_ENOMEM;
    b->b_data = p;
    b->b_cap = cap;
    return BOX_OK;
}

box_err
box_buf_reserve(box_buf *b, size_t n)
{
    return buf_reserve(b, n);
}

box_err
box_buf_append_grow(box_buf *b, const void *p, size_t n)
{
    box_err rv = buf_reserve(b, n);
    if (rv != BOX_OK)
        return rv;
    if (n > 0)
        memcpy(b->b_data + b->b_len, p, n);
    b->b_len += n;
    b->b_data[b->b_len] = '\0';
    return BOX_OK;
}

box_err
box_buf_puts(box_buf *b, const char *s)
{
    return box_buf_append(b, s, strlen(s));
}

box_err
box_buf_fill(box_buf *b, char c, size_t n)
{
    box_err rv = buf_reserve(b, n);
    if (rv != BOX_OK)
        return rv;
    memset(b->b_data + b->b_len, c, n);
    b->b_len += n;
    b->b_data[b->b_len] = '\0';
    return BOX_OK;
}

box_err
box_buf_vprintf(box_buf *b, const char *fmt, va_list ap)
{
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap2);
    va_end(ap2);
    if (n < 0)
        return BOX_EINVAL;
    box_err rv = buf_reserve(b, (size_t)n);
    if (rv != BOX_OK)
        return rv;
    vsnprintf(b->b_data + b->b_len, (size_t)n + 1, fmt, ap);
    b->b_len += (size_t)n;
    return BOX_OK;
}

box_err
box_buf_printf(box_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    box_err rv = box_buf_vprintf(b, fmt, ap);
    va_end(ap);
    return rv;
}

char *
box_buf_take(box_buf *b)
{
    char *d = b->b_data;
    if (d == NULL)
        d = box_strdup("");
    b->b_data = NULL;
    b->b_len = 0;
    b->b_cap = 0;
    return d;
}
