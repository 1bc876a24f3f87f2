/* SPDX-License-Identifier: Apache-2.0 */
/* The in-memory file system: a node tree under one mutex, with caps. */
#include "sh_vfs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>

#include "box_alloc.h"

enum vdev { VDEV_NONE, VDEV_NULL, VDEV_ZERO, VDEV_RANDOM };

typedef struct vnode vnode;
struct vnode {
    uint64_t vn_ino;
    mode_t vn_mode;
    char *vn_name;
    vnode *vn_parent; // NULL for the root and for unlinked nodes
    vnode *vn_kids;   // directory entries, newest first
    vnode *vn_next;   // sibling
    uint8_t *vn_data;
    size_t vn_size, vn_cap;
    char *vn_link;
    enum vdev vn_dev;
    uint64_t vn_rdev; // a device's number, as Linux numbers it
    int vn_refs;  // open handles
    bool vn_busy; // mount point or ancestor of one
    struct timespec vn_atim, vn_mtim, vn_ctim;
};

struct sh_vfs {
    pthread_mutex_t v_lock;
    vnode *v_root;
    uint64_t v_next_ino;
    size_t v_inodes;
};

struct sh_vfs_file {
    sh_vfs *f_vfs;
    vnode *f_node;
    uint64_t f_off;
    int f_flags;
};

const char *
sh_vfs_strerror(int err)
{
    if (err == EFBIG)
        return "file too large for the in-memory file system (limit 10 MiB)";
    if (err == ENOSPC)
        return "too many files in the in-memory file system (limit 10000)";
    if (err == ESTALE)
        return "filesystem identity changed during effect admission";
    return strerror(err);
}

static struct timespec
now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return ts;
}

/* A change of content: modification and change times become now. */
static void
modified(vnode *n)
{
    n->vn_mtim = n->vn_ctim = now();
}

static vnode *
node_new(sh_vfs *v, const char *name, size_t len, mode_t mode)
{
    if (v->v_inodes >= SH_VFS_MAX_INODES)
        return NULL;
    vnode *n = box_calloc(1, sizeof *n);
    if (n == NULL)
        return NULL;
    if ((n->vn_name = box_strndup(name, len)) == NULL) {
        box_free(n);
        return NULL;
    }
    n->vn_ino = ++v->v_next_ino;
    n->vn_mode = mode;
    n->vn_atim = n->vn_mtim = n->vn_ctim = now();
    v->v_inodes++;
    return n;
}

static void
node_free(sh_vfs *v, vnode *n)
{
    vnode *k = n->vn_kids;
    while (k != NULL) {
        vnode *nx = k->vn_next;
        k->vn_parent = NULL;
        if (k->vn_refs == 0)
            node_free(v, k);
        k = nx;
    }
    box_free(n->vn_name);
    box_free(n->vn_data);
    box_free(n->vn_link);
    box_free(n);
    v->v_inodes--;
}

static void
attach(vnode *dir, vnode *n)
{
    n->vn_parent = dir;
    n->vn_next = dir->vn_kids;
    dir->vn_kids = n;
    modified(dir);
}

static void
detach(vnode *n)
{
    vnode **pp = &n->vn_parent->vn_kids;
    while (*pp != n)
        pp = &(*pp)->vn_next;
    *pp = n->vn_next;
    modified(n->vn_parent);
    n->vn_parent = NULL;
    n->vn_next = NULL;
}

static vnode *
child(vnode *dir, const char *name, size_t len)
{
    for (vnode *k = dir->vn_kids; k != NULL; k = k->vn_next)
        if (strlen(k->vn_name) == len && memcmp(k->vn_name, name, len) == 0)
            return k;
    return NULL;
}

/* Walks path to its parent directory; leaf and len name the last
 * component (empty for "/"). Intermediate links are not followed. */
static int
walk_parent(sh_vfs *v, const char *path, vnode **dir, const char **leaf,
            size_t *len)
{
    if (path[0] != '/')
        return EINVAL;
    vnode *d = v->v_root;
    const char *p = path;
    for (;;) {
        while (*p == '/')
            p++;
        const char *e = strchr(p, '/');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        const char *rest = p + l;
        while (*rest == '/')
            rest++;
        if (*rest == '\0') {
            *dir = d;
            *leaf = p;
            *len = l;
            return 0;
        }
        vnode *k = child(d, p, l);
        if (k == NULL)
            return ENOENT;
        if (!S_ISDIR(k->vn_mode))
            return ENOTDIR;
        d = k;
        p = rest;
    }
}

static int
check_ino(vnode *n, uint64_t expect)
{
    if (expect == 0)
        return 0;
    if (expect == SH_VFS_MISSING)
        return n == NULL ? 0 : ESTALE;
    return n != NULL && n->vn_ino == expect ? 0 : ESTALE;
}

/* Where a path lands: its directory, the node there (NULL when missing
 * under an existing directory) and the last component. */
typedef struct vloc {
    vnode *lc_dir;
    vnode *lc_node;
    const char *lc_leaf;
    size_t lc_len;
} vloc;

/* Looks path up (under the lock) and checks the expected identity. */
static int
locate(sh_vfs *v, const char *path, uint64_t expect_ino, vloc *lc)
{
    lc->lc_node = NULL;
    int err = walk_parent(v, path, &lc->lc_dir, &lc->lc_leaf, &lc->lc_len);
    if (err != 0)
        return err;
    lc->lc_node = lc->lc_len == 0 ? lc->lc_dir
                                  : child(lc->lc_dir, lc->lc_leaf, lc->lc_len);
    return check_ino(lc->lc_node, expect_ino);
}

/* The node that must be at path with the expected identity (ENOENT when
 * there is none). */
static int
find(sh_vfs *v, const char *path, uint64_t expect_ino, vnode **n)
{
    vloc lc;
    int err = locate(v, path, expect_ino, &lc);
    if (err == 0 && lc.lc_node == NULL)
        err = ENOENT;
    *n = lc.lc_node;
    return err;
}

static int
mk(sh_vfs *v, const char *path, mode_t mode, vnode **out)
{
    vloc lc;
    vnode *n;
    int err = locate(v, path, 0, &lc);
    if (err != 0)
        return err;
    if (lc.lc_node != NULL) // also "/" itself
        return EEXIST;
    if ((n = node_new(v, lc.lc_leaf, lc.lc_len, mode)) == NULL)
        return v->v_inodes >= SH_VFS_MAX_INODES ? ENOSPC : ENOMEM;
    attach(lc.lc_dir, n);
    if (out)
        *out = n;
    return 0;
}

int
sh_vfs_new(sh_vfs **out)
{
    static const struct {
        const char *path;
        mode_t mode;
        enum vdev dev;
        unsigned minor; // of major 1, Linux's memory devices
    } init[] = {
        {"/home", S_IFDIR | 0755, VDEV_NONE, 0},
        {"/home/lash", S_IFDIR | 0755, VDEV_NONE, 0},
        {"/tmp", S_IFDIR | 01777, VDEV_NONE, 0},
        {"/usr", S_IFDIR | 0755, VDEV_NONE, 0},
        {"/usr/bin", S_IFDIR | 0755, VDEV_NONE, 0},
        {"/bin", S_IFDIR | 0755, VDEV_NONE, 0},
        {"/dev", S_IFDIR | 0755, VDEV_NONE, 0},
        {"/dev/null", S_IFCHR | 0666, VDEV_NULL, 3},
        {"/dev/zero", S_IFCHR | 0666, VDEV_ZERO, 5},
        {"/dev/urandom", S_IFCHR | 0666, VDEV_RANDOM, 9},
        {"/dev/random", S_IFCHR | 0666, VDEV_RANDOM, 8},
    };
    sh_vfs *v = box_calloc(1, sizeof *v);
    if (v == NULL)
        return ENOMEM;
    pthread_mutex_init(&v->v_lock, NULL);
    if ((v->v_root = node_new(v, "", 0, S_IFDIR | 0755)) == NULL) {
        sh_vfs_free(v);
        return ENOMEM;
    }
    for (size_t i = 0; i < sizeof init / sizeof init[0]; i++) {
        vnode *n;
        int err = mk(v, init[i].path, init[i].mode, &n);
        if (err != 0) {
            sh_vfs_free(v);
            return err;
        }
        n->vn_dev = init[i].dev;
        n->vn_rdev = init[i].dev != VDEV_NONE ? makedev(1, init[i].minor) : 0;
    }
    *out = v;
    return 0;
}

void
sh_vfs_free(sh_vfs *v)
{
    if (v == NULL)
        return;
    if (v->v_root != NULL)
        node_free(v, v->v_root);
    pthread_mutex_destroy(&v->v_lock);
    box_free(v);
}

int
sh_vfs_mount_point(sh_vfs *v, const char *path)
{
    size_t len = strlen(path);
    char *p = box_strdup(path);
    if (p == NULL)
        return ENOMEM;
    int err = 0;
    pthread_mutex_lock(&v->v_lock);
    for (size_t i = 1; i <= len && err == 0; i++) {
        if (p[i] != '/' && p[i] != '\0')
            continue;
        char c = p[i];
        p[i] = '\0';
        vloc lc;
        err = locate(v, p, 0, &lc);
        vnode *n = lc.lc_node; // NULL on error
        if (err == 0 && n == NULL)
            err = mk(v, p, S_IFDIR | 0755, &n);
        if (err == 0 && !S_ISDIR(n->vn_mode))
            err = ENOTDIR;
        if (err == 0)
            n->vn_busy = true;
        p[i] = c;
    }
    pthread_mutex_unlock(&v->v_lock);
    box_free(p);
    return err;
}

int
sh_vfs_lstat(sh_vfs *v, const char *path, sh_vfs_stat *st)
{
    vnode *n;
    pthread_mutex_lock(&v->v_lock);
    int err = find(v, path, 0, &n);
    if (err == 0) {
        st->vs_ino = n->vn_ino;
        st->vs_mode = n->vn_mode;
        st->vs_size = n->vn_link ? strlen(n->vn_link) : n->vn_size;
        st->vs_atim = n->vn_atim;
        st->vs_mtim = n->vn_mtim;
        st->vs_ctim = n->vn_ctim;
        st->vs_rdev = n->vn_rdev;
    }
    pthread_mutex_unlock(&v->v_lock);
    return err;
}

int
sh_vfs_readlink(sh_vfs *v, const char *path, char **target)
{
    vnode *n;
    pthread_mutex_lock(&v->v_lock);
    int err = find(v, path, 0, &n);
    if (err == 0 && !S_ISLNK(n->vn_mode))
        err = EINVAL;
    if (err == 0 && (*target = box_strdup(n->vn_link)) == NULL)
        err = ENOMEM;
    pthread_mutex_unlock(&v->v_lock);
    return err;
}

int
sh_vfs_list(sh_vfs *v, const char *path, uint64_t expect_ino, char ***names,
            uint64_t **inos, size_t *count)
{
    vnode *n;
    char **out = NULL;
    uint64_t *iv = NULL;
    size_t cnt = 0;
    pthread_mutex_lock(&v->v_lock);
    int err = find(v, path, expect_ino, &n);
    if (err == 0 && !S_ISDIR(n->vn_mode))
        err = ENOTDIR;
    if (err == 0) {
        size_t total = 0;
        for (vnode *k = n->vn_kids; k != NULL; k = k->vn_next)
            total++;
        if ((out = box_calloc(total + 1, sizeof *out)) == NULL ||
            (inos != NULL && (iv = box_calloc(total + 1, sizeof *iv)) == NULL))
            err = ENOMEM;
        for (vnode *k = n->vn_kids; err == 0 && k != NULL; k = k->vn_next) {
            if ((out[cnt] = box_strdup(k->vn_name)) == NULL) {
                err = ENOMEM;
            } else {
                if (iv != NULL)
                    iv[cnt] = k->vn_ino;
                cnt++;
            }
        }
    }
    pthread_mutex_unlock(&v->v_lock);
    if (err != 0) {
        for (size_t i = 0; i < cnt; i++)
            box_free(out[i]);
        box_free(out);
        box_free(iv);
        return err;
    }
    *names = out;
    if (inos != NULL)
        *inos = iv;
    *count = cnt;
    return 0;
}

int
sh_vfs_mkdir(sh_vfs *v, const char *path, mode_t mode)
{
    pthread_mutex_lock(&v->v_lock);
    int err = mk(v, path, S_IFDIR | (mode & 07777), NULL);
    pthread_mutex_unlock(&v->v_lock);
    return err;
}

int
sh_vfs_symlink(sh_vfs *v, const char *target, const char *path)
{
    vnode *n = NULL;
    char *t = box_strdup(target);
    if (t == NULL)
        return ENOMEM;
    pthread_mutex_lock(&v->v_lock);
    int err = mk(v, path, S_IFLNK | 0777, &n);
    if (err == 0) {
        n->vn_link = t;
        t = NULL;
    }
    pthread_mutex_unlock(&v->v_lock);
    box_free(t);
    return err;
}

static void
drop(sh_vfs *v, vnode *n)
{
    detach(n);
    if (n->vn_refs == 0)
        node_free(v, n);
}

static int
remove_node(sh_vfs *v, const char *path, uint64_t expect_ino, bool isdir)
{
    vnode *n;
    pthread_mutex_lock(&v->v_lock);
    int err = find(v, path, expect_ino, &n);
    if (err == 0 && n == v->v_root)
        err = EBUSY;
    if (err == 0 && isdir && !S_ISDIR(n->vn_mode))
        err = ENOTDIR;
    if (err == 0 && !isdir && S_ISDIR(n->vn_mode))
        err = EISDIR;
    if (err == 0 && n->vn_busy)
        err = EBUSY;
    if (err == 0 && isdir && n->vn_kids != NULL)
        err = ENOTEMPTY;
    if (err == 0)
        drop(v, n);
    pthread_mutex_unlock(&v->v_lock);
    return err;
}

int
sh_vfs_unlink(sh_vfs *v, const char *path, uint64_t expect_ino)
{
    return remove_node(v, path, expect_ino, false);
}

int
sh_vfs_rmdir(sh_vfs *v, const char *path, uint64_t expect_ino)
{
    return remove_node(v, path, expect_ino, true);
}

int
sh_vfs_chmod(sh_vfs *v, const char *path, uint64_t expect_ino, mode_t mode)
{
    vnode *n;
    pthread_mutex_lock(&v->v_lock);
    int err = find(v, path, expect_ino, &n);
    if (err == 0) {
        n->vn_mode = (n->vn_mode & S_IFMT) | (mode & 07777);
        n->vn_ctim = now();
    }
    pthread_mutex_unlock(&v->v_lock);
    return err;
}

/* One time of utimensat(2)'s pair onto *dst. */
static void
set_time(struct timespec *dst, struct timespec t, struct timespec at)
{
    if (t.tv_nsec == UTIME_OMIT)
        return;
    *dst = t.tv_nsec == UTIME_NOW ? at : t;
}

/* Under the lock. */
static void
node_set_times(vnode *n, const struct timespec times[2])
{
    struct timespec at = now();
    set_time(&n->vn_atim, times[0], at);
    set_time(&n->vn_mtim, times[1], at);
    n->vn_ctim = at;
}

int
sh_vfs_set_times(sh_vfs *v, const char *path, uint64_t expect_ino,
                 const struct timespec times[2])
{
    vnode *n;
    pthread_mutex_lock(&v->v_lock);
    int err = find(v, path, expect_ino, &n);
    if (err == 0)
        node_set_times(n, times);
    pthread_mutex_unlock(&v->v_lock);
    return err;
}

/* POSIX rules for moving fn onto dst (under the lock): a file replaces a
 * file, a directory an empty directory; not into itself. */
static int
rename_check(sh_vfs *v, const vnode *fn, const vloc *dst)
{
    const vnode *tn = dst->lc_node;
    if (fn == v->v_root || dst->lc_len == 0)
        return EBUSY;
    if (fn->vn_busy || (tn != NULL && tn->vn_busy))
        return EBUSY;
    for (const vnode *a = dst->lc_dir; a != NULL; a = a->vn_parent)
        if (a == fn)
            return EINVAL; // into itself
    if (tn == NULL || tn == fn)
        return 0;
    if (S_ISDIR(fn->vn_mode) && !S_ISDIR(tn->vn_mode))
        return ENOTDIR;
    if (!S_ISDIR(fn->vn_mode) && S_ISDIR(tn->vn_mode))
        return EISDIR;
    if (S_ISDIR(tn->vn_mode) && tn->vn_kids != NULL)
        return ENOTEMPTY;
    return 0;
}

/* Moves fn to the checked dst, replacing what is there. */
static int
move(sh_vfs *v, vnode *fn, const vloc *dst)
{
    char *name = box_strndup(dst->lc_leaf, dst->lc_len);
    if (name == NULL)
        return ENOMEM;
    if (dst->lc_node != NULL)
        drop(v, dst->lc_node);
    detach(fn);
    box_free(fn->vn_name);
    fn->vn_name = name;
    attach(dst->lc_dir, fn);
    return 0;
}

int
sh_vfs_rename(sh_vfs *v, const char *from, uint64_t from_ino, const char *to,
              uint64_t to_ino)
{
    vnode *fn;
    vloc dst;
    pthread_mutex_lock(&v->v_lock);
    int err = find(v, from, from_ino, &fn);
    if (err == 0)
        err = locate(v, to, to_ino, &dst);
    if (err == 0)
        err = rename_check(v, fn, &dst);
    if (err == 0 && dst.lc_node != fn) // onto itself: nothing to do
        err = move(v, fn, &dst);
    pthread_mutex_unlock(&v->v_lock);
    return err;
}

/* The node an open reaches (under the lock), created if asked. */
static int
open_node(sh_vfs *v, const char *path, int flags, mode_t mode,
          uint64_t expect_ino, vnode **out)
{
    int acc = flags & O_ACCMODE;
    vloc lc;
    int err = locate(v, path, expect_ino, &lc);
    vnode *n = lc.lc_node;
    if (err != 0)
        return err;
    if (n != NULL && (flags & O_CREAT) && (flags & O_EXCL))
        return EEXIST;
    if (n == NULL && !(flags & O_CREAT))
        return ENOENT;
    if (n == NULL && (err = mk(v, path, S_IFREG | (mode & 0777), &n)) != 0)
        return err;
    if (S_ISLNK(n->vn_mode))
        return ELOOP;
    if (S_ISDIR(n->vn_mode) && acc != O_RDONLY)
        return EISDIR;
    if ((flags & O_TRUNC) && acc != O_RDONLY && S_ISREG(n->vn_mode)) {
        n->vn_size = 0;
        modified(n);
    }
    *out = n;
    return 0;
}

int
sh_vfs_open(sh_vfs *v, const char *path, int flags, mode_t mode,
            uint64_t expect_ino, sh_vfs_file **out)
{
    vnode *n;
    sh_vfs_file *f = box_calloc(1, sizeof *f);
    if (f == NULL)
        return ENOMEM;
    pthread_mutex_lock(&v->v_lock);
    int err = open_node(v, path, flags, mode, expect_ino, &n);
    if (err == 0) {
        n->vn_refs++;
        f->f_vfs = v;
        f->f_node = n;
        f->f_flags = flags;
    }
    pthread_mutex_unlock(&v->v_lock);
    if (err != 0) {
        box_free(f);
        return err;
    }
    *out = f;
    return 0;
}

mode_t
sh_vfs_file_type(const sh_vfs_file *f)
{
    return f->f_node->vn_mode & S_IFMT; // a node's type never changes
}

ssize_t
sh_vfs_read(sh_vfs_file *f, void *buf, size_t n)
{
    if ((f->f_flags & O_ACCMODE) == O_WRONLY)
        return -EBADF;
    sh_vfs *v = f->f_vfs;
    vnode *nd = f->f_node;
    ssize_t r;
    pthread_mutex_lock(&v->v_lock);
    if (S_ISDIR(nd->vn_mode)) {
        r = -EISDIR;
    } else if (nd->vn_dev == VDEV_NULL) {
        r = 0;
    } else if (nd->vn_dev == VDEV_ZERO) {
        memset(buf, 0, n);
        r = (ssize_t)n;
    } else if (nd->vn_dev == VDEV_RANDOM) {
        r = getrandom(buf, n, 0);
        if (r < 0)
            r = -errno;
    } else {
        size_t avail = f->f_off < nd->vn_size ? nd->vn_size - f->f_off : 0;
        size_t m = n < avail ? n : avail;
        if (m > 0)
            memcpy(buf, nd->vn_data + f->f_off, m);
        f->f_off += m;
        r = (ssize_t)m;
    }
    pthread_mutex_unlock(&v->v_lock);
    return r;
}


void
sh_vfs_touch(sh_vfs_file *f, const struct timespec times[2])
{
    sh_vfs *v = f->f_vfs;
    pthread_mutex_lock(&v->v_lock);
    node_set_times(f->f_node, times);
    pthread_mutex_unlock(&v->v_lock);
}

ssize_t
sh_vfs_write(sh_vfs_file *f, const void *buf, size_t n)
{
    if ((f->f_flags & O_ACCMODE) == O_RDONLY)
        return -EBADF;
    sh_vfs *v = f->f_vfs;
    vnode *nd = f->f_node;
    ssize_t r = (ssize_t)n;
    pthread_mutex_lock(&v->v_lock);
    if (nd->vn_dev != VDEV_NONE)
        goto out; // /dev/null and friends discard
    if (f->f_flags & O_APPEND)
        f->f_off = nd->vn_size;
    if (f->f_off > SH_VFS_MAX_FILE || n > SH_VFS_MAX_FILE - f->f_off) {
        r = -EFBIG;
        goto out;
    }
    size_t end = (size_t)f->f_off + n;
    if (end > nd->vn_cap) {
        size_t cap = nd->vn_cap ? nd->vn_cap : 256;
        while (cap < end)
            cap *= 2;
        if (cap > SH_VFS_MAX_FILE)
            cap = SH_VFS_MAX_FILE;
        uint8_t *d = box_realloc(nd->vn_data, cap);
        if (d == NULL) {
            r = -ENOMEM;
            goto out;
        }
        nd->vn_data = d;
        nd->vn_cap = cap;
    }
    if (f->f_off > nd->vn_size)
        memset(nd->vn_data + nd->vn_size, 0, f->f_off - nd->vn_size);
    memcpy(nd->vn_data + f->f_off, buf, n);
    f->f_off = end;
    if (end > nd->vn_size)
        nd->vn_size = end;
    modified(nd);
out:
    pthread_mutex_unlock(&v->v_lock);
    return r;
}

void
sh_vfs_close(sh_vfs_file *f)
{
    if (f == NULL)
        return;
    sh_vfs *v = f->f_vfs;
    pthread_mutex_lock(&v->v_lock);
    vnode *n = f->f_node;
    if (--n->vn_refs == 0 && n->vn_parent == NULL && n != v->v_root)
        node_free(v, n);
    pthread_mutex_unlock(&v->v_lock);
    box_free(f);
}

size_t
sh_vfs_inodes(sh_vfs *v)
{
    pthread_mutex_lock(&v->v_lock);
    size_t n = v->v_inodes;
    pthread_mutex_unlock(&v->v_lock);
    return n;
}

/* Under the lock: the bytes below n (an iterative walk: the tree may be
 * as deep as paths allow). */
static uint64_t
tree_bytes(const vnode *n)
{
    uint64_t sum = 0;
    const vnode *cur = n;
    while (cur != NULL) {
        sum += cur->vn_link ? strlen(cur->vn_link) : cur->vn_size;
        if (cur->vn_kids != NULL) {
            cur = cur->vn_kids;
            continue;
        }
        while (cur != n && cur->vn_next == NULL)
            cur = cur->vn_parent;
        cur = cur == n ? NULL : cur->vn_next;
    }
    return sum;
}

void
sh_vfs_usage(sh_vfs *v, uint64_t *bytes, uint64_t *inodes)
{
    pthread_mutex_lock(&v->v_lock);
    *bytes = tree_bytes(v->v_root);
    *inodes = v->v_inodes;
    pthread_mutex_unlock(&v->v_lock);
}
