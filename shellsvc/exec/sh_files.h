/* SPDX-License-Identifier: Apache-2.0 */
/* The file interface redirections go through (the kernel plugs in here). */
#ifndef SH_FILES_H
#define SH_FILES_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Every redirection to a file (`<f`, `>f`, `>>f`, `<>f`, `>|f`) asks this
 * vtable; the executor never opens a path itself. The kernel layer
 * (shellsvc/kernel) will provide the real one: admission of fs:* and the
 * VFS / binds. Until then sh_files_devnull() serves only "/dev/null" and
 * answers every other path with "file operations are not available yet".
 *
 * Paths are as expanded (possibly relative to cwd). On failure an open
 * sets *err to a box_alloc'd message ("<reason>", printed as
 * "strands-shell: <path>: <reason>") and returns NULL. Handles may be
 * used from several threads one at a time.
 */
typedef struct sh_file sh_file;

/* Open modes (box-spec §3.2 redirect kinds). */
typedef enum sh_open_mode {
    SH_OPEN_READ,   // <
    SH_OPEN_TRUNC,  // > and >| (no noclobber option exists here)
    SH_OPEN_APPEND, // >>
    SH_OPEN_RDWR,   // <>
} sh_open_mode;

typedef struct sh_files {
    sh_file *(*f_open)(void *arg, const char *cwd, const char *path,
                       sh_open_mode mode, char **err);
    /* Bytes read (0 at end) or -1. */
    ssize_t (*f_read)(void *arg, sh_file *f, void *buf, size_t n);
    /* Bytes written (all of n) or -1. */
    ssize_t (*f_write)(void *arg, sh_file *f, const void *p, size_t n);
    void (*f_close)(void *arg, sh_file *f);
    void *f_arg;
} sh_files;

/* The stand-in: only /dev/null (reads end at once, writes vanish). */
const sh_files *sh_files_devnull(void);

#endif
