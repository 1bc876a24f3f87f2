/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Temporal rules through a real box (issue 21): the PDP keeps the box's
 * history, so a rule over earlier actions holds across separate `sh -c`
 * calls of the agent, not only inside one script.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_testutil.h"
#include "box_world.h"

/* The project open to the agent, then two history rules: at most 3 `rm`
 * in a minute (a cap is a forbid), and a write needs a read of the same
 * file within 10 minutes. */
static const char temporal_policy[] =
    "permit (principal, action == Box::Action::\"shell:exec\", resource);\n"
    "permit (principal, action in [Box::Action::\"fs:read\", "
    "Box::Action::\"fs:write\", Box::Action::\"fs:delete\"], resource)\n"
    "when { context.input.path == \"~/src/project\" ||\n"
    "       context.input.path like \"~/src/project/*\" };\n"
    "@id(\"rm-cap\")\n"
    "forbid (principal, action == Box::Action::\"shell:exec\", resource)\n"
    "when { context.input.program == \"rm\" }\n"
    "when temporal { (count for (t: Timepoint). where formerly within 1m "
    "(Box::Action::\"shell:exec\"::request{ input.program: \"rm\" } && "
    "tp(t))) > 3 };\n"
    "@id(\"write-needs-read\")\n"
    "forbid (principal, action == Box::Action::\"fs:write\", resource)\n"
    "unless temporal { formerly within 10m "
    "Box::Action::\"fs:read\"::request{ input.path: context.input.path } "
    "};\n";

static void
test_rules_hold_across_calls(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, temporal_policy);
    box_proc_result r;
    box_world_run(w,
                  // A write with no read before it, then read and write in
                  // two separate calls.
                  "sh -c 'echo x >> README.md'; echo \"write $?\"\n"
                  "sh -c 'wc -l < README.md'; echo \"read $?\"\n"
                  "sh -c 'echo x >> README.md'; echo \"write $?\"\n"
                  // Four rm calls: the fourth is over the cap.
                  "for i in 1 2 3 4; do sh -c \"rm -f gone$i\"; "
                  "echo \"rm $i $?\"; done\n",
                  &r);
    if (strstr(r.pr_out, "read 0") == NULL)
        print_error("%s", r.pr_err);
    assert_string_equal(r.pr_out, "write 1\n1\nread 0\nwrite 0\n"
                                  "rm 1 0\nrm 2 0\nrm 3 0\nrm 4 126\n");
    assert_non_null(strstr(r.pr_err, "[policy: write-needs-read]"));
    assert_non_null(strstr(r.pr_err, "policy denied this operation on 'rm' "
                                     "[policy: rm-cap]"));
    box_proc_result_free(&r);
}

/* The history is durable in the box directory: a second `box run` of
 * the same box (a new box-pdp) still counts the first run's rm calls. */
static void
test_cap_holds_across_runs(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, temporal_policy);
    box_proc_result r;
    box_world_run(w,
                  "for i in 1 2 3; do sh -c \"rm -f gone$i\"; "
                  "echo \"rm $i $?\"; done\n",
                  &r);
    assert_string_equal(r.pr_out, "rm 1 0\nrm 2 0\nrm 3 0\n");
    box_proc_result_free(&r);
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/private/history/dogwood.history",
             w->bw_state);
    assert_int_equal(access(path, F_OK), 0);
    box_world_run(w, "sh -c 'rm -f gone4'; echo \"rm 4 $?\"\n", &r);
    assert_string_equal(r.pr_out, "rm 4 126\n");
    assert_non_null(strstr(r.pr_err, "[policy: rm-cap]"));
    box_proc_result_free(&r);
}

/* The shell records outcomes (dogwood-spec §5.6): a cap over successful
 * rm (::response with output.status 0), and a write that needs a read
 * that happened (::response, not the ::error of a missing file). */
static const char outcome_policy[] =
    "permit (principal, action == Box::Action::\"shell:exec\", resource);\n"
    "permit (principal, action in [Box::Action::\"fs:read\", "
    "Box::Action::\"fs:write\", Box::Action::\"fs:delete\"], resource)\n"
    "when { context.input.path == \"~/src/project\" ||\n"
    "       context.input.path like \"~/src/project/*\" };\n"
    "@id(\"rm-done-cap\")\n"
    "forbid (principal, action == Box::Action::\"shell:exec\", resource)\n"
    "when { context.input.program == \"rm\" }\n"
    "when temporal { (count for (t: Timepoint). where formerly within 1m "
    "(Box::Action::\"shell:exec\"::response{ input.program: \"rm\", "
    "output.status: 0 } && tp(t))) >= 3 };\n"
    "@id(\"write-needs-done-read\")\n"
    "forbid (principal, action == Box::Action::\"fs:write\", resource)\n"
    "unless temporal { formerly within 10m "
    "Box::Action::\"fs:read\"::response{ input.path: context.input.path } "
    "};\n";

static void
test_outcomes_count(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, outcome_policy);
    box_proc_result r;
    box_world_run(w,
                  // A read of a missing file is an ::error: no unlock.
                  "sh -c 'cat new.txt'; echo \"read-missing $?\"\n"
                  "sh -c 'echo x > new.txt'; echo \"write-new $?\"\n"
                  // A read that happened unlocks the write of that file.
                  "sh -c 'wc -l < README.md'; echo \"read $?\"\n"
                  "sh -c 'echo x >> README.md'; echo \"write $?\"\n"
                  // A failed rm (status 1) is not counted; three that
                  // succeed are, so the fourth is refused.
                  "sh -c 'rm missing'; echo \"rm-missing $?\"\n"
                  "for i in 1 2 3 4; do sh -c \"rm -f gone$i\"; "
                  "echo \"rm $i $?\"; done\n",
                  &r);
    if (strstr(r.pr_out, "rm 3 0") == NULL)
        print_error("%s", r.pr_err);
    assert_string_equal(r.pr_out, "read-missing 1\nwrite-new 1\n1\nread 0\n"
                                  "write 0\nrm-missing 1\nrm 1 0\nrm 2 0\n"
                                  "rm 3 0\nrm 4 126\n");
    assert_non_null(strstr(r.pr_err, "[policy: write-needs-done-read]"));
    assert_non_null(strstr(r.pr_err, "policy denied this operation on 'rm' "
                                     "[policy: rm-done-cap]"));
    assert_null(strstr(r.pr_err, "outcome recording was not confirmed"));
    box_proc_result_free(&r);
}

/* Budgets under concurrency (issue 21 item 6): 16 calls race for a cap
 * of 5 rm responses; a permit is counted from the moment it is given, so
 * exactly 5 run rm and 11 are refused, however the calls interleave. */
static const char race_policy[] =
    "permit (principal, action == Box::Action::\"shell:exec\", resource);\n"
    "permit (principal, action in [Box::Action::\"fs:read\", "
    "Box::Action::\"fs:delete\"], resource)\n"
    "when { context.input.path like \"~/src/project/*\" };\n"
    "@id(\"rm-cap\")\n"
    "forbid (principal, action == Box::Action::\"shell:exec\", resource)\n"
    "when { context.input.program == \"rm\" }\n"
    "when temporal { (count for (t: Timepoint). where formerly within 1m "
    "(Box::Action::\"shell:exec\"::response{ input.program: \"rm\" } && "
    "tp(t))) >= 5 };\n";

static void
test_racing_calls_hold_a_cap(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, race_policy);
    box_proc_result r;
    box_world_run(w,
                  "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do\n"
                  "  (sh -c \"rm -f gone$i\" 2>/dev/null; echo \"status $?\") &\n"
                  "done; wait\n",
                  &r);
    unsigned ok = 0, refused = 0;
    for (const char *p = r.pr_out; (p = strstr(p, "status ")) != NULL; p++) {
        ok += strncmp(p, "status 0\n", 9) == 0;
        refused += strncmp(p, "status 126\n", 11) == 0;
    }
    if (ok + refused != 16)
        print_error("out: %s\n", r.pr_out);
    print_message("16 racing calls against a cap of 5: %u ran rm, %u "
                  "refused\n", ok, refused);
    assert_int_equal(ok, 5);
    assert_int_equal(refused, 11);
    box_proc_result_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_rules_hold_across_calls,
                                        box_world_setup, box_world_teardown),
        cmocka_unit_test_setup_teardown(test_cap_holds_across_runs,
                                        box_world_setup, box_world_teardown),
        cmocka_unit_test_setup_teardown(test_outcomes_count, box_world_setup,
                                        box_world_teardown),
        cmocka_unit_test_setup_teardown(test_racing_calls_hold_a_cap,
                                        box_world_setup, box_world_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
