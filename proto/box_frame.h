/* SPDX-License-Identifier: Apache-2.0 */
/* Length-prefixed AliasFrame messages on a stream socket, with deadlines. */
#ifndef BOX_FRAME_H
#define BOX_FRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box.pb-c.h"
#include "box_err.h"

/*
 * A frame is a 4-byte big-endian length, then that many bytes of one
 * packed Box__AliasFrame. nng's REQ/REP cannot stream and PAIR serves one
 * peer at a time, so the alias connection is a plain Unix stream socket
 * carrying these frames.
 */

/* Writes one frame within timeout_ms. BOX_ETIMEDOUT, BOX_ECLOSED (peer
 * gone), BOX_ETOOBIG (packed size over max), BOX_EIO. */
box_err box_frame_write(int fd, const Box__AliasFrame *f, size_t max,
                        int timeout_ms) BOX_WARN_UNUSED;

/* Reads one frame within timeout_ms (each read waits at most that long
 * for bytes). On BOX_OK the caller owns *out and frees it with
 * box__alias_frame__free_unpacked(*out, NULL). BOX_ETOOBIG reports the
 * announced size in *size_out (the stream is then unusable); BOX_EPROTO
 * when the bytes do not decode; BOX_ECLOSED at a clean EOF before any
 * byte of a frame, BOX_EPROTO at an EOF inside one. */
box_err box_frame_read(int fd, size_t max, int timeout_ms,
                       Box__AliasFrame **out, uint32_t *size_out) BOX_WARN_UNUSED;

/* The wire name of a frame type ("open", "call", …, "denied"); "empty"
 * for a frame with no body. */
const char *box_frame_name(Box__AliasFrame__BodyCase c);

/* True for the frame types only a client (the alias) sends. */
bool box_frame_is_client(Box__AliasFrame__BodyCase c);

/* Raw helpers for tests and for callers that frame other bytes. */
box_err box_frame_write_bytes(int fd, const void *p, size_t n,
                              int timeout_ms) BOX_WARN_UNUSED;

#endif
