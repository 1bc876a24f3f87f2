/* SPDX-License-Identifier: Apache-2.0 */
/* The box-contain command line for a plan: lists, cwd, env, identity. */
#include "sh_spawn_int.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"

/* The shell cwd canonically when it resolves (the comparisons below are
 * between kernel spellings), else as given. */
static char *
sp_shell_cwd(const char *cwd)
{
    char buf[PATH_MAX];

    if (cwd == NULL || cwd[0] != '/')
        return NULL;
    return box_strdup(realpath(cwd, buf) != NULL ? buf : cwd);
}

/*
 * §3.9: the Shell cwd when it lies inside the agent workspace, the spec's
 * workspace or a tree one of the spec's grant lists names; else the
 * spec's workspace, else the agent workspace, else "/". Grants nothing:
 * box-contain enters it before Landlock applies.
 */
static char *
sp_cwd(const sh_spawn_plan *plan, const sh_spawn_run_opts *o)
{
    const box_config_process *spec = plan->pn_spec;
    char *cwd = sp_shell_cwd(o->ro_cwd);
    const char *fallback = spec->pr_workspace != NULL ? spec->pr_workspace
                           : o->ro_workspace != NULL  ? o->ro_workspace
                                                      : "/";

    if (cwd == NULL)
        return box_strdup(fallback);
    if ((o->ro_workspace != NULL && sp_covers(o->ro_workspace, cwd)) ||
        (spec->pr_workspace != NULL && sp_covers(spec->pr_workspace, cwd)))
        return cwd;
    for (int g = 0; g < BOX_GRANT_COUNT; g++) {
        const box_config_strv *l = &spec->pr_fs[g];
        for (size_t i = 0; g != BOX_GRANT_DENY && i < l->sv_len; i++) {
            char *tree = box_procspec_expand(l->sv_items[i], plan->pn_home);
            bool in = tree != NULL && sp_covers(tree, cwd);
            box_free(tree);
            if (in)
                return cwd;
        }
    }
    box_free(cwd);
    return box_strdup(fallback);
}

static box_err
sp_program(box_argv *v, const sh_spawn_plan *plan)
{
    box_err rv = box_argv_push(v, "--exec-path");

    if (rv == BOX_OK)
        rv = box_argv_push(v, plan->pn_path);
    if (rv == BOX_OK)
        rv = box_argv_push(v, "--exec-id");
    if (rv == BOX_OK)
        rv = box_argv_pushf(v, "%ju:%ju", (uintmax_t)plan->pn_dev,
                            (uintmax_t)plan->pn_ino);
    if (rv == BOX_OK)
        rv = box_argv_push(v, "--");
    for (int i = 0; i < plan->pn_argc && rv == BOX_OK; i++)
        rv = box_argv_push(v, plan->pn_argv[i]);
    return rv;
}

/*
 * The lists go to box-contain one to one (`metadata` for completeness:
 * Landlock never restricts stat; `exec` is all the program may start
 * besides itself). Libraries need no entry: box-contain always grants
 * /usr /lib /lib64 /bin /sbin (read) and /etc/ld.so.cache, which is where
 * the dynamic loader looks, the program's own file (read+exec) by its
 * descriptor and the loader it names. The box directory is hidden whole:
 * its sockets (the PDP's, the control sockets, the alias socket) are no
 * route for a leaf (§1). (When the gateway hands out its CA, trust/ is
 * shown back with `--show`, as the agent's bin/ is.) The environment is
 * §5's without the agent's bin/ on PATH (§3.9).
 */
box_err
sh_spawn_contain_argv(const sh_spawn_plan *plan, const sh_spawn_run_opts *o,
                      box_argv *argv)
{
    char *cwd = NULL;
    box_err rv;

    memset(argv, 0, sizeof *argv);
    rv = box_argv_push(argv, o->ro_contain);
    if (rv == BOX_OK)
        rv = box_procspec_fs_args(argv, plan->pn_spec, plan->pn_home);
    if (rv == BOX_OK && o->ro_box_dir != NULL &&
        (rv = box_argv_push(argv, "--hide")) == BOX_OK)
        rv = box_argv_push(argv, o->ro_box_dir);
    // Native egress (network.contain_egress = false): the host's network,
    // no gateway (box-spec §6); the broker logs `egress:native` first.
    if (rv == BOX_OK && (rv = box_argv_push(argv, "--net")) == BOX_OK)
        rv = box_argv_push(argv,
                           plan->pn_spec->pr_contain_egress ? "none" : "host");
    if (rv == BOX_OK && (cwd = sp_cwd(plan, o)) == NULL)
        rv = BOX_ENOMEM;
    if (rv == BOX_OK && (rv = box_argv_push(argv, "--cwd")) == BOX_OK)
        rv = box_argv_push(argv, cwd);
    const box_procspec_egress *eg =
        plan->pn_spec->pr_contain_egress ? o->ro_egress : NULL;
    if (rv == BOX_OK && eg != NULL)
        rv = box_procspec_egress_args(argv, eg);
    // The trust names point at the CA: visible through the box dir's
    // cover.
    if (rv == BOX_OK && eg != NULL && o->ro_box_dir != NULL &&
        (rv = box_argv_push(argv, "--show")) == BOX_OK)
        rv = box_argv_push(argv, eg->eg_ca);
    if (rv == BOX_OK)
        rv = box_procspec_env_args(argv, plan->pn_spec, plan->pn_home, cwd,
                                   plan->pn_search, NULL, eg);
    if (rv == BOX_OK)
        rv = sp_program(argv, plan);
    box_free(cwd);
    if (rv != BOX_OK)
        box_argv_free(argv);
    return rv;
}
