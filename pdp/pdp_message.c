/* SPDX-License-Identifier: Apache-2.0 */
/* Denial message text, escaping, and reason words (dogwood-spec §6.6). */
#include "pdp_message.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"
#include "box_escape.h"
#include "box_utf8.h"
#include "pdp_int.h"

/* ORDER PDP_REASON */
static const struct {
    const char *rs_name;
    const char *rs_words;
} pdp_reasons[] = {
    {"Permitted", "policy permitted"},
    {"Forbidden", "a forbid rule matched"},
    {"NoMatch", "no permit matched"},
    {"InternalFault", "the request could not be evaluated, so it was refused"},
    {"PolicyPending", "the complete policy bundle is not installed"},
};

const char *
pdp_reason_words(pdp_reason r)
{
    return (unsigned)r < 5 ? pdp_reasons[r].rs_words : "?";
}

const char *
pdp_reason_name(pdp_reason r)
{
    return (unsigned)r < 5 ? pdp_reasons[r].rs_name : "?";
}

/* ---- the message ---- */

/* Largest character boundary <= max in s[0..n). */
static size_t
char_floor(const char *s, size_t n, size_t max)
{
    if (n <= max)
        return n;
    size_t i = max;
    while (i > 0 && ((unsigned char)s[i] & 0xC0) == 0x80)
        i--;
    return i;
}

static int
str_cmp(pdp_str a, pdp_str b)
{
    /* Absent sorts before present (Rust's None < Some). */
    if (a.s == NULL || b.s == NULL)
        return (a.s != NULL) - (b.s != NULL);
    size_t n = a.len < b.len ? a.len : b.len;
    int c = memcmp(a.s, b.s, n);
    if (c != 0)
        return c;
    return a.len < b.len ? -1 : a.len > b.len;
}

static int
rule_cmp(const void *x, const void *y)
{
    const pdp_msg_rule *a = x, *b = y;
    if (a->mr_token != b->mr_token)
        return a->mr_token < b->mr_token ? -1 : 1;
    int c = str_cmp(a->mr_rule_id, b->mr_rule_id);
    if (c == 0)
        c = str_cmp(a->mr_id, b->mr_id);
    if (c == 0)
        c = str_cmp(a->mr_description, b->mr_description);
    return c;
}

static bool
present(pdp_str s)
{
    return s.s != NULL && !pdp_str_blank(s);
}

static box_err
put_cause(box_buf *out, pdp_reason r, const pdp_msg_rule *rules, size_t n)
{
    box_err rv = BOX_OK;
    switch (r) {
    case PDP_REASON_NOMATCH:
    case PDP_REASON_PERMITTED: // a deny never carries this; fail safe
        return box_buf_puts(out, " [default-deny]: No permit policy matched "
                                 "this request.");
    case PDP_REASON_INTERNAL_FAULT:
        return box_buf_puts(out, " because the request could not be "
                                 "evaluated.");
    case PDP_REASON_POLICY_PENDING:
        return box_buf_puts(out, " [policy-pending]: The complete policy "
                                 "bundle is not installed.");
    case PDP_REASON_FORBIDDEN:
        break;
    }
    if (n == 0)
        return box_buf_puts(out, " [policy: <default-deny>].");
    pdp_msg_rule *sorted = box_calloc(n, sizeof(*sorted));
    if (sorted == NULL)
        return BOX_ENOMEM;
    memcpy(sorted, rules, n * sizeof(*sorted));
    qsort(sorted, n, sizeof(*sorted), rule_cmp);
    for (size_t i = 0; i < n && rv == BOX_OK; i++) {
        const pdp_msg_rule *m = &sorted[i];
        pdp_str id = present(m->mr_id) ? m->mr_id : m->mr_rule_id;
        rv = box_buf_puts(out, i == 0 ? " [policy: " : "; [policy: ");
        if (rv == BOX_OK)
            rv = box_escape_ids(out, id.s, id.len);
        if (rv == BOX_OK)
            rv = box_buf_putc(out, ']');
        if (rv == BOX_OK && present(m->mr_description)) {
            rv = box_buf_puts(out, ": ");
            if (rv == BOX_OK)
                rv = box_escape_ids(out, m->mr_description.s,
                                    m->mr_description.len);
        }
    }
    box_free(sorted);
    if (rv != BOX_OK)
        return rv;
    char last = out->b_len ? out->b_data[out->b_len - 1] : 0;
    if (last != '.' && last != '!' && last != '?')
        rv = box_buf_putc(out, '.');
    return rv;
}

box_err
pdp_message_format(pdp_verdict v, pdp_reason r, const char *resource,
                   size_t rlen, const pdp_msg_rule *rules, size_t n,
                   box_buf *out)
{
    /* Build without the cap into scratch buffers, then cut. The scratch
     * caps are generous multiples of the final caps (escaping at most
     * grows a character to 10 bytes). */
    box_buf msg, res;
    box_buf_init(&msg, 1u << 24);
    box_buf_init(&res, PDP_MESSAGE_RESOURCE_MAX + 16);
    box_err rv = box_buf_puts(&msg, v == PDP_ALLOW
                                        ? "policy permitted this operation"
                                        : "policy denied this operation");
    if (rv != BOX_OK)
        goto out;
    pdp_str rs = {resource, rlen};
    if (resource != NULL && rlen > 0 && !pdp_str_blank(rs)) {
        /* Escape character by character until the escaped text would pass
         * the cap. */
        bool cut = false;
        for (size_t i = 0; i < rlen;) {
            uint32_t c;
            size_t k = box_utf8_decode(resource + i, rlen - i, &c);
            if (k == 0)
                k = 1;
            size_t before = res.b_len;
            /* res has room for one escape past the cap; roll it back. */
            if ((rv = box_escape_debug_char(&res, c)) != BOX_OK)
                goto out;
            if (res.b_len > PDP_MESSAGE_RESOURCE_MAX) {
                res.b_len = before;
                res.b_data[before] = '\0';
                cut = true;
                break;
            }
            i += k;
        }
        if ((rv = box_buf_puts(&msg, " on '")) != BOX_OK ||
            (res.b_len > 0 &&
             (rv = box_buf_append(&msg, res.b_data, res.b_len)) != BOX_OK) ||
            (cut && (rv = box_buf_puts(&msg, "...")) != BOX_OK) ||
            (rv = box_buf_putc(&msg, '\'')) != BOX_OK)
            goto out;
    }
    if (v == PDP_ALLOW)
        rv = box_buf_putc(&msg, '.');
    else
        rv = put_cause(&msg, r, rules, n);
    if (rv != BOX_OK)
        goto out;
    if (msg.b_len > PDP_MESSAGE_MAX - 3) {
        size_t keep = char_floor(msg.b_data, msg.b_len, PDP_MESSAGE_MAX - 3);
        if ((rv = box_buf_append(out, msg.b_data, keep)) == BOX_OK)
            rv = box_buf_puts(out, "...");
    } else {
        rv = box_buf_append(out, msg.b_data, msg.b_len);
    }
out:
    box_buf_reset(&msg);
    box_buf_reset(&res);
    return rv;
}
