/* SPDX-License-Identifier: Apache-2.0 */
/* The one place a trusted process gives up what it does not need:
 * environment, descriptors, no_new_privs, Landlock, seccomp. */
#ifndef BOX_CONFINE_H
#define BOX_CONFINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "box_err.h"
#include "box_landlock.h"
#include "box_profile.h"
#include "box_seccomp.h"


/* Caps on one spec; a profile that needs more is a design change. */
#define BOX_CONFINE_MAX_RULES 16
#define BOX_CONFINE_MAX_FDS 8
#define BOX_CONFINE_MAX_ENV 16 // a row's names and the sanitizer's

/* Access granted beneath one file or directory. */
typedef struct box_confine_rule {
    char *cr_path;      // absolute; owned by the spec
    uint64_t cr_access; // BOX_LL_* rights (cut to the kernel's ABI)
    bool cr_optional;   // skipped when it cannot be opened (system trees)
} box_confine_rule;

/*
 * What a process keeps. Build it with the helpers below (or a profile
 * builder, box_confine_profile.h) and free it with box_confine_spec_free.
 */
typedef struct box_confine_spec {
    box_profile cs_profile;
    const char *cs_env[BOX_CONFINE_MAX_ENV]; // names kept (static strings)
    size_t cs_nenv;
    int cs_fds[BOX_CONFINE_MAX_FDS]; // descriptors kept open (name 0-2 too)
    size_t cs_nfds;
    box_confine_rule cs_rules[BOX_CONFINE_MAX_RULES];
    size_t cs_nrules;
    /*
     * No Landlock domain at all. Only for a helper that must read other
     * processes' /proc/<pid>/exe: any domain keeps ptrace-class access,
     * which that needs, to the domain's own processes. Such a helper
     * takes an allowlist instead.
     */
    bool cs_no_landlock;
    bool cs_sc_let_namespaces; // box_sc_filter.sf_let_namespaces
    box_sc_mode cs_sc_mode;
    const box_sc_rule *cs_sc_rules; // borrowed (a static table)
    size_t cs_nsc_rules;
} box_confine_spec;

/* An empty spec: keeps nothing, denylist seccomp. */
void box_confine_spec_init(box_confine_spec *s, box_profile p);
void box_confine_spec_free(box_confine_spec *s);
/* Each copies what it needs; BOX_ETOOBIG past a cap, BOX_ENOMEM. */
box_err box_confine_keep_env(box_confine_spec *s,
                             const char *name) BOX_WARN_UNUSED;
box_err box_confine_keep_fd(box_confine_spec *s, int fd) BOX_WARN_UNUSED;
box_err box_confine_grant(box_confine_spec *s, const char *path,
                          uint64_t access, bool optional) BOX_WARN_UNUSED;

/* Keeps every environment name of a row of the process table: a process
 * that reads them while it runs, not only at its start (box-pdp reads
 * HOME before it confines itself, and keeps none of it). */
struct box_proctab_row;
box_err box_confine_keep_row_env(box_confine_spec *s,
                                 const struct box_proctab_row *row)
    BOX_WARN_UNUSED;

/* Step 1 of box_proc_confine alone: the environment keeps only the spec's
 * names, and the block the kernel gave the process (what
 * /proc/<pid>/environ shows) is rewritten, the rest zeroed. */
box_err box_confine_env(const box_confine_spec *s, char **err) BOX_WARN_UNUSED;

/* The profile's name in messages ("box-pdp", ...). */
const char *box_profile_name(box_profile p);

/*
 * Confines the calling process, once, early in main while it has one
 * thread, in this order:
 *   1. environment: only the names the spec keeps; the original block
 *      (what /proc/<pid>/environ shows) is overwritten, not just unlinked;
 *   2. descriptors: every one not named is closed (close_range);
 *   3. PR_SET_NO_NEW_PRIVS;
 *   4. Landlock: the spec's rules, nothing else (unless cs_no_landlock);
 *   5. seccomp: the shared denylist plus the spec's rules, or the spec's
 *      allowlist.
 * A kernel without Landlock or seccomp is BOX_ENOTSUP, and *err (caller
 * frees) names the feature; any failure leaves the process part-way
 * confined, so the caller exits. A sanitizer build (BOX_SANITIZE) also
 * grants what LeakSanitizer needs at exit (box_confine.c says what).
 */
box_err box_proc_confine(const box_confine_spec *spec,
                         char **err) BOX_WARN_UNUSED;

#endif
