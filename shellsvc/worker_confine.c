/* SPDX-License-Identifier: Apache-2.0 */
/* The worker profile, applied in the zygote. */
#include "worker_confine.h"

#include <stdlib.h>
#include <sys/prctl.h>

#include "box_log.h"
#include "contain.h"

#define WC_SVC "box-shell"

int
worker_confine(const worker_settings *ws)
{
    char err[512];
    const char *hide[1];
    size_t nhide = 0;
    if (ws->ws_box_dir != NULL)
        hide[nhide++] = ws->ws_box_dir;
    // The reach floor (box.toml, the policy) held by the OS too, not only
    // by the shell's kernel refusing them.
    if (contain_hide_self(hide, nhide, (const char *const *)ws->ws_authority,
                          ws->ws_nauthority, err, sizeof err) != 0) {
        box_log(BOX_LOG_ERROR, WC_SVC,
                "cannot confine the shell's workers: %s", err);
        return -1;
    }
    // Nothing a worker runs reads the operator's environment.
    if (clearenv() != 0 || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        box_log(BOX_LOG_ERROR, WC_SVC,
                "cannot confine the shell's workers: no_new_privs refused");
        return -1;
    }
    return 0;
}
