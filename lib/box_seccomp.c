/* SPDX-License-Identifier: Apache-2.0 */
/* seccomp: the shared denylist table and one loader for both modes. */
#include "box_seccomp.h"

#include <errno.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <seccomp.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"

#define SC_DENY(n)                                                             \
    {                                                                          \
        BOX_SC_SYS(n)                                                          \
    }

/*
 * What no sandbox (box-contain) and no confined service may do. clone3
 * passes its flags in memory a filter cannot read, so it gets ENOSYS and
 * the C library falls back to clone, whose flags register is checked for
 * CLONE_NEWUSER; unshare likewise. TIOCSTI/TIOCLINUX would let a process
 * type into a shared terminal.
 */
static const box_sc_rule sc_denylist[] = {
    SC_DENY(ptrace),
    SC_DENY(process_vm_readv),
    SC_DENY(process_vm_writev),
    SC_DENY(mount),
    SC_DENY(umount2),
    SC_DENY(pivot_root),
    SC_DENY(chroot),
    SC_DENY(fsopen),
    SC_DENY(fsconfig),
    SC_DENY(fsmount),
    SC_DENY(fspick),
    SC_DENY(move_mount),
    SC_DENY(open_tree),
    SC_DENY(mount_setattr),
    SC_DENY(setns),
    SC_DENY(bpf),
    SC_DENY(keyctl),
    SC_DENY(add_key),
    SC_DENY(request_key),
    SC_DENY(kexec_load),
    SC_DENY(kexec_file_load),
    SC_DENY(perf_event_open),
    SC_DENY(io_uring_setup),
    SC_DENY(io_uring_enter),
    SC_DENY(io_uring_register),
    SC_DENY(userfaultfd),
    SC_DENY(init_module),
    SC_DENY(finit_module),
    SC_DENY(delete_module),
    SC_DENY(swapon),
    SC_DENY(swapoff),
    SC_DENY(reboot),
    SC_DENY(settimeofday),
    SC_DENY(clock_settime),
    SC_DENY(clock_adjtime),
    SC_DENY(adjtimex),
    SC_DENY(acct),
    SC_DENY(quotactl),
    SC_DENY(open_by_handle_at),
    SC_DENY(name_to_handle_at),
    SC_DENY(lookup_dcookie),
    SC_DENY(vmsplice),
    SC_DENY(syslog),
#ifdef SYS_iopl
    SC_DENY(iopl),
#endif
#ifdef SYS_ioperm
    SC_DENY(ioperm),
#endif
    {BOX_SC_SYS(clone3), .sr_errno = ENOSYS},
    {BOX_SC_SYS(clone), .sr_cmp = BOX_SC_MASKED_EQ, .sr_arg = 0,
     .sr_mask = CLONE_NEWUSER, .sr_value = CLONE_NEWUSER},
    {BOX_SC_SYS(unshare), .sr_cmp = BOX_SC_MASKED_EQ, .sr_arg = 0,
     .sr_mask = CLONE_NEWUSER, .sr_value = CLONE_NEWUSER},
    {BOX_SC_SYS(ioctl), .sr_cmp = BOX_SC_MASKED_EQ, .sr_arg = 1,
     .sr_mask = 0xffffffffu, .sr_value = TIOCSTI},
    {BOX_SC_SYS(ioctl), .sr_cmp = BOX_SC_MASKED_EQ, .sr_arg = 1,
     .sr_mask = 0xffffffffu, .sr_value = TIOCLINUX},
};

box_err
box_sc_avail(char **err)
{
    unsigned int act = SECCOMP_RET_ERRNO;

    if (syscall(SYS_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &act) != 0) {
        *err = box_asprintf("the kernel has no seccomp filter support "
                            "(seccomp: %s)",
                            strerror(errno));
        return BOX_ENOTSUP;
    }
    return BOX_OK;
}

/* Adds r with act (an allow, or r's own refusal when act is 0). */
static box_err
sc_add(scmp_filter_ctx ctx, const box_sc_rule *r, uint32_t act, char **err)
{
    struct scmp_arg_cmp cmp;
    unsigned n = 0;
    int rc;

    if (act == 0)
        act = SCMP_ACT_ERRNO(r->sr_errno != 0 ? (unsigned)r->sr_errno : EPERM);
    memset(&cmp, 0, sizeof cmp);
    if (r->sr_cmp != BOX_SC_ALWAYS) {
        cmp.arg = r->sr_arg;
        cmp.op = r->sr_cmp == BOX_SC_NE ? SCMP_CMP_NE : SCMP_CMP_MASKED_EQ;
        cmp.datum_a = r->sr_cmp == BOX_SC_NE ? r->sr_value : r->sr_mask;
        cmp.datum_b = r->sr_cmp == BOX_SC_NE ? 0 : r->sr_value;
        n = 1;
    }
    rc = seccomp_rule_add_array(ctx, act, (int)r->sr_nr, n, n ? &cmp : NULL);
    if (rc != 0) {
        *err =
            box_asprintf("seccomp rule for %s: %s", r->sr_name, strerror(-rc));
        return BOX_EINVAL;
    }
    return BOX_OK;
}

/* The rules sf_let_namespaces leaves out: what box-contain does to build
 * a sandbox. */
static bool
sc_builds_sandboxes(long nr)
{
    static const long nrs[] = {SYS_mount,      SYS_umount2,       SYS_open_tree,
                               SYS_move_mount, SYS_mount_setattr, SYS_clone,
                               SYS_unshare};
    for (size_t i = 0; i < sizeof nrs / sizeof nrs[0]; i++)
        if (nrs[i] == nr)
            return true;
    return false;
}

/* Builds f into *out (the caller releases it). */
static box_err
sc_build(const box_sc_filter *f, scmp_filter_ctx *out, char **err)
{
    bool deny = f->sf_mode == BOX_SC_DENYLIST;
    scmp_filter_ctx ctx =
        seccomp_init(deny ? SCMP_ACT_ALLOW : SCMP_ACT_ERRNO(EPERM));
    box_err rv = BOX_OK;

    if (ctx == NULL) {
        *err = box_strdup("seccomp_init failed");
        return BOX_ENOMEM;
    }
    // A binary tree over the syscall numbers, not a linear walk: every
    // system call of a confined process runs the filter (a worker's
    // allowlist has some 150 rules).
    (void)seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
    for (size_t i = 0; deny && i < sizeof sc_denylist / sizeof *sc_denylist;
         i++) {
        if (f->sf_let_ptrace && sc_denylist[i].sr_nr == SYS_ptrace)
            continue;
        if (f->sf_let_namespaces && sc_builds_sandboxes(sc_denylist[i].sr_nr))
            continue;
        if ((rv = sc_add(ctx, &sc_denylist[i], 0, err)) != BOX_OK)
            goto fail;
    }
    // In an allowlist, a rule with an errno is a refusal with it (clone3's
    // ENOSYS, which makes the C library fall back to clone).
    for (size_t i = 0; i < f->sf_nrules; i++) {
        const box_sc_rule *r = &f->sf_rules[i];
        uint32_t act = deny || r->sr_errno != 0 ? 0 : SCMP_ACT_ALLOW;
        if ((rv = sc_add(ctx, r, act, err)) != BOX_OK)
            goto fail;
    }
    *out = ctx;
    return BOX_OK;
fail:
    seccomp_release(ctx);
    return rv;
}

box_err
box_sc_load(const box_sc_filter *f, char **err)
{
    scmp_filter_ctx ctx = NULL;
    box_err rv = sc_build(f, &ctx, err);
    if (rv != BOX_OK)
        return rv;
    int rc = seccomp_load(ctx);
    if (rc != 0) {
        *err = box_asprintf("the kernel refused the seccomp filter "
                            "(seccomp_load: %s)",
                            strerror(-rc));
        rv = BOX_ENOTSUP;
    }
    seccomp_release(ctx);
    return rv;
}

struct box_sc_prog {
    struct sock_filter *sp_insns; // owned
    size_t sp_len;
    size_t sp_nslots; // instructions that compare an argument with the slot
};

/* libseccomp 2.5 exports only to a descriptor: a memory file, read back. */
static box_err
sc_export(scmp_filter_ctx ctx, box_sc_prog *p, char **err)
{
    box_err rv = BOX_EIO;
    struct stat st;
    int fd = memfd_create("box-seccomp", MFD_CLOEXEC);
    if (fd < 0) {
        *err =
            box_asprintf("seccomp export: memfd_create: %s", strerror(errno));
        return BOX_EIO;
    }
    int rc = seccomp_export_bpf(ctx, fd);
    if (rc != 0 || fstat(fd, &st) != 0 || st.st_size <= 0 ||
        st.st_size % (off_t)sizeof(struct sock_filter) != 0 ||
        st.st_size / (off_t)sizeof(struct sock_filter) > BPF_MAXINSNS) {
        *err = box_strdup("seccomp export: libseccomp gave no program");
        goto out;
    }
    p->sp_len = (size_t)st.st_size / sizeof(struct sock_filter);
    p->sp_insns = box_calloc(p->sp_len, sizeof(struct sock_filter));
    if (p->sp_insns == NULL) {
        rv = BOX_ENOMEM;
        goto out;
    }
    if (pread(fd, p->sp_insns, (size_t)st.st_size, 0) != st.st_size) {
        *err = box_asprintf("seccomp export: read: %s", strerror(errno));
        goto out;
    }
    rv = BOX_OK;
out:
    close(fd);
    return rv;
}

/* A conditional jump on an argument's low word against the slot. */
static bool
sc_is_slot(const struct sock_filter *in)
{
    return BPF_CLASS(in->code) == BPF_JMP && BPF_SRC(in->code) == BPF_K &&
           in->k == (uint32_t)BOX_SC_SLOT;
}

box_err
box_sc_compile(const box_sc_filter *f, box_sc_prog **out, char **err)
{
    scmp_filter_ctx ctx = NULL;
    box_sc_prog *p = box_calloc(1, sizeof *p);
    if (p == NULL)
        return BOX_ENOMEM;
    box_err rv = sc_build(f, &ctx, err);
    if (rv == BOX_OK)
        rv = sc_export(ctx, p, err);
    if (ctx != NULL)
        seccomp_release(ctx);
    if (rv != BOX_OK) {
        box_sc_prog_free(p);
        return rv;
    }
    for (size_t i = 0; i < p->sp_len; i++)
        p->sp_nslots += sc_is_slot(&p->sp_insns[i]);
    *out = p;
    return BOX_OK;
}

box_err
box_sc_install(const box_sc_prog *p, uint32_t slot, char **err)
{
    struct sock_filter *insns = NULL;
    box_err rv = BOX_OK;

    // Patched in a copy: the compiled program is the zygote's, shared
    // copy-on-write by every worker.
    insns = box_calloc(p->sp_len, sizeof *insns);
    if (insns == NULL)
        return BOX_ENOMEM;
    memcpy(insns, p->sp_insns, p->sp_len * sizeof *insns);
    for (size_t i = 0; p->sp_nslots > 0 && i < p->sp_len; i++)
        if (sc_is_slot(&insns[i]))
            insns[i].k = slot;
    struct sock_fprog prog = {.len = (unsigned short)p->sp_len,
                              .filter = insns};
    if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0) != 0) {
        *err = box_asprintf("the kernel refused the seccomp filter "
                            "(PR_SET_SECCOMP: %s)",
                            strerror(errno));
        rv = BOX_ENOTSUP;
    }
    box_free(insns);
    return rv;
}

size_t
box_sc_prog_slots(const box_sc_prog *p)
{
    return p->sp_nslots;
}

void
box_sc_prog_free(box_sc_prog *p)
{
    if (p == NULL)
        return;
    box_free(p->sp_insns);
    box_free(p);
}
