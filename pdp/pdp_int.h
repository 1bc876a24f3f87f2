/* SPDX-License-Identifier: Apache-2.0 */
/* libboxpolicy internals shared by its modules (never installed). */
#ifndef PDP_INT_H
#define PDP_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pdp_value.h"

/* The value body; only pdp_value.c, pdp_eval.c and the parser touch it. */
struct pdp_value {
    uint8_t v_kind;  // pdp_value_kind
    uint8_t v_depth; // 1 for scalars; 1 + deepest child otherwise
    uint32_t v_n;    // set elements / record fields
    uint32_t v_cap;  // allocated slots
    union {
        bool b;
        int64_t l; // Long; also decimal, datetime and duration
        pdp_ipaddr ip;
        struct {
            const char *s;
            size_t len;
        } str;
        struct {
            const pdp_value **items;
        } set;
        struct {
            const char **keys;
            size_t *klens;
            const pdp_value **vals;
        } rec;
        struct {
            const char *type;
            size_t tlen;
            const char *id;
            size_t idlen;
        } ent;
    } u;
};

/* True for the kinds whose payload is u.l. */
static inline bool
pdp_kind_is_i64(uint8_t k)
{
    return k == PDP_VAL_LONG || k == PDP_VAL_DECIMAL ||
           k == PDP_VAL_DATETIME || k == PDP_VAL_DURATION;
}

/* a[0..n) == b[0..n), for the short names, types and ids of policies:
 * inlined fixed-size loads, the first and last overlapping, where a call
 * to memcmp cost more than the compare (a fifth of a decision's time). */
static inline bool
pdp_bytes_eq(const void *a, const void *b, size_t n)
{
    const unsigned char *x = a, *y = b;
    // A compare of a constant size is a load and a compare each.
    if (n > 16)
        return __builtin_memcmp(x, y, n) == 0;
    if (n >= 8)
        return __builtin_memcmp(x, y, 8) == 0 &&
               __builtin_memcmp(x + n - 8, y + n - 8, 8) == 0;
    if (n >= 4)
        return __builtin_memcmp(x, y, 4) == 0 &&
               __builtin_memcmp(x + n - 4, y + n - 4, 4) == 0;
    if (n >= 2)
        return x[0] == y[0] && x[n - 1] == y[n - 1] && x[n / 2] == y[n / 2];
    return n == 0 || x[0] == y[0];
}

/* True iff s[0..n) is IDENT { "::" IDENT }. */
bool pdp_is_type_path(const char *s, size_t n);
/* Entity equality without the kind check. */
static inline bool
pdp_entity_eq(const pdp_value *a, const pdp_value *b)
{
    return a->u.ent.tlen == b->u.ent.tlen && a->u.ent.idlen == b->u.ent.idlen &&
           pdp_bytes_eq(a->u.ent.type, b->u.ent.type, a->u.ent.tlen) &&
           pdp_bytes_eq(a->u.ent.id, b->u.ent.id, a->u.ent.idlen);
}

/* ipaddr equality: family, the address bytes of that family, prefix. */
static inline bool
pdp_ipaddr_eq(const pdp_ipaddr *a, const pdp_ipaddr *b)
{
    return a->ip_v6 == b->ip_v6 && a->ip_prefix == b->ip_prefix &&
           __builtin_memcmp(a->ip_addr, b->ip_addr, a->ip_v6 ? 16 : 4) == 0;
}
#endif
