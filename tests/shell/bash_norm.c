/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: normalizes the shells' stderr prefixes (bash_norm.h). */
#include <string.h>

#include "bash_norm.h"

static bool
starts(const char *p, size_t n, const char *s)
{
    size_t l = strlen(s);
    return n >= l && memcmp(p, s, l) == 0;
}

/* Length of "line N: " at p, or 0. */
static size_t
line_tag(const char *p, size_t n)
{
    if (!starts(p, n, "line "))
        return 0;
    size_t i = 5;
    while (i < n && p[i] >= '0' && p[i] <= '9')
        i++;
    if (i == 5 || i + 1 >= n || p[i] != ':' || p[i + 1] != ' ')
        return 0;
    return i + 2;
}

/* Copies each line of p (the last may lack its newline) to out without
 * prefix and the "line N: " after it. */
static box_err
each_line(const char *p, size_t n, const char *prefix, box_buf *out)
{
    size_t i = 0;
    box_err rv = BOX_OK;
    while (i < n && rv == BOX_OK) {
        const char *s = p + i;
        const char *nl = memchr(s, '\n', n - i);
        size_t l = nl != NULL ? (size_t)(nl - s) + 1 : n - i;
        i += l;
        // bash names a function's errors under -c after their source,
        // "environment: line N: ", instead of itself.
        size_t pl = starts(s, l, prefix) ? strlen(prefix) : 0;
        if (pl == 0 && strcmp(prefix, "bash: ") == 0 &&
            starts(s, l, "environment: ") && line_tag(s + 13, l - 13) > 0)
            pl = 13;
        if (pl > 0) {
            s += pl;
            l -= pl;
            if (starts(s, l, "-c: ")) { // bash's syntax errors
                s += 4;
                l -= 4;
            }
            size_t t = line_tag(s, l);
            if (t > 0) {
                s += t;
                l -= t;
            }
        }
        rv = box_buf_append(out, s, l);
    }
    return rv;
}

box_err
bd_norm_bash_err(const char *p, size_t n, box_buf *out)
{
    return each_line(p, n, "bash: ", out);
}

box_err
bd_norm_box_err(const char *p, size_t n, box_buf *out)
{
    return each_line(p, n, "strands-shell: ", out);
}
