/* SPDX-License-Identifier: Apache-2.0 */
/* box-shell's settings: which box, which homes, which workspace. */
#include "shell_settings.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_routes_msg.h"
#include "box_buf.h"
#include "box_procspec.h"
#include "config.h"

/* realpath into a box_alloc'd string; NULL when it does not resolve. */
static char *
shset_real(const char *p)
{
    char buf[PATH_MAX];
    if (p == NULL || realpath(p, buf) == NULL)
        return NULL;
    return box_strdup(buf);
}

/* The operator's home: $HOME of the trusted process, else the password
 * database's entry. */
static const char *
shset_operator_home(void)
{
    const char *h = getenv("HOME");
    if (h != NULL && h[0] == '/')
        return h;
    struct passwd *pw = getpwuid(getuid());
    return pw != NULL ? pw->pw_dir : NULL;
}

#define SHSET_CA_MAX (1u << 20)

/* The run's CA certificate, read whole now: once confined, neither the
 * broker nor a worker may read the box dir, and curl trusts only it
 * (box-spec §3.12). NULL when it cannot be read (curl then says so). */
static char *
shset_read_ca(const char *path, size_t *len)
{
    box_buf b;
    box_buf_init(&b, SHSET_CA_MAX);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    ssize_t k = fd < 0 ? -1 : 0;
    char buf[4096];
    while (fd >= 0 && (k = read(fd, buf, sizeof buf)) != 0) {
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0 || box_buf_append(&b, buf, (size_t)k) != BOX_OK)
            break;
    }
    if (fd >= 0)
        close(fd);
    if (k != 0 || b.b_len == 0) {
        box_buf_reset(&b);
        return NULL;
    }
    *len = b.b_len;
    return box_buf_take(&b);
}

/* The phantoms box run handed over (the shell's copy holds no secret):
 * every call's environment and every sandbox's starts with them. */
static box_err
shset_phantoms(int fd, shell_settings *s, char **err)
{
    box_err rv = box_routes_msg_read(fd, &s->ss_routes, err);
    close(fd);
    if (rv != BOX_OK)
        return rv;
    size_t n = s->ss_routes->n_routes, k = 0;
    for (size_t i = 0; i < n; i++)
        k += s->ss_routes->routes[i]->n_phantoms;
    if (k == 0)
        return BOX_OK;
    s->ss_phantoms = box_calloc(k, sizeof *s->ss_phantoms);
    s->ss_phantom_env = box_calloc(k + 1, sizeof *s->ss_phantom_env);
    if (s->ss_phantoms == NULL || s->ss_phantom_env == NULL)
        return BOX_ENOMEM;
    for (size_t i = 0; i < n; i++) {
        const Box__EgressRoute *r = s->ss_routes->routes[i];
        for (size_t j = 0; j < r->n_phantoms; j++) {
            if (j >= r->n_env_names || r->env_names[j][0] == '\0') {
                *err = box_asprintf("credential route %s has a phantom "
                                    "without a name",
                                    r->name);
                return BOX_EPROTO;
            }
            box_procspec_phantom *ph = &s->ss_phantoms[s->ss_nphantoms];
            ph->ph_name = r->env_names[j];
            ph->ph_value = r->phantoms[j];
            if ((s->ss_phantom_env[s->ss_nphantoms] = box_asprintf(
                     "%s=%s", ph->ph_name, ph->ph_value)) == NULL)
                return BOX_ENOMEM;
            s->ss_nphantoms++;
        }
    }
    s->ss_egress.eg_phantoms = s->ss_phantoms;
    s->ss_egress.eg_nphantoms = s->ss_nphantoms;
    s->ss_settings.ws_phantom_env = (const char *const *)s->ss_phantom_env;
    s->ss_settings.ws_nphantom_env = s->ss_nphantoms;
    return BOX_OK;
}

box_err
shell_settings_build(const shell_args *a, shell_settings *s, char **err)
{
    memset(s, 0, sizeof *s);
    *err = NULL;
    box_err rv = BOX_ECONFIG;
    if (a->sa_config != NULL &&
        (rv = box_config_load(a->sa_config, &s->ss_config, err)) != BOX_OK)
        goto fail;
    const box_config_process *agent =
        s->ss_config ? box_config_agent(s->ss_config) : NULL;

    rv = BOX_ECONFIG;
    if ((s->ss_operator_home = shset_real(shset_operator_home())) == NULL) {
        *err = box_strdup("the operator's home directory does not resolve");
        goto fail;
    }
    const char *ah = box_procspec_env(agent, "HOME");
    if ((s->ss_agent_home = shset_real(ah ? ah : s->ss_operator_home)) ==
        NULL) {
        *err = box_asprintf("the agent's home %s does not resolve", ah);
        goto fail;
    }
    const char *ws = a->sa_workspace;
    if (ws == NULL && agent != NULL)
        ws = agent->pr_workspace;
    char cwd[PATH_MAX];
    if (ws == NULL && (ws = getcwd(cwd, sizeof cwd)) == NULL) {
        *err = box_strdup("the current directory does not resolve");
        goto fail;
    }
    if ((s->ss_workspace = shset_real(ws)) == NULL) {
        *err = box_asprintf("the workspace %s does not resolve", ws);
        goto fail;
    }
    if (a->sa_box_dir != NULL &&
        (s->ss_box_dir = shset_real(a->sa_box_dir)) == NULL) {
        *err = box_asprintf("the box directory %s does not resolve",
                            a->sa_box_dir);
        goto fail;
    }
    if (s->ss_config != NULL) {
        s->ss_authority[s->ss_nauthority++] = box_config_path(s->ss_config);
        if (box_config_policy(s->ss_config) != NULL)
            s->ss_authority[s->ss_nauthority++] =
                box_config_policy(s->ss_config);
    }
    if (a->sa_policy != NULL)
        s->ss_authority[s->ss_nauthority++] = a->sa_policy;
    const char *path = getenv("PATH");
    s->ss_settings = (worker_settings){
        .ws_box_dir = s->ss_box_dir,
        .ws_operator_home = s->ss_operator_home,
        .ws_agent_home = s->ss_agent_home,
        .ws_workspace = s->ss_workspace,
        .ws_trusted_path = path != NULL && path[0] ? path : "/usr/bin:/bin",
        .ws_authority = s->ss_authority,
        .ws_nauthority = s->ss_nauthority,
        .ws_config = s->ss_config,
        .ws_contain_bin = a->sa_contain_bin,
        .ws_call_budget_ms = a->sa_call_budget_ms,
    };
    // No gateway named (a shell started without one, as `box sh` does):
    // host programs get no network; its socket and CA alone mean nothing.
    if (a->sa_gateway != NULL) {
        const char *colon = strrchr(a->sa_gateway, ':');
        char *end = NULL;
        unsigned long port = colon ? strtoul(colon + 1, &end, 10) : 0;
        if (port == 0 || port > 65535 || *end != '\0' ||
            a->sa_egress_socket == NULL || a->sa_trust_cert == NULL) {
            *err = box_strdup("--gateway wants HOST:PORT, with "
                              "--egress-socket and --trust-cert");
            rv = BOX_EINVAL;
            goto fail;
        }
        s->ss_egress = (box_procspec_egress){.eg_socket = a->sa_egress_socket,
                                             .eg_port = (unsigned)port,
                                             .eg_ca = a->sa_trust_cert};
        s->ss_settings.ws_egress = &s->ss_egress;
        s->ss_egress_ca =
            shset_read_ca(a->sa_trust_cert, &s->ss_settings.ws_egress_ca_len);
        s->ss_settings.ws_egress_ca = s->ss_egress_ca;
    }
    if (a->sa_routes_fd >= 0 &&
        (rv = shset_phantoms(a->sa_routes_fd, s, err)) != BOX_OK)
        goto fail;
    return BOX_OK;
fail:
    shell_settings_free(s);
    return rv == BOX_OK ? BOX_ECONFIG : rv;
}

void
shell_settings_free(shell_settings *s)
{
    box_config_free(s->ss_config);
    box_free(s->ss_operator_home);
    box_free(s->ss_agent_home);
    box_free(s->ss_workspace);
    box_free(s->ss_box_dir);
    box_free(s->ss_egress_ca);
    for (size_t i = 0; i < s->ss_nphantoms; i++)
        box_free(s->ss_phantom_env[i]);
    box_free(s->ss_phantom_env);
    box_free(s->ss_phantoms);
    box_routes_msg_free(s->ss_routes);
    memset(s, 0, sizeof *s);
}
