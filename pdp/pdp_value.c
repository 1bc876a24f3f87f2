/* SPDX-License-Identifier: Apache-2.0 */
/* Value builders, readers, equality and the canonical encoding. */
#include "pdp_value.h"

#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_escape.h"
#include "pdp_ext.h"
#include "pdp_int.h"
#include "box_utf8.h"

static pdp_value *
value_new(box_arena *a, pdp_value_kind k)
{
    pdp_value *v = box_arena_zalloc(a, sizeof(*v));
    if (v != NULL) {
        v->v_kind = (uint8_t)k;
        v->v_depth = 1;
    }
    return v;
}

pdp_value *
pdp_value_bool(box_arena *a, bool b)
{
    pdp_value *v = value_new(a, PDP_VAL_BOOL);
    if (v != NULL)
        v->u.b = b;
    return v;
}

pdp_value *
pdp_value_long(box_arena *a, int64_t l)
{
    pdp_value *v = value_new(a, PDP_VAL_LONG);
    if (v != NULL)
        v->u.l = l;
    return v;
}

static pdp_value *
value_i64(box_arena *a, pdp_value_kind k, int64_t l)
{
    pdp_value *v = value_new(a, k);
    if (v != NULL)
        v->u.l = l;
    return v;
}

pdp_value *
pdp_value_decimal(box_arena *a, int64_t scaled)
{
    return value_i64(a, PDP_VAL_DECIMAL, scaled);
}

pdp_value *
pdp_value_datetime(box_arena *a, int64_t ms)
{
    return value_i64(a, PDP_VAL_DATETIME, ms);
}

pdp_value *
pdp_value_duration(box_arena *a, int64_t ms)
{
    return value_i64(a, PDP_VAL_DURATION, ms);
}

pdp_value *
pdp_value_ipaddr(box_arena *a, const pdp_ipaddr *ip)
{
    pdp_value *v = value_new(a, PDP_VAL_IPADDR);
    if (v != NULL)
        v->u.ip = *ip;
    return v;
}

box_err
pdp_value_string(box_arena *a, const char *s, size_t n, pdp_value **out)
{
    *out = NULL;
    if (!box_utf8_valid(s, n))
        return BOX_EINVAL;
    pdp_value *v = value_new(a, PDP_VAL_STRING);
    char *d = box_arena_strndup(a, s, n);
    if (v == NULL || d == NULL)
        return BOX_ENOMEM;
    v->u.str.s = d;
    v->u.str.len = n;
    *out = v;
    return BOX_OK;
}

static bool
is_ident_start(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

static bool
is_ident_char(char c)
{
    return is_ident_start(c) || (c >= '0' && c <= '9');
}

bool
pdp_is_type_path(const char *s, size_t n)
{
    size_t i = 0;
    for (;;) {
        if (i >= n || !is_ident_start(s[i]))
            return false;
        while (i < n && is_ident_char(s[i]))
            i++;
        if (i == n)
            return true;
        if (n - i < 2 || s[i] != ':' || s[i + 1] != ':')
            return false;
        i += 2;
    }
}

box_err
pdp_value_entity(box_arena *a, const char *type, size_t tlen, const char *id,
                 size_t idlen, pdp_value **out)
{
    *out = NULL;
    if (!pdp_is_type_path(type, tlen) || !box_utf8_valid(id, idlen))
        return BOX_EINVAL;
    pdp_value *v = value_new(a, PDP_VAL_ENTITY);
    char *t = box_arena_strndup(a, type, tlen);
    char *d = box_arena_strndup(a, id, idlen);
    if (v == NULL || t == NULL || d == NULL)
        return BOX_ENOMEM;
    v->u.ent.type = t;
    v->u.ent.tlen = tlen;
    v->u.ent.id = d;
    v->u.ent.idlen = idlen;
    *out = v;
    return BOX_OK;
}

pdp_value *
pdp_value_set_new(box_arena *a)
{
    return value_new(a, PDP_VAL_SET);
}

pdp_value *
pdp_value_record_new(box_arena *a)
{
    return value_new(a, PDP_VAL_RECORD);
}

/* Grows an arena array of `size`-byte slots from old_n to new_n slots. */
static void *
grow(box_arena *a, void *old, size_t old_n, size_t new_n, size_t size)
{
    void *p = box_arena_alloc(a, new_n * size);
    if (p != NULL && old_n > 0)
        memcpy(p, old, old_n * size);
    return p;
}

static box_err
child_depth(pdp_value *parent, const pdp_value *child)
{
    if (child->v_depth >= PDP_VALUE_MAX_DEPTH)
        return BOX_ETOOBIG;
    if (child->v_depth + 1 > parent->v_depth)
        parent->v_depth = (uint8_t)(child->v_depth + 1);
    return BOX_OK;
}

box_err
pdp_value_set_add(box_arena *a, pdp_value *set, const pdp_value *elem)
{
    if (set == NULL || elem == NULL || set->v_kind != PDP_VAL_SET)
        return BOX_EINVAL;
    if (set->v_n >= PDP_VALUE_MAX_ITEMS)
        return BOX_ETOOBIG;
    if (child_depth(set, elem) != BOX_OK)
        return BOX_ETOOBIG;
    if (set->v_n == set->v_cap) {
        uint32_t cap = set->v_cap ? set->v_cap * 2 : 4;
        const pdp_value **it =
            grow(a, set->u.set.items, set->v_n, cap, sizeof(*it));
        if (it == NULL)
            return BOX_ENOMEM;
        set->u.set.items = it;
        set->v_cap = cap;
    }
    set->u.set.items[set->v_n++] = elem;
    return BOX_OK;
}

box_err
pdp_value_record_put(box_arena *a, pdp_value *rec, const char *key,
                     size_t klen, const pdp_value *val)
{
    if (rec == NULL || val == NULL || rec->v_kind != PDP_VAL_RECORD)
        return BOX_EINVAL;
    if (!box_utf8_valid(key, klen))
        return BOX_EINVAL;
    if (pdp_value_get(rec, key, klen) != NULL)
        return BOX_EINVAL;
    if (rec->v_n >= PDP_VALUE_MAX_FIELDS)
        return BOX_ETOOBIG;
    if (child_depth(rec, val) != BOX_OK)
        return BOX_ETOOBIG;
    if (rec->v_n == rec->v_cap) {
        uint32_t cap = rec->v_cap ? rec->v_cap * 2 : 4;
        const char **k = grow(a, rec->u.rec.keys, rec->v_n, cap, sizeof(*k));
        size_t *kl = grow(a, rec->u.rec.klens, rec->v_n, cap, sizeof(*kl));
        const pdp_value **vs =
            grow(a, rec->u.rec.vals, rec->v_n, cap, sizeof(*vs));
        if (k == NULL || kl == NULL || vs == NULL)
            return BOX_ENOMEM;
        rec->u.rec.keys = k;
        rec->u.rec.klens = kl;
        rec->u.rec.vals = vs;
        rec->v_cap = cap;
    }
    char *kd = box_arena_strndup(a, key, klen);
    if (kd == NULL)
        return BOX_ENOMEM;
    rec->u.rec.keys[rec->v_n] = kd;
    rec->u.rec.klens[rec->v_n] = klen;
    rec->u.rec.vals[rec->v_n] = val;
    rec->v_n++;
    return BOX_OK;
}

pdp_value_kind
pdp_value_kind_of(const pdp_value *v)
{
    return (pdp_value_kind)v->v_kind;
}

const char *
pdp_value_kind_name(pdp_value_kind k)
{
    static const char *const names[] = {
        "bool",   "long",    "string", "set",      "record",
        "entity", "decimal", "ipaddr", "datetime", "duration"}; // ORDER PDP_VAL
    return (unsigned)k < sizeof(names) / sizeof(names[0]) ? names[k] : "?";
}

bool
pdp_value_as_bool(const pdp_value *v)
{
    return v->v_kind == PDP_VAL_BOOL && v->u.b;
}

int64_t
pdp_value_as_long(const pdp_value *v)
{
    return v->v_kind == PDP_VAL_LONG ? v->u.l : 0;
}

int64_t
pdp_value_as_decimal(const pdp_value *v)
{
    return v->v_kind == PDP_VAL_DECIMAL ? v->u.l : 0;
}

int64_t
pdp_value_as_datetime(const pdp_value *v)
{
    return v->v_kind == PDP_VAL_DATETIME ? v->u.l : 0;
}

int64_t
pdp_value_as_duration(const pdp_value *v)
{
    return v->v_kind == PDP_VAL_DURATION ? v->u.l : 0;
}

bool
pdp_value_as_ipaddr(const pdp_value *v, pdp_ipaddr *out)
{
    if (v->v_kind != PDP_VAL_IPADDR)
        return false;
    *out = v->u.ip;
    return true;
}

const char *
pdp_value_str(const pdp_value *v, size_t *len)
{
    if (v->v_kind != PDP_VAL_STRING) {
        *len = 0;
        return NULL;
    }
    *len = v->u.str.len;
    return v->u.str.s;
}

const char *
pdp_value_entity_type(const pdp_value *v, size_t *len)
{
    if (v->v_kind != PDP_VAL_ENTITY) {
        *len = 0;
        return NULL;
    }
    *len = v->u.ent.tlen;
    return v->u.ent.type;
}

const char *
pdp_value_entity_id(const pdp_value *v, size_t *len)
{
    if (v->v_kind != PDP_VAL_ENTITY) {
        *len = 0;
        return NULL;
    }
    *len = v->u.ent.idlen;
    return v->u.ent.id;
}

size_t
pdp_value_count(const pdp_value *v)
{
    return (v->v_kind == PDP_VAL_SET || v->v_kind == PDP_VAL_RECORD) ? v->v_n
                                                                     : 0;
}

const pdp_value *
pdp_value_item(const pdp_value *v, size_t i)
{
    if (i >= pdp_value_count(v))
        return NULL;
    return v->v_kind == PDP_VAL_SET ? v->u.set.items[i] : v->u.rec.vals[i];
}

const char *
pdp_value_key(const pdp_value *v, size_t i, size_t *len)
{
    if (v->v_kind != PDP_VAL_RECORD || i >= v->v_n) {
        *len = 0;
        return NULL;
    }
    *len = v->u.rec.klens[i];
    return v->u.rec.keys[i];
}

const pdp_value *
pdp_value_get(const pdp_value *rec, const char *key, size_t klen)
{
    if (rec->v_kind != PDP_VAL_RECORD)
        return NULL;
    for (uint32_t i = 0; i < rec->v_n; i++) {
        if (rec->u.rec.klens[i] == klen &&
            pdp_bytes_eq(rec->u.rec.keys[i], key, klen))
            return rec->u.rec.vals[i];
    }
    return NULL;
}

static bool
set_has(const pdp_value *set, const pdp_value *x)
{
    for (uint32_t i = 0; i < set->v_n; i++) {
        if (pdp_value_equal(set->u.set.items[i], x))
            return true;
    }
    return false;
}

bool
pdp_value_equal(const pdp_value *a, const pdp_value *b)
{
    if (a == b)
        return true;
    if (a->v_kind != b->v_kind)
        return false;
    switch ((pdp_value_kind)a->v_kind) {
    case PDP_VAL_BOOL:
        return a->u.b == b->u.b;
    case PDP_VAL_LONG:
    case PDP_VAL_DECIMAL:
    case PDP_VAL_DATETIME:
    case PDP_VAL_DURATION:
        return a->u.l == b->u.l;
    case PDP_VAL_IPADDR:
        return pdp_ipaddr_eq(&a->u.ip, &b->u.ip);
    case PDP_VAL_STRING:
        return a->u.str.len == b->u.str.len &&
               pdp_bytes_eq(a->u.str.s, b->u.str.s, a->u.str.len);
    case PDP_VAL_ENTITY:
        return pdp_entity_eq(a, b);
    case PDP_VAL_SET:
        for (uint32_t i = 0; i < a->v_n; i++) {
            if (!set_has(b, a->u.set.items[i]))
                return false;
        }
        for (uint32_t i = 0; i < b->v_n; i++) {
            if (!set_has(a, b->u.set.items[i]))
                return false;
        }
        return true;
    case PDP_VAL_RECORD:
        if (a->v_n != b->v_n)
            return false;
        for (uint32_t i = 0; i < a->v_n; i++) {
            const pdp_value *o =
                pdp_value_get(b, a->u.rec.keys[i], a->u.rec.klens[i]);
            if (o == NULL || !pdp_value_equal(a->u.rec.vals[i], o))
                return false;
        }
        return true;
    }
    return false;
}

/* ---- canonical encoding ---- */

static box_err
put_u32(box_buf *out, size_t n)
{
    unsigned char b[4] = {(unsigned char)(n >> 24), (unsigned char)(n >> 16),
                          (unsigned char)(n >> 8), (unsigned char)n};
    return box_buf_append(out, b, 4);
}

static box_err
put_bytes(box_buf *out, const char *s, size_t n)
{
    box_err rv = put_u32(out, n);
    return rv != BOX_OK ? rv : box_buf_append(out, s, n);
}

typedef struct enc_span {
    const char *es_base; // points into a box_buf that must not move
    size_t es_off;
    size_t es_len;
} enc_span;

static int
span_cmp(const void *x, const void *y)
{
    const enc_span *a = x, *b = y;
    size_t n = a->es_len < b->es_len ? a->es_len : b->es_len;
    int c = memcmp(a->es_base + a->es_off, b->es_base + b->es_off, n);
    if (c != 0)
        return c;
    return a->es_len < b->es_len ? -1 : a->es_len > b->es_len;
}

typedef struct key_ix {
    const char *k;
    size_t len;
    uint32_t ix;
} key_ix;

static int
key_cmp(const void *x, const void *y)
{
    const key_ix *a = x, *b = y;
    size_t n = a->len < b->len ? a->len : b->len;
    int c = memcmp(a->k, b->k, n);
    if (c != 0)
        return c;
    return a->len < b->len ? -1 : a->len > b->len;
}

static box_err
encode_set(const pdp_value *v, box_buf *out)
{
    /* Encode every element into one scratch buffer, sort the spans, then
     * copy them out skipping duplicates. */
    box_buf tmp;
    box_buf_init(&tmp, out->b_max);
    enc_span *sp = NULL;
    box_err rv = BOX_ENOMEM;
    size_t *offs = box_calloc(v->v_n + 1, sizeof(*offs));
    sp = box_calloc(v->v_n + 1, sizeof(*sp));
    if (offs == NULL || sp == NULL)
        goto out;
    for (uint32_t i = 0; i < v->v_n; i++) {
        offs[i] = tmp.b_len;
        if ((rv = pdp_value_encode(v->u.set.items[i], &tmp)) != BOX_OK)
            goto out;
    }
    for (uint32_t i = 0; i < v->v_n; i++) {
        sp[i].es_base = tmp.b_data;
        sp[i].es_off = offs[i];
        sp[i].es_len = (i + 1 < v->v_n ? offs[i + 1] : tmp.b_len) - offs[i];
    }
    if (v->v_n > 1)
        qsort(sp, v->v_n, sizeof(*sp), span_cmp);
    size_t uniq = 0;
    for (uint32_t i = 0; i < v->v_n; i++) {
        if (i == 0 || span_cmp(&sp[i - 1], &sp[i]) != 0)
            uniq++;
    }
    if ((rv = box_buf_putc(out, '[')) != BOX_OK ||
        (rv = put_u32(out, uniq)) != BOX_OK)
        goto out;
    for (uint32_t i = 0; i < v->v_n; i++) {
        if (i > 0 && span_cmp(&sp[i - 1], &sp[i]) == 0)
            continue;
        rv = box_buf_append(out, tmp.b_data + sp[i].es_off, sp[i].es_len);
        if (rv != BOX_OK)
            goto out;
    }
    rv = BOX_OK;
out:
    box_free(offs);
    box_free(sp);
    box_buf_reset(&tmp);
    return rv;
}

static box_err
encode_record(const pdp_value *v, box_buf *out)
{
    box_err rv = BOX_ENOMEM;
    key_ix *ks = box_calloc(v->v_n + 1, sizeof(*ks));
    if (ks == NULL)
        goto out;
    for (uint32_t i = 0; i < v->v_n; i++) {
        ks[i].k = v->u.rec.keys[i];
        ks[i].len = v->u.rec.klens[i];
        ks[i].ix = i;
    }
    if (v->v_n > 1)
        qsort(ks, v->v_n, sizeof(*ks), key_cmp);
    if ((rv = box_buf_putc(out, '{')) != BOX_OK ||
        (rv = put_u32(out, v->v_n)) != BOX_OK)
        goto out;
    for (uint32_t i = 0; i < v->v_n; i++) {
        if ((rv = put_bytes(out, ks[i].k, ks[i].len)) != BOX_OK ||
            (rv = pdp_value_encode(v->u.rec.vals[ks[i].ix], out)) != BOX_OK)
            goto out;
    }
    rv = BOX_OK;
out:
    box_free(ks);
    return rv;
}

/* A tag byte and 8 big-endian bytes. */
static box_err
encode_i64(box_buf *out, char tag, int64_t l)
{
    uint64_t u = (uint64_t)l;
    unsigned char b[9] = {(unsigned char)tag};
    for (int i = 0; i < 8; i++)
        b[1 + i] = (unsigned char)(u >> (56 - 8 * i));
    return box_buf_append(out, b, 9);
}

box_err
pdp_value_encode(const pdp_value *v, box_buf *out)
{
    box_err rv;
    switch ((pdp_value_kind)v->v_kind) {
    case PDP_VAL_BOOL: {
        char b[2] = {'B', v->u.b ? 1 : 0};
        return box_buf_append(out, b, 2);
    }
    case PDP_VAL_LONG:
        return encode_i64(out, 'L', v->u.l);
    case PDP_VAL_DECIMAL:
        return encode_i64(out, 'D', v->u.l);
    case PDP_VAL_DATETIME:
        return encode_i64(out, 'T', v->u.l);
    case PDP_VAL_DURATION:
        return encode_i64(out, 'P', v->u.l);
    case PDP_VAL_IPADDR: {
        unsigned char b[3] = {'I', v->u.ip.ip_v6 ? 6 : 4, v->u.ip.ip_prefix};
        if ((rv = box_buf_append(out, b, 3)) != BOX_OK)
            return rv;
        return box_buf_append(out, v->u.ip.ip_addr, v->u.ip.ip_v6 ? 16 : 4);
    }
    case PDP_VAL_STRING:
        if ((rv = box_buf_putc(out, 'S')) != BOX_OK)
            return rv;
        return put_bytes(out, v->u.str.s, v->u.str.len);
    case PDP_VAL_ENTITY:
        if ((rv = box_buf_putc(out, 'E')) != BOX_OK ||
            (rv = put_bytes(out, v->u.ent.type, v->u.ent.tlen)) != BOX_OK)
            return rv;
        return put_bytes(out, v->u.ent.id, v->u.ent.idlen);
    case PDP_VAL_SET:
        return encode_set(v, out);
    case PDP_VAL_RECORD:
        return encode_record(v, out);
    }
    return BOX_EINVAL;
}

static bool
is_ident(const char *s, size_t n)
{
    if (n == 0 || !is_ident_start(s[0]))
        return false;
    for (size_t i = 1; i < n; i++) {
        if (!is_ident_char(s[i]))
            return false;
    }
    return true;
}

static box_err
format_quoted(box_buf *out, const char *s, size_t n)
{
    box_err rv;
    if ((rv = box_buf_putc(out, '"')) != BOX_OK ||
        (rv = box_escape_debug_str(out, s, n)) != BOX_OK)
        return rv;
    return box_buf_putc(out, '"');
}

box_err
pdp_value_format(const pdp_value *v, box_buf *out)
{
    box_err rv = BOX_OK;
    switch ((pdp_value_kind)v->v_kind) {
    case PDP_VAL_BOOL:
        return box_buf_puts(out, v->u.b ? "true" : "false");
    case PDP_VAL_LONG:
        return box_buf_printf(out, "%lld", (long long)v->u.l);
    case PDP_VAL_DECIMAL:
    case PDP_VAL_IPADDR:
    case PDP_VAL_DATETIME:
    case PDP_VAL_DURATION:
        return pdp_ext_format(v, out);
    case PDP_VAL_STRING:
        return format_quoted(out, v->u.str.s, v->u.str.len);
    case PDP_VAL_ENTITY:
        if ((rv = box_buf_append(out, v->u.ent.type, v->u.ent.tlen)) !=
                BOX_OK ||
            (rv = box_buf_puts(out, "::")) != BOX_OK)
            return rv;
        return format_quoted(out, v->u.ent.id, v->u.ent.idlen);
    case PDP_VAL_SET:
        if ((rv = box_buf_putc(out, '[')) != BOX_OK)
            return rv;
        for (uint32_t i = 0; i < v->v_n && rv == BOX_OK; i++) {
            if (i > 0 && (rv = box_buf_puts(out, ", ")) != BOX_OK)
                return rv;
            rv = pdp_value_format(v->u.set.items[i], out);
        }
        return rv != BOX_OK ? rv : box_buf_putc(out, ']');
    case PDP_VAL_RECORD:
        if ((rv = box_buf_putc(out, '{')) != BOX_OK)
            return rv;
        for (uint32_t i = 0; i < v->v_n && rv == BOX_OK; i++) {
            const char *k = v->u.rec.keys[i];
            size_t kl = v->u.rec.klens[i];
            if (i > 0 && (rv = box_buf_puts(out, ", ")) != BOX_OK)
                return rv;
            rv = is_ident(k, kl) ? box_buf_append(out, k, kl)
                                 : format_quoted(out, k, kl);
            if (rv == BOX_OK)
                rv = box_buf_puts(out, ": ");
            if (rv == BOX_OK)
                rv = pdp_value_format(v->u.rec.vals[i], out);
        }
        return rv != BOX_OK ? rv : box_buf_putc(out, '}');
    }
    return BOX_EINVAL;
}
