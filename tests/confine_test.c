/* SPDX-License-Identifier: Apache-2.0 */
/* box-pdp and box-gateway as real processes, confined: no_new_privs and a
 * seccomp filter in force, an environment wiped to the names kept, no
 * descriptor into the operator home, and policy reloads that still work. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_control.h"
#include "box_proc.h"
#include "box_req.h"
#include "box_svc.h"
#include "box_testutil.h"

#define CF_START_MS 60000
#define CF_RELOAD_MS 30000

static const char permit_all[] = "permit (principal, action, resource);\n";
static const char permit_all_2[] = "permit (principal, action, resource);\n"
                                   "// second generation\n";

typedef struct fx {
    char root[PATH_MAX];      // T, canonical
    char home[PATH_MAX + 16]; // T/home: the operator home of the run
    char log[PATH_MAX + 32];  // T/run/records.jsonl
    char url[PATH_MAX + 32];  // ipc://T/run/pdp.sock
    char env_home[PATH_MAX + 32];
    char *envp[8];
    char env_kept[3][4096];
} fx;

static int
setup(void **state)
{
    fx *f = box_calloc(1, sizeof *f);
    char tmpl[] = "/tmp/box-cft-XXXXXX", p[PATH_MAX + 32];
    assert_non_null(f);
    assert_non_null(mkdtemp(tmpl));
    assert_non_null(realpath(tmpl, f->root));
    static const char *const dirs[] = {"home", "cfg", "run"};
    for (size_t i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s/%s", f->root, dirs[i]);
        assert_int_equal(mkdir(p, 0700), 0);
    }
    snprintf(f->home, sizeof f->home, "%s/home", f->root);
    snprintf(p, sizeof p, "%s/secret", f->home);
    box_test_put(p, "the operator's\n");
    snprintf(f->log, sizeof f->log, "%s/run/records.jsonl", f->root);
    snprintf(f->url, sizeof f->url, "ipc://%s/run/pdp.sock", f->root);
    // The service's environment: the home, a secret it must not keep,
    // the log level it keeps, and a sanitizer build's options.
    snprintf(f->env_home, sizeof f->env_home, "HOME=%s", f->home);
    size_t n = 0;
    f->envp[n++] = f->env_home;
    f->envp[n++] = "SECRET_TOKEN=hunter2";
    f->envp[n++] = "BOX_LOG_LEVEL=info";
    static const char *const keep[] = {"ASAN_OPTIONS", "LSAN_OPTIONS",
                                       "UBSAN_OPTIONS"};
    for (size_t i = 0; i < 3; i++) {
        const char *v = getenv(keep[i]);
        if (v == NULL)
            continue;
        snprintf(f->env_kept[i], sizeof f->env_kept[i], "%s=%s", keep[i], v);
        f->envp[n++] = f->env_kept[i];
    }
    f->envp[n] = NULL;
    *state = f;
    return 0;
}

static int
teardown(void **state)
{
    fx *f = *state;
    char *argv[] = {"/bin/rm", "-rf", f->root, NULL};
    box_proc_result r;
    box_proc_run(argv, 30000, &r);
    box_proc_result_free(&r);
    box_free(f);
    return 0;
}

/* ------------------------------------------------------------------ */
/* What /proc says about a process                                      */
/* ------------------------------------------------------------------ */

/* The value of "Name:\t..." in /proc/<pid>/status, into buf ("" if none). */
static void
status_field(pid_t pid, const char *name, char *buf, size_t n)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/status", (long)pid);
    char *text = box_test_slurp(path);
    assert_non_null(text);
    buf[0] = '\0';
    size_t len = strlen(name);
    for (char *line = text; line != NULL && *line != '\0';) {
        char *nl = strchr(line, '\n');
        if (strncmp(line, name, len) == 0 && line[len] == ':') {
            const char *v = line + len + 1;
            while (*v == '\t' || *v == ' ')
                v++;
            size_t k = nl ? (size_t)(nl - v) : strlen(v);
            if (k >= n)
                k = n - 1;
            memcpy(buf, v, k);
            buf[k] = '\0';
        }
        line = nl ? nl + 1 : NULL;
    }
    box_free(text);
}

/* no_new_privs set and a seccomp filter loaded (mode 2). */
static void
expect_confined(pid_t pid, const char *what)
{
    char v[64];
    status_field(pid, "NoNewPrivs", v, sizeof v);
    if (strcmp(v, "1") != 0)
        fail_msg("%s (pid %ld): NoNewPrivs is \"%s\"", what, (long)pid, v);
    status_field(pid, "Seccomp", v, sizeof v);
    if (strcmp(v, "2") != 0)
        fail_msg("%s (pid %ld): Seccomp is \"%s\"", what, (long)pid, v);
}

/* /proc/<pid>/environ holds exactly the entries of want (NULL-ended);
 * the wiped block reads as NUL bytes, which name nothing. */
static void
expect_environ(pid_t pid, const char *what, const char *const *want)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/environ", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    char buf[65536];
    size_t got = 0;
    ssize_t k;
    while ((k = read(fd, buf + got, sizeof buf - 1 - got)) > 0)
        got += (size_t)k;
    close(fd);
    size_t seen = 0, nwant = 0;
    while (want[nwant] != NULL)
        nwant++;
    for (size_t i = 0; i < got;) {
        const char *e = buf + i;
        size_t len = strnlen(e, got - i);
        if (len > 0) {
            bool listed = false;
            for (size_t w = 0; w < nwant; w++)
                listed = listed || strcmp(e, want[w]) == 0;
            if (!listed)
                fail_msg("%s (pid %ld) keeps \"%.*s\" in its environment", what,
                         (long)pid, (int)len, e);
            seen++;
        }
        i += len + 1;
    }
    assert_int_equal(seen, nwant);
}

/* No open descriptor of pid names a path under dir. */
static void
expect_no_fd_under(pid_t pid, const char *what, const char *dir)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/fd", (long)pid);
    DIR *d = opendir(path);
    assert_non_null(d);
    struct dirent *de;
    size_t n = strlen(dir);
    while ((de = readdir(d)) != NULL) {
        char link[512], target[PATH_MAX];
        if (de->d_name[0] == '.')
            continue;
        snprintf(link, sizeof link, "%s/%s", path, de->d_name);
        ssize_t k = readlink(link, target, sizeof target - 1);
        if (k <= 0)
            continue;
        target[k] = '\0';
        if (strncmp(target, dir, n) == 0 && (target[n] == '/' || !target[n]))
            fail_msg("%s (pid %ld) holds fd %s on %s", what, (long)pid,
                     de->d_name, target);
    }
    closedir(d);
}

/* The one child of pid (box-pdp's peer identifier), or -1. */
static pid_t
only_child(pid_t pid)
{
    char path[96];
    snprintf(path, sizeof path, "/proc/%ld/task/%ld/children", (long)pid,
             (long)pid);
    char *text = box_test_slurp(path);
    if (text == NULL)
        return -1;
    long child = strtol(text, NULL, 10);
    box_free(text);
    return child > 0 ? (pid_t)child : -1;
}

/* ------------------------------------------------------------------ */
/* box-pdp                                                              */
/* ------------------------------------------------------------------ */

static void
pdp_start(fx *f, const char *policy, box_proc *p)
{
    char bin[4096];
    box_proc_bin(bin, sizeof bin, "box-pdp");
    char *argv[] = {bin,     "--listen", f->url, "--policy", (char *)policy,
                    "--log", f->log,     NULL};
    assert_true(box_proc_start(p, argv, f->envp));
    Box__HealthResponse *h = box_wait_pdp(f->url, CF_START_MS);
    assert_non_null(h);
    box__health_response__free_unpacked(h, NULL);
}

static char *
pdp_stop(box_proc *p)
{
    assert_int_equal(kill(p->bp_pid, SIGTERM), 0);
    box_proc_result r;
    box_proc_finish(p, 30000, &r);
    assert_false(r.pr_timeout);
    if (r.pr_status != 0)
        box_test_show("box-pdp", r.pr_status, r.pr_out, r.pr_err);
    assert_int_equal(r.pr_status, 0);
    box_free(r.pr_out);
    return r.pr_err;
}

/* Waits until the decision log holds n lines with record (a control
 * record's name, e.g. "policy_installed"). */
static void
wait_records(const fx *f, const char *record, size_t n)
{
    long long deadline = box_test_now_ms() + CF_RELOAD_MS;
    size_t have = 0;
    while (box_test_now_ms() < deadline) {
        char *log = box_test_slurp_or_empty(f->log);
        have = box_test_count_lines(log, record);
        box_free(log);
        if (have >= n)
            return;
        box_test_sleep_ms(20);
    }
    fail_msg("the decision log has %zu %s records, not %zu", have, record, n);
}

/* Replaces path by a new file (a new inode), as editors save. */
static void
replace_by_rename(const char *path, const char *text)
{
    char tmp[PATH_MAX + 64];
    snprintf(tmp, sizeof tmp, "%s.new", path);
    box_test_put(tmp, text);
    assert_int_equal(rename(tmp, path), 0);
}

/*
 * Issue 18: a running box-pdp has no_new_privs and a seccomp filter, an
 * environment with only BOX_LOG_LEVEL (the secret it was started with is
 * gone from /proc/<pid>/environ too), no descriptor into the operator
 * home; its peer identifier likewise, with an empty environment. A policy
 * kept in a directory of its own reloads after an editor replaced it.
 */
static void
test_pdp_confined(void **state)
{
    fx *f = *state;
    char policy[PATH_MAX + 32];
    snprintf(policy, sizeof policy, "%s/cfg/policy.dw", f->root);
    box_test_put(policy, permit_all);
    box_proc p;
    pdp_start(f, policy, &p);

    static const char *const pdp_env[] = {"BOX_LOG_LEVEL=info", NULL};
    static const char *const none[] = {NULL};
    expect_confined(p.bp_pid, "box-pdp");
    expect_environ(p.bp_pid, "box-pdp", pdp_env);
    expect_no_fd_under(p.bp_pid, "box-pdp", f->home);
    pid_t ident = only_child(p.bp_pid);
    assert_true(ident > 0);
    expect_confined(ident, "box-pdp's peer identifier");
    expect_environ(ident, "box-pdp's peer identifier", none);
    expect_no_fd_under(ident, "box-pdp's peer identifier", f->home);

    wait_records(f, "policy_installed", 1);
    replace_by_rename(policy, permit_all_2);
    assert_int_equal(kill(p.bp_pid, SIGHUP), 0);
    wait_records(f, "policy_installed", 2);
    char *err = pdp_stop(&p);
    assert_null(strstr(err, "policy refused"));
    box_free(err);
}

/*
 * A policy kept directly in the operator home: box-pdp may read only that
 * file. Saved in place it reloads; replaced by rename it is refused, the
 * old generation stays, and box-pdp says why.
 */
static void
test_pdp_policy_in_home(void **state)
{
    fx *f = *state;
    char policy[PATH_MAX + 32];
    snprintf(policy, sizeof policy, "%s/policy.dw", f->home);
    box_test_put(policy, permit_all);
    box_proc p;
    pdp_start(f, policy, &p);
    wait_records(f, "policy_installed", 1);

    box_test_put(policy, permit_all_2); // in place: the same inode
    assert_int_equal(kill(p.bp_pid, SIGHUP), 0);
    wait_records(f, "policy_installed", 2);

    replace_by_rename(policy, permit_all);
    assert_int_equal(kill(p.bp_pid, SIGHUP), 0);
    wait_records(f, "policy_refused", 1);
    char *err = pdp_stop(&p);
    if (strstr(err, "was replaced by a new file") == NULL)
        box_test_show("box-pdp", 0, "", err);
    assert_non_null(strstr(err, "was replaced by a new file"));
    assert_non_null(strstr(err, "is the operator home or above it"));
    box_free(err);
}

/* A socket directory in the home is refused at start, naming it. */
static void
test_pdp_socket_in_home_refused(void **state)
{
    fx *f = *state;
    char bin[4096], url[PATH_MAX + 32];
    box_proc_bin(bin, sizeof bin, "box-pdp");
    snprintf(url, sizeof url, "ipc://%s/pdp.sock", f->home);
    char *argv[] = {bin, "--listen", url, NULL};
    box_proc p;
    assert_true(box_proc_start(&p, argv, f->envp));
    box_proc_result r;
    box_proc_finish(&p, 30000, &r);
    box_test_expect_status(&r, 1);
    box_test_expect_err_has(&r, "cannot confine box-pdp: --listen");
    box_test_expect_err_has(&r, "is the operator home or above it");
    box_proc_result_free(&r);
}

/* ------------------------------------------------------------------ */
/* box-gateway                                                          */
/* ------------------------------------------------------------------ */

static void
test_gateway_confined(void **state)
{
    fx *f = *state;
    char bin[4096], url[PATH_MAX + 32];
    box_proc_bin(bin, sizeof bin, "box-gateway");
    snprintf(url, sizeof url, "ipc://%s/run/gw.sock", f->root);
    // No PDP answers at that address: health needs none.
    char *argv[] = {bin, "--control", url, "--pdp", "ipc:///nonexistent",
                    NULL};
    box_proc p;
    assert_true(box_proc_start(&p, argv, f->envp));
    long long deadline = box_test_now_ms() + CF_START_MS;
    Box__HealthResponse *h = NULL;
    // One socket for every try (see box_health_probe).
    box_health_probe *hp = NULL;
    assert_int_equal(box_health_probe_open(url, false, 1000, &hp), BOX_OK);
    while (h == NULL && box_test_now_ms() < deadline)
        if (box_health_probe_ask(hp, &h) != BOX_OK) {
            h = NULL;
            box_test_sleep_ms(20);
        }
    box_health_probe_close(hp);
    assert_non_null(h);
    box__health_response__free_unpacked(h, NULL);

    static const char *const gw_env[] = {"BOX_LOG_LEVEL=info", NULL};
    expect_confined(p.bp_pid, "box-gateway");
    expect_environ(p.bp_pid, "box-gateway", gw_env);
    expect_no_fd_under(p.bp_pid, "box-gateway", f->home);
    char *err = pdp_stop(&p);
    box_free(err);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_pdp_confined, setup, teardown),
        cmocka_unit_test_setup_teardown(test_pdp_policy_in_home, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_pdp_socket_in_home_refused, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_gateway_confined, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
