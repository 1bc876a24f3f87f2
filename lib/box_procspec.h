/* SPDX-License-Identifier: Apache-2.0 */
/* From a ProcessSpec ([agent], [tool.NAME]) to what box-contain is given:
 * the program's canonical file and the filesystem arguments. */
#ifndef BOX_PROCSPEC_H
#define BOX_PROCSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "box_err.h"
#include "config.h"

/* A growing NULL-terminated argv of box_alloc'd strings. */
typedef struct box_argv {
    char **av_v; // av_v[av_n] == NULL once anything was pushed
    size_t av_n, av_cap;
} box_argv;

box_err box_argv_push(box_argv *av, const char *s) BOX_WARN_UNUSED;
box_err box_argv_pushf(box_argv *av, const char *fmt, ...) BOX_WARN_UNUSED
    __attribute__((format(printf, 2, 3)));
void box_argv_free(box_argv *av);

/*
 * Finds a program the way box-spec §3.4 and §5 do: a name holding '/' is
 * that path; a bare name walks path_list (':'-separated, empty entries
 * skipped; NULL or empty: "/usr/bin:/bin") for a regular file with an x
 * bit. On 0, *canonical (caller frees) is its realpath and *dev / *ino its
 * identity; else ENOENT (or ENOMEM).
 */
int box_which(const char *name, const char *path_list, char **canonical,
              dev_t *dev, ino_t *ino);

/* The value of a spec's env entry, or NULL. */
const char *box_procspec_env(const box_config_process *pr, const char *name);

/* An entry as written (`~`, `~/rel`, absolute) made absolute with home.
 * Caller frees; NULL on ENOMEM. */
char *box_procspec_expand(const char *entry, const char *home);

/* Appends one `--read P`, `--write P`, ... pair per filesystem entry of
 * pr, `~` expanded with home (the lists are box-contain's, one to one). */
box_err box_procspec_fs_args(box_argv *av, const box_config_process *pr,
                             const char *home) BOX_WARN_UNUSED;

#endif
