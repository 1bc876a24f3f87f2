/* SPDX-License-Identifier: Apache-2.0 */
/* The `box` CLI as a user runs it: run, policy check and replay, log. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_control.h"
#include "box_pdp_client.h"
#include "box_proc.h"
#include "box_testutil.h"
#include "box_req.h"
#include "box_svc.h"

#define CLI_RUN_MS 120000 // a run under ASan on a busy machine is slow

typedef struct world {
    char dir[128]; // temp root
    char config[200];
    char policy[200];
    char box_dir[200];
    char work[200];
} world;

static const char good_policy[] =
    "@id(\"exec\") permit (principal, action == Box::Action::\"shell:exec\", "
    "resource);\n";

static void
world_make(world *w, const char *policy)
{
    snprintf(w->dir, sizeof w->dir, "/tmp/box-cli-XXXXXX");
    assert_non_null(mkdtemp(w->dir));
    snprintf(w->config, sizeof w->config, "%s/box.toml", w->dir);
    snprintf(w->policy, sizeof w->policy, "%s/policy.dw", w->dir);
    snprintf(w->box_dir, sizeof w->box_dir, "%s/state", w->dir);
    snprintf(w->work, sizeof w->work, "%s/work", w->dir);
    assert_int_equal(mkdir(w->work, 0755), 0);
    box_test_put(w->policy, policy);
    char cfg[1024];
    snprintf(cfg, sizeof cfg,
             "name = \"clitest\"\nbox_dir = \"%s\"\npolicy = \"policy.dw\"\n"
             "[agent]\ncommand = [\"/bin/true\"]\nworkspace = \"%s\"\n",
             w->box_dir, w->work);
    box_test_put(w->config, cfg);
}

static void
world_drop(world *w)
{
    box_test_rmtree(w->dir);
}

/* A run's status, with its stderr shown when it is not the expected one. */
static void
expect_status(const box_proc_result *r, int want)
{
    if (r->pr_status != want)
        fail_msg("status %d, want %d; stderr:\n%s", r->pr_status, want,
                 r->pr_err);
}

static void
test_run_starts_and_stops_services(void **state)
{
    (void)state;
    world w;
    world_make(&w, good_policy);
    box_proc_result r;
    box_test_cli((char *[]){"run", "--config", w.config, NULL}, CLI_RUN_MS, &r);
    expect_status(&r, 0);
    assert_non_null(strstr(r.pr_err, "strands-box: box box-"));
    assert_non_null(strstr(r.pr_err, " created \xc2\xb7 config "));
    assert_non_null(strstr(r.pr_err, "strands-box: box-pdp up \xc2\xb7 pid "));
    assert_non_null(strstr(r.pr_err, "strands-box: box-gateway up"));
    assert_non_null(strstr(r.pr_err, "strands-box: box-shell up"));
    box_proc_result_free(&r);

    struct stat st;
    assert_int_equal(stat(w.box_dir, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0700);
    const char *subs[] = {"bin", "run", "trust", "private"};
    for (int i = 0; i < 4; i++) {
        char p[300];
        snprintf(p, sizeof p, "%s/%s", w.box_dir, subs[i]);
        assert_int_equal(stat(p, &st), 0);
        assert_true(S_ISDIR(st.st_mode));
    }
    char logp[300];
    snprintf(logp, sizeof logp, "%s/private/telemetry/records.jsonl",
             w.box_dir);
    char *log = box_test_slurp_or_empty(logp);
    char *a = strstr(log, "\"box_started\"");
    char *b = strstr(log, "\"policy_installed\"");
    char *c = strstr(log, "\"box_stopped\"");
    assert_true(a != NULL && b != NULL && c != NULL && a < b && b < c);
    box_free(log);

    // A second run of an unchanged box says nothing about creation.
    box_test_cli((char *[]){"run", "--config", w.config, NULL}, CLI_RUN_MS, &r);
    expect_status(&r, 0);
    assert_null(strstr(r.pr_err, " created "));
    box_proc_result_free(&r);
    world_drop(&w);
}

static void
test_run_refuses_a_busy_box(void **state)
{
    (void)state;
    world w;
    world_make(&w, good_policy);
    box_proc_result r;
    box_test_cli((char *[]){"run", "--config", w.config, NULL}, CLI_RUN_MS, &r);
    expect_status(&r, 0);
    box_proc_result_free(&r);
    char lockp[300];
    snprintf(lockp, sizeof lockp, "%s/private/lock", w.box_dir);
    int fd = open(lockp, O_RDWR);
    assert_true(fd >= 0);
    assert_int_equal(flock(fd, LOCK_EX | LOCK_NB), 0);
    box_test_cli((char *[]){"run", "--config", w.config, NULL}, CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 1);
    assert_string_equal(r.pr_err,
                        "strands-box: error: box clitest is already running, "
                        "and one run owns a box at a time; wait for that run "
                        "to exit, or start a configuration with a different "
                        "`box_dir`\n");
    box_proc_result_free(&r);
    close(fd);
    world_drop(&w);
}

static void
test_run_refusals(void **state)
{
    (void)state;
    world w;
    world_make(&w, "permit (principal, action == Box::Action::\"fs:raed\", "
                   "resource);\n");
    box_proc_result r;
    box_test_cli((char *[]){"run", "--config", w.config, NULL}, CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 1);
    char want[1024];
    snprintf(want, sizeof want,
             "strands-box: error: policy file %s will not load: policy "
             "references unknown action: %s:1:20: for policy `policy_0`, "
             "unrecognized action `Box::Action::\"fs:raed\"` (did you mean "
             "`Box::Action::\"fs:read\"`?)\n",
             w.policy, w.policy);
    assert_string_equal(r.pr_err, want);
    box_proc_result_free(&r);
    // Nothing was created for a refused run.
    struct stat st;
    assert_int_not_equal(stat(w.box_dir, &st), 0);

    box_test_put(w.config,
                 "name = \"x\"\nbox_dir = \"/tmp\"\nfrobnicate = 1\n");
    box_test_cli((char *[]){"run", "--config", w.config, NULL}, CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 1);
    assert_non_null(strstr(r.pr_err, "strands-box: error: cannot parse config "
                                     "file "));
    assert_non_null(strstr(r.pr_err, "unknown field `frobnicate`"));
    box_proc_result_free(&r);

    box_test_cli((char *[]){"run", "--config", "/nonexistent/box.toml", NULL},
                 CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 1);
    assert_non_null(strstr(r.pr_err, "strands-box: error: cannot read config "
                                     "file /nonexistent/box.toml"));
    box_proc_result_free(&r);

    box_test_cli((char *[]){"run", NULL}, CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 2);
    assert_non_null(strstr(r.pr_err, "--config"));
    box_proc_result_free(&r);
    world_drop(&w);
}

static void
test_policy_check(void **state)
{
    (void)state;
    char src[4096];
    snprintf(src, sizeof src, "%s/deploy/quickstart/policy.dw",
             getenv("BOX_SOURCE_DIR"));
    box_proc_result r;
    box_test_cli((char *[]){"policy", "check", src, NULL}, CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 0);
    assert_non_null(strstr(r.pr_out, "loads (8 rules)"));
    assert_string_equal(r.pr_err, "");
    box_proc_result_free(&r);

    world w;
    world_make(&w, "permit (principal, action, resource) when { "
                   "context.input.x = 1 };\n");
    box_test_cli((char *[]){"policy", "check", w.policy, NULL}, CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 1);
    char want[1024];
    snprintf(want, sizeof want,
             "strands-box: error: policy file %s will not load: failed to "
             "parse policy source: dogwood parse: %s:1:61: `=` is not a valid "
             "operator in this scope; did you mean `==`?\n",
             w.policy, w.policy);
    assert_string_equal(r.pr_err, want);
    box_proc_result_free(&r);

    // A warning is printed and the policy still loads.
    box_test_put(w.policy, "@id(\"s\") forbid (principal, action == "
                           "Box::Action::\"shell:exec\", resource) when { "
                           "context.input.program == \"/bin/rm\" };\n");
    box_test_cli((char *[]){"policy", "check", w.policy, NULL}, CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_err,
                        "strands-box: warning: rule @id(\"s\") compares "
                        "context.input.program with \"/bin/rm\", which matches "
                        "only a first word spelled that way; compare "
                        "context.input.program_path to match the resolved "
                        "binary\n");
    box_proc_result_free(&r);

    box_test_cli((char *[]){"policy", "check", "/nonexistent.dw", NULL},
                 CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 1);
    assert_non_null(strstr(r.pr_err, "cannot read policy file /nonexistent.dw: "
                                     "No such file or directory"));
    box_proc_result_free(&r);

    box_test_cli((char *[]){"policy", "check", NULL}, CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 2);
    box_proc_result_free(&r);
    world_drop(&w);
}

/* `box policy replay`: a worked example of dogwood-spec §8.2 in both
 * output forms, and each refusal with its exit status. */
static void
test_policy_replay(void **state)
{
    (void)state;
    char pol[4096], trace[4096];
    const char *src = getenv("BOX_SOURCE_DIR");
    snprintf(pol, sizeof pol,
             "%s/pdp/testdata/worked/T01_read_after_login/policy_1.dw", src);
    snprintf(trace, sizeof trace,
             "%s/pdp/testdata/worked/T01_read_after_login/trace_1.log", src);
    box_proc_result r;
    box_test_cli((char *[]){"policy", "replay", "--policy", pol, trace, NULL},
                 CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "@0 (time point 0): DENY\n"
                                  "@10 (time point 1): ALLOW  [rules: 0]\n"
                                  "@7200 (time point 2): DENY\n");
    assert_string_equal(r.pr_err, "");
    box_proc_result_free(&r);
    box_test_cli((char *[]){"policy", "replay", "--verdicts", "--policy", pol,
                            trace, NULL},
                 CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "@0 (time point 0): false\n"
                                  "@10 (time point 1): true\n"
                                  "@7200 (time point 2): false\n");
    box_proc_result_free(&r);

    // A trace that does not check: 2, with its place.
    world w;
    world_make(&w, "permit (principal, action, resource) when temporal { "
                   "formerly within 1h A::Action::\"x\"::request{} };\n");
    char bad[400];
    snprintf(bad, sizeof bad, "%s/bad.log", w.dir);
    box_test_put(bad, "@5 A::Action::\"x\"::request()\n@4 oops\n");
    box_test_cli(
        (char *[]){"policy", "replay", "--policy", w.policy, bad, NULL},
        CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 2);
    assert_string_equal(r.pr_out, "");
    assert_non_null(strstr(r.pr_err, "bad.log:2:"));
    box_proc_result_free(&r);
    // A policy that does not parse: 2.
    box_test_put(w.policy, "permit (principal, action, resource) when "
                           "temporal { formerly 1h A::Action::\"x\"::request{} "
                           "};\n");
    box_test_cli(
        (char *[]){"policy", "replay", "--policy", w.policy, trace, NULL},
        CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 2);
    assert_non_null(strstr(r.pr_err, "expected `within`, found `1`"));
    box_proc_result_free(&r);
    // No such trace, or no trace at all: 1.
    box_test_cli((char *[]){"policy", "replay", "--policy", pol,
                            "/nonexistent.log", NULL},
                 CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 1);
    assert_non_null(strstr(r.pr_err, "cannot read trace file "
                                     "/nonexistent.log: No such file or "
                                     "directory"));
    box_proc_result_free(&r);
    box_test_cli((char *[]){"policy", "replay", "--policy", pol, NULL},
                 CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 1);
    assert_non_null(strstr(r.pr_err, "usage: box policy"));
    box_proc_result_free(&r);
    world_drop(&w);
}

/* `box policy replay --schema --event-schema` (a corpus case that needs
 * its own event schema), and a temporal typo refused by check and by a
 * replay against an action schema. */
static void
test_policy_replay_schemas(void **state)
{
    (void)state;
    char pol[4096], trace[4096], events[4096], drupe[4096];
    const char *src = getenv("BOX_SOURCE_DIR");
    const char *c =
        "pdp/testdata/dogwood/temporal_only/1215_decimal_pin_dom_eq";
    snprintf(pol, sizeof pol, "%s/%s/policy_1.dw", src, c);
    snprintf(trace, sizeof trace, "%s/%s/trace_4.log", src, c);
    snprintf(events, sizeof events, "%s/%s/event.dwschema", src, c);
    snprintf(drupe, sizeof drupe,
             "%s/pdp/testdata/dogwood/schemas/drupe_test_world.cedarschema",
             src);
    box_proc_result r;
    // Its pins keep the other tenant's Login from counting.
    box_test_cli((char *[]){"policy", "replay", "--verdicts", "--event-schema",
                            events, "--policy", pol, trace, NULL},
                 CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "@1 (time point 0): false\n"
                                  "@2 (time point 1): false\n");
    box_proc_result_free(&r);
    box_test_cli((char *[]){"policy", "replay", "--verdicts", "--policy", pol,
                            trace, NULL},
                 CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "@1 (time point 0): false\n"
                                  "@2 (time point 1): true\n");
    box_proc_result_free(&r);

    // A typo in a predicate field: replay against a schema refuses (2).
    world w;
    world_make(&w, "permit (principal, action == Drupe::Action::\"Read\", "
                   "resource) when temporal { formerly within 1h "
                   "Drupe::Action::\"Login\"::request{ input.usr: "
                   "context.input.user } };\n");
    box_test_cli((char *[]){"policy", "replay", "--schema", drupe, "--policy",
                            w.policy, trace, NULL},
                 CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 2);
    assert_string_equal(r.pr_out, "");
    assert_non_null(strstr(r.pr_err, "policy.dw:1:79: predicate "
                                     "`Drupe::Action::\"Login\"::request` "
                                     "mentions field `input.usr`, which is "
                                     "not declared on that event"));
    box_proc_result_free(&r);
    // A schema that cannot be read (1) or does not parse (2).
    box_test_cli((char *[]){"policy", "replay", "--schema", "/nonexistent",
                            "--policy", w.policy, trace, NULL},
                 CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 1);
    box_proc_result_free(&r);
    box_test_cli((char *[]){"policy", "replay", "--event-schema", w.policy,
                            "--policy", w.policy, trace, NULL},
                 CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 2);
    assert_non_null(strstr(r.pr_err, "policy.dw:1:1:"));
    box_proc_result_free(&r);

    // And the Box load: `box policy check` names the typo.
    box_test_put(w.policy, "forbid (principal, action == "
                           "Box::Action::\"fs:write\", resource) unless "
                           "temporal { formerly within 10m "
                           "Box::Action::\"fs:read\"::request{ input.pth: "
                           "context.input.path } };\n");
    box_test_cli((char *[]){"policy", "check", w.policy, NULL}, CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 1);
    assert_non_null(strstr(r.pr_err, "will not load: policy fails schema "
                                     "validation: "));
    assert_non_null(strstr(r.pr_err, "mentions field `input.pth`, which is "
                                     "not declared on that event (declared "
                                     "fields: callerPrincipal, callerResource, "
                                     "input.operation, input.path, "
                                     "requestId)"));
    box_proc_result_free(&r);
    world_drop(&w);
}

/* Runs a real box-pdp, makes a few decisions, and returns its log path. */
static void
make_log(world *w, char *logp, size_t n)
{
    char url[300], pub[300], bin[4096];
    snprintf(logp, n, "%s/records.jsonl", w->dir);
    snprintf(url, sizeof url, "ipc://%s/pdp.sock", w->dir);
    snprintf(pub, sizeof pub, "ipc://%s/epoch.sock", w->dir);
    box_test_put(
        w->policy,
        "@id(\"exec\") permit (principal, action == "
        "Box::Action::\"shell:exec\","
        " resource);\n"
        "@id(\"w\") permit (principal, action == Box::Action::\"fs:write\", "
        "resource) when { context.input.path like \"~/src/*\" };\n");
    box_proc_bin(bin, sizeof bin, "box-pdp");
    char *argv[] = {bin,       "--listen", url,  "--policy",
                    w->policy, "--log",    logp, NULL};
    box_proc p;
    assert_true(box_proc_start(&p, argv, NULL));
    Box__HealthResponse *h = box_wait_pdp(url, 60000);
    assert_non_null(h);
    box__health_response__free_unpacked(h, NULL);
    box_pdp_client_opts o = {.co_url = url, .co_timeout_ms = 2000};
    box_pdp_client *c;
    assert_int_equal(box_pdp_client_open(&o, &c), BOX_OK);
    box_req q;
    box_pdp_answer a;
    box_req_exec(&q, "grep", "grep -n TODO src/main.rs", 3, "/w");
    assert_int_equal(box_pdp_decide(c, &q.r_req, &a), BOX_OK);
    box_pdp_answer_clear(&a);
    box_req_fs(&q, "fs:write", "Box::FsWriteOperation", "write_content",
               "~/src/project/todo.txt");
    assert_int_equal(box_pdp_decide(c, &q.r_req, &a), BOX_OK);
    box_pdp_answer_clear(&a);
    box_req_fs(&q, "fs:read", "Box::FsReadOperation", "read_content",
               "~/src/project/.env");
    assert_int_equal(box_pdp_decide(c, &q.r_req, &a), BOX_OK);
    box_pdp_answer_clear(&a);
    box_pdp_client_close(c);
    kill(p.bp_pid, SIGTERM);
    box_proc_result r;
    box_proc_finish(&p, 10000, &r);
    assert_int_equal(r.pr_status, 0);
    box_proc_result_free(&r);
}

static void
test_log_table_and_filters(void **state)
{
    (void)state;
    world w;
    world_make(&w, good_policy);
    char logp[300];
    make_log(&w, logp, sizeof logp);
    box_proc_result r;
    box_test_cli((char *[]){"log", logp, NULL}, CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out,
                        "permit  shell:exec   grep\n"
                        "permit  fs:write     ~/src/project/todo.txt\n"
                        "deny    fs:read      ~/src/project/.env\n");
    box_proc_result_free(&r);
    box_test_cli((char *[]){"log", "--verdict", "deny", logp, NULL}, CLI_RUN_MS,
                 &r);
    assert_string_equal(r.pr_out, "deny    fs:read      ~/src/project/.env\n");
    box_proc_result_free(&r);
    box_test_cli((char *[]){"log", "--action", "fs:write", logp, NULL},
                 CLI_RUN_MS, &r);
    assert_string_equal(r.pr_out,
                        "permit  fs:write     ~/src/project/todo.txt\n");
    box_proc_result_free(&r);
    box_test_cli((char *[]){"log", "--verdict", "maybe", logp, NULL},
                 CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 1);
    assert_string_equal(r.pr_err, "strands-box: error: --verdict takes permit "
                                  "or deny, not \"maybe\"\n");
    box_proc_result_free(&r);

    // A damaged line is reported (by its number: every record is a log
    // line and its span's) and the rest still printed.
    FILE *f = fopen(logp, "a+");
    assert_non_null(f);
    int c, nlines = 0;
    rewind(f);
    while ((c = fgetc(f)) != EOF)
        nlines += c == '\n';
    fputs("{not json\n", f);
    fclose(f);
    char where[32];
    snprintf(where, sizeof where, ":%d: not a log record", nlines + 1);
    box_test_cli((char *[]){"log", logp, NULL}, CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out,
                        "permit  shell:exec   grep\n"
                        "permit  fs:write     ~/src/project/todo.txt\n"
                        "deny    fs:read      ~/src/project/.env\n");
    assert_non_null(strstr(r.pr_err, where));
    box_proc_result_free(&r);

    box_test_cli((char *[]){"log", "/nonexistent/records.jsonl", NULL},
                 CLI_RUN_MS, &r);
    assert_int_equal(r.pr_status, 1);
    assert_non_null(strstr(r.pr_err, "cannot read the decision log"));
    box_proc_result_free(&r);
    world_drop(&w);
}

static void
test_log_follow(void **state)
{
    (void)state;
    world w;
    world_make(&w, good_policy);
    char logp[300];
    make_log(&w, logp, sizeof logp);
    char *first = box_test_slurp_or_empty(logp);
    char *nl = strchr(first, '\n');
    // Keep the control record only, then let --follow see the rest.
    char *rest = box_strdup(nl + 1);
    nl[1] = '\0';
    box_test_put(logp, first);
    char bin[4096];
    box_proc_bin(bin, sizeof bin, "box");
    char *argv[] = {bin, "log", "--follow", logp, NULL};
    box_proc p;
    assert_true(box_proc_start(&p, argv, NULL));
    usleep(300000);
    FILE *f = fopen(logp, "a");
    // Written in two pieces: a partial line must wait for its end.
    size_t half = strlen(rest) / 2;
    fwrite(rest, 1, half, f);
    fflush(f);
    usleep(300000);
    fputs(rest + half, f);
    fclose(f);
    usleep(600000);
    kill(p.bp_pid, SIGKILL);
    box_proc_result r;
    box_proc_finish(&p, 5000, &r);
    assert_string_equal(r.pr_out,
                        "permit  shell:exec   grep\n"
                        "permit  fs:write     ~/src/project/todo.txt\n"
                        "deny    fs:read      ~/src/project/.env\n");
    box_proc_result_free(&r);
    box_free(first);
    box_free(rest);
    world_drop(&w);
}

int
main(void)
{
    sigset_t s;
    box_svc_block_signals(&s);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_run_starts_and_stops_services),
        cmocka_unit_test(test_run_refuses_a_busy_box),
        cmocka_unit_test(test_run_refusals),
        cmocka_unit_test(test_policy_check),
        cmocka_unit_test(test_policy_replay),
        cmocka_unit_test(test_policy_replay_schemas),
        cmocka_unit_test(test_log_table_and_filters),
        cmocka_unit_test(test_log_follow),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
