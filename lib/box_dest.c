/* SPDX-License-Identifier: Apache-2.0 */
/* `[egress.NAME]` destinations: parse a spelling, match a request, overlap. */
#include "box_dest.h"

#include <string.h>

#include "box_alloc.h"

/* DNS's own caps: a name of at most 253 bytes, labels of at most 63. */
#define DEST_MAX_HOST 253
#define DEST_MAX_LABEL 63

static char
lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

static bool
host_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) ||
           c == '-' || c == '.' || c == '_';
}

/* host -> label { '.' label } [ '.' ]   (the trailing dot is dropped)
 * label -> 1..63 of [A-Za-z0-9_-]
 * Reads s[0..len) into a lowercased copy; NULL with *why on refusal. */
static char *
parse_host(const char *s, size_t len, box_err *rv, const char **why)
{
    char *h;
    size_t label = 0;
    *rv = BOX_EINVAL;
    if (len > 0 && s[len - 1] == '.')
        len--;
    if (len == 0) {
        *why = "the host is empty";
        return NULL;
    }
    if (len > DEST_MAX_HOST) {
        *why = "the host is longer than 253 bytes";
        return NULL;
    }
    for (size_t i = 0; i < len; i++) {
        if (s[i] == '*') {
            *why = "`*` may only lead the host as `*.` or stand for a whole "
                   "path segment";
            return NULL;
        }
        if (!host_char(s[i])) {
            *why = "the host holds a character other than letters, digits, "
                   "'-', '_' and '.'";
            return NULL;
        }
        if (s[i] != '.') {
            if (++label > DEST_MAX_LABEL) {
                *why = "a label of the host is longer than 63 bytes";
                return NULL;
            }
            continue;
        }
        if (label == 0) {
            *why = "the host has an empty label";
            return NULL;
        }
        label = 0;
    }
    if (label == 0) { // "a.com.." less its one trailing dot
        *why = "the host has an empty label";
        return NULL;
    }
    if ((h = box_strndup(s, len)) == NULL) {
        *rv = BOX_ENOMEM;
        return NULL;
    }
    for (size_t i = 0; i < len; i++)
        h[i] = lower(h[i]);
    *rv = BOX_OK;
    return h;
}

/* port -> 1..5 digits, 1..65535 */
static bool
parse_port(const char *s, size_t len, uint16_t *out, const char **why)
{
    unsigned long v = 0;
    if (len == 0) {
        *why = "the port is empty";
        return false;
    }
    for (size_t i = 0; i < len; i++) {
        if (!is_digit(s[i])) {
            *why = "the port is not a decimal number";
            return false;
        }
        if ((v = v * 10 + (unsigned long)(s[i] - '0')) > 65535) {
            *why = "the port is past 65535";
            return false;
        }
    }
    if (v == 0) {
        *why = "port 0 is not a port";
        return false;
    }
    *out = (uint16_t)v;
    return true;
}

/* path -> { '/' segment } [ '/' ]   (the caller drops the trailing '/')
 * segment -> '*' | 1.. bytes without '/' or '*', neither "." nor ".."
 * Checks s[0..len) (s[0] is '/'). */
static bool
check_path(const char *s, size_t len, const char **why)
{
    size_t i = 1;
    while (i <= len) {
        const char *seg = s + i;
        const char *end = memchr(seg, '/', len - i);
        size_t n = end != NULL ? (size_t)(end - seg) : len - i;
        if (n == 0) {
            *why = "the path has an empty segment";
            return false;
        }
        if ((n == 1 && seg[0] == '.') ||
            (n == 2 && seg[0] == '.' && seg[1] == '.')) {
            *why = "the path has a '.' or '..' segment, which no canonical "
                   "request path holds";
            return false;
        }
        if (memchr(seg, '*', n) != NULL && n != 1) {
            *why = "`*` may only lead the host as `*.` or stand for a whole "
                   "path segment";
            return false;
        }
        i += n + 1;
    }
    return true;
}

/* dest -> ( '*.' host | host ) [ ':' port ] [ path ] */
box_err
box_dest_parse(const char *text, box_dest *out, const char **why)
{
    box_err rv = BOX_EINVAL;
    const char *hs = text;
    const char *p;
    size_t len;
    memset(out, 0, sizeof(*out));
    *why = NULL;
    if (text == NULL) {
        *why = "it is empty";
        return BOX_EINVAL;
    }
    len = strlen(text);
    if (len == 0) {
        *why = "it is empty";
        return BOX_EINVAL;
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)text[i];
        if (c <= 0x20 || c == 0x7F) {
            *why = "it holds a space or a control character";
            return BOX_EINVAL;
        }
    }
    if (strstr(text, "://") != NULL) {
        *why = "it is a URL; write the host alone, without a scheme";
        return BOX_EINVAL;
    }
    if (strpbrk(text, "?#") != NULL) {
        *why = "it holds a query or a fragment; a destination ends at its "
               "path";
        return BOX_EINVAL;
    }
    if (strcmp(text, "*") == 0 || strncmp(text, "*/", 2) == 0 ||
        strncmp(text, "*:", 2) == 0) {
        *why = "`*` alone would match every host";
        return BOX_EINVAL;
    }
    if (strncmp(text, "*.", 2) == 0) {
        out->d_wildcard = true;
        hs = text + 2;
    }
    size_t hlen = strcspn(hs, ":/");
    if ((out->d_host = parse_host(hs, hlen, &rv, why)) == NULL)
        goto fail;
    p = hs + hlen;
    if (*p == ':') {
        size_t nport = strcspn(p + 1, "/");
        rv = BOX_EINVAL;
        if (!parse_port(p + 1, nport, &out->d_port, why))
            goto fail;
        p += 1 + nport;
    }
    // Here p is "" or starts with '/'; "host/" is "host": every path.
    size_t plen = strlen(p);
    if (plen > 0 && p[plen - 1] == '/')
        plen--;
    rv = BOX_EINVAL;
    if (plen > 0 && !check_path(p, plen, why))
        goto fail;
    rv = BOX_ENOMEM;
    if ((out->d_path = box_strndup(p, plen)) == NULL)
        goto fail;
    return BOX_OK;
fail:
    box_dest_free(out);
    return rv;
}

void
box_dest_free(box_dest *d)
{
    if (d == NULL)
        return;
    box_free(d->d_host);
    box_free(d->d_path);
    memset(d, 0, sizeof(*d));
}

/* s[0..n) equals t[0..n) in ASCII, whatever the case. */
static bool
same_ci(const char *s, const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (lower(s[i]) != lower(t[i]))
            return false;
    return true;
}

/* host (n bytes) is a name strictly under domain: at least one label, then
 * '.', then domain. */
static bool
under_domain(const char *host, size_t n, const char *domain)
{
    size_t dn = strlen(domain);
    return n >= dn + 2 && host[n - dn - 1] == '.' &&
           same_ci(host + n - dn, domain, dn);
}

static bool
host_match(const box_dest *d, const char *host)
{
    size_t n = strlen(host);
    if (n > 0 && host[n - 1] == '.') // the caller's contract, kept anyway
        n--;
    if (d->d_wildcard)
        return under_domain(host, n, d->d_host);
    return n == strlen(d->d_host) && same_ci(host, d->d_host, n);
}

static bool
port_match(uint16_t d_port, unsigned port)
{
    return d_port == 0 ? port == 443 || port == 80 : port == d_port;
}

/* The next segment of a path at *p (which is at a '/' or at its end):
 * its start and length; false at the end. A query ends the path. */
static bool
next_seg(const char **p, const char **seg, size_t *n)
{
    const char *s = *p;
    if (*s != '/')
        return false;
    s++;
    *seg = s;
    *n = strcspn(s, "/?#");
    *p = s + *n;
    if (**p == '?' || **p == '#')
        *p = "";
    return true;
}

static bool
is_star(const char *seg, size_t n)
{
    return n == 1 && seg[0] == '*';
}

static bool
path_match(const char *pattern, const char *path)
{
    const char *ps, *rs;
    size_t pn, rn;
    while (next_seg(&pattern, &ps, &pn)) {
        if (!next_seg(&path, &rs, &rn))
            return false;
        if (is_star(ps, pn) ? rn == 0 : pn != rn || memcmp(ps, rs, pn) != 0)
            return false;
    }
    return true; // every segment matched: the path is the prefix or under it
}

bool
box_dest_match(const box_dest *d, const char *host, unsigned port,
               const char *path)
{
    if (d == NULL || d->d_host == NULL || host == NULL || path == NULL)
        return false;
    return host_match(d, host) && port_match(d->d_port, port) &&
           path_match(d->d_path, path);
}

/* Some name is under both: equal exact hosts, an exact host under the
 * other's domain, or two domains one of which is (or is under) the other
 * (every name under the inner one is under both). */
static bool
host_overlap(const box_dest *a, const box_dest *b)
{
    size_t an = strlen(a->d_host), bn = strlen(b->d_host);
    if (!a->d_wildcard && !b->d_wildcard)
        return strcmp(a->d_host, b->d_host) == 0;
    if (!a->d_wildcard)
        return under_domain(a->d_host, an, b->d_host);
    if (!b->d_wildcard)
        return under_domain(b->d_host, bn, a->d_host);
    return strcmp(a->d_host, b->d_host) == 0 ||
           under_domain(a->d_host, an, b->d_host) ||
           under_domain(b->d_host, bn, a->d_host);
}

static bool
port_overlap(uint16_t a, uint16_t b)
{
    if (a == 0 && b == 0)
        return true;
    if (a == 0)
        return port_match(a, b);
    if (b == 0)
        return port_match(b, a);
    return a == b;
}

/* Two prefixes share a path when they agree segment by segment as far as
 * the shorter goes (a `*` agrees with any segment, and no segment is
 * empty): the longer's paths, with each `*` filled in, fall under both. */
static bool
path_overlap(const char *a, const char *b)
{
    const char *as, *bs;
    size_t an, bn;
    while (next_seg(&a, &as, &an) && next_seg(&b, &bs, &bn)) {
        if (is_star(as, an) || is_star(bs, bn))
            continue;
        if (an != bn || memcmp(as, bs, an) != 0)
            return false;
    }
    return true;
}

bool
box_dest_overlap(const box_dest *a, const box_dest *b)
{
    if (a == NULL || b == NULL || a->d_host == NULL || b->d_host == NULL)
        return false;
    return host_overlap(a, b) && port_overlap(a->d_port, b->d_port) &&
           path_overlap(a->d_path, b->d_path);
}
