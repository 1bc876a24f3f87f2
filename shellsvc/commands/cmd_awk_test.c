/* SPDX-License-Identifier: Apache-2.0 */
/* awk under policy: what the differential cannot show (a denied input
 * file, getline file, print > file and -f program; commands that system(),
 * `cmd | getline` and `print | cmd` run refused by admission; faults; the
 * call's deadline ending a program that runs forever; the caps). */
#include "cmd_test_table.h"

// Table rows leave trailing fields out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define H "/home/lash/"
#define SECRET H "secret"
#define DENIED(p)                                                              \
    "strands-shell: awk: policy denied this operation on '" p                  \
    "' [default-deny]: No permit policy matched this request.\n"
#define DENIED_EXEC(p)                                                         \
    "strands-shell: effect denied: policy denied this operation on '" p        \
    "' [default-deny]: No permit policy matched this request.\n"
#define F_AB "printf 'a\\nb\\n' > f; "

typedef struct acase {
    const char *script;
    const char *out, *err;
    int status;
    const char *deny;    // programs refused (shell:exec)
    const char *deny_fs; // paths refused (fs:*)
    const char *fault_fs;
    unsigned timeout_ms;
} acase;

static const acase cases[] = {
    // ---- files ----
    // a denied operand: what came before is printed, then gawk's fatal
    // (status 2, END does not run)
    {F_AB "awk '{print} END{print \"end\"}' f secret f; echo $?", "a\nb\n2\n",
     DENIED(SECRET), 0, NULL, SECRET},
    // getline from a denied file: -1 after the denial's message
    {"awk 'BEGIN{r = (getline x < \"secret\"); print r, \"[\" x \"]\"}'",
     "-1 []\n", DENIED(SECRET), 0, NULL, SECRET},
    // ... and from a missing one: -1 and nothing said, as gawk
    {"awk 'BEGIN{print (getline x < \"nope\")}'", "-1\n", "", 0},
    // print > a denied file: refused before anything is written; the run
    // stops with status 2
    {"awk 'BEGIN{print \"x\" > \"secret\"; print \"after\"}'; echo $?", "2\n",
     DENIED(SECRET), 0, NULL, SECRET},
    {"awk 'BEGIN{print \"x\" >> \"secret\"}'; echo $?", "2\n", DENIED(SECRET), 0,
     NULL, SECRET},
    // a denied -f program: nothing runs (the message is the shell's own
    // for a script file it may not read)
    {"awk -f secret '{print}'; echo $?", "2\n",
     "strands-shell: secret: policy denied this operation on '" SECRET
     "' [default-deny]: No permit policy matched this request.\n",
     0, NULL, SECRET},
    // a fault ends the call
    {F_AB "awk '{print}' f bad; echo after", "a\nb\n", FAULT, 125, NULL, NULL,
     H "bad"},
    {"awk 'BEGIN{getline x < \"bad\"; print \"no\"}'; echo after", "", FAULT,
     125, NULL, NULL, H "bad"},
    // ---- commands: each admitted as a command of this shell ----
    // system() of a refused command: 126, the file stays
    {F_AB "awk 'BEGIN{r = system(\"rm f\"); print r}'; cat f",
     "126\na\nb\n", DENIED_EXEC("rm"), 0, "rm"},
    // cmd | getline of a refused command: no record
    {F_AB "awk 'BEGIN{r = (\"cat f\" | getline x); print r, \"[\" x \"]\"}'",
     "0 []\n", DENIED_EXEC("cat"), 0, "cat"},
    // print | cmd of a refused command: the output goes nowhere
    {"awk 'BEGIN{print \"x\" | \"cat\"; print \"after\"}'", "after\n",
     DENIED_EXEC("cat"), 0, "cat"},
    // permitted: they run, in order with awk's own output
    {F_AB "awk 'BEGIN{printf \"1 \"; system(\"echo 2\"); print 3}'",
     "1 2\n3\n", "", 0},
    // ---- runaway programs end with the call ----
    {"awk 'BEGIN{while (1);}'", "", TIMEOUT, 1, NULL, NULL, NULL, 300},
    {"awk 'BEGIN{for (;;) x++}'", "", TIMEOUT, 1, NULL, NULL, NULL, 300},
    {F_AB "awk '{while (1) n++}' f", "", TIMEOUT, 1, NULL, NULL, NULL, 300},
    {"awk 'BEGIN{do x = x; while (1)}'; echo after", "", TIMEOUT, 1, NULL,
     NULL, NULL, 300},
    {"awk 'function f(n){return n + 1} BEGIN{while (1) x = f(x)}'",
     "", TIMEOUT, 1, NULL, NULL, NULL, 300},
    // ---- caps ----
    {"awk 'function f(n){return f(n+1)} BEGIN{f(1)}'; echo $?", "2\n",
     "strands-shell: awk: cmd. line:1: fatal: function call nesting too "
     "deep (limit 1000)\n",
     0},
    {"awk 'BEGIN{s = \"x\"; while (1) s = s s}'; echo $?", "2\n",
     "strands-shell: awk: cmd. line:1: fatal: string too long (limit 64 "
     "MiB)\n",
     0},
};

static void
test_cases(void **state)
{
    (void)state;
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(cases); i++) {
        const acase *c = &cases[i];
        th t = {.th_deny = c->deny,
                .th_deny_fs = c->deny_fs,
                .th_fault_fs = c->fault_fs};
        int st = th_run(&t, c->script, c->timeout_ms);
        bool ok = tcase_check(i, c->script, st, &t, c->status, c->out,
                              c->err);
        th_reset(&t);
        bad += !ok;
    }
    assert_int_equal(bad, 0);
}

/* print > file writes through the kernel: one fs:write decision for the
 * file, however many lines go to it. */
static void
test_print_file_decided_once(void **state)
{
    (void)state;
    static const tcase rows[] = {
        {F_AB "awk '{print > \"out\"; print $0 $0 > \"out\"}' f; cat out",
         "a\naa\nb\nbb\n", "", 0, NULL, NULL,
         "fs:write " H "f\nfs:read " H "f\nfs:write " H "out\nfs:read " H
         "out\n"},
    };
    tcase_run_all(rows, NELEM(rows));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_print_file_decided_once),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
