/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain --shells: the shim bound over every shell path a program
 * may run by name, so each reaches the box's alias (issue 23). */
#include "contain_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_shells.h"

/*
 * Programs run a shell by absolute path (Python's subprocess, Node's
 * child_process, make, git, npm: /bin/sh; many harnesses: /bin/bash),
 * never looking on PATH, where the agent's aliases are. In the agent's
 * mount namespace each such path that exists is covered by the shim
 * (contain_shim.c), which execs the alias of that shell name; so
 * `/bin/sh -c …` is decided as `sh -c …` is. What this must never do:
 *
 *   - cover the program itself before it is open: the program (and a #!
 *     program's interpreter, ct_shells_interp) was opened by descriptor
 *     before the namespaces, so an agent configured as `/bin/sh agent.sh`
 *     starts from the real file, and its own `sh -c` calls go to the box;
 *   - lift a --deny: a shell a mask covers stays masked (the covers come
 *     after the masks and skip a masked file; a masked directory leaves
 *     nothing to cover);
 *   - cover anything else: each path is resolved to its canonical file
 *     and each file is covered once (on Debian 12 /bin is /usr/bin and
 *     /usr/bin/sh is a link to dash: /bin/sh, /usr/bin/sh, /bin/dash and
 *     /usr/bin/dash are one file), and only a regular file.
 *
 * Each cover is a clone of the shim's own path as the namespace has it
 * (bound executable by contain_bind.c), checked to be the file the plan
 * saw, read-only and nosuid, moved onto the cover's path, itself checked
 * to be the file the plan saw. A tool's leaf sandbox is not given
 * --shells: its shells are the host's.
 */

static bool
shells_same(const struct stat *sb, dev_t dev, ino_t ino)
{
    return sb->st_dev == dev && sb->st_ino == ino;
}

/* A cover for this file already, or a mask over it. */
static bool
shells_skip(const ct_plan *plan, const struct stat *sb)
{
    if (shells_same(sb, plan->cp_shim_dev, plan->cp_shim_ino))
        return true;
    for (size_t i = 0; i < plan->cp_ncovers; i++)
        if (shells_same(sb, plan->cp_covers[i].cv_dev,
                        plan->cp_covers[i].cv_ino))
            return true;
    for (size_t i = 0; i < plan->cp_nmasks; i++)
        if (shells_same(sb, plan->cp_masks[i].cm_dev, plan->cp_masks[i].cm_ino))
            return true;
    return false;
}

box_status
ct_shells_plan(ct_plan *plan, ct_err *e)
{
    if (plan->cp_shim == NULL)
        return BOX_STATUS_OK;
    plan->cp_covers = box_calloc(BOX_SHELL_PATH_COUNT, sizeof *plan->cp_covers);
    if (plan->cp_covers == NULL)
        return ct_fail(e, BOX_STATUS_FAULT, false, "out of memory");
    for (size_t i = 0; i < BOX_SHELL_PATH_COUNT; i++) {
        char real[PATH_MAX];
        struct stat sb;
        ct_cover *c = &plan->cp_covers[plan->cp_ncovers];

        // Not there (or not a file): nothing a program could run by it.
        if (realpath(box_shell_paths[i], real) == NULL ||
            stat(real, &sb) != 0 || !S_ISREG(sb.st_mode) ||
            shells_skip(plan, &sb))
            continue;
        if ((c->cv_path = box_strdup(real)) == NULL)
            return ct_fail(e, BOX_STATUS_FAULT, false, "out of memory");
        c->cv_dev = sb.st_dev;
        c->cv_ino = sb.st_ino;
        plan->cp_ncovers++;
    }
    return BOX_STATUS_OK;
}

/* A clone of the shim, the file the plan saw, read-only and nosuid. */
static box_status
shells_clone(const ct_plan *plan, int *out, ct_err *e)
{
    struct mount_attr attr = {.attr_set =
                                  MOUNT_ATTR_NOSUID | MOUNT_ATTR_RDONLY};
    struct stat sb;
    int fd =
        open_tree(AT_FDCWD, plan->cp_shim,
                  OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC | AT_SYMLINK_NOFOLLOW);

    *out = -1;
    if (fd < 0)
        return ct_fail(e, BOX_STATUS_FAULT, errno == ENOSYS,
                       "--shells %s: cannot bind it (open_tree: %s)",
                       plan->cp_shim, strerror(errno));
    if (fstat(fd, &sb) != 0 ||
        !shells_same(&sb, plan->cp_shim_dev, plan->cp_shim_ino)) {
        close(fd);
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "--shells %s: it changed while the sandbox was built",
                       plan->cp_shim);
    }
    if (mount_setattr(fd, "", AT_EMPTY_PATH, &attr, sizeof attr) != 0) {
        close(fd);
        return ct_fail(e, BOX_STATUS_FAULT, errno == ENOSYS,
                       "--shells %s: cannot set its mount flags "
                       "(mount_setattr: %s)",
                       plan->cp_shim, strerror(errno));
    }
    *out = fd;
    return BOX_STATUS_OK;
}

/* One cover: the shim onto c's path, which must still be c's file (a
 * path a masked directory took away is skipped). */
static box_status
shells_cover(const ct_plan *plan, const ct_cover *c, ct_err *e)
{
    struct stat sb;
    box_status st = BOX_STATUS_OK;
    int clone = -1;
    int target = open(c->cv_path, O_PATH | O_NOFOLLOW | O_CLOEXEC);

    if (target < 0 && (errno == ENOENT || errno == ENOTDIR))
        return BOX_STATUS_OK;
    if (target < 0 || fstat(target, &sb) != 0 ||
        !shells_same(&sb, c->cv_dev, c->cv_ino)) {
        st = ct_fail(e, BOX_STATUS_FAULT, false,
                     "--shells: %s changed while the sandbox was built",
                     c->cv_path);
        goto out;
    }
    if ((st = shells_clone(plan, &clone, e)) != 0)
        goto out;
    if (move_mount(clone, "", target, "",
                   MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) != 0)
        st = ct_fail(e, BOX_STATUS_FAULT, true,
                     "--shells: cannot bind the shim over %s (move_mount: "
                     "%s)",
                     c->cv_path, strerror(errno));
out:
    if (clone >= 0)
        close(clone);
    if (target >= 0)
        close(target);
    return st;
}

box_status
ct_shells(const ct_plan *plan, ct_err *e)
{
    box_status st = BOX_STATUS_OK;

    for (size_t i = 0; i < plan->cp_ncovers && st == BOX_STATUS_OK; i++)
        st = shells_cover(plan, &plan->cp_covers[i], e);
    return st;
}

void
ct_shells_free(ct_plan *plan)
{
    for (size_t i = 0; i < plan->cp_ncovers; i++)
        box_free(plan->cp_covers[i].cv_path);
    box_free(plan->cp_covers);
    plan->cp_covers = NULL;
    plan->cp_ncovers = 0;
    plan->cp_shim = NULL;
}

/*
 * "#!" then blanks, the interpreter up to a blank, then blanks and the
 * rest of the line (trailing blanks dropped) as its one argument, as the
 * kernel reads it. False when the line does not end within what was read
 * (the kernel's own rules for a long line are left to it).
 */
static bool
shells_shebang(const char *head, size_t len, ct_script *sc)
{
    const char *nl = memchr(head, '\n', len);
    size_t i = 2, k = 0, end;

    if (len < 2 || head[0] != '#' || head[1] != '!' || nl == NULL)
        return false;
    end = (size_t)(nl - head);
    while (i < end && (head[i] == ' ' || head[i] == '\t'))
        i++;
    while (i < end && head[i] != ' ' && head[i] != '\t' && head[i] != '\0') {
        if (k + 1 >= sizeof sc->sc_interp)
            return false;
        sc->sc_interp[k++] = head[i++];
    }
    sc->sc_interp[k] = '\0';
    while (i < end && (head[i] == ' ' || head[i] == '\t'))
        i++;
    while (end > i && (head[end - 1] == ' ' || head[end - 1] == '\t' ||
                       head[end - 1] == '\r'))
        end--;
    if (end - i >= sizeof sc->sc_arg || memchr(head + i, '\0', end - i))
        return false;
    memcpy(sc->sc_arg, head + i, end - i);
    sc->sc_arg[end - i] = '\0';
    sc->sc_has_arg = end > i;
    return k > 0 && sc->sc_interp[0] == '/';
}

box_status
ct_shells_interp(const ct_plan *plan, int prog_fd, ct_script *sc, ct_err *e)
{
    char proc[64], head[256], real[PATH_MAX];
    struct stat sb, fsb;
    ssize_t got;
    int rd;

    *sc = CT_SCRIPT_NONE;
    if (plan->cp_ncovers == 0)
        return BOX_STATUS_OK;
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", prog_fd);
    if ((rd = open(proc, O_RDONLY | O_CLOEXEC)) < 0)
        return BOX_STATUS_OK; // the exec reports what is wrong with it
    got = pread(rd, head, sizeof head, 0);
    close(rd);
    if (got <= 0 || !shells_shebang(head, (size_t)got, sc) ||
        realpath(sc->sc_interp, real) == NULL || stat(real, &sb) != 0) {
        *sc = CT_SCRIPT_NONE;
        return BOX_STATUS_OK;
    }
    for (size_t i = 0; i < plan->cp_ncovers; i++) {
        const ct_cover *c = &plan->cp_covers[i];
        if (!shells_same(&sb, c->cv_dev, c->cv_ino))
            continue;
        sc->sc_fd = open(real, O_PATH | O_CLOEXEC);
        if (sc->sc_fd < 0 || fstat(sc->sc_fd, &fsb) != 0 ||
            !shells_same(&fsb, c->cv_dev, c->cv_ino)) {
            if (sc->sc_fd >= 0)
                close(sc->sc_fd);
            sc->sc_fd = -1;
            return ct_fail(e, BOX_STATUS_CANNOT_RUN, false,
                           "the program's interpreter %s changed while the "
                           "sandbox was built",
                           sc->sc_interp);
        }
        return BOX_STATUS_OK;
    }
    *sc = CT_SCRIPT_NONE;
    return BOX_STATUS_OK;
}
