/* SPDX-License-Identifier: Apache-2.0 */
/* curl's transfer (box-spec §3.12): the floor, then the gateway as the
 * only proxy on a socket the broker connected, the run's CA the only
 * trust, each redirect hop floored and dialed again. */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_procspec.h"
#include "cmd_curl.h"
#include "sh_internal.h"

#define XF_REDIRS_MAX 10        // -L (§3.12)
#define XF_HEAD_MAX (64u << 10) // one hop's response headers
#define XF_CALL_MS 30000L       // no -m: the call's own budget bounds it

/* One hop's transfer state, shared with libcurl's callbacks. */
typedef struct xf_hop {
    sh_ctx *xh_cx;
    const curl_req *xh_rq;
    int xh_sock;     // the dialed socket until libcurl takes it
    box_buf xh_head; // this hop's response headers
    box_buf xh_body;
    bool xh_marked, xh_too_big, xh_stopped;
} xf_hop;

void
curl_result_clear(curl_result *res)
{
    box_free(res->cs_msg);
    box_free(res->cs_out);
    box_free(res->cs_ctype);
    box_free(res->cs_url);
    memset(res, 0, sizeof *res);
}

/* Sets the outcome: status and the message after "curl: " (printf). */
static void __attribute__((format(printf, 4, 5)))
xf_fail(curl_result *res, int status, bool always, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    box_free(res->cs_msg);
    box_buf b;
    box_buf_init(&b, 1u << 16);
    res->cs_msg =
        box_buf_vprintf(&b, fmt, ap) == BOX_OK ? box_buf_take(&b) : NULL;
    box_buf_reset(&b);
    va_end(ap);
    res->cs_status = status;
    res->cs_always = always;
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
    if (h->xh_body.b_len + n > CURL_BODY_MAX) {
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
xf_hop_headers(const curl_req *rq, bool first, struct curl_slist **out)
{
    *out = NULL;
    for (const struct curl_slist *l = rq->cr_headers; l != NULL; l = l->next) {
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
xf_set_all(CURL *e, xf_hop *h, const curl_target *t, const curl_req *rq,
           bool first, const sh_host_opts *ho, const box_procspec_egress *eg,
           struct curl_slist *resolve, struct curl_slist *headers, long left_ms)
{
    char proxy[64];
    snprintf(proxy, sizeof proxy, "http://127.0.0.1:%u", eg->eg_port);
    bool ok = true;
#define XF_SET(opt, v) ok = ok && curl_easy_setopt(e, opt, v) == CURLE_OK
    XF_SET(CURLOPT_CURLU, t->ct_url);
    // https: the tunnel is made (curl_tunnel); libcurl speaks TLS on it
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
    XF_SET(CURLOPT_SSL_VERIFYPEER, rq->cr_insecure ? 0L : 1L);
    XF_SET(CURLOPT_SSL_VERIFYHOST, rq->cr_insecure ? 0L : 2L);
    XF_SET(CURLOPT_HEADERFUNCTION, xf_header);
    XF_SET(CURLOPT_HEADERDATA, h);
    XF_SET(CURLOPT_WRITEFUNCTION, xf_body);
    XF_SET(CURLOPT_WRITEDATA, h);
    XF_SET(CURLOPT_NOPROGRESS, 0L);
    XF_SET(CURLOPT_XFERINFOFUNCTION, xf_progress);
    XF_SET(CURLOPT_XFERINFODATA, h);
    XF_SET(CURLOPT_TIMEOUT_MS, left_ms > 0 ? left_ms : 1L);
    XF_SET(CURLOPT_USERAGENT,
           rq->cr_agent != NULL ? rq->cr_agent : "curl/" LIBCURL_VERSION);
    XF_SET(CURLOPT_HTTPHEADER, headers);
    if (rq->cr_verbose) {
        XF_SET(CURLOPT_VERBOSE, 1L);
        XF_SET(CURLOPT_DEBUGFUNCTION, xf_debug);
        XF_SET(CURLOPT_DEBUGDATA, h);
    }
    // A hop carries no body, cookies or credentials (§3.12).
    if (first) {
        if (rq->cr_body != NULL) {
            XF_SET(CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)rq->cr_body_len);
            XF_SET(CURLOPT_POSTFIELDS, rq->cr_body);
        }
        if (rq->cr_method != NULL)
            XF_SET(CURLOPT_CUSTOMREQUEST, rq->cr_method);
        if (rq->cr_cookie != NULL)
            XF_SET(CURLOPT_COOKIE, rq->cr_cookie);
        if (rq->cr_user != NULL)
            XF_SET(CURLOPT_USERPWD, rq->cr_user);
    }
#undef XF_SET
    return ok;
}

/* The bit of t's scheme among CURLPROTO_*. */
static unsigned
xf_proto_bit(const curl_target *t)
{
    return t->ct_https ? CURLPROTO_HTTPS : CURLPROTO_HTTP;
}

/* A marked answer: the gateway's reason, its body's first line. */
static void
xf_refused(curl_result *res, const box_buf *body)
{
    const char *b = body->b_len > 0 ? body->b_data : "";
    size_t n = strcspn(b, "\r\n");
    if (n == 0)
        xf_fail(res, 1, true, "the egress gateway refused this request");
    else
        xf_fail(res, 1, true, "%.*s", (int)n, b);
}

/* One hop: floored target t, socket dialed. Returns true when a redirect
 * is to be followed (*next set, the caller's). */
static bool
xf_hop_run(sh_ctx *cx, const curl_req *rq, curl_target *t, bool first,
           const sh_host_opts *ho, const box_procspec_egress *eg, int sock,
           long deadline, box_buf *out, curl_result *res, char **next)
{
    xf_hop h = {.xh_cx = cx, .xh_rq = rq, .xh_sock = sock};
    box_buf_init(&h.xh_head, XF_HEAD_MAX);
    box_buf_init(&h.xh_body, CURL_BODY_MAX);
    struct curl_slist *resolve = NULL, *headers = NULL;
    CURL *e = NULL;
    char *reason = NULL, *ent = NULL;
    bool follow = false;
    *next = NULL;
    if (t->ct_https) {
        curl_tunnel_rc tr =
            curl_tunnel(sock, t->ct_authority, deadline, &reason);
        if (tr == CURL_TUNNEL_REFUSED) {
            box_buf rb = {.b_data = reason, .b_len = strlen(reason)};
            xf_refused(res, &rb);
            goto out;
        }
        if (tr == CURL_TUNNEL_TIMEOUT) {
            xf_fail(res, 28, false, "(28) Operation timed out");
            goto out;
        }
        if (tr != CURL_TUNNEL_OK) {
            // The gateway's own failure (502: an upstream it could not
            // resolve or reach) in its first line, or what went wrong.
            size_t n = reason != NULL ? strcspn(reason, "\r\n") : 0;
            if (n > 0)
                xf_fail(res, 6, false, "(6) %.*s", (int)n, reason);
            else
                xf_fail(res, 6, false,
                        "(6) the egress gateway did not open a tunnel to %s",
                        t->ct_authority);
            goto out;
        }
        // The authority's name "resolves" to a placeholder: libcurl asks
        // no resolver and is handed the tunnel in place of a connection.
        if (t->ct_authority[0] != '[' &&
            ((ent = box_asprintf("%s:127.0.0.1", t->ct_authority)) == NULL ||
             (resolve = curl_slist_append(NULL, ent)) == NULL)) {
            xf_fail(res, 1, true, "out of memory");
            goto out;
        }
    }
    if (!xf_hop_headers(rq, first, &headers) ||
        (e = curl_easy_init()) == NULL ||
        !xf_set_all(e, &h, t, rq, first, ho, eg, resolve, headers,
                    deadline - curl_now_ms())) {
        xf_fail(res, 1, true, "cannot set up the transfer");
        goto out;
    }
    char errbuf[CURL_ERROR_SIZE] = "";
    (void)curl_easy_setopt(e, CURLOPT_ERRORBUFFER, errbuf);
    CURLcode rc = curl_easy_perform(e);
    long code = 0;
    char *ctype = NULL, *loc = NULL;
    (void)curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &code);
    (void)curl_easy_getinfo(e, CURLINFO_CONTENT_TYPE, &ctype);
    (void)curl_easy_getinfo(e, CURLINFO_REDIRECT_URL, &loc);
    res->cs_code = code;
    res->cs_size = h.xh_body.b_len;
    box_free(res->cs_ctype);
    res->cs_ctype = ctype != NULL ? box_strdup(ctype) : NULL;
    if (h.xh_marked) {
        xf_refused(res, &h.xh_body);
    } else if (h.xh_stopped) {
        res->cs_status = 1; // the shell says why the call ended
    } else if (h.xh_too_big) {
        xf_fail(res, 6, false, "(6) response body too large");
    } else if (rc == CURLE_OPERATION_TIMEDOUT) {
        xf_fail(res, 28, false, "(28) Operation timed out");
    } else if (rc != CURLE_OK) {
        xf_fail(res, 6, false, "(6) %s",
                errbuf[0] != '\0' ? errbuf : curl_easy_strerror(rc));
    } else if (rq->cr_location && code >= 300 && code < 400 && loc != NULL) {
        if (rq->cr_include &&
            box_buf_append(out, h.xh_head.b_data, h.xh_head.b_len) != BOX_OK)
            xf_fail(res, 1, true, "out of memory");
        else if ((*next = box_strdup(loc)) == NULL)
            xf_fail(res, 1, true, "out of memory");
        else
            follow = true;
    } else if (rq->cr_fail && code >= 400) {
        xf_fail(res, 22, false, "(22) The requested URL returned error: %ld",
                code);
    } else if ((rq->cr_include && h.xh_head.b_len > 0 &&
                box_buf_append(out, h.xh_head.b_data, h.xh_head.b_len) !=
                    BOX_OK) ||
               (h.xh_body.b_len > 0 &&
                box_buf_append(out, h.xh_body.b_data, h.xh_body.b_len) !=
                    BOX_OK)) {
        xf_fail(res, 1, true, "out of memory");
    }
out:
    if (h.xh_sock >= 0)
        close(h.xh_sock); // libcurl never took it
    if (e != NULL)
        curl_easy_cleanup(e);
    curl_slist_free_all(resolve);
    curl_slist_free_all(headers);
    box_free(ent);
    box_free(reason);
    box_buf_reset(&h.xh_head);
    box_buf_reset(&h.xh_body);
    return follow;
}

void
curl_run(sh_ctx *cx, const char *url, const curl_req *rq, curl_result *res)
{
    const sh_host_opts *ho = cx->cx_ss->ss_o.so_host;
    const box_procspec_egress *eg = ho != NULL ? ho->ho_egress : NULL;
    box_buf out;
    box_buf_init(&out,
                 (size_t)(XF_REDIRS_MAX + 1) * (XF_HEAD_MAX + CURL_BODY_MAX));
    char *cur = box_strdup(url), *reason = NULL;
    long deadline = curl_now_ms() +
                    (rq->cr_timeout_ms > 0 ? rq->cr_timeout_ms : XF_CALL_MS);
    memset(res, 0, sizeof *res);
    if (cur == NULL) {
        xf_fail(res, 1, true, "out of memory");
        goto out;
    }
    for (int hop = 0;; hop++) {
        curl_target t;
        box_free(res->cs_url);
        res->cs_url = box_strdup(cur);
        box_err rv = curl_floor(cur, &t, &reason);
        if (rv != BOX_OK) {
            if (rv == BOX_EDENIED)
                xf_fail(res, 1, true, "%s", reason);
            else
                xf_fail(res, 1, true, "out of memory");
            goto out;
        }
        unsigned allowed = hop == 0 ? rq->cr_proto : rq->cr_proto_redir;
        if ((allowed & xf_proto_bit(&t)) == 0) {
            xf_fail(res, 1, false, "(1) Protocol \"%s\" disabled", t.ct_scheme);
            curl_target_clear(&t);
            goto out;
        }
        if (eg == NULL || ho->ho_dial == NULL) {
            xf_fail(res, 7, false, "(7) the box has no network");
            curl_target_clear(&t);
            goto out;
        }
        if (t.ct_https && ho->ho_egress_ca == NULL) {
            xf_fail(res, 7, false,
                    "(7) the run's CA certificate was not "
                    "readable when the shell started");
            curl_target_clear(&t);
            goto out;
        }
        int sock = -1;
        char *err = NULL;
        rv = ho->ho_dial(ho->ho_dial_arg, &sock, &err);
        if (rv != BOX_OK) {
            xf_fail(res, 7, false, "(7) cannot reach the egress gateway: %s",
                    err != NULL ? err : box_strerror(rv));
            box_free(err);
            if (sock >= 0)
                close(sock);
            curl_target_clear(&t);
            goto out;
        }
        char *next = NULL;
        bool follow = xf_hop_run(cx, rq, &t, hop == 0, ho, eg, sock, deadline,
                                 &out, res, &next);
        curl_target_clear(&t);
        box_free(cur);
        cur = next;
        if (!follow)
            break;
        if (hop == XF_REDIRS_MAX) {
            xf_fail(res, 47, false, "(47) Maximum (%d) redirects followed",
                    XF_REDIRS_MAX);
            break;
        }
    }
    if (res->cs_status == 0) {
        res->cs_out_len = out.b_len;
        res->cs_out = box_buf_take(&out);
    }
out:
    box_buf_reset(&out);
    box_free(cur);
    box_free(reason);
}
