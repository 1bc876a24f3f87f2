/* SPDX-License-Identifier: Apache-2.0 */
/* Landlock, the parts every confined process shares: ABI probe, ruleset,
 * path-beneath rules, restrict self. */
#ifndef BOX_LANDLOCK_H
#define BOX_LANDLOCK_H

#include <stdbool.h>
#include <stdint.h>

#include "box_err.h"

/*
 * Filesystem rights. Debian 12's header stops at ABI 2, so the later bits
 * are spelled here; a ruleset handles only the rights its kernel's ABI
 * knows (box_ll_fs_mask), and a rule's rights are cut to those.
 */
#define BOX_LL_EXECUTE (1ULL << 0)
#define BOX_LL_WRITE_FILE (1ULL << 1)
#define BOX_LL_READ_FILE (1ULL << 2)
#define BOX_LL_READ_DIR (1ULL << 3)
#define BOX_LL_REMOVE_DIR (1ULL << 4)
#define BOX_LL_REMOVE_FILE (1ULL << 5)
#define BOX_LL_MAKE_CHAR (1ULL << 6)
#define BOX_LL_MAKE_DIR (1ULL << 7)
#define BOX_LL_MAKE_REG (1ULL << 8)
#define BOX_LL_MAKE_SOCK (1ULL << 9)
#define BOX_LL_MAKE_FIFO (1ULL << 10)
#define BOX_LL_MAKE_BLOCK (1ULL << 11)
#define BOX_LL_MAKE_SYM (1ULL << 12)
#define BOX_LL_REFER (1ULL << 13)     // ABI 2
#define BOX_LL_TRUNCATE (1ULL << 14)  // ABI 3
#define BOX_LL_IOCTL_DEV (1ULL << 15) // ABI 5

// Rights that mean something on a non-directory.
#define BOX_LL_FILE_RIGHTS                                                     \
    (BOX_LL_EXECUTE | BOX_LL_WRITE_FILE | BOX_LL_READ_FILE | BOX_LL_TRUNCATE | \
     BOX_LL_IOCTL_DEV)

/*
 * The Landlock ABI version (>= 1). A kernel without Landlock, or with it
 * disabled, is BOX_ENOTSUP with *err naming the feature (caller frees);
 * nothing else fails.
 */
box_err box_ll_abi(int *abi, char **err) BOX_WARN_UNUSED;

/* Every filesystem right the ABI knows: what a ruleset handles. */
uint64_t box_ll_fs_mask(int abi);

/*
 * A ruleset that handles every right of abi (and, from ABI 6, scopes
 * abstract Unix sockets and signals to the domain): everything is refused
 * until a rule grants it. On BOX_OK *fd is the caller's; BOX_ENOTSUP when
 * the kernel refuses (*err says so).
 */
box_err box_ll_ruleset(int abi, int *fd, char **err) BOX_WARN_UNUSED;

/*
 * Grants access beneath the file or directory open on fd (O_PATH is
 * enough; fd stays the caller's). On a non-directory only
 * BOX_LL_FILE_RIGHTS mean anything, so the rest is dropped; nothing left
 * adds no rule. what names the rule in *err.
 */
box_err box_ll_add_fd(int ruleset, int fd, uint64_t access, const char *what,
                      char **err) BOX_WARN_UNUSED;

/*
 * The same for a path (opened O_PATH, following links: the rule lands on
 * what it names). A path that cannot be opened is skipped when optional
 * (not on this system); otherwise BOX_ENOENT when it is not there, else
 * BOX_EIO.
 */
box_err box_ll_add_path(int ruleset, const char *path, uint64_t access,
                        bool optional, char **err) BOX_WARN_UNUSED;

/* Restricts the calling thread (and what it starts) to the ruleset; needs
 * no_new_privs already set. The ruleset stays the caller's to close. */
box_err box_ll_restrict(int ruleset, char **err) BOX_WARN_UNUSED;

#endif
