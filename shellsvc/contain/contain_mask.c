/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain mount masks: --deny masks, --hide covers, --show paths. */
#include "contain_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"

/*
 * Everything here runs in init, inside the sandbox's own mount namespace
 * (propagation already private, so nothing reaches the host), before
 * Landlock and seccomp. Landlock only grants: it cannot keep a denied
 * file inside a granted tree out, and it never governs connect(2) on a
 * pathname socket. Mounts can: a mask or cover sits on the path itself,
 * so every route to it (open, openat from a parent, connect, exec) meets
 * the empty read-only stand-in. The program cannot lift one: seccomp
 * refuses the mount calls and every capability is dropped.
 */

#define MASK_FLAGS (MS_NOSUID | MS_NODEV | MS_NOEXEC)
// Where the stand-ins are made: over the fresh procfs, for a moment.
#define MASK_STAGE "/proc"
#define MASK_FILE MASK_STAGE "/file"
#define MASK_DIR MASK_STAGE "/dir"

/* Remounts the tmpfs at path read-only (the whole superblock). */
static box_status
mask_seal(const char *path, const char *what, ct_err *e)
{
    if (mount(NULL, path, NULL, MS_REMOUNT | MS_RDONLY | MASK_FLAGS, NULL) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, true,
                       "%s: cannot make it read-only (mount: %s)", what,
                       strerror(errno));
    return BOX_STATUS_OK;
}

/*
 * The deny's path again, inside: it must still be the file the check saw
 * (dev:ino, and not a link now), or a swap between the check and here
 * would put the mask over something else. O_PATH, so the mask goes onto
 * exactly this file with no second lookup.
 */
static box_status
mask_target(const ct_mask *m, int *fd, ct_err *e)
{
    struct stat sb;

    *fd = open(m->cm_path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (*fd < 0 || fstat(*fd, &sb) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, false, "--deny %s: %s", m->cm_path,
                       strerror(errno));
    if (sb.st_dev != m->cm_dev || sb.st_ino != m->cm_ino ||
        S_ISDIR(sb.st_mode) != m->cm_dir)
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "--deny %s: it changed while the sandbox was built",
                       m->cm_path);
    return BOX_STATUS_OK;
}

/* One mask: a clone of the stand-in of the deny's kind, moved onto it. */
static box_status
mask_one(const ct_mask *m, ct_err *e)
{
    int target = -1, clone = -1;
    box_status st;

    if ((st = mask_target(m, &target, e)) != 0)
        goto out;
    clone = open_tree(AT_FDCWD, m->cm_dir ? MASK_DIR : MASK_FILE,
                      OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC);
    if (clone < 0 ||
        move_mount(clone, "", target, "",
                   MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
        st = ct_fail(e, BOX_STATUS_FAULT, true,
                     "--deny %s: cannot mask it (%s: %s)", m->cm_path,
                     clone < 0 ? "open_tree" : "move_mount", strerror(errno));
out:
    if (clone >= 0)
        close(clone);
    if (target >= 0)
        close(target);
    return st;
}

/*
 * The stand-ins (an empty file, mode 0444, and an empty directory, 0555)
 * live on one small tmpfs mounted over /proc only while the masks are
 * cloned from it, then popped off: each mask holds its superblock, and
 * /proc is this namespace's own, so nobody else sees the moment. Read-only
 * before any clone, so every mask is read-only too.
 */
static box_status
mask_denies(const ct_plan *plan, ct_err *e)
{
    box_status st = BOX_STATUS_OK;
    int fd;

    if (plan->cp_nmasks == 0)
        return BOX_STATUS_OK;
    if (mount("box-mask", MASK_STAGE, "tmpfs", MASK_FLAGS,
              "size=4k,nr_inodes=4,mode=0555") != 0)
        return ct_fail(e, BOX_STATUS_FAULT, true,
                       "--deny: cannot make the masks (mount: %s)",
                       strerror(errno));
    if ((fd = open(MASK_FILE, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0444)) <
            0 ||
        close(fd) != 0 || mkdir(MASK_DIR, 0555) != 0) {
        st = ct_fail(e, BOX_STATUS_FAULT, false,
                     "--deny: cannot make the masks: %s", strerror(errno));
        goto out;
    }
    if ((st = mask_seal(MASK_STAGE, "--deny", e)) != 0)
        goto out;
    for (size_t i = 0; i < plan->cp_nmasks && st == BOX_STATUS_OK; i++)
        st = mask_one(&plan->cp_masks[i], e);
out:
    if (umount2(MASK_STAGE, MNT_DETACH) != 0 && st == BOX_STATUS_OK)
        st = ct_fail(e, BOX_STATUS_FAULT, false,
                     "--deny: cannot put /proc back (umount2: %s)",
                     strerror(errno));
    return st;
}

/* The part of path beneath dir (path lies beneath dir, as spelled). */
static const char *
mask_rel(const char *dir, const char *path)
{
    const char *r = path + strlen(dir);

    while (*r == '/')
        r++;
    return r;
}

static bool
mask_beneath(const char *dir, const char *path)
{
    size_t n = strlen(dir);

    while (n > 1 && dir[n - 1] == '/')
        n--;
    return strncmp(dir, path, n) == 0 && path[n] == '/';
}

/*
 * The mount point of one --show inside a fresh cover: every directory on
 * the way (made here, on the cover's own tmpfs), then an empty directory
 * or file of the shown path's kind.
 */
static box_status
mask_point(const char *hide, const char *show, bool dir, ct_err *e)
{
    char p[PATH_MAX];
    int n = snprintf(p, sizeof p, "%s/%s", hide, mask_rel(hide, show));
    int fd;

    if (n < 0 || (size_t)n >= sizeof p)
        return ct_fail(e, BOX_STATUS_FAULT, false, "--show %s: path too long",
                       show);
    for (size_t i = strlen(hide) + 1; p[i] != '\0'; i++) {
        if (p[i] != '/')
            continue;
        p[i] = '\0';
        if (mkdir(p, 0555) != 0 && errno != EEXIST)
            return ct_fail(e, BOX_STATUS_FAULT, false,
                           "--show %s: mkdir %s: %s", show, p, strerror(errno));
        p[i] = '/';
    }
    if (dir) {
        if (mkdir(p, 0555) != 0 && errno != EEXIST)
            return ct_fail(e, BOX_STATUS_FAULT, false, "--show %s: mkdir: %s",
                           show, strerror(errno));
        return BOX_STATUS_OK;
    }
    if ((fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0444)) < 0)
        return ct_fail(e, BOX_STATUS_FAULT, false, "--show %s: %s", show,
                       strerror(errno));
    close(fd);
    return BOX_STATUS_OK;
}

/* A clone of one --show original, whole (with any mask beneath it). */
static box_status
mask_clone(const char *show, int *fd, bool *dir, ct_err *e)
{
    struct stat sb;

    *fd = open_tree(AT_FDCWD, show,
                    OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_RECURSIVE |
                        AT_SYMLINK_NOFOLLOW);
    if (*fd < 0 || fstat(*fd, &sb) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, false, "--show %s: %s", show,
                       strerror(errno));
    if (S_ISLNK(sb.st_mode))
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "--show %s: is a symbolic link; name its target", show);
    *dir = S_ISDIR(sb.st_mode);
    return BOX_STATUS_OK;
}

/*
 * One --hide: the originals it keeps (--show) are cloned first, then an
 * empty tmpfs covers the directory, the clones go back at their own
 * paths, and the cover is sealed read-only. Its inodes are exactly its
 * root and the mount points made in it.
 */
static box_status
mask_hide(const contain_spec *spec, const char *hide, ct_err *e)
{
    int *clones = box_calloc(spec->cs_nshow + 1, sizeof *clones);
    bool *dirs = box_calloc(spec->cs_nshow + 1, sizeof *dirs);
    size_t inodes = 1;
    box_status st = BOX_STATUS_OK;
    char opts[64];

    if (clones == NULL || dirs == NULL) {
        st = ct_fail(e, BOX_STATUS_FAULT, false, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < spec->cs_nshow; i++)
        clones[i] = -1;
    for (size_t i = 0; i < spec->cs_nshow; i++) {
        const char *show = spec->cs_show[i];
        if (!mask_beneath(hide, show))
            continue;
        for (const char *c = mask_rel(hide, show); *c != '\0'; c++)
            inodes += *c == '/';
        inodes++;
        if ((st = mask_clone(show, &clones[i], &dirs[i], e)) != 0)
            goto out;
    }
    snprintf(opts, sizeof opts, "size=4k,nr_inodes=%zu,mode=0555", inodes);
    if (mount("box-hidden", hide, "tmpfs", MASK_FLAGS, opts) != 0) {
        st = ct_fail(e, BOX_STATUS_FAULT, errno != ENOENT && errno != ENOTDIR,
                     "--hide %s: cannot cover it (mount: %s)", hide,
                     strerror(errno));
        goto out;
    }
    for (size_t i = 0; i < spec->cs_nshow; i++) {
        if (clones[i] < 0)
            continue;
        if ((st = mask_point(hide, spec->cs_show[i], dirs[i], e)) != 0)
            goto out;
        if (move_mount(clones[i], "", AT_FDCWD, spec->cs_show[i],
                       MOVE_MOUNT_F_EMPTY_PATH) != 0) {
            st = ct_fail(e, BOX_STATUS_FAULT, true,
                         "--show %s: cannot bind it back (move_mount: %s)",
                         spec->cs_show[i], strerror(errno));
            goto out;
        }
    }
    st = mask_seal(hide, hide, e);
out:
    for (size_t i = 0; clones != NULL && i < spec->cs_nshow; i++) {
        if (clones[i] >= 0)
            close(clones[i]);
    }
    box_free(clones);
    box_free(dirs);
    return st;
}

box_status
ct_masks(const contain_spec *spec, const ct_plan *plan, ct_err *e)
{
    box_status st = mask_denies(plan, e);

    for (size_t i = 0; i < spec->cs_nhide && st == BOX_STATUS_OK; i++)
        st = mask_hide(spec, spec->cs_hide[i], e);
    return st;
}
