/* SPDX-License-Identifier: Apache-2.0 */
/* box_wire_scan: depth at and over the limit, malformed wire of every
 * kind, unknown fields, refused kinds, and the unpack that follows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_frame.h"
#include "box_req.h"
#include "box_wire.h"
#include "box_wire_scan.h"

#define AF_DECIDE BOX__ALIAS_FRAME__BODY_DECIDE
#define PDP_DECIDE BOX__PDP_REQUEST__BODY_DECIDE

/* ------------------------------------------------------------------ */
/* Depth                                                               */
/* ------------------------------------------------------------------ */

static const ProtobufCMessageDescriptor *const af =
    &box__alias_frame__descriptor;
static const ProtobufCMessageDescriptor *const pdp =
    &box__pdp_request__descriptor;

/* One nesting case: a top message (AliasFrame or PdpRequest) with a
 * decision input nested to `depth` messages. */
static const struct depth_case {
    unsigned depth;
    box_wire_scan_fault want;
} depth_cases[] = {
    {2, BOX_WIRE_SCAN_OK},
    {10, BOX_WIRE_SCAN_OK},
    {101, BOX_WIRE_SCAN_OK}, // the deepest input the PDP itself takes
    {BOX_WIRE_DEPTH_MAX - 1, BOX_WIRE_SCAN_OK},
    {BOX_WIRE_DEPTH_MAX, BOX_WIRE_SCAN_OK},
    {BOX_WIRE_DEPTH_MAX + 1, BOX_WIRE_SCAN_TOO_DEEP},
    {BOX_WIRE_DEPTH_MAX + 2, BOX_WIRE_SCAN_TOO_DEEP},
    {3000, BOX_WIRE_SCAN_TOO_DEEP},
    {10000, BOX_WIRE_SCAN_TOO_DEEP},
    {200000, BOX_WIRE_SCAN_TOO_DEEP}, // crashed protobuf-c's unpack
};

static void
test_depth(void **state)
{
    (void)state;
    const struct {
        const ProtobufCMessageDescriptor *d;
        uint32_t top;
    } tops[] = {{af, AF_DECIDE}, {pdp, PDP_DECIDE}};
    for (size_t t = 0; t < 2; t++) {
        for (size_t i = 0; i < sizeof depth_cases / sizeof depth_cases[0];
             i++) {
            const struct depth_case *c = &depth_cases[i];
            size_t n;
            uint8_t *b = box_req_nested(tops[t].top, c->depth, &n);
            assert_non_null(b);
            box_wire_scan_result r =
                box_wire_scan(tops[t].d, BOX_WIRE_SCAN_ANY, b, n);
            if (r.sr_fault != c->want)
                fail_msg("%s at depth %u: fault %d, want %d", tops[t].d->name,
                         c->depth, r.sr_fault, c->want);
            // What the scan passes, protobuf-c unpacks; what it refuses
            // is never unpacked.
            box_wire_scan_result why;
            ProtobufCMessage *m =
                box_wire_scan_unpack(tops[t].d, BOX_WIRE_SCAN_ANY, b, n, &why);
            assert_int_equal(why.sr_fault, c->want);
            assert_true((m != NULL) == (c->want == BOX_WIRE_SCAN_OK));
            protobuf_c_message_free_unpacked(m, NULL);
            box_free(b);
        }
    }
}

/* The nested bytes are what they claim: the Value chain protobuf-c reads
 * back from depth 10 is a set of a set of ... an empty Value. */
static void
test_nested_bytes_decode(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = box_req_nested(AF_DECIDE, 10, &n);
    Box__AliasFrame *f = box__alias_frame__unpack(NULL, n, b);
    assert_non_null(f);
    assert_int_equal(f->body_case, AF_DECIDE);
    Box__Value *v = f->decide->input;
    unsigned level = 3; // AliasFrame, DecisionRequest, this Value
    while (v->kind_case == BOX__VALUE__KIND_SET) {
        level++; // its ValueSet
        if (v->set->n_elements == 0)
            break;
        assert_int_equal(v->set->n_elements, 1);
        v = v->set->elements[0];
        level++;
    }
    assert_int_equal(level, 10); // an empty ValueSet at depth 10
    box__alias_frame__free_unpacked(f, NULL);
    box_free(b);
}

/* ------------------------------------------------------------------ */
/* Malformed wire and unknown fields                                   */
/* ------------------------------------------------------------------ */

#define BYTES(...)                                                             \
    (const uint8_t[]){__VA_ARGS__}, sizeof((const uint8_t[]){__VA_ARGS__})

static const struct wire_case {
    const char *name;
    const uint8_t *bytes;
    size_t n;
    box_wire_scan_fault want;
} wire_cases[] = {
    {"empty", (const uint8_t *)"", 0, BOX_WIRE_SCAN_OK},
    {"program = 1", BYTES(0x08, 0x01), BOX_WIRE_SCAN_OK},
    {"program as a 10-byte varint",
     BYTES(0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01),
     BOX_WIRE_SCAN_OK},
    {"empty call", BYTES(0x1a, 0x00), BOX_WIRE_SCAN_OK},
    {"call with its source", BYTES(0x1a, 0x04, 0x0a, 0x02, 'h', 'i'),
     BOX_WIRE_SCAN_OK},
    // Truncated varints.
    {"tag cut", BYTES(0x80), BOX_WIRE_SCAN_MALFORMED},
    {"value cut", BYTES(0x08, 0x80), BOX_WIRE_SCAN_MALFORMED},
    {"value with no end",
     BYTES(0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
           0x01),
     BOX_WIRE_SCAN_MALFORMED},
    {"tag of six bytes", BYTES(0x88, 0x80, 0x80, 0x80, 0x80, 0x00),
     BOX_WIRE_SCAN_MALFORMED},
    {"tag over 32 bits", BYTES(0xf8, 0xff, 0xff, 0xff, 0x7f, 0x00),
     BOX_WIRE_SCAN_MALFORMED},
    {"field 0", BYTES(0x02, 0x00), BOX_WIRE_SCAN_MALFORMED},
    // Bad lengths.
    {"length past the end", BYTES(0x1a, 0x0a, 0x0a, 0x00),
     BOX_WIRE_SCAN_MALFORMED},
    {"length cut", BYTES(0x1a, 0x80), BOX_WIRE_SCAN_MALFORMED},
    // protobuf-c reads a length in at most 5 bytes: a longer varint is
    // refused, even one whose value wraps to 0 (found by the fuzzer).
    {"length of five bytes", BYTES(0x1a, 0x80, 0x80, 0x80, 0x80, 0x00),
     BOX_WIRE_SCAN_OK},
    {"length of six bytes", BYTES(0x1a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00),
     BOX_WIRE_SCAN_MALFORMED},
    {"length of ten bytes wrapping to 0",
     BYTES(0x1a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x0a),
     BOX_WIRE_SCAN_MALFORMED},
    {"length of 2^63",
     BYTES(0x1a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01),
     BOX_WIRE_SCAN_MALFORMED},
    {"inner length past its message", BYTES(0x1a, 0x02, 0x0a, 0x05, 'h', 'i'),
     BOX_WIRE_SCAN_MALFORMED},
    {"64-bit value cut", BYTES(0xa1, 0x06, 1, 2, 3), BOX_WIRE_SCAN_MALFORMED},
    {"32-bit value cut", BYTES(0xa5, 0x06, 1, 2, 3), BOX_WIRE_SCAN_MALFORMED},
    // Wire types that do not fit the field.
    {"program as bytes", BYTES(0x0a, 0x00), BOX_WIRE_SCAN_MALFORMED},
    {"program as 32 bits", BYTES(0x0d, 1, 2, 3, 4), BOX_WIRE_SCAN_MALFORMED},
    {"call as a varint", BYTES(0x18, 0x01), BOX_WIRE_SCAN_MALFORMED},
    {"call as 64 bits", BYTES(0x19, 1, 2, 3, 4, 5, 6, 7, 8),
     BOX_WIRE_SCAN_MALFORMED},
    {"source as a varint", BYTES(0x1a, 0x02, 0x08, 0x01),
     BOX_WIRE_SCAN_MALFORMED},
    {"group start", BYTES(0x1b, 0x1c), BOX_WIRE_SCAN_MALFORMED},
    {"unknown group", BYTES(0xa3, 0x06, 0xa4, 0x06), BOX_WIRE_SCAN_MALFORMED},
    {"wire type 6", BYTES(0xa6, 0x06), BOX_WIRE_SCAN_MALFORMED},
    {"wire type 7", BYTES(0xa7, 0x06), BOX_WIRE_SCAN_MALFORMED},
    // Unknown fields of each wire type are skipped, not walked.
    {"unknown fields",
     BYTES(0xa0, 0x06, 0x05, 0xa9, 0x06, 1, 2, 3, 4, 5, 6, 7, 8, 0xb2, 0x06,
           0x02, 0x1a, 0x00, 0xbd, 0x06, 1, 2, 3, 4, 0x08, 0x01),
     BOX_WIRE_SCAN_OK},
    {"unknown field holding wire that is not",
     BYTES(0xa2, 0x06, 0x02, 0xff, 0xff), BOX_WIRE_SCAN_OK},
};

static void
test_wire(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof wire_cases / sizeof wire_cases[0]; i++) {
        const struct wire_case *c = &wire_cases[i];
        box_wire_scan_result r =
            box_wire_scan(af, BOX_WIRE_SCAN_ANY, c->bytes, c->n);
        if (r.sr_fault != c->want)
            fail_msg("%s: fault %d, want %d", c->name, r.sr_fault, c->want);
        // Whatever the scan passes here protobuf-c takes too.
        box_wire_scan_result why;
        ProtobufCMessage *m =
            box_wire_scan_unpack(af, BOX_WIRE_SCAN_ANY, c->bytes, c->n, &why);
        if ((m != NULL) != (c->want == BOX_WIRE_SCAN_OK))
            fail_msg("%s: unpack %s", c->name, m ? "took it" : "refused it");
        protobuf_c_message_free_unpacked(m, NULL);
    }
}

/* Unknown fields carry no depth: a 100,000-deep chain inside an unknown
 * field of an Open is skipped as bytes (protobuf-c keeps it as bytes). */
static void
test_unknown_field_not_walked(void **state)
{
    (void)state;
    size_t n;
    uint8_t *inner = box_req_nested(AF_DECIDE, 100000, &n);
    assert_non_null(inner);
    uint8_t *b = box_alloc(n + 16);
    size_t k = 0;
    b[k++] = 0x12; // open
    b[k++] = 0x00;
    b[k++] = 0xa2; // field 100, bytes
    b[k++] = 0x06;
    for (uint64_t x = n; x != 0; x >>= 7)
        b[k++] = (uint8_t)((x & 0x7f) | (x >> 7 ? 0x80 : 0));
    memcpy(b + k, inner, n);
    box_wire_scan_result why;
    Box__AliasFrame *f = (Box__AliasFrame *)box_wire_scan_unpack(
        af, BOX_FRAMES_FROM_ALIAS, b, k + n, &why);
    assert_int_equal(why.sr_fault, BOX_WIRE_SCAN_OK);
    assert_non_null(f);
    assert_int_equal(f->body_case, BOX__ALIAS_FRAME__BODY_OPEN);
    box__alias_frame__free_unpacked(f, NULL);
    box_free(b);
    box_free(inner);
}

/* A length prefix of six bytes: protobuf-c takes at most five, and the
 * scan now refuses what the unpack would (the fuzzer found a frame the
 * scan passed and the reader refused), so the two agree; the unpack
 * reports it as malformed. */
static void
test_unpack_refusal_is_malformed(void **state)
{
    (void)state;
    const uint8_t b[] = {0x1a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    assert_int_equal(box_wire_scan(af, BOX_WIRE_SCAN_ANY, b, sizeof b).sr_fault,
                     BOX_WIRE_SCAN_MALFORMED);
    box_wire_scan_result why = {BOX_WIRE_SCAN_OK, 99};
    assert_null(box_wire_scan_unpack(af, BOX_WIRE_SCAN_ANY, b, sizeof b, &why));
    assert_int_equal(why.sr_fault, BOX_WIRE_SCAN_MALFORMED);
}

/* Unpacking allocates through box_alloc: failing its 1st, 2nd, ... call
 * gives NULL and BOX_WIRE_SCAN_NOMEM (not "malformed": the bytes were
 * fine) and leaks nothing of the half-built message, until the walk gets
 * past every allocation and the frame decodes. */
static void
test_unpack_out_of_memory(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = box_req_nested(AF_DECIDE, 12, &n);
    assert_non_null(b);
    unsigned long fail = 1;
    for (;; fail++) {
        box_wire_scan_result why = {BOX_WIRE_SCAN_OK, 99};
        box_alloc_fail_after(fail);
        ProtobufCMessage *m =
            box_wire_scan_unpack(af, BOX_WIRE_SCAN_ANY, b, n, &why);
        unsigned long calls = box_alloc_calls();
        box_alloc_fail_off();
        if (calls < fail) { // no call failed: the walk is done
            assert_non_null(m);
            assert_int_equal(why.sr_fault, BOX_WIRE_SCAN_OK);
            protobuf_c_message_free_unpacked(m, NULL);
            break;
        }
        if (m != NULL || why.sr_fault != BOX_WIRE_SCAN_NOMEM)
            fail_msg("allocation %lu failed: message %p, fault %d", fail,
                     (void *)m, why.sr_fault);
    }
    assert_true(fail > 12); // at least one allocation a level
    box_free(b);
}

/* Unpacked into an arena, a message reads as the one box_alloc'd: packed
 * again, the same bytes; nothing is freed but the arena. Bad bytes are
 * still malformed; an arena at its cap (or one whose chunk cannot be
 * had) is out of memory, not malformed. */
static void
test_unpack_in_arena(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = box_req_nested(AF_DECIDE, 40, &n);
    assert_non_null(b);
    box_wire_scan_result why = {BOX_WIRE_SCAN_NOMEM, 99};
    ProtobufCMessage *ref =
        box_wire_scan_unpack(af, BOX_WIRE_SCAN_ANY, b, n, &why);
    assert_non_null(ref);
    box_arena *a = box_arena_new(1u << 20);
    assert_non_null(a);
    ProtobufCMessage *m =
        box_wire_scan_unpack_in(a, af, BOX_WIRE_SCAN_ANY, b, n, &why);
    assert_non_null(m);
    assert_int_equal(why.sr_fault, BOX_WIRE_SCAN_OK);
    size_t want = protobuf_c_message_get_packed_size(ref);
    assert_int_equal(protobuf_c_message_get_packed_size(m), want);
    uint8_t *p1 = box_alloc(want), *p2 = box_alloc(want);
    assert_non_null(p1);
    assert_non_null(p2);
    protobuf_c_message_pack(ref, p1);
    protobuf_c_message_pack(m, p2);
    assert_memory_equal(p1, p2, want);
    assert_true(box_arena_used(a) > 0);
    box_arena_reset(a);

    const uint8_t bad[] = {0x1a, 0x80, 0x80, 0x80, 0x80, 0x80, 0x00};
    assert_null(box_wire_scan_unpack_in(a, af, BOX_WIRE_SCAN_ANY, bad,
                                        sizeof bad, &why));
    assert_int_equal(why.sr_fault, BOX_WIRE_SCAN_MALFORMED);

    box_arena *tiny = box_arena_new(64); // under one chunk
    assert_non_null(tiny);
    assert_null(
        box_wire_scan_unpack_in(tiny, af, BOX_WIRE_SCAN_ANY, b, n, &why));
    assert_int_equal(why.sr_fault, BOX_WIRE_SCAN_NOMEM);
    box_arena *fresh = box_arena_new(1u << 20); // no chunk yet
    assert_non_null(fresh);
    box_alloc_fail_after(1); // its first chunk
    m = box_wire_scan_unpack_in(fresh, af, BOX_WIRE_SCAN_ANY, b, n, &why);
    box_alloc_fail_off();
    assert_null(m);
    assert_int_equal(why.sr_fault, BOX_WIRE_SCAN_NOMEM);

    box_arena_free(fresh);
    box_arena_free(tiny);
    box_arena_free(a);
    box_free(p1);
    box_free(p2);
    protobuf_c_message_free_unpacked(ref, NULL);
    box_free(b);
}

/* ------------------------------------------------------------------ */
/* Kinds                                                               */
/* ------------------------------------------------------------------ */

/* Each reader and the body cases it takes (box_frame.h). */
static const struct reader {
    const char *name;
    uint64_t accept;
    Box__AliasFrame__BodyCase takes[6];
} readers[] = {
    {"broker from alias",
     BOX_FRAMES_FROM_ALIAS,
     {BOX__ALIAS_FRAME__BODY_OPEN, BOX__ALIAS_FRAME__BODY_CALL,
      BOX__ALIAS_FRAME__BODY_INPUT, BOX__ALIAS_FRAME__BODY_INPUT_EOF,
      BOX__ALIAS_FRAME__BODY_SIGNAL, BOX__ALIAS_FRAME__BODY_CLOSE}},
    {"alias from broker",
     BOX_FRAMES_TO_ALIAS,
     {BOX__ALIAS_FRAME__BODY_OUTPUT, BOX__ALIAS_FRAME__BODY_EXIT,
      BOX__ALIAS_FRAME__BODY_DENIED}},
    {"broker from worker",
     BOX_FRAMES_FROM_WORKER,
     {BOX__ALIAS_FRAME__BODY_OUTPUT, BOX__ALIAS_FRAME__BODY_EXIT,
      BOX__ALIAS_FRAME__BODY_DECIDE, BOX__ALIAS_FRAME__BODY_LAUNCH}},
    {"worker from broker",
     BOX_FRAMES_TO_WORKER,
     {BOX__ALIAS_FRAME__BODY_CALL, BOX__ALIAS_FRAME__BODY_ANSWER,
      BOX__ALIAS_FRAME__BODY_LAUNCHED}},
};

static bool
reader_takes(const struct reader *r, uint32_t c)
{
    for (size_t i = 0; i < 6; i++)
        if (r->takes[i] == (Box__AliasFrame__BodyCase)c && c != 0)
            return true;
    return false;
}

static void
test_each_kind_for_each_reader(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof readers / sizeof readers[0]; i++) {
        const struct reader *rd = &readers[i];
        for (uint32_t c = BOX__ALIAS_FRAME__BODY_OPEN;
             c <= BOX__ALIAS_FRAME__BODY_LAUNCHED; c++) {
            // program = 1, then the body case as an empty message.
            const uint8_t b[] = {0x08, 0x01, (uint8_t)(c << 3 | 2), 0x00};
            box_wire_scan_result r = box_wire_scan(af, rd->accept, b, sizeof b);
            bool takes = reader_takes(rd, c);
            if (r.sr_fault !=
                (takes ? BOX_WIRE_SCAN_OK : BOX_WIRE_SCAN_REFUSED))
                fail_msg("%s, %s frame: fault %d", rd->name,
                         box_frame_name((Box__AliasFrame__BodyCase)c),
                         r.sr_fault);
            if (!takes)
                assert_int_equal(r.sr_field, c);
        }
        // A frame with no body passes: each reader answers it itself.
        const uint8_t none[] = {0x08, 0x01};
        assert_int_equal(box_wire_scan(af, rd->accept, none, 2).sr_fault,
                         BOX_WIRE_SCAN_OK);
    }
}

/* The kind is refused before its body is read: a decide frame to the
 * alias socket is refused for its kind at any depth, even malformed. */
static void
test_kind_before_body(void **state)
{
    (void)state;
    size_t n;
    uint8_t *b = box_req_nested(AF_DECIDE, 200000, &n);
    box_wire_scan_result r = box_wire_scan(af, BOX_FRAMES_FROM_ALIAS, b, n);
    assert_int_equal(r.sr_fault, BOX_WIRE_SCAN_REFUSED);
    assert_int_equal(r.sr_field, AF_DECIDE);
    box_wire_scan_result why;
    assert_null(box_wire_scan_unpack(af, BOX_FRAMES_FROM_ALIAS, b, n, &why));
    assert_int_equal(why.sr_fault, BOX_WIRE_SCAN_REFUSED);
    box_free(b);

    const uint8_t cut[] = {0x5a, 0x7f, 0x12}; // decide, 127 bytes, 1 there
    r = box_wire_scan(af, BOX_FRAMES_FROM_ALIAS, cut, sizeof cut);
    assert_int_equal(r.sr_fault, BOX_WIRE_SCAN_REFUSED);

    // After an accepted kind, a refused one still is.
    const uint8_t two[] = {0x1a, 0x00, 0x5a, 0x00};
    r = box_wire_scan(af, BOX_FRAMES_FROM_ALIAS, two, sizeof two);
    assert_int_equal(r.sr_fault, BOX_WIRE_SCAN_REFUSED);
    assert_int_equal(r.sr_field, AF_DECIDE);

    // Only the top level's kinds are checked: a Value's oneof inside an
    // accepted decide is not.
    b = box_req_nested(AF_DECIDE, 10, &n);
    assert_int_equal(box_wire_scan(af, BOX_FRAMES_FROM_WORKER, b, n).sr_fault,
                     BOX_WIRE_SCAN_OK);
    box_free(b);

    // A field outside every oneof (program) always passes.
    assert_int_equal(box_wire_scan(af, BOX_WIRE_SCAN_KIND(2),
                                   (const uint8_t[]){0x08, 0x07}, 2)
                         .sr_fault,
                     BOX_WIRE_SCAN_OK);
}

/* ------------------------------------------------------------------ */
/* Fuzz                                                                */
/* ------------------------------------------------------------------ */

static uint64_t
fuzz_next(uint64_t *x)
{
    // xorshift64*: a fixed seed, so a failure replays.
    *x ^= *x >> 12;
    *x ^= *x << 25;
    *x ^= *x >> 27;
    return *x * 2685821657736338717ULL;
}

/* Mutations of real frames (byte flips, cuts, repeats, inserted varints)
 * through the one decode path: nothing crashes or leaks (the sanitizer
 * build says so), and a scan that passes always decodes. */
static void
test_fuzz_mutations(void **state)
{
    (void)state;
    box_req q;
    box_req_exec(&q, "grep", "grep -n TODO src/main.rs", 3, "/w");
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    f.program = 1;
    f.body_case = AF_DECIDE;
    f.decide = &q.r_req;
    size_t n0 = box__alias_frame__get_packed_size(&f);
    size_t nn = 0;
    uint8_t *nested = box_req_nested(AF_DECIDE, 40, &nn);
    assert_non_null(nested);
    uint8_t *seed0 = box_alloc(n0);
    assert_non_null(seed0);
    box__alias_frame__pack(&f, seed0);
    const struct {
        const uint8_t *b;
        size_t n;
    } seeds[] = {{seed0, n0}, {nested, nn}};
    enum { MAXLEN = 8192, ROUNDS = 60000 };
    uint8_t *buf = box_alloc(MAXLEN);
    assert_non_null(buf);
    uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (int round = 0; round < ROUNDS; round++) {
        size_t si = fuzz_next(&x) % 2;
        size_t n = seeds[si].n < MAXLEN ? seeds[si].n : MAXLEN;
        memcpy(buf, seeds[si].b, n);
        int edits = 1 + (int)(fuzz_next(&x) % 4);
        for (int e = 0; e < edits && n > 0; e++) {
            size_t at = fuzz_next(&x) % n;
            switch (fuzz_next(&x) % 4) {
            case 0: // flip a byte
                buf[at] ^= (uint8_t)(1 + fuzz_next(&x) % 255);
                break;
            case 1: // cut
                n = at;
                break;
            case 2: // repeat a run at the end
                if (n + (n - at) <= MAXLEN) {
                    memmove(buf + n, buf + at, n - at);
                    n += n - at;
                }
                break;
            default: // a large varint where a length was
                buf[at] = 0xff;
                if (at + 1 < n)
                    buf[at + 1] = 0xff;
                break;
            }
        }
        box_wire_scan_result why;
        box_wire_scan_result sc = box_wire_scan(af, BOX_WIRE_SCAN_ANY, buf, n);
        ProtobufCMessage *m =
            box_wire_scan_unpack(af, BOX_WIRE_SCAN_ANY, buf, n, &why);
        if (sc.sr_fault == BOX_WIRE_SCAN_OK && m == NULL)
            fail_msg("round %d: the scan passed %zu bytes that do not decode",
                     round, n);
        if (sc.sr_fault != BOX_WIRE_SCAN_OK)
            assert_null(m);
        if (m != NULL)
            protobuf_c_message_free_unpacked(m, NULL);
    }
    box_free(buf);
    box_free(seed0);
    box_free(nested);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_depth),
        cmocka_unit_test(test_nested_bytes_decode),
        cmocka_unit_test(test_wire),
        cmocka_unit_test(test_unknown_field_not_walked),
        cmocka_unit_test(test_unpack_refusal_is_malformed),
        cmocka_unit_test(test_unpack_out_of_memory),
        cmocka_unit_test(test_unpack_in_arena),
        cmocka_unit_test(test_each_kind_for_each_reader),
        cmocka_unit_test(test_kind_before_body),
        cmocka_unit_test(test_fuzz_mutations),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
