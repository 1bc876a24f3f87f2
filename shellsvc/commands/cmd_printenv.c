/* SPDX-License-Identifier: Apache-2.0 */
/* printenv [-0] [VARIABLE]...: GNU coreutils 9.1 over the call's
 * exported variables (what a program's environment would hold). */
#include <string.h>

#include "box_buf.h"
#include "cmd_sys.h"
#include "sh_gopt.h"

static const sh_gopt printenv_opts[] = {
    {'0', "null", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec printenv_spec = {
    .gs_cmd = "printenv",
    .gs_opts = printenv_opts,
    .gs_fail = 2,
    .gs_help =
        "Usage: printenv [OPTION]... [VARIABLE]...\n"
        "Print the values of the specified environment VARIABLE(s).\n"
        "If no VARIABLE is specified, print name and value pairs for them "
        "all.\n"
        "\n"
        "  -0, --null     end each output line with NUL, not newline\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "NOTE: your shell may have its own version of printenv, which "
        "usually supersedes\n"
        "the version described here.  Please refer to your shell's "
        "documentation\n"
        "for details about the options it supports.\n",
};

/* Status 0 when every VARIABLE is set, 1 when one is not (a name with
 * '=' in it never is), 2 for a usage error. */
int
sh_cmd_printenv(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &printenv_spec, argc, argv);
    const char *arg;
    bool nul = false;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0)
        nul = nul || id == '0';
    if (id == SH_GOPT_EXIT)
        goto out;
    char end = nul ? '\0' : '\n';
    box_buf b;
    box_buf_init(&b, SH_VARS_MAX_BYTES + 4096);
    const sh_state *s = cx->cx_st;
    box_err acc = BOX_OK;
    if (it.gi_nops == 0) {
        for (size_t i = 0; i < s->st_nvars; i++)
            if (sh_sys_exported(&s->st_vars[i])) {
                SH_SYS_ACC(acc,
                           box_buf_printf(&b, "%s=%s", s->st_vars[i].v_name,
                                          s->st_vars[i].v_value));
                SH_SYS_ACC(acc, box_buf_putc(&b, end));
            }
    }
    int missing = 0;
    for (int i = 0; i < it.gi_nops; i++) {
        const char *v = strchr(it.gi_ops[i], '=') == NULL
                            ? sh_sys_getenv(cx, it.gi_ops[i])
                            : NULL;
        if (v == NULL) {
            missing = 1;
            continue;
        }
        SH_SYS_ACC(acc, box_buf_puts(&b, v));
        SH_SYS_ACC(acc, box_buf_putc(&b, end));
    }
    if (acc != BOX_OK) {
        sh_errf(cx, "printenv: memory exhausted");
        missing = 1;
    } else if (b.b_len > 0 && sh_write(cx, 1, b.b_data, b.b_len) != SH_IO_OK)
        missing = 1;
    box_buf_reset(&b);
    st = missing;
out:
    sh_gopt_free(&it);
    return st;
}
