/* SPDX-License-Identifier: Apache-2.0 */
/* Reports of served permits, each distinct one kept once with the order
 * they came in: a loop's `[` served 2,000 times is one packed request and
 * 2,000 indices (ServedBatch.order, DecisionBatch.order), so the broker
 * checks it once and the PDP decides and renders it once. */
#ifndef BOX_REPEATS_H
#define BOX_REPEATS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "box_err.h"

typedef struct box_repeats box_repeats;

/* At most max_distinct strings (≤ 4096) of max_bytes in all, and
 * max_order entries (≤ 65536). NULL when out of memory. */
box_repeats *box_repeats_new(size_t max_distinct, size_t max_bytes,
                             size_t max_order);
void box_repeats_free(box_repeats *r);

/* Where the next string may be written and how much room it has; NULL
 * when no entry fits (send, clear, then add). */
uint8_t *box_repeats_room(box_repeats *r, size_t *room);
/* Keeps the n bytes just written at the room as the next entry: a string
 * already kept is recorded as its index only. BOX_ETOOBIG (nothing kept)
 * when they do not fit. */
box_err box_repeats_keep(box_repeats *r, size_t n) BOX_WARN_UNUSED;
/* The index of the string the last entry named (box_repeats_again takes
 * it); only after an entry was kept. */
size_t box_repeats_last(const box_repeats *r);
/* Records string i (an index box_repeats_last gave since the last clear)
 * once more, without writing or comparing it: a caller that knows an entry
 * is the same bytes as an earlier one. BOX_ETOOBIG when the order is full,
 * BOX_EINVAL when i names no string. */
box_err box_repeats_again(box_repeats *r, size_t i) BOX_WARN_UNUSED;
/* Copies n bytes in and keeps them (box_repeats_room, then keep). */
box_err box_repeats_add(box_repeats *r, const void *p,
                        size_t n) BOX_WARN_UNUSED;

size_t box_repeats_entries(const box_repeats *r); // entries kept in all
size_t box_repeats_distinct(const box_repeats *r);
size_t box_repeats_bytes(const box_repeats *r); // of the distinct strings
/* True when some entry repeats an earlier one (the order must be sent). */
bool box_repeats_any(const box_repeats *r);

/* Appends each distinct string as a length-delimited protobuf field
 * (`tag` is its key byte, e.g. 0x0a for field 1). */
box_err box_repeats_put_strings(const box_repeats *r, box_buf *b,
                                uint8_t tag) BOX_WARN_UNUSED;
/* Appends the order as packed varints under tag, only when some entry
 * repeats (else nothing: each string once, in order). */
box_err box_repeats_put_order(const box_repeats *r, box_buf *b,
                              uint8_t tag) BOX_WARN_UNUSED;
/* The bytes both would append. */
size_t box_repeats_put_size(const box_repeats *r);

/* Forgets every entry (the memory stays for the next batch). */
void box_repeats_clear(box_repeats *r);

#endif
