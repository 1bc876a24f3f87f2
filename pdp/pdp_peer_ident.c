/* SPDX-License-Identifier: Apache-2.0 */
/* box-pdp's peer identifier: forked unconfined by Landlock, confined by
 * everything else, answers "is pid our shell or gateway". */
#include "pdp_peer_ident.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box_confine.h"
#include "box_proctab.h"

/* How long box-pdp waits for an answer (the helper answers at once). */
#define IDENT_ANSWER_MS 2000
/* How long box-pdp waits for the helper to end. */
#define IDENT_STOP_MS 1000

/* The programs that enforce decisions, beside box-pdp: the peers box-pdp's
 * row of the process table names (box-shell, box-gateway). */
#define IDENT_NPROGRAMS BOX_PROC_NAMES_MAX

/* One answer; the pid says which question it answers (one that came
 * too late for its question is skipped by the next). */
typedef struct ident_answer {
    pid_t ia_pid;
    unsigned char ia_kind; // pdp_peer_kind
} ident_answer;

/* A file's identity; both 0: absent. */
typedef struct ident_file {
    dev_t if_dev;
    ino_t if_ino;
} ident_file;

/* What the helper's loop calls, and what the C library's free may call
 * while the filter's own memory is released. Anything else: EPERM. */
static const box_sc_rule ident_allowed[] = {
    {BOX_SC_SYS(read)},
    {BOX_SC_SYS(write)},
    {BOX_SC_SYS(openat)},
    {BOX_SC_SYS(newfstatat)},
    {BOX_SC_SYS(statx)},
    {BOX_SC_SYS(close)},
    {BOX_SC_SYS(exit_group)},
    {BOX_SC_SYS(rt_sigreturn)},
    {BOX_SC_SYS(restart_syscall)},
    {BOX_SC_SYS(brk)},
    {BOX_SC_SYS(munmap)},
    {BOX_SC_SYS(madvise)},
#ifdef BOX_SANITIZE
    // A sanitizer's allocator maps memory, takes locks and, on a report,
    // raises its signal: without these a report spins in EPERM instead.
    {BOX_SC_SYS(mmap)},         {BOX_SC_SYS(mprotect)},
    {BOX_SC_SYS(futex)},        {BOX_SC_SYS(sched_yield)},
    {BOX_SC_SYS(getpid)},       {BOX_SC_SYS(gettid)},
    {BOX_SC_SYS(tgkill)},       {BOX_SC_SYS(rt_sigprocmask)},
    {BOX_SC_SYS(rt_sigaction)}, {BOX_SC_SYS(sigaltstack)},
    {BOX_SC_SYS(readlink)},     {BOX_SC_SYS(prctl)},
#endif
};

/* Ends the helper at once: no exit handlers, no sanitizer exit work (a
 * leak check needs ptrace and /proc, which this process does not get). */
static void __attribute__((noreturn)) ident_exit(int status)
{
    for (;;)
        syscall(SYS_exit_group, status);
}

/* The parent of pid from /proc/<pid>/stat (the field after the command
 * name, which may hold spaces and parentheses: read past the last ')'),
 * or -1. */
static pid_t
ident_ppid(pid_t pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    const char *p = strrchr(buf, ')');
    char state;
    long ppid;
    if (p == NULL || sscanf(p + 1, " %c %ld", &state, &ppid) != 2)
        return -1;
    return (pid_t)ppid;
}

static pdp_peer_kind
ident_judge(pid_t parent, const ident_file *progs, pid_t pid)
{
    char exe[64];
    struct stat sb;

    if (ident_ppid(pid) != parent)
        return PDP_PEER_NOT_OF_RUN;
    snprintf(exe, sizeof exe, "/proc/%ld/exe", (long)pid);
    if (stat(exe, &sb) != 0)
        return PDP_PEER_NO_PROGRAM;
    for (size_t i = 0; i < IDENT_NPROGRAMS; i++)
        if ((progs[i].if_dev != 0 || progs[i].if_ino != 0) &&
            sb.st_dev == progs[i].if_dev && sb.st_ino == progs[i].if_ino)
            return PDP_PEER_OURS;
    return PDP_PEER_NOT_OURS;
}

/* The identities of box-shell and box-gateway beside this executable (one
 * may be missing: none of its kind is then served). */
static void
ident_programs_beside_self(ident_file *progs)
{
    char self[PATH_MAX];
    memset(progs, 0, IDENT_NPROGRAMS * sizeof *progs);
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return;
    self[n] = '\0';
    char *slash = strrchr(self, '/');
    if (slash == NULL)
        return;
    *slash = '\0';
    const char *const *peers = box_proctab_get(BOX_PROC_PDP)->pt_peers;
    for (size_t i = 0; i < IDENT_NPROGRAMS && peers[i] != NULL; i++) {
        char path[PATH_MAX + 32];
        struct stat sb;
        snprintf(path, sizeof path, "%s/%s", self, peers[i]);
        if (stat(path, &sb) == 0 && S_ISREG(sb.st_mode)) {
            progs[i].if_dev = sb.st_dev;
            progs[i].if_ino = sb.st_ino;
        }
    }
}

/* The helper: never returns. Any failure ends it, and box-pdp then
 * refuses every peer but its parent. */
static void __attribute__((noreturn))
ident_main(int fd, pid_t pdp, pid_t parent)
{
    ident_file progs[IDENT_NPROGRAMS];
    box_confine_spec spec;
    char *err = NULL;

    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != pdp)
        ident_exit(1);
    ident_programs_beside_self(progs);
    box_confine_spec_init(&spec, BOX_PROFILE_PDP_PEERS);
    spec.cs_no_landlock = true; // see pdp_peer_ident.h
    spec.cs_sc_mode = BOX_SC_ALLOWLIST;
    spec.cs_sc_rules = ident_allowed;
    spec.cs_nsc_rules = sizeof ident_allowed / sizeof *ident_allowed;
    if (box_confine_keep_fd(&spec, fd) != BOX_OK ||
        box_proc_confine(&spec, &err) != BOX_OK)
        ident_exit(1); // err is not freed: this process ends now
    for (;;) {
        pid_t pid;
        ssize_t n = read(fd, &pid, sizeof pid);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof pid || pid <= 0)
            ident_exit(0); // box-pdp is gone (or spoke nonsense)
        ident_answer a;
        memset(&a, 0, sizeof a);
        a.ia_pid = pid;
        a.ia_kind = (unsigned char)ident_judge(parent, progs, pid);
        if (write(fd, &a, sizeof a) != (ssize_t)sizeof a)
            ident_exit(0);
    }
}

box_err
pdp_peer_ident_start(pid_t parent, pdp_peer_ident *pi)
{
    int sv[2];
    pid_t self = getpid();

    pi->pi_pid = -1;
    pi->pi_fd = -1;
    if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
        return BOX_EIO;
    pid_t pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        return BOX_EIO;
    }
    if (pid == 0) {
        close(sv[0]);
        ident_main(sv[1], self, parent);
    }
    close(sv[1]);
    // An answer that does not come in time is no answer (a refusal).
    struct timeval tv = {IDENT_ANSWER_MS / 1000,
                         (IDENT_ANSWER_MS % 1000) * 1000};
    (void)setsockopt(sv[0], SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    pi->pi_pid = pid;
    pi->pi_fd = sv[0];
    return BOX_OK;
}

pdp_peer_kind
pdp_peer_ident_ask(const pdp_peer_ident *pi, pid_t pid)
{
    ident_answer a;

    if (pi->pi_fd < 0 ||
        send(pi->pi_fd, &pid, sizeof pid, MSG_NOSIGNAL) != sizeof pid)
        return PDP_PEER_UNANSWERED;
    for (;;) {
        ssize_t n = recv(pi->pi_fd, &a, sizeof a, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n != (ssize_t)sizeof a || a.ia_kind > PDP_PEER_NOT_OURS)
            return PDP_PEER_UNANSWERED;
        if (a.ia_pid == pid)
            return (pdp_peer_kind)a.ia_kind;
    }
}

/*
 * The helper ends when its socket closes. It cannot be signalled: box-pdp's
 * Landlock domain keeps its signals to the domain, and the helper is
 * outside it, which holds back its parent-death signal too. So it is
 * waited for a short while only; its read of the closed socket is what
 * ends it.
 */
void
pdp_peer_ident_stop(pdp_peer_ident *pi)
{
    if (pi->pi_fd >= 0)
        close(pi->pi_fd);
    for (int i = 0; pi->pi_pid > 0 && i < IDENT_STOP_MS / 10; i++) {
        pid_t r = waitpid(pi->pi_pid, NULL, WNOHANG);
        if (r == pi->pi_pid || (r < 0 && errno != EINTR))
            break;
        usleep(10 * 1000);
    }
    pi->pi_fd = -1;
    pi->pi_pid = -1;
}
