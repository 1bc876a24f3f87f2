/* SPDX-License-Identifier: Apache-2.0 */
/* The launcher: the one process of box-shell that starts box-contain. */
#ifndef SH_LAUNCHER_H
#define SH_LAUNCHER_H

#include "box_err.h"

/*
 * Workers run the shell's language on hostile text and are confined so
 * that they cannot execute anything; the broker, confined to its sockets,
 * cannot either (what it started would inherit its Landlock domain). So
 * box-shell forks, before any thread exists, a forker (forker.h) whose
 * only job is to posix_spawn box-contain with the argv the broker built
 * (from the configuration, for a program whose shell:spawn the broker saw
 * permitted) and the descriptors the worker handed over. Each run leads a
 * process group of its own and is tied to the launcher; its status pipe
 * (forker.h) reports its end, and closing that pipe's read end kills it.
 */
typedef struct sh_launcher sh_launcher;

/* Forks the launcher (before any thread exists). */
box_err sh_launcher_start(sh_launcher **out) BOX_WARN_UNUSED;

/*
 * Starts argv (argv[0] absolute; the environment is only the tie to the
 * launcher, box-contain sets the program's own) with io[0] as stdin (-1:
 * /dev/null), io[1] stdout and io[2] stderr (all stay the caller's), and
 * a status pipe it makes: on BOX_OK *status_fd (the caller's) is its read
 * end. Returns once the request is sent: a run that cannot start says so
 * on the status pipe (a negative errno). BOX_ECLOSED when the launcher is
 * gone; BOX_ENOMEM, BOX_EIO.
 */
box_err sh_launcher_run(sh_launcher *l, char *const *argv, const int io[3],
                        int *status_fd) BOX_WARN_UNUSED;

/* The launcher's pid. */
int sh_launcher_pid(const sh_launcher *l);

/* Its request socket (forker_fd). */
int sh_launcher_fd(const sh_launcher *l);

/* Ends the launcher (it kills every run first) and frees l. */
void sh_launcher_stop(sh_launcher *l);

#endif
