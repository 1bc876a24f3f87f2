/* SPDX-License-Identifier: Apache-2.0 */
/* The zygote (a forker of workers) and the broker's side of talking to it. */
#include "worker_pool.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_fdpass.h"
#include "box_svc.h"
#include "forker.h"
#include "sh_glob.h"
#include "sh_ids.h"
#include "valid_word.h"
#include "worker_confine.h"

#define ZYG_NAME "box-shell-zyg"
#define ZYG_CHAN_FD 3  // where a worker finds its channel
#define ZYG_FDS_FD 4   // and its descriptor socket
#define ZYG_READY_FD 5 // a waiting worker's socket to the zygote
#define ZYG_OP_SPAWN 'S'
#define ZYG_OP_CALL 'W'   // zygote to a waiting worker: its call's two ends
#define ZYG_OP_TAKEN 'T'  // the worker to the zygote: it holds them
#define ZYG_TAKEN_MS 2000 // a waiting worker is awake; this is a backstop

/*
 * The zygote's own state; its copy (made by the fork) is what its workers
 * inherit. One worker is forked ahead of its call (zs_ready) and waits on
 * its socket for the call's descriptors, so a call costs sending them,
 * not a fork and a filter. The next one is forked once the call has
 * ended: forked while the call ran, it took a core from the call on a
 * two-core machine (sh -c true: 6.2 ms against 4.7 ms). But while calls
 * come close together (other calls run, or this one came within
 * ZYG_BURST_MS of the last one's end, as from a script's loop), the next
 * would arrive before it is ready: then it is forked at once, beside the
 * call, as before.
 */
#define ZYG_BURST_MS 20
typedef struct zyg_state {
    worker_limits zs_lim;
    box_sc_prog *zs_signals; // the workers' filter, compiled in the zygote
    worker_covers zs_covers; // box.toml's and the policy's covers
    pid_t zs_ready;          // 0: none waiting
    int zs_ready_sock;       // the zygote's end of its socket
    size_t zs_running;       // calls handed to workers and not yet reaped
    uint64_t zs_idle_since;  // when zs_running last fell to 0 (ms)
} zyg_state;

struct worker_pool {
    forker *wp_zygote;
    zyg_state wp_zyg;
};

/* The call's two descriptors, received on the waiting worker's socket and
 * put at ZYG_CHAN_FD and ZYG_FDS_FD, over the placeholders there (so
 * neither arrives on a fixed slot); the zygote told they are taken, and
 * the socket to it closed. What is left is 0-2, those two and the prepared
 * kernel's own. */
static int
zyg_worker_receive(void)
{
    char op = 0;
    int got[2] = {-1, -1};
    int n = box_fdpass_recv(ZYG_READY_FD, &op, got, 2, 0);
    if (n != 2 || op != ZYG_OP_CALL)
        return -1; // the zygote is gone, or sent something else
    if (dup2(got[0], ZYG_CHAN_FD) < 0 || dup2(got[1], ZYG_FDS_FD) < 0)
        return -1;
    close(got[0]);
    close(got[1]);
    static const char taken = ZYG_OP_TAKEN;
    if (write(ZYG_READY_FD, &taken, 1) != 1)
        return -1;
    return close(ZYG_READY_FD);
}

/* Whether the waiting worker on sock took the call just sent to it. One
 * that died meanwhile (a signal, the OOM killer) never does, and the
 * message dies unread with its socket: nothing of the call ran, as a
 * worker runs nothing before the broker sends the call's script, which
 * it does only once the start is answered. So the call can go to
 * another. */
static bool
zyg_taken(int sock)
{
    struct pollfd p = {.fd = sock, .events = POLLIN};
    char op = 0;
    int n;
    while ((n = poll(&p, 1, ZYG_TAKEN_MS)) < 0 && errno == EINTR)
        ;
    return n == 1 && read(sock, &op, 1) == 1 && op == ZYG_OP_TAKEN;
}

/*
 * The worker child: never returns. It dies with the zygote (checked after
 * asking, so a zygote that died first is seen), leads a process group of
 * its own, which the zygote kills as a whole when the call ends, and is
 * confined before it waits for its call, holding nothing but 0-2 and its
 * socket to the zygote.
 */
static void __attribute__((noreturn))
zyg_worker_child(int ready, pid_t zygote, const zyg_state *zs)
{
    const worker_limits *lim = &zs->zs_lim;
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != zygote)
        _exit(1);
    if (setpgid(0, 0) != 0)
        _exit(1);
    // The zygote's request socket (at 3) and its other children's status
    // pipes are not the worker's.
    if (dup2(ready, ZYG_READY_FD) < 0 ||
        close_range(3, ZYG_READY_FD - 1, 0) != 0 ||
        close_range(ZYG_READY_FD + 1, ~0u, 0) != 0)
        _exit(1);
    // Placeholders on the call's slots, which it takes over: what the
    // worker opens while it waits (worker_prepare) goes above them.
    if (dup2(ZYG_READY_FD, ZYG_CHAN_FD) < 0 ||
        dup2(ZYG_READY_FD, ZYG_FDS_FD) < 0)
        _exit(1);
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
    if (worker_apply_limits(lim) != BOX_OK ||
        worker_confine_signals(zs->zs_signals) != 0)
        _exit(1);
    // Named for what it is doing, so ps (and a test) tells a worker
    // waiting for its call from one running a call; only once confined,
    // so a process by this name is always a confined one.
    (void)prctl(PR_SET_NAME, "box-shell-wait");
    // What the call needs and does not say is built while it is awaited.
    worker_prep *prep =
        lim->wl_body == NULL ? worker_prepare(lim->wl_settings) : NULL;
    if (zyg_worker_receive() != 0)
        _exit(0);
    (void)prctl(PR_SET_NAME, "box-shell-work");
    if (lim->wl_body != NULL)
        _exit(lim->wl_body(ZYG_CHAN_FD, ZYG_FDS_FD, lim->wl_settings));
    _exit(worker_main(ZYG_CHAN_FD, ZYG_FDS_FD, lim->wl_settings, prep));
}

/* Forks the next waiting worker; 0 or an errno. */
static int
zyg_prefork(zyg_state *zs)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return errno;
    pid_t self = getpid();
    pid_t child = fork();
    if (child < 0) {
        int e = errno;
        close(sv[0]);
        close(sv[1]);
        return e;
    }
    if (child == 0)
        zyg_worker_child(sv[1], self, zs);
    close(sv[1]);
    (void)setpgid(child, child); // both sides: no kill can beat it
    zs->zs_ready = child;
    zs->zs_ready_sock = sv[0];
    return 0;
}

/* The zygote compiles its workers' filter, loads what globbing needs
 * from the system (C.UTF-8's character classes: the confined workers
 * could not read them), confines itself, and forks the first waiting
 * worker. The filter lives as long as the zygote. */
static int
zyg_prepare(void *ctx)
{
    zyg_state *zs = ctx;
    zs->zs_ready = 0;
    zs->zs_ready_sock = -1;
    sh_glob_init();
    sh_ids_init(); // ls -l's owner names: /etc is out of reach after
    // Workers read the broker's validity word; none may write it.
    if (zs->zs_lim.wl_valid != NULL)
        valid_word_drop_rw(zs->zs_lim.wl_valid);
    if (worker_signals_compile(&zs->zs_signals) != 0 ||
        worker_confine(zs->zs_lim.wl_settings, &zs->zs_covers) != 0)
        return -1;
    (void)zyg_prefork(zs); // a failure is retried at the first call
    return 0;
}

/*
 * The zygote's start function: fds are the channel and the descriptor
 * socket, handed to the waiting worker; none while a cover over box.toml
 * or the policy is gone (WORKER_COVER_LOST). A worker that died while it
 * waited (the message does not go, or is never taken) is killed for sure
 * and replaced once; the zygote reaps it as a child it never reported.
 */
static int
zyg_start(void *ctx, char op, const int *fds, size_t n, pid_t *pid)
{
    zyg_state *zs = ctx;
    if (op != ZYG_OP_SPAWN || n != 2)
        return EINVAL;
    if (!worker_covers_intact(&zs->zs_covers))
        return -WORKER_COVER_LOST;
    for (int tries = 0; tries < 2; tries++) {
        int err = zs->zs_ready != 0 ? 0 : zyg_prefork(zs);
        if (err != 0)
            return err;
        pid_t w = zs->zs_ready;
        box_err rv = box_fdpass_send(zs->zs_ready_sock, ZYG_OP_CALL, fds, 2, 0);
        if (rv == BOX_OK && !zyg_taken(zs->zs_ready_sock))
            rv = BOX_ECLOSED;
        close(zs->zs_ready_sock);
        zs->zs_ready = 0;
        zs->zs_ready_sock = -1;
        if (rv == BOX_OK) {
            *pid = w;
            bool burst = ++zs->zs_running > 1 ||
                         box_svc_now_ms() - zs->zs_idle_since < ZYG_BURST_MS;
            if (burst)
                (void)zyg_prefork(zs); // retried at the next call
            return 0;
        }
        (void)kill(w, SIGKILL);
    }
    return EIO;
}

/* Calls ended: the next waiting worker, if none is. */
static void
zyg_reaped(void *ctx, size_t live)
{
    zyg_state *zs = ctx;
    if (zs->zs_running > 0 && live == 0)
        zs->zs_idle_since = box_svc_now_ms();
    zs->zs_running = live;
    if (zs->zs_ready == 0)
        (void)zyg_prefork(zs); // retried at the next call
}

box_err
worker_pool_start(const worker_limits *l, worker_pool **out)
{
    static const forker_ops ops = {.fo_start = zyg_start,
                                   .fo_prepare = zyg_prepare,
                                   .fo_reaped = zyg_reaped};
    worker_pool *p = box_calloc(1, sizeof *p);
    if (p == NULL)
        return BOX_ENOMEM;
    p->wp_zyg.zs_lim = *l;
    box_err rv = forker_start(ZYG_NAME, &ops, &p->wp_zyg, &p->wp_zygote);
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
