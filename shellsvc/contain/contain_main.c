/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain: the sandbox trampoline (see contain_usage for the contract). */
#include <stdio.h>

#include "box_svc.h"
#include "contain.h"

int
main(int argc, char **argv)
{
    contain_spec spec;
    int status;

    // The worker (or box run) spawned us tied: its death ends us, and our
    // init follows through its own parent-death signal.
    if (box_svc_tie_to_parent("box-contain") != BOX_OK)
        return BOX_STATUS_FAULT;
    status = contain_parse(argc, argv, &spec);
    if (status == BOX_STATUS_OK) {
        if (spec.cs_help)
            fputs(contain_usage(), stdout);
        else if (spec.cs_probe)
            status = contain_probe();
        else
            status = contain_run(&spec);
    }
    contain_spec_free(&spec);
    return status;
}
