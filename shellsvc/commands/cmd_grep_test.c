/* SPDX-License-Identifier: Apache-2.0 */
/* Placeholder until the command tests land. */
#include "sh_test_harness.h"

static void
test_placeholder(void **state)
{
    th t = {0};
    assert_int_equal(th_run(&t, "true", 0), 0);
    th_reset(&t);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_placeholder),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
