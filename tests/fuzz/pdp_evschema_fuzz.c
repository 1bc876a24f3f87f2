/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target pdp_evschema: a `.dwschema` event schema (dogwood-spec §5),
 * which `box policy replay --event-schema` and the conformance cases read
 * from files, then the events derived from it over Box's action schema. */
#include <string.h>

#include "box_buf.h"
#include "box_fuzz.h"
#include "pdp_evschema.h"
#include "pdp_schema.h"

/*
 * Invariants: a text that does not parse is refused with a message
 * naming its place and no schema; one that parses declares at least one
 * kind, each of them found again by name, and derives (or refuses for
 * size) events that each name a declared kind.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static pdp_schema *box_actions; // built once: the fuzzer's own state
    if (box_actions == NULL) {
        char *err = NULL;
        if (pdp_schema_load_builtin(&box_actions, &err) != BOX_OK)
            box_fuzz_fail("Box's action schema does not load");
    }
    pdp_evschema *es = NULL;
    pdp_evset *set = NULL;
    box_buf err;
    box_buf_init(&err, 1u << 16);
    box_err rv =
        pdp_evschema_parse((const char *)data, size, "fuzz.dwschema", &es, &err);
    if (rv == BOX_EPARSE) {
        if (es != NULL || err.b_len == 0 ||
            strncmp(err.b_data, "fuzz.dwschema:", 14) != 0)
            box_fuzz_fail("a refusal without its place, or with a schema");
        goto out;
    }
    if (rv != BOX_OK) {
        if (es != NULL)
            box_fuzz_fail("a refused schema kept");
        goto out;
    }
    if (pdp_evschema_kind_count(es) == 0)
        box_fuzz_fail("a schema that declares no event");
    for (size_t i = 0; i < pdp_evschema_kind_count(es); i++) {
        size_t len = 0;
        const char *k = pdp_evschema_kind_at(es, i, &len);
        if (k == NULL || len == 0 || !pdp_evschema_has_kind(es, k, len))
            box_fuzz_fail("a declared kind not found by its name");
    }
    box_buf_reset(&err);
    if (pdp_evset_derive(es, box_actions, &set, &err) == BOX_OK) {
        for (size_t i = 0; i < pdp_evset_count(set); i++) {
            const char *k = pdp_evsig_kind(pdp_evset_at(set, i));
            if (k == NULL || !pdp_evschema_has_kind(es, k, strlen(k)))
                box_fuzz_fail("an event of a kind not declared");
        }
    }
out:
    pdp_evset_free(set);
    pdp_evschema_free(es);
    box_buf_reset(&err);
    return 0;
}
