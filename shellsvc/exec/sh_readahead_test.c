/* SPDX-License-Identifier: Apache-2.0 */
/* The block a stream reads ahead of a host file: served while nothing can
 * have changed it, and never for long (sh_io.c file_pread). */
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <sys/stat.h>

#include "sh_kernel.h"
#include "sh_test_harness.h"

typedef struct ra {
    th r_th;
    char r_dir[PATH_MAX];
    char r_file[PATH_MAX + 8];
    int r_scribbles; // writes made from outside the call
} ra;

/* th_decide, and `true SCRIBBLE` writes "X\nY\n" over the file's bytes
 * 2..5 from outside the call (as another process would), unseen by the
 * call's kernel. */
static box_verdict
ra_decide(void *arg, const Box__DecisionRequest *rq, char **msg,
          box_ticket *ticket)
{
    ra *r = arg;
    const Box__Value *a1 = th_field(rq, "arg1");
    if (strcmp(rq->action, "shell:exec") == 0 && a1 != NULL &&
        strcmp(a1->str, "SCRIBBLE") == 0) {
        int fd = open(r->r_file, O_WRONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(pwrite(fd, "X\nY\n", 4, 2), 4);
        close(fd);
        r->r_scribbles++;
    }
    return th_decide(&r->r_th, rq, msg, ticket);
}

static int
rm_entry(const char *p, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)ftw;
    return flag == FTW_DP ? rmdir(p) : unlink(p);
}

/* Runs script in the bound directory, whose file f holds text. */
static int
ra_run(ra *r, const char *text, const char *script)
{
    char tmpl[] = "/tmp/sh_readahead_test.XXXXXX";
    assert_non_null(mkdtemp(tmpl));
    assert_non_null(realpath(tmpl, r->r_dir));
    snprintf(r->r_file, sizeof r->r_file, "%s/f", r->r_dir);
    int fd = open(r->r_file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
    const char *binds[] = {r->r_dir};
    sh_kernel_opts ko = {.ko_binds = binds,
                         .ko_nbinds = 1,
                         .ko_decide = ra_decide,
                         .ko_decide_arg = r};
    sh_kernel *k = NULL;
    assert_int_equal(sh_kernel_new(&ko, &k), BOX_OK);
    box_buf_init(&r->r_th.th_out, 1u << 20);
    box_buf_init(&r->r_th.th_err, 1u << 20);
    box_buf_init(&r->r_th.th_log, 1u << 20);
    box_buf_init(&r->r_th.th_fslog, 1u << 20);
    sh_session_opts o = {.so_decide = ra_decide,
                         .so_decide_arg = r,
                         .so_out = th_out,
                         .so_err = th_err,
                         .so_io_arg = &r->r_th,
                         .so_kernel = k,
                         .so_cwd = r->r_dir};
    sh_session *ss = sh_session_new(&o);
    assert_non_null(ss);
    int st = sh_session_run(ss, script, strlen(script));
    sh_session_free(ss);
    sh_kernel_free(k);
    assert_int_equal(nftw(r->r_dir, rm_entry, 8, FTW_DEPTH | FTW_PHYS), 0);
    return st;
}

/* A write from outside the call, made after the block was read, is seen
 * by a read that comes later than the block may be trusted (1 ms). */
static void
test_outside_write_seen_later(void **state)
{
    (void)state;
    ra r = {0};
    int st = ra_run(&r, "1\n2\n3\n",
                    "exec 3<f; read -r a <&3; true SCRIBBLE; sleep 0.02\n"
                    "read -r b <&3; read -r c <&3; echo \"$a$b$c\"\n");
    assert_int_equal(st, 0);
    assert_int_equal(r.r_scribbles, 1);
    assert_string_equal(th_s(&r.r_th.th_out), "1XY\n");
    th_reset(&r.r_th);
}

/* Lines read through the block, across its ends and past a line longer
 * than it, are the file's, and what a `read` left is the next reader's. */
static void
test_lines_across_blocks(void **state)
{
    (void)state;
    box_buf text;
    box_buf_init(&text, 1u << 20);
    for (int i = 0; i < 2000; i++)
        assert_int_equal(box_buf_printf(&text, "line %d\n", i), BOX_OK);
    for (int i = 0; i < 9000; i++)
        assert_int_equal(box_buf_putc(&text, 'z'), BOX_OK);
    assert_int_equal(box_buf_printf(&text, "\nlast\n"), BOX_OK);
    ra r = {0};
    int st = ra_run(&r, th_s(&text),
                    "n=0; s=0; while read -r w k; do n=$((n+1)); "
                    "s=$((s+${#k})); [ $n = 1000 ] && break; done < f; "
                    "echo $n $s; { for i in {1..1500}; do read -r l; done; "
                    "echo \"$l\"; head -n 500 | tail -n 1; read -r z; "
                    "echo ${#z}; cat; } < f\n");
    assert_int_equal(st, 0);
    assert_string_equal(th_s(&r.r_th.th_out),
                        "1000 2890\nline 1499\nline 1999\n9000\nlast\n");
    th_reset(&r.r_th);
    box_buf_reset(&text);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_outside_write_seen_later),
        cmocka_unit_test(test_lines_across_blocks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
