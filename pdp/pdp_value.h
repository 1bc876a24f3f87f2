/* SPDX-License-Identifier: Apache-2.0 */
/* Typed value trees: what a request carries and what policies compute. */
#ifndef PDP_VALUE_H
#define PDP_VALUE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "box_err.h"
#include "box_arena.h"

/*
 * A pdp_value is a Cedar value: Bool, Long, String, Set, Record, entity
 * reference, or one of the extension types decimal, ipaddr, datetime and
 * duration (dogwood-spec §3.1). Values live in a box_arena: every
 * constructor takes the arena, and the tree is freed with the arena (there
 * is no per-value free). A value may be shared by several parents.
 *
 * Caps for untrusted input (a request decoded from the wire): strings are
 * well-formed UTF-8 (checked), nesting depth <= PDP_VALUE_MAX_DEPTH, a set
 * holds <= PDP_VALUE_MAX_ITEMS elements, a record <= PDP_VALUE_MAX_FIELDS.
 */
#define PDP_VALUE_MAX_DEPTH 64
#define PDP_VALUE_MAX_ITEMS 65536
#define PDP_VALUE_MAX_FIELDS 1024

typedef struct pdp_value pdp_value;

/* ORDER PDP_VAL: pdp_value_kind_name() follows this order. */
typedef enum pdp_value_kind {
    PDP_VAL_BOOL,
    PDP_VAL_LONG,
    PDP_VAL_STRING,
    PDP_VAL_SET,
    PDP_VAL_RECORD,
    PDP_VAL_ENTITY,
    PDP_VAL_DECIMAL,  // signed 64-bit integer scaled by 10^4
    PDP_VAL_IPADDR,   // an address and a prefix length (pdp_ipaddr)
    PDP_VAL_DATETIME, // signed 64-bit milliseconds since the Unix epoch
    PDP_VAL_DURATION, // signed 64-bit milliseconds
} pdp_value_kind;

/* An ipaddr value: IPv4 (ip_v6 false, the address in ip_addr[0..4)) or
 * IPv6 (ip_addr[0..16)), network byte order, with the prefix length
 * (0..32 or 0..128; a single address has the full length). The address
 * is kept as written, not masked: 10.0.0.1/24 and 10.0.0.8/24 differ. */
typedef struct pdp_ipaddr {
    uint8_t ip_addr[16];
    uint8_t ip_prefix;
    bool ip_v6;
} pdp_ipaddr;

/* ---- builders (all results are owned by the arena) ---- */

/* NULL only when the arena is full or out of memory. */
pdp_value *pdp_value_bool(box_arena *a, bool b);
pdp_value *pdp_value_long(box_arena *a, int64_t l);
/* Copies s[0..n). BOX_EINVAL if it is not well-formed UTF-8. */
box_err pdp_value_string(box_arena *a, const char *s, size_t n,
                         pdp_value **out) BOX_WARN_UNUSED;
/* An entity reference `type::"id"`, e.g. type "Box::Action", id
 * "fs:read". Copies both. BOX_EINVAL unless type is IDENT{::IDENT} and
 * id is well-formed UTF-8. */
box_err pdp_value_entity(box_arena *a, const char *type, size_t tlen,
                         const char *id, size_t idlen,
                         pdp_value **out) BOX_WARN_UNUSED;
/* Extension values: a decimal scaled by 10^4 ("1.5" is 15000), a
 * datetime or a duration in milliseconds, an ipaddr (copied). Values out
 * of the types' ranges cannot be written: every int64_t is valid. */
pdp_value *pdp_value_decimal(box_arena *a, int64_t scaled);
pdp_value *pdp_value_datetime(box_arena *a, int64_t ms);
pdp_value *pdp_value_duration(box_arena *a, int64_t ms);
pdp_value *pdp_value_ipaddr(box_arena *a, const pdp_ipaddr *ip);
/* An empty set / record to fill with the calls below. */
pdp_value *pdp_value_set_new(box_arena *a);
pdp_value *pdp_value_record_new(box_arena *a);
/* Adds elem (borrowed: the set points at it; it must live in the same
 * arena or longer). Duplicates are allowed: sets compare, test membership
 * and encode as mathematical sets. BOX_ETOOBIG past the caps. */
box_err pdp_value_set_add(box_arena *a, pdp_value *set,
                          const pdp_value *elem) BOX_WARN_UNUSED;
/* Adds key -> val (key copied, val borrowed). Keys keep insertion order.
 * BOX_EINVAL for a duplicate key or non-UTF-8 key, BOX_ETOOBIG past the
 * caps. */
box_err pdp_value_record_put(box_arena *a, pdp_value *rec, const char *key,
                             size_t klen,
                             const pdp_value *val) BOX_WARN_UNUSED;

/* ---- readers ---- */

pdp_value_kind pdp_value_kind_of(const pdp_value *v);
/* "bool", "long", "string", "set", "record", "entity", and Cedar's
 * extension type names "decimal", "ipaddr", "datetime", "duration". */
const char *pdp_value_kind_name(pdp_value_kind k);
/* The scalar; false / 0 when v is of another kind. */
bool pdp_value_as_bool(const pdp_value *v);
int64_t pdp_value_as_long(const pdp_value *v);
/* The scaled decimal, or the milliseconds of a datetime / duration; 0
 * when v is of another kind. */
int64_t pdp_value_as_decimal(const pdp_value *v);
int64_t pdp_value_as_datetime(const pdp_value *v);
int64_t pdp_value_as_duration(const pdp_value *v);
/* The address of an ipaddr (false, *out untouched, for other kinds). */
bool pdp_value_as_ipaddr(const pdp_value *v, pdp_ipaddr *out);
/* String bytes (NUL-terminated, may also hold NULs) and length. */
const char *pdp_value_str(const pdp_value *v, size_t *len);
/* Entity parts. */
const char *pdp_value_entity_type(const pdp_value *v, size_t *len);
const char *pdp_value_entity_id(const pdp_value *v, size_t *len);
/* Number of set elements / record fields (0 for other kinds). */
size_t pdp_value_count(const pdp_value *v);
/* The i-th set element or record value, in insertion order. */
const pdp_value *pdp_value_item(const pdp_value *v, size_t i);
/* The i-th record key. */
const char *pdp_value_key(const pdp_value *v, size_t i, size_t *len);
/* The record field named key, or NULL. */
const pdp_value *pdp_value_get(const pdp_value *rec, const char *key,
                               size_t klen);

/* A deep copy of v built in a (pdp_value_copy.c). BOX_ENOMEM when the
 * arena is full. */
box_err pdp_value_copy(box_arena *a, const pdp_value *v,
                       const pdp_value **out) BOX_WARN_UNUSED;

/* Cedar equality: same kind and value; sets as sets; records by key set
 * and values; entities by type and id; decimals by scaled value;
 * ipaddrs by family, address and prefix; datetimes and durations by
 * milliseconds. Never fails. */
bool pdp_value_equal(const pdp_value *a, const pdp_value *b);

/*
 * Appends the canonical encoding of v to out: deterministic bytes,
 * equal for equal values (records sorted by key, sets sorted and
 * deduplicated), different for different values. Usable as a cache key.
 * Layout: a tag byte ('B' 'L' 'S' '[' '{' 'E' 'D' 'I' 'T' 'P'), then
 * big-endian fixed widths: B: 1 byte; L: 8 bytes; S: u32 length + bytes;
 * E: u32 + type, u32 + id; '[': u32 count + elements; '{': u32 count +
 * (u32 + key, value) pairs; D (decimal): 8 bytes, the scaled value;
 * I (ipaddr): 1 byte family (4 or 6), 1 byte prefix, then 4 or 16
 * address bytes; T (datetime) and P (duration, ISO 8601's period
 * letter): 8 bytes of milliseconds. One tag per kind keeps a decimal
 * 1.0 apart from a Long 10000 and a datetime from a duration.
 */
box_err pdp_value_encode(const pdp_value *v, box_buf *out) BOX_WARN_UNUSED;

/* Reads one value of pdp_value_encode's layout from bytes[0..len) into
 * a (pdp_value_decode.c); *used is how many bytes it took. BOX_EINVAL for
 * bytes that are no such value (truncated, a bad tag, past a cap, not
 * UTF-8), BOX_ENOMEM when the arena is full. */
box_err pdp_value_decode(box_arena *a, const void *bytes, size_t len,
                         size_t *used, const pdp_value **out) BOX_WARN_UNUSED;

/* Appends Cedar-like text for v (strings quoted and escaped, entities as
 * Type::"id", extension values as the constructor call that makes them:
 * decimal("1.2000"), ip("10.0.0.0/24"), datetime("2024-10-15T11:35:00Z"),
 * duration("5400000ms")), for messages and tests. */
box_err pdp_value_format(const pdp_value *v, box_buf *out) BOX_WARN_UNUSED;

#endif
