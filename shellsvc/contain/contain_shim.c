/* SPDX-License-Identifier: Apache-2.0 */
/* box-shell-shim: bound over /bin/sh, /bin/bash, ... in the agent's
 * sandbox (box-contain --shells); runs the box's alias of that shell. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_shells.h"
#include "box_status.h"

/*
 * Why a shim and not the alias itself: the alias takes its route from its
 * own file name and finds the broker's socket beside its own directory
 * (box-spec §2: `<dir of alias>/../run/box.sock`, from /proc/self/exe),
 * and a bind mount names the file at the place it covers (/usr/bin/dash
 * would be an alias named "dash" looking for /usr/run/box.sock). So this
 * program, which knows nothing of the box, is what covers the shells:
 * it reads where the aliases are from its own trailer (box_shells.h,
 * written by box run when it installs the aliases) and execs the alias
 * of the shell it was started as, with the argv it was given, so the
 * alias sees exactly what `sh -c …` on PATH gives it. It never decides
 * anything, opens no descriptor it keeps, and needs no library: a static
 * program, unsanitized (it runs under the agent's seccomp filter).
 */

extern char **environ;

/* The alias each shell name runs (dash is the system's sh). */
static const struct {
    const char *sn_shell;
    const char *sn_alias;
} shim_names[] = {
    {"sh", "sh"},
    {"bash", "bash"},
    {"zsh", "zsh"},
    {"dash", "sh"},
};

static int shim_fail(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static int
shim_fail(const char *fmt, ...)
{
    char msg[PATH_MAX + 256];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, BOX_SHIM_NAME ": %s\n", msg);
    return BOX_STATUS_FAULT;
}

/* The alias for a path's last component (a login shell's leading '-'
 * dropped), or NULL when it names no shell. */
static const char *
shim_alias(const char *path)
{
    const char *base = strrchr(path, '/');

    base = base != NULL ? base + 1 : path;
    if (base[0] == '-')
        base++;
    for (size_t i = 0; i < sizeof shim_names / sizeof *shim_names; i++)
        if (strcmp(base, shim_names[i].sn_shell) == 0)
            return shim_names[i].sn_alias;
    return NULL;
}

/* The alias directory from the trailer of this very image; 0 or errno
 * (EINVAL: no trailer, as in the build directory's own copy). */
static int
shim_dir(char *buf, size_t n)
{
    unsigned char tail[BOX_SHIM_TRAILER_FIXED];
    struct stat sb;
    uint32_t len;
    int err = EINVAL;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);

    if (fd < 0)
        return errno;
    if (fstat(fd, &sb) != 0) {
        err = errno;
        goto out;
    }
    if (sb.st_size < (off_t)sizeof tail ||
        pread(fd, tail, sizeof tail, sb.st_size - (off_t)sizeof tail) !=
            (ssize_t)sizeof tail ||
        memcmp(tail + 4, BOX_SHIM_MAGIC, BOX_SHIM_MAGIC_LEN) != 0)
        goto out;
    len = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 |
          (uint32_t)tail[3] << 24;
    if (len == 0 || len >= n || (off_t)len > sb.st_size - (off_t)sizeof tail ||
        pread(fd, buf, len, sb.st_size - (off_t)sizeof tail - (off_t)len) !=
            (ssize_t)len)
        goto out;
    buf[len] = '\0';
    if (buf[0] == '/' && memchr(buf, '\0', len) == NULL)
        err = 0;
out:
    close(fd);
    return err;
}

int
main(int argc, char **argv)
{
    char self[PATH_MAX], dir[PATH_MAX], target[PATH_MAX];
    const char *alias = argc > 0 ? shim_alias(argv[0]) : NULL;
    char *fallback[2] = {NULL, NULL};
    ssize_t got;
    int err;

    // The name it was run by first (`sh` for /bin/sh even where sh is
    // bash); else the file it covers (/usr/bin/dash for /bin/sh).
    got = readlink("/proc/self/exe", self, sizeof self - 1);
    self[got > 0 ? got : 0] = '\0';
    if (alias == NULL)
        alias = shim_alias(self);
    if (alias == NULL)
        return shim_fail("runs only in a box's agent sandbox, as one of "
                         "/bin/sh, /bin/bash, /bin/zsh or /bin/dash");
    if ((err = shim_dir(dir, sizeof dir)) != 0)
        return shim_fail("cannot find the box's aliases in %s: %s",
                         self[0] != '\0' ? self : "/proc/self/exe",
                         err == EINVAL ? "no alias directory recorded"
                                       : strerror(err));
    if ((size_t)snprintf(target, sizeof target, "%s/%s", dir, alias) >=
        sizeof target)
        return shim_fail("%s/%s: %s", dir, alias, strerror(ENAMETOOLONG));
    if (argc == 0) {
        fallback[0] = (char *)alias;
        argv = fallback;
    }
    execve(target, argv, environ);
    return shim_fail("cannot run the box's %s alias %s: %s", alias, target,
                     strerror(errno));
}
