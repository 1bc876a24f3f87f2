/* SPDX-License-Identifier: Apache-2.0 */
/*
 * `box policy diff` on what a real box wrote (issue 21 #9): the decision
 * log of box-pdp and its durable history, replayed against policy edits.
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

/* The project open to the agent; a write needs a read of the file first
 * (a temporal rule: box-pdp keeps the history of fs:read and fs:write). */
#define OLD_POLICY                                                             \
    "permit (principal, action == Box::Action::\"shell:exec\", resource);\n"   \
    "@id(\"project\")\n"                                                       \
    "permit (principal, action in [Box::Action::\"fs:read\", "                 \
    "Box::Action::\"fs:write\"], resource)\n"                                  \
    "when { context.input.path == \"~/src/project\" ||\n"                      \
    "       context.input.path like \"~/src/project/*\" };\n"                  \
    "@id(\"write-needs-read\")\n"                                              \
    "forbid (principal, action == Box::Action::\"fs:write\", resource)\n"      \
    "unless temporal { formerly within 10m "                                   \
    "Box::Action::\"fs:read\"::request{ input.path: context.input.path } "     \
    "};\n"

static const char *
file_in(const box_world *w, const char *name, const char *text)
{
    static char paths[4][PATH_MAX + 64];
    static int slot;
    char *p = paths[slot++ % 4];
    snprintf(p, PATH_MAX + 64, "%s/%s", w->bw_root, name);
    if (text != NULL)
        box_world_put(p, text);
    return p;
}

static void
diff(const box_world *w, const char *new_text, bool hist, box_proc_result *r)
{
    char log[PATH_MAX + 64], hpath[PATH_MAX + 64];
    snprintf(log, sizeof log, "%s/private/telemetry/records.jsonl",
             w->bw_state);
    snprintf(hpath, sizeof hpath, "%s/private/history/dogwood.history",
             w->bw_state);
    const char *old = file_in(w, "old.dw", OLD_POLICY);
    const char *new_ = file_in(w, "new.dw", new_text);
    char *args[] = {"policy",    "diff",  "--old",
                    (char *)old, "--new", (char *)new_,
                    "--log",     log,     hist ? "--history" : NULL,
                    hpath,       NULL};
    box_test_cli(args, 60000, r);
}

static void
test_diff_real_box(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, OLD_POLICY);
    box_proc_result r;
    box_world_run(w,
                  "sh -c 'wc -l < README.md'; echo \"read $?\"\n"
                  "sh -c 'echo x >> README.md'; echo \"write $?\"\n"
                  "sh -c 'echo y >> src/main.rs'; echo \"write $?\"\n"
                  "sh -c 'chmod 600 README.md'; echo \"chmod $?\"\n",
                  &r);
    assert_string_equal(r.pr_out, "1\nread 0\nwrite 0\nwrite 1\nchmod 0\n");
    box_proc_result_free(&r);

    // The same policy: every decision reproduced, nothing changes.
    diff(w, OLD_POLICY, true, &r);
    box_test_expect_status(&r, 0);
    assert_non_null(strstr(r.pr_out, "0 change, 0 cannot tell"));
    box_proc_result_free(&r);

    // A forbid on README.md: its read and write now denied.
    diff(w,
         OLD_POLICY "@id(\"no-readme\") forbid (principal, action, resource) "
                    "when { context.input has path && context.input.path like "
                    "\"*/README.md\" };\n",
         true, &r);
    box_test_expect_status(&r, 1);
    assert_true(box_test_has_line(r.pr_out, "permit → deny  (rule "
                                            "new:no-readme)  4 decisions"));
    box_proc_result_free(&r);

    // Writes only as write_content: the log does not say which operation
    // a write was; the history does.
    const char *content_only =
        "permit (principal, action == Box::Action::\"shell:exec\", "
        "resource);\n"
        "@id(\"project\")\n"
        "permit (principal, action in [Box::Action::\"fs:read\", "
        "Box::Action::\"fs:write\"], resource)\n"
        "when { context.input.path == \"~/src/project\" ||\n"
        "       context.input.path like \"~/src/project/*\" }\n"
        "unless { context.input has operation && context.input.operation == "
        "Box::FsWriteOperation::\"set_permissions\" };\n"
        "@id(\"write-needs-read\")\n"
        "forbid (principal, action == Box::Action::\"fs:write\", resource)\n"
        "unless temporal { formerly within 10m "
        "Box::Action::\"fs:read\"::request{ input.path: context.input.path } "
        "};\n";
    diff(w, content_only, false, &r);
    box_test_expect_status(&r, 1);
    assert_non_null(strstr(r.pr_out, "cannot tell: depends on the history "
                                     "(a temporal condition), and no "
                                     "history was given  3 decisions"));
    box_proc_result_free(&r);
    // With the history: the chmod (set_permissions) is the one change.
    diff(w, content_only, true, &r);
    box_test_expect_status(&r, 1);
    assert_true(box_test_has_line(r.pr_out, "permit → deny  (rule "
                                            "new:<default-deny>)  1 "
                                            "decision"));
    assert_true(box_test_count_lines(r.pr_out, "  fs:write  "
                                               "~/src/project/README.md") == 1);
    assert_non_null(strstr(r.pr_out, " 0 cannot tell"));
    box_proc_result_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_diff_real_box, box_world_setup,
                                        box_world_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
