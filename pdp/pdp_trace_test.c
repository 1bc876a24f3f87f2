/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_trace: the §7.1 lines, values, the corpus traces, errors. */
#include "pdp_test_util.h"

#include <dirent.h>
#include <sys/stat.h>

#include "pdp_hist.h"
#include "pdp_trace.h"

static box_err
load(pdp_hist *h, const char *text, const uint32_t **lines, char **msg)
{
    box_buf err;
    box_buf_init(&err, 4096);
    box_err rv = pdp_trace_load(text, strlen(text), "t.log", h, lines, &err);
    *msg = box_buf_take(&err);
    return rv;
}

static pdp_hist *
load_ok(const char *text)
{
    pdp_hist *h = pdp_hist_new();
    assert_non_null(h);
    char *msg;
    if (load(h, text, NULL, &msg) != BOX_OK)
        fail_msg("%s\n  -> %s", text, msg);
    box_free(msg);
    return h;
}

/* v formatted as Cedar-like text equals want. */
static void
assert_value(const pdp_value *v, const char *want)
{
    assert_non_null(v);
    box_buf b;
    box_buf_init(&b, 1u << 16);
    assert_int_equal(pdp_value_format(v, &b), BOX_OK);
    if (strcmp(b.b_data, want) != 0)
        fail_msg("got  %s\nwant %s", b.b_data, want);
    box_buf_reset(&b);
}

static const pdp_value *
field(const pdp_event *e, const char *path)
{
    return pdp_hist_field(e->ev_fields, path, strlen(path));
}

/* The example of §7.1 (read_after_login), with a history-only response. */
static void
test_spec_example(void **state)
{
    (void)state;
    static const char text[] =
        "@0 scope(principal: Drupe::OAuthUser::\"alice\", resource: "
        "Drupe::Gateway::\"gw1\") request_context(input: { user: \"alice\" "
        "}) Drupe::Action::\"Login\"::request(input: { user: \"alice\" }, "
        "callerPrincipal: Drupe::OAuthUser::\"alice\", callerResource: "
        "Drupe::Gateway::\"gw1\", requestId: \"u1\")\n"
        "@10 scope(principal: User::\"u\", resource: Gateway::\"g\") "
        "Action::\"Act\"::response(input: { user: \"u\" }, output: { score: "
        "1.50, flag: true }, callerPrincipal: User::\"u\", callerResource: "
        "Gateway::\"g\", requestId: \"a1\")\n"
        "@7200 Drupe::Action::\"Read\"::error(input: { user: \"bob\" })\n";
    pdp_hist *h = pdp_hist_new();
    const uint32_t *lines = NULL;
    char *msg;
    if (load(h, text, &lines, &msg) != BOX_OK)
        fail_msg("%s", msg);
    box_free(msg);
    assert_int_equal(pdp_hist_len(h), 3);
    assert_non_null(lines);
    assert_int_equal(lines[0], 1);
    assert_int_equal(lines[2], 3);

    const pdp_event *e = pdp_hist_at(h, 0);
    assert_int_equal(e->ev_ts, 0);
    assert_value(e->ev_action, "Drupe::Action::\"Login\"");
    assert_string_equal(e->ev_kind, "request");
    assert_value(e->ev_principal, "Drupe::OAuthUser::\"alice\"");
    assert_value(e->ev_resource, "Drupe::Gateway::\"gw1\"");
    assert_value(e->ev_context, "{input: {user: \"alice\"}}");
    assert_value(field(e, "input.user"), "\"alice\"");
    assert_value(field(e, "requestId"), "\"u1\"");
    assert_value(field(e, "callerPrincipal"), "Drupe::OAuthUser::\"alice\"");
    assert_int_equal(pdp_value_count(e->ev_fields), 4);

    e = pdp_hist_at(h, 1);
    assert_string_equal(e->ev_kind, "response");
    assert_null(e->ev_context);
    assert_value(field(e, "output.flag"), "true");
    /* A decimal is Cedar's decimal (pdp_trace.h). */
    assert_value(field(e, "output.score"), "decimal(\"1.5000\")");

    /* A history-only line: no scope, no context, nothing mirrored. */
    e = pdp_hist_at(h, 2);
    assert_int_equal(e->ev_ts, 7200);
    assert_string_equal(e->ev_kind, "error");
    assert_null(e->ev_principal);
    assert_null(e->ev_resource);
    assert_null(e->ev_context);
    assert_int_equal(pdp_value_count(e->ev_fields), 1);
    pdp_hist_free(h);
}

/* Every value form of §7.1, names, blank lines and comments. */
static void
test_values(void **state)
{
    (void)state;
    pdp_hist *h = load_ok(
        "\n"
        "// a comment line\n"
        "   \t\n"
        "@-5 A::Action::\"x\"::tick(n: -42, m: 9223372036854775807, "
        "lo: -9223372036854775808, d: -0.25, z: 02.5, w: 1.23456, t: true, "
        "f: false, "
        "s: \"a\\\"b\\\\c\\u{0_1_2_3}\\x41\\n\", "
        "e: Ns :: Sub::Type::\"id \\\"q\\\"\", "
        "r: { in: 1, \"odd key\": { deep: [] } }, "
        "arr: [1, \"two\", [3], { x: Y::\"z\" }])  // trailing comment\n"
        "\n"
        "@-5 A::Action::\"x\"::tick()\n");
    assert_int_equal(pdp_hist_len(h), 2);
    const pdp_event *e = pdp_hist_at(h, 0);
    assert_int_equal(e->ev_ts, -5);
    assert_value(field(e, "n"), "-42");
    assert_value(field(e, "m"), "9223372036854775807");
    assert_value(field(e, "lo"), "-9223372036854775808");
    assert_value(field(e, "d"), "decimal(\"-0.2500\")");
    assert_value(field(e, "z"), "decimal(\"2.5000\")");
    /* Not a Cedar decimal (five digits after the point): its text. */
    assert_value(field(e, "w"), "\"1.23456\"");
    assert_value(field(e, "t"), "true");
    assert_value(field(e, "f"), "false");
    size_t n;
    const char *s = pdp_value_str(field(e, "s"), &n);
    assert_int_equal(n, 9);
    assert_memory_equal(s,
                        "a\"b\\c\xc4\xa3"
                        "A\n",
                        9);
    assert_value(field(e, "e"), "Ns::Sub::Type::\"id \\\"q\\\"\"");
    assert_value(field(e, "r.in"), "1");
    assert_value(field(e, "r"), "{in: 1, \"odd key\": {deep: []}}");
    assert_int_equal(pdp_value_kind_of(field(e, "arr")), PDP_VAL_SET);
    assert_int_equal(pdp_value_count(field(e, "arr")), 4);
    e = pdp_hist_at(h, 1);
    assert_int_equal(pdp_value_count(e->ev_fields), 0);
    pdp_hist_free(h);
}

/* §7.1: a line with a scope but without the caller fields gets them from
 * the scope; fields the line wrote are kept as written. */
static void
test_mirrored_scope(void **state)
{
    (void)state;
    pdp_hist *h = load_ok(
        "@1 scope(principal: U::\"p\", resource: G::\"r\") "
        "request_context(input: {}) N::Action::\"a\"::request(input: {})\n"
        "@2 scope(principal: U::\"p\", resource: G::\"r\") "
        "N::Action::\"a\"::response(callerPrincipal: U::\"other\")\n");
    const pdp_event *e = pdp_hist_at(h, 0);
    assert_value(field(e, "callerPrincipal"), "U::\"p\"");
    assert_value(field(e, "callerResource"), "G::\"r\"");
    assert_value(e->ev_context, "{input: {}}");
    e = pdp_hist_at(h, 1);
    assert_value(field(e, "callerPrincipal"), "U::\"other\"");
    assert_value(field(e, "callerResource"), "G::\"r\"");
    pdp_hist_free(h);
}

/* Loading appends after what the history holds, and the order holds
 * across the two; a failed load appends nothing. */
static void
test_append_and_all_or_nothing(void **state)
{
    (void)state;
    pdp_hist *h = load_ok("@10 N::Action::\"a\"::request()\n");
    const uint32_t *lines = NULL;
    char *msg;
    assert_int_equal(load(h,
                          "@10 N::Action::\"b\"::request()\n"
                          "\n@11 N::Action::\"c\"::request()",
                          &lines, &msg),
                     BOX_OK);
    box_free(msg);
    assert_int_equal(pdp_hist_len(h), 3);
    assert_int_equal(lines[0], 1);
    assert_int_equal(lines[1], 3);
    assert_value(pdp_hist_at(h, 2)->ev_action, "N::Action::\"c\"");

    assert_int_equal(load(h,
                          "@12 N::Action::\"d\"::request()\n"
                          "@13 N::Action::\"e\"::request(",
                          NULL, &msg),
                     BOX_EPARSE);
    assert_string_equal(msg,
                        "t.log:2:29: expected a field name, found end of line");
    box_free(msg);
    assert_int_equal(pdp_hist_len(h), 3);

    assert_int_equal(load(h, "@9 N::Action::\"d\"::request()", NULL, &msg),
                     BOX_EPARSE);
    assert_string_equal(msg, "t.log:1:2: timestamp 9 is before the previous "
                             "event's (11); timestamps must be non-decreasing");
    box_free(msg);
    assert_int_equal(pdp_hist_len(h), 3);
    pdp_hist_free(h);
}

/* Each bad line is refused with its position and a clear message. */
static void
test_errors(void **state)
{
    (void)state;
    static const struct {
        const char *text, *want;
    } cases[] = {
        {"N::Action::\"a\"::request()", "t.log:1:1: expected `@` and a "
                                        "timestamp (one event a line), found "
                                        "`N`"},
        {"@ 1 N::Action::\"a\"::request()",
         "t.log:1:2: expected the timestamp (integer seconds) directly after "
         "`@`"},
        {"@x N::Action::\"a\"::request()",
         "t.log:1:2: expected the timestamp (integer seconds) directly after "
         "`@`"},
        {"@1.5 N::Action::\"a\"::request()",
         "t.log:1:2: a timestamp is a whole number of seconds"},
        {"@99999999999999999999 N::Action::\"a\"::request()",
         "t.log:1:2: integer literal `99999999999999999999` is out of range"},
        {"@5 N::Action::\"a\"::request()\n@4 N::Action::\"a\"::request()",
         "t.log:2:2: timestamp 4 is before the previous event's (5); "
         "timestamps must be non-decreasing"},
        {"@1 N::Action::\"a\"::request()@2 N::Action::\"a\"::request()",
         "t.log:1:29: expected the end of the line after the event, found "
         "`@`"},
        {"@1 N::Action::\"a\"::request(\n)",
         "t.log:1:28: expected a field name, found end of line"},
        {"@1 N::Action::\"a\"::request(x: 1", "t.log:1:32: expected `,` or "
                                              "`)`, found end of line"},
        {"@1 N::Action::\"a\"", "t.log:1:18: expected `::`, found end of line"},
        {"@1 N::Action::\"a\"::(x: 1)",
         "t.log:1:20: expected the event kind (`request`, `response`, …), "
         "found `(`"},
        {"@1 N::Action::\"a\"::request", "t.log:1:27: expected `(`, found "
                                         "end of line"},
        {"@1 \"a\"::request()", "t.log:1:4: expected an entity "
                                "(`Ns::Type::\"id\"`), found `\"a\"`"},
        {"@1 N::Action::request()", "t.log:1:22: expected `::`, found `(`"},
        {"@1 N::Action::\"a\"::request(x: 1, x: 2)",
         "t.log:1:34: duplicate field `x`"},
        {"@1 N::Action::\"a\"::request(r: { a: 1, a: 1 })",
         "t.log:1:39: duplicate field `a`"},
        {"@1 N::Action::\"a\"::request(x: 1,)",
         "t.log:1:33: expected a field name, found `)`"},
        {"@1 N::Action::\"a\"::request(x 1)",
         "t.log:1:30: expected `:`, found `1`"},
        {"@1 N::Action::\"a\"::request(x: )",
         "t.log:1:31: expected a value (string, number, `true`, `false`, "
         "entity, record or array), found `)`"},
        {"@1 N::Action::\"a\"::request(x: null)",
         "t.log:1:35: expected `::`, found `)`"},
        {"@1 N::Action::\"a\"::request(x: - 1)",
         "t.log:1:31: expected a number directly after `-`"},
        {"@1 N::Action::\"a\"::request(x: 1.)",
         "t.log:1:31: expected digits after `.` in the decimal number `1.`"},
        {"@1 N::Action::\"a\"::request(x: 9223372036854775808)",
         "t.log:1:31: integer literal `9223372036854775808` is out of range"},
        {"@1 N::Action::\"a\"::request(x: -9223372036854775809)",
         "t.log:1:31: integer literal `-9223372036854775809` is out of "
         "range"},
        {"@1 N::Action::\"a\"::request(x: [1, 2)",
         "t.log:1:36: expected `,` or `]`, found `)`"},
        {"@1 N::Action::\"a\"::request(x: \"a\\qb\")",
         "t.log:1:33: the input `\\q` is not a valid escape"},
        {"@1 N::Action::\"a\"::request(x: \"a\nb\")",
         "t.log:1:31: a string in a trace may not span lines"},
        {"@1 N::Action::\"a\"::request(x: \"ab)",
         "t.log:1:31: unterminated string literal"},
        {"@1 N::Action::\"a\"::request(x: #)",
         "t.log:1:31: unexpected character `#`"},
        {"# comment\n@1 N::Action::\"a\"::request()",
         "t.log:1:1: unexpected character `#`"},
        {"@1 scope(principal: U::\"p\") N::Action::\"a\"::request()",
         "t.log:1:27: expected `,`, found `)`"},
        {"@1 scope(resource: G::\"r\", principal: U::\"p\") "
         "N::Action::\"a\"::request()",
         "t.log:1:10: expected `principal`, found `resource`"},
        {"@1 scope(principal: \"p\", resource: G::\"r\") "
         "N::Action::\"a\"::request()",
         "t.log:1:21: expected an entity (`Ns::Type::\"id\"`), found `\"p\"`"},
        {"@1 request_context(input: {}) scope(principal: U::\"p\", "
         "resource: G::\"r\") N::Action::\"a\"::request()",
         "t.log:1:36: expected `::`, found `(`"},
        {"@1 N::Action::\"a\"::request(x: \xff)",
         "t.log:1:31: trace text is not valid UTF-8"},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        pdp_hist *h = pdp_hist_new();
        char *msg;
        box_err rv = load(h, cases[i].text, NULL, &msg);
        if (rv != BOX_EPARSE || strcmp(msg, cases[i].want) != 0) {
            print_error("%s\n  got:  [%s] %s\n  want: %s\n", cases[i].text,
                        box_strerror(rv), msg, cases[i].want);
            bad++;
        }
        assert_int_equal(pdp_hist_len(h), 0);
        box_free(msg);
        pdp_hist_free(h);
    }
    assert_int_equal(bad, 0);
}

/* Nesting is capped below the value depth cap, with a message. */
static void
test_depth_cap(void **state)
{
    (void)state;
    box_buf b;
    box_buf_init(&b, 1u << 16);
    assert_int_equal(box_buf_puts(&b, "@1 N::Action::\"a\"::request(x: "),
                     BOX_OK);
    for (int i = 0; i < 70; i++)
        assert_int_equal(box_buf_putc(&b, '['), BOX_OK);
    pdp_hist *h = pdp_hist_new();
    char *msg;
    assert_int_equal(load(h, b.b_data, NULL, &msg), BOX_EPARSE);
    assert_string_equal(msg, "t.log:1:93: value nests too deeply (more than "
                             "62 records or arrays)");
    box_free(msg);
    pdp_hist_free(h);
    box_buf_reset(&b);

    /* 62 levels load. */
    box_buf_init(&b, 1u << 16);
    assert_int_equal(box_buf_puts(&b, "@1 N::Action::\"a\"::request(x: "),
                     BOX_OK);
    for (int i = 0; i < 62; i++)
        assert_int_equal(box_buf_putc(&b, '['), BOX_OK);
    for (int i = 0; i < 62; i++)
        assert_int_equal(box_buf_putc(&b, ']'), BOX_OK);
    assert_int_equal(box_buf_putc(&b, ')'), BOX_OK);
    h = load_ok(b.b_data);
    pdp_hist_free(h);
    box_buf_reset(&b);
}

/* ---- the conformance traces (pdp/testdata/dogwood, see FORMAT.md) ---- */

static int n_traces;

static void
check_trace(const char *path, const char *name)
{
    size_t len;
    char *text = read_file_at(path, &len);
    assert_non_null(text);
    pdp_hist *h = pdp_hist_new();
    box_buf err;
    box_buf_init(&err, 4096);
    const uint32_t *lines = NULL;
    if (pdp_trace_load(text, len, name, h, &lines, &err) != BOX_OK)
        fail_msg("%s: %s", path, err.b_data);
    /* Every corpus line is one event, and every event is a decision with
     * a scope, mirrored or written caller fields, and a context. */
    size_t nl = 0;
    for (size_t i = 0; i < len; i++)
        nl += text[i] == '\n';
    if (len > 0 && text[len - 1] != '\n')
        nl++;
    assert_int_equal(pdp_hist_len(h), nl);
    for (size_t i = 0; i < pdp_hist_len(h); i++) {
        const pdp_event *e = pdp_hist_at(h, i);
        assert_int_equal(lines[i], i + 1);
        assert_non_null(e->ev_principal);
        assert_non_null(e->ev_context);
        assert_true(
            pdp_value_equal(field(e, "callerPrincipal"), e->ev_principal));
        assert_true(
            pdp_value_equal(field(e, "callerResource"), e->ev_resource));
        assert_non_null(field(e, "requestId"));
    }
    box_buf_reset(&err);
    pdp_hist_free(h);
    box_free(text);
    n_traces++;
}

static void
walk(const char *dir)
{
    struct dirent **names;
    int n = scandir(dir, &names, NULL, alphasort);
    if (n < 0)
        fail_msg("cannot read %s", dir);
    for (int i = 0; i < n; i++) {
        const char *nm = names[i]->d_name;
        char *path = box_asprintf("%s/%s", dir, nm);
        struct stat st;
        if (nm[0] != '.' && stat(path, &st) == 0) {
            size_t l = strlen(nm);
            if (S_ISDIR(st.st_mode))
                walk(path);
            else if (strncmp(nm, "trace_", 6) == 0 && l > 4 &&
                     strcmp(nm + l - 4, ".log") == 0)
                check_trace(path, nm);
        }
        box_free(path);
        free(names[i]); // lint: allow raw-alloc: scandir mallocs them
    }
    free(names); // lint: allow raw-alloc: scandir mallocs it
}

static void
test_conformance_traces(void **state)
{
    (void)state;
    char *root = source_path("pdp/testdata/dogwood");
    n_traces = 0;
    walk(root);
    /* 46 under temporal_only/, 4 under mixed/ (FORMAT.md). */
    assert_int_equal(n_traces, 50);
    box_free(root);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_spec_example),
        cmocka_unit_test(test_values),
        cmocka_unit_test(test_mirrored_scope),
        cmocka_unit_test(test_append_and_all_or_nothing),
        cmocka_unit_test(test_errors),
        cmocka_unit_test(test_depth_cap),
        cmocka_unit_test(test_conformance_traces),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
