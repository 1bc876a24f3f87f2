/* SPDX-License-Identifier: Apache-2.0 */
/* The derived events of a .dwschema over an action schema (§5.2). */
#include "pdp_evschema.h"

#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "pdp_evschema_int.h"

/*
 * For every action A of the action schema and every declaration, one
 * pdp_evsig: the declaration's field specs evaluated against A. The
 * parser already refused every spec that cannot derive, so the only
 * failures here are size (a context record that expands past
 * PDP_EVSET_MAX_FIELDS) and memory. Leaves and groups are kept as flat
 * arrays of dotted paths: events have tens of fields, and a lookup is a
 * scan.
 */

struct pdp_evsig {
    const pdp_schema_action *sg_action;
    const es_decl *sg_decl;
    pdp_evleaf *sg_leaves; // declaration order
    uint32_t sg_nleaves, sg_leafcap;
    pdp_str *sg_groups;
    uint32_t sg_ngroups, sg_groupcap;
};

struct pdp_evset {
    box_arena *st_arena;
    const pdp_evschema *st_es;
    const pdp_schema *st_as;
    pdp_evsig *st_sigs; // st_sigs[action * es_ndecls + decl]
    size_t st_nsigs;
};

typedef struct deriver {
    box_arena *dv_a;
    pdp_evsig *dv_sig;
    box_buf *dv_err;
} deriver;

static box_err
derr(deriver *dv, box_err code, const char *what)
{
    const pdp_schema_action *ac = dv->dv_sig->sg_action;
    const es_decl *d = dv->dv_sig->sg_decl;
    box_buf_reset(dv->dv_err);
    box_err rv = box_buf_printf(dv->dv_err, "event `%s::\"%s\"::%s`: %s",
                                ac->ac_type.s, ac->ac_id.s, d->d_kind.s, what);
    (void)rv; // a message cut by the buffer cap is still an error
    return code;
}

/* prefix "." name, NUL-terminated, in the arena. */
static box_err
child_path(deriver *dv, pdp_str prefix, const char *name, size_t nlen,
           pdp_str *out)
{
    size_t dot = prefix.len > 0 ? 1 : 0;
    char *s = box_arena_alloc(dv->dv_a, prefix.len + dot + nlen + 1);
    if (s == NULL)
        return derr(dv, BOX_ENOMEM, "out of memory");
    memcpy(s, prefix.s, prefix.len);
    if (dot)
        s[prefix.len] = '.';
    memcpy(s + prefix.len + dot, name, nlen);
    s[prefix.len + dot + nlen] = '\0';
    out->s = s;
    out->len = prefix.len + dot + nlen;
    return BOX_OK;
}

static box_err
grow(deriver *dv, void **arr, uint32_t n, uint32_t *cap, size_t elsize)
{
    if (n < *cap)
        return BOX_OK;
    uint32_t nc = *cap ? *cap * 2 : 8;
    void *na = box_arena_alloc(dv->dv_a, (size_t)nc * elsize);
    if (na == NULL)
        return derr(dv, BOX_ENOMEM, "out of memory");
    if (n)
        memcpy(na, *arr, (size_t)n * elsize);
    *arr = na;
    *cap = nc;
    return BOX_OK;
}

static box_err
check_size(deriver *dv)
{
    pdp_evsig *sg = dv->dv_sig;
    if (sg->sg_nleaves + sg->sg_ngroups >= PDP_EVSET_MAX_FIELDS) {
        char what[128];
        snprintf(what, sizeof(what), "its fields expand to more than %d",
                 PDP_EVSET_MAX_FIELDS);
        return derr(dv, BOX_ETOOBIG, what);
    }
    return BOX_OK;
}

static box_err
add_group(deriver *dv, pdp_str path)
{
    pdp_evsig *sg = dv->dv_sig;
    BOX_TRY(check_size(dv));
    BOX_TRY(grow(dv, (void **)&sg->sg_groups, sg->sg_ngroups, &sg->sg_groupcap,
                 sizeof(*sg->sg_groups)));
    sg->sg_groups[sg->sg_ngroups++] = path;
    return BOX_OK;
}

static box_err
add_leaf(deriver *dv, const pdp_evleaf *lf)
{
    pdp_evsig *sg = dv->dv_sig;
    BOX_TRY(check_size(dv));
    BOX_TRY(grow(dv, (void **)&sg->sg_leaves, sg->sg_nleaves, &sg->sg_leafcap,
                 sizeof(*sg->sg_leaves)));
    sg->sg_leaves[sg->sg_nleaves++] = *lf;
    return BOX_OK;
}

/* The attributes of record type rec under path: a record attribute is a
 * group (its own attributes below it), anything else a leaf. */
static box_err
splice(deriver *dv, pdp_str path, const pdp_type *rec, bool optional)
{
    for (uint32_t i = 0; i < rec->ty_nattrs; i++) {
        const pdp_attr *at = &rec->ty_attrs[i];
        bool opt = optional || !at->at_required;
        pdp_str p;
        BOX_TRY(child_path(dv, path, at->at_name.s, at->at_name.len, &p));
        if (at->at_type->ty_kind == PDP_TY_RECORD) {
            BOX_TRY(add_group(dv, p));
            BOX_TRY(splice(dv, p, at->at_type, opt));
            continue;
        }
        pdp_evleaf lf = {
            .lf_path = p, .lf_type = at->at_type, .lf_optional = opt};
        BOX_TRY(add_leaf(dv, &lf));
    }
    return BOX_OK;
}

/* The fields fs[0..n) of the declaration, under prefix (§5.2). */
static box_err
derive_fields(deriver *dv, pdp_str prefix, const es_field *fs, uint32_t n)
{
    const pdp_schema_action *ac = dv->dv_sig->sg_action;
    for (uint32_t i = 0; i < n; i++) {
        const es_field *f = &fs[i];
        pdp_str p;
        if (f->f_kind == ES_F_SPREAD) {
            /* The group context.input / context.output becomes; an action
             * without that record (or with a non-record) spreads none. */
            const char *g = es_spread_group(f->f_sel);
            BOX_TRY(child_path(dv, prefix, g, strlen(g), &p));
            BOX_TRY(add_group(dv, p));
            const pdp_attr *at =
                pdp_schema_record_attr(ac->ac_context, g, strlen(g));
            if (at != NULL && at->at_type->ty_kind == PDP_TY_RECORD)
                BOX_TRY(splice(dv, p, at->at_type, false));
            continue;
        }
        BOX_TRY(child_path(dv, prefix, f->f_name.s, f->f_name.len, &p));
        pdp_evleaf lf = {.lf_path = p};
        switch (f->f_kind) {
        case ES_F_RECORD:
            BOX_TRY(add_group(dv, p));
            BOX_TRY(derive_fields(dv, p, f->f_members, f->f_nmembers));
            continue;
        case ES_F_SELECTOR:
            if (f->f_sel == ES_SEL_PRINCIPAL) {
                lf.lf_etypes = ac->ac_principals;
                lf.lf_netypes = ac->ac_nprincipals;
            } else {
                lf.lf_etypes = ac->ac_resources;
                lf.lf_netypes = ac->ac_nresources;
            }
            break;
        case ES_F_CONCRETE:
            lf.lf_type = f->f_type;
            break;
        case ES_F_SPREAD:
            break; // handled above
        }
        BOX_TRY(add_leaf(dv, &lf));
    }
    return BOX_OK;
}

box_err
pdp_evset_derive(const pdp_evschema *es, const pdp_schema *as, pdp_evset **out,
                 box_buf *err)
{
    *out = NULL;
    box_err rv = BOX_ENOMEM;
    size_t nact = pdp_schema_action_count(as);
    pdp_str none = {"", 0};
    deriver dv = {.dv_err = err};
    pdp_evset *set = box_calloc(1, sizeof(*set));
    if (set == NULL ||
        (set->st_arena = box_arena_new(PDP_EVSET_MAX_MEMORY)) == NULL)
        goto nomem;
    set->st_es = es;
    set->st_as = as;
    set->st_nsigs = nact * es->es_ndecls;
    set->st_sigs =
        box_arena_zalloc(set->st_arena, (set->st_nsigs ? set->st_nsigs : 1) *
                                            sizeof(*set->st_sigs));
    if (set->st_sigs == NULL)
        goto nomem;
    dv.dv_a = set->st_arena;
    for (size_t a = 0; a < nact; a++) {
        for (uint32_t d = 0; d < es->es_ndecls; d++) {
            pdp_evsig *sg = &set->st_sigs[a * es->es_ndecls + d];
            sg->sg_action = pdp_schema_action_at(as, a);
            sg->sg_decl = &es->es_decls[d];
            dv.dv_sig = sg;
            rv = derive_fields(&dv, none, sg->sg_decl->d_fields,
                               sg->sg_decl->d_nfields);
            if (rv != BOX_OK)
                goto out; // derr wrote the message
        }
    }
    *out = set;
    return BOX_OK;
nomem:
    box_buf_reset(err);
    box_err e2 = box_buf_puts(err, "out of memory");
    (void)e2;
out:
    pdp_evset_free(set);
    return rv;
}

void
pdp_evset_free(pdp_evset *set)
{
    if (set == NULL)
        return;
    box_arena_free(set->st_arena);
    box_free(set);
}

const pdp_evsig *
pdp_evset_find(const pdp_evset *set, const pdp_value *action, const char *kind,
               size_t len)
{
    const pdp_schema_action *ac = pdp_schema_action_find(set->st_as, action);
    if (ac == NULL)
        return NULL;
    uint32_t nd = set->st_es->es_ndecls;
    for (size_t i = 0; i < set->st_nsigs; i += nd) {
        if (set->st_sigs[i].sg_action != ac)
            continue;
        for (uint32_t d = 0; d < nd; d++) {
            const pdp_evsig *sg = &set->st_sigs[i + d];
            pdp_str k = sg->sg_decl->d_kind;
            if (k.len == len && memcmp(k.s, kind, len) == 0)
                return sg;
        }
        return NULL;
    }
    return NULL;
}

size_t
pdp_evset_count(const pdp_evset *set)
{
    return set->st_nsigs;
}

const pdp_evsig *
pdp_evset_at(const pdp_evset *set, size_t i)
{
    return &set->st_sigs[i];
}

const pdp_schema_action *
pdp_evsig_action(const pdp_evsig *e)
{
    return e->sg_action;
}

const char *
pdp_evsig_kind(const pdp_evsig *e)
{
    return e->sg_decl->d_kind.s;
}

bool
pdp_evsig_is_decision(const pdp_evsig *e)
{
    return e->sg_decl->d_decision;
}

pdp_evfield
pdp_evsig_field(const pdp_evsig *e, const char *path, size_t len,
                const pdp_evleaf **leaf)
{
    if (leaf != NULL)
        *leaf = NULL;
    for (uint32_t i = 0; i < e->sg_nleaves; i++) {
        const pdp_evleaf *lf = &e->sg_leaves[i];
        if (lf->lf_path.len == len && memcmp(lf->lf_path.s, path, len) == 0) {
            if (leaf != NULL)
                *leaf = lf;
            return PDP_EVF_LEAF;
        }
    }
    for (uint32_t i = 0; i < e->sg_ngroups; i++) {
        pdp_str g = e->sg_groups[i];
        if (g.len == len && memcmp(g.s, path, len) == 0)
            return PDP_EVF_GROUP;
    }
    return PDP_EVF_ABSENT;
}

size_t
pdp_evsig_leaf_count(const pdp_evsig *e)
{
    return e->sg_nleaves;
}

const pdp_evleaf *
pdp_evsig_leaf_at(const pdp_evsig *e, size_t i)
{
    return &e->sg_leaves[i];
}

const pdp_evpin *
pdp_evsig_pins(const pdp_evsig *e, size_t *n)
{
    *n = e->sg_decl->d_npins;
    return e->sg_decl->d_pins;
}
