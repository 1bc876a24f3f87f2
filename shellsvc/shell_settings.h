/* SPDX-License-Identifier: Apache-2.0 */
/* box-shell's settings, built once before the zygote forks. */
#ifndef SHELL_SETTINGS_H
#define SHELL_SETTINGS_H

#include "box_err.h"
#include "box_procspec.h"
#include "worker.h"

/* The command line, borrowed. */
typedef struct shell_args {
    const char *sa_box_dir; // or NULL: none (box sh)
    const char *sa_pdp_url;
    const char *sa_epoch_url;   // or NULL
    const char *sa_box_id;      // or NULL
    const char *sa_config;      // box.toml, or NULL (no tools, no [agent])
    const char *sa_policy;      // a policy besides the config's, or NULL
    const char *sa_workspace;   // or NULL: [agent] workspace, else the cwd
    const char *sa_contain_bin; // box-contain
    unsigned sa_call_budget_ms; // 0: the shell's own (box-spec §3.1, 30 s)
    /* The gateway, for host programs' sandboxes (all three, or none). */
    const char *sa_gateway;       // 127.0.0.1:PORT
    const char *sa_egress_socket; // its Unix socket
    const char *sa_trust_cert;    // the run's CA certificate
    int sa_routes_fd; // the credential routes (phantoms only), or -1
} shell_args;

/* What the workers see (ss_settings) and the storage behind it. */
typedef struct shell_settings {
    worker_settings ss_settings;
    struct box_config *ss_config;
    char *ss_operator_home, *ss_agent_home, *ss_workspace, *ss_box_dir;
    const char *ss_authority[3];
    size_t ss_nauthority;
    box_procspec_egress ss_egress; // in use when ss_settings.ws_egress
    char *ss_egress_ca;            // the CA file's bytes, or NULL
    struct Box__EgressRoutes *ss_routes; // what --routes-fd held, or NULL
    box_procspec_phantom *ss_phantoms;   // into ss_routes
    char **ss_phantom_env;               // "NAME=PHANTOM", owned
    size_t ss_nphantoms;
} shell_settings;

/* Resolves homes, workspace and box dir (canonical) and loads the config.
 * On failure *err is a box_alloc'd message for the log. */
box_err shell_settings_build(const shell_args *a, shell_settings *s,
                             char **err) BOX_WARN_UNUSED;
void shell_settings_free(shell_settings *s);

#endif
