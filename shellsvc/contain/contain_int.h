/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain internals shared by the run path and --probe. */
#ifndef CONTAIN_INT_H
#define CONTAIN_INT_H

#include <stdbool.h>
#include <stdint.h>

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
contain_status ct_fail(ct_err *e, contain_status st, bool missing,
                       const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Prints e as one `box-contain: ` line on stderr (single write). */
void ct_report(const ct_err *e);

/* Namespaces and the inside of the sandbox (contain_ns.c). */
contain_status ct_userns(ct_err *e);            // not root: own user ns
contain_status ct_unshare(int flag, ct_err *e); // one CLONE_NEW* flag
const char *ct_ns_name(int flag);               // "mount", "pid", ...
contain_status ct_mounts(ct_err *e); // private propagation + fresh /proc
contain_status ct_hide(const contain_spec *spec, ct_err *e); // --hide dirs
contain_status ct_hostname(ct_err *e); // inside a new uts namespace only
contain_status ct_lo_up(ct_err *e);
contain_status ct_nnp(ct_err *e);
contain_status ct_rlimits(ct_err *e);
contain_status ct_drop_caps(ct_err *e);

/* Landlock (contain_landlock.c). */
typedef struct ct_rule {
    int cr_fd; // O_PATH, owned by the plan
    uint64_t cr_access;
    const char *cr_path;
} ct_rule;

typedef struct ct_plan {
    ct_rule *cp_rules;
    size_t cp_nrules;
    int cp_abi;
} ct_plan;

/* The Landlock ABI version (>= 1), or CONTAIN_FAIL with e filled. */
contain_status ct_ll_abi(int *abi, ct_err *e);
/* Opens and checks every user path (symlinks, types, deny shapes). */
contain_status ct_ll_prepare(const contain_spec *spec, int abi, ct_plan *plan,
                             ct_err *e);
/* Adds the system rules, the plan's rules and the program's own file
 * (exec_fd, may be -1), then restricts the calling thread. Needs
 * no_new_privs already set. */
contain_status ct_ll_apply(const ct_plan *plan, int exec_fd, ct_err *e);
void ct_plan_free(ct_plan *plan);

/* seccomp (contain_seccomp.c). */
contain_status ct_seccomp_avail(ct_err *e);
contain_status ct_seccomp_load(ct_err *e);

#endif
