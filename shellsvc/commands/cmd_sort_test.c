/* SPDX-License-Identifier: Apache-2.0 */
/* Table tests of sort and uniq where the box is not bash: policy
 * denials and faults, the order of fs requests, fd 1 closed, timeouts,
 * lines past SH_LINE_MAX (the rest is tests/shell's differential cases). */
#include "sh_test_harness.h"

// Table rows leave trailing fields out.
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"

#define DENIED_FS(what, p)                                                     \
    "strands-shell: " what ": policy denied this operation on '" p             \
    "' [default-deny]: No permit policy matched this request.\n"
#define FAULT                                                                  \
    "strands-shell: effect interception failed: the policy decision point "    \
    "did not answer\n"
#define TIMEOUT "strands-shell: execution timeout exceeded\n"

#define F_AB "printf 'b\\na\\n' > f; " // f: 2 lines, out of order
// 2^14 lines of "abcdefgh\n" (147456 bytes) in f, by doubling.
#define F_MANY                                                                 \
    "printf 'abcdefgh\\n' > f; i=0; while [ $i -lt 14 ]; do cat f f > g; "     \
    "cat g > f; i=$((i+1)); done; "
// $s: a 16 * 2^k byte word, by doubling.
#define S_POW(k)                                                               \
    "s=0123456789abcdef; i=0; while [ $i -lt " #k " ]; do s=$s$s; "            \
    "i=$((i+1)); done; "

typedef struct tcase {
    const char *script;
    const char *out, *err;
    int status;
    const char *deny_fs, *fault_fs; // th_deny_fs / th_fault_fs
    const char *fslog;              // "action path" lines; NULL: not checked
    unsigned timeout_ms;
} tcase;

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

/*
 * The fs log as "action path" lines. The operation field is left out:
 * the harness prints the operation as a string, but the kernel sends it
 * as an entity (sh_kernel.c decide()), so that field is not text.
 */
static bool
fslog_match(const box_buf *log, const char *want)
{
    box_buf b;
    box_buf_init(&b, 1u << 22);
    bool ok = true;
    for (const char *p = th_s(log); *p != '\0' && ok;) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        const char *sp1 = memchr(p, ' ', n);
        const char *sp2 = p + n;
        while (sp2 > p && sp2[-1] != ' ')
            sp2--;
        ok = sp1 != NULL &&
             box_buf_append(&b, p, (size_t)(sp1 - p) + 1) == BOX_OK &&
             box_buf_append(&b, sp2, (size_t)(p + n - sp2)) == BOX_OK &&
             box_buf_putc(&b, '\n') == BOX_OK;
        p += n + (nl ? 1 : 0);
    }
    ok = ok && strcmp(th_s(&b), want) == 0;
    box_buf_reset(&b);
    return ok;
}

static void
test_cases(void **state)
{
    size_t bad = 0;
    for (size_t i = 0; i < NELEM(cases); i++) {
        const tcase *c = &cases[i];
        th t = {.th_deny_fs = c->deny_fs, .th_fault_fs = c->fault_fs};
        int st = th_run(&t, c->script, c->timeout_ms);
        bool ok = st == c->status && strcmp(th_s(&t.th_out), c->out) == 0 &&
                  strcmp(th_s(&t.th_err), c->err) == 0 &&
                  (c->fslog == NULL || fslog_match(&t.th_fslog, c->fslog));
        if (!ok) {
            print_error("case %zu: %s\n  status %d (want %d)\n  out [%.300s] "
                        "(want [%.300s])\n  err [%s] (want [%s])\n"
                        "  fslog [%s]\n",
                        i, c->script, st, c->status, th_s(&t.th_out), c->out,
                        th_s(&t.th_err), c->err, th_s(&t.th_fslog));
        }
        th_reset(&t);
        bad += !ok;
    }
    assert_int_equal(bad, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cases),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
