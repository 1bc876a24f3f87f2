/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for box_alloc's failure injection: which call fails, counting,
 * and that off means off. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "box_alloc.h"

/* One call of each allocating entry point; returns how many got memory. */
static int
one_of_each(void)
{
    void *p[6];
    p[0] = box_alloc(8);
    p[1] = box_calloc(2, 4);
    p[2] = box_strdup("abc");
    p[3] = box_strndup("abcdef", 2);
    p[4] = box_asprintf("%d", 42);
    p[5] = box_alloc(0);
    int got = 0;
    for (size_t i = 0; i < 6; i++) {
        got += p[i] != NULL;
        box_free(p[i]);
    }
    return got;
}

static void
test_nth_call_fails_once(void **state)
{
    (void)state;
    for (unsigned long n = 1; n <= 6; n++) {
        box_alloc_fail_after(n);
        void *p[6];
        p[0] = box_alloc(8);
        p[1] = box_calloc(2, 4);
        p[2] = box_strdup("abc");
        p[3] = box_strndup("abcdef", 2);
        p[4] = box_asprintf("%d", 42);
        p[5] = box_alloc(0);
        assert_int_equal(box_alloc_calls(), 6);
        box_alloc_fail_off();
        for (size_t i = 0; i < 6; i++) {
            if ((p[i] == NULL) != (i + 1 == n))
                fail_msg("fail_after(%lu): call %zu %s", n, i + 1,
                         p[i] ? "succeeded" : "failed");
            box_free(p[i]);
        }
    }
}

static void
test_realloc_failure_keeps_block(void **state)
{
    (void)state;
    char *p = box_strdup("kept");
    assert_non_null(p);
    box_alloc_fail_after(1);
    assert_null(box_realloc(p, 1000));
    box_alloc_fail_off();
    assert_string_equal(p, "kept");
    char *q = box_realloc(p, 1000);
    assert_non_null(q);
    assert_string_equal(q, "kept");
    box_free(q);
}

static void
test_zero_only_counts_and_off_stops(void **state)
{
    (void)state;
    box_alloc_fail_after(0);
    assert_int_equal(one_of_each(), 6);
    assert_int_equal(box_alloc_calls(), 6);
    box_alloc_fail_off();
    assert_int_equal(one_of_each(), 6);
    assert_int_equal(box_alloc_calls(), 6); // no longer counting
    // Re-arming restarts the count from zero.
    box_alloc_fail_after(100);
    assert_int_equal(box_alloc_calls(), 0);
    assert_int_equal(one_of_each(), 6);
    box_alloc_fail_off();
}

static void
test_after_failure_calls_succeed(void **state)
{
    (void)state;
    box_alloc_fail_after(3);
    assert_int_equal(one_of_each(), 5);
    assert_int_equal(one_of_each(), 6);
    assert_int_equal(box_alloc_calls(), 12);
    box_alloc_fail_off();
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_nth_call_fails_once),
        cmocka_unit_test(test_realloc_failure_keeps_block),
        cmocka_unit_test(test_zero_only_counts_and_off_stops),
        cmocka_unit_test(test_after_failure_calls_succeed),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
