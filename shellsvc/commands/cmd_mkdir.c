/* SPDX-License-Identifier: Apache-2.0 */
/* mkdir: placeholder until its implementation lands. */
#include "sh_internal.h"

int
sh_cmd_mkdir(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    return sh_cmd_err(cx, "mkdir", 1, "not implemented yet");
}
