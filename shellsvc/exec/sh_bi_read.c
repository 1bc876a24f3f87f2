/* SPDX-License-Identifier: Apache-2.0 */
/* The read builtin: one record from an fd, split over names (bash 5.2). */
#include <errno.h>
#include <poll.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_svc.h"
#include "sh_array.h"
#include "sh_internal.h"

/* 128 + SIGALRM: bash's status when -t runs out. */
#define READ_TIMED_OUT 142
/* How long one poll waits at most, so an abort of the call is seen. */
#define READ_SLICE_MS 50
/* Bytes read ahead from a regular file: a few lines of the usual kind. */
#define READ_AHEAD 512

/* What the options ask for, checked before anything is read. */
typedef struct rd_opts {
    int ro_fd;
    int ro_delim;      // the byte that ends the record
    long ro_nchars;    // -n/-N: characters at most (-1: no limit)
    bool ro_exact;     // -N: the delimiter is data, no field splitting
    bool ro_raw;       // -r
    bool ro_timed;     // -t given
    uint64_t ro_ns;    // -t in nanoseconds
    uint64_t ro_until; // deadline on CLOCK_MONOTONIC
    // A regular file is read a block at a time and what the record did
    // not take is given back (sh_stream_give_back) before read returns,
    // as bash does: the next reader then starts where a byte at a time
    // would have left it, for one system call a line instead of one a
    // byte.
    sh_stream *ro_ahead_s; // the stream read ahead on (borrowed), or NULL
    size_t ro_ahead_len, ro_ahead_pos;
    char ro_ahead[READ_AHEAD];
} rd_opts;

/* The byte that ends what a record asks for: none with -N. */
static int
want_delim(const rd_opts *r)
{
    return r->ro_exact ? -1 : r->ro_delim;
}

/* bash's timeout syntax: digits, an optional '.' and more digits. */
static bool
parse_timeout(const char *s, uint64_t *ns)
{
    uint64_t whole = 0, frac = 0, scale = 1000000000u;
    const char *p = s;
    bool any = false;
    for (; *p >= '0' && *p <= '9'; p++, any = true) {
        if (whole > 100000000u)
            return false;
        whole = whole * 10 + (uint64_t)(*p - '0');
    }
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, any = true)
            if (scale > 1) {
                scale /= 10;
                frac += (uint64_t)(*p - '0') * scale;
            }
    *ns = whole * 1000000000u + frac;
    return any && *p == '\0';
}

static bool
parse_count(const char *s, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (s[0] == '\0' || *end != '\0' || errno != 0 || v < 0)
        return false;
    *out = v;
    return true;
}

/* Which of -n and -N was written last (bash keeps one count, the later
 * letter's): the option words again, skipping each letter's argument. */
static char
last_count_letter(int argc, char **argv, const sh_opts *o)
{
    char last = 0;
    for (int i = 1; i < o->o_ind && i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        for (const char *p = argv[i] + 1; *p; p++) {
            if (*p == 'n' || *p == 'N')
                last = *p;
            if (strchr("adinNptu", *p) != NULL) {
                if (p[1] == '\0')
                    i++; // the argument is the next word
                break;
            }
        }
    }
    return last;
}

/* Fills r from the parsed letters; a status after bash's message, or 0. */
static int
read_opts(sh_ctx *cx, int argc, char **argv, const sh_opts *o, rd_opts *r)
{
    // All but the read-ahead block, which is written before it is read.
    memset(r, 0, offsetof(rd_opts, ro_ahead));
    r->ro_delim = '\n';
    r->ro_nchars = -1;
    r->ro_raw = sh_opt(o, 'r');
    if (sh_opt(o, 't')) {
        if (!parse_timeout(o->o_arg['t'], &r->ro_ns))
            return sh_cmd_err(cx, "read", 1,
                              "%s: invalid timeout specification",
                              o->o_arg['t']);
        r->ro_timed = true;
        r->ro_until = box_svc_clock_ns(CLOCK_MONOTONIC) + r->ro_ns;
    }
    // bash checks each count as it meets it; the later letter's stays.
    char last = last_count_letter(argc, argv, o);
    for (const char *f = last == 'n' ? "Nn" : "nN"; *f; f++) {
        if (!sh_opt(o, *f))
            continue;
        if (!parse_count(o->o_arg[(unsigned char)*f], &r->ro_nchars))
            return sh_cmd_err(cx, "read", 1, "%s: invalid number",
                              o->o_arg[(unsigned char)*f]);
        r->ro_exact = *f == 'N';
    }
    if (sh_opt(o, 'd'))
        r->ro_delim = (unsigned char)o->o_arg['d'][0]; // '' is NUL
    if (sh_opt(o, 'u')) {
        long fd;
        const char *a = o->o_arg['u'];
        if (!parse_count(a, &fd))
            return sh_cmd_err(cx, "read", 1,
                              "%s: invalid file descriptor specification", a);
        if (fd >= SH_MAX_FD || cx->cx_fd[fd] == NULL)
            return sh_cmd_err(cx, "read", 1, "%s: invalid file descriptor: %s",
                              a, strerror(EBADF));
        r->ro_fd = (int)fd;
    }
    return 0;
}

/* The call is over (budget, abort, or an `&` job outliving its call):
 * the read that follows sees it too, says why and unwinds. */
static bool
call_ended(sh_ctx *cx)
{
    sh_session *ss = cx->cx_ss;
    return sh_budget_left_ms(ss) <= 0 || atomic_load(&ss->ss_abort) ||
           (cx->cx_bg && atomic_load(&ss->ss_jobs_end));
}

/*
 * Whether fd has input (or its end) before the deadline; only a pipe end
 * can keep a reader waiting: a file, here-doc or /dev/null is always
 * ready. Waits in slices so the end of the call still ends it.
 */
static bool
ready(sh_ctx *cx, const rd_opts *r, size_t want)
{
    sh_stream *s = cx->cx_fd[r->ro_fd];
    int os = sh_stream_os_fd(s);
    if (os < 0)
        return true;
    // Input that comes only when asked (the call's streamed stdin) is
    // asked for first; `-t 0` then gives it one slice to come, as bash's
    // answer too depends on whether the writer was quicker.
    uint64_t until = r->ro_until;
    if (sh_stream_ask(s, want, want_delim(r)) && r->ro_ns == 0)
        until = box_svc_clock_ns(CLOCK_MONOTONIC) + READ_SLICE_MS * 1000000u;
    for (;;) {
        uint64_t now = box_svc_clock_ns(CLOCK_MONOTONIC);
        long left =
            until > now ? (long)((until - now + 999999u) / 1000000u) : 0;
        int ms = left < READ_SLICE_MS ? (int)left : READ_SLICE_MS;
        struct pollfd p = {.fd = os, .events = POLLIN};
        int n = poll(&p, 1, ms);
        if (n > 0 || (n < 0 && errno != EINTR))
            return true;
        if (call_ended(cx))
            return true; // sh_read says why
        if (n == 0 && left <= ms)
            return false;
    }
}

/* One byte: 1, 0 at end of input, -1 on error, -2 when -t ran out.
 * Input that comes only when asked is asked for up to the record's end:
 * its delimiter, or the characters still wanted (want; 0 when -n/-N set
 * no limit), so no more than the record leaves its source. */
static int
next_byte(sh_ctx *cx, rd_opts *r, long want, char *c)
{
    if (r->ro_ahead_s != NULL) {
        if (r->ro_ahead_pos == r->ro_ahead_len) {
            ssize_t n =
                sh_read_ask(cx, r->ro_fd, r->ro_ahead, sizeof r->ro_ahead,
                            sizeof r->ro_ahead, want_delim(r));
            if (n <= 0)
                return n < 0 ? -1 : 0;
            r->ro_ahead_len = (size_t)n;
            r->ro_ahead_pos = 0;
        }
        *c = r->ro_ahead[r->ro_ahead_pos++];
        return 1;
    }
    size_t ask = want > 0 && want < SH_ASK_MAX ? (size_t)want : SH_ASK_MAX;
    if (r->ro_timed && !ready(cx, r, ask))
        return -2;
    return sh_read_byte_ask(cx, r->ro_fd, c, ask, want_delim(r));
}

/* Bytes a UTF-8 character takes after its lead byte (C.UTF-8 counts
 * characters for -n/-N). */
static int
utf8_tail(unsigned char c)
{
    return c >= 0xf0 && c < 0xf8 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 0;
}

/* Reads ahead when fd is a regular file of the host (seekable, and no
 * other reader waits on it as on a pipe). */
static void
read_ahead_start(sh_ctx *cx, rd_opts *r)
{
    sh_stream *s = cx->cx_fd[r->ro_fd];
    r->ro_ahead_s = !r->ro_timed && sh_stream_can_give_back(s) ? s : NULL;
    r->ro_ahead_len = r->ro_ahead_pos = 0;
}

/* Gives back what was read ahead and not taken. */
static void
read_ahead_end(rd_opts *r)
{
    size_t left = r->ro_ahead_len - r->ro_ahead_pos;
    if (r->ro_ahead_s != NULL && left > 0)
        sh_stream_give_back(r->ro_ahead_s, left);
    r->ro_ahead_s = NULL;
}

/*
 * The usual record, `read -r` of a line that lies whole in one block read
 * ahead with no NUL byte in it: *rec points at it inside r's block, with
 * nothing copied (taken up to its delimiter; the rest is given back as
 * ever). False, with whatever was read left in the block for read_record,
 * in every other case.
 */
static bool
record_ahead(sh_ctx *cx, rd_opts *r, const char **rec, size_t *len)
{
    if (r->ro_ahead_s == NULL || !r->ro_raw || r->ro_nchars >= 0 ||
        r->ro_exact || r->ro_ahead_pos != r->ro_ahead_len)
        return false;
    ssize_t n = sh_read_ask(cx, r->ro_fd, r->ro_ahead, sizeof r->ro_ahead,
                            sizeof r->ro_ahead, r->ro_delim);
    r->ro_ahead_pos = 0;
    r->ro_ahead_len = n > 0 ? (size_t)n : 0;
    if (n <= 0)
        return false; // read_record asks again and says how it ended
    const char *end = memchr(r->ro_ahead, r->ro_delim, r->ro_ahead_len);
    if (end == NULL || memchr(r->ro_ahead, '\0', (size_t)(end - r->ro_ahead)))
        return false;
    *rec = r->ro_ahead;
    *len = (size_t)(end - r->ro_ahead);
    r->ro_ahead_pos = *len + 1;
    return true;
}

/*
 * Reads one record into line (mask: 1 where a byte was escaped, so never
 * a separator). Returns 0, 1 at end of input, READ_TIMED_OUT, or -1 when
 * the record is too long.
 */
static int
read_record(sh_ctx *cx, rd_opts *r, box_buf *line, box_buf *mask)
{
    long chars = 0;
    while (r->ro_nchars < 0 || chars < r->ro_nchars) {
        char c;
        long want = r->ro_nchars < 0 ? 0 : r->ro_nchars - chars;
        int g = next_byte(cx, r, want, &c);
        if (g <= 0 || g == -2)
            return g == -2 ? READ_TIMED_OUT : 1;
        char m = 0;
        if (c == '\\' && !r->ro_raw) {
            if ((g = next_byte(cx, r, want, &c)) <= 0)
                return g == -2 ? READ_TIMED_OUT : 1;
            if (c == '\n')
                continue; // a line continuation
            m = 1;
        } else if (!r->ro_exact && (unsigned char)c == r->ro_delim) {
            return 0;
        } else if (c == '\0') {
            continue; // bash drops NUL bytes it does not stop at
        }
        if (box_buf_putc(line, c) != BOX_OK || box_buf_putc(mask, m) != BOX_OK)
            return -1;
        for (int k = utf8_tail((unsigned char)c); k > 0; k--) {
            if ((g = next_byte(cx, r, want > 0 ? want + k : 0, &c)) <= 0)
                return g == -2 ? READ_TIMED_OUT : 1;
            if (box_buf_putc(line, c) != BOX_OK ||
                box_buf_putc(mask, m) != BOX_OK)
                return -1;
        }
        chars++;
    }
    return 0;
}

/* A record to split: its bytes, and which of them `\` quoted (m: 1 for
 * such a byte, never a separator; NULL when none was). The IFS classes
 * of every byte value are looked up, not searched for. */
typedef struct rd_split {
    const char *sp_s, *sp_m;
    size_t sp_n;
    uint8_t sp_class[256]; // RD_SEP, RD_WS
} rd_split;

#define RD_SEP 1u // in IFS
#define RD_WS 2u  // in IFS, and white space: runs of it are one separator

static void
split_init(rd_split *sp, const char *ifs)
{
    memset(sp->sp_class, 0, sizeof sp->sp_class);
    for (const unsigned char *p = (const unsigned char *)ifs; *p; p++)
        sp->sp_class[*p] =
            RD_SEP | (*p == ' ' || *p == '\t' || *p == '\n' ? RD_WS : 0);
}

/* Whether byte k is IFS white space / an IFS separator, as it stands. */
static bool
ifs_ws(const rd_split *sp, size_t k)
{
    return (sp->sp_class[(unsigned char)sp->sp_s[k]] & RD_WS) != 0 &&
           (sp->sp_m == NULL || !sp->sp_m[k]);
}

static bool
ifs_sep(const rd_split *sp, size_t k)
{
    return sp->sp_class[(unsigned char)sp->sp_s[k]] != 0 &&
           (sp->sp_m == NULL || !sp->sp_m[k]);
}

/* The field that starts at *i: its end, with *i moved past the white
 * space, the one separator and the white space after it. */
static size_t
field_end(const rd_split *sp, size_t *i)
{
    size_t k = *i, n = sp->sp_n;
    while (k < n && !ifs_sep(sp, k))
        k++;
    size_t end = k;
    while (k < n && ifs_ws(sp, k))
        k++;
    if (k < n && ifs_sep(sp, k)) {
        k++;
        while (k < n && ifs_ws(sp, k))
            k++;
    }
    *i = k;
    return end;
}

/* Splits line by IFS over the names (the last takes the rest), or, with
 * -a, into the array; -N assigns the record whole to the first name. */
static int
assign_fields(sh_ctx *cx, const sh_opts *o, int argc, char **argv, rd_split *sp,
              bool exact)
{
    const char *ifs = sh_var_get(cx->cx_st, "IFS");
    if (ifs == NULL)
        ifs = SH_IFS_DEFAULT;
    if (exact)
        ifs = "";
    split_init(sp, ifs);
    const char *s = sp->sp_s;
    size_t n = sp->sp_n, i = 0;
    int nnames = argc - o->o_ind;
    const char *reply[] = {"REPLY"};
    const char *const *names =
        nnames > 0 ? (const char *const *)argv + o->o_ind : reply;
    if (nnames == 0)
        nnames = 1;
    while (i < n && ifs_ws(sp, i))
        i++;
    if (sh_opt(o, 'a')) {
        // read -a NAME: every field is an element (none takes the rest).
        const char *an = o->o_arg['a'];
        if (!sh_name_valid(an, strlen(an)))
            return sh_cmd_err(cx, "read", 1, "`%s': not a valid identifier",
                              an);
        sh_array *arr = sh_array_new(false);
        box_err ae = arr ? BOX_OK : BOX_ENOMEM;
        for (long long k = 0; i < n && ae == BOX_OK; k++) {
            size_t st = i, en = field_end(sp, &i);
            ae = sh_array_set(arr, k, s + st, en - st);
        }
        sh_var *av = NULL;
        sh_var *old = sh_var_find(cx->cx_st, an);
        if (ae == BOX_OK && old != NULL && (old->v_flags & SH_VAR_ASSOC)) {
            sh_array_free(arr);
            return sh_cmd_err(cx, "read", 1, "%s: not an indexed array", an);
        }
        if (ae == BOX_OK && (av = sh_var_add(cx->cx_st, an)) == NULL)
            ae = BOX_ENOMEM;
        if (ae == BOX_OK)
            ae = sh_var_set_array(cx->cx_st, av, arr);
        else
            sh_array_free(arr);
        return ae != BOX_OK ? sh_var_fail(cx, NULL, an, ae) : 0;
    }
    for (int v = 0; v < nnames; v++) {
        size_t st = i, en;
        if (v == nnames - 1) {
            en = n;
            while (en > st && ifs_ws(sp, en - 1))
                en--;
        } else if (exact) {
            en = n; // -N: the first name takes all, the others nothing
            i = n;
        } else {
            en = field_end(sp, &i);
        }
        // A name may be an element, NAME[SUBSCRIPT], as for printf -v.
        if (!sh_target_valid(names[v]))
            return sh_cmd_err(cx, "read", 1, "`%s': not a valid identifier",
                              names[v]);
        // bash names no builtin in a read's readonly message.
        if (sh_assign_target(cx, NULL, names[v], s + st, en - st) != 0)
            return 1;
    }
    return 0;
}

/*
 * read [-ers] [-a array] [-d delim] [-i text] [-n|-N nchars] [-p prompt]
 * [-t timeout] [-u fd] [name…]: one record from fd 0 (byte at a time, so
 * nothing past it is consumed). Status 1 at end of input, 142 when -t
 * runs out; what was read is assigned either way. `-p` prompts only on a
 * terminal, and the box's input never is one, so -p, -e, -i and -s
 * change nothing here. `-t 0` only asks whether input is waiting.
 */
int
sh_bi_read(sh_ctx *cx, int argc, char **argv, const sh_opts *o)
{
    rd_opts r;
    int rc = read_opts(cx, argc, argv, o, &r);
    if (rc != 0)
        return rc;
    if (r.ro_timed && r.ro_ns == 0)
        return ready(cx, &r, 1) ? 0 : 1;
    box_buf line, mask;
    box_buf_init(&line, SH_CAPTURE_MAX);
    box_buf_init(&mask, SH_CAPTURE_MAX);
    rd_split sp; // its classes are set when it is split
    sp.sp_m = NULL;
    read_ahead_start(cx, &r);
    // The record stays in r's block when it can (read -r of a short
    // line); r is not read again before its fields are assigned.
    if (!record_ahead(cx, &r, &sp.sp_s, &sp.sp_n)) {
        rc = read_record(cx, &r, &line, &mask);
        sp.sp_s = line.b_data ? line.b_data : "";
        sp.sp_m = mask.b_data;
        sp.sp_n = line.b_len;
    }
    read_ahead_end(&r);
    if (rc < 0) {
        rc = sh_cmd_err(cx, "read", 1, "line too long");
        goto out;
    }
    int arc = assign_fields(cx, o, argc, argv, &sp, r.ro_exact);
    if (arc != 0)
        rc = arc;
out:
    box_buf_reset(&line);
    box_buf_reset(&mask);
    return rc;
}
