/* SPDX-License-Identifier: Apache-2.0 */
/* seccomp filters: the denylist every sandbox and service shares, and an
 * allowlist mode for processes that need only a few syscalls. */
#ifndef BOX_SECCOMP_H
#define BOX_SECCOMP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>

#include "box_err.h"

/* How a rule's one argument is tested. */
typedef enum box_sc_cmp {
    BOX_SC_ALWAYS,    // no test: every call
    BOX_SC_MASKED_EQ, // (arg & sr_mask) == sr_value
    BOX_SC_NE,        // arg != sr_value (all 64 bits: junk above an int
                      // makes it differ, so a refusal cannot be dodged)
} box_sc_cmp;

/*
 * One syscall a filter names. Numbers come from the C library's headers
 * (BOX_SC_SYS), so a libseccomp that predates a syscall still filters it.
 */
typedef struct box_sc_rule {
    long sr_nr;
    const char *sr_name; // for messages
    int sr_errno;        // a refusal's error (0: EPERM); in an allowlist,
                         // non-zero makes the rule a refusal with it
    box_sc_cmp sr_cmp;
    unsigned sr_arg; // the argument tested (0..5)
    uint64_t sr_mask;
    uint64_t sr_value;
} box_sc_rule;

#define BOX_SC_SYS(n) .sr_nr = SYS_##n, .sr_name = #n

typedef enum box_sc_mode {
    BOX_SC_DENYLIST,  // default allow; the denylist and sf_rules refused
    BOX_SC_ALLOWLIST, // default EPERM; only sf_rules (as tested) run
} box_sc_mode;

/* A filter to load; every array is borrowed for the call. */
typedef struct box_sc_filter {
    box_sc_mode sf_mode;
    const box_sc_rule *sf_rules; // denylist: refused too; allowlist: allowed
    size_t sf_nrules;
    /*
     * Denylist mode: ptrace is not refused. Only for a sanitizer build,
     * whose LeakSanitizer stops the world with ptrace at exit; a
     * Landlock domain still keeps ptrace to the process's own domain.
     */
    bool sf_let_ptrace;
    /*
     * Denylist mode: new user namespaces and the mount calls box-contain
     * makes in them (mount, umount2, open_tree, move_mount,
     * mount_setattr) are not refused. Only for box-shell's launcher,
     * whose filter box-contain inherits and which builds every sandbox;
     * box-contain refuses them again in the sandbox it builds.
     */
    bool sf_let_namespaces;
} box_sc_filter;

/* BOX_OK when the kernel can load a filter that returns an errno;
 * BOX_ENOTSUP with *err naming the feature (caller frees). */
box_err box_sc_avail(char **err) BOX_WARN_UNUSED;

/*
 * Loads f on the calling thread (no_new_privs must be set). The denylist
 * refuses with EPERM what no sandboxed or confined process may do
 * (ptrace, mount, bpf, keyctl, kexec, perf_event_open, io_uring, new user
 * namespaces, typing into the terminal...; box_seccomp.c lists them) and
 * gives clone3 ENOSYS so the C library falls back to clone, whose flags a
 * filter can read. BOX_ENOTSUP when the kernel refuses the filter,
 * BOX_EINVAL for a rule libseccomp refuses (*err says which).
 */
box_err box_sc_load(const box_sc_filter *f, char **err) BOX_WARN_UNUSED;

/*
 * A rule's sr_value that box_sc_install fills in: a filter compiled once
 * (in a zygote) whose rule names a value only its installer knows (a
 * forked worker's own pid). It lies above every pid (pid_max is at most
 * 2^22), so no real value is mistaken for it.
 */
#define BOX_SC_SLOT UINT64_C(0x7a5c3e11)

/* A filter compiled once, installed many times: installing is a copy and
 * one system call, where box_sc_load compiles first (most of a
 * millisecond). */
typedef struct box_sc_prog box_sc_prog;

/* Compiles f (as box_sc_load would load it) into *out (caller frees with
 * box_sc_prog_free). Needs memfd_create (libseccomp exports to a
 * descriptor): compile before confining the compiler. */
box_err box_sc_compile(const box_sc_filter *f, box_sc_prog **out,
                       char **err) BOX_WARN_UNUSED;

/* Loads p on the calling thread with every BOX_SC_SLOT comparison made
 * against slot (its upper 32 bits zero). Errors as box_sc_load's. */
box_err box_sc_install(const box_sc_prog *p, uint32_t slot,
                       char **err) BOX_WARN_UNUSED;

/* How many of p's instructions compare with the slot (a test checks the
 * compiler kept it as one constant). */
size_t box_sc_prog_slots(const box_sc_prog *p);

void box_sc_prog_free(box_sc_prog *p);

#endif
