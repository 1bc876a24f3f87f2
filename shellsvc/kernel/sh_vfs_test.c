/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for sh_vfs: the start tree, devices, caps, renames, threads. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "box_alloc.h"
#include "sh_vfs.h"

static void
test_start_tree(void **state)
{
    (void)state;
    sh_vfs *v;
    assert_int_equal(sh_vfs_new(&v), 0);
    static const char *dirs[] = {"/",    "/home",    "/home/lash", "/tmp",
                                 "/usr", "/usr/bin", "/bin",       "/dev"};
    sh_vfs_stat st;
    for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
        assert_int_equal(sh_vfs_lstat(v, dirs[i], &st), 0);
        assert_true(S_ISDIR(st.vs_mode));
    }
    assert_int_equal(sh_vfs_lstat(v, "/tmp", &st), 0);
    assert_int_equal(st.vs_mode & 07777, 01777);
    assert_int_equal(sh_vfs_lstat(v, "/etc/passwd", &st), ENOENT);
    assert_int_equal(sh_vfs_lstat(v, "/dev/null", &st), 0);
    assert_true(S_ISCHR(st.vs_mode));

    sh_vfs_file *f;
    char buf[16];
    assert_int_equal(sh_vfs_open(v, "/dev/null", O_RDWR, 0, 0, &f), 0);
    assert_int_equal(sh_vfs_write(f, "abc", 3), 3);
    assert_int_equal(sh_vfs_read(f, buf, sizeof buf), 0);
    sh_vfs_close(f);
    assert_int_equal(sh_vfs_open(v, "/dev/zero", O_RDONLY, 0, 0, &f), 0);
    memset(buf, 1, sizeof buf);
    assert_int_equal(sh_vfs_read(f, buf, sizeof buf), sizeof buf);
    assert_int_equal(buf[0], 0);
    assert_int_equal(buf[15], 0);
    sh_vfs_close(f);
    assert_int_equal(sh_vfs_open(v, "/dev/urandom", O_RDONLY, 0, 0, &f), 0);
    assert_int_equal(sh_vfs_read(f, buf, sizeof buf), sizeof buf);
    sh_vfs_close(f);
    assert_int_equal(sh_vfs_open(v, "/dev/random", O_RDONLY, 0, 0, &f), 0);
    assert_int_equal(sh_vfs_read(f, buf, 4), 4);
    sh_vfs_close(f);
    sh_vfs_free(v);
}

static void
test_files_and_dirs(void **state)
{
    (void)state;
    sh_vfs *v;
    sh_vfs_file *f;
    sh_vfs_stat st;
    char buf[32];
    assert_int_equal(sh_vfs_new(&v), 0);
    assert_int_equal(sh_vfs_mkdir(v, "/tmp/d", 0755), 0);
    assert_int_equal(sh_vfs_mkdir(v, "/tmp/d", 0755), EEXIST);
    assert_int_equal(sh_vfs_mkdir(v, "/tmp/x/y", 0755), ENOENT);
    assert_int_equal(
        sh_vfs_open(v, "/tmp/d/f", O_WRONLY | O_CREAT, 0644, 0, &f), 0);
    assert_int_equal(sh_vfs_write(f, "hello", 5), 5);
    sh_vfs_close(f);
    assert_int_equal(sh_vfs_open(v, "/tmp/d/f", O_WRONLY | O_APPEND, 0, 0, &f),
                     0);
    assert_int_equal(sh_vfs_write(f, " world", 6), 6);
    sh_vfs_close(f);
    assert_int_equal(sh_vfs_open(v, "/tmp/d/f", O_RDONLY, 0, 0, &f), 0);
    ssize_t n = sh_vfs_read(f, buf, sizeof buf);
    assert_int_equal(n, 11);
    assert_memory_equal(buf, "hello world", 11);
    sh_vfs_close(f);

    // Unlinked while open: the handle still reads; the inode goes at close.
    size_t before = sh_vfs_inodes(v);
    assert_int_equal(sh_vfs_open(v, "/tmp/d/f", O_RDONLY, 0, 0, &f), 0);
    assert_int_equal(sh_vfs_unlink(v, "/tmp/d/f", 0), 0);
    assert_int_equal(sh_vfs_read(f, buf, 5), 5);
    assert_int_equal(sh_vfs_inodes(v), before);
    sh_vfs_close(f);
    assert_int_equal(sh_vfs_inodes(v), before - 1);

    // Symlinks are never followed by the VFS itself.
    assert_int_equal(sh_vfs_symlink(v, "/tmp/d", "/tmp/l"), 0);
    char *t;
    assert_int_equal(sh_vfs_readlink(v, "/tmp/l", &t), 0);
    assert_string_equal(t, "/tmp/d");
    box_free(t);
    assert_int_equal(sh_vfs_readlink(v, "/tmp/d", &t), EINVAL);
    assert_int_equal(sh_vfs_lstat(v, "/tmp/l/x", &st), ENOTDIR);
    assert_int_equal(sh_vfs_open(v, "/tmp/l", O_RDONLY, 0, 0, &f), ELOOP);

    // Rename rules and identity checks.
    assert_int_equal(sh_vfs_lstat(v, "/tmp/d", &st), 0);
    assert_int_equal(
        sh_vfs_rename(v, "/tmp/d", st.vs_ino + 1000, "/tmp/e", SH_VFS_MISSING),
        ESTALE);
    assert_int_equal(
        sh_vfs_rename(v, "/tmp/d", st.vs_ino, "/tmp/e", SH_VFS_MISSING), 0);
    assert_int_equal(sh_vfs_rename(v, "/tmp/e", 0, "/tmp/e/in", 0), EINVAL);
    assert_int_equal(sh_vfs_mkdir(v, "/tmp/e/sub", 0700), 0);
    assert_int_equal(sh_vfs_rmdir(v, "/tmp/e", 0), ENOTEMPTY);
    assert_int_equal(sh_vfs_rmdir(v, "/tmp/e/sub", 0), 0);
    assert_int_equal(sh_vfs_chmod(v, "/tmp/e", 0, 0700), 0);
    assert_int_equal(sh_vfs_lstat(v, "/tmp/e", &st), 0);
    assert_int_equal(st.vs_mode & 07777, 0700);
    char **names;
    size_t cnt;
    assert_int_equal(sh_vfs_list(v, "/tmp", 0, &names, NULL, &cnt), 0);
    assert_int_equal(cnt, 2);
    for (size_t i = 0; i < cnt; i++)
        box_free(names[i]);
    box_free(names);
    // With inodes: each name's, as lstat gives it.
    uint64_t *inos;
    assert_int_equal(sh_vfs_list(v, "/tmp", 0, &names, &inos, &cnt), 0);
    assert_int_equal(cnt, 2);
    for (size_t i = 0; i < cnt; i++) {
        char path[64];
        snprintf(path, sizeof path, "/tmp/%s", names[i]);
        assert_int_equal(sh_vfs_lstat(v, path, &st), 0);
        assert_true(st.vs_ino == inos[i]);
        box_free(names[i]);
    }
    box_free(names);
    box_free(inos);
    assert_int_equal(sh_vfs_rmdir(v, "/tmp/e", 0), 0);

    // Mount points and their ancestors are busy.
    assert_int_equal(sh_vfs_mount_point(v, "/work/ws"), 0);
    assert_int_equal(sh_vfs_rmdir(v, "/work/ws", 0), EBUSY);
    assert_int_equal(sh_vfs_rmdir(v, "/work", 0), EBUSY);
    assert_int_equal(sh_vfs_rename(v, "/work", 0, "/w2", 0), EBUSY);
    sh_vfs_free(v);
}

static void
test_limits(void **state)
{
    (void)state;
    sh_vfs *v;
    sh_vfs_file *f;
    assert_int_equal(sh_vfs_new(&v), 0);
    assert_int_equal(
        sh_vfs_open(v, "/tmp/big", O_WRONLY | O_CREAT, 0644, 0, &f), 0);
    char *chunk = box_calloc(1, 1 << 20);
    assert_non_null(chunk);
    for (int i = 0; i < 10; i++)
        assert_int_equal(sh_vfs_write(f, chunk, 1 << 20), 1 << 20);
    assert_int_equal(sh_vfs_write(f, chunk, 1), -EFBIG);
    sh_vfs_close(f);
    box_free(chunk);
    assert_string_equal(sh_vfs_strerror(EFBIG),
                        "file too large for the in-memory file system "
                        "(limit 10 MiB)");

    size_t i = sh_vfs_inodes(v);
    char p[64];
    int err = 0;
    for (; i < SH_VFS_MAX_INODES + 5; i++) {
        snprintf(p, sizeof p, "/tmp/f%zu", i);
        if ((err = sh_vfs_mkdir(v, p, 0755)) != 0)
            break;
    }
    assert_int_equal(err, ENOSPC);
    assert_int_equal(sh_vfs_inodes(v), SH_VFS_MAX_INODES);
    assert_string_equal(sh_vfs_strerror(ENOSPC),
                        "too many files in the in-memory file system "
                        "(limit 10000)");
    // Removing one makes room for one.
    assert_int_equal(sh_vfs_rmdir(v, "/tmp/f100", 0), 0);
    assert_int_equal(sh_vfs_mkdir(v, "/tmp/again", 0755), 0);
    assert_int_equal(sh_vfs_mkdir(v, "/tmp/again2", 0755), ENOSPC);
    sh_vfs_free(v);
}

typedef struct targ {
    sh_vfs *v;
    int id;
} targ;

static void *
worker(void *p)
{
    targ *a = p;
    char path[64];
    snprintf(path, sizeof path, "/tmp/t%d", a->id);
    if (sh_vfs_mkdir(a->v, path, 0755) != 0)
        return (void *)1;
    for (int i = 0; i < 200; i++) {
        sh_vfs_file *f;
        snprintf(path, sizeof path, "/tmp/t%d/f%d", a->id, i);
        if (sh_vfs_open(a->v, path, O_WRONLY | O_CREAT, 0644, 0, &f) != 0)
            return (void *)1;
        if (sh_vfs_write(f, "x", 1) != 1)
            return (void *)1;
        sh_vfs_close(f);
        if (sh_vfs_open(a->v, "/tmp/shared", O_WRONLY | O_CREAT | O_APPEND,
                        0644, 0, &f) != 0)
            return (void *)1;
        if (sh_vfs_write(f, "ab", 2) != 2)
            return (void *)1;
        sh_vfs_close(f);
        if (i % 2 == 0 && sh_vfs_unlink(a->v, path, 0) != 0)
            return (void *)1;
    }
    return NULL;
}

static void
test_threads(void **state)
{
    (void)state;
    sh_vfs *v;
    assert_int_equal(sh_vfs_new(&v), 0);
    pthread_t th[8];
    targ a[8];
    for (int i = 0; i < 8; i++) {
        a[i].v = v;
        a[i].id = i;
        assert_int_equal(pthread_create(&th[i], NULL, worker, &a[i]), 0);
    }
    for (int i = 0; i < 8; i++) {
        void *rv;
        pthread_join(th[i], &rv);
        assert_null(rv);
    }
    sh_vfs_stat st;
    assert_int_equal(sh_vfs_lstat(v, "/tmp/shared", &st), 0);
    assert_int_equal(st.vs_size, 8 * 200 * 2);
    char **names;
    size_t n;
    assert_int_equal(sh_vfs_list(v, "/tmp/t3", 0, &names, NULL, &n), 0);
    assert_int_equal(n, 100);
    for (size_t i = 0; i < n; i++)
        box_free(names[i]);
    box_free(names);
    sh_vfs_free(v);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_start_tree),
        cmocka_unit_test(test_files_and_dirs),
        cmocka_unit_test(test_limits),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
