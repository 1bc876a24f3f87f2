/* SPDX-License-Identifier: Apache-2.0 */
/* mkdir [-p] dir...: directories created through the kernel. */
#include <errno.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "sh_internal.h"

/* The session has no umask yet: directories get 0777 as redirections
 * create files 0666. */
#define MKDIR_MODE 0777
#define PROBE_ABSENT (-1)

/*
 * One fs:write create_dir. ok_exists (the -p walk) takes EEXIST as
 * success; a denial or fault is never EEXIST, so it cannot be hidden.
 * Returns 0, or the failed result in *r (the caller reports it).
 */
static int
mkdir_try(sh_ctx *cx, const char *path, bool ok_exists, sh_kernel_result *r)
{
    if (sh_kernel_mkdir(sh_kern(cx), cx->cx_st->st_cwd, path, MKDIR_MODE, r) ==
            0 ||
        (ok_exists && r->kr_outcome == SH_KR_OS_ERROR &&
         r->kr_errno == EEXIST)) {
        sh_kernel_result_clear(r);
        return 0;
    }
    return r->kr_errno;
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
probe_prefix(sh_ctx *cx, const char *operand, char *p, size_t cut, bool leaf,
             bool *denied)
{
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    char saved = p[cut];
    p[cut] = '\0';
    int err = sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, p, &st, &r);
    p[cut] = saved;
    if (err == ENOENT &&
        (r.kr_outcome == SH_KR_OS_ERROR || r.kr_outcome == SH_KR_DENIED)) {
        *denied = r.kr_outcome == SH_KR_DENIED;
        sh_kernel_result_clear(&r);
        return PROBE_ABSENT;
    }
    if (err != 0)
        return sh_fs_fail(cx, "mkdir", operand, &r);
    sh_kernel_result_clear(&r);
    if (S_ISDIR(st.ks_mode))
        return 0;
    return sh_cmd_err(cx, "mkdir", 1, "%s: %s", operand,
                      strerror(leaf ? EEXIST : ENOTDIR));
}

/*
 * Creates p's components after the first cut bytes, in order. A denied
 * create of an ancestor whose probe was denied too may be a directory
 * policy hides: its denial is held, and reported only if the next
 * create finds no parent. Returns 0, 1 or 125.
 */
static int
create_down(sh_ctx *cx, char *p, size_t cut, size_t len, const bool *hidden)
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
        int err = mkdir_try(cx, p, true, &r);
        if (err == 0 || held_path == NULL || err != ENOENT) {
            sh_kernel_result_clear(&held);
            box_free(held_path);
            held_path = NULL;
        }
        if (err != 0 && i < len && hidden[i] && r.kr_outcome == SH_KR_DENIED) {
            held = r; // taken: r is zeroed below
            memset(&r, 0, sizeof r);
            if ((held_path = box_strdup(p)) == NULL)
                status = sh_cmd_err(cx, "mkdir", 1, "out of memory");
        } else if (err != 0 && held_path != NULL) {
            sh_kernel_result_clear(&r);
            status = sh_fs_fail(cx, "mkdir", held_path, &held);
        } else if (err != 0) {
            status = sh_fs_fail(cx, "mkdir", p, &r);
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
mkdir_parents(sh_ctx *cx, const char *operand)
{
    size_t len = strlen(operand);
    while (len > 1 && operand[len - 1] == '/')
        len--;
    char *p = box_strndup(operand, len);
    bool *hidden = box_calloc(len + 1, sizeof *hidden);
    int status = 0;
    if (p == NULL || hidden == NULL) {
        status = sh_cmd_err(cx, "mkdir", 1, "out of memory");
        goto out;
    }
    size_t cut = len;
    while (cut > 0) {
        int rc = probe_prefix(cx, operand, p, cut, cut == len, &hidden[cut]);
        if (rc == 0)
            break;
        if (rc != PROBE_ABSENT) {
            status = rc;
            goto out;
        }
        cut = parent_cut(p, cut);
    }
    status = create_down(cx, p, cut, len, hidden);
out:
    box_free(hidden);
    box_free(p);
    return status;
}

/* mkdir [-p] dir...: fs:write create_dir per directory made (box-spec
 * §3.6). Without -p an existing directory is "File exists". */
int
sh_cmd_mkdir(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    bool parents = sh_opt(o, 'p');
    sh_kernel_result r = {0};
    int status = 0;
    if (o->o_ind >= argc)
        return sh_cmd_err(cx, "mkdir", 1, "missing operand");
    for (int i = o->o_ind; i < argc; i++) {
        if (sh_check_stop(cx))
            return cx->cx_status;
        int rc;
        if (argv[i][0] == '\0') // the kernel would read "" as the cwd
            rc = sh_cmd_err(cx, "mkdir", 1, ": %s", strerror(ENOENT));
        else if (parents)
            rc = mkdir_parents(cx, argv[i]);
        else if ((rc = mkdir_try(cx, argv[i], false, &r)) != 0)
            rc = sh_fs_fail(cx, "mkdir", argv[i], &r);
        if (rc == BOX_STATUS_FAULT)
            return BOX_STATUS_FAULT;
        if (rc != 0)
            status = 1;
    }
    return status;
}
