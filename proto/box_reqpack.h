/* SPDX-License-Identifier: Apache-2.0 */
/* A DecisionRequest packed in one pass, for the permit cache's hit path. */
#ifndef BOX_REQPACK_H
#define BOX_REQPACK_H

#include <stddef.h>
#include <stdint.h>

#include "box.pb-c.h"

/*
 * Packs r into the end of buf (max bytes): returns the packing's first
 * byte and its length in *len, or NULL when it does not fit, nests deeper
 * than the cache keys values (32 levels), or carries unknown fields. The
 * bytes are exactly box__decision_request__pack's: protobuf-c walks the
 * descriptors twice (size, then bytes) and costs ~400 ns for a 125-byte
 * request, which would be most of a cache hit; this writes from the end
 * backwards, so every length is known when it is written (and the bytes
 * stay where they were written). A caller that gets NULL packs with
 * protobuf-c.
 */
uint8_t *box_reqpack(const Box__DecisionRequest *r, uint8_t *buf, size_t max,
                     size_t *len);

/* r packed by box_reqpack, or by protobuf-c at buf's start when
 * box_reqpack leaves it to protobuf-c; NULL (and *len 0) when it does not
 * fit in max bytes. */
uint8_t *box_reqpack_any(const Box__DecisionRequest *r, uint8_t *buf,
                         size_t max, size_t *len);

#endif
