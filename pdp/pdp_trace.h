/* SPDX-License-Identifier: Apache-2.0 */
/* trace.log text (dogwood-spec §7.1) read into a history (pdp_hist). */
#ifndef PDP_TRACE_H
#define PDP_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "box_err.h"
#include "pdp_hist.h"

/*
 * One event a line:
 *
 *   @<ts> [scope(principal: E, resource: E)] [request_context(f: v, …)]
 *       Ns::Action::"id"::kind(f: v, …)
 *
 * Values: "string" (the .dw escapes), integers (a leading `-` is part of
 * the literal), decimal numbers (`1.50`, `-0.5`), true / false, entities
 * Ns::Type::"id", records { f: v, … } (a key is a name or a "string")
 * and arrays [v, …] (built as sets). Blank lines and `//` comments are
 * skipped, as in .dw text; the reference reader knows no comments and the
 * corpus has none, so `#` is not one.
 *
 * What each part becomes in the pdp_event:
 *   scope(…)            ev_principal, ev_resource (NULL without scope)
 *   request_context(…)  ev_context, a record (NULL without it)
 *   Ns::Action::"id"    ev_action;  kind: ev_kind
 *   (f: v, …)           ev_fields, a record; a nested record is a group
 *                       (`input: { user: "a" }` is the leaf input.user).
 *                       With a scope, a missing callerPrincipal /
 *                       callerResource is added, mirrored from it.
 *
 * DECIMALS. A decimal number is Cedar's decimal when Cedar accepts the
 * spelling (digits, a point, one to four digits; in range), so equality
 * is Cedar's, by value: "1.5", "1.50" and "01.5" are one value, "-0.0"
 * is "0.0" (the reference's domain equality, corpus case 1215). A
 * spelling Cedar refuses ("1.23456") is kept as a String of its text,
 * equal only to the same text. pdp_trace.c decides it in one function,
 * trace_decimal().
 *
 * Timestamps are non-decreasing, also against the last event already in
 * the history. Not read: the `entities(…)` envelope and `null` of the
 * reference reader (not in §7.1, not in the corpus).
 */

/* Largest trace text accepted. */
#define PDP_TRACE_MAX_BYTES ((size_t)1 << 30)

/*
 * Reads text[0..len) (a leading UTF-8 BOM is skipped) and appends its
 * events to h, in order. All or nothing: on error no event is appended
 * (values already built stay unused in h's arena; only when the history
 * itself runs out of memory while appending may it keep a prefix) and
 * *err holds "file:line:col: message" (BOX_EPARSE), or a memory / size
 * refusal (BOX_ENOMEM, BOX_ETOOBIG). file names the text in messages.
 *
 * lines may be NULL. Otherwise on BOX_OK *lines is an array in h's arena
 * with the 1-based source line of each appended event: (*lines)[k] is
 * the line of event n + k, n being pdp_hist_len(h) before the call.
 */
box_err pdp_trace_load(const char *text, size_t len, const char *file,
                       pdp_hist *h, const uint32_t **lines,
                       box_buf *err) BOX_WARN_UNUSED;

#endif
