/* SPDX-License-Identifier: Apache-2.0 */
/* The in-memory file system of one call: every path outside the binds. */
#ifndef SH_VFS_H
#define SH_VFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define SH_VFS_MAX_FILE (10u * 1024u * 1024u) // box-spec §3.1
#define SH_VFS_MAX_INODES 10000u              // box-spec §3.1

/* Errors are errno values (0 = success). Two are the VFS's own words:
 * EFBIG past SH_VFS_MAX_FILE and ENOSPC past SH_VFS_MAX_INODES, with the
 * texts of sh_vfs_strerror. ESTALE means the expected identity did not
 * match (the kernel reports it as an identity change). */
const char *sh_vfs_strerror(int err);

typedef struct sh_vfs sh_vfs;
typedef struct sh_vfs_file sh_vfs_file;

typedef struct sh_vfs_stat {
    uint64_t vs_ino; // never reused within one sh_vfs
    mode_t vs_mode;  // S_IFREG/S_IFDIR/S_IFLNK/S_IFCHR | permission bits
    uint64_t vs_size;
    struct timespec vs_atim, vs_mtim, vs_ctim;
    uint64_t vs_rdev; // the device number /dev/null … would have
} sh_vfs_stat;

/* A fresh tree: /home /home/lash /tmp(1777) /usr /usr/bin /bin /dev and
 * /dev/{null,zero,urandom,random}. The caller owns *out. */
int sh_vfs_new(sh_vfs **out);
void sh_vfs_free(sh_vfs *v);

/* Creates the directories of path and marks them busy (a bind mount point
 * and its ancestors may not be removed or renamed). */
int sh_vfs_mount_point(sh_vfs *v, const char *path);

/* Every path below is absolute and canonical: no "." or "..", no symlink
 * in an intermediate component (one there answers ENOTDIR). A nonzero
 * expect_ino must equal the identity of the named node (ESTALE if not);
 * SH_VFS_MISSING requires that nothing is there. */
#define SH_VFS_MISSING UINT64_MAX

int sh_vfs_lstat(sh_vfs *v, const char *path, sh_vfs_stat *st);
/* *target is owned by the caller (box_free). EINVAL if not a link. */
int sh_vfs_readlink(sh_vfs *v, const char *path, char **target);
/* Names in directory order, newest first (caller frees each and the
 * array); with inos, each one's inode number too (caller frees). */
int sh_vfs_list(sh_vfs *v, const char *path, uint64_t expect_ino, char ***names,
                uint64_t **inos, size_t *n);
int sh_vfs_mkdir(sh_vfs *v, const char *path, mode_t mode);
int sh_vfs_symlink(sh_vfs *v, const char *target, const char *path);
int sh_vfs_unlink(sh_vfs *v, const char *path, uint64_t expect_ino);
int sh_vfs_rmdir(sh_vfs *v, const char *path, uint64_t expect_ino);
int sh_vfs_chmod(sh_vfs *v, const char *path, uint64_t expect_ino, mode_t mode);
/* Renames from onto to (POSIX rules: a file replaces a file, a directory
 * an empty directory; not into itself). */
int sh_vfs_rename(sh_vfs *v, const char *from, uint64_t from_ino,
                  const char *to, uint64_t to_ino);

/* Opens with O_RDONLY/O_WRONLY/O_RDWR | O_CREAT/O_TRUNC/O_APPEND/O_EXCL.
 * Does not follow a final link (ELOOP). The caller owns *out. */
int sh_vfs_open(sh_vfs *v, const char *path, int flags, mode_t mode,
                uint64_t expect_ino, sh_vfs_file **out);
/* Return bytes moved, or -errno. */
ssize_t sh_vfs_read(sh_vfs_file *f, void *buf, size_t n);
ssize_t sh_vfs_write(sh_vfs_file *f, const void *buf, size_t n);
void sh_vfs_close(sh_vfs_file *f);
/* Sets the open file's times as sh_vfs_set_times does (touch). */
void sh_vfs_touch(sh_vfs_file *f, const struct timespec times[2]);
/* Sets the named node's times as utimensat(2) reads times[2] (access,
 * modification; UTIME_NOW, UTIME_OMIT); the change time becomes now. */
int sh_vfs_set_times(sh_vfs *v, const char *path, uint64_t expect_ino,
                     const struct timespec times[2]);
/* The open file's type bits (S_IFREG, S_IFCHR for /dev/null …). */
mode_t sh_vfs_file_type(const sh_vfs_file *f);

/* Live inodes (for tests). */
size_t sh_vfs_inodes(sh_vfs *v);
/* The bytes the tree's files and links hold, and its live inodes (df). */
void sh_vfs_usage(sh_vfs *v, uint64_t *bytes, uint64_t *inodes);

#endif
