/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_dlread and pdp_diff: a log written by the real pdp_dlog
 * read back field for field; each class of change, each thing the log
 * lacks (an fs operation, a redacted argument, the history) reported as
 * cannot tell and decided once the history holds the request; and a box
 * history read without being changed. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "pdp_diff.h"
#include "pdp_dlog.h"
#include "pdp_dlread.h"
#include "pdp_evschema.h"
#include "pdp_hstore.h"

/* ---- fixtures ---- */

/* One decision as box-pdp logs it. */
typedef struct dec {
    const char *action, *resource, *rule;
    int permit;
    const char *const *args; // NULL-terminated, or NULL
    const char *cause;       // default permitted / forbidden
    int cached;
} dec;

/* Writes the decisions (and, with control, a policy_installed record
 * first) with the real writer; returns the log read back. */
static void
write_log(const dec *d, size_t n, bool control, pdp_dlread *out)
{
    char path[] = "/tmp/pdp-diff-test-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    pdp_dlog *l;
    pdp_dlog_ident id = {.di_box_id = "box-0123456789abcdef", .di_run_id = "r"};
    assert_int_equal(pdp_dlog_open(path, &id, 0, &l), BOX_OK);
    if (control)
        assert_int_equal(pdp_dlog_control_add(l, "policy_installed", "ok",
                                              "policy.dw", NULL),
                         BOX_OK);
    for (size_t i = 0; i < n; i++) {
        size_t na = 0;
        while (d[i].args != NULL && d[i].args[na] != NULL)
            na++;
        bool fs = strncmp(d[i].action, "fs:", 3) == 0;
        pdp_dlog_decision x = {
            .dd_action = d[i].action,
            .dd_resource = d[i].resource,
            .dd_permit = d[i].permit,
            .dd_cause = d[i].cause    ? d[i].cause
                        : d[i].permit ? "permitted"
                                      : "forbidden",
            .dd_rule = d[i].rule,
            .dd_determining = &d[i].rule,
            .dd_ndetermining = strcmp(d[i].rule, "<default-deny>") != 0,
            .dd_message = "m",
            .dd_epoch = 1,
            .dd_cached = d[i].cached,
            .dd_file_path = fs ? "/home/op/x" : NULL,
            .dd_process_command = na > 0 ? d[i].args[0] : NULL,
            .dd_command_args = d[i].args,
            .dd_ncommand_args = na,
            .dd_working_directory = na > 0 ? "/w" : NULL,
        };
        assert_int_equal(pdp_dlog_decision_add(l, &x), BOX_OK);
    }
    pdp_dlog_close(l);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    static char text[1 << 20];
    size_t len = fread(text, 1, sizeof text, f);
    fclose(f);
    unlink(path);
    box_buf err;
    box_buf_init(&err, 4096);
    assert_int_equal(pdp_dlread_load(text, len, "log", out, &err), BOX_OK);
    box_buf_reset(&err);
}

static pdp_policy_set *
load(const char *text)
{
    pdp_evschema *es = NULL;
    box_buf msg;
    box_buf_init(&msg, 4096);
    assert_int_equal(pdp_evschema_load_builtin(PDP_EVSCHEMA_BOX, &es, &msg),
                     BOX_OK);
    box_buf_reset(&msg);
    pdp_policy_set *set = NULL;
    char *err = NULL;
    box_err rv = pdp_policy_load_events(text, strlen(text), "t.dw", NULL, es,
                                        &set, NULL, &err);
    if (rv != BOX_OK)
        fail_msg("policy does not load: %s", err ? err : "");
    pdp_evschema_free(es);
    return set;
}

/* Replays log on the two policy texts; the items stay valid until the
 * sets are freed, which the caller does with done(). */
typedef struct replay {
    pdp_policy_set *old, *new_;
    pdp_diff_result res;
    pdp_diff_item *items;
    size_t n;
} replay;

static void
replay_run(replay *r, const char *old, const char *new_, const pdp_dlread *log,
           const pdp_hist *h)
{
    r->old = load(old);
    r->new_ = load(new_);
    pdp_diff_in in = {
        .dn_old = r->old, .dn_new = r->new_, .dn_log = log, .dn_hist = h};
    assert_int_equal(pdp_diff_run(&in, &r->res), BOX_OK);
    r->items = r->res.rs_items;
    r->n = r->res.rs_n;
    assert_int_equal(r->n, log->dl_n);
}

static void
replay_done(replay *r)
{
    pdp_diff_result_free(&r->res);
    pdp_policy_free(r->old);
    pdp_policy_free(r->new_);
}

static const char *
rule_id(const pdp_rule *r)
{
    static char buf[128];
    pdp_str id = r ? pdp_rule_display_id(r) : (pdp_str){"<default-deny>", 14};
    snprintf(buf, sizeof buf, "%.*s", (int)id.len, id.s);
    return buf;
}

#define READ(id, cond)                                                         \
    "@id(\"" id "\") permit (principal, action == Box::Action::\"fs:read\", "  \
    "resource) when { " cond " };\n"

/* ---- pdp_dlread ---- */

static void
test_dlread_fields(void **state)
{
    (void)state;
    static const char *const args[] = {"grep", "-n", "<redacted>", NULL};
    dec d[] = {
        {"shell:exec", "grep", "policy_2", 1, args, NULL, 0},
        {"fs:read", "~/src/a.c", "<default-deny>", 0, NULL, "no_match", 1},
    };
    pdp_dlread log;
    write_log(d, 2, true, &log);
    assert_int_equal(log.dl_n, 3);
    const pdp_dlrec *c = &log.dl_recs[0], *s = &log.dl_recs[1],
                    *f = &log.dl_recs[2];
    assert_int_equal(c->dr_kind, PDP_DLREC_CONTROL);
    assert_string_equal(c->dr_operation, "policy_installed");
    assert_int_equal(c->dr_line, 1);
    assert_int_equal(s->dr_kind, PDP_DLREC_DECISION);
    assert_int_equal(s->dr_line, 3); // line 2: the control record's span
    assert_true(s->dr_has_ts && s->dr_ts > 1600000000);
    assert_string_equal(s->dr_action, "shell:exec");
    assert_string_equal(s->dr_resource, "grep");
    assert_string_equal(s->dr_verdict, "permit");
    assert_string_equal(s->dr_cause, "permitted");
    assert_string_equal(s->dr_rule, "policy_2");
    assert_int_equal(s->dr_ndetermining, 1);
    assert_string_equal(s->dr_determining[0], "policy_2");
    assert_string_equal(s->dr_command, "grep");
    assert_int_equal(s->dr_nargs, 3);
    assert_string_equal(s->dr_args[2], "<redacted>");
    assert_string_equal(s->dr_cwd, "/w");
    assert_true(s->dr_has_epoch && s->dr_epoch == 1);
    assert_false(s->dr_cached);
    assert_string_equal(f->dr_verdict, "deny");
    assert_string_equal(f->dr_file_path, "/home/op/x");
    assert_true(f->dr_cached);
    assert_null(f->dr_command);
    pdp_dlread_free(&log);
}

static void
test_dlread_refusals(void **state)
{
    (void)state;
    static const struct {
        const char *text, *msg;
    } cases[] = {
        {"\n{\"resourceLogs\": [", "f:2: not a JSON object: the line ends "
                                   "early"},
        {"{} x", "f:1: not a JSON object: text after the object"},
        {"{\"a\": 1}", "f:1: not an OTLP record (no resourceLogs, "
                       "resourceSpans or resourceMetrics)"},
        {"{\"resourceLogs\":[{\"scopeLogs\":[{\"scope\":{\"name\":"
         "\"strands-box.policy\"},\"logRecords\":[{\"attributes\":[{\"key\":"
         "\"strands.box.policy.action\",\"value\":{\"stringValue\":\"fs:read\""
         "}},{\"key\":\"strands.box.policy.verdict\",\"value\":{"
         "\"stringValue\":\"maybe\"}}]}]}]}]}",
         "f:1: a decision record whose strands.box.policy.verdict is not "
         "permit or deny"},
        {"{\"resourceLogs\":[{\"scopeLogs\":[{\"scope\":{\"name\":"
         "\"strands-box.policy\"},\"logRecords\":[{\"attributes\":[]}]}]}]}",
         "f:1: a decision record without strands.box.policy.action"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        pdp_dlread log;
        box_buf err;
        box_buf_init(&err, 4096);
        assert_int_equal(pdp_dlread_load(cases[i].text, strlen(cases[i].text),
                                         "f", &log, &err),
                         BOX_EPARSE);
        assert_string_equal(err.b_data, cases[i].msg);
        box_buf_reset(&err);
        pdp_dlread_free(&log);
    }
    // Spans, metrics and blank lines are no error.
    const char *ok = "\n  \n{\"resourceSpans\":[]}\n{\"resourceMetrics\":[]}";
    pdp_dlread log;
    box_buf err;
    box_buf_init(&err, 4096);
    assert_int_equal(pdp_dlread_load(ok, strlen(ok), "f", &log, &err), BOX_OK);
    assert_int_equal(log.dl_n, 2);
    assert_int_equal(log.dl_recs[0].dr_kind, PDP_DLREC_OTHER);
    assert_int_equal(log.dl_recs[1].dr_line, 4);
    box_buf_reset(&err);
    pdp_dlread_free(&log);

    // box-pdp's own spans go with their records, an agent's are records.
    const char *spans =
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"scope\":{\"name\":"
        "\"strands-box.policy\"},\"spans\":[]}]}]}\n"
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"scope\":{\"name\":"
        "\"strands-box.control\"},\"spans\":[]}]}]}\n"
        "{\"resourceSpans\":[{\"scopeSpans\":[{\"scope\":{\"name\":"
        "\"my-agent\"},\"spans\":[]}]}]}\n";
    box_buf_init(&err, 4096);
    assert_int_equal(pdp_dlread_load(spans, strlen(spans), "f", &log, &err),
                     BOX_OK);
    assert_int_equal(log.dl_n, 1);
    assert_int_equal(log.dl_recs[0].dr_kind, PDP_DLREC_OTHER);
    assert_int_equal(log.dl_recs[0].dr_line, 3);
    box_buf_reset(&err);
    pdp_dlread_free(&log);
}

/* ---- pdp_diff ---- */

static const char old_policy[] =
    READ("read-src",
         "context.input.path like \"~/src/*\"") "@id(\"ls\") permit "
                                                "(principal, action == "
                                                "Box::Action::\"shell:exec\", "
                                                "resource) when { "
                                                "context.input.program == "
                                                "\"ls\" };\n";

static void
test_diff_classes(void **state)
{
    (void)state;
    dec d[] = {
        {"fs:read", "~/src/a.c", "read-src", 1, NULL, NULL, 0},
        {"fs:read", "~/src/secret.key", "read-src", 1, NULL, NULL, 0},
        {"fs:read", "/tmp/t", "<default-deny>", 0, NULL, "no_match", 0},
        {"fs:read", "~/src/b.c", "reach-floor", 0, NULL, "enforcement", 0},
        {"fs:read", "/etc/passwd", "<cached-permit>", 1, NULL, "cached", 1},
        {"fs:read", "/opt/x", "read-src", 1, NULL, NULL, 0}, // not ours
        {"fs:read", "~/src/c.c", "<default-deny>", 0, NULL, "policy_pending",
         0},
    };
    d[3].rule = "enforcement:reach-floor";
    pdp_dlread log;
    write_log(d, 7, true, &log);
    replay r;
    replay_run(
        &r, old_policy,
        READ("read-src", "context.input.path like \"~/src/*\"") READ(
            "read-tmp",
            "context.input.path like \"/tmp/*\"") "@id(\"no-keys\") forbid "
                                                  "(principal, action, "
                                                  "resource) when { "
                                                  "context.input has path && "
                                                  "context.input.path like "
                                                  "\"*.key\" };\n",
        &log, NULL);
    const pdp_diff_item *it = r.items;
    assert_int_equal(it[0].di_class, PDP_DIFF_SKIPPED);
    assert_int_equal(it[0].di_skip, PDP_DIFF_SKIP_CONTROL);
    assert_int_equal(it[1].di_class, PDP_DIFF_UNCHANGED);
    assert_int_equal(it[2].di_class, PDP_DIFF_CHANGED); // permit → deny
    assert_int_equal(it[2].di_old.ds_verdict, PDP_ALLOW);
    assert_int_equal(it[2].di_new.ds_verdict, PDP_DENY);
    assert_string_equal(rule_id(it[2].di_new.ds_rule), "no-keys");
    assert_int_equal(it[3].di_class, PDP_DIFF_CHANGED); // deny → permit
    assert_string_equal(rule_id(it[3].di_old.ds_rule), "<default-deny>");
    assert_string_equal(rule_id(it[3].di_new.ds_rule), "read-tmp");
    assert_int_equal(it[4].di_skip, PDP_DIFF_SKIP_ENFORCEMENT);
    assert_int_equal(it[5].di_skip, PDP_DIFF_SKIP_CACHED);
    assert_int_equal(it[6].di_class, PDP_DIFF_UNKNOWN);
    assert_string_equal(it[6].di_why,
                        "old policy does not reproduce the logged verdict");
    assert_string_equal(it[6].di_detail, "logged: permit by read-src; old "
                                         "policy: deny by <default-deny>");
    assert_int_equal(it[7].di_skip, PDP_DIFF_SKIP_PENDING);
    replay_done(&r);

    // A rename: same verdict, another rule; an edit of a rule without
    // @id where it stands is the same rule.
    replay_run(
        &r, old_policy,
        READ("read-source",
             "context.input.path like \"~/src/*\"") "@id(\"ls\") permit "
                                                    "(principal, action == "
                                                    "Box::Action::\"shell:"
                                                    "exec\", resource) when { "
                                                    "context.input.program == "
                                                    "\"ls\" };\n",
        &log, NULL);
    assert_int_equal(r.items[1].di_class, PDP_DIFF_CHANGED);
    assert_int_equal(r.items[1].di_new.ds_verdict, PDP_ALLOW);
    assert_string_equal(rule_id(r.items[1].di_new.ds_rule), "read-source");
    replay_done(&r);

    // The same policy: nothing changes.
    replay_run(&r, old_policy, old_policy, &log, NULL);
    for (size_t i = 0; i < 8; i++)
        assert_int_not_equal(r.items[i].di_class, PDP_DIFF_CHANGED);
    replay_done(&r);
    pdp_dlread_free(&log);
}

static void
test_same_rule(void **state)
{
    (void)state;
    pdp_policy_set *a = load("permit (principal, action, resource) when { "
                             "context.input has x };\n"
                             "forbid (principal, action, resource);\n");
    pdp_policy_set *b = load("@id(\"n\") permit (principal, action, "
                             "resource);\n"
                             "permit (principal, action, resource) when { "
                             "context.input has x };\n"
                             "forbid (principal, action, resource) when { "
                             "true };\n");
    // Moved, same text.
    assert_true(
        pdp_diff_same_rule(pdp_policy_rule(a, 0), pdp_policy_rule(b, 1)));
    // Moved and edited.
    assert_false(
        pdp_diff_same_rule(pdp_policy_rule(a, 1), pdp_policy_rule(b, 2)));
    // @id against none; none against <default-deny>.
    assert_false(
        pdp_diff_same_rule(pdp_policy_rule(a, 0), pdp_policy_rule(b, 0)));
    assert_false(pdp_diff_same_rule(pdp_policy_rule(a, 0), NULL));
    assert_true(pdp_diff_same_rule(NULL, NULL));
    pdp_policy_free(a);
    pdp_policy_free(b);
}

/* The command line is rebuilt when every word is in the log; a redacted
 * one leaves command unknown (an error on it: cannot tell) and arg1 too
 * (a rule that reads it: cannot tell). */
static void
test_diff_shell_args(void **state)
{
    (void)state;
    static const char *const plain[] = {"ls", "-l", "src", NULL};
    static const char *const hidden[] = {"ls", "<redacted>", NULL};
    dec d[] = {
        {"shell:exec", "ls", "ls", 1, plain, NULL, 0},
        {"shell:exec", "ls", "ls", 1, hidden, NULL, 0},
    };
    pdp_dlread log;
    write_log(d, 2, false, &log);
    replay r;
    replay_run(
        &r, old_policy,
        "@id(\"ls\") permit (principal, action == "
        "Box::Action::\"shell:exec\", resource) when { "
        "context.input.command == \"ls -l src\" && "
        "context.input.arg_count == 2 && context.input.cwd == \"/w\" };\n",
        &log, NULL);
    assert_int_equal(r.items[0].di_class, PDP_DIFF_UNCHANGED);
    assert_int_equal(r.items[1].di_class, PDP_DIFF_UNKNOWN);
    assert_string_equal(r.items[1].di_why, "depends on context.input.command, "
                                           "which the log does not record");
    replay_done(&r);

    replay_run(&r, old_policy,
               "@id(\"ls\") permit (principal, action == "
               "Box::Action::\"shell:exec\", resource) when { "
               "context.input.program == \"ls\" && !(context.input has arg1 "
               "&& context.input.arg1 == \"-R\") };\n",
               &log, NULL);
    assert_int_equal(r.items[0].di_class, PDP_DIFF_UNCHANGED);
    assert_int_equal(r.items[1].di_class, PDP_DIFF_UNKNOWN);
    assert_string_equal(r.items[1].di_why, "may depend on context.input.arg1, "
                                           "which the log does not record");
    replay_done(&r);
    pdp_dlread_free(&log);
}

/* One ::request event of fs:write on path, operation op, at ts. */
static void
hist_put(pdp_hist *h, const char *path, const char *op, int64_t ts)
{
    box_arena *a = pdp_hist_arena(h);
    assert_non_null(a);
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
    pdp_event e = {.ev_action = act,
                   .ev_kind = "request",
                   .ev_ts = ts,
                   .ev_principal = p,
                   .ev_resource = res,
                   .ev_fields = fields,
                   .ev_context = ctx};
    assert_int_equal(pdp_hist_append(h, &e), BOX_OK);
}

#define WRITE_SRC(cond)                                                        \
    "@id(\"w\") permit (principal, action == Box::Action::\"fs:write\", "      \
    "resource) when { context.input.path like \"~/src/*\"" cond " };\n"

/* A temporal rule that never fires but reads fs:write events: a box
 * under it keeps them in its history. */
#define CAP100                                                                 \
    "@id(\"cap\") forbid (principal, action == Box::Action::\"fs:write\", "    \
    "resource) when temporal { (count for (t: Timepoint). where formerly "     \
    "within 1m (Box::Action::\"fs:write\"::request{} && tp(t))) > 100 };\n"

/* A rule on the fs operation cannot be told from the log alone, and is
 * decided with the history's own event; so is a temporal rule. */
static void
test_diff_operation_and_history(void **state)
{
    (void)state;
    dec d[] = {
        {"fs:write", "~/src/a.c", "w", 1, NULL, NULL, 0},
        {"fs:write", "~/src/b.c", "w", 1, NULL, NULL, 0},
    };
    pdp_dlread log;
    write_log(d, 2, false, &log);
    const char *no_chmod =
        WRITE_SRC(" && context.input.operation != "
                  "Box::FsWriteOperation::\"set_permissions\"");
    replay r;
    replay_run(&r, WRITE_SRC(""), no_chmod, &log, NULL);
    assert_int_equal(r.items[0].di_class, PDP_DIFF_UNKNOWN);
    assert_string_equal(r.items[0].di_why,
                        "depends on context.input.operation, which the log "
                        "does not record");
    replay_done(&r);

    pdp_hist *h = pdp_hist_new();
    assert_non_null(h);
    // Stamped as box-pdp stamps them: just before the log's records
    // (written after the decision).
    int64_t now = (int64_t)time(NULL);
    hist_put(h, "~/src/a.c", "write_content", now - 1);
    hist_put(h, "~/src/b.c", "set_permissions", now);
    replay_run(&r, WRITE_SRC(""), no_chmod, &log, h);
    assert_int_equal(r.items[0].di_class, PDP_DIFF_UNCHANGED);
    assert_true(r.items[0].di_from_history);
    assert_int_equal(r.items[1].di_class, PDP_DIFF_CHANGED);
    assert_int_equal(r.items[1].di_new.ds_verdict, PDP_DENY);
    replay_done(&r);

    // A temporal rule: "at most one write a minute". Without the history
    // it cannot be told; with it, the second write is the one refused.
    const char *cap = WRITE_SRC(
        "") "@id(\"one-a-minute\") forbid (principal, action == "
            "Box::Action::\"fs:write\", resource) when temporal { previous "
            "within 1m Box::Action::\"fs:write\"::request{} };\n";
    replay_run(&r, WRITE_SRC(""), cap, &log, NULL);
    assert_int_equal(r.items[1].di_class, PDP_DIFF_UNKNOWN);
    assert_string_equal(r.items[1].di_why,
                        "depends on the history (a temporal condition), and "
                        "no history was given");
    replay_done(&r);
    // The history was kept under a policy that reads fs:write events.
    replay_run(&r, WRITE_SRC("") CAP100, cap, &log, h);
    assert_int_equal(r.items[0].di_class, PDP_DIFF_UNCHANGED);
    assert_int_equal(r.items[1].di_class, PDP_DIFF_CHANGED);
    assert_string_equal(rule_id(r.items[1].di_new.ds_rule), "one-a-minute");
    replay_done(&r);
    pdp_hist_free(h);

    // An event an hour older than the decisions is not theirs.
    h = pdp_hist_new();
    hist_put(h, "~/src/a.c", "write_content", now - 3600);
    replay_run(&r, WRITE_SRC(""), no_chmod, &log, h);
    assert_int_equal(r.items[0].di_class, PDP_DIFF_UNKNOWN);
    assert_false(r.items[0].di_from_history);
    replay_done(&r);
    pdp_hist_free(h);
    pdp_dlread_free(&log);
}

/* An operation the log does not keep is tried with each of its values;
 * those the old policy does not answer as logged are not what the box
 * saw. Here a deny under "no chmod" can only have been a chmod, so
 * allowing chmod changes it for certain. */
static void
test_diff_operation_inferred(void **state)
{
    (void)state;
    dec d[] = {
        {"fs:write", "~/src/run.sh", "<default-deny>", 0, NULL, "no_match", 0},
        {"fs:write", "~/src/a.c", "w", 1, NULL, NULL, 0},
    };
    pdp_dlread log;
    write_log(d, 2, false, &log);
    const char *no_chmod =
        WRITE_SRC(" && context.input.operation != "
                  "Box::FsWriteOperation::\"set_permissions\"");
    replay r;
    replay_run(&r, no_chmod, WRITE_SRC(""), &log, NULL);
    assert_int_equal(r.items[0].di_class, PDP_DIFF_CHANGED);
    assert_int_equal(r.items[0].di_new.ds_verdict, PDP_ALLOW);
    // a.c was permitted: not a chmod, so allowing chmod changes nothing.
    assert_int_equal(r.items[1].di_class, PDP_DIFF_UNCHANGED);
    replay_done(&r);
    // Each value tried is there: `has operation` reads true, as in the
    // box.
    replay_run(&r, WRITE_SRC(""),
               WRITE_SRC(" && !(context.input has operation)"), &log, NULL);
    assert_int_equal(r.items[1].di_class, PDP_DIFF_CHANGED); // all denied
    replay_done(&r);
    // A has-guard on a field the log lacks and that has too many values
    // to try would read false without an error: cannot tell, never
    // unchanged.
    static const char *const args[] = {"curl", "<redacted>", NULL};
    dec c[] = {{"shell:exec", "curl", "policy_0", 1, args, NULL, 0}};
    pdp_dlread clog;
    write_log(c, 1, false, &clog);
    const char *any_exec = "permit (principal, action == "
                           "Box::Action::\"shell:exec\", resource);\n";
    replay_run(&r, any_exec,
               "permit (principal, action == Box::Action::\"shell:exec\", "
               "resource) unless { context.input has command && "
               "context.input.command like \"*secret*\" };\n",
               &clog, NULL);
    assert_int_equal(r.items[0].di_class, PDP_DIFF_UNKNOWN);
    assert_string_equal(r.items[0].di_why, "may depend on "
                                           "context.input.command, which the "
                                           "log does not record");
    replay_done(&r);
    pdp_dlread_free(&clog);

    // An action the table does not know (an MCP tool's): all of its
    // input is unknown.
    dec t[] = {{"gh::Action::\"create_issue\"", "gh/create_issue", "tools", 1,
                NULL, NULL, 0}};
    write_log(t, 1, false, &clog);
    const char *tools = "@id(\"tools\") permit (principal, action == "
                        "gh::Action::\"create_issue\", resource);\n";
    replay_run(&r, tools,
               "@id(\"tools\") permit (principal, action == "
               "gh::Action::\"create_issue\", resource) when { "
               "context.input.repo == \"box\" };\n",
               &clog, NULL);
    assert_int_equal(r.items[0].di_class, PDP_DIFF_UNKNOWN);
    assert_string_equal(r.items[0].di_why, "depends on context.input.repo, "
                                           "which the log does not record");
    replay_done(&r);
    replay_run(&r, tools, tools, &clog, NULL);
    assert_int_equal(r.items[0].di_class, PDP_DIFF_UNCHANGED);
    replay_done(&r);
    pdp_dlread_free(&clog);
    pdp_dlread_free(&log);
}

/* The actions a new temporal rule reads that the old policy's history
 * was not kept for. */
static void
test_unrecorded(void **state)
{
    (void)state;
    pdp_policy_set *old = load(WRITE_SRC(""));
    pdp_policy_set *new_ = load(
        WRITE_SRC("") "@id(\"read-first\") forbid (principal, action == "
                      "Box::Action::\"fs:write\", resource) unless temporal "
                      "{ formerly within 10m Box::Action::\"fs:read\"::"
                      "request{ input.path: context.input.path } };\n");
    const char *acts[8];
    size_t n = pdp_diff_unrecorded(old, new_, acts, 8);
    assert_int_equal(n, 2);
    assert_string_equal(acts[0], "fs:read");
    assert_string_equal(acts[1], "fs:write");
    assert_int_equal(pdp_diff_unrecorded(new_, new_, acts, 8), 0);
    assert_int_equal(pdp_diff_unrecorded(new_, old, acts, 8), 0);
    pdp_policy_free(old);
    pdp_policy_free(new_);

    // A history kept under a policy that reads fs:write events only: a
    // new rule over fs:read events cannot be decided over it, even for a
    // write the history holds.
    const char *caps = WRITE_SRC("") CAP100;
    dec d[] = {{"fs:write", "~/src/a.c", "w", 1, NULL, NULL, 0}};
    pdp_dlread log;
    write_log(d, 1, false, &log);
    pdp_hist *h = pdp_hist_new();
    hist_put(h, "~/src/a.c", "write_content", (int64_t)time(NULL));
    replay r;
    replay_run(&r, caps,
               "@id(\"read-first\") forbid (principal, action == "
               "Box::Action::\"fs:write\", resource) unless temporal { "
               "formerly within 10m Box::Action::\"fs:read\"::request{ "
               "input.path: context.input.path } };\n" WRITE_SRC(""),
               &log, h);
    assert_true(r.items[0].di_from_history);
    assert_int_equal(r.items[0].di_class, PDP_DIFF_UNKNOWN);
    assert_string_equal(r.items[0].di_why,
                        "depends on the history of fs:read events, which the "
                        "history does not hold (the old policy did not read "
                        "them)");
    replay_done(&r);
    replay_run(&r, caps, caps, &log, h);
    assert_int_equal(r.items[0].di_class, PDP_DIFF_UNCHANGED);
    replay_done(&r);
    pdp_hist_free(h);
    pdp_dlread_free(&log);
}

/* A temporal rule installed in the box after some events saw none of
 * them: the old policy is replayed with what each rule saw (the history
 * file's rules record), the new one with everything. */
static void
test_old_since(void **state)
{
    (void)state;
    const char *cap =
        WRITE_SRC("") "@id(\"one-a-minute\") forbid (principal, action == "
                      "Box::Action::\"fs:write\", resource) when temporal { "
                      "previous within 1m Box::Action::\"fs:write\"::"
                      "request{} };\n";
    dec d[] = {
        {"fs:write", "~/src/a.c", "w", 1, NULL, NULL, 0},
        {"fs:write", "~/src/b.c", "w", 1, NULL, NULL, 0},
    };
    pdp_dlread log;
    write_log(d, 2, false, &log);
    pdp_hist *h = pdp_hist_new();
    int64_t now = (int64_t)time(NULL);
    hist_put(h, "~/src/a.c", "write_content", now - 1);
    hist_put(h, "~/src/b.c", "write_content", now);

    // Without what each rule saw, b.c reads as refused by the cap.
    replay r;
    replay_run(&r, cap, cap, &log, h);
    assert_int_equal(r.items[1].di_class, PDP_DIFF_UNKNOWN);
    assert_string_equal(r.items[1].di_why,
                        "old policy does not reproduce the logged verdict");
    replay_done(&r);

    // The cap came in at event 1: it never saw a.c.
    pdp_policy_set *old = load(cap);
    box_buf b;
    box_buf_init(&b, 1 << 20);
    assert_int_equal(pdp_rule_dump(pdp_policy_rule(old, 1), &b), BOX_OK);
    pdp_hstore_rule rr[] = {{b.b_data, 1}};
    pdp_hstore_rules rules = {rr, 1};
    uint64_t *since = NULL;
    assert_int_equal(pdp_diff_since(old, &rules, &since), BOX_OK);
    assert_int_equal(since[0], 0);
    assert_int_equal(since[1], 1);
    pdp_policy_set *new_ = load(WRITE_SRC(""));
    pdp_diff_in in = {.dn_old = old,
                      .dn_new = new_,
                      .dn_log = &log,
                      .dn_hist = h,
                      .dn_old_since = since};
    pdp_diff_result res;
    assert_int_equal(pdp_diff_run(&in, &res), BOX_OK);
    assert_int_equal(res.rs_items[0].di_class, PDP_DIFF_UNCHANGED);
    assert_int_equal(res.rs_items[1].di_class, PDP_DIFF_UNCHANGED);
    pdp_diff_result_free(&res);
    box_free(since);
    box_buf_reset(&b);
    pdp_policy_free(old);
    pdp_policy_free(new_);
    pdp_hist_free(h);
    pdp_dlread_free(&log);
}

/* pdp_hstore_read replays a box's history file and leaves it as it was,
 * a torn tail included. */
static void
test_hstore_read_only(void **state)
{
    (void)state;
    char path[] = "/tmp/pdp-diff-hist-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    close(fd);
    unlink(path);
    pdp_hist *src = pdp_hist_new();
    hist_put(src, "~/src/a.c", "write_content", 5);
    pdp_hist *h = pdp_hist_new();
    pdp_hstore_rules rules;
    pdp_hstore *s;
    char *warn, *err;
    assert_int_equal(pdp_hstore_open(path, h, &rules, &s, &warn, &err), BOX_OK);
    uint64_t ticket;
    assert_int_equal(pdp_hstore_put_event(s, 0, pdp_hist_at(src, 0), &ticket),
                     BOX_OK);
    assert_int_equal(pdp_hstore_sync(s, ticket), BOX_OK);
    pdp_hstore_close(s);
    pdp_hist_free(h);
    FILE *f = fopen(path, "ab");
    fputs("torn", f);
    fclose(f);
    struct stat before, after;
    assert_int_equal(stat(path, &before), 0);

    h = pdp_hist_new();
    pdp_hstore_rules got;
    assert_int_equal(pdp_hstore_read(path, h, &got, &warn, &err), BOX_OK);
    assert_int_equal(got.hs_n, 0);
    assert_int_equal(pdp_hist_len(h), 1);
    assert_non_null(warn);
    assert_non_null(strstr(warn, "was not read"));
    assert_int_equal(stat(path, &after), 0);
    assert_int_equal(before.st_size, after.st_size);
    box_free(warn);
    pdp_hist_free(h);

    h = pdp_hist_new();
    assert_int_equal(pdp_hstore_read("/nonexistent/h", h, &got, &warn, &err),
                     BOX_EIO);
    assert_non_null(strstr(err, "cannot open the history /nonexistent/h"));
    box_free(err);
    pdp_hist_free(h);
    pdp_hstore_rules_free(&rules);
    pdp_hist_free(src);
    unlink(path);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_dlread_fields),
        cmocka_unit_test(test_dlread_refusals),
        cmocka_unit_test(test_diff_classes),
        cmocka_unit_test(test_same_rule),
        cmocka_unit_test(test_diff_shell_args),
        cmocka_unit_test(test_diff_operation_and_history),
        cmocka_unit_test(test_diff_operation_inferred),
        cmocka_unit_test(test_unrecorded),
        cmocka_unit_test(test_old_since),
        cmocka_unit_test(test_hstore_read_only),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
