/* SPDX-License-Identifier: Apache-2.0 */
/* The shell's kernel: every file effect of a call is admitted here. */
#ifndef SH_KERNEL_H
#define SH_KERNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "box.pb-c.h"
#include "box_err.h"
#include "box_verdict.h"

/*
 * Every operation runs the same steps (box-spec §3.6–§3.8): resolve the
 * path (host binds walked with O_PATH|O_NOFOLLOW, links read explicitly,
 * ≤ 40 hops; everything else in the call's in-memory file system), ask the
 * decider, apply the reach floor to host-backed names, re-check the
 * resolved identity, and act on that identity. Commands never touch the
 * OS directly.
 */

typedef struct sh_kernel sh_kernel;
typedef struct sh_kernel_file sh_kernel_file;

/* Test hook: called after every permit and the reach floor, right before
 * the identity re-check. */
typedef void (*sh_kernel_hook_fn)(void *arg, const char *canonical_path);

typedef struct sh_kernel_opts {
    /* Host binds: absolute canonical directories, in order; a root nested
     * inside an earlier one is skipped. */
    const char *const *ko_binds;
    size_t ko_nbinds;
    const char *ko_operator_home; // for `~` reporting; may be NULL
    /* Asks policy (box_verdict.h); the kernel frees a reason it sets, and
     * may call it from several threads at once. A FAULT makes the
     * operation's result a fault: the command must end 125. */
    box_decide_fn ko_decide;
    void *ko_decide_arg;
    /* Records how each effect ended whose permit came with a wanted
     * ticket (dogwood-spec §5.6): once per permitted question, when the
     * operation is over: an open that gave a file "descriptor_issued",
     * any other success "completed", a failure after the permit (the
     * name is missing, another leg was denied, the reach floor refused,
     * the OS said no) an ::error. May be called from several threads at
     * once. NULL: nothing is recorded. */
    box_record_fn ko_record;
    void *ko_record_arg;
    /* Authority sources (box.toml, the policy file): identified by
     * (dev, ino) at creation; missing ones are ignored. */
    const char *const *ko_authority;
    size_t ko_nauthority;
    /* Reserved roots (the box directory): nothing inside is reachable. */
    const char *const *ko_reserved;
    size_t ko_nreserved;
    sh_kernel_hook_fn ko_hook; // tests only; NULL otherwise
    /* Test hook: called after the re-check, right before a one-name
     * operation acts (what it changes reaches the act itself). */
    sh_kernel_hook_fn ko_act_hook; // tests only; NULL otherwise
    void *ko_hook_arg;             // both hooks' argument
} sh_kernel_opts;

/* The caller owns *out (sh_kernel_free). BOX_ECONFIG if a bind is not an
 * absolute canonical directory. */
box_err sh_kernel_new(const sh_kernel_opts *o, sh_kernel **out) BOX_WARN_UNUSED;
void sh_kernel_free(sh_kernel *k);
/* Sets how k decides and records (as ko_decide, ko_record): a kernel is
 * built before its call exists, by a worker waiting for one, and wired to
 * the call when it comes. Before any operation, from one thread. */
void sh_kernel_set_io(sh_kernel *k, box_decide_fn decide, void *decide_arg,
                      box_record_fn record, void *record_arg);
/* True while every bind's path still names the directory k opened: a
 * kernel built ahead of its call is used only then (a directory moved or
 * made anew meanwhile means building it again). */
bool sh_kernel_binds_current(const sh_kernel *k);

/* How one operation ended: callers switch on it. A refusal is exactly one
 * of these, never a combination. */
typedef enum sh_kernel_outcome {
    SH_KR_OK = 0,
    SH_KR_OS_ERROR, // failed with the errno kr_errno (the OS's, or one of
                    // the kernel's own checks: a broken walk, a changed
                    // identity, a special file)
    SH_KR_DENIED,   // policy denied the refused leg, kr_path; kr_message is
                    // the denial. A probe answers "absent" (ENOENT, no
                    // message) instead.
    SH_KR_FAULT,    // no decision could be made: the command must end
                    // BOX_STATUS_FAULT (125); kr_message says why
    /* The reach floor refused kr_path after a permit: the permit's outcome
     * is recorded as failed, cause=enforcement, rule SH_KERNEL_FLOOR_RULE. */
    SH_KR_FLOOR,
} sh_kernel_outcome;

#define SH_KERNEL_FLOOR_RULE "enforcement:reach-floor"

/* The outcome of one operation. Clear with sh_kernel_result_clear. */
typedef struct sh_kernel_result {
    sh_kernel_outcome kr_outcome;
    /* The value the operation returned: 0 when OK. Its meaning is its own
     * only for SH_KR_OS_ERROR; a denial, fault or floor refusal returns
     * EACCES (a denied probe ENOENT) for callers that only pass it on. */
    int kr_errno;
    char *kr_message; // owned; the `<err>` text; NULL when OK
    char *kr_path;    // owned; DENIED, FLOOR: the refused leg's reported path
    /* Permits given for this operation (legs of a rename count one each):
     * a failure with kr_permits > 0 is recorded as the permit's ::error
     * outcome; success as descriptor_issued (open) or completed. */
    unsigned kr_permits;
} sh_kernel_result;

void sh_kernel_result_clear(sh_kernel_result *r);
/* True when kr_message names its own path (a policy denial, a reach-floor
 * refusal, a fault's reason): it is printed without a `<target>: `
 * prefix. */
bool sh_kernel_result_self_contained(const sh_kernel_result *r);
/* "<target>: <err>" or, for a self-contained message, "<err>". Caller
 * frees; NULL on ENOMEM. */
char *sh_kernel_result_text(const sh_kernel_result *r, const char *target);

/* The reported path of a canonical path: `~` / `~/rel` under the operator
 * home, else itself without a trailing slash. Caller frees. */
char *sh_kernel_report_path(const sh_kernel *k, const char *canonical);

/* Opening. flags: O_RDONLY, O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND,
 * O_EXCL. Read access asks fs:read read_content, write access fs:write
 * write_content (O_RDWR asks both). cwd is absolute; path absolute or
 * relative to it. The caller owns *out. On the host only regular files
 * and directories open, and no open waits: a permitted FIFO, socket or
 * device answers ENXIO with "cannot read a FIFO in this box" (or "cannot
 * write to …", "cannot read or write …"; "a socket", "a character
 * device", "a block device"). */
int sh_kernel_open(sh_kernel *k, const char *cwd, const char *path, int flags,
                   mode_t mode, sh_kernel_file **out, sh_kernel_result *r);
/* Return bytes moved or -errno (EFBIG past the VFS file cap). */
ssize_t sh_kernel_read(sh_kernel_file *f, void *buf, size_t n);
ssize_t sh_kernel_write(sh_kernel_file *f, const void *buf, size_t n);
void sh_kernel_close(sh_kernel_file *f);
/* True when the open file is a regular file (not a directory or one of
 * the in-memory devices): what fstat would say, with no decision (the
 * open was the decision). */
bool sh_kernel_file_regular(const sh_kernel_file *f);
/* The host descriptor behind an open file, borrowed (the file keeps it),
 * or -1 for a file of the in-memory tree: for a reader that must seek
 * and pread, as libmagic does on ELF headers. The open was the decision;
 * the holder reads through it and never closes it. */
int sh_kernel_file_fd(const sh_kernel_file *f);

typedef struct sh_kernel_stat {
    uint64_t ks_dev, ks_ino;
    mode_t ks_mode;
    uint64_t ks_size;
    int64_t ks_mtime;
    long ks_mtime_ns; // the nanoseconds of ks_mtime (0 in memory)
    int64_t ks_atime, ks_ctime;
    long ks_atime_ns, ks_ctime_ns;
    uint64_t ks_nlink;
    uint32_t ks_uid, ks_gid; // in memory: the shell's own
    uint64_t ks_blocks;      // 512-byte blocks allocated (ls's totals)
    uint64_t ks_rdev;        // a device's number
    uint32_t ks_blksize;     // the preferred I/O size (stat's %o)
    bool ks_host;
} sh_kernel_stat;

/* The file system a name lives on, as df shows it: a host bind (its
 * root, and statfs's figures) or the in-memory tree (mount "/", the
 * bytes it holds; its size is unknown: kfs_blocks 0). */
typedef struct sh_kernel_fs {
    bool kfs_host;
    const char *kfs_mount; // the kernel's own string
    uint64_t kfs_bsize;    // bytes per block of the counts below
    uint64_t kfs_blocks, kfs_bfree, kfs_bavail;
    uint64_t kfs_used_bytes;
    uint64_t kfs_files, kfs_ffree;
} sh_kernel_fs;

/* Decided as a stat (fs:read read_metadata, a probe: a denial answers
 * ENOENT). */
int sh_kernel_fs_of(sh_kernel *k, const char *cwd, const char *path,
                    sh_kernel_fs *out, sh_kernel_result *r);
/* The file systems in order: the in-memory tree ("/"), then each bind
 * root; NULL past the last. */
const char *sh_kernel_fs_mount(const sh_kernel *k, size_t i);

/* Probes: a denial answers "absent" (ENOENT, outcome SH_KR_DENIED, and no
 * message), never an error text. A fault is still a fault. */
int sh_kernel_stat_path(sh_kernel *k, const char *cwd, const char *path,
                        sh_kernel_stat *st, sh_kernel_result *r);
int sh_kernel_lstat(sh_kernel *k, const char *cwd, const char *path,
                    sh_kernel_stat *st, sh_kernel_result *r);
/* Is-executable probe (fs:read exec): 0 if a regular file with an x bit;
 * else ENOENT/EACCES. Denied answers ENOENT (false). */
int sh_kernel_probe_exec(sh_kernel *k, const char *cwd, const char *path,
                         sh_kernel_result *r);

/* Directory listing (fs:read enumerate). Names exclude "." and "..";
 * the caller frees each and the array. */
int sh_kernel_list(sh_kernel *k, const char *cwd, const char *path,
                   char ***names, size_t *n, sh_kernel_result *r);
/* The same, with each name's inode number in *inos (the caller frees
 * it), for an order by inode as GNU cp takes. */
int sh_kernel_list_inodes(sh_kernel *k, const char *cwd, const char *path,
                          char ***names, uint64_t **inos, size_t *n,
                          sh_kernel_result *r);
void sh_kernel_names_free(char **names, size_t n);

/* cd check (fs:read change_dir): on success *canonical (caller frees) is
 * the directory's canonical path, the new cwd. */
int sh_kernel_chdir(sh_kernel *k, const char *cwd, const char *path,
                    char **canonical, sh_kernel_result *r);

int sh_kernel_readlink(sh_kernel *k, const char *cwd, const char *path,
                       char **target, sh_kernel_result *r);
int sh_kernel_mkdir(sh_kernel *k, const char *cwd, const char *path,
                    mode_t mode, sh_kernel_result *r);
/*
 * Sets a file's access and modification times as utimensat(2) reads
 * times[2] (UTIME_NOW, UTIME_OMIT): `touch`, `cp -p`. One decision, what
 * box-spec §3.6 gives touch: fs:write write_content. SH_KT_CREATE makes
 * a missing file first (empty, with mode); SH_KT_NOFOLLOW acts on a
 * final link itself. 0 or an errno value with r filled.
 */
enum { SH_KT_CREATE = 1, SH_KT_NOFOLLOW = 2 };
int sh_kernel_set_times(sh_kernel *k, const char *cwd, const char *path,
                        const struct timespec times[2], unsigned flags,
                        mode_t mode, sh_kernel_result *r);
int sh_kernel_chmod(sh_kernel *k, const char *cwd, const char *path,
                    mode_t mode, sh_kernel_result *r);
int sh_kernel_unlink(sh_kernel *k, const char *cwd, const char *path,
                     sh_kernel_result *r);
int sh_kernel_rmdir(sh_kernel *k, const char *cwd, const char *path,
                    sh_kernel_result *r);
int sh_kernel_rename(sh_kernel *k, const char *cwd, const char *from,
                     const char *to, sh_kernel_result *r);
/* ln -s target link. */
int sh_kernel_symlink(sh_kernel *k, const char *cwd, const char *target,
                      const char *link, sh_kernel_result *r);

/* A counter that bumps after every create, rename, delete and symlink
 * (box-spec §3.8); callers holding resolved names compare it. */
uint64_t sh_kernel_generation(sh_kernel *k);

/*
 * For a reader that keeps bytes of a host file it read ahead (sh_io):
 * a number that stays the same while nothing of k can have changed a
 * file's content (a write, an open for writing, a create, rename or
 * delete) and no host program the call started runs (those write files
 * themselves: sh_kernel_outside_begin / _end around each, from any
 * thread). 0 when nothing can be promised: a host program runs, or f is
 * no host file. Writers outside the call are not seen: the reader bounds
 * how long it trusts what it kept.
 */
uint64_t sh_kernel_changes(const sh_kernel_file *f);
void sh_kernel_outside_begin(sh_kernel *k);
void sh_kernel_outside_end(sh_kernel *k);

/* Construction-time population of the in-memory file system (no
 * decision): a symlink (e.g. /bin/cat -> lash) or a file with contents.
 * Parents must exist. */
int sh_kernel_seed_symlink(sh_kernel *k, const char *target, const char *link);
int sh_kernel_seed_file(sh_kernel *k, const char *path, mode_t mode,
                        const void *data, size_t n);

/* PATH-walk candidate in the VFS (box-spec §3.6 `Locate`): no decision and
 * nothing recorded. 0 if path names (after links) an in-memory regular
 * file; ENOENT otherwise, and always ENOENT for a host-backed name (those
 * take the exec probe). *canonical (caller frees) is the file found. */
int sh_kernel_locate(sh_kernel *k, const char *path, char **canonical);

/* The canonical path a spelling resolves to (no decision; for callers
 * that need the name, e.g. glob display). Caller frees *out. */
int sh_kernel_resolve_path(sh_kernel *k, const char *cwd, const char *path,
                           bool follow, char **out, bool *host);

#endif
