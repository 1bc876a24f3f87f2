/* SPDX-License-Identifier: Apache-2.0 */
/* The table of Cedar's functions and methods, and the extension types'
 * operations (dogwood-spec §2.3 "Calls"/"Methods", §3.6). */
#include "pdp_ext.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "pdp_int.h"

#define MS_PER_DAY 86400000LL

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

static box_err
ret_bool(pdp_xv *out, bool b)
{
    out->k = PDP_VAL_BOOL;
    out->u.b = b;
    return BOX_OK;
}

static box_err
ret_i64(pdp_xv *out, pdp_value_kind k, int64_t l)
{
    out->k = (uint8_t)k;
    out->u.l = l;
    return BOX_OK;
}

/* ---- constructors: the argument is a String ---- */

static box_err
fn_decimal(const pdp_xv *s, const pdp_xv *arg, box_arena *a, pdp_xv *out,
           char *msg, size_t msglen)
{
    (void)arg, (void)a;
    int64_t v = 0;
    box_err rv = pdp_ext_parse_decimal(s->u.v->u.str.s, s->u.v->u.str.len, &v,
                                       msg, msglen);
    return rv != BOX_OK ? rv : ret_i64(out, PDP_VAL_DECIMAL, v);
}

static box_err
fn_datetime(const pdp_xv *s, const pdp_xv *arg, box_arena *a, pdp_xv *out,
            char *msg, size_t msglen)
{
    (void)arg, (void)a;
    int64_t v = 0;
    box_err rv = pdp_ext_parse_datetime(s->u.v->u.str.s, s->u.v->u.str.len,
                                        &v, msg, msglen);
    return rv != BOX_OK ? rv : ret_i64(out, PDP_VAL_DATETIME, v);
}

static box_err
fn_duration(const pdp_xv *s, const pdp_xv *arg, box_arena *a, pdp_xv *out,
            char *msg, size_t msglen)
{
    (void)arg, (void)a;
    int64_t v = 0;
    box_err rv = pdp_ext_parse_duration(s->u.v->u.str.s, s->u.v->u.str.len,
                                        &v, msg, msglen);
    return rv != BOX_OK ? rv : ret_i64(out, PDP_VAL_DURATION, v);
}

static box_err
fn_ip(const pdp_xv *s, const pdp_xv *arg, box_arena *a, pdp_xv *out,
      char *msg, size_t msglen)
{
    (void)arg;
    pdp_ipaddr ip;
    box_err rv =
        pdp_ext_parse_ip(s->u.v->u.str.s, s->u.v->u.str.len, &ip, msg, msglen);
    if (rv != BOX_OK)
        return rv;
    out->k = PDP_VAL_IPADDR;
    out->u.v = pdp_value_ipaddr(a, &ip);
    return out->u.v != NULL ? BOX_OK : BOX_ENOMEM;
}

/* ---- decimal ---- */

static box_err
m_lt(const pdp_xv *r, const pdp_xv *x, box_arena *a, pdp_xv *out, char *msg,
     size_t msglen)
{
    (void)a, (void)msg, (void)msglen;
    return ret_bool(out, r->u.l < x->u.l);
}

static box_err
m_le(const pdp_xv *r, const pdp_xv *x, box_arena *a, pdp_xv *out, char *msg,
     size_t msglen)
{
    (void)a, (void)msg, (void)msglen;
    return ret_bool(out, r->u.l <= x->u.l);
}

static box_err
m_gt(const pdp_xv *r, const pdp_xv *x, box_arena *a, pdp_xv *out, char *msg,
     size_t msglen)
{
    (void)a, (void)msg, (void)msglen;
    return ret_bool(out, r->u.l > x->u.l);
}

static box_err
m_ge(const pdp_xv *r, const pdp_xv *x, box_arena *a, pdp_xv *out, char *msg,
     size_t msglen)
{
    (void)a, (void)msg, (void)msglen;
    return ret_bool(out, r->u.l >= x->u.l);
}

/* ---- ipaddr ---- */

/* The first and last address of ip's range (network and broadcast). */
static void
ip_range(const pdp_ipaddr *ip, uint8_t lo[16], uint8_t hi[16])
{
    int len = ip->ip_v6 ? 16 : 4;
    for (int i = 0; i < len; i++) {
        int bits = (int)ip->ip_prefix - 8 * i; // prefix bits in this byte
        uint8_t mask = bits >= 8   ? 0xff
                       : bits <= 0 ? 0
                                   : (uint8_t)(0xff << (8 - bits));
        lo[i] = ip->ip_addr[i] & mask;
        hi[i] = (uint8_t)(ip->ip_addr[i] | (uint8_t)~mask);
    }
}

/* a's whole range lies inside b's (same family only). */
static bool
ip_in_range(const pdp_ipaddr *a, const pdp_ipaddr *b)
{
    if (a->ip_v6 != b->ip_v6)
        return false;
    uint8_t alo[16], ahi[16], blo[16], bhi[16];
    size_t len = a->ip_v6 ? 16 : 4;
    ip_range(a, alo, ahi);
    ip_range(b, blo, bhi);
    return memcmp(blo, alo, len) <= 0 && memcmp(ahi, bhi, len) <= 0;
}

static box_err
m_is_ipv4(const pdp_xv *r, const pdp_xv *x, box_arena *a, pdp_xv *out,
          char *msg, size_t msglen)
{
    (void)x, (void)a, (void)msg, (void)msglen;
    return ret_bool(out, !r->u.v->u.ip.ip_v6);
}

static box_err
m_is_ipv6(const pdp_xv *r, const pdp_xv *x, box_arena *a, pdp_xv *out,
          char *msg, size_t msglen)
{
    (void)x, (void)a, (void)msg, (void)msglen;
    return ret_bool(out, r->u.v->u.ip.ip_v6);
}

/* 127.0.0.0/8 (prefix >= 8) or ::1 (prefix 128). */
static box_err
m_is_loopback(const pdp_xv *r, const pdp_xv *x, box_arena *a, pdp_xv *out,
              char *msg, size_t msglen)
{
    (void)x, (void)a, (void)msg, (void)msglen;
    static const uint8_t one[16] = {[15] = 1};
    const pdp_ipaddr *ip = &r->u.v->u.ip;
    if (!ip->ip_v6)
        return ret_bool(out, ip->ip_addr[0] == 127 && ip->ip_prefix >= 8);
    return ret_bool(out,
                    memcmp(ip->ip_addr, one, 16) == 0 && ip->ip_prefix == 128);
}

/* 224.0.0.0/4 (prefix >= 4) or ff00::/8 (prefix >= 8). */
static box_err
m_is_multicast(const pdp_xv *r, const pdp_xv *x, box_arena *a, pdp_xv *out,
               char *msg, size_t msglen)
{
    (void)x, (void)a, (void)msg, (void)msglen;
    const pdp_ipaddr *ip = &r->u.v->u.ip;
    if (!ip->ip_v6)
        return ret_bool(out, (ip->ip_addr[0] & 0xf0) == 0xe0 &&
                                 ip->ip_prefix >= 4);
    return ret_bool(out, ip->ip_addr[0] == 0xff && ip->ip_prefix >= 8);
}

static box_err
m_is_in_range(const pdp_xv *r, const pdp_xv *x, box_arena *a, pdp_xv *out,
              char *msg, size_t msglen)
{
    (void)a, (void)msg, (void)msglen;
    return ret_bool(out, ip_in_range(&r->u.v->u.ip, &x->u.v->u.ip));
}

/* ---- datetime ---- */

/* A datetime's text for a message (cut to the buffer). */
static const char *
dt_text(int64_t ms, char *buf, size_t n)
{
    pdp_value v;
    memset(&v, 0, sizeof(v));
    v.v_kind = PDP_VAL_DATETIME;
    v.u.l = ms;
    box_buf b;
    box_buf_init(&b, n - 1);
    if (pdp_ext_format(&v, &b) == BOX_OK && b.b_data != NULL)
        snprintf(buf, n, "%s", b.b_data);
    else
        snprintf(buf, n, "%lldms", (long long)ms);
    box_buf_reset(&b);
    return buf;
}

static box_err
m_offset(const pdp_xv *r, const pdp_xv *x, box_arena *a, pdp_xv *out,
         char *msg, size_t msglen)
{
    (void)a;
    int64_t v;
    char b[128];
    if (__builtin_add_overflow(r->u.l, x->u.l, &v))
        return ext_err(msg, msglen, "overflows when adding an offset: "
                       "%s+(%lldms)", dt_text(r->u.l, b, sizeof(b)),
                       (long long)x->u.l);
    return ret_i64(out, PDP_VAL_DATETIME, v);
}

static box_err
m_duration_since(const pdp_xv *r, const pdp_xv *x, box_arena *a, pdp_xv *out,
                 char *msg, size_t msglen)
{
    (void)a;
    int64_t v;
    char b1[128], b2[128];
    if (__builtin_sub_overflow(r->u.l, x->u.l, &v))
        return ext_err(msg, msglen, "overflows when computing the duration "
                       "between %s and %s", dt_text(r->u.l, b1, sizeof(b1)),
                       dt_text(x->u.l, b2, sizeof(b2)));
    return ret_i64(out, PDP_VAL_DURATION, v);
}

/* Milliseconds since the day began (UTC), in [0, one day). */
static int64_t
time_of_day(int64_t ms)
{
    int64_t rem = ms % MS_PER_DAY;
    return rem < 0 ? rem + MS_PER_DAY : rem;
}

/* Midnight UTC of the day, toward -infinity before 1970. */
static box_err
m_to_date(const pdp_xv *r, const pdp_xv *x, box_arena *a, pdp_xv *out,
          char *msg, size_t msglen)
{
    (void)x, (void)a;
    int64_t v;
    char b[128];
    if (__builtin_sub_overflow(r->u.l, time_of_day(r->u.l), &v))
        return ext_err(msg, msglen, "overflows when computing the date of %s",
                       dt_text(r->u.l, b, sizeof(b)));
    return ret_i64(out, PDP_VAL_DATETIME, v);
}

static box_err
m_to_time(const pdp_xv *r, const pdp_xv *x, box_arena *a, pdp_xv *out,
          char *msg, size_t msglen)
{
    (void)x, (void)a, (void)msg, (void)msglen;
    return ret_i64(out, PDP_VAL_DURATION, time_of_day(r->u.l));
}

/* ---- duration: whole units, truncated toward zero ---- */

#define DURATION_TO(fn, per)                                                  \
    static box_err fn(const pdp_xv *r, const pdp_xv *x, box_arena *a,         \
                      pdp_xv *out, char *msg, size_t msglen)                  \
    {                                                                         \
        (void)x, (void)a, (void)msg, (void)msglen;                            \
        return ret_i64(out, PDP_VAL_LONG, r->u.l / (per));                    \
    }
DURATION_TO(m_to_ms, 1)
DURATION_TO(m_to_s, 1000)
DURATION_TO(m_to_min, 60000)
DURATION_TO(m_to_h, 3600000)
DURATION_TO(m_to_d, MS_PER_DAY)

/* ---- the table ---- */

#define ANY PDP_XK_ANY
#define M PDP_XS_METHOD
#define F PDP_XS_FUNCTION
#define BOOL_ PDP_VAL_BOOL
#define LONG_ PDP_VAL_LONG
#define STR_ PDP_VAL_STRING
#define SET_ PDP_VAL_SET
#define ENT_ PDP_VAL_ENTITY
#define DEC_ PDP_VAL_DECIMAL
#define IP_ PDP_VAL_IPADDR
#define DT_ PDP_VAL_DATETIME
#define DUR_ PDP_VAL_DURATION

/* ORDER PDP_M */
static const pdp_ext_fn pdp_ext_fns[PDP_M_COUNT] = {
    {"contains", M, 1, SET_, ANY, BOOL_, "", NULL},
    {"containsAll", M, 1, SET_, SET_, BOOL_, "", NULL},
    {"containsAny", M, 1, SET_, SET_, BOOL_, "", NULL},
    {"isEmpty", M, 0, SET_, ANY, BOOL_, "", NULL},
    {"hasTag", M, 1, ENT_, STR_, BOOL_, "", NULL},
    {"getTag", M, 1, ENT_, STR_, ANY, "", NULL},
    {"decimal", F, 1, STR_, ANY, DEC_, "decimal", fn_decimal},
    {"ip", F, 1, STR_, ANY, IP_, "ipaddr", fn_ip},
    {"datetime", F, 1, STR_, ANY, DT_, "datetime", fn_datetime},
    {"duration", F, 1, STR_, ANY, DUR_, "duration", fn_duration},
    {"lessThan", M, 1, DEC_, DEC_, BOOL_, "decimal", m_lt},
    {"lessThanOrEqual", M, 1, DEC_, DEC_, BOOL_, "decimal", m_le},
    {"greaterThan", M, 1, DEC_, DEC_, BOOL_, "decimal", m_gt},
    {"greaterThanOrEqual", M, 1, DEC_, DEC_, BOOL_, "decimal", m_ge},
    {"isIpv4", M, 0, IP_, ANY, BOOL_, "ipaddr", m_is_ipv4},
    {"isIpv6", M, 0, IP_, ANY, BOOL_, "ipaddr", m_is_ipv6},
    {"isLoopback", M, 0, IP_, ANY, BOOL_, "ipaddr", m_is_loopback},
    {"isMulticast", M, 0, IP_, ANY, BOOL_, "ipaddr", m_is_multicast},
    {"isInRange", M, 1, IP_, IP_, BOOL_, "ipaddr", m_is_in_range},
    {"offset", M, 1, DT_, DUR_, DT_, "offset", m_offset},
    {"durationSince", M, 1, DT_, DT_, DUR_, "durationSince", m_duration_since},
    {"toDate", M, 0, DT_, ANY, DT_, "toDate", m_to_date},
    {"toTime", M, 0, DT_, ANY, DUR_, "toTime", m_to_time},
    {"toMilliseconds", M, 0, DUR_, ANY, LONG_, "toMilliseconds", m_to_ms},
    {"toSeconds", M, 0, DUR_, ANY, LONG_, "toSeconds", m_to_s},
    {"toMinutes", M, 0, DUR_, ANY, LONG_, "toMinutes", m_to_min},
    {"toHours", M, 0, DUR_, ANY, LONG_, "toHours", m_to_h},
    {"toDays", M, 0, DUR_, ANY, LONG_, "toDays", m_to_d},
};

#undef ANY
#undef M
#undef F
#undef BOOL_
#undef LONG_
#undef STR_
#undef SET_
#undef ENT_
#undef DEC_
#undef IP_
#undef DT_
#undef DUR_

const pdp_ext_fn *
pdp_ext_fn_of(pdp_method m)
{
    return (unsigned)m < PDP_M_COUNT ? &pdp_ext_fns[m] : NULL;
}

bool
pdp_ext_lookup(const char *s, size_t n, pdp_ext_style style, pdp_method *out)
{
    for (size_t i = 0; i < PDP_M_COUNT; i++) {
        const pdp_ext_fn *f = &pdp_ext_fns[i];
        if (f->xf_style == style && strlen(f->xf_name) == n &&
            memcmp(f->xf_name, s, n) == 0) {
            *out = (pdp_method)i;
            return true;
        }
    }
    return false;
}

box_err
pdp_ext_construct(pdp_method m, const char *s, size_t n, box_arena *a,
                  const pdp_value **out, char *msg, size_t msglen)
{
    const pdp_ext_fn *f = pdp_ext_fn_of(m);
    *out = NULL;
    if (f == NULL || f->xf_style != PDP_XS_FUNCTION)
        return BOX_EINVAL;
    pdp_value str;
    memset(&str, 0, sizeof(str));
    str.v_kind = PDP_VAL_STRING;
    str.u.str.s = s;
    str.u.str.len = n;
    pdp_xv arg = {.k = PDP_VAL_STRING, .u.v = &str}, res = {0};
    char why[PDP_EXT_MSG_MAX];
    box_err rv = f->xf_impl(&arg, NULL, a, &res, why, sizeof(why));
    if (rv == BOX_EINVAL)
        return ext_err(msg, msglen, "error while evaluating `%s` extension "
                       "function: %s", f->xf_ext, why);
    if (rv != BOX_OK)
        return rv;
    switch (res.k) {
    case PDP_VAL_DECIMAL:
        *out = pdp_value_decimal(a, res.u.l);
        break;
    case PDP_VAL_DATETIME:
        *out = pdp_value_datetime(a, res.u.l);
        break;
    case PDP_VAL_DURATION:
        *out = pdp_value_duration(a, res.u.l);
        break;
    default:
        *out = res.u.v;
        break;
    }
    return *out != NULL ? BOX_OK : BOX_ENOMEM;
}
