/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for sh_ansic: $'…' decoding and ${x@Q} quoting, byte for byte
 * (bash 5.2 gave each expected value). */
#include "sh_test_util.h"

#include "box_alloc.h"
#include "sh_ansic.h"

static void
decodes(const char *in, const char *want, size_t wantlen)
{
    size_t n = strlen(in);
    char *out = box_alloc(n + 1);
    assert_non_null(out);
    size_t got = sh_ansic_decode(in, n, out);
    if (got != wantlen || memcmp(out, want, wantlen) != 0)
        fail_msg("decode %s: got %zu bytes, want %zu", in, got, wantlen);
    assert_int_equal(out[got], '\0');
    box_free(out);
}

static void
test_decode(void **state)
{
    (void)state;
    decodes("a\\tb", "a\tb", 3);
    decodes("\\a\\b\\e\\E\\f\\n\\r\\t\\v", "\a\b\033\033\f\n\r\t\v", 9);
    decodes("\\\\\\'\\\"\\?", "\\'\"?", 4);
    decodes("\\101\\0102\\7", "A\0102\a", 4);
    decodes("\\x41\\x4a\\x4g", "AJ\004g", 4);
    decodes("\\xg", "\\xg", 3);     // no digits: kept as written
    decodes("\\z\\q", "\\z\\q", 4); // unknown escapes are kept
    decodes("\\u00e9\\u20ac", "\xc3\xa9\xe2\x82\xac", 5);
    decodes("\\U0001F600", "\xf0\x9f\x98\x80", 4);
    decodes("\\u41x", "Ax", 2);
    decodes("\\cA\\ca\\c[\\c?", "\001\001\033\177", 4);
    decodes("ab\\0cd", "ab", 2); // a NUL ends the string
    decodes("x\\x00y", "x", 1);
    decodes("end\\", "end\\", 4); // a lone trailing backslash
    decodes("", "", 0);
}

static void
quotes(const char *in, const char *want)
{
    char *q = sh_ansic_quote(in);
    assert_non_null(q);
    assert_string_equal(q, want);
    box_free(q);
}

static void
test_quote(void **state)
{
    (void)state;
    quotes("", "''");
    quotes("abc", "'abc'");
    quotes("it's", "'it'\\''s'");
    quotes("a b $x `y`", "'a b $x `y`'");
    quotes("\xc3\xa9", "'\xc3\xa9'");
    quotes("a\nb\tc\033\001\\'", "$'a\\nb\\tc\\E\\001\\\\\\''");
    quotes("\177", "$'\\177'");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decode),
        cmocka_unit_test(test_quote),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
