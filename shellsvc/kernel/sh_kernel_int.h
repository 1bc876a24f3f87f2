/* SPDX-License-Identifier: Apache-2.0 */
/* Private to shellsvc/kernel: the kernel struct and path resolution. */
#ifndef SH_KERNEL_INT_H
#define SH_KERNEL_INT_H

#include <stdatomic.h>
#include <stdbool.h>
#include <sys/types.h>

#include "sh_kernel.h"
#include "sh_vfs.h"

#define SH_KERNEL_MAX_HOPS 40
#define SH_KERNEL_MAX_PATH 4096

typedef struct sh_ident {
    dev_t id_dev;
    ino_t id_ino;
} sh_ident;

typedef struct sh_bind {
    char *bd_root; // canonical, no trailing slash
    size_t bd_len;
    int bd_fd; // O_PATH|O_DIRECTORY
} sh_bind;

struct sh_kernel {
    sh_bind *k_binds;
    size_t k_nbinds;
    char *k_home; // operator home or NULL
    box_decide_fn k_decide;
    void *k_decide_arg;
    box_record_fn k_record;
    void *k_record_arg;
    sh_ident *k_auth; // authority sources
    size_t k_nauth;
    sh_ident *k_auth_anc; // their ancestor directories
    size_t k_nauth_anc;
    char **k_reserved; // canonical reserved roots
    sh_ident *k_reserved_id;
    size_t k_nreserved;
    sh_kernel_hook_fn k_hook;
    sh_kernel_hook_fn k_act_hook;
    void *k_hook_arg;
    sh_vfs *k_vfs;
    _Atomic uint64_t k_generation; // bumps after create/rename/delete/link
    /* Bumps after anything of k that may change a file's content (a
     * write, an open for writing, a create, rename or delete) and when a
     * host program starts or ends; k_outside counts the host programs
     * running (sh_kernel_changes). */
    _Atomic uint64_t k_changes;
    atomic_uint k_outside;
};

/* One resolved name. Host: rs_fd is an O_PATH fd of the target (-1 when
 * missing), rs_parent_fd one of its parent (-1 when the target is a bind
 * root or the parent is missing too). VFS: rs_vino is the identity
 * (SH_VFS_MISSING when absent). */
typedef struct sh_res {
    char *rs_canon;
    bool rs_host;
    int rs_bind;
    int rs_fd;
    int rs_parent_fd;
    char *rs_leaf;
    bool rs_exists;
    bool rs_parent_exists;
    sh_ident rs_id;
    sh_ident rs_pid;
    mode_t rs_mode;
    uint64_t rs_vino;
} sh_res;

/* Resolves path (relative to cwd). Returns 0, or an errno with *why a
 * static text: ELOOP (40 hops), EACCES ("symlink target escapes the bind
 * mount"), ENOENT/ENOTDIR for a broken walk, ENAMETOOLONG, ENOMEM. */
int sh_res_resolve(sh_kernel *k, const char *cwd, const char *path, bool follow,
                   sh_res *rs, const char **why);
void sh_res_clear(sh_res *rs);
/* The bind holding canonical path p, or -1. */
int sh_res_bind_of(const sh_kernel *k, const char *p);
/* True if p is root or below it (both canonical). */
bool sh_res_under(const char *p, const char *root, size_t rootlen);
/* Re-checks a host resolution right before acting: 0 or ESTALE. */
int sh_res_recheck(sh_kernel *k, const sh_res *rs);
/* An O_PATH fd of canonical directory p under bind b (walked with
 * O_NOFOLLOW); -1 with errno on failure. */
int sh_res_open_dir(const sh_kernel *k, int b, const char *p);

#endif
