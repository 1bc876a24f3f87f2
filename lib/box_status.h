/* SPDX-License-Identifier: Apache-2.0 */
/* The exit statuses the box gives on its own: the shell's, box-contain's, the alias's. */
#ifndef BOX_STATUS_H
#define BOX_STATUS_H

/*
 * One table for every status the box itself decides (box-spec §5), so the
 * shell, box-contain and the alias can never disagree on what 125 means.
 * A host program's own status is not one of these: it is passed through as
 * a plain int and never compared against these names.
 */
typedef enum box_status {
    BOX_STATUS_OK = 0,
    BOX_STATUS_FAILED = 1, // the command failed (false, a missing file)
    BOX_STATUS_USAGE = 2,  // bad usage or serious trouble (ls, grep, test)
    /* The box failed or refused: a decision that could not be made, a
     * refused transport, the alias or box-contain itself (its bad usage
     * too). The shell's call ends here. */
    BOX_STATUS_FAULT = 125,
    /* Refused by policy (shell:exec, shell:spawn), or found but cannot
     * run: no tool runs it, its identity changed, not executable. */
    BOX_STATUS_CANNOT_RUN = 126,
    BOX_STATUS_NOT_FOUND = 127, // no such command, program or interpreter
} box_status;

#endif
