/* SPDX-License-Identifier: Apache-2.0 */
/* The per-call permit memo (permit_memo.h): a fixed table, no eviction. */
#include "permit_memo.h"

#include <string.h>

#include "box_alloc.h"
#include "box_pdp_client.h"
#include "box_hash.h"

#define PM_SLOTS 512    // keys per call; a power of two
#define PM_ACTIONS 16   // actions with their fields per call
#define PM_KEY_MAX 2048 // the client's own key limit
#define PM_FULL_AT 384  // stop adding at 3/4: probes stay short

typedef struct pm_action {
    char *pa_name;
    char **pa_fields; // NULL-ended, owned
    size_t pa_n;
} pm_action;

typedef struct pm_entry {
    uint64_t pe_hash;
    uint64_t pe_gen;
    uint64_t pe_epoch;
    uint64_t pe_born_ms;
    uint32_t pe_len; // 0: empty
    uint8_t *pe_key;
} pm_entry;

struct permit_memo {
    pm_action pm_act[PM_ACTIONS];
    size_t pm_nact;
    pm_entry pm_slot[PM_SLOTS];
    size_t pm_nslot;
};

static void
pm_fields_free(char **v)
{
    for (size_t i = 0; v != NULL && v[i] != NULL; i++)
        box_free(v[i]);
    box_free(v);
}

permit_memo *
permit_memo_new(void)
{
    return box_calloc(1, sizeof(permit_memo));
}

void
permit_memo_free(permit_memo *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->pm_nact; i++) {
        box_free(m->pm_act[i].pa_name);
        pm_fields_free(m->pm_act[i].pa_fields);
    }
    for (size_t i = 0; i < PM_SLOTS; i++)
        box_free(m->pm_slot[i].pe_key);
    box_free(m);
}

bool
permit_memo_keeps(const Box__DecisionRequest *req)
{
    return req->action != NULL && req->enforcement == NULL &&
           strcmp(req->action, "shell:spawn") != 0;
}

static const pm_action *
pm_action_find(const permit_memo *m, const char *name)
{
    for (size_t i = 0; i < m->pm_nact; i++)
        if (strcmp(m->pm_act[i].pa_name, name) == 0)
            return &m->pm_act[i];
    return NULL;
}

static bool
pm_fields_same(const pm_action *a, char *const *fields, size_t n)
{
    if (a->pa_n != n)
        return false;
    for (size_t i = 0; i < n; i++)
        if (strcmp(a->pa_fields[i], fields[i]) != 0)
            return false;
    return true;
}

/* Every command hashes its key here: a word at a time. The keys are the
 * client's canonical bytes, not attacker-chosen beyond what one call's
 * own commands put in them. */
static uint64_t
pm_hash(const uint8_t *p, size_t n)
{
    return box_hash_words(p, n);
}

static size_t
pm_key(const pm_action *a, const Box__DecisionRequest *req, uint8_t *buf)
{
    return box_pdp_narrow_key(req->action, req->input, a->pa_fields, a->pa_n,
                              buf, PM_KEY_MAX);
}

/* The slot holding key, or the empty slot where it would go. */
static pm_entry *
pm_probe(const permit_memo *m, uint64_t h, const uint8_t *key, size_t n)
{
    for (size_t i = 0; i < PM_SLOTS; i++) {
        pm_entry *e = (pm_entry *)&m->pm_slot[(h + i) & (PM_SLOTS - 1)];
        if (e->pe_len == 0 || (e->pe_hash == h && e->pe_len == n &&
                               memcmp(e->pe_key, key, n) == 0))
            return e;
    }
    return NULL; // unreachable below PM_FULL_AT
}

box_err
permit_memo_add(permit_memo *m, const Box__DecisionRequest *req,
                char *const *fields, size_t nfields, uint64_t epoch,
                uint64_t gen, uint64_t now_ms)
{
    uint8_t key[PM_KEY_MAX];
    if (!permit_memo_keeps(req))
        return BOX_EINVAL;
    const pm_action *a = pm_action_find(m, req->action);
    if (a != NULL && !pm_fields_same(a, fields, nfields))
        return BOX_EINVAL; // one generation says one thing per action
    // A new action has no key to renew: nothing to do when full.
    if (a == NULL && (m->pm_nact == PM_ACTIONS || m->pm_nslot >= PM_FULL_AT))
        return BOX_ETOOBIG;
    // The key first: a request that cannot be kept leaves no action behind.
    size_t n = box_pdp_narrow_key(req->action, req->input, fields, nfields, key,
                                  PM_KEY_MAX);
    if (n == 0)
        return BOX_ETOOBIG;
    if (a == NULL) {
        pm_action *na = &m->pm_act[m->pm_nact];
        char **copy = box_calloc(nfields + 1, sizeof *copy);
        if (copy == NULL)
            return BOX_ENOMEM;
        for (size_t i = 0; i < nfields; i++)
            if ((copy[i] = box_strdup(fields[i])) == NULL) {
                pm_fields_free(copy);
                return BOX_ENOMEM;
            }
        if ((na->pa_name = box_strdup(req->action)) == NULL) {
            pm_fields_free(copy);
            return BOX_ENOMEM;
        }
        na->pa_fields = copy;
        na->pa_n = nfields;
        m->pm_nact++;
    }
    uint64_t h = pm_hash(key, n);
    pm_entry *e = pm_probe(m, h, key, n);
    if (e != NULL && e->pe_len != 0) {
        e->pe_gen = gen; // asked again (it had gone stale): renewed
        e->pe_epoch = epoch;
        e->pe_born_ms = now_ms;
        return BOX_OK;
    }
    if (e == NULL || m->pm_nslot >= PM_FULL_AT)
        return BOX_ETOOBIG;
    if ((e->pe_key = box_alloc(n)) == NULL)
        return BOX_ENOMEM;
    memcpy(e->pe_key, key, n);
    *e = (pm_entry){.pe_hash = h,
                    .pe_gen = gen,
                    .pe_epoch = epoch,
                    .pe_born_ms = now_ms,
                    .pe_len = (uint32_t)n,
                    .pe_key = e->pe_key};
    m->pm_nslot++;
    return BOX_OK;
}

bool
permit_memo_has(const permit_memo *m, const Box__DecisionRequest *req,
                uint64_t gen, uint64_t now_ms, uint64_t max_age_ms,
                permit_memo_hit *hit)
{
    uint8_t key[PM_KEY_MAX];
    if (!permit_memo_keeps(req))
        return false;
    const pm_action *a = pm_action_find(m, req->action);
    size_t n = a != NULL ? pm_key(a, req, key) : 0;
    if (n == 0)
        return false;
    const pm_entry *e = pm_probe(m, pm_hash(key, n), key, n);
    if (e == NULL || e->pe_len == 0 ||
        (gen != PERMIT_MEMO_ANY_GEN && e->pe_gen != gen) ||
        (max_age_ms != 0 && now_ms - e->pe_born_ms > max_age_ms))
        return false;
    if (hit != NULL)
        *hit = (permit_memo_hit){.ph_epoch = e->pe_epoch,
                                 .ph_born_ms = e->pe_born_ms};
    return true;
}

char *const *
permit_memo_fields(const permit_memo *m, const char *action, size_t *n)
{
    const pm_action *a = action != NULL ? pm_action_find(m, action) : NULL;
    *n = a != NULL ? a->pa_n : 0;
    return a != NULL ? a->pa_fields : NULL;
}

bool
permit_memo_blanks(char *const *fields, size_t n, const Box__RecordField *f)
{
    if (f->value == NULL || f->name == NULL)
        return false;
    switch (f->value->kind_case) {
    case BOX__VALUE__KIND_STR:
    case BOX__VALUE__KIND_LONG:
    case BOX__VALUE__KIND_BOOLEAN:
        break;
    default:
        return false; // sets, records and entities go as they are
    }
    for (size_t i = 0; i < n; i++)
        if (strcmp(fields[i], f->name) == 0)
            return false; // the policy reads it
    return true;
}

Box__Value *
permit_memo_report_input(const permit_memo *m, const Box__DecisionRequest *req,
                         permit_memo_blank *b)
{
    Box__Value *in = req->input;
    const pm_action *a = req->action ? pm_action_find(m, req->action) : NULL;
    if (a == NULL || in == NULL || in->kind_case != BOX__VALUE__KIND_RECORD ||
        in->record == NULL ||
        in->record->n_fields > PERMIT_MEMO_BLANK_FIELDS)
        return in;
    const Box__ValueRecord *r = in->record;
    box__value__init(&b->pb_input);
    box__value_record__init(&b->pb_record);
    b->pb_input.kind_case = BOX__VALUE__KIND_RECORD;
    b->pb_input.record = &b->pb_record;
    b->pb_record.n_fields = r->n_fields;
    b->pb_record.fields = b->pb_ptrs;
    for (size_t i = 0; i < r->n_fields; i++) {
        const Box__RecordField *f = r->fields[i];
        Box__RecordField *o = &b->pb_fields[i];
        Box__Value *v = &b->pb_values[i];
        *o = *f;
        b->pb_ptrs[i] = o;
        if (!permit_memo_blanks(a->pa_fields, a->pa_n, f))
            continue;
        box__value__init(v);
        v->kind_case = f->value->kind_case;
        if (v->kind_case == BOX__VALUE__KIND_STR)
            v->str = ""; // an integer 0 and a boolean false, from init
        o->value = v;
    }
    return &b->pb_input;
}
