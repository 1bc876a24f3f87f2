/* SPDX-License-Identifier: Apache-2.0 */
/* sed's regexes: sed's own escapes translated for glibc's regcomp, the
 * match through regexec with REG_STARTEND (no copy of the line), and the
 * s command's rewrite of the pattern space. */
#include <ctype.h>
#include <limits.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>
#include <wchar.h>
#include <wctype.h>

#include "box_alloc.h"
#include "cmd_regex.h"
#include "cmd_sed.h"
#include "sh_glob.h"

/*
 * C.UTF-8 for regcomp, regexec and case changes, as GNU sed runs in the
 * box's locale (no process calls setlocale): '.' is one character, \U
 * makes 'é' 'É'. The shell's one C.UTF-8 object (sh_glob_locale), loaded
 * before the process confines itself; without it, bytes.
 */
locale_t
sed_locale_enter(void)
{
    locale_t u8 = sh_glob_locale();
    return u8 != (locale_t)0 ? uselocale(u8) : (locale_t)0;
}

void
sed_locale_leave(locale_t old)
{
    if (old != (locale_t)0)
        uselocale(old);
}

size_t
sed_char_len(const char *p, size_t n)
{
    if ((unsigned char)*p < 0x80)
        return 1;
    mbstate_t st;
    memset(&st, 0, sizeof st);
    size_t k = mbrtowc(NULL, p, n, &st);
    return k == (size_t)-1 || k == (size_t)-2 || k == 0 || k > 8 ? 1 : k;
}

/* The value of \dNNN, \oNNN, \xHH at t[*i] (the letter); false when no
 * digit follows (the escape is then the letter itself). */
static bool
re_numeric(const char *t, size_t len, size_t *i, unsigned char *out)
{
    char k = t[*i];
    unsigned base = k == 'd' ? 10 : k == 'o' ? 8 : 16;
    size_t maxd = k == 'x' ? 2 : 3, n = 0, j = *i + 1;
    unsigned v = 0;
    for (; j < len && n < maxd; j++, n++) {
        int c = (unsigned char)t[j], d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (base == 16 && isxdigit(c))
            d = tolower(c) - 'a' + 10;
        else
            break;
        if ((unsigned)d >= base)
            break;
        v = v * base + (unsigned)d;
    }
    if (n == 0)
        return false;
    *out = (unsigned char)v;
    *i = j - 1;
    return true;
}

/* One of sed's character escapes (\a \f \n \r \t \v \cX \d \o \x) at
 * t[*i]: true with *out; *i left on the escape's last byte. */
bool
sed_char_escape(const char *t, size_t len, size_t *i, unsigned char *out)
{
    static const char from[] = "afnrtv", to[] = "\a\f\n\r\t\v";
    char c = t[*i];
    const char *p = c != '\0' ? strchr(from, c) : NULL;
    if (p != NULL) {
        *out = (unsigned char)to[p - from];
        return true;
    }
    if (c == 'c' && *i + 1 < len) {
        *out = (unsigned char)(toupper((unsigned char)t[*i + 1]) ^ 0x40);
        (*i)++;
        return true;
    }
    if (c == 'd' || c == 'o' || c == 'x')
        return re_numeric(t, len, i, out);
    return false;
}

/* The pattern regcomp reads: \DELIM is DELIM, sed's character escapes
 * are their bytes; inside a bracket expression only those escapes
 * change (a backslash is otherwise itself there). */
static box_err
re_translate(box_buf *b, const char *t, size_t len, char delim)
{
    box_err rc = BOX_OK;
    bool in_br = false;
    for (size_t i = 0; i < len && rc == BOX_OK; i++) {
        char c = t[i];
        if (in_br) {
            if (c == ']') { // a leading ']' went in with the '['
                in_br = false;
            } else if (c == '[' && i + 1 < len &&
                       strchr(":.=", t[i + 1]) != NULL) {
                // [:class:] [.coll.] [=equiv=] go whole
                const char *e = NULL;
                for (size_t j = i + 2; j + 1 < len; j++)
                    if (t[j] == t[i + 1] && t[j + 1] == ']') {
                        e = t + j + 2;
                        break;
                    }
                if (e != NULL) {
                    rc = box_buf_append(b, t + i, (size_t)(e - (t + i)));
                    i = (size_t)(e - t) - 1;
                    continue;
                }
            } else if (c == '\\' && i + 1 < len) {
                size_t j = i + 1;
                unsigned char v;
                if (t[j] == 'n' || t[j] == 't' || t[j] == delim) {
                    v = t[j] == 'n'   ? '\n'
                        : t[j] == 't' ? '\t'
                                      : (unsigned char)delim;
                    rc = box_buf_putc(b, (char)v);
                    i = j;
                    continue;
                }
            }
            rc = box_buf_putc(b, c);
            continue;
        }
        if (c == '[') {
            in_br = true;
            rc = box_buf_putc(b, c);
            if (i + 1 < len && t[i + 1] == '^')
                rc = box_buf_putc(b, t[++i]);
            if (rc == BOX_OK && i + 1 < len && t[i + 1] == ']')
                rc = box_buf_putc(b, t[++i]);
            continue;
        }
        if (c != '\\' || i + 1 >= len) {
            rc = box_buf_putc(b, c);
            continue;
        }
        i++;
        unsigned char v;
        if (t[i] == delim && delim != '\n') {
            rc = box_buf_putc(b, delim);
        } else if (t[i] == '\n') {
            rc = box_buf_putc(b, '\n');
        } else if (sed_char_escape(t, len, &i, &v)) {
            rc = box_buf_putc(b, (char)v); // GNU: as if typed
        } else {
            char two[3] = {'\\', t[i], '\0'};
            rc = box_buf_puts(b, two);
        }
    }
    if (rc == BOX_OK && b->b_data == NULL)
        rc = box_buf_putc(b, '\0'), box_buf_truncate(b, 0);
    return rc;
}

/* Whether a group closes that never opened: glibc's regcomp says
 * "Unmatched ( or \\(" for both, GNU sed's "Unmatched ) or \\)" here. */
static bool
re_close_unmatched(const char *pat, bool ere)
{
    int depth = 0;
    bool br = false;
    for (const char *p = pat; *p != '\0'; p++) {
        if (br) {
            br = *p != ']';
            continue;
        }
        if (*p == '[') {
            br = true;
            if (p[1] == '^')
                p++;
            if (p[1] == ']')
                p++;
            continue;
        }
        bool esc = *p == '\\' && p[1] != '\0';
        char c = esc ? *++p : *p;
        if (c == '(' && esc != ere)
            depth++;
        else if (c == ')' && esc != ere && --depth < 0)
            return true;
    }
    return false;
}

sed_re *
sed_re_compile(sed_prog *p, const char *text, size_t len, char delim, int flags,
               char *err, size_t errsize)
{
    box_buf pat;
    box_buf_init(&pat, SED_HOLD_MAX);
    sed_re *re = box_calloc(1, sizeof *re);
    if (re == NULL || re_translate(&pat, text, len, delim) != BOX_OK) {
        snprintf(err, errsize, "out of memory");
        goto fail;
    }
    flags |= p->p_extended ? REG_EXTENDED : 0;
    int rc = cmd_regcomp(&re->re_rx, pat.b_data, flags);
    if (rc == REG_EPAREN && re_close_unmatched(pat.b_data, p->p_extended)) {
        snprintf(err, errsize, "Unmatched ) or \\)");
        goto fail;
    }
    if (rc != 0) {
        regerror(rc, &re->re_rx, err, errsize);
        regfree(&re->re_rx);
        goto fail;
    }
    re->re_nsub = re->re_rx.re_nsub;
    re->re_next = p->p_res;
    p->p_res = re;
    box_buf_reset(&pat);
    return re;
fail:
    box_free(re);
    box_buf_reset(&pat);
    return NULL;
}

int
sed_re_match(sed *s, const sed_re *re, const char *subject, size_t from,
             size_t len, bool notbol)
{
    if (re == NULL)
        re = s->s_last_re;
    if (re == NULL) {
        s->s_run.cr_status = sed_err(s, "-e expression #1, char 0: no "
                                        "previous regular expression");
        return -1;
    }
    s->s_last_re = re;
    size_t nm = re->re_nsub + 1;
    if (nm > s->s_nm) {
        regmatch_t *m = box_realloc(s->s_m, nm * sizeof *m);
        if (m == NULL) {
            s->s_run.cr_status = sed_err(s, "out of memory");
            return -1;
        }
        s->s_m = m;
        s->s_nm = nm;
    }
    s->s_m[0].rm_so = (regoff_t)from;
    s->s_m[0].rm_eo = (regoff_t)len;
    int rc = regexec(&re->re_rx, subject != NULL ? subject : "", nm, s->s_m,
                     REG_STARTEND | (notbol ? REG_NOTBOL : 0));
    return rc == 0;
}

/* Appends p[0, n) to b under the replacement's case state; a character
 * past ASCII changes case as the locale says (towupper), whole. */
static box_err
rep_put(box_buf *b, const char *p, size_t n, sed_case *mode, sed_case *one)
{
    if (*mode == SC_NONE && *one == SC_NONE)
        return box_buf_append(b, p, n);
    for (size_t i = 0; i < n;) {
        sed_case want = *one != SC_NONE ? *one : *mode;
        bool up = want == SC_UPPER || want == SC_ONE_UPPER;
        *one = SC_NONE;
        unsigned char c = (unsigned char)p[i];
        if (want == SC_NONE) {
            if (box_buf_putc(b, (char)c) != BOX_OK)
                return BOX_ENOMEM;
            i++;
            continue;
        }
        if (c < 0x80) {
            c = (unsigned char)(up ? toupper(c) : tolower(c));
            if (box_buf_putc(b, (char)c) != BOX_OK)
                return BOX_ENOMEM;
            i++;
            continue;
        }
        mbstate_t st;
        memset(&st, 0, sizeof st);
        wchar_t wc;
        size_t k = mbrtowc(&wc, p + i, n - i, &st);
        char out[MB_LEN_MAX];
        size_t m = (size_t)-1;
        if (k != (size_t)-1 && k != (size_t)-2 && k != 0) {
            memset(&st, 0, sizeof st);
            m = wcrtomb(
                out,
                (wchar_t)(up ? towupper((wint_t)wc) : towlower((wint_t)wc)),
                &st);
        } else {
            k = 1;
        }
        box_err rc = m != (size_t)-1 ? box_buf_append(b, out, m)
                                     : box_buf_append(b, p + i, k);
        if (rc != BOX_OK)
            return rc;
        i += k;
    }
    return BOX_OK;
}

/* The replacement for the match in s->s_m, appended to b. */
static box_err
rep_build(sed *s, const sed_subst *sb, const char *ps, box_buf *b)
{
    sed_case mode = SC_NONE, one = SC_NONE;
    for (size_t i = 0; i < sb->sb_nreps; i++) {
        const sed_rep *r = &sb->sb_reps[i];
        box_err rc = BOX_OK;
        if (r->rp_kind == SR_TEXT) {
            rc = rep_put(b, sb->sb_text + r->rp_off, r->rp_len, &mode, &one);
        } else if (r->rp_kind == SR_GROUP) {
            const regmatch_t *m = &s->s_m[r->rp_group];
            if ((size_t)r->rp_group < s->s_nm && m->rm_so >= 0)
                rc = rep_put(b, ps + m->rm_so, (size_t)(m->rm_eo - m->rm_so),
                             &mode, &one);
        } else if (r->rp_case == SC_ONE_LOWER || r->rp_case == SC_ONE_UPPER) {
            one = r->rp_case;
        } else {
            mode = r->rp_case;
            one = SC_NONE;
        }
        if (rc != BOX_OK)
            return rc;
    }
    return BOX_OK;
}

/*
 * The s command over the pattern space: matches from the left, each
 * counted; the Nth (and with g every later one) replaced. An empty match
 * right after the previous match is skipped (GNU: "baaac" with s/a*\/x/g
 * is "xbxcx"). The new pattern space is built in s_tmp, then swapped in.
 */
int
sed_substitute(sed *s, const sed_subst *sb)
{
    const char *ps = s->s_ps.b_data != NULL ? s->s_ps.b_data : "";
    size_t len = s->s_ps.b_len, pos = 0, prev_end = SIZE_MAX;
    uintmax_t count = 0;
    bool done = false, oom = false;
    box_buf *t = &s->s_tmp;
    box_buf_truncate(t, 0);
    while (pos <= len && !done) {
        int m = sed_re_match(s, sb->sb_re, ps, pos, len, false);
        if (m < 0)
            return -1;
        if (m == 0)
            break;
        size_t so = (size_t)s->s_m[0].rm_so, eo = (size_t)s->s_m[0].rm_eo;
        if (so == eo && so == prev_end) {
            if (so >= len)
                break;
            oom |= box_buf_append(t, ps + pos, so + 1 - pos) != BOX_OK;
            pos = so + 1;
            continue;
        }
        oom |= box_buf_append(t, ps + pos, so - pos) != BOX_OK;
        count++;
        if (count >= sb->sb_nth) {
            oom |= rep_build(s, sb, ps, t) != BOX_OK;
            done = !sb->sb_global;
        } else {
            oom |= box_buf_append(t, ps + so, eo - so) != BOX_OK;
        }
        prev_end = eo;
        pos = eo;
        if (so == eo && !done) {
            if (so < len)
                oom |= box_buf_append(t, ps + so, 1) != BOX_OK;
            pos = so + 1;
        }
        if (oom)
            break;
    }
    if (count < sb->sb_nth && !oom)
        return 0;
    if (pos < len)
        oom |= box_buf_append(t, ps + pos, len - pos) != BOX_OK;
    if (oom) {
        s->s_run.cr_status = sed_err(s,
                                     "pattern space too large (limit %u "
                                     "MiB)",
                                     SED_HOLD_MAX >> 20);
        return -1;
    }
    box_buf tmp = s->s_ps;
    s->s_ps = *t;
    *t = tmp;
    if (s->s_ps.b_data == NULL && box_buf_putc(&s->s_ps, '\0') == BOX_OK)
        box_buf_truncate(&s->s_ps, 0);
    return 1;
}
