/* SPDX-License-Identifier: Apache-2.0 */
/* The load-time legality check of a temporal leaf (dogwood-spec §4.7). */
#ifndef PDP_TL_CHECK_H
#define PDP_TL_CHECK_H

#include <stddef.h>
#include <stdint.h>

#include "box_buf.h"
#include "box_err.h"
#include "pdp_tl.h"

/* A `within` window as written: an amount and its unit (`s`, `m`, `h`,
 * `d`), so a message can name it the way the policy does ("25h"). */
typedef struct pdp_tl_window {
    int64_t tw_amount;
    char tw_unit;
} pdp_tl_window;

/* The cap on every `within` when the event schema sets no max_window. */
#define PDP_TL_MAX_WINDOW_DEFAULT ((pdp_tl_window){24, 'h'})

/* Scratch space one check may use; a leaf that needs more is refused
 * (BOX_ENOMEM), never half-checked. */
#define PDP_TL_CHECK_SCRATCH_MAX (8u << 20)

/*
 * Dogwood checks a leaf in two stages, and so does this module; each
 * reports the first rule broken, in Dogwood's order, as
 * "FILE:LINE:COL: <Dogwood's message>" in err (replacing what it held),
 * placed at the offending construct. Each returns BOX_OK, BOX_EPARSE
 * with the message, or BOX_ENOMEM (err not touched).
 */

/*
 * The parse stage (Dogwood's Temporal::parse, fatal: the policy does not
 * load), run by the parser on each leaf: reserved binder names,
 * aggregates only as comparison operands and the `for`-domain rules of
 * each aggregate, range restriction of each `exists` (one walk of the
 * tree, so the earlier construct wins), then leaf closedness, then the
 * left-to-right demands of `&&` chains. file names the policy.
 */
box_err pdp_tl_check(const pdp_tl *tl, const char *file,
                     box_buf *err) BOX_WARN_UNUSED;

/* The policy text a leaf was parsed from (the whole text given to
 * pdp_parse: the tree's positions are into it). */
typedef struct pdp_tl_src {
    const char *ts_text;
    size_t ts_len;
    const char *ts_file;
} pdp_tl_src;

/*
 * The schema stage's part that needs no schema (Dogwood's validation of
 * a leaf, which reports these after the schema's own findings): every
 * monitoring scope varies with the timepoint (WF-TpDep), then every
 * `within` at any depth is at most max_window (TEMP-MaxWindow;
 * PDP_TL_MAX_WINDOW_DEFAULT unless the event schema sets another). For a
 * leaf that passed pdp_tl_check; the text is read again only to name a
 * window as written.
 */
box_err pdp_tl_check_schema(const pdp_tl *tl, const pdp_tl_src *src,
                            pdp_tl_window max_window,
                            box_buf *err) BOX_WARN_UNUSED;
/*
 * Its two parts alone, for a validator that runs other checks between
 * them and reports every finding, as Dogwood's does: timepoint
 * dependence (WF-TpDep), and the window cap (TEMP-MaxWindow). Each
 * finding goes to sink with its place and Dogwood's text, in Dogwood's
 * order; the walk goes on while sink returns BOX_OK, and its error
 * otherwise ends the check and is returned. BOX_ENOMEM.
 */
typedef box_err (*pdp_tl_sink)(void *arg, pdp_pos pos, const char *msg);
box_err pdp_tl_check_tpdep(const pdp_tl *tl, pdp_tl_sink sink,
                           void *arg) BOX_WARN_UNUSED;
box_err pdp_tl_check_windows(const pdp_tl *tl, const pdp_tl_src *src,
                             pdp_tl_window max_window, pdp_tl_sink sink,
                             void *arg) BOX_WARN_UNUSED;

#endif
