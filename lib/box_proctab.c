/* SPDX-License-Identifier: Apache-2.0 */
/* The process table's rows, and the command lines box run builds from them. */
#include "box_proctab.h"

#include <string.h>

#include "box_alloc.h"

/*
 * ORDER BOX_PROC. Environment names, per row, are what the process (or a
 * library it links) reads; everything else the operator's shell holds
 * (tokens, keys, proxies) stays out:
 *   HOME           the operator home (box-pdp: the policy's spelling
 *                  checks, --home's default, read before it confines itself
                  and kept by none of it after; box-shell: the home bind)
 *   PATH           box-shell: the trusted PATH that host programs are
 *                  looked up on
 *   TZ             box-shell and its workers: the times `ls -l` prints
 *   BOX_LOG_LEVEL  box_log, in every process that logs
 * No process calls setlocale, so no LANG or LC_*.
 */
static const box_proctab_row proctab_rows[BOX_PROC_COUNT] = {
    [BOX_PROC_PDP] =
        {
            .pt_id = BOX_PROC_PDP,
            .pt_name = "box-pdp",
            .pt_job = "decides every request against the policy and writes "
                      "the decision log",
            .pt_profile = BOX_PROFILE_PDP,
            .pt_start = BOX_START_RUN,
            .pt_parents = {"box"},
            .pt_health = BOX_HEALTH_PDP,
            .pt_health_at = BOX_PV_PDP_URL,
            .pt_args = {{"--listen", BOX_PV_PDP_URL},
                        {"--epoch-pub", BOX_PV_EPOCH_URL},
                        {"--log", BOX_PV_DECISION_LOG},
                        {"--history", BOX_PV_HISTORY},
                        {"--policy", BOX_PV_POLICY},
                        {"--box-id", BOX_PV_BOX_ID},
                        {"--run-id", BOX_PV_RUN_ID}},
            .pt_peers = {"box-shell", "box-gateway"},
            .pt_env = {"HOME", "BOX_LOG_LEVEL"},
        },
    [BOX_PROC_GATEWAY] =
        {
            .pt_id = BOX_PROC_GATEWAY,
            .pt_name = "box-gateway",
            .pt_job = "the egress proxy: decides every connection and HTTP "
                      "request",
            .pt_profile = BOX_PROFILE_GATEWAY,
            .pt_start = BOX_START_RUN,
            .pt_parents = {"box"},
            .pt_health = BOX_HEALTH_CONTROL,
            .pt_health_at = BOX_PV_GW_CONTROL,
            .pt_args = {{"--pdp", BOX_PV_PDP_URL},
                        {"--epoch-pub", BOX_PV_EPOCH_URL},
                        {"--box-id", BOX_PV_BOX_ID},
                        {"--socket", BOX_PV_EGRESS_SOCK},
                        {"--ca-cert", BOX_PV_TRUST_CERT},
                        {"--token-file", BOX_PV_GW_TOKEN},
                        {"--routes-fd", BOX_PV_GW_ROUTES},
                        {"--upstream-ca", BOX_PV_UPSTREAM_CA},
                        {"--control", BOX_PV_GW_CONTROL}},
            .pt_peers = {"box-pdp"},
            .pt_env = {"BOX_LOG_LEVEL"},
        },
    [BOX_PROC_SHELL] =
        {
            .pt_id = BOX_PROC_SHELL,
            .pt_name = "box-shell",
            .pt_job = "the alias broker: hands each call to a worker and "
                      "asks the PDP on its behalf",
            .pt_profile = BOX_PROFILE_BROKER,
            .pt_start = BOX_START_RUN,
            .pt_parents = {"box"},
            .pt_health = BOX_HEALTH_CONTROL,
            .pt_health_at = BOX_PV_SH_CONTROL,
            .pt_args = {{"--box-dir", BOX_PV_BOX_DIR},
                        {"--pdp", BOX_PV_PDP_URL},
                        {"--epoch-pub", BOX_PV_EPOCH_URL},
                        {"--box-id", BOX_PV_BOX_ID},
                        {"--config", BOX_PV_CONFIG},
                        {"--workspace", BOX_PV_WORKSPACE},
                        {"--gateway", BOX_PV_GW_ADDRESS},
                        {"--egress-socket", BOX_PV_EGRESS_SOCK},
                        {"--trust-cert", BOX_PV_TRUST_CERT},
                        {"--routes-fd", BOX_PV_SH_ROUTES},
                        {"--control", BOX_PV_SH_CONTROL}},
            .pt_peers = {"box-pdp", "box-shell-worker", "box-shell-launcher"},
            .pt_env = {"HOME", "PATH", "TZ", "BOX_LOG_LEVEL"},
        },
    [BOX_PROC_WORKER] =
        {
            .pt_id = BOX_PROC_WORKER,
            .pt_name = "box-shell-worker",
            .pt_job = "interprets one call's text (the zygote forks a fresh "
                      "one per call)",
            .pt_profile = BOX_PROFILE_WORKER,
            .pt_start = BOX_START_FORK,
            .pt_parents = {"box-shell"},
            .pt_peers = {"box-shell"},
            .pt_env = {"TZ", "BOX_LOG_LEVEL"},
        },
    [BOX_PROC_LAUNCHER] =
        {
            .pt_id = BOX_PROC_LAUNCHER,
            .pt_name = "box-shell-launcher",
            .pt_job = "starts box-contain for a host program the broker saw "
                      "permitted",
            .pt_profile = BOX_PROFILE_LAUNCHER,
            .pt_start = BOX_START_FORK,
            .pt_parents = {"box-shell"},
            .pt_peers = {"box-shell"},
            .pt_env = {"BOX_LOG_LEVEL"},
        },
    [BOX_PROC_CONTAIN] =
        {
            .pt_id = BOX_PROC_CONTAIN,
            .pt_name = "box-contain",
            .pt_job = "builds a sandbox around itself, then runs the program "
                      "(its environment is exactly its --env pairs)",
            .pt_profile = BOX_PROFILE_CONTAIN,
            .pt_start = BOX_START_SPAWN,
            .pt_parents = {"box-shell-launcher", "box"},
        },
    [BOX_PROC_PDP_PEERS] =
        {
            .pt_id = BOX_PROC_PDP_PEERS,
            .pt_name = "box-pdp-peers",
            .pt_job = "tells box-pdp whether a connecting process is this "
                      "run's box-shell or box-gateway (reads its /proc)",
            .pt_profile = BOX_PROFILE_PDP_PEERS,
            .pt_start = BOX_START_FORK,
            .pt_parents = {"box-pdp"},
        },
};

const box_proctab_row *
box_proctab_get(box_proctab_id id)
{
    return (unsigned)id < BOX_PROC_COUNT ? &proctab_rows[id] : NULL;
}

const box_proctab_row *
box_proctab_by_profile(box_profile p)
{
    for (size_t i = 0; i < BOX_PROC_COUNT; i++)
        if (proctab_rows[i].pt_profile == p)
            return &proctab_rows[i];
    return NULL;
}

const box_proctab_row *
box_proctab_find(const char *name)
{
    for (size_t i = 0; name != NULL && i < BOX_PROC_COUNT; i++)
        if (strcmp(proctab_rows[i].pt_name, name) == 0)
            return &proctab_rows[i];
    return NULL;
}

/* ORDER BOX_PV: where each address or file lives in the box directory
 * (NULL: the value is the run's). Only the alias socket (run/box.sock,
 * the shell's own) and the gateway's (run/egress.sock, which each
 * sandbox's relay reaches) are meant for sandboxes; every other socket
 * lives under private/, which the agent's sandbox hides. */
static const struct {
    const char *pp_url;  // ipc://DIR/%s
    const char *pp_file; // DIR/%s
} proctab_place[BOX_PV_COUNT] = {
    [BOX_PV_PDP_URL] = {"private/pdp.sock", NULL},
    [BOX_PV_EPOCH_URL] = {"private/pdp-epoch.sock", NULL},
    [BOX_PV_GW_CONTROL] = {"private/gateway-ctl.sock", NULL},
    [BOX_PV_SH_CONTROL] = {"private/shell-ctl.sock", NULL},
    [BOX_PV_DECISION_LOG] = {NULL, "private/telemetry/records.jsonl"},
    [BOX_PV_HISTORY] = {NULL, "private/history/dogwood.history"},
    [BOX_PV_EGRESS_SOCK] = {NULL, "run/egress.sock"},
    [BOX_PV_TRUST_CERT] = {NULL, "trust/cert.pem"},
    [BOX_PV_GW_TOKEN] = {NULL, "private/gateway.token"},
};

box_err
box_proctab_value(box_proctab_pv v, const box_proctab_box *b, char **out)
{
    const char *given = NULL;

    *out = NULL;
    if (v <= BOX_PV_NONE || v >= BOX_PV_COUNT)
        return BOX_EINVAL;
    if (proctab_place[v].pp_url != NULL || proctab_place[v].pp_file != NULL) {
        if (b->pb_box_dir == NULL)
            return BOX_EINVAL;
        *out = proctab_place[v].pp_url != NULL
                   ? box_asprintf("ipc://%s/%s", b->pb_box_dir,
                                  proctab_place[v].pp_url)
                   : box_asprintf("%s/%s", b->pb_box_dir,
                                  proctab_place[v].pp_file);
        return *out != NULL ? BOX_OK : BOX_ENOMEM;
    }
    switch (v) {
    case BOX_PV_BOX_DIR:
        given = b->pb_box_dir;
        break;
    case BOX_PV_POLICY:
        given = b->pb_policy;
        break;
    case BOX_PV_BOX_ID:
        given = b->pb_box_id;
        break;
    case BOX_PV_RUN_ID:
        given = b->pb_run_id;
        break;
    case BOX_PV_CONFIG:
        given = b->pb_config;
        break;
    case BOX_PV_WORKSPACE:
        given = b->pb_workspace;
        break;
    case BOX_PV_GW_ADDRESS:
        given = b->pb_gw_address;
        break;
    case BOX_PV_UPSTREAM_CA:
        given = b->pb_upstream_ca;
        break;
    case BOX_PV_GW_ROUTES:
    case BOX_PV_SH_ROUTES:
        if ((v == BOX_PV_GW_ROUTES ? b->pb_gw_routes_fd : b->pb_sh_routes_fd) <=
            0)
            return BOX_OK;
        *out = box_asprintf("%d", BOX_PROCTAB_ROUTES_FD);
        return *out != NULL ? BOX_OK : BOX_ENOMEM;
    default:
        return BOX_EINVAL;
    }
    if (given == NULL)
        return BOX_OK;
    return (*out = box_strdup(given)) != NULL ? BOX_OK : BOX_ENOMEM;
}

box_err
box_proctab_argv(const box_proctab_row *row, const box_proctab_box *b,
                 box_argv *av)
{
    box_err rv;

    if (row->pt_start != BOX_START_RUN || b->pb_bindir == NULL)
        return BOX_EINVAL;
    if ((rv = box_argv_pushf(av, "%s/%s", b->pb_bindir, row->pt_name)) !=
        BOX_OK)
        return rv;
    for (size_t i = 0; i < BOX_PROC_ARGS_MAX && row->pt_args[i].pa_flag; i++) {
        char *val = NULL;
        if ((rv = box_proctab_value(row->pt_args[i].pa_value, b, &val)) !=
            BOX_OK)
            return rv;
        if (val == NULL)
            continue; // the box has none: the service's default holds
        rv = box_argv_push(av, row->pt_args[i].pa_flag);
        if (rv == BOX_OK)
            rv = box_argv_push(av, val);
        box_free(val);
        if (rv != BOX_OK)
            return rv;
    }
    return BOX_OK;
}

box_err
box_proctab_health_url(const box_proctab_row *row, const box_proctab_box *b,
                       char **out)
{
    *out = NULL;
    if (row->pt_health == BOX_HEALTH_NONE)
        return BOX_OK;
    return box_proctab_value(row->pt_health_at, b, out);
}
