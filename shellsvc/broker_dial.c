/* SPDX-License-Identifier: Apache-2.0 */
/* Dial frames: a socket to the egress gateway for curl (box-spec §3.12).
 * A worker is confined and may be compromised, so what it gets is only
 * what a host program's sandbox already reaches (its --egress relay): one
 * more connection to the gateway, which decides every connection and
 * request by policy (§6). */
#include "broker_dial.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_fdpass.h"
#include "box_procspec.h"

/* A stream socket connected to path, or -1 with errno. */
static int
bd_connect(const char *path)
{
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    if (strlen(path) >= sizeof a.sun_path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(a.sun_path, path, strlen(path) + 1);
    // Non-blocking: a gateway whose backlog is full is a refusal (EAGAIN),
    // never a broker stuck in connect.
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
    if (fd < 0)
        return -1;
    int rc;
    do
        rc = connect(fd, (const struct sockaddr *)&a, sizeof a);
    while (rc != 0 && errno == EINTR);
    if (rc != 0) {
        int e = errno;
        close(fd);
        errno = e;
        return -1;
    }
    return fd;
}

box_err
broker_dial(const worker_settings *ws, int fds_sock, char **refusal)
{
    *refusal = NULL;
    const struct box_procspec_egress *eg = ws != NULL ? ws->ws_egress : NULL;
    if (eg == NULL || eg->eg_socket == NULL) {
        *refusal = box_strdup("the box has no network");
        return BOX_EDENIED;
    }
    int fd = bd_connect(eg->eg_socket);
    if (fd < 0) {
        *refusal = box_asprintf("cannot connect to the egress gateway: %s",
                                strerror(errno));
        return BOX_EDENIED;
    }
    box_err rv = box_fdpass_send(fds_sock, 'D', &fd, 1, MSG_DONTWAIT);
    close(fd); // the worker has its copy, or none is owed
    return rv;
}
