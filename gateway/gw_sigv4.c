/* SPDX-License-Identifier: Apache-2.0 */
/* AWS SigV4: the scope a host names, the canonical request, the signature. */
#include "gw_sigv4.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_hex.h"

/* ---- Scope: service and region from a host ------------------------------ */

#define HOST_MAX 253
#define LABELS_MAX 128

static bool
is_lower(char c)
{
    return c >= 'a' && c <= 'z';
}

static bool
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* region -> ll ( '-' word )+ '-' digits: us-east-1, us-gov-west-1,
 * cn-northwest-1, us-isob-east-1. */
static bool
is_region(const char *s)
{
    size_t n = strlen(s), i = 2, words = 0;
    if (n < 2 || !is_lower(s[0]) || !is_lower(s[1]))
        return false;
    while (i < n) {
        if (s[i] != '-')
            return false;
        size_t j = ++i;
        while (i < n && is_lower(s[i]))
            i++;
        if (i > j) {
            words++;
            continue;
        }
        while (i < n && is_digit(s[i]))
            i++;
        return i > j && i == n && words > 0;
    }
    return false;
}

/* Endpoint names whose signing name differs (the SDKs' endpoint models);
 * every other endpoint signs under its own name. */
static const struct {
    const char *sn_endpoint;
    const char *sn_signing;
} sign_names[] = {
    {"email", "ses"},
    {"s3-control", "s3"},
    {"s3-accesspoint", "s3"},
    {"bedrock-runtime", "bedrock"},
    {"bedrock-agent", "bedrock"},
    {"bedrock-agent-runtime", "bedrock"},
    {"aps-workspaces", "aps"},
};

/* The endpoints of amazonaws.com that name no region: AWS's global
 * services, all signed for us-east-1. */
static const char *const global_services[] = {
    "iam",        "sts", "s3",      "route53",
    "cloudfront", "waf", "budgets", "importexport",
};

/* Services whose endpoints put the region before the service:
 * search-domain-id.us-east-1.es.amazonaws.com. */
static const char *const region_first[] = {"es", "aoss"};

#define NELEM(a) (sizeof(a) / sizeof *(a))

static bool
in_list(const char *s, const char *const *list, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (strcmp(s, list[i]) == 0)
            return true;
    return false;
}

static bool
has_suffix(const char *s, size_t n, const char *suf)
{
    size_t k = strlen(suf);
    return n > k && memcmp(s + n - k, suf, k) == 0;
}

/* service is an endpoint label: its -fips dropped, its signing name
 * looked up. */
static box_err
put_scope(const char *label, const char *region_label,
          char service[GW_SIGV4_NAME_MAX], char region[GW_SIGV4_NAME_MAX],
          const char **why)
{
    size_t n = strlen(label);
    if (has_suffix(label, n, "-fips"))
        n -= strlen("-fips");
    if (n == 0) {
        *why = "the host names no service";
        return BOX_EINVAL;
    }
    // Labels are 63 bytes at most (checked by the caller).
    memcpy(service, label, n);
    service[n] = '\0';
    for (size_t i = 0; i < NELEM(sign_names); i++)
        if (strcmp(service, sign_names[i].sn_endpoint) == 0) {
            snprintf(service, GW_SIGV4_NAME_MAX, "%s",
                     sign_names[i].sn_signing);
            break;
        }
    snprintf(region, GW_SIGV4_NAME_MAX, "%s", region_label);
    return BOX_OK;
}

box_err
gw_sigv4_scope(const char *host, char service[GW_SIGV4_NAME_MAX],
               char region[GW_SIGV4_NAME_MAX], const char **why)
{
    char h[HOST_MAX + 1];
    char *lab[LABELS_MAX];
    size_t n = 0, len = host != NULL ? strlen(host) : 0;

    service[0] = region[0] = '\0';
    if (len == 0 || len > HOST_MAX) {
        *why = "not a host name";
        return BOX_EINVAL;
    }
    for (size_t i = 0; i <= len; i++) {
        char c = host[i];
        h[i] = c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
        if (c != '\0' && !is_lower(h[i]) && !is_digit(c) && c != '-' &&
            c != '.') {
            *why = "not a host name";
            return BOX_EINVAL;
        }
    }

    // The partition: which suffixes, and whether global endpoints exist.
    bool china = false, global = false;
    if (has_suffix(h, len, ".amazonaws.com.cn")) {
        len -= strlen(".amazonaws.com.cn");
        china = true;
    } else if (has_suffix(h, len, ".amazonaws.com")) {
        len -= strlen(".amazonaws.com");
        global = true;
    } else if (has_suffix(h, len, ".api.aws")) {
        len -= strlen(".api.aws");
    } else {
        *why = "not an AWS endpoint (*.amazonaws.com, *.amazonaws.com.cn, "
               "*.api.aws)";
        return BOX_EINVAL;
    }
    h[len] = '\0';
    for (char *p = h, *dot; n < LABELS_MAX; p = dot + 1) {
        dot = strchr(p, '.');
        if (dot != NULL)
            *dot = '\0';
        if (*p == '\0' || strlen(p) > 63) {
            *why = "not a host name";
            return BOX_EINVAL;
        }
        lab[n++] = p;
        if (dot == NULL)
            break;
    }
    if (n == LABELS_MAX) {
        *why = "not a host name";
        return BOX_EINVAL;
    }

    const char *last = lab[n - 1];
    const char *prev = n >= 2 ? lab[n - 2] : "";
    if (strcmp(last, "s3-accelerate") == 0 ||
        (strcmp(last, "dualstack") == 0 &&
         strcmp(prev, "s3-accelerate") == 0)) {
        *why = "S3 Transfer Acceleration serves every region, so its host "
               "names none to sign for";
        return BOX_EINVAL;
    }
    if (strcmp(last, "s3-global") == 0) {
        *why = "a multi-region access point is signed with SigV4A, which "
               "this signer does not do";
        return BOX_EINVAL;
    }

    const char *svc = NULL, *reg = NULL;
    if (is_region(last)) {
        // [X.]SERVICE[.dualstack].REGION
        size_t k = n - 1;
        if (k > 0 && strcmp(lab[k - 1], "dualstack") == 0)
            k--;
        if (k == 0) {
            *why = "the host names a region but no service";
            return BOX_EINVAL;
        }
        svc = lab[k - 1];
        reg = last;
    } else if (!china && strncmp(last, "s3-", 3) == 0 && is_region(last + 3)) {
        // S3's legacy dash form: [bucket.]s3-us-west-2.amazonaws.com.
        svc = "s3";
        reg = last + 3;
    } else if (global && strcmp(last, "s3-external-1") == 0) {
        svc = "s3";
        reg = "us-east-1";
    } else if (n >= 2 && is_region(prev) &&
               in_list(last, region_first, NELEM(region_first))) {
        svc = last;
        reg = prev;
    } else if (global &&
               in_list(last, global_services, NELEM(global_services))) {
        // [bucket.]s3.amazonaws.com, iam.amazonaws.com: us-east-1.
        svc = last;
        reg = "us-east-1";
    } else {
        *why = "the host names no region (want SERVICE.REGION.amazonaws.com "
               "or a global endpoint)";
        return BOX_EINVAL;
    }
    // A region is served under its own partition's domain only.
    if ((strncmp(reg, "cn-", 3) == 0) != china) {
        *why = china ? "amazonaws.com.cn serves the cn- regions only"
                     : "a cn- region is served under amazonaws.com.cn only";
        return BOX_EINVAL;
    }
    return put_scope(svc, reg, service, region, why);
}

/* ---- Encoding ----------------------------------------------------------- */

/* RFC 3986's unreserved characters: the only bytes SigV4 leaves as they
 * are. */
static bool
unreserved(unsigned char c)
{
    return is_lower((char)c) || (c >= 'A' && c <= 'Z') || is_digit((char)c) ||
           c == '-' || c == '.' || c == '_' || c == '~';
}

/* Appends p[0..n) URI-encoded the AWS way: unreserved bytes as they are,
 * every other byte %XX with uppercase hex. */
static box_err
put_encoded(box_buf *b, const char *p, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)p[i];
        if (unreserved(c)) {
            BOX_TRY(box_buf_putc(b, (char)c));
        } else {
            char e[3] = {'%', hex[c >> 4], hex[c & 15]};
            BOX_TRY(box_buf_append(b, e, 3));
        }
    }
    return BOX_OK;
}

/* p[0..n) with every %XX decoded, into out (at least n bytes); *out_len
 * its length. '+' stays '+' (RFC 3986, not form encoding): the SDKs send
 * a space as %20. false for a '%' not followed by two hex digits. */
static bool
pct_decode(const char *p, size_t n, char *out, size_t *out_len)
{
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '%') {
            out[k++] = p[i];
            continue;
        }
        int hi = i + 2 < n ? box_hexval((unsigned char)p[i + 1]) : -1;
        int lo = i + 2 < n ? box_hexval((unsigned char)p[i + 2]) : -1;
        if (hi < 0 || lo < 0)
            return false;
        out[k++] = (char)(hi << 4 | lo);
        i += 2;
    }
    *out_len = k;
    return true;
}

/* ---- The canonical URI and query ---------------------------------------- */

typedef struct sv_view {
    const char *v_p;
    size_t v_n;
} sv_view;

/*
 * The canonical URI of every service but S3: the path's empty and dot
 * segments resolved (RFC 3986 §5.2.4; AWS's suite turns "//example//"
 * into "/example/" and "/example/.." into "/"), then each segment
 * URI-encoded again as it was sent, so the client's "%20" is "%2520": AWS
 * encodes a path twice for these services and once for S3.
 */
static box_err
put_path_normalized(box_buf *b, const char *path)
{
    size_t n = strlen(path), ns = 0;
    bool dir = false; // ends in '/' (or a dot segment, which stands for one)
    box_err rv = BOX_ENOMEM;
    sv_view *seg = box_calloc(n / 2 + 1, sizeof *seg);
    if (seg == NULL)
        return BOX_ENOMEM;
    for (size_t i = 0; i < n;) {
        if (path[i] == '/') {
            dir = true;
            i++;
            continue;
        }
        size_t j = i;
        while (j < n && path[j] != '/')
            j++;
        dir = false;
        if (j - i == 1 && path[i] == '.') {
            dir = true;
        } else if (j - i == 2 && path[i] == '.' && path[i + 1] == '.') {
            dir = true;
            if (ns > 0)
                ns--;
        } else {
            seg[ns].v_p = path + i;
            seg[ns].v_n = j - i;
            ns++;
        }
        i = j;
    }
    if ((rv = box_buf_putc(b, '/')) != BOX_OK)
        goto out;
    for (size_t k = 0; k < ns; k++) {
        if ((rv = put_encoded(b, seg[k].v_p, seg[k].v_n)) != BOX_OK)
            goto out;
        if ((k + 1 < ns || dir) && (rv = box_buf_putc(b, '/')) != BOX_OK)
            goto out;
    }
    rv = BOX_OK;
out:
    box_free(seg);
    return rv;
}

/* One query parameter, encoded: qp_p[0..qp_name) its name,
 * qp_p[qp_name + 1..qp_len) its value. */
typedef struct sv_param {
    const char *qp_p;
    size_t qp_name;
    size_t qp_len;
} sv_param;

static int
bytes_cmp(const char *a, size_t an, const char *b, size_t bn)
{
    int c = memcmp(a, b, an < bn ? an : bn);
    if (c != 0)
        return c;
    return an < bn ? -1 : an > bn;
}

static int
param_cmp(const void *x, const void *y)
{
    const sv_param *a = x, *b = y;
    int c = bytes_cmp(a->qp_p, a->qp_name, b->qp_p, b->qp_name);
    if (c != 0)
        return c;
    return bytes_cmp(a->qp_p + a->qp_name + 1, a->qp_len - a->qp_name - 1,
                     b->qp_p + b->qp_name + 1, b->qp_len - b->qp_name - 1);
}

/* dst gets src[0..n) AWS-encoded (3n bytes at most); returns its length. */
static size_t
encode_into(char *dst, const char *src, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)src[i];
        if (unreserved(c)) {
            dst[k++] = (char)c;
        } else {
            dst[k++] = '%';
            dst[k++] = hex[c >> 4];
            dst[k++] = hex[c & 15];
        }
    }
    return k;
}

/*
 * The canonical query: each name=value (a bare name has the value "")
 * decoded, then encoded the AWS way, so "%7e", "%7E" and "~" are one
 * spelling and nothing is encoded twice; sorted by name, then value,
 * byte by byte; joined by '&'. Empty pieces ("a&&b") are not parameters.
 */
static box_err
put_query(box_buf *b, const char *q, const char **why)
{
    size_t n = q != NULL ? strlen(q) : 0, np = 1, cnt = 0, used = 0;
    box_err rv = BOX_ENOMEM;
    char *scratch = NULL, *store = NULL;
    sv_param *ps = NULL;
    if (n == 0)
        return BOX_OK;
    for (size_t i = 0; i < n; i++)
        np += q[i] == '&';
    // Each byte encodes to 3 at most; a bare name gains its '='.
    if ((scratch = box_alloc(n)) == NULL ||
        (store = box_alloc(3 * n + np)) == NULL ||
        (ps = box_calloc(np, sizeof *ps)) == NULL)
        goto out;
    for (size_t i = 0; i < n;) {
        size_t j = i, eq;
        while (j < n && q[j] != '&')
            j++;
        if (j == i) {
            i++;
            continue;
        }
        for (eq = i; eq < j && q[eq] != '='; eq++)
            ;
        size_t dn, vn, name_at = used;
        if (!pct_decode(q + i, eq - i, scratch, &dn)) {
            *why = "the query has a '%' that is not followed by two hex "
                   "digits";
            rv = BOX_EINVAL;
            goto out;
        }
        if (dn == strlen("X-Amz-Signature") &&
            strncasecmp(scratch, "X-Amz-Signature", dn) == 0) {
            *why = "the query carries its own signature (X-Amz-Signature): "
                   "a presigned request is not signed again";
            rv = BOX_EINVAL;
            goto out;
        }
        used += encode_into(store + used, scratch, dn);
        ps[cnt].qp_name = used - name_at;
        store[used++] = '=';
        size_t vfrom = eq < j ? eq + 1 : j;
        if (!pct_decode(q + vfrom, j - vfrom, scratch, &vn)) {
            *why = "the query has a '%' that is not followed by two hex "
                   "digits";
            rv = BOX_EINVAL;
            goto out;
        }
        used += encode_into(store + used, scratch, vn);
        ps[cnt].qp_p = store + name_at;
        ps[cnt].qp_len = used - name_at;
        cnt++;
        i = j;
    }
    qsort(ps, cnt, sizeof *ps, param_cmp);
    for (size_t k = 0; k < cnt; k++) {
        if (k > 0 && (rv = box_buf_putc(b, '&')) != BOX_OK)
            goto out;
        if ((rv = box_buf_append(b, ps[k].qp_p, ps[k].qp_len)) != BOX_OK)
            goto out;
    }
    rv = BOX_OK;
out:
    box_free(scratch);
    box_free(store);
    box_free(ps);
    return rv;
}

/* ---- The fields the signature covers ------------------------------------ */

/* What becomes of a client's field. */
typedef enum sv_fate {
    SV_SIGN, // sent and signed
    SV_SEND, // sent, not signed: a hop may rewrite it
    SV_DROP, // not sent
} sv_fate;

/* Every field not named here is signed (see gw_sigv4.h for why). */
static const struct {
    const char *fn_name;
    sv_fate fn_fate;
} fates[] = {
    // The client's signature and what it signed with: so_set replaces them.
    {"authorization", SV_DROP},
    {"x-amz-date", SV_DROP},
    {"x-amz-security-token", SV_DROP},
    {"x-amz-content-sha256", SV_DROP},
    // One hop's fields (RFC 9110 §7.6.1).
    {"connection", SV_DROP},
    {"keep-alive", SV_DROP},
    {"proxy-connection", SV_DROP},
    {"te", SV_DROP},
    {"trailer", SV_DROP},
    {"transfer-encoding", SV_DROP},
    {"upgrade", SV_DROP},
    {"proxy-authorization", SV_DROP},
    {"proxy-authenticate", SV_DROP},
    // Host is signed as sr_host; the rest a hop may rewrite.
    {"host", SV_SEND},
    {"content-length", SV_SEND},
    {"expect", SV_SEND},
    {"accept-encoding", SV_SEND},
    {"user-agent", SV_SEND},
    {"x-amzn-trace-id", SV_SEND},
};

static bool
name_is(const gw_http_field *f, const char *name)
{
    return f->f_name_len == strlen(name) &&
           strncasecmp(f->f_name, name, f->f_name_len) == 0;
}

static bool
is_ows(char c)
{
    return c == ' ' || c == '\t';
}

/* True when some Connection field lists f's name (those fields are the
 * hop's too, RFC 9110 §7.6.1). */
static bool
named_by_connection(const gw_sigv4_req *in, const gw_http_field *f)
{
    for (size_t i = 0; i < in->sr_nfields; i++) {
        const gw_http_field *c = &in->sr_fields[i];
        if (!name_is(c, "connection"))
            continue;
        const char *v = c->f_value, *end = v + c->f_value_len;
        while (v < end) {
            while (v < end && (is_ows(*v) || *v == ','))
                v++;
            const char *t = v;
            while (v < end && *v != ',' && !is_ows(*v))
                v++;
            if ((size_t)(v - t) == f->f_name_len &&
                strncasecmp(t, f->f_name, f->f_name_len) == 0)
                return true;
        }
    }
    return false;
}

static sv_fate
fate_of(const gw_sigv4_req *in, const gw_http_field *f)
{
    for (size_t i = 0; i < NELEM(fates); i++)
        if (name_is(f, fates[i].fn_name))
            return fates[i].fn_fate;
    return named_by_connection(in, f) ? SV_DROP : SV_SIGN;
}

/* One field the signature covers; sf_order keeps a name's values in the
 * order sent. */
typedef struct sv_field {
    const char *sf_name;
    size_t sf_name_len;
    const char *sf_value;
    size_t sf_value_len;
    size_t sf_order;
} sv_field;

static char
lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

/* Names compare lowercased, byte by byte. */
static int
name_cmp(const sv_field *a, const sv_field *b)
{
    size_t n =
        a->sf_name_len < b->sf_name_len ? a->sf_name_len : b->sf_name_len;
    for (size_t i = 0; i < n; i++) {
        unsigned char x = (unsigned char)lower(a->sf_name[i]);
        unsigned char y = (unsigned char)lower(b->sf_name[i]);
        if (x != y)
            return x < y ? -1 : 1;
    }
    return a->sf_name_len < b->sf_name_len   ? -1
           : a->sf_name_len > b->sf_name_len ? 1
                                             : 0;
}

static int
field_cmp(const void *x, const void *y)
{
    const sv_field *a = x, *b = y;
    int c = name_cmp(a, b);
    if (c != 0)
        return c;
    return a->sf_order < b->sf_order ? -1 : a->sf_order > b->sf_order;
}

static box_err
put_lower(box_buf *b, const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        BOX_TRY(box_buf_putc(b, lower(p[i])));
    return BOX_OK;
}

/* A value as AWS canonicalizes it: no whitespace at either end, each run
 * of spaces and tabs inside one space (quoted strings included). */
static box_err
put_value(box_buf *b, const char *v, size_t n)
{
    size_t i = 0;
    while (n > 0 && is_ows(v[n - 1]))
        n--;
    while (i < n && is_ows(v[i]))
        i++;
    while (i < n) {
        if (is_ows(v[i])) {
            while (i < n && is_ows(v[i]))
                i++;
            BOX_TRY(box_buf_putc(b, ' '));
            continue;
        }
        BOX_TRY(box_buf_putc(b, v[i]));
        i++;
    }
    return BOX_OK;
}

/* The canonical headers ("name:v1,v2\n" a name) of f[0..n), sorted, and
 * the signed-headers list ("a;b;c") into names. */
static box_err
put_fields(box_buf *b, box_buf *names, const sv_field *f, size_t n)
{
    for (size_t i = 0; i < n;) {
        size_t j = i;
        if (i > 0)
            BOX_TRY(box_buf_putc(names, ';'));
        BOX_TRY(put_lower(names, f[i].sf_name, f[i].sf_name_len));
        BOX_TRY(put_lower(b, f[i].sf_name, f[i].sf_name_len));
        BOX_TRY(box_buf_putc(b, ':'));
        for (; j < n && name_cmp(&f[i], &f[j]) == 0; j++) {
            if (j > i)
                BOX_TRY(box_buf_putc(b, ','));
            BOX_TRY(put_value(b, f[j].sf_value, f[j].sf_value_len));
        }
        BOX_TRY(box_buf_putc(b, '\n'));
        i = j;
    }
    return BOX_OK;
}

/* ---- Digests and the signature ------------------------------------------ */

#define SHA256_LEN 32
#define SHA256_HEX (2 * SHA256_LEN + 1)
// Room for the longest x-amz-content-sha256 value kept (a 64-digit hash,
// STREAMING-UNSIGNED-PAYLOAD-TRAILER).
#define PAYLOAD_HASH_MAX 72
#define SECRET_MAX 256
#define TOKEN_MAX 16384

static void
to_hex(const unsigned char *d, size_t n, char *out)
{
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[2 * n] = '\0';
}

static bool
sha256_hex(const void *p, size_t n, char out[SHA256_HEX])
{
    unsigned char md[SHA256_LEN];
    unsigned int len = 0;
    if (EVP_Digest(n > 0 ? p : "", n, md, &len, EVP_sha256(), NULL) != 1 ||
        len != SHA256_LEN)
        return false;
    to_hex(md, SHA256_LEN, out);
    return true;
}

static bool
hmac(const void *key, size_t key_len, const void *d, size_t n,
     unsigned char out[SHA256_LEN])
{
    unsigned int len = 0;
    return HMAC(EVP_sha256(), key, (int)key_len, d, n, out, &len) != NULL &&
           len == SHA256_LEN;
}

/*
 * The signature of sts: HMAC chain from "AWS4" + secret over the date,
 * region, service and "aws4_request", then over sts. Every key on the way
 * is wiped before this returns, whatever it returns.
 */
static box_err
sign_sts(const char *secret, const char *date8, const char *region,
         const char *service, const char *sts, char out[SHA256_HEX])
{
    unsigned char seed[4 + SECRET_MAX];
    unsigned char k1[SHA256_LEN], k2[SHA256_LEN];
    size_t sl = strlen(secret);
    box_err rv = BOX_ENOMEM; // OpenSSL fails a valid HMAC only for memory

    memcpy(seed, "AWS4", 4);
    memcpy(seed + 4, secret, sl); // sl <= SECRET_MAX, checked by the caller
    if (hmac(seed, 4 + sl, date8, 8, k1) &&
        hmac(k1, SHA256_LEN, region, strlen(region), k2) &&
        hmac(k2, SHA256_LEN, service, strlen(service), k1) &&
        hmac(k1, SHA256_LEN, "aws4_request", strlen("aws4_request"), k2) &&
        hmac(k2, SHA256_LEN, sts, strlen(sts), k1)) {
        to_hex(k1, SHA256_LEN, out);
        rv = BOX_OK;
    }
    OPENSSL_cleanse(seed, sizeof seed);
    OPENSSL_cleanse(k1, sizeof k1);
    OPENSSL_cleanse(k2, sizeof k2);
    return rv;
}

/*
 * The payload's hash, as the signature and x-amz-content-sha256 carry it.
 * A client's x-amz-content-sha256 is honoured, never trusted: UNSIGNED-
 * PAYLOAD (and its aws-chunked form with a trailing checksum, which has
 * no chunk signatures) is kept; a hash must be the body's; a STREAMING-
 * AWS4-* value is refused, since its chunk signatures chain from the
 * client's own signature, made with the placeholder. *sent: the client
 * sent one.
 */
static box_err
payload_hash(const gw_sigv4_req *in, char out[PAYLOAD_HASH_MAX], bool *sent,
             const char **why)
{
    const gw_http_field *c = NULL;
    *sent = false;
    for (size_t i = 0; i < in->sr_nfields; i++) {
        if (!name_is(&in->sr_fields[i], "x-amz-content-sha256"))
            continue;
        if (c != NULL) {
            *why = "the request sends x-amz-content-sha256 twice";
            return BOX_EINVAL;
        }
        c = &in->sr_fields[i];
    }
    if (c == NULL)
        return sha256_hex(in->sr_payload, in->sr_payload_len, out) ? BOX_OK
                                                                   : BOX_ENOMEM;
    *sent = true;

    const char *v = c->f_value;
    size_t n = c->f_value_len;
    while (n > 0 && is_ows(v[n - 1]))
        n--;
    while (n > 0 && is_ows(*v))
        v++, n--;
    static const char *const unsigned_ok[] = {
        "UNSIGNED-PAYLOAD",
        "STREAMING-UNSIGNED-PAYLOAD-TRAILER",
    };
    for (size_t i = 0; i < NELEM(unsigned_ok); i++)
        if (n == strlen(unsigned_ok[i]) && memcmp(v, unsigned_ok[i], n) == 0) {
            snprintf(out, PAYLOAD_HASH_MAX, "%s", unsigned_ok[i]);
            return BOX_OK;
        }
    if (n >= strlen("STREAMING-") && memcmp(v, "STREAMING-", 10) == 0) {
        *why = "x-amz-content-sha256 asks for aws-chunked chunk signatures, "
               "which chain from the client's own key and cannot be signed "
               "again";
        return BOX_EINVAL;
    }
    if (!sha256_hex(in->sr_payload, in->sr_payload_len, out))
        return BOX_ENOMEM;
    if (n != SHA256_HEX - 1) {
        *why = "x-amz-content-sha256 is neither a SHA-256 nor "
               "UNSIGNED-PAYLOAD";
        return BOX_EINVAL;
    }
    for (size_t i = 0; i < n; i++)
        if (lower(v[i]) != out[i]) {
            *why = box_hexval((unsigned char)v[i]) < 0
                       ? "x-amz-content-sha256 is neither a SHA-256 nor "
                         "UNSIGNED-PAYLOAD"
                       : "x-amz-content-sha256 does not match the body";
            return BOX_EINVAL;
        }
    return BOX_OK;
}

/* ---- Signing ------------------------------------------------------------ */

/* True when s[0..] is 1-63 bytes of [a-z0-9-]. */
static bool
is_label(const char *s)
{
    size_t n = s != NULL ? strlen(s) : 0;
    if (n == 0 || n > 63)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!is_lower(s[i]) && !is_digit(s[i]) && s[i] != '-')
            return false;
    return true;
}

/* True when s is non-empty and every byte is visible ASCII (what may sit
 * in a header value and in the canonical request's lines), or also a
 * space or a byte past ASCII when loose. */
static bool
is_text(const char *s, bool loose)
{
    if (s == NULL || *s == '\0')
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f || (!loose && (*p == ' ' || *p > 0x7e)))
            return false;
    return true;
}

static box_err
check_input(const gw_sigv4_req *in, const char **why)
{
    if (!is_text(in->sr_method, false) || !is_text(in->sr_host, false) ||
        !is_text(in->sr_path, true) || in->sr_path[0] != '/' ||
        (in->sr_query != NULL && *in->sr_query != '\0' &&
         !is_text(in->sr_query, true))) {
        *why = "the request's method, host, path or query has a control "
               "character or is empty";
        return BOX_EINVAL;
    }
    if (in->sr_payload == NULL && in->sr_payload_len > 0) {
        *why = "the body is missing";
        return BOX_EINVAL;
    }
    if (!is_label(in->sr_service) || !is_label(in->sr_region)) {
        *why = "the service or region is not a DNS label";
        return BOX_EINVAL;
    }
    const char *k = in->sr_key_id;
    bool key_ok = k != NULL && *k != '\0' && strlen(k) <= 128;
    for (; key_ok && *k; k++)
        key_ok = is_lower(lower(*k)) || is_digit(*k);
    if (!key_ok) {
        *why = "the access key id is not 1-128 letters and digits";
        return BOX_EINVAL;
    }
    if (in->sr_secret == NULL || *in->sr_secret == '\0' ||
        strlen(in->sr_secret) > SECRET_MAX) {
        *why = "the secret key is empty or longer than 256 bytes";
        return BOX_EINVAL;
    }
    if (in->sr_token != NULL &&
        (!is_text(in->sr_token, false) || strlen(in->sr_token) > TOKEN_MAX)) {
        *why = "the session token is empty, longer than 16 KiB or has a "
               "byte that cannot go in a header";
        return BOX_EINVAL;
    }
    return BOX_OK;
}

/* S3 and its variants (s3-object-lambda, s3-outposts): a path signed as
 * sent, and x-amz-content-sha256 always. */
static bool
is_s3(const char *service)
{
    return strcmp(service, "s3") == 0 || strncmp(service, "s3-", 3) == 0;
}

static box_err
set(gw_sigv4_out *o, const char *name, char *value)
{
    if (value == NULL)
        return BOX_ENOMEM;
    o->so_set[o->so_nset].sh_name = name;
    o->so_set[o->so_nset].sh_value = value;
    o->so_nset++;
    return BOX_OK;
}

box_err
gw_sigv4_sign(const gw_sigv4_req *in, gw_sigv4_out *out, const char **why)
{
    gw_sigv4_out o = {0};
    sv_field *sf = NULL;
    char *sts = NULL;
    box_buf b, names;
    char amz[32], hash[PAYLOAD_HASH_MAX], creq_hash[SHA256_HEX];
    char sig[SHA256_HEX];
    size_t nsf = 0, bound = 0;
    bool sent_hash = false;
    struct tm tm;
    box_err rv;

    box_buf_init(&b, 0);
    box_buf_init(&names, GW_SIGV4_CREQ_MAX);
    memset(out, 0, sizeof *out);
    if ((rv = check_input(in, why)) != BOX_OK)
        goto out;
    if (gmtime_r(&in->sr_time, &tm) == NULL ||
        strftime(amz, sizeof amz, "%Y%m%dT%H%M%SZ", &tm) != 16) {
        *why = "the signing time is out of range";
        rv = BOX_EINVAL;
        goto out;
    }
    if ((rv = payload_hash(in, hash, &sent_hash, why)) != BOX_OK)
        goto out;
    bool s3 = is_s3(in->sr_service), send_hash = s3 || sent_hash;

    // The client's fields: dropped, sent as they are, or also signed.
    rv = BOX_ENOMEM;
    if ((sf = box_calloc(in->sr_nfields + 4, sizeof *sf)) == NULL ||
        (in->sr_nfields > 0 &&
         (o.so_drop = box_calloc(in->sr_nfields, sizeof(bool))) == NULL))
        goto out;
    for (size_t i = 0; i < in->sr_nfields; i++) {
        const gw_http_field *f = &in->sr_fields[i];
        sv_fate fate = fate_of(in, f);
        if (fate == SV_DROP)
            o.so_drop[i] = true;
        if (fate != SV_SIGN)
            continue;
        sf[nsf++] =
            (sv_field){f->f_name, f->f_name_len, f->f_value, f->f_value_len, i};
    }
    // The signer's own, each a name no client field kept has.
    const struct {
        const char *name;
        const char *value;
        bool on;
    } own[] = {
        {"host", in->sr_host, true},
        {"x-amz-date", amz, true},
        {"x-amz-security-token", in->sr_token, in->sr_token != NULL},
        {"x-amz-content-sha256", hash, send_hash},
    };
    for (size_t i = 0; i < NELEM(own); i++)
        if (own[i].on)
            sf[nsf++] =
                (sv_field){own[i].name, strlen(own[i].name), own[i].value,
                           strlen(own[i].value), in->sr_nfields + i};
    qsort(sf, nsf, sizeof *sf, field_cmp);

    /*
     * The canonical request holds the session token, so it lives in one
     * allocation sized before the first byte is written: a buffer that
     * grew would leave copies in blocks freed unwiped. The bound: the
     * method; the path and query at 3 bytes a byte (plus a '=' a
     * parameter, a '/' for the path); each field's name twice (its line,
     * the signed-headers list), its value and 3 separators; the hash; the
     * line ends. Past it box_buf refuses (BOX_ETOOBIG), never grows.
     */
    size_t qlen = in->sr_query != NULL ? strlen(in->sr_query) : 0;
    bound = strlen(in->sr_method) + 3 * strlen(in->sr_path) + 2 + 4 * qlen + 2 +
            PAYLOAD_HASH_MAX + 16;
    for (size_t i = 0; i < nsf; i++)
        bound += 2 * sf[i].sf_name_len + sf[i].sf_value_len + 3;
    if (bound > GW_SIGV4_CREQ_MAX) {
        *why = "the request is too large to sign";
        rv = BOX_ETOOBIG;
        goto out;
    }
    box_buf_init(&b, bound);
    if ((rv = box_buf_reserve(&b, bound)) != BOX_OK)
        goto out;

    // method \n uri \n query \n headers \n signed-headers \n payload-hash
    if ((rv = box_buf_puts(&b, in->sr_method)) != BOX_OK ||
        (rv = box_buf_putc(&b, '\n')) != BOX_OK)
        goto out;
    rv = s3 ? box_buf_puts(&b, in->sr_path)
            : put_path_normalized(&b, in->sr_path);
    if (rv != BOX_OK || (rv = box_buf_putc(&b, '\n')) != BOX_OK ||
        (rv = put_query(&b, in->sr_query, why)) != BOX_OK ||
        (rv = box_buf_putc(&b, '\n')) != BOX_OK ||
        (rv = put_fields(&b, &names, sf, nsf)) != BOX_OK ||
        (rv = box_buf_putc(&b, '\n')) != BOX_OK ||
        (rv = box_buf_append(&b, names.b_data, names.b_len)) != BOX_OK ||
        (rv = box_buf_putc(&b, '\n')) != BOX_OK ||
        (rv = box_buf_puts(&b, hash)) != BOX_OK)
        goto out;

    rv = BOX_ENOMEM;
    if (!sha256_hex(b.b_data, b.b_len, creq_hash))
        goto out;
    sts = box_asprintf("AWS4-HMAC-SHA256\n%s\n%.8s/%s/%s/aws4_request\n%s", amz,
                       amz, in->sr_region, in->sr_service, creq_hash);
    if (sts == NULL)
        goto out;
    if ((rv = sign_sts(in->sr_secret, amz, in->sr_region, in->sr_service, sts,
                       sig)) != BOX_OK)
        goto out;
    if ((rv = set(&o, "Authorization",
                  box_asprintf("AWS4-HMAC-SHA256 Credential=%s/%.8s/%s/%s/"
                               "aws4_request, SignedHeaders=%s, Signature=%s",
                               in->sr_key_id, amz, in->sr_region,
                               in->sr_service, names.b_data, sig))) != BOX_OK ||
        (rv = set(&o, "X-Amz-Date", box_strdup(amz))) != BOX_OK ||
        (in->sr_token != NULL &&
         (rv = set(&o, "X-Amz-Security-Token", box_strdup(in->sr_token))) !=
             BOX_OK) ||
        (send_hash &&
         (rv = set(&o, "X-Amz-Content-Sha256", box_strdup(hash))) != BOX_OK))
        goto out;
    if ((o.so_creq = box_buf_take(&b)) == NULL) {
        rv = BOX_ENOMEM;
        goto out;
    }
    *out = o;
    memset(&o, 0, sizeof o);
    rv = BOX_OK;
out:
    if (rv == BOX_ETOOBIG)
        *why = "the request is too large to sign";
    gw_sigv4_out_free(&o);
    if (b.b_data != NULL)
        OPENSSL_cleanse(b.b_data, b.b_cap);
    box_buf_reset(&b);
    box_buf_reset(&names);
    box_free(sts);
    box_free(sf);
    return rv;
}

void
gw_sigv4_out_free(gw_sigv4_out *o)
{
    for (size_t i = 0; i < o->so_nset; i++) {
        char *v = o->so_set[i].sh_value;
        OPENSSL_cleanse(v, strlen(v));
        box_free(v);
    }
    if (o->so_creq != NULL)
        OPENSSL_cleanse(o->so_creq, strlen(o->so_creq));
    box_free(o->so_creq);
    box_free(o->so_drop);
    memset(o, 0, sizeof *o);
}
