/* SPDX-License-Identifier: Apache-2.0 */
/* Length-prefixed AliasFrame messages on a stream socket, with deadlines. */
#ifndef BOX_FRAME_H
#define BOX_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box.pb-c.h"
#include "box_err.h"
#include "box_wire_scan.h"

/*
 * A frame is a 4-byte big-endian length, then that many bytes of one
 * packed Box__AliasFrame. nng's REQ/REP cannot stream and PAIR serves one
 * peer at a time, so the alias connection is a plain Unix stream socket
 * carrying these frames.
 */

/*
 * Which frames each reader accepts, by body case (box-spec §2, ARCHITECTURE
 * §3). A reader passes its set to box_frame_read, which refuses any other
 * kind before its body is looked at: the broker reading the alias takes
 * only what an alias sends, the alias only what the broker answers, and
 * the worker channel only its own frames in each direction. A frame with
 * no body passes (each reader answers it itself).
 */
#define BOX_FRAME_KIND(c) BOX_WIRE_SCAN_KIND(BOX__ALIAS_FRAME__BODY_##c)
#define BOX_FRAMES_FROM_ALIAS                                                  \
    (BOX_FRAME_KIND(OPEN) | BOX_FRAME_KIND(CALL) | BOX_FRAME_KIND(INPUT) |     \
     BOX_FRAME_KIND(INPUT_EOF) | BOX_FRAME_KIND(SIGNAL) |                      \
     BOX_FRAME_KIND(CLOSE))
#define BOX_FRAMES_TO_ALIAS                                                    \
    (BOX_FRAME_KIND(OUTPUT) | BOX_FRAME_KIND(EXIT) | BOX_FRAME_KIND(DENIED) |  \
     BOX_FRAME_KIND(INPUT_WANTED))
#define BOX_FRAMES_FROM_WORKER                                                 \
    (BOX_FRAME_KIND(OUTPUT) | BOX_FRAME_KIND(EXIT) | BOX_FRAME_KIND(DECIDE) |  \
     BOX_FRAME_KIND(LAUNCH) | BOX_FRAME_KIND(SERVED) |                         \
     BOX_FRAME_KIND(OUTCOMES) | BOX_FRAME_KIND(DIAL) |                         \
     BOX_FRAME_KIND(INPUT_WANTED))
#define BOX_FRAMES_TO_WORKER                                                   \
    (BOX_FRAME_KIND(CALL) | BOX_FRAME_KIND(ANSWER) |                           \
     BOX_FRAME_KIND(LAUNCHED) | BOX_FRAME_KIND(DIALED))

/* Why box_frame_read gave no frame, for the reader's answer. */
typedef struct box_frame_fault {
    uint32_t ff_size; // BOX_ETOOBIG: the announced size
    bool ff_cut;      // BOX_EPROTO: an EOF cut the frame short
    /* BOX_EPROTO, not cut: why the bytes were refused (REFUSED: sr_field
     * is the frame's body case). */
    box_wire_scan_result ff_scan;
} box_frame_fault;

/* Writes one frame; timeout_ms bounds the whole frame, not each wait.
 * BOX_ETIMEDOUT, BOX_ECLOSED (peer gone), BOX_ETOOBIG (packed size over
 * max), BOX_EIO. */
box_err box_frame_write(int fd, const Box__AliasFrame *f, size_t max,
                        int timeout_ms) BOX_WARN_UNUSED;
/* Writes frames f[0..n) back to back in one send where they fit: a call's
 * first frames cost the peer one wake-up, not one each. Each is bounded
 * by max (BOX_ETOOBIG: none was written); otherwise as box_frame_write. */
box_err box_frame_write_many(int fd, const Box__AliasFrame *const *f, size_t n,
                             size_t max, int timeout_ms) BOX_WARN_UNUSED;

/*
 * Reads one frame of a kind in `accept` (BOX_FRAMES_*). timeout_ms bounds
 * the whole frame, from this call to its last byte, so a peer that sends a
 * byte now and then cannot hold the reader longer. The bytes go through
 * box_wire_scan_unpack: nesting is bounded and a refused kind is never
 * decoded. On BOX_OK the caller owns *out and frees it with
 * box__alias_frame__free_unpacked(*out, NULL). BOX_ETOOBIG when the
 * announced size is over max (the stream is then unusable); BOX_EPROTO
 * when the bytes are refused (*fault says why) or a frame is cut by an
 * EOF; BOX_ECLOSED at a clean EOF before any byte of a frame. fault may be
 * NULL.
 */
box_err box_frame_read(int fd, size_t max, int timeout_ms, uint64_t accept,
                       Box__AliasFrame **out,
                       box_frame_fault *fault) BOX_WARN_UNUSED;

/*
 * A frame read piece by piece from a descriptor that must never hold its
 * reader (the broker's loop during a call: a half-sent frame waits there
 * while the loop serves the worker). Owned by the caller; zero it with
 * box_frame_rd_init and free what it holds with box_frame_rd_reset.
 */
typedef struct box_frame_rd {
    uint8_t fr_hdr[4];
    size_t fr_got;   // bytes of the current frame so far, header included
    uint32_t fr_len; // the body's announced size, once the header is in
    uint8_t *fr_buf; // the body, once the header is in
} box_frame_rd;

void box_frame_rd_init(box_frame_rd *r);
void box_frame_rd_reset(box_frame_rd *r);

/*
 * Reads what fd has ready (never waiting) towards one frame of a kind in
 * accept, with box_frame_read's checks and outcomes: BOX_OK with *out the
 * frame (the caller's), or BOX_OK with *out NULL when it is not whole yet
 * (call again once fd is readable); BOX_ECLOSED at a clean EOF between
 * frames; BOX_EPROTO (a frame cut by an EOF, or refused: *fault says why),
 * BOX_ETOOBIG, BOX_ENOMEM, BOX_EIO, after which the stream is unusable.
 */
box_err box_frame_pull(int fd, box_frame_rd *r, size_t max, uint64_t accept,
                       Box__AliasFrame **out,
                       box_frame_fault *fault) BOX_WARN_UNUSED;

/* The wire name of a frame type ("open", "call", …, "denied"); "empty"
 * for a frame with no body. */
const char *box_frame_name(Box__AliasFrame__BodyCase c);

/* True for the frame types only a client (the alias) sends. */
bool box_frame_is_client(Box__AliasFrame__BodyCase c);

/* Raw helpers for tests and for callers that frame other bytes. */
box_err box_frame_write_bytes(int fd, const void *p, size_t n,
                              int timeout_ms) BOX_WARN_UNUSED;

#endif
