/* SPDX-License-Identifier: Apache-2.0 */
/* pwd and cd: the session cwd, changed only through the kernel. */
#include <string.h>

#include "box_alloc.h"
#include "sh_internal.h"

int
sh_bi_pwd(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    if (sh_puts(cx, 1, cx->cx_st->st_cwd) != SH_IO_OK ||
        sh_puts(cx, 1, "\n") != SH_IO_OK)
        return 1;
    return 0;
}

/*
 * cd [dir]: changes the session cwd only (HOME when no operand, OLDPWD
 * for "-", printed). The kernel decides fs:read change_dir and resolves
 * the directory (spec §3.6); the new cwd is its canonical path.
 */
int
sh_bi_cd(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    sh_state *st = cx->cx_st;
    const char *dir = o->o_ind < argc ? argv[o->o_ind] : NULL;
    bool print = false;
    if (o->o_ind + 1 < argc)
        return sh_cmd_err(cx, "cd", 1, "too many arguments");
    if (dir == NULL && (dir = sh_var_get(st, "HOME")) == NULL)
        return sh_cmd_err(cx, "cd", 1, "HOME not set");
    if (strcmp(dir, "-") == 0) {
        if ((dir = sh_var_get(st, "OLDPWD")) == NULL)
            return sh_cmd_err(cx, "cd", 1, "OLDPWD not set");
        print = true;
    }
    if (dir[0] == '\0')
        return sh_cmd_err(cx, "cd", 1, "null directory");
    int rc = sh_chdir(cx, "cd", dir);
    if (rc != 0)
        return rc;
    if (print && (sh_puts(cx, 1, st->st_cwd) != SH_IO_OK ||
                  sh_puts(cx, 1, "\n") != SH_IO_OK))
        return 1;
    return 0;
}

int
sh_chdir(sh_ctx *cx, const char *cmd, const char *dir)
{
    sh_state *st = cx->cx_st;
    char *nd = NULL;
    sh_kernel_result r = {0};
    if (sh_kernel_chdir(sh_kern(cx), st->st_cwd, dir, &nd, &r) != 0)
        return sh_fs_fail(cx, cmd, dir, &r);
    sh_kernel_result_clear(&r);
    if (sh_var_set(st, "OLDPWD", st->st_cwd, strlen(st->st_cwd)) != BOX_OK ||
        sh_var_set(st, "PWD", nd, strlen(nd)) != BOX_OK) {
        box_free(nd);
        return sh_cmd_err(cx, cmd, 1, "out of memory");
    }
    box_free(st->st_cwd);
    st->st_cwd = nd;
    return 0;
}
