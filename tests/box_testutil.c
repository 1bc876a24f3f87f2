/* SPDX-License-Identifier: Apache-2.0 */
/* The small things every integration test needs. */
#include "box_testutil.h"

#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"

long long
box_test_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void
box_test_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

void
box_test_show(const char *what, int status, const char *out, const char *err)
{
    fprintf(stderr, "%s: status %d\n--- stdout\n%s--- stderr\n%s---\n", what,
            status, out, err);
}

void
box_test_show_result(const char *what, const box_proc_result *r)
{
    box_test_show(what, r->pr_status, r->pr_out, r->pr_err);
}

void
box_test_expect_out(const box_proc_result *r, const char *out)
{
    if (strcmp(r->pr_out, out) != 0)
        box_test_show_result("run", r);
    assert_string_equal(r->pr_out, out);
}

void
box_test_expect_status(const box_proc_result *r, int status)
{
    if (r->pr_status != status)
        box_test_show_result("run", r);
    assert_int_equal(r->pr_status, status);
}

void
box_test_expect_line(const box_proc_result *r, const char *line)
{
    if (!box_test_has_line(r->pr_err, line)) {
        fprintf(stderr, "missing stderr line:\n%s\n", line);
        box_test_show_result("run", r);
    }
    assert_true(box_test_has_line(r->pr_err, line));
}

void
box_test_expect_err_has(const box_proc_result *r, const char *text)
{
    if (strstr(r->pr_err, text) == NULL) {
        fprintf(stderr, "missing in stderr: %s\n", text);
        box_test_show_result("run", r);
    }
    assert_non_null(strstr(r->pr_err, text));
}

bool
box_test_has_line(const char *text, const char *line)
{
    size_t n = strlen(line);
    for (const char *p = text; (p = strstr(p, line)) != NULL; p++)
        if ((p == text || p[-1] == '\n') && (p[n] == '\n' || p[n] == '\0'))
            return true;
    return false;
}

size_t
box_test_count(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

size_t
box_test_count_lines(const char *text, const char *needle)
{
    size_t n = 0;
    for (const char *l = text; *l != '\0';) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        n += memmem(l, len, needle, strlen(needle)) != NULL;
        l += len + (e ? 1 : 0);
    }
    return n;
}

char *
box_test_replace_all(const char *text, const char *from, const char *to)
{
    box_buf b;
    box_buf_init(&b, 1u << 20);
    size_t n = strlen(from);
    for (const char *p = text; *p != '\0';) {
        if (strncmp(p, from, n) == 0) {
            assert_int_equal(box_buf_puts(&b, to), BOX_OK);
            p += n;
        } else {
            assert_int_equal(box_buf_putc(&b, *p++), BOX_OK);
        }
    }
    return box_buf_take(&b);
}

char *
box_test_slurp(const char *path)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    box_buf b;
    box_buf_init(&b, 64u << 20);
    char buf[65536];
    ssize_t n;
    while ((n = read(fd, buf, sizeof buf)) > 0)
        assert_int_equal(box_buf_append(&b, buf, (size_t)n), BOX_OK);
    close(fd);
    if (b.b_len == 0)
        return box_strdup("");
    return box_buf_take(&b);
}

char *
box_test_slurp_or_empty(const char *path)
{
    char *s = box_test_slurp(path);
    return s != NULL ? s : box_strdup("");
}

void
box_test_put(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    assert_true(fd >= 0);
    size_t n = strlen(text);
    assert_int_equal(write(fd, text, n), (ssize_t)n);
    assert_int_equal(close(fd), 0);
}

void
box_test_write(const char *path, const void *p, size_t n, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, p, n), (ssize_t)n);
    assert_int_equal(close(fd), 0);
    assert_int_equal(chmod(path, mode), 0);
}

void
box_test_copy(const char *src, const char *dst, mode_t mode)
{
    int fd = open(src, O_RDONLY | O_CLOEXEC);
    assert_true(fd >= 0);
    struct stat st;
    assert_int_equal(fstat(fd, &st), 0);
    char *img = box_alloc((size_t)st.st_size);
    assert_non_null(img);
    assert_int_equal(read(fd, img, (size_t)st.st_size), st.st_size);
    close(fd);
    box_test_write(dst, img, (size_t)st.st_size, mode);
    box_free(img);
}

void
box_test_cli(char *const *args, int timeout_ms, box_proc_result *r)
{
    char bin[PATH_MAX];
    char *argv[16] = {bin};
    box_proc_bin(bin, sizeof bin, "box");
    for (size_t i = 0; args[i] != NULL && i < 14; i++)
        argv[i + 1] = args[i];
    box_proc_run(argv, timeout_ms, r);
}

void
box_test_rmtree(const char *path)
{
    char *argv[] = {"/bin/rm", "-rf", "--", (char *)path, NULL};
    box_proc_result r;
    box_proc_run(argv, 60000, &r);
    if (r.pr_status != 0)
        box_test_show_result("rm -rf", &r);
    assert_int_equal(r.pr_status, 0);
    box_proc_result_free(&r);
}
