/* SPDX-License-Identifier: Apache-2.0 */
/* sh_admit: the request it builds, §7 redaction, verdict mapping. */
#include "sh_test_harness.h"

static void
test_redact(void **state)
{
    char *argv[] = {"grep",      "-n",     "--color=auto",
                    "--Include", "secret", "--long-flag",
                    "plain",     "-x1",    "--"};
    bool exp[] = {true, true, true, true, true, true, false, true, true};
    const char *want[] = {"grep",       "-n",         "--color=<redacted>",
                          "<redacted>", "<redacted>", "--long-flag",
                          "plain",      "-x1",        "<redacted>"};
    sh_cmd_value cv = {.cv_argc = 9, .cv_argv = argv, .cv_expanded = exp};
    char *out[64];
    size_t n = sh_admit_redact(&cv, out, 64);
    assert_int_equal(n, 9);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(out[i], want[i]);
        box_free(out[i]);
    }
}

static void
test_redact_caps(void **state)
{
    char *argv[70];
    char big[5000];
    memset(big, 'a', sizeof big - 1);
    big[sizeof big - 1] = '\0';
    argv[0] = big;
    for (int i = 1; i < 70; i++)
        argv[i] = "x";
    sh_cmd_value cv = {.cv_argc = 70, .cv_argv = argv};
    char *out[80];
    size_t n = sh_admit_redact(&cv, out, 80);
    assert_int_equal(n, 64);
    assert_true(strlen(out[0]) <= 4096);
    const char *tail = "\xe2\x80\xa6 (truncated)";
    assert_string_equal(out[0] + strlen(out[0]) - strlen(tail), tail);
    for (size_t i = 0; i < n; i++)
        box_free(out[i]);
}

typedef struct seen {
    int calls;
    box_verdict answer;
    bool with_message;
} seen;

static box_verdict
check_decide(void *arg, const Box__DecisionRequest *rq, char **msg)
{
    seen *s = arg;
    s->calls++;
    assert_string_equal(rq->action, "shell:exec");
    assert_string_equal(rq->resource, "grep");
    assert_non_null(rq->subject);
    assert_string_equal(rq->subject->process_command, "grep");
    assert_string_equal(rq->subject->working_directory, "/w");
    assert_int_equal(rq->subject->n_command_args, 4);
    assert_string_equal(rq->subject->command_args[3], "<redacted>");
    const Box__Value *v = th_field(rq, "command");
    assert_string_equal(v->str, "grep -n TODO src/main.rs");
    assert_string_equal(th_field(rq, "arg1")->str, "-n");
    assert_string_equal(th_field(rq, "arg2")->str, "TODO");
    assert_int_equal(th_field(rq, "arg_count")->long_, 3);
    assert_string_equal(th_field(rq, "cwd")->str, "/w");
    assert_int_equal(rq->input->record->n_fields, 6);
    if (s->with_message)
        *msg = box_strdup("why");
    return s->answer;
}

static int
sink(void *arg, const char *p, size_t n)
{
    return 0;
}

static void
test_request_and_verdicts(void **state)
{
    seen s = {0};
    sh_session_opts o = {.so_decide = check_decide,
                         .so_decide_arg = &s,
                         .so_out = sink,
                         .so_err = sink};
    sh_session *ss = sh_session_new(&o);
    assert_non_null(ss);
    char *argv[] = {"grep", "-n", "TODO", "src/main.rs"};
    bool exp[] = {false, false, false, true};
    sh_cmd_value cv = {
        .cv_argc = 4, .cv_argv = argv, .cv_expanded = exp, .cv_cwd = "/w"};
    // The executor turns the verdict into the status (sh_exec_test: 126
    // for a deny, 125 for a fault); a value outside the enum is a fault.
    static const struct {
        box_verdict v;
        bool msg;
        box_verdict want;
    } rows[] = {
        {BOX_VERDICT_PERMIT, true, BOX_VERDICT_PERMIT},
        {BOX_VERDICT_DENY, true, BOX_VERDICT_DENY},
        {BOX_VERDICT_DENY, false, BOX_VERDICT_DENY},
        {BOX_VERDICT_FAULT, true, BOX_VERDICT_FAULT},
        {(box_verdict)42, false, BOX_VERDICT_FAULT},
    };
    for (size_t i = 0; i < NELEM(rows); i++) {
        s.answer = rows[i].v;
        s.with_message = rows[i].msg;
        sh_admission ad;
        assert_int_equal(sh_admit(ss, &cv, &ad), BOX_OK);
        assert_int_equal(ad.ad_verdict, rows[i].want);
        if (rows[i].want == BOX_VERDICT_PERMIT || !rows[i].msg)
            assert_null(ad.ad_message);
        else
            assert_string_equal(ad.ad_message, "why");
        box_free(ad.ad_message);
    }
    assert_int_equal(s.calls, (int)NELEM(rows));
    sh_session_free(ss);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_redact),
        cmocka_unit_test(test_redact_caps),
        cmocka_unit_test(test_request_and_verdicts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
