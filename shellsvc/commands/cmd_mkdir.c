/* SPDX-License-Identifier: Apache-2.0 */
/* mkdir [-pv] [-m MODE] DIRECTORY...: GNU coreutils 9.1; directories
 * created through the kernel. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_files.h"
#include "cmd_mode.h"
#include "sh_bistate.h"
#include "sh_gopt.h"

/* Directories get 0777 less the umask a script set (sh_umask_apply), as
 * redirections create files 0666 less it; until one is set, the kernel's
 * default stands. */
#define MKDIR_MODE 0777
#define PROBE_ABSENT (-1)

static const sh_gopt mkdir_opts[] = {
    {'m', "mode", SH_GARG_REQ},
    {'p', "parents", SH_GARG_NONE},
    {'v', "verbose", SH_GARG_NONE},
    {'Z', "context", SH_GARG_OPT},
    {0},
};

static const sh_gopt_spec mkdir_spec = {
    .gs_cmd = "mkdir",
    .gs_opts = mkdir_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: mkdir [OPTION]... DIRECTORY...\n"
        "Create the DIRECTORY(ies), if they do not already exist.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short option"
        "s too.\n"
        "  -m, --mode=MODE   set file mode (as in chmod), not a=rwx - umask"
        "\n"
        "  -p, --parents     no error if existing, make parent directories "
        "as needed,\n"
        "                    with their file modes unaffected by any -m opt"
        "ion.\n"
        "  -v, --verbose     print a message for each created directory\n"
        "  -Z                   set SELinux security context of each create"
        "d directory\n"
        "                         to the default type\n"
        "      --context[=CTX]  like -Z, or if CTX is specified then set th"
        "e SELinux\n"
        "                         or SMACK security context to CTX\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

typedef struct mkdir_run {
    sh_ctx *mr_cx;
    bool mr_verbose;
    bool mr_has_mode; // -m: the last component gets mr_mode exactly
    mode_t mr_mode;
    bool mr_parents; // -p
} mkdir_run;

/* "mkdir: cannot create directory ‘P’: ERR" for r (a denial as the
 * kernel words it). */
static int
mkdir_fail(mkdir_run *mr, const char *p, sh_kernel_result *r)
{
    return cmd_failq(mr->mr_cx, "mkdir", r, "cannot create directory", CMD_QL,
                     p);
}

static int
mkdir_errno(mkdir_run *mr, const char *p, int err)
{
    sh_kernel_result r = {.kr_outcome = SH_KR_OS_ERROR, .kr_errno = err};
    return mkdir_fail(mr, p, &r);
}

/*
 * One fs:write create_dir. ok_exists (the -p walk) takes EEXIST as
 * success; a denial or fault is never EEXIST, so it cannot be hidden.
 * last: the operand itself, which -m's mode and -v's line are for.
 * Returns 0, or the failed result in *r (the caller reports it).
 */
static int
mkdir_try(mkdir_run *mr, const char *path, bool ok_exists, bool last,
          sh_kernel_result *r)
{
    sh_ctx *cx = mr->mr_cx;
    mode_t mode = last && mr->mr_has_mode
                      ? mr->mr_mode & 0777
                      : (mode_t)sh_umask_apply(cx, MKDIR_MODE);
    if (sh_kernel_mkdir(sh_kern(cx), cx->cx_st->st_cwd, path, mode, r) != 0) {
        if (ok_exists && r->kr_outcome == SH_KR_OS_ERROR &&
            r->kr_errno == EEXIST) {
            sh_kernel_result_clear(r);
            return 0;
        }
        return r->kr_errno ? r->kr_errno : EIO;
    }
    sh_kernel_result_clear(r);
    if (mr->mr_verbose &&
        !cmd_say(cx, "mkdir: created directory ", path, NULL, NULL))
        return EIO;
    // -m: the mode exactly, whatever the umask took (set_permissions).
    if (last && mr->mr_has_mode &&
        sh_kernel_chmod(sh_kern(cx), cx->cx_st->st_cwd, path, mr->mr_mode, r) !=
            0)
        return r->kr_errno ? r->kr_errno : EIO;
    sh_kernel_result_clear(r);
    return 0;
}

/* The length of p[0..cut)'s parent prefix; 0 when the parent is the cwd
 * or "/" (both exist, nothing above them to create). */
static size_t
parent_cut(const char *p, size_t cut)
{
    while (cut > 0 && p[cut - 1] != '/')
        cut--;
    while (cut > 0 && p[cut - 1] == '/')
        cut--;
    return cut;
}

/*
 * Probes p[0..cut) (fs:read read_metadata). Returns 0 when a directory
 * is there, PROBE_ABSENT when nothing is (*denied: policy hid it, so it
 * may be there after all), else the status after the message: 1, 125.
 */
static int
probe_prefix(mkdir_run *mr, char *p, size_t cut, bool leaf, bool *denied)
{
    sh_ctx *cx = mr->mr_cx;
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    char saved = p[cut];
    p[cut] = '\0';
    int err = sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, p, &st, &r);
    int status = 0;
    // ENOTDIR: something above is not a directory; the walk up names it
    if ((err == ENOENT || (err == ENOTDIR && r.kr_outcome == SH_KR_OS_ERROR)) &&
        (r.kr_outcome == SH_KR_OS_ERROR || r.kr_outcome == SH_KR_DENIED)) {
        *denied = r.kr_outcome == SH_KR_DENIED;
        sh_kernel_result_clear(&r);
        status = PROBE_ABSENT;
    } else if (err != 0) {
        status = mkdir_fail(mr, p, &r);
    } else if (!S_ISDIR(st.ks_mode)) {
        sh_kernel_result_clear(&r);
        status = mkdir_errno(mr, p, leaf ? EEXIST : ENOTDIR);
    } else {
        sh_kernel_result_clear(&r);
    }
    p[cut] = saved;
    return status;
}

/*
 * Creates p's components after the first cut bytes, in order. A denied
 * create of an ancestor whose probe was denied too may be a directory
 * policy hides: its denial is held, and reported only if the next
 * create finds no parent. Returns 0, 1 or 125.
 */
static int
create_down(mkdir_run *mr, char *p, size_t cut, size_t len, const bool *hidden)
{
    sh_kernel_result held = {0}, r = {0};
    char *held_path = NULL;
    int status = 0;
    for (size_t i = cut; i < len && status == 0;) {
        while (i < len && p[i] == '/')
            i++;
        while (i < len && p[i] != '/')
            i++;
        char saved = p[i];
        p[i] = '\0';
        int err = mkdir_try(mr, p, true, i >= len, &r);
        if (err == 0 || held_path == NULL || err != ENOENT) {
            sh_kernel_result_clear(&held);
            box_free(held_path);
            held_path = NULL;
        }
        if (err != 0 && i < len && hidden[i] && r.kr_outcome == SH_KR_DENIED) {
            held = r; // taken: r is zeroed below
            memset(&r, 0, sizeof r);
            if ((held_path = box_strdup(p)) == NULL)
                status = sh_cmd_err(mr->mr_cx, "mkdir", 1, "out of memory");
        } else if (err != 0 && held_path != NULL) {
            sh_kernel_result_clear(&r);
            status = mkdir_fail(mr, held_path, &held);
        } else if (err != 0 && r.kr_outcome == SH_KR_OK) {
            status = 1; // stdout is gone: sh_write said so
        } else if (err != 0) {
            status = mkdir_fail(mr, p, &r);
        }
        p[i] = saved;
    }
    sh_kernel_result_clear(&held);
    sh_kernel_result_clear(&r);
    box_free(held_path);
    return status;
}

/*
 * mkdir -p: probes upward from the operand for the deepest existing
 * directory, then creates downward. Probing first means an operand that
 * is already there costs one read_metadata question, and create_dir is
 * never asked about ancestors that exist (a policy has no reason to let
 * the agent create /home). A denied probe reads as absent, so the create
 * is asked; its EEXIST is taken as "there" (a later create below it
 * fails if that is not a directory).
 */
static int
mkdir_parents(mkdir_run *mr, const char *operand)
{
    size_t len = strlen(operand);
    while (len > 1 && operand[len - 1] == '/')
        len--;
    char *p = box_strndup(operand, len);
    bool *hidden = box_calloc(len + 1, sizeof *hidden);
    int status = 0;
    if (p == NULL || hidden == NULL) {
        status = sh_cmd_err(mr->mr_cx, "mkdir", 1, "out of memory");
        goto out;
    }
    size_t cut = len;
    while (cut > 0) {
        int rc = probe_prefix(mr, p, cut, cut == len, &hidden[cut]);
        if (rc == 0)
            break;
        if (rc != PROBE_ABSENT) {
            status = rc;
            goto out;
        }
        cut = parent_cut(p, cut);
    }
    status = create_down(mr, p, cut, len, hidden);
out:
    box_free(hidden);
    box_free(p);
    return status;
}

/* mkdir: fs:write create_dir per directory made (box-spec §3.6), and
 * with -m fs:write set_permissions on the operand. Without -p an
 * existing directory is "File exists". */
/* cmd_operand_fn: one directory (with -p, its missing parents). */
static int
mkdir_operand(void *run, const char *p)
{
    mkdir_run *mr = run;
    sh_kernel_result r = {0};
    int rc;
    if (p[0] == '\0') // the kernel would read "" as the cwd
        return mkdir_errno(mr, p, ENOENT);
    if (mr->mr_parents)
        return mkdir_parents(mr, p);
    if ((rc = mkdir_try(mr, p, false, true, &r)) != 0)
        rc = r.kr_outcome == SH_KR_OK ? 1 : mkdir_fail(mr, p, &r);
    return rc;
}

int
sh_cmd_mkdir(sh_ctx *cx, int argc, char **argv, const sh_opts *unused)
{
    (void)unused;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &mkdir_spec, argc, argv);
    mkdir_run mr = {.mr_cx = cx};
    bool parents = false;
    const char *mode = NULL, *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'p')
            parents = true;
        else if (id == 'v')
            mr.mr_verbose = true;
        else if (id == 'm')
            mode = arg;
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (mode != NULL) {
        if (!cmd_mode_apply(mode, MKDIR_MODE, true, sh_umask_get(cx),
                            &mr.mr_mode)) {
            st = cmd_errq(cx, "mkdir", 1, "invalid mode", CMD_QL, mode);
            goto out;
        }
        mr.mr_has_mode = true;
    }
    if (it.gi_nops == 0) {
        st = sh_gopt_usage_error(&it, "missing operand");
        goto out;
    }
    mr.mr_parents = parents;
    st = cmd_each_operand(&it, mkdir_operand, &mr);
out:
    sh_gopt_free(&it);
    return st;
}
