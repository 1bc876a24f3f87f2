/* SPDX-License-Identifier: Apache-2.0 */
/* The alias's side of one broker call: connect, send, relay, exit. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "alias.h"
#include "box_frame.h"
#include "box_wire.h"

#define ALIAS_PROGRAM 1           // the alias always uses program id 1
#define ALIAS_LATE_DENIED_MS 1000 // read a refusal after a failed write

/*
 * Connects within BOX_ALIAS_CONNECT_TIMEOUT_MS. A Unix stream connect
 * waits for room in the listener's backlog for at most the socket's send
 * timeout, then fails with EAGAIN. Returns the fd or -1 (reported).
 */
static int
alias_connect(const char *sock)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(sock) >= sizeof sa.sun_path) {
        alias_fail("connect to the box broker %s: %s", sock,
                   alias_os_err(ENAMETOOLONG));
        return -1;
    }
    memcpy(sa.sun_path, sock, strlen(sock) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    // Never one of 0-2 (closed when we started): stdin would read the
    // socket, output would go into it.
    if (fd >= 0 && fd <= 2) {
        int high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        int err = errno;
        close(fd);
        fd = high;
        errno = err;
    }
    if (fd < 0) {
        alias_fail("connect to the box broker %s: %s", sock,
                   alias_os_err(errno));
        return -1;
    }
    struct timeval tv = {.tv_sec = BOX_ALIAS_CONNECT_TIMEOUT_MS / 1000,
                         .tv_usec = BOX_ALIAS_CONNECT_TIMEOUT_MS % 1000 * 1000};
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
    int rv;
    do {
        rv = connect(fd, (struct sockaddr *)&sa, sizeof sa);
    } while (rv != 0 && errno == EINTR);
    if (rv != 0) {
        int err = errno;
        close(fd);
        if (err == EAGAIN || err == EINPROGRESS || err == ETIMEDOUT)
            alias_fail("connect to the box broker timed out");
        else
            alias_fail("connect to the box broker %s: %s", sock,
                       alias_os_err(err));
        return -1;
    }
    struct timeval zero = {0, 0};
    (void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &zero, sizeof zero);
    return fd;
}

/* Writes all of p to fd (1 or 2), waiting out a non-blocking descriptor. */
static int
alias_write_out(int fd, const uint8_t *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0 && errno == EAGAIN) {
            struct pollfd pfd = {.fd = fd, .events = POLLOUT};
            (void)poll(&pfd, 1, -1);
            continue;
        }
        if (w < 0)
            return errno;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Reports bytes from the broker that were refused before decoding (a kind
 * the broker may not send, nesting too deep, malformed, cut short);
 * returns the exit status. */
static int
alias_bad_frame(const box_frame_fault *ff)
{
    Box__AliasFrame__BodyCase kind =
        (Box__AliasFrame__BodyCase)ff->ff_scan.sr_field;
    if (!ff->ff_cut && ff->ff_scan.sr_fault == BOX_WIRE_SCAN_REFUSED)
        return box_frame_is_client(kind)
                   ? alias_fail("the box broker sent a client frame: %s",
                                box_frame_name(kind))
                   : alias_fail("the box broker sent a %s frame",
                                box_frame_name(kind));
    if (!ff->ff_cut && ff->ff_scan.sr_fault == BOX_WIRE_SCAN_TOO_DEEP)
        return alias_fail("read a transport frame: the frame nests messages "
                          "deeper than %d",
                          BOX_WIRE_DEPTH_MAX);
    return alias_fail("read a transport frame: the frame is truncated or "
                      "does not decode");
}

int
alias_relay_one(int fd, int read_ms, alias_ask *ask)
{
    Box__AliasFrame *f = NULL;
    box_frame_fault ff;
    box_err rv = box_frame_read(fd, BOX_FRAME_MAX, read_ms, BOX_FRAMES_TO_ALIAS,
                                &f, &ff);
    switch (rv) {
    case BOX_OK:
        break;
    case BOX_ETIMEDOUT:
        return alias_fail("read a transport frame timed out");
    case BOX_ECLOSED:
        return alias_fail("the box broker closed");
    case BOX_ETOOBIG:
        return alias_fail("Shell frame is %u bytes; maximum is %u", ff.ff_size,
                          BOX_FRAME_MAX);
    case BOX_EPROTO:
        return alias_bad_frame(&ff);
    case BOX_EIO:
        return alias_fail("read a transport frame: %s", alias_os_err(errno));
    default:
        return alias_fail("read a transport frame: %s", box_strerror(rv));
    }

    int status = -1;
    if (f->body_case == BOX__ALIAS_FRAME__BODY_OUTPUT) {
        Box__Output *o = f->output;
        int out_fd = o->stream == BOX__STREAM__STREAM_STDOUT   ? 1
                     : o->stream == BOX__STREAM__STREAM_STDERR ? 2
                                                               : -1;
        int err;
        if (out_fd < 0)
            status = alias_fail("the box broker sent output for an "
                                "unknown stream %d",
                                (int)o->stream);
        else if ((err = alias_write_out(out_fd, o->data.data, o->data.len)) !=
                 0)
            status =
                alias_fail("write standard %s: %s",
                           out_fd == 1 ? "output" : "error", alias_os_err(err));
    } else if (f->body_case == BOX__ALIAS_FRAME__BODY_EXIT) {
        int32_t s = f->exit->status;
        status = s >= 0 && s <= 255 ? s : BOX_STATUS_FAULT; // fail closed
    } else if (f->body_case == BOX__ALIAS_FRAME__BODY_INPUT_WANTED) {
        Box__InputWanted *w = f->input_wanted;
        if (ask != NULL) {
            ask->aa_asked = true;
            ask->aa_max =
                w->max < BOX_INPUT_CHUNK_MAX ? w->max : BOX_INPUT_CHUNK_MAX;
            ask->aa_delim = w->has_delim ? (int)(w->delim & 0xffu) : -1;
        }
    } else if (f->body_case == BOX__ALIAS_FRAME__BODY_DENIED) {
        fflush(stdout);
        fprintf(stderr, "strands-box: %s\n",
                f->denied->reason != NULL ? f->denied->reason : "");
        fflush(stderr);
        status = BOX_STATUS_FAULT;
    } else {
        status = alias_fail("read a transport frame: the frame has no "
                            "body");
    }
    box__alias_frame__free_unpacked(f, NULL);
    return status;
}

/*
 * Reads frames until the terminal one. read_ms bounds each frame, whole.
 * Returns the exit status.
 */
static int
alias_relay(int fd, int read_ms)
{
    int status;
    while ((status = alias_relay_one(fd, read_ms, NULL)) < 0)
        ;
    return status;
}

/* Sends frames f[0..n) in one write; on failure reports it (a broker that
 * refused us and hung up may have left a Denied to read) and returns the
 * exit status, else -1. */
static int
alias_send(int fd, const Box__AliasFrame *const *f, size_t n)
{
    box_err rv = box_frame_write_many(fd, f, n, BOX_FRAME_MAX,
                                      BOX_ALIAS_WRITE_TIMEOUT_MS);
    size_t big = 0;
    switch (rv) {
    case BOX_OK:
        return -1;
    case BOX_ETIMEDOUT:
        return alias_fail("write a transport frame timed out");
    case BOX_ETOOBIG:
        for (size_t i = 0; i < n; i++)
            if (box__alias_frame__get_packed_size(f[i]) > big)
                big = box__alias_frame__get_packed_size(f[i]);
        return alias_fail("Shell frame is %zu bytes; maximum is %u", big,
                          BOX_FRAME_MAX);
    case BOX_ECLOSED:
        return alias_relay(fd, ALIAS_LATE_DENIED_MS);
    case BOX_EIO:
        return alias_fail("write a transport frame: %s", alias_os_err(errno));
    default:
        return alias_fail("write a transport frame: %s", box_strerror(rv));
    }
}

int
alias_client_call(const char *sock, const char *source, size_t len,
                  const alias_form *form)
{
    (void)len; // the source is a NUL-free C string of this length
    // -s read stdin whole as the script: nothing is left to stream.
    bool stream =
        (form == NULL || !form->af_stdin_script) && alias_stdin_streams();
    int fd = alias_connect(sock);
    if (fd < 0)
        return BOX_STATUS_FAULT;

    Box__AliasFrame fo = BOX__ALIAS_FRAME__INIT, fc = BOX__ALIAS_FRAME__INIT,
                    fe = BOX__ALIAS_FRAME__INIT;
    Box__Open open = BOX__OPEN__INIT;
    Box__OpenShell shell = BOX__OPEN_SHELL__INIT;
    Box__Call call = BOX__CALL__INIT;
    Box__Correlation corr = BOX__CORRELATION__INIT;
    Box__InputEof eof = BOX__INPUT_EOF__INIT;
    int status;

    fo.program = fc.program = fe.program = ALIAS_PROGRAM;
    open.version = BOX_ALIAS_PROTOCOL_VERSION;
    open.mode_case = BOX__OPEN__MODE_SHELL;
    open.shell = &shell;
    fo.body_case = BOX__ALIAS_FRAME__BODY_OPEN;
    fo.open = &open;

    // Only the trace context crosses; the rest of the environment stays.
    const char *tp = getenv("TRACEPARENT");
    const char *ts = getenv("TRACESTATE");
    call.source = (char *)source;
    if (form != NULL) {
        call.has_arg0 = form->af_arg0 != NULL;
        call.script = form->af_script != NULL;
        call.arg0 = (char *)(form->af_arg0 ? form->af_arg0 : "");
        call.n_args = (size_t)form->af_nargs;
        call.args = (char **)form->af_args;
        call.n_set_options = (size_t)form->af_nset;
        call.set_options = (char **)form->af_set;
    }
    call.stdin_stream = stream;
    if (tp != NULL || ts != NULL) {
        corr.traceparent = (char *)(tp != NULL ? tp : "");
        corr.tracestate = (char *)(ts != NULL ? ts : "");
        call.correlation = &corr;
    }
    fc.body_case = BOX__ALIAS_FRAME__BODY_CALL;
    fc.call = &call;
    // No stdin to stream: reads in the command see end of file.
    fe.body_case = BOX__ALIAS_FRAME__BODY_INPUT_EOF;
    fe.input_eof = &eof;
    // Open, Call and (without a stream) InputEof in one write.
    const Box__AliasFrame *first[] = {&fo, &fc, &fe};
    if ((status = alias_send(fd, first, stream ? 2 : 3)) >= 0)
        goto out;
    status = stream ? alias_stream_relay(fd, ALIAS_PROGRAM)
                    : alias_relay(fd, BOX_ALIAS_READ_TIMEOUT_MS);
out:
    close(fd);
    return status;
}
