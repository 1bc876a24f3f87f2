/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_hostexec: which permits the check warns about, its text,
 * and the table against the README. */
#include "pdp_test_util.h"

#include "pdp_hostexec.h"
#include "pdp_policy_file.h"

#define FS_WRITE "Box::Action::\"fs:write\""
#define FS_MOVE "Box::Action::\"fs:move\""
#define FS_DELETE "Box::Action::\"fs:delete\""

/* The forbid the shipped quickstart carries, in a home-relative project. */
static const char forbids[] =
    "@id(\"host_exec_files\")\n"
    "forbid (principal, action in [" FS_WRITE ", " FS_DELETE ", " FS_MOVE
    "], resource)\n"
    "when {\n"
    "    context.input.path like \"*/.git\" ||\n"
    "    context.input.path like \"*/.git/config\" ||\n"
    "    context.input.path like \"*/.git/hooks\" ||\n"
    "    context.input.path like \"*/.git/hooks/*\" ||\n"
    "    context.input.path like \"*/.gitmodules\" ||\n"
    "    context.input.path like \"*/.gitconfig\" ||\n"
    "    context.input.path like \"*/.config\" ||\n"
    "    context.input.path like \"*/.config/git\" ||\n"
    "    context.input.path like \"*/.config/git/config\" ||\n"
    "    context.input.path like \"*/.bashrc\" ||\n"
    "    context.input.path like \"*/.bash_profile\" ||\n"
    "    context.input.path like \"*/.bash_login\" ||\n"
    "    context.input.path like \"*/.bash_logout\" ||\n"
    "    context.input.path like \"*/.profile\" ||\n"
    "    context.input.path like \"*/.zshrc\" ||\n"
    "    context.input.path like \"*/.zshenv\" ||\n"
    "    context.input.path like \"*/.zprofile\" ||\n"
    "    context.input.path like \"*/.zlogin\" ||\n"
    "    context.input.path like \"*/.zlogout\" ||\n"
    "    context.input.path like \"*/.envrc\" ||\n"
    "    context.input.path like \"*/.vscode\" ||\n"
    "    context.input.path like \"*/.vscode/*\" ||\n"
    "    context.input.path like \"*/.devcontainer\" ||\n"
    "    context.input.path like \"*/.devcontainer/*\"\n"
    "};\n";

static const char project_write[] =
    "@id(\"project_write\")\n"
    "permit (principal, action in [" FS_WRITE ", " FS_DELETE "], resource)\n"
    "when { context.input.path like \"~/src/project/*\" };\n";

static const char broad_warning[] =
    "rule @id(\"project_write\") lets the agent write or rename 26 files a "
    "host runs code from later: ~/src/project/.git, "
    "~/src/project/.git/config, ~/src/project/.git/hooks, "
    "~/src/project/.git/hooks/pre-commit and 22 more; add a forbid on "
    "fs:write, fs:delete and fs:move for them (see README, \"Files that run "
    "code later\")";

/* The check's warnings for text (which must load), joined with "\n". */
static char *
check(const char *text, const char *const *extra, size_t nextra)
{
    pdp_policy_set *set = NULL;
    pdp_validate_warnings lw = {0}, w = {0};
    char *err = NULL;
    if (pdp_policy_load_checked(text, strlen(text), "policy.dw", NULL,
                                "/home/op", &set, &lw, &err) != BOX_OK)
        fail_msg("%s\n  -> %s", text, err);
    pdp_validate_warnings_free(&lw);
    assert_int_equal(pdp_hostexec_check(set, extra, nextra, &w), BOX_OK);
    box_buf b;
    box_buf_init(&b, 1u << 20);
    assert_int_equal(box_buf_puts(&b, ""), BOX_OK);
    for (size_t i = 0; i < w.vw_n; i++)
        assert_int_equal(
            box_buf_printf(&b, "%s%s", i ? "\n" : "", w.vw_items[i]), BOX_OK);
    pdp_validate_warnings_free(&w);
    pdp_policy_free(set);
    return box_buf_take(&b);
}

static void
expect(const char *text, const char *const *extra, size_t nextra,
       const char *want)
{
    char *got = check(text, extra, nextra);
    if (strcmp(got, want) != 0)
        fail_msg("%s\n  got:  %s\n  want: %s", text, got, want);
    box_free(got);
}

static char *
cat2(const char *a, const char *b)
{
    char *s = box_asprintf("%s\n%s", a, b);
    assert_non_null(s);
    return s;
}

/* A write permit over the whole project warns, naming the rule and the
 * files; the same with the quickstart's forbid does not. */
static void
test_broad_permit(void **state)
{
    (void)state;
    expect(project_write, NULL, 0, broad_warning);
    char *both = cat2(project_write, forbids);
    expect(both, NULL, 0, "");
    box_free(both);
}

/* A permit over the sources only reaches none of the files; a permit
 * over everything below src/ does: src/.git/config makes src/ a
 * repository of its own, whose config git obeys when run there (and
 * editors look for repositories one level down). */
static void
test_narrow_permit(void **state)
{
    (void)state;
    expect("@id(\"src\") permit (principal, action == " FS_WRITE
           ", resource) when { context.input.path like "
           "\"~/src/project/src/*.rs\" };\n",
           NULL, 0, "");
    char *got = check("@id(\"src\") permit (principal, action == " FS_WRITE
                      ", resource) when { context.input.path like "
                      "\"~/src/project/src/*\" };\n",
                      NULL, 0);
    assert_string_equal(
        got, "rule @id(\"src\") lets the agent write or rename 26 files a "
             "host runs code from later: ~/src/project/src/.git, "
             "~/src/project/src/.git/config, ~/src/project/src/.git/hooks, "
             "~/src/project/src/.git/hooks/pre-commit and 22 more; add a "
             "forbid on fs:write, fs:delete and fs:move for them (see README, "
             "\"Files that run code later\")");
    box_free(got);
    /* Reads are not writes. */
    expect("permit (principal, action == Box::Action::\"fs:read\", "
           "resource);\n",
           NULL, 0, "");
}

/* A permit with no path condition covers the operator home, which every
 * box reaches; rename alone is enough; a rule with no @id is numbered. */
static void
test_roots_and_actions(void **state)
{
    (void)state;
    char *got = check("permit (principal, action, resource);\n", NULL, 0);
    assert_non_null(strstr(got, "the permit rule with no @id (rule 1) lets "
                                "the agent write or rename 26 files a host "
                                "runs code from later: ~/.git, ~/.git/config,"
                                " ~/.git/hooks, ~/.git/hooks/pre-commit and "
                                "22 more;"));
    box_free(got);
    expect("@id(\"mv\") permit (principal, action == " FS_MOVE
           ", resource) when { context.input.path like \"/srv/app/*\" && "
           "context.input.operation == Box::FsMoveOperation::\"rename\" };\n",
           NULL, 0,
           "rule @id(\"mv\") lets the agent write or rename 26 files a host "
           "runs code from later: /srv/app/.git, /srv/app/.git/config, "
           "/srv/app/.git/hooks, /srv/app/.git/hooks/pre-commit and 22 more; "
           "add a forbid on fs:write, fs:delete and fs:move for them (see "
           "README, \"Files that run code later\")");
    /* Exact paths: a permit of one file is asked about that file. */
    expect("@id(\"rc\") permit (principal, action == " FS_WRITE
           ", resource) when { context.input.path == \"/srv/app/.envrc\" || "
           "[\"/srv/b/x\", \"/srv/c/.git/hooks\"].contains("
           "context.input.path) };\n",
           NULL, 0,
           "rule @id(\"rc\") lets the agent write or rename 2 files a host "
           "runs code from later: /srv/app/.envrc, /srv/c/.git/hooks; add a "
           "forbid on fs:write, fs:delete and fs:move for them (see README, "
           "\"Files that run code later\")");
    /* Content writes alone, on the files a pattern reaches. */
    expect("@id(\"w\") permit (principal, action == " FS_WRITE
           ", resource) when { context.input.operation == "
           "Box::FsWriteOperation::\"write_content\" && context.input.path "
           "like \"/srv/app/*rc\" };\n",
           NULL, 0,
           "rule @id(\"w\") lets the agent write or rename 3 files a host "
           "runs code from later: /srv/app/.bashrc, /srv/app/.zshrc, "
           "/srv/app/.envrc; add a forbid on fs:write, fs:delete and fs:move "
           "for them (see README, \"Files that run code later\")");
    /* A prefix that is not a directory names its directory too. */
    char *z = check("@id(\"z\") permit (principal, action == " FS_WRITE
                    ", resource) when { context.input.path like "
                    "\"/srv/app/.z*\" };\n",
                    NULL, 0);
    assert_non_null(strstr(z, "rule @id(\"z\") lets the agent write or "
                              "rename 31 files a host runs code from later: "
                              "/srv/app/.z/.git,"));
    box_free(z);
}

/* A config's workspace is a root even when no literal names it; two
 * permits get a warning each, in rule order. */
static void
test_extra_roots(void **state)
{
    (void)state;
    static const char text[] =
        "@id(\"a\") permit (principal, action == " FS_WRITE ", resource) "
        "when { context.input.path like \"/w*\" };\n"
        "@id(\"b\") permit (principal, action == " FS_MOVE ", resource) "
        "when { context.input.path like \"/work/*\" };\n";
    const char *ws[] = {"/work/"};
    char *got = check(text, ws, 1);
    char *b = strstr(got, "\nrule @id(\"b\") lets the agent write or rename "
                          "26 files a host runs code from later: /work/.git,");
    assert_non_null(b);
    const char *a = "rule @id(\"a\") lets the agent write or rename 52 "
                    "files a host runs code from later: /work/.git, "
                    "/work/.git/config,";
    assert_int_equal(strncmp(got, a, strlen(a)), 0);
    box_free(got);
}

/* The shipped quickstart policy draws no warning. */
static void
test_quickstart(void **state)
{
    (void)state;
    char *path = source_path("deploy/quickstart/policy.dw");
    pdp_policy_set *set = NULL;
    pdp_validate_warnings w = {0};
    char *err = NULL;
    if (pdp_policy_load_file(path, "/home/op", &set, &w, &err) != BOX_OK)
        fail_msg("%s: %s", path, err);
    const char *ws[] = {"/tmp/box-quickstart/project", "/home/op"};
    assert_int_equal(pdp_hostexec_check(set, ws, 2, &w), BOX_OK);
    for (size_t i = 0; i < w.vw_n; i++)
        print_error("warning: %s\n", w.vw_items[i]);
    assert_int_equal(w.vw_n, 0);
    pdp_validate_warnings_free(&w);
    pdp_policy_free(set);
    box_free(path);
}

/* Every row of the table is in the README's list, and nothing else is. */
static void
test_readme_lists_the_table(void **state)
{
    (void)state;
    char *path = source_path("README.md");
    size_t n;
    char *readme = read_file_at(path, &n);
    assert_non_null(readme);
    const char *sec = strstr(readme, "## Files that run code later");
    assert_non_null(sec);
    const char *end = strstr(sec + 1, "\n## ");
    size_t rows = 0;
    for (const char *p = sec;
         (p = strstr(p, "\n| `")) != NULL && (end == NULL || p < end); p++)
        rows++;
    assert_int_equal(rows, pdp_hostexec_nfiles);
    for (size_t i = 0; i < pdp_hostexec_nfiles; i++) {
        char *row = box_asprintf("\n| `%s` |", pdp_hostexec_files[i].hf_name);
        const char *at = strstr(sec, row);
        if (at == NULL || (end != NULL && at > end))
            fail_msg("README lacks the row %s", row + 1);
        box_free(row);
    }
    box_free(readme);
    box_free(path);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_broad_permit),
        cmocka_unit_test(test_narrow_permit),
        cmocka_unit_test(test_roots_and_actions),
        cmocka_unit_test(test_extra_roots),
        cmocka_unit_test(test_quickstart),
        cmocka_unit_test(test_readme_lists_the_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
