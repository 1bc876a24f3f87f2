/* SPDX-License-Identifier: Apache-2.0 */
/* grep over one input: read in large chunks, find matching lines in the
 * whole chunk, print them with their context, notice binary data. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "cmd_grep.h"

/*
 * The state of one input. The chunk buffer (g_buf) holds buf[0,len):
 * the kept lines of leading context [keep,pos), then the lines not yet
 * searched. Lines are never copied: a match is found in the buffer and
 * printed from there. Positions in the file are off + index.
 */
typedef struct scan {
    grep *s_g;
    const char *s_name;
    sh_kernel_file *s_file; // NULL: shell fd s_fd
    int s_fd;
    size_t s_len, s_pos;
    uintmax_t s_off;    // file offset of buf[0]
    uintmax_t s_lineno; // number of the line at s_pos
    uintmax_t s_nsel;   // lines selected
    uintmax_t s_after;  // trailing context lines still to print
    uintmax_t s_last;   // file offset after the last printed line
    bool s_any_printed; // s_last is set
    bool s_binary;      // a NUL was seen: the file is binary from here
    bool s_bin_match;   // a selected line in binary data (GNU's notice)
    bool s_enc;         // a selected line was not UTF-8 (the same)
    bool s_maxed;       // -m reached: only trailing context now
    bool s_stop;        // the file is done
} scan;

static char *
sbuf(const scan *s)
{
    return s->s_g->g_buf;
}

static bool
is_eol(const scan *s, char c)
{
    return c == s->s_g->g_eol || (s->s_binary && c == '\0');
}

/* The end of the line starting at a (its terminator, or limit). */
static size_t
line_end(const scan *s, size_t a, size_t limit)
{
    const char *b = sbuf(s);
    if (!s->s_binary) {
        const char *p = memchr(b + a, s->s_g->g_eol, limit - a);
        return p ? (size_t)(p - b) : limit;
    }
    while (a < limit && !is_eol(s, b[a]))
        a++;
    return a;
}

static uintmax_t
count_lines(const scan *s, size_t a, size_t b)
{
    uintmax_t n = 0;
    for (size_t e; a < b; a = e + 1) {
        e = line_end(s, a, b);
        n++;
    }
    return n;
}

/* Whether line holds only valid UTF-8 (GNU calls the rest binary). */
static bool
utf8_ok(const char *p, size_t n)
{
    const unsigned char *u = (const unsigned char *)p;
    for (size_t i = 0; i < n;) {
        unsigned c = u[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        size_t k = c >= 0xC2 && c < 0xE0   ? 2
                   : c >= 0xE0 && c < 0xF0 ? 3
                   : c >= 0xF0 && c < 0xF5 ? 4
                                           : 0;
        if (k == 0 || i + k > n)
            return false;
        for (size_t j = 1; j < k; j++)
            if ((u[i + j] & 0xC0) != 0x80)
                return false;
        unsigned c1 = u[i + 1];
        if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 >= 0xA0) ||
            (c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 >= 0x90))
            return false;
        i += k;
    }
    return true;
}

/* The "--" before a group that does not continue the last one. */
static bool
group_sep(scan *s, size_t a)
{
    grep *g = s->s_g;
    if (!g->g_context || g->g_sep == NULL || !g->g_printed)
        return true;
    if (s->s_any_printed && s->s_last == s->s_off + a)
        return true;
    return grep_out_sep(g);
}

/* Prints line [a,e) numbered lineno: selected (':') or context ('-').
 * With -o a context line prints nothing, yet counts as printed for the
 * group separators (GNU). */
static bool
print_line(scan *s, size_t a, size_t e, uintmax_t lineno, bool selected)
{
    grep *g = s->s_g;
    const char *line = sbuf(s) + a;
    size_t len = e - a;
    bool check = g->g_bin != GREP_BIN_TEXT;
    if (check && !g->g_only && !utf8_ok(line, len)) {
        s->s_enc |= selected;
        return true;
    }
    if (!group_sep(s, a))
        return false;
    s->s_last = s->s_off + e + 1;
    s->s_any_printed = true;
    g->g_printed = true;
    if (!g->g_only)
        return grep_out_head(g, s->s_name, lineno, s->s_off + a,
                             selected ? ':' : '-') &&
               grep_out_text(g, line, len, selected);
    if (!selected)
        return true;
    size_t at = 0, ms, me;
    while (at <= len && grep_match_line(g, line, len, at, &ms, &me)) {
        if (me == ms) {
            at = ms + 1;
            continue;
        }
        at = me;
        if (check && !utf8_ok(line + ms, me - ms)) {
            s->s_enc = true;
            continue;
        }
        if (!grep_out_head(g, s->s_name, lineno, s->s_off + a + ms, ':') ||
            !grep_out_text(g, line + ms, me - ms, true))
            return false;
    }
    return true;
}

/* The start of the line before the one at a (a > 0). */
static size_t
line_before(const scan *s, size_t a)
{
    const char *b = sbuf(s);
    size_t st = a - 1; // the terminator of the line before
    while (st > 0 && !is_eol(s, b[st - 1]))
        st--;
    return st;
}

/* The lines of leading context before the selected line at a: up to -B
 * of them, none that is out already, none dropped from the buffer. */
static bool
before_context(scan *s, size_t a)
{
    grep *g = s->s_g;
    size_t at = a;
    uintmax_t n = 0;
    while (n < g->g_before && at > 0) {
        size_t st = line_before(s, at);
        if (s->s_any_printed && s->s_off + st < s->s_last)
            break;
        at = st;
        n++;
    }
    for (uintmax_t k = n; k > 0; k--) {
        size_t e = line_end(s, at, a);
        if (!print_line(s, at, e, s->s_lineno - k, false))
            return false;
        at = e + 1;
    }
    return true;
}

/* Lines [a,b) that are not selected: trailing context, numbering. */
static bool
not_selected(scan *s, size_t a, size_t b)
{
    grep *g = s->s_g;
    while (s->s_after > 0 && a < b) {
        size_t e = line_end(s, a, b);
        if (!print_line(s, a, e, s->s_lineno, false))
            return false;
        s->s_after--;
        s->s_lineno++;
        a = e + 1;
    }
    if (s->s_maxed && s->s_after == 0)
        s->s_stop = true;
    if (g->g_num && a < b)
        s->s_lineno += count_lines(s, a, b);
    return true;
}

/* The selected line [a,e). */
static bool
selected(scan *s, size_t a, size_t e)
{
    grep *g = s->s_g;
    s->s_nsel++;
    if (g->g_quiet) {
        g->g_done = true;
        g->g_final = 0;
        s->s_stop = true;
        return false;
    }
    if (g->g_list || g->g_list_not) {
        s->s_stop = true;
        return true;
    }
    if (!g->g_count) {
        if (s->s_binary && g->g_bin == GREP_BIN_BINARY) {
            s->s_bin_match = true;
            s->s_stop = true;
            return true;
        }
        if (g->g_before > 0 && !before_context(s, a))
            return false;
        if (!print_line(s, a, e, s->s_lineno, true))
            return false;
        s->s_after = g->g_after;
    }
    s->s_lineno++;
    if (g->g_has_max && s->s_nsel >= g->g_max) {
        s->s_maxed = true;
        s->s_stop = s->s_after == 0;
    }
    return true;
}

/* Searches buf[s_pos, end): whole lines (the last may lack its end only
 * at the end of input). False to stop the run. */
static bool
scan_region(scan *s, size_t end)
{
    grep *g = s->s_g;
    grep_match_reset(g);
    while (s->s_pos < end && !s->s_stop) {
        size_t ls = end, le = end;
        if (s->s_maxed) {
            if (!not_selected(s, s->s_pos, end))
                return false;
            s->s_pos = end;
            break;
        }
        bool m = grep_match_next(g, sbuf(s) + s->s_pos, end - s->s_pos,
                                 s->s_binary, &ls, &le);
        if (m) {
            ls += s->s_pos;
            le += s->s_pos;
        } else {
            ls = le = end;
        }
        if (!g->g_invert) {
            if (!not_selected(s, s->s_pos, ls))
                return false;
            if (m && !s->s_stop && !selected(s, ls, le))
                return false;
        } else {
            size_t a = s->s_pos;
            while (a < ls && !s->s_stop && !s->s_maxed) {
                size_t e = line_end(s, a, ls);
                if (!selected(s, a, e))
                    return false;
                a = e + 1;
            }
            if (s->s_stop || s->s_maxed) {
                s->s_pos = a; // -m: the rest is trailing context only
                continue;
            }
            if (m && !not_selected(s, ls, le + 1 > end ? end : le + 1))
                return false;
        }
        s->s_pos = le + 1 > end ? end : le + 1;
    }
    return !g->g_done;
}

/* Reads more: bytes read, 0 at the end, -1 after an error. */
static ssize_t
scan_read(scan *s, char *p, size_t n)
{
    grep *g = s->s_g;
    if (sh_check_stop(g->g_cx))
        return -2;
    ssize_t r = s->s_file ? sh_kernel_read(s->s_file, p, n)
                          : sh_read(g->g_cx, s->s_fd, p, n);
    // An input can end because the call is stopping: its writer did, or
    // the wait for it ended with the call's budget.
    if (r <= 0 && sh_check_stop(g->g_cx))
        return -2;
    if (r < 0) {
        int e = s->s_file ? (int)-r : EIO;
        grep_file_err(g, "%s: %s", s->s_name, strerror(e));
        return -1;
    }
    return r;
}

/* Makes room for GREP_CHUNK more bytes after s_len, dropping the lines
 * before keep. */
static bool
scan_room(scan *s, size_t keep)
{
    grep *g = s->s_g;
    if (keep > 0) {
        memmove(g->g_buf, g->g_buf + keep, s->s_len - keep);
        s->s_len -= keep;
        s->s_pos -= keep;
        s->s_off += keep;
    }
    if (s->s_len + GREP_CHUNK + 1 <= g->g_bcap)
        return true;
    size_t cap = g->g_bcap ? g->g_bcap : GREP_CHUNK + 1;
    while (cap < s->s_len + GREP_CHUNK + 1)
        cap *= 2;
    char *nb = box_realloc(g->g_buf, cap);
    if (nb == NULL)
        return false;
    g->g_buf = nb;
    g->g_bcap = cap;
    return true;
}

/* Where the kept leading context starts: up to -B lines before s_pos,
 * none already printed, and at most GREP_KEEP_MAX bytes back (a huge -B
 * must not make each read walk the whole file again). */
#define GREP_KEEP_MAX (8u << 20)
static size_t
keep_from(const scan *s)
{
    size_t at = s->s_pos;
    size_t floor = s->s_pos > GREP_KEEP_MAX ? s->s_pos - GREP_KEEP_MAX : 0;
    for (uintmax_t n = 0; n < s->s_g->g_before && at > floor; n++) {
        size_t st = line_before(s, at);
        if (st < floor || (s->s_any_printed && s->s_off + st < s->s_last))
            break;
        at = st;
    }
    return at;
}

/* Reads the input to its end (or until the file is decided). 0 a line
 * selected, 1 none, 2 a read error. */
static int
scan_all(scan *s)
{
    grep *g = s->s_g;
    bool eof = false;
    int st = 0;
    while (!eof && !s->s_stop && !g->g_done) {
        if (!scan_room(s, keep_from(s))) {
            g->g_done = true;
            g->g_final = sh_cmd_err(g->g_cx, "grep", 2, "out of memory");
            return 2;
        }
        ssize_t n = scan_read(s, g->g_buf + s->s_len, GREP_CHUNK);
        if (n == -2) {
            g->g_done = true;
            g->g_final = g->g_cx->cx_status;
            return 2;
        }
        if (n < 0) {
            st = 2;
            eof = true;
            n = 0;
        }
        eof |= n == 0;
        char *fresh = g->g_buf + s->s_len;
        if (!s->s_binary && g->g_bin != GREP_BIN_TEXT && g->g_eol != '\0' &&
            memchr(fresh, '\0', (size_t)n) != NULL) {
            if (g->g_bin == GREP_BIN_WITHOUT)
                return st == 2 ? 2 : 1;
            s->s_binary = true;
        }
        s->s_len += (size_t)n;
        size_t end = s->s_len;
        if (!eof) {
            // Only whole lines now; the rest waits for the next read.
            size_t k = end;
            while (k > s->s_pos && !is_eol(s, g->g_buf[k - 1]))
                k--;
            end = k;
        }
        if (end > s->s_pos && !scan_region(s, end))
            break;
    }
    if (g->g_done)
        return g->g_final == 0 ? 0 : 2;
    if (st == 2)
        return 2;
    return s->s_nsel > 0 ? 0 : 1;
}

/* What -c, -l and -L print, and the binary notice, once a file is done. */
static bool
scan_summary(scan *s)
{
    grep *g = s->s_g;
    if (g->g_quiet)
        return true;
    if (g->g_list || g->g_list_not) {
        if ((s->s_nsel > 0) == g->g_list)
            return grep_out_name(g, s->s_name);
        return true;
    }
    if (g->g_count)
        return grep_out_count(g, s->s_name, s->s_nsel);
    if (s->s_bin_match || s->s_enc) {
        if (!grep_out_flush(g))
            return false;
        sh_cmd_err(g->g_cx, "grep", 0, "%s: binary file matches", s->s_name);
    }
    return true;
}

/* -T with -n or -b: GNU pads the numbers to the digits of the file's
 * size (19, the widest, for what is not a regular file). */
static int
tab_width(grep *g, const char *operand)
{
    sh_ctx *cx = g->g_cx;
    sh_kernel_stat ks;
    sh_kernel_result r = {0};
    int w = 19;
    if (operand != NULL &&
        sh_kernel_stat_path(sh_kern(cx), cx->cx_st->st_cwd, operand, &ks, &r) ==
            0 &&
        S_ISREG(ks.ks_mode)) {
        w = 1;
        for (uint64_t v = ks.ks_size; v >= 10; v /= 10)
            w++;
    }
    sh_kernel_result_clear(&r);
    return w;
}

int
grep_scan_operand(grep *g, const char *operand, const char *name)
{
    sh_ctx *cx = g->g_cx;
    scan s = {.s_g = g, .s_name = name, .s_lineno = 1};
    bool std = operand == NULL || strcmp(operand, "-") == 0;
    int dfd = std ? 0 : sh_devfd(cx, operand);
    if (dfd >= 0) {
        s.s_fd = dfd;
    } else {
        sh_kernel_result r = {0};
        if (sh_kernel_open(sh_kern(cx), cx->cx_st->st_cwd, operand, O_RDONLY, 0,
                           &s.s_file, &r) != 0) {
            g->g_err = true;
            if (r.kr_outcome == SH_KR_FAULT) {
                (void)grep_out_flush(g);
                g->g_done = true;
                g->g_final = sh_fs_fail(cx, "grep", operand, &r);
                return 2;
            }
            if (g->g_nomsg || !grep_out_flush(g))
                sh_kernel_result_clear(&r);
            else
                (void)sh_fs_fail(cx, "grep", operand, &r);
            return 2;
        }
        sh_kernel_result_clear(&r);
    }
    g->g_numw = 0;
    if (g->g_tab && (g->g_num || g->g_byte))
        g->g_numw = tab_width(g, s.s_file != NULL ? operand : NULL);
    int st = scan_all(&s);
    if (s.s_file)
        sh_kernel_close(s.s_file);
    if (!g->g_done && !scan_summary(&s))
        return 2;
    // Output goes out per file so it stays in order with later messages.
    if (!g->g_done && !grep_out_flush(g))
        return 2;
    return st;
}
