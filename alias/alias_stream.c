/* SPDX-License-Identifier: Apache-2.0 */
/* The alias's stdin, streamed to the call while its answer is relayed. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
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

/* One answer to an ask with a delimiter: bytes up to and including the
 * first delim, no more than max, and no byte past it taken from fd 0, as
 * bash's `read` takes a line. A file that can seek is read in a block and
 * what went past is given back; anything else is read a byte at a time,
 * and only while bytes are there (a writer that stops mid-line gets its
 * line sent in parts, each asked for again). Bytes read, 0 at the end, or
 * -1 with errno. */
static ssize_t
as_read_through(uint8_t *buf, size_t max, int delim, bool seekable)
{
    if (seekable) {
        ssize_t r = read(0, buf, max);
        if (r <= 0)
            return r;
        const uint8_t *d = memchr(buf, delim, (size_t)r);
        if (d != NULL && d + 1 < buf + r &&
            lseek(0, (off_t)(d + 1 - buf) - r, SEEK_CUR) >= 0)
            r = d + 1 - buf;
        return r;
    }
    size_t n = 0;
    while (n < max) {
        ssize_t r = read(0, buf + n, 1);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && errno == EAGAIN && n > 0)
            break;
        if (r < 0)
            return -1;
        if (r == 0 || buf[n++] == (uint8_t)delim)
            break;
        struct pollfd p = {.fd = 0, .events = POLLIN};
        if (poll(&p, 1, 0) <= 0)
            break;
    }
    return (ssize_t)n;
}

/* Reads what the ask allows (all: a chunk as it comes). */
static ssize_t
as_read(uint8_t *chunk, const alias_ask *ask, bool all, bool seekable)
{
    if (all)
        return read(0, chunk, BOX_INPUT_CHUNK_MAX);
    if (ask->aa_delim >= 0)
        return as_read_through(chunk, ask->aa_max, ask->aa_delim, seekable);
    return read(0, chunk, ask->aa_max);
}

/* A regular file whose offset can move: an answer through a delimiter may
 * read a block and give back what went past it. */
static bool
as_seekable(void)
{
    struct stat st;
    return fstat(0, &st) == 0 && S_ISREG(st.st_mode) &&
           lseek(0, 0, SEEK_CUR) >= 0;
}

/*
 * One loop over three things at once: the broker's frames (always read:
 * its Output may be what the command must get rid of before it reads its
 * stdin), the frame waiting to go (sent as the socket takes it), and fd 0
 * (read only when the command asked for input and nothing waits, so at
 * most one chunk is held here). Each input_wanted frame lets one input
 * frame go: at most its max bytes, through its delimiter, so a command
 * takes from a stdin it shares with others (`while read f; do sh -c ...;
 * done < list`) what a shell started there would; max 0 lets all of it
 * stream (a host program reads it). The broker reads no more from us
 * while the command's pipe is full, which stops the sending, which stops
 * the reading. 35 s with neither a frame from the broker nor a byte taken
 * by it is the spec's read timeout.
 */
int
alias_stream_relay(int fd, uint32_t program)
{
    int status = BOX_STATUS_FAULT;
    alias_out o = {.as_buf = box_alloc(AS_FRAME_ROOM)};
    uint8_t *chunk = box_alloc(BOX_INPUT_CHUNK_MAX);
    bool in_open = true; // stdin not at its end, InputEof not packed
    bool sending = true; // the broker still takes what we send
    bool all = false;    // asked for all of it
    bool seekable = as_seekable();
    alias_ask ask = {.aa_delim = -1};
    uint64_t deadline = box_svc_now_ms() + BOX_ALIAS_READ_TIMEOUT_MS;
    if (o.as_buf == NULL || chunk == NULL) {
        status = alias_fail("read standard input: %s", alias_os_err(ENOMEM));
        goto out;
    }
    for (;;) {
        bool waiting = sending && o.as_off < o.as_len;
        bool wanted = all || ask.aa_asked;
        struct pollfd p[2] = {
            {.fd = fd, .events = POLLIN | (waiting ? POLLOUT : 0)},
            {.fd = sending && in_open && !waiting && wanted ? 0 : -1,
             .events = POLLIN}};
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
            if ((status = alias_relay_one(fd, left, &ask)) >= 0)
                goto out; // the call is over: stdin not sent stays unread
            if (ask.aa_asked && ask.aa_max == 0)
                all = true;
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
            ssize_t r = as_read(chunk, &ask, all, seekable);
            if (r < 0 && (errno == EINTR || errno == EAGAIN))
                continue;
            if (r < 0) {
                status =
                    alias_fail("read standard input: %s", alias_os_err(errno));
                goto out;
            }
            as_pack(&o, program, chunk, (size_t)r, r == 0);
            in_open = r > 0;
            ask.aa_asked = false; // answered: the next read asks again
        }
    }
out:
    box_free(chunk);
    box_free(o.as_buf);
    return status;
}
