/* SPDX-License-Identifier: Apache-2.0 */
/* The permits one call may serve again without asking: the worker's
 * per-call cache, and the broker's record of what it let the worker keep. */
#ifndef PERMIT_MEMO_H
#define PERMIT_MEMO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box.pb-c.h"
#include "box_err.h"

/*
 * Both ends of a worker's channel keep one: the broker adds every permit
 * it answers as cacheable, the worker every such answer it receives, in
 * the same order, so the two hold the same entries (a full memo takes no
 * more on either side). The worker serves a hit without a round trip and
 * reports it; the broker accepts a report only for a permit its own memo
 * holds, so a worker cannot put a permit in the log that it was never
 * given. Keys are the PDP client's narrowed keys (box_pdp_narrow_key) on
 * the fields the PDP said the action's permits depend on.
 */
typedef struct permit_memo permit_memo;

#define PERMIT_MEMO_ANY_GEN UINT64_MAX

/* NULL when out of memory. */
permit_memo *permit_memo_new(void);
void permit_memo_free(permit_memo *m);

/* True when a permit of req may be kept at all: not a shell:spawn (the
 * broker must see each, to match its launch), no enforcement gate (the
 * client refuses such requests whatever policy says). */
bool permit_memo_keeps(const Box__DecisionRequest *req);

/*
 * Keeps req's permit, made by the policy generation epoch, under gen (the
 * validity word read before asking), keyed on fields for its action.
 * BOX_ETOOBIG when the memo is full or the key too long, BOX_EINVAL when the
 * action was kept with other fields, BOX_ENOMEM; on any error nothing is kept.
 */
box_err permit_memo_add(permit_memo *m, const Box__DecisionRequest *req,
                        char *const *fields, size_t nfields, uint64_t epoch,
                        uint64_t gen, uint64_t now_ms) BOX_WARN_UNUSED;

/* What a hit was kept with: the policy generation that made the permit
 * and when it was kept. */
typedef struct permit_memo_hit {
    uint64_t ph_epoch;
    uint64_t ph_born_ms;
} permit_memo_hit;

/* True when req's key is kept under gen (or any, PERMIT_MEMO_ANY_GEN) and
 * was made at most max_age_ms before now_ms (0: any age); then *hit (when
 * not NULL) says how. */
bool permit_memo_has(const permit_memo *m, const Box__DecisionRequest *req,
                     uint64_t gen, uint64_t now_ms, uint64_t max_age_ms,
                     permit_memo_hit *hit);

/* The fields the action's permits depend on (*n of them), as kept with
 * its first permit; NULL when the memo keeps none of the action. */
char *const *permit_memo_fields(const permit_memo *m, const char *action,
                                size_t *n);

/*
 * The input a report of req's served permit carries: every field the
 * action's permits depend on as it is, every other a blank of its kind
 * ("", 0, false; sets, records and entities as they are), so the reports
 * of a loop's `[ $i -lt 10 ]` are the same bytes, sent, checked and
 * decided once (box_repeats). The key, and so the permit, is the same;
 * the record's subject (command, redacted arguments, path) is req's own.
 * Strings are borrowed from req, the rest lives in *b. req's own input
 * when the action was not kept or its record is too wide.
 */
#define PERMIT_MEMO_BLANK_FIELDS 32
typedef struct permit_memo_blank {
    Box__Value pb_input;
    Box__ValueRecord pb_record;
    Box__RecordField *pb_ptrs[PERMIT_MEMO_BLANK_FIELDS];
    Box__RecordField pb_fields[PERMIT_MEMO_BLANK_FIELDS];
    Box__Value pb_values[PERMIT_MEMO_BLANK_FIELDS];
} permit_memo_blank;
Box__Value *permit_memo_report_input(const permit_memo *m,
                                     const Box__DecisionRequest *req,
                                     permit_memo_blank *b);
/* True when such a report carries f as a blank: a string, integer or
 * boolean not among fields (n of them, permit_memo_fields), the fields the
 * action's permits depend on. */
bool permit_memo_blanks(char *const *fields, size_t n,
                        const Box__RecordField *f);

#endif
