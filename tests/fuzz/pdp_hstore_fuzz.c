/* SPDX-License-Identifier: Apache-2.0 */
/* Fuzz target pdp_hstore: a box's history file as box-pdp replays it at
 * start (and `box policy diff` reads it): a file a crash, a full disk or
 * a hand can leave in any state. */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_fuzz.h"
#include "pdp_hist.h"
#include "pdp_hstore.h"

/* The input as the file at path; false when it cannot be written. */
static bool
put_file(const char *path, const uint8_t *data, size_t size)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        return false;
    bool ok = size == 0 || write(fd, data, size) == (ssize_t)size;
    close(fd);
    return ok;
}

/* Every event well-formed and in time order; a pending or void state
 * only where it may stand. */
static void
check_events(const pdp_hist *h)
{
    for (size_t i = 0; i < pdp_hist_len(h); i++) {
        const pdp_event *e = pdp_hist_at(h, i);
        if (pdp_value_kind_of(e->ev_action) != PDP_VAL_ENTITY ||
            e->ev_kind == NULL || e->ev_kind[0] == '\0' ||
            pdp_value_kind_of(e->ev_fields) != PDP_VAL_RECORD)
            box_fuzz_fail("an event without action, kind or fields");
        if (e->ev_state > PDP_EV_VOID)
            box_fuzz_fail("an event in no known state");
        if (i > 0 && e->ev_ts < pdp_hist_at(h, i - 1)->ev_ts)
            box_fuzz_fail("time went back");
    }
}

/*
 * Invariants: reading refuses (with a reason) or gives well-formed events;
 * opening (which cuts a torn tail) gives the same events as reading, and
 * a second open of what the first left finds nothing more to cut.
 */
int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char path[64];
    snprintf(path, sizeof path, "/tmp/box-fuzz-hstore.%d", (int)getpid());
    if (!put_file(path, data, size))
        box_fuzz_fail("cannot write the input file");
    pdp_hist *h = pdp_hist_new(), *h2 = pdp_hist_new(), *h3 = pdp_hist_new();
    pdp_hstore_rules r = {0}, r2 = {0}, r3 = {0};
    char *warn = NULL, *err = NULL;
    pdp_hstore *s = NULL;
    if (h == NULL || h2 == NULL || h3 == NULL)
        box_fuzz_fail("out of memory");
    box_err rv = pdp_hstore_read(path, h, &r, &warn, &err);
    if (rv != BOX_OK) {
        if (err == NULL || err[0] == '\0')
            box_fuzz_fail("a refusal without its reason");
        if (pdp_hist_len(h) != 0)
            box_fuzz_fail("a refused history left events behind");
        goto out;
    }
    check_events(h);
    box_free(warn);
    warn = NULL;
    if (pdp_hstore_open(path, h2, &r2, &s, &warn, &err) != BOX_OK)
        box_fuzz_fail("a history that reads does not open");
    pdp_hstore_close(s);
    s = NULL;
    if (pdp_hist_len(h2) != pdp_hist_len(h))
        box_fuzz_fail("opening kept other events than reading");
    box_free(warn);
    warn = NULL;
    if (pdp_hstore_open(path, h3, &r3, &s, &warn, &err) != BOX_OK)
        box_fuzz_fail("a history opened once does not open again");
    if (warn != NULL)
        box_fuzz_fail("a second open found a tail to cut");
    if (pdp_hist_len(h3) != pdp_hist_len(h))
        box_fuzz_fail("the second open kept other events");
out:
    pdp_hstore_close(s);
    box_free(warn);
    box_free(err);
    pdp_hstore_rules_free(&r);
    pdp_hstore_rules_free(&r2);
    pdp_hstore_rules_free(&r3);
    pdp_hist_free(h);
    pdp_hist_free(h2);
    pdp_hist_free(h3);
    unlink(path);
    return 0;
}
