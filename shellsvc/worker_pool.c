/* SPDX-License-Identifier: Apache-2.0 */
/* The zygote (forks workers) and the broker's side of talking to it. */
#include "worker_pool.h"

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
#include "box_log.h"
#include "box_svc.h"

#define ZYG_SVC "box-shell"
#define ZYG_WORKERS_MAX 256 // live workers; 64 connections plus stragglers
#define ZYG_CTL_FD 3        // where the zygote keeps its control socket
#define ZYG_CHAN_FD 3       // where a worker finds its channel
#define ZYG_STOP_WAIT_MS 3000
#define ZYG_OP_SPAWN 'S'

struct worker_pool {
    int wp_ctl; // SOCK_SEQPACKET to the zygote
    pid_t wp_zygote;
    pthread_mutex_t wp_mu; // one spawn request at a time on wp_ctl
};

/* One live worker, as the zygote sees it. */
typedef struct zyg_worker {
    pid_t zw_pid;   // 0: free slot
    int zw_status;  // write end of the worker's status pipe
    bool zw_killed; // the broker closed the pipe; SIGKILL sent
} zyg_worker;

/* ------------------------------------------------------------------ */
/* Zygote side: everything below runs in the single-threaded zygote.   */
/* ------------------------------------------------------------------ */

/*
 * The worker child: never returns. chan is the channel descriptor; every
 * other descriptor but 0-2 is closed before the call is read. It dies
 * with the zygote (checked after asking, so a zygote that died first is
 * seen) and leads a process group of its own, which the zygote kills as
 * a whole when the call ends (see zyg_kill).
 */
static void __attribute__((noreturn))
zyg_worker_child(int chan, pid_t zygote, const worker_limits *lim)
{
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != zygote)
        _exit(1);
    if (setpgid(0, 0) != 0)
        _exit(1);
    if (dup2(chan, ZYG_CHAN_FD) < 0)
        _exit(1);
    if (close_range(ZYG_CHAN_FD + 1, ~0u, 0) != 0)
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
    if (worker_apply_limits(lim) != BOX_OK)
        _exit(1);
    _exit(worker_main(ZYG_CHAN_FD, lim->wl_settings));
}

/* Receives one spawn request: two descriptors (channel, status pipe). */
static int
zyg_recv(int ctl, int *chan, int *status)
{
    char op;
    struct iovec iov = {.iov_base = &op, .iov_len = 1};
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } cm;
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = cm.buf,
                         .msg_controllen = sizeof cm.buf};
    *chan = *status = -1;
    ssize_t n;
    do {
        n = recvmsg(ctl, &msg, MSG_CMSG_CLOEXEC);
    } while (n < 0 && errno == EINTR);
    if (n <= 0)
        return -1; // the broker is gone or stopping
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&msg); c != NULL;
         c = CMSG_NXTHDR(&msg, c)) {
        if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
            continue;
        size_t nfd = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        int fds[2] = {-1, -1};
        memcpy(fds, CMSG_DATA(c), (nfd < 2 ? nfd : 2) * sizeof(int));
        if (nfd == 2) {
            *chan = fds[0];
            *status = fds[1];
        } else {
            for (size_t i = 0; i < nfd && i < 2; i++)
                close(fds[i]);
        }
    }
    return op == ZYG_OP_SPAWN ? 0 : 1;
}

static void
zyg_report(int fd, int wstatus)
{
    ssize_t n;
    do {
        n = write(fd, &wstatus, sizeof wstatus);
    } while (n < 0 && errno == EINTR);
    // EPIPE: the broker stopped listening; nothing more to do.
}

/*
 * Ends a worker and whatever shares its process group. The worker's
 * leaves (box-contain) lead groups of their own, so that a program cannot
 * signal the worker; they die with the worker through their parent-death
 * link instead (box_svc_tie_to_parent). Called only while the worker is
 * unreaped (alive or a zombie), so its pid, and the group named by it,
 * cannot have been reused.
 */
static void
zyg_kill(pid_t pid)
{
    if (killpg(pid, SIGKILL) != 0)
        (void)kill(pid, SIGKILL); // the group was never made
}

static void
zyg_spawn(zyg_worker *w, int chan, int status, const worker_limits *lim)
{
    zyg_worker *slot = NULL;
    for (size_t i = 0; i < ZYG_WORKERS_MAX && slot == NULL; i++) {
        if (w[i].zw_pid == 0)
            slot = &w[i];
    }
    pid_t self = getpid();
    pid_t pid = slot != NULL ? fork() : -1;
    if (pid == 0)
        zyg_worker_child(chan, self, lim);
    if (pid > 0)
        (void)setpgid(pid, pid); // both sides: no kill can beat it
    close(chan);
    if (pid < 0) {
        zyg_report(status, WORKER_NOT_STARTED);
        close(status);
        return;
    }
    slot->zw_pid = pid;
    slot->zw_status = status;
    slot->zw_killed = false;
}

static void
zyg_reap(zyg_worker *w, int sfd)
{
    struct signalfd_siginfo ssi;
    while (read(sfd, &ssi, sizeof ssi) == (ssize_t)sizeof ssi)
        ;
    for (;;) {
        // Peek first: while the worker is a zombie its group id is still
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
        for (size_t i = 0; i < ZYG_WORKERS_MAX; i++) {
            if (w[i].zw_pid != pid)
                continue;
            if (!w[i].zw_killed)
                zyg_report(w[i].zw_status, st);
            close(w[i].zw_status);
            w[i].zw_pid = 0;
            break;
        }
    }
}

/*
 * The zygote's loop: spawn requests on ctl, SIGCHLD on a signalfd, and
 * each live worker's status pipe (POLLERR once the broker closes its end:
 * kill that worker). Ends when the broker closes ctl: kills and reaps
 * every worker, then exits.
 */
static void __attribute__((noreturn))
zyg_main(int ctl, pid_t parent, worker_limits lim)
{
    zyg_worker w[ZYG_WORKERS_MAX];
    struct pollfd pfd[ZYG_WORKERS_MAX + 2];
    size_t who[ZYG_WORKERS_MAX + 2];

    memset(w, 0, sizeof w);
    (void)prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(0); // box-shell died before PDEATHSIG was set
    (void)prctl(PR_SET_NAME, "box-shell-zyg");
    if (dup2(ctl, ZYG_CTL_FD) < 0 || close_range(ZYG_CTL_FD + 1, ~0u, 0) != 0)
        _exit(1);
    ctl = ZYG_CTL_FD;
    sigset_t chld;
    sigemptyset(&chld);
    sigaddset(&chld, SIGCHLD);
    sigprocmask(SIG_BLOCK, &chld, NULL);
    int sfd = signalfd(-1, &chld, SFD_CLOEXEC | SFD_NONBLOCK);
    if (sfd < 0)
        _exit(1);

    for (;;) {
        size_t n = 0;
        pfd[n++] = (struct pollfd){.fd = ctl, .events = POLLIN};
        pfd[n++] = (struct pollfd){.fd = sfd, .events = POLLIN};
        for (size_t i = 0; i < ZYG_WORKERS_MAX; i++) {
            if (w[i].zw_pid == 0 || w[i].zw_killed)
                continue;
            who[n] = i;
            pfd[n++] = (struct pollfd){.fd = w[i].zw_status, .events = 0};
        }
        if (poll(pfd, (nfds_t)n, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        if (pfd[1].revents & POLLIN)
            zyg_reap(w, sfd);
        for (size_t k = 2; k < n; k++) {
            zyg_worker *x = &w[who[k]];
            if (pfd[k].revents == 0 || x->zw_pid == 0 || x->zw_killed ||
                x->zw_status != pfd[k].fd)
                continue;
            zyg_kill(x->zw_pid); // not reaped yet, so still ours
            x->zw_killed = true;
        }
        if (pfd[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            int chan, status;
            int rv = zyg_recv(ctl, &chan, &status);
            if (rv < 0)
                break;
            if (rv == 0 && chan >= 0)
                zyg_spawn(w, chan, status, &lim);
            else if (chan >= 0) {
                close(chan);
                close(status);
            }
        }
    }
    for (size_t i = 0; i < ZYG_WORKERS_MAX; i++) {
        if (w[i].zw_pid != 0)
            zyg_kill(w[i].zw_pid);
    }
    for (size_t i = 0; i < ZYG_WORKERS_MAX; i++) {
        if (w[i].zw_pid != 0)
            (void)waitpid(w[i].zw_pid, NULL, 0);
    }
    _exit(0);
}

/* ------------------------------------------------------------------ */
/* Broker side.                                                        */
/* ------------------------------------------------------------------ */

box_err
worker_pool_start(const worker_limits *l, worker_pool **out)
{
    int sv[2];
    worker_pool *p = box_calloc(1, sizeof *p);
    if (p == NULL)
        return BOX_ENOMEM;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0) {
        box_free(p);
        return BOX_EIO;
    }
    pid_t parent = getpid();
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        box_free(p);
        return BOX_EIO;
    }
    if (pid == 0) {
        close(sv[0]);
        zyg_main(sv[1], parent, *l);
    }
    close(sv[1]);
    p->wp_ctl = sv[0];
    p->wp_zygote = pid;
    pthread_mutex_init(&p->wp_mu, NULL);
    *out = p;
    return BOX_OK;
}

box_err
worker_pool_spawn(worker_pool *p, int *chan, int *status)
{
    int sv[2] = {-1, -1}, pp[2] = {-1, -1};
    box_err rv = BOX_EIO;
    *chan = *status = -1;
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0 ||
        pipe2(pp, O_CLOEXEC) != 0)
        goto out;

    char op = ZYG_OP_SPAWN;
    struct iovec iov = {.iov_base = &op, .iov_len = 1};
    union {
        char buf[CMSG_SPACE(2 * sizeof(int))];
        struct cmsghdr align;
    } cm;
    memset(&cm, 0, sizeof cm);
    struct msghdr msg = {.msg_iov = &iov,
                         .msg_iovlen = 1,
                         .msg_control = cm.buf,
                         .msg_controllen = sizeof cm.buf};
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(2 * sizeof(int));
    int fds[2] = {sv[1], pp[1]};
    memcpy(CMSG_DATA(c), fds, sizeof fds);

    ssize_t n;
    pthread_mutex_lock(&p->wp_mu);
    do {
        n = sendmsg(p->wp_ctl, &msg, MSG_NOSIGNAL);
    } while (n < 0 && errno == EINTR);
    pthread_mutex_unlock(&p->wp_mu);
    if (n != 1) {
        rv = BOX_ECLOSED;
        goto out;
    }
    *chan = sv[0];
    *status = pp[0];
    sv[0] = pp[0] = -1;
    rv = BOX_OK;
out:
    // The zygote holds its own copies of the worker's ends now.
    for (int i = 0; i < 2; i++) {
        if (sv[i] >= 0)
            close(sv[i]);
        if (pp[i] >= 0)
            close(pp[i]);
    }
    return rv;
}

box_err
worker_pool_wait(int status, int timeout_ms, int *wstatus)
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

void
worker_pool_stop(worker_pool *p)
{
    if (p == NULL)
        return;
    close(p->wp_ctl);
    uint64_t deadline = box_svc_now_ms() + ZYG_STOP_WAIT_MS;
    for (;;) {
        pid_t r = waitpid(p->wp_zygote, NULL, WNOHANG);
        if (r == p->wp_zygote || (r < 0 && errno != EINTR))
            break;
        if (box_svc_now_ms() >= deadline) {
            box_log(BOX_LOG_WARN, ZYG_SVC, "the zygote did not stop; killed");
            kill(p->wp_zygote, SIGKILL);
            (void)waitpid(p->wp_zygote, NULL, 0);
            break;
        }
        struct timespec ts = {0, 5 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    pthread_mutex_destroy(&p->wp_mu);
    box_free(p);
}
