/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The schema stage of temporal leaves (dogwood-spec §4.7, §5.3): what
 * Dogwood's validator reports about a leaf once the action schema and
 * the event schema are known. It reads the tree, the schemas and the
 * derived events; it writes findings and nothing else, and never
 * decides a request. The schema-free parts (timepoint dependence, the
 * window cap) are pdp_tl_check.c's.
 *
 * Types are Dogwood's coarse "rich" types (int, string, decimal,
 * boolean, timepoint, arrays, object, entities by their base name), not
 * Cedar's: a check runs only where both sides have one.
 */
#include "pdp_tl_validate.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_buf.h"
#include "box_escape.h"

// printf arguments for a pdp_str printed with "%.*s"
#define STR(x) (int)(x).len, (x).s

/* Scratch space for one leaf; a leaf that needs more fails the load. */
#define TV_SCRATCH_MAX (8u << 20)
/* Longest finding kept (a longer one is cut, still a finding). */
#define TV_MSG_MAX (64u << 10)

/* ---- rich types ---- */

/* ORDER RT */
typedef enum rt_kind {
    RT_LONG, // "int"
    RT_STRING,
    RT_DECIMAL,
    RT_BOOL, // "boolean"
    RT_TIMEPOINT,
    RT_ARRAY,
    RT_RECORD, // "object"
    RT_ENTITY,
    RT_NEVER,
} rt_kind;

typedef enum rt_elem {
    RE_UNKNOWN, // a bare array: pairs with any array
    RE_MIXED,   // a mixed literal: matches no other array
    RE_OF,      // rt_of
} rt_elem;

typedef struct rtype {
    rt_kind rt_k;
    pdp_str rt_tag; // RT_ENTITY: the type's base name; len 0 untagged
    rt_elem rt_e;
    const struct rtype *rt_of;
} rtype;

static const rtype rt_long = {RT_LONG, {"", 0}, RE_UNKNOWN, NULL};
static const rtype rt_string = {RT_STRING, {"", 0}, RE_UNKNOWN, NULL};
static const rtype rt_decimal = {RT_DECIMAL, {"", 0}, RE_UNKNOWN, NULL};
static const rtype rt_bool = {RT_BOOL, {"", 0}, RE_UNKNOWN, NULL};
static const rtype rt_timepoint = {RT_TIMEPOINT, {"", 0}, RE_UNKNOWN, NULL};
static const rtype rt_record = {RT_RECORD, {"", 0}, RE_UNKNOWN, NULL};
static const rtype rt_never = {RT_NEVER, {"", 0}, RE_UNKNOWN, NULL};
static const rtype rt_entity_any = {RT_ENTITY, {"", 0}, RE_UNKNOWN, NULL};
static const rtype rt_array_any = {RT_ARRAY, {"", 0}, RE_UNKNOWN, NULL};
static const rtype rt_array_mixed = {RT_ARRAY, {"", 0}, RE_MIXED, NULL};

static bool
str_eq(pdp_str a, pdp_str b)
{
    return a.len == b.len && (a.len == 0 || memcmp(a.s, b.s, a.len) == 0);
}

static bool
str_is(pdp_str a, const char *s)
{
    return a.len == strlen(s) && memcmp(a.s, s, a.len) == 0;
}

/* The last `::` segment of a qualified name. */
static pdp_str
base_name(const char *s, size_t len)
{
    size_t i = len;
    while (i >= 2 && !(s[i - 1] == ':' && s[i - 2] == ':'))
        i--;
    if (i < 2)
        i = 0;
    pdp_str b = {s + i, len - i};
    return b;
}

static bool
rt_eq(const rtype *a, const rtype *b)
{
    if (a->rt_k != b->rt_k)
        return false;
    if (a->rt_k == RT_ENTITY)
        return str_eq(a->rt_tag, b->rt_tag);
    if (a->rt_k == RT_ARRAY)
        return a->rt_e == b->rt_e &&
               (a->rt_e != RE_OF || rt_eq(a->rt_of, b->rt_of));
    return true;
}

static bool
rt_numeric(const rtype *t)
{
    return t->rt_k == RT_LONG;
}

/* An actual value of type got where want is declared. */
static bool
rt_accepts(const rtype *want, const rtype *got)
{
    if (rt_eq(want, got))
        return true;
    if (want->rt_k == RT_ENTITY && got->rt_k == RT_ENTITY)
        return want->rt_tag.len == 0 || got->rt_tag.len == 0 ||
               str_eq(want->rt_tag, got->rt_tag);
    if (want->rt_k == RT_ARRAY && got->rt_k == RT_ARRAY) {
        if (want->rt_e == RE_UNKNOWN || got->rt_e == RE_UNKNOWN)
            return true;
        if (want->rt_e == RE_MIXED || got->rt_e == RE_MIXED)
            return false;
        return rt_accepts(want->rt_of, got->rt_of);
    }
    return false;
}

/* The two sides of `==` may be compared. */
static bool
rt_compatible(const rtype *a, const rtype *b)
{
    if (rt_eq(a, b) || (rt_numeric(a) && rt_numeric(b)))
        return true;
    if (a->rt_k == RT_ENTITY && b->rt_k == RT_ENTITY)
        return true;
    if (a->rt_k == RT_ARRAY && b->rt_k == RT_ARRAY) {
        if (a->rt_e == RE_UNKNOWN || b->rt_e == RE_UNKNOWN)
            return true;
        if (a->rt_e == RE_MIXED || b->rt_e == RE_MIXED)
            return false;
        return rt_compatible(a->rt_of, b->rt_of);
    }
    return false;
}

/* Dogwood's two spellings of a type: for people ("display": an entity by
 * its tag, "mixed-type array") and as the projection names ("render":
 * "entity:Tag", "array<?>"). */
static box_err
rt_put(box_buf *b, const rtype *t, bool display)
{
    static const char *const names[] = {
        "int",   "string", "decimal", "boolean", "timepoint",
        "array", "object", "entity",  "never",
    };
    switch (t->rt_k) {
    case RT_ARRAY:
        if (t->rt_e == RE_MIXED)
            return box_buf_puts(b, display ? "mixed-type array" : "array<?>");
        if (t->rt_e == RE_OF) {
            BOX_TRY(box_buf_puts(b, "array<"));
            BOX_TRY(rt_put(b, t->rt_of, display));
            return box_buf_putc(b, '>');
        }
        return box_buf_puts(b, "array");
    case RT_ENTITY:
        if (t->rt_tag.len == 0)
            return box_buf_puts(b, "entity");
        if (!display)
            BOX_TRY(box_buf_puts(b, "entity:"));
        return box_buf_append(b, t->rt_tag.s, t->rt_tag.len);
    default:
        return box_buf_puts(b, names[t->rt_k]);
    }
}

/* ---- the context of one validation ---- */

typedef struct tv_ctx {
    const pdp_schema *as;
    const pdp_evschema *es;
    const pdp_evset *events;
    const pdp_tl_src *src;
    const char *file;
    pdp_validate_result *out;
    box_arena *a; // scratch, reset per leaf
    const pdp_rule *rule;
    size_t leaf_first; // the leaf's first finding in out
    bool stop;         // the names check reports one finding per leaf
    pdp_pos leaf_pos;  // where the leaf's condition starts
    /* TEMP-Type / TEMP-ContextPath: the rule's action being checked
     * (NULL: not in the schema) and the variable types in scope. */
    const pdp_schema_action *act;
    struct tv_var *env;
    size_t nenv, envcap;
    box_err nomem; // a scratch allocation failed: the load fails
} tv_ctx;

typedef struct tv_var {
    pdp_str v_name;
    const rtype *v_type;
    const pdp_tbinder *v_binder; // its declaration, when a binder
} tv_var;

static rtype *
rt_new(tv_ctx *c, rt_kind k)
{
    rtype *t = box_arena_zalloc(c->a, sizeof(*t));
    if (t != NULL)
        t->rt_k = k;
    else
        c->nomem = BOX_ENOMEM;
    return t;
}

/* One finding at pos, once per leaf (several actions may raise it). */
static box_err __attribute__((format(printf, 3, 4)))
finding(tv_ctx *c, pdp_pos pos, const char *fmt, ...)
{
    box_buf b;
    box_buf_init(&b, TV_MSG_MAX);
    va_list ap;
    va_start(ap, fmt);
    box_err rv = box_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (rv == BOX_ETOOBIG)
        rv = BOX_OK; // a cut text is still the finding
    if (rv != BOX_OK || b.b_data == NULL) {
        box_buf_reset(&b);
        return rv != BOX_OK ? rv : BOX_ENOMEM;
    }
    for (size_t i = c->leaf_first; i < pdp_validate_result_count(c->out); i++) {
        const pdp_finding *f = pdp_validate_result_at(c->out, i);
        if (f->fd_pos.line == pos.line && f->fd_pos.col == pos.col &&
            strcmp(f->fd_msg, b.b_data) == 0) {
            box_buf_reset(&b);
            return BOX_OK;
        }
    }
    rv = pdp_validate_result_add(c->out, c->rule, pos, c->file, b.b_data);
    box_buf_reset(&b);
    return rv;
}

/* A finding of pdp_tl_check's (its sink). */
static box_err
checked(void *arg, pdp_pos pos, const char *msg)
{
    return finding(arg, pos, "%s", msg);
}

/* Appends Cedar's escaped form of an entity id (str::escape_debug:
 * quotes and apostrophes escaped, unprintable characters as \u{…}). */
static box_err
put_eid(box_buf *b, const char *s, size_t n)
{
    size_t i = 0;
    while (i <= n) {
        size_t j = i;
        while (j < n && s[j] != '\'')
            j++;
        BOX_TRY(box_escape_debug_str(b, s + i, j - i));
        if (j < n)
            BOX_TRY(box_buf_puts(b, "\\'"));
        i = j + 1;
    }
    return BOX_OK;
}

/* The text of put_eid in the scratch arena ("" on a full buffer). */
static const char *
eid_text(tv_ctx *c, const char *s, size_t n)
{
    box_buf b;
    box_buf_init(&b, TV_MSG_MAX);
    box_err rv = put_eid(&b, s, n);
    char *t = NULL;
    if ((rv == BOX_OK || rv == BOX_ETOOBIG) && b.b_data != NULL)
        t = box_arena_strndup(c->a, b.b_data, b.b_len);
    else if (rv == BOX_OK)
        t = box_arena_strndup(c->a, "", 0);
    box_buf_reset(&b);
    return t;
}

static const char *
rt_text(tv_ctx *c, const rtype *t, bool display)
{
    box_buf b;
    box_buf_init(&b, TV_MSG_MAX);
    char *s = NULL;
    if (rt_put(&b, t, display) == BOX_OK && b.b_data != NULL)
        s = box_arena_strndup(c->a, b.b_data, b.b_len);
    box_buf_reset(&b);
    return s;
}

/* ---- walking a leaf ---- */

static bool
is_agg(const pdp_tterm *t)
{
    return t->tt_kind == PDP_TT_COUNT || t->tt_kind == PDP_TT_SUM;
}

typedef box_err (*tv_node_fn)(tv_ctx *c, const pdp_tl *t);
typedef box_err (*tv_term_fn)(tv_ctx *c, const pdp_tl *node,
                              const pdp_tterm *t);

/* Every node, before what it holds; an aggregate's body after the
 * comparison it is an operand of (Dogwood's `walk`). */
static box_err
walk(tv_ctx *c, const pdp_tl *t, tv_node_fn fn)
{
    BOX_TRY(fn(c, t));
    switch (t->tl_kind) {
    case PDP_TL_AND:
    case PDP_TL_SINCE:
        BOX_TRY(walk(c, t->tl_l, fn));
        return walk(c, t->tl_r, fn);
    case PDP_TL_NOT:
    case PDP_TL_FORMERLY:
    case PDP_TL_PREVIOUS:
    case PDP_TL_EXISTS:
        return walk(c, t->tl_l, fn);
    case PDP_TL_CMP:
        if (is_agg(t->tl_a))
            BOX_TRY(walk(c, t->tl_a->tt_agg->ta_where, fn));
        if (is_agg(t->tl_b))
            BOX_TRY(walk(c, t->tl_b->tt_agg->ta_where, fn));
        return BOX_OK;
    default:
        return BOX_OK;
    }
}

static box_err
term_each(tv_ctx *c, const pdp_tl *node, const pdp_tterm *t, tv_term_fn fn)
{
    BOX_TRY(fn(c, node, t));
    if (t->tt_kind == PDP_TT_ARRAY)
        for (uint32_t i = 0; i < t->tt_nitems; i++)
            BOX_TRY(term_each(c, node, t->tt_items[i], fn));
    return BOX_OK;
}

/* The terms a node holds itself: a predicate's arguments, a
 * comparison's operands (array items too, not aggregate bodies). */
static box_err
terms(tv_ctx *c, const pdp_tl *node, tv_term_fn fn)
{
    if (node->tl_kind == PDP_TL_PRED)
        for (uint32_t i = 0; i < node->tl_nargs; i++)
            BOX_TRY(term_each(c, node, node->tl_args[i].ta_term, fn));
    if (node->tl_kind == PDP_TL_CMP) {
        BOX_TRY(term_each(c, node, node->tl_a, fn));
        BOX_TRY(term_each(c, node, node->tl_b, fn));
    }
    return BOX_OK;
}

/* ---- EVENT-Predicate, EVENT-Field-Group, EVENT-Field-Absent ---- */

static int
path_cmp(const void *x, const void *y)
{
    const pdp_str *a = x, *b = y;
    size_t n = a->len < b->len ? a->len : b->len;
    int r = n > 0 ? memcmp(a->s, b->s, n) : 0;
    return r != 0 ? r : (a->len > b->len) - (a->len < b->len);
}

/* "a, b, c": the event's leaves, sorted. */
static const char *
declared_fields(tv_ctx *c, const pdp_evsig *e)
{
    size_t n = pdp_evsig_leaf_count(e);
    pdp_str *p = box_arena_alloc(c->a, (n + 1) * sizeof(*p));
    if (p == NULL)
        return NULL;
    for (size_t i = 0; i < n; i++)
        p[i] = pdp_evsig_leaf_at(e, i)->lf_path;
    qsort(p, n, sizeof(*p), path_cmp);
    box_buf b;
    box_buf_init(&b, TV_MSG_MAX);
    box_err rv = box_buf_puts(&b, "");
    for (size_t i = 0; i < n && rv == BOX_OK; i++) {
        if (i > 0)
            rv = box_buf_puts(&b, ", ");
        if (rv == BOX_OK)
            rv = box_buf_append(&b, p[i].s, p[i].len);
    }
    char *s = NULL;
    if ((rv == BOX_OK || rv == BOX_ETOOBIG) && b.b_data != NULL)
        s = box_arena_strndup(c->a, b.b_data, b.b_len);
    box_buf_reset(&b);
    return s;
}

static box_err
names_node(tv_ctx *c, const pdp_tl *t)
{
    if (c->stop || t->tl_kind != PDP_TL_PRED)
        return BOX_OK;
    const pdp_value *ac = t->tl_action;
    size_t tl = 0, il = 0;
    const char *ty = pdp_value_entity_type(ac, &tl);
    const char *id = pdp_value_entity_id(ac, &il);
    const pdp_evsig *e =
        pdp_evset_find(c->events, ac, t->tl_event_kind.s, t->tl_event_kind.len);
    if (e == NULL) {
        c->stop = true;
        return finding(c, c->leaf_pos,
                       "predicate `%.*s::\"%.*s\"::%.*s` does not name a "
                       "declared event (no event kind `%.*s` derived for "
                       "action `%.*s`)",
                       (int)tl, ty, (int)il, id, STR(t->tl_event_kind),
                       STR(t->tl_event_kind), (int)il, id);
    }
    for (uint32_t i = 0; i < t->tl_nargs; i++) {
        pdp_str f = t->tl_args[i].ta_path;
        switch (pdp_evsig_field(e, f.s, f.len, NULL)) {
        case PDP_EVF_LEAF:
            continue;
        case PDP_EVF_GROUP:
            c->stop = true;
            return finding(c, c->leaf_pos,
                           "predicate `%.*s::\"%.*s\"::%.*s` mentions `%.*s`, "
                           "which is a field group, not a field; address a "
                           "field inside it (e.g. `%.*s.<field>`)",
                           (int)tl, ty, (int)il, id, STR(t->tl_event_kind),
                           STR(f), STR(f));
        case PDP_EVF_ABSENT: {
            const char *decl = declared_fields(c, e);
            if (decl == NULL)
                return BOX_ENOMEM;
            c->stop = true;
            return finding(c, c->leaf_pos,
                           "predicate `%.*s::\"%.*s\"::%.*s` mentions field "
                           "`%.*s`, which is not declared on that event "
                           "(declared fields: %s)",
                           (int)tl, ty, (int)il, id, STR(t->tl_event_kind),
                           STR(f), decl);
        }
        }
    }
    return BOX_OK;
}

/* ---- TEMP-EntityType ---- */

static box_err
entity_term(tv_ctx *c, const pdp_tl *node, const pdp_tterm *t)
{
    if (t->tt_kind != PDP_TT_LIT || t->tt_lit == NULL ||
        pdp_value_kind_of(t->tt_lit) != PDP_VAL_ENTITY)
        return BOX_OK;
    size_t tl = 0, il = 0;
    const char *ty = pdp_value_entity_type(t->tt_lit, &tl);
    const char *id = pdp_value_entity_id(t->tt_lit, &il);
    // An action uid names no entity type (Cedar reserves `Action`).
    if (str_is(base_name(ty, tl), "Action"))
        return BOX_OK;
    const pdp_schema_entity *en = pdp_schema_entity_find(c->as, ty, tl);
    if (en != NULL) {
        if (!en->en_is_enum)
            return BOX_OK;
        for (uint32_t i = 0; i < en->en_nenum; i++)
            if (en->en_enum[i].len == il &&
                memcmp(en->en_enum[i].s, id, il) == 0)
                return BOX_OK;
        box_buf b;
        box_buf_init(&b, TV_MSG_MAX);
        box_err rv = box_buf_puts(&b, en->en_nenum == 0 ? "(none)" : "");
        for (uint32_t i = 0; i < en->en_nenum && rv == BOX_OK; i++) {
            rv = box_buf_puts(&b, i > 0 ? ", \"" : "\"");
            if (rv == BOX_OK)
                rv = put_eid(&b, en->en_enum[i].s, en->en_enum[i].len);
            if (rv == BOX_OK)
                rv = box_buf_putc(&b, '"');
        }
        const char *eid = eid_text(c, id, il);
        if (rv == BOX_OK && eid != NULL)
            rv = finding(c, node->tl_pos,
                         "`%.*s` is an enum entity type; `\"%s\"` is not one "
                         "of its permitted ids (%s)",
                         (int)tl, ty, eid, b.b_data);
        else if (rv == BOX_OK || rv == BOX_ETOOBIG)
            rv = BOX_ENOMEM;
        box_buf_reset(&b);
        return rv;
    }
    size_t n = pdp_schema_entity_count(c->as);
    box_buf b;
    box_buf_init(&b, TV_MSG_MAX);
    box_err rv = box_buf_puts(&b, n == 0 ? "the schema declares no entity "
                                           "types"
                                         : "known entity types: ");
    for (size_t i = 0; i < n && rv == BOX_OK; i++) {
        const pdp_schema_entity *e = pdp_schema_entity_at(c->as, i);
        if (i > 0)
            rv = box_buf_puts(&b, ", ");
        if (rv == BOX_OK)
            rv = box_buf_append(&b, e->en_name.s, e->en_name.len);
    }
    if (rv == BOX_OK || rv == BOX_ETOOBIG)
        rv = finding(c, node->tl_pos, "unknown entity type `%.*s`; %s", (int)tl,
                     ty, b.b_data);
    box_buf_reset(&b);
    return rv;
}

static box_err
entity_node(tv_ctx *c, const pdp_tl *t)
{
    return terms(c, t, entity_term);
}

/* ---- paths into the context and the scope ---- */

typedef enum pr_kind {
    PR_RESOLVED,
    PR_HEAD_MISSING,
    PR_NESTED_MISSING, // pr_seg is not a field of its record
    PR_NON_RECORD,     // pr_seg reads into a non-record
} pr_kind;

typedef struct path_res {
    pr_kind pr_k;
    pdp_str pr_seg;
    const pdp_type *pr_type;
} path_res;

/* segs[0..n) in record type rec (a context record, an entity's
 * attributes). */
static path_res
resolve_path(const pdp_type *rec, const pdp_str *segs, uint32_t n)
{
    path_res r = {PR_HEAD_MISSING, {"", 0}, NULL};
    if (n == 0 || rec == NULL || rec->ty_kind != PDP_TY_RECORD)
        return r;
    const pdp_attr *at = pdp_schema_record_attr(rec, segs[0].s, segs[0].len);
    if (at == NULL)
        return r;
    const pdp_type *cur = at->at_type;
    for (uint32_t i = 1; i < n; i++) {
        r.pr_seg = segs[i];
        if (cur->ty_kind != PDP_TY_RECORD) {
            r.pr_k = PR_NON_RECORD;
            return r;
        }
        if ((at = pdp_schema_record_attr(cur, segs[i].s, segs[i].len)) ==
            NULL) {
            r.pr_k = PR_NESTED_MISSING;
            return r;
        }
        cur = at->at_type;
    }
    r.pr_k = PR_RESOLVED;
    r.pr_type = cur;
    return r;
}

/* A dotted path as segments, in the scratch arena. */
static const pdp_str *
split_path(tv_ctx *c, pdp_str path, uint32_t *n)
{
    uint32_t k = 1;
    for (size_t i = 0; i < path.len; i++)
        k += path.s[i] == '.';
    pdp_str *segs = box_arena_alloc(c->a, k * sizeof(*segs));
    if (segs == NULL) {
        c->nomem = BOX_ENOMEM;
        return NULL;
    }
    size_t start = 0;
    *n = 0;
    for (size_t i = 0; i <= path.len; i++) {
        if (i == path.len || path.s[i] == '.') {
            segs[(*n)++] = (pdp_str){path.s + start, i - start};
            start = i + 1;
        }
    }
    return segs;
}

/* "a.b.c" of segs[0..n) in the scratch arena. */
static const char *
join_segs(tv_ctx *c, const pdp_str *segs, uint32_t n)
{
    size_t len = 1;
    for (uint32_t i = 0; i < n; i++)
        len += segs[i].len + 1;
    char *s = box_arena_alloc(c->a, len);
    if (s == NULL) {
        c->nomem = BOX_ENOMEM;
        return NULL;
    }
    size_t k = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (i > 0)
            s[k++] = '.';
        memcpy(s + k, segs[i].s, segs[i].len);
        k += segs[i].len;
    }
    s[k] = '\0';
    return s;
}

/* Dogwood's rich type of a schema type. */
static const rtype *
rt_of_type(tv_ctx *c, const pdp_type *t)
{
    switch (t->ty_kind) {
    case PDP_TY_BOOL:
    case PDP_TY_TRUE:
    case PDP_TY_FALSE:
        return &rt_bool;
    case PDP_TY_LONG:
        return &rt_long;
    case PDP_TY_STRING:
        return &rt_string;
    case PDP_TY_SET: {
        if (t->ty_elem == NULL)
            return &rt_array_any;
        const rtype *e = rt_of_type(c, t->ty_elem);
        rtype *a = rt_new(c, RT_ARRAY);
        if (a == NULL || e == NULL)
            return NULL;
        a->rt_e = RE_OF;
        a->rt_of = e;
        return a;
    }
    case PDP_TY_RECORD:
        return &rt_record;
    case PDP_TY_ENTITY: {
        rtype *e = rt_new(c, RT_ENTITY);
        if (e != NULL)
            e->rt_tag = base_name(t->ty_name.s, t->ty_name.len);
        return e;
    }
    case PDP_TY_EXT:
        // decimal matters to comparisons; the other extensions read as
        // strings (Dogwood's coarse projection)
        return str_is(base_name(t->ty_name.s, t->ty_name.len), "decimal")
                   ? &rt_decimal
                   : &rt_string;
    case PDP_TY_NEVER:
        return &rt_never;
    }
    return NULL;
}

/* The rule's scope for principal (true) or resource admits entity type
 * ety: `is T` names it, `== E` is of it, `in E` is of it or may be
 * within it. */
static bool
admits(const tv_ctx *c, const pdp_scope *sc, pdp_str ety)
{
    switch (sc->sc_op) {
    case PDP_SCOPE_ANY:
        return true;
    case PDP_SCOPE_IS:
    case PDP_SCOPE_IS_IN:
        return str_eq(ety, sc->sc_type);
    case PDP_SCOPE_EQ:
    case PDP_SCOPE_IN:
    case PDP_SCOPE_IN_SET:
        for (uint32_t i = 0; i < sc->sc_n; i++) {
            size_t tl = 0;
            const char *t = pdp_value_entity_type(sc->sc_ents[i], &tl);
            pdp_str ts = {t, tl};
            if (str_eq(ety, ts) ||
                (sc->sc_op != PDP_SCOPE_EQ &&
                 pdp_schema_entity_may_be_in(c->as, ety, ts)))
                return true;
        }
        return false;
    }
    return false;
}

static bool
admits_some(const tv_ctx *c, const pdp_scope *sc, const pdp_str *tys,
            uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        if (admits(c, sc, tys[i]))
            return true;
    return false;
}

/* Some request the rule's principal and resource scopes admit can carry
 * action act: otherwise the rule is never evaluated on it, and its
 * context is not held against the leaf. */
static bool
admits_env(const tv_ctx *c, const pdp_schema_action *act)
{
    return admits_some(c, &c->rule->r_principal, act->ac_principals,
                       act->ac_nprincipals) &&
           admits_some(c, &c->rule->r_resource, act->ac_resources,
                       act->ac_nresources);
}

/* The types a `principal` / `resource` term may be on action act. */
static const pdp_str *
scope_types(const tv_ctx *c, pdp_var root, uint32_t *n, const pdp_scope **sc)
{
    bool p = root == PDP_VAR_PRINCIPAL;
    *n = p ? c->act->ac_nprincipals : c->act->ac_nresources;
    *sc = p ? &c->rule->r_principal : &c->rule->r_resource;
    return p ? c->act->ac_principals : c->act->ac_resources;
}

/* A bare `principal` / `resource`: its one admitted type, tagged; an
 * untagged entity when several; unknown when none. */
static const rtype *
scope_root_type(tv_ctx *c, pdp_var root)
{
    uint32_t n;
    const pdp_scope *sc;
    const pdp_str *tys = scope_types(c, root, &n, &sc);
    const pdp_str *one = NULL;
    uint32_t k = 0;
    for (uint32_t i = 0; i < n; i++)
        if (admits(c, sc, tys[i])) {
            one = &tys[i];
            k++;
        }
    if (k == 0)
        return NULL;
    if (k > 1)
        return &rt_entity_any;
    rtype *t = rt_new(c, RT_ENTITY);
    if (t != NULL)
        t->rt_tag = base_name(one->s, one->len);
    return t;
}

typedef enum sp_kind {
    SP_RESOLVED,
    SP_UNKNOWN, // nothing to resolve against: no finding, no type
    SP_MISSING,
    SP_NON_RECORD,
    SP_AMBIGUOUS,
} sp_kind;

typedef struct scope_res {
    sp_kind sp_k;
    const rtype *sp_type;
    pdp_str sp_seg;
    const char *sp_list; // MISSING: the entity types; AMBIGUOUS: types
} scope_res;

typedef struct sp_one {
    pdp_str o_entity;
    bool o_ok;
    const rtype *o_type;
    bool o_nonrec;
    pdp_str o_seg;
} sp_one;

static int
sp_one_cmp(const void *x, const void *y)
{
    const sp_one *a = x, *b = y;
    return path_cmp(&a->o_entity, &b->o_entity);
}

static int
cstr_cmp(const void *x, const void *y)
{
    return strcmp(*(const char *const *)x, *(const char *const *)y);
}

/* segs (after the root) against the attributes of every entity type the
 * rule's scope admits on action c->act: one type when they all agree;
 * else why not. `id` and `type` project the uid (a string) unless an
 * attribute has that name. */
static scope_res
resolve_scope(tv_ctx *c, pdp_var root, const pdp_str *segs, uint32_t nsegs)
{
    scope_res r = {SP_UNKNOWN, NULL, {"", 0}, NULL};
    uint32_t n;
    const pdp_scope *sc;
    const pdp_str *tys = scope_types(c, root, &n, &sc);
    sp_one *all = box_arena_zalloc(c->a, (n + 1) * sizeof(*all));
    if (all == NULL) {
        c->nomem = BOX_ENOMEM;
        return r;
    }
    uint32_t k = 0, nfail = 0;
    for (uint32_t i = 0; i < n; i++) {
        if (!admits(c, sc, tys[i]))
            continue;
        const pdp_schema_entity *en =
            pdp_schema_entity_find(c->as, tys[i].s, tys[i].len);
        if (en == NULL)
            return r; // Cedar's validator names an unknown type
        sp_one *o = &all[k++];
        o->o_entity = en->en_name;
        const pdp_attr *at =
            pdp_schema_record_attr(en->en_attrs, segs[0].s, segs[0].len);
        if (at == NULL) {
            if (str_is(segs[0], "id") || str_is(segs[0], "type")) {
                o->o_ok = nsegs == 1;
                o->o_type = &rt_string;
                o->o_nonrec = true;
                o->o_seg = nsegs > 1 ? segs[1] : segs[0];
            } else {
                o->o_seg = segs[0];
            }
        } else {
            path_res pr = resolve_path(en->en_attrs, segs, nsegs);
            o->o_ok = pr.pr_k == PR_RESOLVED;
            o->o_nonrec = pr.pr_k == PR_NON_RECORD;
            o->o_seg = pr.pr_seg;
            if (o->o_ok)
                o->o_type = rt_of_type(c, pr.pr_type);
        }
        nfail += !o->o_ok;
    }
    if (k == 0)
        return r;
    qsort(all, k, sizeof(*all), sp_one_cmp);
    if (nfail > 0) {
        const sp_one *f = NULL;
        for (uint32_t i = 0; i < k && f == NULL; i++)
            if (!all[i].o_ok)
                f = &all[i];
        r.sp_k = f->o_nonrec ? SP_NON_RECORD : SP_MISSING;
        r.sp_seg = f->o_seg;
        box_buf b;
        box_buf_init(&b, TV_MSG_MAX);
        box_err rv = box_buf_puts(&b, "");
        bool first = true;
        for (uint32_t i = 0; i < k && rv == BOX_OK; i++) {
            if (all[i].o_ok || all[i].o_nonrec != f->o_nonrec ||
                !str_eq(all[i].o_seg, f->o_seg))
                continue;
            if (!first)
                rv = box_buf_puts(&b, "`, `");
            if (rv == BOX_OK)
                rv = box_buf_append(&b, all[i].o_entity.s, all[i].o_entity.len);
            first = false;
        }
        if ((rv == BOX_OK || rv == BOX_ETOOBIG) && b.b_data != NULL)
            r.sp_list = box_arena_strndup(c->a, b.b_data, b.b_len);
        if (r.sp_list == NULL)
            c->nomem = BOX_ENOMEM;
        box_buf_reset(&b);
        return r;
    }
    const char **names = box_arena_alloc(c->a, k * sizeof(*names));
    if (names == NULL) {
        c->nomem = BOX_ENOMEM;
        return r;
    }
    uint32_t nn = 0;
    for (uint32_t i = 0; i < k; i++) {
        if (all[i].o_type == NULL)
            return r; // out of memory, noted
        bool seen = false;
        for (uint32_t j = 0; j < i && !seen; j++)
            seen = rt_eq(all[j].o_type, all[i].o_type);
        if (!seen && (names[nn++] = rt_text(c, all[i].o_type, false)) == NULL) {
            c->nomem = BOX_ENOMEM;
            return r;
        }
    }
    if (nn == 1) {
        r.sp_k = SP_RESOLVED;
        r.sp_type = all[0].o_type;
        return r;
    }
    qsort(names, nn, sizeof(*names), cstr_cmp);
    box_buf b;
    box_buf_init(&b, TV_MSG_MAX);
    box_err rv = box_buf_puts(&b, "");
    for (uint32_t i = 0; i < nn && rv == BOX_OK; i++) {
        if (i > 0)
            rv = box_buf_puts(&b, "`, `");
        if (rv == BOX_OK)
            rv = box_buf_puts(&b, names[i]);
    }
    r.sp_k = SP_AMBIGUOUS;
    if ((rv == BOX_OK || rv == BOX_ETOOBIG) && b.b_data != NULL)
        r.sp_list = box_arena_strndup(c->a, b.b_data, b.b_len);
    if (r.sp_list == NULL)
        c->nomem = BOX_ENOMEM;
    box_buf_reset(&b);
    return r;
}

/* ---- TEMP-ContextPath ---- */

/* How Dogwood names an action in these messages: `Ns::id`. */
static const char *
action_ref(tv_ctx *c, const pdp_schema_action *a)
{
    box_buf b;
    box_buf_init(&b, TV_MSG_MAX);
    pdp_str ns = a->ac_type;
    if (ns.len >= 8 && memcmp(ns.s + ns.len - 8, "::Action", 8) == 0)
        ns.len -= 8;
    else
        ns.len = 0;
    box_err rv = box_buf_append(&b, ns.s, ns.len);
    if (rv == BOX_OK && ns.len > 0)
        rv = box_buf_puts(&b, "::");
    if (rv == BOX_OK)
        rv = put_eid(&b, a->ac_id.s, a->ac_id.len);
    char *s = NULL;
    if ((rv == BOX_OK || rv == BOX_ETOOBIG) && b.b_data != NULL)
        s = box_arena_strndup(c->a, b.b_data, b.b_len);
    if (s == NULL)
        c->nomem = BOX_ENOMEM;
    box_buf_reset(&b);
    return s;
}

static box_err
context_term(tv_ctx *c, const pdp_tl *node, const pdp_tterm *t)
{
    if (t->tt_kind == PDP_TT_CONTEXT) {
        path_res r = resolve_path(c->act->ac_context, t->tt_segs, t->tt_nsegs);
        const char *ref, *path;
        switch (r.pr_k) {
        case PR_RESOLVED:
            return BOX_OK;
        case PR_HEAD_MISSING:
            if ((ref = action_ref(c, c->act)) == NULL)
                return BOX_ENOMEM;
            return finding(c, node->tl_pos,
                           "action `%s` has no context field `%.*s` for "
                           "`context.%.*s`",
                           ref, STR(t->tt_segs[0]), STR(t->tt_segs[0]));
        case PR_NESTED_MISSING:
            if ((path = join_segs(c, t->tt_segs, t->tt_nsegs)) == NULL)
                return BOX_ENOMEM;
            return finding(c, node->tl_pos,
                           "record has no field `%.*s` in `context.%s` path",
                           STR(r.pr_seg), path);
        case PR_NON_RECORD:
            return finding(c, node->tl_pos,
                           "`%.*s` accesses a field of a non-record type",
                           STR(r.pr_seg));
        }
        return BOX_OK;
    }
    if (t->tt_kind != PDP_TT_SCOPE || t->tt_nsegs == 0)
        return BOX_OK;
    const char *root =
        t->tt_var == PDP_VAR_PRINCIPAL ? "principal" : "resource";
    const char *tail = join_segs(c, t->tt_segs, t->tt_nsegs);
    if (tail == NULL)
        return BOX_ENOMEM;
    scope_res r = resolve_scope(c, t->tt_var, t->tt_segs, t->tt_nsegs);
    if (c->nomem != BOX_OK)
        return c->nomem;
    switch (r.sp_k) {
    case SP_RESOLVED:
    case SP_UNKNOWN:
        return BOX_OK;
    case SP_MISSING:
        return finding(c, node->tl_pos,
                       "`%s.%s` does not resolve for every entity the rule's "
                       "`%s` may be: `%s` declares no attribute `%.*s`, so "
                       "for those requests the comparison can never match "
                       "and the condition is permanently false. Narrow the "
                       "rule's scope (`%s is <type>`) if only some types "
                       "are meant.",
                       root, tail, root, r.sp_list, STR(r.sp_seg), root);
    case SP_NON_RECORD:
        return finding(c, node->tl_pos,
                       "`%.*s` accesses a field of a non-record type in "
                       "`%s.%s`",
                       STR(r.sp_seg), root, tail);
    case SP_AMBIGUOUS:
        return finding(c, node->tl_pos,
                       "`%s.%s` has a different type on each entity the "
                       "action's `%s` may be (`%s`), so the condition cannot "
                       "be checked against one type; it is evaluated "
                       "whichever entity the request carries",
                       root, tail, root, r.sp_list);
    }
    return BOX_OK;
}

static box_err
context_node(tv_ctx *c, const pdp_tl *t)
{
    return terms(c, t, context_term);
}

/* ---- TEMP-Type ---- */

static box_err
env_push(tv_ctx *c, pdp_str name, const rtype *t, const pdp_tbinder *b)
{
    if (t == NULL)
        return c->nomem != BOX_OK ? c->nomem : BOX_OK;
    if (c->nenv == c->envcap) {
        size_t nc = c->envcap ? c->envcap * 2 : 16;
        tv_var *nv = box_arena_alloc(c->a, nc * sizeof(*nv));
        if (nv == NULL)
            return BOX_ENOMEM;
        if (c->nenv > 0)
            memcpy(nv, c->env, c->nenv * sizeof(*nv));
        c->env = nv;
        c->envcap = nc;
    }
    c->env[c->nenv++] = (tv_var){name, t, b};
    return BOX_OK;
}

/* The innermost (last) declaration of name. */
static const tv_var *
env_get(const tv_ctx *c, pdp_str name)
{
    for (size_t i = c->nenv; i-- > 0;)
        if (str_eq(c->env[i].v_name, name))
            return &c->env[i];
    return NULL;
}

/* A binder's declared type: Timepoint, the scalars by the last segment
 * of their name, any other name an entity of that base name. */
static const rtype *
rt_of_binder(tv_ctx *c, const pdp_tbinder *b)
{
    if (str_is(b->tb_type, "Timepoint"))
        return &rt_timepoint;
    pdp_str last = base_name(b->tb_type.s, b->tb_type.len);
    if (str_is(last, "Long"))
        return &rt_long;
    if (str_is(last, "String"))
        return &rt_string;
    if (str_is(last, "Bool") || str_is(last, "Boolean"))
        return &rt_bool;
    if (str_is(last, "decimal") || str_is(last, "Decimal"))
        return &rt_decimal;
    rtype *t = rt_new(c, RT_ENTITY);
    if (t != NULL)
        t->rt_tag = last;
    return t;
}

/* Every binder of the leaf by its declared type (exists, and the `for`
 * lists of aggregates), in walk order: a later one wins a name. */
static box_err
binder_node(tv_ctx *c, const pdp_tl *t)
{
    if (t->tl_kind == PDP_TL_EXISTS)
        return env_push(c, t->tl_binder.tb_name, rt_of_binder(c, &t->tl_binder),
                        &t->tl_binder);
    if (t->tl_kind != PDP_TL_CMP)
        return BOX_OK;
    const pdp_tterm *ops[2] = {t->tl_a, t->tl_b};
    for (int k = 0; k < 2; k++) {
        if (!is_agg(ops[k]))
            continue;
        const pdp_tagg *g = ops[k]->tt_agg;
        for (uint32_t i = 0; i < g->ta_nfor; i++)
            BOX_TRY(env_push(c, g->ta_for[i].tb_name,
                             rt_of_binder(c, &g->ta_for[i]), &g->ta_for[i]));
    }
    return BOX_OK;
}

static const rtype *term_type(tv_ctx *c, const pdp_tterm *t, bool bare);

/* An array literal: empty is a bare array, one type throughout an array
 * of it, anything else mixed (items typed without variables or schema). */
static const rtype *
array_type(tv_ctx *c, const pdp_tterm *t)
{
    if (t->tt_nitems == 0)
        return &rt_array_any;
    const rtype *first = term_type(c, t->tt_items[0], true);
    if (first == NULL)
        return &rt_array_mixed;
    for (uint32_t i = 1; i < t->tt_nitems; i++) {
        const rtype *e = term_type(c, t->tt_items[i], true);
        if (e == NULL ||
            !(rt_eq(e, first) || (rt_numeric(e) && rt_numeric(first))))
            return &rt_array_mixed;
    }
    rtype *a = rt_new(c, RT_ARRAY);
    if (a != NULL) {
        a->rt_e = RE_OF;
        a->rt_of = first;
    }
    return a;
}

/* The rich type of a term, or NULL when it has none (a wildcard, an
 * unknown variable or path). bare: no variables and no schema. */
static const rtype *
term_type(tv_ctx *c, const pdp_tterm *t, bool bare)
{
    switch (t->tt_kind) {
    case PDP_TT_LIT:
        switch (pdp_value_kind_of(t->tt_lit)) {
        case PDP_VAL_LONG:
            return &rt_long;
        case PDP_VAL_STRING:
            return &rt_string;
        case PDP_VAL_BOOL:
            return &rt_bool;
        case PDP_VAL_ENTITY: {
            size_t tl = 0;
            const char *ty = pdp_value_entity_type(t->tt_lit, &tl);
            rtype *e = rt_new(c, RT_ENTITY);
            if (e != NULL)
                e->rt_tag = base_name(ty, tl);
            return e;
        }
        default:
            return NULL;
        }
    case PDP_TT_DECIMAL:
        return &rt_decimal;
    case PDP_TT_CONTEXT: {
        if (bare || c->act == NULL)
            return NULL;
        path_res r = resolve_path(c->act->ac_context, t->tt_segs, t->tt_nsegs);
        return r.pr_k == PR_RESOLVED ? rt_of_type(c, r.pr_type) : NULL;
    }
    case PDP_TT_SCOPE: {
        if (bare || c->act == NULL)
            return NULL;
        if (t->tt_nsegs == 0)
            return scope_root_type(c, t->tt_var);
        scope_res r = resolve_scope(c, t->tt_var, t->tt_segs, t->tt_nsegs);
        return r.sp_k == SP_RESOLVED ? r.sp_type : NULL;
    }
    case PDP_TT_VAR: {
        const tv_var *v = bare ? NULL : env_get(c, t->tt_name);
        return v != NULL ? v->v_type : NULL;
    }
    case PDP_TT_ARRAY:
        return array_type(c, t);
    case PDP_TT_COUNT:
    case PDP_TT_SUM:
        return &rt_long;
    case PDP_TT_WILD:
        return NULL;
    }
    return NULL;
}

/* The schema action a predicate names (its namespace ends in Action). */
static const pdp_schema_action *
predicate_action(const tv_ctx *c, const pdp_tl *t)
{
    size_t tl = 0;
    const char *ty = pdp_value_entity_type(t->tl_action, &tl);
    if (!str_is(base_name(ty, tl), "Action"))
        return NULL;
    return pdp_schema_action_find(c->as, t->tl_action);
}

static box_err
type_pred(tv_ctx *c, const pdp_tl *t)
{
    const pdp_schema_action *pa = predicate_action(c, t);
    if (pa == NULL)
        return BOX_OK;
    for (uint32_t i = 0; i < t->tl_nargs; i++) {
        const pdp_targ *arg = &t->tl_args[i];
        uint32_t n = 0;
        const pdp_str *segs = split_path(c, arg->ta_path, &n);
        if (segs == NULL)
            return BOX_ENOMEM;
        // A predicate field is typed as the same path in the predicate
        // action's context (input.mode as context.input.mode).
        path_res r = resolve_path(pa->ac_context, segs, n);
        if (r.pr_k != PR_RESOLVED)
            continue;
        const rtype *want = rt_of_type(c, r.pr_type);
        const rtype *got = term_type(c, arg->ta_term, false);
        if (want == NULL || got == NULL || rt_accepts(want, got))
            continue;
        const char *ws = rt_text(c, want, true), *gs = rt_text(c, got, true);
        const char *act = eid_text(c, pa->ac_id.s, pa->ac_id.len);
        if (ws == NULL || gs == NULL || act == NULL)
            return BOX_ENOMEM;
        BOX_TRY(finding(c, t->tl_pos,
                        "argument `%.*s` of `%s` expects `%s` but got `%s`",
                        STR(arg->ta_path), act, ws, gs));
    }
    return BOX_OK;
}

static box_err
type_node(tv_ctx *c, const pdp_tl *t)
{
    if (t->tl_kind == PDP_TL_PRED)
        return type_pred(c, t);
    if (t->tl_kind == PDP_TL_TP) {
        pdp_str x = t->tl_binder.tb_name;
        const tv_var *v = env_get(c, x);
        if (v == NULL || v->v_type->rt_k == RT_TIMEPOINT)
            return BOX_OK;
        const char *ts = rt_text(c, v->v_type, true);
        if (ts == NULL)
            return BOX_ENOMEM;
        return finding(c, t->tl_pos,
                       "`tp(%.*s)` binds `%.*s` to the current timepoint, but "
                       "`%.*s` is declared `%s`; a `tp` variable must be "
                       "declared `Timepoint`",
                       STR(x), STR(x), STR(x), ts);
    }
    if (t->tl_kind != PDP_TL_CMP)
        return BOX_OK;
    const rtype *l = term_type(c, t->tl_a, false);
    const rtype *r = term_type(c, t->tl_b, false);
    if (l == NULL || r == NULL)
        return BOX_OK;
    bool ordering = t->tl_op != PDP_TOP_EQ;
    bool bad =
        ordering ? !(rt_numeric(l) && rt_numeric(r)) : !rt_compatible(l, r);
    if (!bad)
        return BOX_OK;
    const char *ls = rt_text(c, l, true), *rs = rt_text(c, r, true);
    if (ls == NULL || rs == NULL)
        return BOX_ENOMEM;
    if (ordering)
        return finding(c, t->tl_pos,
                       "comparison requires numeric operands on both sides, "
                       "got `%s` and `%s`",
                       ls, rs);
    return finding(c, t->tl_pos,
                   "equality requires both sides to have the same type, got "
                   "`%s` and `%s`",
                   ls, rs);
}

/* The leaf typed for one action the rule reaches (act NULL: one the
 * schema does not declare): its input fields and the binders are the
 * variables in scope. */
static box_err
types_for(tv_ctx *c, const pdp_tl *tl, const pdp_schema_action *act)
{
    c->act = act;
    c->nenv = 0;
    const pdp_attr *in =
        act != NULL ? pdp_schema_record_attr(act->ac_context, "input", 5)
                    : NULL;
    if (in != NULL && in->at_type->ty_kind == PDP_TY_RECORD)
        for (uint32_t i = 0; i < in->at_type->ty_nattrs; i++) {
            const pdp_attr *f = &in->at_type->ty_attrs[i];
            BOX_TRY(env_push(c, f->at_name, rt_of_type(c, f->at_type), NULL));
        }
    BOX_TRY(walk(c, tl, binder_node));
    return walk(c, tl, type_node);
}

/* ---- a sum's summand is a Long ---- */

static box_err
sum_term(tv_ctx *c, const pdp_tl *node, const pdp_tterm *t)
{
    (void)node;
    if (t->tt_kind != PDP_TT_SUM)
        return BOX_OK;
    pdp_str s = t->tt_agg->ta_sum;
    const tv_var *v = env_get(c, s);
    if (v == NULL || v->v_binder == NULL)
        return BOX_OK; // the parse stage reported it
    pdp_str ty = v->v_binder->tb_type;
    pdp_str last = base_name(ty.s, ty.len);
    if (str_is(ty, "Timepoint"))
        return finding(c, t->tt_pos,
                       "cannot sum `%.*s`: sum requires a `Long` summand, but "
                       "`%.*s` is `Timepoint`. Timepoints are ordinal "
                       "positions, not quantities — use a Timepoint in the "
                       "`for (…)` binders to keep per-timepoint rows, not as "
                       "the value being summed.",
                       STR(s), STR(s));
    if (str_is(last, "Long"))
        return BOX_OK;
    if (str_is(last, "decimal") || str_is(last, "Decimal"))
        return finding(c, t->tt_pos,
                       "cannot sum `%.*s`: sum requires a `Long` summand, but "
                       "`%.*s` is `Decimal`. Dogwood arithmetic operates only "
                       "on `Long` values, not decimals.",
                       STR(s), STR(s));
    return finding(c, t->tt_pos,
                   "cannot sum `%.*s`: sum requires a `Long` summand, but "
                   "`%.*s` is `%.*s`.",
                   STR(s), STR(s), STR(ty));
}

static box_err
sum_node(tv_ctx *c, const pdp_tl *t)
{
    return terms(c, t, sum_term);
}

/* ---- the actions a rule reaches ---- */

static bool
listed(const pdp_schema_action *const *acts, size_t n,
       const pdp_schema_action *a)
{
    for (size_t i = 0; i < n; i++)
        if (acts[i] == a)
            return true;
    return false;
}

/*
 * What the rule's action scope resolves to: `==` its action; `in` a list
 * or a group every action (with appliesTo) in one of them, transitively,
 * list order first; unconstrained every action. A named action the
 * schema lacks is a NULL entry (Cedar's validator reports it).
 */
static box_err
targets(tv_ctx *c, const pdp_schema_action ***out, size_t *n)
{
    const pdp_scope *sc = &c->rule->r_action;
    size_t na = pdp_schema_action_count(c->as);
    size_t cap = na + sc->sc_n + 1;
    const pdp_schema_action **acts = box_arena_alloc(c->a, cap * sizeof(*acts));
    if (acts == NULL)
        return BOX_ENOMEM;
    *n = 0;
    if (sc->sc_op == PDP_SCOPE_EQ) {
        acts[(*n)++] = pdp_schema_action_find(c->as, sc->sc_ents[0]);
    } else if (sc->sc_op == PDP_SCOPE_IN || sc->sc_op == PDP_SCOPE_IN_SET) {
        for (uint32_t g = 0; g < sc->sc_n; g++) {
            if (pdp_schema_action_find(c->as, sc->sc_ents[g]) == NULL) {
                acts[(*n)++] = NULL;
                continue;
            }
            for (size_t i = 0; i < na; i++) {
                const pdp_schema_action *a = pdp_schema_action_at(c->as, i);
                if (a->ac_applies &&
                    pdp_schema_action_in(c->as, a, sc->sc_ents[g]) &&
                    !listed(acts, *n, a))
                    acts[(*n)++] = a;
            }
        }
    } else {
        for (size_t i = 0; i < na; i++) {
            const pdp_schema_action *a = pdp_schema_action_at(c->as, i);
            if (a->ac_applies)
                acts[(*n)++] = a;
        }
    }
    *out = acts;
    return BOX_OK;
}

/* ---- one leaf, and the walk over the rules ---- */

static box_err
leaf(tv_ctx *c, const pdp_tl *tl)
{
    box_arena_reset(c->a);
    c->leaf_first = pdp_validate_result_count(c->out);
    c->leaf_pos = tl->tl_pos;
    c->stop = false;
    c->act = NULL;
    c->env = NULL;
    c->nenv = c->envcap = 0;
    c->nomem = BOX_OK;
    int64_t amount = 0;
    char unit = 0;
    pdp_evschema_max_window_written(c->es, &amount, &unit);
    const pdp_schema_action **acts = NULL;
    size_t nacts = 0;
    box_err rv;

    if ((rv = walk(c, tl, names_node)) != BOX_OK)
        goto out;
    rv = pdp_tl_check_windows(tl, c->src, (pdp_tl_window){amount, unit},
                              checked, c);
    if (rv != BOX_OK)
        goto out;
    if ((rv = walk(c, tl, entity_node)) != BOX_OK)
        goto out;
    if ((rv = targets(c, &acts, &nacts)) != BOX_OK)
        goto out;
    for (size_t i = 0; i < nacts; i++) {
        if (acts[i] == NULL || !admits_env(c, acts[i]))
            continue;
        c->act = acts[i];
        if ((rv = walk(c, tl, context_node)) != BOX_OK)
            goto out;
    }
    if ((rv = pdp_tl_check_tpdep(tl, checked, c)) != BOX_OK)
        goto out;
    for (size_t i = 0; i < nacts; i++) {
        if (acts[i] != NULL && !admits_env(c, acts[i]))
            continue;
        if ((rv = types_for(c, tl, acts[i])) != BOX_OK)
            goto out;
    }
    // Summands by their binders alone.
    c->act = NULL;
    c->nenv = 0;
    if ((rv = walk(c, tl, binder_node)) != BOX_OK)
        goto out;
    rv = walk(c, tl, sum_node);
out:
    if (rv == BOX_OK)
        rv = c->nomem;
    return rv;
}

typedef struct tv_visit {
    tv_ctx *v_c;
    box_err v_rv;
} tv_visit;

static bool
visit_leaf(void *arg, const pdp_expr *e)
{
    tv_visit *v = arg;
    if (e->x_kind != PDP_X_TEMPORAL)
        return false;
    v->v_rv = leaf(v->v_c, e->u.tl);
    return v->v_rv != BOX_OK;
}

box_err
pdp_tl_validate(const pdp_ast *ast, const pdp_schema *as,
                const pdp_evschema *es, const pdp_evset *events,
                const pdp_tl_src *src, pdp_validate_result *out)
{
    tv_ctx c;
    memset(&c, 0, sizeof(c));
    c.as = as;
    c.es = es;
    c.events = events;
    c.src = src;
    c.file = src->ts_file != NULL ? src->ts_file : "<policy>";
    c.out = out;
    if ((c.a = box_arena_new(TV_SCRATCH_MAX)) == NULL)
        return BOX_ENOMEM;
    tv_visit v = {&c, BOX_OK};
    for (uint32_t i = 0; i < ast->as_nrules && v.v_rv == BOX_OK; i++) {
        c.rule = ast->as_rules[i];
        for (uint32_t j = 0; j < c.rule->r_nconds && v.v_rv == BOX_OK; j++)
            (void)pdp_expr_visit(c.rule->r_conds[j].cd_body, visit_leaf, &v);
    }
    box_arena_free(c.a);
    return v.v_rv;
}
