/* SPDX-License-Identifier: Apache-2.0 */
/* Allocation-failure walks (curl's torture): loading the quickstart policy,
 * deciding against it (library and wire paths), parsing a shell script. */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_arena.h"
#include "box_buf.h"
#include "box_req.h"
#include "box_wire_scan.h"
#include "pdp_decide.h"
#include "pdp_policy.h"
#include "pdp_policy_file.h"
#include "pdp_wire.h"
#include "sh_ast.h"
#include "sh_parse.h"

/*
 * Each walk runs one operation again and again, with its 1st, 2nd, 3rd,
 * ... allocation failing (box_alloc_fail_after), until a run makes fewer
 * allocations than the one asked to fail: that run had no failure and must
 * give the reference result. Every run that had one must end in a clean
 * error (BOX_ENOMEM, or for a decision a Deny / InternalFault) and free
 * everything: the ASan run's LeakSanitizer checks that at exit. A run that
 * succeeds in spite of a failed allocation must still give the reference
 * result exactly, so a swallowed failure that changes an answer is caught.
 */

#define HOME "/home/operator"
#define WALK_MAX 100000 // a walk longer than this is a runaway

/* Arms the nth failure; walk_end disarms and says whether it happened. */
static void
walk_begin(unsigned long n)
{
    box_alloc_fail_after(n);
}

static bool
walk_end(unsigned long n)
{
    bool hit = box_alloc_calls() >= n;
    box_alloc_fail_off();
    return hit;
}

static char *
quickstart_policy_path(void)
{
    const char *root = getenv("BOX_SOURCE_DIR");
    char *p =
        box_asprintf("%s/deploy/quickstart/policy.dw", root ? root : "..");
    assert_non_null(p);
    return p;
}

/* ------------------------------------------------------------------ */
/* (a) Loading and validating a real policy                           */
/* ------------------------------------------------------------------ */

/* What a load produced, to compare runs. */
typedef struct load_seen {
    box_err ls_rv;
    size_t ls_rules;
    size_t ls_warnings;
} load_seen;

static load_seen
load_once(const char *path, pdp_policy_set **set, char **err)
{
    load_seen s = {0};
    pdp_validate_warnings w = {0};
    *set = NULL;
    *err = NULL;
    s.ls_rv = pdp_policy_load_file(path, HOME, set, &w, err);
    s.ls_warnings = w.vw_n;
    s.ls_rules = *set ? pdp_policy_rule_count(*set) : 0;
    pdp_validate_warnings_free(&w);
    return s;
}

static void
test_load_policy(void **state)
{
    (void)state;
    char *path = quickstart_policy_path();
    pdp_policy_set *set;
    char *err;
    load_seen ref = load_once(path, &set, &err);
    if (ref.ls_rv != BOX_OK)
        fail_msg("reference load: %s", err ? err : box_strerror(ref.ls_rv));
    assert_true(ref.ls_rules >= 5);
    pdp_policy_free(set);

    unsigned long n;
    for (n = 1; n < WALK_MAX; n++) {
        walk_begin(n);
        load_seen s = load_once(path, &set, &err);
        bool hit = walk_end(n);
        if (!hit || s.ls_rv == BOX_OK) {
            if (s.ls_rv != BOX_OK || s.ls_rules != ref.ls_rules ||
                s.ls_warnings != ref.ls_warnings)
                fail_msg("allocation %lu %s: %s, %zu rules, %zu warnings "
                         "(want %zu, %zu)",
                         n, hit ? "failed" : "(none failed)",
                         box_strerror(s.ls_rv), s.ls_rules, s.ls_warnings,
                         ref.ls_rules, ref.ls_warnings);
            pdp_policy_free(set);
            if (!hit)
                break;
            continue;
        }
        if (s.ls_rv != BOX_ENOMEM || set != NULL)
            fail_msg("allocation %lu failed: %s (%s), set %p", n,
                     box_strerror(s.ls_rv), err ? err : "no message",
                     (void *)set);
        box_free(err);
    }
    assert_true(n > 1 && n < WALK_MAX);
    print_message("load: %lu allocations walked\n", n - 1);
    box_free(path);
}

/* Policies Box refuses, one for each stage of the load (parse, duplicate
 * @id, unknown action, schema, spelling), and one it loads with warnings:
 * a failed allocation may turn the outcome into BOX_ENOMEM, never into
 * another one (a load, a warning lost). */
static const char *const policy_texts[] = {
    "permit (principal, action, resource) when { context.input == };",
    "@id(\"a\") permit (principal, action, resource);\n"
    "@id(\"a\") forbid (principal, action, resource);",
    "permit (principal, action == Box::Action::\"fs:nope\", resource);",
    "permit (principal, action == Box::Action::\"fs:read\", resource)\n"
    "when { context.input.path == 3 };",
    "permit (principal, action == Box::Action::\"fs:read\", resource)\n"
    "when { context.input.path == \"" HOME "/.ssh/id_rsa\" };",
    "permit (principal, action == Box::Action::\"shell:exec\", resource)\n"
    "when { context.input.program == \"/usr/bin/git\" };\n"
    "permit (principal, action == Box::Action::\"fs:read\", resource)\n"
    "when { context.input.path like \"*/home/*\" };",
};

static box_err
load_text_once(const char *text, char **err, size_t *nwarn)
{
    pdp_policy_set *set = NULL;
    pdp_validate_warnings w = {0};
    *err = NULL;
    box_err rv = pdp_policy_load_checked(text, strlen(text), "box.dw", NULL,
                                         HOME, &set, &w, err);
    *nwarn = w.vw_n;
    pdp_validate_warnings_free(&w);
    if ((rv == BOX_OK) != (set != NULL))
        fail_msg("%s with set %p", box_strerror(rv), (void *)set);
    pdp_policy_free(set);
    return rv;
}

static void
test_load_texts(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof policy_texts / sizeof *policy_texts; k++) {
        const char *text = policy_texts[k];
        char *ref_err;
        size_t ref_warn;
        box_err ref = load_text_once(text, &ref_err, &ref_warn);
        if (ref == BOX_ENOMEM || (ref != BOX_OK && ref_err == NULL) ||
            (ref == BOX_OK && ref_warn == 0))
            fail_msg("policy %zu: %s (%s), %zu warnings", k, box_strerror(ref),
                     ref_err ? ref_err : "no message", ref_warn);
        unsigned long n;
        for (n = 1; n < WALK_MAX; n++) {
            char *err;
            size_t nwarn;
            walk_begin(n);
            box_err rv = load_text_once(text, &err, &nwarn);
            bool hit = walk_end(n);
            // A refusal's text is allocated too: without memory for it the
            // load still refuses with its code, and says only that
            // (box_strerror), or nothing.
            bool same =
                rv == ref && nwarn == ref_warn &&
                (ref == BOX_OK || err == NULL || strcmp(err, ref_err) == 0 ||
                 (hit && strcmp(err, box_strerror(rv)) == 0));
            if (!same && !(hit && rv == BOX_ENOMEM))
                fail_msg("policy %zu: allocation %lu %s: %s (%s), %zu "
                         "warnings; want %s (%s), %zu",
                         k, n, hit ? "failed" : "(none failed)",
                         box_strerror(rv), err ? err : "no message", nwarn,
                         box_strerror(ref), ref_err ? ref_err : "", ref_warn);
            box_free(err);
            if (!hit)
                break;
        }
        assert_true(n > 1 && n < WALK_MAX);
        print_message("policy %zu (%s, %zu warnings): %lu allocations "
                      "walked\n",
                      k, box_strerror(ref), ref_warn, n - 1);
        box_free(ref_err);
    }
}

/* ------------------------------------------------------------------ */
/* (b) Decisions against it                                           */
/* ------------------------------------------------------------------ */

static pdp_policy_set *
load_quickstart(void)
{
    char *path = quickstart_policy_path();
    pdp_policy_set *set;
    char *err;
    load_seen s = load_once(path, &set, &err);
    if (s.ls_rv != BOX_OK)
        fail_msg("load: %s", err ? err : box_strerror(s.ls_rv));
    box_free(path);
    return set;
}

/* One request and what the quickstart policy answers. */
typedef struct decide_case {
    const char *dc_action, *dc_optype, *dc_op, *dc_path;
    Box__Verdict dc_verdict;
    Box__ReasonClass dc_reason;
    const char *dc_rule; // the determining policy's @id, or NULL
} decide_case;

static const decide_case decide_cases[] = {
    {"fs:read", "Box::FsReadOperation", "read_content",
     "/tmp/box-quickstart/project/README.md", BOX__VERDICT__VERDICT_PERMIT,
     BOX__REASON_CLASS__REASON_PERMITTED, "project_read"},
    {"fs:read", "Box::FsReadOperation", "read_content",
     "/tmp/box-quickstart/project/.env", BOX__VERDICT__VERDICT_DENY,
     BOX__REASON_CLASS__REASON_FORBIDDEN, "no_env"},
    {"fs:write", "Box::FsWriteOperation", "write_content", "/etc/passwd",
     BOX__VERDICT__VERDICT_DENY, BOX__REASON_CLASS__REASON_NO_MATCH, NULL},
};

/* The response as one line, so two runs compare with strcmp. */
static char *
response_text(const Box__DecisionResponse *r)
{
    box_buf b;
    box_buf_init(&b, 1u << 16);
    box_err rv = box_buf_printf(&b, "%d %d [", r->verdict, r->reason);
    for (size_t i = 0; rv == BOX_OK && i < r->n_determining; i++)
        rv = box_buf_printf(&b, "%s%s", i ? ", " : "", r->determining[i]->id);
    if (rv == BOX_OK)
        rv = box_buf_printf(&b, "] errors=%zu %s", r->n_errors, r->message);
    assert_int_equal(rv, BOX_OK);
    return box_buf_take(&b);
}

/* The bytes a client sends: a PdpRequest holding the case's decision. */
static uint8_t *
decide_bytes(const decide_case *c, size_t *len)
{
    box_req q;
    box_req_fs(&q, c->dc_action, c->dc_optype, c->dc_op, c->dc_path);
    Box__PdpRequest pr = BOX__PDP_REQUEST__INIT;
    pr.body_case = BOX__PDP_REQUEST__BODY_DECIDE;
    pr.decide = &q.r_req;
    *len = box__pdp_request__get_packed_size(&pr);
    uint8_t *b = box_alloc(*len);
    assert_non_null(b);
    box__pdp_request__pack(&pr, b);
    return b;
}

/*
 * What box-pdp does with one request: decode the bytes, take a scratch
 * arena and answer, decide; with the nth allocation failing when n > 0
 * (*hit: it did). Returns the response as text, or NULL when the request
 * could not be answered at all (the server then replies with an error,
 * which the client reads as a refusal).
 */
static char *
serve_once(const pdp_policy_set *set, const uint8_t *bytes, size_t len,
           unsigned long n, bool *hit)
{
    char *text = NULL;
    box_arena *a = NULL, *msg = NULL;
    Box__PdpRequest *r = NULL;
    pdp_answer *ans = NULL;
    Box__DecisionResponse resp = BOX__DECISION_RESPONSE__INIT;
    box_wire_scan_result why = {BOX_WIRE_SCAN_NOMEM, 0};
    if (n > 0)
        walk_begin(n);
    // As box-pdp unpacks a request: into its scratch's message arena.
    if ((msg = box_arena_new(1u << 20)) == NULL)
        goto out;
    r = (Box__PdpRequest *)box_wire_scan_unpack_in(
        msg, &box__pdp_request__descriptor, BOX_WIRE_SCAN_ANY, bytes, len,
        &why);
    if (r == NULL || (a = box_arena_new(1u << 20)) == NULL ||
        (ans = pdp_answer_new()) == NULL)
        goto out;
    pdp_wire_decided d;
    pdp_wire_decide(set, NULL, a, ans, r->decide, 1, &resp, &d);
out:
    *hit = n > 0 && walk_end(n);
    if (r == NULL && why.sr_fault != BOX_WIRE_SCAN_NOMEM)
        fail_msg("decode: fault %d", why.sr_fault);
    if (ans != NULL)
        text = response_text(&resp); // unarmed: the walk is over
    pdp_answer_free(ans);
    box_arena_free(a);
    box_arena_free(msg); // r with it
    return text;
}

static void
test_decide_wire(void **state)
{
    (void)state;
    pdp_policy_set *set = load_quickstart();
    for (size_t k = 0; k < sizeof decide_cases / sizeof *decide_cases; k++) {
        const decide_case *c = &decide_cases[k];
        size_t len;
        uint8_t *bytes = decide_bytes(c, &len);
        bool hit;
        char *ref = serve_once(set, bytes, len, 0, &hit);
        assert_non_null(ref);
        char want[256], fault[64];
        snprintf(fault, sizeof fault, "%d %d [] ", BOX__VERDICT__VERDICT_DENY,
                 BOX__REASON_CLASS__REASON_INTERNAL_FAULT);
        snprintf(want, sizeof want, "%d %d [%s]", c->dc_verdict, c->dc_reason,
                 c->dc_rule ? c->dc_rule : "");
        if (strncmp(ref, want, strlen(want)) != 0)
            fail_msg("%s %s: %s, want %s", c->dc_action, c->dc_path, ref, want);

        unsigned long n;
        for (n = 1; n < WALK_MAX; n++) {
            char *got = serve_once(set, bytes, len, n, &hit);
            // Fail closed: a decision that met a failed allocation is a
            // complete, correct answer or a Deny, never a partial permit.
            bool same = got != NULL && strcmp(got, ref) == 0;
            bool deny = got == NULL ||
                        (strncmp(got, fault, strlen(fault)) == 0 &&
                         strstr(got, "policy denied this operation") != NULL);
            if (!hit && !same)
                fail_msg("%s %s: no failure, got %s, want %s", c->dc_action,
                         c->dc_path, got ? got : "(no answer)", ref);
            if (hit && !same && !deny)
                fail_msg("%s %s: allocation %lu failed: got %s, want %s or "
                         "an InternalFault deny",
                         c->dc_action, c->dc_path, n, got, ref);
            box_free(got);
            if (!hit)
                break;
        }
        assert_true(n > 1 && n < WALK_MAX);
        print_message("decide %s %s: %lu allocations walked\n", c->dc_action,
                      c->dc_path, n - 1);
        box_free(ref);
        box_free(bytes);
    }
    pdp_policy_free(set);
}

/* ------------------------------------------------------------------ */
/* (c) Parsing a shell script                                         */
/* ------------------------------------------------------------------ */

/* Every kind of construct the parser builds, repeated so that the nodes
 * fill several arena chunks and the lexer's buffers grow. */
static const char script_part[] =
    "set -e\n"
    "greet() { echo \"hello, ${1:-world}\"; }\n"
    "for f in *.c \"$HOME\"/src/*.h; do\n"
    "  case \"$f\" in\n"
    "    *_test.c) continue ;;\n"
    "    *) grep -n 'TODO' \"$f\" >> todo.txt 2>/dev/null || true ;;\n"
    "  esac\n"
    "done\n"
    "n=$(wc -l < todo.txt); while [ \"$n\" -gt 0 ]; do n=$((n - 1)); done\n"
    "if test -f .env && ! test -d .git; then cat .env | head -n 1; "
    "elif true; then :; else exit 3; fi\n"
    "cat <<EOF | tr a-z A-Z\n"
    "a here-document with $n and `pwd`\n"
    "EOF\n"
    "{ echo one; echo two; } > out.txt & wait\n"
    "(cd /tmp && ls -la) | sort -r | uniq\n";

static char *
script_text(size_t *len)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    for (int i = 0; i < 24; i++)
        assert_int_equal(box_buf_puts(&b, script_part), BOX_OK);
    *len = b.b_len;
    return box_buf_take(&b);
}

/* Parses in one shot; the dump, or NULL with *rv and d set. */
static char *
parse_once(const char *text, size_t len, box_err *rv, sh_diag *d)
{
    char *dump = NULL;
    sh_node *n = NULL;
    box_arena *a = box_arena_new(64u << 20);
    if (a == NULL) {
        *rv = BOX_ENOMEM;
        return NULL;
    }
    if ((*rv = sh_parse(text, len, a, &n, d)) == BOX_OK) {
        box_buf out;
        box_buf_init(&out, 1u << 24);
        *rv = sh_ast_dump(n, &out, 0);
        dump = *rv == BOX_OK ? box_buf_take(&out) : NULL;
        box_buf_reset(&out);
    }
    box_arena_free(a);
    return dump;
}

/* Parses one command at a time, fed in 100-byte pieces as a caller
 * streaming a script would; the dumps joined, or NULL with *rv and d. */
static char *
parse_incremental(const char *text, size_t len, box_err *rv, sh_diag *d)
{
    char *dump = NULL;
    box_buf out;
    box_buf_init(&out, 1u << 24);
    sh_parser *p = NULL;
    box_arena *a = box_arena_new(64u << 20);
    *rv = BOX_ENOMEM;
    if (a == NULL || (p = sh_parser_new(a)) == NULL)
        goto out;
    size_t fed = 0;
    for (;;) {
        sh_node *n = NULL;
        sh_parse_status st = sh_parse_next(p, &n);
        if (st == SH_PARSE_ERROR) {
            *d = *sh_parser_diag(p);
            *rv = d->d_code;
            goto out;
        }
        if (st == SH_PARSE_END)
            break;
        if (st == SH_PARSE_CMD) {
            if ((*rv = sh_ast_dump(n, &out, 0)) != BOX_OK)
                goto out;
            continue;
        }
        if (fed == len) {
            sh_parser_finish(p);
            continue;
        }
        size_t k = len - fed < 100 ? len - fed : 100;
        if ((*rv = sh_parser_feed(p, text + fed, k)) != BOX_OK) {
            *d = *sh_parser_diag(p);
            goto out;
        }
        fed += k;
    }
    *rv = BOX_OK;
    dump = box_buf_take(&out);
out:
    box_buf_reset(&out);
    sh_parser_free(p);
    box_arena_free(a);
    return dump;
}

typedef char *(*parse_fn)(const char *text, size_t len, box_err *rv,
                          sh_diag *d);

static void
walk_parse(const char *name, parse_fn parse)
{
    size_t len;
    char *text = script_text(&len);
    box_err rv;
    sh_diag d = {0};
    char *ref = parse(text, len, &rv, &d);
    if (ref == NULL)
        fail_msg("%s reference: %s: line %u: %s", name, box_strerror(rv),
                 (unsigned)d.d_line, d.d_msg);

    unsigned long n;
    for (n = 1; n < WALK_MAX; n++) {
        memset(&d, 0, sizeof d);
        walk_begin(n);
        char *got = parse(text, len, &rv, &d);
        bool hit = walk_end(n);
        if (got != NULL) {
            if (strcmp(got, ref) != 0)
                fail_msg("%s: allocation %lu %s: the tree differs", name, n,
                         hit ? "failed" : "(none failed)");
        } else if (!hit) {
            fail_msg("%s: no failure, yet %s", name, box_strerror(rv));
        } else if (rv != BOX_ENOMEM) {
            fail_msg("%s: allocation %lu failed: %s: line %u: %s", name, n,
                     box_strerror(rv), (unsigned)d.d_line, d.d_msg);
        }
        box_free(got);
        if (!hit)
            break;
    }
    assert_true(n > 1 && n < WALK_MAX);
    print_message("%s: %lu allocations walked\n", name, n - 1);
    box_free(ref);
    box_free(text);
}

static void
test_parse_script(void **state)
{
    (void)state;
    walk_parse("sh_parse", parse_once);
}

static void
test_parse_incremental(void **state)
{
    (void)state;
    walk_parse("sh_parse_next", parse_incremental);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_load_policy),
        cmocka_unit_test(test_load_texts),
        cmocka_unit_test(test_decide_wire),
        cmocka_unit_test(test_parse_script),
        cmocka_unit_test(test_parse_incremental),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
