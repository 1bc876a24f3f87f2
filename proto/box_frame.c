/* SPDX-License-Identifier: Apache-2.0 */
/* Length-prefixed protobuf frames over a stream fd, each frame bounded in
 * time, size, nesting and kind. */
#include "box_frame.h"

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_svc.h"

/* Waits for ev on fd until deadline_ms (box_svc_now_ms clock); past it,
 * only what is ready already counts. */
static box_err
frame_wait(int fd, short ev, uint64_t deadline_ms)
{
    struct pollfd p = {.fd = fd, .events = ev};
    for (;;) {
        uint64_t now = box_svc_now_ms();
        int n = poll(&p, 1, now < deadline_ms ? (int)(deadline_ms - now) : 0);
        if (n > 0)
            return BOX_OK;
        if (n == 0)
            return BOX_ETIMEDOUT;
        if (errno != EINTR)
            return BOX_EIO;
    }
}

/* The deadline of a frame begun now, timeout_ms long (at least 1 ms). */
static uint64_t
frame_deadline(int timeout_ms)
{
    return box_svc_now_ms() + (uint64_t)(timeout_ms > 0 ? timeout_ms : 1);
}

/* Sends first and waits only when the socket is full, and reads first and
 * waits only when nothing is there: a frame that goes at once costs one
 * system call, not a poll and a send (a call's frames cross three hops).
 * A descriptor that is not a socket (pipes and files in tests) is waited
 * on first, as a plain write or read on it may block. */
static box_err
frame_write_all(int fd, const uint8_t *p, size_t n, uint64_t deadline_ms)
{
    bool sock = true;
    while (n > 0) {
        ssize_t w;
        if (sock) {
            w = send(fd, p, n, MSG_NOSIGNAL | MSG_DONTWAIT);
            if (w < 0 && errno == ENOTSOCK) {
                sock = false;
                continue;
            }
        } else {
            box_err rv = frame_wait(fd, POLLOUT, deadline_ms);
            if (rv != BOX_OK)
                return rv;
            w = write(fd, p, n);
        }
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {
                box_err rv = frame_wait(fd, POLLOUT, deadline_ms);
                if (rv != BOX_OK)
                    return rv;
                continue;
            }
            return errno == EPIPE || errno == ECONNRESET ? BOX_ECLOSED
                                                         : BOX_EIO;
        }
        p += w;
        n -= (size_t)w;
    }
    return BOX_OK;
}

/* Reads exactly n bytes by deadline_ms; *got tells how many arrived
 * before an EOF. */
static box_err
frame_read_all(int fd, uint8_t *p, size_t n, uint64_t deadline_ms, size_t *got)
{
    bool sock = true;
    *got = 0;
    while (*got < n) {
        ssize_t r;
        if (sock) {
            r = recv(fd, p + *got, n - *got, MSG_DONTWAIT);
            if (r < 0 && errno == ENOTSOCK) {
                sock = false;
                continue;
            }
        } else {
            box_err rv = frame_wait(fd, POLLIN, deadline_ms);
            if (rv != BOX_OK)
                return rv;
            r = read(fd, p + *got, n - *got);
        }
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN) {
                box_err rv = frame_wait(fd, POLLIN, deadline_ms);
                if (rv != BOX_OK)
                    return rv;
                continue;
            }
            return errno == ECONNRESET ? BOX_ECLOSED : BOX_EIO;
        }
        if (r == 0)
            return BOX_ECLOSED;
        *got += (size_t)r;
    }
    return BOX_OK;
}

box_err
box_frame_write_bytes(int fd, const void *p, size_t n, int timeout_ms)
{
    uint8_t hdr[4] = {(uint8_t)(n >> 24), (uint8_t)(n >> 16), (uint8_t)(n >> 8),
                      (uint8_t)n};
    uint64_t deadline = frame_deadline(timeout_ms);
    box_err rv = frame_write_all(fd, hdr, 4, deadline);
    if (rv != BOX_OK)
        return rv;
    return frame_write_all(fd, p, n, deadline);
}

box_err
box_frame_write(int fd, const Box__AliasFrame *f, size_t max, int timeout_ms)
{
    return box_frame_write_many(fd, &f, 1, max, timeout_ms);
}

#define FRAME_MANY_MAX 8

box_err
box_frame_write_many(int fd, const Box__AliasFrame *const *f, size_t n,
                     size_t max, int timeout_ms)
{
    size_t len[FRAME_MANY_MAX], total = 0;
    if (n > FRAME_MANY_MAX)
        return BOX_EINVAL;
    for (size_t i = 0; i < n; i++) {
        len[i] = box__alias_frame__get_packed_size(f[i]);
        if (len[i] > max)
            return BOX_ETOOBIG;
        total += 4 + len[i];
    }
    uint8_t stackbuf[1024];
    uint8_t *buf = total <= sizeof stackbuf ? stackbuf : box_alloc(total);
    if (buf == NULL)
        return BOX_ENOMEM;
    // One write for headers and bodies keeps small frames in one segment.
    uint8_t *p = buf;
    for (size_t i = 0; i < n; i++) {
        p[0] = (uint8_t)(len[i] >> 24);
        p[1] = (uint8_t)(len[i] >> 16);
        p[2] = (uint8_t)(len[i] >> 8);
        p[3] = (uint8_t)len[i];
        box__alias_frame__pack(f[i], p + 4);
        p += 4 + len[i];
    }
    box_err rv = frame_write_all(fd, buf, total, frame_deadline(timeout_ms));
    if (buf != stackbuf)
        box_free(buf);
    return rv;
}

/* The checks of every frame read: nesting bounded, a refused kind never
 * decoded (box_wire_scan_unpack). */
static box_err
frame_decode(const uint8_t *buf, size_t n, uint64_t accept,
             Box__AliasFrame **out, box_frame_fault *ff)
{
    *out = (Box__AliasFrame *)box_wire_scan_unpack(
        &box__alias_frame__descriptor, accept, buf, n, &ff->ff_scan);
    return *out != NULL ? BOX_OK : BOX_EPROTO;
}

box_err
box_frame_read(int fd, size_t max, int timeout_ms, uint64_t accept,
               Box__AliasFrame **out, box_frame_fault *fault)
{
    uint64_t deadline = frame_deadline(timeout_ms);
    box_frame_fault ff = {0};
    uint8_t hdr[4];
    uint8_t *buf = NULL;
    size_t got;
    *out = NULL;
    box_err rv = frame_read_all(fd, hdr, 4, deadline, &got);
    if (rv == BOX_ECLOSED && got > 0) {
        rv = BOX_EPROTO;
        ff.ff_cut = true;
    }
    if (rv != BOX_OK)
        goto out;
    uint32_t n = (uint32_t)hdr[0] << 24 | (uint32_t)hdr[1] << 16 |
                 (uint32_t)hdr[2] << 8 | hdr[3];
    ff.ff_size = n;
    if (n > max) {
        rv = BOX_ETOOBIG;
        goto out;
    }
    if ((buf = box_alloc(n)) == NULL) {
        rv = BOX_ENOMEM;
        goto out;
    }
    rv = frame_read_all(fd, buf, n, deadline, &got);
    if (rv == BOX_ECLOSED) {
        rv = BOX_EPROTO; // EOF inside a frame is a truncated frame
        ff.ff_cut = true;
    }
    if (rv != BOX_OK)
        goto out;
    rv = frame_decode(buf, n, accept, out, &ff);
out:
    box_free(buf);
    if (fault != NULL)
        *fault = ff;
    return rv;
}

void
box_frame_rd_init(box_frame_rd *r)
{
    memset(r, 0, sizeof *r);
}

void
box_frame_rd_reset(box_frame_rd *r)
{
    box_free(r->fr_buf);
    box_frame_rd_init(r);
}

/* One read of what is ready: bytes read, 0 at EOF, -1 with errno (EAGAIN:
 * nothing ready). */
static ssize_t
frame_read_ready(int fd, uint8_t *p, size_t n)
{
    for (;;) {
        ssize_t r = recv(fd, p, n, MSG_DONTWAIT);
        if (r < 0 && errno == ENOTSOCK)
            r = read(fd, p, n); // files and pipes in tests and the fuzzer
        if (r < 0 && errno == EINTR)
            continue;
        return r;
    }
}

box_err
box_frame_pull(int fd, box_frame_rd *r, size_t max, uint64_t accept,
               Box__AliasFrame **out, box_frame_fault *fault)
{
    box_frame_fault ff = {0};
    box_err rv = BOX_OK;
    *out = NULL;
    for (;;) {
        bool in_hdr = r->fr_got < 4;
        uint8_t *p =
            in_hdr ? r->fr_hdr + r->fr_got : r->fr_buf + (r->fr_got - 4);
        size_t want = in_hdr ? 4 - r->fr_got : r->fr_len - (r->fr_got - 4);
        if (want == 0)
            break; // an empty body is whole with its header
        ssize_t got = frame_read_ready(fd, p, want);
        if (got < 0 && errno == EAGAIN)
            goto out; // not whole yet
        if (got < 0) {
            rv = errno == ECONNRESET ? BOX_ECLOSED : BOX_EIO;
            goto fail;
        }
        if (got == 0) {
            rv = r->fr_got == 0 ? BOX_ECLOSED : BOX_EPROTO;
            ff.ff_cut = r->fr_got > 0;
            ff.ff_size = r->fr_len;
            goto fail;
        }
        r->fr_got += (size_t)got;
        if (in_hdr && r->fr_got == 4) {
            const uint8_t *h = r->fr_hdr;
            r->fr_len = (uint32_t)h[0] << 24 | (uint32_t)h[1] << 16 |
                        (uint32_t)h[2] << 8 | h[3];
            ff.ff_size = r->fr_len;
            if (r->fr_len > max) {
                rv = BOX_ETOOBIG;
                goto fail;
            }
            // One byte at least, so an empty body is not a NULL buffer.
            if ((r->fr_buf = box_alloc(r->fr_len + 1u)) == NULL) {
                rv = BOX_ENOMEM;
                goto fail;
            }
        }
        if (!in_hdr && r->fr_got - 4 == r->fr_len)
            break;
    }
    rv = frame_decode(r->fr_buf, r->fr_len, accept, out, &ff);
    ff.ff_size = r->fr_len;
fail:
    box_frame_rd_reset(r);
out:
    if (fault != NULL)
        *fault = ff;
    return rv;
}

const char *
box_frame_name(Box__AliasFrame__BodyCase c)
{
    switch (c) {
    case BOX__ALIAS_FRAME__BODY_OPEN:
        return "open";
    case BOX__ALIAS_FRAME__BODY_CALL:
        return "call";
    case BOX__ALIAS_FRAME__BODY_INPUT:
        return "input";
    case BOX__ALIAS_FRAME__BODY_INPUT_EOF:
        return "input_eof";
    case BOX__ALIAS_FRAME__BODY_SIGNAL:
        return "signal";
    case BOX__ALIAS_FRAME__BODY_CLOSE:
        return "close";
    case BOX__ALIAS_FRAME__BODY_OUTPUT:
        return "output";
    case BOX__ALIAS_FRAME__BODY_EXIT:
        return "exit";
    case BOX__ALIAS_FRAME__BODY_DENIED:
        return "denied";
    case BOX__ALIAS_FRAME__BODY_DECIDE:
        return "decide";
    case BOX__ALIAS_FRAME__BODY_ANSWER:
        return "answer";
    case BOX__ALIAS_FRAME__BODY_LAUNCH:
        return "launch";
    case BOX__ALIAS_FRAME__BODY_LAUNCHED:
        return "launched";
    case BOX__ALIAS_FRAME__BODY_SERVED:
        return "served";
    case BOX__ALIAS_FRAME__BODY_OUTCOMES:
        return "outcomes";
    case BOX__ALIAS_FRAME__BODY_DIAL:
        return "dial";
    case BOX__ALIAS_FRAME__BODY_DIALED:
        return "dialed";
    case BOX__ALIAS_FRAME__BODY_INPUT_WANTED:
        return "input_wanted";
    default:
        return "empty";
    }
}

bool
box_frame_is_client(Box__AliasFrame__BodyCase c)
{
    return (unsigned)c < 64 &&
           (BOX_FRAMES_FROM_ALIAS & BOX_WIRE_SCAN_KIND(c)) != 0;
}
