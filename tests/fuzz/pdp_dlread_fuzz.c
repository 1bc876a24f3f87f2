/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target pdp_dlread: a decision log as `box policy diff --log` reads
 * it from a file a user names. */
#include <stdbool.h>
#include <string.h>

#include "box_buf.h"
#include "box_fuzz.h"
#include "pdp_dlread.h"

/*
 * Invariants: a log that does not read is refused with a "file:line: why"
 * message (and nothing else); one that reads has its records in line
 * order (from line 1), each decision with an action and a verdict of permit or deny,
 * and every listed string present.
 */
static void
check_list(const char *const *v, size_t n)
{
    if (n > 0 && v == NULL)
        box_fuzz_fail("a list of strings without its strings");
    for (size_t i = 0; i < n; i++)
        if (v[i] == NULL)
            box_fuzz_fail("a string of a list is missing");
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    box_buf err;
    box_buf_init(&err, 1u << 16);
    pdp_dlread log;
    memset(&log, 0, sizeof log);
    box_err rv = pdp_dlread_load((const char *)data, size, "log", &log, &err);
    if (rv == BOX_EPARSE) {
        if (err.b_len == 0 || strncmp(err.b_data, "log:", 4) != 0)
            box_fuzz_fail("a refusal without its \"log:line:\" place");
    } else if (rv == BOX_OK) {
        if (err.b_len != 0)
            box_fuzz_fail("a log that read, with a message");
        uint32_t last = 1; // a line may hold several records
        for (size_t i = 0; i < log.dl_n; i++) {
            const pdp_dlrec *r = &log.dl_recs[i];
            if (r->dr_line < last)
                box_fuzz_fail("records out of line order");
            last = r->dr_line;
            if (r->dr_kind == PDP_DLREC_DECISION &&
                (r->dr_action == NULL || r->dr_verdict == NULL ||
                 (strcmp(r->dr_verdict, "permit") != 0 &&
                  strcmp(r->dr_verdict, "deny") != 0)))
                box_fuzz_fail("a decision without an action or a verdict");
            check_list(r->dr_determining, r->dr_ndetermining);
            check_list(r->dr_args, r->dr_nargs);
        }
    } else if (rv != BOX_ENOMEM) {
        box_fuzz_fail("pdp_dlread_load failed another way");
    }
    pdp_dlread_free(&log);
    box_buf_reset(&err);
    return 0;
}
