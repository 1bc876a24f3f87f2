/* SPDX-License-Identifier: Apache-2.0 */
/* The stand-in file interface: /dev/null only, until the kernel lands. */
#include <string.h>

#include "box_alloc.h"
#include "sh_files.h"

/* The one handle this implementation hands out. */
struct sh_file {
    int f_dummy;
};
static sh_file devnull_handle;

static sh_file *
dn_open(void *arg, const char *cwd, const char *path, sh_open_mode mode,
        char **err)
{
    if (strcmp(path, "/dev/null") == 0)
        return &devnull_handle;
    *err = box_strdup("file operations are not available yet");
    return NULL;
}

static ssize_t
dn_read(void *arg, sh_file *f, void *buf, size_t n)
{
    return 0;
}

static ssize_t
dn_write(void *arg, sh_file *f, const void *p, size_t n)
{
    return (ssize_t)n;
}

static void
dn_close(void *arg, sh_file *f)
{
}

static const sh_files devnull_files = {
    .f_open = dn_open,
    .f_read = dn_read,
    .f_write = dn_write,
    .f_close = dn_close,
    .f_arg = NULL,
};

const sh_files *
sh_files_devnull(void)
{
    return &devnull_files;
}
