/* SPDX-License-Identifier: Apache-2.0 */
/* Protobuf wire bytes walked by descriptor: depth, shape and kinds, no unpack.
 */
#include "box_wire_scan.h"

#include <stdbool.h>

#include "box_alloc.h"
#include "box_wire.h"

#define SCAN_VARINT_MAX 10 // bytes of a 64-bit varint
#define SCAN_TAG_MAX 5     // bytes of a tag, as protobuf-c reads one
#define SCAN_LENGTH_MAX                                                        \
    5 // bytes of a length prefix, as protobuf-c reads
      // one (a longer varint it refuses, even one
      // whose value is small)
#define SCAN_FIELD_MAX 0x1fffffffu

/* The wire type each field type is written with (unpacked). */
static const uint8_t scan_wire_of[] = {
    [PROTOBUF_C_TYPE_INT32] = PROTOBUF_C_WIRE_TYPE_VARINT,
    [PROTOBUF_C_TYPE_SINT32] = PROTOBUF_C_WIRE_TYPE_VARINT,
    [PROTOBUF_C_TYPE_SFIXED32] = PROTOBUF_C_WIRE_TYPE_32BIT,
    [PROTOBUF_C_TYPE_INT64] = PROTOBUF_C_WIRE_TYPE_VARINT,
    [PROTOBUF_C_TYPE_SINT64] = PROTOBUF_C_WIRE_TYPE_VARINT,
    [PROTOBUF_C_TYPE_SFIXED64] = PROTOBUF_C_WIRE_TYPE_64BIT,
    [PROTOBUF_C_TYPE_UINT32] = PROTOBUF_C_WIRE_TYPE_VARINT,
    [PROTOBUF_C_TYPE_FIXED32] = PROTOBUF_C_WIRE_TYPE_32BIT,
    [PROTOBUF_C_TYPE_UINT64] = PROTOBUF_C_WIRE_TYPE_VARINT,
    [PROTOBUF_C_TYPE_FIXED64] = PROTOBUF_C_WIRE_TYPE_64BIT,
    [PROTOBUF_C_TYPE_FLOAT] = PROTOBUF_C_WIRE_TYPE_32BIT,
    [PROTOBUF_C_TYPE_DOUBLE] = PROTOBUF_C_WIRE_TYPE_64BIT,
    [PROTOBUF_C_TYPE_BOOL] = PROTOBUF_C_WIRE_TYPE_VARINT,
    [PROTOBUF_C_TYPE_ENUM] = PROTOBUF_C_WIRE_TYPE_VARINT,
    [PROTOBUF_C_TYPE_STRING] = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED,
    [PROTOBUF_C_TYPE_BYTES] = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED,
    [PROTOBUF_C_TYPE_MESSAGE] = PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED,
};

/* Reads a varint of at most max bytes at *p (before end); false when it
 * runs past either. */
static bool
scan_varint(const uint8_t **p, const uint8_t *end, unsigned max, uint64_t *out)
{
    uint64_t v = 0;
    for (unsigned i = 0; i < max && *p < end; i++) {
        uint8_t b = *(*p)++;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if ((b & 0x80) == 0) {
            *out = v;
            return true;
        }
    }
    return false;
}

/* Whether a known field may arrive with wire type wt: its own, or, for a
 * repeated scalar, packed (protobuf-c takes both). */
static bool
scan_wire_fits(const ProtobufCFieldDescriptor *f, unsigned wt)
{
    if ((size_t)f->type >= sizeof scan_wire_of)
        return false;
    unsigned own = scan_wire_of[f->type];
    if (wt == own)
        return true;
    return f->label == PROTOBUF_C_LABEL_REPEATED &&
           wt == PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED &&
           own != PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED;
}

static bool
scan_accepts(uint64_t accept, uint32_t field)
{
    if (accept == BOX_WIRE_SCAN_ANY)
        return true;
    return field < 64 && (accept & BOX_WIRE_SCAN_KIND(field)) != 0;
}

/*
 * One message at depth (the outermost is 1) over [p, end). Each field:
 * its tag, the top-level kind check, the wire type against the
 * descriptor, then its value skipped, or walked when it is a message. The
 * only recursion is into a message field, one level deeper, and a level
 * past BOX_WIRE_DEPTH_MAX is refused before anything in it is read.
 */
static box_wire_scan_result
scan_message(const ProtobufCMessageDescriptor *d, const uint8_t *p,
             const uint8_t *end, unsigned depth, uint64_t accept)
{
    box_wire_scan_result r = {BOX_WIRE_SCAN_OK, 0};
    if (depth > BOX_WIRE_DEPTH_MAX) {
        r.sr_fault = BOX_WIRE_SCAN_TOO_DEEP;
        return r;
    }
    r.sr_fault = BOX_WIRE_SCAN_MALFORMED; // until the bytes run out cleanly
    while (p < end) {
        uint64_t tag, v;
        if (!scan_varint(&p, end, SCAN_TAG_MAX, &tag) || tag > UINT32_MAX ||
            (tag >> 3) == 0 || (tag >> 3) > SCAN_FIELD_MAX)
            return r;
        uint32_t num = (uint32_t)(tag >> 3);
        unsigned wt = (unsigned)(tag & 7);
        const ProtobufCFieldDescriptor *f =
            protobuf_c_message_descriptor_get_field(d, num);
        if (f != NULL && (f->flags & PROTOBUF_C_FIELD_FLAG_ONEOF) != 0 &&
            !scan_accepts(accept, num)) {
            r.sr_fault = BOX_WIRE_SCAN_REFUSED;
            r.sr_field = num;
            return r;
        }
        if (f != NULL && !scan_wire_fits(f, wt))
            return r;
        switch (wt) {
        case PROTOBUF_C_WIRE_TYPE_VARINT:
            if (!scan_varint(&p, end, SCAN_VARINT_MAX, &v))
                return r;
            break;
        case PROTOBUF_C_WIRE_TYPE_64BIT:
            if (end - p < 8)
                return r;
            p += 8;
            break;
        case PROTOBUF_C_WIRE_TYPE_32BIT:
            if (end - p < 4)
                return r;
            p += 4;
            break;
        case PROTOBUF_C_WIRE_TYPE_LENGTH_PREFIXED:
            if (!scan_varint(&p, end, SCAN_LENGTH_MAX, &v) ||
                v > (uint64_t)(end - p))
                return r;
            if (f != NULL && f->type == PROTOBUF_C_TYPE_MESSAGE) {
                box_wire_scan_result in = scan_message(
                    f->descriptor, p, p + v, depth + 1, BOX_WIRE_SCAN_ANY);
                if (in.sr_fault != BOX_WIRE_SCAN_OK)
                    return in;
            }
            p += v;
            break;
        default:
            return r; // groups (3, 4) and 6, 7: protobuf-c takes none
        }
    }
    r.sr_fault = BOX_WIRE_SCAN_OK;
    return r;
}

box_wire_scan_result
box_wire_scan(const ProtobufCMessageDescriptor *d, uint64_t accept,
              const void *p, size_t n)
{
    const uint8_t *b = p;
    return scan_message(d, b, b + n, 1, accept);
}

/* protobuf-c's allocator for unpack, routed through box_alloc so that a
 * test's allocation-failure walk reaches decoding too, and so that a
 * failed unpack can tell a lack of memory from bad bytes. What it
 * allocates is freed by free_unpacked with a NULL allocator, which is
 * free(3), as box_free is. With um_arena, it comes from the arena and
 * nothing is freed one by one. */
typedef struct unpack_mem {
    box_arena *um_arena; // NULL: box_alloc
    bool um_failed;
} unpack_mem;

static void *
unpack_alloc(void *data, size_t n)
{
    unpack_mem *um = data;
    void *p =
        um->um_arena != NULL ? box_arena_alloc(um->um_arena, n) : box_alloc(n);
    if (p == NULL)
        um->um_failed = true;
    return p;
}

static void
unpack_free(void *data, void *p)
{
    const unpack_mem *um = data;
    if (um->um_arena == NULL)
        box_free(p);
}

static ProtobufCMessage *
scan_unpack(const ProtobufCMessageDescriptor *d, uint64_t accept, const void *p,
            size_t n, box_arena *arena, box_wire_scan_result *why)
{
    ProtobufCMessage *m = NULL;
    unpack_mem um = {.um_arena = arena, .um_failed = false};
    ProtobufCAllocator mem = {
        .alloc = unpack_alloc, .free = unpack_free, .allocator_data = &um};
    box_wire_scan_result r = box_wire_scan(d, accept, p, n);
    if (r.sr_fault == BOX_WIRE_SCAN_OK &&
        (m = protobuf_c_message_unpack(d, &mem, n, p)) == NULL)
        r.sr_fault =
            um.um_failed ? BOX_WIRE_SCAN_NOMEM : BOX_WIRE_SCAN_MALFORMED;
    if (why != NULL)
        *why = r;
    return m;
}

ProtobufCMessage *
box_wire_scan_unpack(const ProtobufCMessageDescriptor *d, uint64_t accept,
                     const void *p, size_t n, box_wire_scan_result *why)
{
    return scan_unpack(d, accept, p, n, NULL, why);
}

ProtobufCMessage *
box_wire_scan_unpack_in(box_arena *arena, const ProtobufCMessageDescriptor *d,
                        uint64_t accept, const void *p, size_t n,
                        box_wire_scan_result *why)
{
    return scan_unpack(d, accept, p, n, arena, why);
}
