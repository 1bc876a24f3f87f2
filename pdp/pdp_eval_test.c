/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_eval: Cedar semantics of the subset and the §8.1 examples
 * (Drupe world, requests built directly as value trees). */
#include "pdp_test_util.h"

#include "pdp_decide.h"
#include "pdp_policy.h"

static box_arena *A;

static int
setup(void **state)
{
    A = box_arena_new(256u << 20);
    return A == NULL;
}

static int
teardown(void **state)
{
    box_arena_free(A);
    return 0;
}

/* Evaluates expr with context ctx; "value" or "error: message". */
static char *
ev(const char *expr, const char *ctx)
{
    char *src = box_asprintf("permit(principal, action, resource) when { %s };",
                             expr);
    box_buf b;
    box_buf_init(&b, 1u << 20);
    const pdp_ast *ast;
    if (pdp_parse(src, strlen(src), "e.dw", A, &ast, &b) != BOX_OK)
        fail_msg("%s: %s", expr, b.b_data);
    pdp_request rq = trq(A, "Box::Agent::\"self\"", "Box::Action::\"fs:read\"",
                         "Box::Resource::\"unused\"", ctx, "");
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
check(const char *expr, const char *ctx, const char *want)
{
    char *got = ev(expr, ctx);
    if (strcmp(got, want) != 0)
        fail_msg("%s\n  got:  %s\n  want: %s", expr, got, want);
    box_free(got);
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

/* "ALLOW [policy_0]" / "DENY []" (+ " errors [policy_1: …]") for action
 * Drupe::Action::"<action>" with context ctx. */
static char *
decide(const char *policy, const char *action, const char *ctx)
{
    pdp_policy_set *set;
    char *err;
    if (pdp_policy_load(policy, strlen(policy), "c.dw", &set, &err) != BOX_OK)
        fail_msg("load: %s", err);
    char *act = box_asprintf("Drupe::Action::\"%s\"", action);
    pdp_request rq = trq(A, "Drupe::OAuthUser::\"alice\"", act,
                         "Drupe::Gateway::\"gw1\"", ctx, "gw1");
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

static void
test_unsupported_examples_refuse(void **state)
{
    /* C27 needs macros, outside this subset: it must refuse to load. */
    static const char *const refused[] = {
        "def cedar is_small(?n) { ?n < 100 };",
    };
    for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
        pdp_policy_set *set;
        char *err;
        assert_int_equal(pdp_policy_load(refused[i], strlen(refused[i]), "c.dw",
                                         &set, &err),
                         BOX_ENOTSUP);
        assert_non_null(strstr(err, "is not supported yet"));
        box_free(err);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_and_errors),
        cmocka_unit_test(test_like),
        cmocka_unit_test(test_drupe_examples),
        cmocka_unit_test(test_unsupported_examples_refuse),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
