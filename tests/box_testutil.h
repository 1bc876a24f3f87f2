/* SPDX-License-Identifier: Apache-2.0 */
/* Test helper: the small things every integration test needs (showing a
 * run, reading and writing files, counting text, running `box ARGS`). They
 * fail the cmocka test on an error the test did not ask about. */
#ifndef BOX_TESTUTIL_H
#define BOX_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "box_proc.h"

/* CLOCK_MONOTONIC in milliseconds. */
long long box_test_now_ms(void);
void box_test_sleep_ms(int ms);

/* Prints "what: status N", the stdout and the stderr to stderr (not
 * print_message: a box run's stderr is longer than cmocka's buffer). */
void box_test_show(const char *what, int status, const char *out,
                   const char *err);
/* The same for a finished run. */
void box_test_show_result(const char *what, const box_proc_result *r);

/* The run's stdout is exactly out / its status is status / its stderr holds
 * line as one whole line / its stderr holds text; else the run is shown
 * (as "run") and the test fails. */
void box_test_expect_out(const box_proc_result *r, const char *out);
void box_test_expect_status(const box_proc_result *r, int status);
void box_test_expect_line(const box_proc_result *r, const char *line);
void box_test_expect_err_has(const box_proc_result *r, const char *text);

/* True if text holds line as one whole line. */
bool box_test_has_line(const char *text, const char *line);
/* Occurrences of needle in hay. */
size_t box_test_count(const char *hay, const char *needle);
/* Lines of text holding needle. */
size_t box_test_count_lines(const char *text, const char *needle);

/* text with every from (not "") replaced by to. The caller frees it with
 * box_free. */
char *box_test_replace_all(const char *text, const char *from, const char *to);

/* The whole file at path ("" when empty), NULL when it cannot be opened.
 * The caller frees it with box_free. */
char *box_test_slurp(const char *path);
/* The same, "" when path cannot be opened. */
char *box_test_slurp_or_empty(const char *path);
/* Writes text to path (created 0644 or truncated; parents must exist). */
void box_test_put(const char *path, const char *text);
/* Writes n bytes of p to path (created or truncated), then sets mode. */
void box_test_write(const char *path, const void *p, size_t n, mode_t mode);
/* Copies the file src to dst (created or truncated) with mode. */
void box_test_copy(const char *src, const char *dst, mode_t mode);

/* Removes path and everything under it (`rm -rf`, run without a shell);
 * a missing path is fine. Fails the test if rm fails. */
void box_test_rmtree(const char *path);

/* Runs the built `box` (box_proc_bin) with the NULL-ended args (at most
 * 14), for up to timeout_ms. r is the caller's (box_proc_result_free). */
void box_test_cli(char *const *args, int timeout_ms, box_proc_result *r);

#endif
