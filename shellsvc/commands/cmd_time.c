/* SPDX-License-Identifier: Apache-2.0 */
/* Command-line times in the call's zone: touch -t's POSIX stamp, and date
 * strings through date's own parser (cmd_date_parse.c). */
#include "cmd_time.h"

#include <ctype.h>
#include <string.h>

#include "cmd_date.h"
#include "cmd_sys.h"

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

/* The zone the call's TZ names (UTC when unset); NULL when out of
 * memory. */
static dt_tz *
call_zone(const sh_ctx *cx)
{
    return dt_tz_load(sh_sys_getenv(cx, "TZ"));
}

bool
cmd_time_posix_stamp(sh_ctx *cx, const char *s, struct timespec *out)
{
    const char *dot = strchr(s, '.');
    size_t n = dot != NULL ? (size_t)(dot - s) : strlen(s);
    int sec = 0;
    if (dot != NULL && (strlen(dot + 1) != 2 || !digits(dot + 1, 2, &sec)))
        return false;
    if (n != 8 && n != 10 && n != 12)
        return false;
    dt_tz *z = call_zone(cx);
    if (z == NULL)
        return false;
    dt_tm now;
    dt_localtime(z, (int64_t)time(NULL), &now);
    int64_t year = now.tm_year;
    int v = 0, mon = 0, mday = 0, hour = 0, min = 0;
    const char *p = s;
    bool ok = true;
    if (n == 12) {
        ok = digits(p, 4, &v);
        year = v;
        p += 4;
    } else if (n == 10) {
        ok = digits(p, 2, &v);
        year = v + (v < 69 ? 2000 : 1900); // POSIX's century rule
        p += 2;
    }
    ok = ok && digits(p, 2, &mon) && digits(p + 2, 2, &mday) &&
         digits(p + 4, 2, &hour) && digits(p + 6, 2, &min) && mon >= 1 &&
         mon <= 12 && mday >= 1 && mday <= dt_month_days(year, mon) &&
         hour < 24 && min < 60 && sec <= 60;
    // A leap second reads as the next minute's first, as GNU's does.
    int64_t t = 0;
    int s59 = sec == 60 ? 59 : sec;
    ok = ok && dt_mktime(z, year, mon - 1, mday, hour, min, s59, true, &t);
    dt_tz_free(z);
    if (!ok)
        return false;
    *out = (struct timespec){(time_t)(t + (sec == 60)), 0};
    return true;
}

bool
cmd_time_parse_date(sh_ctx *cx, const char *s, struct timespec base,
                    struct timespec *out)
{
    dt_tz *z = call_zone(cx);
    if (z == NULL)
        return false;
    int64_t t;
    long ns;
    bool ok = dt_parse(s, (int64_t)base.tv_sec, base.tv_nsec, z, &t, &ns);
    dt_tz_free(z);
    if (ok)
        *out = (struct timespec){(time_t)t, ns};
    return ok;
}
