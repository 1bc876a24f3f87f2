/* SPDX-License-Identifier: Apache-2.0 */
/* Table tests of expr, factor, shuf, join, fmt, expand, unexpand and
 * column: policy denials and faults on their files (inputs, --random-source,
 * -o), and bad input, none of which the bash differential can show. */
#include "cmd_test_table.h"

// Table rows leave trailing fields out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define LQ "\xe2\x80\x98"
#define RQ "\xe2\x80\x99"
#define SECRET "/home/lash/secret"
#define NOFILE(cmd, f)                                                         \
    "strands-shell: " cmd ": " f ": No such file or directory\n"

// f: two lines of a key and a word; g: one line.
#define F_F "printf '1 a\\n2 b\\n' > f; "
#define F_G "printf '1 x\\n' > g; "

static const tcase cases[] = {
    // ---- expr: bad input, clear messages, GNU's statuses ----
    {"expr 1 / 0", "", "strands-shell: expr: division by zero\n", 2},
    {"expr a + 1", "", "strands-shell: expr: non-integer argument\n", 2},
    {"expr", "",
     "strands-shell: expr: missing operand\n"
     "Try 'expr --help' for more information.\n",
     2},
    {"expr 1 + 2 3", "",
     "strands-shell: expr: syntax error: unexpected argument " LQ "3" RQ "\n",
     2},
    {"expr abc : 'a\\('", "", "strands-shell: expr: Unmatched ( or \\(\n", 2},
    {"expr 0; echo $?", "0\n1\n", "", 0},
    {"expr 99999999999999999999 \\* 99999999999999999999",
     "9999999999999999999800000000000000000001\n", "", 0},
    // nothing of expr touches a file
    {"expr length abc", "3\n", "", 0, NULL, NULL, ""},
    // an output that is closed: the status of the write
    {"expr 1 + 1 >&-; echo $?", "3\n",
     "strands-shell: expr: write error: Bad file descriptor\n", 0},
    {"factor 6 >&-; echo $?", "1\n",
     "strands-shell: factor: write error: Bad file descriptor\n", 0},

    // ---- factor ----
    {"factor x 6; echo $?", "6: 2 3\n1\n",
     "strands-shell: factor: " LQ "x" RQ " is not a valid positive integer\n",
     0},
    // past 2^128-1 (GMP): a long split stops with the call's clock
    {"timeout 0.3 factor 340282366920938463463374607431768211457 3; echo $?",
     "124\n", "", 0},
    {"printf '4 y 9' | factor", "4: 2 2\n9: 3 3\n",
     "strands-shell: factor: " LQ "y" RQ " is not a valid positive integer\n",
     1},

    // ---- expand / unexpand: a denied operand, the others go on ----
    {"printf 'a\\tb\\n' > f; expand f secret f; echo $?",
     "a       b\na       b\n1\n", DENIED_FS("expand", SECRET), 0, SECRET},
    {"printf 'a       b\\n' > f; unexpand -a f secret; echo $?", "a\tb\n1\n",
     DENIED_FS("unexpand", SECRET), 0, SECRET},
    // a fault ends the call: the last operand is never asked for
    {"printf 'a\\tb\\n' > f; expand f bad f; echo after", "a       b\n", FAULT,
     125, NULL, "/home/lash/bad",
     "fs:write /home/lash/f\nfs:read /home/lash/f\nfs:read /home/lash/bad\n"},
    {"expand -t 0 f", "", "strands-shell: expand: tab size cannot be 0\n", 1,
     NULL, NULL, ""},
    {"unexpand -t 4,2 f", "",
     "strands-shell: unexpand: tab sizes must be ascending\n", 1},

    // ---- join: GNU stops at the first file it cannot open ----
    {F_F "join f secret; echo $?", "1\n", DENIED_FS("join", SECRET), 0, SECRET},
    {F_F "join secret f; echo $?", "1\n", DENIED_FS("join", SECRET), 0, SECRET,
     NULL, "fs:write /home/lash/f\nfs:read " SECRET "\n"},
    {F_F F_G "join f g", "1 a x\n", "", 0},
    {F_F "join -o 3.1 f f", "",
     "strands-shell: join: invalid file number in field spec: " LQ "3.1" RQ
     "\n",
     1, NULL, NULL, "fs:write /home/lash/f\n"},
    {F_F "join f bad", "", FAULT, 125, NULL, "/home/lash/bad"},

    // ---- fmt ----
    {"printf 'a\\nb\\n' > f; fmt f secret f; echo $?", "a b\na b\n1\n",
     DENIED_FS("fmt", SECRET), 0, SECRET},
    {"fmt -w x f", "", "strands-shell: fmt: invalid width: " LQ "x" RQ "\n", 1,
     NULL, NULL, ""},

    // ---- column: util-linux goes on, a table that got lines ends 0 ----
    {F_F "column -t f secret; echo $?", "1  a\n2  b\n0\n",
     DENIED_FS("column", SECRET), 0, SECRET},
    {F_F "column f secret >/dev/null; echo $?", "1\n",
     DENIED_FS("column", SECRET), 0, SECRET},
    {F_F "column -c x f", "",
     "strands-shell: column: invalid columns argument: 'x'\n", 1},
    {F_F "column -J f", "",
     "strands-shell: column: option -J is not supported by the box's column "
     "(tables: -t -s -o -N -R -d -L)\n",
     1},

    // ---- shuf: the random source and -o are decided ----
    {F_F "shuf --random-source=secret f; echo $?", "1\n",
     DENIED_FS("shuf", SECRET), 0, SECRET},
    {F_F "shuf --random-source=bad f", "", FAULT, 125, NULL, "/home/lash/bad"},
    // -o to a denied file writes nothing and leaves it as it was
    {F_F "shuf -o secret f; echo $?", "1\n", DENIED_FS("shuf", SECRET), 0,
     SECRET},
    {F_F "shuf secret; echo $?", "1\n", DENIED_FS("shuf", SECRET), 0, SECRET},
    // -o onto its own input: read whole first, then written
    {F_F "shuf -o f f; sort f", "1 a\n2 b\n", "", 0},
    {"printf 'ab' > r; shuf --random-source=r -i 1-1000; echo $?", "1\n",
     "strands-shell: shuf: " LQ "r" RQ ": end of file\n", 0},
    {"shuf -i 1-0 -r; echo $?", "1\n",
     "strands-shell: shuf: no lines to repeat\n", 0},
    // -r with no count ends with its reader
    {"shuf -r -e a | head -n 2", "a\na\n", "", 0},
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
