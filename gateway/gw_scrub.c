/* SPDX-License-Identifier: Apache-2.0 */
/* Streaming secret redaction. */
#include "gw_scrub.h"

#include <string.h>

/* The hold is at most a piece plus the longest needle (secrets are capped
 * at GW_SCRUB_NEEDLE_MAX). */
#define SCRUB_PIECE 16384
#define SCRUB_HOLD_MAX (SCRUB_PIECE + GW_SCRUB_NEEDLE_MAX)

void
gw_scrub_init(gw_scrub *s, const char *const *needles, const size_t *lens,
              size_t count)
{
    memset(s, 0, sizeof *s);
    if (count > GW_SCRUB_NEEDLES)
        count = GW_SCRUB_NEEDLES;
    for (size_t i = 0; i < count; i++) {
        if (lens[i] == 0 || lens[i] > GW_SCRUB_NEEDLE_MAX)
            continue; // an empty needle would match everywhere
        s->s_needle[s->s_count] = needles[i];
        s->s_len[s->s_count] = lens[i];
        if (lens[i] > s->s_longest)
            s->s_longest = lens[i];
        s->s_count++;
    }
    box_buf_init(&s->s_hold, SCRUB_HOLD_MAX);
}

void
gw_scrub_free(gw_scrub *s)
{
    box_buf_reset(&s->s_hold);
}

/* The first copy of any needle in p[0..n): its offset and which, or n. */
static size_t
scrub_first(const gw_scrub *s, const char *p, size_t n, size_t *which)
{
    size_t best = n;
    for (size_t i = 0; i < s->s_count; i++) {
        const char *hit = memmem(p, n, s->s_needle[i], s->s_len[i]);
        if (hit != NULL && (size_t)(hit - p) < best) {
            best = (size_t)(hit - p);
            *which = i;
        }
    }
    return best;
}

/* Scrubs p[0..n) to out, keeping back the last `keep` bytes when they
 * hold no whole copy; returns how many bytes of p were used. */
static box_err
scrub_span(const gw_scrub *s, const char *p, size_t n, bool final,
           box_buf *out, size_t *used)
{
    size_t at = 0;
    for (;;) {
        size_t which = 0;
        size_t hit = scrub_first(s, p + at, n - at, &which);
        if (hit == n - at)
            break;
        BOX_TRY(box_buf_append(out, p + at, hit));
        BOX_TRY(box_buf_puts(out, GW_SCRUB_MARK));
        at += hit + s->s_len[which];
    }
    // No whole copy is left; a copy that began in the last longest-1
    // bytes would end past them.
    size_t keep = final || s->s_longest == 0 ? 0 : s->s_longest - 1;
    size_t rest = n - at;
    size_t emit = rest > keep ? rest - keep : 0;
    BOX_TRY(box_buf_append(out, p + at, emit));
    *used = at + emit;
    return BOX_OK;
}

box_err
gw_scrub_feed(gw_scrub *s, const char *buf, size_t n, box_buf *out)
{
    if (s->s_count == 0)
        return box_buf_append(out, buf, n);
    // Held bytes and the next piece form one span; pieces keep the hold
    // small whatever the caller feeds.
    while (n > 0) {
        size_t piece = n < SCRUB_PIECE ? n : SCRUB_PIECE;
        BOX_TRY(box_buf_append(&s->s_hold, buf, piece));
        buf += piece;
        n -= piece;
        size_t used = 0;
        BOX_TRY(scrub_span(s, s->s_hold.b_data, s->s_hold.b_len, false, out,
                           &used));
        size_t left = s->s_hold.b_len - used;
        memmove(s->s_hold.b_data, s->s_hold.b_data + used, left);
        box_buf_truncate(&s->s_hold, left);
    }
    return BOX_OK;
}

box_err
gw_scrub_end(gw_scrub *s, box_buf *out)
{
    size_t used = 0;
    box_err rv = BOX_OK;
    if (s->s_hold.b_len > 0)
        rv = scrub_span(s, s->s_hold.b_data, s->s_hold.b_len, true, out,
                        &used);
    box_buf_truncate(&s->s_hold, 0);
    return rv;
}

box_err
gw_scrub_all(const char *const *needles, const size_t *lens, size_t count,
             const char *text, size_t n, box_buf *out)
{
    gw_scrub s;
    gw_scrub_init(&s, needles, lens, count);
    size_t used = 0;
    box_err rv = scrub_span(&s, text, n, true, out, &used);
    gw_scrub_free(&s);
    return rv;
}
