/* SPDX-License-Identifier: Apache-2.0 */
/* basename [-az] [-s SUFFIX] NAME [SUFFIX] | NAME...: GNU coreutils 9.1. */
#include <stdbool.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_gopt.h"
#include "sh_internal.h"

static const sh_gopt basename_opts[] = {
    {'a', "multiple", SH_GARG_NONE},
    {'s', "suffix", SH_GARG_REQ},
    {'z', "zero", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec basename_spec = {
    .gs_cmd = "basename",
    .gs_opts = basename_opts,
    .gs_flags = SH_GOPT_F_INORDER, // GNU's "+as:z": `basename a -s` is two NAMEs
    .gs_fail = 1,
    .gs_help =
        "Usage: basename NAME [SUFFIX]\n"
        "  or:  basename OPTION... NAME...\n"
        "Print NAME with any leading directory components removed.\n"
        "If specified, also remove a trailing SUFFIX.\n"
        "\n"
        "  -a, --multiple       support multiple arguments and treat each as "
        "a NAME\n"
        "  -s, --suffix=SUFFIX  remove a trailing SUFFIX; implies -a\n"
        "  -z, --zero           end each output line with NUL, not newline\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

/* Writes the last component of name, without its trailing slashes and,
 * unless it is the whole of it, suffix. */
static bool
basename_one(sh_ctx *cx, const char *name, const char *suffix, bool nul)
{
    size_t start, len = strlen(name);
    sh_path_last(name, &start, &len);
    if (suffix != NULL && len > 0 && name[start] != '/') {
        size_t sl = strlen(suffix);
        if (sl < len && memcmp(name + start + len - sl, suffix, sl) == 0)
            len -= sl;
    }
    return sh_write(cx, 1, name + start, len) == SH_IO_OK &&
           sh_write(cx, 1, nul ? "" : "\n", 1) == SH_IO_OK;
}

int
sh_cmd_basename(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &basename_spec, argc, argv);
    bool multiple = false, nul = false;
    const char *suffix = NULL, *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'a') {
            multiple = true;
        } else if (id == 's') {
            multiple = true;
            suffix = arg;
        } else if (id == 'z') {
            nul = true;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops == 0) {
        st = sh_gopt_usage_error(&it, "missing operand");
        goto out;
    }
    if (!multiple && it.gi_nops > 2) {
        char *q = sh_gquote(it.gi_ops[2]);
        st = sh_gopt_usage_error(&it, "extra operand %s", q ? q : "");
        box_free(q);
        goto out;
    }
    if (!multiple) {
        basename_one(cx, it.gi_ops[0], it.gi_nops == 2 ? it.gi_ops[1] : NULL,
                     nul);
    } else {
        for (int i = 0; i < it.gi_nops; i++)
            if (!basename_one(cx, it.gi_ops[i], suffix, nul))
                break;
    }
out:
    sh_gopt_free(&it);
    return st;
}
