/* SPDX-License-Identifier: Apache-2.0 */
/* box_fdpass: what arrives is taken, what is refused is closed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box_fdpass.h"

/* Open descriptors of this process. */
static int
open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n;
}

static void
pair(int sv[2])
{
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv),
                     0);
}

static void
test_round_trip(void **state)
{
    (void)state;
    int sv[2], p[2], got[3];
    char op = 0;
    pair(sv);
    assert_int_equal(pipe(p), 0);
    assert_int_equal(box_fdpass_send(sv[0], 'X', p, 2, 0), BOX_OK);
    assert_int_equal(box_fdpass_recv(sv[1], &op, got, 3, 0), 2);
    assert_int_equal(op, 'X');
    assert_int_equal(write(got[1], "k", 1), 1); // the pipe, through the copies
    char c;
    assert_int_equal(read(p[0], &c, 1), 1);
    assert_true(fcntl(got[0], F_GETFD) & FD_CLOEXEC);
    for (int i = 0; i < 2; i++) {
        close(got[i]);
        close(p[i]);
    }
    // Nothing waiting: none, not an error that looks like a message.
    assert_int_equal(box_fdpass_recv(sv[1], &op, got, 3, MSG_DONTWAIT),
                     BOX_FDPASS_NONE);
    close(sv[0]);
    assert_int_equal(box_fdpass_recv(sv[1], &op, got, 3, 0), BOX_FDPASS_NONE);
    close(sv[1]);
    assert_int_equal(box_fdpass_send(-1, 'X', NULL, 0, 0), BOX_ECLOSED);
    int many[BOX_FDPASS_MAX + 1] = {0};
    assert_int_equal(box_fdpass_send(0, 'X', many, BOX_FDPASS_MAX + 1, 0),
                     BOX_EINVAL);
}

/* More than asked for, or descriptors on an empty message: refused, and
 * every descriptor that came is closed (none left installed). */
static void
test_refused_messages_leak_nothing(void **state)
{
    (void)state;
    int sv[2], p[2], got[4];
    char op;
    pair(sv);
    assert_int_equal(pipe(p), 0);
    int before = open_fds();
    int three[3] = {p[0], p[1], p[0]};
    assert_int_equal(box_fdpass_send(sv[0], 'X', three, 3, 0), BOX_OK);
    assert_int_equal(box_fdpass_recv(sv[1], &op, got, 2, 0), BOX_FDPASS_REFUSED);
    assert_int_equal(open_fds(), before);

    // A zero-length message still carries SCM_RIGHTS.
    struct iovec iov = {.iov_base = "", .iov_len = 0};
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } cm;
    memset(&cm, 0, sizeof cm);
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = cm.buf,
                         .msg_controllen = sizeof cm.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(2 * sizeof(int));
    memcpy(CMSG_DATA(c), p, 2 * sizeof(int));
    assert_int_equal(sendmsg(sv[0], &msg, 0), 0);
    assert_int_equal(box_fdpass_recv(sv[1], &op, got, 4, 0), BOX_FDPASS_REFUSED);
    assert_int_equal(open_fds(), before);
    for (int i = 0; i < 2; i++) {
        close(p[i]);
        close(sv[i]);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trip),
        cmocka_unit_test(test_refused_messages_leak_nothing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
