/* SPDX-License-Identifier: Apache-2.0 */
/* Process substitution and {var}> redirections: fd numbers, pipe ends
 * closed, lists joined, recursion bounded, host programs refused. */
#include "sh_test_harness.h"
#include "sh_internal.h"

#include <dirent.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>

static long long
mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The process's open descriptors: a pipe end left open shows here. */
static int
open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    int n = 0;
    while (readdir(d) != NULL)
        n++;
    closedir(d);
    return n;
}

typedef struct pcase {
    const char *script, *out, *err;
    int status;
} pcase;

// clang-format off
static const pcase cases[] = {
    // bash's numbers: 63 down for <( ), the lowest free from 10 for {var}
    {"echo <(true) <(true) >(true); echo <(true)",
     "/dev/fd/63 /dev/fd/62 /dev/fd/61\n/dev/fd/63\n", "", 0},
    {"exec 63>/tmp/x; echo <(true)", "/dev/fd/62\n", "", 0},
    {"exec {a}>/tmp/x {b}>/tmp/y; echo $a $b; exec {a}>&-; exec {c}>&2; echo $c",
     "10 11\n10\n", "", 0},
    {"exec 10>/tmp/x; exec {a}</tmp/x; echo $a", "11\n", "", 0},
    // a {var} fd of a plain command stays; the numbered one does not
    {"echo a {v}>/tmp/x 3>/tmp/y; echo b >&$v; echo c >&3; cat /tmp/x",
     "a\nb\n", "strands-shell: 3: Bad file descriptor\n", 0},
    // the fd of a substitution closes with its command
    {"f=<(echo hi); cat $f", "",
     "strands-shell: cat: /dev/fd/63: No such file or directory\n", 1},
    // `wait $!` finds a substitution's status
    {"cat <(exit 7); wait $!", "", "", 7},
    // /dev/fd/N of any open shell fd, with its own mode
    {"exec 4>/tmp/w; echo via4 > /dev/fd/4; cat /tmp/w; cat /dev/fd/4",
     "via4\n", "strands-shell: cat: /dev/fd/4: Input/output error\n", 1},
    {"echo err > /dev/stderr; echo out > /dev/stdout", "out\n", "err\n", 0},
    // an end kept by exec: the list ends when the call closes it
    {"exec > >(cat); echo through", "through\n", "", 0},
    {"exec {o}> >(cat); echo kept >&$o; echo direct >&2", "kept\n",
     "direct\n", 0},
    // recursion through a substitution ends as too deep
    {"f() { cat <(f); }; f", "",
     "strands-shell: maximum recursion depth exceeded\n", 1},
    {"f() { cat <(f) <(f); }; f", "",
     "strands-shell: maximum recursion depth exceeded\n", 1},
};
// clang-format on

static void
test_cases(void **state)
{
    (void)state;
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(cases); i++) {
        th t = {0};
        int st = th_run(&t, cases[i].script, SH_TIMEOUT_MS);
        if (st != cases[i].status || strcmp(th_s(&t.th_out), cases[i].out) ||
            strcmp(th_s(&t.th_err), cases[i].err)) {
            print_error("case %zu: %s\n  status %d out [%s] err [%s]\n", i,
                        cases[i].script, st, th_s(&t.th_out), th_s(&t.th_err));
            bad++;
        }
        th_reset(&t);
    }
    assert_int_equal(bad, 0);
}

/*
 * Every pipe end is closed and every list joined by the end of the call,
 * whether the reader stopped early, the end was kept by exec or {var},
 * or a list never ends by itself: the call returns long before its
 * budget and the process holds no more descriptors than before.
 */
static void
test_pipes_closed(void **state)
{
    (void)state;
    static const char *const scripts[] = {
        "head -n 1 <(while :; do echo y; done)",
        "head -n 1 <(while :; do echo a; done) <(while :; do echo b; done)",
        "while read -r l; do break; done < <(while :; do echo z; done)",
        "echo x > >(while :; do echo y; done | head -n 1)",
        "exec 3< <(while :; do echo y; done); read -r l <&3",
        "exec {fd}> >(cat); echo kept >&$fd",
        "cat {fd}< <(while :; do echo y; done) </dev/null",
        "exec > >(cat); echo through",
        "echo <(while :; do echo y; done) >(while read -r l; do :; done)",
        "x=$(cat <(echo in)); echo $x",
        "eval 'exec 5< <(echo e)'; read -r l <&5; echo $l",
    };
    int before = open_fds();
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(scripts); i++) {
        th t = {0};
        long long t0 = mono_ms();
        (void)th_run(&t, scripts[i], 60000);
        long long ms = mono_ms() - t0;
        int after = open_fds();
        if (ms > 5000 || after != before ||
            strstr(th_s(&t.th_err), "timeout") != NULL) {
            print_error("script %zu: %s\n  %lld ms, fds %d then %d, err [%s]\n",
                        i, scripts[i], ms, before, after, th_s(&t.th_err));
            bad++;
        }
        th_reset(&t);
    }
    assert_int_equal(bad, 0);
}

/* A host program cannot open the shell's /dev/fd/N: refused, 126. */
static void
test_host_check(void **state)
{
    (void)state;
    th t = {0};
    box_buf_init(&t.th_out, 1u << 16);
    box_buf_init(&t.th_err, 1u << 16);
    box_buf_init(&t.th_log, 1u << 16);
    sh_session_opts o = {.so_decide = th_decide,
                         .so_decide_arg = &t,
                         .so_out = th_out,
                         .so_err = th_err,
                         .so_io_arg = &t};
    sh_session *ss = sh_session_new(&o);
    assert_non_null(ss);
    sh_ctx cx;
    sh_ctx_init(&cx, ss, ss->ss_state);
    cx.cx_fd[63] = sh_stream_new(SH_ST_NULL);
    char *ok1[] = {"diff", "/dev/fd/1", "/dev/fd/62", "x/dev/fd/", NULL};
    assert_int_equal(sh_procsub_host_check(&cx, 4, ok1), 0);
    char *bad1[] = {"diff", "a", "--from=/dev/fd/63", NULL};
    assert_int_equal(sh_procsub_host_check(&cx, 3, bad1), 126);
    assert_string_equal(th_s(&t.th_err),
                        "strands-shell: diff: /dev/fd/63: a host program "
                        "cannot open the shell's own descriptors (process "
                        "substitution, exec N>); use a temporary file\n");
    sh_ctx_release(&cx);
    sh_session_free(ss);
    th_reset(&t);
}

/* Each command of a list is admitted; a refused one does not run. */
static void
test_admitted(void **state)
{
    (void)state;
    th t = {.th_deny = "grep"};
    int st =
        th_run(&t, "cat <(echo a; grep x /tmp/nothing; echo b)", SH_TIMEOUT_MS);
    assert_int_equal(st, 0);
    assert_string_equal(th_s(&t.th_out), "a\nb\n");
    assert_non_null(strstr(th_s(&t.th_log), "cat|cat /dev/fd/63|/dev/fd/63|"));
    assert_non_null(strstr(th_s(&t.th_log), "echo|echo a|a|"));
    assert_non_null(strstr(th_s(&t.th_log), "grep|grep x /tmp/nothing|"));
    assert_non_null(strstr(th_s(&t.th_err), "policy denied this operation "
                                            "on 'grep'"));
    th_reset(&t);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_pipes_closed),
        cmocka_unit_test(test_host_check),
        cmocka_unit_test(test_admitted),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
