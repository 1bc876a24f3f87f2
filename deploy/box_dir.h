/* SPDX-License-Identifier: Apache-2.0 */
/* The box directory: layout, the run's exclusive lock, the box id. */
#ifndef BOX_DIR_H
#define BOX_DIR_H

#include <stdbool.h>

#include "box_err.h"

typedef struct box_dir box_dir;

/* Creates (0700; the parent must exist) or opens the box directory, makes
 * bin/ run/ trust/ private/ private/telemetry/, takes the exclusive run
 * lock and reads or mints the box id. `record` is a digest of what this run
 * loaded (config and policy bytes); *changed tells whether it differs from
 * the last run's. On failure *err (caller frees) holds the message. */
box_err box_dir_open(const char *path, const char *name, const char *record,
                     box_dir **out, bool *created, bool *changed,
                     char **err) BOX_WARN_UNUSED;
/* Releases the lock (last step of teardown) and frees. */
void box_dir_close(box_dir *d);

const char *box_dir_path(const box_dir *d);
const char *box_dir_id(const box_dir *d);

#endif
