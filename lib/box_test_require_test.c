/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for box_test_require.h: when a missing feature skips and when it
 * fails, and that either way it is named. */
#include "box_test_require.h"

#include <sys/wait.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"

static void
set(const char *name, const char *v)
{
    if (v == NULL)
        assert_int_equal(unsetenv(name), 0);
    else
        assert_int_equal(setenv(name, v, 1), 0);
}

static void
test_strict_from_env(void **state)
{
    (void)state;
    char *had_require = getenv(BOX_TEST_REQUIRE_ENV), *had_ci = getenv("CI");
    had_require = had_require ? box_strdup(had_require) : NULL;
    had_ci = had_ci ? box_strdup(had_ci) : NULL;
    static const struct {
        const char *require, *ci;
        bool strict;
    } cases[] = {
        {NULL, NULL, false},    {NULL, "", false},    {NULL, "0", false},
        {NULL, "false", false}, {NULL, "true", true}, {NULL, "1", true},
        {"1", NULL, true},      {"yes", NULL, true},  {"", NULL, false},
        {"0", NULL, false},     {"0", "true", false}, {"1", "false", true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        set(BOX_TEST_REQUIRE_ENV, cases[i].require);
        set("CI", cases[i].ci);
        if (box_test_strict() != cases[i].strict)
            fail_msg("%s=%s CI=%s: strict %d", BOX_TEST_REQUIRE_ENV,
                     cases[i].require ? cases[i].require : "(unset)",
                     cases[i].ci ? cases[i].ci : "(unset)", !cases[i].strict);
    }
    set(BOX_TEST_REQUIRE_ENV, had_require);
    set("CI", had_ci);
    box_free(had_require);
    box_free(had_ci);
}

/* The child's one test: the machine lacks a feature. */
static void
lacks_feature(void **state)
{
    (void)state;
    box_test_missing("the %s feature", "frobnicate");
}

/* Runs lacks_feature in a child with BOX_REQUIRE_SANDBOX=require; its
 * exit status and everything it printed. */
static int
run_child(const char *require, char **out)
{
    int p[2];
    assert_int_equal(pipe(p), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        dup2(p[1], 1);
        dup2(p[1], 2);
        close(p[0]);
        close(p[1]);
        setenv(BOX_TEST_REQUIRE_ENV, require, 1);
        const struct CMUnitTest t[] = {cmocka_unit_test(lacks_feature)};
        int failed = cmocka_run_group_tests_name("child", t, NULL, NULL);
        fflush(stdout);
        _exit(failed);
    }
    close(p[1]);
    box_buf b;
    box_buf_init(&b, 1u << 20);
    char buf[4096];
    ssize_t n;
    while ((n = read(p[0], buf, sizeof buf)) > 0)
        assert_int_equal(box_buf_append(&b, buf, (size_t)n), BOX_OK);
    close(p[0]);
    int ws;
    assert_int_equal(waitpid(pid, &ws, 0), pid);
    assert_true(WIFEXITED(ws));
    *out = box_buf_take(&b);
    return WEXITSTATUS(ws);
}

static void
test_fails_in_ci_skips_elsewhere(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(run_child("1", &out), 1); // one test failed
    if (strstr(out, "missing: the frobnicate feature") == NULL ||
        strstr(out, "required here") == NULL ||
        strstr(out, "[  FAILED  ] 1 test") == NULL)
        fail_msg("strict child said:\n%s", out);
    box_free(out);

    assert_int_equal(run_child("0", &out), 0);
    if (strstr(out, "missing: the frobnicate feature") == NULL ||
        strstr(out, "[  SKIPPED ] 1 test") == NULL)
        fail_msg("lenient child said:\n%s", out);
    box_free(out);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_strict_from_env),
        cmocka_unit_test(test_fails_in_ci_skips_elsewhere),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
