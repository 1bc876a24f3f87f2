/* SPDX-License-Identifier: Apache-2.0 */
/* served_again: one identity exactly when one report, and an entry good
 * only under its validity word, batch and age. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>

#include "box_effect.h"
#include "box_reqpack.h"
#include "served_again.h"

/* One request as the shell builds it, with the storage it points into. */
typedef struct req {
    box_effect_req r_er;
    const Box__DecisionRequest *r_q;
    char *r_argv[4];
    char *r_args[4];
    char r_cmd[64];
} req;

/* `[ <n> -lt <lim> ]` in cwd: the number came from an expansion, so its
 * argument is redacted; the limit is literal. */
static void
exec_req(req *r, const char *n, const char *lim, const char *cwd)
{
    r->r_argv[0] = "[";
    r->r_argv[1] = (char *)n;
    r->r_argv[2] = "-lt";
    r->r_argv[3] = (char *)lim;
    r->r_args[0] = "[";
    r->r_args[1] = "<redacted>";
    r->r_args[2] = "-lt";
    r->r_args[3] = (char *)lim;
    snprintf(r->r_cmd, sizeof r->r_cmd, "[ %s -lt %s", n, lim);
    box_effect e = {.e_kind = BOX_EFFECT_SHELL_EXEC,
                    .e_cmd = {.ec_command = r->r_cmd,
                              .ec_argc = 4,
                              .ec_argv = r->r_argv,
                              .ec_cwd = cwd,
                              .ec_args = r->r_args,
                              .ec_nargs = 4}};
    r->r_q = box_effect_request(&r->r_er, &e);
    assert_non_null(r->r_q);
}

static void
read_req(req *r, const char *path)
{
    box_effect e = {.e_kind = BOX_EFFECT_FS_READ,
                    .e_fs = {.ef_operation = "read_content",
                             .ef_reported = path,
                             .ef_canonical = path}};
    r->r_q = box_effect_request(&r->r_er, &e);
    assert_non_null(r->r_q);
}

/* The report the worker packs for q served from m under epoch. */
static size_t
report(const permit_memo *m, const Box__DecisionRequest *q, uint64_t epoch,
       uint8_t *buf, size_t max)
{
    permit_memo_blank blank;
    Box__DecisionRequest copy = *q;
    size_t n = 0;
    copy.cached = 1;
    copy.cached_epoch = epoch;
    copy.input = permit_memo_report_input(m, q, &blank);
    uint8_t *p = box_reqpack_any(&copy, buf, max, &n);
    assert_non_null(p);
    memmove(buf, p, n);
    return n;
}

/* For every pair: the same identity exactly when the same report bytes. */
static void
check_pairs(const permit_memo *m, req *rs, size_t n)
{
    served_again_id a, b;
    uint8_t ra[2048], rb[2048];
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < n; j++) {
            assert_true(served_again_id_of(m, rs[i].r_q, &a));
            assert_true(served_again_id_of(m, rs[j].r_q, &b));
            size_t la = report(m, rs[i].r_q, 7, ra, sizeof ra);
            size_t lb = report(m, rs[j].r_q, 7, rb, sizeof rb);
            bool same_id = a.si_len == b.si_len &&
                           memcmp(a.si_buf, b.si_buf, a.si_len) == 0;
            bool same_report = la == lb && memcmp(ra, rb, la) == 0;
            if (same_id != same_report)
                fail_msg("requests %zu and %zu: identity %s, report %s", i, j,
                         same_id ? "same" : "differs",
                         same_report ? "same" : "differs");
            if (same_id)
                assert_true(a.si_hash == b.si_hash);
        }
}

static char *const no_fields[] = {NULL};
static char *const by_command[] = {"command", NULL};

/* A policy that reads nothing: a loop's `[` is one identity whatever the
 * number; the literal limit, the directory, the path tell them apart. */
static void
test_identity_is_report(void **state)
{
    (void)state;
    permit_memo *m = permit_memo_new();
    req rs[7];
    exec_req(&rs[0], "1", "9", "/w");
    exec_req(&rs[1], "2", "9", "/w");
    exec_req(&rs[2], "2", "10", "/w");
    exec_req(&rs[3], "2", "9", "/x");
    read_req(&rs[4], "/w/a");
    read_req(&rs[5], "/w/a");
    read_req(&rs[6], "/w/b");
    assert_int_equal(permit_memo_add(m, rs[0].r_q, no_fields, 0, 7, 1, 0),
                     BOX_OK);
    assert_int_equal(permit_memo_add(m, rs[4].r_q, no_fields, 0, 7, 1, 0),
                     BOX_OK);
    check_pairs(m, rs, 7);
    served_again_id a, b;
    assert_true(served_again_id_of(m, rs[0].r_q, &a));
    assert_true(served_again_id_of(m, rs[1].r_q, &b));
    assert_memory_equal(a.si_buf, b.si_buf, a.si_len);
    permit_memo_free(m);
}

/* A policy that reads the command: each number its own identity. */
static void
test_read_field_kept(void **state)
{
    (void)state;
    permit_memo *m = permit_memo_new();
    req rs[3];
    exec_req(&rs[0], "1", "9", "/w");
    exec_req(&rs[1], "2", "9", "/w");
    exec_req(&rs[2], "1", "9", "/w");
    assert_int_equal(permit_memo_add(m, rs[0].r_q, by_command, 1, 7, 1, 0),
                     BOX_OK);
    check_pairs(m, rs, 3);
    served_again_id a, b;
    assert_true(served_again_id_of(m, rs[0].r_q, &a));
    assert_true(served_again_id_of(m, rs[1].r_q, &b));
    assert_false(a.si_len == b.si_len &&
                 memcmp(a.si_buf, b.si_buf, a.si_len) == 0);
    permit_memo_free(m);
}

/* No identity for an action the memo never kept, nor for a spawn. */
static void
test_not_kept(void **state)
{
    (void)state;
    permit_memo *m = permit_memo_new();
    req r;
    served_again_id id;
    exec_req(&r, "1", "9", "/w");
    assert_false(served_again_id_of(m, r.r_q, &id));
    assert_int_equal(permit_memo_add(m, r.r_q, no_fields, 0, 7, 1, 0), BOX_OK);
    assert_true(served_again_id_of(m, r.r_q, &id));
    Box__DecisionRequest spawn = *r.r_q;
    spawn.action = "shell:spawn";
    assert_false(served_again_id_of(m, &spawn, &id));
    permit_memo_free(m);
}

/* An entry answers only under its validity word and batch, while the
 * memo's entry would, and only for its own identity; by its token too,
 * only until another put replaces it. */
static void
test_table(void **state)
{
    (void)state;
    permit_memo *m = permit_memo_new();
    served_again *a = served_again_new();
    assert_non_null(a);
    req r, other;
    served_again_id id, id2;
    exec_req(&r, "1", "9", "/w");
    exec_req(&other, "1", "9", "/elsewhere");
    assert_int_equal(permit_memo_add(m, r.r_q, no_fields, 0, 7, 3, 100),
                     BOX_OK);
    assert_true(served_again_id_of(m, r.r_q, &id));
    assert_true(served_again_id_of(m, other.r_q, &id2));
    size_t index = 99;
    uint64_t epoch = 0, token = 0, found = 0;
    assert_false(
        served_again_find(a, &id, 3, 0, 100, 0, &index, &epoch, &found));
    permit_memo_hit hit = {.ph_epoch = 7, .ph_born_ms = 100};
    token = served_again_put(a, &id, 3, 5, &hit, 2);
    assert_int_not_equal(token, 0);
    assert_true(
        served_again_find(a, &id, 3, 5, 150, 1000, &index, &epoch, &found));
    assert_int_equal(index, 2);
    assert_int_equal(epoch, 7);
    assert_int_equal(found, token);
    assert_false(
        served_again_find(a, &id, 4, 5, 150, 0, &index, &epoch, &found));
    assert_false(
        served_again_find(a, &id, 3, 6, 150, 0, &index, &epoch, &found));
    assert_true(
        served_again_find(a, &id, 3, 5, 1100, 1000, &index, &epoch, &found));
    assert_false(
        served_again_find(a, &id, 3, 5, 1101, 1000, &index, &epoch, &found));
    assert_false(
        served_again_find(a, &id2, 3, 5, 150, 0, &index, &epoch, &found));
    // The token answers under the same terms, with no identity.
    index = 99;
    assert_true(served_again_find_token(a, token, 3, 5, 150, 1000, &index));
    assert_int_equal(index, 2);
    assert_false(served_again_find_token(a, token, 4, 5, 150, 0, &index));
    assert_false(served_again_find_token(a, token, 3, 6, 150, 0, &index));
    assert_false(served_again_find_token(a, token, 3, 5, 1101, 1000, &index));
    assert_false(served_again_find_token(a, 0, 3, 5, 150, 0, &index));
    assert_false(served_again_find_token(a, token + 1, 3, 5, 150, 0, &index));
    // The same slot under another identity: only the newest answers.
    id2.si_hash = id.si_hash;
    uint64_t token2 = served_again_put(a, &id2, 3, 5, &hit, 4);
    assert_int_not_equal(token2, token);
    assert_false(
        served_again_find(a, &id, 3, 5, 150, 0, &index, &epoch, &found));
    assert_false(served_again_find_token(a, token, 3, 5, 150, 0, &index));
    assert_true(
        served_again_find(a, &id2, 3, 5, 150, 0, &index, &epoch, &found));
    assert_int_equal(index, 4);
    assert_int_equal(found, token2);
    // The same identity put again is a new entry: the old token is gone.
    uint64_t token3 = served_again_put(a, &id2, 3, 6, &hit, 1);
    assert_false(served_again_find_token(a, token2, 3, 5, 150, 0, &index));
    assert_true(served_again_find_token(a, token3, 3, 6, 150, 0, &index));
    assert_int_equal(index, 1);
    served_again_free(a);
    permit_memo_free(m);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_identity_is_report),
        cmocka_unit_test(test_read_field_kept),
        cmocka_unit_test(test_not_kept),
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
