/* SPDX-License-Identifier: Apache-2.0 */
/* Random Cedar expressions and policies over a generated request. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cd_gen.h"
#include "cd_gen_int.h"
#include "cd_probes.h"

/*
 * Each writer appends one expression to a buffer and returns the
 * precedence level of what it wrote, so that its caller parenthesizes
 * exactly where Cedar's grammar needs it (and, now and then, where it
 * does not). See cd_gen.c for the request side and the known operands.
 */

static int ex(gen *g, box_buf *o, cd_kind want, int depth);

/* Writes the text t (of level lv) as an operand needing level min. */
static void
operand(gen *g, box_buf *o, const box_buf *t, int lv, int min)
{
    bool paren = lv < min || chance(g, 4);
    if (paren)
        put(g, o, "(");
    putn(g, o, t->b_data, t->b_len);
    if (paren)
        put(g, o, ")");
}

/* An operand of kind want and at least level min. */
static void
sub(gen *g, box_buf *o, cd_kind want, int depth, int min)
{
    box_buf t;
    box_buf_init(&t, CD_TEXT_MAX);
    int lv = ex(g, &t, want, depth);
    operand(g, o, &t, lv, min);
    box_buf_reset(&t);
}

/* A Long literal: negative ones are a unary minus in Cedar's grammar. */
static int
lit_long(gen *g, box_buf *o, int64_t l)
{
    if (l == INT64_MIN) {
        put(g, o, "-9223372036854775808");
        return L_UN;
    }
    putf(g, o, "%" PRId64, l);
    return l < 0 ? L_UN : L_PRI;
}

/* v written as a literal expression (the exact value). */
static int
lit_of(gen *g, box_buf *o, const cd_val *v)
{
    switch (v->k) {
    case CD_BOOL:
        put(g, o, v->b ? "true" : "false");
        return L_PRI;
    case CD_LONG:
        return lit_long(g, o, v->l);
    case CD_STR:
        put_str(g, o, v->s, v->n);
        return L_PRI;
    case CD_ENT:
        ent_lit(g, o, v);
        return L_PRI;
    case CD_SET:
        put(g, o, "[");
        for (size_t i = 0; i < v->nitems; i++) {
            if (i > 0)
                put(g, o, ", ");
            lit_of(g, o, v->items[i]);
        }
        put(g, o, "]");
        return L_PRI;
    case CD_REC:
        put(g, o, "{");
        for (size_t i = 0; i < v->nitems; i++) {
            if (i > 0)
                put(g, o, ", ");
            if (is_ident(v->keys[i]) && chance(g, 70))
                put(g, o, v->keys[i]);
            else
                put_str(g, o, v->keys[i], strlen(v->keys[i]));
            put(g, o, ": ");
            lit_of(g, o, v->items[i]);
        }
        put(g, o, "}");
        return L_PRI;
    default:
        put(g, o, cd_kind_ctor(v->k));
        put(g, o, "(");
        put_str(g, o, v->s, v->n);
        put(g, o, ")");
        return L_PRI;
    }
}

/* A fresh random value of kind k (a literal to write). */
static const cd_val *
fresh(gen *g, cd_kind k)
{
    switch (k) {
    case CD_BOOL:
        return v_bool(g, chance(g, 50));
    case CD_LONG:
        return v_long(g, chance(g, 60) ? (int64_t)below(g, 12) - 2
                                       : pick_long(g));
    case CD_STR:
        return rand_str(g);
    case CD_ENT:
        if (chance(g, 15)) {
            const char *a = pick_action(g);
            return v_ent(g, "Box::Action", a);
        }
        return rand_uid(g);
    case CD_SET:
    case CD_REC:
        return rand_kval(g, k, 2);
    default: {
        const char *t = ext_text(g, k, chance(g, 85));
        return v_strn(g, k, t, strlen(t));
    }
    }
}

/*
 * A known operand of kind k: a path into the request (its value) or a
 * literal. *val is its value (NULL when unknown, e.g. an invalid
 * extension literal). Returns the level.
 */
static int
known(gen *g, box_buf *o, cd_kind k, const cd_val **val)
{
    const cd_path *p = chance(g, 60) ? path_of(g, k) : NULL;
    if (p != NULL) {
        put(g, o, p->p_text);
        *val = p->p_val;
        return strchr(p->p_text, '.') || strchr(p->p_text, '[') ? L_MEM
                                                                : L_PRI;
    }
    if (k == CD_ENT && chance(g, 40)) {
        static const char *const vars[] = {"principal", "resource", "action"};
        const char *var = PICK(g, vars);
        put(g, o, var);
        *val = var[0] == 'p'   ? g->g_c->c_principal
               : var[0] == 'r' ? g->g_c->c_resource
                               : g->g_c->c_action;
        return L_PRI;
    }
    const cd_val *v = fresh(g, k);
    *val = v;
    if (v == NULL) {
        put(g, o, "1");
        return L_PRI;
    }
    return lit_of(g, o, v);
}

/* A leaf: a known operand, or now and then a read of an absent
 * attribute (an error). */
static int
leaf(gen *g, box_buf *o, cd_kind k)
{
    if (chance(g, 3)) {
        const cd_path *p = path_of(g, CD_REC);
        if (p != NULL) {
            put(g, o, p->p_text);
            put_access(g, o, "absent");
            return L_MEM;
        }
    }
    const cd_val *v;
    return known(g, o, k, &v);
}

/* A `like` pattern that often matches s[0..n): runs of s become `*`,
 * a `*` of s becomes `\*`, a character now and then is changed. */
static void
put_pattern(gen *g, box_buf *o, const char *s, size_t n)
{
    put(g, o, "\"");
    if (chance(g, 15))
        put(g, o, "*");
    for (size_t i = 0; i < n;) {
        size_t l = u8len(s + i, n - i);
        if (chance(g, 15)) { // a wildcard for the next few characters
            put(g, o, "*");
            size_t skip = below(g, 3);
            for (size_t k = 0; k < skip && i < n; k++)
                i += u8len(s + i, n - i);
            continue;
        }
        if (chance(g, 4)) { // a different character
            const char *ps;
            size_t pn;
            pick_char(g, &ps, &pn);
            put_char(g, o, ps, pn, chance(g, 70));
        } else {
            put_char(g, o, s + i, l, true);
        }
        i += l;
    }
    if (chance(g, 15))
        put(g, o, "*");
    put(g, o, "\"");
}

static int
ex_like(gen *g, box_buf *o, int depth)
{
    const cd_val *v = NULL;
    box_buf t;
    box_buf_init(&t, CD_TEXT_MAX);
    int lv;
    if (chance(g, 85))
        lv = known(g, &t, CD_STR, &v);
    else
        lv = ex(g, &t, CD_STR, depth - 1);
    operand(g, o, &t, lv, L_ADD);
    box_buf_reset(&t);
    put(g, o, " like ");
    if (v != NULL && v->k == CD_STR) {
        put_pattern(g, o, v->s, v->n);
    } else {
        const cd_val *s = rand_str(g);
        if (s != NULL)
            put_pattern(g, o, s->s, s->n);
    }
    return L_REL;
}

/* x has a / x has a.b / x has "a b": x a record or an entity. */
static int
ex_has(gen *g, box_buf *o, int depth)
{
    const cd_val *v = NULL;
    box_buf t;
    box_buf_init(&t, CD_TEXT_MAX);
    int lv = known(g, &t, chance(g, 70) ? CD_REC : CD_ENT, &v);
    operand(g, o, &t, lv, L_ADD);
    box_buf_reset(&t);
    if (v != NULL && v->k == CD_ENT) {
        const cd_entity *e = find_entity(g->g_c, v);
        v = e != NULL ? e->attrs : NULL;
    }
    put(g, o, " has ");
    const char *k1 = v != NULL && v->k == CD_REC && v->nitems > 0 &&
                             chance(g, 70)
                         ? v->keys[below(g, (uint32_t)v->nitems)]
                         : pick_key(g);
    if (!is_ident(k1) && !(strcmp(k1, "if") == 0 && chance(g, 20))) {
        put_str(g, o, k1, strlen(k1));
        return L_REL;
    }
    put(g, o, k1);
    const cd_val *v1 = rec_get(v, k1);
    for (int i = 0; i < 2 && chance(g, 40); i++) { // has a.b.c
        const char *k2 = v1 != NULL && v1->k == CD_REC && v1->nitems > 0 &&
                                 chance(g, 70)
                             ? v1->keys[below(g, (uint32_t)v1->nitems)]
                             : pick_key(g);
        if (!is_ident(k2))
            break;
        put(g, o, ".");
        put(g, o, k2);
        v1 = rec_get(v1, k2);
    }
    return L_REL;
}

/* An entity literal, usually one of the universe (groups included). */
static void
put_uid(gen *g, box_buf *o)
{
    const cd_val *u = rand_uid(g);
    if (u != NULL)
        ent_lit(g, o, u);
}

static int
ex_in(gen *g, box_buf *o, int depth)
{
    sub(g, o, CD_ENT, depth - 1, L_ADD);
    put(g, o, " in ");
    unsigned r = below(g, 10);
    if (r < 5) {
        put_uid(g, o);
    } else if (r < 8) {
        put(g, o, "[");
        size_t n = below(g, 4);
        for (size_t i = 0; i < n; i++) {
            if (i > 0)
                put(g, o, ", ");
            put_uid(g, o);
        }
        put(g, o, "]");
    } else {
        sub(g, o, chance(g, 50) ? CD_ENT : CD_SET, depth - 1, L_ADD);
    }
    return L_REL;
}

static int
ex_is(gen *g, box_buf *o, int depth)
{
    const cd_val *v = NULL;
    box_buf t;
    box_buf_init(&t, CD_TEXT_MAX);
    int lv = chance(g, 85) ? known(g, &t, CD_ENT, &v)
                           : ex(g, &t, CD_ENT, depth - 1);
    operand(g, o, &t, lv, L_ADD);
    box_buf_reset(&t);
    put(g, o, " is ");
    put(g, o, v != NULL && v->k == CD_ENT && chance(g, 50) ? v->type
                                                          : pick_type(g));
    if (chance(g, 35)) {
        put(g, o, " in ");
        if (chance(g, 70))
            put_uid(g, o);
        else
            sub(g, o, CD_ENT, depth - 1, L_ADD);
    }
    return L_REL;
}

/* a == b, a != b: often a known value and a literal equal to it. */
static int
ex_eq(gen *g, box_buf *o, int depth)
{
    cd_kind k = (cd_kind)below(g, CD_NKINDS);
    const cd_val *v = NULL;
    box_buf t;
    box_buf_init(&t, CD_TEXT_MAX);
    int lv = chance(g, 70) ? known(g, &t, k, &v) : ex(g, &t, k, depth - 1);
    operand(g, o, &t, lv, L_ADD);
    box_buf_reset(&t);
    put(g, o, chance(g, 75) ? " == " : " != ");
    if (v != NULL && chance(g, 50)) {
        box_buf_init(&t, CD_TEXT_MAX);
        lv = lit_of(g, &t, v);
        operand(g, o, &t, lv, L_ADD);
        box_buf_reset(&t);
    } else {
        sub(g, o, chance(g, 90) ? k : (cd_kind)below(g, CD_NKINDS), depth - 1,
            L_ADD);
    }
    return L_REL;
}

static int
ex_order(gen *g, box_buf *o, int depth)
{
    static const char *const ops[] = {" < ", " <= ", " > ", " >= "};
    unsigned r = below(g, 20);
    cd_kind k = r < 12 ? CD_LONG : r < 15 ? CD_DT : r < 18 ? CD_DUR
                : r < 19 ? CD_DEC : CD_STR; // the last two: type errors
    sub(g, o, k, depth - 1, L_ADD);
    put(g, o, PICK(g, ops));
    sub(g, o, k, depth - 1, L_ADD);
    return L_REL;
}

/* S.contains(x), S.containsAll(T), S.containsAny(T), S.isEmpty(). */
static int
ex_setm(gen *g, box_buf *o, int depth)
{
    const cd_val *s = NULL;
    box_buf t;
    box_buf_init(&t, CD_TEXT_MAX);
    int lv = chance(g, 80) ? known(g, &t, CD_SET, &s)
                           : ex(g, &t, CD_SET, depth - 1);
    operand(g, o, &t, lv, L_MEM);
    box_buf_reset(&t);
    bool known_set = s != NULL && s->k == CD_SET;
    cd_kind ek = known_set && s->nitems > 0 ? s->items[0]->k
                                            : (cd_kind)below(g, CD_NKINDS);
    unsigned m = below(g, 4);
    if (m == 3) {
        put(g, o, ".isEmpty()");
        return L_MEM;
    }
    if (m == 0) {
        put(g, o, ".contains(");
        if (known_set && s->nitems > 0 && chance(g, 50))
            lit_of(g, o, s->items[below(g, (uint32_t)s->nitems)]);
        else
            ex(g, o, ek, depth - 1);
        put(g, o, ")");
        return L_MEM;
    }
    put(g, o, m == 1 ? ".containsAll(" : ".containsAny(");
    if (chance(g, 15)) {
        ex(g, o, CD_SET, depth - 1);
    } else { // a set literal of some of S's elements and some others
        put(g, o, "[");
        size_t n = below(g, 4);
        for (size_t i = 0; i < n; i++) {
            if (i > 0)
                put(g, o, ", ");
            if (known_set && s->nitems > 0 && chance(g, 60))
                lit_of(g, o, s->items[below(g, (uint32_t)s->nitems)]);
            else
                ex(g, o, ek, depth - 2);
        }
        put(g, o, "]");
    }
    put(g, o, ")");
    return L_MEM;
}

/* The Bool methods of decimal and ipaddr. */
static int
ex_extm(gen *g, box_buf *o, int depth)
{
    static const char *const dm[] = {"lessThan", "lessThanOrEqual",
                                     "greaterThan", "greaterThanOrEqual"};
    static const char *const im[] = {"isIpv4", "isIpv6", "isLoopback",
                                     "isMulticast"};
    bool dec = chance(g, 40);
    sub(g, o, dec ? CD_DEC : CD_IP, depth - 1, L_MEM);
    if (dec) {
        putf(g, o, ".%s(", PICK(g, dm));
        ex(g, o, CD_DEC, depth - 1);
        put(g, o, ")");
    } else if (chance(g, 40)) {
        put(g, o, ".isInRange(");
        ex(g, o, CD_IP, depth - 1);
        put(g, o, ")");
    } else {
        putf(g, o, ".%s()", PICK(g, im));
    }
    return L_MEM;
}

/* e.hasTag(k), or e.getTag(k) compared with a value. */
static int
ex_tag(gen *g, box_buf *o, int depth)
{
    const cd_val *v = NULL;
    box_buf t;
    box_buf_init(&t, CD_TEXT_MAX);
    int lv = known(g, &t, CD_ENT, &v);
    const cd_entity *e = v != NULL && v->k == CD_ENT
                             ? find_entity(g->g_c, v)
                             : NULL;
    const cd_val *tags = e != NULL ? e->tags : NULL;
    const char *k = tags != NULL && tags->nitems > 0 && chance(g, 70)
                        ? tags->keys[below(g, (uint32_t)tags->nitems)]
                        : pick_key(g);
    bool get = chance(g, 40);
    operand(g, o, &t, lv, L_MEM);
    box_buf_reset(&t);
    put(g, o, get ? ".getTag(" : ".hasTag(");
    if (chance(g, 90))
        put_str(g, o, k, strlen(k));
    else
        ex(g, o, CD_STR, depth - 1);
    put(g, o, ")");
    if (!get)
        return L_MEM;
    put(g, o, " == ");
    const cd_val *tv = rec_get(tags, k);
    if (tv != NULL && chance(g, 60)) {
        box_buf_init(&t, CD_TEXT_MAX);
        lv = lit_of(g, &t, tv);
        operand(g, o, &t, lv, L_ADD);
        box_buf_reset(&t);
    } else {
        sub(g, o, (cd_kind)below(g, CD_NKINDS), depth - 1, L_ADD);
    }
    return L_REL;
}

static int
ex_unary(gen *g, box_buf *o, const char *op, cd_kind k, int depth)
{
    put(g, o, op);
    // Cedar takes at most four unary operators in a row.
    bool chain = g->g_unary < 2 && chance(g, 30);
    g->g_unary = chain ? g->g_unary + 1 : 0;
    sub(g, o, k, depth - 1, chain ? L_UN : L_MEM);
    g->g_unary = 0;
    return L_UN;
}

static int
ex_bool(gen *g, box_buf *o, int depth)
{
    switch (below(g, 15)) {
    case 0:
        return ex_unary(g, o, "!", CD_BOOL, depth);
    case 1:
    case 2: {
        bool and = chance(g, 55);
        int min = and ? L_REL : L_AND;
        size_t n = 2 + below(g, 2);
        for (size_t i = 0; i < n; i++) {
            if (i > 0)
                put(g, o, and ? " && " : " || ");
            if (chance(g, 3))
                put(g, o, "// a note\n   ");
            sub(g, o, CD_BOOL, depth - 1, min);
        }
        return and ? L_AND : L_OR;
    }
    case 3:
    case 4:
        return ex_eq(g, o, depth);
    case 5:
        return ex_order(g, o, depth);
    case 6:
        return ex_in(g, o, depth);
    case 7:
        return ex_has(g, o, depth);
    case 8:
        return ex_like(g, o, depth);
    case 9:
        return ex_is(g, o, depth);
    case 10:
    case 11:
        return ex_setm(g, o, depth);
    case 12:
        return ex_extm(g, o, depth);
    case 13:
        return ex_tag(g, o, depth);
    default: { // a guarded read: x has a && x.a …
        const cd_path *p = path_of(g, CD_REC);
        if (p == NULL)
            return ex_has(g, o, depth);
        const char *k = chance(g, 60) ? pick_key(g) : "absent";
        if (!is_ident(k))
            k = "a";
        putf(g, o, "%s has %s && %s.%s", p->p_text, k, p->p_text, k);
        put(g, o, chance(g, 50) ? " == " : " != ");
        sub(g, o, (cd_kind)below(g, CD_NKINDS), depth - 1, L_ADD);
        return L_AND;
    }
    }
}

static int
ex_long(gen *g, box_buf *o, int depth)
{
    static const char *const dm[] = {"toMilliseconds", "toSeconds",
                                     "toMinutes", "toHours", "toDays"};
    switch (below(g, 6)) {
    case 0:
    case 1:
    case 2: { // + and -, left-associative; * binds tighter
        unsigned r = below(g, 3);
        const char *op = r == 0 ? " + " : r == 1 ? " - " : " * ";
        int lvl = r == 2 ? L_MUL : L_ADD;
        sub(g, o, CD_LONG, depth - 1, lvl);
        put(g, o, op);
        sub(g, o, CD_LONG, depth - 1, lvl + 1);
        return lvl;
    }
    case 3:
        return ex_unary(g, o, "-", CD_LONG, depth);
    default:
        sub(g, o, CD_DUR, depth - 1, L_MEM);
        putf(g, o, ".%s()", PICK(g, dm));
        return L_MEM;
    }
}

static int
ex_set(gen *g, box_buf *o, int depth)
{
    cd_kind ek = (cd_kind)below(g, CD_NKINDS);
    size_t n = below(g, 4);
    put(g, o, "[");
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            put(g, o, ", ");
        ex(g, o, chance(g, 85) ? ek : (cd_kind)below(g, CD_NKINDS), depth - 1);
    }
    put(g, o, "]");
    return L_PRI;
}

static int
ex_rec(gen *g, box_buf *o, int depth)
{
    const char *used[4];
    size_t n = below(g, 4), nu = 0;
    put(g, o, "{");
    for (size_t i = 0; i < n; i++) {
        const char *k = pick_key(g);
        bool dup = false;
        for (size_t j = 0; j < nu; j++)
            dup = dup || strcmp(used[j], k) == 0;
        if (dup)
            continue;
        if (nu > 0)
            put(g, o, ", ");
        used[nu++] = k;
        if (is_ident(k) && chance(g, 70))
            put(g, o, k);
        else
            put_str(g, o, k, strlen(k));
        put(g, o, ": ");
        ex(g, o, (cd_kind)below(g, CD_NKINDS), depth - 1);
    }
    put(g, o, "}");
    return L_PRI;
}

/* A datetime or a duration computed by a method. */
static int
ex_time(gen *g, box_buf *o, cd_kind want, int depth)
{
    if (want == CD_DT) {
        sub(g, o, CD_DT, depth - 1, L_MEM);
        if (chance(g, 60)) {
            put(g, o, ".offset(");
            ex(g, o, CD_DUR, depth - 1);
            put(g, o, ")");
        } else {
            put(g, o, ".toDate()");
        }
        return L_MEM;
    }
    sub(g, o, CD_DT, depth - 1, L_MEM);
    if (chance(g, 60)) {
        put(g, o, ".durationSince(");
        ex(g, o, CD_DT, depth - 1);
        put(g, o, ")");
    } else {
        put(g, o, ".toTime()");
    }
    return L_MEM;
}

/* if c then a else b */
static int
ex_if(gen *g, box_buf *o, cd_kind want, int depth)
{
    put(g, o, "if ");
    ex(g, o, CD_BOOL, depth - 1);
    put(g, o, " then ");
    ex(g, o, want, depth - 1);
    put(g, o, " else ");
    ex(g, o, want, depth - 1);
    return L_IF;
}

/* {k: x, …}.k or {…}["k"]: an access into a computed record. */
static int
ex_pick(gen *g, box_buf *o, cd_kind want, int depth)
{
    const char *k = pick_key(g), *other = pick_key(g);
    put(g, o, "{");
    put_str(g, o, k, strlen(k));
    put(g, o, ": ");
    ex(g, o, want, depth - 1);
    if (strcmp(k, other) != 0) {
        put(g, o, ", ");
        put_str(g, o, other, strlen(other));
        put(g, o, ": ");
        ex(g, o, (cd_kind)below(g, CD_NKINDS), depth - 1);
    }
    put(g, o, "}");
    put_access(g, o, chance(g, 95) ? k : "absent");
    return L_MEM;
}

static int
ex(gen *g, box_buf *o, cd_kind want, int depth)
{
    if (g->g_err != BOX_OK)
        return L_PRI;
    if (chance(g, 3)) // a deliberate type error, most of the time
        want = (cd_kind)below(g, CD_NKINDS);
    if (depth <= 0 || chance(g, 25))
        return leaf(g, o, want);
    if (chance(g, 5))
        return ex_if(g, o, want, depth);
    if (chance(g, 3))
        return ex_pick(g, o, want, depth);
    switch (want) {
    case CD_BOOL:
        return ex_bool(g, o, depth);
    case CD_LONG:
        return ex_long(g, o, depth);
    case CD_SET:
        return ex_set(g, o, depth);
    case CD_REC:
        return ex_rec(g, o, depth);
    case CD_DT:
    case CD_DUR:
        return ex_time(g, o, want, depth);
    default:
        return leaf(g, o, want);
    }
}

/* ---- policies ---- */

/* principal / resource scope: any, ==, in, is, is … in. */
static void
scope_pr(gen *g, box_buf *o, const char *var, const cd_val *actual)
{
    put(g, o, var);
    unsigned r = below(g, 20);
    if (r < 6)
        return;
    const cd_val *e = chance(g, 75) ? actual : rand_uid(g);
    if (e == NULL)
        return;
    if (r < 11) {
        put(g, o, " == ");
        ent_lit(g, o, e);
    } else if (r < 15) {
        put(g, o, " in ");
        ent_lit(g, o, chance(g, 50) ? e : rand_uid(g));
    } else {
        put(g, o, " is ");
        put(g, o, chance(g, 75) ? actual->type : pick_type(g));
        if (r >= 18) {
            put(g, o, " in ");
            ent_lit(g, o, rand_uid(g));
        }
    }
}

/* An action for a scope; never fs:other alone (Box refuses a rule that
 * names only that reserved action, dogwood-spec §6.2 step 6). */
static const char *
scope_action(gen *g, const cd_val *actual)
{
    if (chance(g, 75) && strcmp(actual->s, "fs:other") != 0)
        return actual->s;
    const char *a;
    do
        a = pick_action(g);
    while (strcmp(a, "fs:other") == 0);
    return a;
}

static void
scope_act(gen *g, box_buf *o, const cd_val *actual)
{
    put(g, o, "action");
    unsigned r = below(g, 10);
    if (r < 4)
        return;
    if (r < 7) {
        put(g, o, r < 6 ? " == " : " in ");
        put(g, o, chance(g, 95) ? "Box::Action::" : "Action::");
        const char *a = scope_action(g, actual);
        put_str(g, o, a, strlen(a));
        return;
    }
    put(g, o, " in [");
    size_t n = 1 + below(g, 3);
    for (size_t i = 0; i < n; i++) {
        if (i > 0)
            put(g, o, ", ");
        put(g, o, chance(g, 95) ? "Box::Action::" : "Action::");
        const char *a = scope_action(g, actual);
        put_str(g, o, a, strlen(a));
    }
    put(g, o, "]");
}

void
cd_gen_policy(gen *g, box_buf *o, unsigned i)
{
    const cd_case *c = g->g_c;
    if (chance(g, 10))
        putf(g, o, "// policy %u\n", i);
    if (chance(g, 30))
        putf(g, o, "@id(\"rule-%u\")\n", i);
    if (chance(g, 15))
        put(g, o, "@description(\"a \\\"quoted\\\" reason\")\n");
    if (chance(g, 5))
        put(g, o, "@reviewed\n");
    if (chance(g, 2))
        put(g, o, cd_probe_annots[below(g, (uint32_t)cd_nprobe_annots)]);
    put(g, o, chance(g, 65) ? "permit (\n  " : "forbid (\n  ");
    scope_pr(g, o, "principal", c->c_principal);
    put(g, o, ",\n  ");
    scope_act(g, o, c->c_action);
    put(g, o, ",\n  ");
    scope_pr(g, o, "resource", c->c_resource);
    put(g, o, "\n)");
    unsigned nconds = below(g, 4);
    if (chance(g, 6)) {
        put(g, o, chance(g, 75) ? "\nwhen { " : "\nunless { ");
        put(g, o, cd_probes[below(g, (uint32_t)cd_nprobes)]);
        put(g, o, " }");
    }
    for (unsigned k = 0; k < nconds; k++) {
        put(g, o, chance(g, 75) ? "\nwhen { " : "\nunless { ");
        ex(g, o, CD_BOOL, 1 + (int)below(g, CD_MAX_DEPTH + 2 * chance(g, 10)));
        put(g, o, " }");
    }
    put(g, o, ";\n");
}

