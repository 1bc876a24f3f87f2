/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An in-memory history in segments of PDP_HIST_SEG events, each with the
 * arena its events' values live in, so events that have aged out of every
 * window are freed a whole segment at a time (pdp_hist_drop_before).
 */
#include "pdp_hist.h"

#include <string.h>

#include "box_alloc.h"
#include "pdp_hist_int.h"

#define PDP_HIST_SEG_ARENA ((size_t)1 << 32) // a segment's value cap

static void
seg_free(hist_seg *s)
{
    if (s == NULL)
        return;
    box_arena_free(s->sg_arena);
    box_free(s);
}

/* A new last segment; false when out of memory. */
static bool
seg_push(pdp_hist *h)
{
    if (h->h_nseg == h->h_capseg) {
        size_t nc = h->h_capseg ? h->h_capseg * 2 : 4;
        hist_seg **nv = box_realloc(h->h_seg, nc * sizeof *nv);
        if (nv == NULL)
            return false;
        h->h_seg = nv;
        h->h_capseg = nc;
    }
    hist_seg *s = box_calloc(1, sizeof *s);
    if (s == NULL || (s->sg_arena = box_arena_new(PDP_HIST_SEG_ARENA)) == NULL) {
        box_free(s);
        return false;
    }
    h->h_seg[h->h_nseg++] = s;
    return true;
}

pdp_hist *
pdp_hist_new(void)
{
    pdp_hist *h = box_calloc(1, sizeof *h);
    if (h == NULL)
        return NULL;
    if (!seg_push(h)) {
        box_free(h);
        return NULL;
    }
    return h;
}

void
pdp_hist_free(pdp_hist *h)
{
    if (h == NULL)
        return;
    for (size_t i = 0; i < h->h_nseg; i++)
        seg_free(h->h_seg[i]);
    for (size_t i = 0; i < h->h_nchain; i++)
        box_free(h->h_chain[i].hc_key);
    box_free(h->h_chain);
    for (size_t i = 0; i < h->h_nix; i++)
        pdp_hist_index_free(&h->h_ix[i]);
    box_free(h->h_ix);
    box_free(h->h_seg);
    box_free(h);
}

box_arena *
pdp_hist_arena(pdp_hist *h)
{
    hist_seg *last = h->h_seg[h->h_nseg - 1];
    // The next event lands in a new segment when this one is full: its
    // values must be built where it will live.
    if (last->sg_n == PDP_HIST_SEG) {
        if (!seg_push(h))
            return NULL;
        last = h->h_seg[h->h_nseg - 1];
    }
    return last->sg_arena;
}

size_t
pdp_hist_chain_key(const pdp_value *action, const char *kind, size_t klen, char *buf,
          size_t n)
{
    size_t tl = 0, il = 0;
    const char *t = pdp_value_entity_type(action, &tl);
    const char *id = pdp_value_entity_id(action, &il);
    size_t len = tl + 1 + il + 1 + klen;
    if (t == NULL || id == NULL || len > n)
        return 0;
    memcpy(buf, t, tl);
    buf[tl] = '\0';
    memcpy(buf + tl + 1, id, il);
    buf[tl + 1 + il] = '\0';
    memcpy(buf + tl + 2 + il, kind, klen);
    return len;
}

static hist_chain *
chain_find(const pdp_hist *h, const char *key, size_t len)
{
    for (size_t i = 0; i < h->h_nchain; i++)
        if (h->h_chain[i].hc_len == len &&
            memcmp(h->h_chain[i].hc_key, key, len) == 0)
            return &h->h_chain[i];
    return NULL;
}

box_err
pdp_hist_append(pdp_hist *h, const pdp_event *ev)
{
    if (ev->ev_action == NULL || ev->ev_kind == NULL ||
        ev->ev_fields == NULL ||
        pdp_value_kind_of(ev->ev_action) != PDP_VAL_ENTITY ||
        pdp_value_kind_of(ev->ev_fields) != PDP_VAL_RECORD)
        return BOX_EINVAL;
    if (h->h_n > 0 && ev->ev_ts < h->h_last_ts)
        return BOX_EINVAL;
    box_arena *a = pdp_hist_arena(h);
    if (a == NULL)
        return BOX_ENOMEM;
    hist_seg *last = h->h_seg[h->h_nseg - 1];
    char *kind = box_arena_strndup(a, ev->ev_kind, strlen(ev->ev_kind));
    if (kind == NULL)
        return BOX_ENOMEM;
    // The chain of its (action, kind): what a predicate scans.
    char key[HIST_KEY_MAX];
    size_t klen = pdp_hist_chain_key(ev->ev_action, kind, strlen(kind), key,
                            sizeof key);
    hist_chain *ch = klen > 0 ? chain_find(h, key, klen) : NULL;
    if (klen > 0 && ch == NULL) {
        if (h->h_nchain == h->h_capchain) {
            size_t nc = h->h_capchain ? h->h_capchain * 2 : 16;
            hist_chain *nv = box_realloc(h->h_chain, nc * sizeof *nv);
            if (nv == NULL)
                return BOX_ENOMEM;
            h->h_chain = nv;
            h->h_capchain = nc;
        }
        char *k = box_alloc(klen);
        if (k == NULL)
            return BOX_ENOMEM;
        memcpy(k, key, klen);
        ch = &h->h_chain[h->h_nchain++];
        *ch = (hist_chain){k, klen, HIST_NONE};
    }
    uint64_t seq = h->h_base + h->h_n;
    if (klen > 0) {
        box_err irv = pdp_hist_index_event(h, ev, key, klen, seq);
        if (irv != BOX_OK)
            return irv; // undone there: the event is not kept
    }
    last->sg_ev[last->sg_n] = *ev;
    last->sg_ev[last->sg_n].ev_kind = kind;
    // An action id too long for the key gets no chain: scans skip nothing
    // for it (pdp_hist_newest answers "unknown").
    last->sg_prev[last->sg_n] = ch != NULL ? ch->hc_last : HIST_NONE;
    if (ch != NULL)
        ch->hc_last = seq;
    last->sg_n++;
    h->h_n++;
    h->h_last_ts = ev->ev_ts;
    return BOX_OK;
}

size_t
pdp_hist_len(const pdp_hist *h)
{
    return h->h_n;
}

void
pdp_hist_set_state(pdp_hist *h, size_t i, pdp_ev_state st)
{
    if (i < h->h_n)
        h->h_seg[i / PDP_HIST_SEG]->sg_ev[i % PDP_HIST_SEG].ev_state =
            (uint8_t)st;
}

bool
pdp_hist_prev_same(const pdp_hist *h, size_t i, size_t *prev)
{
    uint64_t p = h->h_seg[i / PDP_HIST_SEG]->sg_prev[i % PDP_HIST_SEG];
    if (p == HIST_NONE || p < h->h_base)
        return false;
    *prev = (size_t)(p - h->h_base);
    return true;
}

int
pdp_hist_newest(const pdp_hist *h, const pdp_value *action, const char *kind,
                size_t klen, size_t at, size_t *out)
{
    char key[HIST_KEY_MAX];
    size_t len = pdp_hist_chain_key(action, kind, klen, key, sizeof key);
    if (len == 0)
        return -1; // no chain for such a key: the caller scans
    const hist_chain *ch = chain_find(h, key, len);
    if (ch == NULL || ch->hc_last == HIST_NONE || ch->hc_last < h->h_base)
        return 0;
    size_t i = (size_t)(ch->hc_last - h->h_base);
    while (i > at)
        if (!pdp_hist_prev_same(h, i, &i))
            return 0;
    *out = i;
    return 1;
}

uint64_t
pdp_hist_base(const pdp_hist *h)
{
    return h->h_base;
}

void
pdp_hist_set_base(pdp_hist *h, uint64_t base)
{
    if (h->h_n == 0)
        h->h_base = base;
}

const pdp_event *
pdp_hist_at(const pdp_hist *h, size_t i)
{
    // Every segment but the last is full, the first included: dropping
    // takes whole segments only.
    return &h->h_seg[i / PDP_HIST_SEG]->sg_ev[i % PDP_HIST_SEG];
}

size_t
pdp_hist_drop_before(pdp_hist *h, int64_t ts)
{
    size_t drop = 0;
    while (drop + 1 < h->h_nseg) {
        hist_seg *s = h->h_seg[drop];
        if (s->sg_ev[s->sg_n - 1].ev_ts >= ts)
            break;
        drop++;
    }
    if (drop == 0)
        return 0;
    for (size_t i = 0; i < drop; i++)
        seg_free(h->h_seg[i]);
    memmove(h->h_seg, h->h_seg + drop, (h->h_nseg - drop) * sizeof *h->h_seg);
    h->h_nseg -= drop;
    h->h_n -= drop * PDP_HIST_SEG;
    h->h_base += drop * PDP_HIST_SEG;
    pdp_hist_index_trim(h);
    return drop * PDP_HIST_SEG;
}

const pdp_value *
pdp_hist_field(const pdp_value *fields, const char *path, size_t len)
{
    const pdp_value *v = fields;
    while (v != NULL) {
        if (pdp_value_kind_of(v) != PDP_VAL_RECORD)
            return NULL;
        const char *dot = memchr(path, '.', len);
        size_t seg = dot != NULL ? (size_t)(dot - path) : len;
        v = pdp_value_get(v, path, seg);
        if (dot == NULL)
            return v;
        path += seg + 1;
        len -= seg + 1;
    }
    return NULL;
}
