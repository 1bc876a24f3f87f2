/* SPDX-License-Identifier: Apache-2.0 */
/* The proxy's listening sockets. */
#include "gw_listen.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "box_alloc.h"
#include "gw_addr.h"

#define GW_BACKLOG 512

box_err
gw_listen_tcp(const char *hostport, int *fd, char *addr, size_t addrn,
              char **err)
{
    gw_authority a;
    const char *why = NULL;
    struct sockaddr_storage ss;
    socklen_t sl;
    *fd = -1;
    *err = NULL;
    // Port 0 is allowed here (any free port), not in an authority.
    size_t n = strlen(hostport);
    bool any = n > 2 && strcmp(hostport + n - 2, ":0") == 0;
    char buf[300];
    if (any) {
        snprintf(buf, sizeof buf, "%.*s:1", (int)(n - 2), hostport);
        hostport = buf;
    }
    if (gw_addr_authority(hostport, strlen(hostport), 0, &a, &why) != BOX_OK ||
        a.a_host.h_kind == GW_HOST_NAME) {
        *err = box_asprintf("--listen %s: %s", hostport,
                            why ? why : "not an IP address and port");
        return BOX_EINVAL;
    }
    memset(&ss, 0, sizeof ss);
    uint16_t port = any ? 0 : a.a_port;
    if (a.a_host.h_kind == GW_HOST_IPV4) {
        struct sockaddr_in *in = (struct sockaddr_in *)&ss;
        in->sin_family = AF_INET;
        in->sin_port = htons(port);
        inet_pton(AF_INET, a.a_host.h_text, &in->sin_addr);
        sl = sizeof *in;
    } else {
        struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)&ss;
        in6->sin6_family = AF_INET6;
        in6->sin6_port = htons(port);
        inet_pton(AF_INET6, a.a_host.h_text, &in6->sin6_addr);
        sl = sizeof *in6;
    }
    int s = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    int one = 1;
    if (s < 0 || setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one) ||
        bind(s, (struct sockaddr *)&ss, sl) != 0 || listen(s, GW_BACKLOG) ||
        getsockname(s, (struct sockaddr *)&ss, &sl) != 0) {
        *err = box_asprintf("cannot listen on %s: %s", hostport,
                            strerror(errno));
        if (s >= 0)
            close(s);
        return BOX_EIO;
    }
    char ip[GW_ADDR_TEXT_MAX];
    size_t iplen;
    if (gw_addr_ip_sockaddr((struct sockaddr *)&ss, sl, ip, &iplen) != BOX_OK) {
        close(s);
        *err = box_asprintf("cannot read back the address of %s", hostport);
        return BOX_EIO;
    }
    unsigned got = ss.ss_family == AF_INET
                       ? ntohs(((struct sockaddr_in *)&ss)->sin_port)
                       : ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
    bool v6 = ss.ss_family == AF_INET6;
    snprintf(addr, addrn, "%s%s%s:%u", v6 ? "[" : "", ip, v6 ? "]" : "", got);
    *fd = s;
    return BOX_OK;
}

box_err
gw_listen_unix(const char *path, int *fd, char **err)
{
    struct sockaddr_un sun = {.sun_family = AF_UNIX};
    struct stat st;
    *fd = -1;
    *err = NULL;
    if (strlen(path) >= sizeof sun.sun_path) {
        *err = box_asprintf("socket path too long (%zu bytes, at most %zu): %s",
                            strlen(path), sizeof sun.sun_path - 1, path);
        return BOX_ETOOBIG;
    }
    memcpy(sun.sun_path, path, strlen(path) + 1);
    if (lstat(path, &st) == 0) {
        if (!S_ISSOCK(st.st_mode)) {
            *err = box_asprintf("%s exists and is not a socket", path);
            return BOX_EBUSY;
        }
        unlink(path);
    }
    int s = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (s < 0 || bind(s, (struct sockaddr *)&sun, sizeof sun) != 0 ||
        chmod(path, 0666) != 0 || listen(s, GW_BACKLOG) != 0) {
        *err = box_asprintf("cannot listen on %s: %s", path, strerror(errno));
        if (s >= 0)
            close(s);
        return BOX_EIO;
    }
    *fd = s;
    return BOX_OK;
}
