/* SPDX-License-Identifier: Apache-2.0 */
/* xargs [OPTION]... [COMMAND [INITIAL-ARGS]...]: GNU findutils 4.9. Each
 * command it builds goes through admission as its own shell:exec
 * decision (box-spec §3.5); -a FILE is read through the kernel. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_gopt.h"
#include "sh_internal.h"

/* GNU's default command-line size (xargs --show-limits). */
#define XA_SIZE_DEFAULT 131072
#define XA_SIZE_MAX 2093663
/* The longest input item held. */
#define XA_ITEM_MAX (1u << 20)

enum {
    XO_NULL = '0',
    XO_FILE = 'a',
    XO_DELIM = 'd',
    XO_EOF = 'E',
    XO_EOF_OPT = 'e',
    XO_REPL = 'I',
    XO_REPL_OPT = 'i',
    XO_LINES = 'L',
    XO_LINES_OPT = 'l',
    XO_ARGS = 'n',
    XO_TTY = 'o',
    XO_ASK = 'p',
    XO_PROCS = 'P',
    XO_NORUN = 'r',
    XO_SIZE = 's',
    XO_TRACE = 't',
    XO_EXIT = 'x',
    XO_SLOTVAR = SH_GOPT_LONG_ONLY,
    XO_LIMITS,
};

static const sh_gopt xargs_opts[] = {
    {XO_NULL, "null", SH_GARG_NONE},
    {XO_FILE, "arg-file", SH_GARG_REQ},
    {XO_DELIM, "delimiter", SH_GARG_REQ},
    {XO_EOF, NULL, SH_GARG_REQ},
    {XO_EOF_OPT, "eof", SH_GARG_OPT},
    {XO_REPL, NULL, SH_GARG_REQ},
    {XO_REPL_OPT, "replace", SH_GARG_OPT},
    {XO_LINES, "max-lines", SH_GARG_REQ},
    {XO_LINES_OPT, NULL, SH_GARG_OPT},
    {XO_ARGS, "max-args", SH_GARG_REQ},
    {XO_TTY, "open-tty", SH_GARG_NONE},
    {XO_ASK, "interactive", SH_GARG_NONE},
    {XO_PROCS, "max-procs", SH_GARG_REQ},
    {XO_NORUN, "no-run-if-empty", SH_GARG_NONE},
    {XO_SIZE, "max-chars", SH_GARG_REQ},
    {XO_TRACE, "verbose", SH_GARG_NONE},
    {XO_EXIT, "exit", SH_GARG_NONE},
    {XO_SLOTVAR, "process-slot-var", SH_GARG_REQ},
    {XO_LIMITS, "show-limits", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec xargs_spec = {
    .gs_cmd = "xargs",
    .gs_opts = xargs_opts,
    .gs_flags = SH_GOPT_F_INORDER,
    .gs_fail = 1,
    .gs_help =
        "Usage: xargs [OPTION]... COMMAND [INITIAL-ARGS]...\n"
        "Run COMMAND with arguments INITIAL-ARGS and more arguments read "
        "from input.\n"
        "\n"
        "Mandatory and optional arguments to long options are also\n"
        "mandatory or optional for the corresponding short option.\n"
        "  -0, --null                   items are separated by a null, not "
        "whitespace;\n"
        "                                 disables quote and backslash "
        "processing and\n"
        "                                 logical EOF processing\n"
        "  -a, --arg-file=FILE          read arguments from FILE, not "
        "standard input\n"
        "  -d, --delimiter=CHARACTER    items in input stream are separated "
        "by CHARACTER,\n"
        "                                 not by whitespace; disables quote "
        "and backslash\n"
        "                                 processing and logical EOF "
        "processing\n"
        "  -E END                       set logical EOF string; if END "
        "occurs as a line\n"
        "                                 of input, the rest of the input is "
        "ignored\n"
        "                                 (ignored if -0 or -d was "
        "specified)\n"
        "  -e, --eof[=END]              equivalent to -E END if END is "
        "specified;\n"
        "                                 otherwise, there is no "
        "end-of-file string\n"
        "  -I R                         same as --replace=R\n"
        "  -i, --replace[=R]            replace R in INITIAL-ARGS with "
        "names read\n"
        "                                 from standard input, split at "
        "newlines;\n"
        "                                 if R is unspecified, assume {}\n"
        "  -L, --max-lines=MAX-LINES    use at most MAX-LINES non-blank "
        "input lines per\n"
        "                                 command line\n"
        "  -l[MAX-LINES]                similar to -L but defaults to at "
        "most one non-\n"
        "                                 blank input line if MAX-LINES is "
        "not specified\n"
        "  -n, --max-args=MAX-ARGS      use at most MAX-ARGS arguments per "
        "command line\n"
        "  -o, --open-tty               Reopen stdin as /dev/tty in the "
        "child process\n"
        "                                 before executing the command; "
        "useful to run an\n"
        "                                 interactive application.\n"
        "  -P, --max-procs=MAX-PROCS    run at most MAX-PROCS processes at a "
        "time\n"
        "  -p, --interactive            prompt before running commands\n"
        "      --process-slot-var=VAR   set environment variable VAR in "
        "child processes\n"
        "  -r, --no-run-if-empty        if there are no arguments, then do "
        "not run COMMAND;\n"
        "                                 if this option is not given, "
        "COMMAND will be\n"
        "                                 run at least once\n"
        "  -s, --max-chars=MAX-CHARS    limit length of command line to "
        "MAX-CHARS\n"
        "      --show-limits            show limits on command-line length\n"
        "  -t, --verbose                print commands before executing "
        "them\n"
        "  -x, --exit                   exit if the size (see -s) is "
        "exceeded\n"
        "      --help                   display this help and exit\n"
        "      --version                output version information and exit\n"
        "\n"
        "In this box every command runs through admission (its own "
        "shell:exec\n"
        "decision); -P runs them one at a time; -o, -p and --show-limits are\n"
        "refused.\n",
};

/* One xargs run: options, the command being built, the input reader. */
typedef struct xa_run {
    sh_ctx *x_cx;
    char **x_init; // the command and its initial args (borrowed)
    int x_ninit;
    int x_delim; // -0/-d: the separator; -1: blanks, quotes
    const char *x_eof;
    const char *x_repl; // -I
    unsigned long x_maxargs, x_maxlines;
    size_t x_maxsize;
    bool x_norun, x_trace, x_exit, x_stdin;
    sh_argv x_args; // the arguments collected for the next command
    size_t x_size;  // bytes the command line holds
    unsigned long x_lines;
    bool x_ran;
    int x_status; // 0 or 123 so far
    bool x_done;  // stop: a status is final
    int x_final;
    sh_input *x_in;
    char x_buf[8192];
    size_t x_pos, x_len;
    bool x_eofin;
} xa_run;

static int
xa_getc(xa_run *x)
{
    if (x->x_pos == x->x_len) {
        if (x->x_eofin)
            return -1;
        ssize_t n = sh_input_read(x->x_in, x->x_buf, sizeof x->x_buf);
        if (n <= 0) {
            x->x_eofin = true;
            if (n < 0 && !sh_check_stop(x->x_cx))
                x->x_status = 1;
            return -1;
        }
        x->x_pos = 0;
        x->x_len = (size_t)n;
    }
    return (unsigned char)x->x_buf[x->x_pos++];
}

static void
xa_stop(xa_run *x, int status)
{
    if (!x->x_done)
        x->x_final = status;
    x->x_done = true;
}

/* -t: the command line on stderr, words quoted as a shell reads them. */
static void
xa_trace(xa_run *x, sh_argv *av)
{
    box_buf b;
    box_buf_init(&b, 1u << 22);
    box_err e = BOX_OK;
    for (int i = 0; i < av->av_n && e == BOX_OK; i++) {
        char *q = sh_gquotef(av->av_v[i]);
        e = q ? box_buf_printf(&b, "%s%s", i ? " " : "", q) : BOX_ENOMEM;
        box_free(q);
    }
    if (e == BOX_OK && box_buf_putc(&b, '\n') == BOX_OK)
        (void)sh_write(x->x_cx, 2, b.b_data, b.b_len);
    box_buf_reset(&b);
}

/*
 * Runs av in a subshell copy whose stdin is empty when xargs reads its
 * own (GNU gives the command /dev/null): its admission, then its status
 * as GNU reports it: 1-125 and 128-254 make the end status 123, 255 ends
 * xargs with 124, a refused command (126) or one not found (127) ends it
 * with that status.
 */
static void
xa_exec(xa_run *x, sh_argv *av)
{
    sh_ctx *cx = x->x_cx;
    if (x->x_trace)
        xa_trace(x, av);
    x->x_ran = true;
    sh_ctx *sub = sh_ctx_fork(cx);
    if (sub == NULL) {
        sh_cmd_err(cx, "xargs", 1, "memory exhausted");
        xa_stop(x, 1);
        return;
    }
    if (x->x_stdin) {
        sh_stream *null = sh_stream_new(SH_ST_NULL);
        if (null != NULL) {
            sh_stream_unref(sub->cx_fd[0]);
            sub->cx_fd[0] = null;
        }
    }
    int st = sh_exec_argv(sub, av->av_n, av->av_v, NULL, true);
    sh_ctx_free(sub);
    if (sh_check_stop(cx) || st == BOX_STATUS_FAULT) {
        xa_stop(x, st == BOX_STATUS_FAULT ? st
                   : cx->cx_status        ? cx->cx_status
                                          : 1);
        return;
    }
    if (st == 126 || st == 127) {
        xa_stop(x, st);
    } else if (st == 255) {
        char *q = sh_gquotef(av->av_v[0]);
        sh_errf(cx, "xargs: %s: exited with status 255; aborting",
                q ? q : av->av_v[0]);
        box_free(q);
        xa_stop(x, 124);
    } else if (st != 0) {
        x->x_status = 123;
    }
}

/* The initial args plus the collected ones, run and forgotten. */
static void
xa_flush(xa_run *x)
{
    sh_argv av;
    sh_argv_init(&av);
    bool ok = true;
    for (int i = 0; i < x->x_ninit && ok; i++)
        ok = sh_argv_push(&av, x->x_init[i], strlen(x->x_init[i]), false) ==
             BOX_OK;
    for (int i = 0; i < x->x_args.av_n && ok; i++)
        ok = sh_argv_push(&av, x->x_args.av_v[i], strlen(x->x_args.av_v[i]),
                          false) == BOX_OK;
    if (!ok) {
        sh_cmd_err(x->x_cx, "xargs", 1, "memory exhausted");
        xa_stop(x, 1);
    } else {
        xa_exec(x, &av);
    }
    sh_argv_free(&av);
    sh_argv_free(&x->x_args);
    sh_argv_init(&x->x_args);
    x->x_lines = 0;
    x->x_size = 0;
}

static size_t
init_size(const xa_run *x)
{
    size_t n = 0;
    for (int i = 0; i < x->x_ninit; i++)
        n += strlen(x->x_init[i]) + 1;
    return n;
}

/* -I: each item replaces R in the initial args; one command per item. */
static void
xa_replace(xa_run *x, const char *item)
{
    sh_argv av;
    sh_argv_init(&av);
    size_t rl = strlen(x->x_repl);
    bool ok = true;
    for (int i = 0; i < x->x_ninit && ok; i++) {
        box_buf b;
        box_buf_init(&b, 1u << 22);
        const char *s = x->x_init[i];
        box_err e = BOX_OK;
        for (const char *h;
             rl > 0 && e == BOX_OK && (h = strstr(s, x->x_repl)) != NULL;
             s = h + rl) {
            e = box_buf_append(&b, s, (size_t)(h - s));
            if (e == BOX_OK)
                e = box_buf_puts(&b, item);
        }
        if (e == BOX_OK)
            e = box_buf_puts(&b, s);
        char *w = e == BOX_OK ? box_buf_take(&b) : NULL;
        box_buf_reset(&b);
        ok = w != NULL && sh_argv_push(&av, w, strlen(w), false) == BOX_OK;
        box_free(w);
    }
    if (ok)
        xa_exec(x, &av);
    else {
        sh_cmd_err(x->x_cx, "xargs", 1, "memory exhausted");
        xa_stop(x, 1);
    }
    sh_argv_free(&av);
}

/* One item read: added to the command (run first when it would not
 * fit), line-end counted for -L. */
static void
xa_item(xa_run *x, const char *s, size_t n, bool line_end)
{
    if (x->x_repl != NULL) {
        xa_replace(x, s);
        return;
    }
    size_t base = init_size(x);
    if (base + n + 1 > x->x_maxsize) {
        sh_cmd_err(x->x_cx, "xargs", 1, "argument line too long");
        xa_stop(x, 1);
        return;
    }
    if (x->x_args.av_n > 0 && base + x->x_size + n + 1 > x->x_maxsize) {
        if (x->x_exit && (x->x_maxargs || x->x_maxlines)) {
            sh_cmd_err(x->x_cx, "xargs", 1, "argument list too long");
            xa_stop(x, 1);
            return;
        }
        xa_flush(x);
        if (x->x_done)
            return;
    }
    if (sh_argv_push(&x->x_args, s, n, false) != BOX_OK) {
        sh_cmd_err(x->x_cx, "xargs", 1, "memory exhausted");
        xa_stop(x, 1);
        return;
    }
    x->x_size += n + 1;
    if (line_end)
        x->x_lines++;
    if ((x->x_maxargs && (unsigned long)x->x_args.av_n >= x->x_maxargs) ||
        (x->x_maxlines && x->x_lines >= x->x_maxlines))
        xa_flush(x);
}

/* -0 / -d: items end at the separator; no quotes, no EOF string. */
static void
xa_read_delim(xa_run *x, box_buf *b)
{
    int c;
    bool pending = false;
    while (!x->x_done && (c = xa_getc(x)) >= 0) {
        if (c == x->x_delim) {
            if (box_buf_putc(b, '\0') != BOX_OK) {
                sh_cmd_err(x->x_cx, "xargs", 1, "argument line too long");
                xa_stop(x, 1);
                break;
            }
            xa_item(x, b->b_data, b->b_len - 1, true);
            box_buf_truncate(b, 0);
            pending = false;
            continue;
        }
        pending = true;
        if (box_buf_putc(b, (char)c) != BOX_OK) {
            sh_cmd_err(x->x_cx, "xargs", 1, "argument line too long");
            xa_stop(x, 1);
        }
    }
    if (pending && !x->x_done) {
        if (box_buf_putc(b, '\0') == BOX_OK)
            xa_item(x, b->b_data, b->b_len - 1, true);
    }
}

/*
 * Default input: items separated by blanks and newlines, '…' and "…"
 * quoting (no newline inside), backslash escaping one character; an
 * unquoted item equal to the -E string ends the input. -L: a line ends at
 * a newline not preceded by a blank. -I: the line is the item (leading
 * blanks dropped).
 */
static void
xa_read_words(xa_run *x, box_buf *b)
{
    int c, quote = 0;
    bool have = false;
    while (!x->x_done) {
        c = xa_getc(x);
        if (quote != 0) {
            if (c < 0 || c == '\n') {
                sh_cmd_err(x->x_cx, "xargs", 1,
                           "unmatched %s quote; by default quotes are "
                           "special to xargs unless you use the -0 option",
                           quote == '\'' ? "single" : "double");
                if (x->x_args.av_n > 0)
                    xa_flush(x);
                xa_stop(x, 1);
                return;
            }
            if (c == quote)
                quote = 0;
            else if (box_buf_putc(b, (char)c) != BOX_OK)
                goto toolong;
            continue;
        }
        bool blank = c == ' ' || c == '\t';
        if (blank && x->x_repl != NULL && !have)
            continue; // -I: leading blanks are dropped
        if (c < 0 || c == '\n' || (blank && x->x_repl == NULL)) {
            if (have) {
                if (box_buf_putc(b, '\0') != BOX_OK)
                    goto toolong;
                if (x->x_eof != NULL && x->x_eof[0] != '\0' &&
                    strcmp(b->b_data, x->x_eof) == 0)
                    return;
                // An item ended by a blank leaves its line open (-L).
                xa_item(x, b->b_data, b->b_len - 1, !blank);
                box_buf_truncate(b, 0);
                have = false;
            }
            if (c < 0)
                return;
            continue;
        }
        have = true;
        if (c == '\'' || c == '"') {
            quote = c;
            continue;
        }
        if (c == '\\') {
            c = xa_getc(x);
            if (c < 0)
                c = '\\';
        }
        if (box_buf_putc(b, (char)c) != BOX_OK)
            goto toolong;
    }
    return;
toolong:
    sh_cmd_err(x->x_cx, "xargs", 1, "argument line too long");
    xa_stop(x, 1);
}

/* N of -n/-L/-s/-P: GNU's messages for a bad or small value. */
static bool
xa_number(sh_gopt_iter *it, char opt, const char *arg, long min,
          unsigned long *out, int *st)
{
    char *e;
    errno = 0;
    long v = strtol(arg, &e, 10);
    if (errno != 0 || e == arg || *e != '\0') {
        sh_cmd_err(it->gi_cx, "xargs", 1,
                   "invalid number \"%s\" for -%c "
                   "option",
                   arg, opt);
        *st = sh_gopt_try(it);
        return false;
    }
    if (v < min) {
        sh_cmd_err(it->gi_cx, "xargs", 1,
                   "value %ld for -%c option should be >= %ld", v, opt, min);
        if (opt == 's') {
            sh_cmd_err(it->gi_cx, "xargs", 1,
                       "cannot fit single argument within argument list "
                       "size limit");
            *st = 1;
            return false;
        }
        *st = sh_gopt_try(it);
        return false;
    }
    *out = (unsigned long)v;
    return true;
}

/* -d's argument: one character or an escape. -1 after the message. */
static int
xa_delim(sh_ctx *cx, const char *s)
{
    if (s[0] != '\0' && s[1] == '\0')
        return (unsigned char)s[0];
    if (s[0] == '\\') {
        static const char esc[] = "abfnrtv\\";
        static const char val[] = "\a\b\f\n\r\t\v\\";
        const char *p = s[1] ? strchr(esc, s[1]) : NULL;
        if (p != NULL && s[2] == '\0')
            return (unsigned char)val[p - esc];
        char *e;
        unsigned long v = 256;
        if (s[1] == 'x')
            v = strtoul(s + 2, &e, 16);
        else if (s[1] >= '0' && s[1] <= '7')
            v = strtoul(s + 1, &e, 8);
        if (v < 256 && *e == '\0' && s[2] != '\0')
            return (int)v;
    }
    sh_cmd_err(cx, "xargs", 1,
               "Invalid input delimiter specification %s: the delimiter must "
               "be either a single character or an escape sequence starting "
               "with \\.",
               s);
    return -1;
}

static char *xa_default_cmd[] = {"echo", NULL};

int
sh_cmd_xargs(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    xa_run x = {
        .x_cx = cx,
        .x_delim = -1,
        .x_maxsize = XA_SIZE_DEFAULT,
        .x_stdin = true,
    };
    sh_argv_init(&x.x_args);
    box_buf b;
    box_buf_init(&b, XA_ITEM_MAX);
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &xargs_spec, argc, argv);
    const char *arg, *file = NULL;
    unsigned long v;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        switch (id) {
        case XO_NULL:
            x.x_delim = 0;
            break;
        case XO_FILE:
            file = arg;
            break;
        case XO_DELIM:
            if ((x.x_delim = xa_delim(cx, arg)) < 0) {
                st = 1;
                goto out;
            }
            break;
        case XO_EOF:
            x.x_eof = arg;
            break;
        case XO_EOF_OPT:
            x.x_eof = arg;
            break;
        case XO_REPL:
        case XO_REPL_OPT:
            x.x_repl = arg ? arg : "{}";
            if (x.x_maxargs)
                sh_cmd_err(cx, "xargs", 1,
                           "warning: options --max-args and "
                           "--replace/-I/-i are mutually exclusive, ignoring "
                           "previous --max-args value");
            x.x_maxlines = 1;
            x.x_maxargs = 0;
            x.x_exit = true;
            break;
        case XO_LINES:
        case XO_LINES_OPT:
            if (arg == NULL)
                v = 1;
            else if (!xa_number(&it, 'L', arg, 1, &v, &st))
                goto out;
            x.x_maxlines = v;
            x.x_maxargs = 0;
            x.x_repl = NULL;
            break;
        case XO_ARGS:
            if (!xa_number(&it, 'n', arg, 1, &v, &st))
                goto out;
            x.x_maxargs = v;
            x.x_maxlines = 0;
            break;
        case XO_PROCS: // run one at a time whatever N is (documented)
            if (!xa_number(&it, 'P', arg, 0, &v, &st))
                goto out;
            break;
        case XO_NORUN:
            x.x_norun = true;
            break;
        case XO_SIZE:
            if (!xa_number(&it, 's', arg, 1, &v, &st))
                goto out;
            x.x_maxsize = v > XA_SIZE_MAX ? XA_SIZE_MAX : v;
            break;
        case XO_TRACE:
            x.x_trace = true;
            break;
        case XO_EXIT:
            x.x_exit = true;
            break;
        case XO_SLOTVAR:
            break;
        case XO_TTY:
        case XO_ASK:
        case XO_LIMITS:
            st = sh_cmd_err(cx, "xargs", 1,
                            "%s: refused: this box has no terminal",
                            id == XO_TTY   ? "--open-tty"
                            : id == XO_ASK ? "--interactive"
                                           : "--show-limits");
            if (id == XO_LIMITS)
                sh_cmd_err(cx, "xargs", 1,
                           "the command-line limit is %d "
                           "bytes",
                           XA_SIZE_DEFAULT);
            goto out;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    x.x_init = it.gi_nops > 0 ? it.gi_ops : xa_default_cmd;
    x.x_ninit = it.gi_nops > 0 ? it.gi_nops : 1;
    x.x_stdin = file == NULL;
    if (file != NULL) {
        // GNU's wording; a denial prints the policy's own text.
        char *q = sh_gquote(file);
        char *shown = box_asprintf("Cannot open input file %s", q ? q : file);
        box_free(q);
        x.x_in = shown ? sh_input_open_as(cx, "xargs", file, shown, &st) : NULL;
        box_free(shown);
    } else {
        x.x_in = sh_input_open(cx, "xargs", "-", &st);
    }
    if (x.x_in == NULL) {
        st = st ? st : 1;
        goto out;
    }
    if (x.x_delim >= 0)
        xa_read_delim(&x, &b);
    else
        xa_read_words(&x, &b);
    if (!x.x_done &&
        (x.x_args.av_n > 0 || (!x.x_ran && !x.x_norun && x.x_repl == NULL)))
        xa_flush(&x);
    st = x.x_done ? x.x_final : x.x_status;
out:
    sh_input_close(x.x_in);
    sh_argv_free(&x.x_args);
    box_buf_reset(&b);
    sh_gopt_free(&it);
    return st;
}
