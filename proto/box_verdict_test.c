/* SPDX-License-Identifier: Apache-2.0 */
/* box_verdict: the wire spelling both ways, and a WorkerAnswer as the worker
 * reads it (unset, unknown and the retired bools are denies). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box_frame.h"
#include "box_verdict.h"
#include "box_wire.h"

#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static void
test_from_wire(void **state)
{
    (void)state;
    static const struct {
        int wire;
        box_verdict want;
    } rows[] = {
        {BOX__VERDICT__VERDICT_UNSPECIFIED, BOX_VERDICT_DENY}, // zeroed
        {BOX__VERDICT__VERDICT_DENY, BOX_VERDICT_DENY},
        {BOX__VERDICT__VERDICT_PERMIT, BOX_VERDICT_PERMIT},
        {BOX__VERDICT__VERDICT_FAULT, BOX_VERDICT_FAULT},
        {4, BOX_VERDICT_DENY}, // unknown to this build
        {77, BOX_VERDICT_DENY},
        {-1, BOX_VERDICT_DENY},
        {INT32_MAX, BOX_VERDICT_DENY},
    };
    for (size_t i = 0; i < NELEM(rows); i++)
        assert_int_equal(box_verdict_from_wire((Box__Verdict)rows[i].wire),
                         rows[i].want);
}

static void
test_to_wire_round_trip(void **state)
{
    (void)state;
    const box_verdict all[] = {BOX_VERDICT_DENY, BOX_VERDICT_PERMIT,
                               BOX_VERDICT_FAULT};
    for (size_t i = 0; i < NELEM(all); i++)
        assert_int_equal(box_verdict_from_wire(box_verdict_to_wire(all[i])),
                         all[i]);
    assert_int_equal(box_verdict_to_wire(BOX_VERDICT_DENY),
                     BOX__VERDICT__VERDICT_DENY);
    assert_int_equal(box_verdict_to_wire(BOX_VERDICT_PERMIT),
                     BOX__VERDICT__VERDICT_PERMIT);
    assert_int_equal(box_verdict_to_wire(BOX_VERDICT_FAULT),
                     BOX__VERDICT__VERDICT_FAULT);
    // A value outside the enum (memory gone wrong) is never sent as a
    // permit.
    assert_int_equal(box_verdict_to_wire((box_verdict)42),
                     BOX__VERDICT__VERDICT_DENY);
}

/* Sends body (packed AliasFrame bytes) as one frame and reads it back the
 * way the worker reads the broker's answer; returns its verdict. */
static box_verdict
worker_reads(const uint8_t *body, size_t n)
{
    int sv[2];
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
    assert_int_equal(box_frame_write_bytes(sv[0], body, n, 1000), BOX_OK);
    Box__AliasFrame *a = NULL;
    assert_int_equal(box_frame_read(sv[1], BOX_FRAME_MAX, 1000,
                                    BOX_FRAMES_TO_WORKER, &a, NULL),
                     BOX_OK);
    assert_int_equal(a->body_case, BOX__ALIAS_FRAME__BODY_ANSWER);
    box_verdict v = box_verdict_from_wire(a->answer->verdict);
    box__alias_frame__free_unpacked(a, NULL);
    close(sv[0]);
    close(sv[1]);
    return v;
}

/* AliasFrame.answer is field 12 (tag 0x62); WorkerAnswer.verdict is
 * field 4 (tag 0x20); the retired bools were fields 1 and 2. */
static void
test_worker_answer_on_the_wire(void **state)
{
    (void)state;
    static const uint8_t zeroed[] = {0x62, 0x00};
    static const uint8_t unknown[] = {0x62, 0x02, 0x20, 0x4d}; // 77
    static const uint8_t negative[] = {
        0x62, 0x0b, 0x20, 0xff, 0xff, 0xff, 0xff,
        0xff, 0xff, 0xff, 0xff, 0xff, 0x01}; // -1
    // permit = true, fault = false as an old broker sent them.
    static const uint8_t old_permit[] = {0x62, 0x04, 0x08, 0x01, 0x10, 0x00};
    static const uint8_t permit[] = {0x62, 0x02, 0x20, 0x02};
    static const uint8_t fault[] = {0x62, 0x02, 0x20, 0x03};
    assert_int_equal(worker_reads(zeroed, sizeof zeroed), BOX_VERDICT_DENY);
    assert_int_equal(worker_reads(unknown, sizeof unknown), BOX_VERDICT_DENY);
    assert_int_equal(worker_reads(negative, sizeof negative), BOX_VERDICT_DENY);
    assert_int_equal(worker_reads(old_permit, sizeof old_permit),
                     BOX_VERDICT_DENY);
    assert_int_equal(worker_reads(permit, sizeof permit), BOX_VERDICT_PERMIT);
    assert_int_equal(worker_reads(fault, sizeof fault), BOX_VERDICT_FAULT);

    // And what the broker packs decodes to what it meant.
    const box_verdict all[] = {BOX_VERDICT_DENY, BOX_VERDICT_PERMIT,
                               BOX_VERDICT_FAULT};
    for (size_t i = 0; i < NELEM(all); i++) {
        Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
        Box__WorkerAnswer wa = BOX__WORKER_ANSWER__INIT;
        f.body_case = BOX__ALIAS_FRAME__BODY_ANSWER;
        f.answer = &wa;
        wa.verdict = box_verdict_to_wire(all[i]);
        uint8_t buf[64];
        size_t n = box__alias_frame__pack(&f, buf);
        assert_int_equal(worker_reads(buf, n), all[i]);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_from_wire),
        cmocka_unit_test(test_to_wire_round_trip),
        cmocka_unit_test(test_worker_answer_on_the_wire),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
