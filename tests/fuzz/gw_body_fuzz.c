/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target gw_body: a request body as a client sends it after the head
 * (gw_body.h). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "box_fuzz.h"
#include "gw_body.h"

/*
 * The input is five bytes of setup, then the body:
 *   [0] framing: bits 0-1 chunked (0, 1), Content-Length (2) or none (3);
 *       bits 2-4 the out buffer's size less one for the small-buffer run
 *   [1] the payload limit: 0 is GW_BODY_MAX, else 8 times the byte
 *   [2] the Content-Length (framing 2)
 *   [3] [4] two places to cut the body at (mod its length + 1)
 *
 * Invariants: no call writes more payload than it uses input, nor uses
 * more than given; MORE uses all its input unless out filled; the body
 * decoded in place whole, cut at the two places, a byte at a time and
 * into a small buffer gives the same status, payload, bytes used, code
 * and reason; a refusal is 400 or 413 with a one-line reason; a settled
 * answer stays; gw_body_dec_bytes is the payload's size, and within the
 * limit; DONE on chunked: the payload written again with the encoder
 * reads back the same.
 */

typedef struct run {
    gw_body_status ru_status;
    size_t ru_used;
    char *ru_out; // box_alloc'd, the input's length at most
    size_t ru_out_len;
    int ru_code;
    char ru_reason[256];
    uint64_t ru_bytes;
} run;

static void
take(run *ru, const gw_body_result *r, size_t in_len, size_t out_cap)
{
    if (r->br_out > r->br_used || r->br_used > in_len)
        box_fuzz_fail("a call wrote more than it used, or used more than "
                      "given");
    if (r->br_status == GW_BODY_MORE && r->br_used < in_len &&
        r->br_out < out_cap)
        box_fuzz_fail("MORE left input with room in out");
    if (r->br_status == GW_BODY_BAD) {
        if ((r->br_code != 400 && r->br_code != 413) || r->br_reason == NULL ||
            r->br_reason[0] == '\0' || strchr(r->br_reason, '\n') != NULL)
            box_fuzz_fail("a refusal without a status or one-line reason");
        ru->ru_code = r->br_code;
        snprintf(ru->ru_reason, sizeof ru->ru_reason, "%s", r->br_reason);
    }
    ru->ru_status = r->br_status;
    ru->ru_used += r->br_used;
}

/*
 * Decodes body[0..n) cut before each of cuts[0..ncuts) (increasing; a
 * cut may repeat). cap 0: each piece in place in a copy of it; else
 * through an out buffer of cap bytes.
 */
static void
decode(run *ru, const gw_http_req *rq, uint64_t max, const char *body, size_t n,
       const size_t *cuts, size_t ncuts, size_t cap)
{
    memset(ru, 0, sizeof(*ru));
    box_arena *a = box_arena_new(1 << 16);
    gw_body_dec *d = a ? gw_body_dec_new(a, rq, max) : NULL;
    char *piece = box_alloc(n + 1);
    char *out = box_alloc(cap + 1);
    ru->ru_out = box_alloc(n + 1);
    if (d == NULL || piece == NULL || out == NULL || ru->ru_out == NULL)
        box_fuzz_fail("no memory");
    gw_body_result r = gw_body_feed(d, NULL, 0, NULL, 0);
    take(ru, &r, 0, 0);
    size_t start = 0;
    for (size_t k = 0; k <= ncuts && ru->ru_status == GW_BODY_MORE; k++) {
        size_t end = k < ncuts ? cuts[k] : n, plen = end - start;
        memcpy(piece, body + start, plen);
        for (size_t off = 0; off < plen || (plen == 0 && off == 0);) {
            char *o = cap == 0 ? piece + off : out;
            size_t ocap = cap == 0 ? plen - off : cap;
            r = gw_body_feed(d, piece + off, plen - off, o, ocap);
            take(ru, &r, plen - off, ocap);
            if (ru->ru_out_len + r.br_out > n)
                box_fuzz_fail("more payload than input");
            if (r.br_out > 0)
                memcpy(ru->ru_out + ru->ru_out_len, o, r.br_out);
            ru->ru_out_len += r.br_out;
            off += r.br_used;
            if (r.br_status != GW_BODY_MORE || plen == 0)
                break;
            if (r.br_used == 0)
                box_fuzz_fail("a call with room in out made no progress");
        }
        start = end;
    }
    ru->ru_bytes = gw_body_dec_bytes(d);
    if (ru->ru_bytes != ru->ru_out_len)
        box_fuzz_fail("gw_body_dec_bytes is not the payload's size");
    if (ru->ru_status != GW_BODY_MORE) {
        r = gw_body_feed(d, body, n, out, cap);
        if (r.br_status != ru->ru_status || r.br_used != 0 || r.br_out != 0)
            box_fuzz_fail("a settled answer changed");
    }
    box_free(piece);
    box_free(out);
    box_arena_free(a);
}

static void
same(const run *x, const run *y, const char *what)
{
    if (x->ru_status != y->ru_status || x->ru_used != y->ru_used ||
        x->ru_out_len != y->ru_out_len ||
        memcmp(x->ru_out, y->ru_out, x->ru_out_len) != 0 ||
        x->ru_code != y->ru_code || strcmp(x->ru_reason, y->ru_reason) != 0)
        box_fuzz_fail(what);
}

/* The payload re-framed with the encoder in chunks of up to 7 bytes reads
 * back the same. */
static void
round_trip(const run *ru, uint64_t max)
{
    size_t cap =
        ru->ru_out_len / 7 * (GW_BODY_CHUNK_HEAD_MAX + 2) + ru->ru_out_len + 64;
    char *enc = box_alloc(cap);
    if (enc == NULL)
        box_fuzz_fail("no memory");
    size_t len = 0;
    for (size_t i = 0; i < ru->ru_out_len; i += 7) {
        size_t k = ru->ru_out_len - i < 7 ? ru->ru_out_len - i : 7;
        len += gw_body_chunk_head(k, enc + len);
        memcpy(enc + len, ru->ru_out + i, k);
        len += k;
        memcpy(enc + len, GW_BODY_CRLF, 2);
        len += 2;
    }
    memcpy(enc + len, GW_BODY_LAST_CHUNK, sizeof GW_BODY_LAST_CHUNK - 1);
    len += sizeof GW_BODY_LAST_CHUNK - 1;
    box_arena *a = box_arena_new(1 << 16);
    gw_http_req rq = {.rq_chunked = true};
    gw_body_dec *d = a ? gw_body_dec_new(a, &rq, max) : NULL;
    if (d == NULL)
        box_fuzz_fail("no memory");
    gw_body_result r = gw_body_feed(d, enc, len, enc, len);
    if (r.br_status != GW_BODY_DONE || r.br_used != len ||
        r.br_out != ru->ru_out_len ||
        memcmp(enc, ru->ru_out, ru->ru_out_len) != 0)
        box_fuzz_fail("the encoder's chunks do not read back the same");
    box_arena_free(a);
    box_free(enc);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 5)
        return 0;
    gw_http_req rq = {0};
    unsigned framing = data[0] & 3;
    rq.rq_chunked = framing < 2;
    rq.rq_has_content_length = framing == 2;
    rq.rq_content_length = data[2];
    uint64_t max = data[1] == 0 ? GW_BODY_MAX : (uint64_t)data[1] * 8;
    size_t small = ((data[0] >> 2) & 7) + 1;
    const char *body = (const char *)data + 5;
    size_t n = size - 5;
    size_t c1 = data[3] % (n + 1), c2 = data[4] % (n + 1);
    size_t cuts[2] = {c1 < c2 ? c1 : c2, c1 < c2 ? c2 : c1};

    run whole, cut, bytes, buffered;
    decode(&whole, &rq, max, body, n, NULL, 0, 0);
    decode(&cut, &rq, max, body, n, cuts, 2, 0);
    same(&whole, &cut, "a cut body decodes otherwise than the whole");
    size_t *each = box_alloc((n + 1) * sizeof(*each));
    if (each == NULL)
        box_fuzz_fail("no memory");
    for (size_t i = 0; i < n; i++)
        each[i] = i + 1;
    decode(&bytes, &rq, max, body, n, each, n > 0 ? n - 1 : 0, 0);
    same(&whole, &bytes, "a byte at a time decodes otherwise than whole");
    decode(&buffered, &rq, max, body, n, NULL, 0, small);
    same(&whole, &buffered, "a small out buffer decodes otherwise");
    if (whole.ru_out_len > (max < GW_BODY_MAX ? max : GW_BODY_MAX))
        box_fuzz_fail("payload past the limit");
    if (whole.ru_status == GW_BODY_DONE && rq.rq_chunked)
        round_trip(&whole, max);
    box_free(each);
    box_free(whole.ru_out);
    box_free(cut.ru_out);
    box_free(bytes.ru_out);
    box_free(buffered.ru_out);
    return 0;
}
