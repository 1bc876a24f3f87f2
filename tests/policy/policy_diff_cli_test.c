/* SPDX-License-Identifier: Apache-2.0 */
/* `box policy diff` as an operator runs it: a decision log written by the
 * real pdp_dlog and a history by the real pdp_hstore, old and new
 * policies, outputs and exit statuses (0 same, 1 changes, 2 trouble). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_proc.h"
#include "box_testutil.h"
#include "pdp_dlog.h"
#include "pdp_hstore.h"

#define RUN_MS 60000

static char dir[64]; // this run's files

static int
setup(void **state)
{
    (void)state;
    snprintf(dir, sizeof dir, "/tmp/box-policy-diff-XXXXXX");
    return mkdtemp(dir) == NULL;
}

static int
teardown(void **state)
{
    (void)state;
    box_test_rmtree(dir);
    return 0;
}

/* dir/name, in a static buffer per slot. */
static char *
at(int slot, const char *name)
{
    static char paths[8][PATH_MAX];
    snprintf(paths[slot], sizeof paths[slot], "%s/%s", dir, name);
    return paths[slot];
}

/* One decision as box-pdp logs it (pdp_wire_decide). */
typedef struct dec {
    const char *action, *resource, *rule;
    int permit;
    const char *cause; // NULL: permitted / forbidden
    int cached;
} dec;

/* path: a policy_installed record, then the decisions, by the real
 * writer. */
static void
write_log(const char *path, const dec *d, size_t n)
{
    pdp_dlog *l;
    pdp_dlog_ident id = {.di_box_id = "box-0123456789abcdef", .di_run_id = "r"};
    assert_int_equal(pdp_dlog_open(path, &id, 0, &l), BOX_OK);
    assert_int_equal(
        pdp_dlog_control_add(l, "policy_installed", "ok", "old.dw", NULL),
        BOX_OK);
    for (size_t i = 0; i < n; i++) {
        bool det = strcmp(d[i].rule, "<default-deny>") != 0 &&
                   strncmp(d[i].rule, "enforcement:", 12) != 0 &&
                   strcmp(d[i].rule, "<cached-permit>") != 0;
        pdp_dlog_decision x = {
            .dd_action = d[i].action,
            .dd_resource = d[i].resource,
            .dd_permit = d[i].permit,
            .dd_cause = d[i].cause    ? d[i].cause
                        : d[i].permit ? "permitted"
                                      : "forbidden",
            .dd_rule = d[i].rule,
            .dd_determining = &d[i].rule,
            .dd_ndetermining = det,
            .dd_message = "m",
            .dd_epoch = 1,
            .dd_cached = d[i].cached,
            .dd_file_path = "/home/op/f",
        };
        assert_int_equal(pdp_dlog_decision_add(l, &x), BOX_OK);
    }
    pdp_dlog_close(l);
}

static void
diff(box_proc_result *r, char *old, char *new_, char *log, char *hist,
     bool json)
{
    char *args[14] = {"policy", "diff", "--old", old,
                      "--new",  new_,   "--log", log};
    size_t n = 8;
    if (hist != NULL) {
        args[n++] = "--history";
        args[n++] = hist;
    }
    if (json)
        args[n++] = "--json";
    args[n] = NULL;
    box_test_cli(args, RUN_MS, r);
}

#define READ(id, cond)                                                         \
    "@id(\"" id "\") permit (principal, action == Box::Action::\"fs:read\", "  \
    "resource) when { " cond " };\n"

static const char old_policy[] =
    READ("read-src", "context.input.path like \"~/src/*\"");

/* The log of every test but the fs operation one. */
static const dec reads[] = {
    {"fs:read", "~/src/a.c", "read-src", 1, NULL, 0},
    {"fs:read", "~/src/b.c", "read-src", 1, NULL, 0},
    {"fs:read", "~/src/secret.key", "read-src", 1, NULL, 0},
    {"fs:read", "/tmp/t", "<default-deny>", 0, "no_match", 0},
    {"fs:read", "~/src/.git/config", "enforcement:reach-floor", 0,
     "enforcement", 0},
    {"fs:read", "~/src/a.c", "<cached-permit>", 1, "cached", 1},
};
#define NREADS (sizeof reads / sizeof reads[0])

/* A forbid added (permit → deny), a permit widened (deny → permit). */
static void
test_diff_changes(void **state)
{
    (void)state;
    box_proc_result r;
    write_log(at(0, "log.jsonl"), reads, NREADS);
    box_test_put(at(1, "old.dw"), old_policy);
    box_test_put(
        at(2, "new.dw"),
        READ("read-src", "context.input.path like \"~/src/*\"") READ(
            "read-tmp",
            "context.input.path like \"/tmp/*\"") "@id(\"no-keys\") forbid "
                                                  "(principal, action == "
                                                  "Box::Action::\"fs:read\", "
                                                  "resource) when { "
                                                  "context.input.path like "
                                                  "\"*.key\" };\n");
    diff(&r, at(1, "old.dw"), at(2, "new.dw"), at(0, "log.jsonl"), NULL, false);
    box_test_expect_status(&r, 1);
    box_test_expect_out(
        &r, "7 decisions replayed: 2 unchanged, 2 change, 0 cannot tell, "
            "3 skipped (1 control, 1 enforcement, 1 cached)\n"
            "permit → deny  (rule new:no-keys)  1 decision\n"
            "  fs:read  ~/src/secret.key  (was: permit by read-src; line 7)\n"
            "deny → permit  (rule new:read-tmp)  1 decision\n"
            "  fs:read  /tmp/t  (was: deny by <default-deny>; line 9)\n");
    box_proc_result_free(&r);

    diff(&r, at(1, "old.dw"), at(2, "new.dw"), at(0, "log.jsonl"), NULL, true);
    box_test_expect_status(&r, 1);
    box_test_expect_out(
        &r, "{\"replayed\":7,\"unchanged\":2,\"changed\":2,\"cannot_tell\":0,"
            "\"skipped\":3,\"skipped_by\":{\"control\":1,\"enforcement\":1,"
            "\"cached\":1,\"pending\":0,\"other\":0},\"changes\":[{\"from\":"
            "\"permit\",\"to\":\"deny\",\"rule\":\"no-keys\",\"count\":1,"
            "\"examples\":[{\"line\":7,\"action\":\"fs:read\",\"resource\":"
            "\"~/src/secret.key\",\"was_rule\":\"read-src\",\"from_history\":"
            "false}]},{\"from\":\"deny\",\"to\":\"permit\",\"rule\":"
            "\"read-tmp\",\"count\":1,\"examples\":[{\"line\":9,\"action\":"
            "\"fs:read\",\"resource\":\"/tmp/t\",\"was_rule\":"
            "\"<default-deny>\",\"from_history\":false}]}],"
            "\"cannot_tell_groups\":[],\"warnings\":[]}\n");
    box_proc_result_free(&r);
}

/* A rule renamed: the same verdicts, decided by another rule. */
static void
test_diff_rename(void **state)
{
    (void)state;
    box_proc_result r;
    write_log(at(0, "log.jsonl"), reads, NREADS);
    box_test_put(at(1, "old.dw"), old_policy);
    box_test_put(at(2, "new.dw"),
                 READ("read-source", "context.input.path like \"~/src/*\""));
    diff(&r, at(1, "old.dw"), at(2, "new.dw"), at(0, "log.jsonl"), NULL, false);
    box_test_expect_status(&r, 1);
    box_test_expect_out(
        &r, "7 decisions replayed: 1 unchanged, 3 change, 0 cannot tell, "
            "3 skipped (1 control, 1 enforcement, 1 cached)\n"
            "permit → permit, another rule  (rule new:read-source)  3 "
            "decisions\n"
            "  fs:read  ~/src/a.c  (was: permit by read-src; line 3)\n"
            "  fs:read  ~/src/b.c  (was: permit by read-src; line 5)\n"
            "  fs:read  ~/src/secret.key  (was: permit by read-src; line 7)\n");
    box_proc_result_free(&r);
}

/* An edit that changes no decision: reformatted, a rule no decision
 * reaches added. Exit 0. And a log the old policy does not explain. */
static void
test_diff_nothing(void **state)
{
    (void)state;
    box_proc_result r;
    write_log(at(0, "log.jsonl"), reads, NREADS);
    box_test_put(at(1, "old.dw"), old_policy);
    box_test_put(at(2, "new.dw"),
                 "// reformatted\n"
                 "@id(\"read-src\")\npermit (\n  principal,\n  action == "
                 "Box::Action::\"fs:read\",\n  resource\n)\nwhen { "
                 "context.input.path like \"~/src/*\" };\n"
                 "@id(\"no-etc\") forbid (principal, action == "
                 "Box::Action::\"fs:write\", resource) when { "
                 "context.input.path like \"/etc/*\" };\n");
    diff(&r, at(1, "old.dw"), at(2, "new.dw"), at(0, "log.jsonl"), NULL, false);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "7 decisions replayed: 4 unchanged, 0 change, 0 "
                            "cannot tell, 3 skipped (1 control, 1 "
                            "enforcement, 1 cached)\n");
    box_proc_result_free(&r);

    // Written under another policy: said per decision, not a change.
    box_test_put(at(1, "other.dw"), READ("read-all", "true"));
    diff(&r, at(1, "other.dw"), at(1, "other.dw"), at(0, "log.jsonl"), NULL,
         false);
    box_test_expect_status(&r, 1);
    assert_true(box_test_has_line(r.pr_out, "cannot tell: old policy does "
                                            "not reproduce the logged "
                                            "verdict  4 decisions"));
    assert_true(box_test_has_line(r.pr_out, "  fs:read  /tmp/t  (logged: "
                                            "deny by <default-deny>; old "
                                            "policy: permit by read-all; "
                                            "line 9)"));
    box_proc_result_free(&r);
}

/* The ::request event of an fs:write of path with operation op, as
 * box-pdp keeps it (pdp_live), into the history file s as event seq. */
static void
put_write(pdp_hstore *s, uint64_t seq, const char *path, const char *op,
          int64_t ts)
{
    box_arena *a = box_arena_new(1u << 20);
    pdp_value *in = pdp_value_record_new(a), *ctx = pdp_value_record_new(a),
              *fields = pdp_value_record_new(a), *p, *act, *res, *pv, *ov;
    assert_int_equal(pdp_value_entity(a, "Box::Agent", 10, "self", 4, &p), 0);
    assert_int_equal(
        pdp_value_entity(a, "Box::Resource", 13, "unused", 6, &res), 0);
    assert_int_equal(
        pdp_value_entity(a, "Box::Action", 11, "fs:write", 8, &act), 0);
    assert_int_equal(pdp_value_string(a, path, strlen(path), &pv), 0);
    assert_int_equal(
        pdp_value_entity(a, "Box::FsWriteOperation", 21, op, strlen(op), &ov),
        0);
    assert_int_equal(pdp_value_record_put(a, in, "path", 4, pv), 0);
    assert_int_equal(pdp_value_record_put(a, in, "operation", 9, ov), 0);
    assert_int_equal(pdp_value_record_put(a, ctx, "input", 5, in), 0);
    assert_int_equal(pdp_value_record_put(a, fields, "input", 5, in), 0);
    assert_int_equal(pdp_value_record_put(a, fields, "callerPrincipal", 15, p),
                     0);
    assert_int_equal(pdp_value_record_put(a, fields, "callerResource", 14, res),
                     0);
    pdp_event e = {.ev_action = act,
                   .ev_kind = "request",
                   .ev_ts = ts,
                   .ev_principal = p,
                   .ev_resource = res,
                   .ev_fields = fields,
                   .ev_context = ctx};
    uint64_t ticket;
    assert_int_equal(pdp_hstore_put_event(s, seq, &e, &ticket), BOX_OK);
    assert_int_equal(pdp_hstore_sync(s, ticket), BOX_OK);
    box_arena_free(a);
}

#define WRITE_SRC(cond)                                                        \
    "@id(\"w\") permit (principal, action == Box::Action::\"fs:write\", "      \
    "resource) when { context.input.path like \"~/src/*\"" cond " };\n"

/* A rule on the fs operation, which the log does not keep: cannot tell
 * without the history; decided with it (the box's own history file). */
static void
test_diff_operation(void **state)
{
    (void)state;
    box_proc_result r;
    static const dec writes[] = {
        {"fs:write", "~/src/a.c", "w", 1, NULL, 0},
        {"fs:write", "~/src/run.sh", "w", 1, NULL, 0},
    };
    write_log(at(0, "log.jsonl"), writes, 2);
    box_test_put(at(1, "old.dw"), WRITE_SRC(""));
    box_test_put(at(2, "new.dw"),
                 WRITE_SRC(" && context.input.operation != "
                           "Box::FsWriteOperation::\"set_permissions\""));
    diff(&r, at(1, "old.dw"), at(2, "new.dw"), at(0, "log.jsonl"), NULL, false);
    box_test_expect_status(&r, 1);
    box_test_expect_out(
        &r, "3 decisions replayed: 0 unchanged, 0 change, 2 cannot tell, 1 "
            "skipped (1 control)\n"
            "cannot tell: depends on context.input.operation, which the log "
            "does not record  2 decisions\n"
            "  fs:write  ~/src/a.c  (logged: permit by w; line 3)\n"
            "  fs:write  ~/src/run.sh  (logged: permit by w; line 5)\n");
    box_proc_result_free(&r);
    diff(&r, at(1, "old.dw"), at(2, "new.dw"), at(0, "log.jsonl"), NULL, true);
    box_test_expect_status(&r, 1);
    box_test_expect_out(
        &r, "{\"replayed\":3,\"unchanged\":0,\"changed\":0,\"cannot_tell\":2,"
            "\"skipped\":1,\"skipped_by\":{\"control\":1,\"enforcement\":0,"
            "\"cached\":0,\"pending\":0,\"other\":0},\"changes\":[],"
            "\"cannot_tell_groups\":[{\"reason\":\"depends on "
            "context.input.operation, which the log does not record\","
            "\"count\":2,\"examples\":[{\"line\":3,\"action\":\"fs:write\","
            "\"resource\":\"~/src/a.c\",\"logged\":\"permit\","
            "\"logged_rule\":\"w\",\"detail\":\"\"},{\"line\":5,\"action\":"
            "\"fs:write\",\"resource\":\"~/src/run.sh\",\"logged\":"
            "\"permit\",\"logged_rule\":\"w\",\"detail\":\"\"}]}],"
            "\"warnings\":[]}\n");
    box_proc_result_free(&r);

    pdp_hist *h = pdp_hist_new();
    pdp_hstore_rules rules;
    pdp_hstore *s;
    char *warn, *err;
    assert_int_equal(
        pdp_hstore_open(at(3, "dogwood.history"), h, &rules, &s, &warn, &err),
        BOX_OK);
    // Stamped as box-pdp stamps them: just before the log's records.
    int64_t now = (int64_t)time(NULL);
    put_write(s, 0, "~/src/a.c", "write_content", now - 1);
    put_write(s, 1, "~/src/run.sh", "set_permissions", now);
    pdp_hstore_close(s);
    pdp_hstore_rules_free(&rules);
    pdp_hist_free(h);
    diff(&r, at(1, "old.dw"), at(2, "new.dw"), at(0, "log.jsonl"),
         at(3, "dogwood.history"), false);
    box_test_expect_status(&r, 1);
    box_test_expect_out(
        &r, "3 decisions replayed: 1 unchanged, 1 change, 0 cannot tell, 1 "
            "skipped (1 control)\n"
            "permit → deny  (rule new:<default-deny>)  1 decision\n"
            "  fs:write  ~/src/run.sh  (was: permit by w; line 5)\n");
    box_proc_result_free(&r);

    // The same history as a trace.
    static const char ev[] =
        "@%lld scope(principal: Box::Agent::\"self\", resource: "
        "Box::Resource::\"unused\") request_context(input: {path: "
        "\"~/src/%s\", operation: Box::FsWriteOperation::\"write_content\"}) "
        "Box::Action::\"fs:write\"::request(input: {path: \"~/src/%s\", "
        "operation: Box::FsWriteOperation::\"write_content\"})\n";
    char trace[2048];
    int w = snprintf(trace, sizeof trace, ev, (long long)now - 1, "a.c", "a.c");
    snprintf(trace + w, sizeof trace - (size_t)w, ev, (long long)now, "run.sh",
             "run.sh");
    box_test_put(at(4, "h.trace"), trace);
    diff(&r, at(1, "old.dw"), at(2, "new.dw"), at(0, "log.jsonl"),
         at(4, "h.trace"), false);
    box_test_expect_status(&r, 0);
    box_test_expect_out(&r, "3 decisions replayed: 2 unchanged, 0 change, 0 "
                            "cannot tell, 1 skipped (1 control)\n");
    box_proc_result_free(&r);
}

/* Every bad input: exit 2 and a message naming the file (and line). */
static void
test_diff_bad_inputs(void **state)
{
    (void)state;
    box_proc_result r;
    write_log(at(0, "log.jsonl"), reads, 2);
    box_test_put(at(1, "old.dw"), old_policy);
    box_test_put(at(2, "bad.dw"), READ("x", "context.input.path like"));
    box_test_put(at(3, "bad.jsonl"),
                 "{\"resourceSpans\": []}\n{\"resourceLogs\"");
    box_test_put(at(4, "bad.trace"), "@1 Box::Action::\"fs:read\"::request(\n");
    box_test_put(at(5, "notlog.jsonl"), "[1, 2]\n");
    const struct {
        char *old, *new_, *log, *hist, *err;
    } cases[] = {
        {at(1, "old.dw"), at(6, "missing.dw"), at(0, "log.jsonl"), NULL,
         "strands-box: error: cannot read policy file "},
        {at(2, "bad.dw"), at(1, "old.dw"), at(0, "log.jsonl"), NULL,
         "bad.dw will not load: failed to parse policy source: dogwood "
         "parse: "},
        {at(1, "old.dw"), at(1, "old.dw"), at(3, "bad.jsonl"), NULL,
         "bad.jsonl:2: not a JSON object: the line ends early"},
        {at(1, "old.dw"), at(1, "old.dw"), at(5, "notlog.jsonl"), NULL,
         "notlog.jsonl:1: not an OTLP record"},
        {at(1, "old.dw"), at(1, "old.dw"), at(6, "missing.jsonl"), NULL,
         "cannot read decision log "},
        {at(1, "old.dw"), at(1, "old.dw"), at(0, "log.jsonl"),
         at(4, "bad.trace"), "bad.trace:1:"},
        {at(1, "old.dw"), at(1, "old.dw"), at(0, "log.jsonl"),
         at(6, "missing.history"), "cannot read history "},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        diff(&r, cases[i].old, cases[i].new_, cases[i].log, cases[i].hist,
             false);
        box_test_expect_status(&r, 2);
        box_test_expect_err_has(&r, cases[i].err);
        assert_string_equal(r.pr_out, "");
        box_proc_result_free(&r);
    }
    // The parse error names file:line:col.
    diff(&r, at(2, "bad.dw"), at(1, "old.dw"), at(0, "log.jsonl"), NULL, false);
    box_test_expect_err_has(&r, "bad.dw:1:");
    box_proc_result_free(&r);
    // A usage error: 2, with the usage.
    box_test_cli((char *[]){"policy", "diff", "--old", at(1, "old.dw"), NULL},
                 RUN_MS, &r);
    box_test_expect_status(&r, 2);
    box_test_expect_err_has(&r, "usage: box policy diff --old A.dw");
    box_proc_result_free(&r);
    box_test_cli((char *[]){"policy", "--help", NULL}, RUN_MS, &r);
    box_test_expect_status(&r, 0);
    assert_non_null(strstr(r.pr_out, "box policy diff --old A.dw --new B.dw"));
    box_proc_result_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_diff_changes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_diff_rename, setup, teardown),
        cmocka_unit_test_setup_teardown(test_diff_nothing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_diff_operation, setup, teardown),
        cmocka_unit_test_setup_teardown(test_diff_bad_inputs, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
