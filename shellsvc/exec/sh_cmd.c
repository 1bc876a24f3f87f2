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
    {":", sh_bi_colon, "", SH_CMD_RAWARGS},
    {"[", sh_bi_test, "", SH_CMD_RAWARGS},
    {"break", sh_bi_break, "", SH_CMD_RAWARGS},
    {"cat", sh_cmd_cat, "n", 0},
    {"cd", sh_bi_cd, "LP", 0},
    {"command", sh_bi_command, "pvV", 0},
    {"continue", sh_bi_break, "", SH_CMD_RAWARGS},
    {"echo", sh_bi_echo, "neE", SH_CMD_LENIENT},
    {"eval", sh_bi_eval, "", SH_CMD_RAWARGS},
    {"exit", sh_bi_exit, "", SH_CMD_RAWARGS},
    {"export", sh_bi_export, "p", 0},
    {"false", sh_bi_false, "", SH_CMD_RAWARGS},
    {"grep", sh_cmd_grep, "EFHce:hilnqv", 0},
    {"head", sh_cmd_head, "n:", 0},
    {"local", sh_bi_local, "", 0},
    {"ls", sh_cmd_ls, "1al", 0},
    {"mkdir", sh_cmd_mkdir, "p", 0},
    {"printf", sh_bi_printf, "", SH_CMD_RAWARGS},
    {"pwd", sh_bi_pwd, "LP", 0},
    {"read", sh_bi_read, "rp:", 0},
    {"return", sh_bi_return, "", SH_CMD_RAWARGS},
    {"rm", sh_cmd_rm, "Rfr", 0},
    {"set", sh_bi_set, "", SH_CMD_RAWARGS},
    {"shift", sh_bi_shift, "", SH_CMD_RAWARGS},
    {"sleep", sh_cmd_sleep, "", 0},
    {"tail", sh_cmd_tail, "n:", 0},
    {"test", sh_bi_test, "", SH_CMD_RAWARGS},
    {"touch", sh_cmd_touch, "", 0},
    {"true", sh_bi_colon, "", SH_CMD_RAWARGS},
    {"type", sh_bi_type, "", 0},
    {"unset", sh_bi_unset, "fv", 0},
    {"wait", sh_bi_wait, "", 0},
    {"wc", sh_cmd_wc, "clw", 0},
};

const sh_cmd *
sh_cmd_lookup(const char *name)
{
    size_t lo = 0, hi = sizeof sh_cmds / sizeof sh_cmds[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(name, sh_cmds[mid].c_name);
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
    if (c->c_mode & SH_CMD_RAWARGS)
        return 0;
    int i = 1;
    for (; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] != '-' || a[1] == '\0')
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
            if (f == NULL)
                return sh_cmd_err(cx, c->c_name, 2, "-%c: invalid option", *p);
            opt_set(o, *p);
            if (f[1] == ':') {
                const char *arg =
                    p[1] ? p + 1 : (i + 1 < argc ? argv[++i] : NULL);
                if (arg == NULL)
                    return sh_cmd_err(cx, c->c_name, 2,
                                      "-%c: option requires an argument", *p);
                o->o_arg[(unsigned char)*p] = arg;
                break;
            }
        }
    }
    o->o_ind = i;
    return 0;
}
