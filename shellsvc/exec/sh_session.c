/* SPDX-License-Identifier: Apache-2.0 */
/* Sessions: construction, and running one command text incrementally. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_svc.h"
#include "box_utf8.h"
#include "sh_again.h"
#include "sh_bistate.h"
#include "sh_internal.h"
#include "sh_parse.h"

#define SH_RUN_ARENA ((size_t)64 << 20)

struct sh_keep {
    sh_keep *k_next;
    box_arena *k_arena;
};

/* The own kernel's decider: the session's decider, under its lock (the
 * kernel may ask from several stage threads at once). */
static box_verdict
session_fs_decide(void *arg, const Box__DecisionRequest *req, char **message,
                  box_ticket *ticket)
{
    sh_session *ss = arg;
    pthread_mutex_lock(&ss->ss_lock);
    box_verdict v =
        ss->ss_o.so_decide(ss->ss_o.so_decide_arg, req, message, ticket);
    pthread_mutex_unlock(&ss->ss_lock);
    return v;
}

/* The own kernel's recorder: the session's, under the same lock. */
static void
session_fs_record(void *arg, box_ticket t, const box_outcome *o)
{
    sh_session *ss = arg;
    pthread_mutex_lock(&ss->ss_lock);
    ss->ss_o.so_record(ss->ss_o.so_record_arg, t, o);
    pthread_mutex_unlock(&ss->ss_lock);
}

/* /bin/lash and /bin/<cmd> -> lash for every command (spec §3.1); a
 * kernel seeded already (given twice, or seeded by a waiting worker) is
 * left alone. */
box_err
sh_session_seed_bin(sh_kernel *k)
{
    char *lash = NULL;
    if (sh_kernel_locate(k, "/bin/lash", &lash) == 0) {
        box_free(lash);
        return BOX_OK;
    }
    if (sh_kernel_seed_file(k, "/bin/lash", 0755, NULL, 0) != 0)
        return BOX_ENOMEM;
    for (size_t i = 0;; i++) {
        const char *name = sh_cmd_name_at(i);
        if (name == NULL)
            return BOX_OK;
        if (strchr(name, '/') != NULL || strcmp(name, "[") == 0 ||
            strcmp(name, ":") == 0 || strcmp(name, ".") == 0)
            continue;
        char link[256];
        snprintf(link, sizeof link, "/bin/%s", name);
        (void)sh_kernel_seed_symlink(k, "lash", link);
    }
}

/* $0, $@ and the `set` options the shell was started with. BOX_EINVAL
 * for an option it does not take (the caller checked them first). */
static box_err
session_invocation(sh_state *st, const sh_session_opts *o)
{
    if (o->so_arg0 != NULL) {
        char *a0 = box_strdup(o->so_arg0);
        if (a0 == NULL)
            return BOX_ENOMEM;
        box_free(st->st_arg0);
        st->st_arg0 = a0;
    }
    if (o->so_nargs > 0)
        BOX_TRY(sh_pos_set(st, o->so_nargs, o->so_args));
    for (int i = 0; i < o->so_nset; i++) {
        const char *a = o->so_set[i];
        const sh_option *opt = NULL;
        if (strcmp(a, "-o") == 0 && i + 1 < o->so_nset)
            opt = sh_option_find(o->so_set[++i], 0);
        else if (a[0] == '-' && a[1] != '\0' && a[2] == '\0' && a[1] != 'o')
            opt = sh_option_find(NULL, a[1]);
        if (opt == NULL || !sh_option_set(st, opt, true))
            return BOX_EINVAL;
    }
    return BOX_OK;
}

sh_session *
sh_session_new(const sh_session_opts *o)
{
    if (o == NULL || o->so_decide == NULL || o->so_out == NULL ||
        o->so_err == NULL)
        return NULL;
    sh_session *ss = box_calloc(1, sizeof *ss);
    if (ss == NULL)
        return NULL;
    ss->ss_o = *o;
    ss->ss_o.so_env = NULL;
    ss->ss_o.so_cwd = NULL;
    ss->ss_kernel = o->so_kernel;
    if (ss->ss_kernel == NULL) {
        sh_kernel_opts ko = {
            .ko_decide = session_fs_decide,
            .ko_decide_arg = ss,
            .ko_record = o->so_record != NULL ? session_fs_record : NULL,
            .ko_record_arg = ss};
        if (sh_kernel_new(&ko, &ss->ss_own_kernel) != BOX_OK)
            goto fail;
        ss->ss_kernel = ss->ss_own_kernel;
    }
    if (sh_session_seed_bin(ss->ss_kernel) != BOX_OK)
        goto fail;
    if (ss->ss_o.so_timeout_ms == 0)
        ss->ss_o.so_timeout_ms = SH_TIMEOUT_MS;
    pthread_mutex_init(&ss->ss_lock, NULL);
    if (o->so_again != NULL && (ss->ss_again = sh_again_new()) == NULL)
        goto fail;
    ss->ss_pid = (long)getpid();
    if ((ss->ss_state = sh_state_new()) != NULL)
        ss->ss_state->st_opt_c = !o->so_script; // else `sh -c TEXT`
    if (ss->ss_state == NULL)
        goto fail;
    if (o->so_cwd != NULL) {
        char *c = box_strdup(o->so_cwd);
        if (c == NULL)
            goto fail;
        box_free(ss->ss_state->st_cwd);
        ss->ss_state->st_cwd = c;
    }
    if (sh_var_set(ss->ss_state, "PWD", ss->ss_state->st_cwd,
                   strlen(ss->ss_state->st_cwd)) != BOX_OK ||
        sh_var_export(ss->ss_state, "PWD") != BOX_OK)
        goto fail;
    for (const char *const *e = o->so_env; e != NULL && *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        if (eq == NULL || !sh_name_valid(*e, (size_t)(eq - *e)))
            continue;
        char name[256];
        snprintf(name, sizeof name, "%.*s", (int)(eq - *e), *e);
        if (sh_var_import(ss->ss_state, name, eq + 1, strlen(eq + 1)) != BOX_OK)
            goto fail;
    }
    if (sh_special_init(ss->ss_state) != BOX_OK)
        goto fail;
    // $PPID: the shell's own (bash ignores one in the environment).
    char ppid[32];
    snprintf(ppid, sizeof ppid, "%ld", (long)getppid());
    if (sh_var_set(ss->ss_state, "PPID", ppid, strlen(ppid)) != BOX_OK)
        goto fail;
    sh_var *pv = sh_var_find(ss->ss_state, "PPID");
    if (pv != NULL)
        pv->v_flags &= ~SH_VAR_EXPORT;
    if (session_invocation(ss->ss_state, o) != BOX_OK)
        goto fail;
    ss->ss_o.so_arg0 = NULL; // copied into the state; not kept
    ss->ss_o.so_args = NULL;
    ss->ss_o.so_set = NULL;
    return ss;
fail:
    sh_session_free(ss);
    return NULL;
}

/* A name sh_session_name keeps: a link and its text. */
struct sh_name {
    sh_name *n_next;
    char n_text[];
};

void
sh_session_free(sh_session *ss)
{
    if (ss == NULL)
        return;
    if (ss->ss_orphans != NULL) // none once a run returned
        sh_session_end_jobs(ss);
    while (ss->ss_keep != NULL) {
        sh_keep *k = ss->ss_keep;
        ss->ss_keep = k->k_next;
        box_arena_free(k->k_arena);
        box_free(k);
    }
    while (ss->ss_names != NULL) {
        sh_name *n = ss->ss_names;
        ss->ss_names = n->n_next;
        box_free(n);
    }
    sh_state_free(ss->ss_state);
    sh_kernel_free(ss->ss_own_kernel);
    sh_again_free(ss->ss_again);
    pthread_mutex_destroy(&ss->ss_lock);
    box_free(ss);
}

box_err
sh_session_keep(sh_session *ss, box_arena *a)
{
    sh_keep *k = box_calloc(1, sizeof *k);
    if (k == NULL)
        return BOX_ENOMEM;
    k->k_arena = a;
    pthread_mutex_lock(&ss->ss_lock);
    k->k_next = ss->ss_keep;
    ss->ss_keep = k;
    pthread_mutex_unlock(&ss->ss_lock);
    return BOX_OK;
}

const char *
sh_session_name(sh_session *ss, const char *name)
{
    const char *got = NULL;
    pthread_mutex_lock(&ss->ss_lock);
    for (sh_name *n = ss->ss_names; n != NULL && got == NULL; n = n->n_next)
        if (strcmp(n->n_text, name) == 0)
            got = n->n_text;
    size_t len = strlen(name);
    sh_name *n;
    if (got == NULL && ss->ss_nnames < SH_NAMES_MAX &&
        (n = box_alloc(sizeof *n + len + 1)) != NULL) {
        memcpy(n->n_text, name, len + 1);
        n->n_next = ss->ss_names;
        ss->ss_names = n;
        ss->ss_nnames++;
        got = n->n_text;
    }
    pthread_mutex_unlock(&ss->ss_lock);
    return got;
}

static void
err_line(sh_ctx *cx, const char *msg)
{
    (void)sh_write(cx, 2, msg, strlen(msg));
    (void)sh_write(cx, 2, "\n", 1);
}

void
sh_parse_warnings(sh_ctx *cx, sh_parser *p, const char *path)
{
    const sh_diag *d = sh_parser_diag(p);
    for (size_t i = 0; i < d->d_nwarn; i++) {
        // Placed at the warning's own line, not the command running.
        if (path != NULL)
            sh_box_errf(cx, "%s: line %u: warning: %s", path,
                        (unsigned)d->d_warn[i].w_line, d->d_warn[i].w_msg);
        else
            sh_box_errf(cx, "warning: %s", d->d_warn[i].w_msg);
    }
    sh_parser_warnings_clear(p);
}

/* Points the top level's fd 0 at a copy of fd (the run's own: its stream
 * closes the copy when the last reference goes, and the session's owner
 * keeps fd). 0, or -1 with errno. */
static int
session_stdin(sh_ctx *cx, int fd)
{
    int own = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (own < 0)
        return -1;
    sh_stream *s = sh_stream_fd(own);
    if (s == NULL) {
        close(own);
        errno = ENOMEM;
        return -1;
    }
    if (cx->cx_ss->ss_o.so_stdin_want != NULL)
        sh_stream_on_demand(s, cx->cx_ss->ss_o.so_stdin_want,
                            cx->cx_ss->ss_o.so_io_arg);
    sh_stream_unref(cx->cx_fd[0]);
    cx->cx_fd[0] = s;
    return 0;
}

/*
 * One call: parse a complete command at a time (sh_parse_next) and run
 * it, so an error on line 3 still lets lines 1–2 run (spec §3.2). The
 * run arena stays alive for the session when functions were defined
 * (their bodies point into it).
 */
int
sh_session_run(sh_session *ss, const char *text, size_t len)
{
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &block, &old);

    ss->ss_start_ns = box_svc_clock_ns(CLOCK_MONOTONIC);
    ss->ss_deadline_ns =
        ss->ss_start_ns + (uint64_t)ss->ss_o.so_timeout_ms * 1000000u;
    // $RANDOM: a new sequence per call, as each bash starts one.
    atomic_store(&ss->ss_random,
                 (unsigned)(ss->ss_start_ns ^ (uint64_t)ss->ss_pid << 16));
    atomic_store(&ss->ss_abort, false);
    atomic_store(&ss->ss_abort_status, 0);
    atomic_store(&ss->ss_jobs_end, false);
    atomic_store(&ss->ss_pending_sig, 0);

    /* set -n ends at the end of its call: the session is the agent's
     * interactive shell, which (like bash's) would else never run again. */
    ss->ss_state->st_opt_n = false;
    sh_ctx cx;
    sh_ctx_init(&cx, ss, ss->ss_state);
    int st = 0;
    if (ss->ss_o.so_has_stdin && session_stdin(&cx, ss->ss_o.so_stdin) != 0) {
        sh_errf(&cx, "cannot take standard input: %s", strerror(errno));
        st = 1;
    }
    box_arena *a = NULL;
    sh_parser *p = NULL;
    unsigned defs = atomic_load(&ss->ss_funcdefs);

    if (st != 0)
        goto out;
    if (len > SH_MAX_INPUT) {
        sh_errf(&cx, "input too large");
        st = 1;
        goto out;
    }
    /* The broker refuses such text before it comes here; a session run
     * any other way says the same rather than cut the text at the NUL or
     * pass bytes no policy can name. */
    if (memchr(text, '\0', len) != NULL) {
        sh_errf(&cx, "input contains a NUL byte");
        st = 1;
        goto out;
    }
    if (!box_utf8_valid(text, len)) {
        sh_errf(&cx, "input is not valid UTF-8");
        st = 1;
        goto out;
    }
    if ((a = box_arena_new(SH_RUN_ARENA)) == NULL ||
        (p = sh_parser_new(a)) == NULL) {
        sh_errf(&cx, "out of memory");
        st = 1;
        goto out;
    }
    if (ss->ss_o.so_script && cx.cx_st->st_arg0 != NULL) {
        // The text is the script file $0 (so_script), run as `bash FILE`.
        st = sh_run_script(&cx, cx.cx_st->st_arg0, text, len);
        goto out;
    }
    bool multiline = memchr(text, '\n', len) != NULL;
    if (sh_parser_feed(p, text, len) != BOX_OK) {
        char msg[SH_MAX_MSG + 64];
        err_line(&cx,
                 sh_diag_format(sh_parser_diag(p), multiline, msg, sizeof msg));
        st = 1;
        goto out;
    }
    sh_parser_finish(p);
    for (;;) {
        sh_node *n = NULL;
        sh_parse_status ps = sh_next_command(&cx, p, &n);
        sh_parse_warnings(&cx, p, NULL);
        if (ps == SH_PARSE_END || ps == SH_PARSE_MORE)
            break;
        if (ps == SH_PARSE_ERROR) {
            char msg[SH_MAX_MSG + 64];
            err_line(&cx, sh_diag_format(sh_parser_diag(p), multiline, msg,
                                         sizeof msg));
            st = 1;
            break;
        }
        atomic_fetch_add(&ss->ss_cmdno, 1);
        st = sh_exec_node(&cx, n);
        if (sh_discarded(&cx))
            st = cx.cx_status;
        if (cx.cx_flow == SH_FLOW_EXIT)
            break;
        // break/continue/return outside their construct: ignored.
        cx.cx_flow = SH_FLOW_NONE;
    }
    if (cx.cx_flow == SH_FLOW_EXIT)
        st = cx.cx_status;
    // spec §3.2: the EXIT trap runs at top level after the command.
    st = sh_trap_exit(&cx, st);
out:
    // The foreground is over; jobs still running end now, before the
    // arena their nodes live in goes.
    sh_ctx_release(&cx);
    sh_session_end_jobs(ss);
    sh_parser_free(p);
    if (a != NULL && (atomic_load(&ss->ss_funcdefs) == defs ||
                      sh_session_keep(ss, a) != BOX_OK))
        box_arena_free(a);
    if (atomic_load(&ss->ss_abort) && atomic_load(&ss->ss_abort_status))
        st = atomic_load(&ss->ss_abort_status);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return st & 255;
}

int
sh_run_once(const sh_session_opts *o, const char *source, size_t len)
{
    sh_session *ss = sh_session_new(o);
    if (ss == NULL) {
        static const char msg[] = "strands-shell: out of memory\n";
        if (o != NULL && o->so_err != NULL)
            (void)o->so_err(o->so_io_arg, msg, sizeof msg - 1);
        return 1;
    }
    int st = sh_session_run(ss, source, len);
    sh_session_free(ss);
    return st;
}
