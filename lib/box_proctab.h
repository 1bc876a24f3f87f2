/* SPDX-License-Identifier: Apache-2.0 */
/* The process table: every service and helper of a box, one row each. */
#ifndef BOX_PROCTAB_H
#define BOX_PROCTAB_H

#include <stdbool.h>
#include <stddef.h>

#include "box_argv.h"
#include "box_err.h"
#include "box_profile.h"

/*
 * One place says what each process of a box is (issue 18, after relayd's
 * procs[]): its program, who starts it and how, how its health is asked,
 * which other rows it talks to, which environment names it keeps and
 * which confinement profile it runs under. `box run` starts its services
 * from here (deploy/box_svcs.c runs the table) and each service reads its
 * own row in main to clean its environment, so no argv or keep-list is
 * spelled anywhere else.
 */

/* ORDER BOX_PROC: the rows of the table; box run starts its services in
 * this order (each after the one before answers its health check). */
typedef enum box_proctab_id {
    BOX_PROC_PDP,      // box-pdp
    BOX_PROC_GATEWAY,  // box-gateway
    BOX_PROC_SHELL,    // box-shell: the alias broker
    BOX_PROC_WORKER,   // box-shell's zygote and each worker it forks
    BOX_PROC_LAUNCHER, // box-shell's launcher: starts box-contain
    BOX_PROC_CONTAIN,  // box-contain: a sandbox, then the program
    BOX_PROC_PDP_PEERS, // box-pdp's peer identifier (reads /proc of peers)
    BOX_PROC_COUNT
} box_proctab_id;


/* How a row's process comes to be. */
typedef enum box_proctab_start {
    BOX_START_NONE = 0,
    BOX_START_RUN,   // box run spawns the program with the row's arguments
    BOX_START_FORK,  // its parent forks it: no exec, so no argv of its own
    BOX_START_SPAWN, // its parent spawns the program with an argv made per
                     // program from the configuration (box_procspec.h)
} box_proctab_start;

/* How a row answers "are you up?". */
typedef enum box_proctab_health {
    BOX_HEALTH_NONE = 0, // not asked: its parent watches it
    BOX_HEALTH_PDP,      // PdpRequest.health on its decision socket
    BOX_HEALTH_CONTROL,  // ControlRequest.health on its control socket
} box_proctab_health;

/* ORDER BOX_PV: a value an argument takes from the box being run. The
 * addresses and the decision log live at fixed places in the box
 * directory; the others come from the run (box_proctab_box). */
typedef enum box_proctab_pv {
    BOX_PV_NONE = 0,
    BOX_PV_PDP_URL,      // ipc://DIR/private/pdp.sock
    BOX_PV_EPOCH_URL,    // ipc://DIR/private/pdp-epoch.sock
    BOX_PV_GW_CONTROL,   // ipc://DIR/private/gateway-ctl.sock
    BOX_PV_SH_CONTROL,   // ipc://DIR/private/shell-ctl.sock
    BOX_PV_DECISION_LOG, // DIR/private/telemetry/records.jsonl
    BOX_PV_HISTORY,      // DIR/private/history/dogwood.history
    BOX_PV_EGRESS_SOCK,  // DIR/run/egress.sock: the sandboxes' way out
    BOX_PV_TRUST_CERT,   // DIR/trust/cert.pem: the run's CA certificate
    BOX_PV_GW_TOKEN,     // DIR/private/gateway.token: the proxy's TCP token
    BOX_PV_BOX_DIR,
    BOX_PV_POLICY,
    BOX_PV_BOX_ID,
    BOX_PV_RUN_ID,
    BOX_PV_CONFIG,
    BOX_PV_WORKSPACE,
    BOX_PV_GW_ADDRESS, // the gateway's proxy, 127.0.0.1:PORT, once it is up
    BOX_PV_GW_ROUTES,  // BOX_PROCTAB_ROUTES_FD when the gateway gets routes
    BOX_PV_SH_ROUTES,  // likewise for the shell (phantoms only)
    BOX_PV_UPSTREAM_CA, // CAs the gateway trusts upstream besides the system's
    BOX_PV_COUNT
} box_proctab_pv;

/* One `--flag VALUE` pair of a row's command line. */
typedef struct box_proctab_arg {
    const char *pa_flag; // NULL ends the list
    box_proctab_pv pa_value;
} box_proctab_arg;

#define BOX_PROC_ARGS_MAX 12 // pairs in one row's template
#define BOX_PROC_NAMES_MAX 8 // peers, or kept environment names, per row
#define BOX_PROC_PARENTS_MAX 3

typedef struct box_proctab_row {
    box_proctab_id pt_id;
    const char *pt_name; // the program's file name (or the process's name)
    const char *pt_job;  // one line: what it is for
    box_profile pt_profile;
    box_proctab_start pt_start;
    // The rows that start it ("box" is box run itself), NULL-ended.
    const char *pt_parents[BOX_PROC_PARENTS_MAX];
    box_proctab_health pt_health;
    box_proctab_pv pt_health_at; // the address that answers, for a health kind
    box_proctab_arg pt_args[BOX_PROC_ARGS_MAX]; // BOX_START_RUN rows only
    // The rows it exchanges messages with (box-pdp serves only the
    // programs of its own row's peers, pdp_peer.c; every BOX_START_RUN row
    // also answers box run's health question).
    const char *pt_peers[BOX_PROC_NAMES_MAX];
    // The environment names it keeps: what it (or a library it links)
    // reads. Under a sanitizer build the sanitizer's option names are kept
    // too (box_proctab_keeps).
    const char *pt_env[BOX_PROC_NAMES_MAX];
} box_proctab_row;

/* The row of id, or NULL when id is not one (BOX_PROC_COUNT or past). */
const box_proctab_row *box_proctab_get(box_proctab_id id);
/* The row named name, or NULL. */
const box_proctab_row *box_proctab_find(const char *name);
/* The row whose process is confined with profile p, or NULL. */
const box_proctab_row *box_proctab_by_profile(box_profile p);

/* Where a box's processes find their values. All borrowed. A NULL value
 * drops every pair that takes it (e.g. no policy: no --policy; box-pdp
 * then denies everything). pb_box_dir is required. */
typedef struct box_proctab_box {
    const char *pb_bindir;    // the directory holding the programs
    const char *pb_box_dir;   // the box directory
    const char *pb_policy;    // the policy file, or NULL
    const char *pb_box_id;    // box-<16 hex>, or NULL
    const char *pb_run_id;    // this run, or NULL
    const char *pb_config;    // the run's box.toml, or NULL
    const char *pb_workspace; // the agent's workspace, or NULL
    const char *pb_gw_address; // the gateway's proxy address, or NULL
    /* The credential routes' memory files (box_routes.h), which the
     * gateway and the shell get as BOX_PROCTAB_ROUTES_FD; 0: none. */
    int pb_gw_routes_fd;
    int pb_sh_routes_fd;
    const char *pb_upstream_ca; // the operator's SSL_CERT_FILE, or NULL
} box_proctab_box;

/* The descriptor a service reads its credential routes from. */
#define BOX_PROCTAB_ROUTES_FD 3

/* The value v takes for box b: *out (caller frees) or NULL when the box
 * has none. BOX_OK, BOX_ENOMEM, or BOX_EINVAL (BOX_PV_NONE or out of
 * range). */
box_err box_proctab_value(box_proctab_pv v, const box_proctab_box *b,
                          char **out) BOX_WARN_UNUSED;

/* The command line of a BOX_START_RUN row: bindir/name, then each pair of
 * its template whose value b has. On error av holds a prefix (the caller
 * frees it either way). BOX_EINVAL for a row box run does not start. */
box_err box_proctab_argv(const box_proctab_row *row, const box_proctab_box *b,
                         box_argv *av) BOX_WARN_UNUSED;

/* The address a row's health is asked at (caller frees), or NULL with
 * BOX_OK for a row without one. */
box_err box_proctab_health_url(const box_proctab_row *row,
                               const box_proctab_box *b,
                               char **out) BOX_WARN_UNUSED;

/* True when the row keeps the environment name (its own names, plus the
 * sanitizer's option names in a sanitizer build). */
bool box_proctab_keeps(const box_proctab_row *row, const char *name);

/* The environment of a row's process: every NAME=value of from (an envp)
 * whose name the row keeps, in from's order, appended to env (the caller
 * frees it either way). An empty result leaves env->av_v NULL: pass
 * box_proctab_envp(env) to a spawn. */
box_err box_proctab_env(const box_proctab_row *row, char *const *from,
                        box_argv *env) BOX_WARN_UNUSED;
/* env's vector, or an empty one for an env with nothing in it. */
char *const *box_proctab_envp(const box_argv *env);

/*
 * Cleans the calling process's environment to what its row keeps: called
 * first thing in a service's main (after box_svc_tie_to_parent, which
 * takes its own variable out), so a service started by hand or by a test
 * holds no more than one box run starts. The environment block the
 * kernel gave the process is overwritten too (the kept names first, the
 * rest zeroed), so a secret that arrived in it is gone from memory, from
 * a later fork's memory and from /proc/PID/environ. Any pointer that
 * getenv returned before is invalid afterwards. Call it while the process
 * has one thread. BOX_OK, or BOX_ENOMEM: the caller exits (the environment
 * may be half cleaned).
 */
box_err box_proctab_clean_env(const box_proctab_row *row) BOX_WARN_UNUSED;

#endif
