/* SPDX-License-Identifier: Apache-2.0 */
/* Time zones for date: TZif files and POSIX TZ strings, read here rather
 * than through the C library, whose one zone per process (setenv TZ,
 * tzset) would race between the call's threads. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_date.h"

/*
 * The zone files are the system's data, not a file of the call: no
 * policy decides them, and they are read with open(2) directly (the
 * shell worker's Landlock grants /usr/share/zoneinfo read-only, nothing
 * else outside its binds). Only names below that directory are read.
 */
#define TZ_DIR "/usr/share/zoneinfo/"
#define TZ_FILE_MAX (1u << 20)
#define TZ_MAX_TYPES 256

/* One rule date of a POSIX TZ string: Jn (1-365, no Feb 29), n (0-365)
 * or Mm.w.d; at tr_time seconds local time. */
typedef struct tz_rule {
    char tr_kind; // 'J', 'N', 'M'
    int tr_day, tr_mon, tr_week, tr_wday;
    long tr_time;
} tz_rule;

typedef struct tz_posix {
    char tp_std[32], tp_dst[32];
    long tp_stdoff, tp_dstoff; // seconds east
    bool tp_hasdst;
    tz_rule tp_start, tp_end;
} tz_posix;

typedef struct tz_type {
    long tt_off;
    bool tt_dst;
    char tt_abbr[32];
} tz_type;

struct dt_tz {
    int64_t *z_tr;  // transition instants, ascending
    uint8_t *z_idx; // the type from each on
    size_t z_ntr;
    tz_type z_types[TZ_MAX_TYPES];
    size_t z_ntypes;
    bool z_posix_set;
    tz_posix z_posix; // after the last transition (or alone)
};

/* ---- calendar ---- */

int64_t
dt_days_from_civil(int64_t y, int64_t m, int64_t d)
{
    y -= m <= 2;
    int64_t era = (y >= 0 ? y : y - 399) / 400;
    int64_t yoe = y - era * 400;
    int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

void
dt_civil_from_days(int64_t z, int64_t *y, int *m, int *d)
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

static bool
is_leap(int64_t y)
{
    return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

int
dt_month_days(int64_t y, int m)
{
    static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

static int64_t
floordiv(int64_t a, int64_t b)
{
    return a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
}

void
dt_gmtime(int64_t t, long off, const char *abbr, dt_tm *out)
{
    int64_t l = t + off;
    int64_t days = floordiv(l, 86400);
    int64_t secs = l - days * 86400;
    int m, d;
    int64_t y;
    dt_civil_from_days(days, &y, &m, &d);
    memset(out, 0, sizeof *out);
    out->tm_year = y;
    out->tm_mon = m - 1;
    out->tm_mday = d;
    out->tm_hour = (int)(secs / 3600);
    out->tm_min = (int)(secs / 60 % 60);
    out->tm_sec = (int)(secs % 60);
    out->tm_wday = (int)((days % 7 + 11) % 7); // 1970-01-01 was a Thursday
    out->tm_yday = (int)(days - dt_days_from_civil(y, 1, 1));
    out->tm_off = off;
    snprintf(out->tm_abbr, sizeof out->tm_abbr, "%s", abbr);
}

/* ---- POSIX TZ strings ---- */

/* A zone name: letters (3 or more), or <…> with signs and digits. */
static const char *
px_name(const char *s, char *out, size_t size)
{
    const char *b = s, *e;
    if (*s == '<') {
        b = ++s;
        while (*s && *s != '>')
            s++;
        if (*s != '>')
            return NULL;
        e = s++;
    } else {
        while ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z'))
            s++;
        e = s;
        if (e - b < 3)
            return NULL;
    }
    snprintf(out, size, "%.*s", (int)(e - b), b);
    return s;
}

/* [+-]hh[:mm[:ss]] as seconds (positive as written). */
static const char *
px_time(const char *s, long *out)
{
    int sign = 1;
    if (*s == '+' || *s == '-')
        sign = *s++ == '-' ? -1 : 1;
    if (*s < '0' || *s > '9')
        return NULL;
    long v[3] = {0, 0, 0};
    for (int i = 0; i < 3; i++) {
        if (i > 0) {
            if (*s != ':' || s[1] < '0' || s[1] > '9')
                break;
            s++;
        }
        int n = 0;
        while (*s >= '0' && *s <= '9' && n < 3) {
            v[i] = v[i] * 10 + (*s++ - '0');
            n++;
        }
    }
    *out = sign * (v[0] * 3600 + v[1] * 60 + v[2]);
    return s;
}

static const char *
px_rule(const char *s, tz_rule *r)
{
    char *end;
    memset(r, 0, sizeof *r);
    r->tr_time = 7200;
    if (*s == 'J' || (*s >= '0' && *s <= '9')) {
        r->tr_kind = *s == 'J' ? 'J' : 'N';
        if (*s == 'J')
            s++;
        r->tr_day = (int)strtol(s, &end, 10);
        if (end == s)
            return NULL;
        s = end;
    } else if (*s == 'M') {
        r->tr_kind = 'M';
        r->tr_mon = (int)strtol(s + 1, &end, 10);
        if (*end != '.')
            return NULL;
        r->tr_week = (int)strtol(end + 1, &end, 10);
        if (*end != '.')
            return NULL;
        r->tr_wday = (int)strtol(end + 1, &end, 10);
        s = end;
        if (r->tr_mon < 1 || r->tr_mon > 12 || r->tr_week < 1 ||
            r->tr_week > 5 || r->tr_wday < 0 || r->tr_wday > 6)
            return NULL;
    } else {
        return NULL;
    }
    if (*s == '/') {
        s = px_time(s + 1, &r->tr_time);
        if (s == NULL)
            return NULL;
    }
    return s;
}

/* "STDoff[DST[off][,start[/time],end[/time]]]": false when malformed. */
static bool
px_parse(const char *s, tz_posix *p)
{
    memset(p, 0, sizeof *p);
    long off;
    if ((s = px_name(s, p->tp_std, sizeof p->tp_std)) == NULL ||
        (s = px_time(s, &off)) == NULL)
        return false;
    p->tp_stdoff = -off;
    if (*s == '\0')
        return true;
    if ((s = px_name(s, p->tp_dst, sizeof p->tp_dst)) == NULL)
        return false;
    p->tp_hasdst = true;
    p->tp_dstoff = p->tp_stdoff + 3600;
    if (*s != ',' && *s != '\0') {
        if ((s = px_time(s, &off)) == NULL)
            return false;
        p->tp_dstoff = -off;
    }
    if (*s == '\0') { // glibc's default: the US rules
        px_rule("M3.2.0", &p->tp_start);
        px_rule("M11.1.0", &p->tp_end);
        return true;
    }
    if (*s != ',' || (s = px_rule(s + 1, &p->tp_start)) == NULL || *s != ',' ||
        (s = px_rule(s + 1, &p->tp_end)) == NULL)
        return false;
    return *s == '\0';
}

/* The local day (days since the epoch) a rule names in year y. */
static int64_t
px_rule_day(const tz_rule *r, int64_t y)
{
    int64_t jan1 = dt_days_from_civil(y, 1, 1);
    if (r->tr_kind == 'J')
        return jan1 + r->tr_day - 1 + (is_leap(y) && r->tr_day >= 60);
    if (r->tr_kind == 'N')
        return jan1 + r->tr_day;
    int64_t first = dt_days_from_civil(y, r->tr_mon, 1);
    int wd = (int)((first % 7 + 11) % 7);
    int64_t d = first + (r->tr_wday - wd + 7) % 7 + (r->tr_week - 1) * 7;
    int64_t last = first + dt_month_days(y, r->tr_mon) - 1;
    while (d > last)
        d -= 7;
    return d;
}

/* Whether t is in DST under p. */
static bool
px_isdst(const tz_posix *p, int64_t t)
{
    if (!p->tp_hasdst)
        return false;
    int64_t y;
    int m, d;
    dt_civil_from_days(floordiv(t + p->tp_stdoff, 86400), &y, &m, &d);
    int64_t start = px_rule_day(&p->tp_start, y) * 86400 + p->tp_start.tr_time -
                    p->tp_stdoff;
    int64_t end =
        px_rule_day(&p->tp_end, y) * 86400 + p->tp_end.tr_time - p->tp_dstoff;
    if (start < end)
        return t >= start && t < end;
    return !(t >= end && t < start);
}

/* ---- TZif ---- */

static uint32_t
be32(const unsigned char *p)
{
    return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 |
           p[3];
}

static int64_t
be64(const unsigned char *p)
{
    return (int64_t)((uint64_t)be32(p) << 32 | be32(p + 4));
}

/* The file's bytes, or NULL. */
static unsigned char *
tz_read(const char *name, size_t *len)
{
    if (strstr(name, "..") != NULL)
        return NULL;
    char path[512];
    if (strncmp(name, TZ_DIR, strlen(TZ_DIR)) == 0)
        snprintf(path, sizeof path, "%s", name);
    else if (name[0] == '/')
        return NULL;
    else
        snprintf(path, sizeof path, TZ_DIR "%s", name);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    box_buf b;
    box_buf_init(&b, TZ_FILE_MAX);
    char chunk[4096];
    ssize_t r;
    bool ok = true;
    while (ok && (r = read(fd, chunk, sizeof chunk)) > 0)
        ok = box_buf_append(&b, chunk, (size_t)r) == BOX_OK;
    close(fd);
    if (!ok || b.b_len == 0) {
        box_buf_reset(&b);
        return NULL;
    }
    *len = b.b_len;
    return (unsigned char *)box_buf_take(&b);
}

/* A TZif file of version 2 or later (the 64-bit data) into z. */
static bool
tz_parse_file(dt_tz *z, const unsigned char *b, size_t len)
{
    if (len < 44 || memcmp(b, "TZif", 4) != 0 || b[4] < '2')
        return false;
    // Skip the version 1 block.
    size_t v1 = 44 + (size_t)be32(b + 32) * 5 + (size_t)be32(b + 36) * 6 +
                be32(b + 40) + (size_t)be32(b + 28) * 8 + be32(b + 24) +
                be32(b + 20);
    if (v1 + 44 > len)
        return false;
    const unsigned char *h = b + v1;
    if (memcmp(h, "TZif", 4) != 0)
        return false;
    size_t isut = be32(h + 20), isstd = be32(h + 24), leap = be32(h + 28);
    size_t ntr = be32(h + 32), ntypes = be32(h + 36), nchar = be32(h + 40);
    size_t need = 44 + ntr * 9 + ntypes * 6 + nchar + leap * 12 + isstd + isut;
    if (ntypes == 0 || ntypes > TZ_MAX_TYPES || v1 + need > len)
        return false;
    const unsigned char *p = h + 44;
    z->z_tr = box_calloc(ntr ? ntr : 1, sizeof *z->z_tr);
    z->z_idx = box_calloc(ntr ? ntr : 1, 1);
    if (z->z_tr == NULL || z->z_idx == NULL)
        return false;
    for (size_t i = 0; i < ntr; i++)
        z->z_tr[i] = be64(p + i * 8);
    p += ntr * 8;
    for (size_t i = 0; i < ntr; i++)
        z->z_idx[i] = p[i] < ntypes ? p[i] : 0;
    p += ntr;
    const unsigned char *chars = p + ntypes * 6;
    for (size_t i = 0; i < ntypes; i++) {
        tz_type *t = &z->z_types[i];
        t->tt_off = (long)(int32_t)be32(p + i * 6);
        t->tt_dst = p[i * 6 + 4] != 0;
        size_t ai = p[i * 6 + 5];
        if (ai < nchar)
            snprintf(t->tt_abbr, sizeof t->tt_abbr, "%.*s",
                     (int)strnlen((const char *)chars + ai, nchar - ai),
                     chars + ai);
    }
    z->z_ntr = ntr;
    z->z_ntypes = ntypes;
    z->z_posix_set = false; // unless the footer gives a rule
    const unsigned char *foot = h + need;
    size_t rest = len - v1 - need;
    if (rest >= 2 && foot[0] == '\n') {
        const unsigned char *e = memchr(foot + 1, '\n', rest - 1);
        if (e != NULL && e > foot + 1) {
            char s[128];
            snprintf(s, sizeof s, "%.*s", (int)(e - foot - 1), foot + 1);
            z->z_posix_set = px_parse(s, &z->z_posix);
        }
    }
    return true;
}

dt_tz *
dt_tz_load(const char *tz)
{
    dt_tz *z = box_calloc(1, sizeof *z);
    if (z == NULL)
        return NULL;
    z->z_posix_set = true;
    snprintf(z->z_posix.tp_std, sizeof z->z_posix.tp_std, "UTC");
    if (tz == NULL || tz[0] == '\0')
        return z;
    const char *name = tz[0] == ':' ? tz + 1 : tz;
    size_t len = 0;
    unsigned char *b = tz_read(name, &len);
    bool ok = b != NULL && tz_parse_file(z, b, len);
    box_free(b);
    if (ok)
        return z;
    box_free(z->z_tr);
    box_free(z->z_idx);
    z->z_tr = NULL;
    z->z_idx = NULL;
    z->z_ntr = z->z_ntypes = 0;
    if (px_parse(name, &z->z_posix))
        return z;
    // glibc: a value that is neither is UTC under its leading letters.
    memset(&z->z_posix, 0, sizeof z->z_posix);
    size_t n = 0;
    while ((name[n] >= 'a' && name[n] <= 'z') ||
           (name[n] >= 'A' && name[n] <= 'Z'))
        n++;
    snprintf(z->z_posix.tp_std, sizeof z->z_posix.tp_std, "%.*s", (int)n, name);
    if (n < 3)
        snprintf(z->z_posix.tp_std, sizeof z->z_posix.tp_std, "UTC");
    return z;
}

void
dt_tz_free(dt_tz *z)
{
    if (z == NULL)
        return;
    box_free(z->z_tr);
    box_free(z->z_idx);
    box_free(z);
}

/* The type in force at t. */
static void
tz_at(const dt_tz *z, int64_t t, long *off, bool *dst, const char **abbr)
{
    bool use_posix =
        z->z_ntypes == 0 ||
        (z->z_posix_set && z->z_ntr > 0 && t >= z->z_tr[z->z_ntr - 1]) ||
        (z->z_posix_set && z->z_ntr == 0);
    if (use_posix) {
        const tz_posix *p = &z->z_posix;
        bool d = px_isdst(p, t);
        *off = d ? p->tp_dstoff : p->tp_stdoff;
        *dst = d;
        *abbr = d ? p->tp_dst : p->tp_std;
        return;
    }
    size_t type = 0;
    if (z->z_ntr > 0 && t >= z->z_tr[0]) {
        size_t lo = 0, hi = z->z_ntr;
        while (hi - lo > 1) {
            size_t mid = (lo + hi) / 2;
            if (z->z_tr[mid] <= t)
                lo = mid;
            else
                hi = mid;
        }
        type = z->z_idx[lo];
    }
    *off = z->z_types[type].tt_off;
    *dst = z->z_types[type].tt_dst;
    *abbr = z->z_types[type].tt_abbr;
}

void
dt_localtime(const dt_tz *z, int64_t t, dt_tm *out)
{
    long off;
    bool dst;
    const char *abbr;
    tz_at(z, t, &off, &dst, &abbr);
    dt_gmtime(t, off, abbr, out);
    out->tm_dst = dst;
}

static long
tz_off(const dt_tz *z, int64_t t)
{
    long off;
    bool dst;
    const char *abbr;
    tz_at(z, t, &off, &dst, &abbr);
    return off;
}

bool
dt_mktime(const dt_tz *z, int64_t year, int64_t mon, int64_t mday, int64_t hour,
          int64_t min, int64_t sec, bool strict, int64_t *out)
{
    // Fields far out of range would overflow the arithmetic below.
    const int64_t lim = INT64_C(1) << 40;
    if (year > lim || year < -lim || mon > lim || mon < -lim || mday > lim ||
        mday < -lim || hour > lim || hour < -lim || min > lim || min < -lim ||
        sec > lim || sec < -lim)
        return false;
    year += floordiv(mon, 12);
    mon -= floordiv(mon, 12) * 12;
    int64_t local = (dt_days_from_civil(year, mon + 1, 1) + mday - 1) * 86400 +
                    hour * 3600 + min * 60 + sec;
    // The offsets in force around it (a day either side covers every
    // change); the earliest instant that reads back as local wins.
    long offs[3] = {tz_off(z, local - 86400), tz_off(z, local),
                    tz_off(z, local + 86400)};
    bool found = false;
    int64_t best = 0;
    for (int i = 0; i < 3; i++) {
        int64_t t = local - offs[i];
        if (tz_off(z, t) == offs[i] && (!found || t < best)) {
            best = t;
            found = true;
        }
    }
    if (!found) {
        if (strict)
            return false;
        best = local - offs[0];
    }
    *out = best;
    return true;
}
