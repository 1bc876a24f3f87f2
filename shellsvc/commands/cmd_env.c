/* SPDX-License-Identifier: Apache-2.0 */
/* env [-i0v] [-u NAME] [-C DIR] [-S STRING] [-] [NAME=VALUE]... [COMMAND
 * [ARG]...]: GNU coreutils 9.1, the command run as a command of this
 * shell, through admission. */
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_sys.h"
#include "sh_gopt.h"

enum {
    EO_BLOCK = SH_GOPT_LONG_ONLY,
    EO_DEFAULT,
    EO_IGNORE,
    EO_LIST,
};

static const sh_gopt env_opts[] = {
    {'i', "ignore-environment", SH_GARG_NONE},
    {'0', "null", SH_GARG_NONE},
    {'u', "unset", SH_GARG_REQ},
    {'C', "chdir", SH_GARG_REQ},
    {'S', "split-string", SH_GARG_REQ},
    {'v', "debug", SH_GARG_NONE},
    {EO_BLOCK, "block-signal", SH_GARG_OPT},
    {EO_DEFAULT, "default-signal", SH_GARG_OPT},
    {EO_IGNORE, "ignore-signal", SH_GARG_OPT},
    {EO_LIST, "list-signal-handling", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec env_spec = {
    .gs_cmd = "env",
    .gs_opts = env_opts,
    .gs_flags = SH_GOPT_F_INORDER,
    .gs_fail = 125,
    .gs_help =
        "Usage: env [OPTION]... [-] [NAME=VALUE]... [COMMAND [ARG]...]\n"
        "Set each NAME to VALUE in the environment and run COMMAND.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short "
        "options too.\n"
        "  -i, --ignore-environment  start with an empty environment\n"
        "  -0, --null           end each output line with NUL, not "
        "newline\n"
        "  -u, --unset=NAME     remove variable from the environment\n"
        "  -C, --chdir=DIR      change working directory to DIR\n"
        "  -S, --split-string=S  process and split S into separate "
        "arguments;\n"
        "                        used to pass multiple arguments on "
        "shebang lines\n"
        "      --block-signal[=SIG]    block delivery of SIG signal(s) to "
        "COMMAND\n"
        "      --default-signal[=SIG]  reset handling of SIG signal(s) to "
        "the default\n"
        "      --ignore-signal[=SIG]   set handling of SIG signal(s) to do "
        "nothing\n"
        "      --list-signal-handling  list non default signal handling to "
        "stderr\n"
        "  -v, --debug          print verbose information for each "
        "processing step\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "A mere - implies -i.  If no COMMAND, print the resulting "
        "environment.\n"
        "\n"
        "SIG may be a signal name like 'PIPE', or a signal number like "
        "'13'.\n"
        "Without SIG, all known signals are included.  Multiple signals "
        "can be\n"
        "comma-separated.\n",
};

/* One run: the words env reads after its options (the -S words first),
 * and what it was asked to do. */
typedef struct env_run {
    sh_ctx *er_cx;
    sh_gopt_iter er_it;
    sh_argv er_words; // -S words, then the operands
    bool er_clear, er_nul, er_debug;
    const char *er_dir;
    sh_argv er_unset;
} env_run;

/*
 * -S STRING: split as GNU's env does for a `#!/usr/bin/env -S` line:
 * blanks separate words; '…' is literal; "…" and bare text take the
 * escapes \\ \" \' \_ (a blank, or a separator outside quotes) \t \n
 * \r \f \v \$ \#, and ${NAME} (from the environment env started with);
 * \c ends the string; # at a word's start begins a comment. 0, or 125
 * after GNU's message.
 */
static int
env_split(env_run *er, const char *s)
{
    sh_ctx *cx = er->er_cx;
    box_buf w;
    box_buf_init(&w, 1u << 20);
    bool inword = false, sq = false, dq = false;
    box_err acc = BOX_OK;
    int st = 0;
    const char *p = s;
    for (; *p; p++) {
        char c = *p;
        if (sq) {
            if (c == '\'') {
                sq = false;
            } else if (c == '\\' && (p[1] == '\\' || p[1] == '\'')) {
                SH_SYS_ACC(acc, box_buf_putc(&w, *++p));
            } else {
                SH_SYS_ACC(acc, box_buf_putc(&w, c));
            }
            continue;
        }
        if (!dq && (c == ' ' || c == '\t' || c == '\n' || c == '\v' ||
                    c == '\f' || c == '\r')) {
            if (inword && sh_argv_push(&er->er_words, w.b_data ? w.b_data : "",
                                       w.b_len, false) != BOX_OK)
                goto nomem;
            box_buf_truncate(&w, 0);
            inword = false;
            continue;
        }
        if (!dq && !inword && c == '#')
            break;
        inword = true;
        if (c == '\'' && !dq) {
            sq = true;
        } else if (c == '"') {
            dq = !dq;
        } else if (c == '\\') {
            static const char from[] = "\\\"'tnrfv$#";
            static const char to[] = "\\\"'\t\n\r\f\v$#";
            char e = p[1];
            const char *f = e != '\0' ? strchr(from, e) : NULL;
            if (e == 'c') {
                if (dq) {
                    sh_errf(cx, "env: '\\c' must not appear in double-quoted "
                                "-S string");
                    st = 125;
                    goto out;
                }
                break;
            }
            if (e == '_') {
                if (!dq) {
                    if (sh_argv_push(&er->er_words, w.b_data ? w.b_data : "",
                                     w.b_len, false) != BOX_OK)
                        goto nomem;
                    box_buf_truncate(&w, 0);
                    inword = false;
                } else {
                    SH_SYS_ACC(acc, box_buf_putc(&w, ' '));
                }
                p++;
                continue;
            }
            if (f == NULL) {
                sh_errf(cx, "env: invalid sequence '\\%c' in -S", e);
                st = 125;
                goto out;
            }
            SH_SYS_ACC(acc, box_buf_putc(&w, to[f - from]));
            p++;
        } else if (c == '$') {
            const char *end = p[1] == '{' ? strchr(p + 2, '}') : NULL;
            if (end == NULL || !sh_name_valid(p + 2, (size_t)(end - p - 2))) {
                sh_errf(cx,
                        "env: only ${VARNAME} expansion is supported, error "
                        "at: %s",
                        p);
                st = 125;
                goto out;
            }
            char name[256];
            snprintf(name, sizeof name, "%.*s", (int)(end - p - 2), p + 2);
            const char *v = sh_sys_getenv(cx, name);
            if (v != NULL)
                SH_SYS_ACC(acc, box_buf_puts(&w, v));
            p = end;
        } else {
            SH_SYS_ACC(acc, box_buf_putc(&w, c));
        }
    }
    if (acc != BOX_OK)
        goto nomem;
    if (sq || dq) {
        sh_errf(cx, "env: no terminating quote in -S string");
        st = 125;
        goto out;
    }
    if (inword && sh_argv_push(&er->er_words, w.b_data ? w.b_data : "", w.b_len,
                               false) != BOX_OK)
        goto nomem;
    goto out;
nomem:
    sh_errf(cx, "env: memory exhausted");
    st = 125;
out:
    box_buf_reset(&w);
    return st;
}

/* One line of -v: GNU's own text on stderr, as it is (no shell prefix:
 * env writes it, not the shell). */
static void
env_debug(sh_ctx *cx, const char *head, const char *text)
{
    (void)sh_puts(cx, 2, head);
    (void)sh_puts(cx, 2, text);
    (void)sh_puts(cx, 2, "\n");
}

/* NAME=VALUE pairs: the environment env prints or the command gets. */
static void
env_print(sh_ctx *cx, const sh_state *st, bool nul)
{
    box_buf b;
    box_buf_init(&b, SH_VARS_MAX_BYTES + 4096);
    box_err acc = BOX_OK;
    for (size_t i = 0; i < st->st_nvars; i++) {
        const sh_var *v = &st->st_vars[i];
        if (!sh_sys_exported(v))
            continue;
        SH_SYS_ACC(acc, box_buf_printf(&b, "%s=%s", v->v_name, v->v_value));
        SH_SYS_ACC(acc, box_buf_putc(&b, nul ? '\0' : '\n'));
    }
    if (acc != BOX_OK)
        sh_errf(cx, "env: memory exhausted");
    else if (b.b_len > 0)
        (void)sh_write(cx, 1, b.b_data, b.b_len);
    box_buf_reset(&b);
}

/* The command's environment in sub: -i, -u, then NAME=VALUE (a state is
 * a program's: only its exported variables). 0 or 125. */
static int
env_apply(env_run *er, sh_ctx *sub, int *first)
{
    sh_sys_program_state(sub);
    sh_state *st = sub->cx_st;
    if (er->er_clear) {
        if (er->er_debug)
            env_debug(er->er_cx, "cleaning environ", "");
        while (st->st_nvars > 0) {
            char *name = box_strdup(st->st_vars[st->st_nvars - 1].v_name);
            if (name == NULL)
                return 125;
            sh_var_unset(st, name);
            box_free(name);
        }
    }
    for (int i = 0; i < er->er_unset.av_n; i++) {
        if (er->er_debug)
            env_debug(er->er_cx, "unset:    ", er->er_unset.av_v[i]);
        sh_var_unset(st, er->er_unset.av_v[i]);
    }
    int i = 0;
    for (; i < er->er_words.av_n; i++) {
        const char *w = er->er_words.av_v[i];
        const char *eq = strchr(w, '=');
        if (eq == NULL)
            break;
        if (er->er_debug)
            env_debug(er->er_cx, "setenv:   ", w);
        // A name no shell could spell (`env =x`, `env a-b=1`) is still a
        // program's environment entry; this shell's state holds names
        // only, so such a pair is set aside (nothing here reads it).
        if (!sh_name_valid(w, (size_t)(eq - w)))
            continue;
        char *name = box_asprintf("%.*s", (int)(eq - w), w);
        if (name == NULL)
            return 125;
        box_err e = sh_var_set(st, name, eq + 1, strlen(eq + 1));
        if (e == BOX_OK)
            e = sh_var_export(st, name);
        box_free(name);
        if (e != BOX_OK) {
            sh_errf(er->er_cx, "env: cannot set %s: %s", w,
                    e == BOX_ETOOBIG ? "Argument list too long"
                                     : "Cannot allocate memory");
            return 125;
        }
    }
    *first = i;
    return 0;
}

/* Runs the rest of the words (from first) as the command, in a program's
 * state made from er's requests. */
static int
env_exec(env_run *er, int first)
{
    sh_ctx *cx = er->er_cx;
    sh_ctx *sub = sh_ctx_fork(cx);
    if (sub == NULL) {
        sh_errf(cx, "env: memory exhausted");
        return 125;
    }
    int st = env_apply(er, sub, &first);
    if (st != 0)
        goto out;
    if (first >= er->er_words.av_n) {
        if (er->er_dir != NULL) {
            sh_errf(cx, "env: must specify command with --chdir (-C)");
            st = sh_gopt_try(&er->er_it);
            goto out;
        }
        env_print(cx, sub->cx_st, er->er_nul);
        goto out;
    }
    if (er->er_nul) {
        sh_errf(cx, "env: cannot specify --null (-0) with command");
        st = sh_gopt_try(&er->er_it);
        goto out;
    }
    if (er->er_dir != NULL) {
        if (er->er_debug) {
            char *q = sh_gquoteaf(er->er_dir);
            env_debug(cx, "chdir:    ", q ? q : er->er_dir);
            box_free(q);
        }
        sh_kernel_result r = {0};
        char *canon = NULL;
        int err = sh_kernel_chdir(sh_kern(sub), sub->cx_st->st_cwd, er->er_dir,
                                  &canon, &r);
        if (err != 0) {
            char *q = sh_gquoteaf(er->er_dir);
            if (r.kr_outcome == SH_KR_FAULT || r.kr_outcome == SH_KR_DENIED) {
                st = sh_fs_fail(cx, "env", er->er_dir, &r);
                st = st == 1 ? 125 : st;
            } else {
                sh_errf(cx, "env: cannot change directory to %s: %s",
                        q ? q : er->er_dir, strerror(err));
                st = 125;
            }
            sh_kernel_result_clear(&r);
            box_free(q);
            goto out;
        }
        sh_kernel_result_clear(&r);
        box_free(sub->cx_st->st_cwd);
        sub->cx_st->st_cwd = canon;
    }
    int argc = er->er_words.av_n - first;
    char **argv = er->er_words.av_v + first;
    if (er->er_debug) {
        char *q = NULL;
        env_debug(cx, "executing: ", argv[0]);
        for (int i = 0; i < argc; i++) {
            q = sh_gquote(argv[i]);
            char *line = box_asprintf("   arg[%d]= %s", i, q ? q : argv[i]);
            env_debug(cx, line != NULL ? line : "", "");
            box_free(line);
            box_free(q);
        }
    }
    st = sh_sys_run(sub, SH_SYS_ENV, argc, argv);
out:
    sh_ctx_free(sub);
    return st;
}

int
sh_cmd_env(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    env_run er = {.er_cx = cx};
    sh_argv_init(&er.er_words);
    sh_argv_init(&er.er_unset);
    sh_gopt_init(&er.er_it, cx, &env_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&er.er_it, &arg, &st)) >= 0) {
        switch (id) {
        case 'i':
            er.er_clear = true;
            break;
        case '0':
            er.er_nul = true;
            break;
        case 'v':
            er.er_debug = true;
            break;
        case 'C':
            er.er_dir = arg;
            break;
        case 'u':
            if (arg[0] == '\0' || strchr(arg, '=') != NULL) {
                char *q = sh_gquote(arg);
                sh_errf(cx, "env: cannot unset %s: Invalid argument",
                        q ? q : arg);
                box_free(q);
                st = 125;
                goto out;
            }
            if (sh_argv_push(&er.er_unset, arg, strlen(arg), false) != BOX_OK)
                goto nomem;
            break;
        case 'S':
            if (er.er_debug)
                env_debug(cx, "split -S:  ", arg);
            if ((st = env_split(&er, arg)) != 0)
                goto out;
            break;
        default: // signal dispositions: nothing here gets a signal
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    int i = 0;
    // A lone "-" first (before any NAME=VALUE) is -i, as GNU reads it.
    if (i < er.er_it.gi_nops && strcmp(er.er_it.gi_ops[i], "-") == 0) {
        er.er_clear = true;
        i++;
    }
    for (; i < er.er_it.gi_nops; i++)
        if (sh_argv_push(&er.er_words, er.er_it.gi_ops[i],
                         strlen(er.er_it.gi_ops[i]), false) != BOX_OK)
            goto nomem;
    st = env_exec(&er, 0);
    goto out;
nomem:
    sh_errf(cx, "env: memory exhausted");
    st = 125;
out:
    sh_gopt_free(&er.er_it);
    sh_argv_free(&er.er_words);
    sh_argv_free(&er.er_unset);
    return st;
}
