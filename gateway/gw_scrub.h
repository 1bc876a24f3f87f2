/* SPDX-License-Identifier: Apache-2.0 */
/* Replaces each copy of a secret in a stream with `[REDACTED]` (box-spec §6). */
#ifndef GW_SCRUB_H
#define GW_SCRUB_H

#include <stdbool.h>
#include <stddef.h>

#include "box_buf.h"

#define GW_SCRUB_MARK "[REDACTED]"
#define GW_SCRUB_NEEDLES 2 // a secret and one other spelling of it
#define GW_SCRUB_NEEDLE_MAX 16384 // longer needles are ignored: the routes refuse such secrets

/*
 * A response on a credentialed request passes through one of these, so an
 * upstream that echoes the credential (an error page quoting the header, a
 * debug endpoint) never hands the real secret to the sandbox. The stream
 * may split a copy anywhere: the scrubber holds back the last (longest
 * needle - 1) bytes of each feed until the next shows whether they begin
 * a copy. The needles are borrowed and must outlive the scrubber; each is
 * non-empty.
 */
typedef struct gw_scrub {
    const char *s_needle[GW_SCRUB_NEEDLES];
    size_t s_len[GW_SCRUB_NEEDLES];
    size_t s_count;
    size_t s_longest;
    box_buf s_hold; // bytes held back, at most s_longest - 1
} gw_scrub;

/* A scrubber for the count needles (1..GW_SCRUB_NEEDLES, each with its
 * length). */
void gw_scrub_init(gw_scrub *s, const char *const *needles,
                   const size_t *lens, size_t count);
void gw_scrub_free(gw_scrub *s);

/* Appends to out what of buf[0..n) (after what is held) is known to be
 * free of a copy, with each copy replaced. BOX_ENOMEM / BOX_ETOOBIG from
 * out. */
box_err gw_scrub_feed(gw_scrub *s, const char *buf, size_t n,
                      box_buf *out) BOX_WARN_UNUSED;

/* The stream ended: appends what was held. */
box_err gw_scrub_end(gw_scrub *s, box_buf *out) BOX_WARN_UNUSED;

/* One whole string at once (a header line): text[0..n) scrubbed to out. */
box_err gw_scrub_all(const char *const *needles, const size_t *lens,
                     size_t count, const char *text, size_t n,
                     box_buf *out) BOX_WARN_UNUSED;

#endif
