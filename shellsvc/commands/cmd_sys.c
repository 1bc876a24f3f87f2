/* SPDX-License-Identifier: Apache-2.0 */
/* The environment a program sees, and running a command as env and
 * timeout exec one (cmd_sys.h). */
#include "cmd_sys.h"

#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "box_status.h"
#include "sh_gopt.h"

bool
sh_sys_exported(const sh_var *v)
{
    return (v->v_flags & SH_VAR_EXPORT) && v->v_value != NULL &&
           !(v->v_flags & (SH_VAR_ARRAY | SH_VAR_ASSOC));
}

const char *
sh_sys_getenv(const sh_ctx *cx, const char *name)
{
    const sh_var *v = sh_var_find(cx->cx_st, name);
    return v != NULL && sh_sys_exported(v) ? v->v_value : NULL;
}

void
sh_sys_program_state(sh_ctx *sub)
{
    sh_state *st = sub->cx_st;
    st->st_ps_stale = false; // not exported: no program has PIPESTATUS
    for (size_t i = st->st_nvars; i-- > 0;) {
        sh_var *v = &st->st_vars[i];
        if (!sh_sys_exported(v)) {
            char *name = box_strdup(v->v_name);
            if (name != NULL)
                sh_var_unset(st, name);
            box_free(name);
            continue;
        }
        v->v_flags &=
            ~(SH_VAR_READONLY | SH_VAR_INTEGER | SH_VAR_LOWER | SH_VAR_UPPER);
    }
}

/*
 * Builtins of this shell that a Debian system also has as programs on
 * PATH (coreutils' echo, printf, test …; the shells): `env echo hi` runs
 * them. The rows marked SH_CMD_PROGRAM are programs already; any other
 * builtin (cd, export, read …) is no file env could exec.
 */
static const char *const sys_also_programs[] = {
    "[",      "bash", "dash", "echo", "false", "lash",
    "printf", "pwd",  "sh",   "test", "true",  "zsh",
};

static bool
sys_is_program(const sh_cmd *c)
{
    if (c->c_mode & SH_CMD_PROGRAM)
        return true;
    for (size_t i = 0;
         i < sizeof sys_also_programs / sizeof sys_also_programs[0]; i++)
        if (strcmp(sys_also_programs[i], c->c_name) == 0)
            return true;
    return false;
}

/* GNU's message for an exec that failed with err, and its status. */
static int
sys_cannot_run(sh_ctx *cx, sh_sys_who who, const char *name, int err)
{
    char *q = sh_gquote(name);
    const char *shown = q != NULL ? q : name;
    if (who == SH_SYS_ENV)
        sh_errf(cx, "env: %s: %s", shown, strerror(err));
    else
        sh_errf(cx, "timeout: failed to run command %s: %s", shown,
                strerror(err));
    box_free(q);
    return err == ENOENT ? BOX_STATUS_NOT_FOUND : 126;
}

/*
 * Whether word names nothing exec could run: 0 when something may, else
 * the errno exec would give. A bare name is looked up as run_argv would
 * (registry, then a host program on the trusted PATH); a `/`-spelled
 * word is asked of the kernel (fs:read probes: a denial reads as
 * absent, as every probe does).
 */
static int
sys_missing(sh_ctx *cx, const char *word)
{
    if (strchr(word, '/') == NULL) {
        const sh_cmd *c = sh_cmd_find(cx->cx_st, word);
        if (c != NULL)
            return sys_is_program(c) ? 0 : ENOENT;
        sh_host_bind hb = {0};
        int err = sh_host_locate(cx, word, true, &hb);
        bool host = hb.hb_host;
        sh_host_bind_clear(&hb);
        if (err == ENOMEM)
            return 0; // sh_exec_argv reports it
        return host ? 0 : ENOENT;
    }
    sh_kernel_stat ks;
    sh_kernel_result r = {0};
    int err =
        sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, word, &ks, &r);
    bool fault = r.kr_outcome == SH_KR_FAULT;
    sh_kernel_result_clear(&r);
    if (fault)
        return 0; // admission reports the fault
    if (err != 0)
        return err == ENOTDIR ? ENOTDIR : ENOENT;
    if (!S_ISREG(ks.ks_mode))
        return EACCES;
    err = sh_kernel_probe_exec(sh_kern(cx), cx->cx_st->st_cwd, word, &r);
    sh_kernel_result_clear(&r);
    return err == 0 ? 0 : EACCES;
}

int
sh_sys_run(sh_ctx *sub, sh_sys_who who, int argc, char **argv)
{
    // A word nothing could run is said before any admission: there is no
    // effect to decide, and GNU's text names the exec that failed.
    int err = sys_missing(sub, argv[0]);
    if (err != 0)
        return sys_cannot_run(sub, who, argv[0], err);
    return sh_exec_argv(sub, argc, argv, NULL, true);
}
