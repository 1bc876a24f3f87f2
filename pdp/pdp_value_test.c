/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_value: builders, caps, equality, canonical encoding. */
#include "pdp_test_util.h"

#include "pdp_value.h"

static box_arena *A;

static int
setup(void **state)
{
    A = box_arena_new(64u << 20);
    return A == NULL;
}

static int
teardown(void **state)
{
    box_arena_free(A);
    return 0;
}

static char *
enc(const pdp_value *v, size_t *len)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    assert_int_equal(pdp_value_encode(v, &b), BOX_OK);
    *len = b.b_len;
    return box_buf_take(&b);
}

static void
assert_same_encoding(const pdp_value *x, const pdp_value *y, bool same)
{
    size_t lx, ly;
    char *ex = enc(x, &lx), *ey = enc(y, &ly);
    bool eq = lx == ly && memcmp(ex, ey, lx) == 0;
    assert_true(eq == same);
    box_free(ex);
    box_free(ey);
}

static void
test_builders(void **state)
{
    pdp_value *s, *e, *rec, *set;
    assert_int_equal(pdp_value_string(A, "h\0i", 3, &s), BOX_OK);
    size_t n;
    const char *p = pdp_value_str(s, &n);
    assert_int_equal(n, 3);
    assert_memory_equal(p, "h\0i", 3);
    assert_int_equal(pdp_value_string(A, "\xff", 1, &s), BOX_EINVAL);
    assert_int_equal(pdp_value_string(A, "\xed\xa0\x80", 3, &s), BOX_EINVAL);
    assert_int_equal(pdp_value_entity(A, "Box::Action", 11, "fs:read", 7, &e),
                     BOX_OK);
    assert_int_equal(pdp_value_kind_of(e), PDP_VAL_ENTITY);
    assert_string_equal(pdp_value_entity_type(e, &n), "Box::Action");
    assert_string_equal(pdp_value_entity_id(e, &n), "fs:read");
    assert_int_equal(pdp_value_entity(A, "Box:Action", 10, "x", 1, &e),
                     BOX_EINVAL);
    assert_int_equal(pdp_value_entity(A, "Box::", 5, "x", 1, &e), BOX_EINVAL);
    assert_int_equal(pdp_value_entity(A, "9a", 2, "x", 1, &e), BOX_EINVAL);
    rec = pdp_value_record_new(A);
    assert_int_equal(pdp_value_record_put(A, rec, "b", 1, pdp_value_long(A, 2)),
                     BOX_OK);
    assert_int_equal(pdp_value_record_put(A, rec, "a", 1, pdp_value_bool(A, 1)),
                     BOX_OK);
    assert_int_equal(pdp_value_record_put(A, rec, "a", 1, pdp_value_bool(A, 1)),
                     BOX_EINVAL);
    assert_int_equal(pdp_value_count(rec), 2);
    assert_string_equal(pdp_value_key(rec, 0, &n), "b");
    assert_int_equal(pdp_value_as_long(pdp_value_get(rec, "b", 1)), 2);
    assert_null(pdp_value_get(rec, "c", 1));
    set = pdp_value_set_new(A);
    assert_int_equal(pdp_value_set_add(A, set, rec), BOX_OK);
    assert_int_equal(pdp_value_count(set), 1);
    assert_ptr_equal(pdp_value_item(set, 0), rec);
    box_buf b;
    box_buf_init(&b, 1000);
    assert_int_equal(pdp_value_format(set, &b), BOX_OK);
    assert_string_equal(b.b_data, "[{b: 2, a: true}]");
    box_buf_reset(&b);
    assert_int_equal(pdp_value_format(tv(A, "{\"a b\": Box::X::\"q\\\"\"}"), &b),
                     BOX_OK);
    assert_string_equal(b.b_data, "{\"a b\": Box::X::\"q\\\"\"}");
    box_buf_reset(&b);
}

static void
test_caps(void **state)
{
    pdp_value *v = pdp_value_long(A, 1);
    for (int i = 1; i < PDP_VALUE_MAX_DEPTH; i++) {
        pdp_value *s = pdp_value_set_new(A);
        assert_int_equal(pdp_value_set_add(A, s, v), BOX_OK);
        v = s;
    }
    pdp_value *s = pdp_value_set_new(A);
    assert_int_equal(pdp_value_set_add(A, s, v), BOX_ETOOBIG);
    pdp_value *r = pdp_value_record_new(A);
    for (int i = 0; i < PDP_VALUE_MAX_FIELDS; i++) {
        char k[16];
        int n = snprintf(k, sizeof(k), "k%d", i);
        assert_int_equal(pdp_value_record_put(A, r, k, (size_t)n,
                                              pdp_value_bool(A, 0)),
                         BOX_OK);
    }
    assert_int_equal(pdp_value_record_put(A, r, "x", 1, pdp_value_bool(A, 0)),
                     BOX_ETOOBIG);
    /* An arena refuses past its cap. */
    box_arena *small = box_arena_new(10000);
    assert_non_null(box_arena_alloc(small, 5000));
    assert_null(box_arena_alloc(small, 9000));
    box_arena_reset(small);
    assert_non_null(box_arena_alloc(small, 8000));
    box_arena_free(small);
}

static void
test_equality(void **state)
{
    assert_true(pdp_value_equal(tv(A, "[1, 1, 2]"), tv(A, "[2, 1]")));
    assert_false(pdp_value_equal(tv(A, "[1, 3]"), tv(A, "[2, 1]")));
    assert_false(pdp_value_equal(tv(A, "5"), tv(A, "\"5\"")));
    assert_false(pdp_value_equal(tv(A, "A::\"x\""), tv(A, "B::\"x\"")));
    assert_true(pdp_value_equal(tv(A, "A::B::\"x\""), tv(A, "A::B::\"x\"")));
    assert_true(pdp_value_equal(tv(A, "{a: 1, b: [true]}"),
                                tv(A, "{b: [true], a: 1}")));
    assert_false(pdp_value_equal(tv(A, "{a: 1}"), tv(A, "{a: 1, b: 2}")));
    assert_false(pdp_value_equal(tv(A, "{a: 1}"), tv(A, "{b: 1}")));
    assert_true(pdp_value_equal(tv(A, "[]"), tv(A, "[]")));
}

static void
test_encoding(void **state)
{
    /* Order of record keys and of set elements, and duplicates, do not
     * change the encoding; a different value does. */
    assert_same_encoding(tv(A, "{a: 1, b: \"x\"}"), tv(A, "{b: \"x\", a: 1}"),
                         true);
    assert_same_encoding(tv(A, "[3, 1, 2, 1]"), tv(A, "[1, 2, 3]"), true);
    assert_same_encoding(tv(A, "[[1, 2], [2, 1]]"), tv(A, "[[1, 2]]"), true);
    assert_same_encoding(tv(A, "[1, 2]"), tv(A, "[1, 2, 4]"), false);
    assert_same_encoding(tv(A, "\"ab\""), tv(A, "[\"a\", \"b\"]"), false);
    assert_same_encoding(tv(A, "1"), tv(A, "true"), false);
    assert_same_encoding(tv(A, "A::\"b::c\""), tv(A, "A::b::\"c\""), false);
    assert_same_encoding(tv(A, "{a: {b: 1}}"), tv(A, "{a: {b: 2}}"), false);
    size_t n;
    char *e = enc(tv(A, "{b: -1, a: true}"), &n);
    const char want[] = "{\0\0\0\x02"
                        "\0\0\0\x01" "a" "B\x01"
                        "\0\0\0\x01" "b" "L\xff\xff\xff\xff\xff\xff\xff\xff";
    assert_int_equal(n, sizeof(want) - 1);
    assert_memory_equal(e, want, n);
    box_free(e);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builders),
        cmocka_unit_test(test_caps),
        cmocka_unit_test(test_equality),
        cmocka_unit_test(test_encoding),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
