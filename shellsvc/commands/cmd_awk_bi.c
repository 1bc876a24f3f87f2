/* SPDX-License-Identifier: Apache-2.0 */
/* awk's builtin functions (POSIX's and gawk's gensub, systime, strftime),
 * printf's formatting, and character counts in UTF-8 (C.UTF-8, as gawk
 * runs in the box's locale: length, substr, index and match count
 * characters). */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <wchar.h>
#include <wctype.h>

#include "box_alloc.h"
#include "cmd_awk.h"

/* ORDER AWK_BI */
const char *const awk_bi_names[BI_N] = {
    "atan2", "close", "cos", "exp", "fflush", "gensub", "gsub", "index",
    "int", "length", "log", "match", "rand", "sin", "split", "sprintf",
    "sqrt", "srand", "strftime", "sub", "substr", "system", "systime",
    "tolower", "toupper",
};

/* The argument counts each takes (ORDER AWK_BI). */
static const struct {
    signed char min, max;
} bi_args[BI_N] = {
    {2, 2}, {1, 2}, {1, 1}, {1, 1}, {0, 1}, {3, 4}, {2, 3}, {2, 2},
    {1, 1}, {0, 1}, {1, 1}, {2, 3}, {0, 0}, {1, 1}, {2, 4}, {1, 127},
    {1, 1}, {0, 1}, {0, 3}, {2, 3}, {2, 3}, {1, 1}, {0, 0},
    {1, 1}, {1, 1},
};

bool
awk_bi_args_ok(int id, int n)
{
    return n >= bi_args[id].min && n <= bi_args[id].max;
}

int
awk_bi_lookup(const char *name, size_t n)
{
    for (int i = 0; i < BI_N; i++)
        if (strlen(awk_bi_names[i]) == n && memcmp(awk_bi_names[i], name, n) == 0)
            return i;
    return -1;
}

/* ---- UTF-8 ---- */

static size_t
u8_step(const char *s, size_t n, size_t i)
{
    unsigned char c = (unsigned char)s[i];
    size_t k = 1;
    if (c >= 0xc0)
        while (i + k < n && k < 4 && ((unsigned char)s[i + k] & 0xc0) == 0x80)
            k++;
    return k;
}

size_t
awk_u8_len(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i += u8_step(s, n, i))
        c++;
    return c;
}

/* The byte offset of character index ci (0-based) in s. */
static size_t
u8_off(const char *s, size_t n, size_t ci)
{
    size_t i = 0;
    while (ci > 0 && i < n) {
        i += u8_step(s, n, i);
        ci--;
    }
    return i;
}

/* ---- helpers ---- */

static awk_node *
arg_at(awk_node *n, int i)
{
    awk_node *x = n->n_a;
    while (x != NULL && i-- > 0)
        x = x->n_next;
    return x;
}

static double
num_arg(awk *a, awk_node *n, int i)
{
    awk_val v = awk_eval(a, arg_at(n, i));
    double d = awk_tonum(&v);
    awk_val_free(&v);
    return d;
}

/* ---- sub, gsub, gensub ---- */

/* The replacement of one match into out, by POSIX's rules as gawk has
 * them: & is the match, \& a literal &, \\& a backslash then the match,
 * any other backslash itself; gensub: \0-\9 the groups, \\ one
 * backslash. */
static bool
put_repl(box_buf *out, const char *r, size_t rl, const char *s,
         const regmatch_t *m, size_t nm, bool gensub)
{
    bool ok = true;
    for (size_t i = 0; i < rl && ok; i++) {
        char c = r[i];
        if (c == '\\' && gensub && i + 1 < rl) {
            char d = r[i + 1];
            i++;
            if (d >= '0' && d <= '9') {
                size_t g = (size_t)(d - '0');
                if (g < nm && m[g].rm_so >= 0)
                    ok = box_buf_append(out, s + m[g].rm_so,
                                        (size_t)(m[g].rm_eo - m[g].rm_so)) ==
                         BOX_OK;
            } else {
                ok = box_buf_putc(out, d) == BOX_OK; // \& \\ \q: the byte
            }
            continue;
        }
        if (c == '\\' && !gensub) {
            // a run of k backslashes before '&': k/2 backslashes, then a
            // literal '&' (k odd) or the match; elsewhere they are literal
            size_t k = 0;
            while (i + k < rl && r[i + k] == '\\')
                k++;
            if (i + k < rl && r[i + k] == '&') {
                for (size_t j = 0; j < k / 2 && ok; j++)
                    ok = box_buf_putc(out, '\\') == BOX_OK;
                if (k % 2 == 1) {
                    ok = ok && box_buf_putc(out, '&') == BOX_OK;
                    i += k;
                    continue;
                }
                i += k - 1; // the '&' comes next: the match
                continue;
            }
            ok = box_buf_append(out, r + i, k) == BOX_OK;
            i += k - 1;
            continue;
        }
        if (c == '&') {
            ok = box_buf_append(out, s + m[0].rm_so,
                                (size_t)(m[0].rm_eo - m[0].rm_so)) == BOX_OK;
            continue;
        }
        ok = box_buf_putc(out, c) == BOX_OK;
    }
    return ok;
}

/* Substitutes in s: which 0 for all, else the which-th match only.
 * Returns the count, the result in out. */
static long
substitute(awk *a, awk_re *re, const char *r, size_t rl, const char *s,
           size_t n, long which, bool gensub, box_buf *out)
{
    long count = 0, seen = 0;
    size_t pos = 0, copied = 0;
    regmatch_t m[10];
    size_t nm = 10;
    bool ok = true;
    while (pos <= n && ok) {
        if (re->r_empty) {
            m[0].rm_so = m[0].rm_eo = (regoff_t)pos;
            for (size_t g = 1; g < nm; g++)
                m[g].rm_so = m[g].rm_eo = -1;
        } else {
            m[0].rm_so = (regoff_t)pos;
            m[0].rm_eo = (regoff_t)n;
            if (regexec(&re->r_rx, s, nm, m,
                        REG_STARTEND | (pos > 0 ? REG_NOTBOL : 0)) != 0)
                break;
        }
        size_t so = (size_t)m[0].rm_so, eo = (size_t)m[0].rm_eo;
        seen++;
        if (which == 0 || seen == which) {
            ok = box_buf_append(out, s + copied, so - copied) == BOX_OK &&
                 put_repl(out, r, rl, s, m, nm, gensub);
            copied = eo;
            count++;
            if (which != 0)
                break;
        }
        if (eo == so) {
            // an empty match: the next character stays, and the search
            // goes on after it
            if (so < n) {
                size_t k = u8_step(s, n, so);
                if (copied <= so) {
                    ok = ok && box_buf_append(out, s + copied, so + k - copied) ==
                                   BOX_OK;
                    copied = so + k;
                }
            }
            pos = so + (so < n ? u8_step(s, n, so) : 1);
        } else {
            pos = eo;
        }
    }
    if (ok && copied < n)
        ok = box_buf_append(out, s + copied, n - copied) == BOX_OK;
    awk_charge(a, out->b_len + n);
    if (!ok)
        awk_fatal(a, "string too long (limit %u MiB)", AWK_STR_MAX >> 20);
    return count;
}

static awk_val
bi_sub(awk *a, awk_node *n, bool global)
{
    awk_re *re = awk_re_of(a, arg_at(n, 0));
    awk_val rv = awk_eval(a, arg_at(n, 1));
    awk_node *target = arg_at(n, 2);
    awk_val tv;
    if (target != NULL)
        tv = awk_eval(a, target);
    else {
        size_t l;
        const char *s = awk_record(a, &l);
        tv = awk_str(a, s, l);
    }
    if (re == NULL || a->a_fatal) {
        awk_val_free(&rv);
        awk_val_free(&tv);
        return awk_num(0);
    }
    size_t rl, tl;
    const char *r = awk_tostr(a, &rv, &rl);
    const char *t = awk_tostr(a, &tv, &tl);
    box_buf out;
    box_buf_init(&out, AWK_STR_MAX);
    long c = substitute(a, re, r, rl, t, tl, global ? 0 : 1, false, &out);
    if (c > 0 && !a->a_fatal && box_buf_putc(&out, '\0') == BOX_OK) {
        size_t len = out.b_len - 1;
        awk_val nv = awk_str_take(box_buf_take(&out), len);
        if (target == NULL) {
            awk_set_record(a, nv.v_str, len);
            awk_val_free(&nv);
        } else if (target->n_op == AN_VAR || target->n_op == AN_LVAR ||
                   target->n_op == AN_INDEX || target->n_op == AN_FIELD) {
            awk_assign(a, target, nv);
        } else {
            awk_val_free(&nv);
        }
    }
    box_buf_reset(&out);
    awk_val_free(&rv);
    awk_val_free(&tv);
    return awk_num((double)c);
}

static awk_val
bi_gensub(awk *a, awk_node *n)
{
    awk_re *re = awk_re_of(a, arg_at(n, 0));
    awk_val rv = awk_eval(a, arg_at(n, 1));
    awk_val hv = awk_eval(a, arg_at(n, 2));
    awk_node *target = arg_at(n, 3);
    awk_val tv;
    if (target != NULL)
        tv = awk_eval(a, target);
    else {
        size_t l;
        const char *s = awk_record(a, &l);
        tv = awk_str(a, s, l);
    }
    awk_val res = awk_num(0);
    if (re != NULL && !a->a_fatal) {
        size_t rl, tl, hl;
        const char *r = awk_tostr(a, &rv, &rl);
        const char *t = awk_tostr(a, &tv, &tl);
        long which;
        const char *h = awk_tostr(a, &hv, &hl);
        if (hl > 0 && (h[0] == 'g' || h[0] == 'G'))
            which = 0;
        else {
            double d = awk_tonum(&hv);
            if (d < 1) {
                awk_warn(a, "gensub: third argument `%s' treated as 1", h);
                d = 1;
            }
            which = (long)d;
        }
        box_buf out;
        box_buf_init(&out, AWK_STR_MAX);
        (void)substitute(a, re, r, rl, t, tl, which, true, &out);
        if (!a->a_fatal && box_buf_putc(&out, '\0') == BOX_OK) {
            size_t len = out.b_len - 1;
            res = awk_str_take(box_buf_take(&out), len);
        }
        box_buf_reset(&out);
    }
    awk_val_free(&rv);
    awk_val_free(&hv);
    awk_val_free(&tv);
    return res;
}

/* ---- split, match, substr, index ---- */

static awk_val
bi_split(awk *a, awk_node *n)
{
    awk_val sv = awk_eval(a, arg_at(n, 0));
    awk_node *an = arg_at(n, 1);
    awk_arr *arr = awk_array_of(a, an);
    awk_node *sep = arg_at(n, 2);
    awk_node *seps = arg_at(n, 3);
    if (arr == NULL) {
        awk_val_free(&sv);
        return awk_num(0);
    }
    size_t sl;
    const char *s = awk_tostr(a, &sv, &sl);
    box_buf kept;
    box_buf_init(&kept, AWK_STR_MAX);
    awk_spans sp = {0};
    bool ok;
    awk_val fv = {0};
    if (sep == NULL) {
        size_t fl;
        const char *fs = awk_var_str(a, V_FS, &fl);
        ok = awk_split_by(a, s, sl, fs, fl, NULL, false, &sp);
    } else if (sep->n_op == AN_REGEX) {
        awk_re *re = awk_re_of(a, sep);
        ok = re != NULL && awk_split_by(a, s, sl, "", 1, re, false, &sp);
    } else {
        fv = awk_eval(a, sep);
        size_t fl;
        const char *fs = awk_tostr(a, &fv, &fl);
        ok = awk_split_by(a, s, sl, fs, fl, NULL, false, &sp);
    }
    // the string may be an element of the array being cleared: copy it
    ok = ok && (sl == 0 || box_buf_append(&kept, s, sl) == BOX_OK);
    size_t cnt = sp.sp_n / 2;
    if (ok && !a->a_fatal) {
        awk_arr_clear(a, arr);
        awk_arr *sarr = NULL;
        if (seps != NULL && (sarr = awk_array_of(a, seps)) != NULL)
            awk_arr_clear(a, sarr);
        for (size_t i = 0; i < cnt && !a->a_fatal; i++) {
            char k[32];
            int kl = snprintf(k, sizeof k, "%zu", i + 1);
            awk_val *e = awk_arr_get(a, arr, k, (size_t)kl, true);
            if (e != NULL) {
                awk_val_free(e);
                *e = awk_input(a, kept.b_data + sp.sp_v[2 * i], sp.sp_v[2 * i + 1]);
            }
            if (sarr != NULL && i + 1 < cnt) {
                size_t st = sp.sp_v[2 * i] + sp.sp_v[2 * i + 1];
                size_t en = sp.sp_v[2 * i + 2];
                e = awk_arr_get(a, sarr, k, (size_t)kl, true);
                if (e != NULL) {
                    awk_val_free(e);
                    *e = awk_str(a, kept.b_data + st, en - st);
                }
            }
        }
    } else if (!a->a_fatal) {
        awk_fatal(a, "out of memory");
    }
    box_free(sp.sp_v);
    box_buf_reset(&kept);
    awk_val_free(&fv);
    awk_val_free(&sv);
    return awk_num((double)cnt);
}

static void
set_num(awk *a, int slot, double d)
{
    awk_val *v = &a->a_globals[slot].c_val;
    awk_val_free(v);
    *v = awk_num(d);
    a->a_globals[slot].c_kind = CK_SCALAR;
}

static awk_val
bi_match(awk *a, awk_node *n)
{
    awk_val sv = awk_eval(a, arg_at(n, 0));
    awk_re *re = awk_re_of(a, arg_at(n, 1));
    awk_node *an = arg_at(n, 2);
    awk_arr *arr = an != NULL ? awk_array_of(a, an) : NULL;
    if (re == NULL || a->a_fatal) {
        awk_val_free(&sv);
        return awk_num(0);
    }
    size_t sl;
    const char *s = awk_tostr(a, &sv, &sl);
    regmatch_t m[10];
    bool hit;
    if (re->r_empty) {
        hit = true;
        m[0].rm_so = m[0].rm_eo = 0;
        for (int g = 1; g < 10; g++)
            m[g].rm_so = m[g].rm_eo = -1;
    } else {
        m[0].rm_so = 0;
        m[0].rm_eo = (regoff_t)sl;
        hit = regexec(&re->r_rx, s, 10, m, REG_STARTEND) == 0;
    }
    double start = 0, len = -1;
    if (hit) {
        start = (double)awk_u8_len(s, (size_t)m[0].rm_so) + 1;
        len = (double)awk_u8_len(s + m[0].rm_so, (size_t)(m[0].rm_eo - m[0].rm_so));
    }
    set_num(a, V_RSTART, start);
    set_num(a, V_RLENGTH, len);
    if (arr != NULL) {
        awk_arr_clear(a, arr);
        for (size_t g = 0; hit && g < 10 && g <= re->r_rx.re_nsub; g++) {
            if (m[g].rm_so < 0)
                continue;
            char k[32];
            int kl = snprintf(k, sizeof k, "%zu", g);
            awk_val *e = awk_arr_get(a, arr, k, (size_t)kl, true);
            if (e != NULL) {
                awk_val_free(e);
                *e = awk_input(a, s + m[g].rm_so, (size_t)(m[g].rm_eo - m[g].rm_so));
            }
            kl = snprintf(k, sizeof k, "%zu", g);
            char kk[48];
            int l2 = snprintf(kk, sizeof kk, "%.*s%sstart", kl, k, "\034");
            e = awk_arr_get(a, arr, kk, (size_t)l2, true);
            if (e != NULL) {
                awk_val_free(e);
                *e = awk_num((double)awk_u8_len(s, (size_t)m[g].rm_so) + 1);
            }
            l2 = snprintf(kk, sizeof kk, "%.*s%slength", kl, k, "\034");
            e = awk_arr_get(a, arr, kk, (size_t)l2, true);
            if (e != NULL) {
                awk_val_free(e);
                *e = awk_num((double)awk_u8_len(s + m[g].rm_so,
                                                (size_t)(m[g].rm_eo - m[g].rm_so)));
            }
        }
    }
    awk_val_free(&sv);
    return awk_num(start);
}

static awk_val
bi_substr(awk *a, awk_node *n)
{
    awk_val sv = awk_eval(a, arg_at(n, 0));
    double m = num_arg(a, n, 1);
    bool has_len = arg_at(n, 2) != NULL;
    double l = has_len ? num_arg(a, n, 2) : 0;
    size_t sl;
    const char *s = awk_tostr(a, &sv, &sl);
    size_t chars = awk_u8_len(s, sl);
    // gawk: the start and length truncated, a start before 1 taken as 1
    // with the length kept
    double start = trunc(m);
    if (isnan(m))
        start = 1;
    if (start < 1)
        start = 1;
    double end = has_len ? start + trunc(l) : (double)chars + 1;
    if (has_len && isnan(l))
        end = start;
    if (end > (double)chars + 1)
        end = (double)chars + 1;
    awk_val r;
    if (end <= start) {
        r = awk_str(a, "", 0);
    } else {
        size_t bs = u8_off(s, sl, (size_t)start - 1);
        size_t be = bs + u8_off(s + bs, sl - bs, (size_t)(end - start));
        r = awk_str(a, s + bs, be - bs);
    }
    awk_val_free(&sv);
    return r;
}

static awk_val
bi_index(awk *a, awk_node *n)
{
    awk_val sv = awk_eval(a, arg_at(n, 0));
    awk_val tv = awk_eval(a, arg_at(n, 1));
    size_t sl, tl;
    const char *s = awk_tostr(a, &sv, &sl);
    const char *t = awk_tostr(a, &tv, &tl);
    double r = 0;
    if (tl == 0) {
        r = 0;
    } else if (tl <= sl) {
        for (size_t i = 0; i + tl <= sl; i += u8_step(s, sl, i)) {
            if (memcmp(s + i, t, tl) == 0) {
                r = (double)awk_u8_len(s, i) + 1;
                break;
            }
        }
    }
    awk_val_free(&sv);
    awk_val_free(&tv);
    return awk_num(r);
}

static awk_val
bi_case(awk *a, awk_node *n, bool upper)
{
    awk_val sv = awk_eval(a, arg_at(n, 0));
    size_t sl;
    const char *s = awk_tostr(a, &sv, &sl);
    box_buf out;
    box_buf_init(&out, AWK_STR_MAX);
    bool ok = true;
    for (size_t i = 0; i < sl && ok;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x80) {
            ok = box_buf_putc(&out, (char)(upper ? toupper(c) : tolower(c))) == BOX_OK;
            i++;
            continue;
        }
        mbstate_t st;
        memset(&st, 0, sizeof st);
        wchar_t w;
        size_t k = mbrtowc(&w, s + i, sl - i, &st);
        if (k == (size_t)-1 || k == (size_t)-2 || k == 0) {
            ok = box_buf_putc(&out, (char)c) == BOX_OK;
            i++;
            continue;
        }
        wchar_t x = (wchar_t)(upper ? towupper((wint_t)w) : towlower((wint_t)w));
        char mb[MB_LEN_MAX];
        mbstate_t st2;
        memset(&st2, 0, sizeof st2);
        size_t m = wcrtomb(mb, x, &st2);
        if (m == (size_t)-1)
            ok = box_buf_append(&out, s + i, k) == BOX_OK;
        else
            ok = box_buf_append(&out, mb, m) == BOX_OK;
        i += k;
    }
    awk_val r = awk_num(0);
    if (ok && box_buf_putc(&out, '\0') == BOX_OK) {
        size_t len = out.b_len - 1;
        r = awk_str_take(box_buf_take(&out), len);
    } else {
        awk_fatal(a, "out of memory");
    }
    box_buf_reset(&out);
    awk_val_free(&sv);
    return r;
}

/* ---- printf ---- */

/* One conversion's spec: flags, width, precision rebuilt as a C format
 * with the value printed by snprintf. */
static bool
put_conv(box_buf *out, const char *spec, double d, long long ll,
         unsigned long long ull, const char *str, int kind)
{
    char buf[512];
    int k;
    switch (kind) {
    case 'd':
        k = snprintf(buf, sizeof buf, spec, ll);
        break;
    case 'u':
        k = snprintf(buf, sizeof buf, spec, ull);
        break;
    case 'f':
        k = snprintf(buf, sizeof buf, spec, d);
        break;
    default:
        k = snprintf(buf, sizeof buf, spec, str);
        break;
    }
    if (k < 0)
        return false;
    if ((size_t)k < sizeof buf)
        return box_buf_append(out, buf, (size_t)k) == BOX_OK;
    // long output: format again into a buffer of its size
    char *big = box_alloc((size_t)k + 1);
    if (big == NULL)
        return false;
    switch (kind) {
    case 'd': snprintf(big, (size_t)k + 1, spec, ll); break;
    case 'u': snprintf(big, (size_t)k + 1, spec, ull); break;
    case 'f': snprintf(big, (size_t)k + 1, spec, d); break;
    default: snprintf(big, (size_t)k + 1, spec, str); break;
    }
    bool ok = box_buf_append(out, big, (size_t)k) == BOX_OK;
    box_free(big);
    return ok;
}

bool
awk_format(awk *a, const char *fmt, size_t flen, awk_node *args, box_buf *out)
{
    awk_node *arg = args;
    bool ok = true;
    for (size_t i = 0; i < flen && ok && !a->a_fatal; i++) {
        char c = fmt[i];
        if (c != '%') {
            ok = box_buf_putc(out, c) == BOX_OK;
            continue;
        }
        if (i + 1 < flen && fmt[i + 1] == '%') {
            ok = box_buf_putc(out, '%') == BOX_OK;
            i++;
            continue;
        }
        // %[flags][width][.prec]conv
        char spec[64];
        size_t sp = 0;
        spec[sp++] = '%';
        size_t j = i + 1;
        while (j < flen && strchr("-+ #0'", fmt[j]) != NULL && fmt[j] != '\0') {
            if (fmt[j] != '\'' && sp < 20)
                spec[sp++] = fmt[j];
            j++;
        }
        for (int part = 0; part < 2; part++) {
            if (part == 1) {
                if (j < flen && fmt[j] == '.') {
                    spec[sp++] = '.';
                    j++;
                } else {
                    break;
                }
            }
            if (j < flen && fmt[j] == '*') {
                j++;
                long w = 0;
                if (arg != NULL) {
                    awk_val v = awk_eval(a, arg);
                    double dw = awk_tonum(&v);
                    // a width past the string cap could only fail later
                    w = isnan(dw) ? 0 : dw > (1 << 24) ? (1 << 24)
                                   : dw < -(1 << 24) ? -(1 << 24) : (long)dw;
                    awk_val_free(&v);
                    arg = arg->n_next;
                }
                if (part == 1 && w < 0) {
                    sp--; // a negative precision is none
                    continue;
                }
                sp += (size_t)snprintf(spec + sp, sizeof spec - sp, "%ld", w);
            } else {
                size_t d0 = j;
                while (j < flen && isdigit((unsigned char)fmt[j]) && j - d0 < 7)
                    spec[sp++] = fmt[j++];
                while (j < flen && isdigit((unsigned char)fmt[j]))
                    j++;
            }
        }
        // size modifiers are read and dropped, as gawk does
        while (j < flen && strchr("hlLqjzt", fmt[j]) != NULL && fmt[j] != '\0')
            j++;
        if (j >= flen) {
            // a lone % at the end is printed as it is
            ok = box_buf_append(out, fmt + i, flen - i) == BOX_OK;
            break;
        }
        char conv = fmt[j];
        if (strchr("cdiouxXeEfFgGaAs", conv) == NULL || conv == '\0') {
            ok = box_buf_append(out, fmt + i, j + 1 - i) == BOX_OK;
            i = j;
            continue;
        }
        if (arg == NULL) {
            awk_fatal(a, "not enough arguments to satisfy format string\n"
                         "\t`%.*s'\n\t%*s^ ran out for this one",
                      (int)flen, fmt, (int)j, "");
            return false;
        }
        awk_val v = awk_eval(a, arg);
        arg = arg->n_next;
        i = j;
        switch (conv) {
        case 'c': {
            char tmp[8];
            size_t tl;
            const char *str;
            awk_val tv = v;
            if (v.v_type == AV_NUM ||
                (v.v_type == AV_STRNUM)) {
                unsigned long cp = (unsigned long)awk_tonum(&v);
                if (cp < 128 || cp > 0x10ffff) {
                    tmp[0] = (char)cp;
                    tl = 1;
                } else {
                    mbstate_t st;
                    memset(&st, 0, sizeof st);
                    size_t m = wcrtomb(tmp, (wchar_t)cp, &st);
                    if (m == (size_t)-1) {
                        tmp[0] = (char)cp;
                        m = 1;
                    }
                    tl = m;
                }
                tmp[tl] = '\0';
                str = tmp;
            } else {
                size_t sl;
                const char *s = awk_tostr(a, &tv, &sl);
                tl = sl > 0 ? u8_step(s, sl, 0) : 0;
                memcpy(tmp, s, tl < 7 ? tl : 7);
                tmp[tl < 7 ? tl : 7] = '\0';
                str = tmp;
            }
            spec[sp++] = 's';
            spec[sp] = '\0';
            if (tl == 1 && str[0] == '\0') {
                // a NUL character: width padding by hand
                long w = strtol(spec + 1 + strspn(spec + 1, "-+ #0"), NULL, 10);
                bool left = strchr(spec, '-') != NULL;
                for (long k = 1; !left && k < w && ok; k++)
                    ok = box_buf_putc(out, ' ') == BOX_OK;
                ok = ok && box_buf_putc(out, '\0') == BOX_OK;
                for (long k = 1; left && k < w && ok; k++)
                    ok = box_buf_putc(out, ' ') == BOX_OK;
            } else {
                ok = put_conv(out, spec, 0, 0, 0, str, 's');
            }
            break;
        }
        case 's': {
            size_t sl;
            char tmp[512];
            const char *s = awk_outstr(a, &v, tmp, sizeof tmp, &sl);
            if (v.v_type == AV_NUM)
                s = awk_tostr(a, &v, &sl);
            // precision counts characters: cut by hand, then pad. The
            // spec is ended first: strtol would read on into the stack.
            spec[sp] = '\0';
            char *dot = memchr(spec, '.', sp);
            size_t keep = sl;
            if (dot != NULL) {
                long prec = strtol(dot + 1, NULL, 10);
                keep = u8_off(s, sl, (size_t)(prec < 0 ? 0 : prec));
                sp = (size_t)(dot - spec);
            }
            spec[sp] = '\0';
            long w = strtol(spec + 1 + strspn(spec + 1, "-+ #0"), NULL, 10);
            bool left = strchr(spec, '-') != NULL;
            size_t chars = awk_u8_len(s, keep);
            for (long k = (long)chars; !left && k < w && ok; k++)
                ok = box_buf_putc(out, ' ') == BOX_OK;
            ok = ok && (keep == 0 || box_buf_append(out, s, keep) == BOX_OK);
            for (long k = (long)chars; left && k < w && ok; k++)
                ok = box_buf_putc(out, ' ') == BOX_OK;
            break;
        }
        case 'd':
        case 'i': {
            double d = awk_tonum(&v);
            if (isnan(d) || isinf(d)) {
                spec[sp++] = 'f';
                spec[sp] = '\0';
                ok = put_conv(out, spec, d, 0, 0, NULL, 'f');
                break;
            }
            d = trunc(d);
            if (fabs(d) < 9.2e18) {
                spec[sp++] = 'l';
                spec[sp++] = 'l';
                spec[sp++] = 'd';
                spec[sp] = '\0';
                ok = put_conv(out, spec, 0, (long long)d, 0, NULL, 'd');
            } else {
                char *dot = memchr(spec, '.', sp);
                if (dot != NULL)
                    sp = (size_t)(dot - spec);
                spec[sp++] = '.';
                spec[sp++] = '0';
                spec[sp++] = 'f';
                spec[sp] = '\0';
                ok = put_conv(out, spec, d, 0, 0, NULL, 'f');
            }
            break;
        }
        case 'o':
        case 'u':
        case 'x':
        case 'X': {
            double d = trunc(awk_tonum(&v));
            unsigned long long u;
            if (d < 0)
                u = (unsigned long long)(long long)d;
            else if (d >= 1.8446744073709552e19) {
                spec[sp++] = '.';
                spec[sp++] = '0';
                spec[sp++] = 'f';
                spec[sp] = '\0';
                ok = put_conv(out, spec, d, 0, 0, NULL, 'f');
                break;
            } else
                u = (unsigned long long)d;
            spec[sp++] = 'l';
            spec[sp++] = 'l';
            spec[sp++] = conv;
            spec[sp] = '\0';
            ok = put_conv(out, spec, 0, 0, u, NULL, 'u');
            break;
        }
        default: {
            double d = awk_tonum(&v);
            spec[sp++] = conv;
            spec[sp] = '\0';
            if (isnan(d) || isinf(d)) {
                // gawk: [-+]inf / [-+]nan with the width, no zero padding
                const char *w = isnan(d) ? (signbit(d) ? "-nan" : "+nan")
                                         : (d < 0 ? "-inf" : "+inf");
                if (!isnan(d) && d > 0 && strchr(spec, '+') == NULL &&
                    strchr(spec, ' ') == NULL)
                    w = "inf";
                if (isnan(d) && !signbit(d) && strchr(spec, '+') == NULL)
                    w = "nan";
                char s2[64];
                size_t q = 0;
                s2[q++] = '%';
                if (strchr(spec, '-'))
                    s2[q++] = '-';
                const char *wd = spec + 1 + strspn(spec + 1, "-+ #0");
                while (isdigit((unsigned char)*wd) && q < 40)
                    s2[q++] = *wd++;
                s2[q++] = 's';
                s2[q] = '\0';
                ok = put_conv(out, s2, 0, 0, 0, w, 's');
                break;
            }
            ok = put_conv(out, spec, d, 0, 0, NULL, 'f');
            break;
        }
        }
        awk_val_free(&v);
    }
    if (!ok && !a->a_fatal)
        awk_fatal(a, "output line too long");
    awk_charge(a, out->b_len);
    return ok && !a->a_fatal;
}

/* ---- time ---- */

static awk_val
bi_strftime(awk *a, awk_node *n)
{
    const char *dfmt = "%a %b %e %H:%M:%S %Z %Y";
    awk_val fv = {0};
    size_t fl = strlen(dfmt);
    const char *fmt = dfmt;
    if (arg_at(n, 0) != NULL) {
        fv = awk_eval(a, arg_at(n, 0));
        fmt = awk_tostr(a, &fv, &fl);
    }
    time_t t = arg_at(n, 1) != NULL ? (time_t)num_arg(a, n, 1) : time(NULL);
    bool utc = false;
    if (arg_at(n, 2) != NULL) {
        awk_val u = awk_eval(a, arg_at(n, 2));
        utc = awk_val_true(&u);
        awk_val_free(&u);
    }
    struct tm tm;
    if (utc)
        gmtime_r(&t, &tm);
    else
        localtime_r(&t, &tm);
    char buf[4096];
    size_t k = 0;
    if (fl > 0) {
        char *f = box_strndup(fmt, fl);
        if (f != NULL)
            k = strftime(buf, sizeof buf, f, &tm);
        box_free(f);
    }
    awk_val_free(&fv);
    return awk_str(a, buf, k);
}

/* ---- random numbers: a 64-bit xorshift seeded by srand ---- */

static double
next_rand(awk *a)
{
    unsigned long s1 = a->a_rand_state[0];
    const unsigned long s0 = a->a_rand_state[1];
    a->a_rand_state[0] = s0;
    s1 ^= s1 << 23;
    a->a_rand_state[1] = s1 ^ s0 ^ (s1 >> 17) ^ (s0 >> 26);
    unsigned long r = a->a_rand_state[1] + s0;
    return (double)(r >> 11) / 9007199254740992.0;
}

static void
seed_rand(awk *a, double seed)
{
    unsigned long s = (unsigned long)(long long)seed;
    a->a_rand_state[0] = s * 6364136223846793005ul + 1442695040888963407ul;
    a->a_rand_state[1] = (s ^ 0x9e3779b97f4a7c15ul) * 0xbf58476d1ce4e5b9ul + 1;
    for (int i = 0; i < 8; i++)
        (void)next_rand(a);
}

/* ---- the dispatcher ---- */

awk_val
awk_builtin(awk *a, awk_node *n)
{
    int nargs = (int)n->n_num;
    int id = n->n_idx;
    if (nargs < bi_args[id].min || nargs > bi_args[id].max) {
        awk_fatal(a, "%d is invalid as number of arguments for %s", nargs,
                  awk_bi_names[id]);
        return awk_num(0);
    }
    switch (id) {
    case BI_LENGTH: {
        awk_node *x = arg_at(n, 0);
        if (x == NULL) {
            size_t l;
            const char *s = awk_record(a, &l);
            return awk_num((double)awk_u8_len(s, l));
        }
        if (x->n_op == AN_VAR || x->n_op == AN_LVAR) {
            awk_cell *c = awk_cell_of(a, x);
            while (c->c_kind == CK_REF)
                c = c->c_ref;
            if (c->c_kind == CK_ARRAY)
                return awk_num((double)awk_arr_count(c->c_arr));
            if (c->c_kind == CK_UNTYPED)
                c->c_kind = CK_SCALAR; // gawk: length(x) makes x a scalar
        }
        awk_val v = awk_eval(a, x);
        size_t l;
        const char *s = awk_tostr(a, &v, &l);
        double r = (double)awk_u8_len(s, l);
        awk_val_free(&v);
        return awk_num(r);
    }
    case BI_SUBSTR: return bi_substr(a, n);
    case BI_INDEX: return bi_index(a, n);
    case BI_SPLIT: return bi_split(a, n);
    case BI_SUB: return bi_sub(a, n, false);
    case BI_GSUB: return bi_sub(a, n, true);
    case BI_GENSUB: return bi_gensub(a, n);
    case BI_MATCH: return bi_match(a, n);
    case BI_TOLOWER: return bi_case(a, n, false);
    case BI_TOUPPER: return bi_case(a, n, true);
    case BI_SPRINTF: {
        awk_val fv = awk_eval(a, arg_at(n, 0));
        size_t fl;
        const char *fmt = awk_tostr(a, &fv, &fl);
        box_buf out;
        box_buf_init(&out, AWK_STR_MAX);
        awk_val r = awk_num(0);
        if (awk_format(a, fmt, fl, arg_at(n, 1), &out) &&
            box_buf_putc(&out, '\0') == BOX_OK) {
            size_t len = out.b_len - 1;
            r = awk_str_take(box_buf_take(&out), len);
        }
        box_buf_reset(&out);
        awk_val_free(&fv);
        return r;
    }
    case BI_INT: return awk_num(trunc(num_arg(a, n, 0)));
    case BI_SQRT: {
        double d = num_arg(a, n, 0);
        if (d < 0)
            awk_warn(a, "sqrt: called with negative argument %g", d);
        return awk_num(sqrt(d));
    }
    case BI_EXP: return awk_num(exp(num_arg(a, n, 0)));
    case BI_LOG: {
        double d = num_arg(a, n, 0);
        if (d < 0)
            awk_warn(a, "log: received negative argument %g", d);
        return awk_num(log(d));
    }
    case BI_SIN: return awk_num(sin(num_arg(a, n, 0)));
    case BI_COS: return awk_num(cos(num_arg(a, n, 0)));
    case BI_ATAN2: {
        double y = num_arg(a, n, 0);
        return awk_num(atan2(y, num_arg(a, n, 1)));
    }
    case BI_RAND: return awk_num(next_rand(a));
    case BI_SRAND: {
        double prev = a->a_prev_seed;
        double s = arg_at(n, 0) != NULL ? num_arg(a, n, 0) : (double)time(NULL);
        a->a_prev_seed = s;
        seed_rand(a, s);
        return awk_num(prev);
    }
    case BI_SYSTIME: return awk_num((double)time(NULL));
    case BI_STRFTIME: return bi_strftime(a, n);
    case BI_CLOSE:
    case BI_SYSTEM:
    case BI_FFLUSH: {
        awk_node *x = arg_at(n, 0);
        if (x == NULL) // fflush()
            return awk_num(awk_fflush(a, NULL, true));
        awk_val v = awk_eval(a, x);
        size_t l;
        const char *s = awk_tostr(a, &v, &l);
        int r = id == BI_CLOSE    ? awk_close(a, s, l)
                : id == BI_SYSTEM ? awk_system(a, s, l)
                                  : awk_fflush(a, s, false);
        awk_val_free(&v);
        return awk_num(r);
    }
    default:
        return awk_num(0);
    }
}
