/* SPDX-License-Identifier: Apache-2.0 */
/* boxshspawn internals: the plan record and the path helpers. */
#ifndef SH_SPAWN_INT_H
#define SH_SPAWN_INT_H

#include <stdbool.h>
#include "box_procspec.h"
#include "sh_spawn.h"

/* Everything a run needs, decided once by sh_spawn_select. */
struct sh_spawn_plan {
    const box_config_process *pn_spec; // borrowed from the config
    char *pn_path;                     // canonical program path
    dev_t pn_dev;
    ino_t pn_ino;
    char **pn_argv; // NULL-terminated; [0] the absolute spelling
    int pn_argc;
    char *pn_home;   // operator home
    char *pn_search; // operator PATH, or NULL
};

/* path is dir itself or lies beneath it (both canonical spellings). */
bool sp_covers(const char *dir, const char *path);
/* path as messages report it: `~` / `~/rel` under home, else as is. */
char *sp_report(const char *path, const char *home);
/*
 * argv for box-contain (av_v[0] is o->ro_contain): the spec's lists with
 * `~` expanded, `--hide` the box directory, `--net none`, `--cwd`, the
 * `--env` set, then the program by identity and `-- argv`
 * (sh_spawn_cmd.c). On BOX_OK argv is the
 * caller's (box_argv_free); on BOX_ENOMEM it is left empty.
 */
box_err sp_cmd_build(const sh_spawn_plan *plan, const sh_spawn_run_opts *o,
                     box_argv *argv) BOX_WARN_UNUSED;

#endif
