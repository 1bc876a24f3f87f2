/* SPDX-License-Identifier: Apache-2.0 */
/* Host programs from the executor's side: which word is one (§3.4), and
 * running the identity its shell:spawn permit was bound to (§3.9). */
#include <errno.h>
#include <string.h>

#include "box_alloc.h"
#include "box_status.h"
#include "sh_internal.h"

void
sh_host_bind_clear(sh_host_bind *b)
{
    sh_spawn_found_free(&b->hb_found);
    box_free(b->hb_reported);
    memset(b, 0, sizeof *b);
}

/* `/`-spelled word that does not resolve: its lexically folded absolute
 * spelling, judged but left unbound (§3.4). */
static char *
host_fold(const char *cwd, const char *word)
{
    char *joined =
        word[0] == '/' ? box_strdup(word) : box_asprintf("%s/%s", cwd, word);
    if (joined == NULL)
        return NULL;
    char *out = box_alloc(strlen(joined) + 2);
    if (out == NULL) {
        box_free(joined);
        return NULL;
    }
    size_t n = 0;
    for (const char *s = joined; *s;) {
        while (*s == '/')
            s++;
        const char *e = s;
        while (*e && *e != '/')
            e++;
        size_t len = (size_t)(e - s);
        if (len == 2 && s[0] == '.' && s[1] == '.') {
            while (n > 0 && out[n - 1] != '/')
                n--;
            if (n > 0)
                n--;
        } else if (len > 0 && !(len == 1 && s[0] == '.')) {
            out[n++] = '/';
            memcpy(out + n, s, len);
            n += len;
        }
        s = e;
    }
    if (n == 0)
        out[n++] = '/';
    out[n] = '\0';
    box_free(joined);
    return out;
}

int
sh_host_locate(sh_ctx *cx, const char *word, bool bypass_funcs, sh_host_bind *b)
{
    memset(b, 0, sizeof *b);
    const sh_host_opts *h = cx->cx_ss->ss_o.so_host;
    if (h == NULL || sh_cmd_find(cx->cx_st, word) != NULL ||
        (!bypass_funcs && sh_func_find(cx->cx_st, word) != NULL))
        return 0; // internal (or no host programs here): shell:exec
    int err = sh_spawn_locate(h->ho_trusted_path, cx->cx_st->st_cwd, word,
                              &b->hb_found);
    if (err == ENOMEM)
        return ENOMEM;
    if (err == 0) {
        b->hb_host = true;
        b->hb_reported =
            sh_kernel_report_path(sh_kern(cx), b->hb_found.sf_path);
        return b->hb_reported != NULL ? 0 : ENOMEM;
    }
    if (strchr(word, '/') == NULL)
        return 0; // not on PATH: shell:exec on the name, then 127
    // A path that does not name an executable file: judged on its
    // folded spelling, unbound, so a permit still cannot run anything.
    char *folded = host_fold(cx->cx_st->st_cwd, word);
    if (folded == NULL)
        return ENOMEM;
    b->hb_host = true;
    b->hb_unbound_err = err;
    b->hb_reported = sh_kernel_report_path(sh_kern(cx), folded);
    box_free(folded);
    return b->hb_reported != NULL ? 0 : ENOMEM;
}

int
sh_host_multicall(sh_ctx *cx, char **slot, bool *exec_file)
{
    const char *word = *slot;
    *exec_file = false;
    if (strchr(word, '/') == NULL)
        return 0;
    sh_kernel *k = sh_kern(cx);
    sh_kernel_result r = {0};
    int err = sh_kernel_probe_exec(k, cx->cx_st->st_cwd, word, &r);
    if (r.kr_outcome == SH_KR_FAULT)
        return sh_fs_fail(cx, NULL, word, &r);
    sh_kernel_result_clear(&r);
    if (err != 0)
        return 0; // absent, not executable or denied: the host decides
    char *canon = NULL;
    bool host = true;
    if (sh_kernel_resolve_path(k, cx->cx_st->st_cwd, word, true, &canon,
                               &host) != 0)
        return 0;
    size_t n = strlen(canon);
    bool lash = !host && n >= 5 && strcmp(canon + n - 5, "/lash") == 0;
    box_free(canon);
    const char *base = strrchr(word, '/') + 1;
    if (!lash || sh_cmd_lookup(base) == NULL) {
        *exec_file = true; // maybe a `#!` script (sh_shebang)
        return 0;
    }
    // The name is the word's own tail: moved to its front, in place (the
    // word may lie in its argv's pool, not an allocation of its own).
    memmove(*slot, base, strlen(base) + 1);
    return 0;
}

typedef struct host_out {
    sh_ctx *ho_cx;
} host_out;

static void
host_write(void *ctx, int fd, const char *data, size_t len)
{
    host_out *o = ctx;
    (void)sh_write(o->ho_cx, fd, data, len);
}

/* The leaf ends with the call: its deadline (said once, as for every
 * command), an abort, or the call's end while this runs as a job. */
static bool
host_stop(void *ctx)
{
    host_out *o = ctx;
    return sh_check_stop(o->ho_cx);
}

/* The OS descriptor behind shell fd 0 when it is a pipe end; else -1
 * (the program then reads /dev/null). */
static int
host_stdin(sh_ctx *cx)
{
    return sh_stream_hand_over(cx->cx_fd[0]);
}

/* The run's start: the launch callback, with the command's argv. */
typedef struct host_start_ctx {
    const sh_host_opts *hs_host;
    int hs_argc;
    char **hs_argv;
    const char *hs_cwd;
} host_start_ctx;

static box_err
host_start(void *ctx, const int io[3], int *status_fd, int *status, char **err)
{
    host_start_ctx *hs = ctx;
    return hs->hs_host->ho_launch(hs->hs_host->ho_launch_arg, hs->hs_argc,
                                  hs->hs_argv, hs->hs_cwd, io, status_fd,
                                  status, err);
}

int
sh_host_run(sh_ctx *cx, int argc, char **argv, const sh_host_bind *b)
{
    const sh_host_opts *h = cx->cx_ss->ss_o.so_host;
    if (sh_check_stop(cx))
        return cx->cx_status;
    int refused = sh_procsub_host_check(cx, argc, argv);
    if (refused != 0)
        return refused;
    if (b->hb_found.sf_path == NULL) {
        // Something that is no executable file: worded as the in-process
        // shell words it (bash's "Is a directory" or "Permission denied").
        if (b->hb_unbound_err == EACCES)
            return sh_shebang_missing(cx, argv[0]);
        // A missing path too: spec §3.10 words it so (bash: "No such
        // file or directory", the same 127).
        sh_errf(cx, "%s: command not found", argv[0]);
        return BOX_STATUS_NOT_FOUND;
    }
    if (h->ho_config == NULL) {
        sh_errf(cx, "%s: the configuration has no `[agent]` table", argv[0]);
        return BOX_STATUS_CANNOT_RUN;
    }
    if (h->ho_contain == NULL || h->ho_launch == NULL) {
        sh_errf(cx,
                "%s: host-binary execution requires a contained "
                "spawner; none is installed",
                argv[0]);
        return BOX_STATUS_CANNOT_RUN;
    }
    // The program has what is left of the call's budget, not a budget of
    // its own: the call ends on time however many programs it starts.
    long left = sh_budget_left_ms(cx->cx_ss);
    host_out o = {.ho_cx = cx};
    host_start_ctx hs = {.hs_host = h,
                         .hs_argc = argc,
                         .hs_argv = argv,
                         .hs_cwd = cx->cx_st->st_cwd};
    sh_spawn_run_opts ro = {.ro_contain = h->ho_contain,
                            .ro_cwd = cx->cx_st->st_cwd,
                            .ro_stdin = host_stdin(cx),
                            .ro_timeout_ms = left > 0 ? left : 1,
                            .ro_write = host_write,
                            .ro_stop = host_stop,
                            .ro_ctx = &o};
    int status = BOX_STATUS_CANNOT_RUN;
    char *err = NULL;
    if (sh_check_stop(cx)) // the call ended while this was decided
        return cx->cx_status;
    // It writes files itself, unseen by the kernel: no bytes read ahead
    // are served while it runs, nor after (sh_kernel_changes).
    sh_kernel_outside_begin(sh_kern(cx));
    box_err rv = sh_spawn_watch(host_start, &hs, &ro, &status, &err);
    sh_kernel_outside_end(sh_kern(cx));
    if (rv == BOX_ECANCELED)
        status = cx->cx_status; // sh_check_stop said why, if anything
    else if (rv == BOX_ETIMEDOUT)
        sh_timeout(cx); // the call's budget, said once for the call
    else if (rv == BOX_ETOOBIG)
        sh_box_errf(cx, "%s", err ? err : box_strerror(rv)); // a limit
    else if (rv != BOX_OK)
        sh_errf(cx, "%s: %s", argv[0], err ? err : box_strerror(rv));
    box_free(err);
    return status;
}
