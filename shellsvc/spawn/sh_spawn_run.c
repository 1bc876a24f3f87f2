/* SPDX-License-Identifier: Apache-2.0 */
/* One contained run: posix_spawn box-contain, capture, deadline, relay. */
#include "sh_spawn_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_svc.h"
#include "box_buf.h"

/* After the kill, how long the pipes may take to close before we stop
 * reading them (every holder is in the killed group, so this is slack). */
#define SP_KILL_GRACE_MS 5000L

/* One captured stream. */
typedef struct sp_stream {
    int ss_fd; // read end; -1 once closed
    box_buf ss_buf;
    bool ss_over; // more arrived than the cap holds
} sp_stream;

/* The run's progress, for the loop and its report. */
typedef struct sp_run {
    pid_t ru_pid;
    sp_stream ru_out[2]; // stdout, stderr
    size_t ru_max;
    long ru_deadline; // monotonic ms
    long ru_grace;    // monotonic ms, once killed
    sh_spawn_stop_fn ru_stop;
    void *ru_stop_ctx;
    bool ru_killed;
    bool ru_timed_out;
    bool ru_canceled; // ru_stop said stop
    bool ru_nomem;
} sp_run;

static long
sp_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long)ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/*
 * The whole group dies: box-contain leads it, and its init (killed with it
 * through PDEATHSIG) takes the program's pid namespace along.
 */
static void
sp_kill(sp_run *r)
{
    if (r->ru_killed)
        return;
    killpg(r->ru_pid, SIGKILL);
    r->ru_killed = true;
    r->ru_grace = sp_now_ms() + SP_KILL_GRACE_MS;
}

static void
sp_close(sp_stream *s)
{
    if (s->ss_fd >= 0)
        close(s->ss_fd);
    s->ss_fd = -1;
}

/* One read: keep what fits under the cap; past it, stop the run. */
static void
sp_take(sp_run *r, sp_stream *s)
{
    char chunk[65536];
    ssize_t n = read(s->ss_fd, chunk, sizeof chunk);

    if (n < 0 && (errno == EINTR || errno == EAGAIN))
        return;
    if (n <= 0) {
        sp_close(s);
        return;
    }
    if (s->ss_over || r->ru_nomem)
        return; // killed already; drain to EOF
    size_t room = r->ru_max - s->ss_buf.b_len;
    size_t keep = (size_t)n < room ? (size_t)n : room;
    if (keep > 0 && box_buf_append(&s->ss_buf, chunk, keep) != BOX_OK)
        r->ru_nomem = true;
    if ((size_t)n > room)
        s->ss_over = true;
    if (s->ss_over || r->ru_nomem)
        sp_kill(r);
}

/* The caller's call is over (its deadline passed, or it returned while
 * this run was a background job): the run ends with it. */
static void
sp_check_stop(sp_run *r)
{
    if (!r->ru_killed && r->ru_stop != NULL && r->ru_stop(r->ru_stop_ctx)) {
        r->ru_canceled = true;
        sp_kill(r);
    }
}

/* Reads both pipes until they close, the deadline passes, a cap does, or
 * the caller says stop. */
static void
sp_capture(sp_run *r)
{
    while (r->ru_out[0].ss_fd >= 0 || r->ru_out[1].ss_fd >= 0) {
        struct pollfd p[2];
        long now = sp_now_ms();

        if (!r->ru_killed && now >= r->ru_deadline) {
            r->ru_timed_out = true;
            sp_kill(r);
        }
        sp_check_stop(r);
        if (r->ru_killed && now >= r->ru_grace)
            break;
        for (int i = 0; i < 2; i++) {
            p[i].fd = r->ru_out[i].ss_fd;
            p[i].events = POLLIN;
            p[i].revents = 0;
        }
        long left = (r->ru_killed ? r->ru_grace : r->ru_deadline) - now;
        if (left > SH_SPAWN_STOP_POLL_MS)
            left = SH_SPAWN_STOP_POLL_MS;
        if (poll(p, 2, (int)left) < 0)
            continue; // EINTR; the clock is checked above
        for (int i = 0; i < 2; i++) {
            if (p[i].revents != 0)
                sp_take(r, &r->ru_out[i]);
        }
    }
    sp_close(&r->ru_out[0]);
    sp_close(&r->ru_out[1]);
}

/* The pipes closed with box-contain's exit; still, never wait past the
 * deadline for a child that lingers. */
static int
sp_reap(sp_run *r)
{
    int ws = 0;

    for (;;) {
        pid_t got = waitpid(r->ru_pid, &ws, r->ru_killed ? 0 : WNOHANG);
        if (got == r->ru_pid)
            break;
        if (got < 0 && errno != EINTR)
            return -1;
        if (got == 0 && sp_now_ms() >= r->ru_deadline) {
            r->ru_timed_out = true;
            sp_kill(r);
        } else if (got == 0) {
            sp_check_stop(r);
            struct timespec ts = {0, 1000000L};
            nanosleep(&ts, NULL);
        }
    }
    if (WIFEXITED(ws))
        return WEXITSTATUS(ws);
    return 128 + WTERMSIG(ws);
}

/*
 * box-contain runs in its own process group (so a deadline can kill the
 * whole run, and a program cannot signal the worker's group with
 * kill(0, ...)), with default signal dispositions, nothing blocked, an
 * environment of its own holding only the tie to this process (the
 * program's is the --env set) and exactly three descriptors: stdin, and
 * the two pipes. Tied, it dies with the thread that runs this (which
 * waits for it), so a worker killed mid-call takes its leaves along.
 */
static int
sp_spawn(sp_run *r, char *const *argv, int in, const int out[2])
{
    posix_spawn_file_actions_t fa;
    char *envp[] = {NULL};
    int rc;

    if ((rc = posix_spawn_file_actions_init(&fa)) != 0)
        return rc;
    rc = in >= 0 ? posix_spawn_file_actions_adddup2(&fa, in, 0)
                 : posix_spawn_file_actions_addopen(&fa, 0, "/dev/null",
                                                    O_RDONLY, 0);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, out[0], 1);
    if (rc == 0)
        rc = posix_spawn_file_actions_adddup2(&fa, out[1], 2);
    if (rc == 0)
        rc = box_svc_spawn(&r->ru_pid, argv[0], &fa, argv, envp,
                           BOX_SPAWN_NEW_GROUP | BOX_SPAWN_TIED);
    posix_spawn_file_actions_destroy(&fa);
    return rc;
}

/*
 * Both pipes, close-on-exec (the child gets its ends by dup2 only), and
 * above 2: a caller running with a standard descriptor closed would
 * otherwise get one back here, and the child's dup2 sequence would
 * overwrite a pipe end before using it.
 */
static int
sp_fd_high(int *fd)
{
    if (*fd > 2)
        return 0;
    int n = fcntl(*fd, F_DUPFD_CLOEXEC, 3);
    if (n < 0)
        return errno;
    close(*fd);
    *fd = n;
    return 0;
}

static int
sp_pipes(sp_run *r, int wr[2])
{
    int p[2], rc;

    for (int i = 0; i < 2; i++) {
        if (pipe2(p, O_CLOEXEC) != 0)
            return errno;
        r->ru_out[i].ss_fd = p[0];
        wr[i] = p[1];
        if ((rc = sp_fd_high(&r->ru_out[i].ss_fd)) != 0 ||
            (rc = sp_fd_high(&wr[i])) != 0)
            return rc;
    }
    return 0;
}

static void
sp_relay(const sp_run *r, const sh_spawn_run_opts *o)
{
    for (int i = 0; i < 2 && o->ro_write != NULL; i++) {
        if (r->ru_out[i].ss_buf.b_len > 0)
            o->ro_write(o->ro_ctx, i + 1, r->ru_out[i].ss_buf.b_data,
                        r->ru_out[i].ss_buf.b_len);
    }
}

/* Why the run ended early, in the caller's message form. */
static box_err
sp_outcome(const sp_run *r, int *status, char **err)
{
    if (r->ru_nomem)
        return BOX_ENOMEM;
    if (r->ru_canceled) {
        *status = 1;
        return BOX_ECANCELED;
    }
    if (r->ru_timed_out) {
        *status = 1;
        *err = box_strdup(SH_SPAWN_TIMEOUT_MSG);
        return *err != NULL ? BOX_ETIMEDOUT : BOX_ENOMEM;
    }
    for (int i = 0; i < 2; i++) {
        if (!r->ru_out[i].ss_over)
            continue;
        *status = 1;
        *err = box_asprintf("the program's %s passed the capture limit of "
                            "%zu bytes, so the program was stopped",
                            i == 0 ? "standard output" : "standard error",
                            r->ru_max);
        return *err != NULL ? BOX_ETOOBIG : BOX_ENOMEM;
    }
    return BOX_OK;
}

/* Could not start (or lost) the run: the caller's message, or NULL. */
static char *
sp_start_error(const char *contain, const char *what, int rc)
{
    if (rc == ENOENT)
        return box_strdup("host-binary execution requires a contained "
                          "spawner; none is installed");
    return box_asprintf("cannot %s the contained spawner %s: %s", what, contain,
                        strerror(rc));
}

box_err
sh_spawn_run(const sh_spawn_plan *plan, const sh_spawn_run_opts *o, int *status,
             char **err)
{
    sp_run r = {.ru_pid = -1,
                .ru_stop = o ? o->ro_stop : NULL,
                .ru_stop_ctx = o ? o->ro_ctx : NULL};
    box_argv argv = {0};
    int wr[2] = {-1, -1}, rc;
    long timeout;
    box_err rv;

    *err = NULL;
    *status = 126;
    if (plan == NULL || o == NULL || o->ro_contain == NULL ||
        o->ro_contain[0] != '/')
        return BOX_EINVAL;
    timeout = o->ro_timeout_ms > 0 ? o->ro_timeout_ms : SH_SPAWN_TIMEOUT_MS;
    r.ru_max = o->ro_max_output ? o->ro_max_output : SH_SPAWN_MAX_OUTPUT;
    r.ru_out[0].ss_fd = r.ru_out[1].ss_fd = -1;
    box_buf_init(&r.ru_out[0].ss_buf, r.ru_max);
    box_buf_init(&r.ru_out[1].ss_buf, r.ru_max);
    if ((rv = sp_cmd_build(plan, o, &argv)) != BOX_OK)
        goto out;
    r.ru_deadline = sp_now_ms() + timeout;
    if ((rc = sp_pipes(&r, wr)) == 0)
        rc = sp_spawn(&r, argv.av_v, o->ro_stdin, wr);
    for (int i = 0; i < 2; i++) {
        if (wr[i] >= 0)
            close(wr[i]); // only the child holds the write ends now
    }
    if (rc != 0) {
        *err = sp_start_error(o->ro_contain, "start", rc);
        rv = *err != NULL ? BOX_EIO : BOX_ENOMEM;
        goto out;
    }
    sp_capture(&r);
    if ((rc = sp_reap(&r)) < 0) {
        // Someone else reaped it (a SIGCHLD handler calling wait).
        *err = sp_start_error(o->ro_contain, "collect the status of", errno);
        rv = *err != NULL ? BOX_EIO : BOX_ENOMEM;
        goto out;
    }
    *status = rc;
    sp_relay(&r, o);
    rv = sp_outcome(&r, status, err);
out:
    sp_close(&r.ru_out[0]);
    sp_close(&r.ru_out[1]);
    box_argv_free(&argv);
    box_buf_reset(&r.ru_out[0].ss_buf);
    box_buf_reset(&r.ru_out[1].ss_buf);
    return rv;
}
