/* SPDX-License-Identifier: Apache-2.0 */
/* box-contain --egress: the sandbox's one way out, set up in init. */
#include "contain_int.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "contain_relay.h"

_Static_assert(CONTAIN_EGRESS_PATH_MAX ==
                   sizeof(((struct sockaddr_un *)0)->sun_path) - 1,
               "--egress paths are checked against sun_path");

/*
 * Why a path socket and a directory fd. The sandbox's network namespace
 * holds only lo: no route leaves it, and an abstract Unix socket is
 * named in the network namespace it was bound in, so the gateway's
 * would not even be visible here (and Landlock ABI 6 scopes abstract
 * sockets to the domain besides). A path socket is found through the
 * filesystem, which the network namespace does not divide: connect(2)
 * reaches it from any namespace that can walk to its inode. Landlock up
 * to ABI 5 does not govern connect(2) on a path socket, so the rules the
 * relay inherits do not stop it; the mount namespace can (a --hide or
 * --deny over the path's directory). So the directory is opened here,
 * before ct_mounts, and the relay connects to the socket's name from
 * inside it (its working directory): covers laid later do not cut it
 * off, and the gateway may start, stop and re-create the socket freely.
 */
box_status
ct_egress_open(const contain_spec *spec, ct_egress *eg, ct_err *e)
{
    char dir[CONTAIN_EGRESS_PATH_MAX + 1];
    const char *slash;

    if (spec->cs_egress_port == 0)
        return BOX_STATUS_OK;
    slash = strrchr(spec->cs_egress_path, '/');
    if (slash == NULL) // contain_parse takes absolute paths only
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "--egress %s: the socket path must be absolute",
                       spec->cs_egress_path);
    if (slash == spec->cs_egress_path) {
        memcpy(dir, "/", 2);
    } else {
        size_t n = (size_t)(slash - spec->cs_egress_path);
        memcpy(dir, spec->cs_egress_path, n);
        dir[n] = '\0';
    }
    eg->eg_dir = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (eg->eg_dir < 0)
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "--egress %s: cannot open its directory %s: %s",
                       spec->cs_egress_path, dir, strerror(errno));
    return BOX_STATUS_OK;
}

/* Bound while init still holds its capabilities in the sandbox's user
 * namespace, so a port below 1024 works too. */
box_status
ct_egress_listen(const contain_spec *spec, ct_egress *eg, ct_err *e)
{
    struct sockaddr_in sa = {.sin_family = AF_INET};

    if (spec->cs_egress_port == 0)
        return BOX_STATUS_OK;
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    sa.sin_port = htons((uint16_t)spec->cs_egress_port);
    eg->eg_listen = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (eg->eg_listen < 0 ||
        bind(eg->eg_listen, (struct sockaddr *)&sa, sizeof sa) != 0 ||
        listen(eg->eg_listen, CT_RELAY_MAX_CONNS) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "--egress: cannot listen on 127.0.0.1:%u: %s",
                       spec->cs_egress_port, strerror(errno));
    return BOX_STATUS_OK;
}

/* Closes every fd above 2 but keep[0] and keep[1] (keep[0] < keep[1]). */
static void
eg_close_others(const int keep[2])
{
    unsigned lo = 3;

    for (int i = 0; i < 2; i++) {
        if ((unsigned)keep[i] > lo)
            syscall(SYS_close_range, lo, (unsigned)keep[i] - 1, 0U);
        lo = (unsigned)keep[i] + 1;
    }
    syscall(SYS_close_range, lo, ~0U, 0U);
}

/*
 * The relay's process, forked from init after the whole sandbox (same
 * namespaces, Landlock domain, seccomp filter, no capabilities): it can
 * reach nothing the program cannot, except through its two fds, and
 * those must stay its own. Not dumpable, so the program (same uid, same
 * domain) cannot open /proc/<relay>/cwd or /proc/<relay>/fd/N to get
 * the socket's directory past a --hide, nor take an fd with pidfd_getfd.
 * It holds no stdio but stderr (its own failure goes there) and dies
 * with the pid namespace when init ends.
 */
static _Noreturn void
eg_relay(const contain_spec *spec, ct_egress *eg, int ready)
{
    ct_relay_limits lim = {.rl_max_conns = CT_RELAY_MAX_CONNS,
                           .rl_buf = CT_RELAY_BUF};
    int keep[2] = {eg->eg_dir, eg->eg_listen};
    sigset_t none;
    ct_err e;
    int null;
    box_status st;

    memset(&e, 0, sizeof e);
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0)
        _exit(BOX_STATUS_FAULT);
    // Init starts the program only after this byte: until now the
    // program could have opened /proc/<relay>/fd.
    if (write(ready, "r", 1) != 1)
        _exit(BOX_STATUS_FAULT);
    close(ready);
    prctl(PR_SET_NAME, "box-egress", 0, 0, 0);
    if (keep[0] > keep[1]) {
        keep[0] = eg->eg_listen;
        keep[1] = eg->eg_dir;
    }
    eg_close_others(keep);
    null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null < 0 || dup2(null, 0) < 0 || dup2(null, 1) < 0)
        _exit(BOX_STATUS_FAULT);
    close(null);
    signal(SIGPIPE, SIG_IGN);
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    st = ct_relay_serve(eg->eg_listen, eg->eg_dir,
                        strrchr(spec->cs_egress_path, '/') + 1, &lim, &e);
    ct_report(&e);
    _exit(st);
}

box_status
ct_egress_start(const contain_spec *spec, ct_egress *eg, ct_err *e)
{
    pid_t pid;

    if (spec->cs_egress_port == 0)
        return BOX_STATUS_OK;
    int ready[2];
    if (pipe2(ready, O_CLOEXEC) != 0)
        return ct_fail(e, BOX_STATUS_FAULT, false, "--egress: pipe: %s",
                       strerror(errno));
    pid = fork();
    if (pid < 0) {
        close(ready[0]);
        close(ready[1]);
        return ct_fail(e, BOX_STATUS_FAULT, false, "--egress: fork: %s",
                       strerror(errno));
    }
    if (pid == 0) {
        close(ready[0]);
        eg_relay(spec, eg, ready[1]);
    }
    close(ready[1]);
    char b;
    ssize_t r;
    do
        r = read(ready[0], &b, 1);
    while (r < 0 && errno == EINTR);
    close(ready[0]);
    if (r != 1)
        return ct_fail(e, BOX_STATUS_FAULT, false,
                       "--egress: the relay did not start");
    close(eg->eg_dir);
    close(eg->eg_listen);
    *eg = CT_EGRESS_NONE;
    return BOX_STATUS_OK;
}
