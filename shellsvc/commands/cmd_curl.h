/* SPDX-License-Identifier: Apache-2.0 */
/* curl's parts (box-spec §3.12): the SSRF floor and the transfer. */
#ifndef CMD_CURL_H
#define CMD_CURL_H

#include <stdbool.h>
#include <stddef.h>

#include "box_err.h"

#define CURL_PROTO_BOTH (CURLPROTO_HTTP | CURLPROTO_HTTPS) // needs curl.h

struct curl_slist;
typedef struct sh_ctx sh_ctx;

/* Where one URL goes once the floor let it: libcurl's own parse of it,
 * so the host the floor checked is the host the request names. */
typedef struct curl_target {
    struct Curl_URL *ct_url; // CURLU, owned
    bool ct_https;
    char *ct_scheme;    // lowercase, owned
    char *ct_authority; // host:port for CONNECT ([v6]:port), owned
} curl_target;

/*
 * The SSRF floor (check_url_safe), before any connection: BOX_OK with t
 * filled (free with curl_target_clear), BOX_EDENIED with *reason (the
 * caller's) the spec's exact text, `access denied: …`; BOX_ENOMEM.
 */
box_err curl_floor(const char *url, curl_target *t,
                   char **reason) BOX_WARN_UNUSED;
void curl_target_clear(curl_target *t);

/* curl_tunnel's results. */
typedef enum curl_tunnel_rc {
    CURL_TUNNEL_OK,      // 200: the socket now reaches the host
    CURL_TUNNEL_REFUSED, // 403 marked x-strands-box-egress: *reason
    CURL_TUNNEL_TIMEOUT, // the deadline passed
    CURL_TUNNEL_BROKEN,  // anything else: *reason the answer's body, if any
    CURL_TUNNEL_NOMEM,
} curl_tunnel_rc;

/* `CONNECT authority` on sock (connected to the gateway) by deadline_ms
 * (CLOCK_MONOTONIC ms). *reason (the caller's) is a non-200 answer's body
 * (REFUSED always has one; BROKEN may), else NULL. */
curl_tunnel_rc curl_tunnel(int sock, const char *authority, long deadline_ms,
                           char **reason);

/* CLOCK_MONOTONIC in ms. */
long curl_now_ms(void);

/* The request as the options built it (all borrowed). */
typedef struct curl_req {
    const char *cr_method;         // -X, or NULL
    struct curl_slist *cr_headers; // -H, and --json's
    const char *cr_body;           // -d/--json joined, or NULL
    size_t cr_body_len;
    const char *cr_cookie, *cr_user, *cr_agent;
    bool cr_fail, cr_location, cr_include, cr_insecure, cr_verbose;
    bool cr_silent, cr_show_error;
    long cr_timeout_ms;                // -m, 0: none but the call's
    unsigned cr_proto, cr_proto_redir; // CURL_PROTO_* bits allowed
} curl_req;

/* What the transfer gives back to print. */
typedef struct curl_result {
    int cs_status;  // the command's exit status
    char *cs_msg;   // the line for stderr after "curl: ", or NULL
    bool cs_always; // it prints even with -s (a refusal)
    char *cs_out;   // headers (with -i) and the body, to print
    size_t cs_out_len;
    long cs_code;   // the last response's status, 0: none
    char *cs_ctype; // its Content-Type, or NULL
    char *cs_url;   // the last URL asked
    size_t cs_size; // its body's size
} curl_result;

#define CURL_BODY_MAX (64u * 1024u) // §3.12: a longer body is refused

/* Runs the request for url (the floor first, hops again) and fills res
 * (free with curl_result_clear). */
void curl_run(sh_ctx *cx, const char *url, const curl_req *rq,
              curl_result *res);
void curl_result_clear(curl_result *res);

/* --proto's list over base (CURLPROTO_* bits): false when it is bad. */
bool curl_proto_list(const char *list, unsigned base, unsigned *out);

#endif
