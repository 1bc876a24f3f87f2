/* SPDX-License-Identifier: Apache-2.0 */
/* An incremental parser of one HTTP/1.1 proxy request head (RFC 9112). */
#ifndef GW_HTTP_H
#define GW_HTTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_arena.h"
#include "gw_addr.h"

/*
 * The head (request line, field lines, empty line) a client sends the
 * gateway, read strictly: what is not clearly one request is refused with
 * the status to answer, so the gateway never decides on one reading of a
 * request while upstream acts on another (request smuggling). Lines end in
 * CRLF; a bare CR or LF is refused.
 *
 * Limits: the request line (without its CRLF) up to GW_HTTP_LINE_MAX bytes
 * (414 past it), each field line up to GW_HTTP_FIELD_LINE_MAX (431), the
 * whole head, empty line included, up to GW_HTTP_HEAD_MAX (431), at most
 * GW_HTTP_FIELDS_MAX field lines (431). A limit is refused as soon as the
 * bytes so far pass it, without waiting for the line's end.
 */
#define GW_HTTP_LINE_MAX 8192
#define GW_HTTP_FIELD_LINE_MAX 8192
#define GW_HTTP_HEAD_MAX 65536
#define GW_HTTP_FIELDS_MAX 100
/* An arena of this cap always holds one parse (the copies of the head's
 * bytes, the canonical path and the field table). */
#define GW_HTTP_ARENA_MAX (4 * GW_HTTP_HEAD_MAX)

/* What one call found. */
typedef enum gw_http_status {
    GW_HTTP_NOMEM = -1, // the arena is full or memory ran out: close
    GW_HTTP_MORE,       // the head is not complete: call again with more
    GW_HTTP_DONE,       // the head is complete and valid
    GW_HTTP_BAD,        // refuse with r_code and r_reason, then close
} gw_http_status;

/* The methods the gateway forwards (others: 501). ORDER GW_HTTP_METHOD:
 * the method table in gw_http.c lists them in this order. */
typedef enum gw_http_method {
    GW_HTTP_GET,
    GW_HTTP_HEAD,
    GW_HTTP_POST,
    GW_HTTP_PUT,
    GW_HTTP_DELETE,
    GW_HTTP_PATCH,
    GW_HTTP_OPTIONS,
    GW_HTTP_CONNECT,
    GW_HTTP_METHOD_COUNT
} gw_http_method;

/* The request-target's form (RFC 9112 §3.2). */
typedef enum gw_http_form {
    GW_HTTP_FORM_AUTHORITY, // CONNECT host:port
    GW_HTTP_FORM_ABSOLUTE,  // http://host[:port]/path?q (https:// in a tunnel)
    GW_HTTP_FORM_ORIGIN,    // /path?q, only inside an intercepted tunnel
} gw_http_form;

/* One field line as sent (name case kept; value without its OWS). Both are
 * NUL-terminated copies in the arena. */
typedef struct gw_http_field {
    const char *f_name;
    size_t f_name_len;
    const char *f_value;
    size_t f_value_len;
} gw_http_field;

/* A complete request head. Every pointer is into the caller's arena. */
typedef struct gw_http_req {
    gw_http_method rq_method;
    const char *rq_method_name; // "GET", static
    unsigned rq_minor;          // HTTP/1.<minor>: 0 or 1
    gw_http_form rq_form;
    /* The destination: the target's authority (CONNECT, absolute-form) or
     * the Host field's (origin-form); rq_has_authority is false only for an
     * HTTP/1.0 origin-form request without Host. */
    bool rq_has_authority;
    gw_authority rq_authority;
    /* http:request's path (box-spec §4): RFC 3986 §6.2.2 normalized,
     * starting with '/'; NULL for CONNECT. The query as sent, without its
     * '?'; NULL when the target has no '?'. */
    const char *rq_path;
    size_t rq_path_len;
    const char *rq_query;
    size_t rq_query_len;
    gw_http_field *rq_fields; // every field line, in order
    size_t rq_nfields;
    bool rq_has_content_length;
    uint64_t rq_content_length;
    bool rq_chunked;           // Transfer-Encoding: chunked
    bool rq_keep_alive;        // Connection, with the version's default
    bool rq_expect_continue;   // Expect: 100-continue (HTTP/1.1)
    const char *rq_proxy_auth; // Proxy-Authorization's value, or NULL
    size_t rq_proxy_auth_len;
} gw_http_req;

/* What a call returns; r_req and r_reason stay valid until the arena is
 * reset. */
typedef struct gw_http_result {
    gw_http_status r_status;
    size_t r_used;            // DONE: bytes of the head (the body follows)
    int r_code;               // BAD: 400, 414, 431, 501 or 505
    const char *r_reason;     // BAD: one line, never empty
    const gw_http_req *r_req; // DONE
} gw_http_result;

typedef struct gw_http_opts {
    /* The head arrives inside a CONNECT tunnel the gateway intercepts:
     * origin-form targets (and https:// absolute-form) are the norm there,
     * and a refusal elsewhere. */
    bool ho_intercepted;
} gw_http_opts;

typedef struct gw_http_parser gw_http_parser;

/* A parser living in a (freed with it; a's cap should be at least
 * GW_HTTP_ARENA_MAX). NULL when a cannot hold it. */
gw_http_parser *gw_http_parser_new(box_arena *a, const gw_http_opts *opts);

/*
 * Parses buf[0..len): the bytes received so far on the connection,
 * starting at the head's first byte. Each call passes the same bytes as
 * the last and maybe more (buf may move; nothing is kept pointing into
 * it). The answer depends only on the bytes, never on how they were split
 * between calls. After DONE, BAD or NOMEM every call returns the same.
 * Empty lines before the request line are skipped (RFC 9112 §2.2) and
 * counted in r_used.
 */
gw_http_result gw_http_parse(gw_http_parser *p, const char *buf, size_t len);

/*
 * The canonical form of a URL path s[0..n) (which starts with '/'; ""
 * is "/"), written to out (n + 2 bytes; NUL-terminated) with its length in
 * *out_len: RFC 3986 §6.2.2 — percent-encodings uppercased, those of
 * unreserved characters decoded, dot segments removed (§5.2.4). "%2F" stays
 * encoded; "//" stays. BOX_EINVAL with *why for a bad percent-encoding, an
 * encoded NUL or a byte not allowed in a path.
 */
box_err gw_http_path_canon(const char *s, size_t n, char *out, size_t *out_len,
                           const char **why) BOX_WARN_UNUSED;

#endif
