/* SPDX-License-Identifier: Apache-2.0 */
/* File modes as chmod and mkdir -m read them (octal or symbolic), and as
 * chmod -v and ls print them. */
#ifndef CMD_MODE_H
#define CMD_MODE_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Applies mode text s (GNU chmod's grammar: an octal number up to 07777,
 * or clauses [ugoa]*[-+=]([rwxXst]*|[ugo]) joined by ',') to old, the
 * current mode of a file (dir: it is a directory, for X). umask masks
 * what a clause without [ugoa] sets. Returns false, *out untouched,
 * when s is not a mode.
 */
bool cmd_mode_apply(const char *s, mode_t old, bool dir, mode_t umask,
                    mode_t *out);

/* Whether s sets the same bits whatever the old mode (octal, or '='
 * clauses covering everything): then no probe is needed to apply it. */
bool cmd_mode_absolute(const char *s);

/* "rwxr-xr-x" (with s S t T in the x places), 9 characters and NUL. */
void cmd_mode_string(mode_t m, char out[10]);

/* "drwxr-xr-x" as ls -l and stat's %A show it: the type letter, then
 * cmd_mode_string's nine; 10 characters and NUL. */
void cmd_mode_ls(mode_t m, char out[11]);

#endif
