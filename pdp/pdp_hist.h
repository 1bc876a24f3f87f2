/* SPDX-License-Identifier: Apache-2.0 */
/* The history a temporal rule reads: events in order (dogwood-spec §4.1). */
#ifndef PDP_HIST_H
#define PDP_HIST_H

#include <stddef.h>
#include <stdint.h>

#include "box_arena.h"
#include "box_err.h"
#include "pdp_value.h"

/*
 * One event, one timepoint. Its values live in the history's arena
 * (pdp_hist_arena) or longer. A decision event carries the request's
 * scope and context; a history-only event (a response, an error) may
 * carry neither.
 */
/* ORDER PDP_EV: what an event is (issue 21 item 6, budgets). */
typedef enum pdp_ev_state {
    PDP_EV_REAL,    // it happened
    PDP_EV_PENDING, // an outcome not known yet: a permitted effect that
                    // may have happened (a response) or failed (an error)
    PDP_EV_VOID,    // a pending outcome since resolved: matches nothing
} pdp_ev_state;

typedef struct pdp_event {
    const pdp_value *ev_action;    // entity uid Ns::Action::"id"
    const char *ev_kind;           // "request", "response", … (NUL-ended)
    int64_t ev_ts;                 // seconds; non-decreasing in a history
    const pdp_value *ev_principal; // scope(principal: …), or NULL
    const pdp_value *ev_resource;  // scope(resource: …), or NULL
    const pdp_value *ev_fields;    // record: what predicates match
    const pdp_value *ev_context;   // record: a decision's context, or NULL
    uint8_t ev_state;              // pdp_ev_state
} pdp_event;

typedef struct pdp_hist pdp_hist;

/* An empty history; NULL when out of memory. */
pdp_hist *pdp_hist_new(void);
void pdp_hist_free(pdp_hist *h); // NULL-safe

/* Where the values of the next event to append are built: ask right
 * before building each event (a full segment makes way for a new one
 * here, and an event's values must live in its own segment, which is
 * freed with it). NULL when out of memory. */
box_arena *pdp_hist_arena(pdp_hist *h);

/* Appends *ev (the struct is copied, its kind string too; the values are
 * borrowed). BOX_EINVAL when ev has no action, kind or fields record, or
 * its time is before the last event's. */
box_err pdp_hist_append(pdp_hist *h, const pdp_event *ev) BOX_WARN_UNUSED;

size_t pdp_hist_len(const pdp_hist *h);
/* Event i becomes st (a pending outcome resolved: PDP_EV_VOID). */
void pdp_hist_set_state(pdp_hist *h, size_t i, pdp_ev_state st);
/* The sequence number of event 0: how many were forgotten before it.
 * Event i is number base + i for the history's whole life. */
uint64_t pdp_hist_base(const pdp_hist *h);
/* Numbers an empty history's first event base (a replayed file's first
 * kept event); ignored once it holds events. */
void pdp_hist_set_base(pdp_hist *h, uint64_t base);
/* The i-th event (0-based), i < pdp_hist_len. */
const pdp_event *pdp_hist_at(const pdp_hist *h, size_t i);

/* Events of one (action, kind) are chained, newest first, so a predicate
 * scans only its own. pdp_hist_newest: the newest such event at or before
 * `at` into *out (1), none (0), or -1 when this history keeps no chain for
 * such a key (an action id over 1 KiB: scan every event instead).
 * pdp_hist_prev_same: the one before event i on its chain, false when
 * none is kept. */
int pdp_hist_newest(const pdp_hist *h, const pdp_value *action,
                    const char *kind, size_t klen, size_t at, size_t *out);
bool pdp_hist_prev_same(const pdp_hist *h, size_t i, size_t *prev);

/* Keeps, for the events of (action, kind), an index of the values of
 * the field at path (dotted), so a predicate that fixes that field finds
 * its events directly. The events kept so far are indexed now. Asking
 * again is a no-op. */
box_err pdp_hist_index(pdp_hist *h, const pdp_value *action, const char *kind,
                       size_t klen, const char *path,
                       size_t plen) BOX_WARN_UNUSED;

/* A position in one value's events, walked newest first. */
typedef struct pdp_hist_cursor {
    const struct hix_vec *hc_vec;
    long hc_pos;
} pdp_hist_cursor;

/* The newest event at or before `at` of (action, kind) whose field at
 * path equals value: 1 with *cur on it, 0 when none, -1 when that field
 * is not indexed (or the value is too long to be): walk the chain then.
 * pdp_hist_cursor_at is the event's index; pdp_hist_cursor_prev moves to
 * the one before with the same value (false: none kept). */
int pdp_hist_newest_value(const pdp_hist *h, const pdp_value *action,
                          const char *kind, size_t klen, const char *path,
                          size_t plen, const pdp_value *value, size_t at,
                          pdp_hist_cursor *cur);
size_t pdp_hist_cursor_at(const pdp_hist *h, const pdp_hist_cursor *cur);
bool pdp_hist_cursor_prev(const pdp_hist *h, pdp_hist_cursor *cur);

/* Forgets the oldest events, whole segments at a time, while every event
 * of a segment is older than ts (the newest segment is always kept):
 * what no window can reach any more. Indices shift down by the count
 * returned. */
size_t pdp_hist_drop_before(pdp_hist *h, int64_t ts);

/* The value at a dotted path (input.path, output.status, callerPrincipal)
 * in a record whose groups are nested records; NULL when absent. */
const pdp_value *pdp_hist_field(const pdp_value *fields, const char *path,
                                size_t len);

#endif
