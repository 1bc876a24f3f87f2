/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_decide: Box decisions and messages of §8.3 (B1–B10, B16,
 * B19, B20), C19 under Box's error rule, and fail-closed paths. */
#include "pdp_test_util.h"

#include "pdp_decide.h"
#include "pdp_policy.h"

static box_arena *A;
static pdp_answer *ANS;

static int
setup(void **state)
{
    A = box_arena_new(256u << 20);
    ANS = pdp_answer_new();
    return A == NULL || ANS == NULL;
}

static int
teardown(void **state)
{
    pdp_answer_free(ANS);
    box_arena_free(A);
    return 0;
}

static pdp_policy_set *
load_text(const char *text)
{
    pdp_policy_set *set;
    char *err;
    if (pdp_policy_load(text, strlen(text), "box.dw", &set, &err) != BOX_OK)
        fail_msg("load: %s", err);
    return set;
}

static pdp_policy_set *
load_files(const char *const *rels, size_t n)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    for (size_t i = 0; i < n; i++) {
        char *path = source_path(rels[i]);
        size_t len;
        char *t = read_file_at(path, &len);
        if (t == NULL)
            fail_msg("cannot read %s", path);
        assert_int_equal(box_buf_append(&b, t, len), BOX_OK);
        assert_int_equal(box_buf_putc(&b, '\n'), BOX_OK);
        box_free(t);
        box_free(path);
    }
    pdp_policy_set *set = load_text(b.b_data);
    box_buf_reset(&b);
    return set;
}

/* Decides Box::Action::"<action>" with context { input: <input> } and
 * returns "VERDICT Reason [ids]"; *msg points at the answer's message. */
static char *
box_decide(const pdp_policy_set *set, const char *action, const char *input,
           const char *res, const char **msg)
{
    char *act = box_asprintf("Box::Action::\"%s\"", action);
    char *ctx = box_asprintf("{ input: %s }", input);
    pdp_request rq = trq(A, "Box::Agent::\"self\"", act,
                         "Box::Resource::\"unused\"", ctx, res);
    assert_int_equal(pdp_decide(set, &rq, ANS), BOX_OK);
    box_buf b;
    box_buf_init(&b, 1u << 16);
    assert_int_equal(box_buf_printf(&b, "%s %s [",
                                    pdp_answer_verdict(ANS) == PDP_ALLOW
                                        ? "ALLOW"
                                        : "DENY",
                                    pdp_reason_name(pdp_answer_reason(ANS))),
                     BOX_OK);
    for (size_t i = 0; i < pdp_answer_determining_count(ANS); i++)
        assert_int_equal(
            box_buf_printf(&b, "%s%s", i ? ", " : "",
                           pdp_rule_display_id(pdp_answer_determining(ANS, i)).s),
            BOX_OK);
    assert_int_equal(box_buf_putc(&b, ']'), BOX_OK);
    if (pdp_answer_error_count(ANS) > 0)
        assert_int_equal(box_buf_printf(&b, " errors=%zu",
                                        pdp_answer_error_count(ANS)),
                         BOX_OK);
    *msg = pdp_answer_message(ANS, NULL);
    box_free(act);
    box_free(ctx);
    return box_buf_take(&b);
}

static void
expect(const pdp_policy_set *set, const char *action, const char *input,
       const char *res, const char *want, const char *want_msg)
{
    const char *msg;
    char *got = box_decide(set, action, input, res, &msg);
    if (strcmp(got, want) != 0)
        fail_msg("%s %s\n  got:  %s\n  want: %s", action, input, got, want);
    if (want_msg != NULL && strcmp(msg, want_msg) != 0)
        fail_msg("%s %s\n  got msg:  %s\n  want msg: %s", action, input, msg,
                 want_msg);
    box_free(got);
}

#define ECHO "{command: \"echo hello\", program: \"echo\", arg1: \"hello\", " \
             "arg_count: 1, cwd: \"/workspace\"}"

static void
test_b1_to_b6(void **state)
{
    pdp_policy_set *set = load_text("");
    expect(set, "shell:exec", ECHO, "echo", "DENY NoMatch []",
           "policy denied this operation on 'echo' [default-deny]: No permit "
           "policy matched this request.");
    pdp_policy_free(set);

    set = load_text("permit (principal, action, resource);");
    expect(set, "shell:exec", ECHO, "echo", "ALLOW Permitted [policy_0]",
           "policy permitted this operation on 'echo'.");
    pdp_policy_free(set);

    set = load_text(
        "@id(\"permit\") @description(\"This permit does not explain a "
        "denial.\")\npermit (principal, action, resource);\n"
        "@id(\"protected\") @description(\"Protected files cannot be "
        "changed.\")\nforbid (principal, action, resource);\n"
        "@id(\"no_command\") @description(\"This workload cannot run this "
        "command.\")\nforbid (principal, action, resource);");
    expect(set, "shell:exec", ECHO, "echo",
           "DENY Forbidden [protected, no_command]",
           "policy denied this operation on 'echo' [policy: protected]: "
           "Protected files cannot be changed.; [policy: no_command]: This "
           "workload cannot run this command.");
    pdp_policy_free(set);

    set = load_text("@id(\" \\t\") @description(\" \\n\") forbid (principal, "
                    "action, resource);");
    expect(set, "shell:exec", ECHO, "echo", "DENY Forbidden [policy_0]",
           "policy denied this operation on 'echo' [policy: policy_0].");
    pdp_policy_free(set);
    set = load_text("@id(\"default-deny\") forbid (principal, action, "
                    "resource);");
    expect(set, "shell:exec", ECHO, "echo", "DENY Forbidden [default-deny]",
           "policy denied this operation on 'echo' [policy: default-deny].");
    pdp_policy_free(set);

    set = load_text("permit (principal, action, resource); @id(\"no-secrets\") "
                    "@description(\"Secrets stay unread.\") forbid (principal, "
                    "action == Box::Action::\"fs:read\", resource);");
    expect(set, "fs:read",
           "{path: \"~/notes.txt\", operation: "
           "Box::FsReadOperation::\"read_content\"}",
           "~/notes.txt", "DENY Forbidden [no-secrets]",
           "policy denied this operation on '~/notes.txt' [policy: no-secrets]: "
           "Secrets stay unread.");
    pdp_policy_free(set);

    /* B6: the fault wins over the permit; attribution keeps the permit. */
    set = load_text("@id(\"misleading\") @description(\"This is not the cause "
                    "of an evaluation fault.\") permit (principal, action, "
                    "resource); forbid (principal, action, resource) when { "
                    "9223372036854775807 + 1 > 0 };");
    expect(set, "shell:exec", ECHO, "echo",
           "DENY InternalFault [misleading] errors=1",
           "policy denied this operation on 'echo' because the request could "
           "not be evaluated.");
    assert_int_equal(pdp_answer_cedar_verdict(ANS), PDP_ALLOW);
    assert_string_equal(pdp_answer_error_rule(ANS, 0)->r_pid.s, "policy_1");
    assert_string_equal(pdp_answer_error_message(ANS, 0),
                        "integer overflow while attempting to add the values "
                        "`9223372036854775807` and `1`");
    pdp_policy_free(set);

    /* C19 under Box. */
    set = load_text("@id(\"all\") permit (principal, action, resource);\n"
                    "forbid (principal, action, resource) when { "
                    "9223372036854775807 + 1 > 0 };");
    expect(set, "shell:exec", ECHO, "echo", "DENY InternalFault [all] errors=1",
           "policy denied this operation on 'echo' because the request could "
           "not be evaluated.");
    pdp_policy_free(set);
}

static void
test_b7_agent_anthropic(void **state)
{
    static const char *const files[] = {"pdp/testdata/box/agent-anthropic.dw"};
    pdp_policy_set *set = load_files(files, 1);
    expect(set, "net:connect", "{host: \"api.anthropic.com\", port: 443}", "",
           "ALLOW Permitted [anthropic_connect]", NULL);
    expect(set, "net:connect", "{host: \"api.anthropic.com\", port: 80}", "",
           "DENY NoMatch []", NULL);
    expect(set, "http:request",
           "{host: \"api.anthropic.com\", port: 443, method: \"POST\", path: "
           "\"/v1/messages\", body_bytes: 10, intercepted: true}",
           "", "ALLOW Permitted [anthropic_request]", NULL);
    expect(set, "http:request",
           "{host: \"evil.example\", port: 443, method: \"POST\", path: "
           "\"/v1/messages\", body_bytes: 10, intercepted: true}",
           "", "DENY NoMatch []", NULL);
    expect(set, "fs:read",
           "{path: \"~/project\", operation: Box::FsReadOperation::\"enumerate\"}",
           "~/project", "ALLOW Permitted [project_read]",
           "policy permitted this operation on '~/project'.");
    expect(set, "fs:read",
           "{path: \"~/project/src/a.rs\", operation: "
           "Box::FsReadOperation::\"read_content\"}",
           "~/project/src/a.rs", "ALLOW Permitted [project_read]", NULL);
    expect(set, "fs:read",
           "{path: \"~/projectx/a\", operation: "
           "Box::FsReadOperation::\"read_content\"}",
           "~/projectx/a", "DENY NoMatch []", NULL);
    expect(set, "fs:write",
           "{path: \"~/project/out.txt\", operation: "
           "Box::FsWriteOperation::\"write_content\"}",
           "~/project/out.txt", "ALLOW Permitted [project_write]", NULL);
    expect(set, "fs:delete",
           "{path: \"~/project/out.txt\", operation: "
           "Box::FsDeleteOperation::\"remove_file\"}",
           "~/project/out.txt", "DENY NoMatch []", NULL);
    pdp_policy_free(set);
}

static void
test_b8_b9_b10(void **state)
{
    static const char *const guard[] = {"pdp/testdata/box/shell-guard.dw"};
    pdp_policy_set *set = load_files(guard, 1);
    expect(set, "shell:exec",
           "{program: \"rm\", arg1: \"-rf\", arg2: \"/x\", arg_count: 2, "
           "command: \"rm -rf /x\", cwd: \"~/project\"}",
           "rm", "DENY Forbidden [no_rm_rf]",
           "policy denied this operation on 'rm' [policy: no_rm_rf]: `rm -rf` "
           "is refused. Remove files one path at a time, or ask the operator to "
           "permit the recursive form.");
    expect(set, "shell:exec",
           "{program: \"rm\", arg1: \"-f\", arg2: \"/x\", arg_count: 2, "
           "command: \"rm -f /x\", cwd: \"~/project\"}",
           "rm", "ALLOW Permitted [shell_commands]", NULL);
    expect(set, "shell:exec",
           "{program: \"ls\", arg_count: 0, command: \"ls\", cwd: \"~/project\"}",
           "ls", "ALLOW Permitted [shell_commands]", NULL);
    pdp_policy_free(set);

    static const char *const del[] = {"pdp/testdata/box/forbid-delete.dw"};
    pdp_policy_set *fd = load_files(del, 1);
    pdp_policy_free(fd);
    set = load_text("permit (principal, action == Box::Action::\"fs:delete\", "
                    "resource);\n"
                    "@id(\"no_deletes\")\n@description(\"This workload cannot "
                    "delete files. Overwrite in place, move to a trash "
                    "directory, or ask the operator to add a delete rule.\")\n"
                    "forbid (principal, action == Box::Action::\"fs:delete\", "
                    "resource);");
    expect(set, "fs:delete",
           "{path: \"~/a\", operation: Box::FsDeleteOperation::\"remove_file\"}",
           "~/a", "DENY Forbidden [no_deletes]",
           "policy denied this operation on '~/a' [policy: no_deletes]: This "
           "workload cannot delete files. Overwrite in place, move to a trash "
           "directory, or ask the operator to add a delete rule.");
    pdp_policy_free(set);

    set = load_text("permit (principal, action == Box::Action::\"fs:write\", "
                    "resource); @id(\"no_chmod\") @description(\"No chmod.\") "
                    "forbid ( principal, action == Box::Action::\"fs:write\", "
                    "resource ) when { context.input.operation == "
                    "Box::FsWriteOperation::\"set_permissions\" };");
    expect(set, "fs:write",
           "{path: \"~/f\", operation: "
           "Box::FsWriteOperation::\"set_permissions\"}",
           "~/f", "DENY Forbidden [no_chmod]",
           "policy denied this operation on '~/f' [policy: no_chmod]: No chmod.");
    expect(set, "fs:write",
           "{path: \"~/f\", operation: Box::FsWriteOperation::\"write_content\"}",
           "~/f", "ALLOW Permitted [policy_0]", NULL);
    pdp_policy_free(set);
}

static void
test_b16_b19_b20(void **state)
{
    pdp_policy_set *set = load_text(
        "permit (principal, action == Box::Action::\"mcp:call\", resource) when "
        "{ context.input.server == \"issues-mcp\" }; forbid (principal, action "
        "== Box::Action::\"mcp:call\", resource) when { context.input has tool "
        "&& context.input.tool == \"AddComment\" };");
    expect(set, "mcp:call",
           "{server: \"issues-mcp\", method: \"tools/call\", tool: \"AddComment\"}",
           "", "DENY Forbidden [policy_1]",
           "policy denied this operation [policy: policy_1].");
    expect(set, "mcp:call",
           "{server: \"issues-mcp\", method: \"tools/call\", tool: \"ListIssues\"}",
           "", "ALLOW Permitted [policy_0]", NULL);
    expect(set, "mcp:call", "{server: \"issues-mcp\", method: \"tools/list\"}",
           "", "ALLOW Permitted [policy_0]", NULL);
    expect(set, "mcp:call", "{server: \"other\", method: \"tools/list\"}", "",
           "DENY NoMatch []", NULL);
    pdp_policy_free(set);

    set = load_text("permit(principal == Box::Agent::\"self\", action == "
                    "Box::Action::\"fs:read\", resource) when { "
                    "context.input.operation != "
                    "Box::FsReadOperation::\"read_content\" };");
    expect(set, "fs:read",
           "{path: \"/tmp\", operation: Box::FsReadOperation::\"enumerate\"}",
           "/tmp", "ALLOW Permitted [policy_0]", NULL);
    expect(set, "fs:read",
           "{path: \"/tmp/visible.txt\", operation: "
           "Box::FsReadOperation::\"read_content\"}",
           "/tmp/visible.txt", "DENY NoMatch []", NULL);
    pdp_policy_free(set);

    set = load_text("permit(principal == Box::Agent::\"self\", action == "
                    "Box::Action::\"fs:read\", resource) unless { "
                    "context.input.operation == "
                    "Box::FsReadOperation::\"read_content\" && "
                    "context.input.path like \"*/forbidden*\" };");
    expect(set, "fs:read",
           "{path: \"/tmp/forbidden.txt\", operation: "
           "Box::FsReadOperation::\"read_content\"}",
           "/tmp/forbidden.txt", "DENY NoMatch []", NULL);
    expect(set, "fs:read",
           "{path: \"/tmp/forbidden.txt\", operation: "
           "Box::FsReadOperation::\"read_metadata\"}",
           "/tmp/forbidden.txt", "ALLOW Permitted [policy_0]", NULL);
    expect(set, "fs:read",
           "{path: \"/tmp/ok.txt\", operation: "
           "Box::FsReadOperation::\"read_content\"}",
           "/tmp/ok.txt", "ALLOW Permitted [policy_0]", NULL);
    pdp_policy_free(set);
}

static void
test_fail_closed(void **state)
{
    pdp_policy_set *set = load_text("permit (principal, action, resource);");
    /* A malformed request is an InternalFault, never an allow. */
    pdp_request rq = trq(A, "Box::Agent::\"self\"", "Box::Action::\"fs:read\"",
                         "Box::Resource::\"unused\"", "[1]", "x");
    assert_int_equal(pdp_decide(set, &rq, ANS), BOX_OK);
    assert_int_equal(pdp_answer_verdict(ANS), PDP_DENY);
    assert_int_equal(pdp_answer_reason(ANS), PDP_REASON_INTERNAL_FAULT);
    assert_int_equal(pdp_answer_error_count(ANS), 1);
    assert_null(pdp_answer_error_rule(ANS, 0));
    assert_string_equal(pdp_answer_error_message(ANS, 0),
                        "request context is not a record");
    assert_string_equal(pdp_answer_message(ANS, NULL),
                        "policy denied this operation on 'x' because the "
                        "request could not be evaluated.");
    rq = trq(A, "\"self\"", "Box::Action::\"fs:read\"",
             "Box::Resource::\"unused\"", "{}", "x");
    assert_int_equal(pdp_decide(set, &rq, ANS), BOX_OK);
    assert_int_equal(pdp_answer_verdict(ANS), PDP_DENY);
    /* The same answer object then serves a clean allow. */
    rq = trq(A, "Box::Agent::\"self\"", "Box::Action::\"fs:read\"",
             "Box::Resource::\"unused\"", "{}", "x");
    assert_int_equal(pdp_decide(set, &rq, ANS), BOX_OK);
    assert_int_equal(pdp_answer_verdict(ANS), PDP_ALLOW);
    assert_int_equal(pdp_answer_error_count(ANS), 0);
    /* PolicyPending. */
    assert_int_equal(pdp_answer_set_pending(ANS, "echo", 4), BOX_OK);
    assert_int_equal(pdp_answer_verdict(ANS), PDP_DENY);
    assert_int_equal(pdp_answer_reason(ANS), PDP_REASON_POLICY_PENDING);
    assert_string_equal(pdp_answer_message(ANS, NULL),
                        "policy denied this operation on 'echo' "
                        "[policy-pending]: The complete policy bundle is not "
                        "installed.");
    pdp_policy_free(set);
}

static void
test_index_keeps_rule_order(void **state)
{
    /* Specific and unconstrained rules interleave; errors come out in rule
     * order, and only candidate rules are evaluated (the fs:write rule
     * would error if it ran). */
    pdp_policy_set *set = load_text(
        "forbid (principal, action, resource) when { context.a };\n"
        "forbid (principal, action == Box::Action::\"fs:read\", resource) when "
        "{ context.b };\n"
        "forbid (principal, action == Box::Action::\"fs:write\", resource) when "
        "{ context.c };\n"
        "forbid (principal, action, resource) when { context.d };");
    expect(set, "fs:read", "{}", "", "DENY InternalFault [] errors=3", NULL);
    assert_string_equal(pdp_answer_error_rule(ANS, 0)->r_pid.s, "policy_0");
    assert_string_equal(pdp_answer_error_rule(ANS, 1)->r_pid.s, "policy_1");
    assert_string_equal(pdp_answer_error_rule(ANS, 2)->r_pid.s, "policy_3");
    assert_string_equal(pdp_answer_error_message(ANS, 1),
                        "record does not have the attribute `b`");
    pdp_policy_free(set);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_b1_to_b6),
        cmocka_unit_test(test_b7_agent_anthropic),
        cmocka_unit_test(test_b8_b9_b10),
        cmocka_unit_test(test_b16_b19_b20),
        cmocka_unit_test(test_fail_closed),
        cmocka_unit_test(test_index_keeps_rule_order),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
