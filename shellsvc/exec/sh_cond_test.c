/* SPDX-License-Identifier: Apache-2.0 */
/* Tests for [[ … ]]: a table checked against bash, file tests, tracing. */
#include <unistd.h>

#include "sh_test_harness.h"
#include "box_test_require.h"
#include "sh_internal.h"
#include "sh_array.h"

/*
 * bash_cases: each script's stdout and status as bash 5.2 gives them
 * (LC_ALL=C.UTF-8, HOME=/home/lash). test_table runs them in the box
 * shell; test_against_bash runs /bin/bash on them so the table cannot
 * drift from the reference (STYLE §12: toybox TEST_HOST). Messages on
 * stderr are the shell's own and are checked in the box-only tests.
 */
typedef struct bcase {
    const char *script;
    const char *out;
    int status;
} bcase;

static const bcase bash_cases[] = {
    {"[[ a == a ]]; echo $?", "0\n", 0},
    {"[[ a == b ]]; echo $?", "1\n", 0},
    {"x=foo.py; [[ $x == *.py ]] && echo py", "py\n", 0},
    {"x='*'; [[ $x == \"*\" ]] && echo lit", "lit\n", 0},
    {"x=abc; [[ $x == \"*\" ]]; echo $?", "1\n", 0},
    {"x=abc; [[ $x == * ]]; echo $?", "0\n", 0},
    {"x=abc; p='a*'; [[ $x == $p ]]; echo $?", "0\n", 0},
    {"x=abc; p='a*'; [[ $x == \"$p\" ]]; echo $?", "1\n", 0},
    {"[[ abc != a* ]]; echo $?", "1\n", 0},
    {"[[ abc != x* ]]; echo $?", "0\n", 0},
    {"[[ abc = a?c ]]; echo $?", "0\n", 0},
    {"[[ axb == a\\?b ]]; echo $?", "1\n", 0},
    {"[[ '' == '' ]]; echo $?", "0\n", 0},
    {"[[ $u == '' ]]; echo $?", "0\n", 0},
    {"[[ -z $u ]]; echo $?", "0\n", 0},
    {"[[ -n $u ]]; echo $?", "1\n", 0},
    {"[[ $u ]]; echo $?", "1\n", 0},
    {"[[ \"\" ]]; echo $?", "1\n", 0},
    {"[[ x ]]; echo $?", "0\n", 0},
    {"x='a b'; [[ $x == 'a b' ]] && echo nosplit", "nosplit\n", 0},
    {"x='a b'; [[ -n $x ]] && echo ok", "ok\n", 0},
    {"x='*'; [[ -n $x && $x == '*' ]] && echo noglob", "noglob\n", 0},
    {"[[ b > a ]]; echo $?", "0\n", 0},
    {"[[ B < a ]]; echo $?", "0\n", 0},
    {"[[ a < B ]]; echo $?", "1\n", 0},
    {"[[ 10 < 9 ]]; echo $?", "0\n", 0},
    {"[[ abc == @(abc|def) ]]; echo $?", "0\n", 0},
    {"[[ x == !(a|b) ]]; echo $?", "0\n", 0},
    {"[[ foo.txt == *.@(txt|md) ]]; echo $?", "0\n", 0},
    {"[[ a == [abc] ]]; echo $?", "0\n", 0},
    {"[[ a && b ]]; echo $?", "0\n", 0},
    {"[[ a && '' ]]; echo $?", "1\n", 0},
    {"[[ '' || b ]]; echo $?", "0\n", 0},
    {"[[ ! a ]]; echo $?", "1\n", 0},
    {"[[ ! '' ]]; echo $?", "0\n", 0},
    {"[[ ( a == b || c == c ) && ! x == y ]]; echo $?", "0\n", 0},
    {"[[ a == b || c == d || e == e ]]; echo $?", "0\n", 0},
    {"[[ a && b || '' && c ]]; echo $?", "0\n", 0},
    {"[[ 1 == 2 && ${x=set} ]]; echo ${x-unset}", "unset\n", 0},
    {"[[ 1 == 1 || ${x=set} ]]; echo ${x-unset}", "unset\n", 0},
    {"[[ 1 == 2 || ${x=set} ]]; echo ${x-unset}", "set\n", 0},
    {"[[ ! ! a ]]; echo $?", "0\n", 0},
    {"[[ ( -n a ) ]]; echo $?", "0\n", 0},
    {"[[ 1 -eq 1 ]]; echo $?", "0\n", 0},
    {"[[ 1+1 -eq 2 ]]; echo $?", "0\n", 0},
    {"[[ 2 -gt 10 ]]; echo $?", "1\n", 0},
    {"[[ 3 -ge 3 && 2 -le 3 && 1 -lt 2 && 1 -ne 2 ]]; echo $?", "0\n", 0},
    {"x=5; [[ x -eq 5 ]]; echo $?", "0\n", 0},
    {"[[ abc -eq 0 ]]; echo $?", "0\n", 0},
    {"[[ \"\" -eq 0 ]]; echo $?", "0\n", 0},
    {"[[ -5 -lt 0 ]]; echo $?", "0\n", 0},
    {"i=0; while [[ $i -lt 3 ]]; do echo $i; i=$((i+1)); done", "0\n1\n2\n", 0},
    {"[[ 010 -eq 8 ]]; echo $?", "0\n", 0},
    {"[[ 0x10 -eq 16 ]]; echo $?", "0\n", 0},
    {"[[ 2*3 -eq 6 ]]; echo $?", "0\n", 0},
    {"[[ 1+ -eq 2 ]]; echo $?", "1\n", 0},
    {"v=v1.22; [[ $v =~ ^v([0-9]+)\\.([0-9]+) ]] && echo \"$BASH_REMATCH\"",
     "v1.22\n", 0},
    {"line='key=some value'; [[ $line =~ ^([a-z]+)=(.*)$ ]] && echo "
     "\"$BASH_REMATCH\"",
     "key=some value\n", 0},
    {"[[ abc =~ b ]]; echo $? $BASH_REMATCH", "0 b\n", 0},
    {"[[ abc =~ ^b ]]; echo $?", "1\n", 0},
    {"[[ abc =~ z ]]; echo $? \"[$BASH_REMATCH]\"", "1 []\n", 0},
    {"[[ a.c =~ \"a.c\" ]]; echo $?", "0\n", 0},
    {"[[ abc =~ \"a.c\" ]]; echo $?", "1\n", 0},
    {"re='a.c'; [[ abc =~ $re ]]; echo $?", "0\n", 0},
    {"re='a.c'; [[ abc =~ \"$re\" ]]; echo $?", "1\n", 0},
    {"[[ a =~ [ ]]; echo $?", "2\n", 0},
    {"[[ x =~ (a|x) ]]; echo $? $BASH_REMATCH", "0 x\n", 0},
    {"[[ 'a b' =~ ^a\\ b$ ]]; echo $?", "0\n", 0},
    {"[[ 'a b' =~ (a b) ]]; echo $?", "0\n", 0},
    {"[[ ab =~ a|z ]]; echo $BASH_REMATCH", "a\n", 0},
    {"[[ abc =~ b ]]; [[ abc =~ \"(\" ]]; echo $? \"[$BASH_REMATCH]\"",
     "1 []\n", 0},
    {"[[ abc =~ b ]]; [[ a =~ [ ]]; echo $? \"[$BASH_REMATCH]\"", "2 [b]\n", 0},
    {"[[ a*c =~ a\\*c ]]; echo $?", "0\n", 0},
    {"[[ a.b =~ a'.'b ]]; echo $?", "0\n", 0},
    {"[[ axb =~ a'.'b ]]; echo $?", "1\n", 0},
    {"[[ x =~ ^$ ]]; echo $?", "1\n", 0},
    {"[[ '' =~ ^$ ]]; echo $?", "0\n", 0},
    {"[[ foo =~ [[:alpha:]]+ ]]; echo $BASH_REMATCH", "foo\n", 0},
    {"[[ a1 =~ [0-9] ]] && [[ $BASH_REMATCH == 1 ]] && echo one", "one\n", 0},
    {"[[ abc =~ z ]]; echo ${BASH_REMATCH-unset}", "unset\n", 0},
    {"[[ ab =~ (x)?b ]]; echo \"[$BASH_REMATCH]\"", "[b]\n", 0},
    {"x=1; [[ -v x ]]; echo $?", "0\n", 0},
    {"[[ -v nope ]]; echo $?", "1\n", 0},
    {"x=; [[ -v x ]]; echo $?", "0\n", 0},
    {"set -e; [[ -o errexit ]]; echo $?", "0\n", 0},
    {"[[ -o errexit ]]; echo $?", "1\n", 0},
    {"[[ -o nosuch ]]; echo $?", "1\n", 0},
    {"[[ -t 1 ]]; echo $?", "1\n", 0},
    {"[[ -t x ]]; echo $?", "1\n", 0},
    {"set -- a b; [[ -v 2 ]]; echo $?; [[ -v 3 ]]; echo $?", "0\n1\n", 0},
    {"if [[ -n \"$HOME\" && $HOME == /* ]]; then echo abs; fi", "abs\n", 0},
    {"for f in a.py b.sh c.py; do [[ $f == *.py ]] && echo $f; done",
     "a.py\nc.py\n", 0},
    {"f() { [[ $1 == -* ]] && echo opt || echo arg; }; f -x; f y", "opt\narg\n",
     0},
    {"[[ a == a ]] && echo yes || echo no", "yes\n", 0},
    {"set -e; [[ a == b ]]; echo after", "", 1},
    {"set -e; [[ a == b ]] || echo handled; echo after", "handled\nafter\n", 0},
    {"set -e; if [[ a == b ]]; then :; fi; echo ok", "ok\n", 0},
    {"x=3; case $x in 3) [[ $x -eq 3 ]] && echo three;; esac", "three\n", 0},
    {"[[ a ]] && [[ b ]] && echo both", "both\n", 0},
    {"! [[ a == b ]] && echo neg", "neg\n", 0},
    {"[[ $(echo hi) == hi ]] && echo sub", "sub\n", 0},
    {"x=abc; [[ ${x#a} == bc ]] && echo trim", "trim\n", 0},
    {"[[ $((1+2)) -eq 3 ]] && echo ar", "ar\n", 0},
    {"[[ a == a ]] > /dev/null; echo $?", "0\n", 0},
    {"echo [[ a ]]", "[[ a ]]\n", 0},
    {"[[ \"a]]\" == 'a]]' ]] && echo q", "q\n", 0},
    {"x='a b'; [[ $x == a\\ b ]] && echo esc", "esc\n", 0},
    {"[[ abc == a\"b\"* ]]; echo $?", "0\n", 0},
    {"[[ 'a*' == a\\* ]]; echo $?", "0\n", 0},
    {"[[ ab == a\\* ]]; echo $?", "1\n", 0},
    {"[[ -z '' && -n x && ! -z x ]]; echo $?", "0\n", 0},
    {"x=1; [[ $x -eq 1 || $x -eq 2 ]] && echo in", "in\n", 0},
    {"[[ '-f' == -f ]]; echo $?", "0\n", 0},
    {"[[ a == a ]]; [[ b == c ]]; echo $?", "1\n", 0},
    {"[[ $u -eq 0 ]]; echo $?", "0\n", 0},
    {"x=' 1 '; [[ $x -eq 1 ]]; echo $?", "0\n", 0},
    {"[[ ab < abc && abc > ab ]]; echo $?", "0\n", 0},
    {"[[ a < a ]]; echo $?", "1\n", 0},
    {"f=notes.md; [[ $f != *.py && $f != *.sh ]] && echo other", "other\n", 0},
    {"[[ /a/b/c == */b/* ]] && echo mid", "mid\n", 0},
    {"[[ .hidden == *hidden ]] && echo dot", "dot\n", 0},
    {"x=yes; [[ $x == [Yy]* ]] && echo y", "y\n", 0},
    {"[[ a =~ ^(a)\\) ]]; echo $?", "1\n", 0},
    {"[[ ~ == /home/lash ]]; echo $?", "0\n", 0},
    {"[[ /home/lash == ~ ]]; echo $?", "0\n", 0},
    {"x=\"a  b\"; [[ $x == a\\ \\ b ]]; echo $?", "0\n", 0},
    {"[[ a =~ a ]] && [[ -v BASH_REMATCH ]]; echo $?", "0\n", 0},
    {"[[ a=b ]]; echo $?", "0\n", 0},
    {"[[ 1 -eq 1 ]] 2>/dev/null && echo r", "r\n", 0},
    {"[[ a =~ (]) ]]; echo $?", "1\n", 0},
    {"[[ \"a]\" =~ [\\]] ]]; echo $?", "0\n", 0},
    {"[[ ab =~ a\"|\"b ]]; echo $?", "1\n", 0},
    {"[[ \"a|b\" =~ a\"|\"b ]]; echo $?", "0\n", 0},
    {"[[ x =~ \\( ]]; echo $?", "1\n", 0},
    {"x=1; [[ $x == 1 ]]&&echo y", "y\n", 0},
    {"[[ abc =~ ^a(b)(c)$ ]] && echo \"$BASH_REMATCH\" done", "abc done\n", 0},
    {"echo x | [[ a == b ]]; echo $?", "1\n", 0},
    {"echo $( [[ a ]] && echo in )", "in\n", 0},
    {"f() [[ $1 == x ]]; f x && echo fx; f y || echo fy", "fx\nfy\n", 0},
    {"[[ a == a ]] && { [[ b == c ]] || echo grp; }", "grp\n", 0},
    {"[[\na == a &&\nb ]] && echo nl", "nl\n", 0},
    {"if [[ a == a ]]\nthen echo t\nfi", "t\n", 0},
    {"[[ a ||\n\n'' ]]; echo $?", "0\n", 0},

};

static void
test_table(void **state)
{
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(bash_cases); i++) {
        const bcase *c = &bash_cases[i];
        th t = {0};
        int st = th_run(&t, c->script, 0);
        if (st != c->status || strcmp(th_s(&t.th_out), c->out) != 0) {
            print_error("case %zu: %s\n  box  [%s] %d\n  want [%s] %d\n"
                        "  box stderr [%s]\n",
                        i, c->script, th_s(&t.th_out), st, c->out, c->status,
                        th_s(&t.th_err));
            bad++;
        }
        th_reset(&t);
    }
    assert_int_equal(bad, 0);
}

static int
run_bash(const char *script, box_buf *out)
{
    char *envp[] = {(char *)"PATH=/nonexistent", (char *)"HOME=/home/lash",
                    (char *)"LC_ALL=C.UTF-8", NULL};
    return th_run_ref("/bin/bash", "/", script, envp, out, NULL);
}

static void
test_against_bash(void **state)
{
    if (access("/bin/bash", X_OK) != 0)
        box_test_missing("/bin/bash, the reference this test compares the "
                         "table with (Debian: apt-get install bash)");
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(bash_cases); i++) {
        const bcase *c = &bash_cases[i];
        box_buf got;
        box_buf_init(&got, 1u << 20);
        int st = run_bash(c->script, &got);
        if (st != c->status || strcmp(th_s(&got), c->out) != 0) {
            print_error("case %zu: %s\n  bash [%s] %d\n  want [%s] %d\n", i,
                        c->script, th_s(&got), st, c->out, c->status);
            bad++;
        }
        box_buf_reset(&got);
    }
    assert_int_equal(bad, 0);
}

/* ---- box-only: files, decisions, messages, tracing ---- */

typedef struct xcase {
    const char *script;
    const char *out;
    const char *err;
    int status;
    const char *deny_fs;  // paths whose fs:* requests are denied
    const char *fault_fs; // … or cannot be decided
    const char *fslog;    // the fs:* requests made, or NULL
} xcase;

#define FAULT_MSG                                                              \
    "strands-shell: effect interception failed: the policy decision point "    \
    "did not answer\n"

static const xcase box_cases[] = {
    /* file tests in the call's memory and through the kernel */
    {"[[ -d /tmp ]]; echo $?", "0\n", "", 0, NULL, NULL,
     "fs:read read_metadata /tmp\n"},
    {"[[ -f /tmp ]]; echo $?", "1\n", "", 0, NULL, NULL, NULL},
    {"[[ -e /nope || -a /nope ]]; echo $?", "1\n", "", 0, NULL, NULL, NULL},
    {"[[ -a /tmp && -r /tmp && -w /tmp ]]; echo $?", "0\n", "", 0, NULL, NULL,
     NULL},
    {"echo x >/tmp/f; [[ -f /tmp/f && -s /tmp/f ]]; echo $?", "0\n", "", 0,
     NULL, NULL, NULL},
    {": >/tmp/e; [[ -s /tmp/e ]]; echo $?", "1\n", "", 0, NULL, NULL, NULL},
    {"[[ -p /tmp || -S /tmp || -b /tmp || -c /tmp ]]; echo $?", "1\n", "", 0,
     NULL, NULL, NULL},
    {"[[ -u /tmp || -g /tmp ]]; echo $?; [[ -k /tmp ]]; echo $?", "1\n0\n", "",
     0, NULL, NULL, NULL},
    {"[[ -L /bin/cat && -h /bin/cat && ! -L /tmp ]]; echo $?", "0\n", "", 0,
     NULL, NULL, NULL},
    {"[[ -x /tmp && ! -x /nope ]]; echo $?", "0\n", "", 0, NULL, NULL, NULL},
    {"d=/tmp; if [[ -d \"$d\" && ! -L \"$d\" ]]; then echo real; fi", "real\n",
     "", 0, NULL, NULL, NULL},
    {"echo a >/tmp/a; [[ /tmp/a -ef /tmp/a && /tmp/a -nt /nope && "
     "/nope -ot /tmp/a ]]; echo $?; [[ /tmp/a -ef /tmp ]]; echo $?",
     "0\n1\n", "", 0, NULL, NULL, NULL},
    {"[[ -f '' ]]; echo $?", "1\n", "", 0, NULL, NULL, NULL},
    {"cd /tmp; echo a >rel; [[ -f rel && -f ./rel ]]; echo $?", "0\n", "", 0,
     NULL, NULL, NULL},
    /* a denied probe is false, and the request is in the log */
    {"[[ -e /bin/cat ]]; echo $?; [ -e /bin/cat ]; echo $?", "1\n1\n", "", 0,
     "/bin/lash", NULL,
     "fs:read read_metadata /bin/lash\nfs:read read_metadata /bin/lash\n"},
    {"[[ -f /bin/cat || -d /tmp ]]; echo $?", "0\n", "", 0, "/bin/lash", NULL,
     "fs:read read_metadata /bin/lash\nfs:read read_metadata /tmp\n"},
    {"[[ -L /bin/cat ]]; echo $?", "0\n", "", 0, "/bin/lash", NULL,
     "fs:read read_metadata /bin/cat\n"},
    {"[[ -L /bin/cat ]]; echo $?", "1\n", "", 0, "/bin/cat", NULL, NULL},
    /* short-circuit: the right file is never probed */
    {"[[ -d /tmp || -f /tmp/x ]]; echo $?", "0\n", "", 0, NULL, NULL,
     "fs:read read_metadata /tmp\n"},
    /* a decision that cannot be made ends the call */
    {"[[ -e /bin/cat ]]; echo after", "", FAULT_MSG, 125, NULL, "/bin/lash",
     NULL},
    {"[[ /bin/cat -nt /tmp ]]; echo after", "", FAULT_MSG, 125, NULL,
     "/bin/lash", NULL},
    /* parse errors: the spec's status 1, bash's words */
    {"[[ -f ]]", "",
     "strands-shell: unexpected argument `]]' to conditional "
     "unary operator\n",
     1, NULL, NULL, NULL},
    {"echo a\n[[ a b ]]\necho b", "a\n",
     "strands-shell: line 2: conditional "
     "binary operator expected\n",
     1, NULL, NULL, NULL},
    {"[[ ]]", "", "strands-shell: syntax error in conditional expression\n", 1,
     NULL, NULL, NULL},
    /* errors while evaluating */
    {"[[ 1+ -eq 2 ]]; echo $?", "1\n",
     "strands-shell: [[: 1+: syntax error: operand expected (error token is "
     "\"+\")\n",
     0, NULL, NULL, NULL},
    {"[[ 1+ -eq 2 || a ]]; echo $?", "1\n",
     "strands-shell: [[: 1+: syntax error: operand expected (error token is "
     "\"+\")\n",
     0, NULL, NULL, NULL},
    {"[[ -N /tmp ]]; echo $?", "2\n",
     "strands-shell: [[: -N: not supported in this box\n", 0, NULL, NULL, NULL},
    {"[[ -R x ]]; echo $?", "1\n", "", 0, NULL, NULL, NULL},
    {"set -u; [[ -n $nope ]]; echo after", "",
     "strands-shell: nope: parameter not set\n", 2, NULL, NULL, NULL},
    /* set -x traces each term once its words are expanded (bash) */
    {"set -x; [[ a == a && -n b ]]; [[ x ]]; [[ ! a == b ]]; [[ ( a ) ]]", "",
     "+ [[ a == a ]]\n+ [[ -n b ]]\n+ [[ -n x ]]\n+ [[ ! a == b ]]\n"
     "+ [[ -n a ]]\n",
     0, NULL, NULL, NULL},
    {"set -x; x='a b'; [[ $x =~ ^a\\ (b)$ ]]; [[ $x < \"c d\" ]]; "
     "[[ $u == \"*\" ]]",
     "",
     "+ x='a b'\n+ [[ a b =~ ^a (b)$ ]]\n+ [[ a b < c d ]]\n"
     "+ [[ '' == \\* ]]\n",
     1, NULL, NULL, NULL},
    /* [[ is syntax: nothing is admitted for it */
    {"[[ a == a ]] && echo y", "y\n", "", 0, NULL, NULL, ""},
};

static void
test_box_cases(void **state)
{
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(box_cases); i++) {
        const xcase *c = &box_cases[i];
        th t = {.th_deny_fs = c->deny_fs, .th_fault_fs = c->fault_fs};
        int st = th_run(&t, c->script, 0);
        bool ok =
            st == c->status && strcmp(th_s(&t.th_out), c->out) == 0 &&
            strcmp(th_s(&t.th_err), c->err) == 0 &&
            (c->fslog == NULL || strcmp(th_s(&t.th_fslog), c->fslog) == 0);
        if (!ok) {
            print_error("case %zu: %s\n  status %d (want %d)\n  out [%s] "
                        "(want [%s])\n  err [%s] (want [%s])\n  fs [%s]\n",
                        i, c->script, st, c->status, th_s(&t.th_out), c->out,
                        th_s(&t.th_err), c->err, th_s(&t.th_fslog));
            bad++;
        }
        th_reset(&t);
    }
    assert_int_equal(bad, 0);
}

/* Only echo is admitted around a [[: the keyword raises no shell:exec. */
static void
test_not_admitted(void **state)
{
    th t = {0};
    assert_int_equal(th_run(&t, "[[ -n x ]] && echo y", 0), 0);
    assert_string_equal(th_s(&t.th_log), "echo|echo y|y|^|1\n");
    th_reset(&t);
}

/* The groups of a match stay in the state for ${BASH_REMATCH[n]} (an
 * unmatched optional group is ""); a failed match drops them. */
static void
test_rematch_groups(void **state)
{
    th t = {0};
    box_buf_init(&t.th_out, 1u << 20);
    box_buf_init(&t.th_err, 1u << 20);
    box_buf_init(&t.th_log, 1u << 20);
    box_buf_init(&t.th_fslog, 1u << 20);
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
    const char *s1 = "v=v1.22; [[ $v =~ ^v([0-9]+)\\.([0-9]+)(x)? ]]";
    assert_int_equal(sh_session_run(ss, s1, strlen(s1)), 0);
    const sh_state *st = ss->ss_state;
    const sh_var *rm = sh_var_find(ss->ss_state, "BASH_REMATCH");
    assert_non_null(rm);
    assert_non_null(rm->v_arr);
    assert_int_equal(sh_array_count(rm->v_arr), 4);
    assert_string_equal(sh_array_get(rm->v_arr, 0), "v1.22");
    assert_string_equal(sh_array_get(rm->v_arr, 1), "1");
    assert_string_equal(sh_array_get(rm->v_arr, 2), "22");
    assert_string_equal(sh_array_get(rm->v_arr, 3), "");
    assert_string_equal(sh_var_get(st, "BASH_REMATCH"), "v1.22");
    const char *s2 = "[[ a =~ [ ]]"; // invalid: groups stay
    assert_int_equal(sh_session_run(ss, s2, strlen(s2)), 2);
    rm = sh_var_find(ss->ss_state, "BASH_REMATCH");
    assert_int_equal(sh_array_count(rm->v_arr), 4);
    const char *s3 = "[[ a =~ b ]]"; // no match: none left
    assert_int_equal(sh_session_run(ss, s3, strlen(s3)), 1);
    rm = sh_var_find(ss->ss_state, "BASH_REMATCH");
    assert_int_equal(sh_array_count(rm->v_arr), 0);
    assert_null(sh_var_get(ss->ss_state, "BASH_REMATCH"));
    sh_session_free(ss);
    th_reset(&t);
}

/* A chain of any length runs in a loop: no stack grows with it. */
static void
test_long_chain(void **state)
{
    box_buf b;
    box_buf_init(&b, SH_MAX_INPUT);
    assert_int_equal(box_buf_puts(&b, "[[ "), BOX_OK);
    for (int i = 0; i < 20000; i++)
        assert_int_equal(box_buf_puts(&b, i % 2 ? "x || " : "x && "), BOX_OK);
    assert_int_equal(box_buf_puts(&b, "x ]] && echo ok"), BOX_OK);
    assert_int_equal(box_buf_putc(&b, '\0'), BOX_OK);
    th t = {0};
    assert_int_equal(th_run(&t, b.b_data, 0), 0);
    assert_string_equal(th_s(&t.th_out), "ok\n");
    th_reset(&t);
    box_buf_reset(&b);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table),
        cmocka_unit_test(test_against_bash),
        cmocka_unit_test(test_box_cases),
        cmocka_unit_test(test_not_admitted),
        cmocka_unit_test(test_rematch_groups),
        cmocka_unit_test(test_long_chain),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
