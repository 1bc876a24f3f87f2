/* SPDX-License-Identifier: Apache-2.0 */
/* printf, as bash 5.2's builtin has it (issue 19): every conversion,
 * %q quoting, %(fmt)T, `*` width and precision, -v VAR. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "box_buf.h"
#include "box_hex.h"
#include "sh_internal.h"

#define PF_MAX (16u << 20)
#define PF_USAGE "printf: usage: printf [-v var] format [arguments]\n"

/* One run of the builtin: the arguments left and what went wrong. */
typedef struct pf_run {
    sh_ctx *cx;
    char **av; // arguments after the format
    int ac, ai;
    bool bad;  // an invalid number: status 1, output goes on
    bool stop; // \c in a %b argument: nothing more is printed
} pf_run;

static const char *
pf_next(pf_run *r)
{
    return r->ai < r->ac ? r->av[r->ai++] : NULL;
}

/*
 * The shell's text is UTF-8 (bash runs the tests in C.UTF-8); these do not
 * depend on the process's locale, which a service never sets.
 */
static box_err
put_utf8(box_buf *b, unsigned long u)
{
    if (u > 0x10ffff || (u >= 0xd800 && u <= 0xdfff))
        return box_buf_printf(b, u > 0xffff ? "\\U%08lX" : "\\u%04lX", u);
    char m[4];
    size_t n;
    if (u < 0x80) {
        m[0] = (char)u;
        n = 1;
    } else if (u < 0x800) {
        m[0] = (char)(0xc0 | (u >> 6));
        m[1] = (char)(0x80 | (u & 0x3f));
        n = 2;
    } else if (u < 0x10000) {
        m[0] = (char)(0xe0 | (u >> 12));
        m[1] = (char)(0x80 | ((u >> 6) & 0x3f));
        m[2] = (char)(0x80 | (u & 0x3f));
        n = 3;
    } else {
        m[0] = (char)(0xf0 | (u >> 18));
        m[1] = (char)(0x80 | ((u >> 12) & 0x3f));
        m[2] = (char)(0x80 | ((u >> 6) & 0x3f));
        m[3] = (char)(0x80 | (u & 0x3f));
        n = 4;
    }
    return box_buf_append(b, m, n);
}

/* The UTF-8 character at s into *u: its length, 0 when s is no valid
 * character (bad lead byte, short, overlong, surrogate, too large). */
static size_t
get_utf8(const char *s, unsigned long *u)
{
    const unsigned char *p = (const unsigned char *)s;
    static const unsigned long min[] = {0, 0, 0x80, 0x800, 0x10000};
    size_t n = p[0] < 0x80                   ? 1
               : p[0] >= 0xc0 && p[0] < 0xe0 ? 2
               : p[0] >= 0xe0 && p[0] < 0xf0 ? 3
               : p[0] >= 0xf0 && p[0] < 0xf8 ? 4
                                             : 0;
    if (n == 0)
        return 0;
    unsigned long v = n == 1 ? p[0] : p[0] & (0x7fu >> n);
    for (size_t i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        v = v << 6 | (p[i] & 0x3f);
    }
    if (v < min[n] || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))
        return 0;
    *u = v;
    return n;
}

/* Printable as bash's C.UTF-8 sees it: no C0/C1 control, no DEL. */
static bool
printable(unsigned long u)
{
    return (u >= 0x20 && u < 0x7f) || u >= 0xa0;
}

/*
 * One backslash escape at s (after the backslash) into b; returns the
 * bytes consumed. inarg: a %b argument (\0nnn octal, \c stops) rather
 * than the format (\nnn, \c is literal, \' \" \? are themselves).
 */
static size_t
pf_escape(pf_run *r, const char *s, box_buf *b, bool inarg, box_err *e)
{
    static const char from[] = "abeEfnrtv\\", to[] = "\a\b\033\033\f\n\r\t\v\\";
    char c = s[0];
    const char *hit = c ? strchr(from, c) : NULL;
    if (hit != NULL) {
        *e = box_buf_putc(b, to[hit - from]);
        return 1;
    }
    if (c >= '0' && c <= '7') {
        int max = inarg && c == '0' ? 4 : 3, k = 0, v = 0;
        while (k < max && s[k] >= '0' && s[k] <= '7')
            v = v * 8 + (s[k++] - '0');
        *e = box_buf_putc(b, (char)v);
        return (size_t)k;
    }
    if (c == 'x' || c == 'u' || c == 'U') {
        int max = c == 'x' ? 2 : c == 'u' ? 4 : 8, k = 0;
        unsigned long v = 0;
        while (k < max && box_hexval(s[1 + k]) >= 0)
            v = v * 16 + (unsigned long)box_hexval(s[1 + k++]);
        if (k == 0) {
            sh_cmd_err(r->cx, "printf", 1, "missing %s digit for \\%c",
                       c == 'x' ? "hex" : "unicode", c);
            *e = box_buf_printf(b, "\\%c", c);
        } else {
            *e = c == 'x' ? box_buf_putc(b, (char)v) : put_utf8(b, v);
        }
        return 1 + (size_t)k;
    }
    if (c == 'c' && inarg) {
        r->stop = true;
        return 1;
    }
    if (!inarg && (c == '\'' || c == '"' || c == '?')) {
        *e = box_buf_putc(b, c);
        return 1;
    }
    if (c == '\0') {
        *e = box_buf_putc(b, '\\');
        return 0;
    }
    *e = box_buf_printf(b, "\\%c", c);
    return 1;
}

/* bash's message for a number strtoimax stopped short in. */
static void
pf_invalid(pf_run *r, const char *s)
{
    const char *what = "number";
    if (s[0] == '0' && s[1] >= '0' && s[1] <= '9')
        what = "octal number";
    else if (s[0] == '0' && s[1] == 'x')
        what = "hex number";
    sh_cmd_err(r->cx, "printf", 1, "%s: invalid %s", s, what);
    r->bad = true;
}

/* 'c / "c: the code of the (multibyte) character after the quote. */
static long
pf_charcode(const char *s)
{
    unsigned long u;
    if (s[1] == '\0')
        return 0;
    return get_utf8(s + 1, &u) > 0 ? (long)u : (unsigned char)s[1];
}

static void
pf_range(pf_run *r, const char *s)
{
    sh_cmd_err(r->cx, "printf", 1, "warning: %s: %s", s, strerror(ERANGE));
}

static intmax_t
pf_int(pf_run *r, const char *s)
{
    if (s == NULL)
        return 0;
    if (s[0] == '\'' || s[0] == '"')
        return pf_charcode(s);
    char *end;
    errno = 0;
    intmax_t v = strtoimax(s, &end, 0);
    if (*end != '\0')
        pf_invalid(r, s);
    else if (errno == ERANGE)
        pf_range(r, s);
    return v;
}

static uintmax_t
pf_uint(pf_run *r, const char *s)
{
    if (s == NULL)
        return 0;
    if (s[0] == '\'' || s[0] == '"')
        return (uintmax_t)pf_charcode(s);
    char *end;
    errno = 0;
    uintmax_t v = strtoumax(s, &end, 0);
    if (*end != '\0')
        pf_invalid(r, s);
    else if (errno == ERANGE)
        pf_range(r, s);
    return v;
}

static long double
pf_float(pf_run *r, const char *s)
{
    if (s == NULL)
        return 0;
    if (s[0] == '\'' || s[0] == '"')
        return pf_charcode(s);
    char *end;
    errno = 0;
    long double v = strtold(s, &end);
    if (*end != '\0')
        pf_invalid(r, s);
    else if (errno == ERANGE)
        pf_range(r, s);
    return v;
}

/* `*` width or precision: an int argument, clamped as bash does. */
static int
pf_star(pf_run *r)
{
    const char *s = pf_next(r);
    intmax_t v = pf_int(r, s);
    if (v > INT_MAX || v < INT_MIN) {
        pf_range(r, s);
        return v > 0 ? INT_MAX : INT_MIN;
    }
    return (int)v;
}

/* Does s need $'…' rather than backslashes (bash's ansic_shouldquote)? */
static bool
q_needs_ansic(const char *s)
{
    while (*s) {
        unsigned long u;
        size_t k = get_utf8(s, &u);
        if (k == 0 || !printable(u))
            return true;
        s += k;
    }
    return false;
}

static box_err
q_ansic(box_buf *b, const char *s)
{
    static const char from[] = "\a\b\033\f\n\r\t\v\\'", to[] = "abEfnrtv\\'";
    box_err e = box_buf_puts(b, "$'");
    while (*s && e == BOX_OK) {
        const char *hit = strchr(from, *s);
        unsigned long u;
        size_t k;
        if (hit != NULL) {
            e = box_buf_printf(b, "\\%c", to[hit - from]);
            k = 1;
        } else if ((k = get_utf8(s, &u)) > 0 && printable(u)) {
            e = box_buf_append(b, s, k);
        } else {
            e = box_buf_printf(b, "\\%03o", (unsigned char)*s);
            k = 1;
        }
        s += k;
    }
    return e == BOX_OK ? box_buf_putc(b, '\'') : e;
}

/* %q: the word quoted so the shell reads it back (bash's rules). */
static box_err
pf_quote(box_buf *b, const char *s)
{
    if (*s == '\0')
        return box_buf_puts(b, "''");
    if (q_needs_ansic(s))
        return q_ansic(b, s);
    box_err e = BOX_OK;
    for (const char *p = s; *p && e == BOX_OK; p++) {
        bool esc = strchr(" \t\n'\"\\|&;()<>!{}*[?]^$`,", *p) != NULL ||
                   (p == s && (*p == '~' || *p == '#'));
        if (esc)
            e = box_buf_putc(b, '\\');
        if (e == BOX_OK)
            e = box_buf_putc(b, *p);
    }
    return e;
}

/* %(fmt)T: the argument is seconds (-1 now, -2 the shell's start). */
static box_err
pf_time(pf_run *r, box_buf *b, const char *fmt, size_t flen)
{
    const char *arg = pf_next(r);
    intmax_t v = arg ? pf_int(r, arg) : -1;
    // The shell records no start time of its own: -2 is "now" too.
    time_t t = v < 0 ? time(NULL) : (time_t)v;
    char f[256], out[1024];
    if (flen == 0 || flen >= sizeof f)
        snprintf(f, sizeof f, "%s", flen == 0 ? "%X" : "");
    else
        snprintf(f, sizeof f, "%.*s", (int)flen, fmt);
    struct tm tm;
    if (localtime_r(&t, &tm) == NULL)
        return BOX_OK;
    size_t n = strftime(out, sizeof out, f, &tm);
    return box_buf_append(b, out, n);
}

/* A string conversion's bytes padded to width, cut to precision. */
static box_err
pf_pad(box_buf *b, const char *s, size_t n, bool left, int width, int prec)
{
    if (prec >= 0 && (size_t)prec < n)
        n = (size_t)prec;
    size_t pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
    if (pad > PF_MAX)
        return BOX_ETOOBIG; // would pass the cap one byte at a time
    box_err e = BOX_OK;
    for (size_t i = 0; !left && i < pad && e == BOX_OK; i++)
        e = box_buf_putc(b, ' ');
    if (e == BOX_OK)
        e = box_buf_append(b, s, n);
    for (size_t i = 0; left && i < pad && e == BOX_OK; i++)
        e = box_buf_putc(b, ' ');
    return e;
}

/* One directive; *p points after the '%'. Returns -1 to go on, or the
 * status to stop with (bash stops at a bad directive). */
static int
pf_directive(pf_run *r, box_buf *b, const char **pp, box_err *e)
{
    const char *start = *pp - 1, *p = *pp;
    char flags[16];
    size_t nf = 0;
    while (*p && strchr("#'-+ 0", *p)) {
        if (nf < sizeof flags - 2 && *p != '\'')
            flags[nf++] = *p;
        p++;
    }
    int width = 0, prec = -1;
    if (*p == '*') {
        width = pf_star(r);
        p++;
    } else {
        while (*p >= '0' && *p <= '9')
            width = width < INT_MAX / 10 ? width * 10 + (*p - '0') : INT_MAX,
            p++;
    }
    if (*p == '.') {
        p++;
        prec = 0;
        if (*p == '*') {
            prec = pf_star(r);
            p++;
        } else {
            while (*p >= '0' && *p <= '9')
                prec = prec < INT_MAX / 10 ? prec * 10 + (*p - '0') : INT_MAX,
                p++;
        }
    }
    while (*p && strchr("hjlLtz", *p))
        p++;
    if (width < 0) {
        flags[nf++] = '-';
        width = width == INT_MIN ? INT_MAX : -width;
    }
    flags[nf] = '\0';
    bool left = strchr(flags, '-') != NULL;
    char conv = *p;
    if (conv == '\0') {
        sh_cmd_err(r->cx, "printf", 1, "`%s': missing format character", start);
        return 1;
    }
    p++;
    *pp = p;
    char spec[64];
    int sl = snprintf(spec, sizeof spec, "%%%s%d", flags, width);
    if (prec >= 0)
        sl += snprintf(spec + sl, sizeof spec - (size_t)sl, ".%d", prec);
    // A number padded past the cap cannot fit it, and libc would count
    // every byte of a width like 9223372036854775807 before failing.
    if (strchr("diuoxXfFeEgGaA", conv) != NULL &&
        (width > (int)PF_MAX || prec > (int)PF_MAX)) {
        *e = BOX_ETOOBIG;
        return -1;
    }
    box_buf tmp;
    box_buf_init(&tmp, PF_MAX);
    switch (conv) {
    case 'd':
    case 'i':
        snprintf(spec + sl, sizeof spec - (size_t)sl, "j%c", conv);
        *e = box_buf_printf(b, spec, pf_int(r, pf_next(r)));
        break;
    case 'u':
    case 'o':
    case 'x':
    case 'X':
        snprintf(spec + sl, sizeof spec - (size_t)sl, "j%c", conv);
        *e = box_buf_printf(b, spec, pf_uint(r, pf_next(r)));
        break;
    case 'f':
    case 'F':
    case 'e':
    case 'E':
    case 'g':
    case 'G':
    case 'a':
    case 'A':
        snprintf(spec + sl, sizeof spec - (size_t)sl, "L%c", conv);
        *e = box_buf_printf(b, spec, pf_float(r, pf_next(r)));
        break;
    case 'c': {
        const char *a = pf_next(r);
        char c = a ? a[0] : '\0';
        *e = pf_pad(b, &c, 1, left, width, -1);
        break;
    }
    case 's':
    case 'b':
    case 'q': {
        const char *a = pf_next(r);
        if (a == NULL)
            a = "";
        if (conv == 's')
            *e = box_buf_puts(&tmp, a);
        else if (conv == 'q')
            *e = pf_quote(&tmp, a);
        else
            for (const char *s = a; *s && !r->stop && *e == BOX_OK;)
                if (*s == '\\')
                    s += 1 + pf_escape(r, s + 1, &tmp, true, e);
                else
                    *e = box_buf_putc(&tmp, *s++);
        if (*e == BOX_OK)
            *e = pf_pad(b, tmp.b_data ? tmp.b_data : "", tmp.b_len, left, width,
                        prec);
        break;
    }
    case '(': {
        // The format runs to the matching ')' (nested ones count).
        const char *close = p;
        for (int depth = 1; *close; close++) {
            depth += *close == '(' ? 1 : *close == ')' ? -1 : 0;
            if (depth == 0)
                break;
        }
        if (*close == '\0') {
            // bash reads past the end here; the box says so instead.
            box_buf_reset(&tmp);
            sh_cmd_err(r->cx, "printf", 1, "`%s': missing `)'", start);
            return 1;
        }
        if (close[1] != 'T') {
            // bash warns, prints the '%' and goes on after it.
            sh_cmd_err(r->cx, "printf", 1,
                       "warning: `%c': invalid time format specification",
                       close[1]);
            *pp = start + 1;
            *e = box_buf_putc(b, '%');
            break;
        }
        *e = pf_time(r, &tmp, p, (size_t)(close - p));
        *pp = close + 2;
        if (*e == BOX_OK)
            *e = pf_pad(b, tmp.b_data ? tmp.b_data : "", tmp.b_len, left, width,
                        prec);
        break;
    }
    default:
        box_buf_reset(&tmp);
        sh_cmd_err(r->cx, "printf", 1, "`%c': invalid format character", conv);
        return 1;
    }
    box_buf_reset(&tmp);
    return -1;
}

/* Formats everything into b; returns the status bash would. */
static int
pf_format(pf_run *r, box_buf *b, const char *fmt, box_err *e)
{
    do {
        int first = r->ai;
        for (const char *p = fmt; *p && !r->stop && *e == BOX_OK;) {
            if (*p == '\\') {
                p++;
                p += pf_escape(r, p, b, false, e);
            } else if (*p != '%') {
                *e = box_buf_putc(b, *p++);
            } else if (p[1] == '%') {
                *e = box_buf_putc(b, '%');
                p += 2;
            } else {
                p++;
                int st = pf_directive(r, b, &p, e);
                if (st >= 0)
                    return st;
            }
        }
        if (r->ai == first)
            break; // the format used no argument
    } while (r->ai < r->ac && !r->stop && *e == BOX_OK);
    return r->bad ? 1 : 0;
}

static int
pf_usage(sh_ctx *cx)
{
    sh_puts(cx, 2, PF_USAGE);
    return 2;
}

/* printf [-v VAR] [--] FORMAT [ARG…] */
int
sh_bi_printf(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    const char *var = NULL;
    int i = 1;
    while (i < argc && argv[i][0] == '-' && argv[i][1] != '\0') {
        if (strcmp(argv[i], "--") == 0) {
            i++;
            break;
        }
        if (argv[i][1] != 'v') {
            sh_cmd_err(cx, "printf", 2, "-%c: invalid option", argv[i][1]);
            return pf_usage(cx);
        }
        if (argv[i][2] != '\0') {
            var = argv[i] + 2;
        } else if (i + 1 < argc) {
            var = argv[++i];
        } else {
            sh_cmd_err(cx, "printf", 2, "-v: option requires an argument");
            return pf_usage(cx);
        }
        i++;
    }
    if (var != NULL && !sh_target_valid(var))
        return sh_cmd_err(cx, "printf", 2, "`%s': not a valid identifier", var);
    if (i >= argc)
        return pf_usage(cx);
    pf_run r = {.cx = cx, .av = argv + i + 1, .ac = argc - i - 1};
    box_buf b;
    box_buf_init(&b, PF_MAX);
    box_err e = BOX_OK;
    int st = pf_format(&r, &b, argv[i], &e);
    if (e != BOX_OK) {
        st = sh_cmd_err(cx, "printf", 1, "output too large");
    } else if (var != NULL) {
        int rc =
            sh_assign_target(cx, NULL, var, b.b_data ? b.b_data : "", b.b_len);
        if (rc != 0)
            st = rc;
    } else if (b.b_len > 0 && sh_write(cx, 1, b.b_data, b.b_len) != SH_IO_OK) {
        if (cx->cx_flow == SH_FLOW_NONE)
            st =
                sh_cmd_err(cx, "printf", 1, "write error: Bad file descriptor");
        else
            st = cx->cx_status;
    }
    box_buf_reset(&b);
    return st;
}
