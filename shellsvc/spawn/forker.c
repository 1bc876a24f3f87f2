/* SPDX-License-Identifier: Apache-2.0 */
/* The forker process (zygote, launcher) and the broker's side of it. */
#include "forker.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_fdpass.h"
#include "box_log.h"
#include "box_svc.h"

#define FK_SVC "box-shell"
#define FK_CHILDREN_MAX 256 // live children; 64 connections plus stragglers
#define FK_STOP_WAIT_MS 3000
#define FK_READY_MS 30000 // prepare is a few system calls; a loaded machine
#define FK_READY 'R'

struct forker {
    int fk_ctl; // SOCK_SEQPACKET to the forker
    pid_t fk_pid;
    pthread_mutex_t fk_mu; // one request at a time on fk_ctl
};

/* One live child, as the forker sees it. */
typedef struct fk_child {
    pid_t fc_pid;   // 0: free slot
    int fc_status;  // write end of the child's status pipe
    bool fc_killed; // the reader closed the pipe; SIGKILL sent
} fk_child;

/* The forker's own state, on its stack. */
typedef struct fk_loop {
    fk_child fl_kids[FK_CHILDREN_MAX];
    forker_ops fl_ops;
    void *fl_ctx;
} fk_loop;

/* ------------------------------------------------------------------ */
/* Forker side: everything below runs in the single-threaded forker.   */
/* ------------------------------------------------------------------ */

static void
fk_report(int fd, int wstatus)
{
    ssize_t n;
    do {
        n = write(fd, &wstatus, sizeof wstatus);
    } while (n < 0 && errno == EINTR);
    // EPIPE: nobody listens any more; nothing more to do.
}

/*
 * Ends a child and whatever shares its process group. Called only while
 * the child is unreaped (alive or a zombie), so its pid, and the group
 * named by it, cannot have been reused.
 */
static void
fk_kill(pid_t pid)
{
    if (killpg(pid, SIGKILL) != 0)
        (void)kill(pid, SIGKILL); // the group was never made
}

static void
fk_spawn(fk_loop *l, char op, int *fds, int n)
{
    fk_child *slot = NULL;
    for (size_t i = 0; i < FK_CHILDREN_MAX && slot == NULL; i++) {
        if (l->fl_kids[i].fc_pid == 0)
            slot = &l->fl_kids[i];
    }
    pid_t pid = -1;
    int err = slot == NULL ? EAGAIN
                           : l->fl_ops.fo_start(l->fl_ctx, op, fds + 1,
                                                (size_t)(n - 1), &pid);
    for (int i = 1; i < n; i++)
        close(fds[i]); // the child has its own copies
    if (err != 0 || pid <= 0) {
        fk_report(fds[0], err > 0 ? -err : FORKER_NOT_STARTED);
        close(fds[0]);
        return;
    }
    slot->fc_pid = pid;
    slot->fc_status = fds[0];
    slot->fc_killed = false;
}

static void
fk_reap(fk_loop *l, int sfd)
{
    struct signalfd_siginfo ssi;
    while (read(sfd, &ssi, sizeof ssi) == (ssize_t)sizeof ssi)
        ;
    for (;;) {
        // Peek first: while the child is a zombie its group id is still
        // reserved, so what is left in the group can be killed safely.
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 ||
            si.si_pid <= 0)
            return;
        pid_t pid = si.si_pid;
        (void)killpg(pid, SIGKILL);
        int st;
        if (waitpid(pid, &st, 0) != pid)
            return;
        for (size_t i = 0; i < FK_CHILDREN_MAX; i++) {
            fk_child *k = &l->fl_kids[i];
            if (k->fc_pid != pid)
                continue;
            if (!k->fc_killed)
                fk_report(k->fc_status, st);
            close(k->fc_status);
            k->fc_pid = 0;
            break;
        }
    }
}

/* Started children not yet reaped. */
static size_t
fk_live(const fk_loop *l)
{
    size_t n = 0;
    for (size_t i = 0; i < FK_CHILDREN_MAX; i++)
        n += l->fl_kids[i].fc_pid != 0;
    return n;
}

/*
 * The forker's loop: requests on ctl, SIGCHLD on a signalfd, and each
 * live child's status pipe (POLLERR once its reader closes: kill that
 * child). Ends when the broker closes ctl: kills and reaps every child,
 * then exits.
 */
static void __attribute__((noreturn))
fk_main(int ctl, pid_t parent, const char *name, const forker_ops *ops,
        void *ctx)
{
    static fk_loop l; // the forker's one state; too big for some stacks
    struct pollfd pfd[FK_CHILDREN_MAX + 2];
    size_t who[FK_CHILDREN_MAX + 2];

    memset(&l, 0, sizeof l);
    l.fl_ops = *ops;
    l.fl_ctx = ctx;
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(0); // box-shell died before PDEATHSIG was set
    (void)prctl(PR_SET_NAME, name);
    if (dup2(ctl, FORKER_CTL_FD) < 0 ||
        close_range(FORKER_CTL_FD + 1, ~0u, 0) != 0)
        _exit(1);
    ctl = FORKER_CTL_FD;
    // Confined first, with nothing open but the request socket.
    if (ops->fo_prepare != NULL && ops->fo_prepare(ctx) != 0)
        _exit(1);
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0)
        _exit(1);
    // Only now is the forker what it must be; the parent waits for this.
    char ready = FK_READY;
    if (send(ctl, &ready, 1, MSG_NOSIGNAL) != 1)
        _exit(1);

    for (;;) {
        size_t n = 0;
        pfd[n++] = (struct pollfd){.fd = ctl, .events = POLLIN};
        pfd[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
        for (size_t i = 0; i < FK_CHILDREN_MAX; i++) {
            if (l.fl_kids[i].fc_pid == 0 || l.fl_kids[i].fc_killed)
                continue;
            who[n] = i;
            pfd[n++] =
                (struct pollfd){.fd = l.fl_kids[i].fc_status, .events = 0};
        }
        if (poll(pfd, (nfds_t)n, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (pfd[1].revents & POLLIN) {
            fk_reap(&l, sfd);
            if (l.fl_ops.fo_reaped != NULL)
                l.fl_ops.fo_reaped(ctx, fk_live(&l));
        }
        for (size_t k = 2; k < n; k++) {
            fk_child *x = &l.fl_kids[who[k]];
            if (pfd[k].revents == 0 || x->fc_pid == 0 || x->fc_killed ||
                x->fc_status != pfd[k].fd)
                continue;
            fk_kill(x->fc_pid); // not reaped yet, so still ours
            x->fc_killed = true;
        }
        if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            char op = 0;
            int fds[FORKER_FDS_MAX];
            int got = box_fdpass_recv(ctl, &op, fds, FORKER_FDS_MAX, 0);
            if (got == BOX_FDPASS_NONE)
                break; // the broker is gone or stopping
            if (got > 0)
                fk_spawn(&l, op, fds, got);
        }
    }
    for (size_t i = 0; i < FK_CHILDREN_MAX; i++) {
        if (l.fl_kids[i].fc_pid != 0)
            fk_kill(l.fl_kids[i].fc_pid);
    }
    for (size_t i = 0; i < FK_CHILDREN_MAX; i++) {
        if (l.fl_kids[i].fc_pid != 0)
            (void)waitpid(l.fl_kids[i].fc_pid, NULL, 0);
    }
    _exit(0);
}

/* ------------------------------------------------------------------ */
/* Broker side.                                                        */
/* ------------------------------------------------------------------ */

box_err
forker_start(const char *name, const forker_ops *ops, void *ctx, forker **out)
{
    int sv[2];
    forker *f = box_calloc(1, sizeof *f);
    if (f == NULL)
        return BOX_ENOMEM;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        box_free(f);
        return BOX_EIO;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        box_free(f);
        return BOX_EIO;
    }
    if (pid == 0) {
        close(sv[0]);
        fk_main(sv[1], parent, name, ops, ctx);
    }
    close(sv[1]);
    f->fk_ctl = sv[0];
    f->fk_pid = pid;
    pthread_mutex_init(&f->fk_mu, NULL);
    // A forker that could not confine itself says nothing and exits: no
    // child is ever started by a forker that is not what it must be.
    struct pollfd p = {.fd = f->fk_ctl, .events = POLLIN};
    char ready = 0;
    int n;
    do {
        n = poll(&p, 1, FK_READY_MS);
    } while (n < 0 && errno == EINTR);
    if (n != 1 || recv(f->fk_ctl, &ready, 1, MSG_DONTWAIT) != 1 ||
        ready != FK_READY) {
        forker_stop(f);
        return BOX_ECLOSED;
    }
    *out = f;
    return BOX_OK;
}

box_err
forker_request(forker *f, char op, const int *fds, size_t n)
{
    if (n == 0 || n > FORKER_FDS_MAX)
        return BOX_EINVAL;
    pthread_mutex_lock(&f->fk_mu);
    box_err rv = box_fdpass_send(f->fk_ctl, op, fds, n, 0);
    pthread_mutex_unlock(&f->fk_mu);
    return rv;
}

box_err
forker_wait(int status, int timeout_ms, int *wstatus)
{
    struct pollfd pfd = {.fd = status, .events = POLLIN};
    int n;
    do {
        n = poll(&pfd, 1, timeout_ms);
    } while (n < 0 && errno == EINTR);
    if (n == 0)
        return BOX_ETIMEDOUT;
    if (n < 0)
        return BOX_EIO;
    int st;
    ssize_t r;
    do {
        r = read(status, &st, sizeof st);
    } while (r < 0 && errno == EINTR);
    if (r != (ssize_t)sizeof st)
        return BOX_ECLOSED;
    *wstatus = st;
    return BOX_OK;
}

pid_t
forker_pid(const forker *f)
{
    return f->fk_pid;
}

int
forker_fd(const forker *f)
{
    return f->fk_ctl;
}

void
forker_stop(forker *f)
{
    if (f == NULL)
        return;
    close(f->fk_ctl);
    uint64_t deadline = box_svc_now_ms() + FK_STOP_WAIT_MS;
    for (;;) {
        pid_t r = waitpid(f->fk_pid, NULL, WNOHANG);
        if (r == f->fk_pid || (r < 0 && errno != EINTR))
            break;
        if (box_svc_now_ms() >= deadline) {
            // A confined broker may not signal it (Landlock's signal
            // scope, ABI 6, which holds back its parent-death signal too):
            // it ends when it next reads its request socket, closed now;
            // waiting for that here could hang box-shell's exit.
            if (kill(f->fk_pid, SIGKILL) == 0) {
                box_log(BOX_LOG_WARN, FK_SVC, "a forker did not stop; killed");
                (void)waitpid(f->fk_pid, NULL, 0);
            } else {
                box_log(BOX_LOG_WARN, FK_SVC,
                        "a forker did not stop and may not be signalled "
                        "(%s); it ends when it next reads its closed socket",
                        strerror(errno));
            }
            break;
        }
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    pthread_mutex_destroy(&f->fk_mu);
    box_free(f);
}
