/* SPDX-License-Identifier: Apache-2.0 */
/* Structured one-line logging to stderr. */
#include "box_log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const log_level_name[] = {
    [BOX_LOG_DEBUG] = "debug",
    [BOX_LOG_INFO] = "info",
    [BOX_LOG_WARN] = "warn",
    [BOX_LOG_ERROR] = "error",
};

/* The least level written: BOX_LOG_LEVEL=debug|info|warn|error, read on
 * each call (logging is rare; an operator can quiet every service of a
 * run through the one environment they inherit). Default info. */
static box_log_level
log_threshold(void)
{
    const char *v = getenv("BOX_LOG_LEVEL");
    if (v == NULL)
        return BOX_LOG_INFO;
    for (size_t i = 0; i < sizeof log_level_name / sizeof *log_level_name; i++)
        if (log_level_name[i] != NULL && strcmp(v, log_level_name[i]) == 0)
            return (box_log_level)i;
    return BOX_LOG_INFO;
}

void
box_log(box_log_level lvl, const char *svc, const char *fmt, ...)
{
    if (lvl < log_threshold())
        return;
    char msg[1024];
    char line[1400];
    struct timespec ts;
    struct tm tm;

    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);

    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);

    // Quote the message; escape quotes, backslashes and control bytes.
    char esc[1200];
    size_t o = 0;
    for (const char *p = msg; *p && o + 5 < sizeof esc; p++) {
        unsigned char c = (unsigned char)*p;
        if (c == '"' || c == '\\') {
            esc[o++] = '\\';
            esc[o++] = (char)c;
        } else if (c < 0x20) {
            o += (size_t)snprintf(esc + o, sizeof esc - o, "\\x%02x", c);
        } else {
            esc[o++] = (char)c;
        }
    }
    esc[o] = '\0';

    int n = snprintf(line, sizeof line,
                     "ts=%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ level=%s svc=%s "
                     "msg=\"%s\"\n",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000,
                     log_level_name[lvl], svc, esc);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = (int)sizeof line - 1;
    ssize_t w = write(STDERR_FILENO, line, (size_t)n);
    (void)w; // nothing useful to do if stderr is gone
}
