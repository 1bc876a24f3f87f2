/* SPDX-License-Identifier: Apache-2.0 */
/* Word expansion: parameters, $( ), $(( )), ~, IFS splitting, globs, quotes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "sh_array.h"
#include "sh_glob.h"
#include "sh_internal.h"
#include "sh_param_ops.h"
#include "sh_parse.h"

/*
 * A word is expanded into one text buffer plus a parallel mask byte per
 * text byte saying where it came from (box-spec §3.2, POSIX 2.6):
 *   M_LIT   unquoted literal (never split; glob-able)
 *   M_QUOTE quoted text or a quoted expansion (never split or globbed)
 *   M_SPLIT result of an unquoted expansion (split on IFS)
 * and three zero-width markers (their text byte is ignored):
 *   M_QMARK a quoted part began here: the field exists even if empty
 *   M_BREAK unquoted $@ / $* between parameters: a field boundary
 *   M_HARD  quoted "$@" between parameters: always ends a field
 * No in-band control bytes ever reach the text (STYLE trap 3): the mask
 * is separate. Splitting then walks both. Pattern mode (case, ${x#p})
 * writes pattern text instead (sh_glob.h): quoted bytes are
 * backslash-escaped. Replacement mode (the r of ${x/p/r}) escapes a
 * quoted `\` or `&` the same way (sh_param_ops.c).
 *
 * Pathname expansion: glob_field() turns each field, with its mask, into
 * pattern text the same way, and a field whose unquoted bytes hold
 * `* ? [..]` is replaced by its matches (sh_glob_expand: the kernel
 * lists every directory, so each read is a decision).
 */

enum { M_LIT = 1, M_QUOTE, M_SPLIT, M_QMARK, M_BREAK, M_HARD };
enum { EX_FIELDS, EX_STR, EX_PAT, EX_REP };

#define SH_WORD_MAX (SH_MAX_INPUT * 4u)

typedef struct ex {
    sh_ctx *x_cx;
    int x_mode;
    box_buf x_txt, x_mask;
    bool x_exp;       // an expansion happened in this word
    bool x_no_fields; // the last list expanded ("$@", "${!p@}") was empty
    int x_status;
} ex;

/* An empty buffer for a word: a spare one of cx's, else a new one. */
static void
ex_buf_take(sh_ctx *cx, box_buf *b)
{
    if (cx->cx_nspare > 0) {
        *b = cx->cx_spare[--cx->cx_nspare];
        return;
    }
    box_buf_init(b, SH_WORD_MAX);
}

/* Gives b back to cx's spares, emptied, when there is room and it is
 * small; else frees it. */
static void
ex_buf_give(sh_ctx *cx, box_buf *b)
{
    if (cx->cx_nspare < SH_SPARE_BUFS && b->b_data != NULL &&
        b->b_cap <= SH_SPARE_ROOM) {
        b->b_len = 0;
        b->b_data[0] = '\0';
        cx->cx_spare[cx->cx_nspare++] = *b;
    } else {
        box_buf_reset(b);
    }
    box_buf_init(b, SH_WORD_MAX);
}

static void
ex_init(ex *x, sh_ctx *cx, int mode)
{
    memset(x, 0, sizeof *x);
    x->x_cx = cx;
    x->x_mode = mode;
    ex_buf_take(cx, &x->x_txt);
    ex_buf_take(cx, &x->x_mask);
}

static void
ex_free(ex *x)
{
    ex_buf_give(x->x_cx, &x->x_txt);
    ex_buf_give(x->x_cx, &x->x_mask);
}

static int
ex_nomem(ex *x)
{
    sh_errf(x->x_cx, "expansion: out of memory or word too long");
    sh_fatal(x->x_cx, 1);
    x->x_status = 1;
    return 1;
}

static int
ex_put(ex *x, const char *p, size_t n, int m)
{
    if (x->x_mode == EX_PAT || x->x_mode == EX_REP) {
        const char *special = x->x_mode == EX_PAT ? "\\*?[]" : "\\&";
        for (size_t i = 0; i < n; i++) {
            if (m == M_QUOTE && strchr(special, p[i]) != NULL &&
                box_buf_putc(&x->x_txt, '\\') != BOX_OK)
                return ex_nomem(x);
            if (box_buf_putc(&x->x_txt, p[i]) != BOX_OK)
                return ex_nomem(x);
        }
        return 0;
    }
    if (box_buf_append(&x->x_txt, p, n) != BOX_OK ||
        box_buf_fill(&x->x_mask, (char)m, n) != BOX_OK)
        return ex_nomem(x);
    return 0;
}

/* A zero-width marker; in string/pattern mode BREAK/HARD become a space. */
static int
ex_mark(ex *x, int m)
{
    if (x->x_mode != EX_FIELDS) {
        if (m == M_QMARK)
            return 0;
        return ex_put(x, " ", 1, M_QUOTE);
    }
    return ex_put(x, "", 1, m);
}

static int expand_parts(ex *x, const sh_wpart *p, bool quoted);

/* ---- parameters ---- */

/* The value of parameter name (NULL when unset); *tmp holds storage
 * for computed values. */
static const char *
param_value(sh_ctx *cx, const char *name, size_t len, char *tmp, size_t tmplen)
{
    sh_state *st = cx->cx_st;
    if (tmplen < SH_DEC_MAX)
        return NULL; // every caller has room: never so
    if (len == 1 && strchr("?#$-!", name[0]) != NULL) {
        switch (name[0]) {
        case '?':
            sh_fmt_dec(tmp, cx->cx_status);
            return tmp;
        case '#':
            sh_fmt_dec(tmp, st->st_npos);
            return tmp;
        case '$':
            snprintf(tmp, tmplen, "%ld", cx->cx_ss->ss_pid);
            return tmp;
        case '-':
            // bash's order (its flag table), for the letters we have;
            // hashall (h) and braceexpand (B) are always on here.
            snprintf(tmp, tmplen, "%s%sh%s%s%sB%s%s%s%s",
                     st->st_opt_e ? "e" : "", st->st_opt_f ? "f" : "",
                     st->st_opt_n ? "n" : "", st->st_opt_u ? "u" : "",
                     st->st_opt_x ? "x" : "", st->st_opt_C ? "C" : "",
                     st->st_opt_E ? "E" : "", st->st_opt_T ? "T" : "",
                     st->st_opt_c ? "c" : "");
            return tmp;
        default: // '!'
            if (st->st_bgpid <= 0)
                return NULL;
            snprintf(tmp, tmplen, "%ld", st->st_bgpid);
            return tmp;
        }
    }
    if (name[0] >= '0' && name[0] <= '9') {
        long i = 0;
        for (size_t k = 0; k < len && i < 100000; k++)
            i = i * 10 + (name[k] - '0');
        if (i == 0)
            return st->st_arg0;
        return i <= st->st_npos ? st->st_pos[i - 1] : NULL;
    }
    const char *dyn = sh_special_value(cx, name, len, tmp, tmplen);
    if (dyn != NULL)
        return dyn;
    return sh_var_get(st, name);
}

static int expand_sub_str(sh_ctx *cx, const sh_word *w, int mode, char **out,
                          size_t *outlen);

/* A failed expansion that ends the shell: "shown: msg", then status. */
static int
param_error(ex *x, const char *shown, const char *msg, int status)
{
    sh_errf(x->x_cx, "%s: %s", shown, msg);
    sh_fatal(x->x_cx, status);
    x->x_status = status;
    return status;
}

/* The status a ${v?w} (or a bad ${v@X}) ends the shell with: bash -c
 * ends with 127 at its top level, a subshell, $( ) or a script file with
 * 1. */
static int
fatal_expansion_status(const sh_ctx *cx)
{
    return cx->cx_owns_state || cx->cx_script ? 1 : 127;
}

/* The parameter of p as bash names it in a message: name, or
 * name[subscript] as written. */
static void
param_shown(const sh_wpart *p, const char *name, size_t len, char *buf,
            size_t n)
{
    if (p->u.param.sub != NULL)
        snprintf(buf, n, "%.*s[%s]", (int)len, name, p->u.param.sub->w_raw);
    else
        snprintf(buf, n, "%.*s", (int)len, name);
}

/* Removes the smallest/largest prefix/suffix matching pat (matched with
 * flags gm) from v. */
static void
trim(const char *v, size_t vlen, const char *pat, unsigned gm, sh_param_op op,
     size_t *start, size_t *end)
{
    *start = 0;
    *end = vlen;
    char *buf = box_strndup(v, vlen);
    if (buf == NULL)
        return;
    switch (op) {
    case SH_PO_RPREFIX:
    case SH_PO_RLPREFIX:
        for (size_t k = 0; k <= vlen; k++) {
            size_t i = op == SH_PO_RPREFIX ? k : vlen - k;
            char save = buf[i];
            buf[i] = '\0';
            bool m = sh_glob_match(pat, buf, gm);
            buf[i] = save;
            if (m) {
                *start = i;
                break;
            }
        }
        break;
    default: // suffixes
        for (size_t k = 0; k <= vlen; k++) {
            size_t i = op == SH_PO_RSUFFIX ? vlen - k : k;
            if (sh_glob_match(pat, buf + i, gm)) {
                *end = i;
                break;
            }
        }
        break;
    }
    box_free(buf);
}

/* The values v[0..n) as $@ expands (star: as $*): quoted "$@" one
 * field each, quoted "$*" joined by the first IFS character, unquoted
 * fields to split. */
static int
expand_list(ex *x, char *const *v, size_t n, bool quoted, bool star)
{
    sh_state *st = x->x_cx->cx_st;
    x->x_no_fields = quoted && !star && n == 0;
    // Where no fields are split (x=$*, case $* in, [[ $* ]]) an unquoted
    // $* joins with the first IFS character too, as bash does.
    if (star && (quoted || x->x_mode != EX_FIELDS)) {
        const char *ifs = sh_var_get(st, "IFS");
        char sep = ifs == NULL ? ' ' : ifs[0];
        for (size_t i = 0; i < n; i++) {
            if (i > 0 && sep != '\0' && ex_put(x, &sep, 1, M_QUOTE))
                return x->x_status;
            if (ex_put(x, v[i], strlen(v[i]), quoted ? M_QUOTE : M_SPLIT))
                return x->x_status;
        }
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (i > 0 && ex_mark(x, quoted ? M_HARD : M_BREAK))
            return x->x_status;
        if (ex_put(x, v[i], strlen(v[i]), quoted ? M_QUOTE : M_SPLIT))
            return x->x_status;
    }
    return 0;
}

static int
expand_at(ex *x, bool quoted, bool star)
{
    sh_state *st = x->x_cx->cx_st;
    return expand_list(x, st->st_pos, (size_t)st->st_npos, quoted, star);
}

static size_t
utf8_chars(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        if (((unsigned char)s[i] & 0xC0u) != 0x80u)
            c++;
    return c;
}

/* The ops that bash applies to each positional parameter of ${@op…}. */
static bool
per_value_op(sh_param_op op)
{
    return (op >= SH_PO_RSUFFIX && op <= SH_PO_LOWER) ||
           (op >= SH_PO_REPL && op <= SH_PO_XFORM);
}

/* One value val of the parameter name through a per-value op (or
 * SUBSTR): *out box_alloc'd. */
static int
op_value(ex *x, const sh_wpart *p, const char *name, size_t len,
         const char *val, char **out)
{
    sh_ctx *cx = x->x_cx;
    sh_param_op op = p->u.param.op;
    int rc;
    *out = NULL;
    switch (op) {
    case SH_PO_SUBSTR:
        rc = sh_param_substr(cx, p, val, out);
        break;
    case SH_PO_REPL:
    case SH_PO_REPL_ALL:
    case SH_PO_REPL_PRE:
    case SH_PO_REPL_SUF:
        rc = sh_param_replace(cx, p, val, out);
        break;
    case SH_PO_XFORM:
        if (p->u.param.xform == '\0') {
            // ${x@Z} ${x@} ${x@QQ} (the lexer kept the text)
            sh_errf(cx, "%s: bad substitution", p->u.param.arg->w_raw);
            rc = fatal_expansion_status(cx);
            sh_fatal(cx, rc);
            break;
        }
        rc = sh_param_xform(cx, p, name, len, val, out);
        break;
    default: { // trims and case changes
        char *pat = NULL;
        if ((rc = expand_sub_str(cx, p->u.param.arg, EX_PAT, &pat, NULL)) != 0)
            break;
        char *v = NULL;
        if (op >= SH_PO_UPPER1 && op <= SH_PO_LOWER) {
            // ${v^p} ${v^^p} ${v,p} ${v,,p}
            v = sh_param_case(val, pat, op <= SH_PO_UPPER,
                              op == SH_PO_UPPER || op == SH_PO_LOWER);
        } else if ((v = box_strdup(val)) != NULL) {
            size_t s, e;
            trim(v, strlen(v), pat, sh_glob_ext_flag(cx->cx_st->st_shopt), op,
                 &s, &e);
            memmove(v, v + s, e - s);
            v[e - s] = '\0';
        }
        box_free(pat);
        if (v == NULL)
            return ex_nomem(x);
        *out = v;
        break;
    }
    }
    if (rc != 0)
        x->x_status = rc;
    return rc;
}

/* ${@op…} ${*op…}: the op on each positional parameter, or the slice
 * of ${@:off:len} ($0 is item 0 there). */
static int
expand_at_op(ex *x, const sh_wpart *p, bool quoted, bool star)
{
    sh_state *st = x->x_cx->cx_st;
    size_t n = (size_t)st->st_npos;
    int rc = 0;
    if (p->u.param.op == SH_PO_SUBSTR) {
        size_t from, count;
        if ((rc = sh_param_slice(x->x_cx, p, n + 1, true, &from, &count)) != 0)
            return x->x_status = rc;
        if (from == 0 && count > 0) {
            if (ex_put(x, st->st_arg0, strlen(st->st_arg0),
                       quoted ? M_QUOTE : M_SPLIT))
                return x->x_status;
            if (count > 1 && ex_mark(x, quoted ? M_HARD : M_BREAK))
                return x->x_status;
            from = 1;
            count--;
        }
        return expand_list(x, from > 0 ? st->st_pos + from - 1 : st->st_pos,
                           count, quoted, star);
    }
    char **v = box_calloc(n + 1, sizeof *v);
    if (v == NULL)
        return ex_nomem(x);
    for (size_t i = 0; i < n && rc == 0; i++)
        rc = op_value(x, p, p->u.param.name, p->u.param.len, st->st_pos[i],
                      &v[i]);
    if (rc == 0)
        rc = expand_list(x, v, n, quoted, star);
    for (size_t i = 0; i < n; i++)
        box_free(v[i]);
    box_free(v);
    return rc;
}

static int
cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ${!prefix*} ${!prefix@}: the names of the set variables that start
 * with prefix, sorted as bash sorts them. */
static int
expand_names(ex *x, const sh_wpart *p, bool quoted)
{
    sh_state *st = x->x_cx->cx_st;
    sh_calls_sync(st); // FUNCNAME, BASH_LINENO as they are
    char **v = box_calloc(st->st_nvars + 1, sizeof *v);
    if (v == NULL)
        return ex_nomem(x);
    size_t n = 0;
    for (size_t i = 0; i < st->st_nvars; i++)
        if ((st->st_vars[i].v_value != NULL ||
             st->st_vars[i].v_arr != NULL) &&
            strncmp(st->st_vars[i].v_name, p->u.param.name, p->u.param.len) ==
                0)
            v[n++] = st->st_vars[i].v_name;
    qsort(v, n, sizeof *v, cmp_names);
    int rc = expand_list(x, v, n, quoted, p->u.param.xform == '*');
    box_free(v);
    return rc;
}

/* Whether s names a parameter: a name, digits, or one special. */
static bool
param_name_ok(const char *s)
{
    size_t n = strlen(s);
    if (n == 1 && strchr("@*#?-$!0", s[0]) != NULL)
        return true;
    if (n > 0 && strspn(s, "0123456789") == n)
        return true;
    return sh_name_valid(s, n);
}

/* ---- array subscripts: ${a[i]} ${a[@]} ${!a[@]} ${#a[@]} ---- */

/* '@' or '*' when the subscript is one of them alone, else 0. */
static char
sub_all(const sh_word *w)
{
    const sh_wpart *p = w->w_parts;
    if (p != NULL && p->wp_next == NULL && p->wp_kind == SH_WP_LIT &&
        p->u.text.len == 1 && (p->u.text.s[0] == '@' || p->u.text.s[0] == '*'))
        return p->u.text.s[0];
    return 0;
}

/* ${name[sub]}: a copy of the element (*out NULL when unset). */
static int
element_value(ex *x, const sh_wpart *p, char **out)
{
    sh_ctx *cx = x->x_cx;
    char nm[256];
    snprintf(nm, sizeof nm, "%.*s", (int)p->u.param.len, p->u.param.name);
    *out = NULL;
    char *sub = NULL;
    int rc = expand_sub_str(cx, p->u.param.sub, EX_STR, &sub, NULL);
    if (rc != 0)
        return x->x_status = rc;
    long long index;
    const char *key, *val = NULL;
    bool arith;
    rc = sh_subscript_of(cx, nm, nm, sub, &index, &key, &arith);
    if (rc != 0) {
        box_free(sub);
        if (!arith) // bash reports a bad subscript and expands to nothing
            return 0;
        // The index's arithmetic failed: bash -c ends the shell (where a
        // $((…)) error only discards the command); a script file goes on
        // with its next command.
        if (cx->cx_script)
            sh_discard(cx, rc);
        else
            sh_fatal(cx, rc);
        return x->x_status = rc;
    }
    const sh_var *v = sh_var_find(cx->cx_st, nm);
    if (v != NULL && v->v_arr != NULL)
        val = key ? sh_array_get_key(v->v_arr, key)
                  : sh_array_get(v->v_arr, index);
    else if (v != NULL && index == 0 && (key == NULL || strcmp(key, "0") == 0))
        val = v->v_value;
    box_free(sub); // key points into it
    if (val != NULL && (*out = box_strdup(val)) == NULL)
        return ex_nomem(x);
    return 0;
}

/* ${!name…} ${!a[i]…}: the name that the value of name (or of the
 * element) names, in *target (box_alloc'd; NULL for an unset element). */
static int
resolve_indirect(ex *x, const sh_wpart *p, char **target)
{
    const char *name = p->u.param.name;
    size_t len = p->u.param.len;
    char tmp[64];
    char *elem = NULL;
    const char *v;
    *target = NULL;
    if (p->u.param.sub != NULL) {
        int rc = element_value(x, p, &elem);
        if (rc != 0)
            return rc;
        v = elem;
    } else {
        v = param_value(x->x_cx, name, len, tmp, sizeof tmp);
    }
    int rc = 0;
    if (v == NULL && p->u.param.sub != NULL) {
        // bash: an unset element names nothing, and says nothing.
    } else if (v == NULL) {
        sh_errf(x->x_cx, "%.*s: invalid indirect expansion", (int)len, name);
        sh_discard(x->x_cx, 1);
        rc = x->x_status = 1;
    } else if (!param_name_ok(v)) {
        sh_errf(x->x_cx, "%s: invalid variable name", v);
        sh_discard(x->x_cx, 1);
        rc = x->x_status = 1;
    } else if ((*target = box_strdup(v)) == NULL) {
        rc = ex_nomem(x);
    }
    box_free(elem);
    return rc;
}

/* The values (or, keys true, the indices / keys) of name as strings:
 * *vec box_alloc'd with box_alloc'd strings. */
static int
array_strings(ex *x, const char *name, bool keys, char ***vec, size_t *n)
{
    const sh_var *v = sh_var_find(x->x_cx->cx_st, name);
    size_t cnt = 0;
    if (v != NULL && v->v_arr != NULL)
        cnt = sh_array_count(v->v_arr);
    else if (v != NULL && v->v_value != NULL)
        cnt = 1;
    char **r = box_calloc(cnt + 1, sizeof *r);
    if (r == NULL)
        return ex_nomem(x);
    for (size_t i = 0; i < cnt; i++) {
        const char *val = v->v_value, *key = NULL;
        long long index = 0;
        if (v->v_arr != NULL)
            val = sh_array_at(v->v_arr, i, &key, &index);
        if (!keys)
            r[i] = box_strdup(val);
        else if (key != NULL)
            r[i] = box_strdup(key);
        else
            r[i] = box_asprintf("%lld", index);
        if (r[i] == NULL) {
            for (size_t j = 0; j < i; j++)
                box_free(r[j]);
            box_free(r);
            return ex_nomem(x);
        }
    }
    *vec = r;
    *n = cnt;
    return 0;
}

static void
strings_free(char **v, size_t n)
{
    for (size_t i = 0; i < n; i++)
        box_free(v[i]);
    box_free(v);
}

/* "${a[@]}" (or ${!a[@]}, or a per-element operator) over no elements:
 * like "$@" with no parameters, no field at all. */
static bool
array_list_empty(const ex *x, const sh_wpart *p)
{
    sh_param_op op = p->u.param.op;
    // ${a[@]:+w} over nothing is nothing; the other word operators are
    // their word.
    if (sub_all(p->u.param.sub) != '@' || op == SH_PO_LENGTH ||
        (op >= SH_PO_DEFAULT && op <= SH_PO_CALT && op != SH_PO_ALT &&
         op != SH_PO_CALT))
        return false;
    char nm[256];
    snprintf(nm, sizeof nm, "%.*s", (int)p->u.param.len, p->u.param.name);
    const sh_var *v = sh_var_find(x->x_cx->cx_st, nm);
    if (v == NULL)
        return true;
    return v->v_arr != NULL ? sh_array_count(v->v_arr) == 0
                            : v->v_value == NULL;
}

/* ${a[@]:off:len} over the elements v[0..n) of nm: an indexed array
 * counts the offset in indices (the first element whose index is at
 * least off; a negative offset from one past the largest index), an
 * associative array by position, a scalar as its substring, as bash
 * does. */
static int
array_slice(ex *x, const sh_wpart *p, const char *nm, char **v, size_t n,
            bool quoted, bool star)
{
    const sh_var *var = sh_var_find(x->x_cx->cx_st, nm);
    const sh_array *a = var != NULL ? var->v_arr : NULL;
    if (a == NULL && n == 1) {
        // A scalar's ${s[@]:1} is its substring, as ${s:1}.
        char *o = NULL;
        int rc = op_value(x, p, nm, strlen(nm), v[0], &o);
        if (rc == 0)
            rc = expand_list(x, &o, 1, quoted, star);
        box_free(o);
        return rc;
    }
    bool indexed = a != NULL && !sh_array_assoc(a);
    size_t total = indexed ? (size_t)(sh_array_max_index(a) + 1) : n;
    size_t from, count;
    int rc = sh_param_slice(x->x_cx, p, total, true, &from, &count);
    if (rc != 0)
        return x->x_status = rc;
    size_t first = from < n ? from : n;
    if (indexed) {
        first = n;
        for (size_t i = 0; i < n; i++) {
            const char *key;
            long long index;
            (void)sh_array_at(a, i, &key, &index);
            if (index >= (long long)from) {
                first = i;
                break;
            }
        }
    }
    if (count > n - first)
        count = n - first;
    return expand_list(x, v + first, count, quoted, star);
}

/* ${v?w} ${v:?w} where v is unset (or empty): w, or bash's words for
 * an empty w, as the message that ends the shell. */
static int
word_error(ex *x, const sh_wpart *p, const char *name, size_t len)
{
    char *w = NULL;
    int rc = expand_sub_str(x->x_cx, p->u.param.arg, EX_STR, &w, NULL);
    if (rc != 0)
        return x->x_status = rc;
    char shown[300];
    param_shown(p, name, len, shown, sizeof shown);
    rc = param_error(x, shown,
                     w[0] != '\0'                   ? w
                     : p->u.param.op == SH_PO_ERROR ? "parameter not set"
                                                    : "parameter null or not set",
                     fatal_expansion_status(x->x_cx));
    box_free(w);
    return rc;
}

/* ${a[@]:-w} and the other word operators over the elements v[0..n)
 * of nm: the array is set when it has an element. */
static int
array_word_op(ex *x, const sh_wpart *p, const char *nm, char **v, size_t n,
              bool quoted, bool star)
{
    sh_param_op op = p->u.param.op;
    int rc;
    box_buf b;
    box_buf_init(&b, SH_WORD_MAX);
    box_err e = BOX_OK;
    for (size_t i = 0; i < n && e == BOX_OK; i++)
        if ((i > 0 && (e = box_buf_putc(&b, ' ')) != BOX_OK) ||
            (e = box_buf_puts(&b, v[i])) != BOX_OK)
            break;
    char *joined = e == BOX_OK && n > 0 ? box_buf_take(&b) : NULL;
    box_buf_reset(&b);
    if (e != BOX_OK)
        return ex_nomem(x);
    bool set = joined != NULL, empty = !set || joined[0] == '\0';
    bool colon = op == SH_PO_CDEFAULT || op == SH_PO_CALT ||
                 op == SH_PO_CASSIGN || op == SH_PO_CERROR;
    bool use_word = (op == SH_PO_DEFAULT || op == SH_PO_CDEFAULT ||
                     op == SH_PO_ASSIGN || op == SH_PO_CASSIGN ||
                     op == SH_PO_ERROR || op == SH_PO_CERROR)
                        ? (colon ? empty : !set)
                        : (colon ? !empty : set);
    if (op == SH_PO_ALT || op == SH_PO_CALT)
        rc = use_word ? expand_parts(x, p->u.param.arg->w_parts, quoted)
                      : 0;
    else if (use_word && (op == SH_PO_ERROR || op == SH_PO_CERROR))
        rc = word_error(x, p, nm, strlen(nm));
    else if (use_word)
        rc = expand_parts(x, p->u.param.arg->w_parts, quoted);
    else
        rc = expand_list(x, v, n, quoted, star);
    box_free(joined);
    return rc;
}

/* ${a[@]} ${a[*]} ${!a[@]} ${#a[@]} ${a[@]:off:len}, and the
 * per-element operators (# ## % %% ^ ^^ , ,, / // @Q …); the word
 * operators see the elements joined by spaces. */
static int
expand_array_all(ex *x, const sh_wpart *p, bool quoted)
{
    char nm[256];
    snprintf(nm, sizeof nm, "%.*s", (int)p->u.param.len, p->u.param.name);
    sh_param_op op = p->u.param.op;
    bool star = sub_all(p->u.param.sub) == '*';
    char **v = NULL;
    size_t n = 0;
    x->x_exp = true;
    int rc = array_strings(x, nm, op == SH_PO_KEYS, &v, &n);
    if (rc != 0)
        return rc;
    int mq = quoted ? M_QUOTE : M_SPLIT;
    switch (op) {
    case SH_PO_NONE:
    case SH_PO_KEYS:
        rc = expand_list(x, v, n, quoted, star);
        break;
    case SH_PO_LENGTH: {
        char tmp[32];
        snprintf(tmp, sizeof tmp, "%zu", n);
        rc = ex_put(x, tmp, strlen(tmp), mq);
        break;
    }
    case SH_PO_SUBSTR:
        rc = array_slice(x, p, nm, v, n, quoted, star);
        break;
    default: {
        if (!per_value_op(op)) {
            rc = array_word_op(x, p, nm, v, n, quoted, star);
            break;
        }
        for (size_t i = 0; i < n && rc == 0; i++) {
            char *o = NULL;
            if ((rc = op_value(x, p, nm, strlen(nm), v[i], &o)) == 0) {
                box_free(v[i]);
                v[i] = o;
            }
        }
        if (rc == 0)
            rc = expand_list(x, v, n, quoted, star);
        break;
    }
    }
    strings_free(v, n);
    return rc;
}

static int
expand_param(ex *x, const sh_wpart *p, bool quoted)
{
    sh_ctx *cx = x->x_cx;
    const char *name = p->u.param.name;
    size_t len = p->u.param.len;
    sh_param_op op = p->u.param.op;
    int mq = quoted ? M_QUOTE : M_SPLIT;
    char tmp[64];
    x->x_exp = true;
    if (op == SH_PO_NAMES)
        return expand_names(x, p, quoted);
    if (p->u.param.indirect && p->u.param.sub == NULL && op == SH_PO_NONE &&
        len < 256) {
        // ${!ref} of a name reference: the name it refers to (bash).
        char nm[256];
        memcpy(nm, name, len);
        nm[len] = '\0';
        const sh_var *r = sh_var_find_raw(x->x_cx->cx_st, nm);
        if (r != NULL && (r->v_flags & SH_VAR_NAMEREF))
            return r->v_value != NULL
                       ? ex_put(x, r->v_value, strlen(r->v_value), mq)
                       : 0;
    }
    if (p->u.param.indirect) {
        // The same expansion of the parameter that name's value names.
        char *target = NULL;
        if (resolve_indirect(x, p, &target) != 0)
            return x->x_status;
        if (target == NULL)
            return 0;
        sh_wpart named = *p;
        named.u.param.indirect = false;
        named.u.param.sub = NULL;
        named.u.param.name = target;
        named.u.param.len = strlen(target);
        int r = expand_param(x, &named, quoted);
        box_free(target);
        return r;
    }
    bool at = len == 1 && (name[0] == '@' || name[0] == '*');
    if (at && (op == SH_PO_NONE || op == SH_PO_SUBSTR || per_value_op(op))) {
        return op == SH_PO_NONE ? expand_at(x, quoted, name[0] == '*')
                                : expand_at_op(x, p, quoted, name[0] == '*');
    }
    if (p->u.param.sub != NULL && sub_all(p->u.param.sub) != 0)
        return expand_array_all(x, p, quoted);

    const char *val;
    char *joined = NULL;
    if (p->u.param.sub != NULL) {
        int rc = element_value(x, p, &joined);
        if (rc != 0)
            return rc;
        val = joined;
    } else if (at) {
        // ${@:-w} and friends: the parameters joined by spaces.
        box_buf b;
        box_buf_init(&b, SH_WORD_MAX);
        for (int i = 0; i < cx->cx_st->st_npos; i++)
            if ((i > 0 && box_buf_putc(&b, ' ') != BOX_OK) ||
                box_buf_puts(&b, cx->cx_st->st_pos[i]) != BOX_OK) {
                box_buf_reset(&b);
                return ex_nomem(x);
            }
        joined = cx->cx_st->st_npos > 0 ? box_buf_take(&b) : NULL;
        box_buf_reset(&b);
        val = joined;
    } else {
        val = param_value(cx, name, len, tmp, sizeof tmp);
    }
    bool set = val != NULL;
    bool empty = !set || val[0] == '\0';
    int rc = 0;
    switch (op) {
    case SH_PO_NONE:
    case SH_PO_LENGTH:
    case SH_PO_RSUFFIX:
    case SH_PO_RLSUFFIX:
    case SH_PO_RPREFIX:
    case SH_PO_RLPREFIX:
    case SH_PO_UPPER1:
    case SH_PO_UPPER:
    case SH_PO_LOWER1:
    case SH_PO_LOWER:
    case SH_PO_SUBSTR:
    case SH_PO_REPL:
    case SH_PO_REPL_ALL:
    case SH_PO_REPL_PRE:
    case SH_PO_REPL_SUF:
    case SH_PO_XFORM:
        if (!set && cx->cx_st->st_opt_u && !at) {
            char shown[300];
            param_shown(p, name, len, shown, sizeof shown);
            rc = param_error(x, shown, "parameter not set", 2);
            break;
        }
        if (op == SH_PO_NONE) {
            if (set)
                rc = ex_put(x, val, strlen(val), mq);
        } else if (op == SH_PO_LENGTH) {
            snprintf(tmp, sizeof tmp, "%zu",
                     set ? utf8_chars(val, strlen(val)) : (size_t)0);
            rc = ex_put(x, tmp, strlen(tmp), mq);
        } else if (set) {
            char *v = NULL;
            if ((rc = op_value(x, p, name, len, val, &v)) == 0)
                rc = ex_put(x, v, strlen(v), mq);
            box_free(v);
        }
        break;
    case SH_PO_DEFAULT:
    case SH_PO_CDEFAULT:
        if (op == SH_PO_DEFAULT ? !set : empty)
            rc = expand_parts(x, p->u.param.arg->w_parts, quoted);
        else
            rc = ex_put(x, val, strlen(val), mq);
        break;
    case SH_PO_ALT:
    case SH_PO_CALT:
        if (op == SH_PO_ALT ? set : !empty)
            rc = expand_parts(x, p->u.param.arg->w_parts, quoted);
        break;
    case SH_PO_ASSIGN:
    case SH_PO_CASSIGN:
        if (op == SH_PO_ASSIGN ? !set : empty) {
            if (!sh_name_valid(name, len)) {
                char shown[300];
                snprintf(shown, sizeof shown, "$%.*s", (int)len, name);
                rc = param_error(x, shown, "cannot assign in this way", 1);
                break;
            }
            char *w = NULL;
            size_t wl = 0;
            if ((rc = expand_sub_str(cx, p->u.param.arg, EX_STR, &w, &wl)) !=
                0) {
                x->x_status = rc;
                break;
            }
            char nm[256];
            snprintf(nm, sizeof nm, "%.*s", (int)len, name);
            if (sh_assign_str(cx, NULL, nm, NULL, w, wl, false) != 0) {
                box_free(w);
                sh_fatal(cx, 1); // bash: a failed ${x=w} ends the script
                rc = x->x_status = 1;
                break;
            }
            rc = ex_put(x, w, wl, mq);
            box_free(w);
        } else {
            rc = ex_put(x, val, strlen(val), mq);
        }
        break;
    case SH_PO_ERROR:
    case SH_PO_CERROR:
        if (op == SH_PO_ERROR ? !set : empty)
            rc = word_error(x, p, name, len);
        else
            rc = ex_put(x, val, strlen(val), mq);
        break;
    default:
        break;
    }
    box_free(joined);
    return rc;
}

/* ---- the other parts ---- */

static int
expand_cmdsub(ex *x, const sh_wpart *p, bool quoted)
{
    char *out = NULL;
    size_t len = 0;
    x->x_exp = true;
    int st = sh_exec_capture(x->x_cx, p->u.cmdsub.body, &out, &len);
    if (out == NULL)
        return ex_nomem(x);
    x->x_cx->cx_sub_status = st;
    x->x_cx->cx_sub_ran = true;
    if (memchr(out, '\0', len) != NULL) {
        // A variable cannot hold one: bash drops them, and says so.
        size_t k = 0;
        for (size_t i = 0; i < len; i++)
            if (out[i] != '\0')
                out[k++] = out[i];
        len = k;
        sh_errf(x->x_cx,
                "warning: command substitution: ignored null byte in input");
    }
    while (len > 0 && out[len - 1] == '\n')
        len--;
    int rc = ex_put(x, out, len, quoted ? M_QUOTE : M_SPLIT);
    box_free(out);
    if (rc == 0 && x->x_cx->cx_flow == SH_FLOW_EXIT)
        rc = x->x_status = x->x_cx->cx_status; // the call was aborted
    return rc;
}

/* <( ) and >( ): the path of the pipe end, one field as it is. */
static int
expand_procsub(ex *x, const sh_wpart *p)
{
    char *path = NULL;
    x->x_exp = true;
    int st =
        sh_procsub_open(x->x_cx, p->u.procsub.body, p->u.procsub.out, &path);
    if (st != 0)
        return x->x_status = st; // the command does not run

    int rc = ex_mark(x, M_QMARK);
    if (rc == 0)
        rc = ex_put(x, path, strlen(path), M_QUOTE);
    box_free(path);
    return rc;
}

static int
expand_tilde(ex *x, const sh_wpart *p)
{
    const char *t = p->u.text.s;
    size_t n = p->u.text.len;
    const char *v = NULL;
    sh_state *st = x->x_cx->cx_st;
    if (n == 0)
        v = sh_var_get(st, "HOME");
    else if (n == 1 && t[0] == '+')
        v = st->st_cwd;
    else if (n == 1 && t[0] == '-')
        v = sh_var_get(st, "OLDPWD");
    if (v == NULL) {
        // ~user is not expanded (spec §3.2); nor ~ without HOME.
        if (ex_put(x, "~", 1, M_LIT))
            return x->x_status;
        return ex_put(x, t, n, M_LIT);
    }
    x->x_exp = true;
    return ex_put(x, v, strlen(v), M_QUOTE);
}

/* "…" whose only content is a list that came out empty ("$@" with no
 * parameters, "${@:5}", "${!p@}" naming none) gives no field at all:
 * the mark that the quotes made is taken back. */
static int
expand_dquote(ex *x, const sh_wpart *dq)
{
    size_t mark = x->x_txt.b_len;
    if (ex_mark(x, M_QMARK))
        return x->x_status;
    x->x_no_fields = false;
    int rc = expand_parts(x, dq, true);
    // "${u:-$@}" is one empty field in bash: a list in the word of an
    // operator does not count.
    bool param = dq != NULL && dq->wp_next == NULL &&
                 dq->wp_kind == SH_WP_PARAM;
    bool list = param && !(dq->u.param.op >= SH_PO_DEFAULT &&
                           dq->u.param.op <= SH_PO_CALT);
    // "${a[@]:+w}" over no elements is no field either.
    bool none = param && dq->u.param.sub != NULL && array_list_empty(x, dq);
    if (rc == 0 && x->x_mode == EX_FIELDS &&
        ((list && x->x_no_fields) || none) && x->x_txt.b_len == mark + 1) {
        x->x_txt.b_len = mark;
        x->x_mask.b_len = mark;
        x->x_txt.b_data[mark] = '\0';
        x->x_mask.b_data[mark] = '\0';
    }
    return rc;
}

/*
 * $(( … )) whose text holds $( ), ${ }, backquotes or quotes: the text is
 * first expanded as if double-quoted (parsed as the value of A="…", so
 * the inner commands are parsed and admitted like any other; quotes
 * outside them removed, as bash's quote removal does), then evaluated.
 */
int
sh_expand_arith(sh_ctx *cx, const char *who, const sh_wpart *p, long long *v)
{
    const char *t = p->u.text.s;
    size_t n = p->u.text.len;
    // $( ), backquotes and ${ } (as ${#a[@]}) expand first, as in bash.
    bool sub = memchr(t, '`', n) != NULL || memchr(t, '"', n) != NULL;
    for (size_t i = 0; i + 1 < n && !sub; i++)
        sub = t[i] == '$' && (t[i + 1] == '(' || t[i + 1] == '{');
    if (!sub)
        return sh_arith_in(cx, who, t, n, v);
    char *e = NULL;
    size_t el = 0;
    int rc =
        sh_expand_dq_text(cx, "arithmetic", SH_DQ_DROP_QUOTES, t, n, &e, &el);
    if (rc == 0)
        rc = sh_arith_in(cx, who, e, el, v);
    box_free(e);
    return rc;
}

/* src, a whole "A=VALUE" assignment, parsed, and VALUE expanded as an
 * assignment's value is (no splitting, no globbing). */
static int
expand_assignment_text(sh_ctx *cx, const char *who, const char *src,
                       char **out, size_t *outlen)
{
    box_arena *a = box_arena_new((size_t)4 << 20);
    sh_node *list = NULL;
    sh_diag d;
    int rc = 1;
    if (a == NULL) {
        sh_errf(cx, "%s: out of memory", who);
    } else if (sh_parse(src, strlen(src), a, &list, &d) != BOX_OK ||
               list->u.list.items == NULL ||
               list->u.list.items->n_kind != SH_N_SIMPLE ||
               list->u.list.items->u.simple.assigns == NULL ||
               list->u.list.items->n_next != NULL) {
        sh_errf(cx, "%s: syntax error", who);
        rc = 2;
    } else {
        rc = sh_expand_str(
            cx, list->u.list.items->u.simple.assigns->a_value, out, outlen);
    }
    box_arena_free(a);
    return rc;
}

/* How deep $( ) in $( ) in … dq_subst_end follows before it takes the
 * rest of the text as the substitution (the parser then says why). */
#define DQ_SUBST_NEST_MAX 64

/* One past the end of the substitution at t[i] ($( ), ${ } or `…`), or n
 * when it does not close there: quoted text and nested substitutions in
 * it are skipped, so their ')' or '}' do not end it. */
static size_t
dq_subst_end(const char *t, size_t n, size_t i, unsigned nest)
{
    if (nest >= DQ_SUBST_NEST_MAX)
        return n;
    if (t[i] == '`') {
        for (size_t j = i + 1; j < n; j++) {
            if (t[j] == '\\')
                j++;
            else if (t[j] == '`')
                return j + 1;
        }
        return n;
    }
    char open = t[i + 1], close = open == '(' ? ')' : '}';
    unsigned depth = 0;
    for (size_t j = i + 1; j < n; j++) {
        char c = t[j];
        if (c == '\\') {
            j++;
        } else if (c == '\'') {
            const char *q = memchr(t + j + 1, '\'', n - j - 1);
            if (q == NULL)
                return n;
            j = (size_t)(q - t);
        } else if (c == '"') {
            for (j++; j < n && t[j] != '"'; j++)
                j += t[j] == '\\';
            if (j >= n)
                return n;
        } else if (c == '`' || (c == '$' && j + 1 < n &&
                                (t[j + 1] == '(' || t[j + 1] == '{'))) {
            j = dq_subst_end(t, n, j, nest + 1) - 1;
        } else if (c == open) {
            depth++;
        } else if (c == close && --depth == 0) {
            return j + 1;
        }
    }
    return n;
}

int
sh_expand_dq_text(sh_ctx *cx, const char *who, unsigned flags, const char *t,
                  size_t n, char **out, size_t *outlen)
{
    *out = NULL;
    *outlen = 0;
    // Parsed as the value of A="…": a bare '"' is escaped so it stays
    // literal (or dropped), a backslash keeps the character after it, a
    // substitution goes in whole, its own quotes and all.
    box_buf b;
    box_buf_init(&b, SIZE_MAX);
    box_err e = BOX_OK;
    // Empty lines first, so $LINENO in a $( ) in it is the line's own.
    for (uint32_t l = 1; l < cx->cx_line && l < SH_MAX_INPUT && e == BOX_OK;
         l++)
        e = box_buf_putc(&b, '\n');
    if (e == BOX_OK)
        e = box_buf_puts(&b, "A=\"");
    for (size_t i = 0; i < n && e == BOX_OK; i++) {
        if (t[i] == '\\' && i + 1 < n) {
            e = box_buf_append(&b, t + i, 2);
            i++;
        } else if (t[i] == '\\') { // a lone last backslash is itself
            e = box_buf_puts(&b, "\\\\");
        } else if (t[i] == '`' || (t[i] == '$' && i + 1 < n &&
                                   (t[i + 1] == '(' || t[i + 1] == '{'))) {
            size_t end = dq_subst_end(t, n, i, 0);
            e = box_buf_append(&b, t + i, end - i);
            i = end - 1;
        } else if (t[i] == '"') {
            if (!(flags & SH_DQ_DROP_QUOTES))
                e = box_buf_puts(&b, "\\\"");
        } else {
            e = box_buf_putc(&b, t[i]);
        }
    }
    if (e == BOX_OK)
        e = box_buf_putc(&b, '"');
    box_err fe = e;
    char *src = e == BOX_OK ? box_buf_take(&b) : NULL;
    box_buf_reset(&b);
    if (fe != BOX_OK) {
        sh_errf(cx, "%s: out of memory", who);
        return 1;
    }
    int rc = expand_assignment_text(cx, who, src, out, outlen);
    box_free(src);
    return rc;
}

int
sh_expand_word_text(sh_ctx *cx, const char *who, const char *t, size_t n,
                    char **out, size_t *outlen)
{
    *out = NULL;
    *outlen = 0;
    // A=WORD, an unquoted blank or operator character escaped so that
    // WORD stays one word whatever split it out of its list.
    box_buf b;
    box_buf_init(&b, SIZE_MAX);
    box_err e = box_buf_puts(&b, "A=");
    char q = 0;
    for (size_t i = 0; i < n && e == BOX_OK; i++) {
        char c = t[i];
        if (c == '\\' && q != '\'' && i + 1 < n) {
            e = box_buf_append(&b, t + i, 2);
            i++;
            continue;
        }
        if (q != '\'' && c == '$' && i + 1 < n &&
            (t[i + 1] == '(' || t[i + 1] == '{')) {
            // $( ), $(( )), ${ }: copied whole, as the parser reads them
            char open = t[i + 1], close = open == '(' ? ')' : '}';
            size_t j = i + 1;
            for (int depth = 0; j < n; j++) {
                depth += t[j] == open ? 1 : t[j] == close ? -1 : 0;
                if (depth == 0)
                    break;
            }
            size_t len = j < n ? j - i + 1 : n - i;
            e = box_buf_append(&b, t + i, len);
            i += len - 1;
            continue;
        }
        if (q == 0 && (c == '\'' || c == '"'))
            q = c;
        else if (c == q)
            q = 0;
        else if (q == 0 && strchr(" \t\n;&|<>()", c) != NULL)
            e = box_buf_putc(&b, '\\');
        if (e == BOX_OK)
            e = box_buf_putc(&b, c);
    }
    char *src = e == BOX_OK ? box_buf_take(&b) : NULL;
    box_buf_reset(&b);
    if (src == NULL) {
        sh_errf(cx, "%s: out of memory", who);
        return 1;
    }
    int rc = expand_assignment_text(cx, who, src, out, outlen);
    box_free(src);
    return rc;
}

static int
expand_parts(ex *x, const sh_wpart *p, bool quoted)
{
    for (; p != NULL; p = p->wp_next) {
        int rc = 0;
        if (x->x_cx->cx_flow == SH_FLOW_EXIT && x->x_status == 0)
            return x->x_status = x->x_cx->cx_status ? x->x_cx->cx_status : 1;
        switch (p->wp_kind) {
        case SH_WP_LIT:
            if (quoted)
                rc = ex_mark(x, M_QMARK);
            if (rc == 0)
                rc = ex_put(x, p->u.text.s, p->u.text.len,
                            quoted ? M_QUOTE : M_LIT);
            break;
        case SH_WP_SQUOTE:
        case SH_WP_ESCAPED:
            rc = ex_mark(x, M_QMARK);
            if (rc == 0)
                rc = ex_put(x, p->u.text.s, p->u.text.len, M_QUOTE);
            break;
        case SH_WP_DQUOTE:
            rc = expand_dquote(x, p->u.dq);
            break;
        case SH_WP_PARAM:
            rc = expand_param(x, p, quoted);
            break;
        case SH_WP_CMDSUB:
            rc = expand_cmdsub(x, p, quoted);
            break;
        case SH_WP_ARITH: {
            long long v = 0;
            x->x_exp = true;
            rc = sh_expand_arith(x->x_cx, NULL, p, &v);
            if (rc != 0) {
                sh_discard(x->x_cx, rc);
                x->x_status = rc;
                break;
            }
            char num[SH_DEC_MAX];
            size_t nl = sh_fmt_dec(num, v);
            rc = ex_put(x, num, nl, quoted ? M_QUOTE : M_SPLIT);
            break;
        }
        case SH_WP_TILDE:
            rc = expand_tilde(x, p);
            break;
        case SH_WP_PROCSUB:
            rc = expand_procsub(x, p);
            break;
        default:
            break;
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* ---- results ---- */

void
sh_argv_init(sh_argv *av)
{
    memset(av, 0, sizeof *av);
}

#define ARGV_POOL 256      // bytes of short fields per argv
#define ARGV_POOL_FIELD 64 // a longer field has its own allocation

static bool
pooled(const sh_argv *av, const char *s)
{
    // Compared as addresses: builtins may reorder av_v (getopt does).
    uintptr_t p = (uintptr_t)av->av_pool, q = (uintptr_t)s;
    return av->av_pool != NULL && q >= p && q < p + ARGV_POOL;
}

void
sh_argv_drop(const sh_argv *av, char *s)
{
    if (!pooled(av, s))
        box_free(s);
}

char *
sh_argv_take(sh_argv *av, int i)
{
    char *s = av->av_v[i];
    av->av_v[i] = NULL;
    return pooled(av, s) ? box_strdup(s) : s;
}

void
sh_argv_free(sh_argv *av)
{
    for (int i = 0; i < av->av_n; i++)
        sh_argv_drop(av, av->av_v[i]);
    box_free(av->av_pool);
    box_free(av->av_v); // av_exp lies in the same block
    if (av->av_bind != NULL) {
        sh_host_bind_clear(av->av_bind);
        box_free(av->av_bind);
    }
    sh_argv_init(av);
}

box_err
sh_argv_push(sh_argv *av, const char *s, size_t n, bool exp)
{
    if (av->av_n + 2 > av->av_cap) {
        // The fields and their flags share one block: one allocation
        // per command, not two.
        int cap = av->av_cap ? av->av_cap * 2 : 8;
        char **v = box_alloc((size_t)cap * (sizeof *v + sizeof(bool)));
        if (v == NULL)
            return BOX_ENOMEM;
        bool *e = (bool *)(v + cap);
        if (av->av_n > 0) {
            memcpy(v, av->av_v, (size_t)av->av_n * sizeof *v);
            memcpy(e, av->av_exp, (size_t)av->av_n * sizeof *e);
        }
        box_free(av->av_v);
        av->av_v = v;
        av->av_exp = e;
        av->av_cap = cap;
    }
    char *c;
    if (n < ARGV_POOL_FIELD &&
        (av->av_pool != NULL || (av->av_pool = box_alloc(ARGV_POOL)) != NULL) &&
        ARGV_POOL - av->av_pool_used > n) {
        c = av->av_pool + av->av_pool_used;
        memcpy(c, s, n);
        c[n] = '\0';
        av->av_pool_used += n + 1;
    } else if ((c = box_strndup(s, n)) == NULL) {
        return BOX_ENOMEM;
    }
    av->av_v[av->av_n] = c;
    av->av_exp[av->av_n] = exp;
    av->av_n++;
    av->av_v[av->av_n] = NULL;
    return BOX_OK;
}

/*
 * Pathname expansion of one field (text t, mask m, n bytes; bash 5.2):
 * quoted bytes are escaped into the pattern, so only unquoted `* ? [`
 * are magic. No match leaves the field as it is, or removes it
 * (nullglob), or fails the command (failglob: status 1; the call ends,
 * where bash ends only the current line of a multi-line script).
 */
static int
glob_field(ex *x, const char *t, const char *m, size_t n, sh_argv *out)
{
    sh_ctx *cx = x->x_cx;
    const sh_state *st = cx->cx_st;
    unsigned ext = sh_glob_ext_flag(st->st_shopt);
    bool maybe = memchr(t, '*', n) != NULL || memchr(t, '?', n) != NULL ||
                 memchr(t, '[', n) != NULL ||
                 (ext != 0 && memchr(t, '(', n) != NULL);
    if (st->st_opt_f || !maybe)
        return sh_argv_push(out, t, n, x->x_exp) == BOX_OK ? 0 : ex_nomem(x);
    box_buf pat;
    box_buf_init(&pat, SH_WORD_MAX * 2u);
    int rc = 0;
    // Quoted, an extglob group's characters are literal too.
    const char *special = ext != 0 ? "\\*?[]()|@+!" : "\\*?[]";
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (m[i] == M_QUOTE && strchr(special, t[i]) != NULL &&
            box_buf_putc(&pat, '\\') != BOX_OK)
            rc = ex_nomem(x);
        if (rc == 0 && box_buf_putc(&pat, t[i]) != BOX_OK)
            rc = ex_nomem(x);
    }
    if (rc == 0 && box_buf_putc(&pat, '\0') != BOX_OK)
        rc = ex_nomem(x);
    if (rc != 0 || !sh_glob_has_magic(pat.b_data, ext)) {
        box_buf_reset(&pat);
        if (rc != 0)
            return rc;
        return sh_argv_push(out, t, n, x->x_exp) == BOX_OK ? 0 : ex_nomem(x);
    }
    size_t found = 0;
    rc = sh_glob_expand(cx, pat.b_data, st->st_shopt, x->x_exp, out, &found);
    box_buf_reset(&pat);
    if (rc != 0 || found > 0 || (st->st_shopt & SH_SHOPT_NULLGLOB))
        return x->x_status = rc;
    if (st->st_shopt & SH_SHOPT_FAILGLOB) {
        sh_errf(cx, "no match: %.*s", (int)n, t);
        sh_discard(cx, 1);
        return x->x_status = 1;
    }
    return sh_argv_push(out, t, n, x->x_exp) == BOX_OK ? 0 : ex_nomem(x);
}

static bool
is_ifs_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

/* True when the character c of mask kind k goes into the current field
 * as it is: no marker, no IFS character that splits. */
static bool
field_char(int k, char c, const char *ifs)
{
    return k == M_LIT || k == M_QUOTE ||
           (k == M_SPLIT && (c == '\0' || strchr(ifs, c) == NULL));
}

/* Splits x's text into fields per IFS (POSIX 2.6.5) and the markers. */
static int
split_fields(ex *x, sh_argv *out)
{
    const char *ifs = sh_var_get(x->x_cx->cx_st, "IFS");
    if (ifs == NULL)
        ifs = SH_IFS_DEFAULT;
    const char *t = x->x_txt.b_data;
    const char *m = x->x_mask.b_data;
    size_t n = x->x_txt.b_len;
    // All of it one field (a `$i`, most words): no copy to build it in.
    size_t run = 0;
    while (run < n && field_char(m[run], t[run], ifs))
        run++;
    if (n > 0 && run == n)
        return glob_field(x, t, m, n, out);
    box_buf cur, curm;
    box_buf_init(&cur, SH_WORD_MAX);
    box_buf_init(&curm, SH_WORD_MAX);
    bool has = run > 0, wsdelim = false;
    box_err e = BOX_OK;
    int rc = 0;
    // The run already scanned starts the first field (a failure ends the
    // loop below before it begins).
    if (run > 0 && (e = box_buf_append(&cur, t, run)) == BOX_OK)
        e = box_buf_append(&curm, m, run);

#define EMIT()                                                                 \
    do {                                                                       \
        rc = glob_field(x, cur.b_len ? cur.b_data : "",                        \
                        curm.b_len ? curm.b_data : "", cur.b_len, out);        \
        cur.b_len = 0;                                                         \
        curm.b_len = 0;                                                        \
        has = false;                                                           \
    } while (0)

    for (size_t i = run; i < n && e == BOX_OK && rc == 0; i++) {
        int k = m[i];
        char c = t[i];
        if (k == M_QMARK) {
            has = true;
            continue;
        }
        if (k == M_HARD) {
            EMIT();
            has = true;
            wsdelim = false;
            continue;
        }
        if (k == M_BREAK) {
            if (has) {
                EMIT();
                wsdelim = true;
            }
            continue;
        }
        if (k == M_SPLIT && c != '\0' && strchr(ifs, c) != NULL) {
            if (is_ifs_ws(c)) {
                if (has) {
                    EMIT();
                    wsdelim = true;
                }
            } else {
                if (has || !wsdelim)
                    EMIT();
                wsdelim = false;
            }
            continue;
        }
        // The run of plain characters from here goes in at once.
        size_t j = i + 1;
        while (j < n && field_char(m[j], t[j], ifs))
            j++;
        if ((e = box_buf_append(&cur, t + i, j - i)) != BOX_OK ||
            (e = box_buf_append(&curm, m + i, j - i)) != BOX_OK)
            break;
        i = j - 1;
        has = true;
        wsdelim = false;
    }
    if (e == BOX_OK && rc == 0 && has)
        EMIT();
#undef EMIT
    box_buf_reset(&cur);
    box_buf_reset(&curm);
    if (e != BOX_OK)
        return ex_nomem(x);
    return rc;
}

/* One word's parts (after brace expansion) into fields. */
static int
expand_fields(sh_ctx *cx, const sh_wpart *parts, sh_argv *out)
{
    ex x;
    ex_init(&x, cx, EX_FIELDS);
    int rc = expand_parts(&x, parts, false);
    if (rc == 0)
        rc = split_fields(&x, out);
    ex_free(&x);
    return rc;
}

/* A word that is one unquoted literal with nothing that braces or a
 * pattern would read (`echo`, `-lt`, and `[` and `]`, which alone are no
 * pattern; a `(` is an extglob group's): its one field is its text, as
 * glob_field would leave it, so it skips the expansion machinery. */
static bool
plain_literal(const sh_word *w)
{
    const sh_wpart *p = w->w_parts;
    bool bracket = false;
    if (p == NULL || p->wp_next != NULL || p->wp_kind != SH_WP_LIT ||
        p->u.text.len == 0 || p->u.text.len >= 64)
        return false;
    for (size_t i = 0; i < p->u.text.len; i++)
        switch (p->u.text.s[i]) {
        case '*':
        case '?':
        case '{':
        case '(':
        case '\\':
            return false;
        case '[':
            bracket = true;
            break;
        default:
            break;
        }
    if (!bracket)
        return true;
    char pat[64];
    memcpy(pat, p->u.text.s, p->u.text.len);
    pat[p->u.text.len] = '\0';
    return !sh_glob_has_magic(pat, 0); // no `(`: no extglob group here
}

/*
 * A word that is one unquoted $name or ${name} whose value is one field
 * as it is: set, not empty, no IFS character (so no splitting), none of
 * `*?[` (so no pathname expansion, as glob_field judges). Pushes that
 * value and says true; false leaves the word to the full expansion,
 * which says why one is not (unset under set -u, an empty value, …).
 * `[ $i -lt N ]` has one such word per command.
 */
static bool
plain_param(sh_ctx *cx, const sh_word *w, sh_argv *out, int *rc)
{
    const sh_wpart *p = w->w_parts;
    if (p == NULL || p->wp_next != NULL || p->wp_kind != SH_WP_PARAM ||
        p->u.param.op != SH_PO_NONE || p->u.param.indirect ||
        p->u.param.sub != NULL || p->u.param.len == 0 ||
        p->u.param.name[0] == '@' || p->u.param.name[0] == '*')
        return false;
    char tmp[64];
    const char *val =
        param_value(cx, p->u.param.name, p->u.param.len, tmp, sizeof tmp);
    if (val == NULL || val[0] == '\0' ||
        strpbrk(val, (cx->cx_st->st_shopt & SH_SHOPT_EXTGLOB) ? "*?[("
                                                              : "*?[") != NULL)
        return false;
    const char *ifs = sh_var_get(cx->cx_st, "IFS");
    if (strpbrk(val, ifs != NULL ? ifs : SH_IFS_DEFAULT) != NULL)
        return false;
    if (sh_argv_push(out, val, strlen(val), true) != BOX_OK) {
        sh_errf(cx, "expansion: out of memory");
        *rc = 1;
    }
    return true;
}

int
sh_expand_words(sh_ctx *cx, const sh_word *w, sh_argv *out)
{
    for (; w != NULL; w = w->w_next) {
        int rc = 0;
        if (w->w_assign == NULL && plain_param(cx, w, out, &rc)) {
            if (rc != 0)
                return rc;
            continue;
        }
        if (w->w_assign == NULL && plain_literal(w)) {
            if (sh_argv_push(out, w->w_parts->u.text.s, w->w_parts->u.text.len,
                             false) != BOX_OK) {
                sh_errf(cx, "expansion: out of memory");
                return 1;
            }
            continue;
        }
        if (w->w_assign != NULL) {
            // declare NAME=( … ): the builtin sees NAME (sh_exec assigns).
            if (sh_argv_push(out, w->w_assign->a_name,
                             w->w_assign->a_namelen, false) != BOX_OK) {
                sh_errf(cx, "expansion: out of memory");
                return 1;
            }
            continue;
        }
        box_arena *ba = NULL;
        sh_word *made = NULL;
        rc = sh_brace_expand(cx, w, &ba, &made);
        if (rc == 0 && made == NULL && ba == NULL)
            rc = expand_fields(cx, w->w_parts, out);
        for (const sh_word *m = made; m != NULL && rc == 0; m = m->w_next)
            rc = expand_fields(cx, m->w_parts, out);
        box_arena_free(ba);
        if (rc != 0)
            return rc;
    }
    return 0;
}

static int
expand_sub_str(sh_ctx *cx, const sh_word *w, int mode, char **out,
               size_t *outlen)
{
    ex x;
    ex_init(&x, cx, mode);
    *out = NULL;
    int rc = w != NULL ? expand_parts(&x, w->w_parts, false) : 0;
    if (rc == 0) {
        size_t n = x.x_txt.b_len;
        *out = box_buf_take(&x.x_txt);
        if (*out == NULL)
            rc = ex_nomem(&x);
        else if (outlen != NULL)
            *outlen = n;
    }
    ex_free(&x);
    return rc;
}

int
sh_expand_str(sh_ctx *cx, const sh_word *w, char **out, size_t *outlen)
{
    return expand_sub_str(cx, w, EX_STR, out, outlen);
}

int
sh_expand_pattern(sh_ctx *cx, const sh_word *w, char **out)
{
    return expand_sub_str(cx, w, EX_PAT, out, NULL);
}

int
sh_expand_replacement(sh_ctx *cx, const sh_word *w, char **out)
{
    return expand_sub_str(cx, w, EX_REP, out, NULL);
}
