/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Budgets that hold under concurrency (issue 21 item 6): a permit of an
 * action whose outcomes a rule reads is a pending outcome until the
 * outcome arrives, and a later decision must hold whichever way each
 * pending outcome turns out. 16 racing calls against a cap of 5
 * responses: exactly 5 proceed; an error releases its place; a pending
 * read does not yet satisfy "a write needs a read"; pending outcomes
 * survive a restart and their resolution does too.
 */
#include "pdp_test_util.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "pdp_decide.h"
#include "pdp_hist.h"
#include "pdp_live.h"
#include "pdp_policy.h"

/* At most 5 `rm` responses in a minute. */
static const char cap5[] =
    "permit (principal, action, resource);\n"
    "@id(\"cap\") forbid (principal, action == A::Action::\"rm\", resource)\n"
    "when temporal { (count for (t: Timepoint). where formerly within 1m "
    "(A::Action::\"rm\"::response{} && tp(t))) >= 5 };\n";

/* One decision of action on input (a record text); true when allowed. */
static bool
decide(pdp_live *l, const pdp_policy_set *set, const char *action,
       const char *input, uint64_t id)
{
    box_arena *a = box_arena_new(1u << 20);
    pdp_answer *ans = pdp_answer_new();
    assert_non_null(a);
    assert_non_null(ans);
    char *ctx = box_asprintf("{input: %s}", input);
    pdp_request rq = {
        .rq_principal = tv(a, "A::User::\"u\""),
        .rq_action = tv(a, action),
        .rq_resource = tv(a, "A::R::\"r\""),
        .rq_context = tv(a, ctx),
        .rq_resource_text = "r",
        .rq_resource_len = 1,
    };
    assert_int_equal(pdp_live_decide(l, set, 1, &rq, id, ans), BOX_OK);
    bool allowed = pdp_answer_verdict(ans) == PDP_ALLOW;
    box_free(ctx);
    pdp_answer_free(ans);
    box_arena_free(a);
    return allowed;
}

/* The outcome of request id: kind "response" (with output) or "error". */
static void
outcome(pdp_live *l, const pdp_policy_set *set, const char *action,
        const char *input, const char *kind, const char *output, uint64_t id)
{
    box_arena *a = box_arena_new(1u << 20);
    assert_int_equal(pdp_live_record(l, set, 1, tv(a, "A::User::\"u\""),
                                     tv(a, "A::R::\"r\""), tv(a, action), kind,
                                     tv(a, input),
                                     output != NULL ? tv(a, output) : NULL,
                                     id),
                     BOX_OK);
    box_arena_free(a);
}

#define RM "A::Action::\"rm\""

typedef struct racer {
    pdp_live *rc_live;
    const pdp_policy_set *rc_set;
    uint64_t rc_id;
    bool rc_allowed;
    atomic_int *rc_go;
} racer;

static void *
race(void *arg)
{
    racer *r = arg;
    while (atomic_load(r->rc_go) == 0)
        ; // all start together
    r->rc_allowed = decide(r->rc_live, r->rc_set, RM, "{}", r->rc_id);
    return NULL;
}

/* 16 concurrent calls, none of whose outcomes has arrived when the next
 * is decided (the race the anchor loses): exactly 5 proceed. Their
 * responses then make the 5 real; an error frees a place. */
static void
test_sixteen_race_a_cap_of_five(void **state)
{
    (void)state;
    pdp_policy_set *set = pdp_test_load(cap5);
    pdp_test_clock fc = {.now = 1000};
    pdp_live *l = pdp_live_new(pdp_test_clock_read, &fc);
    atomic_int go = 0;
    racer rs[16];
    pthread_t th[16];
    for (int i = 0; i < 16; i++) {
        rs[i] = (racer){l, set, 100 + (uint64_t)i, false, &go};
        assert_int_equal(pthread_create(&th[i], NULL, race, &rs[i]), 0);
    }
    atomic_store(&go, 1);
    int allowed = 0;
    for (int i = 0; i < 16; i++) {
        pthread_join(th[i], NULL);
        allowed += rs[i].rc_allowed;
    }
    print_message("16 racing calls against a cap of 5: %d proceeded\n",
                  allowed);
    assert_int_equal(allowed, 5);
    // Four of the five happened, one failed: one place is free again.
    int errors = 0;
    for (int i = 0; i < 16; i++) {
        if (!rs[i].rc_allowed)
            continue;
        bool fail = errors == 0;
        errors += fail;
        outcome(l, set, RM, "{}", fail ? "error" : "response",
                fail ? NULL : "{}", rs[i].rc_id);
    }
    fc.now++;
    assert_true(decide(l, set, RM, "{}", 200));
    assert_false(decide(l, set, RM, "{}", 201));
    // The pending one responds: still five, still capped.
    outcome(l, set, RM, "{}", "response", "{}", 200);
    assert_false(decide(l, set, RM, "{}", 202));
    // A minute later the window is empty again.
    fc.now += 61;
    assert_true(decide(l, set, RM, "{}", 203));
    pdp_live_free(l);
    pdp_policy_free(set);
}

/* A cap on responses with a given output: a pending response's output is
 * not known, so it counts (any value may come). */
static void
test_pending_output_counts(void **state)
{
    (void)state;
    pdp_policy_set *set = pdp_test_load(
        "permit (principal, action, resource);\n"
        "forbid (principal, action == A::Action::\"rm\", resource)\n"
        "when temporal { (count for (t: Timepoint). where formerly within 1m "
        "(A::Action::\"rm\"::response{ output.result: \"completed\" } && "
        "tp(t))) >= 2 };\n");
    pdp_test_clock fc = {.now = 1000};
    pdp_live *l = pdp_live_new(pdp_test_clock_read, &fc);
    assert_true(decide(l, set, RM, "{}", 1));
    assert_true(decide(l, set, RM, "{}", 2));
    assert_false(decide(l, set, RM, "{}", 3)); // two may have completed
    outcome(l, set, RM, "{}", "response", "{result: \"indeterminate\"}", 1);
    assert_true(decide(l, set, RM, "{}", 4)); // one did not complete
    pdp_live_free(l);
    pdp_policy_free(set);
}

/* A permit that needs an earlier response is not satisfied by a pending
 * one: the read may still fail. */
static void
test_pending_read_is_no_read(void **state)
{
    (void)state;
    pdp_policy_set *set = pdp_test_load(
        "permit (principal, action == A::Action::\"read\", resource);\n"
        "permit (principal, action == A::Action::\"write\", resource)\n"
        "when temporal { formerly within 10m A::Action::\"read\"::response{ "
        "input.path: context.input.path } };\n");
    pdp_test_clock fc = {.now = 1000};
    pdp_live *l = pdp_live_new(pdp_test_clock_read, &fc);
    const char *in = "{path: \"/w/a\"}";
    assert_true(decide(l, set, "A::Action::\"read\"", in, 1));
    assert_false(decide(l, set, "A::Action::\"write\"", in, 2));
    outcome(l, set, "A::Action::\"read\"", in, "response", "{}", 1);
    fc.now++;
    assert_true(decide(l, set, "A::Action::\"write\"", in, 3));
    // An error of a second read leaves the first one's response standing.
    assert_true(decide(l, set, "A::Action::\"read\"", in, 4));
    outcome(l, set, "A::Action::\"read\"", in, "error", NULL, 4);
    assert_true(decide(l, set, "A::Action::\"write\"", in, 5));
    pdp_live_free(l);
    pdp_policy_free(set);
}

/* Pending outcomes are in the file: a restarted PDP still counts them,
 * resolves them by request id, and a resolution survives the next
 * restart. */
static void
test_pending_survives_restart(void **state)
{
    (void)state;
    char dir[] = "/tmp/pdp-budget-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char *path = box_asprintf("%s/h", dir);
    pdp_policy_set *set = pdp_test_load(cap5);
    pdp_test_clock fc = {.now = 1000};
    char *warn = NULL, *err = NULL;
    pdp_live *l = pdp_live_new(pdp_test_clock_read, &fc);
    assert_int_equal(pdp_live_open(l, path, &warn, &err), BOX_OK);
    for (uint64_t id = 1; id <= 5; id++)
        assert_true(decide(l, set, RM, "{}", id));
    pdp_live_free(l); // five pending, none resolved
    l = pdp_live_new(pdp_test_clock_read, &fc);
    assert_int_equal(pdp_live_open(l, path, &warn, &err), BOX_OK);
    assert_null(warn);
    assert_false(decide(l, set, RM, "{}", 6));
    outcome(l, set, RM, "{}", "error", NULL, 3); // a place freed
    pdp_live_free(l);
    l = pdp_live_new(pdp_test_clock_read, &fc);
    assert_int_equal(pdp_live_open(l, path, &warn, &err), BOX_OK);
    assert_null(warn);
    assert_true(decide(l, set, RM, "{}", 7));
    assert_false(decide(l, set, RM, "{}", 8));
    pdp_live_free(l);
    pdp_policy_free(set);
    unlink(path);
    rmdir(dir);
    box_free(path);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sixteen_race_a_cap_of_five),
        cmocka_unit_test(test_pending_output_counts),
        cmocka_unit_test(test_pending_read_is_no_read),
        cmocka_unit_test(test_pending_survives_restart),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
