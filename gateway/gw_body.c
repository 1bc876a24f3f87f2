/* SPDX-License-Identifier: Apache-2.0 */
/* HTTP/1.1 request bodies read and chunks written (gw_body.h). */
#include "gw_body.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_hex.h"
#include "gw_chars.h"

/*
 * The decoder is a state machine that takes framing one byte at a time
 * and payload in runs. It keeps every fact it needs (the chunk size so
 * far, the line lengths) in its state, never a pointer into the input, so
 * a caller hands each byte over once and can reuse its buffer, and a byte
 * is judged the same whatever came in the same call with it: the answer
 * is a function of the bytes alone.
 */

#define STR_(x) #x
#define STR(x) STR_(x)

/* Every refusal. ORDER BERR: berr_tab lists them in this order. */
typedef enum berr {
    B_OK,
    B_TOO_BIG,
    B_BARE_LF,
    B_BARE_CR,
    B_SIZE_SIGN,
    B_SIZE_WS,
    B_SIZE_EMPTY,
    B_SIZE_HEX,
    B_SIZE_END,
    B_SIZE_BIG,
    B_LINE_LONG,
    B_EXTRA_LONG,
    B_EXT_WS,
    B_EXT_NAME,
    B_EXT_VALUE,
    B_EXT_QUOTED,
    B_EXT_END,
    B_DATA_LONG,
    B_TRAILER_LONG,
    B_OBS_FOLD,
    B_TR_NAME,
    B_TR_COLON,
    B_TR_WS,
    B_TR_VALUE,
    B_COUNT
} berr;

static const struct {
    int code;
    const char *text;
} berr_tab[B_COUNT] = {
    [B_OK] = {0, ""},
    [B_TOO_BIG] = {413, "request body over the limit of"}, // + " N bytes"
    [B_BARE_LF] = {400, "chunked body: a line ending in a bare LF "
                        "(CRLF required)"},
    [B_BARE_CR] = {400, "chunked body: a CR not followed by LF"},
    [B_SIZE_SIGN] = {400, "chunked body: a sign before a chunk size "
                          "(hex digits only)"},
    [B_SIZE_WS] = {400, "chunked body: whitespace before a chunk size"},
    [B_SIZE_EMPTY] = {400, "chunked body: an empty chunk size"},
    [B_SIZE_HEX] = {400, "chunked body: a chunk size that is not hex "
                         "digits"},
    [B_SIZE_END] = {400, "chunked body: a chunk size followed by a byte "
                         "other than a hex digit, ';' or CRLF"},
    [B_SIZE_BIG] = {400, "chunked body: a chunk size over 64 bits"},
    [B_LINE_LONG] = {400, "chunked body: a chunk-size line over " STR(
                              GW_BODY_CHUNK_LINE_MAX) " bytes (chunk "
                                                      "extensions too long)"},
    [B_EXTRA_LONG] = {400, "chunked body: chunk extensions, whitespace and "
                           "leading zeros over " STR(
                               GW_BODY_CHUNK_EXTRA_MAX) " bytes in all"},
    [B_EXT_WS] = {400, "chunked body: whitespace in a chunk-size line not "
                       "followed by ';' or '='"},
    [B_EXT_NAME] = {400, "chunked body: a chunk extension name that is not "
                         "a token"},
    [B_EXT_VALUE] = {400, "chunked body: a chunk extension value that is "
                          "neither a token nor a quoted string"},
    [B_EXT_QUOTED] = {400, "chunked body: a control byte in a quoted chunk "
                           "extension value"},
    [B_EXT_END] = {400, "chunked body: a quoted chunk extension value "
                        "followed by a byte other than ';' or CRLF"},
    [B_DATA_LONG] = {400, "chunked body: chunk data longer than its chunk "
                          "size (no CRLF after it)"},
    [B_TRAILER_LONG] = {400, "chunked body: trailer fields over " STR(
                                 GW_BODY_TRAILER_MAX) " bytes"},
    [B_OBS_FOLD] = {400, "chunked body: obsolete line folding (a trailer "
                         "line starting with whitespace)"},
    [B_TR_NAME] = {400, "chunked body: a trailer field name that is not a "
                        "token"},
    [B_TR_COLON] = {400, "chunked body: a trailer field line without a "
                         "colon"},
    [B_TR_WS] = {400, "chunked body: whitespace between a trailer field "
                      "name and its colon"},
    [B_TR_VALUE] = {400, "chunked body: a control byte in a trailer field "
                         "value"},
};

/* Where the decoder is. ORDER BSTATE: step tests ranges of it (the
 * chunk-size line's states, the trailer's). */
typedef enum bstate {
    S_LENGTH, // Content-Length payload; bd_left bytes to come
    // chunk-size [ chunk-ext ] CRLF, up to the CR
    S_SIZE_FIRST, // chunk-size's first hex digit
    S_SIZE,       // more hex digits; bd_left is the size so far
    S_EXT_SEMI,   // BWS that must end in ';'
    S_EXT_NAME0,  // after ';': BWS, then the name's first tchar
    S_EXT_NAME,   // more tchars
    S_EXT_EQ,     // BWS after the name: '=' or ';' must follow
    S_EXT_VAL0,   // after '=': BWS, then a token or a quoted-string
    S_EXT_TOKEN,  // more tchars
    S_EXT_QUOTED, // inside the quotes
    S_EXT_QPAIR,  // after a backslash inside the quotes
    S_EXT_END,    // after the closing quote
    S_SIZE_LF,    // the chunk-size line's LF
    S_DATA,       // chunk-data; bd_left bytes to come
    S_DATA_CR,    // the CRLF after chunk-data
    S_DATA_LF,
    // trailer-section CRLF, after the last chunk
    S_TR_LINE,  // a field line's first byte, or the final CR
    S_TR_NAME,  // more of the field name
    S_TR_VALUE, // after the colon, up to the CR
    S_TR_LF,    // the field line's LF
    S_END_LF,   // the final LF
    S_DONE,
    S_BAD,
} bstate;

struct gw_body_dec {
    bstate bd_state;
    uint64_t bd_max;   // payload limit
    uint64_t bd_total; // payload handed out
    uint64_t bd_left;  // see bstate
    size_t bd_line;    // bytes of the chunk-size line so far
    size_t bd_extra;   // chunk-size line bytes past the sizes' digits
    size_t bd_trailer; // bytes of trailer field lines so far
    int bd_code;
    const char *bd_reason;
    char bd_reason_buf[64]; // B_TOO_BIG's text with the limit
};

static void
set_bad(gw_body_dec *d, berr e)
{
    d->bd_state = S_BAD;
    d->bd_code = berr_tab[e].code;
    d->bd_reason = berr_tab[e].text;
    if (e == B_TOO_BIG) {
        snprintf(d->bd_reason_buf, sizeof d->bd_reason_buf,
                 "%s %" PRIu64 " bytes", berr_tab[e].text, d->bd_max);
        d->bd_reason = d->bd_reason_buf;
    }
}

gw_body_dec *
gw_body_dec_new(box_arena *a, const gw_http_req *rq, uint64_t max)
{
    gw_body_dec *d = box_arena_zalloc(a, sizeof(*d));
    if (d == NULL)
        return NULL;
    d->bd_max = max < GW_BODY_MAX ? max : GW_BODY_MAX;
    if (rq->rq_chunked) {
        d->bd_state = S_SIZE_FIRST;
    } else if (rq->rq_has_content_length && rq->rq_content_length > 0) {
        d->bd_state = S_LENGTH;
        d->bd_left = rq->rq_content_length;
        if (d->bd_left > d->bd_max)
            set_bad(d, B_TOO_BIG);
    } else {
        d->bd_state = S_DONE; // no body, or an empty one
    }
    return d;
}

uint64_t
gw_body_dec_bytes(const gw_body_dec *d)
{
    return d->bd_total;
}

/* ---- character classes (RFC 9110 §5.6.2, §5.6.4) ---- */

/* qdtext: HTAB, SP, VCHAR but '"' and '\', obs-text. */
static bool
is_qdtext(unsigned char c)
{
    return c == '\t' || c == ' ' || c == 0x21 || (c >= 0x23 && c <= 0x5b) ||
           (c >= 0x5d && c <= 0x7e) || c >= 0x80;
}

/* A field value's bytes: VCHAR, obs-text, SP, HTAB (no other control). */
static bool
is_field_byte(unsigned char c)
{
    return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* ---- the chunked grammar, one framing byte at a time ---- */

/* The chunk size is read (its first non-digit came): a chunk that would
 * take the payload past the limit is refused before its data. */
static berr
size_done(gw_body_dec *d, bstate next)
{
    if (d->bd_left > d->bd_max - d->bd_total)
        return B_TOO_BIG;
    d->bd_state = next;
    return B_OK;
}

/* After an extension's name or value: more extensions or the CRLF. */
static berr
ext_next(gw_body_dec *d, unsigned char c, berr otherwise)
{
    if (gw_is_ws(c))
        d->bd_state = S_EXT_SEMI;
    else if (c == ';')
        d->bd_state = S_EXT_NAME0;
    else if (c == '\r')
        d->bd_state = S_SIZE_LF;
    else
        return otherwise;
    return B_OK;
}

/*
 * chunk      = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
 * last-chunk = 1*("0") [ chunk-ext ] CRLF
 * chunk-ext  = *( BWS ";" BWS ext-name [ BWS "=" BWS ext-val ] )
 * ext-val    = token / quoted-string
 * (RFC 9112 §7.1, §7.1.1), the CRLFs after chunk-data included.
 */
static berr
step_chunk(gw_body_dec *d, unsigned char c)
{
    int h;
    switch (d->bd_state) {
    case S_SIZE_FIRST:
        if ((h = box_hexval(c)) >= 0) {
            d->bd_left = (uint64_t)h;
            d->bd_state = S_SIZE;
            return B_OK;
        }
        if (c == '+' || c == '-')
            return B_SIZE_SIGN;
        if (gw_is_ws(c))
            return B_SIZE_WS;
        return c == '\r' ? B_SIZE_EMPTY : B_SIZE_HEX;
    case S_SIZE:
        if ((h = box_hexval(c)) >= 0) {
            if (d->bd_left > UINT64_MAX >> 4)
                return B_SIZE_BIG;
            d->bd_left = d->bd_left << 4 | (uint64_t)h;
            return B_OK;
        }
        if (gw_is_ws(c))
            return size_done(d, S_EXT_SEMI);
        if (c == ';')
            return size_done(d, S_EXT_NAME0);
        if (c == '\r')
            return size_done(d, S_SIZE_LF);
        return B_SIZE_END;
    case S_EXT_SEMI:
        if (c == ';')
            d->bd_state = S_EXT_NAME0;
        else if (!gw_is_ws(c))
            return B_EXT_WS;
        return B_OK;
    case S_EXT_NAME0:
        if (gw_is_tchar(c))
            d->bd_state = S_EXT_NAME;
        else if (!gw_is_ws(c))
            return B_EXT_NAME;
        return B_OK;
    case S_EXT_NAME:
        if (gw_is_tchar(c))
            return B_OK;
        if (c == '=') {
            d->bd_state = S_EXT_VAL0;
            return B_OK;
        }
        if (gw_is_ws(c)) {
            d->bd_state = S_EXT_EQ;
            return B_OK;
        }
        return ext_next(d, c, B_EXT_NAME);
    case S_EXT_EQ:
        if (c == '=')
            d->bd_state = S_EXT_VAL0;
        else if (c == ';')
            d->bd_state = S_EXT_NAME0;
        else if (!gw_is_ws(c))
            return B_EXT_WS;
        return B_OK;
    case S_EXT_VAL0:
        if (c == '"')
            d->bd_state = S_EXT_QUOTED;
        else if (gw_is_tchar(c))
            d->bd_state = S_EXT_TOKEN;
        else if (!gw_is_ws(c))
            return B_EXT_VALUE;
        return B_OK;
    case S_EXT_TOKEN:
        return gw_is_tchar(c) ? B_OK : ext_next(d, c, B_EXT_VALUE);
    case S_EXT_QUOTED:
        if (c == '"')
            d->bd_state = S_EXT_END;
        else if (c == '\\')
            d->bd_state = S_EXT_QPAIR;
        else if (!is_qdtext(c))
            return B_EXT_QUOTED;
        return B_OK;
    case S_EXT_QPAIR: // quoted-pair = "\" ( HTAB / SP / VCHAR / obs-text )
        if (!is_field_byte(c))
            return B_EXT_QUOTED;
        d->bd_state = S_EXT_QUOTED;
        return B_OK;
    case S_EXT_END:
        return ext_next(d, c, B_EXT_END);
    case S_SIZE_LF:
        if (c != '\n')
            return B_BARE_CR;
        d->bd_state = d->bd_left > 0 ? S_DATA : S_TR_LINE;
        return B_OK;
    case S_DATA_CR:
        if (c != '\r')
            return B_DATA_LONG;
        d->bd_state = S_DATA_LF;
        return B_OK;
    case S_DATA_LF:
        if (c != '\n')
            return B_BARE_CR;
        d->bd_state = S_SIZE_FIRST;
        d->bd_line = 0;
        return B_OK;
    default:
        abort(); // step sends only the chunk-line states here
    }
}

/*
 * trailer-section = *( field-line CRLF ) CRLF
 * field-line      = field-name ":" OWS field-value OWS
 * (RFC 9112 §7.1.2, §5), read for shape and dropped.
 */
static berr
step_trailer(gw_body_dec *d, unsigned char c)
{
    switch (d->bd_state) {
    case S_TR_LINE:
        if (c == '\r')
            d->bd_state = S_END_LF;
        else if (gw_is_ws(c))
            return B_OBS_FOLD;
        else if (gw_is_tchar(c))
            d->bd_state = S_TR_NAME;
        else
            return B_TR_NAME;
        return B_OK;
    case S_TR_NAME:
        if (c == ':')
            d->bd_state = S_TR_VALUE;
        else if (gw_is_ws(c))
            return B_TR_WS;
        else if (c == '\r')
            return B_TR_COLON;
        else if (!gw_is_tchar(c))
            return B_TR_NAME;
        return B_OK;
    case S_TR_VALUE:
        if (c == '\r')
            d->bd_state = S_TR_LF;
        else if (!is_field_byte(c))
            return B_TR_VALUE;
        return B_OK;
    case S_TR_LF:
        if (c != '\n')
            return B_BARE_CR;
        d->bd_state = S_TR_LINE;
        return B_OK;
    case S_END_LF:
        if (c != '\n')
            return B_BARE_CR;
        d->bd_state = S_DONE;
        return B_OK;
    default:
        abort(); // step sends only the trailer states here
    }
}

/* One framing byte (never in S_LENGTH, S_DATA, S_DONE or S_BAD): the
 * limits that count it, then its grammar rule. */
static berr
step(gw_body_dec *d, unsigned char c)
{
    bstate s = d->bd_state;
    // A LF is refused wherever it is not the second half of a CRLF.
    if (c == '\n' && s != S_SIZE_LF && s != S_DATA_LF && s != S_TR_LF &&
        s != S_END_LF)
        return B_BARE_LF;
    if (s >= S_SIZE_FIRST && s <= S_EXT_END && c != '\r') {
        if (++d->bd_line > GW_BODY_CHUNK_LINE_MAX)
            return B_LINE_LONG;
        // bd_left is the size so far (0 before its first digit).
        bool digit = s <= S_SIZE && box_hexval(c) >= 0;
        if ((!digit || (c == '0' && d->bd_left == 0)) &&
            ++d->bd_extra > GW_BODY_CHUNK_EXTRA_MAX)
            return B_EXTRA_LONG;
    }
    if (s >= S_TR_LINE && s <= S_TR_LF) {
        if (s == S_TR_LINE && c == '\r')
            return step_trailer(d, c); // the final CRLF is not counted
        if (++d->bd_trailer > GW_BODY_TRAILER_MAX)
            return B_TRAILER_LONG;
    }
    return s >= S_TR_LINE ? step_trailer(d, c) : step_chunk(d, c);
}

gw_body_result
gw_body_feed(gw_body_dec *d, const char *in, size_t in_len, char *out,
             size_t out_cap)
{
    gw_body_result r = {.br_status = GW_BODY_MORE};
    size_t i = 0, o = 0;
    bool settled = d->bd_state == S_DONE || d->bd_state == S_BAD;
    while (!settled && i < in_len) {
        bstate s = d->bd_state;
        if (s == S_LENGTH || s == S_DATA) {
            size_t n = in_len - i;
            if (n > out_cap - o)
                n = out_cap - o;
            if (n > d->bd_left)
                n = (size_t)d->bd_left;
            if (n == 0)
                break; // out is full
            if (out + o != in + i)
                memmove(out + o, in + i, n);
            i += n;
            o += n;
            d->bd_total += n;
            d->bd_left -= n;
            if (d->bd_left == 0)
                d->bd_state = s == S_LENGTH ? S_DONE : S_DATA_CR;
        } else {
            berr e = step(d, (unsigned char)in[i++]);
            if (e != B_OK)
                set_bad(d, e);
        }
        settled = d->bd_state == S_DONE || d->bd_state == S_BAD;
    }
    r.br_used = i;
    r.br_out = o;
    if (d->bd_state == S_DONE) {
        r.br_status = GW_BODY_DONE;
    } else if (d->bd_state == S_BAD) {
        r.br_status = GW_BODY_BAD;
        r.br_code = d->bd_code;
        r.br_reason = d->bd_reason;
    }
    return r;
}

/* ---- the encoder ---- */

_Static_assert(sizeof(size_t) <= 8, "GW_BODY_CHUNK_HEAD_MAX holds 16 digits");

size_t
gw_body_chunk_head(size_t n, char out[GW_BODY_CHUNK_HEAD_MAX])
{
    static const char digits[] = "0123456789abcdef";
    char rev[16];
    size_t k = 0, len = 0;
    for (; n > 0; n >>= 4)
        rev[k++] = digits[n & 0xf];
    if (k == 0) {
        out[0] = '\0';
        return 0;
    }
    while (k > 0)
        out[len++] = rev[--k];
    out[len++] = '\r';
    out[len++] = '\n';
    out[len] = '\0';
    return len;
}
