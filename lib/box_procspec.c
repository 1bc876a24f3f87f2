/* SPDX-License-Identifier: Apache-2.0 */
/* ProcessSpec → box-contain: program lookup and filesystem arguments. */
#include "box_procspec.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"

box_err
box_argv_push(box_argv *av, const char *s)
{
    if (av->av_n + 2 > av->av_cap) {
        size_t cap = av->av_cap ? av->av_cap * 2 : 16;
        char **nv = box_realloc(av->av_v, cap * sizeof *nv);
        if (nv == NULL)
            return BOX_ENOMEM;
        av->av_v = nv;
        av->av_cap = cap;
    }
    if ((av->av_v[av->av_n] = box_strdup(s)) == NULL)
        return BOX_ENOMEM;
    av->av_v[++av->av_n] = NULL;
    return BOX_OK;
}

box_err
box_argv_pushf(box_argv *av, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *s = box_vasprintf(fmt, ap);
    va_end(ap);
    if (s == NULL)
        return BOX_ENOMEM;
    box_err rv = box_argv_push(av, s);
    box_free(s);
    return rv;
}

void
box_argv_free(box_argv *av)
{
    for (size_t i = 0; i < av->av_n; i++)
        box_free(av->av_v[i]);
    box_free(av->av_v);
    memset(av, 0, sizeof *av);
}

/* A regular file with an x bit: its canonical path and identity. */
static int
which_try(const char *path, char **canonical, dev_t *dev, ino_t *ino)
{
    char real[PATH_MAX];
    struct stat st;
    if (realpath(path, real) == NULL || stat(real, &st) != 0 ||
        !S_ISREG(st.st_mode) || (st.st_mode & 0111) == 0)
        return ENOENT;
    if ((*canonical = box_strdup(real)) == NULL)
        return ENOMEM;
    *dev = st.st_dev;
    *ino = st.st_ino;
    return 0;
}

int
box_which(const char *name, const char *path_list, char **canonical,
          dev_t *dev, ino_t *ino)
{
    *canonical = NULL;
    if (name == NULL || name[0] == '\0')
        return ENOENT;
    if (strchr(name, '/') != NULL)
        return which_try(name, canonical, dev, ino);
    if (path_list == NULL || path_list[0] == '\0')
        path_list = "/usr/bin:/bin";
    for (const char *p = path_list; *p != '\0';) {
        const char *e = strchr(p, ':');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        if (len > 0 && len < PATH_MAX) {
            char cand[PATH_MAX];
            int n = snprintf(cand, sizeof cand, "%.*s/%s", (int)len, p, name);
            if (n > 0 && (size_t)n < sizeof cand) {
                int err = which_try(cand, canonical, dev, ino);
                if (err != ENOENT)
                    return err;
            }
        }
        p += len + (e ? 1 : 0);
    }
    return ENOENT;
}

const char *
box_procspec_env(const box_config_process *pr, const char *name)
{
    for (size_t i = 0; pr != NULL && i < pr->pr_nenv; i++)
        if (strcmp(pr->pr_env[i].ev_name, name) == 0)
            return pr->pr_env[i].ev_value;
    return NULL;
}

char *
box_procspec_expand(const char *entry, const char *home)
{
    if (strcmp(entry, "~") == 0)
        return box_strdup(home);
    if (strncmp(entry, "~/", 2) == 0)
        return box_asprintf("%s/%s", home, entry + 2);
    return box_strdup(entry);
}

/* ORDER BOX_GRANT: the box-contain flag of each list. */
static const char *const procspec_flag[BOX_GRANT_COUNT] = {
    "--read",  "--write",    "--read-file", "--write-file",
    "--list",  "--metadata", "--exec",      "--deny",
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
