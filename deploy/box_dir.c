/* SPDX-License-Identifier: Apache-2.0 */
/* Creates and locks the box directory, keeps the box id and run record. */
#include "box_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"

struct box_dir {
    char *bd_path;
    char bd_id[4 + 16 + 1]; // "box-" + 16 hex
    int bd_lock_fd;
};

static const char *const box_dir_subdirs[] = {
    "bin", "run", "trust", "private", "private/telemetry", "private/history",
};

/* Reads a small file into buf (NUL-terminated); false if absent/empty. */
static bool
dir_read_small(int dirfd, const char *name, char *buf, size_t n)
{
    int fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        return false;
    ssize_t r = read(fd, buf, n - 1);
    close(fd);
    if (r <= 0)
        return false;
    buf[r] = '\0';
    while (r > 0 && (buf[r - 1] == '\n'))
        buf[--r] = '\0';
    return r > 0;
}

/* Replaces a small file atomically (write a temp file, rename). */
static box_err
dir_write_small(int dirfd, const char *name, const char *text)
{
    char tmp[256];
    const char *slash = strrchr(name, '/');
    // The temporary file sits beside the target: "dir/.base.tmp".
    snprintf(tmp, sizeof tmp, "%.*s.%s.tmp",
             slash ? (int)(slash - name + 1) : 0, name,
             slash ? slash + 1 : name);
    int fd =
        openat(dirfd, tmp,
               O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0)
        return BOX_EIO;
    size_t n = strlen(text);
    bool ok = write(fd, text, n) == (ssize_t)n && write(fd, "\n", 1) == 1 &&
              fsync(fd) == 0;
    close(fd);
    if (!ok || renameat(dirfd, tmp, dirfd, name) != 0) {
        unlinkat(dirfd, tmp, 0);
        return BOX_EIO;
    }
    return BOX_OK;
}

static box_err
dir_mint_id(char *id, size_t n)
{
    unsigned char r[8];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return BOX_EIO;
    ssize_t got = read(fd, r, sizeof r);
    close(fd);
    if (got != (ssize_t)sizeof r)
        return BOX_EIO;
    snprintf(id, n, "box-%02x%02x%02x%02x%02x%02x%02x%02x", r[0], r[1], r[2],
             r[3], r[4], r[5], r[6], r[7]);
    return BOX_OK;
}

box_err
box_dir_open(const char *path, const char *name, const char *record,
             box_dir **out, bool *created, bool *changed, char **err)
{
    box_err ret = BOX_ENOMEM;
    int dirfd = -1;
    box_dir *d = box_calloc(1, sizeof *d);
    *err = NULL;
    *created = false;
    *changed = false;
    if (d == NULL)
        return BOX_ENOMEM;
    d->bd_lock_fd = -1;
    if ((d->bd_path = box_strdup(path)) == NULL)
        goto fail;

    if (mkdir(path, 0700) == 0) {
        *created = true;
    } else if (errno != EEXIST) {
        *err =
            box_asprintf("cannot create box_dir %s: %s", path, strerror(errno));
        ret = BOX_EIO;
        goto fail;
    }
    dirfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
    struct stat st;
    if (dirfd < 0 || fstat(dirfd, &st) != 0) {
        *err =
            box_asprintf("cannot open box_dir %s: %s", path, strerror(errno));
        ret = BOX_EIO;
        goto fail;
    }
    if (st.st_uid != geteuid() || (st.st_mode & 077) != 0) {
        *err = box_asprintf("unsafe box directory %s: it must be owned by "
                            "this user and closed to others (mode 0700)",
                            path);
        ret = BOX_ECONFIG;
        goto fail;
    }
    for (size_t i = 0; i < sizeof box_dir_subdirs / sizeof box_dir_subdirs[0];
         i++) {
        if (mkdirat(dirfd, box_dir_subdirs[i], 0700) != 0 && errno != EEXIST) {
            *err = box_asprintf("cannot create %s/%s: %s", path,
                                box_dir_subdirs[i], strerror(errno));
            ret = BOX_EIO;
            goto fail;
        }
    }
    d->bd_lock_fd = openat(dirfd, "private/lock",
                           O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (d->bd_lock_fd < 0) {
        *err = box_asprintf("cannot open the lock of box_dir %s: %s", path,
                            strerror(errno));
        ret = BOX_EIO;
        goto fail;
    }
    if (flock(d->bd_lock_fd, LOCK_EX | LOCK_NB) != 0) {
        *err = box_asprintf(
            "box %s is already running, and one run owns a box at a time; "
            "wait for that run to exit, or start a configuration with a "
            "different `box_dir`",
            name);
        ret = BOX_EBUSY;
        goto fail;
    }
    if (!dir_read_small(dirfd, "private/box-id", d->bd_id, sizeof d->bd_id) ||
        strncmp(d->bd_id, "box-", 4) != 0 || strlen(d->bd_id) != 20) {
        if (dir_mint_id(d->bd_id, sizeof d->bd_id) != BOX_OK ||
            dir_write_small(dirfd, "private/box-id", d->bd_id) != BOX_OK) {
            *err =
                box_asprintf("cannot write the box id under %s/private", path);
            ret = BOX_EIO;
            goto fail;
        }
        *created = true;
    }
    char old[256];
    if (!dir_read_small(dirfd, "private/record", old, sizeof old) ||
        strcmp(old, record) != 0) {
        *changed = true;
        if (dir_write_small(dirfd, "private/record", record) != BOX_OK) {
            *err = box_asprintf("cannot write the run record under %s/private",
                                path);
            ret = BOX_EIO;
            goto fail;
        }
    }
    close(dirfd);
    *out = d;
    return BOX_OK;

fail:
    if (dirfd >= 0)
        close(dirfd);
    if (d->bd_lock_fd >= 0)
        close(d->bd_lock_fd);
    box_free(d->bd_path);
    box_free(d);
    if (*err == NULL && ret == BOX_ENOMEM)
        *err = NULL; // caller reports out of memory
    return ret;
}

void
box_dir_close(box_dir *d)
{
    if (d == NULL)
        return;
    if (d->bd_lock_fd >= 0)
        close(d->bd_lock_fd); // releases the flock
    box_free(d->bd_path);
    box_free(d);
}

const char *
box_dir_path(const box_dir *d)
{
    return d->bd_path;
}

const char *
box_dir_id(const box_dir *d)
{
    return d->bd_id;
}
