/* SPDX-License-Identifier: Apache-2.0 */
/* wget's log on stderr: GNU Wget 1.21's lines, exact where they do not
 * depend on time, the rest plausible (dates, rates, the dot progress).
 * The shell never resolves or connects itself (the gateway does, §6), so
 * the "Connecting to" line names the gateway and no address. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "cmd_wget.h"
#include "sh_internal.h"

#define WL_LINE_MAX (1u << 16)
#define WL_DOT 1024u // bytes a dot stands for (Wget's "dot" style)
#define WL_DOTS_ROW 50u
#define WL_DOTS_GROUP 10u

/* ‘ and ’, as Wget quotes file names in a UTF-8 locale. */
#define LQ "\xe2\x80\x98"
#define RQ "\xe2\x80\x99"

void
wget_logf(wget_run *wr, wget_verb least, const char *fmt, ...)
{
    if (wr->wr_verb < least)
        return;
    va_list ap;
    va_start(ap, fmt);
    box_buf b;
    box_buf_init(&b, WL_LINE_MAX);
    if (box_buf_vprintf(&b, fmt, ap) == BOX_OK && b.b_len > 0)
        (void)sh_write(wr->wr_cx, 2, b.b_data, b.b_len);
    box_buf_reset(&b);
    va_end(ap);
}

void
wget_stamp(char out[32])
{
    time_t now = time(NULL);
    struct tm tm;
    if (localtime_r(&now, &tm) == NULL ||
        strftime(out, 32, "%Y-%m-%d %H:%M:%S", &tm) == 0)
        snprintf(out, 32, "%s", "1970-01-01 00:00:00");
}

long long
wget_content_length(const char *head, size_t len)
{
    static const char name[] = "content-length:";
    const char *p = head, *end = head + len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
        if (n > sizeof name - 1 && strncasecmp(p, name, sizeof name - 1) == 0) {
            const char *v = p + sizeof name - 1;
            long long cl = 0;
            while (v < p + n && (*v == ' ' || *v == '\t'))
                v++;
            if (v == p + n || *v < '0' || *v > '9')
                return -1;
            while (v < p + n && *v >= '0' && *v <= '9' && cl < (1LL << 52))
                cl = cl * 10 + (*v++ - '0');
            return cl;
        }
        p += n + 1;
    }
    return -1;
}

/* GNU's human_readable for sizes and rates: one or two decimals under
 * 100, none above. */
static int
wl_prec(double v)
{
    return v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2;
}

void
wget_size_text(long long n, char out[WGET_SIZE_TEXT])
{
    static const char units[] = "KMGT";
    double v = (double)n;
    int u = -1;
    while (v >= 1024.0 && u < 3) {
        v /= 1024.0;
        u++;
    }
    if (u < 0)
        snprintf(out, WGET_SIZE_TEXT, "%lld", n);
    else
        snprintf(out, WGET_SIZE_TEXT, "%.*f%c", v < 10 ? 1 : 0, v, units[u]);
}

/* The transfer rate of n bytes in ms: its value and unit index (B, K, M,
 * G per second). */
static double
wl_rate(size_t n, long ms, int *unit)
{
    double r = (double)n * 1000.0 / (double)(ms > 0 ? ms : 1);
    *unit = 0;
    while (r >= 1024.0 && *unit < 3) {
        r /= 1024.0;
        (*unit)++;
    }
    return r;
}

void
wget_log_hop(void *arg, const http_hop *hop)
{
    wget_run *wr = arg;
    char ts[32];
    if (hop->hh_kind == HTTP_HOP_ASK) {
        wget_stamp(ts);
        wget_logf(wr, WGET_VERBOSE, "--%s--  %s\n", ts, hop->hh_url);
        return;
    }
    wget_logf(wr, WGET_VERBOSE,
              "Connecting to %s through the egress gateway... connected.\n",
              hop->hh_target->ct_authority);
    if (wr->wr_server_response) {
        // -S: the head as it came, each line led by two spaces.
        wget_logf(wr, WGET_VERBOSE,
                  "HTTP request sent, awaiting response... \n");
        const char *p = hop->hh_head, *end = p + hop->hh_head_len;
        while (p < end) {
            const char *nl = memchr(p, '\n', (size_t)(end - p));
            size_t n = nl != NULL ? (size_t)(nl - p) : (size_t)(end - p);
            size_t shown = n > 0 && p[n - 1] == '\r' ? n - 1 : n;
            if (shown > 0)
                wget_logf(wr, WGET_TERSE, "  %.*s\n", (int)shown, p);
            p += n + 1;
        }
    } else {
        size_t rn;
        const char *reason = http_reason(hop->hh_head, hop->hh_head_len, &rn);
        wget_logf(wr, WGET_VERBOSE,
                  "HTTP request sent, awaiting response... %ld %.*s\n",
                  hop->hh_code, (int)rn, reason);
    }
    if (hop->hh_location != NULL)
        wget_logf(wr, WGET_VERBOSE, "Location: %s [following]\n",
                  hop->hh_location);
}

void
wget_log_length(wget_run *wr, const http_result *res)
{
    long long cl = wget_content_length(res->hs_head, res->hs_head_len);
    char size[WGET_SIZE_TEXT + 4] = "", len[WGET_SIZE_TEXT + 32];
    if (cl >= 1024) {
        char t[WGET_SIZE_TEXT];
        wget_size_text(cl, t);
        snprintf(size, sizeof size, " (%s)", t);
    }
    if (cl >= 0)
        snprintf(len, sizeof len, "%lld%s", cl, size);
    else
        snprintf(len, sizeof len, "unspecified");
    if (res->hs_ctype != NULL)
        wget_logf(wr, WGET_VERBOSE, "Length: %s [%s]\n", len, res->hs_ctype);
    else
        wget_logf(wr, WGET_VERBOSE, "Length: %s\n", len);
}

void
wget_log_saving(wget_run *wr, const char *name)
{
    wget_logf(wr, WGET_VERBOSE, "Saving to: " LQ "%s" RQ "\n\n",
              name != NULL ? name : "STDOUT");
}

/* The dot progress of n bytes, as Wget draws it when stderr is no
 * terminal: a row per 50 KiB, a dot per KiB, the last row's rate. */
static void
wl_dots(wget_run *wr, size_t n, long ms)
{
    size_t dots = n / WL_DOT;
    size_t rows = dots / WL_DOTS_ROW + 1;
    for (size_t r = 0; r < rows; r++) {
        char row[WL_DOTS_ROW + WL_DOTS_ROW / WL_DOTS_GROUP + 1];
        size_t o = 0;
        for (size_t d = 0; d < WL_DOTS_ROW; d++) {
            if (d % WL_DOTS_GROUP == 0)
                row[o++] = ' ';
            row[o++] = r * WL_DOTS_ROW + d < dots ? '.' : ' ';
        }
        row[o] = '\0';
        size_t done = (r + 1) * WL_DOTS_ROW * WL_DOT;
        unsigned pct =
            r + 1 == rows || n == 0 ? 100 : (unsigned)(done * 100 / n);
        int unit;
        double rate = wl_rate(n, ms, &unit);
        wget_logf(wr, WGET_VERBOSE, "%6zuK%s %3u%% %.*f%c%s\n", r * WL_DOTS_ROW,
                  row, pct, wl_prec(rate), rate, "BKMG"[unit],
                  r + 1 == rows ? "=0s" : " 0s");
    }
}

void
wget_log_saved(wget_run *wr, const char *name, const http_result *res)
{
    long ms = http_now_ms() - wr->wr_t0;
    size_t n = res->hs_body_len;
    long long cl = wget_content_length(res->hs_head, res->hs_head_len);
    char ts[32], of[48] = "";
    static const char *const rate_names[] = {"B/s", "KB/s", "MB/s", "GB/s"};
    int unit;
    double rate = wl_rate(n, ms, &unit);
    wget_stamp(ts);
    if (cl >= 0)
        snprintf(of, sizeof of, "/%lld", cl);
    wr->wr_saved++;
    wr->wr_bytes += n;
    wl_dots(wr, n, ms);
    if (name != NULL)
        wget_logf(wr, WGET_VERBOSE,
                  "\n%s (%.*f %s) - " LQ "%s" RQ " saved [%zu%s]\n\n", ts,
                  wl_prec(rate), rate, rate_names[unit], name, n, of);
    else
        wget_logf(wr, WGET_VERBOSE,
                  "\n%s (%.*f %s) - written to stdout [%zu%s]\n\n", ts,
                  wl_prec(rate), rate, rate_names[unit], n, of);
    if (wr->wr_verb == WGET_TERSE)
        wget_logf(wr, WGET_TERSE, "%s URL:%s [%zu%s] -> \"%s\" [1]\n", ts,
                  res->hs_url, n, of, name != NULL ? name : "-");
}
