/* SPDX-License-Identifier: Apache-2.0 */
/* Host programs: find one (§3.4), pick the spec it runs under (§3.9), run it
 * in a leaf sandbox through box-contain (§3.9, §3.10). */
#ifndef SH_SPAWN_H
#define SH_SPAWN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "box_err.h"
#include "box_procspec.h"
#include "config.h"

/* Per-command wall clock (§3.1): past it the run is killed. */
#define SH_SPAWN_TIMEOUT_MS 30000L
/* Each captured stream holds at most this much; past it the run is killed. */
#define SH_SPAWN_MAX_OUTPUT (8u << 20)
/* What the caller prints (after `strands-shell: `) for BOX_ETIMEDOUT. */
#define SH_SPAWN_TIMEOUT_MSG "execution timeout exceeded"

/*
 * A program found on the host. sf_path is canonical (every symlink
 * resolved) and sf_dev:sf_ino is the identity the decision binds: it is
 * what box-contain will run, and nothing resolves the name again.
 * sf_argv0 is the caller's spelling made absolute (the word joined to the
 * cwd, or the PATH directory joined to the name), the program's argv[0].
 * Both strings are owned by the record; free with sh_spawn_found_free.
 */
typedef struct sh_spawn_found {
    char *sf_path;
    char *sf_argv0;
    dev_t sf_dev;
    ino_t sf_ino;
} sh_spawn_found;

/*
 * §3.4 host lookup, on the host file system (this runs in the trusted
 * shell process, not in the agent's view). A word containing '/' is that
 * path (joined to cwd when relative); a bare name walks trusted_path (NULL
 * or empty: "/usr/bin:/bin"), skipping empty and relative entries (a
 * relative entry would resolve against an agent-controlled cwd). A
 * candidate must be a regular file with an x bit (box_which_spelled).
 * Returns 0 (out filled), ENOENT (nothing found), ENOMEM, or for a '/'
 * word EACCES (it names something that exists but is not an executable
 * regular file), ENAMETOOLONG or another realpath errno; on failure out
 * is left empty.
 */
int sh_spawn_locate(const char *trusted_path, const char *cwd, const char *word,
                    sh_spawn_found *out) BOX_WARN_UNUSED;
/* Frees what out holds and leaves it empty; an empty record is a no-op. */
void sh_spawn_found_free(sh_spawn_found *f);

/* The selection's result: which spec runs the program, with what argv. */
typedef struct sh_spawn_plan sh_spawn_plan;

/*
 * §3.9 selection for the program prog (from sh_spawn_locate) called with
 * argv[0..argc) (argv[0] is the word as typed; the plan's argv[0] is
 * prog->sf_argv0). Tools first: a `[tool.NAME]` whose command[0] resolves
 * (bare: its env PATH, else operator_path, else "/usr/bin:/bin") to
 * prog's canonical path names it; its command[1..] must equal argv's
 * leading arguments; the longest command wins (the first in source order
 * on a tie). A tool naming the program with no argument match refuses:
 * it never falls through to the agent. Otherwise the `[agent]` exec list
 * (a file exactly, or a directory above it; `~` is operator_home) admits
 * it unless a deny entry covers it or cannot be resolved.
 *
 * BOX_OK: *out is the caller's (sh_spawn_plan_free); it borrows cfg, which
 * must outlive it. BOX_EDENIED: *err is the message the caller prints
 * after `strands-shell: <word>: ` with status 126, e.g.
 *   no tool runs ~/bin/x: no `[tool.<name>] command` matches this program
 *   and its leading arguments
 * (the path reported as `~/...` under operator_home). Also BOX_EINVAL,
 * BOX_ENOMEM (*err then NULL).
 */
box_err sh_spawn_select(const box_config *cfg, const char *operator_path,
                        const char *operator_home, const sh_spawn_found *prog,
                        int argc, char *const *argv, sh_spawn_plan **out,
                        char **err) BOX_WARN_UNUSED;

/* The spec that runs the program (pr_label NULL: the agent's own). */
const box_config_process *sh_spawn_plan_spec(const sh_spawn_plan *p);
void sh_spawn_plan_free(sh_spawn_plan *p);

/* Receives one captured stream (fd 1 or 2) after the program has ended. */
typedef void (*sh_spawn_write_fn)(void *ctx, int fd, const char *data,
                                  size_t len);
/* Asked while the program runs (at least every SH_SPAWN_STOP_POLL_MS):
 * true when the caller's call is over (its deadline, its end). */
typedef bool (*sh_spawn_stop_fn)(void *ctx);
#define SH_SPAWN_STOP_POLL_MS 100

struct sh_launcher;

typedef struct sh_spawn_run_opts {
    const char *ro_contain;   // absolute path of the box-contain binary
    const char *ro_cwd;       // the Shell's cwd (absolute)
    const char *ro_workspace; // the agent workspace (absolute), or NULL
    const char *ro_box_dir;   // hidden whole from the program, or NULL
    /* The gateway (a tool table with network.contain_egress = true);
     * NULL: the program has no network. */
    const struct box_procspec_egress *ro_egress;
    struct sh_launcher *ro_launcher; // starts box-contain (sh_spawn_run)
    int ro_stdin;             // the program's stdin; -1: /dev/null
    long ro_timeout_ms;       // wall clock; 0: SH_SPAWN_TIMEOUT_MS
    size_t ro_max_output;     // per stream; 0: SH_SPAWN_MAX_OUTPUT
    sh_spawn_write_fn ro_write;
    sh_spawn_stop_fn ro_stop; // may be NULL
    void *ro_ctx;             // for ro_write and ro_stop
} sh_spawn_run_opts;

/*
 * box-contain's argv for the plan (av_v[0] is o->ro_contain): the spec's
 * lists with `~` expanded, `--hide` the box directory (a leaf needs none of
 * it, and Landlock does not stop connect(2) on the sockets there), `--net
 * none`, the §3.9 cwd, the §5 environment, then the program by identity
 * and `-- argv`; it executes only that program and the spec's `exec` list.
 * On BOX_OK *argv is the caller's (box_argv_free); BOX_ENOMEM, BOX_EINVAL.
 */
box_err sh_spawn_contain_argv(const sh_spawn_plan *plan,
                              const sh_spawn_run_opts *o,
                              box_argv *argv) BOX_WARN_UNUSED;

/*
 * Starts one run, given its descriptors: io[0] stdin (-1: /dev/null),
 * io[1] and io[2] the write ends of the stdout and stderr pipes; all stay
 * the caller's. BOX_OK: started, and *status_fd (the caller's) is the read
 * end of its status pipe (forker.h), which whoever starts the run makes,
 * so no caller can hand the launcher a descriptor it would block on; a
 * run that cannot start says so there. BOX_EDENIED: refused before
 * starting, *status and *err (the caller's) say how (e.g. 126 and the
 * §3.9 selection's message). Anything else: the run could not be asked
 * for (*err may say why).
 */
typedef box_err (*sh_spawn_start_fn)(void *ctx, const int io[3],
                                     int *status_fd, int *status, char **err);

/*
 * Runs one contained program started by start: captures stdout and stderr
 * through pipes and hands them to o->ro_write (stdout, then stderr) once
 * the run has ended; its status comes from the status pipe. The wall
 * clock (o->ro_timeout_ms), the capture cap and o->ro_stop end the run by
 * closing the status pipe, which makes the launcher kill its process
 * group. o->ro_contain names box-contain in messages.
 *
 * BOX_OK: *status is the program's status (signal n: 128 + n; box-contain's
 * own failures are 125/126/127 with its message in the captured stderr).
 * BOX_ETIMEDOUT: the wall clock ran out and the run was killed; BOX_ETOOBIG:
 * a stream passed its cap and the run was killed. Either way *status is 1
 * (§3.1), what was captured (up to the cap) is still relayed and *err says
 * what happened. BOX_ECANCELED: ro_stop said stop and the run was killed;
 * what was captured is relayed, *err is NULL (the caller knows why) and
 * *status is 1. BOX_EDENIED: start refused (*status and *err from it).
 * BOX_EIO: the run could not start (*err says why, *status 126).
 * BOX_ENOMEM, BOX_EINVAL (*err NULL). *err is the caller's.
 */
box_err sh_spawn_watch(sh_spawn_start_fn start, void *start_ctx,
                       const sh_spawn_run_opts *o, int *status,
                       char **err) BOX_WARN_UNUSED;

/*
 * The broker's half of a launch, from what a worker asked for: finds
 * argv[0] from o->ro_cwd on trusted_path (sh_spawn_locate, on the host),
 * gives its path as a decision names it (*reported: `~` / `~/rel` under
 * operator_home, else as is), selects its spec (sh_spawn_select) and
 * builds box-contain's argv (sh_spawn_contain_argv with o). BOX_OK:
 * *reported and *contain_argv are the caller's, and *native the tool's
 * label when its table gives it native egress (network.contain_egress =
 * false: the caller logs `egress:native` before the run), else NULL. BOX_EDENIED: *err (the
 * caller's) is what to print after `<word>: `, status 126: the selection
 * refused, or the program is no longer there to run. BOX_ENOMEM,
 * BOX_EINVAL.
 */
box_err sh_spawn_prepare(const box_config *cfg, const char *trusted_path,
                         const char *operator_home, int argc,
                         char *const *argv, const sh_spawn_run_opts *o,
                         char **reported, box_argv *contain_argv,
                         char **native, char **err) BOX_WARN_UNUSED;

/*
 * sh_spawn_watch of the plan, started by o->ro_launcher with
 * sh_spawn_contain_argv: what the broker does for a worker, in one call
 * (tests).
 */
box_err sh_spawn_run(const sh_spawn_plan *plan, const sh_spawn_run_opts *o,
                     int *status, char **err) BOX_WARN_UNUSED;

#endif
