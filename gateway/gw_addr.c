/* SPDX-License-Identifier: Apache-2.0 */
/* Canonical hosts, addresses and authorities (gw_addr.h). */
#include "gw_addr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

static box_err
refuse(const char **why, const char *reason)
{
    *why = reason;
    return BOX_EINVAL;
}

static bool
is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static bool
is_hex(unsigned char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static unsigned char
lower(unsigned char c)
{
    return c >= 'A' && c <= 'Z' ? (unsigned char)(c - 'A' + 'a') : c;
}

/* The bytes a DNS name may hold here (RFC 1123 plus '_', which SRV-style
 * and some CDN names use). */
static bool
is_name_byte(unsigned char c)
{
    return is_digit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           c == '-' || c == '.' || c == '_';
}

/*
 * Whether the last label of t[0..n) is a number as inet_aton reads one
 * (decimal, 0-octal or 0x-hex). libc, and so the upstream connection,
 * would take such a host as an IPv4 address in one of its many spellings;
 * WHATWG's URL parser uses the same test.
 */
static bool
last_label_numeric(const char *t, size_t n)
{
    size_t i = n;
    while (i > 0 && t[i - 1] != '.')
        i--;
    const char *l = t + i;
    size_t ln = n - i;
    if (ln >= 2 && l[0] == '0' && (l[1] == 'x' || l[1] == 'X')) {
        for (size_t k = 2; k < ln; k++)
            if (!is_hex((unsigned char)l[k]))
                return false;
        return true;
    }
    if (ln == 0)
        return false;
    for (size_t k = 0; k < ln; k++)
        if (!is_digit((unsigned char)l[k]))
            return false;
    return true;
}

/* Whether t[0..n) is the canonical dotted-quad: four decimal parts, each
 * 0..255 without a leading zero. */
static bool
dotted_quad(const char *t, size_t n)
{
    size_t i = 0;
    for (int part = 0; part < 4; part++) {
        if (part > 0) {
            if (i >= n || t[i] != '.')
                return false;
            i++;
        }
        size_t start = i;
        unsigned v = 0;
        while (i < n && is_digit((unsigned char)t[i]) && i - start < 3)
            v = v * 10 + (unsigned)(t[i++] - '0');
        size_t len = i - start;
        if (len == 0 || v > 255 || (len > 1 && t[start] == '0'))
            return false;
    }
    return i == n;
}

static box_err
host_ip6(const char *s, size_t n, gw_host *out, const char **why)
{
    const char *close = memchr(s, ']', n);
    if (close == NULL)
        return refuse(why, "an IPv6 literal without its closing ']'");
    size_t end = (size_t)(close - s) + 1;
    if (end < n)
        return refuse(why, s[end] == ':' ? "a port inside the host"
                                         : "text after an IPv6 literal's ']'");
    const char *in = s + 1;
    size_t in_n = end - 2;
    if (in_n > 0 && (in[0] == 'v' || in[0] == 'V'))
        return refuse(why, "an IPvFuture literal (not supported)");
    if (memchr(in, '%', in_n) != NULL)
        return refuse(why, "an IPv6 zone identifier (not supported)");
    char buf[GW_ADDR_IP6_LIT_MAX + 1];
    unsigned char a6[16];
    if (in_n == 0 || in_n > GW_ADDR_IP6_LIT_MAX)
        return refuse(why, "not an IPv6 address");
    memcpy(buf, in, in_n);
    buf[in_n] = '\0';
    if (inet_pton(AF_INET6, buf, a6) != 1)
        return refuse(why, "not an IPv6 address");
    if (gw_addr_ip(AF_INET6, a6, out->h_text, &out->h_len) != BOX_OK)
        return refuse(why, "not an IPv6 address");
    out->h_kind =
        strchr(out->h_text, ':') != NULL ? GW_HOST_IPV6 : GW_HOST_IPV4;
    return BOX_OK;
}

box_err
gw_addr_host(const char *s, size_t n, gw_host *out, const char **why)
{
    out->h_kind = GW_HOST_NAME;
    out->h_len = 0;
    out->h_text[0] = '\0';
    if (n > 0 && s[0] == '[')
        return host_ip6(s, n, out, why);
    if (n > 0 && s[n - 1] == '.')
        n--; // the root's dot: "example.com." is "example.com"
    if (n == 0)
        return refuse(why, "an empty host");
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c >= 0x80)
            return refuse(why, "a non-ASCII host (IDNA is not supported; "
                               "use the name's xn-- form)");
        if (c == ':')
            return refuse(why, "a port inside the host");
        if (c == '@')
            return refuse(why, "userinfo in the host");
        if (!is_name_byte(c))
            return refuse(why, "a host byte other than a letter, digit, "
                               "'-', '.' or '_'");
    }
    if (n > GW_ADDR_HOST_MAX)
        return refuse(why, "a host over 253 bytes");
    size_t label = 0;
    for (size_t i = 0; i <= n; i++) {
        if (i == n || s[i] == '.') {
            if (label == 0)
                return refuse(why, "an empty label in the host");
            if (label > GW_ADDR_LABEL_MAX)
                return refuse(why, "a host label over 63 bytes");
            label = 0;
        } else {
            label++;
        }
    }
    for (size_t i = 0; i < n; i++)
        out->h_text[i] = (char)lower((unsigned char)s[i]);
    out->h_text[n] = '\0';
    out->h_len = n;
    if (last_label_numeric(out->h_text, n)) {
        /* 127.1, 0x7f.1, 0177.0.0.1 and 2130706433 all reach 127.0.0.1:
         * a rule written for "127.0.0.1" would not know them. */
        if (!dotted_quad(out->h_text, n)) {
            out->h_len = 0;
            out->h_text[0] = '\0';
            return refuse(why, "an IPv4 address not in canonical "
                               "dotted-quad form (a rule would not "
                               "recognize it)");
        }
        out->h_kind = GW_HOST_IPV4;
    }
    return BOX_OK;
}

static size_t
put_ip4(const unsigned char *b, char *out)
{
    int k =
        snprintf(out, GW_ADDR_TEXT_MAX, "%u.%u.%u.%u", b[0], b[1], b[2], b[3]);
    return (size_t)k;
}

/* RFC 5952 §4: the longest run (two or more) of zero groups becomes "::",
 * the first one on a tie; hex is lowercase without leading zeros. */
static size_t
put_ip6(const unsigned char *b, char *out)
{
    unsigned w[8];
    for (int i = 0; i < 8; i++)
        w[i] = (unsigned)b[2 * i] << 8 | b[2 * i + 1];
    int best = -1, best_len = 1;
    for (int i = 0; i < 8;) {
        if (w[i] != 0) {
            i++;
            continue;
        }
        int j = i;
        while (j < 8 && w[j] == 0)
            j++;
        if (j - i > best_len) {
            best = i;
            best_len = j - i;
        }
        i = j;
    }
    size_t len = 0;
    for (int i = 0; i < 8; i++) {
        if (i == best) {
            out[len++] = ':';
            if (i == 0)
                out[len++] = ':';
            i += best_len - 1;
            continue;
        }
        int k = snprintf(out + len, GW_ADDR_TEXT_MAX - len, "%x%s", w[i],
                         i < 7 ? ":" : "");
        len += (size_t)k;
    }
    out[len] = '\0';
    return len;
}

box_err
gw_addr_ip(int family, const void *addr, char *out, size_t *len)
{
    static const unsigned char mapped[12] = {0, 0, 0, 0, 0,    0,
                                             0, 0, 0, 0, 0xff, 0xff};
    const unsigned char *b = addr;
    if (family == AF_INET) {
        *len = put_ip4(b, out);
        return BOX_OK;
    }
    if (family != AF_INET6)
        return BOX_EINVAL;
    // One host, one text: ::ffff:a.b.c.d is the IPv4 host a.b.c.d.
    if (memcmp(b, mapped, sizeof mapped) == 0)
        *len = put_ip4(b + 12, out);
    else
        *len = put_ip6(b, out);
    return BOX_OK;
}

box_err
gw_addr_ip_sockaddr(const struct sockaddr *sa, socklen_t salen, char *out,
                    size_t *len)
{
    if (sa->sa_family == AF_INET && salen >= sizeof(struct sockaddr_in)) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)sa;
        return gw_addr_ip(AF_INET, &in->sin_addr, out, len);
    }
    if (sa->sa_family == AF_INET6 && salen >= sizeof(struct sockaddr_in6)) {
        const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
        return gw_addr_ip(AF_INET6, &in6->sin6_addr, out, len);
    }
    return BOX_EINVAL;
}

/* port -> 1*DIGIT, 1..65535 (RFC 3986 §3.2.3 allows any digits; zero and
 * more than 16 bits name no TCP port). */
static box_err
parse_port(const char *s, size_t n, uint16_t *port, const char **why)
{
    unsigned long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit((unsigned char)s[i]))
            return refuse(why, "a port that is not decimal digits");
        v = v * 10 + (unsigned long)(s[i] - '0');
        if (v > 65535)
            return refuse(why, "a port out of range (1..65535)");
    }
    if (v == 0)
        return refuse(why, "a port out of range (1..65535)");
    *port = (uint16_t)v;
    return BOX_OK;
}

box_err
gw_addr_authority(const char *s, size_t n, uint16_t default_port,
                  gw_authority *out, const char **why)
{
    out->a_port = 0;
    out->a_port_given = false;
    if (memchr(s, '@', n) != NULL)
        return refuse(why, "userinfo in the authority (not allowed)");
    size_t host_n = n;
    if (n > 0 && s[0] == '[') {
        const char *close = memchr(s, ']', n);
        if (close == NULL)
            return refuse(why, "an IPv6 literal without its closing ']'");
        host_n = (size_t)(close - s) + 1;
        if (host_n < n && s[host_n] != ':')
            return refuse(why, "text after an IPv6 literal's ']'");
    } else {
        const char *colon = memchr(s, ':', n);
        if (colon != NULL) {
            host_n = (size_t)(colon - s);
            if (memchr(colon + 1, ':', n - host_n - 1) != NULL)
                return refuse(why, "an IPv6 address without brackets");
        }
    }
    BOX_TRY(gw_addr_host(s, host_n, &out->a_host, why));
    size_t port_n = host_n < n ? n - host_n - 1 : 0;
    if (port_n == 0) {
        if (default_port == 0)
            return refuse(why, "no port (host:port is required)");
        out->a_port = default_port;
        return BOX_OK;
    }
    BOX_TRY(parse_port(s + host_n + 1, port_n, &out->a_port, why));
    out->a_port_given = true;
    return BOX_OK;
}

bool
gw_addr_authority_eq(const gw_authority *a, const gw_authority *b)
{
    return a->a_port == b->a_port && a->a_host.h_kind == b->a_host.h_kind &&
           a->a_host.h_len == b->a_host.h_len &&
           memcmp(a->a_host.h_text, b->a_host.h_text, a->a_host.h_len) == 0;
}

/* Whether a and b are the same address and port. */
bool
gw_addr_same_endpoint(const struct sockaddr *a, const struct sockaddr *b)
{
    if (a->sa_family != b->sa_family)
        return false;
    if (a->sa_family == AF_INET) {
        const struct sockaddr_in *x = (const void *)a, *y = (const void *)b;
        return x->sin_port == y->sin_port &&
               x->sin_addr.s_addr == y->sin_addr.s_addr;
    }
    const struct sockaddr_in6 *x = (const void *)a, *y = (const void *)b;
    return a->sa_family == AF_INET6 && x->sin6_port == y->sin6_port &&
           x->sin6_scope_id == y->sin6_scope_id &&
           memcmp(&x->sin6_addr, &y->sin6_addr, sizeof x->sin6_addr) == 0;
}
