/* SPDX-License-Identifier: Apache-2.0 */
/* head [-n N] [file...]: the first N lines (10 by default) of each operand. */
#include <inttypes.h>
#include <stdbool.h>

#include "sh_internal.h"

#define HEAD_DEFAULT_LINES 10

typedef struct head_run {
    sh_cmd_run hd_run;  // first: the body gets &hd_run
    uintmax_t hd_lines; // lines to print per operand
} head_run;

/*
 * Copies lines until hd_lines newlines have gone out, then returns
 * without reading further, so an endless writer upstream sees its reader
 * leave. A line over SH_LINE_MAX arrives in pieces: only a piece ending
 * in '\n' completes a line.
 */
static bool
head_copy(sh_cmd_run *cr, sh_input *in, const char *name)
{
    (void)name;
    const head_run *r = (const head_run *)cr;
    for (uintmax_t done = 0; done < r->hd_lines;) {
        const char *line;
        size_t len;
        int rc = sh_cmd_line(cr, in, &line, &len);
        if (rc <= 0)
            return rc == 0;
        if (!sh_cmd_emit(cr, line, len))
            return false;
        done += line[len - 1] == '\n';
    }
    return true;
}

/*
 * Continues past a failed operand (status 1 at the end), like GNU. N may
 * carry a '+' (GNU's spelling); GNU's "-n -N" (all but the last N) is not
 * supported and is reported as an invalid number.
 */
int
sh_cmd_head(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    head_run r = {.hd_run = {.cr_cx = cx,
                             .cr_cmd = "head",
                             .cr_headers = argc - o->o_ind > 1},
                  .hd_lines = HEAD_DEFAULT_LINES};
    const char *n = o->o_arg['n'];
    char sign;
    if (sh_opt(o, 'n') && (!sh_cmd_count(n, &r.hd_lines, &sign) || sign == '-'))
        return sh_cmd_err(cx, "head", 1, "invalid number of lines: '%s'", n);
    return sh_cmd_operands(&r.hd_run, argc, argv, o, head_copy);
}
