/* SPDX-License-Identifier: Apache-2.0 */
/* The proxy's internals, shared by its loops (gw_proxy.c) and their
 * connections (gw_conn.c). */
#ifndef GW_PROXY_INT_H
#define GW_PROXY_INT_H

#include <curl/curl.h>
#include <openssl/ssl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "box_arena.h"
#include "box_buf.h"
#include "gw_cred.h"
#include "gw_decide.h"
#include "gw_http.h"
#include "gw_proxy.h"
#include "gw_seen.h"

/* What an epoll event's data points at: every registered thing starts
 * with one of these. */
typedef enum gw_tag_kind {
    GW_TAG_LISTEN,
    GW_TAG_DECIDER,
    GW_TAG_CONN,
    GW_TAG_CURL,
    GW_TAG_WAKE,
    GW_TAG_DEAD, // freed at the end of the event batch (gw_px_bury)
} gw_tag_kind;

typedef struct gw_tag {
    gw_tag_kind t_kind;
    int t_fd;
} gw_tag;

/* Where a connection is. */
typedef enum gw_conn_state {
    GW_CS_HEAD,     // reading a request head
    GW_CS_BODY,     // reading its body
    GW_CS_JOB,      // a decision / connect job runs
    GW_CS_TLS,      // the client's TLS handshake, inside a CONNECT tunnel
    GW_CS_UPSTREAM, // libcurl runs the exchange
    GW_CS_CLOSING,  // sending what is left, then closing
} gw_conn_state;

typedef struct gw_conn gw_conn;
typedef struct gw_loop gw_loop;

/* A byte queue: data[off, len) waits to be sent. */
typedef struct gw_queue {
    box_buf q_buf;
    size_t q_off;
} gw_queue;

struct gw_conn {
    gw_tag c_tag; // GW_TAG_CONN; c_tag.t_fd is the client socket
    gw_loop *c_px;
    gw_conn *c_prev, *c_next;
    gw_conn_state c_state;
    uint32_t c_events;    // registered epoll events
    uint64_t c_deadline;  // ms on the monotonic clock; 0: none
    bool c_peer_closed;   // the client sent EOF
    bool c_job_running;   // c_job belongs to the decider now
    bool c_dead;          // closed while its job ran: free when it returns
    bool c_needs_auth;    // came in on the TCP listener

    box_buf c_in; // bytes read, not yet used
    gw_queue c_out;

    /* The request being served. */
    box_arena *c_arena; // the head parser's (reset per request)
    gw_http_parser *c_parser;
    const gw_http_req *c_req;
    size_t c_head_len;
    box_buf c_body;          // the decoded body
    struct gw_body_dec *c_bdec; // in c_arena
    size_t c_body_off;       // bytes of c_in the decoder has used
    gw_job c_job;         // http:request
    bool c_http_decided;  // c_job permitted this request
    bool c_keep_alive;

    /* Where upstream is: the net:connect step's job and the addresses it
     * pinned (a tunnel's, or this request's). */
    gw_job c_connect;
    gw_pins c_pins;

    /* CONNECT: the tunnel's authority; the upstream socket a job connected
     * (a tunnel's before its 200, or when policy reads how a connect went)
     * until libcurl takes it or finds a connection it keeps to the same
     * address; and the client's TLS once the 200 is sent. */
    bool c_tunnel;
    bool c_tunnel_connect; // its connect is made before the 200 (gw_seen.h)
    gw_authority c_tunnel_auth;
    int c_up_fd;
    SSL *c_ssl;
    bool c_ssl_want_write;
    // The last read of c_ssl wanted bytes the socket had not sent: what
    // OpenSSL holds is at most part of a record, and EPOLLIN says when
    // the rest comes. Else it may hold whole records (read-ahead).
    bool c_ssl_starved;

    /* libcurl's exchange. */
    CURL *c_easy;
    struct curl_slist *c_hdrs;
    struct curl_slist *c_connect_to;
    int c_up_given; // the connected socket handed to libcurl, or -1
    bool c_up_new;  // libcurl opened a connection for this exchange
    char c_errbuf[CURL_ERROR_SIZE];
    bool c_resp_started; // the response head went to the client
    bool c_outcome_sent; // the exchange's outcome went to the PDP
    bool c_resp_chunked;
    bool c_resp_no_body;
    bool c_paused;
    long c_resp_code;
    box_buf c_resp_head;

    /* A request a credential route carries: what changes upstream, and
     * the scrubbing of its answer. */
    bool c_cred_on;
    bool c_resp_blocked; // a compressed answer to a credentialed request
    gw_cred_edit c_cred;
    gw_scrub c_scrub;
    box_buf c_scrubbed; // one write's scrubbed bytes, before framing
};

/* One event loop's state: only its thread touches it, but for what the
 * loops share (the listening sockets, the count of connections, the job
 * pool, and what the options lend: the PDP client, the CA, the credential
 * routes). Each loop has its own connections, libcurl and upstream
 * connection cache; a connection stays on the loop that accepted it. */
struct gw_loop {
    int px_epfd;
    gw_tag px_listen[2];
    gw_tag px_decider_tag;
    gw_tag px_wake;         // eventfd: gw_proxy_stop
    gw_decider *px_decider; // the proxy's, shared
    unsigned px_sink;       // this loop's place in it
    box_pdp_client *px_pdp;
    gw_ca *px_ca;
    const char *px_upstream_ca; // CA file for upstream TLS, or NULL
    const char *px_proxy_auth;  // what a TCP client must send, or NULL
    const gw_creds *px_creds;   // credential routes, or NULL
    CURLM *px_multi;
    uint64_t px_curl_deadline; // 0: none
    gw_conn *px_conns;
    /* What was closed while an event batch ran: a later event of the same
     * batch may still name it, so it is freed once the batch is done. */
    gw_conn *px_dead_conns;
    struct gw_curl_tag *px_dead_tags;
    gw_seen px_seen;             // upstreams that answered lately
    _Atomic unsigned *px_nconns; // every loop's connections, the proxy's
    unsigned px_conns_max;
    size_t px_body_max;
    int px_head_ms, px_idle_ms, px_stall_ms;
    pthread_t px_thread;
    bool px_thread_started;
};

uint64_t gw_now_ms(void);

/* gw_conn.c: one connection's life. */
gw_conn *gw_conn_new(gw_loop *px, int fd, bool needs_auth);
void gw_conn_on_io(gw_conn *c, uint32_t events);
void gw_conn_on_job(gw_conn *c, gw_job *j);
void gw_conn_on_curl_done(gw_conn *c, CURLcode rc);
void gw_conn_on_timeout(gw_conn *c);
void gw_conn_free(gw_conn *c);

/* gw_proxy.c: what a connection asks of the loop. */
void gw_px_watch(gw_loop *px, gw_conn *c, uint32_t events);
void gw_px_unlink(gw_loop *px, gw_conn *c);
/* c (unlinked, its fd closed) is freed after the current event batch. */
void gw_px_bury(gw_loop *px, gw_conn *c);

#endif
