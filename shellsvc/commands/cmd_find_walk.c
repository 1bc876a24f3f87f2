/* SPDX-License-Identifier: Apache-2.0 */
/* find's walk: each entry's metadata (fs:read read_metadata), each
 * directory's listing (fs:read enumerate), the tree judged pre-order or,
 * under -depth, post-order. A refused entry is one message; the walk goes
 * on. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_find.h"
#include "sh_gopt.h"

/* The directories above an entry, for -L's loop check. */
typedef struct fnd_anc {
    uint64_t a_dev, a_ino;
    const char *a_path;
    const struct fnd_anc *a_up;
} fnd_anc;

static bool
live(fnd_run *f)
{
    if (f->f_stop || f->f_quit)
        return false;
    if (sh_check_stop(f->f_cx)) {
        f->f_stop = true;
        f->f_status = f->f_cx->cx_status ? f->f_cx->cx_status : 1;
        return false;
    }
    return true;
}

/*
 * The entry's metadata: lstat, or stat when links are followed (-L, or
 * -H for a starting point), a dangling link then being the link itself.
 * A denied probe answers "absent" without a message; rather than call
 * the entry missing we ask the listing question, whose denial (with the
 * policy's text) is the one message the entry gets.
 */
static bool
entry_stat(fnd_run *f, fnd_entry *e)
{
    sh_ctx *cx = f->f_cx;
    sh_kernel *k = sh_kern(cx);
    const char *cwd = cx->cx_st->st_cwd;
    sh_kernel_result r = {0};
    bool follow =
        f->f_follow == FND_L || (f->f_follow == FND_H && e->e_depth == 0);
    int rc;
    if (follow) {
        rc = sh_kernel_stat_path(k, cwd, e->e_path, &e->e_st, &r);
        if (rc == 0) {
            e->e_followed = true;
        } else if (r.kr_outcome == SH_KR_OS_ERROR && r.kr_errno == ENOENT) {
            sh_kernel_result_clear(&r);
            rc = sh_kernel_lstat(k, cwd, e->e_path, &e->e_st, &r);
        }
    } else {
        rc = sh_kernel_lstat(k, cwd, e->e_path, &e->e_st, &r);
    }
    if (rc == 0) {
        sh_kernel_result_clear(&r);
        return true;
    }
    if (r.kr_outcome == SH_KR_DENIED && r.kr_message == NULL) {
        sh_kernel_result_clear(&r);
        char **names = NULL;
        size_t n = 0;
        if (sh_kernel_list(k, cwd, e->e_path, &names, &n, &r) == 0) {
            sh_kernel_names_free(names, n);
            sh_kernel_result_clear(&r);
            r.kr_outcome = SH_KR_OS_ERROR;
            r.kr_errno = EACCES;
        } else if (r.kr_outcome == SH_KR_OS_ERROR) {
            sh_kernel_result_clear(&r);
            r.kr_outcome = SH_KR_OS_ERROR;
            r.kr_errno = EACCES;
        }
    }
    fnd_fail(f, e->e_path, &r);
    return false;
}

static void visit(fnd_run *f, const char *path, const char *start,
                  unsigned depth, const fnd_anc *up);

/* A directory's entries in the order the kernel lists them: a host
 * directory's readdir order, as GNU find's (gnulib fts, given no compare
 * function, keeps it; it sorts by inode only past 10,000 entries on some
 * file systems, which this does not copy), the in-memory tree's newest
 * first, as tmpfs lists. */
static void
descend(fnd_run *f, fnd_entry *e, const fnd_anc *up)
{
    sh_ctx *cx = f->f_cx;
    sh_kernel_result r = {0};
    char **names = NULL;
    size_t n = 0;
    if (e->e_depth + 1 >= FND_MAX_DEPTH) {
        char *q = sh_gquote(e->e_path);
        sh_cmd_err(cx, "find", 1, "%s: directory tree too deep",
                   q ? q : e->e_path);
        box_free(q);
        f->f_status = f->f_status ? f->f_status : 1;
        return;
    }
    if (f->f_follow != FND_P) {
        for (const fnd_anc *a = up; a != NULL; a = a->a_up)
            if (a->a_dev == e->e_st.ks_dev && a->a_ino == e->e_st.ks_ino) {
                char *q1 = sh_gquote(e->e_path), *q2 = sh_gquote(a->a_path);
                sh_cmd_err(cx, "find", 1,
                           "File system loop detected; %s is part of the "
                           "same file system loop as %s.",
                           q1 ? q1 : e->e_path, q2 ? q2 : a->a_path);
                box_free(q1);
                box_free(q2);
                f->f_status = f->f_status ? f->f_status : 1;
                return;
            }
    }
    if (sh_kernel_list(sh_kern(cx), cx->cx_st->st_cwd, e->e_path, &names, &n,
                       &r) != 0) {
        fnd_fail(f, e->e_path, &r);
        return;
    }
    sh_kernel_result_clear(&r);
    fnd_anc me = {e->e_st.ks_dev, e->e_st.ks_ino, e->e_path, up};
    size_t pl = strlen(e->e_path);
    bool slash = pl > 0 && e->e_path[pl - 1] == '/';
    for (size_t i = 0; i < n && live(f); i++) {
        char *child =
            box_asprintf("%s%s%s", e->e_path, slash ? "" : "/", names[i]);
        if (child == NULL) {
            sh_cmd_err(cx, "find", 1, "memory exhausted");
            f->f_status = 1;
            break;
        }
        visit(f, child, e->e_start, e->e_depth + 1, &me);
        box_free(child);
    }
    sh_kernel_names_free(names, n);
}

static void
visit(fnd_run *f, const char *path, const char *start, unsigned depth,
      const fnd_anc *up)
{
    if (!live(f))
        return;
    fnd_entry e = {.e_path = path, .e_start = start, .e_depth = depth};
    if (!entry_stat(f, &e))
        return;
    bool dir = S_ISDIR(e.e_st.ks_mode) &&
               (f->f_maxdepth < 0 || (long)depth < f->f_maxdepth);
    bool judged = (long)depth >= f->f_mindepth;
    if (!f->f_depth && judged) {
        (void)fnd_eval(f, f->f_root, &e);
        if (e.e_prune)
            dir = false;
    }
    if (dir && live(f))
        descend(f, &e, up);
    if (f->f_depth && judged && live(f))
        (void)fnd_eval(f, f->f_root, &e);
}

void
fnd_walk(fnd_run *f, const char *start)
{
    if (start[0] == '\0') { // the kernel would read "" as the cwd
        char *q = sh_gquote(start);
        sh_cmd_err(f->f_cx, "find", 1, "%s: %s", q ? q : "", strerror(ENOENT));
        box_free(q);
        f->f_status = f->f_status ? f->f_status : 1;
        return;
    }
    visit(f, start, start, 0, NULL);
}
