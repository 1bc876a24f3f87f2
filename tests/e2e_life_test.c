/* SPDX-License-Identifier: Apache-2.0 */
/* Process lifetime end to end under `box run`: host programs die with their
 * call and their box, background jobs end with their call, and the PDP
 * answers only its own box's shell. */
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
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_testutil.h"
#include "box_world.h"

#define LIFE_RUN_MS 120000 // a whole box run, under a sanitizer on a busy box
#define LIFE_SEEN_MS 30000 // a host program starts (decision, sandbox)
#define LIFE_GONE_MS 10000 // parent-death links act at once; this is slack

static const char permit_all[] = "permit (principal, action, resource);\n";

/* A built test program's canonical path (a tool's command must be). */
static void
helper_path(const char *name, char *out)
{
    char bin[PATH_MAX];
    box_proc_bin(bin, sizeof bin, name);
    assert_non_null(realpath(bin, out));
}

/*
 * Processes other than this one whose command line holds needle and, when
 * argv0 is not NULL, whose argv[0] is argv0 (a host program's argv[0] is
 * its absolute path; the alias and box-contain name it later in theirs).
 * what (n bytes) receives "pid: cmdline" lines for a failure message. A
 * zombie's command line is empty: a dead process is not counted.
 */
static int
procs_holding(const char *argv0, const char *needle, char *what, size_t n)
{
    DIR *d = opendir("/proc");
    assert_non_null(d);
    int count = 0;
    size_t used = 0;
    if (n > 0)
        what[0] = '\0';
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0 || pid == (long)getpid())
            continue;
        char path[64], line[8192];
        snprintf(path, sizeof path, "/proc/%ld/cmdline", pid);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue; // gone meanwhile
        ssize_t got = read(fd, line, sizeof line - 1);
        close(fd);
        if (got <= 0)
            continue;
        line[got] = '\0';
        if (argv0 != NULL && strcmp(line, argv0) != 0)
            continue;
        for (ssize_t i = 0; i < got; i++)
            if (line[i] == '\0')
                line[i] = ' ';
        line[got] = '\0';
        if (strstr(line, needle) == NULL)
            continue;
        count++;
        if (used < n) {
            int k =
                snprintf(what + used, n - used, "  %ld: %.300s\n", pid, line);
            used += k > 0 ? (size_t)k : 0;
        }
    }
    closedir(d);
    return count;
}

/* Reads the run (lv may be NULL once it ended) until at least want
 * processes of argv0 (NULL: any) hold needle, or fails after ms. */
static void
wait_procs(box_world_live *lv, const char *argv0, const char *needle, int want,
           int ms)
{
    long long deadline = box_test_now_ms() + ms;
    char what[4096];
    int n;
    while ((n = procs_holding(argv0, needle, what, sizeof what)) < want) {
        if (box_test_now_ms() >= deadline) {
            fprintf(stderr, "%d process(es) holding %s, not %d:\n%s", n, needle,
                    want, what);
            if (lv != NULL)
                box_test_show("run", -1, box_world_live_text(lv, 1),
                              box_world_live_text(lv, 2));
            fail();
        }
        if (lv != NULL)
            box_world_live_pump(lv, 100);
        else
            usleep(100 * 1000);
    }
}

/* The same until no process holds needle. */
static void
wait_gone(box_world_live *lv, const char *needle, int ms)
{
    long long deadline = box_test_now_ms() + ms;
    char what[4096];
    int n;
    while ((n = procs_holding(NULL, needle, what, sizeof what)) > 0) {
        if (box_test_now_ms() >= deadline) {
            fprintf(stderr, "%d process(es) still hold %s:\n%s", n, needle,
                    what);
            if (lv != NULL)
                box_test_show("run", -1, box_world_live_text(lv, 1),
                              box_world_live_text(lv, 2));
            fail();
        }
        if (lv != NULL)
            box_world_live_pump(lv, 100);
        else
            usleep(100 * 1000);
    }
}

/* [tool.sleeper] running life_sleeper; the agent may run timeout and
 * sleep itself (for its own waits). */
static void
config_sleeper(box_world *w)
{
    char sleeper[PATH_MAX], extra[PATH_MAX + 64];
    helper_path("life_sleeper", sleeper);
    snprintf(extra, sizeof extra, "[tool.sleeper]\ncommand = [\"%s\"]\n",
             sleeper);
    box_world_config_agent(w, "exec = [\"/usr/bin/sleep\"]\n", extra);
    box_world_policy(w, permit_all);
}

/* Agent shell that waits (bounded) for the test's go file NAME. */
static int
wait_go(char *out, size_t n, const box_world *w, const char *name)
{
    return snprintf(out, n,
                    "i=0; while [ ! -e %s/%s ] && [ $i -lt 900 ]; do "
                    "sleep 0.1; i=$((i+1)); done\n",
                    w->bw_root, name);
}

static void
go(const box_world *w, const char *name)
{
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/%s", w->bw_root, name);
    box_world_put(p, "");
}

/*
 * Issue 17 item 4: the alias goes away mid-call (killed, as `timeout`
 * kills it), so the broker drops the worker. The host program it was
 * running (and the child that program put in a session of its own) dies
 * with it, while the box still runs; once box run returns, nothing it
 * started is left: services, zygote, workers, box-contain, leaves.
 */
static void
test_disconnect_ends_leaf(void **state)
{
    box_world *w = *state;
    config_sleeper(w);
    char sleeper[PATH_MAX], tag[PATH_MAX + 16], script[4 * PATH_MAX];
    helper_path("life_sleeper", sleeper);
    snprintf(tag, sizeof tag, "%s/tag-disconnect", w->bw_root);
    int k = snprintf(script, sizeof script, "sh -c '%s 80 %s --fork' & p=$!\n",
                     sleeper, tag);
    k += wait_go(script + k, sizeof script - (size_t)k, w, "go1");
    k += snprintf(script + k, sizeof script - (size_t)k,
                  "kill -KILL $p; wait $p; echo \"alias $?\"\n");
    k += wait_go(script + k, sizeof script - (size_t)k, w, "go2");
    snprintf(script + k, sizeof script - (size_t)k, "echo done\n");

    box_world_live lv;
    box_world_live_start(w, script, &lv);
    wait_procs(&lv, sleeper, tag, 2, LIFE_SEEN_MS); // it and its child
    go(w, "go1");
    box_world_live_wait(&lv, 1, "alias 137\n", 1, LIFE_RUN_MS);
    wait_gone(&lv, tag, LIFE_GONE_MS);
    go(w, "go2");
    box_proc_result r;
    box_world_live_finish(&lv, LIFE_RUN_MS, &r);
    if (r.pr_status != 0 || strcmp(r.pr_out, "alias 137\ndone\n") != 0)
        box_test_show("run", r.pr_status, r.pr_out, r.pr_err);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "alias 137\ndone\n");
    box_proc_result_free(&r);
    // Every process of the box names a path under the world's root.
    wait_gone(NULL, w->bw_root, LIFE_GONE_MS);
}

/* box run killed outright: every service, the agent and the host program
 * it runs die with it (nothing is left to stop them in order). */
static void
test_kill_box_run(void **state)
{
    box_world *w = *state;
    config_sleeper(w);
    char sleeper[PATH_MAX], tag[PATH_MAX + 16], script[2 * PATH_MAX];
    helper_path("life_sleeper", sleeper);
    snprintf(tag, sizeof tag, "%s/tag-kill", w->bw_root);
    snprintf(script, sizeof script, "sh -c '%s 80 %s --fork'\n", sleeper, tag);

    box_world_live lv;
    box_world_live_start(w, script, &lv);
    wait_procs(&lv, sleeper, tag, 2, LIFE_SEEN_MS);
    // box run, box-pdp, box-gateway, box-shell, the zygote, a worker, the
    // agent's box-contain, its init and the agent, the alias, the leaf's
    // box-contain and init, the program and its child: all name the
    // world's root.
    char what[4096];
    int n = procs_holding(NULL, w->bw_root, what, sizeof what);
    if (n < 14)
        fprintf(stderr, "only %d processes of the box:\n%s", n, what);
    assert_true(n >= 14);
    assert_int_equal(kill(lv.lv_proc.bp_pid, SIGKILL), 0);
    wait_gone(&lv, w->bw_root, LIFE_GONE_MS);
    box_proc_result r;
    box_world_live_finish(&lv, LIFE_RUN_MS, &r);
    assert_int_equal(r.pr_status, 128 + SIGKILL);
    box_proc_result_free(&r);
}

/*
 * The call's deadline (the 30 s budget, box-spec §3.1) ends the host
 * program it is running, counted from the call's start, not from the
 * program's: here 10 s of the budget are gone when it starts, so the call
 * ends with the spec's message before the alias gives up at 35 s.
 */
static void
test_deadline_ends_leaf(void **state)
{
    box_world *w = *state;
    config_sleeper(w);
    char sleeper[PATH_MAX], tag[PATH_MAX + 16], script[2 * PATH_MAX];
    helper_path("life_sleeper", sleeper);
    snprintf(tag, sizeof tag, "%s/tag-deadline", w->bw_root);
    snprintf(script, sizeof script,
             "sh -c 'sleep 10; %s 80 %s'; echo \"call $?\"\n", sleeper, tag);

    box_world_live lv;
    box_world_live_start(w, script, &lv);
    wait_procs(&lv, sleeper, tag, 1, LIFE_SEEN_MS);
    box_world_live_wait(&lv, 1, "call ", 1, LIFE_RUN_MS);
    wait_gone(&lv, tag, LIFE_GONE_MS);
    box_proc_result r;
    box_world_live_finish(&lv, LIFE_RUN_MS, &r);
    if (r.pr_status != 0 || strcmp(r.pr_out, "call 1\n") != 0)
        box_test_show("run", r.pr_status, r.pr_out, r.pr_err);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "call 1\n");
    const char *msg = "strands-shell: execution timeout exceeded\n";
    const char *at = strstr(r.pr_err, msg);
    assert_non_null(at);
    assert_null(strstr(at + 1, msg)); // said once
    box_proc_result_free(&r);
}

/*
 * The "also noticed": a background job of the call ends with the
 * call (as `bash -c` returns at once) instead of holding it to the 30 s
 * budget. An internal job, and a host program run as a job, whose leaf
 * dies when the call returns while the box runs on.
 */
static void
test_job_ends_with_call(void **state)
{
    box_world *w = *state;
    config_sleeper(w);
    char sleeper[PATH_MAX], tag[PATH_MAX + 16], script[4 * PATH_MAX];
    helper_path("life_sleeper", sleeper);
    snprintf(tag, sizeof tag, "%s/tag-job", w->bw_root);
    int k = snprintf(script, sizeof script,
                     "echo start\n"
                     "sh -c 'sleep 100 & echo bg'; echo \"internal $?\"\n"
                     "sh -c '%s 100 %s & while [ ! -e go1 ]; do sleep 0.1; "
                     "done; echo bg'; echo \"host $?\"\n",
                     sleeper, tag);
    k += wait_go(script + k, sizeof script - (size_t)k, w, "go2");
    snprintf(script + k, sizeof script - (size_t)k, "echo done\n");

    box_world_live lv;
    box_world_live_start(w, script, &lv);
    box_world_live_wait(&lv, 1, "start\n", 1, LIFE_RUN_MS);
    long long t0 = box_test_now_ms();
    box_world_live_wait(&lv, 1, "internal ", 1, LIFE_RUN_MS);
    long long internal_ms = box_test_now_ms() - t0;
    wait_procs(&lv, sleeper, tag, 1, LIFE_SEEN_MS);
    char p[PATH_MAX];
    snprintf(p, sizeof p, "%s/go1", w->bw_project);
    box_world_put(p, ""); // the call's foreground ends now
    t0 = box_test_now_ms();
    box_world_live_wait(&lv, 1, "host ", 1, LIFE_RUN_MS);
    long long host_ms = box_test_now_ms() - t0;
    wait_gone(&lv, tag, LIFE_GONE_MS);
    go(w, "go2");
    box_proc_result r;
    box_world_live_finish(&lv, LIFE_RUN_MS, &r);
    if (r.pr_status != 0 ||
        strcmp(r.pr_out, "start\nbg\ninternal 0\nbg\nhost 0\ndone\n") != 0)
        box_test_show("run", r.pr_status, r.pr_out, r.pr_err);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "start\nbg\ninternal 0\nbg\nhost 0\ndone\n");
    box_proc_result_free(&r);
    // Far below the 30 s budget the jobs used to hold the calls to.
    print_message("internal job call %lld ms, host job call %lld ms after "
                  "its foreground ended\n",
                  internal_ms, host_ms);
    assert_true(internal_ms <= 10000);
    assert_true(host_ms <= 10000);
}

/*
 * Issue 17 item 2, the PDP's half: a host program run by the box's shell
 * (a leaf) asks the PDP directly, as a hostile program that reached its
 * socket would. Nothing is decided and the decision log has no line for
 * it (whether the socket is hidden from the leaf or the PDP refuses the
 * connection), and the real shell still decides the next call.
 */
static void
test_forged_request_from_leaf(void **state)
{
    box_world *w = *state;
    char forge[PATH_MAX], extra[PATH_MAX + 64], script[4 * PATH_MAX];
    helper_path("pdp_forge", forge);
    snprintf(extra, sizeof extra, "[tool.forge]\ncommand = [\"%s\"]\n", forge);
    box_world_config(w, extra);
    box_world_policy(w, permit_all);
    snprintf(script, sizeof script,
             "sh -c '%s ipc://%s/private/pdp.sock leaf'; "
             "echo \"forge $?\"\n"
             "sh -c 'cat README.md'; echo \"cat $?\"\n",
             forge, w->bw_state);
    box_proc_result r;
    box_world_run(w, script, &r);
    const char *tail = "\nforge 1\n# project\ncat 0\n";
    if (r.pr_status != 0 || strncmp(r.pr_out, "refused: ", 9) != 0 ||
        strstr(r.pr_out, tail) == NULL)
        box_test_show("run", r.pr_status, r.pr_out, r.pr_err);
    assert_int_equal(r.pr_status, 0);
    assert_int_equal(strncmp(r.pr_out, "refused: ", 9), 0);
    assert_non_null(strstr(r.pr_out, tail));
    box_proc_result_free(&r);
    char p[PATH_MAX + 64];
    snprintf(p, sizeof p, "%s/private/telemetry/records.jsonl", w->bw_state);
    FILE *f = fopen(p, "r");
    assert_non_null(f);
    box_buf b;
    box_buf_init(&b, 64u << 20);
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0)
        assert_int_equal(box_buf_append(&b, buf, n), BOX_OK);
    fclose(f);
    const char *log = b.b_len ? b.b_data : "";
    assert_int_equal(box_test_count_lines(log, "forged-leaf"), 0);
    assert_int_equal(box_test_count_lines(log, "~/src/project/README.md"), 1);
    box_buf_reset(&b);
}

/*
 * Issue 18 review: the workers' cover over the policy is a mount on the
 * file, which the kernel takes off when the file is replaced by a rename.
 * A policy saved in place keeps it, and calls go on; one renamed over it
 * takes it off, and the shell then runs no more calls (fail closed), with
 * a message that says why and what to do.
 */
static void
test_policy_renamed_over(void **state)
{
    box_world *w = *state;
    box_world_config(w, "");
    box_world_policy(w, "permit (principal, action, resource);\n");
    char script[4 * PATH_MAX];
    int k = snprintf(script, sizeof script, "sh -c 'echo one'\n");
    k += wait_go(script + k, sizeof script - (size_t)k, w, "go1");
    k += snprintf(script + k, sizeof script - (size_t)k, "sh -c 'echo two'\n");
    k += wait_go(script + k, sizeof script - (size_t)k, w, "go2");
    snprintf(script + k, sizeof script - (size_t)k,
             "sh -c 'echo three'; echo \"status $?\"\n");

    box_world_live lv;
    box_world_live_start(w, script, &lv);
    box_world_live_wait(&lv, 1, "one\n", 1, LIFE_RUN_MS);
    box_world_put(w->bw_policy, "permit (principal, action, resource);\n"
                                "// saved in place\n");
    go(w, "go1");
    box_world_live_wait(&lv, 1, "two\n", 1, LIFE_RUN_MS);
    char tmp[PATH_MAX + 8];
    snprintf(tmp, sizeof tmp, "%s.new", w->bw_policy);
    box_world_put(tmp, "permit (principal, action, resource);\n");
    assert_int_equal(rename(tmp, w->bw_policy), 0);
    go(w, "go2");
    box_proc_result r;
    box_world_live_finish(&lv, LIFE_RUN_MS, &r);
    const char *want_err =
        "strands-box: box.toml or the policy file was replaced by a new file "
        "while the box ran (editors that save by renaming do this), which "
        "took it out from under the shell's cover: the shell runs no more "
        "calls; save it in place, and start the box again\n";
    if (r.pr_status != 0 || strcmp(r.pr_out, "one\ntwo\nstatus 125\n") != 0 ||
        strstr(r.pr_err, want_err) == NULL)
        box_test_show("run", r.pr_status, r.pr_out, r.pr_err);
    assert_int_equal(r.pr_status, 0);
    assert_string_equal(r.pr_out, "one\ntwo\nstatus 125\n");
    assert_non_null(strstr(r.pr_err, want_err));
    box_proc_result_free(&r);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
#define T(f)                                                                   \
    cmocka_unit_test_setup_teardown(f, box_world_setup, box_world_teardown)
        T(test_disconnect_ends_leaf),     T(test_kill_box_run),
        T(test_deadline_ends_leaf),       T(test_job_ends_with_call),
        T(test_forged_request_from_leaf), T(test_policy_renamed_over),
#undef T
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
