/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_fmt: the printer's parentheses (hand cases and random
 * expressions), the layout and comments, and every .dw of the repository:
 * parse(fmt(x)) dumps as parse(x) does, and fmt(fmt(x)) == fmt(x). */
#include "pdp_test_util.h"

#include <ftw.h>

#include "pdp_fmt.h"

/* ---- helpers ---- */

/* The rule dumps of src joined with "\n"; NULL (and *err) when it does
 * not parse. */
static char *
dumps(const char *src, size_t len, char **err)
{
    box_arena *a = box_arena_new(256u << 20);
    assert_non_null(a);
    box_buf b;
    box_buf_init(&b, 1u << 26);
    const pdp_ast *ast;
    box_err rv = pdp_parse(src, len, "f.dw", a, &ast, &b);
    char *out = NULL;
    if (rv == BOX_OK) {
        box_buf_truncate(&b, 0);
        for (uint32_t i = 0; i < ast->as_nrules; i++) {
            if (i > 0)
                assert_int_equal(box_buf_putc(&b, '\n'), BOX_OK);
            assert_int_equal(pdp_rule_dump(ast->as_rules[i], &b), BOX_OK);
        }
        assert_int_equal(box_buf_putc(&b, '\0'), BOX_OK);
        out = box_buf_take(&b);
    } else if (err != NULL) {
        *err = box_buf_take(&b);
    }
    box_buf_reset(&b);
    box_arena_free(a);
    return out;
}

/* fmt of src (asserting it formats). */
static char *
fmt(const char *src, size_t len)
{
    box_buf out, err;
    box_buf_init(&out, 1u << 26);
    box_buf_init(&err, 1u << 16);
    box_err rv = pdp_fmt(src, len, "f.dw", &out, &err);
    if (rv != BOX_OK)
        fail_msg("fmt refused (%s): %s\n--- input:\n%.*s", box_strerror(rv),
                 err.b_data ? err.b_data : "", (int)len, src);
    assert_int_equal(box_buf_putc(&out, '\0'), BOX_OK);
    box_buf_reset(&err);
    char *s = box_buf_take(&out);
    return s;
}

/* The whole contract on one text that parses: same rules after fmt, and
 * fmt is a fixed point. Returns fmt(src) (caller frees). */
static char *
check_roundtrip(const char *name, const char *src, size_t len)
{
    char *want = dumps(src, len, NULL);
    assert_non_null(want);
    char *once = fmt(src, len);
    char *err = NULL;
    char *got = dumps(once, strlen(once), &err);
    if (got == NULL)
        fail_msg("%s: fmt output does not parse: %s\n--- output:\n%s", name,
                 err, once);
    if (strcmp(got, want) != 0)
        fail_msg("%s: fmt changed the rules\n--- want:\n%s\n--- got:\n%s\n"
                 "--- output:\n%s", name, want, got, once);
    char *twice = fmt(once, strlen(once));
    if (strcmp(once, twice) != 0)
        fail_msg("%s: fmt is not idempotent\n--- once:\n%s--- twice:\n%s",
                 name, once, twice);
    box_free(want);
    box_free(got);
    box_free(twice);
    return once;
}

/* fmt(src) must be exactly want (and pass check_roundtrip). */
static void
check_fmt(const char *src, const char *want)
{
    char *got = check_roundtrip(src, src, strlen(src));
    if (strcmp(got, want) != 0)
        fail_msg("input:\n%s\n--- got:\n%s--- want:\n%s", src, got, want);
    box_free(got);
}

/* The condition of `permit (principal, action, resource) when { src };`
 * as pdp_fmt_expr writes it must be want; the file passes
 * check_roundtrip. */
static void
check_expr(const char *src, const char *want)
{
    char *in = box_asprintf("permit (principal, action, resource) when { %s };",
                            src);
    box_arena *a = box_arena_new(1u << 24);
    assert_non_null(a);
    box_buf b;
    box_buf_init(&b, 1u << 20);
    const pdp_ast *ast;
    if (pdp_parse(in, strlen(in), "f.dw", a, &ast, &b) != BOX_OK)
        fail_msg("%s: %s", src, b.b_data);
    box_buf_truncate(&b, 0);
    assert_int_equal(pdp_fmt_expr(ast->as_rules[0]->r_conds[0].cd_body, &b),
                     BOX_OK);
    assert_int_equal(box_buf_putc(&b, '\0'), BOX_OK);
    if (strcmp(b.b_data, want) != 0)
        fail_msg("%s\n  got:  %s\n  want: %s", src, b.b_data, want);
    box_free(check_roundtrip(src, in, strlen(in)));
    box_buf_reset(&b);
    box_arena_free(a);
    box_free(in);
}

/* ---- the printer ---- */

static void
test_parentheses(void **state)
{
    (void)state;
    check_expr("((context.a))", "context.a");
    check_expr("context.a && (context.b && context.c)",
               "context.a && (context.b && context.c)");
    check_expr("(context.a && context.b) && context.c",
               "(context.a && context.b) && context.c");
    check_expr("context.a && context.b && context.c",
               "context.a && context.b && context.c");
    check_expr("(context.a || context.b) && context.c",
               "(context.a || context.b) && context.c");
    check_expr("context.a || context.b && context.c",
               "context.a || context.b && context.c");
    check_expr("(1 == 2) == true", "(1 == 2) == true");
    check_expr("1 - (2 - 3) == 1 - 2 - 3", "1 - (2 - 3) == 1 - 2 - 3");
    check_expr("(1 + 2) * 3 == 1 + 2 * 3", "(1 + 2) * 3 == 1 + 2 * 3");
    check_expr("2 * (3 * 4) == 2 * 3 * 4", "2 * (3 * 4) == 2 * 3 * 4");
    check_expr("-5 * -(5) == --5", "-5 * -(5) == -(-5)");
    check_expr("-(5).foo == -5.foo", "-5.foo == -5.foo");
    check_expr("(-5).foo == 1", "(-5).foo == 1");
    check_expr("-9223372036854775808 < 0", "-9223372036854775808 < 0");
    check_expr("!!!!(!context.a)", "!!!!(!context.a)");
    check_expr("!(-context.n) == -(!context.b)",
               "!(-context.n) == -(!context.b)");
    check_expr("(if context.a then 1 else 2) == 1 || true",
               "(if context.a then 1 else 2) == 1 || true");
    check_expr("if context.a then context.b || context.c else if true then "
               "1 else 2",
               "if context.a then context.b || context.c else if true then "
               "1 else 2");
    check_expr("(context has a) == (context.x like \"a\\*b*\")",
               "(context has a) == (context.x like \"a\\*b*\")");
    check_expr("context has \"a b\" && context has if && context has a.b.c "
               "&& context has \"then\"",
               "context has \"a b\" && context has if && context has a.b.c "
               "&& context has \"then\"");
    check_expr("{ \"if\": 1, \"then\": 2, \"a b\": [1, -2], c: {} } has if",
               "{ if: 1, \"then\": 2, \"a b\": [1, -2], c: {} } has if");
    check_expr("context[\"a b\"][\"c\"].d == \"x\\ty\\u{1F600}\\\"\"",
               "context[\"a b\"][\"c\"].d == \"x\\ty\xf0\x9f\x98\x80\\\"\"");
    check_expr("principal is A::B in (resource) && principal is C in [D::\"x\"]",
               "principal is A::B in resource && principal is C in "
               "[D::\"x\"]");
    check_expr("(principal is A) == (1 in [1])",
               "(principal is A) == (1 in [1])");
    check_expr("[1, 2].contains(1) && ip(\"10.0.0.1\").isInRange(ip(\"10.0.0.0/8\")) "
               "&& decimal(\"1.5\").lessThan(decimal(\"2\"))",
               "[1, 2].contains(1) && ip(\"10.0.0.1\").isInRange(ip(\"10.0.0.0/8\")) "
               "&& decimal(\"1.5\").lessThan(decimal(\"2\"))");
    check_expr("(1 + 2).foo && (!context.a).bar && (if true then context else "
               "context).c",
               "(1 + 2).foo && (!context.a).bar && (if true then context else "
               "context).c");
    check_expr("Ns::T::\"a\\\"b\".x == principal",
               "Ns::T::\"a\\\"b\".x == principal");
}

/* Random expressions: every shape of the grammar, nested three deep, with
 * and without parentheses; each must survive fmt with the same tree. */
static unsigned long rng = 88172645463325252ul;

static unsigned
rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static void
gen(box_buf *b, int depth)
{
    static const char *const atoms[] = {
        "1", "-3", "true", "context.a", "principal", "\"s\"", "Ns::E::\"e\"",
        "[1, context.b]", "{ a: 1, \"b c\": context }", "ip(\"::1\")",
        "-9223372036854775808", "context[\"x y\"]",
    };
    static const char *const bins[] = {" && ", " || ", " == ", " != ", " < ",
                                       " <= ", " > ", " >= ", " in ", " + ",
                                       " - ", " * "};
    unsigned k = depth <= 0 ? 0 : rnd(10);
    bool paren = rnd(3) == 0;
    if (paren)
        assert_int_equal(box_buf_putc(b, '('), BOX_OK);
    switch (k) {
    case 0:
    case 1:
        assert_int_equal(box_buf_puts(b, atoms[rnd(12)]), BOX_OK);
        break;
    case 2:
    case 3:
    case 4:
        // Operands of a binary operator are parenthesized unless they
        // are atoms, so the text always parses; fmt removes what is
        // not needed.
        assert_int_equal(box_buf_putc(b, '('), BOX_OK);
        gen(b, depth - 1);
        assert_int_equal(box_buf_puts(b, ")"), BOX_OK);
        assert_int_equal(box_buf_puts(b, bins[rnd(12)]), BOX_OK);
        assert_int_equal(box_buf_putc(b, '('), BOX_OK);
        gen(b, depth - 1);
        assert_int_equal(box_buf_puts(b, ")"), BOX_OK);
        break;
    case 5:
        assert_int_equal(box_buf_puts(b, rnd(2) ? "!" : "-"), BOX_OK);
        assert_int_equal(box_buf_putc(b, '('), BOX_OK);
        gen(b, depth - 1);
        assert_int_equal(box_buf_putc(b, ')'), BOX_OK);
        break;
    case 6:
        assert_int_equal(box_buf_puts(b, "if ("), BOX_OK);
        gen(b, depth - 1);
        assert_int_equal(box_buf_puts(b, ") then ("), BOX_OK);
        gen(b, depth - 1);
        assert_int_equal(box_buf_puts(b, ") else ("), BOX_OK);
        gen(b, depth - 1);
        assert_int_equal(box_buf_putc(b, ')'), BOX_OK);
        break;
    case 7:
        assert_int_equal(box_buf_putc(b, '('), BOX_OK);
        gen(b, depth - 1);
        assert_int_equal(box_buf_puts(b, rnd(2) ? ").x" : ").contains(2)"),
                         BOX_OK);
        break;
    case 8:
        assert_int_equal(box_buf_putc(b, '('), BOX_OK);
        gen(b, depth - 1);
        assert_int_equal(box_buf_puts(b, rnd(3) == 0   ? ") has a.b"
                                         : rnd(2) == 0 ? ") like \"a*\""
                                                       : ") is Ns::E in (1)"),
                         BOX_OK);
        break;
    default:
        assert_int_equal(box_buf_puts(b, "[("), BOX_OK);
        gen(b, depth - 1);
        assert_int_equal(box_buf_puts(b, "), ("), BOX_OK);
        gen(b, depth - 1);
        assert_int_equal(box_buf_puts(b, ")]"), BOX_OK);
        break;
    }
    if (paren)
        assert_int_equal(box_buf_putc(b, ')'), BOX_OK);
}

static void
test_random_expressions(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 1u << 20);
    for (int i = 0; i < 3000; i++) {
        box_buf_truncate(&b, 0);
        assert_int_equal(
            box_buf_puts(&b, "permit (principal, action, resource) when { "),
            BOX_OK);
        gen(&b, 4);
        assert_int_equal(box_buf_puts(&b, " };"), BOX_OK);
        char *err = NULL;
        char *d = dumps(b.b_data, b.b_len, &err);
        if (d == NULL)
            fail_msg("generated text does not parse: %s\n%s", err, b.b_data);
        box_free(d);
        box_free(check_roundtrip(b.b_data, b.b_data, b.b_len));
    }
    box_buf_reset(&b);
}

/* ---- the layout ---- */

static void
test_layout(void **state)
{
    (void)state;
    check_fmt("", "");
    check_fmt("\xEF\xBB\xBF  \n\n", "");
    check_fmt("permit(principal,action,resource);forbid(resource in R::\"r\","
              "principal==P::\"p\");",
              "permit (principal, action, resource);\n\n"
              "forbid (principal == P::\"p\", action, resource in R::\"r\");\n");
    check_fmt("@id(\"a\")@reviewed @description(\"x\\ny\") permit(principal is "
              "A::B in G::\"g\", action in [Box::Action::\"fs:read\", "
              "Box::Action::\"fs:write\"], resource is R) when guardrails { "
              "true } unless { false };",
              "@id(\"a\")\n@reviewed\n@description(\"x\\ny\")\n"
              "permit (principal is A::B in G::\"g\", action in "
              "[Box::Action::\"fs:read\", Box::Action::\"fs:write\"], resource "
              "is R)\n"
              "when { true }\nunless { false };\n");
    check_fmt("permit(principal,action,resource) when { context.input.path == "
              "\"/a/very/long/path/that/goes/on\" || context.input.path like "
              "\"/another/long/path/*\" || (context.a && context.b) };",
              "permit (principal, action, resource)\n"
              "when {\n"
              "    context.input.path == \"/a/very/long/path/that/goes/on\" ||\n"
              "    context.input.path like \"/another/long/path/*\" ||\n"
              "    context.a && context.b\n"
              "};\n");
    check_fmt("permit(principal,action,resource) when { if context.input.path "
              "== \"/a/very/long/path/that/goes/on\" then context.x else "
              "context.y } when { true };",
              "permit (principal, action, resource)\n"
              "when {\n"
              "    if context.input.path == \"/a/very/long/path/that/goes/on\" "
              "then context.x else context.y\n"
              "}\n"
              "when { true };\n");
    // Inline temporal and `when temporal` are one tree, one spelling.
    check_fmt("permit(principal,action,resource) when { temporal { formerly "
              "within 60m A::Action::\"x\"::request{} } };",
              "permit (principal, action, resource)\n"
              "when temporal { formerly within 1h A::Action::\"x\"::request{} };\n");
    check_fmt("permit(principal,action,resource) when { context.a && temporal { "
              "formerly within 1h A::Action::\"x\"::request{} } };",
              "permit (principal, action, resource)\n"
              "when { context.a && temporal { formerly within 1h "
              "A::Action::\"x\"::request{} } };\n");
    check_fmt("permit(principal,action,resource) when temporal { formerly within "
              "1h A::Action::\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"::request{ "
              "input.path: context.input.path } };",
              "permit (principal, action, resource)\n"
              "when temporal {\n"
              "    formerly within 1h "
              "A::Action::\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\"::request{ "
              "input.path: context.input.path }\n"
              "};\n");
}

static void
test_comments(void **state)
{
    (void)state;
    // Above rules, with their blank lines; after code; at the end.
    check_fmt("// header\n\n// about a\n@id(\"a\") // the id\n"
              "permit(principal,action,resource);   // trailing  \r\n"
              "// about b\n\n\n"
              "forbid(principal,action,resource);\n// end 1\n\n// end 2\n",
              "// header\n\n// about a\n@id(\"a\") // the id\n"
              "permit (principal, action, resource); // trailing\n\n"
              "// about b\n\n"
              "forbid (principal, action, resource);\n\n// end 1\n\n// end 2\n");
    // Only comments.
    check_fmt("  // one\n\n\n// two\n", "// one\n\n// two\n");
    // Inside a scope: up before the line; after code: at its end; two
    // after code on one line: both up.
    check_fmt("permit(\n  // who\n  principal,\n  action, // what\n  resource\n);",
              "// who\npermit (principal, action, resource); // what\n");
    check_fmt("permit(principal, // a\n action, // b\n resource);",
              "// a\n// b\npermit (principal, action, resource);\n");
    // Inside a condition: it breaks, each comment near its operand.
    check_fmt("permit(principal,action,resource)\nwhen { // why\n"
              "  context.a && // first\n  // second\n  context.b &&\n"
              "  (context.c || // deep\n context.d)\n  // last\n} // after\n;",
              "permit (principal, action, resource)\n"
              "when { // why\n"
              "    context.a && // first\n"
              "    // second\n"
              "    context.b &&\n"
              "    (context.c || context.d) // deep\n"
              "    // last\n"
              "}; // after\n");
    // A chain in parentheses: operands' starts are not known; comments
    // stay with the first line.
    check_fmt("permit(principal,action,resource) when { (context.a ||\n"
              "// b\n context.b) };",
              "permit (principal, action, resource)\n"
              "when {\n"
              "    // b\n"
              "    context.a ||\n"
              "    context.b\n"
              "};\n");
    // A comment between conditions and before `;`.
    check_fmt("permit(principal,action,resource) when { true }\n// two\n"
              "unless { false }\n// semi\n;",
              "permit (principal, action, resource)\n"
              "when { true }\n// two\n// semi\nunless { false };\n");
    // Comment text is kept as written, `//` inside strings is no comment.
    check_fmt("permit(principal,action,resource) when { context.u == "
              "\"http://x\" }; //// odd \xc3\xa9",
              "permit (principal, action, resource)\n"
              "when { context.u == \"http://x\" }; //// odd \xc3\xa9\n");
    // A temporal body with a comment.
    check_fmt("permit(principal,action,resource) when temporal {\n"
              "  // recent\n  formerly within 1h A::Action::\"x\"::request{}\n};",
              "permit (principal, action, resource)\n"
              "when temporal {\n"
              "    // recent\n"
              "    formerly within 1h A::Action::\"x\"::request{}\n"
              "};\n");
}

static void
test_refusals(void **state)
{
    (void)state;
#define MACRO_CALL                                                            \
    "permit(principal, action, resource) when temporal { "                    \
    "count_within(1h, Drupe::Action::\"A\"::request{}) > 1 };"
    static const char *const bad[] = {
        "permit(principal, action, resource) when { 1 = 2 };",
        "def cedar f(?x) { ?x };", // the rules hold expansions
        MACRO_CALL,
        "permit(principal, action, resource)",
        "permit(principal, action, resource) when { \"\\q\" };",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        box_buf out, err;
        box_buf_init(&out, 1u << 20);
        box_buf_init(&err, 1u << 16);
        box_err rv = pdp_fmt(bad[i], strlen(bad[i]), "bad.dw", &out, &err);
        if (rv != BOX_EPARSE && rv != BOX_ENOTSUP)
            fail_msg("%s: %s", bad[i], box_strerror(rv));
        assert_int_equal(out.b_len, 0);
        assert_non_null(err.b_data);
        assert_int_equal(strncmp(err.b_data, "bad.dw:1:", 9), 0);
        box_buf_reset(&out);
        box_buf_reset(&err);
    }
}

/* Every allocation of a fmt failing in turn (box_alloc_fail_after): each
 * run ends in a clean error with out unchanged, or gives the reference
 * text exactly; the ASan run checks that nothing leaks. */
static void
test_alloc_walk(void **state)
{
    (void)state;
    static const char src[] =
        "// head\n@id(\"a\") permit(principal, action in [A::Action::\"x\"], "
        "resource) when { context.a && (context.b || -(1) < 2) } // t\n"
        "unless temporal { formerly within 1h A::Action::\"x\"::request{} };\n"
        "// tail\n";
    char *want = fmt(src, strlen(src));
    unsigned long n = 1;
    for (;; n++) {
        assert_true(n < 100000);
        box_buf out, err;
        box_buf_init(&out, 1u << 20);
        box_buf_init(&err, 1u << 16);
        box_alloc_fail_after(n);
        box_err rv = pdp_fmt(src, strlen(src), "f.dw", &out, &err);
        bool hit = box_alloc_calls() >= n;
        box_alloc_fail_off();
        if (rv == BOX_OK) {
            assert_int_equal(box_buf_putc(&out, '\0'), BOX_OK);
            assert_string_equal(out.b_data, want);
        } else {
            assert_true(hit);
            assert_int_equal(out.b_len, 0);
        }
        box_buf_reset(&out);
        box_buf_reset(&err);
        if (!hit)
            break;
    }
    print_message("fmt: %lu allocations walked\n", n - 1);
    box_free(want);
}

/* ---- every .dw of the repository ---- */

static unsigned corpus_ok, corpus_refused, corpus_macros;

static int
corpus_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    size_t n = strlen(path);
    if (flag != FTW_F || n < 3 || strcmp(path + n - 3, ".dw") != 0 ||
        strstr(path, "/build") != NULL)
        return 0;
    size_t len;
    char *text = read_file_at(path, &len);
    assert_non_null(text);
    char *d = dumps(text, len, NULL);
    box_buf out, err;
    box_buf_init(&out, 1u << 26);
    box_buf_init(&err, 1u << 16);
    bool macros = d != NULL && pdp_fmt(text, len, "f.dw", &out, &err) ==
                                   BOX_ENOTSUP &&
                  strstr(err.b_data, "macro definitions and calls") != NULL;
    box_buf_reset(&out);
    box_buf_reset(&err);
    if (d == NULL) {
        corpus_refused++; // does not parse (expected failures)
    } else if (macros) {
        corpus_macros++; // refused: the rules hold the expansions
    } else {
        box_free(check_roundtrip(path, text, len));
        corpus_ok++;
    }
    box_free(d);
    box_free(text);
    return 0;
}

static void
test_corpus(void **state)
{
    (void)state;
    static const char *const roots[] = {"pdp/testdata", "deploy", "tests"};
    for (size_t i = 0; i < 3; i++) {
        char *root = source_path(roots[i]);
        assert_int_equal(nftw(root, corpus_one, 16, FTW_PHYS), 0);
        box_free(root);
    }
    print_message("corpus: %u files formatted and read back, %u do not "
                  "parse, %u use macros (refused)\n", corpus_ok,
                  corpus_refused, corpus_macros);
    assert_true(corpus_ok >= 150);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parentheses),
        cmocka_unit_test(test_random_expressions),
        cmocka_unit_test(test_layout),
        cmocka_unit_test(test_comments),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_alloc_walk),
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
