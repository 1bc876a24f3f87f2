/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The canonical encoding read back (pdp_value_encode's layout): what the
 * durable history stores. Every length is checked against the bytes left
 * and the value caps, every builder validates what it is given, so a
 * corrupt record is an error, never a wild read.
 */
#include <string.h>

#include "pdp_value.h"

typedef struct dec {
    const unsigned char *p, *end;
    box_arena *a;
} dec;

static bool
take(dec *d, size_t n, const unsigned char **out)
{
    if ((size_t)(d->end - d->p) < n)
        return false;
    *out = d->p;
    d->p += n;
    return true;
}

static bool
get_u32(dec *d, uint32_t *v)
{
    const unsigned char *b;
    if (!take(d, 4, &b))
        return false;
    *v = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 |
         b[3];
    return true;
}

static bool
get_i64(dec *d, int64_t *v)
{
    const unsigned char *b;
    if (!take(d, 8, &b))
        return false;
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u = u << 8 | b[i];
    *v = (int64_t)u;
    return true;
}

static bool
get_bytes(dec *d, const char **s, size_t *n)
{
    uint32_t len;
    const unsigned char *b;
    if (!get_u32(d, &len) || !take(d, len, &b))
        return false;
    *s = (const char *)b;
    *n = len;
    return true;
}

static box_err
decode(dec *d, int depth, const pdp_value **out)
{
    const unsigned char *tag;
    if (depth > PDP_VALUE_MAX_DEPTH || !take(d, 1, &tag))
        return BOX_EINVAL;
    box_arena *a = d->a;
    pdp_value *v = NULL;
    int64_t l;
    switch (*tag) {
    case 'B': {
        const unsigned char *b;
        if (!take(d, 1, &b) || *b > 1)
            return BOX_EINVAL;
        v = pdp_value_bool(a, *b == 1);
        break;
    }
    case 'L':
    case 'D':
    case 'T':
    case 'P':
        if (!get_i64(d, &l))
            return BOX_EINVAL;
        v = *tag == 'L'   ? pdp_value_long(a, l)
            : *tag == 'D' ? pdp_value_decimal(a, l)
            : *tag == 'T' ? pdp_value_datetime(a, l)
                          : pdp_value_duration(a, l);
        break;
    case 'I': {
        const unsigned char *h, *addr;
        if (!take(d, 2, &h) || (h[0] != 4 && h[0] != 6))
            return BOX_EINVAL;
        pdp_ipaddr ip = {.ip_v6 = h[0] == 6, .ip_prefix = h[1]};
        size_t n = ip.ip_v6 ? 16 : 4;
        if (ip.ip_prefix > n * 8 || !take(d, n, &addr))
            return BOX_EINVAL;
        memcpy(ip.ip_addr, addr, n);
        v = pdp_value_ipaddr(a, &ip);
        break;
    }
    case 'S': {
        const char *s;
        size_t n;
        if (!get_bytes(d, &s, &n))
            return BOX_EINVAL;
        box_err rv = pdp_value_string(a, s, n, &v);
        if (rv != BOX_OK)
            return rv;
        break;
    }
    case 'E': {
        const char *t, *id;
        size_t tn, idn;
        if (!get_bytes(d, &t, &tn) || !get_bytes(d, &id, &idn))
            return BOX_EINVAL;
        box_err rv = pdp_value_entity(a, t, tn, id, idn, &v);
        if (rv != BOX_OK)
            return rv;
        break;
    }
    case '[': {
        uint32_t n;
        if (!get_u32(d, &n) || n > PDP_VALUE_MAX_ITEMS)
            return BOX_EINVAL;
        if ((v = pdp_value_set_new(a)) == NULL)
            return BOX_ENOMEM;
        for (uint32_t i = 0; i < n; i++) {
            const pdp_value *e = NULL;
            box_err rv = decode(d, depth + 1, &e);
            if (rv == BOX_OK)
                rv = pdp_value_set_add(a, v, e);
            if (rv != BOX_OK)
                return rv;
        }
        break;
    }
    case '{': {
        uint32_t n;
        if (!get_u32(d, &n) || n > PDP_VALUE_MAX_FIELDS)
            return BOX_EINVAL;
        if ((v = pdp_value_record_new(a)) == NULL)
            return BOX_ENOMEM;
        for (uint32_t i = 0; i < n; i++) {
            const char *k;
            size_t kn;
            const pdp_value *e = NULL;
            if (!get_bytes(d, &k, &kn))
                return BOX_EINVAL;
            box_err rv = decode(d, depth + 1, &e);
            if (rv == BOX_OK)
                rv = pdp_value_record_put(a, v, k, kn, e);
            if (rv != BOX_OK)
                return rv;
        }
        break;
    }
    default:
        return BOX_EINVAL;
    }
    if (v == NULL)
        return BOX_ENOMEM;
    *out = v;
    return BOX_OK;
}

box_err
pdp_value_decode(box_arena *a, const void *bytes, size_t len, size_t *used,
                 const pdp_value **out)
{
    dec d = {.p = bytes, .end = (const unsigned char *)bytes + len, .a = a};
    *out = NULL;
    box_err rv = decode(&d, 1, out);
    if (rv == BOX_OK)
        *used = (size_t)(d.p - (const unsigned char *)bytes);
    return rv;
}
