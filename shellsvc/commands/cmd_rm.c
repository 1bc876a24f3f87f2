/* SPDX-License-Identifier: Apache-2.0 */
/* rm [-rRf] path...: removal through the kernel, one decision per entry. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "sh_internal.h"

/* Recursion is bounded by the path length anyway (4096 bytes); the cap
 * keeps the C stack of a pipeline-stage thread safe whatever the kernel's
 * path limit becomes. */
#define RM_MAX_DEPTH 512

typedef struct rm_run {
    sh_ctx *rr_cx;
    bool rr_force;
    bool rr_recursive;
} rm_run;

/* Reports a failed removal; under -f a missing path is silent (GNU). A
 * denial or fault is never ENOENT here, so -f cannot hide it. */
static int
rm_fail(rm_run *rr, const char *path, sh_kernel_result *r)
{
    if (rr->rr_force && r->kr_outcome == SH_KR_OS_ERROR &&
        r->kr_errno == ENOENT) {
        sh_kernel_result_clear(r);
        return 0;
    }
    return sh_fs_fail(rr->rr_cx, "rm", path, r);
}

/* fs:delete remove_file (the leaf is not followed: a link goes, not its
 * target). A directory answers "Is a directory". */
static int
rm_unlink(rm_run *rr, const char *path)
{
    sh_ctx *cx = rr->rr_cx;
    sh_kernel_result r = {0};
    if (sh_kernel_unlink(sh_kern(cx), cx->cx_st->st_cwd, path, &r) != 0)
        return rm_fail(rr, path, &r);
    sh_kernel_result_clear(&r);
    return 0;
}

static int rm_tree(rm_run *rr, const char *path, unsigned depth);

static int
cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * A directory under -r: fs:read enumerate, each entry (sorted, so the
 * decisions come in a stable order), then fs:delete remove_dir. When an
 * entry could not be removed the directory is left without asking (it
 * is not empty; GNU says nothing more either). Returns 0, 1 or 125.
 */
static int
rm_dir(rm_run *rr, const char *path, unsigned depth)
{
    sh_ctx *cx = rr->rr_cx;
    sh_kernel_result r = {0};
    char **names = NULL;
    size_t n = 0;
    int status = 0;
    if (depth >= RM_MAX_DEPTH)
        return sh_cmd_err(cx, "rm", 1, "%s: directory tree too deep", path);
    if (sh_kernel_list(sh_kern(cx), cx->cx_st->st_cwd, path, &names, &n, &r) !=
        0)
        return rm_fail(rr, path, &r);
    sh_kernel_result_clear(&r);
    if (n > 1)
        qsort(names, n, sizeof *names, cmp_names);
    size_t pl = strlen(path);
    bool slash = pl > 0 && path[pl - 1] == '/';
    for (size_t i = 0; i < n && status != BOX_STATUS_FAULT; i++) {
        if (sh_check_stop(cx)) {
            status = cx->cx_status;
            goto out;
        }
        char *child = box_asprintf("%s%s%s", path, slash ? "" : "/", names[i]);
        int rc = child ? rm_tree(rr, child, depth + 1)
                       : sh_cmd_err(cx, "rm", 1, "out of memory");
        box_free(child);
        if (rc != 0)
            status = rc == BOX_STATUS_FAULT ? BOX_STATUS_FAULT : 1;
    }
    if (status != 0)
        goto out;
    if (sh_kernel_rmdir(sh_kern(cx), cx->cx_st->st_cwd, path, &r) != 0)
        status = rm_fail(rr, path, &r);
    sh_kernel_result_clear(&r);
out:
    sh_kernel_names_free(names, n);
    return status;
}

/*
 * One path under -r: fs:read read_metadata (lstat, not followed) says
 * whether it is a directory to descend into or anything else to unlink.
 * A denied probe answers "absent" without a message; rather than claim
 * the path is missing we ask the remove_file question, whose answer
 * (the denial, or "Is a directory") speaks for itself.
 */
static int
rm_tree(rm_run *rr, const char *path, unsigned depth)
{
    sh_ctx *cx = rr->rr_cx;
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    if (sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd, path, &st, &r) != 0) {
        if (r.kr_outcome != SH_KR_DENIED)
            return rm_fail(rr, path, &r);
        sh_kernel_result_clear(&r);
        return rm_unlink(rr, path);
    }
    sh_kernel_result_clear(&r);
    if (S_ISDIR(st.ks_mode))
        return rm_dir(rr, path, depth);
    return rm_unlink(rr, path);
}

/* The last component of s with trailing slashes ignored is "." or "..". */
static bool
is_dot_operand(const char *s)
{
    size_t l = strlen(s);
    while (l > 1 && s[l - 1] == '/')
        l--;
    size_t b = l;
    while (b > 0 && s[b - 1] != '/')
        b--;
    return (l - b == 1 && s[b] == '.') ||
           (l - b == 2 && s[b] == '.' && s[b + 1] == '.');
}

/* Operands GNU refuses before touching anything: no decision is asked. */
static int
rm_refused(rm_run *rr, const char *s)
{
    sh_ctx *cx = rr->rr_cx;
    if (s[0] == '\0') // the kernel would read "" as the cwd
        return rr->rr_force ? 0
                            : sh_cmd_err(cx, "rm", 1, ": %s", strerror(ENOENT));
    if (strspn(s, "/") == strlen(s))
        return rr->rr_recursive
                   ? sh_cmd_err(cx, "rm", 1,
                                "it is dangerous to operate recursively on "
                                "'/'")
                   : sh_cmd_err(cx, "rm", 1, "%s: %s", s, strerror(EISDIR));
    if (is_dot_operand(s))
        return sh_cmd_err(cx, "rm", 1,
                          "refusing to remove '.' or '..' directory: %s", s);
    return -1;
}

/*
 * rm [-rRf] path...: box-spec §3.6. Without -r each operand is one
 * fs:delete remove_file (a directory fails "Is a directory"). With -r
 * each path is probed (read_metadata), directories are listed
 * (enumerate) and emptied depth-first, one delete decision per entry.
 * -f: missing operands are silent, and no operand is not an error.
 */
int
sh_cmd_rm(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    rm_run rr = {
        .rr_cx = cx,
        .rr_force = sh_opt(o, 'f'),
        .rr_recursive = sh_opt(o, 'r') || sh_opt(o, 'R'),
    };
    int status = 0;
    if (o->o_ind >= argc)
        return rr.rr_force ? 0 : sh_cmd_err(cx, "rm", 1, "missing operand");
    for (int i = o->o_ind; i < argc; i++) {
        if (sh_check_stop(cx))
            return cx->cx_status;
        int rc = rm_refused(&rr, argv[i]);
        if (rc < 0)
            rc = rr.rr_recursive ? rm_tree(&rr, argv[i], 0)
                                 : rm_unlink(&rr, argv[i]);
        if (rc == BOX_STATUS_FAULT)
            return BOX_STATUS_FAULT;
        if (rc != 0)
            status = 1;
    }
    return sh_check_stop(cx) ? cx->cx_status : status;
}
