/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target pdp_reqjson: the request JSON `box policy eval` and
 * `box policy test` read from files. */
#include <string.h>

#include "box_arena.h"
#include "box_buf.h"
#include "box_fuzz.h"
#include "pdp_reqjson.h"

/*
 * Invariants: a request that does not read is refused with a message
 * (and nothing else); one that reads has entity principal, action and
 * resource, a record context and a resource text of its own length.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    box_arena *a = box_arena_new(16u << 20);
    box_buf err;
    box_buf_init(&err, 1u << 16);
    pdp_reqjson rq;
    memset(&rq, 0, sizeof rq);
    if (a == NULL)
        box_fuzz_fail("out of memory");
    box_err rv = pdp_reqjson_parse((const char *)data, size, a, &rq, &err);
    if (rv == BOX_EINVAL) {
        if (err.b_len == 0)
            box_fuzz_fail("a refusal without its reason");
    } else if (rv == BOX_OK) {
        if (pdp_value_kind_of(rq.rj_principal) != PDP_VAL_ENTITY ||
            pdp_value_kind_of(rq.rj_action) != PDP_VAL_ENTITY ||
            pdp_value_kind_of(rq.rj_resource) != PDP_VAL_ENTITY)
            box_fuzz_fail("a request whose scope is not entities");
        if (pdp_value_kind_of(rq.rj_context) != PDP_VAL_RECORD)
            box_fuzz_fail("a request whose context is not a record");
        if (rq.rj_resource_text == NULL ||
            strlen(rq.rj_resource_text) != rq.rj_resource_len)
            box_fuzz_fail("a resource text of another length");
    }
    box_buf_reset(&err);
    box_arena_free(a);
    return 0;
}
