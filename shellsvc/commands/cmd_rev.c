/* SPDX-License-Identifier: Apache-2.0 */
/* rev [FILE]...: util-linux 2.38 in C.UTF-8, each line's characters last
 * first (the newline stays at the end). */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define REV_CHUNK (64u * 1024u)   // output gathered per write
#define REV_LINE_MAX (256u << 20) // one line held whole: 256 MiB

static const sh_gopt rev_opts[] = {
    {'h', NULL, SH_GARG_NONE},
    {'V', NULL, SH_GARG_NONE},
    {0},
};

static const char rev_help[] = "Usage: rev [options] [file ...]\n"
                               "\n"
                               "Reverse lines characterwise.\n"
                               "\n"
                               "Options:\n"
                               " -h, --help     display this help\n"
                               " -V, --version  display version\n"
                               "\n"
                               "For more details see rev(1).\n";

static const sh_gopt_spec rev_spec = {
    .gs_cmd = "rev",
    .gs_opts = rev_opts,
    .gs_fail = 1,
    .gs_help = rev_help,
};

typedef struct rev_run {
    sh_cmd_run rv_run;
    box_buf rv_out;  // output not yet written
    box_buf rv_line; // a line that came in pieces
} rev_run;

/* The length of the UTF-8 character at s (n bytes left) as glibc's
 * decoder takes it: 1 to 6 bytes, shortest form only, no surrogates.
 * 0 when s is invalid; SIZE_MAX when it is a valid start cut off by
 * the end of s. */
static size_t
rev_char(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    if (c < 0x80)
        return 1;
    static const uint32_t least[] = {0,       0,        0x80,     0x800,
                                     0x10000, 0x200000, 0x4000000};
    size_t k = c >= 0xfc   ? 6
               : c >= 0xf8 ? 5
               : c >= 0xf0 ? 4
               : c >= 0xe0 ? 3
               : c >= 0xc0 ? 2
                           : 0;
    if (k == 0 || c >= 0xfe)
        return 0;
    uint32_t v = c & (0x7fu >> k);
    for (size_t i = 1; i < k; i++) {
        if (i == n)
            return SIZE_MAX;
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (s[i] & 0x3fu);
    }
    if (v < least[k] || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    return k;
}

static bool
rev_flush(rev_run *r)
{
    bool ok = sh_cmd_emit(&r->rv_run, r->rv_out.b_data, r->rv_out.b_len);
    box_buf_truncate(&r->rv_out, 0);
    return ok;
}

/*
 * One line (its '\n' included when it has one) reversed into the output.
 * Each character lands at its mirror place, so its bytes keep their
 * order. 1 when written, 0 after an invalid character (the line is not
 * written), -1 to stop.
 */
static int
rev_line(rev_run *r, const char *line, size_t len)
{
    bool nl = len > 0 && line[len - 1] == '\n';
    size_t n = len - nl;
    const unsigned char *s = (const unsigned char *)line;
    // A character cut off by the end of the input is dropped (glibc's
    // fgetws); cut off by the newline it is invalid.
    for (size_t i = 0, k; i < n; i += k) {
        k = rev_char(s + i, n - i);
        if (k == SIZE_MAX && !nl) {
            n = i;
            break;
        }
        if (k == 0 || k == SIZE_MAX)
            return 0;
    }
    if (r->rv_out.b_len + n + nl > REV_CHUNK && !rev_flush(r))
        return -1;
    size_t at = r->rv_out.b_len;
    if (box_buf_reserve(&r->rv_out, n + nl) != BOX_OK) {
        r->rv_run.cr_status =
            sh_cmd_err(r->rv_run.cr_cx, "rev", 1, "out of memory");
        return -1;
    }
    char *out = r->rv_out.b_data + at;
    for (size_t i = 0, k; i < n; i += k) {
        k = rev_char(s + i, n - i);
        memcpy(out + n - i - k, s + i, k);
    }
    if (nl)
        out[n] = '\n';
    r->rv_out.b_len = at + n + nl;
    r->rv_out.b_data[r->rv_out.b_len] = '\0';
    return 1;
}

/* Every line of one operand; the rest of it is skipped after an invalid
 * character, with util-linux's message (the lines before it counted). */
static bool
rev_body(rev_run *r, sh_input *in, const char *name)
{
    sh_cmd_run *cr = &r->rv_run;
    box_buf *held = &r->rv_line;
    box_buf_truncate(held, 0);
    size_t lineno = 0;
    for (;;) {
        const char *p;
        size_t n;
        int rc = sh_cmd_line(cr, in, &p, &n);
        if (rc < 0)
            return false;
        bool whole = rc == 0 || p[n - 1] == '\n';
        if (rc > 0 && (!whole || held->b_len > 0)) {
            // A longer line comes in pieces: held until its end.
            if (box_buf_append(held, p, n) != BOX_OK) {
                cr->cr_status =
                    sh_cmd_err(cr->cr_cx, "rev", 1, "%s: line too long", name);
                return false;
            }
            p = held->b_data;
            n = held->b_len;
        }
        if (rc == 0 && held->b_len == 0)
            break;
        if (!whole)
            continue;
        int done =
            rev_line(r, rc == 0 ? held->b_data : p, rc == 0 ? held->b_len : n);
        box_buf_truncate(held, 0);
        if (done < 0)
            return false;
        if (done == 0) {
            cr->cr_status = sh_cmd_err(
                cr->cr_cx, "rev", 1,
                "%s: %zu: Invalid or incomplete multibyte or wide character",
                name, lineno);
            break;
        }
        lineno++;
        if (rc == 0)
            break;
    }
    return rev_flush(r);
}

/* Each FILE by its name ("-" is a file too, as util-linux opens them
 * all with fopen), or stdin, named "stdin" in messages. */
static int
rev_files(rev_run *r, int nops, char **ops)
{
    sh_cmd_run *cr = &r->rv_run;
    for (int i = 0; i == 0 || i < nops; i++) {
        const char *name = nops > 0 ? ops[i] : "stdin";
        const char *path = nops > 0 ? ops[i] : NULL;
        char *path_dot = NULL, *shown = NULL;
        if (path != NULL && strcmp(path, "-") == 0)
            path = path_dot = box_asprintf("./-");
        if (path != NULL)
            shown = box_asprintf("cannot open %s", name);
        int st = 0;
        sh_input *in =
            (nops > 0 && (path == NULL || shown == NULL))
                ? NULL
                : sh_input_open_as(cr->cr_cx, "rev", path, shown, &st);
        if (in == NULL && st == 0)
            st = sh_cmd_err(cr->cr_cx, "rev", 1, "out of memory");
        box_free(path_dot);
        box_free(shown);
        if (in == NULL) {
            cr->cr_status = st;
            if (st == BOX_STATUS_FAULT)
                break; // the decision failed: nothing more may run
            continue;
        }
        bool go = rev_body(r, in, name);
        sh_input_close(in);
        if (!go)
            break;
    }
    return cr->cr_status;
}

int
sh_cmd_rev(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    rev_run r = {.rv_run = {.cr_cx = cx, .cr_cmd = "rev"}};
    box_buf_init(&r.rv_out, REV_CHUNK + REV_LINE_MAX);
    box_buf_init(&r.rv_line, REV_LINE_MAX);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &rev_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'h') {
            (void)sh_puts(cx, 1, rev_help);
            goto out;
        }
        if (id == 'V') {
            (void)sh_puts(cx, 1,
                          "rev (strands-shell) " BOX_VERSION "\nThe box's "
                          "own rev: every file it touches is decided by "
                          "policy.\n");
            goto out;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    st = rev_files(&r, it.gi_nops, it.gi_ops);
out:
    box_buf_reset(&r.rv_line);
    box_buf_reset(&r.rv_out);
    sh_gopt_free(&it);
    return st;
}
