/* SPDX-License-Identifier: Apache-2.0 */
/* Named limits and constants of the wire contract (box-spec §2, ARCHITECTURE
 * §3). */
#ifndef BOX_WIRE_H
#define BOX_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"

// Alias <-> shell service.
#define BOX_ALIAS_PROTOCOL_VERSION 9
/* The oldest alias the broker still serves: 6 sends no arg0, args or
 * set_options, which then read as absent; 6 and 7 never stream stdin
 * (Call.stdin_stream, protocol 8), so their calls read end of file. */
#define BOX_ALIAS_PROTOCOL_OLDEST 6
/* The first protocol whose Call may stream stdin. */
#define BOX_ALIAS_PROTOCOL_STDIN 8
/* The first whose alias reads its stdin only as input_wanted frames ask
 * (protocol 8 streams all of it unasked). */
#define BOX_ALIAS_PROTOCOL_INPUT_WANTED 9
#define BOX_FRAME_MAX (1024u * 1024u)            // one frame, bytes
#define BOX_OUTPUT_CHUNK_MAX (48u * 1024u)       // one Output frame's data
#define BOX_CALL_OUTPUT_MAX (8u * 1024u * 1024u) // all output of one call
#define BOX_PROGRAMS_PER_CONNECTION 8
#define BOX_MAX_CONNECTIONS 64
#define BOX_CALL_BACKSTOP_MS (300 * 1000)
#define BOX_SCRIPT_MAX 65536 // SCRIPT mode file size
// A command's text, as the shell takes it (box-spec §3.1: 256 KiB,
// SH_MAX_INPUT); also the most `bash -s` reads from stdin as its script.
#define BOX_COMMAND_MAX (256u * 1024u)
// Stdin streamed to a call (protocol 8): data per Input frame the alias
// sends (well under BOX_FRAME_MAX), and all of one call's stdin by
// default (box-shell --input-budget): past it the call ends with
// Denied{over_budget}.
#define BOX_INPUT_CHUNK_MAX (64u * 1024u)
#define BOX_CALL_INPUT_MAX (1024ull * 1024u * 1024u)
// Outcome events in one worker -> broker outcomes frame.
#define BOX_OUTCOMES_BATCH_MAX 64

// Alias timeouts (box-spec §2).
#define BOX_ALIAS_CONNECT_TIMEOUT_MS 5000
#define BOX_ALIAS_WRITE_TIMEOUT_MS 5000
#define BOX_ALIAS_READ_TIMEOUT_MS 35000

// PDP requests: a message over BOX_PDP_MSG_MAX gets ERROR_TOO_LARGE; the
// transport drops a connection past BOX_PDP_TRANSPORT_MAX.
#define BOX_PDP_MSG_MAX (1024u * 1024u)
#define BOX_PDP_TRANSPORT_MAX (4u * 1024u * 1024u)
#define BOX_PDP_BATCH_MAX 512 // decisions, plus the cached ones reported
// A batch's order (DecisionBatch.order): the served permits its reports
// stand for, each logged.
#define BOX_PDP_ORDER_MAX 16384
#define BOX_PDP_ORDER_MAX_TEXT "16384"
#define BOX_PDP_TIMEOUT_MS_DEFAULT 2000

// Control sockets (health/status).
#define BOX_CONTROL_MSG_MAX (64u * 1024u)

// Messages nested in one message read from a peer, the outermost being 1
// (proto/box_wire_scan.h refuses deeper ones before protobuf-c, which
// recurses once per level with no limit of its own, unpacks them). The
// deepest message a box process sends is a decision input as deep as the
// PDP takes it (pdp_wire.c: values nested 32 deep, three messages a level
// through a record: Value -> ValueRecord -> RecordField -> Value) inside
// PdpRequest -> DecisionBatch -> DecisionRequest: 101. Requests the shell
// builds are under 10. At about 1 KiB of protobuf-c's stack a level, 128
// levels need well under a thread's stack.
#define BOX_WIRE_DEPTH_MAX 128
#define BOX_WIRE_STR_(x) #x
#define BOX_WIRE_STR(x) BOX_WIRE_STR_(x)
// The limit as text, for messages: "128".
#define BOX_WIRE_DEPTH_MAX_TEXT BOX_WIRE_STR(BOX_WIRE_DEPTH_MAX)

// The longest protobuf varint, bytes.
#define BOX_WIRE_VARINT_MAX 10

/* Writes v as a protobuf varint at p (room for BOX_WIRE_VARINT_MAX bytes)
 * and returns its size: for the frames and batches built by hand from
 * entries already packed. */
static inline size_t
box_wire_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    do {
        p[n] = (uint8_t)(v & 0x7f);
        v >>= 7;
        if (v != 0)
            p[n] |= 0x80;
        n++;
    } while (v != 0);
    return n;
}

/* Appends v as a protobuf varint to b. */
static inline box_err
box_wire_put_varint(box_buf *b, uint64_t v)
{
    uint8_t tmp[BOX_WIRE_VARINT_MAX];
    return box_buf_append(b, tmp, box_wire_varint(tmp, v));
}

#endif
