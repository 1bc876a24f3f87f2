/* SPDX-License-Identifier: Apache-2.0 */
/* User and group names, loaded once from the system's files. */
#include "sh_ids.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box_alloc.h"

#define IDS_MAX 65536 // entries kept per file; more is not a real system
#define IDS_LINE 1024 // longer lines are skipped

typedef struct ids_ent {
    uint32_t ie_id;
    size_t ie_line; // equal ids keep the file's order
    char *ie_name;
} ids_ent;

typedef struct ids_table {
    ids_ent *it_v;
    size_t it_n;
} ids_table;

/* Written once under pthread_once, read-only after: the worker's forks
 * inherit the tables the zygote loaded. */
static ids_table ids_users, ids_groups;
static pthread_once_t ids_once = PTHREAD_ONCE_INIT;

static int
ids_cmp(const void *a, const void *b)
{
    const ids_ent *x = a, *y = b;
    if (x->ie_id != y->ie_id)
        return x->ie_id < y->ie_id ? -1 : 1;
    return x->ie_line < y->ie_line ? -1 : x->ie_line > y->ie_line;
}

/* "name:x:ID:…" lines; the first name of an id wins, as getpwuid's. */
static void
ids_load(const char *path, ids_table *t)
{
    FILE *f = fopen(path, "re");
    if (f == NULL)
        return;
    char line[IDS_LINE];
    size_t cap = 0;
    while (t->it_n < IDS_MAX && fgets(line, sizeof line, f) != NULL) {
        char *c1 = strchr(line, ':');
        char *c2 = c1 != NULL ? strchr(c1 + 1, ':') : NULL;
        if (c2 == NULL || c1 == line)
            continue;
        char *end;
        unsigned long id = strtoul(c2 + 1, &end, 10);
        if (end == c2 + 1 || *end != ':' || id > UINT32_MAX)
            continue;
        if (t->it_n == cap) {
            size_t nc = cap ? cap * 2 : 64;
            ids_ent *nv = box_realloc(t->it_v, nc * sizeof *nv);
            if (nv == NULL)
                break;
            t->it_v = nv;
            cap = nc;
        }
        char *name = box_strndup(line, (size_t)(c1 - line));
        if (name == NULL)
            break;
        t->it_v[t->it_n] = (ids_ent){(uint32_t)id, t->it_n, name};
        t->it_n++;
    }
    fclose(f);
    if (t->it_n > 1)
        qsort(t->it_v, t->it_n, sizeof *t->it_v, ids_cmp);
}

static void
ids_load_all(void)
{
    ids_load("/etc/passwd", &ids_users);
    ids_load("/etc/group", &ids_groups);
}

void
sh_ids_init(void)
{
    pthread_once(&ids_once, ids_load_all);
}

static const char *
ids_find(const ids_table *t, uint32_t id)
{
    size_t lo = 0, hi = t->it_n;
    while (lo < hi) { // the first entry with ie_id >= id
        size_t mid = lo + (hi - lo) / 2;
        if (t->it_v[mid].ie_id < id)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < t->it_n && t->it_v[lo].ie_id == id ? t->it_v[lo].ie_name
                                                   : NULL;
}

const char *
sh_ids_user(uint32_t uid)
{
    sh_ids_init();
    return ids_find(&ids_users, uid);
}

const char *
sh_ids_group(uint32_t gid)
{
    sh_ids_init();
    return ids_find(&ids_groups, gid);
}
