/* SPDX-License-Identifier: Apache-2.0 */
/* box-pdp as a real process: decisions, batches, the decision log, reload,
 * epochs and the client cache, fail-closed behaviour, and a concurrent
 * reload storm. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nng/nng.h>
#include <nng/protocol/pubsub0/pub.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_control.h"
#include "box_pdp_client.h"
#include "box_rpc.h"
#include "box_wire.h"
#include "box_proc.h"
#include "box_testutil.h"
#include "box_req.h"
#include "box_svc.h"

typedef struct fx {
    char dir[256];
    char policy[300];
    char log[300];
    char url[300];
    char pub[300];
    box_proc proc;
    box_pdp_client *client;
    _Atomic uint64_t valid; // the client's validity word (co_valid)
} fx;

static const char permit_all_exec[] =
    "@id(\"exec\") permit (principal, action == Box::Action::\"shell:exec\", "
    "resource);\n"
    "@id(\"reads\") permit (principal, action == Box::Action::\"fs:read\", "
    "resource) when { context.input.path like \"/w/*\" };\n"
    "@id(\"no_env\") @description(\"Secrets in .env stay unread.\")\n"
    "forbid (principal, action == Box::Action::\"fs:read\", resource) when { "
    "context.input.path like \"*/.env\" };\n";

static const char forbid_exec[] =
    "@id(\"no_exec\") @description(\"No commands now.\")\n"
    "forbid (principal, action == Box::Action::\"shell:exec\", resource);\n"
    "permit (principal, action, resource);\n";

static void
write_file(const char *path, const char *text)
{
    char tmp[400];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    assert_int_equal(rename(tmp, path), 0);
}

/* Starts program (box-pdp, or a test build of it) on a fresh directory. */
static void
fx_start_prog(fx *f, const char *program, const char *policy_text,
              int timeout_ms)
{
    memset(f, 0, sizeof *f);
    snprintf(f->dir, sizeof f->dir, "/tmp/box-pdpt-XXXXXX");
    assert_non_null(mkdtemp(f->dir));
    snprintf(f->policy, sizeof f->policy, "%s/policy.dw", f->dir);
    snprintf(f->log, sizeof f->log, "%s/records.jsonl", f->dir);
    snprintf(f->url, sizeof f->url, "ipc://%s/pdp.sock", f->dir);
    snprintf(f->pub, sizeof f->pub, "ipc://%s/pdp-epoch.sock", f->dir);
    write_file(f->policy, policy_text);
    char bin[4096];
    box_proc_bin(bin, sizeof bin, program);
    char *argv[] = {bin,
                    "--listen",
                    f->url,
                    "--epoch-pub",
                    f->pub,
                    "--policy",
                    f->policy,
                    "--log",
                    f->log,
                    "--box-id",
                    "box-0123456789abcdef",
                    NULL};
    assert_true(box_proc_start(&f->proc, argv, NULL));
    Box__HealthResponse *h = box_wait_pdp(f->url, 60000);
    assert_non_null(h);
    assert_true(h->epoch > 0);
    box__health_response__free_unpacked(h, NULL);
    box_pdp_client_opts o = {.co_url = f->url,
                             .co_epoch_url = f->pub,
                             .co_timeout_ms = timeout_ms,
                             .co_cache_slots = 1024,
                             .co_valid = &f->valid};
    assert_int_equal(box_pdp_client_open(&o, &f->client), BOX_OK);
    for (int i = 0; i < 500 && !box_pdp_client_cache_live(f->client); i++)
        usleep(10000);
    assert_true(box_pdp_client_cache_live(f->client));
}

static void
fx_start(fx *f, const char *policy_text, int timeout_ms)
{
    fx_start_prog(f, "box-pdp", policy_text, timeout_ms);
}

/* Stops box-pdp (it must exit 0) and returns the decision log; *stderr_out,
 * when not NULL, gets what box-pdp wrote to stderr. Both the caller's. */
static char *
fx_stop_err(fx *f, char **stderr_out)
{
    box_pdp_client_close(f->client);
    kill(f->proc.bp_pid, SIGCONT);
    kill(f->proc.bp_pid, SIGTERM);
    box_proc_result r;
    box_proc_finish(&f->proc, 10000, &r);
    assert_false(r.pr_timeout);
    assert_int_equal(r.pr_status, 0);
    char *err = r.pr_err;
    box_free(r.pr_out);
    if (stderr_out != NULL) {
        *stderr_out = err;
        err = NULL;
    }
    // The log, for the caller to inspect; then clean up.
    FILE *lf = fopen(f->log, "r");
    char *log = box_strdup("");
    if (lf != NULL) {
        fseek(lf, 0, SEEK_END);
        long n = ftell(lf);
        fseek(lf, 0, SEEK_SET);
        box_free(log);
        log = box_calloc(1, (size_t)n + 1);
        assert_int_equal(fread(log, 1, (size_t)n, lf), (size_t)n);
        fclose(lf);
    }
    box_free(err);
    box_test_rmtree(f->dir);
    return log;
}

static char *
fx_stop(fx *f)
{
    return fx_stop_err(f, NULL);
}

/* Occurrences of needle, searched line by line: a log of a hundred MB
 * searched with strstr from each hit costs quadratic time under ASan,
 * whose strstr measures the whole remaining text on every call. */
static size_t
count(const char *hay, const char *needle)
{
    size_t n = 0, nl = strlen(needle);
    const char *end = hay + strlen(hay);
    for (const char *line = hay; line < end;) {
        const char *eol = memchr(line, '\n', (size_t)(end - line));
        if (eol == NULL)
            eol = end;
        for (const char *p = line;
             (p = memmem(p, (size_t)(eol - p), needle, nl)) != NULL; p++)
            n++;
        line = eol + 1;
    }
    return n;
}

static void
test_decisions_messages_and_log(void **state)
{
    (void)state;
    fx f;
    fx_start(&f, permit_all_exec, 2000);
    box_req q;
    box_pdp_answer a;

    box_req_exec(&q, "echo", "echo hello", 1, "/w");
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
    assert_false(a.pa_from_cache);
    assert_string_equal(a.pa_message,
                        "policy permitted this operation on 'echo'.");
    assert_string_equal(a.pa_rules, "exec");
    box_pdp_answer_clear(&a);

    // Same request again: a cache hit, no message.
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
    assert_true(a.pa_from_cache);
    box_pdp_answer_clear(&a);

    box_req_fs(&q, "fs:read", "Box::FsReadOperation", "read_content",
               "/w/.env");
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_DENY);
    assert_int_equal(a.pa_reason, BOX__REASON_CLASS__REASON_FORBIDDEN);
    assert_string_equal(a.pa_message,
                        "policy denied this operation on '/w/.env' [policy: "
                        "no_env]: Secrets in .env stay unread.");
    box_pdp_answer_clear(&a);

    box_req_fs(&q, "fs:write", "Box::FsWriteOperation", "write_content",
               "/w/todo.txt");
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_DENY);
    assert_int_equal(a.pa_reason, BOX__REASON_CLASS__REASON_NO_MATCH);
    assert_string_equal(
        a.pa_message, "policy denied this operation on '/w/todo.txt' "
                      "[default-deny]: No permit policy matched this request.");
    box_pdp_answer_clear(&a);

    // A malformed request (input not a record) fails closed.
    box_req_exec(&q, "echo", "echo", 0, "/w");
    q.r_input.kind_case = BOX__VALUE__KIND_STR;
    q.r_input.str = "not a record";
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_DENY);
    assert_int_equal(a.pa_reason, BOX__REASON_CLASS__REASON_INTERNAL_FAULT);
    assert_string_equal(a.pa_message, "policy denied this operation on 'echo' "
                                      "because the request could not be "
                                      "evaluated.");
    box_pdp_answer_clear(&a);

    // A batch decides in order against one generation.
    box_req b1, b2, b3;
    box_req_exec(&b1, "ls", "ls", 0, "/w");
    box_req_fs(&b2, "fs:read", "Box::FsReadOperation", "read_content", "/w/a");
    box_req_fs(&b3, "fs:delete", "Box::FsDeleteOperation", "remove_file",
               "/w/a");
    const Box__DecisionRequest *reqs[] = {&b1.r_req, &b2.r_req, &b3.r_req};
    box_pdp_answer ans[3];
    assert_int_equal(box_pdp_decide_batch(f.client, reqs, 3, ans), BOX_OK);
    assert_int_equal(ans[0].pa_verdict, BOX_VERDICT_PERMIT);
    assert_int_equal(ans[1].pa_verdict, BOX_VERDICT_PERMIT);
    assert_int_equal(ans[2].pa_verdict, BOX_VERDICT_DENY);
    assert_int_equal(ans[0].pa_epoch, ans[2].pa_epoch);
    for (int i = 0; i < 3; i++)
        box_pdp_answer_clear(&ans[i]);

    char *log = fx_stop(&f);
    // 8 decisions: 6 remote (one was the batch of 3, one cached hit
    // reported with the next miss) + 1 control record.
    assert_int_equal(count(log, "strands.box.policy.decision"), 8);
    assert_int_equal(count(log, "\"policy_installed\""), 1);
    // Each record a log line and its span's.
    size_t lines = 0;
    for (const char *lp = log; *lp; lp++)
        lines += *lp == '\n';
    assert_int_equal(lines, 18);
    assert_int_equal(count(log, "{\"resourceSpans\":"), 9);
    assert_int_equal(count(log, "{\"key\":\"strands.box.policy.cached\""), 1);
    assert_non_null(strstr(log, "{\"key\":\"strands.box.policy.rule\","
                                "\"value\":{\"stringValue\":\"no_env\"}}"));
    assert_non_null(strstr(log, "{\"key\":\"strands.box.policy.cause\","
                                "\"value\":{\"stringValue\":\"no_match\"}}"));
    assert_non_null(strstr(log, "{\"key\":\"strands.box.name\",\"value\":{"
                                "\"stringValue\":\"box-0123456789abcdef\"}}"));
    box_free(log);
}

/* The cache alone (box_pdp_decide_cached, for an event loop): nothing
 * before a permit was cached, the permit after it, never a denial; its
 * hits are logged as box_pdp_decide's are. */
static void
test_cache_only_answers(void **state)
{
    (void)state;
    fx f;
    fx_start(&f, permit_all_exec, 2000);
    box_req q;
    box_pdp_answer a;
    box_req_exec(&q, "echo", "echo hello", 1, "/w");
    assert_false(box_pdp_decide_cached(f.client, &q.r_req, &a));
    assert_int_equal(a.pa_verdict, 0); // nothing said
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    box_pdp_answer_clear(&a);
    assert_true(box_pdp_decide_cached(f.client, &q.r_req, &a));
    assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
    assert_true(a.pa_from_cache);
    box_pdp_answer_clear(&a);
    box_req_fs(&q, "fs:read", "Box::FsReadOperation", "read_content",
               "/w/.env");
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_DENY);
    box_pdp_answer_clear(&a);
    assert_false(box_pdp_decide_cached(f.client, &q.r_req, &a));
    box_pdp_client_stats st;
    box_pdp_client_stats_get(f.client, &st);
    assert_int_equal(st.cs_hits, 1);
    char *log = fx_stop(&f);
    // The remote permit, the cache's (reported on close), the denial.
    assert_int_equal(count(log, "{\"key\":\"strands.box.policy.cached\""), 1);
    box_free(log);
}

/* A request whose client will refuse even a permit (the reach floor):
 * policy is asked, the answer is a permit that is never cached, and the
 * log records the effective decision, deny by enforcement. */
/* Outcomes (dogwood-spec §5.6): a permit says whether the policy wants
 * them, and box_pdp_record appends them where the next decision sees
 * them: an ::error of a read does not unlock a write, its ::response
 * does. */
static const char write_needs_read[] =
    "permit (principal, action, resource);\n"
    "@id(\"write-needs-read\")\n"
    "forbid (principal, action == Box::Action::\"fs:write\", resource)\n"
    "unless temporal { formerly within 10m "
    "Box::Action::\"fs:read\"::response{ input.path: context.input.path } "
    "};\n";

/* Records one outcome of the read of path under request id (the kind
 * and output as a worker sends them, action and input as the broker
 * fills them in). */
static box_err
record_read(fx *f, const char *path, uint64_t id, Box__EventKind kind)
{
    box_req q;
    box_req_fs(&q, "fs:read", "Box::FsReadOperation", "read_content", path);
    Box__Value out = BOX__VALUE__INIT, res = BOX__VALUE__INIT;
    Box__ValueRecord rec = BOX__VALUE_RECORD__INIT;
    Box__RecordField fld = BOX__RECORD_FIELD__INIT, *fp = &fld;
    Box__EntityRef ent = BOX__ENTITY_REF__INIT;
    ent.type = "Box::FsResponseResult";
    ent.id = "completed";
    res.kind_case = BOX__VALUE__KIND_ENTITY;
    res.entity = &ent;
    fld.name = "result";
    fld.value = &res;
    rec.n_fields = 1;
    rec.fields = &fp;
    out.kind_case = BOX__VALUE__KIND_RECORD;
    out.record = &rec;
    Box__Event ev = BOX__EVENT__INIT, *evp = &ev;
    ev.action = "fs:read";
    ev.kind = kind;
    ev.input = &q.r_input;
    ev.output = kind == BOX__EVENT_KIND__EVENT_RESPONSE ? &out : NULL;
    ev.request_id = id;
    Box__EventBatch b = BOX__EVENT_BATCH__INIT;
    b.n_events = 1;
    b.events = &evp;
    return box_pdp_record(f->client, &b);
}

static box_verdict
decide_fs(fx *f, const char *action, const char *optype, const char *op,
          const char *path, bool *wants)
{
    box_req q;
    box_pdp_answer a;
    box_req_fs(&q, action, optype, op, path);
    q.r_req.request_id = 7;
    assert_int_equal(box_pdp_decide(f->client, &q.r_req, &a), BOX_OK);
    box_verdict v = a.pa_verdict;
    *wants = a.pa_wants_outcomes;
    if (v == BOX_VERDICT_PERMIT)
        assert_false(a.pa_cacheable || a.pa_from_cache);
    box_pdp_answer_clear(&a);
    return v;
}

static void
test_outcomes_are_recorded(void **state)
{
    (void)state;
    fx f;
    bool wants = false;
    // No temporal rule: no outcome wanted, the permit is cacheable.
    fx_start(&f, permit_all_exec, 2000);
    box_req q;
    box_pdp_answer a;
    box_req_exec(&q, "ls", "ls", 0, "/w");
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
    assert_false(a.pa_wants_outcomes);
    assert_true(a.pa_cacheable);
    box_pdp_answer_clear(&a);
    box_free(fx_stop(&f));

    fx_start(&f, write_needs_read, 2000);
    assert_int_equal(decide_fs(&f, "fs:read", "Box::FsReadOperation",
                               "read_content", "/w/a", &wants),
                     BOX_VERDICT_PERMIT);
    assert_true(wants);
    // The request alone, or a read that did not happen: still refused.
    assert_int_equal(decide_fs(&f, "fs:write", "Box::FsWriteOperation",
                               "write_content", "/w/a", &wants),
                     BOX_VERDICT_DENY);
    assert_int_equal(record_read(&f, "/w/a", 7, BOX__EVENT_KIND__EVENT_ERROR),
                     BOX_OK);
    assert_int_equal(decide_fs(&f, "fs:write", "Box::FsWriteOperation",
                               "write_content", "/w/a", &wants),
                     BOX_VERDICT_DENY);
    // The read happened: the write of that file, not of another.
    assert_int_equal(
        record_read(&f, "/w/a", 7, BOX__EVENT_KIND__EVENT_RESPONSE), BOX_OK);
    assert_int_equal(decide_fs(&f, "fs:write", "Box::FsWriteOperation",
                               "write_content", "/w/a", &wants),
                     BOX_VERDICT_PERMIT);
    assert_int_equal(decide_fs(&f, "fs:write", "Box::FsWriteOperation",
                               "write_content", "/w/b", &wants),
                     BOX_VERDICT_DENY);
    // ::request events are the PDP's own: refused, and said so.
    assert_int_equal(record_read(&f, "/w/b", 8, BOX__EVENT_KIND__EVENT_REQUEST),
                     BOX_EPROTO);
    assert_int_equal(decide_fs(&f, "fs:write", "Box::FsWriteOperation",
                               "write_content", "/w/b", &wants),
                     BOX_VERDICT_DENY);
    box_free(fx_stop(&f));
}

static void
test_enforcement_is_logged_as_effective_deny(void **state)
{
    (void)state;
    fx f;
    fx_start(&f, permit_all_exec, 2000);
    box_req q;
    box_pdp_answer a;
    Box__Enforcement en = BOX__ENFORCEMENT__INIT;
    en.gate = "reach-floor";
    en.reason = "~/cfg/box.toml: resolves to an authority source that this "
                "run loaded, which no policy may open or change";
    box_req_fs(&q, "fs:read", "Box::FsReadOperation", "read_content",
               "/w/box.toml");
    q.r_req.enforcement = &en;
    for (int i = 0; i < 2; i++) {
        assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
        assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
        assert_false(a.pa_from_cache);
        assert_false(a.pa_cacheable);
        box_pdp_answer_clear(&a);
    }
    // A policy deny stays the policy's.
    box_req_fs(&q, "fs:read", "Box::FsReadOperation", "read_content",
               "/w/.env");
    q.r_req.enforcement = &en;
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_DENY);
    box_pdp_answer_clear(&a);

    char *log = fx_stop(&f);
    assert_int_equal(count(log, "strands.box.policy.decision"), 3);
    assert_int_equal(count(log, "{\"key\":\"strands.box.policy.cause\","
                                "\"value\":{\"stringValue\":\"enforcement\"}}"),
                     2);
    assert_int_equal(count(log, "{\"key\":\"strands.box.policy.rule\","
                                "\"value\":{\"stringValue\":"
                                "\"enforcement:reach-floor\"}}"),
                     2);
    assert_int_equal(count(log, "{\"key\":\"strands.box.policy.verdict\","
                                "\"value\":{\"stringValue\":\"permit\"}}"),
                     0);
    assert_int_equal(count(log, "{\"key\":\"strands.box.policy.rule\","
                                "\"value\":{\"stringValue\":\"no_env\"}}"),
                     1);
    box_free(log);
}

static void
test_reload_drops_cache_and_keeps_old_on_error(void **state)
{
    (void)state;
    fx f;
    fx_start(&f, permit_all_exec, 2000);
    box_req q;
    box_pdp_answer a;
    box_req_exec(&q, "echo", "echo hi", 1, "/w");
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
    uint64_t e1 = a.pa_epoch;
    box_pdp_answer_clear(&a);
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_true(a.pa_from_cache);
    box_pdp_answer_clear(&a);

    // Permit turned into a forbid: in force for the next decision.
    write_file(f.policy, forbid_exec);
    kill(f.proc.bp_pid, SIGHUP);
    for (int i = 0; i < 1000 && box_pdp_client_epoch(f.client) == e1; i++)
        usleep(10000);
    assert_true(box_pdp_client_epoch(f.client) > e1);
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_false(a.pa_from_cache);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_DENY);
    assert_string_equal(a.pa_message, "policy denied this operation on 'echo' "
                                      "[policy: no_exec]: No commands now.");
    uint64_t e2 = a.pa_epoch;
    box_pdp_answer_clear(&a);

    // A broken file leaves the generation in force.
    write_file(f.policy, "permit (principal, action, resource) when { ;\n");
    kill(f.proc.bp_pid, SIGHUP);
    Box__HealthResponse *h = NULL;
    for (int i = 0; i < 200; i++) {
        assert_int_equal(box_pdp_health(f.url, 1000, &h), BOX_OK);
        bool refused = h->detail && *h->detail;
        if (refused)
            break;
        box__health_response__free_unpacked(h, NULL);
        h = NULL;
        usleep(10000);
    }
    assert_non_null(h);
    assert_int_equal(h->epoch, e2);
    assert_non_null(strstr(h->detail, "policy.dw:1:"));
    box__health_response__free_unpacked(h, NULL);
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_DENY);
    assert_int_equal(a.pa_epoch, e2);
    box_pdp_answer_clear(&a);

    char *log = fx_stop(&f);
    assert_int_equal(count(log, "\"policy_installed\""), 2);
    assert_int_equal(count(log, "\"policy_refused\""), 1);
    box_free(log);
}

/*
 * The validity word a cache outside the client (the shell workers') reads:
 * odd while notices arrive, moved by every reload (parity kept), even once
 * the notice connection is gone. And a report of a permit served from such
 * a cache that arrives after a reload is logged as the permit it was, of
 * the epoch that made it, not as the deny the new generation decides.
 */
static void
test_validity_word_and_late_reports(void **state)
{
    (void)state;
    fx f;
    fx_start(&f, permit_all_exec, 2000);
    uint64_t v1 = atomic_load(&f.valid);
    assert_true((v1 & 1) != 0);
    box_req q;
    box_pdp_answer a;
    box_req_exec(&q, "echo", "echo hi", 1, "/w");
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
    uint64_t e1 = a.pa_epoch;
    box_pdp_answer_clear(&a);
    uint64_t v2 = atomic_load(&f.valid);
    assert_true((v2 & 1) != 0);

    write_file(f.policy, forbid_exec);
    kill(f.proc.bp_pid, SIGHUP);
    for (int i = 0; i < 1000 && box_pdp_client_epoch(f.client) == e1; i++)
        usleep(10000);
    assert_true(box_pdp_client_epoch(f.client) > e1);
    uint64_t v3 = atomic_load(&f.valid);
    assert_true(v3 > v2 && (v3 & 1) != 0);

    // Served before the reload, reported after it.
    box_req_exec(&q, "latecmd", "latecmd x", 1, "/w");
    Box__DecisionRequest served = q.r_req;
    served.cached_epoch = e1;
    assert_int_equal(box_pdp_client_report(f.client, &served), BOX_OK);
    assert_int_equal(box_pdp_client_flush(f.client), BOX_OK);
    char *log = fx_stop(&f);
    const char *rec = strstr(log, "\"latecmd\"");
    assert_non_null(rec);
    const char *eol = strchr(rec, '\n');
    const char *start = rec;
    while (start > log && start[-1] != '\n')
        start--;
    char line[16384];
    snprintf(line, sizeof line, "%.*s", (int)(eol - start), start);
    assert_non_null(strstr(line, "\"stringValue\":\"permit\""));
    assert_non_null(strstr(line, "\"stringValue\":\"<cached-permit>\""));
    assert_non_null(strstr(line, "\"boolValue\":true"));
    char epoch[64];
    snprintf(epoch, sizeof epoch,
             "\"strands.box.policy.epoch\",\"value\":{\"intValue\":\"%llu\"",
             (unsigned long long)e1);
    assert_non_null(strstr(line, epoch));
    box_free(log);
}

/* The log file's text so far (the PDP still running), or NULL. */
static char *
read_log_now(const fx *f)
{
    FILE *in = fopen(f->log, "r");
    if (in == NULL)
        return NULL;
    box_buf b;
    box_buf_init(&b, 64u * 1024u * 1024u);
    char chunk[8192];
    size_t n;
    while ((n = fread(chunk, 1, sizeof chunk, in)) > 0)
        if (box_buf_append(&b, chunk, n) != BOX_OK)
            break;
    fclose(in);
    return box_buf_take(&b);
}

/* Reports handed to the reporter thread reach the log without the caller
 * waiting and without a later round trip; what still waits at close is
 * sent by close. */
static void
test_reports_sent_in_background(void **state)
{
    (void)state;
    fx f;
    fx_start(&f, permit_all_exec, 2000);
    box_req q;
    box_pdp_answer a;
    box_req_exec(&q, "echo", "echo hi", 1, "/w");
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    uint64_t e1 = a.pa_epoch;
    box_pdp_answer_clear(&a);

    box_req_exec(&q, "soon1", "soon1 x", 1, "/w");
    Box__DecisionRequest served = q.r_req;
    served.cached_epoch = e1;
    assert_int_equal(box_pdp_client_report(f.client, &served), BOX_OK);
    box_pdp_client_flush_soon(f.client);
    bool seen = false;
    for (int i = 0; i < 500 && !seen; i++) {
        char *now = read_log_now(&f);
        seen = now != NULL && strstr(now, "\"soon1\"") != NULL;
        box_free(now);
        if (!seen)
            usleep(10000);
    }
    assert_true(seen);

    // Reported, never flushed: close sends it.
    box_req_exec(&q, "atclose", "atclose x", 1, "/w");
    served = q.r_req;
    served.cached_epoch = e1;
    assert_int_equal(box_pdp_client_report(f.client, &served), BOX_OK);
    box_pdp_client_stats st;
    box_pdp_client_stats_get(f.client, &st);
    assert_int_equal(st.cs_report_faults, 0);
    char *log = fx_stop(&f);
    // One record each (the program is the record's resource): neither
    // lost nor sent twice.
    assert_int_equal(count(log, "\"soon1\""), 1);
    assert_int_equal(count(log, "\"atclose\""), 1);
    box_free(log);
}

/* The resources of the log's decision records, in order, one a line. */
static void
resources_in_order(const char *log, box_buf *out)
{
    static const char key[] = "{\"key\":\"strands.box.policy.resource\","
                              "\"value\":{\"stringValue\":\"";
    for (const char *p = strstr(log, key); p != NULL;
         p = strstr(p + 1, key)) {
        const char *v = p + sizeof key - 1;
        assert_int_equal(box_buf_append(out, v, strcspn(v, "\"")), BOX_OK);
        assert_int_equal(box_buf_putc(out, '\n'), BOX_OK);
    }
}

/* Permits served again and again (a loop's): each distinct request goes
 * to the PDP once with the order of all, and the log has a record for
 * each serving, in the order served, decided as a whole request would
 * be (its rule, not <cached-permit>). */
static void
test_repeated_reports_logged_in_order(void **state)
{
    (void)state;
    fx f;
    fx_start(&f, permit_all_exec, 2000);
    box_req q;
    box_pdp_answer a;
    box_req_exec(&q, "first", "first", 0, "/w");
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    uint64_t e1 = a.pa_epoch;
    box_pdp_answer_clear(&a);
    box_req r1, r2;
    box_req_exec(&r1, "ls", "ls", 0, "/w");
    box_req_exec(&r2, "cat", "cat x", 1, "/w");
    r1.r_req.cached = r2.r_req.cached = 1;
    r1.r_req.cached_epoch = r2.r_req.cached_epoch = e1;
    const Box__DecisionRequest *reqs[] = {&r1.r_req, &r2.r_req};
    static const uint32_t order[] = {0, 1, 0, 0, 1, 0};
    assert_int_equal(box_pdp_client_report_many(f.client, reqs, 2, order, 6),
                     BOX_OK);
    // An index that names no request: refused whole, nothing reported.
    static const uint32_t bad[] = {0, 2};
    assert_int_equal(box_pdp_client_report_many(f.client, reqs, 2, bad, 2),
                     BOX_EINVAL);
    assert_int_equal(box_pdp_client_report_many(f.client, reqs, 0, NULL, 0),
                     BOX_OK);
    // 3,000 more of ls: more than one report batch holds, sent in turns.
    uint32_t many[3000] = {0};
    assert_int_equal(
        box_pdp_client_report_many(f.client, reqs, 2, many, 3000), BOX_OK);
    assert_int_equal(box_pdp_client_flush(f.client), BOX_OK);
    char *log = fx_stop(&f);
    box_buf got;
    box_buf_init(&got, 1u << 20);
    resources_in_order(log, &got);
    box_buf want;
    box_buf_init(&want, 1u << 20);
    assert_int_equal(box_buf_puts(&want, "first\nls\ncat\nls\nls\ncat\nls\n"),
                     BOX_OK);
    for (int i = 0; i < 3000; i++)
        assert_int_equal(box_buf_puts(&want, "ls\n"), BOX_OK);
    assert_string_equal(got.b_data, want.b_data);
    assert_int_equal(count(log, "{\"key\":\"strands.box.policy.cached\""),
                     3006);
    assert_int_equal(count(log, "\"<cached-permit>\""), 0);
    assert_int_equal(count(log, "{\"resourceSpans\":"), 3008); // + control
    box_buf_reset(&got);
    box_buf_reset(&want);
    box_free(log);
}

/* A batch whose order names what is not a report in it is refused whole:
 * nothing decided, nothing logged. */
static void
test_bad_order_refused(void **state)
{
    (void)state;
    fx f;
    fx_start(&f, permit_all_exec, 2000);
    box_rpc_client *rpc;
    assert_int_equal(box_rpc_client_open(f.url, 2000, &rpc), BOX_OK);
    box_req r1, r2;
    box_req_exec(&r1, "ls", "ls", 0, "/w");
    box_req_exec(&r2, "cat", "cat x", 1, "/w");
    r1.r_req.cached = 1; // a report; r2 a question
    static const struct {
        uint32_t order[2];
        const char *why;
    } rows[] = {
        {{0, 2}, "a batch's order names a request that is not a report in "
                 "it"},
        {{0, 1}, "a batch's order names a request that is not a report in "
                 "it"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        Box__DecisionRequest *reqs[] = {&r1.r_req, &r2.r_req};
        Box__DecisionBatch b = BOX__DECISION_BATCH__INIT;
        b.n_requests = 2;
        b.requests = reqs;
        b.n_order = 2;
        b.order = (uint32_t *)rows[i].order;
        Box__PdpRequest rq = BOX__PDP_REQUEST__INIT;
        rq.body_case = BOX__PDP_REQUEST__BODY_DECIDE_BATCH;
        rq.decide_batch = &b;
        ProtobufCMessage *m = NULL;
        assert_int_equal(box_rpc_call(rpc, &rq.base,
                                      &box__pdp_response__descriptor, &m),
                         BOX_OK);
        Box__PdpResponse *resp = (Box__PdpResponse *)m;
        assert_int_equal(resp->body_case, BOX__PDP_RESPONSE__BODY_ERROR);
        assert_int_equal(resp->error->code, BOX__ERROR_CODE__ERROR_INVALID);
        assert_string_equal(resp->error->message, rows[i].why);
        protobuf_c_message_free_unpacked(m, NULL);
    }
    // Over the bound: refused with its own words.
    uint32_t *big = box_calloc(BOX_PDP_ORDER_MAX + 1, sizeof *big);
    assert_non_null(big);
    Box__DecisionRequest *one[] = {&r1.r_req};
    Box__DecisionBatch b = BOX__DECISION_BATCH__INIT;
    b.n_requests = 1;
    b.requests = one;
    b.n_order = BOX_PDP_ORDER_MAX + 1;
    b.order = big;
    Box__PdpRequest rq = BOX__PDP_REQUEST__INIT;
    rq.body_case = BOX__PDP_REQUEST__BODY_DECIDE_BATCH;
    rq.decide_batch = &b;
    ProtobufCMessage *m = NULL;
    assert_int_equal(
        box_rpc_call(rpc, &rq.base, &box__pdp_response__descriptor, &m),
        BOX_OK);
    Box__PdpResponse *resp = (Box__PdpResponse *)m;
    assert_int_equal(resp->body_case, BOX__PDP_RESPONSE__BODY_ERROR);
    assert_string_equal(resp->error->message,
                        "a batch's order lists at most 16384 reports");
    protobuf_c_message_free_unpacked(m, NULL);
    box_free(big);
    box_rpc_client_close(rpc);
    char *log = fx_stop(&f);
    assert_int_equal(count(log, "strands.box.policy.decision"), 0);
    box_free(log);
}

/* A client whose notice connection went away: the word turns even. */
static void
test_validity_word_drops_with_notices(void **state)
{
    (void)state;
    fx f;
    fx_start(&f, permit_all_exec, 2000);
    assert_true((atomic_load(&f.valid) & 1) != 0);
    kill(f.proc.bp_pid, SIGKILL);
    for (int i = 0; i < 500 && (atomic_load(&f.valid) & 1) != 0; i++)
        usleep(10000);
    assert_true((atomic_load(&f.valid) & 1) == 0);
    box_pdp_client_close(f.client);
    box_proc_result r;
    box_proc_finish(&f.proc, 10000, &r);
    box_proc_result_free(&r);
    box_test_rmtree(f.dir);
}

/* Health, asked until pred holds for it (or 1000 tries pass: NULL), on
 * one socket for every try (see box_wait_pdp). */
static Box__HealthResponse *
health_until(const fx *f, bool (*pred)(const Box__HealthResponse *, uint64_t),
             uint64_t arg)
{
    box_health_probe *p = NULL;
    Box__HealthResponse *found = NULL;
    if (box_health_probe_open(f->url, true, 1000, &p) != BOX_OK)
        return NULL;
    for (int i = 0; i < 1000 && found == NULL; i++) {
        Box__HealthResponse *h = NULL;
        if (box_health_probe_ask(p, &h) == BOX_OK) {
            if (pred(h, arg))
                found = h;
            else
                box__health_response__free_unpacked(h, NULL);
        }
        if (found == NULL)
            usleep(10000);
    }
    box_health_probe_close(p);
    return found;
}

/* The generation past epoch is in force and its publish failed (the
 * error is noted just after the swap, so a health answer in between shows
 * the new epoch without it). */
static bool
failed_past(const Box__HealthResponse *h, uint64_t epoch)
{
    return h->epoch > epoch && h->generation_error[0] != '\0';
}

/* The generation past epoch is in force and published cleanly. */
static bool
clean_past(const Box__HealthResponse *h, uint64_t epoch)
{
    return h->epoch > epoch && h->generation_error[0] == '\0';
}

/*
 * Issue 18 item 4: a generation whose epoch notice is not sent does not
 * pass silently. box-pdp-pubfail (box-pdp with a send that fails its
 * second notice) installs the reloaded policy, logs the failed publish on
 * stderr and in the decision log's policy_installed record, and names it
 * in health's generation_error; the client, which missed the notice,
 * still serves its cached permit (what the error warns of). The next
 * generation that publishes clears the error and the client catches up.
 */
static void
test_failed_publish_is_logged_and_shown(void **state)
{
    (void)state;
    fx f;
    fx_start_prog(&f, "box-pdp-pubfail", permit_all_exec, 2000);
    Box__HealthResponse *h = NULL;
    assert_int_equal(box_pdp_health(f.url, 1000, &h), BOX_OK);
    assert_string_equal(h->generation_error, ""); // the first went out
    uint64_t e1 = h->epoch;
    box__health_response__free_unpacked(h, NULL);

    box_req q;
    box_pdp_answer a;
    box_req_exec(&q, "echo", "echo hi", 1, "/w");
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
    box_pdp_answer_clear(&a);

    // The second generation is installed; its notice is not sent.
    write_file(f.policy, forbid_exec);
    kill(f.proc.bp_pid, SIGHUP);
    h = health_until(&f, failed_past, e1);
    assert_non_null(h);
    uint64_t e2 = h->epoch;
    char want[128];
    snprintf(want, sizeof want, "epoch %llu installed but not published",
             (unsigned long long)e2);
    assert_non_null(strstr(h->generation_error, want));
    assert_non_null(strstr(h->generation_error, "Out of memory"));
    assert_string_equal(h->detail, ""); // not a refusal: the file loaded
    box__health_response__free_unpacked(h, NULL);
    assert_int_equal(box_pdp_client_epoch(f.client), e1);
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_true(a.pa_from_cache);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
    box_pdp_answer_clear(&a);

    // The third publishes: the error is gone and the client catches up.
    write_file(f.policy, permit_all_exec);
    kill(f.proc.bp_pid, SIGHUP);
    for (int i = 0; i < 1000 && box_pdp_client_epoch(f.client) <= e2; i++)
        usleep(10000);
    assert_true(box_pdp_client_epoch(f.client) > e2);
    h = health_until(&f, clean_past, e2);
    assert_non_null(h);
    box__health_response__free_unpacked(h, NULL);

    char *err = NULL;
    char *log = fx_stop_err(&f, &err);
    assert_int_equal(count(err, want), 1);
    assert_int_equal(count(log, "\"policy_installed\""), 3);
    assert_int_equal(count(log, want), 1);
    box_free(log);
    box_free(err);
}

/*
 * A lost epoch notice costs a bounded time. A second client takes its
 * notices from a PUB socket that never publishes (its connection is up, so
 * its cache is served), as if the PDP's notice of a reload never reached
 * it. Until its permit's maximum age it keeps the permit the reload
 * revoked; after it, the next decision goes to the PDP and is denied.
 */
static void
test_cached_permit_expires_without_notice(void **state)
{
    (void)state;
    enum { MAX_AGE_MS = 1500 };
    fx f;
    fx_start(&f, permit_all_exec, 2000);
    char quiet[300];
    snprintf(quiet, sizeof quiet, "ipc://%s/quiet-epoch.sock", f.dir);
    nng_socket pub;
    assert_int_equal(nng_pub0_open(&pub), 0);
    assert_int_equal(nng_listen(pub, quiet, NULL, 0), 0);
    box_pdp_client_opts o = {.co_url = f.url,
                             .co_epoch_url = quiet,
                             .co_timeout_ms = 2000,
                             .co_cache_slots = 64,
                             .co_cache_max_age_ms = MAX_AGE_MS};
    box_pdp_client *c;
    assert_int_equal(box_pdp_client_open(&o, &c), BOX_OK);
    for (int i = 0; i < 500 && !box_pdp_client_cache_live(c); i++)
        usleep(10000);
    assert_true(box_pdp_client_cache_live(c));

    box_req q;
    box_pdp_answer a;
    box_req_exec(&q, "echo", "echo hi", 1, "/w");
    assert_int_equal(box_pdp_decide(c, &q.r_req, &a), BOX_OK);
    long long born = box_test_now_ms();
    assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
    assert_false(a.pa_from_cache);
    uint64_t e1 = a.pa_epoch;
    box_pdp_answer_clear(&a);
    assert_int_equal(box_pdp_decide(c, &q.r_req, &a), BOX_OK);
    assert_true(a.pa_from_cache);
    box_pdp_answer_clear(&a);

    // The permit turns into a forbid; the fixture's client hears of it,
    // the quiet one does not.
    write_file(f.policy, forbid_exec);
    kill(f.proc.bp_pid, SIGHUP);
    for (int i = 0; i < 1000 && box_pdp_client_epoch(f.client) <= e1; i++)
        usleep(10000);
    assert_true(box_pdp_client_epoch(f.client) > e1);
    assert_int_equal(box_pdp_client_epoch(c), e1);
    // Within the maximum age the stale permit is still served (that is
    // the cost bounded here). Only checked when the reload was quick
    // enough to leave a clear margin on a loaded machine.
    assert_int_equal(box_pdp_decide(c, &q.r_req, &a), BOX_OK);
    if (box_test_now_ms() - born < MAX_AGE_MS / 2) {
        assert_true(a.pa_from_cache);
        assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
    }
    box_pdp_answer_clear(&a);

    // Past the maximum age: asked again, and denied by the new policy.
    long long left = born + MAX_AGE_MS + 50 - box_test_now_ms();
    if (left > 0)
        usleep((useconds_t)left * 1000);
    assert_true(box_pdp_client_cache_live(c)); // still no notice, still up
    assert_int_equal(box_pdp_decide(c, &q.r_req, &a), BOX_OK);
    assert_false(a.pa_from_cache);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_DENY);
    assert_true(a.pa_epoch > e1);
    assert_string_equal(a.pa_message, "policy denied this operation on 'echo' "
                                      "[policy: no_exec]: No commands now.");
    box_pdp_answer_clear(&a);

    // A permit from the new generation is cached again, and served.
    box_req_fs(&q, "fs:read", "Box::FsReadOperation", "read_content",
               "/w/a.txt");
    assert_int_equal(box_pdp_decide(c, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
    assert_false(a.pa_from_cache);
    box_pdp_answer_clear(&a);
    assert_int_equal(box_pdp_decide(c, &q.r_req, &a), BOX_OK);
    assert_true(a.pa_from_cache);
    box_pdp_answer_clear(&a);

    box_pdp_client_close(c);
    nng_close(pub);
    box_free(fx_stop(&f));
}

/*
 * The client keys a permit on the input fields the policy's rules for its
 * action read (DecisionResponse.cache_fields): here only `program`, so
 * `ls -la` is served from the entry `ls` made, `cat` is asked, a deny is
 * never cached, and every decision is logged (a hit with the request it
 * served). A field's kind still counts (a request of another shape is
 * asked).
 */
static void
test_cache_keys_on_fields_read(void **state)
{
    (void)state;
    static const char reads_program[] =
        "@id(\"exec\") permit (principal, action == "
        "Box::Action::\"shell:exec\", resource) when { "
        "context.input.program != \"rm\" };\n";
    fx f;
    fx_start(&f, reads_program, 2000);
    box_req q;
    box_pdp_answer a;
    struct {
        const char *program, *command;
        long nargs;
        box_verdict want;
        bool cached;
    } rows[] = {
        {"ls", "ls", 0, BOX_VERDICT_PERMIT, false},
        {"ls", "ls -la", 1, BOX_VERDICT_PERMIT, true},
        {"ls", "ls -la /tmp", 2, BOX_VERDICT_PERMIT, true},
        {"cat", "cat a", 1, BOX_VERDICT_PERMIT, false},
        {"cat", "cat b", 1, BOX_VERDICT_PERMIT, true},
        {"rm", "rm a", 1, BOX_VERDICT_DENY, false},
        {"rm", "rm a", 1, BOX_VERDICT_DENY, false},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        box_req_exec(&q, rows[i].program, rows[i].command, rows[i].nargs, "/w");
        assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
        if (a.pa_verdict != rows[i].want || a.pa_from_cache != rows[i].cached)
            fail_msg("row %zu (%s): verdict %d cached %d", i, rows[i].command,
                     (int)a.pa_verdict, (int)a.pa_from_cache);
        box_pdp_answer_clear(&a);
    }
    // Another shape: `cwd` as a number is asked (and refused by the
    // schema), not served from the entry of `ls`.
    box_req_exec(&q, "ls", "ls", 0, "/w");
    for (size_t i = 0; i < q.r_rec.n_fields; i++) {
        if (strcmp(q.r_rec.fields[i]->name, "cwd") == 0) {
            q.r_rec.fields[i]->value->kind_case = BOX__VALUE__KIND_LONG;
            q.r_rec.fields[i]->value->long_ = 7;
        }
    }
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_false(a.pa_from_cache);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_DENY);
    box_pdp_answer_clear(&a);

    char *log = fx_stop(&f);
    // Every decision is logged: 8, 3 of them hits.
    assert_int_equal(count(log, "strands.box.policy.decision"), 8);
    assert_int_equal(count(log, "{\"key\":\"strands.box.policy.cached\""), 3);
    box_free(log);
}

/* Hits of big requests fill the client's report buffer by its bytes
 * long before its count of reports: a hit that finds no room is asked of
 * the PDP (and carries the waiting reports), so every decision is still
 * logged once, the served ones marked cached. */
static void
test_big_hits_fill_the_reports_by_bytes(void **state)
{
    (void)state;
    enum { CALLS = 200 };
    fx f;
    fx_start(&f, permit_all_exec, 2000);
    char cmd[1501];
    memset(cmd, 'x', sizeof cmd - 1);
    memcpy(cmd, "echo ", 5);
    cmd[sizeof cmd - 1] = '\0';
    box_req q;
    box_req_exec(&q, "echo", cmd, 1, "/w");
    int hits = 0;
    for (int i = 0; i < CALLS; i++) {
        box_pdp_answer a;
        // Each command its own: served by the entry keyed on the fields
        // the policy reads (none), each reported whole.
        snprintf(cmd + 5, 5, "%04d", i);
        cmd[9] = 'x';
        q.r_req.request_id = (uint64_t)i + 1;
        assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
        assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
        hits += a.pa_from_cache;
        box_pdp_answer_clear(&a);
    }
    // 128 KiB hold about 80 of these: some calls went to the PDP.
    assert_true(hits > 80 && hits < CALLS - 1);
    assert_int_equal(box_pdp_client_flush(f.client), BOX_OK);
    char *log = fx_stop(&f);
    assert_int_equal(count(log, "strands.box.policy.decision"), CALLS);
    assert_int_equal(count(log, "{\"key\":\"strands.box.policy.cached\""),
                     hits);
    box_free(log);
}

/* The client's own hits: a permit served again while its report waits is
 * appended as that report's index (whatever request id the call carried:
 * reports have none), and written anew once the batch is sent, however the
 * next batch starts; a batch whose order is full sends itself with the
 * next question. The log has every serving, in the order served, beside
 * reports from another source (the broker's of a worker's cache) kept in
 * between. */
static void
test_client_hits_logged_in_order(void **state)
{
    (void)state;
    enum { CALLS = 13000 }; // more than a batch's order holds after 4,000
    fx f;
    fx_start(&f, permit_all_exec, 2000);
    box_req ls, cat, wc, pwd;
    box_req_exec(&ls, "ls", "ls", 0, "/w");
    box_req_exec(&cat, "cat", "cat x", 1, "/w");
    box_req_exec(&wc, "wc", "wc", 0, "/w");
    box_req_exec(&pwd, "pwd", "pwd", 0, "/w");
    box_buf want;
    box_buf_init(&want, 1u << 20);
    int hits = 0;
    for (int i = 0; i < CALLS; i++) {
        box_req *q = i % 3 == 1 ? &cat : &ls;
        box_pdp_answer a;
        q->r_req.request_id = (uint64_t)i + 1;
        assert_int_equal(box_pdp_decide(f.client, &q->r_req, &a), BOX_OK);
        assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
        hits += a.pa_from_cache;
        assert_int_equal(box_buf_puts(&want, i % 3 == 1 ? "cat\n" : "ls\n"),
                         BOX_OK);
        if (i == 4000) {
            // Sent mid-loop; the next batch starts with others' reports,
            // at the indices ls's and cat's had in the batch just sent.
            assert_int_equal(box_pdp_client_flush(f.client), BOX_OK);
            wc.r_req.cached = pwd.r_req.cached = 1;
            wc.r_req.cached_epoch = pwd.r_req.cached_epoch = a.pa_epoch;
            const Box__DecisionRequest *reqs[] = {&wc.r_req, &pwd.r_req};
            static const uint32_t order[] = {0, 1, 0};
            assert_int_equal(
                box_pdp_client_report_many(f.client, reqs, 2, order, 3),
                BOX_OK);
            assert_int_equal(box_buf_puts(&want, "wc\npwd\nwc\n"), BOX_OK);
        }
        box_pdp_answer_clear(&a);
    }
    // The first question, and one when the order filled (cat is served
    // by ls's entry keyed on the fields the policy reads: none).
    assert_int_equal(hits, CALLS - 2);
    assert_int_equal(box_pdp_client_flush(f.client), BOX_OK);
    char *log = fx_stop(&f);
    box_buf got;
    box_buf_init(&got, 1u << 20);
    resources_in_order(log, &got);
    assert_string_equal(got.b_data, want.b_data);
    assert_int_equal(count(log, "{\"key\":\"strands.box.policy.cached\""),
                     hits + 3);
    assert_int_equal(count(log, "\"<cached-permit>\""), 0);
    box_buf_reset(&got);
    box_buf_reset(&want);
    box_free(log);
}

/* A rule that reads context otherwise than by naming an input field
 * keeps the whole input in the key. */
static void
test_cache_keys_whole_input_when_context_is_read(void **state)
{
    (void)state;
    static const char reads_context[] =
        "@id(\"exec\") permit (principal, action == "
        "Box::Action::\"shell:exec\", resource) when { context has input "
        "};\n";
    fx f;
    fx_start(&f, reads_context, 2000);
    box_req q;
    box_pdp_answer a;
    box_req_exec(&q, "ls", "ls", 0, "/w");
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_PERMIT);
    box_pdp_answer_clear(&a);
    box_req_exec(&q, "ls", "ls -la", 1, "/w");
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_false(a.pa_from_cache);
    box_pdp_answer_clear(&a);
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    assert_true(a.pa_from_cache); // the very same input still hits
    box_pdp_answer_clear(&a);
    box_free(fx_stop(&f));
}

/* True once every thread of pid is stopped (state T). */
static bool
wait_stopped(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    for (int i = 0; i < 200; i++) {
        FILE *sf = fopen(path, "r");
        bool stopped = false;
        if (sf != NULL && fgets(line, sizeof line, sf) != NULL) {
            char *rp = strrchr(line, ')');
            stopped = rp != NULL && rp[1] == ' ' && rp[2] == 'T';
        }
        if (sf != NULL)
            fclose(sf);
        if (stopped)
            return true;
        usleep(5000);
    }
    return false;
}

static void
test_fail_closed_when_stopped_or_gone(void **state)
{
    (void)state;
    fx f;
    fx_start(&f, permit_all_exec, 300);
    box_req q;
    box_pdp_answer a;
    box_req_exec(&q, "ls", "ls", 0, "/w");
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_OK);
    box_pdp_answer_clear(&a);

    // Hung (SIGSTOP): a request of another action (none cached: a
    // shell:exec permit of this policy reads no field, so any command
    // would hit the entry `ls` made) is refused in time.
    kill(f.proc.bp_pid, SIGSTOP);
    // A stop is asynchronous for a threaded process: wait until it holds.
    assert_true(wait_stopped(f.proc.bp_pid));
    box_req_fs(&q, "fs:read", "Box::FsReadOperation", "read_content", "/w/x");
    long long t0 = box_test_now_ms();
    assert_int_equal(box_pdp_decide(f.client, &q.r_req, &a), BOX_ETIMEDOUT);
    long long dt = box_test_now_ms() - t0;
    // The deadline holds: no answer, and no waiting much past 300 ms (the
    // upper bound leaves room for a loaded machine).
    assert_true(dt >= 250 && dt < 3000);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_FAULT); // no decision: a fault
    assert_int_equal(a.pa_reason, BOX__REASON_CLASS__REASON_INTERNAL_FAULT);
    assert_non_null(strstr(a.pa_message, "box-pdp at ipc://"));
    assert_non_null(strstr(a.pa_message, "did not answer within 300 ms"));
    box_pdp_answer_clear(&a);
    kill(f.proc.bp_pid, SIGCONT);

    // Gone: also refused within the deadline.
    char *log = fx_stop(&f);
    box_free(log);
    box_pdp_client_opts o = {.co_url = f.url, .co_timeout_ms = 300};
    box_pdp_client *c;
    assert_int_equal(box_pdp_client_open(&o, &c), BOX_OK);
    t0 = box_test_now_ms();
    assert_int_not_equal(box_pdp_decide(c, &q.r_req, &a), BOX_OK);
    assert_true(box_test_now_ms() - t0 < 3000);
    assert_int_equal(a.pa_verdict, BOX_VERDICT_FAULT);
    box_pdp_answer_clear(&a);
    box_pdp_client_close(c);
}

/* ---- the reload storm ---- */

#define STORM_THREADS 8
#define STORM_DECISIONS 10000 // each client's, at least
// A client goes on past STORM_DECISIONS until both policies have answered
// (cache hits are quick enough to end 10,000 inside the first policy's
// time), for this long at most.
#define STORM_MAX_MS 30000
#define STORM_EPOCHS 4096

typedef struct storm {
    fx *f;
    atomic_int stop;
    // epoch -> verdict seen (0 unseen, 1 permit, 2 deny); a generation is
    // all-permit or all-forbid, so one epoch never sees both.
    pthread_mutex_t lock;
    uint64_t epochs[STORM_EPOCHS];
    int verdicts[STORM_EPOCHS];
    size_t nepochs;
    atomic_int violations;
    atomic_int failures;
    atomic_int seen;     // 1: a permit answered, 2: a denial, 3: both
    atomic_long decided; // decisions the clients made, in all
    uint64_t until_ms;   // when clients stop waiting for both verdicts
} storm;

static void
storm_note(storm *s, uint64_t epoch, int verdict)
{
    pthread_mutex_lock(&s->lock);
    size_t i;
    for (i = 0; i < s->nepochs; i++)
        if (s->epochs[i] == epoch)
            break;
    atomic_fetch_or(&s->seen, verdict);
    if (i == s->nepochs && s->nepochs < STORM_EPOCHS) {
        s->epochs[s->nepochs] = epoch;
        s->verdicts[s->nepochs++] = verdict;
    } else if (i < s->nepochs && s->verdicts[i] != verdict) {
        atomic_fetch_add(&s->violations, 1);
    }
    pthread_mutex_unlock(&s->lock);
}

static void *
storm_client(void *arg)
{
    storm *s = arg;
    box_pdp_client_opts o = {.co_url = s->f->url,
                             .co_epoch_url = s->f->pub,
                             .co_timeout_ms = 20000,
                             .co_cache_slots = 256};
    box_pdp_client *c;
    if (box_pdp_client_open(&o, &c) != BOX_OK) {
        atomic_fetch_add(&s->failures, 1);
        return NULL;
    }
    box_req q;
    box_req_exec(&q, "echo", "echo storm", 1, "/w");
    long i = 0;
    for (; i < STORM_DECISIONS ||
           (atomic_load(&s->seen) != 3 && box_svc_now_ms() < s->until_ms);
         i++) {
        uint64_t seen = box_pdp_client_epoch(c);
        box_pdp_answer a;
        if (box_pdp_decide(c, &q.r_req, &a) != BOX_OK) {
            atomic_fetch_add(&s->failures, 1);
        } else {
            if (a.pa_epoch < seen)
                atomic_fetch_add(&s->violations, 1);
            storm_note(s, a.pa_epoch,
                       a.pa_verdict == BOX_VERDICT_PERMIT ? 1 : 2);
        }
        box_pdp_answer_clear(&a);
    }
    atomic_fetch_add(&s->decided, i);
    if (box_pdp_client_flush(c) != BOX_OK)
        atomic_fetch_add(&s->failures, 1);
    box_pdp_client_close(c);
    return NULL;
}

static void *
storm_reloader(void *arg)
{
    storm *s = arg;
    static const char broken[] = "forbid (principal, action, resource) when {";
    for (int i = 0; !atomic_load(&s->stop); i++) {
        const char *text = i % 3 == 0   ? permit_all_exec
                           : i % 3 == 1 ? broken
                                        : forbid_exec;
        write_file(s->f->policy, text);
        kill(s->f->proc.bp_pid, SIGHUP);
        usleep(50000);
    }
    return NULL;
}

static void
test_reload_storm(void **state)
{
    (void)state;
    fx f;
    fx_start(&f, permit_all_exec, 5000);
    storm *s = box_calloc(1, sizeof *s);
    s->f = &f;
    s->until_ms = box_svc_now_ms() + STORM_MAX_MS;
    pthread_mutex_init(&s->lock, NULL);
    pthread_t th[STORM_THREADS], rl;
    pthread_create(&rl, NULL, storm_reloader, s);
    for (int i = 0; i < STORM_THREADS; i++)
        pthread_create(&th[i], NULL, storm_client, s);
    for (int i = 0; i < STORM_THREADS; i++)
        pthread_join(th[i], NULL);
    atomic_store(&s->stop, 1);
    pthread_join(rl, NULL);
    assert_int_equal(atomic_load(&s->failures), 0);
    assert_int_equal(atomic_load(&s->violations), 0);
    // Both policies were in force at some point.
    bool saw_permit = false, saw_deny = false;
    for (size_t i = 0; i < s->nepochs; i++) {
        saw_permit |= s->verdicts[i] == 1;
        saw_deny |= s->verdicts[i] == 2;
    }
    assert_true(saw_permit && saw_deny);
    char *log = fx_stop(&f);
    // Every decision is in the log, cached or not.
    long decided = atomic_load(&s->decided);
    assert_true(decided >= (long)STORM_THREADS * STORM_DECISIONS);
    assert_int_equal(count(log, "strands.box.policy.decision"), decided);
    box_free(log);
    pthread_mutex_destroy(&s->lock);
    box_free(s);
}

/* ---- the log writer falling behind ---- */

typedef struct fifo_reader {
    int fd;
    size_t decisions;
} fifo_reader;

static void *
fifo_drain(void *arg)
{
    fifo_reader *fr = arg;
    // Count decision lines until the PDP closes its end.
    int fl = fcntl(fr->fd, F_GETFL);
    fcntl(fr->fd, F_SETFL, fl & ~O_NONBLOCK);
    box_buf b;
    box_buf_init(&b, 64u << 20);
    char chunk[65536];
    ssize_t n;
    while ((n = read(fr->fd, chunk, sizeof chunk)) != 0) {
        if (n < 0) {
            usleep(1000);
            continue;
        }
        if (box_buf_append(&b, chunk, (size_t)n) != BOX_OK)
            break;
    }
    fr->decisions =
        b.b_data ? count(b.b_data, "strands.box.policy.decision") : 0;
    box_buf_reset(&b);
    return NULL;
}

static void
test_slow_log_makes_decisions_wait_never_unlogged(void **state)
{
    (void)state;
    char dir[] = "/tmp/box-pdpfifo-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[128], policy[128], url[128];
    snprintf(fifo, sizeof fifo, "%s/records.jsonl", dir);
    snprintf(policy, sizeof policy, "%s/policy.dw", dir);
    snprintf(url, sizeof url, "ipc://%s/pdp.sock", dir);
    write_file(policy, permit_all_exec);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    fifo_reader fr = {.fd = open(fifo, O_RDONLY | O_NONBLOCK)};
    assert_true(fr.fd >= 0);

    char bin[4096];
    box_proc_bin(bin, sizeof bin, "box-pdp");
    char *argv[] = {bin,     "--listen", url,           "--policy", policy,
                    "--log", fifo,       "--log-queue", "4",        NULL};
    box_proc p;
    assert_true(box_proc_start(&p, argv, NULL));
    box_pdp_client_opts o = {.co_url = url, .co_timeout_ms = 300};
    box_pdp_client *c;
    assert_int_equal(box_pdp_client_open(&o, &c), BOX_OK);

    // Nobody reads the log: the pipe fills, then the queue, then
    // decisions wait and the client's deadline refuses them.
    int answered = 0, refused = 0;
    for (int i = 0; i < 200 && refused < 3; i++) {
        char cmd[64];
        snprintf(cmd, sizeof cmd, "echo %d", i);
        box_req q;
        box_req_exec(&q, "echo", cmd, 1, "/w");
        box_pdp_answer a;
        box_err rv = box_pdp_decide(c, &q.r_req, &a);
        if (rv == BOX_OK) {
            answered++;
        } else {
            assert_int_equal(a.pa_verdict, BOX_VERDICT_FAULT);
            refused++;
        }
        box_pdp_answer_clear(&a);
    }
    assert_int_equal(refused, 3);
    assert_true(answered > 4);

    // The writer catches up: decisions flow again.
    pthread_t th;
    pthread_create(&th, NULL, fifo_drain, &fr);
    box_req q;
    box_req_exec(&q, "echo", "echo again", 1, "/w");
    box_pdp_answer a;
    box_err rv = BOX_ETIMEDOUT;
    for (int i = 0; i < 50 && rv != BOX_OK; i++) {
        rv = box_pdp_decide(c, &q.r_req, &a);
        box_pdp_answer_clear(&a);
    }
    assert_int_equal(rv, BOX_OK);
    box_pdp_client_close(c);

    kill(p.bp_pid, SIGTERM);
    box_proc_result r;
    box_proc_finish(&p, 10000, &r);
    assert_int_equal(r.pr_status, 0);
    box_proc_result_free(&r);
    pthread_join(th, NULL);
    close(fr.fd);
    // Every answer the client got was logged, and the final one too. A
    // refused request may have been decided late (then it is logged) or,
    // if it never left the client's queue, not at all: never more than
    // the requests sent.
    assert_true(fr.decisions >= (size_t)answered + 1);
    assert_true(fr.decisions <= (size_t)answered + 3 + 50 + 1);
    box_test_rmtree(dir);
}

int
main(void)
{
    sigset_t s;
    box_svc_block_signals(&s);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_decisions_messages_and_log),
        cmocka_unit_test(test_cache_only_answers),
        cmocka_unit_test(test_enforcement_is_logged_as_effective_deny),
        cmocka_unit_test(test_outcomes_are_recorded),
        cmocka_unit_test(test_reload_drops_cache_and_keeps_old_on_error),
        cmocka_unit_test(test_validity_word_and_late_reports),
        cmocka_unit_test(test_reports_sent_in_background),
        cmocka_unit_test(test_repeated_reports_logged_in_order),
        cmocka_unit_test(test_bad_order_refused),
        cmocka_unit_test(test_validity_word_drops_with_notices),
        cmocka_unit_test(test_cached_permit_expires_without_notice),
        cmocka_unit_test(test_cache_keys_on_fields_read),
        cmocka_unit_test(test_cache_keys_whole_input_when_context_is_read),
        cmocka_unit_test(test_big_hits_fill_the_reports_by_bytes),
        cmocka_unit_test(test_client_hits_logged_in_order),
        cmocka_unit_test(test_failed_publish_is_logged_and_shown),
        cmocka_unit_test(test_fail_closed_when_stopped_or_gone),
        cmocka_unit_test(test_reload_storm),
        cmocka_unit_test(test_slow_log_makes_decisions_wait_never_unlogged),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
