/* SPDX-License-Identifier: Apache-2.0 */
/* The services' confinement profiles, from their command lines. */
#include "box_confine_profile.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "box_alloc.h"

#define PROF_SOCK_DIR (BOX_LL_MAKE_SOCK | BOX_LL_REMOVE_FILE)
#define PROF_READ_TREE (BOX_LL_READ_FILE | BOX_LL_READ_DIR)

/* A service whose addresses are all Unix sockets opens no other kind. */
static const box_sc_rule prof_unix_only[] = {
    {BOX_SC_SYS(socket), .sr_cmp = BOX_SC_NE, .sr_arg = 0, .sr_value = AF_UNIX},
};

/* What every service keeps: its stdio and the log level box_log reads on
 * each line. */
static box_err
prof_base(box_confine_spec *s)
{
    box_err rv = BOX_OK;
    for (int fd = 0; fd <= 2 && rv == BOX_OK; fd++)
        rv = box_confine_keep_fd(s, fd);
    if (rv == BOX_OK)
        rv = box_confine_keep_env(s, "BOX_LOG_LEVEL");
    return rv;
}

/* The canonical directory holding path (which need not exist yet). */
static bool
prof_canon_dir(const char *path, char out[PATH_MAX])
{
    char dir[PATH_MAX];
    const char *slash = strrchr(path, '/');
    size_t n = slash == NULL ? 0 : slash == path ? 1 : (size_t)(slash - path);

    if (n >= sizeof dir) {
        errno = ENAMETOOLONG;
        return false;
    }
    if (n == 0) {
        dir[0] = '.';
        n = 1;
    } else {
        memcpy(dir, path, n);
    }
    dir[n] = '\0';
    return realpath(dir, out) != NULL;
}

/* True when dir (canonical) is one of the homes or above one. */
static bool
prof_home_or_above(const char *dir, const char *const homes[])
{
    size_t n = strlen(dir);
    for (size_t i = 0; i < BOX_CONFINE_HOMES; i++) {
        char canon[PATH_MAX];
        const char *h = homes[i];
        if (h == NULL || h[0] == '\0')
            continue;
        if (realpath(h, canon) != NULL)
            h = canon;
        if (strcmp(dir, "/") == 0 || strcmp(h, dir) == 0 ||
            (strncmp(h, dir, n) == 0 && h[n] == '/'))
            return true;
    }
    return false;
}

/*
 * A directory the service writes in (sockets, the log) gets access
 * beneath it, so it may be neither a home nor above one.
 */
static box_err
prof_write_dir(box_confine_spec *s, const char *path, const char *what,
               uint64_t access, const char *const homes[], char **err)
{
    char dir[PATH_MAX];

    if (!prof_canon_dir(path, dir)) {
        *err = box_asprintf("%s %s: its directory: %s", what, path,
                            strerror(errno));
        return BOX_ECONFIG;
    }
    if (prof_home_or_above(dir, homes)) {
        *err = box_asprintf("%s %s: its directory %s is the operator home "
                            "or above it, and %s may write only in a "
                            "directory of its own",
                            what, path, dir, box_profile_name(s->cs_profile));
        return BOX_ECONFIG;
    }
    box_err rv = box_confine_grant(s, dir, access, false);
    if (rv != BOX_OK)
        *err = box_asprintf("%s %s: %s", what, path, box_strerror(rv));
    return rv;
}

/* An nng address: ipc:// gets its socket directory; one that is not a
 * Unix socket at all clears *unix_only. */
static box_err
prof_address(box_confine_spec *s, const char *url, const char *what,
             const char *const homes[], bool *unix_only, char **err)
{
    static const char ipc[] = "ipc://";

    if (url == NULL)
        return BOX_OK;
    if (strncmp(url, ipc, sizeof ipc - 1) == 0)
        return prof_write_dir(s, url + sizeof ipc - 1, what, PROF_SOCK_DIR,
                              homes, err);
    if (strncmp(url, "abstract://", 11) != 0 &&
        strncmp(url, "inproc://", 9) != 0)
        *unix_only = false;
    return BOX_OK;
}

static void
prof_unix_sockets_only(box_confine_spec *s, bool unix_only)
{
    if (!unix_only)
        return;
    s->cs_sc_rules = prof_unix_only;
    s->cs_nsc_rules = sizeof prof_unix_only / sizeof *prof_unix_only;
}

/* On failure: the spec freed, *err set (a bare code gets its text). */
static box_err
prof_done(box_confine_spec *s, box_err rv, char **err)
{
    if (rv == BOX_OK)
        return BOX_OK;
    box_confine_spec_free(s);
    if (*err == NULL)
        *err = box_asprintf("cannot build the confinement of %s: %s",
                            box_profile_name(s->cs_profile), box_strerror(rv));
    return rv;
}

/*
 * The policy: read beneath its directory, or only the file when that
 * directory is a home or above one.
 */
static box_err
prof_policy(box_confine_spec *s, const char *policy, const char *const homes[],
            bool *file_only, char **err)
{
    char canon[PATH_MAX], dir[PATH_MAX];

    *file_only = false;
    if (policy == NULL)
        return BOX_OK;
    if (realpath(policy, canon) == NULL || !prof_canon_dir(canon, dir)) {
        *err = box_asprintf("--policy %s: %s", policy, strerror(errno));
        return BOX_ECONFIG;
    }
    *file_only = prof_home_or_above(dir, homes);
    return box_confine_grant(s, *file_only ? canon : dir, BOX_LL_READ_FILE,
                             false);
}

box_err
box_confine_pdp(const box_confine_pdp_args *a, box_confine_spec *spec,
                bool *policy_file_only, char **err)
{
    bool unix_only = true;
    box_err rv;

    *err = NULL;
    box_confine_spec_init(spec, BOX_PROFILE_PDP);
    if ((rv = prof_base(spec)) == BOX_OK && a->pa_peers_fd >= 0)
        rv = box_confine_keep_fd(spec, a->pa_peers_fd);
    if (rv == BOX_OK)
        rv =
            prof_policy(spec, a->pa_policy, a->pa_homes, policy_file_only, err);
    if (rv == BOX_OK)
        rv = prof_address(spec, a->pa_listen, "--listen", a->pa_homes,
                          &unix_only, err);
    if (rv == BOX_OK)
        rv = prof_address(spec, a->pa_epoch_pub, "--epoch-pub", a->pa_homes,
                          &unix_only, err);
    // Append and create; Landlock has no append-only right.
    if (rv == BOX_OK && a->pa_log != NULL)
        // Truncate: a batch the disk could not take is cut back whole.
        rv = prof_write_dir(spec, a->pa_log, "--log",
                            BOX_LL_WRITE_FILE | BOX_LL_MAKE_REG |
                                BOX_LL_TRUNCATE,
                            a->pa_homes, err);
    // The history is read back at start, cut after a torn tail, and
    // compacted by a new file renamed over it: its own directory, opened
    // to sync the rename.
    if (rv == BOX_OK && a->pa_history != NULL)
        rv = prof_write_dir(spec, a->pa_history, "--history",
                            BOX_LL_READ_FILE | BOX_LL_READ_DIR |
                                BOX_LL_WRITE_FILE | BOX_LL_MAKE_REG |
                                BOX_LL_REMOVE_FILE | BOX_LL_TRUNCATE,
                            a->pa_homes, err);
    prof_unix_sockets_only(spec, unix_only);
    return prof_done(spec, rv, err);
}

/* System certificates, wherever this system keeps them (the links in
 * /etc/ssl/certs point into /usr/share/ca-certificates). */
static const char *const prof_cert_dirs[] = {
    "/etc/ssl/certs",
    "/usr/share/ca-certificates",
    "/usr/local/share/ca-certificates",
};

/* What the resolver reads for getaddrinfo (glibc: the hosts database and
 * DNS, built into libc since 2.34), each where this system has it. */
static const char *const prof_resolver_files[] = {
    "/etc/resolv.conf", "/etc/hosts",    "/etc/nsswitch.conf",
    "/etc/gai.conf",    "/etc/host.conf",
};

box_err
box_confine_gateway(const box_confine_gateway_args *a, box_confine_spec *spec,
                    char **err)
{
    bool unix_only = false; // the proxy connects out
    box_err rv;

    *err = NULL;
    box_confine_spec_init(spec, BOX_PROFILE_GATEWAY);
    rv = prof_base(spec);
    for (size_t i = 0; rv == BOX_OK && i < a->ga_nfds; i++)
        rv = box_confine_keep_fd(spec, a->ga_fds[i]);
    if (rv == BOX_OK)
        rv = prof_address(spec, a->ga_control, "--control", a->ga_homes,
                          &unix_only, err);
    for (size_t i = 0;
         rv == BOX_OK && i < sizeof prof_cert_dirs / sizeof *prof_cert_dirs;
         i++)
        rv = box_confine_grant(spec, prof_cert_dirs[i], PROF_READ_TREE, true);
    for (size_t i = 0; rv == BOX_OK && i < sizeof prof_resolver_files /
                                               sizeof *prof_resolver_files;
         i++)
        rv = box_confine_grant(spec, prof_resolver_files[i], BOX_LL_READ_FILE,
                               true);
    if (rv == BOX_OK && a->ga_trust_dir != NULL)
        rv = box_confine_grant(spec, a->ga_trust_dir, PROF_READ_TREE, false);
    if (rv == BOX_OK && a->ga_upstream_ca != NULL)
        rv = box_confine_grant(spec, a->ga_upstream_ca, BOX_LL_READ_FILE,
                               false);
    return prof_done(spec, rv, err);
}

box_err
box_confine_broker(const box_confine_broker_args *a, box_confine_spec *spec,
                   char **err)
{
    bool unix_only = true;
    char path[PATH_MAX];
    box_err rv;

    *err = NULL;
    box_confine_spec_init(spec, BOX_PROFILE_BROKER);
    rv = prof_base(spec);
    for (size_t i = 0; rv == BOX_OK && i < a->ba_nfds; i++)
        rv = box_confine_keep_fd(spec, a->ba_fds[i]);
    // A name inside each directory stands for the directory itself. The
    // alias socket's run/ must be there; private/ is box run's (a broker
    // started by hand on a bare box dir has none, and needs none).
    static const char *const dirs[] = {"run", "private"};
    for (size_t i = 0; rv == BOX_OK && i < 2; i++) {
        int k = snprintf(path, sizeof path, "%s/%s/.", a->ba_box_dir, dirs[i]);
        struct stat st;
        if (k <= 0 || (size_t)k >= sizeof path)
            rv = BOX_ETOOBIG;
        else if (i == 1 && stat(path, &st) != 0 && errno == ENOENT)
            continue;
        else
            rv = prof_write_dir(spec, path, "--box-dir", PROF_SOCK_DIR,
                                a->ba_homes, err);
    }
    if (rv == BOX_OK)
        rv = prof_address(spec, a->ba_control, "--control", a->ba_homes,
                          &unix_only, err);
    // The broker connects to these; Landlock does not govern connecting.
    if (rv == BOX_OK && a->ba_pdp != NULL &&
        strncmp(a->ba_pdp, "ipc://", 6) != 0)
        unix_only = false;
    if (rv == BOX_OK && a->ba_epoch_pub != NULL &&
        strncmp(a->ba_epoch_pub, "ipc://", 6) != 0)
        unix_only = false;
    prof_unix_sockets_only(spec, unix_only);
    return prof_done(spec, rv, err);
}
