/* SPDX-License-Identifier: Apache-2.0 */
/* An in-memory history: an array of events over one arena. */
#include "pdp_hist.h"

#include <string.h>

#include "box_alloc.h"

#define PDP_HIST_ARENA_MAX ((size_t)1 << 34) // the caps are the PDP's own

struct pdp_hist {
    box_arena *h_arena;
    pdp_event *h_ev;
    size_t h_n, h_cap;
};

pdp_hist *
pdp_hist_new(void)
{
    pdp_hist *h = box_calloc(1, sizeof *h);
    if (h == NULL)
        return NULL;
    h->h_arena = box_arena_new(PDP_HIST_ARENA_MAX);
    if (h->h_arena == NULL) {
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
    box_arena_free(h->h_arena);
    box_free(h->h_ev);
    box_free(h);
}

box_arena *
pdp_hist_arena(pdp_hist *h)
{
    return h->h_arena;
}

box_err
pdp_hist_append(pdp_hist *h, const pdp_event *ev)
{
    if (ev->ev_action == NULL || ev->ev_kind == NULL ||
        ev->ev_fields == NULL ||
        pdp_value_kind_of(ev->ev_action) != PDP_VAL_ENTITY ||
        pdp_value_kind_of(ev->ev_fields) != PDP_VAL_RECORD)
        return BOX_EINVAL;
    if (h->h_n > 0 && ev->ev_ts < h->h_ev[h->h_n - 1].ev_ts)
        return BOX_EINVAL;
    if (h->h_n == h->h_cap) {
        size_t nc = h->h_cap ? h->h_cap * 2 : 64;
        pdp_event *nv = box_realloc(h->h_ev, nc * sizeof *nv);
        if (nv == NULL)
            return BOX_ENOMEM;
        h->h_ev = nv;
        h->h_cap = nc;
    }
    char *kind = box_arena_strndup(h->h_arena, ev->ev_kind,
                                   strlen(ev->ev_kind));
    if (kind == NULL)
        return BOX_ENOMEM;
    h->h_ev[h->h_n] = *ev;
    h->h_ev[h->h_n].ev_kind = kind;
    h->h_n++;
    return BOX_OK;
}

size_t
pdp_hist_len(const pdp_hist *h)
{
    return h->h_n;
}

const pdp_event *
pdp_hist_at(const pdp_hist *h, size_t i)
{
    return &h->h_ev[i];
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
