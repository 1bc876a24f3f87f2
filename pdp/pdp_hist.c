/* SPDX-License-Identifier: Apache-2.0 */
/*
 * An in-memory history in segments of PDP_HIST_SEG events, each with the
 * arena its events' values live in, so events that have aged out of every
 * window are freed a whole segment at a time (pdp_hist_drop_before).
 */
#include "pdp_hist.h"

#include <string.h>

#include "box_alloc.h"

#define PDP_HIST_SEG 4096u                        // events per segment
#define PDP_HIST_SEG_ARENA ((size_t)1 << 32)      // a segment's value cap

typedef struct hist_seg {
    box_arena *sg_arena;
    pdp_event sg_ev[PDP_HIST_SEG];
    size_t sg_n;
} hist_seg;

struct pdp_hist {
    hist_seg **h_seg; // h_seg[0] is the oldest kept
    size_t h_nseg, h_capseg;
    size_t h_n;       // events kept
    uint64_t h_base;  // events forgotten
    int64_t h_last_ts;
};

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
    last->sg_ev[last->sg_n] = *ev;
    last->sg_ev[last->sg_n].ev_kind = kind;
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
