/* SPDX-License-Identifier: Apache-2.0 */
/* The broker's half of a launch: find, report, select, build the argv. */
#include "sh_spawn_int.h"

#include <errno.h>
#include <string.h>

#include "box_alloc.h"

box_err
sh_spawn_prepare(const box_config *cfg, const char *trusted_path,
                 const char *operator_home, int argc, char *const *argv,
                 const sh_spawn_run_opts *o, char **reported,
                 box_argv *contain_argv, char **native, char **err)
{
    sh_spawn_found prog = {0};
    sh_spawn_plan *plan = NULL;
    box_err rv;

    *reported = NULL;
    *native = NULL;
    *err = NULL;
    memset(contain_argv, 0, sizeof *contain_argv);
    if (cfg == NULL || argc < 1 || argv == NULL || argv[0] == NULL ||
        o == NULL || o->ro_cwd == NULL || o->ro_contain == NULL)
        return BOX_EINVAL;
    int e = sh_spawn_locate(trusted_path, o->ro_cwd, argv[0], &prog);
    if (e == ENOMEM)
        return BOX_ENOMEM;
    if (e != 0) {
        // The worker found it a moment ago; what was decided is gone.
        *err = box_strdup("the program is no longer there to run");
        return *err != NULL ? BOX_EDENIED : BOX_ENOMEM;
    }
    if ((*reported = sp_report(prog.sf_path, operator_home)) == NULL) {
        rv = BOX_ENOMEM;
        goto out;
    }
    rv = sh_spawn_select(cfg, trusted_path, operator_home, &prog, argc, argv,
                         &plan, err);
    if (rv == BOX_OK)
        rv = sh_spawn_contain_argv(plan, o, contain_argv);
    if (rv == BOX_OK && !plan->pn_spec->pr_contain_egress &&
        (*native = box_strdup(plan->pn_spec->pr_label
                                  ? plan->pn_spec->pr_label
                                  : "agent")) == NULL) {
        box_argv_free(contain_argv);
        rv = BOX_ENOMEM;
    }
out:
    if (rv != BOX_OK && rv != BOX_EDENIED) {
        box_free(*reported);
        *reported = NULL;
    }
    sh_spawn_plan_free(plan);
    sh_spawn_found_free(&prog);
    return rv;
}
