/* SPDX-License-Identifier: Apache-2.0 */
/* The per-call permit memo: narrowed keys, generations, what it refuses to
 * keep, and the broker's check of a worker's reports. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "box_req.h"
#include "permit_memo.h"

static char *const no_fields[] = {NULL};
static char *const by_program[] = {"program", NULL};

/* `[ i -lt 20000 ]`-like: the same program, a different command each time. */
static void
exec_req(box_req *q, const char *program, int i, char *buf, size_t n)
{
    snprintf(buf, n, "%s %d -lt 20000", program, i);
    box_req_exec(q, program, buf, 3, "/w");
}

/* A permit whose action depends on no field serves every request of that
 * action (same shape), under the generation it was made in only. */
static void
test_narrowed(void **state)
{
    (void)state;
    permit_memo *m = permit_memo_new();
    box_req q;
    char cmd[64];
    uint64_t epoch = 0;
    exec_req(&q, "[", 0, cmd, sizeof cmd);
    assert_false(permit_memo_has(m, &q.r_req, 3, 0, 0, NULL));
    assert_int_equal(permit_memo_add(m, &q.r_req, no_fields, 0, 7, 3, 100),
                     BOX_OK);
    exec_req(&q, "[", 19999, cmd, sizeof cmd);
    assert_true(permit_memo_has(m, &q.r_req, 3, 100, 0, &epoch));
    assert_int_equal(epoch, 7);
    exec_req(&q, "echo", 1, cmd, sizeof cmd); // no field read: served too
    assert_true(permit_memo_has(m, &q.r_req, 3, 100, 0, NULL));
    assert_false(permit_memo_has(m, &q.r_req, 5, 100, 0, NULL)); // moved
    assert_true(permit_memo_has(m, &q.r_req, PERMIT_MEMO_ANY_GEN, 0, 0, NULL));
    // Older than the age bound: not served.
    assert_false(permit_memo_has(m, &q.r_req, 3, 30101, 30000, NULL));
    assert_true(permit_memo_has(m, &q.r_req, 3, 30100, 30000, NULL));
    // Another action was never kept.
    box_req_fs(&q, "fs:read", "FsReadOperation", "read", "~/a");
    assert_false(permit_memo_has(m, &q.r_req, 3, 100, 0, NULL));
    permit_memo_free(m);
}

/* A field the policy reads is in the key: another value is not served. */
static void
test_fields_in_key(void **state)
{
    (void)state;
    permit_memo *m = permit_memo_new();
    box_req q;
    char cmd[64];
    exec_req(&q, "true", 1, cmd, sizeof cmd);
    assert_int_equal(permit_memo_add(m, &q.r_req, by_program, 1, 1, 1, 0),
                     BOX_OK);
    exec_req(&q, "true", 2, cmd, sizeof cmd);
    assert_true(permit_memo_has(m, &q.r_req, 1, 0, 0, NULL));
    exec_req(&q, "rm", 1, cmd, sizeof cmd);
    assert_false(permit_memo_has(m, &q.r_req, 1, 0, 0, NULL));
    // One action, one field list per call: another list is refused.
    assert_int_equal(permit_memo_add(m, &q.r_req, no_fields, 0, 2, 1, 0),
                     BOX_EINVAL);
    assert_false(permit_memo_has(m, &q.r_req, 1, 0, 0, NULL));
    permit_memo_free(m);
}

/* shell:spawn (the broker matches each launch to its permit) and a
 * request with an enforcement gate are never kept. */
static void
test_never_kept(void **state)
{
    (void)state;
    permit_memo *m = permit_memo_new();
    box_req q;
    char cmd[64];
    exec_req(&q, "git", 1, cmd, sizeof cmd);
    q.r_req.action = "shell:spawn";
    assert_false(permit_memo_keeps(&q.r_req));
    assert_int_equal(permit_memo_add(m, &q.r_req, no_fields, 0, 1, 1, 0),
                     BOX_EINVAL);
    assert_false(permit_memo_has(m, &q.r_req, 1, 0, 0, NULL));
    Box__Enforcement en = BOX__ENFORCEMENT__INIT;
    en.gate = "reach-floor";
    box_req_fs(&q, "fs:read", "FsReadOperation", "read", "~/.ssh/id");
    q.r_req.enforcement = &en;
    assert_int_equal(permit_memo_add(m, &q.r_req, no_fields, 0, 1, 1, 0),
                     BOX_EINVAL);
    assert_false(permit_memo_has(m, &q.r_req, 1, 0, 0, NULL));
    permit_memo_free(m);
}

/* Filled in the same order, the worker's and the broker's memos agree,
 * past the point where both are full: whatever the worker can serve, the
 * broker accepts a report of; what it never got, the broker refuses. */
static void
test_two_sides_agree(void **state)
{
    (void)state;
    permit_memo *worker = permit_memo_new(), *broker = permit_memo_new();
    box_req q;
    char cmd[64];
    size_t kept = 0;
    static char *const by_command[] = {"command", NULL};
    for (int i = 0; i < 1000; i++) {
        exec_req(&q, "true", i, cmd, sizeof cmd);
        box_err b = permit_memo_add(broker, &q.r_req, by_command, 1, 1, 0, 0);
        if (b == BOX_OK) {
            assert_int_equal(
                permit_memo_add(worker, &q.r_req, by_command, 1, 1, 9, 0),
                BOX_OK);
            kept++;
        } else {
            assert_int_equal(b, BOX_ETOOBIG); // full: the answer says so
        }
    }
    assert_true(kept >= 256 && kept < 1000);
    for (int i = 0; i < 1000; i++) {
        exec_req(&q, "true", i, cmd, sizeof cmd);
        bool w = permit_memo_has(worker, &q.r_req, 9, 0, 0, NULL);
        bool b =
            permit_memo_has(broker, &q.r_req, PERMIT_MEMO_ANY_GEN, 0, 0, NULL);
        assert_int_equal(w, b);
        assert_int_equal(w, (size_t)i < kept);
    }
    // A report of a permit the broker never let the worker keep.
    exec_req(&q, "rm", 1, cmd, sizeof cmd);
    assert_false(
        permit_memo_has(broker, &q.r_req, PERMIT_MEMO_ANY_GEN, 0, 0, NULL));
    permit_memo_free(worker);
    permit_memo_free(broker);
}

/* A request that has no record input, or too long a key, is not kept. */
static void
test_bad_requests(void **state)
{
    (void)state;
    permit_memo *m = permit_memo_new();
    box_req q;
    char cmd[64];
    exec_req(&q, "true", 1, cmd, sizeof cmd);
    q.r_req.input = NULL;
    assert_int_equal(permit_memo_add(m, &q.r_req, no_fields, 0, 1, 1, 0),
                     BOX_ETOOBIG);
    assert_false(permit_memo_has(m, &q.r_req, 1, 0, 0, NULL));
    static char big[4096];
    memset(big, 'x', sizeof big - 1);
    static char *const by_command[] = {"command", NULL};
    box_req_exec(&q, "true", big, 1, "/w");
    assert_int_equal(permit_memo_add(m, &q.r_req, by_command, 1, 1, 1, 0),
                     BOX_ETOOBIG);
    assert_false(permit_memo_has(m, &q.r_req, 1, 0, 0, NULL));
    q.r_req.action = NULL;
    assert_false(permit_memo_keeps(&q.r_req));
    permit_memo_free(m);
    permit_memo_free(NULL);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_narrowed),
        cmocka_unit_test(test_fields_in_key),
        cmocka_unit_test(test_never_kept),
        cmocka_unit_test(test_two_sides_agree),
        cmocka_unit_test(test_bad_requests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
