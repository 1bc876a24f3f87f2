/* SPDX-License-Identifier: Apache-2.0 */
/* A test client run inside the sandbox: what --egress lets it reach. */
/*
 * Usage (one line on stdout per mode; exit 0, or 1 when a check failed):
 *   echo PORT CONNS BYTES   CONNS connections to 127.0.0.1:PORT at once,
 *                           BYTES of a pattern sent on each, then a
 *                           half-close; the same bytes must come back,
 *                           then EOF
 *   cut PORT STATUS         connect, send a byte, say how the connection
 *                           ended (eof, reset, data, timeout); exit STATUS
 *   unix PATH               connect(2) to the Unix socket PATH
 *   open PATH               open(2) PATH with O_PATH
 *   fds DIR                 each fd above 2 listed in DIR (a /proc/PID/fd)
 *                           opened with O_PATH, one line each, or why the
 *                           directory cannot be listed
 * Built without the project's libraries or sanitizers: the sandbox runs
 * it as its program.
 */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define EH_MAX_CONNS 512
#define EH_CHUNK 16384
#define EH_TIMEOUT_MS 20000

static const struct {
    int en_err;
    const char *en_name;
} eh_errnames[] = {
    {ECONNREFUSED, "ECONNREFUSED"},
    {ECONNRESET, "ECONNRESET"},
    {ENOENT, "ENOENT"},
    {EACCES, "EACCES"},
    {EPERM, "EPERM"},
    {ENOTDIR, "ENOTDIR"},
    {EPIPE, "EPIPE"},
    {ETIMEDOUT, "ETIMEDOUT"},
};

static const char *
eh_errname(int err)
{
    static char buf[32];

    for (size_t i = 0; i < sizeof eh_errnames / sizeof *eh_errnames; i++) {
        if (eh_errnames[i].en_err == err)
            return eh_errnames[i].en_name;
    }
    snprintf(buf, sizeof buf, "errno %d", err);
    return buf;
}

/* The pattern: differs per connection and per offset, so a byte from
 * another connection or a shifted one shows. */
static unsigned char
eh_byte(size_t conn, size_t off)
{
    return (unsigned char)(((off * 2654435761u) >> 13) + conn * 31 + off);
}

static unsigned long
eh_num(const char *s)
{
    char *end;
    unsigned long v = strtoul(s, &end, 10);

    if (*s == '\0' || *end != '\0') {
        fprintf(stderr, "contain_egress_helper: bad number %s\n", s);
        exit(2);
    }
    return v;
}

static int
eh_connect(unsigned long port)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)port);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0) {
        printf("connect: %s\n", eh_errname(errno));
        return -1;
    }
    return fd;
}

typedef struct eh_conn {
    int ec_fd;
    size_t ec_sent, ec_got;
    bool ec_shut, ec_eof;
} eh_conn;

static bool
eh_send(eh_conn *c, size_t i, size_t bytes)
{
    unsigned char chunk[EH_CHUNK];
    size_t n =
        bytes - c->ec_sent < sizeof chunk ? bytes - c->ec_sent : sizeof chunk;
    ssize_t w;

    for (size_t k = 0; k < n; k++)
        chunk[k] = eh_byte(i, c->ec_sent + k);
    w = send(c->ec_fd, chunk, n, MSG_DONTWAIT | MSG_NOSIGNAL);
    if (w < 0 && errno != EAGAIN) {
        printf("conn %zu: send at %zu: %s\n", i, c->ec_sent, eh_errname(errno));
        return false;
    }
    if (w > 0)
        c->ec_sent += (size_t)w;
    if (c->ec_sent == bytes && !c->ec_shut) {
        shutdown(c->ec_fd, SHUT_WR);
        c->ec_shut = true;
    }
    return true;
}

static bool
eh_recv(eh_conn *c, size_t i, size_t bytes)
{
    unsigned char chunk[EH_CHUNK];
    ssize_t r = recv(c->ec_fd, chunk, sizeof chunk, MSG_DONTWAIT);

    if (r < 0 && errno == EAGAIN)
        return true;
    if (r < 0) {
        printf("conn %zu: recv at %zu: %s\n", i, c->ec_got, eh_errname(errno));
        return false;
    }
    if (r == 0) {
        c->ec_eof = true;
        if (c->ec_got != bytes) {
            printf("conn %zu: EOF after %zu of %zu bytes\n", i, c->ec_got,
                   bytes);
            return false;
        }
        return true;
    }
    for (ssize_t k = 0; k < r; k++) {
        if (c->ec_got + (size_t)k >= bytes ||
            chunk[k] != eh_byte(i, c->ec_got + (size_t)k)) {
            printf("conn %zu: wrong byte at %zu\n", i, c->ec_got + (size_t)k);
            return false;
        }
    }
    c->ec_got += (size_t)r;
    return true;
}

static int
eh_echo(unsigned long port, size_t nconns, size_t bytes)
{
    static eh_conn conns[EH_MAX_CONNS];
    static struct pollfd pfd[EH_MAX_CONNS];
    size_t left = nconns;

    if (nconns == 0 || nconns > EH_MAX_CONNS)
        return 2;
    for (size_t i = 0; i < nconns; i++) {
        if ((conns[i].ec_fd = eh_connect(port)) < 0)
            return 1;
        if (bytes == 0) {
            shutdown(conns[i].ec_fd, SHUT_WR);
            conns[i].ec_shut = true;
        }
    }
    while (left > 0) {
        for (size_t i = 0; i < nconns; i++) {
            pfd[i].fd = conns[i].ec_eof ? -1 : conns[i].ec_fd;
            pfd[i].events = POLLIN | (conns[i].ec_shut ? 0 : POLLOUT);
        }
        int n = poll(pfd, nconns, EH_TIMEOUT_MS);
        if (n == 0) {
            printf("timeout\n");
            return 1;
        }
        for (size_t i = 0; i < nconns && n > 0; i++) {
            eh_conn *c = &conns[i];
            if (pfd[i].fd < 0 || pfd[i].revents == 0)
                continue;
            if ((pfd[i].revents & POLLOUT) && !eh_send(c, i, bytes))
                return 1;
            if ((pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) &&
                !eh_recv(c, i, bytes))
                return 1;
            if (c->ec_eof)
                left--;
        }
    }
    printf("echo %zu x %zu: ok\n", nconns, bytes);
    return 0;
}

static int
eh_cut(unsigned long port, int status)
{
    struct pollfd p;
    char b;
    ssize_t r;
    int fd = eh_connect(port);

    if (fd < 0)
        return status;
    // The reset may come before the byte is sent, or after.
    if (send(fd, "x", 1, MSG_NOSIGNAL) != 1) {
        printf("cut: %s\n", errno == ECONNRESET ? "reset" : eh_errname(errno));
        return status;
    }
    p = (struct pollfd){.fd = fd, .events = POLLIN};
    if (poll(&p, 1, 5000) == 0) {
        printf("cut: timeout\n");
        return status;
    }
    r = recv(fd, &b, 1, 0);
    printf("cut: %s\n", r == 0                ? "eof"
                        : r > 0               ? "data"
                        : errno == ECONNRESET ? "reset"
                                              : eh_errname(errno));
    return status;
}

static int
eh_unix(const char *path)
{
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) != 0)
        printf("unix: %s\n", eh_errname(errno));
    else
        printf("unix: ok\n");
    return 0;
}

static int
eh_open(const char *path)
{
    int fd = open(path, O_PATH | O_CLOEXEC);

    printf("open: %s\n", fd >= 0 ? "ok" : eh_errname(errno));
    return 0;
}

static int
eh_fds(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    char path[512];

    if (d == NULL) {
        printf("fds: %s\n", eh_errname(errno));
        return 0;
    }
    while ((de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.' || strtoul(de->d_name, NULL, 10) < 3)
            continue;
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        int fd = open(path, O_PATH | O_CLOEXEC);
        printf("fd %s: %s\n", de->d_name, fd >= 0 ? "ok" : eh_errname(errno));
    }
    closedir(d);
    return 0;
}

int
main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc == 5 && strcmp(argv[1], "echo") == 0)
        return eh_echo(eh_num(argv[2]), eh_num(argv[3]), eh_num(argv[4]));
    if (argc == 4 && strcmp(argv[1], "cut") == 0)
        return eh_cut(eh_num(argv[2]), (int)eh_num(argv[3]));
    if (argc == 3 && strcmp(argv[1], "unix") == 0)
        return eh_unix(argv[2]);
    if (argc == 3 && strcmp(argv[1], "open") == 0)
        return eh_open(argv[2]);
    if (argc == 3 && strcmp(argv[1], "fds") == 0)
        return eh_fds(argv[2]);
    fprintf(stderr, "usage: contain_egress_helper echo PORT CONNS BYTES | "
                    "cut PORT STATUS | unix PATH | open PATH | fds DIR\n");
    return 2;
}
