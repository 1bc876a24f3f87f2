/* SPDX-License-Identifier: Apache-2.0 */
/* sh_spawn_locate (box-spec §3.4) against a real scratch tree. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "sh_spawn.h"

/*
 * T (canonical) holds:
 *   bin/prog (0755)   bin/plain (0644)   bin/dir/ (0755)
 *   other/prog (0755) link/ -> bin (a symlinked directory)
 *   bin/alias -> prog
 */
typedef struct fx {
    char fx_root[PATH_MAX];
    char fx_buf[2 * PATH_MAX]; // scratch for p()
} fx;

static const char *
p(fx *f, const char *rel)
{
    snprintf(f->fx_buf, sizeof f->fx_buf, "%s/%s", f->fx_root, rel);
    return f->fx_buf;
}

static void
mkfile(fx *f, const char *rel, mode_t mode)
{
    int fd = open(p(f, rel), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, "#!/bin/sh\n", 10), 10);
    close(fd);
    assert_int_equal(chmod(p(f, rel), mode), 0);
}

static int
setup(void **state)
{
    fx *f = box_calloc(1, sizeof *f);
    char tmpl[] = "/tmp/sh_spawn_path.XXXXXX";

    if (f == NULL || mkdtemp(tmpl) == NULL ||
        realpath(tmpl, f->fx_root) == NULL)
        return -1;
    if (mkdir(p(f, "bin"), 0755) != 0 || mkdir(p(f, "bin/dir"), 0755) != 0 ||
        mkdir(p(f, "other"), 0755) != 0)
        return -1;
    mkfile(f, "bin/prog", 0755);
    mkfile(f, "bin/plain", 0644);
    mkfile(f, "other/prog", 0755);
    mkfile(f, "other/plain", 0755);
    char target[PATH_MAX + 8];
    snprintf(target, sizeof target, "%s/bin", f->fx_root);
    if (symlink(target, p(f, "link")) != 0 ||
        symlink("prog", p(f, "bin/alias")) != 0)
        return -1;
    *state = f;
    return 0;
}

static int
rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    return remove(path);
}

static int
teardown(void **state)
{
    fx *f = *state;
    int rv = nftw(f->fx_root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
    box_free(f);
    return rv;
}

/* Asserts a hit: canonical path, the spelled argv[0], the identity. */
static void
want_found(int rv, sh_spawn_found *got, const char *canon, const char *argv0)
{
    struct stat st;

    assert_int_equal(rv, 0);
    assert_string_equal(got->sf_path, canon);
    assert_string_equal(got->sf_argv0, argv0);
    assert_int_equal(stat(canon, &st), 0);
    assert_true(got->sf_dev == st.st_dev && got->sf_ino == st.st_ino);
    sh_spawn_found_free(got);
    assert_null(got->sf_path);
}

static void
test_absolute(void **state)
{
    fx *f = *state;
    sh_spawn_found got;
    char want[PATH_MAX * 2];

    snprintf(want, sizeof want, "%s/bin/prog", f->fx_root);
    want_found(sh_spawn_locate(NULL, "/", want, &got), &got, want, want);
}

static void
test_relative(void **state)
{
    fx *f = *state;
    sh_spawn_found got;
    char want[PATH_MAX * 2], argv0[PATH_MAX * 2];

    snprintf(want, sizeof want, "%s/bin/prog", f->fx_root);
    snprintf(argv0, sizeof argv0, "%s/bin/../bin/prog", f->fx_root);
    want_found(sh_spawn_locate(NULL, f->fx_root, "bin/../bin/prog", &got), &got,
               want, argv0);
    snprintf(argv0, sizeof argv0, "%s/bin/./prog", f->fx_root);
    want_found(sh_spawn_locate(NULL, p(f, "bin"), "./prog", &got), &got, want,
               argv0);
    // A relative word with no absolute cwd to stand on finds nothing.
    assert_int_equal(sh_spawn_locate(NULL, NULL, "./prog", &got), ENOENT);
}

static void
test_bare_on_path(void **state)
{
    fx *f = *state;
    sh_spawn_found got;
    char search[PATH_MAX * 4], want[PATH_MAX * 2];

    // Empty and relative entries are skipped; "plain" in bin has no x bit
    // and "dir" is a directory, so the walk goes on to other/.
    snprintf(search, sizeof search, "::bin:%s/bin::%s/other:", f->fx_root,
             f->fx_root);
    snprintf(want, sizeof want, "%s/bin/prog", f->fx_root);
    want_found(sh_spawn_locate(search, "/", "prog", &got), &got, want, want);
    snprintf(want, sizeof want, "%s/other/plain", f->fx_root);
    want_found(sh_spawn_locate(search, "/", "plain", &got), &got, want, want);
    assert_int_equal(sh_spawn_locate(search, "/", "dir", &got), ENOENT);
    assert_int_equal(sh_spawn_locate(search, "/", "missing", &got), ENOENT);
    assert_null(got.sf_path);
    // The default search path.
    want_found(sh_spawn_locate(NULL, "/", "sh", &got), &got,
               realpath("/usr/bin/sh", want) ? want : "/usr/bin/sh",
               "/usr/bin/sh");
    want_found(sh_spawn_locate("", "/", "sh", &got), &got, want, "/usr/bin/sh");
}

static void
test_not_runnable(void **state)
{
    fx *f = *state;
    sh_spawn_found got;
    char w[PATH_MAX * 2];

    snprintf(w, sizeof w, "%s/bin/plain", f->fx_root);
    assert_int_equal(sh_spawn_locate(NULL, "/", w, &got), EACCES);
    snprintf(w, sizeof w, "%s/bin/dir", f->fx_root);
    assert_int_equal(sh_spawn_locate(NULL, "/", w, &got), EACCES);
    snprintf(w, sizeof w, "%s/bin/none", f->fx_root);
    assert_int_equal(sh_spawn_locate(NULL, "/", w, &got), ENOENT);
    snprintf(w, sizeof w, "%s/bin/prog/x", f->fx_root);
    assert_int_equal(sh_spawn_locate(NULL, "/", w, &got), ENOENT);
    assert_int_equal(sh_spawn_locate(NULL, "/", "", &got), ENOENT);
    assert_null(got.sf_path);
    assert_null(got.sf_argv0);
}

static void
test_symlinks_resolved(void **state)
{
    fx *f = *state;
    sh_spawn_found got;
    char w[PATH_MAX * 2], want[PATH_MAX * 2], search[PATH_MAX * 2];

    snprintf(want, sizeof want, "%s/bin/prog", f->fx_root);
    snprintf(w, sizeof w, "%s/link/alias", f->fx_root);
    want_found(sh_spawn_locate(NULL, "/", w, &got), &got, want, w);
    snprintf(search, sizeof search, "%s/link", f->fx_root);
    want_found(sh_spawn_locate(search, "/", "alias", &got), &got, want, w);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_absolute),
        cmocka_unit_test(test_relative),
        cmocka_unit_test(test_bare_on_path),
        cmocka_unit_test(test_not_runnable),
        cmocka_unit_test(test_symlinks_resolved),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
