/* SPDX-License-Identifier: Apache-2.0 */
/* sh/bash as commands and #! scripts: policy on the script file, the
 * decisions a run makes, the recursion bound. */
#include "sh_test_harness.h"

/* Runs script in a session whose kernel holds /tmp/s.sh (mode, body):
 * no command here can make a file executable. */
static int
run_seeded(th *t, mode_t mode, const char *body, const char *script)
{
    box_buf_init(&t->th_out, 1u << 22);
    box_buf_init(&t->th_err, 1u << 22);
    box_buf_init(&t->th_log, 1u << 22);
    box_buf_init(&t->th_fslog, 1u << 22);
    sh_kernel_opts ko = {.ko_decide = th_decide, .ko_decide_arg = t};
    sh_kernel *k = NULL;
    assert_int_equal(sh_kernel_new(&ko, &k), BOX_OK);
    assert_int_equal(
        sh_kernel_seed_file(k, "/tmp/s.sh", mode, body, strlen(body)), 0);
    sh_session_opts o = {.so_decide = th_decide,
                         .so_decide_arg = t,
                         .so_out = th_out,
                         .so_err = th_err,
                         .so_io_arg = t,
                         .so_cwd = "/tmp",
                         .so_kernel = k};
    sh_session *ss = sh_session_new(&o);
    assert_non_null(ss);
    int st = sh_session_run(ss, script, strlen(script));
    sh_session_free(ss);
    sh_kernel_free(k);
    return st;
}

static size_t
count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

/* bash FILE reads FILE as fs:read read_content, as cat reads it. */
static void
test_file_read_through_kernel(void **state)
{
    (void)state;
    th t = {0};
    int st = th_run(&t, "echo 'echo ran $0 $1' > /tmp/s; bash /tmp/s a", 0);
    assert_int_equal(st, 0);
    assert_string_equal(th_s(&t.th_out), "ran /tmp/s a\n");
    assert_non_null(strstr(th_s(&t.th_fslog), "fs:read read_content /tmp/s\n"));
    th_reset(&t);
}

/* A script policy forbids reading is not run: spec §3.10, status 126
 * with the denial; a missing one is 127 as in bash. */
static void
test_file_denied_by_policy(void **state)
{
    (void)state;
    th t = {.th_deny_fs = "/tmp/s"};
    int st = th_run(&t,
                    "echo 'echo ran' > /tmp/s; sh /tmp/s; echo $?; "
                    "sh /tmp/nosuch; echo $?",
                    0);
    assert_int_equal(st, 0);
    assert_string_equal(th_s(&t.th_out), "126\n127\n");
    assert_non_null(strstr(th_s(&t.th_err), "strands-shell: /tmp/s: policy "
                                            "denied this operation on "
                                            "'/tmp/s'"));
    assert_non_null(strstr(th_s(&t.th_err), "strands-shell: /tmp/nosuch: No "
                                            "such file or directory\n"));
    th_reset(&t);
}

/* A decision that cannot be made ends the call (125); nothing runs. */
static void
test_file_fault_ends_call(void **state)
{
    (void)state;
    th t = {.th_fault_fs = "/tmp/s"};
    int st = th_run(&t, "echo 'echo ran' > /tmp/s; sh /tmp/s; echo after", 0);
    assert_int_equal(st, 125);
    assert_string_equal(th_s(&t.th_out), "");
    assert_non_null(
        strstr(th_s(&t.th_err), "strands-shell: effect interception failed"));
    th_reset(&t);
}

/* A #! script: one exec probe, one 256-byte read, then the stage is the
 * shell; its own commands are decided one by one. */
static void
test_shebang_decisions(void **state)
{
    (void)state;
    th t = {0};
    int st = run_seeded(&t, 0755, "#!/bin/bash\necho in $0 $1\n",
                        "./s.sh x; echo $?");
    assert_int_equal(st, 0);
    assert_string_equal(th_s(&t.th_out), "in ./s.sh x\n0\n");
    assert_int_equal(count(th_s(&t.th_fslog), "fs:read exec /tmp/s.sh\n"), 1);
    assert_int_equal(
        count(th_s(&t.th_fslog), "fs:read read_content /tmp/s.sh\n"), 2);
    assert_non_null(strstr(th_s(&t.th_log), "bash|bash ./s.sh x|./s.sh|x|2\n"
                                            "echo|echo in ./s.sh x|in|"));
    th_reset(&t);
}

/* Without the x bit a script is not run (bash: Permission denied, 126);
 * a #! naming another interpreter is not rewritten. */
static void
test_shebang_not_run(void **state)
{
    (void)state;
    th t = {0};
    int st = run_seeded(&t, 0644, "#!/bin/sh\necho ran\n", "./s.sh; echo $?");
    assert_int_equal(st, 0);
    assert_string_equal(th_s(&t.th_out), "126\n");
    assert_string_equal(th_s(&t.th_err),
                        "strands-shell: ./s.sh: Permission denied\n");
    th_reset(&t);
    // No host programs in this session: nothing can run it.
    st = run_seeded(&t, 0755, "#!/usr/bin/python3\nprint(1)\n", "./s.sh");
    assert_int_equal(st, 127);
    assert_string_equal(th_s(&t.th_err),
                        "strands-shell: ./s.sh: command not found\n");
    assert_null(strstr(th_s(&t.th_log), "python"));
    assert_non_null(strstr(th_s(&t.th_log), "./s.sh|./s.sh|^|^|0\n"));
    th_reset(&t);
}

/* The child sees exported variables only and changes nothing outside. */
static void
test_child_isolated(void **state)
{
    (void)state;
    th t = {0};
    int st = th_run(&t,
                    "export E=e; L=l; f() { echo f; }; cd /tmp; "
                    "bash -c 'echo \"[$E][$L]\"; f; E=x; cd /; g() { :; }; "
                    "set -e; exit 4'; "
                    "echo $? $E $PWD; type g >/dev/null 2>&1 || echo no g",
                    0);
    assert_int_equal(st, 0);
    assert_string_equal(th_s(&t.th_out), "[e][]\n4 e /tmp\nno g\n");
    assert_string_equal(th_s(&t.th_err),
                        "strands-shell: f: command not found\n");
    th_reset(&t);
}

/* Shells nesting without end stop at the call's recursion depth: one
 * message, status 1, nothing after runs, no crash. */
static void
test_recursion_bounded(void **state)
{
    (void)state;
    static const char *const scripts[] = {
        "echo 'sh /tmp/r' > /tmp/r; sh /tmp/r; echo never",
        "export C='bash -c \"$C\"'; bash -c \"$C\"; echo never",
        "t='sh -c \"$0\" \"$0\"'; sh -c \"$t\" \"$t\"; echo never",
        "echo 'cat /tmp/r | sh' > /tmp/r; sh /tmp/r; echo never",
    };
    for (size_t i = 0; i < NELEM(scripts); i++) {
        th t = {0};
        int st = th_run(&t, scripts[i], 0);
        assert_int_equal(st, 1);
        assert_string_equal(th_s(&t.th_out), "");
        assert_int_equal(count(th_s(&t.th_err), "maximum recursion depth "
                                                "exceeded"),
                         1);
        th_reset(&t);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_file_read_through_kernel),
        cmocka_unit_test(test_file_denied_by_policy),
        cmocka_unit_test(test_file_fault_ends_call),
        cmocka_unit_test(test_shebang_decisions),
        cmocka_unit_test(test_shebang_not_run),
        cmocka_unit_test(test_child_isolated),
        cmocka_unit_test(test_recursion_bounded),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
