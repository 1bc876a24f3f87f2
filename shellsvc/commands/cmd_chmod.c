/* SPDX-License-Identifier: Apache-2.0 */
/* chmod [OPTION]... MODE[,MODE]... FILE... | --reference=RFILE FILE...:
 * GNU coreutils 9.1; modes set through the kernel (fs:write
 * set_permissions), which refuses set-ID and sticky bits on the host. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_files.h"
#include "cmd_mode.h"
#include "sh_bistate.h"
#include "sh_gopt.h"

enum {
    CHMOD_REFERENCE = SH_GOPT_LONG_ONLY,
    CHMOD_PRESERVE_ROOT,
    CHMOD_NO_PRESERVE_ROOT,
};

static const sh_gopt chmod_opts[] = {
    {'c', "changes", SH_GARG_NONE},
    {'f', "silent", SH_GARG_NONE},
    {'f', "quiet", SH_GARG_NONE},
    {'R', "recursive", SH_GARG_NONE},
    {'v', "verbose", SH_GARG_NONE},
    {CHMOD_REFERENCE, "reference", SH_GARG_REQ},
    {CHMOD_PRESERVE_ROOT, "preserve-root", SH_GARG_NONE},
    {CHMOD_NO_PRESERVE_ROOT, "no-preserve-root", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec chmod_spec = {
    .gs_cmd = "chmod",
    .gs_opts = chmod_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: chmod [OPTION]... MODE[,MODE]... FILE...\n"
        "  or:  chmod [OPTION]... OCTAL-MODE FILE...\n"
        "  or:  chmod [OPTION]... --reference=RFILE FILE...\n"
        "Change the mode of each FILE to MODE.\n"
        "With --reference, change the mode of each FILE to that of RFILE.\n"
        "\n"
        "  -c, --changes          like verbose but report only when a chang"
        "e is made\n"
        "  -f, --silent, --quiet  suppress most error messages\n"
        "  -v, --verbose          output a diagnostic for every file proces"
        "sed\n"
        "      --no-preserve-root  do not treat '/' specially (the default)"
        "\n"
        "      --preserve-root    fail to operate recursively on '/'\n"
        "      --reference=RFILE  use RFILE's mode instead of MODE values\n"
        "  -R, --recursive        change files and directories recursively"
        "\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "Each MODE is of the form '[ugoa]*([-+=]([rwxXst]*|[ugo]))+|[-+=][0"
        "-7]+'.\n",
};

typedef struct chmod_run {
    sh_ctx *cr_cx;
    const char *cr_mode; // the mode text (or NULL with cr_ref)
    bool cr_has_ref;
    mode_t cr_ref; // --reference's mode
    mode_t cr_umask;
    bool cr_recursive, cr_verbose, cr_changes, cr_quiet;
} chmod_run;

static const char *
kcwd(const chmod_run *cr)
{
    return cr->cr_cx->cx_st->st_cwd;
}

/* -v / -c: GNU's line for old -> new. */
static bool
chmod_say(chmod_run *cr, const char *path, mode_t old, mode_t new)
{
    bool changed = (old & 07777) != (new & 07777);
    if (!cr->cr_verbose && !(cr->cr_changes && changed))
        return true;
    char so[10], sn[10];
    cmd_mode_string(old, so);
    cmd_mode_string(new, sn);
    char *q = sh_gquoteaf(path);
    char *line = changed
                     ? box_asprintf("mode of %s changed from %04o (%s) to %04o "
                                    "(%s)\n",
                                    q ? q : path, (unsigned)(old & 07777), so,
                                    (unsigned)(new & 07777), sn)
                     : box_asprintf("mode of %s retained as %04o (%s)\n",
                                    q ? q : path, (unsigned)(old & 07777), so);
    bool ok = line != NULL && sh_puts(cr->cr_cx, 1, line) == SH_IO_OK;
    box_free(line);
    box_free(q);
    return ok;
}

/* A clause without [ugoa] leaves what the umask covers: when that kept
 * a bit the mode text would have cleared, GNU says so, and ends 1. */
static int
chmod_umask_warn(chmod_run *cr, const char *path, mode_t old, bool dir,
                 mode_t new)
{
    mode_t naive;
    if (cr->cr_has_ref || cr->cr_quiet ||
        !cmd_mode_apply(cr->cr_mode, old, dir, 0, &naive) ||
        (new & ~naive & 07777) == 0)
        return 0;
    char sn[10], sv[10];
    cmd_mode_string(new, sn);
    cmd_mode_string(naive, sv);
    char *q = sh_gquotef(path);
    sh_cmd_err(cr->cr_cx, "chmod", 1, "%s: new permissions are %s, not %s",
               q ? q : path, sn, sv);
    box_free(q);
    return 1;
}

static int chmod_one(chmod_run *cr, const char *path, unsigned depth, bool top);

/* -R below a directory: each entry in byte order; links found in the
 * walk are left alone (GNU never changes a link or follows one there). */
static int
chmod_below(chmod_run *cr, const char *path, unsigned depth)
{
    sh_ctx *cx = cr->cr_cx;
    sh_kernel_result r = {0};
    char **names = NULL;
    size_t n = 0;
    int status = 0;
    if (depth >= CMD_MAX_DEPTH)
        return cmd_errq(cx, "chmod", 1, "directory tree too deep:", CMD_QAF,
                        path);
    if (cmd_list(cx, path, CMD_LIST_READDIR, &names, &n, &r) != 0)
        return cr->cr_quiet && r.kr_outcome == SH_KR_OS_ERROR
                   ? (sh_kernel_result_clear(&r), 1)
                   : cmd_failq(cx, "chmod", &r, "cannot read directory",
                               CMD_QAF, path);
    for (size_t i = 0; i < n && status != BOX_STATUS_FAULT; i++) {
        if (sh_check_stop(cx)) {
            status = cx->cx_status;
            break;
        }
        char *child = cmd_join(path, names[i]);
        int rc = child ? chmod_one(cr, child, depth + 1, false)
                       : sh_cmd_err(cx, "chmod", 1, "out of memory");
        box_free(child);
        status = cmd_worse(status, rc);
    }
    sh_kernel_names_free(names, n);
    return status;
}

/*
 * One file: its mode probed (fs:read read_metadata: followed for an
 * operand, not in the walk), the new one computed, then set. A denied
 * probe leaves nothing to compute a relative mode from: an absolute one
 * is still asked (the set's own decision answers), a relative one is
 * reported as not accessible.
 */
static int
chmod_one(chmod_run *cr, const char *path, unsigned depth, bool top)
{
    sh_ctx *cx = cr->cr_cx;
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    int err = top ? sh_kernel_stat_path(sh_kern(cx), kcwd(cr), path, &st, &r)
                  : sh_kernel_lstat(sh_kern(cx), kcwd(cr), path, &st, &r);
    bool denied = err != 0 && r.kr_outcome == SH_KR_DENIED;
    if (err != 0 &&
        !(denied && (cr->cr_has_ref || cmd_mode_absolute(cr->cr_mode)))) {
        if (cr->cr_quiet && r.kr_outcome == SH_KR_OS_ERROR) {
            sh_kernel_result_clear(&r);
            return 1;
        }
        if (denied)
            r.kr_errno = EACCES, r.kr_outcome = SH_KR_OS_ERROR;
        return cmd_failq(cx, "chmod", &r, "cannot access", CMD_QAF, path);
    }
    sh_kernel_result_clear(&r);
    if (denied)
        memset(&st, 0, sizeof st);
    if (!top && S_ISLNK(st.ks_mode)) {
        if (cr->cr_verbose) {
            char *q = sh_gquoteaf(path);
            char *line = box_asprintf("neither symbolic link %s nor referent "
                                      "has been changed\n",
                                      q ? q : path);
            bool ok = line != NULL && sh_puts(cx, 1, line) == SH_IO_OK;
            box_free(line);
            box_free(q);
            if (!ok)
                return 1;
        }
        return 0;
    }
    bool dir = S_ISDIR(st.ks_mode);
    mode_t new = cr->cr_ref;
    if (!cr->cr_has_ref)
        (void)cmd_mode_apply(cr->cr_mode, st.ks_mode, dir, cr->cr_umask, &new);
    int status = 0;
    if (sh_kernel_chmod(sh_kern(cx), kcwd(cr), path, new, &r) != 0) {
        if (cr->cr_quiet && r.kr_outcome == SH_KR_OS_ERROR) {
            sh_kernel_result_clear(&r);
            status = 1;
        } else {
            status = cmd_failq(cx, "chmod", &r, "changing permissions of",
                               CMD_QAF, path);
        }
        if (status == BOX_STATUS_FAULT)
            return status;
    } else {
        sh_kernel_result_clear(&r);
        if (!denied && !chmod_say(cr, path, st.ks_mode, new))
            return 1;
        status = chmod_umask_warn(cr, path, st.ks_mode, dir, new);
    }
    if (cr->cr_recursive && dir)
        status = cmd_worse(status, chmod_below(cr, path, depth));
    return status;
}

/* A word GNU's chmod reads as a mode though it starts with '-' (-w,
 * -rwx, -x,+r): its short options r w x X s t u g o a , + - = and the
 * digits take the rest of the word as part of the mode. */
static bool
is_dash_mode(const char *w)
{
    return w[0] == '-' && w[1] != '\0' && w[1] != '-' &&
           strchr("rwxXstugoa,+=01234567", w[1]) != NULL;
}

/* chmod: box-spec §3.6 (set_permissions, followed). */
int
sh_cmd_chmod(sh_ctx *cx, int argc, char **argv, const sh_opts *unused)
{
    (void)unused;
    // The mode words that look like options leave argv before the walk.
    char **av = box_calloc((size_t)argc + 1, sizeof *av);
    char *dash_mode = NULL;
    int ac = 0, st = 0;
    if (av == NULL)
        return sh_cmd_err(cx, "chmod", 1, "out of memory");
    bool after_dd = false;
    for (int i = 0; i < argc; i++) {
        if (i > 0 && !after_dd && is_dash_mode(argv[i])) {
            char *m = dash_mode ? box_asprintf("%s,%s", dash_mode, argv[i])
                                : box_strdup(argv[i]);
            box_free(dash_mode);
            if ((dash_mode = m) == NULL) {
                box_free(av);
                return sh_cmd_err(cx, "chmod", 1, "out of memory");
            }
            continue;
        }
        if (i > 0 && strcmp(argv[i], "--") == 0)
            after_dd = true;
        av[ac++] = argv[i];
    }
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &chmod_spec, ac, av);
    chmod_run cr = {.cr_cx = cx, .cr_umask = (mode_t)sh_umask_get(cx)};
    const char *ref = NULL, *arg;
    int id;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 'c':
            cr.cr_changes = true;
            break;
        case 'f':
            cr.cr_quiet = true;
            break;
        case 'R':
            cr.cr_recursive = true;
            break;
        case 'v':
            cr.cr_verbose = true;
            break;
        case CHMOD_REFERENCE:
            ref = arg;
            break;
        default:
            break; // --preserve-root: '/' is never reachable here
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    char **ops = it.gi_ops;
    int n = it.gi_nops;
    if (ref == NULL && dash_mode == NULL) {
        if (n == 0) {
            st = sh_gopt_usage_error(&it, "missing operand");
            goto out;
        }
        cr.cr_mode = ops[0];
        ops++;
        n--;
    } else if (ref == NULL) {
        cr.cr_mode = dash_mode;
    }
    if (n == 0) {
        char *q = cr.cr_mode ? sh_gquote(cr.cr_mode) : NULL;
        st = cr.cr_mode && ref == NULL && dash_mode == NULL
                 ? sh_gopt_usage_error(&it, "missing operand after %s",
                                       q ? q : cr.cr_mode)
                 : sh_gopt_usage_error(&it, "missing operand");
        box_free(q);
        goto out;
    }
    if (ref != NULL) {
        sh_kernel_result r = {0};
        sh_kernel_stat rs;
        if (sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, ref, &rs, &r) !=
            0) {
            st = cmd_failq(cx, "chmod", &r, "failed to get attributes of",
                           CMD_QAF, ref);
            goto out;
        }
        sh_kernel_result_clear(&r);
        cr.cr_has_ref = true;
        cr.cr_ref = rs.ks_mode & 07777;
    } else {
        mode_t probe;
        if (!cmd_mode_apply(cr.cr_mode, 0, false, 0, &probe)) {
            char *q = sh_gquote(cr.cr_mode);
            sh_errf(cx, "chmod: invalid mode: %s", q ? q : cr.cr_mode);
            box_free(q);
            st = sh_gopt_try(&it);
            goto out;
        }
    }
    for (int i = 0; i < n && st != BOX_STATUS_FAULT; i++) {
        if (sh_check_stop(cx)) {
            st = cx->cx_status;
            goto out;
        }
        st = cmd_worse(st, chmod_one(&cr, ops[i], 0, true));
    }
out:
    sh_gopt_free(&it);
    box_free(dash_mode);
    box_free(av);
    return st;
}
