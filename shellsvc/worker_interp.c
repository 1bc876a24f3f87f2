/* SPDX-License-Identifier: Apache-2.0 */
/* The worker's interpreter: one Program per call, every effect decided by
 * the PDP. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_log.h"
#include "box_pdp_client.h"
#include "sh_exec.h"
#include "sh_kernel.h"
#include "worker_interp.h"

#define INTERP_CACHE_SLOTS 1024

/* PATH of the Shell's own start state (box-spec §2), not the operator's. */
static const char interp_path_env[] = "PATH=/usr/bin:/bin";

/*
 * One PDP client per call: the worker is a fresh process, and nng's
 * threads never cross a fork, so the client is made here. Stage threads
 * and the kernel may ask at once; the client takes one question at a time.
 */
typedef struct interp_pdp {
    box_pdp_client *ip_client;
    pthread_mutex_t ip_lock;
} interp_pdp;

typedef enum interp_answer { INTERP_PERMIT, INTERP_DENY, INTERP_FAULT } interp_answer;

static interp_answer
interp_ask(interp_pdp *ip, const Box__DecisionRequest *req, char **message)
{
    box_pdp_answer a = {0};
    pthread_mutex_lock(&ip->ip_lock);
    box_err rv = box_pdp_decide(ip->ip_client, req, &a);
    pthread_mutex_unlock(&ip->ip_lock);
    interp_answer out = rv != BOX_OK                           ? INTERP_FAULT
                        : a.pa_verdict == BOX_VERDICT_PERMIT ? INTERP_PERMIT
                                                             : INTERP_DENY;
    if (out != INTERP_PERMIT) {
        *message = a.pa_message;
        a.pa_message = NULL;
        if (*message == NULL)
            *message = box_strdup(out == INTERP_FAULT
                                      ? "the policy decision point did not "
                                        "answer"
                                      : "policy denied this operation.");
    }
    box_pdp_answer_clear(&a);
    return out;
}

static sh_verdict
interp_decide_exec(void *arg, const Box__DecisionRequest *req, char **message)
{
    switch (interp_ask(arg, req, message)) {
    case INTERP_PERMIT:
        return SH_PERMIT;
    case INTERP_DENY:
        return SH_DENY;
    default:
        return SH_FAULT;
    }
}

static sh_kernel_verdict
interp_decide_fs(void *arg, const Box__DecisionRequest *req, char **message)
{
    switch (interp_ask(arg, req, message)) {
    case INTERP_PERMIT:
        return SH_KERNEL_PERMIT;
    case INTERP_DENY:
        return SH_KERNEL_DENY;
    default:
        return SH_KERNEL_FAULT;
    }
}

static int
interp_fail(worker_write_fn err, void *ctx, const char *what)
{
    char line[256];
    int n = snprintf(line, sizeof line, "strands-box: %s\n", what);
    (void)err(ctx, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    return 125;
}

int
worker_interp_run(const worker_settings *ws, const char *source, size_t len,
                  worker_write_fn out, worker_write_fn err, void *ctx)
{
    interp_pdp ip = {0};
    sh_kernel *k = NULL;
    char *home_env = NULL, *pwd_env = NULL;
    int status = 125;
    pthread_mutex_init(&ip.ip_lock, NULL);

    box_pdp_client_opts co = {.co_url = ws->ws_pdp_url,
                              .co_epoch_url = ws->ws_epoch_url,
                              .co_cache_slots = INTERP_CACHE_SLOTS,
                              .co_box_id = ws->ws_box_id};
    if (box_pdp_client_open(&co, &ip.ip_client) != BOX_OK) {
        status = interp_fail(err, ctx, "cannot reach the policy decision "
                                       "point");
        goto out;
    }
    // Binds in §3.1 order; the kernel skips one nested in an earlier one.
    const char *binds[3];
    size_t nb = 0;
    const char *cand[] = {ws->ws_operator_home, ws->ws_agent_home,
                          ws->ws_workspace};
    for (size_t i = 0; i < 3; i++)
        if (cand[i] != NULL && strcmp(cand[i], "/") != 0)
            binds[nb++] = cand[i];
    const char *reserved[] = {ws->ws_box_dir};
    sh_kernel_opts ko = {.ko_binds = binds,
                         .ko_nbinds = nb,
                         .ko_operator_home = ws->ws_operator_home,
                         .ko_decide = interp_decide_fs,
                         .ko_decide_arg = &ip,
                         .ko_authority = ws->ws_authority,
                         .ko_nauthority = ws->ws_nauthority,
                         .ko_reserved = reserved,
                         .ko_nreserved = ws->ws_box_dir != NULL ? 1 : 0};
    if (sh_kernel_new(&ko, &k) != BOX_OK) {
        status = interp_fail(err, ctx, "cannot build the shell's file system");
        goto out;
    }
    const char *home = ws->ws_agent_home ? ws->ws_agent_home
                                         : ws->ws_operator_home;
    const char *cwd = ws->ws_workspace ? ws->ws_workspace : "/";
    if ((home_env = box_asprintf("HOME=%s", home ? home : "/")) == NULL ||
        (pwd_env = box_asprintf("PWD=%s", cwd)) == NULL) {
        status = interp_fail(err, ctx, "out of memory");
        goto out;
    }
    const char *env[] = {home_env, pwd_env, "USER=strands-box",
                         interp_path_env, NULL};
    sh_host_opts host = {.ho_trusted_path = ws->ws_trusted_path,
                         .ho_operator_home = ws->ws_operator_home,
                         .ho_workspace = ws->ws_workspace,
                         .ho_config = ws->ws_config,
                         .ho_contain = ws->ws_contain_bin};
    sh_session_opts so = {.so_decide = interp_decide_exec,
                          .so_decide_arg = &ip,
                          .so_out = out,
                          .so_err = err,
                          .so_io_arg = ctx,
                          .so_kernel = k,
                          .so_host = &host,
                          .so_cwd = cwd,
                          .so_env = env};
    status = sh_run_once(&so, source, len);
    // Decisions served from the cache still belong in the decision log;
    // a lost report is the PDP's to notice, the command already ran.
    if (box_pdp_client_flush(ip.ip_client) != BOX_OK)
        box_log(BOX_LOG_WARN, "box-shell",
                "cached decisions were not reported to the PDP");
out:
    sh_kernel_free(k);
    box_pdp_client_close(ip.ip_client);
    pthread_mutex_destroy(&ip.ip_lock);
    box_free(home_env);
    box_free(pwd_env);
    return status;
}
