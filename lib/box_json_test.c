/* SPDX-License-Identifier: Apache-2.0 */
/* box_json: escaping of quotes, controls, invalid UTF-8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>

#include "box_alloc.h"
#include "box_json.h"

static void
check(const char *in, size_t n, const char *want)
{
    box_buf b;
    box_buf_init(&b, 4096);
    assert_int_equal(box_json_str(&b, in, n), BOX_OK);
    assert_string_equal(b.b_data, want);
    box_buf_reset(&b);
}

static void
test_escapes(void **state)
{
    (void)state;
    check("plain", 5, "\"plain\"");
    check("a\"b\\c", 5, "\"a\\\"b\\\\c\"");
    check("\n\t\x01\x7f", 4, "\"\\u000a\\u0009\\u0001\\u007f\"");
    check("caf\xc3\xa9", 5, "\"caf\xc3\xa9\"");
    check("\xff" "x", 2, "\"\\ufffdx\"");
    check("\xed\xa0\x80", 3, "\"\\ufffd\\ufffd\\ufffd\""); // surrogate
    check("\xc0\xaf", 2, "\"\\ufffd\\ufffd\"");             // overlong
    check("a\0b", 3, "\"a\\u0000b\"");
    box_buf b;
    box_buf_init(&b, 64);
    assert_int_equal(box_json_cstr(&b, NULL), BOX_OK);
    assert_string_equal(b.b_data, "\"\"");
    box_buf_reset(&b);
}

static void
test_cap(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 4);
    assert_int_equal(box_json_cstr(&b, "abcdef"), BOX_ETOOBIG);
    box_buf_reset(&b);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_escapes),
        cmocka_unit_test(test_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
