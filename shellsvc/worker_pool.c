/* SPDX-License-Identifier: Apache-2.0 */
/* The zygote (a forker of workers) and the broker's side of talking to it. */
#include "worker_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box_alloc.h"
#include "forker.h"
#include "worker_confine.h"

#define ZYG_NAME "box-shell-zyg"
#define ZYG_CHAN_FD 3 // where a worker finds its channel
#define ZYG_FDS_FD 4  // and its descriptor socket
#define ZYG_OP_SPAWN 'S'

struct worker_pool {
    forker *wp_zygote;
    worker_limits wp_lim; // the zygote's copy is what its workers use
};

/*
 * The worker child: never returns. Every descriptor but 0-2, the channel
 * and the descriptor socket is closed before the call is read. It dies
 * with the zygote (checked after asking, so a zygote that died first is
 * seen) and leads a process group of its own, which the zygote kills as
 * a whole when the call ends.
 */
static void __attribute__((noreturn))
zyg_worker_child(int chan, int fds, pid_t zygote, const worker_limits *lim)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != zygote)
        _exit(1);
    if (setpgid(0, 0) != 0)
        _exit(1);
    // The zygote's request socket sits at 3, so both land above it first.
    if (dup2(chan, ZYG_CHAN_FD) < 0 ||
        (fds = fcntl(fds, F_DUPFD, ZYG_FDS_FD)) < 0 ||
        dup2(fds, ZYG_FDS_FD) < 0)
        _exit(1);
    if (close_range(ZYG_FDS_FD + 1, ~0u, 0) != 0)
        _exit(1);
    (void)prctl(PR_SET_NAME, "box-shell-work");
    // A crash must end the process with its signal, so the broker can
    // report it; SIGPIPE stays ignored (a closed pipe is an error).
    static const int dfl[] = {SIGSEGV, SIGBUS,  SIGILL, SIGFPE, SIGABRT,
                              SIGCHLD, SIGTERM, SIGINT, SIGHUP};
    for (size_t i = 0; i < sizeof dfl / sizeof dfl[0]; i++)
        signal(dfl[i], SIG_DFL);
    signal(SIGPIPE, SIG_IGN);
    // Its own group is a background one on box run's terminal: a line on
    // stderr must not stop it (stty tostop), a read gets EIO.
    signal(SIGTTOU, SIG_IGN);
    signal(SIGTTIN, SIG_IGN);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (worker_apply_limits(lim) != BOX_OK || worker_confine_signals() != 0)
        _exit(1);
    int (*body)(int, int, const worker_settings *) =
        lim->wl_body != NULL ? lim->wl_body : worker_main;
    _exit(body(ZYG_CHAN_FD, ZYG_FDS_FD, lim->wl_settings));
}

/* The zygote confines itself before it forks any worker. */
static int
zyg_prepare(void *ctx)
{
    const worker_limits *lim = ctx;
    return worker_confine(lim->wl_settings);
}

/* The zygote's start function: fds are the channel and the descriptor
 * socket. */
static int
zyg_start(void *ctx, char op, const int *fds, size_t n, pid_t *pid)
{
    const worker_limits *lim = ctx;
    if (op != ZYG_OP_SPAWN || n != 2)
        return EINVAL;
    pid_t self = getpid();
    pid_t child = fork();
    if (child < 0)
        return errno;
    if (child == 0)
        zyg_worker_child(fds[0], fds[1], self, lim);
    (void)setpgid(child, child); // both sides: no kill can beat it
    *pid = child;
    return 0;
}

box_err
worker_pool_start(const worker_limits *l, worker_pool **out)
{
    worker_pool *p = box_calloc(1, sizeof *p);
    if (p == NULL)
        return BOX_ENOMEM;
    p->wp_lim = *l;
    box_err rv = forker_start(ZYG_NAME, zyg_start, &p->wp_lim, zyg_prepare,
                              &p->wp_zygote);
    if (rv != BOX_OK) {
        box_free(p);
        return rv;
    }
    *out = p;
    return BOX_OK;
}

box_err
worker_pool_spawn(worker_pool *p, worker_ends *out)
{
    int sv[2] = {-1, -1}, fv[2] = {-1, -1}, pp[2] = {-1, -1};
    box_err rv = BOX_EIO;
    out->we_chan = out->we_fds = out->we_status = -1;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
        socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fv) != 0 ||
        pipe2(pp, O_CLOEXEC) != 0)
        goto out;
    int fds[3] = {pp[1], sv[1], fv[1]};
    if ((rv = forker_request(p->wp_zygote, ZYG_OP_SPAWN, fds, 3)) != BOX_OK)
        goto out;
    out->we_chan = sv[0];
    out->we_fds = fv[0];
    out->we_status = pp[0];
    sv[0] = fv[0] = pp[0] = -1;
out:
    // The zygote holds its own copies of the worker's ends now.
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0)
            close(sv[i]);
        if (fv[i] >= 0)
            close(fv[i]);
        if (pp[i] >= 0)
            close(pp[i]);
    }
    return rv;
}

box_err
worker_pool_wait(int status, int timeout_ms, int *wstatus)
{
    return forker_wait(status, timeout_ms, wstatus);
}

int
worker_pool_fd(const worker_pool *p)
{
    return forker_fd(p->wp_zygote);
}

void
worker_pool_stop(worker_pool *p)
{
    if (p == NULL)
        return;
    forker_stop(p->wp_zygote);
    box_free(p);
}
