/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: what a test does when the machine lacks what it tests. */
#ifndef BOX_TEST_REQUIRE_H
#define BOX_TEST_REQUIRE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * A sandbox test on a kernel without Landlock, seccomp or user namespaces
 * cannot test anything. On a developer's machine it skips, saying what is
 * missing; in CI it fails with the same words, because a CI machine that
 * quietly skips the sandbox tests is green while testing none of them.
 *
 * Strict (CI) when BOX_REQUIRE_SANDBOX is set to anything but "" or "0"
 * (tests/run.sh exports BOX_REQUIRE_SANDBOX=1), or, when it is not set at
 * all, when CI is set to anything but "", "0" or "false" (CI services set
 * CI=true). BOX_REQUIRE_SANDBOX=0 lets a run skip again.
 */
#define BOX_TEST_REQUIRE_ENV "BOX_REQUIRE_SANDBOX"

static inline bool
box_test_strict(void)
{
    const char *v = getenv(BOX_TEST_REQUIRE_ENV);
    if (v != NULL)
        return v[0] != '\0' && strcmp(v, "0") != 0;
    v = getenv("CI");
    return v != NULL && v[0] != '\0' && strcmp(v, "0") != 0 &&
           strcmp(v, "false") != 0;
}

/* Ends the current test: skipped, or failed when strict, with "missing:
 * <what>" (printf format) naming the missing feature. Never returns. */
static inline void __attribute__((format(printf, 1, 2), noreturn))
box_test_missing(const char *fmt, ...)
{
    char what[4096];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (box_test_strict())
        fail_msg("missing: %s\n(required here: " BOX_TEST_REQUIRE_ENV
                 " or CI is set; " BOX_TEST_REQUIRE_ENV "=0 skips instead)",
                 what);
    print_message("missing: %s\n(skipped; in CI this fails)\n", what);
    skip();
    abort(); // skip() does not return
}

#endif
