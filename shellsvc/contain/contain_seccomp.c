/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain seccomp: the shared denylist (box_seccomp.c), default allow,
 * nothing added. */
#include "contain_int.h"

#include <stddef.h>

#include "box_seccomp.h"

box_status
ct_seccomp_avail(ct_err *e)
{
    char *msg = NULL;
    box_err rv = box_sc_avail(&msg);

    return rv == BOX_OK ? BOX_STATUS_OK : ct_fail_lib(e, rv, msg);
}

box_status
ct_seccomp_load(ct_err *e)
{
    box_sc_filter f = {.sf_mode = BOX_SC_DENYLIST};
    char *msg = NULL;
    box_err rv = box_sc_load(&f, &msg);

    return rv == BOX_OK ? BOX_STATUS_OK : ct_fail_lib(e, rv, msg);
}
