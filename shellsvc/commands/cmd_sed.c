/* SPDX-License-Identifier: Apache-2.0 */
/* sed [OPTION]... {script} [FILE]...: GNU sed 4.9. The options, the
 * input (every file through the kernel), the outputs, and -i: a file
 * is rewritten only once its whole new content is in hand. */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_sed.h"
#include "sh_gopt.h"

enum {
    SED_POSIX = SH_GOPT_LONG_ONLY,
    SED_DEBUG,
    SED_SANDBOX,
    SED_FOLLOW,
};

/* In GNU sed's order, which its "ambiguous" message lists them in. */
static const sh_gopt sed_opts[] = {
    {'E', "regexp-extended", SH_GARG_NONE},
    {SED_DEBUG, "debug", SH_GARG_NONE},
    {'i', "in-place", SH_GARG_OPT},
    {'e', "expression", SH_GARG_REQ},
    {'f', "file", SH_GARG_REQ},
    {'l', "line-length", SH_GARG_REQ},
    {'z', "null-data", SH_GARG_NONE},
    {'z', "zero-terminated", SH_GARG_NONE},
    {'n', "quiet", SH_GARG_NONE},
    {SED_POSIX, "posix", SH_GARG_NONE},
    {'n', "silent", SH_GARG_NONE},
    {SED_SANDBOX, "sandbox", SH_GARG_NONE},
    {'s', "separate", SH_GARG_NONE},
    {'u', "unbuffered", SH_GARG_NONE},
    {SED_FOLLOW, "follow-symlinks", SH_GARG_NONE},
    {'r', NULL, SH_GARG_NONE},
    {0},
};

#define SED_USAGE                                                              \
    "Usage: sed [OPTION]... {script-only-if-no-other-script} "                 \
    "[input-file]...\n"                                                        \
    "\n"                                                                       \
    "  -n, --quiet, --silent\n"                                                \
    "                 suppress automatic printing of pattern space\n"          \
    "      --debug\n"                                                          \
    "                 annotate program execution\n"                            \
    "  -e script, --expression=script\n"                                       \
    "                 add the script to the commands to be executed\n"         \
    "  -f script-file, --file=script-file\n"                                   \
    "                 add the contents of script-file to the commands to be "  \
    "executed\n"                                                               \
    "  --follow-symlinks\n"                                                    \
    "                 follow symlinks when processing in place\n"              \
    "  -i[SUFFIX], --in-place[=SUFFIX]\n"                                      \
    "                 edit files in place (makes backup if SUFFIX supplied)\n" \
    "  -l N, --line-length=N\n"                                                \
    "                 specify the desired line-wrap length for the `l' "       \
    "command\n"                                                                \
    "  --posix\n"                                                              \
    "                 disable all GNU extensions.\n"                           \
    "  -E, -r, --regexp-extended\n"                                            \
    "                 use extended regular expressions in the script\n"        \
    "                 (for portability use POSIX -E).\n"                       \
    "  -s, --separate\n"                                                       \
    "                 consider files as separate rather than as a single,\n"   \
    "                 continuous long stream.\n"                               \
    "      --sandbox\n"                                                        \
    "                 operate in sandbox mode (disable e/r/w commands).\n"     \
    "  -u, --unbuffered\n"                                                     \
    "                 load minimal amounts of data from the input files and "  \
    "flush\n"                                                                  \
    "                 the output buffers more often\n"                         \
    "  -z, --null-data\n"                                                      \
    "                 separate lines by NUL characters\n"                      \
    "      --help     display this help and exit\n"                            \
    "      --version  output version information and exit\n"                   \
    "\n"                                                                       \
    "If no -e, --expression, -f, or --file option is given, then the first\n"  \
    "non-option argument is taken as the sed script to interpret.  All\n"      \
    "remaining arguments are names of input files; if no input files are\n"    \
    "specified, then the standard input is read.\n"                            \
    "\n"                                                                       \
    "GNU sed home page: <https://www.gnu.org/software/sed/>.\n"                \
    "General help using GNU software: <https://www.gnu.org/gethelp/>."

static const sh_gopt_spec sed_spec = {
    .gs_cmd = "sed",
    .gs_opts = sed_opts,
    .gs_flags = SH_GOPT_F_NOTRY,
    .gs_fail = 1,
    .gs_usage = SED_USAGE,
    .gs_help = SED_USAGE "\nE-mail bug reports to: <bug-sed@gnu.org>.\n",
};

int
sed_err(sed *s, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sh_cmd_err(s->s_run.cr_cx, "sed", 1, "%s", msg);
}

/* ---- output ---- */

bool
sed_flush(sed *s, sed_out *o)
{
    if (o->o_buf.b_len == 0)
        return true;
    sh_ctx *cx = s->s_run.cr_cx;
    bool ok = true;
    if (o->o_fd == 1) {
        ok = sh_cmd_emit(&s->s_run, o->o_buf.b_data, o->o_buf.b_len);
    } else if (o->o_fd == 2) {
        (void)sh_write(cx, 2, o->o_buf.b_data, o->o_buf.b_len);
    } else if (o->o_stream != NULL) {
        if (sh_stream_write(cx, o->o_stream, o->o_buf.b_data, o->o_buf.b_len,
                            true) != SH_IO_OK) {
            int e = errno;
            if (cx->cx_flow != SH_FLOW_NONE) {
                s->s_run.cr_status = cx->cx_status;
            } else {
                sh_cmd_err(cx, "sed", SED_STATUS_IO,
                           "couldn't write %zu items to %s: %s", o->o_buf.b_len,
                           o->o_name, strerror(e));
                s->s_run.cr_status = SED_STATUS_IO;
            }
            ok = false;
        }
    } else {
        return true; // -i: held until the file is rewritten
    }
    box_buf_truncate(&o->o_buf, 0);
    return ok;
}

bool
sed_put(sed *s, sed_out *o, const char *p, size_t n)
{
    if (o->o_missing_nl) {
        o->o_missing_nl = false;
        if (box_buf_putc(&o->o_buf, s->s_delim) != BOX_OK)
            goto big;
    }
    if (n > 0 && box_buf_append(&o->o_buf, p, n) != BOX_OK)
        goto big;
    if (o->o_buf.b_len >= SED_CHUNK || o->o_fd == 2)
        return sed_flush(s, o);
    return true;
big:
    s->s_run.cr_status =
        sed_err(s, "%s: output too large to hold (limit %u MiB)",
                o->o_name != NULL ? o->o_name : "-", SED_HOLD_MAX >> 20);
    return false;
}

bool
sed_put_line(sed *s, sed_out *o, const char *p, size_t n, bool nl)
{
    if (!sed_put(s, o, p, n) || (nl && !sed_put(s, o, &s->s_delim, 1)))
        return false;
    o->o_missing_nl = !nl;
    if (s->s_unbuffered && o->o_fd == 1)
        return sed_flush(s, o);
    return true;
}

sed_out *
sed_out_get(sed *s, const char *name, int *status)
{
    sed_prog *g = &s->s_prog;
    *status = 0;
    if (strcmp(name, "/dev/stdout") == 0)
        return &s->s_stdout;
    for (sed_out *o = g->p_outs; o != NULL; o = o->o_next)
        if (strcmp(o->o_name, name) == 0)
            return o;
    sed_out *o = box_calloc(1, sizeof *o);
    if (o == NULL || (o->o_name = box_strdup(name)) == NULL) {
        box_free(o);
        *status = sed_err(s, "out of memory");
        return NULL;
    }
    box_buf_init(&o->o_buf, SED_HOLD_MAX);
    o->o_fd = -1;
    if (strcmp(name, "/dev/stderr") == 0) {
        o->o_fd = 2;
    } else {
        char *shown = box_asprintf("couldn't open file %s", name);
        int st = 1;
        o->o_stream = shown != NULL
                          ? sh_stream_open(s->s_run.cr_cx, "sed", name, shown,
                                           O_WRONLY | O_CREAT | O_TRUNC, &st)
                          : NULL;
        box_free(shown);
        if (o->o_stream == NULL) {
            *status = st == BOX_STATUS_FAULT ? st : SED_STATUS_IO;
            box_free(o->o_name);
            box_free(o);
            return NULL;
        }
    }
    o->o_next = g->p_outs;
    g->p_outs = o;
    return o;
}

/* ---- input ---- */

/* Opens the next file operand: true when one opened; false at the end or
 * when the run must stop (cr_status set, s_stop). */
static bool
in_open_next(sed *s, bool *stop)
{
    sh_ctx *cx = s->s_run.cr_cx;
    while (s->s_next_file < s->s_nfiles) {
        const char *name = s->s_files[s->s_next_file++];
        int st;
        char *shown = box_asprintf("can't read %s", name);
        s->s_in = sh_input_open_as(cx, "sed", name, shown, &st);
        box_free(shown);
        if (s->s_in != NULL) {
            s->s_in_name = name;
            s->s_in_eof = false;
            sh_input_quiet(s->s_in);
            return true;
        }
        s->s_run.cr_status = st == BOX_STATUS_FAULT ? st : 2;
        if (st == BOX_STATUS_FAULT || !sh_cmd_live(&s->s_run)) {
            *stop = true;
            return false;
        }
    }
    return false;
}

/* Makes input bytes available: 1; 0 at the end of all input; -1 to stop. */
static int
in_more(sed *s)
{
    if (s->s_in_failed)
        return -1;
    for (;;) {
        if (s->s_ipos < s->s_ilen)
            return 1;
        if (s->s_in != NULL && !s->s_in_eof) {
            ssize_t n = sh_input_read(s->s_in, s->s_ibuf, SED_CHUNK);
            if (n < 0) {
                if (!sh_cmd_live(&s->s_run))
                    return -1;
                int e = sh_input_errno(s->s_in);
                s->s_run.cr_status = sh_cmd_err(
                    s->s_run.cr_cx, "sed", SED_STATUS_IO,
                    "read error on %s: %s",
                    strcmp(s->s_in_name, "-") == 0 ? "stdin" : s->s_in_name,
                    strerror(e != 0 ? e : EIO));
                s->s_in_failed = true;
                return -1; // GNU stops at a read error (status 4)
            }
            if (n == 0) {
                s->s_in_eof = true;
                continue;
            }
            if (s->s_orig != NULL &&
                box_buf_append(s->s_orig, s->s_ibuf, (size_t)n) != BOX_OK) {
                s->s_run.cr_status =
                    sed_err(s, "%s: input too large to hold (limit %u MiB)",
                            s->s_in_name, SED_HOLD_MAX >> 20);
                return -1;
            }
            s->s_ipos = 0;
            s->s_ilen = (size_t)n;
            continue;
        }
        sh_input_close(s->s_in);
        s->s_in = NULL;
        bool stop = false;
        if (!in_open_next(s, &stop))
            return stop ? -1 : 0;
    }
}

bool
sed_last_line(sed *s)
{
    return in_more(s) <= 0; // an error: reported, the next read stops
}

int
sed_read_line(sed *s, bool append)
{
    int rc = in_more(s);
    if (rc <= 0)
        return rc;
    s->s_line_name = s->s_in_name;
    box_buf *ps = &s->s_ps;
    if (!append)
        box_buf_truncate(ps, 0);
    else if (box_buf_putc(ps, s->s_delim) != BOX_OK)
        goto big;
    s->s_ps_nl = false;
    for (;;) {
        const char *p = s->s_ibuf + s->s_ipos;
        size_t avail = s->s_ilen - s->s_ipos;
        const char *e = memchr(p, s->s_delim, avail);
        size_t take = e != NULL ? (size_t)(e - p) : avail;
        if (take > 0 && box_buf_append(ps, p, take) != BOX_OK)
            goto big;
        s->s_ipos += take + (e != NULL);
        if (e != NULL) {
            s->s_ps_nl = true;
            break;
        }
        // The line goes on in the next chunk of this file, if any.
        if (s->s_in == NULL || s->s_in_eof)
            break;
        ssize_t n = sh_input_read(s->s_in, s->s_ibuf, SED_CHUNK);
        if (n <= 0) {
            s->s_in_eof = n == 0;
            if (n < 0 && (rc = in_more(s)) < 0)
                return -1;
            break;
        }
        if (s->s_orig != NULL &&
            box_buf_append(s->s_orig, s->s_ibuf, (size_t)n) != BOX_OK)
            goto big;
        s->s_ipos = 0;
        s->s_ilen = (size_t)n;
    }
    if (ps->b_data == NULL && box_buf_putc(ps, '\0') == BOX_OK)
        box_buf_truncate(ps, 0);
    s->s_lineno++;
    s->s_replaced = false;
    return 1;
big:
    s->s_run.cr_status =
        sed_err(s, "%s: input too large to hold (limit %u MiB)", s->s_in_name,
                SED_HOLD_MAX >> 20);
    return -1;
}

/* ---- -i ---- */

/* Where -iSUFFIX keeps the original: each '*' in SUFFIX is the file's
 * base name (a SUFFIX with '/' names its own directory), else the name
 * with SUFFIX after it. The caller frees. */
static char *
backup_name(const char *path, const char *suffix)
{
    if (strchr(suffix, '*') == NULL)
        return box_asprintf("%s%s", path, suffix);
    const char *base = strrchr(path, '/');
    size_t dirlen = base != NULL ? (size_t)(base - path) + 1 : 0;
    base = base != NULL ? base + 1 : path;
    box_buf b;
    box_buf_init(&b, 1u << 16);
    bool ok = strchr(suffix, '/') != NULL ||
              box_buf_append(&b, path, dirlen) == BOX_OK || dirlen == 0;
    for (const char *p = suffix; *p != '\0' && ok; p++)
        ok = (*p == '*' ? box_buf_puts(&b, base) : box_buf_putc(&b, *p)) ==
             BOX_OK;
    if (!ok) {
        box_buf_reset(&b);
        return NULL;
    }
    return box_buf_take(&b);
}

/* All of data to f from its start: 0 or the errno value. */
static int
write_all(sh_kernel_file *f, const box_buf *data, size_t *done)
{
    *done = 0;
    while (*done < data->b_len) {
        ssize_t n =
            sh_kernel_write(f, data->b_data + *done, data->b_len - *done);
        if (n <= 0)
            return n < 0 ? (int)-n : EIO;
        *done += (size_t)n;
    }
    return 0;
}

/*
 * Writes data to path through the kernel: the open for writing is the
 * fs:write decision. 0, or status 4 (125 for a fault) after the message.
 * GNU writes a temporary file and renames it ("couldn't open temporary
 * file ./sedXXXXXX: E"); the box writes the file itself, so a refused
 * open says "couldn't open file F: E", or the denial's own text, and has
 * changed nothing. A write that fails after the open (the file cap) puts
 * the original bytes back when it has them (orig).
 */
static int
write_file(sed *s, const char *path, const box_buf *data, int flags,
           const box_buf *orig)
{
    sh_ctx *cx = s->s_run.cr_cx;
    sh_kernel_result r = {0};
    sh_kernel_file *f = NULL;
    if (sh_kernel_open(sh_kern(cx), cx->cx_st->st_cwd, path, flags, 0666, &f,
                       &r) != 0) {
        char *shown = box_asprintf("couldn't open file %s", path);
        int st = sh_fs_fail(cx, "sed", shown != NULL ? shown : path, &r);
        box_free(shown);
        return st == BOX_STATUS_FAULT ? st : SED_STATUS_IO;
    }
    sh_kernel_result_clear(&r);
    size_t done;
    int e = write_all(f, data, &done);
    sh_kernel_close(f);
    if (e == 0)
        return 0;
    sh_cmd_err(cx, "sed", SED_STATUS_IO, "couldn't write %zu items to %s: %s",
               data->b_len - done, path, strerror(e));
    if (orig != NULL && sh_kernel_open(sh_kern(cx), cx->cx_st->st_cwd, path,
                                       O_WRONLY | O_TRUNC, 0666, &f, &r) == 0) {
        if (write_all(f, orig, &done) != 0)
            sh_cmd_err(cx, "sed", SED_STATUS_IO,
                       "%s: the original content could not be put back", path);
        sh_kernel_close(f);
    }
    sh_kernel_result_clear(&r);
    return SED_STATUS_IO;
}

/* The end of one -i file: the backup (SUFFIX), then the new content. A
 * refused or failed open changes nothing. */
static int
inplace_commit(sed *s, const char *path)
{
    if (s->s_suffix != NULL && *s->s_suffix != '\0') {
        char *bk = backup_name(path, s->s_suffix);
        if (bk == NULL)
            return sed_err(s, "out of memory");
        int st =
            write_file(s, bk, s->s_orig, O_WRONLY | O_CREAT | O_TRUNC, NULL);
        box_free(bk);
        if (st != 0)
            return st;
    }
    s->s_ipout.o_missing_nl = false;
    return write_file(s, path, &s->s_ipout.o_buf, O_WRONLY | O_TRUNC,
                      s->s_orig);
}

/* Whether path may be edited in place: 0, or 4 after GNU's message for
 * what is not a regular file. A path that cannot be looked at is left
 * to the open, whose message says why (a denial's own text). */
static int
inplace_check(sed *s, const char *path)
{
    sh_ctx *cx = s->s_run.cr_cx;
    sh_kernel_stat st;
    sh_kernel_result r = {0};
    int e = sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, path, &st, &r);
    if (r.kr_outcome == SH_KR_FAULT)
        return sh_fs_fail(cx, "sed", path, &r);
    sh_kernel_result_clear(&r);
    if (e == 0 && !S_ISREG(st.ks_mode)) {
        sh_cmd_err(cx, "sed", SED_STATUS_IO,
                   "couldn't edit %s: not a regular file", path);
        return SED_STATUS_IO;
    }
    return 0;
}

/* ---- the driver ---- */

/* Every file as one stream, or (-s, -i) each on its own: line numbers
 * and $ per file, -i's output per file. */
static int
sed_run_files(sed *s, char **files, int nfiles)
{
    static char *dash[] = {"-"};
    if (nfiles == 0) {
        if (s->s_inplace)
            return sh_cmd_err(s->s_run.cr_cx, "sed", SED_STATUS_IO,
                              "no input files");
        files = dash;
        nfiles = 1;
    }
    int worst = 0;
    int groups = s->s_separate ? nfiles : 1;
    for (int i = 0; i < groups && !s->s_quit; i++) {
        s->s_files = files + (s->s_separate ? i : 0);
        s->s_nfiles = s->s_separate ? 1 : nfiles;
        s->s_next_file = 0;
        s->s_lineno = 0;
        if (s->s_inplace) {
            int st = inplace_check(s, s->s_files[0]);
            if (st == BOX_STATUS_FAULT)
                return st;
            if (st != 0) {
                worst = st > worst ? st : worst;
                continue;
            }
            box_buf_truncate(&s->s_ipout.o_buf, 0);
            s->s_ipout.o_missing_nl = false;
            if (s->s_orig != NULL)
                box_buf_truncate(s->s_orig, 0);
        }
        s->s_run.cr_status = 0;
        bool go = sed_execute(s);
        int st = s->s_run.cr_status;
        sh_input_close(s->s_in);
        s->s_in = NULL;
        s->s_ipos = s->s_ilen = 0;
        s->s_in_failed = false;
        if (!go && st != 2)
            return st != 0 ? st : 1;
        if (s->s_inplace && st == 2) { // it did not open: nothing to write
            worst = st > worst ? st : worst;
            continue;
        }
        if (s->s_inplace && st == 0 &&
            (st = inplace_commit(s, s->s_files[0])) != 0)
            return st; // GNU stops at a file it cannot write
        worst = st > worst ? st : worst;
    }
    return worst;
}

/* The -f file's text, appended to script. 0 or the status. */
static int
sed_read_script(sed *s, const char *name, box_buf *script)
{
    sh_ctx *cx = s->s_run.cr_cx;
    int st;
    char *shown = box_asprintf("couldn't open file %s", name);
    sh_input *in = sh_input_open_as(cx, "sed", name, shown, &st);
    box_free(shown);
    if (in == NULL)
        return st == BOX_STATUS_FAULT ? st : SED_STATUS_IO;
    char buf[8192];
    ssize_t n;
    while ((n = sh_input_read(in, buf, sizeof buf)) > 0)
        if (box_buf_append(script, buf, (size_t)n) != BOX_OK) {
            sh_input_close(in);
            return sed_err(s, "%s: script too large", name);
        }
    sh_input_close(in);
    if (n < 0)
        return SED_STATUS_IO;
    // A final newline ends the last command; it is no empty line.
    if (script->b_len > 0 && script->b_data[script->b_len - 1] == '\n')
        box_buf_truncate(script, script->b_len - 1);
    return 0;
}

/* Adds one chunk (-e text or -f file) to the joined script. */
static int
sed_add_chunk(sed *s, box_buf *script, sed_chunk **ch, size_t *nch,
              const char *text, const char *file, int *nexpr)
{
    sed_chunk *n = box_realloc(*ch, (*nch + 1) * sizeof *n);
    if (n == NULL)
        return sed_err(s, "out of memory");
    *ch = n;
    if (*nch > 0 && box_buf_putc(script, '\n') != BOX_OK)
        return sed_err(s, "out of memory");
    sed_chunk *c = &n[(*nch)++];
    c->ch_start = script->b_len;
    c->ch_expr = file != NULL ? 0 : ++*nexpr;
    c->ch_file = file;
    int st = 0;
    if (file != NULL)
        st = sed_read_script(s, file, script);
    else if (box_buf_puts(script, text) != BOX_OK)
        st = sed_err(s, "out of memory");
    c->ch_len = script->b_len - c->ch_start;
    return st;
}

/* GNU's -l N: its digits (atoi's reading: none is 0). */
static uintmax_t
sed_width(const char *a)
{
    uintmax_t v = 0;
    while (*a == ' ')
        a++;
    for (; *a >= '0' && *a <= '9'; a++)
        v = v > UINTMAX_MAX / 10 - 1 ? v : v * 10 + (uintmax_t)(*a - '0');
    return v;
}

int
sh_cmd_sed(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sed s = {.s_run = {.cr_cx = cx, .cr_cmd = "sed"},
             .s_delim = '\n',
             .s_hs_nl = true,
             .s_lwidth = 70};
    box_buf script, orig;
    box_buf_init(&script, SED_HOLD_MAX);
    box_buf_init(&orig, SED_HOLD_MAX);
    box_buf_init(&s.s_ps, SED_HOLD_MAX);
    box_buf_init(&s.s_hs, SED_HOLD_MAX);
    box_buf_init(&s.s_tmp, SED_HOLD_MAX);
    box_buf_init(&s.s_aq, SED_HOLD_MAX);
    box_buf_init(&s.s_stdout.o_buf, SED_HOLD_MAX);
    box_buf_init(&s.s_ipout.o_buf, SED_HOLD_MAX);
    s.s_stdout.o_fd = 1;
    s.s_ipout.o_fd = -1;
    s.s_cur = &s.s_stdout;
    sed_chunk *ch = NULL;
    size_t nch = 0;
    int nexpr = 0, st = 0, id;
    locale_t old_loc = sed_locale_enter();
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &sed_spec, argc, argv);
    const char *arg;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case 'n':
            s.s_quiet = true;
            break;
        case 'e':
        case 'f':
            st = sed_add_chunk(&s, &script, &ch, &nch, arg,
                               id == 'f' ? arg : NULL, &nexpr);
            if (st != 0)
                goto out;
            break;
        case 'E':
        case 'r':
            s.s_prog.p_extended = true;
            break;
        case 'i':
            s.s_inplace = s.s_separate = true;
            s.s_suffix = arg;
            break;
        case 'l':
            s.s_lwidth = sed_width(arg);
            break;
        case 's':
            s.s_separate = true;
            break;
        case 'u':
            s.s_unbuffered = true;
            break;
        case 'z':
            s.s_delim = '\0';
            break;
        case SED_POSIX:
            s.s_prog.p_posix = true;
            break;
        case SED_DEBUG:
            st = sed_err(&s, "--debug is not supported in this box");
            goto out;
        case SED_SANDBOX:
            s.s_prog.p_sandbox = true;
            break;
        default: // --follow-symlinks: the kernel resolves every path
            break;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    char **files = it.gi_ops;
    int nfiles = it.gi_nops;
    if (nch == 0) {
        if (nfiles == 0) {
            st = sh_gopt_try(&it);
            goto out;
        }
        st = sed_add_chunk(&s, &script, &ch, &nch, files[0], NULL, &nexpr);
        files++;
        nfiles--;
        if (st != 0)
            goto out;
    }
    if (script.b_data == NULL && box_buf_putc(&script, '\0') == BOX_OK)
        box_buf_truncate(&script, 0);
    st = sed_compile(&s, script.b_data, script.b_len, ch, nch);
    if (st != 0)
        goto out;
    s.s_quiet |= s.s_prog.p_quiet_hash;
    if ((s.s_ibuf = box_alloc(SED_CHUNK)) == NULL) {
        st = sed_err(&s, "out of memory");
        goto out;
    }
    if (s.s_inplace) {
        // The original is kept for the backup and to undo a failed write.
        s.s_cur = &s.s_ipout;
        s.s_orig = &orig;
    }
    st = sed_run_files(&s, files, nfiles);
    bool flushed = sed_flush(&s, &s.s_stdout);
    for (sed_out *w = s.s_prog.p_outs; w != NULL; w = w->o_next)
        flushed = sed_flush(&s, w) && flushed;
    if (!flushed && st == 0)
        st = s.s_run.cr_status;
    if (st == 0 && s.s_quit)
        st = s.s_exit;
out:
    sh_input_close(s.s_in);
    sed_prog_free(&s.s_prog);
    box_free(ch);
    box_free(s.s_ibuf);
    box_free(s.s_m);
    box_free(s.s_aq_ents);
    box_free(s.s_aq_lens);
    box_free(s.s_aq_files);
    box_buf_reset(&script);
    box_buf_reset(&orig);
    box_buf_reset(&s.s_ps);
    box_buf_reset(&s.s_hs);
    box_buf_reset(&s.s_tmp);
    box_buf_reset(&s.s_aq);
    box_buf_reset(&s.s_stdout.o_buf);
    box_buf_reset(&s.s_ipout.o_buf);
    sh_gopt_free(&it);
    sed_locale_leave(old_loc);
    return st;
}
