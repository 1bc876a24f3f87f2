/* SPDX-License-Identifier: Apache-2.0 */
/* Host program lookup (box-spec §3.4) and the path helpers it shares. */
#include "sh_spawn_int.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"

box_err
sp_strv_take(sp_strv *v, char *s)
{
    if (s == NULL)
        return BOX_ENOMEM;
    if (v->sv_n + 1 >= v->sv_cap) {
        size_t cap = v->sv_cap ? v->sv_cap * 2 : 16;
        char **n = box_realloc(v->sv_v, cap * sizeof *n);
        if (n == NULL) {
            box_free(s);
            return BOX_ENOMEM;
        }
        v->sv_v = n;
        v->sv_cap = cap;
    }
    v->sv_v[v->sv_n++] = s;
    v->sv_v[v->sv_n] = NULL;
    return BOX_OK;
}

box_err
sp_strv_add(sp_strv *v, const char *s)
{
    return sp_strv_take(v, box_strdup(s));
}

void
sp_strv_free(sp_strv *v)
{
    for (size_t i = 0; i < v->sv_n; i++)
        box_free(v->sv_v[i]);
    box_free(v->sv_v);
    v->sv_v = NULL;
    v->sv_n = v->sv_cap = 0;
}

char *
sp_join(const char *dir, const char *name)
{
    size_t n = strlen(dir);
    bool slash = n > 0 && dir[n - 1] == '/';
    return box_asprintf("%s%s%s", dir, slash ? "" : "/", name);
}

char *
sp_tilde(const char *entry, const char *home)
{
    if (home != NULL && entry[0] == '~' && entry[1] == '\0')
        return box_strdup(home);
    if (home != NULL && entry[0] == '~' && entry[1] == '/')
        return sp_join(home, entry + 2);
    return box_strdup(entry);
}

bool
sp_covers(const char *dir, const char *path)
{
    size_t n = strlen(dir);

    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (n == 1 && dir[0] == '/')
        return path[0] == '/';
    return strncmp(dir, path, n) == 0 && (path[n] == '\0' || path[n] == '/');
}

char *
sp_report(const char *path, const char *home)
{
    if (home != NULL && home[0] == '/' && strcmp(home, "/") != 0 &&
        sp_covers(home, path)) {
        size_t n = strlen(home);
        while (n > 1 && home[n - 1] == '/')
            n--;
        return box_asprintf("~%s", path + n);
    }
    return box_strdup(path);
}

int
sp_canon(const char *path, char **canon, struct stat *st)
{
    char buf[PATH_MAX];

    *canon = NULL;
    if (realpath(path, buf) == NULL)
        return errno;
    if (stat(buf, st) != 0)
        return errno;
    if ((*canon = box_strdup(buf)) == NULL)
        return ENOMEM;
    return 0;
}

bool
sp_runnable(const struct stat *st)
{
    return S_ISREG(st->st_mode) &&
           (st->st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) != 0;
}

void
sh_spawn_found_free(sh_spawn_found *f)
{
    box_free(f->sf_path);
    box_free(f->sf_argv0);
    f->sf_path = f->sf_argv0 = NULL;
    f->sf_dev = 0;
    f->sf_ino = 0;
}

/*
 * One candidate spelling: canonicalised, then judged on the canonical
 * file's own stat, so the identity recorded is the one that was checked.
 * Takes spelled. Returns 0, ENOENT (absent), EACCES (exists, not runnable)
 * or ENOMEM / ENAMETOOLONG.
 */
static int
sp_try(char *spelled, sh_spawn_found *out)
{
    struct stat st;
    char *canon = NULL;
    int rv;

    if (spelled == NULL)
        return ENOMEM;
    rv = sp_canon(spelled, &canon, &st);
    if (rv == ENOTDIR || rv == ELOOP)
        rv = ENOENT;
    if (rv == 0 && !sp_runnable(&st))
        rv = EACCES;
    if (rv == EACCES && canon == NULL)
        rv = ENOENT; // a search permission error: nothing we can run
    if (rv != 0) {
        box_free(canon);
        box_free(spelled);
        return rv;
    }
    out->sf_path = canon;
    out->sf_argv0 = spelled;
    out->sf_dev = st.st_dev;
    out->sf_ino = st.st_ino;
    return 0;
}

/*
 * The bare-name walk. Only absolute entries count: an empty entry is
 * skipped (§3.4), and a relative one would mean the agent's cwd, which the
 * trusted PATH never meant.
 */
static int
sp_walk(const char *search, const char *name, sh_spawn_found *out)
{
    const char *p = search, *end;

    if (p == NULL || p[0] == '\0')
        p = SH_SPAWN_DEFAULT_PATH;
    for (; *p != '\0'; p = *end == ':' ? end + 1 : end) {
        end = strchr(p, ':');
        if (end == NULL)
            end = p + strlen(p);
        if (end == p || p[0] != '/')
            continue;
        char *dir = box_strndup(p, (size_t)(end - p));
        if (dir == NULL)
            return ENOMEM;
        int rv = sp_try(sp_join(dir, name), out);
        box_free(dir);
        if (rv == 0 || rv == ENOMEM || rv == ENAMETOOLONG)
            return rv;
    }
    return ENOENT;
}

int
sh_spawn_locate(const char *trusted_path, const char *cwd, const char *word,
                sh_spawn_found *out)
{
    memset(out, 0, sizeof *out);
    if (word == NULL || word[0] == '\0')
        return ENOENT;
    if (strchr(word, '/') == NULL)
        return sp_walk(trusted_path, word, out);
    if (word[0] == '/')
        return sp_try(box_strdup(word), out);
    if (cwd == NULL || cwd[0] != '/')
        return ENOENT; // no absolute spelling to stand on
    return sp_try(sp_join(cwd, word), out);
}
