/* SPDX-License-Identifier: Apache-2.0 */
/* The command registry: one table, one option parser, one error helper. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_internal.h"

/*
 * Every builtin is a row: name, handler, option letters, mode (STYLE
 * §10). The shared parser handles `-abc`, `-x arg` / `-xarg` for letters
 * followed by ':' in the spec, `--` and a lone `-` (an operand). An
 * unknown letter is an error for every command — "strands-shell: <cmd>:
 * -<c>: invalid option", status 2 — except SH_CMD_LENIENT commands
 * (echo), where the word is then the first operand, and SH_CMD_RAWARGS
 * commands, which read their own argv (test, printf, set, exit …: their
 * operands may start with '-').
 *
 * Status conventions: 0 success, 1 command error, 2 usage error.
 */
static const sh_cmd sh_cmds[] = {
    {".", sh_bi_source, "", SH_CMD_RAWARGS, NULL},
    {":", sh_bi_colon, "", SH_CMD_RAWARGS, NULL},
    {"[", sh_bi_test, "", SH_CMD_RAWARGS, NULL},
    {"alias", sh_bi_alias, "p", 0, NULL},
    {"awk", sh_cmd_awk, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"b2sum", sh_cmd_digest, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"base32", sh_cmd_base64, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"base64", sh_cmd_base64, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"basename", sh_cmd_basename, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"bash", sh_bi_sh, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"break", sh_bi_break, "", SH_CMD_RAWARGS, NULL},
    {"builtin", sh_bi_builtin, "", 0, NULL},
    {"caller", sh_bi_caller, "", 0, NULL},
    {"cat", sh_cmd_cat, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"cd", sh_bi_cd, "LP", 0, NULL},
    {"chmod", sh_cmd_chmod, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"cksum", sh_cmd_cksum, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"clear", sh_cmd_clear, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"cmp", sh_cmd_cmp, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"column", sh_cmd_column, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"comm", sh_cmd_comm, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"command", sh_bi_command, "pvV", 0, NULL},
    {"compgen", sh_bi_compgen, "", SH_CMD_RAWARGS, NULL},
    {"continue", sh_bi_break, "", SH_CMD_RAWARGS, NULL},
    {"cp", sh_cmd_cp, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"curl", sh_cmd_curl, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"cut", sh_cmd_cut, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"dash", sh_bi_sh, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"date", sh_cmd_date, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"declare", sh_bi_declare, "", SH_CMD_RAWARGS, NULL},
    {"df", sh_cmd_df, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"diff", sh_cmd_diff, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"dirname", sh_cmd_dirname, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"dirs", sh_bi_dirs, "", SH_CMD_RAWARGS, NULL},
    {"du", sh_cmd_du, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"echo", sh_bi_echo, "neE", SH_CMD_LENIENT, NULL},
    {"enable", sh_bi_enable, "adf:nps", 0, NULL},
    {"env", sh_cmd_env, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"eval", sh_bi_eval, "", SH_CMD_RAWARGS, NULL},
    {"exec", sh_bi_exec, "", SH_CMD_RAWARGS, NULL},
    {"exit", sh_bi_exit, "", SH_CMD_RAWARGS, NULL},
    {"expand", sh_cmd_expand, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"export", sh_bi_declare, "", SH_CMD_RAWARGS, NULL},
    {"expr", sh_cmd_expr, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"factor", sh_cmd_factor, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"false", sh_bi_false, "", SH_CMD_RAWARGS, NULL},
    {"file", sh_cmd_file, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"find", sh_cmd_find_files, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"fmt", sh_cmd_fmt, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"fold", sh_cmd_fold, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"getopts", sh_bi_getopts, "", SH_CMD_RAWARGS, NULL},
    {"grep", sh_cmd_grep, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"hash", sh_bi_hash, "dlrt", 0, NULL},
    {"head", sh_cmd_head, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"hexdump", sh_cmd_hexdump, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"hostname", sh_cmd_hostname, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"id", sh_cmd_id, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"jobs", sh_bi_jobs, "lnprs", 0, NULL},
    {"join", sh_cmd_join, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"jq", sh_cmd_jq, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"kill", sh_bi_kill, "", SH_CMD_RAWARGS, NULL},
    {"lash", sh_bi_sh, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"let", sh_bi_let, "", SH_CMD_RAWARGS, NULL},
    {"ln", sh_cmd_ln, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"local", sh_bi_declare, "", SH_CMD_RAWARGS, NULL},
    {"ls", sh_cmd_ls, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"mapfile", sh_bi_mapfile, "d:n:s:tu:", 0, NULL},
    {"md5sum", sh_cmd_digest, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"mkdir", sh_cmd_mkdir, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"mktemp", sh_cmd_mktemp, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"mv", sh_cmd_mv, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"nl", sh_cmd_nl, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"nproc", sh_cmd_nproc, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"od", sh_cmd_od, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"paste", sh_cmd_paste, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"popd", sh_bi_popd, "", SH_CMD_RAWARGS, NULL},
    {"printenv", sh_cmd_printenv, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"printf", sh_bi_printf, "", SH_CMD_RAWARGS, NULL},
    {"pushd", sh_bi_pushd, "", SH_CMD_RAWARGS, NULL},
    {"pwd", sh_bi_pwd, "LP", 0, NULL},
    {"python", sh_cmd_python, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"python3", sh_cmd_python, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"read", sh_bi_read, "a:d:ei:N:n:p:rst:u:", 0, NULL},
    {"readarray", sh_bi_mapfile, "d:n:s:tu:", 0, NULL},
    {"readlink", sh_cmd_readlink, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"readonly", sh_bi_declare, "", SH_CMD_RAWARGS, NULL},
    {"realpath", sh_cmd_realpath, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"return", sh_bi_return, "", SH_CMD_RAWARGS, NULL},
    {"rev", sh_cmd_rev, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"rm", sh_cmd_rm, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"rmdir", sh_cmd_rmdir, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"sed", sh_cmd_sed, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"seq", sh_cmd_seq, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"set", sh_bi_set, "", SH_CMD_RAWARGS, NULL},
    {"sh", sh_bi_sh, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"sha1sum", sh_cmd_digest, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"sha224sum", sh_cmd_digest, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"sha256sum", sh_cmd_digest, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"sha384sum", sh_cmd_digest, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"sha512sum", sh_cmd_digest, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"shift", sh_bi_shift, "", SH_CMD_RAWARGS, NULL},
    {"shopt", sh_bi_shopt, "", SH_CMD_RAWARGS, NULL},
    {"shuf", sh_cmd_shuf, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"sleep", sh_cmd_sleep, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"sort", sh_cmd_sort, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"source", sh_bi_source, "", SH_CMD_RAWARGS, NULL},
    {"stat", sh_cmd_stat, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"strings", sh_cmd_strings, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"sum", sh_cmd_sum, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"tac", sh_cmd_tac, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"tail", sh_cmd_tail, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"tee", sh_cmd_tee, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"test", sh_bi_test, "", SH_CMD_RAWARGS, NULL},
    {"timeout", sh_cmd_timeout, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"times", sh_bi_times, "", SH_CMD_RAWARGS, NULL},
    {"touch", sh_cmd_touch, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"tput", sh_cmd_tput, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"tr", sh_cmd_tr, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"trap", sh_bi_trap, "", SH_CMD_RAWARGS, NULL},
    {"true", sh_bi_colon, "", SH_CMD_RAWARGS, NULL},
    {"type", sh_bi_type, "afptP", 0, NULL},
    {"typeset", sh_bi_declare, "", SH_CMD_RAWARGS, NULL},
    {"umask", sh_bi_umask, "pS", 0, NULL},
    {"unalias", sh_bi_unalias, "a", 0, NULL},
    {"uname", sh_cmd_uname, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"unexpand", sh_cmd_unexpand, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"uniq", sh_cmd_uniq, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"unset", sh_bi_unset, "fnv", 0, NULL},
    {"wait", sh_bi_wait, "fnp:", 0, NULL},
    {"wc", sh_cmd_wc, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"wget", sh_cmd_wget, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"which", sh_cmd_which, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"whoami", sh_cmd_whoami, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"xargs", sh_cmd_xargs, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"xxd", sh_cmd_xxd, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"yes", sh_cmd_yes, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
    {"zsh", sh_bi_sh, "", SH_CMD_RAWARGS | SH_CMD_PROGRAM, NULL},
};

const sh_cmd *
sh_cmd_lookup(const char *name)
{
    size_t lo = 0, hi = sizeof sh_cmds / sizeof sh_cmds[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        // strcmp's order, its call saved where the first bytes decide:
        // every command looks itself up, some more than once.
        const char *t = sh_cmds[mid].c_name;
        int c = (int)(unsigned char)name[0] - (int)(unsigned char)t[0];
        if (c == 0)
            c = strcmp(name, t);
        if (c == 0)
            return &sh_cmds[mid];
        if (c < 0)
            hi = mid;
        else
            lo = mid + 1;
    }
    return NULL;
}

const char *
sh_cmd_name_at(size_t i)
{
    return i < sizeof sh_cmds / sizeof sh_cmds[0] ? sh_cmds[i].c_name : NULL;
}

const sh_cmd *
sh_cmd_at(size_t i)
{
    return i < sizeof sh_cmds / sizeof sh_cmds[0] ? &sh_cmds[i] : NULL;
}

size_t
sh_cmd_index(const sh_cmd *c)
{
    return (size_t)(c - sh_cmds);
}

_Static_assert(sizeof sh_cmds / sizeof sh_cmds[0] <= 256,
               "sh_state.st_disabled has a bit per row");

const sh_cmd *
sh_cmd_find(const sh_state *st, const char *name)
{
    const sh_cmd *c = sh_cmd_lookup(name);
    if (c == NULL)
        return NULL;
    size_t i = sh_cmd_index(c);
    return (st->st_disabled[i >> 6] >> (i & 63u)) & 1u ? NULL : c;
}

int
sh_cmd_err(sh_ctx *cx, const char *cmd, int status, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    sh_errf(cx, "%s: %s", cmd, buf);
    return status;
}

/* bash's usage lines ("NAME: usage: …"), printed after an option error
 * of the builtins that the shared parser reads. */
static const struct {
    const char *sy_name;
    const char *sy_line;
} sh_synopses[] = {
    {"alias", "alias [-p] [name[=value] ... ]"},
    {"builtin", "builtin [shell-builtin [arg ...]]"},
    {"caller", "caller [expr]"},
    {"cd", "cd [-L|[-P [-e]] [-@]] [dir]"},
    {"enable", "enable [-a] [-dnps] [-f filename] [name ...]"},
    {"hash", "hash [-lr] [-p pathname] [-dt] [name ...]"},
    {"pwd", "pwd [-LP]"},
    {"read", "read [-ers] [-a array] [-d delim] [-i text] [-n nchars] "
             "[-N nchars] [-p prompt] [-t timeout] [-u fd] [name ...]"},
    {"type", "type [-afptP] name [name ...]"},
    {"umask", "umask [-p] [-S] [mode]"},
    {"unalias", "unalias [-a] name [name ...]"},
    {"unset", "unset [-f] [-v] [-n] [name ...]"},
    {"wait", "wait [-fn] [-p var] [id ...]"},
};

/* After an option error: bash's usage line, when the command has one. */
static int
usage_line(sh_ctx *cx, const sh_cmd *c)
{
    for (size_t i = 0; i < sizeof sh_synopses / sizeof sh_synopses[0]; i++) {
        if (strcmp(sh_synopses[i].sy_name, c->c_name) != 0)
            continue;
        (void)sh_puts(cx, 2, c->c_name);
        (void)sh_puts(cx, 2, ": usage: ");
        (void)sh_puts(cx, 2, sh_synopses[i].sy_line);
        (void)sh_puts(cx, 2, "\n");
    }
    return 2;
}

static void
opt_set(sh_opts *o, char c)
{
    unsigned u = (unsigned char)c & 127u;
    o->o_set[u >> 6] |= (uint64_t)1 << (u & 63u);
}

int
sh_opts_parse(sh_ctx *cx, const sh_cmd *c, int argc, char **argv, sh_opts *o)
{
    memset(o, 0, sizeof *o);
    o->o_ind = 1;
    if (c->c_usage != NULL && argc >= 2 && strcmp(argv[1], "--help") == 0) {
        o->o_help = true;
        return 0;
    }
    if (c->c_mode & SH_CMD_RAWARGS)
        return 0;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0')
            break;
        // echo prints `--`: bash's echo reads no end of options.
        if (strcmp(a, "--") == 0 && (c->c_mode & SH_CMD_LENIENT))
            break;
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (c->c_mode & SH_CMD_LENIENT) {
            bool ok = true;
            for (const char *p = a + 1; *p && ok; p++)
                ok = strchr(c->c_flags, *p) != NULL && *p != ':';
            if (!ok)
                break;
        }
        for (const char *p = a + 1; *p; p++) {
            const char *f = (unsigned char)*p < 128 && *p != ':'
                                ? strchr(c->c_flags, *p)
                                : NULL;
            if (f == NULL) {
                sh_cmd_err(cx, c->c_name, 2, "-%c: invalid option", *p);
                return usage_line(cx, c);
            }
            opt_set(o, *p);
            if (f[1] == ':') {
                const char *arg =
                    p[1] ? p + 1 : (i + 1 < argc ? argv[++i] : NULL);
                if (arg == NULL) {
                    sh_cmd_err(cx, c->c_name, 2,
                               "-%c: option requires an argument", *p);
                    return usage_line(cx, c);
                }
                o->o_arg[(unsigned char)*p] = arg;
                break;
            }
        }
    }
    o->o_ind = i;
    return 0;
}
