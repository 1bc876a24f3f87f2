/* SPDX-License-Identifier: Apache-2.0 */
/* jq's output: results on the shell's fd 1 as jq 1.6 prints them (dump
 * flags, -r -j -a --seq), and its messages (debug, stderr, compile
 * errors) on the shell's fd 2, never the service's own stdio. */
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_jq.h"

#define JQ_OUT_BUF (64u * 1024u) // stdio buffer of the output FILE

/* The FILE's writes go to fd 1 through the shell (a pipe, a file the
 * kernel opened, the session's output). */
static ssize_t
out_write(void *cookie, const char *p, size_t n)
{
    jq_out *o = cookie;
    if (o->jo_failed)
        return -1;
    if (!sh_cmd_emit(o->jo_run, p, n)) {
        o->jo_failed = true;
        return -1;
    }
    return (ssize_t)n;
}

box_err
jq_out_open(jq_out *o, sh_cmd_run *r, unsigned options, int dumpopts)
{
    memset(o, 0, sizeof *o);
    o->jo_run = r;
    o->jo_options = options;
    o->jo_dumpopts = dumpopts;
    cookie_io_functions_t io = {.write = out_write};
    o->jo_f = fopencookie(o, "w", io);
    if (o->jo_f == NULL)
        return BOX_ENOMEM;
    if (setvbuf(o->jo_f, NULL, _IOFBF, JQ_OUT_BUF) != 0)
        return BOX_ENOMEM;
    return BOX_OK;
}

bool
jq_out_result(jq_out *o, jv result)
{
    FILE *f = o->jo_f;
    unsigned opt = o->jo_options;
    if ((opt & JQ_RAW_OUTPUT) && jv_get_kind(result) == JV_KIND_STRING) {
        if (opt & JQ_ASCII)
            jv_dumpf(jv_copy(result), f, JV_PRINT_ASCII);
        else
            fwrite(jv_string_value(result), 1,
                   (size_t)jv_string_length_bytes(jv_copy(result)), f);
    } else {
        if (opt & JQ_SEQ)
            fputc('\036', f);
        jv_dumpf(jv_copy(result), f, o->jo_dumpopts);
    }
    jv_free(result);
    if (!(opt & JQ_RAW_NO_LF))
        fputc('\n', f);
    if (opt & JQ_UNBUFFERED)
        fflush(f);
    return !o->jo_failed;
}

bool
jq_out_flush(jq_out *o)
{
    if (o->jo_f != NULL && !o->jo_failed)
        fflush(o->jo_f);
    return !o->jo_failed;
}

void
jq_out_close(jq_out *o)
{
    if (o->jo_f != NULL) {
        // Nothing more may reach fd 1: what a stopped run still held
        // is dropped (a finished run flushed it already).
        o->jo_failed = true;
        fclose(o->jo_f);
    }
    o->jo_f = NULL;
}

/* A value's text for a message: jv_dump_string with flags. */
static void
err_dump(jq_run *jr, jv v, int flags, bool line)
{
    sh_ctx *cx = jr->jr_run.cr_cx;
    jv s = jv_dump_string(v, flags);
    if (line)
        sh_errf(cx, "%s", jv_string_value(s));
    else
        (void)sh_write(cx, 2, jv_string_value(s),
                       (size_t)jv_string_length_bytes(jv_copy(s)));
    jv_free(s);
}

enum { MARK_NONE, MARK_STDERR, MARK_QUERY };

/* [mark, payload] from a wrapped builtin: its MARK_*. */
static int
debug_mark(jv v)
{
    if (jv_get_kind(v) != JV_KIND_ARRAY || jv_array_length(jv_copy(v)) != 2)
        return MARK_NONE;
    jv m = jv_array_get(jv_copy(v), 0);
    int r = MARK_NONE;
    if (jv_get_kind(m) == JV_KIND_STRING) {
        const char *s = jv_string_value(m);
        if (strcmp(s, JQ_MARK_STDERR) == 0)
            r = MARK_STDERR;
        else if (strcmp(s, JQ_MARK_QUERY) == 0)
            r = MARK_QUERY;
    }
    jv_free(m);
    return r;
}

void
jq_debug_cb(void *data, jv v)
{
    jq_run *jr = data;
    int mark = debug_mark(v);
    if (mark == MARK_NONE) {
        // jq 1.6: ["DEBUG:",v] with the output's flags, never pretty.
        err_dump(jr, JV_ARRAY(jv_string("DEBUG:"), v),
                 jr->jr_dumpopts & ~JV_PRINT_PRETTY, true);
        return;
    }
    jv payload = jv_array_get(v, 1);
    if (mark == MARK_STDERR) {
        // jq 1.6's stderr: the value compact, no newline.
        err_dump(jr, payload, 0, false);
        return;
    }
    double q =
        jv_get_kind(payload) == JV_KIND_NUMBER ? jv_number_value(payload) : -1;
    jv_free(payload);
    jr->jr_in.ji_query = q == 0 ? JQ_Q_FILENAME : JQ_Q_LINE;
}

void
jq_error_cb(void *data, jv msg)
{
    jq_run *jr = data;
    if (jr->jr_quiet_errors) {
        jv_free(msg);
        return;
    }
    msg = jq_format_error(msg);
    sh_errf(jr->jr_run.cr_cx, "%s", jv_string_value(msg));
    jv_free(msg);
}
