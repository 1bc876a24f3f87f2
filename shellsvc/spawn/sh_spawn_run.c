/* SPDX-License-Identifier: Apache-2.0 */
/* One contained run: started by the launcher, captured, its deadline kept,
 * its status read, its output relayed. */
#include "sh_spawn_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_status.h"
#include "box_buf.h"
#include "forker.h"
#include "sh_launcher.h"

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
    int ru_status_fd;    // the status pipe's read end; -1 once closed (killed)
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
 * The whole group dies: closing the status pipe makes the launcher kill
 * box-contain's process group, and its init (killed with it through
 * PDEATHSIG) takes the program's pid namespace along.
 */
static void
sp_kill(sp_run *r)
{
    if (r->ru_killed)
        return;
    if (r->ru_status_fd >= 0)
        close(r->ru_status_fd);
    r->ru_status_fd = -1;
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

/*
 * The pipes closed with box-contain's exit; its status follows on the
 * status pipe. Never wait past the deadline for a run that lingers.
 * Returns the status, -1 when the run was killed, or below -1: the
 * negated errno of a run that could not start or was lost.
 */
static int
sp_reap(sp_run *r)
{
    for (;;) {
        if (r->ru_killed)
            return -1;
        int ws = 0;
        box_err rv = forker_wait(r->ru_status_fd, SH_SPAWN_STOP_POLL_MS, &ws);
        if (rv == BOX_OK && ws < 0)
            return ws < FORKER_NOT_STARTED ? ws : -EIO;
        if (rv == BOX_OK)
            return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
        if (rv != BOX_ETIMEDOUT)
            return -EPIPE; // the launcher went away without saying
        if (sp_now_ms() >= r->ru_deadline) {
            r->ru_timed_out = true;
            sp_kill(r);
        } else {
            sp_check_stop(r);
        }
    }
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

/* n pipes: the read ends in rd, the write ends in wr. */
static int
sp_pipes(int *rd[], int wr[], int n)
{
    int p[2], rc;

    for (int i = 0; i < n; i++) {
        if (pipe2(p, O_CLOEXEC) != 0)
            return errno;
        *rd[i] = p[0];
        wr[i] = p[1];
        if ((rc = sp_fd_high(rd[i])) != 0 || (rc = sp_fd_high(&wr[i])) != 0)
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
sh_spawn_watch(sh_spawn_start_fn start, void *start_ctx,
               const sh_spawn_run_opts *o, int *status, char **err)
{
    sp_run r = {.ru_status_fd = -1,
                .ru_stop = o ? o->ro_stop : NULL,
                .ru_stop_ctx = o ? o->ro_ctx : NULL};
    int wr[2] = {-1, -1}, rc;
    box_err rv;

    *err = NULL;
    *status = BOX_STATUS_CANNOT_RUN;
    if (start == NULL || o == NULL)
        return BOX_EINVAL;
    const char *contain = o->ro_contain ? o->ro_contain : "box-contain";
    long timeout =
        o->ro_timeout_ms > 0 ? o->ro_timeout_ms : SH_SPAWN_TIMEOUT_MS;
    r.ru_max = o->ro_max_output ? o->ro_max_output : SH_SPAWN_MAX_OUTPUT;
    r.ru_out[0].ss_fd = r.ru_out[1].ss_fd = -1;
    box_buf_init(&r.ru_out[0].ss_buf, r.ru_max);
    box_buf_init(&r.ru_out[1].ss_buf, r.ru_max);
    r.ru_deadline = sp_now_ms() + timeout;
    int *rd[2] = {&r.ru_out[0].ss_fd, &r.ru_out[1].ss_fd};
    if ((rc = sp_pipes(rd, wr, 2)) != 0) {
        *err = sp_start_error(contain, "start", rc);
        rv = *err != NULL ? BOX_EIO : BOX_ENOMEM;
        goto out;
    }
    int io[3] = {o->ro_stdin, wr[0], wr[1]};
    rv = start(start_ctx, io, &r.ru_status_fd, status, err);
    for (int i = 0; i < 2; i++) {
        close(wr[i]); // only the run holds the write ends now
        wr[i] = -1;
    }
    if (rv == BOX_EDENIED)
        goto out;
    if (rv != BOX_OK) {
        if (*err == NULL && rv != BOX_ENOMEM)
            *err = sp_start_error(contain, "reach",
                                  rv == BOX_ECLOSED ? EPIPE : EIO);
        *status = BOX_STATUS_CANNOT_RUN;
        rv = rv == BOX_ENOMEM || *err == NULL ? BOX_ENOMEM : BOX_EIO;
        goto out;
    }
    sp_capture(&r);
    if ((rc = sp_reap(&r)) < -1) {
        *err = sp_start_error(contain, "start", -rc);
        rv = *err != NULL ? BOX_EIO : BOX_ENOMEM;
        goto out;
    }
    *status = rc < 0 ? 1 : rc;
    sp_relay(&r, o);
    rv = sp_outcome(&r, status, err);
out:
    for (int i = 0; i < 2; i++) {
        if (wr[i] >= 0)
            close(wr[i]);
    }
    if (r.ru_status_fd >= 0)
        close(r.ru_status_fd);
    sp_close(&r.ru_out[0]);
    sp_close(&r.ru_out[1]);
    box_buf_reset(&r.ru_out[0].ss_buf);
    box_buf_reset(&r.ru_out[1].ss_buf);
    return rv;
}

/* sh_spawn_run's start: the plan's argv to the launcher. */
typedef struct sp_local {
    const sh_spawn_plan *lo_plan;
    const sh_spawn_run_opts *lo_opts;
} sp_local;

static box_err
sp_local_start(void *ctx, const int io[3], int *status_fd, int *status,
               char **err)
{
    sp_local *lo = ctx;
    box_argv argv = {0};
    (void)status;
    (void)err;
    box_err rv = sh_spawn_contain_argv(lo->lo_plan, lo->lo_opts, &argv);
    if (rv == BOX_OK)
        rv =
            sh_launcher_run(lo->lo_opts->ro_launcher, argv.av_v, io, status_fd);
    box_argv_free(&argv);
    return rv;
}

box_err
sh_spawn_run(const sh_spawn_plan *plan, const sh_spawn_run_opts *o, int *status,
             char **err)
{
    *err = NULL;
    *status = BOX_STATUS_CANNOT_RUN;
    if (plan == NULL || o == NULL || o->ro_contain == NULL ||
        o->ro_contain[0] != '/' || o->ro_launcher == NULL)
        return BOX_EINVAL;
    sp_local lo = {.lo_plan = plan, .lo_opts = o};
    return sh_spawn_watch(sp_local_start, &lo, o, status, err);
}
