/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for gw_body: request bodies read whole, a byte at a time and
 * split at every place, and chunk heads written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "box_buf.h"
#include "gw_body.h"

#define ARENA_MAX 65536

/* What a run of a decoder over one input gave, summed over its calls. */
typedef struct outcome {
    gw_body_status oc_status;
    size_t oc_used; // input bytes consumed in all
    box_buf oc_out; // payload
    int oc_code;
    const char *oc_reason;
} outcome;

static const gw_http_req rq_chunked = {.rq_chunked = true};

static gw_http_req
rq_length(uint64_t n)
{
    gw_http_req rq = {.rq_has_content_length = true, .rq_content_length = n};
    return rq;
}

/* A fresh decoder in a fresh arena (the arena is *ap, freed by the
 * caller). */
static gw_body_dec *
dec_new(box_arena **ap, const gw_http_req *rq, uint64_t max)
{
    *ap = box_arena_new(ARENA_MAX);
    assert_non_null(*ap);
    gw_body_dec *d = gw_body_dec_new(*ap, rq, max);
    assert_non_null(d);
    return d;
}

/* One call's answer folded into oc, with the checks every call owes:
 * no more payload out than input in, MORE uses everything (out never
 * fills when decoding in place), a refusal has a one-line reason. */
static void
take(outcome *oc, const gw_body_result *r, const char *out, size_t in_len,
     bool in_place)
{
    assert_true(r->br_out <= r->br_used);
    assert_true(r->br_used <= in_len);
    if (r->br_status == GW_BODY_MORE && in_place)
        assert_int_equal(r->br_used, in_len);
    if (r->br_status == GW_BODY_BAD) {
        assert_true(r->br_code == 400 || r->br_code == 413);
        assert_non_null(r->br_reason);
        assert_true(r->br_reason[0] != '\0');
        assert_null(strchr(r->br_reason, '\n'));
        oc->oc_code = r->br_code;
        oc->oc_reason = r->br_reason;
    }
    oc->oc_status = r->br_status;
    oc->oc_used += r->br_used;
    if (r->br_out > 0)
        assert_int_equal(box_buf_append(&oc->oc_out, out, r->br_out), BOX_OK);
}

/*
 * Runs a decoder over in[0..len) cut before each of cuts[0..ncuts)
 * (increasing). cap 0: each piece is decoded in place in a copy; else
 * into a separate buffer of cap bytes, calling again while the piece
 * lasts. Stops at DONE or BAD. The reason is copied out (it dies with the
 * arena) into reason_buf.
 */
static void
run(outcome *oc, const gw_http_req *rq, uint64_t max, const char *in,
    size_t len, const size_t *cuts, size_t ncuts, size_t cap,
    char reason_buf[256])
{
    box_arena *a;
    gw_body_dec *d = dec_new(&a, rq, max);
    char *piece = box_alloc(len + 1);
    char *out = box_alloc(cap + 1);
    assert_non_null(piece);
    assert_non_null(out);
    box_buf_init(&oc->oc_out, 1 << 24);
    oc->oc_status = GW_BODY_MORE;
    oc->oc_used = 0;
    oc->oc_code = 0;
    oc->oc_reason = NULL;
    gw_body_result r = gw_body_feed(d, NULL, 0, NULL, 0); // before any byte
    take(oc, &r, NULL, 0, true);
    size_t start = 0;
    for (size_t k = 0; k <= ncuts && oc->oc_status == GW_BODY_MORE; k++) {
        size_t end = k < ncuts ? cuts[k] : len;
        size_t plen = end - start;
        memcpy(piece, in + start, plen);
        if (cap == 0) {
            r = gw_body_feed(d, piece, plen, piece, plen);
            take(oc, &r, piece, plen, true);
        }
        for (size_t off = 0; cap > 0 && off < plen;) {
            r = gw_body_feed(d, piece + off, plen - off, out, cap);
            take(oc, &r, out, plen - off, false);
            assert_true(r.br_used > 0 || r.br_status != GW_BODY_MORE);
            off += r.br_used;
            if (r.br_status != GW_BODY_MORE)
                break;
        }
        start = end;
    }
    if (oc->oc_status != GW_BODY_MORE) {
        // A settled answer stays, with nothing used or written.
        gw_body_result again = gw_body_feed(d, in, len, out, cap);
        assert_int_equal(again.br_status, oc->oc_status);
        assert_int_equal(again.br_used, 0);
        assert_int_equal(again.br_out, 0);
        if (oc->oc_reason != NULL)
            assert_string_equal(again.br_reason, oc->oc_reason);
    }
    if (oc->oc_reason != NULL) {
        snprintf(reason_buf, 256, "%s", oc->oc_reason);
        oc->oc_reason = reason_buf;
    }
    if (oc->oc_status == GW_BODY_DONE)
        assert_int_equal(gw_body_dec_bytes(d), oc->oc_out.b_len);
    box_free(piece);
    box_free(out);
    box_arena_free(a);
}

static void
outcome_free(outcome *oc)
{
    box_buf_reset(&oc->oc_out);
}

static void
assert_same(const outcome *x, const outcome *y)
{
    assert_int_equal(x->oc_status, y->oc_status);
    assert_int_equal(x->oc_used, y->oc_used);
    assert_int_equal(x->oc_out.b_len, y->oc_out.b_len);
    if (x->oc_out.b_len > 0)
        assert_memory_equal(x->oc_out.b_data, y->oc_out.b_data,
                            x->oc_out.b_len);
    assert_int_equal(x->oc_code, y->oc_code);
    if (x->oc_reason != NULL || y->oc_reason != NULL) {
        assert_non_null(x->oc_reason);
        assert_non_null(y->oc_reason);
        assert_string_equal(x->oc_reason, y->oc_reason);
    }
}

/* Where check_splits cuts the input. */
typedef enum splits {
    SPLIT_ALL,  // in two at every place and in three at every pair
    SPLIT_TWO,  // in two at every place
    SPLIT_SOME, // in two at every 61st place (long inputs)
} splits;

/*
 * The input read whole; then compared with it: a byte at a time, into a
 * 1-byte and a 3-byte out buffer, and cut as sp says. The whole run is
 * left in *whole for the caller's expectations.
 */
static void
check_splits(outcome *whole, char reason[256], const gw_http_req *rq,
             uint64_t max, const char *in, size_t len, splits sp)
{
    outcome oc;
    char rbuf[256];
    run(whole, rq, max, in, len, NULL, 0, 0, reason);
    size_t *cuts = box_alloc((len + 1) * sizeof(*cuts));
    assert_non_null(cuts);
    for (size_t i = 0; i < len; i++)
        cuts[i] = i + 1;
    run(&oc, rq, max, in, len, cuts, len > 0 ? len - 1 : 0, 0, rbuf);
    assert_same(whole, &oc);
    outcome_free(&oc);
    static const size_t caps[] = {1, 3};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        run(&oc, rq, max, in, len, NULL, 0, caps[c], rbuf);
        assert_same(whole, &oc);
        outcome_free(&oc);
    }
    for (size_t i = 0; i <= len; i += sp == SPLIT_SOME ? 61 : 1) {
        run(&oc, rq, max, in, len, (size_t[]){i}, 1, 0, rbuf);
        assert_same(whole, &oc);
        outcome_free(&oc);
        for (size_t j = i; sp == SPLIT_ALL && j <= len; j++) {
            run(&oc, rq, max, in, len, (size_t[]){i, j}, 2, 0, rbuf);
            assert_same(whole, &oc);
            outcome_free(&oc);
        }
    }
    box_free(cuts);
}

/* ---- chunked: a table of bodies and what each gives ---- */

/* One chunked body and the expected answer: the payload (for BAD, what
 * came before the refused byte) and, for DONE, the bytes used (0: the
 * whole input). */
typedef struct body_case {
    const char *bc_in;
    size_t bc_len;
    gw_body_status bc_status;
    const char *bc_out;
    size_t bc_out_len;
    size_t bc_used;
    int bc_code;
    const char *bc_reason;
} body_case;

#define IN(s) .bc_in = s, .bc_len = sizeof(s) - 1
#define OUT(s) .bc_out = s, .bc_out_len = sizeof(s) - 1
#define DONE(s) .bc_status = GW_BODY_DONE, OUT(s)
#define MORE(s) .bc_status = GW_BODY_MORE, OUT(s)
#define BAD(s, reason)                                                         \
    .bc_status = GW_BODY_BAD, OUT(s), .bc_code = 400, .bc_reason = reason

/* The refusals' texts, written out here so a change to one is seen. */
#define R_BARE_LF "chunked body: a line ending in a bare LF (CRLF required)"
#define R_BARE_CR "chunked body: a CR not followed by LF"
#define R_SIGN "chunked body: a sign before a chunk size (hex digits only)"
#define R_SIZE_WS "chunked body: whitespace before a chunk size"
#define R_EMPTY "chunked body: an empty chunk size"
#define R_HEX "chunked body: a chunk size that is not hex digits"
#define R_SIZE_END                                                             \
    "chunked body: a chunk size followed by a byte other than a hex digit, "   \
    "';' or CRLF"
#define R_SIZE_BIG "chunked body: a chunk size over 64 bits"
#define R_LINE_LONG                                                            \
    "chunked body: a chunk-size line over 4096 bytes (chunk extensions too "   \
    "long)"
#define R_EXTRA_LONG                                                           \
    "chunked body: chunk extensions, whitespace and leading zeros over 65536 " \
    "bytes in all"
#define R_EXT_WS                                                               \
    "chunked body: whitespace in a chunk-size line not followed by ';' or '='"
#define R_EXT_NAME "chunked body: a chunk extension name that is not a token"
#define R_EXT_VALUE                                                            \
    "chunked body: a chunk extension value that is neither a token nor a "     \
    "quoted string"
#define R_EXT_QUOTED                                                           \
    "chunked body: a control byte in a quoted chunk extension value"
#define R_EXT_END                                                              \
    "chunked body: a quoted chunk extension value followed by a byte other "   \
    "than ';' or CRLF"
#define R_DATA_LONG                                                            \
    "chunked body: chunk data longer than its chunk size (no CRLF after it)"
#define R_TRAILER_LONG "chunked body: trailer fields over 8192 bytes"
#define R_OBS_FOLD                                                             \
    "chunked body: obsolete line folding (a trailer line starting with "       \
    "whitespace)"
#define R_TR_NAME "chunked body: a trailer field name that is not a token"
#define R_TR_COLON "chunked body: a trailer field line without a colon"
#define R_TR_WS                                                                \
    "chunked body: whitespace between a trailer field name and its colon"
#define R_TR_VALUE "chunked body: a control byte in a trailer field value"

#define NEXT_REQ "GET http://example.com/ HTTP/1.1\r\n"

static const body_case body_cases[] = {
    /* ---- well formed ---- */
    {IN("5\r\nhello\r\n0\r\n\r\n"), DONE("hello")}, // one chunk
    {IN("5\r\nhello\r\n1\r\n \r\n5\r\nworld\r\n0\r\n\r\n"),
     DONE("hello world")},                             // many
    {IN("0\r\n\r\n"), DONE("")},                       // an empty body
    {IN("000\r\n\r\n"), DONE("")},                     // last-chunk = 1*"0"
    {IN("0005\r\nhello\r\n0\r\n\r\n"), DONE("hello")}, // leading zeros
    {IN("A\r\n0123456789\r\n0\r\n\r\n"), DONE("0123456789")}, // uppercase
    {IN("a\r\n0123456789\r\nB\r\nabcdefghijk\r\n0\r\n\r\n"),
     DONE("0123456789abcdefghijk")},
    {IN("1a\r\nabcdefghijklmnopqrstuvwxyz\r\n1A\r\nABCDEFGHIJKLMNOPQRSTUVWXYZ"
        "\r\n0\r\n\r\n"),
     DONE("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ")},
    // Data is bytes: CR, LF, NUL and high bytes are payload.
    {IN("4\r\n\r\n\r\n\r\n0\r\n\r\n"), DONE("\r\n\r\n")},
    {IN("3\r\n\0\xff\r\r\n0\r\n\r\n"), DONE("\0\xff\r")},
    // Extensions: names, token and quoted values, BWS around ';' and '='.
    {IN("5;a=b\r\nhello\r\n0\r\n\r\n"), DONE("hello")},
    {IN("5;flag\r\nhello\r\n0;last\r\n\r\n"), DONE("hello")},
    {IN("3 ; name = \"q\\\"x y\" ;flag\t;t=tok\r\nabc\r\n0\r\n\r\n"),
     DONE("abc")},
    {IN("3;a=\"\"\r\nabc\r\n0\r\n\r\n"), DONE("abc")},
    {IN("3;a=\"\xe9t\xe9\\\t\"\r\nabc\r\n0\r\n\r\n"), DONE("abc")},
    {IN("3;a;b;c=1 ;d\r\nabc\r\n0\r\n\r\n"), DONE("abc")},
    // Trailers, read and dropped.
    {IN("3\r\nabc\r\n0\r\nX-Sum: 1\r\nY:\r\nZ:  a \t b \r\n\r\n"), DONE("abc")},
    {IN("0\r\nExpires: Wed, 21 Oct 2015 07:28:00 GMT\r\n\r\n"), DONE("")},
    {IN("0\r\nX:\xe9\x80\r\n\r\n"), DONE("")},
    // A pipelined request after the body is left for the head parser.
    {IN("1\r\na\r\n0\r\n\r\n" NEXT_REQ), DONE("a"), .bc_used = 11},
    {IN("0\r\n\r\n\r\n"), DONE(""), .bc_used = 5},
    /* ---- not complete yet ---- */
    {IN(""), MORE("")},
    {IN("5"), MORE("")},
    {IN("5\r\nhel"), MORE("hel")},
    {IN("5\r\nhello"), MORE("hello")},
    {IN("5\r\nhello\r\n0\r\n"), MORE("hello")},
    {IN("5\r\nhello\r\n0\r\nX: y\r\n"), MORE("hello")},
    {IN("5\r\nhello\r\n0\r\n\r"), MORE("hello")},
    {IN("5;a=\"x"), MORE("")},
    /* ---- bad shapes: 400, nothing past the refused byte ---- */
    {IN("1\n"), BAD("", R_BARE_LF)},
    {IN("1 \r\n"), BAD("", R_EXT_WS)},
    {IN("+1\r\n"), BAD("", R_SIGN)},
    {IN("-1"), BAD("", R_SIGN)},
    {IN("0x1\r\n"), BAD("", R_SIZE_END)},
    {IN(" 1\r\n"), BAD("", R_SIZE_WS)},
    {IN("\t1\r\n"), BAD("", R_SIZE_WS)},
    {IN("\r\n"), BAD("", R_EMPTY)},
    {IN("\n"), BAD("", R_BARE_LF)},
    {IN("g\r\n"), BAD("", R_HEX)},
    {IN("1g\r\n"), BAD("", R_SIZE_END)},
    {IN("1\ra"), BAD("", R_BARE_CR)},
    {IN("1\r\r\n"), BAD("", R_BARE_CR)},
    {IN("1\r\naX\r\n0\r\n\r\n"), BAD("a", R_DATA_LONG)}, // no CRLF
    {IN("1\r\nab\r\n0\r\n\r\n"), BAD("a", R_DATA_LONG)}, // data too long
    {IN("1\r\na\n0\r\n\r\n"), BAD("a", R_BARE_LF)},
    {IN("1\r\na\r0\r\n\r\n"), BAD("a", R_BARE_CR)},
    {IN("5\r\nhello\r\n1\rx\r\n"), BAD("hello", R_BARE_CR)},
    {IN("5\r\nhello\r\n1\nx\r\n"), BAD("hello", R_BARE_LF)},
    {IN("5\r\nhello\r\n\r\n"), BAD("hello", R_EMPTY)},
    // Huge hex: past 64 bits is malformed (within them, the limit: 413).
    {IN("10000000000000000\r\n"), BAD("", R_SIZE_BIG)},
    {IN("fffffffffffffffffffffffff\r\n"), BAD("", R_SIZE_BIG)},
    // Extensions.
    {IN("1;\r\na\r\n"), BAD("", R_EXT_NAME)},
    {IN("1;=a\r\n"), BAD("", R_EXT_NAME)},
    {IN("1;a@\r\n"), BAD("", R_EXT_NAME)},
    {IN("1;a=\r\n"), BAD("", R_EXT_VALUE)},
    {IN("1;a=@\r\n"), BAD("", R_EXT_VALUE)},
    {IN("1;a=b@\r\n"), BAD("", R_EXT_VALUE)},
    {IN("1;a b\r\n"), BAD("", R_EXT_WS)},
    {IN("1;a \r\n"), BAD("", R_EXT_WS)},
    {IN("1;a=b \r\n"), BAD("", R_EXT_WS)},
    {IN("1;a=b c\r\n"), BAD("", R_EXT_WS)},
    {IN("1;a=\"x\r\n"), BAD("", R_EXT_QUOTED)},
    {IN("1;a=\"x\x7f\"\r\n"), BAD("", R_EXT_QUOTED)},
    {IN("1;a=\"x\\\r\"\r\n"), BAD("", R_EXT_QUOTED)},
    {IN("1;a=\"x\"y\r\n"), BAD("", R_EXT_END)},
    {IN("1;a\n"), BAD("", R_BARE_LF)},
    {IN("1;a=\"x\n"), BAD("", R_BARE_LF)},
    // Trailers.
    {IN("0\r\nA: b\r\n c\r\n\r\n"), BAD("", R_OBS_FOLD)}, // obs-fold
    {IN("0\r\n\tA: b\r\n\r\n"), BAD("", R_OBS_FOLD)},
    {IN("0\r\nA b\r\n\r\n"), BAD("", R_TR_WS)},
    {IN("0\r\nA : b\r\n\r\n"), BAD("", R_TR_WS)},
    {IN("0\r\nAb\r\n\r\n"), BAD("", R_TR_COLON)},
    {IN("0\r\n: b\r\n\r\n"), BAD("", R_TR_NAME)},
    {IN("0\r\nA@: b\r\n\r\n"), BAD("", R_TR_NAME)},
    {IN("0\r\nA: b\x01\r\n\r\n"), BAD("", R_TR_VALUE)},
    {IN("0\r\nA: b\x7f\r\n\r\n"), BAD("", R_TR_VALUE)},
    {IN("0\r\nA: b\rc\r\n\r\n"), BAD("", R_BARE_CR)}, // bare CR
    {IN("0\r\nA: b\nc\r\n\r\n"), BAD("", R_BARE_LF)},
    {IN("0\r\nA: b\r\n\n"), BAD("", R_BARE_LF)},
    {IN("0\r\n\n"), BAD("", R_BARE_LF)},
    {IN("0\r\n\r\r\n"), BAD("", R_BARE_CR)},
    {IN("3\r\nabc\r\n0\r\n\rX"), BAD("abc", R_BARE_CR)},
};

static void
test_chunked_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof body_cases / sizeof body_cases[0]; i++) {
        const body_case *c = &body_cases[i];
        outcome oc;
        char reason[256];
        print_message("case %zu\n", i);
        check_splits(&oc, reason, &rq_chunked, GW_BODY_MAX, c->bc_in, c->bc_len,
                     SPLIT_ALL);
        assert_int_equal(oc.oc_status, c->bc_status);
        assert_int_equal(oc.oc_out.b_len, c->bc_out_len);
        if (c->bc_out_len > 0)
            assert_memory_equal(oc.oc_out.b_data, c->bc_out, c->bc_out_len);
        if (c->bc_status == GW_BODY_DONE)
            assert_int_equal(oc.oc_used,
                             c->bc_used != 0 ? c->bc_used : c->bc_len);
        if (c->bc_status == GW_BODY_MORE)
            assert_int_equal(oc.oc_used, c->bc_len);
        if (c->bc_status == GW_BODY_BAD) {
            assert_int_equal(oc.oc_code, c->bc_code);
            assert_string_equal(oc.oc_reason, c->bc_reason);
        }
        outcome_free(&oc);
    }
}

/* ---- Content-Length and no body ---- */

static void
expect(const outcome *oc, gw_body_status st, const char *out, size_t used)
{
    assert_int_equal(oc->oc_status, st);
    assert_int_equal(oc->oc_out.b_len, strlen(out));
    assert_memory_equal(oc->oc_out.b_data ? oc->oc_out.b_data : "", out,
                        strlen(out));
    assert_int_equal(oc->oc_used, used);
}

static void
test_length(void **state)
{
    (void)state;
    outcome oc;
    char reason[256];
    gw_http_req rq = rq_length(5);
    // Exact.
    check_splits(&oc, reason, &rq, 5, "hello", 5, SPLIT_ALL);
    expect(&oc, GW_BODY_DONE, "hello", 5);
    outcome_free(&oc);
    // Short: MORE until it is all there.
    check_splits(&oc, reason, &rq, 5, "hell", 4, SPLIT_ALL);
    expect(&oc, GW_BODY_MORE, "hell", 4);
    outcome_free(&oc);
    // The next request's bytes are not the body's.
    static const char two[] = "hello" NEXT_REQ;
    check_splits(&oc, reason, &rq, 5, two, sizeof two - 1, SPLIT_TWO);
    expect(&oc, GW_BODY_DONE, "hello", 5);
    outcome_free(&oc);
    // Bytes are bytes: CRLF, NUL, and a chunked-looking payload.
    static const char raw[] = "0\r\n\r\n\0\xff";
    rq = rq_length(sizeof raw - 1);
    check_splits(&oc, reason, &rq, 100, raw, sizeof raw - 1, SPLIT_ALL);
    assert_int_equal(oc.oc_status, GW_BODY_DONE);
    assert_int_equal(oc.oc_out.b_len, sizeof raw - 1);
    assert_memory_equal(oc.oc_out.b_data, raw, sizeof raw - 1);
    outcome_free(&oc);
}

/* No body at all, or Content-Length 0: DONE before any byte, and every
 * byte after the head is the next request's. */
static void
test_empty(void **state)
{
    (void)state;
    static const gw_http_req reqs[] = {
        {.rq_has_content_length = false},
        {.rq_has_content_length = true, .rq_content_length = 0},
    };
    for (size_t i = 0; i < 2; i++) {
        box_arena *a;
        gw_body_dec *d = dec_new(&a, &reqs[i], 0);
        gw_body_result r = gw_body_feed(d, NULL, 0, NULL, 0);
        assert_int_equal(r.br_status, GW_BODY_DONE);
        char buf[] = NEXT_REQ;
        r = gw_body_feed(d, buf, sizeof buf - 1, buf, sizeof buf - 1);
        assert_int_equal(r.br_status, GW_BODY_DONE);
        assert_int_equal(r.br_used, 0);
        assert_int_equal(r.br_out, 0);
        assert_string_equal(buf, NEXT_REQ);
        assert_int_equal(gw_body_dec_bytes(d), 0);
        box_arena_free(a);
    }
}

/* The payload limit: a Content-Length at it is read, one past it refused
 * before any byte (so the gateway never says 100 Continue to it). */
static void
test_length_limit(void **state)
{
    (void)state;
    box_arena *a;
    gw_http_req rq = rq_length(10);
    gw_body_dec *d = dec_new(&a, &rq, 10);
    char buf[10] = "0123456789";
    gw_body_result r = gw_body_feed(d, NULL, 0, NULL, 0);
    assert_int_equal(r.br_status, GW_BODY_MORE);
    r = gw_body_feed(d, buf, 10, buf, 10);
    assert_int_equal(r.br_status, GW_BODY_DONE);
    assert_int_equal(r.br_out, 10);
    assert_int_equal(gw_body_dec_bytes(d), 10);
    box_arena_free(a);

    rq = rq_length(11);
    d = dec_new(&a, &rq, 10);
    r = gw_body_feed(d, NULL, 0, NULL, 0);
    assert_int_equal(r.br_status, GW_BODY_BAD);
    assert_int_equal(r.br_code, 413);
    assert_string_equal(r.br_reason, "request body over the limit of 10 bytes");
    r = gw_body_feed(d, buf, 10, buf, 10);
    assert_int_equal(r.br_status, GW_BODY_BAD);
    assert_int_equal(r.br_used, 0);
    assert_int_equal(r.br_out, 0);
    box_arena_free(a);

    // A limit past GW_BODY_MAX is GW_BODY_MAX (a size is a Cedar Long).
    rq = rq_length(GW_BODY_MAX + 1);
    d = dec_new(&a, &rq, UINT64_MAX);
    r = gw_body_feed(d, NULL, 0, NULL, 0);
    assert_int_equal(r.br_status, GW_BODY_BAD);
    assert_int_equal(r.br_code, 413);
    box_arena_free(a);
    rq = rq_length(GW_BODY_MAX);
    d = dec_new(&a, &rq, UINT64_MAX);
    r = gw_body_feed(d, NULL, 0, NULL, 0);
    assert_int_equal(r.br_status, GW_BODY_MORE);
    box_arena_free(a);
}

/* The payload limit on chunked bodies: at the bound read, one past it
 * refused once the size that passes it is read, before its data, however
 * the payload is cut into chunks. */
static void
test_chunked_limit(void **state)
{
    (void)state;
    static const struct {
        const char *in;
        uint64_t max;
        gw_body_status st;
        const char *out;
    } cases[] = {
        {"a\r\n0123456789\r\n0\r\n\r\n", 10, GW_BODY_DONE, "0123456789"},
        {"b\r\n0123456789a\r\n0\r\n\r\n", 10, GW_BODY_BAD, ""},
        {"5\r\n01234\r\n5\r\n56789\r\n0\r\n\r\n", 10, GW_BODY_DONE,
         "0123456789"},
        {"5\r\n01234\r\n6\r\n56789a\r\n0\r\n\r\n", 10, GW_BODY_BAD, "01234"},
        {"5\r\n01234\r\n6;x=y\r\n", 10, GW_BODY_BAD, "01234"},
        {"5\r\n01234\r\n6 ;x\r\n", 10, GW_BODY_BAD, "01234"},
        {"1\r\na\r\n", 0, GW_BODY_BAD, ""},
        {"0\r\n\r\n", 0, GW_BODY_DONE, ""},
        // Within 64 bits but past any limit: 413, not 400.
        {"ffffffffffffffff\r\n", UINT64_MAX, GW_BODY_BAD, ""},
        {"8000000000000000\r\n", UINT64_MAX, GW_BODY_BAD, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        outcome oc;
        char reason[256];
        char want[64];
        print_message("case %zu\n", i);
        check_splits(&oc, reason, &rq_chunked, cases[i].max, cases[i].in,
                     strlen(cases[i].in), SPLIT_ALL);
        assert_int_equal(oc.oc_status, cases[i].st);
        assert_int_equal(oc.oc_out.b_len, strlen(cases[i].out));
        if (oc.oc_out.b_len > 0)
            assert_memory_equal(oc.oc_out.b_data, cases[i].out,
                                oc.oc_out.b_len);
        if (cases[i].st == GW_BODY_BAD) {
            uint64_t m =
                cases[i].max < GW_BODY_MAX ? cases[i].max : GW_BODY_MAX;
            snprintf(want, sizeof want,
                     "request body over the limit of %llu bytes",
                     (unsigned long long)m);
            assert_int_equal(oc.oc_code, 413);
            assert_string_equal(oc.oc_reason, want);
        }
        outcome_free(&oc);
    }
}

/* Builds "1;" + ext + "\r\na\r\n0\r\n\r\n" with an extension filling the
 * chunk-size line to line_len bytes. */
static void
line_of(box_buf *b, size_t line_len)
{
    box_buf_init(b, 1 << 20);
    assert_int_equal(box_buf_puts(b, "1;x="), BOX_OK);
    while (b->b_len < line_len)
        assert_int_equal(box_buf_putc(b, 'v'), BOX_OK);
    assert_int_equal(box_buf_puts(b, "\r\na\r\n0\r\n\r\n"), BOX_OK);
}

/* A chunk-size line of GW_BODY_CHUNK_LINE_MAX bytes is read, one more is
 * refused at the byte past the limit. Leading zeros count too. */
static void
test_line_limit(void **state)
{
    (void)state;
    outcome oc;
    char reason[256];
    box_buf b;
    line_of(&b, GW_BODY_CHUNK_LINE_MAX);
    check_splits(&oc, reason, &rq_chunked, GW_BODY_MAX, b.b_data, b.b_len,
                 SPLIT_TWO);
    expect(&oc, GW_BODY_DONE, "a", b.b_len);
    outcome_free(&oc);
    box_buf_reset(&b);

    line_of(&b, GW_BODY_CHUNK_LINE_MAX + 1);
    check_splits(&oc, reason, &rq_chunked, GW_BODY_MAX, b.b_data, b.b_len,
                 SPLIT_TWO);
    assert_int_equal(oc.oc_status, GW_BODY_BAD);
    assert_int_equal(oc.oc_code, 400);
    assert_string_equal(oc.oc_reason, R_LINE_LONG);
    assert_int_equal(oc.oc_used, GW_BODY_CHUNK_LINE_MAX + 1);
    assert_int_equal(oc.oc_out.b_len, 0);
    outcome_free(&oc);
    box_buf_reset(&b);

    // A size of leading zeros alone, at the bound and past it.
    box_buf_init(&b, 1 << 20);
    for (size_t i = 0; i < GW_BODY_CHUNK_LINE_MAX - 1; i++)
        assert_int_equal(box_buf_putc(&b, '0'), BOX_OK);
    assert_int_equal(box_buf_puts(&b, "1\r\na\r\n0\r\n\r\n"), BOX_OK);
    check_splits(&oc, reason, &rq_chunked, GW_BODY_MAX, b.b_data, b.b_len,
                 SPLIT_TWO);
    expect(&oc, GW_BODY_DONE, "a", b.b_len);
    outcome_free(&oc);
    box_buf_truncate(&b, 0);
    for (size_t i = 0; i < GW_BODY_CHUNK_LINE_MAX; i++)
        assert_int_equal(box_buf_putc(&b, '0'), BOX_OK);
    assert_int_equal(box_buf_puts(&b, "1\r\na\r\n0\r\n\r\n"), BOX_OK);
    check_splits(&oc, reason, &rq_chunked, GW_BODY_MAX, b.b_data, b.b_len,
                 SPLIT_TWO);
    assert_int_equal(oc.oc_status, GW_BODY_BAD);
    assert_string_equal(oc.oc_reason, R_LINE_LONG);
    outcome_free(&oc);
    box_buf_reset(&b);
}

/* Chunks "1;x=v…" of 4096-byte lines (4095 bytes past the size's digit)
 * and a last chunk "0;xx…" of last_len bytes (all of it past the
 * digits). */
static void
extra_of(box_buf *b, size_t full, size_t last_len)
{
    box_buf_init(b, 1 << 20);
    for (size_t k = 0; k < full; k++) {
        size_t start = b->b_len;
        assert_int_equal(box_buf_puts(b, "1;x="), BOX_OK);
        while (b->b_len - start < GW_BODY_CHUNK_LINE_MAX)
            assert_int_equal(box_buf_putc(b, 'v'), BOX_OK);
        assert_int_equal(box_buf_puts(b, "\r\na\r\n"), BOX_OK);
    }
    assert_int_equal(box_buf_puts(b, "0;"), BOX_OK);
    for (size_t i = 2; i < last_len; i++)
        assert_int_equal(box_buf_putc(b, 'x'), BOX_OK);
    assert_int_equal(box_buf_puts(b, "\r\n\r\n"), BOX_OK);
}

/* The framing past the sizes' digits, over the whole body: at
 * GW_BODY_CHUNK_EXTRA_MAX read, one byte more refused at that byte. */
static void
test_extra_limit(void **state)
{
    (void)state;
    outcome oc;
    char reason[256];
    box_buf b;
    size_t per = GW_BODY_CHUNK_LINE_MAX - 1;
    size_t full = GW_BODY_CHUNK_EXTRA_MAX / per;
    size_t last = GW_BODY_CHUNK_EXTRA_MAX - full * per;
    assert_true(last >= 3 && last < GW_BODY_CHUNK_LINE_MAX);
    extra_of(&b, full, last);
    run(&oc, &rq_chunked, GW_BODY_MAX, b.b_data, b.b_len, NULL, 0, 0, reason);
    assert_int_equal(oc.oc_status, GW_BODY_DONE);
    assert_int_equal(oc.oc_out.b_len, full);
    assert_int_equal(oc.oc_used, b.b_len);
    outcome_free(&oc);
    box_buf_reset(&b);

    extra_of(&b, full, last + 1);
    check_splits(&oc, reason, &rq_chunked, GW_BODY_MAX, b.b_data, b.b_len,
                 SPLIT_SOME);
    assert_int_equal(oc.oc_status, GW_BODY_BAD);
    assert_int_equal(oc.oc_code, 400);
    assert_string_equal(oc.oc_reason, R_EXTRA_LONG);
    assert_int_equal(oc.oc_out.b_len, full);
    assert_int_equal(oc.oc_used, b.b_len - 4); // the last line's last byte
    outcome_free(&oc);
    box_buf_reset(&b);
}

/* "0\r\n" + trailer lines of trailer_len bytes in all (each with its
 * CRLF) + "\r\n". */
static void
trailer_of(box_buf *b, size_t trailer_len)
{
    box_buf_init(b, 1 << 20);
    assert_int_equal(box_buf_puts(b, "3\r\nabc\r\n0\r\n"), BOX_OK);
    size_t start = b->b_len;
    // Lines of 106 bytes, then one of the rest (at least "Y:" CRLF).
    while (b->b_len - start + 106 + 4 <= trailer_len)
        assert_int_equal(box_buf_printf(b, "X-Long: %096d\r\n", 7), BOX_OK);
    size_t left = trailer_len - (b->b_len - start);
    assert_int_equal(box_buf_puts(b, "Y:"), BOX_OK);
    for (size_t i = 0; i < left - 4; i++)
        assert_int_equal(box_buf_putc(b, 'v'), BOX_OK);
    assert_int_equal(box_buf_puts(b, "\r\n\r\n"), BOX_OK);
}

/* Trailer fields of GW_BODY_TRAILER_MAX bytes are read and dropped; one
 * more byte is refused. */
static void
test_trailer_limit(void **state)
{
    (void)state;
    outcome oc;
    char reason[256];
    box_buf b;
    trailer_of(&b, GW_BODY_TRAILER_MAX);
    check_splits(&oc, reason, &rq_chunked, GW_BODY_MAX, b.b_data, b.b_len,
                 SPLIT_TWO);
    expect(&oc, GW_BODY_DONE, "abc", b.b_len);
    outcome_free(&oc);
    box_buf_reset(&b);

    trailer_of(&b, GW_BODY_TRAILER_MAX + 1);
    check_splits(&oc, reason, &rq_chunked, GW_BODY_MAX, b.b_data, b.b_len,
                 SPLIT_TWO);
    assert_int_equal(oc.oc_status, GW_BODY_BAD);
    assert_int_equal(oc.oc_code, 400);
    assert_string_equal(oc.oc_reason, R_TRAILER_LONG);
    assert_int_equal(oc.oc_out.b_len, 3);
    // Refused at the byte past the limit: the final CRLF's LF.
    assert_int_equal(oc.oc_used, b.b_len - 2);
    outcome_free(&oc);
    box_buf_reset(&b);
}

/* Out filling first: the call stops at it, says MORE and leaves the rest
 * of the input for the next call. */
static void
test_out_full(void **state)
{
    (void)state;
    box_arena *a;
    gw_body_dec *d = dec_new(&a, &rq_chunked, GW_BODY_MAX);
    static const char in[] = "5\r\nhello\r\n0\r\n\r\n";
    char out[4];
    gw_body_result r = gw_body_feed(d, in, sizeof in - 1, out, 0);
    assert_int_equal(r.br_status, GW_BODY_MORE);
    assert_int_equal(r.br_used, 3); // the size line, up to the data
    assert_int_equal(r.br_out, 0);
    r = gw_body_feed(d, in + 3, sizeof in - 4, out, sizeof out);
    assert_int_equal(r.br_status, GW_BODY_MORE);
    assert_int_equal(r.br_used, 4);
    assert_int_equal(r.br_out, 4);
    assert_memory_equal(out, "hell", 4);
    r = gw_body_feed(d, in + 7, sizeof in - 8, out, sizeof out);
    assert_int_equal(r.br_status, GW_BODY_DONE);
    assert_int_equal(r.br_used, sizeof in - 8);
    assert_int_equal(r.br_out, 1);
    assert_int_equal(out[0], 'o');
    assert_int_equal(gw_body_dec_bytes(d), 5);
    box_arena_free(a);
}

/* The decoder's size: payload only, exactly, across chunks and calls. */
static void
test_bytes(void **state)
{
    (void)state;
    box_arena *a;
    gw_body_dec *d = dec_new(&a, &rq_chunked, GW_BODY_MAX);
    char in[] = "3;x=1\r\nabc\r\n10\r\n0123456789abcdef\r\n0\r\nT: 1\r\n\r\n";
    size_t n = sizeof in - 1;
    assert_int_equal(gw_body_dec_bytes(d), 0);
    gw_body_result r = gw_body_feed(d, in, 12, in, 12);
    assert_int_equal(r.br_status, GW_BODY_MORE);
    assert_int_equal(gw_body_dec_bytes(d), 3);
    assert_memory_equal(in, "abc", 3);
    r = gw_body_feed(d, in + 12, n - 12, in + 12, n - 12);
    assert_int_equal(r.br_status, GW_BODY_DONE);
    assert_int_equal(r.br_out, 16);
    assert_memory_equal(in + 12, "0123456789abcdef", 16);
    assert_int_equal(gw_body_dec_bytes(d), 19);
    box_arena_free(a);
}

/* An arena too small for a decoder: NULL, nothing else. */
static void
test_nomem(void **state)
{
    (void)state;
    box_arena *tiny = box_arena_new(16);
    assert_non_null(tiny);
    assert_null(gw_body_dec_new(tiny, &rq_chunked, 1));
    box_arena_free(tiny);
    box_arena *a = box_arena_new(ARENA_MAX);
    assert_non_null(a);
    box_alloc_fail_after(1);
    gw_body_dec *d = gw_body_dec_new(a, &rq_chunked, 1);
    box_alloc_fail_off();
    assert_null(d);
    box_arena_free(a);
}

/* ---- the encoder ---- */

static void
test_chunk_head(void **state)
{
    (void)state;
    static const struct {
        size_t n;
        const char *head;
    } cases[] = {
        {1, "1\r\n"},
        {9, "9\r\n"},
        {10, "a\r\n"},
        {16, "10\r\n"},
        {255, "ff\r\n"},
        {65536, "10000\r\n"},
        {0x7fffffff, "7fffffff\r\n"},
    };
    char out[GW_BODY_CHUNK_HEAD_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        size_t len = gw_body_chunk_head(cases[i].n, out);
        assert_string_equal(out, cases[i].head);
        assert_int_equal(len, strlen(cases[i].head));
    }
    // The longest head fits, with its NUL.
    memset(out, 'x', sizeof out);
    size_t len = gw_body_chunk_head(SIZE_MAX, out);
    assert_true(len < GW_BODY_CHUNK_HEAD_MAX);
    assert_string_equal(out, sizeof(size_t) == 8 ? "ffffffffffffffff\r\n"
                                                 : "ffffffff\r\n");
    // 0 would be the last chunk: nothing written.
    assert_int_equal(gw_body_chunk_head(0, out), 0);
    assert_string_equal(out, "");
    assert_string_equal(GW_BODY_CRLF, "\r\n");
    assert_string_equal(GW_BODY_LAST_CHUNK, "0\r\n\r\n");
}

/* What the encoder writes the decoder reads back as the same payload. */
static void
test_round_trip(void **state)
{
    (void)state;
    box_buf enc, payload;
    box_buf_init(&enc, 1 << 20);
    box_buf_init(&payload, 1 << 20);
    char head[GW_BODY_CHUNK_HEAD_MAX];
    static const size_t sizes[] = {1, 15, 16, 17, 255, 256, 4095, 4096, 30000};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t hl = gw_body_chunk_head(sizes[i], head);
        assert_int_equal(box_buf_append(&enc, head, hl), BOX_OK);
        for (size_t k = 0; k < sizes[i]; k++) {
            char c = (char)('a' + (payload.b_len + k) % 26);
            assert_int_equal(box_buf_putc(&enc, c), BOX_OK);
            assert_int_equal(box_buf_putc(&payload, c), BOX_OK);
        }
        assert_int_equal(box_buf_puts(&enc, GW_BODY_CRLF), BOX_OK);
    }
    assert_int_equal(box_buf_puts(&enc, GW_BODY_LAST_CHUNK), BOX_OK);
    box_arena *a;
    gw_body_dec *d = dec_new(&a, &rq_chunked, payload.b_len);
    gw_body_result r =
        gw_body_feed(d, enc.b_data, enc.b_len, enc.b_data, enc.b_len);
    assert_int_equal(r.br_status, GW_BODY_DONE);
    assert_int_equal(r.br_used, enc.b_len);
    assert_int_equal(r.br_out, payload.b_len);
    assert_memory_equal(enc.b_data, payload.b_data, payload.b_len);
    assert_int_equal(gw_body_dec_bytes(d), payload.b_len);
    box_arena_free(a);
    box_buf_reset(&enc);
    box_buf_reset(&payload);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chunked_table),
        cmocka_unit_test(test_length),
        cmocka_unit_test(test_empty),
        cmocka_unit_test(test_length_limit),
        cmocka_unit_test(test_chunked_limit),
        cmocka_unit_test(test_line_limit),
        cmocka_unit_test(test_extra_limit),
        cmocka_unit_test(test_trailer_limit),
        cmocka_unit_test(test_out_full),
        cmocka_unit_test(test_bytes),
        cmocka_unit_test(test_nomem),
        cmocka_unit_test(test_chunk_head),
        cmocka_unit_test(test_round_trip),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
