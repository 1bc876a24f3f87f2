/* SPDX-License-Identifier: Apache-2.0 */
/* ln -s [OPTION]... TARGET [LINK] | TARGET... DIRECTORY | -t DIRECTORY
 * TARGET...: GNU coreutils 9.1 for symbolic links; the kernel has no hard
 * link operation, so ln without -s is refused. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_files.h"
#include "sh_gopt.h"

static const sh_gopt ln_opts[] = {
    {'f', "force", SH_GARG_NONE},
    {'i', "interactive", SH_GARG_NONE},
    {'L', "logical", SH_GARG_NONE},
    {'n', "no-dereference", SH_GARG_NONE},
    {'P', "physical", SH_GARG_NONE},
    {'r', "relative", SH_GARG_NONE},
    {'s', "symbolic", SH_GARG_NONE},
    {'t', "target-directory", SH_GARG_REQ},
    {'T', "no-target-directory", SH_GARG_NONE},
    {'v', "verbose", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec ln_spec = {
    .gs_cmd = "ln",
    .gs_opts = ln_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: ln [OPTION]... [-T] TARGET LINK_NAME\n"
        "  or:  ln [OPTION]... TARGET\n"
        "  or:  ln [OPTION]... TARGET... DIRECTORY\n"
        "  or:  ln [OPTION]... -t DIRECTORY TARGET...\n"
        "In the 1st form, create a link to TARGET with the name LINK_NAME."
        "\n"
        "In the 2nd form, create a link to TARGET in the current directory."
        "\n"
        "In the 3rd and 4th forms, create links to each TARGET in DIRECTORY"
        ".\n"
        "Create hard links by default, symbolic links with --symbolic.\n"
        "By default, each destination (name of new link) should not already"
        " exist.\n"
        "When creating hard links, each TARGET must exist.  Symbolic links"
        "\n"
        "can hold arbitrary text; if later resolved, a relative link is\n"
        "interpreted in relation to its parent directory.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short option"
        "s too.\n"
        "      --backup[=CONTROL]      make a backup of each existing desti"
        "nation file\n"
        "  -b                          like --backup but does not accept an"
        " argument\n"
        "  -d, -F, --directory         allow the superuser to attempt to ha"
        "rd link\n"
        "                                directories (note: will probably f"
        "ail due to\n"
        "                                system restrictions, even for the "
        "superuser)\n"
        "  -f, --force                 remove existing destination files\n"
        "  -i, --interactive           prompt whether to remove destination"
        "s\n"
        "  -L, --logical               dereference TARGETs that are symboli"
        "c links\n"
        "  -n, --no-dereference        treat LINK_NAME as a normal file if"
        "\n"
        "                                it is a symbolic link to a directo"
        "ry\n"
        "  -P, --physical              make hard links directly to symbolic"
        " links\n"
        "  -r, --relative              with -s, create links relative to li"
        "nk location\n"
        "  -s, --symbolic              make symbolic links instead of hard "
        "links\n"
        "  -S, --suffix=SUFFIX         override the usual backup suffix\n"
        "  -t, --target-directory=DIRECTORY  specify the DIRECTORY in which"
        " to create\n"
        "                                the links\n"
        "  -T, --no-target-directory   treat LINK_NAME as a normal file alw"
        "ays\n"
        "  -v, --verbose               print name of each linked file\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        CMD_BACKUP_HELP
        "\n"
        "Using -s ignores -L and -P.  Otherwise, the last option specified "
        "controls\n"
        "behavior when a TARGET is a symbolic link, defaulting to -P.\n",
};

typedef struct ln_run {
    sh_ctx *lr_cx;
    bool lr_force, lr_relative, lr_verbose, lr_nofollow;
} ln_run;

static const char *
kcwd(const ln_run *lr)
{
    return lr->lr_cx->cx_st->st_cwd;
}

/* -r: target as a path from the link's directory (both canonicalized,
 * missing tails kept; no decision: the link's own legs decide). */
static char *
ln_relative(ln_run *lr, const char *target, const char *link)
{
    sh_kernel *k = sh_kern(lr->lr_cx);
    char *ct = NULL, *cl = NULL, *out = NULL;
    if (sh_kernel_resolve_path(k, kcwd(lr), target, true, &ct, NULL) == 0 &&
        sh_kernel_resolve_path(k, kcwd(lr), link, false, &cl, NULL) == 0) {
        char *slash = strrchr(cl, '/');
        if (slash == cl)
            slash[1] = '\0';
        else if (slash != NULL)
            *slash = '\0';
        out = cmd_relpath(cl, ct);
    }
    box_free(ct);
    box_free(cl);
    return out;
}

/* One link: -f removes what is there first (fs:delete remove_file), then
 * the link's legs (box-spec §3.6: symlink and read_content on the
 * target, symlink on the link). */
static int
ln_one(ln_run *lr, const char *target, const char *link)
{
    sh_ctx *cx = lr->lr_cx;
    sh_kernel_result r = {0};
    char *rel = NULL;
    int status = 0;
    if (lr->lr_relative && (rel = ln_relative(lr, target, link)) == NULL)
        return cmd_errq(cx, "ln", 1, "cannot canonicalize", CMD_QAF, target);
    const char *t = rel ? rel : target;
    if (lr->lr_force) {
        sh_kernel_stat st;
        if (sh_kernel_lstat(sh_kern(cx), kcwd(lr), link, &st, &r) == 0 &&
            S_ISDIR(st.ks_mode)) {
            sh_kernel_result_clear(&r);
            char *q = sh_gquotef(link);
            status = sh_cmd_err(cx, "ln", 1, "%s: cannot overwrite directory",
                                q ? q : link);
            box_free(q);
            goto out;
        }
        sh_kernel_result_clear(&r);
        if (sh_kernel_unlink(sh_kern(cx), kcwd(lr), link, &r) != 0 &&
            !(r.kr_outcome == SH_KR_OS_ERROR && r.kr_errno == ENOENT)) {
            status = cmd_failq(cx, "ln", &r, "cannot remove", CMD_QAF, link);
            goto out;
        }
        sh_kernel_result_clear(&r);
    }
    if (sh_kernel_symlink(sh_kern(cx), kcwd(lr), t, link, &r) != 0) {
        status = cmd_failq(cx, "ln", &r, "failed to create symbolic link",
                           CMD_QAF, link);
        goto out;
    }
    sh_kernel_result_clear(&r);
    if (lr->lr_verbose && !cmd_say(cx, "", link, " -> ", t))
        status = 1;
out:
    box_free(rel);
    return status;
}

/* cmd_place_fn: one link at one name. */
static int
ln_place(void *run, const char *target, const char *link)
{
    return ln_one(run, target, link);
}

/* Each target linked into dir as dir/BASENAME. */
static int
ln_into(ln_run *lr, char **targets, int n, const char *dir)
{
    return cmd_place_into(lr->lr_cx, "ln", targets, n, dir, ln_place, lr);
}

/* Whether t is a directory to put links in: followed, unless -n and t
 * is itself a link. *missing: nothing is there. */
static int
ln_target(ln_run *lr, const char *t, bool *dir, bool *missing)
{
    sh_ctx *cx = lr->lr_cx;
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    *dir = *missing = false;
    int err = lr->lr_nofollow
                  ? sh_kernel_lstat(sh_kern(cx), kcwd(lr), t, &st, &r)
                  : sh_kernel_stat_path(sh_kern(cx), kcwd(lr), t, &st, &r);
    if (err == 0) {
        *dir = S_ISDIR(st.ks_mode);
    } else if (r.kr_outcome == SH_KR_FAULT) {
        return sh_fs_fail(cx, "ln", t, &r);
    } else {
        *missing = r.kr_errno == ENOENT;
    }
    sh_kernel_result_clear(&r);
    return 0;
}

/* ln: box-spec §3.3 and §3.6. */
int
sh_cmd_ln(sh_ctx *cx, int argc, char **argv, const sh_opts *unused)
{
    (void)unused;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &ln_spec, argc, argv);
    ln_run lr = {.lr_cx = cx};
    bool symbolic = false, no_target = false;
    const char *target = NULL, *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 'f':
            lr.lr_force = true;
            break;
        case 'n':
            lr.lr_nofollow = true;
            break;
        case 'r':
            lr.lr_relative = true;
            break;
        case 's':
            symbolic = true;
            break;
        case 't':
            target = arg;
            break;
        case 'T':
            no_target = true;
            break;
        case 'v':
            lr.lr_verbose = true;
            break;
        case 'i':
            st = cmd_no_interactive(cx, "ln");
            goto out;
        default:
            break; // -L, -P: only hard links read them
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    char **ops = it.gi_ops;
    int n = it.gi_nops;
    if (target != NULL && no_target) {
        st = sh_gopt_usage_error(&it, "cannot combine --target-directory "
                                      "and --no-target-directory");
        goto out;
    }
    if (n == 0) {
        st = sh_gopt_usage_error(&it, "missing file operand");
        goto out;
    }
    if (!symbolic) {
        st = sh_cmd_err(cx, "ln", 1,
                        "hard links are not supported in this box; use ln -s");
        goto out;
    }
    bool dir, missing;
    if (target != NULL) {
        if ((st = ln_target(&lr, target, &dir, &missing)) != 0)
            goto out;
        if (!dir) {
            char *q = sh_gquoteaf(target);
            st = missing
                     ? sh_cmd_err(cx, "ln", 1, "failed to access %s: %s",
                                  q ? q : target, strerror(ENOENT))
                     : sh_cmd_err(cx, "ln", 1, "target %s is not a directory",
                                  q ? q : target);
            box_free(q);
            goto out;
        }
        st = ln_into(&lr, ops, n, target);
        goto out;
    }
    if (no_target) {
        if (n == 1) {
            char *q = sh_gquoteaf(ops[0]);
            st = sh_gopt_usage_error(&it,
                                     "missing destination file operand after "
                                     "%s",
                                     q ? q : ops[0]);
            box_free(q);
        } else if (n > 2) {
            char *q = sh_gquoteaf(ops[2]);
            st = sh_gopt_usage_error(&it, "extra operand %s", q ? q : ops[2]);
            box_free(q);
        } else {
            st = ln_one(&lr, ops[0], ops[1]);
        }
        goto out;
    }
    if (n == 1) {
        st = ln_into(&lr, ops, 1, ".");
        goto out;
    }
    if ((st = ln_target(&lr, ops[n - 1], &dir, &missing)) != 0)
        goto out;
    if (dir) {
        st = ln_into(&lr, ops, n - 1, ops[n - 1]);
    } else if (n == 2) {
        st = ln_one(&lr, ops[0], ops[1]);
    } else {
        char *q = sh_gquoteaf(ops[n - 1]);
        st = sh_cmd_err(cx, "ln", 1, "target %s: %s", q ? q : ops[n - 1],
                        strerror(missing ? ENOENT : ENOTDIR));
        box_free(q);
    }
out:
    sh_gopt_free(&it);
    return st;
}
