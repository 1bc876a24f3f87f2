/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: the row table the command tests share (script -> stdout,
 * stderr, status, and the fs requests made), its runner, and the
 * messages rows expect. */
#ifndef CMD_TEST_TABLE_H
#define CMD_TEST_TABLE_H

#include "sh_test_harness.h"

#define DENIED_FS(cmd, p)                                                      \
    "strands-shell: " cmd ": policy denied this operation on '" p              \
    "' [default-deny]: No permit policy matched this request.\n"
#define FAULT                                                                  \
    "strands-shell: effect interception failed: the policy decision point "    \
    "did not answer\n"
#define TIMEOUT "strands-shell: execution timeout exceeded\n"

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

/*
 * The fs log as "action path" lines. The operation field is left out:
 * the harness prints the operation as a string, but the kernel sends it
 * as an entity (sh_kernel.c decide()), so that field is not text.
 */
static inline bool
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

/* Whether row i's run (status st, output in t) is what the row wants;
 * a row that is not is printed. Every table runner checks with this. */
static inline bool
tcase_check(size_t i, const char *script, int st, const th *t, int status,
            const char *out, const char *err)
{
    bool ok = st == status && strcmp(th_s(&t->th_out), out) == 0 &&
              strcmp(th_s(&t->th_err), err) == 0;
    if (!ok)
        print_error("case %zu: %s\n  status %d (want %d)\n  out [%.300s] "
                    "(want [%.300s])\n  err [%s] (want [%s])\n",
                    i, script, st, status, th_s(&t->th_out), out,
                    th_s(&t->th_err), err);
    return ok;
}

/* Runs every row; a row that differs is printed, and the test fails
 * after all of them ran. */
static inline void
tcase_run_all(const tcase *cases, size_t n)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        const tcase *c = &cases[i];
        th t = {.th_deny_fs = c->deny_fs, .th_fault_fs = c->fault_fs};
        int st = th_run(&t, c->script, c->timeout_ms);
        bool ok = tcase_check(i, c->script, st, &t, c->status, c->out,
                              c->err);
        if (ok && c->fslog != NULL && !fslog_match(&t.th_fslog, c->fslog)) {
            print_error("case %zu: %s\n  fslog [%s]\n  (want [%s])\n", i,
                        c->script, th_s(&t.th_fslog), c->fslog);
            ok = false;
        }
        th_reset(&t);
        bad += !ok;
    }
    assert_int_equal(bad, 0);
}

#endif
