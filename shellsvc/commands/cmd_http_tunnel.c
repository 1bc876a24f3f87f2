/* SPDX-License-Identifier: Apache-2.0 */
/* The CONNECT to the gateway, done by hand before libcurl's TLS: libcurl
 * drops a refused CONNECT's body, and that body is the gateway's reason
 * (box-spec §6: a net:connect refusal arrives before 200), which curl and
 * wget must print (§3.12). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "cmd_http.h"

#define TUN_HEAD_MAX 8192u // the gateway's answer head
#define TUN_BODY_MAX 4096u // its reason

long
http_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static long
tun_left(long deadline_ms)
{
    return deadline_ms - http_now_ms();
}

/* Waits for fd to be ready for ev: 1, 0 on the deadline, -1 on error. */
static int
tun_wait(int fd, short ev, long deadline_ms)
{
    for (;;) {
        long left = tun_left(deadline_ms);
        if (left <= 0)
            return 0;
        struct pollfd p = {.fd = fd, .events = ev};
        int n = poll(&p, 1, left > 1000 ? 1000 : (int)left);
        if (n > 0)
            return 1;
        if (n < 0 && errno != EINTR)
            return -1;
    }
}

/* A header's value in head (NUL-terminated, lines ending CRLF), or NULL. */
static const char *
tun_header(const char *head, const char *name)
{
    size_t nl = strlen(name);
    for (const char *p = strstr(head, "\r\n"); p != NULL;
         p = strstr(p + 2, "\r\n")) {
        const char *l = p + 2;
        if (strncasecmp(l, name, nl) == 0 && l[nl] == ':') {
            l += nl + 1;
            while (*l == ' ' || *l == '\t')
                l++;
            return l;
        }
    }
    return NULL;
}

http_tunnel_rc
http_tunnel(int sock, const char *authority, long deadline_ms, char **reason)
{
    char head[TUN_HEAD_MAX + TUN_BODY_MAX + 1];
    size_t have = 0;
    *reason = NULL;
    int n =
        snprintf(head, sizeof head, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n",
                 authority, authority);
    if (n < 0 || (size_t)n >= sizeof head)
        return HTTP_TUNNEL_BROKEN;
    for (size_t off = 0; off < (size_t)n;) {
        int w = tun_wait(sock, POLLOUT, deadline_ms);
        if (w <= 0)
            return w == 0 ? HTTP_TUNNEL_TIMEOUT : HTTP_TUNNEL_BROKEN;
        ssize_t k = send(sock, head + off, (size_t)n - off, MSG_NOSIGNAL);
        if (k < 0 && errno != EINTR && errno != EAGAIN)
            return HTTP_TUNNEL_BROKEN;
        off += k > 0 ? (size_t)k : 0;
    }
    // The head, a byte at a time past its end: after a 200 every byte is
    // the server's TLS, and libcurl must see all of them.
    char *end = NULL;
    while (end == NULL) {
        if (have == TUN_HEAD_MAX)
            return HTTP_TUNNEL_BROKEN;
        int w = tun_wait(sock, POLLIN, deadline_ms);
        if (w <= 0)
            return w == 0 ? HTTP_TUNNEL_TIMEOUT : HTTP_TUNNEL_BROKEN;
        ssize_t k = recv(sock, head + have, 1, 0);
        if (k == 0)
            return HTTP_TUNNEL_BROKEN;
        if (k < 0) {
            if (errno == EINTR || errno == EAGAIN)
                continue;
            return HTTP_TUNNEL_BROKEN;
        }
        have++;
        head[have] = '\0';
        if (have >= 4 && memcmp(head + have - 4, "\r\n\r\n", 4) == 0)
            end = head + have;
    }
    if (strncmp(head, "HTTP/1.", 7) != 0 || have < 12)
        return HTTP_TUNNEL_BROKEN;
    if (memcmp(head + 8, " 200", 4) == 0)
        return HTTP_TUNNEL_OK;
    bool marked = tun_header(head, "x-strands-box-egress") != NULL;
    // Refused (marked) or failed (502: the upstream unresolvable or
    // unreachable): the body (its declared length, at most TUN_BODY_MAX)
    // says why; a body that does not come leaves it empty.
    const char *cl = tun_header(head, "content-length");
    size_t want = 0;
    while (cl != NULL && *cl >= '0' && *cl <= '9' && want <= TUN_BODY_MAX)
        want = want * 10 + (size_t)(*cl++ - '0');
    if (want > TUN_BODY_MAX)
        want = TUN_BODY_MAX;
    size_t got = 0;
    char *body = end;
    while (got < want && tun_wait(sock, POLLIN, deadline_ms) == 1) {
        ssize_t k = recv(sock, body + got, want - got, 0);
        if (k <= 0 && !(k < 0 && (errno == EINTR || errno == EAGAIN)))
            break;
        got += k > 0 ? (size_t)k : 0;
    }
    body[got] = '\0';
    *reason = box_strdup(body);
    if (*reason == NULL)
        return HTTP_TUNNEL_NOMEM;
    return marked ? HTTP_TUNNEL_REFUSED : HTTP_TUNNEL_BROKEN;
}
