/* SPDX-License-Identifier: Apache-2.0 */
/* Table tests of cat, head, tail and wc: script -> stdout, stderr, status. */
#include "cmd_test_table.h"

// Table rows leave trailing fields out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

// GNU's quote() in a UTF-8 locale: ‘…’.
#define LQ "\xe2\x80\x98"
#define RQ "\xe2\x80\x99"
#define NOFILE(cmd, f)                                                         \
    "strands-shell: " cmd ": " f ": No such file or directory\n"
#define BADFD(cmd) "strands-shell: " cmd ": write error: Bad file descriptor\n"

// Fixtures the scripts start with.
#define F_AB "printf 'a\\nb\\n' > f; " // f: 2 lines
#define F_G "printf 'c\\n' > g; "      // g: 1 line
#define F_12 "i=0; while [ $i -lt 12 ]; do i=$((i+1)); echo $i; done > t; "

static const tcase cases[] = {
    // ---- cat ----
    {F_AB "cat f", "a\nb\n", "", 0},
    {"printf 'x\\n' | cat", "x\n", "", 0},
    {"printf 'x\\n' | cat -", "x\n", "", 0},
    {F_AB "printf 'x\\n' | cat f - f", "a\nb\nx\na\nb\n", "", 0},
    {F_AB "cat -n f f", "     1\ta\n     2\tb\n     3\ta\n     4\tb\n", "", 0},
    {F_AB "cat -n -- f", "     1\ta\n     2\tb\n", "", 0},
    // numbering runs on across operands, like GNU cat -n
    {"printf 'a' > f; printf 'b\\nc' > g; cat -n f g", "     1\tab\n     2\tc",
     "", 0},
    {"printf 'a\\nb' > f; cat f; cat -n f", "a\nb     1\ta\n     2\tb", "", 0},
    {"printf '' > e; cat e; cat -n e; echo $?", "0\n", "", 0},
    {"printf '\\n\\n' | cat -n", "     1\t\n     2\t\n", "", 0},
    {F_AB "cat f nofile f; echo $?", "a\nb\na\nb\n1\n", NOFILE("cat", "nofile"),
     0},
    {F_AB "cat f secret f", "a\nb\na\nb\n",
     DENIED_FS("cat", "/home/lash/secret"), 1, "/home/lash/secret"},
    // a fault stops the call at once: no request for the last operand
    {F_AB "cat f bad f; echo after", "a\nb\n", FAULT, 125, NULL,
     "/home/lash/bad",
     "fs:write /home/lash/f\nfs:read /home/lash/f\nfs:read /home/lash/bad\n"},
    {"cd /; cat tmp", "", "strands-shell: cat: tmp: Is a directory\n", 1},
    {"cat -z f", "",
     "strands-shell: cat: invalid option -- 'z'\n"
     "Try 'cat --help' for more information.\n",
     1},
    {"cat -nz f", "",
     "strands-shell: cat: invalid option -- 'z'\n"
     "Try 'cat --help' for more information.\n",
     1},
    {F_AB "cat -A f; cat -b f f", "a$\nb$\n     1\ta\n     2\tb\n     3\ta\n"
     "     4\tb\n", "", 0},
    {"cat -v secret", "", DENIED_FS("cat", "/home/lash/secret"), 1,
     "/home/lash/secret"},
    {F_AB "cat -s f >&-", "", BADFD("cat"), 1},
    {F_AB "cat f >&-", "", BADFD("cat"), 1},
    {F_AB "cat -n f >&-", "", BADFD("cat"), 1},
    // the reader leaves: cat ends quietly, the pipeline with head's status
    {"while :; do echo y; done | cat | head -n 2", "y\ny\n", "", 0},
    {"while :; do echo y; done | cat -n | head -n 1", "     1\ty\n", "", 0},
    {F_MANY "cat -n f | wc -l; cat -n f | tail -n 1; cat f f | wc -c",
     "16384\n 16384\tabcdefgh\n294912\n", "", 0},
    // every operand is one fs:read request; stdin is none
    {"cat f; printf 'x\\n' | cat - g", "x\n",
     NOFILE("cat", "f") NOFILE("cat", "g"), 1, NULL, NULL,
     "fs:read /home/lash/f\nfs:read /home/lash/g\n"},

    // ---- head ----
    {F_12 "head t", "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n", "", 0},
    {F_12 "head -n 3 t; head -n2 t", "1\n2\n3\n1\n2\n", "", 0},
    {F_12 "head -n +2 t; head -n 0 t", "1\n2\n", "", 0},
    {F_12 "head -n 99999999999999999999999 t | wc -l", "0\n",
     "strands-shell: head: invalid number of lines: "
     LQ "99999999999999999999999" RQ ": Value too large "
     "for defined data type\n",
     0},
    {"printf 'a\\nb\\nc\\n' | head -n 2", "a\nb\n", "", 0},
    {F_AB F_G "head -n 1 f g", "==> f <==\na\n\n==> g <==\nc\n", "", 0},
    {F_AB "printf 'x\\ny\\n' | head -n 1 - f",
     "==> standard input <==\nx\n\n==> f <==\na\n", "", 0},
    {F_AB F_G "head -n 1 f nofile g", "==> f <==\na\n\n==> g <==\nc\n",
     "strands-shell: head: cannot open 'nofile' for reading: No such file "
     "or directory\n",
     1},
    {F_AB F_G "head -n 1 f secret g", "==> f <==\na\n\n==> g <==\nc\n",
     DENIED_FS("head", "/home/lash/secret"), 1, "/home/lash/secret"},
    {F_AB F_G "head -n 1 f bad g; echo after", "==> f <==\na\n", FAULT, 125,
     NULL, "/home/lash/bad"},
    {"printf 'a\\nb' > f; head -n 5 f", "a\nb", "", 0},
    {"printf '' > e; head e; echo $?", "0\n", "", 0},
    {"while :; do echo y; done | head -n 2", "y\ny\n", "", 0},
    {"while :; do echo y; done | head -n 1 | cat -n", "     1\ty\n", "", 0},
    {F_AB "head -n x f", "",
     "strands-shell: head: invalid number of lines: "
     LQ "x" RQ "\n",
     1},
    {F_AB "head -n '' f", "",
     "strands-shell: head: invalid number of lines: "
     LQ RQ "\n",
     1},
    {F_AB "head -n -1 f", "a\n", "", 0}, // all but the last line
    {F_AB "head -n 1x f", "",
     "strands-shell: head: invalid number of lines: "
     LQ "1x" RQ "\n",
     1},
    {F_AB "head -n", "",
     "strands-shell: head: option requires an argument -- 'n'\n"
     "Try 'head --help' for more information.\n",
     1},
    {F_AB "head -c 1 f", "a", "", 0},
    {F_AB "head -k f", "",
     "strands-shell: head: invalid option -- 'k'\n"
     "Try 'head --help' for more information.\n",
     1},
    {F_AB "head -n 1 f >&-", "", BADFD("head"), 1},
    {F_MANY "head -n 16383 f | wc -l", "16383\n", "", 0},

    // ---- tail ----
    {F_12 "tail t", "3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n", "", 0},
    {F_12 "tail -n 2 t; tail -n2 t; tail -n -1 t", "11\n12\n11\n12\n12\n", "",
     0},
    {F_12 "tail -n +11 t; tail -n +0 t | wc -l; tail -n +1 t | wc -l",
     "11\n12\n12\n12\n", "", 0},
    {F_12 "tail -n 0 t; tail -n +13 t; tail -n 50 t | wc -l", "12\n", "", 0},
    {F_12 "tail -n 99999999999999999999999 t | head -n 1", "",
     "strands-shell: tail: invalid number of lines: "
     LQ "99999999999999999999999" RQ ": Value too large for defined data "
     "type\n",
     0},
    {"printf 'a\\nb\\nc\\n' | tail -n 2", "b\nc\n", "", 0},
    {"printf 'a\\nb\\nc\\n' | tail -n +2", "b\nc\n", "", 0},
    {"printf 'a\\nb\\nc' > f; tail -n 2 f; tail -n +3 f", "b\ncc", "", 0},
    {"printf 'a\\nb' | tail -n 1", "b", "", 0},
    {"printf '' > e; tail e; tail -n +2 e; echo $?", "0\n", "", 0},
    {F_AB F_G "tail -n 1 f g", "==> f <==\nb\n\n==> g <==\nc\n", "", 0},
    {F_AB "printf 'x\\ny\\n' | tail -n +2 f -",
     "==> f <==\nb\n\n==> standard input <==\ny\n", "", 0},
    {F_AB F_G "tail -n 1 f nofile g", "==> f <==\nb\n\n==> g <==\nc\n",
     "strands-shell: tail: cannot open 'nofile' for reading: No such file "
     "or directory\n",
     1},
    {F_AB F_G "tail -n 1 f secret g", "==> f <==\nb\n\n==> g <==\nc\n",
     DENIED_FS("tail", "/home/lash/secret"), 1, "/home/lash/secret"},
    {F_AB F_G "tail f bad g; echo after", "==> f <==\na\nb\n", FAULT, 125, NULL,
     "/home/lash/bad"},
    {"cd /; tail tmp", "", "strands-shell: tail: tmp: Is a directory\n", 1},
    // the ring wraps many times and grows past its first 16 slots
    {"i=0; while [ $i -lt 1000 ]; do i=$((i+1)); echo $i; done | tail -n 3",
     "998\n999\n1000\n", "", 0},
    {"i=0; while [ $i -lt 100 ]; do i=$((i+1)); echo $i; done | tail -n 20 | "
     "head -n 1",
     "81\n", "", 0},
    {F_MANY "tail -n 100 f | wc -l; tail -n +16384 f", "100\nabcdefgh\n", "",
     0},
    // one endless line: what tail holds is capped
    {"tail -n 1 /dev/zero", "",
     "strands-shell: tail: /dev/zero: lines too long to hold (limit 32 "
     "MiB)\n",
     1},
    {F_AB "tail -n x f", "",
     "strands-shell: tail: invalid number of lines: " LQ "x" RQ "\n", 1},
    {F_AB "tail -n + f", "",
     "strands-shell: tail: invalid number of lines: " LQ "+" RQ "\n", 1},
    {F_AB "tail -n +-1 f", "",
     "strands-shell: tail: invalid number of lines: " LQ "+-1" RQ "\n", 1},
    {F_AB "tail -f f", "",
     "strands-shell: tail: -f: following a file is not supported in this "
     "box (a call's output ends with the call)\n",
     1},
    {F_AB "tail -n 1 f >&-", "", BADFD("tail"), 1},

    // ---- wc ----
    {"printf 'a b\\nc\\n' > f; wc f", "2 3 6 f\n", "", 0},
    {"printf 'a b\\nc\\n' > f; wc -l f; wc -w f; wc -c f; wc -lc f; wc -cwl f",
     "2 f\n3 f\n6 f\n2 6 f\n2 3 6 f\n", "", 0},
    {"printf 'a\\nb\\n' | wc -l", "2\n", "", 0},
    // GNU's widths: 7 for a pipe, else the digits of the files' sizes
    {"printf 'hello world\\n' | wc", "      1       2      12\n", "", 0},
    {"printf 'x\\n' | wc -l -", "1 -\n", "", 0},
    {"printf 'a b\\nc\\n' > f; printf '0123456789\\n' > g; wc f g",
     " 2  3  6 f\n 1  1 11 g\n 3  4 17 total\n", "", 0},
    {"printf 'a b\\nc\\n' > f; printf 'x\\n' | wc -w f - f",
     "      3 f\n      1 -\n      3 f\n      7 total\n", "", 0},
    {"printf 'a b\\nc\\n' > f; wc -l f nofile", "2 f\n2 total\n",
     NOFILE("wc", "nofile"), 1},
    {"printf 'a b\\nc\\n' > f; wc -l secret f", "2 f\n2 total\n",
     DENIED_FS("wc", "/home/lash/secret"), 1, "/home/lash/secret"},
    {"printf 'a b\\nc\\n' > f; wc -l f bad f; echo after", "", FAULT, 125, NULL,
     "/home/lash/bad"},
    {"printf 'a b' | wc", "      0       2       3\n", "", 0},
    {"printf '' | wc; printf '' > e; wc -l e", "      0       0       0\n0 e\n",
     "", 0},
    {"printf ' a\\tb\\n\\n  c \\v\\f\\r d ' | wc -w", "4\n", "", 0},
    // GNU prints the (zero) counts of an unreadable directory too
    {"cd /; wc tmp", "      0       0       0 tmp\n",
     "strands-shell: wc: tmp: Is a directory\n", 1},
    // endless input: the cooperative timeout still ends the loops
    {"wc -c /dev/zero", "", TIMEOUT, 1, NULL, NULL, NULL, 200},
    {"cat /dev/zero > /dev/null", "", TIMEOUT, 1, NULL, NULL, NULL, 200},
    {"cat -n /dev/zero > /dev/null", "", TIMEOUT, 1, NULL, NULL, NULL, 200},
    {"tail -n +2 /dev/zero > /dev/null", "", TIMEOUT, 1, NULL, NULL, NULL, 200},
    // base64 and the digests read through the kernel: a denial names
    // the file (and the digests go on with the others)
    {"printf 'ab' > f; base64 secret; echo $?; base64 f", "1\nYWI=\n",
     DENIED_FS("base64", "/home/lash/secret"), 0, "/home/lash/secret"},
    {"printf 'abc' > f; md5sum secret f",
     "900150983cd24fb0d6963f7d28e17f72  f\n",
     DENIED_FS("md5sum", "/home/lash/secret"), 1, "/home/lash/secret"},
    {"printf 'abc' > f; md5sum f > s; md5sum -c s secret",
     "f: OK\n", DENIED_FS("md5sum", "/home/lash/secret"), 1,
     "/home/lash/secret"},
    {"md5sum bad; echo after", "", FAULT, 125, NULL, "/home/lash/bad"},
    {"wc -z f", "",
     "strands-shell: wc: invalid option -- 'z'\n"
     "Try 'wc --help' for more information.\n",
     1},
    {"printf 'ab\\tc\\n\\303\\251\\n' | wc -mL", "      7       9\n", "", 0},
    {"printf 'a b\\nc\\n' > f; wc -w --files0-from=secret", "",
     DENIED_FS("wc", "/home/lash/secret"), 1, "/home/lash/secret"},
    {"printf 'a\\n' | wc -l >&-", "", BADFD("wc"), 1},
    {"while :; do echo y; done | head -n 1000 | wc -l", "1000\n", "", 0},
    {F_MANY "wc f; wc -c f f",
     " 16384  16384 147456 f\n147456 f\n147456 f\n"
     "294912 total\n",
     "", 0},

    // ---- long lines: over the 64 KiB input chunk (2^13 * 16 bytes) ----
    {S_POW(13) "printf '%s\\nx\\ny' $s > big; wc big; cat big | wc -c; "
               "cat -n big | wc -c; head -n 1 big | wc -c; "
               "tail -n 2 big | wc -c; tail -n 3 big | wc -c; tail -n +2 big; "
               "echo",
     "     2      3 131076 big\n131076\n131097\n131073\n3\n131076\nx\ny\n", "",
     0},
    // ... and over SH_LINE_MAX (1 MiB), where lines come in pieces (a
    // word may not reach 1 MiB: the line is three 512 KiB words)
    {S_POW(15) "printf '%s' $s > big; printf '%s' $s >> big; "
               "printf '%s\\nx\\n' $s >> big; head -n 1 big | wc -c; "
               "tail -n 2 big | wc -c; tail -n 1 big; cat -n big | wc -c; "
               "tail -n +2 big; wc -l big",
     "1572865\n1572867\nx\n1572881\nx\n2 big\n", "", 0},
};

static void
test_cases(void **state)
{
    (void)state;
    tcase_run_all(cases, NELEM(cases));
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
