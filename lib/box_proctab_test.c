/* SPDX-License-Identifier: Apache-2.0 */
/* box_proctab: the table's rows hold together, the command lines box run
 * builds from them, and a row's environment (built for a child, and
 * cleaned in a process of its own, checked through /proc). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_proctab.h"

extern char **environ;

/* True when name is a row's name or "box" (box run). */
static bool
is_row_or_box(const char *name)
{
    return strcmp(name, "box") == 0 || box_proctab_find(name) != NULL;
}

/* True when the NULL-ended list (at most max) holds name. */
static bool
listed(const char *const *list, size_t max, const char *name)
{
    for (size_t i = 0; i < max && list[i] != NULL; i++)
        if (strcmp(list[i], name) == 0)
            return true;
    return false;
}

static void
test_every_row_is_whole(void **state)
{
    (void)state;
    size_t run_rows = 0;
    for (int id = 0; id < BOX_PROC_COUNT; id++) {
        const box_proctab_row *r = box_proctab_get((box_proctab_id)id);
        assert_non_null(r);
        // ORDER BOX_PROC: the row sits at its own id.
        assert_int_equal(r->pt_id, id);
        assert_non_null(r->pt_name);
        assert_true(strncmp(r->pt_name, "box-", 4) == 0);
        assert_ptr_equal(box_proctab_find(r->pt_name), r); // names unique
        assert_non_null(r->pt_job);
        assert_int_not_equal(r->pt_profile, BOX_PROFILE_NONE);
        assert_int_not_equal(r->pt_start, BOX_START_NONE);
        assert_non_null(r->pt_parents[0]);
        for (size_t i = 0; i < BOX_PROC_PARENTS_MAX && r->pt_parents[i]; i++) {
            assert_true(is_row_or_box(r->pt_parents[i]));
            assert_string_not_equal(r->pt_parents[i], r->pt_name);
        }
        // box run starts a service by its arguments and waits for its
        // health; a forked or spawned row has neither of its own.
        if (r->pt_start == BOX_START_RUN) {
            run_rows++;
            assert_non_null(r->pt_args[0].pa_flag);
            assert_int_not_equal(r->pt_health, BOX_HEALTH_NONE);
            assert_true(listed(r->pt_parents, BOX_PROC_PARENTS_MAX, "box"));
        } else {
            assert_null(r->pt_args[0].pa_flag);
            assert_int_equal(r->pt_health, BOX_HEALTH_NONE);
        }
        for (size_t i = 0; i < BOX_PROC_ARGS_MAX && r->pt_args[i].pa_flag;
             i++) {
            assert_true(strncmp(r->pt_args[i].pa_flag, "--", 2) == 0);
            assert_true(r->pt_args[i].pa_value > BOX_PV_NONE &&
                        r->pt_args[i].pa_value < BOX_PV_COUNT);
        }
        // Peers name other rows, and each names the other back.
        for (size_t i = 0; i < BOX_PROC_NAMES_MAX && r->pt_peers[i]; i++) {
            const box_proctab_row *p = box_proctab_find(r->pt_peers[i]);
            assert_non_null(p);
            assert_ptr_not_equal(p, r);
            assert_true(listed(p->pt_peers, BOX_PROC_NAMES_MAX, r->pt_name));
        }
        // Kept names are names (no '='), once each.
        for (size_t i = 0; i < BOX_PROC_NAMES_MAX && r->pt_env[i]; i++) {
            assert_null(strchr(r->pt_env[i], '='));
            assert_true(r->pt_env[i][0] != '\0');
            for (size_t j = 0; j < i; j++)
                assert_string_not_equal(r->pt_env[i], r->pt_env[j]);
        }
    }
    assert_int_equal(run_rows, 3); // box-pdp, box-gateway, box-shell
    assert_null(box_proctab_get(BOX_PROC_COUNT));
    assert_null(box_proctab_find("box-nothing"));
    assert_null(box_proctab_find(NULL));
}

/* Profiles are one per row: each row names its own. */
static void
test_profiles_are_distinct(void **state)
{
    (void)state;
    for (int a = 0; a < BOX_PROC_COUNT; a++)
        for (int b = a + 1; b < BOX_PROC_COUNT; b++)
            assert_int_not_equal(
                box_proctab_get((box_proctab_id)a)->pt_profile,
                box_proctab_get((box_proctab_id)b)->pt_profile);
}

/* av as one space-separated line (caller frees). */
static char *
joined(const box_argv *av)
{
    size_t n = 1;
    for (size_t i = 0; i < av->av_n; i++)
        n += strlen(av->av_v[i]) + 1;
    char *s = box_calloc(1, n);
    assert_non_null(s);
    for (size_t i = 0; i < av->av_n; i++) {
        if (i > 0)
            strcat(s, " ");
        strcat(s, av->av_v[i]);
    }
    return s;
}

static void
expect_argv(box_proctab_id id, const box_proctab_box *b, const char *want)
{
    box_argv av = {0};
    assert_int_equal(box_proctab_argv(box_proctab_get(id), b, &av), BOX_OK);
    char *got = joined(&av);
    assert_string_equal(got, want);
    box_free(got);
    box_argv_free(&av);
}

static void
test_argv_of_each_service(void **state)
{
    (void)state;
    box_proctab_box b = {.pb_bindir = "/opt/box/bin",
                         .pb_box_dir = "/b",
                         .pb_policy = "/cfg/policy.dw",
                         .pb_box_id = "box-0123456789abcdef",
                         .pb_run_id = "run-1",
                         .pb_config = "/cfg/box.toml",
                         .pb_workspace = "/w"};
    expect_argv(BOX_PROC_PDP, &b,
                "/opt/box/bin/box-pdp --listen ipc:///b/private/pdp.sock "
                "--epoch-pub ipc:///b/private/pdp-epoch.sock --log "
                "/b/private/telemetry/records.jsonl --history "
                "/b/private/history/dogwood.history --policy /cfg/policy.dw "
                "--box-id box-0123456789abcdef --run-id run-1");
    expect_argv(BOX_PROC_GATEWAY, &b,
                "/opt/box/bin/box-gateway --pdp ipc:///b/private/pdp.sock "
                "--epoch-pub ipc:///b/private/pdp-epoch.sock --box-id "
                "box-0123456789abcdef --socket /b/run/egress.sock --ca-cert "
                "/b/trust/cert.pem --token-file /b/private/gateway.token "
                "--control ipc:///b/private/gateway-ctl.sock");
    expect_argv(BOX_PROC_SHELL, &b,
                "/opt/box/bin/box-shell --box-dir /b --pdp "
                "ipc:///b/private/pdp.sock --epoch-pub "
                "ipc:///b/private/pdp-epoch.sock --box-id "
                "box-0123456789abcdef --config /cfg/box.toml --workspace /w "
                "--egress-socket /b/run/egress.sock --trust-cert "
                "/b/trust/cert.pem --control ipc:///b/private/shell-ctl.sock");
    // Once the gateway is up, the shell learns where it listens.
    b.pb_gw_address = "127.0.0.1:41234";
    expect_argv(BOX_PROC_SHELL, &b,
                "/opt/box/bin/box-shell --box-dir /b --pdp "
                "ipc:///b/private/pdp.sock --epoch-pub "
                "ipc:///b/private/pdp-epoch.sock --box-id "
                "box-0123456789abcdef --config /cfg/box.toml --workspace /w "
                "--gateway 127.0.0.1:41234 --egress-socket /b/run/egress.sock "
                "--trust-cert /b/trust/cert.pem --control "
                "ipc:///b/private/shell-ctl.sock");

    // What the box lacks drops its pair: the service's default holds.
    box_proctab_box bare = {.pb_bindir = "/x", .pb_box_dir = "/b"};
    expect_argv(BOX_PROC_PDP, &bare,
                "/x/box-pdp --listen ipc:///b/private/pdp.sock --epoch-pub "
                "ipc:///b/private/pdp-epoch.sock --log "
                "/b/private/telemetry/records.jsonl --history "
                "/b/private/history/dogwood.history");
    expect_argv(BOX_PROC_SHELL, &bare,
                "/x/box-shell --box-dir /b --pdp ipc:///b/private/pdp.sock "
                "--epoch-pub ipc:///b/private/pdp-epoch.sock --egress-socket "
                "/b/run/egress.sock --trust-cert /b/trust/cert.pem --control "
                "ipc:///b/private/shell-ctl.sock");
}

static void
test_bad_requests_are_refused(void **state)
{
    (void)state;
    box_proctab_box b = {.pb_bindir = "/x", .pb_box_dir = "/b"};
    box_argv av = {0};
    // Rows box run does not start have no command line here.
    assert_int_equal(
        box_proctab_argv(box_proctab_get(BOX_PROC_WORKER), &b, &av),
        BOX_EINVAL);
    assert_int_equal(
        box_proctab_argv(box_proctab_get(BOX_PROC_CONTAIN), &b, &av),
        BOX_EINVAL);
    box_proctab_box nobin = {.pb_box_dir = "/b"};
    assert_int_equal(
        box_proctab_argv(box_proctab_get(BOX_PROC_PDP), &nobin, &av),
        BOX_EINVAL);
    assert_null(av.av_v);
    // An address needs the box directory.
    box_proctab_box nodir = {.pb_bindir = "/x"};
    assert_int_equal(
        box_proctab_argv(box_proctab_get(BOX_PROC_PDP), &nodir, &av),
        BOX_EINVAL);
    box_argv_free(&av);
    char *v = (char *)"x";
    assert_int_equal(box_proctab_value(BOX_PV_NONE, &b, &v), BOX_EINVAL);
    assert_null(v);
    assert_int_equal(box_proctab_value(BOX_PV_COUNT, &b, &v), BOX_EINVAL);
    assert_int_equal(box_proctab_value(BOX_PV_POLICY, &b, &v), BOX_OK);
    assert_null(v); // no policy: no value
}

static void
test_health_urls(void **state)
{
    (void)state;
    box_proctab_box b = {.pb_bindir = "/x", .pb_box_dir = "/b"};
    char *u = NULL;
    assert_int_equal(
        box_proctab_health_url(box_proctab_get(BOX_PROC_PDP), &b, &u), BOX_OK);
    assert_string_equal(u, "ipc:///b/private/pdp.sock");
    box_free(u);
    assert_int_equal(
        box_proctab_health_url(box_proctab_get(BOX_PROC_GATEWAY), &b, &u),
        BOX_OK);
    assert_string_equal(u, "ipc:///b/private/gateway-ctl.sock");
    box_free(u);
    assert_int_equal(
        box_proctab_health_url(box_proctab_get(BOX_PROC_WORKER), &b, &u),
        BOX_OK);
    assert_null(u);
    assert_int_equal(box_proctab_value(BOX_PV_DECISION_LOG, &b, &u), BOX_OK);
    assert_string_equal(u, "/b/private/telemetry/records.jsonl");
    box_free(u);
    assert_int_equal(box_proctab_value(BOX_PV_HISTORY, &b, &u), BOX_OK);
    assert_string_equal(u, "/b/private/history/dogwood.history");
    box_free(u);
}

static void
test_env_for_a_child_keeps_only_its_names(void **state)
{
    (void)state;
    char *from[] = {"HOME=/home/op",
                    "SECRET_TOKEN=x",
                    "AWS_SECRET_ACCESS_KEY=y",
                    "PATH=/usr/bin",
                    "BOX_LOG_LEVEL=warn",
                    "HOMEX=no",
                    "HOM=no",
                    "noequals",
                    "TZ=UTC",
                    NULL};
    box_argv env = {0};
    assert_int_equal(box_proctab_env(box_proctab_get(BOX_PROC_PDP), from, &env),
                     BOX_OK);
    char *got = joined(&env);
    assert_string_equal(got, "HOME=/home/op BOX_LOG_LEVEL=warn");
    box_free(got);
    box_argv_free(&env);

    assert_int_equal(
        box_proctab_env(box_proctab_get(BOX_PROC_SHELL), from, &env), BOX_OK);
    got = joined(&env);
    assert_string_equal(
        got, "HOME=/home/op PATH=/usr/bin BOX_LOG_LEVEL=warn TZ=UTC");
    box_free(got);
    box_argv_free(&env);

    // box-contain keeps nothing of ours: an empty, NULL-ended vector.
    assert_int_equal(
        box_proctab_env(box_proctab_get(BOX_PROC_CONTAIN), from, &env), BOX_OK);
    assert_null(box_proctab_envp(&env)[0]);
    box_argv_free(&env);
    assert_false(box_proctab_keeps(box_proctab_get(BOX_PROC_GATEWAY), "HOME"));
    assert_true(
        box_proctab_keeps(box_proctab_get(BOX_PROC_GATEWAY), "BOX_LOG_LEVEL"));
}

/* ---- the child that cleans its own environment ---- */

#define CHILD_FLAG "--clean-env-child"

/* Runs in a fresh exec of this test (so the kernel's environment block is
 * its own): cleans to box-pdp's row and checks what remains. Exit 0 when
 * all holds, else the number of the check that failed. */
static int
clean_env_child(const char *long_home)
{
    if (long_home != NULL && setenv("HOME", long_home, 1) != 0)
        return 10;
    const char *want_home = long_home != NULL ? long_home : "/home/op";
    if (box_proctab_clean_env(box_proctab_get(BOX_PROC_PDP)) != BOX_OK)
        return 1;
    if (getenv("SECRET_TOKEN") != NULL || getenv("AWS_SECRET_ACCESS_KEY"))
        return 2;
    const char *h = getenv("HOME");
    if (h == NULL || strcmp(h, want_home) != 0)
        return 3;
    const char *l = getenv("BOX_LOG_LEVEL");
    if (l == NULL || strcmp(l, "warn") != 0)
        return 4;
    if (getenv("PATH") != NULL)
        return 5;
    // What the kernel shows of the process: the kept names only, and no
    // byte of the secrets.
    char buf[65536];
    int fd = open("/proc/self/environ", O_RDONLY);
    if (fd < 0)
        return 6;
    ssize_t n = read(fd, buf, sizeof buf);
    close(fd);
    if (n < 0 || (size_t)n == sizeof buf)
        return 7;
    if (memmem(buf, (size_t)n, "SECRET", 6) != NULL ||
        memmem(buf, (size_t)n, "s3cr3t", 6) != NULL)
        return 8;
    bool saw_level = false;
    for (ssize_t i = 0; i < n;) {
        const char *e = buf + i;
        size_t len = strnlen(e, (size_t)(n - i));
        i += (ssize_t)len + 1;
        if (len == 0)
            continue; // the zeroed rest of the block
        const char *eq = memchr(e, '=', len);
        if (eq == NULL)
            return 9;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - e), e);
        if (!box_proctab_keeps(box_proctab_get(BOX_PROC_PDP), name))
            return 11;
        if (strcmp(e, "BOX_LOG_LEVEL=warn") == 0)
            saw_level = true;
    }
    return saw_level ? 0 : 12;
}

/* Runs this test again as the child, with a hostile environment. */
static int
run_child(const char *long_home)
{
    char self[4096];
    ssize_t k = readlink("/proc/self/exe", self, sizeof self - 1);
    assert_true(k > 0);
    self[k] = '\0';
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char *argv[] = {self, CHILD_FLAG, (char *)long_home, NULL};
        char *envp[] = {"SECRET_TOKEN=s3cr3t",
                        "HOME=/home/op",
                        "AWS_SECRET_ACCESS_KEY=s3cr3t-too",
                        "PATH=/usr/bin:/bin",
                        "BOX_LOG_LEVEL=warn",
                        "LD_PRELOAD=",
                        NULL};
        execve(self, argv, envp);
        _exit(127);
    }
    int st;
    assert_int_equal(waitpid(pid, &st, 0), pid);
    assert_true(WIFEXITED(st));
    return WEXITSTATUS(st);
}

static void
test_clean_env_in_place(void **state)
{
    (void)state;
    assert_int_equal(run_child(NULL), 0);
}

static void
test_clean_env_value_set_after_exec(void **state)
{
    (void)state;
    // A kept value longer than the whole block goes to the heap.
    char *home = box_calloc(1, 8192);
    assert_non_null(home);
    home[0] = '/';
    memset(home + 1, 'h', 8000);
    assert_int_equal(run_child(home), 0);
    box_free(home);
}

int
main(int argc, char **argv)
{
    if (argc >= 2 && strcmp(argv[1], CHILD_FLAG) == 0)
        return clean_env_child(argc >= 3 ? argv[2] : NULL);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_row_is_whole),
        cmocka_unit_test(test_profiles_are_distinct),
        cmocka_unit_test(test_argv_of_each_service),
        cmocka_unit_test(test_bad_requests_are_refused),
        cmocka_unit_test(test_health_urls),
        cmocka_unit_test(test_env_for_a_child_keeps_only_its_names),
        cmocka_unit_test(test_clean_env_in_place),
        cmocka_unit_test(test_clean_env_value_set_after_exec),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
