/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target alias_frame: the bytes a hostile alias sends the broker. */
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_fuzz.h"
#include "box_frame.h"
#include "box_wire.h"
#include "box_wire_scan.h"

/*
 * The input is everything an alias writes on its connection: frames of a
 * 4-byte big-endian length and one packed AliasFrame, possibly cut or
 * lying about their size. The broker's reader (box_frame_read with
 * BOX_FRAMES_FROM_ALIAS: the size cap, the pre-scan against the
 * descriptor, protobuf-c's unpack) reads frames from a file holding the
 * bytes until it stops, as it would on the socket.
 *
 * Invariants checked, frame by frame against the bytes: the reader stops
 * where the framing says (an oversized length, a cut frame, a clean end);
 * it returns a frame exactly when the scan passes the body; a frame it
 * returns is of a kind an alias may send (or has no body); and the frame
 * packed again scans and decodes again.
 *
 * The broker reads frames during a call piece by piece (box_frame_pull,
 * a stdin-streaming alias's frames arrive as its socket takes them): the
 * same bytes also go through a pipe in slices of 1 to 61 bytes (sizes
 * taken from the bytes themselves), pulled after every slice, and each
 * frame must come out as box_frame_read gave it: the same result, fault
 * and frame.
 */

#define FZ_READ_MS 1000 // a file is always ready: never reached

static const ProtobufCMessageDescriptor *const fz_af =
    &box__alias_frame__descriptor;

/* The returned frame, packed again, goes back through the same checks. */
static void
fz_repack(const Box__AliasFrame *f)
{
    size_t n = box__alias_frame__get_packed_size(f);
    uint8_t *b = box_alloc(n);
    if (b == NULL)
        box_fuzz_fail("out of memory");
    if (box__alias_frame__pack(f, b) != n)
        box_fuzz_fail("pack wrote another size than it announced");
    ProtobufCMessage *m =
        box_wire_scan_unpack(fz_af, BOX_FRAMES_FROM_ALIAS, b, n, NULL);
    if (m == NULL)
        box_fuzz_fail("a frame read once does not read again once packed");
    protobuf_c_message_free_unpacked(m, NULL);
    box_free(b);
}

/* The same stream through a non-blocking pipe, fed a slice at a time. */
typedef struct fz_pipe {
    int fp_rd, fp_wr; // fp_wr -1 once the end of the stream is written
    const uint8_t *fp_data;
    size_t fp_size, fp_fed;
    box_frame_rd fp_rd_state;
} fz_pipe;

/* Pulls the next frame, feeding slices until it is whole or refused. */
static box_err
fz_pull(fz_pipe *p, Box__AliasFrame **out, box_frame_fault *ff)
{
    for (;;) {
        box_err rv = box_frame_pull(p->fp_rd, &p->fp_rd_state, BOX_FRAME_MAX,
                                    BOX_FRAMES_FROM_ALIAS, out, ff);
        if (rv != BOX_OK || *out != NULL)
            return rv;
        if (p->fp_wr < 0)
            box_fuzz_fail("the piecewise reader wants bytes after the end");
        if (p->fp_fed == p->fp_size) {
            close(p->fp_wr); // the end of the stream: EOF after what is in
            p->fp_wr = -1;
            continue;
        }
        size_t k = 1 + p->fp_data[p->fp_fed] % 61;
        if (k > p->fp_size - p->fp_fed)
            k = p->fp_size - p->fp_fed;
        if (write(p->fp_wr, p->fp_data + p->fp_fed, k) != (ssize_t)k)
            box_fuzz_fail("write to the pipe");
        p->fp_fed += k;
    }
}

/* The piecewise reader's result must be the whole reader's. */
static void
fz_same(box_err rv, const Box__AliasFrame *f, const box_frame_fault *ff,
        box_err prv, const Box__AliasFrame *pf, const box_frame_fault *pff)
{
    if (rv != prv)
        box_fuzz_fail("the piecewise reader's result differs");
    if (rv == BOX_ETOOBIG && ff->ff_size != pff->ff_size)
        box_fuzz_fail("the piecewise reader saw another size");
    if (rv == BOX_EPROTO && (ff->ff_cut != pff->ff_cut ||
                             ff->ff_scan.sr_fault != pff->ff_scan.sr_fault))
        box_fuzz_fail("the piecewise reader refused for another reason");
    if (rv != BOX_OK)
        return;
    size_t n = box__alias_frame__get_packed_size(f);
    if (n != box__alias_frame__get_packed_size(pf))
        box_fuzz_fail("the piecewise reader's frame differs in size");
    uint8_t *a = box_alloc(n + 1), *b = box_alloc(n + 1);
    if (a == NULL || b == NULL)
        box_fuzz_fail("out of memory");
    box__alias_frame__pack(f, a);
    box__alias_frame__pack(pf, b);
    if (memcmp(a, b, n) != 0)
        box_fuzz_fail("the piecewise reader's frame differs");
    box_free(a);
    box_free(b);
}

/* What the reader must do with the frame at data[off..size). */
typedef enum fz_expect {
    FZ_END,     // no byte left: BOX_ECLOSED
    FZ_CUT,     // EOF inside the header or body: BOX_EPROTO, cut
    FZ_TOO_BIG, // length over BOX_FRAME_MAX: BOX_ETOOBIG
    FZ_BODY,    // a whole body: a frame, or BOX_EPROTO by the scan
} fz_expect;

static fz_expect
fz_next(const uint8_t *data, size_t size, size_t off, size_t *body_len)
{
    if (off == size)
        return FZ_END;
    if (size - off < 4)
        return FZ_CUT;
    uint32_t n = (uint32_t)data[off] << 24 | (uint32_t)data[off + 1] << 16 |
                 (uint32_t)data[off + 2] << 8 | data[off + 3];
    if (n > BOX_FRAME_MAX)
        return FZ_TOO_BIG;
    if (size - off - 4 < n)
        return FZ_CUT;
    *body_len = n;
    return FZ_BODY;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    // A memory file: the whole stream is there at once, with an EOF after.
    int fd = memfd_create("alias", MFD_CLOEXEC);
    if (fd < 0)
        box_fuzz_fail("memfd_create");
    for (size_t w = 0; w < size;) {
        ssize_t r = write(fd, data + w, size - w);
        if (r <= 0)
            box_fuzz_fail("write to the memory file");
        w += (size_t)r;
    }
    if (lseek(fd, 0, SEEK_SET) != 0)
        box_fuzz_fail("lseek");
    int pp[2];
    if (pipe2(pp, O_CLOEXEC | O_NONBLOCK) != 0)
        box_fuzz_fail("pipe2");
    fz_pipe pipe = {
        .fp_rd = pp[0], .fp_wr = pp[1], .fp_data = data, .fp_size = size};
    box_frame_rd_init(&pipe.fp_rd_state);

    size_t off = 0;
    for (;;) {
        size_t n = 0;
        fz_expect ex = fz_next(data, size, off, &n);
        Box__AliasFrame *f = NULL;
        box_frame_fault ff;
        box_err rv = box_frame_read(fd, BOX_FRAME_MAX, FZ_READ_MS,
                                    BOX_FRAMES_FROM_ALIAS, &f, &ff);
        if (rv != BOX_OK && f != NULL)
            box_fuzz_fail("a frame returned with an error");
        Box__AliasFrame *pf = NULL;
        box_frame_fault pff;
        box_err prv = fz_pull(&pipe, &pf, &pff);
        if (prv != BOX_OK && pf != NULL)
            box_fuzz_fail("a pulled frame returned with an error");
        fz_same(rv, f, &ff, prv, pf, &pff);
        if (pf != NULL)
            box__alias_frame__free_unpacked(pf, NULL);
        switch (ex) {
        case FZ_END:
            if (rv != BOX_ECLOSED)
                box_fuzz_fail("the clean end of the stream is not ECLOSED");
            break;
        case FZ_CUT:
            if (rv != BOX_EPROTO || !ff.ff_cut)
                box_fuzz_fail("a cut frame is not EPROTO, cut");
            break;
        case FZ_TOO_BIG:
            if (rv != BOX_ETOOBIG || ff.ff_size <= BOX_FRAME_MAX)
                box_fuzz_fail("an oversized frame is not ETOOBIG");
            break;
        case FZ_BODY: {
            box_wire_scan_result sc =
                box_wire_scan(fz_af, BOX_FRAMES_FROM_ALIAS, data + off + 4, n);
            if (sc.sr_fault == BOX_WIRE_SCAN_OK && rv != BOX_OK)
                box_fuzz_fail("the scan passed a body the reader refused");
            if (sc.sr_fault != BOX_WIRE_SCAN_OK &&
                (rv != BOX_EPROTO || ff.ff_cut ||
                 ff.ff_scan.sr_fault != sc.sr_fault))
                box_fuzz_fail("the reader did not refuse what the scan did");
            break;
        }
        }
        if (rv != BOX_OK)
            break;
        if (f->body_case != BOX__ALIAS_FRAME__BODY__NOT_SET &&
            !box_frame_is_client(f->body_case))
            box_fuzz_fail("a frame of a kind an alias may not send");
        (void)box_frame_name(f->body_case);
        fz_repack(f);
        box__alias_frame__free_unpacked(f, NULL);
        off += 4 + n;
    }
    close(fd);
    close(pipe.fp_rd);
    if (pipe.fp_wr >= 0)
        close(pipe.fp_wr);
    box_frame_rd_reset(&pipe.fp_rd_state);
    return 0;
}
