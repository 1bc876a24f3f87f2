/* SPDX-License-Identifier: Apache-2.0 */
/* The shell alias's argv forms and SCRIPT reading (box-spec §2). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alias.h"
#include "box_alloc.h"
#include "box_utf8.h"
#include "box_wire.h"

#define ALIAS_FORMS_MSG                                                        \
    "Shell alias accepts only -c COMMAND, -lc COMMAND, -c -l COMMAND, or "     \
    "SCRIPT"

static bool
alias_is_flag(const char *a)
{
    return strcmp(a, "-c") == 0 || strcmp(a, "-l") == 0;
}

/*
 * The accepted forms, exactly (box-spec §2):
 *   [f1, f2, COMMAND]  f1, f2 in {-c, -l}, at least one -c
 *   [-c, COMMAND] | [-lc, COMMAND]
 *   [SCRIPT]           not starting with '-'
 * Returns the COMMAND, or NULL with *script set for SCRIPT, or NULL with
 * *script NULL for anything else.
 */
static const char *
alias_pick_form(int argc, char *const argv[], const char **script)
{
    *script = NULL;
    if (argc == 3 && alias_is_flag(argv[0]) && alias_is_flag(argv[1]) &&
        (strcmp(argv[0], "-c") == 0 || strcmp(argv[1], "-c") == 0))
        return argv[2];
    if (argc == 2 &&
        (strcmp(argv[0], "-c") == 0 || strcmp(argv[0], "-lc") == 0))
        return argv[1];
    if (argc == 1 && argv[0][0] != '-')
        *script = argv[0];
    return NULL;
}

/*
 * Reads SCRIPT with the agent's own access (we run in its sandbox), at
 * most BOX_SCRIPT_MAX bytes. On success the caller owns *out.
 */
static int
alias_read_script(const char *path, char **out, size_t *len)
{
    int status = BOX_STATUS_FAULT;
    char *buf = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0)
        return alias_fail("read Shell script %s: %s", path,
                          alias_os_err(errno));
    struct stat st;
    if (fstat(fd, &st) != 0) {
        alias_fail("read Shell script %s: %s", path, alias_os_err(errno));
        goto out;
    }
    if (S_ISDIR(st.st_mode)) {
        alias_fail("read Shell script %s: %s", path, alias_os_err(EISDIR));
        goto out;
    }
    if (S_ISREG(st.st_mode) && st.st_size > BOX_SCRIPT_MAX) {
        alias_fail("Shell script %s is %lld bytes; maximum is %d", path,
                   (long long)st.st_size, BOX_SCRIPT_MAX);
        goto out;
    }
    // One byte more than the limit tells a growing or non-regular file
    // that is too long from one that fits.
    if ((buf = box_alloc(BOX_SCRIPT_MAX + 2)) == NULL) {
        alias_fail("read Shell script %s: %s", path, alias_os_err(ENOMEM));
        goto out;
    }
    size_t got = 0;
    while (got <= BOX_SCRIPT_MAX) {
        ssize_t r = read(fd, buf + got, BOX_SCRIPT_MAX + 1 - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            alias_fail("read Shell script %s: %s", path, alias_os_err(errno));
            goto out;
        }
        if (r == 0)
            break;
        got += (size_t)r;
    }
    if (got > BOX_SCRIPT_MAX) {
        alias_fail("Shell script %s is %zu bytes; maximum is %d", path, got,
                   BOX_SCRIPT_MAX);
        goto out;
    }
    buf[got] = '\0';
    *out = buf;
    *len = got;
    buf = NULL;
    status = 0;
out:
    box_free(buf);
    close(fd);
    return status;
}

int
alias_shell_main(int argc, char *const argv[], const char *sock)
{
    const char *script;
    const char *cmd = alias_pick_form(argc, argv, &script);
    char *text = NULL;
    size_t len = 0;
    int status;

    if (cmd == NULL && script == NULL)
        return alias_fail(ALIAS_FORMS_MSG);
    if (cmd != NULL) {
        len = strlen(cmd);
    } else {
        if ((status = alias_read_script(script, &text, &len)) != 0)
            return status;
        cmd = text;
    }
    if (!box_utf8_valid(cmd, len)) {
        status = alias_fail("Shell command is not valid UTF-8");
        goto out;
    }
    // The wire carries the command as a protobuf string, which this
    // implementation keeps NUL-terminated: a NUL would cut it silently.
    if (memchr(cmd, '\0', len) != NULL) {
        status = alias_fail("Shell command contains a NUL byte");
        goto out;
    }
    status = alias_client_call(sock, cmd, len);
out:
    box_free(text);
    return status;
}
