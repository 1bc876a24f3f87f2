/* SPDX-License-Identifier: Apache-2.0 */
/* Which spec runs a decided host program (box-spec §3.9 select_tool). */
#include "sh_spawn_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"

/* Decisions are typed; an error is never read as a match. */
typedef enum sp_pick {
    SP_PICK_ERROR = -1, // allocation failed
    SP_PICK_NONE,       // does not apply
    SP_PICK_NAMED,      // a tool names the file, but no arguments match
    SP_PICK_MATCH,      // runs under this spec
} sp_pick;

/*
 * realpath(path) into *canon (caller's) and its stat in *st. Returns 0,
 * or the errno of the failing call (ENOMEM when the copy fails).
 */
static int
sp_canon(const char *path, char **canon, struct stat *st)
{
    char buf[PATH_MAX];

    *canon = NULL;
    if (realpath(path, buf) == NULL)
        return errno;
    if (stat(buf, st) != 0)
        return errno;
    if ((*canon = box_strdup(buf)) == NULL)
        return ENOMEM;
    return 0;
}

/*
 * A tool's command[0] as its granted path: absolute as written, bare on
 * the table's PATH, else the operator's, else the default (§5). A command
 * that resolves to nothing names nothing.
 */
static sp_pick
sp_tool_names(const box_config_process *tool, const char *operator_path,
              const sh_spawn_found *prog)
{
    sh_spawn_found f;
    sp_pick pick;
    int rv;

    rv = sh_spawn_locate(box_procspec_path(tool, operator_path), NULL,
                         tool->pr_command.sv_items[0], &f);
    if (rv == ENOMEM)
        return SP_PICK_ERROR;
    if (rv != 0)
        return SP_PICK_NONE;
    pick = strcmp(f.sf_path, prog->sf_path) == 0 ||
                   (f.sf_dev == prog->sf_dev && f.sf_ino == prog->sf_ino)
               ? SP_PICK_NAMED
               : SP_PICK_NONE;
    sh_spawn_found_free(&f);
    return pick;
}

/* command[1..] equals argv[1..] as leading arguments. (`${NAME}` expansion
 * of the OTLP names waits for the telemetry endpoints; until then such an
 * argument is compared as written.) */
static bool
sp_args_match(const box_config_process *tool, int argc, char *const *argv)
{
    size_t fixed = tool->pr_command.sv_len - 1;

    if (fixed > (size_t)(argc > 0 ? argc - 1 : 0))
        return false;
    for (size_t i = 0; i < fixed; i++) {
        if (strcmp(tool->pr_command.sv_items[i + 1], argv[i + 1]) != 0)
            return false;
    }
    return true;
}

/* Step 1: the longest matching command among the tools naming the file. */
static sp_pick
sp_pick_tool(const box_config *cfg, const char *operator_path,
             const sh_spawn_found *prog, int argc, char *const *argv,
             const box_config_process **out)
{
    sp_pick best = SP_PICK_NONE;

    for (size_t i = 0; i < box_config_tool_count(cfg); i++) {
        const box_config_process *t = box_config_tool(cfg, i);
        sp_pick p = sp_tool_names(t, operator_path, prog);
        if (p == SP_PICK_ERROR)
            return p;
        if (p == SP_PICK_NONE)
            continue;
        if (!sp_args_match(t, argc, argv)) {
            if (best == SP_PICK_NONE)
                best = SP_PICK_NAMED;
            continue;
        }
        if (best != SP_PICK_MATCH ||
            t->pr_command.sv_len > (*out)->pr_command.sv_len) {
            *out = t;
            best = SP_PICK_MATCH;
        }
    }
    return best;
}

/*
 * One list entry against the program: SP_PICK_MATCH when the entry is the
 * file itself (by identity) or a directory above it. *unresolved is set
 * when the entry does not resolve at all.
 */
static sp_pick
sp_entry_covers(const char *entry, const char *home, const sh_spawn_found *prog,
                bool *unresolved)
{
    char *exp = box_procspec_expand(entry, home), *canon = NULL;
    struct stat st;
    sp_pick pick = SP_PICK_NONE;
    int rv;

    *unresolved = false;
    if (exp == NULL)
        return SP_PICK_ERROR;
    rv = sp_canon(exp, &canon, &st);
    if (rv == ENOMEM) {
        pick = SP_PICK_ERROR;
        goto out;
    }
    if (rv != 0) {
        *unresolved = true;
        goto out;
    }
    if (S_ISDIR(st.st_mode)
            ? sp_covers(canon, prog->sf_path)
            : st.st_dev == prog->sf_dev && st.st_ino == prog->sf_ino)
        pick = SP_PICK_MATCH;
out:
    box_free(canon);
    box_free(exp);
    return pick;
}

/*
 * Step 2: the agent's exec list admits the file and no deny entry covers
 * it. A deny that cannot be resolved refuses: it might have covered it.
 */
static sp_pick
sp_pick_agent(const box_config_process *agent, const char *home,
              const sh_spawn_found *prog)
{
    const box_config_strv *exec = &agent->pr_fs[BOX_GRANT_EXEC];
    const box_config_strv *deny = &agent->pr_fs[BOX_GRANT_DENY];
    sp_pick admitted = SP_PICK_NONE;
    bool unresolved;

    for (size_t i = 0; i < exec->sv_len && admitted == SP_PICK_NONE; i++)
        admitted = sp_entry_covers(exec->sv_items[i], home, prog, &unresolved);
    if (admitted != SP_PICK_MATCH)
        return admitted;
    for (size_t i = 0; i < deny->sv_len; i++) {
        sp_pick p = sp_entry_covers(deny->sv_items[i], home, prog, &unresolved);
        if (p != SP_PICK_NONE || unresolved)
            return p == SP_PICK_ERROR ? p : SP_PICK_NONE;
    }
    return SP_PICK_MATCH;
}

/* The plan record: copies of everything the run reads besides the spec. */
static box_err
sp_plan_new(const box_config_process *spec, const char *operator_path,
            const char *home, const sh_spawn_found *prog, int argc,
            char *const *argv, sh_spawn_plan **out)
{
    sh_spawn_plan *p = box_calloc(1, sizeof *p);

    if (p == NULL)
        return BOX_ENOMEM;
    p->pn_spec = spec;
    p->pn_dev = prog->sf_dev;
    p->pn_ino = prog->sf_ino;
    p->pn_argc = argc;
    p->pn_path = box_strdup(prog->sf_path);
    p->pn_home = box_strdup(home);
    p->pn_search = operator_path != NULL ? box_strdup(operator_path) : NULL;
    p->pn_argv = box_calloc((size_t)argc + 1, sizeof *p->pn_argv);
    if (p->pn_path == NULL || p->pn_home == NULL || p->pn_argv == NULL ||
        (operator_path != NULL && p->pn_search == NULL))
        goto fail;
    for (int i = 0; i < argc; i++) {
        p->pn_argv[i] = box_strdup(i == 0 ? prog->sf_argv0 : argv[i]);
        if (p->pn_argv[i] == NULL)
            goto fail;
    }
    *out = p;
    return BOX_OK;
fail:
    sh_spawn_plan_free(p);
    return BOX_ENOMEM;
}

box_err
sh_spawn_select(const box_config *cfg, const char *operator_path,
                const char *operator_home, const sh_spawn_found *prog, int argc,
                char *const *argv, sh_spawn_plan **out, char **err)
{
    const box_config_process *spec = NULL;
    const box_config_process *agent;
    sp_pick pick;
    char *shown;

    *out = NULL;
    *err = NULL;
    if (cfg == NULL || operator_home == NULL || prog == NULL ||
        prog->sf_path == NULL || prog->sf_argv0 == NULL || argc < 1 ||
        argv == NULL)
        return BOX_EINVAL;
    pick = sp_pick_tool(cfg, operator_path, prog, argc, argv, &spec);
    if (pick == SP_PICK_NONE && (agent = box_config_agent(cfg)) != NULL) {
        pick = sp_pick_agent(agent, operator_home, prog);
        spec = agent;
    }
    if (pick == SP_PICK_ERROR)
        return BOX_ENOMEM;
    if (pick == SP_PICK_MATCH)
        return sp_plan_new(spec, operator_path, operator_home, prog, argc, argv,
                           out);
    if ((shown = sp_report(prog->sf_path, operator_home)) == NULL)
        return BOX_ENOMEM;
    *err = box_asprintf("no tool runs %s: no `[tool.<name>] command` matches "
                        "this program and its leading arguments",
                        shown);
    box_free(shown);
    return *err != NULL ? BOX_EDENIED : BOX_ENOMEM;
}

const box_config_process *
sh_spawn_plan_spec(const sh_spawn_plan *p)
{
    return p->pn_spec;
}

void
sh_spawn_plan_free(sh_spawn_plan *p)
{
    if (p == NULL)
        return;
    for (int i = 0; p->pn_argv != NULL && i < p->pn_argc; i++)
        box_free(p->pn_argv[i]);
    box_free(p->pn_argv);
    box_free(p->pn_path);
    box_free(p->pn_home);
    box_free(p->pn_search);
    box_free(p);
}
