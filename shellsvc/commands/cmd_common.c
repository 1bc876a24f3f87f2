/* SPDX-License-Identifier: Apache-2.0 */
/* What cat, head and tail share: -n numbers, operands, output to fd 1. */
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_gopt.h"
#include "sh_internal.h"

/*
 * N of -n, GNU's spelling: an optional '+' or '-' (returned in *sign,
 * else 0), then decimal digits (a value past UINTMAX_MAX means
 * "everything"). What the sign means is the command's business.
 */
bool
sh_cmd_count(const char *s, uintmax_t *out, char *sign)
{
    *sign = *s == '+' || *s == '-' ? *s++ : 0;
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

/* GNU's multiplier suffixes: b (512), K k M G T P E Z Y (1024^n, or
 * 1000^n followed by B, 1024^n by iB). False for any other tail. */
static bool
gnu_suffix(const char *s, uintmax_t *mul)
{
    static const char powers[] = "KMGTPEZY";
    *mul = 1;
    if (*s == '\0')
        return true;
    if (s[0] == 'b' && s[1] == '\0') {
        *mul = 512;
        return true;
    }
    char c = s[0] == 'k' ? 'K' : s[0] == 'm' ? 'M' : s[0];
    const char *p = strchr(powers, c);
    if (c == '\0' || p == NULL)
        return false;
    unsigned base = 1024;
    if (strcmp(s + 1, "B") == 0)
        base = 1000;
    else if (s[1] != '\0' && strcmp(s + 1, "iB") != 0)
        return false;
    uintmax_t m = 1;
    for (long i = 0; i <= p - powers; i++) {
        if (m > UINTMAX_MAX / base) {
            *mul = 0; // too large
            return true;
        }
        m *= base;
    }
    *mul = m;
    return true;
}

int
sh_cmd_gnu_count(sh_ctx *cx, const char *cmd, bool bytes, const char *digits,
                 const char *shown, uintmax_t *out)
{
    const char *what = bytes ? "bytes" : "lines";
    const char *p = digits;
    uintmax_t v = 0, mul = 1;
    bool big = false, any = false;
    for (; *p >= '0' && *p <= '9'; p++, any = true) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINTMAX_MAX - d) / 10)
            big = true;
        else
            v = v * 10 + d;
    }
    char *q = sh_gquote(shown);
    int st = 0;
    if (!any || !gnu_suffix(p, &mul))
        st = sh_cmd_err(cx, cmd, 1, "invalid number of %s: %s", what,
                        q ? q : shown);
    else if (big || mul == 0 || (v != 0 && mul > UINTMAX_MAX / v))
        st = sh_cmd_err(cx, cmd, 1,
                        "invalid number of %s: %s: Value too large for "
                        "defined data type",
                        what, q ? q : shown);
    else
        *out = v * mul;
    box_free(q);
    return st;
}

void
sh_path_last(const char *name, size_t *start, size_t *len)
{
    size_t end = strlen(name);
    while (end > 1 && name[end - 1] == '/')
        end--;
    if (end == 1 && name[0] == '/') {
        *start = 0;
        *len = 1;
        return;
    }
    size_t s = end;
    while (s > 0 && name[s - 1] != '/')
        s--;
    *start = s;
    *len = end - s;
}

/*
 * Writes p to stdout. False when the run must end now: the reader is
 * gone or the call's output is spent (sh_write already set the flow: end
 * quietly with its status), or fd 1 is unusable (after the message).
 */
bool
sh_cmd_emit(sh_cmd_run *r, const char *p, size_t n)
{
    if (n == 0 || sh_write(r->cr_cx, 1, p, n) == SH_IO_OK)
        return true;
    if (r->cr_cx->cx_flow != SH_FLOW_NONE)
        r->cr_status = r->cr_cx->cx_status;
    else
        r->cr_status = sh_cmd_err(r->cr_cx, r->cr_cmd, 1,
                                  "write error: Bad file descriptor");
    return false;
}

bool
sh_cmd_live(sh_cmd_run *r)
{
    if (!sh_check_stop(r->cr_cx))
        return true;
    r->cr_status = r->cr_cx->cx_status;
    return false;
}

int
sh_cmd_line(sh_cmd_run *r, sh_input *in, const char **line, size_t *len)
{
    if (!sh_cmd_live(r))
        return -1;
    int rc = sh_input_line(in, line, len);
    if (rc < 0 && !sh_cmd_live(r))
        return -1; // the wait for input ended with the call
    if (rc < 0)
        r->cr_status = 1; // reported by the input; next operand
    return rc < 0 ? 0 : rc;
}

bool
sh_cmd_copy(sh_cmd_run *r, sh_input *in, char *buf, size_t size)
{
    for (;;) {
        if (!sh_cmd_live(r))
            return false;
        ssize_t n = sh_input_read(in, buf, size);
        if (n < 0 && !sh_cmd_live(r))
            return false; // the wait for input ended with the call
        if (n < 0)
            r->cr_status = 1; // reported by the input; next operand
        if (n <= 0)
            return true;
        if (!sh_cmd_emit(r, buf, (size_t)n))
            return false;
    }
}

bool
sh_cmd_hold(sh_cmd_run *r, sh_input *in, const char *name, char *chunk,
            size_t size, box_buf *hold, uintmax_t keep_last)
{
    for (;;) {
        if (!sh_cmd_live(r))
            return false;
        ssize_t n = sh_input_read(in, chunk, size);
        if (n < 0 && !sh_cmd_live(r))
            return false; // the wait for input ended with the call
        if (n < 0)
            r->cr_status = 1; // reported by the input
        if (n <= 0)
            return true;
        if (box_buf_append(hold, chunk, (size_t)n) != BOX_OK) {
            r->cr_status = sh_cmd_err(r->cr_cx, r->cr_cmd, 1,
                                      "%s: input too large to hold (limit "
                                      "%zu MiB)",
                                      name, hold->b_max >> 20);
            return false;
        }
        // Only the last keep_last bytes matter: drop the rest now and then.
        if (hold->b_len > keep_last && hold->b_len - keep_last >= size) {
            size_t drop = hold->b_len - (size_t)keep_last;
            memmove(hold->b_data, hold->b_data + drop, hold->b_len - drop);
            box_buf_truncate(hold, hold->b_len - drop);
        }
    }
}

/* GNU's header: a blank line between operands; "-" is standard input. */
static bool
cmd_header(sh_cmd_run *r, const char *name)
{
    if (!r->cr_headers)
        return true;
    if (strcmp(name, "-") == 0)
        name = "standard input";
    bool ok = (!r->cr_headed || sh_cmd_emit(r, "\n", 1)) &&
              sh_cmd_emit(r, "==> ", 4) && sh_cmd_emit(r, name, strlen(name)) &&
              sh_cmd_emit(r, " <==\n", 5);
    r->cr_headed = true;
    return ok;
}

/* One operand (NULL: stdin). False when the run must stop (status set). */
static bool
cmd_operand(sh_cmd_run *r, const char *operand, sh_cmd_body body)
{
    int st;
    char *shown = NULL;
    if (r->cr_open_fmt != NULL && operand != NULL) {
        char *q = sh_gquoteaf(operand);
        shown = q != NULL ? box_asprintf(r->cr_open_fmt, q) : NULL;
        box_free(q);
    }
    sh_input *in =
        sh_input_open_as(r->cr_cx, r->cr_cmd, operand, shown, &st);
    box_free(shown);
    if (in == NULL) {
        r->cr_status = st;
        return st != BOX_STATUS_FAULT; // the PDP failed, nothing more may run
    }
    const char *name = operand ? operand : "-";
    bool go = cmd_header(r, name) && body(r, in, name);
    sh_input_close(in);
    return go;
}

/* Continues past a failed operand (status 1 at the end), like GNU. */
int
sh_cmd_operands(sh_cmd_run *r, int argc, char **argv, const sh_opts *o,
                sh_cmd_body body)
{
    int nops = argc - o->o_ind;
    for (int i = 0; i < (nops > 0 ? nops : 1); i++) {
        if (!cmd_operand(r, nops > 0 ? argv[o->o_ind + i] : NULL, body))
            break;
    }
    return r->cr_status;
}

int
sh_cmd_output_begin(sh_ctx *cx, const char *what, const char *path,
                    sh_stream **saved)
{
    int st;
    sh_stream *s =
        sh_stream_open(cx, what, path, NULL, O_WRONLY | O_CREAT | O_TRUNC, &st);
    if (s == NULL)
        return st;
    *saved = cx->cx_fd[1];
    cx->cx_fd[1] = s;
    return 0;
}

void
sh_cmd_output_end(sh_ctx *cx, sh_stream *saved)
{
    sh_stream_unref(cx->cx_fd[1]);
    cx->cx_fd[1] = saved;
}

void
sh_cmd_quote_name(char *buf, size_t size, const char *name)
{
    char *q = sh_gquoteaf(name);
    snprintf(buf, size, "%s", q != NULL ? q : name);
    box_free(q);
}
