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
    permit_memo_hit hit = {0};
    exec_req(&q, "[", 0, cmd, sizeof cmd);
    assert_false(permit_memo_has(m, &q.r_req, 3, 0, 0, NULL));
    assert_int_equal(permit_memo_add(m, &q.r_req, no_fields, 0, 7, 3, 100),
                     BOX_OK);
    exec_req(&q, "[", 19999, cmd, sizeof cmd);
    assert_true(permit_memo_has(m, &q.r_req, 3, 100, 0, &hit));
    assert_int_equal(hit.ph_epoch, 7);
    assert_int_equal(hit.ph_born_ms, 100);
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

/* The value of field name in input, or NULL. */
static const Box__Value *
field_of(const Box__Value *input, const char *name)
{
    for (size_t i = 0; i < input->record->n_fields; i++)
        if (strcmp(input->record->fields[i]->name, name) == 0)
            return input->record->fields[i]->value;
    return NULL;
}

/* A report's input: the fields read as they are, the others blank of
 * their kind (an entity as it is), so a loop's reports are one; the
 * broker's memo takes it as the permit it kept; a request of an action
 * never kept reports its own input. */
static void
test_report_input(void **state)
{
    (void)state;
    permit_memo *m = permit_memo_new();
    box_req q;
    char cmd[64];
    exec_req(&q, "[", 5, cmd, sizeof cmd);
    assert_int_equal(permit_memo_add(m, &q.r_req, by_program, 1, 7, 3, 0),
                     BOX_OK);
    permit_memo_blank b, b2;
    exec_req(&q, "[", 6, cmd, sizeof cmd);
    Box__Value *in = permit_memo_report_input(m, &q.r_req, &b);
    assert_ptr_not_equal(in, q.r_req.input);
    assert_string_equal(field_of(in, "program")->str, "[");
    assert_string_equal(field_of(in, "command")->str, "");
    assert_string_equal(field_of(in, "cwd")->str, "");
    assert_int_equal(field_of(in, "arg_count")->kind_case,
                     BOX__VALUE__KIND_LONG);
    assert_int_equal(field_of(in, "arg_count")->long_, 0);
    assert_string_equal(field_of(q.r_req.input, "command")->str,
                        "[ 6 -lt 20000"); // the request is untouched
    Box__DecisionRequest rep = q.r_req;
    rep.input = in;
    assert_true(permit_memo_has(m, &rep, 3, 0, 0, NULL));
    // Another serving of the same permit: the same report, byte for byte.
    box_req q2;
    char cmd2[64];
    exec_req(&q2, "[", 7, cmd2, sizeof cmd2);
    Box__DecisionRequest rep2 = q2.r_req;
    rep2.input = permit_memo_report_input(m, &q2.r_req, &b2);
    uint8_t p1[512], p2[512];
    assert_true(box__decision_request__get_packed_size(&rep) <= sizeof p1);
    size_t n1 = box__decision_request__pack(&rep, p1);
    size_t n2 = box__decision_request__pack(&rep2, p2);
    assert_int_equal(n1, n2);
    assert_memory_equal(p1, p2, n1);
    // An entity is kept as it is; an action never kept reports itself.
    box_req_fs(&q, "fs:read", "Box::FsReadOperation", "read_content", "/w/a");
    assert_ptr_equal(permit_memo_report_input(m, &q.r_req, &b), q.r_req.input);
    assert_int_equal(permit_memo_add(m, &q.r_req, no_fields, 0, 7, 3, 0),
                     BOX_OK);
    in = permit_memo_report_input(m, &q.r_req, &b);
    assert_string_equal(field_of(in, "path")->str, "");
    assert_ptr_equal(field_of(in, "operation"),
                     field_of(q.r_req.input, "operation"));
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
        cmocka_unit_test(test_report_input),
        cmocka_unit_test(test_never_kept),
        cmocka_unit_test(test_two_sides_agree),
        cmocka_unit_test(test_bad_requests),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
