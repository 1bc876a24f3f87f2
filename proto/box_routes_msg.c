/* SPDX-License-Identifier: Apache-2.0 */
/* Reading the credential routes from an inherited descriptor. */
#include "box_routes_msg.h"

#include <errno.h>
#include <openssl/crypto.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"

box_err
box_routes_msg_read(int fd, Box__EgressRoutes **out, char **err)
{
    *out = NULL;
    *err = NULL;
    box_buf b;
    box_buf_init(&b, BOX_ROUTES_MSG_MAX);
    box_err rv = BOX_OK;
    for (;;) {
        if ((rv = box_buf_reserve(&b, 4096)) != BOX_OK) {
            *err = box_strdup("the credential routes are larger than 1 MiB");
            goto out;
        }
        ssize_t r = read(fd, b.b_data + b.b_len, 4096);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            *err = box_asprintf("cannot read the credential routes: %s",
                                strerror(errno));
            rv = BOX_EIO;
            goto out;
        }
        if (r == 0)
            break;
        b.b_len += (size_t)r;
    }
    *out = box__egress_routes__unpack(NULL, b.b_len, (const uint8_t *)b.b_data);
    if (*out == NULL) {
        *err = box_strdup("the credential routes are not an EgressRoutes "
                          "message");
        rv = BOX_EPROTO;
    }
out:
    if (b.b_data != NULL)
        OPENSSL_cleanse(b.b_data, b.b_len);
    box_buf_reset(&b);
    return rv;
}

void
box_routes_msg_free(Box__EgressRoutes *m)
{
    if (m == NULL)
        return;
    for (size_t i = 0; i < m->n_routes; i++) {
        Box__EgressRoute *r = m->routes[i];
        OPENSSL_cleanse(r->secret.data, r->secret.len);
        OPENSSL_cleanse(r->session_token.data, r->session_token.len);
    }
    box__egress_routes__free_unpacked(m, NULL);
}
