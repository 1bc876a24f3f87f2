/* SPDX-License-Identifier: Apache-2.0 */
/* A growable byte buffer with a named maximum (never grows past it). */
#ifndef BOX_BUF_H
#define BOX_BUF_H

#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include "box_err.h"

typedef struct box_buf {
    char *b_data; // always NUL-terminated when b_len > 0 or after any append
    size_t b_len;
    size_t b_cap; // allocated bytes
    size_t b_max; // refuse to hold more than this many bytes
} box_buf;

/* Starts empty; max is the largest length the buffer may reach. */
void box_buf_init(box_buf *b, size_t max);
/* Frees the storage and resets to empty. */
void box_buf_reset(box_buf *b);
/* Cuts the text back to its first len bytes (len <= b_len), keeping the
 * storage: a buffer refilled again and again allocates once. */
void box_buf_truncate(box_buf *b, size_t len);

/* Makes room for n more bytes now (BOX_ETOOBIG past b_max, BOX_ENOMEM):
 * one allocation for a text whose size is about known. */
box_err box_buf_reserve(box_buf *b, size_t n) BOX_WARN_UNUSED;
/* Appends; BOX_ETOOBIG past b_max (buffer unchanged), BOX_ENOMEM. */
static inline box_err box_buf_append(box_buf *b, const void *p,
                                     size_t n) BOX_WARN_UNUSED;
/* box_buf_append when the room is not already there (it grows). */
box_err box_buf_append_grow(box_buf *b, const void *p,
                            size_t n) BOX_WARN_UNUSED;
box_err box_buf_puts(box_buf *b, const char *s) BOX_WARN_UNUSED;
/* Appends a string literal, its length known where it is written. */
#define box_buf_lit(b, lit) box_buf_append((b), "" lit, sizeof(lit) - 1)
static inline box_err box_buf_putc(box_buf *b, char c) BOX_WARN_UNUSED;
/* Appends n copies of c. */
box_err box_buf_fill(box_buf *b, char c, size_t n) BOX_WARN_UNUSED;
box_err box_buf_printf(box_buf *b, const char *fmt, ...) BOX_WARN_UNUSED
    __attribute__((format(printf, 2, 3)));
box_err box_buf_vprintf(box_buf *b, const char *fmt,
                        va_list ap) BOX_WARN_UNUSED;
/* Hands the data to the caller (who frees it with box_free); the buffer
 * is left empty. Returns an empty string for an empty buffer, NULL on
 * allocation failure. */
char *box_buf_take(box_buf *b);

/* Inline: most appends fit the room already there (a log line is built of
 * a hundred small pieces), and a literal's copy then compiles to moves. */
static inline box_err
box_buf_append(box_buf *b, const void *p, size_t n)
{
    // b_len < b_cap whenever b_cap > 0 (the NUL), and b_len <= b_max.
    if (n < b->b_cap - b->b_len && n <= b->b_max - b->b_len) {
        if (n > 0)
            memcpy(b->b_data + b->b_len, p, n);
        b->b_len += n;
        b->b_data[b->b_len] = '\0';
        return BOX_OK;
    }
    return box_buf_append_grow(b, p, n);
}

static inline box_err
box_buf_putc(box_buf *b, char c)
{
    return box_buf_append(b, &c, 1);
}

#endif
