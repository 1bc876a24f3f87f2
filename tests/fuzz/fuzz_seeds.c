/* SPDX-License-Identifier: Apache-2.0 */
/* Writes the seeds of the wire fuzz targets (alias_frame, pdp_request). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_arena.h"
#include "box_buf.h"
#include "box_req.h"
#include "box_wire.h"

/*
 * Usage: fuzz_seeds DIR (normally tests/fuzz). Each seed is one row of a
 * table below; run it again after box.proto changes and commit what
 * changed. The seeds are what real peers send (packed by protobuf-c, as
 * they pack them), plus the hostile shapes the readers must refuse: a cut
 * frame, a lying length, a kind the peer may not send, deep nesting.
 */

#define SEED_ARENA (1u << 20)

static box_arena *seed_arena;
static const char *seed_dir;
static int seed_failed;

static void *
seed_zalloc(size_t n)
{
    void *p = box_arena_zalloc(seed_arena, n);
    if (p == NULL) {
        fprintf(stderr, "fuzz_seeds: out of memory\n");
        _exit(1);
    }
    return p;
}

/* Writes b[0..n) to DIR/target/name. */
static void
seed_write(const char *target, const char *name, const void *b, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s/%s", seed_dir, target, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, b, n) != (ssize_t)n) {
        fprintf(stderr, "fuzz_seeds: %s: %s\n", path, strerror(errno));
        seed_failed = 1;
    }
    if (fd >= 0)
        close(fd);
}

/* ---- values ---- */

static Box__Value *
v_str(const char *s)
{
    Box__Value *v = seed_zalloc(sizeof *v);
    box__value__init(v);
    v->kind_case = BOX__VALUE__KIND_STR;
    v->str = (char *)s;
    return v;
}

static Box__Value *
v_long(int64_t l)
{
    Box__Value *v = seed_zalloc(sizeof *v);
    box__value__init(v);
    v->kind_case = BOX__VALUE__KIND_LONG;
    v->long_ = l;
    return v;
}

static Box__Value *
v_bool(int b)
{
    Box__Value *v = seed_zalloc(sizeof *v);
    box__value__init(v);
    v->kind_case = BOX__VALUE__KIND_BOOLEAN;
    v->boolean = b;
    return v;
}

/* A set of the strings in a NULL-ended list. */
static Box__Value *
v_strset(const char *const *items)
{
    Box__Value *v = seed_zalloc(sizeof *v);
    Box__ValueSet *s = seed_zalloc(sizeof *s);
    size_t n = 0;
    while (items[n] != NULL)
        n++;
    box__value__init(v);
    box__value_set__init(s);
    s->elements = seed_zalloc((n + 1) * sizeof *s->elements);
    for (size_t i = 0; i < n; i++)
        s->elements[i] = v_str(items[i]);
    s->n_elements = n;
    v->kind_case = BOX__VALUE__KIND_SET;
    v->set = s;
    return v;
}

/* A record from name, value pairs ending in a NULL name. */
static Box__Value *
v_record(const char *const *names, Box__Value *const *vals)
{
    Box__Value *v = seed_zalloc(sizeof *v);
    Box__ValueRecord *r = seed_zalloc(sizeof *r);
    size_t n = 0;
    while (names[n] != NULL)
        n++;
    box__value__init(v);
    box__value_record__init(r);
    r->fields = seed_zalloc((n + 1) * sizeof *r->fields);
    for (size_t i = 0; i < n; i++) {
        Box__RecordField *f = seed_zalloc(sizeof *f);
        box__record_field__init(f);
        f->name = (char *)names[i];
        f->value = vals[i];
        r->fields[i] = f;
    }
    r->n_fields = n;
    v->kind_case = BOX__VALUE__KIND_RECORD;
    v->record = r;
    return v;
}

static Box__DecisionRequest *
req_new(const char *action, const char *resource, Box__Value *input)
{
    Box__DecisionRequest *q = seed_zalloc(sizeof *q);
    box__decision_request__init(q);
    q->action = (char *)action;
    q->resource = (char *)resource;
    q->input = input;
    q->request_id = 42;
    q->box_id = "box-0123456789abcdef";
    return q;
}

/* ---- pdp_request ---- */

static void
pdp_write(const char *name, const Box__PdpRequest *r)
{
    size_t n = box__pdp_request__get_packed_size(r);
    uint8_t *b = seed_zalloc(n + 1);
    box__pdp_request__pack(r, b);
    seed_write("pdp_request", name, b, n);
}

static void
pdp_write_one(const char *name, Box__DecisionRequest *q)
{
    Box__PdpRequest r = BOX__PDP_REQUEST__INIT;
    r.body_case = BOX__PDP_REQUEST__BODY_DECIDE;
    r.decide = q;
    pdp_write(name, &r);
}

static void
pdp_seeds(void)
{
    box_req exec, rd, env, wr;
    box_req_exec(&exec, "grep", "grep -n TODO src/main.rs", 3, "/home/op/src");
    pdp_write_one("decide-exec.bin", &exec.r_req);
    box_req_fs(&rd, "fs:read", "Box::FsReadOperation", "read_content",
               "~/src/main.c");
    pdp_write_one("decide-read.bin", &rd.r_req);
    box_req_fs(&env, "fs:read", "Box::FsReadOperation", "read_content",
               "~/src/.env");
    pdp_write_one("decide-read-env.bin", &env.r_req);

    // A reach-floor refusal with the subject the log records.
    box_req_fs(&wr, "fs:write", "Box::FsWriteOperation", "write_content",
               "~/src/box.toml");
    Box__Enforcement en = BOX__ENFORCEMENT__INIT;
    en.gate = "reach-floor";
    en.reason = "box.toml is out of reach";
    Box__Subject sub = BOX__SUBJECT__INIT;
    char *args[] = {"cp", "x", "\x1b[2Jbox.toml\xe2\x80\xae"};
    sub.command_args = args;
    sub.n_command_args = 3;
    sub.working_directory = "/home/op/src";
    sub.file_path = "/home/op/src/box.toml";
    sub.process_command = "cp";
    wr.r_req.enforcement = &en;
    wr.r_req.subject = &sub;
    pdp_write_one("decide-write-enforced.bin", &wr.r_req);

    // The overflow rule: arg_count near INT64_MAX is an evaluation error.
    box_req big;
    box_req_exec(&big, "echo", "echo", INT64_MAX - 5, "/");
    pdp_write_one("decide-exec-overflow.bin", &big.r_req);

    static const char *const spawn_names[] = {
        "command", "program",   "program_path", "credential_reads",
        "arg1",    "arg_count", "cwd",          NULL};
    static const char *const creds[] = {"~/.ssh/id_rsa", "~/.netrc", NULL};
    Box__Value *spawn_vals[] = {v_str("git status"),   v_str("git"),
                                v_str("/usr/bin/git"), v_strset(creds),
                                v_str("status"),       v_long(1),
                                v_str("/home/op/src")};
    pdp_write_one("decide-spawn.bin",
                  req_new("shell:spawn", "/usr/bin/git",
                          v_record(spawn_names, spawn_vals)));

    static const char *const http_names[] = {
        "host", "port", "method", "path", "body_bytes", "intercepted", NULL};
    Box__Value *http_vals[] = {v_str("example.com"), v_long(443),
                               v_str("POST"),        v_str("/upload"),
                               v_long(1 << 20),      v_bool(0)};
    Box__DecisionRequest *http =
        req_new("http:request", "POST https://example.com/upload",
                v_record(http_names, http_vals));
    Box__Subject hsub = BOX__SUBJECT__INIT;
    hsub.server_address = "example.com";
    hsub.server_port = 443;
    hsub.http_method = "POST";
    http->subject = &hsub;
    http->cached = 1;
    pdp_write_one("decide-http.bin", http);

    static const char *const net_names[] = {"host", "ip", "port", NULL};
    Box__Value *net_vals[] = {v_str("db"), v_str("10.1.2.3"), v_long(5432)};
    pdp_write_one("decide-net.bin", req_new("net:connect", "db:5432",
                                            v_record(net_names, net_vals)));

    // Requests that do not convert or do not conform: faults, not crashes.
    pdp_write_one("decide-input-not-record.bin",
                  req_new("fs:read", "x", v_str("x")));
    static const char *const dup_names[] = {"path", "path", NULL};
    Box__Value *dup_vals[] = {v_str("/a"), v_str("/b")};
    pdp_write_one("decide-duplicate-field.bin",
                  req_new("fs:read", "/a", v_record(dup_names, dup_vals)));
    pdp_write_one("decide-unknown-action.bin",
                  req_new("fs:raed", "/a", v_record(dup_names + 1, dup_vals)));

    // A batch: a rename asks four things.
    box_req b[4];
    box_req_fs(&b[0], "fs:move", "Box::FsMoveOperation", "rename", "~/src/a");
    box_req_fs(&b[1], "fs:move", "Box::FsMoveOperation", "rename", "~/src/b");
    box_req_fs(&b[2], "fs:write", "Box::FsWriteOperation", "write_content",
               "~/src/b");
    box_req_fs(&b[3], "fs:delete", "Box::FsDeleteOperation", "remove_file",
               "~/src/a");
    Box__DecisionRequest *bq[] = {&b[0].r_req, &b[1].r_req, &b[2].r_req,
                                  &b[3].r_req};
    Box__DecisionBatch batch = BOX__DECISION_BATCH__INIT;
    batch.requests = bq;
    batch.n_requests = 4;
    Box__PdpRequest r = BOX__PDP_REQUEST__INIT;
    r.body_case = BOX__PDP_REQUEST__BODY_DECIDE_BATCH;
    r.decide_batch = &batch;
    pdp_write("batch-rename.bin", &r);

    Box__HealthRequest h = BOX__HEALTH_REQUEST__INIT;
    Box__PdpRequest hr = BOX__PDP_REQUEST__INIT;
    hr.body_case = BOX__PDP_REQUEST__BODY_HEALTH;
    hr.health = &h;
    pdp_write("health.bin", &hr);

    Box__Event ev = BOX__EVENT__INIT;
    ev.action = "fs:read";
    ev.kind = BOX__EVENT_KIND__EVENT_RESPONSE;
    ev.input = rd.r_req.input;
    ev.request_id = 42;
    Box__Event *evp[] = {&ev};
    Box__EventBatch eb = BOX__EVENT_BATCH__INIT;
    eb.events = evp;
    eb.n_events = 1;
    Box__PdpRequest er = BOX__PDP_REQUEST__INIT;
    er.body_case = BOX__PDP_REQUEST__BODY_RECORD;
    er.record = &eb;
    pdp_write("record.bin", &er);

    // Nested as deep as the PDP takes values, and past the wire's limit.
    size_t n = 0;
    uint8_t *deep = box_req_nested(1, 100, &n);
    if (deep != NULL)
        seed_write("pdp_request", "decide-nested-100.bin", deep, n);
    box_free(deep);
    if ((deep = box_req_nested(1, BOX_WIRE_DEPTH_MAX + 1, &n)) != NULL)
        seed_write("pdp_request", "decide-nested-too-deep.bin", deep, n);
    box_free(deep);
}

/* ---- alias_frame ---- */

/* Appends one frame (4-byte length, then the packed frame). */
static void
frame_put(box_buf *out, const Box__AliasFrame *f)
{
    size_t n = box__alias_frame__get_packed_size(f);
    uint8_t *b = seed_zalloc(n + 1);
    uint8_t hdr[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8),
                      (uint8_t)n};
    box__alias_frame__pack(f, b);
    if (box_buf_append(out, hdr, 4) != BOX_OK ||
        box_buf_append(out, b, n) != BOX_OK)
        seed_failed = 1;
}

static void
frame_write(const char *name, box_buf *out)
{
    seed_write("alias_frame", name, out->b_data, out->b_len);
    box_buf_reset(out);
}

static void
frame_seeds(void)
{
    box_buf s;
    box_buf_init(&s, 1u << 20);

    Box__OpenShell sh = BOX__OPEN_SHELL__INIT;
    Box__Open open = BOX__OPEN__INIT;
    open.version = BOX_ALIAS_PROTOCOL_VERSION;
    open.mode_case = BOX__OPEN__MODE_SHELL;
    open.shell = &sh;
    Box__AliasFrame fo = BOX__ALIAS_FRAME__INIT;
    fo.program = 1;
    fo.body_case = BOX__ALIAS_FRAME__BODY_OPEN;
    fo.open = &open;

    Box__Correlation corr = BOX__CORRELATION__INIT;
    corr.traceparent =
        "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01";
    corr.tracestate = "box=1";
    Box__Call call = BOX__CALL__INIT;
    call.source = "ls -la | grep TODO > todo.txt && git add todo.txt\n";
    call.correlation = &corr;
    Box__AliasFrame fc = BOX__ALIAS_FRAME__INIT;
    fc.program = 1;
    fc.body_case = BOX__ALIAS_FRAME__BODY_CALL;
    fc.call = &call;

    // What an alias sends for `sh -c TEXT`.
    frame_put(&s, &fo);
    frame_put(&s, &fc);
    frame_write("open-call.bin", &s);

    // Every kind an alias may send, in order.
    Box__Input in = BOX__INPUT__INIT;
    in.data.data = (uint8_t *)"line one\nline two\n";
    in.data.len = 18;
    Box__AliasFrame fi = BOX__ALIAS_FRAME__INIT;
    fi.program = 1;
    fi.body_case = BOX__ALIAS_FRAME__BODY_INPUT;
    fi.input = &in;
    Box__InputEof eof = BOX__INPUT_EOF__INIT;
    Box__AliasFrame fe = BOX__ALIAS_FRAME__INIT;
    fe.program = 1;
    fe.body_case = BOX__ALIAS_FRAME__BODY_INPUT_EOF;
    fe.input_eof = &eof;
    Box__Signal sig = BOX__SIGNAL__INIT;
    sig.kind = BOX__SIGNAL_KIND__SIGNAL_INTERRUPT;
    Box__AliasFrame fs = BOX__ALIAS_FRAME__INIT;
    fs.program = 1;
    fs.body_case = BOX__ALIAS_FRAME__BODY_SIGNAL;
    fs.signal = &sig;
    Box__Close cl = BOX__CLOSE__INIT;
    Box__AliasFrame fx = BOX__ALIAS_FRAME__INIT;
    fx.program = 1;
    fx.body_case = BOX__ALIAS_FRAME__BODY_CLOSE;
    fx.close = &cl;
    frame_put(&s, &fo);
    frame_put(&s, &fc);
    frame_put(&s, &fi);
    frame_put(&s, &fe);
    frame_put(&s, &fs);
    frame_put(&s, &fx);
    frame_write("session.bin", &s);

    // A call that streams stdin (protocol 8): Input frames of one byte,
    // of BOX_INPUT_CHUNK_MAX bytes (every byte value), of none, then
    // InputEof; the broker pulls them piece by piece.
    Box__Call scall = BOX__CALL__INIT;
    scall.source = "sort | uniq -c";
    scall.stdin_stream = 1;
    Box__AliasFrame fsc = BOX__ALIAS_FRAME__INIT;
    fsc.program = 1;
    fsc.body_case = BOX__ALIAS_FRAME__BODY_CALL;
    fsc.call = &scall;
    uint8_t *chunk = seed_zalloc(BOX_INPUT_CHUNK_MAX);
    for (size_t i = 0; i < BOX_INPUT_CHUNK_MAX; i++)
        chunk[i] = (uint8_t)(i * 7 + i / 256);
    Box__Input sin = BOX__INPUT__INIT;
    Box__AliasFrame fsi = BOX__ALIAS_FRAME__INIT;
    fsi.program = 1;
    fsi.body_case = BOX__ALIAS_FRAME__BODY_INPUT;
    fsi.input = &sin;
    frame_put(&s, &fo);
    frame_put(&s, &fsc);
    sin.data.data = chunk;
    sin.data.len = 1;
    frame_put(&s, &fsi);
    sin.data.len = BOX_INPUT_CHUNK_MAX;
    frame_put(&s, &fsi);
    sin.data.len = 0;
    frame_put(&s, &fsi);
    frame_put(&s, &fe);
    frame_write("stdin-stream.bin", &s);

    // Open for MCP and Python, an old version, an empty frame.
    Box__OpenMcp mcp = BOX__OPEN_MCP__INIT;
    mcp.server = "files";
    Box__Open om = BOX__OPEN__INIT;
    om.version = BOX_ALIAS_PROTOCOL_VERSION - 1;
    om.mode_case = BOX__OPEN__MODE_MCP;
    om.mcp = &mcp;
    Box__AliasFrame fm = BOX__ALIAS_FRAME__INIT;
    fm.program = 2;
    fm.body_case = BOX__ALIAS_FRAME__BODY_OPEN;
    fm.open = &om;
    Box__AliasFrame empty = BOX__ALIAS_FRAME__INIT;
    frame_put(&s, &fm);
    frame_put(&s, &empty);
    frame_write("open-mcp-empty.bin", &s);

    // A frame cut short, and a length past BOX_FRAME_MAX.
    frame_put(&s, &fo);
    frame_put(&s, &fc);
    s.b_len -= 7;
    frame_write("cut.bin", &s);
    static const uint8_t huge[] = {0x00, 0x10, 0x00, 0x01, 0x08, 0x01};
    frame_put(&s, &fo);
    if (box_buf_append(&s, huge, sizeof huge) != BOX_OK)
        seed_failed = 1;
    frame_write("too-big.bin", &s);

    // Kinds only the service sends, or only a worker: refused unread.
    Box__Exit ex = BOX__EXIT__INIT;
    ex.status = 0;
    Box__AliasFrame fexit = BOX__ALIAS_FRAME__INIT;
    fexit.body_case = BOX__ALIAS_FRAME__BODY_EXIT;
    fexit.exit = &ex;
    frame_put(&s, &fo);
    frame_put(&s, &fexit);
    frame_write("server-kind.bin", &s);

    size_t n = 0;
    uint8_t *deep = box_req_nested(11, BOX_WIRE_DEPTH_MAX + 1, &n);
    if (deep != NULL) {
        uint8_t hdr[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16),
                          (uint8_t)(n >> 8), (uint8_t)n};
        if (box_buf_append(&s, hdr, 4) != BOX_OK ||
            box_buf_append(&s, deep, n) != BOX_OK)
            seed_failed = 1;
        frame_write("decide-nested.bin", &s);
    }
    box_free(deep);
}

int
main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_seeds DIR   (normally tests/fuzz)\n");
        return 100;
    }
    seed_dir = argv[1];
    if ((seed_arena = box_arena_new(SEED_ARENA)) == NULL)
        return 111;
    pdp_seeds();
    frame_seeds();
    box_arena_free(seed_arena);
    return seed_failed;
}
