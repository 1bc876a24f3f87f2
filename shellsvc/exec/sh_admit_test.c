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
    const char *out[64];
    char *owned[64];
    size_t n = sh_admit_redact(&cv, out, owned, 64);
    assert_int_equal(n, 9);
    for (size_t i = 0; i < n; i++) {
        assert_string_equal(out[i], want[i]);
        // Only the rewritten --name=value is a copy; the rest borrow.
        assert_true((owned[i] != NULL) == (i == 2));
        box_free(owned[i]);
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
    const char *out[80];
    char *owned[80];
    size_t n = sh_admit_redact(&cv, out, owned, 80);
    assert_int_equal(n, 64);
    assert_true(strlen(out[0]) <= 4096);
    const char *tail = "\xe2\x80\xa6 (truncated)";
    assert_string_equal(out[0] + strlen(out[0]) - strlen(tail), tail);
    assert_ptr_equal(out[0], owned[0]);
    assert_ptr_equal(out[1], argv[1]);
    for (size_t i = 0; i < n; i++)
        box_free(owned[i]);
}

typedef struct seen {
    int calls;
    box_verdict answer;
    bool with_message;
} seen;

static box_verdict
check_decide(void *arg, const Box__DecisionRequest *rq, char **msg,
             box_ticket *ticket)
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

/* A decider that serves permits with again tokens (as the worker's memo
 * does), and its again function. */
typedef struct ag {
    int ag_decides, ag_agains;
    uint64_t ag_next;      // the next token given
    uint64_t ag_last;      // the token the last again was asked with
    box_verdict ag_answer; // what decide answers
    bool ag_wanted;        // permits come with a wanted ticket
    box_err ag_again_rv;   // what again answers
} ag;

static box_verdict
ag_decide(void *arg, const Box__DecisionRequest *rq, char **msg,
          box_ticket *ticket)
{
    (void)rq;
    (void)msg;
    ag *a = arg;
    a->ag_decides++;
    if (a->ag_answer == BOX_VERDICT_PERMIT)
        *ticket = (box_ticket){
            .bt_id = 9, .bt_wanted = a->ag_wanted, .bt_again = ++a->ag_next};
    return a->ag_answer;
}

static box_err
ag_again(void *arg, uint64_t again)
{
    ag *a = arg;
    a->ag_agains++;
    a->ag_last = again;
    return a->ag_again_rv;
}

/* Admits cv and checks the verdict; the ticket never shows its token. */
static void
ag_admit(sh_session *ss, const sh_cmd_value *cv, box_verdict want)
{
    sh_admission ad;
    assert_int_equal(sh_admit(ss, cv, &ad), BOX_OK);
    assert_int_equal(ad.ad_verdict, want);
    assert_int_equal(ad.ad_ticket.bt_again, 0);
    if (want == BOX_VERDICT_FAULT)
        assert_string_equal(ad.ad_message, "the box could not report a "
                                           "permit served again");
    else
        assert_null(ad.ad_message);
    box_free(ad.ad_message);
}

/* A command served before is served again through so_again while it is
 * the same word for word (with its cwd and program path, no word from an
 * expansion); anything else, a token the decider no longer takes, a deny
 * or a permit that wants its outcome asks in full. */
static void
test_served_again(void **state)
{
    (void)state;
    ag a = {.ag_answer = BOX_VERDICT_PERMIT};
    sh_session_opts o = {.so_decide = ag_decide,
                         .so_decide_arg = &a,
                         .so_again = ag_again,
                         .so_out = sink,
                         .so_err = sink};
    sh_session *ss = sh_session_new(&o);
    assert_non_null(ss);
    char *argv[] = {"read", "-r", "a", "b"};
    bool exp[] = {false, false, false, false};
    sh_cmd_value cv = {
        .cv_argc = 4, .cv_argv = argv, .cv_expanded = exp, .cv_cwd = "/w"};
    ag_admit(ss, &cv, BOX_VERDICT_PERMIT);
    ag_admit(ss, &cv, BOX_VERDICT_PERMIT);
    ag_admit(ss, &cv, BOX_VERDICT_PERMIT);
    assert_int_equal(a.ag_decides, 1);
    assert_int_equal(a.ag_agains, 2);
    assert_int_equal(a.ag_last, 1);

    // Each difference is another request: asked, not served again.
    char *other[] = {"read", "-r", "a", "c"};
    char *longer[] = {"read", "-r", "a", "b", ""};
    char *joined[] = {"read", "-r", "a b"};
    bool marked[] = {false, false, false, true};
    const sh_cmd_value diffs[] = {
        {.cv_argc = 4, .cv_argv = other, .cv_expanded = exp, .cv_cwd = "/w"},
        {.cv_argc = 5, .cv_argv = longer, .cv_cwd = "/w"},
        {.cv_argc = 3, .cv_argv = joined, .cv_cwd = "/w"},
        {.cv_argc = 4, .cv_argv = argv, .cv_expanded = marked, .cv_cwd = "/w"},
        {.cv_argc = 4, .cv_argv = argv, .cv_expanded = exp, .cv_cwd = "/w/"},
        {.cv_argc = 4,
         .cv_argv = argv,
         .cv_expanded = exp,
         .cv_cwd = "/w",
         .cv_program_path = "/usr/bin/read"},
    };
    for (size_t i = 0; i < NELEM(diffs); i++) {
        int before = a.ag_decides;
        ag_admit(ss, &diffs[i], BOX_VERDICT_PERMIT);
        assert_int_equal(a.ag_decides, before + 1);
    }
    assert_int_equal(a.ag_agains, 2);

    // A token the decider no longer takes: asked in full, and the new
    // token is the one served again.
    a.ag_again_rv = BOX_ENOENT;
    int decides = a.ag_decides;
    ag_admit(ss, &cv, BOX_VERDICT_PERMIT);
    assert_int_equal(a.ag_decides, decides + 1);
    a.ag_again_rv = BOX_OK;
    ag_admit(ss, &cv, BOX_VERDICT_PERMIT);
    assert_int_equal(a.ag_decides, decides + 1);
    assert_int_equal(a.ag_last, a.ag_next);

    // A report that cannot be made is a fault, as the decider's is.
    a.ag_again_rv = BOX_EIO;
    ag_admit(ss, &cv, BOX_VERDICT_FAULT);
    a.ag_again_rv = BOX_OK;

    // A command with a word from an expansion is asked every time.
    bool one[] = {false, false, true, false};
    sh_cmd_value ev = {
        .cv_argc = 4, .cv_argv = argv, .cv_expanded = one, .cv_cwd = "/w"};
    decides = a.ag_decides;
    ag_admit(ss, &ev, BOX_VERDICT_PERMIT);
    ag_admit(ss, &ev, BOX_VERDICT_PERMIT);
    assert_int_equal(a.ag_decides, decides + 2);

    // Denies and permits that want their outcome are never kept.
    char *d1[] = {"deny", "1"}, *d2[] = {"wanted", "1"};
    sh_cmd_value dv = {.cv_argc = 2, .cv_argv = d1, .cv_cwd = "/w"};
    sh_cmd_value wv = {.cv_argc = 2, .cv_argv = d2, .cv_cwd = "/w"};
    a.ag_answer = BOX_VERDICT_DENY;
    decides = a.ag_decides;
    int agains = a.ag_agains;
    ag_admit(ss, &dv, BOX_VERDICT_DENY);
    ag_admit(ss, &dv, BOX_VERDICT_DENY);
    a.ag_answer = BOX_VERDICT_PERMIT;
    a.ag_wanted = true;
    ag_admit(ss, &wv, BOX_VERDICT_PERMIT);
    ag_admit(ss, &wv, BOX_VERDICT_PERMIT);
    assert_int_equal(a.ag_decides, decides + 4);
    assert_int_equal(a.ag_agains, agains);
    sh_session_free(ss);
}

/* A decider that gives every permit a ticket (a policy with temporal
 * rules) and names each by what it decided, and a recorder that logs
 * "<name> <outcome>\n" per outcome. */
#define OC_MAX 64
typedef struct oc {
    th o_th;
    bool o_tickets;
    char o_name[OC_MAX][96];
    size_t o_n;
    box_buf o_rec;
} oc;

static box_verdict
oc_decide(void *arg, const Box__DecisionRequest *rq, char **msg,
          box_ticket *ticket)
{
    oc *o = arg;
    box_verdict v = th_decide(&o->o_th, rq, msg, ticket);
    if (v != BOX_VERDICT_PERMIT || !o->o_tickets || o->o_n >= OC_MAX)
        return v;
    const Box__Value *p = th_field(rq, "program");
    const Box__Value *path = th_field(rq, "path");
    snprintf(o->o_name[o->o_n], sizeof o->o_name[0], "%s:%s", rq->action,
             p != NULL ? p->str : path->str);
    *ticket = (box_ticket){.bt_id = o->o_n++, .bt_wanted = true};
    return v;
}

static void
oc_record(void *arg, box_ticket t, const box_outcome *out)
{
    static const char *const kinds[] = {"error", "completed",
                                        "descriptor_issued", "indeterminate"};
    oc *o = arg;
    assert_true(t.bt_wanted && t.bt_id < o->o_n);
    box_err rv =
        out->bo_kind == BOX_OUTCOME_STATUS
            ? box_buf_printf(&o->o_rec, "%s status %lld\n", o->o_name[t.bt_id],
                             (long long)out->bo_status)
            : box_buf_printf(&o->o_rec, "%s %s\n", o->o_name[t.bt_id],
                             kinds[out->bo_kind]);
    assert_int_equal(rv, BOX_OK);
}

static int
oc_run(oc *o, const char *script)
{
    box_buf_init(&o->o_th.th_out, 1u << 20);
    box_buf_init(&o->o_th.th_err, 1u << 20);
    box_buf_init(&o->o_th.th_log, 1u << 20);
    box_buf_init(&o->o_th.th_fslog, 1u << 20);
    box_buf_init(&o->o_rec, 1u << 20);
    sh_session_opts so = {.so_decide = oc_decide,
                          .so_decide_arg = o,
                          .so_record = oc_record,
                          .so_record_arg = o,
                          .so_out = th_out,
                          .so_err = th_err,
                          .so_io_arg = &o->o_th,
                          .so_cwd = "/"};
    sh_session *ss = sh_session_new(&so);
    assert_non_null(ss);
    int st = sh_session_run(ss, script, strlen(script));
    sh_session_free(ss);
    return st;
}

static void
oc_reset(oc *o)
{
    th_reset(&o->o_th);
    box_buf_reset(&o->o_rec);
    o->o_n = 0;
}

/* dogwood-spec §5.6: every permitted command ends in output.status (a
 * denied one in nothing), and the session's own kernel records its file
 * effects; with no ticket nothing is recorded at all. */
static void
test_outcomes(void **state)
{
    oc o = {.o_th = {.th_deny = "ls"}};
    static const char script[] =
        "true; false; f() { return 3; }; f; (exit 4); nosuch; ls\n"
        "echo hi > /f; cat /f /nope\n"
        "true | ls\n";
    oc_run(&o, script);
    assert_string_equal(th_s(&o.o_rec), "");
    oc_reset(&o);

    o.o_tickets = true;
    oc_run(&o, script);
    assert_string_equal(th_s(&o.o_rec),
                        "shell:exec:true status 0\n"
                        "shell:exec:false status 1\n"
                        "shell:exec:return status 3\n"
                        "shell:exec:f status 3\n"
                        "shell:exec:exit status 4\n"
                        "shell:exec:nosuch status 127\n"
                        "fs:write:/f descriptor_issued\n"
                        "shell:exec:echo status 0\n"
                        "fs:read:/f descriptor_issued\n"
                        "fs:read:/nope error\n"
                        "shell:exec:cat status 1\n"
                        // admitted, then never run: ls was refused
                        "shell:exec:true status -1\n");
    oc_reset(&o);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_redact),
        cmocka_unit_test(test_redact_caps),
        cmocka_unit_test(test_request_and_verdicts),
        cmocka_unit_test(test_served_again),
        cmocka_unit_test(test_outcomes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
