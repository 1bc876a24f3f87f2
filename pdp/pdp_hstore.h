/* SPDX-License-Identifier: Apache-2.0 */
/* The durable history: an append-only file of checksummed records that a
 * restarted box-pdp replays (issue 21; box-spec §4, §7). */
#ifndef PDP_HSTORE_H
#define PDP_HSTORE_H

#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "box_err.h"
#include "pdp_hist.h"

/*
 * File layout: the 8-byte magic "BOXHIS01", then records, each a 4-byte
 * big-endian payload length, a 4-byte CRC-32 (IEEE) of the payload, and
 * the payload:
 *   'E' event: u64 seq, i64 ts, u8 has (1 principal, 2 resource,
 *       4 context; 8 a pending outcome, 16 a void one), kind (u32
 *       length + bytes), then the action, [the principal], [the
 *       resource], the fields and [the context], each in
 *       pdp_value_encode's layout;
 *   'V' void: u64 seq: the pending outcome seq was resolved (its real
 *       outcome, if any, is an event of its own);
 *   'R' rules: u32 n, then n times u64 since + u32 length + text: the
 *       canonical text of each rule of the generation in force and the
 *       first event it may see (a restart keeps what each rule saw).
 * A record is written with one write(2) and made durable with
 * fdatasync(2); sync calls that overlap share one (group commit).
 */
typedef struct pdp_hstore pdp_hstore;

/* The last rules record of a replayed file. */
typedef struct pdp_hstore_rule {
    char *hr_text; // owned
    uint64_t hr_since;
} pdp_hstore_rule;

typedef struct pdp_hstore_rules {
    pdp_hstore_rule *hs_rules; // owned; NULL when the file had none
    size_t hs_n;
} pdp_hstore_rules;

void pdp_hstore_rules_free(pdp_hstore_rules *r);

/*
 * Opens (or creates, 0600) the history at path and replays its events
 * into h, which must be empty; *rules gets the last rules record. A torn
 * or corrupt tail (a crash mid-write, a bad checksum, a record that does
 * not decode) is cut off and said in *warn (caller frees; NULL when all
 * was well). BOX_EIO/BOX_ECONFIG with *err (caller frees) when the file
 * cannot be opened, is not a history, or cannot be cut.
 */
box_err pdp_hstore_open(const char *path, pdp_hist *h, pdp_hstore_rules *rules,
                        pdp_hstore **out, char **warn,
                        char **err) BOX_WARN_UNUSED;
void pdp_hstore_close(pdp_hstore *s); // NULL-safe

/* Replays the history at path into the empty h, and its last rules
 * record into *rules, as pdp_hstore_open does, but reads only: a torn or
 * corrupt tail is left in the file, said in *warn (caller frees).
 * BOX_EIO/BOX_ECONFIG with *err (caller frees). For tools that look at a
 * box's history (`box policy diff`). */
box_err pdp_hstore_read(const char *path, pdp_hist *h,
                        pdp_hstore_rules *rules, char **warn,
                        char **err) BOX_WARN_UNUSED;

/* Writes event seq (its history sequence number); *ticket is what
 * pdp_hstore_sync must reach for it to be durable. A failed write leaves
 * the file as it was (cut back); BOX_EIO then, with errno's text in
 * pdp_hstore_error. */
box_err pdp_hstore_put_event(pdp_hstore *s, uint64_t seq, const pdp_event *e,
                             uint64_t *ticket) BOX_WARN_UNUSED;
/* A cut back to a size pdp_hstore_size gave: a record whose event could
 * not be kept in memory is taken back, so no two records ever share a
 * sequence number. A failed cut stops every later write. */
box_err pdp_hstore_cut(pdp_hstore *s, uint64_t size) BOX_WARN_UNUSED;

/* Writes that pending event seq is void from now on. */
box_err pdp_hstore_put_void(pdp_hstore *s, uint64_t seq,
                            uint64_t *ticket) BOX_WARN_UNUSED;
box_err pdp_hstore_put_rules(pdp_hstore *s, const pdp_hstore_rule *rules,
                             size_t n, uint64_t *ticket) BOX_WARN_UNUSED;

/* Returns once everything up to ticket is on the disk (one fdatasync
 * for all callers waiting at the time). Thread-safe. */
box_err pdp_hstore_sync(pdp_hstore *s, uint64_t ticket) BOX_WARN_UNUSED;

/* Rewrites the file with only the rules and h's events (a new file
 * renamed over the old one): what aging out leaves. Call with no put or
 * sync running. */
box_err pdp_hstore_compact(pdp_hstore *s, const pdp_hist *h,
                           const pdp_hstore_rule *rules,
                           size_t n) BOX_WARN_UNUSED;

/* Bytes in the file now. */
uint64_t pdp_hstore_size(const pdp_hstore *s);

/* Why the last put, sync or compaction failed (valid until the next). */
const char *pdp_hstore_error(const pdp_hstore *s);

#endif
