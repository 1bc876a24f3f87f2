/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain: the sandbox trampoline (see contain_usage for the contract). */
#include <stdio.h>

#include "contain.h"

int
main(int argc, char **argv)
{
    contain_spec spec;
    int status;

    status = contain_parse(argc, argv, &spec);
    if (status == CONTAIN_OK) {
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
