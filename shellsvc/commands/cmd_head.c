/* SPDX-License-Identifier: Apache-2.0 */
/* head [-n N] [file...]: the first N lines (10 by default) of each operand. */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "sh_internal.h"

#define HEAD_DEFAULT_LINES 10

typedef struct head_run {
    sh_ctx *hd_cx;
    uintmax_t hd_lines; // lines to print per operand
    bool hd_headers;    // several operands: "==> name <==" before each
    bool hd_first;      // no header printed yet (no blank line before it)
    int hd_status;      // 0, 1 after a failed operand, or the stop status
} head_run;

/*
 * N of -n: optional '+', then decimal digits (GNU's spelling; a value
 * past UINTMAX_MAX means "everything"). GNU's "-n -N" (all but the last
 * N) is not supported and is reported as an invalid number.
 */
static bool
head_count(const char *s, uintmax_t *out)
{
    if (*s == '+')
        s++;
    if (*s == '\0')
        return false;
    uintmax_t v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return false;
        unsigned d = (unsigned)(*s - '0');
        v = v > (UINTMAX_MAX - d) / 10 ? UINTMAX_MAX : v * 10 + d;
    }
    *out = v;
    return true;
}

/*
 * Writes p to stdout. False when head must end now: the reader is gone
 * or the call's output is spent (sh_write already set the flow: end
 * quietly with its status), or fd 1 is unusable (after the message).
 */
static bool
head_emit(head_run *r, const char *p, size_t n)
{
    if (n == 0 || sh_write(r->hd_cx, 1, p, n) == SH_IO_OK)
        return true;
    if (r->hd_cx->cx_flow != SH_FLOW_NONE)
        r->hd_status = r->hd_cx->cx_status;
    else
        r->hd_status =
            sh_cmd_err(r->hd_cx, "head", 1, "write error: Bad file descriptor");
    return false;
}

/* GNU's header: a blank line between operands; "-" is standard input. */
static bool
head_header(head_run *r, const char *operand)
{
    if (!r->hd_headers)
        return true;
    const char *name = strcmp(operand, "-") == 0 ? "standard input" : operand;
    bool ok = (r->hd_first || head_emit(r, "\n", 1)) &&
              head_emit(r, "==> ", 4) && head_emit(r, name, strlen(name)) &&
              head_emit(r, " <==\n", 5);
    r->hd_first = false;
    return ok;
}

/*
 * Copies lines until hd_lines newlines have gone out, then returns
 * without reading further, so an endless writer upstream sees its reader
 * leave. A line over SH_LINE_MAX arrives in pieces: only a piece ending
 * in '\n' completes a line.
 */
static bool
head_copy(head_run *r, sh_input *in)
{
    for (uintmax_t done = 0; done < r->hd_lines;) {
        if (sh_check_stop(r->hd_cx)) {
            r->hd_status = r->hd_cx->cx_status;
            return false;
        }
        const char *line;
        size_t len;
        int rc = sh_input_line(in, &line, &len);
        if (rc < 0)
            r->hd_status = 1; // reported by the input; next operand
        if (rc <= 0)
            return true;
        if (!head_emit(r, line, len))
            return false;
        done += line[len - 1] == '\n';
    }
    return true;
}

/* One operand (NULL: stdin). False when head must stop (status set). */
static bool
head_operand(head_run *r, const char *operand)
{
    int st;
    sh_input *in = sh_input_open(r->hd_cx, "head", operand, &st);
    if (in == NULL) {
        r->hd_status = st;
        return st != 125; // 125: the PDP failed, nothing more may run
    }
    bool go = head_header(r, operand ? operand : "-") && head_copy(r, in);
    sh_input_close(in);
    return go;
}

/* Continues past a failed operand (status 1 at the end), like GNU. */
int
sh_cmd_head(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    int nops = argc - o->o_ind;
    head_run r = {.hd_cx = cx,
                  .hd_lines = HEAD_DEFAULT_LINES,
                  .hd_headers = nops > 1,
                  .hd_first = true};
    const char *n = o->o_arg['n'];
    if (sh_opt(o, 'n') && !head_count(n, &r.hd_lines))
        return sh_cmd_err(cx, "head", 1, "invalid number of lines: '%s'", n);
    for (int i = 0; i < (nops > 0 ? nops : 1); i++) {
        if (!head_operand(&r, nops > 0 ? argv[o->o_ind + i] : NULL))
            break;
    }
    return r.hd_status;
}
