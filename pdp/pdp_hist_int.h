/* SPDX-License-Identifier: Apache-2.0 */
/* pdp_hist's internals, shared by pdp_hist.c and pdp_hist_index.c. */
#ifndef PDP_HIST_INT_H
#define PDP_HIST_INT_H

#include "pdp_hist.h"

#define PDP_HIST_SEG 4096u // events per segment
#define HIST_NONE UINT64_MAX
#define HIST_KEY_MAX 1024 // "type\0id\0kind" of a chain or an index

typedef struct hist_seg {
    box_arena *sg_arena;
    pdp_event sg_ev[PDP_HIST_SEG];
    uint64_t sg_prev[PDP_HIST_SEG]; // previous of the same action and kind
    size_t sg_n;
} hist_seg;

/* The newest event of one (action, kind): the head of its chain. The
 * key is the history's own copy (events' values go with their segment). */
typedef struct hist_chain {
    char *hc_key; // "type\0id\0kind"
    size_t hc_len;
    uint64_t hc_last; // sequence number
} hist_chain;

/* One value of an index: the events holding it, ascending. */
struct hix_vec {
    char *hv_key; // the value's canonical encoding; NULL: an empty slot
    size_t hv_klen;
    uint64_t *hv_seq;
    size_t hv_n, hv_cap;
};
typedef struct hix_vec hix_vec;

/* The values of one field of one (action, kind)'s events. */
typedef struct hix {
    char *ix_akey; // "type\0id\0kind"
    size_t ix_aklen;
    char *ix_path;
    size_t ix_plen;
    hix_vec *ix_slots; // open addressing, ix_nslots a power of two
    size_t ix_nslots, ix_used;
} hix;

struct pdp_hist {
    hist_seg **h_seg; // h_seg[0] is the oldest kept
    size_t h_nseg, h_capseg;
    size_t h_n;      // events kept
    uint64_t h_base; // events forgotten
    hist_chain *h_chain; // one per (action, kind) seen
    size_t h_nchain, h_capchain;
    int64_t h_last_ts;
    hix *h_ix; // the value indexes asked for (pdp_hist_index)
    size_t h_nix, h_capix;
};

/* "type\0id\0kind" of an action and kind into buf (n bytes); its length,
 * or 0 when it does not fit. */
size_t pdp_hist_chain_key(const pdp_value *action, const char *kind,
                          size_t klen, char *buf, size_t n);
/* Event seq into every index of its (action, kind) (key akey). */
box_err pdp_hist_index_event(pdp_hist *h, const pdp_event *e,
                             const char *akey, size_t aklen, uint64_t seq);
/* Drops what precedes the history's base from every index. */
void pdp_hist_index_trim(pdp_hist *h);
void pdp_hist_index_free(hix *ix);

#endif
