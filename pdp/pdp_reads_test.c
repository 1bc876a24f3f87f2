/* SPDX-License-Identifier: Apache-2.0 */
/* pdp_reads: which context.input fields an action's rules name, so the
 * permit cache can key on those values alone. */
#include "pdp_test_util.h"

#include "pdp_policy.h"
#include "pdp_reads.h"

/* One case: the rules, the action asked about, and what it reads: "*" for
 * any field, else the field names joined by commas in first-seen order. */
typedef struct reads_case {
    const char *rc_rules;
    const char *rc_action;
    const char *rc_want;
} reads_case;

#define EXEC "action == Box::Action::\"shell:exec\""
#define PERMIT(cond)                                                           \
    "permit (principal, " EXEC ", resource) when { " cond " };\n"

// clang-format off
static const reads_case reads_cases[] = {
    {"permit (principal, action, resource);\n", "shell:exec", ""},
    {PERMIT("context.input.program == \"ls\""), "shell:exec", "program"},
    {PERMIT("context.input[\"command\"] like \"git *\""), "shell:exec", "command"},
    {PERMIT("context.input has arg1 && context.input.arg1 == \"-l\""),
     "shell:exec", "arg1"},
    {PERMIT("context has input.cwd"), "shell:exec", "cwd"},
    {PERMIT("if context.input.arg_count > 1 then context.input.arg1 == \"a\" "
            "else true"), "shell:exec", "arg_count,arg1"},
    {PERMIT("context.input.program == \"a\" || context.input.program == \"b\""),
     "shell:exec", "program"},
    {PERMIT("[\"a\", \"b\"].contains(context.input.program)"), "shell:exec",
     "program"},
    {PERMIT("context has input"), "shell:exec", "*"},
    // A rule of another action does not count; an unscoped one does.
    {"permit (principal, action == Box::Action::\"fs:read\", resource) when "
     "{ context.input.path like \"/w/*\" };\n" PERMIT("true"),
     "shell:exec", ""},
    {"forbid (principal, action, resource) when { context has input.cwd };\n"
     PERMIT("context.input.program == \"ls\""), "shell:exec", "program,cwd"},
    // unless counts as much as when
    {"forbid (principal, " EXEC ", resource) unless { "
     "context.input.program == \"ls\" };\n", "shell:exec", "program"},
};
// clang-format on

static void
reads_render(const pdp_reads *r, char *out, size_t n)
{
    size_t k = 0;
    out[0] = '\0';
    if (r->rd_all) {
        snprintf(out, n, "*");
        return;
    }
    for (size_t i = 0; i < r->rd_n; i++)
        k += (size_t)snprintf(out + k, n - k, "%s%.*s", i ? "," : "",
                              (int)r->rd_fields[i].len, r->rd_fields[i].s);
}

static void
test_reads_table(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof reads_cases / sizeof reads_cases[0]; i++) {
        const reads_case *c = &reads_cases[i];
        pdp_policy_set *set = NULL;
        char *err = NULL;
        if (pdp_policy_load(c->rc_rules, strlen(c->rc_rules), "t.dw", &set,
                            &err) != BOX_OK)
            fail_msg("case %zu does not load: %s", i, err);
        box_arena *a = box_arena_new(1 << 16);
        assert_non_null(a);
        char act[128];
        snprintf(act, sizeof act, "Box::Action::\"%s\"", c->rc_action);
        const pdp_reads *r = pdp_reads_for_action(set, tv(a, act));
        char got[512];
        reads_render(r, got, sizeof got);
        if (strcmp(got, c->rc_want) != 0)
            fail_msg("case %zu: reads `%s`, want `%s`", i, got, c->rc_want);
        box_arena_free(a);
        pdp_policy_free(set);
    }
}

/* More distinct fields than the cap read as any field. */
static void
test_reads_cap(void **state)
{
    (void)state;
    char rules[8192];
    size_t k = (size_t)snprintf(rules, sizeof rules,
                                "permit (principal, " EXEC ", resource) when {"
                                " true");
    for (int i = 0; i <= PDP_READS_MAX; i++)
        k += (size_t)snprintf(rules + k, sizeof rules - k,
                              " && context.input.f%d == 1", i);
    snprintf(rules + k, sizeof rules - k, " };\n");
    pdp_policy_set *set = NULL;
    char *err = NULL;
    assert_int_equal(pdp_policy_load(rules, strlen(rules), "t.dw", &set, &err),
                     BOX_OK);
    box_arena *a = box_arena_new(1 << 16);
    const pdp_reads *r =
        pdp_reads_for_action(set, tv(a, "Box::Action::\"shell:exec\""));
    assert_true(r->rd_all);
    box_arena_free(a);
    pdp_policy_free(set);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reads_table),
        cmocka_unit_test(test_reads_cap),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
