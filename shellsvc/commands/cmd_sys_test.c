/* SPDX-License-Identifier: Apache-2.0 */
/* Table tests of env, timeout, date and the system commands for what the
 * bash differential cannot show: admission of the command env and
 * timeout run (a denied or faulting decider), the clock and host name
 * never set, kernel denials, deadlines. */
#include <time.h>

#include "sh_test_harness.h"

// Table rows leave trailing fields out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define DENIED(p)                                                              \
    "strands-shell: effect denied: policy denied this operation on '" p        \
    "' [default-deny]: No permit policy matched this request.\n"
#define DENIED_FS(cmd, p)                                                      \
    "strands-shell: " cmd ": policy denied this operation on '" p              \
    "' [default-deny]: No permit policy matched this request.\n"
#define FAULT                                                                  \
    "strands-shell: effect interception failed: the policy decision point "    \
    "did not answer\n"
#define TIMEOUT "strands-shell: execution timeout exceeded\n"
#define LQ "\xe2\x80\x98"
#define RQ "\xe2\x80\x99"
#define NOMONTY(w)                                                             \
    "strands-shell: " w ": the box's Python (Monty) is not available in "      \
    "this shell yet; nothing was run\n"

typedef struct scase {
    const char *script;
    const char *out, *err;
    int status;
    const char *admitted; // the decision log (program|command|…); NULL: any
    const char *deny, *fault, *deny_fs;
    unsigned timeout_ms;
    unsigned max_ms; // the run must end sooner (0: not checked)
} scase;

static const scase cases[] = {
    // env and timeout run their command through admission: a program
    // policy forbids is refused there as anywhere (§3.5), status 126.
    {"env rm x; echo $?", "126\n", DENIED("rm"), 0,
     "env|env rm x|rm|x|2\nrm|rm x|x|^|1\necho|echo 126|126|^|1\n", "rm"},
    {"env -u B A=1 rm -f x", "", DENIED("rm"), 126, NULL, "rm"},
    {"env -i rm x", "", DENIED("rm"), 126, NULL, "rm"},
    {"env env rm x", "", DENIED("rm"), 126, NULL, "rm"},
    {"env -S 'rm x'", "", DENIED("rm"), 126, NULL, "rm"},
    {"timeout 5 rm x; echo $?", "126\n", DENIED("rm"), 0,
     "timeout|timeout 5 rm x|5|rm|3\nrm|rm x|x|^|1\necho|echo 126|126|^|1\n",
     "rm"},
    {"timeout -s KILL 5 rm x", "", DENIED("rm"), 126, NULL, "rm"},
    {"timeout 5 env rm x", "", DENIED("rm"), 126, NULL, "rm"},
    {"env timeout 5 rm x", "", DENIED("rm"), 126, NULL, "rm"},
    // env itself refused: nothing it names is asked
    {"env rm x", "", DENIED("env"), 126, "env|env rm x|rm|x|2\n", "env"},
    // a fault ends the call (125), as for any command
    {"env rm x; echo after", "", FAULT, 125, NULL, NULL, "rm"},
    {"timeout 5 rm x; echo after", "", FAULT, 125, NULL, NULL, "rm"},
    // a word nothing could run is GNU's message, with no decision for it
    {"env nosuch; echo $?", "127\n",
     "strands-shell: env: " LQ "nosuch" RQ ": No such file or directory\n", 0,
     "env|env nosuch|nosuch|^|1\necho|echo 127|127|^|1\n"},
    {"timeout 1 cd /; echo $?", "127\n",
     "strands-shell: timeout: failed to run command " LQ "cd" RQ
     ": No such file or directory\n",
     0},
    // the command sees the environment env made, and only that
    {"env -i A=1 printenv", "A=1\n", "", 0},
    {"X=1; env printenv X; echo $?", "1\n", "", 0},
    {"env HOME=/x sh -c 'echo $HOME'; echo $HOME", "/x\n/home/lash\n", "", 0},
    {"f() { echo f; }; env f; echo $?", "127\n",
     "strands-shell: env: " LQ "f" RQ ": No such file or directory\n", 0},
    // -C through the kernel: a denied directory is policy's message
    {"mkdir s; env -C s pwd", "/home/lash/s\n", "", 0},
    {"env -C secret true; echo $?", "125\n",
     DENIED_FS("env", "/home/lash/secret"), 0, NULL, NULL, NULL,
     "/home/lash/secret"},
    // timeout: cooperative, within the call's own budget
    {"timeout 0.2 sleep 5; echo $?", "124\n", "", 0, NULL, NULL, NULL, NULL, 0,
     3000},
    {"timeout 0.2 sh -c 'sleep 5; echo no'; echo $?", "124\n", "", 0, NULL,
     NULL, NULL, NULL, 0, 3000},
    {"timeout 0.2 sh -c 'while :; do sleep 0.05; done'; echo $?", "124\n", "",
     0, NULL, NULL, NULL, NULL, 0, 3000},
    {"timeout --preserve-status -s INT 0.2 sleep 5; echo $?", "130\n", "", 0,
     NULL, NULL, NULL, NULL, 0, 3000},
    {"timeout 5 sleep 5 & kill $!; wait $!; echo $?", "143\n", "", 0, NULL,
     NULL, NULL, NULL, 0, 3000},
    {"printf 'a\\n' | timeout 0.2 sh -c 'cat; sleep 5'; echo $?", "a\n124\n",
     "", 0, NULL, NULL, NULL, NULL, 0, 3000},
    // the call's wall clock wins over a longer timeout
    {"timeout 10 sleep 5; echo after", "", TIMEOUT, 1, NULL, NULL, NULL, NULL,
     300, 3000},
    // the clock and the host name are never set
    {"date -s @0; echo $?", "Thu Jan  1 00:00:00 UTC 1970\n1\n",
     "strands-shell: date: cannot set date: Operation not permitted\n", 0},
    {"date -u 010100002000; echo $?", "Sat Jan  1 00:00:00 UTC 2000\n1\n",
     "strands-shell: date: cannot set date: Operation not permitted\n", 0},
    {"date 13999999; echo $?", "1\n",
     "strands-shell: date: invalid date " LQ "13999999" RQ "\n", 0},
    {"date -s 'not a date'; echo $?", "1\n",
     "strands-shell: date: invalid date " LQ "not a date" RQ "\n", 0},
    {"h=$(hostname); hostname other; echo $?; [ \"$(hostname)\" = \"$h\" ] "
     "&& echo same",
     "1\nsame\n",
     "strands-shell: hostname: the host name cannot be set from this box\n", 0},
    {"hostname -F f; echo $?", "1\n",
     "strands-shell: hostname: the host name cannot be set from this box\n", 0},
    // -r and -f go through the kernel
    // (-r is a stat, a probe: a denial reads as an absent file, §3.6)
    {"date -r secret; echo $?", "1\n",
     "strands-shell: date: secret: No such file or directory\n", 0, NULL, NULL,
     NULL, "/home/lash/secret"},
    {"date -f secret; echo $?", "1\n", DENIED_FS("date", "/home/lash/secret"),
     0, NULL, NULL, NULL, "/home/lash/secret"},
    {"echo @0 > f; date -u -f f", "Thu Jan  1 00:00:00 UTC 1970\n", "", 0},
    // zones are the system's data, read by the service
    {"TZ=Asia/Tokyo date -d @0 '+%F %T %Z'", "1970-01-01 09:00:00 JST\n", "",
     0},
    {"TZ=../../etc/passwd date -d @0 '+%Z %z'", "UTC +0000\n", "", 0},
    {"TZ=/etc/passwd date -d @0 '+%z'", "+0000\n", "", 0},
    // which: the shell's own commands are /bin/<cmd>; a denied probe is
    // an absent file
    {"PATH=/usr/bin:/bin which cat; PATH=/bin which -a sh",
     "/bin/cat\n/bin/sh\n", "", 0},
    {"mkdir /tmp/b; echo x > /tmp/b/t; PATH=/tmp/b which t; echo $?; "
     "chmod +x /tmp/b/t; PATH=/tmp/b:/bin which t cat",
     "1\n/tmp/b/t\n/bin/cat\n", "", 0},
    {"which nosuch; echo $?", "1\n", "", 0},
    {"PATH=/nowhere which grep; echo $?", "/bin/grep\n0\n", "", 0},
    // no terminal and no TERM in the box
    {"tput cols; echo $?; clear; echo $?", "2\n1\n",
     "strands-shell: tput: No value for $TERM and no -T specified\n"
     "strands-shell: TERM environment variable not set.\n",
     0},
    // python and python3 are the box's own commands, refused until Monty
    {"python3 -c 'print(1)'; echo $?", "126\n", NOMONTY("python3"), 0,
     "python3|python3 -c print(1)|-c|print(1)|2\necho|echo 126|126|^|1\n"},
    {"env python -V; echo $?", "126\n", NOMONTY("python"), 0},
    {"python3 x", "", DENIED("python3"), 126, NULL, "python3"},
};

static void
test_table(void **state)
{
    (void)state;
    size_t bad = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const scase *c = &cases[i];
        th t = {
            .th_deny = c->deny, .th_fault = c->fault, .th_deny_fs = c->deny_fs};
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        int st = th_run(&t, c->script, c->timeout_ms);
        clock_gettime(CLOCK_MONOTONIC, &b);
        long ms = (long)(b.tv_sec - a.tv_sec) * 1000 +
                  (b.tv_nsec - a.tv_nsec) / 1000000;
        bool ok = st == c->status && strcmp(th_s(&t.th_out), c->out) == 0 &&
                  strcmp(th_s(&t.th_err), c->err) == 0 &&
                  (c->admitted == NULL ||
                   strcmp(th_s(&t.th_log), c->admitted) == 0) &&
                  (c->max_ms == 0 || ms < (long)c->max_ms);
        if (!ok)
            print_error("case %zu: %s\n  status %d (want %d), %ld ms\n"
                        "  out [%s] (want [%s])\n  err [%s] (want [%s])\n"
                        "  log [%s]\n",
                        i, c->script, st, c->status, ms, th_s(&t.th_out),
                        c->out, th_s(&t.th_err), c->err, th_s(&t.th_log));
        th_reset(&t);
        bad += !ok;
    }
    assert_int_equal(bad, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
