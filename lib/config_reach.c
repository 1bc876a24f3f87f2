/* SPDX-License-Identifier: Apache-2.0 */
/* Refuses grants that reach box.toml, the policy or the box dir (§5). */
#include "config_reach.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"

typedef struct cfg_ident {
    dev_t id_dev;
    ino_t id_ino;
} cfg_ident;

/* A directory's identity and its ancestors': ch_ids[0] is the directory,
 * then its parent, and so on up to "/". */
typedef struct cfg_chain {
    cfg_ident *ch_ids;
    size_t ch_len;
} cfg_chain;

/* ORDER CFG_ANCHOR: anchor_text follows it; on a tie between two anchors
 * the earlier one names the refusal. */
enum cfg_anchor_kind {
    ANCHOR_CONFIG,
    ANCHOR_POLICY,
    ANCHOR_BOX_DIR,
    ANCHOR_PROGRAMS, // writes only: reading or running them is harmless
    ANCHOR_COUNT
};

/* One thing no grant may reach. */
typedef struct cfg_anchor {
    bool an_set;      // false: nothing to guard (no policy named)
    char *an_name;    // as the message names it
    bool an_has_file; // an_file holds the authority file's identity
    cfg_ident an_file;
    bool an_has_dir; // an_up.ch_ids[0] is the guarded directory; false
                     // for a box dir not made yet (then its parent)
    cfg_chain an_up; // that directory and its ancestors
} cfg_anchor;

struct cfg_reach {
    cfg_anchor rc_anchor[ANCHOR_COUNT];
};

/* ORDER CFG_REL: how an entry stands to an anchor. */
enum cfg_rel {
    REL_FILE,   // is the authority file itself
    REL_AT,     // is the guarded directory
    REL_INSIDE, // lies below it
    REL_ABOVE,  // a write grant that holds it
    REL_COUNT
};

/* The words of each refusal: "<entry> <rel> <what> <name>; <why>". */
static const struct {
    const char *at_what;
    const char *at_rel[REL_COUNT];
    const char *at_why_reach; // REL_FILE, REL_AT, REL_INSIDE
    const char *at_why_above; // REL_ABOVE
} anchor_text[ANCHOR_COUNT] = {
    [ANCHOR_CONFIG] =
        {
            "the configuration file",
            {"is", "is the directory of", "lies inside the directory of",
             "contains the directory of"},
            "no grant may reach the files that decide what the box allows",
            "a write grant there could replace that file and so change what "
            "the box allows",
        },
    [ANCHOR_POLICY] =
        {
            "the policy file",
            {"is", "is the directory of", "lies inside the directory of",
             "contains the directory of"},
            "no grant may reach the files that decide what the box allows",
            "a write grant there could replace that file and so change what "
            "the box allows",
        },
    [ANCHOR_BOX_DIR] =
        {
            "the box directory",
            {"is", "is", "lies inside", "contains"},
            "no grant may reach the box's own trusted state",
            "a write grant there could replace the box's own trusted state",
        },
    [ANCHOR_PROGRAMS] =
        {
            "the directory of the box's programs",
            {"is", "is", "lies inside", "contains"},
            "a write grant there could replace box-contain or a service, "
            "which run outside every sandbox",
            "a write grant there could replace box-contain or a service, "
            "which run outside every sandbox",
        },
};

static bool
ident_eq(const cfg_ident *a, const cfg_ident *b)
{
    return a->id_dev == b->id_dev && a->id_ino == b->id_ino;
}

/* The index of id in c, or c->ch_len. */
static size_t
chain_find(const cfg_chain *c, const cfg_ident *id)
{
    size_t i = 0;
    while (i < c->ch_len && !ident_eq(&c->ch_ids[i], id))
        i++;
    return i;
}

/* Fills *out from canon (an absolute path without `.`, `..` or links,
 * as realpath gives it). Returns 0 or an errno value. */
static int
chain_make(const char *canon, cfg_chain *out)
{
    size_t n = 1;
    int e = 0;
    char *buf = box_strdup(canon);
    for (const char *p = canon; *p != '\0'; p++)
        n += *p == '/';
    out->ch_len = 0;
    out->ch_ids = box_calloc(n, sizeof(*out->ch_ids));
    if (buf == NULL || out->ch_ids == NULL) {
        e = ENOMEM;
        goto out;
    }
    for (;;) {
        struct stat st;
        if (stat(buf, &st) != 0) {
            e = errno;
            goto out;
        }
        out->ch_ids[out->ch_len].id_dev = st.st_dev;
        out->ch_ids[out->ch_len].id_ino = st.st_ino;
        out->ch_len++;
        char *slash = strrchr(buf, '/');
        if (slash == NULL || (slash == buf && buf[1] == '\0'))
            break;
        slash[slash == buf] = '\0'; // keep "/" itself
    }
out:
    box_free(buf);
    return e;
}

/* The directory part of p, as written: trailing slashes and the last
 * component dropped ("/" for "/x"). NULL when out of memory. */
static char *
path_parent(const char *p)
{
    size_t len = strlen(p);
    while (len > 1 && p[len - 1] == '/')
        len--;
    while (len > 0 && p[len - 1] != '/')
        len--;
    while (len > 1 && p[len - 1] == '/')
        len--;
    return len == 0 ? box_strdup(".") : box_strndup(p, len);
}

/*
 * Resolves one anchor: path is the authority file (is_file) or the box
 * directory. A path that does not resolve falls back to its parent: the
 * file or directory may be made there later. Returns 0, ENOENT when
 * neither resolves (nothing to guard), or an errno value.
 */
static int
anchor_open(cfg_anchor *an, const char *path, bool is_file)
{
    char canon[PATH_MAX];
    struct stat st;
    char *parent = NULL;
    int e = 0;
    bool found = realpath(path, canon) != NULL;

    if (!found) {
        if ((parent = path_parent(path)) == NULL)
            return ENOMEM;
        if (realpath(parent, canon) == NULL) {
            e = errno;
            goto out;
        }
    } else if (is_file) {
        if (stat(canon, &st) != 0) {
            e = errno;
            goto out;
        }
        an->an_has_file = true;
        an->an_file.id_dev = st.st_dev;
        an->an_file.id_ino = st.st_ino;
        char *slash = strrchr(canon, '/');
        slash[slash == canon] = '\0'; // realpath's result has one
    }
    // An authority file's directory is guarded even when the file is
    // missing; a box directory not made yet guards only its parent.
    an->an_has_dir = is_file || found;
    if ((e = chain_make(canon, &an->an_up)) != 0)
        goto out;
    if ((an->an_name = box_strdup(path)) == NULL) {
        e = ENOMEM;
        goto out;
    }
    an->an_set = true;
out:
    box_free(parent);
    return e;
}

void
cfg_reach_free(cfg_reach *r)
{
    if (r == NULL)
        return;
    for (int k = 0; k < ANCHOR_COUNT; k++) {
        box_free(r->rc_anchor[k].an_name);
        box_free(r->rc_anchor[k].an_up.ch_ids);
    }
    box_free(r);
}

box_err
cfg_reach_open(const char *config, const char *policy, const char *box_dir,
               const char *programs, cfg_reach **out, char **why)
{
    const char *paths[ANCHOR_COUNT] = {
        [ANCHOR_CONFIG] = config,
        [ANCHOR_POLICY] = policy,
        [ANCHOR_BOX_DIR] = box_dir,
        [ANCHOR_PROGRAMS] = programs,
    };
    cfg_reach *r = box_calloc(1, sizeof(*r));
    box_err rv = BOX_ENOMEM;

    *out = NULL;
    *why = NULL;
    if (r == NULL)
        goto out;
    for (int k = 0; k < ANCHOR_COUNT; k++) {
        if (paths[k] == NULL)
            continue;
        int e = anchor_open(&r->rc_anchor[k], paths[k],
                            k == ANCHOR_CONFIG || k == ANCHOR_POLICY);
        if (e == ENOENT || e == ENOTDIR)
            continue; // nothing there to reach
        if (e == ENOMEM)
            goto out;
        if (e != 0) {
            *why = box_asprintf("cannot tell what reaches %s %s: %s",
                                anchor_text[k].at_what, paths[k], strerror(e));
            rv = *why != NULL ? BOX_EIO : BOX_ENOMEM;
            goto out;
        }
    }
    *out = r;
    r = NULL;
    rv = BOX_OK;
out:
    cfg_reach_free(r);
    return rv;
}

/* The anchor and relation an entry (chain e) has, nearest first: the
 * entry itself, then each ancestor; ties go to the earlier anchor. A write
 * grant that reaches nothing that way is checked from above. Returns
 * false when it reaches nothing. */
static bool
reach_find(const cfg_reach *r, const cfg_chain *e, bool write, int *kind,
           enum cfg_rel *rel)
{
    for (size_t i = 0; i < e->ch_len; i++) {
        for (int k = 0; k < ANCHOR_COUNT; k++) {
            const cfg_anchor *an = &r->rc_anchor[k];
            if (!an->an_set || (k == ANCHOR_PROGRAMS && !write))
                continue;
            if (i == 0 && an->an_has_file &&
                ident_eq(&e->ch_ids[0], &an->an_file)) {
                *kind = k;
                *rel = REL_FILE;
                return true;
            }
            if (an->an_has_dir &&
                ident_eq(&e->ch_ids[i], &an->an_up.ch_ids[0])) {
                *kind = k;
                *rel = i == 0 ? REL_AT : REL_INSIDE;
                return true;
            }
        }
    }
    if (!write)
        return false;
    size_t best = SIZE_MAX;
    for (int k = 0; k < ANCHOR_COUNT; k++) {
        const cfg_anchor *an = &r->rc_anchor[k];
        size_t j = an->an_set ? chain_find(&an->an_up, &e->ch_ids[0]) : 0;
        if (an->an_set && j < an->an_up.ch_len && j < best) {
            best = j;
            *kind = k;
            *rel = REL_ABOVE;
        }
    }
    return best != SIZE_MAX;
}

char *
cfg_reach_reason(const cfg_reach *r, box_config_grant g, const char *path,
                 box_err *rv)
{
    cfg_chain e = {0};
    char *reason = NULL;
    int kind;
    enum cfg_rel rel;

    *rv = BOX_OK;
    if (g == BOX_GRANT_DENY)
        return NULL; // a deny takes reach away
    int err = chain_make(path, &e);
    if (err == ENOMEM) {
        *rv = BOX_ENOMEM;
        goto out;
    }
    if (err != 0) {
        // Fail closed: an entry whose ancestry cannot be read might reach
        // anything.
        reason = box_asprintf("cannot tell whether %s reaches the box's "
                              "configuration, policy or box directory: %s",
                              path, strerror(err));
    } else if (reach_find(r, &e,
                          g == BOX_GRANT_WRITE || g == BOX_GRANT_WRITE_FILE,
                          &kind, &rel)) {
        reason =
            box_asprintf("%s %s %s %s; %s", path, anchor_text[kind].at_rel[rel],
                         anchor_text[kind].at_what, r->rc_anchor[kind].an_name,
                         rel == REL_ABOVE ? anchor_text[kind].at_why_above
                                          : anchor_text[kind].at_why_reach);
    } else {
        goto out;
    }
    if (reason == NULL)
        *rv = BOX_ENOMEM;
out:
    box_free(e.ch_ids);
    return reason;
}
