/* SPDX-License-Identifier: Apache-2.0 */
/* A served permit that repeats one already in the batch, found without
 * keying the memo or packing the report again. */
#ifndef SERVED_AGAIN_H
#define SERVED_AGAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box.pb-c.h"
#include "permit_memo.h"

/*
 * A loop's `[ $i -lt 9 ]` is served from the worker's memo thousands of
 * times, and its reports are the same bytes every time (the memo blanks
 * what the policy does not read, and the redacted arguments do not
 * change). Keying the memo and packing the report were a fifth of such a
 * loop. This table remembers, per identity, where the batch already holds
 * the report: a repeat costs one walk of the request, a hash and a compare.
 *
 * The identity holds everything the packed report is made of: the action,
 * resource, ids and subject as they are, and the input as
 * permit_memo_report_input makes it (the values of the fields the policy
 * reads and of those it cannot blank, the kind of the rest, the field
 * names in their order). Two requests with one identity have one report,
 * byte for byte, and one memo key; an entry is good only under the
 * validity word and served batch it was made in, and only as long as the
 * memo's own entry would be.
 */
typedef struct served_again served_again;

#define SERVED_AGAIN_ID_MAX 1024u // a longer identity is not remembered

typedef struct served_again_id {
    uint8_t si_buf[SERVED_AGAIN_ID_MAX];
    size_t si_len;
    uint64_t si_hash;
} served_again_id;

/* NULL when out of memory. */
served_again *served_again_new(void);
void served_again_free(served_again *a);

/* req's identity in *id; false when req cannot be served again this way
 * (the memo keeps no permit of its action, or the identity is too long). */
bool served_again_id_of(const permit_memo *m, const Box__DecisionRequest *req,
                        served_again_id *id);

/* Where the report kept under id lies in the served batch (*index, as
 * box_repeats_last gave it), its policy generation (*epoch) and a token
 * naming the entry (*token, never 0), when it was kept under gen in batch
 * number batch and its memo entry, made at born, is at most max_age_ms
 * old at now_ms (0: any age). */
bool served_again_find(const served_again *a, const served_again_id *id,
                       uint64_t gen, uint64_t batch, uint64_t now_ms,
                       uint64_t max_age_ms, size_t *index, uint64_t *epoch,
                       uint64_t *token);

/* As served_again_find, for the entry a token named, without its
 * identity: true only while the entry is the one the token was given for
 * (no put has replaced it) and good under the same terms. The caller
 * vouches that its request has the identity the entry was kept under
 * (box_again_fn). */
bool served_again_find_token(const served_again *a, uint64_t token,
                             uint64_t gen, uint64_t batch, uint64_t now_ms,
                             uint64_t max_age_ms, size_t *index);

/* Remembers that the report of id, from the memo hit *hit, is string
 * index of batch number batch, kept under gen, and returns the entry's
 * token. Replaces what the slot held; nothing (and 0) when out of
 * memory. */
uint64_t served_again_put(served_again *a, const served_again_id *id,
                          uint64_t gen, uint64_t batch,
                          const permit_memo_hit *hit, size_t index);

#endif
