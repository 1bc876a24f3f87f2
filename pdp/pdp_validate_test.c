/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_validate: strict validation (§6.1, §6.2 step 8, B14),
 * enum ids (B10), the spelling judgement (§6.4, B15), request validation
 * at decision time (§1.5), and the shipped policies. */
#include "pdp_test_util.h"

#include "pdp_decide.h"
#include "pdp_policy.h"
#include "pdp_schema.h"
#include "pdp_validate.h"

#define HOME "/home/lash"

static pdp_schema *BOX;
static box_arena *A;
static pdp_answer *ANS;

static int
setup(void **state)
{
    (void)state;
    char *err = NULL;
    if (pdp_schema_load_builtin(&BOX, &err) != BOX_OK)
        return 1;
    A = box_arena_new(64u << 20);
    ANS = pdp_answer_new();
    return A == NULL || ANS == NULL;
}

static int
teardown(void **state)
{
    (void)state;
    pdp_schema_free(BOX);
    box_arena_free(A);
    pdp_answer_free(ANS);
    return 0;
}

/* Loads text with the full Box load; the warnings joined with " | ". */
static box_err
load(const char *text, const pdp_schema *s, const char *home,
     pdp_policy_set **set, char **err, char **warns)
{
    pdp_validate_warnings w = {NULL, 0, 0};
    box_err rv = pdp_policy_load_checked(text, strlen(text), "policy.dw", s,
                                         home, set, &w, err);
    box_buf b;
    box_buf_init(&b, 1u << 20);
    for (size_t i = 0; i < w.vw_n; i++) {
        assert_int_equal(box_buf_puts(&b, i ? " | " : ""), BOX_OK);
        assert_int_equal(box_buf_puts(&b, w.vw_items[i]), BOX_OK);
    }
    *warns = box_buf_take(&b);
    pdp_validate_warnings_free(&w);
    return rv;
}

/* Step-8 texts carry each finding's place ("policy.dw:L:C: ") before
 * Cedar's text; the refusal tables compare Cedar's texts, so the places
 * are taken out here (test_refusal_is_located checks them). */
static void
strip_locations(char *s)
{
    static const char pfx[] = "policy.dw:";
    char *w = s;
    for (char *r = s; *r;) {
        if (strncmp(r, pfx, sizeof pfx - 1) == 0) {
            char *p = r + sizeof pfx - 1;
            int colons = 0;
            while ((*p >= '0' && *p <= '9') || (*p == ':' && colons < 2)) {
                if (*p == ':')
                    colons++;
                p++;
            }
            if (colons == 2 && *p == ' ' && p[-1] == ':') {
                r = p + 1;
                continue;
            }
        }
        *w++ = *r++;
    }
    *w = '\0';
}

static void
refuses_with(const char *text, const pdp_schema *s, const char *want)
{
    pdp_policy_set *set = (pdp_policy_set *)1;
    char *err = NULL, *warns = NULL;
    box_err rv = load(text, s, HOME, &set, &err, &warns);
    if (set != NULL)
        fail_msg("%s\n  loaded; want: %s", text, want);
    if (err != NULL)
        strip_locations(err);
    if (rv != BOX_ECONFIG || err == NULL || strcmp(err, want) != 0)
        fail_msg("%s\n  got:  [%s] %s\n  want: %s", text, box_strerror(rv),
                 err ? err : "(null)", want);
    box_free(err);
    box_free(warns);
}

static void
refuses(const char *text, const char *want)
{
    refuses_with(text, BOX, want);
}

/* Loads; want_warn NULL or "" means no warning. */
static void
loads_with(const char *text, const pdp_schema *s, const char *home,
           const char *want_warn)
{
    pdp_policy_set *set = NULL;
    char *err = NULL, *warns = NULL;
    if (load(text, s, home, &set, &err, &warns) != BOX_OK)
        fail_msg("%s\n  -> %s", text, err);
    assert_null(err);
    if (strcmp(warns, want_warn ? want_warn : "") != 0)
        fail_msg("%s\n  warnings: %s\n  want:     %s", text, warns,
                 want_warn ? want_warn : "");
    box_free(warns);
    pdp_policy_free(set);
}

static void
loads(const char *text)
{
    loads_with(text, BOX, HOME, NULL);
}

/* ---- B14: the validation rows ---- */

static void
test_refusal_is_located(void **state)
{
    (void)state;
    pdp_policy_set *set = NULL;
    char *err = NULL, *warns = NULL;
    box_err rv = load("permit(principal, action, resource);\n"
                      "permit(principal, action == Box::Action::\"fs:raed\", "
                      "resource);",
                      BOX, HOME, &set, &err, &warns);
    assert_int_equal(rv, BOX_ECONFIG);
    assert_null(set);
    assert_non_null(err);
    assert_string_equal(err,
                        "policy references unknown action: policy.dw:2:19: for "
                        "policy `policy_1`, unrecognized action "
                        "`Box::Action::\"fs:raed\"` (did you mean "
                        "`Box::Action::\"fs:read\"`?)");
    box_free(err);
    box_free(warns);
}

static void
test_b14_validation(void **state)
{
    (void)state;
    refuses("permit(principal, action == Box::Action::\"fs:raed\", resource);",
            "policy references unknown action: for policy `policy_0`, "
            "unrecognized action `Box::Action::\"fs:raed\"` (did you mean "
            "`Box::Action::\"fs:read\"`?)");
    refuses(
        "forbid(principal, action == Box::Action::\"shell:exec\", resource) "
        "when { context.input.arg1 == \"-rf\" };",
        "policy fails schema validation: for policy `policy_0`, unable to "
        "guarantee safety of access to optional attribute `input.arg1` in "
        "context for Box::Action::\"shell:exec\"");
    refuses(
        "permit(principal, action, resource) when { context.input.path == "
        "\"~/x\" };",
        "policy fails schema validation: for policy `policy_0`, attribute "
        "`input.path` in context for Box::Action::\"net:connect\" not "
        "found; for policy `policy_0`, attribute `input.path` in context "
        "for Box::Action::\"shell:exec\" not found; for policy `policy_0`, "
        "attribute `input.path` in context for Box::Action::\"shell:spawn\" "
        "not found; for policy `policy_0`, attribute `input.path` in "
        "context for Box::Action::\"mcp:call\" not found");
    loads("permit(principal, action, resource) when { context.input has path "
          "&& context.input.path == \"~/x\" };");
    /* B10: an id the enum does not declare. */
    refuses(
        "permit (principal, action == Box::Action::\"fs:write\", resource);\n"
        "forbid (principal, action == Box::Action::\"fs:write\", resource) "
        "when { context.input.operation == Box::FsWriteOperation::\"chmod\" };",
        "policy fails schema validation: for policy `policy_1`: entity "
        "`Box::FsWriteOperation::\"chmod\"` is of an enumerated entity type, "
        "but `\"chmod\"` is not declared as a valid eid");
    /* Unknown action anywhere makes the whole text "unknown action". */
    refuses(
        "permit(principal, action == Box::Action::\"shell:exec\", resource) "
        "when { context.input.arg1 == \"x\" };\n"
        "permit(principal, action in [Box::Action::\"fs:read\", "
        "Box::Action::\"teleport\"], resource);",
        "policy references unknown action: for policy `policy_0`, unable "
        "to guarantee safety of access to optional attribute `input.arg1` "
        "in context for Box::Action::\"shell:exec\"; for policy "
        "`policy_1`, unrecognized action `Box::Action::\"teleport\"`");
    /* Step order: the @id check (step 5) comes before validation. */
    refuses(
        "@id(\"a\") permit(principal, action == Box::Action::\"fs:raed\", "
        "resource); @id(\"a\") permit(principal, action, resource);",
        "policy gives one @id to more than one rule: @id(\"a\") is on rules "
        "1, 2; a denial and a telemetry record name a rule by its @id, so "
        "give each rule its own @id");
}

static void
test_b10_enum_decisions(void **state)
{
    (void)state;
    const char *text =
        "permit (principal, action == Box::Action::\"fs:write\", resource);\n"
        "@id(\"no_chmod\") @description(\"Permissions stay.\") forbid ( "
        "principal, action == Box::Action::\"fs:write\", resource ) when { "
        "context.input.operation == Box::FsWriteOperation::\"set_permissions\" "
        "};";
    pdp_policy_set *set;
    char *err, *warns;
    assert_int_equal(load(text, NULL, HOME, &set, &err, &warns), BOX_OK);
    assert_string_equal(warns, "");
    box_free(warns);
    assert_non_null(pdp_policy_schema(set));
    pdp_request rq = trq(A, "Box::Agent::\"self\"", "Box::Action::\"fs:write\"",
                         "Box::Resource::\"unused\"",
                         "{input: {path: \"~/a\", operation: "
                         "Box::FsWriteOperation::\"set_permissions\"}}",
                         "~/a");
    assert_int_equal(pdp_decide(set, &rq, ANS), BOX_OK);
    assert_int_equal(pdp_answer_reason(ANS), PDP_REASON_FORBIDDEN);
    assert_string_equal(pdp_rule_display_id(pdp_answer_determining(ANS, 0)).s,
                        "no_chmod");
    rq = trq(A, "Box::Agent::\"self\"", "Box::Action::\"fs:write\"",
             "Box::Resource::\"unused\"",
             "{input: {path: \"~/a\", operation: "
             "Box::FsWriteOperation::\"write_content\"}}",
             "~/a");
    assert_int_equal(pdp_decide(set, &rq, ANS), BOX_OK);
    assert_int_equal(pdp_answer_verdict(ANS), PDP_ALLOW);
    assert_string_equal(pdp_rule_display_id(pdp_answer_determining(ANS, 0)).s,
                        "policy_0");
    pdp_policy_free(set);
}

/* ---- every validator refusal, with its text ---- */

static void
test_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *src;
        const char *msg;
    } bad[] = {
        /* unknown entity types: scope and condition */
        {"permit(principal == Box::Agnt::\"self\", action, resource);",
         "policy fails schema validation: for policy `policy_0`, unrecognized "
         "entity type `Box::Agnt` (did you mean `Box::Agent`?)"},
        {"permit(principal, action == Box::Action::\"fs:read\", resource) when "
         "{ context.input.operation == Zap::Op::\"x\" };",
         "policy fails schema validation: for policy `policy_0`, unrecognized "
         "entity type `Zap::Op`"},
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { action == Box::Action::\"net:conect\" };",
         "policy references unknown action: for policy `policy_0`, "
         "unrecognized action `Box::Action::\"net:conect\"` (did you mean "
         "`Box::Action::\"net:connect\"`?)"},
        {"permit(principal, action == Box::Action::\"zzzzzzzzzz\", resource);",
         "policy references unknown action: for policy `policy_0`, "
         "unrecognized action `Box::Action::\"zzzzzzzzzz\"`"},
        /* attribute not found on a closed record */
        {"permit(principal, action == Box::Action::\"fs:read\", resource) when "
         "{ context.input.pth == \"x\" };",
         "policy fails schema validation: for policy `policy_0`, attribute "
         "`input.pth` in context for Box::Action::\"fs:read\" not found"},
        {"permit(principal, action == Box::Action::\"fs:read\", resource) when "
         "{ context[\"in put\"] == \"x\" };",
         "policy fails schema validation: for policy `policy_0`, attribute "
         "`[\"in put\"]` in context for Box::Action::\"fs:read\" not found"},
        {"permit(principal, action == Box::Action::\"fs:read\", resource) when "
         "{ principal.name == \"x\" };",
         "policy fails schema validation: for policy `policy_0`, attribute "
         "`name` on entity type `Box::Agent` not found"},
        {"permit(principal, action == Box::Action::\"fs:read\", resource) when "
         "{ {a: 1}.b == 1 };",
         "policy fails schema validation: for policy `policy_0`, attribute "
         "`b` not found"},
        /* optional attributes */
        {"permit(principal, action == Box::Action::\"shell:exec\", resource) "
         "when { context.output.status == 0 };",
         "policy fails schema validation: for policy `policy_0`, unable to "
         "guarantee safety of access to optional attribute `output` in "
         "context for Box::Action::\"shell:exec\""},
        {"permit(principal, action == Box::Action::\"shell:exec\", resource) "
         "when { context.input has arg1 || context.input.arg1 == \"x\" };",
         "policy fails schema validation: for policy `policy_0`, unable to "
         "guarantee safety of access to optional attribute `input.arg1` in "
         "context for Box::Action::\"shell:exec\""},
        {"permit(principal, action == Box::Action::\"shell:exec\", resource) "
         "unless { context.input has arg1 } when { context.input.arg1 == \"x\" "
         "};",
         "policy fails schema validation: for policy `policy_0`, unable to "
         "guarantee safety of access to optional attribute `input.arg1` in "
         "context for Box::Action::\"shell:exec\""},
        {"permit(principal, action == Box::Action::\"shell:exec\", resource) "
         "when { if context.input has arg1 then true else context.input.arg1 "
         "== \"x\" };",
         "policy fails schema validation: for policy `policy_0`, unable to "
         "guarantee safety of access to optional attribute `input.arg1` in "
         "context for Box::Action::\"shell:exec\""},
        /* type mismatches */
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { context.input.port == \"443\" };",
         "policy fails schema validation: for policy `policy_0`, the types "
         "Long and String are not compatible: both operands to a `==` "
         "expression must have compatible types"},
        {"permit(principal, action == Box::Action::\"fs:read\", resource) when "
         "{ context.input.operation != \"read_content\" };",
         "policy fails schema validation: for policy `policy_0`, the types "
         "String and Box::FsReadOperation are not compatible: both operands "
         "to a `==` expression must have compatible types"},
        {"permit(principal, action == Box::Action::\"fs:read\", resource) when "
         "{ context.input.path < \"b\" };",
         "policy fails schema validation: for policy `policy_0`, unexpected "
         "type: expected Long, or datetime, or duration but saw String"},
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { context.input.port like \"4*\" };",
         "policy fails schema validation: for policy `policy_0`, unexpected "
         "type: expected String but saw Long"},
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { (if context.input.port == 1 then 1 else \"a\") == 1 };",
         "policy fails schema validation: for policy `policy_0`, the types "
         "Long and String are not compatible: both branches of a conditional "
         "must have compatible types"},
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { context.input.port && true };",
         "policy fails schema validation: for policy `policy_0`, unexpected "
         "type: expected Bool but saw Long"},
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { false || context.input.host };",
         "policy fails schema validation: for policy `policy_0`, unexpected "
         "type: expected Bool but saw String"},
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { !context.input.port };",
         "policy fails schema validation: for policy `policy_0`, unexpected "
         "type: expected Bool but saw Long"},
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { context.input.port };",
         "policy fails schema validation: for policy `policy_0`, unexpected "
         "type: expected Bool but saw Long"},
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { context.input.host + 1 == 2 };",
         "policy fails schema validation: for policy `policy_0`, unexpected "
         "type: expected Long but saw String"},
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { [1, \"a\"].contains(1) };",
         "policy fails schema validation: for policy `policy_0`, the types "
         "Long and String are not compatible: elements of a set must have "
         "compatible types"},
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { [\"a\"].contains(context.input.port) };",
         "policy fails schema validation: for policy `policy_0`, the types "
         "Long and String are not compatible: elements of the first operand "
         "and the second operand to a `contains` expression must have "
         "compatible types"},
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { context.input.host.contains(\"a\") };",
         "policy fails schema validation: for policy `policy_0`, unexpected "
         "type: expected Set<__cedar::internal::Any> but saw String"},
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { \"a\" in [principal] };",
         "policy fails schema validation: for policy `policy_0`, unexpected "
         "type: expected __cedar::internal::AnyEntity but saw String"},
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { context.input.port has x };",
         "policy fails schema validation: for policy `policy_0`, unexpected "
         "type: expected __cedar::internal::AnyEntity, or "
         "__cedar::internal::OpenRecord{} but saw Long"},
        /* empty set literal */
        {"permit(principal, action == Box::Action::\"net:connect\", resource) "
         "when { [].isEmpty() };",
         "policy fails schema validation: for policy `policy_0`, empty set "
         "literals are forbidden in policies"},
        /* no applicable action */
        {"permit(principal == Box::Resource::\"unused\", action, resource);",
         "policy fails schema validation: for policy `policy_0`, unable to "
         "find an applicable action given the policy scope constraints"},
        {"permit(principal, action == Box::Action::\"fs:read\", resource in "
         "Box::Agent::\"self\");",
         "policy fails schema validation: for policy `policy_0`, unable to "
         "find an applicable action given the policy scope constraints"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        refuses(bad[i].src, bad[i].msg);
}

/* Shapes Cedar's strict mode accepts. */
static void
test_accepted(void **state)
{
    (void)state;
    static const char *const ok[] = {
        /* has facts flow into && and the then-branch, and across clauses */
        "permit(principal, action == Box::Action::\"shell:exec\", resource) "
        "when { context.input has arg1 && context.input.arg1 == \"-rf\" };",
        "permit(principal, action == Box::Action::\"shell:exec\", resource) "
        "when { if context.input has arg1 then context.input.arg1 == \"-rf\" "
        "else false };",
        "permit(principal, action == Box::Action::\"shell:exec\", resource) "
        "when { context.input has arg1 } when { context.input.arg1 == \"-rf\" "
        "};",
        "permit(principal, action == Box::Action::\"shell:exec\", resource) "
        "when { context has output && context.output.status == 0 };",
        "permit(principal, action == Box::Action::\"shell:spawn\", resource) "
        "when { context.input has credential_reads && "
        "context.input.credential_reads.contains(\"~/.aws\") };",
        "permit(principal, action == Box::Action::\"shell:exec\", resource) "
        "when { (context.input has arg1 && context.input.arg1 == \"a\") || "
        "(context.input has arg2 && context.input.arg2 == \"b\") };",
        /* false && … is not checked further */
        "permit(principal, action == Box::Action::\"net:connect\", resource) "
        "when { (false && context.input.nothing == 1) || true };",
        /* enum values, entities compare with ==, sets, records */
        "permit(principal, action == Box::Action::\"fs:read\", resource) when "
        "{ context.input.operation != Box::FsReadOperation::\"read_content\" "
        "&& context.input.path like \"*/forbidden*\" };",
        "permit(principal, action in [Box::Action::\"fs:read\", "
        "Box::Action::\"fs:write\"], resource) when { "
        "[\"~/a\", \"~/b\"].contains(context.input.path) && "
        "{p: context.input.path}.p == \"~/a\" && principal == "
        "Box::Agent::\"self\" && resource != Box::Resource::\"x\" && "
        "action in [Box::Action::\"fs:read\"] && -(1) "
        "== 1 || true };",
        "permit(principal, action == Box::Action::\"net:connect\", resource) "
        "when { context.input.port * 2 - 1 > 10 && context.input.port <= 443 "
        "&& (if context.input has ip then context.input.ip else \"\") != \"x\" "
        "&& [1, 2].containsAny([context.input.port]) && "
        "[1].containsAll([2]) };",
        "permit(principal == Box::Agent::\"self\", action == "
        "Box::Action::\"mcp:call\", resource == Box::Resource::\"unused\") "
        "when { context.input.server == \"issues-mcp\" };",
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        loads(ok[i]);
}

static void
test_warnings_and_locations(void **state)
{
    (void)state;
    /* has on a closed record without the attribute is constant false. */
    loads_with("permit(principal, action == Box::Action::\"net:connect\", "
               "resource) when { context.input has path && "
               "context.input.path == \"x\" };",
               BOX, HOME,
               "for policy `policy_0`, policy is impossible: the policy "
               "expression evaluates to false for all valid requests");
    loads_with("forbid(principal, action, resource) when { false };", BOX, NULL,
               "for policy `policy_0`, policy is impossible: the policy "
               "expression evaluates to false for all valid requests");
    loads_with("permit(principal, action == Box::Action::\"fs:read\", "
               "resource) when { action == Box::Action::\"fs:write\" };",
               BOX, NULL,
               "for policy `policy_0`, policy is impossible: the policy "
               "expression evaluates to false for all valid requests");

    /* Each finding is also located in the .dw source. */
    const char *text =
        "permit(principal, action == Box::Action::\"fs:read\", resource);\n"
        "forbid(principal, action == Box::Action::\"shell:exec\", resource)\n"
        "  when { context.input.arg1 == \"x\" && context.input.nope == 1 };\n"
        "permit(principal, action == Box::Action::\"fs:raed\", resource);\n";
    box_arena *a = box_arena_new(1u << 20);
    box_buf perr;
    box_buf_init(&perr, 4096);
    const pdp_ast *ast;
    assert_int_equal(pdp_parse(text, strlen(text), "p.dw", a, &ast, &perr),
                     BOX_OK);
    pdp_validate_result *r;
    assert_int_equal(pdp_validate_policies(BOX, ast, "p.dw", &r), BOX_OK);
    assert_int_equal(pdp_validate_result_count(r), 3);
    assert_int_equal(pdp_validate_result_errors(r), 3);
    assert_string_equal(
        pdp_validate_result_at(r, 0)->fd_located,
        "p.dw:3:23: for policy `policy_1`, unable to guarantee "
        "safety of access to optional attribute `input.arg1` in "
        "context for Box::Action::\"shell:exec\"");
    assert_string_equal(pdp_validate_result_at(r, 1)->fd_located,
                        "p.dw:3:52: for policy `policy_1`, attribute "
                        "`input.nope` in context for "
                        "Box::Action::\"shell:exec\" not found");
    assert_string_equal(pdp_validate_result_at(r, 2)->fd_located,
                        "p.dw:4:19: for policy `policy_2`, unrecognized action "
                        "`Box::Action::\"fs:raed\"` (did you mean "
                        "`Box::Action::\"fs:read\"`?)");
    assert_ptr_equal(pdp_validate_result_at(r, 2)->fd_rule, ast->as_rules[2]);
    assert_null(pdp_validate_result_at(r, 3));
    pdp_validate_result_free(r);
    box_buf_reset(&perr);
    box_arena_free(a);
}

/* ---- B15: the spelling judgement ---- */

static void
test_b15_spelling(void **state)
{
    (void)state;
    refuses("permit(principal, action == Box::Action::\"fs:read\", resource) "
            "when { context.input.path == \"/home/lash/notes.txt\" };",
            "policy compares an inert literal: the permit rule with no @id "
            "compares context.input.path with \"/home/lash/notes.txt\", and a "
            "path under the operator home is spelled ~/…; write "
            "\"~/notes.txt\"");
    refuses("@id(\"r\") permit(principal, action == Box::Action::\"fs:read\", "
            "resource) when { context.input.path like \"~/project/\" };",
            "policy compares an inert literal: rule @id(\"r\") compares "
            "context.input.path with the pattern \"~/project/\", and a "
            "directory is spelled without a trailing slash; write "
            "\"~/project\"");
    refuses("@id(\"r\") permit(principal, action == Box::Action::\"fs:read\", "
            "resource) when { context.input.path == \"~/project/\" };",
            "policy compares an inert literal: rule @id(\"r\") compares "
            "context.input.path with \"~/project/\", and a directory is "
            "spelled without a trailing slash; write \"~/project\"");
    loads_with("@id(\"s\") forbid(principal, action == "
               "Box::Action::\"shell:exec\", resource) when { "
               "context.input.program == \"/bin/rm\" };",
               BOX, HOME,
               "rule @id(\"s\") compares context.input.program with "
               "\"/bin/rm\", which matches only a first word spelled that "
               "way; compare context.input.program_path to match the resolved "
               "binary");
    loads_with(
        "@id(\"w\") permit(principal, action == Box::Action::\"fs:read\", "
        "resource) when { context.input.path like \"*/home/lash/*\" };",
        BOX, HOME,
        "rule @id(\"w\") compares context.input.path with the pattern "
        "\"*/home/lash/*\", which names the operator home after a "
        "wildcard; a path under the operator home is spelled ~/…, so the "
        "pattern may match nothing");
    loads("permit(principal, action == Box::Action::\"fs:read\", resource) "
          "when { context.input.path == \"/\" };");

    /* More shapes: the home itself, a pattern under the home, contains
     * sets, the literal on the left, several refusals joined. */
    refuses("forbid(principal, action in [Box::Action::\"fs:read\", "
            "Box::Action::\"fs:write\"], resource) when { \"/home/lash\" == "
            "context.input.path || context.input.path like "
            "\"/home/lash/.ssh/*\" };",
            "policy compares an inert literal: the forbid rule with no @id "
            "compares context.input.path with \"/home/lash\", and a path under "
            "the operator home is spelled ~/…; write \"~\"; the forbid rule "
            "with no @id compares context.input.path with the pattern "
            "\"/home/lash/.ssh/*\", and a path under the operator home is "
            "spelled ~/…; write \"~/.ssh/*\"");
    refuses(
        "@id(\"x\") permit(principal, action == Box::Action::\"shell:spawn\", "
        "resource) when { [\"/usr/bin/\", \"/bin/git\"].contains("
        "context.input.program_path) };",
        "policy compares an inert literal: rule @id(\"x\") compares "
        "context.input.program_path with \"/usr/bin/\", and a directory is "
        "spelled without a trailing slash; write \"/usr/bin\"");
    /* Unscoped: no trailing-slash check; home checks still apply. */
    loads("permit(principal, action, resource) when { context.input has path "
          "&& context.input.path like \"~/p/\" };");
    /* Not Box actions of the judged families: skipped. */
    loads("permit(principal, action == Box::Action::\"http:request\", "
          "resource) when { context.input.path == \"/v1/\" };");
    /* /home/lashx is not under /home/lash; home NULL skips home checks. */
    loads("permit(principal, action == Box::Action::\"fs:read\", resource) "
          "when { context.input.path == \"/home/lashx/a\" };");
    loads_with("permit(principal, action == Box::Action::\"fs:read\", "
               "resource) when { context.input.path == \"/home/lash/a\" || "
               "context.input.path like \"*/home/lash/*\" };",
               BOX, NULL, NULL);
    /* Step 8 comes before step 9. */
    refuses("permit(principal, action == Box::Action::\"fs:read\", resource) "
            "when { context.input.path == \"/home/lash/a\" && "
            "context.input.nope == 1 };",
            "policy fails schema validation: for policy `policy_0`, attribute "
            "`input.nope` in context for Box::Action::\"fs:read\" not found");
}

/* ---- request validation (§1.5) ---- */

static void
request_fails(const char *action, const char *input, const char *want)
{
    char *err = NULL;
    box_err rv = pdp_validate_request(BOX, tv(A, action), tv(A, input), &err);
    if (rv != BOX_EINVAL || err == NULL || strcmp(err, want) != 0)
        fail_msg("%s %s\n  got:  [%s] %s\n  want: %s", action, input,
                 box_strerror(rv), err ? err : "(null)", want);
    box_free(err);
}

static void
request_ok(const char *action, const char *input)
{
    char *err = NULL;
    if (pdp_validate_request(BOX, tv(A, action), tv(A, input), &err) != BOX_OK)
        fail_msg("%s %s -> %s", action, input, err);
    assert_null(err);
}

static void
test_request_validation(void **state)
{
    (void)state;
    request_ok("Box::Action::\"fs:read\"",
               "{path: \"~/a\", operation: Box::FsReadOperation::\"exec\"}");
    request_ok("Box::Action::\"shell:exec\"",
               "{command: \"ls\", program: \"ls\", arg_count: 0, cwd: \"~\"}");
    request_ok("Box::Action::\"shell:spawn\"",
               "{command: \"git\", program: \"git\", program_path: "
               "\"/usr/bin/git\", credential_reads: [\"~/.netrc\"], arg_count: "
               "0, cwd: \"~\"}");
    request_ok("Box::Action::\"net:connect\"",
               "{host: \"h\", ip: \"1.2.3.4\", port: 443}");
    request_fails("Box::Action::\"fs:read\"", "{path: \"~/a\"}",
                  "request for Box::Action::\"fs:read\" does not match the "
                  "schema: `input.operation` is required but missing");
    request_fails("Box::Action::\"fs:read\"",
                  "{path: \"~/a\", operation: Box::FsReadOperation::\"exec\", "
                  "mode: 1}",
                  "request for Box::Action::\"fs:read\" does not match the "
                  "schema: `input.mode` is not declared in the schema");
    request_fails("Box::Action::\"net:connect\"",
                  "{host: \"h\", port: \"443\"}",
                  "request for Box::Action::\"net:connect\" does not match the "
                  "schema: `input.port` must be Long, not a string");
    request_fails(
        "Box::Action::\"fs:write\"",
        "{path: \"~/a\", operation: Box::FsWriteOperation::\"chmod\"}",
        "request for Box::Action::\"fs:write\" does not match the "
        "schema: `input.operation` is Box::FsWriteOperation::"
        "\"chmod\", which is not a declared id of that enumerated "
        "type");
    request_fails(
        "Box::Action::\"fs:write\"",
        "{path: \"~/a\", operation: Box::FsReadOperation::\"exec\"}",
        "request for Box::Action::\"fs:write\" does not match the "
        "schema: `input.operation` must be Box::FsWriteOperation, not "
        "an entity of type Box::FsReadOperation");
    request_fails(
        "Box::Action::\"fs:write\"",
        "{path: \"~/a\", operation: \"write_content\"}",
        "request for Box::Action::\"fs:write\" does not match the "
        "schema: `input.operation` must be Box::FsWriteOperation, not "
        "a string");
    request_fails("Box::Action::\"shell:spawn\"",
                  "{command: \"git\", program: \"git\", program_path: \"/g\", "
                  "credential_reads: [1], arg_count: 0, cwd: \"~\"}",
                  "request for Box::Action::\"shell:spawn\" does not match the "
                  "schema: `input.credential_reads.[element]` must be String, "
                  "not a long");
    request_fails(
        "Box::Action::\"http:request\"", "[1]",
        "request for Box::Action::\"http:request\" does not match the "
        "schema: `input` must be {body_bytes: Long,host: String,"
        "intercepted: Bool,method: String,path: String,port: Long,}, "
        "not a set");
    request_fails("Box::Action::\"fs:raed\"", "{}",
                  "unrecognized action `Box::Action::\"fs:raed\"`");
    request_fails("Other::Action::\"fs:read\"", "{}",
                  "unrecognized action `Other::Action::\"fs:read\"`");
}

/* Decides Box::Action::"<action>" with the given context; returns the
 * reason and leaves the answer in ANS. */
static pdp_reason
decide(const pdp_policy_set *set, const char *principal, const char *action,
       const char *ctx, const char *res)
{
    char *act = box_asprintf("Box::Action::\"%s\"", action);
    pdp_request rq =
        trq(A, principal, act, "Box::Resource::\"unused\"", ctx, res);
    box_free(act);
    assert_int_equal(pdp_decide(set, &rq, ANS), BOX_OK);
    return pdp_answer_reason(ANS);
}

static void
faults(const pdp_policy_set *set, const char *principal, const char *action,
       const char *ctx, const char *res, const char *why)
{
    assert_int_equal(decide(set, principal, action, ctx, res),
                     PDP_REASON_INTERNAL_FAULT);
    assert_int_equal(pdp_answer_verdict(ANS), PDP_DENY);
    assert_int_equal(pdp_answer_error_count(ANS), 1);
    assert_null(pdp_answer_error_rule(ANS, 0));
    assert_string_equal(pdp_answer_error_message(ANS, 0), why);
    char *msg = box_asprintf("policy denied this operation on '%s' because "
                             "the request could not be evaluated.",
                             res);
    assert_string_equal(pdp_answer_message(ANS, NULL), msg);
    box_free(msg);
}

static void
test_decide_validates_requests(void **state)
{
    (void)state;
    pdp_policy_set *set;
    char *err, *warns;
    assert_int_equal(load("permit(principal, action, resource);", BOX, HOME,
                          &set, &err, &warns),
                     BOX_OK);
    box_free(warns);
    const char *self = "Box::Agent::\"self\"";
    assert_int_equal(decide(set, self, "fs:read",
                            "{input: {path: \"~/a\", operation: "
                            "Box::FsReadOperation::\"read_content\"}}",
                            "~/a"),
                     PDP_REASON_PERMITTED);
    assert_int_equal(pdp_answer_verdict(ANS), PDP_ALLOW);
    faults(set, self, "fs:read", "{input: {path: \"~/a\"}}", "~/a",
           "request for Box::Action::\"fs:read\" does not match the schema: "
           "`input.operation` is required but missing");
    faults(set, self, "fs:read",
           "{input: {path: \"~/a\", operation: "
           "Box::FsReadOperation::\"read_content\", extra: true}}",
           "~/a",
           "request for Box::Action::\"fs:read\" does not match the schema: "
           "`input.extra` is not declared in the schema");
    faults(set, self, "shell:exec",
           "{input: {command: \"ls\", program: \"ls\", arg_count: \"0\", cwd: "
           "\"~\"}}",
           "ls",
           "request for Box::Action::\"shell:exec\" does not match the schema: "
           "`input.arg_count` must be Long, not a string");
    faults(
        set, self, "fs:write",
        "{input: {path: \"~/a\", operation: "
        "Box::FsWriteOperation::\"chmod\"}}",
        "~/a",
        "request for Box::Action::\"fs:write\" does not match the schema: "
        "`input.operation` is Box::FsWriteOperation::\"chmod\", which is not "
        "a declared id of that enumerated type");
    faults(set, self, "fs:raed", "{input: {path: \"~/a\"}}", "~/a",
           "unrecognized action `Box::Action::\"fs:raed\"`");
    faults(
        set, self, "net:connect", "{}", "h",
        "request for Box::Action::\"net:connect\" does not match the schema: "
        "`input` is required but missing");
    faults(
        set, self, "net:connect",
        "{input: {host: \"h\", port: 1}, output: {status: 1}}", "h",
        "request for Box::Action::\"net:connect\" does not match the schema: "
        "`output` is not declared in the schema");
    faults(
        set, "Box::Resource::\"unused\"", "net:connect",
        "{input: {host: \"h\", port: 1}}", "h",
        "request for Box::Action::\"net:connect\" does not match the schema: "
        "the principal is not of a type the action applies to");
    /* A set loaded without a schema does not validate requests. */
    pdp_policy_set *plain;
    const char *any = "permit(principal, action, resource);";
    assert_int_equal(pdp_policy_load(any, strlen(any), "p.dw", &plain, &err),
                     BOX_OK);
    assert_null(pdp_policy_schema(plain));
    assert_int_equal(
        decide(plain, self, "fs:read", "{input: {path: \"~/a\"}}", "~/a"),
        PDP_REASON_PERMITTED);
    pdp_policy_free(plain);
    pdp_policy_free(set);
}

/* ---- the shipped policies and the conformance corpus ---- */

static char *
read_rel(const char *rel, size_t *len)
{
    char *path = source_path(rel);
    char *t = read_file_at(path, len);
    if (t == NULL)
        fail_msg("cannot read %s", path);
    box_free(path);
    return t;
}

static void
test_shipped_policies(void **state)
{
    (void)state;
    static const char *const files[] = {
        "deploy/quickstart/policy.dw",
        "pdp/testdata/box/agent-anthropic.dw",
        "pdp/testdata/box/forbid-delete.dw",
        "pdp/testdata/box/shell-guard.dw",
    };
    for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
        size_t len;
        char *text = read_rel(files[i], &len);
        loads_with(text, NULL, HOME, NULL);
        loads_with(text, BOX, "/home/other/", NULL);
        box_free(text);
    }
}

static void
test_conformance_with_schema(void **state)
{
    (void)state;
    size_t len;
    char *stext = read_rel("pdp/testdata/dogwood/schemas/"
                           "drupe_test_world.cedarschema",
                           &len);
    pdp_schema *drupe;
    char *err = NULL;
    assert_int_equal(pdp_schema_load(stext, len, "drupe", &drupe, &err),
                     BOX_OK);
    static const char *const cases[] = {
        "documentation_0001_simplest_permit",
        "documentation_0105_context_input_integer",
        "documentation_0107_context_output_bool",
        "documentation_0113_has_attribute",
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *rel = box_asprintf("pdp/testdata/dogwood/cedar_only/"
                                 "corpus_handwritten/%s/policy_1.dw",
                                 cases[i]);
        char *text = read_rel(rel, &len);
        loads_with(text, drupe, NULL, NULL);
        box_free(text);
        box_free(rel);
    }
    /* Without the guard 0113 would not validate. */
    refuses("permit (principal, action == Drupe::Action::\"ApproveSale\", "
            "resource) when { context.output.approved == true };",
            "policy references unknown action: for policy `policy_0`, "
            "unrecognized action `Drupe::Action::\"ApproveSale\"`");
    pdp_policy_set *set;
    char *warns;
    const char *unguarded = "permit (principal, action == "
                            "Drupe::Action::\"ApproveSale\", resource) when { "
                            "context.output.approved == true && "
                            "principal.id == \"a\" && context.system.now == "
                            "context.system.now };";
    assert_int_equal(load(unguarded, drupe, NULL, &set, &err, &warns),
                     BOX_ECONFIG);
    assert_string_equal(err, "policy fails schema validation: policy.dw:1:84: "
                             "for policy "
                             "`policy_0`, unable to guarantee safety of access "
                             "to optional attribute `output` in context for "
                             "Drupe::Action::\"ApproveSale\"");
    box_free(err);
    box_free(warns);
    pdp_schema_free(drupe);
    box_free(stext);

    /* 0300: a BOM in both the schema and the policy. */
    const char *dir = "pdp/testdata/dogwood/cedar_only/corpus_handwritten/"
                      "documentation_0300_bom_prefixed_schema/";
    char *rel = box_asprintf("%sschema.cedarschema", dir);
    stext = read_rel(rel, &len);
    box_free(rel);
    pdp_schema *ns;
    assert_int_equal(pdp_schema_load(stext, len, "bom", &ns, &err), BOX_OK);
    rel = box_asprintf("%spolicy_1.dw", dir);
    char *ptext = read_rel(rel, &len);
    box_free(rel);
    loads_with(ptext, ns, NULL, NULL);
    box_free(ptext);
    pdp_schema_free(ns);
    box_free(stext);
}


/* ---- extension types, is, tags (§6.1 typing; §8.1 with the Drupe
 * schema of §8.0) ---- */

static pdp_schema *
drupe_schema(void)
{
    size_t len;
    char *stext = read_rel("pdp/testdata/dogwood/schemas/"
                           "drupe_test_world.cedarschema",
                           &len);
    pdp_schema *drupe = NULL;
    char *err = NULL;
    assert_int_equal(pdp_schema_load(stext, len, "drupe", &drupe, &err),
                     BOX_OK);
    box_free(stext);
    return drupe;
}

#define DP(act) "permit (principal, action == Drupe::Action::\"" act "\", " \
    "resource) "
#define FAILS "policy fails schema validation: for policy `policy_0`, "
#define IMPOSSIBLE "for policy `policy_0`, policy is impossible: the policy " \
    "expression evaluates to false for all valid requests"

static void
test_extension_validation(void **state)
{
    (void)state;
    pdp_schema *d = drupe_schema();
    /* §8.1 cases that use these constructs validate. */
    static const char *const ok[] = {
        /* C10 */
        DP("ApproveSale") "when { if context has output then "
        "context.output.proceeds == decimal(\"0.0\") else false };",
        /* C16 */
        DP("SellShares") "when { context.system.now >= "
        "datetime(\"2025-01-01T00:00:00Z\") && context.system.now < "
        "datetime(\"2026-01-01T00:00:00Z\") };",
        /* C17 */
        DP("ApproveSale") "when { context has output && "
        "context.output.proceeds.lessThan(decimal(\"100.0\")) };",
        /* C21, scope and condition */
        "permit (principal is Drupe::OAuthUser in Drupe::Team::\"traders\", "
        "action == Drupe::Action::\"GetStockInfo\", resource);",
        DP("GetStockInfo") "when { principal is Drupe::OAuthUser in "
        "Drupe::Team::\"traders\" };",
        "permit (principal is Drupe::OAuthUser, action, resource is "
        "Drupe::Gateway);",
        /* C23 with its guard, also across clauses */
        "permit (principal, action, resource) when { "
        "principal.hasTag(\"level\") && principal.getTag(\"level\") == "
        "\"gold\" };",
        "permit (principal, action, resource) when { "
        "principal.hasTag(\"level\") } when { principal.getTag(\"level\") "
        "like \"g*\" };",
        "permit (principal, action, resource) when { if "
        "principal.hasTag(\"level\") then principal.getTag(\"level\") == "
        "\"gold\" else false };",
        /* C24, C25 */
        "permit (principal, action, resource) when { "
        "ip(\"192.168.1.5\").isInRange(ip(\"192.168.0.0/16\")) && "
        "ip(\"127.0.0.2\").isLoopback() && !(ip(\"192.168.0.1/24\") == "
        "ip(\"192.168.0.8/24\")) && ip(\"ff00::2\").isMulticast() && "
        "ip(\"::1\").isIpv6() };",
        "permit (principal, action, resource) when { "
        "duration(\"1h30m\").toMinutes() == 90 && "
        "datetime(\"2024-10-15\").offset(duration(\"1h\")) == "
        "datetime(\"2024-10-15T01:00:00Z\") && "
        "datetime(\"2024-10-14T23:18:00Z\").durationSince("
        "datetime(\"2024-10-15\")) == duration(\"-42m\") && "
        "datetime(\"2025-02-20T22:00:00-0500\").toDate() == "
        "datetime(\"2025-02-21\") && duration(\"4m70s\").toMinutes() == 5 "
        "&& duration(\"100ms\").toSeconds() == 0 };",
        /* every method, typed from the table */
        DP("SellShares") "when { context.system.now.toTime() < "
        "duration(\"12h\") && context.system.now.toDate().durationSince("
        "context.system.now).toHours() <= 0 && [decimal(\"1.0\"), "
        "decimal(\"2.0\")].contains(decimal(\"1.00\")) && "
        "decimal(\"1.0\").greaterThanOrEqual(decimal(\"0.5\")) && "
        "ip(\"10.0.0.1\").isIpv4() && duration(\"1d\").toDays() + "
        "duration(\"1s\").toMilliseconds() > 0 };",
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++)
        loads_with(ok[i], d, NULL, NULL);

    static const struct {
        const char *src;
        const char *msg;
    } bad[] = {
        /* C17's `<` on decimals (§3.5) */
        {DP("ApproveSale") "when { context has output && "
         "context.output.proceeds < decimal(\"100.0\") };",
         FAILS "unexpected type: expected Long, or datetime, or duration but "
         "saw decimal"},
        {DP("SellShares") "when { context.system.now < duration(\"1h\") };",
         FAILS "unexpected type: expected datetime but saw duration"},
        /* C23 without its guard, or guarded by another key */
        {"permit (principal, action, resource) when { "
         "principal.getTag(\"level\") == \"gold\" };",
         FAILS "unable to guarantee safety of access to tag `\"level\"` on "
         "entity type `Drupe::OAuthUser`"},
        {"permit (principal, action, resource) when { "
         "principal.hasTag(\"rank\") && principal.getTag(\"level\") == "
         "\"gold\" };",
         FAILS "unable to guarantee safety of access to tag `\"level\"` on "
         "entity type `Drupe::OAuthUser`"},
        {"permit (principal, action, resource) when { "
         "principal.hasTag(\"level\") || principal.getTag(\"level\") == "
         "\"gold\" };",
         FAILS "unable to guarantee safety of access to tag `\"level\"` on "
         "entity type `Drupe::OAuthUser`"},
        /* tags are Strings here */
        {"permit (principal, action, resource) when { "
         "principal.hasTag(\"level\") && principal.getTag(\"level\") == 1 };",
         FAILS "the types Long and String are not compatible: both operands "
         "to a `==` expression must have compatible types"},
        {"permit (principal, action, resource) when { principal.hasTag(1) };",
         FAILS "unexpected type: expected String but saw Long"},
        {DP("Login") "when { context.input.user.hasTag(\"x\") };",
         FAILS "unexpected type: expected __cedar::internal::AnyEntity but "
         "saw String"},
        /* `==` between different non-entity types (§3.3 vs §6.1) */
        {"permit (principal, action, resource) when { decimal(\"1.0\") == "
         "\"1.0\" };",
         FAILS "the types String and decimal are not compatible: both "
         "operands to a `==` expression must have compatible types"},
        {"permit (principal, action, resource) when { ip(\"::1\") == "
         "decimal(\"1.0\") };",
         FAILS "the types decimal and ipaddr are not compatible: both "
         "operands to a `==` expression must have compatible types"},
        {"permit (principal, action, resource) when { duration(\"1h\") == "
         "3600000 };",
         FAILS "the types Long and duration are not compatible: both "
         "operands to a `==` expression must have compatible types"},
        /* constructors: string literals only, and they must parse */
        {DP("SellShares") "when { decimal(context.input.stock) == "
         "decimal(\"1.0\") };",
         FAILS "extension constructors may not be called with non-literal "
         "expressions"},
        {"permit (principal, action, resource) when { decimal(1) == "
         "decimal(\"1.0\") };",
         FAILS "unexpected type: expected String but saw Long"},
        {"permit (principal, action, resource) when { decimal(\"1\") == "
         "decimal(\"1.0\") };",
         FAILS "error during extension function argument validation: error "
         "while evaluating `decimal` extension function: `1` is not a "
         "well-formed decimal value"},
        {"permit (principal, action, resource) when { "
         "ip(\"127.0.0.1/8/24\").isLoopback() };",
         FAILS "error during extension function argument validation: error "
         "while evaluating `ipaddr` extension function: error parsing "
         "prefix: string length 4 is too large"},
        {"permit (principal, action, resource) when { "
         "datetime(\"2025-02-29\") == datetime(\"2025-03-01\") };",
         FAILS "error during extension function argument validation: error "
         "while evaluating `datetime` extension function: invalid date: "
         "2025-02-29"},
        {"permit (principal, action, resource) when { "
         "duration(\"1m1h\").toMinutes() == 61 };",
         FAILS "error during extension function argument validation: error "
         "while evaluating `duration` extension function: invalid duration "
         "pattern"},
        /* extension methods: receiver and argument types */
        {DP("SellShares") "when { context.input.stock.lessThan(decimal("
         "\"1.0\")) };",
         FAILS "unexpected type: expected decimal but saw String"},
        {"permit (principal, action, resource) when { decimal(\"1.0\")"
         ".lessThan(1) };",
         FAILS "unexpected type: expected decimal but saw Long"},
        {"permit (principal, action, resource) when { ip(\"::1\")"
         ".isInRange(decimal(\"1.0\")) };",
         FAILS "unexpected type: expected ipaddr but saw decimal"},
        {DP("SellShares") "when { context.system.now.toDays() == 1 };",
         FAILS "unexpected type: expected duration but saw datetime"},
        {DP("SellShares") "when { context.system.now.offset("
         "context.system.now) == context.system.now };",
         FAILS "unexpected type: expected duration but saw datetime"},
        {"permit (principal, action, resource) when { "
         "duration(\"1h\").toMinutes() == \"60\" };",
         FAILS "the types Long and String are not compatible: both operands "
         "to a `==` expression must have compatible types"},
        /* is */
        {"permit (principal, action, resource) when { principal is "
         "Drupe::OAuthUsr };",
         FAILS "unrecognized entity type `Drupe::OAuthUsr` (did you mean "
         "`Drupe::OAuthUser`?)"},
        {"permit (principal is Drupe::Usr, action, resource);",
         FAILS "unrecognized entity type `Drupe::Usr`"},
        {DP("Login") "when { context.input.user is Drupe::OAuthUser };",
         FAILS "unexpected type: expected __cedar::internal::AnyEntity but "
         "saw String"},
        {DP("Login") "when { principal is Drupe::OAuthUser in "
         "context.input.user };",
         FAILS "unexpected type: expected Set<__cedar::internal::AnyEntity>, "
         "or __cedar::internal::AnyEntity but saw String"},
        {"permit (principal is Drupe::Gateway, action, resource);",
         FAILS "unable to find an applicable action given the policy scope "
         "constraints"},
        {"permit (principal is Drupe::OAuthUser in Drupe::Gateway::\"gw1\", "
         "action, resource);",
         FAILS "unable to find an applicable action given the policy scope "
         "constraints"},
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        refuses_with(bad[i].src, d, bad[i].msg);

    /* A bad literal is refused at load, located in the file. */
    pdp_policy_set *set = NULL;
    char *err = NULL, *warns = NULL;
    assert_int_equal(load("permit (principal, action, resource)\n  when { "
                          "decimal(\"1.\") == decimal(\"1.0\") };",
                          d, NULL, &set, &err, &warns),
                     BOX_ECONFIG);
    assert_null(set);
    assert_string_equal(err, "policy fails schema validation: policy.dw:2:10: "
                             "for policy `policy_0`, error during extension "
                             "function argument validation: error while "
                             "evaluating `decimal` extension function: `1.` is "
                             "not a well-formed decimal value");
    box_free(err);
    box_free(warns);

    /* `is` and hasTag decided by the type: constant false is a warning. */
    loads_with("permit (principal, action, resource) when { principal is "
               "Drupe::Gateway };", d, NULL, IMPOSSIBLE);
    loads_with("permit (principal, action, resource) when { "
               "resource.hasTag(\"x\") };", d, NULL, IMPOSSIBLE);
    pdp_schema_free(d);

    /* Box: principal and resource declare no tags (§3.8). */
    loads_with("permit (principal, action, resource) when { "
               "principal.hasTag(\"x\") };", BOX, NULL, IMPOSSIBLE);
    /* (behind a constant-false hasTag, getTag is never typed: Cedar
     * skips the right of `false && …`) */
    loads_with("permit (principal, action, resource) when { "
               "principal.hasTag(\"x\") && principal.getTag(\"x\") == \"y\" };",
               BOX, NULL, IMPOSSIBLE);
    refuses("permit (principal, action, resource) when { "
            "principal.getTag(\"x\") == \"y\" };",
            FAILS "`.getTag()` is not allowed on entities of type `Box::Agent` "
            "because no `tags` were declared on the entity type in the schema");
    loads("permit (principal is Box::Agent, action == Box::Action::\"fs:read\", "
          "resource is Box::Resource) when { principal is Box::Agent && "
          "context.input.operation is Box::FsReadOperation };");
    refuses("permit (principal is Box::Resource, action, resource);",
            FAILS "unable to find an applicable action given the policy scope "
            "constraints");
}

/* §1.5 with extension values: the request's context conforms to the
 * schema's extension types; a decision over the Drupe schema. */
static void
test_extension_requests(void **state)
{
    (void)state;
    pdp_schema *d = drupe_schema();
    pdp_policy_set *set;
    char *err, *warns;
    const char *c16 =
        DP("SellShares") "when { context.system.now >= "
        "datetime(\"2025-01-01T00:00:00Z\") && context.system.now < "
        "datetime(\"2026-01-01T00:00:00Z\") };";
    assert_int_equal(load(c16, d, NULL, &set, &err, &warns), BOX_OK);
    box_free(warns);
    pdp_request rq = trq(A, "Drupe::OAuthUser::\"alice\"",
                         "Drupe::Action::\"SellShares\"",
                         "Drupe::Gateway::\"gw1\"",
                         "{ input: { shares: 1, stock: \"A\" }, system: { now: "
                         "datetime(\"2025-06-01T00:00:00Z\") } }",
                         "gw1");
    assert_int_equal(pdp_decide(set, &rq, ANS), BOX_OK);
    assert_int_equal(pdp_answer_verdict(ANS), PDP_ALLOW);
    rq = trq(A, "Drupe::OAuthUser::\"alice\"", "Drupe::Action::\"SellShares\"",
             "Drupe::Gateway::\"gw1\"",
             "{ input: { shares: 1, stock: \"A\" }, output: { proceeds: "
             "decimal(\"1.0\"), approved: true }, system: { now: "
             "datetime(\"2026-06-01T00:00:00Z\") } }",
             "gw1");
    assert_int_equal(pdp_decide(set, &rq, ANS), BOX_OK);
    assert_int_equal(pdp_answer_reason(ANS), PDP_REASON_NOMATCH);
    rq = trq(A, "Drupe::OAuthUser::\"alice\"", "Drupe::Action::\"SellShares\"",
             "Drupe::Gateway::\"gw1\"",
             "{ input: { shares: 1, stock: \"A\" }, system: { now: "
             "\"2025-06-01\" } }",
             "gw1");
    assert_int_equal(pdp_decide(set, &rq, ANS), BOX_OK);
    assert_int_equal(pdp_answer_reason(ANS), PDP_REASON_INTERNAL_FAULT);
    assert_string_equal(pdp_answer_error_message(ANS, 0),
                        "request for Drupe::Action::\"SellShares\" does not "
                        "match the schema: `system.now` must be datetime, not "
                        "a string");
    rq = trq(A, "Drupe::OAuthUser::\"alice\"", "Drupe::Action::\"SellShares\"",
             "Drupe::Gateway::\"gw1\"",
             "{ input: { shares: 1, stock: \"A\" }, output: { proceeds: "
             "duration(\"1s\"), approved: true }, system: { now: "
             "datetime(\"2025-06-01\") } }",
             "gw1");
    assert_int_equal(pdp_decide(set, &rq, ANS), BOX_OK);
    assert_int_equal(pdp_answer_reason(ANS), PDP_REASON_INTERNAL_FAULT);
    assert_string_equal(pdp_answer_error_message(ANS, 0),
                        "request for Drupe::Action::\"SellShares\" does not "
                        "match the schema: `output.proceeds` must be decimal, "
                        "not a duration");
    pdp_policy_free(set);
    pdp_schema_free(d);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_b14_validation),
        cmocka_unit_test(test_refusal_is_located),
        cmocka_unit_test(test_b10_enum_decisions),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_accepted),
        cmocka_unit_test(test_warnings_and_locations),
        cmocka_unit_test(test_b15_spelling),
        cmocka_unit_test(test_request_validation),
        cmocka_unit_test(test_decide_validates_requests),
        cmocka_unit_test(test_shipped_policies),
        cmocka_unit_test(test_conformance_with_schema),
        cmocka_unit_test(test_extension_validation),
        cmocka_unit_test(test_extension_requests),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
