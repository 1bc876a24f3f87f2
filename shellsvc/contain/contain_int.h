/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain internals shared by the run path and --probe. */
#ifndef CONTAIN_INT_H
#define CONTAIN_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "box_err.h"
#include "contain.h"

/*
 * A failure on its way to stderr. ce_missing marks "the kernel lacks a
 * feature" (printed as `refusing to run: ...`); ce_feature names it for
 * --probe.
 */
typedef struct ct_err {
    bool ce_missing;
    char ce_msg[512];
} ct_err;

/* Fills e and returns st (so callers can `return ct_fail(...)`). */
box_status ct_fail(ct_err *e, box_status st, bool missing, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* A lib step's failure (box_landlock.h, box_seccomp.h) into e: msg is
 * taken (freed here); BOX_ENOTSUP is a missing kernel feature. */
box_status ct_fail_lib(ct_err *e, box_err rv, char *msg);
/* Prints e as one `box-contain: ` line on stderr (single write). */
void ct_report(const ct_err *e);

/* Namespaces and the inside of the sandbox (contain_ns.c). */
box_status ct_userns(ct_err *e);            // not root: own user ns
box_status ct_unshare(int flag, ct_err *e); // one CLONE_NEW* flag
const char *ct_ns_name(int flag);           // "mount", "pid", ...
box_status ct_mounts(ct_err *e);            // private propagation + fresh /proc
box_status ct_hostname(ct_err *e);          // inside a new uts namespace only
box_status ct_lo_up(ct_err *e);
box_status ct_nnp(ct_err *e);
box_status ct_rlimits(ct_err *e);
box_status ct_drop_caps(ct_err *e);

/* Landlock (contain_landlock.c). */
typedef struct ct_rule {
    int cr_fd; // O_PATH, owned by the plan
    uint64_t cr_access;
    const char *cr_path;  // borrowed; what messages name
    bool cr_implicit;     // the program or its loader, not a user grant
    contain_list cr_list; // the list a user grant came from
} ct_rule;

/* A --deny to cover in the mount namespace, as the check saw it. */
typedef struct ct_mask {
    const char *cm_path; // borrowed from argv
    dev_t cm_dev;
    ino_t cm_ino;
    bool cm_dir;
} ct_mask;

/* A path bound over itself with its own mount flags (contain_bind.c). */
typedef struct ct_bind {
    char *cb_path; // canonical; owned by the plan
    dev_t cb_dev;
    ino_t cb_ino;
    unsigned cb_kinds; // what planned it (contain_bind.c)
    bool cb_optional;  // skipped, not refused, when not there as planned
    bool cb_exec;      // else MS_NOEXEC
    bool cb_listed;    // exec because --exec (or the program) names it
    bool cb_writable;  // a write grant reaches it (with nothing deeper)
    bool cb_rdonly;    // MS_RDONLY: a read-type carve in a write grant
} ct_bind;

/* A shell file --shells covers with the shim (contain_shells.c). */
typedef struct ct_cover {
    char *cv_path; // canonical; owned by the plan
    dev_t cv_dev;
    ino_t cv_ino;
} ct_cover;

typedef struct ct_plan {
    ct_rule *cp_rules;
    size_t cp_nrules;
    ct_mask *cp_masks;
    size_t cp_nmasks;
    ct_bind *cp_binds; // shallowest path first
    size_t cp_nbinds, cp_capbinds;
    int cp_abi;
    // --shells: the shim's path (borrowed from argv) and identity, and its
    // O_PATH descriptor (owned by its implicit rule); cp_shim NULL: none.
    const char *cp_shim;
    int cp_shim_fd;
    dev_t cp_shim_dev;
    ino_t cp_shim_ino;
    ct_cover *cp_covers; // the shell files the shim goes over
    size_t cp_ncovers;
} ct_plan;

/* The Landlock ABI version (>= 1), or BOX_STATUS_FAULT with e filled. */
box_status ct_ll_abi(int *abi, ct_err *e);
/*
 * Opens and checks every user path (symlinks, types, deny shapes), and
 * plans the implicit rules: execute on the program (exec_fd, O_PATH is
 * enough) and on the ELF loader it, its #! interpreter and each --exec
 * file name. Existing denies become the plan's masks.
 */
box_status ct_ll_prepare(const contain_spec *spec, int abi, int exec_fd,
                         ct_plan *plan, ct_err *e);
/* Adds the system rules and the plan's rules, then restricts the calling
 * thread. Needs no_new_privs already set. */
box_status ct_ll_apply(const ct_plan *plan, ct_err *e);
void ct_plan_free(ct_plan *plan);

/*
 * Mount binds (contain_bind.c). ct_bind_plan, outside the namespaces
 * after ct_ll_prepare: the system's program directories, every grant of
 * the plan and what may run (--exec, the program on exec_fd), each with
 * its flags (noexec but what may run; read-only where a read-type entry
 * lies in a write grant). ct_binds, in init after the fresh /proc and
 * before the masks: binds them, checked against the plan's identities.
 */
box_status ct_bind_plan(ct_plan *plan, int exec_fd, ct_err *e);
box_status ct_binds(const ct_plan *plan, ct_err *e);
void ct_bind_free(ct_plan *plan);

/*
 * --shells (contain_shells.c). ct_shells_plan, outside the namespaces
 * after ct_ll_prepare (which gave the shim its rule): each existing
 * shell path's canonical file once, but one a --deny masks. ct_shells,
 * in init after the masks: the shim bound over each, both ends checked
 * against the plan's identities. ct_shells_free: the plan's covers.
 */
box_status ct_shells_plan(ct_plan *plan, ct_err *e);
box_status ct_shells(const ct_plan *plan, ct_err *e);
void ct_shells_free(ct_plan *plan);

/*
 * A #! program whose interpreter --shells covers: the kernel would look
 * the interpreter up by its name inside the sandbox and find the shim, so
 * the interpreter is opened here, before the covers, and run by its
 * descriptor with the argv the kernel would give it (ct_shells_interp).
 */
typedef struct ct_script {
    int sc_fd;           // O_PATH of the real interpreter, or -1
    char sc_interp[256]; // as the #! line spells it (its argv[0])
    char sc_arg[256];    // the #! line's one optional argument
    bool sc_has_arg;
} ct_script;
#define CT_SCRIPT_NONE ((ct_script){.sc_fd = -1})
box_status ct_shells_interp(const ct_plan *plan, int prog_fd, ct_script *sc,
                            ct_err *e);

/* The ELF interpreter (contain_elf.c). */
typedef enum ct_interp {
    CT_INTERP_NONE,   // not ELF, or an ELF with no PT_INTERP (static)
    CT_INTERP_FOUND,  // buf holds the PT_INTERP path
    CT_INTERP_SCRIPT, // a #! script: buf holds its interpreter's path
    CT_INTERP_BAD,    // unreadable or malformed
} ct_interp;
/* What the file open for reading on fd names to be run through, read with
 * pread (the offset is untouched); buf gets a NUL-terminated path. */
ct_interp ct_elf_interp(int fd, char *buf, size_t n);

/* Mount masks (contain_mask.c), in the sandbox's mount namespace after
 * the fresh /proc: every planned --deny mask, then every --hide cover
 * with its --show paths bound back. */
box_status ct_masks(const contain_spec *spec, const ct_plan *plan, ct_err *e);

/*
 * --egress (contain_egress.c), each step in init at its place in the
 * sequence; with no --egress each does nothing. ct_egress_open, before
 * the mounts change: the socket's directory. ct_egress_listen, after lo
 * is up: 127.0.0.1:PORT bound and listening, so the program's first
 * connect cannot come too early. ct_egress_start, after the whole
 * sandbox and before the program is forked: forks the relay
 * (contain_relay.c), which takes both fds; init keeps neither.
 */
typedef struct ct_egress {
    int eg_dir;    // O_PATH of the socket's directory, or -1
    int eg_listen; // the listening socket, or -1
} ct_egress;
#define CT_EGRESS_NONE ((ct_egress){.eg_dir = -1, .eg_listen = -1})
box_status ct_egress_open(const contain_spec *spec, ct_egress *eg, ct_err *e);
box_status ct_egress_listen(const contain_spec *spec, ct_egress *eg, ct_err *e);
box_status ct_egress_start(const contain_spec *spec, ct_egress *eg, ct_err *e);

/* seccomp (contain_seccomp.c). */
box_status ct_seccomp_avail(ct_err *e);
box_status ct_seccomp_load(ct_err *e);

#endif
