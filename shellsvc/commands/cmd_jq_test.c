/* SPDX-License-Identifier: Apache-2.0 */
/* Table tests of jq where the differential cannot look: policy denials
 * and faults on every file jq reads, the environment it shows, the
 * modules it refuses, and a runaway program at the call's deadline. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_test_table.h"

// Table rows leave trailing fields out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define F_A "printf '{\"a\":1}' > a; printf '[2]' > b; "
#define SECRET "/home/lash/secret"
#define IMPORT_REFUSED                                                         \
    "strands-shell: jq: error: import and include are not available in the "   \
    "box (libjq would read module files outside the shell's kernel)\n"         \
    "strands-shell: jq: 1 compile error\n"

static const tcase cases[] = {
    // A denied operand: jq's message for it, the operand after it is
    // still read (jq 1.6 then stops), status 2.
    {F_A "jq -c . secret a; echo $?", "{\"a\":1}\n2\n", DENIED_FS("jq", SECRET),
     0, SECRET},
    {F_A "jq -c . a secret b; echo $?", "{\"a\":1}\n[2]\n2\n",
     DENIED_FS("jq", SECRET), 0, SECRET},
    // Each file jq reads is one fs:read decision, in order.
    {F_A "jq -c . a b", "{\"a\":1}\n[2]\n", "", 0, NULL, NULL,
     "fs:write /home/lash/a\nfs:write /home/lash/b\nfs:read "
     "/home/lash/a\nfs:read /home/lash/b\n"},
    // --slurpfile, --rawfile, --argfile and -f through the kernel too.
    {F_A "jq -n --slurpfile x secret '$x'", "", DENIED_FS("jq", SECRET), 2,
     SECRET},
    {F_A "jq -n --rawfile x secret '$x'", "", DENIED_FS("jq", SECRET), 2,
     SECRET},
    {F_A "jq -n --argfile x secret '$x'", "", DENIED_FS("jq", SECRET), 2,
     SECRET},
    {F_A "jq -f secret a", "", DENIED_FS("jq", SECRET), 2, SECRET},
    {F_A "jq -n -c --slurpfile x b --rawfile y a '[$x, $y]'",
     "[[[2]],\"{\\\"a\\\":1}\"]\n", "", 0},
    // A decision that cannot be made stops the call.
    {F_A "jq . secret a; echo after", "", FAULT, 125, NULL, SECRET},
    {F_A "jq -n --rawfile x secret 1; echo after", "", FAULT, 125, NULL,
     SECRET},
    // $ENV and env: the shell's exported variables, never the service's
    // own environment (the test sets JQ_BOX_TEST_LEAK in its own).
    {"jq -n '$ENV.JQ_BOX_TEST_LEAK, env.JQ_BOX_TEST_LEAK'", "null\nnull\n", "",
     0},
    {"export JQ_BOX_TEST_X=shell; jq -n -r '$ENV.JQ_BOX_TEST_X, "
     "env.JQ_BOX_TEST_X'",
     "shell\nshell\n", "", 0},
    {"JQ_BOX_TEST_Y=1 jq -n -c '[env.JQ_BOX_TEST_Y, $ENV.HOME]'",
     "[\"1\",\"/home/lash\"]\n", "", 0},
    // Modules are files libjq would open itself: refused.
    {"jq -n 'import \"a\" as a; 1'", "", IMPORT_REFUSED, 3},
    {"jq -n 'include \"a\"; 1'", "", IMPORT_REFUSED, 3},
    {"jq -n 'import \"a\" as $d; $d'", "", IMPORT_REFUSED, 3},
    {"jq -n '# c\n  import \"a\" as a; 1'", "", IMPORT_REFUSED, 3},
    {"printf 'import \"x\" as x; .' > p.jq; jq -n -f p.jq", "", IMPORT_REFUSED,
     3},
    {"jq -n -c '{import: 1, include: \"import x\"} | [.import, .include]'",
     "[1,\"import x\"]\n", "", 0},
    {"jq -n '\"m\" | modulemeta'", "",
     "strands-shell: jq: error (at <unknown>): module not found: m\n", 5},
    // stderr and debug reach the shell's fd 2.
    {"jq -n -c '{a:1} | stderr | debug | empty' 2>&1",
     "{\"a\":1}strands-shell: [\"DEBUG:\",{\"a\":1}]\n", "", 0},
    // Options libjq would print on the service's own stdout.
    {"jq --debug-dump-disasm -n 1", "",
     "strands-shell: jq: --debug-dump-disasm is not available in the box\n", 2},
    // A runaway program ends with the call's budget.
    {"jq -n 'def f: f; f'; echo after", "", TIMEOUT, 1, NULL, NULL, NULL, 300},
    {"jq -n 'last(range(1e15))'; echo after", "", TIMEOUT, 1, NULL, NULL, NULL,
     300},
    {"jq -n -c 'range(1e15)' | head -n 2", "0\n1\n", "", 0},
    {"jq -n 'range(1e15)' > /dev/null; echo after", "", TIMEOUT, 1, NULL, NULL,
     NULL, 300},
};

static void
test_cases(void **state)
{
    (void)state;
    assert_int_equal(setenv("JQ_BOX_TEST_LEAK", "service", 1), 0);
    tcase_run_all(cases, NELEM(cases));
}

/* One script with HOME pointing at home: status, stdout, stderr. */
static void
run_home(const char *home, const char *script, int status, const char *out,
         const char *err)
{
    const char *saved = getenv("HOME");
    char *keep = saved != NULL ? box_strdup(saved) : NULL;
    assert_int_equal(setenv("HOME", home, 1), 0);
    th t = {0};
    int st = th_run(&t, script, 0);
    if (keep != NULL)
        assert_int_equal(setenv("HOME", keep, 1), 0);
    else
        assert_int_equal(unsetenv("HOME"), 0);
    box_free(keep);
    assert_int_equal(st, status);
    assert_string_equal(th_s(&t.th_out), out);
    assert_string_equal(th_s(&t.th_err), err);
    th_reset(&t);
}

/* libjq imports ~/.jq of the process's own home on every compile: a file
 * there makes jq refuse (its text never reaches a program); a directory
 * is harmless (libjq cannot read it as a module). */
static void
test_service_home_jq(void **state)
{
    (void)state;
    char dir[] = "/tmp/cmd_jq_test.XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *f = box_asprintf("%s/.jq", dir);
    assert_non_null(f);
    FILE *fp = fopen(f, "w"); // the test's own fixture, not a shell effect
    assert_non_null(fp);
    fputs("def leaked: \"service secret\";\n", fp);
    assert_int_equal(fclose(fp), 0);
    char *want = box_asprintf(
        "strands-shell: jq: error: refused: libjq would load %s/.jq of the "
        "box service's own home outside the shell's kernel\n",
        dir);
    assert_non_null(want);
    run_home(dir, "jq -n leaked", 2, "", want);
    assert_int_equal(unlink(f), 0);
    assert_int_equal(mkdir(f, 0700), 0);
    run_home(dir, "jq -n 1", 0, "1\n", "");
    assert_int_equal(rmdir(f), 0);
    assert_int_equal(rmdir(dir), 0);
    box_free(want);
    box_free(f);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_service_home_jq),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
