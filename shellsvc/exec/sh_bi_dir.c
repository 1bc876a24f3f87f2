/* SPDX-License-Identifier: Apache-2.0 */
/* pwd and cd: the session cwd, changed only through the kernel. */
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_internal.h"

#define SH_PATH_MAX_LOGICAL 4096 // a logical cwd longer than PATH_MAX

const char *
sh_cwd_logical(const sh_state *st)
{
    return st->st_lcwd != NULL ? st->st_lcwd : st->st_cwd;
}

/* pwd [-LP]: the logical cwd, or with -P the canonical one. */
int
sh_bi_pwd(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    const char *cwd =
        sh_opt(o, 'P') ? cx->cx_st->st_cwd : sh_cwd_logical(cx->cx_st);
    if (sh_puts(cx, 1, cwd) != SH_IO_OK || sh_puts(cx, 1, "\n") != SH_IO_OK)
        return 1;
    return 0;
}

/*
 * cd [-L|-P] [dir]: changes the session cwd only (HOME when no operand,
 * OLDPWD for "-", printed). The kernel decides fs:read change_dir and
 * resolves the directory (spec §3.6); the cwd every path is taken from is
 * its canonical path, and pwd and $PWD show the logical one (-L, bash's
 * default) or that canonical one (-P).
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
    int rc = sh_chdir(cx, "cd", dir, sh_opt(o, 'P'));
    if (rc != 0)
        return rc;
    if (print && (sh_puts(cx, 1, sh_cwd_logical(st)) != SH_IO_OK ||
                  sh_puts(cx, 1, "\n") != SH_IO_OK))
        return 1;
    return 0;
}

/* dir taken from the logical cwd base by name: `.` dropped, `..` the
 * component before it, as bash's cd -L does; NULL when out of memory. */
static char *
logical_path(const char *base, const char *dir)
{
    box_buf b;
    box_buf_init(&b, SH_PATH_MAX_LOGICAL);
    if (dir[0] != '/' && box_buf_puts(&b, base) != BOX_OK)
        goto fail;
    const char *p = dir;
    while (*p != '\0') {
        while (*p == '/')
            p++;
        size_t n = strcspn(p, "/");
        if (n == 0)
            break;
        if (n == 2 && p[0] == '.' && p[1] == '.') {
            char *slash = b.b_len > 0 ? strrchr(b.b_data, '/') : NULL;
            box_buf_truncate(&b,
                             slash != NULL ? (size_t)(slash - b.b_data) : 0);
        } else if (!(n == 1 && p[0] == '.') &&
                   (box_buf_putc(&b, '/') != BOX_OK ||
                    box_buf_append(&b, p, n) != BOX_OK)) {
            goto fail;
        }
        p += n;
    }
    if (b.b_len == 0 && box_buf_putc(&b, '/') != BOX_OK)
        goto fail;
    return box_buf_take(&b);
fail:
    box_buf_reset(&b);
    return NULL;
}

int
sh_chdir(sh_ctx *cx, const char *cmd, const char *dir, bool physical)
{
    sh_state *st = cx->cx_st;
    char *nd = NULL, *want = NULL;
    sh_kernel_result r = {0};
    if (!physical && (want = logical_path(sh_cwd_logical(st), dir)) == NULL)
        return sh_cmd_err(cx, cmd, 1, "out of memory");
    int rc = sh_kernel_chdir(sh_kern(cx), st->st_cwd, want != NULL ? want : dir,
                             &nd, &r);
    if (rc != 0 && want != NULL && r.kr_outcome == SH_KR_OS_ERROR) {
        // bash: when the logical path is no directory, the name as given
        // is tried physically.
        sh_kernel_result_clear(&r);
        box_free(want);
        want = NULL;
        rc = sh_kernel_chdir(sh_kern(cx), st->st_cwd, dir, &nd, &r);
    }
    if (rc != 0) {
        box_free(want);
        return sh_fs_fail(cx, cmd, dir, &r);
    }
    sh_kernel_result_clear(&r);
    const char *shown = want != NULL ? want : nd;
    if (sh_var_set(st, "OLDPWD", sh_cwd_logical(st),
                   strlen(sh_cwd_logical(st))) != BOX_OK ||
        sh_var_set(st, "PWD", shown, strlen(shown)) != BOX_OK) {
        box_free(nd);
        box_free(want);
        return sh_cmd_err(cx, cmd, 1, "out of memory");
    }
    box_free(st->st_cwd);
    st->st_cwd = nd;
    box_free(st->st_lcwd);
    st->st_lcwd = want;
    return 0;
}
