/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain steps: namespaces, mounts, loopback, no_new_privs, rlimits, caps.
 */
#include "contain_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <linux/securebits.h>
#include <net/if.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "box_alloc.h"

// Limits the program runs under; never raised above what was inherited.
#define CT_NPROC 1024
#define CT_NOFILE 4096

box_status
ct_fail(ct_err *e, box_status st, bool missing, const char *fmt, ...)
{
    va_list ap;

    e->ce_missing = missing;
    va_start(ap, fmt);
    vsnprintf(e->ce_msg, sizeof e->ce_msg, fmt, ap);
    va_end(ap);
    return st;
}

box_status
ct_fail_lib(ct_err *e, box_err rv, char *msg)
{
    ct_fail(e, BOX_STATUS_FAULT, rv == BOX_ENOTSUP, "%s",
            msg != NULL ? msg : box_strerror(rv));
    box_free(msg);
    return BOX_STATUS_FAULT;
}

void
ct_report(const ct_err *e)
{
    char line[600];
    int n;

    n = snprintf(line, sizeof line, "box-contain: %s%s\n",
                 e->ce_missing ? "refusing to run: " : "", e->ce_msg);
    if (n > (int)sizeof line - 1)
        n = (int)sizeof line - 1;
    if (write(2, line, (size_t)n) < 0) {
        // nothing left to tell anyone
    }
}

static bool
ns_write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    ssize_t n;
    size_t len = strlen(text);

    if (fd < 0)
        return false;
    n = write(fd, text, len);
    close(fd);
    return n == (ssize_t)len;
}

/*
 * A caller that is not root gets its own user namespace first, so the
 * other namespaces can be made without privilege. Its uid and gid map to
 * themselves: files keep their owners, and nothing maps to root.
 */
box_status
ct_userns(ct_err *e)
{
    uid_t uid = geteuid();
    gid_t gid = getegid();
    char map[64];

    if (unshare(CLONE_NEWUSER) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, true,
                       "user namespaces are unavailable "
                       "(unshare(CLONE_NEWUSER): %s)",
                       strerror(errno));
    if (!ns_write_file("/proc/self/setgroups", "deny"))
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "cannot write /proc/self/setgroups: %s",
                       strerror(errno));
    snprintf(map, sizeof map, "%u %u 1", (unsigned)uid, (unsigned)uid);
    if (!ns_write_file("/proc/self/uid_map", map))
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "cannot write /proc/self/uid_map: %s", strerror(errno));
    snprintf(map, sizeof map, "%u %u 1", (unsigned)gid, (unsigned)gid);
    if (!ns_write_file("/proc/self/gid_map", map))
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "cannot write /proc/self/gid_map: %s", strerror(errno));
    return BOX_STATUS_OK;
}

const char *
ct_ns_name(int flag)
{
    return flag == CLONE_NEWNS    ? "mount"
           : flag == CLONE_NEWPID ? "pid"
           : flag == CLONE_NEWIPC ? "ipc"
           : flag == CLONE_NEWUTS ? "uts"
           : flag == CLONE_NEWNET ? "network"
                                  : "unknown";
}

box_status
ct_unshare(int flag, ct_err *e)
{
    if (unshare(flag) == 0)
        return BOX_STATUS_OK;
    // EINVAL: not built in; EPERM/ENOSPC: refused by the host.
    return ct_fail(e, BOX_STATUS_FAULT, true,
                   "the kernel cannot give this process a new %s namespace "
                   "(unshare: %s)",
                   ct_ns_name(flag), strerror(errno));
}

/*
 * Runs as pid 1 of the new pid namespace: stops mount propagation to the
 * host, then mounts a procfs that shows only this namespace's processes.
 */
box_status
ct_mounts(ct_err *e)
{
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, true,
                       "cannot make mounts private in the new mount namespace "
                       "(mount: %s)",
                       strerror(errno));
    if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC,
              NULL) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, true,
                       "cannot mount a procfs for the new pid namespace "
                       "(mount /proc: %s)",
                       strerror(errno));
    return BOX_STATUS_OK;
}

// Only ever called inside a new uts namespace.
box_status
ct_hostname(ct_err *e)
{
    if (sethostname("box", 3) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, true,
                       "cannot set the hostname in the uts namespace "
                       "(sethostname: %s)",
                       strerror(errno));
    return BOX_STATUS_OK;
}

box_status
ct_lo_up(ct_err *e)
{
    struct ifreq ifr;
    int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    box_status st = BOX_STATUS_OK;

    if (s < 0)
        return ct_fail(e, BOX_STATUS_FAULT, true,
                       "no IPv4 sockets in the network namespace (socket: %s)",
                       strerror(errno));
    memset(&ifr, 0, sizeof ifr);
    memcpy(ifr.ifr_name, "lo", 3);
    if (ioctl(s, SIOCGIFFLAGS, &ifr) != 0) {
        st = ct_fail(e, BOX_STATUS_FAULT, true,
                     "the network namespace has no loopback (SIOCGIFFLAGS "
                     "lo: %s)",
                     strerror(errno));
        goto out;
    }
    ifr.ifr_flags |= IFF_UP | IFF_RUNNING;
    if (ioctl(s, SIOCSIFFLAGS, &ifr) != 0)
        st = ct_fail(e, BOX_STATUS_FAULT, true,
                     "cannot bring up lo in the network namespace "
                     "(SIOCSIFFLAGS: %s)",
                     strerror(errno));
out:
    close(s);
    return st;
}

box_status
ct_nnp(ct_err *e)
{
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, true,
                       "the kernel has no no_new_privs (prctl: %s)",
                       strerror(errno));
    return BOX_STATUS_OK;
}

static box_status
rl_lower(int res, const char *name, rlim_t want, ct_err *e)
{
    struct rlimit rl;

    if (getrlimit(res, &rl) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, false, "getrlimit %s: %s", name,
                       strerror(errno));
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max > want)
        rl.rlim_max = want;
    if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > rl.rlim_max)
        rl.rlim_cur = rl.rlim_max;
    if (setrlimit(res, &rl) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, false, "setrlimit %s: %s", name,
                       strerror(errno));
    return BOX_STATUS_OK;
}

box_status
ct_rlimits(ct_err *e)
{
    box_status st;

    if ((st = rl_lower(RLIMIT_NPROC, "RLIMIT_NPROC", CT_NPROC, e)) != 0)
        return st;
    if ((st = rl_lower(RLIMIT_NOFILE, "RLIMIT_NOFILE", CT_NOFILE, e)) != 0)
        return st;
    return rl_lower(RLIMIT_CORE, "RLIMIT_CORE", 0, e);
}

/*
 * Root (or the owner of the new user namespace) would otherwise keep, or
 * regain at exec, every capability. Lock the securebits so exec grants
 * none, empty the bounding and ambient sets, then clear all three sets.
 */
box_status
ct_drop_caps(ct_err *e)
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    int bits = SECBIT_NOROOT | SECBIT_NOROOT_LOCKED | SECBIT_NO_SETUID_FIXUP |
               SECBIT_NO_SETUID_FIXUP_LOCKED | SECBIT_KEEP_CAPS_LOCKED |
               SECBIT_NO_CAP_AMBIENT_RAISE | SECBIT_NO_CAP_AMBIENT_RAISE_LOCKED;

    if (prctl(PR_SET_SECUREBITS, bits, 0, 0, 0) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, false, "PR_SET_SECUREBITS: %s",
                       strerror(errno));
    for (int cap = 0; cap < 64; cap++) {
        if (prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 && errno != EINVAL)
            return ct_fail(e, BOX_STATUS_FAULT, false, "PR_CAPBSET_DROP %d: %s",
                           cap, strerror(errno));
    }
    if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) != 0 &&
        errno != EINVAL)
        return ct_fail(e, BOX_STATUS_FAULT, false, "PR_CAP_AMBIENT: %s",
                       strerror(errno));
    memset(data, 0, sizeof data);
    if (syscall(SYS_capset, &hdr, data) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, false, "capset: %s",
                       strerror(errno));
    return BOX_STATUS_OK;
}
