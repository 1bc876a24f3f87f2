/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_value: builders, caps, equality, canonical encoding, and
 * the extension types' values and literal formats (pdp_ext_lit.c). */
#include "pdp_test_util.h"

#include "pdp_ext.h"
#include "pdp_int.h"
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

/* pdp_bytes_eq agrees with memcmp for every length up to 40, whichever
 * byte differs (first, last, middle, the seams of its 8-, 4- and 2-byte
 * loads). */
static void
test_bytes_eq(void **state)
{
    (void)state;
    char a[48], b[48];
    for (size_t n = 0; n <= 40; n++) {
        for (size_t i = 0; i < n; i++)
            a[i] = b[i] = (char)('a' + (i * 7) % 26);
        assert_true(pdp_bytes_eq(a, b, n));
        for (size_t d = 0; d < n; d++) {
            b[d] ^= 0x20;
            assert_false(pdp_bytes_eq(a, b, n));
            assert_int_equal(pdp_bytes_eq(a, b, n), memcmp(a, b, n) == 0);
            b[d] ^= 0x20;
        }
        b[n] = 'x'; // past the end: never read as a difference
        a[n] = 'y';
        assert_true(pdp_bytes_eq(a, b, n));
    }
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


static void
check_format(const pdp_value *v, const char *want)
{
    box_buf b;
    box_buf_init(&b, 1000);
    assert_int_equal(pdp_value_format(v, &b), BOX_OK);
    if (strcmp(b.b_data, want) != 0)
        fail_msg("format: got %s, want %s", b.b_data, want);
    /* The text is the constructor call that makes an equal value (the
     * fallback for a datetime outside 0000..9999 is a method call, which
     * the parser does not fold). */
    if (strstr(want, ".offset(") == NULL)
        assert_true(pdp_value_equal(tv(A, b.b_data), v));
    box_buf_reset(&b);
}

static void
test_extension_values(void **state)
{
    pdp_ipaddr ip;
    const pdp_value *d = pdp_value_decimal(A, -10500);
    assert_int_equal(pdp_value_kind_of(d), PDP_VAL_DECIMAL);
    assert_string_equal(pdp_value_kind_name(PDP_VAL_DECIMAL), "decimal");
    assert_string_equal(pdp_value_kind_name(PDP_VAL_IPADDR), "ipaddr");
    assert_string_equal(pdp_value_kind_name(PDP_VAL_DATETIME), "datetime");
    assert_string_equal(pdp_value_kind_name(PDP_VAL_DURATION), "duration");
    assert_int_equal(pdp_value_as_decimal(d), -10500);
    assert_int_equal(pdp_value_as_long(d), 0);
    assert_int_equal(pdp_value_as_datetime(pdp_value_datetime(A, 7)), 7);
    assert_int_equal(pdp_value_as_duration(pdp_value_duration(A, -7)), -7);
    assert_int_equal(pdp_value_as_duration(d), 0);
    assert_false(pdp_value_as_ipaddr(d, &ip));
    assert_true(pdp_value_as_ipaddr(tv(A, "ip(\"10.1.2.3/8\")"), &ip));
    assert_false(ip.ip_v6);
    assert_int_equal(ip.ip_prefix, 8);
    assert_memory_equal(ip.ip_addr, "\x0a\x01\x02\x03", 4);

    /* Cedar's text for each kind (decimal always with four digits). */
    check_format(d, "decimal(\"-1.0500\")");
    check_format(tv(A, "decimal(\"1.2\")"), "decimal(\"1.2000\")");
    check_format(tv(A, "decimal(\"-0.0123\")"), "decimal(\"-0.0123\")");
    check_format(tv(A, "decimal(\"-922337203685477.5808\")"),
                 "decimal(\"-922337203685477.5808\")");
    check_format(tv(A, "ip(\"192.168.0.1\")"), "ip(\"192.168.0.1/32\")");
    check_format(tv(A, "ip(\"10.0.0.0/24\")"), "ip(\"10.0.0.0/24\")");
    check_format(tv(A, "ip(\"::1\")"), "ip(\"::1/128\")");
    check_format(tv(A, "ip(\"::\")"), "ip(\"::/128\")");
    check_format(tv(A, "ip(\"FF00::/8\")"), "ip(\"ff00::/8\")");
    check_format(tv(A, "ip(\"1:0:0:2:0:0:0:3/64\")"), "ip(\"1:0:0:2::3/64\")");
    check_format(tv(A, "ip(\"1:0:2:3:4:5:6:7\")"), "ip(\"1:0:2:3:4:5:6:7/128\")");
    check_format(tv(A, "ip(\"::ffff:ff00:1\")"), "ip(\"::ffff:ff00:1/128\")");
    check_format(tv(A, "datetime(\"2024-10-15\")"),
                 "datetime(\"2024-10-15T00:00:00Z\")");
    check_format(tv(A, "datetime(\"2024-10-15T11:35:00.042+0130\")"),
                 "datetime(\"2024-10-15T10:05:00.042Z\")");
    check_format(tv(A, "datetime(\"1969-12-31T23:59:59.999Z\")"),
                 "datetime(\"1969-12-31T23:59:59.999Z\")");
    check_format(tv(A, "datetime(\"0000-01-01\")"),
                 "datetime(\"0000-01-01T00:00:00Z\")");
    check_format(pdp_value_datetime(A, INT64_MIN),
                 "datetime(\"1970-01-01\").offset(duration("
                 "\"-9223372036854775808ms\"))");
    check_format(tv(A, "duration(\"1h30m\")"), "duration(\"5400000ms\")");
    check_format(tv(A, "duration(\"-1d12h\")"), "duration(\"-129600000ms\")");
}

static void
test_extension_equality(void **state)
{
    /* §3.3 */
    assert_true(pdp_value_equal(tv(A, "decimal(\"1.0\")"),
                                tv(A, "decimal(\"1.00\")")));
    assert_false(pdp_value_equal(tv(A, "decimal(\"1.0\")"),
                                 tv(A, "decimal(\"1.0001\")")));
    assert_false(pdp_value_equal(tv(A, "ip(\"192.168.0.1/24\")"),
                                 tv(A, "ip(\"192.168.0.8/24\")")));
    assert_false(pdp_value_equal(tv(A, "ip(\"10.0.0.1/24\")"),
                                 tv(A, "ip(\"10.0.0.1/25\")")));
    assert_true(pdp_value_equal(tv(A, "ip(\"10.0.0.1\")"),
                                tv(A, "ip(\"10.0.0.1/32\")")));
    assert_false(pdp_value_equal(tv(A, "ip(\"0.0.0.0/0\")"),
                                 tv(A, "ip(\"::/0\")")));
    assert_false(pdp_value_equal(tv(A, "ip(\"127.0.0.1\")"),
                                 tv(A, "\"127.0.0.1\"")));
    assert_true(pdp_value_equal(tv(A, "datetime(\"2024-10-15\")"),
                                tv(A, "datetime(\"2024-10-15T00:00:00Z\")")));
    assert_true(pdp_value_equal(tv(A, "datetime(\"2025-01-01T01:00:00+0100\")"),
                                tv(A, "datetime(\"2025-01-01T00:00:00Z\")")));
    assert_true(pdp_value_equal(tv(A, "duration(\"1h\")"),
                                tv(A, "duration(\"60m\")")));
    /* Different kinds with the same number are different values. */
    assert_false(pdp_value_equal(tv(A, "decimal(\"1.0\")"), tv(A, "10000")));
    assert_false(pdp_value_equal(pdp_value_datetime(A, 5),
                                 pdp_value_duration(A, 5)));
    assert_true(pdp_value_equal(tv(A, "[decimal(\"1.0\"), decimal(\"1.00\")]"),
                                tv(A, "[decimal(\"1.0000\")]")));
}

static void
test_extension_encoding(void **state)
{
    assert_same_encoding(tv(A, "decimal(\"1.0\")"), tv(A, "10000"), false);
    assert_same_encoding(pdp_value_datetime(A, 0), pdp_value_duration(A, 0),
                         false);
    assert_same_encoding(pdp_value_datetime(A, 0), tv(A, "0"), false);
    assert_same_encoding(tv(A, "ip(\"0.0.0.0/0\")"), tv(A, "ip(\"::/0\")"),
                         false);
    assert_same_encoding(tv(A, "ip(\"10.0.0.1/24\")"),
                         tv(A, "ip(\"10.0.0.8/24\")"), false);
    assert_same_encoding(tv(A, "[decimal(\"1.0\"), decimal(\"1.00\")]"),
                         tv(A, "[decimal(\"1.0000\")]"), true);
    size_t n;
    char *e = enc(tv(A, "[decimal(\"-0.0001\"), ip(\"10.0.0.1/8\"), "
                        "ip(\"::1\"), datetime(\"1970-01-01T00:00:01Z\"), "
                        "duration(\"2ms\")]"),
                  &n);
    /* Sorted by encoding: D < I < P < T. */
    const char want[] = "[\0\0\0\x05"
                        "D\xff\xff\xff\xff\xff\xff\xff\xff"
                        "I\x04\x08\x0a\0\0\x01"
                        "I\x06\x80\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\x01"
                        "P\0\0\0\0\0\0\0\x02"
                        "T\0\0\0\0\0\0\x03\xe8";
    assert_int_equal(n, sizeof(want) - 1);
    assert_memory_equal(e, want, n);
    box_free(e);
}

typedef box_err (*lit_parser)(const char *s, size_t n, int64_t *out,
                              char *msg, size_t msglen);

/* want: the value as a number, or "error text". */
static void
lit(lit_parser fn, const char *s, const char *want)
{
    char msg[PDP_EXT_MSG_MAX];
    int64_t v = 0;
    char got[PDP_EXT_MSG_MAX + 32];
    if (fn(s, strlen(s), &v, msg, sizeof(msg)) == BOX_OK)
        snprintf(got, sizeof(got), "%lld", (long long)v);
    else
        snprintf(got, sizeof(got), "\"%s\"", msg);
    if (strcmp(got, want) != 0)
        fail_msg("%s\n  got:  %s\n  want: %s", s, got, want);
}

static void
test_decimal_literals(void **state)
{
    /* §3.6: optional -, digits, '.', 1-4 digits, in range. */
    lit(pdp_ext_parse_decimal, "1.2345", "12345");
    lit(pdp_ext_parse_decimal, "-1.0", "-10000");
    lit(pdp_ext_parse_decimal, "0.1", "1000");
    lit(pdp_ext_parse_decimal, "-0.0123", "-123");
    lit(pdp_ext_parse_decimal, "007.5", "75000");
    lit(pdp_ext_parse_decimal, "922337203685477.5807", "9223372036854775807");
    lit(pdp_ext_parse_decimal, "-922337203685477.5808",
        "-9223372036854775808");
    lit(pdp_ext_parse_decimal, "922337203685477.5808",
        "\"overflow when converting to decimal\"");
    lit(pdp_ext_parse_decimal, "-922337203685477.5809",
        "\"overflow when converting to decimal\"");
    lit(pdp_ext_parse_decimal, "99999999999999999999.0",
        "\"overflow when converting to decimal\"");
    lit(pdp_ext_parse_decimal, "1",
        "\"`1` is not a well-formed decimal value\"");
    lit(pdp_ext_parse_decimal, "1.",
        "\"`1.` is not a well-formed decimal value\"");
    lit(pdp_ext_parse_decimal, ".1",
        "\"`.1` is not a well-formed decimal value\"");
    lit(pdp_ext_parse_decimal, "1.0.",
        "\"`1.0.` is not a well-formed decimal value\"");
    lit(pdp_ext_parse_decimal, "+1.0",
        "\"`+1.0` is not a well-formed decimal value\"");
    lit(pdp_ext_parse_decimal, "1,0",
        "\"`1,0` is not a well-formed decimal value\"");
    lit(pdp_ext_parse_decimal, " 1.0",
        "\"` 1.0` is not a well-formed decimal value\"");
    lit(pdp_ext_parse_decimal, "-.5",
        "\"`-.5` is not a well-formed decimal value\"");
    lit(pdp_ext_parse_decimal, "",
        "\"`` is not a well-formed decimal value\"");
    lit(pdp_ext_parse_decimal, "0.12345",
        "\"too many digits after the decimal in `0.12345`\"");
}

static void
test_datetime_literals(void **state)
{
    lit(pdp_ext_parse_datetime, "1970-01-01", "0");
    lit(pdp_ext_parse_datetime, "2024-10-15", "1728950400000");
    lit(pdp_ext_parse_datetime, "2024-10-15T11:35:00Z", "1728992100000");
    lit(pdp_ext_parse_datetime, "2024-10-15T11:35:00.123Z", "1728992100123");
    lit(pdp_ext_parse_datetime, "2024-10-15T11:35:00+0100", "1728988500000");
    lit(pdp_ext_parse_datetime, "2024-10-15T11:35:00.5-2359",
        "\"invalid millisecond and/or offset pattern\"");
    lit(pdp_ext_parse_datetime, "2024-10-15T11:35:00.500-2359",
        "1729078440500");
    lit(pdp_ext_parse_datetime, "1969-12-31T23:59:59Z", "-1000");
    lit(pdp_ext_parse_datetime, "2024-02-29", "1709164800000");
    lit(pdp_ext_parse_datetime, "2000-02-29", "951782400000");
    lit(pdp_ext_parse_datetime, "0000-03-01", "-62162035200000");
    lit(pdp_ext_parse_datetime, "9999-12-31T23:59:59.999Z", "253402300799999");
    /* Cedar's errors, in Cedar's order of checks. */
    lit(pdp_ext_parse_datetime, "", "\"invalid date pattern\"");
    lit(pdp_ext_parse_datetime, "24-10-15", "\"invalid date pattern\"");
    lit(pdp_ext_parse_datetime, "10000-01-01", "\"invalid date pattern\"");
    lit(pdp_ext_parse_datetime, "2024/10/15", "\"invalid date pattern\"");
    lit(pdp_ext_parse_datetime, "2024-1-15", "\"invalid date pattern\"");
    lit(pdp_ext_parse_datetime, "2024-13-01", "\"invalid date: 2024-13-01\"");
    lit(pdp_ext_parse_datetime, "2024-00-01", "\"invalid date: 2024-00-01\"");
    lit(pdp_ext_parse_datetime, "2024-01-00", "\"invalid date: 2024-01-00\"");
    lit(pdp_ext_parse_datetime, "2024-04-31", "\"invalid date: 2024-04-31\"");
    lit(pdp_ext_parse_datetime, "2025-02-29", "\"invalid date: 2025-02-29\"");
    lit(pdp_ext_parse_datetime, "1900-02-29", "\"invalid date: 1900-02-29\"");
    lit(pdp_ext_parse_datetime, "2024-10-15Z",
        "\"invalid hour/minute/second pattern\"");
    lit(pdp_ext_parse_datetime, "2024-10-15T",
        "\"invalid hour/minute/second pattern\"");
    lit(pdp_ext_parse_datetime, "2024-10-15T01:02",
        "\"invalid hour/minute/second pattern\"");
    lit(pdp_ext_parse_datetime, "2024-10-15 11:35:00Z",
        "\"invalid hour/minute/second pattern\"");
    lit(pdp_ext_parse_datetime, "2024-10-15T11:35:00",
        "\"invalid millisecond and/or offset pattern\"");
    lit(pdp_ext_parse_datetime, "2024-10-15T11:35:00ZZ",
        "\"invalid millisecond and/or offset pattern\"");
    lit(pdp_ext_parse_datetime, "2024-10-15T11:35:00+01:00",
        "\"invalid millisecond and/or offset pattern\"");
    lit(pdp_ext_parse_datetime, "2024-10-15T11:35:00.1234Z",
        "\"invalid millisecond and/or offset pattern\"");
    lit(pdp_ext_parse_datetime, "2024-02-30T00:00:00Z",
        "\"invalid date: 2024-02-30\"");
    lit(pdp_ext_parse_datetime, "2024-10-15T24:00:00Z",
        "\"invalid hour/minute/second: 24:00:00\"");
    lit(pdp_ext_parse_datetime, "2024-10-15T23:60:00Z",
        "\"invalid hour/minute/second: 23:60:00\"");
    lit(pdp_ext_parse_datetime, "2016-12-31T23:59:60Z",
        "\"invalid hour/minute/second: 23:59:60\"");
    lit(pdp_ext_parse_datetime, "2024-10-15T11:35:00+2400",
        "\"invalid offset range: 240\"");
    lit(pdp_ext_parse_datetime, "2024-10-15T11:35:00-0060",
        "\"invalid offset range: 060\"");
}

static void
test_duration_literals(void **state)
{
    lit(pdp_ext_parse_duration, "1h30m45s", "5445000");
    lit(pdp_ext_parse_duration, "-1d12h", "-129600000");
    lit(pdp_ext_parse_duration, "100ms", "100");
    lit(pdp_ext_parse_duration, "4m70s", "310000");
    lit(pdp_ext_parse_duration, "0d", "0");
    lit(pdp_ext_parse_duration, "1d2h3m4s5ms", "93784005");
    lit(pdp_ext_parse_duration, "9223372036854775807ms", "9223372036854775807");
    lit(pdp_ext_parse_duration, "-9223372036854775808ms",
        "-9223372036854775808");
    lit(pdp_ext_parse_duration, "9223372036854775808ms",
        "\"Duration overflows internal representation\"");
    lit(pdp_ext_parse_duration, "106751991167301d",
        "\"Duration overflows internal representation\"");
    lit(pdp_ext_parse_duration, "99999999999999999999999ms",
        "\"Duration overflows internal representation\"");
    lit(pdp_ext_parse_duration, "", "\"invalid duration pattern\"");
    lit(pdp_ext_parse_duration, "-", "\"invalid duration pattern\"");
    lit(pdp_ext_parse_duration, "1", "\"invalid duration pattern\"");
    lit(pdp_ext_parse_duration, "h", "\"invalid duration pattern\"");
    lit(pdp_ext_parse_duration, "1m1h", "\"invalid duration pattern\"");
    lit(pdp_ext_parse_duration, "1h1h", "\"invalid duration pattern\"");
    lit(pdp_ext_parse_duration, "1ms1s", "\"invalid duration pattern\"");
    lit(pdp_ext_parse_duration, "1h ", "\"invalid duration pattern\"");
    lit(pdp_ext_parse_duration, "1w", "\"invalid duration pattern\"");
    lit(pdp_ext_parse_duration, "--1h", "\"invalid duration pattern\"");
    lit(pdp_ext_parse_duration, "1h-1m", "\"invalid duration pattern\"");
    lit(pdp_ext_parse_duration, "1.5h", "\"invalid duration pattern\"");
}

/* want: Cedar's text of the value, or "error text". */
static void
ip_lit(const char *s, const char *want)
{
    char msg[PDP_EXT_MSG_MAX];
    pdp_ipaddr ip;
    box_buf b;
    box_buf_init(&b, 1000);
    if (pdp_ext_parse_ip(s, strlen(s), &ip, msg, sizeof(msg)) == BOX_OK)
        assert_int_equal(pdp_value_format(pdp_value_ipaddr(A, &ip), &b),
                         BOX_OK);
    else
        assert_int_equal(box_buf_printf(&b, "\"%s\"", msg), BOX_OK);
    if (strcmp(b.b_data, want) != 0)
        fail_msg("%s\n  got:  %s\n  want: %s", s, b.b_data, want);
    box_buf_reset(&b);
}

static void
test_ip_literals(void **state)
{
    ip_lit("127.0.0.1", "ip(\"127.0.0.1/32\")");
    ip_lit("0.0.0.0/0", "ip(\"0.0.0.0/0\")");
    ip_lit("255.255.255.255/32", "ip(\"255.255.255.255/32\")");
    ip_lit("1:2:3:4:5:6:7:8", "ip(\"1:2:3:4:5:6:7:8/128\")");
    ip_lit("1::", "ip(\"1::/128\")");
    ip_lit("1:2:3:4:5:6:7::", "ip(\"1:2:3:4:5:6:7:0/128\")");
    ip_lit("::2:3:4:5:6:7:8", "ip(\"0:2:3:4:5:6:7:8/128\")");
    ip_lit("ABCD:EF01:2345:6789:ABCD:EF01:2345:6789/128",
           "ip(\"abcd:ef01:2345:6789:abcd:ef01:2345:6789/128\")");
    ip_lit("ff00::/0", "ip(\"ff00::/0\")");
    /* refusals with Cedar's texts */
    ip_lit("ABCD:EF01:2345:6789:ABCD:EF01:2345:6789/1280",
           "\"error parsing IP address from string "
           "`ABCD:EF01:2345:6789:ABCD:EF01:2345:6789/1280`: string length is "
           "too large\"");
    ip_lit("::ffff:127.0.0.1",
           "\"error parsing IP address from string: We do not accept IPv4 "
           "embedded in IPv6 (e.g., ::ffff:127.0.0.1). Found: "
           "`::ffff:127.0.0.1`\"");
    ip_lit("::127.0.0.1/120",
           "\"error parsing IP address from string: We do not accept IPv4 "
           "embedded in IPv6 (e.g., ::ffff:127.0.0.1). Found: "
           "`::127.0.0.1/120`\"");
    ip_lit("127.0.0.1/8/24",
           "\"error parsing prefix: string length 4 is too large\"");
    ip_lit("127.0.0.1/33",
           "\"error parsing prefix: 33 is larger than the limit 32\"");
    ip_lit("::1/129", "\"error parsing prefix: 129 is larger than the limit "
                      "128\"");
    ip_lit("::1/0128", "\"error parsing prefix: string length 4 is too "
                       "large\"");
    ip_lit("10.0.0.0/08", "\"error parsing prefix `08`: leading zero(s)\"");
    ip_lit("10.0.0.0/+8", "\"error parsing prefix `+8`: encountered "
                          "non-digit\"");
    ip_lit("10.0.0.0/", "\"error parsing prefix from the string ``: cannot "
                        "parse integer from empty string\"");
    ip_lit("10.0.0.256/8", "\"error parsing IP address from the string "
                           "`10.0.0.256`: invalid IP address syntax\"");
    ip_lit("10.0.0.01", "\"invalid IP address: 10.0.0.01\"");
    ip_lit("10.0.0", "\"invalid IP address: 10.0.0\"");
    ip_lit("10.0.0.0.0", "\"invalid IP address: 10.0.0.0.0\"");
    ip_lit("1.2.3.4 ", "\"invalid IP address: 1.2.3.4 \"");
    ip_lit("", "\"invalid IP address: \"");
    ip_lit("1:2:3:4:5:6:7:8:9", "\"invalid IP address: 1:2:3:4:5:6:7:8:9\"");
    ip_lit("1:2:3:4:5:6:7:8::", "\"invalid IP address: 1:2:3:4:5:6:7:8::\"");
    ip_lit("1::2::3", "\"invalid IP address: 1::2::3\"");
    ip_lit(":1::", "\"invalid IP address: :1::\"");
    ip_lit("1:", "\"invalid IP address: 1:\"");
    ip_lit("12345::", "\"invalid IP address: 12345::\"");
    ip_lit("g::", "\"invalid IP address: g::\"");
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_builders),
        cmocka_unit_test(test_caps),
        cmocka_unit_test(test_equality),
        cmocka_unit_test(test_bytes_eq),
        cmocka_unit_test(test_encoding),
        cmocka_unit_test(test_extension_values),
        cmocka_unit_test(test_extension_equality),
        cmocka_unit_test(test_extension_encoding),
        cmocka_unit_test(test_decimal_literals),
        cmocka_unit_test(test_datetime_literals),
        cmocka_unit_test(test_duration_literals),
        cmocka_unit_test(test_ip_literals),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
