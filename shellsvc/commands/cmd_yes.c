/* SPDX-License-Identifier: Apache-2.0 */
/* yes [STRING]...: GNU coreutils 9.1, the line repeated until its reader
 * leaves. */
#include <stdbool.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

// Copies of the line gathered per write: one write call moves this much,
// so `yes | head` costs a few syscalls, not one per line.
#define YES_CHUNK (64u * 1024u)
// The line itself (its operands joined): a longer one is refused.
#define YES_LINE_MAX (256u << 20)

static const sh_gopt yes_opts[] = {
    {0}, // --help and --version only
};

static const sh_gopt_spec yes_spec = {
    .gs_cmd = "yes",
    .gs_opts = yes_opts,
    .gs_fail = 1,
    .gs_help = "Usage: yes [STRING]...\n"
               "  or:  yes OPTION\n"
               "Repeatedly output a line with all specified STRING(s), or "
               "'y'.\n"
               "\n"
               "      --help        display this help and exit\n"
               "      --version     output version information and exit\n",
};

/* The operands joined by spaces and a newline ("y\n" without any) into
 * line, then into b as many copies as fit a chunk (at least one). */
static box_err
yes_fill(box_buf *b, box_buf *line, int nops, char **ops)
{
    box_err e = BOX_OK;
    if (nops == 0)
        e = box_buf_puts(line, "y");
    for (int i = 0; i < nops && e == BOX_OK; i++) {
        if (i > 0)
            e = box_buf_putc(line, ' ');
        if (e == BOX_OK)
            e = box_buf_puts(line, ops[i]);
    }
    if (e == BOX_OK)
        e = box_buf_putc(line, '\n');
    // The copies come from line, never from b itself: b may move as it
    // grows.
    do {
        if (e == BOX_OK)
            e = box_buf_append(b, line->b_data, line->b_len);
    } while (e == BOX_OK && b->b_len + line->b_len <= YES_CHUNK);
    return e;
}

int
sh_cmd_yes(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &yes_spec, argc, argv);
    sh_cmd_run r = {.cr_cx = cx, .cr_cmd = "yes"};
    box_buf b, line;
    box_buf_init(&b, YES_LINE_MAX + YES_CHUNK);
    box_buf_init(&line, YES_LINE_MAX);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0)
        ; // no options of its own
    if (id == SH_GOPT_EXIT)
        goto out;
    box_err e = yes_fill(&b, &line, it.gi_nops, it.gi_ops);
    if (e != BOX_OK) {
        st = sh_cmd_err(cx, "yes", 1,
                        e == BOX_ETOOBIG ? "line too long" : "out of memory");
        goto out;
    }
    // Ends only when the reader leaves or the call is torn down; both
    // leave their status in cr_status (a reader that left: the status
    // bash shows for a writer killed by SIGPIPE, and no message).
    while (sh_cmd_emit(&r, b.b_data, b.b_len) && sh_cmd_live(&r))
        ;
    st = r.cr_status;
out:
    box_buf_reset(&line);
    box_buf_reset(&b);
    sh_gopt_free(&it);
    return st;
}
