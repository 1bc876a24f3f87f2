/* SPDX-License-Identifier: Apache-2.0 */
/* What the builtins keep per context: traps, aliases, dir stack, umask,
 * getopts. */
#ifndef SH_BISTATE_H
#define SH_BISTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sh_internal.h"

/*
 * Trap slots in bash's order (its trap -p lists them so): EXIT is 0,
 * signals 1..64 by their Linux number, then DEBUG, ERR, RETURN. ORDER
 * SH_TRAP: sh_bi_trap.c names them.
 */
#define SH_TRAP_EXIT 0
#define SH_TRAP_NSIG 65 // EXIT and signals 1..64
#define SH_TRAP_DEBUG 65
#define SH_TRAP_ERR 66
#define SH_TRAP_RETURN 67
#define SH_TRAP_N 68

typedef struct sh_alias {
    char *al_name;
    char *al_value;
    /* The top-level command being run when it was defined: bash expands
     * an alias only in commands read after that one (sh_alias_apply). */
    unsigned long al_serial;
    bool al_busy; // being expanded: not again inside itself
} sh_alias;

/*
 * One context's (sub)shell state that only builtins read: made on first
 * use (sh_bistate_get), copied for every forked context (a subshell keeps
 * aliases, the directory stack and umask; its traps are only listed, as
 * bash does), freed with the context.
 */
struct sh_bistate {
    char *bs_trap[SH_TRAP_N]; // NULL: default; "": ignored
    /* A subshell's copy of its parent's traps: listed (trap -p in $( )
     * shows them, as bash), never run; the first trap set here drops
     * them. Ignored signals stay ignored either way. */
    bool bs_inherited;
    unsigned bs_return_funcs; // cx_funcs when RETURN was set
    sh_alias *bs_alias;
    size_t bs_nalias, bs_capalias;
    char **bs_dirs; // pushd's stack below the cwd, nearest first
    size_t bs_ndirs, bs_capdirs;
    unsigned bs_umask;
    bool bs_umask_set; // `umask MODE` ran: files are created with it
    int bs_optchar;        // getopts: place inside the current word
    long bs_optind;        // the OPTIND bs_optchar belongs to
    bool bs_running_trap;  // a trap action runs: no trap inside it
    uint32_t bs_trap_line; // $LINENO while ERR/DEBUG/RETURN runs (0: own)
};

/* The context's state, made on first use; NULL after "out of memory". */
sh_bistate *sh_bistate_get(sh_ctx *cx);
/* A forked context's copy (NULL in: NULL out; *err set on ENOMEM). */
sh_bistate *sh_bistate_fork(const sh_bistate *bs, bool *err);
void sh_bistate_free(sh_bistate *bs); // NULL-safe

/* The umask `umask` prints (022 until set). */
unsigned sh_umask_get(const sh_ctx *cx);
/* The mode a new file gets: mode less the umask once a script set one;
 * until then mode itself (the kernel's own default applies). */
unsigned sh_umask_apply(const sh_ctx *cx, unsigned mode);

/* Traps (sh_bi_trap.c). Each runs the action as shell text, admitted
 * like any other (spec §3.5), keeping $? as it was. */
/* The EXIT trap at the end of a (sub)shell whose status is st: returns
 * the status the (sub)shell ends with (the action's exit changes it). */
int sh_trap_exit(sh_ctx *cx, int st);
/* The ERR trap after a failing command (the set -e conditions hold). */
void sh_trap_err(sh_ctx *cx, int st);
/* The DEBUG trap before a simple command (not inside functions). */
void sh_trap_debug(sh_ctx *cx);
/* The RETURN trap after a function (in_func) or a sourced file ends. */
void sh_trap_return(sh_ctx *cx, bool in_func);

/* Aliases (sh_bi_alias.c). "alias NAME='VALUE'\n" as `alias` and
 * `command -v` print one. */
box_err sh_alias_line(box_buf *b, const sh_alias *a);
/* Whether simple command n's first word is an
 * alias to expand here: an unquoted literal word, shopt expand_aliases
 * on, the alias defined before the top-level command now running. */
bool sh_alias_applies(const sh_ctx *cx, const sh_node *n);
/* Runs the alias av names: its text, then av's other words quoted, as
 * shell text (every command in it admitted). Returns the status. */
int sh_alias_run(sh_ctx *cx, const sh_argv *av);

#endif
