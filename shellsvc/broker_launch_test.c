/* SPDX-License-Identifier: Apache-2.0 */
/* broker_launch: a run starts only for a permit the broker relayed, once,
 * with the descriptors the worker handed over; a real launcher and a real
 * box-contain run it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_testutil.h"
#include "broker_launch.h"
#include "config.h"
#include "box_effect.h"
#include "box_fdpass.h"
#include "forker.h"
#include "sh_launcher.h"

typedef struct fx {
    char fx_root[PATH_MAX];
    char fx_home[PATH_MAX + 8];
    char fx_ws[PATH_MAX + 8];
    char fx_contain[PATH_MAX];
    box_config *fx_cfg;
    worker_settings fx_ws_set;
    sh_launcher *fx_launcher;
    broker_permits *fx_permits;
} fx;

static int
setup(void **state)
{
    const char *dir = getenv("BOX_BUILD_DIR");
    char tmpl[] = "/tmp/broker_launch.XXXXXX";
    fx *f = box_calloc(1, sizeof *f);
    if (dir == NULL || f == NULL || mkdtemp(tmpl) == NULL ||
        realpath(tmpl, f->fx_root) == NULL)
        return -1;
    snprintf(f->fx_contain, sizeof f->fx_contain, "%s/bin/box-contain", dir);
    snprintf(f->fx_home, sizeof f->fx_home, "%s/home", f->fx_root);
    snprintf(f->fx_ws, sizeof f->fx_ws, "%s/ws", f->fx_root);
    if (mkdir(f->fx_home, 0755) != 0 || mkdir(f->fx_ws, 0755) != 0)
        return -1;
    static const char toml[] = "name = \"t\"\n"
                               "box_dir = \"/tmp/broker-launch-none\"\n"
                               "[tool.echo]\n"
                               "command = [\"echo\"]\n"
                               "[agent]\n"
                               "command = [\"/bin/true\"]\n";
    char *err = NULL;
    if (box_config_parse(toml, strlen(toml), "/nonexistent/box.toml",
                         &f->fx_cfg, &err) != BOX_OK) {
        fprintf(stderr, "config: %s\n", err ? err : "?");
        return -1;
    }
    f->fx_ws_set = (worker_settings){.ws_operator_home = f->fx_home,
                                     .ws_agent_home = f->fx_home,
                                     .ws_workspace = f->fx_ws,
                                     .ws_trusted_path = "/usr/bin:/bin",
                                     .ws_config = f->fx_cfg,
                                     .ws_contain_bin = f->fx_contain};
    if (sh_launcher_start(&f->fx_launcher) != BOX_OK)
        return -1;
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    fx *f = *state;
    sh_launcher_stop(f->fx_launcher);
    box_config_free(f->fx_cfg);
    box_test_rmtree(f->fx_root);
    box_free(f);
    return 0;
}

static int
fresh_permits(void **state)
{
    fx *f = *state;
    f->fx_permits = broker_permits_new();
    return f->fx_permits != NULL ? 0 : -1;
}

static int
drop_permits(void **state)
{
    fx *f = *state;
    broker_permits_free(f->fx_permits);
    f->fx_permits = NULL;
    return 0;
}

/* What the PDP was asked and permitted, built as the shell builds it:
 * the program as typed is the path's last name, argv = {path, args...}
 * with the word in place of the path, command_args as given (the log's;
 * a launch never binds to them). */
static void
permit_as(fx *f, box_effect_kind kind, char **args, size_t n, const char *cwd,
          char **log_args, size_t nlog)
{
    const char *base = strrchr(args[0], '/');
    char *argv[8];
    argv[0] = (char *)(base != NULL ? base + 1 : args[0]);
    char command[512] = "";
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            argv[i] = args[i];
        snprintf(command + strlen(command), sizeof command - strlen(command),
                 "%s%s", i > 0 ? " " : "", argv[i]);
    }
    box_effect e = {.e_kind = kind,
                    .e_cmd = {.ec_command = command,
                              .ec_argc = (int)n,
                              .ec_argv = argv,
                              .ec_cwd = cwd,
                              .ec_program_path = args[0],
                              .ec_args = log_args != NULL ? log_args : args,
                              .ec_nargs = log_args != NULL ? nlog : n}};
    box_effect_req r;
    const Box__DecisionRequest *rq = box_effect_request(&r, &e);
    assert_non_null(rq);
    broker_permits_note(f->fx_permits, rq);
}

static void
permit(fx *f, const char *action, char **args, size_t n, const char *cwd)
{
    permit_as(f,
              strcmp(action, "shell:spawn") == 0 ? BOX_EFFECT_SHELL_SPAWN
                                                 : BOX_EFFECT_SHELL_EXEC,
              args, n, cwd, NULL, 0);
}

typedef struct run {
    box_err rn_rv;
    bool rn_started;
    char *rn_refusal;
    char rn_out[256];
    int rn_status; // wait status from the status pipe
} run;

/* Sends nfds of (stdout, stderr) like a worker (0: none at all; 3: one
 * more), then the launch; when started, takes the status pipe the broker
 * sends back, reads stdout and the status. */
static void
launch(fx *f, char **argv, size_t argc, const char *cwd, bool has_stdin,
       size_t nfds, run *r)
{
    int sv[2], out[2], err[2], extra[2];
    memset(r, 0, sizeof *r);
    assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv), 0);
    assert_int_equal(pipe(out), 0);
    assert_int_equal(pipe(err), 0);
    assert_int_equal(pipe(extra), 0);
    if (nfds > 0) {
        int fds[3] = {out[1], err[1], extra[1]};
        assert_int_equal(box_fdpass_send(sv[0], 'L', fds, nfds, 0), BOX_OK);
    }
    close(out[1]);
    close(err[1]);
    close(extra[1]);
    Box__Launch l = BOX__LAUNCH__INIT;
    l.argv = argv;
    l.n_argv = argc;
    l.cwd = (char *)cwd;
    l.has_stdin = has_stdin;
    broker_launch_cfg cfg = {.bl_settings = &f->fx_ws_set,
                             .bl_launcher = f->fx_launcher};
    r->rn_rv = broker_launch(&cfg, f->fx_permits, sv[1], &l, &r->rn_started,
                             &r->rn_refusal);
    if (r->rn_started) {
        char op;
        int st = -1;
        assert_int_equal(box_fdpass_recv(sv[0], &op, &st, 1, MSG_DONTWAIT), 1);
        ssize_t n, got = 0;
        while ((n = read(out[0], r->rn_out + got,
                         sizeof r->rn_out - 1 - (size_t)got)) > 0)
            got += n;
        assert_int_equal(forker_wait(st, 30000, &r->rn_status), BOX_OK);
        close(st);
    }
    close(out[0]);
    close(err[0]);
    close(extra[0]);
    close(sv[0]);
    close(sv[1]);
}

#define ARGS(...) ((char *[]){__VA_ARGS__})
#define NARGS(...) (sizeof ARGS(__VA_ARGS__) / sizeof(char *))

static void
test_permit_starts_once(void **state)
{
    fx *f = *state;
    run r;
    permit(f, "shell:spawn", ARGS("/usr/bin/echo", "hi"), 2, f->fx_ws);
    launch(f, ARGS("echo", "hi"), 2, f->fx_ws, false, 2, &r);
    assert_int_equal(r.rn_rv, BOX_OK);
    assert_true(r.rn_started);
    assert_null(r.rn_refusal);
    assert_string_equal(r.rn_out, "hi\n");
    assert_true(WIFEXITED(r.rn_status) && WEXITSTATUS(r.rn_status) == 0);
    // The permit is spent: the same launch again is refused.
    launch(f, ARGS("echo", "hi"), 2, f->fx_ws, false, 2, &r);
    assert_int_equal(r.rn_rv, BOX_OK);
    assert_false(r.rn_started);
    assert_string_equal(r.rn_refusal, "no shell:spawn permit names this run");
    box_free(r.rn_refusal);
}

/* Each part of the run must be what the permit named. */
static void
test_refused_without_matching_permit(void **state)
{
    fx *f = *state;
    run r;
    launch(f, ARGS("echo", "hi"), 2, f->fx_ws, false, 2, &r);
    assert_false(r.rn_started);
    assert_string_equal(r.rn_refusal, "no shell:spawn permit names this run");
    box_free(r.rn_refusal);

    static const struct {
        const char *action, *path, *arg, *cwd;
    } near[] = {
        {"shell:exec", "/usr/bin/echo", "hi", NULL},   // another action
        {"shell:spawn", "/usr/bin/echo", "bye", NULL}, // another argument
        {"shell:spawn", "/usr/bin/true", "hi", NULL},  // another program
        {"shell:spawn", "/usr/bin/echo", "hi", "/"},   // another cwd
    };
    for (size_t i = 0; i < sizeof near / sizeof near[0]; i++) {
        char *args[] = {(char *)near[i].path, (char *)near[i].arg};
        permit(f, near[i].action, args, 2,
               near[i].cwd ? near[i].cwd : f->fx_ws);
    }
    permit(f, "shell:spawn", ARGS("/usr/bin/echo"), 1, f->fx_ws); // fewer
    launch(f, ARGS("echo", "hi"), 2, f->fx_ws, false, 2, &r);
    assert_false(r.rn_started);
    assert_string_equal(r.rn_refusal, "no shell:spawn permit names this run");
    box_free(r.rn_refusal);
}

/* A launch binds to what the PDP decided on (the request's input), never
 * to the subject's log-only command_args: a request whose log names
 * another run gets no run of it, and a redacted log argument does not
 * stop the run that was decided. */
static void
test_binds_to_the_input(void **state)
{
    fx *f = *state;
    run r;
    permit_as(f, BOX_EFFECT_SHELL_SPAWN, ARGS("/usr/bin/echo", "hi"), 2,
              f->fx_ws, ARGS("/usr/bin/echo", "push", "--force"), 3);
    launch(f, ARGS("echo", "push", "--force"), 3, f->fx_ws, false, 2, &r);
    assert_false(r.rn_started);
    assert_string_equal(r.rn_refusal, "no shell:spawn permit names this run");
    box_free(r.rn_refusal);
    launch(f, ARGS("echo", "hi"), 2, f->fx_ws, false, 2, &r);
    assert_true(r.rn_started);
    assert_string_equal(r.rn_out, "hi\n");

    permit_as(f, BOX_EFFECT_SHELL_SPAWN, ARGS("/usr/bin/echo", "a", "b", "c d"),
              4, f->fx_ws, ARGS("/usr/bin/echo", "a", "b", "<redacted>"), 4);
    launch(f, ARGS("echo", "a", "b", "c"), 4, f->fx_ws, false, 2, &r);
    assert_false(r.rn_started); // a third argument the command names
    box_free(r.rn_refusal);
    launch(f, ARGS("echo", "a", "b", "c d"), 4, f->fx_ws, false, 2, &r);
    assert_true(r.rn_started);
    assert_string_equal(r.rn_out, "a b c d\n");
}

/* The configuration decides what runs, whatever the worker asks: a
 * program no spec admits is refused with the selection's message. */
static void
test_selection_refuses(void **state)
{
    fx *f = *state;
    run r;
    permit(f, "shell:spawn", ARGS("/usr/bin/true"), 1, f->fx_ws);
    launch(f, ARGS("true"), 1, f->fx_ws, false, 2, &r);
    assert_int_equal(r.rn_rv, BOX_OK);
    assert_false(r.rn_started);
    assert_non_null(r.rn_refusal);
    assert_non_null(strstr(r.rn_refusal, "true"));
    box_free(r.rn_refusal);
}

/* Descriptors missing or of the wrong number break the protocol. */
static void
test_bad_descriptors(void **state)
{
    fx *f = *state;
    run r;
    permit(f, "shell:spawn", ARGS("/usr/bin/echo", "hi"), 2, f->fx_ws);
    launch(f, ARGS("echo", "hi"), 2, f->fx_ws, false, 0, &r);
    assert_int_equal(r.rn_rv, BOX_EPROTO);
    assert_false(r.rn_started);
    launch(f, ARGS("echo", "hi"), 2, f->fx_ws, true, 2, &r); // says stdin
    assert_int_equal(r.rn_rv, BOX_EPROTO);
    launch(f, ARGS("echo", "hi"), 2, f->fx_ws, false, 3, &r); // one more
    assert_int_equal(r.rn_rv, BOX_EPROTO);
    launch(f, ARGS("echo", "hi"), 2, "relative", false, 2, &r);
    assert_int_equal(r.rn_rv, BOX_EPROTO);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_permit_starts_once, fresh_permits,
                                        drop_permits),
        cmocka_unit_test_setup_teardown(test_refused_without_matching_permit,
                                        fresh_permits, drop_permits),
        cmocka_unit_test_setup_teardown(test_selection_refuses, fresh_permits,
                                        drop_permits),
        cmocka_unit_test_setup_teardown(test_binds_to_the_input, fresh_permits,
                                        drop_permits),
        cmocka_unit_test_setup_teardown(test_bad_descriptors, fresh_permits,
                                        drop_permits),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
