/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_parse: every construct, every error text and position,
 * refusals of unsupported constructs, caps, and the conformance fixtures. */
#include "pdp_test_util.h"

#include <dirent.h>

#include "pdp_tl.h"

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

/* Parses src; returns the code and, in *msg (box_free), the error or the
 * dump of every rule joined with "\n". */
static box_err
parse(const char *src, size_t len, char **msg)
{
    box_buf err;
    box_buf_init(&err, 1u << 24);
    const pdp_ast *ast;
    box_err rv = pdp_parse(src, len, "f.dw", A, &ast, &err);
    if (rv == BOX_OK) {
        for (uint32_t i = 0; i < ast->as_nrules; i++) {
            if (i > 0)
                assert_int_equal(box_buf_putc(&err, '\n'), BOX_OK);
            if (pdp_rule_dump(ast->as_rules[i], &err) != BOX_OK)
                fail_msg("rule %u does not dump: [%s]", i,
                         err.b_data ? err.b_data : "");
        }
    }
    *msg = box_buf_take(&err);
    return rv;
}

static void
check_rule(const char *src, const char *want)
{
    char *got;
    box_err rv = parse(src, strlen(src), &got);
    if (rv != BOX_OK)
        fail_msg("%s\n  -> %s", src, got);
    if (want != NULL && strcmp(got, want) != 0)
        fail_msg("%s\n  got:  %s\n  want: %s", src, got, want);
    box_free(got);
}

/* The dump of the condition of `permit(...) when { expr };`. */
static void
check_expr(const char *expr, const char *want)
{
    char *src = box_asprintf("permit(principal, action, resource) when { %s };",
                             expr);
    char *full = box_asprintf("permit (principal, action, resource) when %s;",
                              want);
    check_rule(src, full);
    box_free(src);
    box_free(full);
}

static void
check_error(const char *src, box_err code, const char *want)
{
    char *got;
    box_err rv = parse(src, strlen(src), &got);
    if (rv != code || strcmp(got, want) != 0)
        fail_msg("%s\n  got:  [%s] %s\n  want: [%s] %s", src, box_strerror(rv),
                 got, box_strerror(code), want);
    box_free(got);
}

/* An error inside `permit(principal, action, resource) when { expr };`:
 * the expression starts at column 44. */
static void
check_expr_error(const char *expr, box_err code, const char *want)
{
    char *src = box_asprintf("permit(principal, action, resource) when { %s };",
                             expr);
    check_error(src, code, want);
    box_free(src);
}

static void
test_policies_and_scope(void **state)
{
    check_rule("permit(principal, action, resource);",
               "permit (principal, action, resource);");
    check_rule("permit ( );", "permit (principal, action, resource);");
    check_rule("forbid(resource, principal,);",
               "forbid (principal, action, resource);");
    check_rule("@id(\"a\") @description(\"d\\n\") @reviewed\n"
               "permit(principal == Box::Agent::\"self\", "
               "action == Box::Action::\"fs:read\", "
               "resource in Box::Resource::\"unused\");",
               "@id(\"a\") @description(\"d\\n\") @reviewed permit (principal "
               "== Box::Agent::\"self\", action == Box::Action::\"fs:read\", "
               "resource in Box::Resource::\"unused\");");
    check_rule("permit(principal, action in [Box::Action::\"fs:read\", "
               "Box::Action::\"fs:write\",], resource);",
               "permit (principal, action in [Box::Action::\"fs:read\", "
               "Box::Action::\"fs:write\"], resource);");
    check_rule("permit(principal, action in Drupe::Action::\"X\", resource);",
               "permit (principal, action in Drupe::Action::\"X\", resource);");
    check_rule("permit(principal, action, resource) when { true } unless "
               "{ false } when { 1 == 1 };",
               "permit (principal, action, resource) when true unless false "
               "when (== 1 1);");
    /* Contextual keywords are ordinary identifiers elsewhere. */
    check_expr("context.input.when && context.permit.temporal.def",
               "(&& (. (. context \"input\") \"when\") (. (. (. context "
               "\"permit\") \"temporal\") \"def\"))");
    /* Rule ids are positional. */
    const pdp_ast *ast;
    box_buf err;
    box_buf_init(&err, 4096);
    const char *two = "permit(principal,action,resource);\n"
                      "  forbid(principal,action,resource);";
    assert_int_equal(pdp_parse(two, strlen(two), "f.dw", A, &ast, &err), BOX_OK);
    assert_int_equal(ast->as_nrules, 2);
    assert_string_equal(ast->as_rules[1]->r_pid.s, "policy_1");
    assert_int_equal(ast->as_rules[1]->r_index, 1);
    assert_int_equal(ast->as_rules[1]->r_pos.line, 2);
    assert_int_equal(ast->as_rules[1]->r_pos.col, 3);
    assert_int_equal(ast->as_rules[1]->r_effect, PDP_FORBID);
    box_buf_reset(&err);
    /* An empty file is an empty policy set. */
    assert_int_equal(pdp_parse("// nothing\n", 11, "f.dw", A, &ast, &err),
                     BOX_OK);
    assert_int_equal(ast->as_nrules, 0);
    box_buf_reset(&err);
}

static void
test_expressions(void **state)
{
    check_expr("context.input.shares <= 50",
               "(<= (. (. context \"input\") \"shares\") 50)");
    check_expr("true && false && true || false",
               "(|| (&& true false true) false)");
    check_expr("1 + 2 * 3 - 4 * -5", "(- (+ 1 (* 2 3)) (* 4 -5))");
    check_expr("-(5) == --5 && !!true",
               "(&& (== (neg 5) (neg -5)) (! (! true)))");
    check_expr("-9223372036854775808 < 9223372036854775807",
               "(< -9223372036854775808 9223372036854775807)");
    check_expr("1 != 2 && 1 > 2 && 1 >= 2 && 1 < 2",
               "(&& (!= 1 2) (> 1 2) (>= 1 2) (< 1 2))");
    check_expr("if context has output then context.output.approved == true "
               "else false",
               "(if (has context \"output\") (== (. (. context \"output\") "
               "\"approved\") true) false)");
    check_expr("1 <= (if a::\"x\" in [a::\"x\"] then 10 else if true then 50 "
               "else 1000)",
               "(<= 1 (if (in a::\"x\" (set a::\"x\")) 10 (if true 50 1000)))");
    check_expr("context.input.stock like \"A\\*B*\"",
               "(like (. (. context \"input\") \"stock\") \"A\\*B*\")");
    check_expr("context has a.b.c && context has \"x y\" && {if: 1} has if",
               "(&& (has context \"a\" \"b\" \"c\") (has context \"x y\") "
               "(has (record \"if\" 1) \"if\"))");
    check_expr("context[\"a b\"][\"c\"].d == \"\\u{e9}\"",
               "(== (. ([] ([] context \"a b\") \"c\") \"d\") \"é\")");
    check_expr("[1, \"a\", [],] == {a: 1, \"b c\": principal, if: 3,}",
               "(== (set 1 \"a\" (set)) (record \"a\" 1 \"b c\" principal "
               "\"if\" 3))");
    check_expr("[1].contains(1) && [1].containsAll([]) && "
               "[1].containsAny([2]) && ![].isEmpty()",
               "(&& (.contains (set 1) 1) (.containsAll (set 1) (set)) "
               "(.containsAny (set 1) (set 2)) (! (.isEmpty (set))))");
    check_expr("principal in Box::Agent::\"self\" && action in "
               "[Box::Action::\"a\"] && resource == resource",
               "(&& (in principal Box::Agent::\"self\") (in action (set "
               "Box::Action::\"a\")) (== resource resource))");
    check_expr("(1 == 2) == false", "(== (== 1 2) false)");
    check_expr("Box::FsWriteOperation::\"write_content\" == "
               "context.input.operation",
               "(== Box::FsWriteOperation::\"write_content\" (. (. context "
               "\"input\") \"operation\"))");
    check_expr("A :: B :: \"x\" == A::B::\"x\"", "(== A::B::\"x\" A::B::\"x\")");
}

static void
test_constants_are_folded(void **state)
{
    const pdp_ast *ast;
    box_buf err;
    box_buf_init(&err, 4096);
    const char *src = "permit(principal,action,resource) when "
                      "{ [1, [2], {a: \"x\"}] == [context] };";
    assert_int_equal(pdp_parse(src, strlen(src), "f.dw", A, &ast, &err), BOX_OK);
    const pdp_expr *eq = ast->as_rules[0]->r_conds[0].cd_body;
    assert_int_equal(eq->x_kind, PDP_X_EQ);
    assert_non_null(eq->u.bin.l->x_const);
    assert_int_equal(pdp_value_count(eq->u.bin.l->x_const), 3);
    assert_null(eq->u.bin.r->x_const);
    assert_int_equal(eq->x_oppos.col, 61);
    assert_int_equal(eq->x_pos.col, 42);
    box_buf_reset(&err);
}

static void
test_errors(void **state)
{
    /* Scope (§2.2). */
    check_error("permit (principal, principal, resource);", BOX_EPARSE,
                "f.dw:1:20: duplicate `principal` in scope");
    check_error("permit (principal, action, resource, context);", BOX_EPARSE,
                "f.dw:1:38: this policy has an extra element in the scope: "
                "`context`");
    check_error("permit (principal, action, context);", BOX_EPARSE,
                "f.dw:1:28: unexpected scope variable `context`; expected "
                "`principal`, `action`, or `resource`");
    check_error("permit (principal : Drupe::OAuthUser, action, resource);",
                BOX_EPARSE,
                "f.dw:1:19: the `principal : Type` scope form is not "
                "supported; use `principal is Type`");
    check_error("permit (principal, action is Drupe::Action, resource);",
                BOX_EPARSE,
                "f.dw:1:27: `action is Type` is not valid in the action scope");
    check_error("permit (principal = A::\"x\", action, resource);", BOX_EPARSE,
                "f.dw:1:19: `=` is not a valid operator in this scope; did you "
                "mean `==`?");
    check_error("permit (principal != A::\"x\", action, resource);", BOX_EPARSE,
                "f.dw:1:19: scope only allows `==` or `in`, found `!=`");
    check_error("permit (principal == \"x\", action, resource);", BOX_EPARSE,
                "f.dw:1:22: expected an entity reference (`Ns::Type::\"id\"`) "
                "or a template slot (`?principal`)");
    check_error("permit (principal, action, resource in [A::\"x\"]);",
                BOX_EPARSE,
                "f.dw:1:40: expected an entity reference (`Ns::Type::\"id\"`) "
                "or a template slot (`?resource`)");
    check_error("permit (principal, action == Box::Agent::\"x\", resource);",
                BOX_EPARSE,
                "f.dw:1:30: action scope expects an action reference "
                "(`Ns::Action::\"id\"`)");
    check_error("permit (principal, action in [Box::Action::\"a\", 1], "
                "resource);",
                BOX_EPARSE,
                "f.dw:1:49: action scope expects an action reference "
                "(`Ns::Action::\"id\"`)");
    check_error("permit (principal == ?principal, action, resource);",
                BOX_EPARSE,
                "f.dw:1:22: policy is not static: the template slot "
                "`?principal` is not filled");
    check_error("allow (principal, action, resource);", BOX_EPARSE,
                "f.dw:1:1: policy effect must be `permit` or `forbid`, found "
                "`allow`");
    check_error("permit (principal, action, resource) whenever { true };",
                BOX_EPARSE,
                "f.dw:1:38: condition keyword must be `when` or `unless`, "
                "found `whenever`");
    check_error("@id(\"a\") @id(\"b\") permit (principal, action, resource);",
                BOX_EPARSE, "f.dw:1:10: duplicate annotation: @id");
    /* Punctuation, with the Lua-style "to close" note. */
    check_error("permit (principal, action, resource;", BOX_EPARSE,
                "f.dw:1:36: expected `)` (to close `(` at line 1), found `;`");
    check_error("permit (principal, action, resource)\nwhen { true ;", BOX_EPARSE,
                "f.dw:2:13: expected `}` (to close `{` at line 2), found `;`");
    check_error("permit (principal, action, resource)", BOX_EPARSE,
                "f.dw:1:37: expected `when`, `unless` or `;`, found end of "
                "file");
    check_error("permit (principal, action, resource) when true;", BOX_EPARSE,
                "f.dw:1:43: expected `{` to open the condition, found `true`");
    check_error("permit principal;", BOX_EPARSE,
                "f.dw:1:8: expected `(` to open the policy scope, found "
                "`principal`");
    check_error("@id(42) permit (principal, action, resource);", BOX_EPARSE,
                "f.dw:1:5: expected a string literal as the annotation value, "
                "found `42`");
    check_error("; permit (principal, action, resource);", BOX_EPARSE,
                "f.dw:1:1: expected `permit` or `forbid`, found `;`");
    /* Expressions (§2.3, §8.1 C28). */
    check_expr_error("context.input.shares = 5", BOX_EPARSE,
                     "f.dw:1:65: `=` is not a valid operator in this scope; "
                     "did you mean `==`?");
    check_expr_error("context.input.shares / 2 == 1", BOX_EPARSE,
                     "f.dw:1:65: `/` is not a supported operator");
    check_expr_error("context.input.shares % 2 == 1", BOX_EPARSE,
                     "f.dw:1:65: `%` is not a supported operator");
    check_expr_error("context.input.shares == 9223372036854775808", BOX_EPARSE,
                     "f.dw:1:68: integer literal `9223372036854775808` is out "
                     "of range");
    check_expr_error("-9223372036854775809 < 0", BOX_EPARSE,
                     "f.dw:1:45: integer literal `9223372036854775809` is out "
                     "of range");
    check_expr_error("99999999999999999999999 < 0", BOX_EPARSE,
                     "f.dw:1:44: integer literal `99999999999999999999999` is "
                     "out of range");
    check_expr_error("principal == Drupe::OAuthUser::{ id: \"a\" }", BOX_EPARSE,
                     "f.dw:1:75: entity initializer syntax `Type::{ … }` is not "
                     "supported");
    check_expr_error("foo == 1", BOX_EPARSE,
                     "f.dw:1:44: `foo` is not a valid variable; the valid "
                     "variables are `principal`, `action`, `resource`, and "
                     "`context`");
    check_expr_error("!-context.input.shares", BOX_EPARSE,
                     "f.dw:1:45: unexpected `-` after `!`: a run of unary "
                     "operators uses one symbol; use parentheses");
    check_expr_error("!!!!!true", BOX_EPARSE,
                     "f.dw:1:48: too many occurrences of `!`");
    check_expr_error("-----1 == 1", BOX_EPARSE,
                     "f.dw:1:48: too many occurrences of `-`");
    check_expr_error("context.input[\"sha\" + \"res\"] == 1", BOX_EPARSE,
                     "f.dw:1:58: index access requires a string-literal key, "
                     "e.g. `record[\"field\"]`");
    check_expr_error("context.input[shares] == 1", BOX_EPARSE,
                     "f.dw:1:58: index access requires a string-literal key, "
                     "e.g. `record[\"field\"]`");
    check_expr_error("context.input.stock.size() == 1", BOX_EPARSE,
                     "f.dw:1:64: unknown method `size`");
    check_expr_error("[].isEmpty(1)", BOX_EPARSE,
                     "f.dw:1:47: `isEmpty` takes no arguments, got 1");
    check_expr_error("[].contains()", BOX_EPARSE,
                     "f.dw:1:47: `contains` takes exactly one argument, got 0");
    check_expr_error("[].contains(1, 2)", BOX_EPARSE,
                     "f.dw:1:47: `contains` takes exactly one argument, got 2");
    check_expr_error("1 < 2 < 3", BOX_EPARSE,
                     "f.dw:1:50: multiple relational operators (>, ==, in, "
                     "etc.) must be used with parentheses to make ordering "
                     "explicit");
    check_expr_error("1 == 2 == true", BOX_EPARSE,
                     "f.dw:1:51: multiple relational operators (>, ==, in, "
                     "etc.) must be used with parentheses to make ordering "
                     "explicit");
    check_expr_error("context has a == true", BOX_EPARSE,
                     "f.dw:1:58: multiple relational operators (>, ==, in, "
                     "etc.) must be used with parentheses to make ordering "
                     "explicit");
    check_expr_error("context.x like context.y", BOX_EPARSE,
                     "f.dw:1:59: right hand side of a `like` expression must "
                     "be a pattern literal, but got `context.y`");
    /* Cedar reads the right side of like / has / is as a whole additive
     * expression: an operator after it is refused, not applied to the
     * relation's Bool (found by tests/cedar_diff). */
    check_expr_error("context.x like \"a\" + \"b\"", BOX_EPARSE,
                     "f.dw:1:59: right hand side of a `like` expression must "
                     "be a pattern literal, but got `\"a\" + \"b\"`");
    check_expr_error("context has a - 1 == 0", BOX_EPARSE,
                     "f.dw:1:56: invalid RHS of a `has` operation: a - 1");
    check_expr_error("context has a.b * 2 * 3", BOX_EPARSE,
                     "f.dw:1:56: invalid RHS of a `has` operation: a.b * 2 * "
                     "3");
    check_expr_error("principal is A::B + 1", BOX_EPARSE,
                     "f.dw:1:57: right hand side of an `is` expression must "
                     "be an entity type, but got `A::B + 1`");
    check_expr("principal is A in B::\"b\" + 1",
               "(is principal A in (+ B::\"b\" 1))");
    check_expr_error("context.if == 1", BOX_EPARSE,
                     "f.dw:1:52: this identifier is reserved and cannot be "
                     "used: if");
    check_expr_error("{true: 1} == context", BOX_EPARSE,
                     "f.dw:1:45: this identifier is reserved and cannot be "
                     "used: true");
    check_expr_error("context has in", BOX_EPARSE,
                     "f.dw:1:56: this identifier is reserved and cannot be "
                     "used: in");
    check_expr_error("Ns::like::\"x\" == 1", BOX_EPARSE,
                     "f.dw:1:48: this identifier is reserved and cannot be "
                     "used: like");
    check_expr_error("{a: 1, a: 2} == context", BOX_EPARSE,
                     "f.dw:1:51: duplicate key `a` in record literal");
    check_expr_error("context(1)", BOX_EPARSE,
                     "f.dw:1:44: unknown function or macro `context` (not a "
                     "Cedar built-in and not a declared macro)");
    check_expr_error("\"a\"(1)", BOX_EPARSE,
                     "f.dw:1:47: unexpected call: only extension functions and "
                     "methods can be called");
    check_expr_error("1 == if true then 1 else 2", BOX_EPARSE,
                     "f.dw:1:49: an `if … then … else …` used as an operand "
                     "must be parenthesized");
    check_expr_error("if true 1 else 2", BOX_EPARSE,
                     "f.dw:1:52: expected `then` (for `if` at line 1), found "
                     "`1`");
    check_expr_error("if true then 1 2", BOX_EPARSE,
                     "f.dw:1:59: expected `else` (for `if` at line 1), found "
                     "`2`");
    check_expr_error("(1 == 1", BOX_EPARSE,
                     "f.dw:1:52: expected `)` (to close `(` at line 1), found "
                     "`}`");
    check_expr_error("[1, 2", BOX_EPARSE,
                     "f.dw:1:50: expected `]` (to close `[` at line 1), found "
                     "`}`");
    check_expr_error("Foo::Bar == 1", BOX_EPARSE,
                     "f.dw:1:44: `Foo::Bar` is not a valid expression; an "
                     "entity is written `Foo::Bar::\"id\"`");
    check_expr_error("?x == 1", BOX_EPARSE,
                     "f.dw:1:44: stray macro parameter reference `?x` outside "
                     "a macro body");
    check_expr_error("$t == 1", BOX_EPARSE,
                     "f.dw:1:44: stray macro binder reference `$t`");
    check_expr_error("context == \"a\\qb\"", BOX_EPARSE,
                     "f.dw:1:57: the input `\\q` is not a valid escape");
    check_expr_error("context.x like \"a\\qb\"", BOX_EPARSE,
                     "f.dw:1:61: the input `\\q` is not a valid escape");
    check_expr_error("", BOX_EPARSE,
                     "f.dw:1:45: expected an expression, found `}`");
}


static void
test_extensions_is_and_tags(void **state)
{
    /* Extension constructors (§2.3 "Calls") and every method of §3.6. */
    check_expr("decimal(\"1.0\") == decimal(\"1.00\")",
               "(== (decimal \"1.0\") (decimal \"1.00\"))");
    check_expr("decimal(\"1.0\").lessThan(decimal(\"2.0\")) && "
               "decimal(\"1.0\").lessThanOrEqual(decimal(\"2.0\")) && "
               "decimal(\"1.0\").greaterThan(decimal(\"2.0\")) && "
               "decimal(\"1.0\").greaterThanOrEqual(decimal(\"2.0\"))",
               "(&& (.lessThan (decimal \"1.0\") (decimal \"2.0\")) "
               "(.lessThanOrEqual (decimal \"1.0\") (decimal \"2.0\")) "
               "(.greaterThan (decimal \"1.0\") (decimal \"2.0\")) "
               "(.greaterThanOrEqual (decimal \"1.0\") (decimal \"2.0\")))");
    check_expr("ip(\"::1\").isIpv4() || ip(\"::1\").isIpv6() || "
               "ip(\"::1\").isLoopback() || ip(\"::1\").isMulticast() || "
               "ip(\"::1\").isInRange(ip(\"::/0\"))",
               "(|| (.isIpv4 (ip \"::1\")) (.isIpv6 (ip \"::1\")) "
               "(.isLoopback (ip \"::1\")) (.isMulticast (ip \"::1\")) "
               "(.isInRange (ip \"::1\") (ip \"::/0\")))");
    check_expr("context.d.offset(duration(\"1h\")).toDate() < "
               "context.d.durationSince(context.d).toTime().toDays() + "
               "context.u.toMilliseconds() + context.u.toSeconds() + "
               "context.u.toMinutes() + context.u.toHours()",
               "(< (.toDate (.offset (. context \"d\") (duration \"1h\"))) "
               "(+ (+ (+ (+ (.toDays (.toTime (.durationSince (. context "
               "\"d\") (. context \"d\")))) (.toMilliseconds (. context "
               "\"u\"))) (.toSeconds (. context \"u\"))) (.toMinutes (. "
               "context \"u\"))) (.toHours (. context \"u\"))))");
    check_expr("datetime(context.s) == datetime(\"2024-10-15\")",
               "(== (datetime (. context \"s\")) (datetime \"2024-10-15\"))");
    /* Tags (§3.8). */
    check_expr("principal.hasTag(\"level\") && principal.getTag(\"level\") "
               "== \"gold\"",
               "(&& (.hasTag principal \"level\") (== (.getTag principal "
               "\"level\") \"gold\"))");
    /* `is` / `is … in` (§2.3 rel, §3.8). */
    check_expr("principal is Drupe::OAuthUser",
               "(is principal Drupe::OAuthUser)");
    check_expr("principal is Drupe::OAuthUser in Drupe::Team::\"traders\"",
               "(is principal Drupe::OAuthUser in Drupe::Team::\"traders\")");
    check_expr("resource is A::B in [A::G::\"x\", principal] && true",
               "(&& (is resource A::B in (set A::G::\"x\" principal)) true)");
    check_expr("principal is User in A::G::\"x\" || 1 + 1 == 2",
               "(|| (is principal User in A::G::\"x\") (== (+ 1 1) 2))");
    check_expr("(principal is A) == true", "(== (is principal A) true)");
    /* Scope forms (§2.2). */
    check_rule("permit (principal is Drupe::OAuthUser in "
               "Drupe::Team::\"traders\", action, resource is Drupe::Gateway);",
               "permit (principal is Drupe::OAuthUser in "
               "Drupe::Team::\"traders\", action, resource is Drupe::Gateway);");
    check_rule("forbid (resource is R, principal is P);",
               "forbid (principal is P, action, resource is R);");
}

/* A constructor of a valid string literal is folded into its value; a bad
 * literal or a computed argument stays a call. */
static void
test_constructors_fold(void **state)
{
    const char *src = "permit(principal,action,resource) when { "
                      "[decimal(\"1.5\"), decimal(\"1\"), decimal(context.x)] "
                      "== [ip(\"10.0.0.1/8\"), datetime(\"2024-10-15\"), "
                      "duration(\"1h\")] };";
    const pdp_ast *ast;
    box_buf err;
    box_buf_init(&err, 4096);
    assert_int_equal(pdp_parse(src, strlen(src), "f.dw", A, &ast, &err), BOX_OK);
    const pdp_expr *eq = ast->as_rules[0]->r_conds[0].cd_body;
    const pdp_expr *l = eq->u.bin.l, *r = eq->u.bin.r;
    assert_int_equal(l->u.list.items[0]->x_kind, PDP_X_CALL);
    assert_non_null(l->u.list.items[0]->x_const);
    assert_int_equal(pdp_value_as_decimal(l->u.list.items[0]->x_const), 15000);
    assert_null(l->u.list.items[1]->x_const);
    assert_null(l->u.list.items[2]->x_const);
    assert_null(l->x_const);
    assert_non_null(r->x_const); // a set of three constants
    box_buf b;
    box_buf_init(&b, 1000);
    assert_int_equal(pdp_value_format(r->x_const, &b), BOX_OK);
    assert_string_equal(b.b_data, "[ip(\"10.0.0.1/8\"), datetime(\"2024-10-"
                                  "15T00:00:00Z\"), duration(\"3600000ms\")]");
    box_buf_reset(&b);
    box_buf_reset(&err);
}

static void
test_extension_errors(void **state)
{
    /* Wrong arity: constructors (§3.2's text) and methods (§2.3's). */
    check_expr_error("decimal() == 1", BOX_EPARSE,
                     "f.dw:1:44: wrong number of arguments provided to "
                     "extension function `decimal`: expected 1, got 0");
    check_expr_error("ip(\"::1\", \"::2\") == 1", BOX_EPARSE,
                     "f.dw:1:44: wrong number of arguments provided to "
                     "extension function `ip`: expected 1, got 2");
    check_expr_error("decimal(\"1.0\").lessThan()", BOX_EPARSE,
                     "f.dw:1:59: `lessThan` takes exactly one argument, got 0");
    check_expr_error("ip(\"::1\").isIpv4(1)", BOX_EPARSE,
                     "f.dw:1:54: `isIpv4` takes no arguments, got 1");
    check_expr_error("context.d.offset(1, 2) == 1", BOX_EPARSE,
                     "f.dw:1:54: `offset` takes exactly one argument, got 2");
    check_expr_error("context.d.toDays(1) == 1", BOX_EPARSE,
                     "f.dw:1:54: `toDays` takes no arguments, got 1");
    check_expr_error("principal.hasTag()", BOX_EPARSE,
                     "f.dw:1:54: `hasTag` takes exactly one argument, got 0");
    check_expr_error("principal.getTag(\"a\", \"b\") == 1", BOX_EPARSE,
                     "f.dw:1:54: `getTag` takes exactly one argument, got 2");
    /* A constructor is a function, a method is a method. */
    check_expr_error("\"1.0\".decimal() == 1", BOX_EPARSE,
                     "f.dw:1:50: unknown method `decimal`");
    check_expr_error("lessThan(decimal(\"1.0\"), decimal(\"2.0\"))",
                     BOX_EPARSE,
                     "f.dw:1:44: unknown function or macro `lessThan` (not a "
                     "Cedar built-in and not a declared macro)");
    check_expr_error("decimal(\"1.0\"", BOX_EPARSE,
                     "f.dw:1:58: expected `)` (to close `(` at line 1), found "
                     "`}`");
    /* `is` takes an entity type path. */
    check_expr_error("principal is", BOX_EPARSE,
                     "f.dw:1:57: expected an entity type after `is`, found "
                     "`}`");
    check_expr_error("principal is A::\"x\"", BOX_EPARSE,
                     "f.dw:1:60: expected an entity type after `is`, found "
                     "`\"x\"`");
    check_expr_error("principal is in A::\"x\"", BOX_EPARSE,
                     "f.dw:1:57: this identifier is reserved and cannot be "
                     "used: in");
    check_expr_error("principal is 1", BOX_EPARSE,
                     "f.dw:1:57: expected an entity type after `is`, found "
                     "`1`");
    check_expr_error("principal is A == principal", BOX_EPARSE,
                     "f.dw:1:59: multiple relational operators (>, ==, in, "
                     "etc.) must be used with parentheses to make ordering "
                     "explicit");
    check_expr_error("principal is A in A::\"x\" in A::\"y\"", BOX_EPARSE,
                     "f.dw:1:69: multiple relational operators (>, ==, in, "
                     "etc.) must be used with parentheses to make ordering "
                     "explicit");
    check_expr_error("principal == principal is A", BOX_EPARSE,
                     "f.dw:1:67: multiple relational operators (>, ==, in, "
                     "etc.) must be used with parentheses to make ordering "
                     "explicit");
    /* Scope `is` (§2.2 texts). */
    check_error("permit (principal is A::User == A::User::\"x\", action, "
                "resource);",
                BOX_EPARSE,
                "f.dw:1:30: `is Type == …` is not valid; only `is Type in …` "
                "is allowed");
    check_error("permit (principal, action, resource is A::R != A::R::\"x\");",
                BOX_EPARSE,
                "f.dw:1:45: `is Type != …` is not valid; only `is Type in …` "
                "is allowed");
    check_error("permit (principal is A::User = A::User::\"x\", action, "
                "resource);",
                BOX_EPARSE,
                "f.dw:1:30: `=` is not a valid operator in this scope; did you "
                "mean `==`?");
    check_error("permit (principal is A::User in \"x\", action, resource);",
                BOX_EPARSE,
                "f.dw:1:33: expected an entity reference (`Ns::Type::\"id\"`) "
                "or a template slot (`?principal`)");
    check_error("permit (principal is, action, resource);", BOX_EPARSE,
                "f.dw:1:21: expected an entity type after `is`, found `,`");
    check_error("permit (principal is A::User in ?principal, action, "
                "resource);",
                BOX_EPARSE,
                "f.dw:1:33: policy is not static: the template slot "
                "`?principal` is not filled");
}

/* Two texts whose rules dump alike: a macro's expansion is exactly the
 * tree its hand-written form gives. */
static void
check_same(const char *src, const char *equiv)
{
    char *got, *want;
    box_err rv = parse(src, strlen(src), &got);
    if (rv != BOX_OK)
        fail_msg("%s\n  -> %s", src, got);
    rv = parse(equiv, strlen(equiv), &want);
    if (rv != BOX_OK)
        fail_msg("%s\n  -> %s", equiv, want);
    if (strcmp(got, want) != 0)
        fail_msg("%s\n  got:  %s\n  want: %s", src, got, want);
    box_free(got);
    box_free(want);
}

#define RULE "permit(principal, action, resource) "
#define LOGIN "Drupe::Action::\"Login\"::request{ input.user: _ }"

/* Macros (dogwood-spec §2.6): definitions anywhere, expansion at parse
 * time, every refusal with its text. */
static void
test_macros(void **state)
{
    /* def cedar: arguments are operands; a call may precede its def. */
    check_same(RULE "when { small(context.x + 1) };\n"
               "def cedar small(?n) { ?n < 100 };",
               RULE "when { (context.x + 1) < 100 };");
    check_same("def cedar r(?a, ?b) { { a: ?a, b: [?b, ?a] } };\n"
               RULE "when { r(1, \"x\").b.contains(1) };",
               RULE "when { { a: 1, b: [\"x\", 1] }.b.contains(1) };");
    check_same("def cedar none() { true };\n" RULE "when { none() };",
               RULE "when { true };");
    /* def temporal: window, condition, term and refinement parameters. */
    check_same("def temporal once(?w, ?s) { formerly within ?w ?s };\n"
               RULE "when temporal { once(1h, " LOGIN ") };",
               RULE "when temporal { formerly within 1h " LOGIN " };");
    check_same("def temporal seen(?u) { formerly within 1h "
               "Drupe::Action::\"Login\"::request{ input.user: ?u } };\n"
               RULE "when temporal { seen(context.input.user) && "
               "seen(\"bob\") };",
               RULE "when temporal { formerly within 1h "
               "Drupe::Action::\"Login\"::request{ input.user: "
               "context.input.user } && formerly within 1h "
               "Drupe::Action::\"Login\"::request{ input.user: \"bob\" } };");
    check_same("def temporal by(?s, ?u) { formerly within 1m ?s{ input.user: "
               "?u }{ input.server: \"s1\" } };\n"
               RULE "when temporal { by(Drupe::Action::\"Login\"::request{}, "
               "\"al\") };",
               RULE "when temporal { formerly within 1m "
               "Drupe::Action::\"Login\"::request{ input.user: \"al\", "
               "input.server: \"s1\" } };");
    /* Binder parameters, `?A == ?n` a comparison, an aggregate argument. */
    check_same(RULE "when temporal { bind(n, count for (t: Timepoint). where "
               "(formerly within 1h (" LOGIN " && tp(t))), n > 2) };",
               RULE "when temporal { exists (n: Long). ((count for (t: "
               "Timepoint). where (formerly within 1h (" LOGIN " && tp(t)))) "
               "== n && n > 2) };");
    check_same(RULE "when temporal { exists (d: Long). (count_distinct_within("
               "u, 1h, Drupe::Action::\"Login\"::request{ input.user: u }) == d "
               "&& d < 2) };",
               RULE "when temporal { exists (d: Long). ((count for (u: String)."
               " where (formerly within 1h Drupe::Action::\"Login\"::request{ "
               "input.user: u })) == d && d < 2) };");
    /* `$t` is fresh per call: `t$<the call's byte offset>`. */
    char *got;
    const char *fresh = RULE "when temporal { count_within(1h, " LOGIN ") > 1 "
                        "&& count_within(2h, " LOGIN ") > 0 };";
    assert_int_equal(parse(fresh, strlen(fresh), &got), BOX_OK);
    assert_non_null(strstr(got, "t$52"));
    assert_non_null(strstr(got, "t$126"));
    box_free(got);

    /* Refusals, with the spec's texts. */
    check_error("def cedar f(?x) { ?x };\ndef cedar f(?y) { ?y };", BOX_EPARSE,
                "f.dw:2:11: duplicate macro definition `f`");
    check_error("def temporal count(?x) { ?x };", BOX_EPARSE,
                "f.dw:1:14: macro name `count` is reserved (built-in or "
                "keyword); pick a different name");
    check_error("def cedar true() { 1 };", BOX_EPARSE,
                "f.dw:1:11: macro name `true` is reserved (built-in or "
                "keyword); pick a different name");
    check_error("def cedar f(?x) { ?y };", BOX_EPARSE,
                "f.dw:1:19: in `def cedar` body: `?y` does not name a "
                "declared parameter");
    check_error("def temporal f(?x) { formerly within ?w ?x };", BOX_EPARSE,
                "f.dw:1:38: in `def temporal` body: `?w` does not name a "
                "declared parameter");
    check_error("def cedar f(?x) { g(?x) };", BOX_EPARSE,
                "f.dw:1:19: in `def cedar` body: macro-in-macro is not "
                "supported");
    check_error("def cedar f(?x) { S::M(?x) };", BOX_EPARSE,
                "f.dw:1:19: in `def cedar` body: macro-in-macro is not "
                "supported");
    check_error("def temporal f(?w) { once(?w, ?w) };", BOX_EPARSE,
                "f.dw:1:22: in `def temporal` body: macro-in-macro is not "
                "supported");
    check_error("def cedar f() { temporal { " LOGIN " } };", BOX_EPARSE,
                "f.dw:1:17: in `def cedar` body: a `temporal { … }` block "
                "cannot be part of a macro; lift the block to the call site "
                "instead");
    check_error("def temporal f() { $t };", BOX_EPARSE,
                "f.dw:1:20: macro binder `$t` used as a whole condition has "
                "no meaning");
    check_error("def cedar f(?a, ?b) { ?a };\n" RULE "when { f(1) };",
                BOX_EPARSE, "f.dw:2:44: macro `f` expects 2 argument(s), got 1");
    check_error(RULE "when temporal { count_within(1h) > 1 };", BOX_EPARSE,
                "f.dw:1:53: macro `count_within` expects 2 argument(s), got 1");
    check_error(RULE "when { count_within(1h, 2) };", BOX_EPARSE,
                "f.dw:1:44: macro `count_within` is a temporal macro and "
                "cannot be called in a cedar expression position");
    check_error("def cedar f(?x) { ?x };\n" RULE "when temporal { f(1) };",
                BOX_EPARSE,
                "f.dw:2:53: macro `f` is a cedar macro and cannot be called "
                "in a temporal condition position");
    check_error(RULE "when temporal { nope(1h) };", BOX_EPARSE,
                "f.dw:1:53: unknown macro `nope` (no declared `def "
                "temporal`)");
    check_error(RULE "when temporal { exists (n: Long). (bind(1, 2, n > 1)) "
                "};", BOX_EPARSE,
                "f.dw:1:77: parameter `?n` is used in a binder position, so "
                "the call-site argument must be a single identifier");
    check_error(RULE "when temporal { count_within(" LOGIN ", " LOGIN ") > 1 "
                "};", BOX_EPARSE,
                "f.dw:1:66: parameter `?w` is a `within` window, so the "
                "call-site argument must be an interval such as `1h`");
    check_error(RULE "when temporal { count_within(1h, 3) > 1 };", BOX_EPARSE,
                "f.dw:1:70: parameter `?s` stands for a whole condition, so "
                "the call-site argument must be a temporal condition");
    check_error(RULE "when temporal { count_within(1h, " LOGIN ") };",
                BOX_EPARSE,
                "f.dw:1:53: macro `count_within` is an aggregation macro "
                "(`count`/`sum`) and cannot stand as a condition; compare it, "
                "e.g. `count_within(…) > 0`");
    check_error("def temporal once(?s) { formerly within 1h ?s };\n"
                RULE "when temporal { once(1h, " LOGIN ") > 1 };", BOX_EPARSE,
                "f.dw:2:53: macro `once` expects 1 argument(s), got 2");
    check_error("def temporal r(?s) { formerly within 1h ?s{ input.user: "
                "\"a\" } };\n" RULE "when temporal { r(" LOGIN " && " LOGIN
                ") };", BOX_EPARSE,
                "f.dw:1:41: `?s{ … }` refines a predicate, but the argument "
                "for `?s` is not a single predicate");
    /* An argument used twice is shared, not copied: an expansion that
     * stands for a huge tree is refused, not walked at every decision. */
    box_buf big;
    box_buf_init(&big, 1u << 20);
    assert_int_equal(box_buf_puts(&big, "def cedar d(?x) { [?x, ?x] };\n"
                                        RULE "when { "), BOX_OK);
    for (int i = 0; i < 20; i++)
        assert_int_equal(box_buf_puts(&big, "d("), BOX_OK);
    assert_int_equal(box_buf_puts(&big, "1"), BOX_OK);
    for (int i = 0; i < 20; i++)
        assert_int_equal(box_buf_putc(&big, ')'), BOX_OK);
    assert_int_equal(box_buf_puts(&big, " == [] };"), BOX_OK);
    check_error(big.b_data, BOX_EPARSE,
                "f.dw:2:37: this condition is too large once its macros are "
                "expanded (more than 100000 nodes)");
    box_buf_truncate(&big, 0);
    assert_int_equal(box_buf_puts(&big, "def temporal d(?s) { ?s && ?s };\n"
                                        RULE "when temporal { "), BOX_OK);
    for (int i = 0; i < 20; i++)
        assert_int_equal(box_buf_puts(&big, "d("), BOX_OK);
    assert_int_equal(box_buf_puts(&big, LOGIN), BOX_OK);
    for (int i = 0; i < 20; i++)
        assert_int_equal(box_buf_putc(&big, ')'), BOX_OK);
    assert_int_equal(box_buf_puts(&big, " };"), BOX_OK);
    check_error(big.b_data, BOX_EPARSE,
                "f.dw:2:42: this temporal condition is too large once its "
                "macros are expanded (more than 100000 nodes)");
    box_buf_truncate(&big, 0);
    assert_int_equal(box_buf_puts(&big, "def temporal n(?s) { !(!(!?s)) };\n"
                                        RULE "when temporal { "), BOX_OK);
    for (int i = 0; i < 90; i++)
        assert_int_equal(box_buf_puts(&big, "n("), BOX_OK);
    assert_int_equal(box_buf_puts(&big, LOGIN), BOX_OK);
    for (int i = 0; i < 90; i++)
        assert_int_equal(box_buf_putc(&big, ')'), BOX_OK);
    assert_int_equal(box_buf_puts(&big, " };"), BOX_OK);
    check_error(big.b_data, BOX_EPARSE,
                "f.dw:2:42: this temporal condition nests too deeply once its "
                "macros are expanded (more than 200 levels)");
    box_buf_reset(&big);

    /* A supplied library replaces the built-in one; a policy's own def
     * still wins over the library's. */
    const char *lib = "def temporal seen(?s) { formerly within 1h ?s };\n"
                      "def cedar big(?n) { ?n > 100 };";
    pdp_parse_lib_text lt = {lib, strlen(lib), "lib.dw"};
    const char *uses = RULE "when temporal { seen(" LOGIN ") };\n"
                       "def cedar big(?n) { ?n > 5 };\n"
                       RULE "when { big(context.x) };";
    const pdp_ast *ast;
    box_buf err;
    box_buf_init(&err, 4096);
    assert_int_equal(pdp_parse_lib(uses, strlen(uses), "f.dw", &lt, A, &ast,
                                   &err), BOX_OK);
    assert_int_equal(ast->as_nrules, 2);
    assert_true(ast->as_macros);
    const char *old = RULE "when temporal { count_within(1h, " LOGIN ") > 0 };";
    assert_int_equal(pdp_parse_lib(old, strlen(old), "f.dw", &lt, A, &ast,
                                   &err), BOX_EPARSE);
    assert_string_equal(err.b_data, "f.dw:1:53: unknown macro `count_within` "
                                    "(no declared `def temporal`)");
    const char *rule = "def temporal x() { formerly within 1h " LOGIN " };\n"
                       RULE ";";
    lt = (pdp_parse_lib_text){rule, strlen(rule), "lib.dw"};
    assert_int_equal(pdp_parse_lib(old, strlen(old), "f.dw", &lt, A, &ast,
                                   &err), BOX_EPARSE);
    assert_string_equal(err.b_data, "lib.dw:2:1: a macro library holds only "
                                    "`def cedar` and `def temporal` "
                                    "definitions");
    box_buf_reset(&err);

    /* Providers stay refused, outside macros too. */
    check_expr_error("Strings::Matches(context.input.path, \"x\").matched",
                     BOX_ENOTSUP,
                     "f.dw:1:44: information providers are not enabled in "
                     "this build (`Strings::Matches(…)`)");
}

/* The temporal sub-language (dogwood-spec §2.4) and `guardrails`. */
static void
test_temporal(void **state)
{
    check_rule("permit(principal, action, resource) when guardrails "
               "{ true };",
               "permit (principal, action, resource) when true;");
    check_rule("permit(principal, action, resource) unless temporal { "
               "formerly within 1h A::Action::\"x\"::request{} };",
               "permit (principal, action, resource) unless temporal { "
               "formerly within 1h A::Action::\"x\"::request{} };");
    check_expr("true && temporal { previous within 5m "
               "A::Action::\"x\"::response{output.status: 0} }",
               "(&& true temporal { previous within 5m "
               "A::Action::\"x\"::response{ output.status: 0 } })");
    check_rule("permit(principal, action, resource) when temporal { "
               "(count for (t: Timepoint). where formerly within 1d "
               "(A::Action::\"rm\"::request{} && tp(t))) < 3 && "
               "!B::Action::\"y\"::request{input.user: _} since within 10s "
               "(exists (u: String). C::Action::\"z\"::error{input.user: u, "
               "n: -1, d: decimal(\"1.5\"), e: [1, \"a\", _], "
               "f: context.input.path, g: principal.id, h: *}{i: true}) };",
               "permit (principal, action, resource) when temporal { (count "
               "for (t: Timepoint). where formerly within 1d "
               "(A::Action::\"rm\"::request{} && tp(t))) < 3 && "
               "!B::Action::\"y\"::request{ input.user: * } since within 10s "
               "(exists (u: String). C::Action::\"z\"::error{ input.user: u, "
               "n: -1, d: decimal(\"1.5\"), e: [1, \"a\", *], "
               "f: context.input.path, g: principal.id, h: *, i: true }) };");
    // Errors, each at its place.
    check_error("permit(principal, action, resource) when temporal { x };",
                BOX_EPARSE,
                "f.dw:1:55: expected a comparison operator after the "
                "variable (a bare name is no condition), found `}`");
    check_error("permit(principal, action, resource) when temporal { "
                "formerly within 0h A::Action::\"x\"::request{} };",
                BOX_EPARSE,
                "f.dw:1:69: a `within` window must be positive, found 0h");
    check_error("permit(principal, action, resource) when temporal { "
                "formerly within 2 A::Action::\"x\"::request{} };",
                BOX_EPARSE,
                "f.dw:1:71: expected a time unit (`s`, `m`, `h` or `d`) "
                "after the `within` amount, found `A`");
    check_error("permit(principal, action, resource) when temporal { "
                "formerly within 1h A::Action::\"x\"::request{} && "
                "A::Action::\"x\"::request{} || x == 1 };",
                BOX_EPARSE,
                "f.dw:1:127: `||` is not part of the temporal language; "
                "write two rules, or `!(!A && !B)`");
    check_error("permit(principal, action, resource) when temporal { "
                "x != 1 };",
                BOX_EPARSE,
                "f.dw:1:55: `!=` is not allowed in a temporal condition; "
                "write `!(a == b)`");
    check_error("permit(principal, action, resource) when temporal { "
                "A::Action::\"x\"::request{a: 1,} };",
                BOX_EPARSE,
                "f.dw:1:82: expected a field name (no trailing comma), "
                "found `}`");
    check_error("permit(principal, action, resource) when temporal { "
                "formerly within 1h formerly within 1h "
                "A::Action::\"x\"::request{} };",
                BOX_EPARSE,
                "f.dw:1:72: `formerly` here needs parentheses: write "
                "`(formerly within …)`");
    check_error("permit(principal, action, resource) when temporal { "
                "?x == 1 };",
                BOX_EPARSE,
                "f.dw:1:53: stray macro parameter reference `?x` outside a "
                "macro body");
    check_error("permit(principal, action, resource) when temporal { "
                "A::Action::\"x\"::request{a: 1} ",
                BOX_EPARSE,
                "f.dw:1:83: expected `}` (to close `{` at line 1), found end "
                "of file");
}

static void
test_depth_cap(void **state)
{
    /* 64 nested parentheses parse; 65 are refused with a message, and a
     * deep tree built without recursion (a long `+` chain) is refused too. */
    box_buf b;
    box_buf_init(&b, 1u << 20);
    for (int depth = 63; depth <= 65; depth += 2) {
        b.b_len = 0;
        assert_int_equal(box_buf_puts(&b, "permit(principal, action, resource) "
                                          "when { "), BOX_OK);
        for (int i = 0; i < depth; i++)
            assert_int_equal(box_buf_putc(&b, '('), BOX_OK);
        assert_int_equal(box_buf_puts(&b, "true"), BOX_OK);
        for (int i = 0; i < depth; i++)
            assert_int_equal(box_buf_putc(&b, ')'), BOX_OK);
        assert_int_equal(box_buf_puts(&b, " };"), BOX_OK);
        char *msg;
        box_err rv = parse(b.b_data, b.b_len, &msg);
        if (depth == 63) {
            assert_int_equal(rv, BOX_OK);
        } else {
            assert_int_equal(rv, BOX_EPARSE);
            assert_string_equal(msg, "f.dw:1:108: expression nests too deeply "
                                     "(the limit is 64 levels)");
        }
        box_free(msg);
    }
    b.b_len = 0;
    assert_int_equal(box_buf_puts(&b, "permit(principal, action, resource) "
                                      "when { 0"), BOX_OK);
    for (int i = 0; i < 100; i++)
        assert_int_equal(box_buf_puts(&b, " + 1"), BOX_OK);
    assert_int_equal(box_buf_puts(&b, " == 1 };"), BOX_OK);
    char *msg;
    assert_int_equal(parse(b.b_data, b.b_len, &msg), BOX_EPARSE);
    assert_string_equal(msg, "f.dw:1:44: expression nests too deeply (the "
                             "limit is 64 levels)");
    box_free(msg);
    /* A flat && / || chain has depth 2 however long it is. */
    b.b_len = 0;
    assert_int_equal(box_buf_puts(&b, "permit(principal, action, resource) "
                                      "when { true"), BOX_OK);
    for (int i = 0; i < 5000; i++)
        assert_int_equal(box_buf_puts(&b, " || context.a == \"x\""), BOX_OK);
    assert_int_equal(box_buf_puts(&b, " };"), BOX_OK);
    assert_int_equal(parse(b.b_data, b.b_len, &msg), BOX_OK);
    box_free(msg);
    /* Deeply nested sets and records hit the same cap. */
    b.b_len = 0;
    assert_int_equal(box_buf_puts(&b, "permit(principal, action, resource) "
                                      "when { "), BOX_OK);
    for (int i = 0; i < 200; i++)
        assert_int_equal(box_buf_puts(&b, "[{a: "), BOX_OK);
    assert_int_equal(parse(b.b_data, b.b_len, &msg), BOX_EPARSE);
    assert_non_null(strstr(msg, "expression nests too deeply"));
    box_free(msg);
    box_buf_reset(&b);
}

/* ---- conformance fixtures (pdp/testdata/dogwood, see FORMAT.md) ---- */

static char *
trim(char *s)
{
    while (*s == ' ' || *s == '\n' || *s == '\t' || *s == '\r')
        s++;
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\n' || s[n - 1] == '\r'))
        s[--n] = '\0';
    return s;
}

static void
for_each_case(const char *rel, void (*fn)(const char *dir, const char *name))
{
    char *root = source_path(rel);
    struct dirent **names;
    int n = scandir(root, &names, NULL, alphasort);
    if (n < 0)
        fail_msg("cannot read %s", root);
    int seen = 0;
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.') {
            char *dir = box_asprintf("%s/%s", root, names[i]->d_name);
            fn(dir, names[i]->d_name);
            box_free(dir);
            seen++;
        }
        free(names[i]); // lint: allow raw-alloc: scandir mallocs them
    }
    free(names); // lint: allow raw-alloc: scandir mallocs it
    assert_true(seen > 0);
    box_free(root);
}

/* Every temporal leaf of the rules written back (pdp_tl_dump) reads back
 * to the same text: the canonical form is a fixed point. */
static bool
roundtrip_leaf(void *arg, const pdp_expr *e)
{
    const char *name = arg;
    if (e->x_kind != PDP_X_TEMPORAL)
        return false;
    box_buf one, two, err;
    box_buf_init(&one, 1u << 24);
    box_buf_init(&two, 1u << 24);
    box_buf_init(&err, 1u << 16);
    assert_int_equal(pdp_tl_dump(e->u.tl, &one), BOX_OK);
    char *src = box_asprintf("permit(principal, action, resource) when "
                             "temporal { %s };",
                             one.b_data);
    const pdp_ast *ast = NULL;
    if (pdp_parse(src, strlen(src), "rt.dw", A, &ast, &err) != BOX_OK)
        fail_msg("%s: the dump does not read back: %s\n  %s", name,
                 err.b_data, one.b_data);
    assert_int_equal(
        pdp_tl_dump(ast->as_rules[0]->r_conds[0].cd_body->u.tl, &two),
        BOX_OK);
    if (strcmp(one.b_data, two.b_data) != 0)
        fail_msg("%s: not a fixed point:\n  %s\n  %s", name, one.b_data,
                 two.b_data);
    box_free(src);
    box_buf_reset(&one);
    box_buf_reset(&two);
    box_buf_reset(&err);
    return false;
}

static void
roundtrip(const char *text, size_t len, const char *name)
{
    box_buf err;
    box_buf_init(&err, 1u << 16);
    const pdp_ast *ast = NULL;
    if (pdp_parse(text, len, "f.dw", A, &ast, &err) == BOX_OK)
        for (uint32_t i = 0; i < ast->as_nrules; i++)
            for (uint32_t j = 0; j < ast->as_rules[i]->r_nconds; j++)
                (void)pdp_expr_visit(ast->as_rules[i]->r_conds[j].cd_body,
                                     roundtrip_leaf, (void *)name);
    box_buf_reset(&err);
}

static void
must_parse(const char *dir, const char *name)
{
    size_t len;
    char *text = pdp_test_case_policy(dir, &len);
    char *msg;
    box_err rv = parse(text, len, &msg);
    /* A case that needs a construct outside the subset must refuse with
     * "not supported yet"; every other case must parse. */
    if (rv == BOX_ENOTSUP)
        assert_non_null(strstr(msg, "is not supported yet"));
    else if (rv != BOX_OK)
        fail_msg("%s: %s", name, msg);
    roundtrip(text, len, name);
    box_free(msg);
    box_free(text);
}

static void
must_refuse(const char *dir, const char *name)
{
    size_t len;
    char *text = pdp_test_case_policy(dir, &len);
    char *msg;
    box_err rv = parse(text, len, &msg);
    if (rv == BOX_OK)
        fail_msg("%s: loaded but must be refused", name);
    char *epath = box_asprintf("%s/expected_error.txt", dir);
    size_t el;
    char *expected_text = read_file_at(epath, &el);
    if (expected_text != NULL) {
        /* Our message is "file:line:col: <text>": compare the text. */
        const char *m = strstr(msg, ": ");
        assert_non_null(m);
        assert_string_equal(m + 2, trim(expected_text));
    }
    assert_non_null(strstr(msg, "is not a valid escape"));
    box_free(expected_text);
    box_free(epath);
    box_free(msg);
    box_free(text);
}

static void
test_conformance_cedar_only(void **state)
{
    for_each_case("pdp/testdata/dogwood/cedar_only/corpus_handwritten",
                  must_parse);
}

/* Every upstream temporal policy here parses, or refuses with "… is not
 * supported yet" (macros). */
static void
test_conformance_temporal(void **state)
{
    for_each_case("pdp/testdata/dogwood/temporal_only", must_parse);
}

/* The string-escape cases of expected_failures (the others need the
 * validator, macros or providers: the policy tests judge those). */
static void
must_refuse_string(const char *dir, const char *name)
{
    if (strstr(name, "_string_") != NULL)
        must_refuse(dir, name);
}

static void
test_conformance_string_escapes(void **state)
{
    for_each_case("pdp/testdata/dogwood/expected_failures",
                  must_refuse_string);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_policies_and_scope),
        cmocka_unit_test(test_expressions),
        cmocka_unit_test(test_constants_are_folded),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_extensions_is_and_tags),
        cmocka_unit_test(test_constructors_fold),
        cmocka_unit_test(test_extension_errors),
        cmocka_unit_test(test_macros),
        cmocka_unit_test(test_temporal),
        cmocka_unit_test(test_depth_cap),
        cmocka_unit_test(test_conformance_cedar_only),
        cmocka_unit_test(test_conformance_temporal),
        cmocka_unit_test(test_conformance_string_escapes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
