/* SPDX-License-Identifier: Apache-2.0 */
/* Incremental monitors for correlations (pdp_tlmon.h). */
#include "pdp_tlmon.h"

#include <stdint.h>
#include <string.h>

#include "box_alloc.h"
#include "pdp_value.h"
#include "box_hash.h"

#define MON_MAX 8          // formerly conjuncts, and filters, of one leaf
#define MON_KEY_MAX 1024   // a longer key gives up (scanned instead)
#define MON_NONE INT64_MIN // a conjunct not seen for a key

/* One value of the variable: when each conjunct last saw it. */
typedef struct mon_slot {
    uint8_t *ms_key; // NULL: empty
    size_t ms_klen;
    int64_t ms_t[MON_MAX];
} mon_slot;

struct pdp_tlmon {
    pdp_str mo_var;
    const pdp_tl *mo_pred[MON_MAX];
    pdp_str mo_path[MON_MAX]; // the field each predicate binds the variable to
    int64_t mo_win[MON_MAX];
    uint32_t mo_n;
    const pdp_tl *mo_filter[MON_MAX];
    uint32_t mo_nf;
    bool mo_outcomes; // a predicate reads `::response` / `::error`
    bool mo_gave_up;
    int64_t mo_best; // max over keys of min over conjuncts of t + W
    int64_t mo_last; // time of the last event observed
    mon_slot *mo_slots;
    size_t mo_nslots, mo_used;
};

/* ---- the shape ---- */

/* A comparison of the request and literals only. */
static bool
is_filter(const pdp_tl *t)
{
    return t->tl_kind == PDP_TL_CMP && pdp_tterm_ground(t->tl_a, NULL, NULL) &&
           pdp_tterm_ground(t->tl_b, NULL, NULL);
}

/* `formerly within W P{ f: x, … }`, every other field literal or `_`. */
static bool
add_formerly(pdp_tlmon *m, const pdp_tl *t)
{
    const pdp_tl *p = t->tl_l;
    if (t->tl_kind != PDP_TL_FORMERLY || p->tl_kind != PDP_TL_PRED ||
        m->mo_n == MON_MAX)
        return false;
    int bound = -1;
    for (uint32_t i = 0; i < p->tl_nargs; i++) {
        const pdp_tterm *a = p->tl_args[i].ta_term;
        if (a->tt_kind == PDP_TT_VAR && a->tt_name.len == m->mo_var.len &&
            memcmp(a->tt_name.s, m->mo_var.s, a->tt_name.len) == 0) {
            if (bound >= 0)
                return false; // bound twice in one predicate
            bound = (int)i;
        } else if (a->tt_kind != PDP_TT_LIT && a->tt_kind != PDP_TT_WILD) {
            return false;
        }
    }
    if (bound < 0)
        return false;
    pdp_str k = p->tl_event_kind;
    m->mo_outcomes |= (k.len == 8 && memcmp(k.s, "response", 8) == 0) ||
                      (k.len == 5 && memcmp(k.s, "error", 5) == 0);
    m->mo_pred[m->mo_n] = p;
    m->mo_path[m->mo_n] = p->tl_args[bound].ta_path;
    m->mo_win[m->mo_n] = t->tl_window;
    m->mo_n++;
    return true;
}

/* The conjuncts of t (an && tree) into m: formerlys and filters. */
static bool
add_conjuncts(pdp_tlmon *m, const pdp_tl *t)
{
    if (t->tl_kind == PDP_TL_AND)
        return add_conjuncts(m, t->tl_l) && add_conjuncts(m, t->tl_r);
    if (is_filter(t)) {
        if (m->mo_nf == MON_MAX)
            return false;
        m->mo_filter[m->mo_nf++] = t;
        return true;
    }
    return add_formerly(m, t);
}

pdp_tlmon *
pdp_tlmon_new(const pdp_tl *leaf)
{
    if (leaf->tl_kind != PDP_TL_EXISTS ||
        (leaf->tl_binder.tb_type.len == 9 &&
         memcmp(leaf->tl_binder.tb_type.s, "Timepoint", 9) == 0))
        return NULL;
    pdp_tlmon *m = box_calloc(1, sizeof *m);
    if (m == NULL)
        return NULL;
    m->mo_var = leaf->tl_binder.tb_name;
    m->mo_best = MON_NONE;
    m->mo_last = MON_NONE;
    // Two or more windows to correlate: one alone is a plain formerly,
    // which the value indexes already answer.
    if (!add_conjuncts(m, leaf->tl_l) || m->mo_n < 2) {
        box_free(m);
        return NULL;
    }
    return m;
}

void
pdp_tlmon_free(pdp_tlmon *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->mo_nslots; i++)
        box_free(m->mo_slots[i].ms_key);
    box_free(m->mo_slots);
    box_free(m);
}

/* ---- keys ---- */

/* A plain value as key bytes (kind first); 0 for a value that is not
 * plain or too long: equal values give equal bytes. */
static size_t
key_of(const pdp_value *v, uint8_t *buf)
{
    size_t n = 0, tl = 0, il = 0;
    const char *s = NULL, *id = NULL;
    switch (pdp_value_kind_of(v)) {
    case PDP_VAL_STRING:
        s = pdp_value_str(v, &n);
        if (n + 1 > MON_KEY_MAX)
            return 0;
        buf[0] = 's';
        memcpy(buf + 1, s, n);
        return n + 1;
    case PDP_VAL_LONG: {
        int64_t x = pdp_value_as_long(v);
        buf[0] = 'l';
        memcpy(buf + 1, &x, sizeof x);
        return 1 + sizeof x;
    }
    case PDP_VAL_BOOL:
        buf[0] = 'b';
        buf[1] = pdp_value_as_bool(v) ? 1 : 0;
        return 2;
    case PDP_VAL_ENTITY:
        s = pdp_value_entity_type(v, &tl);
        id = pdp_value_entity_id(v, &il);
        if (tl + il + 2 > MON_KEY_MAX)
            return 0;
        buf[0] = 'e';
        memcpy(buf + 1, s, tl);
        buf[1 + tl] = 0;
        memcpy(buf + 2 + tl, id, il);
        return tl + il + 2;
    default:
        return 0;
    }
}

static uint64_t
key_hash(const uint8_t *k, size_t n)
{
    return box_fnv1a(BOX_FNV1A_INIT, k, n);
}

static mon_slot *
slot_find(mon_slot *slots, size_t nslots, const uint8_t *k, size_t n)
{
    for (size_t i = key_hash(k, n) & (nslots - 1);; i = (i + 1) & (nslots - 1))
        if (slots[i].ms_key == NULL ||
            (slots[i].ms_klen == n && memcmp(slots[i].ms_key, k, n) == 0))
            return &slots[i];
}

/* Whether a key can still count: some conjunct's last sighting is still
 * inside its window at the last event (a later event only adds to it). */
static bool
slot_alive(const pdp_tlmon *m, const mon_slot *s)
{
    for (uint32_t i = 0; i < m->mo_n; i++)
        if (s->ms_t[i] != MON_NONE && s->ms_t[i] + m->mo_win[i] >= m->mo_last)
            return true;
    return false;
}

/* A table with room: twice the keys still alive, the dead ones left out
 * (so a history of ever new values stays as big as its windows). */
static bool
rehash(pdp_tlmon *m)
{
    size_t alive = 0;
    for (size_t i = 0; i < m->mo_nslots; i++)
        alive +=
            m->mo_slots[i].ms_key != NULL && slot_alive(m, &m->mo_slots[i]);
    size_t n = 64;
    while (n < 4 * (alive + 1))
        n *= 2;
    mon_slot *ns = box_calloc(n, sizeof *ns);
    if (ns == NULL)
        return false;
    size_t used = 0;
    for (size_t i = 0; i < m->mo_nslots; i++) {
        mon_slot *s = &m->mo_slots[i];
        if (s->ms_key == NULL)
            continue;
        if (!slot_alive(m, s)) {
            box_free(s->ms_key);
            continue;
        }
        *slot_find(ns, n, s->ms_key, s->ms_klen) = *s;
        used++;
    }
    box_free(m->mo_slots);
    m->mo_slots = ns;
    m->mo_nslots = n;
    m->mo_used = used;
    return true;
}

/* ---- observing ---- */

/* Whether event e is one of predicate p's: its action, kind and literal
 * fields (the variable's field is read apart). */
static bool
pred_matches(const pdp_tl *p, const pdp_event *e)
{
    if (!pdp_value_equal(e->ev_action, p->tl_action) ||
        strlen(e->ev_kind) != p->tl_event_kind.len ||
        memcmp(e->ev_kind, p->tl_event_kind.s, p->tl_event_kind.len) != 0)
        return false;
    for (uint32_t i = 0; i < p->tl_nargs; i++) {
        const pdp_targ *a = &p->tl_args[i];
        if (a->ta_term->tt_kind != PDP_TT_LIT)
            continue;
        const pdp_value *f =
            pdp_hist_field(e->ev_fields, a->ta_path.s, a->ta_path.len);
        if (f == NULL || !pdp_value_equal(f, a->ta_term->tt_lit))
            return false;
    }
    return true;
}

void
pdp_tlmon_observe(pdp_tlmon *m, const pdp_event *e)
{
    if (m->mo_gave_up)
        return;
    m->mo_last = e->ev_ts;
    if (e->ev_state != PDP_EV_REAL)
        return;
    uint8_t key[MON_KEY_MAX];
    for (uint32_t i = 0; i < m->mo_n; i++) {
        if (!pred_matches(m->mo_pred[i], e))
            continue;
        const pdp_value *x =
            pdp_hist_field(e->ev_fields, m->mo_path[i].s, m->mo_path[i].len);
        if (x == NULL)
            continue; // the field absent: the predicate does not bind
        size_t kl = key_of(x, key);
        if (kl == 0 || (2 * (m->mo_used + 1) > m->mo_nslots && !rehash(m))) {
            m->mo_gave_up = true; // not a plain value, or no memory
            return;
        }
        mon_slot *s = slot_find(m->mo_slots, m->mo_nslots, key, kl);
        if (s->ms_key == NULL) {
            if ((s->ms_key = box_alloc(kl)) == NULL) {
                m->mo_gave_up = true;
                return;
            }
            memcpy(s->ms_key, key, kl);
            s->ms_klen = kl;
            for (uint32_t c = 0; c < MON_MAX; c++)
                s->ms_t[c] = MON_NONE;
            m->mo_used++;
        }
        s->ms_t[i] = e->ev_ts;
        int64_t lo = INT64_MAX;
        for (uint32_t c = 0; c < m->mo_n && lo != MON_NONE; c++)
            lo = s->ms_t[c] == MON_NONE           ? MON_NONE
                 : s->ms_t[c] + m->mo_win[c] < lo ? s->ms_t[c] + m->mo_win[c]
                                                  : lo;
        if (lo > m->mo_best)
            m->mo_best = lo;
    }
}

int
pdp_tlmon_holds(pdp_tlmon *m, const pdp_tl_now *now, box_arena *scratch,
                bool *holds)
{
    if (m->mo_gave_up ||
        (m->mo_outcomes && now->tn_pending != PDP_PENDING_NONE))
        return 0;
    for (uint32_t i = 0; i < m->mo_nf; i++) {
        bool f = false;
        if (pdp_tl_holds(m->mo_filter[i], now, scratch, &f) != BOX_OK)
            return 0;
        if (!f) {
            *holds = false;
            return 1;
        }
    }
    int64_t ts = pdp_hist_at(now->tn_hist, now->tn_at)->ev_ts;
    *holds = m->mo_best != MON_NONE && m->mo_best >= ts;
    return 1;
}
