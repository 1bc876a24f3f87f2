/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_policy: Box load checks (§6.2 steps 5–6, §8.3 B14), the
 * action index, and the accessors the validator will use. */
#include "pdp_test_util.h"

#include "pdp_policy.h"

static box_err
load(const char *text, pdp_policy_set **set, char **err)
{
    return pdp_policy_load(text, strlen(text), "policy.dw", set, err);
}

static void
refuses(const char *text, box_err code, const char *want, bool prefix)
{
    pdp_policy_set *set = (pdp_policy_set *)1;
    char *err = NULL;
    box_err rv = load(text, &set, &err);
    assert_null(set);
    assert_non_null(err);
    if (rv != code ||
        (prefix ? strncmp(err, want, strlen(want)) : strcmp(err, want)) != 0)
        fail_msg("%s\n  got:  [%s] %s\n  want: [%s] %s", text, box_strerror(rv),
                 err, box_strerror(code), want);
    box_free(err);
}

static void
loads(const char *text)
{
    pdp_policy_set *set;
    char *err;
    if (load(text, &set, &err) != BOX_OK)
        fail_msg("%s\n  -> %s", text, err);
    assert_null(err);
    pdp_policy_free(set);
}

static void
test_b14_reserved_action(void **state)
{
    refuses("permit(principal == Box::Agent::\"self\", action == "
            "Box::Action::\"shell:exec\", resource); @id(\"other-only\") "
            "permit(principal == Box::Agent::\"self\", action == "
            "Box::Action::\"fs:other\", resource);",
            BOX_ECONFIG,
            "policy names only a reserved action: rule @id(\"other-only\") "
            "(rule 2) names only the reserved action \"fs:other\"; no operation "
            "raises it, so the rule cannot match; name fs:read, fs:write, "
            "fs:delete, or fs:move, alone or beside fs:other",
            false);
    refuses("forbid(principal, action in [Box::Action::\"fs:other\"], resource);",
            BOX_ECONFIG,
            "policy names only a reserved action: the forbid rule with no @id "
            "(rule 1) names only",
            true);
    refuses("permit(principal, action in Box::Action::\"fs:other\", resource);\n"
            "@id(\"\") forbid(principal, action in [Box::Action::\"fs:other\", "
            "Box::Action::\"fs:other\"], resource);",
            BOX_ECONFIG,
            "policy names only a reserved action: the permit rule with no @id "
            "(rule 1) names only the reserved action \"fs:other\"; rule "
            "@id(\"\") (rule 2) names only the reserved action \"fs:other\"; no "
            "operation raises it, so the rule cannot match; name fs:read, "
            "fs:write, fs:delete, or fs:move, alone or beside fs:other",
            false);
    loads("@id(\"every_fs_action\") forbid(principal, action in "
          "[Box::Action::\"fs:read\", Box::Action::\"fs:write\", "
          "Box::Action::\"fs:delete\", Box::Action::\"fs:move\", "
          "Box::Action::\"fs:other\"], resource) when { context.input.path "
          "like \"~/.aws/*\" }; permit(principal, action == "
          "Box::Action::\"fs:write\", resource);");
}

static void
test_b14_duplicate_ids(void **state)
{
    refuses("@id(\"a\") permit(principal, action, resource);\n"
            "@id(\"b\") permit(principal, action, resource);\n"
            "@id(\"workspace_read\") permit(principal, action, resource);\n"
            "@id(\"workspace_read\") permit(principal, action, resource);",
            BOX_ECONFIG,
            "policy gives one @id to more than one rule: @id(\"workspace_read\") "
            "is on rules 3, 4; a denial and a telemetry record name a rule by "
            "its @id, so give each rule its own @id",
            false);
    refuses("@id(\"b\") permit(principal, action, resource);\n"
            "@id(\"a\") permit(principal, action, resource);\n"
            "@id(\"b\") permit(principal, action, resource);\n"
            "@id(\"a\") permit(principal, action, resource);\n"
            "@id(\"b\") permit(principal, action, resource);",
            BOX_ECONFIG,
            "policy gives one @id to more than one rule: @id(\"a\") is on rules "
            "2, 4; @id(\"b\") is on rules 1, 3, 5; a denial",
            true);
    refuses("@id(\"a\") permit(principal, action, resource);\n"
            "@id(\"b\") permit(principal, action, resource);\n"
            "@id(\"a\") permit(principal, action, resource);\n"
            "@id(\"b\") permit(principal, action, resource);\n"
            "@id(\"a\") permit(principal, action, resource);",
            BOX_ECONFIG,
            "policy gives one @id to more than one rule: @id(\"a\") is on rules "
            "1, 3, 5; @id(\"b\") is on rules 2, 4;",
            true);
    /* Blank ids are absent; ids compare exactly. */
    loads("@id(\"\") permit(principal, action, resource);\n"
          "@id(\"\") permit(principal, action, resource);\n"
          "@id(\" \\t\") permit(principal, action, resource);\n"
          "permit(principal, action, resource);\n"
          "permit(principal, action, resource);\n"
          "@id(\"A\") permit(principal, action, resource);\n"
          "@id(\"a\") permit(principal, action, resource);\n"
          "@id(\"a \") permit(principal, action, resource);");
    /* Step 5 runs before step 6. */
    refuses("@id(\"x\") permit(principal, action == Box::Action::\"fs:other\", "
            "resource); @id(\"x\") permit(principal, action, resource);",
            BOX_ECONFIG, "policy gives one @id to more than one rule: ", true);
}

static void
test_load_errors(void **state)
{
    /* Parse errors name the file; C28 lines through the loader. */
    refuses("permit (principal, action, resource) when { "
            "context.input.shares = 5 };",
            BOX_EPARSE,
            "policy.dw:1:66: `=` is not a valid operator in this scope; did you "
            "mean `==`?",
            false);
    refuses("permit (principal, action, resource) when { "
            "context.input.shares == 9223372036854775808 };",
            BOX_EPARSE,
            "policy.dw:1:69: integer literal `9223372036854775808` is out of "
            "range",
            false);
    loads("permit (principal, action, resource) when { "
          "context.input.shares == -9223372036854775808 };");
    loads("permit (principal, action, resource) when temporal { formerly "
          "within 1h A::Action::\"x\"::request{} };");
    // The Box load takes temporal conditions (when, unless, inline): the
    // running PDP decides them over its history (pdp_live).
    static const char *const temporal[] = {
        "permit (principal, action, resource) when temporal { formerly "
        "within 1h Box::Action::\"fs:read\"::request{} };",
        "permit (principal, action, resource) unless temporal { formerly "
        "within 1h Box::Action::\"fs:read\"::request{} };",
        "permit (principal, action, resource) when { true && temporal { "
        "formerly within 1h Box::Action::\"fs:read\"::request{} } };",
    };
    for (size_t i = 0; i < sizeof temporal / sizeof temporal[0]; i++) {
        pdp_policy_set *set = NULL;
        char *err = NULL;
        box_err rv = pdp_policy_load_checked(temporal[i], strlen(temporal[i]),
                                             "policy.dw", NULL, NULL, &set,
                                             NULL, &err);
        if (rv != BOX_OK)
            fail_msg("%s\n  -> %s", temporal[i], err);
        int64_t window = 0;
        assert_true(pdp_policy_temporal(set, &window));
        assert_int_equal(window, 3600);
        pdp_policy_free(set);
    }
    /* The size cap. */
    pdp_policy_set *set;
    char *err;
    assert_int_equal(pdp_policy_load("", PDP_POLICY_MAX_BYTES + 1u, "big.dw",
                                     &set, &err),
                     BOX_ETOOBIG);
    assert_string_equal(err, "big.dw: policy text is larger than the limit of "
                             "8388608 bytes");
    box_free(err);
}

static void
test_index_and_accessors(void **state)
{
    const char *text =
        "@id(\"r0\") @description(\"first\") permit(principal, action == "
        "Box::Action::\"fs:read\", resource);\n"
        "forbid(principal, action, resource) when { false };\n"
        "@id(\" \") permit(principal, action in [Box::Action::\"fs:read\", "
        "Box::Action::\"fs:write\", Box::Action::\"fs:read\"], resource);\n"
        "permit(principal, action in Box::Action::\"net:connect\", resource);\n"
        "permit(principal, action, resource);\n";
    pdp_policy_set *set;
    char *err;
    assert_int_equal(load(text, &set, &err), BOX_OK);
    assert_int_equal(pdp_policy_rule_count(set), 5);
    assert_int_equal(pdp_policy_ast(set)->as_nrules, 5);
    const pdp_rule *r0 = pdp_policy_rule(set, 0);
    assert_null(pdp_policy_rule(set, 5));
    assert_string_equal(pdp_rule_display_id(r0).s, "r0");
    assert_string_equal(pdp_rule_description(r0).s, "first");
    assert_string_equal(pdp_rule_display_id(pdp_policy_rule(set, 2)).s,
                        "policy_2");
    assert_null(pdp_rule_description(pdp_policy_rule(set, 2)).s);
    assert_int_equal(r0->r_action.sc_op, PDP_SCOPE_EQ);
    assert_int_equal(pdp_policy_rule(set, 2)->r_action.sc_op, PDP_SCOPE_IN_SET);
    assert_int_equal(pdp_policy_rule(set, 2)->r_action.sc_n, 3);
    assert_int_equal(pdp_policy_rule(set, 1)->r_nconds, 1);
    assert_int_equal(pdp_policy_rule(set, 1)->r_conds[0].cd_pos.line, 2);

    box_arena *a = box_arena_new(1u << 20);
    static const struct {
        const char *action;
        const char *specific;
    } want[] = {
        {"Box::Action::\"fs:read\"", "0 2"},
        {"Box::Action::\"fs:write\"", "2"},
        {"Box::Action::\"net:connect\"", "3"},
        {"Box::Action::\"fs:delete\"", ""},
        {"Other::Action::\"fs:read\"", ""},
    };
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        const pdp_rule *const *spec, *const *any;
        size_t ns, na;
        pdp_policy_candidates(set, tv(a, want[i].action), &spec, &ns, &any, &na);
        char got[64] = "";
        for (size_t k = 0; k < ns; k++)
            snprintf(got + strlen(got), sizeof(got) - strlen(got), "%s%u",
                     k ? " " : "", spec[k]->r_index);
        assert_string_equal(got, want[i].specific);
        assert_int_equal(na, 2);
        assert_int_equal(any[0]->r_index, 1);
        assert_int_equal(any[1]->r_index, 4);
    }
    box_arena_free(a);
    pdp_policy_free(set);
    pdp_policy_free(NULL);
}

/* Which decisions touch the history (recorded, never cacheable). */
static void
test_history_reads(void **state)
{
    (void)state;
    static const struct {
        const char *policy;
        const char *yes, *no; // comma-free lists of action ids, by space
    } cases[] = {
        // A cap on rm: its own action, named in the predicate.
        {"permit (principal, action, resource);\n"
         "forbid (principal, action == Box::Action::\"shell:exec\", "
         "resource) when temporal { (count for (t: Timepoint). where "
         "formerly within 1m (Box::Action::\"shell:exec\"::request{} && "
         "tp(t))) > 3 };",
         "shell:exec", "fs:read fs:write"},
        // A write needs a read: the rule's action and the predicate's.
        {"permit (principal, action, resource);\n"
         "forbid (principal, action in [Box::Action::\"fs:write\"], "
         "resource) unless temporal { formerly within 10m "
         "Box::Action::\"fs:read\"::request{} };",
         "fs:write fs:read", "shell:exec fs:delete"},
        // `previous` reads whatever came just before: every action.
        {"permit (principal, action == Box::Action::\"fs:read\", resource) "
         "when temporal { previous within 1m "
         "Box::Action::\"fs:read\"::request{} };",
         "fs:read shell:exec fs:delete", ""},
        // A temporal rule over every action.
        {"forbid (principal, action, resource) when temporal { formerly "
         "within 1m Box::Action::\"fs:delete\"::request{} };",
         "fs:read shell:exec", ""},
        // No temporal rule: nothing.
        {"permit (principal, action, resource);", "", "fs:read shell:exec"},
    };
    box_arena *a = box_arena_new(1u << 20);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pdp_policy_set *set = NULL;
        char *err = NULL;
        if (load(cases[i].policy, &set, &err) != BOX_OK)
            fail_msg("%s\n  -> %s", cases[i].policy, err);
        for (int want = 1; want >= 0; want--) {
            const char *p = want ? cases[i].yes : cases[i].no;
            while (*p != '\0') {
                size_t n = strcspn(p, " ");
                pdp_value *act = NULL;
                assert_int_equal(
                    pdp_value_entity(a, "Box::Action", 11, p, n, &act),
                    BOX_OK);
                if (pdp_policy_history_reads(set, act) != (want == 1))
                    fail_msg("case %zu: %.*s should %sread history", i,
                             (int)n, p, want ? "" : "not ");
                p += n + (p[n] == ' ');
            }
        }
        pdp_policy_free(set);
    }
    box_arena_free(a);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_b14_reserved_action),
        cmocka_unit_test(test_b14_duplicate_ids),
        cmocka_unit_test(test_load_errors),
        cmocka_unit_test(test_index_and_accessors),
        cmocka_unit_test(test_history_reads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
