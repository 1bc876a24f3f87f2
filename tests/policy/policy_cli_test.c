/* SPDX-License-Identifier: Apache-2.0 */
/* `box policy eval`, `test` and `fmt` as a user runs them: outputs, exit
 * statuses, files rewritten or left alone. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_proc.h"
#include "box_testutil.h"

#define RUN_MS 60000

static char dir[64]; // this run's files

static int
setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/box-policy-cli-XXXXXX");
    return mkdtemp(dir) == NULL;
}

static int
teardown(void **state)
{
    (void)state;
    box_test_rmtree(dir);
    return 0;
}

/* dir/name, in a static buffer per slot. */
static const char *
at(int slot, const char *name)
{
    static char paths[8][PATH_MAX];
    snprintf(paths[slot], sizeof paths[slot], "%s/%s", dir, name);
    return paths[slot];
}

static const char *
src(const char *rel)
{
    static char path[PATH_MAX];
    const char *root = getenv("BOX_SOURCE_DIR");
    snprintf(path, sizeof path, "%s/%s", root ? root : "..", rel);
    return path;
}

static void
run(box_proc_result *r, char *const *args)
{
    box_test_cli(args, RUN_MS, r);
}

static const char drupe_policy[] =
    "@id(\"sell\") permit (principal, action == Drupe::Action::\"SellShares\", "
    "resource);\n"
    "@id(\"no-amzn\") forbid (principal, action == "
    "Drupe::Action::\"SellShares\", resource)\n"
    "when { context.input.stock == \"AMZN\" };\n"
    "forbid (principal, action, resource) when { context.input.shares + "
    "9223372036854775807 > 0 };\n";

/* A Drupe request for SellShares. */
static void
put_request(const char *path, int shares, const char *stock)
{
    char text[512];
    snprintf(text, sizeof text,
             "{\"principal\": \"Drupe::OAuthUser::\\\"alice\\\"\", \"action\": "
             "\"Drupe::Action::\\\"SellShares\\\"\", \"resource\": "
             "\"Drupe::Gateway::\\\"gw1\\\"\", \"context\": {\"input\": "
             "{\"shares\": %d, \"stock\": \"%s\"}}, \"resource_text\": "
             "\"%s\"}\n",
             shares, stock, stock);
    box_test_put(path, text);
}

/* ---- eval ---- */

static void
test_eval_text_and_explain(void **state)
{
    (void)state;
    box_proc_result r;
    box_test_put(at(0, "d.dw"), drupe_policy);
    put_request(at(1, "amzn.json"), 0, "AMZN");
    run(&r, (char *[]){"policy", "eval", "--dogwood", "--policy", (char *)at(0, "d.dw"),
                       "--request", (char *)at(1, "amzn.json"), NULL});
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r,
                        "decision: deny\n"
                        "reason: Forbidden\n"
                        "rules: no-amzn, policy_2\n"
                        "message: policy denied this operation on 'AMZN' "
                        "[policy: no-amzn]; [policy: policy_2].\n"
                        "errors: (none)\n");
    box_proc_result_free(&r);

    put_request(at(1, "msft.json"), 1, "MSFT");
    run(&r, (char *[]){"policy", "eval", "--dogwood", "--explain", "--policy",
                       (char *)at(0, "d.dw"), "--request",
                       (char *)at(1, "msft.json"), NULL});
    box_test_expect_status(&r, 0);
    box_test_expect_out(
        &r, "decision: deny\n"
            "reason: InternalFault\n"
            "cedar: allow (Box denies on any error)\n"
            "rules: sell\n"
            "message: policy denied this operation on 'MSFT' because the "
            "request could not be evaluated.\n"
            "errors:\n"
            "  policy_2: integer overflow while attempting to add the values "
            "`1` and `9223372036854775807`\n"
            "why:\n"
            "  sell (policy_0), permit at line 1: matched\n"
            "  policy_2, forbid at line 4: error: integer overflow while "
            "attempting to add the values `1` and `9223372036854775807`\n");
    box_proc_result_free(&r);

    run(&r, (char *[]){"policy", "eval", "--dogwood", "--explain", "--json",
                       "--policy", (char *)at(0, "d.dw"), "--request",
                       (char *)at(1, "msft.json"), NULL});
    box_test_expect_status(&r, 0);
    box_test_expect_out(
        &r, "{\"decision\":\"deny\",\"reason\":\"InternalFault\",\"cedar\":"
            "\"allow\",\"rules\":[\"sell\"],\"message\":\"policy denied this "
            "operation on 'MSFT' because the request could not be evaluated."
            "\",\"errors\":[{\"rule\":\"policy_2\",\"message\":\"integer "
            "overflow while attempting to add the values `1` and "
            "`9223372036854775807`\"}],\"why\":[{\"rule\":\"sell\",\"policy\":"
            "\"policy_0\",\"effect\":\"permit\",\"line\":1,\"result\":"
            "\"matched\"},{\"rule\":\"policy_2\",\"policy\":\"policy_2\","
            "\"effect\":\"forbid\",\"line\":4,\"result\":\"error\",\"message\":"
            "\"integer overflow while attempting to add the values `1` and "
            "`9223372036854775807`\"}]}\n");
    box_proc_result_free(&r);
}

/* The default load is box-pdp's: a request that does not fit the Box
 * schema is a fault deny, decided (exit 0), and no rule ran. */
static void
test_eval_box_load(void **state)
{
    (void)state;
    box_proc_result r;
    box_test_put(at(0, "all.dw"), "permit (principal, action, resource);\n");
    box_test_put(at(1, "half.json"),
                 "{\"action\": \"Box::Action::\\\"fs:read\\\"\", \"context\": "
                 "{\"input\": {\"path\": \"~/x\"}}}");
    run(&r, (char *[]){"policy", "eval", "--explain", "--policy",
                       (char *)at(0, "all.dw"), "--request",
                       (char *)at(1, "half.json"), NULL});
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r,
                        "decision: deny\n"
                        "reason: InternalFault\n"
                        "rules: (none)\n"
                        "message: policy denied this operation because the "
                        "request could not be evaluated.\n"
                        "errors:\n"
                        "  request: request for Box::Action::\"fs:read\" does "
                        "not match the schema: `input.operation` is required "
                        "but missing\n"
                        "why: no rule was evaluated (the request itself was "
                        "refused; see errors)\n");
    box_proc_result_free(&r);

    box_test_put(at(1, "read.json"),
                 "{\"action\": \"Box::Action::\\\"fs:read\\\"\", \"context\": "
                 "{\"input\": {\"path\": \"~/x\", \"operation\": {\"__entity\": "
                 "{\"type\": \"Box::FsReadOperation\", \"id\": "
                 "\"read_content\"}}}}, \"resource_text\": \"~/x\"}");
    run(&r, (char *[]){"policy", "eval", "--policy", (char *)at(0, "all.dw"),
                       "--request", (char *)at(1, "read.json"), NULL});
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "decision: allow\nreason: Permitted\n"
                            "rules: policy_0\n"
                            "message: policy permitted this operation on "
                            "'~/x'.\nerrors: (none)\n");
    box_proc_result_free(&r);
}

/* --history: the request is decided after the trace's events (§8.2 T1). */
static void
test_eval_history(void **state)
{
    (void)state;
    box_proc_result r;
    const char *pol = src("pdp/testdata/worked/T01_read_after_login/policy_1.dw");
    char policy[PATH_MAX];
    snprintf(policy, sizeof policy, "%s", pol);
    box_test_put(at(0, "login.log"),
                 "@0 scope(principal: Drupe::OAuthUser::\"alice\", resource: "
                 "Drupe::Gateway::\"gw1\") request_context(input: { user: "
                 "\"alice\" }) Drupe::Action::\"Login\"::request(input: { user: "
                 "\"alice\" })\n");
    const char *rq = "{\"principal\": \"Drupe::OAuthUser::\\\"alice\\\"\", "
                     "\"action\": \"Drupe::Action::\\\"Read\\\"\", "
                     "\"resource\": \"Drupe::Gateway::\\\"gw1\\\"\", "
                     "\"context\": {\"input\": {\"user\": \"alice\", "
                     "\"document\": \"d\"}}, \"ts\": %d}";
    char text[512];
    snprintf(text, sizeof text, rq, 10);
    box_test_put(at(1, "read10.json"), text);
    snprintf(text, sizeof text, rq, 7200);
    box_test_put(at(2, "read7200.json"), text);

    run(&r, (char *[]){"policy", "eval", "--dogwood", "--policy", policy,
                       "--history", (char *)at(0, "login.log"), "--request",
                       (char *)at(1, "read10.json"), NULL});
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "decision: allow\nreason: Permitted\n"
                            "rules: read_after_login\n"
                            "message: policy permitted this operation.\n"
                            "history: 1 events before it; decided at time "
                            "point 1 (@10)\n"
                            "errors: (none)\n");
    box_proc_result_free(&r);
    run(&r, (char *[]){"policy", "eval", "--dogwood", "--json", "--policy",
                       policy, "--history", (char *)at(0, "login.log"),
                       "--request", (char *)at(2, "read7200.json"), NULL});
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "{\"decision\":\"deny\",\"reason\":\"NoMatch\","
                            "\"cedar\":\"deny\",\"rules\":[],\"message\":"
                            "\"policy denied this operation [default-deny]: "
                            "No permit policy matched this request.\","
                            "\"errors\":[],\"history\":1,\"time_point\":1,"
                            "\"ts\":7200}\n");
    box_proc_result_free(&r);
    // Without the history the login never happened.
    run(&r, (char *[]){"policy", "eval", "--dogwood", "--policy", policy,
                       "--request", (char *)at(1, "read10.json"), NULL});
    box_test_expect_status(&r, 0);
    assert_non_null(strstr(r.pr_out, "decision: deny\n"));
    box_proc_result_free(&r);
    // A request before the history's end does not check.
    box_test_put(at(3, "early.log"),
                 "@100 Drupe::Action::\"Login\"::request(input: { user: "
                 "\"alice\" })\n");
    run(&r, (char *[]){"policy", "eval", "--dogwood", "--policy", policy,
                       "--history", (char *)at(3, "early.log"), "--request",
                       (char *)at(1, "read10.json"), NULL});
    box_test_expect_status(&r, 2);
    box_test_expect_err_has(&r, "the request's ts 10 is before the history's "
                                "last event (@100)");
    box_proc_result_free(&r);
}

static void
test_eval_statuses(void **state)
{
    (void)state;
    box_proc_result r;
    box_test_put(at(0, "ok.dw"), "permit (principal, action, resource);\n");
    box_test_put(at(1, "ok.json"), "{\"action\": \"A::Action::\\\"x\\\"\"}");
    // The request does not check: 2, naming the member.
    box_test_put(at(2, "bad.json"),
                 "{\"action\": \"A::Action::\\\"x\\\"\", \"context\": "
                 "{\"n\": 1.5}}");
    run(&r, (char *[]){"policy", "eval", "--dogwood", "--policy",
                       (char *)at(0, "ok.dw"), "--request",
                       (char *)at(2, "bad.json"), NULL});
    box_test_expect_status(&r, 2);
    box_test_expect_err_has(&r, "context.n: 1.5 is not a Cedar value");
    box_proc_result_free(&r);
    // The policy does not load: 2.
    box_test_put(at(3, "bad.dw"), "permit (principal, action, resource) when "
                                  "{ 1 = 2 };\n");
    run(&r, (char *[]){"policy", "eval", "--policy", (char *)at(3, "bad.dw"),
                       "--request", (char *)at(1, "ok.json"), NULL});
    box_test_expect_status(&r, 2);
    box_test_expect_err_has(&r, "will not load: failed to parse policy "
                                "source: dogwood parse: ");
    box_proc_result_free(&r);
    // Box's load refuses an action its schema does not have.
    run(&r, (char *[]){"policy", "eval", "--policy", (char *)at(0, "ok.dw"),
                       "--request", (char *)at(1, "ok.json"), NULL});
    box_test_expect_status(&r, 0);
    assert_non_null(strstr(r.pr_out, "reason: InternalFault\n"));
    box_proc_result_free(&r);
    // A file that cannot be read, and usage errors: 1.
    run(&r, (char *[]){"policy", "eval", "--policy", "/nonexistent.dw",
                       "--request", (char *)at(1, "ok.json"), NULL});
    box_test_expect_status(&r, 1);
    box_test_expect_err_has(&r, "cannot read policy file /nonexistent.dw");
    box_proc_result_free(&r);
    run(&r, (char *[]){"policy", "eval", "--policy", (char *)at(0, "ok.dw"),
                       NULL});
    box_test_expect_status(&r, 1);
    box_test_expect_err_has(&r, "usage: box policy eval");
    box_proc_result_free(&r);
    run(&r, (char *[]){"policy", "eval", "--dogwood", "--schema", "x",
                       "--policy", (char *)at(0, "ok.dw"), "--request",
                       (char *)at(1, "ok.json"), NULL});
    box_test_expect_status(&r, 1);
    box_proc_result_free(&r);
    run(&r, (char *[]){"policy", "eval", "--help", NULL});
    box_test_expect_status(&r, 0);
    assert_non_null(strstr(r.pr_out, "R.json is one JSON object"));
    box_proc_result_free(&r);
}

/* ---- test ---- */

static void
test_test_cases(void **state)
{
    (void)state;
    box_proc_result r;
    box_test_put(at(0, "d.dw"), drupe_policy);
    box_test_put(
        at(1, "cases.jsonl"),
        "// Drupe cases\n"
        "\n"
        "{\"defaults\": {\"policy\": \"d.dw\", \"load\": \"dogwood\", "
        "\"request\": {\"principal\": \"Drupe::OAuthUser::\\\"alice\\\"\", "
        "\"action\": \"Drupe::Action::\\\"SellShares\\\"\", \"resource\": "
        "\"Drupe::Gateway::\\\"gw1\\\"\", \"context\": {\"input\": "
        "{\"shares\": 0}}}}}\n"
        "{\"name\": \"amzn\", \"request\": {\"context\": {\"input\": "
        "{\"stock\": \"AMZN\"}}}, \"expect\": \"deny\", \"rules\": "
        "[\"policy_2\", \"no-amzn\"], \"reason\": \"Forbidden\", \"errors\": "
        "[]}\n"
        "{\"name\": \"wrong\", \"request\": {\"context\": {\"input\": "
        "{\"stock\": \"MSFT\"}}}, \"expect\": \"allow\", \"rules\": "
        "[\"sell\"]}\n"
        "{\"name\": \"waits\", \"request\": {\"context\": {\"input\": "
        "{\"stock\": \"MSFT\"}}}, \"expect\": \"allow\", \"pending\": \"a "
        "reason\"}\n"
        "{\"name\": \"refused\", \"policy_text\": \"permit (principal, action, "
        "resource) when { 1 = 2 };\", \"expect\": \"refuse\", \"error\": "
        "\"did you mean `==`\"}\n"
        "{\"name\": \"loads\", \"policy_text\": \"permit (principal, action, "
        "resource);\", \"expect\": \"refuse\", \"error\": \"x\"}\n");
    run(&r, (char *[]){"policy", "test", (char *)at(1, "cases.jsonl"), NULL});
    box_test_expect_status(&r, 3);
    char want[2048];
    snprintf(want, sizeof want,
             "FAIL %s:5 wrong\n"
             "  decision: deny, expected allow\n"
             "  rules: [policy_2], expected [sell]\n"
             "FAIL %s:8 loads\n"
             "  the policy loads, expected a refusal containing \"x\"\n"
             "2 passed, 2 failed, 1 pending\n",
             at(1, "cases.jsonl"), at(1, "cases.jsonl"));
    box_test_expect_out(&r, want);
    box_proc_result_free(&r);

    // A case that is no case: 2, with where and why.
    box_test_put(at(2, "bad.jsonl"), "{\"expcet\": \"allow\"}\n");
    run(&r, (char *[]){"policy", "test", (char *)at(2, "bad.jsonl"), NULL});
    box_test_expect_status(&r, 2);
    box_test_expect_err_has(&r, "bad.jsonl:1: not a case: unknown member "
                                "\"expcet\"");
    box_proc_result_free(&r);
    box_test_put(at(2, "bad.jsonl"), "{\"expect\": \"allow\"\n");
    run(&r, (char *[]){"policy", "test", (char *)at(2, "bad.jsonl"), NULL});
    box_test_expect_status(&r, 2);
    box_test_expect_err_has(&r, "bad.jsonl:1: not one JSON object");
    box_proc_result_free(&r);
    // All passing: 0.
    box_test_put(at(2, "good.jsonl"),
                 "{\"policy_text\": \"permit (principal, action, resource);\", "
                 "\"request\": {\"action\": \"Box::Action::\\\"shell:exec\\\"\", "
                 "\"context\": {\"input\": {\"command\": \"ls\", \"program\": "
                 "\"ls\", \"arg_count\": 0, \"cwd\": \"/\"}}}, \"expect\": "
                 "\"allow\", \"rules\": [\"policy_0\"], \"warnings\": []}\n");
    run(&r, (char *[]){"policy", "test", "--verbose",
                       (char *)at(2, "good.jsonl"), NULL});
    box_test_expect_status(&r, 0);
    assert_non_null(strstr(r.pr_out, "ok   "));
    assert_true(box_test_has_line(r.pr_out, "1 passed, 0 failed"));
    box_proc_result_free(&r);
    run(&r, (char *[]){"policy", "test", NULL});
    box_test_expect_status(&r, 1);
    box_proc_result_free(&r);
}

/* ---- fmt ---- */

static const char messy[] =
    "// header\n"
    "@id(\"a\")   permit(principal,action==Box::Action::\"fs:read\",resource)"
    " when { ((context.input.path == \"~/a\")) } ; // end\n";
static const char tidy[] =
    "// header\n"
    "@id(\"a\")\n"
    "permit (principal, action == Box::Action::\"fs:read\", resource)\n"
    "when { context.input.path == \"~/a\" }; // end\n";

static void
test_fmt(void **state)
{
    (void)state;
    box_proc_result r;
    const char *f = at(0, "messy.dw");
    box_test_put(f, messy);
    assert_int_equal(chmod(f, 0640), 0);
    run(&r, (char *[]){"policy", "fmt", "--check", (char *)f, NULL});
    box_test_expect_status(&r, 3);
    char want[PATH_MAX + 64];
    snprintf(want, sizeof want, "would reformat %s\n", f);
    box_test_expect_out(&r, want);
    box_proc_result_free(&r);
    char *text = box_test_slurp(f);
    assert_string_equal(text, messy); // --check changes nothing
    box_free(text);

    run(&r, (char *[]){"policy", "fmt", (char *)f, NULL});
    box_test_expect_status(&r, 0);
    snprintf(want, sizeof want, "reformatted %s\n", f);
    box_test_expect_out(&r, want);
    box_proc_result_free(&r);
    text = box_test_slurp(f);
    assert_string_equal(text, tidy);
    box_free(text);
    struct stat st;
    assert_int_equal(stat(f, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0640); // the mode is kept

    // Canonical now: nothing to say, nothing to do.
    run(&r, (char *[]){"policy", "fmt", "--check", (char *)f, NULL});
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "");
    box_proc_result_free(&r);
    run(&r, (char *[]){"policy", "fmt", (char *)f, NULL});
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "");
    box_proc_result_free(&r);

    // A file that does not parse is left as it is: 2, and the others
    // are still done.
    const char *bad = at(1, "bad.dw"), *other = at(2, "other.dw");
    box_test_put(bad, "permit (principal, action, resource) when { 1 = 2 };\n");
    box_test_put(other, "permit(principal,action,resource);");
    run(&r, (char *[]){"policy", "fmt", (char *)bad, (char *)other, NULL});
    box_test_expect_status(&r, 2);
    box_test_expect_err_has(&r, "does not parse, so it is left as it is: ");
    box_proc_result_free(&r);
    text = box_test_slurp(bad);
    assert_string_equal(text,
                        "permit (principal, action, resource) when { 1 = 2 };\n");
    box_free(text);
    text = box_test_slurp(other);
    assert_string_equal(text, "permit (principal, action, resource);\n");
    box_free(text);

    // `-`: standard input to standard output.
    box_test_put(f, messy);
    char bin[PATH_MAX];
    box_proc_bin(bin, sizeof bin, "box");
    char *argv[] = {"/bin/sh", "-c", "exec \"$0\" policy fmt - < \"$1\"", bin,
                    (char *)f, NULL};
    box_proc_run(argv, RUN_MS, &r);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, tidy);
    box_proc_result_free(&r);

    run(&r, (char *[]){"policy", "fmt", NULL});
    box_test_expect_status(&r, 1);
    box_proc_result_free(&r);
    run(&r, (char *[]){"policy", "fmt", "/nonexistent.dw", NULL});
    box_test_expect_status(&r, 1);
    box_proc_result_free(&r);
}

/* Every .dw the repository ships formats to a fixed point through the
 * CLI too: fmt of a formatted copy changes nothing. */
static void
test_fmt_shipped(void **state)
{
    (void)state;
    static const char *const files[] = {
        "deploy/quickstart/policy.dw", "pdp/testdata/box/agent-anthropic.dw",
        "pdp/testdata/box/shell-guard.dw", "tests/policy/box/b13.dw",
        "pdp/testdata/worked/T17_sum_value_vs_timepoint/policy_1.dw"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        box_proc_result r;
        const char *copy = at(3, "copy.dw");
        box_test_copy(src(files[i]), copy, 0644);
        run(&r, (char *[]){"policy", "fmt", (char *)copy, NULL});
        box_test_expect_status(&r, 0);
        box_proc_result_free(&r);
        run(&r, (char *[]){"policy", "fmt", "--check", (char *)copy, NULL});
        box_test_expect_status(&r, 0);
        box_proc_result_free(&r);
        run(&r, (char *[]){"policy", "check", (char *)copy, NULL});
        if (strstr(files[i], "worked") == NULL) // Drupe: not Box's schema
            box_test_expect_status(&r, 0);
        box_proc_result_free(&r);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_eval_text_and_explain),
        cmocka_unit_test(test_eval_box_load),
        cmocka_unit_test(test_eval_history),
        cmocka_unit_test(test_eval_statuses),
        cmocka_unit_test(test_test_cases),
        cmocka_unit_test(test_fmt),
        cmocka_unit_test(test_fmt_shipped),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
