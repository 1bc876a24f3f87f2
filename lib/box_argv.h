/* SPDX-License-Identifier: Apache-2.0 */
/* A growing NULL-terminated vector of owned strings: an argv or an envp. */
#ifndef BOX_ARGV_H
#define BOX_ARGV_H

#include <stddef.h>

#include "box_err.h"

/* A growing NULL-terminated argv of box_alloc'd strings. */
typedef struct box_argv {
    char **av_v; // av_v[av_n] == NULL once anything was pushed
    size_t av_n, av_cap;
} box_argv;

/* Both copy; on BOX_ENOMEM av is unchanged (still the caller's to free). */
box_err box_argv_push(box_argv *av, const char *s) BOX_WARN_UNUSED;
box_err box_argv_pushf(box_argv *av, const char *fmt, ...) BOX_WARN_UNUSED
    __attribute__((format(printf, 2, 3)));
void box_argv_free(box_argv *av);

#endif
