/* SPDX-License-Identifier: Apache-2.0 */
/* Unit tests for box_awsprof: profiles read from real files in a temporary
 * home, and every refusal's exact message. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_awsprof.h"

/* A temporary home with .aws/ in it, made for each test. */
typedef struct fixture {
    char fx_home[64];
    char fx_creds[128]; // home/.aws/credentials
    char fx_other[128]; // home/other (for $AWS_SHARED_CREDENTIALS_FILE)
} fixture;

static int
setup(void **state)
{
    fixture *fx = box_calloc(1, sizeof *fx);
    assert_non_null(fx);
    snprintf(fx->fx_home, sizeof fx->fx_home, "/tmp/box_awsprof_test.XXXXXX");
    assert_non_null(mkdtemp(fx->fx_home));
    char aws[96];
    snprintf(aws, sizeof aws, "%s/.aws", fx->fx_home);
    assert_int_equal(mkdir(aws, 0700), 0);
    snprintf(fx->fx_creds, sizeof fx->fx_creds, "%s/credentials", aws);
    snprintf(fx->fx_other, sizeof fx->fx_other, "%s/other", fx->fx_home);
    *state = fx;
    return 0;
}

static int
teardown(void **state)
{
    fixture *fx = *state;
    char aws[96];
    snprintf(aws, sizeof aws, "%s/.aws", fx->fx_home);
    unlink(fx->fx_creds);
    unlink(fx->fx_other);
    rmdir(aws);
    rmdir(fx->fx_home);
    box_free(fx);
    return 0;
}

static void
put_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    assert_true(fd >= 0);
    size_t n = strlen(text);
    assert_int_equal(write(fd, text, n), (ssize_t)n);
    assert_int_equal(close(fd), 0);
}

/* Loads profile from the home's credentials file holding text; expects
 * success. */
static void
load_ok(fixture *fx, const char *text, const char *profile, box_awsprof *p)
{
    char *err = NULL;
    put_file(fx->fx_creds, text);
    box_err rv = box_awsprof_load(profile, fx->fx_home, NULL, p, &err);
    if (rv != BOX_OK)
        fail_msg("%s: %s", box_strerror(rv), err);
    assert_null(err);
    assert_string_equal(p->ap_file, fx->fx_creds);
}

/* Loads profile from text; expects rv and the message want, in which
 * "FILE" stands for the file's path. */
static void
load_fails(fixture *fx, const char *text, const char *profile, box_err want_rv,
           const char *want)
{
    char *err = NULL, msg[512];
    box_awsprof p;
    if (text != NULL)
        put_file(fx->fx_creds, text);
    box_err rv = box_awsprof_load(profile, fx->fx_home, NULL, &p, &err);
    assert_int_equal(rv, want_rv);
    assert_null(p.ap_key_id);
    assert_null(p.ap_secret);
    assert_null(p.ap_token);
    assert_null(p.ap_file);
    const char *at = strstr(want, "FILE");
    if (at != NULL)
        snprintf(msg, sizeof msg, "%.*s%s%s", (int)(at - want), want,
                 fx->fx_creds, at + 4);
    else
        snprintf(msg, sizeof msg, "%s", want);
    assert_non_null(err);
    assert_string_equal(err, msg);
    box_free(err);
}

static void
test_good(void **state)
{
    fixture *fx = *state;
    box_awsprof p;
    static const char text[] =
        "# AWS credentials\n"
        "[default]\n"
        "aws_access_key_id = AKIADEFAULT\n"
        "aws_secret_access_key = default/secret\n"
        "\n"
        "; the dev account\n"
        "  # an indented comment\n"
        "[dev]   # comment after the section\n"
        "AWS_ACCESS_KEY_ID=AKIADEV\n"
        "aws_secret_access_key   =   wJalr/K7MDENG+bPxRfi#not-a-comment  \n"
        "aws_session_token = IQoJb3JpZ2luX2VjE/+==\n"
        "region = eu-west-1\n"
        "[ spaced ]\n"
        "aws_access_key_id: AKIACOLON\n"
        "aws_secret_access_key:secret:with:colons\n"
        "aws_session_token =\n";
    load_ok(fx, text, "dev", &p);
    assert_string_equal(p.ap_key_id, "AKIADEV");
    assert_string_equal(p.ap_secret, "wJalr/K7MDENG+bPxRfi#not-a-comment");
    assert_string_equal(p.ap_token, "IQoJb3JpZ2luX2VjE/+==");
    box_awsprof_free(&p);
    assert_null(p.ap_key_id);

    load_ok(fx, text, "default", &p);
    assert_string_equal(p.ap_key_id, "AKIADEFAULT");
    assert_string_equal(p.ap_secret, "default/secret");
    assert_null(p.ap_token);
    box_awsprof_free(&p);

    // Trimmed section name, ':' as the delimiter, an empty token is none.
    load_ok(fx, text, "spaced", &p);
    assert_string_equal(p.ap_key_id, "AKIACOLON");
    assert_string_equal(p.ap_secret, "secret:with:colons");
    assert_null(p.ap_token);
    box_awsprof_free(&p);
}

static void
test_crlf_and_bom(void **state)
{
    fixture *fx = *state;
    box_awsprof p;
    load_ok(fx,
            "\xef\xbb\xbf[work]\r\n"
            "aws_access_key_id = AKIAWORK\r\n"
            "aws_secret_access_key = s3cr3t\r\n"
            "\r\n",
            "work", &p);
    assert_string_equal(p.ap_key_id, "AKIAWORK");
    assert_string_equal(p.ap_secret, "s3cr3t");
    box_awsprof_free(&p);

    // No newline at the end.
    load_ok(fx, "[work]\naws_access_key_id=A\naws_secret_access_key=B", "work",
            &p);
    assert_string_equal(p.ap_secret, "B");
    box_awsprof_free(&p);
}

/* Where the file is: $AWS_SHARED_CREDENTIALS_FILE (as given, or under
 * home for "~/") before ~/.aws/credentials. */
static void
test_file_choice(void **state)
{
    fixture *fx = *state;
    box_awsprof p;
    char *err = NULL;
    put_file(fx->fx_creds, "[p]\naws_access_key_id=HOME\n"
                           "aws_secret_access_key=x\n");
    put_file(fx->fx_other, "[p]\naws_access_key_id=ENV\n"
                           "aws_secret_access_key=y\n");

    assert_int_equal(box_awsprof_load("p", fx->fx_home, "", &p, &err), BOX_OK);
    assert_string_equal(p.ap_key_id, "HOME");
    box_awsprof_free(&p);

    assert_int_equal(
        box_awsprof_load("p", "/nonexistent", fx->fx_other, &p, &err), BOX_OK);
    assert_string_equal(p.ap_key_id, "ENV");
    assert_string_equal(p.ap_file, fx->fx_other);
    box_awsprof_free(&p);

    assert_int_equal(box_awsprof_load("p", fx->fx_home, "~/other", &p, &err),
                     BOX_OK);
    assert_string_equal(p.ap_key_id, "ENV");
    assert_string_equal(p.ap_file, fx->fx_other);
    box_awsprof_free(&p);

    assert_int_equal(box_awsprof_load("p", NULL, NULL, &p, &err), BOX_ECONFIG);
    assert_string_equal(err, "aws://p: no home directory to find "
                             "~/.aws/credentials in");
    box_free(err);
    assert_int_equal(box_awsprof_load("p", "", "~/other", &p, &err),
                     BOX_ECONFIG);
    assert_string_equal(err, "aws://p: no home directory to find ~/other in");
    box_free(err);
    assert_int_equal(box_awsprof_load("", fx->fx_home, NULL, &p, &err),
                     BOX_EINVAL);
    assert_string_equal(err, "aws://: names no profile");
    box_free(err);
}

static void
test_refusals(void **state)
{
    fixture *fx = *state;
    static const char *const good = "aws_access_key_id = A\n"
                                    "aws_secret_access_key = B\n";
    char text[512];

    load_fails(fx, "[default]\naws_access_key_id=A\n", "dev", BOX_ENOENT,
               "aws://dev: no profile \"dev\" in FILE");
    // Profile names are compared exactly.
    load_fails(fx, "[Dev]\naws_access_key_id=A\n", "dev", BOX_ENOENT,
               "aws://dev: no profile \"dev\" in FILE");
    load_fails(fx, "[dev]\naws_secret_access_key = B\n", "dev", BOX_ECONFIG,
               "aws://dev: profile \"dev\" in FILE has no aws_access_key_id");
    load_fails(fx, "[dev]\naws_access_key_id =\naws_secret_access_key = B\n",
               "dev", BOX_ECONFIG,
               "aws://dev: profile \"dev\" in FILE has no aws_access_key_id");
    load_fails(fx,
               "[dev]\naws_access_key_id = A\n[other]\n"
               "aws_secret_access_key = B\n",
               "dev", BOX_ECONFIG,
               "aws://dev: profile \"dev\" in FILE has no "
               "aws_secret_access_key");

    snprintf(text, sizeof text, "[dev]\n%s\n[other]\n%s[dev]\n%s", good, good,
             good);
    load_fails(fx, text, "dev", BOX_ECONFIG,
               "aws://dev: FILE defines the profile \"dev\" twice (lines 1 "
               "and 8)");
    load_fails(fx, "[dev]\naws_access_key_id = A\nAWS_ACCESS_KEY_ID = C\n",
               "dev", BOX_ECONFIG,
               "aws://dev: profile \"dev\" in FILE sets aws_access_key_id "
               "twice (lines 2 and 3)");
    load_fails(fx, "[dev]\naws_access_key_id = A\njunk line\n", "dev",
               BOX_ECONFIG,
               "aws://dev: FILE line 3: expected [NAME], key = value or a "
               "comment");
    load_fails(fx, "[dev\naws_access_key_id = A\n", "dev", BOX_ECONFIG,
               "aws://dev: FILE line 1: expected [NAME], key = value or a "
               "comment");
    load_fails(fx, "[]\n", "dev", BOX_ECONFIG,
               "aws://dev: FILE line 1: expected [NAME], key = value or a "
               "comment");
    load_fails(fx, "[dev] trailing\n", "dev", BOX_ECONFIG,
               "aws://dev: FILE line 1: expected [NAME], key = value or a "
               "comment");
    load_fails(fx, "aws_access_key_id = A\n[dev]\n", "dev", BOX_ECONFIG,
               "aws://dev: FILE line 1: a key before any [NAME] section");
    load_fails(fx,
               "[dev]\naws_access_key_id = A\naws_secret_access_key = B\tC\n",
               "dev", BOX_ECONFIG,
               "aws://dev: aws_secret_access_key in profile \"dev\" in FILE "
               "(line 3) has a control character");
    load_fails(fx, "[dev]\naws_access_key_id = A\x01\n", "dev", BOX_ECONFIG,
               "aws://dev: aws_access_key_id in profile \"dev\" in FILE "
               "(line 2) has a control character");
    // A value continued over lines: refused for a credential...
    load_fails(fx, "[dev]\naws_secret_access_key = B\n  more\n", "dev",
               BOX_ECONFIG,
               "aws://dev: aws_secret_access_key in profile \"dev\" in FILE "
               "goes on over line 3; a credential is one line");
    // ... and a duplicate or bad line elsewhere in the file still counts.
    load_fails(fx, "[other]\nnonsense\n[dev]\n", "dev", BOX_ECONFIG,
               "aws://dev: FILE line 2: expected [NAME], key = value or a "
               "comment");

    unlink(fx->fx_creds);
    load_fails(fx, NULL, "dev", BOX_ENOENT,
               "aws://dev: cannot read FILE: No such file or directory");
    assert_int_equal(mkdir(fx->fx_creds, 0700), 0);
    load_fails(fx, NULL, "dev", BOX_ECONFIG,
               "aws://dev: cannot read FILE: not a file");
    assert_int_equal(rmdir(fx->fx_creds), 0);
}

/* A line indented deeper than the key above it continues that key's value
 * (the CLI's nested settings); otherwise an indented key is a key. */
static void
test_continuations(void **state)
{
    fixture *fx = *state;
    box_awsprof p;
    load_ok(fx,
            "[dev]\n"
            "s3 =\n"
            "    max_concurrent_requests = 20\n"
            "    addressing_style = path\n"
            "aws_access_key_id = A\n"
            "aws_secret_access_key = B\n",
            "dev", &p);
    assert_string_equal(p.ap_key_id, "A");
    assert_string_equal(p.ap_secret, "B");
    box_awsprof_free(&p);

    load_ok(fx, "[dev]\n  aws_access_key_id = A\n  aws_secret_access_key = B\n",
            "dev", &p);
    assert_string_equal(p.ap_secret, "B");
    box_awsprof_free(&p);

    // Deeper than the key above: the CLI reads one value over two lines.
    load_fails(fx,
               "[dev]\naws_access_key_id = A\n  aws_secret_access_key = B\n",
               "dev", BOX_ECONFIG,
               "aws://dev: aws_access_key_id in profile \"dev\" in FILE goes "
               "on over line 3; a credential is one line");
}

/* Every allocation failed in turn: BOX_ENOMEM (with a message or none),
 * an empty result, nothing leaked (the sanitizer build checks). */
static void
test_nomem(void **state)
{
    fixture *fx = *state;
    put_file(fx->fx_creds, "[dev]\naws_access_key_id = A\n"
                           "aws_secret_access_key = B\n"
                           "aws_session_token = T\n");
    for (unsigned long n = 1;; n++) {
        box_awsprof p;
        char *err = NULL;
        box_alloc_fail_after(n);
        box_err rv = box_awsprof_load("dev", fx->fx_home, NULL, &p, &err);
        unsigned long calls = box_alloc_calls();
        box_alloc_fail_off();
        if (calls < n) {
            assert_int_equal(rv, BOX_OK);
            assert_string_equal(p.ap_token, "T");
            box_awsprof_free(&p);
            break;
        }
        assert_int_equal(rv, BOX_ENOMEM);
        assert_null(p.ap_key_id);
        box_free(err);
    }
}

int
main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_good, setup, teardown),
        cmocka_unit_test_setup_teardown(test_crlf_and_bom, setup, teardown),
        cmocka_unit_test_setup_teardown(test_file_choice, setup, teardown),
        cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
        cmocka_unit_test_setup_teardown(test_continuations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_nomem, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
