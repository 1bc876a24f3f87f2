/* SPDX-License-Identifier: Apache-2.0 */
/* The box-contain command line for a plan: lists, cwd, env, identity. */
#include "sh_spawn_int.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"

/*
 * ORDER BOX_GRANT: the box-contain option for each list. `metadata` is
 * passed for completeness (Landlock never restricts stat). Libraries need
 * no entry here: box-contain always grants /usr /lib /lib64 /bin /sbin
 * (read+exec) and /etc/ld.so.cache, which is where the dynamic loader
 * looks, and the program's own file (read+exec) by its descriptor.
 */
static const char *const sp_list_opt[BOX_GRANT_COUNT] = {
    [BOX_GRANT_READ] = "--read",
    [BOX_GRANT_WRITE] = "--write",
    [BOX_GRANT_READ_FILE] = "--read-file",
    [BOX_GRANT_WRITE_FILE] = "--write-file",
    [BOX_GRANT_LIST] = "--list",
    [BOX_GRANT_METADATA] = "--metadata",
    [BOX_GRANT_EXEC] = "--exec",
    [BOX_GRANT_DENY] = "--deny",
};

static box_err
sp_lists(sp_strv *v, const box_config_process *spec, const char *home)
{
    box_err rv = BOX_OK;

    for (int g = 0; g < BOX_GRANT_COUNT && rv == BOX_OK; g++) {
        const box_config_strv *l = &spec->pr_fs[g];
        for (size_t i = 0; i < l->sv_len && rv == BOX_OK; i++) {
            if ((rv = sp_strv_add(v, sp_list_opt[g])) == BOX_OK)
                rv = sp_strv_take(v, sp_tilde(l->sv_items[i], home));
        }
    }
    return rv;
}

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
            char *tree = sp_tilde(l->sv_items[i], plan->pn_home);
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
sp_env1(sp_strv *v, const char *name, const char *value)
{
    box_err rv = sp_strv_add(v, "--env");
    if (rv != BOX_OK)
        return rv;
    return sp_strv_take(v, box_asprintf("%s=%s", name, value));
}

/*
 * §5 composition, in its order: HOME default (the operator's), the spec's
 * env, then the box's own names PWD, USER and PATH (the spec's PATH, else
 * the operator's, else the default). The proxy, OTLP and trust names join
 * when the gateway and telemetry do.
 */
static box_err
sp_env(sp_strv *v, const sh_spawn_plan *plan, const char *cwd)
{
    const box_config_process *spec = plan->pn_spec;
    const char *path = plan->pn_search;
    bool has_home = false;
    box_err rv = BOX_OK;

    for (size_t i = 0; i < spec->pr_nenv; i++) {
        if (strcmp(spec->pr_env[i].ev_name, "HOME") == 0)
            has_home = true;
        if (strcmp(spec->pr_env[i].ev_name, "PATH") == 0)
            path = spec->pr_env[i].ev_value;
    }
    if (path == NULL || path[0] == '\0')
        path = SH_SPAWN_DEFAULT_PATH;
    if (!has_home)
        rv = sp_env1(v, "HOME", plan->pn_home);
    for (size_t i = 0; i < spec->pr_nenv && rv == BOX_OK; i++) {
        if (strcmp(spec->pr_env[i].ev_name, "PATH") != 0)
            rv = sp_env1(v, spec->pr_env[i].ev_name, spec->pr_env[i].ev_value);
    }
    if (rv == BOX_OK)
        rv = sp_env1(v, "PWD", cwd);
    if (rv == BOX_OK)
        rv = sp_env1(v, "USER", "strands-box");
    if (rv == BOX_OK)
        rv = sp_env1(v, "PATH", path);
    return rv;
}

static box_err
sp_program(sp_strv *v, const sh_spawn_plan *plan)
{
    box_err rv = sp_strv_add(v, "--exec-path");

    if (rv == BOX_OK)
        rv = sp_strv_add(v, plan->pn_path);
    if (rv == BOX_OK)
        rv = sp_strv_add(v, "--exec-id");
    if (rv == BOX_OK)
        rv = sp_strv_take(v, box_asprintf("%ju:%ju", (uintmax_t)plan->pn_dev,
                                          (uintmax_t)plan->pn_ino));
    if (rv == BOX_OK)
        rv = sp_strv_add(v, "--");
    for (int i = 0; i < plan->pn_argc && rv == BOX_OK; i++)
        rv = sp_strv_add(v, plan->pn_argv[i]);
    return rv;
}

box_err
sp_cmd_build(const sh_spawn_plan *plan, const sh_spawn_run_opts *o,
             sp_strv *argv)
{
    char *cwd = NULL;
    box_err rv;

    memset(argv, 0, sizeof *argv);
    rv = sp_strv_add(argv, o->ro_contain);
    if (rv == BOX_OK)
        rv = sp_lists(argv, plan->pn_spec, plan->pn_home);
    if (rv == BOX_OK && (rv = sp_strv_add(argv, "--net")) == BOX_OK)
        rv = sp_strv_add(argv, "none");
    if (rv == BOX_OK && (cwd = sp_cwd(plan, o)) == NULL)
        rv = BOX_ENOMEM;
    if (rv == BOX_OK && (rv = sp_strv_add(argv, "--cwd")) == BOX_OK)
        rv = sp_strv_add(argv, cwd);
    if (rv == BOX_OK)
        rv = sp_env(argv, plan, cwd);
    if (rv == BOX_OK)
        rv = sp_program(argv, plan);
    box_free(cwd);
    if (rv != BOX_OK)
        sp_strv_free(argv);
    return rv;
}
