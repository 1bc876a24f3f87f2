/* SPDX-License-Identifier: Apache-2.0 */
/* box_frame: round trip, size cap, truncation, EOF, timeout, garbage. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_frame.h"
#include "box_svc.h"
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
    box_frame_fault ff;
    assert_int_equal(
        box_frame_read(sv[1], BOX_FRAME_MAX, 1000, BOX_WIRE_SCAN_ANY, &g, &ff),
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
    box_frame_fault ff;
    assert_int_equal(
        box_frame_read(sv[1], BOX_FRAME_MAX, 1000, BOX_WIRE_SCAN_ANY, &g, &ff),
        BOX_ETOOBIG);
    assert_int_equal(ff.ff_size, 2u * 1024 * 1024);
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
    box_frame_fault ff;
    assert_int_equal(
        box_frame_read(sv[1], BOX_FRAME_MAX, 1000, BOX_WIRE_SCAN_ANY, &g, &ff),
        BOX_EPROTO);
    assert_true(ff.ff_cut);
    close(sv[1]);

    pair(sv);
    close(sv[0]);
    assert_int_equal(
        box_frame_read(sv[1], BOX_FRAME_MAX, 1000, BOX_WIRE_SCAN_ANY, &g, NULL),
        BOX_ECLOSED);
    close(sv[1]);

    pair(sv);
    uint8_t half_hdr[] = {0x00, 0x00};
    assert_int_equal(write(sv[0], half_hdr, 2), 2);
    close(sv[0]);
    assert_int_equal(
        box_frame_read(sv[1], BOX_FRAME_MAX, 1000, BOX_WIRE_SCAN_ANY, &g, NULL),
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
    assert_int_equal(
        box_frame_read(sv[1], BOX_FRAME_MAX, 1000, BOX_WIRE_SCAN_ANY, &g, NULL),
        BOX_EPROTO);
    assert_int_equal(
        box_frame_read(sv[1], BOX_FRAME_MAX, 50, BOX_WIRE_SCAN_ANY, &g, NULL),
        BOX_ETIMEDOUT);
    close(sv[0]);
    close(sv[1]);
}

/* A kind the reader does not take is refused, whole, before decoding; the
 * stream goes on at the next frame. */
static void
test_refused_kind(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__DecisionRequest d = BOX__DECISION_REQUEST__INIT;
    Box__Call call = BOX__CALL__INIT;
    d.action = "shell:exec";
    f.body_case = BOX__ALIAS_FRAME__BODY_DECIDE;
    f.decide = &d;
    assert_int_equal(box_frame_write(sv[0], &f, BOX_FRAME_MAX, 1000), BOX_OK);
    call.source = "true";
    f.body_case = BOX__ALIAS_FRAME__BODY_CALL;
    f.call = &call;
    assert_int_equal(box_frame_write(sv[0], &f, BOX_FRAME_MAX, 1000), BOX_OK);

    Box__AliasFrame *g = NULL;
    box_frame_fault ff;
    assert_int_equal(box_frame_read(sv[1], BOX_FRAME_MAX, 1000,
                                    BOX_FRAMES_FROM_ALIAS, &g, &ff),
                     BOX_EPROTO);
    assert_null(g);
    assert_false(ff.ff_cut);
    assert_int_equal(ff.ff_scan.sr_fault, BOX_WIRE_SCAN_REFUSED);
    assert_int_equal(ff.ff_scan.sr_field, BOX__ALIAS_FRAME__BODY_DECIDE);
    assert_int_equal(box_frame_read(sv[1], BOX_FRAME_MAX, 1000,
                                    BOX_FRAMES_FROM_ALIAS, &g, &ff),
                     BOX_OK);
    assert_int_equal(g->body_case, BOX__ALIAS_FRAME__BODY_CALL);
    box__alias_frame__free_unpacked(g, NULL);
    assert_true(box_frame_is_client(BOX__ALIAS_FRAME__BODY_CLOSE));
    assert_false(box_frame_is_client(BOX__ALIAS_FRAME__BODY_DECIDE));
    close(sv[0]);
    close(sv[1]);
}

/* Writes a frame one byte at a time, DRIBBLE_MS apart. */
#define DRIBBLE_MS 30
static void *
dribble_main(void *arg)
{
    int fd = *(int *)arg;
    const uint8_t frame[] = {0,    0,    0,   8,   0x1a, 0x06,
                             0x0a, 0x04, 't', 'r', 'u',  'e'};
    for (size_t i = 0; i < sizeof frame; i++) {
        if (send(fd, frame + i, 1, MSG_NOSIGNAL) != 1)
            break;
        usleep(DRIBBLE_MS * 1000);
    }
    return NULL;
}

/* The timeout bounds the whole frame: bytes that each come well within it
 * but add up to more are cut. The same frame with room enough reads. */
static void
test_deadline_is_per_frame(void **state)
{
    (void)state;
    const int within[] = {5 * DRIBBLE_MS, 60 * DRIBBLE_MS};
    const box_err want[] = {BOX_ETIMEDOUT, BOX_OK};
    for (int i = 0; i < 2; i++) {
        int sv[2];
        pair(sv);
        pthread_t t;
        assert_int_equal(pthread_create(&t, NULL, dribble_main, &sv[0]), 0);
        Box__AliasFrame *g = NULL;
        uint64_t t0 = box_svc_now_ms();
        assert_int_equal(box_frame_read(sv[1], BOX_FRAME_MAX, within[i],
                                        BOX_FRAMES_FROM_ALIAS, &g, NULL),
                         want[i]);
        uint64_t took = box_svc_now_ms() - t0;
        if (want[i] == BOX_ETIMEDOUT)
            assert_true(took < (uint64_t)within[i] + 100);
        else
            box__alias_frame__free_unpacked(g, NULL);
        close(sv[1]); // the writer's next byte fails, and it ends
        pthread_join(t, NULL);
        close(sv[0]);
    }
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

/* Three frames in one write arrive as three frames, in order, in one
 * segment; one frame over max refuses them all, with nothing written. */
static void
test_write_many(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    Box__AliasFrame fo = BOX__ALIAS_FRAME__INIT, fc = BOX__ALIAS_FRAME__INIT,
                    fe = BOX__ALIAS_FRAME__INIT;
    Box__Open open = BOX__OPEN__INIT;
    Box__Call call = BOX__CALL__INIT;
    Box__InputEof eof = BOX__INPUT_EOF__INIT;
    open.version = 9;
    fo.body_case = BOX__ALIAS_FRAME__BODY_OPEN;
    fo.open = &open;
    call.source = "true";
    fc.body_case = BOX__ALIAS_FRAME__BODY_CALL;
    fc.call = &call;
    fe.body_case = BOX__ALIAS_FRAME__BODY_INPUT_EOF;
    fe.input_eof = &eof;
    const Box__AliasFrame *three[] = {&fo, &fc, &fe};
    assert_int_equal(box_frame_write_many(sv[0], three, 3, BOX_FRAME_MAX, 1000),
                     BOX_OK);
    size_t want = 0;
    for (int i = 0; i < 3; i++)
        want += 4 + box__alias_frame__get_packed_size(three[i]);
    uint8_t peek[256];
    assert_int_equal(recv(sv[1], peek, sizeof peek, MSG_PEEK | MSG_DONTWAIT),
                     (ssize_t)want);
    const Box__AliasFrame__BodyCase cases[] = {
        BOX__ALIAS_FRAME__BODY_OPEN, BOX__ALIAS_FRAME__BODY_CALL,
        BOX__ALIAS_FRAME__BODY_INPUT_EOF};
    for (int i = 0; i < 3; i++) {
        Box__AliasFrame *g = NULL;
        assert_int_equal(box_frame_read(sv[1], BOX_FRAME_MAX, 1000,
                                        BOX_WIRE_SCAN_ANY, &g, NULL),
                         BOX_OK);
        assert_int_equal(g->body_case, cases[i]);
        box__alias_frame__free_unpacked(g, NULL);
    }
    size_t small = box__alias_frame__get_packed_size(&fo);
    assert_int_equal(box_frame_write_many(sv[0], three, 3, small, 1000),
                     BOX_ETOOBIG);
    assert_int_equal(recv(sv[1], peek, sizeof peek, MSG_DONTWAIT), -1);
    close(sv[0]);
    close(sv[1]);
}

/* A frame is sent before any wait, so a full socket is what makes it
 * wait: nobody reading, the write times out; on a pipe (not a socket)
 * frames go and come as on a socket. */
static void
test_full_socket_and_pipe(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    int small = 4096;
    assert_int_equal(
        setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof small), 0);
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Output o = BOX__OUTPUT__INIT;
    o.data.len = 512 * 1024;
    o.data.data = box_calloc(1, o.data.len);
    f.body_case = BOX__ALIAS_FRAME__BODY_OUTPUT;
    f.output = &o;
    uint64_t t0 = box_svc_now_ms();
    assert_int_equal(box_frame_write(sv[0], &f, BOX_FRAME_MAX, 100),
                     BOX_ETIMEDOUT);
    assert_true(box_svc_now_ms() - t0 >= 100);
    box_free(o.data.data);
    close(sv[0]);
    close(sv[1]);

    int pp[2];
    assert_int_equal(pipe(pp), 0);
    Box__AliasFrame e = BOX__ALIAS_FRAME__INIT;
    Box__InputEof eof = BOX__INPUT_EOF__INIT;
    e.body_case = BOX__ALIAS_FRAME__BODY_INPUT_EOF;
    e.input_eof = &eof;
    assert_int_equal(box_frame_write(pp[1], &e, BOX_FRAME_MAX, 1000), BOX_OK);
    Box__AliasFrame *g = NULL;
    assert_int_equal(
        box_frame_read(pp[0], BOX_FRAME_MAX, 1000, BOX_WIRE_SCAN_ANY, &g, NULL),
        BOX_OK);
    assert_int_equal(g->body_case, BOX__ALIAS_FRAME__BODY_INPUT_EOF);
    box__alias_frame__free_unpacked(g, NULL);
    close(pp[0]);
    close(pp[1]);
}

/* box_frame_pull: a frame that arrives a byte at a time comes out whole,
 * once, with nothing read past it; an empty body is whole with its
 * header; then a clean EOF, a cut frame, an oversized one. */
static void
test_pull_piecewise(void **state)
{
    (void)state;
    int sv[2];
    pair(sv);
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Input in = BOX__INPUT__INIT;
    in.data.data = (uint8_t *)"abc\ndef\n";
    in.data.len = 8;
    f.program = 1;
    f.body_case = BOX__ALIAS_FRAME__BODY_INPUT;
    f.input = &in;
    size_t n = box__alias_frame__get_packed_size(&f);
    uint8_t buf[64];
    assert_true(n + 4 + 4 <= sizeof buf);
    buf[0] = buf[1] = buf[2] = 0;
    buf[3] = (uint8_t)n;
    box__alias_frame__pack(&f, buf + 4);
    // Then an empty frame (no body at all).
    memset(buf + 4 + n, 0, 4);

    box_frame_rd rd;
    box_frame_rd_init(&rd);
    Box__AliasFrame *g = NULL;
    box_frame_fault ff;
    for (size_t i = 0; i < n + 4; i++) {
        assert_int_equal(box_frame_pull(sv[1], &rd, BOX_FRAME_MAX,
                                        BOX_FRAMES_FROM_ALIAS, &g, &ff),
                         BOX_OK);
        assert_null(g); // nothing ready, or not whole
        assert_int_equal(write(sv[0], buf + i, 1), 1);
    }
    assert_int_equal(write(sv[0], buf + 4 + n, 4), 4);
    assert_int_equal(box_frame_pull(sv[1], &rd, BOX_FRAME_MAX,
                                    BOX_FRAMES_FROM_ALIAS, &g, &ff),
                     BOX_OK);
    assert_non_null(g);
    assert_int_equal(g->body_case, BOX__ALIAS_FRAME__BODY_INPUT);
    assert_memory_equal(g->input->data.data, "abc\ndef\n", 8);
    box__alias_frame__free_unpacked(g, NULL);
    assert_int_equal(rd.fr_got, 0);
    assert_int_equal(box_frame_pull(sv[1], &rd, BOX_FRAME_MAX,
                                    BOX_FRAMES_FROM_ALIAS, &g, &ff),
                     BOX_OK);
    assert_non_null(g);
    assert_int_equal(g->body_case, BOX__ALIAS_FRAME__BODY__NOT_SET);
    box__alias_frame__free_unpacked(g, NULL);

    // Half a frame, then the peer's end: cut.
    assert_int_equal(write(sv[0], buf, 6), 6);
    close(sv[0]);
    assert_int_equal(box_frame_pull(sv[1], &rd, BOX_FRAME_MAX,
                                    BOX_FRAMES_FROM_ALIAS, &g, &ff),
                     BOX_EPROTO);
    assert_true(ff.ff_cut);
    assert_null(g);
    assert_int_equal(rd.fr_got, 0);
    close(sv[1]);

    // A clean end between frames; a size over the cap; a refused kind.
    pair(sv);
    close(sv[0]);
    assert_int_equal(box_frame_pull(sv[1], &rd, BOX_FRAME_MAX,
                                    BOX_FRAMES_FROM_ALIAS, &g, &ff),
                     BOX_ECLOSED);
    close(sv[1]);
    pair(sv);
    uint8_t big[4] = {0x00, 0x20, 0x00, 0x00};
    assert_int_equal(write(sv[0], big, 4), 4);
    assert_int_equal(box_frame_pull(sv[1], &rd, BOX_FRAME_MAX,
                                    BOX_FRAMES_FROM_ALIAS, &g, &ff),
                     BOX_ETOOBIG);
    assert_int_equal(ff.ff_size, 0x200000);
    close(sv[0]);
    close(sv[1]);
    pair(sv);
    Box__Exit ex = BOX__EXIT__INIT;
    f.body_case = BOX__ALIAS_FRAME__BODY_EXIT;
    f.exit = &ex;
    assert_int_equal(box_frame_write(sv[0], &f, BOX_FRAME_MAX, 1000), BOX_OK);
    assert_int_equal(box_frame_pull(sv[1], &rd, BOX_FRAME_MAX,
                                    BOX_FRAMES_FROM_ALIAS, &g, &ff),
                     BOX_EPROTO);
    assert_false(ff.ff_cut);
    assert_int_equal(ff.ff_scan.sr_fault, BOX_WIRE_SCAN_REFUSED);
    box_frame_rd_reset(&rd);
    close(sv[0]);
    close(sv[1]);
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
        cmocka_unit_test(test_refused_kind),
        cmocka_unit_test(test_deadline_is_per_frame),
        cmocka_unit_test(test_write_to_closed_peer),
        cmocka_unit_test(test_write_many),
        cmocka_unit_test(test_full_socket_and_pipe),
        cmocka_unit_test(test_pull_piecewise),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
