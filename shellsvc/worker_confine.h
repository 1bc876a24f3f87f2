/* SPDX-License-Identifier: Apache-2.0 */
/* The worker profile: what a worker may do, set once in the zygote. */
#ifndef WORKER_CONFINE_H
#define WORKER_CONFINE_H

#include <stdbool.h>
#include <sys/types.h>

#include "box_seccomp.h"
#include "worker.h"

/* What worker_confine covered: each authority file's path and the
 * identity its cover shows there. */
#define WORKER_COVERS_MAX 4
typedef struct worker_covers {
    struct worker_cover {
        const char *wc_path; // borrowed from the settings
        dev_t wc_dev;
        ino_t wc_ino;
    } wv_items[WORKER_COVERS_MAX];
    size_t wv_n;
} worker_covers;

/*
 * Confines the calling process (the zygote, single-threaded, before it
 * forks any worker: every worker inherits all of it, so a call costs a
 * fork and nothing more). In this order: the box directory, the run's
 * box.toml and policy leave its view (a user and mount namespace, as
 * box-contain --hide/--deny make; capabilities dropped), the environment
 * is emptied, no_new_privs, then Landlock and seccomp (worker_confine.c
 * says what each allows). *covers says what was covered. Returns 0, or -1
 * having logged why: the zygote then exits and box-shell does not start.
 */
int worker_confine(const worker_settings *ws, worker_covers *covers);

/*
 * True while every cover worker_confine put over box.toml and the policy
 * is still on its path. A cover is a mount on the file, and the kernel
 * takes it off when the file is replaced by a rename (sed -i, editors
 * that save by renaming): the new file would be the workers' to read and
 * write. The zygote checks before every call and starts none once one is
 * gone (fail closed): a few lstat calls.
 */
bool worker_covers_intact(const worker_covers *covers);

/*
 * The workers' own filter (signals to itself only; threads, never a
 * process), compiled once into *out in the zygote before worker_confine
 * (compiling needs what the zygote's own filter then refuses, and costs
 * most of a millisecond a call would otherwise pay). Returns 0, or -1
 * having logged why.
 */
int worker_signals_compile(box_sc_prog **out);

/* In each worker after the fork: installs the compiled filter with the
 * worker's own pid. Returns 0 or -1 (the worker then exits). */
int worker_confine_signals(const box_sc_prog *signals);

#endif
