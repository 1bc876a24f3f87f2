/* SPDX-License-Identifier: Apache-2.0 */
/* A call's streamed stdin: the alias's input frames into the worker's pipe. */
#include "broker_stdin.h"

#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

// The pipe holds this much (when the kernel lets us) besides the one frame
// waiting: enough that a steady reader rarely waits on the broker's loop.
#define BS_PIPE_BYTES (256 * 1024)

void
broker_stdin_init(broker_stdin *s, uint64_t max)
{
    *s = (broker_stdin){.bs_fd = -1, .bs_max = max};
}

box_err
broker_stdin_open(broker_stdin *s, int *rd)
{
    int p[2];
    *rd = -1;
    // The write end never blocks the broker's loop; the read end blocks
    // as any stdin does (a host program reads it as it is).
    if (pipe2(p, O_CLOEXEC | O_NONBLOCK) != 0)
        return BOX_EIO;
    int fl = fcntl(p[0], F_GETFL);
    if (fl < 0 || fcntl(p[0], F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int err = errno;
        close(p[0]);
        close(p[1]);
        errno = err;
        return BOX_EIO;
    }
    (void)fcntl(p[1], F_SETPIPE_SZ, BS_PIPE_BYTES); // the default will do
    s->bs_fd = p[1];
    s->bs_on = true;
    *rd = p[0];
    return BOX_OK;
}

bool
broker_stdin_waiting(const broker_stdin *s)
{
    return s->bs_frame != NULL;
}

/* The reader is gone (EPIPE) or the call is over: nothing more goes in. */
static void
bs_drop(broker_stdin *s)
{
    if (s->bs_frame != NULL)
        box__alias_frame__free_unpacked(s->bs_frame, NULL);
    s->bs_frame = NULL;
    s->bs_off = 0;
    if (s->bs_fd >= 0)
        close(s->bs_fd);
    s->bs_fd = -1;
}

void
broker_stdin_pump(broker_stdin *s)
{
    while (s->bs_frame != NULL) {
        const ProtobufCBinaryData *d = &s->bs_frame->input->data;
        if (s->bs_off == d->len) {
            box__alias_frame__free_unpacked(s->bs_frame, NULL);
            s->bs_frame = NULL;
            s->bs_off = 0;
            break;
        }
        ssize_t w = write(s->bs_fd, d->data + s->bs_off, d->len - s->bs_off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN)
            return; // the pipe is full: the rest waits
        if (w < 0) {
            bs_drop(s); // EPIPE: the command no longer reads its stdin
            return;
        }
        s->bs_off += (size_t)w;
    }
    // What waited is in: an input_eof that came before it closes now.
    if (s->bs_eof && s->bs_fd >= 0) {
        close(s->bs_fd);
        s->bs_fd = -1;
    }
}

box_err
broker_stdin_take(broker_stdin *s, Box__AliasFrame *f)
{
    if (s->bs_on && s->bs_eof)
        return BOX_EPROTO;
    if (!s->bs_on || s->bs_fd < 0 || f->input == NULL) {
        box__alias_frame__free_unpacked(f, NULL);
        return BOX_OK;
    }
    size_t n = f->input->data.len;
    if (n > s->bs_max - s->bs_total)
        return BOX_ETOOBIG;
    s->bs_total += n;
    s->bs_frame = f;
    s->bs_off = 0;
    broker_stdin_pump(s);
    return BOX_OK;
}

box_err
broker_stdin_eof(broker_stdin *s)
{
    if (!s->bs_on)
        return BOX_OK; // protocols 6 and 7 send it right after the call
    if (s->bs_eof)
        return BOX_EPROTO;
    s->bs_eof = true;
    if (s->bs_frame == NULL && s->bs_fd >= 0) {
        close(s->bs_fd);
        s->bs_fd = -1;
    }
    return BOX_OK;
}

void
broker_stdin_close(broker_stdin *s)
{
    bs_drop(s);
}
