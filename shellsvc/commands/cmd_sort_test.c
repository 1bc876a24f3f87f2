/* SPDX-License-Identifier: Apache-2.0 */
/* Table tests of sort and uniq where the box is not bash: policy
 * denials and faults, the order of fs requests, fd 1 closed, timeouts,
 * lines past SH_LINE_MAX (the rest is tests/shell's differential cases). */
#include "cmd_test_table.h"

// Table rows leave trailing fields out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define F_AB "printf 'b\\na\\n' > f; " // f: 2 lines, out of order

static const tcase cases[] = {
    // ---- sort ----
    // every input is opened before any is read: a denied one means no
    // output at all, status 2
    {F_AB "sort f secret; echo $?", "2\n",
     DENIED_FS("sort: cannot read", "/home/lash/secret"), 0,
     "/home/lash/secret"},
    {F_AB "sort f bad f; echo after", "", FAULT, 125, NULL, "/home/lash/bad",
     "fs:write /home/lash/f\nfs:read /home/lash/f\nfs:read /home/lash/bad\n"},
    // -o FILE is opened once the inputs are read (so FILE may be one)
    {F_AB "sort -o secret f; echo $?", "2\n",
     DENIED_FS("sort: open failed", "/home/lash/secret"), 0,
     "/home/lash/secret", NULL,
     "fs:write /home/lash/f\nfs:read /home/lash/f\n"
     "fs:write /home/lash/secret\n"},
    {F_AB "sort -o bad f; echo after", "", FAULT, 125, NULL, "/home/lash/bad"},
    {F_AB "sort -o f f; cat f", "a\nb\n", "", 0},
    {F_AB "sort -c secret; echo $?", "2\n",
     DENIED_FS("sort: cannot read", "/home/lash/secret"), 0,
     "/home/lash/secret"},
    {F_AB "sort --files0-from=secret; echo $?", "2\n",
     DENIED_FS("sort: open failed", "/home/lash/secret"), 0,
     "/home/lash/secret"},
    {F_AB "sort f >&-; echo $?", "2\n",
     "strands-shell: sort: fflush failed: 'standard output': Bad file "
     "descriptor\nstrands-shell: sort: write error\n",
     0},
    // -c ends at the first disorder, so an endless writer ends too
    {"while :; do echo y; done | sort -Cu; echo $?", "1\n", "", 0},
    {"while :; do echo y; done | sort", "", TIMEOUT, 1, NULL, NULL, NULL, 200},
    {F_MANY "sort -r f | head -n 1; sort f | wc -l; sort -u f",
     "abcdefgh\n16384\nabcdefgh\n", "", 0},
    // lines past SH_LINE_MAX (1 MiB) stay whole (each is a 512 KiB
    // word twice: a word may not reach 1 MiB)
    {S_POW(15) "printf '%s' $s > w; cat w w > big; printf '\\nb\\n' >> big; "
               "cat w w >> big; printf '\\na\\n' >> big; "
               "sort big | wc -l; sort -u big | wc -c; sort big | tail -n 2; "
               "sort -C big; echo $?",
     "4\n1048581\na\nb\n1\n", "", 0},

    // ---- uniq ----
    {F_AB "uniq secret; echo $?", "1\n", DENIED_FS("uniq", "/home/lash/secret"),
     0, "/home/lash/secret"},
    {F_AB "uniq f secret; echo $?", "1\n",
     DENIED_FS("uniq", "/home/lash/secret"), 0, "/home/lash/secret"},
    {F_AB "uniq bad; echo after", "", FAULT, 125, NULL, "/home/lash/bad"},
    {F_AB "uniq f bad; echo after", "", FAULT, 125, NULL, "/home/lash/bad"},
    {F_AB "uniq f out; cat out", "b\na\n", "", 0},
    {F_AB "uniq f >&-; echo $?", "1\n",
     "strands-shell: uniq: write error: Bad file descriptor\n", 0},
    // the reader leaves: uniq ends quietly
    {"while :; do echo y; echo z; done | uniq | head -n 3", "y\nz\ny\n", "", 0},
    {"while :; do echo y; done | uniq", "", TIMEOUT, 1, NULL, NULL, NULL, 200},
    {"cd /; uniq tmp; echo $?", "1\n",
     "strands-shell: uniq: error reading 'tmp'\n", 0},
    {F_MANY "uniq -c f", "  16384 abcdefgh\n", "", 0},
    {S_POW(15) "printf '%s' $s > w; cat w w > big; printf '\\n' >> big; "
               "cat w w >> big; printf '\\nx' >> big; "
               "uniq -c big | wc -c; uniq -d big | wc -c",
     "1048595\n1048577\n", "", 0},
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
