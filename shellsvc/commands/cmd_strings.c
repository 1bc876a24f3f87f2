/* SPDX-License-Identifier: Apache-2.0 */
/* strings [option(s)] [file(s)]: GNU binutils 2.40's strings on whole
 * files (-a, its default): runs of printable characters, 7-bit (-e s) or
 * 8-bit (-e S). The 16- and 32-bit encodings are refused. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_gopt.h"
#include "sh_internal.h"

#define ST_CHUNK (64u * 1024u)

enum {
    ST_O_UNICODE = SH_GOPT_LONG_ONLY,
};

static const sh_gopt st_opts[] = {
    {'a', "all", SH_GARG_NONE},
    {'d', "data", SH_GARG_NONE},
    {'f', "print-file-name", SH_GARG_NONE},
    {'n', "bytes", SH_GARG_REQ},
    {'t', "radix", SH_GARG_REQ},
    {'w', "include-all-whitespace", SH_GARG_NONE},
    {'o', NULL, SH_GARG_NONE},
    {'T', "target", SH_GARG_REQ},
    {'e', "encoding", SH_GARG_REQ},
    {'U', "unicode", SH_GARG_REQ},
    {'s', "output-separator", SH_GARG_REQ},
    {'h', NULL, SH_GARG_NONE},
    {'v', NULL, SH_GARG_NONE},
    {'V', NULL, SH_GARG_NONE},
    SH_GOPT_DIGIT_ROWS,
    {0},
};

#define ST_USAGE                                                               \
    "Usage: strings [option(s)] [file(s)]\n"                                   \
    " Display printable strings in [file(s)] (stdin by default)\n"             \
    " The options are:\n"                                                      \
    "  -a - --all                Scan the entire file, not just the data "     \
    "section [default]\n"                                                      \
    "  -d --data                 Only scan the data sections in the file\n"    \
    "  -f --print-file-name      Print the name of the file before each "      \
    "string\n"                                                                 \
    "  -n <number>               Locate & print any sequence of at least "     \
    "<number>\n"                                                               \
    "    --bytes=<number>         displayable characters.  (The default is "   \
    "4).\n"                                                                    \
    "  -t --radix={o,d,x}        Print the location of the string in base 8, " \
    "10 or 16\n"                                                               \
    "  -w --include-all-whitespace Include all whitespace as valid string "    \
    "characters\n"                                                             \
    "  -o                        An alias for --radix=o\n"                     \
    "  -T --target=<BFDNAME>     Specify the binary file format\n"             \
    "  -e --encoding={s,S,b,l,B,L} Select character size and endianness:\n"    \
    "                            s = 7-bit, S = 8-bit, {b,l} = 16-bit, {B,L} " \
    "= 32-bit\n"                                                               \
    "  --unicode={default|show|invalid|hex|escape|highlight}\n"                \
    "  -U {d|s|i|x|e|h}          Specify how to treat UTF-8 encoded unicode "  \
    "characters\n"                                                             \
    "  -s --output-separator=<string> String used to separate strings in "     \
    "output.\n"                                                                \
    "  @<file>                   Read options from <file>\n"                   \
    "  -h --help                 Display this information\n"                   \
    "  -v -V --version           Print the program's version number\n"         \
    "strings: supported targets: elf64-x86-64 elf32-i386 elf32-iamcu "         \
    "elf32-x86-64 pei-i386 pe-x86-64 pei-x86-64 elf64-little elf64-big "       \
    "elf32-little elf32-big pe-bigobj-x86-64 pe-i386 pdb srec symbolsrec "     \
    "verilog tekhex binary ihex plugin"

// sh_gopt adds the newline after gs_usage.
static const char st_usage_bare[] = ST_USAGE;
static const char st_usage[] = ST_USAGE "\n";
static const char st_help[] =
    ST_USAGE "\nReport bugs to <https://sourceware.org/bugzilla/>\n";

static const sh_gopt_spec st_spec = {
    .gs_cmd = "strings",
    .gs_opts = st_opts,
    .gs_flags = SH_GOPT_F_NOTRY,
    .gs_fail = 1,
    .gs_usage = st_usage_bare,
    .gs_help = st_help,
};

typedef struct st_run {
    sh_cmd_run sr_run;
    unsigned long sr_min; // -n
    char sr_radix;        // -t: 'o' 'd' 'x', or 0
    bool sr_eight;        // -e S
    bool sr_space;        // -w
    bool sr_names;        // -f
    const char *sr_sep;   // -s
    box_buf sr_out;
    box_buf sr_run_text; // the run so far, until it is sr_min long
} st_run;

static bool
st_printable(const st_run *r, unsigned char c)
{
    if ((c >= 32 && c < 127) || c == '\t')
        return true;
    if (r->sr_eight && c >= 128)
        return true;
    return r->sr_space && (c == '\n' || c == '\r' || c == '\f' || c == '\v');
}

static bool
st_flush(st_run *r)
{
    bool ok = sh_cmd_emit(&r->sr_run, r->sr_out.b_data, r->sr_out.b_len);
    box_buf_truncate(&r->sr_out, 0);
    return ok;
}

/* The name and offset before a string that is long enough, then what
 * the run held. */
static box_err
st_start(st_run *r, const char *shown, uintmax_t at)
{
    box_err e = BOX_OK;
    if (r->sr_names)
        e = box_buf_printf(&r->sr_out, "%s: ", shown);
    if (e == BOX_OK && r->sr_radix != 0)
        e = box_buf_printf(&r->sr_out,
                           r->sr_radix == 'o'   ? "%7jo "
                           : r->sr_radix == 'd' ? "%7ju "
                                                : "%7jx ",
                           at);
    if (e == BOX_OK)
        e = box_buf_append(&r->sr_out, r->sr_run_text.b_data,
                           r->sr_run_text.b_len);
    return e;
}

/* Every string of one file; shown is its name for -f. */
static bool
st_scan(st_run *r, sh_input *in, const char *shown, char *chunk)
{
    sh_cmd_run *cr = &r->sr_run;
    uintmax_t pos = 0, start = 0;
    bool out = false; // the current run is long enough: being written
    box_buf_truncate(&r->sr_run_text, 0);
    for (;;) {
        if (!sh_cmd_live(cr))
            return false;
        ssize_t n = sh_input_read(in, chunk, ST_CHUNK);
        if (n < 0 && !sh_cmd_live(cr))
            return false;
        if (n < 0)
            cr->cr_status = 1; // reported by the input
        if (n <= 0)
            break;
        for (ssize_t i = 0; i < n; i++, pos++) {
            unsigned char c = (unsigned char)chunk[i];
            box_err e = BOX_OK;
            if (!st_printable(r, c)) {
                if (out)
                    e = box_buf_puts(&r->sr_out, r->sr_sep);
                out = false;
                box_buf_truncate(&r->sr_run_text, 0);
            } else if (out) {
                e = box_buf_putc(&r->sr_out, (char)c);
            } else {
                if (r->sr_run_text.b_len == 0)
                    start = pos;
                e = box_buf_putc(&r->sr_run_text, (char)c);
                if (e == BOX_OK && r->sr_run_text.b_len >= r->sr_min) {
                    e = st_start(r, shown, start);
                    out = true;
                    box_buf_truncate(&r->sr_run_text, 0);
                }
            }
            if (e != BOX_OK) {
                cr->cr_status =
                    sh_cmd_err(cr->cr_cx, "strings", 1, "out of memory");
                return false;
            }
        }
        if (r->sr_out.b_len >= ST_CHUNK && !st_flush(r))
            return false;
    }
    if (out && box_buf_puts(&r->sr_out, r->sr_sep) != BOX_OK) {
        cr->cr_status = sh_cmd_err(cr->cr_cx, "strings", 1, "out of memory");
        return false;
    }
    return st_flush(r);
}

/* One FILE: binutils' own words for a missing file or a directory, else
 * opened through the kernel (a denial is reported there). */
static bool
st_file(st_run *r, const char *name, char *chunk)
{
    sh_cmd_run *cr = &r->sr_run;
    sh_ctx *cx = cr->cr_cx;
    sh_kernel_stat ks;
    sh_kernel_result kr = {0};
    int err =
        sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, name, &ks, &kr);
    // A denial or a fault is left to the open, which reports it.
    bool decided =
        kr.kr_outcome != SH_KR_DENIED && kr.kr_outcome != SH_KR_FAULT;
    sh_kernel_result_clear(&kr);
    if (err == ENOENT && decided) {
        cr->cr_status =
            sh_cmd_err(cx, "strings", 1, "'%s': No such file", name);
        return true;
    }
    if (err == 0 && decided && S_ISDIR(ks.ks_mode)) {
        cr->cr_status =
            sh_cmd_err(cx, "strings", 1, "Warning: '%s' is a directory", name);
        return true;
    }
    int st = 0;
    sh_input *in = sh_input_open(cx, "strings", name, &st);
    if (in == NULL) {
        cr->cr_status = st;
        return st != BOX_STATUS_FAULT;
    }
    bool go = st_scan(r, in, name, chunk);
    sh_input_close(in);
    return go;
}

/* -n's number as binutils reads it (strtoul, base 0). */
static int
st_min_arg(sh_gopt_iter *it, st_run *r, const char *arg)
{
    char *end = NULL;
    errno = 0;
    unsigned long v = strtoul(arg, &end, 0);
    if (end == arg || *end != '\0')
        return sh_cmd_err(it->gi_cx, "strings", 1,
                          "invalid integer argument %s", arg);
    if (v == 0) {
        return sh_cmd_err(it->gi_cx, "strings", 1,
                          "invalid minimum string length 0");
    }
    r->sr_min = v;
    return 0;
}

int
sh_cmd_strings(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    st_run r = {.sr_run = {.cr_cx = cx, .cr_cmd = "strings"},
                .sr_min = 4,
                .sr_sep = "\n"};
    box_buf_init(&r.sr_out, 2 * ST_CHUNK + (1u << 20));
    box_buf_init(&r.sr_run_text, 1u << 30);
    char *chunk = NULL;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &st_spec, argc, argv);
    const char *arg;
    int id, st = 0;
    char digits[32];
    size_t nd = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id >= '0' && id <= '9') { // -10: -n 10
            if (nd + 1 < sizeof digits)
                digits[nd++] = (char)id;
            digits[nd] = '\0';
            if ((st = st_min_arg(&it, &r, digits)) != 0)
                goto out;
            continue;
        }
        nd = 0;
        switch (id) {
        case 'a':
        case 'd': // no object-file sections: the whole file, as for -a
        case 'T':
            break;
        case 'f':
            r.sr_names = true;
            break;
        case 'w':
            r.sr_space = true;
            break;
        case 'o':
            r.sr_radix = 'o';
            break;
        case 's':
            r.sr_sep = arg;
            break;
        case 'n':
            if ((st = st_min_arg(&it, &r, arg)) != 0)
                goto out;
            break;
        case 't':
            if (arg[0] != 'o' && arg[0] != 'd' && arg[0] != 'x') {
                (void)sh_puts(cx, 2, st_usage);
                st = 1;
                goto out;
            }
            r.sr_radix = arg[0];
            break;
        case 'e':
            if (arg[0] == 's' || arg[0] == 'S') {
                r.sr_eight = arg[0] == 'S';
                break;
            }
            if (arg[0] != '\0' && arg[1] == '\0' && strchr("blBL", arg[0])) {
                st = sh_cmd_err(cx, "strings", 1,
                                "-e %s: 16- and 32-bit encodings are not "
                                "supported by the box's strings; use -e s or "
                                "-e S",
                                arg);
                goto out;
            }
            (void)sh_puts(cx, 2, st_usage);
            st = 1;
            goto out;
        case 'U':
            st = sh_cmd_err(cx, "strings", 1,
                            "--unicode is not supported by the box's "
                            "strings");
            goto out;
        case 'h':
            (void)sh_puts(cx, 1, st_help);
            goto out;
        case 'v':
        case 'V':
            (void)sh_puts(cx, 1,
                          "strings (strands-shell) " BOX_VERSION
                          "\nThe box's own strings: every file it "
                          "touches is decided by policy.\n");
            goto out;
        default:
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if ((chunk = box_alloc(ST_CHUNK)) == NULL) {
        st = sh_cmd_err(cx, "strings", 1, "out of memory");
        goto out;
    }
    if (it.gi_nops == 0) {
        int ist = 0;
        sh_input *in = sh_input_open(cx, "strings", NULL, &ist);
        if (in == NULL) {
            st = ist;
            goto out;
        }
        (void)st_scan(&r, in, "{standard input}", chunk);
        sh_input_close(in);
        st = r.sr_run.cr_status;
        goto out;
    }
    // binutils 2.40 takes a "-" operand for nothing: skipped, and a call
    // with only those prints the usage.
    int files = 0;
    for (int i = 0; i < it.gi_nops; i++) {
        if (strcmp(it.gi_ops[i], "-") == 0)
            continue;
        files++;
        if (!st_file(&r, it.gi_ops[i], chunk))
            break;
    }
    if (files == 0)
        (void)sh_puts(cx, 2, st_usage);
    st = files == 0 ? 1 : r.sr_run.cr_status;
out:
    box_free(chunk);
    sh_gopt_free(&it);
    box_buf_reset(&r.sr_out);
    box_buf_reset(&r.sr_run_text);
    return st;
}
