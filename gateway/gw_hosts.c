/* SPDX-License-Identifier: Apache-2.0 */
/* A hosts file read before DNS. */
#include "gw_hosts.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "box_alloc.h"
#include "box_buf.h"

#define HOSTS_FILE_MAX (1024 * 1024)
#define HOSTS_NAME_MAX 253

typedef struct hosts_entry {
    char *he_name;
    struct sockaddr_storage he_addr; // port 0
    socklen_t he_len;
} hosts_entry;

struct gw_hosts {
    hosts_entry *h_items;
    size_t h_n, h_cap;
};

void
gw_hosts_free(gw_hosts *h)
{
    if (h == NULL)
        return;
    for (size_t i = 0; i < h->h_n; i++)
        box_free(h->h_items[i].he_name);
    box_free(h->h_items);
    box_free(h);
}

/* addr as a socket address (port 0); false when it is not an address. */
static bool
hosts_addr(const char *addr, struct sockaddr_storage *out, socklen_t *len)
{
    memset(out, 0, sizeof *out);
    struct sockaddr_in *in = (struct sockaddr_in *)out;
    struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)out;
    if (inet_pton(AF_INET, addr, &in->sin_addr) == 1) {
        in->sin_family = AF_INET;
        *len = sizeof *in;
        return true;
    }
    if (inet_pton(AF_INET6, addr, &in6->sin6_addr) == 1) {
        in6->sin6_family = AF_INET6;
        *len = sizeof *in6;
        return true;
    }
    return false;
}

/* A name as net:connect sees it, in place; false when it cannot be one. */
static bool
hosts_name(char *s)
{
    size_t n = strlen(s);
    if (n > 0 && s[n - 1] == '.')
        s[--n] = '\0';
    if (n == 0 || n > HOSTS_NAME_MAX)
        return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!isalnum(c) && c != '-' && c != '.' && c != '_')
            return false;
        s[i] = (char)tolower(c);
    }
    return true;
}

static box_err
hosts_add(gw_hosts *h, const char *name, const struct sockaddr_storage *a,
          socklen_t len)
{
    if (h->h_n == h->h_cap) {
        size_t cap = h->h_cap ? 2 * h->h_cap : 8;
        hosts_entry *p = box_realloc(h->h_items, cap * sizeof *p);
        if (p == NULL)
            return BOX_ENOMEM;
        h->h_items = p;
        h->h_cap = cap;
    }
    hosts_entry *e = &h->h_items[h->h_n];
    if ((e->he_name = box_strdup(name)) == NULL)
        return BOX_ENOMEM;
    e->he_addr = *a;
    e->he_len = len;
    h->h_n++;
    return BOX_OK;
}

box_err
gw_hosts_parse(const char *text, size_t len, const char *name, gw_hosts **out,
               char **err)
{
    *out = NULL;
    *err = NULL;
    gw_hosts *h = box_calloc(1, sizeof *h);
    char *copy = box_alloc(len + 1);
    box_err rv = BOX_ENOMEM;
    if (h == NULL || copy == NULL)
        goto fail;
    memcpy(copy, text, len);
    copy[len] = '\0';
    if (memchr(text, '\0', len) != NULL) {
        *err = box_asprintf("%s: a NUL byte", name);
        rv = BOX_EINVAL;
        goto fail;
    }
    unsigned lineno = 0;
    char *save = NULL;
    for (char *line = copy; line != NULL; line = save) {
        lineno++;
        save = strchr(line, '\n');
        if (save != NULL)
            *save++ = '\0';
        char *hash = strchr(line, '#');
        if (hash != NULL)
            *hash = '\0';
        char *tok_save = NULL;
        char *addr = strtok_r(line, " \t\r", &tok_save);
        if (addr == NULL)
            continue;
        struct sockaddr_storage a;
        socklen_t alen;
        const char *why = NULL;
        char *host = strtok_r(NULL, " \t\r", &tok_save);
        if (!hosts_addr(addr, &a, &alen))
            why = "is not an IPv4 or IPv6 address";
        else if (host == NULL)
            why = "names no host";
        for (; why == NULL && host != NULL;
             host = strtok_r(NULL, " \t\r", &tok_save)) {
            if (!hosts_name(host))
                why = "names a host that is not a DNS name";
            else if ((rv = hosts_add(h, host, &a, alen)) != BOX_OK)
                goto fail;
        }
        if (why != NULL) {
            *err = box_asprintf("%s: line %u: %s %s", name, lineno, addr, why);
            rv = BOX_EINVAL;
            goto fail;
        }
    }
    box_free(copy);
    *out = h;
    return BOX_OK;
fail:
    if (rv == BOX_ENOMEM && *err == NULL)
        *err = box_strdup("out of memory");
    box_free(copy);
    gw_hosts_free(h);
    return rv;
}

box_err
gw_hosts_load(const char *path, gw_hosts **out, char **err)
{
    *out = NULL;
    *err = NULL;
    FILE *fp = fopen(path, "re");
    if (fp == NULL) {
        *err = box_asprintf("cannot read the hosts file %s: %s", path,
                            strerror(errno));
        return BOX_EIO;
    }
    box_buf b;
    box_buf_init(&b, HOSTS_FILE_MAX);
    box_err rv = BOX_OK;
    char chunk[4096];
    size_t n;
    while (rv == BOX_OK && (n = fread(chunk, 1, sizeof chunk, fp)) > 0)
        rv = box_buf_append(&b, chunk, n);
    bool bad = ferror(fp) != 0;
    fclose(fp);
    if (rv != BOX_OK || bad) {
        *err = box_asprintf("cannot read the hosts file %s: %s", path,
                            bad ? "read error" : "larger than 1 MiB");
        box_buf_reset(&b);
        return BOX_EIO;
    }
    rv = gw_hosts_parse(b.b_data ? b.b_data : "", b.b_len, path, out, err);
    box_buf_reset(&b);
    return rv;
}

size_t
gw_hosts_find(const gw_hosts *h, const char *name, unsigned port,
              struct sockaddr_storage *out, socklen_t *lens, size_t max)
{
    size_t k = 0;
    for (size_t i = 0; h != NULL && i < h->h_n && k < max; i++) {
        if (strcmp(h->h_items[i].he_name, name) != 0)
            continue;
        out[k] = h->h_items[i].he_addr;
        lens[k] = h->h_items[i].he_len;
        if (out[k].ss_family == AF_INET)
            ((struct sockaddr_in *)&out[k])->sin_port = htons((uint16_t)port);
        else
            ((struct sockaddr_in6 *)&out[k])->sin6_port =
                htons((uint16_t)port);
        k++;
    }
    return k;
}
