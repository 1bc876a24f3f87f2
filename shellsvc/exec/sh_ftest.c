/* SPDX-License-Identifier: Apache-2.0 */
/* File tests shared by test / [ and [[ ]]: every probe through the kernel. */
#include "sh_ftest.h"

#include <string.h>
#include <sys/stat.h>

/*
 * One implementation for both commands, so that a file test means the
 * same in `[ -f x ]` and `[[ -f x ]]` and is decided the same way. The
 * readable / writable tests only ask that the file exists: whether it
 * may be read or written is the policy's decision at the real use.
 */

bool
sh_ftest_is_unary(char op)
{
    return op != '\0' && strchr("efdLhrwxsbcpSugkGOa", op) != NULL;
}

/* Stats path (lstat when !follow): TRUE with *st filled, FALSE when
 * absent, denied or failed. */
static sh_ftest
ft_stat(sh_ctx *cx, const char *who, const char *path, bool follow,
        sh_kernel_stat *st)
{
    sh_kernel_result r = {0};
    int err =
        follow
            ? sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, path, st, &r)
            : sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd, path, st, &r);
    if (r.kr_outcome == SH_KR_FAULT) {
        (void)sh_fs_fail(cx, who, path, &r);
        return SH_FT_FAULT;
    }
    sh_kernel_result_clear(&r);
    return err == 0 ? SH_FT_TRUE : SH_FT_FALSE;
}

static sh_ftest
ft_bool(bool v)
{
    return v ? SH_FT_TRUE : SH_FT_FALSE;
}

/* -x: the exec probe; a directory is searchable, so true as in sh. */
static sh_ftest
ft_exec(sh_ctx *cx, const char *who, const char *path)
{
    sh_kernel_result r = {0};
    int err =
        sh_kernel_probe_exec(sh_kern(cx), cx->cx_st->st_cwd, path, &r);
    if (r.kr_outcome == SH_KR_FAULT) {
        (void)sh_fs_fail(cx, who, path, &r);
        return SH_FT_FAULT;
    }
    sh_kernel_result_clear(&r);
    if (err == 0)
        return SH_FT_TRUE;
    sh_kernel_stat st;
    sh_ftest f = ft_stat(cx, who, path, true, &st);
    return f == SH_FT_TRUE ? ft_bool(S_ISDIR(st.ks_mode)) : f;
}

/* /dev/fd/N, /dev/stdin … naming an open shell fd: what bash's stat of
 * the descriptor says — a pipe end (process substitution) is a FIFO, a
 * file the kernel opened a regular file, /dev/null a character device. */
static sh_ftest
ft_devfd(const sh_ctx *cx, char op, int fd)
{
    sh_stream_kind k = sh_stream_kind_of(cx->cx_fd[fd]);
    switch (op) {
    case 'e':
    case 'a':
    case 'r':
    case 'w': return SH_FT_TRUE;
    case 'p': return ft_bool(k == SH_ST_FD);
    case 'f': return ft_bool(k == SH_ST_FILE);
    case 'c': return ft_bool(k == SH_ST_NULL);
    default: return SH_FT_FALSE;
    }
}

sh_ftest
sh_ftest_unary(sh_ctx *cx, const char *who, char op, const char *path)
{
    int dfd = sh_devfd(cx, path);
    if (dfd >= 0)
        return ft_devfd(cx, op, dfd);
    if (op == 'x')
        return ft_exec(cx, who, path);
    sh_kernel_stat st;
    sh_ftest f = ft_stat(cx, who, path, op != 'L' && op != 'h', &st);
    if (f != SH_FT_TRUE)
        return f;
    switch (op) {
    case 'f': return ft_bool(S_ISREG(st.ks_mode));
    case 'd': return ft_bool(S_ISDIR(st.ks_mode));
    case 'L':
    case 'h': return ft_bool(S_ISLNK(st.ks_mode));
    case 's': return ft_bool(st.ks_size > 0);
    case 'b': return ft_bool(S_ISBLK(st.ks_mode));
    case 'c': return ft_bool(S_ISCHR(st.ks_mode));
    case 'p': return ft_bool(S_ISFIFO(st.ks_mode));
    case 'S': return ft_bool(S_ISSOCK(st.ks_mode));
    case 'u': return ft_bool((st.ks_mode & S_ISUID) != 0);
    case 'g': return ft_bool((st.ks_mode & S_ISGID) != 0);
    case 'k': return ft_bool((st.ks_mode & S_ISVTX) != 0);
    default: return SH_FT_TRUE; // -e -a -r -w -G -O: it exists
    }
}

sh_ftest
sh_ftest_binary(sh_ctx *cx, const char *who, const char *l, const char *op,
                const char *r)
{
    sh_kernel_stat a, b;
    sh_ftest fa = ft_stat(cx, who, l, true, &a);
    if (fa == SH_FT_FAULT)
        return fa;
    sh_ftest fb = ft_stat(cx, who, r, true, &b);
    if (fb == SH_FT_FAULT)
        return fb;
    bool ha = fa == SH_FT_TRUE, hb = fb == SH_FT_TRUE;
    if (strcmp(op, "-ef") == 0)
        return ft_bool(ha && hb && a.ks_dev == b.ks_dev &&
                       a.ks_ino == b.ks_ino);
    if (strcmp(op, "-nt") == 0)
        return ft_bool(ha && (!hb || a.ks_mtime > b.ks_mtime));
    return ft_bool(hb && (!ha || a.ks_mtime < b.ks_mtime));
}
