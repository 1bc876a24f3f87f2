/* SPDX-License-Identifier: Apache-2.0 */
/* date [-u] [-d STRING | -f FILE | -r FILE] [-I[FMT] | -R | --rfc-3339=FMT
 * | +FORMAT]: GNU coreutils 9.1. The clock is the host's and is never
 * set: -s and a MMDDhhmm operand are refused as an unprivileged GNU date
 * refuses them. */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_date.h"
#include "cmd_sys.h"
#include "sh_gopt.h"

enum {
    DO_DEBUG = SH_GOPT_LONG_ONLY,
    DO_RESOLUTION,
    DO_RFC3339,
};

static const sh_gopt date_opts[] = {
    {'d', "date", SH_GARG_REQ},
    {DO_DEBUG, "debug", SH_GARG_NONE},
    {'f', "file", SH_GARG_REQ},
    {'I', "iso-8601", SH_GARG_OPT},
    {DO_RESOLUTION, "resolution", SH_GARG_NONE},
    {'R', "rfc-email", SH_GARG_NONE},
    {'R', "rfc-2822", SH_GARG_NONE},
    {DO_RFC3339, "rfc-3339", SH_GARG_REQ},
    {'r', "reference", SH_GARG_REQ},
    {'s', "set", SH_GARG_REQ},
    {'u', "utc", SH_GARG_NONE},
    {'u', "universal", SH_GARG_NONE},
    {0},
};

static const sh_gopt_spec date_spec = {
    .gs_cmd = "date",
    .gs_opts = date_opts,
    .gs_fail = 1,
    .gs_help =
        "Usage: date [OPTION]... [+FORMAT]\n"
        "  or:  date [-u|--utc|--universal] [MMDDhhmm[[CC]YY][.ss]]\n"
        "Display date and time in the given FORMAT.\n"
        "With -s, or with [MMDDhhmm[[CC]YY][.ss]], set the date and time.\n"
        "\n"
        "Mandatory arguments to long options are mandatory for short "
        "options too.\n"
        "  -d, --date=STRING          display time described by STRING, not "
        "'now'\n"
        "      --debug                annotate the parsed date,\n"
        "                              and warn about questionable usage to "
        "stderr\n"
        "  -f, --file=DATEFILE        like --date; once for each line of "
        "DATEFILE\n"
        "  -I[FMT], --iso-8601[=FMT]  output date/time in ISO 8601 format.\n"
        "                               FMT='date' for date only (the "
        "default),\n"
        "                               'hours', 'minutes', 'seconds', or "
        "'ns'\n"
        "                               for date and time to the indicated "
        "precision.\n"
        "                               Example: 2006-08-14T02:34:56-06:00\n"
        "  --resolution               output the available resolution of "
        "timestamps\n"
        "                               Example: 0.000000001\n"
        "  -R, --rfc-email            output date and time in RFC 5322 "
        "format.\n"
        "                               Example: Mon, 14 Aug 2006 02:34:56 "
        "-0600\n"
        "      --rfc-3339=FMT         output date/time in RFC 3339 format.\n"
        "                               FMT='date', 'seconds', or 'ns'\n"
        "                               for date and time to the indicated "
        "precision.\n"
        "                               Example: 2006-08-14 02:34:56-06:00\n"
        "  -r, --reference=FILE       display the last modification time of "
        "FILE\n"
        "  -s, --set=STRING           set time described by STRING\n"
        "  -u, --utc, --universal     print or set Coordinated Universal "
        "Time (UTC)\n"
        "      --help        display this help and exit\n"
        "      --version     output version information and exit\n"
        "\n"
        "FORMAT controls the output.  Interpreted sequences are:\n"
        "\n"
        "  %%   a literal %\n"
        "  %a   locale's abbreviated weekday name (e.g., Sun)\n"
        "  %A   locale's full weekday name (e.g., Sunday)\n"
        "  %b   locale's abbreviated month name (e.g., Jan)\n"
        "  %B   locale's full month name (e.g., January)\n"
        "  %c   locale's date and time (e.g., Thu Mar  3 23:05:25 2005)\n"
        "  %C   century; like %Y, except omit last two digits (e.g., 20)\n"
        "  %d   day of month (e.g., 01)\n"
        "  %D   date; same as %m/%d/%y\n"
        "  %e   day of month, space padded; same as %_d\n"
        "  %F   full date; like %+4Y-%m-%d\n"
        "  %g   last two digits of year of ISO week number (see %G)\n"
        "  %G   year of ISO week number (see %V); normally useful only with "
        "%V\n"
        "  %h   same as %b\n"
        "  %H   hour (00..23)\n"
        "  %I   hour (01..12)\n"
        "  %j   day of year (001..366)\n"
        "  %k   hour, space padded ( 0..23); same as %_H\n"
        "  %l   hour, space padded ( 1..12); same as %_I\n"
        "  %m   month (01..12)\n"
        "  %M   minute (00..59)\n"
        "  %n   a newline\n"
        "  %N   nanoseconds (000000000..999999999)\n"
        "  %p   locale's equivalent of either AM or PM; blank if not known\n"
        "  %P   like %p, but lower case\n"
        "  %q   quarter of year (1..4)\n"
        "  %r   locale's 12-hour clock time (e.g., 11:11:04 PM)\n"
        "  %R   24-hour hour and minute; same as %H:%M\n"
        "  %s   seconds since the Epoch (1970-01-01 00:00 UTC)\n"
        "  %S   second (00..60)\n"
        "  %t   a tab\n"
        "  %T   time; same as %H:%M:%S\n"
        "  %u   day of week (1..7); 1 is Monday\n"
        "  %U   week number of year, with Sunday as first day of week "
        "(00..53)\n"
        "  %V   ISO week number, with Monday as first day of week (01..53)\n"
        "  %w   day of week (0..6); 0 is Sunday\n"
        "  %W   week number of year, with Monday as first day of week "
        "(00..53)\n"
        "  %x   locale's date representation (e.g., 12/31/99)\n"
        "  %X   locale's time representation (e.g., 23:13:48)\n"
        "  %y   last two digits of year (00..99)\n"
        "  %Y   year\n"
        "  %z   +hhmm numeric time zone (e.g., -0400)\n"
        "  %:z  +hh:mm numeric time zone (e.g., -04:00)\n"
        "  %::z  +hh:mm:ss numeric time zone (e.g., -04:00:00)\n"
        "  %:::z  numeric time zone with : to necessary precision (e.g., "
        "-04, +05:30)\n"
        "  %Z   alphabetic time zone abbreviation (e.g., EDT)\n"
        "\n"
        "By default, date pads numeric fields with zeroes.\n"
        "The following optional flags may follow '%':\n"
        "\n"
        "  -  (hyphen) do not pad the field\n"
        "  _  (underscore) pad with spaces\n"
        "  0  (zero) pad with zeros\n"
        "  +  pad with zeros, and put '+' before future years with >4 "
        "digits\n"
        "  ^  use upper case if possible\n"
        "  #  use opposite case if possible\n"
        "\n"
        "After any flags comes an optional field width, as a decimal "
        "number;\n"
        "then an optional modifier, which is either\n"
        "E to use the locale's alternate representations if available, or\n"
        "O to use the locale's alternate numeric symbols if available.\n"
        "\n"
        "Examples:\n"
        "Convert seconds since the Epoch (1970-01-01 UTC) to a date\n"
        "  $ date --date='@2147483647'\n"
        "\n"
        "Show the time on the west coast of the US (use tzselect(1) to find "
        "TZ)\n"
        "  $ TZ='America/Los_Angeles' date\n"
        "\n"
        "Show the local time for 9AM next Friday on the west coast of the "
        "US\n"
        "  $ date --date='TZ=\"America/Los_Angeles\" 09:00 next Fri'\n",
};

static const char *const iso_names[] = {"hours",   "minutes", "date",
                                        "seconds", "ns",      NULL};
static const char *const iso_fmts[] = {"%Y-%m-%dT%H%:z", "%Y-%m-%dT%H:%M%:z",
                                       "%Y-%m-%d", "%Y-%m-%dT%H:%M:%S%:z",
                                       "%Y-%m-%dT%H:%M:%S,%N%:z"};
static const int iso_vals[] = {0, 1, 2, 3, 4};
static const char *const rfc_names[] = {"date", "seconds", "ns", NULL};
static const int rfc_vals[] = {0, 1, 2};
static const char *const rfc_fmts[] = {"%Y-%m-%d", "%Y-%m-%d %H:%M:%S%:z",
                                       "%Y-%m-%d %H:%M:%S.%N%:z"};

/* One run of date: what to show, in which zone. */
typedef struct dt_run {
    sh_ctx *dr_cx;
    sh_gopt_iter dr_it;
    const char *dr_fmt;
    dt_tz *dr_tz;
    box_buf dr_out;
    int64_t dr_now;
    long dr_now_ns;
} dt_run;

/* The instant as the format says, a line of output. */
static bool
show(dt_run *dr, int64_t t, long ns)
{
    dt_tm tm;
    dt_localtime(dr->dr_tz, t, &tm);
    box_buf_truncate(&dr->dr_out, 0); // one allocation for every line
    if (dt_format(&dr->dr_out, dr->dr_fmt, &tm, t, ns) != BOX_OK ||
        box_buf_putc(&dr->dr_out, '\n') != BOX_OK) {
        sh_errf(dr->dr_cx, "date: memory exhausted");
        return false;
    }
    return sh_write(dr->dr_cx, 1, dr->dr_out.b_data, dr->dr_out.b_len) ==
           SH_IO_OK;
}

static void
invalid(dt_run *dr, const char *s)
{
    char *q = sh_gquote(s);
    sh_errf(dr->dr_cx, "date: invalid date %s", q ? q : s);
    box_free(q);
}

/* -f: each line of the file a date (GNU's "invalid date" for a line
 * that is not, status 1 at the end). */
static int
show_file(dt_run *dr, const char *file)
{
    int st = 0;
    sh_input *in = sh_input_open(dr->dr_cx, "date", file, &st);
    if (in == NULL)
        return st;
    const char *line;
    size_t len;
    int r;
    while ((r = sh_input_line(in, &line, &len)) == 1) {
        if (sh_check_stop(dr->dr_cx))
            break;
        char *s = box_asprintf(
            "%.*s", (int)(len && line[len - 1] == '\n' ? len - 1 : len), line);
        if (s == NULL) {
            st = 1;
            break;
        }
        int64_t t;
        long ns;
        if (!dt_parse(s, dr->dr_now, dr->dr_now_ns, dr->dr_tz, &t, &ns)) {
            invalid(dr, s);
            st = 1;
        } else if (!show(dr, t, ns)) {
            box_free(s);
            st = 1;
            break;
        }
        box_free(s);
    }
    if (r < 0)
        st = 1;
    sh_input_close(in);
    return st;
}

/* MMDDhhmm[[CC]YY][.ss] (the operand form that sets the clock): false
 * when s is not one. */
static bool
posix_time(dt_run *dr, const char *s, int64_t *out)
{
    size_t n = strspn(s, "0123456789");
    const char *dot = s[n] == '.' ? s + n : NULL;
    if ((s[n] != '\0' && dot == NULL) || (n != 8 && n != 10 && n != 12))
        return false;
    if (dot != NULL && (strlen(dot) != 3 || strspn(dot + 1, "0123456789") != 2))
        return false;
    int v[6];
    for (size_t i = 0; i < n / 2; i++)
        v[i] = (s[2 * i] - '0') * 10 + (s[2 * i + 1] - '0');
    dt_tm now;
    dt_localtime(dr->dr_tz, dr->dr_now, &now);
    int64_t year = now.tm_year;
    if (n == 10)
        year = v[4] + (v[4] < 69 ? 2000 : 1900);
    else if (n == 12)
        year = v[4] * 100 + v[5];
    int sec = dot != NULL ? (dot[1] - '0') * 10 + (dot[2] - '0') : 0;
    if (v[0] < 1 || v[0] > 12 || v[1] < 1 || v[1] > dt_month_days(year, v[0]) ||
        v[2] > 23 || v[3] > 59 || sec > 59)
        return false;
    return dt_mktime(dr->dr_tz, year, v[0] - 1, v[1], v[2], v[3], sec, true,
                     out);
}

/* Which date(s) to show, from the options. */
typedef struct dt_src {
    const char *ds_date, *ds_file, *ds_ref, *ds_set;
    int ds_count; // of -d, -f, -r given
} dt_src;

static int
date_main(dt_run *dr, dt_src *src, bool utc)
{
    sh_ctx *cx = dr->dr_cx;
    sh_gopt_iter *it = &dr->dr_it;
    int st = 0;
    const char *operand = NULL;
    if (it->gi_nops > 1) {
        char *q = sh_gquote(it->gi_ops[1]);
        st = sh_gopt_usage_error(it, "extra operand %s", q ? q : "");
        box_free(q);
        return st;
    }
    if (it->gi_nops == 1) {
        operand = it->gi_ops[0];
        if (operand[0] == '+') {
            if (dr->dr_fmt != NULL) {
                sh_errf(cx, "date: multiple output formats specified");
                return 1;
            }
            dr->dr_fmt = operand + 1;
            operand = NULL;
        } else if (src->ds_count > 0 || src->ds_set != NULL) {
            char *q = sh_gquote(operand);
            sh_errf(cx,
                    "date: the argument %s lacks a leading '+';\nwhen using "
                    "an option to specify date(s), any non-option\nargument "
                    "must be a format string beginning with '+'",
                    q ? q : operand);
            box_free(q);
            return sh_gopt_try(it);
        }
    }
    if (src->ds_count > 1) {
        sh_errf(cx, "date: the options to specify dates for printing are "
                    "mutually exclusive");
        return sh_gopt_try(it);
    }
    if (src->ds_set != NULL && src->ds_count > 0) {
        sh_errf(cx, "date: the options to print and set the time may not be "
                    "used together");
        return sh_gopt_try(it);
    }
    if (dr->dr_fmt == NULL)
        dr->dr_fmt = "%a %b %e %H:%M:%S %Z %Y";
    dr->dr_tz = dt_tz_load(utc ? "UTC0" : sh_sys_getenv(cx, "TZ"));
    if (dr->dr_tz == NULL) {
        sh_errf(cx, "date: memory exhausted");
        return 1;
    }
    if (src->ds_file != NULL)
        return show_file(dr, src->ds_file);
    int64_t t = dr->dr_now;
    long ns = dr->dr_now_ns;
    if (src->ds_ref != NULL) {
        sh_kernel_stat ks;
        sh_kernel_result r = {0};
        if (sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, src->ds_ref,
                                &ks, &r) != 0)
            return sh_fs_fail(cx, "date", src->ds_ref, &r);
        sh_kernel_result_clear(&r);
        t = ks.ks_mtime;
        ns = ks.ks_mtime_ns;
    }
    const char *setting = src->ds_set != NULL ? src->ds_set : operand;
    const char *parse = src->ds_date != NULL ? src->ds_date : src->ds_set;
    if (parse != NULL &&
        !dt_parse(parse, dr->dr_now, dr->dr_now_ns, dr->dr_tz, &t, &ns)) {
        invalid(dr, parse);
        return 1;
    }
    if (operand != NULL) {
        ns = 0;
        if (!posix_time(dr, operand, &t)) {
            invalid(dr, operand);
            return 1;
        }
    }
    if (setting != NULL) {
        // The host's clock is not the box's to set (and the worker's
        // filter has no clock_settime): GNU's unprivileged answer, then
        // the date it would have set, as GNU shows it.
        sh_errf(cx, "date: cannot set date: Operation not permitted");
        (void)show(dr, t, ns);
        return 1;
    }
    return show(dr, t, ns) ? 0 : 1;
}

int
sh_cmd_date(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    (void)o;
    dt_run dr = {.dr_cx = cx};
    box_buf_init(&dr.dr_out, 1u << 20);
    sh_gopt_init(&dr.dr_it, cx, &date_spec, argc, argv);
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    dr.dr_now = now.tv_sec;
    dr.dr_now_ns = now.tv_nsec;
    dt_src src = {0};
    bool utc = false, resolution = false;
    const char *arg;
    int id, st = 0;
    const char *newfmt;
    while ((id = sh_gopt_next(&dr.dr_it, &arg, &st)) >= 0) {
        newfmt = NULL;
        int k;
        switch (id) {
        case 'd':
            if (src.ds_date == NULL)
                src.ds_count++;
            src.ds_date = arg;
            break;
        case 'f':
            if (src.ds_file == NULL)
                src.ds_count++;
            src.ds_file = arg;
            break;
        case 'r':
            if (src.ds_ref == NULL)
                src.ds_count++;
            src.ds_ref = arg;
            break;
        case 's':
            src.ds_set = arg;
            break;
        case 'u':
            utc = true;
            break;
        case 'R':
            newfmt = "%a, %d %b %Y %H:%M:%S %z";
            break;
        case 'I':
            k = 2;
            if (arg != NULL &&
                (k = sh_gopt_argmatch(&dr.dr_it, "--iso-8601", arg, iso_names,
                                      iso_vals, &st)) < 0)
                goto out;
            newfmt = iso_fmts[k];
            break;
        case DO_RFC3339:
            if ((k = sh_gopt_argmatch(&dr.dr_it, "--rfc-3339", arg, rfc_names,
                                      rfc_vals, &st)) < 0)
                goto out;
            newfmt = rfc_fmts[k];
            break;
        case DO_RESOLUTION:
            resolution = true;
            break;
        default: // --debug: no annotations are given
            break;
        }
        if (newfmt != NULL) {
            if (dr.dr_fmt != NULL) {
                sh_errf(cx, "date: multiple output formats specified");
                st = 1;
                goto out;
            }
            dr.dr_fmt = newfmt;
        }
    }
    if (id == SH_GOPT_EXIT)
        goto out;
    if (resolution && dr.dr_fmt == NULL && src.ds_count == 0 &&
        dr.dr_it.gi_nops == 0) {
        st = sh_puts(cx, 1, "0.000000001\n") == SH_IO_OK ? 0 : 1;
        goto out;
    }
    st = date_main(&dr, &src, utc);
out:
    dt_tz_free(dr.dr_tz);
    box_buf_reset(&dr.dr_out);
    sh_gopt_free(&dr.dr_it);
    return st;
}
