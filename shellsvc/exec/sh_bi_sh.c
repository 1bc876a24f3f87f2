/* SPDX-License-Identifier: Apache-2.0 */
/* sh, bash, zsh, dash and lash as commands: a script run in-process by
 * this same interpreter, in a child context (spec §3.4). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_status.h"
#include "sh_bistate.h"
#include "sh_internal.h"

/*
 * The stage was admitted as the program `sh` / `bash` (shell:exec, spec
 * §3.4 step 1); what the script runs is then admitted command by
 * command through the one admission point like any other text (§3.5):
 * no second path, nothing spawned. The child is what a real child bash
 * would be: it sees the exported variables (with the command's own
 * NAME=v prefixes) and the cwd, not the functions, options, traps or
 * aliases; nothing it changes comes back but its status. Its output
 * goes to the stage's fds. Each run is one level of the call's
 * recursion depth (SH_EXEC_MAX_DEPTH), so `sh -c 'sh -c …'` or a script
 * running itself stops the call with "maximum recursion depth exceeded".
 */

/* bash's text after an invalid option (bash 5.2, byte for byte). */
static const char sh_usage[] =
    "Usage:\t%s [GNU long option] [option] ...\n"
    "\t%s [GNU long option] [option] script-file ...\n"
    "GNU long options:\n"
    "\t--debug\n\t--debugger\n\t--dump-po-strings\n\t--dump-strings\n"
    "\t--help\n\t--init-file\n\t--login\n\t--noediting\n\t--noprofile\n"
    "\t--norc\n\t--posix\n\t--pretty-print\n\t--rcfile\n\t--restricted\n"
    "\t--verbose\n\t--version\n"
    "Shell options:\n"
    "\t-ilrsD or -c command or -O shopt_option\t\t(invocation only)\n"
    "\t-abefhkmnptuvxBCEHPT or -o option\n";

/* What the words after the command name ask for. */
typedef struct sh_inv {
    bool iv_cmd;   // -c: the first operand is the text
    bool iv_stdin; // -s: the script is stdin even with operands
    int iv_ind;    // first operand
} sh_inv;

static int
inv_usage(sh_ctx *cx, const char *name, const char *word)
{
    sh_errf(cx, "%s: invalid option", word);
    char *u = box_asprintf(sh_usage, name, name);
    if (u != NULL)
        (void)sh_puts(cx, 2, u);
    box_free(u);
    return 2;
}

/* A form bash has that this shell does not run: said, never ignored. */
static int
inv_unsupported(sh_ctx *cx, const char *name, const char *word)
{
    sh_errf(cx, "%s: %s: unsupported option", name, word);
    return 2;
}

/* One letter of a -abc / +abc word; 0 or the status after a message. */
static int
inv_letter(sh_ctx *cx, sh_state *st, const char *name, char c, bool on,
           sh_inv *iv)
{
    char word[3] = {on ? '-' : '+', c, '\0'};
    switch (c) {
    case 'c':
        iv->iv_cmd = true;
        return 0;
    case 's':
        iv->iv_stdin = true;
        return 0;
    case 'l': // login: the box has no profile files to read
        return 0;
    case 'h': // hashall and braceexpand: always on here
    case 'B':
        return on ? 0 : inv_unsupported(cx, name, word);
    default:
        break;
    }
    const sh_option *o = sh_option_find(NULL, c);
    if (o != NULL && sh_option_set(st, o, on))
        return 0;
    if (strchr("abefhkmnptuvxBCEHPTilrsDO", c) != NULL)
        return inv_unsupported(cx, name, word);
    return inv_usage(cx, name, word);
}

/* bash's long options: the ones that change nothing here are taken (the
 * box reads no startup files either way); the rest are refused. */
static const struct {
    const char *lo_name;
    bool lo_taken;
} sh_longopts[] = {
    {"--debug", false},
    {"--debugger", false},
    {"--dump-po-strings", false},
    {"--dump-strings", false},
    {"--help", false},
    {"--init-file", false},
    {"--login", true},
    {"--noediting", true},
    {"--noprofile", true},
    {"--norc", true},
    {"--posix", false},
    {"--pretty-print", false},
    {"--rcfile", false},
    {"--restricted", false},
    {"--verbose", false},
    {"--version", false},
};

/* One --word: 0 when taken, else the status after the message. */
static int
inv_long(sh_ctx *cx, const char *name, const char *a)
{
    for (size_t i = 0; i < sizeof sh_longopts / sizeof sh_longopts[0]; i++)
        if (strcmp(sh_longopts[i].lo_name, a) == 0)
            return sh_longopts[i].lo_taken ? 0 : inv_unsupported(cx, name, a);
    return inv_usage(cx, name, a);
}

/* Reads the options into st (the child's) and iv: 0, or a status. */
static int
inv_parse(sh_ctx *cx, sh_state *st, int argc, char **argv, sh_inv *iv)
{
    const char *name = argv[0];
    memset(iv, 0, sizeof *iv);
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if ((a[0] != '-' && a[0] != '+') || a[1] == '\0')
            break;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (a[0] == '-' && a[1] == '-') {
            int rc = inv_long(cx, name, a);
            if (rc != 0)
                return rc;
            continue;
        }
        bool on = a[0] == '-';
        for (const char *p = a + 1; *p; p++) {
            if (*p != 'o') {
                int rc = inv_letter(cx, st, name, *p, on, iv);
                if (rc != 0)
                    return rc;
                continue;
            }
            // -o NAME takes the next word (bash: the rest of the
            // cluster's letters still count).
            if (i + 1 >= argc) {
                sh_errf(cx, "%s: %co: option requires an argument", name, a[0]);
                return 2;
            }
            const char *oname = argv[++i];
            const sh_option *o = sh_option_find(oname, 0);
            if (o == NULL) {
                sh_errf(cx, "%s: %s: invalid option name", name, oname);
                return 2;
            }
            if (!sh_option_set(st, o, on))
                return inv_unsupported(cx, name, oname);
        }
    }
    iv->iv_ind = i;
    return 0;
}

/* The child's state: a fresh shell's, with the parent's exported
 * variables (what a real child's environment holds) and its cwd. */
static sh_state *
child_state(const sh_ctx *cx)
{
    const sh_state *p = cx->cx_st;
    sh_state *st = sh_state_new();
    char *cwd = st != NULL ? box_strdup(p->st_cwd) : NULL;
    if (cwd == NULL)
        goto fail;
    box_free(st->st_cwd);
    st->st_cwd = cwd;
    // The logical cwd too: bash takes its PWD when it names the cwd.
    if (p->st_lcwd != NULL && (st->st_lcwd = box_strdup(p->st_lcwd)) == NULL)
        goto fail;
    for (size_t i = 0; i < p->st_nvars; i++) {
        const sh_var *v = &p->st_vars[i];
        if (!(v->v_flags & SH_VAR_EXPORT) || v->v_value == NULL ||
            v->v_arr != NULL)
            continue;
        if (sh_var_import(st, v->v_name, v->v_value, strlen(v->v_value)) !=
            BOX_OK)
            goto fail;
    }
    // As bash at start: its own variables (SHLVL one more level), PWD
    // names the cwd, PPID is the parent shell's $$.
    char num[32];
    if (sh_special_init(st) != BOX_OK ||
        sh_var_set(st, "PWD", sh_cwd_logical(st), strlen(sh_cwd_logical(st))) !=
            BOX_OK ||
        sh_var_export(st, "PWD") != BOX_OK)
        goto fail;
    snprintf(num, sizeof num, "%ld", cx->cx_ss->ss_pid);
    if (sh_var_set(st, "PPID", num, strlen(num)) != BOX_OK)
        goto fail;
    return st;
fail:
    sh_state_free(st);
    return NULL;
}

/* A child context one level deeper over the stage's fds; NULL on ENOMEM. */
static sh_ctx *
child_new(const sh_ctx *cx)
{
    sh_ctx *n = box_calloc(1, sizeof *n);
    if (n == NULL)
        return NULL;
    n->cx_ss = cx->cx_ss;
    // A shell's own top level, not a forked subshell (cx_owns_state
    // false, as the session's): sh_bi_sh frees the state itself.
    if ((n->cx_st = child_state(cx)) == NULL) {
        box_free(n);
        return NULL;
    }
    for (int i = 0; i < SH_MAX_FD; i++)
        n->cx_fd[i] = sh_stream_ref(cx->cx_fd[i]);
    n->cx_depth = cx->cx_depth + 1;
    n->cx_bg = cx->cx_bg;
    // A signal to the job (or timeout's deadline) reaches the child
    // shell too, as a real one's process group would be signalled.
    n->cx_kill = cx->cx_kill;
    // The umask is inherited like the cwd; traps, aliases are not.
    if (cx->cx_bi != NULL && cx->cx_bi->bs_umask_set) {
        sh_bistate *b = sh_bistate_get(n);
        if (b == NULL) {
            sh_state *st = n->cx_st;
            sh_ctx_free(n);
            sh_state_free(st);
            return NULL;
        }
        b->bs_umask = cx->cx_bi->bs_umask;
        b->bs_umask_set = true;
    }
    return n;
}

/* $0 and $1…: arg0 and args[0..n). */
static int
child_args(sh_ctx *ch, const char *arg0, int n, char **args)
{
    char *a0 = box_strdup(arg0);
    if (a0 == NULL || sh_pos_set(ch->cx_st, n, args) != BOX_OK) {
        box_free(a0);
        sh_errf(ch, "out of memory");
        return 1;
    }
    box_free(ch->cx_st->st_arg0);
    ch->cx_st->st_arg0 = a0;
    return 0;
}

/* Loads the script's text into text (or sets *fd: a script on stdin)
 * and sets $0 and $@: 0 or a status. */
static int
child_load(sh_ctx *ch, int argc, char **argv, const sh_inv *iv, box_buf *text,
           const char **label, int *fd)
{
    int i = iv->iv_ind;
    const char *name = argv[0];
    if (iv->iv_cmd) {
        if (i >= argc) {
            sh_errf(ch, "-c: option requires an argument");
            return 2;
        }
        if (box_buf_puts(text, argv[i]) != BOX_OK)
            return sh_cmd_err(ch, name, 1, "input too large");
        *label = "-c";
        i++;
        const char *a0 = i < argc ? argv[i++] : name;
        return child_args(ch, a0, argc - i, argv + i);
    }
    if (iv->iv_stdin || i >= argc) {
        *fd = 0; // read as it runs (sh_source_text)
        return child_args(ch, name, argc - i, argv + i);
    }
    int oserr;
    int st = sh_source_read(ch, name, argv[i], text, &oserr);
    if (st == 1) // bash: 127 when there is no such file, else 126
        return oserr == ENOENT ? BOX_STATUS_NOT_FOUND : BOX_STATUS_CANNOT_RUN;
    if (st != 0)
        return st;
    *label = argv[i];
    return child_args(ch, argv[i], argc - i - 1, argv + i + 1);
}

int
sh_bi_sh(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    if (cx->cx_depth >= SH_EXEC_MAX_DEPTH) {
        sh_too_deep(cx);
        return 1;
    }
    sh_ctx *ch = child_new(cx);
    if (ch == NULL)
        return sh_cmd_err(cx, argv[0], 1, "out of memory");
    box_buf text;
    box_buf_init(&text, SH_MAX_INPUT);
    const char *label = NULL;
    int fd = -1;
    sh_inv iv;
    int st = inv_parse(ch, ch->cx_st, argc, argv, &iv);
    if (st == 0)
        st = child_load(ch, argc, argv, &iv, &text, &label, &fd);
    if (st == 0 && ch->cx_flow == SH_FLOW_NONE) {
        ch->cx_st->st_opt_c = iv.iv_cmd;
        if (!iv.iv_cmd && fd < 0) {
            st = sh_run_script(ch, label, text.b_data, text.b_len);
        } else {
            if (text.b_len > 0 || fd >= 0)
                st = sh_source_text(ch, label, false, text.b_data, text.b_len,
                                    fd);
            if (ch->cx_flow == SH_FLOW_EXIT)
                st = ch->cx_status;
            st = sh_trap_exit(ch, st);
        }
    }
    box_buf_reset(&text);
    sh_state *cst = ch->cx_st;
    sh_ctx_free(ch); // hands its jobs over (they run on copies)
    sh_state_free(cst);
    if (atomic_load(&cx->cx_ss->ss_abort))
        sh_check_stop(cx);
    return st;
}
