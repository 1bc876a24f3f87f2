/* SPDX-License-Identifier: Apache-2.0 */
/* The worker's interpreter: one Program per call, every effect decided by
 * the PDP. */
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_exec.h"
#include "sh_kernel.h"
#include "worker_interp.h"

/* PATH of the Shell's own start state (box-spec §2), not the operator's. */
static const char interp_path_env[] = "PATH=/usr/bin:/bin";

static int
interp_fail(worker_write_fn err, void *ctx, const char *what)
{
    char line[256];
    int n = snprintf(line, sizeof line, "strands-box: %s\n", what);
    (void)err(ctx, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    return BOX_STATUS_FAULT;
}

sh_kernel *
worker_interp_kernel(const worker_settings *ws)
{
    sh_kernel *k = NULL;
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
                         .ko_authority = ws->ws_authority,
                         .ko_nauthority = ws->ws_nauthority,
                         .ko_reserved = reserved,
                         .ko_nreserved = ws->ws_box_dir != NULL ? 1 : 0};
    if (sh_kernel_new(&ko, &k) != BOX_OK)
        return NULL;
    if (sh_session_seed_bin(k) != BOX_OK) {
        sh_kernel_free(k);
        return NULL;
    }
    return k;
}

int
worker_interp_run(const worker_settings *ws, const Box__Call *call,
                  int stdin_fd, const worker_io *io, sh_kernel *k)
{
    char *home_env = NULL, *pwd_env = NULL;
    const char **env = NULL;
    int status = BOX_STATUS_FAULT;
    worker_write_fn err = io->wi_err;
    void *ctx = io->wi_ctx;
    if (k == NULL && (k = worker_interp_kernel(ws)) == NULL) {
        status = interp_fail(err, ctx, "cannot build the shell's file system");
        goto out;
    }
    sh_kernel_set_io(k, io->wi_decide, ctx, io->wi_record, ctx);
    const char *home =
        ws->ws_agent_home ? ws->ws_agent_home : ws->ws_operator_home;
    const char *cwd = ws->ws_workspace ? ws->ws_workspace : "/";
    if ((home_env = box_asprintf("HOME=%s", home ? home : "/")) == NULL ||
        (pwd_env = box_asprintf("PWD=%s", cwd)) == NULL) {
        status = interp_fail(err, ctx, "out of memory");
        goto out;
    }
    // The phantoms first (box-spec §5's order), then the spec's four.
    if ((env = box_calloc(ws->ws_nphantom_env + 5, sizeof *env)) == NULL) {
        status = interp_fail(err, ctx, "out of memory");
        goto out;
    }
    size_t ne = 0;
    for (size_t i = 0; i < ws->ws_nphantom_env; i++)
        env[ne++] = ws->ws_phantom_env[i];
    env[ne++] = home_env;
    env[ne++] = pwd_env;
    env[ne++] = "USER=strands-box";
    env[ne++] = interp_path_env;
    env[ne] = NULL;
    sh_host_opts host = {.ho_trusted_path = ws->ws_trusted_path,
                         .ho_operator_home = ws->ws_operator_home,
                         .ho_workspace = ws->ws_workspace,
                         .ho_config = ws->ws_config,
                         .ho_contain = ws->ws_contain_bin,
                         .ho_box_dir = ws->ws_box_dir,
                         .ho_launch = io->wi_launch,
                         .ho_launch_arg = ctx,
                         .ho_egress = ws->ws_egress,
                         .ho_egress_ca = ws->ws_egress_ca,
                         .ho_egress_ca_len = ws->ws_egress_ca_len,
                         .ho_dial = io->wi_dial,
                         .ho_dial_arg = ctx};
    // Shell commands and the kernel decide through the broker, which
    // holds the PDP client and its permit cache (it outlives this call).
    sh_session_opts so = {.so_decide = io->wi_decide,
                          .so_decide_arg = ctx,
                          .so_again = io->wi_again,
                          .so_record = io->wi_record,
                          .so_record_arg = ctx,
                          .so_out = io->wi_out,
                          .so_err = io->wi_err,
                          .so_io_arg = ctx,
                          .so_kernel = k,
                          .so_host = &host,
                          .so_cwd = cwd,
                          .so_env = (const char *const *)env,
                          .so_timeout_ms = ws->ws_call_budget_ms,
                          .so_arg0 = call->has_arg0 ? call->arg0 : NULL,
                          .so_script = call->script && call->has_arg0,
                          .so_args = call->args,
                          .so_nargs = (int)call->n_args,
                          .so_set = (const char *const *)call->set_options,
                          .so_nset = (int)call->n_set_options,
                          .so_has_stdin = stdin_fd >= 0,
                          .so_stdin = stdin_fd,
                          .so_stdin_want = io->wi_stdin_want};
    status = sh_run_once(&so, call->source, strlen(call->source));
out:
    sh_kernel_free(k);
    box_free(env);
    box_free(home_env);
    box_free(pwd_env);
    return status;
}
