/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The incremental monitors (pdp_tlmon) against the reference evaluator
 * (pdp_tl_holds, which scans): random correlations over random histories
 * must be decided alike at every timepoint; shapes the monitor does not
 * take are left to the reference; pending outcomes in another world are
 * handed back.
 */
#include "pdp_test_util.h"

#include <stdio.h>
#include <stdlib.h>

#include "pdp_decide.h"
#include "pdp_hist.h"
#include "pdp_live.h"
#include "pdp_policy.h"
#include "pdp_tl.h"
#include "pdp_tlmon.h"

static box_arena *A;

/* The temporal leaf of `permit(...) when temporal { cond };`. */
static const pdp_tl *
leaf_of(const char *cond)
{
    char *src = box_asprintf("permit(principal, action, resource) when "
                             "temporal { %s };",
                             cond);
    box_buf err;
    box_buf_init(&err, 4096);
    const pdp_ast *ast = NULL;
    if (pdp_parse(src, strlen(src), "m.dw", A, &ast, &err) != BOX_OK)
        fail_msg("%s: %s", cond, err.b_data);
    box_buf_reset(&err);
    box_free(src);
    return ast->as_rules[0]->r_conds[0].cd_body->u.tl;
}

/* A small deterministic generator (the seed is printed on a failure). */
static uint64_t
rnd(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static const char *const paths[] = {"a", "b", "c", "d"};
static const char *const acts[] = {"w", "r", "x"};
static const char *const kinds[] = {"request", "response"};

/* Event i of a random history: action w, r or x, kind request or
 * response, input {path, op}, some pending or void. */
static void
add_event(pdp_hist *h, uint64_t *s, int64_t *ts)
{
    box_arena *a = pdp_hist_arena(h);
    *ts += (int64_t)(rnd(s) % 40);
    char text[128];
    snprintf(text, sizeof text, "{input: {path: \"%s\", op: \"%s\"}}",
             paths[rnd(s) % 4], rnd(s) % 3 == 0 ? "del" : "put");
    const char *act = acts[rnd(s) % 3];
    char atext[64];
    snprintf(atext, sizeof atext, "A::Action::\"%s\"", act);
    uint64_t st = rnd(s) % 10;
    pdp_event e = {.ev_action = tv(a, atext),
                   .ev_kind = kinds[rnd(s) % 4 == 0],
                   .ev_ts = *ts,
                   .ev_fields = tv(a, text),
                   .ev_state = st == 0   ? PDP_EV_PENDING
                               : st == 1 ? PDP_EV_VOID
                                         : PDP_EV_REAL};
    if (e.ev_state != PDP_EV_REAL)
        e.ev_kind = "response"; // only outcomes are ever pending
    assert_int_equal(pdp_hist_append(h, &e), BOX_OK);
}

/* A random correlation of the monitored shape. */
static char *
random_cond(uint64_t *s)
{
    static const char *const wins[] = {"10s", "60s", "200s"};
    static const char *const extra[] = {"", ", input.op: \"put\"",
                                        ", input.op: _"};
    static const char *const filters[] = {
        "", " && context.flag == true", " && context.n > 2",
        " && context.missing == 1"};
    int n = 2 + (int)(rnd(s) % 2);
    box_buf b;
    box_buf_init(&b, 4096);
    assert_int_equal(box_buf_puts(&b, "exists (p: String). ("), BOX_OK);
    for (int i = 0; i < n; i++)
        assert_int_equal(
            box_buf_printf(&b,
                           "%sformerly within %s A::Action::\"%s\"::%s{ "
                           "input.path: p%s }",
                           i > 0 ? " && " : "", wins[rnd(s) % 3],
                           acts[rnd(s) % 2], kinds[rnd(s) % 3 == 0],
                           extra[rnd(s) % 3]),
            BOX_OK);
    assert_int_equal(box_buf_printf(&b, "%s)", filters[rnd(s) % 4]), BOX_OK);
    return box_buf_take(&b);
}

/* The monitor and the reference agree at every timepoint of a random
 * history, in each world a pending outcome may be taken for. */
static void
test_random_agreement(void **state)
{
    (void)state;
    const pdp_value *ctxs[2];
    ctxs[0] = tv(A, "{flag: true, n: 3}");
    ctxs[1] = tv(A, "{flag: false, n: 1}");
    unsigned decided = 0, handed_back = 0, held = 0;
    for (uint64_t seed = 1; seed <= 300; seed++) {
        uint64_t s = seed * 0x9E3779B97F4A7C15ULL;
        char *cond = random_cond(&s);
        const pdp_tl *leaf = leaf_of(cond);
        pdp_tlmon *m = pdp_tlmon_new(leaf);
        if (m == NULL)
            fail_msg("seed %llu: no monitor for %s", (unsigned long long)seed,
                     cond);
        pdp_hist *h = pdp_hist_new();
        int64_t ts = 1000;
        for (int k = 0; k < 120; k++) {
            add_event(h, &s, &ts);
            size_t j = pdp_hist_len(h) - 1;
            pdp_tlmon_observe(m, pdp_hist_at(h, j));
            for (int w = 0; w < 3; w++) {
                box_arena *scratch = box_arena_new(1u << 22);
                pdp_tl_now now = {.tn_hist = h,
                                  .tn_at = j,
                                  .tn_context = ctxs[k % 2],
                                  .tn_pending = (pdp_tl_pending)w};
                bool want = false, got = false;
                assert_int_equal(pdp_tl_holds(leaf, &now, scratch, &want),
                                 BOX_OK);
                if (pdp_tlmon_holds(m, &now, scratch, &got) == 1) {
                    if (got != want)
                        fail_msg("seed %llu, event %d, world %d: %s\n"
                                 "  monitor %d, reference %d",
                                 (unsigned long long)seed, k, w, cond, got,
                                 want);
                    decided++;
                    held += got;
                } else {
                    handed_back++;
                }
                box_arena_free(scratch);
            }
        }
        pdp_tlmon_free(m);
        pdp_hist_free(h);
        box_free(cond);
    }
    print_message("monitor and reference agree at %u timepoints, %u of them "
                  "true (%u handed back to the reference)\n",
                  decided, held, handed_back);
    assert_true(decided > 50000);
    assert_true(held > decided / 20); // both answers well represented
    assert_true(held < decided - decided / 20);
}

/* Shapes the monitor does not take stay with the reference. */
static void
test_shapes(void **state)
{
    (void)state;
    static const char *const no[] = {
        // one window: a plain formerly, which the indexes answer
        "exists (p: String). formerly within 1h A::Action::\"w\"::request{ "
        "input.path: p }",
        // the variable compared, not only bound
        "exists (p: String). (formerly within 1h A::Action::\"w\"::request{ "
        "input.path: p } && formerly within 1h A::Action::\"r\"::request{ "
        "input.path: p } && p == \"a\")",
        // a field read from the request
        "exists (p: String). (formerly within 1h A::Action::\"w\"::request{ "
        "input.path: p, input.op: context.op } && formerly within 1h "
        "A::Action::\"r\"::request{ input.path: p })",
        // a timepoint binder, and a negation
        "exists (t: Timepoint). (formerly within 1h "
        "(A::Action::\"w\"::request{} && tp(t)))",
        "!exists (p: String). (formerly within 1h A::Action::\"w\"::request{ "
        "input.path: p } && formerly within 1h A::Action::\"r\"::request{ "
        "input.path: p })",
    };
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++) {
        pdp_tlmon *m = pdp_tlmon_new(leaf_of(no[i]));
        if (m != NULL)
            fail_msg("a monitor for %s", no[i]);
    }
}

/* One decision of action on path (or program); true when allowed. */
static bool
live_decide(pdp_live *l, const pdp_policy_set *set, uint64_t epoch,
            const char *action, const char *input)
{
    box_arena *a = box_arena_new(1u << 20);
    pdp_answer *ans = pdp_answer_new();
    char *act = box_asprintf("A::Action::\"%s\"", action);
    char *ctx = box_asprintf("{input: %s}", input);
    pdp_request rq = {.rq_principal = tv(a, "A::User::\"u\""),
                      .rq_action = tv(a, act),
                      .rq_resource = tv(a, "A::R::\"r\""),
                      .rq_context = tv(a, ctx),
                      .rq_resource_text = "r",
                      .rq_resource_len = 1};
    assert_int_equal(pdp_live_decide(l, set, epoch, &rq, 1, ans), BOX_OK);
    bool allowed = pdp_answer_verdict(ans) == PDP_ALLOW;
    box_free(act);
    box_free(ctx);
    pdp_answer_free(ans);
    box_arena_free(a);
    return allowed;
}

/* Through the running PDP: the monitor answers the correlation rule, a
 * window closes on time, and a changed rule's monitor starts empty. */
static void
test_live_monitor(void **state)
{
    (void)state;
    static const char pol[] =
        "permit (principal, action, resource);\n"
        "forbid (principal, action == A::Action::\"x\", resource)\n"
        "when temporal { exists (p: String). (formerly within 1h "
        "A::Action::\"w\"::request{ input.path: p } && formerly within 1h "
        "A::Action::\"r\"::request{ input.path: p }) && "
        "context.input.prog == \"sh\" };\n";
    pdp_policy_set *set = pdp_test_load(pol);
    pdp_test_clock fc = {.now = 1000};
    pdp_live *l = pdp_live_new(pdp_test_clock_read, &fc);
    assert_true(live_decide(l, set, 1, "w", "{path: \"a\"}"));
    fc.now += 10;
    assert_true(live_decide(l, set, 1, "r", "{path: \"b\"}"));
    fc.now += 10;
    assert_true(live_decide(l, set, 1, "x", "{prog: \"sh\"}")); // no pair
    assert_true(live_decide(l, set, 1, "r", "{path: \"a\"}"));
    fc.now += 10;
    assert_false(live_decide(l, set, 1, "x", "{prog: \"sh\"}")); // a, a
    assert_true(live_decide(l, set, 1, "x", "{prog: \"ls\"}"));  // filter
    fc.now = 1000 + 3600; // the write of a is 3,600 s back: still in
    assert_false(live_decide(l, set, 1, "x", "{prog: \"sh\"}"));
    fc.now += 1; // 3,601 s: out
    assert_true(live_decide(l, set, 1, "x", "{prog: \"sh\"}"));
    assert_true(live_decide(l, set, 1, "w", "{path: \"a\"}"));
    assert_false(live_decide(l, set, 1, "x", "{prog: \"sh\"}"));
    // The rule changed (a longer window): it starts with no history.
    char *changed = box_strdup(pol);
    char *w = strstr(changed, "within 1h");
    w[7] = '2';
    pdp_policy_set *set2 = pdp_test_load(changed);
    fc.now += 1;
    assert_true(live_decide(l, set2, 2, "x", "{prog: \"sh\"}"));
    assert_true(live_decide(l, set2, 2, "r", "{path: \"c\"}"));
    assert_true(live_decide(l, set2, 2, "w", "{path: \"c\"}"));
    assert_false(live_decide(l, set2, 2, "x", "{prog: \"sh\"}"));
    box_free(changed);
    pdp_live_free(l);
    pdp_policy_free(set);
    pdp_policy_free(set2);
}

static int
setup(void **state)
{
    (void)state;
    A = box_arena_new(1u << 26);
    return A == NULL;
}

static int
teardown(void **state)
{
    (void)state;
    box_arena_free(A);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_random_agreement),
        cmocka_unit_test(test_shapes),
        cmocka_unit_test(test_live_monitor),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
