/* SPDX-License-Identifier: Apache-2.0 */
/* pwd and cd: the session cwd (lexical until the kernel lands). */
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_internal.h"

int
sh_bi_pwd(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    if (sh_puts(cx, 1, cx->cx_st->st_cwd) != SH_IO_OK ||
        sh_puts(cx, 1, "\n") != SH_IO_OK)
        return 1;
    return 0;
}

/* Joins path to cwd (when relative) and folds "." and ".." lexically. */
static char *
fold_path(const char *cwd, const char *path)
{
    box_buf in;
    box_buf_init(&in, 1u << 16);
    if ((path[0] != '/' && (box_buf_puts(&in, cwd) != BOX_OK ||
                            box_buf_putc(&in, '/') != BOX_OK)) ||
        box_buf_puts(&in, path) != BOX_OK) {
        box_buf_reset(&in);
        return NULL;
    }
    char *out = box_alloc(in.b_len + 2);
    if (out == NULL) {
        box_buf_reset(&in);
        return NULL;
    }
    size_t n = 0;
    const char *s = in.b_data;
    while (*s) {
        while (*s == '/')
            s++;
        const char *e = s;
        while (*e && *e != '/')
            e++;
        size_t len = (size_t)(e - s);
        if (len == 0 || (len == 1 && s[0] == '.')) {
            // nothing
        } else if (len == 2 && s[0] == '.' && s[1] == '.') {
            while (n > 0 && out[n - 1] != '/')
                n--;
            if (n > 0)
                n--;
        } else {
            out[n++] = '/';
            memcpy(out + n, s, len);
            n += len;
        }
        s = e;
    }
    if (n == 0)
        out[n++] = '/';
    out[n] = '\0';
    box_buf_reset(&in);
    return out;
}

/*
 * cd [dir]: changes the session cwd only (HOME when no operand, OLDPWD
 * for "-", printed). Any absolute or relative path is accepted lexically
 * ("." and ".." folded, no symlinks): the kernel layer will add the
 * fs:read change_dir check and the existence test (spec §3.6).
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
    char *nd = fold_path(st->st_cwd, dir);
    if (nd == NULL)
        return sh_cmd_err(cx, "cd", 1, "out of memory");
    if (sh_var_set(st, "OLDPWD", st->st_cwd, strlen(st->st_cwd)) != BOX_OK ||
        sh_var_set(st, "PWD", nd, strlen(nd)) != BOX_OK) {
        box_free(nd);
        return sh_cmd_err(cx, "cd", 1, "out of memory");
    }
    box_free(st->st_cwd);
    st->st_cwd = nd;
    if (print &&
        (sh_puts(cx, 1, nd) != SH_IO_OK || sh_puts(cx, 1, "\n") != SH_IO_OK))
        return 1;
    return 0;
}
