/* SPDX-License-Identifier: Apache-2.0 */
/* dirname [-z] NAME...: GNU coreutils 9.1. */
#include <stdbool.h>
#include <string.h>

#include "sh_gopt.h"
#include "sh_internal.h"

static const sh_gopt dirname_opts[] = {
    {'z', "zero", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec dirname_spec = {
    .gs_cmd = "dirname",
    .gs_opts = dirname_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: dirname [OPTION] NAME...\n"
        "Output each NAME with its last non-slash component and trailing "
        "slashes\n"
        "removed; if NAME contains no /'s, output '.' (meaning the current "
        "directory).\n"
        "\n"
        "  -z, --zero     end each output line with NUL, not newline\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

/* The length of name's directory part: up to its last component, less
 * the slashes before it, keeping a leading one. */
static size_t
dirname_len(const char *name)
{
    size_t start, len;
    sh_path_last(name, &start, &len);
    if (len == 0)
        return 0; // "": "."
    if (name[start] == '/')
        return 1; // a root: "/"
    size_t n = start;
    while (n > 1 && name[n - 1] == '/')
        n--;
    return n; // 0 without a slash: "."
}

int
sh_cmd_dirname(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &dirname_spec, argc, argv);
    bool nul = false;
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0)
        if (id == 'z')
            nul = true;
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops == 0) {
        st = sh_gopt_usage_error(&it, "missing operand");
        goto out;
    }
    for (int i = 0; i < it.gi_nops; i++) {
        const char *name = it.gi_ops[i];
        size_t n = dirname_len(name);
        if (n == 0) {
            name = ".";
            n = 1;
        }
        if (sh_write(cx, 1, name, n) != SH_IO_OK ||
            sh_write(cx, 1, nul ? "" : "\n", 1) != SH_IO_OK)
            break;
    }
out:
    sh_gopt_free(&it);
    return st;
}
