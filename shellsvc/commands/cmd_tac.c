/* SPDX-License-Identifier: Apache-2.0 */
/* tac [-b] [-s SEP] [FILE]...: GNU coreutils 9.1, each operand's records
 * last first. -r (regex separators) is refused with a message: the
 * box has no GNU regex syntax to match it with. */
#include <stdbool.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define TAC_CHUNK (64u * 1024u) // read and written a chunk at a time
// An operand is held whole until its end: at most this much of it.
#define TAC_HOLD_MAX (256u << 20)

static const sh_gopt tac_opts[] = {
    {'b', "before", SH_GARG_NONE},
    {'r', "regex", SH_GARG_NONE},
    {'s', "separator", SH_GARG_REQ},
    {0},
};

static const sh_gopt_spec tac_spec = {
    .gs_cmd = "tac",
    .gs_opts = tac_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: tac [OPTION]... [FILE]...\n"
        "Write each FILE to standard output, last line first.\n"
        "\n"
        "With no FILE, or when FILE is -, read standard input.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short "
        "options too.\n"
        "  -b, --before             attach the separator before instead of "
        "after\n"
        "  -r, --regex              interpret the separator as a regular "
        "expression\n"
        "  -s, --separator=STRING   use STRING as the separator instead of "
        "newline\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

typedef struct tac_run {
    sh_cmd_run tc_run; // first: the body gets &tc_run
    const char *tc_sep;
    size_t tc_seplen; // 1 for "" (GNU: NUL is the separator then)
    bool tc_before;   // -b: a record starts with its separator
    box_buf tc_out;   // output not yet written
} tac_run;

static bool
tac_put(tac_run *r, const char *p, size_t n)
{
    if (r->tc_out.b_len + n > TAC_CHUNK && r->tc_out.b_len > 0) {
        bool ok = sh_cmd_emit(&r->tc_run, r->tc_out.b_data, r->tc_out.b_len);
        box_buf_truncate(&r->tc_out, 0);
        if (!ok)
            return false;
    }
    if (n > TAC_CHUNK)
        return sh_cmd_emit(&r->tc_run, p, n);
    if (box_buf_append(&r->tc_out, p, n) != BOX_OK) {
        r->tc_run.cr_status =
            sh_cmd_err(r->tc_run.cr_cx, "tac", 1, "out of memory");
        return false;
    }
    return true;
}

/* The start of the last separator lying wholly inside d[0, lim), or
 * SIZE_MAX. Searching only before the previous match is what makes
 * "xaaaaay" with -s aa split as GNU splits it. */
static size_t
tac_find_last(const tac_run *r, const char *d, size_t lim)
{
    size_t k = r->tc_seplen;
    for (size_t i = lim; i >= k; i--)
        if (d[i - k] == r->tc_sep[0] && memcmp(d + i - k, r->tc_sep, k) == 0)
            return i - k;
    return SIZE_MAX;
}

/* The records of d last first. Without -b a record runs up to the end
 * of its separator; with -b it starts at its separator. */
static bool
tac_reverse(tac_run *r, const char *d, size_t len)
{
    size_t end = len, lim = len, at;
    while ((at = tac_find_last(r, d, lim)) != SIZE_MAX) {
        size_t from = r->tc_before ? at : at + r->tc_seplen;
        if (!tac_put(r, d + from, end - from))
            return false;
        end = from;
        lim = at;
        if (!sh_cmd_live(&r->tc_run))
            return false;
    }
    return tac_put(r, d, end);
}

static bool
tac_body(sh_cmd_run *cr, sh_input *in, const char *name)
{
    tac_run *r = (tac_run *)cr;
    box_buf all;
    box_buf_init(&all, TAC_HOLD_MAX);
    bool go = false;
    char *buf = box_alloc(TAC_CHUNK);
    if (buf == NULL) {
        cr->cr_status = sh_cmd_err(cr->cr_cx, "tac", 1, "out of memory");
        goto out;
    }
    for (;;) {
        if (!sh_cmd_live(cr))
            goto out;
        ssize_t n = sh_input_read(in, buf, TAC_CHUNK);
        if (n < 0 && !sh_cmd_live(cr))
            goto out;
        if (n < 0) {
            cr->cr_status = 1; // reported by the input; GNU skips the file
            go = true;
            goto out;
        }
        if (n == 0)
            break;
        if (box_buf_append(&all, buf, (size_t)n) != BOX_OK) {
            cr->cr_status = sh_cmd_err(cr->cr_cx, "tac", 1,
                                       "%s: input too large to hold (limit "
                                       "%u MiB)",
                                       name, TAC_HOLD_MAX >> 20);
            goto out;
        }
    }
    // Each operand's output goes out before the next one is opened.
    go = tac_reverse(r, all.b_data, all.b_len) &&
         sh_cmd_emit(cr, r->tc_out.b_data, r->tc_out.b_len);
    box_buf_truncate(&r->tc_out, 0);
out:
    box_free(buf);
    box_buf_reset(&all);
    return go;
}

int
sh_cmd_tac(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    tac_run r = {.tc_run = {.cr_cx = cx,
                            .cr_cmd = "tac",
                            .cr_open_fmt = "failed to open %s for reading"},
                 .tc_sep = "\n",
                 .tc_seplen = 1};
    box_buf_init(&r.tc_out, TAC_CHUNK);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &tac_spec, argc, argv);
    bool regex = false;
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'b') {
            r.tc_before = true;
        } else if (id == 'r') {
            regex = true;
        } else if (id == 's') {
            r.tc_sep = arg;
            // GNU reads "" as the one-byte string NUL.
            r.tc_seplen = *arg == '\0' ? 1 : strlen(arg);
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (regex) {
        st = sh_cmd_err(cx, "tac", 1,
                        "-r (regular expression separators) is not "
                        "supported");
        goto out;
    }
    sh_opts ops = {.o_ind = 0};
    st = sh_cmd_operands(&r.tc_run, it.gi_nops, it.gi_ops, &ops, tac_body);
out:
    box_buf_reset(&r.tc_out);
    sh_gopt_free(&it);
    return st;
}
