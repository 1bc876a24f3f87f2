/* SPDX-License-Identifier: Apache-2.0 */
/* Outcome events (dogwood-spec §5.6): their wire shape, and the book of
 * permits whose outcome is still to come. */
#ifndef BOX_OUTCOME_H
#define BOX_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box.pb-c.h"
#include "box_err.h"
#include "box_verdict.h"

/*
 * An outcome travels in two steps. The enforcement point that acted (a
 * shell worker) knows how the effect ended and the ticket of its permit;
 * the one that relayed the decision (the broker, or `box sh` itself) knows
 * the request's action and input. So the worker sends an Event with kind,
 * output and request_id only (box_outcome_event), and the relay reads it
 * back (box_outcome_read) and makes the event the PDP appends from its
 * book (box_outcome_book_take): a worker cannot record an outcome of an
 * effect it was not permitted, nor of another input.
 */

/* An Event and the storage it points into; clear with
 * box_outcome_ev_clear (it may own the action and the input). */
typedef struct box_outcome_ev {
    Box__Event oe_ev;
    Box__Value oe_out;
    Box__ValueRecord oe_rec;
    Box__RecordField oe_field;
    Box__RecordField *oe_fieldp[1];
    Box__Value oe_val;
    Box__EntityRef oe_result;
    char *oe_action;      // owned, or NULL
    Box__Value *oe_input; // owned (unpacked), or NULL
} box_outcome_ev;

/* Fills ev with the wire form of o under request id: kind ::response
 * with output {result: Box::FsResponseResult::"…"} or {status: n}, or
 * kind ::error with no output. Action and input are left unset. */
const Box__Event *box_outcome_event(box_outcome_ev *ev, uint64_t id,
                                    const box_outcome *o);

/* Reads back what box_outcome_event wrote for a shell worker's effects:
 * false when ev is anything else (another kind, an output of another
 * shape, an action or input set, and BOX_OUTCOME_OPENED's bare
 * ::response, which only the gateway writes, for itself). */
bool box_outcome_read(const Box__Event *ev, box_outcome *o);

void box_outcome_ev_clear(box_outcome_ev *ev);

/* The permits of one call whose outcome is awaited. Not thread-safe. */
typedef struct box_outcome_book box_outcome_book;

/* Bounds of one book: a permit past them gets no outcome recorded. */
#define BOX_OUTCOME_BOOK_MAX 1024
#define BOX_OUTCOME_BOOK_BYTES (4u * 1024u * 1024u)

box_outcome_book *box_outcome_book_new(void);    // NULL when out of memory
void box_outcome_book_free(box_outcome_book *b); // NULL-safe

/* Keeps req's action and input under id until its outcome comes.
 * BOX_ETOOBIG when the book is full, BOX_EINVAL when req is no fs:* or
 * shell:* request, BOX_EBUSY when id is kept already, BOX_ENOMEM. */
box_err
box_outcome_book_expect(box_outcome_book *b, uint64_t id,
                        const Box__DecisionRequest *req) BOX_WARN_UNUSED;

/* The event of id's outcome o, its action and input from the book (the
 * entry is then gone). BOX_ENOENT when id is not kept; BOX_EINVAL when o
 * does not fit the action (a status for fs:*, a result for shell:*); the
 * entry stays then. */
box_err box_outcome_book_take(box_outcome_book *b, uint64_t id,
                              const box_outcome *o,
                              box_outcome_ev *ev) BOX_WARN_UNUSED;

/* The event of a kept permit whose outcome never came (the oldest):
 * fs:* "indeterminate", shell:* status BOX_OUTCOME_NO_STATUS. BOX_ENOENT
 * when the book is empty. */
box_err box_outcome_book_take_unreported(box_outcome_book *b,
                                         box_outcome_ev *ev) BOX_WARN_UNUSED;

/* How many permits wait. */
size_t box_outcome_book_len(const box_outcome_book *b);

#endif
