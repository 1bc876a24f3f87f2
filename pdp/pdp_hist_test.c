/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_hist (segments, ageing out, field paths) and
 * pdp_value_copy. */
#include "pdp_test_util.h"

#include "pdp_hist.h"

/* An event at ts whose fields are {input: {n: i}}, built in h's arena. */
static void
append(pdp_hist *h, int64_t ts, int64_t i)
{
    box_arena *a = pdp_hist_arena(h);
    assert_non_null(a);
    pdp_value *act = NULL, *in = pdp_value_record_new(a),
              *f = pdp_value_record_new(a);
    assert_int_equal(pdp_value_entity(a, "A::Action", 9, "x", 1, &act),
                     BOX_OK);
    assert_int_equal(pdp_value_record_put(a, in, "n", 1, pdp_value_long(a, i)),
                     BOX_OK);
    assert_int_equal(pdp_value_record_put(a, f, "input", 5, in), BOX_OK);
    pdp_event e = {.ev_action = act, .ev_kind = "request", .ev_ts = ts,
                   .ev_fields = f};
    assert_int_equal(pdp_hist_append(h, &e), BOX_OK);
}

static int64_t
n_at(const pdp_hist *h, size_t i)
{
    const pdp_value *v =
        pdp_hist_field(pdp_hist_at(h, i)->ev_fields, "input.n", 7);
    assert_non_null(v);
    return pdp_value_as_long(v);
}

static void
test_segments_and_ageing(void **state)
{
    (void)state;
    pdp_hist *h = pdp_hist_new();
    assert_non_null(h);
    // 10,000 events, one a second: three segments of 4,096 (the last part
    // full).
    for (int64_t i = 0; i < 10000; i++)
        append(h, i, i);
    assert_int_equal(pdp_hist_len(h), 10000);
    assert_int_equal(n_at(h, 0), 0);
    assert_int_equal(n_at(h, 4095), 4095);
    assert_int_equal(n_at(h, 4096), 4096);
    assert_int_equal(n_at(h, 9999), 9999);
    assert_string_equal(pdp_hist_at(h, 5000)->ev_kind, "request");
    // Nothing goes while a segment still holds an event at or after ts.
    assert_int_equal(pdp_hist_drop_before(h, 4095), 0);
    assert_int_equal(pdp_hist_drop_before(h, 4096), 4096);
    assert_int_equal(pdp_hist_len(h), 10000 - 4096);
    assert_int_equal(n_at(h, 0), 4096);
    // The newest segment is always kept.
    assert_int_equal(pdp_hist_drop_before(h, INT64_MAX), 4096);
    assert_int_equal(pdp_hist_len(h), 10000 - 8192);
    assert_int_equal(n_at(h, 0), 8192);
    append(h, 20000, 20000);
    assert_int_equal(n_at(h, pdp_hist_len(h) - 1), 20000);
    pdp_hist_free(h);
}

/* A value index: found directly, walked newest first, built from the
 * events already kept, trimmed when they age out. */
static void
test_value_index(void **state)
{
    box_arena *a = *state;
    pdp_hist *h = pdp_hist_new();
    const pdp_value *act = tv(a, "A::Action::\"x\"");
    for (int64_t i = 0; i < 10000; i++)
        append(h, i, i % 7);
    assert_int_equal(pdp_hist_index(h, act, "request", 7, "input.n", 7),
                     BOX_OK);
    pdp_hist_cursor cur;
    size_t at = 0;
    // Not indexed: -1, the caller walks the chain.
    assert_int_equal(pdp_hist_newest_value(h, act, "request", 7, "input.m", 7,
                                           tv(a, "3"), 9999, &cur),
                     -1);
    assert_int_equal(pdp_hist_newest_value(h, act, "request", 7, "input.n", 7,
                                           tv(a, "3"), 9999, &cur),
                     1);
    at = pdp_hist_cursor_at(h, &cur);
    assert_int_equal(at, 9999); // 9999 % 7 == 3
    assert_true(pdp_hist_cursor_prev(h, &cur));
    assert_int_equal(pdp_hist_cursor_at(h, &cur), 9992);
    assert_int_equal(pdp_hist_newest_value(h, act, "request", 7, "input.n", 7,
                                           tv(a, "3"), 9990, &cur),
                     1);
    assert_int_equal(pdp_hist_cursor_at(h, &cur), 9985);
    assert_int_equal(pdp_hist_newest_value(h, act, "request", 7, "input.n", 7,
                                           tv(a, "8"), 9999, &cur),
                     0);
    // New events go in as they come; aged-out ones leave.
    append(h, 10000, 3);
    assert_int_equal(pdp_hist_newest_value(h, act, "request", 7, "input.n", 7,
                                           tv(a, "3"), 10000, &cur),
                     1);
    assert_int_equal(pdp_hist_cursor_at(h, &cur), 10000);
    assert_int_equal(pdp_hist_drop_before(h, 8192), 8192);
    assert_int_equal(pdp_hist_newest_value(h, act, "request", 7, "input.n", 7,
                                           tv(a, "3"), pdp_hist_len(h) - 1,
                                           &cur),
                     1);
    size_t n = 1;
    while (pdp_hist_cursor_prev(h, &cur))
        n++;
    // Values 3 among events 8192..10000: 8193, 8200, …, 9999, and 10000.
    assert_int_equal(n, (9999 - 8193) / 7 + 1 + 1);
    pdp_hist_free(h);
}

static void
test_refusals(void **state)
{
    (void)state;
    pdp_hist *h = pdp_hist_new();
    append(h, 10, 1);
    box_arena *a = pdp_hist_arena(h);
    pdp_value *act = NULL;
    assert_int_equal(pdp_value_entity(a, "A::Action", 9, "x", 1, &act),
                     BOX_OK);
    pdp_event e = {.ev_action = act, .ev_kind = "request", .ev_ts = 9,
                   .ev_fields = pdp_value_record_new(a)};
    assert_int_equal(pdp_hist_append(h, &e), BOX_EINVAL); // time went back
    e.ev_ts = 11;
    e.ev_fields = act; // not a record
    assert_int_equal(pdp_hist_append(h, &e), BOX_EINVAL);
    e.ev_fields = pdp_value_record_new(a);
    e.ev_kind = NULL;
    assert_int_equal(pdp_hist_append(h, &e), BOX_EINVAL);
    assert_int_equal(pdp_hist_len(h), 1);
    assert_null(pdp_hist_field(pdp_hist_at(h, 0)->ev_fields, "input.m", 7));
    assert_null(pdp_hist_field(pdp_hist_at(h, 0)->ev_fields, "input.n.x",
                               9));
    pdp_hist_free(h);
}

static void
test_value_copy(void **state)
{
    box_arena *src = *state, *dst = box_arena_new(1u << 20);
    const char *text = "{a: [1, \"two\", B::\"c\"], \"d e\": {f: true}, "
                       "g: -3}";
    const pdp_value *v = tv(src, text), *c = NULL;
    assert_int_equal(pdp_value_copy(dst, v, &c), BOX_OK);
    box_arena_reset(src); // the copy owes nothing to the source arena
    const pdp_value *again = tv(src, text);
    assert_true(pdp_value_equal(c, again));
    box_buf b;
    box_buf_init(&b, 4096);
    assert_int_equal(pdp_value_format(c, &b), BOX_OK);
    assert_non_null(strstr(b.b_data, "\"two\""));
    box_buf_reset(&b);
    box_arena_free(dst);
}

/* The canonical encoding reads back to an equal value; every shorter
 * prefix and a flipped tag are refused, never read past. */
static void
test_value_decode(void **state)
{
    box_arena *a = *state;
    static const char *const texts[] = {
        "true", "-9223372036854775808", "\"caf\\u{e9}\"", "A::B::\"x\"",
        "[1, 1, \"a\", [true]]", "{a: {b: [2, 3]}, \"c d\": \"\"}",
        "decimal(\"-1.2345\")", "ip(\"10.0.0.0/8\")",
        "ip(\"2001:db8::1\")", "datetime(\"2024-10-15T11:35:00Z\")",
        "duration(\"1h30m\")", "[]", "{}",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        const pdp_value *v = tv(a, texts[i]), *back = NULL;
        box_buf b;
        box_buf_init(&b, 1u << 20);
        assert_int_equal(pdp_value_encode(v, &b), BOX_OK);
        size_t used = 0;
        assert_int_equal(pdp_value_decode(a, b.b_data, b.b_len, &used, &back),
                         BOX_OK);
        assert_int_equal(used, b.b_len);
        if (!pdp_value_equal(v, back))
            fail_msg("%s does not read back", texts[i]);
        for (size_t n = 0; n < b.b_len; n++)
            if (pdp_value_decode(a, b.b_data, n, &used, &back) != BOX_EINVAL)
                fail_msg("%s: a %zu-byte prefix decoded", texts[i], n);
        b.b_data[0] = 'Z';
        assert_int_equal(pdp_value_decode(a, b.b_data, b.b_len, &used, &back),
                         BOX_EINVAL);
        box_buf_reset(&b);
    }
    // Invalid UTF-8 in a string is refused by the builder.
    static const unsigned char bad[] = {'S', 0, 0, 0, 1, 0xff};
    size_t used;
    const pdp_value *v;
    assert_int_equal(pdp_value_decode(a, bad, sizeof bad, &used, &v),
                     BOX_EINVAL);
}

static int
setup(void **state)
{
    *state = box_arena_new(1u << 20);
    return *state == NULL;
}

static int
teardown(void **state)
{
    box_arena_free(*state);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_segments_and_ageing),
        cmocka_unit_test(test_value_index),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_value_copy),
        cmocka_unit_test(test_value_decode),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
