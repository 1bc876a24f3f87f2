/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_message: the §6.6 text byte for byte, escaping, caps. */
#include "pdp_test_util.h"

#include "pdp_message.h"

static pdp_str
S(const char *s)
{
    pdp_str r = {s, s ? strlen(s) : 0};
    return r;
}

static pdp_msg_rule
R(uint64_t tok, const char *pid, const char *id, const char *desc)
{
    pdp_msg_rule m = {tok, S(pid), S(id), S(desc)};
    return m;
}

static char *
fmt(pdp_verdict v, pdp_reason r, const char *res, const pdp_msg_rule *rules,
    size_t n)
{
    box_buf b;
    box_buf_init(&b, PDP_MESSAGE_MAX);
    assert_int_equal(pdp_message_format(v, r, res, res ? strlen(res) : 0, rules,
                                        n, &b),
                     BOX_OK);
    assert_true(b.b_len <= PDP_MESSAGE_MAX);
    return box_buf_take(&b);
}

static void
check(char *got, const char *want)
{
    if (strcmp(got, want) != 0)
        fail_msg("\n  got:  %s\n  want: %s", got, want);
    box_free(got);
}

static void
test_shapes(void **state)
{
    check(fmt(PDP_ALLOW, PDP_REASON_PERMITTED, "echo", NULL, 0),
          "policy permitted this operation on 'echo'.");
    check(fmt(PDP_ALLOW, PDP_REASON_PERMITTED, " \t", NULL, 0),
          "policy permitted this operation.");
    check(fmt(PDP_ALLOW, PDP_REASON_PERMITTED, NULL, NULL, 0),
          "policy permitted this operation.");
    check(fmt(PDP_DENY, PDP_REASON_NOMATCH, "echo", NULL, 0),
          "policy denied this operation on 'echo' [default-deny]: No permit "
          "policy matched this request.");
    check(fmt(PDP_DENY, PDP_REASON_INTERNAL_FAULT, "echo", NULL, 0),
          "policy denied this operation on 'echo' because the request could "
          "not be evaluated.");
    check(fmt(PDP_DENY, PDP_REASON_POLICY_PENDING, "", NULL, 0),
          "policy denied this operation [policy-pending]: The complete policy "
          "bundle is not installed.");
    pdp_msg_rule one = R(0, "policy_0", "no-secrets", "Secrets stay unread.");
    check(fmt(PDP_DENY, PDP_REASON_FORBIDDEN, "~/notes.txt", &one, 1),
          "policy denied this operation on '~/notes.txt' [policy: no-secrets]: "
          "Secrets stay unread.");
    check(fmt(PDP_DENY, PDP_REASON_FORBIDDEN, "echo", NULL, 0),
          "policy denied this operation on 'echo' [policy: <default-deny>].");
}

static void
test_forbid_list(void **state)
{
    /* Sorted by token whatever the input order; blank ids fall back to the
     * positional id, blank descriptions are left out; "." only when the
     * text does not already end in . ! or ?. */
    pdp_msg_rule rs[] = {
        R(4, "policy_4", "later", "Ends with bang!"),
        R(1, "policy_1", " \t", " \n"),
        R(2, "policy_2", NULL, "Why?"),
        R(3, "policy_3", "x", NULL),
    };
    check(fmt(PDP_DENY, PDP_REASON_FORBIDDEN, "echo", rs, 4),
          "policy denied this operation on 'echo' [policy: policy_1]; [policy: "
          "policy_2]: Why?; [policy: x]; [policy: later]: Ends with bang!");
    check(fmt(PDP_DENY, PDP_REASON_FORBIDDEN, "echo", rs + 1, 1),
          "policy denied this operation on 'echo' [policy: policy_1].");
    check(fmt(PDP_DENY, PDP_REASON_FORBIDDEN, "echo", rs + 3, 1),
          "policy denied this operation on 'echo' [policy: x].");
    /* Equal tokens fall back to the rule id. */
    pdp_msg_rule tie[] = {R(0, "policy_9", "b", NULL), R(0, "policy_1", "a", NULL)};
    check(fmt(PDP_DENY, PDP_REASON_FORBIDDEN, "", tie, 2),
          "policy denied this operation [policy: a]; [policy: b].");
}

static void
test_escaping(void **state)
{
    check(fmt(PDP_ALLOW, PDP_REASON_PERMITTED,
              "it's \"q\"\n\t\\\x1b\xe2\x80\xae\xc3\xa9\xc2\xa0\x7f", NULL, 0),
          "policy permitted this operation on 'it\\'s \\\"q\\\"\\n\\t\\\\"
          "\\u{1b}\\u{202e}\xc3\xa9\\u{a0}\\u{7f}'.");
    pdp_msg_rule r = R(0, "policy_0", "a\nb\\c\xe2\x80\xae'\"",
                       "d\te\x1b\xd8\x9c\xe2\x81\xa6\xc3\xa9\xc2\xa0");
    check(fmt(PDP_DENY, PDP_REASON_FORBIDDEN, "x", &r, 1),
          "policy denied this operation on 'x' [policy: a\\nb\\\\c\\u{202e}'\"]: "
          "d\\te\\u{1b}\\u{61c}\\u{2066}\xc3\xa9\xc2\xa0.");
}

static void
test_caps(void **state)
{
    box_buf in;
    box_buf_init(&in, 1u << 20);
    /* 1024 escaped bytes fit; one more character is cut with "...". */
    for (int i = 0; i < 1024; i++)
        assert_int_equal(box_buf_putc(&in, 'a'), BOX_OK);
    char *m = fmt(PDP_ALLOW, PDP_REASON_PERMITTED, in.b_data, NULL, 0);
    assert_int_equal(strlen(m), strlen("policy permitted this operation on ''.") +
                                    1024);
    box_free(m);
    assert_int_equal(box_buf_putc(&in, 'b'), BOX_OK);
    m = fmt(PDP_ALLOW, PDP_REASON_PERMITTED, in.b_data, NULL, 0);
    assert_non_null(strstr(m, "aaaa...'."));
    assert_null(strchr(m, 'b'));
    box_free(m);
    /* Multi-byte and escaped characters are never split. */
    in.b_len = 0;
    for (int i = 0; i < 600; i++)
        assert_int_equal(box_buf_puts(&in, "\xc3\xa9"), BOX_OK);
    m = fmt(PDP_ALLOW, PDP_REASON_PERMITTED, in.b_data, NULL, 0);
    assert_int_equal(strlen(m), strlen("policy permitted this operation on "
                                       "'...'.") + 1024);
    box_free(m);
    in.b_len = 0;
    for (int i = 0; i < 300; i++)
        assert_int_equal(box_buf_puts(&in, "x\x1b"), BOX_OK); // 1 + 6 bytes
    m = fmt(PDP_ALLOW, PDP_REASON_PERMITTED, in.b_data, NULL, 0);
    const char *q = strstr(m, "...'");
    assert_non_null(q);
    assert_int_equal(q[-1], 'x'); // 146 pairs (1022 bytes) + x; no room for \u{1b}
    box_free(m);
    /* The whole message: at most 4096 bytes, cut at a character boundary. */
    in.b_len = 0;
    for (int i = 0; i < 3000; i++)
        assert_int_equal(box_buf_puts(&in, "\xc3\xa9"), BOX_OK);
    pdp_msg_rule r = {0, S("policy_0"), S("id"), {in.b_data, in.b_len}};
    m = fmt(PDP_DENY, PDP_REASON_FORBIDDEN, "echo", &r, 1);
    size_t n = strlen(m);
    assert_true(n <= PDP_MESSAGE_MAX && n >= PDP_MESSAGE_MAX - 4);
    assert_string_equal(m + n - 3, "...");
    assert_int_equal((unsigned char)m[n - 4], 0xa9); // ends on a whole é
    box_free(m);
    box_buf_reset(&in);
}

static void
test_reason_words(void **state)
{
    assert_string_equal(pdp_reason_words(PDP_REASON_FORBIDDEN),
                        "a forbid rule matched");
    assert_string_equal(pdp_reason_words(PDP_REASON_NOMATCH),
                        "no permit matched");
    assert_string_equal(pdp_reason_words(PDP_REASON_POLICY_PENDING),
                        "the complete policy bundle is not installed");
    assert_string_equal(pdp_reason_words(PDP_REASON_INTERNAL_FAULT),
                        "the request could not be evaluated, so it was refused");
    assert_string_equal(pdp_reason_name(PDP_REASON_INTERNAL_FAULT),
                        "InternalFault");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_forbid_list),
        cmocka_unit_test(test_escaping),
        cmocka_unit_test(test_caps),
        cmocka_unit_test(test_reason_words),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
