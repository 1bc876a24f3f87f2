/* SPDX-License-Identifier: Apache-2.0 */
/* rm [OPTION]... [FILE]...: GNU coreutils 9.1; removal through the kernel,
 * one decision per entry. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_files.h"
#include "sh_gopt.h"

enum {
    RM_INTERACTIVE = SH_GOPT_LONG_ONLY,
    RM_ONE_FS,
    RM_NO_PRESERVE_ROOT,
    RM_PRESERVE_ROOT,
};

static const sh_gopt rm_opts[] = {
    {'d', "dir", SH_GARG_NONE},
    {'f', "force", SH_GARG_NONE},
    {'i', NULL, SH_GARG_NONE},
    {'I', NULL, SH_GARG_NONE},
    {'r', "recursive", SH_GARG_NONE},
    {'R', NULL, SH_GARG_NONE},
    {'v', "verbose", SH_GARG_NONE},
    {RM_INTERACTIVE, "interactive", SH_GARG_OPT},
    {RM_ONE_FS, "one-file-system", SH_GARG_NONE},
    {RM_NO_PRESERVE_ROOT, "no-preserve-root", SH_GARG_NONE},
    {RM_PRESERVE_ROOT, "preserve-root", SH_GARG_OPT},
    {0},
};

static const sh_gopt_spec rm_spec = {
    .gs_cmd = "rm",
    .gs_opts = rm_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: rm [OPTION]... [FILE]...\n"
        "Remove (unlink) the FILE(s).\n"
        "\n"
        "  -f, --force           ignore nonexistent files and arguments, ne"
        "ver prompt\n"
        "  -i                    prompt before every removal\n"
        "  -I                    prompt once before removing more than thre"
        "e files, or\n"
        "                          when removing recursively; less intrusiv"
        "e than -i,\n"
        "                          while still giving protection against mo"
        "st mistakes\n"
        "      --interactive[=WHEN]  prompt according to WHEN: never, once "
        "(-I), or\n"
        "                          always (-i); without WHEN, prompt always"
        "\n"
        "      --one-file-system  when removing a hierarchy recursively, sk"
        "ip any\n"
        "                          directory that is on a file system diffe"
        "rent from\n"
        "                          that of the corresponding command line a"
        "rgument\n"
        "      --no-preserve-root  do not treat '/' specially\n"
        "      --preserve-root[=all]  do not remove '/' (default);\n"
        "                              with 'all', reject any command line "
        "argument\n"
        "                              on a separate device from its parent"
        "\n"
        "  -r, -R, --recursive   remove directories and their contents recu"
        "rsively\n"
        "  -d, --dir             remove empty directories\n"
        "  -v, --verbose         explain what is being done\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "By default, rm does not remove directories.  Use the --recursive ("
        "-r or -R)\n"
        "option to remove each listed directory, too, along with all of its"
        " contents.\n"
        "\n"
        "To remove a file whose name starts with a '-', for example '-foo',"
        "\n"
        "use one of these commands:\n"
        "  rm -- -foo\n"
        "\n"
        "  rm ./-foo\n"
        "\n"
        "Note that if you use rm to remove a file, it might be possible to "
        "recover\n"
        "some of its contents, given sufficient expertise and/or time.  For"
        " greater\n"
        "assurance that the contents are truly unrecoverable, consider usin"
        "g shred(1).\n",
};

typedef struct rm_run {
    sh_ctx *rr_cx;
    const char *rr_cmd; // "rm", or "mv" removing what it copied
    bool rr_force;
    bool rr_recursive;
    bool rr_dirs; // -d: an empty directory goes too
    bool rr_verbose;
    bool rr_preserve_root; // rm -r refuses "/"
} rm_run;

static const char *
kcwd(const rm_run *rr)
{
    return rr->rr_cx->cx_st->st_cwd;
}

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
    return cmd_failq(rr->rr_cx, rr->rr_cmd, r, "cannot remove", CMD_QAF, path);
}

/* fs:delete remove_dir, and -v's line. */
static int
rm_rmdir(rm_run *rr, const char *path)
{
    sh_kernel_result r = {0};
    if (sh_kernel_rmdir(sh_kern(rr->rr_cx), kcwd(rr), path, &r) != 0)
        return rm_fail(rr, path, &r);
    sh_kernel_result_clear(&r);
    if (rr->rr_verbose &&
        !cmd_say(rr->rr_cx, "removed directory ", path, NULL, NULL))
        return 1;
    return 0;
}

/* fs:delete remove_file (the leaf is not followed: a link goes, not its
 * target). A directory answers "Is a directory", or under -d is asked
 * as remove_dir. */
static int
rm_unlink(rm_run *rr, const char *path)
{
    sh_kernel_result r = {0};
    if (sh_kernel_unlink(sh_kern(rr->rr_cx), kcwd(rr), path, &r) != 0) {
        if (rr->rr_dirs && r.kr_outcome == SH_KR_OS_ERROR &&
            r.kr_errno == EISDIR) {
            sh_kernel_result_clear(&r);
            return rm_rmdir(rr, path);
        }
        return rm_fail(rr, path, &r);
    }
    sh_kernel_result_clear(&r);
    if (rr->rr_verbose && !cmd_say(rr->rr_cx, "removed ", path, NULL, NULL))
        return 1;
    return 0;
}

static int rm_tree(rm_run *rr, const char *path, unsigned depth);

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
    if (depth >= CMD_MAX_DEPTH)
        return cmd_errq(cx, rr->rr_cmd, 1, "directory tree too deep:", CMD_QAF,
                        path);
    if (cmd_list(cx, path, CMD_LIST_READDIR, &names, &n, &r) != 0)
        return rm_fail(rr, path, &r);
    for (size_t i = 0; i < n && status != BOX_STATUS_FAULT; i++) {
        if (sh_check_stop(cx)) {
            status = cx->cx_status;
            goto out;
        }
        char *child = cmd_join(path, names[i]);
        int rc = child ? rm_tree(rr, child, depth + 1)
                       : sh_cmd_err(cx, rr->rr_cmd, 1, "out of memory");
        box_free(child);
        status = cmd_worse(status, rc);
    }
    if (status == 0)
        status = rm_rmdir(rr, path);
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
    if (sh_kernel_lstat(sh_kern(cx), kcwd(rr), path, &st, &r) != 0) {
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

int
cmd_remove_tree(sh_ctx *cx, const char *cmd, const char *path, bool force,
                bool verbose)
{
    rm_run rr = {
        .rr_cx = cx,
        .rr_cmd = cmd,
        .rr_force = force,
        .rr_recursive = true,
        .rr_verbose = verbose,
    };
    return rm_tree(&rr, path, 0);
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

/* Operands GNU refuses before touching anything: no decision is asked.
 * -1 when the operand goes on to the kernel. */
static int
rm_refused(rm_run *rr, const char *s)
{
    sh_ctx *cx = rr->rr_cx;
    bool tree = rr->rr_recursive || rr->rr_dirs;
    if (s[0] == '\0') { // the kernel would read "" as the cwd
        sh_kernel_result r = {.kr_outcome = SH_KR_OS_ERROR, .kr_errno = ENOENT};
        return rm_fail(rr, s, &r);
    }
    if (strspn(s, "/") == strlen(s)) {
        // The root is never removed here: "Is a directory" as GNU says
        // without -d, "Directory not empty" with it; -r --no-preserve-root
        // is answered "busy" rather than walking every reachable file.
        if (!rr->rr_recursive || !rr->rr_preserve_root) {
            sh_kernel_result r = {.kr_outcome = SH_KR_OS_ERROR,
                                  .kr_errno = rr->rr_recursive ? EBUSY
                                              : rr->rr_dirs    ? ENOTEMPTY
                                                               : EISDIR};
            return rm_fail(rr, tree ? "/" : s, &r);
        }
        cmd_errq(cx, "rm", 1, "it is dangerous to operate recursively on",
                 CMD_QAF, "/");
        return sh_cmd_err(cx, "rm", 1,
                          "use --no-preserve-root to override this failsafe");
    }
    if (tree && is_dot_operand(s)) {
        // GNU shows the operand with its trailing slashes as one
        size_t l = strlen(s);
        while (l > 1 && s[l - 1] == '/' && s[l - 2] == '/')
            l--;
        char *shown = box_strndup(s, l);
        int rc = cmd_errq(cx, "rm", 1,
                          "refusing to remove '.' or '..' directory: skipping",
                          CMD_QAF, shown ? shown : s);
        box_free(shown);
        return rc;
    }
    return -1;
}

/*
 * rm: box-spec §3.6. Without -r each operand is one fs:delete
 * remove_file (a directory fails "Is a directory"; -d then asks
 * remove_dir). With -r each path is probed (read_metadata), directories
 * are listed (enumerate) and emptied depth-first, one delete decision
 * per entry. -i and -I ask questions no one can answer here (the box has
 * no terminal): refused.
 */
/* cmd_operand_fn: one operand, refused, removed, or its tree (-r). */
static int
rm_operand(void *run, const char *p)
{
    rm_run *rr = run;
    int rc = rm_refused(rr, p);
    if (rc < 0)
        rc = rr->rr_recursive ? rm_tree(rr, p, 0) : rm_unlink(rr, p);
    return rc;
}

int
sh_cmd_rm(sh_ctx *cx, int argc, char **argv, const sh_opts *unused)
{
    (void)unused;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &rm_spec, argc, argv);
    rm_run rr = {.rr_cx = cx, .rr_cmd = "rm", .rr_preserve_root = true};
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 'd':
            rr.rr_dirs = true;
            break;
        case 'f':
            rr.rr_force = true;
            break;
        case 'r':
        case 'R':
            rr.rr_recursive = true;
            break;
        case 'v':
            rr.rr_verbose = true;
            break;
        case RM_NO_PRESERVE_ROOT:
            rr.rr_preserve_root = false;
            break;
        case RM_PRESERVE_ROOT:
            rr.rr_preserve_root = true;
            break;
        case 'i':
        case 'I':
        case RM_INTERACTIVE:
            if (id == RM_INTERACTIVE && arg != NULL &&
                strcmp(arg, "never") == 0)
                break;
            st = sh_cmd_err(cx, "rm", 1,
                            "-i and -I (--interactive) are not supported in "
                            "this box: there is no terminal to answer their "
                            "questions");
            goto out;
        default:
            break; // --one-file-system: one kernel, nothing to cross
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops == 0) {
        if (!rr.rr_force)
            st = sh_gopt_usage_error(&it, "missing operand");
        goto out;
    }
    st = cmd_each_operand(&it, rm_operand, &rr);
out:
    sh_gopt_free(&it);
    return st;
}
