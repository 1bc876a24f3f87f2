/* SPDX-License-Identifier: Apache-2.0 */
/* paste [-d LIST] [-s] [-z] [FILE]...: GNU coreutils 9.1, the lines of
 * the operands side by side (or each operand's lines on one, -s). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define PASTE_CHUNK (64u * 1024u)   // output gathered per write
#define PASTE_LINE_MAX (256u << 20) // one output line held whole
#define PASTE_MSG_MAX 1024u         // the LIST shown in a message

static const sh_gopt paste_opts[] = {
    {'d', "delimiters", SH_GARG_REQ},
    {'s', "serial", SH_GARG_NONE},
    {'z', "zero-terminated", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec paste_spec = {
    .gs_cmd = "paste",
    .gs_opts = paste_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: paste [OPTION]... [FILE]...\n"
        "Write lines consisting of the sequentially corresponding lines "
        "from\n"
        "each FILE, separated by TABs, to standard output.\n"
        "\n"
        "With no FILE, or when FILE is -, read standard input.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short "
        "options too.\n"
        "  -d, --delimiters=LIST   reuse characters from LIST instead of "
        "TABs\n"
        "  -s, --serial            paste one file at a time instead of in "
        "parallel\n"
        "  -z, --zero-terminated    line delimiter is NUL, not newline\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n",
};

typedef struct paste_run {
    sh_cmd_run pr_run;
    char *pr_delims; // one byte each; NUL is an empty delimiter (\0)
    size_t pr_ndelims;
    char pr_eol;
    sh_input *pr_stdin; // every "-" reads this one input, in turn
    box_buf pr_rec;     // the record just read
    box_buf pr_out;     // output not yet written
} paste_run;

/* ---- LIST ---- */

/* spec as GNU's c_maybe_quoting_style shows it: as it is, or in double
 * quotes with C escapes when it has a control character or a '"'. */
static void
paste_cquote(char *out, size_t size, const char *spec)
{
    bool plain = true;
    for (const unsigned char *p = (const unsigned char *)spec; *p; p++)
        if (*p < 0x20 || *p == 0x7f || *p == '"')
            plain = false;
    if (plain) {
        snprintf(out, size, "%s", spec);
        return;
    }
    static const char from[] = "\a\b\f\n\r\t\v\\\"", to[] = "abfnrtv\\\"";
    size_t n = 0;
    out[n++] = '"';
    for (const unsigned char *p = (const unsigned char *)spec;
         *p && n + 6 < size; p++) {
        const char *e = strchr(from, *p);
        if (e != NULL) {
            out[n++] = '\\';
            out[n++] = to[e - from];
        } else if (*p < 0x20 || *p == 0x7f) {
            n += (size_t)snprintf(out + n, size - n, "\\%03o", *p);
        } else {
            out[n++] = (char)*p;
        }
    }
    out[n++] = '"';
    out[n] = '\0';
}

/* LIST with its escapes (\0 empty, \b \f \n \r \t \v \\, any other
 * character itself) into pr_delims; "" is one empty delimiter. 0, or
 * 1 after GNU's message. */
static int
paste_delims(paste_run *r, const char *spec)
{
    size_t len = strlen(spec);
    r->pr_delims = box_alloc(len + 1);
    if (r->pr_delims == NULL)
        return sh_cmd_err(r->pr_run.cr_cx, "paste", 1, "out of memory");
    static const char from[] = "0bfnrtv", to[] = "\0\b\f\n\r\t\v";
    size_t n = 0;
    for (const char *p = spec; *p; p++) {
        if (*p != '\\') {
            r->pr_delims[n++] = *p;
            continue;
        }
        if (*++p == '\0') {
            char shown[PASTE_MSG_MAX];
            paste_cquote(shown, sizeof shown, spec);
            return sh_cmd_err(r->pr_run.cr_cx, "paste", 1,
                              "delimiter list ends with an unescaped "
                              "backslash: %s",
                              shown);
        }
        const char *e = strchr(from, *p);
        r->pr_delims[n++] = e != NULL ? to[e - from] : *p;
    }
    if (n == 0)
        r->pr_delims[n++] = '\0';
    r->pr_ndelims = n;
    return 0;
}

/* ---- output ---- */

static bool
paste_nomem(paste_run *r, box_err e)
{
    r->pr_run.cr_status =
        sh_cmd_err(r->pr_run.cr_cx, "paste", 1,
                   e == BOX_ETOOBIG ? "output line too long" : "out of memory");
    return false;
}

static bool
paste_put(paste_run *r, const char *p, size_t n)
{
    box_err e = box_buf_append(&r->pr_out, p, n);
    return e == BOX_OK || paste_nomem(r, e);
}

/* Delimiter i of LIST (cycled); an empty one puts nothing. */
static bool
paste_delim(paste_run *r, size_t i)
{
    char d = r->pr_delims[i % r->pr_ndelims];
    return d == '\0' || paste_put(r, &d, 1);
}

/* The line is done: its end, and a write once a chunk is gathered. */
static bool
paste_end_line(paste_run *r)
{
    if (!paste_put(r, &r->pr_eol, 1))
        return false;
    if (r->pr_out.b_len < PASTE_CHUNK)
        return true;
    bool ok = sh_cmd_emit(&r->pr_run, r->pr_out.b_data, r->pr_out.b_len);
    box_buf_truncate(&r->pr_out, 0);
    return ok && sh_cmd_live(&r->pr_run);
}

/* The next record of in into pr_rec: 1, 0 at its end (after a read
 * error too, status 1), -1 to stop. */
static int
paste_read(paste_run *r, sh_input *in)
{
    sh_cmd_run *cr = &r->pr_run;
    int rc = sh_check_stop(cr->cr_cx)
                 ? -1
                 : sh_input_record(in, r->pr_eol, &r->pr_rec);
    if (rc >= 0)
        return rc;
    if (!sh_cmd_live(cr))
        return -1;
    if (rc == -2) {
        cr->cr_status =
            sh_cmd_err(cr->cr_cx, "paste", 1, "input line too long");
        return -1;
    }
    cr->cr_status = 1; // reported by the input
    return 0;
}

/* Opens an operand; "-" (and no operand) is the one shared stdin. A
 * failure's status goes to cr_status; a success leaves it alone. */
static sh_input *
paste_open(paste_run *r, const char *op, bool *shared)
{
    sh_ctx *cx = r->pr_run.cr_cx;
    int st = 0;
    *shared = op == NULL || strcmp(op, "-") == 0;
    sh_input *in = r->pr_stdin;
    if (*shared && in == NULL) {
        in = r->pr_stdin = sh_input_open(cx, "paste", NULL, &st);
    } else if (!*shared) {
        char *q = sh_gquotef(op); // GNU names '' as ''
        in = q != NULL ? sh_input_open_as(cx, "paste", op, q, &st) : NULL;
        if (q == NULL)
            st = sh_cmd_err(cx, "paste", 1, "out of memory");
        box_free(q);
    }
    if (in == NULL)
        r->pr_run.cr_status = st;
    return in;
}

/* ---- the two modes ---- */

/* -s: each operand's records on one line; a missing operand is
 * reported and the rest go on. */
static void
paste_serial(paste_run *r, int nops, char **ops)
{
    for (int i = 0; i == 0 || i < nops; i++) {
        bool shared;
        sh_input *in = paste_open(r, nops > 0 ? ops[i] : NULL, &shared);
        if (in == NULL) {
            if (r->pr_run.cr_status == BOX_STATUS_FAULT)
                return; // the decision failed: nothing more may run
            continue;
        }
        int rc = 0;
        size_t k = 0;
        bool go = true;
        while (go && (rc = paste_read(r, in)) > 0) {
            go = (k == 0 || paste_delim(r, k - 1)) &&
                 paste_put(r, r->pr_rec.b_data, r->pr_rec.b_len);
            k++;
        }
        if (!shared)
            sh_input_close(in);
        if (!go || rc < 0 || !paste_end_line(r))
            return;
    }
}

/* Side by side: every operand is opened first (one that cannot be is
 * the end, as in GNU); a line is written while any operand has one. */
static void
paste_parallel(paste_run *r, int nops, char **ops)
{
    int n = nops > 0 ? nops : 1;
    sh_input **ins = box_alloc((size_t)n * sizeof *ins);
    bool *shared = box_alloc((size_t)n * sizeof *shared);
    int opened = 0;
    if (ins == NULL || shared == NULL) {
        paste_nomem(r, BOX_ENOMEM);
        goto out;
    }
    for (; opened < n; opened++) {
        ins[opened] =
            paste_open(r, nops > 0 ? ops[opened] : NULL, &shared[opened]);
        if (ins[opened] == NULL)
            goto out;
    }
    for (;;) {
        bool any = false;
        size_t mark = r->pr_out.b_len;
        for (int i = 0; i < n; i++) {
            // An operand at its end reads as empty lines; the shared
            // stdin keeps its place, so "- -" takes lines in turn.
            int rc = ins[i] != NULL ? paste_read(r, ins[i]) : 0;
            if (rc < 0)
                goto out;
            if (rc == 0 && ins[i] != NULL && !shared[i]) {
                sh_input_close(ins[i]);
                ins[i] = NULL;
            }
            if (rc > 0) {
                any = true;
                if (!paste_put(r, r->pr_rec.b_data, r->pr_rec.b_len))
                    goto out;
            }
            if (i + 1 < n && !paste_delim(r, (size_t)i))
                goto out;
        }
        if (!any) {
            box_buf_truncate(&r->pr_out, mark);
            break;
        }
        if (!paste_end_line(r))
            goto out;
    }
out:
    for (int i = 0; i < opened; i++)
        if (!shared[i])
            sh_input_close(ins[i]);
    box_free(ins);
    box_free(shared);
}

int
sh_cmd_paste(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    paste_run r = {.pr_run = {.cr_cx = cx, .cr_cmd = "paste"}, .pr_eol = '\n'};
    box_buf_init(&r.pr_rec, PASTE_LINE_MAX);
    box_buf_init(&r.pr_out, PASTE_LINE_MAX + PASTE_CHUNK);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &paste_spec, argc, argv);
    const char *arg, *list = "\t";
    bool serial = false;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'd')
            list = arg;
        else if (id == 's')
            serial = true;
        else if (id == 'z')
            r.pr_eol = '\0';
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if ((st = paste_delims(&r, list)) != 0)
        goto out;
    if (serial)
        paste_serial(&r, it.gi_nops, it.gi_ops);
    else
        paste_parallel(&r, it.gi_nops, it.gi_ops);
    // What was gathered goes out, even after a failure.
    if (r.pr_out.b_len > 0 && r.pr_run.cr_status != BOX_STATUS_FAULT &&
        sh_cmd_live(&r.pr_run))
        (void)sh_cmd_emit(&r.pr_run, r.pr_out.b_data, r.pr_out.b_len);
    st = r.pr_run.cr_status;
out:
    sh_input_close(r.pr_stdin);
    box_free(r.pr_delims);
    box_buf_reset(&r.pr_rec);
    box_buf_reset(&r.pr_out);
    sh_gopt_free(&it);
    return st;
}
