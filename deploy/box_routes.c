/* SPDX-License-Identifier: Apache-2.0 */
/* A run's credential routes: secrets read, phantoms minted, memory files. */
#include "box_routes.h"

#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <unistd.h>

#include "box.pb-c.h"
#include "box_alloc.h"
#include "box_awsprof.h"

#define ROUTES_PHANTOM_HEX 64
#define ROUTES_SECRET_MAX 16384 // the gateway's scrubber's longest needle
#define ROUTES_FD_MIN 10 // out of the way of 0-2 and of the 3 a child gets

/* One table's credential: env:// holds one name and phantom; aws:// two
 * (the key id's and the secret key's), and the key id and token. */
typedef struct routes_one {
    char *ro_env_name[2];
    char *ro_phantom[2];
    size_t ro_nphantoms;
    char *ro_secret; // wiped when freed
    size_t ro_secret_len;
    char *ro_key_id;
    char *ro_token; // wiped when freed
} routes_one;

struct box_routes {
    routes_one *rs_items;
    size_t rs_n;
    box_procspec_phantom *rs_phantoms;
    size_t rs_nphantoms;
    int rs_gw_fd, rs_sh_fd; // 0: none
};

static const char *
env_lookup(char *const *envp, const char *name)
{
    size_t n = strlen(name);
    for (char *const *e = envp; e != NULL && *e != NULL; e++)
        if (strncmp(*e, name, n) == 0 && (*e)[n] == '=')
            return *e + n + 1;
    return NULL;
}

/* prefix + 64 random hex digits: unguessable, and worthless anywhere but
 * at the gateway, which swaps it only on the table's destinations. */
static char *
routes_phantom(const char *prefix)
{
    unsigned char raw[ROUTES_PHANTOM_HEX / 2];
    size_t got = 0;
    while (got < sizeof raw) {
        ssize_t r = getrandom(raw + got, sizeof raw - got, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return NULL;
        got += (size_t)r;
    }
    size_t pl = strlen(prefix);
    char *out = box_alloc(pl + ROUTES_PHANTOM_HEX + 1);
    if (out == NULL)
        return NULL;
    memcpy(out, prefix, pl);
    static const char hex[] = "0123456789abcdef";
    for (size_t i = 0; i < sizeof raw; i++) {
        out[pl + 2 * i] = hex[raw[i] >> 4];
        out[pl + 2 * i + 1] = hex[raw[i] & 15];
    }
    out[pl + ROUTES_PHANTOM_HEX] = '\0';
    return out;
}

/* aws://PROFILE: the profile's key from the shared credentials file;
 * the sandboxes hold placeholders under the SDKs' own names. */
static box_err
routes_aws(const box_config_egress *eg, char *const *envp, routes_one *ro,
           char **err)
{
    box_awsprof prof = {0};
    box_err rv = box_awsprof_load(eg->eg_ref_name, env_lookup(envp, "HOME"),
                                  env_lookup(envp,
                                             "AWS_SHARED_CREDENTIALS_FILE"),
                                  &prof, err);
    if (rv != BOX_OK) {
        char *msg = box_asprintf("`%s`: %s", eg->eg_table,
                                 *err ? *err : "out of memory");
        box_free(*err);
        *err = msg;
        return rv == BOX_ENOMEM ? rv : BOX_ECONFIG;
    }
    static const char *const names[] = {"AWS_ACCESS_KEY_ID",
                                        "AWS_SECRET_ACCESS_KEY"};
    ro->ro_secret_len = strlen(prof.ap_secret);
    rv = BOX_ENOMEM;
    if ((ro->ro_secret = box_strdup(prof.ap_secret)) == NULL ||
        (ro->ro_key_id = box_strdup(prof.ap_key_id)) == NULL ||
        (prof.ap_token != NULL &&
         (ro->ro_token = box_strdup(prof.ap_token)) == NULL))
        goto out;
    for (size_t i = 0; i < 2; i++) {
        if ((ro->ro_env_name[i] = box_strdup(names[i])) == NULL ||
            (ro->ro_phantom[i] = routes_phantom(eg->eg_phantom_prefix)) ==
                NULL)
            goto out;
        ro->ro_nphantoms++;
    }
    rv = BOX_OK;
out:
    box_awsprof_free(&prof);
    return rv;
}

/* The secret of one table, or a message. */
static box_err
routes_secret(const box_config_egress *eg, char *const *envp, routes_one *ro,
              char **err)
{
    if (eg->eg_kind == BOX_SECRET_AWS)
        return routes_aws(eg, envp, ro, err);
    if (eg->eg_kind != BOX_SECRET_ENV) {
        *err = box_asprintf("`%s`: secret.ref credsd://%s needs the "
                            "credential daemon, which this build does not "
                            "run; use env://NAME or aws://PROFILE",
                            eg->eg_table, eg->eg_ref_name);
        return BOX_ECONFIG;
    }
    const char *v = env_lookup(envp, eg->eg_ref_name);
    const char *why = NULL;
    if (v == NULL || *v == '\0')
        why = "is not set in this environment";
    else if (strlen(v) > ROUTES_SECRET_MAX)
        why = "holds more than 16 KiB";
    for (const char *p = v; why == NULL && *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f)
            why = "holds a control character, which no request may carry";
    if (why != NULL) {
        *err = box_asprintf("`%s`: secret.ref env://%s names a variable that "
                            "%s",
                            eg->eg_table, eg->eg_ref_name, why);
        return BOX_ECONFIG;
    }
    ro->ro_secret_len = strlen(v);
    if ((ro->ro_secret = box_strdup(v)) == NULL ||
        (ro->ro_env_name[0] = box_strdup(eg->eg_ref_name)) == NULL ||
        (ro->ro_phantom[0] = routes_phantom(eg->eg_phantom_prefix)) == NULL)
        return BOX_ENOMEM;
    ro->ro_nphantoms = 1;
    return BOX_OK;
}

static Box__RoutePlacement
routes_placement(const box_config_egress *eg)
{
    if (eg->eg_kind != BOX_SECRET_ENV)
        return BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_SIGV4;
    box_config_placement p = eg->eg_placement;
    switch (p) {
    case BOX_PLACE_HEADER:
        return BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_HEADER;
    case BOX_PLACE_BASIC_AUTH:
        return BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_BASIC_AUTH;
    case BOX_PLACE_QUERY_PARAM:
        return BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_QUERY_PARAM;
    }
    return BOX__ROUTE_PLACEMENT__ROUTE_PLACEMENT_UNSPECIFIED;
}

/* A sealed memory file holding buf, at a descriptor >= ROUTES_FD_MIN. */
static int
routes_memfd(const uint8_t *buf, size_t n)
{
    int fd = memfd_create("box-routes", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        return -1;
    size_t off = 0;
    while (off < n) {
        ssize_t w = write(fd, buf + off, n - off);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            goto fail;
        off += (size_t)w;
    }
    if (lseek(fd, 0, SEEK_SET) != 0 ||
        fcntl(fd, F_ADD_SEALS,
              F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
        goto fail;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, ROUTES_FD_MIN);
    close(fd);
    return high;
fail:
    close(fd);
    return -1;
}

/* The message for one reader: with the secrets (the gateway) or not. */
static int
routes_file(const box_config *cfg, const box_routes *rs, bool secrets)
{
    size_t n = rs->rs_n;
    Box__EgressRoute *msgs = box_calloc(n, sizeof *msgs);
    Box__EgressRoute **ptrs = box_calloc(n, sizeof *ptrs);
    uint8_t *buf = NULL;
    size_t len = 0;
    int fd = -1;
    if (msgs == NULL || ptrs == NULL)
        goto out;
    for (size_t i = 0; i < n; i++) {
        const box_config_egress *eg = box_config_egress_get(cfg, i);
        routes_one *ro = &rs->rs_items[i];
        Box__EgressRoute *m = &msgs[i];
        box__egress_route__init(m);
        m->name = eg->eg_label;
        m->n_destinations = eg->eg_destinations.sv_len;
        m->destinations = eg->eg_destinations.sv_items;
        m->placement = routes_placement(eg);
        m->header = eg->eg_header ? eg->eg_header : (char *)"";
        m->prefix = eg->eg_prefix ? eg->eg_prefix : (char *)"";
        m->param = eg->eg_param ? eg->eg_param : (char *)"";
        m->always = eg->eg_always;
        m->n_env_names = m->n_phantoms = ro->ro_nphantoms;
        m->env_names = ro->ro_env_name;
        m->phantoms = ro->ro_phantom;
        if (secrets) {
            m->secret.data = (uint8_t *)ro->ro_secret;
            m->secret.len = ro->ro_secret_len;
            m->access_key_id = ro->ro_key_id ? ro->ro_key_id : (char *)"";
            m->session_token.data = (uint8_t *)ro->ro_token;
            m->session_token.len = ro->ro_token ? strlen(ro->ro_token) : 0;
        }
        ptrs[i] = m;
    }
    Box__EgressRoutes all = BOX__EGRESS_ROUTES__INIT;
    all.n_routes = n;
    all.routes = ptrs;
    len = box__egress_routes__get_packed_size(&all);
    if ((buf = box_alloc(len ? len : 1)) == NULL)
        goto out;
    box__egress_routes__pack(&all, buf);
    fd = routes_memfd(buf, len);
out:
    if (buf != NULL)
        OPENSSL_cleanse(buf, len);
    box_free(buf);
    box_free(msgs);
    box_free(ptrs);
    return fd;
}

box_err
box_routes_make(const box_config *cfg, char *const *envp, box_routes **out,
                char **err)
{
    *out = NULL;
    *err = NULL;
    box_routes *rs = box_calloc(1, sizeof *rs);
    if (rs == NULL)
        return BOX_ENOMEM;
    box_err rv = BOX_OK;
    size_t n = box_config_egress_count(cfg);
    if (n == 0)
        goto done;
    if ((rs->rs_items = box_calloc(n, sizeof *rs->rs_items)) == NULL ||
        (rs->rs_phantoms = box_calloc(2 * n, sizeof *rs->rs_phantoms)) ==
            NULL) {
        rv = BOX_ENOMEM;
        goto fail;
    }
    for (size_t i = 0; i < n; i++) {
        rs->rs_n++; // freed with the rest whatever it holds
        routes_one *ro = &rs->rs_items[i];
        rv = routes_secret(box_config_egress_get(cfg, i), envp, ro, err);
        if (rv != BOX_OK)
            goto fail;
        for (size_t k = 0; k < ro->ro_nphantoms; k++)
            rs->rs_phantoms[rs->rs_nphantoms++] = (box_procspec_phantom){
                .ph_name = ro->ro_env_name[k], .ph_value = ro->ro_phantom[k]};
    }
    if ((rs->rs_gw_fd = routes_file(cfg, rs, true)) < 0 ||
        (rs->rs_sh_fd = routes_file(cfg, rs, false)) < 0) {
        *err = box_asprintf("cannot hand the credential routes to the "
                            "services: %s",
                            strerror(errno));
        rv = BOX_EIO;
        goto fail;
    }
done:
    *out = rs;
    return BOX_OK;
fail:
    if (rv == BOX_ENOMEM && *err == NULL)
        *err = box_strdup("out of memory");
    box_routes_free(rs);
    return rv;
}

int
box_routes_gateway_fd(const box_routes *r)
{
    return r != NULL && r->rs_gw_fd > 0 ? r->rs_gw_fd : 0;
}

int
box_routes_shell_fd(const box_routes *r)
{
    return r != NULL && r->rs_sh_fd > 0 ? r->rs_sh_fd : 0;
}

void
box_routes_close_files(box_routes *r)
{
    if (r == NULL)
        return;
    if (r->rs_gw_fd > 0)
        close(r->rs_gw_fd);
    if (r->rs_sh_fd > 0)
        close(r->rs_sh_fd);
    r->rs_gw_fd = r->rs_sh_fd = 0;
}

const box_procspec_phantom *
box_routes_phantoms(const box_routes *r, size_t *n)
{
    *n = r != NULL ? r->rs_nphantoms : 0;
    return r != NULL ? r->rs_phantoms : NULL;
}

void
box_routes_free(box_routes *r)
{
    if (r == NULL)
        return;
    box_routes_close_files(r);
    for (size_t i = 0; i < r->rs_n; i++) {
        routes_one *ro = &r->rs_items[i];
        if (ro->ro_secret != NULL)
            OPENSSL_cleanse(ro->ro_secret, ro->ro_secret_len);
        box_free(ro->ro_secret);
        if (ro->ro_token != NULL)
            OPENSSL_cleanse(ro->ro_token, strlen(ro->ro_token));
        box_free(ro->ro_token);
        box_free(ro->ro_key_id);
        for (size_t k = 0; k < 2; k++) {
            box_free(ro->ro_env_name[k]);
            box_free(ro->ro_phantom[k]);
        }
    }
    box_free(r->rs_items);
    box_free(r->rs_phantoms);
    box_free(r);
}
