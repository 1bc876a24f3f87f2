/* SPDX-License-Identifier: Apache-2.0 */
/* Each process of a box holds only the environment names its row of the
 * process table keeps, whatever the operator's shell holds: read from
 * /proc/PID/environ of the running services, the zygote, the agent's
 * box-contain, and of services started by hand. */
#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_control.h"
#include "box_proctab.h"
#include "box_req.h"
#include "box_svc.h"
#include "box_testutil.h"
#include "box_world.h"

#define ENV_RUN_MS 120000 // a whole box run, under a sanitizer on a busy box

static const char permit_all[] = "permit (principal, action, resource);\n";

/* What the operator's shell holds beside what the box needs: the secrets
 * must reach no process of the box; BOX_LOG_LEVEL and TZ are kept names,
 * to see a kept value arrive. */
#define SECRET_MARK "s3cr3t"
static const char *const hostile_env[] = {
    "SECRET_TOKEN=" SECRET_MARK "-token",
    "AWS_SECRET_ACCESS_KEY=" SECRET_MARK "-aws",
    "LD_PRELOAD=",
    "BOX_LOG_LEVEL=warn",
    "TZ=UTC",
    NULL,
};

/* /proc/PID/environ into buf (NUL-separated entries); its length. */
static size_t
read_environ(pid_t pid, char *buf, size_t n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    size_t got = 0;
    ssize_t k;
    while (got < n && (k = read(fd, buf + got, n - got)) > 0)
        got += (size_t)k;
    close(fd);
    assert_true(got < n);
    return got;
}

/*
 * Fails unless every entry of pid's environment is a name row keeps (or
 * extra, when not NULL), no byte of a secret is there, and each of want
 * (NULL-ended NAME=value entries) is there whole.
 */
static void
expect_env(pid_t pid, const char *what, const box_proctab_row *row,
           const char *extra, const char *const *want)
{
    static char buf[1 << 20];
    size_t n = read_environ(pid, buf, sizeof buf);
    bool bad = memmem(buf, n, SECRET_MARK, strlen(SECRET_MARK)) != NULL;
    for (size_t i = 0; i < n;) {
        const char *e = buf + i;
        size_t len = strnlen(e, n - i);
        i += len + 1;
        if (len == 0)
            continue; // the zeroed rest of a cleaned block
        const char *eq = memchr(e, '=', len);
        char name[256];
        snprintf(name, sizeof name, "%.*s", eq ? (int)(eq - e) : (int)len, e);
        if (eq == NULL || (!box_proctab_keeps(row, name) &&
                           (extra == NULL || strcmp(name, extra) != 0))) {
            fprintf(stderr, "%s (pid %d, row %s) holds %s\n", what, (int)pid,
                    row->pt_name, name);
            bad = true;
        }
    }
    for (size_t w = 0; want != NULL && want[w] != NULL; w++) {
        size_t wl = strlen(want[w]);
        bool seen = false;
        for (size_t i = 0; i < n && !seen;) {
            seen = strcmp(buf + i, want[w]) == 0;
            i += strnlen(buf + i, n - i) + 1;
        }
        if (!seen) {
            fprintf(stderr, "%s (pid %d) lacks %.*s\n", what, (int)pid, (int)wl,
                    want[w]);
            bad = true;
        }
    }
    assert_false(bad);
}

/* The pid that box run's report line names for a service. */
static pid_t
reported_pid(const char *err, const char *name)
{
    char head[128];
    snprintf(head, sizeof head, "strands-box: %s up \xc2\xb7 pid ", name);
    const char *at = strstr(err, head);
    assert_non_null(at);
    long pid = strtol(at + strlen(head), NULL, 10);
    assert_true(pid > 0);
    return (pid_t)pid;
}

/* A child of parent whose name (/proc/PID/comm) is comm, or 0. */
static pid_t
child_named_now(pid_t parent, const char *comm)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    pid_t found = 0;
    struct dirent *e;
    while (found == 0 && (e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0)
            continue;
        char path[64], line[1024];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t k = read(fd, line, sizeof line - 1);
        close(fd);
        if (k <= 0)
            continue;
        line[k] = '\0';
        // pid (comm) state ppid ...: comm may hold spaces and parentheses.
        char *open_p = strchr(line, '('), *close_p = strrchr(line, ')');
        if (open_p == NULL || close_p == NULL)
            continue;
        *close_p = '\0';
        long ppid = strtol(close_p + 4, NULL, 10);
        if (ppid == (long)parent && strcmp(open_p + 1, comm) == 0)
            found = (pid_t)pid;
    }
    closedir(d);
    return found;
}

/* The same, asked for up to 10 s: a forked child names itself (prctl)
 * just after the fork. */
static pid_t
child_named(pid_t parent, const char *comm)
{
    pid_t found = 0;
    for (int i = 0; i < 100 && (found = child_named_now(parent, comm)) == 0;
         i++)
        box_test_sleep_ms(100);
    return found;
}

/*
 * Issue 18 item 1: box run is started with secrets in its environment.
 * box-pdp, box-gateway and box-shell hold only their rows' names (and the
 * kept values arrive); the zygote, forked by box-shell, holds no more
 * than box-shell; the agent's box-contain holds nothing of the operator's
 * (only the tie to box run); the agent sees no secret.
 */
static void
test_box_processes_hold_only_their_rows_names(void **state)
{
    box_world *w = *state;
    w->bw_env = hostile_env;
    box_world_config_agent(w, "exec = [\"/usr/bin/sleep\"]\n", "");
    box_world_policy(w, permit_all);
    char script[4 * PATH_MAX];
    snprintf(
        script, sizeof script,
        "echo \"agent ${SECRET_TOKEN-none} ${AWS_SECRET_ACCESS_KEY-none}\"\n"
        "i=0; while [ ! -e %s/go ] && [ $i -lt 900 ]; do sleep 0.1; "
        "i=$((i+1)); done\n"
        "echo done\n",
        w->bw_root);

    box_world_live lv;
    box_world_live_start(w, script, &lv);
    box_world_live_wait(&lv, 1, "agent ", 1, ENV_RUN_MS);
    const char *err = box_world_live_text(&lv, 2);
    pid_t pdp = reported_pid(err, "box-pdp");
    pid_t gw = reported_pid(err, "box-gateway");
    pid_t sh = reported_pid(err, "box-shell");

    // Each service reads what its row names at its start and keeps only
    // the log level once it has confined itself (box_proc_confine).
    const char *svc_want[] = {"BOX_LOG_LEVEL=warn", NULL};
    expect_env(pdp, "box-pdp", box_proctab_get(BOX_PROC_PDP), NULL, svc_want);
    expect_env(gw, "box-gateway", box_proctab_get(BOX_PROC_GATEWAY), NULL,
               svc_want);
    expect_env(sh, "box-shell", box_proctab_get(BOX_PROC_SHELL), NULL, svc_want);
    // The zygote holds its own row's names (the worker profile): the
    // time zone its workers' ls -l needs, and the log level.
    pid_t zyg = child_named(sh, "box-shell-zyg");
    assert_true(zyg > 0);
    const char *zyg_want[] = {"TZ=UTC", "BOX_LOG_LEVEL=warn", NULL};
    expect_env(zyg, "the zygote", box_proctab_get(BOX_PROC_WORKER), NULL,
               zyg_want);
    pid_t lnch = child_named(sh, "box-shell-lnch");
    assert_true(lnch > 0);
    expect_env(lnch, "the launcher", box_proctab_get(BOX_PROC_LAUNCHER), NULL,
               svc_want);
    // The agent's box-contain: its row keeps nothing; the tie to box run
    // (BOX_SPAWN_TIED) is how it dies with the box.
    pid_t contain = child_named(lv.lv_proc.bp_pid, "box-contain");
    assert_true(contain > 0);
    expect_env(contain, "the agent's box-contain",
               box_proctab_get(BOX_PROC_CONTAIN), BOX_SVC_PARENT_ENV, NULL);

    char go[PATH_MAX];
    snprintf(go, sizeof go, "%s/go", w->bw_root);
    box_world_put(go, "");
    box_proc_result r;
    box_world_live_finish(&lv, ENV_RUN_MS, &r);
    if (r.pr_status != 0 || strcmp(r.pr_out, "agent none none\ndone\n") != 0)
        box_test_show("run", r.pr_status, r.pr_out, r.pr_err);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "agent none none\ndone\n");
    box_proc_result_free(&r);
}

/* A service started by hand (or by a test) cleans itself: its environment
 * block is rewritten to its row's names in main. */
static void
test_services_started_by_hand_are_clean(void **state)
{
    (void)state;
    char dir[] = "/tmp/box-envt-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char pdp_url[128], gw_url[128], pdp_bin[PATH_MAX], gw_bin[PATH_MAX];
    snprintf(pdp_url, sizeof pdp_url, "ipc://%s/pdp.sock", dir);
    snprintf(gw_url, sizeof gw_url, "ipc://%s/gw.sock", dir);
    box_proc_bin(pdp_bin, sizeof pdp_bin, "box-pdp");
    box_proc_bin(gw_bin, sizeof gw_bin, "box-gateway");

    // The hostile names, the test's own (its sanitizer options among
    // them), and HOME and PATH.
    char *envp[64];
    size_t ne = 0;
    for (size_t i = 0; hostile_env[i] != NULL; i++)
        envp[ne++] = (char *)hostile_env[i];
    extern char **environ;
    for (char **e = environ; *e != NULL && ne < 62; e++)
        if (strncmp(*e, "BOX_LOG_LEVEL=", 14) != 0 &&
            strncmp(*e, "TZ=", 3) != 0)
            envp[ne++] = *e;
    envp[ne] = NULL;

    char *pdp_argv[] = {pdp_bin, "--listen", pdp_url, NULL};
    char *gw_argv[] = {gw_bin, "--control", gw_url, "--pdp", pdp_url, NULL};
    box_proc pdp, gw;
    assert_true(box_proc_start(&pdp, pdp_argv, envp));
    assert_true(box_proc_start(&gw, gw_argv, envp));
    Box__HealthResponse *h = box_wait_pdp(pdp_url, 60000);
    assert_non_null(h);
    box__health_response__free_unpacked(h, NULL);
    // One socket for every try (see box_wait_pdp).
    box_health_probe *probe = NULL;
    assert_int_equal(box_health_probe_open(gw_url, false, 1000, &probe),
                     BOX_OK);
    h = NULL;
    for (int i = 0; i < 600 && box_health_probe_ask(probe, &h) != BOX_OK; i++) {
        h = NULL;
        box_test_sleep_ms(100);
    }
    box_health_probe_close(probe);
    assert_non_null(h);
    box__health_response__free_unpacked(h, NULL);

    const char *want[] = {"BOX_LOG_LEVEL=warn", NULL};
    expect_env(pdp.bp_pid, "box-pdp by hand", box_proctab_get(BOX_PROC_PDP),
               NULL, want);
    expect_env(gw.bp_pid, "box-gateway by hand",
               box_proctab_get(BOX_PROC_GATEWAY), NULL, want);

    box_proc *procs[] = {&pdp, &gw};
    for (size_t i = 0; i < 2; i++) {
        kill(procs[i]->bp_pid, SIGTERM);
        box_proc_result r;
        box_proc_finish(procs[i], 20000, &r);
        if (r.pr_status != 0)
            box_test_show("service", r.pr_status, r.pr_out, r.pr_err);
        assert_int_equal(r.pr_status, 0);
        box_proc_result_free(&r);
    }
    box_test_rmtree(dir);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(
            test_box_processes_hold_only_their_rows_names, box_world_setup,
            box_world_teardown),
        cmocka_unit_test(test_services_started_by_hand_are_clean),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
