/* SPDX-License-Identifier: Apache-2.0 */
/* Table tests of od, xxd, hexdump, strings, cksum and sum: what the bash
 * differential cannot show (policy denials and faults, the refusals the
 * box adds) and their answers to bad input. */
#include "cmd_test_table.h"

// Table rows leave trailing fields out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define LQ "\xe2\x80\x98"
#define RQ "\xe2\x80\x99"
#define SECRET "/home/lash/secret"
#define F_AB "printf 'ab' > f; "

static const tcase cases[] = {
    // ---- od: operands are one input; a denied one is skipped ----
    {F_AB "od -c f secret f", "0000000   a   b   a   b\n0000004\n",
     DENIED_FS("od", SECRET), 1, SECRET},
    {F_AB "od -c secret; echo $?", "0000000\n1\n", DENIED_FS("od", SECRET), 0,
     SECRET},
    // a fault ends the call: nothing more is read or run
    {F_AB "od -c f bad f; echo after", "", FAULT, 125, NULL, "/home/lash/bad"},
    {"od -t q /dev/null", "",
     "strands-shell: od: invalid character 'q' in type string " LQ "q" RQ "\n",
     1},
    {"od -t x3 /dev/null", "",
     "strands-shell: od: invalid type string " LQ "x3" RQ ";\n"
     "this system doesn't provide a 3-byte integral type\n",
     1},
    {"od -t f2 /dev/null", "",
     "strands-shell: od: invalid type string " LQ "f2" RQ ";\n"
     "this system doesn't provide a 2-byte floating point type\n",
     1},
    {"od -A z /dev/null", "",
     "strands-shell: od: invalid output address radix 'z'; it must be one "
     "character from [doxn]\n",
     1},
    {"od -j x /dev/null", "", "strands-shell: od: invalid -j argument 'x'\n",
     1},
    {F_AB "od -j 3 f", "",
     "strands-shell: od: cannot skip past end of combined input\n", 1},
    {"od -S 3 /dev/null", "",
     "strands-shell: od: -S (strings) is not supported by this od; use "
     "strings -n\n",
     1},

    // ---- xxd: the input decided as a read, the output file as a write ----
    {"xxd secret; echo $?", "2\n", DENIED_FS("xxd", SECRET), 0, SECRET},
    // the denied output is not made: nothing written, fs log shows no
    // second write
    {F_AB "xxd f secret; echo $?", "3\n", DENIED_FS("xxd", SECRET), 0, SECRET,
     NULL,
     "fs:write /home/lash/f\nfs:read /home/lash/f\nfs:write "
     "/home/lash/secret\n"},
    {F_AB "xxd -p f > h; xxd -r -p h secret; echo $?", "3\n",
     DENIED_FS("xxd", SECRET), 0, SECRET},
    {F_AB "xxd f bad; echo after", "", FAULT, 125, NULL, "/home/lash/bad"},
    // -r on garbage reads it as xxd does: hex pairs found by chance
    {"printf 'garbage\\nmore\\n' | xxd -r | xxd -p", "00000000000000000000ba\n",
     "", 0},
    {"printf 'zz\\n' | xxd -r -p | wc -c", "0\n", "", 0},
    {"printf '10: 41\\n0: 42\\n' | xxd -r > o; echo $?; xxd -p o",
     "5\n0000000000000000000000000000000041\n",
     "strands-shell: xxd: Sorry, cannot seek backwards.\n", 0},
    {"printf abc | xxd -s 10; echo $?", "4\n",
     "strands-shell: xxd: Sorry, cannot seek.\n", 0},
    {"xxd -e -g 3 /dev/null; echo $?", "1\n",
     "strands-shell: xxd: number of octets per group must be a power of 2 "
     "with -e.\n",
     0},
    {"xxd -c 300 /dev/null; echo $?", "1\n",
     "strands-shell: xxd: invalid number of columns (max. 256).\n", 0},
    {"xxd -E /dev/null; echo $?", "1\n",
     "strands-shell: xxd: -E (EBCDIC) is not supported here\n", 0},
    {"xxd -s -3 /dev/null; echo $?", "1\n",
     "strands-shell: xxd: -s with a negative offset is not supported here\n",
     0},

    // ---- hexdump ----
    {F_AB "hexdump -C f secret f",
     "00000000  61 62 61 62                                       |abab|\n"
     "00000004\n",
     DENIED_FS("hexdump", SECRET), 1, SECRET},
    {"hexdump secret", "",
     DENIED_FS(
         "hexdump",
         SECRET) "strands-shell: hexdump: all input file arguments failed\n",
     1, SECRET},
    {F_AB "hexdump -e '\"%x\"' f", "",
     "strands-shell: hexdump: -e: format strings are not supported by the "
     "box's hexdump; use -C, -x or od -t\n",
     1},
    {"hexdump -n x /dev/null", "",
     "strands-shell: hexdump: failed to parse length: 'x': Invalid "
     "argument\n",
     1},

    // ---- strings ----
    {"printf 'hello\\0' > f; strings f secret f", "hello\nhello\n",
     DENIED_FS("strings", SECRET), 1, SECRET},
    {"printf 'hello' > f; strings -e l f", "",
     "strands-shell: strings: -e l: 16- and 32-bit encodings are not "
     "supported by the box's strings; use -e s or -e S\n",
     1},
    {"strings nofile; echo $?", "1\n",
     "strands-shell: strings: 'nofile': No such file\n", 0},
    {"strings -n 0 /dev/null", "",
     "strands-shell: strings: invalid minimum string length 0\n", 1},

    // ---- cksum, sum ----
    {F_AB "cksum f secret f", "2072780115 2 f\n2072780115 2 f\n",
     DENIED_FS("cksum", SECRET), 1, SECRET},
    {F_AB "cksum -a md5 secret f",
     "MD5 (f) = 187ef4436122d1cc2f40dc2b92f0eba0\n", DENIED_FS("cksum", SECRET),
     1, SECRET},
    {F_AB "cksum -a md5 f > s; printf 'MD5 (secret) = "
          "187ef4436122d1cc2f40dc2b92f0eba0\\n' >> s; cksum -c s",
     "f: OK\nsecret: FAILED open or read\n",
     DENIED_FS("cksum", SECRET) "strands-shell: cksum: WARNING: 1 listed file "
                                "could not be read\n",
     1, SECRET},
    {F_AB "sum f secret", "32914     1 f\n", DENIED_FS("sum", SECRET), 1,
     SECRET},
    {F_AB "cksum -a blake2b -l 12 f", "",
     "strands-shell: cksum: invalid length: " LQ "12" RQ "\n"
     "strands-shell: cksum: length is not a multiple of 8\n",
     1},
    {F_AB "cksum -a crc -c f", "",
     "strands-shell: cksum: --check is not supported with "
     "--algorithm={bsd,sysv,crc}\n",
     1},
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
