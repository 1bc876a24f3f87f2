/* SPDX-License-Identifier: Apache-2.0 */
/* A DecisionRequest packed backwards in one pass (see box_reqpack.h). */
#include "box_reqpack.h"

#include <stdbool.h>
#include <string.h>

#define REQPACK_DEPTH_MAX 64

/* Protobuf wire types. */
#define WT_VARINT 0
#define WT_LEN 2

/*
 * The writer fills its buffer from the end: a message's body is written
 * before its length and tag, so the length is known. Every step takes the
 * first byte written so far (p) and returns the new one, or NULL when out
 * of room or not packable (then every later step passes NULL on): kept in
 * a register, p costs nothing to thread through, where a writer struct in
 * memory made each byte wait for the last store (measured: 2.5x slower).
 */

/* Strings here are mostly a few bytes: copied in fixed-size moves
 * (inlined), the first and last ones overlapping, where a call to memcpy
 * per string was a third of the packing. The caller has checked room. */
static inline void
copy_short(uint8_t *dst, const uint8_t *src, size_t n)
{
    if (n >= 8) {
        size_t off = n;
        for (; off >= 8; off -= 8)
            memcpy(dst + off - 8, src + off - 8, 8);
        if (off > 0)
            memcpy(dst, src, 8);
    } else if (n >= 4) {
        uint32_t a, b;
        memcpy(&a, src, 4);
        memcpy(&b, src + n - 4, 4);
        memcpy(dst, &a, 4);
        memcpy(dst + n - 4, &b, 4);
    } else if (n >= 2) {
        uint16_t a, b;
        memcpy(&a, src, 2);
        memcpy(&b, src + n - 2, 2);
        memcpy(dst, &a, 2);
        memcpy(dst + n - 2, &b, 2);
    } else if (n == 1) {
        dst[0] = src[0];
    }
}

static uint8_t *
put_bytes(uint8_t *p, const uint8_t *lo, const void *s, size_t n)
{
    if (p == NULL || (size_t)(p - lo) < n)
        return NULL;
    p -= n;
    copy_short(p, s, n);
    return p;
}

static inline uint8_t *
put_varint(uint8_t *p, const uint8_t *lo, uint64_t v)
{
    if (p == NULL || p == lo)
        return NULL;
    if (v < 0x80) {
        *--p = (uint8_t)v;
        return p;
    }
    size_t n = 2;
    for (uint64_t t = v >> 14; t != 0; t >>= 7)
        n++;
    if ((size_t)(p - lo) < n)
        return NULL;
    p -= n;
    for (size_t i = 0; i + 1 < n; i++, v >>= 7)
        p[i] = (uint8_t)((v & 0x7f) | 0x80);
    p[n - 1] = (uint8_t)v;
    return p;
}

/* A tag of field numbers below 16: one byte. */
static inline uint8_t *
put_tag(uint8_t *p, const uint8_t *lo, unsigned field, unsigned wire_type)
{
    if (p == NULL || p == lo)
        return NULL;
    *--p = (uint8_t)(field << 3 | wire_type);
    return p;
}

/* Closes a length-delimited field whose body was written since end. */
static inline uint8_t *
put_close(uint8_t *p, const uint8_t *lo, const uint8_t *end, unsigned field)
{
    if (p == NULL)
        return NULL;
    size_t n = (size_t)(end - p);
    if (n < 0x80 && p - lo >= 2) { // a short body: one check
        p[-1] = (uint8_t)n;
        p[-2] = (uint8_t)(field << 3 | WT_LEN);
        return p - 2;
    }
    return put_tag(put_varint(p, lo, n), lo, field, WT_LEN);
}

/* A string field, written even when empty (repeated elements; protobuf-c
 * cannot size a NULL one, this packs it empty). */
static uint8_t *
put_str_always(uint8_t *p, const uint8_t *lo, unsigned field, const char *s)
{
    size_t n = s != NULL ? strlen(s) : 0;
    // The common case, a short string with room to spare, checks room
    // once for its bytes, its one-byte length and its tag.
    if (p != NULL && n < 0x80 && (size_t)(p - lo) >= n + 2) {
        p -= n;
        copy_short(p, (const uint8_t *)s, n);
        p[-1] = (uint8_t)n;
        p[-2] = (uint8_t)(field << 3 | WT_LEN);
        return p - 2;
    }
    p = put_varint(put_bytes(p, lo, s, n), lo, n);
    return put_tag(p, lo, field, WT_LEN);
}

/* A proto3 singular string: left out when NULL or empty. */
static inline uint8_t *
put_str(uint8_t *p, const uint8_t *lo, unsigned field, const char *s)
{
    return s != NULL && *s != '\0' ? put_str_always(p, lo, field, s) : p;
}

/* A proto3 singular integer or bool: left out when zero. */
static inline uint8_t *
put_uint(uint8_t *p, const uint8_t *lo, unsigned field, uint64_t v)
{
    return v != 0 ? put_tag(put_varint(p, lo, v), lo, field, WT_VARINT) : p;
}

/* Unknown fields would be packed too: such a message is left to
 * protobuf-c. */
static inline uint8_t *
put_plain(uint8_t *p, const ProtobufCMessage *m)
{
    return m->n_unknown_fields == 0 ? p : NULL;
}

static uint8_t *put_value_field(uint8_t *p, const uint8_t *lo, unsigned field,
                                const Box__Value *v, int depth);

static uint8_t *
put_set(uint8_t *p, const uint8_t *lo, const Box__ValueSet *s, int depth)
{
    p = put_plain(p, &s->base);
    for (size_t i = s->n_elements; i-- > 0 && p != NULL;)
        p = s->elements[i] != NULL // protobuf-c cannot pack a NULL one
                ? put_value_field(p, lo, 1, s->elements[i], depth + 1)
                : NULL;
    return p;
}

static uint8_t *
put_record(uint8_t *p, const uint8_t *lo, const Box__ValueRecord *r, int depth)
{
    p = put_plain(p, &r->base);
    for (size_t i = r->n_fields; i-- > 0 && p != NULL;) {
        const Box__RecordField *f = r->fields[i];
        if (f == NULL || (p = put_plain(p, &f->base)) == NULL)
            return NULL;
        uint8_t *end = p;
        const Box__Value *v = f->value;
        if (v != NULL && v->kind_case == BOX__VALUE__KIND_STR &&
            v->base.n_unknown_fields == 0) {
            // Most fields are strings: packed here, not through the
            // general value walk (a call and a switch per field).
            if (v->str != NULL && v->str != protobuf_c_empty_string)
                p = put_str_always(p, lo, 1, v->str);
            p = put_close(p, lo, end, 2);
        } else if (v != NULL) {
            p = put_value_field(p, lo, 2, v, depth + 1);
        }
        p = put_close(put_str(p, lo, 1, f->name), lo, end, 1);
    }
    return p;
}

/* A oneof member: packed whatever its value, except a string or message
 * that is NULL or the field's default (protobuf-c's rule). */
static uint8_t *
put_value(uint8_t *p, const uint8_t *lo, const Box__Value *v, int depth)
{
    if (depth > REQPACK_DEPTH_MAX || (p = put_plain(p, &v->base)) == NULL)
        return NULL;
    uint8_t *end = p;
    switch (v->kind_case) {
    case BOX__VALUE__KIND_STR:
        if (v->str != NULL && v->str != protobuf_c_empty_string)
            p = put_str_always(p, lo, 1, v->str);
        return p;
    case BOX__VALUE__KIND_LONG:
        return put_tag(put_varint(p, lo, (uint64_t)v->long_), lo, 2, WT_VARINT);
    case BOX__VALUE__KIND_BOOLEAN:
        return put_tag(put_varint(p, lo, v->boolean ? 1 : 0), lo, 3, WT_VARINT);
    case BOX__VALUE__KIND_SET:
        if (v->set == NULL)
            return p;
        return put_close(put_set(p, lo, v->set, depth), lo, end, 4);
    case BOX__VALUE__KIND_RECORD:
        if (v->record == NULL)
            return p;
        return put_close(put_record(p, lo, v->record, depth), lo, end, 5);
    case BOX__VALUE__KIND_ENTITY:
        if (v->entity == NULL)
            return p;
        p = put_plain(p, &v->entity->base);
        p = put_str(put_str(p, lo, 2, v->entity->id), lo, 1, v->entity->type);
        return put_close(p, lo, end, 6);
    default: // not set, or a member this build does not know
        return p;
    }
}

static uint8_t *
put_value_field(uint8_t *p, const uint8_t *lo, unsigned field,
                const Box__Value *v, int depth)
{
    uint8_t *end = p;
    return put_close(put_value(p, lo, v, depth), lo, end, field);
}

static uint8_t *
put_subject(uint8_t *p, const uint8_t *lo, const Box__Subject *s)
{
    uint8_t *end = p = put_plain(p, &s->base);
    p = put_str(p, lo, 7, s->process_command);
    p = put_str(p, lo, 6, s->file_path);
    p = put_str(p, lo, 5, s->http_method);
    p = put_uint(p, lo, 4, (uint64_t)s->server_port);
    p = put_str(p, lo, 3, s->server_address);
    p = put_str(p, lo, 2, s->working_directory);
    for (size_t i = s->n_command_args; i-- > 0;)
        p = put_str_always(p, lo, 1, s->command_args[i]);
    return put_close(p, lo, end, 5);
}

static uint8_t *
put_enforcement(uint8_t *p, const uint8_t *lo, const Box__Enforcement *e)
{
    uint8_t *end = p = put_plain(p, &e->base);
    p = put_str(put_str(p, lo, 2, e->reason), lo, 1, e->gate);
    return put_close(p, lo, end, 8);
}

uint8_t *
box_reqpack(const Box__DecisionRequest *r, uint8_t *buf, size_t max,
            size_t *len)
{
    const uint8_t *lo = buf;
    uint8_t *p = put_plain(buf + max, &r->base);
    // Fields from the last number to the first, so the bytes read
    // forwards in protobuf-c's order.
    p = put_uint(p, lo, 9, r->cached_epoch);
    if (r->enforcement != NULL)
        p = put_enforcement(p, lo, r->enforcement);
    p = put_uint(p, lo, 7, r->cached ? 1 : 0);
    p = put_str(p, lo, 6, r->box_id);
    if (r->subject != NULL)
        p = put_subject(p, lo, r->subject);
    p = put_uint(p, lo, 4, r->request_id);
    p = put_str(p, lo, 3, r->resource);
    if (r->input != NULL)
        p = put_value_field(p, lo, 2, r->input, 0);
    p = put_str(p, lo, 1, r->action);
    *len = p != NULL ? (size_t)(buf + max - p) : 0;
    return p;
}

uint8_t *
box_reqpack_any(const Box__DecisionRequest *r, uint8_t *buf, size_t max,
                size_t *len)
{
    uint8_t *p = box_reqpack(r, buf, max, len);
    if (p != NULL)
        return p;
    size_t n = box__decision_request__get_packed_size(r);
    if (n > max)
        return NULL;
    *len = box__decision_request__pack(r, buf);
    return buf;
}
