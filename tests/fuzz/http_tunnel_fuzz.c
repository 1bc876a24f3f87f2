/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target http_tunnel: what the egress gateway answers the shell's
 * CONNECT (cmd_http.h), read from a socket as the shell reads it. */
#include <stdbool.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_fuzz.h"
#include "cmd_http.h"

/*
 * Invariants: OK only for a head that starts "HTTP/1.x 200"; REFUSED only
 * with a reason and a marker field; a reason is a string of at most the
 * body limit; never a timeout (the answer is all there, then EOF). The
 * input is the whole answer; the peer closes after it.
 */

#define FZ_BODY_MAX 4096u

/* Whether the answer names the marker field anywhere (any case). */
static bool
has_marker(const uint8_t *data, size_t size)
{
    static const char m[] = "x-strands-box-egress:";
    size_t n = sizeof m - 1;
    for (size_t i = 0; i + n <= size; i++)
        if (strncasecmp((const char *)data + i, m, n) == 0)
            return true;
    return false;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size > 60000) // one socket buffer: the writer never blocks
        return 0;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        box_fuzz_fail("no socketpair");
    size_t off = 0;
    while (off < size) {
        ssize_t w = write(sv[1], data + off, size - off);
        if (w <= 0)
            box_fuzz_fail("cannot stage the answer");
        off += (size_t)w;
    }
    shutdown(sv[1], SHUT_WR);
    char *reason = NULL;
    http_tunnel_rc rc =
        http_tunnel(sv[0], "origin.test:443", http_now_ms() + 5000, &reason);
    switch (rc) {
    case HTTP_TUNNEL_OK:
        if (size < 12 || memcmp(data, "HTTP/1.", 7) != 0 ||
            memcmp(data + 8, " 200", 4) != 0)
            box_fuzz_fail("a tunnel without a 200");
        if (reason != NULL)
            box_fuzz_fail("a reason with a tunnel");
        break;
    case HTTP_TUNNEL_REFUSED:
        if (reason == NULL)
            box_fuzz_fail("a refusal without a reason");
        if (!has_marker(data, size))
            box_fuzz_fail("a refusal without a marker field");
        break;
    case HTTP_TUNNEL_TIMEOUT:
        box_fuzz_fail("a timeout on an answer that was all there");
    case HTTP_TUNNEL_BROKEN:
    case HTTP_TUNNEL_NOMEM:
        break;
    }
    if (reason != NULL && strlen(reason) > FZ_BODY_MAX)
        box_fuzz_fail("a reason past the body limit");
    box_free(reason);
    close(sv[0]);
    close(sv[1]);
    return 0;
}
