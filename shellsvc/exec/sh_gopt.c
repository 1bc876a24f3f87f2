/* SPDX-License-Identifier: Apache-2.0 */
/* GNU-style option walk (getopt_long's rules, glibc 2.36's messages). */
#include "sh_gopt.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "sh_internal.h"

// Every GNU tool takes these two; they join each table's names when a
// long option is matched, so `--ver` can be as ambiguous as GNU's.
#define GOPT_HELP (-10)
#define GOPT_VERSION (-11)
static const sh_gopt gopt_common[] = {
    {GOPT_HELP, "help", SH_GARG_NONE},
    {GOPT_VERSION, "version", SH_GARG_NONE},
};

void
sh_gopt_init(sh_gopt_iter *it, sh_ctx *cx, const sh_gopt_spec *s, int argc,
             char **argv)
{
    memset(it, 0, sizeof *it);
    it->gi_spec = s;
    it->gi_cx = cx;
    it->gi_argc = argc;
    it->gi_argv = argv;
    it->gi_i = 1;
}

void
sh_gopt_free(sh_gopt_iter *it)
{
    box_free(it->gi_ops);
    it->gi_ops = NULL;
    it->gi_nops = 0;
}

/* The "Try …" tail of every usage error, after gs_usage when set. */
int
sh_gopt_try(sh_gopt_iter *it)
{
    const sh_gopt_spec *s = it->gi_spec;
    char line[256];
    if (s->gs_usage != NULL) {
        (void)sh_puts(it->gi_cx, 2, s->gs_usage);
        (void)sh_puts(it->gi_cx, 2, "\n");
    }
    if (s->gs_flags & SH_GOPT_F_NOTRY)
        return s->gs_fail;
    if (s->gs_try != NULL) {
        (void)sh_puts(it->gi_cx, 2, s->gs_try);
        return s->gs_fail;
    }
    snprintf(line, sizeof line, "Try '%s --help' for more information.\n",
             s->gs_cmd);
    (void)sh_puts(it->gi_cx, 2, line);
    return s->gs_fail;
}

/* "CMD: MSG" and the "Try …" tail; returns gs_fail. */
static int
gopt_vfail(sh_gopt_iter *it, const char *fmt, va_list ap)
{
    char buf[1024];
    vsnprintf(buf, sizeof buf, fmt, ap);
    sh_errf(it->gi_cx, "%s: %s", it->gi_spec->gs_cmd, buf);
    return sh_gopt_try(it);
}

int
sh_gopt_usage_error(sh_gopt_iter *it, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int st = gopt_vfail(it, fmt, ap);
    va_end(ap);
    return st;
}

/* A usage error of the walk itself: *status set, SH_GOPT_EXIT. */
static int
gopt_fail(sh_gopt_iter *it, int *status, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
gopt_fail(sh_gopt_iter *it, int *status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    *status = gopt_vfail(it, fmt, ap);
    va_end(ap);
    return SH_GOPT_EXIT;
}

static bool
gopt_push(sh_gopt_iter *it, char *word)
{
    if (it->gi_ops == NULL) {
        it->gi_ops = box_calloc((size_t)it->gi_argc + 1, sizeof(char *));
        if (it->gi_ops == NULL)
            return false;
    }
    it->gi_ops[it->gi_nops++] = word;
    if (!it->gi_dashdash)
        it->gi_nplain = it->gi_nops;
    return true;
}

/* --help / --version: printed here, status 0. */
static int
gopt_common_run(sh_gopt_iter *it, int id, int *status)
{
    const sh_gopt_spec *s = it->gi_spec;
    if (id == GOPT_HELP) {
        const char *help = s->gs_help != NULL ? s->gs_help : "";
        size_t hl = strlen(help);
        (void)sh_puts(it->gi_cx, 1, help);
        if (hl == 0 || help[hl - 1] != '\n')
            (void)sh_puts(it->gi_cx, 1, "\n");
    } else {
        char line[256];
        snprintf(line, sizeof line,
                 "%s (strands-shell) %s\nThe box's own %s: every file it "
                 "touches is decided by policy.\n",
                 s->gs_cmd, BOX_VERSION, s->gs_cmd);
        (void)sh_puts(it->gi_cx, 1, line);
    }
    *status = 0;
    return SH_GOPT_EXIT;
}

int
sh_gopt_version(sh_gopt_iter *it)
{
    int st = 0;
    (void)gopt_common_run(it, GOPT_VERSION, &st);
    return st;
}

/* The long option named by name (len bytes, before any '='): an exact
 * match, else the only option it is a prefix of. */
static int
gopt_long(sh_gopt_iter *it, const char *word, const char **arg, int *status)
{
    const char *name = word + 2;
    const char *eq = strchr(name, '=');
    size_t len = eq != NULL ? (size_t)(eq - name) : strlen(name);
    const sh_gopt *tables[2] = {it->gi_spec->gs_opts, gopt_common};
    size_t sizes[2] = {SIZE_MAX, sizeof gopt_common / sizeof gopt_common[0]};
    const sh_gopt *exact = NULL, *first = NULL;
    size_t nprefix = 0;
    for (int t = 0; t < 2 && exact == NULL; t++)
        for (size_t i = 0; i < sizes[t] && tables[t][i].go_id != 0; i++) {
            const sh_gopt *o = &tables[t][i];
            if (o->go_long == NULL || strncmp(o->go_long, name, len) != 0)
                continue;
            if (o->go_long[len] == '\0') {
                exact = o;
                break;
            }
            // The same option listed twice is no ambiguity.
            if (first == NULL || first->go_id != o->go_id ||
                first->go_arg != o->go_arg)
                nprefix++;
            if (first == NULL)
                first = o;
        }
    const sh_gopt *o = exact != NULL ? exact : nprefix == 1 ? first : NULL;
    if (o == NULL && nprefix > 1) {
        box_buf b;
        box_buf_init(&b, 4096);
        // glibc names the whole word, "=ARG" included: '--o=:'.
        box_err rv = box_buf_printf(&b, "option '%s' is ambiguous; "
                                        "possibilities:",
                                    word);
        for (int t = 0; t < 2 && rv == BOX_OK; t++)
            for (size_t i = 0; i < sizes[t] && tables[t][i].go_id != 0 &&
                               rv == BOX_OK;
                 i++)
                if (tables[t][i].go_long != NULL &&
                    strncmp(tables[t][i].go_long, name, len) == 0 &&
                    // glibc lists an alias of the first match once
                    (&tables[t][i] == first ||
                     tables[t][i].go_id != first->go_id ||
                     tables[t][i].go_arg != first->go_arg))
                    rv = box_buf_printf(&b, " '--%s'", tables[t][i].go_long);
        int r = gopt_fail(it, status, "%s", rv == BOX_OK ? b.b_data : "");
        box_buf_reset(&b);
        return r;
    }
    if (o == NULL)
        return gopt_fail(it, status, "unrecognized option '%s'", word);
    *arg = NULL;
    if (eq != NULL) {
        if (o->go_arg == SH_GARG_NONE)
            return gopt_fail(it, status,
                             "option '--%s' doesn't allow an argument",
                             o->go_long);
        *arg = eq + 1;
    } else if (o->go_arg == SH_GARG_REQ) {
        if (it->gi_i >= it->gi_argc)
            return gopt_fail(it, status, "option '--%s' requires an argument",
                             o->go_long);
        *arg = it->gi_argv[it->gi_i++];
    }
    if (o->go_id == GOPT_HELP || o->go_id == GOPT_VERSION)
        return gopt_common_run(it, o->go_id, status);
    return o->go_id;
}

/* The next letter of the bundle in gi_short. */
static int
gopt_short(sh_gopt_iter *it, const char **arg, int *status)
{
    char c = *it->gi_short++;
    const sh_gopt *o = NULL;
    for (const sh_gopt *p = it->gi_spec->gs_opts; p->go_id != 0; p++)
        if (p->go_id == (unsigned char)c && p->go_id < 128) {
            o = p;
            break;
        }
    if (o == NULL) {
        it->gi_short = NULL;
        return gopt_fail(it, status, "invalid option -- '%c'", c);
    }
    *arg = NULL;
    if (o->go_arg != SH_GARG_NONE) {
        if (*it->gi_short != '\0') {
            *arg = it->gi_short;
        } else if (o->go_arg == SH_GARG_REQ) {
            if (it->gi_i >= it->gi_argc) {
                it->gi_short = NULL;
                return gopt_fail(it, status,
                                 "option requires an argument -- '%c'", c);
            }
            *arg = it->gi_argv[it->gi_i++];
        }
        it->gi_short = NULL;
    } else if (*it->gi_short == '\0') {
        it->gi_short = NULL;
    }
    return o->go_id;
}

static bool
gopt_all_digits(const char *s)
{
    if (*s == '\0')
        return false;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return false;
    return true;
}

int
sh_gopt_next(sh_gopt_iter *it, const char **arg, int *status)
{
    *arg = NULL;
    it->gi_as_long = false;
    if (it->gi_short != NULL)
        return gopt_short(it, arg, status);
    while (it->gi_i < it->gi_argc) {
        char *w = it->gi_argv[it->gi_i++];
        bool negnum = (it->gi_spec->gs_flags & SH_GOPT_F_NEGNUM) &&
                      w[0] == '-' &&
                      (w[1] == '.' || (w[1] >= '0' && w[1] <= '9'));
        if (it->gi_only_ops || w[0] != '-' || w[1] == '\0' || negnum) {
            if (!gopt_push(it, w)) {
                *status = sh_cmd_err(it->gi_cx, it->gi_spec->gs_cmd, 1,
                                     "out of memory");
                return SH_GOPT_EXIT;
            }
            if (it->gi_spec->gs_flags & SH_GOPT_F_INORDER)
                it->gi_only_ops = true;
            continue;
        }
        if (strcmp(w, "--") == 0) {
            it->gi_only_ops = true;
            it->gi_dashdash = true;
            continue;
        }
        if (w[1] == '-') {
            it->gi_as_long = true;
            return gopt_long(it, w, arg, status);
        }
        if ((it->gi_spec->gs_flags & SH_GOPT_F_NUMBER) &&
            gopt_all_digits(w + 1)) {
            *arg = w + 1;
            return SH_GOPT_NUMBER;
        }
        it->gi_short = w + 1;
        return gopt_short(it, arg, status);
    }
    return SH_GOPT_END;
}

char *
sh_gquote(const char *s)
{
    static const char esc[] = "\a\b\t\n\v\f\r";
    static const char letter[] = "abtnvfr";
    box_buf b;
    box_buf_init(&b, 64u * 1024u);
    box_err rv = box_buf_puts(&b, "\xe2\x80\x98"); // ‘
    for (const unsigned char *p = (const unsigned char *)s;
         *p != '\0' && rv == BOX_OK; p++) {
        const char *e = *p != '\0' ? strchr(esc, *p) : NULL;
        if (*p == '\\')
            rv = box_buf_puts(&b, "\\\\");
        else if (e != NULL)
            rv = box_buf_printf(&b, "\\%c", letter[e - esc]);
        else if (*p < 0x20 || *p == 0x7f)
            rv = box_buf_printf(&b, "\\%03o", *p);
        else
            rv = box_buf_putc(&b, (char)*p);
    }
    if (rv == BOX_OK)
        rv = box_buf_puts(&b, "\xe2\x80\x99"); // ’
    if (rv != BOX_OK) {
        box_buf_reset(&b);
        return NULL;
    }
    return box_buf_take(&b);
}

/* ---- quotef: file names in messages (gnulib's shell-escape style) ---- */

/* The length of the character at p: a valid UTF-8 sequence that prints
 * (C.UTF-8: not a C1 control), else 0 for one byte to escape. */
static size_t
gq_printable_len(const unsigned char *p)
{
    if (*p >= 0x20 && *p < 0x7f)
        return 1;
    size_t n = *p >= 0xf0 && *p <= 0xf4   ? 4
               : *p >= 0xe0 && *p <= 0xef ? 3
               : *p >= 0xc2 && *p <= 0xdf ? 2
                                          : 0;
    unsigned cp = n == 4 ? *p & 7u : n == 3 ? *p & 15u : *p & 31u;
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        cp = cp << 6 | (p[i] & 0x3fu);
    }
    bool overlong = (n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000);
    if (n == 0 || overlong || cp > 0x10ffff || (cp >= 0xd800 && cp < 0xe000) ||
        cp < 0xa0)
        return 0;
    return n;
}

/* A byte a shell reads specially (so the name gets quotes), at index i
 * of a name of len bytes. quotef adds ':' to the list. */
static bool
gq_special(unsigned char c, size_t i, size_t len)
{
    if (c == '#' || c == '~')
        return i == 0;
    if (c == '{' || c == '}')
        return len == 1;
    return c != '\0' && strchr(" !\"$&'()*:;<=>?[\\^`|", c) != NULL;
}

/* Whether a byte reads the same inside "…" as in the name: double
 * quotes are used for a name whose only trouble is a single quote. */
static bool
gq_dq_safe(unsigned char c, size_t i, size_t len)
{
    if (c == '#' || c == '~')
        return i == 0;
    if (c == '{' || c == '}')
        return len == 1;
    return c >= 0x80 || c == ' ' || c == '\'' || c == '@' ||
           strchr("%+,-./:]_", c) != NULL || (c >= '0' && c <= '9') ||
           (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

/*
 * The single-quoted form: unprintable bytes in $'…' pieces ($'\t',
 * $'\377'), a quote as '\''. escaped says a $'…' piece is open; gnulib
 * lets the state of a first pass over the name leak into the pass that
 * writes it (a name with a quote, whose last quote is followed by an
 * unprintable byte, starts '''), and GNU's messages show that.
 */
static box_err
gq_single(box_buf *b, const unsigned char *s, bool escaped)
{
    static const char esc[] = "\a\b\t\n\v\f\r";
    static const char letter[] = "abtnvfr";
    box_err rv = box_buf_putc(b, '\'');
    for (const unsigned char *p = s; *p != '\0' && rv == BOX_OK;) {
        size_t n = gq_printable_len(p);
        if (n == 0) {
            if (!escaped)
                rv = box_buf_puts(b, "'$'");
            escaped = true;
            const char *e = *p < 0x20 ? strchr(esc, *p) : NULL;
            if (rv == BOX_OK && e != NULL)
                rv = box_buf_printf(b, "\\%c", letter[e - esc]);
            else if (rv == BOX_OK)
                rv = box_buf_printf(b, "\\%03o", *p);
            p++;
        } else if (*p == '\'') {
            rv = box_buf_puts(b, "'\\''");
            escaped = false;
            p++;
        } else {
            if (escaped)
                rv = box_buf_puts(b, "''");
            escaped = false;
            if (rv == BOX_OK)
                rv = box_buf_append(b, p, n);
            p += n;
        }
    }
    return rv == BOX_OK ? box_buf_putc(b, '\'') : rv;
}

/* quotef, or quoteaf (always) when a name that reads back unchanged is
 * still to be quoted. */
static char *
gquote_name(const char *name, bool always)
{
    const unsigned char *s = (const unsigned char *)name;
    size_t len = strlen(name);
    bool plain = len > 0 && !always, quote = false, dq = true,
         escaped = false;
    for (size_t i = 0; i < len;) {
        size_t n = gq_printable_len(s + i);
        if (n == 0) {
            plain = dq = false;
            escaped = true;
            i++;
            continue;
        }
        if (gq_special(s[i], i, len))
            plain = false;
        if (!gq_dq_safe(s[i], i, len))
            dq = false;
        if (s[i] == '\'')
            quote = true;
        escaped = false;
        i += n;
    }
    box_buf b;
    box_buf_init(&b, 64u * 1024u);
    box_err rv;
    if (plain)
        rv = box_buf_puts(&b, name);
    else if (quote && dq)
        rv = box_buf_printf(&b, "\"%s\"", name);
    else
        rv = gq_single(&b, s, quote && escaped);
    if (rv != BOX_OK) {
        box_buf_reset(&b);
        return NULL;
    }
    return box_buf_take(&b);
}

char *
sh_gquotef(const char *name)
{
    return gquote_name(name, false);
}

char *
sh_gquoteaf(const char *name)
{
    return gquote_name(name, true);
}

int
sh_gopt_argmatch(sh_gopt_iter *it, const char *opt, const char *arg,
                 const char *const *names, const int *vals, int *status)
{
    size_t len = strlen(arg);
    int found = -1;
    bool ambiguous = false;
    for (int i = 0; names[i] != NULL; i++) {
        if (strncmp(names[i], arg, len) != 0)
            continue;
        if (names[i][len] == '\0')
            return i;
        if (found < 0)
            found = i;
        else if (vals[found] != vals[i])
            ambiguous = true;
    }
    if (found >= 0 && !ambiguous)
        return found;
    char *qa = sh_gquote(arg), *qo = sh_gquote(opt);
    sh_errf(it->gi_cx, "%s: %s argument %s for %s", it->gi_spec->gs_cmd,
            ambiguous ? "ambiguous" : "invalid", qa ? qa : arg,
            qo ? qo : opt);
    box_free(qa);
    box_free(qo);
    box_buf b;
    box_buf_init(&b, 4096);
    box_err rv = box_buf_puts(&b, "Valid arguments are:");
    for (int i = 0; names[i] != NULL && rv == BOX_OK; i++) {
        bool same = i > 0 && vals[i] == vals[i - 1];
        rv = box_buf_printf(&b, "%s\xe2\x80\x98%s\xe2\x80\x99",
                            same ? ", " : "\n  - ", names[i]);
    }
    if (rv == BOX_OK)
        rv = box_buf_putc(&b, '\n');
    if (rv == BOX_OK)
        (void)sh_puts(it->gi_cx, 2, b.b_data);
    box_buf_reset(&b);
    (void)sh_gopt_try(it);
    *status = 1;
    return -1;
}

int
sh_gopt_bad_arg(sh_gopt_iter *it, const char *shrt, const char *lng,
                const char *arg)
{
    char *q = sh_gquoteaf(arg);
    sh_errf(it->gi_cx, "%s: invalid %s argument %s", it->gi_spec->gs_cmd,
            it->gi_as_long ? lng : shrt, q != NULL ? q : arg);
    box_free(q);
    return 1;
}
