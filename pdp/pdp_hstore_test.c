/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The durable history (pdp_hstore) and the live PDP over it (pdp_live):
 * replay after a restart, a torn or corrupt tail cut off with a warning,
 * compaction, concurrent decisions sharing fdatasync, a count rule that
 * holds across a restart, a full disk denying with the reason.
 */
#include "pdp_test_util.h"

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "pdp_decide.h"
#include "pdp_hist.h"
#include "pdp_hstore.h"
#include "pdp_live.h"
#include "pdp_policy.h"

static char dir[64];

static char *
path_of(const char *name)
{
    return box_asprintf("%s/%s", dir, name);
}

/* An event {input: {n: i}} of A::Action::"x" at ts, in h's arena. */
static void
make_event(pdp_hist *h, int64_t ts, int64_t i, pdp_event *e)
{
    box_arena *a = pdp_hist_arena(h);
    pdp_value *act = NULL, *p = NULL, *in = pdp_value_record_new(a),
              *f = pdp_value_record_new(a), *ctx = pdp_value_record_new(a);
    assert_int_equal(pdp_value_entity(a, "A::Action", 9, "x", 1, &act),
                     BOX_OK);
    assert_int_equal(pdp_value_entity(a, "A::User", 7, "u", 1, &p), BOX_OK);
    assert_int_equal(pdp_value_record_put(a, in, "n", 1, pdp_value_long(a, i)),
                     BOX_OK);
    assert_int_equal(pdp_value_record_put(a, f, "input", 5, in), BOX_OK);
    assert_int_equal(pdp_value_record_put(a, ctx, "input", 5, in), BOX_OK);
    *e = (pdp_event){.ev_action = act, .ev_kind = i % 2 ? "response"
                                                        : "request",
                     .ev_ts = ts, .ev_principal = p, .ev_fields = f,
                     .ev_context = i % 2 ? NULL : ctx};
}

/* Writes n events to a new store at path (and to a history). */
static void
write_events(const char *path, int n)
{
    pdp_hist *h = pdp_hist_new();
    pdp_hstore_rules rules;
    pdp_hstore *s = NULL;
    char *warn = NULL, *err = NULL;
    assert_int_equal(pdp_hstore_open(path, h, &rules, &s, &warn, &err),
                     BOX_OK);
    assert_null(warn);
    uint64_t t = 0;
    pdp_hstore_rule r[] = {{"permit (principal, action, resource);", 7}};
    assert_int_equal(pdp_hstore_put_rules(s, r, 1, &t), BOX_OK);
    for (int i = 0; i < n; i++) {
        pdp_event e;
        make_event(h, 100 + i, i, &e);
        assert_int_equal(pdp_hstore_put_event(s, (uint64_t)i, &e, &t),
                         BOX_OK);
        assert_int_equal(pdp_hist_append(h, &e), BOX_OK);
    }
    assert_int_equal(pdp_hstore_sync(s, t), BOX_OK);
    pdp_hstore_close(s);
    pdp_hstore_rules_free(&rules);
    pdp_hist_free(h);
}

/* Opens path again: its events into a new history. */
static pdp_hist *
reopen(const char *path, char **warn, pdp_hstore_rules *rules)
{
    pdp_hist *h = pdp_hist_new();
    pdp_hstore *s = NULL;
    char *err = NULL;
    if (pdp_hstore_open(path, h, rules, &s, warn, &err) != BOX_OK)
        fail_msg("reopen: %s", err);
    pdp_hstore_close(s);
    return h;
}

static void
test_replay(void **state)
{
    (void)state;
    char *p = path_of("h1");
    write_events(p, 10);
    char *warn = NULL;
    pdp_hstore_rules rules;
    pdp_hist *h = reopen(p, &warn, &rules);
    assert_null(warn);
    assert_int_equal(pdp_hist_len(h), 10);
    for (size_t i = 0; i < 10; i++) {
        const pdp_event *e = pdp_hist_at(h, i);
        assert_int_equal(e->ev_ts, 100 + (int64_t)i);
        assert_string_equal(e->ev_kind, i % 2 ? "response" : "request");
        assert_non_null(e->ev_principal);
        assert_null(e->ev_resource);
        assert_true((e->ev_context != NULL) == (i % 2 == 0));
        assert_int_equal(pdp_value_as_long(pdp_hist_field(e->ev_fields,
                                                          "input.n", 7)),
                         (int64_t)i);
    }
    assert_int_equal(rules.hs_n, 1);
    assert_int_equal(rules.hs_rules[0].hr_since, 7);
    assert_string_equal(rules.hs_rules[0].hr_text,
                        "permit (principal, action, resource);");
    pdp_hstore_rules_free(&rules);
    pdp_hist_free(h);
    box_free(p);
}

static off_t
file_size(const char *p)
{
    struct stat st;
    assert_int_equal(stat(p, &st), 0);
    return st.st_size;
}

/* A crash mid-write leaves a torn record: it is cut off with a warning,
 * the events before it stay, and the file takes new records after. */
static void
test_torn_and_corrupt_tails(void **state)
{
    (void)state;
    char *p = path_of("h2");
    write_events(p, 5);
    off_t full = file_size(p);
    assert_int_equal(truncate(p, full - 3), 0);
    char *warn = NULL;
    pdp_hstore_rules rules;
    pdp_hist *h = reopen(p, &warn, &rules);
    assert_int_equal(pdp_hist_len(h), 4);
    assert_non_null(warn);
    assert_non_null(strstr(warn, "a torn or corrupt tail of"));
    assert_non_null(strstr(warn, "after 4 events was cut off"));
    box_free(warn);
    pdp_hstore_rules_free(&rules);
    pdp_hist_free(h);
    off_t cut = file_size(p);
    assert_true(cut < full - 3);
    // Cut already: opens clean now.
    h = reopen(p, &warn, &rules);
    assert_null(warn);
    assert_int_equal(pdp_hist_len(h), 4);
    pdp_hstore_rules_free(&rules);
    pdp_hist_free(h);

    // A flipped byte inside the last record's payload: the checksum
    // fails there, and it and what follows are cut.
    assert_int_equal(unlink(p), 0);
    write_events(p, 5);
    int fd = open(p, O_RDWR);
    assert_true(fd >= 0);
    unsigned char b;
    off_t at = full - 2; // inside the last record
    assert_int_equal(pread(fd, &b, 1, at), 1);
    b ^= 0x40;
    assert_int_equal(pwrite(fd, &b, 1, at), 1);
    close(fd);
    h = reopen(p, &warn, &rules);
    assert_int_equal(pdp_hist_len(h), 4);
    assert_non_null(warn);
    box_free(warn);
    pdp_hstore_rules_free(&rules);
    pdp_hist_free(h);

    // Not a history at all: refused, the file left alone.
    assert_int_equal(truncate(p, 0), 0);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs("hello\n", f);
    fclose(f);
    pdp_hist *h2 = pdp_hist_new();
    pdp_hstore *s = NULL;
    char *err = NULL;
    assert_int_equal(pdp_hstore_open(p, h2, &rules, &s, &warn, &err),
                     BOX_ECONFIG);
    assert_non_null(strstr(err, "is not a box history file"));
    box_free(err);
    assert_int_equal(file_size(p), 6);
    pdp_hist_free(h2);
    box_free(p);
}

/* ---- the live PDP over the store ---- */

static const char cap_policy[] =
    "permit (principal, action, resource);\n"
    "@id(\"cap\") forbid (principal, action == A::Action::\"rm\", resource)\n"
    "when temporal { (count for (t: Timepoint). where formerly within 1m "
    "(A::Action::\"rm\"::request{} && tp(t))) > 3 };\n";

/* One `rm` decision: true when allowed. */
static bool
decide_rm(pdp_live *l, const pdp_policy_set *set, box_arena *a,
          pdp_answer *ans, box_err *rv)
{
    pdp_request rq = {
        .rq_principal = tv(a, "A::User::\"u\""),
        .rq_action = tv(a, "A::Action::\"rm\""),
        .rq_resource = tv(a, "A::R::\"r\""),
        .rq_context = tv(a, "{input: {}}"),
        .rq_resource_text = "rm",
        .rq_resource_len = 2,
    };
    *rv = pdp_live_decide(l, set, 1, &rq, 9, ans);
    return pdp_answer_verdict(ans) == PDP_ALLOW;
}

/* A count rule holds across a restart: the fourth rm within the minute
 * is denied by the next process too (a kill -9 loses nothing that was
 * acknowledged: each verdict waited for its event's fdatasync). */
static void
test_count_survives_restart(void **state)
{
    box_arena *a = *state;
    char *p = path_of("h3");
    pdp_policy_set *set = pdp_test_load(cap_policy);
    pdp_answer *ans = pdp_answer_new();
    pdp_test_clock fc = {.now = 1000};
    box_err rv;
    pdp_live *l = pdp_live_new(pdp_test_clock_read, &fc);
    char *warn = NULL, *err = NULL;
    assert_int_equal(pdp_live_open(l, p, &warn, &err), BOX_OK);
    for (int i = 0; i < 3; i++) {
        fc.now++;
        assert_true(decide_rm(l, set, a, ans, &rv));
        assert_int_equal(rv, BOX_OK);
    }
    pdp_live_free(l); // the process ends
    l = pdp_live_new(pdp_test_clock_read, &fc);
    assert_int_equal(pdp_live_open(l, p, &warn, &err), BOX_OK);
    assert_null(warn);
    assert_int_equal(pdp_live_events(l), 3);
    fc.now++;
    assert_false(decide_rm(l, set, a, ans, &rv));
    assert_int_equal(rv, BOX_OK);
    assert_string_equal(pdp_rule_display_id(pdp_answer_determining(ans, 0)).s,
                        "cap");
    // A minute later the window has moved on.
    fc.now += 61;
    assert_true(decide_rm(l, set, a, ans, &rv));
    pdp_live_free(l);
    pdp_answer_free(ans);
    pdp_policy_free(set);
    box_free(p);
}

/* A changed rule starts empty, an unchanged one keeps what it saw, also
 * across a restart (the rules record). */
static void
test_changed_rule_starts_empty(void **state)
{
    box_arena *a = *state;
    char *p = path_of("h4");
    pdp_policy_set *set = pdp_test_load(cap_policy);
    pdp_answer *ans = pdp_answer_new();
    pdp_test_clock fc = {.now = 1000};
    box_err rv;
    char *warn = NULL, *err = NULL;
    pdp_live *l = pdp_live_new(pdp_test_clock_read, &fc);
    assert_int_equal(pdp_live_open(l, p, &warn, &err), BOX_OK);
    for (int i = 0; i < 3; i++)
        assert_true(decide_rm(l, set, a, ans, &rv));
    pdp_live_free(l);
    // The same text in a new process: it remembers the three.
    l = pdp_live_new(pdp_test_clock_read, &fc);
    assert_int_equal(pdp_live_open(l, p, &warn, &err), BOX_OK);
    pdp_policy_set *same = pdp_test_load(cap_policy);
    assert_false(decide_rm(l, same, a, ans, &rv));
    // A changed cap (> 4) is a new rule: it sees only from now on.
    char changed[sizeof cap_policy + 8];
    snprintf(changed, sizeof changed, "%s", cap_policy);
    *strstr(changed, "> 3") = '\0';
    strcat(changed, "> 4 };\n");
    pdp_policy_set *set2 = pdp_test_load(changed);
    for (int i = 0; i < 4; i++) {
        pdp_request r2 = {
            .rq_principal = tv(a, "A::User::\"u\""),
            .rq_action = tv(a, "A::Action::\"rm\""),
            .rq_resource = tv(a, "A::R::\"r\""),
            .rq_context = tv(a, "{input: {}}"),
        };
        assert_int_equal(pdp_live_decide(l, set2, 2, &r2, 1, ans), BOX_OK);
        assert_int_equal(pdp_answer_verdict(ans), PDP_ALLOW);
    }
    pdp_request r3 = {
        .rq_principal = tv(a, "A::User::\"u\""),
        .rq_action = tv(a, "A::Action::\"rm\""),
        .rq_resource = tv(a, "A::R::\"r\""),
        .rq_context = tv(a, "{input: {}}"),
    };
    assert_int_equal(pdp_live_decide(l, set2, 2, &r3, 1, ans), BOX_OK);
    assert_int_equal(pdp_answer_verdict(ans), PDP_DENY);
    pdp_live_free(l);
    pdp_policy_free(set2);
    pdp_policy_free(same);
    pdp_answer_free(ans);
    pdp_policy_free(set);
    box_free(p);
}

typedef struct racer {
    pdp_live *rc_live;
    const pdp_policy_set *rc_set;
    int rc_allowed;
} racer;

static void *
race(void *arg)
{
    racer *r = arg;
    box_arena *a = box_arena_new(1u << 20);
    pdp_answer *ans = pdp_answer_new();
    box_err rv;
    for (int i = 0; i < 50; i++) {
        box_arena_reset(a);
        if (decide_rm(r->rc_live, r->rc_set, a, ans, &rv))
            r->rc_allowed++;
        assert_int_equal(rv, BOX_OK);
    }
    pdp_answer_free(ans);
    box_arena_free(a);
    return NULL;
}

/* 8 threads × 50 decisions, each waiting for its fdatasync (shared):
 * every event is in the file after, in one order, and the cap of 3 in
 * the minute let exactly 3 through. */
static void
test_concurrent_decisions(void **state)
{
    (void)state;
    char *p = path_of("h5");
    pdp_policy_set *set = pdp_test_load(cap_policy);
    pdp_test_clock fc = {.now = 5000};
    char *warn = NULL, *err = NULL;
    pdp_live *l = pdp_live_new(pdp_test_clock_read, &fc);
    assert_int_equal(pdp_live_open(l, p, &warn, &err), BOX_OK);
    racer rs[8];
    pthread_t th[8];
    for (int i = 0; i < 8; i++) {
        rs[i] = (racer){l, set, 0};
        assert_int_equal(pthread_create(&th[i], NULL, race, &rs[i]), 0);
    }
    int allowed = 0;
    for (int i = 0; i < 8; i++) {
        pthread_join(th[i], NULL);
        allowed += rs[i].rc_allowed;
    }
    assert_int_equal(allowed, 3);
    pdp_live_free(l);
    pdp_hstore_rules rules;
    pdp_hist *h = reopen(p, &warn, &rules);
    assert_null(warn);
    assert_int_equal(pdp_hist_len(h), 400);
    pdp_hstore_rules_free(&rules);
    pdp_hist_free(h);
    pdp_policy_free(set);
    box_free(p);
}

/* Aged-out events leave the file at a compaction; numbering goes on. */
static void
test_compaction(void **state)
{
    box_arena *a = *state;
    char *p = path_of("h6");
    pdp_policy_set *set = pdp_test_load(cap_policy);
    pdp_answer *ans = pdp_answer_new();
    pdp_test_clock fc = {.now = 10000};
    char *warn = NULL, *err = NULL;
    box_err rv;
    pdp_live *l = pdp_live_new(pdp_test_clock_read, &fc);
    assert_int_equal(pdp_live_open(l, p, &warn, &err), BOX_OK);
    // 6,000 events, 10 a second: a minute's window keeps ~600 of them,
    // so a compaction comes after 4,096 have aged out.
    for (int i = 0; i < 6000; i++) {
        if (i % 10 == 0)
            fc.now++;
        box_arena_reset(a);
        (void)decide_rm(l, set, a, ans, &rv);
        assert_int_equal(rv, BOX_OK);
    }
    size_t kept = pdp_live_events(l);
    assert_true(kept < 8192);
    pdp_live_free(l);
    pdp_hstore_rules rules;
    pdp_hist *h = reopen(p, &warn, &rules);
    assert_null(warn);
    // The file holds what was kept at the last compaction and after.
    assert_true(pdp_hist_len(h) >= kept && pdp_hist_len(h) < 6000);
    assert_true(pdp_hist_base(h) > 0);
    assert_int_equal(pdp_hist_base(h) + pdp_hist_len(h), 6000);
    pdp_hstore_rules_free(&rules);
    pdp_hist_free(h);
    pdp_answer_free(ans);
    pdp_policy_free(set);
    box_free(p);
}

/* A full disk (a file size limit here): the decision is a deny that says
 * why, never a permit, and the next decision is made again. */
static void
test_full_disk_denies(void **state)
{
    box_arena *a = *state;
    char *p = path_of("h7");
    pdp_policy_set *set = pdp_test_load(cap_policy);
    pdp_answer *ans = pdp_answer_new();
    pdp_test_clock fc = {.now = 1};
    char *warn = NULL, *err = NULL;
    box_err rv;
    pdp_live *l = pdp_live_new(pdp_test_clock_read, &fc);
    assert_int_equal(pdp_live_open(l, p, &warn, &err), BOX_OK);
    assert_true(decide_rm(l, set, a, ans, &rv));
    struct rlimit old, small = {.rlim_cur = (rlim_t)file_size(p) + 10,
                                .rlim_max = RLIM_INFINITY};
    assert_int_equal(getrlimit(RLIMIT_FSIZE, &old), 0);
    small.rlim_max = old.rlim_max;
    signal(SIGXFSZ, SIG_IGN);
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &small), 0);
    assert_false(decide_rm(l, set, a, ans, &rv));
    assert_int_equal(rv, BOX_EIO);
    assert_int_equal(pdp_answer_reason(ans), PDP_REASON_INTERNAL_FAULT);
    assert_int_equal(pdp_answer_error_count(ans), 1);
    assert_non_null(strstr(pdp_answer_error_message(ans, 0),
                           "the policy history could not be stored: cannot "
                           "write the history"));
    assert_false(decide_rm(l, set, a, ans, &rv)); // still refusing
    assert_int_equal(setrlimit(RLIMIT_FSIZE, &old), 0);
    // Room again: decisions go on, and the file reads back whole.
    assert_true(decide_rm(l, set, a, ans, &rv));
    assert_int_equal(rv, BOX_OK);
    pdp_live_free(l);
    pdp_hstore_rules rules;
    pdp_hist *h = reopen(p, &warn, &rules);
    assert_null(warn);
    assert_int_equal(pdp_hist_len(h), 2);
    pdp_hstore_rules_free(&rules);
    pdp_hist_free(h);
    pdp_answer_free(ans);
    pdp_policy_free(set);
    box_free(p);
}

/* Every allocation of a decision over a store failing in turn
 * (box_alloc_fail_after), the first decision and one after another: each
 * failure is a deny, never a crash or a permit; the decisions after it
 * are kept, and a restart replays exactly what memory held, with no torn
 * tail (an event stored but not kept is taken back from the file); ASan
 * checks that nothing leaks. */
static void
test_first_decision_alloc_walk(void **state)
{
    box_arena *a = *state;
    // Hundreds of decisions, each waiting for its fdatasync: on a tmpfs
    // when there is one (the walk is about allocation, not the disk).
    char shm[] = "/dev/shm/pdp-walk-XXXXXX";
    bool on_shm = mkdtemp(shm) != NULL;
    char *p = on_shm ? box_asprintf("%s/h8", shm) : path_of("h8");
    pdp_policy_set *set = pdp_test_load(cap_policy);
    pdp_answer *ans = pdp_answer_new();
    pdp_test_clock fc = {.now = 1};
    // Built before any failure is armed: only the decision may fail.
    pdp_request rq = {
        .rq_principal = tv(a, "A::User::\"u\""),
        .rq_action = tv(a, "A::Action::\"rm\""),
        .rq_resource = tv(a, "A::R::\"r\""),
        .rq_context = tv(a, "{input: {}}"),
        .rq_resource_text = "rm",
        .rq_resource_len = 2,
    };
    for (int pre = 0; pre < 2; pre++) {
        for (unsigned long n = 0;; n++) {
            char *warn = NULL, *err = NULL;
            unlink(p);
            pdp_live *l = pdp_live_new(pdp_test_clock_read, &fc);
            assert_non_null(l);
            assert_int_equal(pdp_live_open(l, p, &warn, &err), BOX_OK);
            for (int i = 0; i < pre; i++)
                assert_int_equal(pdp_live_decide(l, set, 1, &rq, 9, ans),
                                 BOX_OK);
            box_alloc_fail_after(n);
            box_err rv = pdp_live_decide(l, set, 1, &rq, 9, ans);
            unsigned long calls = box_alloc_calls();
            box_alloc_fail_off();
            if (rv != BOX_OK)
                assert_int_equal(pdp_answer_verdict(ans), PDP_DENY);
            for (int i = 0; i < 2; i++)
                assert_int_equal(pdp_live_decide(l, set, 1, &rq, 9, ans),
                                 BOX_OK);
            size_t kept = pdp_live_events(l);
            pdp_live_free(l);
            l = pdp_live_new(pdp_test_clock_read, &fc);
            assert_int_equal(pdp_live_open(l, p, &warn, &err), BOX_OK);
            if (warn != NULL)
                fail_msg("allocation %lu failing: %s", n, warn);
            assert_int_equal(pdp_live_events(l), kept);
            pdp_live_free(l);
            // The nth call fails (counted); fewer than n: none failed.
            if (n > 0 && calls < n) {
                assert_int_equal(rv, BOX_OK); // no failure: the walk is done
                break;
            }
        }
    }
    pdp_answer_free(ans);
    pdp_policy_free(set);
    unlink(p);
    if (on_shm)
        rmdir(shm);
    box_free(p);
}

static int
setup(void **state)
{
    snprintf(dir, sizeof dir, "/tmp/pdp-hstore-XXXXXX");
    if (mkdtemp(dir) == NULL)
        return -1;
    *state = box_arena_new(1u << 24);
    return *state == NULL;
}

static int
teardown(void **state)
{
    box_arena_free(*state);
    DIR *d = opendir(dir);
    struct dirent *e;
    while (d != NULL && (e = readdir(d)) != NULL) {
        char *p = path_of(e->d_name);
        if (e->d_name[0] != '.')
            unlink(p);
        box_free(p);
    }
    if (d != NULL)
        closedir(d);
    rmdir(dir);
    return 0;
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_replay),
        cmocka_unit_test(test_torn_and_corrupt_tails),
        cmocka_unit_test(test_count_survives_restart),
        cmocka_unit_test(test_changed_rule_starts_empty),
        cmocka_unit_test(test_concurrent_decisions),
        cmocka_unit_test(test_compaction),
        cmocka_unit_test(test_full_disk_denies),
        cmocka_unit_test(test_first_decision_alloc_walk),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
