/* SPDX-License-Identifier: Apache-2.0 */
/* The SSRF floor (box-spec §3.12 check_url_safe): the addresses no URL
 * may name, decided before any connection. The gateway decides the rest
 * by policy (§6); this only keeps the box's own neighbourhood out. */
#include <arpa/inet.h>
#include <ctype.h>
#include <curl/curl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_http.h"

void
http_target_clear(http_target *t)
{
    if (t->ct_url != NULL)
        curl_url_cleanup(t->ct_url);
    box_free(t->ct_scheme);
    box_free(t->ct_authority);
    memset(t, 0, sizeof *t);
}

/* 127/8, 10/8, 172.16/12, 192.168/16, 169.254/16, 0.0.0.0 (host order). */
static bool
floor_v4_refused(uint32_t a)
{
    return (a >> 24) == 127 || (a >> 24) == 10 || (a >> 20) == 0xac1 ||
           (a >> 16) == 0xc0a8 || (a >> 16) == 0xa9fe || a == 0;
}

static uint32_t
floor_v4_at(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 |
           (uint32_t)b[3];
}

/* ::1, ::, fc00::/7, fe80::/10, and an IPv4 a refused one carries:
 * mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, 6to4 2002:AABB:CCDD::/16,
 * Teredo 2001:0::/32 (the client's address, inverted, in the last 32). */
static bool
floor_v6_refused(const unsigned char b[16])
{
    static const unsigned char zero[12];
    if (memcmp(b, zero, 12) == 0) // ::, ::1 and every compatible form
        return floor_v4_refused(floor_v4_at(b + 12)) ||
               (b[12] == 0 && b[13] == 0 && b[14] == 0 && b[15] <= 1);
    if ((b[0] & 0xfe) == 0xfc || (b[0] == 0xfe && (b[1] & 0xc0) == 0x80))
        return true;
    if (memcmp(b, zero, 10) == 0 && b[10] == 0xff && b[11] == 0xff)
        return floor_v4_refused(floor_v4_at(b + 12));
    if (b[0] == 0x20 && b[1] == 0x02)
        return floor_v4_refused(floor_v4_at(b + 2));
    if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0)
        return floor_v4_refused(~floor_v4_at(b + 12));
    return false;
}

/* The address as Rust's Ipv6Addr prints it (RFC 5952: lowercase, the
 * longest run of two or more zero groups as ::, the first of equals;
 * ::ffff:a.b.c.d for a mapped one), the spec's `<ip>`. */
static void
floor_v6_text(const unsigned char b[16], char out[64])
{
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0,    0,
                                             0, 0, 0, 0, 0xff, 0xff};
    if (memcmp(b, mapped, 12) == 0) {
        snprintf(out, 64, "::ffff:%u.%u.%u.%u", b[12], b[13], b[14], b[15]);
        return;
    }
    unsigned g[8];
    for (int i = 0; i < 8; i++)
        g[i] = (unsigned)b[2 * i] << 8 | b[2 * i + 1];
    int best = -1, bestn = 1;
    for (int i = 0; i < 8;) {
        int n = 0;
        while (i + n < 8 && g[i + n] == 0)
            n++;
        if (n > bestn) {
            best = i;
            bestn = n;
        }
        i += n > 0 ? n : 1;
    }
    size_t o = 0;
    for (int i = 0; i < 8; i++) {
        if (i == best) {
            o += (size_t)snprintf(out + o, 64 - o, "::");
            i += bestn - 1;
            continue;
        }
        if (i > 0 && i != best + bestn)
            out[o++] = ':';
        o += (size_t)snprintf(out + o, 64 - o, "%x", g[i]);
    }
    out[o] = '\0';
}

/* "<scheme>://": the scheme's length, or 0 when the URL does not start
 * with one. */
static size_t
floor_scheme_len(const char *url)
{
    size_t n = 0;
    if (!isalpha((unsigned char)url[0]))
        return 0;
    while (isalnum((unsigned char)url[n]) || url[n] == '+' || url[n] == '-' ||
           url[n] == '.')
        n++;
    return strncmp(url + n, "://", 3) == 0 ? n : 0;
}

/* The host's own checks once libcurl parsed it (lowercased by us). */
static box_err
floor_host(const char *host, char **reason)
{
    size_t n = strlen(host);
    if (n > 2 && host[0] == '[' && host[n - 1] == ']') {
        char inner[64];
        unsigned char b[16];
        if (n - 2 >= sizeof inner)
            return BOX_EINVAL;
        memcpy(inner, host + 1, n - 2);
        inner[n - 2] = '\0';
        if (inet_pton(AF_INET6, inner, b) != 1)
            return BOX_EINVAL;
        if (!floor_v6_refused(b))
            return BOX_OK;
        char text[64];
        floor_v6_text(b, text);
        *reason = box_asprintf("access denied: %s", text);
        return *reason != NULL ? BOX_EDENIED : BOX_ENOMEM;
    }
    // libcurl already wrote a numeric IPv4 (127.1, 0x7f.1, 2130706433)
    // in dotted form; inet_aton reads those forms too, so none slips by.
    struct in_addr a4;
    if (inet_aton(host, &a4) != 0) {
        const unsigned char *b = (const unsigned char *)&a4.s_addr;
        if (!floor_v4_refused(floor_v4_at(b)))
            return BOX_OK;
        *reason =
            box_asprintf("access denied: %u.%u.%u.%u", b[0], b[1], b[2], b[3]);
        return *reason != NULL ? BOX_EDENIED : BOX_ENOMEM;
    }
    char name[256];
    if (n == 0 || n >= sizeof name)
        return BOX_EINVAL;
    memcpy(name, host, n + 1);
    if (name[n - 1] == '.')
        name[--n] = '\0';
    if (strcmp(name, "localhost") == 0 ||
        (n > 10 && strcmp(name + n - 10, ".localhost") == 0)) {
        *reason = box_asprintf("access denied: %s", name);
        return *reason != NULL ? BOX_EDENIED : BOX_ENOMEM;
    }
    return BOX_OK;
}

/* libcurl's parse of url (no globbing, a scheme required): the host,
 * lowercased, and the port, or BOX_EINVAL. */
static box_err
floor_parse(const char *url, http_target *t, char **host)
{
    char *h = NULL, *port = NULL, *scheme = NULL;
    box_err rv = BOX_ENOMEM;
    if ((t->ct_url = curl_url()) == NULL)
        return BOX_ENOMEM;
    CURLUcode uc = curl_url_set(t->ct_url, CURLUPART_URL, url, 0);
    if (uc == CURLUE_OUT_OF_MEMORY)
        goto out;
    rv = BOX_EINVAL;
    if (uc != CURLUE_OK ||
        curl_url_get(t->ct_url, CURLUPART_HOST, &h, 0) != CURLUE_OK ||
        curl_url_get(t->ct_url, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) !=
            CURLUE_OK ||
        curl_url_get(t->ct_url, CURLUPART_SCHEME, &scheme, 0) != CURLUE_OK ||
        h[0] == '\0')
        goto out;
    rv = BOX_ENOMEM;
    for (char *p = h; *p != '\0'; p++)
        *p = (char)tolower((unsigned char)*p);
    t->ct_https = strcmp(scheme, "https") == 0;
    if ((t->ct_scheme = box_strdup(scheme)) == NULL ||
        (t->ct_authority = box_asprintf("%s:%s", h, port)) == NULL ||
        (*host = box_strdup(h)) == NULL)
        goto out;
    rv = BOX_OK;
out:
    curl_free(h);
    curl_free(port);
    curl_free(scheme);
    return rv;
}

box_err
http_floor(const char *url, http_target *t, char **reason)
{
    char *host = NULL;
    memset(t, 0, sizeof *t);
    *reason = NULL;
    size_t sl = floor_scheme_len(url);
    if ((sl != 4 || strncasecmp(url, "http", 4) != 0) &&
        (sl != 5 || strncasecmp(url, "https", 5) != 0)) {
        *reason = box_asprintf("access denied: unsupported scheme in %s", url);
        return *reason != NULL ? BOX_EDENIED : BOX_ENOMEM;
    }
    box_err rv = floor_parse(url, t, &host);
    if (rv == BOX_OK)
        rv = floor_host(host, reason);
    box_free(host);
    if (rv == BOX_EINVAL) {
        *reason = box_asprintf("access denied: cannot parse host from %s", url);
        rv = *reason != NULL ? BOX_EDENIED : BOX_ENOMEM;
    }
    if (rv != BOX_OK)
        http_target_clear(t);
    return rv;
}
