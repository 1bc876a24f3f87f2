/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain --probe: try every sandbox step in a throwaway child, one line
 * each. */
#include "contain_int.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* What a probe child sends back; ok carries detail for the ok line. */
typedef struct probe_result {
    box_status pr_status;
    char pr_ok[128];
    ct_err pr_err;
} probe_result;

typedef box_status (*probe_fn)(probe_result *r, int out);

/* Not root: every namespace is made inside a user namespace, as in a run. */
static box_status
pr_as_runner(probe_result *r)
{
    if (geteuid() == 0)
        return BOX_STATUS_OK;
    return ct_userns(&r->pr_err);
}

static box_status
pr_userns(probe_result *r, int out)
{
    return ct_userns(&r->pr_err);
}

static box_status
pr_mountns(probe_result *r, int out)
{
    box_status st;

    if ((st = pr_as_runner(r)) != 0)
        return st;
    return ct_unshare(CLONE_NEWNS, &r->pr_err);
}

/* The pid namespace's init must be able to mount its own /proc. */
static box_status
pr_pidns(probe_result *r, int out)
{
    box_status st;
    pid_t init;
    int ws;

    if ((st = pr_as_runner(r)) != 0 ||
        (st = ct_unshare(CLONE_NEWNS, &r->pr_err)) != 0)
        return st;
    init = (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, 0, NULL, NULL, 0);
    if (init < 0)
        return ct_fail(&r->pr_err, BOX_STATUS_FAULT, true,
                       "the kernel cannot give this process a new pid "
                       "namespace (clone: %s)",
                       strerror(errno));
    if (init == 0) {
        probe_result in;
        memset(&in, 0, sizeof in);
        in.pr_status = ct_mounts(&in.pr_err);
        if (in.pr_status != BOX_STATUS_OK && write(out, &in, sizeof in) < 0)
            _exit(2);
        _exit(in.pr_status == BOX_STATUS_OK ? 0 : 1);
    }
    if (waitpid(init, &ws, 0) != init || !WIFEXITED(ws) || WEXITSTATUS(ws) != 0)
        _exit(1); // init reported, or died without a word
    snprintf(r->pr_ok, sizeof r->pr_ok, "(with a fresh /proc)");
    return BOX_STATUS_OK;
}

static box_status
pr_ipcns(probe_result *r, int out)
{
    box_status st;

    if ((st = pr_as_runner(r)) != 0)
        return st;
    return ct_unshare(CLONE_NEWIPC, &r->pr_err);
}

static box_status
pr_utsns(probe_result *r, int out)
{
    box_status st;

    if ((st = pr_as_runner(r)) != 0 ||
        (st = ct_unshare(CLONE_NEWUTS, &r->pr_err)) != 0)
        return st;
    return ct_hostname(&r->pr_err);
}

static box_status
pr_netns(probe_result *r, int out)
{
    box_status st;

    if ((st = pr_as_runner(r)) != 0 ||
        (st = ct_unshare(CLONE_NEWNET, &r->pr_err)) != 0 ||
        (st = ct_lo_up(&r->pr_err)) != 0)
        return st;
    snprintf(r->pr_ok, sizeof r->pr_ok, "(lo up)");
    return BOX_STATUS_OK;
}

static box_status
pr_nnp(probe_result *r, int out)
{
    return ct_nnp(&r->pr_err);
}

/* A ruleset with only the system grants must make /etc/passwd unreadable. */
static box_status
pr_landlock(probe_result *r, int out)
{
    ct_plan plan = {0};
    box_status st;
    int abi, fd;

    if ((st = ct_ll_abi(&abi, &r->pr_err)) != 0)
        return st;
    plan.cp_abi = abi;
    if ((st = ct_nnp(&r->pr_err)) != 0 ||
        (st = ct_ll_apply(&plan, &r->pr_err)) != 0)
        return st;
    fd = open("/etc/passwd", O_RDONLY | O_CLOEXEC);
    if (fd >= 0 || errno != EACCES)
        return ct_fail(&r->pr_err, BOX_STATUS_FAULT, true,
                       "Landlock ABI %d accepted a ruleset but did not "
                       "enforce it",
                       abi);
    snprintf(r->pr_ok, sizeof r->pr_ok, "(ABI %d, enforced)", abi);
    return BOX_STATUS_OK;
}

/* The real filter, loaded, must refuse ptrace. */
static box_status
pr_seccomp(probe_result *r, int out)
{
    box_status st;

    if ((st = ct_seccomp_avail(&r->pr_err)) != 0 ||
        (st = ct_nnp(&r->pr_err)) != 0 ||
        (st = ct_seccomp_load(&r->pr_err)) != 0)
        return st;
    if (ptrace(PTRACE_TRACEME, 0, NULL, NULL) == 0 || errno != EPERM)
        return ct_fail(&r->pr_err, BOX_STATUS_FAULT, true,
                       "the seccomp filter loaded but ptrace was not refused");
    snprintf(r->pr_ok, sizeof r->pr_ok, "(filter enforced)");
    return BOX_STATUS_OK;
}

/*
 * --deny masks and --show paths are detached clones moved onto a path
 * (open_tree and move_mount, Linux 5.2), and the noexec and read-only
 * binds are clones given their flags first (mount_setattr, Linux 5.12):
 * clone /proc, make it read-only and noexec, and move it onto itself in
 * a private mount namespace.
 */
static box_status
pr_masks(probe_result *r, int out)
{
    struct mount_attr attr = {.attr_set =
                                  MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOEXEC};
    box_status st;
    int fd;

    if ((st = pr_as_runner(r)) != 0 ||
        (st = ct_unshare(CLONE_NEWNS, &r->pr_err)) != 0)
        return st;
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return ct_fail(&r->pr_err, BOX_STATUS_FAULT, true,
                       "cannot make mounts private (mount: %s)",
                       strerror(errno));
    fd = open_tree(AT_FDCWD, "/proc",
                   OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE);
    if (fd >= 0 && mount_setattr(fd, "", AT_EMPTY_PATH | AT_RECURSIVE, &attr,
                                 sizeof attr) != 0) {
        st = ct_fail(&r->pr_err, BOX_STATUS_FAULT, true,
                     "the kernel cannot set the flags of a cloned mount "
                     "(mount_setattr: %s; Linux 5.12 has it)",
                     strerror(errno));
        close(fd);
        return st;
    }
    if (fd < 0 ||
        move_mount(fd, "", AT_FDCWD, "/proc", MOVE_MOUNT_F_EMPTY_PATH) != 0)
        return ct_fail(&r->pr_err, BOX_STATUS_FAULT, true,
                       "the kernel cannot move a cloned mount (%s: %s; "
                       "Linux 5.2 has it)",
                       fd < 0 ? "open_tree" : "move_mount", strerror(errno));
    close(fd);
    snprintf(r->pr_ok, sizeof r->pr_ok,
             "(open_tree, mount_setattr, move_mount)");
    return BOX_STATUS_OK;
}

/* ORDER PROBE: the lines --probe prints, in this order. */
static const struct probe_row {
    const char *pw_name;
    probe_fn pw_fn;
    bool pw_root_unused; // not needed when box-contain runs as root
} probe_rows[] = {
    {"user-namespace", pr_userns, true}, {"mount-namespace", pr_mountns, false},
    {"pid-namespace", pr_pidns, false},  {"ipc-namespace", pr_ipcns, false},
    {"uts-namespace", pr_utsns, false},  {"net-namespace", pr_netns, false},
    {"no-new-privs", pr_nnp, false},     {"landlock", pr_landlock, false},
    {"seccomp", pr_seccomp, false},      {"mount-masks", pr_masks, false},
};

static void
probe_one(const struct probe_row *row, probe_result *res)
{
    int p[2];
    pid_t pid;
    int ws;
    ssize_t n;

    memset(res, 0, sizeof *res);
    if (pipe2(p, O_CLOEXEC) != 0) {
        res->pr_status = ct_fail(&res->pr_err, BOX_STATUS_FAULT, false,
                                 "pipe: %s", strerror(errno));
        return;
    }
    pid = fork();
    if (pid == 0) {
        probe_result r;
        close(p[0]);
        memset(&r, 0, sizeof r);
        r.pr_status = row->pw_fn(&r, p[1]);
        if (write(p[1], &r, sizeof r) < 0)
            _exit(2);
        _exit(0);
    }
    close(p[1]);
    if (pid < 0) {
        close(p[0]);
        res->pr_status = ct_fail(&res->pr_err, BOX_STATUS_FAULT, false,
                                 "fork: %s", strerror(errno));
        return;
    }
    do {
        n = read(p[0], res, sizeof *res);
    } while (n < 0 && errno == EINTR);
    close(p[0]);
    while (waitpid(pid, &ws, 0) < 0 && errno == EINTR) {
    }
    if (n != (ssize_t)sizeof *res) {
        memset(res, 0, sizeof *res);
        res->pr_status = ct_fail(&res->pr_err, BOX_STATUS_FAULT, true,
                                 "the probe process ended without a result "
                                 "(wait status %d)",
                                 ws);
    }
    res->pr_err.ce_msg[sizeof res->pr_err.ce_msg - 1] = '\0';
    res->pr_ok[sizeof res->pr_ok - 1] = '\0';
}

int
contain_probe(void)
{
    int status = 0;
    bool root = geteuid() == 0;

    for (size_t i = 0; i < sizeof probe_rows / sizeof *probe_rows; i++) {
        const struct probe_row *row = &probe_rows[i];
        probe_result r;

        probe_one(row, &r);
        if (r.pr_status == BOX_STATUS_OK) {
            printf("%s: ok%s%s\n", row->pw_name, r.pr_ok[0] ? " " : "",
                   r.pr_ok);
        } else if (root && row->pw_root_unused) {
            printf("%s: unused (running as root; %s)\n", row->pw_name,
                   r.pr_err.ce_msg);
        } else {
            printf("%s: missing (%s)\n", row->pw_name, r.pr_err.ce_msg);
            status = BOX_STATUS_FAULT;
        }
        fflush(stdout);
    }
    return status;
}
