/* SPDX-License-Identifier: Apache-2.0 */
/* One client connection of the proxy: read a request, have it decided,
 * run it upstream with libcurl, send the answer back. */
#include "gw_proxy_int.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_log.h"
#include "gw_body.h"
#include "gw_ca.h"

#define GW_SVC "box-gateway"
#define GW_READ_CHUNK 16384
/* libcurl is paused while this much waits for a slow client, and
 * resumed once it is down to the low mark: a fast upstream cannot fill
 * the gateway's memory. */
#define GW_OUT_HIGH (256u << 10)
#define GW_OUT_LOW (64u << 10)
#define GW_OUT_MAX (1u << 30) // never reached: libcurl pauses far below
#define GW_RESP_HEAD_MAX (64u << 10)

static const char established[] = "HTTP/1.1 200 Connection established\r\n\r\n";

/* ---- the byte queue ---- */

static size_t
q_pending(const gw_queue *q)
{
    return q->q_buf.b_len - q->q_off;
}

static box_err
q_put(gw_queue *q, const void *p, size_t n)
{
    if (q->q_off > 0 && q->q_off == q->q_buf.b_len) {
        box_buf_truncate(&q->q_buf, 0);
        q->q_off = 0;
    }
    return box_buf_append(&q->q_buf, p, n);
}

static void
q_used(gw_queue *q, size_t n)
{
    q->q_off += n;
    if (q->q_off == q->q_buf.b_len) {
        box_buf_truncate(&q->q_buf, 0);
        q->q_off = 0;
    } else if (q->q_off > (64u << 10) && q->q_off * 2 > q->q_buf.b_len) {
        size_t left = q->q_buf.b_len - q->q_off;
        memmove(q->q_buf.b_data, q->q_buf.b_data + q->q_off, left);
        box_buf_truncate(&q->q_buf, left);
        q->q_off = 0;
    }
}

/* ---- the client's bytes, plain or TLS ---- */

enum { IO_AGAIN = -1, IO_FAIL = -2 };

static ssize_t
conn_recv(gw_conn *c, void *buf, size_t n)
{
    if (c->c_ssl == NULL) {
        ssize_t r = recv(c->c_tag.t_fd, buf, n, 0);
        if (r >= 0)
            return r;
        return errno == EAGAIN || errno == EINTR ? IO_AGAIN : IO_FAIL;
    }
    int r = SSL_read(c->c_ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);
    c->c_ssl_starved = false;
    if (r > 0)
        return r;
    switch (SSL_get_error(c->c_ssl, r)) {
    case SSL_ERROR_WANT_READ:
        c->c_ssl_starved = true;
        return IO_AGAIN;
    case SSL_ERROR_WANT_WRITE:
        c->c_ssl_want_write = true;
        return IO_AGAIN;
    case SSL_ERROR_ZERO_RETURN:
        return 0;
    default:
        ERR_clear_error();
        return IO_FAIL;
    }
}

static ssize_t
conn_send(gw_conn *c, const void *buf, size_t n)
{
    if (c->c_ssl == NULL) {
        ssize_t r = send(c->c_tag.t_fd, buf, n, MSG_NOSIGNAL);
        if (r >= 0)
            return r;
        return errno == EAGAIN || errno == EINTR ? IO_AGAIN : IO_FAIL;
    }
    c->c_ssl_want_write = false;
    int r = SSL_write(c->c_ssl, buf, n > INT32_MAX ? INT32_MAX : (int)n);
    if (r > 0)
        return r;
    switch (SSL_get_error(c->c_ssl, r)) {
    case SSL_ERROR_WANT_WRITE:
        c->c_ssl_want_write = true;
        return IO_AGAIN;
    case SSL_ERROR_WANT_READ:
        return IO_AGAIN;
    default:
        ERR_clear_error();
        return IO_FAIL;
    }
}

/* ---- life ---- */

gw_conn *
gw_conn_new(gw_loop *px, int fd, bool needs_auth)
{
    gw_conn *c = box_calloc(1, sizeof *c);
    if (c == NULL)
        return NULL;
    c->c_tag.t_kind = GW_TAG_CONN;
    c->c_tag.t_fd = fd;
    c->c_px = px;
    c->c_needs_auth = needs_auth;
    c->c_up_fd = c->c_up_given = -1;
    c->c_job.j_fd = c->c_connect.j_fd = -1;
    c->c_state = GW_CS_HEAD;
    c->c_deadline = gw_now_ms() + (uint64_t)px->px_head_ms;
    box_buf_init(&c->c_in, GW_HTTP_HEAD_MAX + px->px_body_max + GW_READ_CHUNK);
    box_buf_init(&c->c_out.q_buf, GW_OUT_MAX);
    box_buf_init(&c->c_body, px->px_body_max);
    box_buf_init(&c->c_resp_head, GW_RESP_HEAD_MAX);
    box_buf_init(&c->c_scrubbed, GW_OUT_MAX);
    return c;
}

/* The exchange's libcurl state goes; the connection stays. */
static void
conn_easy_end(gw_conn *c)
{
    if (c->c_easy != NULL) {
        curl_multi_remove_handle(c->c_px->px_multi, c->c_easy);
        curl_easy_cleanup(c->c_easy);
        c->c_easy = NULL;
    }
    curl_slist_free_all(c->c_hdrs);
    curl_slist_free_all(c->c_connect_to);
    c->c_hdrs = c->c_connect_to = NULL;
    if (c->c_up_fd >= 0)
        close(c->c_up_fd);
    c->c_up_fd = c->c_up_given = -1;
    c->c_up_new = false;
}

/* The request's credential state goes (its copies of the secret are
 * wiped). */
static void
conn_cred_end(gw_conn *c)
{
    if (c->c_cred_on) {
        gw_cred_edit_free(&c->c_cred);
        gw_scrub_free(&c->c_scrub);
    }
    c->c_cred_on = c->c_resp_blocked = false;
    box_buf_reset(&c->c_scrubbed);
}

void
gw_conn_free(gw_conn *c)
{
    gw_loop *px = c->c_px;
    if (c->c_job_running) {
        // The job still writes into c: closed now, freed when it returns.
        if (!c->c_dead) {
            gw_px_watch(px, c, 0);
            close(c->c_tag.t_fd);
            c->c_tag.t_fd = -1;
            c->c_dead = true;
            c->c_deadline = 0;
        }
        return;
    }
    conn_easy_end(c);
    gw_px_unlink(px, c);
    if (c->c_ssl != NULL) {
        // close_notify, best effort: a client reading to the end of a
        // tunnel tells a finished answer from a cut one by it. Before the
        // close: once the number is free, a decision thread's next
        // upstream socket may get it, and the alert would go there.
        if (SSL_is_init_finished(c->c_ssl) && c->c_tag.t_fd >= 0)
            (void)SSL_shutdown(c->c_ssl);
        ERR_clear_error();
        SSL_free(c->c_ssl);
        c->c_ssl = NULL;
    }
    if (c->c_tag.t_fd >= 0) {
        gw_px_watch(px, c, 0);
        close(c->c_tag.t_fd);
        c->c_tag.t_fd = -1;
    }
    gw_job_clear(&c->c_job);
    gw_job_clear(&c->c_connect);
    conn_cred_end(c);
    box_arena_free(c->c_arena);
    box_buf_reset(&c->c_in);
    box_buf_reset(&c->c_out.q_buf);
    box_buf_reset(&c->c_body);
    box_buf_reset(&c->c_resp_head);
    c->c_tag.t_kind = GW_TAG_DEAD;
    gw_px_bury(px, c);
}

/* Closes once what waits is sent: a client that stops reading still
 * loses the connection after GW_STALL_MS (from the last byte it took). */
static void
conn_close_soon(gw_conn *c)
{
    c->c_state = GW_CS_CLOSING;
    c->c_deadline = gw_now_ms() + (uint64_t)c->c_px->px_stall_ms;
}

/* Sends the answer, then closes (or keeps the connection for the next
 * request when keep_alive). */
static void
conn_answer(gw_conn *c, gw_answer_kind kind, int code, const char *reason,
            bool keep_alive)
{
    if (gw_answer(&c->c_out.q_buf, kind, code, reason, keep_alive) != BOX_OK)
        keep_alive = false;
    if (!keep_alive)
        conn_close_soon(c);
}

/* Ready for the next request on a kept-alive connection. */
static void
conn_next_request(gw_conn *c)
{
    conn_easy_end(c);
    gw_job_clear(&c->c_job);
    gw_job_clear(&c->c_connect);
    c->c_http_decided = false;
    c->c_pins.p_n = 0; // the next request decides and pins anew
    conn_cred_end(c);
    box_buf_truncate(&c->c_body, 0);
    box_buf_truncate(&c->c_resp_head, 0);
    c->c_bdec = NULL;
    c->c_req = NULL;
    c->c_parser = NULL;
    c->c_resp_started = c->c_resp_chunked = c->c_resp_no_body = false;
    c->c_outcome_sent = false;
    c->c_paused = false;
    c->c_state = GW_CS_HEAD;
    c->c_deadline = gw_now_ms() + (uint64_t)c->c_px->px_idle_ms;
}

/* ---- upstream, with libcurl ---- */

static void conn_submit(gw_conn *c, gw_job_kind kind);

/*
 * libcurl asks for a socket only when it keeps no connection to the
 * decided address it may reuse. One a job connected (a tunnel's before its
 * 200, or one whose outcome policy reads) is handed over; otherwise a new
 * one, which libcurl connects. Either way it must be for the address this
 * request's net:connect permitted: the CONNECT_TO pin names it, and this
 * is where that is held to.
 */
static curl_socket_t
up_open(void *clientp, curlsocktype purpose, struct curl_sockaddr *addr)
{
    (void)purpose;
    gw_conn *c = clientp;
    const gw_pins *p = &c->c_pins;
    if (p->p_at >= p->p_n || addr->addrlen > sizeof p->p_addr[0] ||
        !gw_addr_same_endpoint(&addr->addr,
                               (const struct sockaddr *)&p->p_addr[p->p_at]))
        return CURL_SOCKET_BAD;
    if (c->c_up_fd >= 0) {
        c->c_up_given = c->c_up_fd;
        c->c_up_fd = -1;
        return c->c_up_given;
    }
    int fd = socket(addr->family, addr->socktype | SOCK_CLOEXEC,
                    addr->protocol);
    if (fd >= 0)
        c->c_up_new = true;
    return fd >= 0 ? fd : CURL_SOCKET_BAD;
}

static int
up_sockopt(void *clientp, curl_socket_t fd, curlsocktype purpose)
{
    (void)purpose;
    const gw_conn *c = clientp;
    return fd == c->c_up_given ? CURL_SOCKOPT_ALREADY_CONNECTED
                               : CURL_SOCKOPT_OK;
}

/* Fields that describe one hop, not the message (RFC 9110 §7.6.1), and
 * the gateway's own marker, which an upstream must not be able to
 * forge. */
static bool
hop_by_hop(const char *name, size_t n)
{
    static const char *const hop[] = {
        "connection",        "keep-alive",         "proxy-connection",
        "transfer-encoding", "te",                 "trailer",
        "upgrade",           "proxy-authenticate", "proxy-authorization",
        "x-strands-box-egress",
    };
    for (size_t i = 0; i < sizeof hop / sizeof *hop; i++)
        if (strlen(hop[i]) == n && strncasecmp(name, hop[i], n) == 0)
            return true;
    return false;
}

/* The client's fields for upstream: end-to-end ones only; the framing is
 * libcurl's (it sends the body held here). */
static bool
up_fields(gw_conn *c)
{
    const gw_http_req *rq = c->c_req;
    bool accept = false;
    for (size_t i = 0; i < rq->rq_nfields; i++) {
        const gw_http_field *f = &rq->rq_fields[i];
        if (hop_by_hop(f->f_name, f->f_name_len) ||
            (c->c_cred_on && gw_cred_edit_drops(&c->c_cred, i, f->f_name)) ||
            strcasecmp(f->f_name, "host") == 0 ||
            strcasecmp(f->f_name, "content-length") == 0 ||
            strcasecmp(f->f_name, "expect") == 0)
            continue;
        if (strcasecmp(f->f_name, "accept") == 0)
            accept = true;
        char *line = box_asprintf("%s: %s", f->f_name, f->f_value);
        if (line == NULL)
            return false;
        // An empty value would make libcurl drop the field: "name;" is
        // its spelling of one sent empty.
        if (f->f_value_len == 0)
            line[f->f_name_len] = ';';
        struct curl_slist *l = curl_slist_append(c->c_hdrs, line);
        box_free(line);
        if (l == NULL)
            return false;
        c->c_hdrs = l;
    }
    // A credential route's fields, in place of the ones it dropped.
    for (size_t i = 0; c->c_cred_on && i < c->c_cred.e_nadd; i++) {
        struct curl_slist *l = curl_slist_append(c->c_hdrs, c->c_cred.e_add[i]);
        if (l == NULL)
            return false;
        c->c_hdrs = l;
    }
    // libcurl adds these unless told not to; the client did not send them.
    const char *off[] = {accept ? NULL : "Accept:", "Expect:"};
    for (size_t i = 0; i < 2; i++) {
        if (off[i] == NULL)
            continue;
        struct curl_slist *l = curl_slist_append(c->c_hdrs, off[i]);
        if (l == NULL)
            return false;
        c->c_hdrs = l;
    }
    return true;
}

static bool
field_is(const char *line, size_t n, const char *name)
{
    size_t k = strlen(name);
    return n > k && line[k] == ':' && strncasecmp(line, name, k) == 0;
}

/* Once per exchange, when policy reads it: how the request ended, as
 * ::response with upstream's status or ::error without one. A client
 * that leaves first records nothing: its permit stays pending at the
 * PDP, which counts it (the cautious side of a cap). */
static void
conn_outcome(gw_conn *c, long status)
{
    if (!c->c_job.j_wants_outcome || c->c_outcome_sent)
        return;
    c->c_outcome_sent = true;
    box_outcome o = {.bo_kind = status > 0 ? BOX_OUTCOME_STATUS
                                           : BOX_OUTCOME_ERROR,
                     .bo_status = status};
    gw_decider_record_http(c->c_px->px_decider, &c->c_job, &o);
}

/* Whether a field line of upstream's head says the body is encoded
 * (anything but identity): a credentialed answer must come as written,
 * or a copy of the secret could hide in it. */
static bool
field_encoded(const char *line, size_t n)
{
    if (!field_is(line, n, "content-encoding"))
        return false;
    const char *v = line + strlen("content-encoding") + 1;
    size_t vl = n - strlen("content-encoding") - 1;
    while (vl > 0 && (*v == ' ' || *v == '\t'))
        v++, vl--;
    while (vl > 0 && (v[vl - 1] == ' ' || v[vl - 1] == '\t'))
        vl--;
    return !(vl == 0 || (vl == 8 && strncasecmp(v, "identity", 8) == 0));
}

/* One field line of upstream's head for the client: as sent, or with each
 * copy of the secret replaced on a credentialed request. */
static box_err
resp_field(gw_conn *c, box_buf *out, const char *line, size_t n)
{
    if (c->c_cred_on)
        BOX_TRY(gw_scrub_all(c->c_cred.e_needle, c->c_cred.e_needle_len,
                             c->c_cred.e_nneedles, line, n, out));
    else
        BOX_TRY(box_buf_append(out, line, n));
    return box_buf_puts(out, "\r\n");
}

/* The response head is complete: frame it for the client and queue it.
 * False when it must not reach the client (a compressed answer to a
 * credentialed request: refused; a head that could not be framed: 502):
 * the exchange is then aborted. */
static bool
resp_head_done(gw_conn *c)
{
    box_buf *h = &c->c_resp_head;
    bool has_length = false;
    const char *p = h->b_data, *end = h->b_data + h->b_len;
    box_buf out;
    box_buf_init(&out, GW_RESP_HEAD_MAX + 256);
    long code = c->c_resp_code;
    conn_outcome(c, code);
    c->c_resp_no_body = c->c_req->rq_method == GW_HTTP_HEAD || code == 204 ||
                        code == 304 || code < 200;
    box_err rv = box_buf_printf(&out, "HTTP/1.1 %ld ", code);
    // The status line's reason as upstream gave it.
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    const char *sp = eol ? memchr(p, ' ', (size_t)(eol - p)) : NULL;
    const char *sp2 =
        sp ? memchr(sp + 1, ' ', (size_t)(eol - sp - 1)) : NULL;
    if (rv == BOX_OK && sp2 != NULL) {
        size_t rn = (size_t)(eol - sp2 - 1);
        if (rn > 0 && sp2[rn] == '\r')
            rn--;
        rv = box_buf_append(&out, sp2 + 1, rn);
    }
    if (rv == BOX_OK)
        rv = box_buf_puts(&out, "\r\n");
    p = eol ? eol + 1 : end;
    while (rv == BOX_OK && p < end) {
        eol = memchr(p, '\n', (size_t)(end - p));
        size_t n = (size_t)((eol ? eol : end) - p);
        size_t ln = n > 0 && p[n - 1] == '\r' ? n - 1 : n;
        const char *colon = memchr(p, ':', ln);
        if (c->c_cred_on && field_encoded(p, ln)) {
            c->c_resp_blocked = true;
            box_buf_reset(&out);
            return false;
        }
        if (ln > 0 && colon != NULL && !hop_by_hop(p, (size_t)(colon - p))) {
            // A scrubbed body's length is not upstream's: it is framed
            // anew.
            bool length = field_is(p, ln, "content-length");
            if (!(length && c->c_cred_on)) {
                has_length = has_length || length;
                rv = resp_field(c, &out, p, ln);
            }
        }
        p = eol ? eol + 1 : end;
    }
    bool close_delimited = false;
    if (!c->c_resp_no_body && !has_length) {
        if (c->c_req->rq_minor >= 1)
            c->c_resp_chunked = true;
        else
            close_delimited = true;
    }
    if (close_delimited || c->c_tunnel)
        c->c_keep_alive = false;
    if (rv == BOX_OK && c->c_resp_chunked)
        rv = box_buf_puts(&out, "transfer-encoding: chunked\r\n");
    if (rv == BOX_OK && !c->c_keep_alive)
        rv = box_buf_puts(&out, "connection: close\r\n");
    if (rv == BOX_OK)
        rv = box_buf_puts(&out, "\r\n");
    if (rv == BOX_OK)
        rv = q_put(&c->c_out, out.b_data, out.b_len);
    box_buf_reset(&out);
    // A head that could not be framed (no memory, or one that scrubbing
    // grew past the limit) ends the exchange: its body must not follow
    // with no head before it (gw_conn_on_curl_done answers 502).
    if (rv != BOX_OK)
        return false;
    c->c_resp_started = true;
    return true;
}

/* libcurl queued bytes from inside its callbacks: the loop must learn the
 * client socket is now worth waiting on for writing. */
static void
conn_want_out(gw_conn *c)
{
    if (!(c->c_events & EPOLLOUT))
        gw_px_watch(c->c_px, c, (c->c_events & ~(uint32_t)EPOLLET) | EPOLLOUT);
}

static size_t
up_header(char *buf, size_t size, size_t n, void *userp)
{
    gw_conn *c = userp;
    size_t len = size * n;
    if (c->c_resp_started)
        return len; // trailers: not passed on
    if (len >= 5 && strncmp(buf, "HTTP/", 5) == 0) {
        // A status line: a new response (an interim 1xx is dropped).
        box_buf_truncate(&c->c_resp_head, 0);
        curl_easy_getinfo(c->c_easy, CURLINFO_RESPONSE_CODE, &c->c_resp_code);
    }
    if (len <= 2 && (buf[0] == '\r' || buf[0] == '\n')) {
        if (c->c_resp_code >= 200) {
            if (!resp_head_done(c))
                return 0; // aborts the exchange
            conn_want_out(c);
        }
        return len;
    }
    if (box_buf_append(&c->c_resp_head, buf, len) != BOX_OK)
        return 0; // a head past the limit: the exchange fails
    return len;
}

/* Queues body bytes for the client in the answer's framing (an empty
 * chunk would end a chunked answer: nothing is queued for none). */
static box_err
resp_emit(gw_conn *c, const char *buf, size_t len)
{
    if (len == 0)
        return BOX_OK;
    if (c->c_resp_chunked) {
        char hex[24];
        int k = snprintf(hex, sizeof hex, "%zx\r\n", len);
        BOX_TRY(q_put(&c->c_out, hex, (size_t)k));
    }
    BOX_TRY(q_put(&c->c_out, buf, len));
    if (c->c_resp_chunked)
        BOX_TRY(q_put(&c->c_out, "\r\n", 2));
    return BOX_OK;
}

static size_t
up_write(char *buf, size_t size, size_t n, void *userp)
{
    gw_conn *c = userp;
    size_t len = size * n;
    if (!c->c_resp_started && !resp_head_done(c))
        return 0;
    if (c->c_resp_no_body || len == 0)
        return len;
    if (q_pending(&c->c_out) >= GW_OUT_HIGH) {
        c->c_paused = true;
        return CURL_WRITEFUNC_PAUSE;
    }
    box_err rv;
    if (c->c_cred_on) {
        box_buf_truncate(&c->c_scrubbed, 0);
        rv = gw_scrub_feed(&c->c_scrub, buf, len, &c->c_scrubbed);
        if (rv == BOX_OK)
            rv = resp_emit(c, c->c_scrubbed.b_data, c->c_scrubbed.b_len);
    } else {
        rv = resp_emit(c, buf, len);
    }
    conn_want_out(c);
    return rv == BOX_OK ? len : 0;
}

static bool
up_configure(gw_conn *c)
{
    const gw_http_req *rq = c->c_req;
    const gw_authority *a = &rq->rq_authority;
    bool v6 = a->a_host.h_kind == GW_HOST_IPV6;
    const char *query = rq->rq_query;
    size_t query_len = rq->rq_query_len;
    if (c->c_cred_on && c->c_cred.e_query_set) {
        query = c->c_cred.e_query;
        query_len = query ? strlen(query) : 0;
    }
    char *url = box_asprintf(
        "%s://%s%s%s:%u%s%s%.*s", c->c_tunnel ? "https" : "http",
        v6 ? "[" : "", a->a_host.h_text, v6 ? "]" : "", (unsigned)a->a_port,
        rq->rq_path, query ? "?" : "", query ? (int)query_len : 0,
        query ? query : "");
    // Any host and port of this handle goes to the decided address, and
    // libcurl's cache reuses only a connection made to that very address.
    const char *ip = c->c_pins.p_ip;
    bool ip6 = strchr(ip, ':') != NULL;
    char *pin = box_asprintf("::%s%s%s:%u", ip6 ? "[" : "", ip,
                             ip6 ? "]" : "", (unsigned)a->a_port);
    bool ok = url != NULL && pin != NULL && up_fields(c);
    if (ok)
        c->c_connect_to = curl_slist_append(NULL, pin);
    ok = ok && c->c_connect_to != NULL &&
         (c->c_easy = curl_easy_init()) != NULL;
    if (ok) {
        CURL *e = c->c_easy;
        curl_easy_setopt(e, CURLOPT_URL, url);
        curl_easy_setopt(e, CURLOPT_PRIVATE, c);
        curl_easy_setopt(e, CURLOPT_ERRORBUFFER, c->c_errbuf);
        curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
        // The decided address only: DNS cannot change it now.
        curl_easy_setopt(e, CURLOPT_CONNECT_TO, c->c_connect_to);
        curl_easy_setopt(e, CURLOPT_OPENSOCKETFUNCTION, up_open);
        curl_easy_setopt(e, CURLOPT_OPENSOCKETDATA, c);
        curl_easy_setopt(e, CURLOPT_SOCKOPTFUNCTION, up_sockopt);
        curl_easy_setopt(e, CURLOPT_SOCKOPTDATA, c);
        curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, (long)GW_CONNECT_MS);
        curl_easy_setopt(e, CURLOPT_PROXY, "");
        curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
        curl_easy_setopt(e, CURLOPT_HTTP_VERSION, CURL_HTTP_VERSION_1_1);
        if (c->c_px->px_upstream_ca != NULL)
            curl_easy_setopt(e, CURLOPT_CAINFO, c->c_px->px_upstream_ca);
        curl_easy_setopt(e, CURLOPT_PATH_AS_IS, 1L);
        curl_easy_setopt(e, CURLOPT_HTTP_CONTENT_DECODING, 0L);
        curl_easy_setopt(e, CURLOPT_FOLLOWLOCATION, 0L);
        curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
        curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME,
                         (long)(c->c_px->px_stall_ms / 1000));
        curl_easy_setopt(e, CURLOPT_HTTPHEADER, c->c_hdrs);
        curl_easy_setopt(e, CURLOPT_HEADERFUNCTION, up_header);
        curl_easy_setopt(e, CURLOPT_HEADERDATA, c);
        curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, up_write);
        curl_easy_setopt(e, CURLOPT_WRITEDATA, c);
        // The method sent is the method decided: libcurl would turn a GET
        // with a body into a POST, so any body goes with the method named.
        bool body = c->c_body.b_len > 0 || rq->rq_method == GW_HTTP_POST ||
                    rq->rq_method == GW_HTTP_PUT ||
                    rq->rq_method == GW_HTTP_PATCH;
        if (rq->rq_method == GW_HTTP_HEAD) {
            curl_easy_setopt(e, CURLOPT_NOBODY, 1L);
            body = false; // a HEAD's answer has no body to wait for
        }
        if (body) {
            curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE,
                             (curl_off_t)c->c_body.b_len);
            curl_easy_setopt(e, CURLOPT_POSTFIELDS,
                             c->c_body.b_len ? c->c_body.b_data : "");
        }
        if (rq->rq_method != GW_HTTP_HEAD &&
            (body || rq->rq_method != GW_HTTP_GET))
            curl_easy_setopt(e, CURLOPT_CUSTOMREQUEST, rq->rq_method_name);
        ok = curl_multi_add_handle(c->c_px->px_multi, e) == CURLM_OK;
    }
    if (url != NULL)
        OPENSSL_cleanse(url, strlen(url)); // it may hold a secret
    box_free(url);
    box_free(pin);
    return ok;
}

static void
conn_upstream(gw_conn *c)
{
    if (!up_configure(c)) {
        conn_easy_end(c);
        conn_answer(c, GW_ANSWER_UNAVAILABLE, 0,
                    "the gateway could not set up the upstream request",
                    false);
        return;
    }
    c->c_state = GW_CS_UPSTREAM;
    c->c_deadline = 0; // libcurl's low-speed limit watches the exchange
}

/* Whether libcurl's exchange ended because the connection it opened to
 * the decided address never came up (then no byte of the request went). */
static bool
up_connect_failed(gw_conn *c, CURLcode rc)
{
    if (rc == CURLE_COULDNT_CONNECT)
        return true;
    curl_off_t t = 0;
    return rc == CURLE_OPERATION_TIMEDOUT && c->c_up_new &&
           curl_easy_getinfo(c->c_easy, CURLINFO_CONNECT_TIME_T, &t) ==
               CURLE_OK &&
           t == 0;
}

/* A plain request's connect failed: the next pinned address is decided
 * and tried (box-spec §6: the first that answers is used), or the client
 * hears none did. */
static void
conn_next_address(gw_conn *c)
{
    long os_err = 0;
    curl_easy_getinfo(c->c_easy, CURLINFO_OS_ERRNO, &os_err);
    gw_pins *p = &c->c_pins;
    bool more = p->p_at + 1 < p->p_n;
    conn_easy_end(c);
    if (more) {
        p->p_at++;
        p->p_decided = false;
        conn_submit(c, GW_JOB_CONNECT);
        return;
    }
    const gw_authority *a = &c->c_connect.j_auth;
    char why[GW_ADDR_TEXT_MAX + 128];
    snprintf(why, sizeof why, "cannot connect to %s:%u: %s", a->a_host.h_text,
             (unsigned)a->a_port,
             strerror(os_err > 0 ? (int)os_err : ETIMEDOUT));
    conn_outcome(c, 0);
    conn_answer(c, GW_ANSWER_BAD_GATEWAY, 0, why, false);
}

void
gw_conn_on_curl_done(gw_conn *c, CURLcode rc)
{
    if (!c->c_tunnel && !c->c_resp_started && up_connect_failed(c, rc)) {
        conn_next_address(c);
        if (!c->c_job_running)
            gw_conn_on_io(c, 0);
        return;
    }
    if (rc == CURLE_OK && !c->c_resp_started && c->c_resp_code >= 200)
        (void)resp_head_done(c);
    if (c->c_resp_started)
        gw_seen_mark(&c->c_px->px_seen, c->c_connect.j_auth.a_host.h_text,
                     c->c_connect.j_auth.a_port, c->c_pins.p_ip, gw_now_ms());
    if (c->c_resp_blocked) {
        conn_easy_end(c);
        conn_answer(c, GW_ANSWER_REFUSED, 0, GW_CRED_RESPONSE_BLOCKED, false);
        gw_conn_on_io(c, 0);
        return;
    }
    if (rc == CURLE_OK && c->c_cred_on && !c->c_resp_no_body) {
        // What the scrubber held back: no copy can start in it now.
        box_buf_truncate(&c->c_scrubbed, 0);
        if (gw_scrub_end(&c->c_scrub, &c->c_scrubbed) != BOX_OK ||
            resp_emit(c, c->c_scrubbed.b_data, c->c_scrubbed.b_len) != BOX_OK)
            rc = CURLE_WRITE_ERROR;
    }
    if (rc != CURLE_OK || !c->c_resp_started) {
        char why[CURL_ERROR_SIZE + GW_ADDR_TEXT_MAX + 16];
        snprintf(why, sizeof why, "upstream %.*s: %s", GW_ADDR_TEXT_MAX,
                 c->c_req->rq_authority.a_host.h_text,
                 c->c_errbuf[0] ? c->c_errbuf : curl_easy_strerror(rc));
        conn_easy_end(c);
        conn_outcome(c, 0);
        if (c->c_resp_started) {
            // Part of the answer went out: only closing says it broke.
            conn_close_soon(c);
            gw_conn_on_io(c, 0);
            return;
        }
        conn_answer(c, GW_ANSWER_BAD_GATEWAY, 0, why, false);
        gw_conn_on_io(c, 0);
        return;
    }
    if (c->c_resp_chunked)
        (void)q_put(&c->c_out, "0\r\n\r\n", 5);
    if (c->c_keep_alive && !c->c_tunnel) {
        conn_next_request(c);
    } else {
        conn_easy_end(c);
        conn_close_soon(c);
    }
    gw_conn_on_io(c, 0);
}

/* ---- jobs ---- */

static void conn_tls_begin(gw_conn *c);
static void conn_after_job(gw_conn *c, gw_job *j);

/* Runs a step: on the loop when the PDP client's cache decides it whole,
 * else on a decision thread (back in gw_conn_on_job). */
static void
conn_submit(gw_conn *c, gw_job_kind kind)
{
    gw_job *j = kind == GW_JOB_CONNECT ? &c->c_connect : &c->c_job;
    gw_decider *d = c->c_px->px_decider;
    gw_job_clear(j);
    j->j_kind = kind;
    j->j_owner = c;
    j->j_sink = c->c_px->px_sink;
    j->j_auth = c->c_tunnel ? c->c_tunnel_auth : c->c_req->rq_authority;
    bool now;
    if (kind == GW_JOB_CONNECT) {
        j->j_pins = &c->c_pins;
        // A tunnel's 200 says upstream answered (box-spec §6): its connect
        // is made before, unless upstream answered lately (gw_seen.h); a
        // plain request's is libcurl's.
        j->j_connect = c->c_tunnel && c->c_tunnel_connect;
        now = gw_decider_connect_now(d, j);
    } else {
        j->j_method = c->c_req->rq_method_name;
        j->j_path = c->c_req->rq_path;
        j->j_body_bytes = c->c_body.b_len;
        j->j_intercepted = c->c_tunnel;
        now = gw_decider_http_now(d, j);
    }
    if (now) {
        conn_after_job(c, j);
        return;
    }
    c->c_state = GW_CS_JOB;
    c->c_deadline = 0;
    c->c_job_running = true;
    gw_decider_submit(d, j);
}

void
gw_conn_on_job(gw_conn *c, gw_job *j)
{
    c->c_job_running = false;
    if (c->c_dead) {
        gw_conn_free(c);
        return;
    }
    conn_after_job(c, j);
    if (!c->c_job_running) // else back here when the next step is done
        gw_conn_on_io(c, 0);
}

/* What follows a decided step. */
static void
conn_after_job(gw_conn *c, gw_job *j)
{
    if (!j->j_ok) {
        // A refusal of a plain request keeps the connection (the request
        // was read whole); a tunnel's, or a failure, ends it.
        bool keep = j->j_answer == GW_ANSWER_REFUSED && !c->c_tunnel &&
                    c->c_keep_alive;
        conn_answer(c, j->j_answer, 0, j->j_reason, keep);
        if (keep)
            conn_next_request(c);
        return;
    }
    if (j->j_kind == GW_JOB_HTTP) {
        c->c_http_decided = true;
        conn_upstream(c);
        return;
    }
    c->c_up_fd = j->j_fd; // a connect made by the job, or -1
    j->j_fd = -1;
    if (c->c_tunnel && c->c_up_fd < 0 && !c->c_tunnel_connect &&
        !gw_seen_recent(&c->c_px->px_seen, j->j_auth.a_host.h_text,
                        j->j_auth.a_port, c->c_pins.p_ip, gw_now_ms())) {
        // Decided, but not known to answer: connect (the address decided
        // is not decided again).
        c->c_tunnel_connect = true;
        conn_submit(c, GW_JOB_CONNECT);
        return;
    }
    if (c->c_tunnel) {
        (void)q_put(&c->c_out, established, sizeof established - 1);
        conn_tls_begin(c);
    } else if (c->c_http_decided) {
        conn_upstream(c); // the next address, for a request decided
    } else {
        conn_submit(c, GW_JOB_HTTP);
    }
}

/* ---- TLS with the client, inside a CONNECT tunnel ---- */

/* The 200 goes out in plaintext first; the handshake starts once it has
 * (conn_tls_step). */
static void
conn_tls_begin(gw_conn *c)
{
    c->c_state = GW_CS_TLS;
    c->c_deadline = gw_now_ms() + (uint64_t)c->c_px->px_head_ms;
}

static void
conn_tls_step(gw_conn *c)
{
    if (q_pending(&c->c_out) > 0)
        return;
    if (c->c_ssl == NULL) {
        SSL_CTX *ctx = NULL;
        char *err = NULL;
        // The leaf names the CONNECT host: the client checks it against
        // the name it asked for, as it would the real server's.
        if (gw_ca_server_ctx(c->c_px->px_ca, c->c_tunnel_auth.a_host.h_text,
                             &ctx, &err) != BOX_OK ||
            (c->c_ssl = SSL_new(ctx)) == NULL ||
            SSL_set_fd(c->c_ssl, c->c_tag.t_fd) != 1) {
            box_log(BOX_LOG_WARN, GW_SVC, "cannot intercept %s: %s",
                    c->c_tunnel_auth.a_host.h_text,
                    err ? err : "out of memory");
            box_free(err);
            SSL_CTX_free(ctx);
            conn_close_soon(c);
            return;
        }
        SSL_CTX_free(ctx); // the SSL holds its own reference
        SSL_set_accept_state(c->c_ssl);
    }
    c->c_ssl_want_write = false;
    int r = SSL_accept(c->c_ssl);
    c->c_ssl_starved = false;
    if (r == 1) {
        c->c_state = GW_CS_HEAD;
        c->c_parser = NULL;
        c->c_req = NULL;
        return;
    }
    switch (SSL_get_error(c->c_ssl, r)) {
    case SSL_ERROR_WANT_READ:
        c->c_ssl_starved = true;
        return;
    case SSL_ERROR_WANT_WRITE:
        c->c_ssl_want_write = true;
        return;
    default:
        // The client refused the box's leaf (it does not trust the box
        // CA) or spoke no TLS: nothing can be said to it in HTTP.
        ERR_clear_error();
        conn_close_soon(c);
        return;
    }
}

/* ---- reading a request ---- */

/* Reads what the socket has, up to the buffer's limit; false when the
 * connection is gone. */
static bool
conn_fill(gw_conn *c)
{
    for (;;) {
        if (box_buf_reserve(&c->c_in, GW_READ_CHUNK) != BOX_OK)
            return true; // full: the parser or the body limit will say
        ssize_t r = conn_recv(c, c->c_in.b_data + c->c_in.b_len,
                              GW_READ_CHUNK - 1); // and its NUL
        if (r == IO_AGAIN)
            return true;
        if (r <= 0) {
            c->c_peer_closed = true;
            return r == 0;
        }
        c->c_in.b_len += (size_t)r;
        c->c_in.b_data[c->c_in.b_len] = '\0';
        // A body's clock restarts with each read; a head's keeps running
        // (a client sending a byte at a time still has GW_HEAD_MS).
        if (c->c_state == GW_CS_BODY)
            c->c_deadline = gw_now_ms() + (uint64_t)c->c_px->px_stall_ms;
    }
}

/* Whether the request carries the TCP listener's token, compared in
 * constant time (a reply's timing says nothing of how much matched). */
static bool
auth_ok(const gw_loop *px, const gw_http_req *rq)
{
    size_t n = strlen(px->px_proxy_auth);
    if (rq->rq_proxy_auth == NULL || rq->rq_proxy_auth_len != n)
        return false;
    return CRYPTO_memcmp(rq->rq_proxy_auth, px->px_proxy_auth, n) == 0;
}

/* Drops the first n bytes of c_in (the request just read). */
static void
in_used(gw_conn *c, size_t n)
{
    size_t left = c->c_in.b_len - n;
    memmove(c->c_in.b_data, c->c_in.b_data + n, left);
    box_buf_truncate(&c->c_in, left);
}

static void
conn_head(gw_conn *c)
{
    if (c->c_in.b_len == 0) {
        if (c->c_peer_closed) // no request began: nothing is owed
            conn_close_soon(c);
        return;
    }
    if (c->c_parser == NULL) {
        if (c->c_arena == NULL)
            c->c_arena = box_arena_new(GW_HTTP_ARENA_MAX);
        else
            box_arena_reset(c->c_arena);
        gw_http_opts ho = {.ho_intercepted = c->c_tunnel};
        c->c_parser =
            c->c_arena ? gw_http_parser_new(c->c_arena, &ho) : NULL;
        if (c->c_parser == NULL) {
            conn_answer(c, GW_ANSWER_UNAVAILABLE, 0, "out of memory", false);
            return;
        }
        // The head's clock starts with its first byte (the first
        // request's with the connection).
        if (c->c_req != NULL || c->c_tunnel || c->c_deadline == 0)
            c->c_deadline = gw_now_ms() + (uint64_t)c->c_px->px_head_ms;
    }
    gw_http_result r = gw_http_parse(c->c_parser, c->c_in.b_data, c->c_in.b_len);
    switch (r.r_status) {
    case GW_HTTP_MORE:
        if (c->c_peer_closed)
            conn_close_soon(c);
        return;
    case GW_HTTP_NOMEM:
        conn_answer(c, GW_ANSWER_UNAVAILABLE, 0, "out of memory", false);
        return;
    case GW_HTTP_BAD:
        conn_answer(c, GW_ANSWER_BAD_REQUEST, r.r_code, r.r_reason, false);
        return;
    case GW_HTTP_DONE:
        break;
    }
    const gw_http_req *rq = r.r_req;
    c->c_req = rq;
    c->c_head_len = r.r_used;
    c->c_keep_alive = rq->rq_keep_alive && !c->c_tunnel;
    if (!c->c_tunnel && c->c_needs_auth && !auth_ok(c->c_px, rq)) {
        conn_answer(c, GW_ANSWER_PROXY_AUTH, 0,
                    rq->rq_proxy_auth == NULL ? "proxy token required"
                                              : "invalid proxy token",
                    false);
        return;
    }
    if (c->c_tunnel) {
        if (!rq->rq_has_authority ||
            !gw_addr_authority_eq(&rq->rq_authority, &c->c_tunnel_auth)) {
            conn_answer(c, GW_ANSWER_REFUSED, 0, "request authority rejected",
                        false);
            return;
        }
    } else if (rq->rq_method == GW_HTTP_CONNECT) {
        if (c->c_px->px_ca == NULL) {
            conn_answer(c, GW_ANSWER_UNAVAILABLE, 0,
                        "TLS interception is not set up in this gateway",
                        false);
            return;
        }
        if (c->c_in.b_len > c->c_head_len) {
            // The client's TLS would start in bytes the handshake never
            // sees.
            conn_answer(c, GW_ANSWER_BAD_REQUEST, 400,
                        "data was sent before the tunnel was established",
                        false);
            return;
        }
        c->c_tunnel = true;
        c->c_tunnel_auth = rq->rq_authority;
        in_used(c, c->c_head_len);
        conn_submit(c, GW_JOB_CONNECT);
        return;
    } else if (!rq->rq_has_authority) {
        conn_answer(c, GW_ANSWER_BAD_REQUEST, 400,
                    "the request names no host", false);
        return;
    }
    c->c_bdec = gw_body_dec_new(c->c_arena, rq, c->c_px->px_body_max);
    if (c->c_bdec == NULL) {
        conn_answer(c, GW_ANSWER_UNAVAILABLE, 0, "out of memory", false);
        return;
    }
    c->c_body_off = c->c_head_len;
    // Fed nothing, the decoder refuses a declared length past the limit
    // (413) before the client is told to go on sending.
    gw_body_result br = gw_body_feed(c->c_bdec, "", 0, NULL, 0);
    if (br.br_status == GW_BODY_BAD) {
        conn_answer(c, br.br_code == 413 ? GW_ANSWER_TOO_LARGE
                                         : GW_ANSWER_BAD_REQUEST,
                    br.br_code, br.br_reason, false);
        return;
    }
    if (rq->rq_expect_continue && br.br_status == GW_BODY_MORE &&
        c->c_in.b_len == c->c_head_len)
        (void)q_put(&c->c_out, "HTTP/1.1 100 Continue\r\n\r\n", 25);
    c->c_state = GW_CS_BODY;
    c->c_deadline = gw_now_ms() + (uint64_t)c->c_px->px_stall_ms;
}

/* The credential route, decided before policy (box-spec §6): a refusal
 * is answered here (false); a request a route carries gets its edit and
 * its answer's scrubber. */
static bool
conn_cred_route(gw_conn *c)
{
    if (c->c_px->px_creds == NULL)
        return true; // a box without [egress.NAME] tables
    const char *reason = NULL;
    gw_cred_req q = {.cq_req = c->c_req,
                     .cq_tls = c->c_tunnel,
                     .cq_body = c->c_body.b_data,
                     .cq_body_len = c->c_body.b_len,
                     .cq_now = time(NULL)};
    switch (gw_creds_route(c->c_px->px_creds, &q, &c->c_cred, &reason)) {
    case GW_CRED_PASS:
        return true;
    case GW_CRED_APPLY:
        c->c_cred_on = true;
        gw_scrub_init(&c->c_scrub, c->c_cred.e_needle, c->c_cred.e_needle_len,
                      c->c_cred.e_nneedles);
        return true;
    case GW_CRED_REFUSE:
        break;
    }
    // As a policy refusal: a plain request read whole keeps its
    // connection.
    bool keep = !c->c_tunnel && c->c_keep_alive;
    conn_answer(c, GW_ANSWER_REFUSED, 0, reason, keep);
    if (keep)
        conn_next_request(c);
    return false;
}

/* The body, decoded (Content-Length or chunked) into c_body as it comes;
 * the bytes after it stay in c_in for the next request. */
static void
conn_body(gw_conn *c)
{
    gw_body_result br = {.br_status = GW_BODY_MORE};
    for (;;) {
        size_t in_len = c->c_in.b_len - c->c_body_off;
        // The payload is never longer than its framing, nor than the
        // limit the decoder holds it to (bytes past it may be the next
        // request's).
        size_t cap = c->c_body.b_max - c->c_body.b_len;
        if (cap > in_len)
            cap = in_len;
        if (cap > 0 && box_buf_reserve(&c->c_body, cap) != BOX_OK) {
            conn_answer(c, GW_ANSWER_UNAVAILABLE, 0, "out of memory", false);
            return;
        }
        br = gw_body_feed(c->c_bdec, c->c_in.b_data + c->c_body_off, in_len,
                          cap ? c->c_body.b_data + c->c_body.b_len : NULL,
                          cap);
        c->c_body_off += br.br_used;
        c->c_body.b_len += br.br_out;
        if (br.br_status != GW_BODY_MORE || br.br_used == 0)
            break;
    }
    if (br.br_status == GW_BODY_BAD) {
        conn_answer(c, br.br_code == 413 ? GW_ANSWER_TOO_LARGE
                                         : GW_ANSWER_BAD_REQUEST,
                    br.br_code, br.br_reason, false);
        return;
    }
    // What the decoder used is gone from c_in (the head's fields are the
    // arena's copies): a body whose framing outweighs its payload (tiny
    // chunks) never fills the read buffer before the body is whole.
    in_used(c, c->c_body_off);
    c->c_body_off = 0;
    if (br.br_status == GW_BODY_MORE) {
        if (c->c_peer_closed)
            conn_close_soon(c);
        return;
    }
    if (!conn_cred_route(c))
        return;
    if (c->c_tunnel)
        conn_submit(c, GW_JOB_HTTP);
    else
        conn_submit(c, GW_JOB_CONNECT);
}

/* ---- the driver ---- */

/* Sends what waits; false when the connection broke. */
static bool
conn_flush(gw_conn *c)
{
    while (q_pending(&c->c_out) > 0) {
        ssize_t w = conn_send(c, c->c_out.q_buf.b_data + c->c_out.q_off,
                              q_pending(&c->c_out));
        if (w == IO_AGAIN)
            break;
        if (w <= 0)
            return false;
        q_used(&c->c_out, (size_t)w);
        if (c->c_state == GW_CS_CLOSING || c->c_state == GW_CS_UPSTREAM)
            c->c_deadline = c->c_state == GW_CS_CLOSING
                                ? gw_now_ms() + (uint64_t)c->c_px->px_stall_ms
                                : 0;
    }
    if (c->c_paused && q_pending(&c->c_out) <= GW_OUT_LOW && c->c_easy) {
        c->c_paused = false;
        curl_easy_pause(c->c_easy, CURLPAUSE_CONT);
    }
    return true;
}

void
gw_conn_on_io(gw_conn *c, uint32_t events)
{
    if (events & (EPOLLERR)) {
        gw_conn_free(c);
        return;
    }
    for (int round = 0; round < 8; round++) {
        gw_conn_state before = c->c_state;
        size_t had = c->c_in.b_len;
        if (!conn_flush(c)) {
            gw_conn_free(c);
            return;
        }
        switch (c->c_state) {
        case GW_CS_HEAD:
        case GW_CS_BODY:
            if (!conn_fill(c)) {
                gw_conn_free(c);
                return;
            }
            if (c->c_state == GW_CS_HEAD)
                conn_head(c);
            else
                conn_body(c);
            break;
        case GW_CS_TLS:
            conn_tls_step(c);
            break;
        case GW_CS_JOB:
        case GW_CS_UPSTREAM:
            // A client that only shut its sending side still reads the
            // answer; one gone both ways is owed nothing.
            if (events & EPOLLHUP) {
                gw_conn_free(c);
                return;
            }
            break;
        case GW_CS_CLOSING:
            if (q_pending(&c->c_out) == 0 || (events & EPOLLHUP)) {
                gw_conn_free(c);
                return;
            }
            break;
        }
        if (c->c_state == before && c->c_in.b_len == had)
            break;
    }
    if (c->c_dead)
        return;
    uint32_t want = 0;
    if (c->c_state == GW_CS_HEAD || c->c_state == GW_CS_BODY ||
        c->c_state == GW_CS_TLS)
        want |= EPOLLIN;
    if (q_pending(&c->c_out) > 0 || c->c_ssl_want_write)
        want |= EPOLLOUT;
    // Records OpenSSL read ahead get no readiness event of their own: a
    // connection that stopped before it drained them (its rounds spent)
    // asks for writability, which comes at once, to be called again.
    if ((want & EPOLLIN) && c->c_ssl != NULL && !c->c_ssl_starved &&
        SSL_has_pending(c->c_ssl))
        want |= EPOLLOUT;
    if (c->c_state == GW_CS_CLOSING && q_pending(&c->c_out) == 0) {
        gw_conn_free(c);
        return;
    }
    // Nothing to wait for still needs a registration: epoll reports a
    // hang-up (EPOLLHUP, EPOLLERR) whatever the mask.
    gw_px_watch(c->c_px, c, want != 0 ? want : EPOLLET);
}

void
gw_conn_on_timeout(gw_conn *c)
{
    if (c->c_state == GW_CS_HEAD && c->c_in.b_len > 0) {
        conn_answer(c, GW_ANSWER_TIMEOUT, 0,
                    "the request head did not arrive in time", false);
        gw_conn_on_io(c, 0);
        return;
    }
    if (c->c_state == GW_CS_BODY) {
        conn_answer(c, GW_ANSWER_TIMEOUT, 0,
                    "the request body did not arrive in time", false);
        gw_conn_on_io(c, 0);
        return;
    }
    gw_conn_free(c); // idle, or a client that stopped reading
}
