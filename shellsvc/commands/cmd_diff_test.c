/* SPDX-License-Identifier: Apache-2.0 */
/* Table tests of diff and cmp for what the differential cannot show:
 * policy denials and faults on each read, and the size limits. */
#include "cmd_test_table.h"

// Table rows leave trailing fields out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define F_AB "printf 'a\\nb\\n' > f; printf 'a\\nc\\n' > g; "
#define NORMAL_FG "2c2\n< b\n---\n> c\n"

static const tcase cases[] = {
    // ---- diff: the plain run, as a base line ----
    {F_AB "diff f g; echo $?", NORMAL_FG "1\n", "", 0},
    {F_AB "diff f f; echo $?", "0\n", "", 0},
    // a denied operand: GNU's unreadable-file status 2, the denial said
    {F_AB "diff f secret; echo $?", "2\n", DENIED_FS("diff", "/home/lash/secret"),
     0, "/home/lash/secret"},
    {F_AB "diff secret f; echo $?", "2\n", DENIED_FS("diff", "/home/lash/secret"),
     0, "/home/lash/secret"},
    // -N never reads a hidden file as an empty one
    {F_AB "diff -N f secret; echo $?", "2\n",
     DENIED_FS("diff", "/home/lash/secret"), 0, "/home/lash/secret"},
    {F_AB "diff -q f secret; echo $?", "2\n",
     DENIED_FS("diff", "/home/lash/secret"), 0, "/home/lash/secret"},
    // no decision: the call ends with 125
    {F_AB "diff f bad; echo after", "", FAULT, 125, NULL, "/home/lash/bad"},
    {F_AB "diff bad f; echo after", "", FAULT, 125, NULL, "/home/lash/bad"},
    // ---- diff: limits ----
    // more lines than one file may hold: a clear error, status 2
    {F_AB "yes '' | head -n 4194305 | diff - f; echo $?", "2\n",
     "strands-shell: diff: -: too many lines to compare (limit 4194304)\n", 0},
    // more bytes than one file may hold (64 MiB)
    {F_AB "yes 0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde"
          " | head -c 67108865 | diff f -; echo $?",
     "2\n", "strands-shell: diff: -: input too large to hold (limit 64 MiB)\n",
     0},
    // the writer gone: diff ends quietly
    {F_AB "diff f g >&-; echo $?", "2\n",
     "strands-shell: diff: write error: Bad file descriptor\n", 0},
    // ---- cmp ----
    {F_AB "cmp f g; echo $?", "f g differ: byte 3, line 2\n1\n", "", 0},
    {F_AB "cmp f secret; echo $?", "2\n", DENIED_FS("cmp", "/home/lash/secret"),
     0, "/home/lash/secret"},
    {F_AB "cmp secret f; echo $?", "2\n", DENIED_FS("cmp", "/home/lash/secret"),
     0, "/home/lash/secret"},
    {F_AB "cmp -s f secret; echo $?", "2\n",
     DENIED_FS("cmp", "/home/lash/secret"), 0, "/home/lash/secret"},
    {F_AB "cmp f bad; echo after", "", FAULT, 125, NULL, "/home/lash/bad"},
    // cmp streams: inputs past diff's hold limit compare fine
    {"yes abcdefgh | head -c 70000000 > /dev/null; yes abcdefgh | head -c "
     "9000000 > f; yes abcdefgh | head -c 9000000 | cmp f -; echo $?",
     "0\n", "", 0},
};

/* Rows where only reads of deny_fs are refused (writes pass), so the
 * script can make the tree that diff is then denied. */
static const tcase read_denials[] = {
    // a walk goes on past a denied entry: the others still compared
    {"mkdir A B; printf 'x\\n' > A/k; printf 'y\\n' > B/k; printf 's\\n' > "
     "A/secret; printf 't\\n' > B/secret; diff -r A B; echo $?",
     "diff -r A/k B/k\n1c1\n< x\n---\n> y\n2\n",
     DENIED_FS("diff", "/home/lash/A/secret"), 0, "/home/lash/A/secret"},
    // a denied directory listing
    {"mkdir A secret; printf 'x\\n' > A/k; diff A secret; echo $?", "2\n",
     DENIED_FS("diff", "/home/lash/secret"), 0, "/home/lash/secret"},
    {"mkdir A B; printf 'x\\n' > A/k; printf 'x\\n' > B/k; diff -rN A B; "
     "echo $?", "0\n", "", 0},
    {"mkdir A B; printf 'x\\n' > A/k; diff -rN A B; echo $?", "2\n",
     DENIED_FS("diff", "/home/lash/A/k"), 0, "/home/lash/A/k"},
};

/* th_decide with deny_fs applied to fs:read requests only. */
static box_verdict
decide_reads(void *arg, const Box__DecisionRequest *rq, char **msg,
             box_ticket *ticket)
{
    th *t = arg;
    const char *deny = t->th_deny_fs;
    if (strncmp(rq->action, "fs:read", 7) != 0)
        t->th_deny_fs = NULL;
    box_verdict v = th_decide(t, rq, msg, ticket);
    t->th_deny_fs = deny;
    return v;
}

static void
test_cases(void **state)
{
    (void)state;
    tcase_run_all(cases, NELEM(cases));
}

static void
test_read_denials(void **state)
{
    (void)state;
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(read_denials); i++) {
        const tcase *c = &read_denials[i];
        th t = {.th_deny_fs = c->deny_fs, .th_fault_fs = c->fault_fs};
        int st = th_run_with(&t, c->script, c->timeout_ms, decide_reads, &t);
        bool ok = tcase_check(i, c->script, st, &t, c->status, c->out,
                              c->err);
        th_reset(&t);
        bad += !ok;
    }
    assert_int_equal(bad, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_read_denials),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
