/* SPDX-License-Identifier: Apache-2.0 */
/* Differential tests: expansion, quoting, arithmetic against /bin/dash. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sh_test_harness.h"
#include "box_test_require.h"
#include "box_testutil.h"

/*
 * Each script uses only echo / printf / true / false and shell syntax,
 * so dash (the reference, run here with -c) and the box shell must agree
 * on stdout and status byte for byte (STYLE §12: toybox TEST_HOST).
 * Skipped when /bin/dash is missing. Each dash run starts in a fresh
 * empty directory, as the box shell starts in its empty in-memory home.
 */
static const char *const scripts[] = {
    "echo hello world",
    "x='a  b'; echo $x; echo \"$x\"",
    "x=' lead trail '; printf '[%s]' $x; echo",
    "IFS=,; x='a,b,,c'; printf '[%s]' $x; echo",
    "IFS=', '; x='a, b ,c,'; printf '[%s]' $x; echo",
    "IFS=; x='a b'; printf '[%s]' $x; echo",
    "set -- 'a b' c; printf '[%s]' \"$@\"; echo",
    "set -- 'a b' c; printf '[%s]' $@; echo",
    "set -- 'a b' c; printf '[%s]' \"$*\"; echo",
    "set -- 'a b' c; IFS=-; printf '[%s]' \"$*\"; echo",
    "set --; printf '[%s]' \"$@\"; echo; echo $#",
    "set -- '' ''; printf '[%s]' \"$@\"; echo",
    "printf '[%s]' '' \"\" ''\"\"; echo",
    "x=; printf '[%s]' $x \"$x\"; echo",
    "echo ${u-def} ${u:-cdef} ${e=set} $e",
    "x=; echo \"${x-dash}\" \"${x:-colon}\"",
    "x=v; echo ${x+alt} ${x:+calt} [${u+alt}]",
    "x=/a/b/c.txt; echo ${x##*/} ${x%/*} ${x#/} ${x%.txt}",
    "x=aaa; echo ${x#a} ${x##a*} ${x%a} ${x%%a*}[]",
    "x=hello; echo ${#x} ${#u}",
    "x='*'; echo \"${x}\" '$x' \\$x",
    "echo 'single \"dq\" $x' \"double 'sq' \\$x \\\\ \\\"\"",
    "echo a\\ b \\\"q\\\"",
    "echo $((1 + 2 * 3)) $(( (1+2)*3 )) $((7 % 3)) $((-7 / 2))",
    "echo $((1 < 2)) $((2 <= 1)) $((3 == 3)) $((3 != 3)) $((1 && 0)) $((0 || "
    "2))",
    "echo $((!0)) $((!5)) $((~0)) $((1 << 4)) $((256 >> 2)) $((6 & 3)) $((6 | "
    "3)) $((6 ^ 3))",
    "x=5; y=3; echo $((x * y)) $(($x - $y)) $((x > y ? x : y))",
    // (dash refuses a non-numeric variable; box reads it as 0, spec §3.2)
    "echo $((u + 1)) $((u * 5))",
    "echo $((0x10 + 010))",
    "echo $(echo nested $(echo deeper))",
    "x=$(printf 'a\\n\\n'); echo \"[$x]\"",
    "x=`echo back`; echo $x",
    "echo \"$(echo 'a  b')\" $(echo 'a  b')",
    "false; echo $?; true; echo $?",
    "false || echo or; true && echo and; ! false && echo not",
    "if false; then echo t; elif true; then echo e; else echo f; fi",
    "for i in a b c; do printf '%s.' $i; done; echo",
    "i=0; while [ $i -lt 5 ]; do i=$((i + 1)); done; echo $i",
    "case foo.c in *.h) echo h;; *.c) echo c;; esac",
    "case x in [abc]) echo no;; [x-z]) echo yes;; esac",
    "f() { echo $# \"$1\"; }; f 'a b' c",
    "f() { return 7; }; f; echo $?",
    "(exit 4); echo $?",
    "echo a; (echo b; exit 1); echo c $?",
    "x=1; { x=2; }; echo $x",
    "printf '%s %s\\n' 1 2 3",
    "printf '%d|%5d|%-5d|%05d\\n' 42 42 42 42",
    "printf '%x %X %o %c\\n' 255 255 8 hello",
    "printf 'a\\tb\\\\n\\n'",
    "echo $? ; false ; echo $?",
    "x=a; x=${x}b; echo $x",
    "echo ${x:=assigned}; echo $x",
    "a=1 b=2; echo $a$b \"$a\"\"$b\"",
    "set -- 1 2 3; shift; echo $@ $#",
    "echo \"${u:-a b}\" ${u:-a b}",
    "printf '[%s]' ${u:-\"a b\"}; echo",
    "echo $(( $(echo 3) + 4 ))",
    "false; true | false; echo $?",
    // globbing: each script starts in an empty directory (dash in a fresh
    // temporary one, the box shell in its in-memory home)
    "for f in y x z; do : > $f.txt; done; echo *.txt; echo [xy]* [!x]*.txt",
    ": > b.c; : > a.c; : > .h; : > B; : > 1; echo *; echo ?.c; echo .h*",
    "echo nomatch* '*' \"*\" \\* [a",
    ": > a1; : > a2; x='a*'; echo $x \"$x\"; for i in $x; do echo $i; done",
    ": > 'a b'; : > ab; printf '[%s]' a*; echo",
    "set -f; : > q; echo *; set +f; echo *",
    ": > ab.c; x=ab.c; case $x in [[:alpha:]]*.[ch]) echo yes;; esac; echo "
    "${x%.*}",
};

static int
run_dash(const char *script, const char *dir, box_buf *out)
{
    char *envp[] = {(char *)"PATH=/nonexistent", NULL};
    return th_run_ref("/bin/dash", dir, script, envp, out, NULL);
}

static void
test_against_dash(void **state)
{
    if (access("/bin/dash", X_OK) != 0)
        box_test_missing("/bin/dash, the reference this test compares the "
                         "shell with (Debian: apt-get install dash)");
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(scripts); i++) {
        box_buf want;
        box_buf_init(&want, 1u << 20);
        char dir[] = "/tmp/sh_dash_test.XXXXXX";
        assert_non_null(mkdtemp(dir));
        int wst = run_dash(scripts[i], dir, &want);
        box_test_rmtree(dir);
        th t = {0};
        int st = th_run(&t, scripts[i], 0);
        if (st != wst || strcmp(th_s(&t.th_out), th_s(&want)) != 0) {
            print_error("script %zu: %s\n  dash [%s] %d\n  box  [%s] %d\n"
                        "  box stderr [%s]\n",
                        i, scripts[i], th_s(&want), wst, th_s(&t.th_out), st,
                        th_s(&t.th_err));
            bad++;
        }
        th_reset(&t);
        box_buf_reset(&want);
    }
    assert_int_equal(bad, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_dash),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
