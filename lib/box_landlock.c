/* SPDX-License-Identifier: Apache-2.0 */
/* Landlock: ABI probe, ruleset, path-beneath rules, restrict self. */
#include "box_landlock.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/landlock.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "box_alloc.h"

#define BOX_LL_SCOPE_ABSTRACT_UNIX (1ULL << 0) // ABI 6
#define BOX_LL_SCOPE_SIGNAL (1ULL << 1)        // ABI 6

// The ruleset attribute as of ABI 6; the kernel accepts a zeroed tail.
struct box_ll_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
};

box_err
box_ll_abi(int *abi, char **err)
{
    long v = syscall(SYS_landlock_create_ruleset, NULL, 0,
                     LANDLOCK_CREATE_RULESET_VERSION);

    if (v >= 1) {
        *abi = (int)v;
        return BOX_OK;
    }
    if (errno == EOPNOTSUPP)
        *err = box_asprintf("the kernel has Landlock support but it is "
                            "disabled (landlock_create_ruleset: %s; add "
                            "landlock to the lsm= boot parameter)",
                            strerror(errno));
    else
        *err = box_asprintf("the kernel has no Landlock support "
                            "(landlock_create_ruleset: %s)",
                            strerror(errno));
    return BOX_ENOTSUP;
}

uint64_t
box_ll_fs_mask(int abi)
{
    uint64_t m = (1ULL << 13) - 1;

    if (abi >= 2)
        m |= BOX_LL_REFER;
    if (abi >= 3)
        m |= BOX_LL_TRUNCATE;
    if (abi >= 5)
        m |= BOX_LL_IOCTL_DEV;
    return m;
}

box_err
box_ll_ruleset(int abi, int *fd, char **err)
{
    struct box_ll_attr attr;

    memset(&attr, 0, sizeof attr);
    attr.handled_access_fs = box_ll_fs_mask(abi);
    if (abi >= 6)
        attr.scoped = BOX_LL_SCOPE_ABSTRACT_UNIX | BOX_LL_SCOPE_SIGNAL;
    *fd = (int)syscall(SYS_landlock_create_ruleset, &attr, sizeof attr, 0);
    if (*fd < 0) {
        *err = box_asprintf("the kernel has no usable Landlock "
                            "(landlock_create_ruleset: %s)",
                            strerror(errno));
        return BOX_ENOTSUP;
    }
    return BOX_OK;
}

box_err
box_ll_add_fd(int ruleset, int fd, uint64_t access, const char *what,
              char **err)
{
    struct landlock_path_beneath_attr pb;
    struct stat sb;

    if (fstat(fd, &sb) != 0) {
        *err = box_asprintf("Landlock rule %s: %s", what, strerror(errno));
        return BOX_EIO;
    }
    if (!S_ISDIR(sb.st_mode))
        access &= BOX_LL_FILE_RIGHTS;
    if (access == 0)
        return BOX_OK;
    memset(&pb, 0, sizeof pb);
    pb.allowed_access = access;
    pb.parent_fd = fd;
    if (syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, &pb,
                0) != 0) {
        *err = box_asprintf("Landlock rule %s: %s", what, strerror(errno));
        return BOX_EIO;
    }
    return BOX_OK;
}

box_err
box_ll_add_path(int ruleset, const char *path, uint64_t access, bool optional,
                char **err)
{
    int fd = open(path, O_PATH | O_CLOEXEC);

    if (fd < 0 && optional)
        return BOX_OK; // not on this system: nothing to grant
    if (fd < 0) {
        *err = box_asprintf("Landlock rule %s: %s", path, strerror(errno));
        return errno == ENOENT ? BOX_ENOENT : BOX_EIO;
    }
    box_err rv = box_ll_add_fd(ruleset, fd, access, path, err);
    close(fd);
    return rv;
}

box_err
box_ll_restrict(int ruleset, char **err)
{
    if (syscall(SYS_landlock_restrict_self, ruleset, 0) != 0) {
        *err = box_asprintf("the kernel refused the Landlock domain "
                            "(landlock_restrict_self: %s)",
                            strerror(errno));
        return BOX_ENOTSUP;
    }
    return BOX_OK;
}
