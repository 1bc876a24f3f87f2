/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target pdp_policy: the Box policy load, then the evaluator. */
#include <string.h>

#include "box_alloc.h"
#include "box_arena.h"
#include "box_fuzz.h"
#include "pdp_decide.h"
#include "pdp_policy.h"
#include "pdp_schema.h"
#include "pdp_validate.h"
#include "pdp_value.h"

/*
 * The input is a .dw file as an operator writes it. It goes through the
 * whole load box-pdp and `box policy check` run (pdp_policy_load_checked:
 * parse, duplicate @id, reserved action, strict validation, the spelling
 * judgement against a home), and a set that loads decides a few fixed
 * requests. The same text is also loaded without the schema and decided,
 * so the evaluator meets trees the validator would have refused: it must
 * answer them with a deny and an error, never crash.
 *
 * Invariants checked: a failed load leaves no set and says why; a decision
 * that errors never reads Allow; the message is NUL-terminated and within
 * PDP_MESSAGE_MAX.
 */

#define FZ_HOME "/home/op"
#define FZ_MAX_FIELDS 8
#define FZ_ARENA (1u << 20)

/* One field of a request's context.input: a string, a long, a bool, or an
 * entity (f_etype::"f_str"). */
typedef struct fz_field {
    const char *f_name;
    char f_kind; // 's' string, 'l' long, 'b' bool, 'e' entity
    const char *f_str;
    const char *f_etype;
    int64_t f_long;
} fz_field;

typedef struct fz_req {
    const char *q_action;
    const char *q_resource; // the display text
    fz_field q_fields[FZ_MAX_FIELDS];
} fz_req;

/* Requests that conform to Box's schema, so a checked set evaluates its
 * rules on them (a request that does not conform is refused before). */
static const fz_req fz_reqs[] = {
    {"fs:read",
     FZ_HOME "/src/.env",
     {{"path", 's', FZ_HOME "/src/.env", NULL, 0},
      {"operation", 'e', "read_content", "Box::FsReadOperation", 0}}},
    {"fs:write",
     FZ_HOME "/src/.git/config",
     {{"path", 's', FZ_HOME "/src/.git/config", NULL, 0},
      {"operation", 'e', "write_content", "Box::FsWriteOperation", 0}}},
    {"fs:move",
     "/tmp/a b",
     {{"path", 's', "/tmp/a b", NULL, 0},
      {"operation", 'e', "rename", "Box::FsMoveOperation", 0}}},
    {"shell:exec",
     "grep",
     {{"command", 's', "grep -n TODO src/main.rs", NULL, 0},
      {"program", 's', "grep", NULL, 0},
      {"arg1", 's', "-n", NULL, 0},
      {"arg2", 's', "TODO", NULL, 0},
      {"arg_count", 'l', NULL, NULL, 3},
      {"cwd", 's', FZ_HOME "/src", NULL, 0}}},
    {"shell:spawn",
     "/usr/bin/git",
     {{"command", 's', "git status", NULL, 0},
      {"program", 's', "git", NULL, 0},
      {"program_path", 's', "/usr/bin/git", NULL, 0},
      {"arg1", 's', "status", NULL, 0},
      {"arg_count", 'l', NULL, NULL, 1},
      {"cwd", 's', FZ_HOME "/src", NULL, 0}}},
    {"http:request",
     "https://example.com/",
     {{"host", 's', "example.com", NULL, 0},
      {"port", 'l', NULL, NULL, 443},
      {"method", 's', "POST", NULL, 0},
      {"path", 's', "/upload", NULL, 0},
      {"body_bytes", 'l', NULL, NULL, INT64_MAX},
      {"intercepted", 'b', NULL, NULL, 1}}},
    {"net:connect",
     "10.0.0.1:0",
     {{"host", 's', "10.0.0.1", NULL, 0},
      {"port", 'l', NULL, NULL, INT64_MIN}}},
};
#define FZ_NREQ (sizeof fz_reqs / sizeof fz_reqs[0])

/* Built once and kept for the whole run (reachable, so never a leak). */
static struct {
    pdp_schema *st_schema;
    pdp_answer *st_ans;
    box_arena *st_arena;
    pdp_request st_rq[FZ_NREQ];
} fz;

static const pdp_value *
fz_entity(const char *type, const char *id)
{
    pdp_value *v = NULL;
    if (pdp_value_entity(fz.st_arena, type, strlen(type), id, strlen(id), &v) !=
        BOX_OK)
        box_fuzz_fail("fixed entity does not build");
    return v;
}

static const pdp_value *
fz_field_value(const fz_field *f)
{
    pdp_value *v = NULL;
    switch (f->f_kind) {
    case 's':
        if (pdp_value_string(fz.st_arena, f->f_str, strlen(f->f_str), &v) !=
            BOX_OK)
            v = NULL;
        break;
    case 'l':
        v = pdp_value_long(fz.st_arena, f->f_long);
        break;
    case 'b':
        v = pdp_value_bool(fz.st_arena, f->f_long != 0);
        break;
    case 'e':
        return fz_entity(f->f_etype, f->f_str);
    }
    if (v == NULL)
        box_fuzz_fail("fixed value does not build");
    return v;
}

static void
fz_init(void)
{
    char *err = NULL;
    if (fz.st_schema != NULL)
        return;
    if (pdp_schema_load_builtin(&fz.st_schema, &err) != BOX_OK)
        box_fuzz_fail("the built-in schema does not load");
    if ((fz.st_ans = pdp_answer_new()) == NULL ||
        (fz.st_arena = box_arena_new(FZ_ARENA)) == NULL)
        box_fuzz_fail("out of memory at start");
    for (size_t i = 0; i < FZ_NREQ; i++) {
        const fz_req *q = &fz_reqs[i];
        pdp_value *input = pdp_value_record_new(fz.st_arena);
        pdp_value *ctx = pdp_value_record_new(fz.st_arena);
        if (input == NULL || ctx == NULL)
            box_fuzz_fail("out of memory at start");
        for (const fz_field *f = q->q_fields; f->f_name != NULL; f++)
            if (pdp_value_record_put(fz.st_arena, input, f->f_name,
                                     strlen(f->f_name),
                                     fz_field_value(f)) != BOX_OK)
                box_fuzz_fail("fixed record does not build");
        if (pdp_value_record_put(fz.st_arena, ctx, "input", 5, input) != BOX_OK)
            box_fuzz_fail("fixed context does not build");
        fz.st_rq[i] = (pdp_request){
            .rq_principal = fz_entity("Box::Agent", "self"),
            .rq_action = fz_entity("Box::Action", q->q_action),
            .rq_resource = fz_entity("Box::Resource", "unused"),
            .rq_context = ctx,
            .rq_resource_text = q->q_resource,
            .rq_resource_len = strlen(q->q_resource),
        };
    }
}

/* Decides every fixed request against set and checks what comes back. */
static void
fz_decide_all(const pdp_policy_set *set)
{
    for (size_t i = 0; i < FZ_NREQ; i++) {
        box_err rv = pdp_decide(set, &fz.st_rq[i], fz.st_ans);
        pdp_verdict v = pdp_answer_verdict(fz.st_ans);
        if (rv != BOX_OK && v == PDP_ALLOW)
            box_fuzz_fail("a decision that failed reads Allow");
        if (v == PDP_ALLOW && pdp_answer_error_count(fz.st_ans) > 0)
            box_fuzz_fail("an Allow with evaluation errors");
        size_t len = 0;
        const char *msg = pdp_answer_message(fz.st_ans, &len);
        if (rv == BOX_OK &&
            (msg == NULL || strlen(msg) != len || len > PDP_MESSAGE_MAX))
            box_fuzz_fail("a message that is not one bounded string");
        for (size_t j = 0; j < pdp_answer_determining_count(fz.st_ans); j++) {
            pdp_str id =
                pdp_rule_display_id(pdp_answer_determining(fz.st_ans, j));
            if (id.s == NULL || id.len == 0)
                box_fuzz_fail("a determining rule with no name");
        }
    }
}

/* A load either gives a set and no message, or a message and no set. */
static void
fz_check_load(box_err rv, const pdp_policy_set *set, const char *err)
{
    if (rv == BOX_OK && (set == NULL || err != NULL))
        box_fuzz_fail("a load that succeeded without a set or with a message");
    if (rv != BOX_OK && (set != NULL || (err == NULL && rv != BOX_ENOMEM)))
        box_fuzz_fail("a load that failed with a set or without a message");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *text = (const char *)data;
    pdp_policy_set *set = NULL;
    pdp_validate_warnings warn = {0};
    char *err = NULL;

    fz_init();

    // Unchecked: the evaluator on whatever parses.
    box_err rv = pdp_policy_load(text, size, "fuzz.dw", &set, &err);
    fz_check_load(rv, set, err);
    if (set != NULL)
        fz_decide_all(set);
    pdp_policy_free(set);
    box_free(err);
    set = NULL;
    err = NULL;

    // The Box load, as box-pdp does it.
    rv = pdp_policy_load_checked(text, size, "fuzz.dw", fz.st_schema, FZ_HOME,
                                 &set, &warn, &err);
    fz_check_load(rv, set, err);
    if (set != NULL)
        fz_decide_all(set);
    for (size_t i = 0; i < warn.vw_n; i++)
        if (warn.vw_items[i] == NULL)
            box_fuzz_fail("an empty warning");
    pdp_validate_warnings_free(&warn);
    pdp_policy_free(set);
    box_free(err);
    return 0;
}
