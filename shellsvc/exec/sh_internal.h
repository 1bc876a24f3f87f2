/* SPDX-License-Identifier: Apache-2.0 */
/* Private types shared by the executor, expander and commands. */
#ifndef SH_INTERNAL_H
#define SH_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "box_arena.h"
#include "box_buf.h"
#include "sh_ast.h"
#include "sh_exec.h"
#include "sh_parse.h"
#include "sh_kernel.h"
#include "sh_spawn.h"
#include "sh_lex.h"

#define SH_PREFIX "strands-shell: "
/* What IFS holds at a shell's start, and what an unset IFS means. */
#define SH_IFS_DEFAULT " \t\n"

/* ---- streams: what a shell fd refers to ---- */

typedef enum sh_stream_kind {
    SH_ST_OUT,  // the session's stdout callback
    SH_ST_ERR,  // the session's stderr callback
    SH_ST_NULL, // reads end, writes vanish
    SH_ST_FD,   // an OS fd (pipe end), closed when the last ref goes
    SH_ST_BUF,  // capture for $( ): appends under a lock, capped
    SH_ST_MEM,  // read-only bytes (here-document)
    SH_ST_FILE, // a file the kernel opened
} sh_stream_kind;

typedef struct sh_stream sh_stream;

/* Write results. */
#define SH_IO_OK 0
#define SH_IO_ERR (-1)  // bad fd / failed write
#define SH_IO_PIPE (-2) // the reader is gone (or capture full): end stage
#define SH_IO_STOP (-3) // the call's output is spent: end the call
/* The call's budget ran out (or it was aborted) while a pipe was full:
 * end the call. */
#define SH_IO_OVER (-4)

sh_stream *sh_stream_new(sh_stream_kind k);
sh_stream_kind sh_stream_kind_of(const sh_stream *s);
/* A file the kernel opened, and a regular one (not /dev/null). */
bool sh_stream_regular(const sh_stream *s);
sh_stream *sh_stream_fd(int fd);
sh_stream *sh_stream_mem_take(char *p, size_t n); // owns p
sh_stream *sh_stream_buf(size_t max);
sh_stream *sh_stream_file(sh_kernel_file *f); // takes f
sh_stream *sh_stream_ref(sh_stream *s);       // NULL-safe
void sh_stream_unref(sh_stream *s);           // NULL-safe
/* sh_stream_unref that says whether it dropped the last ref (the pipe
 * end closed). */
bool sh_stream_unref_last(sh_stream *s);
/* The OS descriptor of an FD stream (a pipe end), else -1. */
int sh_stream_os_fd(const sh_stream *s);
/* Whether a reader of s may read ahead and give back what it did not
 * take (sh_stream_give_back), as bash's read and GNU head do: s is a
 * regular file of the host (not the in-memory tree, not a pipe). */
bool sh_stream_can_give_back(sh_stream *s);
/* Makes the last n bytes read from s (by this reader, just now) the next
 * ones read again. Nothing when s cannot give back. */
void sh_stream_give_back(sh_stream *s, size_t n);
/* An FD stream whose bytes come only when asked (sh_session_opts.
 * so_stdin_want): sh_read asks for what it reads. */
void sh_stream_on_demand(sh_stream *s, sh_want_fn want, void *arg);
/* Asks an on-demand stream for input (want bytes at most, through delim,
 * -1 none) unless it has some or is asked already: before a wait on its
 * descriptor that is not sh_read's (read -t). True when an answer is on
 * its way and not here yet. */
bool sh_stream_ask(sh_stream *s, size_t want, int delim);
/* The OS descriptor of an FD stream that is handed to a host program,
 * which reads as it likes: an on-demand stream is asked for all of its
 * input first. -1 when s is not an FD stream. */
int sh_stream_hand_over(sh_stream *s);
/* Takes the captured bytes of a BUF stream (box_alloc'd). */
char *sh_stream_buf_take(sh_stream *s, size_t *len);

/* ---- shell state (copied for every subshell / stage / job) ---- */

/* Attributes (declare -x -r -i -l -u -a -A -n). */
#define SH_VAR_EXPORT 1u
#define SH_VAR_READONLY 2u
#define SH_VAR_INTEGER 4u // assignments are evaluated as arithmetic
#define SH_VAR_LOWER 8u   // assignments go to lower case
#define SH_VAR_UPPER 16u  // assignments go to upper case
#define SH_VAR_ARRAY 32u  // an indexed array (v_arr)
#define SH_VAR_ASSOC 64u  // an associative array (v_arr)
#define SH_VAR_NAMEREF 128u
/* bash's own call stack (FUNCNAME, BASH_LINENO): an assignment leaves it
 * as it is, and declare/local refuse it; NOUNSET: unset refuses too. */
#define SH_VAR_NOASSIGN 256u
#define SH_VAR_NOUNSET 512u
/* Total bytes of names and values one state may hold (issue 19 item 5):
 * a set past it fails with "variables too large". */
#define SH_VARS_MAX_BYTES (16u << 20)
typedef struct sh_array sh_array;
typedef struct sh_var {
    char *v_name;
    char *v_value; // NULL: declared (export/local) but unset, or an array
    size_t v_cap;  // bytes v_value's block holds (0: not known)
    sh_array *v_arr; // SH_VAR_ARRAY/ASSOC: the elements (NULL: declared
                     // without a value, as `declare -a a`)
    unsigned v_flags;
} sh_var;

typedef struct sh_func {
    char *f_name;
    const sh_node *f_body; // in an arena the session keeps alive
    const char *f_source;  // the file it was defined in (sh_session_name)
} sh_func;

/* What a frame of bash's call stack is: a function call, a `.` file
 * ("source") or a script file's own top level ("main"). */
typedef enum sh_call_kind {
    SH_CALL_FUNC,
    SH_CALL_SOURCE,
    SH_CALL_MAIN
} sh_call_kind;

/* A frame in progress (sh_calls_push). */
typedef struct sh_call {
    char *sc_name;         // the function as called, "source" or "main" (owned)
    uint32_t sc_line;      // the line it was called from (main: 0)
    const char *sc_source; // the file its code is in (sh_session_name);
                           // NULL: the call's own text
    sh_call_kind sc_kind;
} sh_call;

#define SH_VAR_HINTS 32 // a power of two

typedef struct sh_state {
    sh_var *st_vars;
    size_t st_nvars, st_capvars;
    // Names to st_vars indexes (+1; 0 empty), open addressing, at most
    // half full: every expansion and assignment looks a name up, and a
    // call starts with the agent's whole environment. NULL or stale (an
    // unset moved the entries): rebuilt at the next lookup.
    uint32_t *st_vidx;
    size_t st_vidx_mask;
    bool st_vidx_stale;
    /* Where a name was last found, by its first two bytes: a loop asks
     * the same few names again and again. A hint is only a guess: it
     * holds when the variable at that index has the name. */
    size_t st_vhint[SH_VAR_HINTS];
    size_t st_varbytes; // names and values held (SH_VARS_MAX_BYTES)
    sh_func *st_funcs;
    size_t st_nfuncs, st_capfuncs;
    char **st_pos; // $1.. (box_alloc'd strings)
    int st_npos;
    // The calls in progress, outermost first; FUNCNAME and BASH_LINENO
    // show them once made again from here (stale: a call began or ended
    // since they last were).
    sh_call *st_calls;
    size_t st_ncalls, st_capcalls;
    size_t st_nfunc_calls; // of them, function calls (FUNCNAME shows)
    bool st_calls_stale;
    // The last pipeline's stage statuses, shown as PIPESTATUS once made
    // from here (stale: set since it last was): every command sets them,
    // few scripts read them.
    int st_ps[SH_MAX_PIPELINE];
    int st_ps_n;
    bool st_ps_stale;
    char *st_arg0;
    char *st_cwd; // canonical: what every path is resolved against
    // The logical cwd bash's cd -L and pwd keep: the directory as cd
    // was given it, `..` taken by name (through a symlink, not out of its
    // target). NULL: st_cwd itself (sh_cwd_logical).
    char *st_lcwd;
    bool st_opt_e, st_opt_u, st_opt_x;
    bool st_opt_f;        // set -f: no pathname expansion
    long st_bgpid;        // $!: the last `&` job's id (0: none yet)
    bool st_opt_pipefail; // set -o pipefail
    bool st_opt_C;        // set -C (noclobber): > refuses a file
    bool st_opt_n;        // set -n (noexec): read, run nothing
    bool st_opt_E;        // set -E (errtrace): ERR trap in functions, ( )
    bool st_opt_T;        // set -T (functrace): DEBUG, RETURN in functions
    bool st_opt_c;        // the commands came from -c text ($- shows c)
    unsigned st_shopt;       // SH_SHOPT_* bits (sh_glob.h)
    uint64_t st_shopt_other; // shopt rows stored, not acted on: bit set
                             // when the row differs from its default
    uint64_t st_disabled[4]; // `enable -n`: bit per sh_cmds row
} sh_state;

sh_state *sh_state_new(void);
sh_state *sh_state_dup(const sh_state *st);
void sh_state_free(sh_state *st);
/* NULL when unset. An array's value is its element 0 (key "0"). */
const char *sh_var_get(const sh_state *st, const char *name);
/*
 * Name references (declare -n): sh_var_find, sh_var_add, sh_var_unset
 * and every set by name act on the variable a reference names, through
 * at most SH_NAMEREF_HOPS references, as bash's do; the _raw forms act
 * on the name itself (declare -n, unset -n, a local that shadows it).
 */
#define SH_NAMEREF_HOPS 8
sh_var *sh_var_find(sh_state *st, const char *name);
sh_var *sh_var_find_raw(sh_state *st, const char *name);
/* The name name refers to in the end (name itself when it is no
 * reference); the text lives in a variable: use it before any set. */
const char *sh_var_deref(sh_state *st, const char *name);
/*
 * Sets name (element 0 of an array) to value[0..vlen) as it is, without
 * the -i -l -u attributes (sh_assign applies them). BOX_EDENIED when the
 * variable is readonly, BOX_ETOOBIG past SH_VARS_MAX_BYTES; callers
 * that print their own message use sh_var_fail for these.
 */
box_err sh_var_set(sh_state *st, const char *name, const char *value,
                   size_t vlen) BOX_WARN_UNUSED;
/* sh_var_set of *value (box_alloc'd, vlen bytes and a NUL), taken over
 * when it becomes the value as it is: *value is then NULL. Else *value
 * stays the caller's. An assignment's expansion is its value, copied
 * no more. */
box_err sh_var_set_take(sh_state *st, const char *name, char **value,
                        size_t vlen) BOX_WARN_UNUSED;
/* A variable of the environment a shell starts with, exported: its value,
 * except IFS's, which a shell sets itself (bash 5.2 keeps only the
 * export). */
box_err sh_var_import(sh_state *st, const char *name, const char *value,
                      size_t vlen) BOX_WARN_UNUSED;
/* sh_var_set (take NULL) or sh_var_set_take, for a caller that has just
 * found name's variable: v is what sh_var_find gave (NULL: none). */
box_err sh_var_set_found(sh_state *st, sh_var *v, const char *name,
                         const char *value, size_t vlen,
                         char **take) BOX_WARN_UNUSED;
/* Element set/unset: index for an indexed array (>= 0), key for an
 * associative one. Makes name an indexed array when it is unset or a
 * scalar (the scalar becomes element 0). Errors as sh_var_set, and
 * BOX_ETOOBIG past SH_ARRAY_MAX elements. */
box_err sh_var_set_elem(sh_state *st, const char *name, long long index,
                        const char *key, const char *value,
                        size_t vlen) BOX_WARN_UNUSED;
void sh_var_unset_elem(sh_state *st, sh_var *v, long long index,
                       const char *key);
/* Replaces v's elements with a (taken; NULL: declared, no value). */
box_err sh_var_set_array(sh_state *st, sh_var *v, sh_array *a) BOX_WARN_UNUSED;
/* Finds or creates name (unset, no attributes); NULL on ENOMEM. */
sh_var *sh_var_add(sh_state *st, const char *name);
sh_var *sh_var_add_raw(sh_state *st, const char *name);
/* Whether a variable holds a value (a scalar, or an array with one). */
bool sh_var_isset(const sh_var *v);
box_err sh_var_export(sh_state *st, const char *name) BOX_WARN_UNUSED;
void sh_var_unset(sh_state *st, const char *name);
void sh_var_unset_raw(sh_state *st, const char *name);
const sh_func *sh_func_find(const sh_state *st, const char *name);
box_err sh_func_set(sh_state *st, const char *name, const char *source,
                    const sh_node *body) BOX_WARN_UNUSED;
void sh_func_unset(sh_state *st, const char *name);
/* Replaces the positional parameters with copies of argv[0..n). */
box_err sh_pos_set(sh_state *st, int n, char *const *argv) BOX_WARN_UNUSED;
/* BASH_REMATCH becomes the array argv[0..n) (the [[ =~ ]] groups). */
box_err sh_rematch_set(sh_state *st, int n,
                       char *const *argv) BOX_WARN_UNUSED;
/*
 * A frame begins (name, called from line, its code in source) or ends.
 * FUNCNAME, BASH_LINENO and BASH_SOURCE are bash's arrays of the frames
 * in progress, innermost first (a source NULL reads "environment", as
 * bash -c names its own text); FUNCNAME has elements only while a
 * function runs, and is declared with no value otherwise, as in bash.
 * They are made from the stack only when read (sh_var_find of a name)
 * or listed with every variable (sh_calls_sync first), so a call that
 * reads none costs a push and a pop, not arrays made and unmade. Unset,
 * FUNCNAME stays unset (bash: it loses its special properties).
 */
box_err sh_calls_push(sh_state *st, sh_call_kind kind, const char *name,
                      uint32_t line, const char *source) BOX_WARN_UNUSED;
void sh_calls_pop(sh_state *st);
/* The i-th frame from the innermost (0), or NULL past the outermost. */
const sh_call *sh_calls_at(const sh_state *st, size_t i);
/* Makes FUNCNAME, BASH_LINENO and PIPESTATUS show what they are now:
 * before any code that walks st_vars itself. */
void sh_calls_sync(sh_state *st);
/* PIPESTATUS becomes the array of a pipeline's stage statuses: kept as
 * numbers, and made into the array when it is read (sh_var_find of the
 * name) or listed (sh_calls_sync). BOX_EINVAL for n outside
 * 1..SH_MAX_PIPELINE. */
box_err sh_pipestatus_set(sh_state *st, int n,
                          const int *status) BOX_WARN_UNUSED;
bool sh_name_valid(const char *s, size_t n);

/* One `set -o` row. Bash lists options this shell does not have; they
 * stay at bash's non-interactive value (so_has false, so_fixed). */
typedef struct sh_option {
    const char *so_name;
    char so_letter; // set -<letter>, or 0
    size_t so_off;  // offset of the bool in sh_state
    bool so_has;    // false: a fixed row
    bool so_fixed;  // a fixed row's value
} sh_option;
extern const sh_option sh_options[];
extern const size_t sh_noptions;
/* The row named name, or whose letter is c (name NULL); NULL if none. */
const sh_option *sh_option_find(const char *name, char c);
bool sh_option_get(const sh_state *st, const sh_option *o);
/* False when a fixed row would change. */
bool sh_option_set(sh_state *st, const sh_option *o, bool on);

/* ---- session ---- */

typedef struct sh_keep sh_keep; // arenas kept alive (eval, functions)
typedef struct sh_name sh_name; // file names kept (sh_session_name)
typedef struct sh_job sh_job;
#define SH_JOBS_REMEMBERED                                                     \
    32 // statuses `wait ID` keeps (sh_ctx)   // one `&` job (sh_exec.c)

struct sh_session {
    sh_session_opts ss_o;
    sh_kernel *ss_kernel;     // every file effect
    sh_kernel *ss_own_kernel; // built by the session (no so_kernel)
    char *ss_cwd0;
    char **ss_env0;
    sh_state *ss_state;      // the top-level state, kept across runs
    pthread_mutex_t ss_lock; // decisions, output, keep list
    struct sh_again *ss_again; // permits served again (ss_lock); or NULL
    sh_keep *ss_keep;
    sh_name *ss_names; // (ss_lock)
    unsigned ss_nnames;
    atomic_uint ss_funcdefs; // function definitions so far (eval arenas)
    atomic_bool ss_abort;    // timeout, fault, output spent: all stop
    atomic_int ss_abort_status;
    atomic_uint ss_live_stages; // pipeline stages running now (all threads)
    atomic_uint ss_jobs;     // `&` jobs started so far (eval arenas)
    atomic_bool ss_jobs_end; // the call's foreground is over: jobs stop
    /* A signal `kill` sent to $$ (0: none): the main shell takes it at
     * its next check, as bash handles one between commands. */
    atomic_int ss_pending_sig;
    sh_job *ss_orphans;      // jobs whose context ended first (ss_lock)
    uint64_t ss_deadline_ns;
    long ss_pid;            // for $$
    uint64_t ss_start_ns;   // the call's start: $SECONDS counts from it
    atomic_uint ss_random;  // $RANDOM's generator, seeded per call
    atomic_ulong ss_cmdno; // complete commands read so far (aliases)
};

void sh_session_abort(sh_session *ss, int status);
/* The status a job ended with the call reports (128 + SIGTERM, as if the
 * shell had killed it on exit; nothing reads it). */
#define SH_JOB_ENDED 143
/*
 * Ends the call's background jobs (spec §2: nothing outlives the
 * command): every `&` job still running, wherever it started, stops at
 * its next check (sh_check_stop) and is joined. Called once the
 * foreground is over and the top-level context released.
 */
void sh_session_end_jobs(sh_session *ss);
/* Keeps arena a alive until the session ends (takes it). */
box_err sh_session_keep(sh_session *ss, box_arena *a) BOX_WARN_UNUSED;
/* A copy of name that lives as long as the session, the same one for the
 * same text (a loop sourcing one file keeps one); NULL when out of memory
 * or past SH_NAMES_MAX names. Thread-safe. */
#define SH_NAMES_MAX 256
const char *sh_session_name(sh_session *ss, const char *name);

/* ---- an execution context: one thread of execution ---- */

typedef enum sh_flow {
    SH_FLOW_NONE,
    SH_FLOW_BREAK,
    SH_FLOW_CONTINUE,
    SH_FLOW_RETURN,
    SH_FLOW_EXIT, // exit, fatal error, broken pipe: unwinds to the
                  // subshell / stage / top level
} sh_flow;

typedef struct sh_local sh_local;
typedef struct sh_bistate sh_bistate; // builtins' own state (sh_bistate.h)
typedef struct sh_psub sh_psub;       // a process substitution (sh_procsub.c)

#define SH_SPARE_BUFS 8
#define SH_SPARE_ROOM 4096u // a bigger buffer is freed, not kept

typedef struct sh_ctx {
    sh_session *cx_ss;
    sh_state *cx_st;
    sh_stream *cx_fd[SH_MAX_FD];
    unsigned cx_depth; // functions, eval, subshells, $( )
    // $( ) and eval around this command: set -x repeats PS4's first
    // character once more for each, as bash does.
    unsigned cx_xlevel;
    unsigned cx_loops; // enclosing loops (break/continue)
    unsigned cx_funcs; // enclosing function calls (return, local)
    unsigned cx_cond;  // inside a condition: set -e does not fire
    sh_flow cx_flow;
    unsigned cx_flow_n; // break/continue levels
    int cx_status;      // $?
    int cx_sub_status;  // status of the last $( ) run by an expansion
    bool cx_sub_ran;
    sh_local *cx_locals; // saved values to restore at function return
    sh_job *cx_jobs;     // `&` jobs started here (what `wait` waits for)
    /* In an `&` job: the signal `kill` sent it (0: none); the job and
     * the stages, $( ) and subshells it forks stop at their next check
     * (sh_check_stop) with 128 + it. NULL outside jobs. */
    atomic_int *cx_kill;
    unsigned cx_njobs;
    // Jobs `wait ID` has waited for: bash answers a second `wait ID` with
    // the same status; a bare `wait` forgets them. Oldest overwritten.
    struct {
        long d_id;
        int d_status;
    } cx_done[SH_JOBS_REMEMBERED];
    unsigned cx_ndone;
    bool cx_bg; // runs inside an `&` job (forks inherit it)
    /* While a declaration builtin runs: its command's words, whose
     * NAME=( … ) ones (w_assign) it assigns in order. */
    const sh_word *cx_compound;
    bool cx_owns_state;
    sh_bistate *cx_bi;   // traps, aliases, pushd, umask, getopts (owned)
    unsigned cx_sourced; // enclosing `.` files (`return` leaves one)
    bool cx_discard; // the SH_FLOW_EXIT is an expansion error's (sh_discard)
    uint32_t cx_line;    // $LINENO: the line of the command running
    /* The script or `.` file whose text runs (sh_session_name), NULL for
     * the call's own text: the shell's errors name it and the line, as
     * bash's do ("FILE: line N: …"). */
    const char *cx_source;
    /* The shell runs a script file (`bash FILE`, `./script.sh`), not -c
     * text: bash then ends a ${v?w} with 1, not 127, and discards the
     * command an index's arithmetic failed in instead of ending. */
    bool cx_script;
    /* Set by `exec` without a command: the redirections of the command
     * running stay in force after it (exec_simple reads and clears it). */
    bool cx_keep_redirs;
    /* Process substitutions started here whose command is not over yet
     * (newest first; sh_procsub_end). */
    sh_psub *cx_psubs;
    /* Empty expansion buffers kept for the next word (sh_expand.c), with
     * their room: a loop expands the same short words again and again,
     * and a fresh pair per word cost a tenth of it. Freed on release. */
    box_buf cx_spare[SH_SPARE_BUFS];
    unsigned cx_nspare;
} sh_ctx;

/* A context over st (borrowed) writing to the session callbacks. */
void sh_ctx_init(sh_ctx *cx, sh_session *ss, sh_state *st);
/* A subshell copy: own state copy, fd refs, same depth. NULL on ENOMEM. */
sh_ctx *sh_ctx_fork(const sh_ctx *cx);
/* Releases fds (and state when owned). Jobs it started and nobody waited
 * for go on running, owned by the session (sh_ctx_orphan_jobs) until the
 * call ends them: a subshell or $( ) does not wait for its `&` jobs. */
void sh_ctx_release(sh_ctx *cx);
void sh_ctx_free(sh_ctx *cx); // release + box_free (forked contexts)
/* Signals as trap and kill name them (sh_bi_trap.c): the slot (signal
 * number; 0 EXIT, DEBUG/ERR/RETURN above 64) a spec names or -1, the
 * name of slot i (in buf when computed), `kill -l` / `trap -l`. */
int sh_trap_slot_of(const char *spec);
const char *sh_trap_slot_name(int i, char *buf, size_t len);
int sh_trap_list_signals(sh_ctx *cx);
/* A signal sent to the call's own shell ($$): taken by the main shell
 * at its next check (sh_trap_signal); sig 0 only asks whether it is
 * there. */
void sh_session_signal(sh_session *ss, int sig);
/* In the main shell (not a subshell, $( ) or job): the pending signal,
 * if any: its trap runs, an ignored one is dropped, else the shell ends
 * as one the signal killed (128 + it; the EXIT trap still runs). True
 * when the shell is to stop (sh_bi_trap.c). */
bool sh_trap_signal(sh_ctx *cx);
/* `kill`: sends sig to the running job of cx whose $! was id (sig 0:
 * only whether it runs): 0, or -1 when there is none. */
int sh_ctx_kill_job(sh_ctx *cx, long id, int sig);
/* The k-th job of cx still running, oldest first (k < count): its $!,
 * job number (%N) and command; false past the last. */
bool sh_ctx_job_at(const sh_ctx *cx, unsigned k, long *id, unsigned *num,
                   const sh_node **cmd);
/* `wait`: joins the jobs this context started. */
void sh_ctx_wait_jobs(sh_ctx *cx);
/* Waits for the job whose $! was id and forgets it: 0 with its status,
 * or -1 when no job of cx has that id (never started here, or waited
 * for already). */
int sh_ctx_wait_job(sh_ctx *cx, long id, int *status);
/* The $! of the job a spec names: %N (its number in the job table), %%
 * or %+ (the current job: the newest), %- (the one before); -1 if none. */
long sh_ctx_job_spec(const sh_ctx *cx, const char *spec);
/* wait -n: waits until one of cx's jobs that was running when it began
 * (with n > 0, one whose $! is in ids) ends, and forgets it: 0 with its
 * $! and status, -1 when none was running, 1 when the call stopped first
 * (sh_check_stop; the status is cx's). */
int sh_ctx_wait_next(sh_ctx *cx, const long *ids, size_t n, long *id,
                     int *status);
/* Hands the jobs this context started to its session. */
void sh_ctx_orphan_jobs(sh_ctx *cx);

/* Output helpers: write to shell fd n (results SH_IO_*). A broken pipe,
 * spent output or a budget that ran out while a pipe was full also sets
 * the flow so the context unwinds. */
int sh_write(sh_ctx *cx, int fd, const char *p, size_t n);
int sh_puts(sh_ctx *cx, int fd, const char *s);
/* As sh_write, to a stream that need not be a shell fd (tee's FILEs; NULL
 * is a closed fd). With pipe_ends false a reader that is gone is only
 * SH_IO_PIPE, the writer goes on (tee -p). SH_IO_ERR leaves errno set. */
int sh_stream_write(sh_ctx *cx, sh_stream *s, const char *p, size_t n,
                    bool pipe_ends);
/* "strands-shell: " + printf text + "\n" on fd 2; while a script or
 * `.` file runs (cx_source), "strands-shell: FILE: line N: " + text, as
 * bash words a script's errors. */
void sh_errf(sh_ctx *cx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* "strands-shell: " + text, wherever it runs: the box's own messages,
 * which bash has none of and the spec words exactly (a denial, a failed
 * decision, a limit), and a message that names its place itself. */
void sh_box_errf(sh_ctx *cx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Prints the warnings the parse gave so far ("strands-shell: warning: …",
 * or "strands-shell: PATH: line N: warning: …" for a script file) and
 * forgets them. */
void sh_parse_warnings(sh_ctx *cx, sh_parser *p, const char *path);
/* Reads one byte from shell fd n: 1, 0 at end, -1 on error. */
int sh_read_byte(sh_ctx *cx, int fd, char *c);
/* Reads up to n bytes from shell fd fd: bytes read, 0 at end, -1 on
 * error (a bad fd, a write-only stream; errno says which) or when the
 * call is over while a pipe had nothing (cx then unwinds, its flow set). */
ssize_t sh_read(sh_ctx *cx, int fd, void *buf, size_t n);
/* The most one ask names: a record (a line of `read` or `mapfile`) longer
 * than this comes in several answers, as the alias sends no more in one
 * input frame (BOX_INPUT_CHUNK_MAX). */
#define SH_ASK_MAX (64u * 1024u)
/* sh_read, but where fd's input comes on demand, what is asked for is
 * want bytes at most (>= n) through the byte delim (-1: none): how `read`
 * takes a line byte by byte without its source giving more than the line. */
ssize_t sh_read_ask(sh_ctx *cx, int fd, void *buf, size_t n, size_t want,
                    int delim);
/* One byte as sh_read_ask asks: 1, 0 at end, -1 on error. */
int sh_read_byte_ask(sh_ctx *cx, int fd, char *c, size_t want, int delim);

/* ---- files (sh_fs.c): every effect through the session's kernel ---- */

/* The kernel of the context's session (sh_kernel.h: open, stat, list,
 * mkdir, unlink, …; paths relative to cx->cx_st->st_cwd). */
sh_kernel *sh_kern(const sh_ctx *cx);

/*
 * Reports a failed kernel operation and clears r. Returns the status: 1,
 * or 125 when the decision could not be made (the message is then
 * "strands-shell: effect interception failed: <err>" and the whole call
 * stops). cmd names the command ("strands-shell: cat: <path>: <err>", a
 * policy denial naming its own path: "strands-shell: cat: <denial>");
 * cmd NULL is a redirection ("strands-shell: <target>: <err>").
 */
int sh_fs_fail(sh_ctx *cx, const char *cmd, const char *target,
               sh_kernel_result *r);

/*
 * Opens path as a stream through the kernel with open(2)'s flags (fs:read
 * or fs:write as they say; created 0666 less the umask): a redirection's
 * target, tee's FILEs. /dev/fd/N, /dev/stdin, /dev/stdout and /dev/stderr
 * are the shell's own fds, as they are, never reopened. NULL after the
 * message (sh_fs_fail; cmd NULL is a redirection, shown the name messages
 * use, NULL for path), *status then 1 or 125. The caller owns the stream.
 */
sh_stream *sh_stream_open(sh_ctx *cx, const char *cmd, const char *path,
                          const char *shown, int flags, int *status);

/*
 * Buffered input over a file operand or a shell fd: what cat, grep, wc,
 * head and tail read. Operand NULL or "-" is the shell's stdin (fd 0);
 * anything else opens through the kernel (fs:read read_content).
 */
typedef struct sh_input sh_input;
#define SH_LINE_MAX (1u << 20) // a longer line is returned in pieces

/* NULL on failure after the message (sh_fs_fail); *status is then 1 or
 * 125. A directory operand fails with "Is a directory". */
sh_input *sh_input_open(sh_ctx *cx, const char *cmd, const char *operand,
                        int *status);
/* The same, naming the file as shown in a failure's message. */
sh_input *sh_input_open_as(sh_ctx *cx, const char *cmd, const char *operand,
                           const char *shown, int *status);
/* The next line including its '\n' (the last may lack one): 1 with
 * line and len set (valid until the next call), 0 at end, -1 on a read
 * error. */
int sh_input_line(sh_input *in, const char **line, size_t *len);
/* Up to n bytes: count, 0 at end, -1 on error. */
ssize_t sh_input_read(sh_input *in, void *buf, size_t n);
/* Gives back the last n bytes read (sh_input_read) to a shell fd that
 * reads a regular host file, as GNU head seeks back: what reads the fd
 * next starts after what was used. Elsewhere nothing. */
void sh_input_give_back(sh_input *in, size_t n);
/* The next record ending in delim, whole and without it, into b (the
 * last may lack delim): 1; 0 at the end; -1 on a read error (reported
 * unless quiet) or when the call is over; -2 when the record outgrew b's
 * maximum or memory (nothing printed). */
int sh_input_record(sh_input *in, char delim, box_buf *b);
/* From now on a read error prints nothing: the command words its own
 * message (sort's "read failed: F: E", uniq's "error reading 'F'") from
 * sh_input_errno, once sh_check_stop says the call goes on. */
void sh_input_quiet(sh_input *in);
int sh_input_errno(const sh_input *in); // 0 until a read failed
/* True when in reads a regular file (an operand the kernel opened, or a
 * shell fd redirected from one) rather than a pipe, a here-document, a
 * directory or /dev/null: what GNU's fstat would say (wc sizes its
 * columns by it). */
bool sh_input_is_file(const sh_input *in);
void sh_input_close(sh_input *in);      // NULL-safe


/* Ends the context with status (exit, fatal errors). */
void sh_fatal(sh_ctx *cx, int status);
/*
 * An expansion error (an arithmetic error, a bad indirection, a
 * substring length below 0, failglob's no match): bash's DISCARD. It
 * unwinds as sh_fatal does, so the rest of the complete command never
 * runs and a subshell, stage or $( ) ends; at a shell's top level the
 * next complete command then runs, with $? at status (sh_discarded).
 */
void sh_discard(sh_ctx *cx, int status);
/* At a shell's top level, after a complete command: true, with the flow
 * cleared and $? kept, when an expansion error discarded it (and the call
 * was not aborted meanwhile). */
bool sh_discarded(sh_ctx *cx);
/* True when the context must stop now (flow set, abort, timeout). */
bool sh_check_stop(sh_ctx *cx);
/* Ends the call for its budget (box-spec §3.1): "execution timeout
 * exceeded" once per call, the call's status 1, and cx unwinds. */
void sh_timeout(sh_ctx *cx);
/* Ends the call at recursion depth SH_EXEC_MAX_DEPTH (box-spec §3.1):
 * the whole call, not only the context, since a pipeline recursion
 * (`f(){ f|f; }; f`) has 2^64 stages at that depth and each would say
 * so and go on. "maximum recursion depth exceeded", status 1. */
void sh_too_deep(sh_ctx *cx);
/* Both: the message once per call, the call's status 1, cx unwinds. */
void sh_stop_call(sh_ctx *cx, const char *why);
/* What is left of the call's budget, in ms (0 once it is spent). */
long sh_budget_left_ms(sh_session *ss);

/* ---- expansion (sh_expand.c, sh_arith.c) ---- */

typedef struct sh_host_bind sh_host_bind;
typedef struct sh_argv {
    /* NULL-terminated; each string box_alloc'd or, when short, in
     * av_pool (one block that never moves, so fields point into it): a
     * command's words cost one allocation, not one each. A field is
     * freed only through sh_argv_drop or sh_argv_free. */
    char **av_v;
    bool *av_exp; // per field: came from an expansion (in av_v's block)
    int av_n, av_cap;
    char *av_pool;
    size_t av_pool_used;
    sh_host_bind *av_bind; // set by admission; freed with the argv
} sh_argv;

void sh_argv_init(sh_argv *av);
void sh_argv_free(sh_argv *av);
/* Field i, the caller's now (box_alloc'd; NULL when out of memory); its
 * slot is left NULL. */
char *sh_argv_take(sh_argv *av, int i);
/* Frees s, a field of av taken out of av_v. */
void sh_argv_drop(const sh_argv *av, char *s);
box_err sh_argv_push(sh_argv *av, const char *s, size_t n,
                     bool exp) BOX_WARN_UNUSED;

/*
 * Expands a list of words (linked by w_next) into fields: parameters,
 * $( ), arithmetic, ~, IFS splitting, pathname expansion (sh_glob.h),
 * quote removal. Returns 0, or an exit status (> 0) after printing the
 * error; a fatal error (nounset, ${x?}) also sets the flow to EXIT.
 */
int sh_expand_words(sh_ctx *cx, const sh_word *w, sh_argv *out);
/*
 * bash's brace expansion of w (sh_brace.c), before its other expansions:
 * 0 with *out the words made (linked by w_next, in *arena, which the
 * caller frees with box_arena_free), or *out and *arena NULL when w has
 * no `{` to look at; 1 after a message (over 100,000 words).
 */
int sh_brace_expand(sh_ctx *cx, const sh_word *w, box_arena **arena,
                    sh_word **out);
/* One word to one string without splitting (assignments, redirection
 * targets, case words, here-document bodies). *out box_alloc'd. */
int sh_expand_str(sh_ctx *cx, const sh_word *w, char **out, size_t *outlen);
/* A pattern (case, ${x%p}): quoted characters escaped for fnmatch. */
int sh_expand_pattern(sh_ctx *cx, const sh_word *w, char **out);
/* The value of a dynamic variable ($RANDOM, $LINENO, $SECONDS) in tmp,
 * or NULL when name is not one (sh_special.c). */
const char *sh_special_value(sh_ctx *cx, const char *name, size_t len,
                             char *tmp, size_t tmplen);
/* The variables bash sets as it starts (BASH_VERSION, BASH_VERSINFO,
 * UID, EUID, OSTYPE, MACHTYPE, HOSTTYPE, HOSTNAME, SHLVL, OPTIND, PS4
 * …), after the environment's (sh_special.c). */
box_err sh_special_init(sh_state *st);
/* Evaluates $(( text )) into *val; returns 0 or a status after an error. */
int sh_arith(sh_ctx *cx, const char *text, size_t len, long long *val);
/* The same, its error message led by `who: ` (as bash's `[[: `). */
int sh_arith_in(sh_ctx *cx, const char *who, const char *text, size_t len,
                long long *val);
/* An SH_WP_ARITH part: its $( ) and backquotes expanded first, then
 * evaluated (messages led by `who: ` unless NULL). 0 or a status. */
int sh_expand_arith(sh_ctx *cx, const char *who, const sh_wpart *p,
                    long long *v);
/* Text t[0..n) expanded as the inside of a double-quoted word ($, `,
 * and \ before $ ` " \ are special; a bare `"` is literal, or with
 * SH_DQ_DROP_QUOTES removed as arithmetic's quote removal does; quotes
 * inside a $( ), ${ } or `…` are that command's or word's own): a prompt
 * string, arithmetic text. *out box_alloc'd. 0 or a status after a
 * message naming who. */
#define SH_DQ_DROP_QUOTES 1u
int sh_expand_dq_text(sh_ctx *cx, const char *who, unsigned flags,
                      const char *t, size_t n, char **out, size_t *outlen);
/* One shell word's text t[0..n) expanded as an assignment's value is
 * (quotes removed, no splitting or globbing): compgen -W's words. */
int sh_expand_word_text(sh_ctx *cx, const char *who, const char *t, size_t n,
                        char **out, size_t *outlen);
/* ${v@P}: v's prompt escapes decoded (\u \h \w \W \$ \d \t \n \nnn
 * …), then expanded as a prompt is. *out box_alloc'd; 0 or a status. */
int sh_prompt_expand(sh_ctx *cx, const char *v, char **out);

/* ---- assignment (sh_assign.c) ---- */

/* Prints bash's message for a failed set of name (readonly, a cap, out
 * of memory), led by `who: ` when who is not NULL; returns 1. */
int sh_var_fail(sh_ctx *cx, const char *who, const char *name, box_err e);
/* The subscript text sub of variable name as an index (arithmetic;
 * negative counts from the end) or, for an associative array, a key
 * (*key = sub). The arithmetic may assign: callers find their sh_var
 * again afterwards. 0, or a status after "<shown>: bad array subscript". */
int sh_subscript(sh_ctx *cx, const char *name, const char *shown,
                 const char *sub, long long *index, const char **key);
/* sh_subscript, saying in *arith whether the status is the index's
 * arithmetic failing (after its own message) rather than a bad
 * subscript. */
int sh_subscript_of(sh_ctx *cx, const char *name, const char *shown,
                    const char *sub, long long *index, const char **key,
                    bool *arith);
/* name[sub] (sub NULL: name) = or += val, with name's -i -l -u applied
 * and its readonly refused; 0 or 1 after the message. */
int sh_assign_str(sh_ctx *cx, const char *who, const char *name,
                  const char *sub, const char *val, size_t vlen, bool append);
/* Whether t is NAME or NAME[sub] (printf -v, read, mapfile targets). */
bool sh_target_valid(const char *t);
/* t (sh_target_valid) = val; 0 or 1 after the message. */
int sh_assign_target(sh_ctx *cx, const char *who, const char *t,
                     const char *val, size_t vlen);
/* -v NAME / -v NAME[sub]: whether it holds a value (positional
 * parameters aside). */
bool sh_elem_isset(sh_ctx *cx, const char *t);
/* NAME=( … ) and NAME+=( … ). */
int sh_assign_compound(sh_ctx *cx, const sh_assign *a);
/* Any assignment node: expands its words and assigns. */
int sh_assign_node(sh_ctx *cx, const sh_assign *a);

/* ---- execution (sh_exec.c) ---- */

/* Runs a node; returns its status (also left in cx_status). */
int sh_exec_node(sh_ctx *cx, const sh_node *n);
/* After a loop body: takes a break/continue meant for this loop level;
 * true when the loop must end (break, or a flow going further out). */
bool sh_loop_after_body(sh_ctx *cx);
/* bash's compounds, each in a file of its own (cx_loops counted by the
 * loop): (( )) and for (( ; ; )) in sh_arith_cmd.c, time in sh_time.c. */
int sh_exec_arith_cmd(sh_ctx *cx, const sh_node *n);
int sh_exec_for_arith(sh_ctx *cx, const sh_node *n);
int sh_exec_time(sh_ctx *cx, const sh_node *n);
/* Runs an already expanded command (after admission unless admitted). */
int sh_exec_argv(sh_ctx *cx, int argc, char **argv, const bool *exp,
                 bool bypass_funcs);

/* A job of the call no `wait` sees (a process substitution's list): runs
 * n in jcx (taken) on its own thread. NULL after a message (too deep, no
 * thread). Joined with sh_job_join, or handed to the session (joined when
 * the call ends) with sh_job_orphan. */
sh_job *sh_job_start(sh_ctx *cx, sh_ctx *jcx, const sh_node *n);
void sh_job_join(sh_ctx *cx, sh_job *j); // `wait $!` in cx then finds it
void sh_job_orphan(sh_session *ss, sh_job *j);

/* ---- process substitution and {var}> (sh_procsub.c, sh_fdvar.c) ---- */

/* <(body) (out false) or >(body): starts body on a pipe whose other end
 * is a new shell fd N; *path (box_alloc'd) is "/dev/fd/N". 0, or a
 * status after the message. */
int sh_procsub_open(sh_ctx *cx, const sh_node *body, bool out, char **path);
/* The command that made the substitutions newer than mark is over: their
 * fds close and their lists are joined (or left to the session while
 * their end is still open elsewhere). mark NULL: all of them. */
void sh_procsub_end(sh_ctx *cx, sh_psub *mark);
/* The shell fd a path names: /dev/fd/N, /dev/stdin, /dev/stdout,
 * /dev/stderr when that fd is open; else -1 (the kernel opens it). */
int sh_devfd(const sh_ctx *cx, const char *path);
/* 0, or 126 after a message when an argument for a host program names a
 * shell fd (/dev/fd/N, N >= 3), which the program cannot open. */
int sh_procsub_host_check(sh_ctx *cx, int argc, char *const *argv);
/* {var} redirection r: *fd the fd to install its stream at (the lowest
 * free from 10), or -1 when r was {var}>&- and closed it. 0 or a status
 * after the message. */
int sh_fdvar_redir(sh_ctx *cx, const sh_redir *r, int *fd);
/* var = fd; 0, or 1 after bash's messages (a readonly var). */
int sh_fdvar_assign(sh_ctx *cx, const char *name, int fd);

/* ---- host programs (sh_host.c) ---- */

/* What an admission decided a word is: a host program (shell:spawn) bound
 * to the identity found (§3.8), or not (shell:exec). */
typedef struct sh_host_bind {
    bool hb_host;            // admitted as shell:spawn
    sh_spawn_found hb_found; // sf_path NULL: unbound (nothing may run)
    int hb_unbound_err;      // why unbound: ENOENT, EACCES
    char *hb_reported;       // program_path as reported ("~/…")
    box_ticket hb_ticket;    // the permit's, until sh_admit_finish
} sh_host_bind;

void sh_host_bind_clear(sh_host_bind *b);
/* Pre-admission probe (§3.4): a `/`-spelled word that the fs:read exec
 * probe finds in memory linking to /bin/lash becomes the multicall name
 * (`/bin/cat` → `cat`), written over *slot in place. Any other
 * executable file the probe finds sets *exec_file (for sh_shebang). 0,
 * or a status (125 after a decision fault). */
int sh_host_multicall(sh_ctx *cx, char **slot, bool *exec_file);
/* §3.4 for word: fills b (hb_host false when the word is internal, or no
 * host programs exist in this session, or a bare name not on PATH).
 * Returns 0 or ENOMEM. */
int sh_host_locate(sh_ctx *cx, const char *word, bool bypass_funcs,
                   sh_host_bind *b);
/* Runs the bound program after its permit (§3.9): 0..255, 126 when no
 * tool may run it, 127 when nothing was bound. */
int sh_host_run(sh_ctx *cx, int argc, char **argv, const sh_host_bind *b);
/* Parses and runs text in cx (eval). */
int sh_exec_text(sh_ctx *cx, const char *text, size_t len, const char *who);
/* sh_parse_next with the shell's extglob as it is now: shopt -s extglob
 * applies from the next complete command on, as in bash. Every runner of
 * text (the call, a script or `.` file, eval) reads its commands so. */
sh_parse_status sh_next_command(const sh_ctx *cx, sh_parser *p, sh_node **n);
/* Runs list under a fresh subshell context with fd1 captured. */
int sh_exec_capture(sh_ctx *cx, const sh_node *list, char **out, size_t *len);
/* Admits argv through sh_admit and reports a refusal; 0 when permitted,
 * else 126 / 125 (125 also aborts the call). b (cleared by the caller
 * with sh_host_bind_clear) receives what a host program was bound to. */
int sh_exec_admit(sh_ctx *cx, int argc, char *const *argv, const bool *exp,
                  bool bypass_funcs, sh_host_bind *b);

/* ---- commands (sh_cmd.c and sh_bi_*.c) ---- */

/* A script file's text read through the kernel (fs:read, policy
 * decides) into b: 0, or the status after the message, with *oserr the
 * OS error when that was why (sh_bi_source.c). */
int sh_source_read(sh_ctx *cx, const char *cmd, const char *path, box_buf *b,
                   int *oserr);
/* Runs text one complete command at a time in cx, or with fd >= 0 the
 * lines read from shell fd fd (a script on stdin); a parse error says
 * "<path>: line N: <error>" (path NULL: "line N: …"), status 1
 * (sh_bi_source.c). With named, the text is the file path: while it runs,
 * the shell's errors name it and their line (cx_source). */
int sh_source_text(sh_ctx *cx, const char *path, bool named, const char *text,
                   size_t len, int fd);
/* Runs text as bash runs the script file label (`bash FILE`, a call's
 * Call.script): cx_script set, in the frame "main", its errors placed
 * "label: line N:", its EXIT trap at the end. Returns the status. */
int sh_run_script(sh_ctx *cx, const char *label, const char *text, size_t len);
/* Shebang rewrite before admission (§3.4, sh_shebang.c): when argv[0]
 * (which sh_host_multicall found to be an executable file) starts with
 * `#!` naming sh, bash, zsh, dash or lash (also through env), *out
 * (empty on entry, the caller's)
 * receives `<interpreter> [<arg>] <script> ARGS…`; else it stays empty.
 * 0, or a status after a message (125 after a decision fault). */
int sh_shebang(sh_ctx *cx, int argc, char *const *argv, const bool *exp,
               sh_argv *out);
/* A `/`-spelled word nothing could run: bash's "No such file or
 * directory" 127, "Permission denied" / "Is a directory" 126; an
 * executable file with no host program to run it "command not found"
 * 127 (spec §3.10). */
int sh_shebang_missing(sh_ctx *cx, const char *word);

/* Changes the cwd to dir through the kernel (fs:read change_dir), sets
 * PWD and OLDPWD: 0, or the status after "<cmd>: …" (sh_bi_dir.c). Not
 * physical (bash's -L), dir is taken from the logical cwd by name first,
 * and the logical cwd kept. */
int sh_chdir(sh_ctx *cx, const char *cmd, const char *dir, bool physical);
/* The logical cwd (st_lcwd, else st_cwd). */
const char *sh_cwd_logical(const sh_state *st);
/* Whether the shopt option name is on (false for a name shopt lacks). */
bool sh_shopt_on(const sh_state *st, const char *name);

/* v in decimal into buf (room for SH_DEC_MAX bytes), NUL-ended; its
 * length. For the numbers made on every command ($((…)), an arithmetic
 * assignment, $?), where snprintf costs more than the rest of the work. */
#define SH_DEC_MAX 21
static inline size_t
sh_fmt_dec(char *buf, long long v)
{
    char d[20];
    size_t n = 0, k = 0;
    unsigned long long u =
        v < 0 ? 0 - (unsigned long long)v : (unsigned long long)v;
    do {
        d[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u != 0);
    if (v < 0)
        buf[k++] = '-';
    while (n > 0)
        buf[k++] = d[--n];
    buf[k] = '\0';
    return k;
}

/* s as a plain decimal number ("0", or an optional '-' and up to 18
 * digits without a leading 0) in *v: true; false for any other text,
 * which the caller parses the full way. strtoll's base and locale work
 * was the largest part of `[ $i -lt N ]` and `$((i+1))` on a loop's
 * counters. */
static inline bool
sh_parse_dec(const char *s, long long *v)
{
    bool neg = s[0] == '-';
    const char *p = s + neg;
    long long n = 0;
    size_t k = 0;
    if (p[0] == '0')
        return p[1] == '\0' && !neg ? (*v = 0, true) : false;
    for (; p[k] >= '0' && p[k] <= '9'; k++) {
        if (k == 18)
            return false;
        n = n * 10 + (p[k] - '0');
    }
    if (k == 0 || p[k] != '\0')
        return false;
    *v = neg ? -n : n;
    return true;
}

typedef struct sh_opts {
    uint64_t o_set[2];      // one bit per ASCII option letter
    const char *o_arg[128]; // arguments of options that take one
    int o_ind;              // first operand
    bool o_help;            // `--help`: print the usage instead
} sh_opts;

static inline bool
sh_opt(const sh_opts *o, char c)
{
    unsigned u = (unsigned char)c & 127u;
    return (o->o_set[u >> 6] >> (u & 63u)) & 1u;
}

typedef int (*sh_cmd_fn)(sh_ctx *cx, int argc, char **argv, const sh_opts *o);

#define SH_CMD_RAWARGS 1u // the handler reads argv itself (no option parse)
#define SH_CMD_LENIENT 2u // an unknown flag is an operand (echo)
/* One of the box's own commands for what bash runs as a program (cat,
 * sort): `builtin` and `enable` do not take it for a builtin. */
#define SH_CMD_PROGRAM 4u

typedef struct sh_cmd {
    const char *c_name;
    sh_cmd_fn c_fn;
    const char *c_flags; // option letters; "x:" takes an argument
    unsigned c_mode;
    const char *c_usage; // commands: `NAME --help` prints this, status 0
} sh_cmd;

const sh_cmd *sh_cmd_lookup(const char *name);
/* As sh_cmd_lookup, but NULL for a row `enable -n` turned off in st. */
const sh_cmd *sh_cmd_find(const sh_state *st, const char *name);
/* The i-th row in table order (NULL past the end), and a row's index. */
const sh_cmd *sh_cmd_at(size_t i);
size_t sh_cmd_index(const sh_cmd *c);
/* bash's reserved words, in its order (sh_bi_type.c). */
extern const char *const sh_keywords[];
extern const size_t sh_nkeywords;
/* The i-th registered name in table order, NULL past the end. */
const char *sh_cmd_name_at(size_t i);
/* Parses options per spec; returns 0 or 2 after the invalid-option
 * message. A command's `--help` (first argument) sets o_help. */
int sh_opts_parse(sh_ctx *cx, const sh_cmd *c, int argc, char **argv,
                  sh_opts *o);
/* "strands-shell: <cmd>: <text>" and returns status. */
int sh_cmd_cksum(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_err(sh_ctx *cx, const char *cmd, int status, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Handlers (one file per family). */
int sh_bi_colon(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_kill(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_jobs(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_times(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_false(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_echo(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_printf(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_pwd(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_cd(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_declare(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_mapfile(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_unset(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_set(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_shift(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_read(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_enable(sh_ctx *, int, char **, const sh_opts *);
/* Appends function name's text as bash prints it back: "NAME () \n{ \n"
 * … "}" without a final newline (sh_print.c). */
box_err sh_print_func(box_buf *out, const char *name, const sh_node *body);
/* Appends command n as bash prints it back (`jobs`). */
box_err sh_print_node(box_buf *out, const sh_node *n);
/* declare -p's quoting (sh_bi_declare.c): whether a value needs $'…',
 * that form, and an array's "([0]="a" …)". */
bool sh_needs_ansic(const char *s);
box_err sh_put_ansic(box_buf *b, const char *s);
/* set -x's prefix: PS4 expanded (default "+ "), its first character
 * repeated for each $( ) and eval around (cx_xlevel) (sh_exec.c). */
box_err sh_put_ps4(sh_ctx *cx, box_buf *b);
/* A value as bash's print_var_value and xtrace quote it: $'…' for
 * control bytes, '…' for shell metacharacters, else as it is (empty for
 * an empty one). */
box_err sh_put_word(box_buf *b, const char *v);
/* A word as set -x prints it: '' when empty, in single quotes (control
 * characters as they are) when it holds a metacharacter or one. */
box_err sh_put_xtrace_word(box_buf *b, const char *v);
box_err sh_put_array(box_buf *b, const sh_array *a);
/* `set` with no arguments: the variables, then the functions
 * (sh_bi_setlist.c). */
int sh_set_list(sh_ctx *cx);
int sh_bi_test(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_exit(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_return(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_break(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_wait(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_let(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_eval(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_command(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_compgen(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_type(sh_ctx *, int, char **, const sh_opts *);
/* command -v NAME (verbose: -V): what NAME runs as, on stdout, as type
 * finds it (sh_bi_type.c); false when nothing runs by that name. */
bool sh_type_command(sh_ctx *cx, const char *name, bool verbose);
int sh_bi_shopt(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_source(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_trap(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_exec(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_getopts(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_umask(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_hash(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_builtin(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_caller(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_pushd(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_popd(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_dirs(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_alias(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_unalias(sh_ctx *, int, char **, const sh_opts *);
int sh_bi_sh(sh_ctx *, int, char **, const sh_opts *);
/* Commands (shellsvc/commands, one file each). */
int sh_cmd_awk(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_base64(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_basename(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_cat(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_chmod(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_clear(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_cmp(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_column(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_comm(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_cp(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_curl(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_wget(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_cut(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_date(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_df(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_digest(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_diff(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_dirname(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_du(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_env(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_expand(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_expr(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_factor(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_file(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_find_files(sh_ctx *, int, char **, const sh_opts *); // find
int sh_cmd_fmt(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_fold(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_grep(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_head(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_hexdump(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_hostname(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_id(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_join(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_jq(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_ln(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_ls(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_mkdir(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_mktemp(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_mv(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_nl(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_nproc(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_od(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_paste(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_printenv(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_python(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_readlink(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_realpath(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_rev(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_rm(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_rmdir(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_sed(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_seq(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_shuf(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_sleep(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_sort(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_stat(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_strings(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_sum(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_tac(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_tail(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_tee(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_timeout(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_touch(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_tput(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_tr(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_uname(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_unexpand(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_uniq(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_wc(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_which(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_whoami(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_xargs(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_xxd(sh_ctx *, int, char **, const sh_opts *);
int sh_cmd_yes(sh_ctx *, int, char **, const sh_opts *);

/* Saves name (value, elements, attributes) for restore when the
 * function returns (local); *fresh is false when this call already made
 * name local. */
box_err sh_local_save(sh_ctx *cx, const char *name,
                      bool *fresh) BOX_WARN_UNUSED;
/* Restores the locals saved since mark (function return). */
void sh_locals_restore(sh_ctx *cx, sh_local *mark);
sh_local *sh_locals_mark(const sh_ctx *cx);

/* ---- shared by commands (shellsvc/commands/cmd_common.c) ---- */

/*
 * One run of a command over its operands, writing fd 1 (cat, head,
 * tail). It is the first member of the command's own run struct. The
 * helpers that return false (or -1) have set cr_status: the run ends.
 */
typedef struct sh_cmd_run {
    sh_ctx *cr_cx;
    const char *cr_cmd; // the command's name, for its messages
    bool cr_headers;    // "==> name <==" before each operand (GNU)
    bool cr_headed;     // a header is out: the next gets a blank line
    int cr_status;      // 0, 1 after a failed operand, or the stop status
    // GNU's wording of a failed open ("cannot open %s for reading", %s
    // the quoted name), or NULL for "CMD: NAME: ERROR".
    const char *cr_open_fmt;
} sh_cmd_run;

/* What a command does with one opened operand (name: "-" for stdin).
 * False when the run must stop (cr_status set). */
typedef bool (*sh_cmd_body)(sh_cmd_run *r, sh_input *in, const char *name);

/* N of -n: an optional '+' or '-' (in *sign, else 0), then digits. */
bool sh_cmd_count(const char *s, uintmax_t *out, char *sign);
/* GNU's NUM of head/tail -n/-c: digits then a multiplier suffix (b, K
 * k M G … Y, with B for powers of 1000, iB of 1024). 0 with *out, else 1
 * after "CMD: invalid number of lines|bytes: ‘SHOWN’" (": Value too large
 * for defined data type" past UINTMAX_MAX). */
int sh_cmd_gnu_count(sh_ctx *cx, const char *cmd, bool bytes,
                     const char *digits, const char *shown, uintmax_t *out);
/* The last component of name as GNU's basename finds it: *start and *len
 * (trailing slashes left out); a name of slashes only is "/" (start 0,
 * len 1), "" is empty. */
void sh_path_last(const char *name, size_t *start, size_t *len);
/* Appends all of in to hold (read size bytes at a time through chunk),
 * keeping only its last keep_last bytes (UINTMAX_MAX: all). False to
 * stop: the call is over, or hold is full ("CMD: NAME: input too large
 * to hold", status 1); cr_status 1 after a read error, then true. */
bool sh_cmd_hold(sh_cmd_run *r, sh_input *in, const char *name, char *chunk,
                 size_t size, box_buf *hold, uintmax_t keep_last);
/* Writes p to fd 1; false (after a message if fd 1 is bad) to stop. */
bool sh_cmd_emit(sh_cmd_run *r, const char *p, size_t n);
/* False (cr_status set) when the call is being torn down: timeout, abort. */
bool sh_cmd_live(sh_cmd_run *r);
/* The next line of in (sh_input_line): 1 with line and len set; 0 at
 * the end of the operand (status 1 after a read error); -1 to stop. */
int sh_cmd_line(sh_cmd_run *r, sh_input *in, const char **line, size_t *len);
/* Copies the rest of in to fd 1 through buf; false to stop. */
bool sh_cmd_copy(sh_cmd_run *r, sh_input *in, char *buf, size_t size);
/*
 * Points fd 1 of cx at path, opened as `> path` would be, for a command
 * that names its output file (sort -o, uniq's OUTPUT); *saved keeps what
 * fd 1 was, for sh_cmd_output_end. what prefixes a failure's message
 * ("sort: open failed"). Returns 0, or the status after the message (1,
 * or 125 when the decision failed).
 */
int sh_cmd_output_begin(sh_ctx *cx, const char *what, const char *path,
                        sh_stream **saved);
/* Closes the file and gives fd 1 back. */
void sh_cmd_output_end(sh_ctx *cx, sh_stream *saved);
/* name as GNU's quoteaf shows a file in some messages ("error reading
 * 'x'"): sh_gquoteaf into buf (cut to size). */
void sh_cmd_quote_name(char *buf, size_t size, const char *name);
/* Opens each operand (none: stdin) and runs body on it, with a header
 * first when cr_headers. Returns cr_status. */
int sh_cmd_operands(sh_cmd_run *r, int argc, char **argv, const sh_opts *o,
                    sh_cmd_body body);

#endif
