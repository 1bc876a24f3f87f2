/* SPDX-License-Identifier: Apache-2.0 */
/* Substrings, pattern replacement and transformations of one value. */
#include "sh_param_ops.h"

#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_utf8.h"
#include "sh_ansic.h"
#include "sh_glob.h"

#define PO_MAX (SH_MAX_INPUT * 4u) // as a word (sh_expand.c)

static int
nomem(sh_ctx *cx)
{
    sh_errf(cx, "expansion: out of memory or word too long");
    sh_fatal(cx, 1);
    return 1;
}

/* A failed expansion: the command is discarded, status 1 (sh_discard). */
static int
fail(sh_ctx *cx)
{
    sh_discard(cx, 1);
    return 1;
}

/* ---- ${x:off:len} ---- */

/* The arithmetic value of an offset or length word; *text keeps the
 * expanded text for the message of a negative length. */
static int
eval_word(sh_ctx *cx, const sh_wpart *p, const sh_word *w, char **text,
          long long *v)
{
    size_t n = 0;
    int rc = sh_expand_str(cx, w, text, &n);
    if (rc != 0)
        return rc;
    char who[256];
    snprintf(who, sizeof who, "%.*s", (int)p->u.param.len, p->u.param.name);
    rc = sh_arith_in(cx, who, *text, n, v);
    if (rc != 0)
        sh_discard(cx, rc);
    return rc;
}

int
sh_param_slice(sh_ctx *cx, const sh_wpart *p, size_t n, bool list, size_t *from,
               size_t *count)
{
    char *ot = NULL, *lt = NULL;
    long long off = 0, len = 0;
    int rc = eval_word(cx, p, p->u.param.arg, &ot, &off);
    if (rc == 0 && p->u.param.arg2 != NULL)
        rc = eval_word(cx, p, p->u.param.arg2, &lt, &len);
    *from = 0;
    *count = 0;
    if (rc != 0)
        goto out;
    long long total = (long long)n;
    if (off < 0)
        off += total;
    if (off < 0 || off > total)
        goto out; // nothing, as bash
    long long end = total;
    if (p->u.param.arg2 != NULL) {
        if (len < 0) {
            end = list ? -1 : len + total;
            if (end < off) {
                sh_errf(cx, "%s: substring expression < 0", lt);
                rc = fail(cx);
                goto out;
            }
        } else {
            end = len > total - off ? total : off + len;
        }
    }
    *from = (size_t)off;
    *count = (size_t)(end - off);
out:
    box_free(ot);
    box_free(lt);
    return rc;
}

/* Byte offset of character k of v (UTF-8; a stray byte is one). */
static size_t
char_at(const char *v, size_t k)
{
    size_t i = 0;
    for (; v[i] != '\0'; i++)
        if (((unsigned char)v[i] & 0xC0u) != 0x80u && k-- == 0)
            return i;
    return i;
}

static size_t
char_count(const char *v)
{
    size_t c = 0;
    for (; *v; v++)
        if (((unsigned char)*v & 0xC0u) != 0x80u)
            c++;
    return c;
}

int
sh_param_substr(sh_ctx *cx, const sh_wpart *p, const char *v, char **out)
{
    size_t from, count;
    *out = NULL;
    int rc = sh_param_slice(cx, p, char_count(v), false, &from, &count);
    if (rc != 0)
        return rc;
    size_t s = char_at(v, from);
    size_t e = s + char_at(v + s, count);
    if ((*out = box_strndup(v + s, e - s)) == NULL)
        return nomem(cx);
    return 0;
}

/* ---- ${x/p/r} ---- */

/* Whether pat matches v[s..e) (buf is a copy of v to cut), with the
 * sh_glob_match flags gm. */
static bool
match_at(char *buf, size_t s, size_t e, const char *pat, unsigned gm)
{
    char save = buf[e];
    buf[e] = '\0';
    bool m = sh_glob_match(pat, buf + s, gm);
    buf[e] = save;
    return m;
}

static bool
is_char_start(const char *v, size_t i)
{
    return ((unsigned char)v[i] & 0xC0u) != 0x80u;
}

/*
 * How a pattern bounds the search for a match (so that ${v//x/y} on a
 * long value costs a few matches per position, not one per end):
 * m_fixed is the match length in characters when the pattern has no
 * `*` nor extglob group (-1 otherwise), and m_star is the pattern with
 * `*` appended, which matches the rest of the value at every position
 * where some match starts (NULL when it cannot be built).
 */
typedef struct mbound {
    long m_fixed;
    char *m_star;
    unsigned m_gm; // the sh_glob_match flags (extglob)
} mbound;

static void
mbound_init(mbound *mb, const char *pat, unsigned gm)
{
    long n = 0;
    size_t i = 0;
    mb->m_fixed = -1;
    mb->m_star = NULL;
    mb->m_gm = gm;
    while (pat[i] != '\0') {
        char c = pat[i];
        if (c == '*' || (pat[i + 1] == '(' && strchr("?+@!", c) != NULL))
            n = -1;
        if (c == '\\' && pat[i + 1] != '\0') {
            i += 2;
        } else if (c == '[' && strchr(pat + i + 1, ']') != NULL) {
            // A bracket is one character: skip to its closing `]`
            // (a `]` first, or after `!`/`^`, belongs to the set).
            size_t k = i + 1;
            if (pat[k] == '!' || pat[k] == '^')
                k++;
            if (pat[k] == ']')
                k++;
            while (pat[k] != '\0' && pat[k] != ']')
                k += pat[k] == '[' && pat[k + 1] == ':' ? 2 : 1;
            if (pat[k] == '\0') {
                n = -1; // unclosed after all: leave it unbounded
                break;
            }
            i = k + 1;
        } else {
            i++;
            while (((unsigned char)pat[i] & 0xC0u) == 0x80u)
                i++;
        }
        if (n >= 0)
            n++;
    }
    mb->m_fixed = n;
    size_t bs = 0; // a trailing lone `\` would escape the added `*`
    for (size_t k = strlen(pat); k > 0 && pat[k - 1] == '\\'; k--)
        bs++;
    if (bs % 2 == 0)
        mb->m_star = box_asprintf("%s*", pat);
}

static void
mbound_free(mbound *mb)
{
    box_free(mb->m_star);
}

/* The longest match starting at s: its end, or -1. */
static long
longest_from(char *buf, size_t s, size_t n, const char *pat, const mbound *mb)
{
    if (mb->m_star != NULL && !sh_glob_match(mb->m_star, buf + s, mb->m_gm))
        return -1;
    size_t top = n;
    if (mb->m_fixed >= 0)
        top = s + char_at(buf + s, (size_t)mb->m_fixed);
    for (size_t e = top + 1; e-- > s;)
        if ((e == n || is_char_start(buf, e)) &&
            match_at(buf, s, e, pat, mb->m_gm))
            return (long)e;
    return -1;
}

/*
 * The replacement r (as sh_expand_replacement gives it: quoted `\` and
 * `&` escaped) for a match m of mlen bytes: each unescaped `&` is the
 * match when amp (shopt patsub_replacement, on by default in bash
 * 5.2), `\c` is c.
 */
static box_err
put_rep(box_buf *b, const char *r, bool amp, const char *m, size_t mlen)
{
    box_err e = BOX_OK;
    for (size_t i = 0; r[i] != '\0' && e == BOX_OK; i++) {
        if (r[i] == '\\' && r[i + 1] != '\0')
            e = box_buf_putc(b, r[++i]);
        else if (r[i] == '&' && amp)
            e = box_buf_append(b, m, mlen);
        else
            e = box_buf_putc(b, r[i]);
    }
    return e;
}

static box_err
replace(char *v, const char *pat, const mbound *mb, const char *rep, bool amp,
        sh_param_op op, box_buf *b)
{
    size_t n = strlen(v);
    box_err e = BOX_OK;
    if (op == SH_PO_REPL_PRE) {
        long m = longest_from(v, 0, n, pat, mb);
        if (m >= 0)
            e = put_rep(b, rep, amp, v, (size_t)m);
        return e == BOX_OK ? box_buf_append(b, v + (m < 0 ? 0 : m),
                                            n - (size_t)(m < 0 ? 0 : m))
                           : e;
    }
    if (op == SH_PO_REPL_SUF) {
        for (size_t s = 0; s <= n; s++) {
            if ((s < n && !is_char_start(v, s)) ||
                !match_at(v, s, n, pat, mb->m_gm))
                continue;
            if ((e = box_buf_append(b, v, s)) == BOX_OK)
                e = put_rep(b, rep, amp, v + s, n - s);
            return e;
        }
        return box_buf_append(b, v, n);
    }
    if (n == 0) // an empty value still matches `*`
        return match_at(v, 0, 0, pat, mb->m_gm) ? put_rep(b, rep, amp, v, 0)
                                                : BOX_OK;
    // No match anywhere (one test, as bash makes it): the value as is.
    char *any = mb->m_star != NULL ? box_asprintf("*%s", mb->m_star) : NULL;
    bool none = any != NULL && !sh_glob_match(any, v, mb->m_gm);
    box_free(any);
    if (none)
        return box_buf_append(b, v, n);
    size_t i = 0;
    bool done = false;
    while (i < n && e == BOX_OK) {
        long m = done ? -1 : longest_from(v, i, n, pat, mb);
        if (m > (long)i) {
            e = put_rep(b, rep, amp, v + i, (size_t)m - i);
            i = (size_t)m;
            done = op == SH_PO_REPL;
            continue;
        }
        // No match here (or an empty one): one character stays.
        size_t k = i + 1;
        while (k < n && !is_char_start(v, k))
            k++;
        e = box_buf_append(b, v + i, k - i);
        i = k;
    }
    return e;
}

int
sh_param_replace(sh_ctx *cx, const sh_wpart *p, const char *v, char **out)
{
    char *pat = NULL, *rep = NULL, *buf = NULL;
    box_buf b;
    box_buf_init(&b, PO_MAX);
    *out = NULL;
    int rc = sh_expand_pattern(cx, p->u.param.arg, &pat);
    if (rc == 0 && p->u.param.arg2 != NULL)
        rc = sh_expand_replacement(cx, p->u.param.arg2, &rep);
    if (rc != 0)
        goto out;
    sh_param_op op = p->u.param.op;
    if ((buf = box_strdup(v)) == NULL) {
        rc = nomem(cx);
        goto out;
    }
    // An empty pattern matches nothing, except at either end.
    if (pat[0] == '\0' && op != SH_PO_REPL_PRE && op != SH_PO_REPL_SUF) {
        *out = buf;
        buf = NULL;
        goto out;
    }
    mbound mb;
    mbound_init(&mb, pat, sh_glob_case_flags(cx->cx_st->st_shopt));
    bool amp = sh_shopt_on(cx->cx_st, "patsub_replacement");
    if (replace(buf, pat, &mb, rep != NULL ? rep : "", amp, op, &b) != BOX_OK ||
        (*out = box_buf_take(&b)) == NULL)
        rc = nomem(cx);
    mbound_free(&mb);
out:
    box_buf_reset(&b);
    box_free(buf);
    box_free(pat);
    box_free(rep);
    return rc;
}

/* ---- ${x@C} ---- */

char *
sh_param_case(const char *v, const char *pat, bool upper, bool all)
{
    box_buf b;
    box_buf_init(&b, 2 * strlen(v) + 8); // a character at most doubles
    box_err e = BOX_OK;
    bool change = true;
    for (size_t i = 0; v[i] != '\0' && e == BOX_OK; change = all) {
        uint32_t cp;
        size_t n = sh_glob_char(v + i, &cp);
        char ch[8] = {0};
        memcpy(ch, v + i, n);
        i += n;
        size_t out = n;
        if (change &&
            (pat == NULL || pat[0] == '\0' || sh_glob_match(pat, ch, 0))) {
            uint32_t to = sh_glob_case(cp, upper);
            if (to != cp)
                out = box_utf8_encode(to, ch);
        }
        e = box_buf_append(&b, ch, out);
    }
    char *r = e == BOX_OK ? box_buf_take(&b) : NULL;
    box_buf_reset(&b);
    return r;
}

int
sh_param_xform(sh_ctx *cx, const sh_wpart *p, const char *name, size_t namelen,
               const char *v, char **out)
{
    char nm[256];
    snprintf(nm, sizeof nm, "%.*s", (int)namelen, name);
    const sh_var *var =
        sh_name_valid(name, namelen) ? sh_var_find(cx->cx_st, nm) : NULL;
    bool exported = var != NULL && (var->v_flags & SH_VAR_EXPORT) != 0;
    *out = NULL;
    switch (p->u.param.xform) {
    case 'Q':
    case 'K':
    case 'k':
        *out = sh_ansic_quote(v);
        break;
    case 'E': {
        size_t n = strlen(v);
        if ((*out = box_alloc(n + 1)) != NULL)
            sh_ansic_decode(v, n, *out);
        break;
    }
    case 'P': {
        int rc = sh_prompt_expand(cx, v, out);
        if (rc != 0)
            return rc;
        break;
    }
    case 'A': {
        if (!sh_name_valid(name, namelen)) {
            *out = box_strdup("");
            break;
        }
        char *q = sh_ansic_quote(v);
        if (q != NULL)
            *out =
                box_asprintf("%s%s=%s", exported ? "declare -x " : "", nm, q);
        box_free(q);
        break;
    }
    case 'a':
        *out = box_strdup(exported ? "x" : "");
        break;
    default: // U u L
        *out = sh_param_case(v, NULL, p->u.param.xform != 'L',
                             p->u.param.xform != 'u');
        break;
    }
    return *out == NULL ? nomem(cx) : 0;
}
