/* SPDX-License-Identifier: Apache-2.0 */
/* contain_hide_self: the box's own files out of a trusted process's view. */
#include "contain_int.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"

/* The masks of the files that exist now; a missing one needs none. */
static box_status
hide_plan_masks(const char *const *mask, size_t nmask, ct_plan *plan, ct_err *e)
{
    plan->cp_masks = box_calloc(nmask + 1, sizeof *plan->cp_masks);
    if (plan->cp_masks == NULL)
        return ct_fail(e, BOX_STATUS_FAULT, false, "out of memory");
    for (size_t i = 0; i < nmask; i++) {
        struct stat sb;
        if (lstat(mask[i], &sb) != 0) {
            if (errno == ENOENT)
                continue;
            return ct_fail(e, BOX_STATUS_FAULT, false, "%s: %s", mask[i],
                           strerror(errno));
        }
        if (S_ISLNK(sb.st_mode))
            return ct_fail(e, BOX_STATUS_FAULT, false,
                           "%s: is a symbolic link; name its target", mask[i]);
        plan->cp_masks[plan->cp_nmasks++] = (ct_mask){
            .cm_path = mask[i],
            .cm_dev = sb.st_dev,
            .cm_ino = sb.st_ino,
            .cm_dir = S_ISDIR(sb.st_mode),
        };
    }
    return BOX_STATUS_OK;
}

int
contain_hide_self(const char *const *hide, size_t nhide,
                  const char *const *mask, size_t nmask, char *err,
                  size_t errlen)
{
    ct_err e = {0};
    ct_plan plan = {0};
    contain_spec spec = {.cs_hide = (const char **)hide, .cs_nhide = nhide};
    box_status st;

    // Root makes its mount namespace directly (as box-contain does); its
    // capabilities go below all the same.
    if ((geteuid() != 0 && (st = ct_userns(&e)) != BOX_STATUS_OK) ||
        (st = ct_unshare(CLONE_NEWNS, &e)) != BOX_STATUS_OK)
        goto out;
    // Nothing done here reaches the host, and nothing the host mounts
    // later reaches here.
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0) {
        st = ct_fail(&e, BOX_STATUS_FAULT, true,
                     "cannot make mounts private in the new mount namespace "
                     "(mount: %s)",
                     strerror(errno));
        goto out;
    }
    if ((st = hide_plan_masks(mask, nmask, &plan, &e)) != BOX_STATUS_OK ||
        (st = ct_masks(&spec, &plan, &e)) != BOX_STATUS_OK)
        goto out;
    // The owner of the new user namespace holds every capability in it,
    // enough to take the covers off again: none of them stays.
    st = ct_drop_caps(&e);
out:
    box_free(plan.cp_masks);
    if (st != BOX_STATUS_OK && err != NULL && errlen > 0)
        snprintf(err, errlen, "%s", e.ce_msg);
    return st;
}
