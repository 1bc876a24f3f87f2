/* SPDX-License-Identifier: Apache-2.0 */
/* box-alias: installed as zsh/bash/sh in <box_dir>/bin; forwards one command.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "alias.h"
#include "box_svc.h"

static const char alias_usage[] =
    "usage: zsh|bash|sh [OPTION...] -c COMMAND [NAME [ARG...]] | SCRIPT "
    "[ARG...]\n"
    "                   | -s [ARG...] (the script on stdin)\n"
    "\n"
    "The box alias. Installed under the shell names in <box_dir>/bin, it\n"
    "sends one command to the box's shell service over <box_dir>/run/box.sock\n"
    "and relays its output and exit status. Run under its own name it only\n"
    "answers --help and --version.\n";

/* ORDER ALIAS_ROUTE: names the image answers to (box-spec §2). */
typedef enum alias_route {
    ALIAS_ROUTE_SHELL,
    ALIAS_ROUTE_PYTHON,
    ALIAS_ROUTE_SELF,
    ALIAS_ROUTE_MCP,
} alias_route;

static const struct {
    const char *an_name;
    alias_route an_route;
} alias_names[] = {
    {"zsh", ALIAS_ROUTE_SHELL},      {"bash", ALIAS_ROUTE_SHELL},
    {"sh", ALIAS_ROUTE_SHELL},       {"python3", ALIAS_ROUTE_PYTHON},
    {"python", ALIAS_ROUTE_PYTHON},  {ALIAS_IMAGE, ALIAS_ROUTE_SELF},
    {"box-alias", ALIAS_ROUTE_SELF},
};

int
alias_fail(const char *fmt, ...)
{
    char msg[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fflush(stdout);
    fprintf(stderr, ALIAS_IMAGE ": %s\n", msg);
    fflush(stderr);
    return BOX_STATUS_FAULT;
}

const char *
alias_os_err(int err)
{
    static char text[256];
    snprintf(text, sizeof text, "%s (os error %d)", strerror(err), err);
    return text;
}

/*
 * Closes every descriptor above 2 before anything else runs: whatever the
 * agent leaked into us must not reach the broker connection's neighbours.
 * EBADF is not an error (the descriptor was not open).
 */
static int
alias_close_inherited(void)
{
    if (close_range(3, ~0u, 0) == 0)
        return 0;
    if (errno != ENOSYS && errno != EINVAL)
        return errno;
    int max = getdtablesize();
    for (int fd = 3; fd < max; fd++) {
        if (close(fd) != 0 && errno != EBADF && errno != EINTR)
            return errno;
    }
    return 0;
}

/* The image's own resolved path (current_exe); 0 or an errno. */
static int
alias_self_path(char *buf, size_t n)
{
    ssize_t got = readlink("/proc/self/exe", buf, n - 1);
    if (got < 0)
        return errno;
    if ((size_t)got >= n - 1)
        return ENAMETOOLONG;
    buf[got] = '\0';
    return 0;
}

static const char *
alias_base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash != NULL ? slash + 1 : path;
}

/* `<box_dir>/run/box.sock` where box_dir is the parent of the directory
 * holding the image. No argument or variable can change it. */
static int
alias_socket_path(const char *self, char *buf, size_t n)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", self);
    for (int up = 0; up < 2; up++) {
        char *slash = strrchr(dir, '/');
        if (slash == NULL)
            return ENOENT;
        *slash = '\0';
    }
    if ((size_t)snprintf(buf, n, "%s/run/box.sock", dir) >= n)
        return ENAMETOOLONG;
    return 0;
}

static int
alias_self_main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "--help") == 0) {
        fputs(alias_usage, stdout);
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--version") == 0) {
        box_svc_print_version(stdout, "box-alias");
        return 0;
    }
    return alias_fail(ALIAS_IMAGE " is not an alias name; the trusted "
                                  "strands-box run process serves broker "
                                  "requests");
}

int
main(int argc, char **argv)
{
    char self[PATH_MAX], sock[PATH_MAX];
    int err;

    if ((err = alias_close_inherited()) != 0)
        return alias_fail("close inherited descriptors: %s", alias_os_err(err));

    // The name comes from the image itself, so argv[0] spellings such as
    // "-bash" or a bare "sh" cannot change the route.
    const char *name;
    int self_err = alias_self_path(self, sizeof self);
    if (self_err == 0)
        name = alias_base(self);
    else
        name = alias_base(argc > 0 ? argv[0] : ALIAS_IMAGE);

    alias_route route = ALIAS_ROUTE_MCP;
    for (size_t i = 0; i < sizeof alias_names / sizeof alias_names[0]; i++) {
        if (strcmp(name, alias_names[i].an_name) == 0) {
            route = alias_names[i].an_route;
            break;
        }
    }
    switch (route) {
    case ALIAS_ROUTE_SELF:
        return alias_self_main(argc, argv);
    case ALIAS_ROUTE_PYTHON:
        return alias_fail("the Python alias %s is not supported yet", name);
    case ALIAS_ROUTE_MCP:
        return alias_fail("the MCP alias %s is not supported yet", name);
    case ALIAS_ROUTE_SHELL:
        break;
    }
    if (self_err != 0)
        return alias_fail("locate the alias image: %s", alias_os_err(self_err));
    if ((err = alias_socket_path(self, sock, sizeof sock)) != 0)
        return alias_fail("locate the box broker socket: %s",
                          alias_os_err(err));
    // $0 of `sh -c CMD` is the name the shell was started by, as typed.
    return alias_shell_main(argc > 0 && argv[0][0] != '\0' ? argv[0] : name,
                            argc > 0 ? argc - 1 : 0, argv + (argc > 0), sock);
}
