/* SPDX-License-Identifier: Apache-2.0 */
/* The executor: lists, pipelines, compounds, simple commands, functions. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "sh_bistate.h"
#include "sh_cond.h"
#include "sh_glob.h"
#include "sh_array.h"
#include "sh_internal.h"
#include "sh_parse.h"

/*
 * Walks the AST with a context (sh_ctx) per thread of execution. Control
 * flow is visible: every function returns a status and break / continue
 * / return / exit travel in cx_flow (no longjmp). Every command reaches
 * sh_exec_admit before it runs — top level, pipeline stages (all of them
 * before any starts), $( ), eval, `command` and function calls — so no
 * route skips the admission point (ARCHITECTURE §5, spec §3.5).
 *
 * Concurrency: pipeline stages and `&` jobs are threads, each with a
 * context forked from its parent (own state copy, fd refs); $( ) and
 * ( ) run a forked context on the calling thread. A job belongs to the
 * call, not to the context that started it: `wait` joins the context's
 * own jobs, a context that ends hands the rest to the session, and the
 * call's end stops and joins them all (sh_session_end_jobs).
 */

struct sh_local {
    sh_local *l_next;
    char *l_name;
    bool l_existed;   // false: unset (and undeclared) before
    char *l_value;    // the scalar value saved (NULL: none)
    sh_array *l_arr;  // the elements saved (NULL: none)
    unsigned l_flags; // the attributes saved
    unsigned l_frame; // cx_funcs when saved
};

struct sh_job {
    sh_job *j_next;
    pthread_t j_th;
    sh_ctx *j_cx;
    const sh_node *j_node;
    int j_status;
    long j_id; // what $! says: the session's $$ plus the job's number
    atomic_int j_signal; // sent by `kill` (0: none); the job's cx_kill
    atomic_bool j_done;  // its thread has finished (kill: no such process)
    bool j_live; // counted in ss_live_stages (a process substitution)
    bool j_waitable; // what the current wait -n waits for (its thread's)
    // Its number in bash's job table (%N), 0 once out of it: a job that
    // ended leaves the table when the next one starts, and a new job
    // takes the number after the highest still there (1 when none is).
    unsigned j_num;
};

/* ---- helpers ---- */

/* A command failed where set -e would end the shell: the ERR trap runs,
 * then set -e ends it (bash's order). */
static void
errexit(sh_ctx *cx, int st)
{
    if (st == 0 || cx->cx_cond != 0 || cx->cx_flow != SH_FLOW_NONE)
        return;
    sh_trap_err(cx, st);
    if (cx->cx_st->st_opt_e && cx->cx_flow == SH_FLOW_NONE)
        sh_fatal(cx, st);
}

/* Records a pipeline's stage statuses ($PIPESTATUS) after it ran. */
static void
set_pipestatus(sh_ctx *cx, int n, const int *status)
{
    if (sh_pipestatus_set(cx->cx_st, n, status) != BOX_OK)
        sh_errf(cx, "out of memory");
}

/* set -o pipefail: the last non-zero stage status, else 0. */
static int
pipeline_status(const sh_ctx *cx, int n, const int *status)
{
    if (!cx->cx_st->st_opt_pipefail)
        return status[n - 1];
    int st = 0;
    for (int i = 0; i < n; i++)
        if (status[i] != 0)
            st = status[i];
    return st;
}

static int
depth_enter(sh_ctx *cx)
{
    if (cx->cx_depth >= SH_EXEC_MAX_DEPTH) {
        sh_too_deep(cx);
        return 1;
    }
    cx->cx_depth++;
    return 0;
}

sh_local *
sh_locals_mark(const sh_ctx *cx)
{
    return cx->cx_locals;
}

void
sh_locals_restore(sh_ctx *cx, sh_local *mark)
{
    while (cx->cx_locals != NULL && cx->cx_locals != mark) {
        sh_local *l = cx->cx_locals;
        cx->cx_locals = l->l_next;
        // The name itself, a name reference or not (_raw).
        sh_var *v = sh_var_find_raw(cx->cx_st, l->l_name);
        if (v != NULL)
            v->v_flags &= ~SH_VAR_READONLY; // a local readonly ends here
        sh_var_unset_raw(cx->cx_st, l->l_name);
        if (l->l_existed &&
            (v = sh_var_add_raw(cx->cx_st, l->l_name)) != NULL) {
            // The bytes were held before the call: they fit again.
            box_err e = BOX_OK;
            if (l->l_arr != NULL) {
                e = sh_var_set_array(cx->cx_st, v, l->l_arr);
                l->l_arr = NULL;
            } else if (l->l_value != NULL) {
                e = sh_var_set_found(cx->cx_st, v, l->l_name, l->l_value,
                                     strlen(l->l_value), NULL);
            }
            if ((v = sh_var_find_raw(cx->cx_st, l->l_name)) != NULL)
                v->v_flags = l->l_flags;
            (void)e;
        }
        box_free(l->l_name);
        box_free(l->l_value);
        sh_array_free(l->l_arr);
        box_free(l);
    }
}

box_err
sh_local_save(sh_ctx *cx, const char *name, bool *fresh)
{
    *fresh = false;
    for (sh_local *l = cx->cx_locals; l != NULL && l->l_frame == cx->cx_funcs;
         l = l->l_next)
        if (strcmp(l->l_name, name) == 0)
            return BOX_OK;
    sh_local *l = box_calloc(1, sizeof *l);
    if (l == NULL || (l->l_name = box_strdup(name)) == NULL) {
        box_free(l);
        return BOX_ENOMEM;
    }
    sh_var *v = sh_var_find_raw(cx->cx_st, name);
    if (v != NULL) {
        l->l_existed = true;
        l->l_flags = v->v_flags;
        if ((v->v_value != NULL &&
             (l->l_value = box_strdup(v->v_value)) == NULL) ||
            (v->v_arr != NULL && (l->l_arr = sh_array_dup(v->v_arr)) == NULL)) {
            box_free(l->l_value);
            box_free(l->l_name);
            box_free(l);
            return BOX_ENOMEM;
        }
    }
    l->l_frame = cx->cx_funcs;
    l->l_next = cx->cx_locals;
    cx->cx_locals = l;
    *fresh = true;
    return BOX_OK;
}

/* ---- admission ---- */

int
sh_exec_admit(sh_ctx *cx, int argc, char *const *argv, const bool *exp,
              bool bypass_funcs, sh_host_bind *b)
{
    sh_cmd_value cv = {
        .cv_argc = argc,
        .cv_argv = argv,
        .cv_expanded = exp,
        .cv_cwd = cx->cx_st->st_cwd,
    };
    sh_admission ad = {0};
    box_err arv = BOX_ENOMEM;
    if (sh_host_locate(cx, argv[0], bypass_funcs, b) == 0) {
        cv.cv_program_path = b->hb_host ? b->hb_reported : NULL;
        arv = sh_admit(cx->cx_ss, &cv, &ad);
    }
    if (arv != BOX_OK) {
        box_free(ad.ad_message);
        ad.ad_verdict = BOX_VERDICT_FAULT;
        ad.ad_message = box_strdup("out of memory");
    }
    int st = 0;
    switch (ad.ad_verdict) {
    case BOX_VERDICT_PERMIT:
        b->hb_ticket = ad.ad_ticket; // finished once the command is over
        break;
    case BOX_VERDICT_DENY:
        sh_box_errf(cx, "effect denied: %s",
                    ad.ad_message ? ad.ad_message
                                  : "policy denied this operation");
        st = BOX_STATUS_CANNOT_RUN;
        break;
    default:
        sh_box_errf(cx, "effect interception failed: %s",
                    ad.ad_message ? ad.ad_message : "no decision");
        sh_session_abort(cx->cx_ss, BOX_STATUS_FAULT);
        sh_fatal(cx, BOX_STATUS_FAULT);
        st = BOX_STATUS_FAULT;
        break;
    }
    box_free(ad.ad_message);
    return st;
}

/* Admits an expanded argv, keeping what it bound for the run. */
static int
admit_argv(sh_ctx *cx, sh_argv *av)
{
    bool xf;
    int rc = sh_host_multicall(cx, &av->av_v[0], &xf);
    if (rc != 0)
        return rc;
    sh_argv sb; // a `#!` script naming a shell: `<shell> <script> …`
    sh_argv_init(&sb);
    if (xf)
        rc = sh_shebang(cx, av->av_n, av->av_v, av->av_exp, &sb);
    if (rc == 0 && sb.av_n > 0) {
        sh_argv_free(av);
        *av = sb;
    } else {
        sh_argv_free(&sb);
        if (rc != 0)
            return rc;
    }
    if (av->av_bind == NULL &&
        (av->av_bind = box_calloc(1, sizeof *av->av_bind)) == NULL) {
        sh_errf(cx, "out of memory");
        return 1;
    }
    return sh_exec_admit(cx, av->av_n, av->av_v, av->av_exp, false,
                         av->av_bind);
}

/* ---- redirections ---- */

typedef struct rsave {
    int rs_fd;
    sh_stream *rs_old;
} rsave;

static int
redir_default_fd(sh_redir_kind k)
{
    switch (k) {
    case SH_R_IN:
    case SH_R_RDWR:
    case SH_R_DUPIN:
    case SH_R_HEREDOC:
    case SH_R_HEREDOC_STRIP:
    case SH_R_HERESTR:
        return 0;
    default:
        return 1;
    }
}

static void
redir_install(sh_ctx *cx, int fd, sh_stream *s, rsave *sv, int *nsv)
{
    sv[*nsv].rs_fd = fd;
    sv[*nsv].rs_old = cx->cx_fd[fd];
    (*nsv)++;
    cx->cx_fd[fd] = s;
}

static void
redirs_restore(sh_ctx *cx, rsave *sv, int nsv)
{
    for (int i = nsv - 1; i >= 0; i--) {
        sh_stream_unref(cx->cx_fd[sv[i].rs_fd]);
        cx->cx_fd[sv[i].rs_fd] = sv[i].rs_old;
    }
    box_free(sv);
}

/* `exec` without a command: what the redirections replaced goes. */
static void
redirs_keep(rsave *sv, int nsv)
{
    for (int i = 0; i < nsv; i++)
        sh_stream_unref(sv[i].rs_old);
    box_free(sv);
}

/* Opens a redirection target through the kernel (fs:read / fs:write).
 * /dev/fd/N names shell fd N (a process substitution's pipe end): its
 * stream as it is, never reopened, so its mode cannot widen. */
static sh_stream *
open_file(sh_ctx *cx, const char *path, int flags)
{
    int st; // the failure unwinds through the flow when it must
    return sh_stream_open(cx, NULL, path, NULL, flags, &st);
}

/*
 * `>` (and `&>`) under set -C, as bash: an existing regular file is
 * refused; anything else existing (/dev/null) opens without truncation;
 * a new file is created exclusively, so a file made meanwhile is not
 * overwritten either. `>|` never comes here.
 */
static sh_stream *
open_noclobber(sh_ctx *cx, const char *path)
{
    sh_kernel_stat ks;
    sh_kernel_result r = {0};
    int err =
        sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, path, &ks, &r);
    if (r.kr_outcome == SH_KR_FAULT) {
        (void)sh_fs_fail(cx, NULL, path, &r);
        return NULL;
    }
    sh_kernel_result_clear(&r);
    if (err != 0)
        return open_file(cx, path, O_WRONLY | O_CREAT | O_EXCL);
    if (S_ISREG(ks.ks_mode)) {
        sh_errf(cx, "%s: cannot overwrite existing file", path);
        return NULL;
    }
    return open_file(cx, path, O_WRONLY | O_CREAT);
}

/* A here-string's text: the word expanded (not split or globbed) and a
 * newline. */
static int
herestring_text(sh_ctx *cx, const sh_word *w, char **t, size_t *tl)
{
    int rc = sh_expand_str(cx, w, t, tl);
    if (rc != 0)
        return rc;
    char *nt = box_realloc(*t, *tl + 2);
    if (nt == NULL) {
        sh_errf(cx, "out of memory");
        box_free(*t);
        *t = NULL;
        return 1;
    }
    nt[(*tl)++] = '\n';
    nt[*tl] = '\0';
    *t = nt;
    return 0;
}

/* A redirection target: expanded as a command word (braces, fields,
 * globs) that must come out as exactly one word, else it is an
 * ambiguous redirect, as bash says. */
static int
redir_target_text(sh_ctx *cx, const sh_word *w, char **t, size_t *tl)
{
    sh_word one = *w; // only this word, not the ones after it
    one.w_next = NULL;
    sh_argv av;
    sh_argv_init(&av);
    int rc = sh_expand_words(cx, &one, &av);
    if (rc == 0 && av.av_n != 1) {
        sh_errf(cx, "%.*s: ambiguous redirect",
                (int)(w->w_rawlen > 100 ? 100 : w->w_rawlen), w->w_raw);
        rc = 1;
    } else if (rc == 0) {
        *tl = strlen(av.av_v[0]);
        if ((*t = sh_argv_take(&av, 0)) == NULL) {
            sh_errf(cx, "out of memory");
            rc = 1;
        }
    }
    sh_argv_free(&av);
    return rc;
}

/* Applies n's redirections; on BOX_OK *sv holds what to restore. A
 * failure prints the message, restores, and returns the status 1. */
static int
redirs_apply(sh_ctx *cx, const sh_redir *r, rsave **svp, int *nsvp)
{
    int cnt = 0;
    for (const sh_redir *q = r; q != NULL; q = q->r_next)
        cnt += 2;
    *svp = NULL;
    *nsvp = 0;
    if (cnt == 0)
        return 0;
    rsave *sv = box_calloc((size_t)cnt, sizeof *sv);
    if (sv == NULL) {
        sh_errf(cx, "out of memory");
        return 1;
    }
    int nsv = 0;
    for (; r != NULL; r = r->r_next) {
        int fd = r->r_fd >= 0 ? r->r_fd : redir_default_fd(r->r_kind);
        if (r->r_fdvar != NULL) {
            // {var}: persists after the command (bash), never restored.
            int rc = sh_fdvar_redir(cx, r, &fd);
            if (rc != 0)
                goto fail;
            if (fd < 0)
                continue; // {var}>&- closed it
        }
        if (fd >= SH_MAX_FD) {
            sh_errf(cx, "%d: Bad file descriptor", fd);
            goto fail;
        }
        char *t = NULL;
        size_t tl = 0;
        int rc;
        if (r->r_kind == SH_R_HEREDOC || r->r_kind == SH_R_HEREDOC_STRIP)
            rc = sh_expand_str(cx, r->r_body, &t, &tl);
        else if (r->r_kind == SH_R_HERESTR)
            rc = herestring_text(cx, r->r_target, &t, &tl);
        else
            rc = redir_target_text(cx, r->r_target, &t, &tl);
        if (rc != 0)
            goto fail;
        sh_stream *s = NULL;
        switch (r->r_kind) {
        case SH_R_HEREDOC:
        case SH_R_HEREDOC_STRIP:
        case SH_R_HERESTR:
            s = sh_stream_mem_take(t, tl);
            t = NULL;
            if (s == NULL)
                sh_errf(cx, "out of memory");
            break;
        case SH_R_DUPIN:
        case SH_R_DUPOUT: {
            if (strcmp(t, "-") == 0) {
                redir_install(cx, fd, NULL, sv, &nsv);
                box_free(t);
                continue;
            }
            char *end;
            long m = strtol(t, &end, 10);
            if (t[0] == '\0' || *end != '\0' || m < 0 || m >= SH_MAX_FD ||
                cx->cx_fd[m] == NULL) {
                if (r->r_fdvar != NULL) // bash says both
                    sh_errf(cx, "redirection error: cannot duplicate fd: "
                                "Bad file descriptor");
                // bash names the word as written (`$fd`, not `10`).
                const sh_word *w = r->r_target;
                sh_errf(cx, "%.*s: Bad file descriptor",
                        (int)(w->w_rawlen > 100 ? 100 : w->w_rawlen), w->w_raw);
                box_free(t);
                goto fail;
            }
            s = sh_stream_ref(cx->cx_fd[m]);
            break;
        }
        case SH_R_IN:
            s = open_file(cx, t, O_RDONLY);
            break;
        case SH_R_RDWR:
            s = open_file(cx, t, O_RDWR | O_CREAT);
            break;
        case SH_R_APPEND:
        case SH_R_BOTH_APPEND:
            s = open_file(cx, t, O_WRONLY | O_CREAT | O_APPEND);
            break;
        case SH_R_OUT:
        case SH_R_BOTH:
            if (cx->cx_st->st_opt_C) {
                s = open_noclobber(cx, t);
                break;
            }
            s = open_file(cx, t, O_WRONLY | O_CREAT | O_TRUNC);
            break;
        default:
            s = open_file(cx, t, O_WRONLY | O_CREAT | O_TRUNC);
            break;
        }
        box_free(t);
        if (s == NULL)
            goto fail;
        if (r->r_fdvar != NULL) {
            cx->cx_fd[fd] = s;
            if (sh_fdvar_assign(cx, r->r_fdvar, fd) != 0) {
                sh_stream_unref(s);
                cx->cx_fd[fd] = NULL;
                goto fail;
            }
        } else if (r->r_kind == SH_R_BOTH || r->r_kind == SH_R_BOTH_APPEND) {
            redir_install(cx, 1, s, sv, &nsv);
            redir_install(cx, 2, sh_stream_ref(s), sv, &nsv);
        } else {
            redir_install(cx, fd, s, sv, &nsv);
        }
    }
    *svp = sv;
    *nsvp = nsv;
    return 0;
fail:
    redirs_restore(cx, sv, nsv);
    if (cx->cx_flow == SH_FLOW_EXIT)
        return cx->cx_status ? cx->cx_status : 1;
    return 1;
}

/* ---- running a command by name ---- */

static int
call_func(sh_ctx *cx, const sh_func *f, int argc, char **argv)
{
    if (depth_enter(cx) != 0)
        return 1;
    sh_state *st = cx->cx_st;
    char **opos = st->st_pos;
    int onpos = st->st_npos;
    st->st_pos = NULL;
    st->st_npos = 0;
    if (sh_pos_set(st, argc - 1, argv + 1) != BOX_OK) {
        st->st_pos = opos;
        st->st_npos = onpos;
        cx->cx_depth--;
        sh_errf(cx, "out of memory");
        return 1;
    }
    sh_local *mark = sh_locals_mark(cx);
    unsigned oloops = cx->cx_loops;
    cx->cx_loops = 0;
    cx->cx_funcs++;
    // FUNCNAME[0] and BASH_LINENO[0] (the line it was called from, for
    // caller) are this call's from here to its end.
    bool pushed = sh_calls_push(st, SH_CALL_FUNC, argv[0],
                                (uint32_t)cx->cx_line, f->f_source) == BOX_OK;
    if (!pushed)
        sh_errf(cx, "out of memory");
    sh_trap_debug(cx); // bash: before the first command of a function
    // Its errors name the file it was defined in, as bash's do.
    const char *osource = cx->cx_source;
    cx->cx_source = f->f_source;
    int s = sh_exec_node(cx, f->f_body);
    cx->cx_source = osource;
    if (cx->cx_flow == SH_FLOW_RETURN) {
        cx->cx_flow = SH_FLOW_NONE;
        s = cx->cx_status;
    }
    cx->cx_status = s;
    sh_trap_return(cx, true);
    cx->cx_funcs--;
    cx->cx_loops = oloops;
    sh_locals_restore(cx, mark);
    if (pushed)
        sh_calls_pop(st);
    for (int i = 0; i < st->st_npos; i++)
        box_free(st->st_pos[i]);
    box_free(st->st_pos);
    st->st_pos = opos;
    st->st_npos = onpos;
    cx->cx_depth--;
    return s;
}

/* Runs argv (already admitted): builtin > function > the registry's
 * command > host program (the one its admission bound) > not found. */
static int
run_argv(sh_ctx *cx, int argc, char **argv, bool bypass_funcs,
         const sh_host_bind *b)
{
    if (b != NULL && b->hb_host)
        return sh_host_run(cx, argc, argv, b);
    const sh_cmd *c = sh_cmd_find(cx->cx_st, argv[0]);
    // A function hides a command of the registry, not a builtin (spec
    // §3.3: `sum() { …; }; sum 10` runs the function).
    if (!bypass_funcs && (c == NULL || (c->c_mode & SH_CMD_PROGRAM))) {
        const sh_func *f = sh_func_find(cx->cx_st, argv[0]);
        if (f != NULL)
            return call_func(cx, f, argc, argv);
    }
    if (c != NULL) {
        sh_opts o;
        int rc = sh_opts_parse(cx, c, argc, argv, &o);
        if (rc != 0)
            return rc;
        if (o.o_help)
            return sh_puts(cx, 1, "usage: ") == SH_IO_OK &&
                           sh_puts(cx, 1, c->c_usage) == SH_IO_OK &&
                           sh_puts(cx, 1, "\n") == SH_IO_OK
                       ? 0
                       : 1;
        if (!(c->c_mode & SH_CMD_PROGRAM))
            return c->c_fn(cx, argc, argv, &o);
        // A program (cat, grep) is bash's child: what it says is its own,
        // with no script line before it.
        const char *osource = cx->cx_source;
        cx->cx_source = NULL;
        int st = c->c_fn(cx, argc, argv, &o);
        cx->cx_source = osource;
        return st;
    }
    if (strchr(argv[0], '/') != NULL)
        return sh_shebang_missing(cx, argv[0]);
    sh_errf(cx, "%s: command not found", argv[0]);
    return BOX_STATUS_NOT_FOUND;
}

int
sh_exec_argv(sh_ctx *cx, int argc, char **argv, const bool *exp,
             bool bypass_funcs)
{
    sh_host_bind b = {0};
    bool xf;
    int rc = sh_host_multicall(cx, &argv[0], &xf);
    if (rc != 0)
        return rc;
    sh_argv sb; // a `#!` script naming a shell: `<shell> <script> …`
    sh_argv_init(&sb);
    if (xf)
        rc = sh_shebang(cx, argc, argv, exp, &sb);
    if (rc == 0 && sb.av_n > 0) {
        argc = sb.av_n;
        argv = sb.av_v;
        exp = sb.av_exp;
    }
    if (rc == 0)
        rc = sh_exec_admit(cx, argc, argv, exp, bypass_funcs, &b);
    if (rc == 0) {
        rc = run_argv(cx, argc, argv, bypass_funcs, &b);
        sh_admit_finish(cx->cx_ss, &b.hb_ticket, rc);
    }
    sh_host_bind_clear(&b);
    sh_argv_free(&sb);
    return rc;
}

/* ---- simple commands ---- */

box_err
sh_put_ps4(sh_ctx *cx, box_buf *b)
{
    const char *ps4 = sh_var_get(cx->cx_st, "PS4");
    if (ps4 == NULL)
        ps4 = "+ ";
    char *x = NULL;
    size_t xl = strlen(ps4);
    if (strpbrk(ps4, "$`\\") != NULL) {
        // Expanded as a double-quoted word, itself untraced.
        bool opt_x = cx->cx_st->st_opt_x;
        cx->cx_st->st_opt_x = false;
        if (sh_expand_dq_text(cx, "PS4", 0, ps4, xl, &x, &xl) != 0)
            xl = 0;
        cx->cx_st->st_opt_x = opt_x;
    }
    const char *v = x != NULL ? x : ps4;
    box_err e = BOX_OK;
    for (unsigned i = 0; xl > 0 && i < cx->cx_xlevel && e == BOX_OK; i++)
        e = box_buf_putc(b, v[0]);
    if (e == BOX_OK)
        e = box_buf_append(b, v, xl);
    box_free(x);
    return e;
}

/* set -x for one assignment made: "PREFIX NAME=VALUE" (ps4 NULL: the
 * current prefix). */
static void
xtrace_assign(sh_ctx *cx, const box_buf *ps4, const sh_assign *a)
{
    if (!cx->cx_st->st_opt_x)
        return;
    box_buf b;
    box_buf_init(&b, 65536);
    const char *v = sh_var_get(cx->cx_st, a->a_name);
    box_err e = ps4 != NULL ? box_buf_append(&b, ps4->b_data, ps4->b_len)
                            : sh_put_ps4(cx, &b);
    if (e == BOX_OK)
        e = box_buf_printf(&b, "%s=", a->a_name);
    if (e == BOX_OK && v != NULL && v[0] != '\0')
        e = sh_put_xtrace_word(&b, v);
    if (e == BOX_OK && box_buf_putc(&b, '\n') == BOX_OK)
        (void)sh_write(cx, 2, b.b_data, b.b_len);
    box_buf_reset(&b);
}

/* set -x for a command: its temporary assignments each on a line of
 * their own, then its words, as bash traces them. */
static void
xtrace(sh_ctx *cx, const sh_assign *as, int argc, char **argv)
{
    if (!cx->cx_st->st_opt_x)
        return;
    for (; as != NULL; as = as->a_next)
        xtrace_assign(cx, NULL, as);
    box_buf b;
    box_buf_init(&b, 65536);
    box_err e = sh_put_ps4(cx, &b);
    for (int i = 0; i < argc && e == BOX_OK; i++) {
        e = box_buf_puts(&b, i > 0 ? " " : "");
        if (e == BOX_OK)
            e = sh_put_xtrace_word(&b, argv[i]);
    }
    if (e == BOX_OK && box_buf_putc(&b, '\n') == BOX_OK)
        (void)sh_write(cx, 2, b.b_data, b.b_len);
    box_buf_reset(&b);
}

/* Assigns one NAME=word; returns 0 or a status. */
static int
assign_one(sh_ctx *cx, const sh_assign *a)
{
    return sh_assign_node(cx, a);
}

typedef struct tmpvar {
    char *tv_name;
    char *tv_old; // NULL: was unset
    unsigned tv_flags;
    bool tv_existed;
} tmpvar;

/* Runs a simple command; pre is an already expanded and admitted argv
 * (pipeline stages), or NULL. */
static int
exec_simple(sh_ctx *cx, const sh_node *n, sh_argv *pre)
{
    sh_argv own;
    sh_argv_init(&own);
    sh_argv *av = pre;
    int st = 0;
    if (pre == NULL)
        sh_trap_debug(cx);
    cx->cx_sub_ran = false;
    if (av == NULL) {
        av = &own;
        if ((st = sh_expand_words(cx, n->u.simple.words, av)) != 0)
            goto out;
    }
    if (av->av_n == 0) {
        // Assignments (and redirections) only, each traced as it is
        // made, with the prefix from before it (PS4=… shows the old).
        for (const sh_assign *a = n->u.simple.assigns; a; a = a->a_next) {
            box_buf ps4;
            box_buf_init(&ps4, 4096);
            if (cx->cx_st->st_opt_x && sh_put_ps4(cx, &ps4) != BOX_OK)
                box_buf_truncate(&ps4, 0);
            st = assign_one(cx, a);
            if (st == 0)
                xtrace_assign(cx, &ps4, a);
            box_buf_reset(&ps4);
            if (st != 0) {
                // bash outside POSIX mode discards a failed assignment
                // statement (a readonly name, a bad subscript) as it does
                // an expansion error: the rest of its line does not run,
                // the next line does, with $? 1.
                if (cx->cx_flow != SH_FLOW_EXIT)
                    sh_discard(cx, st);
                goto out;
            }
        }
        rsave *sv;
        int nsv;
        if ((st = redirs_apply(cx, n->n_redirs, &sv, &nsv)) != 0)
            goto out;
        redirs_restore(cx, sv, nsv);
        st = cx->cx_sub_ran ? cx->cx_sub_status : 0;
        goto out;
    }
    // An alias is not a command: the commands of its text are admitted.
    bool aliased = pre == NULL && sh_alias_applies(cx, n);
    if (pre == NULL && !aliased && (st = admit_argv(cx, av)) != 0)
        goto out;
    rsave *sv;
    int nsv;
    if ((st = redirs_apply(cx, n->n_redirs, &sv, &nsv)) != 0)
        goto out;
    // NAME=v cmd: a temporary, exported value for the command only.
    size_t nas = 0;
    for (const sh_assign *a = n->u.simple.assigns; a; a = a->a_next)
        nas++;
    tmpvar *tv = nas ? box_calloc(nas, sizeof *tv) : NULL;
    size_t ntv = 0;
    if (nas && tv == NULL) {
        sh_errf(cx, "out of memory");
        st = 1;
    }
    for (const sh_assign *a = n->u.simple.assigns; a && st == 0;
         a = a->a_next) {
        sh_var *v = sh_var_find(cx->cx_st, a->a_name);
        tv[ntv].tv_name = box_strdup(a->a_name);
        tv[ntv].tv_existed = v != NULL;
        if (v != NULL) {
            tv[ntv].tv_flags = v->v_flags;
            if (v->v_value)
                tv[ntv].tv_old = box_strdup(v->v_value);
        }
        ntv++;
        if ((st = assign_one(cx, a)) == 0 &&
            sh_var_export(cx->cx_st, a->a_name) != BOX_OK)
            st = 1;
        // bash: NAME=v cmd on a readonly NAME says so and runs cmd.
        sh_var *ro = sh_var_find(cx->cx_st, a->a_name);
        if (st != 0 && ro != NULL && (ro->v_flags & SH_VAR_READONLY) &&
            cx->cx_flow == SH_FLOW_NONE)
            st = 0;
    }
    if (st == 0) {
        xtrace(cx, n->u.simple.assigns, av->av_n, av->av_v);
        // declare NAME=( … ): the builtin assigns the elements.
        const sh_word *save = cx->cx_compound;
        cx->cx_compound = n->u.simple.words;
        st = aliased ? sh_alias_run(cx, av)
                     : run_argv(cx, av->av_n, av->av_v, false, av->av_bind);
        cx->cx_compound = save;
    }
    for (size_t i = ntv; i-- > 0;) {
        if (tv[i].tv_name == NULL)
            continue;
        if (!tv[i].tv_existed) {
            sh_var_unset(cx->cx_st, tv[i].tv_name);
        } else {
            sh_var *v = sh_var_find(cx->cx_st, tv[i].tv_name);
            if (v != NULL) {
                v->v_flags &= ~SH_VAR_READONLY;
                if (tv[i].tv_old != NULL) {
                    // It held these bytes before the command: they fit.
                    box_err e = sh_var_set(cx->cx_st, tv[i].tv_name,
                                           tv[i].tv_old, strlen(tv[i].tv_old));
                    (void)e;
                } else if (v->v_arr == NULL) {
                    sh_var_unset(cx->cx_st, tv[i].tv_name);
                    (void)sh_var_add(cx->cx_st, tv[i].tv_name);
                }
                if ((v = sh_var_find(cx->cx_st, tv[i].tv_name)) != NULL)
                    v->v_flags = tv[i].tv_flags;
            }
        }
        box_free(tv[i].tv_name);
        box_free(tv[i].tv_old);
    }
    box_free(tv);
    if (cx->cx_keep_redirs) {
        cx->cx_keep_redirs = false;
        redirs_keep(sv, nsv);
    } else {
        redirs_restore(cx, sv, nsv);
    }
out:
    if (cx->cx_flow == SH_FLOW_EXIT)
        st = cx->cx_status;
    // An admitted command is over, run or not (its redirections failed).
    if (av != NULL && av->av_bind != NULL)
        sh_admit_finish(cx->cx_ss, &av->av_bind->hb_ticket, st);
    sh_argv_free(&own);
    return st;
}

/* ---- pipelines and jobs ---- */

typedef struct stage {
    sh_ctx *sg_cx;
    const sh_node *sg_node;
    sh_argv sg_argv;
    bool sg_pre;
    int sg_status;
    pthread_t sg_th;
    bool sg_started;
} stage;

static int
run_stage(sh_ctx *cx, const sh_node *n, sh_argv *pre)
{
    int st;
    if (pre != NULL)
        st = exec_simple(cx, n, pre);
    else
        st = sh_exec_node(cx, n);
    if (cx->cx_flow == SH_FLOW_EXIT)
        st = cx->cx_status;
    return st;
}

static void *
stage_main(void *arg)
{
    stage *sg = arg;
    sg->sg_status =
        run_stage(sg->sg_cx, sg->sg_node, sg->sg_pre ? &sg->sg_argv : NULL);
    // Dropping the fds closes this stage's pipe ends (EOF / EPIPE).
    sh_ctx_free(sg->sg_cx);
    sg->sg_cx = NULL;
    return NULL;
}

static int
exec_pipe(sh_ctx *cx, const sh_node *n)
{
    unsigned k = n->u.pipe.n;
    bool bang = n->u.pipe.bang;
    if (k <= 1) {
        if (bang)
            cx->cx_cond++;
        int s = sh_exec_node(cx, n->u.pipe.stages);
        if (bang) {
            cx->cx_cond--;
            s = s == 0 ? 1 : 0;
        }
        return s;
    }
    stage sg[SH_MAX_PIPELINE];
    memset(sg, 0, sizeof sg);
    int st = 0;
    unsigned i = 0;
    /* Stages nest only through recursion (a function, eval, source or
     * substitution inside a stage), and a pipeline recursion grows
     * breadth first: `f(){ f|f; }; f` would run out of threads and pipes
     * long before one branch is SH_EXEC_MAX_DEPTH deep, and each branch
     * would fail on its own and go on. So the call is stopped as too
     * deep once that many stages run at once. */
    sh_session *ss = cx->cx_ss;
    if (atomic_fetch_add(&ss->ss_live_stages, k) + k > SH_MAX_LIVE_STAGES) {
        atomic_fetch_sub(&ss->ss_live_stages, k);
        sh_too_deep(cx);
        return 1;
    }
    const sh_node *s = n->u.pipe.stages;
    for (i = 0; i < k && s != NULL; i++, s = s->n_next) {
        sg[i].sg_node = s;
        sh_argv_init(&sg[i].sg_argv);
        if ((sg[i].sg_cx = sh_ctx_fork(cx)) == NULL) {
            sh_errf(cx, "out of memory");
            st = 1;
            goto out;
        }
    }
    k = i;
    for (i = 0; i + 1 < k; i++) {
        int p[2];
        if (pipe2(p, O_CLOEXEC) != 0) {
            sh_stop_call(cx, "cannot create pipe");
            st = 1;
            goto out;
        }
        sh_stream *w = sh_stream_fd(p[1]), *r = sh_stream_fd(p[0]);
        if (w == NULL || r == NULL) {
            if (w == NULL)
                close(p[1]);
            if (r == NULL)
                close(p[0]);
            sh_stream_unref(w);
            sh_stream_unref(r);
            sh_errf(cx, "out of memory");
            st = 1;
            goto out;
        }
        sh_stream_unref(sg[i].sg_cx->cx_fd[1]);
        sg[i].sg_cx->cx_fd[1] = w;
        sh_stream_unref(sg[i + 1].sg_cx->cx_fd[0]);
        sg[i + 1].sg_cx->cx_fd[0] = r;
    }
    /* Admission of every simple stage before any stage runs (spec
     * §3.2): the first refusal wins and nothing runs. Compound stages
     * admit their inner commands as they run them. */
    for (i = 0; i < k; i++) {
        const sh_node *sn = sg[i].sg_node;
        if (sn->n_kind != SH_N_SIMPLE || sn->u.simple.words == NULL ||
            sh_alias_applies(sg[i].sg_cx, sn))
            continue;
        int rc =
            sh_expand_words(sg[i].sg_cx, sn->u.simple.words, &sg[i].sg_argv);
        if (rc != 0) {
            if (atomic_load(&cx->cx_ss->ss_abort)) {
                st = rc;
                goto out;
            }
            sg[i].sg_status = rc;
            sg[i].sg_cx->cx_flow = SH_FLOW_EXIT;
            sg[i].sg_cx->cx_status = rc;
            continue;
        }
        sg[i].sg_pre = true;
        if (sg[i].sg_argv.av_n == 0)
            continue;
        if ((rc = admit_argv(cx, &sg[i].sg_argv)) != 0) {
            st = rc;
            goto out;
        }
    }
    for (i = 0; i < k; i++) {
        if (sg[i].sg_cx->cx_flow == SH_FLOW_EXIT) {
            sh_ctx_free(sg[i].sg_cx);
            sg[i].sg_cx = NULL;
            continue;
        }
        if (pthread_create(&sg[i].sg_th, NULL, stage_main, &sg[i]) != 0) {
            // Out of threads or address space: the call cannot go on
            // sensibly, and each other stage would hit the same wall.
            sh_stop_call(cx, "cannot start pipeline stage");
            sg[i].sg_status = 1;
            sh_ctx_free(sg[i].sg_cx);
            sg[i].sg_cx = NULL;
            continue;
        }
        sg[i].sg_started = true;
    }
    int status[SH_MAX_PIPELINE];
    for (i = 0; i < k; i++) {
        if (sg[i].sg_started)
            pthread_join(sg[i].sg_th, NULL);
        status[i] = sg[i].sg_status;
    }
    set_pipestatus(cx, (int)k, status);
    st = pipeline_status(cx, (int)k, status);
    if (bang)
        st = st == 0 ? 1 : 0;
out:
    for (i = 0; i < SH_MAX_PIPELINE; i++) {
        if (!sg[i].sg_started)
            sh_ctx_free(sg[i].sg_cx);
        // Admitted, then never run (a later stage was refused): no status.
        if (sg[i].sg_argv.av_bind != NULL)
            sh_admit_finish(ss, &sg[i].sg_argv.av_bind->hb_ticket,
                            BOX_OUTCOME_NO_STATUS);
        sh_argv_free(&sg[i].sg_argv);
    }
    atomic_fetch_sub(&ss->ss_live_stages, n->u.pipe.n);
    if (cx->cx_flow == SH_FLOW_NONE && atomic_load(&cx->cx_ss->ss_abort))
        sh_check_stop(cx);
    return st;
}

static void *
job_main(void *arg)
{
    sh_job *j = arg;
    sh_session *ss = j->j_cx->cx_ss;
    j->j_status = run_stage(j->j_cx, j->j_node, NULL);
    // A job `kill` reached ends as a killed process, as bash's whole
    // process group would, however its stages noticed: a pipeline's last
    // one may have met the end of its input before the flag.
    int sig = atomic_load(&j->j_signal);
    if (sig != 0)
        j->j_status = 128 + sig;
    sh_ctx_free(j->j_cx);
    j->j_cx = NULL;
    atomic_store(&j->j_done, true);
    if (j->j_live)
        atomic_fetch_sub(&ss->ss_live_stages, 1);
    return NULL;
}

/*
 * A process substitution's list (sh_procsub.c) runs as a job nobody's
 * `wait` sees: on a thread of its own, like a pipeline stage, and counted
 * with the stages so a recursion through it (`f(){ cat <(f) <(f); }`)
 * ends as too deep instead of starting threads without bound.
 */
sh_job *
sh_job_start(sh_ctx *cx, sh_ctx *jcx, const sh_node *n)
{
    sh_session *ss = cx->cx_ss;
    if (atomic_fetch_add(&ss->ss_live_stages, 1) + 1 > SH_MAX_LIVE_STAGES ||
        jcx->cx_depth >= SH_EXEC_MAX_DEPTH) {
        atomic_fetch_sub(&ss->ss_live_stages, 1);
        sh_ctx_free(jcx);
        sh_too_deep(cx);
        return NULL;
    }
    sh_job *j = box_calloc(1, sizeof *j);
    if (j == NULL) {
        atomic_fetch_sub(&ss->ss_live_stages, 1);
        sh_ctx_free(jcx);
        sh_errf(cx, "out of memory");
        return NULL;
    }
    // A list `exec` keeps may outlive the `&` job it was started in, so
    // it does not look at that job's kill flag.
    jcx->cx_kill = NULL;
    j->j_cx = jcx;
    j->j_node = n;
    j->j_live = true;
    // bash sets $! to it, and `wait $!` gives its status (sh_job_join
    // leaves that for cx). The count also keeps an eval's text alive.
    j->j_id = ss->ss_pid + 1 + (long)atomic_fetch_add(&ss->ss_jobs, 1);
    if (pthread_create(&j->j_th, NULL, job_main, j) != 0) {
        atomic_fetch_sub(&ss->ss_live_stages, 1);
        sh_ctx_free(jcx);
        box_free(j);
        sh_stop_call(cx, "cannot start process substitution");
        return NULL;
    }
    cx->cx_st->st_bgpid = j->j_id;
    return j;
}

void
sh_job_join(sh_ctx *cx, sh_job *j)
{
    pthread_join(j->j_th, NULL);
    unsigned slot = cx->cx_ndone++ % SH_JOBS_REMEMBERED;
    cx->cx_done[slot].d_id = j->j_id;
    cx->cx_done[slot].d_status = j->j_status;
    box_free(j);
}

void
sh_job_orphan(sh_session *ss, sh_job *j)
{
    pthread_mutex_lock(&ss->ss_lock);
    j->j_next = ss->ss_orphans;
    ss->ss_orphans = j;
    pthread_mutex_unlock(&ss->ss_lock);
}

/*
 * A job's context says it is one (cx_bg, inherited by everything it
 * forks: its stages, $( ), nested jobs), so that every check of the call's
 * state (sh_check_stop) also ends it once the call's foreground is over.
 */
static int
start_job(sh_ctx *cx, const sh_node *n)
{
    sh_job *j = box_calloc(1, sizeof *j);
    if (j == NULL || (j->j_cx = sh_ctx_fork(cx)) == NULL) {
        box_free(j);
        sh_errf(cx, "out of memory");
        return 1;
    }
    // No job control: a background job reads nothing.
    sh_stream_unref(j->j_cx->cx_fd[0]);
    j->j_cx->cx_fd[0] = sh_stream_new(SH_ST_NULL);
    j->j_cx->cx_bg = true;
    // Its own flag, not its parent job's: a job it starts may outlive it.
    atomic_init(&j->j_signal, 0);
    j->j_cx->cx_kill = &j->j_signal;
    j->j_node = n;
    // Threads, not processes: $! is a number of the call's own, above $$
    // so it reads as a pid; `wait $!` finds the job by it.
    j->j_id =
        cx->cx_ss->ss_pid + 1 + (long)atomic_fetch_add(&cx->cx_ss->ss_jobs, 1);
    if (pthread_create(&j->j_th, NULL, job_main, j) != 0) {
        sh_ctx_free(j->j_cx);
        box_free(j);
        sh_errf(cx, "cannot start background job");
        return 1;
    }
    unsigned top = 0;
    for (sh_job *o = cx->cx_jobs; o != NULL; o = o->j_next) {
        if (atomic_load(&o->j_done))
            o->j_num = 0;
        top = o->j_num > top ? o->j_num : top;
    }
    j->j_num = top + 1;
    j->j_next = cx->cx_jobs;
    cx->cx_jobs = j;
    cx->cx_njobs++;
    cx->cx_st->st_bgpid = j->j_id;
    return 0;
}

int
sh_ctx_wait_job(sh_ctx *cx, long id, int *status)
{
    unsigned kept =
        cx->cx_ndone < SH_JOBS_REMEMBERED ? cx->cx_ndone : SH_JOBS_REMEMBERED;
    for (unsigned i = 0; i < kept; i++) {
        if (cx->cx_done[i].d_id == id) {
            *status = cx->cx_done[i].d_status;
            return 0;
        }
    }
    for (sh_job **pp = &cx->cx_jobs; *pp != NULL; pp = &(*pp)->j_next) {
        sh_job *j = *pp;
        if (j->j_id != id)
            continue;
        *pp = j->j_next;
        cx->cx_njobs--;
        pthread_join(j->j_th, NULL);
        *status = j->j_status;
        unsigned slot = cx->cx_ndone++ % SH_JOBS_REMEMBERED;
        cx->cx_done[slot].d_id = id;
        cx->cx_done[slot].d_status = j->j_status;
        box_free(j);
        return 0;
    }
    return -1;
}

long
sh_ctx_job_spec(const sh_ctx *cx, const char *spec)
{
    // The current job (%%, %+) has the highest number, the previous (%-)
    // the next highest: among the running ones, as bash has cleaned the
    // ended ones out by then, unless none runs.
    const sh_job *cur = NULL, *prev = NULL;
    for (int pass = 0; pass < 2 && cur == NULL; pass++) {
        for (const sh_job *j = cx->cx_jobs; j != NULL; j = j->j_next) {
            if (j->j_num == 0 || (pass == 0 && atomic_load(&j->j_done)))
                continue;
            if (cur == NULL || j->j_num > cur->j_num) {
                prev = cur;
                cur = j;
            } else if (prev == NULL || j->j_num > prev->j_num) {
                prev = j;
            }
        }
    }
    const char *s = spec + 1;
    if (spec[0] != '%')
        return -1;
    if (*s == '\0' || strcmp(s, "%") == 0 || strcmp(s, "+") == 0)
        return cur != NULL ? cur->j_id : -1;
    if (strcmp(s, "-") == 0) {
        const sh_job *j = prev != NULL ? prev : cur;
        return j != NULL ? j->j_id : -1;
    }
    char *end;
    long v = strtol(s, &end, 10);
    if (*end != '\0' || v < 1)
        return -1;
    for (const sh_job *j = cx->cx_jobs; j != NULL; j = j->j_next)
        if (j->j_num == (unsigned long)v)
            return j->j_id;
    return -1;
}

/* Whether job j is one wait -n waits for: any, or one of ids. */
static bool
wait_next_wants(const sh_job *j, const long *ids, size_t n)
{
    if (n == 0)
        return true;
    for (size_t i = 0; i < n; i++)
        if (ids[i] == j->j_id)
            return true;
    return false;
}

#define WAIT_NEXT_NAP_MAX_MS 20 // the longest nap between looks

int
sh_ctx_wait_next(sh_ctx *cx, const long *ids, size_t n, long *id, int *status)
{
    // Jobs that had ended before are not waited for: bash has reaped
    // them, and its wait -n sees only those still running.
    size_t running = 0;
    for (sh_job *j = cx->cx_jobs; j != NULL; j = j->j_next) {
        j->j_waitable = !atomic_load(&j->j_done) && wait_next_wants(j, ids, n);
        running += j->j_waitable;
    }
    if (running == 0)
        return -1;
    // A job's end sets a flag and nothing else: look, then nap a little
    // longer each time, checking the call's clock and kill as sleep does.
    for (long nap_ms = 1;; nap_ms = nap_ms * 2 > WAIT_NEXT_NAP_MAX_MS
                                        ? WAIT_NEXT_NAP_MAX_MS
                                        : nap_ms * 2) {
        for (sh_job **pp = &cx->cx_jobs; *pp != NULL; pp = &(*pp)->j_next) {
            sh_job *j = *pp;
            if (!j->j_waitable || !atomic_load(&j->j_done))
                continue;
            *id = j->j_id;
            return sh_ctx_wait_job(cx, j->j_id, status);
        }
        if (sh_check_stop(cx))
            return 1;
        struct timespec ts = {0, nap_ms * 1000000L};
        nanosleep(&ts, NULL);
    }
}

int
sh_ctx_kill_job(sh_ctx *cx, long id, int sig)
{
    for (sh_job *j = cx->cx_jobs; j != NULL; j = j->j_next) {
        if (j->j_id != id)
            continue;
        // bash has reaped a job that ended: no such process.
        if (atomic_load(&j->j_done))
            return -1;
        if (sig != 0) // 0 only asks whether it runs
            atomic_store(&j->j_signal, sig);
        return 0;
    }
    return -1;
}

bool
sh_ctx_job_at(const sh_ctx *cx, unsigned k, long *id, unsigned *num,
              const sh_node **cmd)
{
    // The list is newest first, and numbers grow with age: count the
    // running ones from the end.
    unsigned running = 0;
    for (const sh_job *j = cx->cx_jobs; j != NULL; j = j->j_next)
        running += !atomic_load(&j->j_done);
    if (k >= running)
        return false;
    unsigned want = running - 1 - k;
    for (const sh_job *j = cx->cx_jobs; j != NULL; j = j->j_next) {
        if (atomic_load(&j->j_done))
            continue;
        if (want-- == 0) {
            *id = j->j_id;
            *num = j->j_num;
            *cmd = j->j_node;
            return true;
        }
    }
    return false;
}

static void
join_list(sh_job *j)
{
    while (j != NULL) {
        sh_job *next = j->j_next;
        pthread_join(j->j_th, NULL);
        box_free(j);
        j = next;
    }
}

void
sh_ctx_wait_jobs(sh_ctx *cx)
{
    sh_job *j = cx->cx_jobs;
    cx->cx_jobs = NULL;
    cx->cx_njobs = 0;
    cx->cx_ndone = 0;
    join_list(j);
}

void
sh_ctx_orphan_jobs(sh_ctx *cx)
{
    if (cx->cx_jobs == NULL)
        return;
    sh_session *ss = cx->cx_ss;
    sh_job *last = cx->cx_jobs;
    while (last->j_next != NULL)
        last = last->j_next;
    pthread_mutex_lock(&ss->ss_lock);
    last->j_next = ss->ss_orphans;
    ss->ss_orphans = cx->cx_jobs;
    pthread_mutex_unlock(&ss->ss_lock);
    cx->cx_jobs = NULL;
    cx->cx_njobs = 0;
}

void
sh_session_end_jobs(sh_session *ss)
{
    atomic_store(&ss->ss_jobs_end, true);
    // A job that ends hands its own jobs over meanwhile: take the list
    // until it stays empty.
    for (;;) {
        pthread_mutex_lock(&ss->ss_lock);
        sh_job *j = ss->ss_orphans;
        ss->ss_orphans = NULL;
        pthread_mutex_unlock(&ss->ss_lock);
        if (j == NULL)
            return;
        join_list(j);
    }
}

/* ---- compounds ---- */

bool
sh_loop_after_body(sh_ctx *cx)
{
    if (cx->cx_flow == SH_FLOW_BREAK) {
        if (--cx->cx_flow_n == 0)
            cx->cx_flow = SH_FLOW_NONE;
        return true;
    }
    if (cx->cx_flow == SH_FLOW_CONTINUE) {
        if (--cx->cx_flow_n == 0) {
            cx->cx_flow = SH_FLOW_NONE;
            return false;
        }
        return true;
    }
    return cx->cx_flow != SH_FLOW_NONE;
}

static int
exec_loop(sh_ctx *cx, const sh_node *n, bool until)
{
    int st = 0;
    cx->cx_loops++;
    for (;;) {
        if (sh_check_stop(cx))
            break;
        cx->cx_cond++;
        int c = sh_exec_node(cx, n->u.loop.cond);
        cx->cx_cond--;
        if (cx->cx_flow != SH_FLOW_NONE && cx->cx_flow != SH_FLOW_BREAK &&
            cx->cx_flow != SH_FLOW_CONTINUE)
            break;
        if (cx->cx_flow == SH_FLOW_NONE && (c == 0) == until)
            break;
        if (cx->cx_flow == SH_FLOW_NONE)
            st = sh_exec_node(cx, n->u.loop.body);
        if (sh_loop_after_body(cx))
            break;
    }
    cx->cx_loops--;
    return st;
}

static int
exec_for(sh_ctx *cx, const sh_node *n)
{
    sh_argv av;
    sh_argv_init(&av);
    int st = 0;
    char var[256];
    snprintf(var, sizeof var, "%.*s", (int)n->u.for_.varlen, n->u.for_.var);
    if (n->u.for_.has_in) {
        if ((st = sh_expand_words(cx, n->u.for_.words, &av)) != 0)
            goto out;
    } else {
        for (int i = 0; i < cx->cx_st->st_npos; i++)
            if (sh_argv_push(&av, cx->cx_st->st_pos[i],
                             strlen(cx->cx_st->st_pos[i]), true) != BOX_OK) {
                sh_errf(cx, "out of memory");
                st = 1;
                goto out;
            }
    }
    cx->cx_loops++;
    for (int i = 0; i < av.av_n; i++) {
        if (sh_check_stop(cx))
            break;
        if (sh_assign_str(cx, NULL, var, NULL, av.av_v[i], strlen(av.av_v[i]),
                          false) != 0) {
            st = 1;
            break;
        }
        st = sh_exec_node(cx, n->u.for_.body);
        if (sh_loop_after_body(cx))
            break;
    }
    cx->cx_loops--;
out:
    sh_argv_free(&av);
    return st;
}

/* Whether one of the arm's patterns matches w; 0, or a status after an
 * expansion error. */
static int
case_arm_matches(sh_ctx *cx, const sh_case_item *it, const char *w, bool *m)
{
    *m = false;
    for (const sh_word *p = it->ci_pats; p != NULL && !*m; p = p->w_next) {
        char *pat = NULL;
        int st = sh_expand_pattern(cx, p, &pat);
        if (st != 0)
            return st;
        *m = sh_glob_match(pat, w, sh_glob_case_flags(cx->cx_st->st_shopt));
        box_free(pat);
    }
    return 0;
}

/* case: the first arm that matches runs; its terminator says what comes
 * next (;; the end, ;& the next body untested, ;;& the next arms tested). */
static int
exec_case(sh_ctx *cx, const sh_node *n)
{
    char *w = NULL;
    int st = sh_expand_str(cx, n->u.case_.word, &w, NULL);
    if (st != 0)
        return st;
    int body_st = 0;
    bool run = false; // the previous arm fell through with ;&
    for (const sh_case_item *it = n->u.case_.items; it; it = it->ci_next) {
        if (!run && (st = case_arm_matches(cx, it, w, &run)) != 0)
            goto out;
        if (!run)
            continue;
        body_st = sh_exec_node(cx, it->ci_body);
        if (it->ci_term == SH_CT_BREAK || cx->cx_flow != SH_FLOW_NONE)
            break;
        run = it->ci_term == SH_CT_FALL;
    }
    st = body_st;
out:
    box_free(w);
    return st;
}

static int
exec_subshell(sh_ctx *cx, const sh_node *n)
{
    if (cx->cx_depth >= SH_EXEC_MAX_DEPTH) {
        sh_too_deep(cx);
        return 1;
    }
    sh_ctx *sub = sh_ctx_fork(cx);
    if (sub == NULL) {
        sh_errf(cx, "out of memory");
        return 1;
    }
    sub->cx_depth++;
    sub->cx_loops = 0;
    sub->cx_funcs = 0;
    rsave *sv;
    int nsv;
    int st = redirs_apply(sub, n->n_redirs, &sv, &nsv);
    if (st == 0) {
        st = sh_exec_node(sub, n->u.body);
        if (sub->cx_flow == SH_FLOW_EXIT)
            st = sub->cx_status;
        st = sh_trap_exit(sub, st);
        redirs_restore(sub, sv, nsv);
    }
    sh_ctx_free(sub);
    if (atomic_load(&cx->cx_ss->ss_abort))
        sh_check_stop(cx);
    return st;
}

/* The command of $(< FILE): alone in its list, one input redirection
 * of fd 0 and nothing else; NULL for any other list. */
static const sh_node *
read_file_form(const sh_node *n)
{
    if (n != NULL && n->n_kind == SH_N_LIST) {
        n = n->u.list.items;
        if (n == NULL || n->n_next != NULL || n->n_bg)
            return NULL;
    }
    if (n != NULL && n->n_kind == SH_N_PIPE) {
        if (n->u.pipe.n != 1 || n->u.pipe.bang)
            return NULL;
        n = n->u.pipe.stages;
    }
    if (n == NULL || n->n_kind != SH_N_SIMPLE || n->u.simple.words != NULL ||
        n->u.simple.assigns != NULL)
        return NULL;
    const sh_redir *r = n->n_redirs;
    if (r == NULL || r->r_next != NULL || r->r_kind != SH_R_IN ||
        r->r_fdvar != NULL || (r->r_fd != -1 && r->r_fd != 0))
        return NULL;
    return n;
}

/* $(< FILE): bash reads FILE itself, running no command, so only the
 * open is decided (fs:read); a file it cannot read (a directory) gives
 * nothing, as there. */
static int
read_file_sub(sh_ctx *sub, const sh_node *n)
{
    rsave *sv;
    int nsv;
    int st = redirs_apply(sub, n->n_redirs, &sv, &nsv);
    if (st != 0)
        return st;
    int ist = 0;
    sh_input *in = sh_input_open(sub, "bash", NULL, &ist);
    if (in != NULL) {
        sh_input_quiet(in);
        char buf[16384];
        ssize_t k;
        while ((k = sh_input_read(in, buf, sizeof buf)) > 0 &&
               sh_write(sub, 1, buf, (size_t)k) == SH_IO_OK)
            ;
        sh_input_close(in);
    }
    redirs_restore(sub, sv, nsv);
    return in != NULL ? 0 : ist;
}

int
sh_exec_capture(sh_ctx *cx, const sh_node *list, char **out, size_t *len)
{
    *out = NULL;
    *len = 0;
    if (cx->cx_depth >= SH_EXEC_MAX_DEPTH) {
        sh_too_deep(cx);
        *out = box_strdup("");
        return 1;
    }
    sh_stream *buf = sh_stream_buf(SH_CAPTURE_MAX);
    sh_ctx *sub = buf ? sh_ctx_fork(cx) : NULL;
    if (sub == NULL) {
        sh_stream_unref(buf);
        sh_errf(cx, "out of memory");
        *out = box_strdup("");
        return 1;
    }
    sh_stream_unref(sub->cx_fd[1]);
    sub->cx_fd[1] = sh_stream_ref(buf);
    sub->cx_depth++;
    sub->cx_xlevel++;
    sub->cx_loops = 0;
    sub->cx_funcs = 0;
    sub->cx_cond = 0;
    // bash (not in POSIX mode, inherit_errexit off, as this shell has
    // it) clears -e in a command substitution.
    sub->cx_st->st_opt_e = false;
    const sh_node *rf = read_file_form(list);
    int st = rf != NULL ? read_file_sub(sub, rf) : sh_exec_node(sub, list);
    if (sub->cx_flow == SH_FLOW_EXIT)
        st = sub->cx_status;
    st = sh_trap_exit(sub, st);
    sh_ctx_free(sub); // waits for its jobs
    *out = sh_stream_buf_take(buf, len);
    sh_stream_unref(buf);
    if (atomic_load(&cx->cx_ss->ss_abort))
        sh_check_stop(cx);
    return st;
}

sh_parse_status
sh_next_command(const sh_ctx *cx, sh_parser *p, sh_node **n)
{
    sh_parser_set_extglob(p, (cx->cx_st->st_shopt & SH_SHOPT_EXTGLOB) != 0);
    return sh_parse_next(p, n);
}

int
sh_exec_text(sh_ctx *cx, const char *text, size_t len, const char *who)
{
    box_arena *a = box_arena_new((size_t)64 << 20);
    if (a == NULL) {
        sh_errf(cx, "%s: out of memory", who);
        return 1;
    }
    sh_parser *p = sh_parser_new(a);
    if (p == NULL || depth_enter(cx) != 0) {
        if (p == NULL)
            sh_errf(cx, "%s: out of memory", who);
        sh_parser_free(p);
        box_arena_free(a);
        return 1;
    }
    unsigned defs = atomic_load(&cx->cx_ss->ss_funcdefs);
    unsigned jobs = atomic_load(&cx->cx_ss->ss_jobs);
    // One complete command at a time, as bash's eval and traps run
    // theirs: the lines before a syntax error run, and an expansion error
    // discards only its own command (sh_discard).
    int st = 0;
    sh_parse_status ps = SH_PARSE_ERROR;
    if (sh_parser_feed(p, text, len) == BOX_OK) {
        sh_parser_finish(p);
        for (;;) {
            sh_node *n = NULL;
            if ((ps = sh_next_command(cx, p, &n)) != SH_PARSE_CMD)
                break;
            st = sh_exec_node(cx, n);
            if (sh_discarded(cx))
                st = cx->cx_status;
            if (cx->cx_flow != SH_FLOW_NONE)
                break;
        }
    }
    if (ps == SH_PARSE_ERROR) {
        char msg[SH_MAX_MSG + 64];
        sh_diag_format(sh_parser_diag(p), memchr(text, '\n', len) != NULL, msg,
                       sizeof msg);
        (void)sh_write(cx, 2, msg, strlen(msg));
        (void)sh_write(cx, 2, "\n", 1);
        st = 1;
    }
    sh_parser_free(p);
    cx->cx_depth--;
    // Functions defined here, and jobs started here (which may run on
    // past this eval), point into a: keep it for the session. Without
    // memory for the keep record it stays allocated: a leak, never a
    // dangling node.
    if (atomic_load(&cx->cx_ss->ss_funcdefs) == defs &&
        atomic_load(&cx->cx_ss->ss_jobs) == jobs)
        box_arena_free(a);
    else if (sh_session_keep(cx->cx_ss, a) != BOX_OK)
        sh_errf(cx, "%s: out of memory", who);
    return st;
}

/* ---- dispatch ---- */

static int
exec_list(sh_ctx *cx, const sh_node *n)
{
    int st = 0;
    for (const sh_node *it = n->u.list.items; it != NULL; it = it->n_next) {
        if (sh_check_stop(cx))
            break;
        if (it->n_bg)
            st = start_job(cx, it);
        else
            st = sh_exec_node(cx, it);
        cx->cx_status = st;
        if (cx->cx_flow != SH_FLOW_NONE)
            break;
    }
    return st;
}

int
sh_exec_node(sh_ctx *cx, const sh_node *n)
{
    if (sh_check_stop(cx))
        return cx->cx_status;
    // set -n: bash reads on and runs nothing, functions included.
    if (cx->cx_st->st_opt_n)
        return 0;
    cx->cx_line = n->n_line;
    sh_psub *psubs = cx->cx_psubs; // what this node's words start ends here
    int st = 0;
    rsave *sv = NULL;
    int nsv = 0;
    bool compound = (n->n_kind >= SH_N_GROUP && n->n_kind <= SH_N_CASE &&
                     n->n_kind != SH_N_SUBSHELL) ||
                    n->n_kind == SH_N_COND || n->n_kind == SH_N_ARITH ||
                    n->n_kind == SH_N_FOR_ARITH;
    if (compound && n->n_redirs != NULL &&
        (st = redirs_apply(cx, n->n_redirs, &sv, &nsv)) != 0) {
        sh_procsub_end(cx, psubs);
        cx->cx_status = st;
        return st;
    }
    switch (n->n_kind) {
    case SH_N_LIST:
        st = exec_list(cx, n);
        break;
    case SH_N_AND:
    case SH_N_OR:
        cx->cx_cond++;
        st = sh_exec_node(cx, n->u.bin.l);
        cx->cx_cond--;
        if (cx->cx_flow != SH_FLOW_NONE)
            break;
        cx->cx_status = st;
        if ((st == 0) == (n->n_kind == SH_N_AND))
            st = sh_exec_node(cx, n->u.bin.r);
        break;
    case SH_N_PIPE:
        st = exec_pipe(cx, n);
        if (!n->u.pipe.bang)
            errexit(cx, st);
        break;
    case SH_N_SIMPLE:
        st = exec_simple(cx, n, NULL);
        set_pipestatus(cx, 1, &st);
        errexit(cx, st);
        break;
    case SH_N_GROUP:
        st = sh_exec_node(cx, n->u.body);
        break;
    case SH_N_SUBSHELL:
        st = exec_subshell(cx, n);
        set_pipestatus(cx, 1, &st);
        errexit(cx, st);
        break;
    case SH_N_IF:
        cx->cx_cond++;
        st = sh_exec_node(cx, n->u.if_.cond);
        cx->cx_cond--;
        if (cx->cx_flow != SH_FLOW_NONE)
            break;
        if (st == 0)
            st = sh_exec_node(cx, n->u.if_.then);
        else if (n->u.if_.else_ != NULL)
            st = sh_exec_node(cx, n->u.if_.else_);
        else
            st = 0;
        break;
    case SH_N_WHILE:
    case SH_N_UNTIL:
        st = exec_loop(cx, n, n->n_kind == SH_N_UNTIL);
        break;
    case SH_N_FOR:
        st = exec_for(cx, n);
        break;
    case SH_N_CASE:
        st = exec_case(cx, n);
        break;
    case SH_N_COND:
        st = sh_cond_run(cx, n);
        errexit(cx, st);
        break;
    case SH_N_ARITH:
        st = sh_exec_arith_cmd(cx, n);
        errexit(cx, st);
        break;
    case SH_N_FOR_ARITH:
        st = sh_exec_for_arith(cx, n);
        break;
    case SH_N_TIME:
        st = sh_exec_time(cx, n);
        break;
    case SH_N_FUNC: {
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)n->u.func.namelen,
                 n->u.func.name);
        if (sh_func_set(cx->cx_st, name, cx->cx_source, n->u.func.body) !=
            BOX_OK) {
            sh_errf(cx, "out of memory");
            st = 1;
        }
        atomic_fetch_add(&cx->cx_ss->ss_funcdefs, 1);
        break;
    }
    default:
        st = 1;
        break;
    }
    if (sv != NULL || nsv != 0)
        redirs_restore(cx, sv, nsv);
    sh_procsub_end(cx, psubs);
    if (cx->cx_flow == SH_FLOW_EXIT || cx->cx_flow == SH_FLOW_RETURN)
        st = cx->cx_status;
    else
        cx->cx_status = st;
    return st;
}
