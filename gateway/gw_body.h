/* SPDX-License-Identifier: Apache-2.0 */
/* HTTP/1.1 message bodies: a request body's framing read, a chunk written. */
#ifndef GW_BODY_H
#define GW_BODY_H

#include <stddef.h>
#include <stdint.h>

#include "box_arena.h"
#include "gw_http.h"

/*
 * The request body a client sends after a head gw_http_parse accepted,
 * read as the head frames it (RFC 9112 §6.3): Content-Length N (N bytes),
 * Transfer-Encoding: chunked (§7.1), or neither (no body). The decoder
 * hands back the payload only, so the gateway forwards bytes it has
 * framed itself and upstream never sees the client's framing.
 *
 * Chunked is read strictly: a chunk size is hex digits only (no sign, no
 * "0x", no whitespace before it); whitespace may sit only before ';' or
 * '=' of a chunk extension (BWS); an extension is ;name[=token or
 * quoted-string]; every line ends in CRLF (a bare CR or LF is refused:
 * request smuggling); trailer fields are checked for shape (no obsolete
 * folding) and dropped. A refusal is found at the first byte that cannot
 * belong to a valid body, so the answer and the payload depend only on
 * the bytes, never on how they were split between calls.
 *
 * Limits (400 past each, refused at the first byte over, without waiting
 * for the line's end):
 *   GW_BODY_CHUNK_LINE_MAX  bytes of one chunk-size line before its CRLF
 *                           (size digits, leading zeros and extensions);
 *   GW_BODY_CHUNK_EXTRA_MAX bytes of all the body's chunk-size lines but
 *                           the sizes' significant digits (leading zeros,
 *                           whitespace, extensions): the framing a client
 *                           may send per payload byte stays small;
 *   GW_BODY_TRAILER_MAX     bytes of all trailer field lines, each with
 *                           its CRLF (the final empty line not counted);
 *   a chunk size must fit in 64 bits (more is "too large", 400).
 * The payload limit is the caller's (413 past it), clamped to GW_BODY_MAX
 * so a body's size is always a Cedar Long (http:request's body_bytes): a
 * Content-Length over it is refused before any byte, a chunk whose size
 * would take the payload over it as soon as its size is read, before any
 * of its data.
 */
#define GW_BODY_CHUNK_LINE_MAX 4096
#define GW_BODY_CHUNK_EXTRA_MAX 65536
#define GW_BODY_TRAILER_MAX 8192
#define GW_BODY_MAX ((uint64_t)INT64_MAX)

/* What one call found. */
typedef enum gw_body_status {
    GW_BODY_MORE, // the body is not complete: call again with more bytes
    GW_BODY_DONE, // the body is complete; input past br_used is the next
                  // request's (keep-alive)
    GW_BODY_BAD,  // refuse with br_code and br_reason, then close
} gw_body_status;

/* What a call returns; br_reason stays valid as long as the decoder. */
typedef struct gw_body_result {
    gw_body_status br_status;
    size_t br_used;        // input bytes consumed by this call
    size_t br_out;         // payload bytes written to out by this call
    int br_code;           // BAD: 400 (malformed) or 413 (over the limit)
    const char *br_reason; // BAD: one line, never empty
} gw_body_result;

typedef struct gw_body_dec gw_body_dec;

/* A decoder, living in a, for the body rq's head frames (chunked,
 * Content-Length or none) with at most max payload bytes. NULL when a
 * cannot hold it. */
gw_body_dec *gw_body_dec_new(box_arena *a, const gw_http_req *rq, uint64_t max);

/*
 * Reads in[0..in_len), the bytes that follow what earlier calls used, and
 * writes the payload in them to out (at most out_cap bytes). out may be in
 * itself (decoding in place: the payload moves down over its framing, and
 * no input byte is overwritten before it is read); otherwise the two must
 * not overlap. in may be NULL when in_len is 0.
 *
 * MORE: every input byte was used, unless out filled first (then br_out
 * == out_cap and the rest of in is for the next call). DONE: br_used
 * bytes ended the body; the bytes after them were neither read nor
 * written (decoding in place too). BAD: br_out holds the payload that
 * came before the refused byte, none after it. Once DONE or BAD, every
 * call returns the same with nothing used or written.
 *
 * The answer for a body that needs no byte comes with in_len 0: DONE for
 * no body or Content-Length 0, BAD 413 for a Content-Length over max
 * (before the gateway sends 100 Continue or reads any byte).
 *
 * A loop that reads into buf and decodes in place:
 *   r = gw_body_feed(d, buf, n, buf, n);
 *   forward buf[0..r.br_out) upstream;
 *   BAD: answer r.br_code, r.br_reason and close;
 *   DONE: buf[r.br_used..n) starts the next request's head.
 */
gw_body_result gw_body_feed(gw_body_dec *d, const char *in, size_t in_len,
                            char *out, size_t out_cap);

/* Payload bytes handed out so far; at DONE the body's exact size. */
uint64_t gw_body_dec_bytes(const gw_body_dec *d);

/*
 * The chunked encoder, for a response body the gateway re-frames for an
 * HTTP/1.1 client when upstream did not give its length: each chunk is
 * gw_body_chunk_head(n), n payload bytes, GW_BODY_CRLF; the body ends
 * with GW_BODY_LAST_CHUNK (no trailers).
 */
#define GW_BODY_CRLF "\r\n"
#define GW_BODY_LAST_CHUNK "0\r\n\r\n"
/* Room for the longest chunk head: 16 hex digits, CRLF and a NUL. */
#define GW_BODY_CHUNK_HEAD_MAX 19

/* Writes "<n in lowercase hex>\r\n" and a NUL to out; returns its length
 * without the NUL. n must not be 0 (that line would end the body): 0
 * writes "" and returns 0. */
size_t gw_body_chunk_head(size_t n, char out[GW_BODY_CHUNK_HEAD_MAX]);

#endif
