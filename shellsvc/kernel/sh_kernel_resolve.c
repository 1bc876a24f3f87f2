/* SPDX-License-Identifier: Apache-2.0 */
/* Path resolution: binds walked one component at a time, links read by
 * hand, the rest in the in-memory file system. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "sh_kernel_int.h"

static const char escape_text[] = "symlink target escapes the bind mount";

/* Pending components, a stack; a NULL name is the end of a link target
 * read inside bind pe_bind (the walk must then be back inside it). */
typedef struct pend {
    char *pe_name;
    int pe_bind;
} pend;

typedef struct pstack {
    pend *ps_v;
    size_t ps_n, ps_cap;
} pstack;

static int
ps_push(pstack *s, char *name, int bind)
{
    if (s->ps_n == s->ps_cap) {
        size_t cap = s->ps_cap ? s->ps_cap * 2 : 16;
        pend *v = box_realloc(s->ps_v, cap * sizeof *v);
        if (v == NULL)
            return ENOMEM;
        s->ps_v = v;
        s->ps_cap = cap;
    }
    s->ps_v[s->ps_n].pe_name = name;
    s->ps_v[s->ps_n].pe_bind = bind;
    s->ps_n++;
    return 0;
}

static void
ps_free(pstack *s)
{
    for (size_t i = 0; i < s->ps_n; i++)
        box_free(s->ps_v[i].pe_name);
    box_free(s->ps_v);
}

static bool
ps_more(const pstack *s)
{
    for (size_t i = s->ps_n; i > 0; i--)
        if (s->ps_v[i - 1].pe_name != NULL)
            return true;
    return false;
}

/* Pushes the components of p so that the first pops first; a sentinel
 * for bind (>= 0) goes below them. */
static int
ps_push_path(pstack *s, const char *p, int bind)
{
    int err;
    if (bind >= 0 && (err = ps_push(s, NULL, bind)) != 0)
        return err;
    size_t len = strlen(p);
    size_t end = len;
    while (end > 0) {
        size_t st = end;
        while (st > 0 && p[st - 1] != '/')
            st--;
        size_t l = end - st;
        if (l > 0 && !(l == 1 && p[st] == '.')) {
            char *c = box_strndup(p + st, l);
            if (c == NULL)
                return ENOMEM;
            if ((err = ps_push(s, c, -1)) != 0) {
                box_free(c);
                return err;
            }
        }
        end = st > 0 ? st - 1 : 0;
    }
    return 0;
}

bool
sh_res_under(const char *p, const char *root, size_t rootlen)
{
    if (rootlen == 1 && root[0] == '/')
        return p[0] == '/';
    return strncmp(p, root, rootlen) == 0 &&
           (p[rootlen] == '\0' || p[rootlen] == '/');
}

int
sh_res_bind_of(const sh_kernel *k, const char *p)
{
    for (size_t i = 0; i < k->k_nbinds; i++)
        if (sh_res_under(p, k->k_binds[i].bd_root, k->k_binds[i].bd_len))
            return (int)i;
    return -1;
}

int
sh_res_open_dir(const sh_kernel *k, int b, const char *p)
{
    const sh_bind *bd = &k->k_binds[b];
    int fd = fcntl(bd->bd_fd, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return -1;
    const char *q = p + bd->bd_len;
    char name[NAME_MAX + 1];
    while (*q != '\0') {
        while (*q == '/')
            q++;
        size_t l = strcspn(q, "/");
        if (l == 0)
            break;
        if (l > NAME_MAX) {
            close(fd);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(name, q, l);
        name[l] = '\0';
        int nfd =
            openat(fd, name, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
        int e = errno;
        close(fd);
        if (nfd < 0) {
            errno = e == ELOOP ? ENOTDIR : e;
            return -1;
        }
        fd = nfd;
        q += l;
    }
    return fd;
}

void
sh_res_clear(sh_res *rs)
{
    box_free(rs->rs_canon);
    box_free(rs->rs_leaf);
    if (rs->rs_fd >= 0)
        close(rs->rs_fd);
    if (rs->rs_parent_fd >= 0)
        close(rs->rs_parent_fd);
    memset(rs, 0, sizeof *rs);
    rs->rs_fd = rs->rs_parent_fd = -1;
    rs->rs_bind = -1;
}

/* Records what is at the canonical path now in rs (the walk made canon
 * link-free up to a possibly missing tail). */
static int
finish(sh_kernel *k, sh_res *rs)
{
    const char *c = rs->rs_canon;
    const char *slash = strrchr(c, '/');
    if ((rs->rs_leaf = box_strdup(slash + 1)) == NULL)
        return ENOMEM;
    rs->rs_bind = sh_res_bind_of(k, c);
    rs->rs_vino = SH_VFS_MISSING;
    if (rs->rs_bind < 0) {
        sh_vfs_stat vs;
        int err = sh_vfs_lstat(k->k_vfs, c, &vs);
        if (err == 0) {
            rs->rs_exists = true;
            rs->rs_vino = vs.vs_ino;
            rs->rs_mode = vs.vs_mode;
        } else if (err != ENOENT && err != ENOTDIR) {
            return err;
        }
        return 0;
    }
    rs->rs_host = true;
    const sh_bind *bd = &k->k_binds[rs->rs_bind];
    struct stat st;
    if (strlen(c) == bd->bd_len) {
        if ((rs->rs_fd = fcntl(bd->bd_fd, F_DUPFD_CLOEXEC, 0)) < 0 ||
            fstat(rs->rs_fd, &st) != 0)
            return errno;
        rs->rs_exists = rs->rs_parent_exists = true;
        rs->rs_id.id_dev = st.st_dev;
        rs->rs_id.id_ino = st.st_ino;
        rs->rs_mode = st.st_mode;
        return 0;
    }
    size_t plen = (size_t)(slash - c);
    char *parent = box_strndup(c, plen);
    if (parent == NULL)
        return ENOMEM;
    rs->rs_parent_fd = sh_res_open_dir(k, rs->rs_bind, parent);
    int e = errno;
    box_free(parent);
    if (rs->rs_parent_fd < 0)
        return e == ENOENT || e == ENOTDIR ? 0 : e;
    if (fstat(rs->rs_parent_fd, &st) != 0)
        return errno;
    rs->rs_parent_exists = true;
    rs->rs_pid.id_dev = st.st_dev;
    rs->rs_pid.id_ino = st.st_ino;
    rs->rs_fd =
        openat(rs->rs_parent_fd, rs->rs_leaf, O_PATH | O_NOFOLLOW | O_CLOEXEC);
    if (rs->rs_fd < 0)
        return errno == ENOENT ? 0 : errno;
    if (fstat(rs->rs_fd, &st) != 0)
        return errno;
    rs->rs_exists = true;
    rs->rs_id.id_dev = st.st_dev;
    rs->rs_id.id_ino = st.st_ino;
    rs->rs_mode = st.st_mode;
    return 0;
}

/* Reads the link at candidate: host through fd, VFS by path. */
static int
read_link(sh_kernel *k, int fd, const char *vpath, char *buf, size_t n)
{
    if (fd >= 0) {
        ssize_t l = readlinkat(fd, "", buf, n - 1);
        if (l < 0)
            return errno;
        if ((size_t)l >= n - 1)
            return ENAMETOOLONG;
        buf[l] = '\0';
        return 0;
    }
    char *t = NULL;
    int err = sh_vfs_readlink(k->k_vfs, vpath, &t);
    if (err != 0)
        return err;
    size_t l = strlen(t);
    if (l >= n)
        err = ENAMETOOLONG;
    else
        memcpy(buf, t, l + 1);
    box_free(t);
    return err;
}

int
sh_res_resolve(sh_kernel *k, const char *cwd, const char *path, bool follow,
               sh_res *rs, const char **why)
{
    pstack st = {0};
    char canon[SH_KERNEL_MAX_PATH];
    char link[SH_KERNEL_MAX_PATH];
    size_t clen = 0;
    int cur_fd = -1, cur_bind = -1, hops = 0, err = 0;
    bool missing = false;

    memset(rs, 0, sizeof *rs);
    rs->rs_fd = rs->rs_parent_fd = -1;
    rs->rs_bind = -1;
    *why = NULL;
    canon[0] = '\0';
    if (path == NULL || path[0] == '\0') {
        err = ENOENT;
        goto out;
    }
    if (path[0] != '/' && (err = ps_push_path(&st, path, -1)) != 0)
        goto out;
    if (path[0] != '/' && (cwd == NULL || cwd[0] != '/')) {
        err = EINVAL;
        goto out;
    }
    if ((err = ps_push_path(&st, path[0] == '/' ? path : cwd, -1)) != 0)
        goto out;
    // (the cwd's components were pushed last, so they pop first)
    while (st.ps_n > 0) {
        pend e = st.ps_v[--st.ps_n];
        if (e.pe_name == NULL) {
            const sh_bind *bd = &k->k_binds[e.pe_bind];
            if (!sh_res_under(clen ? canon : "/", bd->bd_root, bd->bd_len)) {
                err = EACCES;
                *why = escape_text;
                goto out;
            }
            continue;
        }
        bool last = !ps_more(&st);
        if (strcmp(e.pe_name, "..") == 0) {
            box_free(e.pe_name);
            if (missing) {
                err = ENOENT;
                goto out;
            }
            while (clen > 0 && canon[clen - 1] != '/')
                clen--;
            if (clen > 0)
                clen--;
            canon[clen] = '\0';
            if (cur_fd >= 0)
                close(cur_fd);
            cur_fd = -1;
            cur_bind = sh_res_bind_of(k, clen ? canon : "/");
            if (cur_bind >= 0 &&
                (cur_fd = sh_res_open_dir(k, cur_bind, canon)) < 0) {
                err = errno;
                goto out;
            }
            continue;
        }
        size_t nl = strlen(e.pe_name);
        if (clen + 1 + nl >= sizeof canon) {
            box_free(e.pe_name);
            err = ENAMETOOLONG;
            goto out;
        }
        size_t prev = clen;
        canon[clen++] = '/';
        memcpy(canon + clen, e.pe_name, nl + 1);
        clen += nl;
        if (missing) {
            box_free(e.pe_name);
            continue;
        }
        int lfd = -1;
        mode_t mode = 0;
        if (cur_bind >= 0) {
            lfd = openat(cur_fd, e.pe_name, O_PATH | O_NOFOLLOW | O_CLOEXEC);
            struct stat sb;
            if (lfd < 0 && errno != ENOENT) {
                err = errno;
                box_free(e.pe_name);
                goto out;
            }
            if (lfd >= 0 && fstat(lfd, &sb) != 0) {
                err = errno;
                close(lfd);
                box_free(e.pe_name);
                goto out;
            }
            if (lfd < 0)
                missing = true;
            else
                mode = sb.st_mode;
        } else {
            int b = -1;
            for (size_t i = 0; i < k->k_nbinds; i++)
                if (strcmp(canon, k->k_binds[i].bd_root) == 0)
                    b = (int)i;
            if (b >= 0) {
                box_free(e.pe_name);
                if (cur_fd >= 0)
                    close(cur_fd);
                cur_bind = b;
                cur_fd = fcntl(k->k_binds[b].bd_fd, F_DUPFD_CLOEXEC, 0);
                if (cur_fd < 0) {
                    err = errno;
                    goto out;
                }
                continue;
            }
            sh_vfs_stat vs;
            int verr = sh_vfs_lstat(k->k_vfs, canon, &vs);
            if (verr == ENOENT)
                missing = true;
            else if (verr != 0) {
                err = verr;
                box_free(e.pe_name);
                goto out;
            } else
                mode = vs.vs_mode;
        }
        box_free(e.pe_name);
        if (missing)
            continue;
        if (S_ISLNK(mode) && (!last || follow)) {
            if (++hops > SH_KERNEL_MAX_HOPS) {
                if (lfd >= 0)
                    close(lfd);
                err = ELOOP;
                goto out;
            }
            err = read_link(k, lfd, canon, link, sizeof link);
            if (lfd >= 0)
                close(lfd);
            if (err != 0)
                goto out;
            clen = prev;
            canon[clen] = '\0';
            if ((err = ps_push_path(&st, link, cur_bind)) != 0)
                goto out;
            if (link[0] == '/') {
                clen = 0;
                canon[0] = '\0';
                if (cur_fd >= 0)
                    close(cur_fd);
                cur_fd = -1;
                cur_bind = -1;
            }
            continue;
        }
        if (!last && !S_ISDIR(mode)) {
            if (lfd >= 0)
                close(lfd);
            err = ENOTDIR;
            goto out;
        }
        if (lfd >= 0) {
            if (last) {
                close(lfd);
            } else {
                close(cur_fd);
                cur_fd = lfd;
            }
        }
    }
    if ((rs->rs_canon = box_strdup(clen ? canon : "/")) == NULL) {
        err = ENOMEM;
        goto out;
    }
    err = finish(k, rs);
out:
    if (cur_fd >= 0)
        close(cur_fd);
    ps_free(&st);
    if (err != 0)
        sh_res_clear(rs);
    return err;
}

int
sh_res_recheck(sh_kernel *k, const sh_res *rs)
{
    if (!rs->rs_host)
        return 0; // the VFS checks rs_vino under its lock
    struct stat st;
    if (rs->rs_parent_fd < 0) {
        if (!rs->rs_parent_exists)
            return 0; // nothing to act on; the act reports ENOENT
        return fstat(rs->rs_fd, &st) == 0 && st.st_dev == rs->rs_id.id_dev &&
                       st.st_ino == rs->rs_id.id_ino
                   ? 0
                   : ESTALE;
    }
    // The parent must still be at its canonical path.
    const char *slash = strrchr(rs->rs_canon, '/');
    char *parent = box_strndup(rs->rs_canon, (size_t)(slash - rs->rs_canon));
    if (parent == NULL)
        return ENOMEM;
    int pfd = sh_res_open_dir(k, rs->rs_bind, parent);
    box_free(parent);
    if (pfd < 0)
        return ESTALE;
    int r = fstat(pfd, &st);
    close(pfd);
    if (r != 0 || st.st_dev != rs->rs_pid.id_dev ||
        st.st_ino != rs->rs_pid.id_ino)
        return ESTALE;
    r = fstatat(rs->rs_parent_fd, rs->rs_leaf, &st, AT_SYMLINK_NOFOLLOW);
    if (!rs->rs_exists)
        return r != 0 && errno == ENOENT ? 0 : ESTALE;
    if (r != 0 || st.st_dev != rs->rs_id.id_dev ||
        st.st_ino != rs->rs_id.id_ino)
        return ESTALE;
    return 0;
}
