/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target pdp_trace: the trace.log reader `box policy replay` and
 * `box policy eval --history` feed untrusted files to. */
#include <string.h>

#include "box_buf.h"
#include "box_fuzz.h"
#include "pdp_hist.h"
#include "pdp_trace.h"

/*
 * The input is a trace text. Invariants: a text that does not load is
 * refused with a "file:line:col: …" message and leaves the history empty
 * (all or nothing); one that loads gives events that each have an entity
 * action, a kind and a record of fields, in non-decreasing time, one
 * source line each.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pdp_hist *h = pdp_hist_new();
    box_buf err;
    box_buf_init(&err, 1u << 16);
    const uint32_t *lines = NULL;
    if (h == NULL)
        box_fuzz_fail("out of memory");
    box_err rv = pdp_trace_load((const char *)data, size, "fuzz.log", h,
                                &lines, &err);
    if (rv == BOX_ENOMEM) {
        // A history of events past the cap: the arena said no. Fine.
    } else if (rv != BOX_OK) {
        if (err.b_len == 0 || strncmp(err.b_data, "fuzz.log:", 9) != 0)
            box_fuzz_fail("a refusal without its place");
        if (pdp_hist_len(h) != 0)
            box_fuzz_fail("a refused trace left events behind");
    } else {
        for (size_t i = 0; i < pdp_hist_len(h); i++) {
            const pdp_event *e = pdp_hist_at(h, i);
            if (pdp_value_kind_of(e->ev_action) != PDP_VAL_ENTITY ||
                e->ev_kind == NULL || e->ev_kind[0] == '\0' ||
                pdp_value_kind_of(e->ev_fields) != PDP_VAL_RECORD)
                box_fuzz_fail("an event without action, kind or fields");
            if (i > 0 && e->ev_ts < pdp_hist_at(h, i - 1)->ev_ts)
                box_fuzz_fail("time went back");
            if (lines == NULL || lines[i] == 0)
                box_fuzz_fail("an event without its line");
        }
    }
    box_buf_reset(&err);
    pdp_hist_free(h);
    return 0;
}
