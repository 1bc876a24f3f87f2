/* SPDX-License-Identifier: Apache-2.0 */
/* SCM_RIGHTS, written once. */
#include "box_fdpass.h"

#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

typedef union fdpass_cmsg {
    char fc_buf[CMSG_SPACE(BOX_FDPASS_MAX * sizeof(int))];
    struct cmsghdr fc_align;
} fdpass_cmsg;

box_err
box_fdpass_send(int sock, char op, const int *fds, size_t n, int flags)
{
    if (n > BOX_FDPASS_MAX || (n > 0 && fds == NULL))
        return BOX_EINVAL;
    struct iovec iov = {.iov_base = &op, .iov_len = 1};
    fdpass_cmsg cm;
    memset(&cm, 0, sizeof cm);
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1};
    if (n > 0) {
        msg.msg_control = cm.fc_buf;
        msg.msg_controllen = CMSG_SPACE(n * sizeof(int));
        struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(n * sizeof(int));
        memcpy(CMSG_DATA(c), fds, n * sizeof(int));
    }
    ssize_t sent;
    do {
        sent = sendmsg(sock, &msg, flags | MSG_NOSIGNAL);
    } while (sent < 0 && errno == EINTR);
    return sent == 1 ? BOX_OK : BOX_ECLOSED;
}

int
box_fdpass_recv(int sock, char *op, int *fds, size_t max, int flags)
{
    char byte = 0;
    struct iovec iov = {.iov_base = &byte, .iov_len = 1};
    fdpass_cmsg cm;
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = cm.fc_buf,
                         .msg_controllen = sizeof cm.fc_buf};
    ssize_t n;
    do {
        n = recvmsg(sock, &msg, flags | MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (max > BOX_FDPASS_MAX)
        max = BOX_FDPASS_MAX;
    size_t got = 0;
    bool over = false;
    for (struct cmsghdr *c = n >= 0 ? CMSG_FIRSTHDR(&msg) : NULL; c != NULL;
         c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        int in[BOX_FDPASS_MAX];
        if (nfd > BOX_FDPASS_MAX)
            nfd = BOX_FDPASS_MAX; // the rest did not fit: MSG_CTRUNC
        memcpy(in, CMSG_DATA(c), nfd * sizeof(int));
        for (size_t i = 0; i < nfd; i++) {
            if (got < max) {
                fds[got++] = in[i];
            } else {
                close(in[i]);
                over = true;
            }
        }
    }
    if (n != 1 || over || (msg.msg_flags & MSG_CTRUNC) != 0) {
        for (size_t i = 0; i < got; i++)
            close(fds[i]);
        return n < 0 || (n == 0 && got == 0) ? BOX_FDPASS_NONE
                                             : BOX_FDPASS_REFUSED;
    }
    *op = byte;
    return (int)got;
}
