/* SPDX-License-Identifier: Apache-2.0 */
/* Test-only: reading the bash differential's cases and gaps
 * (bash_load.h). */
#include "bash_load.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "box_alloc.h"
#include "box_buf.h"

#define BD_FILE_MAX (8u << 20)
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

static char *
read_all(const char *path, size_t *len)
{
    box_buf b;
    box_buf_init(&b, BD_FILE_MAX);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char buf[8192];
    ssize_t n;
    box_err rv = BOX_OK;
    while (rv == BOX_OK && (n = read(fd, buf, sizeof buf)) > 0)
        rv = box_buf_append(&b, buf, (size_t)n);
    close(fd);
    if (rv != BOX_OK) {
        box_buf_reset(&b);
        return NULL;
    }
    *len = b.b_len;
    return box_buf_take(&b);
}

static const char *
source_dir(void)
{
    const char *s = getenv("BOX_SOURCE_DIR");
    if (s == NULL || *s == '\0')
        fail_msg("BOX_SOURCE_DIR is not set (ctest sets it)");
    return s;
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

// Every tests/shell/cases/NAME.cases, in name order.
void
bd_load_cases(bd_cases *cs)
{
    char *dir = box_asprintf("%s/tests/shell/cases", source_dir());
    assert_non_null(dir);
    DIR *d = opendir(dir);
    if (d == NULL)
        fail_msg("cannot open %s: %s", dir, strerror(errno));
    char *names[256];
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l > 6 && strcmp(e->d_name + l - 6, ".cases") == 0) {
            assert_true(n < NELEM(names));
            names[n++] = box_strdup(e->d_name);
        }
    }
    closedir(d);
    qsort(names, n, sizeof *names, cmp_str);
    for (size_t i = 0; i < n; i++) {
        char *path = box_asprintf("%s/%s", dir, names[i]);
        size_t len = 0;
        char *text = read_all(path, &len);
        if (text == NULL)
            fail_msg("cannot read %s", path);
        char *err = NULL;
        char *origin = box_asprintf("tests/shell/cases/%s", names[i]);
        if (bd_cases_parse(cs, origin, text, len, &err) != BOX_OK)
            fail_msg("%s", err);
        box_free(origin);
        box_free(text);
        box_free(path);
        box_free(names[i]);
    }
    box_free(dir);
    if (cs->cs_n == 0)
        fail_msg("no cases under tests/shell/cases");
}

void
bd_load_gaps(bd_gaps *gs, const bd_cases *cs)
{
    char *path = box_asprintf("%s/tests/shell/known-gaps", source_dir());
    size_t len = 0;
    char *text = read_all(path, &len);
    if (text == NULL)
        fail_msg("cannot read %s", path);
    char *err = NULL;
    if (bd_gaps_parse(gs, "tests/shell/known-gaps", text, len, &err) != BOX_OK)
        fail_msg("%s", err);
    box_free(text);
    box_free(path);
    for (size_t i = 0; i < gs->gs_n; i++) {
        const bd_gap *g = &gs->gs_v[i];
        const bd_case *c = bd_cases_find(cs, g->bg_name);
        if (c == NULL)
            fail_msg("tests/shell/known-gaps:%u: no case is named '%s'",
                     g->bg_line, g->bg_name);
        bool box_said =
            c->bc_has_box_out || c->bc_has_box_err || c->bc_has_box_status;
        if (g->bg_spec && !box_said)
            fail_msg("%s: case '%s' is a spec gap (known-gaps:%u) but does "
                     "not say what the box prints (%%box-stdout, "
                     "%%box-stderr, %%box-status)",
                     c->bc_origin, c->bc_name, g->bg_line);
    }
    for (size_t i = 0; i < cs->cs_n; i++) {
        const bd_case *c = &cs->cs_v[i];
        const bd_gap *g = bd_gaps_find(gs, c->bc_name);
        if ((c->bc_has_box_out || c->bc_has_box_err || c->bc_has_box_status) &&
            (g == NULL || !g->bg_spec))
            fail_msg("%s: case '%s' says what the box prints, so "
                     "tests/shell/known-gaps must list it as 'spec §…: why'",
                     c->bc_origin, c->bc_name);
    }
}
