/* SPDX-License-Identifier: Apache-2.0 */
/* The options a shell call may be started with. */
#include "box_shopts.h"

#include <string.h>

/* bash's long names of the options agents start a shell with; the box's
 * shell takes each (sh_options). */
static const char *const shopt_long[] = {
    "errexit", "nounset", "xtrace", "pipefail", "noglob",
};

bool
box_shopt_long_ok(const char *name)
{
    for (size_t i = 0; i < sizeof shopt_long / sizeof *shopt_long; i++)
        if (strcmp(name, shopt_long[i]) == 0)
            return true;
    return false;
}

bool
box_shopt_args_ok(char *const *opts, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        const char *a = opts[i];
        if (strcmp(a, "-o") == 0) {
            if (++i == n || !box_shopt_long_ok(opts[i]))
                return false;
        } else if (strcmp(a, "-e") != 0 && strcmp(a, "-u") != 0 &&
                   strcmp(a, "-x") != 0) {
            return false;
        }
    }
    return true;
}
