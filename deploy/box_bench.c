/* SPDX-License-Identifier: Apache-2.0 */
/* `box bench pdp`: decisions in process, over the wire and from the cache,
 * each printed next to a peer measured in the same run; `box bench`
 * dispatches its other subcommands from here (box_bench.h). */
#include <errno.h>
#include <limits.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <spawn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>
#include <nng/nng.h>
#include <nng/protocol/reqrep0/rep.h>
#include <nng/protocol/reqrep0/req.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_bench.h"
#include "box_bench_box.h"
#include "box_cmd.h"
#include "box_control.h"
#include "box_pdp_client.h"
#include "box_proctab.h"
#include "box_svc.h"
#include "box_arena.h"
#include "pdp_decide.h"
#include "pdp_policy_file.h"
#include "pdp_schema.h"
#include "pdp_wire.h"

extern char **environ;

static const char bench_usage[] =
    "usage: box bench pdp [--seconds S] [--no-cedar] [--dir DIR]\n"
    "\n"
    "Measures the policy decision point on bench/pdp/policy.dw and\n"
    "bench/pdp/requests.json, each figure next to a peer from the same run:\n"
    "  in process   pdp_decide, decisions/s  vs  @cedar-policy/cedar-wasm\n"
    "  remote       box-pdp round trip       vs  a plain nng REQ/REP echo\n"
    "  cache        a permit-cache hit in ns\n"
    "\n"
    "  --seconds S  time per phase (default 2)\n"
    "  --no-cedar   skip the cedar-wasm peer (it needs node and\n"
    "               `npm --prefix bench/pdp install`)\n"
    "  --dir DIR    the bench/pdp directory (default: found from the\n"
    "               working directory or next to this program)\n";

#define BENCH_MAX_REQUESTS 256
#define BENCH_JSON_MAX (1u << 20)   // requests.json
#define BENCH_ARENA_MAX (16u << 20) // the requests, both shapes
#define BENCH_JSON_DEPTH 16
#define BENCH_ROUND 500 // remote calls per interleaved block
#define BENCH_MAX_SAMPLES (4u << 20)
#define BENCH_HIT_BLOCK 200 // < the client's 256 report slots
#define BENCH_HIT_BLOCKS_MAX (1u << 20)
#define BENCH_START_MS 10000
#define BENCH_RPC_TIMEOUT_MS 5000
#define BENCH_PEER_OUT_MAX 65536

/* Goals from the issue. */
#define GOAL_INPROC_RATIO 20.0
#define GOAL_REMOTE_RATIO 1.2
#define GOAL_HIT_NS 100.0

/* One request in both shapes: the wire message for the remote PDP and the
 * library's request for pdp_decide. All storage is in the set's arena. */
typedef struct bench_req {
    Box__DecisionRequest br_wire;
    pdp_request br_rq;
    bool br_expect_allow;
    uint8_t *br_packed; // PdpRequest{decide} bytes, what the echo carries
    size_t br_packed_len;
} bench_req;

typedef struct bench_set {
    box_arena *bs_arena;
    bench_req bs_req[BENCH_MAX_REQUESTS];
    size_t bs_n;
    size_t bs_permits;
} bench_set;

static uint64_t
bench_now_ns(void)
{
    return box_svc_clock_ns(CLOCK_MONOTONIC);
}

/* ------------------------------------------------------------------ */
/* requests.json                                                       */
/* ------------------------------------------------------------------ */

/*
 * requests.json is parsed by json-c; these functions turn its tree into
 * Box__Value trees in the set's arena: strings, integers, booleans,
 * objects (records), arrays (sets), and Cedar's entity escape
 * {"__entity": {"type": T, "id": I}}. Other numbers, null and strings
 * holding NUL are refused. The tokener caps nesting; so does the walk.
 * Nothing here keeps a pointer into the json-c tree.
 */
typedef struct bench_jctx {
    box_arena *jc_a;
    char jc_err[160];
} bench_jctx;

static bool
bench_jfail(bench_jctx *j, const char *what)
{
    if (j->jc_err[0] == '\0')
        snprintf(j->jc_err, sizeof j->jc_err, "%s", what);
    return false;
}

/* A string value copied into the arena. */
static bool
bench_jstr(bench_jctx *j, json_object *o, char **out)
{
    if (!json_object_is_type(o, json_type_string))
        return bench_jfail(j, "expected a string");
    const char *s = json_object_get_string(o);
    size_t n = (size_t)json_object_get_string_len(o);
    if (memchr(s, '\0', n) != NULL)
        return bench_jfail(j, "strings holding NUL are not supported");
    if ((*out = box_arena_strndup(j->jc_a, s, n)) == NULL)
        return bench_jfail(j, "out of memory");
    return true;
}

static bool bench_jvalue(bench_jctx *j, json_object *o, int depth,
                         Box__Value **out);

/* entity -> {"type": string, "id": string} (the value of "__entity") */
static bool
bench_jentity(bench_jctx *j, json_object *o, Box__Value *v)
{
    json_object *t, *id;
    Box__EntityRef *e = box_arena_zalloc(j->jc_a, sizeof *e);
    if (e == NULL)
        return bench_jfail(j, "out of memory");
    box__entity_ref__init(e);
    if (!json_object_is_type(o, json_type_object) ||
        json_object_object_length(o) != 2 ||
        !json_object_object_get_ex(o, "type", &t) ||
        !json_object_object_get_ex(o, "id", &id))
        return bench_jfail(j, "__entity takes type and id");
    if (!bench_jstr(j, t, &e->type) || !bench_jstr(j, id, &e->id))
        return false;
    v->kind_case = BOX__VALUE__KIND_ENTITY;
    v->entity = e;
    return true;
}

/* record -> { name: value }, fields in the file's order */
static bool
bench_jrecord(bench_jctx *j, json_object *o, int depth, Box__Value *v)
{
    size_t n = (size_t)json_object_object_length(o), i = 0;
    Box__ValueRecord *r = box_arena_zalloc(j->jc_a, sizeof *r);
    Box__RecordField **fs = box_arena_zalloc(j->jc_a, (n + 1) * sizeof *fs);
    if (r == NULL || fs == NULL)
        return bench_jfail(j, "out of memory");
    box__value_record__init(r);
    json_object_object_foreach(o, key, val)
    {
        Box__RecordField *f = box_arena_zalloc(j->jc_a, sizeof *f);
        if (f == NULL)
            return bench_jfail(j, "out of memory");
        box__record_field__init(f);
        if ((f->name = box_arena_strndup(j->jc_a, key, strlen(key))) == NULL)
            return bench_jfail(j, "out of memory");
        if (!bench_jvalue(j, val, depth + 1, &f->value))
            return false;
        fs[i++] = f;
    }
    r->n_fields = i;
    r->fields = fs;
    v->kind_case = BOX__VALUE__KIND_RECORD;
    v->record = r;
    return true;
}

/* set -> [ value, ... ] */
static bool
bench_jset(bench_jctx *j, json_object *o, int depth, Box__Value *v)
{
    size_t n = json_object_array_length(o);
    Box__ValueSet *s = box_arena_zalloc(j->jc_a, sizeof *s);
    Box__Value **es = box_arena_zalloc(j->jc_a, (n + 1) * sizeof *es);
    if (s == NULL || es == NULL)
        return bench_jfail(j, "out of memory");
    box__value_set__init(s);
    for (size_t i = 0; i < n; i++)
        if (!bench_jvalue(j, json_object_array_get_idx(o, i), depth + 1,
                          &es[i]))
            return false;
    s->n_elements = n;
    s->elements = es;
    v->kind_case = BOX__VALUE__KIND_SET;
    v->set = s;
    return true;
}

/* value -> string | integer | true | false | entity | record | set */
static bool
bench_jvalue(bench_jctx *j, json_object *o, int depth, Box__Value **out)
{
    json_object *ent;
    if (depth > BENCH_JSON_DEPTH)
        return bench_jfail(j, "nested too deeply");
    Box__Value *v = box_arena_zalloc(j->jc_a, sizeof *v);
    if (v == NULL)
        return bench_jfail(j, "out of memory");
    box__value__init(v);
    *out = v;
    switch (json_object_get_type(o)) {
    case json_type_string:
        v->kind_case = BOX__VALUE__KIND_STR;
        return bench_jstr(j, o, &v->str);
    case json_type_boolean:
        v->kind_case = BOX__VALUE__KIND_BOOLEAN;
        v->boolean = json_object_get_boolean(o) ? 1 : 0;
        return true;
    case json_type_int:
        // json-c keeps integers over INT64_MAX as uint64 and clamps those
        // under INT64_MIN to it, so INT64_MIN is refused with them.
        v->long_ = json_object_get_int64(o);
        if ((v->long_ == INT64_MAX &&
             json_object_get_uint64(o) != (uint64_t)INT64_MAX) ||
            v->long_ == INT64_MIN)
            return bench_jfail(j, "integer out of range (-2^63 < n < 2^63)");
        v->kind_case = BOX__VALUE__KIND_LONG;
        return true;
    case json_type_object:
        if (json_object_object_get_ex(o, "__entity", &ent)) {
            if (json_object_object_length(o) != 1)
                return bench_jfail(j, "__entity stands alone");
            return bench_jentity(j, ent, v);
        }
        return bench_jrecord(j, o, depth, v);
    case json_type_array:
        return bench_jset(j, o, depth, v);
    case json_type_double:
        return bench_jfail(j, "only integers are supported");
    case json_type_null:
        break;
    }
    return bench_jfail(j, "null is not supported");
}

/* Builds the library's request for q (principal, action and resource as
 * the PDP server names them, context {input: …}). */
static bool
bench_req_lib(box_arena *a, bench_req *q)
{
    const pdp_value *in;
    pdp_value *p, *act, *res, *ctx;
    const char *act_id = q->br_wire.action;
    if (pdp_wire_value(a, q->br_wire.input, 0, &in) != BOX_OK ||
        pdp_value_entity(a, "Box::Agent", 10, "self", 4, &p) != BOX_OK ||
        pdp_value_entity(a, "Box::Action", 11, act_id, strlen(act_id), &act) !=
            BOX_OK ||
        pdp_value_entity(a, "Box::Resource", 13, "unused", 6, &res) != BOX_OK ||
        (ctx = pdp_value_record_new(a)) == NULL ||
        pdp_value_record_put(a, ctx, "input", 5, in) != BOX_OK)
        return false;
    q->br_rq = (pdp_request){.rq_principal = p,
                             .rq_action = act,
                             .rq_resource = res,
                             .rq_context = ctx,
                             .rq_resource_text = q->br_wire.resource,
                             .rq_resource_len = strlen(q->br_wire.resource)};
    Box__PdpRequest pr = BOX__PDP_REQUEST__INIT;
    pr.body_case = BOX__PDP_REQUEST__BODY_DECIDE;
    pr.decide = &q->br_wire;
    q->br_packed_len = box__pdp_request__get_packed_size(&pr);
    if ((q->br_packed = box_arena_alloc(a, q->br_packed_len)) == NULL)
        return false;
    box__pdp_request__pack(&pr, q->br_packed);
    return true;
}

/* request -> {"action": string, "resource": string, "input": record,
 *             "expect": "allow" | "deny"} (keys in any order) */
static bool
bench_jrequest(bench_jctx *j, json_object *o, bench_req *q)
{
    char *expect = NULL;
    box__decision_request__init(&q->br_wire);
    if (!json_object_is_type(o, json_type_object))
        return bench_jfail(j, "expected a request object");
    json_object_object_foreach(o, key, val)
    {
        char **slot = strcmp(key, "action") == 0     ? &q->br_wire.action
                      : strcmp(key, "resource") == 0 ? &q->br_wire.resource
                      : strcmp(key, "expect") == 0   ? &expect
                                                     : NULL;
        if (strcmp(key, "input") == 0) {
            if (!bench_jvalue(j, val, 0, &q->br_wire.input))
                return false;
        } else if (slot == NULL) {
            return bench_jfail(j, "unknown request key");
        } else if (!bench_jstr(j, val, slot)) {
            return false;
        }
    }
    if (q->br_wire.action == NULL || q->br_wire.resource == NULL ||
        q->br_wire.input == NULL || expect == NULL ||
        q->br_wire.input->kind_case != BOX__VALUE__KIND_RECORD ||
        (strcmp(expect, "allow") != 0 && strcmp(expect, "deny") != 0))
        return bench_jfail(j, "a request needs action, resource, input "
                              "(an object) and expect (allow|deny)");
    q->br_expect_allow = strcmp(expect, "allow") == 0;
    if (!bench_req_lib(j->jc_a, q))
        return bench_jfail(j, "request does not convert to a policy value");
    return true;
}

static char *
bench_read_file(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    char *buf = box_alloc(max + 1);
    size_t n = buf ? fread(buf, 1, max + 1, f) : 0;
    fclose(f);
    if (buf == NULL || n > max) {
        box_free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* requests -> '[' request { ',' request } ']', at most BENCH_MAX_REQUESTS,
 * nothing but white space after it. */
static bool
bench_load_requests(const char *path, bench_set *bs)
{
    size_t len;
    char *text = bench_read_file(path, BENCH_JSON_MAX, &len);
    if (text == NULL) {
        box_cmd_error("cannot read %s (missing or over %u bytes)", path,
                      BENCH_JSON_MAX);
        return false;
    }
    bench_jctx j = {.jc_a = bs->bs_arena};
    json_object *root = NULL;
    // The file's array and a request object sit above the input value.
    json_tokener *tok = json_tokener_new_ex(BENCH_JSON_DEPTH + 3);
    bool ok = false;
    if (tok == NULL) {
        bench_jfail(&j, "out of memory");
        goto out;
    }
    json_tokener_set_flags(tok,
                           JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
    root = json_tokener_parse_ex(tok, text, (int)len);
    enum json_tokener_error je = json_tokener_get_error(tok);
    if (root == NULL || je != json_tokener_success) {
        snprintf(j.jc_err, sizeof j.jc_err, "offset %zu: %s",
                 json_tokener_get_parse_end(tok),
                 je == json_tokener_continue ? "unexpected end of text"
                                             : json_tokener_error_desc(je));
        goto out;
    }
    size_t end = json_tokener_get_parse_end(tok);
    if (end + strspn(text + end, " \t\r\n") != len) {
        snprintf(j.jc_err, sizeof j.jc_err, "offset %zu: trailing text", end);
        goto out;
    }
    if (!json_object_is_type(root, json_type_array)) {
        bench_jfail(&j, "expected an array of requests");
        goto out;
    }
    size_t n = json_object_array_length(root);
    if (n == 0 || n > BENCH_MAX_REQUESTS) {
        snprintf(j.jc_err, sizeof j.jc_err, "%zu requests (1 to %d)", n,
                 BENCH_MAX_REQUESTS);
        goto out;
    }
    for (size_t i = 0; i < n; i++) {
        bench_req *q = &bs->bs_req[i];
        if (!bench_jrequest(&j, json_object_array_get_idx(root, i), q)) {
            box_cmd_error("%s: request %zu: %s", path, i, j.jc_err);
            j.jc_err[0] = '\0'; // said
            goto out;
        }
        bs->bs_permits += q->br_expect_allow;
        bs->bs_n++;
    }
    ok = true;
out:
    if (!ok && j.jc_err[0] != '\0')
        box_cmd_error("%s: %s", path, j.jc_err);
    json_object_put(root);
    if (tok != NULL)
        json_tokener_free(tok);
    box_free(text);
    return ok;
}

/* ------------------------------------------------------------------ */
/* Processes and paths                                                 */
/* ------------------------------------------------------------------ */

/* Starts argv with a clean signal state and the environment envp; stdout
 * (if out >= 0) goes to out, stdout and stderr to log_path when given. 0
 * or an errno. */
static int
bench_spawn(char *const argv[], char *const envp[], bool search, int out,
            const char *log_path, pid_t *pid)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (out >= 0)
        posix_spawn_file_actions_adddup2(&fa, out, 1);
    if (log_path != NULL) {
        posix_spawn_file_actions_addopen(&fa, 1, log_path,
                                         O_WRONLY | O_CREAT | O_APPEND, 0600);
        posix_spawn_file_actions_adddup2(&fa, 1, 2);
    }
    int rv = box_svc_spawn(pid, argv[0], &fa, argv, envp,
                           search ? BOX_SPAWN_SEARCH : 0);
    posix_spawn_file_actions_destroy(&fa);
    return rv;
}

/* The directories of a box directory that box-pdp writes in (its sockets
 * and its decision log live under private/). */
static bool
bench_box_dir(const char *tmp)
{
    static const char *const dirs[] = {"private", "private/telemetry",
                                       "private/history"};
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        char p[4400];
        snprintf(p, sizeof p, "%s/%s", tmp, dirs[i]);
        if (mkdir(p, 0700) != 0 && errno != EEXIST)
            return false;
    }
    return true;
}

static void
bench_stop(pid_t pid)
{
    if (pid <= 0)
        return;
    kill(pid, SIGTERM);
    for (int i = 0; i < 300; i++) {
        if (waitpid(pid, NULL, WNOHANG) == pid)
            return;
        usleep(10000);
    }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

bool
box_bench_find_dir(const char *sub, const char *probe_file, const char *given,
                   char *out, size_t n)
{
    char self[4096], cand[3][4352];
    size_t nc = 0;
    if (given != NULL) {
        snprintf(cand[nc++], sizeof cand[0], "%s", given);
    } else {
        snprintf(cand[nc++], sizeof cand[0], "bench/%s", sub);
        if (box_cmd_self_dir(self, sizeof self) != NULL) {
            snprintf(cand[nc++], sizeof cand[0], "%s/../../bench/%s", self,
                     sub);
            snprintf(cand[nc++], sizeof cand[0], "%s/../share/box/bench/%s",
                     self, sub);
        }
    }
    for (size_t i = 0; i < nc; i++) {
        char probe[4400], real[PATH_MAX];
        if (snprintf(probe, sizeof probe, "%s/%s", cand[i], probe_file) >=
            (int)sizeof probe)
            continue;
        if (access(probe, R_OK) == 0 && realpath(cand[i], real) != NULL &&
            strlen(real) < n) {
            memcpy(out, real, strlen(real) + 1);
            return true;
        }
    }
    return false;
}

/* ------------------------------------------------------------------ */
/* Figures                                                             */
/* ------------------------------------------------------------------ */

typedef struct bench_figs {
    // in process
    double bf_dps;
    double bf_ns_per_decision;
    // cedar-wasm
    bool bf_cedar;
    double bf_cedar_dps;       // statefulIsAuthorized (preparsed)
    double bf_cedar_stateless; // isAuthorized (parses every call)
    char bf_cedar_version[32];
    char bf_cedar_why[256];
    // remote
    bool bf_remote;
    double bf_pdp_med, bf_pdp_p99, bf_pdp_mean;
    double bf_echo_med, bf_echo_p99, bf_echo_mean;
    size_t bf_samples;
    double bf_req_bytes, bf_resp_bytes;
    // cache
    bool bf_cache;
    double bf_hit_ns;      // the median block's, per hit
    double bf_hit_mean_ns; // all blocks'
    double bf_amort_ns;
    uint64_t bf_amort_hits, bf_amort_misses;
    int bf_mismatches;
} bench_figs;

/* Decides every request once; fills verdicts (A/D) and reports any
 * answer that differs from the file's expectation. */
static int
bench_check_inproc(const pdp_policy_set *set, const bench_set *bs,
                   pdp_answer *ans, char *verdicts)
{
    int bad = 0;
    for (size_t i = 0; i < bs->bs_n; i++) {
        const bench_req *q = &bs->bs_req[i];
        box_err rv = pdp_decide(set, &q->br_rq, ans);
        bool allow = rv == BOX_OK && pdp_answer_verdict(ans) == PDP_ALLOW;
        verdicts[i] = allow ? 'A' : 'D';
        if (allow != q->br_expect_allow || pdp_answer_error_count(ans) > 0) {
            size_t ml;
            fprintf(stderr,
                    "box bench: MISMATCH: request %zu (%s %s): box %s, "
                    "expected %s (%s)\n",
                    i, q->br_wire.action, q->br_wire.resource,
                    allow ? "allow" : "deny",
                    q->br_expect_allow ? "allow" : "deny",
                    pdp_answer_message(ans, &ml));
            bad++;
        }
    }
    verdicts[bs->bs_n] = '\0';
    return bad;
}

/*
 * In process: one thread, one answer reused for every decision, rounds
 * over every request until the time is up.
 */
static void
bench_inproc(const pdp_policy_set *set, const bench_set *bs, pdp_answer *ans,
             double seconds, bench_figs *f)
{
    uint64_t n = 0, allows = 0;
    for (int w = 0; w < 1000; w++)
        for (size_t i = 0; i < bs->bs_n; i++)
            if (pdp_decide(set, &bs->bs_req[i].br_rq, ans) == BOX_OK)
                allows += pdp_answer_verdict(ans) == PDP_ALLOW;
    uint64_t t0 = bench_now_ns(), end = t0 + (uint64_t)(seconds * 1e9), now;
    do {
        for (size_t i = 0; i < bs->bs_n; i++)
            if (pdp_decide(set, &bs->bs_req[i].br_rq, ans) == BOX_OK)
                allows += pdp_answer_verdict(ans) == PDP_ALLOW;
        n += bs->bs_n;
    } while ((now = bench_now_ns()) < end);
    double s = (double)(now - t0) / 1e9;
    f->bf_dps = (double)n / s;
    f->bf_ns_per_decision = 1e9 * s / (double)n;
    if (allows == 0) // keeps the loop honest; a policy with permits never
        fputs("box bench: no request was allowed\n", stderr);
}

/* Pulls "key": <number> out of one JSON line; -1 when absent. */
static double
bench_json_num(const char *line, const char *key)
{
    char pat[64];
    snprintf(pat, sizeof pat, "\"%s\":", key);
    const char *p = strstr(line, pat);
    return p ? strtod(p + strlen(pat), NULL) : -1;
}

/*
 * The cedar-wasm peer: node runs cedar_bench.mjs on the same policy and
 * requests, with the built-in schema this program validates against, and
 * checks every verdict against ours.
 */
static void
bench_cedar(const char *dir, const char *tmp, const char *verdicts,
            double seconds, bench_figs *f)
{
    char script[4400], pkg[4400], policy[4400], reqs[4400], schema[4400];
    char secs[32];
    snprintf(script, sizeof script, "%s/cedar_bench.mjs", dir);
    snprintf(pkg, sizeof pkg,
             "%s/node_modules/@cedar-policy/cedar-wasm/package.json", dir);
    snprintf(policy, sizeof policy, "%s/policy.dw", dir);
    snprintf(reqs, sizeof reqs, "%s/requests.json", dir);
    snprintf(schema, sizeof schema, "%s/actions.cedarschema", tmp);
    snprintf(secs, sizeof secs, "%g", seconds);
    if (access(pkg, R_OK) != 0) {
        snprintf(f->bf_cedar_why, sizeof f->bf_cedar_why,
                 "@cedar-policy/cedar-wasm is not installed; install it "
                 "with `npm --prefix bench/pdp install`");
        return;
    }
    size_t slen;
    const char *stext = pdp_schema_builtin_text(&slen);
    FILE *sf = fopen(schema, "w");
    if (sf == NULL || fwrite(stext, 1, slen, sf) != slen) {
        if (sf != NULL)
            fclose(sf);
        snprintf(f->bf_cedar_why, sizeof f->bf_cedar_why,
                 "cannot write the schema for node in %.200s", tmp);
        return;
    }
    fclose(sf);

    int pfd[2];
    if (pipe2(pfd, O_CLOEXEC) != 0) {
        snprintf(f->bf_cedar_why, sizeof f->bf_cedar_why, "pipe: %s",
                 strerror(errno));
        return;
    }
    char *argv[] = {"node",       script, "--policy", policy,
                    "--requests", reqs,   "--schema", schema,
                    "--seconds",  secs,   "--ours",   (char *)verdicts,
                    NULL};
    pid_t pid;
    int rv = bench_spawn(argv, environ, true, pfd[1], NULL, &pid);
    close(pfd[1]);
    if (rv != 0) {
        close(pfd[0]);
        snprintf(f->bf_cedar_why, sizeof f->bf_cedar_why,
                 "cannot run node (%s); install Node.js, then "
                 "`npm --prefix bench/pdp install`",
                 strerror(rv));
        return;
    }
    char out[BENCH_PEER_OUT_MAX];
    size_t n = 0;
    ssize_t r;
    while (n < sizeof out - 1 &&
           (r = read(pfd[0], out + n, sizeof out - 1 - n)) != 0) {
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            break;
        n += (size_t)r;
    }
    out[n] = '\0';
    close(pfd[0]);
    int st = 0;
    waitpid(pid, &st, 0);
    double dps = bench_json_num(out, "stateful_dps");
    double mism = bench_json_num(out, "mismatches");
    if (dps <= 0) {
        snprintf(f->bf_cedar_why, sizeof f->bf_cedar_why,
                 "cedar_bench.mjs printed no figure (exit %d)",
                 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
        return;
    }
    if (mism != 0) {
        fprintf(stderr,
                "box bench: MISMATCH: cedar-wasm disagrees with box "
                "on %g request(s); see above\n",
                mism);
        f->bf_mismatches += (int)mism;
    }
    f->bf_cedar = true;
    f->bf_cedar_dps = dps;
    f->bf_cedar_stateless = bench_json_num(out, "stateless_dps");
    const char *v = strstr(out, "\"version\":\"");
    if (v != NULL)
        sscanf(v + 11, "%31[^\"]", f->bf_cedar_version);
}

/* The hidden echo mode: a plain nng REP socket sending back every
 * message it receives, until SIGTERM. */
static int
bench_echo_server(const char *url)
{
    nng_socket s;
    int rv;
    if ((rv = nng_rep0_open(&s)) != 0 ||
        (rv = nng_listen(s, url, NULL, 0)) != 0)
        return box_cmd_error("echo server on %s: %s", url, nng_strerror(rv));
    for (;;) {
        nng_msg *m;
        if (nng_recvmsg(s, &m, 0) != 0)
            break;
        if (nng_sendmsg(s, m, 0) != 0)
            nng_msg_free(m);
    }
    nng_close(s);
    return 0;
}

static void
bench_stats(uint64_t *s, size_t n, double *med, double *p99, double *mean)
{
    bb_sort_ns(s, n);
    double sum = 0;
    for (size_t i = 0; i < n; i++)
        sum += (double)s[i];
    *med = (double)s[n / 2];
    *p99 = (double)s[(n * 99) / 100];
    *mean = sum / (double)n;
}

/* One plain REQ/REP round trip of len bytes; 0 or an nng error. */
static int
bench_echo_call(nng_socket s, const void *p, size_t len)
{
    nng_msg *m;
    int rv;
    if ((rv = nng_msg_alloc(&m, 0)) != 0)
        return rv;
    if ((rv = nng_msg_append(m, p, len)) != 0 ||
        (rv = nng_sendmsg(s, m, 0)) != 0) {
        nng_msg_free(m);
        return rv;
    }
    if ((rv = nng_recvmsg(s, &m, 0)) != 0)
        return rv;
    rv = nng_msg_len(m) == len ? 0 : NNG_EPROTO;
    nng_msg_free(m);
    return rv;
}

/*
 * Remote: box_pdp_decide with no cache against box-pdp, and the plain
 * echo of the same request bytes, in interleaved blocks so both see the
 * same machine.
 */
static bool
bench_remote(const bench_set *bs, const char *url, const char *echo_url,
             double seconds, bench_figs *f)
{
    box_pdp_client *c = NULL;
    nng_socket es = NNG_SOCKET_INITIALIZER;
    bool es_open = false, ok = false;
    uint64_t *ps = NULL, *esm = NULL;
    size_t np = 0, ne = 0;
    box_pdp_client_opts o = {.co_url = url,
                             .co_timeout_ms = BENCH_RPC_TIMEOUT_MS,
                             .co_cache_slots = 0};
    box_pdp_answer a;

    if (box_pdp_client_open(&o, &c) != BOX_OK) {
        box_cmd_error("cannot open a PDP client on %s", url);
        goto out;
    }
    int rv;
    if ((rv = nng_req0_open(&es)) != 0) {
        box_cmd_error("nng_req0_open: %s", nng_strerror(rv));
        goto out;
    }
    es_open = true;
    nng_socket_set_ms(es, NNG_OPT_REQ_RESENDTIME, NNG_DURATION_INFINITE);
    nng_socket_set_ms(es, NNG_OPT_RECVTIMEO, BENCH_RPC_TIMEOUT_MS);
    nng_socket_set_ms(es, NNG_OPT_SENDTIMEO, BENCH_RPC_TIMEOUT_MS);
    for (uint64_t end = box_svc_now_ms() + BENCH_START_MS;
         (rv = nng_dial(es, echo_url, NULL, 0)) != 0 && box_svc_now_ms() < end;)
        usleep(10000);
    if (rv != 0) {
        box_cmd_error("echo server at %s: %s", echo_url, nng_strerror(rv));
        goto out;
    }

    // Verdicts over the wire, and message sizes.
    double reqb = 0, respb = 0;
    for (size_t i = 0; i < bs->bs_n; i++) {
        const bench_req *q = &bs->bs_req[i];
        box_err e = box_pdp_decide(c, &q->br_wire, &a);
        bool allow = e == BOX_OK && a.pa_verdict == BOX_VERDICT_PERMIT;
        if (allow != q->br_expect_allow) {
            fprintf(stderr,
                    "box bench: MISMATCH: request %zu over the wire: "
                    "box-pdp %s (%s), expected %s\n",
                    i, allow ? "allow" : "deny",
                    a.pa_message ? a.pa_message : box_strerror(e),
                    q->br_expect_allow ? "allow" : "deny");
            f->bf_mismatches++;
        }
        // The reply's size, as the PDP packs it: verdict, reason,
        // determining ids and descriptions, message, epoch.
        Box__DecisionResponse dr = BOX__DECISION_RESPONSE__INIT;
        dr.verdict = allow ? BOX__VERDICT__VERDICT_PERMIT : 0;
        dr.reason = a.pa_reason;
        dr.message = a.pa_message;
        dr.epoch = a.pa_epoch;
        dr.cacheable = a.pa_cacheable;
        Box__PdpResponse pr = BOX__PDP_RESPONSE__INIT;
        pr.body_case = BOX__PDP_RESPONSE__BODY_DECIDE;
        pr.decide = &dr;
        respb += (double)box__pdp_response__get_packed_size(&pr) +
                 (a.pa_rules ? (double)strlen(a.pa_rules) + 4 : 0);
        reqb += (double)q->br_packed_len;
        box_pdp_answer_clear(&a);
    }
    f->bf_req_bytes = reqb / (double)bs->bs_n;
    f->bf_resp_bytes = respb / (double)bs->bs_n;

    // Warm both paths.
    for (size_t i = 0; i < 200; i++) {
        const bench_req *q = &bs->bs_req[i % bs->bs_n];
        if (box_pdp_decide(c, &q->br_wire, &a) != BOX_OK ||
            bench_echo_call(es, q->br_packed, q->br_packed_len) != 0) {
            box_pdp_answer_clear(&a);
            box_cmd_error("warm-up round trip failed");
            goto out;
        }
        box_pdp_answer_clear(&a);
    }

    size_t cap = BENCH_MAX_SAMPLES;
    if ((ps = box_calloc(cap, sizeof *ps)) == NULL ||
        (esm = box_calloc(cap, sizeof *esm)) == NULL) {
        box_cmd_error("out of memory");
        goto out;
    }
    uint64_t end = bench_now_ns() + (uint64_t)(seconds * 1e9);
    size_t k = 0;
    while (bench_now_ns() < end && np + BENCH_ROUND <= cap) {
        for (int i = 0; i < BENCH_ROUND; i++, k++) {
            const bench_req *q = &bs->bs_req[k % bs->bs_n];
            uint64_t t0 = bench_now_ns();
            box_err e = box_pdp_decide(c, &q->br_wire, &a);
            uint64_t t1 = bench_now_ns();
            box_pdp_answer_clear(&a);
            if (e != BOX_OK) {
                box_cmd_error("PDP round trip: %s", box_strerror(e));
                goto out;
            }
            ps[np++] = t1 - t0;
        }
        for (int i = 0; i < BENCH_ROUND; i++, k++) {
            const bench_req *q = &bs->bs_req[k % bs->bs_n];
            uint64_t t0 = bench_now_ns();
            int er = bench_echo_call(es, q->br_packed, q->br_packed_len);
            uint64_t t1 = bench_now_ns();
            if (er != 0) {
                box_cmd_error("echo round trip: %s", nng_strerror(er));
                goto out;
            }
            esm[ne++] = t1 - t0;
        }
    }
    bench_stats(ps, np, &f->bf_pdp_med, &f->bf_pdp_p99, &f->bf_pdp_mean);
    bench_stats(esm, ne, &f->bf_echo_med, &f->bf_echo_p99, &f->bf_echo_mean);
    f->bf_samples = np;
    f->bf_remote = true;
    ok = true;
out:
    box_free(ps);
    box_free(esm);
    if (es_open)
        nng_close(es);
    box_pdp_client_close(c);
    return ok;
}

/*
 * Cache: a client whose cache is live (connected to the epoch notices)
 * asks for one permit again and again. A hit queues its request for the
 * PDP's log; every 256 hits the queue rides along with a round trip, so
 * the pure hit is timed in blocks between flushes, and the amortized
 * figure includes the flushes.
 */
static bool
bench_cache(const bench_set *bs, const char *url, const char *pub,
            double seconds, bench_figs *f)
{
    box_pdp_client *c = NULL;
    bool ok = false;
    box_pdp_answer a;
    const bench_req *q = NULL;
    uint64_t *blocks = NULL;
    box_pdp_client_opts o = {.co_url = url,
                             .co_epoch_url = pub,
                             .co_timeout_ms = BENCH_RPC_TIMEOUT_MS,
                             .co_cache_slots = 1024};

    for (size_t i = 0; i < bs->bs_n && q == NULL; i++)
        if (bs->bs_req[i].br_expect_allow)
            q = &bs->bs_req[i];
    if (q == NULL) {
        box_cmd_error("no permit among the requests: nothing to cache");
        return false;
    }
    if (box_pdp_client_open(&o, &c) != BOX_OK) {
        box_cmd_error("cannot open a PDP client on %s", url);
        return false;
    }
    for (uint64_t end = box_svc_now_ms() + BENCH_START_MS;
         !box_pdp_client_cache_live(c) && box_svc_now_ms() < end;)
        usleep(10000);
    if (!box_pdp_client_cache_live(c)) {
        box_cmd_error("the cache never went live (no epoch notices at %s)",
                      pub);
        goto out;
    }
    for (int i = 0; i < 2; i++) {
        box_err e = box_pdp_decide(c, &q->br_wire, &a);
        bool hit = a.pa_from_cache;
        box_pdp_answer_clear(&a);
        if (e != BOX_OK) {
            box_cmd_error("PDP round trip: %s", box_strerror(e));
            goto out;
        }
        if (i == 1 && !hit) {
            box_cmd_error("a repeated permit was not served from the cache");
            goto out;
        }
    }

    // Pure hits: blocks that fit in the report queue, flushed untimed. A
    // block is a few dozen µs: the median block is a hit's cost on the
    // processor, the mean adds what the machine took away meanwhile
    // (another process's slice, a hypervisor's steal), which on a shared
    // 2-core VM moves the mean by half between runs.
    uint64_t hits = 0, nhit_ok = 0;
    size_t nblocks = 0;
    if ((blocks = box_calloc(BENCH_HIT_BLOCKS_MAX, sizeof *blocks)) == NULL) {
        box_cmd_error("out of memory");
        goto out;
    }
    uint64_t end = bench_now_ns() + (uint64_t)(seconds / 2 * 1e9);
    do {
        if (box_pdp_client_flush(c) != BOX_OK) {
            box_cmd_error("flushing the hit reports failed");
            goto out;
        }
        uint64_t t0 = bench_now_ns();
        for (int i = 0; i < BENCH_HIT_BLOCK; i++) {
            if (box_pdp_decide(c, &q->br_wire, &a) == BOX_OK)
                nhit_ok += a.pa_from_cache;
            box_pdp_answer_clear(&a);
        }
        blocks[nblocks++] = bench_now_ns() - t0;
        hits += BENCH_HIT_BLOCK;
    } while (bench_now_ns() < end && nblocks < BENCH_HIT_BLOCKS_MAX);
    if (nhit_ok != hits)
        fprintf(stderr, "box bench: %llu of %llu cache calls missed\n",
                (unsigned long long)(hits - nhit_ok), (unsigned long long)hits);
    double med, p99, mean;
    bench_stats(blocks, nblocks, &med, &p99, &mean);
    f->bf_hit_ns = med / BENCH_HIT_BLOCK;
    f->bf_hit_mean_ns = mean / BENCH_HIT_BLOCK;

    // Amortized: the same calls with the flushes they cause.
    box_pdp_client_stats s0, s1;
    box_pdp_client_stats_get(c, &s0);
    uint64_t calls = 0, t0 = bench_now_ns(), now;
    end = t0 + (uint64_t)(seconds / 2 * 1e9);
    do {
        for (int i = 0; i < 1000; i++) {
            if (box_pdp_decide(c, &q->br_wire, &a) != BOX_OK) {
                box_pdp_answer_clear(&a);
                box_cmd_error("cache round trip failed");
                goto out;
            }
            box_pdp_answer_clear(&a);
        }
        calls += 1000;
    } while ((now = bench_now_ns()) < end);
    box_pdp_client_stats_get(c, &s1);
    f->bf_amort_ns = (double)(now - t0) / (double)calls;
    f->bf_amort_hits = s1.cs_hits - s0.cs_hits;
    f->bf_amort_misses = s1.cs_misses - s0.cs_misses;
    f->bf_cache = true;
    ok = true;
out:
    box_free(blocks);
    box_pdp_client_close(c);
    return ok;
}

/* ------------------------------------------------------------------ */
/* Report                                                              */
/* ------------------------------------------------------------------ */

static const char *
bench_meets(bool ok)
{
    return ok ? "meets" : "misses";
}

/* Prints s left- or right-aligned in w columns, counting UTF-8 code
 * points (µ, ×, ≥ are one column each). */
static void
bench_cell(const char *s, int w, bool right)
{
    int cols = 0;
    for (const char *p = s; *p != '\0'; p++)
        cols += ((unsigned char)*p & 0xc0) != 0x80;
    if (right)
        printf("%*s%s", w > cols ? w - cols : 0, "", s);
    else
        printf("%s%*s", s, w > cols ? w - cols : 0, "");
}

/* One table row: figure, box, peer, ratio, goal, verdict. */
static void
bench_row(const char *fig, const char *box, const char *peer, const char *ratio,
          const char *goal, const char *verdict)
{
    bench_cell(fig, 28, false);
    bench_cell(box, 13, true);
    fputs("  ", stdout);
    bench_cell(peer, 26, false);
    bench_cell(ratio, 8, true);
    fputs("  ", stdout);
    bench_cell(goal, 9, false);
    printf("%s\n", verdict);
}

static void
bench_print(const bench_figs *f, const bench_set *bs, size_t rules,
            double seconds)
{
    char box[64], peer[64], ratio[32];
    printf("\nbox bench pdp · %zu rules · %zu requests (%zu permits) · "
           "%g s per phase\n\n",
           rules, bs->bs_n, bs->bs_permits, seconds);
    bench_row("figure", "box", "peer", "ratio", "goal", "");
    // In process.
    snprintf(box, sizeof box, "%.0f/s", f->bf_dps);
    if (f->bf_cedar) {
        snprintf(peer, sizeof peer, "cedar-wasm %.0f/s", f->bf_cedar_dps);
        snprintf(ratio, sizeof ratio, "%.0f×", f->bf_dps / f->bf_cedar_dps);
    } else {
        snprintf(peer, sizeof peer, "cedar-wasm unavailable");
        snprintf(ratio, sizeof ratio, "-");
    }
    bench_row("in-process decisions", box, peer, ratio, "≥ 20×",
              f->bf_cedar ? bench_meets(f->bf_dps / f->bf_cedar_dps >=
                                        GOAL_INPROC_RATIO)
                          : "unknown");
    snprintf(box, sizeof box, "%.0f ns", f->bf_ns_per_decision);
    bench_row("  per decision", box, "", "", "", "");
    if (f->bf_cedar) {
        snprintf(peer, sizeof peer, "isAuthorized %.0f/s",
                 f->bf_cedar_stateless);
        snprintf(ratio, sizeof ratio, "%.0f×",
                 f->bf_dps / f->bf_cedar_stateless);
        bench_row("  vs stateless cedar-wasm", "", peer, ratio, "(info)", "");
    }
    // Remote.
    if (f->bf_remote) {
        static const char *const what[] = {"remote round trip, median",
                                           "remote round trip, p99",
                                           "remote round trip, mean"};
        const double pdp[] = {f->bf_pdp_med, f->bf_pdp_p99, f->bf_pdp_mean};
        const double echo[] = {f->bf_echo_med, f->bf_echo_p99, f->bf_echo_mean};
        for (int i = 0; i < 3; i++) {
            snprintf(box, sizeof box, "%.1f µs", pdp[i] / 1e3);
            snprintf(peer, sizeof peer, "nng echo %.1f µs", echo[i] / 1e3);
            snprintf(ratio, sizeof ratio, "%.2f×", pdp[i] / echo[i]);
            bench_row(what[i], box, peer, ratio, i == 0 ? "≤ 1.2×" : "(info)",
                      i == 0
                          ? bench_meets(pdp[i] / echo[i] <= GOAL_REMOTE_RATIO)
                          : "");
        }
        printf("  %zu calls each, interleaved; request %.0f B, reply ~%.0f B"
               " (the echo returns the request bytes)\n",
               f->bf_samples, f->bf_req_bytes, f->bf_resp_bytes);
    } else {
        bench_row("remote round trip", "not measured", "", "", "", "");
    }
    // Cache.
    if (f->bf_cache) {
        snprintf(box, sizeof box, "%.0f ns", f->bf_hit_ns);
        bench_row("cache hit, median", box, "", "", "≤ 100 ns",
                  bench_meets(f->bf_hit_ns <= GOAL_HIT_NS));
        snprintf(box, sizeof box, "%.0f ns", f->bf_hit_mean_ns);
        bench_row("cache hit, mean", box, "", "", "(info)", "");
        snprintf(box, sizeof box, "%.0f ns", f->bf_amort_ns);
        snprintf(peer, sizeof peer, "%llu hits, %llu flushes",
                 (unsigned long long)f->bf_amort_hits,
                 (unsigned long long)f->bf_amort_misses);
        bench_row("cache hit + log flush", box, peer, "", "(info)", "");
    } else {
        bench_row("cache hit", "not measured", "", "", "", "");
    }
    if (!f->bf_cedar && f->bf_cedar_why[0] != '\0')
        printf("\npeer unavailable: %s\n", f->bf_cedar_why);
    if (f->bf_mismatches > 0)
        printf("\n*** %d VERDICT MISMATCH(ES): the figures above compare "
               "different answers ***\n",
               f->bf_mismatches);
    else
        printf("\nverdicts: box in process%s%s agree with requests.json\n",
               f->bf_remote ? ", box-pdp" : "",
               f->bf_cedar ? " and cedar-wasm" : "");
}

/* ------------------------------------------------------------------ */
/* The verb                                                            */
/* ------------------------------------------------------------------ */

static int
bench_pdp(double seconds, bool cedar, const char *dir_opt)
{
    int status = 1;
    char dir[4096], self[4096], tmp[] = "/tmp/box-bench-XXXXXX";
    char policy[4400], reqs[4400], echo_url[4400], pdp_log[4400], exe[4400];
    char *url = NULL, *pub = NULL;
    box_argv pdp_argv = {0}, pdp_env = {0};
    bool have_tmp = false;
    pid_t pdp_pid = 0, echo_pid = 0;
    pdp_policy_set *set = NULL;
    pdp_answer *ans = NULL;
    char *err = NULL;
    char verdicts[BENCH_MAX_REQUESTS + 1];
    bench_figs f = {0};
    bench_set *bs = box_calloc(1, sizeof *bs);

    if (bs == NULL || (bs->bs_arena = box_arena_new(BENCH_ARENA_MAX)) == NULL ||
        (ans = pdp_answer_new()) == NULL) {
        box_cmd_error("out of memory");
        goto out;
    }
    if (!box_bench_find_dir("pdp", "policy.dw", dir_opt, dir, sizeof dir)) {
        box_cmd_error("cannot find bench/pdp/policy.dw; run from the source "
                      "tree or pass --dir");
        goto out;
    }
    if (box_cmd_self_dir(self, sizeof self) == NULL) {
        box_cmd_error("cannot find this program's directory");
        goto out;
    }
    snprintf(policy, sizeof policy, "%s/policy.dw", dir);
    snprintf(reqs, sizeof reqs, "%s/requests.json", dir);
    snprintf(exe, sizeof exe, "%s/box", self);

    box_err rv = pdp_policy_load_file(policy, getenv("HOME"), &set, NULL, &err);
    if (rv != BOX_OK) {
        box_cmd_error("%s: %s", policy, err ? err : box_strerror(rv));
        goto out;
    }
    if (!bench_load_requests(reqs, bs))
        goto out;
    if (mkdtemp(tmp) == NULL) {
        box_cmd_error("mkdtemp: %s", strerror(errno));
        goto out;
    }
    have_tmp = true;

    printf("box bench pdp: %s\n", dir);
    fflush(stdout);
    f.bf_mismatches = bench_check_inproc(set, bs, ans, verdicts);
    bench_inproc(set, bs, ans, seconds, &f);
    printf("  in process: %.0f decisions/s\n", f.bf_dps);
    fflush(stdout);

    if (cedar) {
        bench_cedar(dir, tmp, verdicts, seconds, &f);
        if (f.bf_cedar)
            printf("  cedar-wasm %s: %.0f decisions/s (stateful), %.0f "
                   "(isAuthorized)\n",
                   f.bf_cedar_version, f.bf_cedar_dps, f.bf_cedar_stateless);
        else
            printf("  cedar-wasm: peer unavailable: %s\n", f.bf_cedar_why);
    } else {
        snprintf(f.bf_cedar_why, sizeof f.bf_cedar_why, "skipped (--no-cedar)");
    }
    fflush(stdout);

    // The remote phases: box-pdp and the echo server, both our children.
    // box-pdp runs as box run starts it (the process table's command line
    // and environment, its decision log on), with tmp as its box directory.
    snprintf(echo_url, sizeof echo_url, "ipc://%s/echo.sock", tmp);
    snprintf(pdp_log, sizeof pdp_log, "%s/box-pdp.out", tmp);
    const box_proctab_row *pdp_row = box_proctab_get(BOX_PROC_PDP);
    box_proctab_box b = {
        .pb_bindir = self, .pb_box_dir = tmp, .pb_policy = policy};
    if (!bench_box_dir(tmp) ||
        box_proctab_value(BOX_PV_PDP_URL, &b, &url) != BOX_OK ||
        box_proctab_value(BOX_PV_EPOCH_URL, &b, &pub) != BOX_OK ||
        box_proctab_argv(pdp_row, &b, &pdp_argv) != BOX_OK ||
        box_proctab_env(pdp_row, environ, &pdp_env) != BOX_OK) {
        box_cmd_error("cannot lay out box-pdp's directory in %s", tmp);
        goto report;
    }
    char *echo_argv[] = {exe, "bench", "pdp", "--echo-server", echo_url, NULL};
    int sr;
    if ((sr = bench_spawn(pdp_argv.av_v, box_proctab_envp(&pdp_env), false, -1,
                          pdp_log, &pdp_pid)) != 0) {
        box_cmd_error("cannot start %s: %s", pdp_argv.av_v[0], strerror(sr));
        pdp_pid = 0;
        goto report;
    }
    if ((sr = bench_spawn(echo_argv, environ, false, -1, NULL, &echo_pid)) !=
        0) {
        box_cmd_error("cannot start the echo server: %s", strerror(sr));
        echo_pid = 0;
        goto report;
    }
    Box__HealthResponse *h = NULL;
    for (uint64_t end = box_svc_now_ms() + BENCH_START_MS;
         h == NULL && box_svc_now_ms() < end;)
        if (box_pdp_health(url, 200, &h) != BOX_OK)
            usleep(20000);
    if (h == NULL) {
        box_cmd_error("box-pdp did not answer at %s (see %s)", url, pdp_log);
        goto report;
    }
    box__health_response__free_unpacked(h, NULL);
    if (bench_remote(bs, url, echo_url, seconds, &f))
        printf("  remote: box-pdp %.1f µs, nng echo %.1f µs (median)\n",
               f.bf_pdp_med / 1e3, f.bf_echo_med / 1e3);
    fflush(stdout);
    if (bench_cache(bs, url, pub, seconds, &f))
        printf("  cache: %.0f ns per hit\n", f.bf_hit_ns);

report:
    bench_print(&f, bs, pdp_policy_rule_count(set), seconds);
    status = f.bf_mismatches > 0 ? 1 : 0;
out:
    bench_stop(echo_pid);
    bench_stop(pdp_pid);
    if (have_tmp) {
        // Files first, then the directories that held them (deepest first).
        static const char *const names[] = {"private/pdp.sock",
                                            "private/pdp-epoch.sock",
                                            "private/telemetry/records.jsonl",
                                            "private/history/dogwood.history",
                                            "echo.sock",
                                            "box-pdp.out",
                                            "actions.cedarschema"};
        static const char *const dirs[] = {"private/telemetry",
                                           "private/history", "private"};
        for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
            char p[4400];
            snprintf(p, sizeof p, "%s/%s", tmp, names[i]);
            unlink(p);
        }
        for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
            char p[4400];
            snprintf(p, sizeof p, "%s/%s", tmp, dirs[i]);
            rmdir(p);
        }
        rmdir(tmp);
    }
    box_free(url);
    box_free(pub);
    box_argv_free(&pdp_argv);
    box_argv_free(&pdp_env);
    box_free(err);
    pdp_answer_free(ans);
    pdp_policy_free(set);
    if (bs != NULL)
        box_arena_free(bs->bs_arena);
    box_free(bs);
    return status;
}

/* `box bench pdp`: argv[0] is "pdp". */
static int
bench_pdp_cmd(int argc, char **argv)
{
    static const struct option opts[] = {
        {"seconds", required_argument, NULL, 's'},
        {"no-cedar", no_argument, NULL, 'n'},
        {"dir", required_argument, NULL, 'd'},
        {"echo-server", required_argument, NULL, 'e'},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    double seconds = 2;
    bool cedar = true;
    const char *dir = NULL;
    int c;

    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 's': {
            char *endp;
            seconds = strtod(optarg, &endp);
            if (*endp != '\0' || !(seconds >= 0.1 && seconds <= 600))
                return box_cmd_error("--seconds takes 0.1 to 600");
            break;
        }
        case 'n':
            cedar = false;
            break;
        case 'd':
            dir = optarg;
            break;
        case 'e':
            return bench_echo_server(optarg);
        case 'h':
            fputs(bench_usage, stdout);
            return 0;
        default:
            fputs(bench_usage, stderr);
            return 2;
        }
    }
    if (optind != argc) {
        fputs(bench_usage, stderr);
        return 2;
    }
    return bench_pdp(seconds, cedar, dir);
}

/* The subcommands of `box bench`, one row each: the name, the function
 * (argv from the subcommand's name on), and a line for the list. */
static const struct {
    const char *bs_name;
    int (*bs_run)(int argc, char **argv);
    const char *bs_help;
} bench_subs[] = {
    {"pdp", bench_pdp_cmd,
     "decisions in process, over the wire and from the cache"},
    {"e2e", box_bench_e2e, "shell calls through a real box next to bash"},
    {"shell", box_bench_shell,
     "scripts through a real box next to bash, dash, busybox, just-bash"},
    {"commands", box_bench_commands,
     "text and data commands on 10 MB files next to GNU tools and jq"},
    {"temporal", box_bench_temporal,
     "temporal rules over growing histories; durable decisions"},
    {"gateway", box_bench_gateway,
     "box-gateway's requests/s and latency next to squid and tinyproxy"},
};

static void
bench_list(FILE *out)
{
    fputs("usage: box bench SUBCOMMAND [OPTIONS]  (box bench SUBCOMMAND "
          "--help)\n\n",
          out);
    for (size_t i = 0; i < sizeof bench_subs / sizeof bench_subs[0]; i++)
        fprintf(out, "  %-9s %s\n", bench_subs[i].bs_name,
                bench_subs[i].bs_help);
}

int
box_cmd_bench(int argc, char **argv)
{
    for (size_t i = 0; argc >= 2 && i < sizeof bench_subs / sizeof bench_subs[0];
         i++)
        if (strcmp(argv[1], bench_subs[i].bs_name) == 0)
            return bench_subs[i].bs_run(argc - 1, argv + 1);
    bool help = argc >= 2 && strcmp(argv[1], "--help") == 0;
    bench_list(help ? stdout : stderr);
    return help ? 0 : 2;
}
