/* SPDX-License-Identifier: Apache-2.0 */
/* One decision request written as JSON (`box policy eval`, `box policy
 * test`), read with json-c into pdp values. */
#ifndef PDP_REQJSON_H
#define PDP_REQJSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_arena.h"
#include "box_buf.h"
#include "box_err.h"
#include "pdp_entities.h"
#include "pdp_value.h"

/*
 * The shape (one JSON object; members other than these are refused):
 *
 *   { "principal": UID,          default Box::Agent::"self"
 *     "action": UID,             required
 *     "resource": UID,           default Box::Resource::"unused"
 *     "context": { … },          a record; default {}
 *     "resource_text": "…",      how the message names the resource
 *                                (box-spec §3.11: the program of a
 *                                shell:exec, the path of an fs:*);
 *                                default "" (not named)
 *     "entities": [ ENTITY … ],  the entity store (Cedar's JSON entity
 *                                form); default none, as in Box
 *     "ts": N }                  seconds: when the request arrives after
 *                                a history; default its last event's time
 *
 *   UID     "Ns::Type::\"id\""  (the .dw spelling: escapes as in §2.1)
 *           or { "type": "Ns::Type", "id": "id" }
 *           or { "__entity": { "type": …, "id": … } }
 *   ENTITY  { "uid": UID, "attrs": { … }, "parents": [ UID … ],
 *             "tags": { … } }   (attrs, parents, tags optional)
 *
 * Values (Cedar's JSON value form): a string, an integer (64-bit signed;
 * a fraction or an exponent is refused), true / false, an array (a set),
 * an object (a record), { "__entity": { "type": …, "id": … } } (an
 * entity), { "__extn": { "fn": F, "arg": "…" } } (F one of decimal, ip,
 * datetime, duration: the value the constructor makes of arg). null is
 * refused. Nesting is capped at PDP_VALUE_MAX_DEPTH; a duplicate member
 * name keeps the last (json-c's reading).
 */
typedef struct pdp_reqjson {
    const pdp_value *rj_principal;
    const pdp_value *rj_action;
    const pdp_value *rj_resource;
    const pdp_value *rj_context; // a record
    const char *rj_resource_text; // NUL-terminated
    size_t rj_resource_len;
    pdp_entities rj_entities; // es_n == 0: none
    bool rj_has_ts;
    int64_t rj_ts;
} pdp_reqjson;

/* Largest request text read. */
#define PDP_REQJSON_MAX_BYTES ((size_t)64 << 20)

/*
 * Reads text[0..len) into *out; every value lives in a. On BOX_EINVAL
 * err holds "what: why" naming the member, e.g.
 * "context.input.shares: 1.5 is not a Cedar value; …" (err's cap may cut
 * it). BOX_ENOMEM, BOX_ETOOBIG (past PDP_REQJSON_MAX_BYTES or the value
 * caps).
 */
box_err pdp_reqjson_parse(const char *text, size_t len, box_arena *a,
                          pdp_reqjson *out, box_buf *err) BOX_WARN_UNUSED;

/*
 * Whether every integer of the JSON text text[0..len) (a number outside
 * a string, without fraction or exponent) fits 64 signed bits: json-c
 * reads a larger one as the nearest bound, silently. pdp_reqjson_parse
 * runs it; a caller that reads a request out of larger JSON text runs it
 * on that text. BOX_EINVAL with err "integer … is out of range …".
 */
box_err pdp_reqjson_integers(const char *text, size_t len,
                             box_buf *err) BOX_WARN_UNUSED;

/*
 * An entity uid in the .dw spelling `Ns::Type::"id"` (the whole text),
 * built in a. BOX_EINVAL when it is not one.
 */
box_err pdp_reqjson_uid(const char *text, size_t len, box_arena *a,
                        const pdp_value **out) BOX_WARN_UNUSED;

#endif
