/* SPDX-License-Identifier: Apache-2.0 */
/* boxshspawn internals: the plan record and the path helpers. */
#ifndef SH_SPAWN_INT_H
#define SH_SPAWN_INT_H

#include <stdbool.h>
#include <sys/stat.h>

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

/* A growable NULL-terminated string vector (owned strings). */
typedef struct sp_strv {
    char **sv_v;
    size_t sv_n;
    size_t sv_cap;
} sp_strv;

/* Takes s (even on failure, when it is freed); NULL s is BOX_ENOMEM. */
box_err sp_strv_take(sp_strv *v, char *s) BOX_WARN_UNUSED;
box_err sp_strv_add(sp_strv *v, const char *s) BOX_WARN_UNUSED;
void sp_strv_free(sp_strv *v);

/* dir + "/" + name without doubling the slash; NULL on ENOMEM. */
char *sp_join(const char *dir, const char *name);
/* A list entry with `~` / `~/...` expanded against home; NULL on ENOMEM. */
char *sp_tilde(const char *entry, const char *home);
/* path is dir itself or lies beneath it (both canonical spellings). */
bool sp_covers(const char *dir, const char *path);
/* path as messages report it: `~` / `~/rel` under home, else as is. */
char *sp_report(const char *path, const char *home);
/*
 * realpath(path) into *canon (caller's) and its stat in *st. Returns 0,
 * or the errno of the failing call (ENOMEM when the copy fails).
 */
int sp_canon(const char *path, char **canon, struct stat *st);
/* A regular file with at least one x bit. */
bool sp_runnable(const struct stat *st);

/*
 * argv for box-contain (sv_v[0] is o->ro_contain): the spec's lists with
 * `~` expanded, `--net none`, `--cwd`, the `--env` set, then the program
 * by identity and `-- argv` (sh_spawn_cmd.c). On BOX_OK argv is the
 * caller's (sp_strv_free); on BOX_ENOMEM it is left empty.
 */
box_err sp_cmd_build(const sh_spawn_plan *plan, const sh_spawn_run_opts *o,
                     sp_strv *argv) BOX_WARN_UNUSED;

#endif
