/* SPDX-License-Identifier: Apache-2.0 */
/* forker_stop: a forker stuck in a start is ended, and a caller that may
 * not signal it (a Landlock domain scoping signals) is not held up. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_landlock.h"
#include "box_testutil.h"
#include "forker.h"

/* A start stuck for longer than forker_stop waits (3 s), unless killed. */
#define STUCK_MS 8000
static int
stuck_start(void *ctx, char op, const int *fds, size_t n, pid_t *pid)
{
    (void)ctx, (void)op, (void)fds, (void)n, (void)pid;
    box_test_sleep_ms(STUCK_MS);
    return EINVAL;
}

/* A forker stuck in a start (its request's status pipe is *status). */
static forker *
stuck_forker(int *status)
{
    forker *f = NULL;
    int pp[2];
    static const forker_ops ops = {.fo_start = stuck_start};
    assert_int_equal(forker_start("box-test-fk", &ops, NULL, &f), BOX_OK);
    assert_int_equal(pipe2(pp, O_CLOEXEC), 0);
    assert_int_equal(forker_request(f, 'S', &pp[1], 1), BOX_OK);
    close(pp[1]);
    *status = pp[0];
    return f;
}

static void
test_stop_kills_a_stuck_forker(void **state)
{
    (void)state;
    int status;
    forker *f = stuck_forker(&status);
    pid_t pid = forker_pid(f);
    long long t0 = box_test_now_ms();
    forker_stop(f);
    assert_true(box_test_now_ms() - t0 < STUCK_MS - 1000); // killed
    errno = 0;
    assert_int_equal(waitpid(pid, NULL, WNOHANG), -1); // reaped
    assert_int_equal(errno, ECHILD);
    close(status);
}

/*
 * In a child that Landlock confines after starting the forker (so the
 * forker is outside its domain and, from ABI 6, may not be signalled, nor
 * even get its parent-death signal): forker_stop still returns, and the
 * forker ends once it reads its request socket again and finds it closed.
 */
static void
test_stop_when_it_may_not_signal(void **state)
{
    (void)state;
    int pfd[2];
    assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
    pid_t child = fork();
    assert_true(child >= 0);
    if (child == 0) {
        int status, abi, rs = -1;
        char *err = NULL;
        forker *f = stuck_forker(&status);
        pid_t fk = forker_pid(f);
        if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
            box_ll_abi(&abi, &err) != BOX_OK ||
            box_ll_ruleset(abi, &rs, &err) != BOX_OK ||
            box_ll_restrict(rs, &err) != BOX_OK)
            _exit(2);
        long long t0 = box_test_now_ms();
        forker_stop(f);
        if (box_test_now_ms() - t0 >= STUCK_MS - 1000)
            _exit(3); // it waited for the start, not the bound
        (void)!write(pfd[1], &fk, sizeof fk);
        _exit(0);
    }
    close(pfd[1]);
    pid_t fk = 0;
    assert_int_equal(read(pfd[0], &fk, sizeof fk), (ssize_t)sizeof fk);
    close(pfd[0]);
    int ws;
    assert_int_equal(waitpid(child, &ws, 0), child);
    assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    for (int i = 0; i < 2 * STUCK_MS / 10 && kill(fk, 0) == 0; i++)
        box_test_sleep_ms(10);
    assert_int_equal(kill(fk, 0), -1);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stop_kills_a_stuck_forker),
        cmocka_unit_test(test_stop_when_it_may_not_signal),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
