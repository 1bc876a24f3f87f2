/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The durable history against the real box-pdp (issue 21, Tests): kill -9
 * during a temporal workload keeps every acknowledged event, a torn tail
 * is cut with a warning and the good events kept, and a full disk (a small
 * tmpfs) denies temporal decisions naming the storage fault while the box
 * keeps answering, and recovers once there is room.
 *
 * Every check reads one count rule: deletes of a path are denied from the
 * K-th within the hour on. When the history holds C deletes of a path
 * (C < K), probes of it are permitted until the (K - C)-th, which the rule
 * denies; so an event lost, or one counted that was never sent, moves the
 * first denial and changes a verdict. The kill -9 test gives each request
 * a path of its own (K = 2): one probe says whether that event was kept.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_proc.h"
#include "box_req.h"
#include "box_rpc.h"
#include "box_test_require.h"
#include "box_testutil.h"

#define DUR_START_MS 60000  // a service's start, as the other tests allow
#define DUR_STOP_MS 30000
#define DUR_CALL_MS 10000   // one decision's deadline
#define DUR_CHILD_MS 240000 // the namespace child's whole run
#define DUR_CHILD_FLAG "--full-disk-child"

/* ---- the box-pdp under test ---- */

/* One box-pdp and its files. The history lives in df_hist_dir: the
 * directory itself, or (full disk) a tmpfs mounted beneath it. */
typedef struct dur_fx {
    char df_dir[64];
    char df_hist_dir[96];
    char df_policy[128], df_hist[160], df_log[128], df_url[128];
    box_proc df_proc;
    bool df_up;
} dur_fx;

static void
dur_paths(dur_fx *f, const char *hist_sub)
{
    snprintf(f->df_hist_dir, sizeof f->df_hist_dir, "%s%s", f->df_dir,
             hist_sub);
    snprintf(f->df_policy, sizeof f->df_policy, "%s/policy.dw", f->df_dir);
    snprintf(f->df_hist, sizeof f->df_hist, "%s/dogwood.history",
             f->df_hist_dir);
    snprintf(f->df_log, sizeof f->df_log, "%s/decisions.jsonl", f->df_dir);
    snprintf(f->df_url, sizeof f->df_url, "ipc://%s/pdp.sock", f->df_dir);
}

static int
dur_setup(void **state)
{
    dur_fx *f = box_calloc(1, sizeof *f);
    assert_non_null(f);
    snprintf(f->df_dir, sizeof f->df_dir, "/tmp/box-durable-XXXXXX");
    assert_non_null(mkdtemp(f->df_dir));
    dur_paths(f, "");
    *state = f;
    return 0;
}

static int
dur_teardown(void **state)
{
    dur_fx *f = *state;
    if (f->df_up) {
        kill(f->df_proc.bp_pid, SIGKILL);
        box_proc_result r;
        box_proc_finish(&f->df_proc, DUR_STOP_MS, &r);
        box_proc_result_free(&r);
    }
    box_test_rmtree(f->df_dir);
    box_free(f);
    return 0;
}

/*
 * The policy: deletes are permitted until the K-th on the same path
 * within the hour (the request being decided counts: formerly includes
 * now); a shell:exec of rm is forbidden whatever the history, and other
 * programs are permitted (decisions that never touch the history).
 */
static void
dur_policy(const dur_fx *f, int k)
{
    char text[2048];
    snprintf(text, sizeof text,
             "permit (principal, action == Box::Action::\"shell:exec\", "
             "resource);\n"
             "@id(\"no-rm\")\n"
             "forbid (principal, action == Box::Action::\"shell:exec\", "
             "resource)\n"
             "when { context.input.program == \"rm\" };\n"
             "permit (principal, action == Box::Action::\"fs:delete\", "
             "resource);\n"
             "@id(\"cap\")\n"
             "forbid (principal, action == Box::Action::\"fs:delete\", "
             "resource)\n"
             "when temporal { exists (n: Long). ((count for (t: Timepoint). "
             "where (formerly within 1h "
             "(Box::Action::\"fs:delete\"::request{ input.path: "
             "context.input.path } && tp(t)))) == n && n >= %d) };\n",
             k);
    box_test_put(f->df_policy, text);
}

static void
dur_start(dur_fx *f)
{
    char bin[PATH_MAX];
    box_proc_bin(bin, sizeof bin, "box-pdp");
    char *argv[] = {bin,         "--listen",  f->df_url, "--policy",
                    f->df_policy, "--history", f->df_hist, "--log",
                    f->df_log,   NULL};
    assert_false(f->df_up);
    assert_true(box_proc_start(&f->df_proc, argv, NULL));
    f->df_up = true;
    // The health question comes from this process, box-pdp's parent.
    Box__HealthResponse *h = box_wait_pdp(f->df_url, DUR_START_MS);
    if (h == NULL) {
        kill(f->df_proc.bp_pid, SIGKILL);
        box_proc_result r;
        box_proc_finish(&f->df_proc, DUR_STOP_MS, &r);
        f->df_up = false;
        box_test_show_result("box-pdp did not answer within 60 s", &r);
        box_proc_result_free(&r);
        fail();
    }
    box__health_response__free_unpacked(h, NULL);
}

/* Ends box-pdp with sig (SIGTERM: a clean exit; SIGKILL: killed) and
 * returns its stderr (the caller frees it). */
static char *
dur_stop(dur_fx *f, int sig)
{
    assert_true(f->df_up);
    assert_int_equal(kill(f->df_proc.bp_pid, sig), 0);
    box_proc_result r;
    box_proc_finish(&f->df_proc, DUR_STOP_MS, &r);
    f->df_up = false;
    int want = sig == SIGTERM ? 0 : 128 + sig;
    if (r.pr_timeout || r.pr_status != want)
        box_test_show_result("box-pdp stopped unexpectedly", &r);
    assert_false(r.pr_timeout);
    assert_int_equal(r.pr_status, want);
    box_free(r.pr_out);
    return r.pr_err;
}

/* ---- decisions ---- */

/* One answer, as the wire carries it (the client library keeps neither
 * the determining ids apart nor the errors). */
typedef struct dur_answer {
    box_err da_rv; // BOX_OK: box-pdp answered
    Box__Verdict da_verdict;
    Box__ReasonClass da_reason;
    char da_rules[256];  // determining ids, comma-joined
    char da_errors[640]; // errors, "; "-joined
    char da_message[512];
} dur_answer;

static box_rpc_client *
dur_client(const dur_fx *f)
{
    box_rpc_client *c = NULL;
    assert_int_equal(box_rpc_client_open(f->df_url, DUR_CALL_MS, &c), BOX_OK);
    return c;
}

/* Appends s to the fixed buffer b, with sep before it when b is not empty
 * (cut at the buffer's end: the checks read the beginning). */
static void
dur_join(char *b, size_t n, const char *sep, const char *s)
{
    size_t len = strlen(b);
    if (len > 0 && len < n)
        len += (size_t)snprintf(b + len, n - len, "%s", sep);
    if (len < n)
        snprintf(b + len, n - len, "%s", s);
}

/* Asks box-pdp for q's decision. Not thread-safe per client: each thread
 * has its own. Returns a->da_rv. */
static box_err
dur_ask(box_rpc_client *c, Box__DecisionRequest *q, dur_answer *a)
{
    memset(a, 0, sizeof *a);
    Box__PdpRequest pr = BOX__PDP_REQUEST__INIT;
    pr.body_case = BOX__PDP_REQUEST__BODY_DECIDE;
    pr.decide = q;
    ProtobufCMessage *m = NULL;
    a->da_rv = box_rpc_call(c, &pr.base, &box__pdp_response__descriptor, &m);
    if (a->da_rv != BOX_OK)
        return a->da_rv;
    Box__PdpResponse *r = (Box__PdpResponse *)m;
    if (r->body_case != BOX__PDP_RESPONSE__BODY_DECIDE) {
        a->da_rv = BOX_EPROTO;
    } else {
        const Box__DecisionResponse *d = r->decide;
        a->da_verdict = d->verdict;
        a->da_reason = d->reason;
        for (size_t i = 0; i < d->n_determining; i++)
            dur_join(a->da_rules, sizeof a->da_rules, ",",
                     d->determining[i]->id);
        for (size_t i = 0; i < d->n_errors; i++)
            dur_join(a->da_errors, sizeof a->da_errors, "; ", d->errors[i]);
        snprintf(a->da_message, sizeof a->da_message, "%s",
                 d->message ? d->message : "");
    }
    box__pdp_response__free_unpacked(r, NULL);
    return a->da_rv;
}

static box_err
dur_delete(box_rpc_client *c, const char *path, dur_answer *a)
{
    box_req q;
    box_req_fs(&q, "fs:delete", "Box::FsDeleteOperation", "remove_file", path);
    return dur_ask(c, &q.r_req, a);
}

static box_err
dur_exec(box_rpc_client *c, const char *program, dur_answer *a)
{
    box_req q;
    box_req_exec(&q, program, program, 0, "/");
    return dur_ask(c, &q.r_req, a);
}

static void
dur_show(const char *what, const dur_answer *a)
{
    print_message("%s: rv %s verdict %d reason %d rules [%s] errors [%s] "
                  "message [%s]\n",
                  what, box_strerror(a->da_rv), (int)a->da_verdict,
                  (int)a->da_reason, a->da_rules, a->da_errors,
                  a->da_message);
}

static bool
dur_is(const dur_answer *a, Box__Verdict v, Box__ReasonClass why,
       const char *rules)
{
    return a->da_rv == BOX_OK && a->da_verdict == v && a->da_reason == why &&
           strcmp(a->da_rules, rules) == 0;
}

/* A delete the rule lets through (the default permit, policy_2). */
static void
dur_expect_permit(const dur_answer *a, const char *what)
{
    if (!dur_is(a, BOX__VERDICT__VERDICT_PERMIT,
                BOX__REASON_CLASS__REASON_PERMITTED, "policy_2"))
        dur_show(what, a);
    assert_true(dur_is(a, BOX__VERDICT__VERDICT_PERMIT,
                       BOX__REASON_CLASS__REASON_PERMITTED, "policy_2"));
}

/*
 * The count of deletes on path, measured against the rule's bound k
 * (which the count must be below): probes are permitted until the one
 * that makes the count k. Leaves the count at k.
 */
static int
dur_count_with(box_rpc_client *c, const char *path, int k)
{
    int found = -1;
    for (int d = 1; d <= k && found < 0; d++) {
        dur_answer a;
        assert_int_equal(dur_delete(c, path, &a), BOX_OK);
        if (a.da_verdict == BOX__VERDICT__VERDICT_PERMIT) {
            dur_expect_permit(&a, "probe");
            continue;
        }
        if (!dur_is(&a, BOX__VERDICT__VERDICT_DENY,
                    BOX__REASON_CLASS__REASON_FORBIDDEN, "cap"))
            dur_show("probe", &a);
        assert_true(dur_is(&a, BOX__VERDICT__VERDICT_DENY,
                           BOX__REASON_CLASS__REASON_FORBIDDEN, "cap"));
        found = k - d;
    }
    assert_true(found >= 0);
    return found;
}

static int
dur_count(const dur_fx *f, const char *path, int k)
{
    box_rpc_client *c = dur_client(f);
    int n = dur_count_with(c, path, k);
    box_rpc_client_close(c);
    return n;
}

/* ---- (a) kill -9 during a temporal workload ---- */

#define KILL_ROUNDS 3
#define KILL_CLIENTS 4
#define KILL_PER_CLIENT 12
// Each request is on a path of its own, counted 0 (lost), 1 (kept) or 2
// (kept twice): below the bound, so probes tell the three apart.
#define KILL_BOUND 3

/* One round's workload: every client sends deletes one at a time until it
 * has sent its share, is told to stop, or gets no answer. */
typedef struct dur_load {
    const dur_fx *dl_fx;
    int dl_round;
    atomic_int dl_acked; // answers received, all clients
    atomic_int dl_done;  // clients finished
    atomic_bool dl_stop;
} dur_load;

/* One client: its requests 0 .. cl_acked - 1 were answered; request
 * cl_acked was in flight when box-pdp died if cl_sent is one more. */
typedef struct dur_client_load {
    dur_load *cl_load;
    int cl_id;
    int cl_sent;
    int cl_acked;
    int cl_other; // answers that were not the plain permit
} dur_client_load;

static void
dur_load_path(char *b, size_t n, int round, int client, int i)
{
    snprintf(b, n, "~/round-%d/client-%d/%d", round, client, i);
}

static void *
dur_load_client(void *arg)
{
    dur_client_load *cl = arg;
    dur_load *l = cl->cl_load;
    box_rpc_client *c = NULL;
    if (box_rpc_client_open(l->dl_fx->df_url, DUR_CALL_MS, &c) == BOX_OK) {
        while (cl->cl_sent < KILL_PER_CLIENT && !atomic_load(&l->dl_stop)) {
            char path[64];
            dur_answer a;
            dur_load_path(path, sizeof path, l->dl_round, cl->cl_id,
                          cl->cl_sent++);
            if (dur_delete(c, path, &a) != BOX_OK)
                break; // box-pdp is gone: this event is unacknowledged
            cl->cl_acked++;
            atomic_fetch_add(&l->dl_acked, 1);
            if (!dur_is(&a, BOX__VERDICT__VERDICT_PERMIT,
                        BOX__REASON_CLASS__REASON_PERMITTED, "policy_2"))
                cl->cl_other++;
        }
        box_rpc_client_close(c);
    }
    atomic_fetch_add(&l->dl_done, 1);
    return NULL;
}

/* A small generator for the moment of the kill; its seed is printed. */
static uint32_t
dur_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return (uint32_t)(*s >> 11);
}

static uint64_t
dur_seed(void)
{
    const char *v = getenv("BOX_DURABLE_SEED");
    if (v != NULL && v[0] != '\0') {
        char *end;
        unsigned long long s = strtoull(v, &end, 10);
        if (*end == '\0' && s != 0)
            return s;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t s = ((uint64_t)ts.tv_sec * 1000000007u) ^
                 (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32);
    return s | 1u; // never 0: the generator would stay there
}

/*
 * After the restart, each request of cl: an acknowledged one must be in
 * the history once, the one in flight may be (once), and the next, never
 * sent, must not be. Returns how many of cl's events were kept.
 */
static int
dur_check_client(box_rpc_client *c, int round, const dur_client_load *cl)
{
    int kept = 0;
    for (int i = 0; i <= cl->cl_sent && i < KILL_PER_CLIENT; i++) {
        char path[64];
        dur_load_path(path, sizeof path, round, cl->cl_id, i);
        int n = dur_count_with(c, path, KILL_BOUND);
        if (i < cl->cl_acked && n != 1)
            fail_msg("round %d: client %d's acknowledged delete %d is "
                     "counted %d times after the kill, not once",
                     round, cl->cl_id, i, n);
        if (n > 1)
            fail_msg("round %d: client %d's delete %d is counted %d times",
                     round, cl->cl_id, i, n);
        if (i == cl->cl_sent && n != 0)
            fail_msg("round %d: client %d's delete %d was never sent, yet "
                     "counted %d",
                     round, cl->cl_id, i, n);
        kept += n;
    }
    return kept;
}

/*
 * Several clients send deletes (each on a path of its own); box-pdp is
 * killed with SIGKILL right after a random number of answers, when the
 * other clients have requests in flight, some inside a group commit.
 * Restarted on the same file, every acknowledged event is counted and
 * nothing never sent is. Three rounds on one file: later rounds replay
 * the earlier ones.
 */
static void
test_kill9_keeps_acknowledged(void **state)
{
    dur_fx *f = *state;
    uint64_t seed = dur_seed();
    print_message("kill -9 rounds: BOX_DURABLE_SEED=%llu\n",
                  (unsigned long long)seed);
    dur_policy(f, KILL_BOUND);
    dur_start(f);
    for (int round = 1; round <= KILL_ROUNDS; round++) {
        dur_load l = {.dl_fx = f, .dl_round = round};
        dur_client_load cl[KILL_CLIENTS];
        pthread_t th[KILL_CLIENTS];
        int total = KILL_CLIENTS * KILL_PER_CLIENT;
        int after = 1 + (int)(dur_rand(&seed) % (uint32_t)(total - 1));
        for (int i = 0; i < KILL_CLIENTS; i++) {
            cl[i] = (dur_client_load){.cl_load = &l, .cl_id = i};
            assert_int_equal(
                pthread_create(&th[i], NULL, dur_load_client, &cl[i]), 0);
        }
        while (atomic_load(&l.dl_acked) < after &&
               atomic_load(&l.dl_done) < KILL_CLIENTS)
            box_test_sleep_ms(1);
        // Clients stop starting requests (one started after the kill
        // would wait out its deadline); those in flight stay in flight.
        atomic_store(&l.dl_stop, true);
        box_free(dur_stop(f, SIGKILL));
        int acked = 0, sent = 0, other = 0;
        for (int i = 0; i < KILL_CLIENTS; i++) {
            assert_int_equal(pthread_join(th[i], NULL), 0);
            acked += cl[i].cl_acked;
            sent += cl[i].cl_sent;
            other += cl[i].cl_other;
        }
        assert_int_equal(other, 0);
        dur_start(f);
        box_rpc_client *c = dur_client(f);
        int kept = 0;
        for (int i = 0; i < KILL_CLIENTS; i++)
            kept += dur_check_client(c, round, &cl[i]);
        box_rpc_client_close(c);
        print_message("round %d: SIGKILL after answer %d: %d acknowledged, "
                      "%d sent, %d kept after the restart (every "
                      "acknowledged one)\n",
                      round, after, acked, sent, kept);
        assert_true(kept >= acked && kept <= sent);
    }
    box_free(dur_stop(f, SIGTERM));
}

/* ---- (b) a torn tail ---- */

#define TORN_EVENTS 6
#define TORN_BOUND (TORN_EVENTS + 2)
#define TORN_FRAME 8 // a record's length and checksum (pdp_hstore.h)
#define TORN_MAGIC 8 // "BOXHIS01"
#define TORN_RECORDS_MAX 64

/* The whole file at path, binary. */
static void
dur_slurp(const char *path, box_buf *b)
{
    box_buf_init(b, 64u << 20);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    char chunk[65536];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) > 0)
        assert_int_equal(box_buf_append(b, chunk, (size_t)n), BOX_OK);
    assert_int_equal(n, 0);
    close(fd);
}

static uint32_t
dur_be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

/* The records of a history image, by the framing of pdp_hstore.h (their
 * checksums are box-pdp's business): each one's offset, and the number
 * of events. Fails unless the framing ends exactly at the end. */
typedef struct dur_frames {
    size_t fr_off[TORN_RECORDS_MAX];
    size_t fr_n;
    size_t fr_events;
} dur_frames;

static void
dur_walk(const unsigned char *p, size_t len, dur_frames *fr)
{
    memset(fr, 0, sizeof *fr);
    assert_true(len >= TORN_MAGIC);
    assert_memory_equal(p, "BOXHIS01", TORN_MAGIC);
    size_t at = TORN_MAGIC;
    while (at < len) {
        assert_true(len - at > TORN_FRAME);
        size_t n = dur_be32(p + at);
        assert_true(n > 0 && n <= len - at - TORN_FRAME);
        assert_true(fr->fr_n < TORN_RECORDS_MAX);
        fr->fr_off[fr->fr_n++] = at;
        fr->fr_events += p[at + TORN_FRAME] == 'E';
        at += TORN_FRAME + n;
    }
    assert_int_equal(at, len);
}

/* ORDER TORN: how the tail is damaged, one row each in torn_cases. */
typedef enum torn_kind {
    TORN_IN_FRAME,   // cut inside the last record's length and checksum
    TORN_IN_PAYLOAD, // cut halfway through the last record's payload
    TORN_LAST_BYTE,  // the last record misses its last byte
    TORN_BAD_SUM,    // a whole record appended whose checksum is wrong
    TORN_ZEROS,      // zeros appended (space given, never written)
} torn_kind;

static const struct torn_case {
    torn_kind tc_kind;
    const char *tc_name;
} torn_cases[] = {
    {TORN_IN_FRAME, "cut inside the last record's frame"},
    {TORN_IN_PAYLOAD, "cut inside the last record's payload"},
    {TORN_LAST_BYTE, "the last record's last byte missing"},
    {TORN_BAD_SUM, "a record with a wrong checksum appended"},
    {TORN_ZEROS, "64 zero bytes appended"},
};

/* The damaged image of orig (whose last record starts at last) into out;
 * *good is where box-pdp must cut, *kept the events before it. */
static void
torn_damage(torn_kind k, const box_buf *orig, size_t last, size_t events,
            box_buf *out, size_t *good, size_t *kept)
{
    const unsigned char *p = (const unsigned char *)orig->b_data;
    size_t len = orig->b_len, plen = len - last - TORN_FRAME;
    size_t cut = len;
    box_buf_init(out, 64u << 20);
    *good = last;
    *kept = events - 1;
    switch (k) {
    case TORN_IN_FRAME:
        cut = last + 3;
        break;
    case TORN_IN_PAYLOAD:
        cut = last + TORN_FRAME + plen / 2;
        break;
    case TORN_LAST_BYTE:
        cut = len - 1;
        break;
    case TORN_BAD_SUM:
    case TORN_ZEROS:
        *good = len;
        *kept = events;
        break;
    }
    assert_int_equal(box_buf_append(out, p, cut), BOX_OK);
    if (k == TORN_BAD_SUM) {
        // The last record again, one payload byte changed.
        assert_int_equal(box_buf_append(out, p + last, len - last), BOX_OK);
        out->b_data[len + TORN_FRAME + 1] ^= 0x40;
    } else if (k == TORN_ZEROS) {
        static const char zeros[64];
        assert_int_equal(box_buf_append(out, zeros, sizeof zeros), BOX_OK);
    }
}

/*
 * box-pdp started on a history whose tail was torn (each row of
 * torn_cases, from the same good file): it says what it cut, in bytes
 * and events kept, keeps the good prefix byte for byte, counts exactly
 * the events before the tear, and appends after them.
 */
static void
test_torn_tail_cut_with_warning(void **state)
{
    dur_fx *f = *state;
    const char *path = "~/torn/victim";
    dur_policy(f, TORN_BOUND);
    dur_start(f);
    box_rpc_client *c = dur_client(f);
    for (int i = 0; i < TORN_EVENTS; i++) {
        dur_answer a;
        assert_int_equal(dur_delete(c, path, &a), BOX_OK);
        dur_expect_permit(&a, "delete");
    }
    box_rpc_client_close(c);
    box_free(dur_stop(f, SIGTERM));
    box_buf orig;
    dur_slurp(f->df_hist, &orig);
    dur_frames fr;
    dur_walk((const unsigned char *)orig.b_data, orig.b_len, &fr);
    assert_int_equal(fr.fr_events, TORN_EVENTS);
    size_t last = fr.fr_off[fr.fr_n - 1];
    assert_int_equal(orig.b_data[last + TORN_FRAME], 'E');

    for (size_t i = 0; i < sizeof torn_cases / sizeof torn_cases[0]; i++) {
        const struct torn_case *tc = &torn_cases[i];
        box_buf bad;
        size_t good, kept;
        torn_damage(tc->tc_kind, &orig, last, TORN_EVENTS, &bad, &good,
                    &kept);
        box_test_write(f->df_hist, bad.b_data, bad.b_len, 0600);
        dur_start(f);
        int counted = dur_count(f, path, TORN_BOUND);
        char *err = dur_stop(f, SIGTERM);
        char warn[512], replayed[256];
        snprintf(warn, sizeof warn,
                 "history %s: a torn or corrupt tail of %zu bytes after %zu "
                 "events was cut off",
                 f->df_hist, bad.b_len - good, kept);
        snprintf(replayed, sizeof replayed, "history %s: %zu events replayed",
                 f->df_hist, kept);
        print_message("torn tail, %s: %zu bytes cut, %zu events kept, %d "
                      "counted\n",
                      tc->tc_name, bad.b_len - good, kept, counted);
        if (strstr(err, warn) == NULL || strstr(err, replayed) == NULL)
            print_message("box-pdp stderr:\n%s\nwanted: %s\n", err, warn);
        assert_non_null(strstr(err, warn));
        assert_int_equal(box_test_count(err, "level=warn"), 1);
        assert_non_null(strstr(err, replayed));
        assert_int_equal(counted, (int)kept);
        // The good prefix is kept as it was, and what came after it is
        // whole records again.
        box_buf now;
        dur_slurp(f->df_hist, &now);
        assert_true(now.b_len > good);
        assert_memory_equal(now.b_data, orig.b_data, good);
        dur_frames after;
        dur_walk((const unsigned char *)now.b_data, now.b_len, &after);
        assert_int_equal(after.fr_events, (size_t)TORN_BOUND);
        box_buf_reset(&now);
        box_buf_reset(&bad);
        box_free(err);
    }
    box_buf_reset(&orig);
}

/* ---- (c) a full disk ---- */

#define FULL_BEFORE 2  // deletes before the disk fills
#define FULL_FAULTS 3  // storage-fault denials asked for in a row
#define FULL_RECORD_MIN 256 // an event record is longer (about 420 bytes)

/* How many deletes may still fit once the disk is full: as many records
 * as the history's last page holds. */
static int
full_slack_max(void)
{
    long page = sysconf(_SC_PAGESIZE);
    return (int)((page > 0 ? page : 4096) / FULL_RECORD_MIN);
}

static const char full_fault[] = "the policy history could not be stored";
static const char full_enospc[] = "No space left on device";

/* Fills the file system at dir with a filler file until it is full. */
static void
full_fill(const char *filler)
{
    int fd = open(filler, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    static const char block[16384];
    size_t sizes[] = {sizeof block, 512, 1};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        ssize_t w;
        while ((w = write(fd, block, sizes[i])) > 0)
            ;
        assert_int_equal(w, -1);
        assert_int_equal(errno, ENOSPC);
    }
    assert_int_equal(close(fd), 0);
}

/* A temporal decision refused because its event could not be stored:
 * a deny, reason InternalFault, no rule, the fault named in the errors. */
static void
full_expect_fault(const dur_answer *a)
{
    bool ok = a->da_rv == BOX_OK &&
              a->da_verdict == BOX__VERDICT__VERDICT_DENY &&
              a->da_reason == BOX__REASON_CLASS__REASON_INTERNAL_FAULT &&
              strstr(a->da_errors, full_fault) != NULL &&
              strstr(a->da_errors, full_enospc) != NULL;
    if (!ok)
        dur_show("delete on a full disk", a);
    assert_true(ok);
}

/*
 * Deletes on a disk just filled: those whose record still fits in the
 * history's last page are decided as ever (permitted, or denied by the
 * cap when past_cap), then one is denied with the storage fault. Returns
 * how many fit.
 */
static int
full_until_fault(box_rpc_client *c, const char *path, bool past_cap)
{
    dur_answer a;
    for (int fit = 0; fit <= full_slack_max(); fit++) {
        assert_int_equal(dur_delete(c, path, &a), BOX_OK);
        if (a.da_reason == BOX__REASON_CLASS__REASON_INTERNAL_FAULT) {
            full_expect_fault(&a);
            print_message("full disk: message [%s] errors [%s]\n",
                          a.da_message, a.da_errors);
            return fit;
        }
        if (!past_cap) {
            dur_expect_permit(&a, "delete into the last page");
            continue;
        }
        if (!dur_is(&a, BOX__VERDICT__VERDICT_DENY,
                    BOX__REASON_CLASS__REASON_FORBIDDEN, "cap"))
            dur_show("delete past the cap into the last page", &a);
        assert_true(dur_is(&a, BOX__VERDICT__VERDICT_DENY,
                           BOX__REASON_CLASS__REASON_FORBIDDEN, "cap"));
    }
    fail_msg("more than %d deletes fit on a full disk", full_slack_max());
    return -1; // not reached: cmocka's failure leaves the test
}

/* Decisions that never touch the history are decided as ever: ls is
 * permitted, rm forbidden by its rule. */
static void
full_expect_decided(box_rpc_client *c)
{
    dur_answer a;
    assert_int_equal(dur_exec(c, "ls", &a), BOX_OK);
    if (!dur_is(&a, BOX__VERDICT__VERDICT_PERMIT,
                BOX__REASON_CLASS__REASON_PERMITTED, "policy_0"))
        dur_show("ls", &a);
    assert_true(dur_is(&a, BOX__VERDICT__VERDICT_PERMIT,
                       BOX__REASON_CLASS__REASON_PERMITTED, "policy_0"));
    assert_int_equal(dur_exec(c, "rm", &a), BOX_OK);
    if (!dur_is(&a, BOX__VERDICT__VERDICT_DENY,
                BOX__REASON_CLASS__REASON_FORBIDDEN, "no-rm"))
        dur_show("rm", &a);
    assert_true(dur_is(&a, BOX__VERDICT__VERDICT_DENY,
                       BOX__REASON_CLASS__REASON_FORBIDDEN, "no-rm"));
}

/* Stops box-pdp and checks that it had replayed n events at its start
 * and cut nothing. */
static void
full_expect_replayed(dur_fx *f, int n)
{
    char *err = dur_stop(f, SIGTERM);
    char replayed[256];
    snprintf(replayed, sizeof replayed, "history %s: %d events replayed",
             f->df_hist, n);
    if (strstr(err, replayed) == NULL || strstr(err, "torn") != NULL)
        print_message("box-pdp stderr:\n%s\nwanted: %s\n", err, replayed);
    assert_non_null(strstr(err, replayed));
    assert_null(strstr(err, "torn"));
    box_free(err);
}

/*
 * Inside the namespace (the tmpfs at <dir>/hist holds the history): the
 * disk fills under a running box-pdp; deletes still fit in the history's
 * last page are permitted and counted, then every one is denied naming
 * the fault, while other decisions go on; with room again, deletes are
 * decided without a restart, and the count holds exactly the events that
 * were stored. Then box-pdp is restarted on a full disk: it starts,
 * answers, denies temporal decisions with the fault, and recovers again.
 */
static void
test_full_disk_child(void **state)
{
    dur_fx *f = *state;
    const char *path = "~/full/victim";
    char filler[192];
    snprintf(filler, sizeof filler, "%s/filler", f->df_hist_dir);
    // Above any count this test can store before it probes.
    int bound = FULL_BEFORE + full_slack_max() + 2;
    dur_policy(f, bound);
    dur_start(f);
    box_rpc_client *c = dur_client(f);
    dur_answer a;
    for (int i = 0; i < FULL_BEFORE; i++) {
        assert_int_equal(dur_delete(c, path, &a), BOX_OK);
        dur_expect_permit(&a, "delete before the disk fills");
    }
    full_expect_decided(c);

    full_fill(filler);
    int slack = full_until_fault(c, path, false);
    print_message("full disk: %d deletes still fit, then the fault\n", slack);
    for (int i = 0; i < FULL_FAULTS; i++) {
        assert_int_equal(dur_delete(c, path, &a), BOX_OK);
        full_expect_fault(&a);
        full_expect_decided(c);
    }

    // Room again: decided at once, no restart.
    assert_int_equal(unlink(filler), 0);
    assert_int_equal(dur_delete(c, path, &a), BOX_OK);
    dur_expect_permit(&a, "delete after room was made");
    box_rpc_client_close(c);
    int want = FULL_BEFORE + slack + 1;
    int counted = dur_count(f, path, bound);
    print_message("full disk: counted %d events, stored %d\n", counted, want);
    assert_int_equal(counted, want);
    full_expect_replayed(f, 0);
    // The operator's record: each fault's decision-log line names it.
    char *log = box_test_slurp_or_empty(f->df_log);
    size_t logged = box_test_count_lines(log, full_enospc);
    print_message("full disk: %zu decision-log lines name the fault\n",
                  logged);
    assert_int_equal(logged, 1 + FULL_FAULTS);
    box_free(log);

    // Started on a full disk, its decision log there too (as under box
    // run, both in <box_dir>/private): it answers, denies temporal
    // decisions once the history's last page is full, and recovers with
    // room. (The log loses the lines written while the disk is full, and
    // can be left with a torn line: not checked here.)
    snprintf(f->df_log, sizeof f->df_log, "%s/decisions.jsonl",
             f->df_hist_dir);
    full_fill(filler);
    dur_start(f);
    c = dur_client(f);
    slack = full_until_fault(c, path, true);
    print_message("full disk at the start: %d deletes still fit, then the "
                  "fault\n",
                  slack);
    full_expect_decided(c);
    assert_int_equal(unlink(filler), 0);
    assert_int_equal(dur_delete(c, path, &a), BOX_OK);
    if (!dur_is(&a, BOX__VERDICT__VERDICT_DENY,
                BOX__REASON_CLASS__REASON_FORBIDDEN, "cap"))
        dur_show("delete past the cap after room was made", &a);
    assert_true(dur_is(&a, BOX__VERDICT__VERDICT_DENY,
                       BOX__REASON_CLASS__REASON_FORBIDDEN, "cap"));
    box_rpc_client_close(c);
    full_expect_replayed(f, bound);
    // What went in while the disk was full is whole records: a restart
    // replays all of it, with no tail to cut.
    dur_start(f);
    full_expect_replayed(f, bound + slack + 1);
}

/* The namespace child after its exec: the test above, in its own group.
 * Its exit status is the parent's verdict. */
static int
full_child_main(const char *dir)
{
    dur_fx *f = box_calloc(1, sizeof *f);
    if (f == NULL || strlen(dir) >= sizeof f->df_dir)
        return 1;
    snprintf(f->df_dir, sizeof f->df_dir, "%s", dir);
    dur_paths(f, "/hist");
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_prestate(test_full_disk_child, f),
    };
    int failed = cmocka_run_group_tests_name("full disk, in a user and "
                                             "mount namespace",
                                             tests, NULL, NULL);
    if (f->df_up) {
        kill(f->df_proc.bp_pid, SIGKILL);
        box_proc_result r;
        box_proc_finish(&f->df_proc, DUR_STOP_MS, &r);
        box_proc_result_free(&r);
    }
    box_free(f);
    return failed == 0 ? 0 : 1;
}

/* ORDER NS_STEP: what the child does before its exec, one name each. */
typedef enum ns_step {
    NS_UNSHARE,
    NS_SETGROUPS,
    NS_UID_MAP,
    NS_GID_MAP,
    NS_MOUNT,
    NS_EXEC,
} ns_step;

static const char *const ns_step_name[] = {
    [NS_UNSHARE] = "unshare(CLONE_NEWUSER|CLONE_NEWNS)",
    [NS_SETGROUPS] = "writing /proc/self/setgroups",
    [NS_UID_MAP] = "writing /proc/self/uid_map",
    [NS_GID_MAP] = "writing /proc/self/gid_map",
    [NS_MOUNT] = "mounting a tmpfs",
    [NS_EXEC] = "executing the test again",
};

/* What the child sends back when a step fails (nothing when all went
 * well: the pipe closes at the exec). */
typedef struct ns_fail {
    int nf_step;
    int nf_errno;
} ns_fail;

/* Everything the child needs, made before the fork: after it only
 * system calls (the parent has threads). */
typedef struct ns_plan {
    char np_uid_map[32], np_gid_map[32];
    char np_mnt[128];
    char np_self[PATH_MAX];
    char *np_argv[4];
    int np_report; // write end of the pipe
} ns_plan;

static bool
ns_write(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = (ssize_t)strlen(text);
    bool ok = write(fd, text, (size_t)n) == n;
    return close(fd) == 0 && ok;
}

static void __attribute__((noreturn))
ns_child(const ns_plan *p)
{
    ns_step step = NS_UNSHARE;
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
        goto fail;
    step = NS_SETGROUPS;
    if (!ns_write("/proc/self/setgroups", "deny"))
        goto fail;
    step = NS_UID_MAP;
    if (!ns_write("/proc/self/uid_map", p->np_uid_map))
        goto fail;
    step = NS_GID_MAP;
    if (!ns_write("/proc/self/gid_map", p->np_gid_map))
        goto fail;
    step = NS_MOUNT;
    if (mount("box-durable", p->np_mnt, "tmpfs", MS_NOSUID | MS_NODEV,
              "size=256k,mode=0700") != 0)
        goto fail;
    step = NS_EXEC;
    execv(p->np_self, p->np_argv);
fail:;
    ns_fail nf = {.nf_step = (int)step, .nf_errno = errno};
    ssize_t w = write(p->np_report, &nf, sizeof nf);
    (void)w;
    _exit(1);
}

/*
 * The full disk: a child in its own user and mount namespace mounts a
 * 256 KiB tmpfs over the history's directory and runs the test again
 * (an exec, so that it starts box-pdp as its parent and talks to it with
 * fresh threads); its exit status says whether test_full_disk_child
 * passed. No user namespaces: the test fails (CI) or skips, naming it.
 */
static void
test_full_disk_denies_and_recovers(void **state)
{
    dur_fx *f = *state;
    ns_plan p = {0};
    snprintf(p.np_uid_map, sizeof p.np_uid_map, "0 %u 1\n",
             (unsigned)getuid());
    snprintf(p.np_gid_map, sizeof p.np_gid_map, "0 %u 1\n",
             (unsigned)getgid());
    snprintf(p.np_mnt, sizeof p.np_mnt, "%s/hist", f->df_dir);
    assert_int_equal(mkdir(p.np_mnt, 0700), 0);
    ssize_t n = readlink("/proc/self/exe", p.np_self, sizeof p.np_self - 1);
    assert_true(n > 0);
    p.np_self[n] = '\0';
    p.np_argv[0] = p.np_self;
    p.np_argv[1] = DUR_CHILD_FLAG;
    p.np_argv[2] = f->df_dir;
    int pfd[2];
    assert_int_equal(pipe2(pfd, O_CLOEXEC), 0);
    p.np_report = pfd[1];
    fflush(NULL);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0)
        ns_child(&p);
    close(pfd[1]);
    ns_fail nf;
    ssize_t got;
    while ((got = read(pfd[0], &nf, sizeof nf)) < 0 && errno == EINTR)
        ;
    close(pfd[0]);
    int st = 0;
    if (got == (ssize_t)sizeof nf) {
        assert_int_equal(waitpid(pid, &st, 0), pid);
        const char *step = nf.nf_step >= 0 && nf.nf_step <= NS_EXEC
                               ? ns_step_name[nf.nf_step]
                               : "?";
        if (nf.nf_step == NS_EXEC)
            fail_msg("the namespace child could not run %s: %s", p.np_self,
                     strerror(nf.nf_errno));
        box_test_missing("user and mount namespaces with a tmpfs mount "
                         "(%s: %s)",
                         step, strerror(nf.nf_errno));
    }
    long long deadline = box_test_now_ms() + DUR_CHILD_MS;
    pid_t w;
    while ((w = waitpid(pid, &st, WNOHANG)) == 0 &&
           box_test_now_ms() < deadline)
        box_test_sleep_ms(20);
    if (w == 0) {
        kill(pid, SIGKILL);
        assert_int_equal(waitpid(pid, &st, 0), pid);
        fail_msg("the namespace child ran past %d s", DUR_CHILD_MS / 1000);
    }
    assert_int_equal(w, pid);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        fail_msg("the full-disk test inside the namespace failed (status "
                 "0x%x; its output is above)",
                 (unsigned)st);
}

int
main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], DUR_CHILD_FLAG) == 0)
        return full_child_main(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_kill9_keeps_acknowledged,
                                        dur_setup, dur_teardown),
        cmocka_unit_test_setup_teardown(test_torn_tail_cut_with_warning,
                                        dur_setup, dur_teardown),
        cmocka_unit_test_setup_teardown(test_full_disk_denies_and_recovers,
                                        dur_setup, dur_teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
