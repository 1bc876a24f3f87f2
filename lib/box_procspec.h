/* SPDX-License-Identifier: Apache-2.0 */
/* From a ProcessSpec ([agent], [tool.NAME]) to what box-contain is given:
 * the program's canonical file, the filesystem and environment arguments. */
#ifndef BOX_PROCSPEC_H
#define BOX_PROCSPEC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "box_argv.h"
#include "box_err.h"
#include "config.h"

/* The search path when neither the spec nor the operator has one (§5). */
#define BOX_PROCSPEC_DEFAULT_PATH "/usr/bin:/bin"

/*
 * Finds a program the way box-spec §3.4 and §5 do. A name holding '/' is
 * that path (relative ones against the process cwd). A bare name walks
 * path_list (':'-separated; NULL or empty: BOX_PROCSPEC_DEFAULT_PATH),
 * skipping empty and relative entries (a relative one would mean whatever
 * the cwd is, which no trusted PATH meant), for the first candidate that
 * is a regular file with an x bit, judged on the canonical file's own
 * stat. On 0, *canonical (caller frees) is its realpath and *dev / *ino
 * its identity; on failure *canonical is NULL. Returns 0, ENOENT (nothing
 * found; also a '/' name through a non-directory, a loop or an unsearchable
 * directory), ENOMEM, or for a '/' name EACCES (it exists but is not an
 * executable regular file), ENAMETOOLONG or another realpath/stat errno.
 */
int box_which(const char *name, const char *path_list, char **canonical,
              dev_t *dev, ino_t *ino);
/* box_which, also giving the spelling that found the file: name itself,
 * or the PATH directory joined to it (*spelled caller's, NULL on failure). */
int box_which_spelled(const char *name, const char *path_list, char **spelled,
                      char **canonical, dev_t *dev, ino_t *ino);

/* The value of a spec's env entry, or NULL. */
const char *box_procspec_env(const box_config_process *pr, const char *name);

/* The search path of a process under pr (§3.9, §5): the spec's env PATH,
 * else operator_path, else BOX_PROCSPEC_DEFAULT_PATH (empty counts as
 * unset). Borrowed from its arguments; never NULL. */
const char *box_procspec_path(const box_config_process *pr,
                              const char *operator_path);

/* An entry as written (`~`, `~/rel`, absolute) made absolute with home
 * (no doubled '/'; home NULL: the entry as is). Caller frees; NULL on
 * ENOMEM. */
char *box_procspec_expand(const char *entry, const char *home);

/* Appends one `--read P`, `--write P`, ... pair per filesystem entry of
 * pr, `~` expanded with home (the lists are box-contain's, one to one). */
box_err box_procspec_fs_args(box_argv *av, const box_config_process *pr,
                             const char *home) BOX_WARN_UNUSED;

/* A credential's placeholder in the environment (box-spec §6): the name
 * an `[egress.NAME]` table's env:// (or aws://) secret is read under, and
 * the phantom the gateway swaps for the secret. */
typedef struct box_procspec_phantom {
    const char *ph_name;
    const char *ph_value;
} box_procspec_phantom;

/* The gateway as a sandbox reaches it. Borrowed. */
typedef struct box_procspec_egress {
    const char *eg_socket; // the gateway's Unix socket (run/egress.sock)
    unsigned eg_port;      // the loopback port the proxy variables name
    const char *eg_ca;     // the run's CA certificate (trust/cert.pem)
    const box_procspec_phantom *eg_phantoms; // first in the environment
    size_t eg_nphantoms;
} box_procspec_egress;

/*
 * Appends the §5 environment of a process run under pr as `--env K=V`
 * pairs, in this order: with eg its phantoms, then HOME (the spec's, else home), the spec's other
 * names in source order, with eg: NODE_USE_ENV_PROXY=1, the proxy names
 * (HTTP_PROXY, HTTPS_PROXY, http_proxy, https_proxy, ALL_PROXY,
 * all_proxy = http://127.0.0.1:PORT) and NO_PROXY/no_proxy; then PWD=cwd,
 * USER=strands-box, PATH: path_first (the agent's box bin/; NULL:
 * nothing) then box_procspec_path(pr, operator_path); with eg last the
 * trust names (SSL_CERT_FILE, CURL_CA_BUNDLE, REQUESTS_CA_BUNDLE,
 * NODE_EXTRA_CA_CERTS, GIT_SSL_CAINFO, PIP_CERT = the CA). The OTLP names
 * join when telemetry does. On BOX_ENOMEM av holds a prefix (the caller
 * frees).
 */
box_err box_procspec_env_args(box_argv *av, const box_config_process *pr,
                              const char *home, const char *cwd,
                              const char *operator_path,
                              const char *path_first,
                              const box_procspec_egress *eg) BOX_WARN_UNUSED;

/* box-contain's `--egress SOCKET:PORT` (the sandbox's only way out) and
 * `--read-file CA`. */
box_err box_procspec_egress_args(box_argv *av, const box_procspec_egress *eg)
    BOX_WARN_UNUSED;

#endif
