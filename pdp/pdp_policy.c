/* SPDX-License-Identifier: Apache-2.0 */
/* Policy set loading: parse, Box load checks (§6.2 steps 5–9), action index. */
#include "pdp_policy.h"

#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_arena.h"
#include "box_escape.h"
#include "pdp_cap.h"
#include "pdp_int.h"
#include "pdp_message.h"
#include "pdp_parse.h"
#include "pdp_reads.h"
#include "pdp_tl.h"
#include "pdp_tl_validate.h"

/* One index slot: the rules whose action scope names this action. */
typedef struct pdp_bucket {
    const pdp_value *bk_action; // NULL = empty slot
    const pdp_rule **bk_rules;
    uint32_t bk_n;
    uint32_t bk_cap;
    const pdp_reads *bk_reads; // what bk_rules and the set's any rules read
} pdp_bucket;

struct pdp_policy_set {
    box_arena *pl_arena; // owns the AST, its values and the index
    const pdp_ast *pl_ast;
    pdp_bucket *pl_table; // open addressing, pl_mask + 1 slots
    uint32_t pl_mask;
    const pdp_rule **pl_any; // rules with an unconstrained action scope
    uint32_t pl_nany;
    const pdp_reads *pl_any_reads; // what pl_any reads (other actions)
    const pdp_schema *pl_schema;   // requests are validated against it
    pdp_schema *pl_own_schema;     // the built-in schema when the set owns it
    bool pl_temporal;              // some rule has a temporal condition
    int64_t pl_window;             // how far back those read (seconds)
    // Which decisions the history touches: every one (pl_hist_all), or
    // those of an action a temporal predicate names or a temporal rule's
    // scope admits (pl_hist_actions).
    bool pl_hist_all;
    const pdp_value **pl_hist_actions;
    uint32_t pl_nhist, pl_caphist;
    // The actions whose outcomes a predicate reads.
    const pdp_value **pl_out_actions;
    uint32_t pl_nout, pl_capout;
    box_err pl_hist_err;     // out of memory while collecting: treat as all
    pdp_entities pl_actions; // the schema's grouped actions (es_n 0: none)
};

/* ---- naming ---- */

pdp_str
pdp_rule_display_id(const pdp_rule *r)
{
    const pdp_annot *an = pdp_rule_annot(r, "id");
    if (an != NULL && !pdp_str_blank(an->an_value))
        return an->an_value;
    return r->r_pid;
}

pdp_str
pdp_rule_description(const pdp_rule *r)
{
    const pdp_annot *an = pdp_rule_annot(r, "description");
    if (an != NULL && !pdp_str_blank(an->an_value))
        return an->an_value;
    pdp_str none = {NULL, 0};
    return none;
}

/* ---- §6.2 step 5: one @id on several rules ---- */

typedef struct id_use {
    pdp_str iu_id;
    uint32_t iu_rule; // 0-based
} id_use;

static int
id_use_cmp(const void *x, const void *y)
{
    const id_use *a = x, *b = y;
    size_t n = a->iu_id.len < b->iu_id.len ? a->iu_id.len : b->iu_id.len;
    int c = memcmp(a->iu_id.s, b->iu_id.s, n);
    if (c != 0)
        return c;
    if (a->iu_id.len != b->iu_id.len)
        return a->iu_id.len < b->iu_id.len ? -1 : 1;
    return a->iu_rule < b->iu_rule ? -1 : a->iu_rule > b->iu_rule;
}

static bool
same_id(const id_use *a, const id_use *b)
{
    return a->iu_id.len == b->iu_id.len &&
           memcmp(a->iu_id.s, b->iu_id.s, a->iu_id.len) == 0;
}

static box_err
check_duplicate_ids(const pdp_ast *ast, box_buf *msg)
{
    box_err rv = BOX_OK;
    id_use *uses = box_calloc(ast->as_nrules + 1, sizeof(*uses));
    if (uses == NULL)
        return BOX_ENOMEM;
    size_t n = 0;
    for (uint32_t i = 0; i < ast->as_nrules; i++) {
        const pdp_annot *an = pdp_rule_annot(ast->as_rules[i], "id");
        if (an != NULL && !pdp_str_blank(an->an_value)) {
            uses[n].iu_id = an->an_value;
            uses[n].iu_rule = i;
            n++;
        }
    }
    qsort(uses, n, sizeof(*uses), id_use_cmp);
    bool any = false;
    for (size_t i = 0; i < n && rv == BOX_OK;) {
        size_t j = i + 1;
        while (j < n && same_id(&uses[i], &uses[j]))
            j++;
        if (j - i >= 2) {
            rv = box_buf_puts(msg, any ? "; @id(\""
                                       : "policy gives one @id to more than "
                                         "one rule: @id(\"");
            if (rv == BOX_OK)
                rv = box_escape_debug_str(msg, uses[i].iu_id.s,
                                          uses[i].iu_id.len);
            if (rv == BOX_OK)
                rv = box_buf_puts(msg, "\") is on rules ");
            for (size_t k = i; k < j && rv == BOX_OK; k++)
                rv = box_buf_printf(msg, "%s%u", k > i ? ", " : "",
                                    uses[k].iu_rule + 1);
            any = true;
        }
        i = j;
    }
    if (rv == BOX_OK && any)
        rv = box_buf_puts(msg, "; a denial and a telemetry record name a rule "
                               "by its @id, so give each rule its own @id");
    box_free(uses);
    if (rv == BOX_OK && any)
        return BOX_ECONFIG;
    return rv;
}

/* ---- §6.2 step 6: rules that name only fs:other ---- */

static bool
is_fs_other(const pdp_value *v)
{
    return v->u.ent.tlen == 11 &&
           memcmp(v->u.ent.type, "Box::Action", 11) == 0 &&
           v->u.ent.idlen == 8 && memcmp(v->u.ent.id, "fs:other", 8) == 0;
}

static bool
names_only_reserved(const pdp_rule *r)
{
    const pdp_scope *sc = &r->r_action;
    if (sc->sc_op == PDP_SCOPE_ANY || sc->sc_n == 0)
        return false;
    for (uint32_t i = 0; i < sc->sc_n; i++) {
        if (!is_fs_other(sc->sc_ents[i]))
            return false;
    }
    return true;
}

static box_err
check_reserved_actions(const pdp_ast *ast, box_buf *msg)
{
    box_err rv = BOX_OK;
    bool any = false;
    for (uint32_t i = 0; i < ast->as_nrules && rv == BOX_OK; i++) {
        const pdp_rule *r = ast->as_rules[i];
        if (!names_only_reserved(r))
            continue;
        rv = box_buf_puts(msg, any ? "; "
                                   : "policy names only a reserved "
                                     "action: ");
        if (rv == BOX_OK)
            rv = pdp_rule_put_name(msg, r);
        if (rv == BOX_OK)
            rv = box_buf_puts(msg, " names only the reserved action "
                                   "\"fs:other\"");
        any = true;
    }
    if (rv == BOX_OK && any)
        rv = box_buf_puts(msg, "; no operation raises it, so the rule cannot "
                               "match; name fs:read, fs:write, fs:delete, or "
                               "fs:move, alone or beside fs:other");
    if (rv == BOX_OK && any)
        return BOX_ECONFIG;
    return rv;
}

/* ---- the action index ---- */

static uint32_t
action_hash(const pdp_value *v)
{
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < v->u.ent.tlen; i++)
        h = (h ^ (unsigned char)v->u.ent.type[i]) * 16777619u;
    h = (h ^ 0xFFu) * 16777619u; // separator: types hold no 0xFF byte
    for (size_t i = 0; i < v->u.ent.idlen; i++)
        h = (h ^ (unsigned char)v->u.ent.id[i]) * 16777619u;
    return h;
}

static pdp_bucket *
bucket_find(const pdp_policy_set *set, const pdp_value *action)
{
    if (set->pl_table == NULL)
        return NULL;
    uint32_t i = action_hash(action) & set->pl_mask;
    for (;;) {
        pdp_bucket *b = &set->pl_table[i];
        if (b->bk_action == NULL || pdp_entity_eq(b->bk_action, action))
            return b;
        i = (i + 1) & set->pl_mask;
    }
}

static box_err
push_rule(box_arena *a, const pdp_rule ***arr, uint32_t *n, uint32_t *cap,
          const pdp_rule *r)
{
    if (*n > 0 && (*arr)[*n - 1] == r)
        return BOX_OK; // the same action twice in one list
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 4;
        const pdp_rule **na = box_arena_alloc(a, nc * sizeof(*na));
        if (na == NULL)
            return BOX_ENOMEM;
        if (*n)
            memcpy(na, *arr, *n * sizeof(*na));
        *arr = na;
        *cap = nc;
    }
    (*arr)[(*n)++] = r;
    return BOX_OK;
}

/* Adds action to a set of actions (arena arrays), once. */
static void
action_list_add(pdp_policy_set *set, const pdp_value ***arr, uint32_t *n,
                uint32_t *cap, const pdp_value *action)
{
    for (uint32_t i = 0; i < *n; i++)
        if (pdp_value_equal((*arr)[i], action))
            return;
    if (*n == *cap) {
        uint32_t nc = *cap ? *cap * 2 : 8;
        const pdp_value **nv = box_arena_alloc(set->pl_arena, nc * sizeof *nv);
        if (nv == NULL) {
            set->pl_hist_err = BOX_ENOMEM;
            return;
        }
        if (*n > 0)
            memcpy(nv, *arr, *n * sizeof *nv);
        *arr = nv;
        *cap = nc;
    }
    (*arr)[(*n)++] = action;
}

static void
note_action(void *arg, const pdp_value *action)
{
    pdp_policy_set *set = arg;
    action_list_add(set, &set->pl_hist_actions, &set->pl_nhist,
                    &set->pl_caphist, action);
}

/* A predicate on an action's outcomes (`::response`, `::error`): a
 * permit of that action is pending until its outcome is known. */
static void
note_outcome_pred(void *arg, const pdp_tl *pred)
{
    pdp_policy_set *set = arg;
    pdp_str k = pred->tl_event_kind;
    if ((k.len == 8 && memcmp(k.s, "response", 8) == 0) ||
        (k.len == 5 && memcmp(k.s, "error", 5) == 0))
        action_list_add(set, &set->pl_out_actions, &set->pl_nout,
                        &set->pl_capout, pred->tl_action);
}

/* pl_temporal, pl_window and what the history touches, from every
 * temporal leaf of every rule. */
static bool
note_temporal(void *arg, const pdp_expr *e)
{
    pdp_policy_set *set = arg;
    if (e->x_kind == PDP_X_TEMPORAL) {
        int64_t w = pdp_tl_max_window(e->u.tl);
        set->pl_temporal = true;
        set->pl_window = w > set->pl_window ? w : set->pl_window;
        pdp_tl_reads(e->u.tl, note_action, set, &set->pl_hist_all);
        pdp_tl_each_pred(e->u.tl, note_outcome_pred, set);
    }
    return false; // every node
}

static void
find_temporal(pdp_policy_set *set)
{
    for (uint32_t i = 0; i < set->pl_ast->as_nrules; i++) {
        const pdp_rule *r = set->pl_ast->as_rules[i];
        bool before = set->pl_temporal;
        set->pl_temporal = false;
        for (uint32_t j = 0; j < r->r_nconds; j++)
            (void)pdp_expr_visit(r->r_conds[j].cd_body, note_temporal, set);
        if (set->pl_temporal) {
            // The rule's own verdict reads history: so does every decision
            // of an action its scope admits.
            if (r->r_action.sc_op == PDP_SCOPE_ANY)
                set->pl_hist_all = true;
            for (uint32_t k = 0; k < r->r_action.sc_n; k++)
                note_action(set, r->r_action.sc_ents[k]);
        }
        set->pl_temporal |= before;
    }
    if (set->pl_hist_err != BOX_OK)
        set->pl_hist_all = true;
}

bool
pdp_policy_history_reads(const pdp_policy_set *set, const pdp_value *action)
{
    if (!set->pl_temporal)
        return false;
    if (set->pl_hist_all)
        return true;
    for (uint32_t i = 0; i < set->pl_nhist; i++)
        if (pdp_value_equal(set->pl_hist_actions[i], action))
            return true;
    return false;
}

bool
pdp_policy_outcome_reads(const pdp_policy_set *set, const pdp_value *action)
{
    for (uint32_t i = 0; set->pl_temporal && i < set->pl_nout; i++)
        if (pdp_value_equal(set->pl_out_actions[i], action))
            return true;
    return false;
}

bool
pdp_policy_temporal(const pdp_policy_set *set, int64_t *window)
{
    if (window != NULL)
        *window = set->pl_window;
    return set->pl_temporal;
}

/* The actions of the schema that are in group g (not g itself): a rule
 * naming `in g` is a candidate for each. */
static size_t
group_members(const pdp_policy_set *set, const pdp_value *g,
              const pdp_value **out)
{
    size_t n = 0;
    if (set->pl_actions.es_n == 0)
        return 0; // no groups: `in` on an action is `==`
    for (size_t i = 0; i < pdp_schema_action_count(set->pl_schema); i++) {
        const pdp_schema_action *a = pdp_schema_action_at(set->pl_schema, i);
        if (!pdp_entity_eq(a->ac_uid, g) &&
            pdp_schema_action_in(set->pl_schema, a, g)) {
            if (out != NULL)
                out[n] = a->ac_uid;
            n++;
        }
    }
    return n;
}

/* pl_actions: every schema action with a parent, as an entity store. */
static box_err
build_actions(pdp_policy_set *set)
{
    const pdp_schema *s = set->pl_schema;
    size_t n = 0, na = s != NULL ? pdp_schema_action_count(s) : 0;
    for (size_t i = 0; i < na; i++)
        n += pdp_schema_action_at(s, i)->ac_nparents > 0;
    if (n == 0)
        return BOX_OK;
    pdp_entity *items = box_arena_zalloc(set->pl_arena, n * sizeof(*items));
    if (items == NULL)
        return BOX_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; i < na; i++) {
        const pdp_schema_action *a = pdp_schema_action_at(s, i);
        if (a->ac_nparents == 0)
            continue;
        pdp_value *ps = pdp_value_set_new(set->pl_arena);
        if (ps == NULL)
            return BOX_ENOMEM;
        for (uint32_t j = 0; j < a->ac_nparents; j++) {
            box_err rv = pdp_value_set_add(set->pl_arena, ps, a->ac_parents[j]);
            if (rv != BOX_OK)
                return rv;
        }
        items[k].et_uid = a->ac_uid;
        items[k].et_parents = ps;
        k++;
    }
    set->pl_actions.es_items = items;
    set->pl_actions.es_n = k;
    return BOX_OK;
}

const pdp_entities *
pdp_policy_action_entities(const pdp_policy_set *set)
{
    return set->pl_actions.es_n > 0 ? &set->pl_actions : NULL;
}

static box_err
index_under(pdp_policy_set *set, const pdp_value *action, const pdp_rule *r)
{
    pdp_bucket *b = bucket_find(set, action);
    if (b->bk_action == NULL)
        b->bk_action = action;
    return push_rule(set->pl_arena, &b->bk_rules, &b->bk_n, &b->bk_cap, r);
}

static box_err
build_index(pdp_policy_set *set)
{
    const pdp_ast *ast = set->pl_ast;
    size_t refs = 0;
    box_err rv = build_actions(set);
    if (rv != BOX_OK)
        return rv;
    for (uint32_t i = 0; i < ast->as_nrules; i++) {
        const pdp_scope *sc = &ast->as_rules[i]->r_action;
        if (sc->sc_op == PDP_SCOPE_ANY)
            continue;
        refs += sc->sc_n;
        if (sc->sc_op != PDP_SCOPE_EQ)
            for (uint32_t k = 0; k < sc->sc_n; k++)
                refs += group_members(set, sc->sc_ents[k], NULL);
    }
    uint32_t size = 8;
    while (size < 2 * refs + 1)
        size *= 2;
    set->pl_table = box_arena_zalloc(set->pl_arena, size * sizeof(pdp_bucket));
    if (set->pl_table == NULL)
        return BOX_ENOMEM;
    set->pl_mask = size - 1;
    uint32_t anycap = 0;
    for (uint32_t i = 0; i < ast->as_nrules; i++) {
        const pdp_rule *r = ast->as_rules[i];
        if (r->r_action.sc_op == PDP_SCOPE_ANY) {
            rv = push_rule(set->pl_arena, &set->pl_any, &set->pl_nany, &anycap,
                           r);
            if (rv != BOX_OK)
                return rv;
            continue;
        }
        for (uint32_t k = 0; k < r->r_action.sc_n; k++) {
            const pdp_value *g = r->r_action.sc_ents[k];
            if ((rv = index_under(set, g, r)) != BOX_OK)
                return rv;
            size_t nm = r->r_action.sc_op == PDP_SCOPE_EQ
                            ? 0
                            : group_members(set, g, NULL);
            if (nm == 0)
                continue;
            const pdp_value **ms =
                box_arena_alloc(set->pl_arena, nm * sizeof(*ms));
            if (ms == NULL)
                return BOX_ENOMEM;
            (void)group_members(set, g, ms);
            for (size_t m = 0; m < nm; m++)
                if ((rv = index_under(set, ms[m], r)) != BOX_OK)
                    return rv;
        }
    }
    return BOX_OK;
}

/* Each action's reads, once: a permit's answer carries them, and walking
 * the rules for every decision cost as much as deciding. */
static box_err
build_reads(pdp_policy_set *set)
{
    pdp_reads *r = box_arena_zalloc(set->pl_arena, sizeof *r);
    if (r == NULL)
        return BOX_ENOMEM;
    pdp_reads_rules(r, NULL, 0, set->pl_any, set->pl_nany);
    set->pl_any_reads = r;
    for (uint32_t i = 0; i <= set->pl_mask; i++) {
        pdp_bucket *b = &set->pl_table[i];
        if (b->bk_action == NULL)
            continue;
        if ((r = box_arena_zalloc(set->pl_arena, sizeof *r)) == NULL)
            return BOX_ENOMEM;
        pdp_reads_rules(r, b->bk_rules, b->bk_n, set->pl_any, set->pl_nany);
        b->bk_reads = r;
    }
    return BOX_OK;
}

const struct pdp_reads *
pdp_policy_reads(const pdp_policy_set *set, const pdp_value *action)
{
    const pdp_bucket *b = NULL;
    if (action != NULL && action->v_kind == PDP_VAL_ENTITY)
        b = bucket_find(set, action);
    return b != NULL && b->bk_action != NULL ? b->bk_reads : set->pl_any_reads;
}

void
pdp_policy_candidates(const pdp_policy_set *set, const pdp_value *action,
                      const pdp_rule *const **specific, size_t *nspecific,
                      const pdp_rule *const **any, size_t *nany)
{
    const pdp_bucket *b = NULL;
    if (action != NULL && action->v_kind == PDP_VAL_ENTITY)
        b = bucket_find(set, action);
    *specific = b != NULL ? b->bk_rules : NULL;
    *nspecific = b != NULL ? b->bk_n : 0;
    *any = set->pl_any;
    *nany = set->pl_nany;
}

/* ---- load ---- */

/* The temporal leaves' findings after Cedar's (§6.1): against the event
 * schema derived for the action schema. */
static box_err
check_temporal(pdp_policy_set *set, const pdp_tl_src *src,
               const pdp_evschema *es, pdp_validate_result *vr, box_buf *msg)
{
    if (!set->pl_temporal)
        return BOX_OK;
    box_buf derr;
    box_buf_init(&derr, 1u << 16);
    pdp_evset *events = NULL;
    box_err rv = pdp_evset_derive(es, set->pl_schema, &events, &derr);
    if (rv == BOX_ETOOBIG) {
        box_err mrv = box_buf_printf(msg,
                                     "policy fails schema validation: "
                                     "dogwood event schema: %s",
                                     derr.b_data ? derr.b_data : "");
        (void)mrv; // the code alone still refuses
        rv = BOX_ECONFIG;
    }
    if (rv == BOX_OK)
        rv = pdp_tl_validate(set->pl_ast, set->pl_schema, es, events, src, vr);
    pdp_evset_free(events);
    box_buf_reset(&derr);
    return rv;
}

/* §6.2 steps 8 and 9 on a parsed set. */
static box_err
check_schema(pdp_policy_set *set, const pdp_tl_src *src, const pdp_evschema *es,
             const char *home, pdp_validate_warnings *warnings, box_buf *msg)
{
    pdp_validate_result *vr = NULL;
    char *text = NULL;
    box_err rv =
        pdp_validate_policies(set->pl_schema, set->pl_ast, src->ts_file, &vr);
    if (rv != BOX_OK)
        return rv;
    if ((rv = check_temporal(set, src, es, vr, msg)) != BOX_OK)
        goto out;
    rv = pdp_validate_load_message(vr, &text);
    if (rv == BOX_ECONFIG) {
        box_err mrv = box_buf_puts(msg, text);
        if (mrv != BOX_OK && mrv != BOX_ETOOBIG)
            rv = mrv;
        goto out;
    }
    if (rv != BOX_OK)
        goto out;
    pdp_validate_warnings spell = {NULL, 0, 0};
    rv = pdp_validate_spelling(set->pl_ast, home, &spell, &text);
    if (rv == BOX_ECONFIG) {
        box_err mrv = box_buf_puts(msg, text);
        if (mrv != BOX_OK && mrv != BOX_ETOOBIG)
            rv = mrv;
    }
    /* Spelling warnings first, then the validator's. */
    for (size_t i = 0; i < spell.vw_n && rv == BOX_OK && warnings != NULL; i++)
        rv = pdp_validate_warnings_add(warnings, spell.vw_items[i],
                                       strlen(spell.vw_items[i]));
    pdp_validate_warnings_free(&spell);
    for (size_t i = 0;
         i < pdp_validate_result_count(vr) && rv == BOX_OK && warnings != NULL;
         i++) {
        const pdp_finding *f = pdp_validate_result_at(vr, i);
        if (f->fd_kind == PDP_FINDING_WARNING)
            rv = pdp_validate_warnings_add(warnings, f->fd_msg,
                                           strlen(f->fd_msg));
    }
out:
    box_free(text);
    pdp_validate_result_free(vr);
    return rv;
}

/* ORDER LOAD: what a load checks. */
typedef enum load_mode {
    LOAD_PARSE,   // pdp_policy_load: parse and the schema-free Box checks
    LOAD_BOX,     // pdp_policy_load_checked: Box's event schema
    LOAD_DOGWOOD, // pdp_policy_load_events: a given (or the default) one
} load_mode;

static box_err
load(const char *text, size_t len, const char *filename, load_mode mode,
     const pdp_schema *schema, const pdp_evschema *events, const char *home,
     pdp_policy_set **out, pdp_validate_warnings *warnings, char **err)
{
    box_buf msg;
    box_buf_init(&msg, 1u << 20);
    pdp_policy_set *set = NULL;
    pdp_evschema *own_events = NULL;
    pdp_validate_warnings cap_warn = {0};
    bool checked = mode == LOAD_BOX || (mode == LOAD_DOGWOOD && schema);
    box_err rv;
    *out = NULL;
    *err = NULL;
    if (len > PDP_POLICY_MAX_BYTES) {
        rv = BOX_ETOOBIG;
        box_err mrv = box_buf_printf(&msg,
                                     "%s: policy text is larger than "
                                     "the limit of %u bytes",
                                     filename ? filename : "<policy>",
                                     PDP_POLICY_MAX_BYTES);
        (void)mrv; // the code alone still refuses
        goto out;
    }
    rv = BOX_ENOMEM;
    if ((set = box_calloc(1, sizeof(*set))) == NULL ||
        (set->pl_arena = box_arena_new(PDP_POLICY_MAX_MEMORY)) == NULL)
        goto out;
    if (checked) {
        set->pl_schema = schema;
        if (schema == NULL) {
            char *serr = NULL;
            rv = pdp_schema_load_builtin(&set->pl_own_schema, &serr);
            if (rv != BOX_OK) {
                box_err mrv = box_buf_printf(&msg,
                                             "policy fails schema "
                                             "validation: dogwood action "
                                             "schema: %s",
                                             serr ? serr : "");
                (void)mrv;
                box_free(serr);
                goto out;
            }
            set->pl_schema = set->pl_own_schema;
        }
    }
    if (mode != LOAD_PARSE && events == NULL) {
        rv = pdp_evschema_load_builtin(mode == LOAD_BOX ? PDP_EVSCHEMA_BOX
                                                        : PDP_EVSCHEMA_DEFAULT,
                                       &own_events, &msg);
        if (rv != BOX_OK)
            goto out;
        events = own_events;
    }
    if ((rv = pdp_parse(text, len, filename, set->pl_arena, &set->pl_ast,
                        &msg)) != BOX_OK)
        goto out;
    if ((rv = check_duplicate_ids(set->pl_ast, &msg)) != BOX_OK)
        goto out;
    if ((rv = check_reserved_actions(set->pl_ast, &msg)) != BOX_OK)
        goto out;
    // Box's step 7; its warnings follow the spelling ones (step 9).
    if (mode == LOAD_BOX &&
        (rv = pdp_cap_judge(set->pl_ast, warnings != NULL ? &cap_warn : NULL,
                            &msg)) != BOX_OK)
        goto out;
    if (events != NULL &&
        (rv = pdp_tl_apply_pins(set->pl_ast, events, set->pl_arena)) != BOX_OK)
        goto out;
    find_temporal(set);
    pdp_tl_src src = {text, len, filename ? filename : "<policy>"};
    if (checked &&
        (rv = check_schema(set, &src, events, home, warnings, &msg)) != BOX_OK)
        goto out;
    for (size_t i = 0; warnings != NULL && i < cap_warn.vw_n && rv == BOX_OK;
         i++)
        rv = pdp_validate_warnings_add(warnings, cap_warn.vw_items[i],
                                       strlen(cap_warn.vw_items[i]));
    if (rv != BOX_OK)
        goto out;
    if ((rv = build_index(set)) == BOX_OK)
        rv = build_reads(set);
out:
    pdp_evschema_free(own_events);
    pdp_validate_warnings_free(&cap_warn);
    if (rv != BOX_OK) {
        if (msg.b_len == 0) {
            box_err mrv = box_buf_puts(&msg, box_strerror(rv));
            (void)mrv;
        }
        *err = box_buf_take(&msg);
        pdp_policy_free(set);
    } else {
        *out = set;
    }
    box_buf_reset(&msg);
    return rv;
}

box_err
pdp_policy_load(const char *text, size_t len, const char *filename,
                pdp_policy_set **out, char **err)
{
    return load(text, len, filename, LOAD_PARSE, NULL, NULL, NULL, out, NULL,
                err);
}

box_err
pdp_policy_load_checked(const char *text, size_t len, const char *filename,
                        const pdp_schema *schema, const char *home,
                        pdp_policy_set **out, pdp_validate_warnings *warnings,
                        char **err)
{
    return load(text, len, filename, LOAD_BOX, schema, NULL, home, out,
                warnings, err);
}

box_err
pdp_policy_load_events(const char *text, size_t len, const char *filename,
                       const pdp_schema *schema, const pdp_evschema *events,
                       pdp_policy_set **out, pdp_validate_warnings *warnings,
                       char **err)
{
    return load(text, len, filename, LOAD_DOGWOOD, schema, events, NULL, out,
                warnings, err);
}

const pdp_schema *
pdp_policy_schema(const pdp_policy_set *set)
{
    return set->pl_schema;
}

void
pdp_policy_free(pdp_policy_set *set)
{
    if (set == NULL)
        return;
    box_arena_free(set->pl_arena);
    pdp_schema_free(set->pl_own_schema);
    box_free(set);
}

size_t
pdp_policy_rule_count(const pdp_policy_set *set)
{
    return set->pl_ast->as_nrules;
}

const pdp_rule *
pdp_policy_rule(const pdp_policy_set *set, size_t i)
{
    return i < set->pl_ast->as_nrules ? set->pl_ast->as_rules[i] : NULL;
}

const pdp_ast *
pdp_policy_ast(const pdp_policy_set *set)
{
    return set->pl_ast;
}
