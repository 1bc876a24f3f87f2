/* SPDX-License-Identifier: Apache-2.0 */
/* broker_dial: one socket to the gateway's own path, or a clear refusal. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_fdpass.h"
#include "box_procspec.h"
#include "box_testutil.h"
#include "broker_dial.h"

typedef struct fx {
    char dir[32], path[64];
    int lis;    // the stand-in gateway's listener
    int fds[2]; // [0] the broker's descriptor socket, [1] the worker's
} fx;

static int
setup(void **state)
{
    fx *f = box_calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->dir, sizeof f->dir, "/tmp/box-dial-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->path, sizeof f->path, "%s/egress.sock", f->dir);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    snprintf(a.sun_path, sizeof a.sun_path, "%s", f->path);
    f->lis = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_int_equal(bind(f->lis, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(f->lis, 4), 0);
    assert_int_equal(
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, f->fds), 0);
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    fx *f = *state;
    close(f->lis);
    if (f->fds[0] >= 0)
        close(f->fds[0]);
    close(f->fds[1]);
    box_test_rmtree(f->dir);
    box_free(f);
    return 0;
}

/* The socket the worker gets reaches the gateway: a byte goes across. */
static void
test_connected(void **state)
{
    fx *f = *state;
    box_procspec_egress eg = {.eg_socket = f->path, .eg_port = 1};
    worker_settings ws = {.ws_egress = &eg};
    char *refusal = NULL;
    assert_int_equal(broker_dial(&ws, f->fds[0], &refusal), BOX_OK);
    assert_null(refusal);
    char op;
    int fd = -1;
    assert_int_equal(box_fdpass_recv(f->fds[1], &op, &fd, 1, MSG_DONTWAIT), 1);
    int peer = accept(f->lis, NULL, NULL);
    assert_true(peer >= 0);
    assert_int_equal(send(fd, "x", 1, MSG_NOSIGNAL), 1);
    char c = 0;
    assert_int_equal(recv(peer, &c, 1, 0), 1);
    assert_int_equal(c, 'x');
    close(peer);
    close(fd);
}

static void
expect_refusal(const worker_settings *ws, int sock, const char *want)
{
    char *refusal = NULL;
    assert_int_equal(broker_dial(ws, sock, &refusal), BOX_EDENIED);
    assert_non_null(refusal);
    assert_string_equal(refusal, want);
    box_free(refusal);
}

/* No gateway, a gateway that is not there, a path no socket can have:
 * each refused with its reason, and no descriptor sent. */
static void
test_refusals(void **state)
{
    fx *f = *state;
    worker_settings none = {0};
    expect_refusal(&none, f->fds[0], "the box has no network");
    expect_refusal(NULL, f->fds[0], "the box has no network");
    char gone[160];
    snprintf(gone, sizeof gone, "%s/nothing.sock", f->dir);
    box_procspec_egress eg = {.eg_socket = gone};
    worker_settings ws = {.ws_egress = &eg};
    expect_refusal(&ws, f->fds[0],
                   "cannot connect to the egress gateway: No such file or "
                   "directory");
    char longp[200];
    memset(longp, 'a', sizeof longp - 1);
    longp[0] = '/';
    longp[sizeof longp - 1] = '\0';
    eg.eg_socket = longp;
    expect_refusal(&ws, f->fds[0],
                   "cannot connect to the egress gateway: File name too long");
    char op;
    int fd = -1;
    assert_int_equal(box_fdpass_recv(f->fds[1], &op, &fd, 1, MSG_DONTWAIT),
                     BOX_FDPASS_NONE);
}

/* A worker whose descriptor socket is gone: an error, not a refusal (the
 * call ends), and the connection made is not leaked to anyone. */
static void
test_worker_gone(void **state)
{
    fx *f = *state;
    box_procspec_egress eg = {.eg_socket = f->path};
    worker_settings ws = {.ws_egress = &eg};
    close(f->fds[1]);
    f->fds[1] = -1;
    char *refusal = NULL;
    box_err rv = broker_dial(&ws, f->fds[0], &refusal);
    assert_true(rv != BOX_OK && rv != BOX_EDENIED);
    assert_null(refusal);
    f->fds[1] = dup(f->fds[0]); // for the teardown's close
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_connected, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_worker_gone, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
