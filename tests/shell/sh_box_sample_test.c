/* SPDX-License-Identifier: Apache-2.0 */
/* A sample of the bash differential's cases through a real box (box-alias,
 * box-shell's broker and a worker, box-pdp): each must print exactly what
 * the box's shell prints in process (issue 19: `box sh` and the box agree). */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bash_case.h"
#include "bash_load.h"
#include "bash_run.h"
#include "box_bench_box.h"
#include "box_proc.h"
#include "box_test_require.h"
#include "sh_test_harness.h"

/*
 * Every SAMPLE_EVERY-th case that agrees with bash and whose text the two
 * runs see alike: not one that reads $HOME, ~ or a prompt's \w and \W
 * (which show the cwd under HOME as ~; the in-process session's
 * HOME is the case directory, the box's the agent's home; the directory
 * stack builtins print paths under it as ~), asks for stdin
 * (neither gets any, but bash's side of the case expects it), runs
 * background jobs or sleeps (timing), reads TZ (the in-process session's
 * environment sets it, the box's agent environment is its own) or looks
 * a user up with `id NAME` (the C library's database, which a confined
 * worker cannot reach: cmd_id.c), or runs `chmod -R` (which may take a
 * directory's search bit before it descends: the in-process session
 * runs as this test's user, root in CI, and passes anyway; a worker is
 * unprivileged and cannot, as GNU chmod run by a user cannot). Both run in the box's workspace,
 * emptied and filled with the case's files before each run, so paths in
 * messages agree; stdout, stderr and status must be the same bytes.
 */
#define SAMPLE_EVERY 7
#define SAMPLE_MIN 60

static const char *const skip_words[] = {
    "HOME", "~",    "dirs",   "pushd",   "popd", "&",  "sleep",
    "$$",   "PPID", "RANDOM", "SECONDS", "TZ",   "id ", "\\w", "\\W", "chmod -R"};

static bool
sampled(const bd_case *c, const bd_gaps *gs)
{
    if (bd_gaps_find(gs, c->bc_name) != NULL || c->bc_has_stdin)
        return false;
    for (size_t i = 0; i < NELEM(skip_words); i++)
        if (memmem(c->bc_script.t_data, c->bc_script.t_len, skip_words[i],
                   strlen(skip_words[i])) != NULL)
            return false;
    return true;
}

static int
rm_entry(const char *path, const struct stat *st, int type, struct FTW *f)
{
    (void)st;
    (void)type;
    if (f->level > 0 && remove(path) != 0 && errno != ENOENT)
        fail_msg("cannot remove %s: %s", path, strerror(errno));
    return 0;
}

/* The workspace emptied (it stays: the workers' Landlock rules hold its
 * inode) and filled with c's files, made in stage and moved in. */
static void
fill_workspace(const char *ws, const char *stage, const bd_case *c)
{
    char *err = NULL;
    nftw(ws, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    bd_dir_remove(stage);
    if (bd_dir_make(stage, c, &err) != BOX_OK)
        fail_msg("%s: %s", c->bc_origin, err);
    for (size_t i = 0; i < c->bc_nfiles; i++) {
        const char *path = c->bc_files[i].bf_path;
        size_t top = strcspn(path, "/");
        char from[PATH_MAX], to[PATH_MAX];
        snprintf(from, sizeof from, "%s/%.*s", stage, (int)top, path);
        snprintf(to, sizeof to, "%s/%.*s", ws, (int)top, path);
        if (rename(from, to) != 0 && errno != ENOENT)
            fail_msg("cannot move %s: %s", from, strerror(errno));
    }
    bd_dir_remove(stage);
}

/* The case through the box's alias, in the workspace; its stderr goes to
 * a file beside the workspace (bb_call's pipe takes stdout only). */
static void
run_in_box(const bb_box *b, const bd_case *c, bd_result *r)
{
    static char got[1 << 20];
    char errpath[PATH_MAX];
    char *argv[] = {"sh", "-c", c->bc_script.t_data, NULL};
    size_t kept = 0;
    snprintf(errpath, sizeof errpath, "%s/err", b->bb_tmp);
    int fd = open(errpath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    close(fd);
    bb_call_spec cs = {.bc_path = b->bb_sh,
                       .bc_argv = argv,
                       .bc_cwd = b->bb_ws,
                       .bc_err_path = errpath,
                       .bc_kept = &kept};
    uint64_t ns;
    int st = 0;
    assert_true(bb_call(&cs, &ns, &st, got, sizeof got));
    assert_true(kept + 1 < sizeof got);
    assert_int_equal(box_buf_append(&r->br_out, got, kept), BOX_OK);
    r->br_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    FILE *f = fopen(errpath, "r");
    assert_non_null(f);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        assert_int_equal(box_buf_append(&r->br_err, buf, n), BOX_OK);
    fclose(f);
}

static void
show(const char *what, const box_buf *a, const box_buf *b)
{
    print_error("  %s in process: [%.*s]\n  %s in the box:   [%.*s]\n", what,
                (int)(a->b_len < 600 ? a->b_len : 600), th_s(a), what,
                (int)(b->b_len < 600 ? b->b_len : 600), th_s(b));
}

static void
test_sample_through_box(void **state)
{
    (void)state;
    bd_cases cs = {0};
    bd_gaps gs = {0};
    bd_load_cases(&cs);
    bd_load_gaps(&gs, &cs);
    char bin[PATH_MAX];
    box_proc_bin(bin, sizeof bin, "box-pdp");
    *strrchr(bin, '/') = '\0';
    bb_box b = {0};
    if (!bb_open(&b, bin)) {
        bb_close(&b);
        fail_msg("the box did not start (its output is above)");
    }
    char stage[PATH_MAX];
    snprintf(stage, sizeof stage, "%s/stage", b.bb_tmp);
    size_t eligible = 0, ran = 0, differ = 0;
    for (size_t i = 0; i < cs.cs_n; i++) {
        const bd_case *c = &cs.cs_v[i];
        if (!sampled(c, &gs) || eligible++ % SAMPLE_EVERY != 0)
            continue;
        bd_result in, box;
        bd_result_init(&in);
        bd_result_init(&box);
        char *err = NULL;
        fill_workspace(b.bb_ws, stage, c);
        run_in_box(&b, c, &box);
        fill_workspace(b.bb_ws, stage, c);
        if (bd_run_box(b.bb_ws, c, &in, &err) != BOX_OK)
            fail_msg("%s: case '%s': %s", c->bc_origin, c->bc_name, err);
        ran++;
        bool same =
            in.br_status == box.br_status &&
            in.br_out.b_len == box.br_out.b_len &&
            memcmp(th_s(&in.br_out), th_s(&box.br_out), in.br_out.b_len) == 0 &&
            in.br_err.b_len == box.br_err.b_len &&
            memcmp(th_s(&in.br_err), th_s(&box.br_err), in.br_err.b_len) == 0;
        if (!same) {
            differ++;
            print_error("DIFFERS %s: case '%s': status %d in process, %d in "
                        "the box\n",
                        c->bc_origin, c->bc_name, in.br_status, box.br_status);
            show("stdout", &in.br_out, &box.br_out);
            show("stderr", &in.br_err, &box.br_err);
        }
        bd_result_reset(&in);
        bd_result_reset(&box);
    }
    print_message("through the box: %zu of %zu sampled cases print what "
                  "the shell prints in process\n",
                  ran - differ, ran);
    bool closed = bb_close(&b);
    bd_gaps_free(&gs);
    bd_cases_free(&cs);
    assert_true(closed);
    assert_true(ran >= SAMPLE_MIN);
    assert_int_equal(differ, 0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sample_through_box),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
