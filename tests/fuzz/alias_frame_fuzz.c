/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target alias_frame: the bytes a hostile alias sends the broker. */
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
    return 0;
}
