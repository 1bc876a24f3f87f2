/* SPDX-License-Identifier: Apache-2.0 */
/* find -printf: GNU findutils 4.9's directives that the kernel's metadata
 * can answer; the rest are refused when the expression is read. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "box_alloc.h"
#include "cmd_find.h"

/* Directives needing what the kernel does not report (owners, link
 * counts, blocks, other times): refused rather than guessed. */
static const char unsupported[] = "aAbcCgGkFnSuUZB";
/* Directives the walk answers. */
static const char supported[] = "pfhPHsmMyYdtTilD%";

int
fnd_printf_check(fnd_run *f, const char *fmt)
{
    bool warned = false;
    for (const char *s = fmt; *s; s++) {
        if (*s == '\\' && s[1] != '\0') {
            s++;
            if (!strchr("ntr0abfvc\\", *s) && !(*s >= '0' && *s <= '7') &&
                !warned) {
                sh_errf(f->f_cx, "find: warning: unrecognized escape `\\%c'",
                        *s);
                warned = true;
            }
            continue;
        }
        if (*s == '\\') {
            // Printed as itself, as GNU find does.
            sh_errf(f->f_cx,
                    "find: warning: escape `\\' followed by nothing at all");
            continue;
        }
        if (*s != '%')
            continue;
        if (s[1] == '\0')
            return sh_cmd_err(f->f_cx, "find", 1,
                              "error: %% at end of format string");
        s++;
        s += strspn(s, "-+ #0");
        s += strspn(s, "0123456789");
        if (*s == '.') {
            s++;
            s += strspn(s, "0123456789");
        }
        if (*s == '\0')
            break;
        if (*s != '\0' && strchr(unsupported, *s)) {
            return sh_cmd_err(f->f_cx, "find", 1,
                              "-printf: %%%c is not supported by this box's "
                              "find (the kernel does not report it)",
                              *s);
        }
        if (*s == 'T' && s[1] != '\0')
            s++;
        else if (!strchr(supported, *s)) {
            sh_errf(f->f_cx,
                    "find: warning: unrecognized format directive `%%%c'", *s);
        }
    }
    return 0;
}

static char
type_char(mode_t m)
{
    return S_ISREG(m)    ? 'f'
           : S_ISDIR(m)  ? 'd'
           : S_ISLNK(m)  ? 'l'
           : S_ISFIFO(m) ? 'p'
           : S_ISSOCK(m) ? 's'
           : S_ISCHR(m)  ? 'c'
           : S_ISBLK(m)  ? 'b'
                         : 'U';
}

/* ls -l's mode string. */
static void
mode_string(mode_t m, char out[11])
{
    char t = type_char(m);
    out[0] = t == 'f' ? '-' : t == 'U' ? '?' : t;
    const char *rwx = "rwxrwxrwx";
    for (int i = 0; i < 9; i++)
        out[1 + i] = (m & (0400u >> i)) ? rwx[i] : '-';
    if (m & S_ISUID)
        out[3] = out[3] == 'x' ? 's' : 'S';
    if (m & S_ISGID)
        out[6] = out[6] == 'x' ? 's' : 'S';
    if (m & S_ISVTX)
        out[9] = out[9] == 'x' ? 't' : 'T';
    out[10] = '\0';
}

/* %t and %Tk: the kernel gives whole seconds, so the fraction GNU prints
 * is always zeros. */
static void
time_field(char k, int64_t t, char *out, size_t size)
{
    static const char frac[] = ".0000000000";
    time_t tt = (time_t)t;
    struct tm tm;
    if (localtime_r(&tt, &tm) == NULL) {
        snprintf(out, size, "%" PRId64, t);
        return;
    }
    char fmt[32];
    const char *f;
    switch (k) {
    case '@':
        snprintf(out, size, "%" PRId64 "%s", t, frac);
        return;
    case 't':
        f = "%a %b %e %H:%M:%S.0000000000 %Y";
        break;
    case 'S':
        f = "%S.0000000000";
        break;
    case 'T':
        f = "%H:%M:%S.0000000000";
        break;
    case '+':
        f = "%Y-%m-%d+%H:%M:%S.0000000000";
        break;
    default:
        snprintf(fmt, sizeof fmt, "%%%c", k);
        f = fmt;
    }
    if (strftime(out, size, f, &tm) == 0)
        out[0] = '\0';
}

/* Writes val padded as the directive's flags and width say. */
static void
put_field(fnd_run *f, const char *spec, size_t speclen, const char *val,
          bool number)
{
    if (speclen == 0) {
        fnd_out(f, val, strlen(val));
        return;
    }
    char fmt[64];
    char buf[8192];
    if (number) {
        snprintf(fmt, sizeof fmt, "%%%.*sjd", (int)speclen, spec);
        long long v = 0;
        sscanf(val, "%lld", &v);
        snprintf(buf, sizeof buf, fmt, (intmax_t)v);
    } else {
        size_t j = 0;
        for (size_t i = 0; i < speclen && j + 1 < sizeof fmt - 2; i++)
            if (spec[i] != '0' || (i > 0 && strchr("0123456789.", spec[i - 1])))
                if (spec[i] != '+' && spec[i] != ' ' && spec[i] != '#')
                    fmt[1 + j++] = spec[i];
        fmt[0] = '%';
        fmt[1 + j] = 's';
        fmt[2 + j] = '\0';
        snprintf(buf, sizeof buf, fmt, val);
    }
    fnd_out(f, buf, strlen(buf));
}

/* The text of directive c for e into out (the caller's); NULL to print
 * nothing. */
static const char *
directive(fnd_run *f, char c, char k, fnd_entry *e, char *out, size_t size,
          char **owned)
{
    const char *p = e->e_path;
    size_t start, len;
    switch (c) {
    case 'p':
        return p;
    case 'f':
        fnd_base(p, &start, &len);
        return p + start;
    case 'h': {
        const char *sl = strrchr(p, '/');
        if (sl == NULL)
            return ".";
        *owned = box_strndup(p, (size_t)(sl - p));
        return *owned;
    }
    case 'P': {
        size_t sl = strlen(e->e_start);
        const char *r = strncmp(p, e->e_start, sl) == 0 ? p + sl : p;
        while (*r == '/' && e->e_depth > 0)
            r++;
        return e->e_depth == 0 ? "" : r;
    }
    case 'H':
        return e->e_start;
    case 's':
        snprintf(out, size, "%" PRIu64, e->e_st.ks_size);
        return out;
    case 'm':
        snprintf(out, size, "%o", (unsigned)(e->e_st.ks_mode & 07777));
        return out;
    case 'M':
        mode_string(e->e_st.ks_mode, out);
        return out;
    case 'y':
        out[0] = type_char(e->e_st.ks_mode);
        out[1] = '\0';
        return out;
    case 'Y': {
        out[0] = type_char(e->e_st.ks_mode);
        out[1] = '\0';
        if (!e->e_followed && S_ISLNK(e->e_st.ks_mode)) {
            sh_ctx *cx = f->f_cx;
            sh_kernel_result r = {0};
            sh_kernel_stat st;
            if (sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, p, &st,
                                    &r) == 0)
                out[0] = type_char(st.ks_mode);
            else
                out[0] = r.kr_errno == ELOOP ? 'L' : 'N';
            sh_kernel_result_clear(&r);
        }
        return out;
    }
    case 'd':
        snprintf(out, size, "%u", e->e_depth);
        return out;
    case 'i':
        snprintf(out, size, "%" PRIu64, e->e_st.ks_ino);
        return out;
    case 'D':
        snprintf(out, size, "%" PRIu64, e->e_st.ks_dev);
        return out;
    case 't':
        time_field('t', e->e_st.ks_mtime, out, size);
        return out;
    case 'T':
        if (k == 0) // "%T" at the end: printed as it is
            return NULL;
        time_field(k, e->e_st.ks_mtime, out, size);
        return out;
    case 'l': {
        bool link = e->e_followed || S_ISLNK(e->e_st.ks_mode);
        if (!link)
            return "";
        sh_ctx *cx = f->f_cx;
        sh_kernel_result r = {0};
        if (sh_kernel_readlink(sh_kern(cx), cx->cx_st->st_cwd, p, owned, &r) !=
            0) {
            // Under -L a followed entry that is no link has no target.
            if (r.kr_outcome == SH_KR_OS_ERROR && r.kr_errno == EINVAL)
                sh_kernel_result_clear(&r);
            else
                fnd_fail(f, p, &r);
            return "";
        }
        sh_kernel_result_clear(&r);
        return *owned;
    }
    }
    return NULL;
}

static int
octal_escape(const char **sp)
{
    const char *s = *sp;
    int v = 0, n = 0;
    while (n < 3 && *s >= '0' && *s <= '7') {
        v = v * 8 + (*s++ - '0');
        n++;
    }
    *sp = s - 1;
    return v;
}

void
fnd_printf(fnd_run *f, const char *fmt, fnd_entry *e)
{
    char tmp[512];
    for (const char *s = fmt; *s && !f->f_stop; s++) {
        if (*s == '\\' && s[1] != '\0') {
            s++;
            char c;
            switch (*s) {
            case 'n':
                c = '\n';
                break;
            case 't':
                c = '\t';
                break;
            case 'r':
                c = '\r';
                break;
            case 'a':
                c = '\a';
                break;
            case 'b':
                c = '\b';
                break;
            case 'f':
                c = '\f';
                break;
            case 'v':
                c = '\v';
                break;
            case '\\':
                c = '\\';
                break;
            case 'c':
                return; // stop this entry's output
            default:
                if (*s >= '0' && *s <= '7') {
                    c = (char)octal_escape(&s);
                    break;
                }
                fnd_out(f, s - 1, 2);
                continue;
            }
            fnd_out(f, &c, 1);
            continue;
        }
        if (*s != '%') {
            // A lone trailing backslash is a run of one.
            size_t run = *s == '\\' ? 1 : strcspn(s, "\\%");
            fnd_out(f, s, run);
            s += run - 1;
            continue;
        }
        const char *spec = s + 1;
        const char *d = spec + strspn(spec, "-+ #0");
        d += strspn(d, "0123456789");
        if (*d == '.') {
            d++;
            d += strspn(d, "0123456789");
        }
        if (*d == '\0') {
            fnd_out(f, s, strlen(s));
            return;
        }
        if (*d == '%') {
            fnd_out(f, "%", 1);
            s = d;
            continue;
        }
        char k = 0;
        if (*d == 'T' && d[1] != '\0')
            k = d[1];
        char *owned = NULL;
        const char *val = directive(f, *d, k, e, tmp, sizeof tmp, &owned);
        if (val == NULL) {
            fnd_out(f, s, (size_t)(d - s) + 1);
        } else {
            put_field(f, spec, (size_t)(d - spec), val, *d == 'd');
        }
        box_free(owned);
        s = k ? d + 1 : d;
    }
}
