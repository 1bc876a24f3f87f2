/* SPDX-License-Identifier: Apache-2.0 */
/* find's evaluator: judges one entry with the tree, runs the actions.
 * Every command -exec starts is its own shell:exec decision (box-spec
 * §3.5), every -delete its own fs:delete. */
#include <errno.h>
#include <fnmatch.h>
#include <math.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_find.h"
#include "sh_gopt.h"

void
fnd_base(const char *path, size_t *start, size_t *len)
{
    *len = strlen(path);
    sh_path_last(path, start, len);
}

void
fnd_fail(fnd_run *f, const char *name, sh_kernel_result *r)
{
    (void)fnd_out_flush(f); // what was found comes out before a fault ends
    if (r->kr_outcome == SH_KR_OS_ERROR ||
        (r->kr_outcome == SH_KR_DENIED && r->kr_message == NULL)) {
        char *q = sh_gquote(name);
        sh_errf(f->f_cx, "find: %s: %s", q ? q : name,
                strerror(r->kr_errno ? r->kr_errno : EACCES));
        box_free(q);
        sh_kernel_result_clear(r);
        if (f->f_status == 0)
            f->f_status = 1;
        return;
    }
    int st = sh_fs_fail(f->f_cx, "find", NULL, r);
    if (st == BOX_STATUS_FAULT) {
        f->f_status = BOX_STATUS_FAULT;
        f->f_stop = true;
    } else if (f->f_status == 0) {
        f->f_status = 1;
    }
}

bool
fnd_out_flush(fnd_run *f)
{
    if (f->f_out.b_len == 0)
        return !f->f_stop;
    errno = 0;
    int rc = sh_write(f->f_cx, 1, f->f_out.b_data, f->f_out.b_len);
    int err = errno ? errno : EBADF;
    box_buf_truncate(&f->f_out, 0);
    if (rc == SH_IO_ERR) { // GNU's two lines for a bad fd 1
        sh_errf(f->f_cx, "find: ‘standard output’: %s", strerror(err));
        sh_errf(f->f_cx, "find: write error: %s", strerror(err));
    }
    if (rc != SH_IO_OK) {
        f->f_stop = true;
        if (f->f_status == 0)
            f->f_status = 1;
    }
    return !f->f_stop;
}

void
fnd_out(fnd_run *f, const char *p, size_t n)
{
    if (f->f_stop)
        return;
    if (box_buf_append(&f->f_out, p, n) != BOX_OK) {
        (void)fnd_out_flush(f);
        if (!f->f_stop && sh_write(f->f_cx, 1, p, n) != SH_IO_OK)
            f->f_stop = true;
        return;
    }
    if (f->f_out.b_len >= FND_OUT_FLUSH)
        (void)fnd_out_flush(f);
}

static unsigned
type_bit(mode_t m)
{
    if (S_ISREG(m))
        return FND_T_F;
    if (S_ISDIR(m))
        return FND_T_D;
    if (S_ISLNK(m))
        return FND_T_L;
    if (S_ISFIFO(m))
        return FND_T_P;
    if (S_ISSOCK(m))
        return FND_T_S;
    if (S_ISCHR(m))
        return FND_T_C;
    if (S_ISBLK(m))
        return FND_T_B;
    return 0;
}

/* -xtype: the type seen the other way (followed when the walk does not
 * follow, not followed when it does); a link that cannot be followed is
 * a link. */
static bool
eval_xtype(fnd_run *f, fnd_node *n, fnd_entry *e)
{
    sh_ctx *cx = f->f_cx;
    sh_kernel_result r = {0};
    sh_kernel_stat st;
    int rc = f->f_follow == FND_P && !S_ISLNK(e->e_st.ks_mode)
                 ? (st = e->e_st, 0)
             : f->f_follow != FND_P || e->e_followed
                 ? sh_kernel_lstat(sh_kern(cx), cx->cx_st->st_cwd, e->e_path,
                                   &st, &r)
                 : sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd,
                                       e->e_path, &st, &r);
    if (rc != 0) {
        if (r.kr_outcome == SH_KR_FAULT) {
            fnd_fail(f, e->e_path, &r);
            return false;
        }
        sh_kernel_result_clear(&r);
        st = e->e_st;
    }
    sh_kernel_result_clear(&r);
    return (n->n_types & type_bit(st.ks_mode)) != 0;
}

static bool
cmp_num(const fnd_node *n, uintmax_t v)
{
    return n->n_cmp == '+'   ? v > n->n_num
           : n->n_cmp == '-' ? v < n->n_num
                             : v == n->n_num;
}

/* -empty: an empty regular file, or a directory with no entries (one
 * fs:read enumerate). */
static bool
eval_empty(fnd_run *f, fnd_entry *e)
{
    if (S_ISREG(e->e_st.ks_mode))
        return e->e_st.ks_size == 0;
    if (!S_ISDIR(e->e_st.ks_mode))
        return false;
    sh_ctx *cx = f->f_cx;
    sh_kernel_result r = {0};
    char **names = NULL;
    size_t nn = 0;
    if (sh_kernel_list(sh_kern(cx), cx->cx_st->st_cwd, e->e_path, &names, &nn,
                       &r) != 0) {
        fnd_fail(f, e->e_path, &r);
        return false;
    }
    sh_kernel_result_clear(&r);
    sh_kernel_names_free(names, nn);
    return nn == 0;
}

static bool
eval_perm(const fnd_node *n, const fnd_entry *e)
{
    mode_t m = e->e_st.ks_mode & 07777;
    switch (n->n_permhow) {
    case '-':
        return (m & n->n_mode) == n->n_mode;
    case '/':
        return n->n_mode == 0 || (m & n->n_mode) != 0;
    default:
        return m == n->n_mode;
    }
}

/* -delete: fs:delete remove_dir for a directory, remove_file otherwise;
 * "." is never removed (GNU). */
static bool
eval_delete(fnd_run *f, fnd_entry *e)
{
    if (strcmp(e->e_path, ".") == 0)
        return true;
    sh_ctx *cx = f->f_cx;
    sh_kernel_result r = {0};
    int rc =
        S_ISDIR(e->e_st.ks_mode)
            ? sh_kernel_rmdir(sh_kern(cx), cx->cx_st->st_cwd, e->e_path, &r)
            : sh_kernel_unlink(sh_kern(cx), cx->cx_st->st_cwd, e->e_path, &r);
    if (rc == 0) {
        sh_kernel_result_clear(&r);
        return true;
    }
    if (r.kr_outcome == SH_KR_OS_ERROR) {
        char *q = sh_gquote(e->e_path);
        sh_errf(cx, "find: cannot delete %s: %s", q ? q : e->e_path,
                strerror(r.kr_errno));
        box_free(q);
        sh_kernel_result_clear(&r);
        if (f->f_status == 0)
            f->f_status = 1;
        return false;
    }
    fnd_fail(f, e->e_path, &r);
    return false;
}

/* Replaces every "{}" in w by path. */
static char *
subst(const char *w, const char *path)
{
    box_buf b;
    box_buf_init(&b, 1u << 22);
    box_err err = BOX_OK;
    for (const char *s = w; *s && err == BOX_OK;) {
        const char *h = strstr(s, "{}");
        if (h == NULL) {
            err = box_buf_puts(&b, s);
            break;
        }
        err = box_buf_append(&b, s, (size_t)(h - s));
        if (err == BOX_OK)
            err = box_buf_puts(&b, path);
        s = h + 2;
    }
    if (err != BOX_OK) {
        box_buf_reset(&b);
        return NULL;
    }
    return box_buf_take(&b);
}

/*
 * Runs one command: in a subshell copy of the context (a command find
 * starts cannot change the shell's own state), in dir for -execdir (one
 * fs:read change_dir decision), then its own shell:exec admission. The
 * held output is written first so the command's follows it. Returns the
 * command's status, or -1 when the call is over.
 */
static int
run_cmd(fnd_run *f, sh_argv *av, const char *dir)
{
    if (!fnd_out_flush(f))
        return -1;
    sh_ctx *cx = f->f_cx;
    sh_ctx *sub = sh_ctx_fork(cx);
    if (sub == NULL) {
        sh_cmd_err(cx, "find", 1, "memory exhausted");
        f->f_status = 1;
        return 1;
    }
    int st = dir != NULL ? sh_chdir(sub, "find", dir, true) : 0;
    if (st == 0)
        st = sh_exec_argv(sub, av->av_n, av->av_v, NULL, true);
    sh_ctx_free(sub);
    if (st == BOX_STATUS_FAULT || sh_check_stop(cx)) {
        f->f_stop = true;
        if (st == BOX_STATUS_FAULT)
            f->f_status = BOX_STATUS_FAULT;
        return -1;
    }
    return st;
}

/* The directory of path and its base for -execdir ("./base", the
 * trailing slashes kept as GNU does; "/" stays "/"). */
static void
split_dir(const char *path, char **dir, char **base)
{
    size_t start, len;
    fnd_base(path, &start, &len);
    if (path[start] == '/') { // slashes only
        *base = box_strdup(path);
        *dir = box_strdup("/");
        return;
    }
    *base = box_asprintf("./%s", path + start);
    if (start == 0)
        *dir = box_strdup(".");
    else
        *dir = box_strndup(path, start);
}

/* The template with "{}" put in, and for `+` the batch after it. */
static bool
build_argv(fnd_exec *x, const char *one, sh_argv *av)
{
    for (int i = 0; i < x->x_argc; i++) {
        char *w =
            x->x_plus ? box_strdup(x->x_argv[i]) : subst(x->x_argv[i], one);
        bool ok = w != NULL && sh_argv_push(av, w, strlen(w), false) == BOX_OK;
        box_free(w);
        if (!ok)
            return false;
    }
    for (int i = 0; x->x_plus && i < x->x_batch.av_n; i++)
        if (sh_argv_push(av, x->x_batch.av_v[i], strlen(x->x_batch.av_v[i]),
                         false) != BOX_OK)
            return false;
    return true;
}

/* Runs a `+` batch (if it holds paths); a failure makes find's status 1. */
static void
batch_run(fnd_run *f, fnd_exec *x)
{
    if (x->x_batch.av_n == 0)
        return;
    sh_argv av;
    sh_argv_init(&av);
    int st = build_argv(x, NULL, &av)
                 ? run_cmd(f, &av, x->x_batch_dir)
                 : (sh_cmd_err(f->f_cx, "find", 1, "memory exhausted"), 1);
    sh_argv_free(&av);
    sh_argv_free(&x->x_batch);
    sh_argv_init(&x->x_batch);
    x->x_bytes = 0;
    box_free(x->x_batch_dir);
    x->x_batch_dir = NULL;
    if (st != 0 && f->f_status == 0)
        f->f_status = 1;
}

void
fnd_exec_flush_all(fnd_run *f)
{
    for (size_t i = 0; i < f->f_nnodes; i++)
        if (f->f_nodes[i]->n_exec != NULL && !f->f_stop)
            batch_run(f, f->f_nodes[i]->n_exec);
}

/* -exec / -execdir: `;` runs now and is true when the command exits 0;
 * `+` collects the path and is true. */
static bool
eval_exec(fnd_run *f, fnd_exec *x, fnd_entry *e)
{
    char *dir = NULL, *base = NULL;
    const char *one = e->e_path;
    bool ok = false;
    if (x->x_dir) {
        split_dir(e->e_path, &dir, &base);
        if (dir == NULL || base == NULL) {
            sh_cmd_err(f->f_cx, "find", 1, "memory exhausted");
            goto out;
        }
        one = base;
    }
    if (x->x_plus) {
        if (x->x_batch.av_n > 0 &&
            (x->x_bytes + strlen(one) + 1 > FND_EXEC_MAX ||
             (x->x_dir && strcmp(dir, x->x_batch_dir) != 0)))
            batch_run(f, x);
        if (x->x_batch.av_n == 0 && x->x_dir) {
            x->x_batch_dir = dir;
            dir = NULL;
        }
        ok = sh_argv_push(&x->x_batch, one, strlen(one), false) == BOX_OK;
        x->x_bytes += strlen(one) + 1;
        goto out;
    }
    sh_argv av;
    sh_argv_init(&av);
    if (build_argv(x, one, &av))
        ok = run_cmd(f, &av, dir) == 0;
    else
        sh_cmd_err(f->f_cx, "find", 1, "memory exhausted");
    sh_argv_free(&av);
out:
    box_free(dir);
    box_free(base);
    return ok;
}

static bool
eval_name(const fnd_node *n, const fnd_entry *e)
{
    size_t start, len;
    fnd_base(e->e_path, &start, &len);
    char *b = box_strndup(e->e_path + start, len);
    bool m =
        b != NULL && fnmatch(n->n_arg, b, n->n_icase ? FNM_CASEFOLD : 0) == 0;
    box_free(b);
    return m;
}

bool
fnd_eval(fnd_run *f, fnd_node *n, fnd_entry *e)
{
    if (f->f_stop || f->f_quit)
        return false;
    switch (n->n_kind) {
    case FK_AND:
        for (size_t i = 0; i < n->n_nkids; i++)
            if (!fnd_eval(f, n->n_kids[i], e))
                return false;
        return true;
    case FK_OR:
        for (size_t i = 0; i < n->n_nkids; i++)
            if (fnd_eval(f, n->n_kids[i], e))
                return true;
        return false;
    case FK_NOT:
        return !fnd_eval(f, n->n_l, e);
    case FK_COMMA: {
        bool v = false;
        for (size_t i = 0; i < n->n_nkids; i++)
            v = fnd_eval(f, n->n_kids[i], e);
        return v;
    }
    case FK_TRUE:
        return true;
    case FK_FALSE:
        return false;
    case FK_NAME:
        return eval_name(n, e);
    case FK_PATH:
        return fnmatch(n->n_arg, e->e_path, n->n_icase ? FNM_CASEFOLD : 0) == 0;
    case FK_REGEX:
        return regexec(&n->n_re, e->e_path, 0, NULL, 0) == 0;
    case FK_TYPE:
        return (n->n_types & type_bit(e->e_st.ks_mode)) != 0;
    case FK_XTYPE:
        return eval_xtype(f, n, e);
    case FK_SIZE:
        return cmp_num(n, (e->e_st.ks_size + n->n_unit - 1) / n->n_unit);
    case FK_MTIME: {
        // GNU: the age in units, minutes rounded up, days down.
        double age = ((double)(f->f_now - e->e_st.ks_mtime) +
                      (double)(f->f_now_ns - e->e_st.ks_mtime_ns) / 1e9) /
                     (double)n->n_unit;
        double units = n->n_unit == 60 ? ceil(age) : floor(age);
        double want = (double)n->n_num + n->n_frac;
        return n->n_cmp == '+'   ? units > want
               : n->n_cmp == '-' ? units < want
                                 : units == want;
    }
    case FK_NEWER:
        return e->e_st.ks_mtime > n->n_time;
    case FK_EMPTY:
        return eval_empty(f, e);
    case FK_PERM:
        return eval_perm(n, e);
    case FK_PRINT:
        fnd_out(f, e->e_path, strlen(e->e_path));
        fnd_out(f, n->n_icase ? "" : "\n", 1);
        return true;
    case FK_PRINTF:
        fnd_printf(f, n->n_arg, e);
        return true;
    case FK_DELETE:
        return eval_delete(f, e);
    case FK_PRUNE:
        e->e_prune = true;
        return true;
    case FK_QUIT:
        f->f_quit = true;
        return true;
    case FK_EXEC:
        return eval_exec(f, n->n_exec, e);
    }
    return false;
}
