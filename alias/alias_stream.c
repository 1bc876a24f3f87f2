/* SPDX-License-Identifier: Apache-2.0 */
/* The alias's stdin, streamed to the call while its answer is relayed. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "alias.h"
#include "box_alloc.h"
#include "box_frame.h"
#include "box_svc.h"
#include "box_wire.h"

// One Input frame, packed: its data and a few bytes of tags and lengths.
#define AS_FRAME_ROOM (4 + BOX_INPUT_CHUNK_MAX + 32)

bool
alias_stdin_streams(void)
{
    struct stat st, nul;
    if (fstat(0, &st) != 0 || S_ISDIR(st.st_mode) || isatty(0))
        return false;
    if (!S_ISCHR(st.st_mode))
        return true;
    // /dev/null by its device number, whether or not the sandbox shows it
    // at its usual path.
    if (stat("/dev/null", &nul) == 0 && S_ISCHR(nul.st_mode) &&
        nul.st_rdev == st.st_rdev)
        return false;
    return st.st_rdev != makedev(1, 3);
}

/* The frame waiting to go, as bytes: a 4-byte length and the packed
 * frame, of which as_off went already. */
typedef struct alias_out {
    uint8_t *as_buf;
    size_t as_len, as_off;
} alias_out;

/* Packs an Input frame of data[0..n), or InputEof when n is 0 and eof. */
static void
as_pack(alias_out *o, uint32_t program, const uint8_t *data, size_t n, bool eof)
{
    Box__AliasFrame f = BOX__ALIAS_FRAME__INIT;
    Box__Input in = BOX__INPUT__INIT;
    Box__InputEof ie = BOX__INPUT_EOF__INIT;
    f.program = program;
    if (eof) {
        f.body_case = BOX__ALIAS_FRAME__BODY_INPUT_EOF;
        f.input_eof = &ie;
    } else {
        f.body_case = BOX__ALIAS_FRAME__BODY_INPUT;
        f.input = &in;
        in.data.data = (uint8_t *)data;
        in.data.len = n;
    }
    size_t len = box__alias_frame__pack(&f, o->as_buf + 4);
    o->as_buf[0] = (uint8_t)(len >> 24);
    o->as_buf[1] = (uint8_t)(len >> 16);
    o->as_buf[2] = (uint8_t)(len >> 8);
    o->as_buf[3] = (uint8_t)len;
    o->as_len = len + 4;
    o->as_off = 0;
}

/* Sends what the socket takes now. 0, or an errno (EPIPE/ECONNRESET: the
 * broker is done with the call). */
static int
as_send(int fd, alias_out *o)
{
    while (o->as_off < o->as_len) {
        ssize_t w = send(fd, o->as_buf + o->as_off, o->as_len - o->as_off,
                         MSG_DONTWAIT | MSG_NOSIGNAL);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return errno == EAGAIN ? 0 : errno;
        o->as_off += (size_t)w;
    }
    return 0;
}

/*
 * One loop over three things at once: the broker's frames (always read:
 * its Output may be what the command must get rid of before it reads its
 * stdin), the frame waiting to go (sent as the socket takes it), and fd 0
 * (read only when nothing waits, so at most one chunk is held here). The
 * broker reads no more from us while the command's pipe is full, which
 * stops the sending, which stops the reading: stdin is never read ahead.
 * 35 s with neither a frame from the broker nor a byte taken by it is
 * the spec's read timeout.
 */
int
alias_stream_relay(int fd, uint32_t program)
{
    int status = BOX_STATUS_FAULT;
    alias_out o = {.as_buf = box_alloc(AS_FRAME_ROOM)};
    uint8_t *chunk = box_alloc(BOX_INPUT_CHUNK_MAX);
    bool in_open = true; // stdin not at its end, InputEof not packed
    bool sending = true; // the broker still takes what we send
    uint64_t deadline = box_svc_now_ms() + BOX_ALIAS_READ_TIMEOUT_MS;
    if (o.as_buf == NULL || chunk == NULL) {
        status = alias_fail("read standard input: %s", alias_os_err(ENOMEM));
        goto out;
    }
    for (;;) {
        bool waiting = sending && o.as_off < o.as_len;
        struct pollfd p[2] = {
            {.fd = fd, .events = POLLIN | (waiting ? POLLOUT : 0)},
            {.fd = sending && in_open && !waiting ? 0 : -1, .events = POLLIN}};
        uint64_t now = box_svc_now_ms();
        if (now >= deadline) {
            status = alias_fail("read a transport frame timed out");
            goto out;
        }
        int n = poll(p, 2, (int)(deadline - now));
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            status =
                alias_fail("wait for the box broker: %s", alias_os_err(errno));
            goto out;
        }
        if (p[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            now = box_svc_now_ms();
            int left = now < deadline ? (int)(deadline - now) : 1;
            if ((status = alias_relay_one(fd, left)) >= 0)
                goto out; // the call is over: stdin not sent stays unread
            deadline = box_svc_now_ms() + BOX_ALIAS_READ_TIMEOUT_MS;
            continue; // the socket may have room now too: poll again
        }
        if (waiting && (p[0].revents & POLLOUT)) {
            size_t before = o.as_off;
            int err = as_send(fd, &o);
            if (err == EPIPE || err == ECONNRESET) {
                sending = false; // its last frames are still to read
            } else if (err != 0) {
                status = alias_fail("write a transport frame: %s",
                                    alias_os_err(err));
                goto out;
            }
            if (o.as_off > before)
                deadline = box_svc_now_ms() + BOX_ALIAS_READ_TIMEOUT_MS;
        }
        if (p[1].revents != 0) {
            ssize_t r = read(0, chunk, BOX_INPUT_CHUNK_MAX);
            if (r < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (r < 0) {
                status =
                    alias_fail("read standard input: %s", alias_os_err(errno));
                goto out;
            }
            as_pack(&o, program, chunk, (size_t)r, r == 0);
            in_open = r > 0;
        }
    }
out:
    box_free(chunk);
    box_free(o.as_buf);
    return status;
}
