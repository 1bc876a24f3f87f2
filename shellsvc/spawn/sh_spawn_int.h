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
#endif
