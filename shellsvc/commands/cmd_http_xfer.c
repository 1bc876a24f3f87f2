/* SPDX-License-Identifier: Apache-2.0 */
/* The shell's HTTP transfer, curl's and wget's (box-spec §3.12): the
 * floor, then the gateway as the only proxy on a socket the broker
 * connected, the run's CA the only trust, each redirect hop floored and
 * dialed again. What a command prints is its own (http_outcome). */
#include <curl/curl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_procspec.h"
#include "cmd_http.h"
#include "sh_internal.h"

#define XF_CALL_MS 30000L // no timeout: the call's own budget bounds it

/* One hop's transfer state, shared with libcurl's callbacks. */
typedef struct xf_hop {
    sh_ctx *xh_cx;
    const http_req *xh_rq;
    int xh_sock;     // the dialed socket until libcurl takes it
    box_buf xh_head; // this hop's response headers
    box_buf xh_body;
    bool xh_marked, xh_too_big, xh_stopped;
} xf_hop;

void
http_result_clear(http_result *res)
{
    box_free(res->hs_detail);
    box_free(res->hs_url);
    box_free(res->hs_ctype);
    box_free(res->hs_head);
    box_free(res->hs_body);
    memset(res, 0, sizeof *res);
}

/* Sets the outcome, with its detail (printf; NULL: none). */
static void __attribute__((format(printf, 3, 4)))
xf_fail(http_result *res, http_outcome oc, const char *fmt, ...)
{
    box_free(res->hs_detail);
    res->hs_detail = NULL;
    res->hs_outcome = oc;
    if (fmt == NULL)
        return;
    va_list ap;
    va_start(ap, fmt);
    box_buf b;
    box_buf_init(&b, 1u << 16);
    if (box_buf_vprintf(&b, fmt, ap) == BOX_OK)
        res->hs_detail = box_buf_take(&b);
    else
        res->hs_outcome = HTTP_NOMEM;
    box_buf_reset(&b);
    va_end(ap);
}

const char *
http_reason(const char *head, size_t len, size_t *n)
{
    // "HTTP/1.1 404 Not Found\r\n": after the second space, to the CR.
    const char *end = memchr(head, '\n', len);
    size_t line = end != NULL ? (size_t)(end - head) : len;
    const char *sp = memchr(head, ' ', line);
    const char *sp2 =
        sp != NULL ? memchr(sp + 1, ' ', line - (size_t)(sp + 1 - head)) : NULL;
    *n = 0;
    if (sp2 == NULL)
        return "";
    sp2++;
    *n = line - (size_t)(sp2 - head);
    while (*n > 0 && (sp2[*n - 1] == '\r' || sp2[*n - 1] == ' '))
        (*n)--;
    return sp2;
}

/* libcurl's socket: the one the broker connected for this hop. */
static curl_socket_t
xf_open(void *arg, curlsocktype purpose, struct curl_sockaddr *addr)
{
    (void)purpose;
    (void)addr;
    xf_hop *h = arg;
    int fd = h->xh_sock;
    h->xh_sock = -1; // a second connection this hop has no socket
    return fd >= 0 ? fd : CURL_SOCKET_BAD;
}

static int
xf_sockopt(void *arg, curl_socket_t fd, curlsocktype purpose)
{
    (void)arg;
    (void)fd;
    (void)purpose;
    return CURL_SOCKOPT_ALREADY_CONNECTED;
}

static size_t
xf_header(char *p, size_t size, size_t n, void *arg)
{
    xf_hop *h = arg;
    static const char mark[] = "x-strands-box-egress:";
    // An interim or earlier answer's head is not this answer's.
    if (n >= 5 && strncmp(p, "HTTP/", 5) == 0) {
        box_buf_truncate(&h->xh_head, 0);
        h->xh_marked = false;
    }
    if (n >= sizeof mark - 1 && strncasecmp(p, mark, sizeof mark - 1) == 0)
        h->xh_marked = true;
    return box_buf_append(&h->xh_head, p, size * n) == BOX_OK ? n : 0;
}

static size_t
xf_body(char *p, size_t size, size_t n, void *arg)
{
    xf_hop *h = arg;
    if (h->xh_body.b_len + n > HTTP_BODY_MAX) {
        h->xh_too_big = true;
        return 0;
    }
    return box_buf_append(&h->xh_body, p, size * n) == BOX_OK ? n : 0;
}

/* The call's own end (budget, abort) stops the transfer. */
static int
xf_progress(void *arg, curl_off_t a, curl_off_t b, curl_off_t c, curl_off_t d)
{
    (void)a;
    (void)b;
    (void)c;
    (void)d;
    xf_hop *h = arg;
    if (sh_check_stop(h->xh_cx))
        h->xh_stopped = true;
    return h->xh_stopped ? 1 : 0;
}

/* -v: libcurl's own lines on stderr, marked as curl marks them. */
static int
xf_debug(CURL *e, curl_infotype type, char *p, size_t n, void *arg)
{
    (void)e;
    xf_hop *h = arg;
    const char *tag = type == CURLINFO_TEXT         ? "* "
                      : type == CURLINFO_HEADER_IN  ? "< "
                      : type == CURLINFO_HEADER_OUT ? "> "
                                                    : NULL;
    if (tag == NULL)
        return 0;
    // HEADER_OUT is the whole head; every line gets its mark.
    while (n > 0) {
        const char *nl = memchr(p, '\n', n);
        size_t len = nl != NULL ? (size_t)(nl - p) + 1 : n;
        (void)sh_write(h->xh_cx, 2, tag, 2);
        (void)sh_write(h->xh_cx, 2, p, len);
        if (nl == NULL)
            (void)sh_write(h->xh_cx, 2, "\n", 1);
        p += len;
        n -= len;
    }
    return 0;
}

/* A header a redirect hop may not carry (§3.12: no cookies, no auth),
 * as -H wrote it ("Name: value", or "Name;" for an empty one). */
static bool
xf_private_header(const char *h)
{
    static const char *const names[] = {"authorization", "cookie",
                                        "proxy-authorization"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        size_t n = strlen(names[i]);
        if (strncasecmp(h, names[i], n) == 0 && (h[n] == ':' || h[n] == ';'))
            return true;
    }
    return false;
}

/* The -H headers a hop sends: all of them on the first, else all but the
 * private ones (*out the caller's to free; NULL is no headers). */
static bool
xf_hop_headers(const http_req *rq, bool first, struct curl_slist **out)
{
    *out = NULL;
    for (const struct curl_slist *l = rq->hr_headers; l != NULL; l = l->next) {
        if (!first && xf_private_header(l->data))
            continue;
        struct curl_slist *n = curl_slist_append(*out, l->data);
        if (n == NULL) {
            curl_slist_free_all(*out);
            *out = NULL;
            return false;
        }
        *out = n;
    }
    return true;
}

static bool
xf_set_all(CURL *e, xf_hop *h, const http_target *t, const http_req *rq,
           bool first, const sh_host_opts *ho, const box_procspec_egress *eg,
           struct curl_slist *resolve, struct curl_slist *headers, long left_ms)
{
    char proxy[64];
    snprintf(proxy, sizeof proxy, "http://127.0.0.1:%u", eg->eg_port);
    bool ok = true;
#define XF_SET(opt, v) ok = ok && curl_easy_setopt(e, opt, v) == CURLE_OK
    XF_SET(CURLOPT_CURLU, t->ct_url);
    // https: the tunnel is made (http_tunnel); libcurl speaks TLS on it
    // as if to the host, its name "resolved" to the socket it is handed.
    // http: the gateway as the proxy, asked in absolute form. Never the
    // environment's proxy, never a resolver.
    XF_SET(CURLOPT_PROXY, t->ct_https ? "" : proxy);
    XF_SET(CURLOPT_RESOLVE, resolve);
    XF_SET(CURLOPT_OPENSOCKETFUNCTION, xf_open);
    XF_SET(CURLOPT_OPENSOCKETDATA, h);
    XF_SET(CURLOPT_SOCKOPTFUNCTION, xf_sockopt);
    XF_SET(CURLOPT_SOCKOPTDATA, h);
    XF_SET(CURLOPT_FORBID_REUSE, 1L); // the gateway: one request a socket
    XF_SET(CURLOPT_FRESH_CONNECT, 1L);
    XF_SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
    XF_SET(CURLOPT_NOSIGNAL, 1L);
    XF_SET(CURLOPT_PROTOCOLS_STR, "http,https");
    XF_SET(CURLOPT_FOLLOWLOCATION, 0L); // hops are ours, each floored
    // Only the run's CA: the gateway terminates every TLS (§6).
    struct curl_blob blob = {.data = (void *)ho->ho_egress_ca,
                             .len = ho->ho_egress_ca_len,
                             .flags = CURL_BLOB_NOCOPY};
    XF_SET(CURLOPT_CAINFO, NULL);
    XF_SET(CURLOPT_CAPATH, NULL);
    if (t->ct_https)
        XF_SET(CURLOPT_CAINFO_BLOB, &blob);
    XF_SET(CURLOPT_SSL_VERIFYPEER, rq->hr_insecure ? 0L : 1L);
    XF_SET(CURLOPT_SSL_VERIFYHOST, rq->hr_insecure ? 0L : 2L);
    XF_SET(CURLOPT_HEADERFUNCTION, xf_header);
    XF_SET(CURLOPT_HEADERDATA, h);
    XF_SET(CURLOPT_WRITEFUNCTION, xf_body);
    XF_SET(CURLOPT_WRITEDATA, h);
    XF_SET(CURLOPT_NOPROGRESS, 0L);
    XF_SET(CURLOPT_XFERINFOFUNCTION, xf_progress);
    XF_SET(CURLOPT_XFERINFODATA, h);
    XF_SET(CURLOPT_TIMEOUT_MS, left_ms > 0 ? left_ms : 1L);
    XF_SET(CURLOPT_USERAGENT, rq->hr_agent);
    if (rq->hr_nobody)
        XF_SET(CURLOPT_NOBODY, 1L);
    XF_SET(CURLOPT_HTTPHEADER, headers);
    if (rq->hr_verbose) {
        XF_SET(CURLOPT_VERBOSE, 1L);
        XF_SET(CURLOPT_DEBUGFUNCTION, xf_debug);
        XF_SET(CURLOPT_DEBUGDATA, h);
    }
    // A hop carries no body, cookies or credentials (§3.12).
    if (first) {
        if (rq->hr_body != NULL) {
            XF_SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->hr_body_len);
            XF_SET(CURLOPT_POSTFIELDS, rq->hr_body);
        }
        if (rq->hr_method != NULL)
            XF_SET(CURLOPT_CUSTOMREQUEST, rq->hr_method);
        if (rq->hr_cookie != NULL)
            XF_SET(CURLOPT_COOKIE, rq->hr_cookie);
        if (rq->hr_user != NULL)
            XF_SET(CURLOPT_USERPWD, rq->hr_user);
    }
#undef XF_SET
    return ok;
}

/* The bit of t's scheme among CURLPROTO_*. */
static unsigned
xf_proto_bit(const http_target *t)
{
    return t->ct_https ? CURLPROTO_HTTPS : CURLPROTO_HTTP;
}

/* A marked answer: the gateway's reason, its body's first line (none
 * when the body is empty). */
static void
xf_refused(http_result *res, const char *body, size_t len)
{
    size_t n = 0;
    while (n < len && body[n] != '\r' && body[n] != '\n')
        n++;
    if (n == 0)
        xf_fail(res, HTTP_REFUSED, NULL);
    else
        xf_fail(res, HTTP_REFUSED, "%.*s", (int)n, body);
}

/* The CONNECT for an https hop, made by hand (http_tunnel) so a refusal's
 * reason is seen; then the authority's name "resolves" to a placeholder:
 * libcurl asks no resolver and is handed the tunnel in place of a
 * connection. False with the outcome set. */
static bool
xf_hop_tunnel(const http_target *t, int sock, long deadline, http_result *res,
              struct curl_slist **resolve)
{
    char *reason = NULL, *ent = NULL;
    bool ok = false;
    http_tunnel_rc tr = http_tunnel(sock, t->ct_authority, deadline, &reason);
    if (tr == HTTP_TUNNEL_REFUSED) {
        xf_refused(res, reason, strlen(reason));
    } else if (tr == HTTP_TUNNEL_TIMEOUT) {
        xf_fail(res, HTTP_TIMEOUT, NULL);
    } else if (tr == HTTP_TUNNEL_NOMEM) {
        xf_fail(res, HTTP_NOMEM, NULL);
    } else if (tr != HTTP_TUNNEL_OK) {
        // The gateway's own failure (502: an upstream it could not
        // resolve or reach) in its first line, or nothing to say.
        size_t n = reason != NULL ? strcspn(reason, "\r\n") : 0;
        if (n > 0)
            xf_fail(res, HTTP_NO_TUNNEL, "%.*s", (int)n, reason);
        else
            xf_fail(res, HTTP_NO_TUNNEL,
                    "the egress gateway did not open a tunnel to %s",
                    t->ct_authority);
    } else if (t->ct_authority[0] != '[' &&
               ((ent = box_asprintf("%s:127.0.0.1", t->ct_authority)) == NULL ||
                (*resolve = curl_slist_append(NULL, ent)) == NULL)) {
        xf_fail(res, HTTP_NOMEM, NULL);
    } else {
        ok = true;
    }
    box_free(ent);
    box_free(reason);
    return ok;
}

/* Keeps the answer's head and body in res: the last hop's are the
 * result's. False when out of memory. */
static bool
xf_keep(http_result *res, CURL *e, const xf_hop *h)
{
    long code = 0;
    char *ctype = NULL;
    (void)curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
    (void)curl_easy_getinfo(e, CURLINFO_CONTENT_TYPE, &ctype);
    res->hs_code = code;
    box_free(res->hs_ctype);
    box_free(res->hs_head);
    box_free(res->hs_body);
    res->hs_ctype = ctype != NULL ? box_strdup(ctype) : NULL;
    res->hs_head = box_alloc(h->xh_head.b_len + 1);
    res->hs_body = box_alloc(h->xh_body.b_len + 1);
    res->hs_head_len = h->xh_head.b_len;
    res->hs_body_len = h->xh_body.b_len;
    if ((ctype != NULL && res->hs_ctype == NULL) || res->hs_head == NULL ||
        res->hs_body == NULL)
        return false;
    if (h->xh_head.b_len > 0)
        memcpy(res->hs_head, h->xh_head.b_data, h->xh_head.b_len);
    if (h->xh_body.b_len > 0)
        memcpy(res->hs_body, h->xh_body.b_data, h->xh_body.b_len);
    res->hs_head[res->hs_head_len] = '\0';
    res->hs_body[res->hs_body_len] = '\0';
    return true;
}

/* One hop: floored target t, socket dialed. Returns true when a redirect
 * is to be followed (*next set, the caller's); else res says how it
 * ended. */
static bool
xf_hop_run(sh_ctx *cx, const http_req *rq, http_target *t, const char *url,
           bool first, int sock, long deadline, http_result *res, char **next)
{
    const sh_host_opts *ho = cx->cx_ss->ss_o.so_host;
    xf_hop h = {.xh_cx = cx, .xh_rq = rq, .xh_sock = sock};
    box_buf_init(&h.xh_head, HTTP_HEAD_MAX);
    box_buf_init(&h.xh_body, HTTP_BODY_MAX);
    struct curl_slist *resolve = NULL, *headers = NULL;
    CURL *e = NULL;
    bool follow = false;
    *next = NULL;
    if (t->ct_https && !xf_hop_tunnel(t, sock, deadline, res, &resolve))
        goto out;
    if (!xf_hop_headers(rq, first, &headers) ||
        (e = curl_easy_init()) == NULL ||
        !xf_set_all(e, &h, t, rq, first, ho, ho->ho_egress, resolve, headers,
                    deadline - http_now_ms())) {
        xf_fail(res, HTTP_TRANSPORT, "cannot set up the transfer");
        goto out;
    }
    char errbuf[CURL_ERROR_SIZE] = "";
    (void)curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
    CURLcode rc = curl_easy_perform(e);
    char *loc = NULL;
    (void)curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &loc);
    if (h.xh_marked) {
        xf_refused(res, h.xh_body.b_data, h.xh_body.b_len);
    } else if (h.xh_stopped) {
        xf_fail(res, HTTP_STOPPED, NULL);
    } else if (h.xh_too_big) {
        xf_fail(res, HTTP_TOO_BIG, NULL);
    } else if (rc == CURLE_OPERATION_TIMEDOUT) {
        xf_fail(res, HTTP_TIMEOUT, NULL);
    } else if (rc == CURLE_PEER_FAILED_VERIFICATION ||
               rc == CURLE_SSL_CONNECT_ERROR || rc == CURLE_SSL_CERTPROBLEM ||
               rc == CURLE_SSL_CACERT_BADFILE) {
        xf_fail(res, HTTP_TLS, "%s",
                errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc));
    } else if (rc != CURLE_OK) {
        xf_fail(res, HTTP_TRANSPORT, "%s",
                errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc));
    } else if (!xf_keep(res, e, &h)) {
        xf_fail(res, HTTP_NOMEM, NULL);
    } else {
        long code = res->hs_code;
        follow =
            rq->hr_max_redirs >= 0 && code >= 300 && code < 400 && loc != NULL;
        if (follow && (*next = box_strdup(loc)) == NULL) {
            xf_fail(res, HTTP_NOMEM, NULL);
            follow = false;
        } else {
            xf_fail(res, HTTP_DONE, NULL);
        }
        if (rq->hr_on_hop != NULL && res->hs_outcome == HTTP_DONE) {
            http_hop hop = {.hh_kind = HTTP_HOP_ANSWER,
                            .hh_url = url,
                            .hh_target = t,
                            .hh_code = code,
                            .hh_head = res->hs_head,
                            .hh_head_len = res->hs_head_len,
                            .hh_location = *next};
            rq->hr_on_hop(rq->hr_hop_arg, &hop);
        }
    }
out:
    if (h.xh_sock >= 0)
        close(h.xh_sock); // libcurl never took it
    if (e != NULL)
        curl_easy_cleanup(e);
    curl_slist_free_all(resolve);
    curl_slist_free_all(headers);
    box_buf_reset(&h.xh_head);
    box_buf_reset(&h.xh_body);
    return follow;
}

/* The floor, the scheme, the gateway and its dial for one hop's URL:
 * the socket, or -1 with the outcome set (t cleared). */
static int
xf_hop_reach(sh_ctx *cx, const char *url, const http_req *rq, bool first,
             http_target *t, http_result *res)
{
    const sh_host_opts *ho = cx->cx_ss->ss_o.so_host;
    char *reason = NULL, *err = NULL;
    int sock = -1;
    box_err rv = http_floor(url, t, &reason);
    if (rv != BOX_OK) {
        if (rv == BOX_EDENIED)
            xf_fail(res, HTTP_FLOOR, "%s", reason);
        else
            xf_fail(res, HTTP_NOMEM, NULL);
        box_free(reason);
        return -1;
    }
    unsigned allowed = first ? rq->hr_proto : rq->hr_proto_redir;
    if ((allowed & xf_proto_bit(t)) == 0) {
        xf_fail(res, HTTP_PROTO, "%s", t->ct_scheme);
        goto fail;
    }
    if (ho == NULL || ho->ho_egress == NULL || ho->ho_dial == NULL) {
        xf_fail(res, HTTP_NO_NETWORK, NULL);
        goto fail;
    }
    if (t->ct_https && ho->ho_egress_ca == NULL) {
        xf_fail(res, HTTP_NO_CA, NULL);
        goto fail;
    }
    if (rq->hr_on_hop != NULL) {
        http_hop hop = {.hh_kind = HTTP_HOP_ASK, .hh_url = url, .hh_target = t};
        rq->hr_on_hop(rq->hr_hop_arg, &hop);
    }
    rv = ho->ho_dial(ho->ho_dial_arg, &sock, &err);
    if (rv != BOX_OK) {
        xf_fail(res, HTTP_NO_GATEWAY, "%s",
                err != NULL ? err : box_strerror(rv));
        box_free(err);
        if (sock >= 0)
            close(sock);
        goto fail;
    }
    return sock;
fail:
    http_target_clear(t);
    return -1;
}

void
http_run(sh_ctx *cx, const char *url, const http_req *rq, http_result *res)
{
    char *cur = box_strdup(url);
    long deadline = http_now_ms() +
                    (rq->hr_timeout_ms > 0 ? rq->hr_timeout_ms : XF_CALL_MS);
    memset(res, 0, sizeof *res);
    if (cur == NULL) {
        xf_fail(res, HTTP_NOMEM, NULL);
        return;
    }
    for (int hop = 0;; hop++) {
        http_target t;
        box_free(res->hs_url);
        if ((res->hs_url = box_strdup(cur)) == NULL) {
            xf_fail(res, HTTP_NOMEM, NULL);
            break;
        }
        int sock = xf_hop_reach(cx, cur, rq, hop == 0, &t, res);
        if (sock < 0)
            break;
        char *next = NULL;
        bool follow =
            xf_hop_run(cx, rq, &t, cur, hop == 0, sock, deadline, res, &next);
        http_target_clear(&t);
        box_free(cur);
        cur = next;
        if (!follow)
            break;
        if (hop == rq->hr_max_redirs) {
            xf_fail(res, HTTP_REDIRS, NULL);
            break;
        }
    }
    if (res->hs_outcome != HTTP_DONE) {
        // Only an answer's body is ever shown; a refusal's never is.
        box_free(res->hs_body);
        res->hs_body = NULL;
        res->hs_body_len = 0;
    }
    box_free(cur);
}

char *
http_outcome_text(const http_say *tab, const http_result *res)
{
    const http_say *r = &tab[res->hs_outcome];
    if (r->hy_lead == NULL)
        return NULL;
    const char *d = res->hs_detail != NULL ? res->hs_detail : r->hy_fallback;
    return box_asprintf("%s%s%s", r->hy_lead, d != NULL ? d : "",
                        r->hy_tail != NULL ? r->hy_tail : "");
}
