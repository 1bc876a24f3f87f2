/* SPDX-License-Identifier: Apache-2.0 */
/* The durable history file: framing, replay with a cut tail, group
 * commit, compaction. Layout in pdp_hstore.h. */
#include "pdp_hstore.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"

#define HS_MAGIC "BOXHIS01"
#define HS_MAGIC_LEN 8
#define HS_FRAME 8                    // length + CRC
#define HS_RECORD_MAX ((size_t)1 << 26) // one record's payload

struct pdp_hstore {
    int hs_fd;
    char *hs_path;
    uint64_t hs_size;               // bytes written (under the caller's lock)
    _Atomic uint64_t hs_written;    // the same, for sync to read
    pthread_mutex_t hs_sync_lock;   // one fdatasync at a time
    uint64_t hs_synced;             // durable up to here (under hs_sync_lock)
    char hs_error[256];
    bool hs_broken; // a record could not be cut back: no more writes
};

/* The directory holding path, synced (a rename in it made durable). */
static int
sync_dir(const char *path)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    if (slash == NULL)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int r = fsync(fd);
    int e = errno;
    close(fd);
    errno = e;
    return r;
}

/* CRC-32 (IEEE 802.3, reflected), bit by bit: records are short. */
static uint32_t
hs_crc32(const unsigned char *p, size_t n)
{
    uint32_t c = 0xffffffffu;
    for (size_t i = 0; i < n; i++) {
        c ^= p[i];
        for (int k = 0; k < 8; k++)
            c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static void
be32(unsigned char *b, uint32_t v)
{
    b[0] = (unsigned char)(v >> 24);
    b[1] = (unsigned char)(v >> 16);
    b[2] = (unsigned char)(v >> 8);
    b[3] = (unsigned char)v;
}

static uint32_t
rd32(const unsigned char *b)
{
    return (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 |
           b[3];
}

static box_err
put_u64(box_buf *b, uint64_t v)
{
    unsigned char x[8];
    for (int i = 0; i < 8; i++)
        x[i] = (unsigned char)(v >> (56 - 8 * i));
    return box_buf_append(b, x, 8);
}

static box_err
put_u32(box_buf *b, uint32_t v)
{
    unsigned char x[4];
    be32(x, v);
    return box_buf_append(b, x, 4);
}

static uint64_t
rd64(const unsigned char *b)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v = v << 8 | b[i];
    return v;
}

static void
hs_fail(pdp_hstore *s, const char *what, int err)
{
    snprintf(s->hs_error, sizeof s->hs_error, "%s %s: %s", what, s->hs_path,
             strerror(err));
}

/* ---- records ---- */

/* A framed record of the payload in b (which starts with 8 spare bytes
 * for the frame). */
static void
frame(box_buf *b)
{
    unsigned char *p = (unsigned char *)b->b_data;
    size_t n = b->b_len - HS_FRAME;
    be32(p, (uint32_t)n);
    be32(p + 4, hs_crc32(p + HS_FRAME, n));
}

static box_err
event_payload(box_buf *b, uint64_t seq, const pdp_event *e)
{
    unsigned char has = (e->ev_principal ? 1 : 0) | (e->ev_resource ? 2 : 0) |
                        (e->ev_context ? 4 : 0) |
                        (e->ev_state == PDP_EV_PENDING ? 8 : 0) |
                        (e->ev_state == PDP_EV_VOID ? 16 : 0);
    size_t klen = strlen(e->ev_kind);
    box_err rv = box_buf_append(b, "\0\0\0\0\0\0\0\0", HS_FRAME);
    if (rv == BOX_OK)
        rv = box_buf_putc(b, 'E');
    if (rv == BOX_OK)
        rv = put_u64(b, seq);
    if (rv == BOX_OK)
        rv = put_u64(b, (uint64_t)e->ev_ts);
    if (rv == BOX_OK)
        rv = box_buf_putc(b, (char)has);
    if (rv == BOX_OK)
        rv = put_u32(b, (uint32_t)klen);
    if (rv == BOX_OK)
        rv = box_buf_append(b, e->ev_kind, klen);
    if (rv == BOX_OK)
        rv = pdp_value_encode(e->ev_action, b);
    if (rv == BOX_OK && e->ev_principal)
        rv = pdp_value_encode(e->ev_principal, b);
    if (rv == BOX_OK && e->ev_resource)
        rv = pdp_value_encode(e->ev_resource, b);
    if (rv == BOX_OK)
        rv = pdp_value_encode(e->ev_fields, b);
    if (rv == BOX_OK && e->ev_context)
        rv = pdp_value_encode(e->ev_context, b);
    if (rv == BOX_OK)
        frame(b);
    return rv;
}

static box_err
rules_payload(box_buf *b, const pdp_hstore_rule *r, size_t n)
{
    box_err rv = box_buf_append(b, "\0\0\0\0\0\0\0\0", HS_FRAME);
    if (rv == BOX_OK)
        rv = box_buf_putc(b, 'R');
    if (rv == BOX_OK)
        rv = put_u32(b, (uint32_t)n);
    for (size_t i = 0; i < n && rv == BOX_OK; i++) {
        size_t len = strlen(r[i].hr_text);
        rv = put_u64(b, r[i].hr_since);
        if (rv == BOX_OK)
            rv = put_u32(b, (uint32_t)len);
        if (rv == BOX_OK)
            rv = box_buf_append(b, r[i].hr_text, len);
    }
    if (rv == BOX_OK)
        frame(b);
    return rv;
}

/* Appends b's bytes with one write; on a short or failed write the file
 * is cut back, so a later record never follows a torn one. */
static box_err
hs_write(pdp_hstore *s, const box_buf *b, uint64_t *ticket)
{
    if (s->hs_broken)
        return BOX_EIO; // hs_error says why
    if (b->b_len - HS_FRAME > HS_RECORD_MAX) {
        snprintf(s->hs_error, sizeof s->hs_error,
                 "history record of %zu bytes over the limit",
                 b->b_len - HS_FRAME);
        return BOX_ETOOBIG;
    }
    size_t off = 0;
    while (off < b->b_len) {
        ssize_t w = pwrite(s->hs_fd, b->b_data + off, b->b_len - off,
                           (off_t)(s->hs_size + off));
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            int e = w < 0 ? errno : ENOSPC;
            hs_fail(s, "cannot write the history", e);
            if (ftruncate(s->hs_fd, (off_t)s->hs_size) != 0)
                hs_fail(s, "cannot cut back the history", errno);
            return BOX_EIO;
        }
        off += (size_t)w;
    }
    s->hs_size += b->b_len;
    atomic_store(&s->hs_written, s->hs_size);
    *ticket = s->hs_size;
    return BOX_OK;
}

box_err
pdp_hstore_put_event(pdp_hstore *s, uint64_t seq, const pdp_event *e,
                     uint64_t *ticket)
{
    box_buf b;
    box_buf_init(&b, HS_RECORD_MAX + HS_FRAME + 1);
    box_err rv = event_payload(&b, seq, e);
    if (rv == BOX_OK)
        rv = hs_write(s, &b, ticket);
    else
        snprintf(s->hs_error, sizeof s->hs_error, "cannot encode an event: %s",
                 box_strerror(rv));
    box_buf_reset(&b);
    return rv;
}

box_err
pdp_hstore_cut(pdp_hstore *s, uint64_t size)
{
    if (size > s->hs_size)
        return BOX_EINVAL;
    if (ftruncate(s->hs_fd, (off_t)size) != 0) {
        hs_fail(s, "cannot cut back the history", errno);
        s->hs_broken = true;
        return BOX_EIO;
    }
    s->hs_size = size;
    atomic_store(&s->hs_written, size);
    pthread_mutex_lock(&s->hs_sync_lock);
    if (s->hs_synced > size)
        s->hs_synced = size;
    pthread_mutex_unlock(&s->hs_sync_lock);
    return BOX_OK;
}

box_err
pdp_hstore_put_void(pdp_hstore *s, uint64_t seq, uint64_t *ticket)
{
    box_buf b;
    box_buf_init(&b, HS_FRAME + 16);
    box_err rv = box_buf_append(&b, "\0\0\0\0\0\0\0\0", HS_FRAME);
    if (rv == BOX_OK)
        rv = box_buf_putc(&b, 'V');
    if (rv == BOX_OK)
        rv = put_u64(&b, seq);
    if (rv == BOX_OK) {
        frame(&b);
        rv = hs_write(s, &b, ticket);
    }
    box_buf_reset(&b);
    return rv;
}

box_err
pdp_hstore_put_rules(pdp_hstore *s, const pdp_hstore_rule *rules, size_t n,
                     uint64_t *ticket)
{
    box_buf b;
    box_buf_init(&b, HS_RECORD_MAX + HS_FRAME + 1);
    box_err rv = rules_payload(&b, rules, n);
    if (rv == BOX_OK)
        rv = hs_write(s, &b, ticket);
    box_buf_reset(&b);
    return rv;
}

box_err
pdp_hstore_sync(pdp_hstore *s, uint64_t ticket)
{
    box_err rv = BOX_OK;
    pthread_mutex_lock(&s->hs_sync_lock);
    if (s->hs_synced < ticket) {
        // Everything written so far goes down with this one call: the
        // callers that queued behind the lock find their ticket covered.
        uint64_t upto = atomic_load(&s->hs_written);
        if (fdatasync(s->hs_fd) == 0)
            s->hs_synced = upto;
        else {
            hs_fail(s, "cannot sync the history", errno);
            rv = BOX_EIO;
        }
    }
    pthread_mutex_unlock(&s->hs_sync_lock);
    return rv;
}

/* ---- replay ---- */

/* One event record's payload (after the 'E') into h. */
static box_err
replay_event(pdp_hist *h, const unsigned char *p, size_t n, bool *first)
{
    if (n < 8 + 8 + 1 + 4)
        return BOX_EINVAL;
    uint64_t seq = rd64(p);
    pdp_event e = {.ev_ts = (int64_t)rd64(p + 8)};
    unsigned char has = p[16];
    uint32_t klen = rd32(p + 17);
    p += 21;
    n -= 21;
    if (klen == 0 || klen > n || klen > 255 || (has & ~31u) != 0 ||
        (has & 24u) == 24u)
        return BOX_EINVAL;
    e.ev_state = (has & 8) ? PDP_EV_PENDING
                 : (has & 16) ? PDP_EV_VOID
                              : PDP_EV_REAL;
    char kind[256];
    memcpy(kind, p, klen);
    kind[klen] = '\0';
    if (memchr(kind, '\0', klen) != NULL)
        return BOX_EINVAL;
    p += klen;
    n -= klen;
    e.ev_kind = kind;
    // The first event kept sets the numbering; after it, none is missing.
    if (*first) {
        if (pdp_hist_len(h) != 0)
            return BOX_EINVAL;
        pdp_hist_set_base(h, seq);
        *first = false;
    } else if (seq != pdp_hist_base(h) + pdp_hist_len(h)) {
        return BOX_EINVAL;
    }
    box_arena *a = pdp_hist_arena(h);
    if (a == NULL)
        return BOX_ENOMEM;
    const pdp_value **slots[] = {&e.ev_action,
                                 (has & 1) ? &e.ev_principal : NULL,
                                 (has & 2) ? &e.ev_resource : NULL,
                                 &e.ev_fields,
                                 (has & 4) ? &e.ev_context : NULL};
    for (size_t i = 0; i < sizeof slots / sizeof slots[0]; i++) {
        if (slots[i] == NULL)
            continue;
        size_t used = 0;
        box_err rv = pdp_value_decode(a, p, n, &used, slots[i]);
        if (rv != BOX_OK)
            return rv;
        p += used;
        n -= used;
    }
    if (n != 0)
        return BOX_EINVAL;
    return pdp_hist_append(h, &e);
}

/* A void record: the pending outcome seq was resolved. */
static box_err
replay_void(pdp_hist *h, const unsigned char *p, size_t n)
{
    if (n != 8)
        return BOX_EINVAL;
    uint64_t seq = rd64(p);
    if (seq < pdp_hist_base(h))
        return BOX_OK; // aged out before the file was compacted
    if (seq - pdp_hist_base(h) >= pdp_hist_len(h))
        return BOX_EINVAL;
    size_t i = (size_t)(seq - pdp_hist_base(h));
    if (pdp_hist_at(h, i)->ev_state != PDP_EV_PENDING)
        return BOX_EINVAL;
    pdp_hist_set_state(h, i, PDP_EV_VOID);
    return BOX_OK;
}

static box_err
replay_rules(const unsigned char *p, size_t n, pdp_hstore_rules *out)
{
    if (n < 4)
        return BOX_EINVAL;
    uint32_t count = rd32(p);
    p += 4;
    n -= 4;
    if (count > n / 12)
        return BOX_EINVAL;
    pdp_hstore_rules r = {.hs_rules = box_calloc(count + 1, sizeof
                                                 *r.hs_rules)};
    if (r.hs_rules == NULL)
        return BOX_ENOMEM;
    for (uint32_t i = 0; i < count; i++) {
        if (n < 12) {
            pdp_hstore_rules_free(&r);
            return BOX_EINVAL;
        }
        uint64_t since = rd64(p);
        uint32_t len = rd32(p + 8);
        p += 12;
        n -= 12;
        if (len > n) {
            pdp_hstore_rules_free(&r);
            return BOX_EINVAL;
        }
        r.hs_rules[i].hr_since = since;
        r.hs_rules[i].hr_text = box_strndup((const char *)p, len);
        r.hs_n = i + 1;
        if (r.hs_rules[i].hr_text == NULL) {
            pdp_hstore_rules_free(&r);
            return BOX_ENOMEM;
        }
        p += len;
        n -= len;
    }
    if (n != 0) {
        pdp_hstore_rules_free(&r);
        return BOX_EINVAL;
    }
    pdp_hstore_rules_free(out);
    *out = r;
    return BOX_OK;
}

/* Reads the whole file into *buf. */
static box_err
slurp(int fd, unsigned char **buf, size_t *len, int *err)
{
    struct stat st;
    if (fstat(fd, &st) != 0) {
        *err = errno;
        return BOX_EIO;
    }
    unsigned char *b = box_alloc((size_t)st.st_size + 1);
    if (b == NULL)
        return BOX_ENOMEM;
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t r = pread(fd, b + got, (size_t)st.st_size - got, (off_t)got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            *err = errno;
            box_free(b);
            return BOX_EIO;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    *buf = b;
    *len = got;
    return BOX_OK;
}

/* Replays the records of a whole file buf[0..len) (its magic checked)
 * into h and *rules, up to the first torn or corrupt one: *good is where
 * that is (len when none), *events how many events came before it.
 * BOX_ENOMEM only. */
static box_err
replay_all(const unsigned char *buf, size_t len, pdp_hist *h,
           pdp_hstore_rules *rules, size_t *good, size_t *events)
{
    bool first = true;
    size_t at = HS_MAGIC_LEN;
    *events = 0;
    while (at < len) {
        if (len - at < HS_FRAME)
            break;
        uint32_t n = rd32(buf + at);
        if (n == 0 || n > HS_RECORD_MAX || n > len - at - HS_FRAME ||
            hs_crc32(buf + at + HS_FRAME, n) != rd32(buf + at + 4))
            break;
        const unsigned char *p = buf + at + HS_FRAME;
        box_err r = p[0] == 'E'   ? replay_event(h, p + 1, n - 1, &first)
                    : p[0] == 'R' ? replay_rules(p + 1, n - 1, rules)
                    : p[0] == 'V' ? replay_void(h, p + 1, n - 1)
                                  : BOX_EINVAL;
        if (r == BOX_ENOMEM)
            return r;
        if (r != BOX_OK)
            break;
        *events += p[0] == 'E';
        at += HS_FRAME + n;
    }
    *good = at;
    return BOX_OK;
}

void
pdp_hstore_rules_free(pdp_hstore_rules *r)
{
    for (size_t i = 0; i < r->hs_n; i++)
        box_free(r->hs_rules[i].hr_text);
    box_free(r->hs_rules);
    r->hs_rules = NULL;
    r->hs_n = 0;
}

box_err
pdp_hstore_open(const char *path, pdp_hist *h, pdp_hstore_rules *rules,
                pdp_hstore **out, char **warn, char **err)
{
    *out = NULL;
    *warn = *err = NULL;
    rules->hs_rules = NULL;
    rules->hs_n = 0;
    pdp_hstore *s = box_calloc(1, sizeof *s);
    unsigned char *buf = NULL;
    size_t len = 0;
    int e = 0;
    box_err rv = BOX_ENOMEM;
    if (s == NULL)
        goto fail;
    s->hs_fd = -1;
    if ((s->hs_path = box_strdup(path)) == NULL)
        goto fail;
    pthread_mutex_init(&s->hs_sync_lock, NULL);
    s->hs_fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
    if (s->hs_fd < 0) {
        *err = box_asprintf("cannot open the history %s: %s", path,
                            strerror(errno));
        rv = BOX_EIO;
        goto fail;
    }
    if ((rv = slurp(s->hs_fd, &buf, &len, &e)) != BOX_OK) {
        *err = box_asprintf("cannot read the history %s: %s", path,
                            strerror(e));
        goto fail;
    }
    size_t good = HS_MAGIC_LEN;
    if (len == 0) {
        if (pwrite(s->hs_fd, HS_MAGIC, HS_MAGIC_LEN, 0) != HS_MAGIC_LEN ||
            fdatasync(s->hs_fd) != 0) {
            *err = box_asprintf("cannot start the history %s: %s", path,
                                strerror(errno));
            rv = BOX_EIO;
            goto fail;
        }
    } else if (len < HS_MAGIC_LEN || memcmp(buf, HS_MAGIC, HS_MAGIC_LEN) != 0) {
        *err = box_asprintf("%s is not a box history file (no %s header); "
                            "move it away to start an empty history",
                            path, HS_MAGIC);
        rv = BOX_ECONFIG;
        goto fail;
    } else {
        size_t events = 0;
        if ((rv = replay_all(buf, len, h, rules, &good, &events)) != BOX_OK)
            goto fail;
        if (good < len) {
            *warn = box_asprintf("history %s: a torn or corrupt tail of %zu "
                                 "bytes after %zu events was cut off",
                                 path, len - good, events);
            if (ftruncate(s->hs_fd, (off_t)good) != 0 ||
                fdatasync(s->hs_fd) != 0) {
                *err = box_asprintf("cannot cut the torn tail of the history "
                                    "%s: %s", path, strerror(errno));
                rv = BOX_EIO;
                goto fail;
            }
        }
    }
    s->hs_size = good;
    atomic_store(&s->hs_written, good);
    s->hs_synced = good;
    box_free(buf);
    *out = s;
    return BOX_OK;
fail:
    box_free(buf);
    pdp_hstore_rules_free(rules);
    pdp_hstore_close(s);
    return rv;
}

box_err
pdp_hstore_read(const char *path, pdp_hist *h, pdp_hstore_rules *rules,
                char **warn, char **err)
{
    *warn = *err = NULL;
    rules->hs_rules = NULL;
    rules->hs_n = 0;
    unsigned char *buf = NULL;
    size_t len = 0, good = 0, events = 0;
    int e = 0;
    box_err rv = BOX_EIO;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        *err = box_asprintf("cannot open the history %s: %s", path,
                            strerror(errno));
        goto out;
    }
    if ((rv = slurp(fd, &buf, &len, &e)) != BOX_OK) {
        *err = box_asprintf("cannot read the history %s: %s", path,
                            strerror(e));
        goto out;
    }
    if (len < HS_MAGIC_LEN || memcmp(buf, HS_MAGIC, HS_MAGIC_LEN) != 0) {
        *err = box_asprintf("%s is not a box history file (no %s header)",
                            path, HS_MAGIC);
        rv = BOX_ECONFIG;
        goto out;
    }
    if ((rv = replay_all(buf, len, h, rules, &good, &events)) != BOX_OK)
        goto out;
    if (good < len)
        *warn = box_asprintf("history %s: a torn or corrupt tail of %zu "
                             "bytes after %zu events was not read",
                             path, len - good, events);
out:
    if (fd >= 0)
        close(fd);
    if (rv != BOX_OK)
        pdp_hstore_rules_free(rules);
    box_free(buf);
    return rv;
}

void
pdp_hstore_close(pdp_hstore *s)
{
    if (s == NULL)
        return;
    if (s->hs_fd >= 0)
        close(s->hs_fd);
    pthread_mutex_destroy(&s->hs_sync_lock);
    box_free(s->hs_path);
    box_free(s);
}

/* ---- compaction ---- */

box_err
pdp_hstore_compact(pdp_hstore *s, const pdp_hist *h,
                   const pdp_hstore_rule *rules, size_t n)
{
    char *tmp = box_asprintf("%s.new", s->hs_path);
    if (tmp == NULL)
        return BOX_ENOMEM;
    box_buf b;
    box_buf_init(&b, HS_RECORD_MAX + HS_FRAME + 1);
    box_err rv = BOX_EIO;
    int fd = open(tmp, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) {
        hs_fail(s, "cannot start the compacted history", errno);
        goto out;
    }
    // Written in one buffer per record; the file is small by then.
    uint64_t size = 0;
    if (pwrite(fd, HS_MAGIC, HS_MAGIC_LEN, 0) != HS_MAGIC_LEN) {
        hs_fail(s, "cannot write the compacted history", errno);
        goto out;
    }
    size = HS_MAGIC_LEN;
    rv = n > 0 ? rules_payload(&b, rules, n) : BOX_OK;
    for (size_t i = 0; rv == BOX_OK && i <= pdp_hist_len(h); i++) {
        if (b.b_len > 0) {
            if (pwrite(fd, b.b_data, b.b_len, (off_t)size) !=
                (ssize_t)b.b_len) {
                hs_fail(s, "cannot write the compacted history", errno);
                rv = BOX_EIO;
                break;
            }
            size += b.b_len;
        }
        b.b_len = 0;
        if (i < pdp_hist_len(h))
            rv = event_payload(&b, pdp_hist_base(h) + i, pdp_hist_at(h, i));
    }
    if (rv == BOX_OK && fdatasync(fd) != 0) {
        hs_fail(s, "cannot sync the compacted history", errno);
        rv = BOX_EIO;
    }
    if (rv == BOX_OK && rename(tmp, s->hs_path) != 0) {
        hs_fail(s, "cannot put the compacted history in place", errno);
        rv = BOX_EIO;
    }
    // The rename itself made durable: else a power loss could bring back
    // the old file, without what is written to the new one from now on.
    // The new file is the history either way (its name says so now), so
    // a failure here is said, not undone.
    if (rv == BOX_OK && sync_dir(s->hs_path) != 0)
        hs_fail(s, "cannot sync the history's directory after compaction",
                errno);
    if (rv == BOX_OK) {
        // The new file is the history from now on; no sync may be in
        // flight on the old descriptor while it closes.
        pthread_mutex_lock(&s->hs_sync_lock);
        close(s->hs_fd);
        s->hs_fd = fd;
        fd = -1;
        s->hs_size = size;
        atomic_store(&s->hs_written, size);
        s->hs_synced = size;
        pthread_mutex_unlock(&s->hs_sync_lock);
    }
out:
    if (fd >= 0) {
        close(fd);
        (void)unlink(tmp);
    }
    box_free(tmp);
    box_buf_reset(&b);
    return rv;
}

uint64_t
pdp_hstore_size(const pdp_hstore *s)
{
    return s->hs_size;
}

const char *
pdp_hstore_error(const pdp_hstore *s)
{
    return s->hs_error;
}
