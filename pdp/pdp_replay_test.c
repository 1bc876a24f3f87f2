/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Replays every trace that has an expected output: the worked examples of
 * dogwood-spec §8.2 (pdp/testdata/worked, `replay` form with the rules)
 * and the Dogwood corpus (pdp/testdata/dogwood, `--verdicts` form), each
 * compared line by line after trimming, empty lines dropped (FORMAT.md).
 */
#include "pdp_test_util.h"

#include <dirent.h>

#include "pdp_evschema.h"
#include "pdp_hist.h"
#include "pdp_policy.h"
#include "pdp_replay.h"
#include "pdp_trace.h"

/* Corpus cases that do not agree yet, each with what they need. */
static const struct {
    const char *name;
    const char *why;
} known_gaps[] = {
    {NULL, NULL}, // none: every case with a complete pair agrees
};

typedef struct run {
    bool verdicts;
    unsigned pass, fail, gaps, own_schema;
} run;

/* A case's own schemas (FORMAT.md): schema.cedarschema replaces the
 * shared action schema (the policy is then validated against it, as
 * Dogwood's replay does), event.dwschema the default event schema. */
typedef struct case_schemas {
    pdp_schema *cs_actions;  // NULL: none (nothing is validated)
    pdp_evschema *cs_events; // NULL: Dogwood's default
} case_schemas;

static void
load_case_schemas(const char *dir, case_schemas *cs)
{
    memset(cs, 0, sizeof(*cs));
    char *spath = box_asprintf("%s/schema.cedarschema", dir);
    char *epath = box_asprintf("%s/event.dwschema", dir);
    size_t len = 0;
    char *text = read_file_at(spath, &len);
    char *err = NULL;
    if (text != NULL &&
        pdp_schema_load(text, len, spath, &cs->cs_actions, &err) != BOX_OK)
        fail_msg("%s: %s", spath, err);
    box_free(text);
    if ((text = read_file_at(epath, &len)) != NULL) {
        box_buf msg;
        box_buf_init(&msg, 1u << 16);
        if (pdp_evschema_parse(text, len, epath, &cs->cs_events, &msg) !=
            BOX_OK)
            fail_msg("%s: %s", epath, msg.b_data);
        box_buf_reset(&msg);
    }
    box_free(text);
    box_free(spath);
    box_free(epath);
}

static void
free_case_schemas(case_schemas *cs)
{
    pdp_evschema_free(cs->cs_events);
    pdp_schema_free(cs->cs_actions);
}

/* The event schema's decision kinds decide. */
static bool
decides(void *arg, const char *kind)
{
    return pdp_evschema_is_decision_kind(arg, kind, strlen(kind));
}

/* s trimmed, empty lines dropped, into b. */
static void
normalize(const char *s, box_buf *b)
{
    while (*s != '\0') {
        const char *nl = strchr(s, '\n');
        size_t n = nl ? (size_t)(nl - s) : strlen(s);
        size_t a = 0;
        while (a < n && (s[a] == ' ' || s[a] == '\t' || s[a] == '\r'))
            a++;
        size_t z = n;
        while (z > a && (s[z - 1] == ' ' || s[z - 1] == '\t' ||
                         s[z - 1] == '\r'))
            z--;
        if (z > a) {
            assert_int_equal(box_buf_append(b, s + a, z - a), BOX_OK);
            assert_int_equal(box_buf_putc(b, '\n'), BOX_OK);
        }
        s += n + (nl ? 1 : 0);
    }
    if (b->b_data == NULL)
        assert_int_equal(box_buf_puts(b, ""), BOX_OK);
}

static const char *
gap_of(const char *name)
{
    for (size_t i = 0; i < sizeof known_gaps / sizeof known_gaps[0]; i++)
        if (known_gaps[i].name != NULL && strcmp(known_gaps[i].name, name) == 0)
            return known_gaps[i].why;
    return NULL;
}

/* One trace_N.log with its expected_N.out: 1 agrees, 0 differs, -1 not
 * a complete pair. */
static int
replay_pair(run *r, const char *dir, const char *name, const char *policy,
            const case_schemas *cs, int n)
{
    char *tpath = box_asprintf("%s/trace_%d.log", dir, n);
    char *epath = box_asprintf("%s/expected_%d.out", dir, n);
    size_t tl = 0, el = 0;
    char *trace = read_file_at(tpath, &tl);
    char *expected = read_file_at(epath, &el);
    int ok = 0;
    pdp_policy_set *set = NULL;
    pdp_hist *h = NULL;
    char *err = NULL;
    box_buf msg, out, got, want;
    box_buf_init(&msg, 1u << 16);
    box_buf_init(&out, 1u << 24);
    box_buf_init(&got, 1u << 24);
    box_buf_init(&want, 1u << 24);
    if (trace == NULL || expected == NULL) {
        ok = -1; // not a complete pair: nothing to check
        goto out;
    }
    if (pdp_policy_load_events(policy, strlen(policy), "policy.dw",
                               cs->cs_actions, cs->cs_events, &set, NULL,
                               &err) != BOX_OK) {
        print_error("%s: policy does not load: %s\n", name, err);
        goto out;
    }
    h = pdp_hist_new();
    assert_non_null(h);
    if (pdp_trace_load(trace, tl, tpath, h, NULL, &msg) != BOX_OK) {
        print_error("%s: trace does not load: %s\n", name, msg.b_data);
        goto out;
    }
    pdp_replay_opts o = {.ro_verdicts = r->verdicts};
    if (cs->cs_events != NULL) {
        o.ro_decides = decides;
        o.ro_arg = cs->cs_events;
    }
    assert_int_equal(pdp_replay(set, h, &o, &out), BOX_OK);
    normalize(out.b_data != NULL ? out.b_data : "", &got);
    normalize(expected, &want);
    ok = strcmp(got.b_data, want.b_data) == 0;
    if (ok == 0 && gap_of(name) == NULL)
        print_error("%s trace_%d:\n  got:\n%s  want:\n%s", name, n,
                    got.b_data, want.b_data);
out:
    box_buf_reset(&msg);
    box_buf_reset(&out);
    box_buf_reset(&got);
    box_buf_reset(&want);
    pdp_hist_free(h);
    pdp_policy_free(set);
    box_free(err);
    box_free(trace);
    box_free(expected);
    box_free(tpath);
    box_free(epath);
    return ok;
}

static void
replay_case(run *r, const char *dir, const char *name)
{
    char *policy = pdp_test_case_policy(dir, NULL);
    case_schemas cs;
    load_case_schemas(dir, &cs);
    bool all = true, any = false;
    for (int n = 1; n <= 9; n++) {
        int v = replay_pair(r, dir, name, policy, &cs, n);
        any |= v >= 0;
        all &= v != 0;
    }
    bool own = cs.cs_actions != NULL || cs.cs_events != NULL;
    free_case_schemas(&cs);
    box_free(policy);
    if (!any)
        return;
    r->own_schema += own;
    const char *gap = gap_of(name);
    if (all && gap != NULL)
        fail_msg("%s agrees now: take it off known_gaps", name);
    if (all)
        r->pass++;
    else if (gap != NULL)
        r->gaps++;
    else
        r->fail++;
}

static void
replay_tree(run *r, const char *rel)
{
    char *root = source_path(rel);
    struct dirent **names;
    int n = scandir(root, &names, NULL, alphasort);
    if (n < 0)
        fail_msg("cannot read %s", root);
    for (int i = 0; i < n; i++) {
        if (names[i]->d_name[0] != '.' &&
            names[i]->d_type == DT_DIR) {
            char *dir = box_asprintf("%s/%s", root, names[i]->d_name);
            replay_case(r, dir, names[i]->d_name);
            box_free(dir);
        }
        free(names[i]); // lint: allow raw-alloc: scandir mallocs them
    }
    free(names); // lint: allow raw-alloc: scandir mallocs it
    box_free(root);
}

/* dogwood-spec §8.2, the `replay` form with the determining rules. */
static void
test_worked_examples(void **state)
{
    (void)state;
    run r = {.verdicts = false};
    replay_tree(&r, "pdp/testdata/worked");
    print_message("worked examples: %u agree, %u differ\n", r.pass, r.fail);
    assert_int_equal(r.fail, 0);
    assert_true(r.pass >= 21);
}

/* The Dogwood corpus, `--verdicts` form. */
static void
test_corpus(void **state)
{
    (void)state;
    run r = {.verdicts = true};
    replay_tree(&r, "pdp/testdata/dogwood/temporal_only");
    replay_tree(&r, "pdp/testdata/dogwood/mixed");
    replay_tree(&r, "pdp/testdata/dogwood/macros");
    print_message("corpus: %u cases agree, %u known gaps, %u differ "
                  "(%u with their own schemas)\n",
                  r.pass, r.gaps, r.fail, r.own_schema);
    assert_int_equal(r.fail, 0);
    // 1213, 1214 (action schema: enum ids, action groups) and 1215 (event
    // schema: pins, decimal equality) replay against their own schemas.
    assert_true(r.own_schema >= 3);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_worked_examples),
        cmocka_unit_test(test_corpus),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
