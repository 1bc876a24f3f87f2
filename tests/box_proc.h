/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper: run a real box program, capture its output, bound its time. */
#ifndef BOX_PROC_H
#define BOX_PROC_H

#include <stdbool.h>
#include <sys/types.h>

typedef struct box_proc {
    pid_t bp_pid;
    int bp_out_fd; // read end of its stdout
    int bp_err_fd; // read end of its stderr
} box_proc;

typedef struct box_proc_result {
    int pr_status;   // exit status, or 128+signal
    bool pr_timeout; // killed after the deadline
    char *pr_out;    // captured stdout (caller frees with box_free)
    char *pr_err;    // captured stderr
} box_proc_result;

/* Path of a built program: $BOX_BUILD_DIR/bin/NAME (static buffer per call
 * site is the caller's: writes into buf). */
const char *box_proc_bin(char *buf, unsigned long n, const char *name);

/* Starts argv (argv[0] a path) with stdout/stderr captured; envp NULL means
 * the test's environment. Returns false on failure. */
bool box_proc_start(box_proc *p, char *const argv[], char *const envp[]);

/* Collects all output and the exit status, killing it after timeout_ms. */
void box_proc_finish(box_proc *p, int timeout_ms, box_proc_result *r);

/* Start + finish in one call. */
void box_proc_run(char *const argv[], int timeout_ms, box_proc_result *r);

void box_proc_result_free(box_proc_result *r);

#endif
