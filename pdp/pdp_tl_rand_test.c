/* SPDX-License-Identifier: Apache-2.0 */
/*
 * A randomized check of the temporal evaluator's walks over candidate
 * events (a value index of a field the predicate fixes, the chain of its
 * action and kind) against the plain scan of every event: random legal conditions over random histories, decided at
 * every timepoint both ways, must agree. A disagreement prints the seed,
 * the condition and the timepoint.
 */
#include "pdp_test_util.h"

#include "pdp_hist.h"
#include "pdp_policy.h"
#include "pdp_tl.h"

#define RT_ACTIONS 3
#define RT_EVENTS 80

typedef struct rng {
    uint64_t s;
} rng;

static uint32_t
rnd(rng *r, uint32_t n)
{
    // xorshift64*: small, deterministic, good enough for test data.
    r->s ^= r->s >> 12;
    r->s ^= r->s << 25;
    r->s ^= r->s >> 27;
    return (uint32_t)((r->s * 2685821657736338717ULL) >> 33) % n;
}

static const char *const rt_kinds[] = {"request", "response", "error"};
static const char *const rt_windows[] = {"5s", "20s", "1m", "2m"};

/* A predicate on a random action and kind, its field `v` a literal, the
 * current request's value, a wildcard, or the variable var (when given). */
static void
pred(rng *r, box_buf *b, const char *var)
{
    unsigned a = rnd(r, RT_ACTIONS);
    const char *k = rt_kinds[rnd(r, 2)]; // request or response mostly
    if (rnd(r, 5) == 0)
        k = rt_kinds[2];
    assert_int_equal(box_buf_printf(b, "A::Action::\"a%u\"::%s{ ", a, k),
                     BOX_OK);
    unsigned how = var != NULL ? 3 : rnd(r, 3);
    if (how == 0)
        assert_int_equal(box_buf_printf(b, "input.v: %u", rnd(r, 3)), BOX_OK);
    else if (how == 1)
        assert_int_equal(box_buf_puts(b, "input.v: context.input.v"), BOX_OK);
    else if (how == 2)
        assert_int_equal(box_buf_puts(b, "input.v: _"), BOX_OK);
    else
        assert_int_equal(box_buf_printf(b, "input.v: %s", var), BOX_OK);
    assert_int_equal(box_buf_puts(b, " }"), BOX_OK);
}

static const char *
win(rng *r)
{
    return rt_windows[rnd(r, 4)];
}

/* One conjunct of a random shape. */
static void
conjunct(rng *r, box_buf *b)
{
    switch (rnd(r, 7)) {
    case 0:
        assert_int_equal(box_buf_printf(b, "formerly within %s ", win(r)),
                         BOX_OK);
        pred(r, b, NULL);
        break;
    case 1:
        assert_int_equal(box_buf_printf(b, "previous within %s ", win(r)),
                         BOX_OK);
        pred(r, b, NULL);
        break;
    case 2:
        assert_int_equal(box_buf_puts(b, "!"), BOX_OK);
        pred(r, b, NULL);
        assert_int_equal(box_buf_printf(b, " since within %s ", win(r)),
                         BOX_OK);
        pred(r, b, NULL);
        break;
    case 3:
        pred(r, b, NULL);
        assert_int_equal(box_buf_printf(b, " since within %s ", win(r)),
                         BOX_OK);
        pred(r, b, NULL);
        break;
    case 4: {
        static const char *const ops[] = {"<", "<=", ">", ">=", "=="};
        assert_int_equal(
            box_buf_printf(b, "(count for (t: Timepoint). where formerly "
                              "within %s (",
                           win(r)),
            BOX_OK);
        pred(r, b, NULL);
        assert_int_equal(box_buf_printf(b, " && tp(t))) %s %u", ops[rnd(r, 5)],
                                        rnd(r, 6)),
                         BOX_OK);
        break;
    }
    case 5:
        assert_int_equal(box_buf_printf(b, "exists (x: Long). (formerly "
                                           "within %s ",
                                        win(r)),
                         BOX_OK);
        pred(r, b, "x");
        assert_int_equal(box_buf_printf(b, " && formerly within %s ", win(r)),
                         BOX_OK);
        pred(r, b, "x");
        assert_int_equal(box_buf_puts(b, ")"), BOX_OK);
        break;
    default:
        assert_int_equal(
            box_buf_printf(b, "exists (n: Long). ((sum x for (x: Long), "
                              "(t: Timepoint). where formerly within %s (",
                           win(r)),
            BOX_OK);
        pred(r, b, "x");
        assert_int_equal(box_buf_printf(b, " && tp(t))) == n && n > %u)",
                                        rnd(r, 4)),
                         BOX_OK);
        break;
    }
}

/* Value indexes on every field a predicate fixes, as box-pdp keeps them. */
static void
index_pred(void *arg, const pdp_tl *pred)
{
    for (uint32_t i = 0; i < pred->tl_nargs; i++)
        if (pred->tl_args[i].ta_term->tt_kind != PDP_TT_WILD)
            assert_int_equal(pdp_hist_index(arg, pred->tl_action,
                                            pred->tl_event_kind.s,
                                            pred->tl_event_kind.len,
                                            pred->tl_args[i].ta_path.s,
                                            pred->tl_args[i].ta_path.len),
                             BOX_OK);
}

/* A random history: events of random actions and kinds, `v` in 0..2,
 * time going on by 0 to 9 seconds. The indexes for tl are asked for
 * before the events (kept as they come) or after (built from them). */
static pdp_hist *
history(rng *r, const pdp_tl *tl, bool index_first)
{
    pdp_hist *h = pdp_hist_new();
    assert_non_null(h);
    if (index_first)
        pdp_tl_each_pred(tl, index_pred, h);
    int64_t ts = 0;
    for (int i = 0; i < RT_EVENTS; i++) {
        box_arena *a = pdp_hist_arena(h);
        char id[8];
        snprintf(id, sizeof id, "a%u", rnd(r, RT_ACTIONS));
        pdp_value *act = NULL, *p = NULL, *res = NULL;
        pdp_value *in = pdp_value_record_new(a), *f = pdp_value_record_new(a),
                  *ctx = pdp_value_record_new(a);
        assert_int_equal(pdp_value_entity(a, "A::Action", 9, id, strlen(id),
                                          &act),
                         BOX_OK);
        assert_int_equal(pdp_value_entity(a, "A::User", 7, "u", 1, &p),
                         BOX_OK);
        assert_int_equal(pdp_value_entity(a, "A::R", 4, "r", 1, &res),
                         BOX_OK);
        assert_int_equal(pdp_value_record_put(a, in, "v", 1,
                                              pdp_value_long(a, rnd(r, 3))),
                         BOX_OK);
        assert_int_equal(pdp_value_record_put(a, f, "input", 5, in), BOX_OK);
        assert_int_equal(pdp_value_record_put(a, ctx, "input", 5, in), BOX_OK);
        ts += rnd(r, 10);
        pdp_event e = {.ev_action = act,
                       .ev_kind = rt_kinds[rnd(r, 3)],
                       .ev_ts = ts,
                       .ev_principal = p,
                       .ev_resource = res,
                       .ev_fields = f,
                       .ev_context = ctx};
        assert_int_equal(pdp_hist_append(h, &e), BOX_OK);
    }
    if (!index_first)
        pdp_tl_each_pred(tl, index_pred, h);
    return h;
}

static void
test_chained_walk_agrees_with_scan(void **state)
{
    box_arena *scratch = *state;
    uint64_t seed = 0x5eedf00dULL;
    const char *env = getenv("PDP_TL_RAND_SEED");
    if (env != NULL)
        seed = strtoull(env, NULL, 0);
    rng r = {seed | 1};
    unsigned conditions = 0, decisions = 0, held = 0;
    for (int round = 0; round < 300; round++) {
        box_buf src;
        box_buf_init(&src, 1u << 16);
        assert_int_equal(box_buf_puts(&src, "permit (principal, action, "
                                            "resource) when temporal { "),
                         BOX_OK);
        conjunct(&r, &src);
        if (rnd(&r, 2) == 0) {
            assert_int_equal(box_buf_puts(&src, " && "), BOX_OK);
            conjunct(&r, &src);
        }
        assert_int_equal(box_buf_puts(&src, " };"), BOX_OK);
        pdp_policy_set *set = NULL;
        char *err = NULL;
        if (pdp_policy_load(src.b_data, src.b_len, "rand.dw", &set, &err) !=
            BOX_OK) {
            // A shape the legality check refuses (e.g. a filter before its
            // restrictor): not a case.
            box_free(err);
            box_buf_reset(&src);
            continue;
        }
        conditions++;
        const pdp_tl *tl =
            pdp_policy_rule(set, 0)->r_conds[0].cd_body->u.tl;
        pdp_hist *h = history(&r, tl, round % 2 == 0);
        for (size_t j = 0; j < pdp_hist_len(h); j++) {
            const pdp_event *e = pdp_hist_at(h, j);
            pdp_tl_now now = {.tn_hist = h,
                              .tn_at = j,
                              .tn_principal = e->ev_principal,
                              .tn_resource = e->ev_resource,
                              .tn_context = e->ev_context};
            bool scan = false, chained = false;
            now.tn_scan = true;
            box_arena_reset(scratch);
            assert_int_equal(pdp_tl_holds(tl, &now, scratch, &scan), BOX_OK);
            now.tn_scan = false;
            box_arena_reset(scratch);
            assert_int_equal(pdp_tl_holds(tl, &now, scratch, &chained),
                             BOX_OK);
            if (scan != chained)
                fail_msg("seed %#llx, round %d, timepoint %zu: scan %d, "
                         "chained %d\n  %s",
                         (unsigned long long)seed, round, j, scan, chained,
                         src.b_data);
            decisions++;
            held += scan;
        }
        pdp_hist_free(h);
        pdp_policy_free(set);
        box_buf_reset(&src);
    }
    print_message("%u conditions, %u decisions (%u held), seed %#llx\n",
                  conditions, decisions, held, (unsigned long long)seed);
    // The generator makes mostly legal conditions, and both answers occur.
    assert_true(conditions > 150);
    assert_true(held > decisions / 20 && held < decisions - decisions / 20);
}

static int
setup(void **state)
{
    *state = box_arena_new(1u << 26);
    return *state == NULL;
}

static int
teardown(void **state)
{
    box_arena_free(*state);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_chained_walk_agrees_with_scan),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
