/* SPDX-License-Identifier: Apache-2.0 */
/* `box policy fmt [--check] FILE...`: policy files in their canonical
 * layout (pdp_fmt). */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_cmd.h"
#include "box_policy_verbs.h"
#include "pdp_fmt.h"
#include "pdp_policy.h"
#include "pdp_policy_file.h"

static const char fmt_usage[] =
    "usage: box policy fmt [--check] FILE...\n"
    "\n"
    "Rewrites each policy FILE in its canonical layout (`-` reads standard\n"
    "input and writes standard output), naming each file it changes:\n"
    "`reformatted FILE`. --check changes nothing and names each file that\n"
    "is not in it: `would reformat FILE`. The layout: one blank line\n"
    "between rules; each annotation on its own line; `permit (principal,\n"
    "action, resource)` with all three on one line; each condition\n"
    "`when { ... }` on one line when it fits in 80 columns, else broken\n"
    "after `{` with one operand of its top-level && or || chain a line,\n"
    "indented by four; `when temporal { ... }` for a temporal condition;\n"
    "`;` ending the last line; parentheses only where the grammar needs\n"
    "them; `guardrails` dropped (it means nothing). The text reads back to\n"
    "the same rules, and formatting it again changes nothing.\n"
    "Comments are kept, in order: one on a line of its own stays on a line\n"
    "of its own, before the line that holds what followed it (so one inside\n"
    "a scope or inside an operand moves up before that line); one after\n"
    "code stays at the end of the line that holds that code (two or more\n"
    "that would end one line move up before it); a comment inside a\n"
    "condition breaks it. Blank lines are kept among the comments above a\n"
    "rule. A file that does not parse is left as it is.\n"
    "\n"
    "Exits 0 when every file is (now) canonical, 3 with --check when one\n"
    "is not, 2 when one does not parse, 1 on a usage, read or write error.\n";

/* Writes text over path: a new file beside it (its mode kept), synced,
 * then renamed into place, so a reader never sees half of it. */
static box_err
fmt_write(const char *path, const char *text, size_t len, char **err)
{
    char real[PATH_MAX], dir[PATH_MAX];
    struct stat st;
    if (realpath(path, real) == NULL || stat(real, &st) != 0) {
        *err = box_asprintf("cannot write %s: %s", path, strerror(errno));
        return BOX_EIO;
    }
    snprintf(dir, sizeof dir, "%s", real);
    char *tmp = box_asprintf("%s/.%s.fmt-XXXXXX", dirname(dir),
                             basename(real));
    if (tmp == NULL)
        return BOX_ENOMEM;
    int fd = mkstemp(tmp);
    box_err rv = BOX_EIO;
    if (fd < 0)
        goto fail;
    for (size_t off = 0; off < len;) {
        ssize_t n = write(fd, text + off, len - off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto fail;
        off += (size_t)n;
    }
    if (fchmod(fd, st.st_mode & 07777) != 0 || fsync(fd) != 0)
        goto fail;
    if (close(fd) != 0) {
        fd = -1;
        goto fail;
    }
    fd = -1;
    if (rename(tmp, real) != 0)
        goto fail;
    box_free(tmp);
    return BOX_OK;
fail:
    *err = box_asprintf("cannot write %s: %s", path, strerror(errno));
    if (fd >= 0)
        close(fd);
    (void)unlink(tmp);
    box_free(tmp);
    return rv;
}

/* Reads all of standard input. */
static box_err
fmt_read_stdin(char **text, size_t *len)
{
    box_buf b;
    box_buf_init(&b, PDP_POLICY_MAX_BYTES);
    char chunk[65536];
    size_t n;
    box_err rv = BOX_OK;
    while (rv == BOX_OK && (n = fread(chunk, 1, sizeof chunk, stdin)) > 0)
        rv = box_buf_append(&b, chunk, n);
    if (rv == BOX_OK && ferror(stdin))
        rv = BOX_EIO;
    if (rv == BOX_OK)
        rv = box_buf_puts(&b, ""); // NUL-terminated even when empty
    if (rv != BOX_OK) {
        box_buf_reset(&b);
        return rv;
    }
    *len = b.b_len;
    *text = box_buf_take(&b);
    return *text != NULL ? BOX_OK : BOX_ENOMEM;
}

/* One file; the status it earns. */
static int
fmt_one(const char *path, bool check)
{
    bool std = strcmp(path, "-") == 0;
    char *text = NULL, *err = NULL;
    size_t len = 0;
    box_buf out, perr;
    box_buf_init(&out, PDP_POLICY_MAX_BYTES * 2);
    box_buf_init(&perr, 1u << 16);
    int status = BOX_POLICY_USAGE;
    box_err rv = std ? fmt_read_stdin(&text, &len)
                     : pdp_read_text_file(path, "policy file",
                                          PDP_POLICY_MAX_BYTES, &text, &len,
                                          &err);
    if (rv != BOX_OK) {
        box_cmd_error("%s", err ? err : box_strerror(rv));
        goto out;
    }
    rv = pdp_fmt(text, len, std ? "<stdin>" : path, &out, &perr);
    if (rv == BOX_EPARSE || rv == BOX_ENOTSUP) {
        fprintf(stderr, "strands-box: error: %s does not parse, so it is left "
                "as it is: %s\n", std ? "<stdin>" : path,
                perr.b_len > 0 ? perr.b_data : box_strerror(rv));
        status = BOX_POLICY_INPUT;
        goto out;
    }
    if (rv != BOX_OK) {
        box_cmd_error("cannot format %s: %s", path, box_strerror(rv));
        goto out;
    }
    bool same = out.b_len == len && memcmp(out.b_data, text, len) == 0;
    status = BOX_POLICY_OK;
    if (std && !check) {
        fwrite(out.b_data, 1, out.b_len, stdout);
    } else if (check && !same) {
        printf("would reformat %s\n", path);
        status = BOX_POLICY_DIFFERS;
    } else if (!same) {
        if (fmt_write(path, out.b_data, out.b_len, &err) != BOX_OK) {
            box_cmd_error("%s", err ? err : "out of memory");
            status = BOX_POLICY_USAGE;
            goto out;
        }
        printf("reformatted %s\n", path);
    }
out:
    box_buf_reset(&out);
    box_buf_reset(&perr);
    box_free(text);
    box_free(err);
    return status;
}

int
box_policy_fmt(int argc, char **argv)
{
    bool check = false;
    int first = 1;
    for (; first < argc && argv[first][0] == '-' && argv[first][1] != '\0';
         first++) {
        if (strcmp(argv[first], "--help") == 0) {
            fputs(fmt_usage, stdout);
            return BOX_POLICY_OK;
        }
        if (strcmp(argv[first], "--check") != 0) {
            fputs(fmt_usage, stderr);
            return BOX_POLICY_USAGE;
        }
        check = true;
    }
    if (first >= argc) {
        fputs(fmt_usage, stderr);
        return BOX_POLICY_USAGE;
    }
    // The worst status wins: a read error, then a file that does not
    // parse, then one that is not canonical.
    static const int rank[] = {0, 3, 2, 1}; // by BOX_POLICY_* value
    int status = BOX_POLICY_OK;
    for (int i = first; i < argc; i++) {
        int s = fmt_one(argv[i], check);
        if (rank[s] > rank[status])
            status = s;
    }
    if (fflush(stdout) != 0)
        return BOX_POLICY_USAGE;
    return status;
}
