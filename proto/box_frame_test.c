/* SPDX-License-Identifier: Apache-2.0 */
/* box_frame: round trip, size cap, truncation, EOF, timeout, garbage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_frame.h"
#include "box_wire.h"

static void
pair(int sv[2])
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static void
test_round_trip(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Call call = BOX__CALL__INIT;
    call.source = "echo hi";
    f.program = 1;
    f.body_case = BOX__ALIAS_FRAME__BODY_CALL;
    f.call = &call;
    assert_int_equal(box_frame_write(sv[0], &f, BOX_FRAME_MAX, 1000), BOX_OK);
    Box__AliasFrame *g = NULL;
    uint32_t sz;
    assert_int_equal(box_frame_read(sv[1], BOX_FRAME_MAX, 1000, &g, &sz),
                     BOX_OK);
    assert_int_equal(g->body_case, BOX__ALIAS_FRAME__BODY_CALL);
    assert_string_equal(g->call->source, "echo hi");
    assert_int_equal(g->program, 1);
    box__alias_frame__free_unpacked(g, NULL);
    close(sv[0]);
    close(sv[1]);
}

static void
test_oversized_announced(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    uint8_t hdr[4] = {0x00, 0x20, 0x00, 0x00}; // 2 MiB
    assert_int_equal(write(sv[0], hdr, 4), 4);
    Box__AliasFrame *g = NULL;
    uint32_t sz = 0;
    assert_int_equal(box_frame_read(sv[1], BOX_FRAME_MAX, 1000, &g, &sz),
                     BOX_ETOOBIG);
    assert_int_equal(sz, 2u * 1024 * 1024);
    assert_null(g);
    close(sv[0]);
    close(sv[1]);
}

static void
test_oversized_write_refused(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Output o = BOX__OUTPUT__INIT;
    o.data.len = 100;
    o.data.data = box_calloc(1, 100);
    f.body_case = BOX__ALIAS_FRAME__BODY_OUTPUT;
    f.output = &o;
    assert_int_equal(box_frame_write(sv[0], &f, 50, 1000), BOX_ETOOBIG);
    box_free(o.data.data);
    close(sv[0]);
    close(sv[1]);
}

static void
test_truncated_and_eof(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    uint8_t part[] = {0x00, 0x00, 0x00, 0x10, 0x1a, 0x02};
    assert_int_equal(write(sv[0], part, sizeof part), (ssize_t)sizeof part);
    close(sv[0]);
    Box__AliasFrame *g = NULL;
    assert_int_equal(box_frame_read(sv[1], BOX_FRAME_MAX, 1000, &g, NULL),
                     BOX_EPROTO);
    close(sv[1]);

    pair(sv);
    close(sv[0]);
    assert_int_equal(box_frame_read(sv[1], BOX_FRAME_MAX, 1000, &g, NULL),
                     BOX_ECLOSED);
    close(sv[1]);

    pair(sv);
    uint8_t half_hdr[] = {0x00, 0x00};
    assert_int_equal(write(sv[0], half_hdr, 2), 2);
    close(sv[0]);
    assert_int_equal(box_frame_read(sv[1], BOX_FRAME_MAX, 1000, &g, NULL),
                     BOX_EPROTO);
    close(sv[1]);
}

static void
test_garbage_and_timeout(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    const uint8_t junk[] = {0xff, 0xff, 0xff};
    assert_int_equal(box_frame_write_bytes(sv[0], junk, sizeof junk, 1000),
                     BOX_OK);
    Box__AliasFrame *g = NULL;
    assert_int_equal(box_frame_read(sv[1], BOX_FRAME_MAX, 1000, &g, NULL),
                     BOX_EPROTO);
    assert_int_equal(box_frame_read(sv[1], BOX_FRAME_MAX, 50, &g, NULL),
                     BOX_ETIMEDOUT);
    close(sv[0]);
    close(sv[1]);
}

static void
test_write_to_closed_peer(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    close(sv[1]);
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__InputEof e = BOX__INPUT_EOF__INIT;
    f.body_case = BOX__ALIAS_FRAME__BODY_INPUT_EOF;
    f.input_eof = &e;
    assert_int_equal(box_frame_write(sv[0], &f, BOX_FRAME_MAX, 1000),
                     BOX_ECLOSED);
    close(sv[0]);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_oversized_announced),
        cmocka_unit_test(test_oversized_write_refused),
        cmocka_unit_test(test_truncated_and_eof),
        cmocka_unit_test(test_garbage_and_timeout),
        cmocka_unit_test(test_write_to_closed_peer),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
