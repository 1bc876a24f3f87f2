/* SPDX-License-Identifier: Apache-2.0 */
/* Reads a policy file and loads it with the full Box checks. */
#include "pdp_policy_file.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"
#include "pdp_parse.h"

box_err
pdp_read_text_file(const char *path, const char *what, size_t max,
                   char **text, size_t *len, char **err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    *text = NULL;
    *len = 0;
    if (fd < 0 || fstat(fd, &st) != 0) {
        *err = box_asprintf("cannot read %s %s: %s", what, path,
                            strerror(errno));
        if (fd >= 0)
            close(fd);
        return BOX_EIO;
    }
    if (!S_ISREG(st.st_mode)) {
        close(fd);
        *err = box_asprintf("%s %s is not a regular file", what, path);
        return BOX_ECONFIG;
    }
    if ((uint64_t)st.st_size > max) {
        close(fd);
        *err = box_asprintf("%s %s is %lld bytes; maximum is %zu", what, path,
                            (long long)st.st_size, max);
        return BOX_ETOOBIG;
    }
    char *buf = box_alloc((size_t)st.st_size + 1);
    if (buf == NULL) {
        close(fd);
        return BOX_ENOMEM;
    }
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            *err = box_asprintf("cannot read %s %s: %s", what, path,
                                strerror(errno));
            close(fd);
            box_free(buf);
            return BOX_EIO;
        }
        if (r == 0)
            break; // the file shrank: load what is there
        got += (size_t)r;
    }
    close(fd);
    buf[got] = '\0';
    *text = buf;
    *len = got;
    return BOX_OK;
}

box_err
pdp_policy_load_file(const char *path, const char *home, pdp_policy_set **out,
                     pdp_validate_warnings *warnings, char **err)
{
    char *text = NULL;
    size_t len = 0;
    char *inner = NULL;
    box_err rv;
    *err = NULL;
    if (path != NULL && (rv = pdp_read_text_file(path, "policy file",
                                         PDP_POLICY_MAX_BYTES, &text, &len,
                                         err)) != BOX_OK)
        return rv;
    rv = pdp_policy_load_checked(text ? text : "", len,
                                 path ? path : "<no authored policy>", NULL,
                                 home, out, warnings, &inner);
    box_free(text);
    *err = pdp_policy_load_message(rv, inner);
    return rv;
}

char *
pdp_policy_load_message(box_err rv, char *inner)
{
    if (rv != BOX_EPARSE && rv != BOX_ENOTSUP)
        return inner;
    char *msg;
    if (rv == BOX_ENOTSUP && inner != NULL &&
        strstr(inner, ": " PDP_PARSE_NO_PROVIDERS) != NULL)
        // §6.2 step 3: provider use, after the parse.
        msg = box_strdup("failed to parse policy source: dogwood: "
                         PDP_PARSE_NO_PROVIDERS);
    else // §6.2 step 2 names where a parse failure comes from
        msg = box_asprintf("failed to parse policy source: dogwood parse: %s",
                           inner != NULL ? inner : box_strerror(rv));
    box_free(inner);
    return msg;
}
