/* SPDX-License-Identifier: Apache-2.0 */
/* `.`/source under policy, traps and exec around admission, $RANDOM per call.
 */
#include "sh_test_harness.h"

/* The file is read as fs:read read_content, as cat reads it. */
static void
test_source_reads_through_kernel(void **state)
{
    (void)state;
    th t = {0};
    int st = th_run(&t, "echo 'echo sourced $1' > /tmp/l.sh; . /tmp/l.sh a", 0);
    assert_int_equal(st, 0);
    assert_string_equal(th_s(&t.th_out), "sourced a\n");
    assert_non_null(
        strstr(th_s(&t.th_fslog), "fs:read read_content /tmp/l.sh\n"));
    th_reset(&t);
}

/* A file policy forbids reading is not run: the denial names it, and
 * the status is 1 (as a file that cannot be read). */
static void
test_source_denied_by_policy(void **state)
{
    (void)state;
    th t = {.th_deny_fs = "/tmp/l.sh"};
    int st = th_run(&t, "echo 'echo ran' > /tmp/l.sh; . /tmp/l.sh; echo $?", 0);
    assert_int_equal(st, 0);
    assert_string_equal(th_s(&t.th_out), "1\n");
    assert_non_null(strstr(th_s(&t.th_err), "policy denied this operation "
                                            "on '/tmp/l.sh'"));
    th_reset(&t);
}

/* A decision that cannot be made ends the call (125), nothing runs. */
static void
test_source_fault_ends_call(void **state)
{
    (void)state;
    th t = {.th_fault_fs = "/tmp/l.sh"};
    int st =
        th_run(&t, "echo 'echo ran' > /tmp/l.sh; . /tmp/l.sh; echo after", 0);
    assert_int_equal(st, 125);
    assert_string_equal(th_s(&t.th_out), "");
    assert_non_null(
        strstr(th_s(&t.th_err), "strands-shell: effect interception failed"));
    th_reset(&t);
}

/* Sourcing itself recurses until the depth limit, then stops cleanly. */
static void
test_source_recursion_bounded(void **state)
{
    (void)state;
    th t = {0};
    int st = th_run(&t, "echo '. /tmp/r.sh' > /tmp/r.sh; . /tmp/r.sh", 0);
    assert_int_equal(st, 1);
    assert_non_null(
        strstr(th_s(&t.th_err), "maximum recursion depth exceeded"));
    th_reset(&t);
}

/* An EXIT trap whose command is denied: the denial, and the call's own
 * status stays. */
static void
test_exit_trap_denied(void **state)
{
    (void)state;
    th t = {.th_deny = "rm"};
    int st = th_run(&t, "trap 'rm x' EXIT; (exit 3)", 0);
    assert_int_equal(st, 3);
    assert_non_null(strstr(th_s(&t.th_log), "rm|rm x|x|"));
    assert_non_null(strstr(th_s(&t.th_err), "effect denied"));
    th_reset(&t);
}

/* exec's redirections stay for the lines after it. */
static void
test_exec_redirections_persist(void **state)
{
    (void)state;
    th t = {0};
    int st = th_run(&t,
                    "exec 3> /tmp/o\necho one >&3\necho two >&3\nexec 3>&-\n"
                    "echo x >&3\ncat /tmp/o",
                    0);
    assert_int_equal(st, 0);
    assert_string_equal(th_s(&t.th_out), "one\ntwo\n");
    assert_non_null(strstr(th_s(&t.th_err), "3: Bad file descriptor"));
    th_reset(&t);
}

/* Redirections create files with 0666 less the umask: bash's 022 until
 * a script sets one, then that (a subshell's its own). */
static void
test_umask_applies(void **state)
{
    (void)state;
    th t = {0};
    int st = th_run(&t,
                    "echo > /tmp/a; umask 027; echo > /tmp/b; (umask 077; "
                    "echo > /tmp/c); echo > /tmp/d; ls -l /tmp",
                    0);
    assert_int_equal(st, 0);
    // one line per file: its mode, then its name last
    const char *want[] = {"-rw-r--r-- a", "-rw-r----- b", "-rw------- c",
                          "-rw-r----- d"};
    const char *line = strchr(th_s(&t.th_out), '\n');
    for (size_t i = 0; i < NELEM(want); i++) {
        assert_non_null(line);
        line++;
        const char *end = strchr(line, '\n');
        assert_non_null(end);
        char got[16];
        snprintf(got, sizeof got, "%.10s %c", line, end[-1]);
        assert_string_equal(got, want[i]);
        line = end;
    }
    th_reset(&t);
}

/* Each call draws its own $RANDOM sequence. */
static void
test_random_per_call(void **state)
{
    (void)state;
    th a = {0}, b = {0};
    const char *s = "echo $RANDOM $RANDOM $RANDOM $RANDOM";
    (void)th_run(&a, s, 0);
    usleep(1000);
    (void)th_run(&b, s, 0);
    assert_string_not_equal(th_s(&a.th_out), th_s(&b.th_out));
    th_reset(&a);
    th_reset(&b);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_source_reads_through_kernel),
        cmocka_unit_test(test_source_denied_by_policy),
        cmocka_unit_test(test_source_fault_ends_call),
        cmocka_unit_test(test_source_recursion_bounded),
        cmocka_unit_test(test_exit_trap_denied),
        cmocka_unit_test(test_exec_redirections_persist),
        cmocka_unit_test(test_umask_applies),
        cmocka_unit_test(test_random_per_call),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
