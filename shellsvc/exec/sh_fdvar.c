/* SPDX-License-Identifier: Apache-2.0 */
/* {var}> redirections: the shell picks the fd and names it in a var. */
#include <stdio.h>
#include <string.h>

#include "sh_internal.h"

/*
 * bash's {var}>file, {var}<file, {var}>>file, {var}<>file, {var}>&N: the
 * lowest free fd from 10 gets the stream and var its number; the fd stays
 * open after the command (bash 5.2, varredir_close off), so the script
 * closes it with {var}>&- or exec N>&-. The executor (redirs_apply) opens
 * the stream as for any redirection and installs it without a restore.
 */

#define SH_FDVAR_FIRST 10

/* {var}>&- closes the fd var names. bash: unset or empty is an ambiguous
 * redirect; a value that is no fd number (or no open fd) does nothing. */
static int
fdvar_close(sh_ctx *cx, const char *name)
{
    const char *v = sh_var_get(cx->cx_st, name);
    if (v == NULL || v[0] == '\0') {
        sh_errf(cx, "%s: ambiguous redirect", name);
        return 1;
    }
    long n = 0;
    for (const char *p = v; *p != '\0'; p++) {
        if (*p < '0' || *p > '9' || n >= SH_MAX_FD)
            return 0;
        n = n * 10 + (*p - '0');
    }
    if (n < SH_MAX_FD) {
        sh_stream_unref(cx->cx_fd[n]);
        cx->cx_fd[n] = NULL;
    }
    return 0;
}

int
sh_fdvar_redir(sh_ctx *cx, const sh_redir *r, int *fd)
{
    const sh_word *t = r->r_target;
    bool dup = r->r_kind == SH_R_DUPIN || r->r_kind == SH_R_DUPOUT;
    if (dup && t != NULL && t->w_rawlen == 1 && t->w_raw[0] == '-') {
        *fd = -1;
        return fdvar_close(cx, r->r_fdvar);
    }
    for (int i = SH_FDVAR_FIRST; i < SH_MAX_FD; i++) {
        if (cx->cx_fd[i] == NULL) {
            *fd = i;
            return 0;
        }
    }
    sh_errf(cx, "%s: cannot allocate a file descriptor: Too many open files",
            r->r_fdvar);
    return 1;
}

int
sh_fdvar_assign(sh_ctx *cx, const char *name, int fd)
{
    char num[16];
    snprintf(num, sizeof num, "%d", fd);
    if (sh_assign_str(cx, NULL, name, NULL, num, strlen(num), false) == 0)
        return 0;
    sh_errf(cx, "%s: cannot assign fd to variable", name);
    return 1;
}
