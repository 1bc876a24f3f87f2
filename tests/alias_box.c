/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper: a box dir with real box-pdp and box-shell, and its aliases. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "alias_box.h"
#include "box_alloc.h"
#include "box_control.h"
#include "box_frame.h"
#include "box_testutil.h"
#include "box_req.h"
#include "box_wire.h"

const char *const shell_names[3] = {"sh", "bash", "zsh"};

/* Installs the alias image as bin/<name>: a real file, mode 0500. */
void
install_alias(const test_box *b, const char *name)
{
    char src[PATH_MAX], dst[PATH_MAX];
    box_proc_bin(src, sizeof src, "box-alias");
    snprintf(dst, sizeof dst, "%s/bin/%s", b->tb_dir, name);
    box_test_copy(src, dst, 0500);
}

/* Starts the box's box-pdp on a permit-everything policy; records go to
 * <dir>/records.jsonl. */
void
pdp_start(test_box *b)
{
    char policy[PATH_MAX], log[PATH_MAX], bin[PATH_MAX];
    snprintf(policy, sizeof policy, "%s/policy.dw", b->tb_dir);
    snprintf(log, sizeof log, "%s/records.jsonl", b->tb_dir);
    box_test_write(policy, PERMIT_ALL, sizeof PERMIT_ALL - 1, 0600);
    box_proc_bin(bin, sizeof bin, "box-pdp");
    char *argv[] = {bin,        "--listen", b->tb_pdp, "--epoch-pub", b->tb_pub,
                    "--policy", policy,     "--log",   log,           NULL};
    assert_true(box_proc_start(&b->tb_pdp_proc, argv, NULL));
    b->tb_pdp_running = true;
    Box__HealthResponse *h = box_wait_pdp(b->tb_pdp, PDP_START_MS);
    if (h == NULL)
        fail_msg("box-pdp did not answer on %s", b->tb_pdp);
    box__health_response__free_unpacked(h, NULL);
}

/* SIGTERM; the PDP must exit 0. */
void
pdp_stop(test_box *b)
{
    if (!b->tb_pdp_running)
        return;
    b->tb_pdp_running = false;
    assert_int_equal(kill(b->tb_pdp_proc.bp_pid, SIGTERM), 0);
    box_proc_result r;
    box_proc_finish(&b->tb_pdp_proc, 10000, &r);
    if (r.pr_timeout || r.pr_status != 0)
        print_error("box-pdp: status %d err [%.300s]\n", r.pr_status, r.pr_err);
    assert_false(r.pr_timeout);
    assert_int_equal(r.pr_status, 0);
    box_proc_result_free(&r);
}

void
box_make(test_box *b)
{
    memset(b, 0, sizeof *b);
    snprintf(b->tb_dir, sizeof b->tb_dir, "/tmp/box-alias-XXXXXX");
    assert_non_null(mkdtemp(b->tb_dir));
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/bin", b->tb_dir);
    assert_int_equal(mkdir(p, 0700), 0);
    snprintf(p, sizeof p, "%s/run", b->tb_dir);
    assert_int_equal(mkdir(p, 0700), 0);
    for (size_t i = 0; i < 3; i++)
        install_alias(b, shell_names[i]);
    snprintf(b->tb_ctl, sizeof b->tb_ctl, "ipc://%s/run/shell-ctl.sock",
             b->tb_dir);
    snprintf(b->tb_pdp, sizeof b->tb_pdp, "ipc://%s/run/pdp.sock", b->tb_dir);
    snprintf(b->tb_pub, sizeof b->tb_pub, "ipc://%s/run/pdp-epoch.sock",
             b->tb_dir);
    pdp_start(b);
}

void
box_remove(test_box *b)
{
    pdp_stop(b);
    char cmd[PATH_MAX];
    // Test cleanup only: the dir is ours and mkdtemp-named.
    snprintf(cmd, sizeof cmd, "%s", b->tb_dir);
    if (strncmp(cmd, "/tmp/box-alias-", 15) != 0)
        return;
    char *argv[] = {"/bin/rm", "-rf", cmd, NULL};
    box_proc_result r;
    box_proc_run(argv, 10000, &r);
    box_proc_result_free(&r);
}

int
sock_connect(const char *dir)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s/run/box.sock", dir);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    if (connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* Starts box-shell on the box, asking the box's PDP, with up to 8 extra
 * arguments (NULL-terminated; a later option overrides an earlier one,
 * e.g. a --workspace of its own). */
void
broker_start_argv(test_box *b, char *const *extra)
{
    char bin[PATH_MAX];
    box_proc_bin(bin, sizeof bin, "box-shell");
    char *argv[11 + 8 + 1] = {bin,         "--box-dir",   b->tb_dir,
                              "--pdp",     b->tb_pdp,     "--epoch-pub",
                              b->tb_pub,   "--workspace", b->tb_dir,
                              "--control", b->tb_ctl};
    size_t n = 11;
    for (size_t i = 0; extra != NULL && extra[i] != NULL; i++) {
        assert_true(n < 11 + 8);
        argv[n++] = extra[i];
    }
    argv[n] = NULL;
    assert_true(box_proc_start(&b->tb_broker, argv, NULL));
    b->tb_running = true;
    for (int i = 0; i < 500; i++) {
        int fd = sock_connect(b->tb_dir);
        if (fd >= 0) {
            close(fd); // the broker answers the idle close quietly
            return;
        }
        box_test_sleep_ms(10);
    }
    fail_msg("box-shell did not start serving %s", b->tb_dir);
}

/* Starts box-shell with extra arguments (NULL-terminated). */
void
broker_start(test_box *b, const char *extra1, const char *extra2)
{
    char *extra[] = {(char *)extra1, (char *)extra2, NULL};
    broker_start_argv(b, extra);
}

/* SIGTERM; the broker must exit 0 and say it stopped. */
void
broker_stop(test_box *b, int within_ms)
{
    if (!b->tb_running)
        return;
    b->tb_running = false;
    assert_int_equal(kill(b->tb_broker.bp_pid, SIGTERM), 0);
    box_proc_result r;
    box_proc_finish(&b->tb_broker, within_ms, &r);
    assert_false(r.pr_timeout);
    assert_int_equal(r.pr_status, 0);
    assert_non_null(strstr(r.pr_err, "msg=\"stopped\""));
    box_proc_result_free(&r);
}

/* Runs bin/<name> with up to 4 arguments (NULL ends them). */
void
alias_run(const test_box *b, const char *name, const char *a1, const char *a2,
          const char *a3, const char *a4, box_proc_result *r)
{
    char path[PATH_MAX];
    snprintf(path, sizeof path, "%s/bin/%s", b->tb_dir, name);
    char *argv[] = {path, (char *)a1, (char *)a2, (char *)a3, (char *)a4, NULL};
    box_proc_run(argv, RUN_MS, r);
    assert_false(r->pr_timeout);
}

void
expect(const test_box *b, const char *name, const char *a1, const char *a2,
       const char *a3, int status, const char *out, const char *err)
{
    box_proc_result r;
    alias_run(b, name, a1, a2, a3, NULL, &r);
    if (r.pr_status != status || strcmp(r.pr_out, out) != 0 ||
        strcmp(r.pr_err, err) != 0)
        print_error("%s %s %s %s: status %d out [%.200s] err [%.300s]\n", name,
                    a1 ? a1 : "", a2 ? a2 : "", a3 ? a3 : "", r.pr_status,
                    r.pr_out, r.pr_err);
    assert_int_equal(r.pr_status, status);
    assert_string_equal(r.pr_out, out);
    assert_string_equal(r.pr_err, err);
    box_proc_result_free(&r);
}

void
raw_open(int fd, uint32_t version, Box__Open__ModeCase mode)
{
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Open o = BOX__OPEN__INIT;
    Box__OpenShell sh = BOX__OPEN_SHELL__INIT;
    Box__OpenPython py = BOX__OPEN_PYTHON__INIT;
    o.version = version;
    o.mode_case = mode;
    if (mode == BOX__OPEN__MODE_SHELL)
        o.shell = &sh;
    else
        o.python = &py;
    f.program = 1;
    f.body_case = BOX__ALIAS_FRAME__BODY_OPEN;
    f.open = &o;
    assert_int_equal(box_frame_write(fd, &f, BOX_FRAME_MAX, 5000), BOX_OK);
}

void
raw_call(int fd, const char *src)
{
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Call c = BOX__CALL__INIT;
    Box__InputEof e = BOX__INPUT_EOF__INIT;
    c.source = (char *)src;
    f.program = 1;
    f.body_case = BOX__ALIAS_FRAME__BODY_CALL;
    f.call = &c;
    assert_int_equal(box_frame_write(fd, &f, BOX_FRAME_MAX, 5000), BOX_OK);
    f.body_case = BOX__ALIAS_FRAME__BODY_INPUT_EOF;
    f.input_eof = &e;
    // A broker that refuses the call answers and closes at once, so the
    // trailing InputEof may meet a closed socket; its answer is still
    // there to read.
    box_err rv = box_frame_write(fd, &f, BOX_FRAME_MAX, 5000);
    assert_true(rv == BOX_OK || rv == BOX_ECLOSED);
}

Box__AliasFrame *
raw_read(int fd)
{
    Box__AliasFrame *f = NULL;
    assert_int_equal(
        box_frame_read(fd, BOX_FRAME_MAX, 10000, BOX_FRAMES_TO_ALIAS, &f, NULL),
        BOX_OK);
    return f;
}

void
raw_expect_end(int fd, const char *out, int status)
{
    Box__AliasFrame *f;
    if (out != NULL) {
        f = raw_read(fd);
        assert_int_equal(f->body_case, BOX__ALIAS_FRAME__BODY_OUTPUT);
        assert_int_equal(f->output->data.len, strlen(out));
        assert_memory_equal(f->output->data.data, out, strlen(out));
        box__alias_frame__free_unpacked(f, NULL);
    }
    f = raw_read(fd);
    assert_int_equal(f->body_case, BOX__ALIAS_FRAME__BODY_EXIT);
    assert_int_equal(f->exit->status, status);
    box__alias_frame__free_unpacked(f, NULL);
}

/* The next frame is Denied{kind, reason}, then the broker hangs up. */
void
raw_expect_denied(int fd, Box__DeniedKind kind, const char *reason)
{
    Box__AliasFrame *f = raw_read(fd);
    assert_int_equal(f->body_case, BOX__ALIAS_FRAME__BODY_DENIED);
    assert_int_equal(f->denied->kind, kind);
    assert_string_equal(f->denied->reason, reason);
    box__alias_frame__free_unpacked(f, NULL);
    Box__AliasFrame *g = NULL;
    assert_int_equal(
        box_frame_read(fd, BOX_FRAME_MAX, 10000, BOX_FRAMES_TO_ALIAS, &g, NULL),
        BOX_ECLOSED);
}

/* The box still serves: one ordinary call works. */
void
expect_serving(const test_box *b)
{
    expect(b, "sh", "-c", "echo still serving", NULL, 0, "still serving\n", "");
}

/* ------------------------------------------------------------------ */
/* Fixture: one broker for the file                                    */
/* ------------------------------------------------------------------ */

int
box_group_setup(void **state)
{
    static test_box shared;
    box_make(&shared);
    broker_start(&shared, NULL, NULL);
    *state = &shared;
    return 0;
}

int
box_group_teardown(void **state)
{
    test_box *b = *state;
    broker_stop(b, 10000);
    box_remove(b);
    return 0;
}
