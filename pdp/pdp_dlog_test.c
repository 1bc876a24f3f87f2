/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for pdp_dlog: every decision one whole JSON line, in order per
 * thread, none lost under a full queue or at close; an oversized record
 * refused whole, its neighbours kept. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "pdp_dlog.h"

#define THREADS 4
#define PER_THREAD 1000

typedef struct tmp_log {
    char path[64];
} tmp_log;

static void
tmp_open(tmp_log *t, size_t cap, pdp_dlog **out)
{
    snprintf(t->path, sizeof t->path, "/tmp/pdp-dlog-test-XXXXXX");
    int fd = mkstemp(t->path);
    assert_true(fd >= 0);
    close(fd);
    pdp_dlog_ident id = {.di_box_id = "box-0123456789abcdef",
                         .di_run_id = "run-1"};
    assert_int_equal(pdp_dlog_open(t->path, &id, cap, out), BOX_OK);
}

/* The string value of attribute key on the line's log record. */
static const char *
attr(json_object *line, const char *key)
{
    json_object *rl, *sl, *lr, *attrs;
    if (!json_object_object_get_ex(line, "resourceLogs", &rl))
        return NULL;
    sl = json_object_object_get(json_object_array_get_idx(rl, 0), "scopeLogs");
    lr = json_object_object_get(json_object_array_get_idx(sl, 0), "logRecords");
    attrs =
        json_object_object_get(json_object_array_get_idx(lr, 0), "attributes");
    for (size_t i = 0; i < json_object_array_length(attrs); i++) {
        json_object *a = json_object_array_get_idx(attrs, i);
        if (strcmp(json_object_get_string(json_object_object_get(a, "key")),
                   key) != 0)
            continue;
        json_object *val = json_object_object_get(a, "value");
        json_object *s;
        if (json_object_object_get_ex(val, "stringValue", &s))
            return json_object_get_string(s);
        if (json_object_object_get_ex(val, "intValue", &s))
            return json_object_get_string(s);
        return NULL;
    }
    return NULL;
}

/* o's member at the path of keys and array indexes ("0"), or NULL. */
static json_object *
at(json_object *o, const char *const *path)
{
    for (; o != NULL && *path != NULL; path++)
        o = json_object_is_type(o, json_type_array)
                ? json_object_array_get_idx(o, (size_t)(**path - '0'))
                : json_object_object_get(o, *path);
    return o;
}

static const char *
at_str(json_object *o, const char *const *path)
{
    json_object *v = at(o, path);
    return v != NULL ? json_object_get_string(v) : NULL;
}

/* span is the line after the log record rec: its span (box-spec §7), with
 * the same ids and time, INTERNAL, named after the record, and ERROR
 * status exactly for a fault. */
static void
check_span(json_object *rec, json_object *span)
{
    static const char *const r_trace[] = {
        "resourceLogs", "0", "scopeLogs", "0",
        "logRecords",   "0", "traceId",   NULL};
    static const char *const r_span[] = {
        "resourceLogs", "0", "scopeLogs", "0",
        "logRecords",   "0", "spanId",    NULL};
    static const char *const r_time[] = {
        "resourceLogs", "0", "scopeLogs",    "0",
        "logRecords",   "0", "timeUnixNano", NULL};
    static const char *const r_scope[] = {
        "resourceLogs", "0", "scopeLogs", "0", "scope", "name", NULL};
    static const char *const r_box[] = {"resourceLogs", "0", "resource", NULL};
    static const char *const s_box[] = {"resourceSpans", "0", "resource", NULL};
#define SPAN_AT(k)                                                             \
    (const char *const[])                                                      \
    {                                                                          \
        "resourceSpans", "0", "scopeSpans", "0", "spans", "0", k, NULL         \
    }
    if (span == NULL ||
        at(span, (const char *const[]){"resourceSpans", NULL}) == NULL)
        fail_msg("a log record without its span on the next line");
    assert_string_equal(at_str(span, SPAN_AT("traceId")), at_str(rec, r_trace));
    assert_string_equal(at_str(span, SPAN_AT("spanId")), at_str(rec, r_span));
    assert_string_equal(at_str(span, SPAN_AT("startTimeUnixNano")),
                        at_str(rec, r_time));
    assert_string_equal(at_str(span, SPAN_AT("endTimeUnixNano")),
                        at_str(rec, r_time));
    assert_string_equal(at_str(span, SPAN_AT("kind")), "1");
    assert_string_equal(
        at_str(span, (const char *const[]){"resourceSpans", "0", "scopeSpans",
                                           "0", "scope", "name", NULL}),
        at_str(rec, r_scope));
    assert_string_equal(json_object_to_json_string(at(span, s_box)),
                        json_object_to_json_string(at(rec, r_box)));
    const char *op = attr(rec, "strands.box.control.operation");
    const char *action = attr(rec, "strands.box.policy.action");
    char name[256];
    snprintf(name, sizeof name, "%s %s", op ? "control" : "decision",
             op       ? op
             : action ? action
                      : "");
    assert_string_equal(at_str(span, SPAN_AT("name")), name);
    const char *cause = attr(rec, "strands.box.policy.cause");
    bool fault = cause != NULL && strcmp(cause, "internal_fault") == 0;
    const char *code = at_str(
        span, (const char *const[]){"resourceSpans", "0", "scopeSpans", "0",
                                    "spans", "0", "status", "code", NULL});
    if (fault)
        assert_string_equal(code, "2");
    else
        assert_null(code);
#undef SPAN_AT
}

/* The file's log records, each parsed, each checked against the span on
 * the line after it; fails on a line that is not JSON. */
static size_t
tmp_lines(const tmp_log *t, json_object ***out)
{
    FILE *f = fopen(t->path, "r");
    assert_non_null(f);
    size_t n = 0, cap = 0;
    json_object **v = NULL;
    size_t lmax = PDP_DLOG_LINE_MAX + 2;
    bool pending_span_checked = true; // no record read yet
    char *line = box_alloc(lmax);
    assert_non_null(line);
    while (fgets(line, (int)lmax, f) != NULL) {
        size_t len = strlen(line);
        assert_true(len > 0);
        assert_int_equal(line[len - 1], '\n');
        json_object *o = json_tokener_parse(line);
        if (o == NULL)
            fail_msg("line %zu is not JSON: %.200s", n + 1, line);
        if (n > 0 &&
            at(v[n - 1], (const char *const[]){"resourceLogs", NULL}) != NULL &&
            !pending_span_checked) {
            check_span(v[n - 1], o);
            json_object_put(o);
            pending_span_checked = true;
            continue;
        }
        pending_span_checked = false;
        if (n == cap) {
            cap = cap ? cap * 2 : 64;
            v = box_realloc(v, cap * sizeof *v);
            assert_non_null(v);
        }
        v[n++] = o;
    }
    box_free(line);
    fclose(f);
    if (!pending_span_checked)
        fail_msg("the last log record has no span");
    *out = v;
    return n;
}

static void
tmp_free(tmp_log *t, json_object **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        json_object_put(v[i]);
    box_free(v);
    unlink(t->path);
}

static pdp_dlog_decision
decision(const char *resource)
{
    static const char *const args[] = {"[", "<redacted>", "-lt", "10", "]"};
    pdp_dlog_decision d = {
        .dd_action = "shell:exec",
        .dd_resource = resource,
        .dd_permit = 1,
        .dd_cause = "permitted",
        .dd_rule = "policy_0",
        .dd_message = "policy permitted this \"operation\"\n",
        .dd_epoch = 42,
        .dd_process_command = "[",
        .dd_command_args = args,
        .dd_ncommand_args = 5,
        .dd_working_directory = "/w",
    };
    return d;
}

typedef struct writer_arg {
    pdp_dlog *wa_log;
    int wa_id;
} writer_arg;

static void *
writer(void *arg)
{
    writer_arg *w = arg;
    char res[32];
    for (int i = 0; i < PER_THREAD; i++) {
        snprintf(res, sizeof res, "t%d-%05d", w->wa_id, i);
        pdp_dlog_decision d = decision(res);
        if (pdp_dlog_decision_add(w->wa_log, &d) != BOX_OK)
            return (void *)1;
    }
    return NULL;
}

/* Four threads against a queue of 8 lines: every line lands whole, each
 * thread's in its own order, and close writes what still waits. */
static void
test_threads_small_queue(void **state)
{
    (void)state;
    tmp_log t;
    pdp_dlog *l;
    tmp_open(&t, 8, &l);
    pthread_t th[THREADS];
    writer_arg wa[THREADS];
    for (int i = 0; i < THREADS; i++) {
        wa[i] = (writer_arg){l, i};
        assert_int_equal(pthread_create(&th[i], NULL, writer, &wa[i]), 0);
    }
    for (int i = 0; i < THREADS; i++) {
        void *rv;
        pthread_join(th[i], &rv);
        assert_null(rv);
    }
    pdp_dlog_close(l);
    json_object **v;
    size_t n = tmp_lines(&t, &v);
    assert_int_equal(n, THREADS * PER_THREAD);
    int next[THREADS] = {0};
    for (size_t i = 0; i < n; i++) {
        const char *r = attr(v[i], "strands.box.policy.resource");
        assert_non_null(r);
        int th_id, k;
        assert_int_equal(sscanf(r, "t%d-%d", &th_id, &k), 2);
        assert_true(th_id >= 0 && th_id < THREADS);
        assert_int_equal(k, next[th_id]);
        next[th_id]++;
        assert_string_equal(attr(v[i], "strands.box.policy.epoch"), "42");
    }
    tmp_free(&t, v, n);
}

/* A record past the line bound is refused whole; the lines on either side
 * of it are in the file, intact. */
static void
test_oversized_record(void **state)
{
    (void)state;
    tmp_log t;
    pdp_dlog *l;
    tmp_open(&t, 0, &l);
    pdp_dlog_decision d = decision("before");
    assert_int_equal(pdp_dlog_decision_add(l, &d), BOX_OK);
    size_t big = PDP_DLOG_LINE_MAX + 10;
    char *huge = box_alloc(big + 1);
    assert_non_null(huge);
    memset(huge, 'x', big);
    huge[big] = '\0';
    d = decision(huge);
    assert_int_equal(pdp_dlog_decision_add(l, &d), BOX_ETOOBIG);
    box_free(huge);
    d = decision("after");
    assert_int_equal(pdp_dlog_decision_add(l, &d), BOX_OK);
    assert_int_equal(pdp_dlog_control_add(l, "box_stopped", "ok", "p.dw", NULL),
                     BOX_OK);
    pdp_dlog_close(l);
    json_object **v;
    size_t n = tmp_lines(&t, &v);
    assert_int_equal(n, 3);
    assert_string_equal(attr(v[0], "strands.box.policy.resource"), "before");
    assert_string_equal(attr(v[1], "strands.box.policy.resource"), "after");
    assert_string_equal(attr(v[2], "strands.box.control.operation"),
                        "box_stopped");
    tmp_free(&t, v, n);
}

/* The writer does not hold lines back for long: a lone decision is on
 * disk well before a second one comes. */
static void
test_lone_line_written(void **state)
{
    (void)state;
    tmp_log t;
    pdp_dlog *l;
    tmp_open(&t, 0, &l);
    pdp_dlog_decision d = decision("alone");
    assert_int_equal(pdp_dlog_decision_add(l, &d), BOX_OK);
    int waited = 0;
    while (pdp_dlog_written(l) < 1 && waited < 5000) {
        usleep(1000);
        waited++;
    }
    assert_int_equal(pdp_dlog_written(l), 1);
    pdp_dlog_close(l);
    json_object **v;
    size_t n = tmp_lines(&t, &v);
    assert_int_equal(n, 1);
    tmp_free(&t, v, n);
}

/* Every record has its span (tmp_lines checks each): a permit, a denial,
 * a fault (ERROR status) and a control record. */
static void
test_spans(void **state)
{
    (void)state;
    tmp_log t;
    pdp_dlog *l;
    tmp_open(&t, 0, &l);
    pdp_dlog_decision d = decision("permitted");
    assert_int_equal(pdp_dlog_decision_add(l, &d), BOX_OK);
    d = decision("denied");
    d.dd_permit = 0;
    d.dd_cause = "forbidden";
    assert_int_equal(pdp_dlog_decision_add(l, &d), BOX_OK);
    d = decision("faulted");
    d.dd_permit = 0;
    d.dd_cause = "internal_fault";
    d.dd_action = "fs:read";
    assert_int_equal(pdp_dlog_decision_add(l, &d), BOX_OK);
    assert_int_equal(
        pdp_dlog_control_add(l, "policy_installed", "ok", "policy.dw", NULL),
        BOX_OK);
    pdp_dlog_close(l);
    json_object **v;
    size_t n = tmp_lines(&t, &v);
    assert_int_equal(n, 4);
    tmp_free(&t, v, n);
}

/* line with the value of each id and time blanked: what two records of
 * the same decision share. The caller frees it. */
static char *
masked(const char *line)
{
    static const char *const keys[] = {
        "\"traceId\":\"",           "\"spanId\":\"",
        "\"timeUnixNano\":\"",      "\"observedTimeUnixNano\":\"",
        "\"startTimeUnixNano\":\"", "\"endTimeUnixNano\":\""};
    char *out = box_alloc(strlen(line) + 1);
    assert_non_null(out);
    size_t n = 0;
    for (const char *p = line; *p;) {
        size_t k = 0;
        for (; k < sizeof keys / sizeof keys[0]; k++)
            if (strncmp(p, keys[k], strlen(keys[k])) == 0)
                break;
        if (k == sizeof keys / sizeof keys[0]) {
            out[n++] = *p++;
            continue;
        }
        memcpy(out + n, keys[k], strlen(keys[k]));
        n += strlen(keys[k]);
        p += strlen(keys[k]);
        while (*p && *p != '"')
            p++;
        out[n++] = 'X';
    }
    out[n] = '\0';
    return out;
}

/* Records logged from a template are the record pdp_dlog_decision_add
 * writes, byte for byte but for their ids and times, and each has ids of
 * its own (a permit and a fault with its error and ERROR span). */
static void
test_template_records(void **state)
{
    (void)state;
    tmp_log t;
    pdp_dlog *l;
    tmp_open(&t, 0, &l);
    pdp_dlog_decision ds[2] = {decision("permitted"), decision("faulted")};
    ds[1].dd_permit = 0;
    ds[1].dd_cause = "internal_fault";
    ds[1].dd_error = "policy_0: \"quoted\" error";
    ds[1].dd_cached = 1;
    for (int k = 0; k < 2; k++) {
        pdp_dlog_tmpl *tm;
        assert_int_equal(pdp_dlog_tmpl_make(l, &ds[k], &tm), BOX_OK);
        assert_int_equal(pdp_dlog_decision_add(l, &ds[k]), BOX_OK);
        for (int i = 0; i < 3; i++)
            assert_int_equal(pdp_dlog_tmpl_add(l, tm), BOX_OK);
        pdp_dlog_tmpl_free(tm);
    }
    pdp_dlog_close(l);
    // Record and span lines alike: 2 × (1 + 3) records, 16 lines.
    FILE *f = fopen(t.path, "r");
    assert_non_null(f);
    char *lines[16] = {0}, *line = NULL;
    size_t cap = 0, n = 0;
    while (getline(&line, &cap, f) > 0) {
        assert_true(n < 16);
        lines[n++] = masked(line);
    }
    free(line); // lint: allow raw-alloc: getline mallocs it
    fclose(f);
    assert_int_equal(n, 16);
    for (size_t i = 0; i < 16; i++) {
        size_t first = i / 8 * 8 + i % 2; // the add's record or span
        assert_string_equal(lines[i], lines[first]);
    }
    for (size_t i = 0; i < 16; i++)
        box_free(lines[i]);
    // Parsed, each record has its span, with the same ids (tmp_lines).
    json_object **v;
    size_t nr = tmp_lines(&t, &v);
    assert_int_equal(nr, 8);
    static const char *const trace[] = {"resourceLogs", "0", "scopeLogs",
                                        "0",            "logRecords", "0",
                                        "traceId",      NULL};
    for (size_t i = 0; i < nr; i++)
        for (size_t j = i + 1; j < nr; j++)
            assert_string_not_equal(at_str(v[i], trace), at_str(v[j], trace));
    tmp_free(&t, v, nr);
}

/* A disk that takes only part of a batch (a file size limit standing
 * for a full disk): the batch is cut back, so the file holds only whole
 * lines, and the next line starts on a line of its own. */
static void
test_full_disk_whole_lines(void **state)
{
    (void)state;
    tmp_log t;
    pdp_dlog *l;
    tmp_open(&t, 0, &l);
    pdp_dlog_decision d = decision("first");
    assert_int_equal(pdp_dlog_decision_add(l, &d), BOX_OK);
    pdp_dlog_close(l);
    struct stat st;
    assert_int_equal(stat(t.path, &st), 0);
    pdp_dlog_ident id = {.di_box_id = "box-0123456789abcdef",
                         .di_run_id = "run-1"};
    assert_int_equal(pdp_dlog_open(t.path, &id, 0, &l), BOX_OK);
    struct rlimit old, small;
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small = (struct rlimit){.rlim_cur = (rlim_t)st.st_size + 100,
                            .rlim_max = old.rlim_max};
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    for (int i = 0; i < 5; i++) {
        d = decision("refused by the disk");
        assert_int_equal(pdp_dlog_decision_add(l, &d), BOX_OK);
    }
    pdp_dlog_close(l); // drains: the write fails and is cut back
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    assert_int_equal(pdp_dlog_open(t.path, &id, 0, &l), BOX_OK);
    d = decision("after");
    assert_int_equal(pdp_dlog_decision_add(l, &d), BOX_OK);
    pdp_dlog_close(l);
    json_object **v;
    size_t n = tmp_lines(&t, &v); // every line whole JSON
    assert_int_equal(n, 2);
    assert_string_equal(attr(v[0], "strands.box.policy.resource"), "first");
    assert_string_equal(attr(v[1], "strands.box.policy.resource"), "after");
    tmp_free(&t, v, n);
}

/* Copies the pipe at fd into the file at path until end of file. */
typedef struct drain_arg {
    int da_fd;
    const char *da_path;
} drain_arg;

static void *
drain(void *arg)
{
    drain_arg *d = arg;
    FILE *out = fopen(d->da_path, "w");
    if (out == NULL)
        return (void *)1;
    char buf[65536];
    ssize_t n;
    while ((n = read(d->da_fd, buf, sizeof buf)) > 0)
        if (fwrite(buf, 1, (size_t)n, out) != (size_t)n)
            break;
    fclose(out);
    return n == 0 ? NULL : (void *)1;
}

/* A batch of megabytes (the writer held up by a reader that has not read
 * yet, as a slow disk would) goes out in slices: every line lands whole,
 * in order, none lost. */
static void
test_big_batch_in_slices(void **state)
{
    (void)state;
    enum { N = 4000 }; // about 5 MB, under what deciders may queue
    char dir[] = "/tmp/pdp-dlog-fifo-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char fifo[64];
    tmp_log t;
    snprintf(fifo, sizeof fifo, "%s/log", dir);
    snprintf(t.path, sizeof t.path, "%s/copy", dir);
    assert_int_equal(mkfifo(fifo, 0600), 0);
    int rfd = open(fifo, O_RDONLY | O_NONBLOCK); // so the log's open returns
    assert_true(rfd >= 0);
    pdp_dlog_ident id = {.di_box_id = "box-0123456789abcdef",
                         .di_run_id = "run-1"};
    pdp_dlog *l;
    assert_int_equal(pdp_dlog_open(fifo, &id, 100000, &l), BOX_OK);
    for (int i = 0; i < N; i++) {
        char res[32];
        snprintf(res, sizeof res, "r%05d", i);
        pdp_dlog_decision d = decision(res);
        assert_int_equal(pdp_dlog_decision_add(l, &d), BOX_OK);
    }
    assert_int_equal(fcntl(rfd, F_SETFL, 0), 0); // reads wait from now on
    pthread_t th;
    drain_arg da = {rfd, t.path};
    assert_int_equal(pthread_create(&th, NULL, drain, &da), 0);
    pdp_dlog_close(l); // its end of the pipe closes: the drain sees EOF
    void *rv;
    pthread_join(th, &rv);
    assert_null(rv);
    close(rfd);
    json_object **v;
    size_t n = tmp_lines(&t, &v);
    assert_int_equal(n, N);
    for (int i = 0; i < N; i++) {
        char res[32];
        snprintf(res, sizeof res, "r%05d", i);
        assert_string_equal(attr(v[i], "strands.box.policy.resource"), res);
    }
    tmp_free(&t, v, n);
    unlink(fifo);
    rmdir(dir);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_full_disk_whole_lines),
        cmocka_unit_test(test_spans),
        cmocka_unit_test(test_template_records),
        cmocka_unit_test(test_threads_small_queue),
        cmocka_unit_test(test_oversized_record),
        cmocka_unit_test(test_lone_line_written),
        cmocka_unit_test(test_big_batch_in_slices),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
