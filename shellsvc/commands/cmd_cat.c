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
    sh_cmd_run ct_run;   // first: the bodies get &ct_run
    uintmax_t ct_lineno; // -n: the last number printed
    bool ct_bol;         // -n: the next byte starts a line
    box_buf ct_out;      // -n: numbered output not yet written
    char *ct_chunk;      // plain copy buffer
} cat_run;

static bool
cat_flush(cat_run *r)
{
    bool ok = sh_cmd_emit(&r->ct_run, r->ct_out.b_data, r->ct_out.b_len);
    r->ct_out.b_len = 0; // keeps the storage for the next lines
    return ok;
}

static bool
cat_nomem(cat_run *r)
{
    r->ct_run.cr_status =
        sh_cmd_err(r->ct_run.cr_cx, "cat", 1, "out of memory");
    return false;
}

/* Copies the operand unchanged, a chunk at a time. */
static bool
cat_plain(sh_cmd_run *cr, sh_input *in, const char *name)
{
    (void)name;
    return sh_cmd_copy(cr, in, ((cat_run *)cr)->ct_chunk, CAT_CHUNK);
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
        return cat_flush(r) && sh_cmd_emit(&r->ct_run, p, n);
    if (box_buf_append(&r->ct_out, p, n) != BOX_OK)
        return cat_nomem(r);
    return r->ct_out.b_len < CAT_CHUNK || cat_flush(r);
}

/* -n: line by line; the output is flushed at the end of the operand so
 * it lands before any message about the next one. */
static bool
cat_numbered(sh_cmd_run *cr, sh_input *in, const char *name)
{
    (void)name;
    cat_run *r = (cat_run *)cr;
    for (;;) {
        const char *line;
        size_t len;
        int rc = sh_cmd_line(cr, in, &line, &len);
        if (rc < 0)
            return false;
        if (rc == 0)
            return cat_flush(r);
        if (!cat_number_piece(r, line, len))
            return false;
    }
}

/* Continues past a failed operand (status 1 at the end), like GNU. */
int
sh_cmd_cat(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    bool number = sh_opt(o, 'n');
    cat_run r = {.ct_run = {.cr_cx = cx, .cr_cmd = "cat"}, .ct_bol = true};
    box_buf_init(&r.ct_out, CAT_OUT_MAX);
    if (!number && (r.ct_chunk = box_alloc(CAT_CHUNK)) == NULL) {
        cat_nomem(&r);
        goto out;
    }
    sh_cmd_operands(&r.ct_run, argc, argv, o,
                    number ? cat_numbered : cat_plain);
out:
    box_buf_reset(&r.ct_out);
    box_free(r.ct_chunk);
    return r.ct_run.cr_status;
}
