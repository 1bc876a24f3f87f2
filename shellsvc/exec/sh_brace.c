/* SPDX-License-Identifier: Apache-2.0 */
/* bash's brace expansion of one word: {a,b}, {1..10..2}, {a..e}, nested. */
#include "sh_internal.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_arena.h"

/*
 * Brace expansion runs first, on the word as parsed (bash's order): only
 * the bytes of unquoted literal parts can be `{` `,` `}` `..`; every other
 * part (quotes, `\x`, $x, $( ), $(( ))) is one opaque atom carried into
 * the words made, which are then expanded as usual. The words made live
 * in an arena the caller frees; the original word is never changed.
 *
 * bash's rules: the first `{` whose matching `}` (by nesting) encloses a
 * `,` outside inner braces, or a sequence X..Y[..N] of integers (one sign,
 * zero padding when either end has a leading 0) or of single letters, is
 * expanded; an invalid `{` is left as it is and the search goes on after
 * it (`{{a,b}}` gives `{a} {b}`). Every alternative is brace-expanded in
 * turn, and the text after the `}` is searched the same way.
 *
 * Limits: SH_BRACE_MAX words from one word and SH_BRACE_MAX_BYTES of them
 * (a clear error, status 1: a word like {1..9999999999} must not eat the
 * worker's memory), SH_MAX_DEPTH nested expressions.
 */
#define SH_BRACE_MAX 100000u
#define SH_BRACE_MAX_BYTES ((size_t)64 << 20)

/* One atom of the flattened word: a byte of an unquoted literal part
 * (ba_part NULL) or a whole other part. */
typedef struct br_atom {
    const sh_wpart *ba_part;
    char ba_c;
} br_atom;

/*
 * A word made is a chain of pieces, last first (words made from the same
 * prefix share it, so 2^16 words cost 2^17 nodes, not 2^16 copies): each
 * node is atoms [bn_s, bn_e) of the original, a generated text (a
 * sequence element), or a word an alternative made (bn_sub, nested at
 * most SH_MAX_DEPTH deep). A NULL word is the empty one.
 */
typedef struct br_node {
    const struct br_node *bn_prev;
    size_t bn_s, bn_e;
    const char *bn_txt;
    size_t bn_tlen;
    const struct br_node *bn_sub;
} br_node;

typedef const br_node *br_word;

typedef struct br_words {
    br_word *bs_v;
    size_t bs_n;
} br_words;

typedef struct br {
    sh_ctx *b_cx;
    const sh_word *b_word;
    box_arena *b_a;
    br_atom *b_at; // the flattened word
    size_t b_n;
    size_t *b_match; // for a literal `{`: the index of its `}`, or SIZE_MAX
    unsigned b_depth;
    bool b_failed; // the message is printed
} br;

static void
br_fail(br *b, const char *why)
{
    if (!b->b_failed)
        sh_errf(b->b_cx, "%.*s: brace expansion: %s",
                (int)(b->b_word->w_rawlen > 100 ? 100 : b->b_word->w_rawlen),
                b->b_word->w_raw, why);
    b->b_failed = true;
}

static void *
br_alloc(br *b, size_t n, size_t size)
{
    void *p = NULL;
    if (size != 0 && n <= SIZE_MAX / size)
        p = box_arena_alloc(b->b_a, n * size == 0 ? 1 : n * size);
    if (p == NULL)
        br_fail(b, "words too large (more than 64 MiB)");
    return p;
}

static bool
br_lit(const br *b, size_t i, char c)
{
    return b->b_at[i].ba_part == NULL && b->b_at[i].ba_c == c;
}

/* Whether w has a `{` in an unquoted literal part (else nothing to do). */
static bool
has_brace(const sh_word *w)
{
    for (const sh_wpart *p = w->w_parts; p != NULL; p = p->wp_next)
        if (p->wp_kind == SH_WP_LIT && memchr(p->u.text.s, '{', p->u.text.len))
            return true;
    return false;
}

/* Flattens the word into atoms and pairs each literal `{` with its `}`. */
static bool
br_flatten(br *b)
{
    size_t n = 0;
    for (const sh_wpart *p = b->b_word->w_parts; p != NULL; p = p->wp_next)
        n += p->wp_kind == SH_WP_LIT ? p->u.text.len : 1;
    b->b_at = br_alloc(b, n, sizeof *b->b_at);
    b->b_match = br_alloc(b, n, sizeof *b->b_match);
    size_t *stack = br_alloc(b, n, sizeof *stack);
    if (b->b_at == NULL || b->b_match == NULL || stack == NULL)
        return false;
    size_t i = 0, top = 0;
    for (const sh_wpart *p = b->b_word->w_parts; p != NULL; p = p->wp_next) {
        if (p->wp_kind != SH_WP_LIT) {
            b->b_at[i++] = (br_atom){p, 0};
            continue;
        }
        for (size_t k = 0; k < p->u.text.len; k++)
            b->b_at[i++] = (br_atom){NULL, p->u.text.s[k]};
    }
    b->b_n = n;
    for (i = 0; i < n; i++) {
        b->b_match[i] = SIZE_MAX;
        if (br_lit(b, i, '{'))
            stack[top++] = i;
        else if (br_lit(b, i, '}') && top > 0)
            b->b_match[stack[--top]] = i;
    }
    return true;
}

/* ---- sequence expressions {X..Y[..N]} ---- */

/* A decimal integer with an optional sign, the whole of s[0..n). */
static bool
seq_int(const char *s, size_t n, long long *v)
{
    char buf[32];
    if (n == 0 || n >= sizeof buf)
        return false;
    size_t i = s[0] == '-' || s[0] == '+' ? 1 : 0;
    if (i == n)
        return false;
    for (size_t k = i; k < n; k++)
        if (s[k] < '0' || s[k] > '9')
            return false;
    memcpy(buf, s, n);
    buf[n] = '\0';
    errno = 0;
    *v = strtoll(buf, NULL, 10);
    return errno == 0;
}

static bool
seq_alpha(const char *s, size_t n)
{
    return n == 1 && ((s[0] >= 'a' && s[0] <= 'z') ||
                      (s[0] >= 'A' && s[0] <= 'Z'));
}

/* The zero-padded width an end asks for (bash: a leading 0, after a
 * `-`, pads every element to the longer end's length). */
static int
seq_width(const char *s, size_t n)
{
    if (n > 1 && (s[0] == '0' || (s[0] == '-' && s[1] == '0')))
        return (int)n;
    return 0;
}

/*
 * Atoms (s, e) between a `{` and its `}` as a sequence: every atom a
 * literal byte, `X..Y` or `X..Y..N`. False (not a sequence) otherwise;
 * on true out holds the elements (or b_failed is set).
 */
static bool
br_sequence(br *b, size_t s, size_t e, br_words *out)
{
    char txt[96];
    size_t n = e - s;
    if (n >= sizeof txt)
        return false;
    for (size_t i = 0; i < n; i++) {
        if (b->b_at[s + i].ba_part != NULL)
            return false;
        txt[i] = b->b_at[s + i].ba_c;
    }
    txt[n] = '\0';
    char *d1 = strstr(txt, "..");
    if (d1 == NULL)
        return false;
    char *x = txt, *y = d1 + 2, *d2 = strstr(y, ".."), *inc = NULL;
    size_t xl = (size_t)(d1 - txt), yl = strlen(y);
    if (d2 != NULL) {
        yl = (size_t)(d2 - y);
        inc = d2 + 2;
    }
    long long step = 1, lo, hi;
    if (inc != NULL && !seq_int(inc, strlen(inc), &step))
        return false;
    bool alpha = seq_alpha(x, xl) && seq_alpha(y, yl);
    if (alpha) {
        lo = (unsigned char)x[0];
        hi = (unsigned char)y[0];
    } else if (!seq_int(x, xl, &lo) || !seq_int(y, yl, &hi)) {
        return false;
    }
    if (step == LLONG_MIN)
        return false;
    step = step < 0 ? -step : step;
    if (step == 0)
        step = 1;
    unsigned long long span = lo <= hi ? (unsigned long long)hi - lo
                                       : (unsigned long long)lo - hi;
    unsigned long long count = span / (unsigned long long)step + 1;
    if (count > SH_BRACE_MAX) {
        br_fail(b, "more than 100000 words");
        return true;
    }
    int width = alpha ? 0 : seq_width(x, xl);
    if (!alpha && seq_width(y, yl) > width)
        width = seq_width(y, yl);
    out->bs_n = 0;
    out->bs_v = br_alloc(b, count, sizeof *out->bs_v);
    if (out->bs_v == NULL)
        return true;
    long long v = lo;
    for (unsigned long long k = 0; k < count; k++) {
        char num[48];
        int len = alpha ? snprintf(num, sizeof num, "%c", (char)v)
                        : snprintf(num, sizeof num, "%0*lld", width, v);
        br_node *nd = br_alloc(b, 1, sizeof *nd);
        char *t = nd != NULL ? box_arena_strndup(b->b_a, num, (size_t)len)
                             : NULL;
        if (t == NULL) {
            br_fail(b, "words too large (more than 64 MiB)");
            return true;
        }
        *nd = (br_node){NULL, 0, 0, t, (size_t)len, NULL};
        out->bs_v[out->bs_n++] = nd;
        if (k + 1 < count)
            v = lo <= hi ? v + step : v - step;
    }
    return true;
}

/* ---- the expansion ---- */

static bool br_expand(br *b, size_t s, size_t e, br_words *out);

/* Whether (s, e) holds a `,` outside nested braces. */
static bool
has_comma(const br *b, size_t s, size_t e)
{
    for (size_t i = s; i < e; i++) {
        if (br_lit(b, i, ','))
            return true;
        if (br_lit(b, i, '{') && b->b_match[i] != SIZE_MAX)
            i = b->b_match[i];
    }
    return false;
}

/* The alternatives of {s..e}: each comma-separated part expanded. */
static bool
br_alternatives(br *b, size_t s, size_t e, br_words *out)
{
    if (++b->b_depth > SH_MAX_DEPTH) {
        br_fail(b, "nested too deep");
        return false;
    }
    out->bs_n = 0;
    out->bs_v = NULL;
    size_t start = s, cap = 0;
    for (size_t i = s; i <= e; i++) {
        if (i < e && br_lit(b, i, '{') && b->b_match[i] != SIZE_MAX) {
            i = b->b_match[i];
            continue;
        }
        if (i < e && !br_lit(b, i, ','))
            continue;
        br_words one;
        if (!br_expand(b, start, i, &one))
            return false;
        if (out->bs_n + one.bs_n > SH_BRACE_MAX) {
            br_fail(b, "more than 100000 words");
            return false;
        }
        if (out->bs_n + one.bs_n > cap) { // doubling: the arena keeps both
            cap = 2 * (out->bs_n + one.bs_n);
            br_word *v = br_alloc(b, cap, sizeof *v);
            if (v == NULL)
                return false;
            if (out->bs_n > 0)
                memcpy(v, out->bs_v, out->bs_n * sizeof *v);
            out->bs_v = v;
        }
        memcpy(out->bs_v + out->bs_n, one.bs_v, one.bs_n * sizeof(br_word));
        out->bs_n += one.bs_n;
        start = i + 1;
    }
    b->b_depth--;
    return true;
}

/* Every word of cur followed by the atoms [ps, pe) and then each of alts
 * (alts NULL: only the atoms). */
static bool
br_product(br *b, br_words *cur, size_t ps, size_t pe, const br_words *alts)
{
    size_t na = alts != NULL ? alts->bs_n : 1;
    if (na != 0 && cur->bs_n > SH_BRACE_MAX / na) {
        br_fail(b, "more than 100000 words");
        return false;
    }
    br_words next = {br_alloc(b, cur->bs_n * na, sizeof(br_word)), 0};
    if (next.bs_v == NULL)
        return false;
    for (size_t i = 0; i < cur->bs_n; i++) {
        br_word w = cur->bs_v[i];
        if (pe > ps) {
            br_node *nd = br_alloc(b, 1, sizeof *nd);
            if (nd == NULL)
                return false;
            *nd = (br_node){w, ps, pe, NULL, 0, NULL};
            w = nd;
        }
        for (size_t k = 0; k < na; k++) {
            br_word a = alts != NULL ? alts->bs_v[k] : NULL;
            br_word made = w;
            if (a != NULL) {
                br_node *nd = br_alloc(b, 1, sizeof *nd);
                if (nd == NULL)
                    return false;
                *nd = (br_node){w, 0, 0, NULL, 0, a};
                made = nd;
            }
            next.bs_v[next.bs_n++] = made;
        }
    }
    *cur = next;
    return true;
}

/* The words atoms [s, e) expand to, left to right. */
static bool
br_expand(br *b, size_t s, size_t e, br_words *out)
{
    out->bs_v = br_alloc(b, 1, sizeof(br_word));
    if (out->bs_v == NULL)
        return false;
    out->bs_v[0] = NULL;
    out->bs_n = 1;
    size_t done = s; // atoms before this are in every word of out
    for (size_t i = s; i < e; i++) {
        size_t j = br_lit(b, i, '{') ? b->b_match[i] : SIZE_MAX;
        if (j == SIZE_MAX || j >= e)
            continue;
        br_words alts;
        bool ok;
        if (has_comma(b, i + 1, j))
            ok = br_alternatives(b, i + 1, j, &alts);
        else if (br_sequence(b, i + 1, j, &alts))
            ok = !b->b_failed;
        else
            continue; // not an expression: `{` stays, look inside
        if (!ok || !br_product(b, out, done, i, &alts))
            return false;
        done = j + 1;
        i = j;
    }
    return br_product(b, out, done, e, NULL);
}

/* ---- back to words ---- */

static sh_wpart *
br_part(br *b, sh_wpart ***tail, const sh_wpart *like)
{
    sh_wpart *p = br_alloc(b, 1, sizeof *p);
    if (p == NULL)
        return NULL;
    *p = *like;
    p->wp_next = NULL;
    **tail = p;
    *tail = &p->wp_next;
    return p;
}

/* The literal text gathered so far as one LIT part. */
static bool
br_flush(br *b, sh_wpart ***tail, char *lit, size_t *nlit)
{
    if (*nlit == 0)
        return true;
    sh_wpart like = {.wp_kind = SH_WP_LIT, .wp_line = b->b_word->w_line};
    sh_wpart *p = br_part(b, tail, &like);
    char *t = p != NULL ? box_arena_strndup(b->b_a, lit, *nlit) : NULL;
    if (t == NULL) {
        br_fail(b, "words too large (more than 64 MiB)");
        return false;
    }
    p->u.text.s = t;
    p->u.text.len = *nlit;
    *nlit = 0;
    return true;
}

/* Bytes of literal text a word holds at most (for its buffer). */
static size_t
br_len(br_word w)
{
    size_t n = 0;
    for (; w != NULL; w = w->bn_prev)
        n += w->bn_txt != NULL ? w->bn_tlen
             : w->bn_sub != NULL ? br_len(w->bn_sub)
                                 : w->bn_e - w->bn_s;
    return n;
}

typedef struct br_out {
    sh_wpart **bo_tail;
    char *bo_lit;
    size_t bo_nlit;
} br_out;

/* Appends w's pieces in order (the chain walked into an array first, so
 * only bn_sub nesting recurses). */
static bool
br_emit(br *b, br_word w, br_out *o)
{
    size_t n = 0;
    for (br_word q = w; q != NULL; q = q->bn_prev)
        n++;
    if (n == 0)
        return true;
    br_word *v = br_alloc(b, n, sizeof *v);
    if (v == NULL)
        return false;
    for (size_t i = n; w != NULL; w = w->bn_prev)
        v[--i] = w;
    for (size_t i = 0; i < n; i++) {
        const br_node *nd = v[i];
        if (nd->bn_sub != NULL) {
            if (!br_emit(b, nd->bn_sub, o))
                return false;
            continue;
        }
        if (nd->bn_txt != NULL) {
            memcpy(o->bo_lit + o->bo_nlit, nd->bn_txt, nd->bn_tlen);
            o->bo_nlit += nd->bn_tlen;
            continue;
        }
        for (size_t k = nd->bn_s; k < nd->bn_e; k++) {
            const br_atom *at = &b->b_at[k];
            if (at->ba_part == NULL) {
                o->bo_lit[o->bo_nlit++] = at->ba_c;
                continue;
            }
            if (!br_flush(b, &o->bo_tail, o->bo_lit, &o->bo_nlit) ||
                br_part(b, &o->bo_tail, at->ba_part) == NULL)
                return false;
        }
    }
    return true;
}

static bool
br_build(br *b, br_word bw, sh_word **out)
{
    char *lit = br_alloc(b, br_len(bw) + 1, 1);
    sh_word *w = br_alloc(b, 1, sizeof *w);
    if (lit == NULL || w == NULL)
        return false;
    *w = *b->b_word;
    w->w_parts = NULL;
    w->w_next = NULL;
    br_out o = {&w->w_parts, lit, 0};
    if (!br_emit(b, bw, &o) ||
        !br_flush(b, &o.bo_tail, o.bo_lit, &o.bo_nlit))
        return false;
    *out = w;
    return true;
}

int
sh_brace_expand(sh_ctx *cx, const sh_word *w, box_arena **ap, sh_word **out)
{
    *ap = NULL;
    *out = NULL;
    if (!has_brace(w))
        return 0;
    br b = {.b_cx = cx, .b_word = w};
    if ((b.b_a = box_arena_new(SH_BRACE_MAX_BYTES)) == NULL) {
        sh_errf(cx, "brace expansion: out of memory");
        return 1;
    }
    br_words ws;
    if (!br_flatten(&b) || !br_expand(&b, 0, b.b_n, &ws))
        goto fail;
    sh_word **tail = out;
    for (size_t i = 0; i < ws.bs_n; i++) {
        if (!br_build(&b, ws.bs_v[i], tail))
            goto fail;
        tail = &(*tail)->w_next;
    }
    *ap = b.b_a;
    return 0;
fail:
    box_arena_free(b.b_a);
    *out = NULL;
    return 1;
}
