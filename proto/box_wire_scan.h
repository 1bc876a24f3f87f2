/* SPDX-License-Identifier: Apache-2.0 */
/* A pre-scan of protobuf wire bytes from a peer, before anything unpacks them.
 */
#ifndef BOX_WIRE_SCAN_H
#define BOX_WIRE_SCAN_H

#include <stddef.h>
#include <stdint.h>

#include <protobuf-c/protobuf-c.h>

#include "box_arena.h"

/*
 * protobuf-c unpacks a nested message by calling itself, with no depth
 * limit, and box.Value is recursive (Value.set -> ValueSet.elements ->
 * Value ...): 75 KB of bytes nested 10,000 deep overflow any thread's
 * stack. So every decode of bytes from a less trusted peer first walks the
 * bytes with the message's descriptor: it follows only message-typed
 * fields (repeated and oneof members included) into their descriptors,
 * skips unknown fields as bytes (protobuf-c keeps those as bytes too, so
 * they nest nothing), and refuses malformed wire and nesting deeper than
 * BOX_WIRE_DEPTH_MAX (proto/box_wire.h). Its own recursion is bounded by
 * that limit, and its cost is linear in the bytes.
 *
 * A reader can also refuse kinds of message before their bodies are
 * looked at: `accept` names, one bit per field number, which members of
 * the top-level message's oneofs may appear (fields outside any oneof
 * always may). For an AliasFrame the field numbers are the body cases.
 */

/* How a scan ended. */
typedef enum box_wire_scan_fault {
    BOX_WIRE_SCAN_OK = 0,
    BOX_WIRE_SCAN_MALFORMED, // bad tag, truncated value, length past the
                             // end, wire type unfit for its field, group
    BOX_WIRE_SCAN_TOO_DEEP,  // messages nested past BOX_WIRE_DEPTH_MAX
    BOX_WIRE_SCAN_REFUSED,   // a top-level oneof member not in `accept`
    BOX_WIRE_SCAN_NOMEM,     // box_wire_scan_unpack: the scan passed but
                             // unpacking ran out of memory
} box_wire_scan_fault;

typedef struct box_wire_scan_result {
    box_wire_scan_fault sr_fault;
    uint32_t sr_field; // BOX_WIRE_SCAN_REFUSED: the refused field number
} box_wire_scan_result;

/* `accept` bits: one top-level oneof member by field number (< 64), and
 * every member. */
#define BOX_WIRE_SCAN_KIND(n) ((uint64_t)1 << (n))
#define BOX_WIRE_SCAN_ANY UINT64_MAX

/* Walks the n bytes at p as one message of type d. Only reads them. */
box_wire_scan_result box_wire_scan(const ProtobufCMessageDescriptor *d,
                                   uint64_t accept, const void *p, size_t n);

/*
 * The one way bytes from a peer become a message: box_wire_scan, then
 * protobuf-c's unpack, which allocates through box_alloc. On success the
 * caller owns the result (free it with protobuf_c_message_free_unpacked or
 * the type's free_unpacked, allocator NULL). On NULL, *why (may be NULL)
 * says why; an unpack that fails after a clean scan reads as
 * BOX_WIRE_SCAN_NOMEM when an allocation failed, else
 * BOX_WIRE_SCAN_MALFORMED.
 */
ProtobufCMessage *box_wire_scan_unpack(const ProtobufCMessageDescriptor *d,
                                       uint64_t accept, const void *p, size_t n,
                                       box_wire_scan_result *why);

/*
 * box_wire_scan_unpack with every allocation from arena: nothing is freed
 * one by one (a message of many small parts, a batch of reports, costs a
 * few chunks, not an allocation a field), and the message lives until the
 * arena is reset. An arena at its cap reads as BOX_WIRE_SCAN_NOMEM.
 */
ProtobufCMessage *box_wire_scan_unpack_in(box_arena *arena,
                                          const ProtobufCMessageDescriptor *d,
                                          uint64_t accept, const void *p,
                                          size_t n, box_wire_scan_result *why);

#endif
