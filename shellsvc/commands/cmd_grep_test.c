/* SPDX-License-Identifier: Apache-2.0 */
/* grep: script -> stdout, stderr, status (and the fs requests it made). */
#include "sh_test_harness.h"

// Table rows leave trailing fields out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

typedef struct tcase {
    const char *script;
    const char *out, *err;
    int status;
    const char *deny_fs, *fault_fs; // reported paths denied / faulted
    const char *unread;             // a path grep must not open
    unsigned timeout_ms;
} tcase;

// Three files most rows share: f and g hold lines with "a", h none.
#define FILES                                                                  \
    "printf 'a1\\nb\\na2\\n' >f; printf 'x\\na3\\n' >g; printf 'zz\\n' >h; "
#define NOFILE "strands-shell: grep: nofile: No such file or directory\n"
// A tree for -r: d/x, d/sub/y and d/sub/deep/z each hold "a".
#define TREE                                                                   \
    "mkdir -p d/sub/deep; printf 'a\\n' >d/x; printf 'a\\n' >d/sub/y; "        \
    "printf 'a\\n' >d/sub/deep/z; "
#define DENIED(p)                                                              \
    "strands-shell: grep: policy denied this operation on '" p                 \
    "' [default-deny]: No permit policy matched this request.\n"
#define USAGE                                                                  \
    "Usage: grep [OPTION]... PATTERNS [FILE]...\n"                             \
    "Try 'grep --help' for more information.\n"
#define FAULT                                                                  \
    "strands-shell: effect interception failed: the policy decision point "    \
    "did not answer\n"

static const tcase cases[] = {
    // selection and status
    {FILES "grep a f", "a1\na2\n", "", 0},
    {FILES "grep q f", "", "", 1},
    {FILES "grep -v a f", "b\n", "", 0},
    {FILES "grep -v '' f", "", "", 1},
    {FILES "grep '' h", "zz\n", "", 0},
    {"printf '' >e; grep -c a e", "0\n", "", 1},
    {"printf 'a\\nab' >f; grep b f", "ab\n", "", 0},       // newline added
    {"printf 'ab\\nb\\n' >f; grep '^b$' f", "b\n", "", 0}, // no terminator
    {"printf 'aa\\nab\\n' >f; grep '\\(a\\)\\1' f", "aa\n", "", 0},
    {"printf 'a+\\naa\\n' >f; grep 'a+' f", "a+\n", "", 0}, // BRE: + literal
    {"printf 'a1\\na3\\nb\\n' >f; grep 'a1\\|b' f", "a1\nb\n", "", 0},
    // -n, file names, -H / -h (the last one wins)
    {FILES "grep -n a f", "1:a1\n3:a2\n", "", 0},
    {FILES "grep -n a f g h", "f:1:a1\nf:3:a2\ng:2:a3\n", "", 0},
    {FILES "grep a f g", "f:a1\nf:a2\ng:a3\n", "", 0},
    {FILES "grep -h a f g", "a1\na2\na3\n", "", 0},
    {FILES "grep -H b f", "f:b\n", "", 0},
    {FILES "grep -Hh b f g", "b\n", "", 0},
    {FILES "grep -h -H b f", "f:b\n", "", 0},
    {FILES "grep -Hn b f", "f:2:b\n", "", 0},
    // -c
    {FILES "grep -c a f", "2\n", "", 0},
    {FILES "grep -c a f g h", "f:2\ng:1\nh:0\n", "", 0},
    {FILES "grep -c -v a f g h", "f:1\ng:1\nh:1\n", "", 0},
    {FILES "grep -cv '' f", "0\n", "", 1},
    {FILES "grep -cn a f", "2\n", "", 0},
    {FILES "grep -ch a f g", "2\n1\n", "", 0},
    // -l (a name per file with a selected line; wins over -c)
    {FILES "grep -l a f g h", "f\ng\n", "", 0},
    {FILES "grep -l a h", "", "", 1},
    {FILES "grep -lv a f h", "f\nh\n", "", 0},
    {FILES "grep -l -c a f h", "f\n", "", 0},
    {FILES "grep -ln a f", "f\n", "", 0},
    // -q: stops at the first match, later operands are never opened
    {FILES "grep -q a f; echo $?", "0\n", "", 0},
    {FILES "grep -q q f; echo $?", "1\n", "", 0},
    {FILES "grep -q a f nofile", "", "", 0, NULL, NULL, "/home/lash/nofile"},
    {FILES "grep -q a nofile f", "", NOFILE, 0},
    {FILES "grep -q q nofile f", "", NOFILE, 2},
    {FILES "grep -qc a f", "", "", 0},
    // -e: several patterns; a newline separates patterns too
    {FILES "grep -e a1 -e a3 f g", "f:a1\ng:a3\n", "", 0},
    {FILES "grep -ea1 -e b f", "a1\nb\n", "", 0},
    {FILES "grep -ne b -e a2 f", "2:b\n3:a2\n", "", 0},
    {FILES "grep -e b -- f", "b\n", "", 0},
    {FILES "grep -e -x f", "", "", 1},
    {FILES "grep -e zz f h", "h:zz\n", "", 0},
    {FILES "grep 'a2\nb' f", "b\na2\n", "", 0},
    {FILES "grep -c -e 'q\n' f", "3\n", "", 0}, // "q" and ""
    {"printf '%s\\n' -x y >f; grep -- -x f", "-x\n", "", 0},
    // -E, -F, -i
    {FILES "grep -E 'a1|a3' f g", "f:a1\ng:a3\n", "", 0},
    {"printf 'aa\\nab\\n' >f; grep -E '^a{2}$' f", "aa\n", "", 0},
    {"printf 'a.b\\naxb\\n[x]\\n' >f; grep a.b f", "a.b\naxb\n", "", 0},
    {"printf 'a.b\\naxb\\n[x]\\n' >f; grep -F a.b f", "a.b\n", "", 0},
    {"printf 'a.b\\naxb\\n[x]\\n' >f; grep -F '[x]' f", "[x]\n", "", 0},
    {"printf 'a*\\nab\\n' >f; grep -F -e '*' -e q f", "a*\n", "", 0},
    {"printf 'x\\ny\\n' >f; grep -F '' f", "x\ny\n", "", 0},
    {"printf 'a^b\\n$a\\n' >f; grep -Fc -e '^' -e '$' f", "2\n", "", 0},
    {"printf 'Hello\\nhello\\nHELLO\\nbye\\n' >f; grep -iF hELLo f",
     "Hello\nhello\nHELLO\n", "", 0},
    {"printf 'Hello\\nbye\\n' >f; grep -F hello f", "", "", 1},
    {"printf 'Hello\\nbye\\n' >f; grep -i 'h[e]LLO$' f", "Hello\n", "", 0},
    {"printf 'Hello\\nbye\\n' >f; grep -iE 'x|BYE' f", "bye\n", "", 0},
    {"printf 'Hello\\nbye\\n' >f; grep -ivF HELLO f", "bye\n", "", 0},
    {FILES "grep -E -F a f", "",
     "strands-shell: grep: conflicting matchers specified\n", 2},
    // lines are bytes: NUL is an ordinary byte, '.' does not match it
    {"printf 'a\\0b\\nc\\n' >f; grep -c 'b$' f", "1\n", "", 0},
    {"printf 'a\\0b\\nc\\n' >f; grep -c 'a.b' f", "0\n", "", 1},
    {"printf 'a\\0b\\nc\\n' >f; grep -Fc b f", "1\n", "", 0},
    // stdin, through a pipeline or as "-"
    {"printf 'one\\ntwo\\nsix\\n' | grep o", "one\ntwo\n", "", 0},
    {"printf 'one\\ntwo\\n' | grep -n t", "2:two\n", "", 0},
    {"printf 'one\\n' | grep -H o", "(standard input):one\n", "", 0},
    {"printf 'one\\n' | grep -l o", "(standard input)\n", "", 0},
    {FILES "printf 'a\\n' | grep -c a - f", "(standard input):1\nf:2\n", "", 0},
    {"printf 'one\\n' | grep x; echo $?", "1\n", "", 0},
    {"printf 'a\\nb\\n' | grep -v a | grep -c b", "1\n", "", 0},
    // errors: files, patterns, usage
    {FILES "grep a nofile", "", NOFILE, 2},
    {FILES "grep a nofile f", "f:a1\nf:a2\n", NOFILE, 2},
    {FILES "grep a f nofile", "f:a1\nf:a2\n", NOFILE, 2},
    {FILES "grep -l a nofile f", "f\n", NOFILE, 2},
    {FILES "grep -c q nofile f", "f:0\n", NOFILE, 2},
    {FILES "grep a .", "", "strands-shell: grep: .: Is a directory\n", 2},
    {FILES "grep '[a' f", "",
     "strands-shell: grep: Unmatched [, [^, [:, [., or [=\n", 2},
    {FILES "grep -e a -e '[a' f", "",
     "strands-shell: grep: Unmatched [, [^, [:, [., or [=\n", 2},
    {FILES "grep -E '(a' f", "", "strands-shell: grep: Unmatched ( or \\(\n",
     2},
    {FILES "grep -F '[a' f", "", "", 1},
    // GNU's usage lines carry no prefix (grep 3.8 prints them bare).
    {"grep", "", USAGE, 2},
    {"grep -n", "", USAGE, 2},
    {FILES "grep -zc a f", "1\n", "", 0},
    {FILES "grep -w a f", "", "", 1},
    {"grep -e", "",
     "strands-shell: grep: option requires an argument -- 'e'\n" USAGE, 2},
    {FILES "grep a f >&-", "",
     "strands-shell: grep: write error: Bad file descriptor\n", 2},
    // policy: a denial is a file error; a fault stops the whole call
    {"printf 'a\\n' >g; grep a g f", "g:a\n",
     "strands-shell: grep: policy denied this operation on '/home/lash/f' "
     "[default-deny]: No permit policy matched this request.\n",
     2, "/home/lash/f"},
    {"printf 'a\\n' >g; grep -q a f g; echo $?", "0\n",
     "strands-shell: grep: policy denied this operation on '/home/lash/f' "
     "[default-deny]: No permit policy matched this request.\n",
     0, "/home/lash/f"},
    {"printf 'a\\n' >g; grep a f g; echo after", "", FAULT, 125, NULL,
     "/home/lash/f", "/home/lash/g"},
    {"printf 'a\\n' >g; grep a g f; echo after", "g:a\n", FAULT, 125, NULL,
     "/home/lash/f"},
    // the call's deadline stops a grep that is still reading
    {"while :; do echo a; done | grep -c b", "",
     "strands-shell: execution timeout exceeded\n", 1, NULL, NULL, NULL, 200},
};

/*
 * Policy rows where only reads of deny_fs are refused (writes pass), so
 * the script can make the file or tree that grep is then denied.
 */
static const tcase read_denials[] = {
    // policy under -r: a denied subtree is one message, the rest is
    // searched; a denied file inside likewise; a fault stops the call
    {TREE "grep -r a d | sort; echo \"st ${PIPESTATUS[0]}\"",
     "d/sub/y:a\nd/x:a\nst 2\n", DENIED("/home/lash/d/sub/deep"), 0,
     "/home/lash/d/sub/deep"},
    {TREE "grep -r a d | sort; echo \"st ${PIPESTATUS[0]}\"",
     "d/sub/deep/z:a\nd/x:a\nst 2\n", DENIED("/home/lash/d/sub/y"), 0,
     "/home/lash/d/sub/y"},
    {TREE "grep -rc a d/sub; echo \"st $?\"", "st 2\n",
     DENIED("/home/lash/d/sub"), 0, "/home/lash/d/sub"},
    {TREE "grep -rs a d | sort; echo \"st ${PIPESTATUS[0]}\"",
     "d/sub/y:a\nd/x:a\nst 2\n", "", 0, "/home/lash/d/sub/deep"},
    {TREE "grep -rq a d; echo \"st $?\"", "st 0\n", "", 0,
     "/home/lash/d/sub/deep"},
    {TREE "grep -r a d; echo after", "", FAULT, 125, NULL, "/home/lash/d/sub"},
    // -f reads its patterns through the kernel too
    {FILES "printf 'a1\\n' >p; grep -f p f; echo \"st $?\"", "st 2\n",
     DENIED("/home/lash/p"), 0, "/home/lash/p"},
    {FILES "printf 'a1\\n' >p; grep -f p -e b f", "a1\nb\n", "", 0},
    {FILES "grep -f nofile f", "",
     "strands-shell: grep: nofile: No such "
     "file or directory\n",
     2},
    {FILES "printf 'a1\\n' >p; grep -f p f; echo after", "", FAULT, 125, NULL,
     "/home/lash/p"},
    // a denied file among others, with and without -s
    {FILES "grep -s a f g h; echo \"st $?\"", "g:a3\nst 2\n", "", 0,
     "/home/lash/f"},
    {FILES "grep -c a f g h", "g:1\nh:0\n", DENIED("/home/lash/f"), 2,
     "/home/lash/f"},
    {FILES "grep -L a f g h", "h\n", DENIED("/home/lash/f"), 2, "/home/lash/f"},
};

/* Whether the run asked to read path: an "fs:read <operation> <path>"
 * line in the fs log. */
static bool
fs_read(th *t, const char *path)
{
    size_t pl = strlen(path);
    for (const char *l = th_s(&t->th_fslog); *l;) {
        const char *e = strchr(l, '\n');
        size_t n = e ? (size_t)(e - l) : strlen(l);
        if (strncmp(l, "fs:read ", 8) == 0 && n > pl && l[n - pl - 1] == ' ' &&
            memcmp(l + n - pl, path, pl) == 0)
            return true;
        l += n + (e ? 1 : 0);
    }
    return false;
}

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

/* th_run with decide_reads as the decider. */
static int
run_reads_denied(th *t, const char *script, unsigned timeout_ms)
{
    return th_run_with(t, script, timeout_ms, decide_reads, t);
}

static size_t
run_table(const tcase *rows, size_t n, bool reads_only)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        const tcase *c = &rows[i];
        th t = {.th_deny_fs = c->deny_fs, .th_fault_fs = c->fault_fs};
        int st = reads_only ? run_reads_denied(&t, c->script, c->timeout_ms)
                            : th_run(&t, c->script, c->timeout_ms);
        bool ok = st == c->status && strcmp(th_s(&t.th_out), c->out) == 0 &&
                  strcmp(th_s(&t.th_err), c->err) == 0 &&
                  (c->unread == NULL || !fs_read(&t, c->unread));
        if (!ok) {
            print_error("case %zu: %s\n  status %d (want %d)\n  out [%s] (want "
                        "[%s])\n  err [%s] (want [%s])\n  fs [%s]\n",
                        i, c->script, st, c->status, th_s(&t.th_out), c->out,
                        th_s(&t.th_err), c->err, th_s(&t.th_fslog));
        }
        th_reset(&t);
        bad += !ok;
    }
    return bad;
}

static void
test_cases(void **state)
{
    assert_int_equal(run_table(cases, NELEM(cases), false), 0);
}

static void
test_read_denials(void **state)
{
    assert_int_equal(run_table(read_denials, NELEM(read_denials), true), 0);
}

/*
 * Lines longer than the input helper's 64 KiB chunk come out whole, and
 * line numbers stay right after them.
 */
static void
test_long_lines(void **state)
{
    th t = {0};
    int st = th_run(&t,
                    "s=0123456789abcdef; "
                    "while [ ${#s} -lt 100000 ]; do s=$s$s; done; "
                    "printf '%sX\\nshort\\n%s\\n%sY' \"$s\" \"$s\" \"$s\" >f; "
                    "grep -n short f; grep -c 0123 f; grep -c X f; "
                    "grep Y f",
                    0);
    assert_int_equal(st, 0);
    static const char want[] = "2:short\n3\n1\n";
    size_t w = sizeof want - 1, n = 131072; // s doubled from 16 past 100000
    assert_int_equal(t.th_out.b_len, w + n + 2);
    const char *out = t.th_out.b_data;
    assert_memory_equal(out, want, w);
    assert_int_equal(strspn(out + w, "0123456789abcdef"), n);
    assert_string_equal(out + w + n, "Y\n");
    assert_string_equal(th_s(&t.th_err), "");
    th_reset(&t);
}

/* More output than one buffer holds goes out whole and in order. */
static void
test_much_output(void **state)
{
    th t = {0};
    int st = th_run(&t,
                    "i=0; while [ $i -lt 3000 ]; do "
                    "printf '%s line number %05d\\n' ab $i; i=$((i+1)); "
                    "done >f; grep -n ab f",
                    0);
    assert_int_equal(st, 0);
    const char *out = th_s(&t.th_out);
    for (int i = 0; i < 3000; i++) {
        char want[64];
        int k =
            snprintf(want, sizeof want, "%d:ab line number %05d\n", i + 1, i);
        assert_int_equal(strncmp(out, want, (size_t)k), 0);
        out += k;
    }
    assert_string_equal(out, "");
    th_reset(&t);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
        cmocka_unit_test(test_read_denials),
        cmocka_unit_test(test_long_lines),
        cmocka_unit_test(test_much_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
