/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_eval: Cedar semantics (§3) and the §8.1 examples (Drupe
 * world of §8.0, requests built directly as value trees, with an entity
 * store for alice and bob). */
#include "pdp_test_util.h"

#include "pdp_decide.h"
#include "pdp_policy.h"

static box_arena *A;

/* §8.0: alice (id "alice", parent Team "traders", tag level "gold") and
 * bob (id "bob", nothing else); for the hierarchy tests, traders is in
 * Org "acme", and acme and Org "loop" are parents of each other. */
static pdp_entity DRUPE_ITEMS[5];
static pdp_entities DRUPE = {DRUPE_ITEMS, 5};

static int
setup(void **state)
{
    A = box_arena_new(256u << 20);
    if (A == NULL)
        return 1;
    DRUPE_ITEMS[0] = (pdp_entity){tv(A, "Drupe::OAuthUser::\"alice\""),
                                  tv(A, "{ id: \"alice\" }"),
                                  tv(A, "{ level: \"gold\" }"),
                                  tv(A, "[Drupe::Team::\"traders\"]")};
    DRUPE_ITEMS[1] = (pdp_entity){tv(A, "Drupe::OAuthUser::\"bob\""),
                                  tv(A, "{ id: \"bob\" }"), NULL, NULL};
    DRUPE_ITEMS[2] = (pdp_entity){tv(A, "Drupe::Team::\"traders\""), NULL,
                                  NULL, tv(A, "[Drupe::Org::\"acme\"]")};
    DRUPE_ITEMS[3] = (pdp_entity){tv(A, "Drupe::Org::\"acme\""), NULL, NULL,
                                  tv(A, "[Drupe::Org::\"loop\"]")};
    DRUPE_ITEMS[4] = (pdp_entity){tv(A, "Drupe::Org::\"loop\""), NULL, NULL,
                                  tv(A, "[Drupe::Org::\"acme\"]")};
    return 0;
}

static int
teardown(void **state)
{
    box_arena_free(A);
    return 0;
}

/* Evaluates expr with context ctx, principal Box::Agent::"self" (or
 * alice when a store is given); "value" or "error: message". */
static char *
ev_in(const char *expr, const char *ctx, const pdp_entities *store)
{
    char *src = box_asprintf("permit(principal, action, resource) when { %s };",
                             expr);
    box_buf b;
    box_buf_init(&b, 1u << 20);
    const pdp_ast *ast;
    if (pdp_parse(src, strlen(src), "e.dw", A, &ast, &b) != BOX_OK)
        fail_msg("%s: %s", expr, b.b_data);
    pdp_request rq = trq(A,
                         store ? "Drupe::OAuthUser::\"alice\""
                               : "Box::Agent::\"self\"",
                         "Box::Action::\"fs:read\"",
                         "Box::Resource::\"unused\"", ctx, "");
    rq.rq_entities = store;
    box_arena *scratch = box_arena_new(1u << 20);
    const pdp_value *v;
    char msg[PDP_EVAL_MSG_MAX];
    b.b_len = 0;
    if (pdp_eval_expr(ast->as_rules[0]->r_conds[0].cd_body, &rq, scratch, &v,
                      msg, sizeof(msg)) == BOX_OK)
        assert_int_equal(pdp_value_format(v, &b), BOX_OK);
    else
        assert_int_equal(box_buf_printf(&b, "error: %s", msg), BOX_OK);
    box_arena_free(scratch);
    box_free(src);
    return box_buf_take(&b);
}

static void
check_in(const char *expr, const char *ctx, const pdp_entities *store,
         const char *want)
{
    char *got = ev_in(expr, ctx, store);
    if (strcmp(got, want) != 0)
        fail_msg("%s\n  got:  %s\n  want: %s", expr, got, want);
    box_free(got);
}

static void
check(const char *expr, const char *ctx, const char *want)
{
    check_in(expr, ctx, NULL, want);
}

#define CTX "{ input: { a: 1, s: \"str\", e: Box::X::\"y\", set: [1, 2], " \
            "rec: { b: { c: true } } } }"

static void
test_values_and_errors(void **state)
{
    check("1 + 2 * 3 - -4", CTX, "11");
    check("9223372036854775807 + 1", CTX,
          "error: integer overflow while attempting to add the values "
          "`9223372036854775807` and `1`");
    check("-9223372036854775808 - 1", CTX,
          "error: integer overflow while attempting to subtract the values "
          "`-9223372036854775808` and `1`");
    check("4611686018427387904 * 2", CTX,
          "error: integer overflow while attempting to multiply the values "
          "`4611686018427387904` and `2`");
    check("-(-9223372036854775808)", CTX,
          "error: integer overflow while attempting to negate the value "
          "`-9223372036854775808`");
    check("-9223372036854775808", CTX, "-9223372036854775808");
    check("1 + true", CTX, "error: type error: expected long, got bool");
    check("!1", CTX, "error: type error: expected bool, got long");
    check("\"a\" < \"b\"", CTX, "error: type error: expected long, got string");
    /* Both operands are evaluated before either's type is checked, as in
     * Cedar: the error is the right operand's (found by tests/cedar_diff). */
    check("\"a\" < context.nope", CTX,
          "error: record does not have the attribute `nope`");
    check("true + (9223372036854775807 + 1)", CTX,
          "error: integer overflow while attempting to add the values "
          "`9223372036854775807` and `1`");
    check("1 in context.nope", CTX,
          "error: record does not have the attribute `nope`");
    check("true * \"a\"", CTX, "error: type error: expected long, got bool");
    check("1 - true", CTX, "error: type error: expected long, got bool");
    /* A record literal's values are evaluated in key order, as in Cedar,
     * and the record keeps the source order. */
    check("{b: context.nope, a: 1 + true, \"a b\": 1 + \"x\"}", CTX,
          "error: type error: expected long, got bool");
    check("{b: context.nope, \"a b\": 1 + \"x\"}", CTX,
          "error: type error: expected long, got string");
    check("{b: 2, a: 1 + context.input.a}", CTX, "{b: 2, a: 2}");
    check("1 > 2 || 2 >= 2", CTX, "true");
    check("1 != 1", CTX, "false");
    /* Equality never errors and is false across types. */
    check("5 == \"5\"", CTX, "false");
    check("[1, 1, 2] == [2, 1]", CTX, "true");
    check("{a: 1, b: 2} == {b: 2, a: 1}", CTX, "true");
    check("A::\"x\" == B::\"x\"", CTX, "false");
    check("context.input.e == Box::X::\"y\"", CTX, "true");
    /* Short-circuit: the erroring operand is never evaluated. */
    check("false && context.nope", CTX, "false");
    check("true || context.nope", CTX, "true");
    check("true && context.nope", CTX,
          "error: record does not have the attribute `nope`");
    check("1 && true", CTX, "error: type error: expected bool, got long");
    check("true && 1", CTX, "error: type error: expected bool, got long");
    check("if context has nope then context.nope else 7", CTX, "7");
    check("if 1 then 2 else 3", CTX, "error: type error: expected bool, got long");
    check("if true then \"x\" else 3", CTX, "\"x\"");
    /* Records, has, member access. */
    check("context.input[\"rec\"].b.c", CTX, "true");
    check("context.input has rec.b.c", CTX, "true");
    check("context.input has rec.b.d", CTX, "false");
    check("context.input has \"a\"", CTX, "true");
    check("context.input has a.b", CTX,
          "error: type error: expected record or entity, got long");
    check("context.input.a.b", CTX,
          "error: type error: expected record or entity, got long");
    check("principal has name", CTX, "false");
    check("principal.name", CTX,
          "error: entity `Box::Agent::\"self\"` does not exist");
    check("1 has a", CTX, "error: type error: expected record or entity, got long");
    check("{ label: \"review\", count: 3, if: true } has if && { a: { b: 1 } } "
          "has a.b && !({ a: {} } has a.b) && { label: \"x\" }[\"label\"] == "
          "\"x\"",
          CTX, "true");
    check("{ x: context.input.a, y: [context.input.s] }", CTX,
          "{x: 1, y: [\"str\"]}");
    /* Sets. */
    check("[2, 43].containsAll([])", CTX, "true");
    check("[].containsAny([1])", CTX, "false");
    check("context.input.set.contains(2) && !context.input.set.isEmpty()", CTX,
          "true");
    check("[context.input.a, 5].contains(1)", CTX, "true");
    check("[[1, 2]].contains([2, 1])", CTX, "true");
    check("context.input.a.contains(1)", CTX,
          "error: type error: expected set, got long");
    check("[1].containsAll(1)", CTX, "error: type error: expected set, got long");
    /* `in` over entities (no hierarchy in Box). */
    check("principal in Box::Agent::\"self\"", CTX, "true");
    check("principal in [Box::Agent::\"x\", Box::Agent::\"self\"]", CTX, "true");
    check("principal in Box::Agent::\"other\"", CTX, "false");
    check("\"a\" in [\"a\"]", CTX,
          "error: type error: expected entity, got string");
    check("principal in [Box::Agent::\"self\", 1]", CTX,
          "error: type error: expected entity, got long");
    check("principal in 1", CTX,
          "error: type error: expected entity or set, got long");
    check("context.input.e.x", CTX,
          "error: entity `Box::X::\"y\"` does not exist");
    check("1 + context.input.e", CTX,
          "error: type error: expected long, got (entity of type `Box::X`)");
}


/* §3.9: the set methods, both operands evaluated before either is
 * checked (as Cedar does). */
static void
test_sets(void **state)
{
    check("[2, 43].containsAll([])", CTX, "true");
    check("[].containsAny([1])", CTX, "false");
    check("[].isEmpty()", CTX, "true");
    check("[1, 2].containsAll([2, 1, 1])", CTX, "true");
    check("[1].containsAll([1, 2])", CTX, "false");
    check("[1, 2].containsAny([3, 2])", CTX, "true");
    check("[1, 2].containsAny([3])", CTX, "false");
    check("[1, \"a\", {b: [1]}].contains({b: [1, 1]})", CTX, "true");
    check("[1, \"a\"].contains(\"1\")", CTX, "false");
    check("[[1], [2]].containsAll([[2]])", CTX, "true");
    check("context.input.set.containsAll([1, 2]) && "
          "context.input.set.containsAny([2])", CTX, "true");
    check("context.input.a.containsAll([1])", CTX,
          "error: type error: expected set, got long");
    check("context.input.a.containsAny([1])", CTX,
          "error: type error: expected set, got long");
    check("context.input.a.isEmpty()", CTX,
          "error: type error: expected set, got long");
    check("[1].containsAny(\"1\")", CTX,
          "error: type error: expected set, got string");
    check("context.input.a.contains(context.nope)", CTX,
          "error: record does not have the attribute `nope`");
    check("[1].contains(context.nope)", CTX,
          "error: record does not have the attribute `nope`");
}

#define XCTX "{ input: { d: \"1.5\", t: \"2024-10-15\", i: \"10.0.0.1/8\", " \
             "u: \"90s\", n: 7 } }"

static void
test_extensions(void **state)
{
    /* §3.3 equality: by value, never an error, false across types. */
    check("decimal(\"1.0\") == decimal(\"1.00\")", XCTX, "true");
    check("ip(\"192.168.0.1/24\") == ip(\"192.168.0.8/24\")", XCTX, "false");
    check("ip(\"127.0.0.1\") == \"127.0.0.1\"", XCTX, "false");
    check("ip(\"0.0.0.0/0\") == ip(\"::/0\")", XCTX, "false");
    check("datetime(\"2024-10-15\") == datetime(\"2024-10-15T00:00:00Z\")",
          XCTX, "true");
    check("duration(\"1d\") == duration(\"24h\")", XCTX, "true");
    check("decimal(\"1.0\") == 10000", XCTX, "false");
    check("datetime(\"1970-01-01\").toTime() == duration(\"0ms\")", XCTX,
          "true");
    check("[decimal(\"1.0\"), ip(\"::1\")].contains(ip(\"::1/128\"))", XCTX,
          "true");
    /* §3.5 ordering: Long, datetime or duration, both the same. */
    check("datetime(\"2024-10-15\") < datetime(\"2024-10-15T00:00:01Z\")", XCTX,
          "true");
    check("datetime(\"2024-10-15\") >= datetime(\"2024-10-15T00:00:01Z\")",
          XCTX, "false");
    check("duration(\"-1ms\") <= duration(\"0s\") && duration(\"2h\") > "
          "duration(\"119m\")", XCTX, "true");
    check("datetime(\"2024-10-15\") < duration(\"1h\")", XCTX,
          "error: type error: expected datetime, got duration");
    check("duration(\"1h\") < 1", XCTX,
          "error: type error: expected duration, got long");
    check("1 < duration(\"1h\")", XCTX,
          "error: type error: expected long, got duration");
    check("decimal(\"1.0\") < decimal(\"2.0\")", XCTX,
          "error: type error: expected long, got decimal");
    check("ip(\"::1\") <= ip(\"::2\")", XCTX,
          "error: type error: expected long, got ipaddr");
    check("decimal(\"1.0\") + 1", XCTX,
          "error: type error: expected long, got decimal");
    /* decimal methods */
    check("decimal(\"-1.5\").lessThan(decimal(\"-1.4999\"))", XCTX, "true");
    check("decimal(\"1.5\").lessThanOrEqual(decimal(\"1.50\"))", XCTX, "true");
    check("decimal(\"1.5\").greaterThan(decimal(\"1.50\"))", XCTX, "false");
    check("decimal(\"1.5\").greaterThanOrEqual(decimal(\"1.50\"))", XCTX,
          "true");
    check("decimal(\"1.0\").lessThan(1)", XCTX,
          "error: type error: expected decimal, got long");
    check("\"1.0\".lessThan(decimal(\"2.0\"))", XCTX,
          "error: type error: expected decimal, got string");
    /* ipaddr methods (§3.6, §8.1 C24) */
    check("ip(\"10.0.0.1\").isIpv4() && !ip(\"10.0.0.1\").isIpv6() && "
          "ip(\"::1\").isIpv6() && !ip(\"::1\").isIpv4()", XCTX, "true");
    check("ip(\"127.0.0.2\").isLoopback()", XCTX, "true");
    check("ip(\"127.255.0.0/8\").isLoopback()", XCTX, "true");
    check("ip(\"127.0.0.0/7\").isLoopback()", XCTX, "false");
    check("ip(\"128.0.0.1\").isLoopback()", XCTX, "false");
    check("ip(\"::1\").isLoopback()", XCTX, "true");
    check("ip(\"::1/127\").isLoopback()", XCTX, "false");
    check("ip(\"::2\").isLoopback()", XCTX, "false");
    check("ip(\"224.0.0.1\").isMulticast() && ip(\"239.1.2.3/4\")"
          ".isMulticast()", XCTX, "true");
    check("ip(\"224.0.0.0/3\").isMulticast()", XCTX, "false");
    check("ip(\"ff00::2\").isMulticast() && ip(\"ff02::1/8\").isMulticast()",
          XCTX, "true");
    check("ip(\"ff00::/7\").isMulticast() || ip(\"fe00::1\").isMulticast()",
          XCTX, "false");
    check("ip(\"192.168.1.5\").isInRange(ip(\"192.168.0.0/16\"))", XCTX,
          "true");
    check("ip(\"192.168.0.75\").isInRange(ip(\"192.168.0.1/28\"))", XCTX,
          "false");
    check("ip(\"192.168.0.7/29\").isInRange(ip(\"192.168.0.1/28\"))", XCTX,
          "true");
    check("ip(\"10.0.0.0/8\").isInRange(ip(\"10.0.0.0/16\"))", XCTX, "false");
    check("ip(\"10.0.0.0/16\").isInRange(ip(\"10.0.0.0/16\"))", XCTX, "true");
    check("ip(\"1.2.3.4\").isInRange(ip(\"0.0.0.0/0\"))", XCTX, "true");
    check("ip(\"::1\").isInRange(ip(\"::/0\"))", XCTX, "true");
    check("ip(\"2001:db8::1\").isInRange(ip(\"2001:db8::/33\"))", XCTX, "true");
    check("ip(\"2001:db8:8000::1\").isInRange(ip(\"2001:db8::/33\"))", XCTX,
          "false");
    check("ip(\"1.2.3.4\").isInRange(ip(\"::/0\"))", XCTX, "false");
    check("ip(\"::1\").isInRange(\"::/0\")", XCTX,
          "error: type error: expected ipaddr, got string");
    /* datetime and duration methods (§3.6, §8.1 C25) */
    check("duration(\"1h30m\").toMinutes()", XCTX, "90");
    check("datetime(\"2024-10-15\").offset(duration(\"1h\"))", XCTX,
          "datetime(\"2024-10-15T01:00:00Z\")");
    check("datetime(\"2024-10-14T23:18:00Z\").durationSince(datetime("
          "\"2024-10-15\")) == duration(\"-42m\")", XCTX, "true");
    check("datetime(\"2025-02-20T22:00:00-0500\").toDate()", XCTX,
          "datetime(\"2025-02-21T00:00:00Z\")");
    check("datetime(\"1969-12-31T12:00:00Z\").toDate()", XCTX,
          "datetime(\"1969-12-31T00:00:00Z\")");
    check("datetime(\"1969-12-31T00:00:00Z\").toDate()", XCTX,
          "datetime(\"1969-12-31T00:00:00Z\")");
    check("datetime(\"1969-12-31T12:00:00Z\").toTime() == duration(\"12h\")",
          XCTX, "true");
    check("datetime(\"2024-10-15T11:35:00.042Z\").toTime()", XCTX,
          "duration(\"41700042ms\")");
    check("duration(\"4m70s\").toMinutes()", XCTX, "5");
    check("duration(\"100ms\").toSeconds()", XCTX, "0");
    check("duration(\"-1m59s\").toMinutes()", XCTX, "-1");
    check("duration(\"1d23h59m\").toDays()", XCTX, "1");
    check("duration(\"-1d23h\").toHours()", XCTX, "-47");
    check("duration(\"1s1ms\").toMilliseconds()", XCTX, "1001");
    check("datetime(\"9999-12-31\").offset(duration("
          "\"9223372036854775807ms\"))", XCTX,
          "error: error while evaluating `offset` extension function: "
          "overflows when adding an offset: datetime(\"9999-12-31T00:00:00Z\")"
          "+(9223372036854775807ms)");
    check("datetime(\"9999-12-31\").durationSince(datetime(\"0000-01-01\")"
          ".offset(duration(\"-9223300000000000000ms\")))", XCTX,
          "error: error while evaluating `durationSince` extension function: "
          "overflows when computing the duration between "
          "datetime(\"9999-12-31T00:00:00Z\") and datetime(\"1970-01-01\")"
          ".offset(duration(\"-9223362167219200000ms\"))");
    check("datetime(\"1970-01-01\").offset(duration(\"-9223372036854775808ms\"))"
          ".toDate()", XCTX,
          "error: error while evaluating `toDate` extension function: "
          "overflows when computing the date of datetime(\"1970-01-01\")"
          ".offset(duration(\"-9223372036854775808ms\"))");
    check("datetime(\"2024-10-15\").offset(datetime(\"2024-10-15\"))", XCTX,
          "error: type error: expected duration, got datetime");
    check("duration(\"1h\").toDate()", XCTX,
          "error: type error: expected datetime, got duration");
    check("datetime(\"2024-10-15\").toHours()", XCTX,
          "error: type error: expected duration, got datetime");
    /* The evaluator takes any string; a bad one is an extension error
     * (§3.2), a non-string a type error. */
    check("decimal(context.input.d)", XCTX, "decimal(\"1.5000\")");
    check("datetime(context.input.t)", XCTX,
          "datetime(\"2024-10-15T00:00:00Z\")");
    check("ip(context.input.i).isInRange(ip(\"10.0.0.0/8\"))", XCTX, "true");
    check("duration(context.input.u).toSeconds()", XCTX, "90");
    check("decimal(context.input.t)", XCTX,
          "error: error while evaluating `decimal` extension function: "
          "`2024-10-15` is not a well-formed decimal value");
    check("decimal(context.input.n)", XCTX,
          "error: type error: expected string, got long");
    check("decimal(\"1\")", XCTX,
          "error: error while evaluating `decimal` extension function: `1` is "
          "not a well-formed decimal value");
    check("decimal(\"0.12345\")", XCTX,
          "error: error while evaluating `decimal` extension function: too "
          "many digits after the decimal in `0.12345`");
    check("decimal(\"922337203685477.5808\")", XCTX,
          "error: error while evaluating `decimal` extension function: "
          "overflow when converting to decimal");
    check("ip(\"127.0.0.1/8/24\")", XCTX,
          "error: error while evaluating `ipaddr` extension function: error "
          "parsing prefix: string length 4 is too large");
    check("ip(\"::ffff:1.2.3.4\")", XCTX,
          "error: error while evaluating `ipaddr` extension function: error "
          "parsing IP address from string: We do not accept IPv4 embedded in "
          "IPv6 (e.g., ::ffff:127.0.0.1). Found: `::ffff:1.2.3.4`");
    check("ip(\"1.2.3\")", XCTX,
          "error: error while evaluating `ipaddr` extension function: invalid "
          "IP address: 1.2.3");
    check("datetime(\"2024-02-30\")", XCTX,
          "error: error while evaluating `datetime` extension function: "
          "invalid date: 2024-02-30");
    check("datetime(\"2024-10-15T11:35:00\")", XCTX,
          "error: error while evaluating `datetime` extension function: "
          "invalid millisecond and/or offset pattern");
    check("duration(\"1m1h\")", XCTX,
          "error: error while evaluating `duration` extension function: "
          "invalid duration pattern");
    check("duration(\"9223372036854775808ms\")", XCTX,
          "error: error while evaluating `duration` extension function: "
          "Duration overflows internal representation");
    /* An error propagates; a short-circuit skips it. */
    check("false && decimal(\"1\") == decimal(\"1.0\")", XCTX, "false");
    check("decimal(\"1\") == decimal(\"1.0\")", XCTX,
          "error: error while evaluating `decimal` extension function: `1` is "
          "not a well-formed decimal value");
}

/* §3.8: `is`, the hierarchy, attributes and tags, with and without a
 * store. */
static void
test_entities(void **state)
{
    /* is / is … in */
    check("principal is Box::Agent", CTX, "true");
    check("principal is Agent", CTX, "false");
    check("Drupe::OAuthUser::\"a\" is OAuthUser", CTX, "false");
    check("context.input.a is Box::Agent", CTX,
          "error: type error: expected entity, got long");
    check("principal is Box::Agent in Box::Agent::\"self\"", CTX, "true");
    check("principal is Box::Agent in [Box::Agent::\"x\"]", CTX, "false");
    check("principal is Box::X in context.nope", CTX, "false");
    check("principal is Box::Agent in 1", CTX,
          "error: type error: expected entity or set, got long");
    check("principal is Box::Agent in [1]", CTX,
          "error: type error: expected entity, got long");
    /* Without a store: `in` is reflexive only, no attributes, no tags. */
    check("principal in Box::Team::\"t\"", CTX, "false");
    check("principal.hasTag(\"level\")", CTX, "false");
    check("principal.getTag(\"level\")", CTX,
          "error: entity `Box::Agent::\"self\"` does not exist");
    check("context.input.a.hasTag(\"x\")", CTX,
          "error: type error: expected entity, got long");
    check("principal.hasTag(1)", CTX,
          "error: type error: expected string, got long");
    check("principal.getTag(context.input.e)", CTX,
          "error: type error: expected string, got (entity of type `Box::X`)");
    /* With the §8.0 store (principal alice). */
    const pdp_entities *st = &DRUPE;
    check_in("principal in Drupe::Team::\"traders\"", CTX, st, "true");
    check_in("principal in Drupe::Org::\"acme\"", CTX, st, "true");
    check_in("principal in Drupe::Org::\"loop\"", CTX, st, "true");
    check_in("Drupe::Team::\"traders\" in principal", CTX, st, "false");
    check_in("principal in Drupe::Org::\"nowhere\"", CTX, st, "false");
    check_in("Drupe::Org::\"acme\" in Drupe::Team::\"traders\"", CTX, st,
             "false");
    check_in("principal in [Drupe::Team::\"x\", Drupe::Org::\"acme\"]", CTX,
             st, "true");
    check_in("Drupe::OAuthUser::\"bob\" in Drupe::Team::\"traders\"", CTX, st,
             "false");
    check_in("Drupe::OAuthUser::\"bob\" in Drupe::OAuthUser::\"bob\"", CTX, st,
             "true");
    check_in("Drupe::Gateway::\"gw9\" in Drupe::Gateway::\"gw9\"", CTX, st,
             "true");
    check_in("principal is Drupe::OAuthUser in Drupe::Team::\"traders\"", CTX,
             st, "true");
    check_in("principal.id == \"alice\" && principal has id && !(principal "
             "has name)", CTX, st, "true");
    check_in("Drupe::OAuthUser::\"bob\".name", CTX, st,
             "error: `Drupe::OAuthUser::\"bob\"` does not have the attribute "
             "`name`");
    check_in("Drupe::Team::\"traders\".name", CTX, st,
             "error: `Drupe::Team::\"traders\"` does not have the attribute "
             "`name`");
    check_in("Drupe::Gateway::\"gw1\".name", CTX, st,
             "error: entity `Drupe::Gateway::\"gw1\"` does not exist");
    check_in("Drupe::Gateway::\"gw1\" has name", CTX, st, "false");
    check_in("principal.hasTag(\"level\") && principal.getTag(\"level\") == "
             "\"gold\"", CTX, st, "true");
    check_in("principal.hasTag(\"id\")", CTX, st, "false");
    check_in("principal.getTag(\"id\")", CTX, st,
             "error: `Drupe::OAuthUser::\"alice\"` does not have the tag `id`");
    check_in("Drupe::OAuthUser::\"bob\".hasTag(\"level\")", CTX, st, "false");
    check_in("Drupe::OAuthUser::\"bob\".getTag(\"level\")", CTX, st,
             "error: `Drupe::OAuthUser::\"bob\"` does not have the tag "
             "`level`");
    check_in("Drupe::Gateway::\"gw1\".getTag(\"level\")", CTX, st,
             "error: entity `Drupe::Gateway::\"gw1\"` does not exist");
}

static void
test_like(void **state)
{
    /* §3.7 examples, plus per-character matching of non-ASCII text. */
    check("\"ham and eggs\" like \"ham*\"", CTX, "true");
    check("\"eggs and ham\" like \"*ham\"", CTX, "true");
    check("\"Gotham\" like \"ham*\"", CTX, "false");
    check("\"ham\" like \"*h*a*m*\"", CTX, "true");
    check("\"string*with*stars\" like \"string\\*with\\*stars\"", CTX, "true");
    check("\"\\\\afterslash\" like \"\\\\*\"", CTX, "true");
    check("\"\" like \"\"", CTX, "true");
    check("\"a\" like \"\"", CTX, "false");
    check("\"\" like \"*\"", CTX, "true");
    check("\"a?[\" like \"a?[\"", CTX, "true");
    check("\"abc\" like \"a?c\"", CTX, "false");
    check("\"Aé€😀z\" like \"A*€*z\"", CTX, "true");
    check("\"é\" like \"\\u{e9}\"", CTX, "true");
    check("\"aaa\" like \"a*a*a*a\"", CTX, "false");
    check("\"mississippi\" like \"*sip*\"", CTX, "true");
    check("1 like \"1\"", CTX, "error: type error: expected string, got long");
}

/* ---- §8.1 through the whole decision path (Cedar answer) ---- */

/* "ALLOW [policy_0]" / "DENY []" (+ " errors [policy_1: …]") for
 * principal Drupe::OAuthUser::"<principal>", action
 * Drupe::Action::"<action>" and context ctx, over the §8.0 store. */
static char *
decide_as(const char *policy, const char *principal, const char *action,
          const char *ctx)
{
    pdp_policy_set *set;
    char *err;
    if (pdp_policy_load(policy, strlen(policy), "c.dw", &set, &err) != BOX_OK)
        fail_msg("load: %s", err);
    char *act = box_asprintf("Drupe::Action::\"%s\"", action);
    char *who = box_asprintf("Drupe::OAuthUser::\"%s\"", principal);
    pdp_request rq = trq(A, who, act, "Drupe::Gateway::\"gw1\"", ctx, "gw1");
    rq.rq_entities = &DRUPE;
    box_free(who);
    pdp_answer *ans = pdp_answer_new();
    assert_int_equal(pdp_decide(set, &rq, ans), BOX_OK);
    box_buf b;
    box_buf_init(&b, 1u << 16);
    assert_int_equal(box_buf_puts(&b, pdp_answer_cedar_verdict(ans) == PDP_ALLOW
                                          ? "ALLOW ["
                                          : "DENY ["),
                     BOX_OK);
    for (size_t i = 0; i < pdp_answer_determining_count(ans); i++)
        assert_int_equal(box_buf_printf(&b, "%s%s", i ? ", " : "",
                                        pdp_answer_determining(ans, i)->r_pid.s),
                         BOX_OK);
    assert_int_equal(box_buf_putc(&b, ']'), BOX_OK);
    for (size_t i = 0; i < pdp_answer_error_count(ans); i++)
        assert_int_equal(box_buf_printf(&b, "%s%s: %s", i ? "; " : " errors [",
                                        pdp_answer_error_rule(ans, i)->r_pid.s,
                                        pdp_answer_error_message(ans, i)),
                         BOX_OK);
    if (pdp_answer_error_count(ans) > 0)
        assert_int_equal(box_buf_putc(&b, ']'), BOX_OK);
    /* Box never allows with errors. */
    if (pdp_answer_error_count(ans) > 0)
        assert_int_equal(pdp_answer_verdict(ans), PDP_DENY);
    pdp_answer_free(ans);
    pdp_policy_free(set);
    box_free(act);
    return box_buf_take(&b);
}

static char *
decide(const char *policy, const char *action, const char *ctx)
{
    return decide_as(policy, "alice", action, ctx);
}

typedef struct drupe_case {
    const char *dc_name;
    const char *dc_policy;
    const char *dc_action;
    const char *dc_ctx;
    const char *dc_want;
} drupe_case;

#define SELL(n, s) "{ input: { shares: " #n ", stock: \"" s "\" } }"

static const char C2[] =
    "@id(\"permit-sell-shares\") permit ( principal, action == "
    "Drupe::Action::\"SellShares\", resource );\n"
    "@id(\"forbid-sell-amzn\")   forbid ( principal, action == "
    "Drupe::Action::\"SellShares\", resource )\n"
    "when { context.input.stock == \"AMZN\" };";
static const char C2_SWAPPED[] =
    "@id(\"forbid-sell-amzn\")   forbid ( principal, action == "
    "Drupe::Action::\"SellShares\", resource )\n"
    "when { context.input.stock == \"AMZN\" };\n"
    "@id(\"permit-sell-shares\") permit ( principal, action == "
    "Drupe::Action::\"SellShares\", resource );";
#define SELLP "permit (principal, action == Drupe::Action::\"SellShares\", resource) "
static const char C6[] =
    "permit (principal, action, resource);\n"
    "forbid (principal, action == Drupe::Action::\"SellShares\", resource) when "
    "{ context.input.shares > 100 } unless { context.input.stock == \"AMZN\" };";
static const char C19[] =
    "@id(\"all\") permit (principal, action, resource);\n"
    "forbid (principal, action, resource) when { 9223372036854775807 + 1 > 0 };";
static const char C22[] =
    "permit (principal, action == Drupe::Action::\"GetStockInfo\", resource) "
    "when { [\"VIOLENCE\", \"HATE\"].contains(context.input.stock) || ([1, 2, "
    "3].containsAll([1, 3]) && [1, 2].containsAny([2, 9]) && !([1].isEmpty()) "
    "&& context.input.shares == 7) };";

#define C27 "def cedar is_small(?n) { ?n < 100 };\n" \
    "def cedar semver(?major, ?minor, ?patch) " \
    "{ { major: ?major, minor: ?minor, patch: ?patch } };\n" \
    "def cedar semverGT(?a, ?b) {\n" \
    "    if ?a.major == ?b.major\n" \
    "    then (if ?a.minor == ?b.minor then ?a.patch > ?b.patch " \
    "else ?a.minor > ?b.minor)\n" \
    "    else ?a.major > ?b.major\n" \
    "};\n" \
    "permit (principal, action == Drupe::Action::\"SellShares\", resource) " \
    "when { is_small(context.input.shares) };\n" \
    "permit (principal, action == Drupe::Action::\"GetStockInfo\", " \
    "resource) when { semverGT(semver(2, 1, 1), semver(2, 1, 0)) };"

static const drupe_case drupe[] = {
    {"C1", "permit ( principal, action == Drupe::Action::\"GetStockInfo\", "
           "resource );", "GetStockInfo", SELL(1, "A"), "ALLOW [policy_0]"},
    {"C1", "permit ( principal, action == Drupe::Action::\"GetStockInfo\", "
           "resource );", "SellShares", SELL(1, "A"), "DENY []"},
    {"C2", C2, "SellShares", SELL(5, "AMZN"), "DENY [policy_1]"},
    {"C2", C2, "SellShares", SELL(5, "MSFT"), "ALLOW [policy_0]"},
    {"C2", C2_SWAPPED, "SellShares", SELL(5, "AMZN"), "DENY [policy_0]"},
    {"C2", C2_SWAPPED, "SellShares", SELL(5, "MSFT"), "ALLOW [policy_1]"},
    {"C3", "@id(\"sell_small_only\") " SELLP "when { context.input.shares <= 50 };",
     "SellShares", SELL(50, "A"), "ALLOW [policy_0]"},
    {"C3", "@id(\"sell_small_only\") " SELLP "when { context.input.shares <= 50 };",
     "SellShares", SELL(51, "A"), "DENY []"},
    {"C4", SELLP "when { context.input.shares < 100 } when { context.input.stock "
           "== \"AMZN\" };", "SellShares", SELL(99, "AMZN"), "ALLOW [policy_0]"},
    {"C4", SELLP "when { context.input.shares < 100 } when { context.input.stock "
           "== \"AMZN\" };", "SellShares", SELL(99, "MSFT"), "DENY []"},
    {"C4", SELLP "when { context.input.shares < 100 } when { context.input.stock "
           "== \"AMZN\" };", "SellShares", SELL(100, "AMZN"), "DENY []"},
    {"C5", SELLP "when { context.input.shares <= 1000 } unless { "
           "context.input.stock == \"BLOCKED\" };", "SellShares",
     SELL(10, "BLOCKED"), "DENY []"},
    {"C5", SELLP "when { context.input.shares <= 1000 } unless { "
           "context.input.stock == \"BLOCKED\" };", "SellShares", SELL(10, "X"),
     "ALLOW [policy_0]"},
    {"C5", SELLP "when { context.input.shares <= 1000 } unless { "
           "context.input.stock == \"BLOCKED\" };", "SellShares", SELL(1001, "X"),
     "DENY []"},
    {"C6", C6, "SellShares", SELL(200, "MSFT"), "DENY [policy_1]"},
    {"C6", C6, "SellShares", SELL(200, "AMZN"), "ALLOW [policy_0]"},
    {"C6", C6, "SellShares", SELL(50, "MSFT"), "ALLOW [policy_0]"},
#define C7 SELLP "when { if context.input.stock == \"AMZN\" then " \
    "context.input.shares <= 10 else context.input.shares <= 1000 };"
    {"C7", C7, "SellShares", SELL(10, "AMZN"), "ALLOW [policy_0]"},
    {"C7", C7, "SellShares", SELL(11, "AMZN"), "DENY []"},
    {"C7", C7, "SellShares", SELL(1000, "MSFT"), "ALLOW [policy_0]"},
    {"C7", C7, "SellShares", SELL(1001, "MSFT"), "DENY []"},
#define C8 SELLP "when { context.input.shares <= (if context.input.stock == " \
    "\"AMZN\" then 10 else if context.input.stock == \"MSFT\" then 50 else " \
    "1000) };"
    {"C8", C8, "SellShares", SELL(50, "MSFT"), "ALLOW [policy_0]"},
    {"C8", C8, "SellShares", SELL(51, "MSFT"), "DENY []"},
    {"C8", C8, "SellShares", SELL(1000, "GOOG"), "ALLOW [policy_0]"},
#define C9 "permit (principal, action == Drupe::Action::\"ApproveSale\", " \
    "resource) when { context has output && context.output.approved == true };"
    {"C9", C9, "ApproveSale", SELL(1, "A"), "DENY []"},
    {"C9", C9, "ApproveSale",
     "{ input: { shares: 1, stock: \"A\" }, output: { approved: true } }",
     "ALLOW [policy_0]"},
    {"C9", C9, "ApproveSale",
     "{ input: { shares: 1, stock: \"A\" }, output: { approved: false } }",
     "DENY []"},
#define C11 SELLP "when { (context.input.shares < 100 || context.input.stock " \
    "== \"AMZN\") && !(context.input.stock == \"BLOCKED\") };"
    {"C11", C11, "SellShares", SELL(500, "AMZN"), "ALLOW [policy_0]"},
    {"C11", C11, "SellShares", SELL(5, "BLOCKED"), "DENY []"},
    {"C11", C11, "SellShares", SELL(500, "MSFT"), "DENY []"},
    {"C11", C11, "SellShares", SELL(5, "MSFT"), "ALLOW [policy_0]"},
#define C12 SELLP "when { context.input.shares >= 1 && context.input.shares " \
    "<= 1000 && context.input.shares != 777 };"
    {"C12", C12, "SellShares", SELL(0, "X"), "DENY []"},
    {"C12", C12, "SellShares", SELL(1, "X"), "ALLOW [policy_0]"},
    {"C12", C12, "SellShares", SELL(777, "X"), "DENY []"},
    {"C12", C12, "SellShares", SELL(1000, "X"), "ALLOW [policy_0]"},
    {"C12", C12, "SellShares", SELL(1001, "X"), "DENY []"},
#define C13 SELLP "when { context.input.stock like \"A*\" };"
    {"C13", C13, "SellShares", SELL(1, "AMZN"), "ALLOW [policy_0]"},
    {"C13", C13, "SellShares", SELL(1, "A"), "ALLOW [policy_0]"},
    {"C13", C13, "SellShares", SELL(1, "a"), "DENY []"},
    {"C13", C13, "SellShares", SELL(1, "MA"), "DENY []"},
#define C14 SELLP "when { context.input.stock like \"A\\*B\" };"
#define C14B SELLP "when { context.input.stock like \"*\\**\" };"
    {"C14", C14, "SellShares", SELL(1, "A*B"), "ALLOW [policy_0]"},
    {"C14", C14, "SellShares", SELL(1, "AxB"), "DENY []"},
    {"C14", C14, "SellShares", SELL(1, "A\\\\*B"), "DENY []"},
    {"C14", C14B, "SellShares", SELL(1, "x*y"), "ALLOW [policy_0]"},
    {"C14", C14B, "SellShares", SELL(1, "xy"), "DENY []"},
#define C15 SELLP "unless { context.input.stock like \"TEST_*\" };"
    {"C15", C15, "SellShares", SELL(1, "TEST_1"), "DENY []"},
    {"C15", C15, "SellShares", SELL(1, "TEST_"), "DENY []"},
    {"C15", C15, "SellShares", SELL(1, "TESTX"), "ALLOW [policy_0]"},
#define C18 SELLP "when { context.input.shares * 2 + 1 <= 21 };"
    {"C18", C18, "SellShares", SELL(10, "X"), "ALLOW [policy_0]"},
    {"C18", C18, "SellShares", SELL(11, "X"), "DENY []"},
    {"C18", C18, "SellShares", SELL(-5, "X"), "ALLOW [policy_0]"},
    {"C19", C19, "SellShares", SELL(1, "X"),
     "ALLOW [policy_0] errors [policy_1: integer overflow while attempting to "
     "add the values `9223372036854775807` and `1`]"},
#define C20 "permit (principal, action in [Drupe::Action::\"SellShares\", " \
    "Drupe::Action::\"ApproveSale\"], resource);"
#define C20B "permit (principal, action in Drupe::Action::\"SellShares\", " \
    "resource);"
    {"C20", C20, "ApproveSale", SELL(1, "X"), "ALLOW [policy_0]"},
    {"C20", C20, "SellShares", SELL(1, "X"), "ALLOW [policy_0]"},
    {"C20", C20, "GetStockInfo", SELL(1, "X"), "DENY []"},
    {"C20", C20B, "SellShares", SELL(1, "X"), "ALLOW [policy_0]"},
    {"C20", C20B, "ApproveSale", SELL(1, "X"), "DENY []"},
    {"C22", C22, "GetStockInfo", SELL(1, "HATE"), "ALLOW [policy_0]"},
    {"C22", C22, "GetStockInfo", SELL(7, "X"), "ALLOW [policy_0]"},
    {"C22", C22, "GetStockInfo", SELL(8, "X"), "DENY []"},
    {"C26", "permit (principal, action, resource) when { { label: \"review\", "
            "count: 3, if: true } has if && { a: { b: 1 } } has a.b && !({ a: "
            "{} } has a.b) && { label: \"x\" }[\"label\"] == \"x\" };",
     "SellShares", SELL(1, "X"), "ALLOW [policy_0]"},
    /* §1.3: an erroring forbid does not deny; the permit still allows. */
    {"1.3", "permit (principal, action, resource);\n"
            "forbid (principal, action, resource) when { "
            "context.input.missing == 1 };",
     "SellShares", SELL(1, "X"),
     "ALLOW [policy_0] errors [policy_1: record does not have the attribute "
     "`missing`]"},
    /* C21's reflexive `in` on an entity without a hierarchy. */
    {"C21", "permit (principal in Drupe::OAuthUser::\"alice\", action, "
            "resource) when { principal in Drupe::OAuthUser::\"alice\" };",
     "SellShares", SELL(1, "X"), "ALLOW [policy_0]"},
    {"scope", "permit (principal == Drupe::OAuthUser::\"bob\", action, "
              "resource);", "SellShares", SELL(1, "X"), "DENY []"},
    {"scope", "permit (principal, action, resource == Drupe::Gateway::\"gw1\");",
     "SellShares", SELL(1, "X"), "ALLOW [policy_0]"},
    {"scope", "permit (principal, action, resource in Drupe::Gateway::\"gw2\");",
     "SellShares", SELL(1, "X"), "DENY []"},
    /* A non-Bool condition is an error. */
    {"nonbool", "permit (principal, action, resource) when { 1 };", "SellShares",
     SELL(1, "X"), "DENY [] errors [policy_0: type error: expected bool, got "
                   "long]"},
    /* `def cedar` macros, expanded at load (the definitions do not count
     * as rules: the two rules are policy_0 and policy_1). */
    {"C27", C27, "SellShares", SELL(99, "X"), "ALLOW [policy_0]"},
    {"C27", C27, "SellShares", SELL(100, "X"), "DENY []"},
    {"C27", C27, "GetStockInfo", SELL(1, "X"), "ALLOW [policy_1]"},
    /* An argument is one operand, whatever its own precedence. */
    {"C27", "def cedar twice(?n) { ?n * 2 };\n"
            "permit (principal, action, resource) when { "
            "twice(context.input.shares + 1) == 8 };",
     "SellShares", SELL(3, "X"), "ALLOW [policy_0]"},
    /* A policy's own `def` replaces the library's of the same name. */
    {"C27", "def cedar bind(?x) { ?x > 1 };\n"
            "permit (principal, action, resource) when { "
            "bind(context.input.shares) };",
     "SellShares", SELL(3, "X"), "ALLOW [policy_0]"},
};

static void
test_drupe_examples(void **state)
{
    for (size_t i = 0; i < sizeof(drupe) / sizeof(drupe[0]); i++) {
        char *got = decide(drupe[i].dc_policy, drupe[i].dc_action,
                           drupe[i].dc_ctx);
        if (strcmp(got, drupe[i].dc_want) != 0)
            fail_msg("%s (%s %s)\n  got:  %s\n  want: %s", drupe[i].dc_name,
                     drupe[i].dc_action, drupe[i].dc_ctx, got,
                     drupe[i].dc_want);
        box_free(got);
    }
}


/* The §8.1 cases that need the extension types, is and tags, per
 * principal. */
typedef struct drupe_as_case {
    const char *da_name;
    const char *da_policy;
    const char *da_principal;
    const char *da_action;
    const char *da_ctx;
    const char *da_want;
} drupe_as_case;

#define NOW(t) "system: { now: datetime(\"" t "\") }"
#define SELLNOW(n, s, t) "{ input: { shares: " #n ", stock: \"" s "\" }, " \
    NOW(t) " }"
#define OUT(p, a) "{ input: { shares: 1, stock: \"A\" }, output: { " \
    "proceeds: decimal(\"" p "\"), approved: " #a " }, " \
    NOW("2025-06-01T00:00:00Z") " }"
#define NOOUT SELLNOW(1, "A", "2025-06-01T00:00:00Z")

#define C10 "permit (principal, action == Drupe::Action::\"ApproveSale\", " \
    "resource) when { if context has output then context.output.proceeds " \
    "== decimal(\"0.0\") else false };"
#define C16 SELLP "when { context.system.now >= " \
    "datetime(\"2025-01-01T00:00:00Z\") && context.system.now < " \
    "datetime(\"2026-01-01T00:00:00Z\") };"
#define C17 "permit (principal, action == Drupe::Action::\"ApproveSale\", " \
    "resource) when { context has output && " \
    "context.output.proceeds.lessThan(decimal(\"100.0\")) };"
#define C17_LT "permit (principal, action == Drupe::Action::\"ApproveSale\", " \
    "resource) when { context has output && context.output.proceeds < " \
    "decimal(\"100.0\") };"
#define C21 "permit (principal is Drupe::OAuthUser in " \
    "Drupe::Team::\"traders\", action == Drupe::Action::\"GetStockInfo\", " \
    "resource);"
#define C21_COND "permit (principal, action == " \
    "Drupe::Action::\"GetStockInfo\", resource) when { principal is " \
    "Drupe::OAuthUser in Drupe::Team::\"traders\" };"
#define C21_BOB "permit (principal, action, resource) when { principal in " \
    "Drupe::OAuthUser::\"bob\" };"
#define C23 "permit (principal, action, resource) when { " \
    "principal.hasTag(\"level\") && principal.getTag(\"level\") == \"gold\" };"
#define C23_BARE "permit (principal, action, resource) when { " \
    "principal.getTag(\"level\") == \"gold\" };"
#define C24 "permit (principal, action, resource) when { " \
    "ip(\"192.168.1.5\").isInRange(ip(\"192.168.0.0/16\")) && " \
    "ip(\"127.0.0.2\").isLoopback() && !(ip(\"192.168.0.1/24\") == " \
    "ip(\"192.168.0.8/24\")) && ip(\"ff00::2\").isMulticast() && " \
    "ip(\"::1\").isIpv6() };"
#define C24_NOT "permit (principal, action, resource) when { " \
    "ip(\"192.168.0.75\").isInRange(ip(\"192.168.0.1/28\")) };"
#define C24_BAD "permit (principal, action, resource) when { " \
    "ip(\"127.0.0.1/8/24\").isLoopback() };"
#define C25 "permit (principal, action, resource) when { " \
    "duration(\"1h30m\").toMinutes() == 90 && " \
    "datetime(\"2024-10-15\").offset(duration(\"1h\")) == " \
    "datetime(\"2024-10-15T01:00:00Z\") && " \
    "datetime(\"2024-10-14T23:18:00Z\").durationSince(" \
    "datetime(\"2024-10-15\")) == duration(\"-42m\") && " \
    "datetime(\"2025-02-20T22:00:00-0500\").toDate() == " \
    "datetime(\"2025-02-21\") && duration(\"4m70s\").toMinutes() == 5 && " \
    "duration(\"100ms\").toSeconds() == 0 };"

static const drupe_as_case drupe_as[] = {
    {"C9", C9, "alice", "ApproveSale", OUT("1.0", true), "ALLOW [policy_0]"},
    {"C9", C9, "alice", "ApproveSale", OUT("1.0", false), "DENY []"},
    {"C10", C10, "alice", "ApproveSale", OUT("0.00", true), "ALLOW [policy_0]"},
    {"C10", C10, "alice", "ApproveSale", OUT("0.1", true), "DENY []"},
    {"C10", C10, "alice", "ApproveSale", NOOUT, "DENY []"},
    {"C16", C16, "alice", "SellShares", SELLNOW(1, "A", "2025-06-01T00:00:00Z"),
     "ALLOW [policy_0]"},
    {"C16", C16, "alice", "SellShares", SELLNOW(1, "A", "2026-01-01T00:00:00Z"),
     "DENY []"},
    {"C16", C16, "alice", "SellShares", SELLNOW(1, "A", "2024-12-31T23:59:59Z"),
     "DENY []"},
    {"C16", C16, "alice", "SellShares",
     SELLNOW(1, "A", "2025-01-01T01:00:00+0100"), "ALLOW [policy_0]"},
    {"C17", C17, "alice", "ApproveSale", OUT("99.9999", true),
     "ALLOW [policy_0]"},
    {"C17", C17, "alice", "ApproveSale", OUT("100.0", true), "DENY []"},
    {"C17", C17_LT, "alice", "ApproveSale", OUT("99.0", true),
     "DENY [] errors [policy_0: type error: expected long, got decimal]"},
    {"C21", C21, "alice", "GetStockInfo", NOOUT, "ALLOW [policy_0]"},
    {"C21", C21, "bob", "GetStockInfo", NOOUT, "DENY []"},
    {"C21", C21_COND, "alice", "GetStockInfo", NOOUT, "ALLOW [policy_0]"},
    {"C21", C21_COND, "bob", "GetStockInfo", NOOUT, "DENY []"},
    {"C21", C21_BOB, "bob", "GetStockInfo", NOOUT, "ALLOW [policy_0]"},
    {"C21", C21_BOB, "alice", "GetStockInfo", NOOUT, "DENY []"},
    {"C23", C23, "alice", "GetStockInfo", NOOUT, "ALLOW [policy_0]"},
    {"C23", C23, "bob", "GetStockInfo", NOOUT, "DENY []"},
    {"C23", C23_BARE, "alice", "GetStockInfo", NOOUT, "ALLOW [policy_0]"},
    {"C23", C23_BARE, "bob", "GetStockInfo", NOOUT,
     "DENY [] errors [policy_0: `Drupe::OAuthUser::\"bob\"` does not have the "
     "tag `level`]"},
    {"C24", C24, "alice", "GetStockInfo", NOOUT, "ALLOW [policy_0]"},
    {"C24", C24_NOT, "alice", "GetStockInfo", NOOUT, "DENY []"},
    {"C24", C24_BAD, "alice", "GetStockInfo", NOOUT,
     "DENY [] errors [policy_0: error while evaluating `ipaddr` extension "
     "function: error parsing prefix: string length 4 is too large]"},
    {"C25", C25, "bob", "Login", "{ input: { user: \"bob\" } }",
     "ALLOW [policy_0]"},
};

static void
test_drupe_extension_examples(void **state)
{
    for (size_t i = 0; i < sizeof(drupe_as) / sizeof(drupe_as[0]); i++) {
        const drupe_as_case *c = &drupe_as[i];
        char *got = decide_as(c->da_policy, c->da_principal, c->da_action,
                              c->da_ctx);
        if (strcmp(got, c->da_want) != 0)
            fail_msg("%s (%s %s %s)\n  got:  %s\n  want: %s", c->da_name,
                     c->da_principal, c->da_action, c->da_ctx, got, c->da_want);
        box_free(got);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_and_errors),
        cmocka_unit_test(test_like),
        cmocka_unit_test(test_sets),
        cmocka_unit_test(test_extensions),
        cmocka_unit_test(test_entities),
        cmocka_unit_test(test_drupe_examples),
        cmocka_unit_test(test_drupe_extension_examples),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
