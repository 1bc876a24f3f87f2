/* SPDX-License-Identifier: Apache-2.0 */
/* ProcessSpec → box-contain: program lookup, filesystem and environment
 * arguments. */
#include "box_procspec.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"

/* dir (len bytes of it) + "/" + name, without doubling the slash. */
static char *
procspec_join(const char *dir, size_t len, const char *name)
{
    bool slash = len > 0 && dir[len - 1] == '/';
    return box_asprintf("%.*s%s%s", (int)len, dir, slash ? "" : "/", name);
}

/*
 * One candidate spelling (taken; NULL is ENOMEM): canonicalised, then
 * judged on the canonical file's own stat, so the identity recorded is
 * the one that was checked. A path through a non-directory, a loop or an
 * unsearchable directory is simply absent.
 */
static int
which_try(char *cand, char **spelled, char **canonical, dev_t *dev, ino_t *ino)
{
    char real[PATH_MAX];
    struct stat st;
    int err = 0;

    if (cand == NULL)
        return ENOMEM;
    if (realpath(cand, real) == NULL || stat(real, &st) != 0)
        err = errno == ENOTDIR || errno == ELOOP || errno == EACCES ? ENOENT
                                                                    : errno;
    else if (!S_ISREG(st.st_mode) || (st.st_mode & 0111) == 0)
        err = EACCES;
    else if ((*canonical = box_strdup(real)) == NULL)
        err = ENOMEM;
    if (err != 0 || spelled == NULL)
        box_free(cand);
    else
        *spelled = cand;
    if (err != 0)
        return err;
    *dev = st.st_dev;
    *ino = st.st_ino;
    return 0;
}

int
box_which_spelled(const char *name, const char *path_list, char **spelled,
                  char **canonical, dev_t *dev, ino_t *ino)
{
    *canonical = NULL;
    if (spelled != NULL)
        *spelled = NULL;
    if (name == NULL || name[0] == '\0')
        return ENOENT;
    if (strchr(name, '/') != NULL)
        return which_try(box_strdup(name), spelled, canonical, dev, ino);
    if (path_list == NULL || path_list[0] == '\0')
        path_list = BOX_PROCSPEC_DEFAULT_PATH;
    for (const char *p = path_list, *e; *p != '\0'; p = *e == ':' ? e + 1 : e) {
        if ((e = strchr(p, ':')) == NULL)
            e = p + strlen(p);
        if (p[0] != '/')
            continue; // empty or relative
        int err = which_try(procspec_join(p, (size_t)(e - p), name), spelled,
                            canonical, dev, ino);
        if (err == 0 || err == ENOMEM)
            return err;
    }
    return ENOENT;
}

int
box_which(const char *name, const char *path_list, char **canonical, dev_t *dev,
          ino_t *ino)
{
    return box_which_spelled(name, path_list, NULL, canonical, dev, ino);
}

const char *
box_procspec_env(const box_config_process *pr, const char *name)
{
    for (size_t i = 0; pr != NULL && i < pr->pr_nenv; i++)
        if (strcmp(pr->pr_env[i].ev_name, name) == 0)
            return pr->pr_env[i].ev_value;
    return NULL;
}

const char *
box_procspec_path(const box_config_process *pr, const char *operator_path)
{
    const char *path = box_procspec_env(pr, "PATH");

    if (path != NULL && path[0] != '\0')
        return path;
    if (operator_path != NULL && operator_path[0] != '\0')
        return operator_path;
    return BOX_PROCSPEC_DEFAULT_PATH;
}

char *
box_procspec_expand(const char *entry, const char *home)
{
    if (home != NULL && strcmp(entry, "~") == 0)
        return box_strdup(home);
    if (home != NULL && strncmp(entry, "~/", 2) == 0)
        return procspec_join(home, strlen(home), entry + 2);
    return box_strdup(entry);
}

/* ORDER BOX_GRANT: the box-contain flag of each list. */
static const char *const procspec_flag[BOX_GRANT_COUNT] = {
    [BOX_GRANT_READ] = "--read",
    [BOX_GRANT_WRITE] = "--write",
    [BOX_GRANT_READ_FILE] = "--read-file",
    [BOX_GRANT_WRITE_FILE] = "--write-file",
    [BOX_GRANT_LIST] = "--list",
    [BOX_GRANT_METADATA] = "--metadata",
    [BOX_GRANT_EXEC] = "--exec",
    [BOX_GRANT_DENY] = "--deny",
};

box_err
box_procspec_fs_args(box_argv *av, const box_config_process *pr,
                     const char *home)
{
    for (int g = 0; g < BOX_GRANT_COUNT; g++) {
        const box_config_strv *l = &pr->pr_fs[g];
        for (size_t i = 0; i < l->sv_len; i++) {
            char *p = box_procspec_expand(l->sv_items[i], home);
            if (p == NULL)
                return BOX_ENOMEM;
            box_err rv = box_argv_push(av, procspec_flag[g]);
            if (rv == BOX_OK)
                rv = box_argv_push(av, p);
            box_free(p);
            if (rv != BOX_OK)
                return rv;
        }
    }
    return BOX_OK;
}

static box_err
procspec_env1(box_argv *av, const char *name, const char *value)
{
    box_err rv = box_argv_push(av, "--env");
    if (rv == BOX_OK)
        rv = box_argv_pushf(av, "%s=%s", name, value);
    return rv;
}

/* The proxy names, all pointing at the sandbox's end of the relay. */
static const char *const procspec_proxy_names[] = {
    "HTTP_PROXY", "HTTPS_PROXY", "http_proxy",
    "https_proxy", "ALL_PROXY", "all_proxy",
};
/* The names programs read their trusted CAs from: the run's CA only, as
 * every TLS connection out of a sandbox ends at the gateway. */
static const char *const procspec_trust_names[] = {
    "SSL_CERT_FILE",       "CURL_CA_BUNDLE", "REQUESTS_CA_BUNDLE",
    "NODE_EXTRA_CA_CERTS", "GIT_SSL_CAINFO", "PIP_CERT",
};

static box_err
procspec_proxy_env(box_argv *av, const box_procspec_egress *eg)
{
    char url[40];
    snprintf(url, sizeof url, "http://127.0.0.1:%u", eg->eg_port);
    box_err rv = procspec_env1(av, "NODE_USE_ENV_PROXY", "1");
    for (size_t i = 0;
         rv == BOX_OK && i < sizeof procspec_proxy_names / sizeof(char *); i++)
        rv = procspec_env1(av, procspec_proxy_names[i], url);
    if (rv == BOX_OK)
        rv = procspec_env1(av, "NO_PROXY", "127.0.0.1,localhost");
    if (rv == BOX_OK)
        rv = procspec_env1(av, "no_proxy", "127.0.0.1,localhost");
    return rv;
}

box_err
box_procspec_env_args(box_argv *av, const box_config_process *pr,
                      const char *home, const char *cwd,
                      const char *operator_path, const char *path_first,
                      const box_procspec_egress *eg)
{
    const char *spec_home = box_procspec_env(pr, "HOME");
    const char *path = box_procspec_path(pr, operator_path);
    box_err rv = BOX_OK;
    for (size_t i = 0; eg != NULL && rv == BOX_OK && i < eg->eg_nphantoms; i++)
        rv = procspec_env1(av, eg->eg_phantoms[i].ph_name,
                           eg->eg_phantoms[i].ph_value);
    if (rv == BOX_OK)
        rv = procspec_env1(av, "HOME", spec_home ? spec_home : home);

    for (size_t i = 0; rv == BOX_OK && i < pr->pr_nenv; i++) {
        const char *n = pr->pr_env[i].ev_name;
        if (strcmp(n, "HOME") != 0 && strcmp(n, "PATH") != 0)
            rv = procspec_env1(av, n, pr->pr_env[i].ev_value);
    }
    if (rv == BOX_OK && eg != NULL)
        rv = procspec_proxy_env(av, eg);
    if (rv == BOX_OK)
        rv = procspec_env1(av, "PWD", cwd);
    if (rv == BOX_OK)
        rv = procspec_env1(av, "USER", "strands-box");
    if (rv == BOX_OK && (rv = box_argv_push(av, "--env")) == BOX_OK)
        rv = box_argv_pushf(av, "PATH=%s%s%s", path_first ? path_first : "",
                            path_first ? ":" : "", path);
    for (size_t i = 0; rv == BOX_OK && eg != NULL &&
                       i < sizeof procspec_trust_names / sizeof(char *);
         i++)
        rv = procspec_env1(av, procspec_trust_names[i], eg->eg_ca);
    return rv;
}

box_err
box_procspec_egress_args(box_argv *av, const box_procspec_egress *eg)
{
    box_err rv = box_argv_push(av, "--egress");
    if (rv == BOX_OK)
        rv = box_argv_pushf(av, "%s:%u", eg->eg_socket, eg->eg_port);
    // The trust names point at the CA: the sandbox reads it (a caller
    // that hides the box directory also shows it).
    if (rv == BOX_OK && (rv = box_argv_push(av, "--read-file")) == BOX_OK)
        rv = box_argv_push(av, eg->eg_ca);
    return rv;
}
