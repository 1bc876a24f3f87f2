/* SPDX-License-Identifier: Apache-2.0 */
/* The literal formats of Cedar's extension types: parse and print. */
#include "pdp_ext.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "box_hex.h"
#include "pdp_int.h"

/*
 * Each parser takes a whole Cedar string (any bytes; a policy string is
 * UTF-8) and accepts exactly the grammar of dogwood-spec §3.6, checked
 * byte by byte with no locale and no libc number parsing, and with
 * checked 64-bit arithmetic. Error texts are Cedar's, so a log line
 * reads the same as the reference engine's; a string quoted in a text is
 * cut by the caller's buffer, never overrun.
 */

#define MS_PER_SEC 1000LL
#define MS_PER_MIN (60 * MS_PER_SEC)
#define MS_PER_HOUR (60 * MS_PER_MIN)
#define MS_PER_DAY (24 * MS_PER_HOUR)

static box_err __attribute__((format(printf, 3, 4)))
ext_err(char *msg, size_t msglen, const char *fmt, ...)
{
    if (msglen > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, msglen, fmt, ap);
        va_end(ap);
    }
    return BOX_EINVAL;
}

static bool
is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Quoted strings in messages are cut here (the message buffer is finite
 * anyway; this keeps the rest of the text readable). */
#define QUOTE_MAX 200
#define Q(n) ((int)((n) > QUOTE_MAX ? QUOTE_MAX : (n)))

/* ---- decimal ---- */

/* decimal -> [ '-' ] DIGIT+ '.' DIGIT{1..4} */
box_err
pdp_ext_parse_decimal(const char *s, size_t n, int64_t *out, char *msg,
                      size_t msglen)
{
    size_t i = 0;
    bool neg = n > 0 && s[0] == '-';
    if (neg)
        i++;
    size_t int0 = i;
    while (i < n && is_digit(s[i]))
        i++;
    size_t dot = i;
    if (dot == int0 || dot >= n || s[dot] != '.')
        goto malformed;
    i++;
    while (i < n && is_digit(s[i]))
        i++;
    if (i == dot + 1 || i != n)
        goto malformed;
    /* Accumulate below zero so that the most negative value fits. */
    int64_t acc = 0;
    for (size_t k = int0; k < dot; k++) {
        if (__builtin_mul_overflow(acc, 10, &acc) ||
            __builtin_sub_overflow(acc, s[k] - '0', &acc))
            goto overflow;
    }
    if (__builtin_mul_overflow(acc, 10000, &acc))
        goto overflow;
    size_t nfrac = n - dot - 1;
    if (nfrac > 4)
        return ext_err(msg, msglen, "too many digits after the decimal in "
                       "`%.*s`", Q(n), s);
    int64_t frac = 0;
    for (size_t k = 0; k < 4; k++)
        frac = frac * 10 + (k < nfrac ? s[dot + 1 + k] - '0' : 0);
    if (__builtin_sub_overflow(acc, frac, &acc))
        goto overflow;
    if (!neg && __builtin_sub_overflow((int64_t)0, acc, &acc))
        goto overflow;
    *out = acc;
    return BOX_OK;
malformed:
    return ext_err(msg, msglen, "`%.*s` is not a well-formed decimal value",
                   Q(n), s);
overflow:
    return ext_err(msg, msglen, "overflow when converting to decimal");
}

/* ---- ipaddr ---- */

/* The longest text an address with a prefix can take:
 * ABCD:EF01:2345:6789:ABCD:EF01:2345:6789/128 */
#define IP_TEXT_MAX 43

/* v4 -> OCTET '.' OCTET '.' OCTET '.' OCTET, each 0..255 in 1-3 digits
 * with no leading zero. */
static bool
parse_v4(const char *s, size_t n, uint8_t out[4])
{
    size_t i = 0;
    for (int seg = 0; seg < 4; seg++) {
        if (seg > 0) {
            if (i >= n || s[i] != '.')
                return false;
            i++;
        }
        size_t st = i;
        unsigned v = 0;
        while (i < n && is_digit(s[i]) && i - st < 3)
            v = v * 10 + (unsigned)(s[i++] - '0');
        if (i == st || (i < n && is_digit(s[i])) ||
            (s[st] == '0' && i - st > 1) || v > 255)
            return false;
        out[seg] = (uint8_t)v;
    }
    return i == n;
}

/* v6 -> groups of 1-4 hex digits separated by ':', eight of them, or
 * fewer around one '::' that stands for at least one zero group. */
static bool
parse_v6(const char *s, size_t n, uint8_t out[16])
{
    uint16_t head[8], tail[8];
    int nh = 0, nt = 0;
    bool gap = false;
    size_t i = 0;
    if (n >= 2 && s[0] == ':' && s[1] == ':') {
        gap = true;
        i = 2;
    } else if (n == 0 || s[0] == ':') {
        return false;
    }
    while (i < n) {
        size_t st = i;
        unsigned v = 0;
        while (i < n && box_hexval(s[i]) >= 0 && i - st < 4)
            v = v * 16 + (unsigned)box_hexval(s[i++]);
        if (i == st || (i < n && box_hexval(s[i]) >= 0))
            return false;
        if (gap ? nt == 8 : nh == 8)
            return false;
        if (gap)
            tail[nt++] = (uint16_t)v;
        else
            head[nh++] = (uint16_t)v;
        if (i == n)
            break;
        if (s[i++] != ':' || i == n)
            return false;
        if (s[i] == ':') {
            if (gap)
                return false;
            gap = true;
            i++;
        }
    }
    if (gap ? nh + nt > 7 : nh != 8)
        return false;
    uint16_t g[8] = {0};
    for (int k = 0; k < nh; k++)
        g[k] = head[k];
    for (int k = 0; k < nt; k++)
        g[8 - nt + k] = tail[k];
    for (int k = 0; k < 8; k++) {
        out[2 * k] = (uint8_t)(g[k] >> 8);
        out[2 * k + 1] = (uint8_t)g[k];
    }
    return true;
}

static bool
parse_addr(const char *s, size_t n, pdp_ipaddr *ip)
{
    memset(ip, 0, sizeof(*ip));
    if (parse_v4(s, n, ip->ip_addr)) {
        ip->ip_prefix = 32;
        return true;
    }
    if (parse_v6(s, n, ip->ip_addr)) {
        ip->ip_v6 = true;
        ip->ip_prefix = 128;
        return true;
    }
    return false;
}

/* prefix -> DIGIT+ without a leading zero, at most max (in maxlen
 * digits). */
static box_err
parse_prefix(const char *p, size_t n, unsigned max, size_t maxlen,
             uint8_t *out, char *msg, size_t msglen)
{
    if (n > maxlen)
        return ext_err(msg, msglen, "error parsing prefix: string length %zu "
                       "is too large", n);
    if (n == 0)
        return ext_err(msg, msglen, "error parsing prefix from the string "
                       "``: cannot parse integer from empty string");
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(p[i]))
            return ext_err(msg, msglen, "error parsing prefix `%.*s`: "
                           "encountered non-digit", (int)n, p);
        v = v * 10 + (unsigned)(p[i] - '0');
    }
    if (p[0] == '0' && n > 1)
        return ext_err(msg, msglen, "error parsing prefix `%.*s`: leading "
                       "zero(s)", (int)n, p);
    if (v > max)
        return ext_err(msg, msglen, "error parsing prefix: %u is larger than "
                       "the limit %u", v, max);
    *out = (uint8_t)v;
    return BOX_OK;
}

/* ip -> ( v4 | v6 ) [ '/' prefix ]; at most 43 bytes; no IPv4 written
 * inside IPv6 (Cedar refuses a text with two ':' and two '.'). */
box_err
pdp_ext_parse_ip(const char *s, size_t n, pdp_ipaddr *out, char *msg,
                 size_t msglen)
{
    if (n > IP_TEXT_MAX)
        return ext_err(msg, msglen, "error parsing IP address from string "
                       "`%.*s`: string length is too large", Q(n), s);
    size_t colons = 0, dots = 0;
    for (size_t i = 0; i < n; i++) {
        colons += s[i] == ':';
        dots += s[i] == '.';
    }
    if (colons >= 2 && dots >= 2)
        return ext_err(msg, msglen, "error parsing IP address from string: We "
                       "do not accept IPv4 embedded in IPv6 (e.g., "
                       "::ffff:127.0.0.1). Found: `%.*s`", (int)n, s);
    const char *slash = memchr(s, '/', n);
    pdp_ipaddr ip;
    if (slash == NULL) {
        if (!parse_addr(s, n, &ip))
            return ext_err(msg, msglen, "invalid IP address: %.*s", (int)n, s);
        *out = ip;
        return BOX_OK;
    }
    size_t an = (size_t)(slash - s);
    if (!parse_addr(s, an, &ip))
        return ext_err(msg, msglen, "error parsing IP address from the string "
                       "`%.*s`: invalid IP address syntax", (int)an, s);
    box_err rv = parse_prefix(slash + 1, n - an - 1, ip.ip_v6 ? 128 : 32,
                              ip.ip_v6 ? 3 : 2, &ip.ip_prefix, msg, msglen);
    if (rv == BOX_OK)
        *out = ip;
    return rv;
}

/* ---- datetime ---- */

static bool
is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

static int
month_days(int64_t y, int m)
{
    static const int days[12] = {31, 28, 31, 30, 31, 30,
                                 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

/* Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
 * (eras of 400 years, 146097 days, counted from March 1st so that the
 * leap day ends a year). */
static int64_t
days_from_civil(int64_t y, int m, int d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

/* The inverse of days_from_civil. */
static void
civil_from_days(int64_t z, int64_t *y, int *m, int *d)
{
    z += 719468;
    int64_t era = (z >= 0 ? z : z - 146096) / 146097;
    int64_t doe = z - era * 146097;
    int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    int64_t mp = (5 * doy + 2) / 153;
    *d = (int)(doy - (153 * mp + 2) / 5 + 1);
    *m = (int)(mp < 10 ? mp + 3 : mp - 9);
    *y = yoe + era * 400 + (*m <= 2);
}

/* n ASCII digits at s as a number, or -1. */
static int
digits(const char *s, size_t n)
{
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!is_digit(s[i]))
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

/*
 * datetime -> DATE [ 'T' hh ':' mm ':' ss [ '.' SSS ] OFFSET ]
 * DATE -> YYYY '-' MM '-' DD      OFFSET -> 'Z' | ( '+' | '-' ) hhmm
 * Checked in Cedar's order: the date's shape, the time's shape, the
 * tail's shape, then the date, the time and the offset's ranges.
 */
box_err
pdp_ext_parse_datetime(const char *s, size_t n, int64_t *out, char *msg,
                       size_t msglen)
{
    int y, mo, d;
    if (n < 10 || (y = digits(s, 4)) < 0 || s[4] != '-' ||
        (mo = digits(s + 5, 2)) < 0 || s[7] != '-' ||
        (d = digits(s + 8, 2)) < 0)
        return ext_err(msg, msglen, "invalid date pattern");
    bool date_ok = mo >= 1 && mo <= 12 && d >= 1 && d <= month_days(y, mo);
    int h = 0, mi = 0, sec = 0, ms = 0, off = 0;
    if (n > 10) {
        if (n < 19 || s[10] != 'T' || (h = digits(s + 11, 2)) < 0 ||
            s[13] != ':' || (mi = digits(s + 14, 2)) < 0 || s[16] != ':' ||
            (sec = digits(s + 17, 2)) < 0)
            return ext_err(msg, msglen, "invalid hour/minute/second pattern");
        const char *t = s + 19;
        size_t tn = n - 19;
        if (tn >= 4 && t[0] == '.' && (ms = digits(t + 1, 3)) >= 0) {
            t += 4;
            tn -= 4;
        } else {
            ms = 0;
        }
        int oh = 0, om = 0;
        bool zulu = tn == 1 && t[0] == 'Z';
        if (!zulu && !(tn == 5 && (t[0] == '+' || t[0] == '-') &&
                       (oh = digits(t + 1, 2)) >= 0 &&
                       (om = digits(t + 3, 2)) >= 0))
            return ext_err(msg, msglen, "invalid millisecond and/or offset "
                           "pattern");
        if (!date_ok)
            return ext_err(msg, msglen, "invalid date: %.10s", s);
        if (h > 23 || mi > 59 || sec > 59)
            return ext_err(msg, msglen, "invalid hour/minute/second: %.8s",
                           s + 11);
        if (!zulu) {
            if (oh >= 24 || om >= 60)
                return ext_err(msg, msglen, "invalid offset range: %d%d", oh,
                               om);
            off = (oh * 60 + om) * 60 * (t[0] == '+' ? 1 : -1);
        }
    } else if (!date_ok) {
        return ext_err(msg, msglen, "invalid date: %.10s", s);
    }
    /* Years 0000..9999 keep every term far inside int64. */
    *out = days_from_civil(y, mo, d) * MS_PER_DAY + h * MS_PER_HOUR +
           mi * MS_PER_MIN + (int64_t)(sec - off) * MS_PER_SEC + ms;
    return BOX_OK;
}

/* ---- duration ---- */

/* duration -> [ '-' ] ( INT 'd' )? ( INT 'h' )? ( INT 'm' )? ( INT 's' )?
 *             ( INT 'ms' )?, at least one. Summed in Cedar's order
 * (ms, s, m, h, d), each step checked. */
box_err
pdp_ext_parse_duration(const char *s, size_t n, int64_t *out, char *msg,
                       size_t msglen)
{
    static const struct {
        const char *du_unit;
        int64_t du_ms;
    } units[] = {
        {"d", MS_PER_DAY}, {"h", MS_PER_HOUR}, {"m", MS_PER_MIN},
        {"s", MS_PER_SEC}, {"ms", 1},
    };
    enum { NUNITS = sizeof(units) / sizeof(units[0]) };
    uint64_t amount[NUNITS] = {0};
    bool big[NUNITS] = {false};
    size_t i = 0;
    bool neg = n > 0 && s[0] == '-';
    if (neg)
        i++;
    if (i == n)
        goto pattern;
    size_t next = 0; // the first unit still allowed
    while (i < n) {
        size_t st = i;
        uint64_t v = 0;
        bool over = false;
        while (i < n && is_digit(s[i])) {
            uint64_t dv = (uint64_t)(s[i++] - '0');
            over = over || v > (UINT64_MAX - dv) / 10;
            v = v * 10 + dv;
        }
        if (i == st)
            goto pattern;
        size_t u = NUNITS;
        if (n - i >= 2 && s[i] == 'm' && s[i + 1] == 's')
            u = 4;
        else if (i < n)
            for (size_t k = 0; k < 4; k++)
                if (s[i] == units[k].du_unit[0])
                    u = k;
        if (u == NUNITS || u < next)
            goto pattern;
        i += strlen(units[u].du_unit);
        amount[u] = v;
        big[u] = over;
        next = u + 1;
    }
    int64_t ms = 0;
    for (size_t k = NUNITS; k > 0; k--) {
        size_t u = k - 1;
        uint64_t a = amount[u];
        int64_t term;
        if (big[u])
            goto overflow;
        if (u == 4 && neg && a == (uint64_t)INT64_MAX + 1) {
            ms = INT64_MIN; // the first term: ms is still 0
            continue;
        }
        if (a > (uint64_t)INT64_MAX ||
            __builtin_mul_overflow((int64_t)a, units[u].du_ms, &term) ||
            (neg ? __builtin_sub_overflow(ms, term, &ms)
                 : __builtin_add_overflow(ms, term, &ms)))
            goto overflow;
    }
    *out = ms;
    return BOX_OK;
pattern:
    return ext_err(msg, msglen, "invalid duration pattern");
overflow:
    return ext_err(msg, msglen, "Duration overflows internal representation");
}

/* ---- printing ---- */

static box_err
format_decimal(int64_t v, box_buf *out)
{
    uint64_t mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
    return box_buf_printf(out, "decimal(\"%s%llu.%04llu\")", v < 0 ? "-" : "",
                          (unsigned long long)(mag / 10000),
                          (unsigned long long)(mag % 10000));
}

static box_err
format_ip(const pdp_ipaddr *ip, box_buf *out)
{
    box_err rv = box_buf_puts(out, "ip(\"");
    const uint8_t *a = ip->ip_addr;
    if (rv == BOX_OK && !ip->ip_v6)
        rv = box_buf_printf(out, "%u.%u.%u.%u", a[0], a[1], a[2], a[3]);
    if (rv == BOX_OK && ip->ip_v6) {
        /* RFC 5952: the longest run (first on a tie) of two or more zero
         * groups becomes "::"; hex in lower case without leading zeros. */
        unsigned g[8];
        int best = -1, bestlen = 1;
        for (int k = 0; k < 8; k++)
            g[k] = (unsigned)a[2 * k] << 8 | a[2 * k + 1];
        for (int k = 0; k < 8;) {
            int e = k;
            while (e < 8 && g[e] == 0)
                e++;
            if (e - k > bestlen) {
                best = k;
                bestlen = e - k;
            }
            k = e > k ? e : k + 1;
        }
        for (int k = 0; k < 8 && rv == BOX_OK; k++) {
            if (k == best) {
                rv = box_buf_puts(out, "::");
                k += bestlen - 1;
                continue;
            }
            bool sep = k > 0 && k != best + bestlen;
            rv = box_buf_printf(out, "%s%x", sep ? ":" : "", g[k]);
        }
    }
    if (rv == BOX_OK)
        rv = box_buf_printf(out, "/%u\")", ip->ip_prefix);
    return rv;
}

static box_err
format_datetime(int64_t v, box_buf *out)
{
    int64_t rem = v % MS_PER_DAY;
    int64_t days = v / MS_PER_DAY - (rem < 0);
    if (rem < 0)
        rem += MS_PER_DAY;
    int64_t y;
    int m, d;
    civil_from_days(days, &y, &m, &d);
    if (y < 0 || y > 9999)
        return box_buf_printf(out, "datetime(\"1970-01-01\").offset(duration("
                              "\"%lldms\"))", (long long)v);
    int ms = (int)(rem % 1000);
    box_err rv = box_buf_printf(
        out, "datetime(\"%04lld-%02d-%02dT%02d:%02d:%02d", (long long)y, m, d,
        (int)(rem / MS_PER_HOUR), (int)(rem / MS_PER_MIN % 60),
        (int)(rem / MS_PER_SEC % 60));
    if (rv == BOX_OK && ms != 0)
        rv = box_buf_printf(out, ".%03d", ms);
    return rv != BOX_OK ? rv : box_buf_puts(out, "Z\")");
}

box_err
pdp_ext_format(const pdp_value *v, box_buf *out)
{
    switch ((pdp_value_kind)v->v_kind) {
    case PDP_VAL_DECIMAL:
        return format_decimal(v->u.l, out);
    case PDP_VAL_IPADDR:
        return format_ip(&v->u.ip, out);
    case PDP_VAL_DATETIME:
        return format_datetime(v->u.l, out);
    case PDP_VAL_DURATION:
        return box_buf_printf(out, "duration(\"%lldms\")", (long long)v->u.l);
    default:
        return BOX_EINVAL;
    }
}
