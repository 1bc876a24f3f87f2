/* SPDX-License-Identifier: Apache-2.0 */
/* The shell's one HTTP client (box-spec §3.12), shared by curl and wget:
 * the SSRF floor, the gateway's tunnel and the transfer. Each command
 * words the outcomes itself; none of them is decided here twice. */
#ifndef CMD_HTTP_H
#define CMD_HTTP_H

#include <stdbool.h>
#include <stddef.h>

#include "box_err.h"

struct curl_slist;
typedef struct sh_ctx sh_ctx;

/* Where one URL goes once the floor let it: libcurl's own parse of it,
 * so the host the floor checked is the host the request names. */
typedef struct http_target {
    struct Curl_URL *ct_url; // CURLU, owned
    bool ct_https;
    char *ct_scheme;    // lowercase, owned
    char *ct_authority; // host:port for CONNECT ([v6]:port), owned
} http_target;

/*
 * The SSRF floor (check_url_safe), before any connection: BOX_OK with t
 * filled (free with http_target_clear), BOX_EDENIED with *reason (the
 * caller's) the spec's exact text, `access denied: …`; BOX_ENOMEM.
 */
box_err http_floor(const char *url, http_target *t,
                   char **reason) BOX_WARN_UNUSED;
void http_target_clear(http_target *t);

/* http_tunnel's results. */
typedef enum http_tunnel_rc {
    HTTP_TUNNEL_OK,      // 200: the socket now reaches the host
    HTTP_TUNNEL_REFUSED, // 403 marked x-strands-box-egress: *reason
    HTTP_TUNNEL_TIMEOUT, // the deadline passed
    HTTP_TUNNEL_BROKEN,  // anything else: *reason the answer's body, if any
    HTTP_TUNNEL_NOMEM,
} http_tunnel_rc;

/* `CONNECT authority` on sock (connected to the gateway) by deadline_ms
 * (CLOCK_MONOTONIC ms). *reason (the caller's) is a non-200 answer's body
 * (REFUSED always has one; BROKEN may), else NULL. */
http_tunnel_rc http_tunnel(int sock, const char *authority, long deadline_ms,
                           char **reason);

/* CLOCK_MONOTONIC in ms. */
long http_now_ms(void);

#define HTTP_BODY_MAX (64u * 1024u) // §3.12: a longer body is refused
#define HTTP_HEAD_MAX (64u << 10)   // one response's head

/* What a hop reports as the transfer goes. */
typedef enum http_hop_kind {
    HTTP_HOP_ASK,    // the floor let hh_url through; the gateway is next
    HTTP_HOP_ANSWER, // a response came (never a marked refusal)
} http_hop_kind;

/* One hop as its command may show it (all borrowed for the call). */
typedef struct http_hop {
    http_hop_kind hh_kind;
    const char *hh_url;
    const http_target *hh_target;
    long hh_code;        // ANSWER: the status
    const char *hh_head; // ANSWER: the head as it came, CRLF lines
    size_t hh_head_len;
    const char *hh_location; // ANSWER: the redirect to be followed, or NULL
} http_hop;

typedef void (*http_hop_fn)(void *arg, const http_hop *hop);

/* The request as a command's options built it (all borrowed). Redirect
 * hops carry no body, method, cookies or credentials (§3.12): each is a
 * GET (a HEAD with hr_nobody), floored and dialed again. */
typedef struct http_req {
    const char *hr_method;         // NULL: GET, or POST with a body
    struct curl_slist *hr_headers; // "Name: value" lines
    const char *hr_body;           // or NULL
    size_t hr_body_len;
    const char *hr_cookie, *hr_user;   // NAME=VALUE; user:password
    const char *hr_agent;              // the User-Agent (required)
    bool hr_nobody;                    // a HEAD: no body is read
    bool hr_insecure;                  // the gateway's certificate unchecked
    bool hr_verbose;                   // libcurl's lines on stderr, as curl -v
    int hr_max_redirs;                 // -1: a 3xx is the answer
    long hr_timeout_ms;                // 0: the call's own bound
    unsigned hr_proto, hr_proto_redir; // CURLPROTO_* bits allowed
    http_hop_fn hr_on_hop;             // or NULL
    void *hr_hop_arg;
} http_req;

/* How a transfer ended. ORDER HTTP_OUTCOME: curl's and wget's tables. */
typedef enum http_outcome {
    HTTP_DONE,       // a response (any status): hs_code, hs_head, hs_body
    HTTP_FLOOR,      // the SSRF floor: hs_detail `access denied: …`
    HTTP_REFUSED,    // the gateway's marked refusal: hs_detail its reason
    HTTP_PROTO,      // the scheme hs_detail is not allowed (hr_proto*)
    HTTP_NO_NETWORK, // the box has no gateway
    HTTP_NO_CA,      // the run's CA was not read when the shell started
    HTTP_NO_GATEWAY, // the gateway could not be reached: hs_detail
    HTTP_NO_TUNNEL,  // it opened no tunnel: hs_detail why
    HTTP_TIMEOUT,    // hr_timeout_ms (or the call's bound) passed
    HTTP_TRANSPORT,  // libcurl's failure: hs_detail
    HTTP_TLS,        // the gateway's certificate did not verify: hs_detail
    HTTP_TOO_BIG,    // the body passed HTTP_BODY_MAX
    HTTP_REDIRS,     // a redirect past hr_max_redirs
    HTTP_STOPPED,    // the call itself ended (the shell says why)
    HTTP_NOMEM,
    HTTP_OUTCOMES
} http_outcome;

/* What a transfer gives back (free with http_result_clear). */
typedef struct http_result {
    http_outcome hs_outcome;
    char *hs_detail; // see http_outcome, else NULL
    char *hs_url;    // the last URL asked
    long hs_code;    // the last response's status, 0: none
    char *hs_ctype;  // its Content-Type, or NULL
    char *hs_head;   // DONE: its head
    size_t hs_head_len;
    char *hs_body; // DONE: its body (never a marked refusal's)
    size_t hs_body_len;
} http_result;

/* Runs the request for url (the floor first, every hop again) and fills
 * res. The gateway (sh_host_opts) is the only way out. */
void http_run(sh_ctx *cx, const char *url, const http_req *rq,
              http_result *res);
void http_result_clear(http_result *res);

/* How a command words one outcome: a row of its table (ORDER
 * HTTP_OUTCOME). The message is lead, then the detail (or fallback when
 * there is none), then tail; a NULL lead is no message. */
typedef struct http_say {
    int hy_status;  // the command's exit status
    bool hy_always; // printed even when the command is quiet
    const char *hy_lead, *hy_fallback, *hy_tail;
} http_say;

/* The message of res's outcome by tab (the caller frees it), or NULL
 * (none, or out of memory). */
char *http_outcome_text(const http_say *tab, const http_result *res);

/* The reason phrase of a head's status line ("Not Found"), its length in
 * *n; "" when it has none. */
const char *http_reason(const char *head, size_t len, size_t *n);

#endif
