/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: runs one case in real bash and in the box's shell. */
#ifndef BASH_RUN_H
#define BASH_RUN_H

#include "bash_case.h"
#include "box_buf.h"

/*
 * Both shells run a case in the same directory path, made afresh for each
 * (so `pwd` and error texts naming paths agree), with the same
 * environment: PATH=/usr/bin:/bin, HOME=the directory, LC_ALL=C.UTF-8,
 * TZ=UTC. bash reads the case's stdin (or /dev/null); the box never sees
 * stdin (box-spec §2: the alias does not forward it), so it reads EOF.
 */

#define BD_BASH "/bin/bash"
/* A case's wall clock in bash and its call budget in the box; the
 * sanitizer build runs the shell many times slower (a 16 MiB array case
 * took over 10 s under ASan on CI's two cores). */
#ifdef BOX_SANITIZE
#define BD_CASE_TIMEOUT_MS 30000u
#else
#define BD_CASE_TIMEOUT_MS 10000u
#endif

typedef struct bd_result {
    box_buf br_out, br_err;
    int br_status;   // 0..255, 128+signal
    box_buf br_tree; // the directory left (bd_dir_snapshot)
} bd_result;

void bd_result_init(bd_result *r);
void bd_result_reset(bd_result *r);

/* Makes dir (which must not exist) and the case's files in it, with any
 * parent directories. BOX_EIO with *err (caller frees) naming the path. */
box_err bd_dir_make(const char *dir, const bd_case *c,
                    char **err) BOX_WARN_UNUSED;
/* One line per entry under dir, sorted: "path/" for a directory,
 * "path -> target" for a link, "path: <content escaped>" for a file. */
box_err bd_dir_snapshot(const char *dir, box_buf *out) BOX_WARN_UNUSED;
/* Removes dir and everything in it (no-op if absent). */
void bd_dir_remove(const char *dir);

/* `bash --norc --noprofile -c SCRIPT` in dir; scratch is a directory
 * outside dir for its stdin and output files. BOX_ETIMEDOUT when it ran
 * past BD_CASE_TIMEOUT_MS (killed); BOX_EIO with *err otherwise. */
box_err bd_run_bash(const char *dir, const char *scratch, const bd_case *c,
                    bd_result *r, char **err) BOX_WARN_UNUSED;
/* The box's shell in-process (a session with a permit-everything decider
 * and dir as its one host bind and cwd). */
box_err bd_run_box(const char *dir, const bd_case *c, bd_result *r,
                   char **err) BOX_WARN_UNUSED;

/* The bash at BD_BASH's version ("5.2.15(1)-release"), or NULL with *err.
 * Caller frees. */
char *bd_bash_version(const char *scratch, char **err);

#endif
