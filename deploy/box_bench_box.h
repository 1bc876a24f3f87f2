/* SPDX-License-Identifier: Apache-2.0 */
/* A real box for the benchmarks that time shell calls (`box bench e2e`,
 * `box bench shell`): box-pdp and box-shell started from the process
 * table in a temporary directory on a permit-everything policy, calls
 * through its alias or a peer shell, and the decisions a call added to
 * the log. */
#ifndef BOX_BENCH_BOX_H
#define BOX_BENCH_BOX_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "box_proctab.h"

#define BB_OUT_MAX 4096 // output bb_call_ok keeps when not given a buffer
#define BB_ACTIONS_MAX 8

/*
 * One bench's box: the temporary directory (short, for the 107-byte
 * socket paths) holds the box directory b/ laid out as box run lays it
 * out, the workspace w/ (outside the box directory, which the reach floor
 * keeps out of every command's reach) and the services' output. It owns
 * both services; bb_close stops them and removes the directory.
 */
typedef struct bb_box {
    char bb_tmp[32];  // /tmp/box-bench-XXXXXX, or "" before mkdtemp
    char bb_dir[64];  // the box directory
    char bb_ws[64];   // the workspace
    char bb_sh[96];   // <dir>/bin/sh, the alias
    char bb_sock[96]; // <dir>/run/box.sock, the broker
    char bb_log[128]; // the decision log
    char bb_pdp_url[128];
    char bb_pub_url[128];
    char bb_policy[128];
    char bb_pdp_out[64];   // box-pdp's stdout and stderr
    char bb_shell_out[64]; // box-shell's
    pid_t bb_pdp;          // 0 when not running
    pid_t bb_shell;
} bb_box;

/* Decisions one call added to the log. */
typedef struct bb_tally {
    size_t bt_total;
    size_t bt_cached; // marked as answered from a permit cache
    size_t bt_denied; // any verdict but permit
    size_t bt_nact;
    struct {
        char ba_name[32];
        size_t ba_n;
    } bt_act[BB_ACTIONS_MAX];
} bb_tally;

/* One call: the program, its argv, and the directory it starts in. */
typedef struct bb_call_spec {
    const char *bc_path;
    char *const *bc_argv;
    const char *bc_cwd;
    int bc_timeout_ms;       // 0: BB_CALL_MS_DEFAULT
    const char *bc_err_path; // stderr appended here; NULL: with stdout
    size_t *bc_kept;         // when not NULL: the bytes kept in out (NULs too)
    const char *bc_stdin_path; // stdin read from this file; NULL: /dev/null
} bb_call_spec;

#define BB_CALL_MS_DEFAULT 30000

/* Prints `box bench: <msg>` on stderr; returns false. */
bool bb_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t bb_now_ns(void);
/* The options the call benches share; which ones a bench takes. */
enum { BB_OPT_WARMUP = 1u, BB_OPT_ONLY = 2u, BB_OPT_DIR = 4u };
typedef struct bb_opts {
    int bo_runs;          // --runs N (1..max)
    int bo_warmup;        // --warmup N (0..max)
    const char *bo_only;  // --only NAME
    const char *bo_dir;   // --dir DIR
} bb_opts;

/* Parses argv (argv[0] the bench's name) into o, which holds the
 * defaults: --runs, --help and the options which names. -1 to go on;
 * else the exit status (0 after --help, 2 after the usage). */
int bb_parse_opts(int argc, char **argv, const char *usage, unsigned which,
                  int max, bb_opts *o);

/* Sorts n times in place, shortest first. */
void bb_sort_ns(uint64_t *v, size_t n);
/* The median of n > 0 times (sorts them in place). */
uint64_t bb_median_ns(uint64_t *v, size_t n);
/* Creates path (it must not exist) holding n bytes of p, mode mode. */
bool bb_write_file(const char *path, const char *p, size_t n, mode_t mode);

#define BB_START_MS 60000 // a service must answer its health within this

/* Starts a service (a row of the process table, with its command line for
 * box b, then the NULL-ended extra arguments when extra is not NULL, and
 * the names of our environment the row keeps) tied to us, with a clean
 * signal state, stdin from /dev/null, its stdout and stderr appended to
 * out_path. */
bool bb_start(box_proctab_id id, const box_proctab_box *b,
              const char *const *extra, const char *out_path, pid_t *pid);
/* False (and *pid = 0, reaped) when the process has exited. */
bool bb_alive(pid_t *pid);
/* SIGTERM, then SIGKILL after 5 s. True when it exited 0 (or *pid was 0);
 * else a message naming it. *pid is 0 after. */
bool bb_stop(pid_t *pid, const char *name);

/* Lays out the directory and starts both services once they answer
 * (binaries from bindir); on failure b is still closed by bb_close. */
bool bb_open(bb_box *b, const char *bindir);
/* Stops both services (box-shell first) and removes the directory. False
 * when a service did not stop cleanly. */
bool bb_close(bb_box *b);
/* Removes a bench's temporary directory and all in it; only a path under
 * /tmp/box-bench-, so a slip can never remove anything else. */
void bb_rmtree(const char *tmp);
/* Prints the end of a service's output under a failure message. */
void bb_tail(const char *path);

/* One call: stdin /dev/null, stdout and stderr (or stdout only, with
 * bc_err_path) into one pipe drained to end of file, then waitpid; *ns is spawn
 * to reap. Up to outn - 1 bytes of output land in out (NUL-terminated) when out
 * is not NULL. A call not done within its timeout is killed and fails. */
bool bb_call(const bb_call_spec *cs, uint64_t *ns, int *wstatus, char *out,
             size_t outn);
/* A call that must exit 0 (else a message with its output, and box-shell's
 * last output when b is not NULL). */
bool bb_call_ok(const bb_box *b, const bb_call_spec *cs, uint64_t *ns,
                char *out, size_t outn);

/* The log's size once it has stopped growing (decisions answered from a
 * cache reach the PDP's log after the call has returned). */
bool bb_log_settle(const bb_box *b, off_t *size);
/* Tallies the decision records in the log between offsets from and to. */
bool bb_log_tally(const bb_box *b, off_t from, off_t to, bb_tally *t);

#endif
