/* SPDX-License-Identifier: Apache-2.0 */
/* cp's engine (also mv's fallback across file systems): every byte read
 * and written, every directory made and link re-made, through the kernel. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_files.h"
#include "sh_bistate.h"
#include "sh_gopt.h"

#define COPY_CHUNK (64u * 1024u)

typedef struct copy_run {
    sh_ctx *cr_cx;
    const cmd_copy_opts *cr_o;
    /* A directory copied into itself: the copy's canonical name, which
     * the walk passes over when it meets it among the sources (GNU says
     * so once, copies the rest, and ends 1). Owned; NULL: none. */
    char *cr_skip;
} copy_run;

/* What the walk knows of a destination name before it acts. */
typedef struct copy_dst {
    bool cd_exists;       // something is bound there (lstat)
    bool cd_dir;          // it is (or its link leads to) a directory
    bool cd_link;         // it is a symbolic link itself
    sh_kernel_stat cd_st; // followed, when cd_exists and it resolves
    bool cd_st_ok;
} copy_dst;

static int copy_any(copy_run *cr, const char *src, const char *dst,
                    unsigned depth, bool top);

static const char *
kcwd(const copy_run *cr)
{
    return cr->cr_cx->cx_st->st_cwd;
}

/* -v before the act, as GNU prints it (also when the act then fails). */
static bool
copy_say(copy_run *cr, const char *src, const char *dst, bool dir)
{
    const cmd_copy_opts *o = cr->cr_o;
    if (!o->co_verbose)
        return true;
    if (o->co_verbose_mv && dir)
        return cmd_say(cr->cr_cx, "created directory ", dst, NULL, NULL);
    return cmd_say(cr->cr_cx, o->co_verbose_mv ? "copied " : "", src, " -> ",
                   dst);
}

/* Probes the destination: lstat, then stat through a link. A denied
 * probe reads as absent; the act's own decision then answers. */
static int
probe_dst(copy_run *cr, const char *dst, copy_dst *d)
{
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    memset(d, 0, sizeof *d);
    if (sh_kernel_lstat(sh_kern(cr->cr_cx), kcwd(cr), dst, &st, &r) != 0) {
        if (r.kr_outcome == SH_KR_FAULT)
            return sh_fs_fail(cr->cr_cx, cr->cr_o->co_cmd, dst, &r);
        sh_kernel_result_clear(&r);
        return 0;
    }
    sh_kernel_result_clear(&r);
    d->cd_exists = true;
    d->cd_link = S_ISLNK(st.ks_mode);
    d->cd_st = st;
    d->cd_st_ok = !d->cd_link;
    if (d->cd_link) {
        if (sh_kernel_stat_path(sh_kern(cr->cr_cx), kcwd(cr), dst, &d->cd_st,
                                &r) == 0)
            d->cd_st_ok = true;
        else if (r.kr_outcome == SH_KR_FAULT)
            return sh_fs_fail(cr->cr_cx, cr->cr_o->co_cmd, dst, &r);
        sh_kernel_result_clear(&r);
    }
    d->cd_dir = d->cd_st_ok && S_ISDIR(d->cd_st.ks_mode);
    return 0;
}

/* -p, -a, mv: the source's mode on the copy (fs:write set_permissions). */
static int
copy_mode(copy_run *cr, const char *dst, mode_t mode)
{
    sh_kernel_result r = {0};
    if (sh_kernel_chmod(sh_kern(cr->cr_cx), kcwd(cr), dst, mode & 07777, &r) ==
        0) {
        sh_kernel_result_clear(&r);
        return 0;
    }
    return cmd_failq(cr->cr_cx, cr->cr_o->co_cmd, &r,
                     "preserving permissions for", CMD_QAF, dst);
}

/* -p, -a, mv: the source's access and modification times on the copy
 * (on a link itself when follow is false); nothing when policy hid the
 * source's metadata (sst NULL). */
static int
copy_times(copy_run *cr, const char *dst, const sh_kernel_stat *sst,
           bool follow)
{
    if (!cr->cr_o->co_preserve_times || sst == NULL)
        return 0;
    sh_kernel_result r = {0};
    struct timespec t[2] = {{sst->ks_atime, sst->ks_atime_ns},
                            {sst->ks_mtime, sst->ks_mtime_ns}};
    if (sh_kernel_set_times(sh_kern(cr->cr_cx), kcwd(cr), dst, t,
                            follow ? 0 : SH_KT_NOFOLLOW, 0, &r) == 0) {
        sh_kernel_result_clear(&r);
        return 0;
    }
    return cmd_failq(cr->cr_cx, cr->cr_o->co_cmd, &r, "preserving times for",
                     CMD_QAF, dst);
}

/* Opens the destination for writing; under -f an existing one that will
 * not open is removed (fs:delete remove_file) and created afresh. */
static int
open_dst(copy_run *cr, const char *dst, const copy_dst *d, mode_t mode,
         sh_kernel_file **out)
{
    sh_ctx *cx = cr->cr_cx;
    const char *cmd = cr->cr_o->co_cmd;
    sh_kernel_result r = {0};
    int fl = O_WRONLY | O_CREAT | O_TRUNC;
    if (sh_kernel_open(sh_kern(cx), kcwd(cr), dst, fl, mode, out, &r) == 0) {
        sh_kernel_result_clear(&r);
        return 0;
    }
    if (cr->cr_o->co_force && d->cd_exists && r.kr_outcome == SH_KR_OS_ERROR) {
        sh_kernel_result_clear(&r);
        if (sh_kernel_unlink(sh_kern(cx), kcwd(cr), dst, &r) != 0)
            return cmd_failq(cx, cmd, &r, "cannot remove", CMD_QAF, dst);
        sh_kernel_result_clear(&r);
        if (sh_kernel_open(sh_kern(cx), kcwd(cr), dst, fl, mode, out, &r) ==
            0) {
            sh_kernel_result_clear(&r);
            return 0;
        }
        return cmd_failq(cx, cmd, &r, "cannot create regular file", CMD_QAF,
                         dst);
    }
    if (d->cd_exists)
        return cmd_failq_after(cx, cmd, &r, "cannot open", CMD_QAF, dst,
                               "for writing");
    return cmd_failq(cx, cmd, &r, "cannot create regular file", CMD_QAF, dst);
}

/* A regular file (or what a followed link leads to): read_content on
 * the source, write_content on the destination, bytes between. */
static int
copy_file(copy_run *cr, const char *src, const char *dst, const copy_dst *d,
          const sh_kernel_stat *sst, mode_t smode)
{
    sh_ctx *cx = cr->cr_cx;
    const char *cmd = cr->cr_o->co_cmd;
    sh_kernel_result r = {0};
    sh_kernel_file *in = NULL, *out = NULL;
    char *buf = NULL;
    int status = 0;
    if (sh_kernel_open(sh_kern(cx), kcwd(cr), src, O_RDONLY, 0, &in, &r) != 0) {
        status = cmd_failq_after(cx, cmd, &r, "cannot open", CMD_QAF, src,
                                 "for reading");
        goto out;
    }
    sh_kernel_result_clear(&r);
    mode_t mode = cr->cr_o->co_preserve_mode
                      ? smode & 0777
                      : (mode_t)sh_umask_apply(cx, smode & 0777);
    if ((status = open_dst(cr, dst, d, mode, &out)) != 0)
        goto out;
    if ((buf = box_alloc(COPY_CHUNK)) == NULL) {
        status = sh_cmd_err(cx, cmd, 1, "out of memory");
        goto out;
    }
    for (;;) {
        if (sh_check_stop(cx)) {
            status = cx->cx_status;
            goto out;
        }
        ssize_t n = sh_kernel_read(in, buf, COPY_CHUNK);
        if (n == 0)
            break;
        if (n < 0) {
            r = (sh_kernel_result){.kr_outcome = SH_KR_OS_ERROR,
                                   .kr_errno = (int)-n};
            status = cmd_failq(cx, cmd, &r, "error reading", CMD_QAF, src);
            goto out;
        }
        for (ssize_t off = 0; off < n;) {
            ssize_t w = sh_kernel_write(out, buf + off, (size_t)(n - off));
            if (w <= 0) {
                r = (sh_kernel_result){.kr_outcome = SH_KR_OS_ERROR,
                                       .kr_errno = w < 0 ? (int)-w : EIO};
                status = cmd_failq(cx, cmd, &r, "error writing", CMD_QAF, dst);
                goto out;
            }
            off += w;
        }
    }
    // Closed first: a write still buffered would renew the time.
    sh_kernel_close(out);
    out = NULL;
    status = copy_times(cr, dst, sst, true);
    if (status == 0 && cr->cr_o->co_preserve_mode)
        status = copy_mode(cr, dst, smode);
out:
    box_free(buf);
    if (out != NULL)
        sh_kernel_close(out);
    if (in != NULL)
        sh_kernel_close(in);
    return status;
}

/* A link copied as a link (-r, -a, -P, mv): read_link, then the new
 * link (fs:write symlink legs). What was bound at dst goes first. */
static int
copy_link(copy_run *cr, const char *src, const char *dst, const copy_dst *d,
          const sh_kernel_stat *sst)
{
    sh_ctx *cx = cr->cr_cx;
    const char *cmd = cr->cr_o->co_cmd;
    sh_kernel_result r = {0};
    char *target = NULL;
    int status = 0;
    if (sh_kernel_readlink(sh_kern(cx), kcwd(cr), src, &target, &r) != 0) {
        status =
            cmd_failq(cx, cmd, &r, "cannot read symbolic link", CMD_QAF, src);
        goto out;
    }
    sh_kernel_result_clear(&r);
    if (d->cd_exists) {
        if (sh_kernel_unlink(sh_kern(cx), kcwd(cr), dst, &r) != 0) {
            status = cmd_failq(cx, cmd, &r, "cannot remove", CMD_QAF, dst);
            goto out;
        }
        sh_kernel_result_clear(&r);
    }
    if (sh_kernel_symlink(sh_kern(cx), kcwd(cr), target, dst, &r) != 0) {
        status =
            cmd_failq(cx, cmd, &r, "cannot create symbolic link", CMD_QAF, dst);
        goto out;
    }
    sh_kernel_result_clear(&r);
    status = copy_times(cr, dst, sst, false);
out:
    box_free(target);
    return status;
}

/* Whether the canonical dst lies in (or is) the canonical src: copying
 * a directory into itself would never end. Then cr_skip takes dst's
 * canonical name. No decision: both names were or will be decided by
 * the probes and acts around this check. */
static bool
into_itself(copy_run *cr, const char *src, const char *dst)
{
    char *cs = NULL, *cd = NULL;
    bool in = false;
    sh_kernel *k = sh_kern(cr->cr_cx);
    if (sh_kernel_resolve_path(k, kcwd(cr), src, true, &cs, NULL) == 0 &&
        sh_kernel_resolve_path(k, kcwd(cr), dst, true, &cd, NULL) == 0)
        in = cmd_inside(cs, cd, false);
    if (in && cr->cr_skip == NULL) {
        cr->cr_skip = cd;
        cd = NULL;
    }
    box_free(cs);
    box_free(cd);
    return in;
}

/* The copy being made, met again as a source below itself. */
static bool
is_skipped(copy_run *cr, const char *src)
{
    char *cs = NULL;
    bool skip = cr->cr_skip != NULL &&
                sh_kernel_resolve_path(sh_kern(cr->cr_cx), kcwd(cr), src, false,
                                       &cs, NULL) == 0 &&
                strcmp(cs, cr->cr_skip) == 0;
    box_free(cs);
    return skip;
}

/* A directory: made when new (create_dir), then each entry in byte
 * order, then the source's mode when it is kept. */
static int
copy_dir(copy_run *cr, const char *src, const char *dst, const copy_dst *d,
         const sh_kernel_stat *sst, mode_t smode, unsigned depth)
{
    sh_ctx *cx = cr->cr_cx;
    const char *cmd = cr->cr_o->co_cmd;
    sh_kernel_result r = {0};
    char **names = NULL;
    size_t n = 0;
    int status = 0;
    if (depth >= CMD_MAX_DEPTH)
        return cmd_errq(cx, cmd, 1, "directory tree too deep:", CMD_QAF, src);
    if (!d->cd_exists) {
        if (!copy_say(cr, src, dst, true))
            return 1;
        mode_t mode = cr->cr_o->co_preserve_mode
                          ? (smode & 0777) | 0700
                          : (mode_t)sh_umask_apply(cx, smode & 0777);
        if (sh_kernel_mkdir(sh_kern(cx), kcwd(cr), dst, mode, &r) != 0)
            return cmd_failq(cx, cmd, &r, "cannot create directory", CMD_QAF,
                             dst);
        sh_kernel_result_clear(&r);
    }
    if (cmd_list(cx, src, CMD_LIST_INODE, &names, &n, &r) != 0)
        return cmd_failq(cx, cmd, &r, "cannot access", CMD_QAF, src);
    for (size_t i = 0; i < n && status != BOX_STATUS_FAULT; i++) {
        if (sh_check_stop(cx)) {
            status = cx->cx_status;
            goto out;
        }
        char *s = cmd_join(src, names[i]);
        char *t = cmd_join(dst, names[i]);
        int rc = s && t ? copy_any(cr, s, t, depth + 1, false)
                        : sh_cmd_err(cx, cmd, 1, "out of memory");
        box_free(s);
        box_free(t);
        status = cmd_worse(status, rc);
    }
    // After the entries, whose making renews the directory's time.
    if (status == 0)
        status = copy_times(cr, dst, sst, true);
    if (status == 0 && cr->cr_o->co_preserve_mode)
        status = copy_mode(cr, dst, smode);
out:
    sh_kernel_names_free(names, n);
    return status;
}

/* One source name: probed (followed or not, as -L/-P/-H say), then
 * checked against what is at dst, then copied by its type. */
static int
copy_any(copy_run *cr, const char *src, const char *dst, unsigned depth,
         bool top)
{
    sh_ctx *cx = cr->cr_cx;
    const cmd_copy_opts *o = cr->cr_o;
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    const sh_kernel_stat *sst = &st; // NULL: policy hid the metadata
    if (!top && is_skipped(cr, src))
        return 0;
    bool follow = o->co_deref || (top && o->co_deref_top);
    int err = follow ? sh_kernel_stat_path(sh_kern(cx), kcwd(cr), src, &st, &r)
                     : sh_kernel_lstat(sh_kern(cx), kcwd(cr), src, &st, &r);
    if (err != 0 && r.kr_outcome == SH_KR_DENIED) {
        // Policy hid the source's metadata: copy it as a file, so the
        // read's own decision speaks (and a permitted read still copies).
        sh_kernel_result_clear(&r);
        memset(&st, 0, sizeof st);
        st.ks_mode = S_IFREG | 0666;
        sst = NULL;
    } else if (err != 0) {
        return cmd_failq(cx, o->co_cmd, &r, "cannot stat", CMD_QAF, src);
    }
    sh_kernel_result_clear(&r);
    copy_dst d;
    int rc = probe_dst(cr, dst, &d);
    if (rc != 0)
        return rc;
    if (d.cd_exists && d.cd_st_ok && st.ks_ino != 0 &&
        d.cd_st.ks_dev == st.ks_dev && d.cd_st.ks_ino == st.ks_ino &&
        !(S_ISLNK(st.ks_mode) && d.cd_link)) {
        char *qs = sh_gquoteaf(src), *qd = sh_gquoteaf(dst);
        sh_errf(cx, "%s: %s and %s are the same file", o->co_cmd, qs ? qs : src,
                qd ? qd : dst);
        box_free(qs);
        box_free(qd);
        return 1;
    }
    if (S_ISDIR(st.ks_mode)) {
        if (!o->co_recursive)
            return cmd_errq(cx, o->co_cmd, 1,
                            "-r not specified; omitting directory", CMD_QAF,
                            src);
        if (d.cd_exists && !d.cd_dir) {
            char *qs = sh_gquoteaf(src), *qd = sh_gquoteaf(dst);
            sh_errf(cx,
                    "%s: cannot overwrite non-directory %s with directory %s",
                    o->co_cmd, qd ? qd : dst, qs ? qs : src);
            box_free(qs);
            box_free(qd);
            return 1;
        }
        int self = 0;
        if (into_itself(cr, src, dst)) {
            char *qs = sh_gquoteaf(src), *qd = sh_gquoteaf(dst);
            sh_errf(cx, "%s: cannot copy a directory, %s, into itself, %s",
                    o->co_cmd, qs ? qs : src, qd ? qd : dst);
            box_free(qs);
            box_free(qd);
            self = 1;
        }
        return cmd_worse(self, copy_dir(cr, src, dst, &d, sst, st.ks_mode, depth));
    }
    if (d.cd_exists && d.cd_dir) {
        char *qd = sh_gquoteaf(dst);
        sh_errf(cx, "%s: cannot overwrite directory %s with non-directory",
                o->co_cmd, qd ? qd : dst);
        box_free(qd);
        return 1;
    }
    if (d.cd_exists && o->co_no_clobber)
        return 0;
    if (!copy_say(cr, src, dst, false))
        return 1;
    if (S_ISLNK(st.ks_mode))
        return copy_link(cr, src, dst, &d, sst);
    return copy_file(cr, src, dst, &d, sst, st.ks_mode);
}

int
cmd_copy(sh_ctx *cx, const cmd_copy_opts *o, const char *src, const char *dst)
{
    copy_run cr = {.cr_cx = cx, .cr_o = o};
    int status = copy_any(&cr, src, dst, 0, true);
    box_free(cr.cr_skip);
    return status;
}
