/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain run path: program identity, the sandbox sequence, init and exec.
 */
#include "contain_int.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "box_alloc.h"

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

// Signals passed from box-contain to init, and from init to the program.
static const int ct_forwarded[] = {SIGHUP,  SIGINT,  SIGQUIT,  SIGTERM,
                                   SIGUSR1, SIGUSR2, SIGWINCH, SIGCONT};

// The namespaces init is cloned into; this process stays outside them.
static const int ct_namespaces[] = {CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWIPC,
                                    CLONE_NEWUTS, CLONE_NEWNET};

static int
ct_wait_status(int ws)
{
    if (WIFEXITED(ws))
        return WEXITSTATUS(ws);
    if (WIFSIGNALED(ws))
        return 128 + WTERMSIG(ws);
    return BOX_STATUS_FAULT;
}

// fds 0-2 must exist, or the first open below would take their place.
static void
ct_stdio(void)
{
    for (int fd = 0; fd < 3; fd++) {
        if (fcntl(fd, F_GETFD) < 0 && errno == EBADF) {
            int n = open("/dev/null", O_RDWR);
            if (n >= 0 && n != fd) {
                dup2(n, fd);
                close(n);
            }
        }
    }
}

static void
ct_close_range(unsigned lo, unsigned hi)
{
    if (lo > hi)
        return;
    if (syscall(SYS_close_range, lo, hi, 0) == 0)
        return;
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536)
        max = 65536;
    for (long fd = lo; fd < max && fd <= (long)hi; fd++)
        close((int)fd);
}

/* Nothing the caller left open survives, except the program's own fd. */
static void
ct_close_inherited(int keep)
{
    if (keep < 3) {
        ct_close_range(3, ~0U);
        return;
    }
    ct_close_range(3, (unsigned)keep - 1);
    ct_close_range((unsigned)keep + 1, ~0U);
}

/*
 * The program is the file the caller decided on: the fd it passed, or
 * the path it named, opened once here and accepted only if its identity
 * matches. From here on only the fd is used; the name is never resolved
 * again.
 */
static box_status
ct_program(const contain_spec *spec, int *out, ct_err *e)
{
    const char *name = spec->cs_exec_path;
    struct stat sb;
    int fd;

    if (spec->cs_exec_fd >= 0) {
        fd = spec->cs_exec_fd;
        name = spec->cs_argv[0];
        if (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0)
            return ct_fail(e, BOX_STATUS_FAULT, false, "--exec-fd %d: %s", fd,
                           strerror(errno));
    } else {
        fd = open(name, O_PATH | O_CLOEXEC);
        if (fd < 0)
            return ct_fail(e,
                           errno == ENOENT || errno == ENOTDIR
                               ? BOX_STATUS_NOT_FOUND
                               : BOX_STATUS_CANNOT_RUN,
                           false, "%s: cannot open the program: %s", name,
                           strerror(errno));
    }
    *out = fd;
    if (fstat(fd, &sb) != 0)
        return ct_fail(e, BOX_STATUS_CANNOT_RUN, false, "%s: %s", name,
                       strerror(errno));
    if (spec->cs_has_id &&
        (sb.st_dev != spec->cs_dev || sb.st_ino != spec->cs_ino))
        return ct_fail(e, BOX_STATUS_CANNOT_RUN, false,
                       "refusing to run %s: the file changed after it was "
                       "decided (expected dev:ino %ju:%ju, found %ju:%ju)",
                       name, (uintmax_t)spec->cs_dev, (uintmax_t)spec->cs_ino,
                       (uintmax_t)sb.st_dev, (uintmax_t)sb.st_ino);
    if (!S_ISREG(sb.st_mode))
        return ct_fail(e, BOX_STATUS_CANNOT_RUN, false,
                       "refusing to run %s: not a regular file", name);
    return BOX_STATUS_OK;
}

/*
 * Waits for child while forwarding the signals in set that someone sent
 * (a terminal's signals reach every process in the group already, so
 * kernel-sent ones are not repeated). reap_all: also collect orphans, as
 * pid 1 must.
 */
static int
ct_wait(pid_t child, const sigset_t *set, bool reap_all)
{
    for (;;) {
        siginfo_t si;
        int sig = sigwaitinfo(set, &si);

        if (sig < 0) {
            if (errno == EINTR)
                continue;
            return BOX_STATUS_FAULT;
        }
        if (sig != SIGCHLD) {
            if (si.si_code != SI_KERNEL)
                kill(child, sig);
            continue;
        }
        for (;;) {
            int ws;
            pid_t r = waitpid(reap_all ? -1 : child, &ws, WNOHANG);
            if (r < 0 && errno == EINTR)
                continue;
            if (r < 0)
                return BOX_STATUS_FAULT; // ECHILD: nothing left to wait for
            if (r == 0)
                break;
            if (r == child)
                return ct_wait_status(ws);
        }
    }
}

/*
 * A #! program whose interpreter --shells covers: the interpreter opened
 * before the covers, run by its descriptor with the argv the kernel gives
 * an interpreter (its #! name, the line's argument, the script as
 * /dev/fd/N, then the program's arguments). Returns only on failure.
 */
static void
ct_exec_script(const contain_spec *spec, int fd, const ct_script *sc)
{
    char script[32];
    size_t n = 0, k = 0;
    char **av;

    while (spec->cs_argv[n] != NULL)
        n++;
    if ((av = box_calloc(n + 3, sizeof *av)) == NULL) {
        errno = ENOMEM;
        return;
    }
    snprintf(script, sizeof script, "/dev/fd/%d", fd);
    av[k++] = (char *)sc->sc_interp;
    if (sc->sc_has_arg)
        av[k++] = (char *)sc->sc_arg;
    av[k++] = script;
    for (size_t i = 1; i < n; i++)
        av[k++] = spec->cs_argv[i];
    av[k] = NULL;
    fcntl(fd, F_SETFD, 0); // the interpreter reads the script through it
    syscall(SYS_execveat, sc->sc_fd, "", av, spec->cs_env, AT_EMPTY_PATH);
    int err = errno;
    box_free(av);
    errno = err;
}

/* The program's process: clean signal state, no stray fds, exec by fd. */
static _Noreturn void
ct_exec(const contain_spec *spec, int fd, const ct_script *sc)
{
    sigset_t none;

    for (int sig = 1; sig < NSIG; sig++)
        signal(sig, SIG_DFL); // SIGKILL/SIGSTOP/RT internals just fail
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    if (syscall(SYS_close_range, 3U, ~0U, CLOSE_RANGE_CLOEXEC) != 0) {
        for (int n = 3; n < 4096; n++)
            fcntl(n, F_SETFD, FD_CLOEXEC);
    }
    if (sc->sc_fd >= 0)
        ct_exec_script(spec, fd, sc);
    else
        syscall(SYS_execveat, fd, "", spec->cs_argv, spec->cs_env,
                AT_EMPTY_PATH);
    if (errno == ENOENT && sc->sc_fd < 0) {
        // A #! script: its interpreter reads it through /dev/fd/N.
        fcntl(fd, F_SETFD, 0);
        syscall(SYS_execveat, fd, "", spec->cs_argv, spec->cs_env,
                AT_EMPTY_PATH);
    }
    int err = errno;
    ct_err e;
    ct_fail(&e, 0, false, "%s: cannot execute: %s%s", spec->cs_argv[0],
            strerror(err),
            err == ENOENT ? " (its interpreter or loader is missing)"
            : err == EACCES
                ? " (the sandbox grants no execute right on it or its "
                  "interpreter)"
                : "");
    ct_report(&e);
    _exit(err == ENOENT ? BOX_STATUS_NOT_FOUND : BOX_STATUS_CANNOT_RUN);
}

/*
 * pid 1 of the new pid namespace. Finishes the sandbox on itself, in
 * order, then forks the program and reaps until it ends; returning ends
 * the namespace and every process left in it.
 */
static _Noreturn void
ct_init(const contain_spec *spec, ct_plan *plan, int fd, const ct_script *sc,
        int alive, const sigset_t *set)
{
    ct_err e;
    box_status st;
    struct pollfd p = {.fd = alive, .events = POLLIN};
    ct_egress eg = CT_EGRESS_NONE;
    pid_t prog;

    memset(&e, 0, sizeof e);
    // Die with box-contain; if it is already gone, do not start.
    if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) != 0 || poll(&p, 1, 0) != 0)
        _exit(BOX_STATUS_FAULT);
    close(alive);
    if ((st = ct_egress_open(spec, &eg, &e)) != 0 ||
        (st = ct_mounts(&e)) != 0 || (st = ct_binds(plan, &e)) != 0 ||
        (st = ct_masks(spec, plan, &e)) != 0 ||
        (st = ct_shells(plan, &e)) != 0 || (st = ct_hostname(&e)) != 0 ||
        (!spec->cs_net_host && (st = ct_lo_up(&e)) != 0) ||
        (st = ct_egress_listen(spec, &eg, &e)) != 0)
        goto fail;
    if (chdir(spec->cs_cwd != NULL ? spec->cs_cwd : "/") != 0) {
        st =
            ct_fail(&e, BOX_STATUS_FAULT, false, "--cwd %s: %s",
                    spec->cs_cwd != NULL ? spec->cs_cwd : "/", strerror(errno));
        goto fail;
    }
    if ((st = ct_nnp(&e)) != 0 || (st = ct_ll_apply(plan, &e)) != 0)
        goto fail;
    ct_plan_free(plan);
    if ((st = ct_seccomp_load(&e)) != 0 || (st = ct_rlimits(&e)) != 0 ||
        (st = ct_drop_caps(&e)) != 0)
        goto fail;
    // The relay first: init hands it the egress fds and keeps neither, so
    // the program never coexists with an init that holds them.
    if ((st = ct_egress_start(spec, &eg, &e)) != 0)
        goto fail;
    prog = fork();
    if (prog < 0) {
        st = ct_fail(&e, BOX_STATUS_FAULT, false, "fork: %s", strerror(errno));
        goto fail;
    }
    if (prog == 0)
        ct_exec(spec, fd, sc);
    close(fd);
    if (sc->sc_fd >= 0)
        close(sc->sc_fd);
    _exit(ct_wait(prog, set, true));
fail:
    ct_report(&e);
    _exit(st);
}

/*
 * The clone of init failed: find the namespace the kernel will not give,
 * one throwaway child per flag, so the refusal can name it.
 */
static box_status
ct_which_ns(int err, ct_err *e)
{
    for (size_t i = 0; i < sizeof ct_namespaces / sizeof *ct_namespaces; i++) {
        int ws;
        pid_t pid = fork();
        if (pid == 0)
            _exit(ct_unshare(ct_namespaces[i], e) == BOX_STATUS_OK ? 0 : 1);
        if (pid < 0 || waitpid(pid, &ws, 0) != pid)
            break;
        if (!WIFEXITED(ws) || WEXITSTATUS(ws) != 0) {
            return ct_fail(e, BOX_STATUS_FAULT, true,
                           "the kernel cannot give this process a new %s "
                           "namespace (clone: %s)",
                           ct_ns_name(ct_namespaces[i]), strerror(err));
        }
    }
    return ct_fail(e, BOX_STATUS_FAULT, true,
                   "the kernel cannot create the sandbox namespaces "
                   "(clone: %s; see box-contain --probe)",
                   strerror(err));
}

/*
 * The sandbox, in one place and one order: program identity, kernel
 * features, the Landlock plan, the --shells covers planned (and a #!
 * program's covered interpreter opened: contain_shells.c), user
 * namespace (not root), then init is
 * cloned into new mount, pid, ipc, uts and net namespaces; init mounts
 * /proc, binds the grants and program directories noexec and what may
 * run executable (contain_bind.c), lays the --deny masks and --hide
 * covers, binds the --shells shim over the shells, sets the hostname,
 * raises lo, binds --egress's port, sets no_new_privs, Landlock,
 * seccomp, rlimits, drops every capability, forks the egress relay
 * (contain_egress.c) and the program. This process
 * only forwards signals and the status.
 */
int
contain_run(const contain_spec *spec)
{
    ct_err e;
    ct_plan plan = {0};
    ct_script sc = CT_SCRIPT_NONE;
    box_status st;
    sigset_t set, old;
    int fd = -1, abi = 0, alive[2] = {-1, -1}, status, ns_flags = 0;
    pid_t init;

    memset(&e, 0, sizeof e);
    ct_stdio();
    signal(SIGCHLD, SIG_DFL); // an ignored SIGCHLD would reap for us
    ct_close_inherited(spec->cs_exec_fd);
    if ((st = ct_program(spec, &fd, &e)) != 0)
        goto fail;
    if ((st = ct_ll_abi(&abi, &e)) != 0 || (st = ct_seccomp_avail(&e)) != 0)
        goto fail;
    if ((st = ct_ll_prepare(spec, abi, fd, &plan, &e)) != 0 ||
        (st = ct_shells_plan(&plan, &e)) != 0 ||
        (st = ct_shells_interp(&plan, fd, &sc, &e)) != 0 ||
        (st = ct_bind_plan(&plan, fd, &e)) != 0)
        goto fail;
    if (geteuid() != 0 && (st = ct_userns(&e)) != 0)
        goto fail;
    for (size_t i = 0; i < sizeof ct_namespaces / sizeof *ct_namespaces; i++)
        ns_flags |= ct_namespaces[i];
    if (spec->cs_net_host)
        ns_flags &= ~CLONE_NEWNET; // native egress: the host's network
    if (pipe2(alive, O_CLOEXEC) != 0) {
        st = ct_fail(&e, BOX_STATUS_FAULT, false, "pipe: %s", strerror(errno));
        goto fail;
    }
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof ct_forwarded / sizeof *ct_forwarded; i++)
        sigaddset(&set, ct_forwarded[i]);
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, &old);
    // Only init enters the namespaces: this process keeps the caller's
    // view of /proc and its own pid namespace (sanitizer leak checks
    // read /proc and fork at exit).
    init = (pid_t)syscall(SYS_clone, ns_flags | SIGCHLD, 0, NULL, NULL, 0);
    if (init < 0) {
        st = ct_which_ns(errno, &e);
        sigprocmask(SIG_SETMASK, &old, NULL);
        goto fail;
    }
    if (init == 0) {
        close(alive[1]);
        ct_init(spec, &plan, fd, &sc, alive[0], &set);
    }
    close(alive[0]);
    alive[0] = -1;
    ct_plan_free(&plan);
    close(fd);
    if (sc.sc_fd >= 0)
        close(sc.sc_fd);
    status = ct_wait(init, &set, false);
    close(alive[1]);
    return status;
fail:
    ct_report(&e);
    ct_plan_free(&plan);
    if (fd >= 0)
        close(fd);
    if (sc.sc_fd >= 0)
        close(sc.sc_fd);
    for (int i = 0; i < 2; i++) {
        if (alive[i] >= 0)
            close(alive[i]);
    }
    return st;
}
