/* SPDX-License-Identifier: Apache-2.0 */
/* cat [-n] [file...]: copies each operand (stdin for "-" or none) to fd 1. */
#include <inttypes.h>
#include <stdbool.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_internal.h"

#define CAT_CHUNK (64u * 1024u) // one read, one write
// -n output waits here for one write: a chunk of short lines, then a
// number prefix (a longer piece is written straight through).
#define CAT_OUT_MAX (2u * CAT_CHUNK + 64u)

/*
 * One run of cat. The line number and the "at the start of a line" flag
 * live here, not per operand: like GNU cat -n, numbering continues across
 * operands, and a file without a final newline runs on into the next
 * operand's first line without a new number.
 */
typedef struct cat_run {
    sh_ctx *ct_cx;
    uintmax_t ct_lineno; // -n: the last number printed
    bool ct_bol;         // -n: the next byte starts a line
    box_buf ct_out;      // -n: numbered output not yet written
    char *ct_chunk;      // plain copy buffer
    int ct_status;       // 0, 1 after a failed operand, or the stop status
} cat_run;

/*
 * Writes p to stdout. False when cat must end now: the reader is gone or
 * the call's output is spent (sh_write already set the flow: end quietly
 * with its status), or fd 1 is unusable (after the message).
 */
static bool
cat_emit(cat_run *r, const char *p, size_t n)
{
    if (n == 0 || sh_write(r->ct_cx, 1, p, n) == SH_IO_OK)
        return true;
    if (r->ct_cx->cx_flow != SH_FLOW_NONE)
        r->ct_status = r->ct_cx->cx_status;
    else
        r->ct_status =
            sh_cmd_err(r->ct_cx, "cat", 1, "write error: Bad file descriptor");
    return false;
}

static bool
cat_flush(cat_run *r)
{
    bool ok = cat_emit(r, r->ct_out.b_data, r->ct_out.b_len);
    r->ct_out.b_len = 0; // keeps the storage for the next lines
    return ok;
}

/* False (status set) when the call is being torn down: timeout, abort. */
static bool
cat_live(cat_run *r)
{
    if (!sh_check_stop(r->ct_cx))
        return true;
    r->ct_status = r->ct_cx->cx_status;
    return false;
}

static bool
cat_nomem(cat_run *r)
{
    r->ct_status = sh_cmd_err(r->ct_cx, "cat", 1, "out of memory");
    return false;
}

/* Copies the operand unchanged, a chunk at a time. */
static bool
cat_plain(cat_run *r, sh_input *in)
{
    for (;;) {
        if (!cat_live(r))
            return false;
        ssize_t n = sh_input_read(in, r->ct_chunk, CAT_CHUNK);
        if (n < 0) {
            r->ct_status = 1; // reported by the input; next operand
            return true;
        }
        if (n == 0)
            return true;
        if (!cat_emit(r, r->ct_chunk, (size_t)n))
            return false;
    }
}

/* One line (or piece of an over-long line) with its "%6d\t" prefix. */
static bool
cat_number_piece(cat_run *r, const char *p, size_t n)
{
    if (r->ct_bol &&
        box_buf_printf(&r->ct_out, "%6ju\t", ++r->ct_lineno) != BOX_OK)
        return cat_nomem(r);
    r->ct_bol = p[n - 1] == '\n';
    if (n > CAT_CHUNK) // a long piece is not worth copying
        return cat_flush(r) && cat_emit(r, p, n);
    if (box_buf_append(&r->ct_out, p, n) != BOX_OK)
        return cat_nomem(r);
    return r->ct_out.b_len < CAT_CHUNK || cat_flush(r);
}

/* -n: line by line; the output is flushed at the end of the operand so
 * it lands before any message about the next one. */
static bool
cat_numbered(cat_run *r, sh_input *in)
{
    for (;;) {
        if (!cat_live(r))
            return false;
        const char *line;
        size_t len;
        int rc = sh_input_line(in, &line, &len);
        if (rc < 0)
            r->ct_status = 1; // reported by the input; next operand
        if (rc <= 0)
            return cat_flush(r);
        if (!cat_number_piece(r, line, len))
            return false;
    }
}

/* One operand (NULL: stdin). False when cat must stop (status set). */
static bool
cat_operand(cat_run *r, const char *operand, bool number)
{
    int st;
    sh_input *in = sh_input_open(r->ct_cx, "cat", operand, &st);
    if (in == NULL) {
        r->ct_status = st;
        return st != 125; // 125: the PDP failed, nothing more may run
    }
    bool go = number ? cat_numbered(r, in) : cat_plain(r, in);
    sh_input_close(in);
    return go;
}

/* Continues past a failed operand (status 1 at the end), like GNU. */
int
sh_cmd_cat(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    bool number = sh_opt(o, 'n');
    cat_run r = {.ct_cx = cx, .ct_bol = true};
    box_buf_init(&r.ct_out, CAT_OUT_MAX);
    if (!number && (r.ct_chunk = box_alloc(CAT_CHUNK)) == NULL) {
        cat_nomem(&r);
        goto out;
    }
    int nops = argc - o->o_ind;
    for (int i = 0; i < (nops > 0 ? nops : 1); i++) {
        const char *operand = nops > 0 ? argv[o->o_ind + i] : NULL;
        if (!cat_operand(&r, operand, number))
            break;
    }
out:
    box_buf_reset(&r.ct_out);
    box_free(r.ct_chunk);
    return r.ct_status;
}
