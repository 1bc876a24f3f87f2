/* SPDX-License-Identifier: Apache-2.0 */
/* bash's `time [-p] pipeline`: run it, then report real/user/sys time. */
#include "sh_internal.h"

#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "box_buf.h"

/* bash's formats (TIMEFORMAT unset; -p is POSIX's, whatever TIMEFORMAT). */
#define TIME_FMT_DEFAULT "\nreal\t%3lR\nuser\t%3lU\nsys\t%3lS"
#define TIME_FMT_POSIX "real %2R\nuser %2U\nsys %2S"

typedef struct time_mark {
    struct timespec tm_real;
    double tm_user, tm_sys; // seconds: this process and reaped children
} time_mark;

static double
tv_sec(struct timeval tv)
{
    return (double)tv.tv_sec + (double)tv.tv_usec / 1e6;
}

static void
time_now(time_mark *m)
{
    struct rusage self, kids;
    clock_gettime(CLOCK_MONOTONIC, &m->tm_real);
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &kids);
    m->tm_user = tv_sec(self.ru_utime) + tv_sec(kids.ru_utime);
    m->tm_sys = tv_sec(self.ru_stime) + tv_sec(kids.ru_stime);
}

/* One value as %[p][l]X prints it: seconds with p decimals (at most 3),
 * or with l as bash's `XmY.YYYs`. */
static box_err
put_secs(box_buf *b, double secs, int prec, bool lng)
{
    if (secs < 0)
        secs = 0;
    if (!lng)
        return box_buf_printf(b, "%.*f", prec, secs);
    long min = (long)(secs / 60);
    return box_buf_printf(b, "%ldm%.*fs", min, prec, secs - 60.0 * min);
}

/*
 * Formats fmt as bash does (TIMEFORMAT): %% %[p][l]R %[p][l]U %[p][l]S
 * %[p]P; a trailing newline is added. Another character after `%` is an
 * error (bash prints only the message). Returns 0 or 1 after a message.
 */
static int
time_format(sh_ctx *cx, const char *fmt, double real, double user,
            double sys, box_buf *b)
{
    box_err e = BOX_OK;
    for (const char *p = fmt; *p != '\0' && e == BOX_OK; p++) {
        if (*p != '%' || p[1] == '\0') {
            e = box_buf_putc(b, *p);
            continue;
        }
        p++;
        if (*p == '%') {
            e = box_buf_putc(b, '%');
            continue;
        }
        int prec = 3;
        bool lng = false;
        if (*p >= '0' && *p <= '9') {
            prec = *p - '0' > 3 ? 3 : *p - '0';
            p++;
        }
        if (*p == 'l') {
            lng = true;
            p++;
        }
        switch (*p) {
        case 'R':
            e = put_secs(b, real, prec, lng);
            break;
        case 'U':
            e = put_secs(b, user, prec, lng);
            break;
        case 'S':
            e = put_secs(b, sys, prec, lng);
            break;
        case 'P':
            e = box_buf_printf(b, "%.*f", prec > 2 ? 2 : prec,
                               real > 0 ? (user + sys) * 100.0 / real : 0.0);
            break;
        default:
            sh_errf(cx, "TIMEFORMAT: `%c': invalid format character",
                    *p == '\0' ? '?' : *p);
            return 1;
        }
    }
    if (e == BOX_OK)
        e = box_buf_putc(b, '\n');
    if (e != BOX_OK) {
        sh_errf(cx, "time: out of memory");
        return 1;
    }
    return 0;
}

int
sh_exec_time(sh_ctx *cx, const sh_node *n)
{
    time_mark t0, t1;
    time_now(&t0);
    int st = n->u.time.cmd != NULL ? sh_exec_node(cx, n->u.time.cmd) : 0;
    time_now(&t1);
    // A function's `return` or `exit` inside ends the timing unreported.
    if (cx->cx_flow == SH_FLOW_EXIT || cx->cx_flow == SH_FLOW_RETURN)
        return st;
    const char *fmt = TIME_FMT_POSIX;
    if (!n->u.time.posix) {
        fmt = sh_var_get(cx->cx_st, "TIMEFORMAT");
        if (fmt == NULL)
            fmt = TIME_FMT_DEFAULT;
        if (*fmt == '\0')
            return st; // bash: an empty TIMEFORMAT prints nothing
    }
    double real = (double)(t1.tm_real.tv_sec - t0.tm_real.tv_sec) +
                  (double)(t1.tm_real.tv_nsec - t0.tm_real.tv_nsec) / 1e9;
    box_buf b;
    box_buf_init(&b, 65536);
    if (time_format(cx, fmt, real, t1.tm_user - t0.tm_user,
                    t1.tm_sys - t0.tm_sys, &b) == 0)
        (void)sh_write(cx, 2, b.b_data, b.b_len);
    box_buf_reset(&b);
    return st;
}
