/* SPDX-License-Identifier: Apache-2.0 */
/* Decision log: OTLP-JSON lines, a bounded queue and one writer thread. */
#include "pdp_dlog.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <sys/uio.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"
#include "box_json.h"
#include "box_log.h"
#include "box_svc.h"

struct pdp_dlog {
    int dl_fd;
    char *dl_box_id;
    char *dl_run_id;
    char *dl_res; // every record's resource (dlog_resource)
    pthread_t dl_thread;
    pthread_mutex_t dl_lock;
    pthread_cond_t dl_nonempty;
    pthread_cond_t dl_nonfull;
    // Lines waiting for the disk, whole and in order, built in place: no
    // allocation per decision, and the writer takes them all with one
    // write. Under dl_lock.
    box_buf dl_fill;
    box_buf dl_spare; // the writer's, emptied after each write
    size_t dl_cap;    // lines that may wait
    size_t dl_count;  // lines in dl_fill
    bool dl_stop;
    uint64_t dl_written;
    uint64_t dl_rng; // trace/span ids; under dl_lock
};

static box_err dlog_resource(box_buf *b, const char *box_id,
                             const char *run_id);

/* ------------------------------------------------------------------ */
/* Writer                                                              */
/* ------------------------------------------------------------------ */

// The writer lets lines gather this long (or to DLOG_WRITE_BYTES) before
// it writes: one wake-up and one write for many decisions, where waking
// on each line costs a deciding thread more than building it.
#define DLOG_LINGER_MS 2
#define DLOG_WRITE_BYTES (256u * 1024u)
#define DLOG_FILL_MAX (8u * 1024u * 1024u) // deciders wait past this
// One write(2) takes at most this much: measured on ext4, 64 MB appended
// in writes of 1 MB took 17 ms of system time, in writes of 2 MB or more
// 230 ms (tmpfs showed no such step). A loop's served permits fill a batch
// of several MB while the writer writes the last.
#define DLOG_WRITE_SLICE (512u * 1024u)

/* How much of p[0..n) (whole lines) one write takes: at most a slice, cut
 * after its last line, so a reader of the log between two writes finds
 * whole lines (a record is shorter than a slice). */
static size_t
dlog_slice(const char *p, size_t n)
{
    if (n <= DLOG_WRITE_SLICE)
        return n;
    const char *nl = memrchr(p, '\n', DLOG_WRITE_SLICE);
    return nl != NULL ? (size_t)(nl - p) + 1 : DLOG_WRITE_SLICE;
}

/* Appends p[0..n) (whole lines); 0, or the errno of a failed write, after
 * which the file is cut back to where the batch began: a line is in the
 * log whole or not at all (a full disk must not leave half a line that
 * the next one runs on from). */
static int
dlog_write_all(int fd, const char *p, size_t n)
{
    off_t start = lseek(fd, 0, SEEK_END);
    while (n > 0) {
        ssize_t w = write(fd, p, dlog_slice(p, n));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : ENOSPC;
            if (start >= 0 && ftruncate(fd, start) != 0)
                e = errno;
            return e;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* The deadline DLOG_LINGER_MS from now on the condition variables' clock. */
static struct timespec
dlog_linger_deadline(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    ts.tv_nsec += DLOG_LINGER_MS * 1000000L;
    if (ts.tv_nsec >= 1000000000L) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000L;
    }
    return ts;
}

/* True while the writer may wait for more lines: not stopping, less than
 * a write's worth gathered, and no decider waiting for room. Caller holds
 * dl_lock. */
static bool
dlog_may_linger(const pdp_dlog *l)
{
    return !l->dl_stop && l->dl_fill.b_len < DLOG_WRITE_BYTES &&
           l->dl_count < l->dl_cap;
}

/* Swaps the waiting lines for its empty buffer and writes them, until
 * stopped with nothing left. */
static void *
dlog_writer(void *arg)
{
    pdp_dlog *l = arg;
    pthread_mutex_lock(&l->dl_lock);
    for (;;) {
        while (l->dl_count == 0 && !l->dl_stop)
            pthread_cond_wait(&l->dl_nonempty, &l->dl_lock);
        if (l->dl_count == 0 && l->dl_stop)
            break;
        if (dlog_may_linger(l)) {
            struct timespec due = dlog_linger_deadline();
            while (dlog_may_linger(l) &&
                   pthread_cond_clockwait(&l->dl_nonempty, &l->dl_lock,
                                          CLOCK_MONOTONIC, &due) == 0)
                ;
        }
        box_buf batch = l->dl_fill;
        size_t n = l->dl_count;
        l->dl_fill = l->dl_spare;
        l->dl_count = 0;
        pthread_cond_broadcast(&l->dl_nonfull);
        pthread_mutex_unlock(&l->dl_lock);
        int e = dlog_write_all(l->dl_fd, batch.b_data, batch.b_len);
        if (e != 0)
            // Said on stderr (box-pdp's own log), so the gap is known.
            box_log(BOX_LOG_WARN, "box-pdp",
                    "the decision log could not be written (%s): %zu "
                    "decision record%s missing from it",
                    strerror(e), n, n == 1 ? " is" : "s are");
        box_buf_truncate(&batch, 0);
        pthread_mutex_lock(&l->dl_lock);
        l->dl_spare = batch;
        l->dl_written += e == 0 ? n : 0;
    }
    pthread_mutex_unlock(&l->dl_lock);
    return NULL;
}

box_err
pdp_dlog_open(const char *path, const pdp_dlog_ident *id, size_t queue_cap,
              pdp_dlog **out)
{
    pdp_dlog *l = box_calloc(1, sizeof *l);
    if (l == NULL)
        return BOX_ENOMEM;
    l->dl_fd = -1;
    l->dl_cap = queue_cap ? queue_cap : PDP_DLOG_QUEUE_DEFAULT;
    pthread_mutex_init(&l->dl_lock, NULL);
    pthread_cond_init(&l->dl_nonempty, NULL);
    pthread_cond_init(&l->dl_nonfull, NULL);
    box_buf_init(&l->dl_fill, DLOG_FILL_MAX + PDP_DLOG_LINE_MAX);
    box_buf_init(&l->dl_spare, DLOG_FILL_MAX + PDP_DLOG_LINE_MAX);
    box_err ret = BOX_ENOMEM;
    if ((l->dl_box_id = box_strdup(
             id && id->di_box_id ? id->di_box_id : "box-unknown")) == NULL ||
        (l->dl_run_id = box_strdup(id && id->di_run_id ? id->di_run_id : "")) ==
            NULL)
        goto fail;
    box_buf res;
    box_buf_init(&res, PDP_DLOG_LINE_MAX);
    if (dlog_resource(&res, l->dl_box_id, l->dl_run_id) != BOX_OK) {
        box_buf_reset(&res);
        goto fail;
    }
    l->dl_res = box_buf_take(&res);
    l->dl_fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (l->dl_fd < 0) {
        ret = BOX_EIO;
        goto fail;
    }
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    l->dl_rng = (uint64_t)ts.tv_nsec * 6364136223846793005ULL ^
                (uint64_t)ts.tv_sec ^ ((uint64_t)getpid() << 32) ^ 1;
    if (pthread_create(&l->dl_thread, NULL, dlog_writer, l) != 0) {
        ret = BOX_EIO;
        goto fail;
    }
    *out = l;
    return BOX_OK;
fail:
    if (l->dl_fd >= 0)
        close(l->dl_fd);
    box_free(l->dl_box_id);
    box_free(l->dl_run_id);
    box_free(l->dl_res);
    box_free(l);
    return ret;
}

void
pdp_dlog_close(pdp_dlog *l)
{
    if (l == NULL)
        return;
    pthread_mutex_lock(&l->dl_lock);
    l->dl_stop = true;
    pthread_cond_signal(&l->dl_nonempty);
    pthread_mutex_unlock(&l->dl_lock);
    pthread_join(l->dl_thread, NULL);
    close(l->dl_fd);
    box_buf_reset(&l->dl_fill);
    box_buf_reset(&l->dl_spare);
    box_free(l->dl_box_id);
    box_free(l->dl_run_id);
    box_free(l->dl_res);
    pthread_mutex_destroy(&l->dl_lock);
    pthread_cond_destroy(&l->dl_nonempty);
    pthread_cond_destroy(&l->dl_nonfull);
    box_free(l);
}

uint64_t
pdp_dlog_written(pdp_dlog *l)
{
    pthread_mutex_lock(&l->dl_lock);
    uint64_t n = l->dl_written;
    pthread_mutex_unlock(&l->dl_lock);
    return n;
}

/* Takes the lock once there is room for one more line (deciders wait
 * while the writer is behind: a decision is never answered unlogged).
 * BOX_ECLOSED, unlocked, once the log is closing. On BOX_OK the caller
 * appends one line to dl_fill from *mark on and calls dlog_commit. */
static box_err
dlog_begin(pdp_dlog *l, size_t *mark)
{
    pthread_mutex_lock(&l->dl_lock);
    while ((l->dl_count >= l->dl_cap || l->dl_fill.b_len >= DLOG_FILL_MAX) &&
           !l->dl_stop)
        pthread_cond_wait(&l->dl_nonfull, &l->dl_lock);
    if (l->dl_stop) {
        pthread_mutex_unlock(&l->dl_lock);
        return BOX_ECLOSED;
    }
    *mark = l->dl_fill.b_len;
    return BOX_OK;
}

/* Keeps the line appended since mark when rv is BOX_OK and it fits a
 * line's bound, else takes it back whole; then unlocks. */
static box_err
dlog_commit(pdp_dlog *l, size_t mark, box_err rv)
{
    if (rv == BOX_OK && l->dl_fill.b_len - mark > PDP_DLOG_LINE_MAX)
        rv = BOX_ETOOBIG;
    if (rv != BOX_OK) {
        box_buf_truncate(&l->dl_fill, mark);
    } else if (l->dl_count++ == 0 || l->dl_count == l->dl_cap ||
               (mark < DLOG_WRITE_BYTES &&
                l->dl_fill.b_len >= DLOG_WRITE_BYTES)) {
        // The writer sleeps on an empty log, then lingers for more: wake
        // it for the first line, when a write's worth has gathered, and
        // when the next decider would wait for room.
        pthread_cond_signal(&l->dl_nonempty);
    }
    pthread_mutex_unlock(&l->dl_lock);
    return rv;
}

/* Queues a line built elsewhere (a control record: rare). */
static box_err
dlog_push(pdp_dlog *l, const char *line)
{
    size_t mark;
    box_err rv = dlog_begin(l, &mark);
    if (rv != BOX_OK)
        return rv;
    return dlog_commit(l, mark, box_buf_puts(&l->dl_fill, line));
}

/* ------------------------------------------------------------------ */
/* Line building                                                       */
/* ------------------------------------------------------------------ */

#define DLOG_DEC_MAX 20 // digits of a uint64_t

/* v in decimal at d; returns the digits' count. */
static size_t
dlog_dec(char d[DLOG_DEC_MAX], uint64_t v)
{
    char r[DLOG_DEC_MAX];
    size_t n = 0;
    do {
        r[DLOG_DEC_MAX - ++n] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    memcpy(d, r + DLOG_DEC_MAX - n, n);
    return n;
}

/* v in decimal. */
static box_err
dlog_put_dec(box_buf *b, uint64_t v)
{
    char d[DLOG_DEC_MAX];
    return box_buf_append(b, d, dlog_dec(d, v));
}

/* v as 16 lowercase hex digits at d. */
static void
dlog_hex16(char d[16], uint64_t v)
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 15; i >= 0; i--, v >>= 4)
        d[i] = hex[v & 15];
}

/* What is a record's own: its time (four times in its two lines) and its
 * trace and span ids (twice), rendered once. */
typedef struct dlog_stamp {
    char st_time[DLOG_DEC_MAX];
    size_t st_time_len;
    char st_trace[32];
    char st_span[16];
} dlog_stamp;

static void
dlog_stamp_make(dlog_stamp *st, uint64_t ns, const uint64_t rnd[3])
{
    st->st_time_len = dlog_dec(st->st_time, ns);
    dlog_hex16(st->st_trace, rnd[0]);
    dlog_hex16(st->st_trace + 16, rnd[1]);
    dlog_hex16(st->st_span, rnd[2]);
}

/*
 * Where a line's per-record parts went: its trace and span ids and its
 * times. A line rendered once with them recorded (a template) is logged
 * again and again by copying the text between them and writing fresh
 * ones (pdp_dlog_tmpl_add): a loop's thousand served `[` cost one render.
 */
enum dlog_hole_kind { HOLE_TRACE, HOLE_SPAN, HOLE_TIME };
#define DLOG_HOLES_MAX 8 // two ids and four times across the two lines

typedef struct dlog_holes {
    size_t h_n;
    struct {
        size_t ho_off, ho_len;
        enum dlog_hole_kind ho_kind;
    } h_at[DLOG_HOLES_MAX];
} dlog_holes;

/* Notes that b's bytes from start on are hole kind (h NULL: none kept). */
static void
dlog_hole(dlog_holes *h, const box_buf *b, size_t start,
          enum dlog_hole_kind kind)
{
    if (h == NULL || h->h_n >= DLOG_HOLES_MAX)
        return;
    h->h_at[h->h_n].ho_off = start;
    h->h_at[h->h_n].ho_len = b->b_len - start;
    h->h_at[h->h_n].ho_kind = kind;
    h->h_n++;
}

/* st's text for a hole of kind: what a line is built with and what a
 * template's copy is filled with. */
static box_err
dlog_put_stamp(box_buf *b, const dlog_stamp *st, enum dlog_hole_kind kind)
{
    switch (kind) {
    case HOLE_TRACE:
        return box_buf_append(b, st->st_trace, sizeof st->st_trace);
    case HOLE_SPAN:
        return box_buf_append(b, st->st_span, sizeof st->st_span);
    case HOLE_TIME:
        return box_buf_append(b, st->st_time, st->st_time_len);
    }
    return BOX_EINVAL;
}

/* st's text for kind, noted as a hole. */
static box_err
dlog_put_hole(box_buf *b, const dlog_stamp *st, enum dlog_hole_kind kind,
              dlog_holes *h)
{
    size_t start = b->b_len;
    box_err rv = dlog_put_stamp(b, st, kind);
    if (rv == BOX_OK)
        dlog_hole(h, b, start, kind);
    return rv;
}

/* The attribute writer tracks the comma between attributes. */
typedef struct attrs {
    box_buf *a_b;
    bool a_first;
    box_err a_rv;
} attrs;

/* Keys are this file's literals (letters, digits, dots, underscores):
 * they go out as they are, with no escaping pass. */
static void
attr_begin(attrs *a, const char *key)
{
    if (a->a_rv != BOX_OK)
        return;
    static const char open[] = ",{\"key\":\"", close[] = "\",\"value\":";
    const char *o = a->a_first ? open + 1 : open;
    a->a_first = false;
    a->a_rv = box_buf_append(a->a_b, o, strlen(o));
    if (a->a_rv == BOX_OK)
        a->a_rv = box_buf_puts(a->a_b, key);
    if (a->a_rv == BOX_OK)
        a->a_rv = box_buf_append(a->a_b, close, sizeof close - 1);
}

static void
attr_str(attrs *a, const char *key, const char *val)
{
    if (val == NULL || *val == '\0')
        return;
    attr_begin(a, key);
    if (a->a_rv == BOX_OK)
        a->a_rv = box_buf_lit(a->a_b, "{\"stringValue\":");
    if (a->a_rv == BOX_OK)
        a->a_rv = box_json_cstr(a->a_b, val);
    if (a->a_rv == BOX_OK)
        a->a_rv = box_buf_lit(a->a_b, "}}");
}

static void
attr_int(attrs *a, const char *key, int64_t v)
{
    attr_begin(a, key);
    if (a->a_rv == BOX_OK)
        a->a_rv = box_buf_puts(a->a_b, v < 0 ? "{\"intValue\":\"-"
                                             : "{\"intValue\":\"");
    if (a->a_rv == BOX_OK)
        a->a_rv = dlog_put_dec(a->a_b, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
    if (a->a_rv == BOX_OK)
        a->a_rv = box_buf_lit(a->a_b, "\"}}");
}

static void
attr_bool(attrs *a, const char *key, bool v)
{
    attr_begin(a, key);
    if (a->a_rv == BOX_OK)
        a->a_rv = box_buf_puts(a->a_b, v ? "{\"boolValue\":true}}"
                                         : "{\"boolValue\":false}}");
}

static void
attr_strv(attrs *a, const char *key, const char *const *v, size_t n)
{
    if (n == 0)
        return;
    attr_begin(a, key);
    if (a->a_rv == BOX_OK)
        a->a_rv = box_buf_lit(a->a_b, "{\"arrayValue\":{\"values\":[");
    for (size_t i = 0; i < n && a->a_rv == BOX_OK; i++) {
        if (i > 0)
            a->a_rv = box_buf_putc(a->a_b, ',');
        if (a->a_rv == BOX_OK)
            a->a_rv = box_buf_lit(a->a_b, "{\"stringValue\":");
        if (a->a_rv == BOX_OK)
            a->a_rv = box_json_cstr(a->a_b, v[i]);
        if (a->a_rv == BOX_OK)
            a->a_rv = box_buf_putc(a->a_b, '}');
    }
    if (a->a_rv == BOX_OK)
        a->a_rv =
            box_buf_lit(a->a_b, "]}}}"); // values, arrayValue, value, attr
}

static uint64_t
dlog_rand(uint64_t *s)
{
    // xorshift64*: ids only need to be distinct, not secret.
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ULL;
}

/* `{"resource":{…},` for one box and run: the same for every record and
 * span of a log, so pdp_dlog_open writes it once. */
static box_err
dlog_resource(box_buf *b, const char *box_id, const char *run_id)
{
    attrs a = {.a_b = b, .a_first = true};
    a.a_rv = box_buf_lit(b, "{\"resource\":{\"attributes\":[");
    attr_str(&a, "service.name", "strands-box");
    attr_str(&a, "strands.box.name", box_id);
    attr_str(&a, "strands.box.source", "box");
    attr_str(&a, "strands.box.run.id", run_id);
    if (a.a_rv == BOX_OK)
        a.a_rv = box_buf_lit(b, "]},");
    return a.a_rv;
}

/* `"traceId":"…","spanId":"…"`: a record and its span carry the same. */
static box_err
dlog_put_ids(box_buf *b, const dlog_stamp *st, dlog_holes *h)
{
    box_err rv = box_buf_lit(b, "\"traceId\":\"");
    if (rv == BOX_OK)
        rv = dlog_put_hole(b, st, HOLE_TRACE, h);
    if (rv == BOX_OK)
        rv = box_buf_lit(b, "\",\"spanId\":\"");
    if (rv == BOX_OK)
        rv = dlog_put_hole(b, st, HOLE_SPAN, h);
    if (rv == BOX_OK)
        rv = box_buf_putc(b, '"');
    return rv;
}

/* Opens a log record of the resource res (dlog_resource's text) at ns:
 * `{"resourceLogs":[{"resource":…,"scopeLogs":[{"scope":{"name":S},
 * "logRecords":[{…,"attributes":[` up to the first attribute. */
static box_err
dlog_head(box_buf *b, const char *res, const char *scope, const char *event,
          int severity, const char *sev_text, const char *body,
          const dlog_stamp *st, dlog_holes *h)
{
    box_err rv = box_buf_lit(b, "{\"resourceLogs\":[");
    if (rv == BOX_OK)
        rv = box_buf_puts(b, res);
    // By hand, not printf: every decision writes this head.
    if (rv == BOX_OK)
        rv = box_buf_lit(b, "\"scopeLogs\":[{\"scope\":{\"name\":\"");
    if (rv == BOX_OK)
        rv = box_buf_puts(b, scope);
    if (rv == BOX_OK)
        rv = box_buf_lit(b, "\"},\"logRecords\":[{\"timeUnixNano\":\"");
    if (rv == BOX_OK)
        rv = dlog_put_hole(b, st, HOLE_TIME, h);
    if (rv == BOX_OK)
        rv = box_buf_lit(b, "\",\"observedTimeUnixNano\":\"");
    if (rv == BOX_OK)
        rv = dlog_put_hole(b, st, HOLE_TIME, h);
    if (rv == BOX_OK)
        rv = box_buf_lit(b, "\",\"severityNumber\":");
    if (rv == BOX_OK)
        rv = dlog_put_dec(b, (uint64_t)severity);
    if (rv == BOX_OK)
        rv = box_buf_lit(b, ",\"severityText\":\"");
    if (rv == BOX_OK)
        rv = box_buf_puts(b, sev_text);
    if (rv == BOX_OK)
        rv = box_buf_lit(b, "\",\"eventName\":\"");
    if (rv == BOX_OK)
        rv = box_buf_puts(b, event);
    if (rv == BOX_OK)
        rv = box_buf_lit(b, "\",");
    if (rv == BOX_OK)
        rv = dlog_put_ids(b, st, h);
    if (rv == BOX_OK)
        rv = box_buf_lit(b, ",\"body\":{\"stringValue\":");
    if (rv == BOX_OK)
        rv = box_json_cstr(b, body);
    if (rv == BOX_OK)
        rv = box_buf_lit(b, "},\"attributes\":[");
    return rv;
}

static box_err
dlog_tail(box_buf *b)
{
    return box_buf_lit(b, "]}]}]}]}\n");
}

/*
 * The span that goes with a record (box-spec §7): a line of its own, the
 * same trace and span id, INTERNAL, start = end = the record's time, named
 * `KIND WHAT` (`decision fs:read`, `control policy_installed`), status
 * ERROR for a fault and unset otherwise. Its attributes are the record's,
 * found through the shared ids.
 */
static box_err
dlog_span(box_buf *b, const char *res, const char *scope, const char *kind,
          const char *what, bool fault, const dlog_stamp *st, dlog_holes *h)
{
    char name[256];
    snprintf(name, sizeof name, "%s %s", kind, what ? what : "");
    box_err rv = box_buf_lit(b, "{\"resourceSpans\":[");
    if (rv == BOX_OK)
        rv = box_buf_puts(b, res);
    if (rv == BOX_OK)
        rv = box_buf_lit(b, "\"scopeSpans\":[{\"scope\":{\"name\":\"");
    if (rv == BOX_OK)
        rv = box_buf_puts(b, scope);
    if (rv == BOX_OK)
        rv = box_buf_lit(b, "\"},\"spans\":[{");
    if (rv == BOX_OK)
        rv = dlog_put_ids(b, st, h);
    if (rv == BOX_OK)
        rv = box_buf_lit(b, ",\"name\":");
    if (rv == BOX_OK)
        rv = box_json_cstr(b, name);
    // kind 1: SPAN_KIND_INTERNAL; status code 2: STATUS_CODE_ERROR.
    if (rv == BOX_OK)
        rv = box_buf_lit(b, ",\"kind\":1,\"startTimeUnixNano\":\"");
    if (rv == BOX_OK)
        rv = dlog_put_hole(b, st, HOLE_TIME, h);
    if (rv == BOX_OK)
        rv = box_buf_lit(b, "\",\"endTimeUnixNano\":\"");
    if (rv == BOX_OK)
        rv = dlog_put_hole(b, st, HOLE_TIME, h);
    if (rv == BOX_OK)
        rv = box_buf_puts(b, fault ? "\",\"status\":{\"code\":2}}]}]}]}\n"
                                   : "\"}]}]}]}\n");
    return rv;
}

/* Trace and span ids for one record. Caller holds dl_lock. */
static void
dlog_ids_locked(pdp_dlog *l, uint64_t rnd[3])
{
    for (int i = 0; i < 3; i++)
        rnd[i] = dlog_rand(&l->dl_rng);
}

/* A decision's two lines (record and span) stamped st, into b; with h,
 * where the ids and times went. */
static box_err
dlog_decision_build(box_buf *b, const char *res, const pdp_dlog_decision *d,
                    const dlog_stamp *st, dlog_holes *h)
{
    box_err rv =
        dlog_head(b, res, "strands-box.policy", "strands.box.policy.decision",
                  d->dd_permit ? 9 : 13, d->dd_permit ? "INFO" : "WARN",
                  d->dd_message, st, h);
    attrs a = {.a_b = b, .a_first = true, .a_rv = rv};
    attr_str(&a, "strands.box.policy.action", d->dd_action);
    attr_str(&a, "strands.box.policy.resource", d->dd_resource);
    attr_str(&a, "strands.box.policy.verdict",
             d->dd_permit ? "permit" : "deny");
    attr_str(&a, "strands.box.policy.cause", d->dd_cause);
    if (!d->dd_permit)
        attr_str(&a, "strands.box.policy.reason", d->dd_reason);
    attr_str(&a, "strands.box.policy.principal", "Box::Agent::\"self\"");
    attr_str(&a, "strands.box.policy.rule", d->dd_rule);
    attr_str(&a, "strands.box.policy.description", d->dd_description);
    attr_strv(&a, "strands.box.policy.determining.ids", d->dd_determining,
              d->dd_ndetermining);
    if (d->dd_error != NULL && *d->dd_error) {
        attr_str(&a, "error.type", "strands.box.policy.evaluation_error");
        attr_str(&a, "strands.box.policy.error", d->dd_error);
    }
    attr_int(&a, "strands.box.policy.epoch", (int64_t)d->dd_epoch);
    if (d->dd_cached)
        attr_bool(&a, "strands.box.policy.cached", true);
    attr_str(&a, "file.path", d->dd_file_path);
    attr_str(&a, "process.command", d->dd_process_command);
    attr_strv(&a, "process.command_args", d->dd_command_args,
              d->dd_ncommand_args);
    attr_str(&a, "process.working_directory", d->dd_working_directory);
    attr_str(&a, "server.address", d->dd_server_address);
    if (d->dd_server_port != 0)
        attr_int(&a, "server.port", d->dd_server_port);
    attr_str(&a, "http.request.method", d->dd_http_method);
    rv = a.a_rv;
    if (rv == BOX_OK)
        rv = dlog_tail(b);
    if (rv == BOX_OK)
        rv = dlog_span(b, res, "strands-box.policy", "decision", d->dd_action,
                       d->dd_cause != NULL &&
                           strcmp(d->dd_cause, "internal_fault") == 0,
                       st, h);
    return rv;
}

#define DLOG_TMPL_GUESS 2048

struct pdp_dlog_tmpl {
    char *t_text; // the two lines as rendered, holes and all
    size_t t_len;
    dlog_holes t_holes;
};

box_err
pdp_dlog_tmpl_make(const pdp_dlog *l, const pdp_dlog_decision *d,
                   pdp_dlog_tmpl **out)
{
    static const uint64_t zero[3] = {0, 0, 0};
    dlog_stamp st;
    dlog_stamp_make(&st, 0, zero);
    *out = NULL;
    pdp_dlog_tmpl *t = box_calloc(1, sizeof *t);
    if (t == NULL)
        return BOX_ENOMEM;
    box_buf b;
    box_buf_init(&b, PDP_DLOG_LINE_MAX);
    // About the size of a record and its span: grown once, not by halves.
    box_err rv = box_buf_reserve(&b, DLOG_TMPL_GUESS);
    if (rv == BOX_OK)
        rv = dlog_decision_build(&b, l->dl_res, d, &st, &t->t_holes);
    // Every id and time has its hole, or a copy would repeat one.
    if (rv == BOX_OK && t->t_holes.h_n != DLOG_HOLES_MAX)
        rv = BOX_EINVAL;
    if (rv != BOX_OK) {
        box_buf_reset(&b);
        box_free(t);
        return rv;
    }
    t->t_len = b.b_len;
    t->t_text = box_buf_take(&b);
    *out = t;
    return BOX_OK;
}

void
pdp_dlog_tmpl_free(pdp_dlog_tmpl *t)
{
    if (t == NULL)
        return;
    box_free(t->t_text);
    box_free(t);
}

/* t's text stamped st, into b. */
static box_err
dlog_tmpl_fill(box_buf *b, const pdp_dlog_tmpl *t, const dlog_stamp *st)
{
    size_t from = 0;
    box_err rv = BOX_OK;
    for (size_t i = 0; i < t->t_holes.h_n && rv == BOX_OK; i++) {
        size_t off = t->t_holes.h_at[i].ho_off;
        rv = box_buf_append(b, t->t_text + from, off - from);
        if (rv != BOX_OK)
            break;
        rv = dlog_put_stamp(b, st, t->t_holes.h_at[i].ho_kind);
        from = off + t->t_holes.h_at[i].ho_len;
    }
    if (rv == BOX_OK)
        rv = box_buf_append(b, t->t_text + from, t->t_len - from);
    return rv;
}

/* Queues one decision's lines, built in place under the lock (a record
 * costs a few microseconds, less than a buffer of its own and the
 * hand-over would), with fresh ids and the time now: from t when given,
 * else rendered from d. */
static box_err
dlog_add_one(pdp_dlog *l, const pdp_dlog_decision *d, const pdp_dlog_tmpl *t)
{
    uint64_t rnd[3];
    size_t mark;
    box_err rv = dlog_begin(l, &mark);
    if (rv != BOX_OK)
        return rv;
    dlog_ids_locked(l, rnd);
    dlog_stamp st;
    dlog_stamp_make(&st, box_svc_clock_ns(CLOCK_REALTIME), rnd);
    rv = t != NULL ? dlog_tmpl_fill(&l->dl_fill, t, &st)
                   : dlog_decision_build(&l->dl_fill, l->dl_res, d, &st, NULL);
    return dlog_commit(l, mark, rv);
}

box_err
pdp_dlog_decision_add(pdp_dlog *l, const pdp_dlog_decision *d)
{
    return dlog_add_one(l, d, NULL);
}

box_err
pdp_dlog_tmpl_add(pdp_dlog *l, const pdp_dlog_tmpl *t)
{
    return dlog_add_one(l, NULL, t);
}

static char *
dlog_control(const char *box_id, const char *run_id, uint64_t rnd[3],
             const char *operation, const char *outcome, const char *subject,
             const char *reason)
{
    box_buf b, res;
    box_buf_init(&b, PDP_DLOG_LINE_MAX);
    box_buf_init(&res, PDP_DLOG_LINE_MAX);
    char body[128];
    snprintf(body, sizeof body, "control %s", operation);
    dlog_stamp st;
    dlog_stamp_make(&st, box_svc_clock_ns(CLOCK_REALTIME), rnd);
    box_err rv = dlog_resource(&res, box_id, run_id);
    if (rv == BOX_OK)
        rv = dlog_head(&b, res.b_data, "strands-box.control",
                       "strands.box.control", 9, "INFO", body, &st, NULL);
    attrs a = {.a_b = &b, .a_first = true, .a_rv = rv};
    attr_str(&a, "strands.box.control.operation", operation);
    attr_str(&a, "strands.box.control.outcome", outcome);
    attr_str(&a, "strands.box.control.subject", subject);
    attr_str(&a, "strands.box.control.reason", reason);
    rv = a.a_rv;
    if (rv == BOX_OK)
        rv = dlog_tail(&b);
    if (rv == BOX_OK)
        rv = dlog_span(&b, res.b_data, "strands-box.control", "control",
                       operation, false, &st, NULL);
    box_buf_reset(&res);
    if (rv != BOX_OK) {
        box_buf_reset(&b);
        return NULL;
    }
    return box_buf_take(&b);
}

box_err
pdp_dlog_control_add(pdp_dlog *l, const char *operation, const char *outcome,
                     const char *subject, const char *reason)
{
    uint64_t rnd[3];
    pthread_mutex_lock(&l->dl_lock);
    dlog_ids_locked(l, rnd);
    pthread_mutex_unlock(&l->dl_lock);
    char *line = dlog_control(l->dl_box_id, l->dl_run_id, rnd, operation,
                              outcome, subject, reason);
    if (line == NULL)
        return BOX_ENOMEM;
    box_err rv = dlog_push(l, line);
    box_free(line);
    return rv;
}

char *
pdp_dlog_control_line(const pdp_dlog_ident *id, const char *operation,
                      const char *outcome, const char *subject,
                      const char *reason)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t s = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^
                 ((uint64_t)getpid() << 40);
    if (s == 0)
        s = 1;
    uint64_t rnd[3] = {dlog_rand(&s), dlog_rand(&s), dlog_rand(&s)};
    return dlog_control(id && id->di_box_id ? id->di_box_id : "box-unknown",
                        id && id->di_run_id ? id->di_run_id : "", rnd,
                        operation, outcome, subject, reason);
}
