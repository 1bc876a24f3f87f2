/* SPDX-License-Identifier: Apache-2.0 */
/* The answers the gateway makes itself: refusals and failures (box-spec §6). */
#ifndef GW_ANSWER_H
#define GW_ANSWER_H

#include <stdbool.h>

#include "box_buf.h"

/*
 * Which answer. ORDER GW_ANSWER: answer_tab in gw_answer.c follows it.
 * Only the gateway's own refusals carry `x-strands-box-egress: refused`
 * (the shell's curl and agents read it as "policy said no", never as the
 * upstream's answer); failures on the way to upstream do not.
 */
typedef enum gw_answer_kind {
    GW_ANSWER_REFUSED,      // 403, marked: policy, default-deny, control
    GW_ANSWER_PROXY_AUTH,   // 407, marked: bad or missing proxy token
    GW_ANSWER_BAD_GATEWAY,  // 502: upstream connect, TLS, response, I/O
    GW_ANSWER_UNAVAILABLE,  // 503: configuration, or no connection free
    GW_ANSWER_BAD_REQUEST,  // the head parser's own status (400, 414, ...)
    GW_ANSWER_TIMEOUT,      // 408: the client was too slow
    GW_ANSWER_TOO_LARGE,    // 413: the body passes the limit
    GW_ANSWER_KIND_COUNT
} gw_answer_kind;

/*
 * Appends a whole response to out: status line (code is used only for
 * GW_ANSWER_BAD_REQUEST, which takes the parser's), the marker where the
 * kind has one, `content-type: text/plain; charset=utf-8`,
 * `content-length`, `connection: close` unless keep_alive, and body =
 * reason plus "\n". The reason is one line: a CR or LF in it ends it (it
 * may hold a policy's text). BOX_ETOOBIG / BOX_ENOMEM from the buffer.
 */
box_err gw_answer(box_buf *out, gw_answer_kind kind, int code,
                  const char *reason, bool keep_alive) BOX_WARN_UNUSED;

/* The reason phrase of a status the gateway sends ("" when unknown). */
const char *gw_answer_phrase(int code);

#endif
