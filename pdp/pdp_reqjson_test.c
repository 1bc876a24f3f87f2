/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_reqjson: the request shape, Cedar's JSON values, uids in
 * both spellings, defaults, and every refusal naming its member. */
#include "pdp_test_util.h"

#include "pdp_reqjson.h"

static box_arena *A;

static int
setup(void **state)
{
    (void)state;
    A = box_arena_new(64u << 20);
    return A == NULL;
}

static int
teardown(void **state)
{
    (void)state;
    box_arena_free(A);
    return 0;
}

static char *
fmtv(const pdp_value *v)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    assert_int_equal(pdp_value_format(v, &b), BOX_OK);
    assert_int_equal(box_buf_putc(&b, '\0'), BOX_OK);
    return box_buf_take(&b);
}

static void
want_value(const pdp_value *v, const char *want)
{
    char *got = fmtv(v);
    if (strcmp(got, want) != 0)
        fail_msg("got %s, want %s", got, want);
    box_free(got);
}

static pdp_reqjson
parse_ok(const char *text)
{
    box_buf err;
    box_buf_init(&err, 4096);
    pdp_reqjson rq;
    box_err rv = pdp_reqjson_parse(text, strlen(text), A, &rq, &err);
    if (rv != BOX_OK)
        fail_msg("%s: %s (%s)", text, box_strerror(rv),
                 err.b_data ? err.b_data : "");
    box_buf_reset(&err);
    return rq;
}

static void
parse_bad(const char *text, const char *want)
{
    box_buf err;
    box_buf_init(&err, 4096);
    pdp_reqjson rq;
    box_err rv = pdp_reqjson_parse(text, strlen(text), A, &rq, &err);
    if (rv != BOX_EINVAL)
        fail_msg("%s: %s, want EINVAL", text, box_strerror(rv));
    if (err.b_data == NULL || strstr(err.b_data, want) == NULL)
        fail_msg("%s:\n  got:  %s\n  want: …%s…", text,
                 err.b_data ? err.b_data : "", want);
    box_buf_reset(&err);
}

static void
test_shape(void **state)
{
    (void)state;
    pdp_reqjson rq = parse_ok(
        "{\"principal\": \"Drupe::OAuthUser::\\\"alice\\\"\",\n"
        " \"action\": {\"type\": \"Drupe::Action\", \"id\": \"Read\"},\n"
        " \"resource\": {\"__entity\": {\"type\": \"G\", \"id\": \"g\\\"1\"}},\n"
        " \"context\": {\"input\": {\"n\": -9223372036854775808, \"s\": \"\\u00e9\",\n"
        "   \"b\": true, \"set\": [1, 1, 2], \"e\": {\"__entity\": {\"type\": "
        "\"Box::Op\", \"id\": \"x\"}},\n"
        "   \"d\": {\"__extn\": {\"fn\": \"decimal\", \"arg\": \"1.5\"}},\n"
        "   \"ip\": {\"__extn\": {\"fn\": \"ip\", \"arg\": \"10.0.0.0/8\"}}}},\n"
        " \"resource_text\": \"echo\", \"ts\": 42,\n"
        " \"entities\": [{\"uid\": \"Drupe::OAuthUser::\\\"alice\\\"\", "
        "\"attrs\": {\"id\": \"alice\"}, \"parents\": [{\"type\": "
        "\"Drupe::Team\", \"id\": \"traders\"}], \"tags\": {\"level\": "
        "\"gold\"}}]}\n");
    want_value(rq.rj_principal, "Drupe::OAuthUser::\"alice\"");
    want_value(rq.rj_action, "Drupe::Action::\"Read\"");
    want_value(rq.rj_resource, "G::\"g\\\"1\"");
    want_value(rq.rj_context,
                 "{input: {n: -9223372036854775808, s: \"\xc3\xa9\", b: true, "
                 "set: [1, 1, 2], e: Box::Op::\"x\", d: decimal(\"1.5000\"), "
                 "ip: ip(\"10.0.0.0/8\")}}");
    assert_string_equal(rq.rj_resource_text, "echo");
    assert_int_equal(rq.rj_resource_len, 4);
    assert_true(rq.rj_has_ts);
    assert_int_equal(rq.rj_ts, 42);
    assert_int_equal(rq.rj_entities.es_n, 1);
    const pdp_entity *e = &rq.rj_entities.es_items[0];
    want_value(e->et_uid, "Drupe::OAuthUser::\"alice\"");
    want_value(e->et_attrs, "{id: \"alice\"}");
    want_value(e->et_tags, "{level: \"gold\"}");
    want_value(e->et_parents, "[Drupe::Team::\"traders\"]");
}

static void
test_defaults(void **state)
{
    (void)state;
    pdp_reqjson rq = parse_ok(" {\"action\": \"Box::Action::\\\"fs:read\\\"\"} ");
    want_value(rq.rj_principal, "Box::Agent::\"self\"");
    want_value(rq.rj_resource, "Box::Resource::\"unused\"");
    want_value(rq.rj_context, "{}");
    assert_string_equal(rq.rj_resource_text, "");
    assert_false(rq.rj_has_ts);
    assert_int_equal(rq.rj_entities.es_n, 0);
    // The .dw escapes in a uid string.
    rq = parse_ok("{\"action\": \"A::B::\\\"\\\\u{e9}\\\\t\\\"\"}");
    want_value(rq.rj_action, "A::B::\"\xc3\xa9\\t\"");
}

static void
test_refusals(void **state)
{
    (void)state;
    parse_bad("", "not one JSON object");
    parse_bad("{\"action\": \"A::\\\"x\\\"\"", "not one JSON object");
    parse_bad("{\"action\": \"A::\\\"x\\\"\"} {}", "text after it");
    parse_bad("[]", "a request is a JSON object, found an array");
    parse_bad("{}", "the request needs \"action\"");
    parse_bad("{\"action\": \"A::\\\"x\\\"\", \"contxt\": {}}",
              "unknown member \"contxt\" (expected principal, action");
    parse_bad("{\"action\": \"fs:read\"}",
              "action: \"fs:read\" is not an entity uid");
    parse_bad("{\"action\": \"A::\\\"x\\\" junk\"}", "is not an entity uid");
    parse_bad("{\"action\": {\"type\": \"A\"}}",
              "action: an entity needs both \"type\" and \"id\"");
    parse_bad("{\"action\": {\"type\": \"a b\", \"id\": \"x\"}}",
              "action: \"a b\" is not an entity type");
    parse_bad("{\"action\": \"A::\\\"x\\\"\", \"context\": {\"input\": "
              "{\"n\": 1.5}}}",
              "context.input.n: 1.5 is not a Cedar value");
    parse_bad("{\"action\": \"A::\\\"x\\\"\", \"context\": {\"n\": "
              "9223372036854775808}}",
              "integer 9223372036854775808 is out of range");
    parse_bad("{\"action\": \"A::\\\"x\\\"\", \"context\": {\"n\": "
              "-9223372036854775809}}",
              "integer -9223372036854775809 is out of range");
    parse_bad("{\"action\": \"A::\\\"x\\\"\", \"context\": {\"a\": [1, null]}}",
              "context.a[1]: null is not a Cedar value");
    parse_bad("{\"action\": \"A::\\\"x\\\"\", \"context\": {\"d\": {\"__extn\": "
              "{\"fn\": \"decimal\", \"arg\": \"1.23456\"}}}}",
              "context.d: error while evaluating `decimal` extension function");
    parse_bad("{\"action\": \"A::\\\"x\\\"\", \"context\": {\"d\": {\"__extn\": "
              "{\"fn\": \"lessThan\", \"arg\": \"1\"}}}}",
              "unknown extension function \"lessThan\"");
    parse_bad("{\"action\": \"A::\\\"x\\\"\", \"context\": []}",
              "context: expected an object, found an array");
    parse_bad("{\"action\": \"A::\\\"x\\\"\", \"context\": {\"__entity\": "
              "{\"type\": \"A\", \"id\": \"x\"}}}",
              "context: expected a record");
    parse_bad("{\"action\": \"A::\\\"x\\\"\", \"ts\": \"1\"}",
              "ts: expected an integer (seconds), found a string");
    parse_bad("{\"action\": \"A::\\\"x\\\"\", \"entities\": [{\"uid\": "
              "\"A::\\\"a\\\"\", \"parent\": []}]}",
              "entities[0]: unknown member \"parent\"");
    parse_bad("{\"action\": \"A::\\\"x\\\"\", \"entities\": [{\"uid\": "
              "\"A::\\\"a\\\"\", \"parents\": [\"nope\"]}]}",
              "entities[0].parents[0]: \"nope\" is not an entity uid");
    // Nesting past the value cap.
    box_buf b;
    box_buf_init(&b, 1u << 20);
    assert_int_equal(box_buf_puts(&b, "{\"action\": \"A::\\\"x\\\"\", "
                                      "\"context\": {\"a\": "),
                     BOX_OK);
    for (int i = 0; i < 70; i++)
        assert_int_equal(box_buf_putc(&b, '['), BOX_OK);
    for (int i = 0; i < 70; i++)
        assert_int_equal(box_buf_putc(&b, ']'), BOX_OK);
    assert_int_equal(box_buf_puts(&b, "}}"), BOX_OK);
    pdp_reqjson rq;
    box_buf err;
    box_buf_init(&err, 4096);
    assert_int_equal(pdp_reqjson_parse(b.b_data, b.b_len, A, &rq, &err),
                     BOX_EINVAL);
    box_buf_reset(&err);
    box_buf_reset(&b);
}

/* Every box_alloc of a read failing in turn (json-c's own allocations
 * are not ours to fail): a clean error, or the same request. */
static void
test_alloc_walk(void **state)
{
    (void)state;
    static const char text[] =
        "{\"principal\": \"A::B::\\\"a\\\"\", \"action\": {\"type\": \"A::Action\", "
        "\"id\": \"x\"}, \"context\": {\"input\": {\"s\": [1, \"t\", "
        "{\"__extn\": {\"fn\": \"ip\", \"arg\": \"::1\"}}]}}, "
        "\"resource_text\": \"r\", \"entities\": [{\"uid\": \"A::B::\\\"a\\\"\", "
        "\"parents\": [\"A::G::\\\"g\\\"\"], \"attrs\": {\"k\": 1}}]}";
    pdp_reqjson ref = parse_ok(text);
    char *want = fmtv(ref.rj_context);
    unsigned long n = 1;
    for (;; n++) {
        assert_true(n < 100000);
        box_arena *a = box_arena_new(1u << 20);
        assert_non_null(a);
        box_buf err;
        box_buf_init(&err, 4096);
        pdp_reqjson rq;
        box_alloc_fail_after(n);
        box_err rv = pdp_reqjson_parse(text, strlen(text), a, &rq, &err);
        bool hit = box_alloc_calls() >= n;
        box_alloc_fail_off();
        if (rv == BOX_OK) {
            char *got = fmtv(rq.rj_context);
            assert_string_equal(got, want);
            box_free(got);
        } else {
            assert_true(hit);
        }
        box_buf_reset(&err);
        box_arena_free(a);
        if (!hit)
            break;
    }
    print_message("reqjson: %lu allocations walked\n", n - 1);
    box_free(want);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape),
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_alloc_walk),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
