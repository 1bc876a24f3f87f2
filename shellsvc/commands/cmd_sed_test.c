/* SPDX-License-Identifier: Apache-2.0 */
/* sed under policy: what the differential cannot show (denials, faults,
 * -i changing nothing when its write is refused, the refused commands). */
#include "cmd_test_table.h"

// Table rows leave trailing fields out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define F_AB "printf 'a\\nb\\n' > f; "
#define SECRET "/home/lash/secret"
#define DENIED(p)                                                              \
    "strands-shell: sed: policy denied this operation on '" p                  \
    "' [default-deny]: No permit policy matched this request.\n"

static const tcase cases[] = {
    // reading a denied file: the others still go through, status 2
    {F_AB "sed p f secret f; echo $?", "a\na\nb\nb\na\na\nb\nb\n2\n",
     DENIED(SECRET), 0, SECRET},
    {F_AB "sed -n '$p' f secret; echo $?", "b\n2\n", DENIED(SECRET), 0, SECRET},
    {F_AB "sed -s -n 1p secret f; echo $?", "a\n2\n", DENIED(SECRET), 0,
     SECRET},
    // -i on a denied file: nothing read, nothing written, the next file
    // edited
    {F_AB "sed -i s/a/x/ secret f; echo $?; cat f", "2\nx\nb\n", DENIED(SECRET),
     0, SECRET},
    // w to a denied file: refused before any input is read (GNU opens
    // every w file first), status 4
    {F_AB "sed 'w secret' f; echo $?", "4\n", DENIED(SECRET), 0, SECRET},
    {F_AB "sed 's/a/b/w secret' f; echo $?", "4\n", DENIED(SECRET), 0, SECRET},
    // -i with a backup whose write is denied: the file is left as it was
    {F_AB "sed -i.bak s/a/x/ f; echo $?; cat f", "4\na\nb\n",
     DENIED("/home/lash/f.bak"), 0, "/home/lash/f.bak"},
    // a script file that is denied
    {F_AB "sed -f secret f; echo $?", "4\n", DENIED(SECRET), 0, SECRET},
    // r of a denied file is skipped silently, as GNU skips a missing one
    {F_AB "sed '1r secret' f", "a\nb\n", "", 0, SECRET},
    {F_AB "sed '1R secret' f", "a\nb\n", "", 0, SECRET},
    // a fault stops the call: nothing more runs
    {F_AB "sed p f bad; echo after", "a\na\nb\nb\n", FAULT, 125, NULL,
     "/home/lash/bad"},
    {F_AB "sed -i p bad; echo after", "", FAULT, 125, NULL, "/home/lash/bad"},
    // the refused commands
    {F_AB "sed 's/a/b/e' f; echo $?", "1\n",
     "strands-shell: sed: -e expression #1, char 7: the `e' flag (run a "
     "command) is not supported in this box\n",
     0},
    {F_AB "sed 'e ls' f; echo $?", "1\n",
     "strands-shell: sed: -e expression #1, char 1: the `e' command (run a "
     "command) is not supported in this box\n",
     0},
    {F_AB "sed --debug p f; echo $?", "1\n",
     "strands-shell: sed: --debug is not supported in this box\n", 0},
    // -i whose new content passes the file cap: the write fails after
    // the open, and the original bytes are put back
    {"seq 1 700000 > f; wc -c < f; sed -i 's/.*/&&&/' f; echo $?; "
     "wc -c < f; sed -n '$p' f",
     "4788895\n4\n4788895\n700000\n",
     "strands-shell: sed: couldn't write 12966685 items to f: File too "
     "large\n",
     0},
    // a loop that reads no input ends with the call's budget
    {F_AB "sed ':a;ba' f", "", TIMEOUT, 1, NULL, NULL, NULL, 300},
    {F_AB "sed -n ':a;s/^/x/;ta' f", "", TIMEOUT, 1, NULL, NULL, NULL, 300},
    // -i reads then writes through the kernel, in that order
    {F_AB "sed -i s/a/x/ f; cat f", "x\nb\n", "", 0, NULL, NULL,
     "fs:write /home/lash/f\nfs:read /home/lash/f\nfs:read /home/lash/f\n"
     "fs:write /home/lash/f\nfs:read /home/lash/f\n"},
};

static void
test_cases(void **state)
{
    (void)state;
    tcase_run_all(cases, NELEM(cases));
}

/* Rows whose paths may be read but not written: the files are made
 * first (setup, everything permitted), then the script runs in the same
 * session with writes to deny_write refused. */
typedef struct wcase {
    const char *setup, *script, *out, *err;
    int status;
    const char *deny_write;
} wcase;

#define F_WG "printf 'a\\nb\\n' > f; printf 'a\\n' > g"

static const wcase wcases[] = {
    // -i on a file whose write is denied: its content is unchanged, the
    // status 4, the denial's own text
    {F_WG, "sed -i s/a/x/ f; echo $?; cat f", "4\na\nb\n",
     DENIED("/home/lash/f"), 0, "/home/lash/f"},
    // ... and a later file is not edited (GNU stops at a file it cannot
    // write); an earlier one was
    {F_WG, "sed -i s/a/x/ f g; echo $?; cat f g", "4\na\nb\na\n",
     DENIED("/home/lash/f"), 0, "/home/lash/f"},
    {F_WG, "sed -i s/a/x/ g f; echo $?; cat f g", "4\na\nb\nx\n",
     DENIED("/home/lash/f"), 0, "/home/lash/f"},
    // the backup is written first; the file itself refused: unchanged
    {F_WG, "sed -i.orig s/a/x/ f; echo $?; cat f f.orig", "4\na\nb\na\nb\n",
     DENIED("/home/lash/f"), 0, "/home/lash/f"},
    // w FILE refused for writing only: nothing runs
    {F_WG, "sed -n 'w f' g; echo $?; cat f", "4\na\nb\n",
     DENIED("/home/lash/f"), 0, "/home/lash/f"},
    // q: the output so far would replace the file; refused, unchanged
    {F_WG, "sed -i 1q f; echo $?; cat f", "4\na\nb\n", DENIED("/home/lash/f"),
     0, "/home/lash/f"},
};

static void
test_write_denied(void **state)
{
    (void)state;
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(wcases); i++) {
        const wcase *c = &wcases[i];
        th t = {0};
        box_buf_init(&t.th_out, 1u << 22);
        box_buf_init(&t.th_err, 1u << 22);
        box_buf_init(&t.th_log, 1u << 22);
        box_buf_init(&t.th_fslog, 1u << 22);
        static const char *const env[] = {"HOME=/home/lash", NULL};
        sh_session_opts o = {
            .so_decide = th_decide,
            .so_decide_arg = &t,
            .so_out = th_out,
            .so_err = th_err,
            .so_io_arg = &t,
            .so_cwd = "/home/lash",
            .so_env = env,
        };
        sh_session *ss = sh_session_new(&o);
        assert_non_null(ss);
        assert_int_equal(sh_session_run(ss, c->setup, strlen(c->setup)), 0);
        t.th_deny_write = c->deny_write;
        int st = sh_session_run(ss, c->script, strlen(c->script));
        sh_session_free(ss);
        bool ok = tcase_check(i, c->script, st, &t, c->status, c->out,
                              c->err);
        th_reset(&t);
        bad += !ok;
    }
    assert_int_equal(bad, 0);
}

/* A big file through s///g: every line rewritten, none lost. */
static void
test_many_lines(void **state)
{
    (void)state;
    th t = {0};
    int st = th_run(&t,
                    "seq 1 200000 > big; sed 's/0/o/g' big > out; "
                    "sed -n '100000p;$p' out; sed -i 's/1/I/' big; "
                    "sed -n '$=' big; sed -n '11p' big",
                    0);
    assert_int_equal(st, 0);
    assert_string_equal(th_s(&t.th_out), "1ooooo\n2ooooo\n200000\nI1\n");
    assert_string_equal(th_s(&t.th_err), "");
    th_reset(&t);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_write_denied),
        cmocka_unit_test(test_many_lines),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
