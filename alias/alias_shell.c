/* SPDX-License-Identifier: Apache-2.0 */
/* The shell alias's argv forms and SCRIPT reading (box-spec §2). */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "alias.h"
#include "box_alloc.h"
#include "box_shopts.h"
#include "box_utf8.h"
#include "box_wire.h"

#define ALIAS_FORMS_MSG                                                        \
    "Shell alias accepts only -c COMMAND, -lc COMMAND, -c -l COMMAND, or "     \
    "SCRIPT"

static bool
alias_set_push(alias_form *f, const char *arg)
{
    if (f->af_nset == ALIAS_SET_MAX)
        return false;
    f->af_set[f->af_nset++] = arg;
    return true;
}

/* One cluster of single-letter options (`-ec`, `-euo NAME`); *i moves
 * past what it used. False for a letter the alias does not take. */
static bool
alias_cluster(int argc, char *const argv[], int *i, alias_form *f, bool *c,
              bool *s)
{
    static const char *const sets[] = {['e'] = "-e", ['u'] = "-u",
                                       ['x'] = "-x"};
    const char *a = argv[(*i)++];
    for (const char *p = a + 1; *p != '\0'; p++) {
        switch (*p) {
        case 'c':
            *c = true;
            break;
        case 'l': // a login shell reads profiles: the box's shell has none
            break;
        case 's': // the script on stdin (issue 23)
            *s = true;
            break;
        case 'e':
        case 'u':
        case 'x':
            if (!alias_set_push(f, sets[(unsigned char)*p]))
                return false;
            break;
        case 'o':
            if (*i >= argc || !box_shopt_long_ok(argv[*i]) ||
                !alias_set_push(f, "-o") || !alias_set_push(f, argv[*i]))
                return false;
            (*i)++;
            break;
        default: // -i, -r, ...: not taken
            return false;
        }
    }
    return true;
}

/*
 * The accepted forms (box-spec §2, and what programs that run `sh -c`
 * pass, issue 23):
 *   [OPTION...] -c COMMAND [NAME [ARG...]]   $0 = NAME, $1... = ARGs
 *   [OPTION...] SCRIPT [ARG...]              $0 = SCRIPT
 *   [OPTION...] -s [ARG...]                  the script on stdin
 * where an OPTION is a cluster of c, l, e, u, x, s and o (`-o NAME`, NAME
 * one box_shopt_long_ok takes), --login, --noprofile, --norc, and `--` ends
 * them. -e -u -x -o become `set` options for the call; -l and the long
 * ones change nothing (the box's shell reads no profile). -s with -c sets
 * both af_cmd and af_stdin_script (the caller refuses it, saying why).
 * False for any other form.
 */
bool
alias_parse_form(int argc, char *const argv[], alias_form *f)
{
    memset(f, 0, sizeof *f);
    bool c = false, s = false;
    int i = 0;
    while (i < argc) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            i++;
            break;
        }
        if (strcmp(a, "--login") == 0 || strcmp(a, "--noprofile") == 0 ||
            strcmp(a, "--norc") == 0) {
            i++;
            continue;
        }
        if (a[0] == '+' && a[1] != '\0')
            return false; // +e, +o NAME: options turned off, not taken
        if (a[0] != '-' || a[1] == '\0')
            break;
        if (a[1] == '-' || !alias_cluster(argc, argv, &i, f, &c, &s))
            return false;
    }
    f->af_stdin_script = s;
    if (s && !c) { // every word left is an argument, `--` or not
        f->af_args = argv + i;
        f->af_nargs = argc - i;
        return true;
    }
    if (i >= argc || argv[i][0] == '-')
        return false; // no COMMAND or SCRIPT (an interactive shell)
    if (c) {
        f->af_cmd = argv[i++];
        if (i < argc)
            f->af_arg0 = argv[i++];
    } else {
        f->af_script = argv[i];
        f->af_arg0 = argv[i++];
    }
    f->af_args = argv + i;
    f->af_nargs = argc - i;
    return true;
}

/*
 * Reads fd to its end or one byte past max, whichever comes
 * first, into *out (box_alloc'd, NUL-terminated, the caller's on success):
 * *got past max says the text is too long, however long it is. 0 or an
 * errno.
 */
static int
alias_read_upto(int fd, size_t max, char **out, size_t *got)
{
    char *buf = box_alloc(max + 2);
    *got = 0;
    if (buf == NULL)
        return ENOMEM;
    while (*got <= max) {
        ssize_t r = read(fd, buf + *got, max + 1 - *got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int err = errno;
            box_free(buf);
            return err;
        }
        if (r == 0)
            break;
        *got += (size_t)r;
    }
    buf[*got] = '\0';
    *out = buf;
    return 0;
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
    size_t got = 0;
    int err = alias_read_upto(fd, BOX_SCRIPT_MAX, &buf, &got);
    if (err != 0) {
        alias_fail("read Shell script %s: %s", path, alias_os_err(err));
        goto out;
    }
    if (got > BOX_SCRIPT_MAX) {
        alias_fail("Shell script %s is %zu bytes; maximum is %d", path, got,
                   BOX_SCRIPT_MAX);
        goto out;
    }
    *out = buf;
    *len = got;
    buf = NULL;
    status = 0;
out:
    box_free(buf);
    close(fd);
    return status;
}

/*
 * `bash -s`: the script is all of stdin, read whole before the call (as a
 * SCRIPT file is), at most BOX_COMMAND_MAX bytes, a -c command's limit.
 * Nothing is left for the command to read then: its stdin is at its end.
 * On success the caller owns *out.
 */
static int
alias_read_stdin_script(char **out, size_t *len)
{
    char *buf = NULL;
    size_t got = 0;
    int err = alias_read_upto(0, BOX_COMMAND_MAX, &buf, &got);
    if (err == EBADF) // no stdin at all: an empty script, as bash's
        err = (buf = box_strdup("")) != NULL ? 0 : ENOMEM;
    if (err != 0)
        return alias_fail("read Shell script from standard input: %s",
                          alias_os_err(err));
    if (got > BOX_COMMAND_MAX) {
        box_free(buf);
        return alias_fail("Shell script on standard input is more than %u "
                          "bytes; maximum is %u",
                          BOX_COMMAND_MAX, BOX_COMMAND_MAX);
    }
    *out = buf;
    *len = got;
    return 0;
}

int
alias_shell_main(const char *arg0, int argc, char *const argv[],
                 const char *sock)
{
    alias_form form;
    const char *cmd;
    char *text = NULL;
    size_t len = 0;
    int status;

    if (!alias_parse_form(argc, argv, &form))
        return alias_fail(ALIAS_FORMS_MSG);
    if (form.af_arg0 == NULL)
        form.af_arg0 = arg0;
    if (form.af_stdin_script && form.af_cmd != NULL)
        return alias_fail("-s reads the script from standard input; it does "
                          "not go with -c COMMAND");
    if (form.af_stdin_script) {
        if ((status = alias_read_stdin_script(&text, &len)) != 0)
            return status;
        cmd = text;
    } else if (form.af_cmd != NULL) {
        cmd = form.af_cmd;
        len = strlen(cmd);
    } else {
        if ((status = alias_read_script(form.af_script, &text, &len)) != 0)
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
    // Arguments cross as protobuf strings too.
    for (int i = -1; i < form.af_nargs; i++) {
        const char *a = i < 0 ? form.af_arg0 : form.af_args[i];
        if (a != NULL && !box_utf8_valid(a, strlen(a))) {
            status = alias_fail("Shell argument is not valid UTF-8");
            goto out;
        }
    }
    status = alias_client_call(sock, cmd, len, &form);
out:
    box_free(text);
    return status;
}
