/* SPDX-License-Identifier: Apache-2.0 */
/* The worker profile, applied in the zygote. */
#include "worker_confine.h"

#include <errno.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_confine.h"
#include "box_log.h"
#include "box_proctab.h"
#include "box_seccomp.h"
#include "contain.h"
#include "forker.h"

#define WC_SVC "box-shell"

/* What a worker may do beneath each of its three binds: everything of
 * files and directories but executing, making devices or sockets. */
#define WC_BIND_RIGHTS                                                         \
    (BOX_LL_READ_FILE | BOX_LL_READ_DIR | BOX_LL_WRITE_FILE |                  \
     BOX_LL_REMOVE_DIR | BOX_LL_REMOVE_FILE | BOX_LL_MAKE_DIR |                \
     BOX_LL_MAKE_REG | BOX_LL_MAKE_SYM | BOX_LL_MAKE_FIFO | BOX_LL_REFER |     \
     BOX_LL_TRUNCATE)

/*
 * The worker's seccomp allowlist: what the interpreter and its commands
 * need, and the zygote's forks. Everything else is EPERM: no execve, no
 * new socket (only the inherited channel and descriptor socket), no
 * ptrace, mount, bpf, keyctl, io_uring, userfaultfd, perf_event_open, no
 * namespace. clone only without a CLONE_NEW* flag; clone3 ENOSYS so the
 * C library falls back to clone, whose flags a filter can read.
 */
// A dense table reads better than one rule a line.
// clang-format off
#define WC_ALLOW(n) {BOX_SC_SYS(n)}
#define WC_NS_FLAGS                                                           \
    (CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS | CLONE_NEWIPC |             \
     CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET)
static const box_sc_rule wc_allow[] = {
    // descriptors and files (Landlock says which files)
    WC_ALLOW(read), WC_ALLOW(write), WC_ALLOW(readv), WC_ALLOW(writev),
    WC_ALLOW(pread64), WC_ALLOW(pwrite64), WC_ALLOW(preadv), WC_ALLOW(pwritev),
    WC_ALLOW(preadv2), WC_ALLOW(pwritev2), WC_ALLOW(openat), WC_ALLOW(close),
    WC_ALLOW(close_range), WC_ALLOW(fstat), WC_ALLOW(newfstatat),
    WC_ALLOW(statx), WC_ALLOW(statfs), WC_ALLOW(fstatfs), WC_ALLOW(lseek),
    WC_ALLOW(faccessat), WC_ALLOW(faccessat2), WC_ALLOW(getcwd),
    WC_ALLOW(chdir), WC_ALLOW(fchdir), WC_ALLOW(readlinkat),
    WC_ALLOW(getdents64), WC_ALLOW(mkdirat), WC_ALLOW(unlinkat),
    WC_ALLOW(renameat), WC_ALLOW(renameat2), WC_ALLOW(linkat),
    WC_ALLOW(symlinkat), WC_ALLOW(fchmod), WC_ALLOW(fchmodat),
    WC_ALLOW(fchown), WC_ALLOW(fchownat), WC_ALLOW(utimensat),
    WC_ALLOW(ftruncate), WC_ALLOW(fallocate), WC_ALLOW(fsync),
    WC_ALLOW(fdatasync), WC_ALLOW(flock), WC_ALLOW(fadvise64),
    WC_ALLOW(copy_file_range), WC_ALLOW(sendfile), WC_ALLOW(splice),
    WC_ALLOW(getxattr), WC_ALLOW(lgetxattr), WC_ALLOW(fgetxattr),
    WC_ALLOW(listxattr), WC_ALLOW(llistxattr), WC_ALLOW(flistxattr),
    WC_ALLOW(dup), WC_ALLOW(dup3), WC_ALLOW(fcntl), WC_ALLOW(pipe2),
    WC_ALLOW(umask),
#ifdef SYS_open // the legacy calls, where the architecture has them
    WC_ALLOW(open), WC_ALLOW(stat), WC_ALLOW(lstat), WC_ALLOW(access),
    WC_ALLOW(readlink), WC_ALLOW(getdents), WC_ALLOW(mkdir), WC_ALLOW(rmdir),
    WC_ALLOW(unlink), WC_ALLOW(rename), WC_ALLOW(link), WC_ALLOW(symlink),
    WC_ALLOW(chmod), WC_ALLOW(dup2), WC_ALLOW(pipe), WC_ALLOW(poll),
    WC_ALLOW(select), WC_ALLOW(epoll_wait), WC_ALLOW(time),
#endif
    // the channel and descriptor socket, inherited: no new ones
    WC_ALLOW(sendmsg), WC_ALLOW(recvmsg), WC_ALLOW(sendto),
    WC_ALLOW(recvfrom), WC_ALLOW(shutdown), WC_ALLOW(getsockopt),
    WC_ALLOW(getsockname), WC_ALLOW(getpeername),
    // connect(2) is never run: it fails EINPROGRESS, not EPERM, because
    // libcurl 7.88 (curl, box-spec §3.12) calls connect even on the socket
    // the broker connected to the gateway and handed it (its sockopt
    // callback says so; curl issue 10626), and reads EINPROGRESS as
    // "wait until writable", where that socket already is. A worker has
    // no unconnected socket, so no connection is ever made by this.
    {BOX_SC_SYS(connect), .sr_errno = EINPROGRESS},
    // the zygote's socket to the worker it forks ahead of a call (each
    // worker's own filter refuses it)
    {BOX_SC_SYS(socketpair), .sr_cmp = BOX_SC_MASKED_EQ, .sr_arg = 0,
     .sr_mask = 0xffffffffu, .sr_value = AF_UNIX},
    // waiting
    WC_ALLOW(ppoll), WC_ALLOW(pselect6), WC_ALLOW(epoll_create1),
    WC_ALLOW(epoll_ctl), WC_ALLOW(epoll_pwait), WC_ALLOW(eventfd2),
    WC_ALLOW(signalfd4), WC_ALLOW(timerfd_create), WC_ALLOW(timerfd_settime),
    WC_ALLOW(timerfd_gettime), WC_ALLOW(nanosleep), WC_ALLOW(clock_nanosleep),
    WC_ALLOW(clock_gettime), WC_ALLOW(clock_getres), WC_ALLOW(gettimeofday),
    WC_ALLOW(futex), WC_ALLOW(sched_yield), WC_ALLOW(sched_getaffinity),
    // memory
    WC_ALLOW(mmap), WC_ALLOW(munmap), WC_ALLOW(mprotect), WC_ALLOW(mremap),
    WC_ALLOW(madvise), WC_ALLOW(brk), WC_ALLOW(msync), WC_ALLOW(mincore),
    // signals, threads, processes (the zygote forks; threads run stages)
    WC_ALLOW(rt_sigaction), WC_ALLOW(rt_sigprocmask), WC_ALLOW(rt_sigreturn),
    WC_ALLOW(sigaltstack), WC_ALLOW(rt_sigpending), WC_ALLOW(rt_sigtimedwait),
    WC_ALLOW(rt_sigsuspend), WC_ALLOW(restart_syscall),
    WC_ALLOW(kill), WC_ALLOW(tgkill), WC_ALLOW(tkill), WC_ALLOW(wait4),
    WC_ALLOW(waitid), WC_ALLOW(setpgid), WC_ALLOW(getpgid),
    WC_ALLOW(getpgrp), WC_ALLOW(getsid), WC_ALLOW(exit), WC_ALLOW(exit_group),
    WC_ALLOW(set_robust_list), WC_ALLOW(get_robust_list), WC_ALLOW(rseq),
    WC_ALLOW(set_tid_address), WC_ALLOW(membarrier), WC_ALLOW(prctl),
    WC_ALLOW(seccomp), WC_ALLOW(arch_prctl),
    {BOX_SC_SYS(clone), .sr_cmp = BOX_SC_MASKED_EQ, .sr_arg = 0,
     .sr_mask = WC_NS_FLAGS, .sr_value = 0},
    {BOX_SC_SYS(clone3), .sr_errno = ENOSYS},
    // who and what
    WC_ALLOW(getpid), WC_ALLOW(gettid), WC_ALLOW(getppid), WC_ALLOW(getuid),
    WC_ALLOW(geteuid), WC_ALLOW(getgid), WC_ALLOW(getegid),
    WC_ALLOW(getgroups), WC_ALLOW(getresuid), WC_ALLOW(getresgid),
    WC_ALLOW(prlimit64), WC_ALLOW(getrlimit), WC_ALLOW(setrlimit),
    WC_ALLOW(getrusage), WC_ALLOW(times), WC_ALLOW(sysinfo), WC_ALLOW(uname),
    WC_ALLOW(getrandom),
    // terminals: only asking (isatty, the size), never TIOCSTI
    {BOX_SC_SYS(ioctl), .sr_cmp = BOX_SC_MASKED_EQ, .sr_arg = 1,
     .sr_mask = 0xffffffffu, .sr_value = TCGETS},
    {BOX_SC_SYS(ioctl), .sr_cmp = BOX_SC_MASKED_EQ, .sr_arg = 1,
     .sr_mask = 0xffffffffu, .sr_value = TIOCGWINSZ},
    {BOX_SC_SYS(ioctl), .sr_cmp = BOX_SC_MASKED_EQ, .sr_arg = 1,
     .sr_mask = 0xffffffffu, .sr_value = FIONREAD},
};
// clang-format on

/* Signals only to itself (raise, abort): never to box run, a service, or
 * another call's worker, which run as the same user. Threads, never a
 * process: a child could leave the worker's process group and outlive
 * the call the zygote ends by killing that group. No socket pair (the
 * zygote's allowance, for its waiting worker). The worker's own pid
 * is the filter's slot, filled in by each worker after the fork. */
int
worker_signals_compile(box_sc_prog **out)
{
    const box_sc_rule own[] = {
        {BOX_SC_SYS(kill), .sr_cmp = BOX_SC_NE, .sr_arg = 0,
         .sr_value = BOX_SC_SLOT},
        {BOX_SC_SYS(tkill), .sr_cmp = BOX_SC_NE, .sr_arg = 0,
         .sr_value = BOX_SC_SLOT},
        {BOX_SC_SYS(tgkill), .sr_cmp = BOX_SC_NE, .sr_arg = 0,
         .sr_value = BOX_SC_SLOT},
        {BOX_SC_SYS(rt_sigqueueinfo)},
        {BOX_SC_SYS(rt_tgsigqueueinfo)},
        {BOX_SC_SYS(pidfd_send_signal)},
        {BOX_SC_SYS(clone), .sr_cmp = BOX_SC_MASKED_EQ, .sr_arg = 0,
         .sr_mask = CLONE_THREAD, .sr_value = 0},
        {BOX_SC_SYS(setpgid)},
        {BOX_SC_SYS(socketpair)},
#ifdef SYS_fork
        {BOX_SC_SYS(fork)},
        {BOX_SC_SYS(vfork)},
#endif
    };
    box_sc_filter f = {.sf_mode = BOX_SC_DENYLIST,
                       .sf_rules = own,
                       .sf_nrules = sizeof own / sizeof own[0]};
    char *err = NULL;
    box_err rv = box_sc_compile(&f, out, &err);
    // libseccomp shares one block among rules that test alike, so one
    // comparison may serve all three; none would leave kill unchecked.
    if (rv == BOX_OK && box_sc_prog_slots(*out) == 0) {
        box_sc_prog_free(*out);
        *out = NULL;
        err = box_strdup("libseccomp folded the pid slot away");
        rv = BOX_EINVAL;
    }
    if (rv != BOX_OK)
        box_log(BOX_LOG_ERROR, WC_SVC,
                "cannot compile the workers' signal filter: %s",
                err != NULL ? err : box_strerror(rv));
    box_free(err);
    return rv == BOX_OK ? 0 : -1;
}

int
worker_confine_signals(const box_sc_prog *signals)
{
    char *err = NULL;
    box_err rv = box_sc_install(signals, (uint32_t)getpid(), &err);
    box_free(err);
    return rv == BOX_OK ? 0 : -1;
}

static box_err
wc_spec(const worker_settings *ws, box_confine_spec *spec)
{
    box_confine_spec_init(spec, BOX_PROFILE_WORKER);
    // TZ stays: the C library checks it on every local time it gives.
    box_err rv =
        box_confine_keep_row_env(spec, box_proctab_get(BOX_PROC_WORKER));
    const char *binds[] = {ws->ws_operator_home, ws->ws_agent_home,
                           ws->ws_workspace};
    if (rv == BOX_OK)
        rv = box_confine_keep_fd(spec, FORKER_CTL_FD);
    for (int fd = 0; fd < 3 && rv == BOX_OK; fd++)
        rv = box_confine_keep_fd(spec, fd);
    for (size_t i = 0; i < 3 && rv == BOX_OK; i++)
        if (binds[i] != NULL && binds[i][0] == '/' && binds[i][1] != '\0')
            rv = box_confine_grant(spec, binds[i], WC_BIND_RIGHTS, false);
    // date reads the time zone files itself (TZ=America/New_York): public
    // data, read-only, where the system has them.
    if (rv == BOX_OK)
        rv = box_confine_grant(spec, "/usr/share/zoneinfo",
                               BOX_LL_READ_FILE | BOX_LL_READ_DIR, true);
    // file reads libmagic's compiled database itself, the same way.
    if (rv == BOX_OK)
        rv = box_confine_grant(spec, "/usr/lib/file",
                               BOX_LL_READ_FILE | BOX_LL_READ_DIR, true);
    spec->cs_sc_mode = BOX_SC_ALLOWLIST;
    spec->cs_sc_rules = wc_allow;
    spec->cs_nsc_rules = sizeof wc_allow / sizeof wc_allow[0];
    return rv;
}

/* Each authority file's cover as it shows on its path now. */
static int
wc_note_covers(const worker_settings *ws, worker_covers *covers)
{
    covers->wv_n = 0;
    for (size_t i = 0; i < ws->ws_nauthority; i++) {
        struct stat sb;
        if (lstat(ws->ws_authority[i], &sb) != 0) {
            if (errno == ENOENT)
                continue; // nothing there to cover
            return -1;
        }
        if (covers->wv_n == WORKER_COVERS_MAX)
            return -1;
        covers->wv_items[covers->wv_n++] = (struct worker_cover){
            .wc_path = ws->ws_authority[i],
            .wc_dev = sb.st_dev,
            .wc_ino = sb.st_ino,
        };
    }
    return 0;
}

bool
worker_covers_intact(const worker_covers *covers)
{
    for (size_t i = 0; i < covers->wv_n; i++) {
        const struct worker_cover *c = &covers->wv_items[i];
        struct stat sb;
        if (lstat(c->wc_path, &sb) != 0 || sb.st_dev != c->wc_dev ||
            sb.st_ino != c->wc_ino)
            return false;
    }
    return true;
}

int
worker_confine(const worker_settings *ws, worker_covers *covers)
{
    char msg[512];
    const char *hide[1];
    size_t nhide = 0;
    box_confine_spec spec;
    char *err = NULL;
    int rc = -1;

    if (ws->ws_box_dir != NULL)
        hide[nhide++] = ws->ws_box_dir;
    // The reach floor (box.toml, the policy) held by the OS too, not only
    // by the shell's kernel refusing them.
    if (contain_hide_self(hide, nhide, (const char *const *)ws->ws_authority,
                          ws->ws_nauthority, msg, sizeof msg) != 0) {
        box_log(BOX_LOG_ERROR, WC_SVC, "cannot confine the shell's workers: %s",
                msg);
        return -1;
    }
    if (wc_note_covers(ws, covers) != 0) {
        box_log(BOX_LOG_ERROR, WC_SVC,
                "cannot confine the shell's workers: cannot read back the "
                "covers over box.toml and the policy");
        return -1;
    }
    // A working directory inside the box dir would still reach beneath
    // the cover through relative names.
    if (chdir("/") != 0) {
        box_log(BOX_LOG_ERROR, WC_SVC,
                "cannot confine the shell's workers: "
                "chdir /");
        return -1;
    }
    // The local time zone, read while /etc is still reachable: the C
    // library keeps it and only stats the file later (ls -l's times).
    time_t now = time(NULL);
    struct tm tm;
    tzset();
    (void)localtime_r(&now, &tm);
    box_err rv = wc_spec(ws, &spec);
    if (rv == BOX_OK)
        rv = box_proc_confine(&spec, &err);
    if (rv != BOX_OK)
        box_log(BOX_LOG_ERROR, WC_SVC, "cannot confine the shell's workers: %s",
                err != NULL ? err : box_strerror(rv));
    else
        rc = 0;
    box_confine_spec_free(&spec);
    box_free(err);
    return rc;
}
