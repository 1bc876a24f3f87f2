/* SPDX-License-Identifier: Apache-2.0 */
/* hexdump [options] <file>...: util-linux 2.38's hexdump with its
 * built-in formats (-b -c -C -d -o -x and the default); -e and -f format
 * strings are refused. The operands are one input, as od reads them. */
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_dump.h"
#include "sh_gopt.h"

#define HD_BLOCK 16 // every built-in format shows 16 bytes a line
#define HD_MAX_FMTS 32
#define HD_FLUSH (64u * 1024u)

/* ORDER HD_FMT: the built-in formats, by their option letters. */
typedef enum hd_fmt {
    HD_DEFAULT, // "%07.7_ax " 8/2 "%04x "
    HD_OCT1,    // -b: "%07.7_ax " 16/1 "%03o "
    HD_CHAR,    // -c: "%07.7_ax " 16/1 "%3_c "
    HD_CANON,   // -C: hex bytes in two groups, then |text|
    HD_DEC2,    // -d: "%07.7_ax " 8/2 "  %05u "
    HD_OCT2,    // -o: "%07.7_ax " 8/2 " %06o "
    HD_HEX2,    // -x: "%07.7_ax " 8/2 "   %04x "
} hd_fmt;

typedef struct hd_run {
    sh_cmd_run hr_run;
    hd_fmt hr_fmts[HD_MAX_FMTS];
    int hr_nfmts;
    bool hr_all; // -v
    box_buf hr_out;
} hd_run;

static const sh_gopt hd_opts[] = {
    {'b', "one-byte-octal", SH_GARG_NONE},
    {'c', "one-byte-char", SH_GARG_NONE},
    {'C', "canonical", SH_GARG_NONE},
    {'d', "two-bytes-decimal", SH_GARG_NONE},
    {'o', "two-bytes-octal", SH_GARG_NONE},
    {'x', "two-bytes-hex", SH_GARG_NONE},
    {'L', "color", SH_GARG_OPT},
    {'e', "format", SH_GARG_REQ},
    {'f', "format-file", SH_GARG_REQ},
    {'n', "length", SH_GARG_REQ},
    {'s', "skip", SH_GARG_REQ},
    {'v', "no-squeezing", SH_GARG_NONE},
    {'h', NULL, SH_GARG_NONE},
    {'V', NULL, SH_GARG_NONE},
    {0},
};

static const char hd_help[] =
    "\n"
    "Usage:\n"
    " hexdump [options] <file>...\n"
    "\n"
    "Display file contents in hexadecimal, decimal, octal, or ascii.\n"
    "\n"
    "Options:\n"
    " -b, --one-byte-octal      one-byte octal display\n"
    " -c, --one-byte-char       one-byte character display\n"
    " -C, --canonical           canonical hex+ASCII display\n"
    " -d, --two-bytes-decimal   two-byte decimal display\n"
    " -o, --two-bytes-octal     two-byte octal display\n"
    " -x, --two-bytes-hex       two-byte hexadecimal display\n"
    " -L, --color[=<mode>]      interpret color formatting specifiers\n"
    "                             colors are enabled by default\n"
    " -e, --format <format>     format string to be used for displaying data\n"
    " -f, --format-file <file>  file that contains format strings\n"
    " -n, --length <length>     interpret only length bytes of input\n"
    " -s, --skip <offset>       skip offset bytes from the beginning\n"
    " -v, --no-squeezing        output identical lines\n"
    "\n"
    " -h, --help                display this help\n"
    " -V, --version             display version\n"
    "\n"
    "Arguments:\n"
    " <length> and <offset> arguments may be followed by the suffixes for\n"
    "   GiB, TiB, PiB, EiB, ZiB, and YiB (the \"iB\" is optional)\n"
    "\n"
    "For more details see hexdump(1).\n";

static const sh_gopt_spec hd_spec = {
    .gs_cmd = "hexdump",
    .gs_opts = hd_opts,
    .gs_fail = 1,
    .gs_help = hd_help,
};

static bool
hd_oom(hd_run *r)
{
    r->hr_run.cr_status =
        sh_cmd_err(r->hr_run.cr_cx, "hexdump", 1, "out of memory");
    return false;
}

/* One field of a non-canonical format: its text (width characters), or
 * blanks when the block ran out before it. */
static void
hd_field(hd_fmt f, const unsigned char *p, size_t have, char *buf, size_t n)
{
    unsigned v = have > 1 ? (unsigned)(p[0] | p[1] << 8) : p[0];
    switch (f) {
    case HD_DEFAULT:
        snprintf(buf, n, "%04x", v);
        return;
    case HD_OCT1:
        snprintf(buf, n, "%03o", p[0]);
        return;
    case HD_DEC2:
        snprintf(buf, n, "  %05u", v);
        return;
    case HD_OCT2:
        snprintf(buf, n, " %06o", v);
        return;
    case HD_HEX2:
        snprintf(buf, n, "   %04x", v);
        return;
    case HD_CHAR: {
        static const char esc[] = "\0\a\b\t\n\v\f\r";
        static const char name[] = "0abtnvfr";
        unsigned char c = p[0];
        const char *e = c != 0 ? memchr(esc + 1, c, 7) : esc;
        if (e != NULL)
            snprintf(buf, n, "  \\%c", name[e - esc]);
        else if (c >= 32 && c < 127)
            snprintf(buf, n, "   %c", c);
        else
            snprintf(buf, n, " %03o", c);
        // "%3_c": the text in three columns after the format's space
        memmove(buf, buf + 1, strlen(buf));
        return;
    }
    case HD_CANON:
        buf[0] = '\0';
        return;
    }
}

/*
 * One format's line for the n bytes at p (a block of HD_BLOCK, zero
 * after n). As hexdump prints a repeated unit, the last field's
 * trailing space is left out, and fields past the data are blanks.
 */
static bool
hd_line(hd_run *r, hd_fmt f, uintmax_t off, const unsigned char *p, size_t n)
{
    box_buf *b = &r->hr_out;
    char line[256];
    size_t len = 0;
    if (f == HD_CANON) {
        len = (size_t)snprintf(line, sizeof line, "%08jx ", off);
        for (size_t i = 0; i < HD_BLOCK; i++) {
            if (i == 8) // "%02x" 8/1 ends without its space, then "  "
                len += (size_t)snprintf(line + len, 3, "  ");
            else if (i == 0)
                line[len++] = ' ';
            if (i < n)
                len += (size_t)snprintf(line + len, 4, "%02x", p[i]);
            else
                len += (size_t)snprintf(line + len, 4, "  ");
            if (i % 8 != 7)
                line[len++] = ' ';
        }
        line[len++] = ' ';
        line[len++] = ' ';
        line[len++] = '|';
        for (size_t i = 0; i < n; i++)
            line[len++] = p[i] >= 32 && p[i] < 127 ? (char)p[i] : '.';
        line[len++] = '|';
    } else {
        size_t size = f == HD_OCT1 || f == HD_CHAR ? 1 : 2;
        len = (size_t)snprintf(line, sizeof line, "%07jx", off);
        for (size_t i = 0; i < HD_BLOCK; i += size) {
            char field[16];
            hd_field(f, p + i, n > i ? n - i : 0, field, sizeof field);
            size_t fl = strlen(field);
            line[len++] = ' ';
            if (i < n)
                memcpy(line + len, field, fl);
            else
                memset(line + len, ' ', fl);
            len += fl;
        }
    }
    line[len++] = '\n';
    if (box_buf_append(b, line, len) != BOX_OK)
        return hd_oom(r);
    return true;
}

static bool
hd_flush(hd_run *r)
{
    bool ok = sh_cmd_emit(&r->hr_run, r->hr_out.b_data, r->hr_out.b_len);
    box_buf_truncate(&r->hr_out, 0);
    return ok;
}

/* Blocks of 16 bytes, each shown in every format; a run of equal full
 * blocks is one "*" unless -v; then the end offset, as wide as the last
 * format's. Nothing at all when no byte was shown. */
static int
hd_dump(hd_run *r, dump_src *src, uintmax_t skip, uintmax_t limit)
{
    sh_cmd_run *cr = &r->hr_run;
    uintmax_t left;
    if (!dump_src_skip(src, skip, &left))
        return cr->cr_status;
    uintmax_t off = skip - left;
    unsigned char cur[HD_BLOCK], prev[HD_BLOCK];
    bool have_prev = false, starred = false, any = false;
    for (;;) {
        size_t want = limit < HD_BLOCK ? (size_t)limit : HD_BLOCK;
        ssize_t n = want > 0 ? dump_src_fill(src, cur, want) : 0;
        if (n < 0)
            return cr->cr_status;
        if (n == 0)
            break;
        any = true;
        memset(cur + n, 0, HD_BLOCK - (size_t)n);
        limit -= (uintmax_t)n;
        if (n == HD_BLOCK && have_prev && !r->hr_all &&
            memcmp(cur, prev, HD_BLOCK) == 0) {
            if (!starred && box_buf_puts(&r->hr_out, "*\n") != BOX_OK)
                return hd_oom(r), cr->cr_status;
            starred = true;
        } else {
            starred = false;
            for (int i = 0; i < r->hr_nfmts; i++)
                if (!hd_line(r, r->hr_fmts[i], off, cur, (size_t)n))
                    return cr->cr_status;
        }
        memcpy(prev, cur, HD_BLOCK);
        have_prev = true;
        off += (uintmax_t)n;
        if (r->hr_out.b_len >= HD_FLUSH && !hd_flush(r))
            return cr->cr_status;
        if ((size_t)n < want)
            break;
    }
    if (any || off > 0) {
        bool wide = r->hr_fmts[r->hr_nfmts - 1] == HD_CANON;
        if (box_buf_printf(&r->hr_out, wide ? "%08jx\n" : "%07jx\n", off) !=
            BOX_OK)
            return hd_oom(r), cr->cr_status;
    }
    (void)hd_flush(r);
    return cr->cr_status;
}

/* -n/-s: util-linux's size syntax. 0, or 1 after its message. */
static int
hd_size_arg(sh_ctx *cx, const char *what, const char *arg, uintmax_t *out)
{
    int rc = arg[0] == '-' ? 2 : dump_count(arg, out);
    if (rc == 0)
        return 0;
    return sh_cmd_err(
        cx, "hexdump", 1, "failed to parse %s: '%s': %s", what, arg,
        rc == 3 ? "Numerical result out of range" : "Invalid argument");
}

int
sh_cmd_hexdump(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    hd_run r = {.hr_run = {.cr_cx = cx, .cr_cmd = "hexdump"}};
    box_buf_init(&r.hr_out, 1u << 20);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &hd_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    uintmax_t skip = 0, limit = UINTMAX_MAX;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        static const char letters[] = " bcCdox"; // ORDER HD_FMT
        const char *at = id > 0 && id < 128 ? strchr(letters + 1, id) : NULL;
        if (at != NULL) {
            if (r.hr_nfmts < HD_MAX_FMTS)
                r.hr_fmts[r.hr_nfmts++] = (hd_fmt)(at - letters);
            continue;
        }
        switch (id) {
        case 'e':
        case 'f':
            st = sh_cmd_err(cx, "hexdump", 1,
                            "-%c: format strings are not supported by the "
                            "box's hexdump; use -C, -x or od -t",
                            id);
            goto out;
        case 'n':
            if ((st = hd_size_arg(cx, "length", arg, &limit)) != 0)
                goto out;
            break;
        case 's':
            if ((st = hd_size_arg(cx, "offset", arg, &skip)) != 0)
                goto out;
            break;
        case 'v':
            r.hr_all = true;
            break;
        case 'L':
            break; // no colours in a C.UTF-8 pipe
        case 'h':
            (void)sh_puts(cx, 1, hd_help);
            goto out;
        case 'V':
            (void)sh_puts(cx, 1,
                          "hexdump (strands-shell) " BOX_VERSION
                          "\nThe box's own hexdump: every file it "
                          "touches is decided by policy.\n");
            goto out;
        default:
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (r.hr_nfmts == 0)
        r.hr_fmts[r.hr_nfmts++] = HD_DEFAULT;
    dump_src src;
    dump_src_init(&src, &r.hr_run, it.gi_nops, it.gi_ops);
    if (skip > 0 && it.gi_nops == 0) {
        // util-linux seeks standard input: a pipe cannot.
        int ist = 0;
        src.ds_in = sh_input_open(cx, "hexdump", NULL, &ist);
        src.ds_next = 1;
        if (src.ds_in != NULL && !sh_input_is_file(src.ds_in)) {
            st = sh_cmd_err(cx, "hexdump", 1, "stdin: Illegal seek");
            dump_src_close(&src);
            goto out;
        }
    }
    st = hd_dump(&r, &src, skip, limit);
    dump_src_close(&src);
    if (it.gi_nops > 0 && src.ds_failed == it.gi_nops && st != BOX_STATUS_FAULT)
        st = sh_cmd_err(cx, "hexdump", 1, "all input file arguments failed");
out:
    sh_gopt_free(&it);
    box_buf_reset(&r.hr_out);
    return st;
}
