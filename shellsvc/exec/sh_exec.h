/* SPDX-License-Identifier: Apache-2.0 */
/* The shell executor's public face: sessions, the one admission point, runs. */
#ifndef SH_EXEC_H
#define SH_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#include "box.pb-c.h"
#include "box_err.h"
#include "box_status.h"
#include "box_verdict.h"
#include "sh_kernel.h"

/*
 * A session is one Program (box-spec §3.1): shell state (variables,
 * functions, cwd), the decider every command is admitted through, the
 * output callbacks and the kernel every file effect goes through. One session
 * runs one command text at a time (sh_session_run); pipeline stages, subshells
 * and `&` jobs run as threads with their own copy of the state.
 *
 * Limits (spec §3.1): SH_MAX_INPUT bytes of text, recursion depth
 * SH_EXEC_MAX_DEPTH, SH_CAPTURE_MAX bytes per $( ) capture, wall clock
 * so_timeout_ms (cooperative: checked before every command and loop turn).
 */

#define SH_EXEC_MAX_DEPTH 64u
/* Pipeline stages of one call running at once: each is a thread with a
 * default (8 MiB) stack, in a worker of 2 GiB address space. */
#define SH_MAX_LIVE_STAGES 128u
#define SH_CAPTURE_MAX (64u * 1024u)
#define SH_TIMEOUT_MS 30000u
#define SH_MAX_FD 128

/* Writes n bytes of stdout/stderr (same contract as worker_write_fn):
 * 0, or -1 when the call must stop (output budget spent, broker gone). */
typedef int (*sh_write_fn)(void *ctx, const char *p, size_t n);

/* Asks the stdin's source for input the command is about to read: at
 * most max bytes, up to and including the byte delim (-1: none); max 0:
 * all of it from now on. 0, or -1 when it cannot be asked (the read then
 * fails as on a broken pipe). */
typedef int (*sh_want_fn)(void *ctx, size_t max, int delim);

typedef struct sh_session sh_session;

struct box_config;
struct box_procspec_egress;

/* Host programs (box-spec §3.4, §3.9). Strings borrowed. */
/*
 * Starts one host program run whose shell:spawn was just permitted: argv[0]
 * as typed, cwd the shell's. io, status_fd, status and err as
 * sh_spawn_start_fn (sh_spawn.h): io[0] stdin (-1: none), io[1..2] the
 * stdout and stderr pipes; *status_fd the status pipe's read end. A worker
 * asks the broker, which finds, selects and starts the program through
 * the launcher.
 */
typedef box_err (*sh_launch_fn)(void *arg, int argc, char *const *argv,
                                const char *cwd, const int io[3],
                                int *status_fd, int *status, char **err);

/*
 * Hands over one new stream socket already connected to the egress
 * gateway's proxy (*sock): curl's only way out (box-spec §3.12, §6). A
 * worker cannot make sockets; it asks the broker, which connects only to
 * the gateway's own socket. BOX_OK, or an error with *err (the caller's)
 * saying why.
 */
typedef box_err (*sh_dial_fn)(void *arg, int *sock, char **err);

typedef struct sh_host_opts {
    const char *ho_trusted_path;  // the PATH of the process that ran box run
    const char *ho_operator_home; // `~`
    const char *ho_workspace;     // the agent workspace
    const struct box_config *ho_config; // [agent], [tool.NAME]; may be NULL
    const char *ho_contain;             // box-contain, or NULL
    const char *ho_box_dir;             // hidden from every host program
    sh_launch_fn ho_launch;             // required with ho_contain
    void *ho_launch_arg;
    /* The gateway curl proxies through; NULL: the box has no network. */
    const struct box_procspec_egress *ho_egress;
    const char *ho_egress_ca; // its CA (PEM), curl's only trust; or NULL
    size_t ho_egress_ca_len;
    sh_dial_fn ho_dial; // required with ho_egress
    void *ho_dial_arg;
} sh_host_opts;

typedef struct sh_session_opts {
    /* Required. Asks policy (box_verdict.h); a FAULT ends the call, 125.
     * The session calls it with its decision lock held, for shell:exec
     * and for the fs:* requests of the kernel it builds when given none,
     * so a decider needs no locking of its own. */
    box_decide_fn so_decide;
    void *so_decide_arg;
    /* Optional (so_decide_arg is its argument): a command's permit that
     * so_decide served with a bt_again ticket is served through it while
     * the command is the same, word for word, with the same cwd; the
     * request is then not built again. NULL: every command asks. */
    box_again_fn so_again;
    /* Records how each permitted command ended whose ticket wants it
     * (output.status: its exit status; 128 + n for a signal; 126 for a
     * program that could not start; -1 for one admitted but never run),
     * and, for the kernel the session builds when given none, how each
     * file effect did (sh_kernel_opts.ko_record). Called with the
     * decision lock held. NULL: nothing is recorded. */
    box_record_fn so_record;
    void *so_record_arg;
    sh_write_fn so_out, so_err; // required
    void *so_io_arg;
    /* Every file effect (borrowed). NULL: the session builds a kernel of
     * its own with no host binds, deciding fs:* through so_decide. */
    sh_kernel *so_kernel;
    /* NULL: no host lookup; a name that is not internal is judged as
     * shell:exec and is then "command not found". */
    const sh_host_opts *so_host;
    const char *so_cwd;        // absolute start cwd; NULL: "/"
    const char *const *so_env; // "NAME=VALUE" exported vars, NULL-ended
    unsigned so_timeout_ms;    // 0: SH_TIMEOUT_MS
    /* How the shell was started (`sh -c CMD NAME ARG...`, `bash -e -c`):
     * $0 (NULL: "strands-shell"), $1... = so_args[0..so_nargs), and the
     * options so_set[0..so_nset) in `set`'s own spelling ("-e", "-u",
     * "-x", "-o" NAME), applied before the text runs; an option the shell
     * does not know fails sh_session_new. */
    const char *so_arg0;
    /* The text is the script file so_arg0 (`bash SCRIPT ARG...`): it runs
     * as `bash FILE` runs one (errors placed "SCRIPT: line N:", frame
     * "main", no c in $-), not as -c text. */
    bool so_script;
    char *const *so_args;
    int so_nargs;
    const char *const *so_set;
    int so_nset;
    /* With so_has_stdin, so_stdin is an OS descriptor (a pipe's read end;
     * borrowed) that each run reads as its top-level stdin (fd 0): what
     * `cat`, `read` and a host program started there see. Without it fd 0
     * reads end of file (box-spec §2). */
    bool so_has_stdin;
    int so_stdin;
    /* With so_has_stdin: NULL, the pipe is fed unasked; else so_stdin's
     * bytes come only as this (with so_io_arg) asks for them, just before
     * a command reads, so a command that never reads its stdin leaves it
     * unread at its source, as a shell started on it would. */
    sh_want_fn so_stdin_want;
} sh_session_opts;

/* NULL on ENOMEM or missing callbacks. The options' strings are copied;
 * so_kernel and the callbacks are borrowed for the session's life. The
 * kernel's /bin gets `lash` and a link to it for every command. */
sh_session *sh_session_new(const sh_session_opts *o);

/* Seeds k's in-memory /bin: /bin/lash and a /bin/<cmd> link to it for
 * every command (spec §3.1). sh_session_new does it unless it is done: a
 * worker does it while it waits for its call. */
box_err sh_session_seed_bin(sh_kernel *k);
void sh_session_free(sh_session *ss);

/*
 * Runs one command text (box-spec §3.2: text with newlines runs one
 * complete command at a time) and returns the exit status 0..255. `&`
 * jobs still running when the text is done end with it (as `bash -c`
 * returns without waiting; nothing of a call outlives it): each stops at
 * its next check, a host program it runs is killed, and all are joined
 * before this returns. `wait` waits for them. Parse errors print
 * "strands-shell: …" (or "strands-shell: line N: …" for multi-line text) and
 * give 1.
 */
int sh_session_run(sh_session *ss, const char *text, size_t len);

/*
 * One text in a fresh session built from o (the worker's one call).
 * Returns 0..255 (1 when the session cannot be built).
 */
int sh_run_once(const sh_session_opts *o, const char *source, size_t len);

/* One command a stage would run, after full expansion (borrowed). */
typedef struct sh_cmd_value {
    int cv_argc;             // >= 1
    char *const *cv_argv;    // cv_argv[0] is the program as spelled
    const bool *cv_expanded; // per arg: came from an expansion (may be NULL)
    const char *cv_cwd;      // the Shell cwd (absolute)
    /* A host program (§3.4): the reported program_path ("~/…" under the
     * operator home); the request is then shell:spawn. NULL: shell:exec. */
    const char *cv_program_path;
} sh_cmd_value;

/* The outcome of one admission. */
typedef struct sh_admission {
    box_verdict ad_verdict; // PERMIT, DENY or FAULT, never another value
    char *ad_message;       // box_alloc'd text for deny/fault, or NULL; the
                            // caller frees it with box_free
    box_ticket ad_ticket; // a permit's: its outcome is wanted (sh_admit_finish)
} sh_admission;

/*
 * THE admission point (ARCHITECTURE §5): builds the shell:exec decision
 * request for cv (input {command, program, arg1?, arg2?, arg_count, cwd},
 * resource = program, subject process.command / process.command_args
 * redacted per spec §7 / process.working_directory) and asks the decider.
 * With cv_program_path the action is shell:spawn: the input adds
 * program_path, and the resource and the first command arg are it.
 * Prints nothing; sh_admit_report prints the spec message. BOX_ENOMEM
 * leaves *out as a fault.
 */
box_err sh_admit(sh_session *ss, const sh_cmd_value *cv,
                 sh_admission *out) BOX_WARN_UNUSED;

/*
 * The end of an admitted command (dogwood-spec §5.6: shell:exec and
 * shell:spawn always end in a ::response): records status as the
 * outcome of the permit *t, when its ticket wants one, and clears *t so
 * it is recorded once. Every path that admitted a command comes here
 * once it is over, or was given up before it ran
 * (BOX_OUTCOME_NO_STATUS).
 */
void sh_admit_finish(sh_session *ss, box_ticket *t, int status);

/*
 * The redacted process.command_args for cv (spec §7): argv[0] then each
 * argument; one that came from an expansion is kept only if it is a short
 * flag (-[A-Za-z0-9]+) or a long flag of <= 32 lowercase letters/dashes,
 * `--name=value` becomes `--name=<redacted>`, anything else `<redacted>`.
 * At most 64 entries, each at most 4 KiB (cut, ending "… (truncated)").
 * Returns the number of entries. out[i] is cv's own word, a constant or
 * owned[i]; each owned[i] is NULL or box_alloc'd for the caller to free.
 */
size_t sh_admit_redact(const sh_cmd_value *cv, const char **out,
                       char **owned, size_t max);

#endif
