/* SPDX-License-Identifier: Apache-2.0 */
/* One HTTP/1.1 proxy request head, read incrementally (gw_http.h). */
#include "gw_http.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "box_hex.h"
#include "gw_chars.h"

/*
 * The parser works a line at a time: a line is read once its LF has
 * arrived, and only then, so the bytes of a line never reach a decision
 * in two different splits. The only check on a line still arriving is
 * the one that cannot change as it grows: its length against the limits
 * (and whether it can still start with a method), so a client cannot
 * hold a buffer open by never ending a line. Every check is thus a
 * function of the bytes so far, and a refusal found on a prefix is the
 * refusal found on the whole.
 */

/* Every refusal. ORDER HERR: herr_tab lists them in this order. */
typedef enum herr {
    H_OK,
    H_LINE_LONG,
    H_FIELD_LONG,
    H_HEAD_LONG,
    H_FIELDS_MANY,
    H_NOT_HTTP,
    H_BARE_LF,
    H_BARE_CR,
    H_REQLINE,
    H_VERSION_SYNTAX,
    H_VERSION,
    H_METHOD,
    H_TARGET_BYTE,
    H_FRAGMENT,
    H_CONNECT_FORM,
    H_ASTERISK,
    H_ORIGIN,
    H_HTTPS,
    H_HTTP_IN_TUNNEL,
    H_SCHEME,
    H_TARGET,
    H_TARGET_AUTH,
    H_PATH,
    H_OBS_FOLD,
    H_FIELD_COLON,
    H_FIELD_WS,
    H_FIELD_NAME,
    H_FIELD_VALUE,
    H_CL,
    H_CL_BIG,
    H_CL_DUP,
    H_TE_CL,
    H_TE_HTTP10,
    H_TE_CODING,
    H_TE_TWICE,
    H_TE_EMPTY,
    H_HOST_MISSING,
    H_HOST_DUP,
    H_HOST_BAD,
    H_HOST_MISMATCH,
    H_PROXY_AUTH_DUP,
    H_COUNT
} herr;

static const struct {
    int code;
    const char *text;
} herr_tab[H_COUNT] = {
    [H_OK] = {0, ""},
    [H_LINE_LONG] = {414, "request line over 8192 bytes"},
    [H_FIELD_LONG] = {431, "a header field line over 8192 bytes"},
    [H_HEAD_LONG] = {431, "request head over 65536 bytes"},
    [H_FIELDS_MANY] = {431, "more than 100 header fields"},
    [H_NOT_HTTP] = {400, "not an HTTP request (no method token)"},
    [H_BARE_LF] = {400, "a line ending in a bare LF (CRLF required)"},
    [H_BARE_CR] = {400, "a bare CR inside a line"},
    [H_REQLINE] = {400, "malformed request line "
                        "(method SP request-target SP HTTP-version)"},
    [H_VERSION_SYNTAX] = {400, "malformed HTTP version"},
    [H_VERSION] = {505, "HTTP version not supported "
                        "(HTTP/1.0 and HTTP/1.1 only)"},
    [H_METHOD] = {501, "method not supported (GET, HEAD, POST, PUT, DELETE, "
                       "PATCH, OPTIONS, CONNECT)"},
    [H_TARGET_BYTE] = {400, "a byte not allowed in the request target"},
    [H_FRAGMENT] = {400, "a fragment (#) in the request target"},
    [H_CONNECT_FORM] = {400, "CONNECT needs an authority-form target "
                             "(host:port)"},
    [H_ASTERISK] = {400, "an asterisk-form (*) target is not supported"},
    [H_ORIGIN] = {400, "an origin-form target sent to a proxy "
                       "(send the absolute http:// URL)"},
    [H_HTTPS] = {400, "an https:// URL sent to the proxy as plain HTTP "
                      "(use CONNECT host:443 for TLS)"},
    [H_HTTP_IN_TUNNEL] = {400, "an http:// URL inside a TLS tunnel"},
    [H_SCHEME] = {400, "a URL scheme other than http://"},
    [H_TARGET] = {400, "malformed request target"},
    [H_TARGET_AUTH] = {400, "request target"},
    [H_PATH] = {400, "request path"},
    [H_OBS_FOLD] = {400, "obsolete line folding (a field line starting "
                         "with whitespace)"},
    [H_FIELD_COLON] = {400, "a header field line without a colon"},
    [H_FIELD_WS] = {400, "whitespace between a header field name and its "
                         "colon"},
    [H_FIELD_NAME] = {400, "a header field name that is not a token"},
    [H_FIELD_VALUE] = {400, "a control byte in a header field value"},
    [H_CL] = {400, "a Content-Length that is not decimal digits"},
    [H_CL_BIG] = {400, "a Content-Length too large"},
    [H_CL_DUP] = {400, "Content-Length fields that disagree"},
    [H_TE_CL] = {400, "both Transfer-Encoding and Content-Length "
                      "(request smuggling)"},
    [H_TE_HTTP10] = {400, "Transfer-Encoding in an HTTP/1.0 request"},
    [H_TE_CODING] = {501, "a transfer coding other than chunked"},
    [H_TE_TWICE] = {400, "chunked transfer coding applied more than once"},
    [H_TE_EMPTY] = {400, "an empty Transfer-Encoding"},
    [H_HOST_MISSING] = {400, "no Host header field (required in HTTP/1.1)"},
    [H_HOST_DUP] = {400, "more than one Host header field"},
    [H_HOST_BAD] = {400, "Host"},
    [H_HOST_MISMATCH] = {400, "Host names another authority than the "
                              "request target"},
    [H_PROXY_AUTH_DUP] = {400, "more than one Proxy-Authorization header "
                               "field"},
};

/* ORDER GW_HTTP_METHOD */
static const char *const method_tab[GW_HTTP_METHOD_COUNT] = {
    "GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "CONNECT",
};

#define CL_MAX ((uint64_t)INT64_MAX) // body_bytes is a Cedar Long

struct gw_http_parser {
    box_arena *p_arena;
    gw_http_opts p_opts;
    gw_http_status p_status; // MORE until it settles, then sticky
    size_t p_line;           // offset of the current line's first byte
    size_t p_scan;           // bytes of it already searched for LF
    bool p_have_reqline;
    size_t p_used;
    int p_code;
    const char *p_reason;
    char p_reason_buf[192]; // a table text with a detail after it
    gw_http_req p_req;
    uint16_t p_default_port; // of the target's scheme
    // Field facts gathered line by line, judged at the empty line.
    const char *p_host;
    size_t p_host_len;
    bool p_te_seen, p_te_unknown;
    unsigned p_te_chunked, p_te_elems;
    bool p_conn_close, p_conn_keep;
};

gw_http_parser *
gw_http_parser_new(box_arena *a, const gw_http_opts *opts)
{
    gw_http_parser *p = box_arena_zalloc(a, sizeof(*p));
    if (p == NULL)
        return NULL;
    p->p_arena = a;
    if (opts != NULL)
        p->p_opts = *opts;
    p->p_status = GW_HTTP_MORE;
    return p;
}

static void
set_bad(gw_http_parser *p, herr e, const char *detail)
{
    p->p_status = GW_HTTP_BAD;
    p->p_code = herr_tab[e].code;
    p->p_reason = herr_tab[e].text;
    if (detail != NULL) {
        snprintf(p->p_reason_buf, sizeof p->p_reason_buf, "%s: %s",
                 herr_tab[e].text, detail);
        p->p_reason = p->p_reason_buf;
    }
}

/* Sets BAD (or NOMEM) unless e is H_OK; whether parsing goes on. */
static bool
ok(gw_http_parser *p, herr e, const char *detail)
{
    if (e == H_OK)
        return true;
    set_bad(p, e, detail);
    return false;
}

static bool
nomem(gw_http_parser *p)
{
    p->p_status = GW_HTTP_NOMEM;
    return false;
}

/* ---- character classes (RFC 9110 §5.6.2, RFC 3986 §2) ---- */

static bool
is_token(const char *s, size_t n)
{
    if (n == 0)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!gw_is_tchar((unsigned char)s[i]))
            return false;
    return true;
}

static bool
is_ows(char c)
{
    return c == ' ' || c == '\t';
}

static bool
is_unreserved(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
           (c >= 'A' && c <= 'Z') || c == '-' || c == '.' || c == '_' ||
           c == '~';
}

/* pchar without pct-encoded, plus '/': what a path holds as itself. */
static bool
is_path_byte(unsigned char c)
{
    return is_unreserved(c) ||
           (c != '\0' && strchr("!$&'()*+,;=:@/", c) != NULL);
}

static bool
ci_eq(const char *a, size_t an, const char *b)
{
    size_t bn = strlen(b);
    if (an != bn)
        return false;
    for (size_t i = 0; i < an; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];
        if (x >= 'A' && x <= 'Z')
            x = (unsigned char)(x - 'A' + 'a');
        if (y >= 'A' && y <= 'Z')
            y = (unsigned char)(y - 'A' + 'a');
        if (x != y)
            return false;
    }
    return true;
}

/* ---- the path (RFC 3986 §6.2.2, §5.2.4) ---- */

/* Removes dot segments from b[0..n) (which starts with '/') in place;
 * the new length. Each segment is read whole, so ".." never joins two
 * others into a new dot segment. */
static size_t
remove_dots(char *b, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n;) {
        size_t j = i + 1;
        while (j < n && b[j] != '/')
            j++;
        size_t sl = j - i - 1;
        bool last = j == n;
        if (sl == 1 && b[i + 1] == '.') {
            if (last)
                b[w++] = '/';
        } else if (sl == 2 && b[i + 1] == '.' && b[i + 2] == '.') {
            while (w > 0 && b[w - 1] != '/')
                w--;
            if (w > 0)
                w--;
            if (last)
                b[w++] = '/';
        } else {
            memmove(b + w, b + i, j - i);
            w += j - i;
        }
        i = j;
    }
    if (w == 0)
        b[w++] = '/';
    return w;
}

box_err
gw_http_path_canon(const char *s, size_t n, char *out, size_t *out_len,
                   const char **why)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t o = 0;
    if (n > 0 && s[0] != '/') {
        *why = "a path not starting with '/'";
        return BOX_EINVAL;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '%') {
            int hi = i + 1 < n ? box_hexval((unsigned char)s[i + 1]) : -1;
            int lo = i + 2 < n ? box_hexval((unsigned char)s[i + 2]) : -1;
            if (hi < 0 || lo < 0) {
                *why = "a bad percent-encoding";
                return BOX_EINVAL;
            }
            unsigned char v = (unsigned char)(hi << 4 | lo);
            if (v == 0) {
                *why = "an encoded NUL";
                return BOX_EINVAL;
            }
            if (is_unreserved(v)) {
                out[o++] = (char)v;
            } else {
                out[o++] = '%';
                out[o++] = hex[v >> 4];
                out[o++] = hex[v & 15];
            }
            i += 2;
        } else if (is_path_byte(c)) {
            out[o++] = (char)c;
        } else {
            *why = c == '\0' ? "a NUL byte" : "a byte not allowed in a path";
            return BOX_EINVAL;
        }
    }
    o = o == 0 ? 0 : remove_dots(out, o);
    if (o == 0)
        out[o++] = '/';
    out[o] = '\0';
    *out_len = o;
    return BOX_OK;
}

/* ---- the request line (RFC 9112 §3) ---- */

/* Splits an absolute-form or origin-form target at '?' into the canonical
 * path and the raw query. */
static bool
set_path(gw_http_parser *p, const char *t, size_t n)
{
    const char *q = memchr(t, '?', n);
    size_t pn = q != NULL ? (size_t)(q - t) : n;
    char *path = box_arena_alloc(p->p_arena, pn + 2);
    if (path == NULL)
        return nomem(p);
    const char *why = NULL;
    if (gw_http_path_canon(t, pn, path, &p->p_req.rq_path_len, &why) != BOX_OK)
        return ok(p, H_PATH, why);
    p->p_req.rq_path = path;
    if (q != NULL) {
        size_t qn = n - pn - 1;
        p->p_req.rq_query = box_arena_strndup(p->p_arena, q + 1, qn);
        if (p->p_req.rq_query == NULL)
            return nomem(p);
        p->p_req.rq_query_len = qn;
    }
    return true;
}

/* The length of t[0..n)'s scheme when it starts "scheme://" (RFC 3986
 * §3.1); 0 when it does not. */
static size_t
scheme_len(const char *t, size_t n)
{
    size_t i = 0;
    if (n == 0 ||
        !((t[0] >= 'a' && t[0] <= 'z') || (t[0] >= 'A' && t[0] <= 'Z')))
        return 0;
    while (i < n && (is_unreserved((unsigned char)t[i]) || t[i] == '+') &&
           t[i] != '_' && t[i] != '~')
        i++;
    if (n - i < 3 || memcmp(t + i, "://", 3) != 0)
        return 0;
    return i;
}

/*
 * absolute-form = "http://" authority path-abempty [ "?" query ]
 * ("https://" inside an intercepted tunnel, where the scheme is TLS's)
 */
static bool
target_absolute(gw_http_parser *p, const char *t, size_t n)
{
    size_t sn = scheme_len(t, n);
    if (sn == 0)
        return ok(p, H_TARGET, NULL);
    bool https = ci_eq(t, sn, "https");
    if (!https && !ci_eq(t, sn, "http"))
        return ok(p, H_SCHEME, NULL);
    if (https && !p->p_opts.ho_intercepted)
        return ok(p, H_HTTPS, NULL);
    if (!https && p->p_opts.ho_intercepted)
        return ok(p, H_HTTP_IN_TUNNEL, NULL);
    p->p_default_port = https ? 443 : 80;
    const char *a = t + sn + 3;
    size_t rest = n - sn - 3, an = 0;
    while (an < rest && a[an] != '/' && a[an] != '?')
        an++;
    const char *why = NULL;
    if (gw_addr_authority(a, an, p->p_default_port, &p->p_req.rq_authority,
                          &why) != BOX_OK)
        return ok(p, H_TARGET_AUTH, why);
    p->p_req.rq_has_authority = true;
    p->p_req.rq_form = GW_HTTP_FORM_ABSOLUTE;
    return set_path(p, a + an, rest - an);
}

/* request-target = origin-form / absolute-form / authority-form /
 * asterisk-form, by method and by whether a tunnel carries it. */
static bool
parse_target(gw_http_parser *p, const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)t[i] <= 0x20 || (unsigned char)t[i] >= 0x7f)
            return ok(p, H_TARGET_BYTE, NULL);
    if (memchr(t, '#', n) != NULL)
        return ok(p, H_FRAGMENT, NULL);
    if (p->p_req.rq_method == GW_HTTP_CONNECT) {
        if (memchr(t, '/', n) != NULL || (n == 1 && t[0] == '*'))
            return ok(p, H_CONNECT_FORM, NULL);
        const char *why = NULL;
        if (gw_addr_authority(t, n, 0, &p->p_req.rq_authority, &why) != BOX_OK)
            return ok(p, H_TARGET_AUTH, why);
        p->p_req.rq_has_authority = true;
        p->p_req.rq_form = GW_HTTP_FORM_AUTHORITY;
        p->p_default_port = p->p_req.rq_authority.a_port;
        return true;
    }
    if (n == 1 && t[0] == '*')
        return ok(p, H_ASTERISK, NULL);
    if (t[0] == '/') {
        if (!p->p_opts.ho_intercepted)
            return ok(p, H_ORIGIN, NULL);
        p->p_req.rq_form = GW_HTTP_FORM_ORIGIN;
        p->p_default_port = 443;
        return set_path(p, t, n);
    }
    return target_absolute(p, t, n);
}

/* HTTP-version = "HTTP/" DIGIT "." DIGIT */
static bool
parse_version(gw_http_parser *p, const char *v, size_t n)
{
    if (n != 8 || memcmp(v, "HTTP/", 5) != 0 || v[5] < '0' || v[5] > '9' ||
        v[6] != '.' || v[7] < '0' || v[7] > '9')
        return ok(p, H_VERSION_SYNTAX, NULL);
    if (v[5] != '1' || (v[7] != '0' && v[7] != '1'))
        return ok(p, H_VERSION, NULL);
    p->p_req.rq_minor = (unsigned)(v[7] - '0');
    return true;
}

/* request-line = method SP request-target SP HTTP-version */
static bool
parse_request_line(gw_http_parser *p, const char *r, size_t n)
{
    const char *sp1 = memchr(r, ' ', n);
    if (sp1 == NULL)
        return ok(p, H_REQLINE, NULL);
    size_t mn = (size_t)(sp1 - r);
    const char *t = sp1 + 1;
    const char *sp2 = memchr(t, ' ', n - mn - 1);
    if (sp2 == NULL || mn == 0 || sp2 == t || !is_token(r, mn))
        return ok(p, H_REQLINE, NULL);
    size_t tn = (size_t)(sp2 - t);
    if (!parse_version(p, sp2 + 1, n - mn - tn - 2))
        return false;
    size_t m = 0;
    while (m < GW_HTTP_METHOD_COUNT &&
           !(strlen(method_tab[m]) == mn && memcmp(method_tab[m], r, mn) == 0))
        m++;
    if (m == GW_HTTP_METHOD_COUNT)
        return ok(p, H_METHOD, NULL);
    p->p_req.rq_method = (gw_http_method)m;
    p->p_req.rq_method_name = method_tab[m];
    return parse_target(p, t, tn);
}

/* ---- header fields (RFC 9110 §5, RFC 9112 §5) ---- */

/* The next element of a comma list (#element, RFC 9110 §5.6.1) from
 * *s..end, OWS trimmed; empty elements are skipped. False at the end. */
static bool
next_elem(const char **s, const char *end, const char **e, size_t *en)
{
    while (*s < end) {
        const char *c = memchr(*s, ',', (size_t)(end - *s));
        const char *stop = c != NULL ? c : end;
        const char *a = *s, *b = stop;
        *s = c != NULL ? c + 1 : end;
        while (a < b && is_ows(*a))
            a++;
        while (b > a && is_ows(b[-1]))
            b--;
        if (a < b) {
            *e = a;
            *en = (size_t)(b - a);
            return true;
        }
    }
    return false;
}

/* Content-Length = 1*DIGIT; repeated lines must agree (RFC 9110 §8.6,
 * stricter: a list in one line is refused). */
static herr
fld_content_length(gw_http_parser *p, const char *v, size_t n)
{
    uint64_t x = 0;
    if (n == 0)
        return H_CL;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < '0' || v[i] > '9')
            return H_CL;
        unsigned d = (unsigned)(v[i] - '0');
        if (x > (CL_MAX - d) / 10)
            return H_CL_BIG;
        x = x * 10 + d;
    }
    if (p->p_req.rq_has_content_length && p->p_req.rq_content_length != x)
        return H_CL_DUP;
    p->p_req.rq_has_content_length = true;
    p->p_req.rq_content_length = x;
    return H_OK;
}

/* Transfer-Encoding = #transfer-coding; judged whole at the empty line. */
static herr
fld_transfer_encoding(gw_http_parser *p, const char *v, size_t n)
{
    const char *s = v, *e;
    size_t en;
    p->p_te_seen = true;
    while (next_elem(&s, v + n, &e, &en)) {
        p->p_te_elems++;
        if (ci_eq(e, en, "chunked"))
            p->p_te_chunked++;
        else
            p->p_te_unknown = true;
    }
    return H_OK;
}

static herr
fld_host(gw_http_parser *p, const char *v, size_t n)
{
    if (p->p_host != NULL)
        return H_HOST_DUP;
    p->p_host = v;
    p->p_host_len = n;
    return H_OK;
}

static herr
fld_connection(gw_http_parser *p, const char *v, size_t n)
{
    const char *s = v, *e;
    size_t en;
    while (next_elem(&s, v + n, &e, &en)) {
        if (ci_eq(e, en, "close"))
            p->p_conn_close = true;
        else if (ci_eq(e, en, "keep-alive"))
            p->p_conn_keep = true;
    }
    return H_OK;
}

static herr
fld_proxy_authorization(gw_http_parser *p, const char *v, size_t n)
{
    if (p->p_req.rq_proxy_auth != NULL)
        return H_PROXY_AUTH_DUP;
    p->p_req.rq_proxy_auth = v;
    p->p_req.rq_proxy_auth_len = n;
    return H_OK;
}

static herr
fld_expect(gw_http_parser *p, const char *v, size_t n)
{
    if (ci_eq(v, n, "100-continue"))
        p->p_req.rq_expect_continue = true;
    return H_OK;
}

/* The fields the gateway reads; every other one is only kept. */
static const struct {
    const char *name;
    herr (*fn)(gw_http_parser *p, const char *v, size_t n);
} field_tab[] = {
    {"content-length", fld_content_length},
    {"transfer-encoding", fld_transfer_encoding},
    {"host", fld_host},
    {"connection", fld_connection},
    {"proxy-authorization", fld_proxy_authorization},
    {"expect", fld_expect},
};

/* field-line = field-name ":" OWS field-value OWS */
static bool
parse_field(gw_http_parser *p, const char *l, size_t n)
{
    if (is_ows(l[0]))
        return ok(p, H_OBS_FOLD, NULL);
    const char *colon = memchr(l, ':', n);
    if (colon == NULL)
        return ok(p, H_FIELD_COLON, NULL);
    size_t nn = (size_t)(colon - l);
    if (nn > 0 && is_ows(l[nn - 1]))
        return ok(p, H_FIELD_WS, NULL);
    if (!is_token(l, nn))
        return ok(p, H_FIELD_NAME, NULL);
    const char *v = colon + 1, *end = l + n;
    while (v < end && is_ows(*v))
        v++;
    while (end > v && is_ows(end[-1]))
        end--;
    size_t vn = (size_t)(end - v);
    for (size_t i = 0; i < vn; i++) {
        unsigned char c = (unsigned char)v[i];
        if ((c < 0x20 && c != '\t') || c == 0x7f)
            return ok(p, H_FIELD_VALUE, NULL);
    }
    gw_http_req *rq = &p->p_req;
    if (rq->rq_fields == NULL) {
        rq->rq_fields = box_arena_alloc(p->p_arena, GW_HTTP_FIELDS_MAX *
                                                        sizeof(*rq->rq_fields));
        if (rq->rq_fields == NULL)
            return nomem(p);
    }
    gw_http_field *f = &rq->rq_fields[rq->rq_nfields];
    f->f_name = box_arena_strndup(p->p_arena, l, nn);
    f->f_value = box_arena_strndup(p->p_arena, v, vn);
    if (f->f_name == NULL || f->f_value == NULL)
        return nomem(p);
    f->f_name_len = nn;
    f->f_value_len = vn;
    rq->rq_nfields++;
    for (size_t i = 0; i < sizeof field_tab / sizeof field_tab[0]; i++)
        if (ci_eq(l, nn, field_tab[i].name))
            return ok(p, field_tab[i].fn(p, f->f_value, vn), NULL);
    return true;
}

/* ---- the empty line: judgements on the head as a whole ---- */

static bool
finish_head(gw_http_parser *p)
{
    gw_http_req *rq = &p->p_req;
    if (p->p_te_seen) {
        // RFC 9112 §6.1, §6.3: the framing must be one thing, read one way.
        if (rq->rq_has_content_length)
            return ok(p, H_TE_CL, NULL);
        if (rq->rq_minor == 0)
            return ok(p, H_TE_HTTP10, NULL);
        if (p->p_te_unknown)
            return ok(p, H_TE_CODING, NULL);
        if (p->p_te_elems == 0)
            return ok(p, H_TE_EMPTY, NULL);
        if (p->p_te_chunked > 1)
            return ok(p, H_TE_TWICE, NULL);
        rq->rq_chunked = true;
    }
    if (p->p_host == NULL && rq->rq_minor == 1)
        return ok(p, H_HOST_MISSING, NULL);
    if (p->p_host != NULL) {
        gw_authority h;
        const char *why = NULL;
        if (gw_addr_authority(p->p_host, p->p_host_len, p->p_default_port, &h,
                              &why) != BOX_OK)
            return ok(p, H_HOST_BAD, why);
        if (rq->rq_form == GW_HTTP_FORM_ABSOLUTE &&
            !gw_addr_authority_eq(&h, &rq->rq_authority))
            return ok(p, H_HOST_MISMATCH, NULL);
        if (rq->rq_form == GW_HTTP_FORM_ORIGIN) {
            rq->rq_authority = h;
            rq->rq_has_authority = true;
        }
    }
    rq->rq_keep_alive =
        !p->p_conn_close && (rq->rq_minor == 1 || p->p_conn_keep);
    if (rq->rq_minor == 0)
        rq->rq_expect_continue = false; // RFC 9110 §10.1.1
    p->p_status = GW_HTTP_DONE;
    return true;
}

/* ---- lines ---- */

/*
 * The checks on a line still arriving, buf[s..s+c), c counting
 * every byte but a last CR. Each passes once c goes over a threshold of
 * its own: the line's cap; the head's (the least head the line can end,
 * s + c + CRLF, over GW_HTTP_HEAD_MAX); and on the request line, the
 * place of a byte that no method holds. c only grows as bytes arrive, so
 * the check with the lowest threshold is always the first to pass: that
 * one is named, the same on every split, and again when the line ends.
 */
static herr
line_early(const gw_http_parser *p, const char *buf, size_t s, size_t c)
{
    herr best = H_OK;
    size_t best_t = SIZE_MAX;
    if (s + 2 > GW_HTTP_HEAD_MAX) {
        best = H_HEAD_LONG; // over even when empty
        best_t = 0;
    } else if (c > GW_HTTP_HEAD_MAX - s - 2) {
        best = H_HEAD_LONG;
        best_t = GW_HTTP_HEAD_MAX - s - 2;
    }
    size_t lmax = p->p_have_reqline ? GW_HTTP_FIELD_LINE_MAX : GW_HTTP_LINE_MAX;
    if (c > lmax && lmax < best_t) {
        best = p->p_have_reqline ? H_FIELD_LONG : H_LINE_LONG;
        best_t = lmax;
    }
    /* A client speaking TLS or anything else to the port is refused at
     * once, not when a buffer fills. */
    if (!p->p_have_reqline) {
        for (size_t i = 0; i < c && i < best_t && buf[s + i] != ' '; i++) {
            if (!gw_is_tchar((unsigned char)buf[s + i])) {
                best = H_NOT_HTTP;
                break;
            }
        }
    }
    return best;
}

/* One complete line: buf[s..s+c) and its line end. */
static bool
parse_line(gw_http_parser *p, const char *buf, size_t s, size_t c, bool cr)
{
    if (!ok(p, line_early(p, buf, s, c), NULL))
        return false;
    const char *l = buf + s;
    if (!cr)
        return ok(p, H_BARE_LF, NULL);
    if (memchr(l, '\r', c) != NULL)
        return ok(p, H_BARE_CR, NULL);
    if (!p->p_have_reqline) {
        if (c == 0)
            return true; // RFC 9112 §2.2: empty lines before it are skipped
        p->p_have_reqline = true;
        return parse_request_line(p, l, c);
    }
    if (c == 0)
        return finish_head(p);
    if (p->p_req.rq_nfields == GW_HTTP_FIELDS_MAX)
        return ok(p, H_FIELDS_MANY, NULL);
    return parse_field(p, l, c);
}

static gw_http_result
result(const gw_http_parser *p)
{
    gw_http_result r = {.r_status = p->p_status};
    if (p->p_status == GW_HTTP_DONE) {
        r.r_used = p->p_used;
        r.r_req = &p->p_req;
    } else if (p->p_status == GW_HTTP_BAD) {
        r.r_code = p->p_code;
        r.r_reason = p->p_reason;
    }
    return r;
}

gw_http_result
gw_http_parse(gw_http_parser *p, const char *buf, size_t len)
{
    while (p->p_status == GW_HTTP_MORE) {
        size_t s = p->p_line, from = s + p->p_scan;
        const char *lf =
            from < len ? memchr(buf + from, '\n', len - from) : NULL;
        if (lf == NULL) {
            // A line still arriving: only what its growth cannot undo.
            size_t n = len > s ? len - s : 0;
            size_t c = n > 0 && buf[len - 1] == '\r' ? n - 1 : n;
            p->p_scan = n;
            (void)ok(p, line_early(p, buf, s, c), NULL);
            break;
        }
        size_t end = (size_t)(lf - buf);
        bool cr = end > s && buf[end - 1] == '\r';
        p->p_line = end + 1;
        p->p_scan = 0;
        if (parse_line(p, buf, s, end - s - (cr ? 1 : 0), cr) &&
            p->p_status == GW_HTTP_DONE)
            p->p_used = end + 1;
    }
    return result(p);
}
