/* SPDX-License-Identifier: Apache-2.0 */
/* A run's credential routes: `[egress.NAME]` tables made ready for the
 * gateway and the sandboxes (box-spec §5, §6). */
#ifndef BOX_ROUTES_H
#define BOX_ROUTES_H

#include <stddef.h>

#include "box_err.h"
#include "box_procspec.h"
#include "config.h"

/*
 * For each table: its secret read from where secret.ref says (env://NAME:
 * box run's own environment), and a phantom minted (secret.phantom_prefix
 * and 64 random hex digits) for the sandboxes to hold instead. Both go to
 * box-gateway, and the phantoms alone to box-shell, each on a sealed memory
 * file (never a file in the box directory): the real secret reaches no
 * sandbox, no log and no decision.
 */
typedef struct box_routes box_routes;

/* envp: the environment env:// names are read from. On failure *err is
 * the caller's message (BOX_ECONFIG: a secret that cannot be used;
 * BOX_EIO: no memory file; BOX_ENOMEM). A configuration without
 * `[egress.NAME]` tables gives routes with no files and no phantoms. */
box_err box_routes_make(const box_config *cfg, char *const *envp,
                        box_routes **out, char **err) BOX_WARN_UNUSED;

/* The memory files for the gateway (with the secrets) and the shell
 * (phantoms only), read from their start: 0 when there are no routes. */
int box_routes_gateway_fd(const box_routes *r);
int box_routes_shell_fd(const box_routes *r);
/* Closes both files (the services have read them). */
void box_routes_close_files(box_routes *r);

/* The phantoms, in table order, for the sandboxes' environments. */
const box_procspec_phantom *box_routes_phantoms(const box_routes *r,
                                                size_t *n);

/* Wipes the secrets, closes the files, frees; NULL is a no-op. */
void box_routes_free(box_routes *r);

#endif
