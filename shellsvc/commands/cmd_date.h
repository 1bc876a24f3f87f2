/* SPDX-License-Identifier: Apache-2.0 */
/* date's parts: time zones (cmd_date_tz.c), GNU's date input grammar
 * (cmd_date_parse.c) and its output conversions (cmd_date_fmt.c). */
#ifndef CMD_DATE_H
#define CMD_DATE_H

#include <stdbool.h>
#include <stdint.h>

#include "box_buf.h"

/* A broken-down time in one zone (month 0-11, weekday 0 = Sunday). */
typedef struct dt_tm {
    int64_t tm_year; // the year itself (2024), not less 1900
    int tm_mon, tm_mday, tm_hour, tm_min, tm_sec;
    int tm_wday, tm_yday;
    long tm_off; // seconds east of UTC
    bool tm_dst;
    char tm_abbr[32];
} dt_tm;

/* ---- zones ---- */

typedef struct dt_tz dt_tz;

/*
 * The zone a TZ value names, as glibc reads it: NULL or "" is UTC; an
 * optional ':' then a file under /usr/share/zoneinfo (a name with no
 * ".." in it); else a POSIX TZ string ("EST5EDT,M3.2.0,M11.1.0",
 * "<+03>-3"); else UTC named by the value's leading letters. NULL only
 * when out of memory. The caller frees it with dt_tz_free.
 */
dt_tz *dt_tz_load(const char *tz);
void dt_tz_free(dt_tz *z);

/* t (seconds since the epoch) in zone z. */
void dt_localtime(const dt_tz *z, int64_t t, dt_tm *out);
/* The same in UTC, with offset off east and name abbr (a zone the input
 * named: "10:00 EST"). */
void dt_gmtime(int64_t t, long off, const char *abbr, dt_tm *out);

/*
 * The instant whose local time in z is year-mon-mday hour:min:sec
 * (fields may be out of range: they carry, as mktime's do). strict: a
 * local time that does not exist (a DST gap) fails; else it is read in
 * the offset before the gap. An ambiguous time is the earlier instant.
 */
bool dt_mktime(const dt_tz *z, int64_t year, int64_t mon, int64_t mday,
               int64_t hour, int64_t min, int64_t sec, bool strict,
               int64_t *out);

/* Days since 1970-01-01 of a proleptic Gregorian date (month 1-12). */
int64_t dt_days_from_civil(int64_t y, int64_t m, int64_t d);
/* The date of a day count (month 1-12). */
void dt_civil_from_days(int64_t z, int64_t *y, int *m, int *d);
/* Days in month m (1-12) of year y. */
int dt_month_days(int64_t y, int m);

/* ---- input ---- */

/*
 * GNU's date input (gnulib parse_datetime, as coreutils 9.1 reads -d):
 * calendar dates, times of day, zones, weekdays, relative items, `@N`,
 * a leading TZ="…". now/now_ns is the reference instant; z the zone a
 * date without one is read in. False when the text is not a date.
 */
bool dt_parse(const char *text, int64_t now, long now_ns, const dt_tz *z,
              int64_t *out, long *out_ns);

/* ---- output ---- */

/* Appends fmt with GNU date's conversions (flags _ - 0 ^ #, widths,
 * %N, %:z %::z %:::z, %q, %s) for tm, the instant t and ns. */
box_err dt_format(box_buf *out, const char *fmt, const dt_tm *tm, int64_t t,
                  long ns);

#endif
