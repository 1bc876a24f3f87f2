/* SPDX-License-Identifier: Apache-2.0 */
/* Host program lookup (box-spec §3.4, the walk is box_which) and the
 * path helpers the selection shares. */
#include "sh_spawn_int.h"

#include <errno.h>
#include <string.h>

#include "box_alloc.h"

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

void
sh_spawn_found_free(sh_spawn_found *f)
{
    box_free(f->sf_path);
    box_free(f->sf_argv0);
    f->sf_path = f->sf_argv0 = NULL;
    f->sf_dev = 0;
    f->sf_ino = 0;
}

int
sh_spawn_locate(const char *trusted_path, const char *cwd, const char *word,
                sh_spawn_found *out)
{
    char *joined = NULL;
    int rv;

    memset(out, 0, sizeof *out);
    if (word == NULL || word[0] == '\0')
        return ENOENT;
    if (strchr(word, '/') != NULL && word[0] != '/') {
        if (cwd == NULL || cwd[0] != '/')
            return ENOENT; // no absolute spelling to stand on
        bool slash = cwd[strlen(cwd) - 1] == '/';
        if ((joined = box_asprintf("%s%s%s", cwd, slash ? "" : "/", word)) ==
            NULL)
            return ENOMEM;
    }
    rv = box_which_spelled(joined != NULL ? joined : word, trusted_path,
                           &out->sf_argv0, &out->sf_path, &out->sf_dev,
                           &out->sf_ino);
    box_free(joined);
    if (rv != 0)
        sh_spawn_found_free(out);
    return rv;
}
