/* SPDX-License-Identifier: Apache-2.0 */
/* Streams behind shell fds, and the write/read helpers commands use. */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_svc.h"
#include "sh_bistate.h"
#include "sh_internal.h"

#define IO_SLICE_MS 50 // a wait on a pipe end looks at the budget this often

/*
 * A stream is shared by every fd that dups it (refcounted, atomically:
 * pipeline stages drop their refs from their own threads). An OS pipe end
 * closes when its last ref goes, which is what gives the reader EOF and
 * the writer EPIPE. Writes to the session callbacks are serialised by the
 * session lock so concurrent stages never interleave inside one write.
 */
struct sh_stream {
    atomic_int s_refs;
    sh_stream_kind s_kind;
    int s_fd;
    pthread_mutex_t s_lock; // BUF and MEM
    char *s_p;
    size_t s_len, s_pos, s_max;
    bool s_full;
    sh_kernel_file *s_file;
    /* An FD stream fed only when asked (sh_stream_on_demand), under
     * s_lock: s_asked while an answer is out that no read has taken a
     * byte of; s_all once all of the input was asked for. */
    sh_want_fn s_want;
    void *s_want_arg;
    bool s_asked, s_all;
    /* What stream_seek_fd found, kept: a `while read` over a file asks
     * before every line, and an open file's kind does not change.
     * SH_SEEK_UNKNOWN until first asked. */
    atomic_int s_seek_fd;
    /* A host regular file is read at s_off with pread, under s_lock, when
     * s_off_known: a `while read` line then costs one call, not a read
     * and an lseek back, and bytes read ahead are given back by moving
     * s_off. The descriptor's own offset lags (s_off_lag) until
     * something that goes by it comes (a write, the close: stream_settle),
     * which then forgets s_off. */
    off_t s_off;
    bool s_off_known, s_off_lag;
    /* A block of the file read at s_ra_off, under s_lock (see
     * file_pread): s_ra_len bytes, read when the kernel's content count
     * was s_ra_changes, at s_ra_ns. NULL until a short read asks. */
    char *s_ra;
    size_t s_ra_len;
    off_t s_ra_off;
    uint64_t s_ra_changes, s_ra_ns;
};

/* The block a short read of a host file reads, and how long what it read
 * is served again (CLOCK_MONOTONIC). */
#define SH_RA_BYTES 4096
#define SH_RA_NS 1000000u

#define SH_SEEK_UNKNOWN (-2)

static void stream_settle(sh_stream *s);

sh_stream_kind
sh_stream_kind_of(const sh_stream *s)
{
    return s->s_kind;
}

bool
sh_stream_regular(const sh_stream *s)
{
    return s->s_kind == SH_ST_FILE && sh_kernel_file_regular(s->s_file);
}

sh_stream *
sh_stream_new(sh_stream_kind k)
{
    sh_stream *s = box_calloc(1, sizeof *s);
    if (s == NULL)
        return NULL;
    atomic_init(&s->s_refs, 1);
    s->s_kind = k;
    s->s_fd = -1;
    atomic_init(&s->s_seek_fd, SH_SEEK_UNKNOWN);
    pthread_mutex_init(&s->s_lock, NULL);
    return s;
}

sh_stream *
sh_stream_fd(int fd)
{
    sh_stream *s = sh_stream_new(SH_ST_FD);
    if (s != NULL)
        s->s_fd = fd;
    return s;
}

sh_stream *
sh_stream_mem_take(char *p, size_t n)
{
    sh_stream *s = sh_stream_new(SH_ST_MEM);
    if (s == NULL) {
        box_free(p);
        return NULL;
    }
    s->s_p = p;
    s->s_len = n;
    return s;
}

sh_stream *
sh_stream_buf(size_t max)
{
    sh_stream *s = sh_stream_new(SH_ST_BUF);
    if (s != NULL)
        s->s_max = max;
    return s;
}

sh_stream *
sh_stream_file(sh_kernel_file *f)
{
    sh_stream *s = sh_stream_new(SH_ST_FILE);
    if (s == NULL) {
        sh_kernel_close(f);
        return NULL;
    }
    s->s_file = f;
    return s;
}

sh_stream *
sh_stream_ref(sh_stream *s)
{
    if (s != NULL)
        atomic_fetch_add(&s->s_refs, 1);
    return s;
}

void
sh_stream_unref(sh_stream *s)
{
    (void)sh_stream_unref_last(s);
}

bool
sh_stream_unref_last(sh_stream *s)
{
    if (s == NULL || atomic_fetch_sub(&s->s_refs, 1) != 1)
        return false;
    if (s->s_kind == SH_ST_FD && s->s_fd >= 0)
        close(s->s_fd);
    if (s->s_kind == SH_ST_FILE) {
        // A program given the file before may still read it on.
        stream_settle(s);
        sh_kernel_close(s->s_file);
    }
    pthread_mutex_destroy(&s->s_lock);
    box_free(s->s_p);
    box_free(s->s_ra);
    box_free(s);
    return true;
}

int
sh_stream_os_fd(const sh_stream *s)
{
    return s != NULL && s->s_kind == SH_ST_FD ? s->s_fd : -1;
}

/* The host descriptor of s when it is a regular file (seekable), else
 * -1; found once. */
static int
stream_seek_fd(sh_stream *s)
{
    if (s == NULL)
        return -1;
    int known = atomic_load(&s->s_seek_fd);
    if (known != SH_SEEK_UNKNOWN)
        return known;
    struct stat st;
    int fd = s->s_kind == SH_ST_FILE ? sh_kernel_file_fd(s->s_file)
                                     : sh_stream_os_fd(s);
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        fd = -1;
    atomic_store(&s->s_seek_fd, fd);
    return fd;
}

/* Puts the descriptor's offset where the stream's reads have got to,
 * and forgets s_off (what comes next may move the offset). Caller holds
 * s_lock. */
static void
stream_settle(sh_stream *s)
{
    int fd = stream_seek_fd(s);
    if (s->s_off_known && s->s_off_lag && fd >= 0)
        (void)lseek(fd, s->s_off, SEEK_SET);
    s->s_off_known = s->s_off_lag = false;
}

bool
sh_stream_can_give_back(sh_stream *s)
{
    return s != NULL && s->s_kind == SH_ST_FILE && stream_seek_fd(s) >= 0;
}

void
sh_stream_give_back(sh_stream *s, size_t n)
{
    int fd = s != NULL && s->s_kind == SH_ST_FILE ? stream_seek_fd(s) : -1;
    if (fd < 0 || n == 0)
        return;
    pthread_mutex_lock(&s->s_lock);
    if (s->s_off_known && (off_t)n <= s->s_off) {
        s->s_off -= (off_t)n;
        s->s_off_lag = true;
    } else if (!s->s_off_known) {
        (void)lseek(fd, -(off_t)n, SEEK_CUR);
    }
    pthread_mutex_unlock(&s->s_lock);
}

/* pread, again after a signal; -errno on failure. */
static ssize_t
pread_all(int fd, void *buf, size_t n, off_t at)
{
    ssize_t r;
    do
        r = pread(fd, buf, n, at);
    while (r < 0 && errno == EINTR);
    return r < 0 ? -errno : r;
}

/* Up to n bytes at s_off from the block read ahead, when it holds them
 * and may still be trusted; -1 when it may not. */
static ssize_t
file_from_block(sh_stream *s, void *buf, size_t n)
{
    if (s->s_ra == NULL || s->s_off < s->s_ra_off ||
        s->s_off - s->s_ra_off >= (off_t)s->s_ra_len)
        return -1;
    uint64_t changes = sh_kernel_changes(s->s_file);
    if (changes == 0 || changes != s->s_ra_changes ||
        box_svc_clock_ns(CLOCK_MONOTONIC) - s->s_ra_ns > SH_RA_NS)
        return -1;
    size_t at = (size_t)(s->s_off - s->s_ra_off), k = s->s_ra_len - at;
    if (k > n)
        k = n;
    memcpy(buf, s->s_ra + at, k);
    return (ssize_t)k;
}

/*
 * A read of a host regular file at the stream's offset; -errno on
 * failure. Caller holds s_lock.
 *
 * A short read (a `while read` line, which gives back what it read past
 * its line) reads a block and keeps it: the next lines come from it,
 * one system call a block instead of one a line. The block is served
 * only while what could change the file's bytes has not happened: no
 * write or truncation by this call's kernel, no host program of the call
 * running or ended since (sh_kernel_changes), and for at most SH_RA_NS,
 * so a writer outside the call is seen as a read a moment late would see
 * it. Bytes past the block's end (new ones, or the end of the file) are
 * always read afresh.
 */
static ssize_t
file_pread(sh_stream *s, int fd, void *buf, size_t n)
{
    if (!s->s_off_known) {
        off_t at = lseek(fd, 0, SEEK_CUR);
        if (at < 0)
            return -errno;
        s->s_off = at;
        s->s_off_known = true;
        s->s_off_lag = false;
    }
    ssize_t r = file_from_block(s, buf, n);
    // Both taken before the read: a change while it reads makes the block
    // one never served.
    uint64_t changes =
        r < 0 && n < SH_RA_BYTES ? sh_kernel_changes(s->s_file) : 0;
    if (changes != 0 &&
        (s->s_ra != NULL || (s->s_ra = box_alloc(SH_RA_BYTES)) != NULL)) {
        s->s_ra_changes = changes;
        s->s_ra_ns = box_svc_clock_ns(CLOCK_MONOTONIC);
        s->s_ra_len = 0;
        s->s_ra_off = s->s_off;
        r = pread_all(fd, s->s_ra, SH_RA_BYTES, s->s_off);
        if (r > 0) {
            s->s_ra_len = (size_t)r;
            if ((size_t)r > n)
                r = (ssize_t)n;
            memcpy(buf, s->s_ra, (size_t)r);
        }
    } else if (r < 0) {
        r = pread_all(fd, buf, n, s->s_off);
    }
    if (r < 0)
        return r;
    s->s_off += r;
    s->s_off_lag |= r > 0;
    return r;
}

void
sh_stream_on_demand(sh_stream *s, sh_want_fn want, void *arg)
{
    s->s_want = want;
    s->s_want_arg = arg;
}

/* Whether a read of fd would not wait (bytes, the end, or an error the
 * read then reports). */
static bool
fd_ready_now(int fd)
{
    struct pollfd p = {.fd = fd, .events = POLLIN};
    return poll(&p, 1, 0) != 0;
}

/* Asks an on-demand stream for input (want 0: all of it) unless it has
 * some now or an answer is on its way. 0, or -1 when the asking failed. */
static int
stream_ask(sh_stream *s, size_t want, int delim)
{
    if (s->s_kind != SH_ST_FD || s->s_want == NULL)
        return 0;
    int rc = 0;
    pthread_mutex_lock(&s->s_lock);
    bool ask = want == 0 ? !s->s_all
                         : !s->s_all && !s->s_asked && !fd_ready_now(s->s_fd);
    if (ask && (rc = s->s_want(s->s_want_arg, want, delim)) == 0) {
        s->s_asked = true;
        s->s_all = want == 0;
    }
    pthread_mutex_unlock(&s->s_lock);
    return rc;
}

/* A read took bytes of the answer: the next read that finds the pipe
 * empty asks again. */
static void
stream_answered(sh_stream *s)
{
    if (s->s_want == NULL)
        return;
    pthread_mutex_lock(&s->s_lock);
    s->s_asked = false;
    pthread_mutex_unlock(&s->s_lock);
}

bool
sh_stream_ask(sh_stream *s, size_t want, int delim)
{
    if (s == NULL || s->s_kind != SH_ST_FD || s->s_want == NULL ||
        stream_ask(s, want > 0 ? want : 1, delim) != 0)
        return false;
    pthread_mutex_lock(&s->s_lock);
    bool coming = s->s_asked && !s->s_all && !fd_ready_now(s->s_fd);
    pthread_mutex_unlock(&s->s_lock);
    return coming;
}

int
sh_stream_hand_over(sh_stream *s)
{
    if (s == NULL || s->s_kind != SH_ST_FD)
        return -1;
    // A program cannot say what it will read: it gets the stream as it
    // comes. Asking failed: it reads what is there, then the end.
    (void)stream_ask(s, 0, -1);
    return s->s_fd;
}

char *
sh_stream_buf_take(sh_stream *s, size_t *len)
{
    pthread_mutex_lock(&s->s_lock);
    char *p = s->s_p;
    *len = s->s_len;
    s->s_p = NULL;
    s->s_len = 0;
    pthread_mutex_unlock(&s->s_lock);
    if (p == NULL)
        p = box_strdup("");
    return p;
}

/* True once cx must stop: the call's budget is spent, it was aborted, or
 * cx runs in an `&` job and the call has returned. Every command asks, so
 * on the coarse clock: a budget is seconds long, and a tick's lag lets a
 * call run a few ms past it at most. */
static bool
call_over(const sh_ctx *cx)
{
    sh_session *ss = cx->cx_ss;
    return atomic_load(&ss->ss_abort) ||
           box_svc_clock_ns(CLOCK_MONOTONIC_COARSE) >= ss->ss_deadline_ns ||
           (cx->cx_bg && atomic_load(&ss->ss_jobs_end)) ||
           (cx->cx_kill != NULL && atomic_load(cx->cx_kill) != 0);
}

/*
 * Waits until a pipe end is ready for events (or has an error or hang-up
 * for the read or write to report): 0. A pipe whose other side never
 * moves cannot hold the call past its budget: once the call is over, 1
 * (after one last look). The wait is cut in slices so an abort by
 * another thread is seen too; with one_slice, 2 after a slice that saw
 * nothing (an on-demand reader then looks whether to ask again). Pipe ends stay
 * blocking (a host program may be handed one as its stdin), so after "ready" a
 * reader reads what is there and a writer writes at most PIPE_BUF bytes, which
 * a ready pipe takes whole; only another thread draining or filling the same
 * pipe end in between could make that call wait, and then only until that
 * thread's own side ends, which it does by the same budget.
 */
static int
io_wait(const sh_ctx *cx, int fd, short events, bool one_slice)
{
    for (;;) {
        bool over = call_over(cx);
        struct pollfd p = {.fd = fd, .events = events};
        int n = poll(&p, 1, over ? 0 : IO_SLICE_MS);
        if (n > 0 || (n < 0 && errno != EINTR))
            return 0;
        if (n == 0 && over)
            return 1;
        if (n == 0 && one_slice)
            return 2;
    }
}

/* Drops a SIGPIPE raised by our own write (it is blocked in every thread
 * that runs shell code; see sh_session_run). */
static void
drain_sigpipe(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGPIPE);
    struct timespec zero = {0, 0};
    while (sigtimedwait(&set, NULL, &zero) == SIGPIPE)
        ;
}

/* SH_IO_ERR leaves errno saying why (tee names it). */
static int
stream_write(const sh_ctx *cx, sh_stream *s, const char *p, size_t n)
{
    sh_session *ss = cx->cx_ss;
    switch (s->s_kind) {
    case SH_ST_OUT:
    case SH_ST_ERR: {
        sh_write_fn fn =
            s->s_kind == SH_ST_OUT ? ss->ss_o.so_out : ss->ss_o.so_err;
        pthread_mutex_lock(&ss->ss_lock);
        int rc = fn(ss->ss_o.so_io_arg, p, n);
        pthread_mutex_unlock(&ss->ss_lock);
        return rc == 0 ? SH_IO_OK : SH_IO_STOP;
    }
    case SH_ST_NULL:
        return SH_IO_OK;
    case SH_ST_MEM:
        errno = EBADF; // a here-document is read-only
        return SH_IO_ERR;
    case SH_ST_BUF: {
        int rc = SH_IO_OK;
        pthread_mutex_lock(&s->s_lock);
        if (s->s_len + n > s->s_max) {
            n = s->s_max - s->s_len;
            rc = SH_IO_PIPE;
            s->s_full = true;
        }
        if (n > 0) {
            char *np = box_realloc(s->s_p, s->s_len + n + 1);
            if (np == NULL) {
                errno = ENOMEM;
                rc = SH_IO_ERR;
            } else {
                memcpy(np + s->s_len, p, n);
                s->s_len += n;
                np[s->s_len] = '\0';
                s->s_p = np;
            }
        }
        pthread_mutex_unlock(&s->s_lock);
        return rc;
    }
    case SH_ST_FILE: {
        // Stages sharing one file write through one handle, in turn.
        pthread_mutex_lock(&s->s_lock);
        stream_settle(s); // a `<>` file writes where the reads got to
        ssize_t w = sh_kernel_write(s->s_file, p, n);
        pthread_mutex_unlock(&s->s_lock);
        if (w == (ssize_t)n)
            return SH_IO_OK;
        errno = w < 0 ? (int)-w : ENOSPC; // a short write: no room
        return SH_IO_ERR;
    }
    case SH_ST_FD:
        while (n > 0) {
            if (io_wait(cx, s->s_fd, POLLOUT, false) != 0)
                return SH_IO_OVER;
            ssize_t w = write(s->s_fd, p, n < PIPE_BUF ? n : PIPE_BUF);
            if (w < 0) {
                if (errno == EINTR || errno == EAGAIN)
                    continue;
                if (errno == EPIPE) {
                    drain_sigpipe();
                    return SH_IO_PIPE;
                }
                return SH_IO_ERR;
            }
            p += w;
            n -= (size_t)w;
        }
        return SH_IO_OK;
    }
    errno = EBADF;
    return SH_IO_ERR;
}

int
sh_stream_write(sh_ctx *cx, sh_stream *s, const char *p, size_t n,
                bool pipe_ends)
{
    if (s == NULL) {
        errno = EBADF;
        return SH_IO_ERR;
    }
    int rc = stream_write(cx, s, p, n);
    if (rc == SH_IO_PIPE && pipe_ends) {
        // Like SIGPIPE: the writer's stage (or $( )) ends.
        sh_fatal(cx, 141);
    } else if (rc == SH_IO_STOP) {
        sh_session_abort(cx->cx_ss, 1);
        sh_fatal(cx, 1);
    } else if (rc == SH_IO_OVER) {
        sh_check_stop(cx); // says why (the budget, once), and unwinds
    }
    return rc;
}

int
sh_write(sh_ctx *cx, int fd, const char *p, size_t n)
{
    if (fd < 0 || fd >= SH_MAX_FD) {
        errno = EBADF;
        return SH_IO_ERR;
    }
    return sh_stream_write(cx, cx->cx_fd[fd], p, n, true);
}

int
sh_puts(sh_ctx *cx, int fd, const char *s)
{
    return sh_write(cx, fd, s, strlen(s));
}

/* The longest message sh_errf prints before cutting it. */
#define SH_ERR_MAX 8192
#define SH_ERR_WHERE_MAX 512 // "FILE: line N: ", FILE cut past this

/* Writes SH_PREFIX, where (NULL: nothing), fmt's text and a newline. */
static void
err_vprint(sh_ctx *cx, const char *where, const char *fmt, va_list ap)
{
    char *msg = box_vasprintf(fmt, ap);
    if (msg == NULL)
        return;
    // A message quoting hostile text (a long expression, a long name) is
    // cut, not dropped: its start says where, and the mark says it is cut.
    size_t n = strlen(msg);
    bool cut = n > SH_ERR_MAX;
    box_buf b;
    box_buf_init(&b, SH_ERR_MAX + SH_ERR_WHERE_MAX + 64);
    if (box_buf_puts(&b, SH_PREFIX) == BOX_OK &&
        (where == NULL || box_buf_puts(&b, where) == BOX_OK) &&
        box_buf_append(&b, msg, cut ? SH_ERR_MAX : n) == BOX_OK &&
        (!cut || box_buf_puts(&b, "\xe2\x80\xa6 (cut)") == BOX_OK) &&
        box_buf_putc(&b, '\n') == BOX_OK)
        (void)sh_write(cx, 2, b.b_data, b.b_len);
    box_buf_reset(&b);
    box_free(msg);
}

void
sh_errf(sh_ctx *cx, const char *fmt, ...)
{
    char where[SH_ERR_WHERE_MAX];
    if (cx->cx_source != NULL)
        snprintf(where, sizeof where, "%s: line %u: ", cx->cx_source,
                 (unsigned)cx->cx_line);
    va_list ap;
    va_start(ap, fmt);
    err_vprint(cx, cx->cx_source != NULL ? where : NULL, fmt, ap);
    va_end(ap);
}

void
sh_box_errf(sh_ctx *cx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    err_vprint(cx, NULL, fmt, ap);
    va_end(ap);
}

/* A read of an FD stream; an on-demand one is asked first, and asked
 * again after each slice of waiting in which another reader may have
 * taken the answer. */
static ssize_t
fd_read(sh_ctx *cx, sh_stream *s, void *buf, size_t n, size_t want, int delim)
{
    for (;;) {
        if (stream_ask(s, want, delim) != 0) {
            errno = EIO;
            return -1;
        }
        int w = io_wait(cx, s->s_fd, POLLIN, s->s_want != NULL);
        if (w == 2)
            continue;
        if (w != 0) {
            sh_check_stop(cx); // says why (the budget, once), and unwinds
            return -1;
        }
        ssize_t r = read(s->s_fd, buf, n);
        if (r < 0 && (errno == EINTR || errno == EAGAIN))
            continue;
        if (r > 0)
            stream_answered(s);
        return r < 0 ? -1 : r;
    }
}

ssize_t
sh_read(sh_ctx *cx, int fd, void *buf, size_t n)
{
    return sh_read_ask(cx, fd, buf, n, n, -1);
}

ssize_t
sh_read_ask(sh_ctx *cx, int fd, void *buf, size_t n, size_t want, int delim)
{
    errno = EBADF; // a bad fd, a write-only stream
    if (fd < 0 || fd >= SH_MAX_FD || cx->cx_fd[fd] == NULL)
        return -1;
    sh_stream *s = cx->cx_fd[fd];
    switch (s->s_kind) {
    case SH_ST_NULL:
        return 0;
    case SH_ST_OUT:
    case SH_ST_ERR:
        return -1;
    case SH_ST_MEM:
    case SH_ST_BUF: {
        pthread_mutex_lock(&s->s_lock);
        size_t k = s->s_len - s->s_pos < n ? s->s_len - s->s_pos : n;
        if (k > 0)
            memcpy(buf, s->s_p + s->s_pos, k);
        s->s_pos += k;
        pthread_mutex_unlock(&s->s_lock);
        return (ssize_t)k;
    }
    case SH_ST_FILE: {
        int os = stream_seek_fd(s);
        pthread_mutex_lock(&s->s_lock);
        ssize_t r = os >= 0 ? file_pread(s, os, buf, n)
                            : sh_kernel_read(s->s_file, buf, n);
        pthread_mutex_unlock(&s->s_lock);
        if (r < 0)
            errno = (int)-r;
        return r < 0 ? -1 : r;
    }
    case SH_ST_FD:
        return fd_read(cx, s, buf, n, want > n ? want : n > 0 ? n : 1, delim);
    }
    return -1;
}

int
sh_read_byte(sh_ctx *cx, int fd, char *c)
{
    ssize_t r = sh_read(cx, fd, c, 1);
    return r < 0 ? -1 : (int)r;
}

int
sh_read_byte_ask(sh_ctx *cx, int fd, char *c, size_t want, int delim)
{
    ssize_t r = sh_read_ask(cx, fd, c, 1, want, delim);
    return r < 0 ? -1 : (int)r;
}

/* ---- contexts ---- */

void
sh_ctx_init(sh_ctx *cx, sh_session *ss, sh_state *st)
{
    memset(cx, 0, sizeof *cx);
    cx->cx_ss = ss;
    cx->cx_st = st;
    cx->cx_fd[0] = sh_stream_new(SH_ST_NULL);
    cx->cx_fd[1] = sh_stream_new(SH_ST_OUT);
    cx->cx_fd[2] = sh_stream_new(SH_ST_ERR);
}

sh_ctx *
sh_ctx_fork(const sh_ctx *cx)
{
    sh_ctx *n = box_calloc(1, sizeof *n);
    if (n == NULL)
        return NULL;
    n->cx_ss = cx->cx_ss;
    n->cx_st = sh_state_dup(cx->cx_st);
    if (n->cx_st == NULL) {
        box_free(n);
        return NULL;
    }
    n->cx_owns_state = true;
    for (int i = 0; i < SH_MAX_FD; i++)
        n->cx_fd[i] = sh_stream_ref(cx->cx_fd[i]);
    n->cx_depth = cx->cx_depth;
    n->cx_xlevel = cx->cx_xlevel;
    n->cx_status = cx->cx_status;
    n->cx_cond = cx->cx_cond;
    n->cx_bg = cx->cx_bg;
    n->cx_kill = cx->cx_kill;
    n->cx_line = cx->cx_line;
    n->cx_source = cx->cx_source;
    n->cx_script = cx->cx_script;
    bool err;
    n->cx_bi = sh_bistate_fork(cx->cx_bi, &err);
    if (err) {
        sh_ctx_free(n);
        return NULL;
    }
    return n;
}

void
sh_ctx_release(sh_ctx *cx)
{
    while (cx->cx_nspare > 0)
        box_buf_reset(&cx->cx_spare[--cx->cx_nspare]);
    sh_ctx_orphan_jobs(cx);
    sh_locals_restore(cx, NULL);
    for (int i = 0; i < SH_MAX_FD; i++) {
        sh_stream_unref(cx->cx_fd[i]);
        cx->cx_fd[i] = NULL;
    }
    sh_procsub_end(cx, NULL);
    if (cx->cx_owns_state) {
        sh_state_free(cx->cx_st);
        cx->cx_st = NULL;
    }
    sh_bistate_free(cx->cx_bi);
    cx->cx_bi = NULL;
}

void
sh_ctx_free(sh_ctx *cx)
{
    if (cx == NULL)
        return;
    sh_ctx_release(cx);
    box_free(cx);
}

void
sh_fatal(sh_ctx *cx, int status)
{
    cx->cx_flow = SH_FLOW_EXIT;
    cx->cx_status = status;
    cx->cx_discard = false;
}

void
sh_discard(sh_ctx *cx, int status)
{
    sh_fatal(cx, status);
    cx->cx_discard = true;
}

bool
sh_discarded(sh_ctx *cx)
{
    if (cx->cx_flow != SH_FLOW_EXIT || !cx->cx_discard ||
        atomic_load(&cx->cx_ss->ss_abort))
        return false;
    cx->cx_flow = SH_FLOW_NONE;
    cx->cx_discard = false;
    return true;
}

bool
sh_check_stop(sh_ctx *cx)
{
    sh_session *ss = cx->cx_ss;
    if (cx->cx_flow != SH_FLOW_NONE)
        return true;
    if (atomic_load(&ss->ss_abort)) {
        sh_fatal(cx, atomic_load(&ss->ss_abort_status));
        return true;
    }
    if (cx->cx_bg && atomic_load(&ss->ss_jobs_end)) {
        sh_fatal(cx, SH_JOB_ENDED); // quietly: the call has returned
        return true;
    }
    int sig = cx->cx_kill != NULL ? atomic_load(cx->cx_kill) : 0;
    if (sig != 0) { // `kill` on this job: it ends as a killed process
        sh_fatal(cx, 128 + sig);
        return true;
    }
    // `kill $$`: the main shell takes it (its subshells, $( ) and jobs
    // have states of their own and go on, as bash's child processes do).
    if (atomic_load(&ss->ss_pending_sig) != 0 && cx->cx_st == ss->ss_state &&
        !cx->cx_bg && sh_trap_signal(cx))
        return true;
    // The coarse clock (a tick behind at most) costs a fifth of the
    // precise one, and this runs before every command. Every reading of
    // the budget takes the same clock: a command stopped as out of time
    // (jq's watchdog, a read) then always ends the call as out of time.
    if (box_svc_clock_ns(CLOCK_MONOTONIC_COARSE) >= ss->ss_deadline_ns) {
        sh_timeout(cx);
        return true;
    }
    return false;
}

void
sh_stop_call(sh_ctx *cx, const char *why)
{
    sh_session *ss = cx->cx_ss;
    // The abort is set before the message, so a write of it that meets
    // the same spent budget only unwinds, and of the many threads a
    // runaway may have started, only the first says why.
    if (!atomic_exchange(&ss->ss_abort, true)) {
        atomic_store(&ss->ss_abort_status, 1);
        sh_box_errf(cx, "%s", why); // a limit's words (spec §3.1)
    }
    sh_fatal(cx, 1);
}

void
sh_timeout(sh_ctx *cx)
{
    sh_stop_call(cx, "execution timeout exceeded");
}

void
sh_too_deep(sh_ctx *cx)
{
    sh_stop_call(cx, "maximum recursion depth exceeded");
}

long
sh_budget_left_ms(sh_session *ss)
{
    uint64_t now = box_svc_clock_ns(CLOCK_MONOTONIC_COARSE); // as above
    if (now >= ss->ss_deadline_ns)
        return 0;
    return (long)((ss->ss_deadline_ns - now + 999999u) / 1000000u);
}

void
sh_session_signal(sh_session *ss, int sig)
{
    if (sig > 0)
        atomic_store(&ss->ss_pending_sig, sig);
}

void
sh_session_abort(sh_session *ss, int status)
{
    if (!atomic_exchange(&ss->ss_abort, true))
        atomic_store(&ss->ss_abort_status, status);
}
