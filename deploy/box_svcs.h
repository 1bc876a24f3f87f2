/* SPDX-License-Identifier: Apache-2.0 */
/* Starts, watches and stops the services of one box (the process table). */
#ifndef BOX_SVCS_H
#define BOX_SVCS_H

#include <stdio.h>

#include "box_err.h"

typedef struct box_svcs box_svcs;

/* Where a box's services live and listen. All strings borrowed. */
typedef struct box_svcs_paths {
    const char *sp_bindir;    // directory holding box-pdp, box-shell, ...
    const char *sp_box_dir;   // the box directory
    const char *sp_policy;    // policy file, or NULL (deny everything)
    const char *sp_box_id;    // box-<16 hex>, named in the decision log
    const char *sp_run_id;    // this run, named in the decision log
    const char *sp_config;    // the run's box.toml
    const char *sp_workspace; // the agent's workspace (canonical)
} box_svcs_paths;

/* Starts every service in table order (PDP, gateway, shell), each only
 * after the one before answers its health check. On failure everything
 * started is stopped again and *err (caller frees) says what went wrong. */
box_err box_svcs_start(const box_svcs_paths *p, box_svcs **out,
                       char **err) BOX_WARN_UNUSED;

/* The decision log file of a box (under private/), caller frees. */
char *box_svcs_decision_log(const char *box_dir);

/* One line per service: `strands-box: <name> up · pid <n> · <url>`. */
void box_svcs_report(const box_svcs *s, FILE *out);

/* The name of a service that has exited on its own, or NULL. */
const char *box_svcs_find_dead(box_svcs *s);

/* Stops in reverse order (SIGTERM, then SIGKILL after a grace period),
 * reaps, frees. Returns 0 when every service exited 0 on its own terms. */
int box_svcs_stop(box_svcs *s);

#endif
