/* SPDX-License-Identifier: Apache-2.0 */
/* grep's output: one buffer for stdout, the line prefixes (-H -n -b -T
 * -Z), GNU's default colours for --color=always, and file messages. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "cmd_grep.h"

// GNU grep's default GREP_COLORS: ms/mc=01;31 fn=35 ln=32 bn=32 se=36.
#define SGR_END "\33[m\33[K"
#define SGR_MATCH "\33[01;31m\33[K"
#define SGR_NAME "\33[35m\33[K"
#define SGR_NUM "\33[32m\33[K"
#define SGR_SEP "\33[36m\33[K"

/*
 * Ends the run after a failed write: a reader that went away (or spent
 * output) already set the context's flow and status, so the run returns
 * that quietly; a bad fd is reported like GNU grep (status 2).
 */
static void
out_failed(grep *g)
{
    g->g_done = true;
    if (g->g_cx->cx_flow != SH_FLOW_NONE) {
        g->g_final = g->g_cx->cx_status;
        return;
    }
    g->g_final =
        sh_cmd_err(g->g_cx, "grep", 2, "write error: Bad file descriptor");
}

bool
grep_out_flush(grep *g)
{
    if (g->g_olen == 0)
        return true;
    int rc = sh_write(g->g_cx, 1, g->g_out, g->g_olen);
    g->g_olen = 0;
    if (rc != SH_IO_OK) {
        out_failed(g);
        return false;
    }
    return true;
}

/* Queues n bytes; a piece larger than the buffer goes out directly. */
bool
grep_out_put(grep *g, const char *p, size_t n)
{
    if (g->g_done)
        return false;
    if (g->g_olen + n > GREP_OUT_CAP && !grep_out_flush(g))
        return false;
    if (n >= GREP_OUT_CAP) {
        if (sh_write(g->g_cx, 1, p, n) != SH_IO_OK) {
            out_failed(g);
            return false;
        }
        return true;
    }
    memcpy(g->g_out + g->g_olen, p, n);
    g->g_olen += n;
    return true;
}

static bool
out_str(grep *g, const char *s)
{
    return grep_out_put(g, s, strlen(s));
}

/* text in colour sgr when --color=always. */
static bool
out_sgr(grep *g, const char *sgr, const char *p, size_t n)
{
    if (!g->g_color)
        return grep_out_put(g, p, n);
    return out_str(g, sgr) && grep_out_put(g, p, n) && out_str(g, SGR_END);
}

static bool
out_sep(grep *g, char sep)
{
    return out_sgr(g, SGR_SEP, &sep, 1);
}

static bool
out_num(grep *g, uintmax_t v, char sep)
{
    char num[32];
    int k = snprintf(num, sizeof num, "%*ju", g->g_numw, v);
    return out_sgr(g, SGR_NUM, num, (size_t)k) && out_sep(g, sep);
}

bool
grep_out_head(grep *g, const char *name, uintmax_t lineno, uintmax_t off,
              char sep)
{
    bool any = false;
    if (g->g_names == 1) {
        if (!out_sgr(g, SGR_NAME, name, strlen(name)))
            return false;
        if (!(g->g_null ? grep_out_put(g, "", 1) : out_sep(g, sep)))
            return false;
        any = true;
    }
    if (g->g_num && !out_num(g, lineno, sep))
        return false;
    if (g->g_byte && !out_num(g, off, sep))
        return false;
    any |= g->g_num || g->g_byte;
    return !(g->g_tab && any) || grep_out_put(g, "\t", 1);
}

bool
grep_out_name(grep *g, const char *name)
{
    return out_sgr(g, SGR_NAME, name, strlen(name)) &&
           grep_out_put(g, g->g_null ? "" : "\n", 1);
}

bool
grep_out_count(grep *g, const char *name, uintmax_t n)
{
    char num[32];
    int k = snprintf(num, sizeof num, "%ju\n", n);
    if (g->g_names == 1 &&
        !(out_sgr(g, SGR_NAME, name, strlen(name)) &&
          (g->g_null ? grep_out_put(g, "", 1) : out_sep(g, ':'))))
        return false;
    return grep_out_put(g, num, (size_t)k);
}

bool
grep_out_sep(grep *g)
{
    return out_sgr(g, SGR_SEP, g->g_sep, strlen(g->g_sep)) &&
           grep_out_put(g, &g->g_eol, 1);
}

bool
grep_out_text(grep *g, const char *line, size_t len, bool selected)
{
    // GNU colours the matches of matching lines: the selected ones, or
    // with -v the context lines.
    if (!g->g_color || selected == g->g_invert)
        return grep_out_put(g, line, len) && grep_out_put(g, &g->g_eol, 1);
    size_t at = 0, s, e;
    while (at <= len && grep_match_line(g, line, len, at, &s, &e)) {
        if (e == s) { // an empty match colours nothing
            if (s >= len)
                break;
            if (!grep_out_put(g, line + at, s + 1 - at))
                return false;
            at = s + 1;
            continue;
        }
        if (!grep_out_put(g, line + at, s - at) ||
            !out_sgr(g, SGR_MATCH, line + s, e - s))
            return false;
        at = e;
    }
    return grep_out_put(g, line + at, len - at) &&
           grep_out_put(g, &g->g_eol, 1);
}

int
grep_file_err(grep *g, const char *fmt, ...)
{
    g->g_err = true;
    if (g->g_nomsg)
        return 2;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (!grep_out_flush(g))
        return 2;
    return sh_cmd_err(g->g_cx, "grep", 2, "%s", msg);
}
