/* SPDX-License-Identifier: Apache-2.0 */
/* Credential routes: match a request, swap its placeholder for the secret. */
#include "gw_cred.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <string.h>
#include <strings.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_buf.h"
#include "box_dest.h"
#include "box_routes_msg.h"
#include "gw_sigv4.h"

#define CRED_SECRET_MAX GW_SCRUB_NEEDLE_MAX

typedef enum cred_place {
    CRED_HEADER,
    CRED_BASIC,
    CRED_QUERY,
    CRED_SIGV4,
} cred_place;

typedef struct cred_route {
    char *cr_name;
    box_dest *cr_dests;
    size_t cr_ndests;
    cred_place cr_place;
    char *cr_header; // CRED_HEADER: the field; CRED_BASIC: "Authorization"
    char *cr_prefix;
    char *cr_param;
    bool cr_always;
    char *cr_phantom; // what the sandboxes hold (the key id's for SIGV4)
    char *cr_secret;  // NUL-terminated copy; wiped
    size_t cr_secret_len;
    char *cr_key_id; // SIGV4: the real access key id
    char *cr_token;  // SIGV4: its session token, or NULL; wiped
} cred_route;

struct gw_creds {
    cred_route *cs_routes;
    size_t cs_count;
};

/* Frees s after overwriting its n bytes (a secret or a copy of one). */
static void
wipe_free(char *s, size_t n)
{
    if (s != NULL)
        OPENSSL_cleanse(s, n);
    box_free(s);
}

static void
wipe_str(char *s)
{
    wipe_free(s, s ? strlen(s) : 0);
}

static void
route_free(cred_route *r)
{
    box_free(r->cr_name);
    for (size_t i = 0; i < r->cr_ndests; i++)
        box_dest_free(&r->cr_dests[i]);
    box_free(r->cr_dests);
    box_free(r->cr_header);
    box_free(r->cr_prefix);
    box_free(r->cr_param);
    box_free(r->cr_phantom);
    wipe_free(r->cr_secret, r->cr_secret_len);
    box_free(r->cr_key_id);
    wipe_str(r->cr_token);
}

void
gw_creds_free(gw_creds *cs)
{
    if (cs == NULL)
        return;
    for (size_t i = 0; i < cs->cs_count; i++)
        route_free(&cs->cs_routes[i]);
    box_free(cs->cs_routes);
    box_free(cs);
}

size_t
gw_creds_count(const gw_creds *cs)
{
    return cs ? cs->cs_count : 0;
}

static char *
dup_or_empty(const char *s)
{
    return box_strdup(s ? s : "");
}

/* A NUL-terminated copy of n bytes (a secret: the caller wipes it). */
static char *
dup_bytes(const uint8_t *p, size_t n)
{
    char *s = box_alloc(n + 1);
    if (s != NULL) {
        memcpy(s, p, n);
        s[n] = '\0';
    }
    return s;
}

/* One route from its message; *err names the route. */
static box_err
route_from_wire(const Box__EgressRoute *m, cred_route *r, char **err)
{
    const char *name = m->name && m->name[0] ? m->name : "(unnamed)";
    static const struct {
        Box__RoutePlacement w;
        cred_place p;
    } places[] = {
        {BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_HEADER, CRED_HEADER},
        {BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_BASIC_AUTH, CRED_BASIC},
        {BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_QUERY_PARAM, CRED_QUERY},
        {BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_SIGV4, CRED_SIGV4},
    };
    size_t k = 0;
    while (k < sizeof places / sizeof *places && places[k].w != m->placement)
        k++;
    const char *bad = NULL;
    if (k == sizeof places / sizeof *places)
        bad = "its placement is not one the gateway knows";
    else if (m->n_destinations == 0)
        bad = "it names no destination";
    else if (m->secret.len == 0 || m->secret.len > CRED_SECRET_MAX)
        bad = "its secret is empty or longer than 16 KiB";
    else if (memchr(m->secret.data, '\0', m->secret.len) != NULL)
        bad = "its secret holds a NUL byte";
    else if (m->n_phantoms == 0 || m->phantoms[0] == NULL ||
             m->phantoms[0][0] == '\0')
        bad = "it has no placeholder";
    else if (places[k].p == CRED_QUERY && (m->param == NULL || !m->param[0]))
        bad = "query_param needs a param";
    else if (places[k].p == CRED_HEADER && (m->header == NULL || !m->header[0]))
        bad = "header placement needs a header";
    else if (places[k].p == CRED_SIGV4 &&
             (m->access_key_id == NULL || !m->access_key_id[0]))
        bad = "SigV4 needs an access key id";
    else if (m->session_token.len > CRED_SECRET_MAX ||
             (m->session_token.len > 0 &&
              memchr(m->session_token.data, '\0', m->session_token.len)))
        bad = "its session token is longer than 16 KiB or holds a NUL byte";
    if (bad != NULL) {
        *err = box_asprintf("credential route %s: %s", name, bad);
        return *err ? BOX_EINVAL : BOX_ENOMEM;
    }
    r->cr_place = places[k].p;
    r->cr_always = m->always;
    r->cr_name = box_strdup(name);
    r->cr_header = box_strdup(r->cr_place == CRED_HEADER ? m->header
                                                         : "Authorization");
    r->cr_prefix = dup_or_empty(m->prefix);
    r->cr_param = dup_or_empty(m->param);
    r->cr_phantom = box_strdup(m->phantoms[0]);
    r->cr_secret = dup_bytes(m->secret.data, m->secret.len);
    r->cr_secret_len = m->secret.len;
    r->cr_dests = box_calloc(m->n_destinations, sizeof *r->cr_dests);
    if (!r->cr_name || !r->cr_header || !r->cr_prefix || !r->cr_param ||
        !r->cr_phantom || !r->cr_secret || !r->cr_dests)
        return BOX_ENOMEM;
    if (r->cr_place == CRED_SIGV4 &&
        ((r->cr_key_id = box_strdup(m->access_key_id)) == NULL ||
         (m->session_token.len > 0 &&
          (r->cr_token = dup_bytes(m->session_token.data,
                                   m->session_token.len)) == NULL)))
        return BOX_ENOMEM;
    for (size_t i = 0; i < m->n_destinations; i++) {
        const char *why = NULL;
        box_err rv = box_dest_parse(m->destinations[i], &r->cr_dests[i], &why);
        if (rv != BOX_OK) {
            if (rv == BOX_EINVAL)
                *err = box_asprintf("credential route %s: destination \"%s\": "
                                    "%s",
                                    name, m->destinations[i], why);
            return rv;
        }
        r->cr_ndests++;
    }
    return BOX_OK;
}

box_err
gw_creds_from_wire(const Box__EgressRoutes *m, gw_creds **out, char **err)
{
    *out = NULL;
    *err = NULL;
    gw_creds *cs = box_calloc(1, sizeof *cs);
    if (cs == NULL)
        return BOX_ENOMEM;
    box_err rv = BOX_OK;
    if (m->n_routes > 0 &&
        (cs->cs_routes = box_calloc(m->n_routes, sizeof *cs->cs_routes)) ==
            NULL)
        rv = BOX_ENOMEM;
    for (size_t i = 0; rv == BOX_OK && i < m->n_routes; i++) {
        rv = route_from_wire(m->routes[i], &cs->cs_routes[i], err);
        cs->cs_count++; // freed with the rest whatever it holds
    }
    if (rv != BOX_OK) {
        gw_creds_free(cs);
        return rv;
    }
    *out = cs;
    return BOX_OK;
}

box_err
gw_creds_read_fd(int fd, gw_creds **out, char **err)
{
    Box__EgressRoutes *m = NULL;
    *out = NULL;
    BOX_TRY(box_routes_msg_read(fd, &m, err));
    box_err rv = gw_creds_from_wire(m, out, err);
    box_routes_msg_free(m); // wipes its copies of the secrets
    return rv;
}

/* ---- routing one request ---- */

static const cred_route *
creds_find(const gw_creds *cs, const gw_http_req *rq)
{
    const gw_authority *a = &rq->rq_authority;
    for (size_t i = 0; cs != NULL && i < cs->cs_count; i++)
        for (size_t d = 0; d < cs->cs_routes[i].cr_ndests; d++)
            if (box_dest_match(&cs->cs_routes[i].cr_dests[d],
                               a->a_host.h_text, a->a_port, rq->rq_path))
                return &cs->cs_routes[i];
    return NULL;
}

void
gw_cred_edit_free(gw_cred_edit *e)
{
    for (size_t i = 0; i < e->e_nadd; i++)
        wipe_str(e->e_add[i]);
    wipe_str(e->e_query);
    wipe_str(e->e_own_needle);
    box_free(e->e_drop_field);
    memset(e, 0, sizeof *e);
}

bool
gw_cred_edit_drops(const gw_cred_edit *e, size_t i, const char *name)
{
    if (e->e_drop_field != NULL && e->e_drop_field[i])
        return true;
    for (size_t k = 0; k < e->e_ndrop; k++)
        if (strcasecmp(e->e_drop[k], name) == 0)
            return true;
    return false;
}

static bool
edit_drop(gw_cred_edit *e, const char *name)
{
    if (e->e_ndrop == GW_CRED_EDIT_MAX)
        return false;
    e->e_drop[e->e_ndrop++] = name;
    return true;
}

/* Takes line (owned) into the edit; false (line freed) when full. */
static bool
edit_add(gw_cred_edit *e, char *line)
{
    if (line == NULL)
        return false;
    if (e->e_nadd == GW_CRED_EDIT_MAX) {
        wipe_str(line);
        return false;
    }
    e->e_add[e->e_nadd++] = line;
    return true;
}

/* s with each copy of from replaced by to, or NULL (no copy, or no
 * memory: *found says which). */
static char *
replace_all(const char *s, size_t n, const char *from, const char *to,
            size_t to_len, bool *found)
{
    size_t fl = strlen(from);
    box_buf out;
    box_buf_init(&out, SIZE_MAX);
    *found = false;
    const char *p = s, *end = s + n;
    for (;;) {
        const char *hit = memmem(p, (size_t)(end - p), from, fl);
        if (hit == NULL)
            break;
        *found = true;
        if (box_buf_append(&out, p, (size_t)(hit - p)) != BOX_OK ||
            box_buf_append(&out, to, to_len) != BOX_OK)
            goto fail;
        p = hit + fl;
    }
    if (!*found)
        goto fail;
    if (box_buf_append(&out, p, (size_t)(end - p)) != BOX_OK ||
        box_buf_putc(&out, '\0') != BOX_OK)
        goto fail;
    return box_buf_take(&out);
fail:
    if (out.b_data != NULL)
        OPENSSL_cleanse(out.b_data, out.b_len);
    box_buf_reset(&out);
    return NULL;
}

static char *
b64_encode(const char *s, size_t n)
{
    char *out = box_alloc(4 * ((n + 2) / 3) + 1);
    if (out != NULL)
        EVP_EncodeBlock((unsigned char *)out, (const unsigned char *)s,
                        (int)n);
    return out;
}

/* The decoded bytes of a base64 text, NUL-terminated, or NULL. */
static char *
b64_decode(const char *s, size_t n)
{
    if (n == 0 || n % 4 != 0 || n > 8192)
        return NULL;
    char *out = box_alloc(n / 4 * 3 + 1);
    if (out == NULL)
        return NULL;
    int k = EVP_DecodeBlock((unsigned char *)out, (const unsigned char *)s,
                            (int)n);
    if (k < 0) {
        box_free(out);
        return NULL;
    }
    // EVP_DecodeBlock counts the padding's bytes as zeros.
    size_t len = (size_t)k;
    for (size_t i = n; i > 0 && s[i - 1] == '='; i--)
        len--;
    out[len] = '\0';
    if (memchr(out, '\0', len) != NULL) {
        wipe_free(out, len);
        return NULL;
    }
    return out;
}

/* header placement: every field of that name must hold the phantom, which
 * becomes the secret; under `always` the field is the prefix and secret
 * whatever was sent. */
static bool
route_header(const cred_route *r, const gw_http_req *rq, gw_cred_edit *e,
             const char **reason)
{
    *reason = GW_CRED_BLOCKED;
    if (!edit_drop(e, r->cr_header))
        return false;
    if (r->cr_always)
        return edit_add(e, box_asprintf("%s: %s%s", r->cr_header,
                                        r->cr_prefix, r->cr_secret));
    size_t seen = 0;
    for (size_t i = 0; i < rq->rq_nfields; i++) {
        const gw_http_field *f = &rq->rq_fields[i];
        if (strcasecmp(f->f_name, r->cr_header) != 0)
            continue;
        seen++;
        bool found = false;
        char *v = replace_all(f->f_value, f->f_value_len, r->cr_phantom,
                              r->cr_secret, r->cr_secret_len, &found);
        if (v == NULL)
            return false;
        bool ok = edit_add(e, box_asprintf("%s: %s", r->cr_header, v));
        wipe_str(v);
        if (!ok)
            return false;
    }
    return seen > 0;
}

/* basic_auth: Authorization: Basic base64(user:password) with the phantom
 * in it; under `always`, the client's user name (if any) and the secret. */
static bool
route_basic(const cred_route *r, const gw_http_req *rq, gw_cred_edit *e,
            const char **reason)
{
    *reason = GW_CRED_BLOCKED;
    const gw_http_field *auth = NULL;
    for (size_t i = 0; i < rq->rq_nfields; i++) {
        if (strcasecmp(rq->rq_fields[i].f_name, "Authorization") != 0)
            continue;
        if (auth != NULL)
            return false; // two: which one would upstream read?
        auth = &rq->rq_fields[i];
    }
    char *plain = NULL;
    if (auth != NULL && auth->f_value_len > 6 &&
        strncasecmp(auth->f_value, "Basic ", 6) == 0)
        plain = b64_decode(auth->f_value + 6, auth->f_value_len - 6);
    char *swapped = NULL;
    if (r->cr_always) {
        const char *colon = plain ? strchr(plain, ':') : NULL;
        swapped = box_asprintf("%.*s:%s", colon ? (int)(colon - plain) : 0,
                               plain ? plain : "", r->cr_secret);
    } else if (plain != NULL && strchr(plain, ':') != NULL) {
        bool found = false;
        swapped = replace_all(plain, strlen(plain), r->cr_phantom,
                              r->cr_secret, r->cr_secret_len, &found);
    }
    wipe_str(plain);
    if (swapped == NULL)
        return false;
    char *b64 = b64_encode(swapped, strlen(swapped));
    wipe_str(swapped);
    if (b64 == NULL || !edit_drop(e, "Authorization") ||
        !edit_add(e, box_asprintf("Authorization: Basic %s", b64))) {
        wipe_str(b64);
        return false;
    }
    // An upstream that echoes the header echoes this spelling.
    e->e_own_needle = b64;
    return true;
}

static bool
unreserved(unsigned char ch)
{
    return (ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') ||
           (ch >= '0' && ch <= '9') || ch == '-' || ch == '.' || ch == '_' ||
           ch == '~';
}

static box_err
put_pct(box_buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789ABCDEF";
    for (size_t i = 0; i < n; i++) {
        unsigned char ch = (unsigned char)s[i];
        if (unreserved(ch)) {
            BOX_TRY(box_buf_putc(b, (char)ch));
        } else {
            char t[3] = {'%', hex[ch >> 4], hex[ch & 15]};
            BOX_TRY(box_buf_append(b, t, 3));
        }
    }
    return BOX_OK;
}

/* query_param: each `param=` in the query must be the phantom, and becomes
 * the secret (percent-encoded); under `always`, every `param=` is dropped
 * and one with the secret added. */
static bool
route_query(const cred_route *r, const gw_http_req *rq, gw_cred_edit *e,
            const char **reason)
{
    *reason = GW_CRED_BLOCKED;
    box_buf q;
    box_buf_init(&q, SIZE_MAX);
    size_t pl = strlen(r->cr_param), seen = 0;
    const char *p = rq->rq_query, *end = p ? p + rq->rq_query_len : NULL;
    box_err rv = BOX_OK;
    while (rv == BOX_OK && p != NULL && p < end) {
        const char *amp = memchr(p, '&', (size_t)(end - p));
        const char *stop = amp ? amp : end;
        size_t n = (size_t)(stop - p);
        bool ours = n > pl && p[pl] == '=' && memcmp(p, r->cr_param, pl) == 0;
        if (ours) {
            seen++;
            const char *v = p + pl + 1;
            size_t vl = n - pl - 1;
            if (!r->cr_always && (vl != strlen(r->cr_phantom) ||
                                  memcmp(v, r->cr_phantom, vl) != 0))
                goto fail; // the param is there, but not the placeholder
        }
        if (!ours || !r->cr_always) {
            if (q.b_len > 0)
                rv = box_buf_putc(&q, '&');
            if (rv == BOX_OK && ours) {
                rv = box_buf_append(&q, p, pl + 1);
                if (rv == BOX_OK)
                    rv = put_pct(&q, r->cr_secret, r->cr_secret_len);
            } else if (rv == BOX_OK) {
                rv = box_buf_append(&q, p, n);
            }
        }
        p = amp ? amp + 1 : end;
    }
    if (rv == BOX_OK && r->cr_always) {
        if (q.b_len > 0)
            rv = box_buf_putc(&q, '&');
        if (rv == BOX_OK && (rv = box_buf_puts(&q, r->cr_param)) == BOX_OK &&
            (rv = box_buf_putc(&q, '=')) == BOX_OK)
            rv = put_pct(&q, r->cr_secret, r->cr_secret_len);
    }
    if (rv != BOX_OK || (!r->cr_always && seen == 0) ||
        box_buf_putc(&q, '\0') != BOX_OK)
        goto fail;
    e->e_query_set = true;
    e->e_query = box_buf_take(&q);
    return true;
fail:
    if (q.b_data != NULL)
        OPENSSL_cleanse(q.b_data, q.b_len);
    box_buf_reset(&q);
    return false;
}

/* The client signed with the placeholder key id (its SDK read the
 * phantom from AWS_ACCESS_KEY_ID): its Authorization names it. */
static bool
sigv4_names_phantom(const cred_route *r, const gw_http_req *rq)
{
    size_t pl = strlen(r->cr_phantom);
    size_t seen = 0;
    bool ok = false;
    for (size_t i = 0; i < rq->rq_nfields; i++) {
        const gw_http_field *f = &rq->rq_fields[i];
        if (strcasecmp(f->f_name, "Authorization") != 0)
            continue;
        seen++;
        const char *c = strstr(f->f_value, "Credential=");
        ok = strncmp(f->f_value, "AWS4-HMAC-SHA256 ", 17) == 0 && c != NULL &&
             strncmp(c + 11, r->cr_phantom, pl) == 0 && c[11 + pl] == '/';
    }
    return seen == 1 && ok;
}

/* aws:// (and credsd://): the request signed again with the real key;
 * the client's own signing fields dropped, the signer's set, Host as
 * signed. */
static bool
route_sigv4(const cred_route *r, const gw_cred_req *q, gw_cred_edit *e,
            const char **reason)
{
    const gw_http_req *rq = q->cq_req;
    *reason = GW_CRED_BLOCKED;
    if (!sigv4_names_phantom(r, rq))
        return false;
    char service[GW_SIGV4_NAME_MAX], region[GW_SIGV4_NAME_MAX];
    const char *why = NULL;
    if (gw_sigv4_scope(rq->rq_authority.a_host.h_text, service, region,
                       &why) != BOX_OK)
        return false;
    char host[GW_ADDR_TEXT_MAX + 8];
    if (rq->rq_authority.a_port == 443)
        snprintf(host, sizeof host, "%s", rq->rq_authority.a_host.h_text);
    else
        snprintf(host, sizeof host, "%s:%u", rq->rq_authority.a_host.h_text,
                 (unsigned)rq->rq_authority.a_port);
    char *query = rq->rq_query
                      ? box_asprintf("%.*s", (int)rq->rq_query_len, rq->rq_query)
                      : NULL;
    if (rq->rq_query != NULL && query == NULL)
        return false;
    gw_sigv4_req in = {.sr_method = rq->rq_method_name,
                       .sr_host = host,
                       .sr_path = rq->rq_path,
                       .sr_query = query,
                       .sr_fields = rq->rq_fields,
                       .sr_nfields = rq->rq_nfields,
                       .sr_payload = q->cq_body,
                       .sr_payload_len = q->cq_body_len,
                       .sr_time = q->cq_now,
                       .sr_key_id = r->cr_key_id,
                       .sr_secret = r->cr_secret,
                       .sr_token = r->cr_token,
                       .sr_service = service,
                       .sr_region = region};
    gw_sigv4_out out = {0};
    box_err rv = gw_sigv4_sign(&in, &out, &why);
    box_free(query);
    if (rv != BOX_OK)
        return false;
    bool ok = true;
    e->e_drop_field = out.so_drop; // taken
    out.so_drop = NULL;
    for (size_t i = 0; ok && i < out.so_nset; i++)
        ok = edit_add(e, box_asprintf("%s: %s", out.so_set[i].sh_name,
                                      out.so_set[i].sh_value));
    ok = ok && edit_add(e, box_asprintf("Host: %s", host));
    gw_sigv4_out_free(&out);
    if (ok && r->cr_token != NULL) {
        e->e_needle[1] = r->cr_token;
        e->e_needle_len[1] = strlen(r->cr_token);
    }
    return ok;
}

gw_cred_verdict
gw_creds_route(const gw_creds *cs, const gw_cred_req *q, gw_cred_edit *e,
               const char **reason)
{
    const gw_http_req *rq = q->cq_req;
    bool tls = q->cq_tls;
    memset(e, 0, sizeof *e);
    *reason = NULL;
    if (rq->rq_path == NULL || !rq->rq_has_authority)
        return GW_CRED_PASS;
    const cred_route *r = creds_find(cs, rq);
    if (r == NULL)
        return GW_CRED_PASS;
    if (!tls) {
        *reason = GW_CRED_PLAINTEXT;
        return GW_CRED_REFUSE;
    }
    e->e_route = r->cr_name;
    bool ok = false;
    switch (r->cr_place) {
    case CRED_HEADER:
        ok = route_header(r, rq, e, reason);
        break;
    case CRED_BASIC:
        ok = route_basic(r, rq, e, reason);
        break;
    case CRED_QUERY:
        ok = route_query(r, rq, e, reason);
        break;
    case CRED_SIGV4:
        ok = route_sigv4(r, q, e, reason);
        break;
    }
    // The answer is scrubbed, so it must come as written: no encoding.
    ok = ok && edit_drop(e, "Accept-Encoding") &&
         edit_add(e, box_strdup("Accept-Encoding: identity"));
    if (!ok) {
        gw_cred_edit_free(e);
        if (*reason == NULL)
            *reason = GW_CRED_BLOCKED;
        return GW_CRED_REFUSE;
    }
    e->e_needle[e->e_nneedles] = r->cr_secret;
    e->e_needle_len[e->e_nneedles++] = r->cr_secret_len;
    if (e->e_needle[1] != NULL) { // SigV4's session token
        e->e_nneedles++;
    } else if (e->e_own_needle != NULL) {
        e->e_needle[e->e_nneedles] = e->e_own_needle;
        e->e_needle_len[e->e_nneedles++] = strlen(e->e_own_needle);
    }
    return GW_CRED_APPLY;
}
