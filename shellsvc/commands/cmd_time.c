/* SPDX-License-Identifier: Apache-2.0 */
/* Command-line times: touch -t's POSIX stamp, and date strings. */
#include "cmd_time.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <stdint.h>
#include <string.h>

/* n digits of s as a number; false if one is not a digit. */
static bool
digits(const char *s, size_t n, int *out)
{
    int v = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isdigit((unsigned char)s[i]))
            return false;
        v = v * 10 + (s[i] - '0');
    }
    *out = v;
    return true;
}

/* tm in the local zone, refusing a time that mktime had to normalise
 * (a month 13, Feb 30): the fields must come back as they went in. */
static bool
local_exact(struct tm *tm, time_t *out)
{
    struct tm want = *tm;
    tm->tm_isdst = -1;
    time_t t = mktime(tm);
    if (t == (time_t)-1 && tm->tm_year == want.tm_year - 1)
        return false;
    if (tm->tm_year != want.tm_year || tm->tm_mon != want.tm_mon ||
        tm->tm_mday != want.tm_mday || tm->tm_hour != want.tm_hour ||
        tm->tm_min != want.tm_min)
        return false;
    *out = t;
    return true;
}

bool
cmd_time_posix_stamp(const char *s, struct timespec *out)
{
    const char *dot = strchr(s, '.');
    size_t n = dot != NULL ? (size_t)(dot - s) : strlen(s);
    int sec = 0;
    if (dot != NULL && (strlen(dot + 1) != 2 || !digits(dot + 1, 2, &sec)))
        return false;
    if (n != 8 && n != 10 && n != 12)
        return false;
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm) == NULL)
        return false;
    int year = tm.tm_year + 1900, v;
    const char *p = s;
    if (n == 12) {
        if (!digits(p, 4, &year))
            return false;
        p += 4;
    } else if (n == 10) {
        if (!digits(p, 2, &v))
            return false;
        year = v + (v < 69 ? 2000 : 1900); // POSIX's century rule
        p += 2;
    }
    int mon, mday, hour, min;
    if (!digits(p, 2, &mon) || !digits(p + 2, 2, &mday) ||
        !digits(p + 4, 2, &hour) || !digits(p + 6, 2, &min) || sec > 60)
        return false;
    // A leap second reads as the next minute's first, as GNU's does.
    bool leap = sec == 60;
    tm = (struct tm){.tm_year = year - 1900, .tm_mon = mon - 1,
                     .tm_mday = mday, .tm_hour = hour, .tm_min = min,
                     .tm_sec = leap ? 59 : sec};
    time_t t;
    if (!local_exact(&tm, &t))
        return false;
    *out = (struct timespec){t + (leap ? 1 : 0), 0};
    return true;
}

/* Skips blanks. */
static const char *
blanks(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* ".fraction" (or ",fraction") after seconds, as nanoseconds. */
static const char *
fraction(const char *p, long *ns)
{
    *ns = 0;
    if (*p != '.' && *p != ',')
        return p;
    p++;
    long scale = 100000000;
    while (isdigit((unsigned char)*p)) {
        *ns += (*p++ - '0') * scale;
        scale /= 10;
    }
    return p;
}

/* A zone after a time: "Z", "UTC", "GMT", "+HH[:MM]", "-HHMM". Sets
 * *off (seconds east) and returns the rest; NULL when there is none. */
static const char *
zone(const char *p, long *off)
{
    p = blanks(p);
    if (*p == 'Z' || *p == 'z') {
        *off = 0;
        return p + 1;
    }
    if (strncmp(p, "UTC", 3) == 0 || strncmp(p, "GMT", 3) == 0) {
        *off = 0;
        return p + 3;
    }
    if (*p != '+' && *p != '-')
        return NULL;
    int sign = *p == '-' ? -1 : 1, h, m = 0;
    p++;
    if (!digits(p, 2, &h))
        return NULL;
    p += 2;
    if (*p == ':')
        p++;
    if (isdigit((unsigned char)*p)) {
        if (!digits(p, 2, &m))
            return NULL;
        p += 2;
    }
    *off = sign * (h * 3600L + m * 60L);
    return p;
}

/*
 * The forms scripts give touch -d: "@SECONDS[.frac]", "now", "", and
 * ISO dates "YYYY-MM-DD[( |T)HH:MM[:SS[.frac]]][ZONE]" (local unless a
 * zone is named).
 */
bool
cmd_time_parse_date(sh_ctx *cx, const char *s, struct timespec base,
                    struct timespec *out)
{
    (void)cx;
    const char *p = blanks(s);
    if (*p == '@') {
        char *end;
        errno = 0;
        long long secs = strtoll(p + 1, &end, 10);
        long ns;
        end = (char *)fraction(end, &ns);
        if (end == p + 1 || errno != 0 || *blanks(end) != '\0')
            return false;
        *out = (struct timespec){(time_t)secs, ns};
        return true;
    }
    if (strcmp(p, "now") == 0) {
        *out = base;
        return true;
    }
    struct tm tm;
    time_t bt = base.tv_sec;
    if (localtime_r(&bt, &tm) == NULL)
        return false;
    int y = tm.tm_year + 1900, mo = tm.tm_mon + 1, d = tm.tm_mday;
    int h = 0, mi = 0, se = 0;
    long ns = 0, off = 0;
    bool zoned = false;
    if (*p != '\0') {
        int n = 0;
        while (isdigit((unsigned char)p[n]))
            n++;
        if (n < 1 || n > 4 || !digits(p, (size_t)n, &y) || p[n] != '-' ||
            !digits(p + n + 1, 2, &mo) || p[n + 3] != '-' ||
            !digits(p + n + 4, 2, &d))
            return false;
        p += n + 6;
        if (*p == 'T' || *p == ' ') {
            const char *q = blanks(p + 1);
            if (digits(q, 2, &h) && q[2] == ':' && digits(q + 3, 2, &mi)) {
                q += 5;
                if (*q == ':') {
                    if (!digits(q + 1, 2, &se))
                        return false;
                    q = fraction(q + 3, &ns);
                }
                p = q;
            }
        }
        const char *z = zone(p, &off);
        if (z != NULL) {
            zoned = true;
            p = z;
        }
        if (*blanks(p) != '\0')
            return false;
    }
    tm = (struct tm){.tm_year = y - 1900, .tm_mon = mo - 1, .tm_mday = d,
                     .tm_hour = h, .tm_min = mi, .tm_sec = se};
    if (mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60)
        return false;
    time_t t;
    if (zoned) {
        t = timegm(&tm) - off;
    } else if (!local_exact(&tm, &t)) {
        return false;
    }
    *out = (struct timespec){t, ns};
    return true;
}
