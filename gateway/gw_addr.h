/* SPDX-License-Identifier: Apache-2.0 */
/* Hosts, addresses and authorities in the one spelling policy sees. */
#ifndef GW_ADDR_H
#define GW_ADDR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "box_err.h"

/*
 * A `net:connect` rule matches the text of a host or an address (box-spec
 * §4), so every spelling an agent could use for one destination must come
 * out as one text, and a spelling with no one text is refused rather than
 * passed on for libc or a server to read its own way. Nothing here
 * allocates or resolves; refusals are BOX_EINVAL with *why set to a static
 * one-line reason.
 */

#define GW_ADDR_HOST_MAX 253   // bytes of a name, without the trailing dot
#define GW_ADDR_LABEL_MAX 63   // bytes of one label
#define GW_ADDR_TEXT_MAX 254   // a canonical host or address and its NUL
#define GW_ADDR_IP6_LIT_MAX 45 // bytes between the brackets of an IPv6 literal

/* What a canonical host names. */
typedef enum gw_host_kind {
    GW_HOST_NAME, // a DNS name: resolved later, decided before and after
    GW_HOST_IPV4, // a dotted-quad (also an IPv4-mapped IPv6 literal)
    GW_HOST_IPV6, // an IPv6 literal, without its brackets
} gw_host_kind;

typedef struct gw_host {
    gw_host_kind h_kind;
    size_t h_len;
    char h_text[GW_ADDR_TEXT_MAX]; // canonical, NUL-terminated
} gw_host;

/* A host and the port it was given with, or the default. */
typedef struct gw_authority {
    gw_host a_host;
    uint16_t a_port;   // 1..65535
    bool a_port_given; // false when a_port is the caller's default
} gw_authority;

/*
 * The host s[0..n) as `net:connect` sees it: letters lowercased, one
 * trailing dot removed; `[v6]` as its canonical address text (an
 * IPv4-mapped one as IPv4); a name whose last label is a number only when
 * it is a canonical dotted-quad. Refused: empty, over GW_ADDR_HOST_MAX or a
 * label over GW_ADDR_LABEL_MAX, an empty label, a byte other than a letter,
 * digit, '-', '.' or '_' (non-ASCII included: no IDNA), a port, userinfo,
 * an IPv6 zone or IPvFuture literal.
 */
box_err gw_addr_host(const char *s, size_t n, gw_host *out,
                     const char **why) BOX_WARN_UNUSED;

/*
 * The canonical text of an address (family AF_INET with 4 bytes or
 * AF_INET6 with 16): IPv4 dotted-quad; IPv6 per RFC 5952 (lowercase, no
 * leading zeros, the longest run of two or more zero groups as "::", the
 * first of equal runs), all in hex; an IPv4-mapped address (::ffff:a.b.c.d)
 * as its IPv4 text. out holds GW_ADDR_TEXT_MAX bytes. BOX_EINVAL for
 * another family.
 */
box_err gw_addr_ip(int family, const void *addr, char *out,
                   size_t *len) BOX_WARN_UNUSED;
/* The same for a socket address (AF_INET or AF_INET6) of salen bytes. */
box_err gw_addr_ip_sockaddr(const struct sockaddr *sa, socklen_t salen,
                            char *out, size_t *len) BOX_WARN_UNUSED;
/* Whether a and b (AF_INET or AF_INET6) are the same address and port. */
bool gw_addr_same_endpoint(const struct sockaddr *a, const struct sockaddr *b);

/*
 * An authority s[0..n): host[:port] with a host as gw_addr_host reads it
 * ("[v6]" bracketed). default_port 0 means the port is required (a
 * CONNECT target); otherwise a missing or empty port is default_port. A
 * port is decimal digits only, 1..65535. Userinfo ("u@h") is refused.
 */
box_err gw_addr_authority(const char *s, size_t n, uint16_t default_port,
                          gw_authority *out, const char **why) BOX_WARN_UNUSED;

/* Whether two canonical authorities name the same host and port. */
bool gw_addr_authority_eq(const gw_authority *a, const gw_authority *b);

#endif
