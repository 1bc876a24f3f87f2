/* SPDX-License-Identifier: Apache-2.0 */
/* trap: actions for EXIT, ERR, RETURN, DEBUG and signals, and running them. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_bistate.h"
#include "sh_internal.h"

/*
 * The box delivers no signal to a call (nothing can send one: no `kill`
 * reaches the shell), so a signal's action is kept and listed as bash
 * lists it, never run. EXIT runs when a (sub)shell ends, ERR where set -e
 * would end the shell (inside functions, ( ) and $( ) only with set -E),
 * RETURN when a sourced file ends or a function that set it returns,
 * DEBUG before each simple command (RETURN and DEBUG reach functions
 * with set -T), as bash.
 */

/* ORDER SH_TRAP: names of slots 0..31 (Linux signal numbers); 32 and 33
 * are not signals bash names; the real-time ones are computed. */
static const char *const sig_names[32] = {
    "EXIT",    "SIGHUP",  "SIGINT",    "SIGQUIT", "SIGILL",    "SIGTRAP",
    "SIGABRT", "SIGBUS",  "SIGFPE",    "SIGKILL", "SIGUSR1",   "SIGSEGV",
    "SIGUSR2", "SIGPIPE", "SIGALRM",   "SIGTERM", "SIGSTKFLT", "SIGCHLD",
    "SIGCONT", "SIGSTOP", "SIGTSTP",   "SIGTTIN", "SIGTTOU",   "SIGURG",
    "SIGXCPU", "SIGXFSZ", "SIGVTALRM", "SIGPROF", "SIGWINCH",  "SIGIO",
    "SIGPWR",  "SIGSYS",
};
static const char *const pseudo_names[] = {"DEBUG", "ERR", "RETURN"};

#define SIG_RTMIN 34
#define SIG_RTMAX 64

/* Slot i's name as bash prints it, in buf when computed. */
const char *
sh_trap_slot_name(int i, char *buf, size_t len)
{
    if (i < 32)
        return sig_names[i];
    if (i >= SH_TRAP_DEBUG)
        return pseudo_names[i - SH_TRAP_DEBUG];
    if (i == SIG_RTMIN)
        return "SIGRTMIN";
    if (i == SIG_RTMAX)
        return "SIGRTMAX";
    if (i - SIG_RTMIN <= 15)
        snprintf(buf, len, "SIGRTMIN+%d", i - SIG_RTMIN);
    else
        snprintf(buf, len, "SIGRTMAX-%d", SIG_RTMAX - i);
    return buf;
}

/* The slot a signal spec names (a number, or a name in any case with or
 * without SIG), or -1. */
int
sh_trap_slot_of(const char *spec)
{
    if (spec[0] >= '0' && spec[0] <= '9') {
        char *end;
        long n = strtol(spec, &end, 10);
        if (*end != '\0' || n < 0 || n >= SH_TRAP_NSIG || n == 32 || n == 33)
            return -1;
        return (int)n;
    }
    for (int i = 0; i < SH_TRAP_N; i++) {
        if (i == 32 || i == 33)
            continue;
        char buf[32];
        const char *nm = sh_trap_slot_name(i, buf, sizeof buf);
        if (strcasecmp(spec, nm) == 0 ||
            (strncmp(nm, "SIG", 3) == 0 && strcasecmp(spec, nm + 3) == 0))
            return i;
    }
    return -1;
}

/* trap -- 'action' NAME, the action single-quoted as bash quotes it. */
static int
print_trap(sh_ctx *cx, int i, const char *action)
{
    box_buf b;
    box_buf_init(&b, SH_MAX_INPUT);
    box_err e = box_buf_puts(&b, "trap -- '");
    for (const char *p = action; *p && e == BOX_OK; p++)
        e = *p == '\'' ? box_buf_puts(&b, "'\\''") : box_buf_putc(&b, *p);
    char buf[32];
    if (e == BOX_OK)
        e = box_buf_printf(&b, "' %s\n", sh_trap_slot_name(i, buf, sizeof buf));
    int rc = e == BOX_OK ? sh_write(cx, 1, b.b_data, b.b_len) : SH_IO_ERR;
    box_buf_reset(&b);
    return rc == SH_IO_OK ? 0 : 1;
}

/* trap -l: five to a line, as bash (and kill -l) print them. */
int
sh_trap_list_signals(sh_ctx *cx)
{
    box_buf b;
    box_buf_init(&b, 4096);
    box_err e = BOX_OK;
    int col = 0;
    for (int i = 1; i < SH_TRAP_NSIG && e == BOX_OK; i++) {
        if (i == 32 || i == 33)
            continue;
        char buf[32];
        e = box_buf_printf(&b, "%2d) %s%s", i, sh_trap_slot_name(i, buf, sizeof buf),
                           ++col % 5 == 0 ? "\n" : "\t");
    }
    if (e == BOX_OK && col % 5 != 0)
        e = box_buf_putc(&b, '\n');
    int rc = e == BOX_OK ? sh_write(cx, 1, b.b_data, b.b_len) : SH_IO_ERR;
    box_buf_reset(&b);
    return rc == SH_IO_OK ? 0 : 1;
}

static int
usage(sh_ctx *cx)
{
    (void)sh_puts(cx, 2, "trap: usage: trap [-lp] [[arg] signal_spec ...]\n");
    return 2;
}

/* Sets slot i to action (NULL: default). False on ENOMEM. */
static bool
set_slot(sh_ctx *cx, sh_bistate *bs, int i, const char *action)
{
    char *copy = NULL;
    if (action != NULL && (copy = box_strdup(action)) == NULL)
        return false;
    box_free(bs->bs_trap[i]);
    bs->bs_trap[i] = copy;
    if (i == SH_TRAP_RETURN)
        bs->bs_return_funcs = cx->cx_funcs;
    return true;
}

int
sh_bi_trap(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    int i = 1;
    bool print = false, list = false;
    for (; i < argc && argv[i][0] == '-' && argv[i][1] != '\0'; i++) {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        for (const char *p = argv[i] + 1; *p; p++) {
            if (*p == 'p') {
                print = true;
            } else if (*p == 'l') {
                list = true;
            } else {
                sh_cmd_err(cx, "trap", 2, "-%c: invalid option", *p);
                return usage(cx);
            }
        }
    }
    if (list)
        return sh_trap_list_signals(cx);
    sh_bistate *bs = cx->cx_bi;
    if (i >= argc || print) {
        int st = 0;
        for (int k = i; k < argc; k++) {
            int s = sh_trap_slot_of(argv[k]);
            if (s < 0) {
                st = sh_cmd_err(cx, "trap", 1,
                                "%s: invalid signal specification", argv[k]);
                continue;
            }
            if (bs != NULL && bs->bs_trap[s] != NULL)
                st |= print_trap(cx, s, bs->bs_trap[s]);
        }
        if (i >= argc && bs != NULL)
            for (int s = 0; s < SH_TRAP_N; s++)
                if (bs->bs_trap[s] != NULL)
                    st |= print_trap(cx, s, bs->bs_trap[s]);
        return st;
    }
    /* bash: a first operand that is a number naming a signal, or a lone
     * operand naming one, resets; else the first operand is the action
     * ("-" resets, "" ignores) for the signals after it. */
    const char *action = argv[i];
    bool digits = action[0] != '\0';
    for (const char *p = action; *p; p++)
        digits = digits && isdigit((unsigned char)*p);
    if ((digits && sh_trap_slot_of(action) >= 0) ||
        (i + 1 == argc && sh_trap_slot_of(action) >= 0 && strcmp(action, "-") != 0)) {
        action = NULL;
    } else {
        i++;
        if (i >= argc)
            return usage(cx);
        if (strcmp(action, "-") == 0)
            action = NULL;
    }
    if ((bs = sh_bistate_get(cx)) == NULL)
        return 1;
    if (bs->bs_inherited) { // a subshell's first trap: the parent's go
        for (int k = 0; k < SH_TRAP_N; k++) {
            if (bs->bs_trap[k] != NULL && bs->bs_trap[k][0] != '\0') {
                box_free(bs->bs_trap[k]);
                bs->bs_trap[k] = NULL;
            }
        }
        bs->bs_inherited = false;
    }
    int st = 0;
    for (; i < argc; i++) {
        int s = sh_trap_slot_of(argv[i]);
        if (s < 0) {
            st = sh_cmd_err(cx, "trap", 1, "%s: invalid signal specification",
                            argv[i]);
            continue;
        }
        if (!set_slot(cx, bs, s, action))
            return sh_cmd_err(cx, "trap", 1, "out of memory");
    }
    return st;
}

/* Runs slot i's action with $? = st; the action's own status is not
 * kept (bash). Returns false when there is none to run. A subshell's
 * inherited ERR trap runs under set -E. */
static bool
run_action(sh_ctx *cx, int i, int st)
{
    sh_bistate *bs = cx->cx_bi;
    if (bs == NULL || bs->bs_trap[i] == NULL || bs->bs_trap[i][0] == '\0' ||
        bs->bs_running_trap ||
        (bs->bs_inherited && !(i == SH_TRAP_ERR && cx->cx_st->st_opt_E)))
        return false;
    char *text = box_strdup(bs->bs_trap[i]); // the action may reset itself
    if (text == NULL) {
        sh_errf(cx, "out of memory");
        return false;
    }
    bs->bs_running_trap = true;
    bs->bs_trap_line = cx->cx_line; // bash: the line of the command
    cx->cx_status = st;
    (void)sh_exec_text(cx, text, strlen(text), "trap");
    box_free(text);
    if (cx->cx_bi != NULL)
        cx->cx_bi->bs_running_trap = false;
    return true;
}

int
sh_trap_exit(sh_ctx *cx, int st)
{
    sh_bistate *bs = cx->cx_bi;
    if (bs == NULL || bs->bs_trap[SH_TRAP_EXIT] == NULL || bs->bs_inherited ||
        atomic_load(&cx->cx_ss->ss_abort))
        return st;
    // Once: an exit inside the action ends it, not a second run.
    char *text = bs->bs_trap[SH_TRAP_EXIT];
    bs->bs_trap[SH_TRAP_EXIT] = NULL;
    sh_flow oflow = cx->cx_flow;
    cx->cx_flow = SH_FLOW_NONE;
    if (text[0] != '\0' && !bs->bs_running_trap) {
        bs->bs_running_trap = true;
        bs->bs_trap_line = 0;
        cx->cx_status = st;
        (void)sh_exec_text(cx, text, strlen(text), "trap");
        bs->bs_running_trap = false;
        // An expansion error in the action ends it, not the status.
        if (!sh_discarded(cx) && cx->cx_flow == SH_FLOW_EXIT)
            st = cx->cx_status;
    }
    box_free(text);
    cx->cx_flow = oflow == SH_FLOW_EXIT || cx->cx_flow == SH_FLOW_EXIT
                      ? SH_FLOW_EXIT
                      : SH_FLOW_NONE;
    cx->cx_status = st;
    return st;
}

/* Signals whose default action is to be ignored (CHLD, CONT, URG,
 * WINCH) or to stop, which no call can: nothing happens. */
static bool
default_ignored(int sig)
{
    switch (sig) {
    case 17: // CHLD
    case 18: // CONT
    case 19: // STOP
    case 20: // TSTP
    case 21: // TTIN
    case 22: // TTOU
    case 23: // URG
    case 28: // WINCH
        return true;
    default:
        return false;
    }
}

bool
sh_trap_signal(sh_ctx *cx)
{
    int sig = atomic_exchange(&cx->cx_ss->ss_pending_sig, 0);
    if (sig <= 0 || sig >= SH_TRAP_N)
        return false;
    const sh_bistate *bs = cx->cx_bi;
    const char *act = bs != NULL ? bs->bs_trap[sig] : NULL;
    if (sig != 9 && act != NULL) { // KILL cannot be caught
        if (act[0] == '\0')
            return false; // ignored
        int st = cx->cx_status;
        if (run_action(cx, sig, st) && cx->cx_flow == SH_FLOW_NONE)
            cx->cx_status = st; // $? is the interrupted command's
        return cx->cx_flow != SH_FLOW_NONE;
    }
    if (default_ignored(sig))
        return false;
    sh_fatal(cx, 128 + sig);
    return true;
}

void
sh_trap_err(sh_ctx *cx, int st)
{
    if (cx->cx_funcs != 0 && !cx->cx_st->st_opt_E)
        return;
    if (run_action(cx, SH_TRAP_ERR, st) && cx->cx_flow == SH_FLOW_NONE)
        cx->cx_status = st;
}

void
sh_trap_return(sh_ctx *cx, bool in_func)
{
    sh_bistate *bs = cx->cx_bi;
    if (bs == NULL ||
        (in_func && bs->bs_return_funcs < cx->cx_funcs && !cx->cx_st->st_opt_T))
        return;
    if (in_func && bs->bs_return_funcs == 0 && !cx->cx_st->st_opt_T)
        return; // set outside every function: functions do not inherit it
    int st = cx->cx_status;
    sh_flow oflow = cx->cx_flow;
    if (run_action(cx, SH_TRAP_RETURN, st) && cx->cx_flow == SH_FLOW_NONE) {
        cx->cx_flow = oflow;
        cx->cx_status = st;
    }
}

void
sh_trap_debug(sh_ctx *cx)
{
    if (cx->cx_bi == NULL || (cx->cx_funcs != 0 && !cx->cx_st->st_opt_T))
        return;
    int st = cx->cx_status;
    if (run_action(cx, SH_TRAP_DEBUG, st) && cx->cx_flow == SH_FLOW_NONE)
        cx->cx_status = st;
}
