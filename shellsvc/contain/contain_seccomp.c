/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain seccomp: default allow, EPERM for the syscalls a sandbox must
 * never make. */
#include "contain_int.h"

#include <errno.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * Refused outright with EPERM. Syscall numbers come from the C library's
 * headers, so a libseccomp that predates a syscall still filters it.
 */
#define CT_SYS(n)                                                              \
    {                                                                          \
        SYS_##n, #n                                                            \
    }
static const struct ct_sys_row {
    long sr_nr;
    const char *sr_name;
} ct_refused[] = {
    CT_SYS(ptrace),
    CT_SYS(process_vm_readv),
    CT_SYS(process_vm_writev),
    CT_SYS(mount),
    CT_SYS(umount2),
    CT_SYS(pivot_root),
    CT_SYS(chroot),
    CT_SYS(fsopen),
    CT_SYS(fsconfig),
    CT_SYS(fsmount),
    CT_SYS(fspick),
    CT_SYS(move_mount),
    CT_SYS(open_tree),
    CT_SYS(mount_setattr),
    CT_SYS(setns),
    CT_SYS(bpf),
    CT_SYS(keyctl),
    CT_SYS(add_key),
    CT_SYS(request_key),
    CT_SYS(kexec_load),
    CT_SYS(kexec_file_load),
    CT_SYS(perf_event_open),
    CT_SYS(io_uring_setup),
    CT_SYS(io_uring_enter),
    CT_SYS(io_uring_register),
    CT_SYS(userfaultfd),
    CT_SYS(init_module),
    CT_SYS(finit_module),
    CT_SYS(delete_module),
    CT_SYS(swapon),
    CT_SYS(swapoff),
    CT_SYS(reboot),
    CT_SYS(settimeofday),
    CT_SYS(clock_settime),
    CT_SYS(clock_adjtime),
    CT_SYS(adjtimex),
    CT_SYS(acct),
    CT_SYS(quotactl),
    CT_SYS(open_by_handle_at),
    CT_SYS(name_to_handle_at),
    CT_SYS(lookup_dcookie),
    CT_SYS(vmsplice),
    CT_SYS(syslog),
#ifdef SYS_iopl
    CT_SYS(iopl),
#endif
#ifdef SYS_ioperm
    CT_SYS(ioperm),
#endif
};

box_status
ct_seccomp_avail(ct_err *e)
{
    unsigned int act = SECCOMP_RET_ERRNO;

    if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &act) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, true,
                       "the kernel has no seccomp filter support "
                       "(seccomp: %s)",
                       strerror(errno));
    return BOX_STATUS_OK;
}

static box_status
sc_rule(scmp_filter_ctx ctx, uint32_t act, long nr, const char *name,
        unsigned int n, const struct scmp_arg_cmp *cmp, ct_err *e)
{
    int rc = seccomp_rule_add_array(ctx, act, (int)nr, n, cmp);

    if (rc != 0)
        return ct_fail(e, BOX_STATUS_FAULT, false, "seccomp rule for %s: %s",
                       name, strerror(-rc));
    return BOX_STATUS_OK;
}

/*
 * clone3 passes its flags in memory a filter cannot read, so it gets
 * ENOSYS and the C library falls back to clone, whose flags register is
 * checked for CLONE_NEWUSER; unshare likewise. TIOCSTI/TIOCLINUX would let
 * the program type into a shared terminal.
 */
box_status
ct_seccomp_load(ct_err *e)
{
    scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
    uint32_t eperm = SCMP_ACT_ERRNO(EPERM);
    struct scmp_arg_cmp userns =
        SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER);
    struct scmp_arg_cmp sti = SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI);
    struct scmp_arg_cmp linux_ =
        SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX);
    box_status st = BOX_STATUS_OK;
    int rc;

    if (ctx == NULL)
        return ct_fail(e, BOX_STATUS_FAULT, false, "seccomp_init failed");
    for (size_t i = 0; i < sizeof ct_refused / sizeof *ct_refused; i++) {
        st = sc_rule(ctx, eperm, ct_refused[i].sr_nr, ct_refused[i].sr_name, 0,
                     NULL, e);
        if (st != BOX_STATUS_OK)
            goto out;
    }
    if ((st = sc_rule(ctx, SCMP_ACT_ERRNO(ENOSYS), SYS_clone3, "clone3", 0,
                      NULL, e)) != 0 ||
        (st = sc_rule(ctx, eperm, SYS_clone, "clone", 1, &userns, e)) != 0 ||
        (st = sc_rule(ctx, eperm, SYS_unshare, "unshare", 1, &userns, e)) !=
            0 ||
        (st = sc_rule(ctx, eperm, SYS_ioctl, "ioctl", 1, &sti, e)) != 0 ||
        (st = sc_rule(ctx, eperm, SYS_ioctl, "ioctl", 1, &linux_, e)) != 0)
        goto out;
    rc = seccomp_load(ctx);
    if (rc != 0)
        st = ct_fail(e, BOX_STATUS_FAULT, true,
                     "the kernel refused the seccomp filter "
                     "(seccomp_load: %s)",
                     strerror(-rc));
out:
    seccomp_release(ctx);
    return st;
}
