/* SPDX-License-Identifier: Apache-2.0 */
/* The egress relay: one poll loop splicing TCP clients to a Unix socket. */
#include "contain_relay.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "box_alloc.h"

// Accepts per wakeup, so a flood of connects cannot starve the spliced.
#define RL_ACCEPT_BURST 64

// The two sides of a connection: rc_fd and rc_dir are indexed by them.
enum { RL_TCP, RL_UNIX, RL_SIDES };

/*
 * Bytes read from one side, waiting to be written to the other. A
 * direction is over when its source ended (rd_eof) and that end was
 * passed on (rd_shut). When the gateway's side is gone (a write to it
 * failed: it closed early) the client's direction is dead: what is
 * pending is dropped, and the client is still read to its end and
 * dropped, so the reply can finish (a refusal reaches a client that is
 * still sending its body). A failed write to the client ends it all.
 */
typedef struct rl_dir {
    char *rd_buf;          // rl_buf bytes, inside the connection's one block
    size_t rd_off, rd_len; // pending: [rd_off, rd_off + rd_len)
    bool rd_eof;           // the source side ended
    bool rd_shut;          // the end was passed on (SHUT_WR), or rd_dead
    bool rd_dead;          // the destination is gone
} rl_dir;

/* One client and its gateway connection; rc_dir[s] flows out of side s. */
typedef struct rl_conn {
    int rc_fd[RL_SIDES];
    rl_dir rc_dir[RL_SIDES];
    char *rc_block; // owns both buffers
} rl_conn;

typedef struct rl_relay {
    int rr_lfd;
    struct sockaddr_un rr_addr; // the gateway's name, relative to the cwd
    socklen_t rr_addrlen;
    ct_relay_limits rr_lim;
    rl_conn *rr_conns; // rr_nconns live, in no order
    size_t rr_nconns;
    struct pollfd *rr_pfd; // the listener, then RL_SIDES per connection
} rl_relay;

/* A close the client must see as a cut (RST), not as the end of a reply. */
static void
rl_reset(int fd)
{
    struct linger lg = {.l_onoff = 1, .l_linger = 0};

    setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
    close(fd);
}

/* Ends connection i; the last one takes its place. */
static void
rl_drop(rl_relay *r, size_t i, bool cut)
{
    rl_conn *c = &r->rr_conns[i];

    if (cut)
        rl_reset(c->rc_fd[RL_TCP]);
    else
        close(c->rc_fd[RL_TCP]);
    close(c->rc_fd[RL_UNIX]);
    box_free(c->rc_block);
    r->rr_conns[i] = r->rr_conns[--r->rr_nconns];
}

/* What side s waits for: room to read into, or bytes to write to it. */
static short
rl_events(const rl_conn *c, int s, size_t cap)
{
    const rl_dir *in = &c->rc_dir[s], *out = &c->rc_dir[1 - s];
    short ev = 0;

    if (!in->rd_eof && in->rd_len < cap)
        ev |= POLLIN; // room, perhaps once compacted (rl_read)
    if (out->rd_len > 0)
        ev |= POLLOUT;
    return ev;
}

/*
 * Reads what side s has into its direction's buffer (or drops it, when
 * the direction is dead). A failed read of the gateway's side ends that
 * direction as an end would: what was read before still goes out (the
 * gateway may close with the client's bytes unread, after its reply).
 * False when the client's side failed (a reset): nobody to deliver to.
 */
static bool
rl_read(rl_conn *c, int s, size_t cap)
{
    rl_dir *d = &c->rc_dir[s];
    ssize_t n;

    if (d->rd_eof)
        return true;
    if (d->rd_dead) {
        d->rd_off = d->rd_len = 0;
    } else if (d->rd_off + d->rd_len == cap && d->rd_off > 0) {
        memmove(d->rd_buf, d->rd_buf + d->rd_off, d->rd_len);
        d->rd_off = 0;
    }
    if (d->rd_off + d->rd_len == cap)
        return true;
    n = recv(c->rc_fd[s], d->rd_buf + d->rd_off + d->rd_len,
             cap - d->rd_off - d->rd_len, 0);
    if (n > 0 && !d->rd_dead)
        d->rd_len += (size_t)n;
    else if (n == 0)
        d->rd_eof = true;
    else if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK &&
             errno != EINTR) {
        if (s == RL_TCP)
            return false;
        d->rd_eof = true;
    }
    return true;
}

/* The destination of direction d is gone. */
static void
rl_dead(rl_dir *d)
{
    d->rd_dead = d->rd_shut = true;
    d->rd_off = d->rd_len = 0;
}

/*
 * Writes what direction s holds to the other side (tried without waiting
 * for POLLOUT: most writes fit at once), then passes an end on once
 * everything before it is written.
 */
static void
rl_write(rl_conn *c, int s)
{
    rl_dir *d = &c->rc_dir[s];
    int to = c->rc_fd[1 - s];

    if (d->rd_dead)
        return;
    if (d->rd_len > 0) {
        ssize_t n = send(to, d->rd_buf + d->rd_off, d->rd_len, MSG_NOSIGNAL);
        if (n > 0) {
            d->rd_off += (size_t)n;
            d->rd_len -= (size_t)n;
            if (d->rd_len == 0)
                d->rd_off = 0;
        } else if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
            rl_dead(d);
            return;
        }
    }
    if (d->rd_eof && d->rd_len == 0 && !d->rd_shut) {
        if (shutdown(to, SHUT_WR) != 0)
            rl_dead(d);
        d->rd_shut = true;
    }
}

typedef enum rl_fate { RL_LIVE, RL_DONE, RL_CUT } rl_fate;

/*
 * One connection after poll: read, then write, both ways. An error
 * (POLLERR) is left to the read or write that meets it.
 */
static rl_fate
rl_step(rl_conn *c, const struct pollfd *p, size_t cap)
{
    for (int s = 0; s < RL_SIDES; s++) {
        if ((p[s].revents & (POLLIN | POLLHUP | POLLERR)) &&
            !rl_read(c, s, cap))
            return RL_CUT;
    }
    for (int s = 0; s < RL_SIDES; s++)
        rl_write(c, s);
    if (c->rc_dir[RL_UNIX].rd_dead)
        return RL_CUT; // the client is gone: nothing to finish for it
    for (int s = 0; s < RL_SIDES; s++) {
        if (!c->rc_dir[s].rd_eof || !c->rc_dir[s].rd_shut)
            return RL_LIVE;
    }
    return RL_DONE;
}

/*
 * A fresh connection to the gateway for client fd, or a reset for the
 * client: the socket missing or not accepting (the gateway is down, or
 * its backlog is full) fails closed, never waits.
 */
static void
rl_admit(rl_relay *r, int fd)
{
    rl_conn *c;
    int u = -1;
    char *block = NULL;

    if (r->rr_nconns >= r->rr_lim.rl_max_conns)
        goto cut;
    u = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (u < 0)
        goto cut;
    if (connect(u, (const struct sockaddr *)&r->rr_addr, r->rr_addrlen) != 0 &&
        errno != EINPROGRESS)
        goto cut;
    if ((block = box_alloc(2 * r->rr_lim.rl_buf)) == NULL)
        goto cut;
    c = &r->rr_conns[r->rr_nconns++];
    memset(c, 0, sizeof *c);
    c->rc_fd[RL_TCP] = fd;
    c->rc_fd[RL_UNIX] = u;
    c->rc_block = block;
    c->rc_dir[RL_TCP].rd_buf = block;
    c->rc_dir[RL_UNIX].rd_buf = block + r->rr_lim.rl_buf;
    return;
cut:
    if (u >= 0)
        close(u);
    rl_reset(fd);
}

static void
rl_accept(rl_relay *r)
{
    for (int i = 0; i < RL_ACCEPT_BURST; i++) {
        int fd = accept4(r->rr_lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            return; // EAGAIN: all taken
        }
        rl_admit(r, fd);
    }
}

/* The poll set: an fd with nothing to wait for is left out (-1), so a
 * hang-up on it cannot wake the loop while the other side drains. */
static nfds_t
rl_pollset(rl_relay *r)
{
    r->rr_pfd[0] = (struct pollfd){.fd = r->rr_lfd, .events = POLLIN};
    for (size_t i = 0; i < r->rr_nconns; i++) {
        for (int s = 0; s < RL_SIDES; s++) {
            struct pollfd *p = &r->rr_pfd[1 + i * RL_SIDES + (size_t)s];
            short ev = rl_events(&r->rr_conns[i], s, r->rr_lim.rl_buf);
            p->fd = ev != 0 ? r->rr_conns[i].rc_fd[s] : -1;
            p->events = ev;
            p->revents = 0;
        }
    }
    return (nfds_t)(1 + r->rr_nconns * RL_SIDES);
}

static box_status
rl_setup(rl_relay *r, int lfd, int dir, const char *name,
         const ct_relay_limits *lim, ct_err *e)
{
    size_t n = strlen(name);
    int fl;

    memset(r, 0, sizeof *r);
    r->rr_lfd = lfd;
    r->rr_lim = *lim;
    if (lim->rl_max_conns == 0 || lim->rl_buf == 0)
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "egress relay: zero connections or buffer");
    if (n == 0 || n >= sizeof r->rr_addr.sun_path || strchr(name, '/'))
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "egress relay: %s: not a socket name in a directory",
                       name);
    r->rr_addr.sun_family = AF_UNIX;
    memcpy(r->rr_addr.sun_path, name, n + 1);
    r->rr_addrlen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
    if (fchdir(dir) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "egress relay: cannot enter the socket's directory: "
                       "%s",
                       strerror(errno));
    fl = fcntl(lfd, F_GETFL);
    if (fl < 0 || fcntl(lfd, F_SETFL, fl | O_NONBLOCK) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "egress relay: listening socket: %s", strerror(errno));
    r->rr_conns = box_calloc(lim->rl_max_conns, sizeof *r->rr_conns);
    r->rr_pfd = box_calloc(1 + lim->rl_max_conns * RL_SIDES, sizeof *r->rr_pfd);
    if (r->rr_conns == NULL || r->rr_pfd == NULL)
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "egress relay: out of memory");
    return BOX_STATUS_OK;
}

box_status
ct_relay_serve(int lfd, int dir, const char *name, const ct_relay_limits *lim,
               ct_err *e)
{
    rl_relay r;
    box_status st;

    if ((st = rl_setup(&r, lfd, dir, name, lim, e)) != BOX_STATUS_OK)
        goto out;
    for (;;) {
        nfds_t n = rl_pollset(&r);
        size_t i;

        if (poll(r.rr_pfd, n, -1) < 0) {
            if (errno == EINTR)
                continue;
            st = ct_fail(e, BOX_STATUS_FAULT, false, "egress relay: poll: %s",
                         strerror(errno));
            goto out;
        }
        // Backwards: a dropped connection takes the last one's place,
        // which has already been stepped with its own poll entries.
        for (i = r.rr_nconns; i-- > 0;) {
            rl_fate f = rl_step(&r.rr_conns[i], &r.rr_pfd[1 + i * RL_SIDES],
                                r.rr_lim.rl_buf);
            if (f != RL_LIVE)
                rl_drop(&r, i, f == RL_CUT);
        }
        if (r.rr_pfd[0].revents & POLLIN)
            rl_accept(&r);
    }
out:
    while (r.rr_nconns > 0)
        rl_drop(&r, r.rr_nconns - 1, true);
    box_free(r.rr_conns);
    box_free(r.rr_pfd);
    return st;
}
