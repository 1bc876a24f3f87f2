/* SPDX-License-Identifier: Apache-2.0 */
/* mv [OPTION]... SOURCE DEST | SOURCE... DIRECTORY | -t DIRECTORY SOURCE...:
 * GNU coreutils 9.1; renames through the kernel, and across the host and
 * in-memory file systems a copy then a removal, as GNU does across devices. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_files.h"
#include "sh_gopt.h"

enum { MV_STRIP_SLASHES = SH_GOPT_LONG_ONLY };

static const sh_gopt mv_opts[] = {
    {'f', "force", SH_GARG_NONE},
    {'i', "interactive", SH_GARG_NONE},
    {'n', "no-clobber", SH_GARG_NONE},
    {'t', "target-directory", SH_GARG_REQ},
    {'T', "no-target-directory", SH_GARG_NONE},
    {'v', "verbose", SH_GARG_NONE},
    {MV_STRIP_SLASHES, "strip-trailing-slashes", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec mv_spec = {
    .gs_cmd = "mv",
    .gs_opts = mv_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: mv [OPTION]... [-T] SOURCE DEST\n"
        "  or:  mv [OPTION]... SOURCE... DIRECTORY\n"
        "  or:  mv [OPTION]... -t DIRECTORY SOURCE...\n"
        "Rename SOURCE to DEST, or move SOURCE(s) to DIRECTORY.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short option"
        "s too.\n"
        "      --backup[=CONTROL]       make a backup of each existing dest"
        "ination file\n"
        "  -b                           like --backup but does not accept a"
        "n argument\n"
        "  -f, --force                  do not prompt before overwriting\n"
        "  -i, --interactive            prompt before overwrite\n"
        "  -n, --no-clobber             do not overwrite an existing file\n"
        "If you specify more than one of -i, -f, -n, only the final one tak"
        "es effect.\n"
        "      --strip-trailing-slashes  remove any trailing slashes from e"
        "ach SOURCE\n"
        "                                 argument\n"
        "  -S, --suffix=SUFFIX          override the usual backup suffix\n"
        "  -t, --target-directory=DIRECTORY  move all SOURCE arguments into"
        " DIRECTORY\n"
        "  -T, --no-target-directory    treat DEST as a normal file\n"
        "  -u, --update                 move only when the SOURCE file is n"
        "ewer\n"
        "                                 than the destination file or when"
        " the\n"
        "                                 destination file is missing\n"
        "  -v, --verbose                explain what is being done\n"
        "  -Z, --context                set SELinux security context of des"
        "tination\n"
        "                                 file to default type\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        CMD_BACKUP_HELP,
};

typedef struct mv_run {
    sh_ctx *mr_cx;
    bool mr_no_clobber;
    bool mr_verbose;
} mv_run;

static const char *
kcwd(const mv_run *mr)
{
    return mr->mr_cx->cx_st->st_cwd;
}

/* "mv: PRE'A'MID'B'TAIL" (b NULL: "mv: PRE'A'MID"); returns 1. */
static int
mv_err2(mv_run *mr, const char *pre, const char *a, const char *mid,
        const char *b, const char *tail)
{
    char *qa = sh_gquoteaf(a), *qb = b ? sh_gquoteaf(b) : NULL;
    sh_errf(mr->mr_cx, "mv: %s%s%s%s%s", pre, qa ? qa : a, mid,
            b ? (qb ? qb : b) : "", tail ? tail : "");
    box_free(qa);
    box_free(qb);
    return 1;
}

/*
 * Across the host and the in-memory file system (the kernel answered
 * EXDEV after every leg was permitted): copy with the mode kept, links
 * as links, then remove the source, one fs:delete decision per entry.
 * When a removal is refused the copy stays, as GNU leaves it.
 */
static int
mv_across(mv_run *mr, const char *src, const char *dst)
{
    cmd_copy_opts o = {
        .co_cmd = "mv",
        .co_recursive = true,
        .co_preserve_mode = true,
        .co_preserve_times = true,
        .co_force = true,
        .co_verbose = mr->mr_verbose,
        .co_verbose_mv = true,
    };
    int status = cmd_copy(mr->mr_cx, &o, src, dst);
    if (status != 0)
        return status;
    return cmd_remove_tree(mr->mr_cx, "mv", src, false, mr->mr_verbose);
}

/* One rename, src to the final name dst. */
static int
mv_one(mv_run *mr, const char *src, const char *dst)
{
    sh_ctx *cx = mr->mr_cx;
    sh_kernel_result r = {0};
    sh_kernel_stat ss, ds;
    if (sh_kernel_lstat(sh_kern(cx), kcwd(mr), src, &ss, &r) != 0) {
        if (r.kr_outcome != SH_KR_DENIED)
            return cmd_failq(cx, "mv", &r, "cannot stat", CMD_QAF, src);
        // Policy hid it: the rename's own legs answer for it.
        memset(&ss, 0, sizeof ss);
    }
    sh_kernel_result_clear(&r);
    bool dexists = false;
    if (sh_kernel_lstat(sh_kern(cx), kcwd(mr), dst, &ds, &r) == 0) {
        dexists = true;
    } else if (r.kr_outcome == SH_KR_FAULT ||
               (r.kr_outcome == SH_KR_OS_ERROR && r.kr_errno != ENOENT)) {
        return cmd_failq(cx, "mv", &r, "cannot stat", CMD_QAF, dst);
    }
    sh_kernel_result_clear(&r);
    if (dexists && ss.ks_ino != 0 && ss.ks_dev == ds.ks_dev &&
        ss.ks_ino == ds.ks_ino)
        return mv_err2(mr, "", src, " and ", dst, " are the same file");
    if (dexists && mr->mr_no_clobber)
        return 0;
    if (dexists && S_ISDIR(ds.ks_mode) && ss.ks_ino != 0 &&
        !S_ISDIR(ss.ks_mode))
        return mv_err2(mr, "cannot overwrite directory ", dst,
                       " with non-directory", NULL, NULL);
    if (dexists && !S_ISDIR(ds.ks_mode) && S_ISDIR(ss.ks_mode))
        return mv_err2(mr, "cannot overwrite non-directory ", dst,
                       " with directory ", src, NULL);
    if (S_ISDIR(ss.ks_mode)) {
        char *cs = NULL, *cd = NULL;
        sh_kernel *k = sh_kern(cx);
        bool in =
            sh_kernel_resolve_path(k, kcwd(mr), src, false, &cs, NULL) == 0 &&
            sh_kernel_resolve_path(k, kcwd(mr), dst, false, &cd, NULL) == 0 &&
            cmd_inside(cs, cd, true);
        box_free(cs);
        box_free(cd);
        if (in)
            return mv_err2(mr, "cannot move ", src,
                           " to a subdirectory of itself, ", dst, NULL);
    }
    if (sh_kernel_rename(sh_kern(cx), kcwd(mr), src, dst, &r) == 0) {
        sh_kernel_result_clear(&r);
        if (mr->mr_verbose && !cmd_say(cx, "renamed ", src, " -> ", dst))
            return 1;
        return 0;
    }
    if (r.kr_outcome == SH_KR_OS_ERROR && r.kr_errno == EXDEV) {
        sh_kernel_result_clear(&r);
        return mv_across(mr, src, dst);
    }
    if (r.kr_outcome != SH_KR_OS_ERROR)
        return sh_fs_fail(cx, "mv", src, &r);
    const char *m = r.kr_message ? r.kr_message : strerror(r.kr_errno);
    char *tail = box_asprintf(": %s", m);
    int st = mv_err2(mr, "cannot move ", src, " to ", dst, tail ? tail : "");
    box_free(tail);
    sh_kernel_result_clear(&r);
    return st;
}

/* cmd_place_fn: one source to one destination. */
static int
mv_place(void *run, const char *src, const char *dst)
{
    return mv_one(run, src, dst);
}

/*
 * mv: box-spec §3.6 (rename's legs: the source moved and read, what is
 * bound at the destination removed, the destination moved; the first
 * denial wins and nothing moves). -i would ask questions no one can
 * answer here: refused.
 */
int
sh_cmd_mv(sh_ctx *cx, int argc, char **argv, const sh_opts *unused)
{
    (void)unused;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &mv_spec, argc, argv);
    mv_run mr = {.mr_cx = cx};
    const char *target = NULL, *arg;
    bool no_target = false;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 'f':
            mr.mr_no_clobber = false;
            break;
        case 'n':
            mr.mr_no_clobber = true;
            break;
        case 't':
            target = arg;
            break;
        case 'T':
            no_target = true;
            break;
        case 'v':
            mr.mr_verbose = true;
            break;
        case 'i':
            st = cmd_no_interactive(cx, "mv");
            goto out;
        default:
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    st = cmd_place_operands(&it, target, no_target, mv_place, &mr);
out:
    sh_gopt_free(&it);
    return st;
}
