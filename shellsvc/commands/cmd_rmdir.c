/* SPDX-License-Identifier: Apache-2.0 */
/* rmdir [-pv] [--ignore-fail-on-non-empty] DIRECTORY...: GNU coreutils 9.1;
 * each removal an fs:delete remove_dir decision. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_files.h"
#include "sh_gopt.h"

enum { RMDIR_IGNORE = SH_GOPT_LONG_ONLY };

static const sh_gopt rmdir_opts[] = {
    {'p', "parents", SH_GARG_NONE},
    {'v', "verbose", SH_GARG_NONE},
    {RMDIR_IGNORE, "ignore-fail-on-non-empty", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec rmdir_spec = {
    .gs_cmd = "rmdir",
    .gs_opts = rmdir_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: rmdir [OPTION]... DIRECTORY...\n"
        "Remove the DIRECTORY(ies), if they are empty.\n"
        "\n"
        "      --ignore-fail-on-non-empty\n"
        "                    ignore each failure that is solely because a d"
        "irectory\n"
        "                    is non-empty\n"
        "\n"
        "  -p, --parents     remove DIRECTORY and its ancestors; e.g., 'rmd"
        "ir -p a/b/c'\n"
        "                    is similar to 'rmdir a/b/c a/b a'\n"
        "\n"
        "  -v, --verbose     output a diagnostic for every directory proces"
        "sed\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

typedef struct rmdir_run {
    sh_ctx *rr_cx;
    bool rr_verbose, rr_ignore;
    bool rr_parents; // -p
} rmdir_run;

/*
 * One removal. The kernel's remove_dir follows a final link (box-spec
 * §3.6), where rmdir(2) refuses one: a link is probed first (lstat,
 * read_metadata) and answered "Not a directory" without asking.
 * Returns 0, or the errno value with r holding the failure (r is clear
 * for the link case).
 */
static int
rmdir_try(rmdir_run *rr, const char *path, sh_kernel_result *r)
{
    sh_ctx *cx = rr->rr_cx;
    sh_kernel_stat st;
    if (path[0] == '\0')
        return ENOENT;
    if (sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd, path, &st, r) == 0 &&
        S_ISLNK(st.ks_mode)) {
        sh_kernel_result_clear(r);
        return ENOTDIR;
    }
    if (r->kr_outcome == SH_KR_FAULT)
        return EIO;
    sh_kernel_result_clear(r);
    if (rr->rr_verbose &&
        !cmd_say(cx, "rmdir: removing directory, ", path, NULL, NULL))
        return EIO;
    if (sh_kernel_rmdir(sh_kern(cx), cx->cx_st->st_cwd, path, r) != 0)
        return r->kr_errno ? r->kr_errno : EIO;
    sh_kernel_result_clear(r);
    return 0;
}

/* Reports a failed removal (what is "failed to remove 'd'" or "failed
 * to remove directory 'd'"), unless it is only that the directory is
 * not empty and that is to be ignored. */
static int
rmdir_fail(rmdir_run *rr, const char *what, const char *path, int err,
           sh_kernel_result *r)
{
    if (rr->rr_ignore && r->kr_outcome != SH_KR_DENIED &&
        r->kr_outcome != SH_KR_FAULT && r->kr_outcome != SH_KR_FLOOR &&
        (err == ENOTEMPTY || err == EEXIST)) {
        sh_kernel_result_clear(r);
        return 0;
    }
    if (r->kr_outcome == SH_KR_OK) {
        r->kr_outcome = SH_KR_OS_ERROR;
        r->kr_errno = err;
    }
    return cmd_failq(rr->rr_cx, "rmdir", r, what, CMD_QAF, path);
}

/* -p: the operand, then each parent it names, until one fails. */
static int
rmdir_parents(rmdir_run *rr, const char *operand)
{
    char *p = box_strdup(operand);
    if (p == NULL)
        return sh_cmd_err(rr->rr_cx, "rmdir", 1, "out of memory");
    int status = 0;
    sh_kernel_result r = {0};
    for (bool first = true;; first = false) {
        int err = rmdir_try(rr, p, &r);
        if (err != 0) {
            status = rmdir_fail(
                rr, first ? "failed to remove" : "failed to remove directory",
                p, err, &r);
            break;
        }
        size_t l = strlen(p);
        while (l > 1 && p[l - 1] == '/')
            l--;
        while (l > 0 && p[l - 1] != '/')
            l--;
        while (l > 1 && p[l - 1] == '/')
            l--;
        if (l == 0 || (l == 1 && p[0] == '/'))
            break;
        p[l] = '\0';
    }
    box_free(p);
    return status;
}

/* cmd_operand_fn: one directory (with -p, then its parents). */
static int
rmdir_operand(void *run, const char *p)
{
    rmdir_run *rr = run;
    if (rr->rr_parents)
        return rmdir_parents(rr, p);
    sh_kernel_result r = {0};
    int err = rmdir_try(rr, p, &r);
    return err == 0 ? 0 : rmdir_fail(rr, "failed to remove", p, err, &r);
}

int
sh_cmd_rmdir(sh_ctx *cx, int argc, char **argv, const sh_opts *unused)
{
    (void)unused;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &rmdir_spec, argc, argv);
    rmdir_run rr = {.rr_cx = cx};
    bool parents = false;
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'p')
            parents = true;
        else if (id == 'v')
            rr.rr_verbose = true;
        else if (id == RMDIR_IGNORE)
            rr.rr_ignore = true;
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops == 0) {
        st = sh_gopt_usage_error(&it, "missing operand");
        goto out;
    }
    rr.rr_parents = parents;
    st = cmd_each_operand(&it, rmdir_operand, &rr);
out:
    sh_gopt_free(&it);
    return st;
}
