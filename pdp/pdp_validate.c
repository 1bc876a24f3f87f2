/* SPDX-License-Identifier: Apache-2.0 */
/* Strict validation of a policy set against the action schema (§6.1). */
#include "pdp_validate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_arena.h"
#include "box_escape.h"
#include "pdp_int.h"
#include "pdp_validate_int.h"

/*
 * A small mirror of Cedar's strict type checker over the Box subset.
 * Per rule: (1) every entity literal is checked against the schema
 * (unknown action, unknown entity type, undeclared enum id); a rule with
 * such an error is not checked further, as in Cedar. (2) The request
 * environments the scope admits are enumerated (action × principal type
 * × resource type); none ⇒ "unable to find an applicable action". (3)
 * Each environment type-checks the conditions, `when`/`unless` folded
 * with `&&` in source order. `has` facts ("capabilities") flow from the
 * left of `&&` and from an `if` guard; a `has` on a closed record that
 * lacks the attribute is constant false, and `false && …` skips the
 * right side. A rule whose every environment is false gets the
 * impossible-policy warning. Types are pdp_type values built in the
 * result's arena; an expression that already failed has type Never and
 * raises nothing further.
 */

#define PDP_VALIDATE_MEMORY (64u << 20)

struct pdp_validate_result {
    box_arena *vr_arena;
    pdp_finding *vr_items;
    size_t vr_n, vr_cap, vr_errors;
};

const pdp_type pv_ty_bool = {PDP_TY_BOOL, NULL, NULL, 0, {"Bool", 4}};
const pdp_type pv_ty_true = {PDP_TY_TRUE, NULL, NULL, 0, {"", 0}};
const pdp_type pv_ty_false = {PDP_TY_FALSE, NULL, NULL, 0, {"", 0}};
const pdp_type pv_ty_never = {PDP_TY_NEVER, NULL, NULL, 0, {"", 0}};
const pdp_type pv_ty_long = {PDP_TY_LONG, NULL, NULL, 0, {"Long", 4}};
const pdp_type pv_ty_string = {PDP_TY_STRING, NULL, NULL, 0, {"String", 6}};
static const pdp_type ty_empty_rec = {PDP_TY_RECORD, NULL, NULL, 0, {"", 0}};


/* ---- findings ---- */

/* Appends one finding, also located as "file:line:col: msg". */
static box_err
push_finding(pdp_validate_result *r, pdp_finding_kind kind,
             const pdp_rule *rule, pdp_pos pos, const char *file,
             const char *msg)
{
    if (r->vr_n == r->vr_cap) {
        size_t nc = r->vr_cap ? r->vr_cap * 2 : 8;
        pdp_finding *f = box_realloc(r->vr_items, nc * sizeof(*f));
        if (f == NULL)
            return BOX_ENOMEM;
        r->vr_items = f;
        r->vr_cap = nc;
    }
    char loc[64];
    snprintf(loc, sizeof(loc), ":%u:%u: ", pos.line, pos.col);
    size_t fl = strlen(file), ll = strlen(loc), ml = strlen(msg);
    char *m = box_arena_strndup(r->vr_arena, msg, ml);
    char *located = box_arena_alloc(r->vr_arena, fl + ll + ml + 1);
    if (m == NULL || located == NULL)
        return BOX_ENOMEM;
    memcpy(located, file, fl);
    memcpy(located + fl, loc, ll);
    memcpy(located + fl + ll, msg, ml + 1);
    pdp_finding *f = &r->vr_items[r->vr_n++];
    f->fd_kind = kind;
    f->fd_rule = rule;
    f->fd_pos = pos;
    f->fd_msg = m;
    f->fd_located = located;
    if (kind == PDP_FINDING_ERROR)
        r->vr_errors++;
    return BOX_OK;
}

static box_err
add_finding(vctx *v, pdp_finding_kind kind, pdp_pos pos, const char *msg)
{
    pdp_validate_result *r = v->v_res;
    /* One text once per rule (environments repeat the same finding). */
    for (size_t i = v->v_rule_first; i < r->vr_n; i++) {
        if (r->vr_items[i].fd_kind == kind &&
            strcmp(r->vr_items[i].fd_msg, msg) == 0)
            return BOX_OK;
    }
    box_err rv = push_finding(r, kind, v->v_rule, pos, v->v_file, msg);
    if (rv == BOX_OK && kind == PDP_FINDING_ERROR)
        v->v_rule_errors = true;
    return rv;
}

box_err
pdp_validate_result_add(pdp_validate_result *r, const pdp_rule *rule,
                        pdp_pos pos, const char *file, const char *msg)
{
    return push_finding(r, PDP_FINDING_ERROR, rule, pos,
                        file != NULL ? file : "<policy>", msg);
}

/* Records "for policy `policy_N`, <fmt>" as an error at pos. */
void __attribute__((format(printf, 3, 4)))
pv_verr(vctx *v, pdp_pos pos, const char *fmt, ...)
{
    char msg[PDP_VALIDATE_MSG_MAX];
    int n = snprintf(msg, sizeof(msg), "for policy `%s`, ", v->v_rule->r_pid.s);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg + n, sizeof(msg) - (size_t)n, fmt, ap);
    va_end(ap);
    box_err rv = add_finding(v, PDP_FINDING_ERROR, pos, msg);
    if (rv != BOX_OK && v->v_rv == BOX_OK)
        v->v_rv = rv;
}

/* A message part that could not be formatted: too long is shown cut
 * ("…"), but a lack of memory fails the validation, so that no finding
 * goes out with a part silently missing. */
static void
note_format(vctx *v, box_err rv)
{
    if (rv == BOX_ENOMEM && v->v_rv == BOX_OK)
        v->v_rv = rv;
}

/* A type's display in a fixed buffer (cut when absurdly long). */
const char *
pv_tyname(vctx *v, const pdp_type *t, char *buf, size_t n)
{
    box_buf b;
    box_buf_init(&b, n - 1);
    box_err rv = pdp_schema_type_format(t, &b);
    note_format(v, rv);
    if (rv != BOX_OK || b.b_data == NULL)
        snprintf(buf, n, "%s", "…");
    else
        snprintf(buf, n, "%s", b.b_data);
    box_buf_reset(&b);
    return buf;
}

void
pv_unexpected(vctx *v, pdp_pos pos, const char *want, const pdp_type *saw)
{
    char b[512];
    pv_verr(v, pos, "unexpected type: expected %s but saw %s", want,
         pv_tyname(v, saw, b, sizeof(b)));
}

/* Cedar's order of types in a BTreeSet (derived Ord on its Type enum). */
static int
type_rank(const pdp_type *t)
{
    switch (t->ty_kind) {
    case PDP_TY_NEVER:
        return 0;
    case PDP_TY_TRUE:
        return 1;
    case PDP_TY_FALSE:
        return 2;
    case PDP_TY_BOOL:
        return 3;
    case PDP_TY_LONG:
        return 4;
    case PDP_TY_STRING:
        return 5;
    case PDP_TY_SET:
        return 6;
    case PDP_TY_RECORD:
        return 7;
    case PDP_TY_ENTITY:
        return 8;
    case PDP_TY_EXT:
        return 9;
    }
    return 10;
}

static int
name_cmp(pdp_str a, pdp_str b)
{
    size_t n = a.len < b.len ? a.len : b.len;
    int c = n > 0 ? memcmp(a.s, b.s, n) : 0;
    return c != 0 ? c : (a.len > b.len) - (a.len < b.len);
}

void
pv_incompatible(vctx *v, pdp_pos pos, const pdp_type *a, const pdp_type *b,
             const char *where)
{
    char ba[512], bb[512];
    /* Cedar lists the two in its type order: by kind, then by name. */
    int ra = type_rank(a), rb = type_rank(b);
    if (rb < ra || (rb == ra && name_cmp(b->ty_name, a->ty_name) < 0)) {
        const pdp_type *t = a;
        a = b;
        b = t;
    }
    pv_verr(v, pos,
         "the types %s and %s are not compatible: %s must have "
         "compatible types",
         pv_tyname(v, a, ba, sizeof(ba)), pv_tyname(v, b, bb, sizeof(bb)), where);
}

/* ---- names ---- */

static bool
is_ident(const char *s, size_t n)
{
    if (n == 0 || !((s[0] >= 'a' && s[0] <= 'z') ||
                    (s[0] >= 'A' && s[0] <= 'Z') || s[0] == '_'))
        return false;
    for (size_t i = 1; i < n; i++) {
        char c = s[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              (c >= '0' && c <= '9') || c == '_'))
            return false;
    }
    return true;
}

/* `Type::"id"` with the id escaped as Cedar displays an entity uid. */
static box_err
put_uid(box_buf *b, const char *type, size_t tlen, const char *id, size_t idlen)
{
    box_err rv;
    if ((rv = box_buf_append(b, type, tlen)) != BOX_OK ||
        (rv = box_buf_puts(b, "::\"")) != BOX_OK ||
        (rv = box_escape_debug_str(b, id, idlen)) != BOX_OK)
        return rv;
    return box_buf_puts(b, "\"");
}

static const char *
uidname(vctx *v, const pdp_value *uid, char *buf, size_t n)
{
    box_buf b;
    box_buf_init(&b, n - 1);
    box_err rv = put_uid(&b, uid->u.ent.type, uid->u.ent.tlen, uid->u.ent.id,
                         uid->u.ent.idlen);
    note_format(v, rv);
    if (rv != BOX_OK || b.b_data == NULL)
        snprintf(buf, n, "%s", "…");
    else
        snprintf(buf, n, "%s", b.b_data);
    box_buf_reset(&b);
    return buf;
}

/* Levenshtein distance, capped (for did-you-mean). */
static size_t
edit_distance(const char *a, size_t na, const char *b, size_t nb)
{
    if (na > 128 || nb > 128)
        return (size_t)-1;
    size_t row[129];
    for (size_t j = 0; j <= nb; j++)
        row[j] = j;
    for (size_t i = 1; i <= na; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= nb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] == b[j - 1] ? 0 : 1);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[nb];
}

static bool
close_enough(size_t d, size_t len)
{
    return d <= 2 || d * 3 <= len;
}

static bool
is_action_typename(const pdp_schema *s, const char *t, size_t n)
{
    if (pdp_schema_is_action_type(s, t, n))
        return true;
    return (n == 6 && memcmp(t, "Action", 6) == 0) ||
           (n > 8 && memcmp(t + n - 8, "::Action", 8) == 0);
}

/* ---- pass 1: entity literals ---- */

/* The schema's entity type named type[0..tlen), or NULL after an
 * "unrecognized entity type" error (an action type is known, no entry). */
static const pdp_schema_entity *
check_type(vctx *v, pdp_pos pos, const char *type, size_t tlen)
{
    const pdp_schema *s = v->v_schema;
    const pdp_schema_entity *en = pdp_schema_entity_find(s, type, tlen);
    if (en != NULL || is_action_typename(s, type, tlen))
        return en;
    const pdp_schema_entity *best = NULL;
    size_t bd = (size_t)-1;
    for (size_t i = 0; i < pdp_schema_entity_count(s); i++) {
        const pdp_schema_entity *e = pdp_schema_entity_at(s, i);
        size_t d = edit_distance(type, tlen, e->en_name.s, e->en_name.len);
        if (d < bd) {
            bd = d;
            best = e;
        }
    }
    if (best != NULL && close_enough(bd, tlen))
        pv_verr(v, pos, "unrecognized entity type `%.*s` (did you mean `%s`?)",
                (int)tlen, type, best->en_name.s);
    else
        pv_verr(v, pos, "unrecognized entity type `%.*s`", (int)tlen, type);
    return NULL;
}

static void
check_uid(vctx *v, pdp_pos pos, const pdp_value *uid)
{
    const pdp_schema *s = v->v_schema;
    char b[512];
    if (is_action_typename(s, uid->u.ent.type, uid->u.ent.tlen)) {
        if (pdp_schema_action_find(s, uid) != NULL)
            return;
        const pdp_schema_action *best = NULL;
        size_t bd = (size_t)-1;
        for (size_t i = 0; i < pdp_schema_action_count(s); i++) {
            const pdp_schema_action *a = pdp_schema_action_at(s, i);
            size_t d = edit_distance(uid->u.ent.id, uid->u.ent.idlen,
                                     a->ac_id.s, a->ac_id.len);
            if (d < bd) {
                bd = d;
                best = a;
            }
        }
        if (best != NULL && close_enough(bd, uid->u.ent.idlen)) {
            char bb[512];
            pv_verr(v, pos, "unrecognized action `%s` (did you mean `%s`?)",
                 uidname(v, uid, b, sizeof(b)),
                 uidname(v, best->ac_uid, bb, sizeof(bb)));
        } else {
            pv_verr(v, pos, "unrecognized action `%s`",
                 uidname(v, uid, b, sizeof(b)));
        }
        return;
    }
    const pdp_schema_entity *en =
        check_type(v, pos, uid->u.ent.type, uid->u.ent.tlen);
    if (en == NULL || !en->en_is_enum)
        return;
    for (uint32_t i = 0; i < en->en_nenum; i++) {
        if (en->en_enum[i].len == uid->u.ent.idlen &&
            memcmp(en->en_enum[i].s, uid->u.ent.id, uid->u.ent.idlen) == 0)
            return;
    }
    /* Cedar: "for policy `p`: entity `T::"x"` is of an enumerated …". */
    box_buf id;
    box_buf_init(&id, 1024);
    box_err rv = box_escape_debug_str(&id, uid->u.ent.id, uid->u.ent.idlen);
    note_format(v, rv);
    char msg[PDP_VALIDATE_MSG_MAX];
    snprintf(msg, sizeof(msg),
             "for policy `%s`: entity `%s` is of an "
             "enumerated entity type, but `\"%s\"` is not declared as a valid "
             "eid",
             v->v_rule->r_pid.s, uidname(v, uid, b, sizeof(b)),
             rv == BOX_OK && id.b_data ? id.b_data : "");
    box_buf_reset(&id);
    rv = add_finding(v, PDP_FINDING_ERROR, pos, msg);
    if (rv != BOX_OK && v->v_rv == BOX_OK)
        v->v_rv = rv;
}

static void
check_literals(vctx *v, const pdp_expr *e)
{
    switch (e->x_kind) {
    case PDP_X_LIT:
        if (e->x_const->v_kind == PDP_VAL_ENTITY)
            check_uid(v, e->x_pos, e->x_const);
        return;
    case PDP_X_VAR:
        return;
    case PDP_X_NOT:
    case PDP_X_NEG:
        check_literals(v, e->u.un.arg);
        return;
    case PDP_X_AND:
    case PDP_X_OR:
    case PDP_X_SET:
        for (uint32_t i = 0; i < e->u.list.n; i++)
            check_literals(v, e->u.list.items[i]);
        return;
    case PDP_X_HAS:
        check_literals(v, e->u.has.obj);
        return;
    case PDP_X_LIKE:
        check_literals(v, e->u.like.obj);
        return;
    case PDP_X_ATTR:
        check_literals(v, e->u.attr.obj);
        return;
    case PDP_X_IF:
        check_literals(v, e->u.cond.c);
        check_literals(v, e->u.cond.t);
        check_literals(v, e->u.cond.e);
        return;
    case PDP_X_RECORD:
        for (uint32_t i = 0; i < e->u.rec.n; i++)
            check_literals(v, e->u.rec.vals[i]);
        return;
    case PDP_X_METHOD:
    case PDP_X_CALL:
        if (e->u.call.recv != NULL)
            check_literals(v, e->u.call.recv);
        for (uint32_t i = 0; i < e->u.call.n; i++)
            check_literals(v, e->u.call.args[i]);
        return;
    case PDP_X_IS:
        check_literals(v, e->u.is.obj);
        (void)check_type(v, e->x_oppos, e->u.is.type.s, e->u.is.type.len);
        if (e->u.is.in != NULL)
            check_literals(v, e->u.is.in);
        return;
    case PDP_X_TEMPORAL:
    case PDP_X_COUNT:
        return;
    default:
        check_literals(v, e->u.bin.l);
        check_literals(v, e->u.bin.r);
        return;
    }
}

static void
check_scope_literals(vctx *v, const pdp_scope *sc)
{
    if (sc->sc_op == PDP_SCOPE_ANY)
        return;
    if (sc->sc_op == PDP_SCOPE_IS || sc->sc_op == PDP_SCOPE_IS_IN)
        (void)check_type(v, sc->sc_pos, sc->sc_type.s, sc->sc_type.len);
    for (uint32_t i = 0; i < sc->sc_n; i++)
        check_uid(v, sc->sc_pos, sc->sc_ents[i]);
}

/* ---- types ---- */

bool
pv_is_boolish(const pdp_type *t)
{
    return t->ty_kind == PDP_TY_BOOL || t->ty_kind == PDP_TY_TRUE ||
           t->ty_kind == PDP_TY_FALSE;
}

static bool
str_eq(pdp_str a, pdp_str b)
{
    return a.len == b.len && memcmp(a.s, b.s, a.len) == 0;
}

/* Strict compatibility (Cedar's least upper bound in strict mode). */
bool
pv_compatible(const pdp_type *a, const pdp_type *b)
{
    if (a->ty_kind == PDP_TY_NEVER || b->ty_kind == PDP_TY_NEVER)
        return true;
    if (pv_is_boolish(a) && pv_is_boolish(b))
        return true;
    if (a->ty_kind != b->ty_kind)
        return false;
    switch (a->ty_kind) {
    case PDP_TY_SET:
        return a->ty_elem == NULL || b->ty_elem == NULL ||
               pv_compatible(a->ty_elem, b->ty_elem);
    case PDP_TY_RECORD:
        if (a->ty_nattrs != b->ty_nattrs)
            return false;
        for (uint32_t i = 0; i < a->ty_nattrs; i++) {
            const pdp_attr *x = &a->ty_attrs[i], *y = &b->ty_attrs[i];
            if (!str_eq(x->at_name, y->at_name) ||
                x->at_required != y->at_required ||
                !pv_compatible(x->at_type, y->at_type))
                return false;
        }
        return true;
    case PDP_TY_ENTITY:
    case PDP_TY_EXT:
        return str_eq(a->ty_name, b->ty_name);
    default:
        return true;
    }
}

/* The join of two compatible types (Bool constants widen to Bool). */
static const pdp_type *
lub(const pdp_type *a, const pdp_type *b)
{
    if (a->ty_kind == PDP_TY_NEVER)
        return b;
    if (b->ty_kind == PDP_TY_NEVER)
        return a;
    if (pv_is_boolish(a) && pv_is_boolish(b))
        return a->ty_kind == b->ty_kind ? a : &pv_ty_bool;
    if (a->ty_kind == PDP_TY_SET && a->ty_elem == NULL)
        return b;
    return a;
}

static const pdp_type *
mk_entity(vctx *v, const char *name, size_t len)
{
    pdp_type *t = box_arena_zalloc(v->v_a, sizeof(*t));
    if (t == NULL) {
        v->v_rv = BOX_ENOMEM;
        return &pv_ty_never;
    }
    t->ty_kind = PDP_TY_ENTITY;
    t->ty_name.s = name;
    t->ty_name.len = len;
    return t;
}

/* ---- capabilities ---- */

/* The access key of e when it is a variable followed only by attribute
 * reads ("\x01" + var, then "\x02" + name per step); {NULL, 0} else. */
box_err
pv_access_key(const pdp_expr *e, box_buf *b)
{
    if (e->x_kind == PDP_X_VAR)
        return box_buf_printf(b, "\x01%d", (int)e->u.var);
    if (e->x_kind != PDP_X_ATTR)
        return BOX_EINVAL;
    box_err rv = pv_access_key(e->u.attr.obj, b);
    if (rv != BOX_OK)
        return rv;
    if ((rv = box_buf_putc(b, '\x02')) != BOX_OK)
        return rv;
    return box_buf_append(b, e->u.attr.name.s, e->u.attr.name.len);
}

/* Key of `obj has path[0..n)` (n steps) into out (arena); false when obj
 * is not trackable. */
static bool
has_key(vctx *v, const pdp_expr *obj, const pdp_str *path, uint32_t n,
        pdp_str *out)
{
    box_buf b;
    box_buf_init(&b, 1u << 16);
    box_err rv = pv_access_key(obj, &b);
    for (uint32_t i = 0; i < n && rv == BOX_OK; i++) {
        if ((rv = box_buf_putc(&b, '\x02')) == BOX_OK)
            rv = box_buf_append(&b, path[i].s, path[i].len);
    }
    bool ok = false;
    if (rv == BOX_OK) {
        char *s = box_arena_strndup(v->v_a, b.b_data, b.b_len);
        if (s != NULL) {
            out->s = s;
            out->len = b.b_len;
            ok = true;
        } else {
            v->v_rv = BOX_ENOMEM;
        }
    }
    box_buf_reset(&b);
    return ok;
}

bool
pv_cap_has(const capn *c, pdp_str key)
{
    for (; c != NULL; c = c->cp_next) {
        if (str_eq(c->cp_key, key))
            return true;
    }
    return false;
}

const capn *
pv_cap_add(vctx *v, const capn *c, pdp_str key)
{
    if (pv_cap_has(c, key))
        return c;
    capn *n = box_arena_alloc(v->v_a, sizeof(*n));
    if (n == NULL) {
        v->v_rv = BOX_ENOMEM;
        return c;
    }
    n->cp_key = key;
    n->cp_next = c;
    return n;
}

static const capn *
cap_intersect(vctx *v, const capn *a, const capn *b)
{
    const capn *out = NULL;
    for (; a != NULL; a = a->cp_next) {
        if (pv_cap_has(b, a->cp_key))
            out = pv_cap_add(v, out, a->cp_key);
    }
    return out;
}

/* ---- attribute access messages ---- */

static void
remember(vctx *v, const pdp_expr *e, const pdp_type *t)
{
    if (v->v_nseen == v->v_seencap) {
        size_t nc = v->v_seencap ? v->v_seencap * 2 : 32;
        seen_type *s = box_arena_alloc(v->v_a, nc * sizeof(*s));
        if (s == NULL) {
            v->v_rv = BOX_ENOMEM;
            return;
        }
        if (v->v_nseen)
            memcpy(s, v->v_seen, v->v_nseen * sizeof(*s));
        v->v_seen = s;
        v->v_seencap = nc;
    }
    v->v_seen[v->v_nseen].st_expr = e;
    v->v_seen[v->v_nseen].st_type = t;
    v->v_nseen++;
}

static const pdp_type *
seen(const vctx *v, const pdp_expr *e)
{
    for (size_t i = v->v_nseen; i > 0; i--) {
        if (v->v_seen[i - 1].st_expr == e)
            return v->v_seen[i - 1].st_type;
    }
    return NULL;
}

static box_err
put_attr_name(box_buf *b, pdp_str name, bool first)
{
    box_err rv;
    if (is_ident(name.s, name.len)) {
        if (!first && (rv = box_buf_putc(b, '.')) != BOX_OK)
            return rv;
        return box_buf_append(b, name.s, name.len);
    }
    if ((rv = box_buf_puts(b, "[\"")) != BOX_OK ||
        (rv = box_escape_debug_str(b, name.s, name.len)) != BOX_OK)
        return rv;
    return box_buf_puts(b, "\"]");
}

/* Cedar's AttributeAccess display for obj.attr: "`input.arg1` in context
 * for Box::Action::"shell:exec"", "`a` on entity type `T`", or "`a.b`". */
static void
access_text(vctx *v, const pdp_expr *obj, pdp_str attr, char *out, size_t n)
{
    pdp_str chain[64];
    size_t nc = 0;
    chain[nc++] = attr;
    const pdp_expr *e = obj;
    int form = 0; // 0 other, 1 entity, 2 context
    const pdp_type *ent = NULL;
    for (;;) {
        const pdp_type *t = e->x_kind == PDP_X_ATTR ? seen(v, e) : NULL;
        if (e->x_kind == PDP_X_VAR && e->u.var != PDP_VAR_CONTEXT) {
            form = 1;
            if (e->u.var == PDP_VAR_PRINCIPAL)
                ent = mk_entity(v, v->v_principal.s, v->v_principal.len);
            else if (e->u.var == PDP_VAR_RESOURCE)
                ent = mk_entity(v, v->v_resource.s, v->v_resource.len);
            else
                ent = mk_entity(v, v->v_act->ac_type.s, v->v_act->ac_type.len);
            break;
        }
        if (e->x_kind == PDP_X_LIT && e->x_const->v_kind == PDP_VAL_ENTITY) {
            form = 1;
            ent = mk_entity(v, e->x_const->u.ent.type, e->x_const->u.ent.tlen);
            break;
        }
        if (t != NULL && t->ty_kind == PDP_TY_ENTITY) {
            form = 1;
            ent = t;
            break;
        }
        if (e->x_kind == PDP_X_VAR) {
            form = 2;
            break;
        }
        if (e->x_kind == PDP_X_ATTR && nc < 64) {
            chain[nc++] = e->u.attr.name;
            e = e->u.attr.obj;
            continue;
        }
        break;
    }
    box_buf b;
    box_buf_init(&b, n - 1);
    box_err rv = box_buf_putc(&b, '`');
    for (size_t i = nc; i > 0 && rv == BOX_OK; i--)
        rv = put_attr_name(&b, chain[i - 1], i == nc);
    if (rv == BOX_OK)
        rv = box_buf_putc(&b, '`');
    if (rv == BOX_OK && form == 1)
        rv = box_buf_printf(&b, " on entity type `%.*s`", (int)ent->ty_name.len,
                            ent->ty_name.s);
    if (rv == BOX_OK && form == 2) {
        char u[512];
        rv = box_buf_printf(&b, " in context for %s",
                            uidname(v, v->v_act->ac_uid, u, sizeof(u)));
    }
    note_format(v, rv);
    snprintf(out, n, "%s", rv == BOX_OK && b.b_data ? b.b_data : "`…`");
    box_buf_reset(&b);
}

/* ---- the type checker ---- */

/* The record type that attribute reads on t look into, or NULL. */
static const pdp_type *
attrs_of(vctx *v, const pdp_type *t)
{
    if (t->ty_kind == PDP_TY_RECORD)
        return t;
    if (t->ty_kind == PDP_TY_ENTITY) {
        const pdp_schema_entity *en =
            pdp_schema_entity_find(v->v_schema, t->ty_name.s, t->ty_name.len);
        return en != NULL ? en->en_attrs : &ty_empty_rec;
    }
    return NULL;
}

/* A known entity uid for e (literal or the action variable), or NULL. */
static const pdp_value *
const_uid(const vctx *v, const pdp_expr *e)
{
    if (e->x_kind == PDP_X_LIT && e->x_const->v_kind == PDP_VAL_ENTITY)
        return e->x_const;
    if (e->x_kind == PDP_X_VAR && e->u.var == PDP_VAR_ACTION)
        return v->v_act->ac_uid;
    return NULL;
}

/* Checks that t is Bool-like; Never passes silently. */
bool
pv_want_bool(vctx *v, const pdp_expr *e, const pdp_type *t)
{
    if (t->ty_kind == PDP_TY_NEVER)
        return false;
    if (pv_is_boolish(t))
        return true;
    pv_unexpected(v, e->x_pos, "Bool", t);
    return false;
}

bool
pv_want_kind(vctx *v, const pdp_expr *e, const pdp_type *t, pdp_type_kind k,
          const char *name)
{
    if (t->ty_kind == PDP_TY_NEVER)
        return false;
    if (t->ty_kind == k)
        return true;
    pv_unexpected(v, e->x_pos, name, t);
    return false;
}

static const pdp_type *
tc_and(vctx *v, const pdp_expr *e, const capn *in, const capn **out)
{
    const capn *caps = in;
    const pdp_type *res = &pv_ty_true;
    bool never = false;
    for (uint32_t i = 0; i < e->u.list.n; i++) {
        const capn *c = caps;
        const pdp_type *t = pv_tc(v, e->u.list.items[i], caps, &c);
        if (!pv_want_bool(v, e->u.list.items[i], t)) {
            never = true;
            continue;
        }
        if (t->ty_kind == PDP_TY_FALSE) {
            res = &pv_ty_false; // the rest is never evaluated
            break;
        }
        caps = c;
        if (t->ty_kind == PDP_TY_BOOL)
            res = &pv_ty_bool;
    }
    *out = never ? in : caps;
    return never ? &pv_ty_never : res;
}

static const pdp_type *
tc_or(vctx *v, const pdp_expr *e, const capn *in, const capn **out)
{
    const capn *acc_c = in;
    const pdp_type *acc = pv_tc(v, e->u.list.items[0], in, &acc_c);
    bool never = !pv_want_bool(v, e->u.list.items[0], acc);
    for (uint32_t i = 1; i < e->u.list.n; i++) {
        if (!never && acc->ty_kind == PDP_TY_TRUE)
            break; // the rest is never evaluated
        const capn *c = in;
        const pdp_type *t = pv_tc(v, e->u.list.items[i], in, &c);
        if (!pv_want_bool(v, e->u.list.items[i], t) || never) {
            never = true;
            continue;
        }
        if (t->ty_kind == PDP_TY_TRUE) {
            acc = &pv_ty_true;
            acc_c = c;
        } else if (acc->ty_kind == PDP_TY_FALSE) {
            acc = t;
            acc_c = c;
        } else if (t->ty_kind != PDP_TY_FALSE) {
            acc = &pv_ty_bool;
            acc_c = cap_intersect(v, acc_c, c);
        }
    }
    *out = never ? in : acc_c;
    return never ? &pv_ty_never : acc;
}

static const pdp_type *
tc_eq(vctx *v, const pdp_expr *e, const capn *in)
{
    const capn *ign;
    const pdp_type *l = pv_tc(v, e->u.bin.l, in, &ign);
    const pdp_type *r = pv_tc(v, e->u.bin.r, in, &ign);
    if (l->ty_kind == PDP_TY_NEVER || r->ty_kind == PDP_TY_NEVER)
        return &pv_ty_never;
    bool ne = e->x_kind == PDP_X_NE;
    if (l->ty_kind == PDP_TY_ENTITY && r->ty_kind == PDP_TY_ENTITY) {
        const pdp_value *a = const_uid(v, e->u.bin.l);
        const pdp_value *b = const_uid(v, e->u.bin.r);
        bool known = false, eq = false;
        if (!str_eq(l->ty_name, r->ty_name)) {
            known = true;
        } else if (a != NULL && b != NULL) {
            known = true;
            eq = pdp_entity_eq(a, b);
        }
        if (known)
            return eq != ne ? &pv_ty_true : &pv_ty_false;
        return &pv_ty_bool;
    }
    if (!pv_compatible(l, r)) {
        pv_incompatible(v, e->x_oppos, l, r, "both operands to a `==` expression");
        return &pv_ty_never;
    }
    return &pv_ty_bool;
}

static bool
orderable(const pdp_type *t)
{
    return t->ty_kind == PDP_TY_LONG ||
           (t->ty_kind == PDP_TY_EXT &&
            (strcmp(t->ty_name.s, "datetime") == 0 ||
             strcmp(t->ty_name.s, "duration") == 0));
}

static const pdp_type *
tc_order(vctx *v, const pdp_expr *e, const capn *in)
{
    const capn *ign;
    const pdp_type *l = pv_tc(v, e->u.bin.l, in, &ign);
    const pdp_type *r = pv_tc(v, e->u.bin.r, in, &ign);
    bool bad = l->ty_kind == PDP_TY_NEVER || r->ty_kind == PDP_TY_NEVER;
    static const char want[] = "Long, or datetime, or duration";
    if (l->ty_kind != PDP_TY_NEVER && !orderable(l)) {
        pv_unexpected(v, e->u.bin.l->x_pos, want, l);
        bad = true;
    }
    if (r->ty_kind != PDP_TY_NEVER && !orderable(r)) {
        pv_unexpected(v, e->u.bin.r->x_pos, want, r);
        bad = true;
    }
    if (!bad && !pv_compatible(l, r)) {
        char b[512];
        pv_unexpected(v, e->u.bin.r->x_pos, pv_tyname(v, l, b, sizeof(b)), r);
        bad = true;
    }
    return bad ? &pv_ty_never : &pv_ty_bool;
}

static const pdp_type *
tc_arith(vctx *v, const pdp_expr *e, const capn *in)
{
    const capn *ign;
    const pdp_type *l = pv_tc(v, e->u.bin.l, in, &ign);
    const pdp_type *r = pv_tc(v, e->u.bin.r, in, &ign);
    bool okl = pv_want_kind(v, e->u.bin.l, l, PDP_TY_LONG, "Long");
    bool okr = pv_want_kind(v, e->u.bin.r, r, PDP_TY_LONG, "Long");
    return okl && okr ? &pv_ty_long : &pv_ty_never;
}

/* The right operand of `in`: an entity or a set of entities. */
static bool
in_rhs_ok(vctx *v, const pdp_expr *x, const pdp_type *r)
{
    bool ok = r->ty_kind == PDP_TY_ENTITY ||
              (r->ty_kind == PDP_TY_SET && r->ty_elem != NULL &&
               r->ty_elem->ty_kind == PDP_TY_ENTITY);
    if (r->ty_kind != PDP_TY_NEVER && !ok)
        pv_unexpected(v, x->x_pos, "Set<" ANY_ENTITY ">, or " ANY_ENTITY, r);
    return ok;
}

static const pdp_type *
tc_in(vctx *v, const pdp_expr *e, const capn *in)
{
    const capn *ign;
    const pdp_type *l = pv_tc(v, e->u.bin.l, in, &ign);
    const pdp_type *r = pv_tc(v, e->u.bin.r, in, &ign);
    bool bad = l->ty_kind == PDP_TY_NEVER;
    if (l->ty_kind != PDP_TY_NEVER && l->ty_kind != PDP_TY_ENTITY) {
        pv_unexpected(v, e->u.bin.l->x_pos, ANY_ENTITY, l);
        bad = true;
    }
    if (!in_rhs_ok(v, e->u.bin.r, r))
        bad = true;
    return bad ? &pv_ty_never : &pv_ty_bool;
}

/* e is T [in x], typed as `e is T && e in x`: the type test is decided
 * by e's entity type (constant true or false), and `in` is typed only
 * when the test can hold. */
static const pdp_type *
tc_is(vctx *v, const pdp_expr *e, const capn *in)
{
    const capn *ign;
    const pdp_type *t = pv_tc(v, e->u.is.obj, in, &ign);
    if (!pv_want_kind(v, e->u.is.obj, t, PDP_TY_ENTITY, ANY_ENTITY))
        return &pv_ty_never;
    if (!str_eq(t->ty_name, e->u.is.type))
        return &pv_ty_false;
    if (e->u.is.in == NULL)
        return &pv_ty_true;
    const pdp_type *r = pv_tc(v, e->u.is.in, in, &ign);
    return in_rhs_ok(v, e->u.is.in, r) ? &pv_ty_bool : &pv_ty_never;
}

/* obj has a.b.c: each step on the type reached so far. */
static const pdp_type *
tc_has(vctx *v, const pdp_expr *e, const capn *in, const capn **out)
{
    const capn *ign;
    const pdp_type *t = pv_tc(v, e->u.has.obj, in, &ign);
    *out = in;
    if (t->ty_kind == PDP_TY_NEVER)
        return &pv_ty_never;
    const capn *caps = in;
    const pdp_type *res = &pv_ty_true;
    for (uint32_t i = 0; i < e->u.has.n; i++) {
        const pdp_type *rec = attrs_of(v, t);
        if (rec == NULL) {
            pv_unexpected(v, e->u.has.obj->x_pos, ANY_ENTITY ", or " ANY_RECORD,
                       t);
            return &pv_ty_never;
        }
        pdp_str name = e->u.has.path[i];
        const pdp_attr *at = pdp_schema_record_attr(rec, name.s, name.len);
        if (at == NULL)
            return &pv_ty_false; // closed: the attribute can never be present
        pdp_str key;
        bool known = false;
        if (has_key(v, e->u.has.obj, e->u.has.path, i + 1, &key)) {
            known = pv_cap_has(caps, key);
            caps = pv_cap_add(v, caps, key);
        }
        if (!(t->ty_kind == PDP_TY_RECORD && (at->at_required || known)))
            res = &pv_ty_bool;
        t = at->at_type;
    }
    *out = caps;
    return res;
}

static const pdp_type *
tc_attr(vctx *v, const pdp_expr *e, const capn *in)
{
    const capn *ign;
    const pdp_type *t = pv_tc(v, e->u.attr.obj, in, &ign);
    if (t->ty_kind == PDP_TY_NEVER)
        return &pv_ty_never;
    const pdp_type *rec = attrs_of(v, t);
    if (rec == NULL) {
        pv_unexpected(v, e->u.attr.obj->x_pos, ANY_ENTITY ", or " ANY_RECORD, t);
        return &pv_ty_never;
    }
    pdp_str name = e->u.attr.name;
    const pdp_attr *at = pdp_schema_record_attr(rec, name.s, name.len);
    char acc[1024];
    if (at == NULL) {
        access_text(v, e->u.attr.obj, name, acc, sizeof(acc));
        pv_verr(v, e->x_oppos, "attribute %s not found", acc);
        return &pv_ty_never;
    }
    if (!at->at_required) {
        pdp_str key;
        pdp_str path[1] = {name};
        if (!has_key(v, e->u.attr.obj, path, 1, &key) || !pv_cap_has(in, key)) {
            access_text(v, e->u.attr.obj, name, acc, sizeof(acc));
            pv_verr(v, e->x_oppos,
                 "unable to guarantee safety of access to "
                 "optional attribute %s",
                 acc);
            return &pv_ty_never;
        }
    }
    remember(v, e, at->at_type);
    return at->at_type;
}

static const pdp_type *
tc_if(vctx *v, const pdp_expr *e, const capn *in, const capn **out)
{
    const capn *cc = in, *tcaps = in, *ecaps = in;
    const pdp_type *c = pv_tc(v, e->u.cond.c, in, &cc);
    *out = in;
    if (!pv_want_bool(v, e->u.cond.c, c)) {
        pv_tc(v, e->u.cond.t, in, &tcaps);
        pv_tc(v, e->u.cond.e, in, &ecaps);
        return &pv_ty_never;
    }
    if (c->ty_kind == PDP_TY_TRUE) {
        const pdp_type *t = pv_tc(v, e->u.cond.t, cc, &tcaps);
        *out = tcaps;
        return t;
    }
    if (c->ty_kind == PDP_TY_FALSE) {
        const pdp_type *t = pv_tc(v, e->u.cond.e, in, &ecaps);
        *out = ecaps;
        return t;
    }
    const pdp_type *t = pv_tc(v, e->u.cond.t, cc, &tcaps);
    const pdp_type *f = pv_tc(v, e->u.cond.e, in, &ecaps);
    if (t->ty_kind == PDP_TY_NEVER || f->ty_kind == PDP_TY_NEVER)
        return &pv_ty_never;
    if (!pv_compatible(t, f)) {
        pv_incompatible(v, e->x_pos, t, f, "both branches of a conditional");
        return &pv_ty_never;
    }
    if (pv_is_boolish(t) && pv_is_boolish(f)) {
        if (t->ty_kind == PDP_TY_FALSE) // if c then false else x: c is false
            *out = ecaps;
        else if (f->ty_kind == PDP_TY_FALSE)
            *out = tcaps;
        else
            *out = cap_intersect(v, tcaps, ecaps);
    }
    return lub(t, f);
}

static const pdp_type *
tc_set(vctx *v, const pdp_expr *e, const capn *in)
{
    if (e->u.list.n == 0) {
        pv_verr(v, e->x_pos, "empty set literals are forbidden in policies");
        return &pv_ty_never;
    }
    const capn *ign;
    const pdp_type *elem = NULL;
    bool bad = false;
    for (uint32_t i = 0; i < e->u.list.n; i++) {
        const pdp_type *t = pv_tc(v, e->u.list.items[i], in, &ign);
        if (t->ty_kind == PDP_TY_NEVER) {
            bad = true;
            continue;
        }
        if (elem == NULL) {
            elem = t;
        } else if (!pv_compatible(elem, t)) {
            if (!bad)
                pv_incompatible(v, e->x_pos, elem, t, "elements of a set");
            bad = true;
        } else {
            elem = lub(elem, t);
        }
    }
    if (bad || elem == NULL)
        return &pv_ty_never;
    pdp_type *st = box_arena_zalloc(v->v_a, sizeof(*st));
    if (st == NULL) {
        v->v_rv = BOX_ENOMEM;
        return &pv_ty_never;
    }
    st->ty_kind = PDP_TY_SET;
    st->ty_elem = pv_is_boolish(elem) ? &pv_ty_bool : elem;
    return st;
}

static int
attr_cmp(const void *x, const void *y)
{
    const pdp_attr *a = x, *b = y;
    size_t n =
        a->at_name.len < b->at_name.len ? a->at_name.len : b->at_name.len;
    int c = memcmp(a->at_name.s, b->at_name.s, n);
    if (c != 0)
        return c;
    return a->at_name.len < b->at_name.len ? -1
                                           : a->at_name.len > b->at_name.len;
}

static const pdp_type *
tc_record(vctx *v, const pdp_expr *e, const capn *in)
{
    const capn *ign;
    pdp_attr *attrs =
        box_arena_alloc(v->v_a, (e->u.rec.n + 1) * sizeof(*attrs));
    pdp_type *rt = box_arena_zalloc(v->v_a, sizeof(*rt));
    if (attrs == NULL || rt == NULL) {
        v->v_rv = BOX_ENOMEM;
        return &pv_ty_never;
    }
    bool bad = false;
    for (uint32_t i = 0; i < e->u.rec.n; i++) {
        const pdp_type *t = pv_tc(v, e->u.rec.vals[i], in, &ign);
        bad = bad || t->ty_kind == PDP_TY_NEVER;
        attrs[i].at_name = e->u.rec.keys[i];
        attrs[i].at_type = pv_is_boolish(t) ? &pv_ty_bool : t;
        attrs[i].at_required = true;
    }
    if (bad)
        return &pv_ty_never;
    qsort(attrs, e->u.rec.n, sizeof(*attrs), attr_cmp);
    rt->ty_kind = PDP_TY_RECORD;
    rt->ty_attrs = attrs;
    rt->ty_nattrs = e->u.rec.n;
    return rt;
}

static const pdp_type *
tc_lit(vctx *v, const pdp_expr *e)
{
    const pdp_value *c = e->x_const;
    switch (c->v_kind) {
    case PDP_VAL_BOOL:
        return c->u.b ? &pv_ty_true : &pv_ty_false;
    case PDP_VAL_LONG:
        return &pv_ty_long;
    case PDP_VAL_STRING:
        return &pv_ty_string;
    case PDP_VAL_ENTITY:
        return mk_entity(v, c->u.ent.type, c->u.ent.tlen);
    default: // sets and records are PDP_X_SET / PDP_X_RECORD
        return pv_ext_type((pdp_value_kind)c->v_kind) != NULL
                   ? pv_ext_type((pdp_value_kind)c->v_kind)
                   : &pv_ty_never;
    }
}

static const pdp_type *
tc_var(vctx *v, const pdp_expr *e)
{
    switch (e->u.var) {
    case PDP_VAR_PRINCIPAL:
        return mk_entity(v, v->v_principal.s, v->v_principal.len);
    case PDP_VAR_ACTION:
        return mk_entity(v, v->v_act->ac_type.s, v->v_act->ac_type.len);
    case PDP_VAR_RESOURCE:
        return mk_entity(v, v->v_resource.s, v->v_resource.len);
    case PDP_VAR_CONTEXT:
        return v->v_act->ac_context;
    }
    return &pv_ty_never;
}

/* The type of e under in; *out = the capabilities that hold when e is
 * true (in, unless e is a Bool that adds some). */
const pdp_type *
pv_tc(vctx *v, const pdp_expr *e, const capn *in, const capn **out)
{
    *out = in;
    const capn *ign;
    const pdp_type *t;
    switch (e->x_kind) {
    case PDP_X_LIT:
        return tc_lit(v, e);
    case PDP_X_VAR:
        return tc_var(v, e);
    case PDP_X_NOT:
        t = pv_tc(v, e->u.un.arg, in, &ign);
        if (!pv_want_bool(v, e->u.un.arg, t))
            return &pv_ty_never;
        return t->ty_kind == PDP_TY_TRUE    ? &pv_ty_false
               : t->ty_kind == PDP_TY_FALSE ? &pv_ty_true
                                            : &pv_ty_bool;
    case PDP_X_NEG:
        t = pv_tc(v, e->u.un.arg, in, &ign);
        return pv_want_kind(v, e->u.un.arg, t, PDP_TY_LONG, "Long") ? &pv_ty_long
                                                                 : &pv_ty_never;
    case PDP_X_AND:
        return tc_and(v, e, in, out);
    case PDP_X_OR:
        return tc_or(v, e, in, out);
    case PDP_X_EQ:
    case PDP_X_NE:
        return tc_eq(v, e, in);
    case PDP_X_LT:
    case PDP_X_LE:
    case PDP_X_GT:
    case PDP_X_GE:
        return tc_order(v, e, in);
    case PDP_X_IN:
        return tc_in(v, e, in);
    case PDP_X_ADD:
    case PDP_X_SUB:
    case PDP_X_MUL:
        return tc_arith(v, e, in);
    case PDP_X_HAS:
        return tc_has(v, e, in, out);
    case PDP_X_LIKE:
        t = pv_tc(v, e->u.like.obj, in, &ign);
        return pv_want_kind(v, e->u.like.obj, t, PDP_TY_STRING, "String")
                   ? &pv_ty_bool
                   : &pv_ty_never;
    case PDP_X_ATTR:
        return tc_attr(v, e, in);
    case PDP_X_IF:
        return tc_if(v, e, in, out);
    case PDP_X_SET:
        return tc_set(v, e, in);
    case PDP_X_RECORD:
        return tc_record(v, e, in);
    case PDP_X_METHOD:
        return pv_tc_method(v, e, in, out);
    case PDP_X_TEMPORAL:
        return &pv_ty_bool; // its own checks are the temporal validator's
    case PDP_X_CALL:
        return pv_tc_call(v, e, in);
    case PDP_X_IS:
        return tc_is(v, e, in);
    case PDP_X_COUNT:
        break;
    }
    return &pv_ty_never;
}

/* ---- per rule ---- */

/* The principal (or resource) types of act the scope admits. */
static uint32_t
scope_types(vctx *v, const pdp_scope *sc, const pdp_str *types, uint32_t n,
            pdp_str *out)
{
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        bool ok = true;
        if (sc->sc_op == PDP_SCOPE_IS || sc->sc_op == PDP_SCOPE_IS_IN)
            ok = str_eq(types[i], sc->sc_type);
        if (ok && (sc->sc_op == PDP_SCOPE_EQ || sc->sc_op == PDP_SCOPE_IN ||
                   sc->sc_op == PDP_SCOPE_IS_IN)) {
            const pdp_value *ent = sc->sc_ents[0];
            pdp_str et = {ent->u.ent.type, ent->u.ent.tlen};
            ok = sc->sc_op == PDP_SCOPE_EQ
                     ? str_eq(types[i], et)
                     : pdp_schema_entity_may_be_in(v->v_schema, types[i], et);
        }
        if (ok)
            out[k++] = types[i];
    }
    return k;
}

static bool
action_admitted(vctx *v, const pdp_scope *sc, const pdp_schema_action *a)
{
    if (!a->ac_applies)
        return false;
    switch (sc->sc_op) {
    case PDP_SCOPE_ANY:
        return true;
    case PDP_SCOPE_EQ:
        return pdp_entity_eq(a->ac_uid, sc->sc_ents[0]);
    case PDP_SCOPE_IN:
    case PDP_SCOPE_IN_SET:
        for (uint32_t i = 0; i < sc->sc_n; i++) {
            if (pdp_schema_action_in(v->v_schema, a, sc->sc_ents[i]))
                return true;
        }
        return false;
    case PDP_SCOPE_IS: // the parser refuses `action is …`
    case PDP_SCOPE_IS_IN:
        return false;
    }
    return false;
}

/* Type-checks the folded conditions in the current environment; true
 * when they can hold. */
static bool
check_env(vctx *v, const pdp_rule *r)
{
    const capn *caps = NULL;
    v->v_nseen = 0;
    for (uint32_t i = 0; i < r->r_nconds; i++) {
        const pdp_expr *body = r->r_conds[i].cd_body;
        const capn *c = caps;
        const pdp_type *t = pv_tc(v, body, caps, &c);
        if (!pv_want_bool(v, body, t))
            continue;
        bool when = r->r_conds[i].cd_kind == PDP_COND_WHEN;
        if (t->ty_kind == (when ? PDP_TY_FALSE : PDP_TY_TRUE))
            return false; // later clauses are never evaluated
        if (when)
            caps = c;
    }
    return true;
}

static box_err
validate_rule(vctx *v, const pdp_rule *r)
{
    const pdp_schema *s = v->v_schema;
    v->v_rule = r;
    v->v_rule_first = v->v_res->vr_n;
    v->v_rule_errors = false;
    check_scope_literals(v, &r->r_principal);
    check_scope_literals(v, &r->r_action);
    check_scope_literals(v, &r->r_resource);
    for (uint32_t i = 0; i < r->r_nconds; i++)
        check_literals(v, r->r_conds[i].cd_body);
    if (v->v_rv != BOX_OK || v->v_rule_errors)
        return v->v_rv;

    size_t nenv = 0, nfalse = 0;
    for (size_t ai = 0; ai < pdp_schema_action_count(s); ai++) {
        const pdp_schema_action *a = pdp_schema_action_at(s, ai);
        if (!action_admitted(v, &r->r_action, a))
            continue;
        pdp_str *ps =
            box_arena_alloc(v->v_a, (a->ac_nprincipals + 1) * sizeof(*ps));
        pdp_str *rs =
            box_arena_alloc(v->v_a, (a->ac_nresources + 1) * sizeof(*rs));
        if (ps == NULL || rs == NULL)
            return BOX_ENOMEM;
        uint32_t np = scope_types(v, &r->r_principal, a->ac_principals,
                                  a->ac_nprincipals, ps);
        uint32_t nr = scope_types(v, &r->r_resource, a->ac_resources,
                                  a->ac_nresources, rs);
        for (uint32_t pi = 0; pi < np; pi++) {
            for (uint32_t ri = 0; ri < nr; ri++) {
                v->v_act = a;
                v->v_principal = ps[pi];
                v->v_resource = rs[ri];
                nenv++;
                if (!check_env(v, r))
                    nfalse++;
                if (v->v_rv != BOX_OK)
                    return v->v_rv;
            }
        }
    }
    if (nenv == 0) {
        pv_verr(v, r->r_action.sc_pos,
             "unable to find an applicable action "
             "given the policy scope constraints");
        return v->v_rv;
    }
    if (!v->v_rule_errors && nfalse == nenv) {
        char msg[256];
        snprintf(msg, sizeof(msg),
                 "for policy `%s`, policy is impossible: the "
                 "policy expression evaluates to false for all valid requests",
                 r->r_pid.s);
        box_err rv = add_finding(v, PDP_FINDING_WARNING, r->r_pos, msg);
        if (rv != BOX_OK)
            return rv;
    }
    return v->v_rv;
}

box_err
pdp_validate_policies(const pdp_schema *s, const pdp_ast *ast, const char *file,
                      pdp_validate_result **out)
{
    *out = NULL;
    pdp_validate_result *r = box_calloc(1, sizeof(*r));
    if (r == NULL)
        return BOX_ENOMEM;
    if ((r->vr_arena = box_arena_new(PDP_VALIDATE_MEMORY)) == NULL) {
        box_free(r);
        return BOX_ENOMEM;
    }
    vctx v;
    memset(&v, 0, sizeof(v));
    v.v_schema = s;
    v.v_file = file != NULL ? file : "<policy>";
    v.v_res = r;
    v.v_a = r->vr_arena;
    box_err rv = BOX_OK;
    for (uint32_t i = 0; i < ast->as_nrules && rv == BOX_OK; i++)
        rv = validate_rule(&v, ast->as_rules[i]);
    if (rv != BOX_OK) {
        pdp_validate_result_free(r);
        return rv;
    }
    *out = r;
    return BOX_OK;
}

void
pdp_validate_result_free(pdp_validate_result *r)
{
    if (r == NULL)
        return;
    box_arena_free(r->vr_arena);
    box_free(r->vr_items);
    box_free(r);
}

size_t
pdp_validate_result_count(const pdp_validate_result *r)
{
    return r->vr_n;
}

const pdp_finding *
pdp_validate_result_at(const pdp_validate_result *r, size_t i)
{
    return i < r->vr_n ? &r->vr_items[i] : NULL;
}

size_t
pdp_validate_result_errors(const pdp_validate_result *r)
{
    return r->vr_errors;
}

box_err
pdp_validate_load_message(const pdp_validate_result *r, char **msg)
{
    *msg = NULL;
    if (r->vr_errors == 0)
        return BOX_OK;
    bool unknown = false;
    for (size_t i = 0; i < r->vr_n; i++) {
        if (r->vr_items[i].fd_kind == PDP_FINDING_ERROR &&
            strstr(r->vr_items[i].fd_msg, "unrecognized action") != NULL)
            unknown = true;
    }
    box_buf b;
    box_buf_init(&b, 1u << 20);
    box_err rv = box_buf_puts(&b, unknown ? "policy references unknown action: "
                                          : "policy fails schema validation: ");
    bool first = true;
    for (size_t i = 0; i < r->vr_n && rv == BOX_OK; i++) {
        if (r->vr_items[i].fd_kind != PDP_FINDING_ERROR)
            continue;
        if (!first)
            rv = box_buf_puts(&b, "; ");
        // Each finding carries its place in the file (Dogwood locates
        // Cedar's findings in the .dw source); Cedar's text follows it.
        if (rv == BOX_OK)
            rv = box_buf_puts(&b, r->vr_items[i].fd_located
                                      ? r->vr_items[i].fd_located
                                      : r->vr_items[i].fd_msg);
        first = false;
    }
    if (rv == BOX_ETOOBIG)
        rv = BOX_OK; // the text is cut; the refusal stands
    if (rv != BOX_OK) {
        box_buf_reset(&b);
        return rv;
    }
    *msg = box_buf_take(&b);
    return *msg != NULL ? BOX_ECONFIG : BOX_ENOMEM;
}
