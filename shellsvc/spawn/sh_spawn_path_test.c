/* SPDX-License-Identifier: Apache-2.0 */
/* sh_spawn_locate (box-spec §3.4): what it adds to box_which_spelled (the
 * walk itself is tested in lib/box_procspec_test.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "sh_spawn.h"

/* Asserts a hit on the host's sh: its canonical path, the spelled argv[0],
 * the identity; then frees the record. */
static void
want_sh(int rv, sh_spawn_found *got, const char *argv0)
{
    char canon[PATH_MAX];
    struct stat st;

    assert_int_equal(rv, 0);
    assert_non_null(realpath("/usr/bin/sh", canon));
    assert_string_equal(got->sf_path, canon);
    assert_string_equal(got->sf_argv0, argv0);
    assert_int_equal(stat(canon, &st), 0);
    assert_true(got->sf_dev == st.st_dev && got->sf_ino == st.st_ino);
    sh_spawn_found_free(got);
    assert_null(got->sf_path);
    assert_null(got->sf_argv0);
}

static void
test_absolute_and_bare(void **state)
{
    (void)state;
    sh_spawn_found got;

    want_sh(sh_spawn_locate(NULL, "/", "/usr/bin/sh", &got), &got,
            "/usr/bin/sh");
    want_sh(sh_spawn_locate("/nonexistent:/usr/bin", "/", "sh", &got), &got,
            "/usr/bin/sh");
    want_sh(sh_spawn_locate("", NULL, "sh", &got), &got, "/usr/bin/sh");
}

/* A relative word is joined to the cwd, as spelled (no folding). */
static void
test_relative(void **state)
{
    (void)state;
    sh_spawn_found got;

    want_sh(sh_spawn_locate(NULL, "/usr", "bin/../bin/sh", &got), &got,
            "/usr/bin/../bin/sh");
    want_sh(sh_spawn_locate(NULL, "/usr/bin/", "./sh", &got), &got,
            "/usr/bin/./sh");
    // No absolute cwd to stand on: nothing.
    assert_int_equal(sh_spawn_locate(NULL, NULL, "./sh", &got), ENOENT);
    assert_int_equal(sh_spawn_locate(NULL, "usr", "bin/sh", &got), ENOENT);
    assert_null(got.sf_path);
}

static void
test_failures(void **state)
{
    (void)state;
    sh_spawn_found got;
    char plain[] = "/tmp/sh_spawn_path.XXXXXX"; // 0600: no x bit
    int fd = mkstemp(plain);

    assert_true(fd >= 0);
    close(fd);
    assert_int_equal(sh_spawn_locate(NULL, "/", "/usr/bin", &got), EACCES);
    assert_int_equal(sh_spawn_locate(NULL, "/", plain, &got), EACCES);
    assert_int_equal(sh_spawn_locate(NULL, "/", plain + 1, &got), EACCES);
    assert_int_equal(unlink(plain), 0);
    assert_int_equal(sh_spawn_locate(NULL, "/usr/bin", "sh/x", &got), ENOENT);
    assert_int_equal(sh_spawn_locate(NULL, "/", "/nonexistent/x", &got),
                     ENOENT);
    assert_int_equal(sh_spawn_locate("/usr/bin", "/", "no-such-prog-x", &got),
                     ENOENT);
    assert_int_equal(sh_spawn_locate(NULL, "/", "", &got), ENOENT);
    assert_int_equal(sh_spawn_locate(NULL, "/", NULL, &got), ENOENT);
    assert_null(got.sf_path);
    assert_null(got.sf_argv0);
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_absolute_and_bare),
        cmocka_unit_test(test_relative),
        cmocka_unit_test(test_failures),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
