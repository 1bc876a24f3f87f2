/* SPDX-License-Identifier: Apache-2.0 */
/* Reads one profile's credential from the AWS shared credentials file. */
#include "box_awsprof.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "box_alloc.h"

/* ORDER AP_KEY: the keys read, in the order of keys[] below. */
enum { AP_KEY_ID, AP_SECRET, AP_TOKEN, AP_NKEYS };

static const struct {
    const char *k_name;
    bool k_required;
} keys[AP_NKEYS] = {
    {"aws_access_key_id", true},
    {"aws_secret_access_key", true},
    {"aws_session_token", false},
};

/* A parse's state: the file, what the profile set and where. */
typedef struct ap_parse {
    const char *pp_profile;
    const char *pp_file;
    size_t pp_section_line; // where [profile] is, 0 before it is seen
    bool pp_in_profile;     // the current section is the profile
    bool pp_in_section;     // some section has begun
    char *pp_val[AP_NKEYS]; // the values found (owned, wiped)
    size_t pp_val_line[AP_NKEYS];
    // The key line an indented line would continue: its indentation and
    // which of keys[] it set (-1: none, AP_NKEYS: another key).
    bool pp_has_key;
    size_t pp_key_indent;
    int pp_key;
} ap_parse;

/* *err = "aws://PROFILE: " and the formatted rest; returns code. */
static box_err __attribute__((format(printf, 4, 5)))
fail(char **err, const char *profile, box_err code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *body = box_vasprintf(fmt, ap);
    va_end(ap);
    *err = body != NULL ? box_asprintf("aws://%s: %s", profile, body) : NULL;
    box_free(body);
    return code;
}

static void
wipe_free(char *s)
{
    if (s != NULL)
        explicit_bzero(s, strlen(s));
    box_free(s);
}

static bool
is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* p[0..*n) without whitespace at either end; returns the new start. */
static const char *
trim(const char *p, size_t *n)
{
    while (*n > 0 && is_space(p[*n - 1]))
        (*n)--;
    while (*n > 0 && is_space(*p))
        p++, (*n)--;
    return p;
}

/* line -> '[' name ']' [ comment ] */
static box_err
parse_section(ap_parse *ps, const char *p, size_t n, size_t lineno, char **err)
{
    const char *close = NULL;
    for (size_t i = 1; i < n; i++)
        if (p[i] == ']')
            close = p + i;
    size_t rest = close != NULL ? n - (size_t)(close + 1 - p) : 0;
    const char *after = close != NULL ? trim(close + 1, &rest) : NULL;
    size_t nl = close != NULL ? (size_t)(close - p - 1) : 0;
    const char *name = trim(p + 1, &nl);
    if (close == NULL || nl == 0 ||
        (rest > 0 && *after != '#' && *after != ';'))
        return fail(err, ps->pp_profile, BOX_ECONFIG,
                    "%s line %zu: expected [NAME], key = value or a comment",
                    ps->pp_file, lineno);
    ps->pp_in_section = true;
    ps->pp_has_key = false;
    ps->pp_in_profile =
        strlen(ps->pp_profile) == nl && memcmp(name, ps->pp_profile, nl) == 0;
    if (!ps->pp_in_profile)
        return BOX_OK;
    if (ps->pp_section_line != 0)
        return fail(err, ps->pp_profile, BOX_ECONFIG,
                    "%s defines the profile \"%s\" twice (lines %zu and %zu)",
                    ps->pp_file, ps->pp_profile, ps->pp_section_line, lineno);
    ps->pp_section_line = lineno;
    return BOX_OK;
}

/* line -> key ( '=' | ':' ) value */
static box_err
parse_key(ap_parse *ps, const char *p, size_t n, size_t indent, size_t lineno,
          char **err)
{
    size_t d = 0;
    while (d < n && p[d] != '=' && p[d] != ':')
        d++;
    size_t kn = d, vn = d < n ? n - d - 1 : 0;
    const char *key = trim(p, &kn);
    const char *val = d < n ? trim(p + d + 1, &vn) : NULL;
    if (d == n || kn == 0)
        return fail(err, ps->pp_profile, BOX_ECONFIG,
                    "%s line %zu: expected [NAME], key = value or a comment",
                    ps->pp_file, lineno);
    if (!ps->pp_in_section)
        return fail(err, ps->pp_profile, BOX_ECONFIG,
                    "%s line %zu: a key before any [NAME] section", ps->pp_file,
                    lineno);
    int k = AP_NKEYS;
    for (int i = 0; i < AP_NKEYS && ps->pp_in_profile; i++)
        if (strlen(keys[i].k_name) == kn &&
            strncasecmp(key, keys[i].k_name, kn) == 0)
            k = i;
    ps->pp_has_key = true;
    ps->pp_key_indent = indent;
    ps->pp_key = k;
    if (k == AP_NKEYS)
        return BOX_OK;
    if (ps->pp_val[k] != NULL)
        return fail(err, ps->pp_profile, BOX_ECONFIG,
                    "profile \"%s\" in %s sets %s twice (lines %zu and %zu)",
                    ps->pp_profile, ps->pp_file, keys[k].k_name,
                    ps->pp_val_line[k], lineno);
    for (size_t i = 0; i < vn; i++)
        if ((unsigned char)val[i] < 0x20 || val[i] == 0x7f)
            return fail(err, ps->pp_profile, BOX_ECONFIG,
                        "%s in profile \"%s\" in %s (line %zu) has a control "
                        "character",
                        keys[k].k_name, ps->pp_profile, ps->pp_file, lineno);
    if ((ps->pp_val[k] = box_strndup(val, vn)) == NULL)
        return fail(err, ps->pp_profile, BOX_ENOMEM, "out of memory");
    ps->pp_val_line[k] = lineno;
    return BOX_OK;
}

/* One line, without its line end. */
static box_err
parse_line(ap_parse *ps, const char *p, size_t n, size_t lineno, char **err)
{
    size_t indent = 0;
    while (indent < n && is_space(p[indent]))
        indent++;
    if (indent == n || p[indent] == '#' || p[indent] == ';')
        return BOX_OK; // blank, or a comment
    if (ps->pp_has_key && indent > ps->pp_key_indent) {
        // A continuation line: part of the value above it.
        if (ps->pp_key == AP_NKEYS)
            return BOX_OK;
        return fail(err, ps->pp_profile, BOX_ECONFIG,
                    "%s in profile \"%s\" in %s goes on over line %zu; a "
                    "credential is one line",
                    keys[ps->pp_key].k_name, ps->pp_profile, ps->pp_file,
                    lineno);
    }
    if (p[indent] == '[')
        return parse_section(ps, p + indent, n - indent, lineno, err);
    return parse_key(ps, p + indent, n - indent, indent, lineno, err);
}

/* The whole file into *buf (NUL-terminated; the caller wipes and frees
 * it), at most BOX_AWSPROF_FILE_MAX bytes. A read of /proc or a FIFO
 * would be sized wrong: only a regular file is read. */
static box_err
read_file(const char *profile, const char *path, char **buf, size_t *len,
          char **err)
{
    struct stat st;
    box_err rv;
    char *b = NULL;
    size_t n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);

    *buf = NULL;
    if (fd < 0) {
        int e = errno;
        return fail(err, profile, e == ENOENT ? BOX_ENOENT : BOX_EIO,
                    "cannot read %s: %s", path, strerror(e));
    }
    if (fstat(fd, &st) != 0) {
        rv = fail(err, profile, BOX_EIO, "cannot read %s: %s", path,
                  strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode)) {
        rv =
            fail(err, profile, BOX_ECONFIG, "cannot read %s: not a file", path);
        goto out;
    }
    if (st.st_size > BOX_AWSPROF_FILE_MAX) {
        rv = fail(err, profile, BOX_ECONFIG, "%s is larger than %d bytes", path,
                  BOX_AWSPROF_FILE_MAX);
        goto out;
    }
    // One byte past the size fstat gave shows a file that grew meanwhile.
    size_t cap = (size_t)st.st_size + 1;
    if ((b = box_alloc(cap + 1)) == NULL) {
        rv = fail(err, profile, BOX_ENOMEM, "out of memory");
        goto out;
    }
    for (;;) {
        ssize_t r = read(fd, b + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rv = fail(err, profile, BOX_EIO, "cannot read %s: %s", path,
                      strerror(errno));
            goto out;
        }
        if (r == 0)
            break;
        n += (size_t)r;
        if (n == cap) {
            rv = fail(err, profile, BOX_EIO,
                      "cannot read %s: it changed while it was read", path);
            goto out;
        }
    }
    b[n] = '\0';
    *buf = b;
    *len = n;
    b = NULL;
    rv = BOX_OK;
out:
    if (b != NULL) {
        explicit_bzero(b, n);
        box_free(b);
    }
    close(fd);
    return rv;
}

box_err
box_awsprof_load(const char *profile, const char *home, const char *creds_file,
                 box_awsprof *out, char **err)
{
    ap_parse ps = {.pp_profile = profile};
    char *path = NULL, *text = NULL;
    size_t len = 0;
    box_err rv;

    memset(out, 0, sizeof *out);
    *err = NULL;
    if (profile == NULL || *profile == '\0')
        return fail(err, "", BOX_EINVAL, "names no profile");
    bool from_env = creds_file != NULL && *creds_file != '\0';
    bool tilde = !from_env || strncmp(creds_file, "~/", 2) == 0;
    if (tilde && (home == NULL || *home == '\0'))
        return fail(err, profile, BOX_ECONFIG,
                    "no home directory to find %s in",
                    from_env ? creds_file : "~/.aws/credentials");
    path = !from_env ? box_asprintf("%s/.aws/credentials", home)
           : tilde   ? box_asprintf("%s/%s", home, creds_file + 2)
                     : box_strdup(creds_file);
    if (path == NULL)
        return fail(err, profile, BOX_ENOMEM, "out of memory");
    ps.pp_file = path;
    if ((rv = read_file(profile, path, &text, &len, err)) != BOX_OK)
        goto out;

    // A byte-order mark, as an editor on Windows leaves it.
    size_t at = len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
    for (size_t lineno = 1; at < len; lineno++) {
        const char *nl = memchr(text + at, '\n', len - at);
        size_t end = nl != NULL ? (size_t)(nl - text) : len, n = end - at;
        if (n > 0 && text[end - 1] == '\r')
            n--;
        if (memchr(text + at, '\0', n) != NULL) {
            rv = fail(err, profile, BOX_ECONFIG,
                      "%s line %zu: a NUL byte (not a text file?)", path,
                      lineno);
            goto out;
        }
        if ((rv = parse_line(&ps, text + at, n, lineno, err)) != BOX_OK)
            goto out;
        at = end + 1;
    }

    if (ps.pp_section_line == 0) {
        rv = fail(err, profile, BOX_ENOENT, "no profile \"%s\" in %s", profile,
                  path);
        goto out;
    }
    for (int k = 0; k < AP_NKEYS; k++)
        if (keys[k].k_required &&
            (ps.pp_val[k] == NULL || *ps.pp_val[k] == '\0')) {
            rv = fail(err, profile, BOX_ECONFIG,
                      "profile \"%s\" in %s has no %s", profile, path,
                      keys[k].k_name);
            goto out;
        }
    // An empty session token is none (the CLI reads it so).
    if (ps.pp_val[AP_TOKEN] != NULL && *ps.pp_val[AP_TOKEN] == '\0') {
        wipe_free(ps.pp_val[AP_TOKEN]);
        ps.pp_val[AP_TOKEN] = NULL;
    }
    out->ap_key_id = ps.pp_val[AP_KEY_ID];
    out->ap_secret = ps.pp_val[AP_SECRET];
    out->ap_token = ps.pp_val[AP_TOKEN];
    out->ap_file = path;
    memset(ps.pp_val, 0, sizeof ps.pp_val);
    path = NULL;
    rv = BOX_OK;
out:
    for (int k = 0; k < AP_NKEYS; k++)
        wipe_free(ps.pp_val[k]);
    if (text != NULL) {
        explicit_bzero(text, len);
        box_free(text);
    }
    box_free(path);
    return rv;
}

void
box_awsprof_free(box_awsprof *p)
{
    wipe_free(p->ap_key_id);
    wipe_free(p->ap_secret);
    wipe_free(p->ap_token);
    box_free(p->ap_file);
    memset(p, 0, sizeof *p);
}
