/* SPDX-License-Identifier: Apache-2.0 */
/* Runs real programs for the integration tests, with captured output. */
#include "box_proc.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"

extern char **environ;

/* Programs started and not yet reaped. A failed assertion leaves its test
 * early; whatever it started is killed when the test binary exits, so a
 * red test never leaves services behind. (Test-only process state.) */
#define PROC_LIVE_MAX 256
static pid_t proc_live[PROC_LIVE_MAX];
static bool proc_atexit_set;

static void
proc_kill_live(void)
{
    for (int i = 0; i < PROC_LIVE_MAX; i++) {
        if (proc_live[i] > 0) {
            kill(proc_live[i], SIGKILL);
            waitpid(proc_live[i], NULL, 0);
            proc_live[i] = 0;
        }
    }
}

static void
proc_track(pid_t pid, bool add)
{
    if (!proc_atexit_set) {
        atexit(proc_kill_live);
        proc_atexit_set = true;
    }
    for (int i = 0; i < PROC_LIVE_MAX; i++) {
        if (add && proc_live[i] == 0) {
            proc_live[i] = pid;
            return;
        }
        if (!add && proc_live[i] == pid) {
            proc_live[i] = 0;
            return;
        }
    }
}

const char *
box_proc_bin(char *buf, unsigned long n, const char *name)
{
    const char *dir = getenv("BOX_BUILD_DIR");
    snprintf(buf, n, "%s/bin/%s", dir ? dir : ".", name);
    return buf;
}

bool
box_proc_start(box_proc *p, char *const argv[], char *const envp[])
{
    int out[2], err[2];
    if (pipe2(out, O_CLOEXEC) != 0)
        return false;
    if (pipe2(err, O_CLOEXEC) != 0) {
        close(out[0]);
        close(out[1]);
        return false;
    }
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, out[1], 1);
    posix_spawn_file_actions_adddup2(&fa, err[1], 2);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    int rv = posix_spawn(&p->bp_pid, argv[0], &fa, NULL, argv,
                         envp ? envp : environ);
    posix_spawn_file_actions_destroy(&fa);
    close(out[1]);
    close(err[1]);
    if (rv != 0) {
        close(out[0]);
        close(err[0]);
        return false;
    }
    p->bp_out_fd = out[0];
    p->bp_err_fd = err[0];
    proc_track(p->bp_pid, true);
    return true;
}

static long long
proc_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
box_proc_finish(box_proc *p, int timeout_ms, box_proc_result *r)
{
    box_buf out, err;
    box_buf_init(&out, 64u << 20);
    box_buf_init(&err, 64u << 20);
    memset(r, 0, sizeof *r);
    long long deadline = proc_now_ms() + timeout_ms;
    struct pollfd fds[2] = {{.fd = p->bp_out_fd, .events = POLLIN},
                            {.fd = p->bp_err_fd, .events = POLLIN}};
    int open_fds = 2;
    while (open_fds > 0) {
        long long left = deadline - proc_now_ms();
        if (left <= 0) {
            kill(p->bp_pid, SIGKILL);
            r->pr_timeout = true;
            break;
        }
        int n = poll(fds, 2, (int)left);
        if (n < 0 && errno == EINTR)
            continue;
        for (int i = 0; i < 2; i++) {
            if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP)))
                continue;
            char buf[65536];
            ssize_t got = read(fds[i].fd, buf, sizeof buf);
            if (got <= 0) {
                fds[i].fd = -1;
                open_fds--;
                continue;
            }
            if (box_buf_append(i == 0 ? &out : &err, buf, (size_t)got) !=
                BOX_OK)
                abort();
        }
    }
    close(p->bp_out_fd);
    close(p->bp_err_fd);
    int st = 0;
    // Output closed; the process may still be running (a daemonised child
    // can hold the pipes): bound the wait as well.
    while (waitpid(p->bp_pid, &st, WNOHANG) == 0) {
        if (proc_now_ms() > deadline) {
            kill(p->bp_pid, SIGKILL);
            r->pr_timeout = true;
            waitpid(p->bp_pid, &st, 0);
            break;
        }
        usleep(5000);
    }
    proc_track(p->bp_pid, false);
    r->pr_status = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
    r->pr_out = box_buf_take(&out);
    r->pr_err = box_buf_take(&err);
}

void
box_proc_run(char *const argv[], int timeout_ms, box_proc_result *r)
{
    box_proc p;
    if (!box_proc_start(&p, argv, NULL)) {
        memset(r, 0, sizeof *r);
        r->pr_status = -1;
        r->pr_out = box_strdup("");
        r->pr_err = box_strdup("spawn failed");
        return;
    }
    box_proc_finish(&p, timeout_ms, r);
}

void
box_proc_result_free(box_proc_result *r)
{
    box_free(r->pr_out);
    box_free(r->pr_err);
    r->pr_out = r->pr_err = NULL;
}
