/* SPDX-License-Identifier: Apache-2.0 */
/* tput and clear (ncurses 6.4 as Debian 12 ships them) from a built-in
 * terminfo table: the box has no terminal and reads no terminfo files,
 * so both answer harmlessly what the real ones would for TERM unset,
 * dumb, xterm or xterm-256color. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_sys.h"
#include "sh_gopt.h"

typedef enum tp_kind { TP_BOOL, TP_NUM, TP_STR } tp_kind;

/* One capability of a terminal: booleans present are true, numbers in
 * tc_num, strings (terminfo's parameterized form) in tc_str. */
typedef struct tp_cap {
    const char *tc_name;
    tp_kind tc_kind;
    int tc_num;
    const char *tc_str;
} tp_cap;

/* Every name tput knows, with its kind: an absent one is "not present"
 * (status 1, or -1 for a number), not "unknown". */
static const struct {
    const char *tk_name;
    tp_kind tk_kind;
    int tk_params; // what the standard string takes
} tp_known[] = {
    {"am", TP_BOOL, 0},   {"bce", TP_BOOL, 0},   {"km", TP_BOOL, 0},
    {"mir", TP_BOOL, 0},  {"msgr", TP_BOOL, 0},  {"xenl", TP_BOOL, 0},
    {"cols", TP_NUM, 0},  {"colors", TP_NUM, 0}, {"it", TP_NUM, 0},
    {"lines", TP_NUM, 0}, {"pairs", TP_NUM, 0},  {"bel", TP_STR, 0},
    {"blink", TP_STR, 0}, {"bold", TP_STR, 0},   {"civis", TP_STR, 0},
    {"clear", TP_STR, 0}, {"cnorm", TP_STR, 0},  {"cr", TP_STR, 0},
    {"cub1", TP_STR, 0},  {"cud1", TP_STR, 0},   {"cuf1", TP_STR, 0},
    {"cup", TP_STR, 2},   {"cuu1", TP_STR, 0},   {"cvvis", TP_STR, 0},
    {"dim", TP_STR, 0},   {"ed", TP_STR, 0},     {"el", TP_STR, 0},
    {"el1", TP_STR, 0},   {"home", TP_STR, 0},   {"hpa", TP_STR, 1},
    {"ht", TP_STR, 0},    {"ind", TP_STR, 0},    {"invis", TP_STR, 0},
    {"op", TP_STR, 0},    {"rev", TP_STR, 0},    {"ritm", TP_STR, 0},
    {"rmcup", TP_STR, 0}, {"rmso", TP_STR, 0},   {"rmul", TP_STR, 0},
    {"setab", TP_STR, 1}, {"setaf", TP_STR, 1},  {"sgr0", TP_STR, 0},
    {"sitm", TP_STR, 0},  {"smcup", TP_STR, 0},  {"smso", TP_STR, 0},
    {"smul", TP_STR, 0},  {"vpa", TP_STR, 1},
};

#define TP_XTERM_COMMON                                                        \
    {"am", TP_BOOL, 0, NULL}, {"bce", TP_BOOL, 0, NULL},                       \
        {"km", TP_BOOL, 0, NULL}, {"mir", TP_BOOL, 0, NULL},                   \
        {"msgr", TP_BOOL, 0, NULL}, {"xenl", TP_BOOL, 0, NULL},                \
        {"cols", TP_NUM, 80, NULL}, {"it", TP_NUM, 8, NULL},                   \
        {"lines", TP_NUM, 24, NULL}, {"bel", TP_STR, 0, "\a"},                 \
        {"blink", TP_STR, 0, "\033[5m"}, {"bold", TP_STR, 0, "\033[1m"},       \
        {"civis", TP_STR, 0, "\033[?25l"},                                     \
        {"clear", TP_STR, 0, "\033[H\033[2J\033[3J"},                          \
        {"cnorm", TP_STR, 0, "\033[?12l\033[?25h"}, {"cr", TP_STR, 0, "\r"},   \
        {"cub1", TP_STR, 0, "\b"}, {"cud1", TP_STR, 0, "\n"},                  \
        {"cuf1", TP_STR, 0, "\033[C"},                                         \
        {"cup", TP_STR, 0, "\033[%i%p1%d;%p2%dH"},                             \
        {"cuu1", TP_STR, 0, "\033[A"}, {"cvvis", TP_STR, 0, "\033[?12;25h"},   \
        {"dim", TP_STR, 0, "\033[2m"}, {"ed", TP_STR, 0, "\033[J"},            \
        {"el", TP_STR, 0, "\033[K"}, {"el1", TP_STR, 0, "\033[1K"},            \
        {"home", TP_STR, 0, "\033[H"}, {"hpa", TP_STR, 0, "\033[%i%p1%dG"},    \
        {"ht", TP_STR, 0, "\t"}, {"ind", TP_STR, 0, "\n"},                     \
        {"invis", TP_STR, 0, "\033[8m"}, {"op", TP_STR, 0, "\033[39;49m"},     \
        {"rev", TP_STR, 0, "\033[7m"}, {"ritm", TP_STR, 0, "\033[23m"},        \
        {"rmcup", TP_STR, 0, "\033[?1049l\033[23;0;0t"},                       \
        {"rmso", TP_STR, 0, "\033[27m"}, {"rmul", TP_STR, 0, "\033[24m"},      \
        {"sgr0", TP_STR, 0, "\033(B\033[m"}, {"sitm", TP_STR, 0, "\033[3m"},   \
        {"smcup", TP_STR, 0, "\033[?1049h\033[22;0;0t"},                       \
        {"smso", TP_STR, 0, "\033[7m"}, {"smul", TP_STR, 0, "\033[4m"},        \
    {                                                                          \
        "vpa", TP_STR, 0, "\033[%i%p1%dd"                                      \
    }

static const tp_cap tp_dumb[] = {
    {"am", TP_BOOL, 0, NULL},    {"cols", TP_NUM, 80, NULL},
    {"lines", TP_NUM, 24, NULL}, // ncurses' default where terminfo has none
    {"bel", TP_STR, 0, "\a"},    {"cr", TP_STR, 0, "\r"},
    {"cud1", TP_STR, 0, "\n"},   {"ind", TP_STR, 0, "\n"},
    {NULL, TP_BOOL, 0, NULL},
};

static const tp_cap tp_xterm[] = {
    TP_XTERM_COMMON,
    {"colors", TP_NUM, 8, NULL},
    {"pairs", TP_NUM, 64, NULL},
    {"setab", TP_STR, 0, "\033[4%p1%dm"},
    {"setaf", TP_STR, 0, "\033[3%p1%dm"},
    {NULL, TP_BOOL, 0, NULL},
};

static const tp_cap tp_xterm256[] = {
    TP_XTERM_COMMON,
    {"colors", TP_NUM, 256, NULL},
    {"pairs", TP_NUM, 65536, NULL},
    {"setab", TP_STR, 0,
     "\033[%?%p1%{8}%<%t4%p1%d%e%p1%{16}%<%t10%p1%{8}%-%d%e48;5;%p1%d%;m"},
    {"setaf", TP_STR, 0,
     "\033[%?%p1%{8}%<%t3%p1%d%e%p1%{16}%<%t9%p1%{8}%-%d%e38;5;%p1%d%;m"},
    {NULL, TP_BOOL, 0, NULL},
};

static const struct {
    const char *tt_name;
    const char *tt_long;
    const tp_cap *tt_caps;
} tp_terms[] = {
    {"dumb", "80-column dumb tty", tp_dumb},
    {"xterm", "xterm terminal emulator (X Window System)", tp_xterm},
    {"xterm-256color", "xterm with 256 colors", tp_xterm256},
};

static int
tp_term(const char *name)
{
    for (size_t i = 0; i < sizeof tp_terms / sizeof tp_terms[0]; i++)
        if (strcmp(tp_terms[i].tt_name, name) == 0)
            return (int)i;
    return -1;
}

static void
tp_push(long *stack, int *sp, long v)
{
    if (*sp < 16)
        stack[(*sp)++] = v;
}

/*
 * terminfo's parameter language (tparm) for the strings above: %p1-%p9
 * push a parameter, %{n} a constant, %d %c print, %i adds one to the
 * first two, %+ %- %* %/ %m %< %> %= %! arithmetic and tests, and
 * %? c %t a %e b %; as if-then-else.
 */
static box_err
tp_expand(box_buf *out, const char *s, const long *param)
{
    box_err acc = BOX_OK;
    long p[9];
    memcpy(p, param, sizeof p);
    long stack[16];
    int sp = 0;
#define PUSH(v) tp_push(stack, &sp, (v))
#define POP() (sp > 0 ? stack[--sp] : 0)
    for (; *s; s++) {
        if (*s != '%') {
            SH_SYS_ACC(acc, box_buf_putc(out, *s));
            continue;
        }
        char c = *++s;
        long a, b;
        switch (c) {
        case '%':
            SH_SYS_ACC(acc, box_buf_putc(out, '%'));
            break;
        case 'd':
            a = POP();
            SH_SYS_ACC(acc, box_buf_printf(out, "%ld", a));
            break;
        case 'c':
            a = POP();
            SH_SYS_ACC(acc, box_buf_putc(out, (char)a));
            break;
        case 'i':
            p[0]++;
            p[1]++;
            break;
        case 'p':
            if (s[1] >= '1' && s[1] <= '9')
                PUSH(p[*++s - '1']);
            break;
        case '{': {
            char *end;
            a = strtol(s + 1, &end, 10);
            PUSH(a);
            s = *end == '}' ? end : end - 1;
            break;
        }
        case '+':
        case '-':
        case '*':
        case '/':
        case 'm':
        case '<':
        case '>':
        case '=':
        case '&':
        case '|':
            b = POP();
            a = POP();
            PUSH(c == '+'   ? a + b
                 : c == '-' ? a - b
                 : c == '*' ? a * b
                 : c == '/' ? (b ? a / b : 0)
                 : c == 'm' ? (b ? a % b : 0)
                 : c == '<' ? a < b
                 : c == '>' ? a > b
                 : c == '=' ? a == b
                 : c == '&' ? a & b
                            : a | b);
            break;
        case '!':
            a = POP();
            PUSH(!a);
            break;
        case '?':
        case ';':
            break;
        case 't':
            if (POP() == 0) { // skip to the matching %e or %;
                int depth = 0;
                for (s++; *s; s++) {
                    if (*s != '%' || s[1] == '\0')
                        continue;
                    s++;
                    if (*s == '?')
                        depth++;
                    else if (*s == ';' && depth-- == 0)
                        break;
                    else if (*s == 'e' && depth == 0)
                        break;
                }
                if (*s == '\0')
                    return acc;
            }
            break;
        case 'e': { // the then-part ran: skip to the matching %;
            int depth = 0;
            for (s++; *s; s++) {
                if (*s != '%' || s[1] == '\0')
                    continue;
                s++;
                if (*s == '?')
                    depth++;
                else if (*s == ';' && depth-- == 0)
                    break;
            }
            if (*s == '\0')
                return acc;
            break;
        }
        default:
            if (c == '\0')
                return acc;
            break;
        }
    }
#undef PUSH
#undef POP
    return acc;
}

static const sh_gopt tput_opts[] = {
    {'T', NULL, SH_GARG_REQ},
    {'V', NULL, SH_GARG_NONE},
    {'S', NULL, SH_GARG_NONE},
    {'x', NULL, SH_GARG_NONE},
    {0},
};

static const char tput_usage[] =
    "Usage: tput [options] [command]\n"
    "\n"
    "Options:\n"
    "  -S <<       read commands from standard input\n"
    "  -T TERM     use this instead of $TERM\n"
    "  -V          print curses-version\n"
    "  -x          do not try to clear scrollback\n"
    "\n"
    "Commands:\n"
    "  clear       clear the screen\n"
    "  init        initialize the terminal\n"
    "  reset       reinitialize the terminal\n"
    "  capname     unlike clear/init/reset, print value for capability "
    "\"capname\"\n";

static const sh_gopt_spec tput_spec = {
    .gs_cmd = "tput",
    .gs_opts = tput_opts,
    .gs_flags = SH_GOPT_F_INORDER,
    .gs_fail = 2,
    .gs_help = tput_usage,
};

#define TP_VERSION "ncurses 6.4.20221231\n"

static int
tp_nomem(sh_ctx *cx)
{
    sh_errf(cx, "tput: memory exhausted");
    return 1;
}

/* One capability with its parameters: its status (0 shown or true, 1
 * absent or false, 4 unknown). */
static int
tput_cap(sh_ctx *cx, int term, bool noscroll, int n, char **words, box_buf *out)
{
    const char *name = words[0];
    if (strcmp(name, "longname") == 0) {
        if (box_buf_puts(out, tp_terms[term].tt_long) != BOX_OK)
            return tp_nomem(cx);
        return 0;
    }
    if (strcmp(name, "init") == 0 || strcmp(name, "reset") == 0) {
        sh_errf(cx, "tput: terminal attributes: No such device or address");
        (void)sh_puts(cx, 2, "\n"); // ncurses adds a blank line
        return 10;
    }
    int kind = -1;
    for (size_t i = 0; i < sizeof tp_known / sizeof tp_known[0]; i++)
        if (strcmp(tp_known[i].tk_name, name) == 0)
            kind = (int)tp_known[i].tk_kind;
    if (kind < 0) {
        sh_errf(cx, "tput: unknown terminfo capability '%s'", name);
        return 4;
    }
    const tp_cap *cap = NULL;
    for (const tp_cap *c = tp_terms[term].tt_caps; c->tc_name; c++)
        if (strcmp(c->tc_name, name) == 0)
            cap = c;
    if (kind == TP_NUM) {
        // COLUMNS and LINES win, as ncurses lets them (no terminal here
        // to ask for its size).
        const char *env = strcmp(name, "cols") == 0    ? "COLUMNS"
                          : strcmp(name, "lines") == 0 ? "LINES"
                                                       : NULL;
        const char *v = env != NULL ? sh_sys_getenv(cx, env) : NULL;
        long num = cap != NULL ? cap->tc_num : -1;
        char *end;
        long ev = v != NULL ? strtol(v, &end, 10) : 0;
        if (v != NULL && v[0] >= '0' && v[0] <= '9' && *end == '\0' && ev > 0)
            num = ev;
        if (box_buf_printf(out, "%ld\n", num) != BOX_OK)
            return tp_nomem(cx);
        return 0;
    }
    if (cap == NULL) // tput says 2 for a clear it cannot do
        return strcmp(name, "clear") == 0 ? 2 : 1;
    if (kind == TP_BOOL)
        return 0;
    long param[9] = {0};
    for (int i = 1; i < n && i <= 9; i++)
        param[i - 1] = strtol(words[i], NULL, 10);
    const char *s = cap->tc_str;
    if (strcmp(name, "clear") == 0 && noscroll) {
        if (box_buf_puts(out, "\033[H\033[2J") != BOX_OK)
            return tp_nomem(cx);
        return 0;
    }
    box_err e = n == 1 && strchr(s, '%') != NULL
                    ? box_buf_puts(out, s) // no parameters: the raw form
                    : tp_expand(out, s, param);
    return e == BOX_OK ? 0 : tp_nomem(cx);
}

/* The terminal named by -T or TERM: its row, or -1 after the message
 * (2: none named, 3: not one this table has). */
static int
tput_which(sh_ctx *cx, const char *t, int *st)
{
    if (t == NULL || t[0] == '\0') {
        sh_errf(cx, "tput: No value for $TERM and no -T specified");
        *st = 2;
        return -1;
    }
    int term = tp_term(t);
    if (term < 0) {
        sh_errf(cx, "tput: unknown terminal \"%s\"", t);
        *st = 3;
    }
    return term;
}

/* Runs the words as capnames, each taking as many of the following
 * words as its string has parameters. The last status is tput's. */
static int
tput_words(sh_ctx *cx, int term, bool noscroll, int n, char **w, box_buf *out)
{
    int st = 0;
    for (int i = 0; i < n;) {
        int want = 0;
        for (size_t k = 0; k < sizeof tp_known / sizeof tp_known[0]; k++)
            if (strcmp(tp_known[k].tk_name, w[i]) == 0)
                want = tp_known[k].tk_params;
        int take = 1;
        while (take <= want && i + take < n)
            take++;
        st = tput_cap(cx, term, noscroll, take, w + i, out);
        i += take;
        if (st == 4 || st == 10)
            break;
    }
    return st;
}

int
sh_cmd_tput(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &tput_spec, argc, argv);
    const char *arg, *t = sh_sys_getenv(cx, "TERM");
    bool noscroll = false, script = false;
    int id, st = 0;
    box_buf out;
    box_buf_init(&out, 1u << 16);
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'T') {
            t = arg;
        } else if (id == 'x') {
            noscroll = true;
        } else if (id == 'S') {
            script = true;
        } else if (id == 'V') {
            st = sh_puts(cx, 1, TP_VERSION) == SH_IO_OK ? 0 : 1;
            goto out;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    int term = tput_which(cx, t, &st);
    if (term < 0)
        goto out;
    if (script) { // -S: a capname and its parameters a line
        int ist = 0;
        sh_input *in = sh_input_open(cx, "tput", NULL, &ist);
        if (in == NULL) {
            st = ist;
            goto out;
        }
        const char *line;
        size_t len;
        while (st == 0 && sh_input_line(in, &line, &len) == 1) {
            char *copy = box_asprintf("%.*s", (int)len, line);
            if (copy == NULL)
                break;
            char *w[16], *save = NULL;
            int n = 0;
            for (char *tok = strtok_r(copy, " \t\n", &save);
                 tok != NULL && n < 16; tok = strtok_r(NULL, " \t\n", &save))
                w[n++] = tok;
            if (n > 0)
                st = tput_words(cx, term, noscroll, n, w, &out);
            box_free(copy);
        }
        sh_input_close(in);
        goto out;
    }
    if (it.gi_nops == 0) {
        (void)sh_puts(cx, 2, tput_usage);
        st = 2;
        goto out;
    }
    st = tput_words(cx, term, noscroll, it.gi_nops, it.gi_ops, &out);
out:
    if (out.b_len > 0 && sh_write(cx, 1, out.b_data, out.b_len) != SH_IO_OK)
        st = st ? st : 1;
    box_buf_reset(&out);
    sh_gopt_free(&it);
    return st;
}

static const sh_gopt clear_opts[] = {
    {'T', NULL, SH_GARG_REQ},
    {'V', NULL, SH_GARG_NONE},
    {'x', NULL, SH_GARG_NONE},
    {0},
};

static const char clear_usage[] =
    "Usage: clear [options]\n"
    "\n"
    "Options:\n"
    "  -T TERM     use this instead of $TERM\n"
    "  -V          print curses-version\n"
    "  -x          do not try to clear scrollback\n";

static const sh_gopt_spec clear_spec = {
    .gs_cmd = "clear",
    .gs_opts = clear_opts,
    .gs_fail = 1,
    .gs_help = clear_usage,
};

/* clear: the terminal's clear string (without the scrollback's with -x);
 * status 1 when TERM is unset or unknown, or the terminal has none. */
int
sh_cmd_clear(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    sh_gopt_iter it;
    sh_gopt_init(&it, cx, &clear_spec, argc, argv);
    const char *arg, *t = sh_sys_getenv(cx, "TERM");
    bool noscroll = false;
    int id, st = 0;
    while ((id = sh_gopt_next(&it, &arg, &st)) >= 0) {
        if (id == 'T') {
            t = arg;
        } else if (id == 'x') {
            noscroll = true;
        } else if (id == 'V') {
            st = sh_puts(cx, 1, TP_VERSION) == SH_IO_OK ? 0 : 1;
            goto out;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (it.gi_nops > 0) {
        (void)sh_puts(cx, 2, clear_usage);
        st = 1;
        goto out;
    }
    if (t == NULL || t[0] == '\0') {
        sh_errf(cx, "TERM environment variable not set.");
        st = 1;
        goto out;
    }
    int term = tp_term(t);
    if (term < 0) {
        sh_errf(cx, "'%s': unknown terminal type.", t);
        st = 1;
        goto out;
    }
    box_buf out;
    box_buf_init(&out, 4096);
    char *w[] = {"clear"};
    st = tput_cap(cx, term, noscroll, 1, w, &out) == 0 ? 0 : 1;
    if (out.b_len > 0 && sh_write(cx, 1, out.b_data, out.b_len) != SH_IO_OK)
        st = 1;
    box_buf_reset(&out);
out:
    sh_gopt_free(&it);
    return st;
}
