/* SPDX-License-Identifier: Apache-2.0 */
/* date's +FORMAT: GNU's strftime conversions in the C locale, with the
 * padding flags (_ - 0 + ^ #) and widths coreutils 9.1 gives them. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "cmd_date.h"

static const char *const day_names[] = {"Sunday",    "Monday",   "Tuesday",
                                        "Wednesday", "Thursday", "Friday",
                                        "Saturday"};
static const char *const mon_names[] = {
    "January", "February", "March",     "April",   "May",      "June",
    "July",    "August",   "September", "October", "November", "December"};

/* One conversion's flags: pad character ('_' space, '0', '-' none, 0
 * the conversion's own), case change, width (-1: none). */
typedef struct fm_spec {
    char fs_pad;
    bool fs_upper, fs_swap, fs_plus;
    int fs_width;
} fm_spec;

/* A string conversion: case flags, then padded to the width (spaces, or
 * zeros with the 0 flag). swap_lower: '#' lowers it (%Z, %p). */
static box_err
fm_str(box_buf *out, const fm_spec *fs, const char *s, bool swap_lower)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", s);
    for (char *p = buf; *p; p++) {
        if (fs->fs_upper || (fs->fs_swap && !swap_lower))
            *p = (char)toupper((unsigned char)*p);
        else if (fs->fs_swap && swap_lower)
            *p = (char)tolower((unsigned char)*p);
    }
    size_t len = strlen(buf);
    box_err e = BOX_OK;
    if (fs->fs_pad != '-' && fs->fs_width > 0)
        for (size_t i = len; i < (size_t)fs->fs_width && e == BOX_OK; i++)
            e = box_buf_putc(out, fs->fs_pad == '0' ? '0' : ' ');
    return e == BOX_OK ? box_buf_puts(out, buf) : e;
}

/* A number: at least defw digits (width when given) padded with defpad
 * unless a flag says otherwise; '-' drops the padding. */
static box_err
fm_num(box_buf *out, const fm_spec *fs, int64_t v, int defw, char defpad)
{
    char digits[32];
    bool neg = v < 0;
    uint64_t u = neg ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    snprintf(digits, sizeof digits, "%llu", (unsigned long long)u);
    int nd = (int)strlen(digits);
    char pad = fs->fs_pad == '_' ? ' ' : fs->fs_pad == '0' ? '0' : defpad;
    if (fs->fs_plus)
        pad = '0';
    int width = fs->fs_width >= 0 ? fs->fs_width : defw;
    if (fs->fs_pad == '-')
        width = 0;
    char sign = neg ? '-' : 0;
    if (!neg && fs->fs_plus && (nd > defw || width > defw))
        sign = '+';
    int body = nd + (sign != 0);
    box_err e = BOX_OK;
    if (pad == ' ')
        for (int i = body; i < width && e == BOX_OK; i++)
            e = box_buf_putc(out, ' ');
    if (sign && e == BOX_OK)
        e = box_buf_putc(out, sign);
    if (pad == '0')
        for (int i = body; i < width && e == BOX_OK; i++)
            e = box_buf_putc(out, '0');
    return e == BOX_OK ? box_buf_puts(out, digits) : e;
}

/* ISO 8601 week-based year and week of tm. */
static void
iso_week(const dt_tm *tm, int64_t *year, int *week)
{
    int wday = (tm->tm_wday + 6) % 7; // Monday 0
    int64_t y = tm->tm_year;
    int yday = tm->tm_yday;
    // The Monday of week 1 is the one on or before January 4.
    int w = (yday - wday + 10) / 7;
    if (w < 1) {
        y--;
        int pyd = 365 + ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0);
        w = (yday + pyd - wday + 10) / 7;
    } else {
        int yd = 365 + ((y % 4 == 0 && y % 100 != 0) || y % 400 == 0);
        if (yday - wday + 3 >= yd) { // in week 1 of next year
            y++;
            w = 1;
        }
    }
    *year = y;
    *week = w;
}

/* %z family: colons 0 (+hhmm), 1 (+hh:mm), 2 (+hh:mm:ss), 3 (as few as
 * needed). */
static box_err
fm_zone(box_buf *out, const fm_spec *fs, long off, int colons)
{
    char sign = off < 0 ? '-' : '+';
    long a = off < 0 ? -off : off;
    long h = a / 3600, m = a / 60 % 60, s = a % 60;
    char buf[32];
    if (colons == 1 || (colons == 3 && s == 0 && m != 0))
        snprintf(buf, sizeof buf, "%02ld:%02ld", h, m);
    else if (colons == 2 || (colons == 3 && s != 0))
        snprintf(buf, sizeof buf, "%02ld:%02ld:%02ld", h, m, s);
    else if (colons == 3)
        snprintf(buf, sizeof buf, "%02ld", h);
    else
        snprintf(buf, sizeof buf, "%ld", h * 100 + m);
    if (colons != 0) {
        box_err e = box_buf_putc(out, sign);
        return e == BOX_OK ? box_buf_puts(out, buf) : e;
    }
    // +hhmm is a number of four digits after its sign.
    size_t nd = strlen(buf);
    int width = fs->fs_width >= 0 ? fs->fs_width : 5;
    char pad = fs->fs_pad == '_' ? ' ' : '0';
    if (fs->fs_pad == '-')
        width = 0;
    box_err e = BOX_OK;
    if (pad == ' ')
        for (int i = (int)nd + 1; i < width && e == BOX_OK; i++)
            e = box_buf_putc(out, ' ');
    if (e == BOX_OK)
        e = box_buf_putc(out, sign);
    if (pad == '0')
        for (int i = (int)nd + 1; i < width && e == BOX_OK; i++)
            e = box_buf_putc(out, '0');
    return e == BOX_OK ? box_buf_puts(out, buf) : e;
}

/* A composite (%c %D %F %r %R %T %x %X): formatted, then taken as one
 * string for the case flags and width. */
static box_err
fm_composite(box_buf *out, const fm_spec *fs, const char *fmt, const dt_tm *tm,
             int64_t t, long ns)
{
    box_buf sub;
    box_buf_init(&sub, 4096);
    box_err e = dt_format(&sub, fmt, tm, t, ns);
    if (e == BOX_OK) {
        fm_spec s2 = *fs;
        s2.fs_swap = false; // '#' leaves a composite as it is
        if (s2.fs_pad == '0' && fs->fs_width < 0)
            s2.fs_pad = 0;
        e = fm_str(out, &s2, sub.b_data ? sub.b_data : "", false);
    }
    box_buf_reset(&sub);
    return e;
}

box_err
dt_format(box_buf *out, const char *fmt, const dt_tm *tm, int64_t t, long ns)
{
    box_err e = BOX_OK;
    for (const char *p = fmt; *p && e == BOX_OK; p++) {
        if (*p != '%') {
            e = box_buf_putc(out, *p);
            continue;
        }
        const char *start = p++;
        fm_spec fs = {.fs_width = -1};
        for (;; p++) {
            if (*p == '_' || *p == '-' || *p == '0')
                fs.fs_pad = *p;
            else if (*p == '^')
                fs.fs_upper = true;
            else if (*p == '#')
                fs.fs_swap = true;
            else if (*p == '+') {
                fs.fs_plus = true;
                fs.fs_pad = '0';
            } else
                break;
        }
        if (*p >= '0' && *p <= '9') {
            fs.fs_width = 0;
            while (*p >= '0' && *p <= '9') {
                if (fs.fs_width < 100000)
                    fs.fs_width = fs.fs_width * 10 + (*p - '0');
                p++;
            }
        }
        int colons = 0;
        while (*p == ':' && colons < 4) {
            colons++;
            p++;
        }
        // E and O ask for the locale's alternatives: the C locale has
        // none, so the conversion is the plain one; a name or a month
        // (%Ea) takes no modifier and is copied as written.
        if ((*p == 'E' || *p == 'O') && p[1] != '\0' &&
            strchr("aAbBhpP%ntNsqZ", p[1]) == NULL)
            p++;
        if (colons > 0 && (*p != 'z' || colons > 3)) {
            e = box_buf_printf(out, "%.*s", (int)(p - start + (*p != 0)),
                               start);
            if (*p == '\0')
                break;
            continue;
        }
        int h12 = tm->tm_hour % 12 == 0 ? 12 : tm->tm_hour % 12;
        int64_t iy;
        int iw;
        switch (*p) {
        case '%':
            e = fm_str(out, &fs, "%", false);
            break;
        case 'a':
            e = fm_str(out, &fs,
                       (char[4]){day_names[tm->tm_wday][0],
                                 day_names[tm->tm_wday][1],
                                 day_names[tm->tm_wday][2], 0},
                       false);
            break;
        case 'A':
            e = fm_str(out, &fs, day_names[tm->tm_wday], false);
            break;
        case 'b':
        case 'h':
            e = fm_str(out, &fs,
                       (char[4]){mon_names[tm->tm_mon][0],
                                 mon_names[tm->tm_mon][1],
                                 mon_names[tm->tm_mon][2], 0},
                       false);
            break;
        case 'B':
            e = fm_str(out, &fs, mon_names[tm->tm_mon], false);
            break;
        case 'c':
            e = fm_composite(out, &fs, "%a %b %e %H:%M:%S %Y", tm, t, ns);
            break;
        case 'C': {
            int64_t c = tm->tm_year / 100 - (tm->tm_year % 100 < 0);
            e = fm_num(out, &fs, c, 2, '0');
            break;
        }
        case 'd':
            e = fm_num(out, &fs, tm->tm_mday, 2, '0');
            break;
        case 'D':
            e = fm_composite(out, &fs, "%m/%d/%y", tm, t, ns);
            break;
        case 'e':
            e = fm_num(out, &fs, tm->tm_mday, 2, ' ');
            break;
        case 'F':
            e = fm_composite(out, &fs, "%+4Y-%m-%d", tm, t, ns);
            break;
        case 'g':
            iso_week(tm, &iy, &iw);
            e = fm_num(out, &fs, ((iy % 100) + 100) % 100, 2, '0');
            break;
        case 'G':
            iso_week(tm, &iy, &iw);
            e = fm_num(out, &fs, iy, 4, '0');
            break;
        case 'H':
            e = fm_num(out, &fs, tm->tm_hour, 2, '0');
            break;
        case 'I':
            e = fm_num(out, &fs, h12, 2, '0');
            break;
        case 'j':
            e = fm_num(out, &fs, tm->tm_yday + 1, 3, '0');
            break;
        case 'k':
            e = fm_num(out, &fs, tm->tm_hour, 2, ' ');
            break;
        case 'l':
            e = fm_num(out, &fs, h12, 2, ' ');
            break;
        case 'm':
            e = fm_num(out, &fs, tm->tm_mon + 1, 2, '0');
            break;
        case 'M':
            e = fm_num(out, &fs, tm->tm_min, 2, '0');
            break;
        case 'n':
            e = fm_str(out, &fs, "\n", false);
            break;
        case 'N': {
            char d[16];
            snprintf(d, sizeof d, "%09ld", ns);
            int w = fs.fs_width > 0 ? fs.fs_width : 9;
            for (int i = 0; i < w && e == BOX_OK; i++)
                e = box_buf_putc(out, i < 9 ? d[i] : '0');
            break;
        }
        case 'p':
            e = fm_str(out, &fs, tm->tm_hour < 12 ? "AM" : "PM", true);
            break;
        case 'P':
            e = fm_str(out, &fs, tm->tm_hour < 12 ? "am" : "pm", true);
            break;
        case 'q':
            e = fm_num(out, &fs, tm->tm_mon / 3 + 1, 1, '0');
            break;
        case 'r':
            e = fm_composite(out, &fs, "%I:%M:%S %p", tm, t, ns);
            break;
        case 'R':
            e = fm_composite(out, &fs, "%H:%M", tm, t, ns);
            break;
        case 's':
            e = fm_num(out, &fs, t, 1, '0');
            break;
        case 'S':
            e = fm_num(out, &fs, tm->tm_sec, 2, '0');
            break;
        case 't':
            e = fm_str(out, &fs, "\t", false);
            break;
        case 'T':
            e = fm_composite(out, &fs, "%H:%M:%S", tm, t, ns);
            break;
        case 'u':
            e = fm_num(out, &fs, tm->tm_wday == 0 ? 7 : tm->tm_wday, 1, '0');
            break;
        case 'U':
            e = fm_num(out, &fs, (tm->tm_yday + 7 - tm->tm_wday) / 7, 2, '0');
            break;
        case 'V':
            iso_week(tm, &iy, &iw);
            e = fm_num(out, &fs, iw, 2, '0');
            break;
        case 'w':
            e = fm_num(out, &fs, tm->tm_wday, 1, '0');
            break;
        case 'W':
            e = fm_num(out, &fs, (tm->tm_yday + 7 - (tm->tm_wday + 6) % 7) / 7,
                       2, '0');
            break;
        case 'x':
            e = fm_composite(out, &fs, "%m/%d/%y", tm, t, ns);
            break;
        case 'X':
            e = fm_composite(out, &fs, "%H:%M:%S", tm, t, ns);
            break;
        case 'y':
            e = fm_num(out, &fs, ((tm->tm_year % 100) + 100) % 100, 2, '0');
            break;
        case 'Y':
            e = fm_num(out, &fs, tm->tm_year, 4, '0');
            break;
        case 'z':
            e = fm_zone(out, &fs, tm->tm_off, colons);
            break;
        case 'Z':
            e = fm_str(out, &fs, tm->tm_abbr, true);
            break;
        case '\0':
            e = box_buf_printf(out, "%.*s", (int)(p - start), start);
            p--;
            break;
        default: // not a conversion: copied as written
            e = box_buf_printf(out, "%.*s", (int)(p - start + 1), start);
            break;
        }
    }
    return e;
}
