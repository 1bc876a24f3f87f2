/* SPDX-License-Identifier: Apache-2.0 */
/* The agent: its aliases, its sandbox, its start. */
#ifndef BOX_AGENT_H
#define BOX_AGENT_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

#include "box_err.h"
#include "config.h"

/* Runs `box-contain --probe`. BOX_OK when every kernel feature the
 * sandboxes need is present; else *err (caller frees) names the missing
 * ones. */
box_err box_agent_probe(const char *bindir, char **err) BOX_WARN_UNUSED;

/* Installs <box_dir>/bin/{zsh,bash,sh}: real copies of box-alias, mode
 * 0500, each replaced atomically (never a link the agent could retarget)
 * unless it already holds this image; and bin/box-shell-shim, the shim
 * with the trailer naming bin/ (box_shells.h) that `[agent] shells =
 * "all"` binds over the system's shells. *refreshed: an existing file
 * held another image and was replaced. */
box_err box_agent_install_aliases(const char *bindir, const char *box_dir,
                                  bool *refreshed, char **err) BOX_WARN_UNUSED;

typedef struct box_agent_opts {
    const char *ao_bindir;             // box-contain lives here
    const char *ao_box_dir;            // hidden but bin/ and run/box.sock
    const char *ao_operator_home;      // `~`, default HOME
    const char *ao_operator_path;      // the trusted PATH
    const char *ao_workspace;          // canonical; the agent's cwd
    const box_config_process *ao_spec; // [agent]
    const box_config *ao_config;       // its [tool.*] are disclosed; or NULL
    char *const *ao_args;              // run's trailing arguments (may be NULL)
    FILE *ao_disclose;                 // §5 startup disclosure goes here
    /* The gateway: the sandbox's relay, proxy and trust names; NULL: no
     * network at all. */
    const struct box_procspec_egress *ao_egress;
} box_agent_opts;

/* Prints the disclosures (each [tool.*] `exec` list, then the [agent]'s
 * reach), then posix_spawns the agent inside box-contain.
 * On BOX_OK *pid is the box-contain process (its status is the agent's). */
box_err box_agent_start(const box_agent_opts *o, pid_t *pid,
                        char **err) BOX_WARN_UNUSED;

#endif
